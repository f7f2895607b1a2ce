"""The editor's edits of many parts at once, by keys (:class:`Arranger`): mirror the selection
across the mirror axis, duplicate it, copy and paste it, rotate and scale it, set the creature
on the ground. Each is one of the document's edits (``DesignDoc.mirror``, ``duplicate``,
``transform``, ``set_on_ground``): one undo step; what they make is selected after.

**Mirror mode** (N): every part placed, joined, made a muscle, moved, limited or deleted on one
side of the mirror axis gets the same on the other (the document's ``mirror`` of a new part,
the same edit on a part's image: the part at the mirrored place); the edit and its image are one
undo step (``DesignDoc.join``). A part on the axis is its own image."""

from __future__ import annotations

import arcade
import numpy as np

from .game import GameError

__all__ = ["Arranger", "ARRANGE_KEYS", "ROTATE_STEP", "SCALE_STEP", "DUPLICATE_OFFSET"]

#: a rotation key turns the selection this many degrees; a scale key scales it by this much
ROTATE_STEP, SCALE_STEP = 15.0, 1.1
#: a duplicate lands this far to the right (m)
DUPLICATE_OFFSET = 0.3
#: a sphere this close (m) to the mirrored place of another is its image
IMAGE_REACH = 1e-3
#: the document's edits that mirror mode repeats on the other side, and the kind each makes
MADE = {"add_sphere": "sphere", "add_bone": "bone", "add_joint": "joint", "add_cluster": "cluster"}
FOLLOWED = (*MADE, "toggle_muscle", "move_spheres", "delete", "set_joint")

#: (keys, what they do): the help overlay's lines for these
ARRANGE_KEYS = (
    ("X, SHIFT+X, N", "mirror the selection; the mirror axis to the mouse; mirror mode"),
    ("CTRL+D / C / V, [ ] < >, CTRL+G", "duplicate, copy, paste; rotate, scale (or drag the handles); ground"),
)


class Arranger:
    """The many-part edits of an :class:`~render.editor.EditorView` (``view``): its selection,
    its document's edits (``view._edit``), the mouse (:meth:`moved`)."""

    def __init__(self, view):
        self.view = view
        #: the mirror axis: the vertical line x = ``axis`` (m)
        self.axis = 0.0
        #: the items copied (CTRL+C), pasted at the mouse by CTRL+V
        self.clipboard: list = []
        self.mouse = (0.0, 0.0)        # the mouse, in metres
        #: mirror mode: each edit's image is made on the other side of the axis
        self.mirror_mode = False
        self._images = None            # an edit's parts' images, found before it

    def moved(self, sx: float, sy: float) -> None:
        """The mouse is at screen point (sx, sy)."""
        x, y = self.view.screen_to_world(sx, sy)
        self.mouse = (float(x), float(y))

    def key(self, symbol: int, modifiers: int) -> bool:
        """Do what the key does; False for a key that is not one of these."""
        k = arcade.key
        ctrl = modifiers & (k.MOD_CTRL | k.MOD_COMMAND)
        shift = modifiers & k.MOD_SHIFT
        actions = ({k.D: self.duplicate, k.C: self.copy, k.V: self.paste, k.G: self.ground} if ctrl else
                   {k.X: self.set_axis if shift else self.mirror, k.N: self.toggle_mode,
                    k.BRACKETLEFT: lambda: self.turn(ROTATE_STEP), k.BRACKETRIGHT: lambda: self.turn(-ROTATE_STEP),
                    k.COMMA: lambda: self.scale(1.0 / SCALE_STEP), k.PERIOD: lambda: self.scale(SCALE_STEP)})
        action = actions.get(symbol)
        if action is None:
            return False
        action()
        return True

    def status(self) -> str:
        """What the status line says of mirror mode (nothing while it is off)."""
        return f"  |  mirror mode at x = {self.axis:g} m" if self.mirror_mode else ""

    def toggle_mode(self) -> None:
        self.mirror_mode = not self.mirror_mode
        self.view.say(f"mirror mode {'on' if self.mirror_mode else 'off'}: what is made, moved or deleted on one "
                      f"side of x = {self.axis:g} m is mirrored on the other" if self.mirror_mode else "mirror mode off")

    # --- mirror mode: an edit's image -------------------------------------------------------------
    def before(self, method: str, args) -> None:
        """Before the view's edit ``method(*args)``: the images of the parts it names (found
        now: a delete or a move changes them)."""
        self._images = None
        if not self.mirror_mode or method not in FOLLOWED or method in MADE:
            return
        self._images = self._image_map()

    def _image_map(self) -> dict:
        """``(kind, id) -> (kind, image id)`` of the parts whose image is there (itself on the axis)."""
        s = self.view.doc.sketch
        pos, axis = np.asarray(s.pos, np.float64).reshape(-1, 2), self.axis
        out, sphere_image = {}, {}
        for i, ident in enumerate(s.sphere_id):
            target = np.array([2 * axis - pos[i, 0], pos[i, 1]])
            d = np.abs(pos - target).max(axis=1) if len(pos) else np.zeros(0)
            k = int(np.argmin(d)) if d.size else -1
            if k >= 0 and d[k] < IMAGE_REACH:
                sphere_image[i] = k
                out[("sphere", ident)] = ("sphere", s.sphere_id[k])
        ends = {frozenset((int(a), int(b))): e for e, (a, b) in enumerate(zip(s.bone_a, s.bone_b))}
        bone_image = {}
        for e, (a, b) in enumerate(zip(s.bone_a, s.bone_b)):
            if a in sphere_image and b in sphere_image:
                f = ends.get(frozenset((sphere_image[int(a)], sphere_image[int(b)])))
                if f is not None:
                    bone_image[e] = f
                    out[("bone", s.bone_id[e])] = ("bone", s.bone_id[f])
        at = {(int(c), frozenset(map(int, bs))): j for j, (c, bs) in enumerate(zip(s.joint_sphere, s.joint_bones))}
        for j, (c, bs) in enumerate(zip(s.joint_sphere, s.joint_bones)):
            if int(c) in sphere_image and all(int(b) in bone_image for b in bs):
                k = at.get((sphere_image[int(c)], frozenset(bone_image[int(b)] for b in bs)))
                if k is not None:
                    out[("joint", s.joint_id[j])] = ("joint", s.joint_id[k])
        return out

    def follow(self, method: str, args, kwargs, result):
        """After the view's edit ``method(*args, **kwargs)`` (which returned ``result``): in
        mirror mode, the same edit on the other side, one undo step with it. Returns ``result``,
        or for a sphere placed its new id (a pair's ids carry their sides: ``sphere_7_l`` and
        ``sphere_7_r``)."""
        if not self.mirror_mode or method not in FOLLOWED:
            return result
        doc, images = self.view.doc, self._images or {}
        self._images = None
        try:
            if method == "add_sphere":
                if result is None:
                    return result
                result = doc.pair_sphere(result, self.axis)[0]
            elif method == "add_bone":   # named by its side, as spheres are: bone_3_l and bone_3_r
                if result is None:
                    return result
                named = doc.name_by_side(result, self.axis)
                doc.mirror([("bone", named)], self.axis)
                if named != result:
                    doc.join(3)
                    return named
            elif method in MADE:
                if result is None:
                    return result
                doc.mirror([(MADE[method], result)], self.axis)
            elif method == "toggle_muscle":
                image = images.get(("bone", args[0]))
                if image is None or image[1] == args[0]:
                    return result
                doc.toggle_muscle(image[1])
            elif method == "move_spheres":
                ids, dx, dy = args
                others = [images[("sphere", i)][1] for i in ids if ("sphere", i) in images]
                others = [o for o in others if o not in ids]
                if not others:
                    return result
                doc.move_spheres(others, -dx, dy)
            elif method == "delete":
                gone = {tuple(x) for x in args[0]}
                others = [images[it] for it in gone if it in images and images[it] not in gone]
                if not others:
                    return result
                doc.delete(others)
            else:       # set_joint: the image's limits mirrored
                image = images.get(("joint", args[0]))
                if image is None or image[1] == args[0]:
                    return result
                low, high = kwargs.get("min"), kwargs.get("max")
                doc.set_joint(image[1], kind=kwargs.get("kind"), min=None if high is None else -high,
                              max=None if low is None else -low)
        except GameError:
            return result
        doc.join(2)
        return result

    def _made(self, items) -> None:
        if items:
            self.view.select(items)

    def _spheres(self) -> list:
        return [i for kind, i in self.view.selection if kind == "sphere"]

    def mirror(self) -> None:
        if not self.view.selection:
            self.view.say("select what to mirror (its other half is made across the mirror axis)")
            return
        made = self.view._edit("mirror", list(self.view.selection), self.axis)
        self._made(made)
        if made:
            self.view.say(f"mirrored across x = {self.axis:g} m: {len(made)} new parts")

    def set_axis(self) -> None:
        self.axis = round(self.mouse[0], 3)
        self.view.say(f"mirror axis at x = {self.axis:g} m")

    def duplicate(self) -> None:
        if not self.view.selection:
            self.view.say("select what to duplicate")
            return
        self._made(self.view._edit("duplicate", list(self.view.selection), DUPLICATE_OFFSET, 0.0))

    def copy(self) -> None:
        self.clipboard = list(self.view.selection)
        self.view.say(f"copied {len(self.clipboard)} parts: CTRL+V pastes them at the mouse" if self.clipboard
                      else "nothing selected to copy")

    def paste(self) -> None:
        if not self.clipboard:
            self.view.say("nothing copied yet: select parts and press CTRL+C")
            return
        sketch = self.view.doc.sketch
        index = {s: k for k, s in enumerate(sketch.sphere_id)}
        at = [sketch.pos[index[i]] for kind, i in self.clipboard if kind == "sphere" and i in index]
        if not at:
            self.view.say("the parts copied are gone")
            return
        cx, cy = (sum(p[0] for p in at) / len(at), sum(p[1] for p in at) / len(at))
        self._made(self.view._edit("duplicate", self.clipboard, self.mouse[0] - cx, self.mouse[1] - cy))

    def turn(self, degrees: float) -> None:
        if self._spheres():
            self.view._edit("transform", self._spheres(), degrees, 1.0)
        else:
            self.view.say("select the spheres to rotate")

    def scale(self, factor: float) -> None:
        if self._spheres():
            self.view._edit("transform", self._spheres(), 0.0, factor)
        else:
            self.view.say("select the spheres to scale")

    def ground(self) -> None:
        self.view._edit("set_on_ground")

"""Edits of many parts at once, for :class:`~creatures.editing.document.DesignDocument`: mirror a
selection across a vertical axis (the other half of a symmetric creature), duplicate it, rotate
and scale it, set the creature on the ground. Each is one edit (one undo step) that patches
only the items it changes and adds, as every edit does.

Mirrored ids are paired by a readable suffix: ``knee_l`` mirrors to ``knee_r`` (and ``_left``
to ``_right``, ``-l`` to ``-r``, both ways); an id without one gets ``_r`` or ``_l`` for the side
its copy lands on. A sphere on the axis is its own mirror image: a mirrored bone from it joins
the same sphere. A mirrored hinge's limits are mirrored too (the angle from its first bone to
its second turns the other way: ``[min, max]`` becomes ``[-max, -min]``; an evolving limit's
range and start too).
"""

from __future__ import annotations

import math

from render.game import GameError

from ..design.writer import yaml_scalar
from .text import Edit, SeqNode, is_range, range_of, short_number, start_value, word_of

__all__ = ["Arranging", "mirrored_id", "ON_AXIS"]

#: a sphere this close to the mirror axis (m) is on it
ON_AXIS = 1e-4
_SIDES = (("_l", "_r"), ("_left", "_right"), ("-l", "-r"), ("-left", "-right"))
#: positions are rounded to this many decimals (0.1 mm), as the document's edits round them
DECIMALS = 4


def mirrored_id(ident: str, right: bool) -> str:
    """The id of ``ident``'s mirror image: its side suffix swapped, or one added for the side
    (``right``) the image is on."""
    for a, b in _SIDES:
        for x, y in ((a, b), (b, a)):
            if ident.endswith(x):
                return ident[: -len(x)] + y
    return f"{ident}_{'r' if right else 'l'}"


def _free(ident: str, taken: set) -> str:
    """``ident``, or ``ident_2``, ``ident_3``... when it is taken."""
    out, n = ident, 2
    while out in taken:
        out, n = f"{ident}_{n}", n + 1
    taken.add(out)
    return out


def _number(value: float) -> str:
    return short_number(round(value, DECIMALS))


def _negated(node):
    """The text of a limit turned the other way: ``-v`` for a number ``v``; for an evolving one
    (``{evolve: [lo, hi], start: s}``) the range ``[-hi, -lo]`` and its start ``-s``. None for
    anything else (the limit is left as it is)."""
    if is_range(node):
        r = range_of(node)
        if r is None:
            return None
        lo, hi, start = r
        tail = "" if start is None else f", start: {_number(-start)}"
        return f"{{evolve: [{_number(-hi)}, {_number(-lo)}]{tail}}}"
    value = start_value(node)
    return None if value is None else _number(-value)


class Arranging:
    """The many-part edits of a design document (mixed into ``DesignDocument``: they use its
    tree, items and patcher)."""

    # --- what a selection holds ---------------------------------------------------------------
    def _selected_spheres(self, items) -> list:
        """The sphere items of ``items`` (``(kind, id)`` pairs); the spheres of selected bones,
        joints and clusters too (a selection is what it touches)."""
        tree = self._tree_for_edit()
        ids = []
        for kind, ident in items:
            it = self._item(kind, ident)
            if kind == "sphere":
                ids.append(ident)
            elif kind in ("bone", "cluster"):
                ids += it.refs("spheres") or []
            elif kind == "joint":
                s = it.keys.get("sphere")
                if s is not None:
                    ids.append(word_of(s[1]))
        return [tree.by_id["sphere"][i] for i in dict.fromkeys(ids) if i in tree.by_id["sphere"]]

    def _copy(self, names: dict, place, new_id, extra=None, flip: bool = False) -> list:
        """Copies of the spheres of ``names`` (old id -> new id; a sphere that maps to itself is
        not copied) at ``place(x, y)``, and of every bone, joint and cluster among them; ``extra``:
        per joint item, the changes to its limits. One edit. Returns the new items."""
        tree = self._tree
        edit = Edit()
        added = []
        for old, new in names.items():
            if old == new or new in tree.by_id["sphere"]:     # itself, or an image there already
                continue
            it = tree.by_id["sphere"][old]
            x, y = self.sketch.pos[it.index]
            nx, ny = place(float(x), float(y))
            edit.added["sphere"].append(self._item_text(it, {"id": yaml_scalar(new), "position": self._placed(it, nx, ny, flip)}))
            added.append(("sphere", new))
        taken = set(tree.by_id["bone"])
        bone_names = {}
        for it in tree.items["bone"]:
            refs = it.refs("spheres") or []
            if len(refs) != 2 or not all(r in names for r in refs) or all(names[r] == r for r in refs):
                continue
            a, b = (names[r] for r in refs)
            same = next((o.id for o in tree.items["bone"] if set(o.refs("spheres") or []) == {a, b}), None)
            if same is not None:                      # the image's bone is there already
                bone_names[it.id] = same
                continue
            changes = {"spheres": f"[{yaml_scalar(a)}, {yaml_scalar(b)}]"}
            if "id" in it.keys:
                new = _free(new_id(it.id), taken)
                changes["id"] = yaml_scalar(new)
            else:
                new = _free(f"{a}-{b}", taken)
                if new != f"{a}-{b}":
                    changes["id"] = yaml_scalar(new)
            bone_names[it.id] = new
            edit.added["bone"].append(self._item_text(it, changes))
            added.append(("bone", new))
        for b in tree.by_id["bone"]:   # a bone between spheres that map to themselves is its own copy
            it = tree.by_id["bone"][b]
            refs = it.refs("spheres") or []
            if b not in bone_names and len(refs) == 2 and all(names.get(r) == r for r in refs):
                bone_names[b] = b
        taken = set(tree.by_id["joint"])
        for it in tree.items["joint"]:
            s = it.keys.get("sphere")
            sphere = word_of(s[1]) if s is not None else None
            bones = it.refs("bones") or []
            if sphere not in names or len(bones) != 2 or not all(x in bone_names for x in bones):
                continue
            if names[sphere] == sphere and all(bone_names[x] == x for x in bones):
                continue
            image = (names[sphere], {bone_names[x] for x in bones})
            if any(self._joint_at(o) == image for o in tree.items["joint"]):
                continue                              # the image's joint is there already
            changes = {"sphere": yaml_scalar(names[sphere]),
                       "bones": f"[{yaml_scalar(bone_names[bones[0]])}, {yaml_scalar(bone_names[bones[1]])}]",
                       **(extra(it) if extra else {})}
            if "id" in it.keys:
                new = _free(new_id(it.id), taken)
                changes["id"] = yaml_scalar(new)
                added.append(("joint", new))
            edit.added["joint"].append(self._item_text(it, changes))
        taken = set(tree.by_id["cluster"])
        for it in tree.items["cluster"]:
            members = it.refs("spheres") or []
            if len(members) < 2 or not all(m in names for m in members) or all(names[m] == m for m in members):
                continue
            if any(set(o.refs("spheres") or []) == {names[m] for m in members} for o in tree.items["cluster"]):
                continue
            changes = {"spheres": "[" + ", ".join(yaml_scalar(names[m]) for m in members) + "]"}
            if "id" in it.keys:
                changes["id"] = yaml_scalar(_free(new_id(it.id), taken))
            edit.added["cluster"].append(self._item_text(it, changes))
        if not added and not edit.added["joint"] and not edit.added["cluster"]:
            raise GameError("nothing to make: its image is there already (or it lies on the mirror axis)")
        self._apply(edit)
        return added

    @staticmethod
    def _joint_at(it):
        s = it.keys.get("sphere")
        return (word_of(s[1]) if s is not None else None, set(it.refs("bones") or []))

    def join(self, steps: int = 2) -> None:
        """The last ``steps`` edits become one undo step (one click of the editor's mirror mode
        makes an edit and its mirror image)."""
        for _ in range(max(int(steps), 1) - 1):
            if len(self._undo) >= 2:
                del self._undo[-1]

    def _placed(self, it, x: float, y: float, flip: bool = False) -> str:
        """A copy's ``position`` text at (x, y), as the document moves a sphere (numbers rounded
        to 0.1 mm, an evolvable coordinate's range moved whole); with ``flip``, a mirror image
        at its own height: a range of x is mirrored (its ends swap sides), y keeps its text."""
        p = it.keys.get("position")
        comps = p[1].value if p is not None and p[1].__class__ is SeqNode and len(p[1].value) == 2 else None
        if not flip or comps is None:
            return self._position_text(it, (x, y))
        node = comps[0]
        if is_range(node) and range_of(node) is not None:
            lo, hi, start = range_of(node)
            now = start_value(node)
            tail = "" if start is None else f", start: {_number(x)}"
            x_text = f"{{evolve: [{_number(x - (hi - now))}, {_number(x + (now - lo))}]{tail}}}"
        else:
            x_text = _number(x)
        return f"[{x_text}, {self._flow(comps[1])}]"

    # --- the edits ----------------------------------------------------------------------------
    def mirror(self, items, axis_x: float = 0.0) -> list:
        """The other half of the selection: each selected sphere (and the spheres of selected
        parts) mirrored across the vertical line x = ``axis_x``, with every bone, joint and
        cluster among them; ids paired by their side suffix (:func:`mirrored_id`). One edit;
        returns the new items. :class:`GameError` for a selection with nothing off the axis."""
        axis_x = float(axis_x)
        if not math.isfinite(axis_x):
            raise GameError("the mirror axis must be a finite x")
        spheres = self._selected_spheres(items)
        taken = set(self._tree.by_id["sphere"])
        pos = self.sketch.pos
        names = {}
        for it in spheres:
            x, y = (float(v) for v in pos[it.index])
            if abs(x - axis_x) < ON_AXIS:
                names[it.id] = it.id
                continue
            there = [o for o in self._tree.items["sphere"]      # its image is there already: joined, not copied
                     if abs(pos[o.index][0] - (2 * axis_x - x)) < ON_AXIS and abs(pos[o.index][1] - y) < ON_AXIS]
            names[it.id] = there[0].id if there else _free(mirrored_id(it.id, 2 * axis_x - x > axis_x), taken)
        for it in self._tree.items["sphere"]:     # the axis' own spheres join the mirrored bones
            if it.id not in names and abs(float(self.sketch.pos[it.index][0]) - axis_x) < ON_AXIS:
                names[it.id] = it.id

        def new_id(ident):
            return mirrored_id(ident, True)

        def limits(it):
            lo, hi = (it.keys.get(k) for k in ("min", "max"))
            if lo is None and hi is None:
                return {}
            low, high = (_negated(n[1]) if n is not None else _number(-d) for n, d in ((lo, -180.0), (hi, 180.0)))
            return {} if low is None or high is None else {"min": high, "max": low}
        return self._copy(names, lambda x, y: (2 * axis_x - x, y), new_id, limits, flip=True)

    def pair_sphere(self, ident: str, axis_x: float = 0.0) -> tuple[str, str]:
        """A sphere just placed (nothing refers to it yet) and its mirror image, paired by their
        ids: it is renamed with its side's suffix (``sphere_7_l``) and the image gets the other
        (``sphere_7_r``). One edit; returns the two ids. A sphere on the axis stays as it is
        (``GameError``: it is its own image)."""
        it = self._item("sphere", ident)
        x, y = (float(v) for v in self.sketch.pos[it.index])
        if abs(x - axis_x) < ON_AXIS:
            raise GameError(f"sphere '{ident}' lies on the mirror axis: it is its own image")
        taken = set(self._tree.by_id["sphere"]) - {ident}
        base = ident
        for a, b in _SIDES:
            for side in (a, b):
                if base.endswith(side):
                    base = base[: -len(side)]
        mine = _free(f"{base}{'_l' if x < axis_x else '_r'}", taken)
        image = _free(mirrored_id(mine, True), taken)
        edit = Edit()
        self._change(edit, it, {"id": yaml_scalar(mine)})
        edit.added["sphere"].append(self._item_text(it, {"id": yaml_scalar(image),
                                                         "position": self._placed(it, 2 * axis_x - x, y, True)}))
        self._apply(edit)
        return mine, image

    def name_by_side(self, ident: str, axis_x: float = 0.0) -> str:
        """A bone just drawn in mirror mode (nothing refers to it yet) renamed with the side of
        the axis its spheres are on (``bone_3_l``), as :meth:`pair_sphere` names spheres, so that
        its image (:meth:`mirror`) is ``bone_3_r``. One edit; returns its id (unchanged for a
        bone across the axis, or one already named by its side)."""
        it = self._item("bone", ident)
        s = self.sketch
        e = s.bone_id.index(ident)
        ends = [k for k in (int(s.bone_a[e]), int(s.bone_b[e])) if k >= 0]
        if not ends or any(ident.endswith(side) for pair in _SIDES for side in pair):
            return ident
        x = sum(float(s.pos[k][0]) for k in ends) / len(ends)
        if abs(x - axis_x) < ON_AXIS:
            return ident
        mine = _free(f"{ident}{'_l' if x < axis_x else '_r'}", set(self._tree.by_id["bone"]) - {ident})
        edit = Edit()
        self._change(edit, it, {"id": yaml_scalar(mine)})
        self._apply(edit)
        return mine

    def duplicate(self, items, dx: float, dy: float) -> list:
        """A copy of the selection moved by (dx, dy) (m), with every bone, joint and cluster
        among its spheres; ids ``knee_2``, ``knee_3``... One edit; returns the new items."""
        dx, dy = float(dx), float(dy)
        if not (math.isfinite(dx) and math.isfinite(dy)):
            raise GameError("a copy must be moved by a finite distance")
        spheres = self._selected_spheres(items)
        if not spheres:
            raise GameError("nothing to copy: select spheres or parts")
        taken = set(self._tree.by_id["sphere"])
        names = {it.id: _free(it.id, taken) for it in spheres}

        def new_id(ident):
            return f"{ident}_2"
        return self._copy(names, lambda x, y: (x + dx, y + dy), new_id)

    def transform(self, spheres, angle: float = 0.0, scale: float = 1.0, about=None) -> None:
        """Rotate the spheres by ``angle`` degrees (counter-clockwise) and scale their distances
        by ``scale`` about the point ``about`` (default: their centre). One edit."""
        angle, scale = float(angle), float(scale)
        if not (math.isfinite(angle) and math.isfinite(scale) and scale > 0):
            raise GameError("a rotation needs a finite angle and a scale above 0")
        its = [self._item("sphere", s) for s in dict.fromkeys(spheres)]
        if not its:
            raise GameError("select the spheres to rotate or scale")
        pos = [tuple(float(v) for v in self.sketch.pos[it.index]) for it in its]
        cx, cy = about if about is not None else (sum(p[0] for p in pos) / len(pos), sum(p[1] for p in pos) / len(pos))
        c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
        edit = Edit()
        for it, (x, y) in zip(its, pos):
            dx, dy = x - cx, y - cy
            nx, ny = cx + scale * (c * dx - s * dy), cy + scale * (s * dx + c * dy)
            self._change(edit, it, {"position": self._position_text(it, (nx, ny))})
        self._apply(edit)

    def set_on_ground(self) -> None:
        """Move the whole creature up or down so that its lowest sphere stands on the ground line
        (y = 0). One edit (none when it stands there already)."""
        tree = self._tree_for_edit()
        its = tree.items["sphere"]
        if not its:
            raise GameError("no spheres to set on the ground")
        low = min(float(self.sketch.pos[it.index][1] - self.sketch.radius[it.index]) for it in its)
        if abs(low) < 0.5 * 10 ** -DECIMALS:
            return
        edit = Edit()
        for it in its:
            y = float(self.sketch.pos[it.index][1])
            self._change(edit, it, {"position": self._position_text(it, (None, y - low))})
        self._apply(edit)


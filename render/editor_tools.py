"""What the left button does on the editor's canvas with each tool (:class:`CanvasTools`): the
gesture a press starts (a move, a selection box, a bone being drawn, a hinge's limit handle, a
sphere to place...), how a drag carries it on, and the edit its release makes; with snap on,
positions land on the :data:`SNAP` grid, hinge limits on whole :data:`ANGLE_SNAP` degrees and a
bone drawn into empty space on whole :data:`BONE_ANGLE_SNAP` degrees."""

from __future__ import annotations

import math

import numpy as np

__all__ = ["CanvasTools", "SNAP", "ANGLE_SNAP", "BONE_ANGLE_SNAP", "TURN_HANDLE_PIXELS", "CLICK_SLOP"]

#: the grid snap (m): positions dropped or moved with snap on are multiples of it
SNAP = 0.05
#: hinge limits dragged with snap on are multiples of this (degrees; 1 otherwise)
ANGLE_SNAP = 5.0
#: a bone drawn into empty space with snap on points at a multiple of this (degrees); a selection
#: turned by its rotate handle with snap on turns by multiples of it too
BONE_ANGLE_SNAP = 15.0
#: the rotate and scale handles' diameter (pixels)
TURN_HANDLE_PIXELS = 14.0
CLICK_SLOP = 4.0                # pixels a press may move and still be a click


def _snap(v, step: float = SNAP):
    return np.round(np.asarray(v, np.float64) / step) * step


def _clean(value: float) -> float:
    """A coordinate as it should be written: rounded to 0.1 mm (no 0.30000000000000004)."""
    return float(round(float(value), 4)) + 0.0


class CanvasTools:
    """The left button's gestures on the canvas.

    Parameters
    ----------
    camera : CanvasCamera
        Window points to world points (``render.editor_camera``).
    design : Design
        The design (``render.editor_design``): its arrays, ids and selection.
    hits : CanvasHits
        What is under the mouse (``render.editor_hits``).
    select : callable
        ``select(items, add=False)``: the view selects ``(kind, id)`` pairs.
    edit : callable
        ``edit(method, *args, **kwargs)``: the view calls the document's ``method``; returns
        what it returned (None after an error, which the view shows).
    say : callable
        ``say(message)``: a line for the player.

    Attributes
    ----------
    drag : dict or None
        What the left button is doing (None when it is up): its ``kind`` (``move``, ``box``,
        ``bone``, ``handle``, ``turn`` (a selection's rotate or scale handle), ``place``...; ``swallow`` and ``target`` are the view's own: a
        press that does nothing on the canvas, a press on a button, row or problem), where it
        started, where it is ``now``, whether it ``moved``.
    """

    def __init__(self, camera, design, hits, *, select, edit, say):
        self.camera = camera
        self.design = design
        self.hits = hits
        self.select = select
        self.edit = edit
        self.say = say
        self.drag = None

    def press(self, x: float, y: float, tool: str, shift: bool, selection: list) -> None:
        """The left button pressed on the canvas at ``(x, y)`` with ``tool``: start the gesture
        (a press on an item selects it first: ``selection`` is the view's)."""
        design, hits = self.design, self.hits
        base = {"start": (x, y), "now": (x, y), "moved": False, "shift": shift}
        turn = self._turn_handle_at(x, y) if tool == "select" else None
        if turn is not None:        # a rotate or scale handle of the selection
            spheres = design.moving()
            self.drag = dict(base, kind="turn", which=turn[0], spheres=spheres, centre=turn[1], angle=0.0, scale=1.0)
            return
        handle = hits.handle_at(x, y, self.drag) if tool in ("select", "joint") else None
        if handle is not None:
            j, which = handle
            self.drag = dict(base, kind="handle", joint=j, which=which,
                             min=float(design.joint_min[j]), max=float(design.joint_max[j]))
            return
        if tool == "joint":
            item = hits.item_at(x, y, self.drag)
            if item is None or item[0] not in ("joint", "sphere"):
                s = hits.joint_sphere_at(x, y, self.drag)
                if s is not None:
                    self.drag = dict(base, kind="joint", sphere=s)
                    return
            elif item[0] == "sphere" and design.bones_at(design.ids["sphere"][item[1]]).size >= 2:
                self.drag = dict(base, kind="joint", sphere=design.ids["sphere"][item[1]])
                return
        item = hits.item_at(x, y, self.drag)
        if tool == "bone" and item is not None and item[0] == "sphere":
            self.drag = dict(base, kind="bone", sphere=design.ids["sphere"][item[1]])
            return
        if tool == "muscle" and item is not None and item[0] == "bone":
            self.drag = dict(base, kind="muscle", bone=item[1])
            return
        if tool == "sphere" and (item is None or item[0] != "sphere"):
            self.drag = dict(base, kind="place")
            return
        if item is None:
            self.drag = dict(base, kind="box" if tool in ("select", "cluster") else "empty")
            return
        # an item: select it (SHIFT adds or removes); spheres, bones and clusters drag their spheres
        if shift:
            if item in selection:
                self.select([s for s in selection if s != item])
                self.drag = {"kind": "swallow"}
                return
            self.select([item], add=True)
        elif item not in selection:
            self.select([item])
        kind, name = item
        spheres = design.moving()
        if kind in ("sphere", "bone", "cluster") and spheres.size:
            # the sphere that lands on the grid with snap on: the one grabbed, or the item's first
            first = {"sphere": lambda: [design.ids["sphere"][name]],
                     "bone": lambda: [design.bone_a[design.ids["bone"][name]]],
                     "cluster": lambda: design.clusters[design.ids["cluster"][name]][:1]}[kind]()
            anchor = int(first[0]) if len(first) and int(first[0]) in spheres.tolist() else int(spheres[0])
            self.drag = dict(base, kind="move", item=item, spheres=spheres, anchor=anchor, offset=None)
        else:
            self.drag = dict(base, kind="click", item=item)

    def follow(self, x: float, y: float, snap: bool) -> bool:
        """The mouse dragged to ``(x, y)`` with the left button down: carry the gesture on.
        Returns whether the design is drawn differently (a move, a limit handle)."""
        d = self.drag
        d["now"] = (x, y)
        if not d["moved"] and math.hypot(x - d["start"][0], y - d["start"][1]) >= CLICK_SLOP:
            d["moved"] = True
        if not d["moved"]:
            return False
        camera, design = self.camera, self.design
        if d["kind"] == "move":
            wx0, wy0 = camera.world_point(*d["start"])
            wx, wy = camera.world_point(x, y)
            off = np.array([wx - wx0, wy - wy0])
            if snap:
                a = design.pos[d["anchor"]]
                off = _snap(a + off) - a
            d["offset"] = off
            return True
        if d["kind"] == "turn":
            c = np.asarray(d["centre"])
            a, b = (np.array(camera.world_point(*p)) - c for p in (d["start"], (x, y)))
            if d["which"] == "rotate":
                ang = math.degrees(math.atan2(b[1], b[0]) - math.atan2(a[1], a[0]))
                ang = (ang + 180.0) % 360.0 - 180.0
                d["angle"] = round(ang / BONE_ANGLE_SNAP) * BONE_ANGLE_SNAP if snap else round(ang, 1)
            else:
                f = max(float(np.hypot(*b)) / max(float(np.hypot(*a)), 1e-9), 0.05)
                d["scale"] = max(round(f, 1), 0.1) if snap else round(f, 3)
            return True
        if d["kind"] == "handle":
            geo = design.joint_geometry(design.pos, camera.zoom, d)
            j = d["joint"]
            c = geo["center"][j]
            wx, wy = camera.world_point(x, y)
            ang = math.degrees(math.atan2(wy - c[1], wx - c[0]) - geo["start"][j])
            current = d[d["which"]]
            ang = current + ((ang - current + 180.0) % 360.0 - 180.0)      # the turn nearest to it
            ang = round(ang / ANGLE_SNAP) * ANGLE_SNAP if snap else round(ang)
            if d["which"] == "min":
                d["min"] = float(min(max(ang, d["max"] - 360.0), d["max"]))
            else:
                d["max"] = float(max(min(ang, d["min"] + 360.0), d["min"]))
            return True
        return False

    def _turn_handle_at(self, x: float, y: float):
        """``(which, centre)`` of the selection's rotate or scale handle under ``(x, y)``, or None."""
        handles = self.design.turn_handles(self.camera.zoom)
        if handles is None:
            return None
        for which in ("rotate", "scale"):
            hx, hy = self.camera.world_to_screen(*handles[which])
            if math.hypot(float(hx) - x, float(hy) - y) <= TURN_HANDLE_PIXELS / 2 + 3.0:
                return which, tuple(float(v) for v in handles["centre"])
        return None

    def _bone_end(self, sphere: int, world, snap: bool) -> tuple[float, float]:
        """Where a bone drawn from ``sphere`` into empty space ends (its new sphere): at the
        mouse; with snap on, its angle a multiple of :data:`BONE_ANGLE_SNAP` degrees and its
        length of the :data:`SNAP` grid."""
        c = self.design.pos[sphere]
        dx, dy = float(world[0] - c[0]), float(world[1] - c[1])
        if snap:
            length = max(SNAP, round(math.hypot(dx, dy) / SNAP) * SNAP)
            angle = math.radians(round(math.degrees(math.atan2(dy, dx)) / BONE_ANGLE_SNAP) * BONE_ANGLE_SNAP)
            dx, dy = length * math.cos(angle), length * math.sin(angle)
        return _clean(c[0] + dx), _clean(c[1] + dy)

    def release(self, d: dict, x: float, y: float, snap: bool, selection: list) -> None:
        """The left button released at ``(x, y)``, ending gesture ``d`` (already taken off
        :attr:`drag`): make its edit, or its selection."""
        design, hits, camera, edit, select = self.design, self.hits, self.camera, self.edit, self.select
        kind = d["kind"]
        moved = d["moved"]
        if kind == "move":
            if moved and d["offset"] is not None and np.any(d["offset"] != 0.0):
                ids = [design.names["sphere"][i] for i in d["spheres"].tolist()]
                edit("move_spheres", ids, _clean(d["offset"][0]), _clean(d["offset"][1]))
            elif not moved and not d["shift"] and len(selection) > 1:
                select([d["item"]])          # a click in a selection selects just that
        elif kind == "box":
            if moved:
                select(hits.items_in_box(d["start"], (x, y)), add=d["shift"])
            elif not d["shift"] and selection:
                select([])
        elif kind == "empty":
            if not d["shift"] and selection:
                select([])
        elif kind == "place":
            wx, wy = camera.world_point(x, y)
            if snap:
                wx, wy = (float(v) for v in _snap([wx, wy]))
            new = edit("add_sphere", _clean(wx), _clean(wy))
            if new is not None:
                select([("sphere", new)])
        elif kind == "bone":
            item = hits.item_at(x, y, self.drag)
            start = design.names["sphere"][d["sphere"]]
            if item is not None and item[0] == "sphere":
                new = edit("add_bone", start, item[1])
            elif moved:     # released in empty space: a new sphere there, the bone to it (one step)
                sphere = edit("add_sphere", *self._bone_end(d["sphere"], camera.world_point(x, y), snap))
                new = None if sphere is None else edit("add_bone", start, sphere)
                if new is not None:
                    edit("join", 2)
            else:
                self.say("a bone goes from a sphere to another, or to empty space (a new sphere there)")
                return
            if new is not None:
                select([("bone", new)])
        elif kind == "muscle":
            if hits.item_at(x, y, self.drag) == ("bone", d["bone"]):
                edit("toggle_muscle", d["bone"])
                select([("bone", d["bone"])])
        elif kind == "joint":
            if moved:
                return
            s = d["sphere"]
            c = design.pos[s]
            wx, wy = camera.world_point(*d["start"])
            b1, b2 = hits.bones_around(s, math.atan2(wy - c[1], wx - c[0]), self.drag)
            names = design.names
            new = edit("add_joint", names["sphere"][s], names["bone"][b1], names["bone"][b2])
            if new is not None:
                select([("joint", new)])
        elif kind == "turn":
            if moved and (d["angle"] != 0.0 or d["scale"] != 1.0):
                ids = [design.names["sphere"][i] for i in d["spheres"].tolist()]
                edit("transform", ids, d["angle"], d["scale"], about=tuple(float(v) for v in d["centre"]))
        elif kind == "handle":
            if moved:
                j = d["joint"]
                edit("set_joint", design.names["joint"][j], min=d["min"], max=d["max"])

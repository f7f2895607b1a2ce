"""What is under the mouse on the editor's canvas (:class:`CanvasHits`): the item at a window
point (spheres first, then bones, joints' arcs, clusters), a selected hinge's limit handle, the
sphere the joint tool is about, the two bones a new joint goes between, and what a selection
box holds. It reads the canvas's camera (:mod:`render.editor_camera`) and the design
(:mod:`render.editor_design`), where they are drawn."""

from __future__ import annotations

import math

import numpy as np

from .editor_design import HANDLE_PIXELS, hull

__all__ = ["CanvasHits", "HIT_SLOP", "JOINT_REACH"]

HIT_SLOP = 4.0                  # pixels around a sphere or a bone that still hit it
JOINT_REACH = 36.0              # the joint tool: clicks this far outside a sphere are about it


def _inside_hull(hull: np.ndarray, x: float, y: float) -> bool:
    if hull.shape[0] < 3:
        return False
    a, b = hull, np.roll(hull, -1, axis=0)
    cross = (b[:, 0] - a[:, 0]) * (y - a[:, 1]) - (b[:, 1] - a[:, 1]) * (x - a[:, 0])
    return bool(np.all(cross >= 0.0))


def _point_segment_distance(p, a, b) -> np.ndarray:
    """Distances from point ``p`` (2,) to segments ``a``-``b`` (each (N, 2))."""
    d = b - a
    L2 = np.einsum("ij,ij->i", d, d)
    t = np.where(L2 > 0.0, np.einsum("ij,ij->i", p - a, d) / np.where(L2 > 0.0, L2, 1.0), 0.0)
    t = np.clip(t, 0.0, 1.0)
    q = a + d * t[:, None]
    return np.hypot(p[0] - q[:, 0], p[1] - q[:, 1])


class CanvasHits:
    """Hit-testing on the canvas, in window points.

    Parameters
    ----------
    camera : CanvasCamera
        Where the canvas looks (``render.editor_camera``).
    design : Design
        The design (``render.editor_design``).

    Every query takes ``drag``, the gesture under way (``render.editor_tools``) or None: what
    it drags is hit where it is drawn.
    """

    def __init__(self, camera, design):
        self.camera = camera
        self.design = design

    def item_at(self, x: float, y: float, drag, reach: float = 0.0):
        """The item under window point ``(x, y)``: spheres first (the nearest centre of those
        under the point, ``reach`` more pixels around them), then bones, then joints' arcs, then
        clusters; ``(kind, id)`` or None."""
        design = self.design
        z = self.camera.zoom
        p = np.array(self.camera.world_point(x, y))
        pos = design.drawn_pos(drag)
        P = pos.shape[0]
        if P:
            d = np.hypot(pos[:, 0] - p[0], pos[:, 1] - p[1]) * z
            hit = d <= design.radius * z + HIT_SLOP + reach
            hit &= np.isfinite(d)
            if hit.any():
                i = int(np.flatnonzero(hit)[np.argmin(d[hit])])
                return ("sphere", design.names["sphere"][i])
        a, b = design.bone_a, design.bone_b
        good = (a >= 0) & (b >= 0) & (a < P) & (b < P)
        if good.any():
            idx = np.flatnonzero(good)
            d = _point_segment_distance(p, pos[a[idx]], pos[b[idx]]) * z
            width = np.where(design.muscle[idx] if design.muscle.size == a.size else False,
                             design.muscle_width(z), design.bone_width(z))
            hit = d <= width / 2 + HIT_SLOP
            if hit.any():
                i = int(idx[np.flatnonzero(hit)[np.argmin(d[hit])]])
                return ("bone", design.names["bone"][i])
        geo = design.joint_geometry(pos, z, drag)
        if geo is not None:
            best, best_d = None, HIT_SLOP + 4.0
            for j in range(len(geo["hinge"])):
                if not geo["ok"][j]:
                    continue
                c = geo["center"][j]
                d = abs(math.hypot(p[0] - c[0], p[1] - c[1]) - geo["radius"][j]) * z
                if d > best_d:
                    continue
                if geo["hinge"][j]:
                    ang = math.degrees(math.atan2(p[1] - c[1], p[0] - c[0]) - geo["start"][j])
                    lo, hi = geo["min"][j], geo["max"][j]
                    ang = lo + (ang - lo) % 360.0
                    if ang > hi + math.degrees(HIT_SLOP / max(geo["radius"][j] * z, 1.0)):
                        continue
                best, best_d = j, d
            if best is not None:
                return ("joint", design.names["joint"][best])
        found, area = None, math.inf
        for k, m in enumerate(design.clusters):
            m = m[(m >= 0) & (m < P)]
            h = hull(pos[m]) if m.size >= 3 else np.zeros((0, 2))
            if _inside_hull(h, p[0], p[1]):
                x0, y0 = h[:, 0], h[:, 1]
                A = 0.5 * abs(np.dot(x0, np.roll(y0, -1)) - np.dot(y0, np.roll(x0, -1)))
                if A < area:
                    found, area = k, A
        if found is not None:
            return ("cluster", design.names["cluster"][found])
        return None

    def handle_position(self, joint_id: str, which: str, drag) -> tuple[float, float]:
        """Window point of a hinge's limit handle, ``which`` ``min`` or ``max`` (where the limit
        is now, or is being dragged to)."""
        design = self.design
        j = design.ids["joint"].get(joint_id)
        if j is None:
            raise KeyError(f"no joint {joint_id!r}")
        geo = design.joint_geometry(design.drawn_pos(drag), self.camera.zoom, drag)
        if geo is None or not geo["hinge"][j]:
            raise ValueError(f"joint {joint_id!r} is not a hinge with limits")
        angle = geo["start"][j] + math.radians(geo[which][j])
        c = geo["center"][j]
        R = geo["radius"][j]
        sx, sy = self.camera.world_to_screen(c[0] + R * math.cos(angle), c[1] + R * math.sin(angle))
        return float(sx), float(sy)

    def handle_at(self, x: float, y: float, drag):
        """``(joint index, "min" or "max")`` of a selected hinge's handle under ``(x, y)``."""
        design = self.design
        for j in design.selected.get("joint", np.zeros(0, np.int64)).tolist():
            for which in ("min", "max"):
                try:
                    hx, hy = self.handle_position(design.names["joint"][j], which, drag)
                except (KeyError, ValueError):
                    break
                if math.hypot(hx - x, hy - y) <= HANDLE_PIXELS / 2 + HIT_SLOP:
                    return j, which
        return None

    def joint_sphere_at(self, x: float, y: float, drag):
        """The sphere with two bones or more nearest ``(x, y)`` within :data:`JOINT_REACH`
        pixels of its rim (the joint tool), or None."""
        design = self.design
        pos = design.drawn_pos(drag)
        if not pos.shape[0]:
            return None
        p = np.array(self.camera.world_point(x, y))
        z = self.camera.zoom
        d = np.hypot(pos[:, 0] - p[0], pos[:, 1] - p[1]) * z - design.radius * z
        for i in np.argsort(d).tolist():
            if not d[i] <= JOINT_REACH:
                return None
            if design.bones_at(i).size >= 2:
                return i
        return None

    def bones_around(self, sphere: int, angle: float, drag) -> tuple[int, int]:
        """The two bones of ``sphere`` on each side of direction ``angle`` (radians): the first
        is the nearest clockwise of it, the second the nearest counter-clockwise, so the joint's
        angle (from the first bone to the second, counter-clockwise) spans ``angle``."""
        design = self.design
        bones = design.bones_at(sphere)
        pos = design.drawn_pos(drag)
        other = np.where(design.bone_a[bones] == sphere, design.bone_b[bones], design.bone_a[bones])
        d = pos[other] - pos[sphere]
        theta = np.arctan2(d[:, 1], d[:, 0])
        ccw = (theta - angle) % (2 * np.pi)         # how far counter-clockwise of the click
        cw = (angle - theta) % (2 * np.pi)
        first = int(np.argmin(cw))
        ccw[first] = np.inf if bones.size > 1 else ccw[first]   # a click along a bone: the next one
        return int(bones[first]), int(bones[np.argmin(ccw)])

    def items_in_box(self, a, b) -> list:
        """What lies inside the box with corners ``a`` and ``b`` (window points), as ``(kind,
        id)`` pairs: spheres with their centre in it, bones with both ends, joints with their
        sphere, clusters with all their members."""
        design = self.design
        (x0, y0), (x1, y1) = self.camera.world_point(*a), self.camera.world_point(*b)
        lo = np.array([min(x0, x1), min(y0, y1)])
        hi = np.array([max(x0, x1), max(y0, y1)])
        pos = design.pos
        P = pos.shape[0]
        inside = np.all((pos >= lo) & (pos <= hi), axis=1) if P else np.zeros(0, bool)
        names = design.names
        items = [("sphere", names["sphere"][i]) for i in np.flatnonzero(inside).tolist()]
        ina = (lambda v: (v >= 0) & (v < P) & inside[np.clip(v, 0, max(P - 1, 0))] if P else np.zeros(v.shape, bool))
        items += [("bone", names["bone"][e]) for e in np.flatnonzero(ina(design.bone_a) & ina(design.bone_b)).tolist()]
        items += [("joint", names["joint"][j]) for j in np.flatnonzero(ina(design.joint_sphere)).tolist()]
        items += [("cluster", names["cluster"][k]) for k, m in enumerate(design.clusters)
                  if m.size and bool(np.all(ina(m)))]
        return items

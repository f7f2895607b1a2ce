"""The design as the editor's canvas has it (:class:`Design`): the sketch's spheres, bones,
joints and clusters as arrays indexed by their ids, which items are selected, have a problem or
evolve, and where they are drawn (a move or a hinge's limit being dragged shows where it goes).
The drawing (:mod:`render.editor_geometry`) and the hit-testing (:mod:`render.editor_hits`)
read it; neither knows the sketch's own types."""

from __future__ import annotations

import math

import numpy as np

__all__ = ["Design", "hull", "ARC_PIXELS", "HANDLE_PIXELS"]

ARC_PIXELS = 16.0               # a joint's arc: this far outside its sphere
HANDLE_PIXELS = 13.0            # a limit handle's diameter


def hull(points: np.ndarray) -> np.ndarray:
    """The convex hull of ``points`` (N, 2), counter-clockwise, without repeats (Andrew's
    monotone chain); fewer than three distinct points come back as they are."""
    pts = sorted(set(map(tuple, np.asarray(points, np.float64).reshape(-1, 2).tolist())))
    if len(pts) <= 2:
        return np.array(pts, np.float64).reshape(-1, 2)

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower, upper = [], []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return np.array(lower[:-1] + upper[:-1], np.float64)


#: the rotate and scale handles lie this far (pixels) outside the selection's box
TURN_GAP_PIXELS = 28.0


def turned(points: np.ndarray, centre, angle: float, scale: float) -> np.ndarray:
    """``points`` (n, 2) rotated by ``angle`` degrees and scaled by ``scale`` about ``centre``."""
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    d = np.asarray(points, np.float64) - np.asarray(centre, np.float64)
    return np.asarray(centre) + scale * np.stack([c * d[:, 0] - s * d[:, 1], s * d[:, 0] + c * d[:, 1]], axis=1)


def _same(a, b) -> bool:
    """Whether two sketches hold the same values (arrays compared by value)."""
    if a is b:
        return True
    if a is None or b is None:
        return False
    for name in ("sphere_id", "bone_id", "joint_id", "joint_kind", "cluster_id", "self_collision",
                 "evolving"):
        if getattr(a, name) != getattr(b, name):
            return False
    for name in ("pos", "radius", "bone_a", "bone_b", "muscle", "joint_sphere", "joint_bones",
                 "joint_min", "joint_max", "sphere_color", "sphere_colored", "bone_color", "bone_colored", "eyes"):
        x, y = np.asarray(getattr(a, name)), np.asarray(getattr(b, name))
        if x.shape != y.shape or not np.array_equal(x, y, equal_nan=x.dtype.kind == "f"):
            return False
    ca, cb = a.cluster_members, b.cluster_members
    return len(ca) == len(cb) and all(np.array_equal(np.asarray(p), np.asarray(q)) for p, q in zip(ca, cb))


def _looks(s, part: str, n: int) -> tuple[np.ndarray, np.ndarray]:
    """A sketch's ``part`` colours (n, 3) and which are given (n,): none where it has none."""
    color = np.asarray(getattr(s, f"{part}_color", np.zeros((0, 3), np.uint8)), np.uint8).reshape(-1, 3)
    given = np.asarray(getattr(s, f"{part}_colored", np.zeros(0, bool)), bool).reshape(-1)
    if color.shape[0] != n or given.size != n:
        return np.zeros((n, 3), np.uint8), np.zeros(n, bool)
    return color, given


class Design:
    """The sketch being drawn, indexed.

    Attributes
    ----------
    sketch : Sketch or None
        The sketch taken in last (:meth:`take`).
    pos, radius : ndarray
        The spheres' positions (P, 2) and radii (P,) (m).
    bone_a, bone_b, muscle : ndarray
        Each bone's spheres (indices; -1 for a missing one) and whether it is a muscle.
    joint_sphere, joint_bones, joint_min, joint_max : ndarray
        Each joint's sphere, its two bones, a hinge's limits (degrees; NaN for a free joint).
    clusters : list of ndarray
        Each cluster's member spheres.
    sphere_color, sphere_colored, bone_color, bone_colored, eyes : ndarray
        The design's looks (the sketch's), sized to its parts.
    ids, names : dict
        Per kind (``sphere``, ``bone``, ``joint``, ``cluster``): id -> index, and the ids in order.
    selected, problem_items, evolving : dict of str -> ndarray
        Per kind, the indices of the selected items, of the items a problem is about and of
        the items that evolve (:meth:`indices`).
    """

    def __init__(self):
        self.sketch = None
        self.ids = {}
        self.names = {}
        self.selected = {}
        self.problem_items = {}
        self.evolving = {}

    def take(self, sketch) -> bool:
        """Take in ``sketch`` (the document's, as of now); returns whether its values changed
        (then the arrays are read again)."""
        changed = False
        if sketch is not self.sketch:
            if not _same(sketch, self.sketch):
                self.load(sketch)
                changed = True
            self.sketch = sketch
        return changed

    def load(self, s) -> None:
        """Index sketch ``s``: ids to indices, the arrays the drawing and the hits use."""
        P = len(s.sphere_id)
        self.pos = np.asarray(s.pos, np.float64).reshape(-1, 2)[:P]
        self.radius = np.maximum(np.asarray(s.radius, np.float64).reshape(-1)[:P], 0.0)
        self.bone_a = np.asarray(s.bone_a, np.int64).reshape(-1)
        self.bone_b = np.asarray(s.bone_b, np.int64).reshape(-1)
        E = len(s.bone_id)
        self.muscle = np.asarray(s.muscle, bool).reshape(-1)[:E]
        self.joint_sphere = np.asarray(s.joint_sphere, np.int64).reshape(-1)
        self.joint_bones = np.asarray(s.joint_bones, np.int64).reshape(-1, 2)
        self.joint_min = np.asarray(s.joint_min, np.float64).reshape(-1)
        self.joint_max = np.asarray(s.joint_max, np.float64).reshape(-1)
        self.clusters = [np.asarray(m, np.int64).reshape(-1) for m in s.cluster_members]
        # looks: each part's own colour where it has one, the eyes (arrays of the parts' sizes)
        self.sphere_color, self.sphere_colored = _looks(s, "sphere", P)
        self.bone_color, self.bone_colored = _looks(s, "bone", E)
        eyes = np.asarray(getattr(s, "eyes", np.zeros(0, bool)), bool).reshape(-1)
        self.eyes = eyes if eyes.size == P else np.zeros(P, bool)
        self.ids = {"sphere": {v: i for i, v in enumerate(s.sphere_id)},
                    "bone": {v: i for i, v in enumerate(s.bone_id)},
                    "joint": {v: i for i, v in enumerate(s.joint_id)},
                    "cluster": {v: i for i, v in enumerate(s.cluster_id)}}
        self.names = {"sphere": tuple(s.sphere_id), "bone": tuple(s.bone_id), "joint": tuple(s.joint_id),
                      "cluster": tuple(s.cluster_id)}
        self.evolving = self.indices(s.evolving or ())

    def indices(self, items) -> dict:
        """``(kind, id)`` pairs as index arrays per kind (ids the sketch does not have dropped)."""
        out = {k: set() for k in ("sphere", "bone", "joint", "cluster")}
        ids = self.ids or {}
        for item in items:
            try:
                kind, name = item
            except (TypeError, ValueError):
                continue
            i = ids.get(kind, {}).get(name)
            if i is not None:
                out[kind].add(i)
        return {k: np.array(sorted(v), np.int64) for k, v in out.items()}

    # sizes and places ---------------------------------------------------------------------------
    @staticmethod
    def bone_width(zoom: float) -> float:
        return float(np.clip(0.04 * zoom, 2.0, 10.0))

    @staticmethod
    def muscle_width(zoom: float) -> float:
        return float(np.clip(0.05 * zoom, 2.5, 12.0))

    def moving(self) -> np.ndarray:
        """The spheres a move drag takes along: the selected spheres, the ends of the selected
        bones, the members of the selected clusters."""
        P = self.pos.shape[0]
        out = set(self.selected.get("sphere", np.zeros(0, np.int64)).tolist())
        for e in self.selected.get("bone", np.zeros(0, np.int64)).tolist():
            out.update(int(v) for v in (self.bone_a[e], self.bone_b[e]) if 0 <= v < P)
        for k in self.selected.get("cluster", np.zeros(0, np.int64)).tolist():
            out.update(int(v) for v in self.clusters[k] if 0 <= v < P)
        return np.array(sorted(out), np.int64)

    def bones_at(self, s: int) -> np.ndarray:
        """Bones that join sphere ``s`` to another one."""
        a, b = self.bone_a, self.bone_b
        return np.flatnonzero(((a == s) | (b == s)) & (a != b) & (a >= 0) & (b >= 0))

    def drawn_pos(self, drag) -> np.ndarray:
        """Sphere positions as drawn: the sketch's, with a move, a rotation or a scaling being
        dragged (``drag``, the gesture under way or None) applied."""
        d = drag
        if d is not None and d.get("kind") == "move" and d.get("offset") is not None:
            pos = self.pos.copy()
            pos[d["spheres"]] += d["offset"]
            return pos
        if d is not None and d.get("kind") == "turn":
            pos = self.pos.copy()
            pos[d["spheres"]] = turned(pos[d["spheres"]], d["centre"], d["angle"], d["scale"])
            return pos
        return self.pos

    def turn_handles(self, zoom: float, drag=None):
        """``{"centre", "rotate", "scale"}`` (world points) of the handles that rotate and scale
        the selection (two spheres or more moving together): the rotation handle above the
        selection's box, the scaling one at its bottom right; None for a smaller selection."""
        spheres = self.moving()
        if spheres.size < 2:
            return None
        pos = self.drawn_pos(drag)[spheres]
        r = self.radius[spheres]
        lo, hi = (pos - r[:, None]).min(axis=0), (pos + r[:, None]).max(axis=0)
        centre = pos.mean(axis=0) if drag is None or drag.get("kind") != "turn" else np.asarray(drag["centre"])
        gap = TURN_GAP_PIXELS / zoom
        return {"centre": centre, "rotate": np.array([0.5 * (lo[0] + hi[0]), hi[1] + gap]),
                "scale": np.array([hi[0] + gap, lo[1] - gap])}

    def joint_geometry(self, pos: np.ndarray, zoom: float, drag):
        """Per joint, with spheres at ``pos`` and ``zoom`` pixels per metre: ``ok``, ``center``
        (J, 2), arc ``radius`` (m), ``start`` (the first bone's direction, radians), ``hinge``,
        ``min`` and ``max`` (degrees; a handle being dragged in ``drag`` gives its value)."""
        J = self.joint_sphere.size
        if J == 0:
            return None
        P = pos.shape[0]
        c = self.joint_sphere
        okc = (c >= 0) & (c < P)
        cc = np.where(okc, c, 0)
        center = pos[cc] if P else np.zeros((J, 2))
        radius = (self.radius[cc] if P else np.zeros(J)) + ARC_PIXELS / zoom
        E = self.bone_a.size
        b1 = self.joint_bones[:, 0] if self.joint_bones.shape[0] == J else np.full(J, -1)
        okb = (b1 >= 0) & (b1 < E)
        bb = np.where(okb, b1, 0)
        if E:
            ba, bo = self.bone_a[bb], self.bone_b[bb]
            other = np.where(ba == c, bo, ba)
            oko = (other >= 0) & (other < P)
            tip = pos[np.where(oko, other, 0)] if P else np.zeros((J, 2))
        else:
            oko = np.zeros(J, bool)
            tip = center
        d = tip - center
        start = np.arctan2(d[:, 1], d[:, 0])
        kinds = tuple(self.sketch.joint_kind) + ("free",) * J
        lo = self.joint_min.copy() if self.joint_min.size == J else np.full(J, np.nan)
        hi = self.joint_max.copy() if self.joint_max.size == J else np.full(J, np.nan)
        if drag is not None and drag.get("kind") == "handle":
            lo[drag["joint"]], hi[drag["joint"]] = drag["min"], drag["max"]
        hinge = np.array([k == "hinge" for k in kinds[:J]]) & np.isfinite(lo) & np.isfinite(hi)
        ok = okc & okb & oko & np.isfinite(center).all(axis=1)
        return {"ok": ok, "center": center, "radius": radius, "start": start, "hinge": hinge & ok,
                "min": lo, "max": hi}

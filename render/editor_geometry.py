"""The editor's canvas as drawn (:class:`DesignGeometry`): the ground, the grid and the ground
line, the design (cluster outlines and polygons, bones, joint arcs and hinge wedges, spheres with
their rims and halos, evolving badges, limit handles), and what a drag shows over it (the
selection box, the bone being drawn). Each is a batch of instanced segments or of triangles
(``render/_gl.py``), built only when what it shows changes: the design when the sketch, the
selection, the problems or the zoom change and while something is dragged; the grid when the
zoom changes or the view pans out of the region it covers."""

from __future__ import annotations

import math

from ._display import prefer_headless

prefer_headless()

import numpy as np  # noqa: E402

from ._gl import SEGMENT, VERTEX, Segments, Triangles, rects  # noqa: E402
from .editor_design import HANDLE_PIXELS, hull  # noqa: E402
from .editor_theme import (BOX_EDGE, BOX_FILL, CLUSTER_EDGE, CLUSTER_FILL, EVOLVE, GRID, GRID_MAJOR,  # noqa: E402
                           GROUND_FILL, GROUND_LINE, HANDLE_CORE, JOINT, JOINT_WEDGE, MUSCLE, PROBLEM,
                           PROBLEM_RIM, SELECT, SPHERE_RIM)
from .bodies import EYE_AT, EYE_LOOK, EYE_PUPIL, EYE_WHITE  # noqa: E402
from .editor_tools import TURN_HANDLE_PIXELS  # noqa: E402
from .theme import BONE_RIGID, SPHERE  # noqa: E402

#: the mirror axis' dashes (mirror mode)
MIRROR_AXIS = (150, 70, 200, 220)

__all__ = ["DesignGeometry", "ARC_STEPS", "GRID_STEPS", "GRID_MIN_PIXELS"]

ARC_STEPS = 32                  # segments of an arc
GRID_STEPS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0)
GRID_MIN_PIXELS = 14.0          # grid lines at least this far apart


def _segments(p0, p1, color, width) -> np.ndarray:
    """Rows of :data:`SEGMENT` from ``p0`` to ``p1`` (each (N, 2)), one colour (RGBA) or one per
    row, widths in pixels."""
    p0 = np.asarray(p0, np.float64).reshape(-1, 2)
    p1 = np.asarray(p1, np.float64).reshape(-1, 2)
    out = np.zeros(p0.shape[0], SEGMENT)
    if not out.size:
        return out
    out["seg"][:, :2] = p0
    out["seg"][:, 2:] = p1
    out["color"] = np.broadcast_to(np.asarray(color, np.uint8).reshape(-1, 4), (out.size, 4))
    out["width"] = width
    return out


def _discs(p, color, width) -> np.ndarray:
    """Discs (zero-length segments) at ``p`` of diameter ``width`` (pixels)."""
    return _segments(p, p, color, width)


def _rgba(color, alpha: int = 255) -> tuple:
    return tuple(int(c) for c in color[:3]) + (int(alpha),)


def _fan(center, ring: np.ndarray, color) -> np.ndarray:
    """Triangles from ``center`` to each edge of the open polyline ``ring`` (N, 2), as
    :data:`VERTEX` rows."""
    n = ring.shape[0] - 1
    out = np.zeros(3 * max(n, 0), VERTEX)
    if n <= 0:
        return out
    out["pos"][0::3] = center
    out["pos"][1::3] = ring[:-1]
    out["pos"][2::3] = ring[1:]
    out["color"] = color
    return out


class DesignGeometry:
    """The canvas's batches.

    Parameters
    ----------
    ctx : arcade.ArcadeContext

    Attributes
    ----------
    ground, grid, fills, items : Triangles or Segments
        In metres: the ground's fill under y = 0; the grid and the ground line; the cluster
        polygons and hinge wedges; the design's segments and discs.
    overlay, overlay_fill : Segments, Triangles
        In window units: what a drag shows (the selection box, the bone being drawn).
    dirty : bool
        The design must be built again before it is drawn (the sketch, the selection or the
        problems changed, or a drag moved something).
    items_key : float or None
        The zoom the design was built at (another one builds it again: widths are in pixels).
    grid_key : tuple or None
        What the grid was built for (None: build it again).
    """

    def __init__(self, ctx):
        self.ground = Triangles(ctx)
        self.grid = Segments(ctx)
        self.fills = Triangles(ctx)
        self.items = Segments(ctx)
        self.overlay = Segments(ctx)
        self.overlay_fill = Triangles(ctx)
        self.ground.set(rects([(-1e5, -1e5, 2e5, 1e5)], _rgba(GROUND_FILL)))
        self.dirty = True
        self.items_key = None
        self.grid_key = None

    def draw(self, camera, design, drag, pixels, size, axis=None) -> None:
        """Build what changed (``drag``: the gesture under way, or None), then draw the ground,
        the grid (and the mirror ``axis``, an x in metres, in mirror mode) and the design in the
        canvas through ``camera`` (into a framebuffer of ``pixels`` for a layout of ``size``
        window units)."""
        if self.dirty or self.items_key != camera.zoom:
            self.items_key = camera.zoom
            self.build_items(design, camera.zoom, drag)
        self.build_grid(camera, axis)
        camera.use_world(pixels, size)
        pixel = 1.0 / camera.zoom
        self.ground.draw(blend=False)
        self.grid.draw(pixel)
        self.fills.draw()
        self.items.draw(pixel)

    def build_items(self, design, z: float, drag) -> None:
        """The design as drawn at zoom ``z``: one batch of segments (cluster outlines, bone
        halos, bones, joint arcs, sphere halos, rims and fills, evolving marks, limit handles, in
        that order) and one of triangles (cluster polygons, hinge wedges)."""
        self.dirty = False
        pos = design.drawn_pos(drag)
        P = pos.shape[0]
        ok = np.isfinite(pos).all(axis=1)
        safe = np.where(ok[:, None], pos, 0.0)
        r = design.radius if design.radius.size == P else np.zeros(P)
        sel, prob, evo = design.selected, design.problem_items, design.evolving
        empty = np.zeros(0, np.int64)
        flag = (lambda sets, kind, n: np.isin(np.arange(n), sets.get(kind, empty)))
        parts, fills = [], []
        # clusters: their members' hull, filled, outlined
        for k, m in enumerate(design.clusters):
            m = m[(m >= 0) & (m < P)]
            m = m[ok[m]]
            if m.size < 2:
                continue
            h = hull(safe[m])
            selected = k in set(sel.get("cluster", empty).tolist())
            bad = k in set(prob.get("cluster", empty).tolist())
            edge = SELECT + (230,) if selected else (_rgba(PROBLEM, 220) if bad else CLUSTER_EDGE)
            fill = _rgba(PROBLEM, 60) if bad else CLUSTER_FILL
            if h.shape[0] >= 3:
                closed = np.concatenate([h, h[:1]])
                fills.append(_fan(h.mean(axis=0), closed, fill))
                parts.append(_segments(closed[:-1], closed[1:], edge, 3.5 if selected else 2.0))
            else:
                parts.append(_segments(h[:1], h[1:], edge, 3.5 if selected else 2.0))
        # bones: halos (selected, problem), then the bones, muscles wider and red
        a, b = design.bone_a, design.bone_b
        E = a.size
        muscle = design.muscle if design.muscle.size == E else np.zeros(E, bool)
        inside = (a >= 0) & (b >= 0) & (a < P) & (b < P)
        good = inside & ok[np.where(inside, a, 0)] & ok[np.where(inside, b, 0)] if P else np.zeros(E, bool)
        loop = good & (a == b)
        line = good & (a != b)
        width = np.where(muscle, design.muscle_width(z), design.bone_width(z))
        bsel, bbad, bevo = flag(sel, "bone", E), flag(prob, "bone", E), flag(evo, "bone", E)
        p0 = safe[np.where(good, a, 0)] if P else np.zeros((E, 2))
        p1 = safe[np.where(good, b, 0)] if P else np.zeros((E, 2))
        # a bone from a sphere to itself: a small loop above it, so it can be seen and clicked
        loop_idx = np.flatnonzero(loop)
        halo_color = np.where(bsel[:, None], np.array(SELECT + (170,), np.uint8),
                              np.array(_rgba(PROBLEM, 110), np.uint8))
        h = line & (bsel | bbad)
        parts.append(_segments(p0[h], p1[h], halo_color[h], width[h] + 8.0))
        color = np.where(muscle[:, None], np.array(_rgba(MUSCLE), np.uint8), np.array(_rgba(BONE_RIGID), np.uint8))
        own = design.bone_colored & ~muscle          # a bone's own colour (its looks)
        color[own, :3] = design.bone_color[own]
        color[bbad] = _rgba(PROBLEM)
        parts.append(_segments(p0[line], p1[line], color[line], width[line]))
        for e in loop_idx.tolist():
            c = safe[a[e]]
            rr = 10.0 / z
            t = np.linspace(0.0, 2 * np.pi, 21)
            ring = c + np.array([0.0, r[a[e]] + rr]) + rr * np.stack([np.cos(t), np.sin(t)], axis=1)
            if bsel[e]:
                parts.append(_segments(ring[:-1], ring[1:], SELECT + (170,), 9.0))
            parts.append(_segments(ring[:-1], ring[1:], tuple(color[e]), 3.5))
        # a bone that names a missing sphere: a short red stub from the end it has
        half = ~inside & (((a >= 0) & (a < P)) ^ ((b >= 0) & (b < P))) if P else np.zeros(E, bool)
        for e in np.flatnonzero(half).tolist():
            s = a[e] if 0 <= a[e] < P else b[e]
            if ok[s]:
                tip = safe[s] + np.array([0.7, 0.7]) * (r[s] + 24.0 / z)
                parts.append(_segments(safe[s][None], tip[None], _rgba(PROBLEM), design.bone_width(z)))
        # joints: an arc over a hinge's range (a wedge under it), a dashed ring for a free joint
        geo = design.joint_geometry(safe, z, drag)
        handles = []
        if geo is not None:
            J = geo["ok"].size
            jsel, jbad = flag(sel, "joint", J), flag(prob, "joint", J)
            for j in range(J):
                c, R = geo["center"][j], geo["radius"][j]
                col = _rgba(SELECT) if jsel[j] else (_rgba(PROBLEM) if jbad[j] else _rgba(JOINT))
                wid = 4.0 if jsel[j] else 3.0
                if not geo["ok"][j]:
                    if jbad[j] and 0 <= design.joint_sphere[j] < P:     # a joint that cannot be placed
                        t = np.linspace(0.0, 2 * np.pi, ARC_STEPS + 1)
                        ring = c + R * np.stack([np.cos(t), np.sin(t)], axis=1)
                        parts.append(_segments(ring[:-1:2], ring[1::2], col, 2.0))
                    continue
                if geo["hinge"][j]:
                    lo, hi = math.radians(geo["min"][j]), math.radians(geo["max"][j])
                    t = geo["start"][j] + np.linspace(lo, hi, ARC_STEPS + 1)
                    arc = c + R * np.stack([np.cos(t), np.sin(t)], axis=1)
                    fills.append(_fan(c, arc, _rgba(col, 50) if (jsel[j] or jbad[j]) else JOINT_WEDGE))
                    parts.append(_segments(arc[:-1], arc[1:], col, wid))
                    if jsel[j]:
                        handles.append(arc[[0, -1]])
                else:
                    t = np.linspace(0.0, 2 * np.pi, ARC_STEPS + 1)
                    ring = c + R * np.stack([np.cos(t), np.sin(t)], axis=1)
                    parts.append(_segments(ring[:-1:2], ring[1::2], col, wid - 1.0))
        # spheres: halo (selected blue, problem red), rim, fill (red for a problem)
        idx = np.flatnonzero(ok)
        ssel, sbad, sevo = flag(sel, "sphere", P), flag(prob, "sphere", P), flag(evo, "sphere", P)
        d = np.maximum(2.0 * r * z, 6.0)
        h = idx[ssel[idx] | sbad[idx]]
        parts.append(_discs(safe[h], np.where(ssel[h, None], np.array(SELECT + (200,), np.uint8),
                                              np.array(_rgba(PROBLEM, 130), np.uint8)), d[h] + 10.0))
        rim = np.where(sbad[idx, None], np.array(_rgba(PROBLEM_RIM), np.uint8), np.array(_rgba(SPHERE_RIM), np.uint8))
        parts.append(_discs(safe[idx], rim, d[idx]))
        fill = np.where(sbad[idx, None], np.array(_rgba(PROBLEM), np.uint8), np.array(_rgba(SPHERE), np.uint8))
        own = design.sphere_colored[idx] & ~sbad[idx]     # a sphere's own colour (its looks)
        fill[own, :3] = design.sphere_color[idx][own]
        parts.append(_discs(safe[idx], fill, np.maximum(0.82 * d[idx], d[idx] - 5.0)))
        eyed = idx[design.eyes[idx]]                     # an eye on it, looking right
        if eyed.size:
            rr = r[eyed][:, None]
            at = safe[eyed] + rr * np.array(EYE_AT)
            parts.append(_discs(at, (255, 255, 255, 255), 2.0 * EYE_WHITE * rr[:, 0] * z))
            parts.append(_discs(at + rr * np.array([EYE_LOOK, 0.0]), (20, 20, 26, 255), 2.0 * EYE_PUPIL * rr[:, 0] * z))
        # evolving: a dashed ring around spheres, a badge on bones, joints and clusters
        ev = idx[sevo[idx]]
        if ev.size:
            k = 12
            t0 = np.arange(k) * (2 * np.pi / k)
            t1 = t0 + 0.55 * (2 * np.pi / k)
            rr = (r[ev] + 6.0 / z)[:, None]
            c = safe[ev][:, None, :]
            q0 = c + rr[..., None] * np.stack([np.cos(t0), np.sin(t0)], axis=1)[None]
            q1 = c + rr[..., None] * np.stack([np.cos(t1), np.sin(t1)], axis=1)[None]
            parts.append(_segments(q0.reshape(-1, 2), q1.reshape(-1, 2), _rgba(EVOLVE), 2.5))
        badges = [0.5 * (p0[bevo & line] + p1[bevo & line])]
        if geo is not None:
            J = geo["ok"].size
            jevo = flag(evo, "joint", J) & geo["ok"]
            mid = geo["start"] + np.where(geo["hinge"], np.radians(0.5 * (np.nan_to_num(geo["min"]) +
                                                                        np.nan_to_num(geo["max"]))), 0.0)
            badges.append(geo["center"][jevo] + geo["radius"][jevo, None] *
                          np.stack([np.cos(mid[jevo]), np.sin(mid[jevo])], axis=1))
        for k in evo.get("cluster", empty).tolist():
            m = design.clusters[k]
            m = m[(m >= 0) & (m < P)]
            if m.size:
                badges.append(safe[m].mean(axis=0)[None])
        badges = np.concatenate(badges) if badges else np.zeros((0, 2))
        parts.append(_discs(badges, (255, 255, 255, 255), 15.0))
        parts.append(_discs(badges, _rgba(EVOLVE), 12.0))
        parts.append(_discs(badges, (255, 255, 255, 255), 4.0))
        # the selection's rotate handle (over a line from its centre) and scale handle
        turn = design.turn_handles(z, drag)
        if turn is not None:
            c = turn["centre"]
            parts.append(_segments(c[None], turn["rotate"][None], SELECT + (140,), 1.5))
            parts.append(_discs(c[None], SELECT + (160,), 6.0))
            for which in ("rotate", "scale"):
                parts.append(_discs(turn[which][None], SELECT + (255,), TURN_HANDLE_PIXELS))
                parts.append(_discs(turn[which][None], _rgba(HANDLE_CORE), TURN_HANDLE_PIXELS - 6.0))
        # a selected hinge's limit handles
        if handles:
            hp = np.concatenate(handles)
            parts.append(_discs(hp, SELECT + (255,), HANDLE_PIXELS))
            parts.append(_discs(hp, _rgba(HANDLE_CORE), HANDLE_PIXELS - 6.0))
        seg = np.concatenate(parts) if parts else np.zeros(0, SEGMENT)
        rows = self.items.reserve(seg.size)
        rows[:] = seg
        self.items.upload()
        self.fills.set(np.concatenate(fills) if fills else np.zeros(0, VERTEX))

    def build_grid(self, camera, axis=None) -> None:
        """Grid lines (every :data:`GRID_STEPS` step at least :data:`GRID_MIN_PIXELS` apart,
        darker every metre), the ground line and the mirror ``axis`` (dashed; None: none) over
        three view widths and heights around the view: panning within them needs no rebuild."""
        z = camera.zoom
        l, b, w, h = camera.canvas
        W, H = w / z, h / z
        cx, cy = camera.position
        cell = (math.floor(cx / W), math.floor(cy / H))
        key = (z, w, h, cell, axis)
        if key == self.grid_key:
            return
        self.grid_key = key
        step = next((s for s in GRID_STEPS if s * z >= GRID_MIN_PIXELS), GRID_STEPS[-1])
        major = max(1.0, 5.0 * step) if step >= 1.0 else 1.0
        x0, x1 = (cell[0] - 1) * W, (cell[0] + 2) * W
        y0, y1 = (cell[1] - 1) * H, (cell[1] + 2) * H
        xs = np.arange(math.floor(x0 / step), math.ceil(x1 / step) + 1) * step
        ys = np.arange(math.floor(y0 / step), math.ceil(y1 / step) + 1) * step
        on = (lambda v: np.abs(v / major - np.round(v / major)) < 1e-6)
        col = (lambda v: np.where(on(v)[:, None], np.array(_rgba(GRID_MAJOR), np.uint8),
                                  np.array(_rgba(GRID), np.uint8)))
        parts = [
            _segments(np.stack([xs, np.full_like(xs, y0)], 1), np.stack([xs, np.full_like(xs, y1)], 1),
                      col(xs), np.where(on(xs), 1.5, 1.0)),
            _segments(np.stack([np.full_like(ys, x0), ys], 1), np.stack([np.full_like(ys, x1), ys], 1),
                      col(ys), np.where(on(ys), 1.5, 1.0)),
            _segments([(x0, 0.0)], [(x1, 0.0)], _rgba(GROUND_LINE), 2.5),
        ]
        if axis is not None:      # the mirror axis: dashes 12 pixels long, 8 apart
            dash = 12.0 / z
            starts = np.arange(math.floor(y0 / (20.0 / z)), math.ceil(y1 / (20.0 / z))) * (20.0 / z)
            parts.append(_segments(np.stack([np.full_like(starts, axis), starts], 1),
                                   np.stack([np.full_like(starts, axis), starts + dash], 1), MIRROR_AXIS, 2.0))
        seg = np.concatenate(parts)
        rows = self.grid.reserve(seg.size)
        rows[:] = seg
        self.grid.upload()

    def draw_overlay(self, camera, design, drag) -> None:
        """What a drag shows, in window units (the screen camera in use): the selection box,
        the bone being drawn."""
        d = drag
        segs, tris = [], []
        if d is not None and d.get("moved"):
            if d["kind"] == "box":
                (x0, y0), (x1, y1) = d["start"], d["now"]
                box = (min(x0, x1), min(y0, y1), abs(x1 - x0), abs(y1 - y0))
                tris.append(rects([box], BOX_FILL))
                c = np.array([(box[0], box[1]), (box[0] + box[2], box[1]), (box[0] + box[2], box[1] + box[3]),
                              (box[0], box[1] + box[3])])
                segs.append(_segments(c, np.roll(c, -1, axis=0), BOX_EDGE, 1.5))
            elif d["kind"] == "bone":
                sx, sy = camera.world_to_screen(*design.pos[d["sphere"]])
                segs.append(_segments([(float(sx), float(sy))], [d["now"]], SELECT + (200,),
                                      design.bone_width(camera.zoom)))
                segs.append(_discs([d["now"]], SELECT + (200,), 8.0))
        seg = np.concatenate(segs) if segs else np.zeros(0, SEGMENT)
        rows = self.overlay.reserve(seg.size)
        rows[:] = seg
        if seg.size:
            self.overlay.upload()
        self.overlay_fill.set(np.concatenate(tris) if tris else np.zeros(0, VERTEX))
        self.overlay_fill.draw()
        self.overlay.draw(1.0)

"""What the viewer draws the creatures over (:class:`Backdrop`): the scene's medium (water as a
blue background darkening with depth, with motes drifting with the current; wind as streaks
moving with it), the terrain, and a metre mark along the ground (or along the bottom of the view
when there is none)."""

from __future__ import annotations

import math

from ._display import prefer_headless

prefer_headless()

import numpy as np  # noqa: E402

from ._gl import Segments, Triangles, VERTEX  # noqa: E402
from .text import FONT  # noqa: E402
from .textpool import TextPool  # noqa: E402
from .theme import (GROUND, GROUND_EDGE, MOTE, SKY, STREAK, TICK, TICK_LABEL, WATER, WATER_DEEP,  # noqa: E402
                    WATER_SHALLOW)

__all__ = ["Backdrop", "LIQUID_DENSITY", "WATER_LEVELS", "MOTES_PER_PIXEL", "STREAKS_PER_PIXEL",
           "STREAK_SECONDS", "STREAK_PIXELS", "MOTE_TAIL_PIXELS"]

#: a fluid at least this dense (kg/m^3), or a medium named ``water...``, is drawn as water
LIQUID_DENSITY = 500.0
#: heights (m) of the water's three colours (WATER_SHALLOW, WATER, WATER_DEEP); between them the
#: colour is interpolated, beyond them it stays. The reference, y = 0, is the level every
#: built-in terrain starts at, where the creatures start (standing on it, or over it without
#: ground): the water darkens as they go deeper, whatever the camera does.
WATER_LEVELS = (4.0, 0.0, -12.0)
#: water motes and wind streaks per screen pixel of the view (so many whatever its size)
MOTES_PER_PIXEL = 1.0 / 11000.0
STREAKS_PER_PIXEL = 1.0 / 16000.0
#: a streak (or a mote's tail in a current) is as long as the flow goes in this many seconds,
#: within these pixels
STREAK_SECONDS = 0.3
STREAK_PIXELS = (14.0, 90.0)
MOTE_TAIL_PIXELS = (0.0, 24.0)


class Backdrop:
    """The medium and the terrain of a scene (:meth:`load`), drawn through a
    :class:`~render.camera.ViewCamera`; the metre marks' labels go into ``batch``.

    Attributes
    ----------
    medium : str
        The scene's medium's name (``none``, ``water``, ``air, wind 3 m/s``...).
    fluid : str or None
        How the medium is drawn: ``water`` (a liquid), ``air`` (a lighter fluid) or None.
    flow : (float, float)
        The fluid's velocity (m/s) the motes and streaks drift with.
    background : (int, int, int)
        The colour the view is cleared with (the sky, or the shallow water's).
    ground : bool
        Whether the scene has ground (its terrain is drawn).
    flow_marks : Segments
        The motes or streaks last drawn.
    """

    def __init__(self, ctx, batch):
        self._ground = Triangles(ctx, strip=True)
        self._shading = Triangles(ctx, strip=True)    # the water's depth shading
        self.flow_marks = Segments(ctx)               # water motes, wind streaks
        self._ground_edge = Segments(ctx)
        self._ticks = Segments(ctx)
        self._tick_labels = TextPool(batch, color=TICK_LABEL, font_size=10,
                                     font_name=FONT, anchor_x="center", anchor_y="top")

    def load(self, scene) -> None:
        """Read ``scene``'s medium, terrain and ``ground``."""
        self._load_medium(scene)
        self._build_terrain(np.asarray(scene.terrain_x, np.float64), np.asarray(scene.terrain_y, np.float64))
        self.ground = bool(getattr(scene, "ground", True))

    def _load_medium(self, scene) -> None:
        """What the scene's medium looks like: :attr:`fluid` is ``water`` (a liquid), ``air`` (a
        lighter fluid) or None; :attr:`background` the colour the view is cleared with."""
        medium = str(getattr(scene, "medium", "none") or "none")
        density = float(getattr(scene, "fluid_density", 0.0) or 0.0)
        try:
            fx, fy = (float(v) for v in getattr(scene, "flow", (0.0, 0.0)))
        except (TypeError, ValueError):
            fx = fy = 0.0
        if not (math.isfinite(fx) and math.isfinite(fy)):
            fx = fy = 0.0
        self.flow = (fx, fy)
        self.medium = medium
        if medium.lower().startswith("water") or density >= LIQUID_DENSITY:
            self.fluid = "water"
        elif density > 0.0 or medium.lower() not in ("none", ""):
            self.fluid = "air"
        else:
            self.fluid = None
        self.background = WATER_SHALLOW if self.fluid == "water" else SKY
        # where the motes and streaks sit in their tile of the view: fixed, so each frame moves
        # them only by the flow (and the camera)
        rng = np.random.default_rng(1234)
        self._mark_uv = rng.random((400, 2))

    def _build_terrain(self, xs: np.ndarray, ys: np.ndarray) -> None:
        """The ground below the polyline as a triangle strip, its edge as segments, both extended
        flat far beyond the ends (the engine's ground is flat there too)."""
        if xs.size == 0:
            xs, ys = np.array([0.0]), np.array([0.0])
        far = 1e5
        x = np.concatenate([[xs[0] - far], xs, [xs[-1] + far]])
        y = np.concatenate([[ys[0]], ys, [ys[-1]]])
        self._terrain_x, self._terrain_y = x, y
        bottom = y.min() - far
        v = np.zeros(2 * x.size, dtype=VERTEX)
        v["pos"][0::2, 0] = x
        v["pos"][0::2, 1] = y
        v["pos"][1::2, 0] = x
        v["pos"][1::2, 1] = bottom
        v["color"] = GROUND + (255,)
        self._ground.set(v)
        seg = self._ground_edge.reserve(x.size - 1)
        seg["seg"] = np.stack([x[:-1], y[:-1], x[1:], y[1:]], axis=1)
        seg["color"] = GROUND_EDGE + (255,)
        seg["width"] = 3.0
        self._ground_edge.upload()

    def draw_water(self, camera) -> None:
        """The water's depth shading: one vertical gradient over the view (a strip of at most
        five rows of vertices), its colours fixed to world heights (:data:`WATER_LEVELS`), so it
        darkens as the camera goes deeper. The view is cleared with the shallow colour, so the
        part of it above the shallow level is not drawn again."""
        left, bottom, right, top = camera.view_box()
        levels = np.array(WATER_LEVELS[::-1], np.float64)             # increasing
        colors = np.array([WATER_DEEP, WATER, WATER_SHALLOW], np.float64)          # by level
        top = min(top, levels[-1])
        if not top > bottom:
            self._shading.count = 0
            return
        ys = np.concatenate([[bottom], levels[(levels > bottom) & (levels < top)], [top]])
        rgb = np.stack([np.interp(ys, levels, colors[:, k]) for k in range(3)], axis=1)
        margin = 2.0 / camera.zoom
        v = np.zeros(2 * ys.size, dtype=VERTEX)
        v["pos"][0::2, 0] = left - margin
        v["pos"][1::2, 0] = right + margin
        v["pos"][0::2, 1] = ys
        v["pos"][1::2, 1] = ys
        v["pos"][0, 1] = v["pos"][1, 1] = bottom - margin
        v["color"][:, :3] = np.repeat(np.round(rgb), 2, axis=0).astype(np.uint8)
        v["color"][:, 3] = 255
        self._shading.set(v)
        self._shading.draw(blend=False)

    def draw_flow_marks(self, camera, time: float) -> None:
        """Motes in water (with a tail along a current), streaks in the wind (none in still air):
        fixed points of the world drifting with the flow, ``flow * time`` from where they started,
        wrapped into a tile the size of the view (a little more, so they leave it before
        wrapping). The camera moving shows against them, as against the ground."""
        fx, fy = self.flow
        speed = math.hypot(fx, fy)
        water = self.fluid == "water"
        if not water and speed == 0.0:
            self.flow_marks.count = 0
            return
        w, h = camera.size
        z = camera.zoom
        if water:
            n = int(np.clip(w * h * MOTES_PER_PIXEL, 6, self._mark_uv.shape[0]))
            lo, hi = MOTE_TAIL_PIXELS
            color, width = MOTE, 3.0
        else:
            n = int(np.clip(w * h * STREAKS_PER_PIXEL, 4, self._mark_uv.shape[0]))
            lo, hi = STREAK_PIXELS
            color, width = STREAK, 2.0
        tail = min(max(speed * STREAK_SECONDS * z, lo), hi) if speed > 0.0 else 0.0   # pixels
        margin = tail + 4.0
        period = np.array([(w + 2 * margin) / z, (h + 2 * margin) / z])
        cx, cy = camera.position
        corner = np.array([cx, cy]) - 0.5 * period
        shift = np.array([fx, fy]) * time
        p = corner + np.mod(self._mark_uv[:n] * period + shift - corner, period)
        seg = self.flow_marks.reserve(n)
        seg["seg"][:, 2:4] = p
        if tail > 0.0:
            d = np.array([fx, fy]) / speed * (tail / z)
            seg["seg"][:, 0:2] = p - d
        else:
            seg["seg"][:, 0:2] = p
        seg["color"] = color
        seg["width"] = width
        self.flow_marks.upload()
        self.flow_marks.draw(1.0 / z)

    def draw_ground(self, pixel: float) -> None:
        """The terrain and its edge (``pixel``: metres per pixel)."""
        self._ground.draw(blend=False)          # opaque: faster without blending
        self._ground_edge.draw(pixel)

    def draw_ticks(self, camera, covered=()) -> None:
        """A tick every metre on the ground (or every 2, 5, 10... m when zoomed out), a label
        every 5 ticks (or so that labels stay apart), none under the screen boxes ``covered``
        (left, bottom, width, height: panels drawn over the view, which would show them
        through). With no ground, along the bottom of the view, pointing up. (The labels are
        set here, drawn with their batch.)"""
        w, h = camera.size
        zoom = camera.zoom
        left, _ = camera.screen_to_world(0, 0)
        right, _ = camera.screen_to_world(w, 0)
        spacing = next(s for s in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000)
                       if s * zoom >= 12 or s == 10000)
        every = next(s for s in (5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000)
                     if s % spacing == 0 and s * zoom >= 70 or s == 50000)
        xs = np.arange(math.ceil(left / spacing) * spacing, right + spacing, spacing, dtype=np.float64)
        if self.ground:
            ys = np.interp(xs, self._terrain_x, self._terrain_y)
            down = 1.0
        else:
            ys = np.full(xs.shape, camera.screen_to_world(0, 0)[1])
            down = -1.0
        major = np.isclose(np.mod(xs, every), 0.0) | np.isclose(np.mod(xs, every), every)
        length = down * np.where(major, 16.0, 8.0) / zoom
        seg = self._ticks.reserve(xs.size)
        seg["seg"] = np.stack([xs, ys, xs, ys - length], axis=1)
        seg["color"] = TICK + (255,)
        seg["width"] = np.where(major, 2.0, 1.5)
        self._ticks.upload()
        self._ticks.draw(1.0 / zoom)
        sx, sy = camera.world_to_screen(xs[major], ys[major])
        n = 0
        for x, px, py in zip(xs[major], sx, sy):
            at = (round(float(px)), round(float(py) - 20 if self.ground else float(py) + 34))
            if any(l - 30 <= at[0] <= l + w + 30 and b - 10 <= at[1] <= b + h + 10 for l, b, w, h in covered):
                continue
            t = self._tick_labels.get(n)
            t.text = f"{x:g} m"
            t.position = at
            n += 1
        self._tick_labels.finish(n)

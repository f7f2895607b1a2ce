"""The editor's canvas camera (:class:`CanvasCamera`): the world point at the centre of the
canvas and the zoom, in pixels (window units) per metre; window points to world points and
back, zooming about a point, panning, fitting the design, the keys and the wheel that zoom and
pan, and the two arcade cameras drawing goes through (metres for the canvas, window units for
the interface)."""

from __future__ import annotations

from ._display import prefer_headless

prefer_headless()

import arcade  # noqa: E402
import numpy as np  # noqa: E402
from arcade.camera import Camera2D  # noqa: E402
from arcade.types import LBWH  # noqa: E402

__all__ = ["CanvasCamera", "ZOOM_RANGE", "ZOOM_STEP", "WHEEL_STEP", "PAN_STEP", "PAN_SPEED"]

ZOOM_RANGE = (8.0, 4000.0)      # pixels per metre
ZOOM_STEP = 1.25                # + and -
WHEEL_STEP = 1.15               # per wheel notch
PAN_STEP = 0.1                  # view widths per arrow press
PAN_SPEED = 0.8                 # view widths per second while an arrow is held


class CanvasCamera:
    """Where the canvas looks.

    Parameters
    ----------
    window : arcade.Window
        The window the cameras draw in.

    Attributes
    ----------
    position : (float, float)
        World point (m) at the centre of the canvas.
    zoom : float
        Pixels (window units) per metre.
    canvas : (float, float, float, float)
        The canvas in the window (left, bottom, width, height; window units), as the layout put it.
    world, screen : arcade.camera.Camera2D
        The cameras drawing goes through: the canvas's in metres (:meth:`use_world`), the
        interface's in window units (:meth:`use_screen`).
    """

    def __init__(self, window):
        self.position = (0.0, 1.0)
        self.zoom = 100.0
        self.canvas = (0, 0, 1, 1)
        self.world = Camera2D(window=window)
        self.screen = Camera2D(window=window)

    def world_to_screen(self, x, y):
        """Window point (from the bottom left) of world point ``(x, y)`` (m); arrays work too."""
        l, b, w, h = self.canvas
        cx, cy = self.position
        return ((np.asarray(x, np.float64) - cx) * self.zoom + l + w / 2,
                (np.asarray(y, np.float64) - cy) * self.zoom + b + h / 2)

    def screen_to_world(self, sx, sy):
        """World point (m) under window point ``(sx, sy)``."""
        l, b, w, h = self.canvas
        cx, cy = self.position
        return ((np.asarray(sx, np.float64) - l - w / 2) / self.zoom + cx,
                (np.asarray(sy, np.float64) - b - h / 2) / self.zoom + cy)

    def world_point(self, x, y) -> tuple[float, float]:
        """:meth:`screen_to_world` of one point, as two floats."""
        wx, wy = self.screen_to_world(x, y)
        return float(wx), float(wy)

    def set_zoom(self, zoom: float, about=None) -> None:
        """Zoom to ``zoom`` pixels per metre (within :data:`ZOOM_RANGE`), keeping the world point
        under window point ``about`` in place (by default the canvas's centre)."""
        zoom = float(min(ZOOM_RANGE[1], max(ZOOM_RANGE[0], zoom)))
        if about is not None:
            wx, wy = self.world_point(*about)
            l, b, w, h = self.canvas
            self.position = (wx - (about[0] - l - w / 2) / zoom, wy - (about[1] - b - h / 2) / zoom)
        self.zoom = zoom

    def pan(self, dx: float, dy: float) -> None:
        """Move the view by (dx, dy) window units (the design moves the other way)."""
        cx, cy = self.position
        self.position = (cx + dx / self.zoom, cy + dy / self.zoom)

    def on_key(self, symbol: int) -> bool:
        """The camera's keys: + and - zoom by :data:`ZOOM_STEP`, an arrow pans :data:`PAN_STEP`
        canvas widths its way. Returns whether the key was one of them."""
        k = arcade.key
        if symbol in (k.EQUAL, k.PLUS, k.NUM_ADD):
            self.set_zoom(self.zoom * ZOOM_STEP)
        elif symbol in (k.MINUS, k.NUM_SUBTRACT):
            self.set_zoom(self.zoom / ZOOM_STEP)
        elif symbol in (k.LEFT, k.RIGHT, k.UP, k.DOWN):
            step = PAN_STEP * self.canvas[2]
            self.pan(((symbol == k.RIGHT) - (symbol == k.LEFT)) * step, ((symbol == k.UP) - (symbol == k.DOWN)) * step)
        else:
            return False
        return True

    def on_wheel(self, x: float, y: float, scroll_y: float) -> None:
        """The wheel turned over the canvas at window point ``(x, y)``: zoom about it."""
        self.set_zoom(self.zoom * WHEEL_STEP ** scroll_y, about=(x, y))

    def pan_held(self, held, delta_time: float) -> None:
        """Pan for ``delta_time`` seconds by the arrow keys ``held`` (:data:`PAN_SPEED` canvas
        widths a second)."""
        if held:
            k = arcade.key
            step = PAN_SPEED * self.canvas[2] * delta_time
            dx = (k.RIGHT in held) - (k.LEFT in held)
            dy = (k.UP in held) - (k.DOWN in held)
            self.pan(dx * step, dy * step)

    def fit(self, pos: np.ndarray, radius: np.ndarray) -> None:
        """Zoom and pan so spheres at ``pos`` (P, 2) of ``radius`` (P,) (and the ground under
        them) fill the canvas."""
        l, b, w, h = self.canvas
        P = pos.shape[0]
        if P == 0:
            self.zoom = float(min(max(h / 2.5, ZOOM_RANGE[0]), ZOOM_RANGE[1]))
            self.position = (0.0, 0.9)
            return
        ok = np.isfinite(pos).all(axis=1)
        if not ok.any():
            return
        r = radius[ok, None] if radius.size == P else 0.0
        lo = (pos[ok] - r).min(axis=0)
        hi = (pos[ok] + r).max(axis=0)
        lo[1] = min(lo[1], 0.0)
        span = np.maximum(hi - lo, 0.3)
        zoom = min(w / (1.4 * span[0]), h / (1.4 * span[1]))
        self.zoom = float(min(max(zoom, ZOOM_RANGE[0]), ZOOM_RANGE[1]))
        self.position = (float(0.5 * (lo[0] + hi[0])), float(0.5 * (lo[1] + hi[1])))

    def use_world(self, pixels, size) -> None:
        """Draw in metres from now on, in the canvas, into a framebuffer of ``pixels`` for a
        layout of ``size`` window units."""
        w, h = size
        fw, fh = pixels
        sx, sy = fw / w, fh / h
        l, b, cw, ch = self.canvas
        cam = self.world
        cam.viewport = LBWH(round(l * sx), round(b * sy), max(1, round(cw * sx)), max(1, round(ch * sy)))
        cam.zoom = 1.0                   # arcade scales a projection set by the zoom in force
        cam.projection = LBWH(-cw / 2, -ch / 2, cw, ch)
        cam.position = self.position
        cam.zoom = self.zoom
        cam.use()

    def use_screen(self, pixels, size) -> None:
        """Draw in window units from now on, from the bottom left, over the whole framebuffer."""
        w, h = size
        fw, fh = pixels
        scr = self.screen
        scr.viewport = LBWH(0, 0, fw, fh)
        scr.projection = LBWH(-w / 2, -h / 2, w, h)
        scr.position = (w / 2, h / 2)
        scr.zoom = 1.0
        scr.use()

"""The viewer's camera (:class:`ViewCamera`): the world point at the centre of the view and the
zoom, in pixels per metre; following a creature, panning, zooming about a point, and the two
arcade cameras drawing goes through (metres for the world, pixels for the HUD and panels)."""

from __future__ import annotations

import math

from ._display import prefer_headless

prefer_headless()

import arcade  # noqa: E402
import numpy as np  # noqa: E402
from arcade.camera import Camera2D  # noqa: E402
from arcade.types import LBWH  # noqa: E402

__all__ = ["ViewCamera", "DEFAULT_VIEW_HEIGHT", "ZOOM_RANGE", "FOLLOW_RATE", "PAN_SPEED"]

#: metres from the bottom to the top of the view at the default zoom: a 1.5 m walker fills a quarter
DEFAULT_VIEW_HEIGHT = 6.0
ZOOM_RANGE = (2.0, 4000.0)           # pixels per metre
FOLLOW_RATE = 4.0                    # 1/s: the camera closes 1 - exp(-rate t) of its gap to the leader
PAN_SPEED = 0.8                      # view widths per second with an arrow key held


class ViewCamera:
    """Where a view of ``size`` pixels looks.

    Parameters
    ----------
    window : arcade.Window
        The window the cameras draw in.
    size : (int, int)
        The view's size in pixels.
    zoom : float, optional
        Pixels per metre; by default :data:`DEFAULT_VIEW_HEIGHT` metres fill the height (and
        keep filling it when the view is resized).

    Attributes
    ----------
    size : (int, int)
        The view's size in pixels.
    zoom : float
        Pixels per metre.
    position : (float, float)
        World point (m) at the centre of the view.
    world, screen : arcade.camera.Camera2D
        The cameras drawing goes through: the world's in metres (:meth:`use_world`), the HUD's
        and panels' in pixels (:meth:`use_screen`).
    """

    def __init__(self, window, size, zoom=None):
        self.size = size
        self._zoom_set = zoom
        self.zoom = float(zoom) if zoom else self.default_zoom()
        self.position = (0.0, 0.0)
        self.world = Camera2D(viewport=LBWH(0, 0, *self.size), window=window)
        self.screen = Camera2D(viewport=LBWH(0, 0, *self.size), window=window)

    def default_zoom(self) -> float:
        return self.size[1] / DEFAULT_VIEW_HEIGHT

    def aim(self, points: np.ndarray) -> tuple[float, float] | None:
        """Where to look at a creature whose spheres are at ``points`` (m): the middle of their
        box, the creature a little below the middle of the view; None without (finite) points."""
        if points.shape[0] == 0 or not np.all(np.isfinite(points)):
            return None
        cx = 0.5 * (points[:, 0].min() + points[:, 0].max())
        cy = 0.5 * (points[:, 1].min() + points[:, 1].max())
        return cx, cy + 0.1 * self.size[1] / self.zoom   # the creature a little below the middle

    def approach(self, target, delta_time: float) -> None:
        """Close 1 - exp(-:data:`FOLLOW_RATE` t) of the gap to ``target`` in ``delta_time`` seconds."""
        k = 1.0 - math.exp(-FOLLOW_RATE * max(delta_time, 0.0))
        x, y = self.position
        self.position = (x + (target[0] - x) * k, y + (target[1] - y) * k)

    def pan(self, held, delta_time: float) -> None:
        """Move for ``delta_time`` seconds by the arrow keys ``held``."""
        if not held:
            return
        k = arcade.key
        step = PAN_SPEED * self.size[0] / self.zoom * delta_time
        dx = (k.RIGHT in held) - (k.LEFT in held)
        dy = (k.UP in held) - (k.DOWN in held)
        x, y = self.position
        self.position = (x + dx * step, y + dy * step)

    def drag(self, dx: float, dy: float) -> None:
        """Move the world by ``(dx, dy)`` pixels under the view (a mouse drag)."""
        cx, cy = self.position
        self.position = (cx - dx / self.zoom, cy - dy / self.zoom)

    def zoom_by(self, factor: float, about=None) -> None:
        """Zoom by ``factor`` (within :data:`ZOOM_RANGE`), keeping the world point under screen
        point ``about`` in place (None: the centre)."""
        old = self.zoom
        self.zoom = float(min(ZOOM_RANGE[1], max(ZOOM_RANGE[0], old * factor)))
        if about is not None:
            wx, wy = self.screen_to_world(*about, zoom=old)
            w, h = self.size
            self.position = (wx - (about[0] - w / 2) / self.zoom, wy - (about[1] - h / 2) / self.zoom)

    def world_to_screen(self, x, y):
        """Screen pixel (from the bottom left) of world point ``(x, y)`` (m); arrays work too."""
        cx, cy = self.position
        w, h = self.size
        return (np.asarray(x) - cx) * self.zoom + w / 2, (np.asarray(y) - cy) * self.zoom + h / 2

    def screen_to_world(self, sx, sy, zoom=None):
        z = zoom or self.zoom
        cx, cy = self.position
        w, h = self.size
        return (sx - w / 2) / z + cx, (sy - h / 2) / z + cy

    def view_box(self) -> tuple[float, float, float, float]:
        """The world (m) the view shows: left, bottom, right, top."""
        w, h = self.size
        left, bottom = self.screen_to_world(0, 0)
        right, top = self.screen_to_world(w, h)
        return left, bottom, right, top

    def resize(self, size) -> None:
        """A view of ``size`` pixels now; the zoom keeps the same metres in the height unless set."""
        old_default = self.default_zoom()
        self.size = (int(size[0]), int(size[1]))
        if self._zoom_set is None and abs(self.zoom - old_default) < 1e-9:
            self.zoom = self.default_zoom()
        for cam in (self.world, self.screen):
            cam.viewport = LBWH(0, 0, *self.size)
            zoom, cam.zoom = cam.zoom, 1.0      # arcade scales a projection by the zoom in force
            cam.projection = LBWH(-self.size[0] / 2, -self.size[1] / 2, *self.size)
            cam.zoom = zoom

    def use_world(self) -> None:
        """Draw in metres from now on, through the view."""
        cam = self.world
        cam.position = self.position
        cam.zoom = self.zoom
        cam.use()

    def use_screen(self) -> None:
        """Draw in screen pixels from now on, from the bottom left."""
        w, h = self.size
        scr = self.screen
        scr.position = (w / 2, h / 2)
        scr.zoom = 1.0
        scr.use()

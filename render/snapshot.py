"""Pictures of a source's current frame, drawn offscreen with the viewer's own drawing.

:class:`Snapshot` is for code that steps a :class:`~render.scene.Source` itself (a Gymnasium
environment's ``render()``): it never steps the source, it draws whatever ``source.frame()``
says now, the camera on the frame's leader, and hands back the pixels::

    with Snapshot(source, size=(640, 360)) as snap:
        source.step()
        rgb = snap.take()          # (360, 640, 3) uint8, top row first

It works without a display (EGL, like :func:`render.record`): arcade loads on the first
:class:`Snapshot`, headless when there is no display to open a window on. All snapshots share
one hidden window (arcade keeps one window per process), or the window already open; the hidden
one closes with the last snapshot that used it.
"""

from __future__ import annotations

import numpy as np

from ._display import prefer_headless
from .offscreen import check_size, draw_into, read_pixels

__all__ = ["Snapshot"]

# the hidden window snapshots made (None when the window in use is someone else's)
_shared = {"window": None, "users": 0}


def _acquire_window(size):
    prefer_headless()
    import arcade

    if _shared["window"] is not None:
        _shared["users"] += 1
        return _shared["window"], True
    try:
        return arcade.get_window(), False
    except RuntimeError:
        window = arcade.Window(size[0], size[1], "creatures snapshot", visible=False)
        _shared["window"], _shared["users"] = window, 1
        return window, True


def _screen_state(window) -> tuple:
    """The window's camera in use, and its screen framebuffer's viewport, scissor box and
    scissor test, to give back."""
    from pyglet import gl
    screen = window.ctx.screen
    return (window.current_camera, tuple(screen.viewport), screen.scissor,
            bool(gl.glIsEnabled(gl.GL_SCISSOR_TEST)))


def _restore_screen(window, state) -> None:
    """The screen and the camera in use again as they were (:func:`_screen_state`). Otherwise a
    viewer drawn offscreen at another size stays the window's camera in use: the next camera
    that gives it back (``Camera2D.activate``) sets its viewport and scissor on the screen, and
    the window's own frames are cleared and drawn in that box only."""
    from pyglet import gl
    camera, viewport, scissor, enabled = state
    screen = window.ctx.screen
    screen.use()
    try:
        camera.use()
    except Exception:  # noqa: BLE001 - a camera that cannot be used again: the default one
        window.default_camera.use()
    screen.use()
    screen.viewport = viewport
    screen.scissor = scissor
    if not enabled and scissor is None:
        gl.glDisable(gl.GL_SCISSOR_TEST)


def _release_window() -> None:
    _shared["users"] -= 1
    if _shared["users"] <= 0 and _shared["window"] is not None:
        window, _shared["window"], _shared["users"] = _shared["window"], None, 0
        window.close()


class Snapshot:
    """Draws ``source``'s current frame offscreen, as the viewer would show it.

    Parameters
    ----------
    source : Source
        Read with ``frame()`` at each :meth:`take`, never stepped or reset.
    size : (int, int)
        Width and height in pixels (16 to 4096).
    options
        More :class:`~render.viewer.Viewer` options (``zoom``, ``show_sensors``...).

    :meth:`close` (or leaving a ``with`` block) frees the framebuffer and, with the last
    snapshot, the hidden window.
    """

    def __init__(self, source, size=(640, 360), **options):
        self.size = check_size(size)
        self.source = source
        self._window, self._shared = _acquire_window(self.size)
        self._screen = _screen_state(self._window)   # given back after each picture: the window goes on
        try:
            from .viewer import Viewer

            ctx = self._window.ctx
            self._texture = ctx.texture(self.size, components=4)
            self._fbo = ctx.framebuffer(color_attachments=[self._texture])
            options.setdefault("hint", False)
            options.setdefault("text_budget", None)
            options.setdefault("interpolate", False)
            self.viewer = Viewer(source, size=self.size, poll_interval=None, max_lag=None,
                                 close_on_quit=False, window=self._window, **options)
            _restore_screen(self._window, self._screen)
        except BaseException:
            self._fbo = self._texture = None
            self.close()
            raise
        self.closed = False

    def take(self) -> np.ndarray:
        """The source's current frame as pixels, shape (H, W, 3), uint8, top row first."""
        if getattr(self, "closed", True):
            raise RuntimeError("this snapshot is closed")
        viewer = self.viewer
        viewer._prev_pos = None
        viewer._set_frame(self.source.frame())
        viewer.snap_camera()
        draw_into(viewer, self._fbo)
        try:
            return read_pixels(self._fbo, self.size)
        finally:
            _restore_screen(self._window, self._screen)

    def close(self) -> None:
        """Free the framebuffer (and the hidden window, with the last snapshot). Idempotent."""
        if getattr(self, "closed", False) or self._window is None:
            return
        self.closed = True
        for obj in (getattr(self, "_fbo", None), getattr(self, "_texture", None)):
            if obj is not None:
                try:
                    obj.delete()
                except Exception:  # noqa: BLE001 - the context may already be gone
                    pass
        self._fbo = self._texture = None
        self.viewer = None
        try:
            _restore_screen(self._window, self._screen)
        except Exception:  # noqa: BLE001 - the context may already be gone
            pass
        if self._shared:
            _release_window()
        self._window = None

    def __enter__(self) -> "Snapshot":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

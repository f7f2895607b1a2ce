"""Drawing offscreen: a framebuffer of a checked size (on the current window or a hidden one),
a viewer drawn into it and its pixels read back. What recording (:mod:`render.record`),
snapshots (:mod:`render.snapshot`) and the frame-time measurements share."""

from __future__ import annotations

import math
from contextlib import contextmanager

import numpy as np

from ._display import prefer_headless

__all__ = ["MAX_SIDE", "check_size", "check_number", "offscreen", "draw_into", "read_pixels"]

#: the largest side of an offscreen picture (pixels)
MAX_SIDE = 4096


def check_size(size) -> tuple[int, int]:
    """``size`` as two whole numbers of pixels from 16 to MAX_SIDE, or a ValueError saying why."""
    try:
        w, h = size
    except (TypeError, ValueError):
        raise ValueError(f"size must be (width, height) in pixels, not {size!r}") from None
    for v in (w, h):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not 16 <= v <= MAX_SIDE:
            raise ValueError(f"size must be two whole numbers of pixels from 16 to {MAX_SIDE}, not {size!r}")
    return int(w), int(h)


def check_number(name, value, low, high, whole=False):
    """``value`` if it is a (whole) number from ``low`` to ``high``, else a ValueError naming ``name``."""
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    if ok and whole:
        ok = float(value).is_integer()
    if not ok or not math.isfinite(value) or not low <= value <= high:
        kind = "a whole number" if whole else "a number"
        raise ValueError(f"{name} must be {kind} from {low:g} to {high:g}, not {value!r}")
    return value



@contextmanager
def offscreen(size):
    """A framebuffer of ``size`` on the current arcade window, or on a hidden one made for it
    (and closed after)."""
    prefer_headless()
    import arcade

    try:
        window, own = arcade.get_window(), False
    except RuntimeError:
        window, own = arcade.Window(size[0], size[1], "creatures record", visible=False), True
    ctx = window.ctx
    texture = ctx.texture(size, components=4)
    fbo = ctx.framebuffer(color_attachments=[texture])
    try:
        yield window, fbo
    finally:
        ctx.screen.use()
        if own:
            window.close()


def draw_into(viewer, fbo) -> None:
    """The viewer's scene drawn into ``fbo``, on its background."""
    fbo.use()
    fbo.clear(color=tuple(viewer.background) + (255,))
    viewer.draw_scene()


def read_pixels(fbo, size) -> np.ndarray:
    """The framebuffer as an (H, W, 3) array of bytes, top row first."""
    w, h = size
    data = np.frombuffer(fbo.read(components=3), dtype=np.uint8).reshape(h, w, 3)
    return np.ascontiguousarray(data[::-1])

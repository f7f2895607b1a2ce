"""Timing the editor's frames offscreen (:func:`measure_frames`): the benchmark behind
:func:`render.editor.measure_editor_frames` (``creatures bench --viewer``), given the view to time
(this module does not import the editor's, which imports it)."""

from __future__ import annotations

import time

from ._display import prefer_headless

prefer_headless()

import arcade  # noqa: E402
import numpy as np  # noqa: E402

__all__ = ["measure_frames"]


def measure_frames(view_class, doc, size=(1280, 720), frames=120, drag=False, warmup=10) -> dict:
    """:func:`render.editor.measure_editor_frames` of a view made by ``view_class(doc, window=,
    size=)`` (:class:`render.editor.EditorView`); the other parameters and the result are its."""
    from .offscreen import check_number, check_size, offscreen

    size = check_size(size)
    frames = int(check_number("frames", frames, 1, 100000, whole=True))
    if drag not in (False, True, "preview"):
        raise ValueError(f"drag must be False, True or 'preview', not {drag!r}")
    left = arcade.MOUSE_BUTTON_LEFT
    with offscreen(size) as (window, fbo):
        ctx = window.ctx
        view = view_class(doc, window=window, size=size)
        view.snap = False
        moves = 0
        P = len(view.sketch.sphere_id)
        if drag and P == 0:
            raise ValueError("the design has no sphere to drag")

        def grab():
            x, y = view.world_to_screen(*view.sketch.pos[0])
            return float(x), float(y)

        if drag == "preview":
            x0, y0 = grab()
            view.on_mouse_press(x0, y0, left, 0)
        total, handled, drawn = [], [], []
        for k in range(warmup + frames):
            t0 = time.perf_counter()
            step = 6.0 if k % 2 == 0 else -6.0        # back and forth: the design stays in place
            if drag == "preview":
                view.on_mouse_drag(x0 + (step if k % 2 == 0 else 0.0), y0 + 3.0, step, 3.0, left, 0)
            elif drag:
                x, y = grab()
                view.on_mouse_press(x, y, left, 0)
                view.on_mouse_drag(x + step, y, step, 0.0, left, 0)
                view.on_mouse_release(x + step, y, left, 0)
                moves += 1
            t1 = time.perf_counter()
            fbo.use()
            fbo.clear(color=tuple(view.background) + (255,))
            view.draw_editor()
            ctx.finish()
            t2 = time.perf_counter()
            if k >= warmup:
                total.append(t2 - t1 + t1 - t0)
                handled.append(t1 - t0)
                drawn.append(t2 - t1)
        if drag == "preview":
            view.escape()
        renderer = ctx.info.RENDERER
    ms = np.array(total) * 1000.0
    return {"median_ms": float(np.median(ms)), "p90_ms": float(np.percentile(ms, 90)),
            "mean_ms": float(ms.mean()), "max_ms": float(ms.max()),
            "input_ms": float(np.median(handled) * 1000.0), "draw_ms": float(np.median(drawn) * 1000.0),
            "frames": frames, "size": size, "renderer": renderer, "moves": moves}

"""The viewer's frame time (``creatures bench --viewer``): a shipped walker champion alone and
ten of them racing, drawn offscreen at 1280x720 with the software renderer this machine has
(Mesa llvmpipe here), plain and with the brain and sensor panels on. A frame is one update (the
steps of 1/60 s) plus drawing plus ``finish()``, so the GPU's work (the CPU's, with llvmpipe)
is counted."""

from __future__ import annotations

import os

from .watch import DEFAULT_SAVE, SAVES_DIR

SIZE = (1280, 720)
FRAMES = 240
#: (creatures racing, panels on)
CASES = ((1, False), (1, True), (10, False), (10, True))
TARGET_MS = 16.0


def run_viewer_bench(frames: int = FRAMES) -> list[dict]:
    os.environ.setdefault("ARCADE_HEADLESS", "1")  # offscreen, before arcade is imported
    from render import measure_frame_time

    from .show import load_sources
    path = str(SAVES_DIR / DEFAULT_SAVE)
    rows = []
    for n, panels in CASES:
        source = load_sources([path] * n)
        m = measure_frame_time(source, size=SIZE, frames=frames, show_brain=panels, show_sensors=panels)
        rows.append({"benchmark": "viewer", "creatures": n, "panels": panels,
                     "median_ms": m["median_ms"], "p90_ms": m["p90_ms"], "update_ms": m["update_ms"],
                     "draw_ms": m["draw_ms"], "frames": m["frames"], "renderer": m["renderer"]})
    return rows


def format_viewer(rows: list[dict]) -> str:
    renderer = rows[0]["renderer"] if rows else "?"
    lines = [f"Viewer frame time at {SIZE[0]}x{SIZE[1]}, offscreen ({renderer}); "
             f"target under {TARGET_MS:g} ms for 10 walkers",
             "",
             "| walkers | panels | median ms | p90 ms | update ms | draw ms |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['creatures']} | {'brain + sensors' if r['panels'] else 'none'} | "
                     f"{r['median_ms']:.1f} | {r['p90_ms']:.1f} | {r['update_ms']:.1f} | {r['draw_ms']:.1f} |")
    return "\n".join(lines)

"""The viewer's frame time (``creatures bench --viewer``): a shipped walker champion alone and
ten of them racing, drawn offscreen at 1280x720 with the software renderer this machine has
(Mesa llvmpipe here), plain and with the brain and sensor panels on. A frame is one update (the
steps of 1/60 s) plus drawing plus ``finish()``, so the GPU's work (the CPU's, with llvmpipe)
is counted.

Then the game's evolution screen (``creatures play``) while a run of 150 walkers evolves in a
background process on one worker (the default on two cores: the window keeps the other): the
newest champion with the chart, then the whole generation of 150 as ghosts with the chart. Its
frames are paced at 60 Hz as a window's are (the time measured is each frame's work, not the
wait), for :data:`PLAY_SECONDS` of wall time each, so that new generations arrive and their
champions load during the measurement (what the player sees as a hitch is in the p90)."""

from __future__ import annotations

import dataclasses
import os

from ..shipped import DEFAULT_SAVE, SAVES_DIR

SIZE = (1280, 720)
FRAMES = 240
#: (creatures racing, panels on)
CASES = ((1, False), (1, True), (10, False), (10, True))
TARGET_MS = 16.0
#: the evolution screen's targets: median and p90 of the live view, median of the ghosts
PLAY_TARGETS = {"median_ms": 16.0, "p90_ms": 33.0, "ghosts_median_ms": 33.0}
PLAY_POPULATION = 150
PLAY_SECONDS = 15.0
#: seconds to wait for the background run's first generation (a first run compiles kernels)
FIRST_GENERATION_TIMEOUT = 300.0


def run_viewer_bench(frames: int = FRAMES) -> list[dict]:
    os.environ.setdefault("ARCADE_HEADLESS", "1")  # offscreen, before arcade is imported
    from render import measure_frame_time

    from ..sources import load_sources
    path = str(SAVES_DIR / DEFAULT_SAVE)
    rows = []
    for n, panels in CASES:
        source = load_sources([path] * n)
        m = measure_frame_time(source, size=SIZE, frames=frames, show_brain=panels, show_sensors=panels)
        rows.append({"benchmark": "viewer", "creatures": n, "panels": panels,
                     "median_ms": m["median_ms"], "p90_ms": m["p90_ms"], "update_ms": m["update_ms"],
                     "draw_ms": m["draw_ms"], "frames": m["frames"], "renderer": m["renderer"]})
    return rows


def _frames_of(view, window, seconds: float) -> list[float]:
    """Work milliseconds of each frame (update, draw, finish) of ``view``, paced at 60 Hz."""
    import time
    ctx, out, period = window.ctx, [], 1.0 / 60.0
    end = time.perf_counter() + seconds
    last = time.perf_counter()
    while time.perf_counter() < end:
        t0 = time.perf_counter()
        view.on_update(t0 - last)
        last = t0
        view.on_draw()
        ctx.finish()
        t1 = time.perf_counter()
        out.append((t1 - t0) * 1000.0)
        time.sleep(max(0.0, period - (time.perf_counter() - t0)))
    return out


def run_play_bench(seconds: float = PLAY_SECONDS, population: int = PLAY_POPULATION) -> list[dict]:
    """The evolution screen's frame time with a run evolving in the background (see the
    module docstring): a row for the newest champion with the chart, one for the ghosts."""
    import tempfile
    import time

    import numpy as np
    os.environ.setdefault("ARCADE_HEADLESS", "1")
    import arcade

    from render.play import PlayView

    from ..game import PlayMenu
    from ..session import DEFAULT_SETUP
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        setup = dataclasses.replace(DEFAULT_SETUP, design="walker", population=population, generations=100000,
                                    workers=1)
        session = PlayMenu(out_dir=tmp).start(setup)
        try:
            t0 = time.perf_counter()
            while session.done < 1:
                session.poll()
                if session.state == "failed" or time.perf_counter() - t0 > FIRST_GENERATION_TIMEOUT:
                    raise RuntimeError(f"the background run did not finish a generation: {session.message}")
                time.sleep(0.2)
            try:
                window, own = arcade.get_window(), False
            except RuntimeError:
                window, own = arcade.Window(*SIZE, "creatures bench", visible=False, antialiasing=False), True
            try:
                view = PlayView(session, window=window, on_quit=lambda: None)
                view.on_resize(*SIZE)
                renderer = window.ctx.info.RENDERER
                for case in ("champion", "ghosts"):
                    if case == "ghosts":
                        view.show_ghosts()
                    _frames_of(view, window, 1.0)             # warm up
                    before = session.done
                    ms = np.array(_frames_of(view, window, seconds))
                    rows.append({"benchmark": "play", "case": case, "population": population,
                                 "creatures": len(view.viewer.scene.creatures), "workers": session.workers,
                                 "median_ms": float(np.median(ms)), "p90_ms": float(np.percentile(ms, 90)),
                                 "max_ms": float(ms.max()), "frames": int(ms.size), "seconds": seconds,
                                 "generations": int(session.done - before), "renderer": renderer})
            finally:
                if own:
                    window.close()
        finally:
            session.close()
    return rows


def format_play(rows: list[dict]) -> str:
    renderer = rows[0]["renderer"] if rows else "?"
    lines = [f"The evolution screen (creatures play) at {SIZE[0]}x{SIZE[1]}, offscreen ({renderer}), while a run "
             f"of {rows[0]['population'] if rows else '?'} walkers evolves in the background on "
             f"{rows[0]['workers'] if rows else '?'} worker; targets: median <= {PLAY_TARGETS['median_ms']:g} ms and "
             f"p90 <= {PLAY_TARGETS['p90_ms']:g} ms, ghosts median <= {PLAY_TARGETS['ghosts_median_ms']:g} ms",
             "",
             "| shown | creatures drawn | median ms | p90 ms | max ms | frames | generations arrived |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        shown = "newest champion + chart" if r["case"] == "champion" else "whole generation as ghosts + chart"
        lines.append(f"| {shown} | {r['creatures']} | {r['median_ms']:.1f} | {r['p90_ms']:.1f} | {r['max_ms']:.1f} | "
                     f"{r['frames']} | {r['generations']} |")
    return "\n".join(lines)


def ladder_design(pairs: int = 20) -> str:
    """A design of ``2 * pairs`` spheres (a ladder of braced squares, every rung's bottom rail a
    muscle): the editor's benchmark creature (40 spheres by default)."""
    lines = ["name: ladder", "description: the editor's benchmark design, a ladder of braced squares",
             "defaults:", "  sphere: {radius: 0.05, mass: 0.5, friction: 0.8}",
             "  muscle: {range: 0.2, strength: 150, speed: 2}", "spheres:"]
    for i in range(pairs):
        lines += [f"  - {{id: top_{i}, position: [{0.2 * i:.1f}, 0.5]}}",
                  f"  - {{id: low_{i}, position: [{0.2 * i:.1f}, 0.1]}}"]
    lines.append("bones:")
    for i in range(pairs):
        lines.append(f"  - {{id: rung_{i}, spheres: [top_{i}, low_{i}]}}")
        if i:
            lines += [f"  - {{id: rail_{i}, spheres: [top_{i - 1}, top_{i}]}}",
                      f"  - {{id: pull_{i}, spheres: [low_{i - 1}, low_{i}], muscle: true}}",
                      f"  - {{id: brace_{i}, spheres: [top_{i - 1}, low_{i}]}}"]
    return "\n".join(lines) + "\n"


def run_editor_bench(frames: int = FRAMES) -> list[dict]:
    """The editor's frame time on a 40-sphere design at 1280x720, offscreen: idle; a sphere
    being dragged (drawn where the mouse is, the file edited on release); and the worst case, a
    drag released every frame: each frame an edit of the file, checked by the loader (the live
    validity check)."""
    import tempfile
    from pathlib import Path
    os.environ.setdefault("ARCADE_HEADLESS", "1")
    from render.editor import measure_editor_frames

    from ..editing import DesignDocument
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "ladder.yaml"
        path.write_text(ladder_design())
        for drag in (False, "preview", True):
            doc = DesignDocument.open(str(path))
            m = measure_editor_frames(doc, size=SIZE, frames=frames, drag=drag)
            rows.append({"benchmark": "editor", "spheres": len(doc.sketch.sphere_id), "drag": drag,
                         "median_ms": m["median_ms"], "p90_ms": m["p90_ms"], "frames": m["frames"],
                         "renderer": m["renderer"]})
    return rows


def format_editor(rows: list[dict]) -> str:
    renderer = rows[0]["renderer"] if rows else "?"
    lines = [f"The editor (creatures edit) at {SIZE[0]}x{SIZE[1]}, offscreen ({renderer}); target under "
             f"{TARGET_MS:g} ms", "",
             "| design | what each frame does | median ms | p90 ms |", "|---|---|---|---|"]
    for r in rows:
        what = {False: "nothing (drawing only)",
                "preview": "a sphere being dragged (the file is edited on release)",
                True: "a drag released: an edit of the file, checked by the loader"}[r["drag"]]
        lines.append(f"| {r['spheres']} spheres | {what} | {r['median_ms']:.1f} | {r['p90_ms']:.1f} |")
    return "\n".join(lines)


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

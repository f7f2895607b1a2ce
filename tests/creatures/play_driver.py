"""Drive ``creatures play``'s real window as a player would, by its views' input handlers, and
take a screenshot of each screen: start screen -> pick the walker -> a small population, few
generations, a larger start noise -> start -> two generations -> the chart -> the generation's
ghosts -> save the champion -> save it as a card -> the hall of fame (a folder with two shipped
walkers, the card and the file) -> race the board's best and one's own champion -> back -> quit.

Run under a display (``xvfb-run -a python tests/creatures/play_driver.py OUT_DIR``): it writes
``OUT_DIR/play-start.png``, ``play-evolving.png``, ``play-ghosts.png``, ``play-hall.png`` and
``report.json``
(what it saw, for ``test_play.py`` to check). The README's screenshots are made by this very
script: ``xvfb-run -a .venv/bin/python tests/creatures/play_driver.py saves --work /tmp/play``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

SIZE = (1280, 720)
POPULATION = 20          # small, so that generations come fast
GENERATIONS = 4
TIMEOUT = 300.0          # seconds for the first two generations (a first run compiles kernels)


def _centre(rect):
    x, y, w, h = rect
    return x + w / 2, y + h / 2


def _click(view, rect) -> None:
    import arcade
    x, y = _centre(rect)
    view.on_mouse_press(x, y, arcade.MOUSE_BUTTON_LEFT, 0)
    view.on_mouse_release(x, y, arcade.MOUSE_BUTTON_LEFT, 0)


def _key(view, symbol) -> None:
    view.on_key_press(symbol, 0)
    view.on_key_release(symbol, 0)


def _screenshot(window, path: Path) -> None:
    import arcade
    window.on_draw()
    image = arcade.get_image(0, 0, *window.get_framebuffer_size())
    image.convert("RGB").save(path, optimize=True)


def script(game, out: Path, report: dict, population: int = POPULATION):
    """The player's steps; yields to let the window run frames in between."""
    import arcade
    k = arcade.key
    window = game.window
    start = game.start_view
    for _ in range(3):
        yield
    names = [d.name for d in game.menu.designs]
    report["designs"] = names
    _screenshot(window, out / "play-start.png")
    # pick the walker with the mouse
    _click(start, start.card_rect(names.index("walker")))
    yield
    report["selected"] = game.menu.designs[start.selected].name
    # a small population and few generations, by the buttons
    for _ in range(50):
        if start.setup.population <= population:
            break
        _click(start, start.button_rect("population<"))
        yield
    for _ in range(100):
        if start.setup.generations <= GENERATIONS:
            break
        _click(start, start.button_rect("generations<"))
        yield
    # the start noise one step down (1 cm -> 1 mm), by its button: the run is given it
    _click(start, start.button_rect("noise<"))
    yield
    report["setup"] = {"design": start.setup.design, "task": start.setup.task,
                       "population": start.setup.population, "generations": start.setup.generations,
                       "trials": start.setup.trials, "noise": start.setup.noise}
    _click(start, start.button_rect("start"))
    yield
    play = game.play_view
    report["started"] = play is not None and window.current_view is play
    session = game.session
    report["run_dir"] = session.run_dir
    t0 = time.perf_counter()
    while session.done < 2 or len(play.chart.progress.generation) < 2:
        if time.perf_counter() - t0 > TIMEOUT:
            report["error"] = f"no two generations after {TIMEOUT:.0f} s (state {session.state}: {session.message})"
            break
        yield
    for _ in range(40):     # the champion plays a moment
        yield
    report["generations_seen"] = int(session.done)
    report["chart_generations"] = [int(g) for g in play.chart.progress.generation]
    report["chart_best"] = [float(v) for v in play.chart.progress.best]
    report["mode_live"] = play.mode
    report["live_title"] = play.viewer.scene.title
    _screenshot(window, out / "play-evolving.png")
    # the whole generation as ghosts
    _key(play, k.G)
    for _ in range(45):
        yield
    scene = play.viewer.scene
    report["ghosts"] = {"mode": play.mode, "crowd": bool(getattr(scene, "crowd", False)),
                        "creatures": len(scene.creatures), "generation": play.shown,
                        "colours": sorted({tuple(c.color) for c in scene.creatures if c.color is not None}),
                        "hud": list(play.viewer.hud_lines)}
    _screenshot(window, out / "play-ghosts.png")
    # generation 1's champion, then generation 2's by a click on the chart, then a race
    _key(play, k.HOME)
    yield
    report["home"] = {"mode": play.mode, "shown": play.shown, "title": play.viewer.scene.title}
    x = float(play.chart.generation_x(2))
    y = play.chart.plot_box[1] + play.chart.plot_box[3] / 2
    play.on_mouse_press(x, y, arcade.MOUSE_BUTTON_LEFT, 0)
    play.on_mouse_release(x, y, arcade.MOUSE_BUTTON_LEFT, 0)
    yield
    report["clicked"] = {"mode": play.mode, "shown": play.shown, "title": play.viewer.scene.title}
    _key(play, k.V)
    for _ in range(10):
        yield
    report["race"] = {"mode": play.mode, "labels": [c.label for c in play.viewer.scene.creatures]}
    # save the newest champion (back to it first: E saves the champion shown)
    _key(play, k.END)
    yield
    _key(play, k.E)
    yield
    report["message"] = play.message
    report["saved"] = (play.message or "").removeprefix("saved ").split(" (")[0]
    # ... and as a card; then the hall of fame of this folder, where two shipped walkers lie too
    _key(play, k.K)
    yield
    report["card"] = (play.message or "").removeprefix("saved the card ")
    import shutil
    saves = Path(__file__).resolve().parents[2] / "saves"
    for name in ("walker-run.json", "walker-evolving-run.json"):
        shutil.copy(saves / name, name)
    _key(play, k.B)
    hall = game.hall_view
    report["hall_shown"] = window.current_view is hall
    for _ in range(200):
        yield
        if hall.board is not None:
            break
    board = hall.board
    report["board"] = None if board is None else {
        "challenge": board.challenge, "ranked": [(e.rank, e.file, e.score) for e in board.entries if e.rank],
        "refused": [(e.file, e.reason) for e in board.entries if not e.rank]}
    for _ in range(3):
        yield
    _screenshot(window, out / "play-hall.png")
    _key(hall, k.SPACE)             # the best, chosen; R races it and this run's champion
    _key(hall, k.R)
    for _ in range(10):
        yield
    report["hall_race"] = None if hall.viewer is None else [c.label for c in hall.viewer.scene.creatures]
    _key(hall, k.ESCAPE)
    yield
    _key(hall, k.ESCAPE)
    yield
    report["back_to_play"] = window.current_view is play
    _key(play, k.ESCAPE)
    yield


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", help="where the screenshots and report.json go")
    parser.add_argument("--work", default=None, help="the working directory (runs/ and the saved champion)")
    parser.add_argument("--population", type=int, default=POPULATION,
                        help=f"set on the start screen by its buttons (default {POPULATION}; the README's: 150)")
    args = parser.parse_args(argv)
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    work = Path(args.work or out).resolve()
    work.mkdir(parents=True, exist_ok=True)
    os.chdir(work)
    import arcade
    import pyglet

    from creatures.game import Game, PlayMenu
    report: dict = {}
    menu = PlayMenu(out_dir="runs")
    game = Game(menu, size=SIZE)
    steps = script(game, out, report, args.population)

    def tick(dt):
        try:
            next(steps)
        except StopIteration:
            pyglet.clock.unschedule(tick)
            if not game.window.closed:
                game.window.close()
        except Exception as exc:  # noqa: BLE001 - reported, and the window closed
            import traceback
            report["error"] = "".join(traceback.format_exception(exc))
            pyglet.clock.unschedule(tick)
            game.window.close()

    pyglet.clock.schedule_interval(tick, 1 / 30)
    try:
        arcade.run()
    finally:
        report["close"] = game.close()
        report["saved"] = str((work / report["saved"]).resolve()) if report.get("saved") else None
        (out / "report.json").write_text(json.dumps(report, indent=1))
    return 1 if "error" in report else 0


if __name__ == "__main__":
    sys.exit(main())

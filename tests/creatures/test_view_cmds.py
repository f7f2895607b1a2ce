"""``creatures watch``, ``preview`` and ``record`` with real champions: the viewer's HUD ends at
the recorded fitness, the recorder writes what was asked, and every refusal is one line."""

import os

os.environ.setdefault("ARCADE_HEADLESS", "1")  # before anything imports arcade: draw offscreen

import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
from PIL import Image  # noqa: E402

from creatures.sources import Preview, load_sources  # noqa: E402
from evolution.champion import load_champion  # noqa: E402

REPO = Path(__file__).parents[2]

SAVES = sorted((REPO / "saves").glob("*.json"))


@pytest.fixture(scope="module")
def window():
    import arcade
    try:
        return arcade.get_window()
    except RuntimeError:
        return arcade.Window(640, 360, "creatures tests", visible=False)


def _one_line(r):
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert "Traceback" not in r.stderr and r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    return lines[0]


@pytest.mark.parametrize("path", SAVES, ids=lambda p: p.stem)
def test_the_hud_of_a_watched_champion_ends_at_its_recorded_fitness(window, path):
    from render.viewer import Viewer
    source = load_sources([str(path)])
    viewer = Viewer(source, window=window, speed=16.0)
    while not viewer.frame.done:
        viewer.on_update(1 / 60)
    viewer.on_draw()
    champion = load_champion(path)
    now, recorded = viewer.hud_fitness[0]
    assert now == recorded == f"{champion.trial_fitness(0):.4f}"     # its first trial, as recorded
    assert viewer.frame.creatures[0].fitness == champion.trial_fitness(0)  # and to the last bit
    assert viewer.status == "DONE"


def test_a_preview_plays_in_the_viewer_and_shows_no_brain(window):
    from render.viewer import Viewer
    viewer = Viewer(Preview("worm"), window=window, show_brain=True)
    for _ in range(30):
        viewer.on_update(1 / 60)
    viewer.on_draw()
    assert viewer.frame.step == 30 and not viewer.frame.done


def _record(*args, env=None):
    return subprocess.run([sys.executable, "-m", "creatures", "record", *map(str, args)], cwd=REPO,
                          capture_output=True, text=True, timeout=300, env=env)


def test_record_writes_a_gif_of_the_requested_length_and_size(tmp_path):
    out = tmp_path / "walker.gif"
    r = _record(REPO / "saves/walker-run.json", "--out", out, "--seconds", 1, "--fps", 10,
                "--size", "320x180")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f"{out}: 10 frames, 1 s at 10 fps, 320x180")
    with Image.open(out) as gif:
        assert gif.size == (320, 180) and gif.n_frames == 10 and gif.info.get("loop") == 0


def test_record_of_a_race_with_the_brain_panel(tmp_path):
    out = tmp_path / "race.gif"
    path = REPO / "saves/walker-run.json"
    r = _record(path, path, "--out", out, "--seconds", 0.5, "--fps", 10, "--size", "640x360", "--brain")
    assert r.returncode == 0, r.stderr
    with Image.open(out) as gif:
        assert gif.n_frames == 5


def test_record_an_mp4(tmp_path):
    pytest.importorskip("imageio_ffmpeg")
    out = tmp_path / "walker.mp4"
    r = _record(REPO / "saves/hopper-jump.json", "--out", out, "--seconds", 0.5, "--fps", 20,
                "--size", "320x180")
    assert r.returncode == 0, r.stderr
    assert out.stat().st_size > 1000 and out.read_bytes()[4:8] == b"ftyp"


@pytest.mark.parametrize("args, message", [
    (["--out", "x.png"], "--out must end in .gif or .mp4, not 'x.png'"),
    (["--out", "x.gif", "--size", "big"], "--size must be WIDTHxHEIGHT in pixels, like 1280x720, not 'big'"),
    (["--out", "x.gif", "--seconds", "-1"], "--seconds must be a positive number of seconds, under an hour"),
    (["--out", "x.gif", "--fps", "0"], "--fps must be 1 to 120"),
    (["no-such.json", "--out", "x.gif"], "no-such.json: "),
    ([str(REPO / "saves/walker-run.json"), str(REPO / "saves/walker-climb.json"), "--out", "x.gif"],
     "a race needs one terrain"),
])
def test_record_refuses_bad_arguments_in_one_line(tmp_path, args, message):
    r = subprocess.run([sys.executable, "-m", "creatures", "record", *args], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300,
                       env={**os.environ, "PYTHONPATH": str(REPO)})
    assert message in _one_line(r)
    assert not list(tmp_path.iterdir())


def _without_display():
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "ARCADE_HEADLESS")}
    return env


@pytest.mark.parametrize("command", ["watch", "preview"])
def test_watch_and_preview_without_a_display_say_what_to_do(command):
    r = subprocess.run([sys.executable, "-m", "creatures", command], cwd=REPO, capture_output=True,
                       text=True, timeout=300, env=_without_display())
    line = _one_line(r)
    assert line.startswith(f"creatures {command}: no display to open a window on")


def test_watch_names_a_bad_file_in_one_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "creatures-champion", "version": 99}')
    r = subprocess.run([sys.executable, "-m", "creatures", "watch", str(bad)], cwd=REPO,
                       capture_output=True, text=True, timeout=300, env=_without_display())
    assert _one_line(r).startswith(f"creatures watch: {bad}: ")


def test_preview_of_a_broken_design_lists_its_problems(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nspheres: 3\n")
    r = subprocess.run([sys.executable, "-m", "creatures", "preview", str(bad)], cwd=REPO,
                       capture_output=True, text=True, timeout=300, env=_without_display())
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.startswith(f"{bad}:2:")


# --- generations of a run racing (bodies that evolve) ---------------------------------------------

def test_the_hud_of_a_race_of_generations_ends_at_each_recorded_fitness(window, evolved_run):
    """``creatures watch RUN_DIR --race 1,last``: the first generation's champion against the
    last one's, each with its own body, labelled with its generation."""
    from evolution.champion import champion_from_run
    from render.viewer import Viewer
    viewer = Viewer(load_sources([str(evolved_run)], generations=[1, "last"]), window=window, speed=16.0)
    while not viewer.frame.done:
        viewer.on_update(1 / 60)
    viewer.on_draw()
    assert [t.text for t in viewer.bodies.labels] == ["gen 1", "gen 4"]
    fitness = [champion_from_run(evolved_run, g).fitness for g in (1, 4)]
    assert viewer.hud_fitness == [(f"{f:.4f}", f"{f:.4f}") for f in fitness]
    assert [c.fitness for c in viewer.frame.creatures] == fitness
    assert viewer.hud_lines[0] == "walker - gen 1 vs gen 4 - run on flat"


def test_record_a_race_of_generations(tmp_path, evolved_run):
    out = tmp_path / "race.gif"
    r = _record(evolved_run, "--race", "1,last", "--out", out, "--seconds", 0.5, "--fps", 10,
                "--size", "320x180")
    assert r.returncode == 0, r.stderr
    with Image.open(out) as gif:
        assert gif.n_frames == 5


@pytest.mark.parametrize("args, message", [
    (["RUN", "--race", "1,first"], "--race takes generations of the run, like 1,last"),
    (["RUN", "--race", "1,9"], "has no generation 9 (it has 1 to 4)"),
    (["RUN", "--race", "1", "--follow"], "--follow and --race do not go together"),
    (["SAVE", "--race", "1"], "--race takes one run directory"),
    (["--race", "1"], "--race needs a run directory"),
])
def test_watch_race_refuses_what_it_cannot_race_in_one_line(evolved_run, args, message):
    where = {"RUN": str(evolved_run), "SAVE": str(REPO / "saves/walker-run.json")}
    r = subprocess.run([sys.executable, "-m", "creatures", "watch", *(where.get(a, a) for a in args)], cwd=REPO,
                       capture_output=True, text=True, timeout=300, env=_without_display())
    assert message in _one_line(r)


def test_viewer_bench_measures_every_case(window):
    from creatures.bench.viewer import CASES, format_viewer, run_viewer_bench
    rows = run_viewer_bench(frames=3)
    assert [(r["creatures"], r["panels"]) for r in rows] == list(CASES)
    assert all(r["median_ms"] > 0 and r["p90_ms"] >= r["median_ms"] for r in rows)
    table = format_viewer(rows)
    assert table.count("\n| 10 |") == 2


@pytest.mark.skipif(shutil.which("xvfb-run") is None, reason="needs Xvfb (.ci/system-packages installs it)")
def test_watch_opens_a_real_window_on_a_virtual_display_and_plays():
    """``watch`` on a display (Xvfb): the window opens, the loop runs and steps the champion."""
    code = ("from creatures.sources import load_sources\n"
            "from render.viewer import watch\n"
            "source = load_sources(['saves/walker-run.json'])\n"
            "watch(source, size=(320, 180), _frames=30)\n"
            "print('steps', source.frame().step)\n")
    env = {k: v for k, v in os.environ.items() if k != "ARCADE_HEADLESS"}
    r = subprocess.run(["xvfb-run", "-a", sys.executable, "-c", code], cwd=REPO, capture_output=True,
                       text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    assert int(r.stdout.split()[-1]) > 0

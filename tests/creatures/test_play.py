"""``creatures play``: the start screen's choices, a run evolving in a background process as the
evolution screen sees it (generations, chart numbers, ghosts, champions, saving, pausing and
stopping cleanly), a champion file's new run, and the real window driven under Xvfb."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from evolution.run import Run

import physics
from evolution.trials import DEFAULT_NOISE, DEFAULT_TRIALS

REPO = Path(__file__).parents[2]
needs_xvfb = pytest.mark.skipif(shutil.which("xvfb-run") is None,
                                reason="needs Xvfb (.ci/system-packages installs it)")


def _wait(session, done, timeout=240.0):
    t0 = time.perf_counter()
    while session.done < done:
        session.poll()
        assert session.state != "failed", session.message
        assert time.perf_counter() - t0 < timeout, f"no generation {done} after {timeout} s: {session.state}"
        time.sleep(0.1)


def _session(tmp_path, generations=3, population=16, seconds=2.0, seed=0):
    from creatures.design import resolve_design
    from creatures.session import PlaySession, start
    session = PlaySession(workers=1)
    out = tmp_path / "run"
    start(session, out, resolve_design("walker"), task="run", terrain=None, sensors=None, seconds=seconds,
          generations=generations, population=population, seed=seed, workers=0)
    return session


# --- the start screen's choices ---------------------------------------------------------------

def test_the_menu_lists_every_builtin_design_drawn_and_this_directorys_files(tmp_path, monkeypatch):
    from creatures.design import builtin_names
    from creatures.game import PlayMenu
    (tmp_path / "mine.yaml").write_text((REPO / "creatures/designs/worm.yaml").read_text())
    (tmp_path / "broken.yaml").write_text("name: broken\nspheres:\n  - {id: a, x: 0, y: 0, radius: -1}\n")
    (tmp_path / "course.yaml").write_text("points: [[0, 0], [5, 1]]\n")    # a terrain: not listed
    menu = PlayMenu(directory=str(tmp_path))
    names = [d.name for d in menu.designs]
    assert menu.designs[0].grow and names[1:len(builtin_names()) + 1] == builtin_names()   # grow from scratch first
    assert str(tmp_path / "mine.yaml") in names and str(tmp_path / "broken.yaml") in names
    assert not any(n.endswith("course.yaml") for n in names)
    walker = menu.designs[names.index("walker")]
    assert walker.problem is None and walker.description.startswith("The reference walker")
    assert walker.pose.shape == (len(walker.shape.radius), 2) and np.isfinite(walker.pose).all()
    broken = menu.designs[names.index(str(tmp_path / "broken.yaml"))]
    assert broken.shape is None and "broken.yaml:" in broken.problem and "\n" not in broken.problem
    by_name = {d.name: d for d in menu.designs}
    assert (by_name["eel"].task, by_name["bird"].task, by_name["walker"].task) == ("swim", "fly", "run")
    tasks = {t.name: t.description for t in menu.tasks}
    assert {"run", "jump", "climb", "obstacle", "swim", "fly"} <= set(tasks) and all(tasks.values())
    assert menu.terrains[0].name == "" and {"flat", "hills", "steps"} <= {t.name for t in menu.terrains}
    assert (menu.setup.population, menu.setup.generations, menu.setup.task) == (150, 50, "run")
    assert (menu.setup.trials, menu.setup.noise) == (DEFAULT_TRIALS, DEFAULT_NOISE)


def test_the_menu_opens_a_file_and_refuses_what_cannot_start(tmp_path, monkeypatch):
    from dataclasses import replace

    from creatures.game import PlayMenu
    from creatures.session import DEFAULT_SETUP
    from render.game import GameError
    monkeypatch.chdir(tmp_path)
    menu = PlayMenu(directory=str(tmp_path), out_dir=str(tmp_path / "runs"))
    with pytest.raises(GameError, match="no such file"):
        menu.open("nowhere.yaml")
    (tmp_path / "w.yaml").write_text((REPO / "creatures/designs/walker.yaml").read_text())
    assert menu.open(str(tmp_path / "w.yaml")).origin == "file"
    with pytest.raises(GameError, match="no built-in design"):
        menu.start(replace(DEFAULT_SETUP, design="nosuchthing"))
    with pytest.raises(GameError, match="task"):
        menu.start(replace(DEFAULT_SETUP, design="walker", task="nosuchtask"))
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


# --- a run in the background ------------------------------------------------------------------

def test_a_background_run_is_watched_generation_by_generation(tmp_path, monkeypatch, run_creatures):
    """Generations arrive with the chart's numbers; the ghosts are the population the run
    evaluates next, coloured by species, and each ends with the fitness evolution gives it; the
    champion shown is saved to a file that replays to its recorded fitness.

    Nothing here depends on how fast the run goes: the ghosts are looked at while it runs (a
    generation between the first and the one after the last, whichever it has reached), and
    checked exactly once it has finished, against the generation ``creatures resume`` then adds."""
    from creatures.charts import read_run, species_colour
    from creatures.session import Crowd
    from evolution.champion import load_champion
    monkeypatch.chdir(tmp_path)
    total = 3
    session = _session(tmp_path, generations=total)
    try:
        assert session.state == "evolving"
        _wait(session, 1)
        ghosts = session.ghosts()          # however far the run has gone by now
        assert isinstance(ghosts, Crowd) and 1 <= ghosts.generation <= total + 1
        t0 = time.perf_counter()
        while session.state == "evolving" and time.perf_counter() - t0 < 240:
            session.poll()
            time.sleep(0.1)
        assert session.state == "finished" and not session.running, session.message
        p = session.progress()
        run = read_run(session.run_dir)
        assert list(p.generation) == list(range(1, total + 1))
        assert np.array_equal(p.best, run.stats["best"]) and np.array_equal(p.median, run.stats["median"])
        assert (p.species_sizes.sum(axis=0) == 16).all()
        ghosts = session.ghosts()          # the population after the last generation
        g = ghosts.generation
        assert g == total + 1 and ghosts.scene.crowd and len(ghosts.scene.creatures) == 16
        assert f"generation {g} (bred after the run's last, not evaluated by it)" in ghosts.scene.title
        assert [s.color for s in ghosts.scene.creatures] == [
            tuple(int(round(255 * c)) for c in species_colour(s)) for s in ghosts.species]
        while not ghosts.frame().done:
            ghosts.step()
        fitness = ghosts.fitness()
        frame = ghosts.frame()
        assert frame.leader == int(np.argmax(fitness)) and len(frame.creatures) == 16
        result = run_creatures("resume", session.run_dir, "--generations", g, "--workers", 1)
        assert result.returncode == 0, result.stderr
        best = json.loads((Path(session.run_dir) / "best" / f"gen_{g:04d}.json").read_text())["fitness"]
        assert fitness.max() == best          # bit for bit: the same stepping code scored them
        last = json.loads((Path(session.run_dir) / "best" / f"gen_{total:04d}.json").read_text())["fitness"]
        champion = session.champion(total)
        assert champion.scene.creatures[0].label == f"gen {total}"
        path = session.save(total)
        assert path == f"walker-run-gen{total}.json" and session.save(total) == f"walker-run-gen{total}-2.json"
        saved = load_champion(tmp_path / path)
        assert saved.fitness == last and saved.replay() == last
    finally:
        session.close()


def test_pausing_and_closing_stop_cleanly_and_the_run_resumes_exactly(tmp_path, run_creatures):
    """A pause (SIGINT, Ctrl-C's signal) stops the background process; P goes on; closing
    stops it again; ``creatures resume`` then ends with the files an uninterrupted run writes."""
    session = _session(tmp_path, generations=1000, seconds=1.0)
    try:
        _wait(session, 1)
        session.pause()
        t0 = time.perf_counter()
        while session.state != "paused":
            session.poll()
            assert time.perf_counter() - t0 < 60, session.state
            time.sleep(0.05)
        assert not session.running and "paused after generation" in session.message
        stopped = session.done
        session.resume()
        assert session.running
        _wait(session, stopped + 1)
    finally:
        line = session.close()
    assert not session.running and "creatures resume" in line
    done = session.done
    r = run_creatures("resume", session.run_dir, "--generations", done + 1, "--workers", 1)
    assert r.returncode == 0, r.stderr
    r = run_creatures("evolve", "walker", "--population", 16, "--seconds", 1, "--generations", done + 1,
                      "--workers", 1, "--out", tmp_path / "straight")
    assert r.returncode == 0, r.stderr
    for name in [f"best/gen_{g:04d}.json" for g in range(1, done + 2)] + ["checkpoint.json", "species.csv"]:
        assert (Path(session.run_dir) / name).read_text() == (tmp_path / "straight" / name).read_text(), name


def test_a_champion_file_is_watched_and_evolved_further_in_a_new_run(tmp_path, monkeypatch):
    from creatures.session import PlaySession
    from evolution.champion import load_champion
    from evolution.run import RunSettings
    monkeypatch.chdir(tmp_path)
    champion = load_champion(REPO / "saves" / "eel-swim.json")
    session = PlaySession(workers=1, champion=champion, champion_path="eel-swim.json", out_dir=str(tmp_path / "runs"))
    assert session.state == "champion" and session.run_dir is None and session.ghosts() is None
    race = session.champion()
    assert race.scene.creatures[0].label == champion.name and race.scene.medium == "water"
    try:
        session.evolve()
        assert session.state == "evolving" and Path(session.run_dir).parent == tmp_path / "runs"
        settings = RunSettings.read(Path(session.run_dir) / "settings.json")
        assert (settings.task, settings.seconds, settings.seed) == ("swim", champion.seconds, champion.seed)
        # water, no ground: as the champion had; stepped by today's engine, whichever scored it
        assert settings.sim == {**champion.sim.to_dict(), "engine": physics.ENGINE_VERSION}
        assert settings.start_genome == champion.genome
        assert settings.parent == champion.hash()  # its lineage: evolved from this champion
        _wait(session, 1)
        # evolved *from* it: its first generation holds the champion itself, scored from that
        # generation's starts as every genome of it is (by today's engine)
        from evolution.trials import score, start_offsets, trial_seeds
        spec = settings.trial_spec
        offsets = start_offsets(trial_seeds(spec, settings.seed, 1), spec.noise, len(champion.body.spheres))
        fitness, failed = champion._score_from(offsets)
        there = float(score(fitness[None], failed[None], spec.statistic)[0][0])
        best = json.loads((Path(session.run_dir) / "best" / "gen_0001.json").read_text())
        assert best["fitness"] >= there
        assert session.progress().best[0] >= there
        from evolution.champion import champion_from_run
        assert champion_from_run(session.run_dir).parent == champion.hash()
    finally:
        session.close()


def test_a_champion_with_a_plugin_file_is_not_evolved_from_the_file(tmp_path):
    import dataclasses

    from creatures.session import PlaySession
    from evolution.champion import load_champion
    from evolution.plugins import PluginRef
    from render.game import GameError
    champion = load_champion(REPO / "saves" / "walker-run.json")
    champion = dataclasses.replace(champion, task=PluginRef("task", "flag.py:ReachFlag", "file", "/x/flag.py", "ab"))
    session = PlaySession(workers=1, champion=champion, out_dir=str(tmp_path))
    with pytest.raises(GameError, match="never runs code"):
        session.evolve()
    assert session.run_dir is None and not any(tmp_path.iterdir())


# --- the command ------------------------------------------------------------------------------

def test_without_a_display_it_says_so_in_one_line(run_creatures, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "ARCADE_HEADLESS")}
    r = subprocess.run([sys.executable, "-m", "creatures", "play"], cwd=tmp_path, env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and "xvfb-run" in r.stderr and "creatures evolve" in r.stderr
    assert "creatures record" in r.stderr and not (tmp_path / "runs").exists()


@pytest.mark.parametrize("args, words", [
    (["--population", "3"], "--population must be 10 to 1000"),
    (["--generations", "0"], "--generations must be 1"),
    (["--workers", "-1"], "--workers must be 1 or more"),
    (["--trials", "100"], "--trials must be a whole number from 1 to"),
    (["--noise", "1"], "--noise must be a number of metres from 0 to"),
    (["--size", "big"], "--size must be WIDTHxHEIGHT in pixels, like 1280x720"),
])
def test_bad_options_are_one_line(run_creatures, args, words):
    r = run_creatures("play", *args)
    assert r.returncode == 2 and words in r.stderr and r.stderr.count("\n") == 1


# --- the real window, under Xvfb ----------------------------------------------------------------

def _colour_share(image, rgb, tolerance=12) -> float:
    a = np.asarray(image.convert("RGB"), np.int16)
    return float((np.abs(a - np.array(rgb)).max(axis=2) <= tolerance).mean())


@needs_xvfb
def test_the_window_is_played_from_start_screen_to_a_saved_champion(tmp_path):
    """The real window under Xvfb, driven by its input handlers (tests/creatures/play_driver.py):
    pick the walker, start, two generations, the chart, the ghosts, save, quit."""
    from PIL import Image

    from creatures.charts import species_colour
    from evolution.champion import load_champion
    from render.chart import BEST
    from render.theme import SPHERE
    env = {k: v for k, v in os.environ.items() if k != "ARCADE_HEADLESS"}
    r = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1280x720x24", sys.executable,
                        str(REPO / "tests/creatures/play_driver.py"), str(tmp_path / "shots"),
                        "--work", str(tmp_path / "work")],
                       cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    report = json.loads((tmp_path / "shots" / "report.json").read_text())
    assert r.returncode == 0 and "error" not in report, (r.stderr[-3000:], report.get("error"))
    assert report["selected"] == "walker" and report["started"]
    assert report["setup"]["population"] <= 20 and report["setup"]["design"] == "walker"
    run_dir = tmp_path / "work" / report["run_dir"]
    assert (run_dir / "best" / "gen_0002.json").exists()
    settings = json.loads((run_dir / "settings.json").read_text())    # the start noise stepped by its button
    assert (report["setup"]["trials"], report["setup"]["noise"]) == (1, 0.001)
    assert (settings["trials"], settings["noise"]) == (1, 0.001)
    assert report["chart_generations"][:2] == [1, 2] and len(report["chart_best"]) >= 2
    ghosts = report["ghosts"]
    assert ghosts["mode"] == "ghosts" and ghosts["crowd"] and ghosts["creatures"] == report["setup"]["population"]
    assert report["home"]["mode"] == "generation" and report["home"]["shown"] == 1
    assert "gen 1" in report["home"]["title"]
    assert report["clicked"] == {"mode": "generation", "shown": 2, "title": report["clicked"]["title"]}
    assert "gen 2" in report["clicked"]["title"]
    assert report["race"]["mode"] == "race" and report["race"]["labels"] == ["gen 1", "gen 2"]
    saved = Path(report["saved"])
    champion = load_champion(saved)
    assert champion.replay() == champion.fitness
    # the card (K), the hall of fame (B): the folder's board for the sprint, a race, back
    card = load_champion(tmp_path / "work" / report["card"])
    assert report["card"].endswith(".png") and card.hash() == champion.hash()
    assert report["hall_shown"] and report["board"]["challenge"] == "sprint"
    ranked = report["board"]["ranked"]
    assert [Path(f).name for _, f, _ in ranked[:2]] == ["walker-evolving-run.json", "walker-run.json"]
    assert [r for r, _, _ in ranked] == list(range(1, len(ranked) + 1))
    mine = [Path(f).name for _, f, _ in ranked[2:]] + [Path(f).name for f, _ in report["board"]["refused"]]
    assert sorted(mine) == sorted([saved.name, Path(report["card"]).name])    # one ranked, the other the same champion
    evolving = load_champion(REPO / "saves" / "walker-evolving-run.json").name
    assert report["hall_race"] == [evolving, f"yours: {champion.name}"]
    assert report["back_to_play"]
    hall = Image.open(tmp_path / "shots" / "play-hall.png")
    assert len(hall.convert("RGB").getcolors(1 << 20) or ()) > 20
    # each screen has its content: not blank, the expected colours present
    start = Image.open(tmp_path / "shots" / "play-start.png")
    evolving = Image.open(tmp_path / "shots" / "play-evolving.png")
    crowd = Image.open(tmp_path / "shots" / "play-ghosts.png")
    for image in (start, evolving, crowd):
        assert image.size == (1280, 720)
        assert len(image.convert("RGB").getcolors(1 << 20) or ()) > 200     # not blank
    assert _colour_share(start, SPHERE) > 0.0005                            # creatures on the cards
    assert _colour_share(evolving, BEST[:3]) > 0.00005                      # the chart's best line
    colours = [tuple(c) for c in ghosts["colours"]]
    assert colours == sorted({tuple(int(round(255 * v)) for v in species_colour(s)) for s in range(0, 64)}
                             & set(colours))
    assert "stopped after generation" in report["close"] or "has its" in report["close"]


@pytest.fixture
def display():
    """A virtual display of our own (Xvfb), so that a Ctrl-C to the game's process group does
    not reach the display server."""
    if shutil.which("Xvfb") is None:
        pytest.skip("needs Xvfb (.ci/system-packages installs it)")
    read, write = os.pipe()
    xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x720x24", "-nolisten", "tcp"],
                            pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    os.close(write)
    number = b""
    with os.fdopen(read, "rb") as f:
        while not number.endswith(b"\n"):
            chunk = f.read(1)
            if not chunk:
                break
            number += chunk
    try:
        yield f":{number.decode().strip()}"
    finally:
        xvfb.terminate()
        xvfb.wait(10)


def test_ctrl_c_in_the_terminal_stops_the_window_and_its_run_cleanly(tmp_path, display, run_creatures):
    """``creatures play walker`` evolving; Ctrl-C (SIGINT to the terminal's process group: the
    window's process and its background run) stops both, says how to go on, and the run resumes."""
    env = {k: v for k, v in os.environ.items() if k != "ARCADE_HEADLESS"}
    env["DISPLAY"] = display
    p = subprocess.Popen([sys.executable, "-m", "creatures", "play", "walker", "--population", "16",
                          "--generations", "1000", "--size", "640x360"], cwd=tmp_path, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        t0 = time.perf_counter()
        while not list(tmp_path.glob("runs/*/best/gen_0001.json")):
            assert p.poll() is None, p.communicate()
            assert time.perf_counter() - t0 < 300, "no generation in 300 s"
            time.sleep(0.2)
        time.sleep(1.0)
        os.killpg(p.pid, signal.SIGINT)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    run_dir = next(tmp_path.glob("runs/*"))
    assert p.returncode in (0, 130), err
    assert "stopped after generation" in err and f"creatures resume {Path('runs') / run_dir.name}" in err
    assert "Traceback" not in err
    left = subprocess.run(["pgrep", "-f", f"creatures resume {Path('runs') / run_dir.name}"], capture_output=True)
    assert left.stdout == b""                        # no background run left evolving
    done = Run.open(run_dir).generations_done   # (its files written: evolution.run, Waiting)
    assert done >= 1 and len((run_dir / "stats.csv").read_text().splitlines()) >= done + 1
    r = run_creatures("resume", run_dir, "--generations", done + 1, "--workers", 1)
    assert r.returncode == 0, r.stderr
    assert (run_dir / "best" / f"gen_{done + 1:04d}.json").exists()


def test_a_stopped_run_opens_paused_and_goes_on(tmp_path):
    """``creatures play RUN_DIR``'s session: a stopped run opens paused, P goes on."""
    from creatures.session import PlaySession
    session = _session(tmp_path, generations=1000, seconds=1.0)
    _wait(session, 1)
    session.close()
    reopened = PlaySession(session.run_dir, workers=1)
    done = reopened.done
    assert reopened.state == "paused" and done >= 1 and reopened.total == 1000
    assert list(reopened.progress().generation) == list(range(1, done + 1))
    try:
        reopened.resume()
        assert reopened.running and reopened.state == "evolving"
        _wait(reopened, done + 2)
    finally:
        reopened.close()
    assert reopened.state == "paused" and not reopened.running


def test_a_finished_run_says_so_instead_of_going_on(tmp_path):
    from creatures.session import PlaySession
    session = _session(tmp_path, generations=2, seconds=1.0)
    _wait(session, 2)
    session.close()
    reopened = PlaySession(session.run_dir, workers=1)
    assert reopened.state == "finished"
    reopened.resume()
    assert not reopened.running and "finished its 2 generations" in reopened.message


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_killed_window_does_not_leave_its_run_evolving(tmp_path, run_creatures):
    """The window's process killed (kill -9: no cleanup at all): its background run gets a
    SIGINT, stops cleanly, and resumes."""
    script = tmp_path / "window.py"
    script.write_text(
        "import sys, time\n"
        "from pathlib import Path\n"
        "from creatures.design import resolve_design\n"
        "from creatures.session import PlaySession, start\n"
        "s = PlaySession(workers=1)\n"
        "start(s, Path(sys.argv[1]), resolve_design('walker'), task='run', terrain=None, sensors=None,\n"
        "      seconds=1.0, generations=1000, population=16, seed=0, workers=0)\n"
        "print(s.pid, flush=True)\n"
        "time.sleep(600)\n")
    run_dir = tmp_path / "run"
    window = subprocess.Popen([sys.executable, str(script), str(run_dir)], stdout=subprocess.PIPE, text=True)
    try:
        child = int(window.stdout.readline())
        t0 = time.perf_counter()
        while not (run_dir / "best" / "gen_0001.json").exists():
            assert time.perf_counter() - t0 < 300, "no generation in 300 s"
            time.sleep(0.1)
    finally:
        window.kill()
        window.wait()

    def alive(pid):
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return False
        return state != "Z"

    t0 = time.perf_counter()
    while alive(child):
        assert time.perf_counter() - t0 < 60, "the background run goes on without its window"
        time.sleep(0.1)
    done = json.loads((run_dir / "checkpoint.json").read_text())["generation"]
    r = run_creatures("resume", run_dir, "--generations", done + 1, "--workers", 1)
    assert r.returncode == 0, r.stderr

"""``creatures play`` and bodies that grow: *grow from scratch* (the sprout, growth on) and the
growth toggle reach the run (``RunSettings.grow``); a design that cannot grow is refused in one
line before a run is made; a growing run is watched as any other (each champion its grown body,
the generation as ghosts, each its own body, scored as evolution scores it)."""

import os

os.environ.setdefault("ARCADE_HEADLESS", "1")  # before anything imports arcade: draw offscreen

import json  # noqa: E402
import shutil  # noqa: E402
import time  # noqa: E402
from dataclasses import replace  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from creatures.design import resolve_design  # noqa: E402
from creatures.game import SCRATCH_DESIGN, PlayMenu, grow_limits  # noqa: E402
from creatures.session import DEFAULT_SETUP, Crowd, PlaySession  # noqa: E402
from evolution.growth import Growth, GrowSettings  # noqa: E402
from evolution.run import RunSettings  # noqa: E402
from render.game import GameError  # noqa: E402

REPO = Path(__file__).parents[2]
#: a growing run small enough for a test: 10 sprouts, 1 s episodes
SMALL = dict(population=10, seconds=1.0, workers=1)


def _finish(session, timeout=240.0):
    t0 = time.perf_counter()
    while session.state in ("starting", "evolving"):
        session.poll()
        assert time.perf_counter() - t0 < timeout, f"not finished after {timeout} s: {session.state}"
        time.sleep(0.1)
    assert session.state == "finished", session.message


@pytest.fixture(scope="module")
def grown_run(tmp_path_factory):
    """A finished run of 3 generations started from the start screen's *grow from scratch*
    (do not change it: copy it first)."""
    tmp = tmp_path_factory.mktemp("grown")
    menu = PlayMenu(directory=str(tmp), out_dir=str(tmp / "runs"))
    scratch = menu.designs[0]
    session = menu.start(replace(DEFAULT_SETUP, design=scratch.name, grow=scratch.grow, generations=3, **SMALL))
    try:
        _finish(session)
    finally:
        session.close()
    return Path(session.run_dir)


# --- the start screen's choices -----------------------------------------------------------------

def test_grow_from_scratch_is_the_first_card_and_the_sprout_growing(tmp_path):
    menu = PlayMenu(directory=str(tmp_path))
    first = menu.designs[0]
    assert (first.name, first.title, first.grow, first.problem) == (SCRATCH_DESIGN, "grow from scratch", True, None)
    assert len(first.shape.radius) == 2 and first.shape.muscle_bone.size == 1      # two spheres and a muscle
    assert not any(d.grow for d in menu.designs[1:])
    assert not menu.setup.grow and not DEFAULT_SETUP.grow                           # the toggle starts off


def test_grow_from_scratch_starts_a_run_that_grows_with_the_default_limits(grown_run):
    settings = RunSettings.read(grown_run / "settings.json")
    assert settings.design_name == "sprout" and settings.grow == {"graph": True, "plan_weight": 6.0}
    assert PlaySession(grown_run).title.startswith("sprout (growing) - ")


def test_a_design_bigger_than_the_default_limits_grows_within_its_own_size():
    """Every design that can grow does: the eel (13 spheres, 23 bones) is not refused for its
    size; one within the limits grows with them as they are."""
    eel = resolve_design("eel").body
    assert grow_limits(eel) == {"spheres": 13, "bones": 23, "graph": True, "plan_weight": 6.0}
    Growth(eel, GrowSettings.from_dict(grow_limits(eel)))
    with pytest.raises(ValueError, match="more than a grown body may have"):
        Growth(eel, GrowSettings())
    assert grow_limits(resolve_design("walker").body) == {"graph": True, "plan_weight": 6.0}


@pytest.mark.parametrize("design, reason", [
    ("spider", "a body with rigid clusters cannot grow"),
    (str(REPO / "examples/walker_groups.yaml"), "a body whose muscles share commands (groups, invert) cannot grow"),
])
def test_a_design_that_cannot_grow_is_refused_in_one_line_before_a_run_is_made(tmp_path, design, reason):
    menu = PlayMenu(directory=str(tmp_path), out_dir=str(tmp_path / "runs"))
    with pytest.raises(GameError) as refused:
        menu.start(replace(DEFAULT_SETUP, design=design, grow=True, **SMALL))
    assert reason in str(refused.value) and "\n" not in str(refused.value)
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


# --- watching a growing run ---------------------------------------------------------------------

def test_the_champion_of_a_growing_run_is_shown_with_its_grown_body(grown_run):
    session = PlaySession(grown_run, workers=1)
    for gen in (1, 3):
        champion = session.chosen_champion(gen)
        shape = session.champion(gen).scene.creatures[0]
        assert champion.grown is not None and len(shape.radius) == len(champion.body.spheres)
        assert len(shape.bone_a) == len(champion.body.bones)
        assert champion.replay() == champion.fitness


def test_a_growing_runs_ghosts_are_each_its_own_body_scored_as_evolution_scores_it(grown_run, tmp_path,
                                                                                  run_creatures):
    """The generation after the last, all at once: creatures of different shapes in batches of
    their own; each ends with the fitness evolution then gives it, bit for bit."""
    run_dir = tmp_path / "run"
    shutil.copytree(grown_run, run_dir)
    session = PlaySession(run_dir, workers=1)
    ghosts = session.ghosts()
    assert isinstance(ghosts, Crowd) and ghosts.generation == 4 and len(ghosts.scene.creatures) == 10
    spheres = [len(g.body_plan.spheres) for g in ghosts.genomes]
    assert [len(s.radius) for s in ghosts.scene.creatures] == spheres
    while not ghosts.frame().done:
        ghosts.step()
    fitness, frame = ghosts.fitness(), ghosts.frame()
    assert [len(c.pos) for c in frame.creatures] == spheres and frame.leader == int(np.argmax(fitness))
    assert ghosts.brain(0).nodes and ghosts.brain_values(0)
    result = run_creatures("resume", run_dir, "--generations", 4, "--workers", 1)
    assert result.returncode == 0, result.stderr
    best = json.loads((run_dir / "best" / "gen_0004.json").read_text())["fitness"]
    assert fitness.max() == best


def test_a_grown_champion_is_evolved_further_growing_as_its_run_did(grown_run, tmp_path):
    """E on a grown champion: a new run of its seed, growing with its run's settings, whose first
    generation starts from its genome, body plan and all (an exact copy among copies mutated
    once); the copy scores what the champion scores from that generation's starts."""
    from evolution.trials import score, start_offsets, trial_seeds
    champion = PlaySession(grown_run).chosen_champion(3)
    assert champion.grown is not None and champion.grown.settings is not None
    session = PlaySession(workers=1, champion=champion, out_dir=str(tmp_path / "runs"))
    try:
        session.evolve()
        assert session.state == "evolving"
        settings = RunSettings.read(Path(session.run_dir) / "settings.json")
        assert settings.grow == champion.grown.settings and settings.start_genome == champion.genome
        assert settings.design_text == champion.design_yaml and settings.parent == champion.hash()
        deadline = time.perf_counter() + 240.0
        while session.done < 1:
            session.poll()
            assert session.state != "failed", session.message
            assert time.perf_counter() < deadline
            time.sleep(0.1)
        spec = settings.trial_spec
        offsets = start_offsets(trial_seeds(spec, settings.seed, 1), spec.noise, champion.sphere_slots)
        fitness, failed = champion._score_from(offsets)
        there = float(score(fitness[None], failed[None], spec.statistic)[0][0])
        best = json.loads((Path(session.run_dir) / "best" / "gen_0001.json").read_text())
        assert best["fitness"] >= there
        assert best["body_history"][0][0] == 0 and len(best["body_history"]) >= 1
    finally:
        session.close()


# --- the window, offscreen ----------------------------------------------------------------------

def _window():
    import arcade
    try:
        return arcade.get_window()
    except RuntimeError:
        return arcade.Window(640, 360, "play grow", visible=False)


def test_the_start_screen_starts_a_growing_run_from_scratch_and_a_refusal_is_one_line(tmp_path):
    import arcade

    from render.menu import StartView
    window = _window()
    started = []
    menu = PlayMenu(directory=str(tmp_path), out_dir=str(tmp_path / "runs"))
    view = StartView(menu, started.append, window=window, on_quit=lambda: None)
    view.setup = replace(view.setup, generations=1, **SMALL)
    view.select([d.name for d in view.designs].index("spider"))
    view.on_key_press(arcade.key.W, 0)                   # growth on: the spider cannot
    view.on_key_press(arcade.key.ENTER, 0)
    assert started == [] and "a body with rigid clusters cannot grow" in view.message
    view.on_draw()                                       # the reason in the red box
    view.on_key_press(arcade.key.W, 0)                   # growth off again
    view.on_key_press(arcade.key.HOME, 0)                # grow from scratch: grows all the same
    assert view.item.grow and not view.setup.grow and view.growing
    view.on_key_press(arcade.key.ENTER, 0)
    try:
        assert len(started) == 1 and view.message is None
        session = started[0]
        assert RunSettings.read(Path(session.run_dir) / "settings.json").grow == {"graph": True, "plan_weight": 6.0}
        assert session.state == "evolving" and session.title.startswith("sprout (growing)")
    finally:
        for session in started:
            session.close()


def test_the_evolution_screen_shows_a_growing_runs_champion_and_ghosts(grown_run, tmp_path, monkeypatch):
    import arcade

    from render.play import PlayView
    monkeypatch.chdir(tmp_path)
    run_dir = tmp_path / "run"
    shutil.copytree(grown_run, run_dir)
    session = PlaySession(run_dir, workers=1)
    try:
        view = PlayView(session, window=_window(), on_quit=lambda: None)
        view.on_update(1 / 60)
        view.on_draw()
        champion = session.chosen_champion(3)
        assert view.shown == 3 and len(view.viewer.source.scene.creatures[0].radius) == len(champion.body.spheres)
        view.on_key_press(arcade.key.G, 0)
        assert view.mode == "ghosts" and view.viewer.source.scene.crowd and view.message is None
        for _ in range(3):
            view.on_update(1 / 60)
            view.on_draw()
        view.on_key_press(arcade.key.G, 0)                # back to the champion
        assert view.mode != "ghosts"
    finally:
        session.close()

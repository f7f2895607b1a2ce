"""Tasks set in a fluid: the media by name and by numbers (``physics.medium_settings``), the
settings of a task's episode (``evolution.task_sim``: a task's medium and ground), the swim and
fly tasks' fitness on hand-made motion, and runs in water from settings to a champion's replay.
"""

from __future__ import annotations

import dataclasses
import json
import math
import textwrap

import numpy as np
import pytest

import physics
from evolution import (Episode, EpisodeRun, PluginError, Run, RunSettings, Task, resolve, task_sim)
from evolution.champion import champion_from_run, load_champion, save_champion
from evolution.run import RunError
from evolution_helpers import bits, design, tiny_settings

COEFFICIENTS = ("fluid_density", "flow_x", "flow_y", "fluid_drag_sphere", "fluid_viscous_sphere",
                "fluid_drag_normal", "fluid_drag_tangent", "fluid_viscous_normal", "fluid_viscous_tangent")
DEFAULTS = {name: getattr(physics.SimParams, name) for name in COEFFICIENTS}


# --- media -------------------------------------------------------------------------------------

@pytest.mark.parametrize("spec, expected", [
    (None, {}),
    ("none", {}),
    ("water", {"fluid_density": 1000.0}),
    ("air", {"fluid_density": 1.2}),
    ("water,flow_x=0.5", {"fluid_density": 1000.0, "flow_x": 0.5}),
    (" water , flow_x = 0.5 ", {"fluid_density": 1000.0, "flow_x": 0.5}),
    ("air,flow_x=-3,flow_y=1", {"fluid_density": 1.2, "flow_x": -3.0, "flow_y": 1.0}),
    ("density=800,drag_normal=2", {"fluid_density": 800.0, "fluid_drag_normal": 2.0}),
    ("water,viscous_sphere=0.1,viscous_normal=3,viscous_tangent=1.5,drag_sphere=0.2,drag_tangent=0.1",
     {"fluid_density": 1000.0, "fluid_viscous_sphere": 0.1, "fluid_viscous_normal": 3.0,
      "fluid_viscous_tangent": 1.5, "fluid_drag_sphere": 0.2, "fluid_drag_tangent": 0.1}),
    ({"medium": "water", "flow_x": 0.5}, {"fluid_density": 1000.0, "flow_x": 0.5}),
    ({"density": 800}, {"fluid_density": 800.0}),
    ({"medium": "air", "density": 2}, {"fluid_density": 2.0}),      # a number wins over the name's
])
def test_medium_settings_are_every_fluid_setting_of_the_medium(spec, expected):
    settings = physics.medium_settings(spec)
    assert settings == {**DEFAULTS, **expected}
    assert all(type(v) is float for v in settings.values())
    physics.SimParams(**settings)            # and they make simulation settings


def test_the_named_media_and_the_short_keys_are_published():
    assert set(physics.MEDIA) == {"none", "water", "air"}
    assert physics.MEDIA["water"]["fluid_density"] == 1000.0 and physics.MEDIA["air"]["fluid_density"] == 1.2
    assert sorted(physics.MEDIUM_KEYS.values()) == sorted(COEFFICIENTS)
    for key, field in physics.MEDIUM_KEYS.items():
        assert physics.medium_settings(f"water,{key}=0.25")[field] == 0.25


@pytest.mark.parametrize("spec, message", [
    ("lava", "unknown medium 'lava' (choose from none, water, air"),
    ("Water", "unknown medium 'Water'"),
    ("", "an empty medium"),
    (" , ", "an empty medium"),
    ("flow_x=1", "a medium given by numbers needs its density"),
    ("water,air", "a name ('air') can only come first"),
    ("water,flow_x=fast", "flow_x must be a number, not 'fast'"),
    ("water,speed=3", "unknown medium setting 'speed' (choose from density, flow_x"),
    ("density=-5", "the medium's density must not be negative"),
    ("water,drag_normal=-1", "the medium's drag_normal must not be negative"),
    ("water,density=inf", "the medium's density must be a finite number"),
    ("water,flow_x=nan", "the medium's flow_x must be a finite number"),
    ({"density": True}, "the medium's density must be a finite number"),
    ({"density": "800"}, "the medium's density must be a finite number"),
    ({"medium": "water", "wind": 3}, "unknown medium setting 'wind'"),
    (3, "a medium is a name (none, water, air) or numbers"),
    (["water"], "a medium is a name"),
])
def test_a_bad_medium_is_one_line(spec, message):
    with pytest.raises(ValueError) as info:
        physics.medium_settings(spec)
    text = str(info.value)
    assert message in text
    assert "\n" not in text


def test_a_medium_name_that_is_not_text_is_one_line():
    """A plug-in task's medium = {'medium': ['water']} once raised TypeError ('unhashable type')."""
    with pytest.raises(ValueError, match="medium"):
        physics.medium_settings({"medium": ["water"]})


@pytest.mark.parametrize("spec, name", [
    ("none", "none"), ("water", "water"), ("air", "air"),
    ("water,flow_x=0.5", "water, flow 0.5 m/s"),
    ("air,flow_x=3,flow_y=4", "air, wind 5 m/s"),
    ("density=800", "fluid of 800 kg/m^3"),
    ("density=1000,flow_y=-0.2", "water, flow 0.2 m/s"),
    ("none,flow_x=2", "none"),                 # a flow of nothing is no medium
])
def test_medium_name_says_what_the_settings_are(spec, name):
    assert physics.medium_name(physics.SimParams(**physics.medium_settings(spec))) == name


def test_medium_name_of_the_default_settings_is_none():
    assert physics.medium_name(physics.SimParams()) == "none"


# --- the settings of a task's episode ----------------------------------------------------------

def test_a_run_without_a_medium_has_the_default_settings_exactly():
    """So that runs without a medium step (and are written) as they did before media."""
    sim = task_sim(resolve("task", "run").sample)
    assert sim == physics.SimParams()
    assert sim.to_dict() == physics.SimParams().to_dict()
    assert all(getattr(sim, n) == getattr(physics.SimParams(), n) for n in COEFFICIENTS)
    for name in ("jump", "climb", "obstacle"):
        assert task_sim(resolve("task", name).sample) == physics.SimParams()


def test_task_sim_keeps_the_other_settings_of_the_sim_it_is_given():
    given = physics.SimParams(dt=1 / 120, gravity=3.7, iterations=12)
    assert task_sim(resolve("task", "run").sample, given) == given
    swim = task_sim(resolve("task", "swim").sample, given)
    assert (swim.dt, swim.gravity, swim.iterations) == (1 / 120, 3.7, 12)
    assert swim.fluid_density == 1000.0 and swim.ground is False


def test_swim_is_in_water_with_no_ground():
    task = resolve("task", "swim").sample
    assert (task.medium, task.ground) == ("water", False)
    sim = task_sim(task)
    assert sim == physics.SimParams(ground=False, **physics.medium_settings("water"))
    assert physics.medium_name(sim) == "water"


def test_fly_is_in_air_over_the_ground():
    task = resolve("task", "fly").sample
    assert (task.medium, task.ground) == ("air", True)
    sim = task_sim(task)
    assert sim == physics.SimParams(**physics.medium_settings("air"))
    assert sim.ground is True and physics.medium_name(sim) == "air"


def test_a_medium_given_overrides_the_tasks_own():
    swim = resolve("task", "swim").sample
    sim = task_sim(swim, medium="water,flow_x=-0.5")
    assert (sim.fluid_density, sim.flow_x, sim.ground) == (1000.0, -0.5, False)   # still no ground
    dry = task_sim(swim, medium="none")
    assert dry.fluid_density == 0.0 and dry.ground is False
    run = task_sim(resolve("task", "run").sample, medium="air")
    assert run == physics.SimParams(**physics.medium_settings("air"))
    with pytest.raises(ValueError, match="unknown medium 'lava'"):
        task_sim(resolve("task", "run").sample, medium="lava")


def test_a_sim_without_ground_stays_without_ground_whatever_the_task():
    assert task_sim(resolve("task", "fly").sample, physics.SimParams(ground=False)).ground is False


def test_episode_make_of_swim_is_in_water_with_no_ground():
    episode = Episode.make(design("eel").body, "swim", seconds=0.5)
    assert episode.sim.fluid_density == 1000.0 and episode.sim.ground is False
    assert episode.task.name == "swim"
    run = EpisodeRun(episode, _Still(episode.n_outputs()), 1)
    assert not run.state.contact.any()


def test_episode_make_with_a_medium_and_a_sim():
    given = physics.SimParams(dt=1 / 120)
    episode = Episode.make(design("walker").body, "run", sim=given, medium="water")
    assert episode.sim == dataclasses.replace(given, **physics.medium_settings("water"))
    assert Episode.make(design("walker").body, "run").sim == physics.SimParams()
    assert Episode.make(design("walker").body, "run", sim=given).sim == given


LAVA = '''
import numpy as np
import evolution


class Lava(evolution.Task):
    """Wade through lava."""
    medium = "lava"

    def setup(self, ctx):
        self.f = np.zeros(ctx.batch)

    def fitness(self):
        return self.f


class Thick(Lava):
    """A fluid of its own, by numbers."""
    medium = {"density": 1500, "drag_normal": 2.0}


class GroundAsText(Lava):
    medium = "none"
    ground = "no"
'''


@pytest.fixture
def lava(tmp_path):
    path = tmp_path / "lava.py"
    path.write_text(textwrap.dedent(LAVA))
    return path


def test_a_task_in_an_unknown_medium_is_one_line_naming_it(lava):
    plugin = resolve("task", f"{lava}:Lava")
    with pytest.raises(ValueError) as info:
        Episode.make(design("walker").body, plugin)
    text = str(info.value)
    assert "\n" not in text
    assert f"{lava}:Lava" in text and "unknown medium 'lava'" in text
    with pytest.raises(ValueError) as info:
        task_sim(plugin.sample)
    assert str(info.value) == text


def test_a_task_in_an_unknown_medium_can_be_given_another(lava):
    episode = Episode.make(design("walker").body, resolve("task", f"{lava}:Lava"), medium="water")
    assert episode.sim.fluid_density == 1000.0


def test_a_task_may_name_its_medium_by_numbers(lava):
    sim = task_sim(resolve("task", f"{lava}:Thick").sample)
    assert (sim.fluid_density, sim.fluid_drag_normal, sim.ground) == (1500.0, 2.0, True)


def test_a_task_whose_ground_is_not_a_boolean_is_one_line(lava):
    with pytest.raises(ValueError) as info:
        task_sim(resolve("task", f"{lava}:GroundAsText").sample)
    assert "GroundAsText" in str(info.value) and "ground must be True or False" in str(info.value)


def test_a_run_of_a_task_in_an_unknown_medium_is_refused_before_anything_is_written(lava, tmp_path):
    with pytest.raises(ValueError, match="unknown medium 'lava'") as info:
        Run.create(tmp_path / "run", tiny_settings(task=f"{lava}:Lava"), design("walker").body)
    assert "\n" not in str(info.value)
    assert not (tmp_path / "run" / "settings.json").exists()


# --- fitness on hand-made motion ---------------------------------------------------------------

class _Still:
    """Brains that never move a muscle."""

    def __init__(self, outputs: int = 0):
        self.outputs = outputs

    def reset(self):
        pass

    def activate(self, inputs):
        return np.zeros((inputs.shape[0], self.outputs))


def _state(pos, model, contact=None):
    contact = np.zeros(pos.shape[:2], dtype=bool) if contact is None else np.asarray(contact, dtype=bool)
    return physics.State(np.ascontiguousarray(pos), np.zeros_like(pos), model.muscle_rest.copy(), contact)


def _episode_run(task, steps, batch, body=None):
    """An episode of ``steps`` steps of ``batch`` walkers, fed states by hand."""
    episode = Episode.make(body or physics.examples.walker(), task, seconds=steps * physics.SimParams.dt)
    assert episode.steps == steps
    return EpisodeRun(episode, _Still(), batch)


def test_fly_counts_only_the_second_half_while_airborne():
    """10 steps: the second half is steps 6 to 10 (5 of them). Creature 0 is lifted to 0.1 m
    at every step and airborne from step 5 on: it scores 0.1. Creature 1 rises step by step
    (0.1 m a step) and touches the ground at step 8: it scores (0.6 + 0.7 + 0.9 + 1.0) / 5.
    Creature 2 is lifted high in the first half only and touches the ground in the second:
    it scores 0."""
    steps, B = 10, 3
    run = _episode_run("fly", steps, B)
    model, start = run.model, run.state
    P = model.n_spheres
    expected_sum = np.zeros(B)
    for t in range(1, steps + 1):
        lift = np.array([0.1, 0.1 * t, 5.0 if t <= 5 else 0.0])
        contact = np.zeros((B, P), dtype=bool)
        contact[0] = t < 5
        contact[1, 0] = t == 8
        contact[2] = t > 5
        run.observe(_state(start.pos + np.stack([np.zeros(B), lift], axis=1)[:, None, :], model, contact))
        if t > steps // 2:
            expected_sum += np.where(contact.any(axis=1), 0.0, lift)
    assert not run.failed.any()
    fitness = run.fitness()
    np.testing.assert_allclose(fitness, expected_sum / 5, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(fitness, [0.1, (0.6 + 0.7 + 0.9 + 1.0) / 5, 0.0], rtol=1e-12, atol=1e-12)


def test_fly_scores_nothing_before_the_second_half():
    steps = 10
    run = _episode_run("fly", steps, 1)
    for t in range(1, steps // 2 + 1):
        run.observe(_state(run.start_state.pos + np.array([0.0, 3.0]), run.model))
        assert run.fitness()[0] == 0.0


def test_fly_counts_an_odd_number_of_steps_by_its_second_half():
    """7 steps: from_step is 3, the second half steps 4 to 7 (4 of them)."""
    steps = 7
    run = _episode_run("fly", steps, 1)
    for t in range(1, steps + 1):
        run.observe(_state(run.start_state.pos + np.array([0.0, 0.01 * t]), run.model))
    assert run.fitness()[0] == pytest.approx(0.01 * (4 + 5 + 6 + 7) / 4, rel=1e-12)


def test_fly_restarts_a_creature_from_nothing():
    steps = 6
    run = _episode_run("fly", steps, 2)
    for _ in range(steps):
        run.observe(_state(run.start_state.pos + np.array([0.0, 0.5]), run.model))
    assert run.fitness() == pytest.approx([0.5, 0.5])
    run.restart(np.array([True, False]))
    assert run.fitness() == pytest.approx([0.0, 0.5])


def test_a_walker_standing_still_on_the_ground_flies_nowhere():
    episode = Episode.make(design("walker").body, "fly", seconds=1.0)
    assert episode.sim.fluid_density == 1.2
    run = EpisodeRun(episode, _Still(episode.n_outputs()), 2)
    touching = []
    while not run.done:
        run.step()
        touching.append(run.state.contact.any(axis=1))
    assert np.all(touching)
    assert run.fitness().tolist() == [0.0, 0.0]


def test_a_stick_thrown_up_in_a_vacuum_flies_its_parabola():
    """The fly task without air (medium none): a rigid stick launched straight up at 6 m/s
    flies for 1.2 s; over a 0.5 s episode its score is the mean height of its parabola over the
    second half's steps (Verlet is exact for a constant acceleration)."""
    stick = physics.Body([physics.Sphere((0.0, 0.1)), physics.Sphere((0.5, 0.1))], [physics.Bone(0, 1)],
                         name="stick")
    episode = Episode.make(stick, "fly", seconds=0.5, medium="none")
    assert episode.sim.fluid_density == 0.0 and episode.sim.ground
    run = EpisodeRun(episode, _Still(0), 1)
    v0 = 6.0
    run.state = physics.initial_state(run.model, episode.sim, offset=(0.0, float(run.start_state.pos[0, 0, 1] - 0.1)),
                                      velocity=(0.0, v0))
    heights = []
    while not run.done:
        run.advance(np.zeros((1, 0)))
        assert not run.state.contact.any() or run.t == 1
        heights.append(float(run.centre_of_mass()[0, 1] - run.task.start[0, 1]))
    steps, dt, g = episode.steps, episode.sim.dt, episode.sim.gravity
    t = dt * np.arange(1, steps + 1)
    np.testing.assert_allclose(heights, v0 * t - g * t ** 2 / 2, rtol=1e-9, atol=1e-9)
    expected = np.mean((v0 * t - g * t ** 2 / 2)[steps // 2:])
    assert run.fitness()[0] == pytest.approx(expected, rel=1e-9)


def test_fly_far_counts_only_the_travel_of_airborne_steps():
    """6 steps, creatures moved to the right by hand 0.5 m a step. Creature 0 is airborne
    throughout: it scores 3.0. Creature 1 touches the ground at steps 2 and 5: those steps'
    travel does not count (2.0). Creature 2 is airborne but goes left: -3.0. Creature 3 stays on
    the ground: 0."""
    steps, B = 6, 4
    run = _episode_run("fly-far", steps, B)
    assert run.episode.sim.fluid_density == 1.2
    model, start = run.model, run.state
    P = model.n_spheres
    for t in range(1, steps + 1):
        shift = np.array([0.5, 0.5, -0.5, 0.5]) * t
        contact = np.zeros((B, P), dtype=bool)
        contact[1, 0] = t in (2, 5)
        contact[3] = True
        run.observe(_state(start.pos + np.stack([shift, np.full(B, 1.0)], axis=1)[:, None, :], model, contact))
    assert not run.failed.any()
    np.testing.assert_allclose(run.fitness(), [3.0, 2.0, -3.0, 0.0], rtol=1e-12, atol=1e-12)


def test_fly_far_restarts_a_creature_from_nothing():
    run = _episode_run("fly-far", 4, 2)
    for t in range(1, 5):
        run.observe(_state(run.start_state.pos + np.array([0.25 * t, 1.0]), run.model))
    assert run.fitness() == pytest.approx([1.0, 1.0])
    run.restart(np.array([True, False]))
    assert run.fitness() == pytest.approx([0.0, 1.0])


def test_a_stick_thrown_in_a_vacuum_flies_far_by_its_parabola():
    """fly-far without air: a rigid stick thrown at (3, 4) m/s from the ground flies 0.815 s;
    over a 0.5 s episode (never landing) it scores 3 m/s x 0.5 s, to rounding."""
    stick = physics.Body([physics.Sphere((0.0, 0.1)), physics.Sphere((0.5, 0.1))], [physics.Bone(0, 1)],
                         name="stick")
    episode = Episode.make(stick, "fly-far", seconds=0.5, medium="none")
    run = EpisodeRun(episode, _Still(0), 1)
    start = run.start_state.pos[0, 0]     # where the episode put the stick's first sphere
    run.state = physics.initial_state(run.model, episode.sim, offset=(float(start[0]), float(start[1] - 0.1)),
                                      velocity=(3.0, 4.0))
    while not run.done:
        run.advance(np.zeros((1, 0)))
    assert run.fitness()[0] == pytest.approx(3.0 * episode.steps * episode.sim.dt, rel=1e-9)


def test_swim_fitness_is_the_distance_to_the_right():
    steps, B = 4, 3
    run = _episode_run("swim", steps, B)
    assert run.episode.sim.ground is False
    shift = np.array([[0.7, 0.3], [-0.4, -2.0], [0.0, 5.0]])
    for t in range(1, steps + 1):
        run.observe(_state(run.start_state.pos + (shift * t / steps)[:, None, :], run.model))
    assert not run.failed.any()
    np.testing.assert_allclose(run.fitness(), shift[:, 0], rtol=1e-12, atol=1e-12)


def test_swim_and_run_score_the_same_motion_alike():
    steps, B = 3, 2
    swim, run = _episode_run("swim", steps, B), _episode_run("run", steps, B)
    for t in range(1, steps + 1):
        shift = np.array([[0.2 * t, 0.0], [-0.1 * t, 0.0]])[:, None, :]
        for r in (swim, run):
            r.observe(_state(r.start_state.pos + shift, r.model))
    assert np.array_equal(bits(swim.fitness()), bits(run.fitness()))


# --- runs in a medium --------------------------------------------------------------------------

def test_run_settings_refuse_a_bad_medium_in_one_line():
    for bad, message in (("lava", "the setting medium: unknown medium 'lava'"),
                         ("water,flow_x=fast", "flow_x must be a number"),
                         ("", "an empty medium"), (3, "the setting medium must be text or null")):
        with pytest.raises(ValueError) as info:
            tiny_settings(medium=bad)
        assert message in str(info.value) and "\n" not in str(info.value)


def test_a_run_in_a_medium_beyond_the_limits_is_refused_up_front(tmp_path):
    """Such a run was once written, and then could not be opened again (limits.check_sim
    refused its settings.json)."""
    with pytest.raises(ValueError, match="medium.*fluid_density"):
        Run.create(tmp_path / "run", tiny_settings(medium="water,density=1e300", generations=1),
                   design("walker").body)
    assert not (tmp_path / "run" / "settings.json").exists()


@pytest.fixture(scope="module")
def swim_run(tmp_path_factory):
    """A tiny run of the eel swimming (2 generations of 6, half a second each), evolved."""
    directory = tmp_path_factory.mktemp("swim") / "run"
    eel = design("eel")
    settings = tiny_settings(design_name=eel.name, design_text=eel.text, task="swim", generations=2,
                             population=6, seconds=0.5, seed=3)
    run = Run.create(directory, settings, eel.body, eel.genes)
    run.evolve()
    return directory, run


def test_a_swim_run_writes_its_water_into_settings(swim_run):
    directory, run = swim_run
    data = json.loads((directory / "settings.json").read_text())
    assert data["task"] == "swim" and data["medium"] is None
    assert data["sim"]["fluid_density"] == 1000.0 and data["sim"]["ground"] is False
    assert physics.SimParams.from_dict(data["sim"]) == run.episode.sim == task_sim(resolve("task", "swim").sample)


def test_a_swim_run_reopens_with_the_same_episode(swim_run):
    directory, run = swim_run
    again = Run.open(directory)
    assert again.episode.sim == run.episode.sim
    assert again.episode.sim.fluid_density == 1000.0 and not again.episode.sim.ground
    assert again.settings == run.settings


def test_a_swim_champion_replays_to_its_recorded_fitness_in_water(swim_run, tmp_path):
    directory, run = swim_run
    assert len(run.history) == 2 and all(math.isfinite(s.best) for s in run.history)
    path = tmp_path / "eel.json"
    save_champion(champion_from_run(directory), path)
    doc = json.loads(path.read_text())
    assert doc["physics"]["fluid_density"] == 1000.0 and doc["physics"]["ground"] is False
    champion = load_champion(path)
    assert champion.sim == run.episode.sim
    assert champion.replay() == champion.fitness
    assert champion.fitness == max(s.best for s in run.history)
    # and the same champion out of water does not score the same (the water matters)
    dry = dataclasses.replace(champion, sim=physics.SimParams(ground=False))
    dry._episode = None
    assert dry.replay() != champion.fitness


def test_a_run_with_a_medium_asked_for_records_it(tmp_path):
    settings = tiny_settings(task="run", medium="water,flow_x=0.25", generations=1)
    run = Run.create(tmp_path / "run", settings, design("walker").body)
    data = json.loads((tmp_path / "run" / "settings.json").read_text())
    assert data["medium"] == "water,flow_x=0.25"
    assert (data["sim"]["fluid_density"], data["sim"]["flow_x"], data["sim"]["ground"]) == (1000.0, 0.25, True)
    assert run.episode.sim == Run.open(tmp_path / "run").episode.sim


def test_a_run_without_a_medium_writes_the_sim_it_always_did(tmp_path):
    Run.create(tmp_path / "run", tiny_settings(generations=1), design("walker").body)
    data = json.loads((tmp_path / "run" / "settings.json").read_text())
    assert data["sim"] == physics.SimParams().to_dict()
    assert not any(name in data["sim"] for name in COEFFICIENTS)

"""The built-in tasks and their fitness, on hand-made motion: an episode is fed states made here
(``EpisodeRun.observe``), so each fitness is checked against what the creatures were made to do;
and the episode's failure rules, which hold whatever the task."""

import numpy as np
import pytest

import physics
from evolution import (WORST_FITNESS, Episode, EpisodeRun, PluginError, describe_fitness, resolve)
from evolution.tasks import BROKEN_STRAIN

B = 3
TASKS = ("run", "jump", "climb", "obstacle")
TERRAINS = ("flat", "hills", "steps", "hurdles", "slope")


class _Still:
    def reset(self):
        pass

    def activate(self, inputs):
        return np.zeros((inputs.shape[0], 0))


def _state(pos, model):
    return physics.State(np.ascontiguousarray(pos), np.zeros_like(pos), model.muscle_rest.copy(),
                         np.zeros(pos.shape[:2], dtype=bool))


class _Run:
    """An episode of B creatures standing at x = 0 on the task's terrain, fed states by hand."""

    def __init__(self, task, body=None, terrain=None, seed=0):
        self.episode = Episode.make(body or physics.examples.walker(), task, terrain=terrain, seed=seed)
        self.run = EpisodeRun(self.episode, _Still(), B)
        self.model, self.state = self.run.model, self.run.state
        self.terrain = self.run.terrain

    def update(self, state):
        self.run.observe(state)

    def fitness(self):
        return self.run.fitness()

    @property
    def start(self):
        return self.run.task.start


def _start(task, body=None):
    r = _Run(task, body)
    return r.model, r.state, r


def _moved(model, state, shift):
    """``state`` with creature b moved rigidly by ``shift[b]`` (a (B, 2) array)."""
    return _state(state.pos + np.asarray(shift, dtype=float)[:, None, :], model)


def _with_bone_scaled(model, state, bone, factor, creature=0):
    """``state`` with one creature's sphere ``bone_b`` moved so the bone is ``factor`` times
    its rest length (the other spheres stay)."""
    pos = state.pos.copy()
    a, b = model.bone_a[bone], model.bone_b[bone]
    pos[creature, b] = pos[creature, a] + factor * (pos[creature, b] - pos[creature, a])
    return _state(pos, model)


def _arm() -> physics.Body:
    """Three spheres in a row: a rigid bone 0-1, then a muscle 1-2. Moving sphere 1 along the
    bone strains only the bone and the muscle; moving sphere 2, only the muscle."""
    spheres = [physics.Sphere((x, 0.1), radius=0.05) for x in (0.0, 0.5, 1.0)]
    return physics.Body(spheres, [physics.Bone(0, 1), physics.Bone(1, 2, muscle=physics.Muscle())],
                        name="arm")


RIGID, MUSCLE = 0, 1  # the arm's bones


# --- fitness of known motion ---------------------------------------------------------------------

def test_run_fitness_is_the_com_displacement_to_the_right():
    model, state, ep = _start("run")
    shift = np.array([[1.5, 0.0], [-0.7, 0.2], [0.0, 0.0]])
    ep.update(_moved(model, state, shift / 2))
    ep.update(_moved(model, state, shift))
    np.testing.assert_allclose(ep.fitness(), shift[:, 0], atol=1e-12)


def test_run_fitness_is_where_the_creature_ends_not_its_furthest_point():
    model, state, ep = _start("run")
    ep.update(_moved(model, state, [[3.0, 0.0]] * B))
    ep.update(_moved(model, state, [[1.0, 0.0]] * B))
    np.testing.assert_allclose(ep.fitness(), 1.0, atol=1e-12)


def test_jump_fitness_is_the_highest_com_rise():
    model, state, ep = _start("jump")
    for rise in (0.1, 0.4, 0.25, 0.0):
        ep.update(_moved(model, state, [[0.3, rise], [0.0, rise / 2], [0.0, 0.0]]))
    np.testing.assert_allclose(ep.fitness(), [0.4, 0.2, 0.0], atol=1e-12)


def test_jump_fitness_ignores_sinking():
    model, state, ep = _start("jump")
    ep.update(_moved(model, state, [[0.0, -0.3]] * B))
    np.testing.assert_allclose(ep.fitness(), 0.0, atol=1e-12)


def test_climb_fitness_is_the_highest_terrain_under_the_com_plus_a_hundredth_of_the_distance():
    """Creature 0 goes over the third step (0.45 m) and back to x = 0.5; creature 1 stays."""
    model, state, ep = _start("climb")
    terrain = ep.terrain
    start_x = ep.start[:, 0].copy()
    for x in (2.5, 4.5, 0.5):
        shift = np.zeros((B, 2))
        shift[0] = (x - start_x[0], terrain.height(x) + 0.5)  # y does not matter for climb
        ep.update(_moved(model, state, shift))
    assert terrain.kind == "steps" and terrain.height(4.5) == pytest.approx(0.45)
    expected = [0.45 + 0.01 * (0.5 - start_x[0]), 0.0, 0.0]
    np.testing.assert_allclose(ep.fitness(), expected, atol=1e-12)


def test_obstacle_runs_on_a_course_of_hurdles():
    terrain = _Run("obstacle").terrain
    assert terrain.kind == "hurdles"
    assert terrain.height(0.0) == 0.0
    assert terrain.height(2.15) == pytest.approx(0.12)   # the top of the first hurdle
    assert terrain.height(4.65) == pytest.approx(0.12)   # the second, 2.5 m further
    assert terrain.height(3.0) == 0.0


def test_obstacle_fitness_is_the_com_displacement_to_the_right():
    model, state, ep = _start("obstacle")
    shift = np.array([[2.6, 0.2], [0.4, 0.0], [-1.0, 0.0]])
    ep.update(_moved(model, state, shift))
    np.testing.assert_allclose(ep.fitness(), shift[:, 0], atol=1e-12)


def test_a_creature_that_stays_put_scores_zero_at_every_task():
    for name in TASKS:
        model, state, ep = _start(name)
        ep.update(state)
        np.testing.assert_allclose(ep.fitness(), 0.0, atol=1e-12, err_msg=name)


def test_task_start_is_the_centre_of_mass():
    model, state, ep = _start("run")
    np.testing.assert_allclose(ep.start, physics.centre_of_mass(model, state), rtol=1e-15)


# --- failures ------------------------------------------------------------------------------------

@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_creature_gets_worst_fitness_and_is_flagged(bad):
    model, state, ep = _start("run")
    pos = state.pos.copy() + [1.0, 0.0]
    pos[1, 4, 0] = bad
    ep.update(_state(pos, model))
    assert ep.fitness()[1] == WORST_FITNESS
    assert ep.run.failed.tolist() == [False, True, False]
    assert ep.run.nonfinite.tolist() == [False, True, False]


def test_failure_of_one_creature_leaves_the_others_scored():
    model, state, ep = _start("run")
    pos = state.pos.copy() + [1.0, 0.0]
    pos[1] = np.nan
    ep.update(_state(pos, model))
    np.testing.assert_allclose(ep.fitness()[[0, 2]], 1.0, atol=1e-12)


@pytest.mark.parametrize("factor", [1.0 + 1.2 * BROKEN_STRAIN, 1.0 - 1.2 * BROKEN_STRAIN])
def test_rigid_bone_strained_beyond_broken_strain_fails_the_creature(factor):
    model, state, ep = _start("run", _arm())
    ep.update(_with_bone_scaled(model, state, RIGID, factor, creature=2))
    assert ep.run.failed.tolist() == [False, False, True]
    assert ep.run.nonfinite.tolist() == [False, False, False]
    assert ep.fitness()[2] == WORST_FITNESS


@pytest.mark.parametrize("factor", [1.0 + 0.8 * BROKEN_STRAIN, 1.0 - 0.8 * BROKEN_STRAIN])
def test_rigid_bone_strained_within_broken_strain_is_not_a_failure(factor):
    model, state, ep = _start("run", _arm())
    ep.update(_with_bone_scaled(model, state, RIGID, factor))
    assert not ep.run.failed.any()


def test_muscles_stretched_far_are_not_broken_bones():
    model, state, ep = _start("run", _arm())
    assert model.muscle_bone.tolist() == [MUSCLE]
    ep.update(_with_bone_scaled(model, state, MUSCLE, 1.0 + 3.0 * BROKEN_STRAIN))
    assert not ep.run.failed.any()


def test_failure_is_permanent():
    """A creature that failed keeps the worst fitness even if a later state looks fine."""
    model, state, ep = _start("run")
    pos = state.pos.copy()
    pos[0] = np.nan
    ep.update(_state(pos, model))
    ep.update(_moved(model, state, [[5.0, 0.0]] * B))
    assert ep.run.failed[0] and ep.run.nonfinite[0]
    assert ep.fitness()[0] == WORST_FITNESS
    np.testing.assert_allclose(ep.fitness()[1:], 5.0, atol=1e-12)


def test_worst_fitness_is_below_any_real_score():
    assert WORST_FITNESS <= -1000.0


# --- names ----------------------------------------------------------------------------------------

def test_unknown_task_is_refused():
    with pytest.raises(PluginError, match="unknown task 'swim'"):
        resolve("task", "swim")


def test_unknown_terrain_is_refused():
    with pytest.raises(PluginError, match="unknown terrain 'lava'"):
        Episode.make(physics.examples.walker(), "run", terrain="lava")


def test_a_misspelt_name_gets_a_suggestion():
    with pytest.raises(PluginError, match="did you mean 'jump'"):
        resolve("task", "jmup")


@pytest.mark.parametrize("name, terrain", [("run", "flat"), ("jump", "flat"), ("climb", "steps"),
                                           ("obstacle", "hurdles")])
def test_each_task_has_its_default_terrain(name, terrain):
    plugin = resolve("task", name)
    assert plugin.sample.default_terrain == terrain
    assert Episode.make(physics.examples.walker(), name).terrain.kind == terrain
    assert plugin.ref.source == "built-in"


@pytest.mark.parametrize("terrain", TERRAINS)
def test_every_terrain_is_made_for_every_task(terrain):
    for name in TASKS:
        assert Episode.make(physics.examples.walker(), name, terrain=terrain).terrain.kind == terrain


def test_hills_follow_the_seed():
    def hills(seed):
        return Episode.make(physics.examples.walker(), "run", terrain="hills", seed=seed).terrain
    assert np.array_equal(hills(1).ys, hills(1).ys)
    assert not np.array_equal(hills(1).ys, hills(2).ys)


def test_every_task_has_a_meaning_in_words():
    for name in TASKS:
        assert describe_fitness(name).startswith("fitness is ")
        assert resolve("task", name).sample.measures
        assert resolve("task", name).description

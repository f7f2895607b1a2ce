"""The built-in tasks and their fitness, on hand-made motion: an episode is fed states made here
(``EpisodeRun.observe``), so each fitness is checked against what the creatures were made to do;
and the episode's failure rules, which hold whatever the task."""

import numpy as np
import pytest

import physics
from evolution import (WORST_FITNESS, Episode, EpisodeRun, PluginError, describe_fitness, resolve)
from physics.integrity import PENETRATION_LIMIT, STRAIN_LIMIT

B = 3
TASKS = ("run", "jump", "climb", "obstacle")
TERRAINS = ("flat", "hills", "steps", "hurdles", "slope")


class _Still:
    def reset(self):
        pass

    def activate(self, inputs):
        return np.zeros((inputs.shape[0], 0))


def _state(pos, model, contact=None):
    """A state at ``pos``; no sphere touches the ground unless ``contact`` (B, P) says so."""
    contact = np.zeros(pos.shape[:2], dtype=bool) if contact is None else np.asarray(contact, dtype=bool)
    return physics.State(np.ascontiguousarray(pos), np.zeros_like(pos), model.muscle_rest.copy(), contact)


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


def _moved(model, state, shift, contact=None):
    """``state`` with creature b moved rigidly by ``shift[b]`` (a (B, 2) array)."""
    return _state(state.pos + np.asarray(shift, dtype=float)[:, None, :], model, contact)


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


def test_jump_fitness_is_the_highest_com_rise_while_airborne():
    model, state, ep = _start("jump")
    for rise in (0.1, 0.4, 0.25, 0.0):
        ep.update(_moved(model, state, [[0.3, rise], [0.0, rise / 2], [0.0, 0.0]]))
    np.testing.assert_allclose(ep.fitness(), [0.4, 0.2, 0.0], atol=1e-12)


def test_jump_fitness_ignores_any_height_reached_touching_the_ground():
    """Creature 0 rises 0.6 m with one foot on the ground (standing tall, or a one-step spike of
    the solver), then 0.2 m in the air; creature 1 rises 0.5 m touching only."""
    model, state, ep = _start("jump")
    P = model.n_spheres
    foot = np.zeros((B, P), dtype=bool)
    foot[:, 5] = True
    ep.update(_moved(model, state, [[0.0, 0.6], [0.0, 0.5], [0.0, 0.0]], contact=foot))
    ep.update(_moved(model, state, [[0.0, 0.2], [0.0, 0.0], [0.0, 0.0]], contact=foot & [[False], [True], [True]]))
    np.testing.assert_allclose(ep.fitness(), [0.2, 0.0, 0.0], atol=1e-12)


def test_jump_fitness_ignores_sinking():
    model, state, ep = _start("jump")
    ep.update(_moved(model, state, [[0.0, -0.01]] * B))
    np.testing.assert_allclose(ep.fitness(), 0.0, atol=1e-12)


#: the walker's feet (the lower leg spheres), 0.9 m apart
FEET = (5, 7)


def _on(x_com, start_x, feet=FEET, terrain=physics.Terrain.steps()):
    """The shift that puts a walker's centre of mass over ``x_com``, high enough that no sphere
    is inside the steps, and contact flags for ``feet``: which spheres touch the ground."""
    contact = np.zeros(8, dtype=bool)
    contact[list(feet)] = True
    dx = x_com - start_x
    return (dx, terrain.height(np.linspace(dx - 1.0, dx + 1.0, 201)).max()), contact


def test_climb_fitness_is_the_highest_ground_stood_on_plus_a_hundredth_of_the_distance():
    """On the steps (0.15 m each, from x = 2, 1 m deep). Creature 0 stands with both feet on the
    third step (0.45 m) and walks back to x = 0.5. Creature 1 lunges: its centre of mass over the
    third step with only its back foot down, on the second (0.30 m). Creature 2 flies over the
    fourth step touching nothing."""
    model, state, ep = _start("climb")
    terrain = ep.terrain
    start_x = ep.start[:, 0].copy()
    assert terrain.kind == "steps" and terrain.height(4.5) == pytest.approx(0.45)
    moves = [[_on(2.5, start_x[0]), _on(3.9, start_x[1], feet=(5,)), _on(5.5, start_x[2], feet=())],
             [_on(4.5, start_x[0]), _on(3.9, start_x[1], feet=(5,)), _on(5.5, start_x[2], feet=())],
             [_on(0.5, start_x[0]), _on(0.0, start_x[1]), _on(0.0, start_x[2])]]
    for move in moves:
        shift = np.array([m[0] for m in move])
        contact = np.array([m[1] for m in move])
        ep.update(_moved(model, state, shift, contact))
    assert terrain.height(3.9 - 0.45) == pytest.approx(0.30)   # creature 1's back foot
    expected = [0.45 + 0.01 * (0.5 - start_x[0]), 0.30, 0.0]
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


@pytest.mark.parametrize("factor", [1.0 + 1.2 * STRAIN_LIMIT, 1.0 - 1.2 * STRAIN_LIMIT])
def test_rigid_bone_strained_beyond_the_limit_fails_the_creature(factor):
    model, state, ep = _start("run", _arm())
    ep.update(_with_bone_scaled(model, state, RIGID, factor, creature=2))
    assert ep.run.failed.tolist() == [False, False, True]
    assert ep.run.nonfinite.tolist() == [False, False, False]
    assert ep.fitness()[2] == WORST_FITNESS


@pytest.mark.parametrize("factor", [1.0 + 0.8 * STRAIN_LIMIT, 1.0 - 0.8 * STRAIN_LIMIT])
def test_rigid_bone_strained_within_the_limit_is_not_a_failure(factor):
    model, state, ep = _start("run", _arm())
    ep.update(_with_bone_scaled(model, state, RIGID, factor))
    assert not ep.run.failed.any()


def test_muscles_stretched_far_are_not_broken_bones():
    model, state, ep = _start("run", _arm())
    assert model.muscle_bone.tolist() == [MUSCLE]
    ep.update(_with_bone_scaled(model, state, MUSCLE, 1.5))
    assert not ep.run.failed.any()


@pytest.mark.parametrize("depth, fails", [(1.2 * PENETRATION_LIMIT, True), (0.8 * PENETRATION_LIMIT, False)])
def test_a_sphere_deep_in_the_ground_fails_the_creature(depth, fails):
    """Creature 1's middle sphere sunk ``depth`` of its radius into the ground (on its own, so
    no bone is strained: the arm's muscle takes it)."""
    model, state, ep = _start("run", _arm())
    pos = state.pos.copy()
    pos[1, 2, 1] = model.radius[1, 2] * (1.0 - depth)
    ep.update(_state(pos, model))
    assert ep.run.failed.tolist() == [False, fails, False]


def test_a_hinge_forced_past_its_limit_fails_the_creature():
    """The walker has no hinges; a three-sphere elbow limited to [60, 120] degrees bent to 123
    (3 degrees, 0.05 rad past: within OVERSHOOT_LIMIT, 0.1 rad) and to 130 (0.17 rad past)
    fails only beyond it."""
    elbow = physics.Body([physics.Sphere((-0.5, 1.0)), physics.Sphere((0.0, 1.0)), physics.Sphere((0.0, 1.5))],
                         [physics.Bone(1, 0), physics.Bone(1, 2)],
                         [physics.Joint(c=1, a=0, b=2, min_angle=np.radians(-120.0), max_angle=np.radians(-60.0))])
    model, state, ep = _start("run", elbow)
    pos = state.pos.copy()
    for b, degrees in ((1, -123.0), (2, -130.0)):   # u = (-1, 0): the angle of sphere 2 is pi + theta
        phi = np.pi + np.radians(degrees)
        pos[b, 2] = pos[b, 1] + 0.5 * np.array([np.cos(phi), np.sin(phi)])
    ep.update(_state(pos, model))
    assert ep.run.failed.tolist() == [False, False, True]


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
    """A creature that went backwards at 10 m/s (faster than any creature runs) for a whole
    episode still scores above WORST_FITNESS on every task (measured -200 at worst, on run and
    obstacle): failing is always worse than any motion."""
    for task in TASKS:
        r = _Run(task)
        r.update(_moved(r.model, r.state, [[-10.0 * r.episode.seconds, 0.0]] * B))
        assert not r.run.failed.any() and np.all(r.fitness() > WORST_FITNESS), task


# --- names ----------------------------------------------------------------------------------------

def test_unknown_task_is_refused():
    with pytest.raises(PluginError, match="unknown task 'dance'"):
        resolve("task", "dance")


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

"""Tasks and their fitness, on hand-made motion: a Tracker is driven with states made here, so
each fitness is checked against what the creatures were made to do."""

import numpy as np
import pytest

import physics
from evolution import TASKS, WORST_FITNESS, Task, describe_fitness
from evolution.run import RunSettings
from evolution.tasks import BROKEN_STRAIN, TERRAINS, Tracker, make_task_terrain

B = 3


def _state(pos, model):
    return physics.State(np.ascontiguousarray(pos), np.zeros_like(pos), model.muscle_rest.copy(),
                         np.zeros(pos.shape[:2], dtype=bool))


def _start(task, body=None):
    """A batch of B creatures standing at x = 0 on the task's terrain, and a Tracker of them."""
    model = physics.build_model(body or physics.examples.walker(), B)
    terrain = task.make_terrain()
    state = physics.initial_state(model, physics.SimParams(),
                                  offset=physics.standing_offset(model, terrain))
    return model, state, Tracker(task, model, state, terrain)


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
    model, state, tracker = _start(Task("run"))
    shift = np.array([[1.5, 0.0], [-0.7, 0.2], [0.0, 0.0]])
    tracker.update(_moved(model, state, shift / 2))
    tracker.update(_moved(model, state, shift))
    np.testing.assert_allclose(tracker.fitness(), shift[:, 0], atol=1e-12)


def test_run_fitness_is_where_the_creature_ends_not_its_furthest_point():
    model, state, tracker = _start(Task("run"))
    tracker.update(_moved(model, state, [[3.0, 0.0]] * B))
    tracker.update(_moved(model, state, [[1.0, 0.0]] * B))
    np.testing.assert_allclose(tracker.fitness(), 1.0, atol=1e-12)


def test_jump_fitness_is_the_highest_com_rise():
    model, state, tracker = _start(Task("jump"))
    for rise in (0.1, 0.4, 0.25, 0.0):
        tracker.update(_moved(model, state, [[0.3, rise], [0.0, rise / 2], [0.0, 0.0]]))
    np.testing.assert_allclose(tracker.fitness(), [0.4, 0.2, 0.0], atol=1e-12)


def test_jump_fitness_ignores_sinking():
    model, state, tracker = _start(Task("jump"))
    tracker.update(_moved(model, state, [[0.0, -0.3]] * B))
    np.testing.assert_allclose(tracker.fitness(), 0.0, atol=1e-12)


def test_climb_fitness_is_the_highest_terrain_under_the_com_plus_a_hundredth_of_the_distance():
    """Creature 0 goes over the third step (0.45 m) and back to x = 0.5; creature 1 stays."""
    task = Task("climb")
    model, state, tracker = _start(task)
    terrain = task.make_terrain()
    start_x = tracker.start[:, 0].copy()
    for x in (2.5, 4.5, 0.5):
        shift = np.zeros((B, 2))
        shift[0] = (x - start_x[0], terrain.height(x) + 0.5)  # y does not matter for climb
        tracker.update(_moved(model, state, shift))
    assert terrain.kind == "steps" and terrain.height(4.5) == pytest.approx(0.45)
    expected = [0.45 + 0.01 * (0.5 - start_x[0]), 0.0, 0.0]
    np.testing.assert_allclose(tracker.fitness(), expected, atol=1e-12)


def test_obstacle_runs_on_a_course_of_hurdles():
    terrain = Task("obstacle").make_terrain()
    assert terrain.kind == "hurdles"
    assert terrain.height(0.0) == 0.0
    assert terrain.height(2.15) == pytest.approx(0.12)   # the top of the first hurdle
    assert terrain.height(4.65) == pytest.approx(0.12)   # the second, 2.5 m further
    assert terrain.height(3.0) == 0.0


def test_obstacle_fitness_is_the_com_displacement_to_the_right():
    model, state, tracker = _start(Task("obstacle"))
    shift = np.array([[2.6, 0.2], [0.4, 0.0], [-1.0, 0.0]])
    tracker.update(_moved(model, state, shift))
    np.testing.assert_allclose(tracker.fitness(), shift[:, 0], atol=1e-12)


def test_a_creature_that_stays_put_scores_zero_at_every_task():
    for name in TASKS:
        model, state, tracker = _start(Task(name))
        tracker.update(state)
        np.testing.assert_allclose(tracker.fitness(), 0.0, atol=1e-12, err_msg=name)


def test_tracker_start_is_the_centre_of_mass():
    model, state, tracker = _start(Task("run"))
    np.testing.assert_allclose(tracker.start, physics.centre_of_mass(model, state), rtol=1e-15)


# --- failures ------------------------------------------------------------------------------------

@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_creature_gets_worst_fitness_and_is_flagged(bad):
    model, state, tracker = _start(Task("run"))
    pos = state.pos.copy() + [1.0, 0.0]
    pos[1, 4, 0] = bad
    tracker.update(_state(pos, model))
    assert tracker.fitness()[1] == WORST_FITNESS
    assert tracker.failed.tolist() == [False, True, False]
    assert tracker.nonfinite.tolist() == [False, True, False]


def test_failure_of_one_creature_leaves_the_others_scored():
    model, state, tracker = _start(Task("run"))
    pos = state.pos.copy() + [1.0, 0.0]
    pos[1] = np.nan
    tracker.update(_state(pos, model))
    np.testing.assert_allclose(tracker.fitness()[[0, 2]], 1.0, atol=1e-12)


@pytest.mark.parametrize("factor", [1.0 + 1.2 * BROKEN_STRAIN, 1.0 - 1.2 * BROKEN_STRAIN])
def test_rigid_bone_strained_beyond_broken_strain_fails_the_creature(factor):
    model, state, tracker = _start(Task("run"), _arm())
    tracker.update(_with_bone_scaled(model, state, RIGID, factor, creature=2))
    assert tracker.failed.tolist() == [False, False, True]
    assert tracker.nonfinite.tolist() == [False, False, False]
    assert tracker.fitness()[2] == WORST_FITNESS


@pytest.mark.parametrize("factor", [1.0 + 0.8 * BROKEN_STRAIN, 1.0 - 0.8 * BROKEN_STRAIN])
def test_rigid_bone_strained_within_broken_strain_is_not_a_failure(factor):
    model, state, tracker = _start(Task("run"), _arm())
    tracker.update(_with_bone_scaled(model, state, RIGID, factor))
    assert not tracker.failed.any()


def test_muscles_stretched_far_are_not_broken_bones():
    model, state, tracker = _start(Task("run"), _arm())
    assert model.muscle_bone.tolist() == [MUSCLE]
    tracker.update(_with_bone_scaled(model, state, MUSCLE, 1.0 + 3.0 * BROKEN_STRAIN))
    assert not tracker.failed.any()


def test_failure_is_permanent():
    """A creature that failed keeps the worst fitness even if a later state looks fine."""
    model, state, tracker = _start(Task("run"))
    pos = state.pos.copy()
    pos[0] = np.nan
    tracker.update(_state(pos, model))
    tracker.update(_moved(model, state, [[5.0, 0.0]] * B))
    assert tracker.failed[0] and tracker.nonfinite[0]
    assert tracker.fitness()[0] == WORST_FITNESS
    np.testing.assert_allclose(tracker.fitness()[1:], 5.0, atol=1e-12)


def test_worst_fitness_is_below_any_real_score():
    assert WORST_FITNESS <= -1000.0


# --- names -----------------------------------------------------------------------------------------

def test_unknown_task_is_refused():
    with pytest.raises(ValueError, match="unknown task 'swim'"):
        Task("swim")


def test_unknown_terrain_is_refused():
    with pytest.raises(ValueError, match="unknown terrain 'lava'"):
        Task("run", "lava")


def test_unknown_terrain_kind_is_refused_by_make_task_terrain():
    with pytest.raises(ValueError, match="lava"):
        make_task_terrain("lava")


def test_unknown_task_is_refused_by_run_settings():
    with pytest.raises(ValueError, match="unknown task 'swim'"):
        RunSettings("walker", "", task="swim")


@pytest.mark.parametrize("name, terrain", [("run", "flat"), ("jump", "flat"), ("climb", "steps"),
                                           ("obstacle", "hurdles")])
def test_each_task_has_its_default_terrain(name, terrain):
    task = Task(name)
    assert task.terrain_kind == terrain
    assert task.make_terrain().kind == terrain
    assert task.to_dict() == {"name": name, "terrain": terrain, "seed": 0}


@pytest.mark.parametrize("terrain", TERRAINS)
def test_every_terrain_is_made_for_every_task(terrain):
    for name in TASKS:
        assert Task(name, terrain).make_terrain().kind == terrain


def test_hills_follow_the_task_seed():
    a, b = Task("run", "hills", seed=1).make_terrain(), Task("run", "hills", seed=2).make_terrain()
    assert np.array_equal(a.ys, Task("run", "hills", seed=1).make_terrain().ys)
    assert not np.array_equal(a.ys, b.ys)


def test_every_task_has_a_meaning_in_words():
    for name in TASKS:
        assert describe_fitness(name)

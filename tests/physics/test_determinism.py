"""Determinism: the same inputs give bit-identical states whatever the number of threads and
whichever creatures share the batch; and a fixed scenario ends in a stored state (Box2D's
test/test_determinism.c)."""

import hashlib

import numba
import numpy as np
import pytest

import physics
from physics import Terrain
from physics_helpers import BODIES, bang_bang, run

PARAMS = physics.SimParams()  # arena collisions off: creatures do not meet
HILLS = Terrain.hills(seed=3)
STEPS = 240


def _walk(body, commands, params=PARAMS):
    """``commands`` (T, B, M) for a batch of ``body`` 1 m into the hills; the final state."""
    model = physics.build_model(body, commands.shape[1])
    state = physics.initial_state(model, params, offset=(1.0, 0.05))
    return run(model, state, commands, params, HILLS)


def test_thread_count_does_not_change_the_result(numba_threads):
    """130 walkers on one thread (stepped as one chunk of 136 lanes) and on two (two chunks of
    72 lanes: 72 creatures and 58): bit-identical states."""
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("numba has a single thread on this machine")
    commands = bang_bang(np.random.default_rng(7), STEPS, 130, 6)
    numba_threads(1)
    one = _walk(physics.examples.walker(), commands)
    numba_threads(2)
    two = _walk(physics.examples.walker(), commands)
    assert np.array_equal(one.pos, two.pos) and np.array_equal(one.vel, two.vel)


#: settings a run may choose besides the default: several sweeps a substep (the chunk solved
#: again when any of its creatures lifted a foot, which with a second sweep changed its
#: neighbours' muscles until the re-solve started from what they had pulled before it), one
#: substep, a fluid
SETTINGS = {"default": PARAMS, "3 sweeps": physics.SimParams(iterations=3),
            "1 substep of 4 sweeps": physics.SimParams(substeps=1, iterations=4),
            "water": physics.SimParams(fluid_density=1000.0)}


@pytest.mark.parametrize("name", ["walker", "cluster walker"])
@pytest.mark.parametrize("index", [37, 70, 99])
@pytest.mark.parametrize("settings", list(SETTINGS))
def test_creature_does_not_depend_on_its_batch_mates(name, index, settings, numba_threads):
    """A creature alone (B = 1) and the same creature with the same commands at ``index`` of a
    batch of 100 whose others get other commands: bit-identical final states. On two threads the
    batch is two chunks of 56 lanes, so index 37 is lane 37 of the first chunk and 70 lane 14 of
    the second (on one thread, one chunk of 104); 99, the last, is stepped in its chunk's last
    lanes too, copies of it up to a whole eight (physics.hot.whole_eights)."""
    numba_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    body, params = BODIES[name](), SETTINGS[settings]
    muscles = physics.build_model(body).n_muscles
    mine = bang_bang(np.random.default_rng(1), STEPS, 1, muscles)
    alone = _walk(body, mine, params)
    batch = bang_bang(np.random.default_rng(100 + index), STEPS, 100, muscles)
    batch[:, index] = mine[:, 0]
    shared = _walk(body, batch, params)
    assert np.array_equal(shared.pos[index], alone.pos[0]) and np.array_equal(shared.vel[index], alone.vel[0])
    assert not np.array_equal(shared.pos[index - 1], alone.pos[0])  # the neighbours did differ


#: sha256 of the final pos and vel bytes of the scenario below. It changes only when the solver
#: changes on purpose: then rerun the scenario and paste the new value here, in the same commit.
#: The scenario keeps clear of libm (no joints or clusters, whose kernels call atan2, sin and cos;
#: straight-edged terrain; integer commands; the skeleton's solve is +, *, / and sqrt), so that
#: IEEE 754 arithmetic gives every machine the same bits.
#: Engine version 4 (muscles as springs and dashpots, physics/bones.py; the skeleton solved
#: exactly, contacts once a step or, on the steps' corners, once a substep, 3 substeps): the
#: state differs from versions 1-3's on purpose.
STATE_HASH = "9a775cf49dd4ffe080f410ac0e888b7d1be63df8e9769410060bd7d08d81d481"


def test_fixed_scenario_ends_in_the_stored_state():
    """Three walkers at the foot of the steps, bang-bang commands from integer arithmetic,
    300 steps: the hash of the final state equals STATE_HASH."""
    T, B, M = 300, 3, 6
    t, b, m = np.meshgrid(np.arange(T) // 2, np.arange(B), np.arange(M), indexing="ij")
    commands = np.where((t * 7 + b * 5 + m * 3) % 4 < 2, 1.0, -1.0)
    model = physics.build_model(physics.examples.walker(), B)
    state = physics.initial_state(model, PARAMS, offset=np.array([[0.5, 0.0], [1.5, 0.0], [2.5, 0.2]]))
    state = run(model, state, commands, PARAMS, Terrain.steps())
    digest = hashlib.sha256(state.pos.tobytes() + state.vel.tobytes()).hexdigest()
    assert digest == STATE_HASH


@pytest.mark.parametrize("settings", ["default", "3 sweeps"])
def test_creatures_alike_solve_their_lifted_feet_again_to_the_same_bits(settings, numba_threads):
    """A batch of creatures with the same arrays solves the creatures whose feet the skeleton
    lifted again on their own, in a chunk's twin (physics/step.py, _solve_lifting_again); one
    creature made different (its last muscle a little stronger) makes the whole chunk solve
    again, every substep something lifts. Same commands: the first 80 creatures (one chunk on
    one thread, wide enough for the twin: physics.step.TWIN_LANES) end in the same bits either
    way, and some of them did lift feet (they walked on the hills with their own bang-bang
    commands, so nearly every substep some creature lifts a foot)."""
    from physics.hot import creatures_alike
    from physics.step import TWIN_LANES

    numba_threads(1)
    params = SETTINGS[settings]
    body = physics.examples.walker()
    B = 80
    assert B >= TWIN_LANES
    commands = bang_bang(np.random.default_rng(5), STEPS, B + 1, 6)
    alike = physics.build_model(body, B)
    strength = np.full((B + 1, 6), alike.muscle_strength[0])
    strength[B, 5] *= 1.01
    other = physics.build_model(body, B + 1).with_values(muscle_strength=strength)
    assert creatures_alike(alike) and not creatures_alike(other)
    ends = []
    for model, cmds in ((alike, commands[:, :B]), (other, commands)):
        state = physics.initial_state(model, params, offset=(1.0, 0.05))
        ends.append(run(model, state, np.ascontiguousarray(cmds), params, HILLS))
    assert np.array_equal(ends[0].pos, ends[1].pos[:B]) and np.array_equal(ends[0].vel, ends[1].vel[:B])
    assert np.ptp(ends[0].pos[:, :, 0].mean(axis=1)) > 0.1   # they went their own ways

"""physics.rollout: open-loop commands run in one kernel call, bit for bit as calling
physics.step once per step (positions, velocities, muscle lengths, contacts, time, frames)."""

import numba
import numpy as np
import pytest

import physics
from physics import Terrain
from physics_helpers import BODIES, bang_bang, run

PARAMS = physics.SimParams()
STEPS = 37  # odd: the kernel's last step lands in the second half of its buffers


def _same(a: physics.State, b: physics.State) -> bool:
    return (np.array_equal(a.pos, b.pos) and np.array_equal(a.vel, b.vel)
            and np.array_equal(a.muscle_len, b.muscle_len) and np.array_equal(a.contact, b.contact)
            and a.time == b.time)


@pytest.mark.parametrize("name", sorted(BODIES))
@pytest.mark.parametrize("batch, steps", [(1, STEPS), (40, STEPS + 1), (300, 12)])
def test_rollout_in_one_call_is_stepping_one_call_at_a_time(name, batch, steps):
    """On the hills, random full-strength commands: the same final state and the same frames
    every 5 steps, for one creature, a batch in one chunk and one in several chunks."""
    body = BODIES[name]()
    model = physics.build_model(body, batch)
    state = physics.initial_state(model, PARAMS, offset=(1.0, 0.05))
    commands = bang_bang(np.random.default_rng(batch), steps, batch, model.n_muscles)
    terrain = Terrain.hills(seed=3)
    frames_by_step = [state.pos]
    by_step = run(model, state, commands, PARAMS, terrain,
                  each=lambda s: frames_by_step.append(s.pos))
    by_kernel, frames = physics.rollout(model, state, commands, PARAMS, terrain, every=5)
    assert _same(by_step, by_kernel)
    np.testing.assert_array_equal(frames, np.stack(frames_by_step[::5]))
    assert frames.shape == (steps // 5 + 1, batch, model.n_spheres, 2)


@pytest.mark.parametrize("name", sorted(BODIES))
@pytest.mark.parametrize("settings", ["default", "water", "self-collision"])
def test_the_steps_compiled_for_one_creature_and_one_block_give_a_batchs_bits(name, settings):
    """A batch of one is stepped by the step compiled for one creature (its lane loops count to
    a constant 1), a batch of 2 to 8 by the step compiled for one block of lanes (a constant 8),
    a batch of more by the other: a creature alone, among 4 others and among 10 others with
    other commands, on the hills, ends on the same bits, every stage's way (joints, clusters,
    self-collisions, a fluid)."""
    body = BODIES[name]()
    params = {"default": PARAMS, "water": physics.SimParams(fluid_density=1000.0),
              "self-collision": PARAMS}[settings]
    if settings == "self-collision":
        body.self_collision = True
    terrain = Terrain.hills(seed=3)
    muscles = physics.build_model(body).n_muscles
    mine = bang_bang(np.random.default_rng(5), 60, 1, muscles)
    ends = []
    for batch in (1, 5, 11):
        others = bang_bang(np.random.default_rng(6), 60, batch, muscles)
        others[:, batch // 2] = mine[:, 0]
        model = physics.build_model(body, batch)
        end = physics.rollout(model, physics.initial_state(model, params, offset=(1.0, 0.05)), others, params,
                              terrain)
        ends.append((end.pos[batch // 2], end.vel[batch // 2], end.contact[batch // 2]))
        assert muscles == 0 or batch == 1 or not np.array_equal(end.pos[0], end.pos[batch // 2])   # (others differ)
    for got in ends[1:]:
        assert all(np.array_equal(a, b) for a, b in zip(ends[0], got))


def test_rollout_is_the_same_on_one_thread_and_two(numba_threads):
    """Chunks run through all their steps in parallel, without meeting between steps: still the
    same result as one thread."""
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("numba has a single thread on this machine")
    model = physics.build_model(physics.examples.walker(), 200)
    state = physics.initial_state(model, PARAMS)
    commands = bang_bang(np.random.default_rng(3), 30, 200, model.n_muscles)
    numba_threads(1)
    one = physics.rollout(model, state, commands, PARAMS)
    numba_threads(2)
    two = physics.rollout(model, state, commands, PARAMS, parallel=True)
    assert _same(one, two)


def test_rollout_leaves_its_input_state_alone_and_handles_no_steps():
    model = physics.build_model(physics.examples.walker(), 3)
    state = physics.initial_state(model, PARAMS)
    before = state.pos.copy()
    physics.rollout(model, state, np.ones((4, 3, model.n_muscles)), PARAMS)
    np.testing.assert_array_equal(state.pos, before)
    same, frames = physics.rollout(model, state, np.zeros((0, 3, model.n_muscles)), PARAMS, every=2)
    assert same is state and frames.shape == (1, 3, model.n_spheres, 2)


def test_rollout_refuses_commands_of_the_wrong_shape():
    model = physics.build_model(physics.examples.walker(), 3)
    state = physics.initial_state(model, PARAMS)
    with pytest.raises(ValueError, match="commands must have shape"):
        physics.rollout(model, state, np.zeros((5, 2, model.n_muscles)), PARAMS)


def test_a_shared_arena_is_still_stepped_one_call_at_a_time():
    """Creatures that meet couple the chunks every step: rollout steps them one call at a time,
    which is what stepping does."""
    params = physics.SimParams(arena_collision=True)
    model = physics.build_model(physics.examples.walker(), 4)
    state = physics.initial_state(model, params)
    commands = bang_bang(np.random.default_rng(5), 20, 4, model.n_muscles)
    assert _same(run(model, state, commands, params), physics.rollout(model, state, commands, params))


def test_read_only_inputs_step_like_writable_ones_without_a_compile_of_their_own():
    """A read-only array is a numba type of its own, and arrays come read-only out of Ray's
    object store (an unpickled terrain, state or params) and from ``np.broadcast_to``: stepping
    with them copies them instead of compiling the whole step again (a minute and a half)."""
    import sys
    kernels = sys.modules["physics.step"]
    model = physics.build_model(physics.examples.walker(), 2)
    state = physics.initial_state(model, PARAMS)
    cmd = np.full((2, model.n_muscles), 0.5)
    terrain = Terrain.hills(seed=1)
    ref = physics.step(model, state, cmd, PARAMS, terrain, parallel=False)
    known = len(kernels._rollout_serial.signatures)
    frozen = [a.copy() for a in (state.pos, state.vel, state.muscle_len, cmd)]
    read_only = Terrain.hills(seed=1)
    for a in (*frozen, read_only.table, read_only.blocks):
        a.flags.writeable = False
    frozen_state = physics.State(*frozen[:3], state.contact, state.time)
    out = physics.step(model, frozen_state, frozen[3], PARAMS, read_only, parallel=False)
    rolled = physics.rollout(model, frozen_state, np.broadcast_to(cmd, (3, 2, model.n_muscles)), PARAMS,
                             read_only, parallel=False)
    assert len(kernels._rollout_serial.signatures) == known
    assert _same(out, ref)
    assert np.all(np.isfinite(rolled.pos))

"""Internal forces create no momentum: in free space (no gravity, no ground) nothing a creature
does with its muscles, bones, joints, clusters or self-collisions can move its centre of mass off
a straight line, and (up to the discretisation of position-based dynamics) it cannot spin itself
up either. This is what rules out seed 003's "fly by flexing" exploit."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import physics
from physics_helpers import (BODIES, FREE_SPACE, angular_momentum, angular_scale, bang_bang, momentum,
                             rotation_velocities)

BATCH = 4
STEPS = 120  # 2 s

#: |change of centre-of-mass velocity| / the largest initial sphere speed. Measured: at most 6e-13
#: (round-off); a real leak of momentum is orders of magnitude larger.
MOMENTUM_RTOL = 1e-9

#: |change of angular momentum about the centre of mass| / max over the run of sum m |r| |v|, over
#: one second. Corrections move spheres along the start-of-substep directions (physics/bones.py),
#: which conserves it exactly; the only drift left is the final skeleton sweep's, along current
#: directions. Measured on 32 creatures, passive / flexing at random every step: walker 0.05 % /
#: 0.2 %, hinge arm 0.3 % / 1.8 %, cluster walker 0.05 % / 1.5 %, chain 1e-13 / 6e-14 (before the
#: change: up to 113 % flexing, a hinged arm spinning itself up to 170 deg/s).
ANGULAR_RTOL = 0.03

drifts = st.tuples(st.floats(-3.0, 3.0), st.floats(-3.0, 3.0))


def _tumbling(name, seed, drift):
    """BATCH creatures in free space, every sphere with its own random velocity (1 m/s) on top of
    a common ``drift``; returns the model, the state and the generator to draw commands from."""
    model = physics.build_model(BODIES[name](), BATCH)
    rng = np.random.default_rng(seed)
    v = rng.normal(scale=1.0, size=model.rest_pos.shape) + np.asarray(drift)
    return model, physics.initial_state(model, FREE_SPACE, velocity=v), rng


@pytest.mark.parametrize("name", list(BODIES))
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), hold=st.sampled_from([1, 2]), drift=drifts)
def test_muscles_cannot_change_centre_of_mass_velocity_in_free_space(name, seed, hold, drift):
    """Random sign commands, new every one or two steps, leave the centre-of-mass velocity of a
    tumbling creature as it was, to round-off."""
    model, state, rng = _tumbling(name, seed, drift)
    v0 = physics.com_velocity(model, state)
    scale = np.linalg.norm(state.vel, axis=-1).max()
    worst = 0.0
    for cmd in bang_bang(rng, STEPS, BATCH, model.n_muscles, hold):
        state = physics.step(model, state, cmd, FREE_SPACE)
        worst = max(worst, np.abs(physics.com_velocity(model, state) - v0).max())
    assert worst <= MOMENTUM_RTOL * scale, f"centre-of-mass velocity changed by {worst:.3e} m/s"


@pytest.mark.parametrize("name", list(BODIES))
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), hold=st.sampled_from([1, 2]), drift=drifts)
def test_centre_of_mass_moves_in_a_straight_line_in_free_space(name, seed, hold, drift):
    """Under random commands the centre of mass stays on the line c0 + V0 t at every step."""
    model, state, rng = _tumbling(name, seed, drift)
    c0 = physics.centre_of_mass(model, state)
    v0 = physics.com_velocity(model, state)
    scale = np.linalg.norm(state.vel, axis=-1).max()
    worst = 0.0
    for n, cmd in enumerate(bang_bang(rng, STEPS, BATCH, model.n_muscles, hold), 1):
        state = physics.step(model, state, cmd, FREE_SPACE)
        line = c0 + v0 * n * FREE_SPACE.dt
        worst = max(worst, np.abs(physics.centre_of_mass(model, state) - line).max())
    travel = scale * STEPS * FREE_SPACE.dt
    assert worst <= MOMENTUM_RTOL * max(travel, 1.0), f"centre of mass left its line by {worst:.3e} m"


def _angular_drift(name, commands):
    """32 creatures tumbling in free space (spinning at up to 1 rad/s, their spheres jostled by
    0.3 m/s, drifting at up to 2 m/s) for one second, flexing at random (new signs every step)
    or not: the largest |L(t) - L(0)| / max_t sum m |r| |v| of each, shape (32,)."""
    B, T = 32, 60
    model = physics.build_model(BODIES[name](), B)
    rng = np.random.default_rng(11)
    v = (rotation_velocities(model, rng.uniform(-1.0, 1.0, B))
         + rng.normal(scale=0.3, size=model.rest_pos.shape) + rng.uniform(-2.0, 2.0, (B, 1, 2)))
    state = physics.initial_state(model, FREE_SPACE, velocity=v)
    cmds = bang_bang(rng, T, B, model.n_muscles, hold=1) if commands else np.zeros((T, B, model.n_muscles))
    l0 = angular_momentum(model, state)
    err = np.zeros(B)
    scale = angular_scale(model, state)
    for cmd in cmds:
        state = physics.step(model, state, cmd, FREE_SPACE)
        err = np.maximum(err, np.abs(angular_momentum(model, state) - l0))
        scale = np.maximum(scale, angular_scale(model, state))
    return err / scale


@pytest.mark.parametrize("name", list(BODIES))
def test_tumbling_body_keeps_its_angular_momentum(name):
    """A passive creature tumbling in free space keeps its angular momentum about its centre of
    mass within ANGULAR_RTOL."""
    drift = _angular_drift(name, commands=False)
    assert drift.max() <= ANGULAR_RTOL, f"angular momentum drifted by {drift.max():.1%} of its scale"


@pytest.mark.parametrize("name", list(BODIES))
def test_muscles_cannot_change_angular_momentum_in_free_space(name):
    """The same tumbling creatures flexing at random (new signs every step) keep their angular
    momentum within ANGULAR_RTOL too: internal forces may turn a body (a falling cat does) but
    cannot set it spinning or stop it."""
    drift = _angular_drift(name, commands=True)
    assert drift.max() <= ANGULAR_RTOL, (
        f"flexing changed the angular momentum by {drift.max():.1%} of its scale "
        f"(median over 32 creatures {np.median(drift):.1%})")


@pytest.mark.parametrize("name", list(BODIES))
def test_masses_set_creature_by_creature_keep_momentum(name):
    """Masses drawn per creature and set through ``Model.with_values`` (which recomputes inv_mass
    and the clusters' rest shapes) leave momentum as conserved as the body's own masses do:
    creatures at rest in free space, flexing at random for 2 s, keep zero momentum to round-off
    (against sum m |v|; measured at most 2e-12 of it). With the masses changed and inv_mass left
    stale, the momentum reached 17 % (chain) to 91 % (cluster walker) of that scale; with only
    the cluster's rest shape left stale, 17 %."""
    base = physics.build_model(BODIES[name](), BATCH)
    rng = np.random.default_rng(8)
    model = base.with_values(mass=rng.uniform(0.2, 5.0, (BATCH, base.n_spheres)))
    state = physics.initial_state(model, FREE_SPACE)
    worst, scale = 0.0, 0.0
    for cmd in bang_bang(rng, STEPS, BATCH, model.n_muscles, hold=2):
        state = physics.step(model, state, cmd, FREE_SPACE)
        worst = max(worst, np.abs(momentum(model, state)).max())
        scale = max(scale, np.einsum("bp,bp->b", model.mass, np.linalg.norm(state.vel, axis=-1)).max())
    assert scale > 0.1, "the creatures did not move"
    assert worst <= MOMENTUM_RTOL * scale, f"momentum {worst:.3e} kg m/s against {scale:.3f}"

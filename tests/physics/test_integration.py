"""Time integration against closed-form motion: free fall and the small pendulum."""

import numpy as np

import physics
from physics import Body, Sphere

NO_GROUND = physics.SimParams(ground=False)


def test_free_fall_follows_the_parabola_to_round_off():
    """A sphere thrown in gravity without ground is at x0 + v0 t + g t^2 / 2 after every step:
    Verlet with half-step velocities (``physics/state.py``) is exact for constant acceleration.
    A first-order integrator would be off by g h t / 2, about 0.3 m after 4 s."""
    x0, v0 = np.array([0.3, 2.0]), np.array([1.5, 3.0])
    g = np.array([0.0, -NO_GROUND.gravity])
    model = physics.build_model(Body([Sphere(tuple(x0))]), 1)
    state = physics.initial_state(model, NO_GROUND, velocity=v0)
    worst = 0.0
    for n in range(1, 241):
        state = physics.step(model, state, None, NO_GROUND)
        t = n * NO_GROUND.dt
        worst = max(worst, np.abs(state.pos[0, 0] - (x0 + v0 * t + g * t * t / 2)).max())
    assert worst < 1e-10, f"off the parabola by {worst:.3e} m"  # measured 1.6e-12 m


def test_pinned_sphere_stays_put_under_gravity():
    """A fixed sphere (infinite mass for the solver) does not move, whatever gravity does."""
    model = physics.build_model(physics.examples.pendulum(length=1.0, angle=0.05), 1)
    state = physics.initial_state(model, NO_GROUND)
    for _ in range(60):
        state = physics.step(model, state, None, NO_GROUND)
    drift = np.abs(state.pos[0, 0] - model.rest_pos[0, 0]).max()
    assert drift == 0.0, f"the pinned pivot moved by {drift:.4f} m in 1 s"


def test_small_pendulum_period_is_two_pi_root_l_over_g():
    """A pendulum of length 1 m released 0.05 rad from vertical swings with the period
    2 pi sqrt(L / g) within 1 % (the finite-amplitude correction is theta^2 / 16 = 0.02 %),
    measured from the zero crossings of x over about six periods."""
    length = 1.0
    model = physics.build_model(physics.examples.pendulum(length=length, angle=0.05), 1)
    state = physics.initial_state(model, NO_GROUND)
    xs = [state.pos[0, 1, 0] - state.pos[0, 0, 0]]
    for _ in range(720):
        state = physics.step(model, state, None, NO_GROUND)
        xs.append(state.pos[0, 1, 0] - state.pos[0, 0, 0])  # the bob, relative to the pivot
    xs = np.array(xs)
    t = np.arange(xs.size) * NO_GROUND.dt
    k = np.flatnonzero(np.sign(xs[:-1]) * np.sign(xs[1:]) < 0)
    assert k.size >= 8, f"the bob crossed the vertical {k.size} times in 12 s (bob ends at {state.pos[0, 1]})"
    crossings = t[k] - xs[k] * (t[k + 1] - t[k]) / (xs[k + 1] - xs[k])
    period = 2.0 * (crossings[-1] - crossings[0]) / (crossings.size - 1)
    expected = 2.0 * np.pi * np.sqrt(length / NO_GROUND.gravity)
    assert abs(period / expected - 1.0) < 0.01, f"period {period:.4f} s, expected {expected:.4f} s"

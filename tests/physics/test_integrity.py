"""The solver's failure modes, measured (physics/integrity.py), and the ground's push-out speed cap
(physics/contacts.py): what evolution and ``creatures simulate`` judge a body by."""

import dataclasses

import numpy as np
import pytest

import physics
from physics import Body, Bone, Joint, Sphere, Terrain
from physics.integrity import MEASURES, OVERSHOOT_LIMIT, PENETRATION_LIMIT, STRAIN_LIMIT, STRETCH_LIMIT
from physics_helpers import bang_bang

PARAMS = physics.SimParams()


def _state_at(model, pos):
    state = physics.initial_state(model, PARAMS)
    return physics.State(np.asarray(pos, dtype=np.float64)[None].copy(), state.vel, state.muscle_len,
                         state.contact, 0.0)


def _rod() -> Body:
    return Body([Sphere((0.0, 1.0), radius=0.1), Sphere((1.0, 1.0), radius=0.1)], [Bone(0, 1)])


def test_each_measure_reads_what_it_says():
    """A rigid bone stretched 10 %, a hinge 0.5 rad past its limit, a sphere 40 % of its radius
    into flat ground: each measure reads exactly that, and the verdict names the first."""
    model = physics.build_model(_rod())
    m = physics.integrity(model, _state_at(model, [[0.0, 1.0], [1.1, 1.0]]))[0]
    assert m[0] == pytest.approx(0.10) and m[1] == 0.0 and m[2] == 0.0
    assert physics.verdict(m) == "rigid bone strain 10.0 % (limit 3 %)"
    lying = _state_at(model, [[0.0, 0.06], [1.0, 0.06]])   # 4 cm of 10 into the ground
    m = physics.integrity(model, lying)[0]
    assert m[2] == pytest.approx(0.4) and physics.verdict(m) == "ground penetration 40.0 % (limit 25 %)"
    assert physics.integrity(model, lying, ground=False)[0, 2] == 0.0

    hinge = Body([Sphere((-1.0, 0.0)), Sphere((0.0, 0.0)), Sphere((0.0, 1.0))], [Bone(1, 0), Bone(1, 2)],
                 [Joint(c=1, a=0, b=2, min_angle=np.radians(-120.0), max_angle=np.radians(-60.0))])
    model = physics.build_model(hinge)
    bent = np.radians(-60.0) + 0.5   # 0.5 rad past the upper limit
    m = physics.integrity(model, _state_at(model, [[-1.0, 5.0], [0.0, 5.0],
                                                   [-np.cos(bent), 5.0 - np.sin(bent)]]))[0]
    assert m[1] == pytest.approx(0.5) and physics.verdict(m) == "hinge overshoot 0.50 rad (limit 0.1 rad)"
    assert physics.verdict(m * 0) is None


def test_a_non_finite_body_is_never_within_the_limits():
    model = physics.build_model(_rod())
    m = physics.integrity(model, _state_at(model, [[0.0, 1.0], [np.nan, 1.0]]))[0]
    assert physics.verdict(m) is not None


@pytest.mark.parametrize("kind", ["flat", "slope", "steps"])
def test_honest_bodies_kicking_hard_stay_within_the_limits(kind, rng):
    """Walkers (rigid bones between 150 N muscles) kicking at random, new signs every two steps,
    5 s on each terrain: every measure stays within its limit at every step. Measured worst
    strain over four seeds: 1.2 % flat, 1.0 % on the slope, 0.8 % on the steps (every built-in
    land design: physics/integrity.py); no overshoot, no penetration.
    (A body whose muscles overpower its skeleton does not: the cluster walker kicking so reaches
    9-17 % strain, and evolution scores it as failed.)"""
    terrain = {"flat": Terrain.flat(), "slope": Terrain.slope(), "steps": Terrain.steps()}[kind]
    for body in (physics.examples.walker(),):
        model = physics.build_model(body, 16)
        x = np.linspace(-2.0, 2.0, model.batch) + (3.0 if kind == "steps" else 0.0)
        lift = np.array([terrain.height(np.linspace(a - 1.5, a + 1.5, 301)).max() for a in x]) + 0.3
        state = physics.initial_state(model, PARAMS, offset=np.stack([x, lift], axis=-1))
        worst = np.zeros(len(MEASURES))
        for cmd in bang_bang(rng, 300, model.batch, model.n_muscles, hold=2):
            state = physics.step(model, state, cmd, PARAMS, terrain)
            worst = np.maximum(worst, physics.integrity(model, state, terrain).max(axis=0))
        assert worst[0] < STRAIN_LIMIT and worst[1] < OVERSHOOT_LIMIT and worst[2] < PENETRATION_LIMIT \
            and worst[3] < STRETCH_LIMIT, \
            f"{body.name} on {kind}: {worst}"


def _buried_ball(depth, params):
    """A 10 cm ball whose centre starts ``depth`` into flat ground, at rest: its rise speed after
    one step and the highest its centre gets in the next second."""
    model = physics.build_model(Body([Sphere((0.0, 0.1 - depth), radius=0.1)]))
    state = physics.initial_state(model, params)
    state = physics.step(model, state, np.zeros((1, 0)), params)
    speed = state.vel[0, 0, 1]
    top = state.pos[0, 0, 1]
    for _ in range(60):
        state = physics.step(model, state, np.zeros((1, 0)), params)
        top = max(top, state.pos[0, 0, 1])
    return speed, top - 0.1


def test_push_out_never_launches_a_buried_ball():
    """Uncapped, a ball starting 5 cm deep would leave the ground at 12 m/s (0.05 m in a substep,
    1/240 s) and rise metres; capped, it comes out at push_out_speed at most and rises no higher than
    that speed throws it (v^2 / 2g = 5 cm at 1 m/s)."""
    uncapped = dataclasses.replace(PARAMS, push_out_speed=1e9)
    speed, rise = _buried_ball(0.05, uncapped)
    h = PARAMS.dt / PARAMS.substeps   # out in one substep, less gravity's pull over the step's rest
    assert speed == pytest.approx(0.05 / h - PARAMS.gravity * (PARAMS.dt - h), rel=1e-3) and rise > 0.3
    speed, rise = _buried_ball(0.05, PARAMS)
    assert 0.0 < speed <= PARAMS.push_out_speed
    assert rise <= PARAMS.push_out_speed ** 2 / (2 * PARAMS.gravity) + 1e-9


def _bounce(params):
    """A ball of restitution 0.8 dropped from 2 m: its speed just after the bounce, and the
    ratio to its speed just before."""
    model = physics.build_model(Body([Sphere((0.0, 2.0), radius=0.1, restitution=0.8)]))
    state = physics.initial_state(model, params)
    for _ in range(120):
        before = state.vel[0, 0, 1]
        state = physics.step(model, state, np.zeros((1, 0)), params)
        if before < 0 < state.vel[0, 0, 1]:
            return state.vel[0, 0, 1], state.vel[0, 0, 1] / -before
    raise AssertionError("no bounce")


def _yank(params):
    """A rod lying on the ground given 4 m/s upward: its velocity after one step."""
    model = physics.build_model(_rod())
    state = physics.initial_state(model, params, offset=(0.0, -0.9))
    state = physics.State(state.pos, state.vel + np.array([0.0, 4.0]), state.muscle_len, state.contact, 0.0)
    return physics.step(model, state, np.zeros((1, 0)), params).vel


def test_the_cap_leaves_bounces_and_lift_offs_alone():
    """A bouncing ball (5 m/s back up, far above the cap) and a rod yanked off the ground at
    4 m/s move bit for bit as they do with no cap at all: the cap only touches the velocity the
    push-out itself made."""
    uncapped = dataclasses.replace(PARAMS, push_out_speed=1e9)
    speed, ratio = _bounce(PARAMS)
    assert speed > 4.0 and ratio == pytest.approx(0.8, abs=0.05)
    assert (speed, ratio) == _bounce(uncapped)
    assert np.array_equal(_yank(PARAMS), _yank(uncapped)) and (_yank(PARAMS)[0, :, 1] > 3.5).all()

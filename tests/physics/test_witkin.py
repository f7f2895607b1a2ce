"""Witkin's constrained dynamics (``SimParams(solver="witkin")``) against analytic answers: the
pendulum's period, a bead looping on a circular wire, constraint drift with and without the
feedback terms, momentum, muscles following their rest-length trajectory, hinge limits and
muscle strength."""

import dataclasses

import numba
import numpy as np
import pytest

import physics
from physics import Body, Bone, Cluster, Muscle, SimParams, Sphere
from physics.hot import muscle_omegas
from physics_helpers import (BODIES, FREE_SPACE, angular_momentum, angular_scale, bang_bang, hinge_arm,
                             rotation_velocities)

G = 9.81
WITKIN = SimParams(solver="witkin", ground=False, substeps=1)   # its own substeps where a test asks
FREE = dataclasses.replace(FREE_SPACE, solver="witkin")


def _elliptic_k(k: float) -> float:
    """The complete elliptic integral of the first kind K(k), by the arithmetic-geometric mean."""
    a, b = 1.0, np.sqrt(1.0 - k * k)
    for _ in range(40):
        a, b = 0.5 * (a + b), np.sqrt(a * b)
    return np.pi / (2.0 * a)


def _upward_crossings(t, x):
    """Times at which ``x`` crosses 0 upward, linearly interpolated between samples."""
    i = np.nonzero((x[:-1] < 0.0) & (x[1:] >= 0.0))[0]
    return t[i] - x[i] * (t[i + 1] - t[i]) / (x[i + 1] - x[i])


def _swing(params, body, steps, velocity=(0.0, 0.0)):
    """The bob's (sphere 1) positions (steps, 2) and its distance from the pivot minus 1 m."""
    model = physics.build_model(body, 1)
    state = physics.initial_state(model, params, velocity=velocity)
    pos = np.empty((steps, 2))
    for k in range(steps):
        state = physics.step(model, state, None, params)
        pos[k] = state.pos[0, 1]
    return pos, np.linalg.norm(pos, axis=1) - 1.0


def _bead(v0=8.0):
    """A 1 kg bead on a frictionless circular wire of radius 1 m (a pinned centre and a rigid
    bone), at the bottom, to be launched sideways at ``v0``."""
    return Body([Sphere((0.0, 0.0), radius=0.01, fixed=True), Sphere((0.0, -1.0), radius=0.01, mass=1.0)],
                [Bone(0, 1)], name="bead on a wire")


# periods ------------------------------------------------------------------------------------
def test_pendulum_period_matches_the_small_angle_formula():
    """A 1 m pendulum released at 0.05 rad swings with T = 2 pi sqrt(L / g) (1 + theta^2 / 16)
    within 0.1 % (measured: 0.012 %)."""
    pos, _ = _swing(WITKIN, physics.examples.pendulum(angle=0.05), 1200)
    t = np.arange(1, 1201) * WITKIN.dt
    period = np.diff(_upward_crossings(t, pos[:, 0])).mean()
    expected = 2.0 * np.pi * np.sqrt(1.0 / G) * (1.0 + 0.05 ** 2 / 16.0)
    assert period == pytest.approx(expected, rel=1e-3)


def test_large_swing_period_matches_the_elliptic_integral():
    """Released at 1 rad, the period is 4 sqrt(L / g) K(sin(theta0 / 2)), 6.6 % longer than the
    small-angle one; within 0.2 % (measured: 0.05 %)."""
    pos, _ = _swing(WITKIN, physics.examples.pendulum(angle=1.0), 1200)
    t = np.arange(1, 1201) * WITKIN.dt
    period = np.diff(_upward_crossings(t, pos[:, 0])).mean()
    assert period == pytest.approx(4.0 * np.sqrt(1.0 / G) * _elliptic_k(np.sin(0.5)), rel=2e-3)


def test_bead_loops_the_wire_with_the_analytic_period():
    """Launched at 8 m/s (over the top: v0^2 > 4 g R) the bead goes round in
    T = integral R dtheta / sqrt(v0^2 - 2 g R (1 - cos theta)); with 4 substeps within 0.5 %
    (measured 0.15 %), off the wire by less than 1 mm (measured 0.56 mm), at its starting speed
    at the bottom every time round, within 1 %."""
    v0 = 8.0
    params = dataclasses.replace(WITKIN, substeps=4)
    steps = 600
    pos, err = _swing(params, _bead(), steps, velocity=np.array([[[0.0, 0.0], [v0, 0.0]]]))
    theta = np.linspace(0.0, 2.0 * np.pi, 200_001)
    expected = np.trapezoid(1.0 / np.sqrt(v0 ** 2 - 2.0 * G * (1.0 - np.cos(theta))), theta)
    t = np.arange(1, steps + 1) * params.dt
    laps = np.diff(_upward_crossings(t, pos[:, 0]))
    assert len(laps) >= 8
    assert laps.mean() == pytest.approx(expected, rel=5e-3)
    assert np.abs(err).max() < 1e-3
    # speed at the bottom, from the positions around each upward crossing of x = 0
    i = np.nonzero((pos[:-1, 0] < 0.0) & (pos[1:, 0] >= 0.0))[0]
    speed = np.linalg.norm(pos[i + 1] - pos[i], axis=1) / params.dt
    assert speed == pytest.approx(v0, rel=1e-2)


def test_bead_stays_on_the_wire_to_second_order_in_the_substep():
    """The distance from the wire, after the feedback, is the integrator's h^2 |v|^2 / R per
    substep: four times the substeps, about 16 times less (measured 17)."""
    v = np.array([[[0.0, 0.0], [8.0, 0.0]]])
    _, coarse = _swing(WITKIN, _bead(), 120, velocity=v)
    _, fine = _swing(dataclasses.replace(WITKIN, substeps=4), _bead(), 120, velocity=v)
    assert np.abs(coarse).max() / np.abs(fine).max() > 10.0


# drift --------------------------------------------------------------------------------------
def test_constraint_drift_stays_bounded_with_feedback_and_grows_without():
    """A pendulum swinging at 1 rad for 60 s. With the default feedback the rod's length error in
    the last 10 s is no larger than in the first 10 s (measured 1.3 mm both); without it
    (alpha = beta = 0) it grows (measured 5.7 cm in the first 10 s, 2.2 m in the last)."""
    body = physics.examples.pendulum(angle=1.0)
    steps = 3600
    ten = 600
    _, with_fb = _swing(WITKIN, body, steps)
    _, without = _swing(dataclasses.replace(WITKIN, witkin_alpha=0.0, witkin_beta=0.0), body, steps)
    with_fb, without = np.abs(with_fb), np.abs(without)
    assert with_fb[-ten:].max() <= 1.5 * with_fb[:ten].max()
    assert with_fb.max() < 2e-3
    assert without[-ten:].max() > 10.0 * without[:ten].max()
    assert without[-ten:].max() > 100.0 * with_fb[-ten:].max()


# momentum -----------------------------------------------------------------------------------
def _tumble(name, seed, steps=120, contacts="pbd"):
    """Four creatures tumbling in free space (random sphere velocities of 1 m/s on a drift),
    flexing at random every step: the largest change of each's centre-of-mass velocity and of
    its angular momentum, with the scales they are measured against."""
    params = dataclasses.replace(FREE, contacts=contacts)
    model = physics.build_model(BODIES[name](), 4)
    rng = np.random.default_rng(seed)
    v = rng.normal(size=model.rest_pos.shape) + np.array([1.0, -2.0])
    state = physics.initial_state(model, params, velocity=v)
    v0 = physics.com_velocity(model, state)
    l0 = angular_momentum(model, state)
    scale = np.linalg.norm(state.vel, axis=-1).max()
    dv = dl = lscale = 0.0
    for cmd in bang_bang(rng, steps, 4, model.n_muscles, hold=1):
        state = physics.step(model, state, cmd, params)
        dv = max(dv, np.abs(physics.com_velocity(model, state) - v0).max())
        dl = max(dl, np.abs(angular_momentum(model, state) - l0).max())
        lscale = max(lscale, angular_scale(model, state).max())
    return dv, scale, dl, lscale


@pytest.mark.parametrize("contacts", physics.CONTACT_MODELS)
@pytest.mark.parametrize("name", list(BODIES))
def test_internal_constraints_conserve_linear_momentum(name, contacts):
    """Every constraint force is J^T lambda with rows summing to zero over their spheres, and the
    springs and self-collisions are pairs: the centre-of-mass velocity stays put to 1e-12 of the
    spheres' speeds (measured 2e-16)."""
    dv, scale, _, _ = _tumble(name, seed=3, contacts=contacts)
    assert dv <= 1e-12 * scale


@pytest.mark.parametrize("name", ["walker", "hinge arm", "cluster walker"])
def test_internal_constraints_conserve_angular_momentum(name):
    """Bones pull along their lines and joint gradients carry no moment, all taken at the
    substep's start, and symplectic Euler then keeps sum m x x v exactly: to 1e-12 of
    sum m |r| |v| (measured 3e-15). (Self-collisions push spheres apart by position and do not:
    the chain is not here.)"""
    _, _, dl, lscale = _tumble(name, seed=4)
    assert dl <= 1e-12 * lscale


# muscles ------------------------------------------------------------------------------------
def _muscle_arm(speed=0.5):
    """A 1 kg sphere on a 1 m muscle from a pinned sphere: range 0.5, strong enough for anything."""
    return Body([Sphere((0.0, 0.0), radius=0.01, fixed=True), Sphere((1.0, 0.0), radius=0.01, mass=1.0)],
                [Bone(0, 1, muscle=Muscle(range=0.5, strength=1e4, speed=speed))])


def _track(body, commands, velocity=(0.0, 0.0)):
    """Step the arm in free space with ``commands`` (T, 1); |length - driven length| per step."""
    model = physics.build_model(body, 1)
    state = physics.initial_state(model, FREE, velocity=velocity)
    err = []
    for cmd in commands:
        state = physics.step(model, state, cmd[None], FREE)
        err.append(abs(np.linalg.norm(state.pos[0, 1] - state.pos[0, 0]) - state.muscle_len[0, 0]))
    return np.array(err), state


def _ramp_lag(body):
    """How far a muscle's length trails its commanded length ramping at ``speed * rest``, once
    its spring pulls as hard as its dashpot holds back, ``k e = c v``: ``2 zeta v / omega``."""
    model = physics.build_model(body, 1)
    v = model.muscle_speed[0, 0] * model.muscle_rest[0, 0]
    return 2.0 * model.muscle_damping[0, 0] * v / muscle_omegas(model)[0, 0]


def test_muscle_follows_its_rest_length_ramp_behind_by_its_dashpot():
    """Commanded to full length, the muscle's rest length ramps at speed * rest (0.5 m/s) for
    1 s; the muscle, a spring and a dashpot (physics/bones.py), follows it as far behind as its
    dashpot holds it back, 2 zeta v / omega (4.47 mm), to 0.1 %, and ends at 1.5 m to 1e-9 m."""
    err, state = _track(_muscle_arm(), np.ones((90, 1)))
    assert err[40:59] == pytest.approx(_ramp_lag(_muscle_arm()), rel=1e-3)   # (the ramp ends after 60 steps)
    assert state.muscle_len[0, 0] == pytest.approx(1.5)
    assert np.linalg.norm(state.pos[0, 1]) == pytest.approx(1.5, abs=1e-9)


def test_muscle_tracks_its_rest_length_while_swinging_round():
    """The same ramp while the sphere also circles the pivot at 2 m/s: the muscle's spring also
    carries the centripetal pull, so it trails its driven length by the dashpot's lag and
    within 0.1 mm more (measured 0.02 mm: m v^2 / r over its stiffness)."""
    err, _ = _track(_muscle_arm(), np.ones((60, 1)), velocity=np.array([[[0.0, 0.0], [0.0, 2.0]]]))
    assert np.abs(err[20:59] - _ramp_lag(_muscle_arm())).max() < 1e-4


def test_muscle_pulls_no_harder_than_its_strength():
    """A 10 kg weight hanging from a pinned pivot by a 50 N muscle commanded to hold it: the
    muscle is clamped at its strength, so the weight falls at g - 50 / 10 (within 1 %)."""
    body = Body([Sphere((0.0, 0.0), radius=0.01, fixed=True), Sphere((0.0, -1.0), radius=0.01, mass=10.0)],
                [Bone(0, 1, muscle=Muscle(range=0.5, strength=50.0, speed=1.0))])
    params = SimParams(solver="witkin", ground=False)
    model = physics.build_model(body, 1)
    state = physics.initial_state(model, params)
    y = []
    for _ in range(30):
        state = physics.step(model, state, np.zeros((1, 1)), params)
        y.append(state.pos[0, 1, 1])
    accel = -np.diff(y, 2).mean() / params.dt ** 2
    assert accel == pytest.approx(G - 5.0, rel=1e-2)


# joints, clusters, springs ------------------------------------------------------------------
def test_hinge_limits_hold_against_muscles():
    """The hinged arm's muscles push its three hinges into their limits ([90, 150] degrees) at
    random for 5 s in free space: no hinge gets more than 0.5 degrees past a limit with 4
    substeps (measured 0.06; PBD: 1.2), and the limits were hit."""
    params = dataclasses.replace(FREE, substeps=4)
    model = physics.build_model(hinge_arm(), 16)
    state = physics.initial_state(model, params)
    worst = -np.inf
    hits = 0
    for cmd in bang_bang(np.random.default_rng(5), 300, 16, model.n_muscles, hold=15):
        state = physics.step(model, state, cmd, params)
        theta = physics.joint_angles(model, state)
        over = np.maximum(model.joint_min - theta, theta - model.joint_max)
        worst = max(worst, over.max())
        hits += int((over > -1e-3).sum())
    assert hits > 100
    assert np.degrees(worst) < 0.5


def test_rigid_cluster_keeps_its_shape():
    """The cluster walker's pentagon (every pair of its spheres a distance row, three of the ten
    redundant) spinning at 2 rad/s and flexing at random in free space, 4 substeps: every pairwise
    distance within 0.5 % of its rest (measured 0.08 %; with one substep 1.9 %, the integrator's
    h^2 |v|^2 / L with legs flung about at metres per second)."""
    params = dataclasses.replace(FREE, substeps=4)
    model = physics.build_model(BODIES["cluster walker"](), 4)
    rng = np.random.default_rng(2)
    spin = rotation_velocities(model, np.full(4, 2.0))
    state = physics.initial_state(model, params, velocity=spin)
    members = model.cluster_sphere
    rest = np.linalg.norm(model.rest_pos[0, members][:, None] - model.rest_pos[0, members][None], axis=-1)
    worst = 0.0
    for cmd in bang_bang(rng, 120, 4, model.n_muscles, hold=2):
        state = physics.step(model, state, cmd, params)
        d = np.linalg.norm(state.pos[:, members][:, :, None] - state.pos[:, members][:, None], axis=-1)
        worst = max(worst, np.abs(d - rest)[:, rest > 0].max() / rest[rest > 0].min())
    assert worst < 5e-3


def test_a_soft_cluster_is_refused_with_the_reason():
    body = BODIES["cluster walker"]()
    body.clusters = [Cluster(body.clusters[0].spheres, stiffness=0.5)]
    model = physics.build_model(body, 1)
    with pytest.raises(ValueError, match="witkin.*stiffness 0.5"):
        physics.step(model, physics.initial_state(model, FREE), None, FREE)


def _spring(substeps=None):
    """A 1 kg sphere on a spring of compliance 1e-5 m/N (omega = 316 rad/s) from a pinned one,
    stretched 1 cm and let go: its stretch at every step of 2 s (``substeps`` forced, unchecked)."""
    body = Body([Sphere((0.0, 0.0), radius=0.01, fixed=True), Sphere((1.01, 0.0), radius=0.01, mass=1.0)],
                [Bone(0, 1, rest=1.0, compliance=1e-5)])
    model = physics.build_model(body, 1)
    state = physics.initial_state(model, FREE)
    stretch = []
    for _ in range(120):
        state = physics.witkin.step(model, state, np.zeros((1, 0)), FREE, physics.Terrain.flat(), False, substeps)
        stretch.append(state.pos[0, 1, 0] - 1.0)
    return model, np.abs(stretch)


def test_stiff_springs_get_the_substeps_they_need():
    """The spring needs omega h <= 1: 6 substeps at 60 Hz, which physics.step takes; it then
    oscillates with a steady amplitude (1.1 cm: symplectic Euler's at omega h = 0.88), while
    one substep (omega h = 5.3, beyond the limit of 2) blows up."""
    model, stretch = _spring()
    assert physics.substeps_for(model, FREE) == int(np.ceil(FREE.dt * np.sqrt(1e5)))
    assert stretch[-60:].max() == pytest.approx(stretch[:60].max(), rel=1e-2)
    assert stretch.max() < 0.012
    _, unstable = _spring(substeps=1)
    assert not unstable[-1] < 1.0


def test_walker_stands_still_on_flat_ground():
    """The walker with its muscles at rest on flat ground for 8 s: its muscles give under its
    weight as their springs say and it settles (its centre of mass sinks 7 mm, under 1 cm; the
    PBD solver's 6 mm), then stands still (it moves less than 0.01 mm over the last 2 s: measured
    0.002 mm, the last of its settling); no rigid bone is off by 1e-7 of its length (measured
    3e-8)."""
    params = SimParams(solver="witkin")
    model = physics.build_model(physics.examples.walker(), 1)
    state = physics.initial_state(model, params, offset=(0.0, 1e-4))
    y0 = physics.centre_of_mass(model, state)[0, 1]
    for _ in range(360):
        state = physics.step(model, state, None, params)
    settled = physics.centre_of_mass(model, state)[0]
    for _ in range(120):
        state = physics.step(model, state, None, params)
    assert y0 - 0.01 < settled[1] < y0
    assert np.abs(physics.centre_of_mass(model, state)[0] - settled).max() < 1e-5
    rigid = physics.rigid_bones(model)
    assert np.abs(physics.bone_strain(model, state)[rigid]).max() < 1e-7
    assert state.contact[0].sum() == 2


def test_thread_count_does_not_change_the_result(numba_threads):
    """40 walkers flexing at random on hills, on one thread and on two: bit-identical."""
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("numba has a single thread on this machine")
    params = SimParams(solver="witkin")
    hills = physics.Terrain.hills(seed=3)
    commands = bang_bang(np.random.default_rng(7), 120, 40, 6)
    out = []
    for threads in (1, 2):
        numba_threads(threads)
        model = physics.build_model(physics.examples.walker(), 40)
        state = physics.initial_state(model, params, offset=(1.0, 0.05))
        for cmd in commands:
            state = physics.step(model, state, cmd, params, hills, parallel=threads > 1)
        out.append(state)
    assert np.array_equal(out[0].pos, out[1].pos) and np.array_equal(out[0].vel, out[1].vel)

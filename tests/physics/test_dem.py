"""DEM contacts (``SimParams(contacts="dem")``): the restitution a spring and dashpot imply, the
stable time step and its enforcement, momentum, a settling pile, and 50 worms in one arena."""

import dataclasses

import numpy as np
import pytest

import physics
from physics import Body, SimParams, Sphere, Terrain
from physics import dem
from physics_helpers import BODIES, FREE_SPACE, bang_bang, momentum

DEM = SimParams(contacts="dem")
BALL = Body([Sphere((0.0, 0.0), radius=0.1, mass=1.0)], name="ball")


def _analytic_restitution(zeta):
    return np.exp(-zeta * np.pi / np.sqrt(1.0 - zeta * zeta))


@pytest.mark.parametrize("solver", physics.SOLVERS)
@pytest.mark.parametrize("zeta", [0.1, 0.3, 0.6])
def test_ball_rebounds_with_the_restitution_of_its_spring_and_dashpot(zeta, solver):
    """A 1 kg ball thrown at the ground at 1 m/s (no gravity, so the contact is the spring and
    dashpot alone) leaves at e = exp(-zeta pi / sqrt(1 - zeta^2)) times its speed, within 5 %
    (measured 0.9, 1.5 and 4.0 % low), with 64 substeps per step: about 60 per contact."""
    params = dataclasses.replace(DEM, gravity=0.0, dem_damping=zeta, substeps=64, solver=solver)
    model = physics.build_model(BALL, 1)
    state = physics.initial_state(model, params, offset=(0.0, 0.1005), velocity=(0.0, -1.0))
    for _ in range(30):
        state = physics.step(model, state, None, params)
    assert state.vel[0, 0, 0] == 0.0
    assert state.vel[0, 0, 1] == pytest.approx(_analytic_restitution(zeta), rel=5e-2)


def test_critical_substep_is_the_symplectic_euler_limit_of_the_stiffest_mode():
    """h_max = 2 (sqrt(1 + zeta^2) - zeta) / sqrt(6 k / m_min) (physics/dem.py derives it), or the
    shear dashpot's 1 / (s omega_max) if that is shorter; the lightest free sphere sets it."""
    model = physics.build_model(physics.examples.walker(), 1)   # lightest sphere 0.5 kg
    params = dataclasses.replace(DEM, dem_stiffness=4e4, dem_damping=0.2, dem_shear=0.1)
    omega = np.sqrt(6.0 * 4e4 / 0.5)
    assert dem.critical_substep(model, params) == pytest.approx(2.0 * (np.sqrt(1.04) - 0.2) / omega)
    sheared = dataclasses.replace(params, dem_shear=2.0)
    assert dem.critical_substep(model, sheared) == pytest.approx(1.0 / (2.0 * omega))
    n = physics.substeps_for(model, params)
    assert params.dt / n <= dem.critical_substep(model, params) < params.dt / (n - 1)


def _rest_on_ground(substeps=None, seconds=2.0):
    """A 1 kg ball resting on the ground, contact spring 5e4 N/m, no dashpots: its highest point
    over ``seconds`` (``substeps`` forced through the unchecked kernel call, or physics.step's)."""
    params = dataclasses.replace(DEM, dem_stiffness=5e4, dem_damping=0.0, dem_shear=0.0)
    model = physics.build_model(BALL, 1)
    state = physics.initial_state(model, params, offset=(0.0, 0.1 - 9.81 / 5e4))
    top = -np.inf
    for _ in range(round(seconds / params.dt)):
        if substeps is None:
            state = physics.step(model, state, None, params)
        else:
            state = dem.step(model, state, np.zeros((1, 0)), params, Terrain.flat(), False, substeps)
        top = max(top, state.pos[0, 0, 1])
    return top


def test_stability_limit_is_real_and_enforced():
    """One contact alone has omega = sqrt(k / m) = 224 rad/s; a linear spring under symplectic
    Euler is stable for omega h < 2. A contact is one-sided, and its starts and ends between
    substeps feed it energy before that: at 60 Hz, 1 substep (omega h = 3.7) or 2 (1.86) throw
    the resting ball off the ground (measured 22.7 m and 0.28 m high, its centre resting at
    0.1 m); physics.step takes the 5 substeps of its bound (omega h = 0.75) and the ball rests
    within 0.1 mm."""
    model = physics.build_model(BALL, 1)
    params = dataclasses.replace(DEM, dem_stiffness=5e4, dem_damping=0.0, dem_shear=0.0)
    assert physics.substeps_for(model, params) == 5
    assert _rest_on_ground(substeps=1) > 0.2
    assert _rest_on_ground(substeps=2) > 0.2
    assert _rest_on_ground() < 0.1001


def test_contacts_too_stiff_for_the_step_are_refused_with_the_reason():
    model = physics.build_model(BALL, 1)
    params = dataclasses.replace(DEM, dem_stiffness=1e13)
    with pytest.raises(ValueError, match="dem_stiffness"):
        physics.step(model, physics.initial_state(model, params), None, params)


def test_arena_pairs_are_found_across_cell_boundaries():
    """Seed 004 tests a particle against its own grid cell only: two spheres overlapping across a
    cell boundary (x = 0 here, cells 2 r_max wide) would never collide. Here they push apart,
    equal and opposite."""
    x = np.array([[[-0.05, 0.0]], [[0.05, 0.0]]])
    F = np.zeros_like(x)
    ones = np.ones((2, 1))
    no_pairs = np.zeros(0, np.int64)
    hits = dem.dem_arena(x, np.zeros_like(x), F, dem.Spheres(ones, 0.1 * ones, ones, no_pairs, no_pairs),
                         dem.Law(1e4, 0.0, 0.5, 0.0, 1e-3))
    assert hits == 1
    assert F[0, 0, 0] == pytest.approx(-1e3) and F[1, 0, 0] == pytest.approx(1e3)


@pytest.mark.parametrize("solver", physics.SOLVERS)
@pytest.mark.parametrize("miss", [0.0, 0.12])
def test_sphere_collisions_conserve_momentum(solver, miss):
    """Two balls of 1 and 3 kg meeting head-on or off-centre (``miss`` m between their lines, of
    0.2 m) in free space, an arena: the total momentum is unchanged to 1e-12 (measured 1e-16),
    and they did collide (the dashpot took over 10 % of their kinetic energy)."""
    body = Body([Sphere((0.0, 0.0), radius=0.1, mass=1.0)])
    params = dataclasses.replace(FREE_SPACE, contacts="dem", arena_collision=True, solver=solver)
    model = physics.build_model(body, 2).with_values(mass=[[1.0], [3.0]])
    v = np.array([[2.0, 0.0], [-1.0, 0.0]])
    state = physics.initial_state(model, params, offset=np.array([[-0.5, 0.0], [0.5, miss]]), velocity=v)
    p0 = momentum(model, state).sum(0)
    for _ in range(60):
        state = physics.step(model, state, None, params)
    assert np.abs(momentum(model, state).sum(0) - p0).max() <= 1e-12 * np.abs(p0).max()
    assert physics.kinetic_energy(model, state).sum() < 0.9 * 0.5 * (2.0 ** 2 + 3.0 * 1.0 ** 2)


def test_self_collisions_conserve_momentum():
    """Chains (self-collision on) crumpling at random in free space with DEM self-contacts:
    the centre-of-mass velocity stays put to round-off (measured 2e-16 of the speeds)."""
    params = dataclasses.replace(FREE_SPACE, contacts="dem")
    model = physics.build_model(BODIES["chain"](), 4)
    rng = np.random.default_rng(8)
    state = physics.initial_state(model, params, velocity=rng.normal(size=model.rest_pos.shape))
    v0 = physics.com_velocity(model, state)
    scale = np.abs(state.vel).max()
    for cmd in bang_bang(rng, 120, 4, model.n_muscles, hold=2):
        state = physics.step(model, state, cmd, params)
    assert np.abs(physics.com_velocity(model, state) - v0).max() <= 1e-12 * scale


def test_a_pile_of_balls_settles_in_a_valley():
    """Thirty 0.5 kg balls dropped in six layers into a 45-degree valley (friction 1): over the
    last 4 of 16 s the kinetic energy averages below 1 % of its peak (measured 0.05 %; the pile
    still slips now and then, DEM friction being viscous below its Coulomb limit), no two balls
    overlap by more than 1 cm at the end (the whole pile's weight on one contact would be 3 mm;
    measured 0.2 mm) and none has left the valley."""
    n = 30
    params = dataclasses.replace(DEM, arena_collision=True)
    body = Body([Sphere((0.0, 0.0), radius=0.1, mass=0.5, friction=1.0)])
    valley = Terrain(np.array([-100.0, -1.0, 1.0, 100.0]), np.array([99.0, 0.0, 0.0, 99.0]))
    k = np.arange(n)
    jitter = np.random.default_rng(0).uniform(-0.02, 0.02, n)
    offsets = np.stack([(k % 5 - 2) * 0.25 + jitter, 0.3 + (k // 5) * 0.25], -1)
    model = physics.build_model(body, n)
    state = physics.initial_state(model, params, offset=offsets)
    energy = []
    for _ in range(960):
        state = physics.step(model, state, None, params, valley)
        energy.append(physics.kinetic_energy(model, state).sum())
    energy = np.array(energy)
    p = state.pos[:, 0]
    overlap = 0.2 - (np.linalg.norm(p[:, None] - p[None], axis=-1) + 10.0 * np.eye(n))
    assert energy[-240:].mean() < 1e-2 * energy.max()
    assert overlap.max() < 0.01
    assert np.all(np.abs(p[:, 0]) < 2.0) and p[:, 1].max() < 1.5


def test_resting_ball_reports_its_contact():
    model = physics.build_model(BALL, 1)
    state = physics.initial_state(model, DEM, offset=(0.0, 0.1))
    for _ in range(30):
        state = physics.step(model, state, None, DEM)
    assert state.contact[0, 0]
    assert abs(state.pos[0, 0, 1] - (0.1 - 9.81 / DEM.dem_stiffness)) < 1e-4


@pytest.mark.parametrize("contacts", physics.CONTACT_MODELS)
def test_fifty_worm_pile_runs_with_both_contact_models(contacts):
    """The README's scene: 50 worms dropped in five layers into one arena, 2 s. Neither model
    blows up. DEM keeps the worms whole and apart: rigid bones within 0.1 %, overlaps between
    worms under 8 mm while they land and 2.5 mm over the last second (measured 0.02 %, 5.3 mm
    and 1.6 mm: worms held rigid by the skeleton's exact solve land harder on each other than
    the relaxed ones did, 2.5 mm). PBD's arena pass after each substep is rougher (measured: bones
    strained up to 14 % while worms land on worms, the pass knowing nothing of bones; overlaps
    2.5 mm). Passing it before each substep instead held the bones within 0.1 % but left worms
    25 mm inside each other and the pile still moving: the skeleton undid its pushes."""
    from creatures.bench import solvers
    row = solvers.pile(contacts, seconds=2.0)
    assert row["finite"]
    assert row["kinetic_energy_end"] < 50.0
    if contacts == "dem":
        assert row["bone_strain_max"] < 1e-3
        assert row["overlap_worms_max_mm"] < 8.0 and row["overlap_worms_mm"] < 2.5
        assert row["ground_penetration_mm"] < 5.0

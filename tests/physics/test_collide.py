"""Sphere-sphere collisions: between the creatures of a shared arena, and inside a creature."""

import numpy as np
import pytest

import physics
from physics_helpers import FREE_SPACE, bang_bang, momentum

ARENA = physics.SimParams(gravity=0.0, ground=False, arena_collision=True)

#: how much two spheres of different creatures may overlap at the end of a step (m): the arena
#: pass comes last, so only round-off is left (measured 1e-16 m; without the pass, 170 mm)
ARENA_OVERLAP_TOL = 1e-6
#: how much two spheres of one creature may overlap at the end of a step (m): the relaxation
#: sweeps leave a little (measured 0.24 mm)
OVERLAP_TOL = 1e-3
SPEED = 1.0  # m/s, each walker toward the other


@pytest.fixture(scope="module")
def head_on():
    """Two walkers 2.4 m apart flying at each other at 1 m/s each in free space, flailing at
    random, for 2 s: per step the smallest gap between spheres of different walkers, the total
    momentum, and the walkers' centres of mass."""
    model = physics.build_model(physics.examples.walker(), 2)
    state = physics.initial_state(model, ARENA, offset=np.array([[-1.2, 0.0], [1.2, 0.05]]),
                                  velocity=np.array([[SPEED, 0.0], [-SPEED, 0.0]]))
    reach = model.radius[0][:, None] + model.radius[1][None, :]
    gaps, moms, coms = [], [momentum(model, state).sum(0)], []
    for cmd in bang_bang(np.random.default_rng(0), 120, 2, model.n_muscles, hold=2):
        state = physics.step(model, state, cmd, ARENA)
        d = np.linalg.norm(state.pos[0][:, None] - state.pos[1][None, :], axis=-1)
        gaps.append((d - reach).min())
        moms.append(momentum(model, state).sum(0))
        coms.append(physics.centre_of_mass(model, state))
    return np.array(gaps), np.array(moms), np.array(coms), model.total_mass()[0]


def test_arena_creatures_do_not_interpenetrate(head_on):
    """No sphere of one walker ends a step more than ARENA_OVERLAP_TOL inside a sphere of the
    other (measured 1e-16 m), and they did meet."""
    gaps, _, _, _ = head_on
    assert gaps.min() < ARENA_OVERLAP_TOL, "the walkers never met"
    assert gaps.min() >= -ARENA_OVERLAP_TOL, f"spheres overlapped by {-gaps.min() * 1e3:.4f} mm"


def test_arena_creatures_do_not_pass_through_each_other(head_on):
    """After the collision the walker that came from the left is still left of the other."""
    _, _, coms, _ = head_on
    assert np.all(coms[:, 0, 0] < coms[:, 1, 0])


def test_arena_collisions_conserve_total_momentum(head_on):
    """The two walkers' total momentum (zero) stays zero to round-off through the collision
    (measured 1e-12 kg m/s against 8 kg m/s each)."""
    _, moms, _, mass = head_on
    drift = np.abs(moms - moms[0]).max()
    assert drift <= 1e-9 * mass * SPEED, f"total momentum changed by {drift:.3e} kg m/s"


def test_self_collisions_keep_a_creatures_spheres_apart():
    """16 chains (self-collision on) crumpled by random sphere velocities and random commands
    for 5 s in free space: no two of a chain's spheres that are not joined end a step more than
    OVERLAP_TOL inside each other (measured 0.24 mm), and they did collide."""
    model = physics.build_model(physics.examples.chain(), 16)
    rng = np.random.default_rng(4)
    state = physics.initial_state(model, FREE_SPACE, velocity=rng.normal(size=model.rest_pos.shape))
    a, b = model.pair_a, model.pair_b
    reach = model.radius[:, a] + model.radius[:, b]
    worst = np.inf
    for cmd in bang_bang(rng, 300, model.batch, model.n_muscles, hold=2):
        state = physics.step(model, state, cmd, FREE_SPACE)
        worst = min(worst, (np.linalg.norm(state.pos[:, a] - state.pos[:, b], axis=-1) - reach).min())
    assert worst < OVERLAP_TOL, "no two spheres of a chain ever met"
    assert worst >= -OVERLAP_TOL, f"spheres of a chain overlapped by {-worst * 1e3:.2f} mm"


def _overlapping_pair():
    """Two creatures of one sphere each, overlapping by 5 cm: pos, vel, mass, inv_mass, radius."""
    pos = np.array([[[0.0, 0.0]], [[0.15, 0.0]]])
    ones = np.ones((2, 1))
    return pos, np.zeros_like(pos), ones.copy(), ones.copy(), 0.1 * ones


@pytest.mark.parametrize("bad", ["radius", "inv_mass"])
def test_arena_skips_a_non_finite_sphere_instead_of_spreading_it(bad):
    """A NaN radius or inverse mass of one creature's sphere makes its penetration or its share
    NaN: the arena must skip the pair (a NaN fails ``pen > 0``) rather than resolve it, which
    would write NaN into the other creature (``pen <= 0`` let it through)."""
    from physics.collide import collide_arena
    from physics.dem import Law, Spheres, dem_arena

    pos, vel, mass, inv_mass, radius = _overlapping_pair()
    assert collide_arena(pos.copy(), vel.copy(), mass, inv_mass, radius, 1) == 1  # finite: resolved
    {"radius": radius, "inv_mass": inv_mass}[bad][0, 0] = np.nan
    out = pos.copy()
    assert collide_arena(out, vel, mass, inv_mass, radius, 1) == 0
    assert np.array_equal(out[1], pos[1]) and np.all(np.isfinite(vel[1]))
    force = np.zeros_like(pos)
    no_pairs = np.zeros(0, np.int64)
    dem_arena(pos, vel, force, Spheres(inv_mass, radius, np.ones((2, 1)), no_pairs, no_pairs), Law(1e4, 0.1, 0.0, 0.0, 1 / 60))
    assert np.all(force[1] == 0.0), "DEM pushed the finite creature with NaN"


def test_self_collisions_skip_a_non_finite_sphere_instead_of_spreading_it():
    """Inside a creature too: a sphere at NaN spreads it to none of the spheres it is paired with
    (other pairs may still move them)."""
    from physics.hot import hot_of
    from physics.collide import solve_self_collisions

    model = physics.build_model(physics.examples.chain(), 1)
    hot = hot_of(model)
    i, j = int(model.pair_a[0]), int(model.pair_b[0])
    x = np.ascontiguousarray(np.moveaxis(model.rest_pos, 0, -1))  # (P, 2, lanes)
    p = x.copy()
    p[j] = p[i] + 0.01  # overlapping
    p[i] = np.nan
    solve_self_collisions(x, p, np.empty_like(p), hot.pair_a, hot.pair_b, hot.inv_mass, hot.radius, 0, 1, None)
    assert np.all(np.isfinite(np.delete(p, i, axis=0)))

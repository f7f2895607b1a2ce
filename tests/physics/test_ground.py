"""Ground contact: nothing ends a step inside the terrain; bounces follow restitution; Coulomb
friction holds below the friction angle, lets go above it, and brakes a sliding body as
mu_k g does."""

import numpy as np
import pytest

import physics
from physics import Body, Sphere, Terrain
from physics_helpers import bang_bang, block, polyline_distance

PARAMS = physics.SimParams()

#: how deep a sphere may be seen inside the terrain at the end of a step (m). The last push-out of
#: every substep (physics/contacts.py, finish_ground) leaves nothing inside: measured at most
#: 1e-13 m (round-off) on every terrain, concave corners (the slope's knee, the foot of a riser,
#: the bottom of a valley) included.
PENETRATION_TOL = 1e-9

#: each terrain and the x where the 4 m row of walkers starts: over the slope's knee at x = 0,
#: the first steps from x = 2, the hills from where they begin
TERRAINS = {
    "flat": (Terrain.flat(), 0.0),
    "slope": (Terrain.slope(), -2.0),
    "steps": (Terrain.steps(), 1.0),
    "hills": (Terrain.hills(seed=0), 2.0),
}


@pytest.mark.parametrize("kind", list(TERRAINS))
def test_no_sphere_ends_a_step_inside_the_terrain(kind, rng):
    """16 walkers in a row over the terrain, dropped from 5 cm, kicking at random (new signs
    every two steps) for 5 s: after every step every sphere centre is at least its radius
    (less PENETRATION_TOL) from the terrain polyline, by an exact distance computed here."""
    terrain, x0 = TERRAINS[kind]
    model = physics.build_model(physics.examples.walker(), 16)
    x = x0 + np.linspace(0.0, 4.0, model.batch)
    ground = np.array([terrain.height(np.linspace(a - 1.0, a + 1.0, 201)).max() for a in x])
    state = physics.initial_state(model, PARAMS, offset=np.stack([x, ground + 0.05], axis=-1))
    frames = []
    for cmd in bang_bang(rng, 300, model.batch, model.n_muscles, hold=2):
        state = physics.step(model, state, cmd, PARAMS, terrain)
        frames.append(state.pos)
    pos = np.array(frames)                                              # (T, B, P, 2)
    clearance = polyline_distance(terrain.xs, terrain.ys, pos[..., 0], pos[..., 1]) - model.radius
    t, b, i = np.unravel_index(clearance.argmin(), clearance.shape)
    assert clearance.min() >= -PENETRATION_TOL, (
        f"sphere {i} of walker {b} ended step {t} {-clearance.min() * 1e3:.1f} mm inside the {kind} "
        f"terrain at {pos[t, b, i].round(3)}; {(clearance < -PENETRATION_TOL).sum()} sphere-steps in all")


def _drop(restitution, height=1.0):
    """Heights of the bottom of a sphere (r = 0.1 m) dropped from ``height`` onto flat ground,
    over 4 s, and the step of its first contact."""
    model = physics.build_model(Body([Sphere((0.0, 0.1 + height), radius=0.1, restitution=restitution)]), 1)
    state = physics.initial_state(model, PARAMS)
    bottom, first = [], None
    for n in range(240):
        state = physics.step(model, state, None, PARAMS)
        bottom.append(state.pos[0, 0, 1] - 0.1)
        if first is None and state.contact[0, 0]:
            first = n
    return np.array(bottom), first


def test_restitution_one_half_rebounds_to_a_quarter_of_the_drop_height():
    """Restitution e scales the speed by e, so the rebound's peak is e^2 = 0.25 of the drop
    height of 1 m, within 6 % (measured 0.239, 4.4 % short)."""
    bottom, first = _drop(0.5)
    assert first is not None, "the sphere never touched the ground"
    assert bottom[first:].max() == pytest.approx(0.25, rel=0.06)


def test_zero_restitution_does_not_bounce():
    """With restitution 0 a sphere dropped from 1 m stays on the ground after it lands: it rises
    less than 1 micrometre (measured: not at all)."""
    bottom, first = _drop(0.0)
    assert first is not None, "the sphere never touched the ground"
    assert bottom[first:].max() < 1e-6, f"it rose {bottom[first:].max() * 1e3:.4f} mm"


def _slide(degrees, friction=0.5, seconds=2.0):
    """How far (m) a block on a slope of ``degrees`` moves down it over ``seconds``, after a
    first second to settle; and the analytic slide over those seconds of a block let go from
    rest at the first second's start, a (t1^2 - t0^2) / 2 with a = g (sin - mu cos) (0 if it
    holds)."""
    terrain = Terrain.slope(degrees, start=-50.0)  # all slope around x = 0
    model = physics.build_model(block(degrees, friction), 1)
    state = physics.initial_state(model, PARAMS, offset=(0.0, terrain.height(0.0)))
    state = physics.rollout(model, state, np.zeros((60, 1, 0)), PARAMS, terrain)
    c0 = physics.centre_of_mass(model, state)[0]
    state = physics.rollout(model, state, np.zeros((int(seconds * 60), 1, 0)), PARAMS, terrain)
    th = np.radians(degrees)
    down = -np.array([np.cos(th), np.sin(th)])
    moved = float((physics.centre_of_mass(model, state)[0] - c0) @ down)
    accel = PARAMS.gravity * (np.sin(th) - friction * np.cos(th))
    return moved, max(accel, 0.0) * ((1.0 + seconds)**2 - 1.0) / 2.0


def test_block_slides_down_a_slope_steeper_than_its_friction_angle():
    """mu = 0.5 holds up to atan(0.5) = 26.6 degrees; on 35 degrees the block slides as kinetic
    friction says, 6.44 m in its second and third seconds, to 0.1 % (measured 4e-12 relative).
    A frictionless block goes 3.5 times as far, one with mu = 0.45 25 % farther; a creeping one
    not nearly as far."""
    moved, expected = _slide(35.0)
    assert moved == pytest.approx(expected, rel=1e-3), (
        f"slid {moved:.4f} m in 2 s; kinetic friction says {expected:.4f} m")


def test_block_holds_on_a_slope_gentler_than_its_friction_angle():
    """mu = 0.5 on 20 degrees: static friction holds the block; it moves less than 1 micrometre
    in 2 s (measured 5e-16 m)."""
    moved, _ = _slide(20.0)
    assert abs(moved) < 1e-6, f"moved {moved * 1e3:.4f} mm along the slope in 2 s"


def test_kinetic_friction_stops_a_sliding_block_after_v2_over_2_mu_g():
    """A block launched at 2 m/s along flat ground (mu_s 0.8, mu_k 0.4) stops after
    v^2 / (2 mu_k g) = 0.510 m, within 1 % (measured 0.508 m, 0.25 % short)."""
    v0, mu_k = 2.0, 0.4
    model = physics.build_model(block(0.0, friction=0.8, kinetic_friction=mu_k), 1)
    state = physics.initial_state(model, PARAMS, velocity=(v0, 0.0))
    x0 = physics.centre_of_mass(model, state)[0, 0]
    state = physics.rollout(model, state, np.zeros((120, 1, 0)), PARAMS)
    slid = physics.centre_of_mass(model, state)[0, 0] - x0
    assert slid == pytest.approx(v0**2 / (2.0 * mu_k * PARAMS.gravity), rel=0.01)

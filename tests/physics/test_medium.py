"""A fluid medium (physics/medium.py): drag and buoyancy as their laws say, stable at any
coefficient, energy only taken away, a body carried by the flow, and no height gained in air by
flailing; without a fluid nothing changes."""

import numpy as np
import pytest

import physics
from physics import Body, Bone, Sphere
from physics_helpers import bang_bang

WATER = 1000.0
AIR = 1.2


def _ball(radius=0.05, density=2500.0):
    mass = density * 4.0 / 3.0 * np.pi * radius ** 3
    return Body([Sphere((0.0, 0.0), radius=radius, mass=mass)], name="ball"), mass


def _fall(body, params, steps, offset=(0.0, 0.0)):
    model = physics.build_model(body, 1)
    state = physics.initial_state(model, params, offset=offset)
    for _ in range(steps):
        state = physics.step(model, state, None, params)
    return model, state


@pytest.mark.parametrize("radius, density", [(0.05, 2500.0), (0.1, 1200.0), (0.02, 8000.0)])
def test_a_sphere_falling_in_water_reaches_the_terminal_velocity_of_its_drag_law(radius, density):
    """Weight less buoyancy against quadratic drag: v = sqrt(2 (m - rho V) g / (rho C A)),
    within 1 % (the implicit drag settles on it exactly)."""
    body, mass = _ball(radius, density)
    params = physics.SimParams(ground=False, fluid_density=WATER)
    _, state = _fall(body, params, 600)
    volume = 4.0 / 3.0 * np.pi * radius ** 3
    area = np.pi * radius ** 2
    terminal = np.sqrt(2.0 * (mass - WATER * volume) * params.gravity / (WATER * params.fluid_drag_sphere * area))
    assert state.vel[0, 0, 1] < 0
    assert abs(-state.vel[0, 0, 1] - terminal) <= 0.01 * terminal


def test_a_light_sphere_floats_up_and_a_neutral_one_hovers():
    params = physics.SimParams(ground=False, fluid_density=WATER)
    cork, _ = _ball(0.05, 300.0)
    _, state = _fall(cork, params, 120)
    assert state.vel[0, 0, 1] > 0 and state.pos[0, 0, 1] > 0
    neutral, _ = _ball(0.05, WATER)
    _, state = _fall(neutral, params, 120)
    assert abs(state.pos[0, 0, 1]) < 1e-9


def _plate(flat: bool):
    """A 1 m rigid plate (a bone between two small 1 kg spheres), horizontal or vertical."""
    ends = [(-0.5, 0.0), (0.5, 0.0)] if flat else [(0.0, -0.5), (0.0, 0.5)]
    return Body([Sphere(p, radius=0.02, mass=1.0) for p in ends], [Bone(0, 1)], name="plate")


def test_a_plate_falls_slower_flat_than_edge_on_by_the_ratio_of_its_coefficients():
    """Without sphere drag, a plate falling broadside and one falling edge-on reach terminal
    velocities in the ratio sqrt(C_tangent / C_normal), within 1 %."""
    params = physics.SimParams(ground=False, fluid_density=WATER, fluid_drag_sphere=0.0)
    _, flat = _fall(_plate(True), params, 600)
    _, edge = _fall(_plate(False), params, 600)
    v_flat, v_edge = -flat.vel[0, :, 1].mean(), -edge.vel[0, :, 1].mean()
    ratio = np.sqrt(params.fluid_drag_tangent / params.fluid_drag_normal)
    assert v_flat < v_edge
    assert abs(v_flat / v_edge - ratio) <= 0.01 * ratio
    # and each is its drag law's terminal velocity (weight less buoyancy, both ends alike)
    area = 1.0 * 0.04
    weight = (2.0 - 2 * WATER * 4.0 / 3.0 * np.pi * 0.02 ** 3) * params.gravity
    assert v_flat == pytest.approx(np.sqrt(2 * weight / (WATER * params.fluid_drag_normal * area)), rel=0.01)
    assert v_edge == pytest.approx(np.sqrt(2 * weight / (WATER * params.fluid_drag_tangent * area)), rel=0.01)


def _plate_law_lift_to_drag(alpha, params):
    """The plate law's lift-to-drag ratio at angle of attack ``alpha`` (physics/medium.py):
    normal force ``C_N |u|^2 sin a``, skin friction ``C_T |u|^2 cos^2 a``, turned into the parts
    across and along the velocity."""
    normal = params.fluid_drag_normal * np.sin(alpha)
    along = params.fluid_drag_tangent * np.cos(alpha) ** 2
    return ((normal * np.cos(alpha) - along * np.sin(alpha))
            / (normal * np.sin(alpha) + along * np.cos(alpha)))


@pytest.mark.parametrize("pitch", [3.0, 6.0, 10.0, 20.0, 40.0])
def test_a_rigid_plate_glides_at_the_angle_of_its_lift_to_drag_ratio(pitch):
    """A rigid flat plate (a 1 m wing between two light spheres whose own drag is off), dropped
    in air with its leading edge down by ``pitch`` degrees, settles into a steady glide: the
    forces of both ends are alike, so it keeps its pitch, and it glides down a path whose slope
    is the plate law's lift-to-drag ratio at the angle of attack it settles at (the angle between
    its path and the plate), within 5 %. It glides toward its lower edge, as a paper plane
    does."""
    params = physics.SimParams(ground=False, fluid_density=AIR, fluid_drag_sphere=0.0)
    a = np.radians(pitch)
    ends = [(-0.5 * np.cos(a), 0.5 * np.sin(a)), (0.5 * np.cos(a), -0.5 * np.sin(a))]
    body = Body([Sphere(p, radius=0.01, mass=0.05) for p in ends], [Bone(0, 1, width=0.3)], name="wing")
    _, state = _fall(body, params, 1800)
    v = state.vel[0].mean(axis=0)
    chord = state.pos[0, 1] - state.pos[0, 0]
    assert np.degrees(np.arctan2(-chord[1], chord[0])) == pytest.approx(pitch, abs=1e-6)   # it kept its pitch
    alpha = np.arccos(abs(chord @ v) / (np.linalg.norm(chord) * np.linalg.norm(v)))
    assert v[0] > 0 and v[1] < 0
    assert v[0] / -v[1] == pytest.approx(_plate_law_lift_to_drag(alpha, params), rel=0.05)
    assert pitch + np.degrees(alpha) == pytest.approx(np.degrees(np.arctan2(-v[1], v[0])), abs=1e-6)


def _plate_root(u, t, a, b):
    """The root of ``s (1 + b + a sqrt(t^2 + s^2)) = u`` by bisection on [0, u], to rounding."""
    lo, hi = 0.0, u
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid * (1.0 + b + a * np.hypot(t, mid)) < u:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def test_the_plate_law_is_solved_to_a_tenth_of_a_millionth_and_shrinks_the_normal_speed():
    """One implicit step across a plate: ``s (1 + b + a sqrt(t^2 + s^2)) = u`` solved for s,
    over speeds and coefficients across many orders of magnitude: within 2e-7 of the root and
    never below it (Newton's method from above: at worst a hair too little drag), exact for a
    plate moving broadside (t = 0), and 0 <= s <= u (the speed shrinks and never reverses)."""
    from physics.medium import plate_normal_speed
    rng = np.random.default_rng(0)
    for _ in range(20000):
        u, t = 10.0 ** rng.uniform(-6, 3, 2)
        a = 10.0 ** rng.uniform(-8, 8)
        b = 10.0 ** rng.uniform(-8, 3) if rng.random() < 0.5 else 0.0
        s = plate_normal_speed(u, t, a, b)
        root = _plate_root(u, t, a, b)
        assert 0.0 <= s <= u
        assert root * (1 - 1e-13) <= s <= root * (1 + 2e-7)
        broadside = plate_normal_speed(u, 0.0, a, b)
        assert abs(broadside * (1.0 + b + a * broadside) - u) <= 1e-12 * u


def test_drag_never_reverses_a_velocity_however_strong():
    body, _ = _ball()
    for c in (1e3, 1e9):
        params = physics.SimParams(ground=False, gravity=0.0, fluid_density=WATER, fluid_drag_sphere=c,
                                   fluid_viscous_sphere=c)
        model = physics.build_model(body, 1)
        state = physics.initial_state(model, params, velocity=(3.0, -2.0))
        state = physics.step(model, state, None, params)
        v = state.vel[0, 0]
        assert 0 <= v[0] < 3.0 and -2.0 < v[1] <= 0 and np.isfinite(v).all()


@pytest.mark.parametrize("name", ["walker", "chain"])
def test_a_passive_creature_in_still_fluid_only_slows_down(name):
    """No gravity, no ground, fluid at rest: a creature set moving (and spinning) loses kinetic
    energy every step, never gains any. Passive: a muscle held at its rest length is a servo,
    which pushes back with up to its strength when the kick moves it off that length (doing work:
    the walker's 150 N muscles gained it up to 17 % in a step), so the walker's are made stronger
    than anything the kick asks of them: they never give, as rigid bones."""
    body = physics.examples.walker(strength=1e9) if name == "walker" else getattr(physics.examples, name)()
    params = physics.SimParams(ground=False, gravity=0.0, fluid_density=WATER)
    model = physics.build_model(body, 4)
    rng = np.random.default_rng(3)
    state = physics.initial_state(model, params, velocity=rng.normal(scale=1.0, size=model.rest_pos.shape))
    energy = physics.kinetic_energy(model, state)
    for _ in range(300):
        state = physics.step(model, state, None, params)
        now = physics.kinetic_energy(model, state)
        assert np.all(now <= energy * (1 + 1e-12) + 1e-15)
        energy = now
    assert np.all(energy < 1e-2 * physics.kinetic_energy(model, physics.initial_state(
        model, params, velocity=rng.normal(scale=1.0, size=model.rest_pos.shape))))


def test_a_passive_body_drifts_to_the_flow_velocity():
    params = physics.SimParams(ground=False, gravity=0.0, fluid_density=WATER, flow_x=1.5, flow_y=-0.5)
    model = physics.build_model(physics.examples.walker(), 1)
    state = physics.initial_state(model, params)
    for _ in range(1200):
        state = physics.step(model, state, None, params)
    np.testing.assert_allclose(physics.com_velocity(model, state)[0], [1.5, -0.5], rtol=0.01, atol=0.01)


def test_a_wingless_walker_flailing_in_air_falls():
    """Flexing at random in air cannot hold a walker up: over 3 s it falls nearly as far as the
    same walker held still (measured: 21.7-27.9 m against 24.2 m; the drag of its bones brakes
    both to ~10 m/s, and a walker flailing broadside to the flow brakes a little more), and it
    never rises over any half second."""
    params = physics.SimParams(ground=False, fluid_density=AIR)
    model = physics.build_model(physics.examples.walker(), 8)
    steps = 180
    falls = {}
    for flailing in (False, True):
        state = physics.initial_state(model, params)
        heights = [physics.centre_of_mass(model, state)[:, 1]]
        cmds = (bang_bang(np.random.default_rng(1), steps, 8, model.n_muscles, hold=3) if flailing
                else np.zeros((steps, 8, model.n_muscles)))
        for cmd in cmds:
            state = physics.step(model, state, cmd, params)
            heights.append(physics.centre_of_mass(model, state)[:, 1])
        heights = np.array(heights)
        assert np.all(heights[30:] < heights[:-30]), "it rose over half a second"
        falls[flailing] = heights[0] - heights[-1]
    assert np.all(falls[True] >= 0.85 * falls[False])


def test_without_a_fluid_nothing_changes():
    """fluid_density 0 (the default) steps bit for bit as before, whatever the other fluid
    settings say, and the settings of a run without a fluid are written as before."""
    model = physics.build_model(physics.examples.walker(), 3)
    cmds = bang_bang(np.random.default_rng(2), 60, 3, model.n_muscles)
    a = physics.rollout(model, physics.initial_state(model), cmds, physics.SimParams())
    b = physics.rollout(model, physics.initial_state(model), cmds,
                        physics.SimParams(fluid_drag_sphere=3.0, flow_x=2.0, fluid_viscous_normal=5.0))
    assert np.array_equal(a.pos, b.pos) and np.array_equal(a.vel, b.vel)
    assert "fluid_density" not in physics.SimParams().to_dict()
    wet = physics.SimParams(fluid_density=WATER, flow_x=0.3)
    assert physics.SimParams.from_dict(wet.to_dict()) == wet


def test_a_fluid_steps_alike_one_call_at_a_time_and_in_one_rollout():
    params = physics.SimParams(fluid_density=WATER, flow_x=0.2)
    model = physics.build_model(physics.examples.walker(), 5)
    cmds = bang_bang(np.random.default_rng(4), 90, 5, model.n_muscles)
    state = physics.initial_state(model, params)
    one = state
    for cmd in cmds:
        one = physics.step(model, one, cmd, params)
    both = physics.rollout(model, state, cmds, params)
    assert np.array_equal(one.pos, both.pos) and np.array_equal(one.vel, both.vel)


def test_a_fluid_is_for_the_default_solver():
    with pytest.raises(ValueError, match="default solver and contacts only"):
        physics.SimParams(fluid_density=WATER, solver="witkin")


def test_a_bone_switched_off_is_no_plate():
    """A plate whose bone is switched off (body evolution) falls as its two spheres alone."""
    params = physics.SimParams(ground=False, fluid_density=WATER)
    body = _plate(True)
    body.bones[0].optional = True
    model = physics.build_model(body, 2).with_values(bone_on=[[True], [False]])
    state = physics.initial_state(model, params)
    for _ in range(120):
        state = physics.step(model, state, None, params)
    spheres = physics.build_model(Body(body.spheres, name="spheres"), 1)
    alone = physics.initial_state(spheres, params)
    for _ in range(120):
        alone = physics.step(spheres, alone, None, params)
    assert np.array_equal(state.vel[1], alone.vel[0])
    assert state.vel[0, 0, 1] > state.vel[1, 0, 1]   # the plate brakes; the loose spheres fall faster


def test_settings_written_by_an_earlier_engine_read_with_its_plate_coefficients():
    """A file's fluid settings leave out the defaults; engine 2's plates were 1.28 across and
    0.04 along, so its water reads back as that, says it was moved differently, and is written
    again as it was. Engines 4 and 5 changed muscles, on land too: settings of any earlier
    engine move differently."""
    old = {"fluid_density": WATER, "engine": 2}
    params = physics.SimParams.from_dict(old)
    assert (params.fluid_drag_normal, params.fluid_drag_tangent) == (1.28, 0.04)
    assert params.earlier_engine and params.to_dict()["fluid_density"] == WATER
    assert {k: v for k, v in params.to_dict().items() if k.startswith("fluid")} == {"fluid_density": WATER}
    three = physics.SimParams.from_dict({"fluid_density": WATER, "engine": 3})
    assert (three.fluid_drag_normal, three.fluid_drag_tangent) == (2.0, 0.01)
    assert three.earlier_engine
    assert not physics.SimParams.from_dict({"fluid_density": WATER, "engine": 5}).earlier_engine
    assert not physics.SimParams.from_dict({"engine": 5}).earlier_engine
    assert physics.SimParams.from_dict({"engine": 4}).earlier_engine
    assert physics.SimParams.from_dict({"engine": 3}).earlier_engine
    assert physics.SimParams.from_dict({"engine": 1}).earlier_engine

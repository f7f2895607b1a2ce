"""What a brain senses: the layout of the inputs, and each input against its definition."""

import numpy as np
import pytest

import physics
from evolution import Sensors, input_names
from evolution.sensors import MAX_SPEED
from evolution_helpers import design


def _state(model, pos, vel=None, contact=None, time=0.0):
    vel = np.zeros_like(pos) if vel is None else vel
    contact = np.zeros(pos.shape[:2], dtype=bool) if contact is None else contact
    return physics.State(np.ascontiguousarray(pos), np.ascontiguousarray(vel),
                         model.muscle_rest.copy(), contact, time)


def _standing(model, terrain):
    """Every creature at its rest pose, standing on ``terrain`` at x = 0."""
    return physics.initial_state(model, physics.SimParams(),
                                 offset=physics.standing_offset(model, terrain))


def _rotated(model, degrees, shift=(0.7, 0.4)):
    """The rest pose turned by ``degrees`` about its centre of mass, then shifted."""
    a = np.radians(degrees)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    com = physics.centre_of_mass(model, _state(model, model.rest_pos.copy()))[:, None, :]
    return (model.rest_pos - com) @ rot.T + com + np.asarray(shift)


@pytest.fixture(scope="module")
def settled():
    """Two walkers after two seconds standing still on flat ground (no commands): at rest."""
    model = physics.build_model(physics.examples.walker(), 2)
    terrain = physics.make_terrain("flat")
    params = physics.SimParams()
    state = _standing(model, terrain)
    for _ in range(120):
        state = physics.step(model, state, np.zeros((2, model.n_muscles)), params, terrain)
    sensors = Sensors.of(model)
    return model, state, sensors.read(model, state, terrain)


def _part(sensors, inputs, name):
    """The columns of one group of inputs (see the layout in evolution/sensors.py)."""
    M, J, P = sensors.n_muscles, sensors.n_joints, sensors.n_spheres
    start = {"clock": 0, "muscles": 2, "joints": 2 + M, "contacts": 2 + M + J,
             "tilt": 2 + M + J + P, "height": 4 + M + J + P, "speed": 5 + M + J + P}[name]
    width = {"clock": 2, "muscles": M, "joints": J, "contacts": P, "tilt": 2, "height": 1,
             "speed": 2}[name]
    return inputs[:, start:start + width]


# --- layout ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["walker", "worm", "hopper"])
def test_input_count_is_clock_muscles_joints_contacts_and_five(name):
    d = design(name)
    model = physics.build_model(d.body, 3)
    sensors = Sensors.of(model)
    expected = 2 + model.n_muscles + model.n_joints + model.n_spheres + 5
    assert sensors.count == expected
    terrain = physics.make_terrain("flat")
    assert sensors.read(model, _standing(model, terrain), terrain).shape == (3, expected)


@pytest.mark.parametrize("name", ["walker", "worm"])
def test_input_names_give_one_distinct_name_per_input(name):
    d = design(name)
    model = physics.build_model(d.body, 1)
    count = Sensors.of(model).count
    for names in (input_names(model), input_names(model, d.muscle_ids, d.joint_ids, d.sphere_ids)):
        assert len(names) == count
        assert len(set(names)) == count


def test_input_names_use_the_designs_ids_in_order():
    d = design("worm")
    names = input_names(physics.build_model(d.body, 1), d.muscle_ids, d.joint_ids, d.sphere_ids)
    M, J = len(d.muscle_ids), len(d.joint_ids)
    assert names[:2] == ["clock sin", "clock cos"]
    assert names[2:2 + M] == [f"{m} length" for m in d.muscle_ids]
    assert names[2 + M:2 + M + J] == [f"{j} angle" for j in d.joint_ids]
    assert names[-5:] == ["tilt sin", "tilt cos", "height", "speed x", "speed y"]


def test_read_fills_the_given_array():
    model = physics.build_model(physics.examples.walker(), 2)
    terrain = physics.make_terrain("flat")
    sensors = Sensors.of(model)
    out = np.full((2, sensors.count), np.nan)
    got = sensors.read(model, _standing(model, terrain), terrain, out=out)
    assert got is out
    assert np.isfinite(out).all()


# --- each input against its definition ----------------------------------------------------------

@pytest.mark.parametrize("clock_hz, time", [(1.0, 0.0), (1.0, 0.3), (1.7, 2.45), (0.25, 11.0)])
def test_clock_inputs_are_sin_and_cos_of_two_pi_f_t(clock_hz, time):
    model = physics.build_model(physics.examples.walker(), 2)
    terrain = physics.make_terrain("flat")
    sensors = Sensors.of(model, clock_hz)
    state = _state(model, model.rest_pos.copy(), time=time)
    clock = _part(sensors, sensors.read(model, state, terrain), "clock")
    phase = 2.0 * np.pi * clock_hz * time
    np.testing.assert_allclose(clock, [[np.sin(phase), np.cos(phase)]] * 2, rtol=1e-12, atol=1e-15)


def test_muscle_inputs_are_zero_at_rest_length_and_plus_minus_one_at_the_range_ends():
    """Muscle 0 of creature b stretched to rest * (1 + s_b * range): its input reads s_b."""
    body = physics.examples.chain(links=2)
    model = physics.build_model(body, 3)
    terrain = physics.make_terrain("flat")
    sensors = Sensors.of(model)
    scale = np.array([-1.0, 0.0, 1.0])
    pos = model.rest_pos.copy()
    a, b = model.bone_a[model.muscle_bone[0]], model.bone_b[model.muscle_bone[0]]
    rest = model.muscle_rest[:, 0]
    assert (a, b) == (0, 1)
    # move sphere 0 (and nothing else) along the bone so that muscle 0 has the wanted length
    direction = (pos[:, 0] - pos[:, 1]) / rest[:, None]
    pos[:, 0] = pos[:, 1] + direction * (rest * (1.0 + scale * model.muscle_range[:, 0]))[:, None]
    muscles = _part(sensors, sensors.read(model, _state(model, pos), terrain), "muscles")
    np.testing.assert_allclose(muscles[:, 0], scale, atol=1e-12)
    np.testing.assert_allclose(muscles[:, 1], 0.0, atol=1e-12)


def test_joint_inputs_are_the_joint_angles_over_pi():
    rng = np.random.default_rng(5)
    model = physics.build_model(design("worm").body, 3)
    terrain = physics.make_terrain("flat")
    sensors = Sensors.of(model)
    state = _state(model, model.rest_pos + rng.normal(scale=0.03, size=model.rest_pos.shape))
    joints = _part(sensors, sensors.read(model, state, terrain), "joints")
    np.testing.assert_allclose(joints, physics.joint_angles(model, state) / np.pi, atol=1e-12)


def test_contact_inputs_are_the_states_contacts_as_ones_and_zeros():
    model = physics.build_model(physics.examples.walker(), 2)
    terrain = physics.make_terrain("flat")
    sensors = Sensors.of(model)
    contact = np.zeros((2, model.n_spheres), dtype=bool)
    contact[0, [5, 7]] = True
    contact[1, [0, 3, 6]] = True
    state = _state(model, model.rest_pos.copy(), contact=contact)
    assert np.array_equal(_part(sensors, sensors.read(model, state, terrain), "contacts"),
                          contact.astype(float))


@pytest.mark.parametrize("degrees", [30.0, -100.0, 170.0, 180.0])
def test_tilt_inputs_are_sin_and_cos_of_the_body_rotation(degrees):
    model = physics.build_model(physics.examples.walker(), 2)
    terrain = physics.make_terrain("flat")
    sensors = Sensors.of(model)
    state = _state(model, _rotated(model, degrees))
    tilt = _part(sensors, sensors.read(model, state, terrain), "tilt")
    a = np.radians(degrees)
    np.testing.assert_allclose(tilt, [[np.sin(a), np.cos(a)]] * 2, atol=1e-12)


def test_height_input_is_com_height_above_the_terrain_under_it_over_rest_height():
    """On stairs, a walker lifted 0.3 m above the third step."""
    model = physics.build_model(physics.examples.walker(), 1)
    steps = physics.make_terrain("steps")
    sensors = Sensors.of(model)
    com = physics.centre_of_mass(model, _state(model, model.rest_pos.copy()))[0]
    target = np.array([4.5, steps.height(4.5) + 0.3])
    state = _state(model, model.rest_pos + (target - com))
    height = _part(sensors, sensors.read(model, state, steps), "height")
    assert steps.height(4.5) == pytest.approx(0.45)
    assert height[0, 0] == pytest.approx(0.3 / sensors.rest_height, rel=1e-12)


def test_speed_inputs_are_com_velocity_in_body_lengths_per_second_clipped():
    model = physics.build_model(physics.examples.walker(), 3)
    terrain = physics.make_terrain("flat")
    sensors = Sensors.of(model)
    v = np.array([[0.6, -0.3], [3.0 * sensors.size, 0.0], [-100.0, 100.0]])
    vel = np.broadcast_to(v[:, None, :], model.rest_pos.shape).copy()
    speed = _part(sensors, sensors.read(model, _state(model, model.rest_pos.copy(), vel), terrain),
                  "speed")
    np.testing.assert_allclose(speed, [[0.6 / sensors.size, -0.3 / sensors.size], [3.0, 0.0],
                                       [-MAX_SPEED, MAX_SPEED]], rtol=1e-12)


# --- a creature at rest ------------------------------------------------------------------------

def test_rest_pose_reads_zero_muscle_inputs():
    model = physics.build_model(physics.examples.walker(), 1)
    terrain = physics.make_terrain("flat")
    sensors = Sensors.of(model)
    inputs = sensors.read(model, _standing(model, terrain), terrain)
    np.testing.assert_allclose(_part(sensors, inputs, "muscles"), 0.0, atol=1e-12)


def test_creature_at_rest_has_muscles_near_rest_length(settled):
    model, _, inputs = settled
    muscles = _part(Sensors.of(model), inputs, "muscles")
    assert np.abs(muscles).max() < 0.05


def test_creature_at_rest_touches_the_ground_with_its_feet_only(settled):
    model, _, inputs = settled
    contacts = _part(Sensors.of(model), inputs, "contacts")
    feet = np.zeros(model.n_spheres)
    feet[[5, 7]] = 1.0  # the walker's feet
    assert np.array_equal(contacts, [feet, feet])


def test_creature_at_rest_is_upright(settled):
    model, _, inputs = settled
    np.testing.assert_allclose(_part(Sensors.of(model), inputs, "tilt"), [[0.0, 1.0]] * 2, atol=1e-3)


def test_creature_at_rest_stands_at_its_rest_height(settled):
    model, _, inputs = settled
    np.testing.assert_allclose(_part(Sensors.of(model), inputs, "height"), 1.0, atol=0.01)


def test_creature_at_rest_does_not_move(settled):
    model, _, inputs = settled
    np.testing.assert_allclose(_part(Sensors.of(model), inputs, "speed"), 0.0, atol=1e-3)

"""What a brain senses: the layout of the inputs, and each built-in sensor against its definition."""

import numpy as np
import pytest

import physics
from evolution import DEFAULT_SENSORS, Episode, EpisodeRun
from evolution.sensors import MAX_SPEED
from evolution_helpers import design


class _Still:
    def reset(self):
        pass

    def activate(self, inputs):
        return np.zeros((inputs.shape[0], 0))


class Sensing:
    """The default sensors of an episode of ``batch`` creatures of ``body`` on ``terrain``, read
    from states made by hand."""

    def __init__(self, body, batch=2, terrain=None, clock_hz=1.0, part_names=None, sensors=None):
        episode = Episode.make(body, "run", terrain=terrain or physics.Terrain.flat(), clock_hz=clock_hz,
                               part_names=part_names, sensors=sensors)
        self.run = EpisodeRun(episode, _Still(), batch)
        self.model = self.run.model
        self.count = self.run.inputs.shape[1]
        self.size = self.run.ctx.body_size
        self.rest_height = self.run.ctx.rest_height

    def read(self, state, time=0.0):
        self.run.state = state
        self.run.clock.time[:] = time
        return self.run.read_sensors().copy()

    def part(self, inputs, name):
        """The columns of one sensor."""
        for plugin, sl in self.run.input_slices():
            if plugin.name == name:
                return inputs[:, sl]
        raise KeyError(name)


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
    sensing = Sensing(physics.examples.walker())
    model, terrain = sensing.model, sensing.run.terrain
    params = physics.SimParams()
    state = _standing(model, terrain)
    for _ in range(120):
        state = physics.step(model, state, np.zeros((2, model.n_muscles)), params, terrain)
    return sensing, sensing.read(state)


# --- layout ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["walker", "worm", "hopper"])
def test_input_count_is_clock_muscles_joints_contacts_and_five(name):
    sensing = Sensing(design(name).body, batch=3)
    m = sensing.model
    expected = 2 + m.n_muscles + m.n_joints + m.n_spheres + 5
    assert sensing.count == expected
    assert sensing.read(_standing(m, sensing.run.terrain)).shape == (3, expected)


def test_the_default_sensors_are_the_inputs_in_order():
    sensing = Sensing(physics.examples.walker())
    assert [p.name for p in sensing.run.episode.sensors] == list(DEFAULT_SENSORS) == [
        "clock", "muscles", "joints", "contacts", "tilt", "height", "velocity"]
    widths = [sl.stop - sl.start for _, sl in sensing.run.input_slices()]
    m = sensing.model
    assert widths == [2, m.n_muscles, m.n_joints, m.n_spheres, 2, 1, 2]


@pytest.mark.parametrize("name", ["walker", "worm"])
def test_input_names_give_one_distinct_name_per_input(name):
    d = design(name)
    ids = {"sphere": d.sphere_ids, "muscle": d.muscle_ids, "joint": d.joint_ids}
    for part_names in (None, ids):
        names = Episode.make(d.body, part_names=part_names).input_names()
        assert len(names) == Sensing(d.body).count
        assert len(set(names)) == len(names)


def test_input_names_use_the_designs_ids_in_order():
    d = design("worm")
    ids = {"sphere": d.sphere_ids, "muscle": d.muscle_ids, "joint": d.joint_ids}
    names = Episode.make(d.body, part_names=ids).input_names()
    M, J = len(d.muscle_ids), len(d.joint_ids)
    assert names[:2] == ["clock sin", "clock cos"]
    assert names[2:2 + M] == [f"{m} length" for m in d.muscle_ids]
    assert names[2 + M:2 + M + J] == [f"{j} angle" for j in d.joint_ids]
    assert names[-5:] == ["tilt sin", "tilt cos", "height", "speed x", "speed y"]


def test_read_fills_the_inputs():
    sensing = Sensing(physics.examples.walker())
    sensing.run.inputs[:] = np.nan
    got = sensing.read(_standing(sensing.model, sensing.run.terrain))
    assert np.isfinite(got).all() and np.isfinite(sensing.run.inputs).all()


# --- each input against its definition ----------------------------------------------------------

@pytest.mark.parametrize("clock_hz, time", [(1.0, 0.0), (1.0, 0.3), (1.7, 2.45), (0.25, 11.0)])
def test_clock_inputs_are_sin_and_cos_of_two_pi_f_t(clock_hz, time):
    sensing = Sensing(physics.examples.walker(), clock_hz=clock_hz)
    m = sensing.model
    clock = sensing.part(sensing.read(_state(m, m.rest_pos.copy()), time=time), "clock")
    phase = 2.0 * np.pi * clock_hz * time
    np.testing.assert_allclose(clock, [[np.sin(phase), np.cos(phase)]] * 2, rtol=1e-12, atol=1e-15)


def test_clock_counts_from_each_creatures_own_start():
    sensing = Sensing(physics.examples.walker())
    m = sensing.model
    sensing.run.state = _state(m, m.rest_pos.copy())
    sensing.run.clock.time[:] = [0.25, 0.5]
    clock = sensing.part(sensing.run.read_sensors(), "clock")
    np.testing.assert_allclose(clock[:, 0], [1.0, 0.0], atol=1e-15)


def test_muscle_inputs_are_zero_at_rest_length_and_plus_minus_one_at_the_range_ends():
    """Muscle 0 of creature b stretched to rest * (1 + s_b * range): its input reads s_b."""
    sensing = Sensing(physics.examples.chain(links=2), batch=3)
    model = sensing.model
    scale = np.array([-1.0, 0.0, 1.0])
    pos = model.rest_pos.copy()
    a, b = model.bone_a[model.muscle_bone[0]], model.bone_b[model.muscle_bone[0]]
    rest = model.muscle_rest[:, 0]
    assert (a, b) == (0, 1)
    # move sphere 0 (and nothing else) along the bone so that muscle 0 has the wanted length
    direction = (pos[:, 0] - pos[:, 1]) / rest[:, None]
    pos[:, 0] = pos[:, 1] + direction * (rest * (1.0 + scale * model.muscle_range[:, 0]))[:, None]
    muscles = sensing.part(sensing.read(_state(model, pos)), "muscles")
    np.testing.assert_allclose(muscles[:, 0], scale, atol=1e-12)
    np.testing.assert_allclose(muscles[:, 1], 0.0, atol=1e-12)


def test_joint_inputs_are_the_joint_angles_over_pi():
    rng = np.random.default_rng(5)
    sensing = Sensing(design("worm").body, batch=3)
    model = sensing.model
    state = _state(model, model.rest_pos + rng.normal(scale=0.03, size=model.rest_pos.shape))
    joints = sensing.part(sensing.read(state), "joints")
    np.testing.assert_allclose(joints, physics.joint_angles(model, state) / np.pi, atol=1e-12)


def test_contact_inputs_are_the_states_contacts_as_ones_and_zeros():
    sensing = Sensing(physics.examples.walker())
    model = sensing.model
    contact = np.zeros((2, model.n_spheres), dtype=bool)
    contact[0, [5, 7]] = True
    contact[1, [0, 3, 6]] = True
    state = _state(model, model.rest_pos.copy(), contact=contact)
    assert np.array_equal(sensing.part(sensing.read(state), "contacts"), contact.astype(float))


@pytest.mark.parametrize("degrees", [30.0, -100.0, 170.0, 180.0])
def test_tilt_inputs_are_sin_and_cos_of_the_body_rotation(degrees):
    sensing = Sensing(physics.examples.walker())
    tilt = sensing.part(sensing.read(_state(sensing.model, _rotated(sensing.model, degrees))), "tilt")
    a = np.radians(degrees)
    np.testing.assert_allclose(tilt, [[np.sin(a), np.cos(a)]] * 2, atol=1e-12)


def test_height_input_is_com_height_above_the_terrain_under_it_over_rest_height():
    """On stairs, a walker lifted 0.3 m above the third step."""
    steps = physics.make_terrain("steps")
    sensing = Sensing(physics.examples.walker(), batch=1, terrain=steps)
    model = sensing.model
    com = physics.centre_of_mass(model, _state(model, model.rest_pos.copy()))[0]
    target = np.array([4.5, steps.height(4.5) + 0.3])
    height = sensing.part(sensing.read(_state(model, model.rest_pos + (target - com))), "height")
    assert steps.height(4.5) == pytest.approx(0.45)
    assert height[0, 0] == pytest.approx(0.3 / sensing.rest_height, rel=1e-12)


def test_speed_inputs_are_com_velocity_in_body_lengths_per_second_clipped():
    sensing = Sensing(physics.examples.walker(), batch=3)
    model, size = sensing.model, sensing.size
    v = np.array([[0.6, -0.3], [3.0 * size, 0.0], [-100.0, 100.0]])
    vel = np.broadcast_to(v[:, None, :], model.rest_pos.shape).copy()
    speed = sensing.part(sensing.read(_state(model, model.rest_pos.copy(), vel)), "velocity")
    np.testing.assert_allclose(speed, [[0.6 / size, -0.3 / size], [3.0, 0.0],
                                       [-MAX_SPEED, MAX_SPEED]], rtol=1e-12)


# --- a creature at rest ------------------------------------------------------------------------

def test_rest_pose_reads_zero_muscle_inputs():
    sensing = Sensing(physics.examples.walker(), batch=1)
    inputs = sensing.read(_standing(sensing.model, sensing.run.terrain))
    np.testing.assert_allclose(sensing.part(inputs, "muscles"), 0.0, atol=1e-12)


def test_creature_at_rest_has_muscles_near_rest_length(settled):
    """Each muscle gives under the walker's weight as its spring says (physics/bones.py): at
    most 1 % of its length, which for the knee muscles, of the narrowest range (8 %), is 0.12 of
    their range, the unit this sensor reads in."""
    sensing, inputs = settled
    assert np.abs(sensing.part(inputs, "muscles")).max() < 0.15


def test_creature_at_rest_touches_the_ground_with_its_feet_only(settled):
    sensing, inputs = settled
    feet = np.zeros(sensing.model.n_spheres)
    feet[[5, 7]] = 1.0  # the walker's feet
    assert np.array_equal(sensing.part(inputs, "contacts"), [feet, feet])


def test_creature_at_rest_is_upright(settled):
    sensing, inputs = settled
    np.testing.assert_allclose(sensing.part(inputs, "tilt"), [[0.0, 1.0]] * 2, atol=1e-3)


def test_creature_at_rest_stands_at_its_rest_height(settled):
    sensing, inputs = settled
    np.testing.assert_allclose(sensing.part(inputs, "height"), 1.0, atol=0.01)


def test_creature_at_rest_does_not_move(settled):
    sensing, inputs = settled
    np.testing.assert_allclose(sensing.part(inputs, "velocity"), 0.0, atol=1e-3)


# --- distance rays ------------------------------------------------------------------------------

def _at(model, x, y):
    """Every creature's rest pose moved so that its centre of mass is at (x, y)."""
    com = physics.centre_of_mass(model, _state(model, model.rest_pos.copy()))[:, None, :]
    return _state(model, model.rest_pos - com + np.array([x, y]))


def test_rays_are_off_by_default_and_add_one_input_per_ray():
    walker = physics.examples.walker()
    plain = Sensing(walker)
    rays = Sensing(walker, sensors="rays")
    assert rays.count == plain.count + 4
    assert rays.run.episode.input_names()[-4:] == ["ray -90 deg", "ray -60 deg", "ray -30 deg", "ray 0 deg"]


def test_rays_on_flat_ground_see_the_ground_below_and_nothing_straight_ahead():
    sensing = Sensing(physics.examples.walker(), sensors="rays")
    reach = 3.0 * sensing.size
    rays = sensing.part(sensing.read(_at(sensing.model, 0.0, 0.8)), "rays")
    expected = [0.8 / reach, 0.8 / np.sin(np.radians(60)) / reach, 0.8 / np.sin(np.radians(30)) / reach, 1.0]
    expected = np.minimum(expected, 1.0)
    np.testing.assert_allclose(rays, [expected] * 2, rtol=1e-12)


def test_rays_see_a_step_ahead():
    """Straight ahead at 0.1 m above the ground, the first riser of the stairs (at x = 2) is
    2 - x away."""
    steps = physics.make_terrain("steps")
    sensing = Sensing(physics.examples.walker(), batch=1, terrain=steps, sensors="rays")
    reach = 3.0 * sensing.size
    rays = sensing.part(sensing.read(_at(sensing.model, 1.2, 0.1)), "rays")
    # the riser goes from (2, 0) to (2.01, 0.15): at height 0.1 it is at x = 2 + 0.01 * 0.1 / 0.15
    assert rays[0, 3] == pytest.approx((2.0 + 0.01 * 0.1 / 0.15 - 1.2) / reach, rel=1e-12)


def test_ray_to_terrain_is_exact_on_a_slope_and_in_both_directions():
    from evolution.sensors import ray_to_terrain
    slope = physics.Terrain.slope(degrees=20.0)   # y = tan(20) x for x > 0
    t = np.tan(np.radians(20.0))
    # from (-1, 1) going right and level: meets the slope where tan(20) x = 1
    assert ray_to_terrain(slope.xs, slope.ys, -1.0, 1.0, 1.0, 0.0, 10.0) == pytest.approx(1.0 / t + 1.0, rel=1e-12)
    # from (8, 5) going left and down at 45 degrees: y = 5 - s, x = 8 - s meets y = t x
    d = np.sqrt(0.5)
    s = (5.0 - 8.0 * t) / (1.0 - t)
    assert ray_to_terrain(slope.xs, slope.ys, 8.0, 5.0, -d, -d, 20.0) == pytest.approx(s / d, rel=1e-12)
    # from (3, 5) the same way it passes over the slope's foot and meets the flat ground at x = -2
    assert ray_to_terrain(slope.xs, slope.ys, 3.0, 5.0, -d, -d, 20.0) == pytest.approx(5.0 / d, rel=1e-12)
    # out of reach, and from below the ground
    assert ray_to_terrain(slope.xs, slope.ys, -1.0, 1.0, 1.0, 0.0, 2.0) == 2.0
    assert ray_to_terrain(slope.xs, slope.ys, 2.0, 0.1, 0.0, -1.0, 2.0) == 0.0


def test_rays_see_nothing_without_ground():
    body = physics.examples.walker()
    episode = Episode.make(body, "run", sensors="rays", sim=physics.SimParams(ground=False))
    run = EpisodeRun(episode, _Still(), 1)
    run.state = _at(run.model, 0.0, 0.5)
    assert np.all(run.read_sensors()[0, -4:] == 1.0)


# --- bounds -----------------------------------------------------------------------------------------

class _Flailing:
    """Random muscle commands, a new set each step."""

    def __init__(self, muscles, seed=0):
        self.muscles, self.rng = muscles, np.random.default_rng(seed)

    def reset(self):
        pass

    def activate(self, inputs):
        return self.rng.uniform(-1.0, 1.0, (inputs.shape[0], self.muscles))


#: every built-in sensor, and the range each says its inputs keep to (None: unbounded)
BUILTIN_BOUNDS = {"clock": (-1, 1), "muscles": None, "joints": (-1, 1), "contacts": (0, 1),
                  "tilt": (-1, 1), "height": None, "velocity": (-MAX_SPEED, MAX_SPEED), "rays": (0, 1)}


def test_each_builtin_sensor_says_its_bounds():
    episode = Episode.make(design("worm").body, "run", sensors="rays")
    run = EpisodeRun(episode, _Still(), 1)
    low, high = run.input_bounds()
    for plugin, sl in run.input_slices():
        bounds = BUILTIN_BOUNDS[plugin.name]
        expected = (-np.inf, np.inf) if bounds is None else bounds
        assert (low[sl] == expected[0]).all() and (high[sl] == expected[1]).all(), plugin.name


def test_inputs_stay_within_their_bounds_however_the_muscles_are_driven():
    """A worm (it has joints) flailing on hills for 10 s: every input of every step within its
    sensor's bounds."""
    episode = Episode.make(design("worm").body, "run", terrain="hills", sensors="rays", seconds=10.0)
    run = EpisodeRun(episode, _Flailing(episode.n_outputs()), 8)
    low, high = run.input_bounds()
    run.reset()
    bounded = np.isfinite(low) & np.isfinite(high)
    assert bounded.sum() > run.inputs.shape[1] // 2
    while not run.done:
        run.step()
        inputs = run.read_sensors()
        assert ((inputs >= low) & (inputs <= high)).all(), run.t


def test_a_plugin_sensor_with_bounds_the_wrong_way_round_is_refused():
    from evolution import PluginError, Sensor

    class Backwards(Sensor):
        def size(self, ctx):
            return 2

        def read(self, state, clock, out):
            out[:] = 0.0

        def bounds(self, ctx):
            return (1.0, [0.0, 2.0])

    from evolution.plugins import Plugin, PluginRef
    plugin = Plugin(PluginRef("sensor", "backwards", "registered", f"{__name__}:Backwards"), Backwards)
    episode = Episode.make(physics.examples.walker(), "run", sensors=["clock", plugin])
    run = EpisodeRun(episode, _Still(), 1)
    with pytest.raises(PluginError, match=r"bounds\(\) must have low <= high"):
        run.input_bounds()


def test_a_body_without_mass_reads_numbers_or_nan_and_never_raises():
    """The kernels that take a creature's centre of mass divide by its mass (the helpers are
    inlined into them): with none they give what IEEE division gives, as the helpers always did,
    not a ZeroDivisionError."""
    from evolution.sensors import _read_height, _read_tilt, _read_velocity
    from evolution.tasks import _follow_com
    pos, mass, out = np.zeros((2, 3, 2)), np.zeros((2, 3)), np.zeros((2, 2))
    _read_velocity(pos, mass, np.ones(2), out)
    assert np.array_equal(out, np.full((2, 2), -MAX_SPEED))   # NaN clipped as Python's min and max do
    _read_tilt(pos, mass, pos.copy(), out)
    assert np.array_equal(out, np.tile([0.0, 1.0], (2, 1)))
    flat = physics.Terrain.flat()
    height = np.zeros((2, 1))
    _read_height(pos, mass, flat.xs, flat.ys, np.ones(2), height)
    assert np.isnan(height).all()
    com = np.ones((2, 2))
    _follow_com(pos, mass, com)
    assert np.array_equal(com, np.ones((2, 2)))   # not finite: the last finite one stays

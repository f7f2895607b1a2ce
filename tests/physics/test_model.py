"""build_model, the engine's last line of defence: each bad body raises ValueError with its own
one-line reason (neat-python's bad_configuration tests). A model's arrays are read-only, and
Model.with_values changes per-creature values with everything derived from them."""

import dataclasses
import pickle

import numpy as np
import pytest

import physics
from physics import MAX_MUSCLE_RANGE, Body, Bone, Cluster, Joint, Muscle, Sphere


def _pair(**bone):
    """Two spheres 0.5 m apart joined by a bone with the given arguments."""
    return Body([Sphere((0.0, 0.0)), Sphere((0.5, 0.0))], [Bone(0, 1, **bone)])


def _elbow(**joint):
    """Three spheres with a 90 degree angle at sphere 1, and a joint there."""
    spheres = [Sphere((-0.5, 0.0)), Sphere((0.0, 0.0)), Sphere((0.0, 0.5))]
    return Body(spheres, [Bone(1, 0), Bone(1, 2)], [Joint(**{"c": 1, "a": 0, "b": 2, **joint})])


BAD_BODIES = {
    "zero mass": (Body([Sphere((0.0, 0.0), mass=0.0)]), "masses and radii must be positive"),
    "negative radius": (Body([Sphere((0.0, 0.0), radius=-0.1)]), "masses and radii must be positive"),
    "no spheres": (Body([]), "at least one sphere"),
    "non-finite position": (Body([Sphere((0.0, np.nan))]), "positions must be finite"),
    "zero-length bone": (Body([Sphere((0.2, 0.3)), Sphere((0.2, 0.3))], [Bone(0, 1)]), "bone 0 has zero length"),
    "bone to itself": (Body([Sphere((0.0, 0.0))], [Bone(0, 0)]), "bone 0 joins sphere 0 to itself"),
    "bad sphere index": (Body([Sphere((0.0, 0.0)), Sphere((1.0, 0.0))], [Bone(0, 5)]),
                         "bone 0 refers to sphere 5, which does not exist"),
    "negative sphere index": (Body([Sphere((0.0, 0.0)), Sphere((1.0, 0.0))], [Bone(-1, 1)]),
                              "bone 0 refers to sphere -1"),
    "muscle range too large": (_pair(muscle=Muscle(range=MAX_MUSCLE_RANGE + 0.01)),
                               r"muscle on bone 0: range 0.91 outside \(0, 0.9\]"),
    "muscle without strength": (_pair(muscle=Muscle(strength=0.0)), "strength and speed must be positive"),
    "negative compliance": (_pair(compliance=-1.0), "bone 0 has negative compliance"),
    "joint outside its limits": (_elbow(min_angle=np.radians(100.0), max_angle=np.radians(170.0)),
                                 r"joint 0: its initial angle -?90.0 deg is outside its limits"),
    "joint limits reversed": (_elbow(min_angle=1.0, max_angle=-1.0), "need -180 <= min <= max <= 180"),
    "joint kind": (_elbow(kind="ball"), "kind must be 'hinge' or 'free', not 'ball'"),
    "joint repeats a sphere": (_elbow(b=0), "joint 0 needs three different spheres"),
    "cluster of one": (Body([Sphere((0.0, 0.0)), Sphere((1.0, 0.0))], clusters=[Cluster([1])]),
                       "cluster 0 needs two or more different spheres"),
    "cluster stiffness": (Body([Sphere((0.0, 0.0)), Sphere((1.0, 0.0))], clusters=[Cluster([0, 1], stiffness=1.5)]),
                          r"cluster 0: stiffness must be within \(0, 1\]"),
    "kinetic above static friction": (Body([Sphere((0.0, 0.0), friction=0.5, kinetic_friction=0.6)]),
                                      "kinetic friction at most the static one"),
    "restitution above one": (Body([Sphere((0.0, 0.0), restitution=1.2)]), r"restitution must be within \[0, 1\]"),
}


@pytest.mark.parametrize("case", list(BAD_BODIES))
def test_build_model_rejects_a_bad_body_with_its_reason(case):
    body, message = BAD_BODIES[case]
    with pytest.raises(ValueError, match=message):
        physics.build_model(body)


def test_build_model_rejects_an_empty_batch():
    with pytest.raises(ValueError, match="batch must be at least 1"):
        physics.build_model(physics.examples.walker(), batch=0)


def test_model_replicates_the_body_across_the_batch():
    """Every per-creature array carries the batch first, with the body's values in each row."""
    model = physics.build_model(physics.examples.walker(), batch=3)
    assert model.rest_pos.shape == (3, 8, 2) and model.bone_rest.shape == (3, 14)
    assert model.n_muscles == 6 and np.all(model.muscle_rest == model.muscle_rest[0])
    np.testing.assert_allclose(model.total_mass(), 8.0)


def test_step_rejects_commands_of_the_wrong_shape():
    model = physics.build_model(physics.examples.walker(), batch=2)
    state = physics.initial_state(model)
    with pytest.raises(ValueError, match=r"commands must have shape \(2, 6\)"):
        physics.step(model, state, np.zeros((2, 5)))


def test_step_rejects_a_state_of_another_model():
    walkers = physics.build_model(physics.examples.walker(), batch=2)
    chains = physics.build_model(physics.examples.chain(), batch=2)
    with pytest.raises(ValueError, match="state is for 2 creatures of 7 spheres, model for 2 of 8"):
        physics.step(walkers, physics.initial_state(chains), None)


# --- read-only arrays, and Model.with_values ------------------------------------------------------
def test_writing_into_any_model_array_raises():
    """Derived arrays (inv_mass, cluster_rest, the solver's hot copy) would go stale: every array
    of a model, and of a pickled and unpickled one, refuses writes."""
    from physics_helpers import cluster_walker

    model = physics.build_model(cluster_walker(), batch=2)
    for copy in (model, pickle.loads(pickle.dumps(model))):
        for f in dataclasses.fields(copy):
            value = getattr(copy, f.name)
            if isinstance(value, np.ndarray):
                with pytest.raises(ValueError, match="read-only"):
                    value[...] = value
    with pytest.raises(ValueError, match="read-only"):
        model.mass *= 2.0


def test_with_values_recomputes_what_derives_from_the_values():
    """Masses per creature: inv_mass follows (a pinned sphere stays pinned) and each cluster's
    rest shape is centred on its new centre of mass; muscle strength is the muscles' limit in
    bone_max_force,
    joint stiffness in joint_compliance / joint_spring; the old model is as it was, and the new
    one's hot copy is its own."""
    from physics.hot import hot_of
    from physics_helpers import cluster_walker

    body = cluster_walker()
    body.spheres[0].fixed = True
    model = physics.build_model(body, batch=3)
    old_hot = hot_of(model)
    mass = np.random.default_rng(1).uniform(0.5, 4.0, (3, model.n_spheres))
    new = model.with_values(mass=mass, muscle_strength=[[10.0], [20.0], [30.0]], joint_stiffness=5.0)
    np.testing.assert_array_equal(new.mass, mass)
    assert np.all(new.inv_mass[:, 0] == 0.0)
    np.testing.assert_allclose(new.inv_mass[:, 1:], 1.0 / mass[:, 1:])
    for k in range(new.n_clusters):
        q = slice(new.cluster_start[k], new.cluster_start[k + 1])
        m = mass[:, new.cluster_sphere[q]]
        np.testing.assert_allclose((m[..., None] * new.cluster_rest[:, q]).sum(1), 0.0, atol=1e-12)
    forces = new.bone_max_force[:, new.muscle_bone]
    np.testing.assert_array_equal(forces, np.broadcast_to([[10.0], [20.0], [30.0]], forces.shape))
    np.testing.assert_array_equal(new.muscle_strength, forces)
    assert np.all(np.isinf(np.delete(new.bone_max_force, new.muscle_bone, axis=1)))
    assert np.all(new.joint_spring) and np.allclose(new.joint_compliance, 0.2)
    np.testing.assert_array_equal(model.mass, physics.build_model(body, batch=3).mass)
    np.testing.assert_array_equal(hot_of(new).inv_mass[:, :3], np.moveaxis(new.inv_mass, 0, -1))
    assert hot_of(model) is old_hot


@pytest.mark.parametrize("values, message", [
    ({"bone_rest": 0.0}, "'bone_rest' cannot be set"),
    ({"rest_pos": 0.0}, "rest_pos gives a bone zero length"),
    ({"inv_mass": 1.0}, "'inv_mass' cannot be set"),
    ({"mass": 0.0}, "mass must be positive"),
    ({"radius": np.nan}, "radius must be finite"),
    ({"mass": np.ones(3)}, r"mass: a value of shape \(3,\) does not fit \(2, 5\)"),
    ({"friction": 0.1}, "kinetic friction at most the static one"),
    ({"restitution": 1.5}, r"restitution must be within \[0, 1\]"),
    ({"muscle_range": 0.95}, r"muscle_range must be within \(0, 0.9\]"),
    ({"joint_stiffness": -1.0}, "joint_stiffness must be >= 0"),
    ({"joint_min": np.radians(130.0)}, "joint limits must keep"),  # above the rest angle, 120
])
def test_with_values_rejects_a_bad_value_with_its_reason(values, message):
    from physics_helpers import hinge_arm

    model = physics.build_model(hinge_arm(), batch=2)
    with pytest.raises(ValueError, match=message):
        model.with_values(**values)


def test_what_a_kernel_borrows_reads_and_writes_the_callers_memory():
    """What a kernel borrows (``unowned``: no reference counts) reads and writes the caller's
    memory, alone or in a tuple."""
    from numba import njit

    from physics.hot import unowned

    @njit
    def bump(a, pair):
        b = unowned(a)
        c, d = unowned(pair)
        b[0] += 1.0
        c[1] += 2.0
        d[0] = True
        return b[0] + c[1]

    a, c, d = np.zeros(3), np.zeros(2), np.zeros(1, np.bool_)
    assert bump(a, (c, d)) == 3.0 and a[0] == 1.0 and c[1] == 2.0 and d[0]


def test_what_is_prepared_for_stepping_is_kept_in_one_place_per_settings_and_threads():
    """physics.prepare_step makes a model's step plan once per (settings, parallel, threads) and
    keeps it in model.prepared; equal settings share it, other settings get their own; a model
    made by with_values starts with nothing prepared."""
    model = physics.build_model(physics.examples.walker(), batch=4)
    assert model.prepared.plans == {} and model.prepared.hot is None
    a = physics.prepare_step(model, physics.SimParams(), parallel=False)
    assert physics.prepare_step(model, physics.SimParams(), parallel=False) is a
    assert a.args.substeps == physics.SimParams().substeps and a.args.pbd and not a.parallel
    b = physics.prepare_step(model, physics.SimParams(substeps=5), parallel=False)
    assert b is not a and b.args.substeps == 5
    assert all(x is y for x, y in zip(a.hot + a.work, b.hot + b.work))   # the model's arrays and workspace, once
    witkin = physics.prepare_step(model, physics.SimParams(solver="witkin"), parallel=False)
    assert not witkin.args.pbd and witkin.hot is None and witkin.work is None
    assert len(model.prepared.plans) == 3 and model.prepared.hot is not None
    new = model.with_values(mass=2.0)
    assert new.prepared is not model.prepared and new.prepared.plans == {} and new.prepared.hot is None


def test_a_pickled_model_and_terrain_come_back_ready_to_step():
    """Pickled with out-of-band buffers (as Ray's object store does: arrays come back read-only),
    a terrain's kernel arrays are writable again and a model brings its masked parts' values but
    none of what was prepared for stepping; both step as the originals, bit for bit."""
    model = physics.build_model(physics.examples.walker(), batch=2).with_values(
        bone_on=[[True] * 14, [True] * 13 + [False]])
    terrain = physics.Terrain.hills(seed=3)
    state = physics.initial_state(model)
    cmd = np.full((2, model.n_muscles), 0.3)
    ref = physics.step(model, state, cmd, physics.SimParams(), terrain, parallel=False)
    buffers = []
    data = pickle.dumps((model, terrain), protocol=5, buffer_callback=buffers.append)
    model2, terrain2 = pickle.loads(data, buffers=[memoryview(bytes(b.raw())) for b in buffers])  # read-only
    assert terrain2.table.flags.writeable and terrain2.blocks.flags.writeable
    assert model2.prepared.hot is None and model2.prepared.plans == {}
    assert set(model2.unmasked) == set(model.unmasked)
    out = physics.step(model2, state, cmd, physics.SimParams(), terrain2, parallel=False)
    assert np.array_equal(out.pos, ref.pos) and np.array_equal(out.vel, ref.vel)

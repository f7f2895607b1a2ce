"""Sensors, each against its definition computed here in numpy."""

import numpy as np
import pytest

import physics
from physics import State
from physics_helpers import cluster_walker, hinge_arm


def _state(model, pos, vel=None):
    vel = np.zeros_like(pos) if vel is None else vel
    return State(pos, vel, model.muscle_rest.copy(), np.zeros(pos.shape[:2], dtype=bool))


def _rotated(model, degrees, shift=(0.7, -1.3)):
    """The rest pose of every creature turned by ``degrees`` about the origin, then shifted."""
    a = np.radians(degrees)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    return model.rest_pos @ rot.T + np.asarray(shift)


def test_centre_of_mass_is_the_mass_weighted_mean_position(rng):
    model = physics.build_model(cluster_walker(), 3)  # unequal masses
    pos = rng.normal(size=model.rest_pos.shape)
    expected = (model.mass[..., None] * pos).sum(1) / model.mass.sum(1)[:, None]
    np.testing.assert_allclose(physics.centre_of_mass(model, _state(model, pos)), expected, rtol=1e-13)


def test_com_velocity_is_the_mass_weighted_mean_velocity(rng):
    model = physics.build_model(cluster_walker(), 3)
    vel = rng.normal(size=model.rest_pos.shape)
    expected = (model.mass[..., None] * vel).sum(1) / model.mass.sum(1)[:, None]
    got = physics.com_velocity(model, _state(model, model.rest_pos.copy(), vel))
    np.testing.assert_allclose(got, expected, rtol=1e-13)


@pytest.mark.parametrize("degrees", [30.0, -100.0, 170.0])
def test_orientation_is_the_angle_of_a_rigidly_rotated_body(degrees):
    """The walker's rest pose turned by ``degrees`` (and moved) reads as that angle."""
    model = physics.build_model(physics.examples.walker(), 1)
    got = physics.orientation(model, _state(model, _rotated(model, degrees)))
    assert got[0] == pytest.approx(np.radians(degrees), abs=1e-12)


def test_kinetic_energy_is_half_m_v_squared(rng):
    model = physics.build_model(cluster_walker(), 2)
    vel = rng.normal(size=model.rest_pos.shape)
    expected = 0.5 * (model.mass * (vel**2).sum(-1)).sum(1)
    got = physics.kinetic_energy(model, _state(model, model.rest_pos.copy(), vel))
    np.testing.assert_allclose(got, expected, rtol=1e-13)


def test_joint_angles_of_the_rest_pose_are_the_rest_angles():
    """joint_angles reads the hinge arm's rest pose as its rest angles, 120 degrees each, and a
    rigid rotation does not change them."""
    model = physics.build_model(hinge_arm(), 1)
    angles = physics.joint_angles(model, _state(model, _rotated(model, 75.0)))
    np.testing.assert_allclose(angles, np.radians(120.0), atol=1e-12)


def test_bone_strain_reads_a_uniform_stretch():
    """The walker scaled by 1.01 about its centre of mass: every bone and muscle reads +1 %."""
    model = physics.build_model(physics.examples.walker(), 1)
    c = (model.mass[..., None] * model.rest_pos).sum(1) / model.mass.sum()
    pos = c[:, None] + 1.01 * (model.rest_pos - c[:, None])
    np.testing.assert_allclose(physics.bone_strain(model, _state(model, pos)), 0.01, atol=1e-12)


def test_muscle_lengths_are_one_at_rest():
    model = physics.build_model(physics.examples.walker(), 2)
    np.testing.assert_allclose(physics.muscle_lengths(model, _state(model, model.rest_pos.copy())), 1.0, rtol=1e-13)


def test_ground_contacts_are_the_feet_of_a_standing_walker():
    """After a second standing on flat ground, exactly the two feet (spheres 5 and 7) touch."""
    model = physics.build_model(physics.examples.walker(), 1)
    state = physics.initial_state(model)
    for _ in range(60):
        state = physics.step(model, state, None)
    expected = np.zeros(8, dtype=bool)
    expected[[5, 7]] = True
    assert np.array_equal(physics.ground_contacts(model, state)[0], expected)

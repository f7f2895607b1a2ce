"""The solver and contact-model settings: their checks, their round trip through a dict (champion
files store ``SimParams.to_dict()``), and that every combination steps every kind of body."""

import numpy as np
import pytest

import physics
from physics import SimParams
from physics_helpers import BODIES

#: "in one piece": no rigid bone further than this from its length
STRAIN_LIMIT = 0.15
NEW_KEYS = ("solver", "contacts", "witkin_alpha", "witkin_beta", "dem_stiffness", "dem_damping", "dem_shear")


def test_defaults_are_the_position_based_solver_and_contacts():
    params = SimParams()
    assert (params.solver, params.contacts) == ("pbd", "pbd")


@pytest.mark.parametrize("key, value, choices", [("solver", "verlet", physics.SOLVERS),
                                                 ("contacts", "springs", physics.CONTACT_MODELS)])
def test_unknown_solver_or_contact_model_is_refused_with_the_choices(key, value, choices):
    with pytest.raises(ValueError) as err:
        SimParams(**{key: value})
    message = str(err.value)
    assert repr(value) in message
    assert all(c in message for c in choices)


@pytest.mark.parametrize("key, value", [("solver", 1), ("contacts", None), ("witkin_alpha", "1"),
                                        ("dem_stiffness", float("nan")), ("dem_damping", True)])
def test_new_settings_are_type_checked(key, value):
    with pytest.raises(ValueError, match=key):
        SimParams(**{key: value})


@pytest.mark.parametrize("kwargs", [dict(witkin_beta=2.0), dict(witkin_beta=-0.1), dict(witkin_alpha=-1.0),
                                    dict(witkin_alpha=2.0, witkin_beta=1.0), dict(dem_stiffness=0.0),
                                    dict(dem_damping=1.0), dict(dem_damping=-0.1), dict(dem_shear=-1.0)])
def test_out_of_range_feedback_and_contact_settings_are_refused(kwargs):
    with pytest.raises(ValueError):
        SimParams(**kwargs)


def test_settings_round_trip_through_a_dict():
    params = SimParams(solver="witkin", contacts="dem", witkin_alpha=0.5, witkin_beta=0.25,
                       dem_stiffness=1e5, dem_damping=0.5, dem_shear=0.2, substeps=3)
    data = params.to_dict()
    assert all(key in data for key in NEW_KEYS)
    assert SimParams.from_dict(data) == params


def test_a_dict_without_the_new_keys_loads_with_their_defaults():
    """Champion files written before these settings existed still load, as the PBD engine."""
    old = {k: v for k, v in SimParams(gravity=5.0).to_dict().items() if k not in NEW_KEYS}
    params = SimParams.from_dict(old)
    assert params == SimParams(gravity=5.0)


def test_unknown_keys_are_still_refused():
    with pytest.raises(ValueError, match="wind"):
        SimParams.from_dict({**SimParams().to_dict(), "wind": 1.0})


@pytest.mark.parametrize("solver", physics.SOLVERS)
@pytest.mark.parametrize("contacts", physics.CONTACT_MODELS)
@pytest.mark.parametrize("name", list(BODIES))
def test_every_combination_steps_every_body_and_keeps_it_together(name, solver, contacts):
    """Bones, muscles, hinges with springs, a rigid cluster and self-collisions, dropped from
    30 cm and flexing at random for 2 s: finite, and in one piece (rigid bones within
    STRAIN_LIMIT of their length; measured worst: PBD 10.1 % (cluster walker), Witkin with PBD
    contacts 10.6 % (cluster walker), either solver with DEM contacts 0.2 %)."""
    params = SimParams(solver=solver, contacts=contacts)
    model = physics.build_model(BODIES[name](), 3)
    dx, dy = physics.standing_offset(model, physics.Terrain.flat())
    state = physics.initial_state(model, params, offset=(dx, dy + 0.3))
    rng = np.random.default_rng(1)
    rigid = np.isinf(model.bone_max_force[0]) & (model.bone_compliance[0] == 0)
    worst = 0.0
    commands = np.repeat(rng.uniform(-1, 1, (8, 3, model.n_muscles)), 15, axis=0)  # new every 0.25 s
    for cmd in commands:
        state = physics.step(model, state, cmd, params)
        worst = max(worst, np.abs(physics.bone_strain(model, state)[:, rigid]).max(initial=0.0))
    assert np.all(np.isfinite(state.pos)) and np.all(np.isfinite(state.vel))
    assert worst < STRAIN_LIMIT, f"a rigid bone strayed {100 * worst:.1f} % from its length"
    assert state.time == pytest.approx(2.0)


def test_substeps_for_is_the_setting_for_the_default_engine():
    model = physics.build_model(physics.examples.walker(), 1)
    assert physics.substeps_for(model, SimParams(substeps=3)) == 3


def test_substeps_for_grows_with_dem_stiffness():
    model = physics.build_model(physics.examples.walker(), 1)
    soft = physics.substeps_for(model, SimParams(contacts="dem", dem_stiffness=1e4))
    stiff = physics.substeps_for(model, SimParams(contacts="dem", dem_stiffness=1e6))
    assert 1 <= soft < stiff

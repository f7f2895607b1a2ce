"""Joints: hinges keep their angle within their limits however hard the muscles push."""

import numpy as np
import pytest

import physics
from physics_helpers import FREE_SPACE, bang_bang, hinge_arm

#: The arms below are a worst case: 100 N muscles whose ranges ask for angles beyond the limits,
#: so every command pushes every hinge hard into a limit, and the chain of three hinges couples
#: them. The skeleton's solve brings a hinge past its limit back to it, and the hinges that solve
#: carried past in a second round; what the ground and the next substep do after that is left.
FINE = {"free space": physics.SimParams(gravity=0.0, ground=False, substeps=4),
        "on the ground": physics.SimParams(substeps=4)}
#: what a viewer would not notice (measured, 5 seeds, 4 substeps: up to 0.03 deg in free space,
#: 0.4 to 0.7 deg on the ground, where a foot pulled off it is solved again free)
FINE_TOL = np.radians(2.0)
ENVIRONMENTS = {"free space": FREE_SPACE, "on the ground": physics.SimParams()}
#: at default settings (measured, 11 seeds: 0.7 to 2.6 deg on the ground, median 1.2; engine 3's
#: muscles 0.8 to 2.8, median 1.7; 3-10 deg with the relaxation sweeps of engine 1)
DEFAULT_TOL = np.radians(3.0)


def _worst_overshoot(params, rng):
    model = physics.build_model(hinge_arm(), 16)
    state = physics.initial_state(model, params, offset=(0.0, 0.6))  # the arm hangs 0.52 m down
    worst, where_worst = -np.inf, None
    for n, cmd in enumerate(bang_bang(rng, 300, model.batch, model.n_muscles, hold=2)):
        state = physics.step(model, state, cmd, params)
        angle = physics.joint_angles(model, state)
        past = np.maximum(model.joint_min - angle, angle - model.joint_max)
        if past.max() > worst:
            worst = past.max()
            where_worst = (n, *np.unravel_index(past.argmax(), past.shape))
    return worst, where_worst


@pytest.mark.parametrize("where", list(FINE))
def test_hinges_stay_within_their_limits_with_substeps(where, rng):
    """16 hinge arms whose muscles push every hinge into a limit, new random signs every two
    steps for 5 s, 4 substeps: no hinge ends a step more than 2 degrees past a limit."""
    worst, at = _worst_overshoot(FINE[where], rng)
    assert worst <= FINE_TOL, (f"a hinge went {np.degrees(worst):.2f} deg past its limit "
                               f"(step {at[0]}, creature {at[1]}, joint {at[2]})")


@pytest.mark.parametrize("where", list(ENVIRONMENTS))
def test_hinges_stay_near_their_limits_at_default_settings(where, rng):
    """The same worst case at default settings stays within the documented bound."""
    worst, at = _worst_overshoot(ENVIRONMENTS[where], rng)
    assert worst <= DEFAULT_TOL, (f"a hinge went {np.degrees(worst):.2f} deg past its limit "
                                  f"(step {at[0]}, creature {at[1]}, joint {at[2]})")


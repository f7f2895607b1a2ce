"""A passive creature dropped on the ground comes to rest: no jitter, no creep."""

import numpy as np
import pytest

import physics
from physics import Terrain

PARAMS = physics.SimParams()
SECONDS = 8

#: kinetic energy (J) the 8 kg walker may keep in the last second: an rms speed of 5 mm/s.
#: Measured: 3e-27 J on flat ground; on the slope the walker rocks on its feet, the energy
#: falling off over the seconds (3.5e-5 J at most in the eighth second).
REST_KE = 1e-4
#: how far the centre of mass may stray over the last second (m). Measured: 2e-15 m on flat
#: ground, 0.24 mm on the slope (the rocking, not a drift)
CREEP = 1e-3

#: flat ground, and Terrain.slope(10) with the walker 3 m up it, clear of the flat part: its feet
#: (friction 1.0, kinetic 0.8) hold it there
TERRAINS = {"flat": (Terrain.flat(), 0.0), "slope": (Terrain.slope(degrees=10.0), 3.0)}


@pytest.fixture(scope="module", params=list(TERRAINS))
def settled(request):
    """The walker dropped from 0.5 m with its muscles at rest: per-step kinetic energy and
    centre of mass over SECONDS seconds."""
    terrain, x = TERRAINS[request.param]
    model = physics.build_model(physics.examples.walker(), 1)
    state = physics.initial_state(model, PARAMS, offset=(x, 0.5 + terrain.height(x)))
    energy, com = [], []
    for _ in range(SECONDS * 60):
        state = physics.step(model, state, None, PARAMS, terrain)
        energy.append(physics.kinetic_energy(model, state)[0])
        com.append(physics.centre_of_mass(model, state)[0])
    return request.param, np.array(energy), np.array(com)


def test_dropped_walker_comes_to_rest(settled):
    """After SECONDS seconds the kinetic energy stays below REST_KE for the whole last second."""
    kind, energy, _ = settled
    assert energy[-60:].max() < REST_KE, f"{energy[-60:].max():.2e} J left in the last second on {kind}"


def test_dropped_walker_does_not_creep(settled):
    """Over the last second the centre of mass stays within CREEP of where it was."""
    kind, _, com = settled
    moved = np.linalg.norm(com[-60:] - com[-61], axis=-1).max()
    assert moved < CREEP, f"the centre of mass crept {moved * 1e3:.2f} mm in the last second on {kind}"

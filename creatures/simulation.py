"""A creature simulated headless with a pattern on its muscles, and what happened, as numbers.

What ``creatures simulate`` reports, and the sine that a design's preview and the editor's live
test drive its muscles with: a designer checks here that a creature holds together before
evolving it.
"""

from __future__ import annotations

import math

import numpy as np

import physics
from physics.integrity import MEASURES

MUSCLE_PATTERNS = ("none", "sine", "random")
#: the sine pattern: every muscle at this frequency, phases spread evenly over the muscles
SINE_HZ = 1.0
#: the random pattern: a new random command for every muscle this often
RANDOM_HOLD_S = 0.25


def random_commands(rng: np.random.Generator, steps: int, batch: int, n_muscles: int, hold: int) -> np.ndarray:
    """Random commands, C-contiguous (steps, batch, M): each uniform in [-1, 1], a new one for
    every muscle of every creature every ``hold`` steps."""
    levels = rng.uniform(-1.0, 1.0, (-(-steps // hold), batch, n_muscles))
    return np.ascontiguousarray(np.repeat(levels, hold, axis=0)[:steps])


def muscle_commands(pattern: str, steps: int, n_muscles: int, dt: float, seed: int = 0) -> np.ndarray:
    """Commands of shape (steps, M) for a named pattern."""
    t = np.arange(steps)[:, None] * dt
    if pattern == "none" or n_muscles == 0:
        return np.zeros((steps, n_muscles))
    if pattern == "sine":
        phase = 2.0 * np.pi * np.arange(n_muscles)[None, :] / n_muscles
        return np.sin(2.0 * np.pi * SINE_HZ * t + phase)
    if pattern == "random":
        return random_commands(np.random.default_rng(seed), steps, 1, n_muscles, max(1, round(RANDOM_HOLD_S / dt)))[:, 0]
    raise ValueError(f"unknown muscle pattern {pattern!r} (choose from {', '.join(MUSCLE_PATTERNS)})")


def clearance(model: physics.Model, state: physics.State, terrain: physics.Terrain) -> float:
    """Lowest gap between a sphere's bottom and the terrain height under its centre (m)."""
    bottom = state.pos[..., 1] - model.radius
    return float(np.min(bottom - terrain.height(state.pos[..., 0])))


def run_simulation(body: physics.Body, seconds: float = 10.0, muscles: str = "sine",
                   params: physics.SimParams | None = None, terrain: physics.Terrain | None = None,
                   seed: int = 0) -> dict:
    """Simulate one creature and summarise the run as a dict of plain numbers."""
    params = params or physics.SimParams()
    terrain = terrain or physics.Terrain.flat()
    model = physics.build_model(body, batch=1)
    # stand the creature on the terrain under its start: lowest sphere just touching
    lift = 0.0
    if params.ground:
        gap = np.min(model.rest_pos[0, :, 1] - model.radius[0] - terrain.height(model.rest_pos[0, :, 0]))
        lift = max(0.0, -gap) + 1e-4
    state = physics.initial_state(model, params, offset=(0.0, lift))
    steps = max(1, round(seconds / params.dt))
    cmd = muscle_commands(muscles, steps, model.n_muscles, params.dt, seed)
    rigid = physics.rigid_bones(model)[0]

    com0 = physics.centre_of_mass(model, state)[0]
    vel0 = physics.com_velocity(model, state)[0]
    max_height = com0[1]
    max_strain = 0.0
    worst = np.zeros(len(MEASURES))   # physics.integrity's measures, the rule evolution judges by
    max_muscle_error = 0.0
    lowest = clearance(model, state, terrain) if params.ground else math.inf
    finite = True
    contact_steps = 0
    t_end = 0.0
    for k in range(steps):
        state = physics.step(model, state, cmd[k][None, :], params, terrain)
        if not (np.all(np.isfinite(state.pos)) and np.all(np.isfinite(state.vel))):
            finite = False
            t_end = state.time
            break
        strain = np.abs(physics.bone_strain(model, state)[0])
        worst = np.fmax(worst, physics.integrity(model, state, terrain, params.ground)[0])
        if rigid.any():
            max_strain = max(max_strain, float(strain[rigid].max()))
        if (~rigid).any():
            max_muscle_error = max(max_muscle_error, float(strain[~rigid].max()))
        max_height = max(max_height, float(physics.centre_of_mass(model, state)[0, 1]))
        if params.ground:
            lowest = min(lowest, clearance(model, state, terrain))
            contact_steps += bool(state.contact[0].any())
        t_end = state.time
    com1 = physics.centre_of_mass(model, state)[0]
    vel1 = physics.com_velocity(model, state)[0]
    return {
        "design": body.name,
        "seconds": round(t_end, 6),
        "steps": steps,
        "muscles": muscles,
        "solver": params.solver,
        "contacts": params.contacts,
        "terrain": terrain.kind if params.ground else "none",
        "gravity": params.gravity,
        "medium": physics.medium_name(params),
        "spheres": model.n_spheres,
        "bones": model.n_bones,
        "muscle_count": model.n_muscles,
        "joints": model.n_joints,
        "distance": float(com1[0] - com0[0]),
        "max_height": float(max_height),
        "max_bone_strain": max_strain,
        "max_muscle_error": max_muscle_error,
        "max_hinge_overshoot": float(worst[1]),
        "max_penetration": float(worst[2]),
        "broken": physics.verdict(worst) if finite else "the simulation became non-finite",
        "lowest_clearance": None if math.isinf(lowest) else float(lowest),
        "ground_contact_fraction": contact_steps / steps if params.ground else 0.0,
        "finite": finite,
        "com_start": [float(v) for v in com0],
        "com_end": [float(v) for v in com1],
        "com_velocity_start": [float(v) for v in vel0],
        "com_velocity_end": [float(v) for v in vel1],
    }

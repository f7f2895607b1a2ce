"""The changing part of a simulation: where the spheres are and how fast they move.

Verlet keeps velocity at half steps: ``vel`` after a step is ``(pos_now - pos_before) / h`` with
``h`` the substep, the average velocity over the last substep. With that convention Störmer-Verlet
reproduces constant-acceleration motion exactly, so :func:`initial_state` starts ``vel`` half a
substep back (``v0 - g h / 2``) and a body resting on the ground reports zero velocity.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .model import Model
from .params import SimParams

__all__ = ["State", "initial_state", "standing_offset", "standing_offsets"]


@dataclass(frozen=True)
class State:
    """Positions and velocities of a batch, replaced (never mutated) by each step.

    Attributes
    ----------
    pos : ndarray, shape (B, P, 2)
        Sphere centres (m).
    vel : ndarray, shape (B, P, 2)
        Half-step sphere velocities (m/s), see the module docstring.
    muscle_len : ndarray, shape (B, M)
        Current rest length of each muscle (m), moving toward its commanded length.
    contact : ndarray of bool, shape (B, P)
        Whether each sphere touched the ground at the end of the last step.
    time : float
        Simulated time (s).
    """

    pos: np.ndarray
    vel: np.ndarray
    muscle_len: np.ndarray
    contact: np.ndarray
    time: float = 0.0

    @property
    def batch(self) -> int:
        return self.pos.shape[0]


def initial_state(model: Model, params: SimParams | None = None, offset=(0.0, 0.0),
                  velocity=(0.0, 0.0)) -> State:
    """Every creature at its rest pose shifted by ``offset`` (m), moving at ``velocity`` (m/s).

    ``offset`` and ``velocity`` may be a pair for all or an array of shape (B, 2) (or (B, P, 2)
    for velocity). The velocity is stored half a substep back, as Verlet wants it.
    """
    params = params or SimParams()
    B = model.batch
    pos = model.rest_pos + np.broadcast_to(np.asarray(offset, dtype=np.float64).reshape(-1, 1, 2)
                                           if np.ndim(offset) == 2 else np.asarray(offset, dtype=np.float64), (B, 1, 2))
    v = np.asarray(velocity, dtype=np.float64)
    if v.ndim == 2:
        v = v[:, None, :]
    vel = np.empty_like(pos)
    vel[...] = v
    h = params.dt / params.substeps
    vel[..., 1] += params.gravity * h / 2.0  # half a substep back: v(-h/2) = v0 - g h / 2 (g points down)
    if params.fluid_density > 0:  # in a fluid, buoyancy is part of that acceleration (physics/medium.py)
        lift = params.fluid_density * params.gravity * (4.0 / 3.0) * np.pi * model.radius ** 3 * model.inv_mass
        vel[..., 1] -= lift * h / 2.0
    return State(np.ascontiguousarray(pos), vel, model.muscle_rest.copy(),
                 np.zeros(model.rest_pos.shape[:2], dtype=np.bool_), 0.0)


def standing_offset(model: Model, terrain, x: float = 0.0, gap: float = 1e-4, creature: int = 0
                    ) -> tuple[float, float]:
    """The offset that puts the rest pose's centre at ``x`` with its lowest sphere ``gap`` above
    the terrain (``terrain`` is a :class:`~physics.terrain.Terrain`), for :func:`initial_state`:
    of creature ``creature``'s body (its spheres switched on)."""
    on = model.sphere_on[creature]
    pos = model.rest_pos[creature] if on.all() else model.rest_pos[creature][on]
    radius = model.radius[creature] if on.all() else model.radius[creature][on]
    dx = x - 0.5 * (pos[:, 0].min() + pos[:, 0].max())
    clearance = pos[:, 1] - radius - terrain.height(pos[:, 0] + dx)
    return float(dx), float(gap - clearance.min())


def standing_offsets(model: Model, terrain, x: float = 0.0, gap: float = 1e-4) -> np.ndarray:
    """:func:`standing_offset` of every creature, shape (B, 2): for a batch whose creatures
    have bodies of their own (``Model.with_values``)."""
    return np.array([standing_offset(model, terrain, x, gap, b) for b in range(model.batch)],
                    dtype=np.float64).reshape(model.batch, 2)

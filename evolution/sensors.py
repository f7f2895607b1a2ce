"""What a brain senses: one row of inputs per creature, filled for the whole batch by one kernel.

Input layout (``S = 2 + M + J + P + 5``), each scaled to about [-1, 1]:

==========================  =====  ==========================================================
inputs                      count  value
==========================  =====  ==========================================================
clock                       2      sin and cos of ``2 pi f t`` (f: ``Sensors.clock_hz``)
muscle lengths              M      (length / rest - 1) / range: -1 fully contracted, +1 extended
joint angles                J      angle / pi
ground contacts             P      1 if the sphere touches the ground, else 0
body orientation            2      sin and cos of the body's angle against its rest pose
centre-of-mass height       1      height above the terrain under it, over the body's rest height
centre-of-mass velocity     2      vx, vy in body lengths per second (clipped to +-5)
==========================  =====  ==========================================================

:func:`input_names` gives a name per input, for the viewer and for people.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

import physics
from physics.sensors import creature_com, creature_rotation

__all__ = ["Sensors", "input_names"]

#: velocities are clipped to this many body lengths per second before they reach a brain
MAX_SPEED = 5.0


@dataclass(frozen=True)
class Sensors:
    """The sensing of one design: how many inputs, and the constants they are scaled by.

    Attributes
    ----------
    clock_hz : float
        Frequency of the clock inputs.
    size : float
        The body's length scale (m): its rest extent, for velocities.
    rest_height : float
        Centre-of-mass height of the rest pose above the ground (m).
    """

    n_muscles: int
    n_joints: int
    n_spheres: int
    clock_hz: float
    size: float
    rest_height: float

    @classmethod
    def of(cls, model: physics.Model, clock_hz: float = 1.0) -> "Sensors":
        pos = model.rest_pos[0]
        extent = np.ptp(pos, axis=0)
        size = float(max(extent.max(), 2.0 * model.radius[0].max()))
        com_y = float((model.mass[0] * pos[:, 1]).sum() / model.mass[0].sum())
        bottom = float((pos[:, 1] - model.radius[0]).min())
        return cls(model.n_muscles, model.n_joints, model.n_spheres, float(clock_hz), size,
                   max(com_y - bottom, 1e-3))

    @property
    def count(self) -> int:
        return 2 + self.n_muscles + self.n_joints + self.n_spheres + 5

    def read(self, model: physics.Model, state: physics.State, terrain: physics.Terrain,
             out: np.ndarray | None = None) -> np.ndarray:
        """Inputs of every creature, shape (B, S); written into ``out`` if given."""
        B = state.pos.shape[0]
        if out is None:
            out = np.empty((B, self.count))
        e = model.muscle_bone
        _read_sensors(state.pos, state.vel, state.contact, state.time, model.mass, model.rest_pos,
                      model.bone_a[e], model.bone_b[e], model.muscle_rest, model.muscle_range,
                      model.joint_a, model.joint_c, model.joint_b, terrain.xs, terrain.ys,
                      self.clock_hz, self.size, self.rest_height, out)
        return out


def input_names(model: physics.Model, muscle_ids=None, joint_ids=None, sphere_ids=None) -> list[str]:
    """A short name for every input, in order."""
    muscle_ids = muscle_ids or [f"muscle {k}" for k in range(model.n_muscles)]
    joint_ids = joint_ids or [f"joint {k}" for k in range(model.n_joints)]
    sphere_ids = sphere_ids or [f"sphere {k}" for k in range(model.n_spheres)]
    return (["clock sin", "clock cos"] + [f"{m} length" for m in muscle_ids]
            + [f"{j} angle" for j in joint_ids] + [f"{s} contact" for s in sphere_ids]
            + ["tilt sin", "tilt cos", "height", "speed x", "speed y"])


@njit(cache=True)
def _read_sensors(pos, vel, contact, time, mass, rest_pos, ma, mb, m_rest, m_range, ja, jc, jb,
                  xs, ys, clock_hz, size, rest_height, out):
    B, P = pos.shape[0], pos.shape[1]
    M = ma.shape[0]
    J = jc.shape[0]
    phase = 2.0 * np.pi * clock_hz * time
    s_clock = np.sin(phase)
    c_clock = np.cos(phase)
    for b in range(B):
        k = 0
        out[b, k] = s_clock
        out[b, k + 1] = c_clock
        k += 2
        for m in range(M):
            dx = pos[b, ma[m], 0] - pos[b, mb[m], 0]
            dy = pos[b, ma[m], 1] - pos[b, mb[m], 1]
            out[b, k + m] = (np.sqrt(dx * dx + dy * dy) / m_rest[b, m] - 1.0) / m_range[b, m]
        k += M
        for j in range(J):
            ux = pos[b, ja[j], 0] - pos[b, jc[j], 0]
            uy = pos[b, ja[j], 1] - pos[b, jc[j], 1]
            vx = pos[b, jb[j], 0] - pos[b, jc[j], 0]
            vy = pos[b, jb[j], 1] - pos[b, jc[j], 1]
            out[b, k + j] = np.arctan2(ux * vy - uy * vx, ux * vx + uy * vy) / np.pi
        k += J
        for i in range(P):
            out[b, k + i] = 1.0 if contact[b, i] else 0.0
        k += P
        # centre of mass, its velocity, and the best-matching body rotation
        cx, cy = creature_com(mass, pos, b)
        vxs, vys = creature_com(mass, vel, b)
        sn, cs = creature_rotation(mass, rest_pos, pos, b)
        norm = np.sqrt(sn * sn + cs * cs)
        out[b, k] = sn / norm if norm > 0.0 else 0.0
        out[b, k + 1] = cs / norm if norm > 0.0 else 1.0
        ground = np.interp(cx, xs, ys)
        out[b, k + 2] = (cy - ground) / rest_height
        out[b, k + 3] = min(MAX_SPEED, max(-MAX_SPEED, vxs / size))
        out[b, k + 4] = min(MAX_SPEED, max(-MAX_SPEED, vys / size))

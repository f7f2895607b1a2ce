"""What a creature can sense, and what tasks and tests measure, for a whole batch at once.

Each function takes the model and the state and returns one array with the batch axis first.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .joints import joint_angle
from .model import Model
from .state import State

__all__ = ["centre_of_mass", "com_velocity", "muscle_lengths", "bone_strain", "joint_angles",
           "ground_contacts", "orientation", "kinetic_energy"]


@njit(cache=True, error_model="numpy")
def _weighted_mean(mass, a):
    out = np.empty((a.shape[0], 2))
    for b in range(a.shape[0]):
        out[b, 0], out[b, 1] = creature_com(mass, a, b)
    return out


def centre_of_mass(model: Model, state: State) -> np.ndarray:
    """Centre of mass of each creature (m), shape (B, 2)."""
    return _weighted_mean(model.mass, state.pos)


def com_velocity(model: Model, state: State) -> np.ndarray:
    """Velocity of the centre of mass (m/s, over the last substep), shape (B, 2)."""
    return _weighted_mean(model.mass, state.vel)


@njit(cache=True, error_model="numpy")
def _bone_lengths(pos, a, b):
    B = pos.shape[0]
    E = a.shape[0]
    out = np.empty((B, E))
    for k in range(B):
        for e in range(E):
            dx = pos[k, a[e], 0] - pos[k, b[e], 0]
            dy = pos[k, a[e], 1] - pos[k, b[e], 1]
            out[k, e] = np.sqrt(dx * dx + dy * dy)
    return out


def muscle_lengths(model: Model, state: State) -> np.ndarray:
    """Each muscle's length over its rest length (1 at rest), shape (B, M)."""
    e = model.muscle_bone
    return _bone_lengths(state.pos, model.bone_a[e], model.bone_b[e]) / model.muscle_rest


def bone_strain(model: Model, state: State) -> np.ndarray:
    """Each bone's relative length error against its current rest length (muscles against their
    driven length), shape (B, E): 0.01 is 1 % too long."""
    rest = model.bone_rest.copy()
    rest[:, model.muscle_bone] = state.muscle_len
    return _bone_lengths(state.pos, model.bone_a, model.bone_b) / rest - 1.0


@njit(cache=True, error_model="numpy")
def _joint_angles(pos, a, c, b):
    B = pos.shape[0]
    J = c.shape[0]
    out = np.empty((B, J))
    for k in range(B):
        for j in range(J):
            out[k, j] = joint_angle(pos[k, a[j], 0], pos[k, a[j], 1], pos[k, c[j], 0], pos[k, c[j], 1],
                                    pos[k, b[j], 0], pos[k, b[j], 1])
    return out


def joint_angles(model: Model, state: State) -> np.ndarray:
    """Each joint's angle (radians, in (-pi, pi]), shape (B, J)."""
    return _joint_angles(state.pos, model.joint_a, model.joint_c, model.joint_b)


def ground_contacts(model: Model, state: State) -> np.ndarray:
    """Whether each sphere touched the ground at the end of the last step, shape (B, P)."""
    return state.contact


@njit(cache=True, error_model="numpy", inline="always")
def creature_com(mass, a, b):
    """Mass-weighted mean of ``a[b] : (P, 2)`` (positions or velocities) of creature ``b``."""
    m = 0.0
    x = 0.0
    y = 0.0
    for i in range(a.shape[1]):
        m += mass[b, i]
        x += mass[b, i] * a[b, i, 0]
        y += mass[b, i] * a[b, i, 1]
    return x / m, y / m


@njit(cache=True, error_model="numpy", inline="always")
def creature_rotation(mass, rest, pos, b):
    """Creature ``b``'s rotation from its rest pose as the unnormalised ``(sin, cos)`` pair whose
    atan2 is the best-matching angle (the shape-matching rotation of the whole body)."""
    c0x, c0y = creature_com(mass, rest, b)
    cx, cy = creature_com(mass, pos, b)
    sn = 0.0
    cs = 0.0
    for i in range(pos.shape[1]):
        qx = rest[b, i, 0] - c0x
        qy = rest[b, i, 1] - c0y
        rx = pos[b, i, 0] - cx
        ry = pos[b, i, 1] - cy
        sn += mass[b, i] * (qx * ry - qy * rx)
        cs += mass[b, i] * (qx * rx + qy * ry)
    return sn, cs


@njit(cache=True, error_model="numpy")
def _orientation(mass, rest, pos):
    out = np.empty(pos.shape[0])
    for b in range(pos.shape[0]):
        sn, cs = creature_rotation(mass, rest, pos, b)
        out[b] = np.arctan2(sn, cs)
    return out


def orientation(model: Model, state: State) -> np.ndarray:
    """Body angle against the rest pose (radians, counter-clockwise positive), shape (B,): the
    rotation that best matches the whole body to its rest shape (as in shape matching)."""
    return _orientation(model.mass, model.rest_pos, state.pos)


def kinetic_energy(model: Model, state: State) -> np.ndarray:
    """Kinetic energy of each creature (J), shape (B,)."""
    return 0.5 * np.einsum("bp,bpk,bpk->b", model.mass, state.vel, state.vel)

"""Hot data: the model's per-creature arrays transposed so the batch axis is last.

The solver works on chunks of creatures ("lanes") with the creature as the innermost loop, which
lets the compiler vectorise across creatures and keeps independent creatures' dependency chains
interleaved (a Gauss-Seidel sweep over one creature's bones is a chain of dependent square roots
and divisions; sixteen creatures side by side are not). Reading ``bone_rest[e, b0:b0 + lanes]``
is then one contiguous load.

Every loop over a chunk's lanes has a fixed cost (views, alias checks), paid per bone per sweep,
so chunks should be as wide as the work allows: :func:`chunk_lanes` makes one or two chunks per
thread (one chunk in all when stepping serially), at most ``MAX_LANES`` wide. Measured on the walker,
one thread, CPU time per creature-step at B = 1024: 64 lanes 1480 ns, 128: 889, 256: 743,
512: 677. Every kernel is compiled with ``error_model="numpy"``: a float division by zero gives inf or NaN
(which the NaN guards and the episode's rules catch) instead of a check and a branch that stops
the compiler from vectorising the loop around it (a lane loop of ``sqrt`` and ``/`` measured
4.2 ns per lane with the check, 1.0 without). Results are otherwise identical, bit for bit.
The public :class:`~physics.model.Model` keeps the batch axis first;
this is built once per model and cached on it, which is safe because a model's arrays are
read-only (``Model.with_values`` makes a new model, with a hot copy of its own).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from .model import Model

#: the widest chunk of creatures; one chunk is one unit of parallel work
MAX_LANES = 512


def chunk_lanes(batch: int, threads: int) -> int:
    """Lanes per chunk for ``batch`` creatures over ``threads`` threads: one chunk when serial,
    else one per thread, or two when they stay at least 128 wide (finer work evens out a thread
    slowed by another process on its core); none wider than MAX_LANES; a multiple of 8."""
    chunks = 1 if threads <= 1 else (2 * threads if batch >= 2 * threads * 128 else threads)
    chunks = max(chunks, -(-batch // MAX_LANES))
    lanes = -(-batch // chunks)
    return min(MAX_LANES, -(-lanes // 8) * 8)

_TOPOLOGY = ("bone_a", "bone_b", "soft_bones", "rigid_bones", "muscle_bone", "joint_a", "joint_c", "joint_b", "joint_limited",
             "cluster_start", "cluster_sphere", "pair_a", "pair_b")
_PER_CREATURE = ("mass", "inv_mass", "radius", "friction", "kinetic_friction", "restitution",
                 "bone_rest", "bone_compliance", "bone_max_force", "muscle_rest", "muscle_range",
                 "muscle_speed", "joint_rest", "joint_min", "joint_max", "joint_compliance",
                 "joint_spring", "cluster_rest", "cluster_stiffness")

Hot = namedtuple("Hot", _TOPOLOGY + _PER_CREATURE)


def hot_of(model: Model) -> Hot:
    """The lane-major copy of ``model`` (shape (X..., B) for each per-creature array), cached."""
    hot = model.__dict__.get("_hot")
    if hot is None:
        rigid = np.all((model.bone_compliance == 0.0) & np.isinf(model.bone_max_force), axis=0)
        derived = {"soft_bones": np.flatnonzero(~rigid).astype(np.int64),
                   "rigid_bones": np.flatnonzero(rigid).astype(np.int64)}
        # fresh writeable copies: a read-only array is a different numba type, and every new
        # combination of types compiles the step kernel again (~15 s each, measured)
        arrays = [np.array(derived[n] if n in derived else getattr(model, n), order="C", copy=True)
                  for n in _TOPOLOGY]
        for n in _PER_CREATURE:
            arrays.append(np.array(np.moveaxis(getattr(model, n), 0, -1), order="C", copy=True))
        hot = Hot(*arrays)
        object.__setattr__(model, "_hot", hot)
    return hot


def workspace_of(model: Model, lanes: int) -> tuple:
    """Scratch arrays for one step of ``model``'s batch in chunks of ``lanes``, one slice per
    chunk, allocated once and reused: allocating them every step costs page faults (they are
    above glibc's mmap threshold for large batches) that were measured to halve the speed."""
    cache = model.__dict__.setdefault("_work", {})
    work = cache.get(lanes)
    if work is None:
        B, P, E, J = model.batch, model.n_spheres, model.n_bones, model.n_joints
        LANES = lanes
        chunks = (B + LANES - 1) // LANES
        work = (np.zeros((chunks, P, 2, LANES)),   # x: positions at the substep's start
                np.zeros((chunks, P, 2, LANES)),   # p: predicted positions
                np.zeros((chunks, P, 2, LANES)),   # v: velocities
                np.zeros((chunks, E, 4, LANES)),   # per bone: rest length, w_i + w_j, direction at substep start
                np.zeros((chunks, E, LANES)),      # bone multipliers
                np.zeros((chunks, J, LANES)),      # joint spring multipliers
                np.zeros((chunks, P, LANES)),      # ground push this substep
                np.zeros((chunks, P, LANES)),      # friction's tangential cut this substep
                np.zeros((chunks, P, 3, LANES)),   # contact half-planes
                np.zeros((chunks, P, LANES)),      # predicted normal velocity at contact
                np.zeros((chunks, P, LANES), np.bool_),  # touching
                np.zeros((chunks, P), np.bool_))        # sphere may touch the ground this substep
        cache[lanes] = work
    return work

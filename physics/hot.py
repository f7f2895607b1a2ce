"""Hot data: the model's per-creature arrays transposed so the batch axis is last.

The solver works on chunks of creatures ("lanes") with the creature as the innermost loop, which
lets the compiler vectorise across creatures and keeps independent creatures' dependency chains
interleaved (a Gauss-Seidel sweep over one creature's bones is a chain of dependent square roots
and divisions; sixteen creatures side by side are not). Reading ``bone_rest[e, b0:b0 + lanes]``
is then one contiguous load.

Every loop over a chunk's lanes has a fixed cost (views, alias checks), paid per bone per sweep,
so chunks should be wide; but the skeleton's solve (physics/skeleton.py) streams its factor's
~90 entries per creature several times a substep, which at 512 lanes no longer fits the cache:
:func:`chunk_lanes` makes one or two chunks per thread (one chunk when stepping serially), at
most ``MAX_LANES`` wide. Measured on the walker, one thread, ``physics.rollout`` at B = 1024,
3 substeps: 64 lanes 385k creature-steps/s, 128: 435k, 512: 366k (with the sweeps of the
solver before, 512 lanes had been fastest). Every kernel is compiled with
``error_model="numpy"``: a float division by zero gives inf or NaN
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
from numba import njit
from numba.core import cgutils, types
from numba.extending import intrinsic

from .bones import ROWS, muscle_omega
from .model import Model
from .skeleton import SKELETON_FIELDS, frames_of, plan_skeleton

#: the widest chunk of creatures; one chunk is one unit of parallel work
MAX_LANES = 128


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
                 "joint_spring", "cluster_rest", "cluster_stiffness", "bone_plate")

#: derived from the topology: for each cluster the most clusters any of its spheres belongs to
#: (the Jacobi sweeps split a sphere's mass among its constraints: physics/bones.py)
_DEGREES = ("cluster_split",)

#: derived per creature: each skeleton rod's 1 / rest length (physics/skeleton.py); at each
#: sphere, how many joint springs meet (the mass they split), counting only the springs the
#: creature has (a part switched off is not there); each rigid cluster's frame by the creature's
#: own rest shape (skeleton.frames_of)
_DERIVED = ("rod_inv_rest", "joint_degree", "anchor_a", "anchor_b", "frame_member", "frame_rest")

#: the muscles' spring and dashpot (per creature: the angular frequency of each muscle's spring
#: on its two spheres, physics/bones.py, and its damping ratio), and each skeleton row's muscle
#: (the plan's ``row_muscle``: -1 for a row that is not one)
_MUSCLE_DYNAMICS = ("muscle_omega", "muscle_damping", "row_muscle")

Hot = namedtuple("Hot", _TOPOLOGY + _PER_CREATURE + _DEGREES + SKELETON_FIELDS + _DERIVED + _MUSCLE_DYNAMICS)


def hot_of(model: Model) -> Hot:
    """The lane-major copy of ``model`` (shape (X..., B) for each per-creature array), made once
    (``model.prepared.hot``). Its arrays are views into three flat buffers (:func:`packed_hot_of`)."""
    prepared = model.prepared
    hot = prepared.hot
    if hot is None:
        soft = model.bone_soft  # a topology: the same whatever creatures share the batch
        derived = {"soft_bones": np.flatnonzero(soft).astype(np.int64),
                   "rigid_bones": np.flatnonzero(~soft).astype(np.int64)}
        arrays = [np.asarray(derived[n] if n in derived else getattr(model, n)) for n in _TOPOLOGY]
        arrays += [np.moveaxis(getattr(model, n), 0, -1) for n in _PER_CREATURE]
        arrays.append(cluster_split(model))
        plan = plan_skeleton(model.bone_a, model.bone_b, derived["rigid_bones"], derived["soft_bones"],
                             model.joint_a, model.joint_c, model.joint_b, model.joint_limited, model.n_spheres,
                             model.cluster_start, model.cluster_sphere, model.muscle_bone)
        arrays += [plan[name] for name in SKELETON_FIELDS]
        arrays.append(np.ascontiguousarray(1.0 / model.bone_rest[:, plan["rod_bone"]].T))
        arrays.append(np.ascontiguousarray(joint_degree(model).T))
        arrays += list(frames_of(plan, model.cluster_start, model.cluster_sphere, model.cluster_rest))
        arrays += [np.ascontiguousarray(muscle_omegas(model).T), np.moveaxis(model.muscle_damping, 0, -1),
                   plan["row_muscle"]]
        # Fresh writeable C-ordered copies (a read-only array is a different numba type, and
        # every new combination of types compiles the step kernel again, ~15 s each), packed
        # into one buffer per dtype: the kernels take the three buffers and a layout and rebuild
        # the tuple inside (unpack_hot), since handing numba 32 arrays costs ~5 us per call
        # to type and unbox them, a quarter of a one-creature step.
        kinds = {np.dtype(np.float64): 0, np.dtype(np.int64): 1, np.dtype(np.bool_): 2}
        sizes = [0, 0, 0]
        layout = np.zeros((len(arrays), 5), dtype=np.int64)  # buffer, offset, then up to 3 dims
        for k, a in enumerate(arrays):
            kind = kinds[a.dtype]
            layout[k, 0], layout[k, 1] = kind, sizes[kind]
            layout[k, 2:2 + a.ndim] = a.shape
            sizes[kind] += a.size
        buffers = (np.zeros(sizes[0]), np.zeros(sizes[1], np.int64), np.zeros(sizes[2], np.bool_))
        views = []
        for k, a in enumerate(arrays):
            kind, offset = layout[k, 0], layout[k, 1]
            view = buffers[kind][offset:offset + a.size].reshape(a.shape)
            view[...] = a
            views.append(view)
        hot = Hot(*views)
        prepared.hot, prepared.packed = hot, buffers + (layout,)
    return hot


def muscle_omegas(model: Model) -> np.ndarray:
    """Float (B, M): each muscle's angular frequency on its two spheres (:func:`physics.bones.muscle_omega`;
    0 for a muscle switched off)."""
    e = model.muscle_bone
    wsum = model.inv_mass[:, model.bone_a[e]] + model.inv_mass[:, model.bone_b[e]]
    return muscle_omega(model.bone_max_force[:, e], model.muscle_stretch, model.muscle_rest, wsum)


def joint_degree(model: Model) -> np.ndarray:
    """Float (B, P): at each sphere of each creature, how many of its joint springs meet there,
    at least 1 (the mass they split, physics/joints.py). A spring a creature has switched off
    does not count, so a creature moves as the body without that part would."""
    B, P = model.batch, model.n_spheres
    joint = np.zeros((B, P))
    for k in range(model.n_joints):
        on = model.joint_spring[:, k]
        for i in {int(model.joint_a[k]), int(model.joint_c[k]), int(model.joint_b[k])}:
            joint[:, i] += on
    return np.maximum(joint, 1.0)


def cluster_split(model: Model) -> np.ndarray:
    """For each cluster, the most clusters one of its spheres belongs to, int64 (K,), at least 1
    (a topology)."""
    member = np.bincount(model.cluster_sphere, minlength=model.n_spheres)
    split = np.ones(model.n_clusters, np.int64)
    for k in range(model.n_clusters):
        spheres = model.cluster_sphere[model.cluster_start[k]:model.cluster_start[k + 1]]
        split[k] = max(1, int(member[spheres].max())) if spheres.size else 1
    return split


def packed_hot_of(model: Model) -> tuple:
    """``(floats, ints, bools, layout)``: the buffers :func:`hot_of`'s arrays are views of, and
    where each lies (row k: buffer, offset, shape), for :func:`unpack_hot`."""
    hot_of(model)
    return model.prepared.packed


@intrinsic
def unowned(typingctx, array):
    """``array`` (or each array of a tuple of them) without its owner: a borrowed view, numba's
    meminfo and parent pointer left null. For arrays a kernel is handed and that outlive the call
    (the model's hot buffers, the workspace). Numba counts references to an array's owner with
    an atomic add at every function a kernel calls with it, and again when the function returns,
    even when LLVM inlines the function; the solver's stages are called with ~100 arrays a
    substep, several times, and for one creature those atomic adds were half of its step. An
    array without an owner is counted by a test for null only. (The arithmetic, and so every
    result, is unchanged.)"""
    def borrow(context, builder, ty, value):
        if isinstance(ty, types.Array):
            out = context.make_array(ty)(context, builder, value=value)
            out.meminfo = cgutils.get_null_value(out.meminfo.type)
            out.parent = cgutils.get_null_value(out.parent.type)
            return out._getvalue()
        if isinstance(ty, types.BaseTuple):
            for k, item in enumerate(ty.types):
                value = builder.insert_value(value, borrow(context, builder, item,
                                                           builder.extract_value(value, k)), k)
            return value
        return value

    def codegen(context, builder, signature, args):
        return borrow(context, builder, signature.args[0], args[0])
    return array(array), codegen


@njit(cache=True, error_model="numpy")
def _view1(buf, row):
    return unowned(buf[row[1]:row[1] + row[2]])


@njit(cache=True, error_model="numpy")
def _view2(buf, row):
    return unowned(buf[row[1]:row[1] + row[2] * row[3]].reshape((row[2], row[3])))


@njit(cache=True, error_model="numpy")
def _view3(buf, row):
    return unowned(buf[row[1]:row[1] + row[2] * row[3] * row[4]].reshape((row[2], row[3], row[4])))


@njit(cache=True, error_model="numpy")
def unpack_hot(f, i, b, layout):
    """The :data:`Hot` tuple over :func:`packed_hot_of`'s buffers, inside a kernel (no copy)."""
    L = layout
    return Hot(_view1(i, L[0]), _view1(i, L[1]), _view1(i, L[2]), _view1(i, L[3]), _view1(i, L[4]),
               _view1(i, L[5]), _view1(i, L[6]), _view1(i, L[7]), _view1(b, L[8]), _view1(i, L[9]),
               _view1(i, L[10]), _view1(i, L[11]), _view1(i, L[12]), _view2(f, L[13]), _view2(f, L[14]),
               _view2(f, L[15]), _view2(f, L[16]), _view2(f, L[17]), _view2(f, L[18]), _view2(f, L[19]),
               _view2(f, L[20]), _view2(f, L[21]), _view2(f, L[22]), _view2(f, L[23]), _view2(f, L[24]),
               _view2(f, L[25]), _view2(f, L[26]), _view2(f, L[27]), _view2(f, L[28]), _view2(b, L[29]),
               _view3(f, L[30]), _view2(f, L[31]), _view2(f, L[32]), _view1(i, L[33]), _view1(i, L[34]),
               _view1(i, L[35]), _view1(i, L[36]), _view1(i, L[37]), _view1(i, L[38]), _view1(i, L[39]),
               _view1(i, L[40]), _view1(i, L[41]), _view1(i, L[42]), _view1(i, L[43]), _view1(i, L[44]),
               _view1(i, L[45]), _view1(i, L[46]), _view1(i, L[47]), _view1(i, L[48]), _view1(i, L[49]),
               _view1(i, L[50]), _view1(i, L[51]), _view1(i, L[52]), _view1(i, L[53]), _view1(i, L[54]),
               _view1(i, L[55]), _view1(i, L[56]), _view1(i, L[57]), _view1(i, L[58]), _view1(i, L[59]),
               _view1(i, L[60]), _view1(i, L[61]), _view1(i, L[62]), _view1(i, L[63]), _view1(i, L[64]),
               _view1(i, L[65]), _view1(i, L[66]), _view2(f, L[67]), _view2(f, L[68]), _view2(i, L[69]),
               _view2(i, L[70]), _view2(i, L[71]), _view2(f, L[72]), _view2(f, L[73]), _view2(f, L[74]),
               _view1(i, L[75]))


def workspace_of(model: Model, lanes: int) -> tuple:
    """Scratch arrays for one step of ``model``'s batch in chunks of ``lanes``, one slice per
    chunk, allocated once and reused: allocating them every step costs page faults (they are
    above glibc's mmap threshold for large batches) that were measured to halve the speed. They
    are views of two buffers (:func:`packed_workspace_of`)."""
    return _workspace(model, lanes)[0]


def packed_workspace_of(model: Model, lanes: int) -> tuple:
    """``(floats, bools, layout)``: the buffers :func:`workspace_of`'s arrays are views of and
    where each lies (row k: buffer, offset, shape), for :func:`unpack_work` inside a kernel. A
    kernel handed 31 arrays has each one's type checked by numba's dispatcher at every call
    (~0.2 us each): for one creature, a step call's dispatch took longer than a third of its
    step."""
    return _workspace(model, lanes)[1]


def _workspace(model: Model, lanes: int) -> tuple:
    cache = model.prepared.work
    work = cache.get(lanes)
    if work is None:
        B, P, E, J = model.batch, model.n_spheres, model.n_bones, model.n_joints
        hot = hot_of(model)
        R, NNZ, LEGS = hot.sk_col_start.shape[0] - 1, hot.sk_ent_row.shape[0], hot.leg_row.shape[0]
        LANES = lanes
        C = (B + LANES - 1) // LANES
        f, b = np.float64, np.bool_
        shapes = (((C, P, 2, LANES), f),   # x: positions at the substep's start
                  ((C, P, 2, LANES), f),   # p: predicted positions
                  ((C, P, 2, LANES), f),   # v: velocities
                  ((C, E, ROWS, LANES), f),  # per bone: rest lengths, weights, direction (bones.R_*)
                  ((C, E, LANES), f),      # bone multipliers
                  ((C, J, LANES), f),      # joint spring multipliers
                  ((C, P, LANES), f),      # ground push this substep
                  ((C, P, LANES), f),      # friction's tangential cut this substep
                  ((C, P, 3, LANES), f),   # contact half-planes
                  ((C, P, LANES), f),      # predicted normal velocity at contact
                  ((C, P, LANES), b),      # touching
                  ((C, P), b),             # sphere may touch the ground this substep
                  ((C, P, 2, LANES), f),   # q: the positions a Jacobi sweep reads
                  ((C, P, 2, LANES), f),   # the skeleton (physics/skeleton.py): held normals,
                  ((C, LEGS, 2, LANES), f),  # its legs,
                  ((C, LEGS, LANES), f),   # their components along the held normals,
                  ((C, NNZ, LANES), f),    # its factor L,
                  ((C, R, LANES), f),      # pivots,
                  ((C, R, LANES), f),      # 1 / pivots,
                  ((C, R, LANES), f),      # the hinge rows' errors,
                  ((C, R, LANES), f),      # and the multipliers
                  ((C, P, LANES), b),      # touched the ground in any substep of the step
                  ((C, P, LANES), f),      # static friction holds it (1) this substep
                  ((C, P, 2, LANES), f),   # the inverse mass the skeleton gives each sphere (all, along n)
                  ((C, P, 2, LANES), f),   # what the skeleton pressed into the ground this sweep, and
                                           # the slide static friction held back from it (skeleton.py)
                  ((C, R, LANES), f),      # the skeleton's multipliers' correction for clamped muscles
                  ((C, P, LANES), f),      # static friction let go of it (1) last substep
                  ((C, P, LANES), f),      # the skeleton pulled it out of the ground (1) this substep
                  ((C, P, 2, LANES), f),   # the positions before the skeleton's solve
                  ((C, E, LANES), f),      # and the bone multipliers
                  ((C, 7, LANES), f))      # in a fluid: a plate end's rows, a value a creature (medium.py)
        # each array starts on a 64-byte boundary (a cache line; a whole AVX-512 vector)
        layout = np.zeros((len(shapes), 6), np.int64)
        ends = [0, 0]
        for k, (shape, dtype) in enumerate(shapes):
            kind = int(dtype is b)
            line = 64 // np.dtype(dtype).itemsize
            start = -(-ends[kind] // line) * line
            layout[k, :2] = kind, start
            layout[k, 2:2 + len(shape)] = shape
            ends[kind] = start + int(np.prod(shape))
        floats, bools = _aligned_zeros(max(ends[0], 1), f), _aligned_zeros(max(ends[1], 1), b)
        views = tuple((bools if dtype is b else floats)[layout[k, 1]:layout[k, 1] + int(np.prod(shape))].reshape(shape)
                      for k, (shape, dtype) in enumerate(shapes))
        work = cache[lanes] = (views, (floats, bools, layout))
    return work


def _aligned_zeros(n: int, dtype) -> np.ndarray:
    """``np.zeros(n, dtype)`` starting on a 64-byte boundary (numpy promises 16)."""
    size = np.dtype(dtype).itemsize
    raw = np.zeros(n * size + 64, np.uint8)
    skip = -raw.__array_interface__["data"][0] % 64
    return raw[skip:skip + n * size].view(dtype)


@njit(cache=True, error_model="numpy")
def _view4(buf, row):
    return unowned(buf[row[1]:row[1] + row[2] * row[3] * row[4] * row[5]].reshape((row[2], row[3], row[4], row[5])))


@njit(cache=True, error_model="numpy")
def unpack_work(f, b, layout):
    """:func:`workspace_of`'s tuple over :func:`packed_workspace_of`'s buffers, inside a kernel."""
    L = layout
    return (_view4(f, L[0]), _view4(f, L[1]), _view4(f, L[2]), _view4(f, L[3]), _view3(f, L[4]), _view3(f, L[5]),
            _view3(f, L[6]), _view3(f, L[7]), _view4(f, L[8]), _view3(f, L[9]), _view3(b, L[10]), _view2(b, L[11]),
            _view4(f, L[12]), _view4(f, L[13]), _view4(f, L[14]), _view3(f, L[15]), _view3(f, L[16]),
            _view3(f, L[17]), _view3(f, L[18]), _view3(f, L[19]), _view3(f, L[20]), _view3(b, L[21]),
            _view3(f, L[22]), _view4(f, L[23]), _view4(f, L[24]), _view3(f, L[25]), _view3(f, L[26]),
            _view3(f, L[27]), _view4(f, L[28]), _view3(f, L[29]), _view3(f, L[30]))

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

import numpy as np
from numba import njit
from numba.core import cgutils, types
from numba.extending import intrinsic

from .bones import ROWS, muscle_omega
from .layout import HOT, WORK, Hot, Packed, Work, pack, work_shapes
from .model import Model
from .skeleton import frames_of, plan_skeleton

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

@njit(cache=True, error_model="numpy", inline="always")
def whole_eights(n):
    """The lanes a chunk of ``n`` creatures steps (physics/step.py): ``n`` rounded up to a
    multiple of 8, the lanes past ``n`` copies of its last creature (the model's arrays have as
    many columns: :func:`hot_of`). The skeleton's loops go a block of 8 lanes at a time
    (physics/lanes.py), which these make whole; the lane loops LLVM vectorises itself go 16
    lanes a turn, then 4, then one at a time, and a lane of that last loop costs about four
    vector lanes (under brains 85 walkers took 155-157 us a step and 88 146-148, one thread).
    One creature stepped alone is the step compiled for one (physics/step.py), not eight."""
    return -(-n // 8) * 8


def hot_of(model: Model) -> Hot:
    """The lane-major copy of ``model`` (shape (X..., B) for each per-creature array: the
    :data:`physics.layout.HOT` table), made once (``model.prepared.hot``). Its arrays are views
    into three flat buffers (:func:`packed_hot_of`)."""
    prepared = model.prepared
    hot = prepared.hot
    if hot is None:
        soft = model.bone_soft  # a topology: the same whatever creatures share the batch
        arrays = {"soft_bones": np.flatnonzero(soft).astype(np.int64),
                  "rigid_bones": np.flatnonzero(~soft).astype(np.int64),
                  "cluster_split": cluster_split(model)}
        plan = plan_skeleton(model.bone_a, model.bone_b, arrays["rigid_bones"], arrays["soft_bones"],
                             model.joint_a, model.joint_c, model.joint_b, model.joint_limited, model.n_spheres,
                             model.cluster_start, model.cluster_sphere, model.muscle_bone, model.graph)
        arrays.update(plan)   # (its every array is a field of the table: physics/layout.py)
        arrays.update(row_muscles(model, plan))
        anchors = frames_of(plan, model.cluster_start, model.cluster_sphere, model.cluster_rest)
        arrays.update(zip(("anchor_a", "anchor_b", "frame_member", "frame_rest"), anchors))
        arrays.update(rod_inv_rest=1.0 / model.bone_rest[:, plan["rod_bone"]].T, joint_degree=joint_degree(model).T,
                      muscle_omega=muscle_omegas(model).T)
        for f in HOT:
            if f.name not in arrays:   # the model's own: the topology as it is, the rest creature last
                a = np.asarray(getattr(model, f.name))
                arrays[f.name] = np.moveaxis(a, 0, -1) if f.axes[-1] == "B" else a
        # Each creature's arrays with as many columns as its chunks step lanes (whole_eights: the
        # creatures past the batch copies of its last one)
        extra = whole_eights(model.batch) - model.batch
        for f in HOT:
            if f.axes[-1] == "B" and extra:
                a = arrays[f.name]
                arrays[f.name] = np.concatenate([a, np.repeat(a[..., -1:], extra, axis=-1)], axis=-1)
        # Fresh writeable C-ordered copies (a read-only array is a different numba type, and
        # every new combination of types compiles the step kernel again, ~15 s each), packed
        # into one buffer per dtype: the kernels take the buffers and the layout and rebuild
        # the record inside (physics.layout.unpack_hot), since handing numba 77 arrays costs
        # ~0.2 us each at every call to type and unbox them, a quarter of a one-creature step.
        packed, views = pack(HOT, arrays, align=64)
        hot = Hot(*views)
        prepared.hot, prepared.packed = hot, packed
    return hot


def creatures_alike(model: Model) -> bool:
    """Whether every creature of the batch has the same arrays, bit for bit (one design, no
    evolvable values: a generation of fixed bodies): then any lane of a chunk reads what any
    other would, and the step may solve some creatures again in a chunk of their own, lanes
    0.. (physics/step.py). Kept in ``model.prepared``."""
    prepared = model.prepared
    if prepared.alike is None and model.graph:   # (a graph's second factor has no twin)
        prepared.alike = False
    if prepared.alike is None:
        hot = hot_of(model)
        prepared.alike = all(_same_lanes(getattr(hot, f.name)) for f in HOT if f.axes[-1] == "B")
    return prepared.alike


def _same_lanes(a: np.ndarray) -> bool:
    bits = a.view(np.uint8).reshape(a.shape + (a.dtype.itemsize,))
    return bool((bits == bits[..., :1, :]).all())


def row_muscles(model: Model, plan: dict) -> dict:
    """Each skeleton row's muscle creature by creature, (R, B) each for a graph's model, (0, B)
    for the others: ``row_is_muscle``, its spring ``row_omega`` and damping ``row_zeta`` (0 for
    a row that is none), its strength ``row_strength`` (inf for none): a graph's bones
    (``row_muscle`` -2) read them lane by lane."""
    R, B = (len(plan["sk_col_start"]) - 1) if model.graph else 0, model.batch
    out = {"row_is_muscle": np.zeros((R, B), np.bool_), "row_omega": np.zeros((R, B)),
           "row_zeta": np.zeros((R, B)), "row_strength": np.full((R, B), np.inf)}
    if not model.graph:   # (the other plans' rows are the topology's: no rows of these)
        return out
    omega = muscle_omegas(model)
    slot = {int(e): m for m, e in enumerate(model.muscle_bone)}
    for k, e in zip(plan["soft_row"], plan["soft_bone"]):
        if plan["row_muscle"][k] != -2:   # (a graph's bone: its muscle creature by creature)
            continue
        m = slot[int(e)]
        on = model.muscle_on[:, m]
        out["row_is_muscle"][k] = on
        out["row_omega"][k] = np.where(on, omega[:, m], 0.0)
        out["row_zeta"][k] = np.where(on, model.muscle_damping[:, m], 0.0)
        out["row_strength"][k] = np.where(on, model.muscle_strength[:, m], np.inf)
    return out


def muscle_omegas(model: Model) -> np.ndarray:
    """Float (B, M): each muscle's angular frequency on its two spheres (:func:`physics.bones.muscle_omega`;
    0 for a muscle switched off)."""
    e = model.muscle_bone
    wsum = model.inv_mass[:, model.bone_a[e]] + model.inv_mass[:, model.bone_b[e]]
    strength = np.where(model.bone_on[:, e], model.muscle_strength, 0.0)
    # (C-ordered arrays: a model with body genes has Fortran-ordered ones, and each layout compiles again)
    return muscle_omega(*(np.ascontiguousarray(a) for a in (strength, model.muscle_stretch, model.muscle_rest, wsum)))


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


def packed_hot_of(model: Model) -> Packed:
    """The buffers :func:`hot_of`'s arrays are views of, and where each lies (row k: buffer,
    offset, shape), for :func:`physics.layout.unpack_hot` inside a kernel."""
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


def workspace_of(model: Model, lanes: int) -> Work:
    """Scratch arrays for one step of ``model``'s batch in chunks of ``lanes`` (the
    :data:`physics.layout.WORK` table), one slice per chunk, allocated once and reused:
    allocating them every step costs page faults (they are above glibc's mmap threshold for large
    batches) that were measured to halve the speed. They are views of flat buffers
    (:func:`packed_workspace_of`)."""
    return _workspace(model, lanes)[0]


def packed_workspace_of(model: Model, lanes: int) -> Packed:
    """The buffers :func:`workspace_of`'s arrays are views of and where each lies, for
    :func:`physics.layout.unpack_work` inside a kernel."""
    return _workspace(model, lanes)[1]


def _workspace(model: Model, lanes: int) -> tuple:
    cache = model.prepared.work
    work = cache.get(lanes)
    if work is None:
        hot = hot_of(model)
        sizes = {"C": -(-model.batch // lanes), "L": lanes, "P": model.n_spheres, "E": model.n_bones,
                 "J": model.n_joints, "ROWS": ROWS, "R": hot.sk_col_start.shape[0] - 1,
                 "NNZ": hot.sk_ent_row.shape[0], "legs": hot.leg_row.shape[0]}
        sizes["G"], sizes["GNNZ"] = (sizes["R"], sizes["NNZ"]) if model.graph else (0, 0)   # (a graph's alone)
        sizes["C2"] = 2 * sizes["C"]   # each chunk, then each chunk's twin (physics/step.py)
        # each array starts on a 64-byte boundary (a cache line; a whole AVX-512 vector)
        packed, views = pack(WORK, dict(zip((f.name for f in WORK), work_shapes(sizes))), align=64)
        work = cache[lanes] = (Work(*views), packed)
    return work

"""The engine's data by name: one table for the arrays the kernels read, and one for their scratch.

Each row of :data:`HOT` and :data:`WORK` is a :class:`Field`: a name, a dtype, and its axes in
the project's letters (B creatures, P spheres, E bones, M muscles, J joints, K clusters; the
skeleton's R rows, its legs and the entries of its factor; C chunks and L lanes for the scratch,
physics/hot.py says why the creatures are last; C2 for what the skeleton's stages read and write,
each chunk's own and then a twin of each, where the creatures whose feet its solve lifted are
solved again: physics/step.py). Everything else is made from the tables:

- the records :data:`Hot` and :data:`Work` (named tuples: kernels read ``hot.muscle_strength`` and
  ``work.lam``, never a position in a tuple);
- the packing: every array of a record lies in one of three flat buffers (floats, ints, bools),
  placed by a ``layout`` (one row per field: buffer, offset, shape), so that a kernel is handed
  four arrays instead of seventy (numba checks the type of every argument at every call, ~0.2
  us each: for one creature a step's dispatch took longer than a third of its step);
- the unpacking inside a kernel (:func:`unpack_hot`, :func:`unpack_work`): each field a view of
  its buffer with the table's dtype and number of axes, made by :func:`_unpacker` from the table
  (nothing numbered by hand: adding a field is one row here and, for the model's arrays, the line
  of physics/hot.py that computes it).

A workspace's shapes come from its axes (:func:`work_shapes`); the model's arrays are checked
against their rows when they are packed (a wrong dtype or number of axes is an error there, not a
kernel reading the wrong array).
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit
from numba.core import cgutils, types
from numba.np.numpy_support import from_dtype
from numba.extending import intrinsic
from numba.core.imputils import impl_ret_borrowed
from numba.np.arrayobj import populate_array

__all__ = ["Field", "HOT", "WORK", "Hot", "Work", "Packed", "pack", "work_shapes", "unpack_hot", "unpack_work", "work_chunks",
           "by_address", "for_stages", "flat"]

Field = namedtuple("Field", "name dtype axes doc")

I, F, BOOL = np.dtype(np.int64), np.dtype(np.float64), np.dtype(np.bool_)

def _rows(dtype, axes: str, names: str, doc: str) -> tuple:
    return tuple(Field(name, dtype, tuple(axes.split()), doc) for name in names.split())


#: the model's arrays as the kernels read them (physics/hot.py makes them): the topology, shared
#: by the batch, then per creature with the creature last
HOT = (
    # topology
    *_rows(I, "E", "bone_a bone_b", "each bone's two spheres"),
    *_rows(I, "E'", "soft_bones rigid_bones", "the bones that are soft (muscles, compliant, switchable) and rigid"),
    *_rows(I, "M", "muscle_bone", "each muscle's bone"),
    *_rows(I, "J", "joint_a joint_c joint_b", "each hinge's spheres (c the pivot)"),
    *_rows(BOOL, "J", "joint_limited", "whether the hinge has limits"),
    *_rows(I, "K+1", "cluster_start", "each cluster's first member in cluster_sphere"),
    *_rows(I, "Q", "cluster_sphere", "the clusters' members"),
    *_rows(I, "S", "pair_a pair_b", "self-collision pairs"),
    # per creature
    *_rows(F, "P B", "mass inv_mass radius friction kinetic_friction restitution", "per sphere"),
    *_rows(F, "E B", "bone_rest bone_compliance", "per bone"),
    *_rows(BOOL, "E B", "bone_on", "whether the creature has the bone (a bone switched off has no row)"),
    *_rows(F, "M B", "muscle_strength muscle_rest muscle_range muscle_speed", "per muscle (strength: as set, "
           "whether the bone is on or not)"),
    *_rows(F, "J B", "joint_rest joint_min joint_max joint_compliance", "per hinge"),
    *_rows(BOOL, "J B", "joint_spring", "whether the hinge has a spring"),
    *_rows(F, "Q 2 B", "cluster_rest", "each member's rest position in its cluster"),
    *_rows(F, "K B", "cluster_stiffness", "per cluster"),
    *_rows(F, "E B", "bone_plate", "a bone's plate in a fluid (physics/medium.py)"),
    # derived from the topology
    *_rows(I, "K", "cluster_split", "the most clusters one of the cluster's spheres belongs to"),
    # the skeleton's plan (physics/skeleton.py, plan_skeleton)
    *_rows(I, "R+1", "sk_col_start", "each row's first entry of the factor"),
    *_rows(I, "NNZ", "sk_ent_row", "each entry's row"),
    *_rows(I, "rods", "rod_row rod_bone rod_a rod_b rod_leg", "per rigid bone"),
    *_rows(I, "hinges", "hinge_row hinge_joint hinge_leg", "per hinge limit"),
    *_rows(I, "legs", "leg_row leg_sphere", "per leg (a row's gradient at one sphere)"),
    *_rows(I, "R+1", "row_leg_start", "each row's first leg"),
    *_rows(I, "asm", "asm_entry asm_leg1 asm_leg2 asm_sphere", "the assembly of A = G W G^T"),
    *_rows(I, "R+1", "pair_start", "each row's first pair"),
    *_rows(I, "pairs", "pair_entry pair_j", "the factorisation's pairs"),
    *_rows(I, "pairs+1", "pair_op_start", "each pair's first update"),
    *_rows(I, "ops", "op_target op_source", "the factorisation's updates"),
    *_rows(I, "NNZ+1", "upd_start", "each entry's first update in upd_*"),
    *_rows(I, "ops", "upd_source upd_entry upd_j", "the factorisation's updates entry by entry: L_ij, L_kj and j"),
    *_rows(I, "R+1", "sk_row_start", "each row's first entry below the diagonal, by rows"),
    *_rows(I, "lower", "sk_row_entry sk_row_col", "the entries below the diagonal by rows, and their columns"),
    *_rows(I, "soft", "soft_row soft_bone soft_a soft_b soft_leg", "per soft row"),
    *_rows(I, "3", "sk_lead", "the leading block's rows, the rows it fixes, and 1 for a graph's plan"),
    *_rows(I, "frames", "frame_row frame_cluster frame_r frame_leg", "per rigid cluster's frame row"),
    # derived per creature
    *_rows(F, "rods B", "rod_inv_rest", "each rod's 1 / rest length"),
    *_rows(F, "P B", "joint_degree", "the joint springs meeting at each sphere"),
    *_rows(I, "K B", "anchor_a anchor_b", "each rigid cluster's anchors (member ordinals)"),
    *_rows(I, "frames B", "frame_member", "each frame row's member"),
    *_rows(F, "frames B", "frame_rest", "each frame row's rest value"),
    # the muscles' spring and dashpot, and each skeleton row's muscle (-1 for none)
    *_rows(F, "M B", "muscle_omega muscle_damping", "per muscle"),
    *_rows(I, "R", "row_muscle", "each skeleton row's muscle, -1 for none, -2 for a graph's bone (each "
           "creature's own)"),
    *_rows(BOOL, "G B", "row_is_muscle", "a row a muscle in the creature (a graph's bones: physics/skeleton.py; "
           "G is R for a graph's model, 0 for the others)"),
    *_rows(F, "G B", "row_omega row_zeta row_strength", "a row's muscle's spring and damping (0 for none) and "
           "its strength (inf for none)"),
)

#: one step's scratch, per chunk of lanes (physics/hot.py, workspace_of)
WORK = (
    *_rows(F, "C2 P 2 L", "x", "positions at the substep's start"),
    *_rows(F, "C2 P 2 L", "p", "predicted positions"),
    *_rows(F, "C2 P 2 L", "v", "velocities"),
    *_rows(F, "C2 E ROWS L", "bone_rows", "per bone: rest lengths, weights, direction (physics/bones.py R_*)"),
    *_rows(F, "C2 E L", "lam", "bone multipliers"),
    *_rows(F, "C J L", "lam_joint", "joint spring multipliers"),
    *_rows(F, "C2 P L", "push", "the ground's push this substep"),
    *_rows(F, "C P L", "cut", "friction's tangential cut this substep"),
    *_rows(F, "C2 P 3 L", "plane", "contact half-planes (nx, ny, c)"),
    *_rows(F, "C P L", "vn", "predicted normal velocity at contact"),
    *_rows(BOOL, "C P L", "touching", "touching the ground"),
    *_rows(BOOL, "C P", "active", "the sphere may touch the ground this substep"),
    *_rows(F, "C2 P 2 L", "q", "the positions a Jacobi sweep reads"),
    # the skeleton (physics/skeleton.py)
    *_rows(F, "C2 P 2 L", "sk_normal", "each sphere's held normal"),
    *_rows(F, "C2 legs 2 L", "sk_leg", "the legs"),
    *_rows(F, "C2 legs L", "sk_leg_n", "their components along the held normals"),
    *_rows(F, "C2 NNZ L", "sk_factor", "the factor L below its diagonal"),
    *_rows(F, "C2 R L", "sk_pivot", "pivots"),
    *_rows(F, "C2 GNNZ L", "sk_factor2", "a graph's second factor: its rods alone (each creature's muscle rows "
           "out; GNNZ is NNZ for a graph's model, 0 for the others)"),
    *_rows(F, "C2 G L", "sk_pivot2 sk_inv_pivot2", "its pivots and their inverses"),
    *_rows(F, "C2 R L", "sk_inv_pivot", "1 / pivots"),
    *_rows(F, "C2 R L", "sk_error", "the hinge rows' errors"),
    *_rows(F, "C2 R L", "sk_lam", "the multipliers"),
    *_rows(BOOL, "C P L", "touched", "touched the ground in any substep of the step"),
    *_rows(F, "C2 P L", "grip", "static friction holds it (1) this substep"),
    *_rows(F, "C2 P 2 L", "sk_mass", "the inverse mass the skeleton gives each sphere (all, along n)"),
    *_rows(F, "C2 P 2 L", "load", "what the skeleton pressed into the ground this sweep, and the slide "
           "static friction held back from it"),
    *_rows(F, "C2 R L", "sk_dlam", "the multipliers' correction for clamped muscles"),
    *_rows(F, "C2 P 2 L", "sk_hold", "the inverse mass by which a solve's correction presses each sphere into the "
                                     "ground, and slides it along what static friction holds (0 where not held so)"),
    *_rows(F, "C P L", "loose", "static friction let go of it (1) last substep"),
    *_rows(F, "C2 P L", "lifted", "the skeleton pulled it out of the ground (1) this substep"),
    *_rows(F, "C P 2 L", "before", "the positions before the skeleton's solve"),
    *_rows(F, "C2 E L", "pulled_before", "and the bone multipliers"),
    *_rows(I, "C L", "lifting", "the lanes whose creature the skeleton's solve lifted a sphere of, in order (step.py)"),
    *_rows(F, "C L", "plate_tx plate_ty plate_share plate_ux plate_uy plate_dvx plate_dvy",
           "in a fluid: a plate end's direction, share, velocity and change of it, a value a creature (each its "
           "own array: LLVM leaves a lane loop that writes two rows of one array scalar)"),
)

Hot = namedtuple("Hot", [f.name for f in HOT])
Work = namedtuple("Work", [f.name for f in WORK])
#: a record's arrays packed (:func:`pack`): three flat buffers and where each field lies in them
Packed = namedtuple("Packed", "floats ints bools layout")

_BUFFER = {F: 0, I: 1, BOOL: 2}
#: a layout's columns: a field's buffer, its offset in it, then up to four dimensions
_COLUMNS = 6


def work_shapes(sizes: dict) -> list[tuple]:
    """The shape of every :data:`WORK` field, its axes looked up in ``sizes`` (digits as they are)."""
    return [tuple(int(a) if a.isdigit() else int(sizes[a]) for a in f.axes) for f in WORK]


def pack(fields: tuple, arrays: dict, align: int = 1) -> tuple[Packed, tuple]:
    """Copy ``arrays`` (name: array, one per field; or a shape, for zeros) into fresh buffers laid
    out by ``fields``; each array starts on a multiple of ``align`` bytes (64: a cache line, a
    whole AVX-512 vector). Returns the :class:`Packed` buffers and the record's fields as views of
    them, in the table's order. Raises TypeError if an array's dtype or number of axes is not its
    row's (kernels would read another array as it)."""
    layout = np.zeros((len(fields), _COLUMNS), np.int64)   # buffer, offset, then up to 4 dims
    ends = [0, 0, 0]
    shapes = []
    for k, f in enumerate(fields):
        a = arrays[f.name]
        shape = tuple(a) if isinstance(a, tuple) else a.shape
        if not isinstance(a, tuple) and (a.dtype != f.dtype or a.ndim != len(f.axes)):
            raise TypeError(f"{f.name}: {a.dtype} with {a.ndim} axes, the layout says {f.dtype} {' '.join(f.axes)}")
        kind = _BUFFER[f.dtype]
        line = max(1, align // f.dtype.itemsize)
        start = -(-ends[kind] // line) * line
        layout[k, :2] = kind, start
        layout[k, 2:2 + len(shape)] = shape
        ends[kind] = start + math.prod(shape)
        shapes.append(shape)
    buffers = [_aligned_zeros(max(end, 1), dtype, align) for end, dtype in zip(ends, (F, I, BOOL))]
    views = []
    for k, (f, shape) in enumerate(zip(fields, shapes)):
        buf = buffers[layout[k, 0]]
        view = buf[layout[k, 1]:layout[k, 1] + math.prod(shape)].reshape(shape)
        a = arrays[f.name]
        if not isinstance(a, tuple):
            view[...] = a
        views.append(view)
    return Packed(*buffers, layout), tuple(views)


def _aligned_zeros(n: int, dtype, align: int) -> np.ndarray:
    """``np.zeros(n, dtype)`` starting on a multiple of ``align`` bytes (numpy promises 16)."""
    size = np.dtype(dtype).itemsize
    raw = np.zeros(n * size + align, np.uint8)
    skip = -raw.__array_interface__["data"][0] % align
    return raw[skip:skip + n * size].view(dtype)


def _unpacker(fields: tuple, record: type):
    """An intrinsic ``(floats, ints, bools, layout) -> record`` for kernels (the arrays, or their
    addresses: :func:`by_address`): each field a
    C-contiguous view of its buffer (the table's dtype and axes, the layout's offset and shape),
    made in place without an owner (numba's reference count is an atomic add at every call a
    kernel makes with an array, half of a one-creature step when the stages were called with ~100
    arrays a substep: physics/hot.py, unowned). The arithmetic, and so every result, is the same
    as with owned arrays."""
    kinds = [_BUFFER[f.dtype] for f in fields]
    array_types = [types.Array(from_dtype(f.dtype), len(f.axes), "C") for f in fields]
    record_type = types.NamedTuple(array_types, record)

    @intrinsic
    def unpack(typingctx, floats, ints, bools, layout):
        buffers = (floats, ints, bools)
        if not all(isinstance(b, types.CPointer) or (isinstance(b, types.Array) and b.ndim == 1) for b in buffers):
            return None
        if not (isinstance(layout, types.CPointer) or (isinstance(layout, types.Array) and layout.ndim == 2)):
            return None

        def codegen(context, builder, signature, args):
            # (an array's data, or the address :func:`by_address` made of it)
            datas = [args[k] if isinstance(signature.args[k], types.CPointer) else
                     context.make_array(signature.args[k])(context, builder, value=args[k]).data for k in range(3)]
            lay_type = signature.args[3]
            by_pointer = isinstance(lay_type, types.CPointer)
            lay = None if by_pointer else context.make_array(lay_type)(context, builder, value=args[3])
            intp = context.get_value_type(types.intp)

            def entry(k, j):
                if by_pointer:   # (the layout is C-contiguous, _COLUMNS a row)
                    return builder.load(builder.gep(args[3], [context.get_constant(types.intp, k * _COLUMNS + j)]))
                index = [context.get_constant(types.intp, k), context.get_constant(types.intp, j)]
                ptr = cgutils.get_item_pointer(context, builder, lay_type, lay, index)
                return builder.load(ptr)

            values = []
            for k, (kind, aty) in enumerate(zip(kinds, array_types)):
                data = builder.gep(datas[kind], [entry(k, 1)])
                dims = [entry(k, 2 + d) for d in range(aty.ndim)]
                itemsize = context.get_abi_sizeof(context.get_data_type(aty.dtype))
                strides, stride = [], context.get_constant(types.intp, itemsize)
                for d in reversed(dims):
                    strides.insert(0, stride)
                    stride = builder.mul(stride, d)
                out = context.make_array(aty)(context, builder)
                populate_array(out, data=data, shape=cgutils.pack_array(builder, dims, intp),
                               strides=cgutils.pack_array(builder, strides, intp),
                               itemsize=context.get_constant(types.intp, itemsize), meminfo=None)
                values.append(out._getvalue())
            return context.make_tuple(builder, record_type, values)

        return record_type(floats, ints, bools, layout), codegen

    return unpack


def _addresses(packed):
    """The typing and code of :func:`by_address` for ``packed``'s type, or None."""
    if not (isinstance(packed, types.BaseTuple) and len(packed) == 4
            and all(isinstance(a, types.Array) and a.layout == "C" for a in packed)):
        return None
    out_type = types.Tuple([types.CPointer(a.dtype) for a in packed])

    def codegen(context, builder, signature, args):
        arrays = cgutils.unpack_tuple(builder, args[0], 4)
        datas = [context.make_array(a)(context, builder, value=v).data for a, v in zip(packed, arrays)]
        return context.make_tuple(builder, out_type, datas)

    return out_type, codegen


@intrinsic
def by_address(typingctx, packed):
    """A :class:`Packed` record's four arrays (a plain tuple) as the addresses of their data, one
    word each where an array is seven or nine (its owner, size, shape and strides): what a kernel
    hands the stages it calls several times a substep (physics/step.py: each call pushed some 62
    words of the two records, and a step of one block of lanes took 0.83x the time with the
    addresses). :func:`unpack_hot` and :func:`unpack_work` read either; the arrays must outlive
    the addresses (their caller holds them)."""
    made = _addresses(packed)
    if made is None:
        return None
    out_type, codegen = made
    return out_type(packed), codegen


@intrinsic
def for_stages(typingctx, packed, single):
    """What a step hands its stages of ``packed``: :func:`by_address`'s addresses, but in the step
    compiled for one creature (``single`` None: physics/step.py) the arrays themselves, whose
    calls there hardly cost anything and whose addresses would cost it 2-3 %."""
    if isinstance(single, (types.NoneType, types.Omitted)):
        def same(context, builder, signature, args):
            return impl_ret_borrowed(context, builder, packed, args[0])
        return packed(packed, single), same
    made = _addresses(packed)
    if made is None:
        return None
    out_type, codegen = made
    return out_type(packed, single), codegen


@intrinsic
def flat(typingctx, a):
    """A C-contiguous array as one axis (``a.reshape(a.size)``, the same data and owner) built in
    place: numba's reshape calls a helper of its runtime each time (about 20 ns; the step zeroes
    ten arrays a substep, 5 % of a one-creature step)."""
    if not (isinstance(a, types.Array) and a.layout == "C"):
        return None
    out_type = types.Array(a.dtype, 1, "C")

    def codegen(context, builder, signature, args):
        src = context.make_array(a)(context, builder, value=args[0])
        intp = context.get_value_type(types.intp)
        size = context.get_constant(types.intp, 1)
        for d in cgutils.unpack_tuple(builder, src.shape, a.ndim):
            size = builder.mul(size, d)
        out = context.make_array(out_type)(context, builder)
        populate_array(out, data=src.data, shape=cgutils.pack_array(builder, [size], intp),
                       strides=cgutils.pack_array(builder, [src.itemsize], intp), itemsize=src.itemsize,
                       meminfo=src.meminfo)
        return impl_ret_borrowed(context, builder, out_type, out._getvalue())

    return out_type(a), codegen


_CHUNKS = [f.name for f in WORK].index("touching")


@njit(cache=True, error_model="numpy")
def work_chunks(packed):
    """How many chunks a packed workspace (:class:`Packed`'s values) has room for (the first
    axis of ``touching``; the skeleton's arrays, ``C2``, have a twin chunk each after them).
    (A parallel kernel unpacks the records inside its loop: numba's parallel loops cannot take
    a record this module's intrinsic made before them.)"""
    floats, ints, bools, layout = packed
    return layout[_CHUNKS, 2]


#: inside a kernel: the :data:`Hot` record over its :class:`Packed` buffers (no copy)
unpack_hot = _unpacker(HOT, Hot)
#: inside a kernel: the :data:`Work` record over its :class:`Packed` buffers (no copy)
unpack_work = _unpacker(WORK, Work)

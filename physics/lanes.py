"""Lane vectors: a block of a chunk's lanes as one value, so that a lane loop is vector code
whatever its count.

A chunk's arrays keep the creatures last (``(..., LANES)``: physics/hot.py), and its stages are
lane loops, ``for l in range(n): a[i, l] = ...``. LLVM vectorises such a loop only past 12 lanes
(16 a turn, then 4, then one at a time, each vector turn behind a check that the arrays it
writes and reads do not overlap, which it cannot know): a chunk of 8 creatures was stepped a
lane at a time, as eight scalar steps. A loop written over blocks reads and writes whole vectors
instead, with no check and no remainder::

    for l0 in range(0, n, width(single)):
        l = block(l0, single)
        V[t, l] -= V[s, l] * V[e, l] * PV[j, l]

``block`` is a :class:`Block` of :data:`WIDTH` lanes from ``l0``, or of one lane where ``single``
is None (the step compiled for one creature, physics/step.py). A stage takes its lane count as
``n = stepped(single, n)``: a constant 1 there, a constant WIDTH in the step compiled for one block
of lanes (``single`` a :class:`OneBlock`, ``one_block()``), so that each of its loops is straight
code. Indexing a float64 array with a block as its last index reads a :class:`Vec` (an LLVM
``<WIDTH x double>``), a boolean array a :class:`Mask`; storing a vector (or a number, every lane) writes the block. The array's last
axis must be contiguous (the engine's are: the lanes last, C order); nothing checks it. Vectors add,
subtract, multiply, divide, negate and compare (to masks) lane by lane, with numbers too; masks
combine with ``&``, ``|`` and ``~``. :func:`where` is ``a if m else b``, :func:`vmin` and
:func:`vmax` numba's ``min`` and ``max`` of two floats, ``np.sqrt``, ``np.floor``, ``abs`` and ``** 2`` work
lane by lane; each is the scalar code's own IEEE operation in every lane, so a lane's bits are
the scalar loop's (which NaN a NaN is aside: tests/physics/test_lanes.py). :func:`where`, :func:`vmin` and :func:`vmax`
take numbers too, so a helper written with them serves both.

A loop over blocks covers ``n`` rounded up to a whole block: a chunk steps whole eights of lanes
(physics/hot.py's ``whole_eights``, the lanes past its creatures copies of its last one), and
the model's per-creature arrays have as many columns.
"""

from __future__ import annotations

import operator

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, models, overload, register_model

__all__ = ["WIDTH", "Block", "Vec", "Mask", "OneBlock", "one_block", "stepped", "one_at_a_time", "width", "block",
           "where", "vmin", "vmax", "any_lane", "item"]

#: lanes in a block: one AVX-512 vector of doubles, two AVX2 ones (chunks step whole eights)
WIDTH = 8


class Block(types.Type):
    """``width`` lanes from an int64 lane (the last index of an array)."""

    def __init__(self, width):
        self.width = width
        super().__init__(name=f"LaneBlock{width}")


class Vec(types.Type):
    """``width`` float64 lanes (LLVM ``<width x double>``)."""

    def __init__(self, width):
        self.width = width
        super().__init__(name=f"LaneVec{width}")


class Mask(types.Type):
    """``width`` boolean lanes (LLVM ``<width x i1>``)."""

    def __init__(self, width):
        self.width = width
        super().__init__(name=f"LaneMask{width}")


@register_model(Block)
class _BlockModel(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, ir.IntType(64))


@register_model(Vec)
class _VecModel(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, ir.VectorType(ir.DoubleType(), fe_type.width))


@register_model(Mask)
class _MaskModel(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, ir.VectorType(ir.IntType(1), fe_type.width))


class OneBlock(types.Type):
    """The ``single`` of the step compiled for one block of lanes (a chunk of at most
    :data:`WIDTH` creatures, physics/step.py): every lane loop then counts to a constant."""

    def __init__(self):
        super().__init__(name="OneBlock")


@register_model(OneBlock)
class _OneBlockModel(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, ir.IntType(8))


@intrinsic
def one_block(typingctx):
    """The ``single`` that compiles a stage for one block of lanes (:class:`OneBlock`)."""
    def codegen(context, builder, sig, args):
        return ir.Constant(ir.IntType(8), 0)
    return OneBlock()(), codegen


def _lanes(single) -> int:
    """A block's lanes: one in the step compiled for one creature (``single`` None), else WIDTH."""
    return 1 if isinstance(single, (types.NoneType, types.Omitted)) else WIDTH


@intrinsic
def stepped(typingctx, single, n):
    """The lanes a stage steps: a constant 1 in the step compiled for one creature (``single``
    None), a constant :data:`WIDTH` in the step compiled for one block (:class:`OneBlock`), else
    ``n``. With a constant count LLVM makes each lane loop straight code: no loop, no trip count."""
    if not isinstance(n, types.Integer):
        return None
    if isinstance(single, (types.NoneType, types.Omitted)):
        count = 1
    elif isinstance(single, OneBlock):
        count = WIDTH
    else:
        count = None
    def codegen(context, builder, sig, args):
        if count is None:
            return context.cast(builder, args[1], sig.args[1], types.int64)
        return ir.Constant(ir.IntType(64), count)
    return types.int64(single, n), codegen


@intrinsic
def one_at_a_time(typingctx, single):
    """Whether a stage steps a single block (a constant: True in the steps compiled for one
    creature or one block, False elsewhere). There a chain of dependent operations is best kept
    in registers, a block's whole chain before the next; with many blocks, an operation at a time
    over every block (their chains interleaved, the operation's indices read once)."""
    few = isinstance(single, (types.NoneType, types.Omitted, OneBlock))
    def codegen(context, builder, sig, args):
        return ir.Constant(ir.IntType(1), int(few))
    return types.boolean(single), codegen


@intrinsic
def width(typingctx, single):
    """The lanes of a block (a constant: 1 where ``single`` is None, else :data:`WIDTH`)."""
    w = _lanes(single)
    def codegen(context, builder, sig, args):
        return ir.Constant(ir.IntType(64), w)
    return types.int64(single), codegen


@intrinsic
def block(typingctx, l0, single):
    """The block of lanes from lane ``l0`` (one lane where ``single`` is None)."""
    if not isinstance(l0, types.Integer):
        return None
    w = _lanes(single)
    def codegen(context, builder, sig, args):
        return context.cast(builder, args[0], sig.args[0], types.int64)
    return Block(w)(l0, single), codegen


# -- reading and writing blocks of arrays


def _index(index):
    """The index's parts (integers, then a block last), or None."""
    parts = list(index.types) if isinstance(index, types.BaseTuple) else [index]
    if isinstance(parts[-1], Block) and all(isinstance(p, types.Integer) for p in parts[:-1]):
        return parts
    return None


def _blockable(a, index, dtype) -> bool:
    parts = _index(index)
    return isinstance(a, types.Array) and a.dtype == dtype and parts is not None and a.ndim == len(parts)


def _pointer(context, builder, aty, ary, ity, index, element):
    """The address of the block ``index`` of array ``ary``, as a pointer to a vector of
    ``element`` (from the array's strides: any layout whose last axis is contiguous)."""
    parts = _index(ity)
    vals = cgutils.unpack_tuple(builder, index, len(parts)) if isinstance(ity, types.BaseTuple) else [index]
    arr = context.make_array(aty)(context, builder, ary)
    strides = cgutils.unpack_tuple(builder, arr.strides, aty.ndim)
    offset = builder.mul(vals[-1], strides[-1])
    for v, t, s in zip(vals[:-1], parts[:-1], strides[:-1]):
        offset = builder.add(offset, builder.mul(context.cast(builder, v, t, types.intp), s))
    at = builder.gep(builder.bitcast(arr.data, ir.IntType(8).as_pointer()), [offset])
    return builder.bitcast(at, ir.VectorType(element, parts[-1].width).as_pointer())


@intrinsic
def _load(typingctx, a, index):
    w = _index(index)[-1].width
    def codegen(context, builder, sig, args):
        return builder.load(_pointer(context, builder, sig.args[0], args[0], sig.args[1], args[1], ir.DoubleType()), align=8)
    return Vec(w)(a, index), codegen


@intrinsic
def _load_mask(typingctx, a, index):
    w = _index(index)[-1].width
    def codegen(context, builder, sig, args):
        byte = ir.VectorType(ir.IntType(8), w)
        raw = builder.load(_pointer(context, builder, sig.args[0], args[0], sig.args[1], args[1], ir.IntType(8)), align=1)
        return builder.icmp_unsigned("!=", raw, ir.Constant(byte, [0] * w))
    return Mask(w)(a, index), codegen


@intrinsic
def _store(typingctx, a, index, v):
    w = _index(index)[-1].width
    def codegen(context, builder, sig, args):
        value = _as_vec(context, builder, args[2], sig.args[2], w)
        builder.store(value, _pointer(context, builder, sig.args[0], args[0], sig.args[1], args[1], ir.DoubleType()), align=8)
        return context.get_dummy_value()
    return types.none(a, index, v), codegen


@intrinsic
def _store_mask(typingctx, a, index, m):
    w = _index(index)[-1].width
    def codegen(context, builder, sig, args):
        value = builder.zext(_as_mask(context, builder, args[2], sig.args[2], w), ir.VectorType(ir.IntType(8), w))
        builder.store(value, _pointer(context, builder, sig.args[0], args[0], sig.args[1], args[1], ir.IntType(8)), align=1)
        return context.get_dummy_value()
    return types.none(a, index, m), codegen


@overload(operator.getitem)
def _getitem(a, index):
    if _blockable(a, index, types.float64):
        return lambda a, index: _load(a, index)
    if _blockable(a, index, types.boolean):
        return lambda a, index: _load_mask(a, index)


@overload(operator.setitem)
def _setitem(a, index, v):
    if _blockable(a, index, types.float64) and isinstance(v, (Vec, types.Float, types.Integer)):
        return lambda a, index, v: _store(a, index, v)
    if _blockable(a, index, types.boolean) and isinstance(v, (Mask, types.Boolean)):
        return lambda a, index, v: _store_mask(a, index, v)


# -- arithmetic, comparisons and masks


def _splat(builder, value, w):
    vec = ir.Constant(ir.VectorType(value.type, w), ir.Undefined)
    for q in range(w):
        vec = builder.insert_element(vec, value, ir.Constant(ir.IntType(32), q))
    return vec


def _as_vec(context, builder, value, ty, w):
    return value if isinstance(ty, Vec) else _splat(builder, context.cast(builder, value, ty, types.float64), w)


def _as_mask(context, builder, value, ty, w):
    if isinstance(ty, Mask):
        return value
    return _splat(builder, builder.trunc(value, ir.IntType(1)) if value.type != ir.IntType(1) else value, w)


def _vec_width(*tys):
    """The width of the vectors among ``tys`` (the rest numbers), or None."""
    widths = {t.width for t in tys if isinstance(t, Vec)}
    if len(widths) == 1 and all(isinstance(t, (Vec, types.Float, types.Integer)) for t in tys):
        return widths.pop()
    return None


def _mask_width(*tys):
    widths = {t.width for t in tys if isinstance(t, Mask)}
    if len(widths) == 1 and all(isinstance(t, (Mask, types.Boolean)) for t in tys):
        return widths.pop()
    return None


def _overload_binary(ops, lanes_of, emit, result):
    """``ops`` of two lane values (or one and a number) as one intrinsic: ``lanes_of(a, b)``
    their width (None: not these types, another overload's), each operand made lanes of its
    kind, ``emit(builder, x, y)`` the instruction, ``result`` its type (Vec or Mask)."""
    convert = _as_vec if lanes_of is _vec_width else _as_mask
    @intrinsic
    def impl(typingctx, a, b):
        w = lanes_of(a, b)
        if w is None:
            return None
        def codegen(context, builder, sig, args):
            return emit(builder, convert(context, builder, args[0], sig.args[0], w),
                        convert(context, builder, args[1], sig.args[1], w))
        return result(w)(a, b), codegen
    def typed(a, b):
        if lanes_of(a, b) is not None:
            return lambda a, b: impl(a, b)
    for op in ops:
        overload(op)(typed)


for _name, _ops in (("fadd", (operator.add, operator.iadd)), ("fsub", (operator.sub, operator.isub)),
                    ("fmul", (operator.mul, operator.imul)), ("fdiv", (operator.truediv, operator.itruediv))):
    _overload_binary(_ops, _vec_width, lambda b, x, y, _name=_name: getattr(b, _name)(x, y), Vec)

# numba's comparisons of floats: ordered, but != unordered
for _sym, _op, _ordered in (("<", operator.lt, True), ("<=", operator.le, True), (">", operator.gt, True),
                            (">=", operator.ge, True), ("==", operator.eq, True), ("!=", operator.ne, False)):
    _emit = (lambda b, x, y, _sym=_sym: b.fcmp_ordered(_sym, x, y)) if _ordered else \
        (lambda b, x, y, _sym=_sym: b.fcmp_unordered(_sym, x, y))
    _overload_binary((_op,), _vec_width, _emit, Mask)

_overload_binary((operator.and_, operator.iand), _mask_width, lambda b, x, y: b.and_(x, y), Mask)
_overload_binary((operator.or_, operator.ior), _mask_width, lambda b, x, y: b.or_(x, y), Mask)


@intrinsic
def _negate(typingctx, a):
    if not isinstance(a, Vec):
        return None
    def codegen(context, builder, sig, args):   # (numba's negation of a float: -0.0 - x)
        return builder.fsub(ir.Constant(args[0].type, [-0.0] * a.width), args[0])
    return a(a), codegen


@intrinsic
def _invert(typingctx, a):
    if not isinstance(a, Mask):
        return None
    def codegen(context, builder, sig, args):
        return builder.not_(args[0])
    return a(a), codegen


@overload(operator.neg)
def _neg(a):
    if isinstance(a, Vec):
        return lambda a: _negate(a)


@overload(operator.invert)
def _not(a):
    if isinstance(a, Mask):
        return lambda a: _invert(a)


@overload(operator.pow)
def _square(a, b):
    if isinstance(a, Vec) and isinstance(b, types.IntegerLiteral) and b.literal_value == 2:
        return lambda a, b: a * a   # (numba's x ** 2 of a float is x * x)


def _lane_intrinsic(name):
    @intrinsic
    def op(typingctx, a):
        if not isinstance(a, Vec):
            return None
        def codegen(context, builder, sig, args):
            ty = args[0].type
            fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ty, [ty]), f"llvm.{name}.v{a.width}f64")
            return builder.call(fn, [args[0]])
        return a(a), codegen
    return op


_sqrt, _fabs, _floor = _lane_intrinsic("sqrt"), _lane_intrinsic("fabs"), _lane_intrinsic("floor")


@overload(np.sqrt)
def _np_sqrt(a):
    if isinstance(a, Vec):
        return lambda a: _sqrt(a)


@overload(np.floor)
def _np_floor(a):
    if isinstance(a, Vec):
        return lambda a: _floor(a)


@overload(abs)
def _abs(a):
    if isinstance(a, Vec):
        return lambda a: _fabs(a)


# -- selections (numbers too)


@intrinsic
def where(typingctx, m, a, b):
    """``a if m else b`` lane by lane (a mask or a bool; vectors or numbers)."""
    w = _vec_width(a, b)
    if w is None and isinstance(m, Mask) and all(isinstance(t, (types.Float, types.Integer)) for t in (a, b)):
        w = m.width   # (two numbers, lane by lane)
    if w is None and isinstance(m, types.Boolean) and all(isinstance(t, (types.Float, types.Integer)) for t in (a, b)):
        def scalar(context, builder, sig, args):
            return builder.select(args[0], context.cast(builder, args[1], sig.args[1], types.float64),
                                  context.cast(builder, args[2], sig.args[2], types.float64))
        return types.float64(m, a, b), scalar
    if w is None or not isinstance(m, (Mask, types.Boolean)):
        return None
    def codegen(context, builder, sig, args):
        return builder.select(_as_mask(context, builder, args[0], sig.args[0], w), _as_vec(context, builder, args[1], sig.args[1], w),
                              _as_vec(context, builder, args[2], sig.args[2], w))
    return Vec(w)(m, a, b), codegen


def _pick(symbol):
    """numba's ``min`` (``<``) or ``max`` (``>``) of two floats, lane by lane: ``b`` where
    ``b < a`` (``b > a``), else ``a`` (so ``a`` where either is NaN)."""
    @intrinsic
    def op(typingctx, a, b):
        w = _vec_width(a, b)
        if w is None and all(isinstance(t, types.Float) for t in (a, b)):
            def scalar(context, builder, sig, args):
                x = context.cast(builder, args[0], sig.args[0], types.float64)
                y = context.cast(builder, args[1], sig.args[1], types.float64)
                return builder.select(builder.fcmp_ordered(symbol, y, x), y, x)
            return types.float64(a, b), scalar
        if w is None:
            return None
        def codegen(context, builder, sig, args):
            x = _as_vec(context, builder, args[0], sig.args[0], w)
            y = _as_vec(context, builder, args[1], sig.args[1], w)
            return builder.select(builder.fcmp_ordered(symbol, y, x), y, x)
        return Vec(w)(a, b), codegen
    return op


#: numba's ``min(a, b)`` and ``max(a, b)`` of two floats, lane by lane (numbers too)
vmin, vmax = _pick("<"), _pick(">")


@intrinsic
def any_lane(typingctx, m):
    """Whether any lane of the mask ``m`` is set (a bool stays itself)."""
    if isinstance(m, types.Boolean):
        def same(context, builder, sig, args):
            return args[0]
        return types.boolean(m), same
    if not isinstance(m, Mask):
        return None
    def codegen(context, builder, sig, args):
        bits = builder.bitcast(args[0], ir.IntType(m.width))
        return builder.icmp_unsigned("!=", bits, ir.Constant(ir.IntType(m.width), 0))
    return types.boolean(m), codegen


@intrinsic
def item(typingctx, a, i):
    """``a[i]`` of a 1-D int64 or float64 array, for an index that is never negative (a plan's),
    without the wraparound numba gives a signed index (a sign test, a mask and an add at every
    read, which at one block of lanes the skeleton's loops pay for every entry of its plan)."""
    if not (isinstance(a, types.Array) and a.ndim == 1 and a.dtype in (types.int64, types.float64)
            and isinstance(i, types.Integer)):
        return None

    def codegen(context, builder, sig, args):
        aty = sig.args[0]
        arr = context.make_array(aty)(context, builder, args[0])
        index = context.cast(builder, args[1], sig.args[1], types.intp)
        ptr = cgutils.get_item_pointer2(context, builder, arr.data, cgutils.unpack_tuple(builder, arr.shape, 1),
                                        cgutils.unpack_tuple(builder, arr.strides, 1), aty.layout, [index],
                                        wraparound=False)
        return builder.load(ptr)

    return a.dtype(a, i), codegen

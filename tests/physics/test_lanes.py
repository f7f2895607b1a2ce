"""Lane vectors (physics/lanes.py): a loop over blocks of lanes gives every lane the bits of
the scalar lane loop it replaces, infinities, signed zeros and subnormals included, and NaN
where it gives NaN (IEEE 754 leaves which NaN an operation of two NaNs returns to the machine,
and LLVM may order the operands of a sum or product differently in a vector)."""

import numpy as np
import pytest
from numba import njit

from physics.lanes import WIDTH, any_lane, block, item, one_at_a_time, one_block, stepped, vmax, vmin, where, width


@njit(cache=True, error_model="numpy")
def _scalar(a, b, on, out, flag, n):
    changed = False
    for l in range(n):
        x = min(a[0, l], b[1, l])
        y = max(a[1, l], -b[0, l])
        z = np.sqrt(abs(a[0, l])) if on[l] & (a[0, l] > 0.1) else y / x
        out[0, l] = x + y * z - 2.0 + (a[0, l] - b[0, l]) ** 2
        out[1, l] = (x * 3.0 - y) / (1.0 + abs(z)) if (x <= y) | (z != z) else -x
        out[2, l] = 0.5 if x < y else np.floor(y * 7.3) - 8.0
        flag[l] = ((x < y) | (~on[l])) & (z >= 0.0)
        changed |= x != y
    return changed


@njit(cache=True, error_model="numpy")
def _blocks(a, b, on, out, flag, n, single):
    changed = False
    for l0 in range(0, n, width(single)):
        l = block(l0, single)
        x = vmin(a[0, l], b[1, l])
        y = vmax(a[1, l], -b[0, l])
        z = where(on[l] & (a[0, l] > 0.1), np.sqrt(abs(a[0, l])), y / x)
        out[0, l] = x + y * z - 2.0 + (a[0, l] - b[0, l]) ** 2
        out[1, l] = where((x <= y) | (z != z), (x * 3.0 - y) / (1.0 + abs(z)), -x)
        out[2, l] = where(x < y, 0.5, np.floor(y * 7.3) - 8.0)
        flag[l] = ((x < y) | (~on[l])) & (z >= 0.0)
        changed |= any_lane(x != y)
    return changed


def _same(want, got):
    """The same bits, or both NaN."""
    return np.array_equal(want.view(np.int64), got.view(np.int64)) or bool(
        np.all((want.view(np.int64) == got.view(np.int64)) | (np.isnan(want) & np.isnan(got))))


@njit(cache=True, error_model="numpy")
def _pick_numbers(a, b, m):
    return vmin(a, b), vmax(a, b), where(m, a, b), min(a, b), max(a, b), a if m else b


def _values(rng, lanes):
    """Normal values with NaN, +-inf, +-0 and equal pairs among them."""
    a, b = rng.normal(size=(2, lanes)), rng.normal(size=(2, lanes))
    special = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-310])
    for arr in (a, b):
        idx = rng.choice(arr.size, lanes // 2, replace=False)
        arr.flat[idx] = rng.choice(special, idx.size)
    b[1, :4] = a[0, :4]
    return a, b


@pytest.mark.parametrize("seed", range(6))
def test_blocks_of_lanes_give_each_lane_the_scalar_loops_bits(seed):
    rng = np.random.default_rng(seed)
    lanes = 4 * WIDTH
    a, b = _values(rng, lanes)
    on = rng.random(lanes) > 0.3
    want, got = np.full((3, lanes), 7.0), np.full((3, lanes), 7.0)
    want_flag, got_flag = np.zeros(lanes, bool), np.zeros(lanes, bool)
    assert _scalar(a, b, on, want, want_flag, lanes) == _blocks(a, b, on, got, got_flag, lanes, False)
    assert _same(want, got)
    assert np.array_equal(want_flag, got_flag)
    # one lane at a time (the step compiled for one creature: ``single`` None)
    for l in range(lanes):
        one, one_flag = np.full((3, 1), 7.0), np.zeros(1, bool)
        _blocks(np.ascontiguousarray(a[:, l:l + 1]), np.ascontiguousarray(b[:, l:l + 1]), on[l:l + 1], one, one_flag, 1, None)
        assert _same(want[:, l], one[:, 0]) and one_flag[0] == want_flag[l]


@njit(cache=True)
def _counts(n):
    return stepped(None, n), stepped(one_block(), n), stepped(n < 0, n), width(one_block())


def test_the_lanes_stepped_are_a_constant_in_the_steps_compiled_for_one_creature_or_one_block():
    """One creature (``single`` None) steps 1 lane, one block (``one_block()``) WIDTH lanes,
    whatever the count handed on; any other ``single`` the count itself."""
    assert _counts(3) == (1, WIDTH, 3, WIDTH)
    assert _counts(40) == (1, WIDTH, 40, WIDTH)


@njit(cache=True)
def _one_at_a_time(n):
    return one_at_a_time(None), one_at_a_time(one_block()), one_at_a_time(n < 0)


def test_one_block_at_a_time_in_the_steps_compiled_for_one_creature_or_one_block_only():
    """The stages keep a chain in registers a block at a time where they step one block (one
    creature, or the step compiled for one block), and go an operation at a time elsewhere."""
    assert _one_at_a_time(3) == (True, True, False)


@njit(cache=True, error_model="numpy")
def _blocks_of_one_block(a, b, on, out, flag, n):
    return _blocks(a, b, on, out, flag, stepped(one_block(), n), one_block())


def test_the_loop_compiled_for_one_block_gives_each_lane_the_scalar_loops_bits():
    rng = np.random.default_rng(7)
    a, b = _values(rng, WIDTH)
    on = rng.random(WIDTH) > 0.3
    want, got = np.full((3, WIDTH), 7.0), np.full((3, WIDTH), 7.0)
    want_flag, got_flag = np.zeros(WIDTH, bool), np.zeros(WIDTH, bool)
    assert _scalar(a, b, on, want, want_flag, WIDTH) == _blocks_of_one_block(a, b, on, got, got_flag, 3)
    assert _same(want, got) and np.array_equal(want_flag, got_flag)


def test_a_block_covers_whole_blocks_and_no_further():
    """A loop of n lanes writes n rounded up to a whole block, from lane 0."""
    lanes = 3 * WIDTH
    a, b = np.ones((2, lanes)), np.ones((2, lanes))
    out = np.full((3, lanes), 7.0)
    _blocks(a, b, np.ones(lanes, bool), out, np.zeros(lanes, bool), WIDTH + 1, False)
    assert np.all(out[2, :2 * WIDTH] == -1.0) and np.all(out[2, 2 * WIDTH:] == 7.0)


@pytest.mark.parametrize("a, b", [(1.0, 2.0), (2.0, 1.0), (np.nan, 1.0), (1.0, np.nan), (0.0, -0.0), (-0.0, 0.0)])
def test_the_selections_take_numbers_as_numba_does(a, b):
    for m in (True, False):
        got = _pick_numbers(a, b, m)
        for x, y in zip(got[:3], got[3:]):
            assert np.array_equal(np.float64(x).view(np.int64), np.float64(y).view(np.int64))


@njit(cache=True)
def _items(a, b):
    total = 0.0
    for i in range(a.shape[0]):
        total += item(b, item(a, i))
    return total, item(a, a.shape[0] - 1)


def test_item_reads_an_array_at_an_index_as_indexing_does():
    """``item`` is ``a[i]`` for the indices a plan holds (never negative), int64 and float64."""
    a = np.array([3, 0, 2, 2, 1], np.int64)
    b = np.array([0.5, -1.0, 2.25, 8.0])
    assert _items(a, b) == (float(b[a].sum()), 1)

"""Terrain: a polyline height field shared by every creature of a batch.

The ground is the region below the polyline through the points ``(xs[k], ys[k])``; outside
``[xs[0], xs[-1]]`` it continues flat at the end heights. ``xs`` must be strictly increasing, so
a step's riser is a short steep segment rather than a vertical one (a sphere meets it from the
side all the same, because contact uses the closest point on the nearby segments).

Constructors give the terrains that tasks use: :meth:`Terrain.flat`, :meth:`Terrain.slope`,
:meth:`Terrain.steps` and :meth:`Terrain.hills` (random, from a seed, reproducible).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numba import njit

__all__ = ["Terrain", "TERRAIN_KINDS", "make_terrain"]

TERRAIN_KINDS = ("flat", "slope", "steps", "hills")

#: width (m) of the ground broad phase's blocks
BLOCK = 1.0


@dataclass(frozen=True)
class Terrain:
    """A polyline height field.

    Attributes
    ----------
    xs : ndarray, shape (N,)
        Strictly increasing x coordinates of the vertices (m), N >= 2.
    ys : ndarray, shape (N,)
        Heights of the vertices (m).
    kind : str
        How it was made (``flat``, ``slope``, ``steps``, ``hills`` or ``custom``), for summaries.
    table : ndarray, shape (5, N)
        What the solver reads: rows xs, ys, and per segment k < N - 1 its outward unit normal
        (rows 2, 3) and inverse squared length (row 4). Derived, not an argument.
    blocks : ndarray, shape (3 + NB,)
        The ground's broad phase: ``[x_start, NB, top, top_0, ..., top_NB-1]``: the highest
        terrain point overall, then within each ``BLOCK``-wide block from ``x_start`` (end blocks
        stand for the flat continuation). Derived.
    """

    xs: np.ndarray
    ys: np.ndarray
    kind: str = "custom"
    table: np.ndarray = field(init=False, repr=False, compare=False)
    blocks: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        xs = np.ascontiguousarray(self.xs, dtype=np.float64)
        ys = np.ascontiguousarray(self.ys, dtype=np.float64)
        if xs.ndim != 1 or xs.shape != ys.shape or xs.size < 2:
            raise ValueError("terrain needs xs and ys of the same shape (N,), N >= 2")
        if not (np.all(np.isfinite(xs)) and np.all(np.isfinite(ys))):
            raise ValueError("terrain vertices must be finite")
        if np.any(np.diff(xs) <= 0.0):
            raise ValueError("terrain xs must be strictly increasing")
        object.__setattr__(self, "xs", xs)
        object.__setattr__(self, "ys", ys)
        ex, ey = np.diff(xs), np.diff(ys)
        length = np.hypot(ex, ey)
        table = np.zeros((5, xs.size))
        table[0], table[1] = xs, ys
        table[2, :-1], table[3, :-1] = -ey / length, ex / length  # outward unit normals
        table[4, :-1] = 1.0 / (length * length)
        object.__setattr__(self, "table", table)
        # broad phase: the highest point of the terrain within each block of BLOCK metres
        start = np.floor(xs[0] / BLOCK) * BLOCK
        nb = int(np.ceil((xs[-1] - start) / BLOCK)) + 1
        top = np.full(nb, -np.inf)
        lo = np.clip(((np.minimum(xs[:-1], xs[1:]) - start) // BLOCK).astype(np.int64), 0, nb - 1)
        hi = np.clip(((np.maximum(xs[:-1], xs[1:]) - start) // BLOCK).astype(np.int64), 0, nb - 1)
        for k in range(xs.size - 1):
            seg_top = max(ys[k], ys[k + 1])
            top[lo[k]:hi[k] + 1] = np.maximum(top[lo[k]:hi[k] + 1], seg_top)
        object.__setattr__(self, "blocks", np.concatenate([[start, nb, top.max()], top]))

    def __setstate__(self, state):
        # arrays out of pickle's buffers (Ray's object store) are read-only: another numba type
        # for the kernels that read table and blocks (a read-only one compiled the step again)
        for name, value in state.items():
            if isinstance(value, np.ndarray) and not value.flags.writeable:
                value = value.copy()
            object.__setattr__(self, name, value)

    # constructors ------------------------------------------------------------------------
    @classmethod
    def flat(cls, height: float = 0.0, extent: float = 1000.0) -> "Terrain":
        """Level ground at ``height``."""
        return cls(np.array([-extent, extent]), np.array([height, height]), "flat")

    @classmethod
    def slope(cls, degrees: float = 10.0, start: float = 0.0, extent: float = 1000.0) -> "Terrain":
        """Flat up to ``x = start``, then a constant slope (positive: uphill to the right)."""
        t = np.tan(np.radians(degrees))
        return cls(np.array([-extent, start, extent]), np.array([0.0, 0.0, (extent - start) * t]), "slope")

    @classmethod
    def steps(cls, height: float = 0.15, depth: float = 1.0, count: int = 40, start: float = 2.0,
              riser: float = 0.01) -> "Terrain":
        """A staircase going up to the right: ``count`` steps of ``height`` every ``depth`` metres
        from ``x = start``. Each riser is a ``riser``-wide steep segment."""
        xs, ys = [-1000.0], [0.0]
        for k in range(count):
            x = start + k * depth
            xs += [x, x + riser]
            ys += [k * height, (k + 1) * height]
        xs.append(start + count * depth + 1000.0)
        ys.append(count * height)
        return cls(np.array(xs), np.array(ys), "steps")

    @classmethod
    def hills(cls, seed: int = 0, amplitude: float = 0.3, wavelength: float = 4.0, start: float = 2.0,
              length: float = 400.0, resolution: float = 0.25) -> "Terrain":
        """Random rolling hills from ``seed``: a sum of a few sines with random phases, flat before
        ``x = start`` (so creatures start on level ground) and easing in over one wavelength."""
        if seed < 0:
            raise ValueError("the hills' seed must be 0 or more")
        rng = np.random.default_rng(seed)
        n = int(length / resolution) + 1
        x = start + np.arange(n) * resolution
        y = np.zeros(n)
        for octave in range(3):
            k = 2.0 ** octave
            phase = rng.uniform(0.0, 2.0 * np.pi)
            y += amplitude / k * np.sin(2.0 * np.pi * k * (x - start) / wavelength + phase)
        y -= y[0]
        y *= np.clip((x - start) / wavelength, 0.0, 1.0)  # ease in from the flat start
        xs = np.concatenate([[-1000.0], x, [x[-1] + 1000.0]])
        ys = np.concatenate([[0.0], y, [y[-1]]])
        return cls(xs, ys, "hills")

    # queries -----------------------------------------------------------------------------
    def height(self, x) -> np.ndarray:
        """Terrain height under ``x`` (any shape), flat beyond the ends."""
        return np.interp(x, self.xs, self.ys)


def make_terrain(kind: str, seed: int = 0) -> Terrain:
    """A terrain by name (one of :data:`TERRAIN_KINDS`) with default parameters."""
    if kind == "flat":
        return Terrain.flat()
    if kind == "slope":
        return Terrain.slope()
    if kind == "steps":
        return Terrain.steps()
    if kind == "hills":
        return Terrain.hills(seed=seed)
    raise ValueError(f"unknown terrain {kind!r} (choose from {', '.join(TERRAIN_KINDS)})")


@njit(cache=True, error_model="numpy")
def is_straight(table) -> bool:
    """Whether a terrain's ``table`` is one segment extended both ways (flat ground, a slope):
    a line, which one half-plane per sphere meets exactly; any other terrain has corners."""
    return table.shape[1] == 2


@njit(cache=True, error_model="numpy", inline="always")
def find_segment(xs, x):
    """Index k of the segment [xs[k], xs[k+1]] holding x (clamped to the first/last segment)."""
    lo = 0
    hi = xs.shape[0] - 2
    if x <= xs[0]:
        return 0
    if x >= xs[hi + 1]:
        return hi
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if xs[mid] <= x:
            lo = mid
        else:
            hi = mid - 1
    return lo


@njit(cache=True, error_model="numpy", inline="always")
def height_at(xs, ys, x):
    """The terrain's height under ``x``: ``np.interp(x, xs, ys)`` for one x, bit for bit (the
    same search result and arithmetic), without the two arrays numba's ``np.interp`` allocates
    for a scalar. ``xs`` strictly increasing."""
    n = xs.shape[0]
    if np.isnan(x):
        return x
    if x >= xs[n - 1]:
        return ys[n - 1]
    if x < xs[0]:
        return ys[0]
    lo = 0           # xs[lo] <= x < xs[hi]
    hi = n - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if xs[mid] <= x:
            lo = mid
        else:
            hi = mid
    if xs[lo] == x:
        return ys[lo]
    slope = (ys[lo + 1] - ys[lo]) / (xs[lo + 1] - xs[lo])
    r = slope * (x - xs[lo]) + ys[lo]
    if np.isnan(r):  # numpy's fallback: from the other end, then the flat case
        r = slope * (x - xs[lo + 1]) + ys[lo + 1]
        if np.isnan(r) and ys[lo] == ys[lo + 1]:
            r = ys[lo]
    return r


@njit(cache=True, error_model="numpy")
def terrain_top(blocks, x0, x1):
    """Highest terrain point over [x0, x1] (an upper bound, from the broad-phase blocks)."""
    start = blocks[0]
    nb = np.int64(blocks[1])
    k0 = np.int64(np.floor((x0 - start) / BLOCK))
    k1 = np.int64(np.floor((x1 - start) / BLOCK))
    k0 = min(max(k0, 0), nb - 1)
    k1 = min(max(k1, 0), nb - 1)
    top = -np.inf
    for k in range(k0, k1 + 1):
        top = max(top, blocks[3 + k])
    return top


@njit(cache=True, error_model="numpy")
def closest_on_terrain(table, px, py, reach):
    """Signed distance from point (px, py) to the terrain and the outward normal there.

    ``table`` is :attr:`Terrain.table`. Only segments overlapping ``[px - reach, px + reach]``
    are searched, so ``reach`` must be at least the sphere radius. Returns ``(dist, nx, ny)``:
    ``dist`` is positive above the ground and negative below it; ``(nx, ny)`` is the unit normal
    pointing out of the ground (toward the point). Beyond the ends the terrain continues flat.
    """
    xs = table[0]
    ys = table[1]
    last = xs.shape[0] - 2
    s = find_segment(xs, px - reach)
    best = np.inf
    bx = 0.0
    by = 0.0
    bs = s
    below = False
    while True:
        ax = xs[s]
        ay = ys[s]
        ex = xs[s + 1] - ax
        ey = ys[s + 1] - ay
        # inside or outside: the sign against the segment under px (its normal has ny > 0)
        if (ax <= px or s == 0) and (px < xs[s + 1] or s == last):
            below = (px - ax) * table[2, s] + (py - ay) * table[3, s] < 0.0
        u = ((px - ax) * ex + (py - ay) * ey) * table[4, s]
        if u < 0.0 and s > 0:      # the end segments extend to infinity
            u = 0.0
        if u > 1.0 and s < last:
            u = 1.0
        cx = ax + u * ex
        cy = ay + u * ey
        d2 = (px - cx) * (px - cx) + (py - cy) * (py - cy)
        if d2 < best:
            best = d2
            bx = cx
            by = cy
            bs = s
        if s == last or xs[s + 1] > px + reach:
            break
        s += 1
    d = np.sqrt(best)
    if d > 1e-9:
        nx = (px - bx) / d
        ny = (py - by) / d
        if below:
            return -d, -nx, -ny
        return d, nx, ny
    return 0.0, table[2, bs], table[3, bs]

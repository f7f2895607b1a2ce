"""Sphere-sphere collisions: inside a creature, and between the creatures of a shared arena.

Both resolve an overlap ``pen = r_i + r_j - |p_i - p_j| > 0`` by moving the two spheres apart
along their centre line in proportion to their inverse masses (equal and opposite momentum).
The guards are written ``not (pen > 0)``, never ``pen <= 0``: a NaN fails every comparison, so
a sphere gone non-finite is skipped rather than resolved against, which would spread the NaN to
the other sphere (in the arena, to another creature).

Inside a creature the candidate pairs are fixed by the topology (every pair not already joined by
a bone, joint or cluster), so for the few spheres of one creature a flat list beats any broad
phase. Between creatures the spheres of the whole batch are binned in a uniform grid, hashed into
a table by cell (seed 004's spatial hashing), and each sphere is tested against the 3 x 3 cells
around its own. The arena pass runs once per step on one thread in index order, so it is
deterministic; it also removes the approaching normal velocity of each colliding pair
(an inelastic, momentum-conserving impact, seed 003's averaging of the lost velocity).
"""

import numpy as np
from numba import njit

from .lanes import stepped


@njit(cache=True, error_model="numpy")
def solve_self_collisions(x, p, q, pair_a, pair_b, inv_mass, radius, b0, n, single):
    """Separate overlapping spheres of the same creature (candidate pairs from the model), along
    their centre line at the substep's start, as bones do (angular momentum is kept). A Jacobi
    sweep: every pair judged on the same snapshot ``q`` of ``p`` (no order bias,
    physics/bones.py)."""
    n = stepped(single, n)   # (a constant in the steps compiled for one creature or one block: physics/step.py)
    for i in range(p.shape[0]):
        for k in range(2):
            for l in range(n):
                q[i, k, l] = p[i, k, l]
    for c in range(pair_a.shape[0]):
        i = pair_a[c]
        j = pair_b[c]
        for l in range(n):
            b = b0 + l
            wi = inv_mass[i, b]
            wj = inv_mass[j, b]
            dx = q[i, 0, l] - q[j, 0, l]
            dy = q[i, 1, l] - q[j, 1, l]
            d = np.sqrt(dx * dx + dy * dy)
            pen = radius[i, b] + radius[j, b] - d
            # (so that NaN stays out; a sphere switched off has radius 0 and does not collide)
            if not (pen > 0.0 and d >= 1e-12 and wi + wj > 0.0 and radius[i, b] > 0.0 and radius[j, b] > 0.0):
                continue
            ux = x[i, 0, l] - x[j, 0, l]
            uy = x[i, 1, l] - x[j, 1, l]
            u = np.sqrt(ux * ux + uy * uy)
            g = (dx * ux + dy * uy) / u if u > 1e-12 else 0.0
            if g > 0.1 * d:
                s = pen * d / ((wi + wj) * g * u)
            else:
                ux = dx
                uy = dy
                s = pen / ((wi + wj) * d)
            p[i, 0, l] += wi * s * ux
            p[i, 1, l] += wi * s * uy
            p[j, 0, l] -= wj * s * ux
            p[j, 1, l] -= wj * s * uy


@njit(cache=True, error_model="numpy")
def cell_hash(cx, cy, mask):
    """The bucket of grid cell (cx, cy) in a table of ``mask + 1`` buckets (a power of two)."""
    return ((cx * 73856093) ^ (cy * 19349663)) & mask


@njit(cache=True, error_model="numpy")
def build_grid(pos, cell):
    """Bin all B * P spheres into a hashed uniform grid of ``cell``-sized squares.

    Returns ``(cx, cy, start, order)``: each sphere's integer cell, and the spheres sorted by
    hash bucket, bucket h holding ``order[start[h]:start[h + 1]]`` (a counting sort)."""
    B, P = pos.shape[0], pos.shape[1]
    N = B * P
    size = 1
    while size < 2 * N:
        size *= 2
    mask = size - 1
    cx = np.empty(N, np.int64)
    cy = np.empty(N, np.int64)
    key = np.empty(N, np.int64)
    count = np.zeros(size + 1, np.int64)
    for b in range(B):
        for i in range(P):
            k = b * P + i
            cx[k] = np.int64(np.floor(pos[b, i, 0] / cell))
            cy[k] = np.int64(np.floor(pos[b, i, 1] / cell))
            key[k] = cell_hash(cx[k], cy[k], mask)
            count[key[k] + 1] += 1
    for h in range(size):
        count[h + 1] += count[h]
    start = count.copy()
    fill = count[:-1].copy()
    order = np.empty(N, np.int64)
    for k in range(N):
        order[fill[key[k]]] = k
        fill[key[k]] += 1
    return cx, cy, start, order


#: Gauss-Seidel passes over the colliding pairs between creatures, once per step (or substep)
ARENA_PASSES = 4


@njit(cache=True, error_model="numpy")
def collide_arena(pos, vel, mass, inv_mass, radius, passes):
    """Separate overlapping spheres of different creatures and stop their approach.

    pos, vel : (B, P, 2), changed in place; mass, inv_mass, radius : (B, P). The grid is built
    once and the pairs resolved in ``passes`` Gauss-Seidel passes (one pass leaves overlaps where
    separating one pair pushes a sphere into another; measured up to 32 mm). Returns the number
    of pair resolutions."""
    B, P = pos.shape[0], pos.shape[1]
    rmax = 0.0
    for b in range(B):
        for i in range(P):
            rmax = max(rmax, radius[b, i])
    if not rmax > 0.0:
        return 0
    cell = 2.0 * rmax
    cx, cy, start, order = build_grid(pos, cell)
    mask = start.shape[0] - 2
    hits = 0
    for _ in range(passes):
        hits += _arena_pass(pos, vel, inv_mass, radius, cx, cy, start, order, mask)
    return hits


@njit(cache=True, error_model="numpy")
def _arena_pass(pos, vel, inv_mass, radius, cx, cy, start, order, mask):
    B, P = pos.shape[0], pos.shape[1]
    hits = 0
    for k in range(B * P):
        bk = k // P
        ik = k - bk * P
        for ox in range(-1, 2):
            for oy in range(-1, 2):
                gx = cx[k] + ox
                gy = cy[k] + oy
                h = cell_hash(gx, gy, mask)
                for s in range(start[h], start[h + 1]):
                    q = order[s]
                    if q <= k or cx[q] != gx or cy[q] != gy:
                        continue
                    bq = q // P
                    if bq == bk:
                        continue
                    hits += separate_pair(pos, vel, bk, ik, bq, q - bq * P, inv_mass, radius)
    return hits


@njit(cache=True, error_model="numpy")
def separate_pair(pos, vel, bi, i, bj, j, inv_mass, radius):
    """Sphere (bi, i) and sphere (bj, j) of ``pos, vel : (B, P, 2)`` (``inv_mass, radius :
    (B, P)``), if they overlap: moved apart along their centre line in proportion to their
    inverse masses, and their approaching normal velocity removed (an inelastic impact). Equal
    and opposite, so momentum is kept. The arena's pass and the Witkin solver's self-collisions
    (physics/witkin.py). Returns whether it resolved them (1 or 0)."""
    dx = pos[bi, i, 0] - pos[bj, j, 0]
    dy = pos[bi, i, 1] - pos[bj, j, 1]
    d = np.sqrt(dx * dx + dy * dy)
    pen = radius[bi, i] + radius[bj, j] - d
    wi = inv_mass[bi, i]
    wj = inv_mass[bj, j]
    if not (pen > 0.0 and d >= 1e-12 and wi + wj > 0.0 and radius[bi, i] > 0.0
            and radius[bj, j] > 0.0):  # NaN stays out; switched-off spheres too
        return 0
    nx = dx / d
    ny = dy / d
    s = pen / (wi + wj)
    pos[bi, i, 0] += wi * s * nx
    pos[bi, i, 1] += wi * s * ny
    pos[bj, j, 0] -= wj * s * nx
    pos[bj, j, 1] -= wj * s * ny
    # inelastic impact: remove the approaching relative normal velocity
    un = (vel[bi, i, 0] - vel[bj, j, 0]) * nx + (vel[bi, i, 1] - vel[bj, j, 1]) * ny
    if un < 0.0:
        imp = -un / (wi + wj)
        vel[bi, i, 0] += wi * imp * nx
        vel[bi, i, 1] += wi * imp * ny
        vel[bj, j, 0] -= wj * imp * nx
        vel[bj, j, 1] -= wj * imp * ny
    return 1

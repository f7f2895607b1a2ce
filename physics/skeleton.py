"""The skeleton: every rigid bone of a creature solved together, exactly, by a sparse direct solve.

Rigid bones are the one constraint that must hold: a bone that stretches is a body that cheats.
Relaxation sweeps over them converge slowly (Gauss-Seidel, which converges fastest, depends on the
order a design lists its bones and so does not leave a mirror-symmetric body symmetric; Jacobi,
which does not, needed 16 substeps to hold the walker within 3 %). So within each substep the rigid
bones are one linear system, solved exactly: one Newton step of the constraints

    C_e = (|p_i - p_j|^2 - r_e^2) / (2 r_e)        (zero exactly where |p_i - p_j| = r_e)

for multipliers ``lam``, the corrections ``dp_i = w_i sum_e s_ie lam_e u_e`` going along each bone's
direction at the substep's start ``u_e = (x_i - x_j) / r_e`` (which keeps angular momentum, as in
bones.py; s_ie is +1 at a bone's first sphere, -1 at its second). The system is

    A lam = -C,   A_ef = sum over the spheres k bones e and f share of  w_k s_ke s_kf (u_e . u_f)

(``A = J W J^T``; the diagonal is ``w_i + w_j``), symmetric positive semi-definite and as sparse as
the skeleton: two bones couple only where they meet. It is factored as ``L D L^T`` in an order
that keeps the factor sparse (minimum degree, chosen once per topology by :func:`plan_skeleton`),
so a chain, a ladder or a braced torso costs a few operations per bone. The solve is the same
linear algebra whatever order the design lists its bones in (only the rounding differs), so a
mirror image moves as the mirror image. The corrections are equal and opposite at every bone, so
momentum is kept exactly.

A braced torso has more bones than its spheres need (one redundant bone per brace): A is then
singular, and its factorisation meets a pivot that vanishes (below ``PIVOT_FLOOR`` of its
diagonal). That row is dropped (its multiplier 0, its column of L 0): the bones eliminated
before it already fix the length it asks for, to first order, so nothing is lost.

The plan is flat integer arrays, so that the numeric phase is loops a compiler vectorises across
creatures (every creature of a batch shares the topology, so every lane does the same operations):
``ent_*`` the nonzeros of L column by column (diagonal first), ``asm_*`` the contributions of
shared spheres to A's off-diagonal entries, ``pair_*`` and ``op_*`` the left-looking updates.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["plan_skeleton", "SKELETON_FIELDS", "PIVOT_FLOOR"]

import os
#: a sphere the ground holds is this many times heavier along the contact normal
HOLD_MASS = float(os.environ.get("HOLD_MASS", "100"))
HOLD = np.sqrt(1.0 - 1.0 / HOLD_MASS)
#: a pivot below this fraction of its diagonal drops its row (redundant bones: see the module)
PIVOT_FLOOR = 1e-7

#: the plan's arrays, in the order the hot tuple holds them (physics/_hot.py)
SKELETON_FIELDS = ("sk_bone", "sk_col_start", "sk_ent_row", "asm_entry", "asm_e", "asm_f", "asm_sphere",
                   "asm_sign", "pair_start", "pair_entry", "pair_j", "pair_op_start", "op_target", "op_source",
                   "sk_bone_a", "sk_bone_b")


def plan_skeleton(bone_a, bone_b, rigid_bones, n_spheres: int) -> dict:
    """The symbolic phase for the rigid bones ``rigid_bones`` (indices into ``bone_a``/``bone_b``):
    an elimination order (minimum degree, ties to the lower index), the nonzero pattern of L with
    its fill, and the operation lists of the numeric phase. Int64 arrays, see the module."""
    rigid = [int(e) for e in rigid_bones]
    n = len(rigid)
    at = [[] for _ in range(n_spheres)]
    for r, e in enumerate(rigid):
        at[int(bone_a[e])].append(r)
        at[int(bone_b[e])].append(r)
    graph = [set() for _ in range(n)]
    for rows in at:
        for r1 in rows:
            graph[r1].update(r2 for r2 in rows if r2 != r1)
    # minimum degree elimination: the neighbours of the node eliminated are its column's rows
    alive = {r: set(graph[r]) for r in range(n)}
    order, rows_of = [], []
    while alive:
        v = min(alive, key=lambda r: (len(alive[r]), r))
        nbrs = alive.pop(v)
        for a in nbrs:
            alive[a].discard(v)
            alive[a].update(nbrs - {a})
        order.append(v)
        rows_of.append(nbrs)
    pos = {v: k for k, v in enumerate(order)}
    cols = [sorted(pos[a] for a in rows) for rows in rows_of]   # rows i > k of column k
    # entries: column by column, the diagonal first
    col_start, ent_row, entry = [0], [], {}
    for k in range(n):
        for i in [k] + cols[k]:
            entry[(i, k)] = len(ent_row)
            ent_row.append(i)
        col_start.append(len(ent_row))
    # A's off-diagonal entries: a contribution per sphere two bones share
    asm = []
    for s, rows in enumerate(at):
        for r1 in rows:
            for r2 in rows:
                k1, k2 = pos[r1], pos[r2]
                if k1 > k2:
                    e, f = rigid[r1], rigid[r2]
                    sign = (1 if bone_a[e] == s else -1) * (1 if bone_a[f] == s else -1)
                    asm.append((entry[(k1, k2)], k1, k2, s, sign))
    # left-looking updates: column k gets, from every earlier column j with L_kj != 0,
    # V[i, k] -= L_ij * (L_kj D_j) for the rows i >= k of column j
    pair_start, pair_entry, pair_j, pair_op_start, op_target, op_source = [0], [], [], [0], [], []
    below = [[] for _ in range(n)]   # column k: the earlier columns j with row k
    for j in range(n):
        for i in cols[j]:
            below[i].append(j)
    for k in range(n):
        for j in below[k]:
            pair_entry.append(entry[(k, j)])
            pair_j.append(j)
            for i in cols[j]:
                if i >= k:
                    op_target.append(entry[(i, k)])
                    op_source.append(entry[(i, j)])
            pair_op_start.append(len(op_target))
        pair_start.append(len(pair_entry))
    sk_bone = np.array([rigid[v] for v in order], np.int64)

    def arr(x):
        return np.array(x, np.int64).reshape(-1)

    asm = np.array(asm, np.int64).reshape(-1, 5)
    return {"sk_bone": sk_bone, "sk_col_start": arr(col_start), "sk_ent_row": arr(ent_row),
            "asm_entry": asm[:, 0].copy(), "asm_e": asm[:, 1].copy(), "asm_f": asm[:, 2].copy(),
            "asm_sphere": asm[:, 3].copy(), "asm_sign": asm[:, 4].copy(),
            "pair_start": arr(pair_start), "pair_entry": arr(pair_entry), "pair_j": arr(pair_j),
            "pair_op_start": arr(pair_op_start), "op_target": arr(op_target), "op_source": arr(op_source),
            "sk_bone_a": arr([bone_a[e] for e in sk_bone]), "sk_bone_b": arr([bone_b[e] for e in sk_bone])}


@njit(cache=True, error_model="numpy")
def factor_skeleton(x, p, held, plane, N, V, D, U, hot, b0, n, reach):
    """Assemble A at the directions of the positions ``x`` and factor it: ``V : (nnz, LANES)``
    ends as L below its diagonal (unit diagonal implied), ``D : (R, LANES)`` as 1 / the pivots,
    ``U : (R, 3, LANES)`` as each rigid bone's direction (x_i - x_j) / r and 1 / (2 r).
    A sphere the ground pushed this substep (``held : (P, LANES)`` > 0) may not move along its
    contact normal (``plane``'s first two rows): ``N : (P, 2, LANES)`` is that normal, 0 for the
    others, and its inverse mass is ``w (I - N N^T)``."""
    R = hot.sk_bone.shape[0]
    if R == 0:
        return
    for i in range(N.shape[0]):
        for l in range(n):
            # on the ground: pushed by it this substep, or within ``reach`` of its plane
            gap = plane[i, 0, l] * p[i, 0, l] + plane[i, 1, l] * p[i, 1, l] - plane[i, 2, l]
            on = (held[i, l] > 0.0) | (gap <= reach)
            N[i, 0, l] = plane[i, 0, l] * HOLD if on else 0.0
            N[i, 1, l] = plane[i, 1, l] * HOLD if on else 0.0
    inv_mass = hot.inv_mass
    for k in range(R):
        e = hot.sk_bone[k]
        i = hot.sk_bone_a[k]
        j = hot.sk_bone_b[k]
        ux = U[k, 0]
        uy = U[k, 1]
        half = U[k, 2]
        diag = V[hot.sk_col_start[k]]
        for l in range(n):
            inv_r = 1.0 / hot.bone_rest[e, b0 + l]
            ux[l] = (x[i, 0, l] - x[j, 0, l]) * inv_r
            uy[l] = (x[i, 1, l] - x[j, 1, l]) * inv_r
            half[l] = 0.5 * inv_r
            ni = ux[l] * N[i, 0, l] + uy[l] * N[i, 1, l]
            nj = ux[l] * N[j, 0, l] + uy[l] * N[j, 1, l]
            diag[l] = inv_mass[i, b0 + l] * (1.0 - ni * ni) + inv_mass[j, b0 + l] * (1.0 - nj * nj)
        for t in range(hot.sk_col_start[k] + 1, hot.sk_col_start[k + 1]):
            V[t, :n] = 0.0
    for a in range(hot.asm_entry.shape[0]):
        t = hot.asm_entry[a]
        e = hot.asm_e[a]
        f = hot.asm_f[a]
        s = hot.asm_sphere[a]
        sign = hot.asm_sign[a]
        for l in range(n):
            ue_n = U[e, 0, l] * N[s, 0, l] + U[e, 1, l] * N[s, 1, l]
            uf_n = U[f, 0, l] * N[s, 0, l] + U[f, 1, l] * N[s, 1, l]
            V[t, l] += sign * inv_mass[s, b0 + l] * (U[e, 0, l] * U[f, 0, l] + U[e, 1, l] * U[f, 1, l] - ue_n * uf_n)
    for k in range(R):
        for pr in range(hot.pair_start[k], hot.pair_start[k + 1]):
            lkj = V[hot.pair_entry[pr]]
            dj = D[hot.pair_j[pr]]
            for o in range(hot.pair_op_start[pr], hot.pair_op_start[pr + 1]):
                target = V[hot.op_target[o]]
                source = V[hot.op_source[o]]
                for l in range(n):
                    target[l] -= source[l] * lkj[l] / dj[l]
        c0 = hot.sk_col_start[k]
        diag = V[c0]
        dk = D[k]
        for l in range(n):
            a0 = inv_mass[hot.sk_bone_a[k], b0 + l] + inv_mass[hot.sk_bone_b[k], b0 + l]
            piv = diag[l]
            dk[l] = 1.0 / piv if piv > PIVOT_FLOOR * a0 else 0.0
        for t in range(c0 + 1, hot.sk_col_start[k + 1]):
            row = V[t]
            for l in range(n):
                row[l] *= dk[l]


@njit(cache=True, error_model="numpy")
def solve_skeleton(p, N, V, D, U, lam, hot, b0, n):
    """One Newton step of every rigid bone at once (the module says how): the errors at ``p``,
    the factored system of :func:`factor_skeleton` solved for ``lam : (R, LANES)``, and the
    corrections added to ``p``."""
    R = hot.sk_bone.shape[0]
    if R == 0:
        return
    for k in range(R):
        e = hot.sk_bone[k]
        i = hot.sk_bone_a[k]
        j = hot.sk_bone_b[k]
        rhs = lam[k]
        half = U[k, 2]
        for l in range(n):
            dx = p[i, 0, l] - p[j, 0, l]
            dy = p[i, 1, l] - p[j, 1, l]
            r = hot.bone_rest[e, b0 + l]
            rhs[l] = (r * r - (dx * dx + dy * dy)) * half[l]
    # L y = rhs (column by column), then z = y / D, then L^T lam = z (backwards)
    for k in range(R):
        yk = lam[k]
        for t in range(hot.sk_col_start[k] + 1, hot.sk_col_start[k + 1]):
            yi = lam[hot.sk_ent_row[t]]
            lv = V[t]
            for l in range(n):
                yi[l] -= lv[l] * yk[l]
    for k in range(R):
        yk = lam[k]
        dk = D[k]
        for l in range(n):
            yk[l] *= dk[l]
    for k in range(R - 1, -1, -1):
        xk = lam[k]
        for t in range(hot.sk_col_start[k] + 1, hot.sk_col_start[k + 1]):
            xi = lam[hot.sk_ent_row[t]]
            lv = V[t]
            for l in range(n):
                xk[l] -= lv[l] * xi[l]
    for k in range(R):
        i = hot.sk_bone_a[k]
        j = hot.sk_bone_b[k]
        lk = lam[k]
        ux = U[k, 0]
        uy = U[k, 1]
        for l in range(n):
            wi = hot.inv_mass[i, b0 + l] * lk[l]
            wj = hot.inv_mass[j, b0 + l] * lk[l]
            ni = ux[l] * N[i, 0, l] + uy[l] * N[i, 1, l]
            nj = ux[l] * N[j, 0, l] + uy[l] * N[j, 1, l]
            p[i, 0, l] += wi * (ux[l] - ni * N[i, 0, l])
            p[i, 1, l] += wi * (uy[l] - ni * N[i, 1, l])
            p[j, 0, l] -= wj * (ux[l] - nj * N[j, 0, l])
            p[j, 1, l] -= wj * (uy[l] - nj * N[j, 1, l])

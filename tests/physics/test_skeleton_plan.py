"""The skeleton's plan (physics/skeleton.py, ``plan_skeleton``) describes its factorisation whole:
its updates entry by entry (``upd_*``, the order the kernels take for one block; the same
updates as its pairs of columns, ``pair_*`` and ``op_*``, which they take for many), and L's
entries row by row (``sk_row_*``) as well as column by column, factor and solve any symmetric
positive definite matrix of the skeleton's pattern as a dense solve does. Here in plain Python,
step for step as factor_skeleton and _substitute do it."""

import numpy as np
import pytest

import physics
from creatures.design.bestiary import resolve_design
from creatures.design.random_design import random_design
from physics.skeleton import plan_skeleton
from physics_helpers import cluster_walker


def _plan(body):
    model = physics.build_model(body, batch=1)
    soft = model.bone_soft
    return plan_skeleton(model.bone_a, model.bone_b, np.flatnonzero(~soft), np.flatnonzero(soft), model.joint_a,
                         model.joint_c, model.joint_b, model.joint_limited, model.n_spheres, model.cluster_start,
                         model.cluster_sphere, model.muscle_bone)


def _factor_and_solve(plan, A, b):
    """factor_skeleton's left-looking L D L^T from the plan's updates, then _substitute's solve."""
    col_start, ent_row = plan["sk_col_start"], plan["sk_ent_row"]
    R = len(col_start) - 1
    V = np.array([A[ent_row[t], k] for k in range(R) for t in range(col_start[k], col_start[k + 1])])
    PV, D = np.zeros(R), np.zeros(R)
    for k in range(R):
        for t in range(col_start[k], col_start[k + 1]):
            for o in range(plan["upd_start"][t], plan["upd_start"][t + 1]):
                V[t] -= V[plan["upd_source"][o]] * V[plan["upd_entry"][o]] * PV[plan["upd_j"][o]]
            if t == col_start[k]:
                PV[k] = V[t]
                D[k] = 1.0 / V[t]
            else:
                V[t] *= D[k]
    x = b.copy()
    for i in range(R):   # forward, row by row
        for u in range(plan["sk_row_start"][i], plan["sk_row_start"][i + 1]):
            x[i] -= V[plan["sk_row_entry"][u]] * x[plan["sk_row_col"][u]]
    x *= D
    for k in range(R - 1, -1, -1):   # backward, column by column
        for t in range(col_start[k] + 1, col_start[k + 1]):
            x[k] -= V[t] * x[ent_row[t]]
    return x


BODIES = {"walker": lambda: resolve_design("walker").body, "quadruped": lambda: resolve_design("quadruped").body,
          "eel": lambda: resolve_design("eel").body, "cluster walker": cluster_walker,
          **{f"random {k}": (lambda k=k: random_design(11, k)[0].body) for k in (2, 4, 12, 16)}}


@pytest.mark.parametrize("name", sorted(BODIES))
def test_the_plans_updates_and_rows_factor_and_solve_the_skeletons_systems(name):
    plan = _plan(BODIES[name]())
    col_start, ent_row = plan["sk_col_start"], plan["sk_ent_row"]
    R = len(col_start) - 1
    assert R > 1
    rng = np.random.default_rng(len(name))
    A = np.zeros((R, R))
    for k in range(R):   # a matrix of the factor's pattern (the fill too), diagonally dominant
        for t in range(col_start[k] + 1, col_start[k + 1]):
            A[ent_row[t], k] = A[k, ent_row[t]] = rng.uniform(-1.0, 1.0)
    A += np.diag(np.abs(A).sum(1) + rng.uniform(0.5, 1.5, R))
    b = rng.normal(size=R)
    assert np.allclose(_factor_and_solve(plan, A, b), np.linalg.solve(A, b), rtol=1e-10, atol=1e-12)
    # each of L's entries below the diagonal is listed once by rows, under its own row and column
    by_rows = {(i, plan["sk_row_col"][u], plan["sk_row_entry"][u]) for i in range(R)
               for u in range(plan["sk_row_start"][i], plan["sk_row_start"][i + 1])}
    by_cols = {(ent_row[t], k, t) for k in range(R) for t in range(col_start[k] + 1, col_start[k + 1])}
    assert by_rows == by_cols and len(plan["sk_row_entry"]) == len(by_cols)
    # the pairs of columns make the same updates, each entry's in the same order (one block and
    # many get the same bits)
    by_pairs = {}
    for k in range(R):
        for pr in range(plan["pair_start"][k], plan["pair_start"][k + 1]):
            for o in range(plan["pair_op_start"][pr], plan["pair_op_start"][pr + 1]):
                by_pairs.setdefault(plan["op_target"][o], []).append(
                    (plan["op_source"][o], plan["pair_entry"][pr], plan["pair_j"][pr]))
    by_entry = {t: [(plan["upd_source"][o], plan["upd_entry"][o], plan["upd_j"][o])
                    for o in range(plan["upd_start"][t], plan["upd_start"][t + 1])] for t in range(len(ent_row))}
    assert by_pairs == {t: ops for t, ops in by_entry.items() if ops}

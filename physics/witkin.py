"""Witkin's constrained dynamics (``SimParams(solver="witkin")``, seed 001).

Witkin, Gleicher & Welch, "Interactive Dynamics" (1990); Witkin, "Constrained Dynamics" (Pixar
SIGGRAPH course notes, 2001). Bones are exact equality constraints ``c(q, t) = 0`` on the sphere
positions q, solved at the acceleration level for their Lagrange multipliers::

    (J W J^T) lambda = -J W Q - (dJ/dt) qdot - c_tt - (alpha / h^2) c - (beta / h) dc/dt

with ``W = M^-1`` (0 for pinned spheres), ``J = dc/dq`` (one row per constraint), ``Q`` the
applied forces (gravity, drag, springs, DEM contacts) and ``dc/dt = J qdot + c_t``. The
constraint force ``C = J^T lambda`` then accelerates the spheres, ``qddot = W (Q + C)``,
integrated by symplectic Euler (``v += h qddot; x += h v``: the same half-step velocities as
the PBD solver, so :class:`~physics.state.State` means the same thing).

Rows, in order of priority (when two rows ask for the same motion, the factorisation keeps the
first; see :func:`_build_rows`):

- **rigid bones**: ``c = |x_i - x_j| - L``; ``J`` is ``+n`` on i and ``-n`` on j (n the unit
  direction i - j), so lambda is the bone's force in newtons (positive pushes apart), and
  ``(dJ/dt) qdot = (|u|^2 - (n . u)^2) / |x_i - x_j|`` with u = v_i - v_j.
- **rigid clusters**: every pair of a cluster's spheres is such a row at its rest distance.
  A cluster must have stiffness 1 under this solver (shape matching's softer clusters have no
  exact-constraint meaning: refused with a ValueError). Pairwise distances over-determine a
  cluster of four or more spheres (and the walker's braced torso has one bone too many), so
  ``J W J^T`` is singular: the Cholesky factorisation drops a row whose pivot vanishes
  (multiplier 0; the rows are consistent, so the others carry its load).
- **hinge limits**: ``c = theta - min >= 0`` and ``c = max - theta >= 0`` (joints.py's angle and
  gradients), ``(dJ/dt) qdot = 2 (u . u')(u x u') / |u|^4 - 2 (v . v')(v x v') / |v|^4``.
- **ground contacts** (with ``contacts="pbd"``): ``c = gap >= 0`` along the ground's normal for
  a sphere touching it or about to. A penetration is not fed back (it would leave as a speed of
  depth / h); the velocity pass pushes it out by position.
- **bones switched off** (``bone_on`` False: ``Model.with_values``) have no row.

Inequalities make the solve an active-set loop (:func:`_solve_multipliers`): solve; let go of
the limit or contact that pulls hardest; or else bring in the limit or contact the solution
would carry furthest past its bound within the substep (limits and contacts within reach start
as candidates, outside the system); repeat.

Forces, added to Q:

- **muscles**: the PBD solver's spring and dashpot (physics/bones.py) toward the muscle's
  commanded length L(t), which moves at most ``speed * rest`` per second (the PBD solver's
  rate limit, linear in time within a step), ``f = (omega^2 (L - d) - 2 zeta omega d') / (w_i
  + w_j)`` clamped to ``+-strength`` (``omega`` of its spring, :func:`physics.bones.muscle_omega`);
- **soft bones** (compliance > 0): springs of stiffness 1 / compliance toward their length;
- **joint springs** (stiffness > 0): the torque ``-k (theta - rest)`` as the forces
  ``tau grad theta`` on the three spheres.

Springs make the explicit part stiff: a spring of stiffness k between masses has
``omega^2 = k (w_i + w_j)`` (an angular spring ``k sum w |grad theta|^2`` at the rest pose), and
symplectic Euler needs ``omega h < 2``. :func:`spring_substep` returns ``1 / omega_max`` (a margin
of two, for springs that share spheres), and :func:`physics.step` substeps to it.

Feedback (``witkin_alpha``, ``witkin_beta``, both per substep h): without it, integrating the
constraint accelerations lets ``c`` and ``dc/dt`` drift (the integrator's own error, of order
``h^2 |v|^2 / L`` per substep, is never taken back). With the error obeying ``c'' = -(alpha/h^2)
c - (beta/h) c'``, the discrete error dynamics under symplectic Euler have the characteristic
polynomial ``z^2 - (2 - alpha - beta) z + (1 - beta)``: stable for ``0 < beta < 2`` and
``0 < alpha < 4 - 2 beta``; ``alpha = beta = 1`` (the default) removes an error in two substeps
(deadbeat). The seed adds the feedback as forces ``alpha c dc/dq``: penalty springs, which the
multipliers then partly cancel; here it is in the right-hand side, as in Witkin's paper, so the
rows get exactly it.

Contacts. With ``contacts="pbd"``, after the solve, seed 003's velocity pass: the spheres move
by their new velocities; one that went into the ground is pushed out; one within
``contact_slop`` of it loses its velocity into it (or bounces by its restitution above
``bounce_speed``; a sphere arriving that fast gets no contact row, so that it can), and Coulomb
friction takes up to ``mu_s`` times the substep's normal velocity change (the rejected
approach plus the contact row's push ``h w lambda_n``) off its tangential velocity, stopping it,
or else ``mu_k`` times it. Self-collisions push overlapping pairs apart and remove their
approach velocity (momentum-conserving); arena collisions are the PBD engine's pass after the
step. With ``contacts="dem"`` every contact is a force in Q (physics/dem.py) and there are no
contact rows and no velocity pass.

The solve is per creature and dense (``R x R`` with R = bones + cluster pairs + limits and
contacts within reach, ~14-40), creatures in parallel (``prange``, the batch loop outermost),
so a creature's result does not depend on its batch or the threads. ``params.iterations`` is
not used: the solve is exact.
"""

from __future__ import annotations

from collections import namedtuple

import numba
import numpy as np
from numba import njit, prange

from . import dem
from .collide import ARENA_PASSES, collide_arena, separate_pair
from .bones import muscle_omega
from .hot import muscle_omegas
from .joints import wrap_angle
from .terrain import closest_on_terrain, terrain_top

__all__ = ["step", "spring_substep", "check_model", "DROP_TOL"]

#: a Cholesky pivot below this fraction of its diagonal entry marks a redundant constraint row
DROP_TOL = 1e-10
#: active-set row kinds: equality (bones, cluster pairs), push-only (lambda >= 0: hinge limits,
#: ground contacts)
EQ, PUSH = 0, 1
#: an inequality (hinge limit, ground contact) this close to its bound, counting the distance
#: its current rate covers in a substep, is a candidate row: outside the system unless the
#: solve would carry it past the bound within the substep (rad for limits, m for contacts)
LIMIT_REACH = 0.5
CONTACT_REACH = 0.05
#: a row taken out of the active set may come back this many times in one substep (so that a
#: set of rows swapping in and out cannot cycle)
MAX_RETURNS = 2

Arrays = namedtuple("Arrays", (
    "bone_a", "bone_b", "bone_muscle", "joint_a", "joint_c", "joint_b", "joint_limited",
    "cp_i", "cp_j", "pair_a", "pair_b",
    "mass", "inv_mass", "radius", "friction", "kinetic_friction", "restitution",
    "bone_rest", "bone_compliance", "bone_on", "muscle_strength", "cp_rest",
    "joint_rest", "joint_min", "joint_max", "joint_stiffness",
    "muscle_rest", "muscle_range", "muscle_speed", "muscle_stretch", "muscle_damping"))

Work = namedtuple("Work", ("Q", "sph", "grad", "ns", "cval", "cdot", "jdot", "kind",
                           "A", "L", "rhs", "lam", "free", "fixv", "idx", "y", "drop", "cand", "out",
                           "fn", "pidx", "pnf"))


def check_model(model) -> None:
    """Raise ValueError if ``model`` uses something this solver cannot hold exactly."""
    for k in range(model.n_clusters):
        stiff = model.cluster_stiffness[:, k]
        if np.any(stiff < 1.0):
            raise ValueError(
                f"solver 'witkin' holds rigid clusters only (every pair of spheres at its rest distance); "
                f"cluster {k} has stiffness {float(stiff.min()):g} < 1: use solver 'pbd' or stiffness 1")


def arrays_of(model) -> Arrays:
    """The model's arrays as this solver reads them (creature-major, writeable, contiguous),
    plus every cluster's sphere pairs and their rest distances; built and checked once per model."""
    arrays = model.prepared.witkin
    if arrays is not None:
        return arrays
    check_model(model)
    E = model.n_bones
    bone_muscle = np.full(E, -1, np.int64)
    bone_muscle[model.muscle_bone] = np.arange(model.n_muscles)
    cp_i, cp_j, cp_q = [], [], []
    for k in range(model.n_clusters):
        members = range(model.cluster_start[k], model.cluster_start[k + 1])
        for q1 in members:
            for q2 in members:
                if q2 > q1:
                    cp_i.append(model.cluster_sphere[q1])
                    cp_j.append(model.cluster_sphere[q2])
                    cp_q.append((q1, q2))
    B = model.batch
    cp_rest = np.zeros((B, len(cp_q)))
    for c, (q1, q2) in enumerate(cp_q):
        cp_rest[:, c] = np.linalg.norm(model.cluster_rest[:, q1] - model.cluster_rest[:, q2], axis=-1)
    stiff = np.where(model.joint_spring, 1.0 / np.where(model.joint_compliance > 0, model.joint_compliance, 1.0), 0.0)
    ints = lambda v: np.array(v, dtype=np.int64).reshape(-1)  # noqa: E731
    c = lambda a: np.array(a, order="C", copy=True)  # noqa: E731
    arrays = Arrays(
        c(model.bone_a), c(model.bone_b), bone_muscle, c(model.joint_a), c(model.joint_c),
        c(model.joint_b), c(model.joint_limited), ints(cp_i), ints(cp_j), c(model.pair_a), c(model.pair_b),
        c(model.mass), c(model.inv_mass), c(model.radius), c(model.friction), c(model.kinetic_friction),
        c(model.restitution), c(model.bone_rest), c(model.bone_compliance), c(model.bone_on),
        c(model.muscle_strength),
        cp_rest, c(model.joint_rest), c(model.joint_min), c(model.joint_max), stiff,
        c(model.muscle_rest), c(model.muscle_range), c(model.muscle_speed), c(model.muscle_stretch),
        c(model.muscle_damping))
    model.prepared.witkin = arrays
    return arrays


def work_of(model, arrays: Arrays) -> Work:
    """Scratch arrays for the per-creature solves (a :class:`Plan` keeps them)."""
    B, P = model.batch, model.n_spheres
    # bones, cluster pairs, both limits of every joint, a contact per sphere
    R = max(1, model.n_bones + arrays.cp_i.shape[0] + 2 * model.n_joints + P)
    f = lambda *s: np.zeros((B,) + s)  # noqa: E731
    return Work(f(P, 2), np.zeros((B, R, 3), np.int64), f(R, 3, 2), np.zeros((B, R), np.int64),
                f(R), f(R), f(R), np.zeros((B, R), np.int64), f(R, R), f(R, R), f(R), f(R),
                np.zeros((B, R), np.bool_), f(R), np.zeros((B, R), np.int64), f(R),
                np.zeros((B, R), np.bool_), np.zeros((B, R), np.bool_), np.zeros((B, R), np.int64),
                f(P), np.zeros((B, R), np.int64), np.zeros(B, np.int64))


def spring_substep(model, arrays: Arrays | None = None) -> float:
    """The longest substep (s) the model's springs (soft bones, muscles, joint springs) allow
    under symplectic Euler: ``1 / omega_max`` (module docstring); inf without springs. A
    muscle's dashpot shortens it: a spring of ``omega`` damped at a ratio zeta is stable for
    ``omega h < 2 (sqrt(1 + zeta^2) - zeta)`` (physics/dem.py derives it), so a muscle counts
    as a spring of ``omega / (sqrt(1 + zeta^2) - zeta)``."""
    arrays = arrays or arrays_of(model)
    w = model.inv_mass
    omega2 = 0.0
    if model.n_muscles:
        zeta = model.muscle_damping
        omega = muscle_omegas(model) / (np.sqrt(1.0 + zeta * zeta) - zeta)
        omega2 = float(np.max(omega)) ** 2
    comp = model.bone_compliance
    if np.any(comp > 0):
        wsum = w[:, model.bone_a] + w[:, model.bone_b]
        omega2 = max(omega2, float(np.max(np.where(comp > 0, wsum / np.where(comp > 0, comp, 1.0), 0.0))))
    if np.any(arrays.joint_stiffness > 0):
        pos = model.rest_pos
        u = pos[:, model.joint_a] - pos[:, model.joint_c]
        v = pos[:, model.joint_b] - pos[:, model.joint_c]
        ga = np.stack([u[..., 1], -u[..., 0]], -1) / (u * u).sum(-1, keepdims=True)
        gb = np.stack([-v[..., 1], v[..., 0]], -1) / (v * v).sum(-1, keepdims=True)
        gc = -(ga + gb)
        sens = (w[:, model.joint_a] * (ga * ga).sum(-1) + w[:, model.joint_b] * (gb * gb).sum(-1)
                + w[:, model.joint_c] * (gc * gc).sum(-1))
        omega2 = max(omega2, float(np.max(arrays.joint_stiffness * sens)))
    return 1.0 / np.sqrt(omega2) if omega2 > 0 else np.inf


# ---------------------------------------------------------------------------------------------
# muscles


@njit(cache=True, error_model="numpy")
def _drive_muscles(muscle_len, cmd, out_len, ldot, a, dt):
    """The muscles' rest lengths at the step's end (the PBD solver's rule: toward
    ``rest * (1 + c * range)``, at most ``speed * rest * dt``), and their rates ``ldot : (B, M)``."""
    for b in range(muscle_len.shape[0]):
        for m in range(muscle_len.shape[1]):
            c = cmd[b, m]
            if not (c == c):
                c = 0.0
            c = min(1.0, max(-1.0, c))
            r0 = a.muscle_rest[b, m]
            target = r0 * (1.0 + c * a.muscle_range[b, m])
            cur = muscle_len[b, m]
            dmax = a.muscle_speed[b, m] * r0 * dt
            nxt = cur + min(dmax, max(-dmax, target - cur))
            out_len[b, m] = nxt
            ldot[b, m] = (nxt - cur) / dt


# ---------------------------------------------------------------------------------------------
# one creature's constraint rows, solve and integration


# The small helpers called per row or per active-set round are inlined: a call passes the two
# namedtuples of ~30 arrays each, and numba counts a reference up and down for every array of
# them (measured: filling the walker's rows took 9.2 us per creature, inlined 1.1 us).
@njit(cache=True, error_model="numpy", inline="always")
def _distance_row(b, r, i, j, L, Ld, x, v, wk):
    """Row r: ``|x_i - x_j| - L`` with ``dL/dt = Ld``. False for a zero-length bone."""
    dx = x[b, i, 0] - x[b, j, 0]
    dy = x[b, i, 1] - x[b, j, 1]
    d = np.sqrt(dx * dx + dy * dy)
    if d < 1e-12:
        return False
    nx = dx / d
    ny = dy / d
    ux = v[b, i, 0] - v[b, j, 0]
    uy = v[b, i, 1] - v[b, j, 1]
    un = ux * nx + uy * ny
    wk.ns[b, r] = 2
    wk.sph[b, r, 0] = i
    wk.sph[b, r, 1] = j
    wk.grad[b, r, 0, 0] = nx
    wk.grad[b, r, 0, 1] = ny
    wk.grad[b, r, 1, 0] = -nx
    wk.grad[b, r, 1, 1] = -ny
    wk.cval[b, r] = d - L
    wk.cdot[b, r] = un - Ld
    wk.jdot[b, r] = (ux * ux + uy * uy - un * un) / d
    wk.cand[b, r] = False
    return True


@njit(cache=True, error_model="numpy")
def _build_rows(b, x, v, L0, Ldot, t, h, a, wk, ground, table, blocks, bounce_speed, slop):
    """Add creature b's springs to its applied forces ``wk.Q`` and fill its constraint rows, in
    order of priority (rigid bones, cluster pairs, active hinge limits, ground contacts; the
    muscles are forces); returns the row count."""
    Q = wk.Q
    # (the count and the flag as runtime values: a literal 0 or False is a numba type of its own, and
    # _bone_rows compiled once for each call)
    nr = _bone_rows(b, b - b, b < 0, x, v, L0, Ldot, t, a, wk)
    for c in range(a.cp_i.shape[0]):
        i = a.cp_i[c]
        j = a.cp_j[c]
        if a.inv_mass[b, i] + a.inv_mass[b, j] == 0.0:
            continue
        if _distance_row(b, nr, i, j, a.cp_rest[b, c], 0.0, x, v, wk):
            wk.kind[b, nr] = EQ
            nr += 1
    for k in range(a.joint_c.shape[0]):
        ia = a.joint_a[k]
        ic = a.joint_c[k]
        ib = a.joint_b[k]
        ux = x[b, ia, 0] - x[b, ic, 0]
        uy = x[b, ia, 1] - x[b, ic, 1]
        vx = x[b, ib, 0] - x[b, ic, 0]
        vy = x[b, ib, 1] - x[b, ic, 1]
        uu = ux * ux + uy * uy
        vv = vx * vx + vy * vy
        if uu < 1e-18 or vv < 1e-18:
            continue
        theta = np.arctan2(ux * vy - uy * vx, ux * vx + uy * vy)
        gax = uy / uu
        gay = -ux / uu
        gbx = -vy / vv
        gby = vx / vv
        gcx = -(gax + gbx)
        gcy = -(gay + gby)
        stiff = a.joint_stiffness[b, k]
        if stiff > 0.0:
            tau = -stiff * wrap_angle(theta - a.joint_rest[b, k])
            Q[b, ia, 0] += tau * gax
            Q[b, ia, 1] += tau * gay
            Q[b, ib, 0] += tau * gbx
            Q[b, ib, 1] += tau * gby
            Q[b, ic, 0] += tau * gcx
            Q[b, ic, 1] += tau * gcy
        if not a.joint_limited[k]:
            continue
        dux = v[b, ia, 0] - v[b, ic, 0]
        duy = v[b, ia, 1] - v[b, ic, 1]
        dvx = v[b, ib, 0] - v[b, ic, 0]
        dvy = v[b, ib, 1] - v[b, ic, 1]
        rate = gax * dux + gay * duy + gbx * dvx + gby * dvy
        curv = (2.0 * (ux * dux + uy * duy) * (ux * duy - uy * dux) / (uu * uu)
                - 2.0 * (vx * dvx + vy * dvy) * (vx * dvy - vy * dvx) / (vv * vv))
        jmin = a.joint_min[b, k]
        jmax = a.joint_max[b, k]
        if jmin <= -np.pi and jmax >= np.pi:
            continue   # limits all the way round are none (Model.with_values switches a joint off so)
        # within the limits, the distances to them as they are; past them, the short way round
        # (a limit near +-180 degrees). Wrapped within too, a hinge whose limits span more than
        # half a turn read as past the far one (a triangle's apex at 77 degrees with limits of
        # +-180 read 103 degrees below its lower one, and the solve threw it at 117 m/s)
        within = (jmin <= theta) and (theta <= jmax)
        c_lo = theta - jmin if within else wrap_angle(theta - jmin)
        c_hi = jmax - theta if within else wrap_angle(jmax - theta)
        # the sides within reach; when the joint is outside both, only the nearer limit
        # (joints.py's rule), the violated one on a tie
        lo = c_lo + min(0.0, h * rate) < LIMIT_REACH
        hi = c_hi - max(0.0, h * rate) < LIMIT_REACH
        if c_lo < 0.0 and c_hi < 0.0:
            lo = abs(c_lo) < abs(c_hi) or (abs(c_lo) == abs(c_hi))
            hi = not lo
        for side in range(2):
            if not (lo if side == 0 else hi):
                continue
            s = 1.0 if side == 0 else -1.0
            c = c_lo if side == 0 else c_hi
            wk.ns[b, nr] = 3
            wk.sph[b, nr, 0] = ia
            wk.sph[b, nr, 1] = ib
            wk.sph[b, nr, 2] = ic
            wk.grad[b, nr, 0, 0] = s * gax
            wk.grad[b, nr, 0, 1] = s * gay
            wk.grad[b, nr, 1, 0] = s * gbx
            wk.grad[b, nr, 1, 1] = s * gby
            wk.grad[b, nr, 2, 0] = s * gcx
            wk.grad[b, nr, 2, 1] = s * gcy
            wk.cval[b, nr] = c
            wk.cdot[b, nr] = s * rate
            wk.jdot[b, nr] = s * curv
            wk.kind[b, nr] = PUSH
            # in the system from the start if violated or crossed at the current rate
            wk.cand[b, nr] = not (c < 0.0 or c + h * s * rate < 0.0)
            nr += 1
    if ground:
        nr = _contact_rows(b, nr, x, v, h, a, wk, table, blocks, bounce_speed, slop)
    # the muscles: springs and dashpots, forces in Q (no rows)
    return _bone_rows(b, nr, b >= 0, x, v, L0, Ldot, t, a, wk)


@njit(cache=True, error_model="numpy")
def _bone_rows(b, nr, muscles, x, v, L0, Ldot, t, a, wk):
    """Rows for the rigid bones (``muscles`` False) or the muscles (True) of creature b from row
    ``nr`` on; compliant ones become springs in ``wk.Q``. Returns the new row count."""
    Q = wk.Q
    for e in range(a.bone_a.shape[0]):
        m = a.bone_muscle[e]
        if (m >= 0) != muscles:
            continue
        i = a.bone_a[e]
        j = a.bone_b[e]
        L = a.bone_rest[b, e]
        Ld = 0.0
        if m >= 0:
            L = L0[b, m] + Ldot[b, m] * t
            Ld = Ldot[b, m]
        comp = a.bone_compliance[b, e]
        if m >= 0:
            # a muscle: its spring and dashpot toward L (physics/bones.py), as strong as it is
            dx = x[b, i, 0] - x[b, j, 0]
            dy = x[b, i, 1] - x[b, j, 1]
            d = np.sqrt(dx * dx + dy * dy)
            wsum = a.inv_mass[b, i] + a.inv_mass[b, j]
            if d < 1e-12 or wsum == 0.0:
                continue
            fmax = a.muscle_strength[b, m] if a.bone_on[b, e] else 0.0
            omega = muscle_omega(fmax, a.muscle_stretch[b, m], a.muscle_rest[b, m], wsum)
            rate = ((v[b, i, 0] - v[b, j, 0]) * dx + (v[b, i, 1] - v[b, j, 1]) * dy) / d
            f = (omega * omega * (L - d) - 2.0 * a.muscle_damping[b, m] * omega * rate) / wsum
            f = min(fmax, max(-fmax, f))
            Q[b, i, 0] += f * dx / d
            Q[b, i, 1] += f * dy / d
            Q[b, j, 0] -= f * dx / d
            Q[b, j, 1] -= f * dy / d
            continue
        if comp > 0.0:
            # a spring toward L, as strong as the bone may be
            dx = x[b, i, 0] - x[b, j, 0]
            dy = x[b, i, 1] - x[b, j, 1]
            d = np.sqrt(dx * dx + dy * dy)
            if d < 1e-12:
                continue
            fmax = np.inf if a.bone_on[b, e] else 0.0
            f = min(fmax, max(-fmax, -(d - L) / comp))
            Q[b, i, 0] += f * dx / d
            Q[b, i, 1] += f * dy / d
            Q[b, j, 0] -= f * dx / d
            Q[b, j, 1] -= f * dy / d
            continue
        # (a bone switched off, no force: Model.with_values, has no row)
        if a.inv_mass[b, i] + a.inv_mass[b, j] == 0.0 or not a.bone_on[b, e]:
            continue
        if _distance_row(b, nr, i, j, L, Ld, x, v, wk):
            wk.kind[b, nr] = EQ
            nr += 1
    return nr


@njit(cache=True, error_model="numpy")
def _contact_rows(b, nr, x, v, h, a, wk, table, blocks, bounce_speed, slop):
    """Ground contacts as rows: for a sphere within ``slop`` of the ground, or that would reach
    it within the substep, ``c = gap >= 0`` along the normal (push only) and a friction row
    along the tangent (its rate to 0, at most ``mu_s`` times the contact's force, else
    ``mu_k`` times it). A sphere arriving faster than ``bounce_speed`` with restitution gets no
    row: the velocity pass bounces it (its approach speed is not a constraint error to damp)."""
    top = blocks[2]
    for i in range(x.shape[1]):
        w = a.inv_mass[b, i]
        r = a.radius[b, i]
        px = x[b, i, 0]
        py = x[b, i, 1]
        reach = r + slop + CONTACT_REACH + h * np.sqrt(v[b, i, 0] ** 2 + v[b, i, 1] ** 2)
        if w == 0.0 or py - reach > top or py - reach > terrain_top(blocks, px - reach, px + reach):
            continue
        d, nx, ny = closest_on_terrain(table, px, py, reach)
        gap = d - r
        vn = v[b, i, 0] * nx + v[b, i, 1] * ny
        if gap + min(0.0, h * vn) >= slop + CONTACT_REACH:
            continue
        # touching, or reached at the current rate: in the system; else only if the solve
        # would bring it there
        cand = gap > slop and gap + h * vn >= 0.0
        if a.restitution[b, i] > 0.0 and -vn > bounce_speed:
            continue
        wk.ns[b, nr] = 1
        wk.sph[b, nr, 0] = i
        wk.grad[b, nr, 0, 0] = nx
        wk.grad[b, nr, 0, 1] = ny
        # a penetration is pushed out by position (the velocity pass), not fed back: feedback
        # would leave with the penetration's depth per substep as speed (a hinged arm started
        # 27 cm into the ground left it with 300 J); a gap is, so that the sphere arrives exactly
        wk.cval[b, nr] = max(gap, 0.0)
        wk.cdot[b, nr] = vn
        wk.jdot[b, nr] = 0.0
        wk.kind[b, nr] = PUSH
        wk.cand[b, nr] = cand
        nr += 1
    return nr


@njit(cache=True, error_model="numpy")
def _assemble(b, nr, a, wk, ka, kb):
    """``A = J W J^T`` and ``rhs = -J W Q - (dJ/dt) qdot - ka c - kb dc/dt`` for creature b."""
    A = wk.A[b]
    w = a.inv_mass
    for r in range(nr):
        acc = 0.0
        for p in range(wk.ns[b, r]):
            i = wk.sph[b, r, p]
            acc += w[b, i] * (wk.grad[b, r, p, 0] * wk.Q[b, i, 0] + wk.grad[b, r, p, 1] * wk.Q[b, i, 1])
        c = wk.cval[b, r]
        cd = wk.cdot[b, r]
        fb = -ka * c - kb * cd
        wk.rhs[b, r] = -acc - wk.jdot[b, r] + fb
        for s in range(r + 1):
            acc = 0.0
            for p in range(wk.ns[b, r]):
                i = wk.sph[b, r, p]
                for q in range(wk.ns[b, s]):
                    if wk.sph[b, s, q] == i:
                        acc += w[b, i] * (wk.grad[b, r, p, 0] * wk.grad[b, s, q, 0]
                                          + wk.grad[b, r, p, 1] * wk.grad[b, s, q, 1])
            A[r, s] = acc
            A[s, r] = acc


@njit(cache=True, error_model="numpy", inline="always")
def _cholesky_solve(b, nf, wk):
    """Solve the free rows ``wk.idx[b, :nf]`` of ``A lambda = y`` (``wk.y``) by Cholesky,
    dropping rows whose pivot vanishes (redundant constraints get lambda = 0). The solution
    overwrites ``wk.y[b, :nf]``.

    Row by row, so that the rows the last factorisation shared with this one at its start
    (``wk.pidx``) are kept: the active set mostly clamps muscles, which come last, and then
    only the factor's last rows change."""
    A = wk.A[b]
    L = wk.L[b]
    idx = wk.idx[b]
    y = wk.y[b]
    drop = wk.drop[b]
    pidx = wk.pidx[b]
    start = 0
    while start < min(nf, wk.pnf[b]) and pidx[start] == idx[start]:
        start += 1
    for i in range(start, nf):
        ri = idx[i]
        for k in range(i):
            if drop[k]:
                L[i, k] = 0.0
                continue
            s = A[ri, idx[k]]
            for m in range(k):
                s -= L[i, m] * L[k, m]
            L[i, k] = s / L[k, k]
        d = A[ri, ri]
        for k in range(i):
            d -= L[i, k] * L[i, k]
        drop[i] = d <= DROP_TOL * A[ri, ri] or A[ri, ri] <= 0.0
        L[i, i] = np.sqrt(d) if not drop[i] else 0.0
        pidx[i] = ri
    wk.pnf[b] = nf
    for j in range(nf):  # forward: L z = y
        if drop[j]:
            y[j] = 0.0
            continue
        s = y[j]
        for k in range(j):
            s -= L[j, k] * y[k]
        y[j] = s / L[j, j]
    for j in range(nf - 1, -1, -1):  # back: L^T lambda = z
        if drop[j]:
            y[j] = 0.0
            continue
        s = y[j]
        for k in range(j + 1, nf):
            s -= L[k, j] * y[k]
        y[j] = s / L[j, j]


@njit(cache=True, error_model="numpy")
def _solve_multipliers(b, nr, wk):
    """The active-set loop: solve for the rows in the system; take out the worst violation (a
    muscle beyond its strength is clamped there, a limit or contact that would pull lets go),
    or else bring back the row that is out but
    should not be: the limit or contact (a candidate, or one let go before other rows changed)
    that the solution would carry furthest past its bound, or a clamped muscle that now
    overshoots its target; each row at most MAX_RETURNS times. Repeat until neither happens
    (at most ``3 nr + 3`` rounds, then the last set is solved as it is). Fills
    ``wk.lam[b, :nr]``."""
    A = wk.A[b]
    free = wk.free[b]
    fixv = wk.fixv[b]
    idx = wk.idx[b]
    lam = wk.lam[b]
    out = wk.out[b]
    cand = wk.cand[b]
    for r in range(nr):
        free[r] = not cand[r]
        out[r] = 0
        fixv[r] = 0.0
    settled = False
    wk.pnf[b] = 0  # a new matrix: nothing of the last factorisation carries over
    for _ in range(3 * nr + 3):
        nf = _solve_set(b, nr, wk)
        # the worst violation only: letting go of one row changes what the others need
        worst = -1
        excess = 0.0
        for f in range(nf):
            r = idx[f]
            if wk.kind[b, r] != PUSH:
                continue
            e = -lam[r]
            if e > excess:
                worst = r
                excess = e
        if worst < 0:
            # a row out of the system that should be in: with its acceleration short of the
            # one its feedback asks for by ``miss = c'' - fb = (A lambda)_r - rhs_r``, a limit
            # or contact that would end the substep past its bound (miss < 0)
            enter = -1
            short = 0.0
            for r in range(nr):
                if free[r] or out[r] >= MAX_RETURNS or wk.kind[b, r] != PUSH:
                    continue
                miss = -wk.rhs[b, r]
                for q in range(nr):
                    miss += A[r, q] * lam[q]
                if miss < -1e-9 * (1.0 + abs(wk.rhs[b, r])) and miss < short:
                    enter = r
                    short = miss
            if enter < 0:
                settled = True
                break
            free[enter] = True
            out[enter] += 1
            fixv[enter] = 0.0
            continue
        r = worst
        free[r] = False
        fixv[r] = 0.0
    if not settled:  # out of rounds (rows coming and going): the multipliers of the last set
        _solve_set(b, nr, wk)


@njit(cache=True, error_model="numpy", inline="always")
def _solve_set(b, nr, wk):
    """Solve for the rows in the system (``wk.free``), the others held at ``wk.fixv``; all
    multipliers into ``wk.lam``. Returns how many rows were solved for."""
    A = wk.A[b]
    free = wk.free[b]
    fixv = wk.fixv[b]
    idx = wk.idx[b]
    y = wk.y[b]
    lam = wk.lam[b]
    nf = 0
    for r in range(nr):
        if free[r]:
            idx[nf] = r
            nf += 1
    for f in range(nf):
        r = idx[f]
        s = wk.rhs[b, r]
        for q in range(nr):
            if not free[q]:
                s -= A[r, q] * fixv[q]
        y[f] = s
    _cholesky_solve(b, nf, wk)
    for r in range(nr):
        lam[r] = fixv[r]
    for f in range(nf):
        lam[idx[f]] = y[f]
    return nf


@njit(cache=True, error_model="numpy")
def _substep(b, x, v, F, use_forces, muscles, t, s, a, wk, ground, terrain):
    """Creature b's constraint solve and velocity update over one substep (positions are moved
    by the contact stage that follows): ``v += h W (Q + J^T lambda)``. ``muscles`` is the
    muscles' (length at the step's start, rate), ``s`` the :class:`Settings`."""
    L0, Ldot = muscles
    table, blocks = terrain
    h, gravity, drag, ka, kb, bounce_speed, slop = s.h, s.gravity, s.drag, s.ka, s.kb, s.bounce_speed, s.slop
    P = x.shape[1]
    Q = wk.Q
    for i in range(P):
        if a.inv_mass[b, i] == 0.0:  # pinned: still, before any rate is measured against it
            v[b, i, 0] = 0.0
            v[b, i, 1] = 0.0
        m = a.mass[b, i]
        Q[b, i, 0] = -drag * m * v[b, i, 0]
        Q[b, i, 1] = -m * gravity - drag * m * v[b, i, 1]
        if use_forces:
            Q[b, i, 0] += F[b, i, 0]
            Q[b, i, 1] += F[b, i, 1]
    nr = _build_rows(b, x, v, L0, Ldot, t, h, a, wk, ground, table, blocks, bounce_speed, slop)
    if nr > 0:
        _assemble(b, nr, a, wk, ka, kb)
        _solve_multipliers(b, nr, wk)
        for i in range(P):
            wk.fn[b, i] = 0.0
        for r in range(nr):
            if wk.kind[b, r] == PUSH and wk.ns[b, r] == 1:  # the ground's push, for friction
                wk.fn[b, wk.sph[b, r, 0]] = wk.lam[b, r]
        for r in range(nr):
            lam = wk.lam[b, r]
            for p in range(wk.ns[b, r]):
                i = wk.sph[b, r, p]
                Q[b, i, 0] += lam * wk.grad[b, r, p, 0]
                Q[b, i, 1] += lam * wk.grad[b, r, p, 1]
    for i in range(P):
        w = a.inv_mass[b, i]
        if w == 0.0:
            v[b, i, 0] = 0.0
            v[b, i, 1] = 0.0
            continue
        v[b, i, 0] += h * w * Q[b, i, 0]
        v[b, i, 1] += h * w * Q[b, i, 1]


@njit(cache=True, error_model="numpy")
def _move(b, x, v, h):
    for i in range(x.shape[1]):
        x[b, i, 0] += h * v[b, i, 0]
        x[b, i, 1] += h * v[b, i, 1]


@njit(cache=True, error_model="numpy")
def _contacts_pbd(b, x, v, touching, h, a, wk, table, blocks, ground, self_collision, bounce_speed, slop):
    """Move creature b by its new velocities, then seed 003's contacts: the ground's velocity
    rejection with restitution, its push-out, Coulomb friction, and self-collisions (pairs
    pushed apart, their approach velocity removed).

    Friction acts on the tangential velocity here, after the solve (the ground's push is in the
    solve as contact rows): it may take up to ``mu_s`` times the normal velocity change of the
    substep (the rejected approach, plus the contact row's push ``h w lambda_n``) and stop the
    slide, else ``mu_k`` times it. As rows in the solve instead, static friction closed the
    loop of a creature standing on two feet, one row more than its degrees of freedom, and its
    muscles then asked the impossible (a strong walker blew up)."""
    P = x.shape[1]
    _move(b, x, v, h)
    for i in range(P):
        touching[b, i] = False
    if ground:
        for i in range(P):
            w = a.inv_mass[b, i]
            r = a.radius[b, i]
            px = x[b, i, 0]
            py = x[b, i, 1]
            push = h * w * max(wk.fn[b, i], 0.0)
            reach = r + slop + (CONTACT_REACH if push > 0.0 else 0.0)
            if py - reach > blocks[2] or py - reach > terrain_top(blocks, px - reach, px + reach):
                continue
            d, nx, ny = closest_on_terrain(table, px, py, reach)
            if d > reach:
                continue
            touching[b, i] = d <= r + slop
            if w == 0.0:
                continue
            if d < r:
                x[b, i, 0] += nx * (r - d)
                x[b, i, 1] += ny * (r - d)
            vx = v[b, i, 0]
            vy = v[b, i, 1]
            vn = vx * nx + vy * ny
            target = vn
            if vn < 0.0 and d <= r + slop:
                target = a.restitution[b, i] * -vn if -vn > bounce_speed else 0.0
            budget = target - vn + push
            if budget <= 0.0:
                continue
            tx = vx - vn * nx
            ty = vy - vn * ny
            vt = np.sqrt(tx * tx + ty * ty)
            if vt <= a.friction[b, i] * budget:
                cut = 1.0
            else:
                cut = a.kinetic_friction[b, i] * budget / vt
            v[b, i, 0] = target * nx + tx * (1.0 - cut)
            v[b, i, 1] = target * ny + ty * (1.0 - cut)
    if self_collision:   # pairs pushed apart, their approach stopped (as between creatures)
        for c in range(a.pair_a.shape[0]):
            separate_pair(x, v, b, a.pair_a[c], b, a.pair_b[c], a.inv_mass, a.radius)


#: a step's settings as the Witkin kernels read them: the substep and how many, gravity, drag,
#: the feedback gains (``alpha / h^2``, ``beta / h``), the bounce speed, the contact slop, the
#: stages (ground, self-collision, DEM contacts, between creatures) and DEM's contact law
Settings = namedtuple("Settings", "h substeps gravity drag ka kb bounce_speed slop ground self_collision use_dem "
                                  "arena k zeta shear")


@njit(cache=True, error_model="numpy")
def _creature_steps(b, x, v, muscles, touching, a, wk, terrain, s):
    """Every substep of creature b with the PBD contacts (nothing couples creatures)."""
    table, blocks = terrain
    for sub in range(s.substeps):
        # (no forces: a runtime False, as the DEM contacts' substep passes its flags; a literal is a
        # numba type of its own, and the substep compiled once for each)
        _substep(b, x, v, x, b < 0, muscles, sub * s.h, s, a, wk, s.ground, terrain)
        _contacts_pbd(b, x, v, touching, s.h, a, wk, table, blocks, s.ground, s.self_collision, s.bounce_speed,
                      s.slop)


@njit(parallel=True, cache=True, error_model="numpy")
def _witkin_parallel(x, v, muscles, F, touching, a, wk, terrain, settings):
    """A step of the batch ``x, v : (B, P, 2)`` (updated), creatures in parallel; ``settings``
    the :class:`Settings`' values (a plain tuple: cheaper for numba's dispatcher)."""
    s = Settings(*settings)
    B = x.shape[0]
    if not s.use_dem:
        for b in prange(B):
            _creature_steps(np.int64(b), x, v, muscles, touching, a, wk, terrain, s)
        return
    spheres = dem.Spheres(a.inv_mass, a.radius, a.kinetic_friction, a.pair_a, a.pair_b)
    law = dem.Law(s.k, s.zeta, s.shear, s.slop, s.h)
    for sub in range(s.substeps):
        dem._dem_forces_parallel(x, v, F, touching, spheres, terrain, law, s.ground, s.self_collision, s.arena)
        for b in prange(B):
            _substep(np.int64(b), x, v, F, b >= 0, muscles, sub * s.h, s, a, wk, b < 0, terrain)
            _move(np.int64(b), x, v, s.h)


@njit(cache=True, error_model="numpy")
def _witkin_serial(x, v, muscles, F, touching, a, wk, terrain, settings):
    """:func:`_witkin_parallel` on one thread."""
    s = Settings(*settings)
    B = x.shape[0]
    if not s.use_dem:
        for b in range(B):
            _creature_steps(b, x, v, muscles, touching, a, wk, terrain, s)
        return
    spheres = dem.Spheres(a.inv_mass, a.radius, a.kinetic_friction, a.pair_a, a.pair_b)
    law = dem.Law(s.k, s.zeta, s.shear, s.slop, s.h)
    for sub in range(s.substeps):
        dem.dem_forces(x, v, F, touching, spheres, terrain, law, s.ground, s.self_collision, s.arena)
        for b in range(B):
            _substep(b, x, v, F, b >= 0, muscles, sub * s.h, s, a, wk, b < 0, terrain)
            _move(b, x, v, s.h)


#: what :func:`advance` needs, made once per (model, settings, threads) (:func:`prepare`): the
#: model's arrays and scratch, the substeps, the kernel and the settings it takes, the stages
#: (``use_dem``, ``ground``, ``arena``), the contact slop, and DEM's force scratch
Plan = namedtuple("Plan", "arrays work substeps kernel settings use_dem ground arena slop force")


def prepare(model, params, parallel, substeps=None) -> Plan:
    """The :class:`Plan` for stepping ``model`` with ``params`` (one thread unless ``parallel``,
    as DEM: physics/dem.py). ``substeps`` forces a count, unchecked (for experiments on the
    stability limit)."""
    a = arrays_of(model)
    wk = work_of(model, a)
    B, P = model.batch, model.n_spheres
    substeps = substeps or dem.required_substeps(model, params, spring_substep(model, a))
    h = params.dt / substeps
    use_dem = params.contacts == "dem"
    parallel = bool(parallel) and numba.get_num_threads() > 1
    ground = bool(params.ground)
    self_collision = bool(params.self_collision and model.pair_a.shape[0] > 0)
    arena = bool(params.arena_collision and B > 1)
    settings = (float(h), int(substeps), float(params.gravity), float(params.damping),
                float(params.witkin_alpha / (h * h)), float(params.witkin_beta / h),
                float(params.bounce_speed), float(params.contact_slop), ground, self_collision, use_dem,
                arena and use_dem, float(params.dem_stiffness), float(params.dem_damping),
                float(params.dem_shear))
    force = np.zeros((B, P, 2)) if use_dem else None
    return Plan(a, wk, substeps, _witkin_parallel if parallel else _witkin_serial, settings, use_dem, ground,
                arena, float(params.contact_slop), force)


def advance(plan: Plan, model, state, cmd, terrain, dt: float):
    """``state`` one step of ``dt`` on by ``plan`` (:func:`physics.step` for ``solver="witkin"``,
    with either contact model)."""
    from .state import State
    a = plan.arrays
    B, P = state.pos.shape[0], state.pos.shape[1]
    out_len = np.empty_like(state.muscle_len)
    ldot = np.empty_like(state.muscle_len)
    _drive_muscles(state.muscle_len, cmd, out_len, ldot, a, float(dt))
    x = np.array(state.pos, order="C", copy=True)
    v = np.array(state.vel, order="C", copy=True)
    touching = np.zeros((B, P), np.bool_)
    F = plan.force if plan.use_dem else x
    plan.kernel(x, v, (state.muscle_len, ldot), F, touching, a, plan.work, (terrain.table, terrain.blocks),
                plan.settings)
    if plan.arena and not plan.use_dem:
        collide_arena(x, v, model.mass, model.inv_mass, model.radius, ARENA_PASSES)
    if plan.use_dem:
        if plan.ground:
            dem.ground_touching(x, touching, a.inv_mass, a.radius, terrain.table, terrain.blocks, plan.slop)
        else:
            touching[:] = False
    return State(x, v, out_len, touching, state.time + dt)


def step(model, state, cmd, params, terrain, parallel, substeps=None):
    """:func:`physics.step` for ``solver="witkin"`` with a forced count of ``substeps``, unchecked
    (for experiments on the stability limit): :func:`advance` by a :func:`prepare` of its own,
    kept with the model's plans."""
    key = ("witkin", params, bool(parallel), substeps)
    plan = model.prepared.plans.get(key)
    if plan is None:
        plan = model.prepared.plans[key] = prepare(model, params, parallel, substeps)
    return advance(plan, model, state, cmd, terrain, params.dt)

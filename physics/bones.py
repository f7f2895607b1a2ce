"""Bones and muscles: XPBD distance constraints, solved by Jacobi sweeps with mass splitting.

For a bone between spheres i and j with rest length r, the error is ``C = |p_i - p_j| - r`` at the
predicted positions p. The correction moves ``p_i += w_i dlam u``, ``p_j -= w_j dlam u``, equal and
opposite in momentum (m_i w_i = m_j w_j = 1), so bones and muscles never move the centre of mass:
the "fly by flexing" exploit of seed 003 cannot happen.

**No order bias: Jacobi, not Gauss-Seidel.** A Gauss-Seidel sweep corrects each bone from the
positions the bones before it left, so the result depends on the order a design lists its bones:
a mirror-symmetric A-frame with one muscle along its base (which honest physics leaves where it
stands) glided 20 m in 20 s one way, and with its spheres listed the other way round 20 m the
other way, and evolution found that. Here every bone of a sweep is corrected from the same
positions (a snapshot ``q`` of ``p``), and the corrections add up: a permutation of the bones
permutes the corrections and nothing else, so a mirror image moves as the mirror image.
Corrections that meet at a sphere would overshoot together, so each sphere's mass is split among
the bones it belongs to (Tonge et al. 2012, *Mass splitting for jitter-free parallel rigid body
simulation*): a bone's denominator is ``n_i w_i + n_j w_j`` with ``n`` the number of bones at each
end, instead of ``w_i + w_j``. That is a Jacobi iteration that cannot diverge, and every bone's
pair of corrections stays equal and opposite, so momentum is kept exactly. Muscles and soft bones
are one sweep, rigid bones the next (each with its own counts): the skeleton has the last word.

Jacobi converges more slowly per sweep than Gauss-Seidel, so the engine takes many small
substeps of one sweep each (Macklin et al. 2019, *Small Steps in Physics Simulation*): less
constraint error for the same work than one step of many sweeps (physics/step.py).

**Angular momentum.** The direction ``u`` of a correction is the bone's direction at the start
of the substep, x_i - x_j, not at the predicted positions (as in SHAKE). Velocity is recovered as
``(p - x) / h``, so the angular momentum after the substep is ``sum m x x p / h`` and a correction
changes it by ``sum m x x dp / h``: zero only when the correction is parallel to x_i - x_j. Along
the current direction instead, a flexing creature spun itself up in mid-air (a hinged arm reached
170 deg/s from rest in 2 s). If a bone turned by more than ~84 degrees within one substep the
current direction is used instead.

**Rigid bones without a square root.** A rigid bone's sweep solves ``C' = (|d|^2 - r^2) / (2 r)``
(d = p_i - p_j), which vanishes exactly where ``C`` does and agrees with it to first order: its
step ``dlam = -C' / (W (d . u))`` with ``d . u ~ r |u|`` for the unnormalised start direction u
(the bone barely turns in a substep) is ``(r^2 - |d|^2) k`` with ``k = 1 / (2 W r^2)`` known once
a step. That changes how fast the sweeps converge by a few percent (a Newton step with a slope a
little off), not where to: the fixed point is still ``|d| = r``. It spares the square root and
the division that were most of a bone's cost.

**Muscles** are soft bones whose rest length moves toward the command (at most ``speed * rest``
per second) linearly across the step's substeps, so a muscle pulls smoothly, not in jerks once
a step. ``lam`` is the force times h^2; clamping it to ``+-max_force h^2`` makes a muscle as
strong as its ``strength`` and no stronger. Compliant bones are XPBD springs (``alpha~ =
compliance / h^2``).

Rows of the bone workspace ``rest : (E, ROWS, LANES)``: see the ``R_*`` constants.
"""

import numpy as np
from numba import njit

#: rows of the per-bone workspace: rest length at the step's start, its change over the step
#: (muscles), the rest length this substep, the split weight n_i w_i + n_j w_j, and the unit
#: direction at the substep's start
R_START, R_DELTA, R_REST, R_WEIGHT, R_UX, R_UY = 0, 1, 2, 3, 4, 5
ROWS = 6


@njit(cache=True, error_model="numpy")
def drive_muscles(muscle_len, cmd, out_len, rest, hot, b0, n, dt):
    """Move each muscle's rest length toward its commanded length, rate-limited, once a step:
    ``rest[e, R_START]`` is every bone's rest length at the step's start and ``R_DELTA`` its
    change over the step (0 but for muscles); :func:`rest_of_substep` spreads it over the
    substeps.

    The command c (clipped to [-1, 1], NaN read as 0) asks for ``rest * (1 + c * range)``; the
    length changes by at most ``speed * rest * dt`` per step."""
    for e in range(hot.bone_a.shape[0]):
        for l in range(n):
            rest[e, R_START, l] = hot.bone_rest[e, b0 + l]
            rest[e, R_DELTA, l] = 0.0
            rest[e, R_REST, l] = hot.bone_rest[e, b0 + l]
    for m in range(hot.muscle_bone.shape[0]):
        e = hot.muscle_bone[m]
        for l in range(n):
            b = b0 + l
            c = cmd[b, m]
            if not (c == c):
                c = 0.0
            c = min(1.0, max(-1.0, c))
            r0 = hot.muscle_rest[m, b]
            target = r0 * (1.0 + c * hot.muscle_range[m, b])
            cur = muscle_len[b, m]
            dmax = hot.muscle_speed[m, b] * r0 * dt
            new = cur + min(dmax, max(-dmax, target - cur))
            out_len[b, m] = new
            rest[e, R_START, l] = cur
            rest[e, R_DELTA, l] = new - cur


@njit(cache=True, error_model="numpy")
def prepare_bones(rest, hot, b0, n):
    """Once a step: each soft bone's split weight ``n_i w_i + n_j w_j`` (``R_WEIGHT``; n counts
    the creature's soft bones at each sphere)."""
    for e in hot.soft_bones:
        i = hot.bone_a[e]
        j = hot.bone_b[e]
        for l in range(n):
            b = b0 + l
            rest[e, R_WEIGHT, l] = (hot.soft_degree[i, b] * hot.inv_mass[i, b]
                                    + hot.soft_degree[j, b] * hot.inv_mass[j, b])


@njit(cache=True, error_model="numpy")
def rest_of_substep(rest, muscle_bone, n, s, substeps):
    """The muscles' rest lengths at the end of substep ``s`` of ``substeps``: the step's change
    spread evenly (``R_REST``)."""
    f = (s + 1.0) / substeps
    for m in range(muscle_bone.shape[0]):
        e = muscle_bone[m]
        r0 = rest[e, R_START]
        dr = rest[e, R_DELTA]
        r = rest[e, R_REST]
        for l in range(n):
            r[l] = r0[l] + dr[l] * f


@njit(cache=True, error_model="numpy")
def orient_bones(x, rest, bone_a, bone_b, soft_bones, n):
    """Each soft bone's unit direction at the start of the substep, x_i - x_j (``R_UX``,
    ``R_UY``)."""
    for e in soft_bones:
        i = bone_a[e]
        j = bone_b[e]
        xi = x[i, 0]
        yi = x[i, 1]
        xj = x[j, 0]
        yj = x[j, 1]
        ux = rest[e, R_UX]
        uy = rest[e, R_UY]
        for l in range(n):
            dx = xi[l] - xj[l]
            dy = yi[l] - yj[l]
            d = np.sqrt(dx * dx + dy * dy)
            inv = 1.0 / d if d > 1e-12 else 0.0
            ux[l] = dx * inv
            uy[l] = dy * inv


@njit(cache=True, error_model="numpy")
def snapshot(p, q, n):
    """``q = p`` over the live lanes: the positions a Jacobi sweep reads."""
    for i in range(p.shape[0]):
        for k in range(2):
            pr = p[i, k]
            qr = q[i, k]
            for l in range(n):
                qr[l] = pr[l]


@njit(cache=True, error_model="numpy")
def solve_bones(p, q, rest, lam, bone_a, bone_b, soft_bones, inv_mass, compliance, max_force, b0, n, h):
    """One Jacobi sweep over the soft bones (muscles, compliant bones, bones that may be switched
    off), reading a snapshot ``q`` of ``p`` and adding the corrections to ``p``. ``lam : (E,
    LANES)`` accumulates their multipliers over a substep. (The rigid bones are the skeleton's,
    physics/skeleton.py.)

    Written branch-free over whole lane rows so that the compiler vectorises across creatures;
    a degenerate bone (zero length, or two pinned spheres) leaves its spheres where they are.
    (The arrays come one by one: the whole ``hot`` tuple would be copied onto the stack every
    call.)"""
    if soft_bones.shape[0] == 0:
        return
    inv_h2 = 1.0 / (h * h)
    h2 = h * h
    snapshot(p, q, n)
    for e in soft_bones:
        _solve_soft_bone(p, q, rest, lam, bone_a[e], bone_b[e], inv_mass, compliance, max_force, e, b0, n,
                         inv_h2, h2)


@njit(cache=True, error_model="numpy")
def _solve_soft_bone(p, q, rest, lam, i, j, inv_mass, compliance, max_force, e, b0, n, inv_h2, h2):
    """A muscle or compliant bone: XPBD with its multiplier clamped to the force limit, on the
    split weight."""
    qxi = q[i, 0]
    qyi = q[i, 1]
    qxj = q[j, 0]
    qyj = q[j, 1]
    xi = p[i, 0]
    yi = p[i, 1]
    xj = p[j, 0]
    yj = p[j, 1]
    w_i = inv_mass[i, b0:b0 + n]
    w_j = inv_mass[j, b0:b0 + n]
    r = rest[e, R_REST]
    w = rest[e, R_WEIGHT]
    ux = rest[e, R_UX]
    uy = rest[e, R_UY]
    comp = compliance[e, b0:b0 + n]
    fmax = max_force[e, b0:b0 + n]
    lm = lam[e]
    for l in range(n):
        dx = qxi[l] - qxj[l]
        dy = qyi[l] - qyj[l]
        d = np.sqrt(dx * dx + dy * dy)
        g = dx * ux[l] + dy * uy[l]
        along = g > 0.1 * d
        dirx = ux[l] if along else dx
        diry = uy[l] if along else dy
        alpha = comp[l] * inv_h2
        den = w[l] * (g if along else d * d) + alpha * d
        ok = (d > 1e-12) & (den > 0.0)
        f = fmax[l] * h2
        lam0 = lm[l]
        lam1 = lam0 + (r[l] - d - alpha * lam0) * d / (den if ok else 1.0)
        lam1 = min(f, max(-f, lam1))
        lam1 = lam1 if ok else lam0
        lm[l] = lam1
        s = lam1 - lam0
        xi[l] += w_i[l] * s * dirx
        yi[l] += w_i[l] * s * diry
        xj[l] -= w_j[l] * s * dirx
        yj[l] -= w_j[l] * s * diry

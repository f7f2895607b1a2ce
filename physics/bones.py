"""Bones and muscles: XPBD distance constraints, corrected along the start-of-substep direction.

For a bone between spheres i and j with rest length r, the error is ``C = |p_i - p_j| - r`` at the
predicted positions p. The correction moves ``p_i += w_i dlam u``, ``p_j -= w_j dlam u``, equal and
opposite in momentum (m_i w_i = m_j w_j = 1), so bones and muscles never move the centre of mass:
the "fly by flexing" exploit of seed 003 cannot happen.

The direction ``u`` is the bone's direction at the start of the substep, x_i - x_j, not at the
predicted positions (as in SHAKE). Velocity is recovered as ``(p - x) / h``, so the angular
momentum after the substep is ``sum m x x p / h`` and a correction changes it by
``sum m x x dp / h``: zero only when the correction is parallel to x_i - x_j. Along the current
direction instead, a flexing creature spun itself up in mid-air (a hinged arm reached 170 deg/s
from rest in 2 s). With ``u`` fixed, the XPBD update (Macklin et al. 2016) becomes
``dlam = (-C - alpha~ lam) / (w G + alpha~)`` with ``G = (p_i - p_j) . u / |p_i - p_j|``, the rate at
which the distance changes along u, and ``alpha~ = compliance / h^2``. If a bone turned by more
than ~84 degrees within one substep (G < 0.1) the current direction is used instead.

``lam`` is the force times h^2; clamping it to ``+-max_force h^2`` makes a muscle as strong as its
``strength`` and no stronger.
"""

import numpy as np
from numba import njit


@njit(cache=True, error_model="numpy")
def drive_muscles(muscle_len, cmd, out_len, rest, hot, b0, n, dt):
    """Move each muscle's rest length toward its commanded length, rate-limited, and fill
    ``rest : (E, 4, LANES)`` with the rest length every bone has this step (row 0); rows 1-3 are
    left to :func:`prepare_bones` and :func:`orient_bones`.

    The command c (clipped to [-1, 1], NaN read as 0) asks for ``rest * (1 + c * range)``; the
    length changes by at most ``speed * rest * dt`` per step."""
    for e in range(hot.bone_a.shape[0]):
        for l in range(n):
            rest[e, 0, l] = hot.bone_rest[e, b0 + l]
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
            cur += min(dmax, max(-dmax, target - cur))
            out_len[b, m] = cur
            rest[e, 0, l] = cur


@njit(cache=True, error_model="numpy")
def prepare_bones(rest, hot, b0, n):
    """Row 1 of ``rest : (E, 4, LANES)``: ``w_i + w_j``, once per step."""
    for e in range(hot.bone_a.shape[0]):
        i = hot.bone_a[e]
        j = hot.bone_b[e]
        for l in range(n):
            rest[e, 1, l] = hot.inv_mass[i, b0 + l] + hot.inv_mass[j, b0 + l]


@njit(cache=True, error_model="numpy")
def orient_bones(x, rest, bone_a, bone_b, n):
    """Rows 2-3 of ``rest``: each bone's unit direction at the start of the substep, x_i - x_j."""
    for e in range(bone_a.shape[0]):
        i = bone_a[e]
        j = bone_b[e]
        xi = x[i, 0]
        yi = x[i, 1]
        xj = x[j, 0]
        yj = x[j, 1]
        ux = rest[e, 2]
        uy = rest[e, 3]
        for l in range(n):
            dx = xi[l] - xj[l]
            dy = yi[l] - yj[l]
            d = np.sqrt(dx * dx + dy * dy)
            inv = 1.0 / d if d > 1e-12 else 0.0
            ux[l] = dx * inv
            uy[l] = dy * inv


@njit(cache=True, error_model="numpy")
def solve_bones(p, rest, lam, bone_a, bone_b, soft_bones, rigid_bones, inv_mass, compliance, max_force,
                b0, n, h):
    """One Gauss-Seidel sweep over the bones. ``lam : (E, LANES)`` accumulates over a substep.

    Written branch-free over whole lane rows so that the compiler vectorises across creatures;
    a degenerate bone (zero length, or two pinned spheres) leaves its spheres where they are.
    Muscles and soft bones go first and rigid bones last (``soft_bones``, ``rigid_bones`` from hot;
    two plain loops rather than one with a branch per bone, which measured 4x slower): a sweep
    leaves its
    last constraints the best satisfied, and the skeleton matters more than a muscle reaching
    its target exactly. (Measured on the walker under random full-speed commands for 60 s:
    muscles last, 20-30 % worst rigid-bone strain; rigid last, 9 %; plus :func:`settle_bones`
    after the relaxation loop, 4 %.)"""
    inv_h2 = 1.0 / (h * h)
    h2 = h * h
    for e in soft_bones:
        _solve_soft_bone(p, rest, lam, bone_a[e], bone_b[e], inv_mass, compliance, max_force, e, b0, n,
                         inv_h2, h2)
    for e in rigid_bones:
        _solve_rigid_bone(p, rest, bone_a[e], bone_b[e], inv_mass, e, b0, n)


@njit(cache=True, error_model="numpy")
def settle_bones(p, rest, bone_a, bone_b, rigid_bones, inv_mass, b0, n):
    """A last sweep over the rigid bones only, along their current directions, after the
    relaxation loop: it removes what the loop left (current directions converge better) and its
    corrections are too small to change the angular momentum measurably."""
    for e in rigid_bones:
        i = bone_a[e]
        j = bone_b[e]
        xi = p[i, 0]
        yi = p[i, 1]
        xj = p[j, 0]
        yj = p[j, 1]
        w_i = inv_mass[i, b0:b0 + n]
        w_j = inv_mass[j, b0:b0 + n]
        r = rest[e, 0]
        w = rest[e, 1]
        for l in range(n):
            dx = xi[l] - xj[l]
            dy = yi[l] - yj[l]
            d = np.sqrt(dx * dx + dy * dy)
            den = w[l] * d
            ok = den > 1e-12
            s = (r[l] - d) / (den if ok else 1.0)
            s = s if ok else 0.0
            xi[l] += w_i[l] * s * dx
            yi[l] += w_i[l] * s * dy
            xj[l] -= w_j[l] * s * dx
            yj[l] -= w_j[l] * s * dy


@njit(cache=True, error_model="numpy")
def _solve_rigid_bone(p, rest, i, j, inv_mass, e, b0, n):
    """A rigid bone: no compliance, no force limit, so no multiplier to keep. (The arrays it
    needs come one by one: the whole ``hot`` tuple would be copied onto the stack every call.)"""
    xi = p[i, 0]
    yi = p[i, 1]
    xj = p[j, 0]
    yj = p[j, 1]
    w_i = inv_mass[i, b0:b0 + n]
    w_j = inv_mass[j, b0:b0 + n]
    r = rest[e, 0]
    w = rest[e, 1]
    ux = rest[e, 2]
    uy = rest[e, 3]
    for l in range(n):
        dx = xi[l] - xj[l]
        dy = yi[l] - yj[l]
        d = np.sqrt(dx * dx + dy * dy)
        g = dx * ux[l] + dy * uy[l]
        along = g > 0.1 * d
        dirx = ux[l] if along else dx
        diry = uy[l] if along else dy
        den = w[l] * (g if along else d * d)
        ok = (d > 1e-12) & (den > 0.0)
        s = (r[l] - d) * d / (den if ok else 1.0)
        s = s if ok else 0.0
        xi[l] += w_i[l] * s * dirx
        yi[l] += w_i[l] * s * diry
        xj[l] -= w_j[l] * s * dirx
        yj[l] -= w_j[l] * s * diry


@njit(cache=True, error_model="numpy")
def _solve_soft_bone(p, rest, lam, i, j, inv_mass, compliance, max_force, e, b0, n, inv_h2, h2):
    """A muscle or compliant bone: XPBD with its multiplier clamped to the force limit."""
    xi = p[i, 0]
    yi = p[i, 1]
    xj = p[j, 0]
    yj = p[j, 1]
    w_i = inv_mass[i, b0:b0 + n]
    w_j = inv_mass[j, b0:b0 + n]
    r = rest[e, 0]
    w = rest[e, 1]
    ux = rest[e, 2]
    uy = rest[e, 3]
    comp = compliance[e, b0:b0 + n]
    fmax = max_force[e, b0:b0 + n]
    lm = lam[e]
    for l in range(n):
        dx = xi[l] - xj[l]
        dy = yi[l] - yj[l]
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

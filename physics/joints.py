"""Joints: angle limits (hinge) and angular springs at a sphere shared by two bones.

The joint angle at sphere c between bones c-a and c-b is ``theta = atan2(u x v, u . v)`` with
``u = p_a - p_c``, ``v = p_b - p_c``. Its gradients are ``d theta / d p_a = (u_y, -u_x) / |u|^2``,
``d theta / d p_b = (-v_y, v_x) / |v|^2`` and ``d theta / d p_c = -(both)``: they sum to zero
(translating the three spheres leaves the angle alone) and have no net moment (nor does rotating
them), so the correction ``dp_k = w_k grad_k dlam`` moves neither the centre of mass nor the
angular momentum. A hinge is the inequality ``min <= theta <= max``, solved only when violated;
a spring is an XPBD constraint ``theta - rest`` with compliance 1 / stiffness.
"""

import numpy as np
from numba import njit


@njit(cache=True)
def _wrap(a):
    """Angle wrapped into (-pi, pi]."""
    while a > np.pi:
        a -= 2.0 * np.pi
    while a <= -np.pi:
        a += 2.0 * np.pi
    return a


@njit(cache=True)
def joint_angle(pa_x, pa_y, pc_x, pc_y, pb_x, pb_y):
    ux = pa_x - pc_x
    uy = pa_y - pc_y
    vx = pb_x - pc_x
    vy = pb_y - pc_y
    return np.arctan2(ux * vy - uy * vx, ux * vx + uy * vy)


@njit(cache=True)
def _rotate_joint(p, a, c, b, l, wa, wc, wb, C, alpha, lam0):
    """Apply one XPBD angle correction for constraint value ``C``; return the new multiplier."""
    ux = p[a, 0, l] - p[c, 0, l]
    uy = p[a, 1, l] - p[c, 1, l]
    vx = p[b, 0, l] - p[c, 0, l]
    vy = p[b, 1, l] - p[c, 1, l]
    uu = ux * ux + uy * uy
    vv = vx * vx + vy * vy
    if uu < 1e-18 or vv < 1e-18:
        return lam0
    gax = uy / uu
    gay = -ux / uu
    gbx = -vy / vv
    gby = vx / vv
    gcx = -(gax + gbx)
    gcy = -(gay + gby)
    w = wa / uu + wb / vv + wc * (gcx * gcx + gcy * gcy) + alpha
    if w <= 0.0:
        return lam0
    dlam = (-C - alpha * lam0) / w
    p[a, 0, l] += wa * gax * dlam
    p[a, 1, l] += wa * gay * dlam
    p[b, 0, l] += wb * gbx * dlam
    p[b, 1, l] += wb * gby * dlam
    p[c, 0, l] += wc * gcx * dlam
    p[c, 1, l] += wc * gcy * dlam
    return lam0 + dlam


@njit(cache=True)
def solve_joints(p, lam, hot, b0, n, h):
    """One sweep over the joints: springs first (soft), then hinge limits (hard).
    ``lam : (J, LANES)`` holds the springs' multipliers over a substep."""
    inv_h2 = 1.0 / (h * h)
    for k in range(hot.joint_c.shape[0]):
        a = hot.joint_a[k]
        c = hot.joint_c[k]
        b = hot.joint_b[k]
        limited = hot.joint_limited[k]
        for l in range(n):
            bb = b0 + l
            wa = hot.inv_mass[a, bb]
            wc = hot.inv_mass[c, bb]
            wb = hot.inv_mass[b, bb]
            if hot.joint_spring[k, bb]:
                theta = joint_angle(p[a, 0, l], p[a, 1, l], p[c, 0, l], p[c, 1, l], p[b, 0, l], p[b, 1, l])
                C = _wrap(theta - hot.joint_rest[k, bb])
                lam[k, l] = _rotate_joint(p, a, c, b, l, wa, wc, wb, C,
                                          hot.joint_compliance[k, bb] * inv_h2, lam[k, l])
            if limited:
                theta = joint_angle(p[a, 0, l], p[a, 1, l], p[c, 0, l], p[c, 1, l], p[b, 0, l], p[b, 1, l])
                lo = hot.joint_min[k, bb]
                hi = hot.joint_max[k, bb]
                if theta < lo or theta > hi:
                    # distance to each limit the short way round, so a limit near +-180 degrees
                    # is approached from the right side
                    dlo = _wrap(theta - lo)
                    dhi = _wrap(theta - hi)
                    C = dlo if abs(dlo) < abs(dhi) else dhi
                    _rotate_joint(p, a, c, b, l, wa, wc, wb, C, 0.0, 0.0)

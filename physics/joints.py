"""Joints: angle limits (hinge) and angular springs at a sphere shared by two bones.

The joint angle at sphere c between bones c-a and c-b is ``theta = atan2(u x v, u . v)`` with
``u = p_a - p_c``, ``v = p_b - p_c``. Its gradients are ``d theta / d p_a = (u_y, -u_x) / |u|^2``,
``d theta / d p_b = (-v_y, v_x) / |v|^2`` and ``d theta / d p_c = -(both)``: they sum to zero
(translating the three spheres leaves the angle alone) and have no net moment (nor does rotating
them), so the correction ``dp_k = w_k grad_k dlam`` moves neither the centre of mass nor the
angular momentum, provided the gradients are taken at the substep's start (see bones.py for why). A hinge is the inequality ``min <= theta <= max``, solved only when violated;
a spring is an XPBD constraint ``theta - rest`` with compliance 1 / stiffness.
"""

import numpy as np
from numba import njit

from .layout import unpack_hot
from .lanes import stepped


@njit(cache=True, error_model="numpy")
def wrap_angle(a):
    """Angle wrapped into (-pi, pi]."""
    while a > np.pi:
        a -= 2.0 * np.pi
    while a <= -np.pi:
        a += 2.0 * np.pi
    return a


@njit(cache=True, error_model="numpy")
def joint_angle(pa_x, pa_y, pc_x, pc_y, pb_x, pb_y):
    ux = pa_x - pc_x
    uy = pa_y - pc_y
    vx = pb_x - pc_x
    vy = pb_y - pc_y
    return np.arctan2(ux * vy - uy * vx, ux * vx + uy * vy)


@njit(cache=True, error_model="numpy")
def _gradients(q, a, c, b, l):
    """d theta / d q_a and d theta / d q_b at positions q (d theta / d q_c is minus their sum)."""
    ux = q[a, 0, l] - q[c, 0, l]
    uy = q[a, 1, l] - q[c, 1, l]
    vx = q[b, 0, l] - q[c, 0, l]
    vy = q[b, 1, l] - q[c, 1, l]
    uu = ux * ux + uy * uy
    vv = vx * vx + vy * vy
    if uu < 1e-18 or vv < 1e-18:
        return 0.0, 0.0, 0.0, 0.0, False
    return uy / uu, -ux / uu, -vy / vv, vx / vv, True


@njit(cache=True, error_model="numpy")
def _rotate_joint(x, q, p, a, c, b, l, wa, wc, wb, na, nc, nb, C, alpha, lam0):
    """One XPBD angle correction for constraint value ``C`` (at the snapshot q), added to p along
    the angle's gradients at the substep's start x (so that angular momentum is kept, as for
    bones), with the Newton step's denominator ``sum n w g(x) . g(q)`` on the split masses (``n``:
    the joints at each sphere, physics/bones.py says why). Returns the new multiplier."""
    ax, ay, bx, by, ok0 = _gradients(x, a, c, b, l)
    px_, py_, qx_, qy_, ok1 = _gradients(q, a, c, b, l)
    if not (ok0 and ok1):
        return lam0
    cx = -(ax + bx)
    cy = -(ay + by)
    w = (na * wa * (ax * px_ + ay * py_) + nb * wb * (bx * qx_ + by * qy_)
         + nc * wc * (cx * -(px_ + qx_) + cy * -(py_ + qy_)) + alpha)
    if w <= 1e-12:
        return lam0
    dlam = (-C - alpha * lam0) / w
    p[a, 0, l] += wa * ax * dlam
    p[a, 1, l] += wa * ay * dlam
    p[b, 0, l] += wb * bx * dlam
    p[b, 1, l] += wb * by * dlam
    p[c, 0, l] += wc * cx * dlam
    p[c, 1, l] += wc * cy * dlam
    return lam0 + dlam


@njit(cache=True, error_model="numpy")
def solve_joints(x, p, q, lam, packed, b0, n, h, limits, single):
    """One Jacobi sweep over the joints (every joint from the same snapshot ``q`` of ``p``, the
    corrections added up: no order bias, physics/bones.py): each joint's spring (soft) and its
    hinge limits (hard, only when violated; with ``limits`` False the springs only: the step
    solves the limits with the skeleton, physics/skeleton.py). ``lam : (J, LANES)`` holds the
    springs' multipliers over a substep. ``packed``: the model's packed arrays (unpacked here:
    physics/skeleton.py's factor_skeleton says why)."""
    n = stepped(single, n)   # (a constant in the steps compiled for one creature or one block: physics/step.py)
    hot = unpack_hot(*packed)
    inv_h2 = 1.0 / (h * h)
    for i in range(p.shape[0]):
        for k in range(2):
            for l in range(n):
                q[i, k, l] = p[i, k, l]
    for k in range(hot.joint_c.shape[0]):
        a = hot.joint_a[k]
        c = hot.joint_c[k]
        b = hot.joint_b[k]
        limited = hot.joint_limited[k] and limits
        for l in range(n):
            bb = b0 + l
            na = hot.joint_degree[a, bb]
            nc = hot.joint_degree[c, bb]
            nb = hot.joint_degree[b, bb]
            wa = hot.inv_mass[a, bb]
            wc = hot.inv_mass[c, bb]
            wb = hot.inv_mass[b, bb]
            if hot.joint_spring[k, bb]:
                theta = joint_angle(q[a, 0, l], q[a, 1, l], q[c, 0, l], q[c, 1, l], q[b, 0, l], q[b, 1, l])
                C = wrap_angle(theta - hot.joint_rest[k, bb])
                lam[k, l] = _rotate_joint(x, q, p, a, c, b, l, wa, wc, wb, na, nc, nb, C,
                                          hot.joint_compliance[k, bb] * inv_h2, lam[k, l])
            if limited:
                theta = joint_angle(q[a, 0, l], q[a, 1, l], q[c, 0, l], q[c, 1, l], q[b, 0, l], q[b, 1, l])
                lo = hot.joint_min[k, bb]
                hi = hot.joint_max[k, bb]
                if theta < lo or theta > hi:
                    # distance to each limit the short way round, so a limit near +-180 degrees
                    # is approached from the right side
                    dlo = wrap_angle(theta - lo)
                    dhi = wrap_angle(theta - hi)
                    C = dlo if abs(dlo) < abs(dhi) else dhi
                    _rotate_joint(x, q, p, a, c, b, l, wa, wc, wb, na, nc, nb, C, 0.0, 0.0)

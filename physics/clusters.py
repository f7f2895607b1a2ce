"""Rigid clusters by shape matching (Mueller et al. 2005), in 2D.

The best rotation R(phi) taking the rest offsets ``q_i`` (from the rest centre of mass) onto the
current offsets ``r_i = p_i - com`` minimises ``sum m_i |R q_i - r_i|^2``; its angle is
``phi = atan2(sum m_i (q_i x r_i), sum m_i (q_i . r_i))``. Seed 000 instead averages per-particle
angles ``atan2(q_i x r_i, q_i . r_i)``, which breaks when one offset crosses +-180 degrees (the
3-particle "freak out" in its comments) and when a particle sits at the centre of mass. The goal
positions ``g_i = com + R q_i`` keep the centre of mass (sum m_i q_i = 0) and, R being optimal,
carry no net moment about the current positions.

Angular momentum after the substep is measured against the substep's start x (see bones.py), so
the correction ``d_i = k (g_i - p_i)`` is stripped of its moment about x: with
``tau = sum m_i (x_i - c) x d_i`` and ``I = sum m_i |x_i - c|^2`` (c the centre of mass of x), the
infinitesimal rotation ``(tau / I) (x_i - c)^perp`` is subtracted. That rotation has no momentum
of its own, so clusters conserve both linear and angular momentum.
"""

import numpy as np
from numba import njit

from .layout import unpack_hot
from .lanes import stepped


@njit(cache=True, error_model="numpy")
def solve_clusters(x, p, snap, packed, b0, n, single):
    """Pull every cluster's members toward its matched rigid shape by its stiffness: a Jacobi
    sweep (each cluster matched to the same snapshot ``snap`` of ``p``, the corrections added up, so
    the order of the clusters does not matter; a cluster sharing spheres with others moves them
    by its share, ``1 / cluster_split``, which keeps both momenta). ``packed``: the model's packed
    arrays (unpacked here: physics/skeleton.py's factor_skeleton says why)."""
    n = stepped(single, n)   # (a constant in the steps compiled for one creature or one block: physics/step.py)
    hot = unpack_hot(*packed)
    for i in range(p.shape[0]):
        for k in range(2):
            for l in range(n):
                snap[i, k, l] = p[i, k, l]
    for k in range(hot.cluster_start.shape[0] - 1):
        s0 = hot.cluster_start[k]
        s1 = hot.cluster_start[k + 1]
        for l in range(n):
            b = b0 + l
            aa = hot.cluster_sphere[s0 + hot.anchor_a[k, b]]
            ab = hot.cluster_sphere[s0 + hot.anchor_b[k, b]]
            if (hot.cluster_stiffness[k, b] >= 1.0) & (hot.mass[aa, b] > 0.0) & (hot.mass[ab, b] > 0.0):
                continue   # rigid: held exactly by the skeleton's frame rows (skeleton.py)
            msum = 0.0
            cx = 0.0
            cy = 0.0
            ox = 0.0
            oy = 0.0
            for q in range(s0, s1):
                i = hot.cluster_sphere[q]
                m = hot.mass[i, b]
                msum += m
                cx += m * snap[i, 0, l]
                cy += m * snap[i, 1, l]
                ox += m * x[i, 0, l]
                oy += m * x[i, 1, l]
            cx /= msum
            cy /= msum
            ox /= msum
            oy /= msum
            sn = 0.0
            cs = 0.0
            for q in range(s0, s1):
                i = hot.cluster_sphere[q]
                m = hot.mass[i, b]
                rx = snap[i, 0, l] - cx
                ry = snap[i, 1, l] - cy
                qx = hot.cluster_rest[q, 0, b]
                qy = hot.cluster_rest[q, 1, b]
                sn += m * (qx * ry - qy * rx)
                cs += m * (qx * rx + qy * ry)
            phi = np.arctan2(sn, cs)
            c = np.cos(phi)
            s = np.sin(phi)
            k_ = hot.cluster_stiffness[k, b] / hot.cluster_split[k]
            # the correction's moment about the substep's start, and the start's inertia
            tau = 0.0
            inertia = 0.0
            for q in range(s0, s1):
                i = hot.cluster_sphere[q]
                m = hot.mass[i, b]
                qx = hot.cluster_rest[q, 0, b]
                qy = hot.cluster_rest[q, 1, b]
                dx = (cx + c * qx - s * qy - snap[i, 0, l]) * k_
                dy = (cy + s * qx + c * qy - snap[i, 1, l]) * k_
                ax = x[i, 0, l] - ox
                ay = x[i, 1, l] - oy
                tau += m * (ax * dy - ay * dx)
                inertia += m * (ax * ax + ay * ay)
            omega = tau / inertia if inertia > 1e-18 else 0.0
            for q in range(s0, s1):
                i = hot.cluster_sphere[q]
                if hot.inv_mass[i, b] == 0.0:
                    continue
                qx = hot.cluster_rest[q, 0, b]
                qy = hot.cluster_rest[q, 1, b]
                dx = (cx + c * qx - s * qy - snap[i, 0, l]) * k_
                dy = (cy + s * qx + c * qy - snap[i, 1, l]) * k_
                ax = x[i, 0, l] - ox
                ay = x[i, 1, l] - oy
                p[i, 0, l] += dx + omega * ay
                p[i, 1, l] += dy - omega * ax

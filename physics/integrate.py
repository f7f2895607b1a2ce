"""Verlet integration in velocity form, and velocity recovered from positions.

Störmer-Verlet ``x[n+1] = 2 x[n] - x[n-1] + a h^2`` is written as ``v += a h; p = x + v h`` with
``v`` the half-step velocity ``(x[n] - x[n-1]) / h``; after the constraints have moved ``p``,
``v = (p - x) / h`` (Jakobsen: velocity is implicit in the positions). Arrays are one chunk:
``x, p, v : (P, 2, LANES)``, of which the first ``n`` lanes are live.
"""

from numba import njit

from .lanes import block, where, width


@njit(cache=True, error_model="numpy", inline="always")
def predict(x, v, p, inv_mass, b0, gx, gy, h, drag, n, update, single):
    """Apply gravity and drag to the velocities, then move the predicted positions. Pinned
    spheres (inverse mass 0) stay where they are. With ``update`` False the velocities are left
    as they were: only where each sphere would be after ``h`` (the step's contact search)."""
    keep = max(0.0, 1.0 - drag * h)
    W = width(single)
    for i in range(x.shape[0]):
        w = inv_mass[i, b0:b0 + n]
        for k, g in ((0, gx), (1, gy)):
            xr = x[i, k]
            vr = v[i, k]
            pr = p[i, k]
            for l0 in range(0, n, W):
                l = block(l0, single)
                vk = where(w[l] > 0.0, (vr[l] + g * h) * keep, 0.0)
                if update:
                    vr[l] = vk
                pr[l] = xr[l] + vk * h


@njit(cache=True, error_model="numpy", inline="always")
def recover_velocity(x, p, v, h, n, single):
    """Velocity is what the positions did over the substep."""
    inv_h = 1.0 / h
    W = width(single)
    for i in range(x.shape[0]):
        for k in range(2):
            xr = x[i, k]
            vr = v[i, k]
            pr = p[i, k]
            for l0 in range(0, n, W):
                l = block(l0, single)
                vr[l] = (pr[l] - xr[l]) * inv_h

"""A fluid medium (water, air): drag on every sphere and bone, and buoyancy.

With ``SimParams(fluid_density=rho)`` > 0 the world is filled with a fluid moving at the flow
velocity ``(flow_x, flow_y)`` (a current or a wind; still by default). After gravity, each
substep:

- **buoyancy**: a sphere of radius r displaces ``4/3 pi r^3`` of fluid and is pushed up by its
  weight, ``rho g 4/3 pi r^3``: bodies sink, float or hover by their density;
- **spheres** feel the drag of their cross-section ``A = pi r^2``, against their velocity
  relative to the fluid u: ``-1/2 rho C_s A |u| u - k_s A u`` (``fluid_drag_sphere``, a quadratic
  pressure drag, and ``fluid_viscous_sphere``, a linear viscous one);
- **bones** are flat plates, their length times a width (the mean diameter of their two
  spheres), and feel drag at both ends, each end by its own velocity (so a bone turning about
  its middle is braked at both): the fluid's velocity relative to the end is split into the part
  normal to the bone and the part along it, each with its own quadratic and linear drag,
  ``-1/2 rho C A |u_n| u_n - k A u_n`` on half the plate's area, with the normal coefficients
  (``fluid_drag_normal``, ``fluid_viscous_normal``) much larger than the tangential ones
  (``fluid_drag_tangent``, ``fluid_viscous_tangent``). This anisotropy is what lets an undulating
  body or a flapping wing push itself along: a plate moving broadside meets much more resistance
  than one sliding along its length.

**Stable at any coefficient: implicit.** Each term is applied with the velocity it produces,
``u' = u - h w (1/2 rho C A |u'| + k A) u'`` (w the inverse mass), whose solution along the term's
direction is ``|u'| = 2 |u| / ((1 + b) + sqrt((1 + b)^2 + 4 a |u|))`` with ``a = 1/2 rho C A h w``
and ``b = k A h w``: the speed shrinks but never reverses, however large the drag or the step,
and a body falling at its terminal velocity stays at exactly the drag law's terminal velocity
(an explicit step overshoots and oscillates when ``a |u|`` nears 1; one that evaluated the drag
before gravity's kick would settle 15 % off at 60 Hz). The terms are applied one after the other
(sphere, then each bone's ends), each exactly.

The drag is an external force (the fluid's): with the fluid at rest, any momentum a creature
gains is the drag's, never its muscles' alone. Without a fluid this stage is not called at all.
"""

import numpy as np
from numba import njit

#: the fields of ``SimParams`` this stage reads, in the order of its coefficient array
COEFFICIENTS = ("fluid_density", "flow_x", "flow_y", "fluid_drag_sphere", "fluid_viscous_sphere",
                "fluid_drag_normal", "fluid_drag_tangent", "fluid_viscous_normal", "fluid_viscous_tangent")


@njit(cache=True, error_model="numpy")
def implicit_speed(speed, a, b):
    """The speed ``s`` with ``s + a s^2 + b s = speed`` (speed, a, b >= 0): one implicit step of
    quadratic (a) and linear (b) drag, written so that a = 0 and a tiny a lose no digits."""
    return 2.0 * speed / ((1.0 + b) + np.sqrt((1.0 + b) * (1.0 + b) + 4.0 * a * speed))


@njit(cache=True, error_model="numpy")
def apply_medium(x, v, p, inv_mass, radius, bone_a, bone_b, max_force, b0, n, h, gravity, fluid):
    """Buoyancy, then the drag of every sphere and bone, on the velocities ``v`` after gravity's
    kick; then the predicted positions ``p = x + v h`` again. ``fluid`` holds
    :data:`COEFFICIENTS`'s values. Spheres with no inverse mass (pinned) or no radius (switched
    off) are left alone, and bones with no force (switched off: ``Model.with_values``) are no
    plates."""
    rho = fluid[0]
    fx = fluid[1]
    fy = fluid[2]
    cs, ks, cn, ct, kn, kt = fluid[3], fluid[4], fluid[5], fluid[6], fluid[7], fluid[8]
    P = x.shape[0]
    lift = rho * gravity * (4.0 / 3.0) * np.pi * h
    for i in range(P):
        w = inv_mass[i, b0:b0 + n]
        r = radius[i, b0:b0 + n]
        vx = v[i, 0]
        vy = v[i, 1]
        for l in range(n):
            if not (w[l] > 0.0 and r[l] > 0.0):
                continue
            vy[l] += lift * r[l] * r[l] * r[l] * w[l]
            area = np.pi * r[l] * r[l]
            ux = vx[l] - fx
            uy = vy[l] - fy
            speed = np.sqrt(ux * ux + uy * uy)
            if speed > 0.0:
                s = implicit_speed(speed, 0.5 * rho * cs * area * h * w[l], ks * area * h * w[l])
                k = s / speed
                vx[l] = fx + ux * k
                vy[l] = fy + uy * k
    for e in range(bone_a.shape[0]):
        i = bone_a[e]
        j = bone_b[e]
        for l in range(n):
            b = b0 + l
            dx = x[i, 0, l] - x[j, 0, l]
            dy = x[i, 1, l] - x[j, 1, l]
            length = np.sqrt(dx * dx + dy * dy)
            if not (length > 1e-12 and max_force[e, b] > 0.0):
                continue
            tx = dx / length
            ty = dy / length
            half = 0.5 * length * (radius[i, b] + radius[j, b])   # half the plate, for each end
            for end in range(2):
                q = i if end == 0 else j
                w = inv_mass[q, b]
                if not (w > 0.0 and radius[q, b] > 0.0):
                    continue
                ux = v[q, 0, l] - fx
                uy = v[q, 1, l] - fy
                ut = ux * tx + uy * ty          # along the bone
                un = -ux * ty + uy * tx         # across it (normal: (-ty, tx))
                f = half * h * w
                st = implicit_speed(abs(ut), 0.5 * rho * ct * f, kt * f)
                sn = implicit_speed(abs(un), 0.5 * rho * cn * f, kn * f)
                ut = st if ut > 0.0 else -st
                un = sn if un > 0.0 else -sn
                v[q, 0, l] = fx + ut * tx - un * ty
                v[q, 1, l] = fy + ut * ty + un * tx
    for i in range(P):
        for k in range(2):
            xr = x[i, k]
            vr = v[i, k]
            pr = p[i, k]
            for l in range(n):
                pr[l] = xr[l] + vr[l] * h


def coefficients(params) -> np.ndarray:
    """``params``' fluid as the array :func:`apply_medium` reads."""
    return np.array([float(getattr(params, name)) for name in COEFFICIENTS], dtype=np.float64)

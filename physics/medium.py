"""A fluid medium (water, air): drag on every sphere and bone, and buoyancy.

With ``SimParams(fluid_density=rho)`` > 0 the world is filled with a fluid moving at the flow
velocity ``(flow_x, flow_y)`` (a current or a wind; still by default). After gravity, each
substep:

- **buoyancy**: a sphere of radius r displaces ``4/3 pi r^3`` of fluid and is pushed up by its
  weight, ``rho g 4/3 pi r^3``: bodies sink, float or hover by their density;
- **spheres** feel the drag of their cross-section ``A = pi r^2``, against their velocity
  relative to the fluid u: ``-1/2 rho C_s A |u| u - k_s A u`` (``fluid_drag_sphere``, a quadratic
  pressure drag, and ``fluid_viscous_sphere``, a linear viscous one);
- **bones** are flat plates, their length times a width (``Model.bone_plate``: the design's
  ``width``, by default the mean diameter of their two spheres, broader for a wing), and feel the
  fluid at both ends, each end by its own velocity (so a bone turning about its middle is braked
  at both) and on half the plate's area. The fluid's velocity relative to the end, u, is split
  into the part normal to the bone, u_n, and the part along it, u_t:

  - across the plate, the **normal force of a flat plate**, ``-1/2 rho C_N A |u| u_n`` (with
    ``fluid_drag_normal`` as C_N, 2.0 by default), plus a linear ``-k_n A u_n``. This is the
    flat plate's normal force coefficient ``C_N(a) = C_N sin a`` at an angle of attack a, of the
    dynamic pressure of the whole speed (``|u| u_n = |u|^2 sin a``): a plate broadside to the flow
    (a = 90 degrees) has Hoerner's 1.98 for a plate of infinite span (*Fluid-Dynamic Drag*,
    1965), and the sin a law is the cross-flow fit that quasi-steady models of flapping wings
    use: Wang, Birch & Dickinson (*J. Exp. Biol.* 207, 2004) fit a 2D flapping wing with
    ``C_L = 1.2 sin 2a`` and ``C_D = 1.4 - cos 2a``, a normal coefficient of
    ``sin a (2.8 - 0.4 sin^2 a)`` and a tangential one of ``0.4 cos^3 a`` (at Reynolds numbers of
    about a hundred, where skin friction is large). It is linear in a for small angles, so a
    tilted wing moving forward is lifted: its lift-to-drag ratio is ``cot a`` without skin friction
    (5.7 at 10 degrees), the force law that lets a glider glide and a flier climb. A law of the
    normal speed alone, ``|u_n| u_n`` (this engine before version 3), gives a plate at 10
    degrees sin^2 a = 3 % of its broadside force, and no wing can fly.
  - along the plate, its **skin friction**, ``-1/2 rho C_T A |u_t| u_t`` (``fluid_drag_tangent``,
    0.01: a smooth plate's two faces at Reynolds numbers of 1e5 to 1e6, laminar to turbulent,
    Blasius 2 x 1.328 / sqrt(Re) to 2 x 0.074 / Re^0.2), plus a linear ``-k_t A u_t``.

  The anisotropy is what lets an undulating body or a flapping wing push itself along: a plate
  moving broadside meets much more resistance than one sliding along its length. The largest
  lift-to-drag ratio of a plate is about ``sqrt(C_N / C_T) / 2``, 7 at 4 degrees.

**Once a substep, after the constraints.** The drag is applied to the velocities the substep
leaves once gravity, the skeleton and the muscles have moved everything (``(p - x) / h``), and the
skeleton's rigid rows are solved once more after it: so the water holds back a tail while the
muscles swing it, and the body moves instead. Applied before the constraints it met each stroke
a substep late: the test eel swam 0.257 body lengths a wave at the default 3 substeps against
0.331 converged (-22 %); after them, 0.318 against 0.341 (-7 %; engine 4's muscles, springs and
dashpots: 0.383 against 0.336). It used to be applied before and
after every constraint sweep, the drag of the call before given back first: the test eel 0.35
against 0.344 now, at two to three times the ground's cost a step (now 0.8-1.3x, with the plate ends' arithmetic
vectorized across creatures).

**Stable at any coefficient: implicit.** Each term is applied with the velocity it produces,
``u' = u - h w (1/2 rho C A |u'| + k A) u'`` (w the inverse mass), whose solution along the term's
direction is ``|u'| = 2 |u| / ((1 + b) + sqrt((1 + b)^2 + 4 a |u|))`` with ``a = 1/2 rho C A h w``
and ``b = k A h w``: the speed shrinks but never reverses, however large the drag or the step,
and a body falling at its terminal velocity stays at exactly the drag law's terminal velocity
(an explicit step overshoots and oscillates when ``a |u|`` nears 1; one that evaluated the drag
before gravity's kick would settle 15 % off at 60 Hz). A plate's end is solved along the plate
first (skin friction, a law of ``u_t`` alone, in closed form), then across it with the speed
along it already braked, ``s + a sqrt(u_t'^2 + s^2) s + b s = |u_n|`` (:func:`plate_normal_speed`):
both components shrink and neither reverses. The spheres' own drag comes first; then
the plates', all from the same velocities, each with its sphere's mass split among the plates
that meet there, and averaged: the order in which a design lists its bones changes nothing.

The drag is an external force (the fluid's): with the fluid at rest, any momentum a creature
gains is the drag's, never its muscles' alone. Without a fluid this stage is not called at all.
"""

import math
from collections import namedtuple

import numpy as np
from numba import njit

#: a plate end's values, one a creature (the workspace's ``plate_*`` rows, each its own array:
#: LLVM leaves a lane loop that writes two rows of one array scalar)
PlateRows = namedtuple("PlateRows", "tx ty share ux uy dvx dvy")

#: the fields of ``SimParams`` this stage reads, in the order of its coefficient array
COEFFICIENTS = ("fluid_density", "flow_x", "flow_y", "fluid_drag_sphere", "fluid_viscous_sphere",
                "fluid_drag_normal", "fluid_drag_tangent", "fluid_viscous_normal", "fluid_viscous_tangent")


@njit(cache=True, error_model="numpy")
def implicit_speed(speed, a, b):
    """The speed ``s`` with ``s + a s^2 + b s = speed`` (speed, a, b >= 0): one implicit step of
    quadratic (a) and linear (b) drag, written so that a = 0 and a tiny a lose no digits."""
    return 2.0 * speed / ((1.0 + b) + np.sqrt((1.0 + b) * (1.0 + b) + 4.0 * a * speed))


#: Newton steps of :func:`plate_normal_speed`
NEWTON_STEPS = 3


@njit(cache=True, error_model="numpy")
def plate_normal_speed(normal, along, a, b):
    """The normal speed ``s`` of a plate's end after one implicit step of the plate law,
    ``s + a |u'| s + b s = normal`` with ``|u'| = sqrt(along^2 + s^2)`` (normal, along, a, b >= 0;
    ``along`` the tangential speed already braked): the quadratic drag of the whole speed, the
    linear of the normal one. Newton's method from the solution with ``|u'|`` put at ``s``, an
    upper bound in closed form: on this convex, increasing function it comes down toward the
    root without passing it, and :data:`NEWTON_STEPS` steps reach it within 1.5e-7 over 2e5
    random cases (1e-6 to 1e3 m/s, a from 1e-8 to 1e8; 1e-3 with two steps, rounding with four,
    which cost a fluid's step a tenth more). At worst a hair too little drag; exact for a plate
    moving broadside (``along = 0``)."""
    s = implicit_speed(normal, a, b)
    c = 1.0 + b
    for _ in range(NEWTON_STEPS):     # no branches: the loops over creatures that call this vectorize
        r = max(np.sqrt(along * along + s * s), 1e-300)
        s -= (s * (c + a * r) - normal) * r / ((c + a * r) * r + a * s * s)
    return max(s, 0.0)


@njit(cache=True, error_model="numpy")
def _brake_plate_ends(tx, ty, f, ux, uy, dvx, dvy, qt, kt, qn, kn, n):
    """The velocity change ``(dvx, dvy)`` of plate ends moving at ``(ux, uy)`` relative to the
    fluid along bones of direction ``(tx, ty)``, each with ``f`` its share of plate times step
    times inverse mass: along the plate in closed form, across it with the braked tangential
    speed (:func:`plate_normal_speed`). Branch-free (an end that is off has f = 0 and keeps
    its velocity exactly), so the loop is vectorized across creatures."""
    for l in range(n):
        ut = ux[l] * tx[l] + uy[l] * ty[l]          # along the bone
        un = -ux[l] * ty[l] + uy[l] * tx[l]         # across it (normal: (-ty, tx))
        st = implicit_speed(abs(ut), qt * f[l], kt * f[l])
        sn = plate_normal_speed(abs(un), st, qn * f[l], kn * f[l])
        dt = math.copysign(st, ut) - ut
        dn = math.copysign(sn, un) - un
        dvx[l] = dt * tx[l] - dn * ty[l]
        dvy[l] = dt * ty[l] + dn * tx[l]


@njit(cache=True, error_model="numpy")
def buoyancy(v, p, inv_mass, radius, b0, n, h, gravity, fluid):
    """Each sphere's buoyancy, ``rho g 4/3 pi r^3``, on its velocity and predicted position, once
    a substep (with gravity's kick). Pinned spheres and spheres switched off are left alone."""
    lift = fluid[0] * gravity * (4.0 / 3.0) * np.pi * h
    for i in range(v.shape[0]):
        w = inv_mass[i, b0:b0 + n]
        r = radius[i, b0:b0 + n]
        vy = v[i, 1]
        py = p[i, 1]
        for l in range(n):
            if w[l] > 0.0 and r[l] > 0.0:
                dv = lift * r[l] * r[l] * r[l] * w[l]
                vy[l] += dv
                py[l] += dv * h


@njit(cache=True, error_model="numpy")
def relax_medium(x, p, acc, deg, row, inv_mass, radius, bone_a, bone_b, bone_on, plate, b0, n, h, fluid):
    """The drag of the fluid on the substep's velocities ``(p - x) / h``, once a substep after
    the constraints (see the module): each sphere's and each plate end's velocity braked
    implicitly. ``fluid`` holds :data:`COEFFICIENTS`'s values; ``plate`` each bone's plate width
    (``Model.bone_plate``); ``acc : (P, 2, lanes)``, ``deg : (P, lanes)`` and ``row`` (a
    :data:`PlateRows` of arrays (lanes,)) are scratch. (No lane loop writes two rows of one array: LLVM leaves such a
    loop scalar.)
    Spheres with no inverse mass (pinned) or no radius (switched off) are left alone, and bones
    with no force (switched off: ``Model.with_values``) are no plates."""
    rho = fluid[0]
    fx = fluid[1]
    fy = fluid[2]
    cs, ks, cn, ct, kn, kt = fluid[3], fluid[4], fluid[5], fluid[6], fluid[7], fluid[8]
    P = x.shape[0]
    inv_h = 1.0 / h
    tx, ty, f, ux, uy, dvx, dvy = row.tx, row.ty, row.share, row.ux, row.uy, row.dvx, row.dvy
    for i in range(P):     # the spheres' own drag (branch-free, the braked velocity into ux, uy, then a loop per row of p)
        w = inv_mass[i, b0:b0 + n]
        r = radius[i, b0:b0 + n]
        xx = x[i, 0]
        xy = x[i, 1]
        px = p[i, 0]
        py = p[i, 1]
        for l in range(n):
            vx = (px[l] - xx[l]) * inv_h - fx
            vy = (py[l] - xy[l]) * inv_h - fy
            area = np.pi * r[l] * r[l]
            speed = np.sqrt(vx * vx + vy * vy)
            s = implicit_speed(speed, 0.5 * rho * cs * area * h * w[l], ks * area * h * w[l])
            k = s / speed if speed > 0.0 else 1.0
            ux[l] = vx * k
            uy[l] = vy * k
        for l in range(n):
            px[l] = xx[l] + (fx + ux[l]) * h if (w[l] > 0.0) & (r[l] > 0.0) else px[l]
        for l in range(n):
            py[l] = xy[l] + (fy + uy[l]) * h if (w[l] > 0.0) & (r[l] > 0.0) else py[l]
    # The plates: every bone end's drag from the same velocities, with its sphere's mass split
    # among the plates that meet there, and the results averaged (a Jacobi pass: a sphere where
    # several bones meet is braked alike whatever order the design lists them in; each term is
    # still implicit, and an average of braked velocities never reverses one)
    for i in range(P):
        for l in range(n):
            deg[i, l] = 0.0
        for k in range(2):
            for l in range(n):
                acc[i, k, l] = 0.0
    for e in range(bone_a.shape[0]):
        for end in range(2):
            q = bone_a[e] if end == 0 else bone_b[e]
            for l in range(n):
                b = b0 + l
                dx = x[bone_a[e], 0, l] - x[bone_b[e], 0, l]
                dy = x[bone_a[e], 1, l] - x[bone_b[e], 1, l]
                on = ((dx * dx + dy * dy > 1e-24) & bone_on[e, b] & (inv_mass[q, b] > 0.0)
                      & (radius[q, b] > 0.0))
                deg[q, l] += 1.0 if on else 0.0
    # per bone, in rows of one value per creature, each its own array (the loop that does the
    # arithmetic reads and writes these rows only, so that it is vectorized across creatures)
    for e in range(bone_a.shape[0]):
        i = bone_a[e]
        j = bone_b[e]
        for end in range(2):
            q = i if end == 0 else j
            for l in range(n):     # gather: the bone's direction, the end's share of the plate, its velocity
                b = b0 + l
                dx = x[i, 0, l] - x[j, 0, l]
                dy = x[i, 1, l] - x[j, 1, l]
                length = np.sqrt(dx * dx + dy * dy)
                w = inv_mass[q, b]
                on = (length > 1e-12) & bone_on[e, b] & (w > 0.0) & (radius[q, b] > 0.0)
                tx[l] = dx / max(length, 1e-12)
                ty[l] = dy / max(length, 1e-12)
                f[l] = 0.5 * length * plate[e, b] * h * w * deg[q, l] if on else 0.0   # half the plate each end
                ux[l] = (p[q, 0, l] - x[q, 0, l]) * inv_h - fx
                uy[l] = (p[q, 1, l] - x[q, 1, l]) * inv_h - fy
            _brake_plate_ends(tx, ty, f, ux, uy, dvx, dvy, rho * ct * 0.5, kt, rho * cn * 0.5, kn, n)
            for l in range(n):
                acc[q, 0, l] += dvx[l]
            for l in range(n):
                acc[q, 1, l] += dvy[l]
    for i in range(P):
        for k in range(2):
            for l in range(n):
                p[i, k, l] += acc[i, k, l] * (h / deg[i, l] if deg[i, l] > 0.0 else 0.0)


#: named media: the ``SimParams`` fluid settings each stands for (the others at their defaults).
#: Water and air differ only in density at these scales: their viscous drag is negligible beside
#: the pressure drag for bodies of centimetres to metres moving at centimetres to metres a second
#: (Reynolds numbers 10^3 to 10^6), so the linear coefficients are 0.
MEDIA = {"none": {"fluid_density": 0.0},
         "water": {"fluid_density": 1000.0},
         "air": {"fluid_density": 1.2}}

#: the short names a medium's numbers go by (``water,flow_x=0.5``; ``density=800,drag_normal=2``)
MEDIUM_KEYS = {"density": "fluid_density", "flow_x": "flow_x", "flow_y": "flow_y",
               "drag_sphere": "fluid_drag_sphere", "viscous_sphere": "fluid_viscous_sphere",
               "drag_normal": "fluid_drag_normal", "drag_tangent": "fluid_drag_tangent",
               "viscous_normal": "fluid_viscous_normal", "viscous_tangent": "fluid_viscous_tangent"}


def medium_settings(spec) -> dict:
    """The ``SimParams`` fluid settings (every one of :data:`COEFFICIENTS`) of a medium:

    - a name of :data:`MEDIA` (``none``, ``water``, ``air``);
    - numbers by :data:`MEDIUM_KEYS`' names, after a name or alone (then over ``none``'s
      defaults, so ``density`` is needed), as text ``water,flow_x=0.5`` or
      ``density=800,drag_normal=2``, or as a dict ``{"medium": "water", "flow_x": 0.5}`` /
      ``{"density": 800}``;
    - None: ``none``.

    Raises ValueError with a one-line reason."""
    from .params import SimParams
    if spec is None:
        spec = "none"
    if isinstance(spec, str):
        items = [t.strip() for t in spec.split(",") if t.strip()]
        if not items:
            raise ValueError("an empty medium: name one of " + ", ".join(MEDIA) + " or give numbers")
        data = {}
        for k, item in enumerate(items):
            if "=" not in item:
                if k:
                    raise ValueError(f"medium {spec!r}: a name ({item!r}) can only come first")
                data["medium"] = item
                continue
            key, _, text = item.partition("=")
            try:
                data[key.strip()] = float(text)
            except ValueError:
                raise ValueError(f"medium {spec!r}: {key.strip()} must be a number, not {text.strip()!r}") from None
        spec = data
    if not isinstance(spec, dict):
        raise ValueError(f"a medium is a name ({', '.join(MEDIA)}) or numbers, not {spec!r:.40}")
    spec = dict(spec)
    name = spec.pop("medium", None)
    if name is not None and not isinstance(name, str):
        raise ValueError(f"a medium's name is text ({', '.join(MEDIA)}), not {name!r:.40}")
    if name is not None and name not in MEDIA:
        raise ValueError(f"unknown medium {name!r} (choose from {', '.join(MEDIA)}, or give numbers: "
                         f"{', '.join(MEDIUM_KEYS)})")
    if name is None and spec and "density" not in spec:
        raise ValueError("a medium given by numbers needs its density (kg/m^3), or a name first "
                         "(water,flow_x=0.5)")
    out = {field: getattr(SimParams, field) for field in COEFFICIENTS}
    out.update(MEDIA[name or "none"])
    for key, value in spec.items():
        if key not in MEDIUM_KEYS:
            raise ValueError(f"unknown medium setting {key!r} (choose from {', '.join(MEDIUM_KEYS)})")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ValueError(f"the medium's {key} must be a finite number, not {value!r:.40}")
        if key not in ("flow_x", "flow_y") and value < 0:
            raise ValueError(f"the medium's {key} must not be negative, not {value:g}")
        out[MEDIUM_KEYS[key]] = float(value)
    return out


def medium_name(params) -> str:
    """What ``params``' medium is called: ``none``, ``water``, ``air`` (with ``, flow 0.5 m/s``
    when it moves), or ``fluid of 800 kg/m^3``."""
    rho = params.fluid_density
    if rho <= 0:
        return "none"
    name = next((n for n, v in MEDIA.items() if v["fluid_density"] == rho), f"fluid of {rho:g} kg/m^3")
    speed = math.hypot(params.flow_x, params.flow_y)
    if speed > 0:
        what = "wind" if name == "air" else "flow"
        name += f", {what} {speed:.3g} m/s"
    return name


def coefficients(params) -> np.ndarray:
    """``params``' fluid as the array :func:`relax_medium` reads."""
    return np.array([float(getattr(params, name)) for name in COEFFICIENTS], dtype=np.float64)

"""Bones and muscles: what a muscle asks of its bone, step by step and substep by substep.

Every bone is a row of the skeleton's exact solve (physics/skeleton.py): a rigid bone a row
that must hold, a muscle or a compliant bone a soft row (XPBD: ``alpha~ = compliance / h^2``)
whose multiplier, ``lam`` = force times h^2, is clamped to ``+-max_force h^2``, so that a muscle
is as strong as its ``strength`` and no stronger. Corrections go along each bone's direction at
the substep's start and are equal and opposite at its two spheres, so bones and muscles never
move the centre of mass (the "fly by flexing" exploit of seed 003 cannot happen) nor spin a
body up (skeleton.py says why).

**A muscle is a spring and a dashpot** toward its commanded length, its force clamped to its
strength: Hill's muscle (*Proc. R. Soc. B* 126, 1938), an elastic element in series with a
contractile one that pulls less the faster it shortens (linearised, a dashpot). The spring's
stiffness follows from the muscle's strength: it pulls its whole strength ``F`` when the muscle
is ``stretch`` of its rest length ``r`` off its commanded length, ``k = F / (stretch r)`` (a
tendon stretches 3-5 % at a muscle's full force: Zajac, *Crit. Rev. Biomed. Eng.* 17, 1989), so
a muscle strong enough for a load holds its length under it within ``stretch``. Its dashpot is
a damping ratio zeta of the critical damping for its two spheres, ``c = 2 zeta omega m`` with
``m = 1 / (w_a + w_b)`` and ``omega^2 = k / m`` (as Box2D gives its soft joints a frequency and a
damping ratio). Integrated implicitly over a substep h (XPBD with damping, Macklin et al.,
*XPBD*, 2016), the force times h^2 of the spring and the dashpot solves the row
``(A + alpha~) lam = (omega h e - 2 zeta u) / (omega h + 2 zeta)``, ``e`` the way to the
commanded length and ``u`` how far the muscle's length moved this substep, with the compliance
``alpha~ = (w_a + w_b) / (omega h (omega h + 2 zeta))`` (:func:`muscle_omega`,
:func:`muscle_softness`, :func:`muscle_pull`): unconditionally stable, and the same muscle at any
substep. Engine 3's muscles had no spring: each substep they were held at their commanded
length exactly, up to their strength, a servo without give whose force switched between
+-strength from one substep to the next once the command outran it (docs/engineering.md, "Predictable
physics", measures what that did).

What is left here is the muscles' drive: a muscle's commanded length moves toward its command
at most ``speed * rest`` per second, once a step (:func:`drive_muscles`), and that change is
spread evenly over the step's substeps (:func:`rest_of_substep`), so a muscle pulls smoothly,
not in jerks once a step.

Rows of the bone workspace ``rest : (E, ROWS, LANES)``: see the ``R_*`` constants.
"""

import numpy as np
from numba import njit

from .layout import unpack_hot
from .lanes import block, where, width

#: rows of the per-bone workspace: rest length at the step's start, its change over the step
#: (muscles), the rest length this substep
R_START, R_DELTA, R_REST = 0, 1, 2
ROWS = 3


@njit(cache=True, error_model="numpy")
def drive_muscles(muscle_len, cmd, out_len, rest, packed, b0, n, dt):
    """Move each muscle's rest length toward its commanded length, rate-limited, once a step:
    ``rest[e, R_START]`` is every bone's rest length at the step's start and ``R_DELTA`` its
    change over the step (0 but for muscles); :func:`rest_of_substep` spreads it over the
    substeps.

    The command c (clipped to [-1, 1], NaN read as 0) asks for ``rest * (1 + c * range)``; the
    length changes by at most ``speed * rest * dt`` per step."""
    hot = unpack_hot(*packed)   # (the model's packed arrays: physics/skeleton.py's factor_skeleton says why)
    # (loops of one row of ``rest`` each: LLVM leaves a lane loop that writes two rows of one
    # array scalar)
    for e in range(hot.bone_a.shape[0]):
        start, delta, now, length = rest[e, R_START], rest[e, R_DELTA], rest[e, R_REST], hot.bone_rest[e, b0:b0 + n]
        for l in range(n):
            start[l] = length[l]
        for l in range(n):
            delta[l] = 0.0
        for l in range(n):
            now[l] = length[l]
    for m in range(hot.muscle_bone.shape[0]):
        e = hot.muscle_bone[m]
        # (the creatures' arrays as views from b0: indexed at b0 + l, the loops were left scalar
        # for the negative index numba must allow for)
        asked, was, new = cmd[b0:b0 + n, m], muscle_len[b0:b0 + n, m], out_len[b0:b0 + n, m]
        rest0, span, speed = hot.muscle_rest[m, b0:b0 + n], hot.muscle_range[m, b0:b0 + n], hot.muscle_speed[m, b0:b0 + n]
        for l in range(n):
            c = asked[l]
            if not (c == c):
                c = 0.0
            c = min(1.0, max(-1.0, c))
            r0 = rest0[l]
            target = r0 * (1.0 + c * span[l])
            cur = was[l]
            dmax = speed[l] * r0 * dt
            new[l] = cur + min(dmax, max(-dmax, target - cur))
        start, delta = rest[e, R_START], rest[e, R_DELTA]
        for l in range(n):
            start[l] = was[l]
        for l in range(n):
            delta[l] = new[l] - was[l]


@njit(cache=True, error_model="numpy", inline="always")
def rest_of_substep(rest, muscle_bone, n, s, substeps, single):
    """The muscles' rest lengths at the end of substep ``s`` of ``substeps``: the step's change
    spread evenly (``R_REST``)."""
    f = (s + 1.0) / substeps
    W = width(single)
    for m in range(muscle_bone.shape[0]):
        e = muscle_bone[m]
        r0 = rest[e, R_START]
        dr = rest[e, R_DELTA]
        r = rest[e, R_REST]
        for l0 in range(0, n, W):
            l = block(l0, single)
            r[l] = r0[l] + dr[l] * f


@njit(cache=True, error_model="numpy", inline="always")
def muscle_omega(strength, stretch, rest, wsum):
    """A muscle's angular frequency on its two spheres (``wsum``: their inverse masses), its
    spring ``k = strength / (stretch rest)``: ``sqrt(k wsum)``."""
    return np.sqrt(strength / (stretch * rest) * wsum)


@njit(cache=True, error_model="numpy", inline="always")
def muscle_softness(wh, damping):
    """A muscle row's compliance over a substep, as a fraction of its own diagonal ``w_a + w_b``,
    for ``wh = omega h``: ``1 / (omega h (omega h + 2 zeta))`` (the module says why)."""
    return 1.0 / (wh * (wh + 2.0 * damping))


@njit(cache=True, error_model="numpy", inline="always")
def muscle_pull(error, moved, wh, damping):
    """A muscle row's right-hand side, for ``wh = omega h``: the length ``error`` still to go to
    its commanded length and the length it ``moved`` this substep, weighed by its spring and
    its dashpot (0 for a muscle without either: switched off)."""
    weight = wh + 2.0 * damping
    return where(weight > 0.0, (wh * error - 2.0 * damping * moved) / weight, 0.0)

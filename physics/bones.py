"""Bones and muscles: what a muscle asks of its bone, step by step and substep by substep.

Every bone is a row of the skeleton's exact solve (physics/skeleton.py): a rigid bone a row
that must hold, a muscle or a compliant bone a soft row (XPBD: ``alpha~ = compliance / h^2``)
whose multiplier, ``lam`` = force times h^2, is clamped to ``+-max_force h^2``, so that a muscle
is as strong as its ``strength`` and no stronger. Corrections go along each bone's direction at
the substep's start and are equal and opposite at its two spheres, so bones and muscles never
move the centre of mass (the "fly by flexing" exploit of seed 003 cannot happen) nor spin a
body up (skeleton.py says why).

What is left here is the muscles' drive: a muscle's rest length moves toward its command at
most ``speed * rest`` per second, once a step (:func:`drive_muscles`), and that change is spread
evenly over the step's substeps (:func:`rest_of_substep`), so a muscle pulls smoothly, not in
jerks once a step.

Rows of the bone workspace ``rest : (E, ROWS, LANES)``: see the ``R_*`` constants.
"""

from numba import njit

#: rows of the per-bone workspace: rest length at the step's start, its change over the step
#: (muscles), the rest length this substep
R_START, R_DELTA, R_REST = 0, 1, 2
ROWS = 3


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

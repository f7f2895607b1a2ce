"""Whether a creature's simulation still means something: the solver's failure modes, measured.

A creature can score by making the solver fail rather than by doing its task: a muscle stronger
than its skeleton can hold stretches the rigid bones, a hinge driven hard enough passes its limit
(a body folding through itself), a foot pushed hard enough ends inside the ground. Real bodies do
none of these, so a creature that does has left the physics behind, and nothing it does from then
on counts. Four measures of one creature's state, each its worst part:

==============  ==================================================================  ==========
measure         what                                                                limit
==============  ==================================================================  ==========
strain          a rigid bone's length off its rest length (relative)                3 %
overshoot       a hinge's angle beyond its limits (radians, the short way round)    0.1 rad
penetration     a sphere's depth inside the ground, as a fraction of its radius     25 %
stretch         a muscle's length past its range, relative to its rest length        100 %
==============  ==================================================================  ==========

A muscle is a spring toward a length within its range, but not a stop: a skeleton may pull it
well past its range (every built-in design kicking at random as below: 4-63 % of its rest
length past it, the eel the most). A muscle past its range by its whole rest length, though, is
not pulled by a body any more but torn apart by the solver: the skeleton's exact solve of a
flat triangle of bones and muscles blew up with engine 4, which growing bodies found
(docs/evolving.md; engine 5 holds it at everyday strengths, docs/limits.md).

A rigid bone is a bone with no compliance that is not a muscle. Honest bodies stay within the
limits: every built-in land design and the reference walker kicking at random, new signs every
two steps, 5 s from four seeds, reach at worst 1.2 % strain on flat ground and slopes, 1.7 % on
hills and 2.3 % on steps (a worm squeezed into the foot of a step: a sphere meets the terrain as
one half-plane, and in a concave corner the push-out from the other face is the skeleton's
last word), hinges at worst 0.34 degrees past their limits, and no penetration
(``tests/physics/test_integrity.py``); the cheats of ``tests/creatures/test_exploits.py`` reach
9-160 % strain and 1.7 rad of overshoot. (The relaxation solver of engine version 1 held
bones only within 4.3-4.7 %, and the limits were 5 % and 0.35 rad.)
A body whose muscles overpower its skeleton goes past them too, and is judged so: its
simulation no longer says what such a body would do. Evolution fails a creature the first step
any measure is over its limit (``evolution/rollout.py``), and ``creatures simulate`` judges
"held together" by the same :func:`verdict`.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from .joints import wrap_angle, joint_angle
from .model import Model
from .state import State
from .terrain import Terrain, closest_on_terrain, is_straight, terrain_top

__all__ = ["STRAIN_LIMIT", "OVERSHOOT_LIMIT", "PENETRATION_LIMIT", "STRETCH_LIMIT", "MEASURES", "integrity",
           "rigid_bones", "verdict", "measure", "within_limits"]

#: a rigid bone this far off its rest length (relative) means the skeleton did not hold
STRAIN_LIMIT = 0.03
#: a hinge this far past a limit (rad) means it was forced through it
OVERSHOOT_LIMIT = 0.1
#: a sphere this deep inside the ground, relative to its radius, means the ground did not hold
PENETRATION_LIMIT = 0.25
#: a muscle this far past its range, relative to its rest length, means it was torn
STRETCH_LIMIT = 1.0

#: the measures in the order :func:`integrity` returns them, with their limits and units
MEASURES = (("strain", STRAIN_LIMIT, "rigid bone strain"),
            ("overshoot", OVERSHOOT_LIMIT, "hinge overshoot"),
            ("penetration", PENETRATION_LIMIT, "ground penetration"),
            ("stretch", STRETCH_LIMIT, "muscle stretch past its range"))


def rigid_bones(model: Model) -> np.ndarray:
    """Which bones of each creature are rigid: on, no compliance, not a muscle (a graph's model's
    rods are). Bool, shape (B, E)."""
    rigid = model.bone_on & (model.bone_compliance == 0.0)
    rigid[:, model.muscle_bone] &= ~model.muscle_on
    return rigid


#: what the measures read of a batch's bodies (:func:`frame_of`): the spheres' radii (B, P), the
#: bones' spheres (E,) and rest lengths (B, E), which bones are rigid (B, E), the hinges' spheres
#: (J,), which are limited (J,) and their limits (B, J), the muscles' bones (M,), their rest
#: lengths and ranges (B, M)
Frame = namedtuple("Frame", "radius bone_a bone_b bone_rest rigid joint_a joint_c joint_b joint_limited joint_min "
                            "joint_max muscle_bone muscle_rest muscle_range")


def frame_of(model: Model, rigid: np.ndarray | None = None) -> tuple:
    """``model``'s :class:`Frame` as a plain tuple (what a kernel is handed: numba's dispatcher
    types a plain tuple faster than a named one); ``rigid`` defaults to :func:`rigid_bones`."""
    m = model
    return tuple(_fixed(a) for a in (
        m.radius, m.bone_a, m.bone_b, m.bone_rest, rigid_bones(m) if rigid is None else rigid, m.joint_a,
        m.joint_c, m.joint_b, m.joint_limited, m.joint_min, m.joint_max, m.muscle_bone, m.muscle_rest,
        np.where(m.bone_on[:, m.muscle_bone] & m.muscle_on, m.muscle_range, np.inf)))   # (a rod: rigid)


def _fixed(a: np.ndarray) -> np.ndarray:
    """``a`` C-ordered and read-only, whatever it was: numba compiles a kernel once for each
    combination of its arrays' layouts and flags, and the episode's loop that reads the frame
    (``evolution.rollout._run_steps``) holds the whole physics step (a model with body genes
    has some of its arrays in Fortran order, a design's own are C-ordered)."""
    a = np.ascontiguousarray(a)
    if a.flags.writeable:
        a = a.view()
        a.flags.writeable = False
    return a


@njit(cache=True, error_model="numpy")
def measure(pos, frame, terrain, ground, skip, out):
    """The four measures (strain, overshoot, penetration, stretch) of every creature ``b`` not
    in ``skip`` into ``out[b]`` (``out : (B, 4)``) for the bodies ``frame`` (a :class:`Frame`'s
    values) at ``pos`` on ``terrain`` (its table and blocks); penetration relative to each
    sphere's radius, 0 without ground. A NaN anywhere makes its measure NaN."""
    f = Frame(*frame)
    table, blocks = terrain
    radius, bone_a, bone_b, bone_rest, rigid = f.radius, f.bone_a, f.bone_b, f.bone_rest, f.rigid
    joint_a, joint_c, joint_b, joint_limited = f.joint_a, f.joint_c, f.joint_b, f.joint_limited
    joint_min, joint_max = f.joint_min, f.joint_max
    straight = is_straight(table)
    for b in range(pos.shape[0]):
        if skip[b]:
            continue
        strain = 0.0
        for e in range(bone_a.shape[0]):
            if rigid[b, e]:
                dx = pos[b, bone_a[e], 0] - pos[b, bone_b[e], 0]
                dy = pos[b, bone_a[e], 1] - pos[b, bone_b[e], 1]
                s = abs(np.sqrt(dx * dx + dy * dy) / bone_rest[b, e] - 1.0)
                if not s <= strain:   # NaN wins
                    strain = s
        overshoot = 0.0
        for k in range(joint_c.shape[0]):
            if joint_limited[k]:
                a, c, d = joint_a[k], joint_c[k], joint_b[k]
                theta = joint_angle(pos[b, a, 0], pos[b, a, 1], pos[b, c, 0], pos[b, c, 1],
                                    pos[b, d, 0], pos[b, d, 1])
                lo = joint_min[b, k]
                hi = joint_max[b, k]
                if theta < lo or theta > hi:
                    o = min(abs(wrap_angle(theta - lo)), abs(wrap_angle(theta - hi)))
                    if o > overshoot:
                        overshoot = o
                elif not (theta == theta):
                    overshoot = np.nan
        penetration = 0.0
        if ground:
            for i in range(pos.shape[1]):
                px = pos[b, i, 0]
                py = pos[b, i, 1]
                r = radius[b, i]
                if not r > 0.0 or py - r > blocks[2]:   # switched off, or above the terrain's top
                    continue
                if straight:
                    d = (px - table[0, 0]) * table[2, 0] + (py - table[1, 0]) * table[3, 0]
                else:
                    if py - r > terrain_top(blocks, px - r, px + r):
                        continue
                    d, _, _ = closest_on_terrain(table, px, py, r)
                depth = (r - d) / r
                if not depth <= penetration:
                    penetration = depth
        stretch = 0.0
        for m in range(f.muscle_bone.shape[0]):
            e = f.muscle_bone[m]
            dx = pos[b, bone_a[e], 0] - pos[b, bone_b[e], 0]
            dy = pos[b, bone_a[e], 1] - pos[b, bone_b[e], 1]
            s = abs(np.sqrt(dx * dx + dy * dy) / f.muscle_rest[b, m] - 1.0) - f.muscle_range[b, m]
            if not s <= stretch:   # NaN wins (a muscle switched off: -inf)
                stretch = s
        out[b, 0] = strain
        out[b, 1] = overshoot
        out[b, 2] = penetration
        out[b, 3] = stretch


@njit(cache=True, error_model="numpy", inline="always")
def within_limits(m):
    """Whether measures ``m`` (one creature's row) are all within their limits (False for NaN)."""
    return m[0] <= STRAIN_LIMIT and m[1] <= OVERSHOOT_LIMIT and m[2] <= PENETRATION_LIMIT and m[3] <= STRETCH_LIMIT


def integrity(model: Model, state: State, terrain: Terrain | None = None, ground: bool = True) -> np.ndarray:
    """Every creature's (strain, overshoot, penetration, stretch) now, shape (B, 4) (see the
    module's table; NaN positions give NaN measures). ``terrain`` defaults to flat ground at 0."""
    terrain = terrain or Terrain.flat()
    out = np.zeros((model.batch, len(MEASURES)))
    measure(state.pos, frame_of(model), (terrain.table, terrain.blocks), bool(ground),
            np.zeros(model.batch, dtype=np.bool_), out)
    return out


def verdict(worst) -> str | None:
    """None if measures ``worst`` (strain, overshoot, penetration, stretch) are all within their limits,
    else why not, in words (``rigid bone strain 7.2 % (limit 3 %)``)."""
    worst = np.asarray(worst, dtype=np.float64)
    for (name, limit, words), value in zip(MEASURES, worst):
        if not value <= limit:
            if name == "overshoot":
                return f"{words} {value:.2f} rad (limit {limit:g} rad)"
            return f"{words} {100 * value:.1f} % (limit {100 * limit:g} %)"
    return None

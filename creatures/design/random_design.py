"""Random creatures, as carykh's simulator starts from them: ``creatures random`` writes them as
design files.

A body is grown by Henneberg steps: two spheres joined by a bone, then each new sphere joined by
two bones to the two ends of a bone already there, the apex of a triangle on it. Such a framework
has 2n - 3 bones for n spheres and is rigid (Laman's count), so nothing but the muscles can fold
it; now and then a third bone braces the new sphere to another within reach. Then some of the
bones become muscles. Triangles are kept fat (no angle under ~25 degrees, no sphere within
another's reach), which keeps the skeleton's exact solve well conditioned.

Every creature is valid by construction: its text is composed here and read back through the
design loader, which checks it as it checks any file, and the body written is the body read.
It must also be able to stand: before it is kept, it rests on flat ground for two seconds and
then its muscles are driven at random for five, and it must stay finite with every rigid bone
within 1 % (:data:`STAND_STRAIN`, a third of :data:`physics.integrity.STRAIN_LIMIT`) and its
hinges and contacts within the integrity limits; a body that fails is refused and another one
grown in its place (:func:`random_design` says how often that happens).

Creature ``k`` of seed ``s`` comes from its own random stream (``[s, k]``), so it is the same
file whatever ``--count`` asks for.
"""

from __future__ import annotations

import math

import numpy as np

import physics
from physics.integrity import MEASURES, frame_of, measure

from ..simulation import random_commands
from .loader import Design, parse_design

__all__ = ["random_design", "stands", "SPHERES", "TRIES", "STAND_STRAIN"]

#: how many spheres a random creature has (both ends included)
SPHERES = (3, 8)
#: bodies grown for one creature before giving up (each refused one costs a 7 s check)
TRIES = 50
#: the smallest angle of a triangle a new sphere makes with its base bone (radians)
MIN_ANGLE = math.radians(25.0)
#: bone lengths (m)
LENGTHS = (0.25, 0.8)
#: apexes drawn for one body before it stops growing where it is (never reached by seeds 0-20's
#: first 200: a body finds room within a few dozen draws)
MAX_DRAWS = 1000
#: seconds at rest, then seconds of random muscles, that a body must stand (:func:`stands`)
REST_SECONDS, DRIVEN_SECONDS = 2.0, 5.0
#: the most a rigid bone of a random body may stretch in that test: a third of the integrity
#: limit, so that a body kept has room under commands it was not tested with (of 200 bodies of
#: seed 1 under 20 s of other random commands, 2 went past 1 %, the worst to 2.4 %)
STAND_STRAIN = 0.01


def random_design(seed: int, index: int) -> tuple[Design, str, int]:
    """Creature ``index`` of ``seed``: its design, the text of its file, and how many bodies were
    refused before it (:func:`stands`). Raises RuntimeError if :data:`TRIES` bodies in a row
    cannot stand (not seen: of the 200 creatures of seed 1, one body was refused in all)."""
    rng = np.random.default_rng([seed, index])
    name = f"random-{seed}-{index + 1:03d}"
    for tried in range(TRIES):
        text = _design_text(rng, name, f"creatures random --seed {seed}, number {index + 1}")
        design = parse_design(text, f"{name}.yaml")
        if stands(design.body, rng):
            return design, text, tried
    raise RuntimeError(f"{name}: no body of {TRIES} grown could stand")


def stands(body: physics.Body, rng: np.random.Generator) -> bool:
    """Whether ``body`` rests on flat ground for :data:`REST_SECONDS` and keeps its shape through
    :data:`DRIVEN_SECONDS` of random commands (a new one every 0.2 s): finite, every rigid bone
    within :data:`STAND_STRAIN` and every hinge and contact within the integrity limits, at
    every step."""
    params = physics.SimParams()
    model = physics.build_model(body, 1)
    flat = physics.Terrain.flat()
    state = physics.initial_state(model, params, offset=physics.standing_offset(model, flat))
    rest = int(REST_SECONDS / params.dt)
    driven = int(DRIVEN_SECONDS / params.dt)
    hold = max(1, int(round(0.2 / params.dt)))
    commands = np.zeros((rest + driven, 1, model.n_muscles))
    if model.n_muscles:
        commands[rest:] = random_commands(rng, driven, 1, model.n_muscles, hold)
    state, frames = physics.rollout(model, state, commands, params, flat, every=1, parallel=False)
    if not np.all(np.isfinite(frames)):
        return False
    frame, out, skip = frame_of(model), np.zeros((1, len(MEASURES))), np.zeros(1, np.bool_)
    worst = np.zeros(len(MEASURES))
    for pos in frames[1:]:
        measure(pos, frame, (flat.table, flat.blocks), True, skip, out)
        worst = np.maximum(worst, out[0])
    return worst[0] <= STAND_STRAIN and physics.verdict(worst) is None


def _design_text(rng: np.random.Generator, name: str, origin: str) -> str:
    """A random body's design file (the module says how it is grown)."""
    n = int(rng.integers(SPHERES[0], SPHERES[1] + 1))
    radius = rng.uniform(0.05, 0.11, n)
    pos = np.zeros((n, 2))
    angle = rng.uniform(0.0, 2.0 * math.pi)
    pos[1] = rng.uniform(*LENGTHS) * np.array([math.cos(angle), math.sin(angle)])
    bones = [(0, 1)]
    k, draws = 2, 0
    while k < n:
        draws += 1
        if draws > MAX_DRAWS:    # crowded past any room for a fat triangle: fewer spheres
            n, radius, pos = k, radius[:k], pos[:k]
            break
        i, j = bones[int(rng.integers(len(bones)))]
        p = _apex(rng, pos[i], pos[j])
        if p is None or np.any(np.hypot(*(pos[:k] - p).T) < radius[:k] + radius[k] + 0.08):
            continue
        pos[k] = p
        bones += [(i, k), (j, k)]
        # now and then a brace to another sphere within reach (one bone more than rigidity needs)
        others = [q for q in range(k) if q not in (i, j) and LENGTHS[0] <= np.hypot(*(pos[q] - p)) <= LENGTHS[1]]
        if others and rng.random() < 0.3:
            bones.append((int(rng.choice(others)), k))
        k += 1
    pos -= pos.mean(axis=0)
    pos[:, 1] += 0.3 - (pos[:, 1] - radius).min()   # (any height: simulations stand a body on the ground)
    muscles = set(rng.choice(len(bones), size=int(rng.integers(1, max(2, len(bones) // 2) + 1)), replace=False).tolist())
    lines = [f"name: {name}",
             "description: >",
             f"  A random creature ({origin}): {n} spheres, {len(bones)} bones, {_muscles(len(muscles))}.",
             "author: creatures random",
             "licence: CC0-1.0",
             "spheres:"]
    for s in range(n):
        lines.append(f"  - {{id: s{s + 1}, position: [{pos[s, 0]:.3f}, {pos[s, 1]:.3f}], radius: {radius[s]:.3f}, "
                     f"mass: {rng.uniform(0.3, 1.5):.2f}, friction: {rng.uniform(0.4, 1.0):.2f}}}")
    lines.append("bones:")
    for e, (a, b) in enumerate(bones):
        muscle = ""
        if e in muscles:
            muscle = (f", muscle: {{range: {rng.uniform(0.1, 0.35):.2f}, strength: {rng.uniform(60.0, 250.0):.0f}, "
                      f"speed: {rng.uniform(1.0, 3.0):.1f}}}")
        lines.append(f"  - {{id: b{e + 1}, spheres: [s{a + 1}, s{b + 1}]{muscle}}}")
    return "\n".join(lines) + "\n"


def _apex(rng: np.random.Generator, a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """A point that makes a fat triangle on the bone a-b (each new bone within :data:`LENGTHS`,
    no angle of the triangle under :data:`MIN_ANGLE`), on a random side; None if the draw fails."""
    base = b - a
    length = float(np.hypot(*base))
    along = base / length
    normal = np.array([-along[1], along[0]]) * (1.0 if rng.random() < 0.5 else -1.0)
    t = rng.uniform(0.25, 0.75)
    height = rng.uniform(0.45, 1.1) * length
    p = a + t * base + height * normal
    la, lb = float(np.hypot(*(p - a))), float(np.hypot(*(p - b)))
    if not (LENGTHS[0] <= la <= LENGTHS[1] and LENGTHS[0] <= lb <= LENGTHS[1]):
        return None
    angles = (math.atan2(height, t * length), math.atan2(height, (1.0 - t) * length))
    return p if min(angles) >= MIN_ANGLE and math.pi - sum(angles) >= MIN_ANGLE else None


def _muscles(m: int) -> str:
    return f"{m} of them a muscle" if m == 1 else f"{m} of them muscles"

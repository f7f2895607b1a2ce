"""Many shapes in one generation (``creatures bench --shapes``): what bodies of different shapes
cost against as many bodies of one shape.

Every creature of a batch shares one topology (the skeleton's plan is per topology), so a
generation of bodies that differ in their parts is stepped today as one batch per shape. This
times the physics of such a generation: 150 random creatures (``creatures random``'s, seed
:data:`SEED`) of :data:`SHAPES` shapes, 7 or 8 of each, every group one ``physics.rollout`` call,
against 150 copies of the shape whose sphere count is nearest the mean, in one call; 20 s of
random muscles (a new command every 0.2 s), one thread both sides, the best of
:data:`REPEATS`. Target (bodies that grow): at most 2x.

A third row times a growing run's own generation (:data:`GROWN`: the body plans of ``creatures
evolve sprout --grow --seed 1`` after generation 100) as evolution steps it in a new run, a batch
per graph (the engine of graphs: ``evolution.growth.GrowSettings.graph``), against as many of its
commonest body of its mean size in one batch, stepped as a fixed body is (its own model).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

import physics

from ..design.random_design import random_design
from ..simulation import random_commands

SEED = 11
SHAPES = 20
POPULATION = 150
SECONDS = 20.0
REPEATS = 3
#: the most a generation of many shapes may cost against one shape
TARGET = 2.0
#: a growing run's generation: its body plans (``creatures evolve sprout --grow --seed 1``, the
#: population after generation 100)
GROWN = Path(__file__).with_name("grown_generation.json")


def _rollout_seconds(model: physics.Model, steps: int, seed: int) -> float:
    params, flat = physics.SimParams(), physics.Terrain.flat()
    state = physics.initial_state(model, params, offset=physics.standing_offset(model, flat))
    commands = random_commands(np.random.default_rng(seed), steps, model.batch, model.n_muscles, 12)
    t0 = time.perf_counter()
    end = physics.rollout(model, state, commands, params, flat, parallel=False)
    seconds = time.perf_counter() - t0
    if not np.all(np.isfinite(end.pos)):
        raise RuntimeError("a random creature went non-finite in the shapes benchmark")
    return seconds


def run_shapes(quick: bool = False) -> list[dict]:
    """Two rows: ``many shapes`` and ``one shape`` (seconds for the generation's physics), the
    first with its ratio to the second."""
    import numba
    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        bodies = [random_design(SEED, k)[0].body for k in range(SHAPES)]
        counts = [POPULATION // SHAPES + (1 if k < POPULATION % SHAPES else 0) for k in range(SHAPES)]
        sizes = [len(b.spheres) for b in bodies]
        mean = float(np.average(sizes, weights=counts))
        nearest = int(np.argmin([abs(s - mean) for s in sizes]))
        groups = [physics.build_model(b, n) for b, n in zip(bodies, counts)]
        one = physics.build_model(bodies[nearest], POPULATION)
        seconds = 5.0 if quick else SECONDS
        steps = int(round(seconds / physics.SimParams().dt))
        for m in groups + [one]:      # the kernels loaded, the models' plans made
            _rollout_seconds(m, 10, 0)
        repeats = 1 if quick else REPEATS
        many = min(sum(_rollout_seconds(m, steps, k) for k, m in enumerate(groups)) for _ in range(repeats))
        same = min(_rollout_seconds(one, steps, 0) for _ in range(repeats))
        grown = _grown_generation(steps, repeats)
    finally:
        numba.set_num_threads(before)
    common = {"work": "shapes", "population": POPULATION, "simulated_s": seconds, "threads": 1}
    return [{**common, "engine": "many shapes", "shapes": SHAPES, "mean_spheres": mean, "seconds": many,
             "vs_one_shape": many / same, "target": TARGET},
            {**common, "engine": "one shape", "shapes": 1, "mean_spheres": float(sizes[nearest]), "seconds": same},
            {**common, **grown}]


def _grown_generation(steps: int, repeats: int) -> dict:
    """A growing run's generation (:data:`GROWN`: its body plans), stepped as a new run's evolution
    steps it, a batch per graph (``evolution.growth.topology`` of graphs, each body its graph's
    model), against as many of its commonest body of the sphere count nearest its mean, its own
    model, in one batch: ``{"engine", "shapes", "mean_spheres", "seconds", "one_shape_seconds",
    "one_shape_spheres", "vs_one_shape"}``."""
    import json
    from collections import Counter

    from evolution.growth import GrowSettings, Growth, Plan, topology

    from ..design import resolve_design
    data = json.loads(GROWN.read_text())
    growth = Growth(resolve_design(data["seed_design"]).body, GrowSettings.from_dict({**data["grow"], "graph": True}))
    bodies = [growth.body(Plan.from_dict(p))[0] for p in data["plans"]]
    groups: dict = {}
    for body in bodies:
        groups.setdefault(topology(body, graph=True), []).append(physics.build_model(body, 1, graph=True))
    models = [physics.stack_models(g) for g in groups.values()]
    mean = float(np.mean([len(b.spheres) for b in bodies]))
    nearest = min(abs(len(b.spheres) - mean) for b in bodies)
    counts = Counter(topology(b) for b in bodies if abs(len(b.spheres) - mean) == nearest)
    common = next(b for b in bodies if topology(b) == counts.most_common(1)[0][0])   # of the mean size
    one = physics.build_model(common, len(bodies))
    for m in models + [one]:
        _rollout_seconds(m, 10, 0)
    many = min(sum(_rollout_seconds(m, steps, k) for k, m in enumerate(models)) for _ in range(repeats))
    same = min(_rollout_seconds(one, steps, 0) for _ in range(repeats))
    return {"engine": "a growing generation", "shapes": len(models), "mean_spheres": mean, "seconds": many,
            "one_shape_seconds": same, "one_shape_spheres": len(common.spheres), "vs_one_shape": many / same,
            "target": TARGET}


def format_shapes(rows: list[dict]) -> str:
    many, one, grown = rows
    verdict = "meets" if many["vs_one_shape"] <= TARGET else "MISSES"
    grown_verdict = "meets" if grown["vs_one_shape"] <= TARGET else "MISSES"
    lines = [(f"{many['shapes']} shapes (mean {many['mean_spheres']:.2f} spheres), a call per shape", many["seconds"]),
             (f"one shape ({one['mean_spheres']:.0f} spheres), one call", one["seconds"])]
    grown_lines = [(f"its {grown['shapes']} graphs (mean {grown['mean_spheres']:.2f} spheres), a call per "
                    f"graph", grown["seconds"]),
                   (f"its commonest body of {grown['one_shape_spheres']} spheres, one call", grown["one_shape_seconds"])]
    width = max(len(text) for text, _ in lines + grown_lines)
    return "\n".join([f"{POPULATION} bodies x {many['simulated_s']:g} s of random muscles, physics only, one thread:"]
                     + [f"  {text:<{width}}  {seconds:.2f} s" for text, seconds in lines]
                     + [f"  many shapes cost {many['vs_one_shape']:.2f}x one shape ({verdict} <= {TARGET:g}x)",
                        "a growing run's generation (sprout --grow, seed 1, after generation 100):"]
                     + [f"  {text:<{width}}  {seconds:.2f} s" for text, seconds in grown_lines]
                     + [f"  it costs {grown['vs_one_shape']:.2f}x that body's ({grown_verdict} <= {TARGET:g}x)"])

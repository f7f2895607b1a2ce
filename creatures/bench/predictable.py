"""``creatures bench --predictable``: how much a micrometre at the start decides, and whether the
bodies hold together, measured the way the docs' "Predictable physics" (docs/engineering.md) says.

- **Sensitivity** (:func:`sensitivity`): the reference walker (``physics.examples.walker()``)
  standing on flat ground, driven open loop by one table of random muscle commands (uniform in
  [-1, 1], each held 0.2 s, from a seed), for 20 s, from ``starts`` starts whose sphere positions
  are jittered by 1e-6 m (Gaussian in x, its absolute value upward in y), beside the unjittered
  start in the same batch. Reported: the median over the starts of the distance of the sphere
  furthest from where it is in the unjittered run, after 0.5, 1 and 2 s; and the spread
  (standard deviation) of the distance the centre of mass walked in the 20 s.
- **The same with pymunk** (:func:`pymunk_sensitivity`): the same walker, commands and jitter in
  pymunk (:mod:`.pymunk_baseline`'s world: a Space per start, muscles as pin joints whose length
  is set every step), at 10 iterations x 6 substeps, where pymunk holds the walker's bones as
  rigid as ours (worst strain 0.4 %).
- **Muscles** (:func:`muscle_variants`): the sensitivity of the walker whose muscles have other
  springs and dashpots (``stretch``, ``damping``), over several command tables.
- **Integrity** (:func:`integrity_rows`): every built-in land design, 8 creatures on flat
  ground, random muscle commands (uniform in [-1, 1], new every 2 steps) for 20 s: the worst
  rigid-bone strain, hinge overshoot and depth in the ground over every step.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

import physics
from physics.integrity import MEASURES

#: the jitter of the starts (m)
JITTER = 1e-6
#: how long each random command is held (s), and the episode (s)
HOLD_SECONDS, SECONDS = 0.2, 20.0
#: when the distance from the unjittered run is read (s)
CHECKS = (0.5, 1.0, 2.0)
#: the built-in designs that live in water or air (the integrity rows are on land)
FLUID_DESIGNS = ("eel", "fish", "bird", "glider")


def random_commands(muscles: int, steps: int, seed: int, hold: int) -> np.ndarray:
    """(steps, muscles): uniform in [-1, 1], each held ``hold`` steps, from ``seed``."""
    table = np.random.default_rng(seed).uniform(-1.0, 1.0, (steps // hold + 1, muscles))
    return np.repeat(table, hold, axis=0)[:steps]


def jitters(starts: int, spheres: int, jitter: float = JITTER) -> np.ndarray:
    """(starts + 1, spheres, 2): the first all zeros (the unjittered start), then Gaussian in x
    and its absolute value in y (nothing starts lower than the design does)."""
    d = np.random.default_rng(123).normal(0.0, jitter, (starts + 1, spheres, 2))
    d[..., 1] = np.abs(d[..., 1])
    d[0] = 0.0
    return d


def _summary(frames: np.ndarray, mass: np.ndarray, dt: float) -> dict:
    """From positions (T + 1, starts + 1, P, 2) of the unjittered run and the others: the median
    distance at :data:`CHECKS`, and the walked distance's spread and mean."""
    far = np.sqrt(((frames[:, 1:] - frames[:, :1]) ** 2).sum(-1)).max(-1)      # (T + 1, starts)
    com = (frames[..., 0] * mass).sum(-1) / mass.sum()
    walked = com[-1] - com[0]
    return {"median_m": {s: float(np.median(far[int(round(s / dt))])) for s in CHECKS},
            "spread_m": float(walked[1:].std(ddof=1)), "mean_m": float(walked[1:].mean()),
            "unjittered_m": float(walked[0])}


def sensitivity(body: physics.Body | None = None, params: physics.SimParams | None = None, starts: int = 40,
                seconds: float = SECONDS, seed: int = 0) -> dict:
    """Our engine: :func:`_summary`'s figures for ``body`` (the reference walker)."""
    body = body or physics.examples.walker()
    params = params or physics.SimParams()
    model = physics.build_model(body, starts + 1)
    terrain = physics.Terrain.flat()
    state = physics.initial_state(model, params, physics.standing_offsets(model, terrain))
    state = physics.State(state.pos + jitters(starts, model.n_spheres), state.vel, state.muscle_len,
                          state.contact, state.time)
    T = int(round(seconds / params.dt))
    cmds = random_commands(model.n_muscles, T, seed, int(round(HOLD_SECONDS / params.dt)))
    t0 = time.perf_counter()
    _, frames = physics.rollout(model, state, np.ascontiguousarray(np.broadcast_to(cmds[:, None], (T,) + (
        model.batch, model.n_muscles))), params, terrain, every=1)
    return {"engine": "creatures", **_summary(frames, model.mass[0], params.dt),
            "seconds": time.perf_counter() - t0}


def pymunk_sensitivity(iterations: int = 10, substeps: int = 6, starts: int = 40, seconds: float = SECONDS,
                       seed: int = 0) -> dict:
    """pymunk on the same walker, commands and starts as :func:`sensitivity`."""
    from .pymunk_baseline import drive_pymunk_muscles, muscle_targets, pymunk_world
    body = physics.examples.walker()
    dt = physics.SimParams().dt
    T = int(round(seconds / dt))
    low = min(s.pos[1] - s.radius for s in body.spheres)
    offsets = jitters(starts, len(body.spheres))
    frames = np.zeros((T + 1, starts + 1, len(body.spheres), 2))
    t0 = time.perf_counter()
    for k in range(starts + 1):
        space, parts = pymunk_world(body)
        space.iterations = iterations
        for b, s, d in zip(parts["bodies"], body.spheres, offsets[k]):   # standing 1e-4 m up, as ours
            b.position = (s.pos[0] + d[0], s.pos[1] - low + 1e-4 + d[1])
        rest = parts["rest"]
        target = muscle_targets(random_commands(len(rest), T, seed, int(round(HOLD_SECONDS / dt))), rest,
                                parts["range"])
        length, max_step = rest.copy(), parts["speed"] * rest * dt
        frames[0, k] = [tuple(b.position) for b in parts["bodies"]]
        for t in range(T):
            drive_pymunk_muscles(length, target[t], max_step)
            for pin, value in zip(parts["muscles"], length):
                pin.distance = float(value)
            for _ in range(substeps):
                space.step(dt / substeps)
            frames[t + 1, k] = [tuple(b.position) for b in parts["bodies"]]
    mass = np.array([s.mass for s in body.spheres])
    return {"engine": f"pymunk {iterations} it x {substeps} substeps", **_summary(frames, mass, dt),
            "seconds": time.perf_counter() - t0}


def with_muscles(body: physics.Body, stretch: float, damping: float) -> physics.Body:
    """``body`` with every muscle's spring and dashpot set to these."""
    bones = [dataclasses.replace(b, muscle=dataclasses.replace(b.muscle, stretch=stretch, damping=damping))
             if b.muscle is not None else b for b in body.bones]
    return dataclasses.replace(body, bones=bones)


def muscle_variants(variants=((0.05, 2.0), (0.1, 1.0), (0.05, 1.0), (0.1, 2.0), (0.02, 2.0)), seeds: int = 12,
                    starts: int = 40) -> list[dict]:
    """:func:`sensitivity` of the walker with each ``(stretch, damping)``, over command tables of
    seeds 0 to ``seeds - 1``: each seed's spread and 2 s median."""
    rows = []
    for stretch, damping in variants:
        body = with_muscles(physics.examples.walker(), stretch, damping)
        runs = [sensitivity(body, starts=starts, seed=s) for s in range(seeds)]
        rows.append({"stretch": stretch, "damping": damping, "spread_m": [r["spread_m"] for r in runs],
                     "median_2s_m": [r["median_m"][2.0] for r in runs]})
    return rows


def integrity_rows(seconds: float = SECONDS, batch: int = 8, hold: int = 2) -> list[dict]:
    """Every built-in land design under random muscles (:mod:`physics.integrity`'s measures, the
    worst over every step and creature)."""
    from ..design import builtin_names, resolve_design
    params = physics.SimParams()
    terrain = physics.Terrain.flat()
    rows = []
    for name in builtin_names():
        if name in FLUID_DESIGNS:
            continue
        model = physics.build_model(resolve_design(name).body, batch)
        state = physics.initial_state(model, params, physics.standing_offsets(model, terrain))
        T = int(round(seconds / params.dt))
        table = np.random.default_rng(1).uniform(-1.0, 1.0, (T // hold + 1, batch, model.n_muscles))
        cmds = np.ascontiguousarray(np.repeat(table, hold, axis=0)[:T])
        _, frames = physics.rollout(model, state, cmds, params, terrain, every=1)
        worst = np.zeros(len(MEASURES))
        for f in frames:
            worst = np.maximum(worst, physics.integrity(model, physics.State(f, f, state.muscle_len, state.contact),
                                                        terrain).max(axis=0))
        rows.append({"design": name, "strain": float(worst[0]), "overshoot_deg": float(np.degrees(worst[1])),
                     "deepest": float(worst[2]), "finite": bool(np.isfinite(frames).all())})
    return rows


def _m(value: float) -> str:
    return f"{value:.1e} m"


def report(quick: bool = False) -> str:
    """The three tables, in markdown (``quick``: 8 starts, 3 command tables, 5 s of integrity)."""
    starts, seeds = (8, 3) if quick else (40, 12)
    ours = sensitivity(starts=starts)
    rows = [ours]
    try:
        rows.append(pymunk_sensitivity(starts=starts))
    except RuntimeError:   # pymunk missing: ours alone
        pass
    out = [f"Sensitivity: the reference walker, random commands held {HOLD_SECONDS:g} s (seed 0), {SECONDS:g} s, "
           f"{starts} starts jittered by {JITTER:g} m",
           "", "| engine | median distance from the unjittered run after 0.5 s / 1 s / 2 s | spread of the distance "
               "walked in 20 s (mean) |", "|---|---|---|"]
    for r in rows:
        med = " / ".join(_m(r["median_m"][s]) for s in CHECKS)
        out.append(f"| {r['engine']} | {med} | {r['spread_m']:.3f} m ({r['mean_m']:+.2f} m) |")
    out += ["", f"Muscles (stretch, damping): spread of the distance walked, and the 2 s median, per command "
                f"table (seeds 0-{seeds - 1})", "", "| stretch, damping | spread (m) | 2 s median (m) |", "|---|---|---|"]
    for v in muscle_variants(seeds=seeds, starts=starts):
        out.append(f"| {v['stretch']:g}, {v['damping']:g} | {' '.join(f'{x:.3f}' for x in v['spread_m'])} | "
                   f"{' '.join(f'{x:.0e}' for x in v['median_2s_m'])} |")
    out += ["", "Random muscles, new commands every 2 steps, 8 creatures per design on flat ground", "",
            "| design | worst rigid strain | hinge overshoot | deepest |", "|---|---|---|---|"]
    for r in integrity_rows(seconds=5.0 if quick else SECONDS):
        out.append(f"| {r['design']} | {100 * r['strain']:.2f} % | {r['overshoot_deg']:.2f} deg | "
                   f"{100 * r['deepest']:.1f} % of its radius |")
    return "\n".join(out)

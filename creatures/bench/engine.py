"""The physics table: our engine against pymunk on the reference walker, per core and on all
cores (the package's docstring says how both are run)."""

from __future__ import annotations

import importlib
import time

import numpy as np

import physics

from ..simulation import SINE_HZ
from .common import (BUDGET, PARAMS, POPULATIONS, PYMUNK_ITERATIONS, REPEATS, STAND_MIN_HEIGHT, STAND_SECONDS, STEPS,
                     WARMUP_STEPS, all_cores, result_row, sine_commands, window_steps)
from .pymunk_baseline import load_pymunk, time_pymunk


def first_call() -> dict:
    """Time the process's first ``physics.step`` call (numba compiles the kernel, or loads it from
    its cache). Must run before anything else steps the engine."""
    kernel = getattr(importlib.import_module("physics.step"), "_rollout_serial", None)  # B=1: serial
    model = physics.build_model(physics.examples.walker(), batch=1)
    state = physics.initial_state(model, PARAMS)
    t0 = time.perf_counter()
    physics.step(model, state, np.zeros((1, model.n_muscles)), PARAMS)
    seconds = time.perf_counter() - t0
    cache = "unknown"
    try:
        stats = kernel.stats
        cache = "hit" if sum(stats.cache_hits.values()) else ("miss" if sum(stats.cache_misses.values()) else "unknown")
    except AttributeError:
        pass
    return {"seconds": seconds, "cache": cache}


def time_creatures(population: int, steps: int = STEPS, repeats: int = REPEATS, cores: int = 1,
                   warmup: int = WARMUP_STEPS, calls: str = "rollout") -> dict:
    """Creature-steps per second of our engine on 1 numba thread (``cores=1``) or on ``cores``
    threads (at most numba's own count). ``calls``: "rollout", each window's commands (known in
    advance, as pymunk's are) in one ``physics.rollout`` call; "step", one batched
    ``physics.step`` call per step (what a brain in the loop pays)."""
    if calls not in ("rollout", "step"):
        raise ValueError(f"calls must be rollout or step, not {calls!r}")
    import numba
    threads = max(1, min(cores, numba.config.NUMBA_NUM_THREADS))
    before = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        model = physics.build_model(physics.examples.walker(), batch=population)
        cmd = sine_commands(model.n_muscles, population)
        period = cmd.shape[0]
        # on one thread the serial kernel, as the engine itself chooses when it has one thread
        parallel = None if threads > 1 else False
        state = physics.initial_state(model, PARAMS)
        if calls == "rollout":  # the kernel (loaded from numba's cache), scratch memory, caches
            state = physics.rollout(model, state, np.ascontiguousarray(cmd[np.arange(warmup) % period]),
                                    PARAMS, parallel=parallel)
        for t in range(warmup if calls == "step" else 0):
            state = physics.step(model, state, cmd[t % period], PARAMS, parallel=parallel)
        start = warmup
        times = []
        for _ in range(repeats):  # each repetition carries on where the last one stopped
            if calls == "rollout":
                window = np.ascontiguousarray(cmd[np.arange(start, start + steps) % period])
                t0 = time.perf_counter()
                state = physics.rollout(model, state, window, PARAMS, parallel=parallel)
            else:
                t0 = time.perf_counter()
                for t in range(start, start + steps):
                    state = physics.step(model, state, cmd[t % period], PARAMS, parallel=parallel)
            times.append(time.perf_counter() - t0)
            start += steps
    finally:
        numba.set_num_threads(before)
    if not np.all(np.isfinite(state.pos)):
        raise RuntimeError("our engine produced non-finite positions during the benchmark")
    row = result_row("creatures", population, cores, steps, warmup, times)
    row["threads"] = threads
    row["calls"] = calls
    return row


def creatures_walk(steps: int, driven: bool) -> np.ndarray:
    """Centre of mass (steps + 1, 2) of one walker in our engine, muscles sine-driven or at rest."""
    model = physics.build_model(physics.examples.walker(), batch=1)
    cmd = sine_commands(model.n_muscles, 1) * (1.0 if driven else 0.0)
    state = physics.initial_state(model, PARAMS)
    com = [physics.centre_of_mass(model, state)[0]]
    for t in range(steps):
        state = physics.step(model, state, cmd[t % cmd.shape[0]], PARAMS)
        com.append(physics.centre_of_mass(model, state)[0])
    return np.array(com)



def physics_rows(populations=POPULATIONS, steps: int = STEPS, repeats: int = REPEATS,
                 budget: int = BUDGET, pymunk: bool = True, cores=None,
                 warmup: int = WARMUP_STEPS) -> list[dict]:
    """Both engines at each population and core count (default: 1, and the machine's count if
    more), on the same work: :func:`window_steps` steps per window, ``warmup`` steps before,
    ``repeats`` windows. At each (cores, population) our engine is timed, then pymunk right after,
    so that the two figures of a ratio are close in time on a shared machine. Populations smaller
    than the core count are measured per core only. ``vs_pymunk`` on our rows is the ratio.
    Raises RuntimeError if pymunk is wanted and missing or fails."""
    if cores is None:
        cores = (1, all_cores()) if all_cores() > 1 else (1,)
    if pymunk:
        load_pymunk()
    rows = []
    for c in cores:
        for n in populations:
            if c > 1 and n < c:
                continue
            s = window_steps(n, steps, budget)
            ours = [time_creatures(n, s, repeats, c, warmup, calls) for calls in ("rollout", "step")]
            rows += ours
            if pymunk:
                theirs = time_pymunk(n, s, repeats, c, warmup)
                for row in ours:
                    row["vs_pymunk"] = row["creature_steps_per_s"] / theirs["creature_steps_per_s"]
                rows.append(theirs)
    return rows


def layouts(cores: int) -> dict:
    """One line per side: how each engine is laid out on ``cores`` cores."""
    if cores == 1:
        return {"creatures": "1 numba thread, the whole population batched: all the window's steps in one "
                             "physics.rollout call (rollout), or one physics.step call per step (step)",
                "pymunk": "1 process, one Space per creature, each creature stepped through all its steps in turn"}
    return {"creatures": f"{cores} numba threads, the same batched call, the population in chunks over the threads",
            "pymunk": f"{cores} processes, each with its share of the creatures stepped as on 1 core; wall time "
                      "from a barrier after warm-up to the last process's end"}


def sanity(walk, steps: int) -> dict:
    """How one walker fares: lowest centre of mass at rest and under the sine, distance walked."""
    rest = walk(round(STAND_SECONDS / PARAMS.dt), False)
    sine = walk(steps, True)
    low_rest = float(rest[:, 1].min())
    return {"com_start_m": float(rest[0, 1]), "com_min_rest_m": low_rest,
            "com_min_sine_m": float(sine[:, 1].min()), "distance_sine_m": float(sine[-1, 0] - sine[0, 0]),
            "stands": bool(low_rest > STAND_MIN_HEIGHT and np.all(np.isfinite(rest))),
            "upright_under_sine": bool(sine[:, 1].min() > STAND_MIN_HEIGHT and np.all(np.isfinite(sine)))}


def format_table(rows: list[dict], info: dict, first: dict, checks: dict, steps: int) -> str:
    body = physics.examples.walker()
    muscles = sum(b.muscle is not None for b in body.bones)
    lines = [
        f"machine: {info['cpu']}, {info['cpus']} CPUs, numba {info['numba']} ({info['threading_layer']}), "
        f"Python {info['python']}",
        f"scene: {body.name}, {len(body.spheres)} spheres, {len(body.bones)} bones ({muscles} muscles), "
        f"flat ground, {SINE_HZ:g} Hz sine muscles; dt 1/{round(1 / PARAMS.dt)} s, substeps {PARAMS.substeps}, "
        f"iterations {PARAMS.iterations} (pymunk: one step, {PYMUNK_ITERATIONS} iterations)",
        "both engines: the same warm-up, steps and repetitions at each population (pymunk's budget sets the "
        "steps); medians of the repetitions",
        f"first physics.step call: {first['seconds']:.2f} s (numba cache {first['cache']})",
    ]
    for cores in sorted({r["cores"] for r in rows}):
        lines += ["", f"{'per core' if cores == 1 else f'all {cores} cores'}:"]
        lines += [f"  {engine:<9} {layout}" for engine, layout in layouts(cores).items()]
        lines.append(f"  {'engine':<19} {'population':>10} {'creature-steps/s':>17} {'vs pymunk':>10} "
                     f"{'warm-up + steps x reps':>23} {'s/rep':>7}")
        for r in rows:
            if r["cores"] != cores:
                continue
            ratio = r.get("vs_pymunk")
            engine = r["engine"] + (f" ({r['calls']})" if "calls" in r else "")
            lines.append(f"  {engine:<19} {r['population']:>10} {r['creature_steps_per_s']:>17,.0f} "
                         f"{(f'{ratio:.1f}x' if ratio else ''):>10} "
                         f"{r['warmup_steps']:>7} + {r['steps']:>5} x {r['repeats']:<5} {r['seconds']:>7.3f}")
    lines.append("")
    for engine, c in checks.items():
        verdict = "stands at rest" if c["stands"] else "DOES NOT STAND at rest"
        verdict += ", stays up under the sine" if c["upright_under_sine"] else ", falls over under the sine"
        lines.append(f"sanity {engine:<9}: centre of mass {c['com_start_m']:.3f} m at start, lowest "
                     f"{c['com_min_rest_m']:.3f} m at rest for {STAND_SECONDS:g} s, {c['com_min_sine_m']:.3f} m "
                     f"under the sine; walked {c['distance_sine_m']:+.2f} m in {steps} steps: {verdict}")
    return "\n".join(lines)


def format_markdown(rows: list[dict]) -> str:
    """The physics table of docs/performance.md: per core first, then all cores; a ratio where both ran."""
    rate = {(r["engine"] + ("/" + r["calls"] if "calls" in r else ""), r["cores"], r["population"]): r
            for r in rows}
    lines = ["| cores | population | steps x repetitions | creatures, one rollout call (creature-steps/s) | "
             "creatures, one call per step | pymunk (creature-steps/s) | ratio | ratio, one call per step |",
             "|---|---|---|---|---|---|---|---|"]
    for cores, population in sorted({(r["cores"], r["population"]) for r in rows}):
        roll, step = (rate.get((f"creatures/{calls}", cores, population)) for calls in ("rollout", "step"))
        theirs = rate.get(("pymunk", cores, population))
        any_ = roll or step or theirs
        cells = [str(cores), f"{population:,}", f"{any_['steps']:,} x {any_['repeats']}",
                 f"{roll['creature_steps_per_s']:,.0f}" if roll else "",
                 f"{step['creature_steps_per_s']:,.0f}" if step else "",
                 f"{theirs['creature_steps_per_s']:,.0f}" if theirs else "",
                 f"{roll['vs_pymunk']:.1f}x" if roll and "vs_pymunk" in roll else "",
                 f"{step['vs_pymunk']:.1f}x" if step and "vs_pymunk" in step else ""]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)



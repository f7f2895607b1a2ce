"""The physics table: our engine against pymunk on the reference walker, per core and on all
cores (the package's docstring says how both are run), pymunk at its default and at the rigidity
ours holds (``pymunk-rigid``), and the worst rigid-bone strain each engine holds
(:func:`strain_rows`), so that a ratio can be read against what each side's skeleton does."""

from __future__ import annotations

import importlib
import time

import numpy as np

import physics

from ..simulation import SINE_HZ
from .common import (BUDGET, KICK_DROP, KICK_HOLD, KICK_STEPS, KICK_WALKERS, PARAMS, POPULATIONS, PYMUNK_ITERATIONS,
                     PYMUNK_RIGID_SUBSTEPS, PYMUNK_SUBSTEPS, REPEATS, STAND_MIN_HEIGHT, STAND_SECONDS, STEPS,
                     WARMUP_STEPS, all_cores, kick_commands, kick_offsets, ratio_key, result_row, sine_commands,
                     window_steps)
from .pymunk_baseline import load_pymunk, pymunk_strain, time_pymunk


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
                 warmup: int = WARMUP_STEPS, rigid: bool = True) -> list[dict]:
    """Both engines at each population and core count (default: 1, and the machine's count if
    more), on the same work: :func:`window_steps` steps per window, ``warmup`` steps before,
    ``repeats`` windows. At each (cores, population) our engine is timed, then pymunk right after
    and (``rigid``) pymunk-rigid after it, so that the figures of a ratio are close in time on a
    shared machine. Populations smaller than the core count are measured per core only.
    ``vs_pymunk`` and ``vs_pymunk_rigid`` on our rows are the ratios. Raises RuntimeError if
    pymunk is wanted and missing or fails."""
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
            for engine in ("pymunk", "pymunk-rigid") if pymunk and rigid else ("pymunk",) if pymunk else ():
                theirs = time_pymunk(n, s, repeats, c, warmup, engine)
                for row in ours:
                    row[ratio_key(engine)] = row["creature_steps_per_s"] / theirs["creature_steps_per_s"]
                rows.append(theirs)
    return rows


def creatures_strain(commands: np.ndarray, offsets: np.ndarray) -> float:
    """The worst rigid-bone strain of walkers in our engine at the default settings
    (:func:`physics.integrity`'s measure, read after every step): creature ``k`` from the rest
    pose shifted by ``offsets[k]`` ((B, 2), m), driven by ``commands[:, k]`` ((T, B, M)), in one
    batch. NaN if a position went non-finite."""
    model = physics.build_model(physics.examples.walker(), batch=commands.shape[1])
    state = physics.initial_state(model, PARAMS, offset=offsets)
    _, frames = physics.rollout(model, state, np.ascontiguousarray(commands), PARAMS, every=1)
    worst = [physics.integrity(model, physics.State(f, f, state.muscle_len, state.contact))[:, 0]
             for f in frames[1:]]
    return float(np.max(worst))


def strain_rows(steps: int = STEPS, engines=("creatures", "pymunk", "pymunk-rigid"),
                kick_steps: int = KICK_STEPS, kick_walkers: int = KICK_WALKERS) -> dict:
    """The worst rigid-bone strain each engine holds on the reference walker, measured now,
    under the same commands on every side (a second or two; pymunk-rigid is most of it):

    - ``strain_sine``: one walker from its rest pose under the table's sine for ``steps`` steps
      (the work the table times);
    - ``strain_kicking``: ``kick_walkers`` walkers dropped from :data:`~.common.KICK_DROP` m,
      every muscle a new random sign every :data:`~.common.KICK_HOLD` steps, for ``kick_steps``
      steps (tests/physics/test_integrity.py's honest body kicking hard).

    Returns ``{engine: {"strain_sine": float, "strain_kicking": float, "strain_seconds": float,
    "strain_sine_steps": steps, "strain_kicking_walkers": kick_walkers, "strain_kicking_steps":
    kick_steps}}`` for each of ``engines`` ("creatures", "pymunk", "pymunk-rigid"); relative
    strains, 0.01 is 1 %."""
    muscles = sum(b.muscle is not None for b in physics.examples.walker().bones)
    sine = sine_commands(muscles, 1)
    cases = {"strain_sine": (np.ascontiguousarray(sine[np.arange(steps) % sine.shape[0]]), np.zeros((1, 2))),
             "strain_kicking": (kick_commands(muscles, kick_walkers, kick_steps), kick_offsets(kick_walkers))}
    out = {}
    for engine in engines:
        t0 = time.perf_counter()
        if engine == "creatures":
            out[engine] = {k: creatures_strain(cmd, off) for k, (cmd, off) in cases.items()}
        elif engine in PYMUNK_SUBSTEPS:
            out[engine] = {k: pymunk_strain(cmd, off, PYMUNK_SUBSTEPS[engine]) for k, (cmd, off) in cases.items()}
        else:
            raise ValueError(f"no strain measure for engine {engine!r}")
        out[engine].update({"strain_seconds": time.perf_counter() - t0, "strain_sine_steps": steps,
                            "strain_kicking_walkers": kick_walkers, "strain_kicking_steps": kick_steps})
    return out


def _strain_cases(strains: dict) -> tuple[str, str]:
    """What the two strain cases were, in words, from :func:`strain_rows`' figures."""
    r = next(iter(strains.values()))
    return (f"the table's sine ({r['strain_sine_steps']} steps from the rest pose)",
            f"kicking ({r['strain_kicking_walkers']} walkers dropped {KICK_DROP:g} m, random signs every "
            f"{KICK_HOLD} steps, {r['strain_kicking_steps']} steps)")


def strain_lines(strains: dict) -> list[str]:
    """The strain check, a line per engine (``strains`` from :func:`strain_rows`)."""
    lines = ["worst rigid-bone strain, measured in this run on the same walkers under the same commands: "
             + "; ".join(_strain_cases(strains))]
    for engine, r in strains.items():
        lines.append(f"  {engine:<13} {100 * r['strain_sine']:>6.2f} % under the sine, "
                     f"{100 * r['strain_kicking']:>6.2f} % kicking  ({settings(engine)})")
    return lines


def settings(engine: str) -> str:
    """An engine's solver settings in words, for the tables."""
    if engine in PYMUNK_SUBSTEPS:
        n = PYMUNK_SUBSTEPS[engine]
        return (f"{PYMUNK_ITERATIONS} iterations, " + ("one space.step a step" if n == 1 else
                f"{n} substeps: space.step(dt/{n}) {n} times a step"))
    return f"the defaults: {PARAMS.substeps} substeps, the skeleton solved exactly"


def layouts(cores: int) -> dict:
    """One line per side: how each engine is laid out on ``cores`` cores."""
    rigid = (f"as pymunk, each step taken as {PYMUNK_RIGID_SUBSTEPS} space.step(dt/{PYMUNK_RIGID_SUBSTEPS}) "
             f"calls (its bones held to tenths of a percent, as ours)")
    if cores == 1:
        return {"creatures": "1 numba thread, the whole population batched: all the window's steps in one "
                             "physics.rollout call (rollout), or one physics.step call per step (step)",
                "pymunk": "1 process, one Space per creature, each creature stepped through all its steps in turn",
                "pymunk-rigid": rigid}
    return {"creatures": f"{cores} numba threads, the same batched call, the population in chunks over the threads",
            "pymunk": f"{cores} processes, each with its share of the creatures stepped as on 1 core; wall time "
                      "from a barrier after warm-up to the last process's end",
            "pymunk-rigid": rigid}


def sanity(walk, steps: int) -> dict:
    """How one walker fares: lowest centre of mass at rest and under the sine, distance walked."""
    rest = walk(round(STAND_SECONDS / PARAMS.dt), False)
    sine = walk(steps, True)
    low_rest = float(rest[:, 1].min())
    return {"com_start_m": float(rest[0, 1]), "com_min_rest_m": low_rest,
            "com_min_sine_m": float(sine[:, 1].min()), "distance_sine_m": float(sine[-1, 0] - sine[0, 0]),
            "stands": bool(low_rest > STAND_MIN_HEIGHT and np.all(np.isfinite(rest))),
            "upright_under_sine": bool(sine[:, 1].min() > STAND_MIN_HEIGHT and np.all(np.isfinite(sine)))}


def format_table(rows: list[dict], info: dict, first: dict, checks: dict, steps: int,
                 strains: dict | None = None) -> str:
    """The physics table as ``creatures bench`` prints it: per core, then all cores, our rows
    with their ratios against pymunk and pymunk-rigid; the sanity checks, and (``strains``, from
    :func:`strain_rows`) the worst strain each engine held."""
    body = physics.examples.walker()
    muscles = sum(b.muscle is not None for b in body.bones)
    lines = [
        f"machine: {info['cpu']} (compiled for {info['compiled_for']}, {info['vector_bits']}-bit vectors), "
        f"{info['cpus']} CPUs, numba {info['numba']} ({info['threading_layer']}), "
        f"Python {info['python']}",
        f"scene: {body.name}, {len(body.spheres)} spheres, {len(body.bones)} bones ({muscles} muscles), "
        f"flat ground, {SINE_HZ:g} Hz sine muscles; dt 1/{round(1 / PARAMS.dt)} s, substeps {PARAMS.substeps}, "
        f"iterations {PARAMS.iterations} (pymunk: {settings('pymunk')}; pymunk-rigid: {settings('pymunk-rigid')})",
        "both engines: the same warm-up, steps and repetitions at each population (pymunk's budget sets the "
        "steps); medians of the repetitions",
        f"first physics.step call: {first['seconds']:.2f} s (numba cache {first['cache']})",
    ]
    for cores in sorted({r["cores"] for r in rows}):
        present = {r["engine"] for r in rows if r["cores"] == cores}
        lines += ["", f"{'per core' if cores == 1 else f'all {cores} cores'}:"]
        lines += [f"  {engine:<12} {layout}" for engine, layout in layouts(cores).items() if engine in present]
        lines.append(f"  {'engine':<19} {'population':>10} {'creature-steps/s':>17} {'vs pymunk':>10} "
                     f"{'vs rigid':>9} {'warm-up + steps x reps':>23} {'s/rep':>7}")
        for r in rows:
            if r["cores"] != cores:
                continue
            ratios = [r.get(ratio_key(engine)) for engine in PYMUNK_SUBSTEPS]
            engine = r["engine"] + (f" ({r['calls']})" if "calls" in r else "")
            lines.append(f"  {engine:<19} {r['population']:>10} {r['creature_steps_per_s']:>17,.0f} "
                         f"{(f'{ratios[0]:.1f}x' if ratios[0] else ''):>10} "
                         f"{(f'{ratios[1]:.1f}x' if ratios[1] else ''):>9} "
                         f"{r['warmup_steps']:>7} + {r['steps']:>5} x {r['repeats']:<5} {r['seconds']:>7.3f}")
    lines.append("")
    if strains:
        lines += strain_lines(strains) + [""]
    for engine, c in checks.items():
        verdict = "stands at rest" if c["stands"] else "DOES NOT STAND at rest"
        verdict += ", stays up under the sine" if c["upright_under_sine"] else ", falls over under the sine"
        lines.append(f"sanity {engine:<12}: centre of mass {c['com_start_m']:.3f} m at start, lowest "
                     f"{c['com_min_rest_m']:.3f} m at rest for {STAND_SECONDS:g} s, {c['com_min_sine_m']:.3f} m "
                     f"under the sine; walked {c['distance_sine_m']:+.2f} m in {steps} steps: {verdict}")
    return "\n".join(lines)


def format_markdown(rows: list[dict], strains: dict | None = None) -> str:
    """The physics table of docs/performance.md: per core first, then all cores; the ratios
    against pymunk and pymunk-rigid where both ran; and (``strains``, from :func:`strain_rows`)
    the worst strain each engine held, a table of its own."""
    rate = {(r["engine"] + ("/" + r["calls"] if "calls" in r else ""), r["cores"], r["population"]): r
            for r in rows}
    lines = ["| cores | population | steps x repetitions | creatures, one rollout call (creature-steps/s) | "
             "creatures, one call per step | pymunk (creature-steps/s) | pymunk-rigid (creature-steps/s) | "
             "ratio vs pymunk | ratio vs pymunk-rigid | one call per step: vs pymunk | vs pymunk-rigid |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for cores, population in sorted({(r["cores"], r["population"]) for r in rows}):
        roll, step = (rate.get((f"creatures/{calls}", cores, population)) for calls in ("rollout", "step"))
        theirs = [rate.get((engine, cores, population)) for engine in PYMUNK_SUBSTEPS]
        any_ = roll or step or next(filter(None, theirs))
        cells = [str(cores), f"{population:,}", f"{any_['steps']:,} x {any_['repeats']}"]
        cells += [f"{r['creature_steps_per_s']:,.0f}" if r else "" for r in [roll, step] + theirs]
        cells += [f"{ours[ratio_key(engine)]:.1f}x" if ours and ratio_key(engine) in ours else ""
                  for ours in (roll, step) for engine in PYMUNK_SUBSTEPS]
        lines.append("| " + " | ".join(cells) + " |")
    if strains:
        sine, kicking = _strain_cases(strains)
        lines += ["", f"| engine | settings | worst rigid-bone strain, {sine} | {kicking} |", "|---|---|---|---|"]
        lines += [f"| {engine} | {settings(engine)} | {100 * r['strain_sine']:.2f} % | "
                  f"{100 * r['strain_kicking']:.2f} % |"
                  for engine, r in strains.items()]
    return "\n".join(lines)

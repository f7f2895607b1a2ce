"""Measure the engine against pymunk, side by side, on the reference walker.

Both engines simulate the same creature (``physics.examples.walker()``: 8 spheres, 14 bones of which
6 are muscles, ground contact, dt 1/60) with the same sine-driven muscle commands, for several
population sizes, and report creature-steps per second. Both do the same work: at each population
the same warm-up (untimed), the same number of steps in the measured window, the same number of
repetitions, and the median of them reported. And on the same cores, twice:

- per core: our engine on 1 numba thread against pymunk in 1 process;
- all cores (``os.cpu_count()``): our engine on that many numba threads against pymunk in that many
  processes, the population split between them, each process stepping its own creatures (wall
  time from a barrier that every process reaches after its warm-up to the end of the last one).

Our engine steps the whole population in one batched ``physics.step`` call per step. pymunk gets
the usual treatment, the way its users evaluate a population: one Space per creature, each creature
stepped through all its steps before the next (which keeps one Space in the cache: at 1000
creatures about twice as fast as stepping every Space once per step, 1.6x at 150), with muscles as
pin joints whose length is set every step. The first ``physics.step`` call of the process is timed on its own: it compiles the
numba kernels, or loads them from the cache next to the sources.

Then a whole generation (``creatures/_bench_generation.py``): 150 walker genomes on the run task,
20 simulated seconds each, sensors + networks + physics on 2 cores, through the evaluator of
``creatures evolve``; against the same work done the usual way, pymunk for the body, neat-python's
``activate`` for the brain and its ``ParallelEvaluator`` for the two cores. Targets: at most
0.5 s per generation, and at least 10x the baseline. And end to end: whole generations of a real
``evolution.run.Run`` (breeding, speciation, evaluation, statistics, files) against neat-python's
``Population.run`` over the same baseline evaluation; targets: at most 15 % of a generation's
wall time outside evaluation, and at least 10x the baseline end to end.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import math
import multiprocessing as mp
import os
import platform
import queue
import statistics
import sys
import time

import numpy as np

import physics

from . import _bench_generation as generation

EXAMPLES = """examples:
  creatures bench                              populations 1, 150 and 1000 per core and on all
                                               cores, medians of 3, a whole generation against
                                               the baseline, and whole generations of evolution
                                               end to end against neat-python's (~3 min)
  creatures bench --quick                      shorter runs, one repetition; shorter generation
                                               and end-to-end benchmarks (~1 min)
  creatures bench --no-generation --markdown   the README's physics table
  creatures bench --json                       the same as a JSON list of rows
  creatures bench --populations 1,150 --steps 600 --repeats 5
  creatures bench --no-pymunk                  our engine only (no pymunk, no baseline generation)
  creatures bench --no-generation              the physics rows only
  creatures bench --tasks                      what a task written in pure numpy costs a generation
  creatures bench --bodies                     a generation of evolving bodies against fixed ones
  creatures bench --medium                     a generation in water or air against the ground
  creatures bench --env                        env-steps/s of the Gymnasium environment
"""

#: the benchmark's configuration: the engine's defaults (the report names their step, substeps
#: and iterations)
PARAMS = physics.SimParams()
#: pymunk as its users run it: one step a frame with its default 10 solver iterations
PYMUNK_ITERATIONS = 10
POPULATIONS = (1, 150, 1000)
STEPS = 1200
REPEATS = 3
#: untimed steps before the clock starts, for either engine (pymunk allocates in its first steps,
#: our engine its per-model scratch memory)
WARMUP_STEPS = 10
#: every muscle is driven by a sine of this frequency, phases spread evenly over the muscles
SINE_HZ = 1.0
#: pymunk costs ~8-25 us per creature-step on one core: above this many creature-steps per
#: repetition both engines run fewer steps (the same number; never below MIN_STEPS), which keeps
#: pymunk's window at a few seconds
BUDGET = 300_000
MIN_STEPS = 60
#: --quick: one repetition and a smaller budget
QUICK_REPEATS = 1
QUICK_BUDGET = 30_000
#: sanity: with muscles at rest for STAND_SECONDS the walker's centre of mass must stay above this
STAND_SECONDS = 3.0
STAND_MIN_HEIGHT = 0.4
#: pymunk's ground: a static segment this far either side of the origin, at height 0
GROUND_HALF_LENGTH = 1000.0
#: a pymunk worker process that has not reported after this many seconds is given up on
WORKER_TIMEOUT = 1800.0


def all_cores() -> int:
    """The machine's core count, the ``cores`` of the all-cores rows."""
    return os.cpu_count() or 1


def window_steps(population: int, steps: int = STEPS, budget: int = BUDGET) -> int:
    """Steps per creature in each measured window, for both engines: ``steps``, fewer at large
    populations so that a window is at most ``budget`` creature-steps, never fewer than MIN_STEPS
    (unless ``steps`` itself is)."""
    return min(steps, max(MIN_STEPS, budget // population))
# ---------------------------------------------------------------------------------------------
# muscle commands, shared by both engines


def sine_period(dt: float = PARAMS.dt, hz: float = SINE_HZ) -> int:
    """Steps per period of the sine commands (60 at 1 Hz and 60 steps per second)."""
    period = round(1.0 / (hz * dt))
    if abs(period * hz * dt - 1.0) > 1e-9:
        raise ValueError(f"the sine of {hz} Hz does not repeat after a whole number of steps of {dt} s")
    return period


def sine_commands(n_muscles: int, population: int, dt: float = PARAMS.dt) -> np.ndarray:
    """One period of the commands, shape (period, B, M), C-contiguous: muscle m of every creature
    gets ``sin(2 pi f t + 2 pi m / M)``; step t uses row ``t % period``."""
    period = sine_period(dt)
    t = np.arange(period)[:, None] * dt
    phase = 2.0 * np.pi * np.arange(n_muscles)[None, :] / max(n_muscles, 1)
    one = np.sin(2.0 * np.pi * SINE_HZ * t + phase)                      # (period, M)
    return np.ascontiguousarray(np.broadcast_to(one[:, None, :], (period, population, n_muscles)))


# ---------------------------------------------------------------------------------------------
# our engine


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
    row = _row("creatures", population, cores, steps, warmup, times)
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


# ---------------------------------------------------------------------------------------------
# pymunk, the usual way


def _pymunk():
    try:
        import pymunk
    except ImportError as exc:
        raise RuntimeError("pymunk is not installed, so there is no baseline to compare with "
                           "(pip install 'pymunk==6.9', or run 'creatures bench --no-pymunk')") from exc
    return pymunk


def pymunk_walker(space, body_def: physics.Body) -> dict:
    """Add one creature described by ``body_def`` to a pymunk ``space``; return its parts.

    Each sphere is a body (mass, moment of a circle) with a circle shape (radius, friction, no
    bounce); a pinned sphere is a static body. A rigid bone is a PinJoint between the centres,
    a compliant bone a DampedSpring of stiffness 1 / compliance; a muscle is the same constraint
    with its length set every step (see :func:`drive_pymunk_muscles`) and its force capped at its
    strength. A rigid cluster is a PinJoint between every pair of its spheres. Without
    self-collision the creature's shapes share one ShapeFilter group; with it, only spheres joined
    by a bone are kept from colliding, as in our engine. Joints (angle limits and springs between
    two bones) have no pymunk counterpart and are refused.

    Returns ``{"bodies": [...], "muscles": [constraint per muscle], "attr": [name of the length
    attribute per muscle], "rest": (M,) rest lengths, "range": (M,), "speed": (M,)}``.
    """
    pymunk = _pymunk()
    if body_def.joints:
        raise NotImplementedError(f"{body_def.name}: joints have no pymunk counterpart in this benchmark")
    group = None if body_def.self_collision else pymunk.ShapeFilter(group=1)
    bodies = []
    for s in body_def.spheres:
        if s.fixed:
            b = pymunk.Body(body_type=pymunk.Body.STATIC)
        else:
            b = pymunk.Body(s.mass, pymunk.moment_for_circle(s.mass, 0.0, s.radius))
        b.position = s.pos
        shape = pymunk.Circle(b, s.radius)
        shape.friction = s.friction
        shape.elasticity = s.restitution
        if group is not None:
            shape.filter = group
        space.add(b, shape)
        bodies.append(b)

    def link(i, j, rest=None, compliance=0.0):
        a, c = bodies[i], bodies[j]
        if rest is None:
            rest = math.dist(body_def.spheres[i].pos, body_def.spheres[j].pos)
        if compliance > 0.0:
            con = pymunk.DampedSpring(a, c, (0, 0), (0, 0), rest, 1.0 / compliance, 0.0)
            attr = "rest_length"
        else:
            con = pymunk.PinJoint(a, c, (0, 0), (0, 0))
            con.distance = rest
            attr = "distance"
        con.collide_bodies = False
        space.add(con)
        return con, attr, rest

    muscles, attrs, rest, rng, speed = [], [], [], [], []
    for bone in body_def.bones:
        con, attr, r = link(bone.a, bone.b, bone.rest, bone.compliance)
        if bone.muscle is not None:
            con.max_force = bone.muscle.strength
            muscles.append(con)
            attrs.append(attr)
            rest.append(r)
            rng.append(bone.muscle.range)
            speed.append(bone.muscle.speed)
    for cluster in body_def.clusters:
        members = cluster.spheres
        for k, i in enumerate(members):
            for j in members[k + 1:]:
                link(i, j)
    return {"bodies": bodies, "muscles": muscles, "attr": attrs, "rest": np.array(rest),
            "range": np.array(rng), "speed": np.array(speed)}


def pymunk_world(body_def: physics.Body):
    """A pymunk Space set up like our engine's world, with one creature in it."""
    pymunk = _pymunk()
    space = pymunk.Space()
    space.gravity = (0.0, -PARAMS.gravity)
    space.iterations = PYMUNK_ITERATIONS
    # pymunk's default slop (0.1) assumes pixels; in metres it would let a foot sink 10 cm
    space.collision_slop = PARAMS.contact_slop
    ground = pymunk.Segment(space.static_body, (-GROUND_HALF_LENGTH, 0.0), (GROUND_HALF_LENGTH, 0.0), 0.0)
    ground.friction = 1.0  # pymunk multiplies the two frictions: the sphere's own applies
    ground.elasticity = 0.0
    space.add(ground)
    return space, pymunk_walker(space, body_def)


def muscle_targets(cmd: np.ndarray, rest: np.ndarray, rng: np.ndarray) -> np.ndarray:
    """The lengths the commands ask for, ``rest * (1 + cmd * range)`` (commands clipped to [-1, 1],
    NaN read as 0), for a whole command table at once."""
    return rest * (1.0 + np.clip(np.nan_to_num(cmd), -1.0, 1.0) * rng)


def drive_pymunk_muscles(length: np.ndarray, target: np.ndarray, max_step: np.ndarray) -> None:
    """Move muscle lengths (B, M) toward ``target`` by at most ``max_step`` (``speed * rest * dt``),
    in place: the same rate limit as ``physics.bones.drive_muscles``."""
    move = target - length
    np.minimum(move, max_step, out=move)
    np.maximum(move, -max_step, out=move)
    length += move


class PymunkCreatures:
    """``population`` copies of a body, one pymunk Space each, their muscles driven by the sine
    commands (or held at rest) for ``steps`` steps. :meth:`run` is the benchmark's hot loop.

    Every creature gets the same commands, so the rate-limited muscle lengths of every step are
    computed once, up front, with numpy (command generation is not what is measured, which is
    generous to the baseline); setting them on the pin joints is the part a pymunk user cannot
    avoid, and is timed."""

    def __init__(self, body_def: physics.Body, population: int, steps: int, driven: bool = True):
        worlds = [pymunk_world(body_def) for _ in range(population)]
        self.spaces = [space for space, _ in worlds]
        self.parts = [parts for _, parts in worlds]
        self.pins = [parts["muscles"] for parts in self.parts]
        first = self.parts[0]
        if any(attr != "distance" for attr in first["attr"]):
            raise NotImplementedError("the benchmark's pymunk loop drives pin-joint muscles only")
        rest = first["rest"]
        cmd = sine_commands(len(rest), 1)[:, 0] * (1.0 if driven else 0.0)     # (period, M)
        target = muscle_targets(cmd, rest, first["range"])
        max_step = first["speed"] * rest * PARAMS.dt
        length = rest.copy()
        lengths = []
        for t in range(steps):
            drive_pymunk_muscles(length, target[t % target.shape[0]], max_step)
            lengths.append(length.tolist())
        #: (steps, M) the muscle lengths of each step, as Python floats
        self.lengths = lengths

    def run(self, start: int, stop: int) -> None:
        """Steps ``start`` to ``stop - 1`` of every creature: each creature through all of them,
        then the next (each step: the muscles' pin lengths, then ``space.step``)."""
        dt = PARAMS.dt
        lengths = self.lengths[start:stop]
        for space, pins in zip(self.spaces, self.pins):
            step = space.step
            for row in lengths:
                for pin, d in zip(pins, row):
                    pin.distance = d
                step(dt)

    def finite(self) -> bool:
        return all(math.isfinite(b.position.x) and math.isfinite(b.position.y)
                   for parts in self.parts for b in parts["bodies"])


def pymunk_share(creatures: int, steps: int, repeats: int, warmup: int = WARMUP_STEPS,
                 barrier=None, results=None) -> dict:
    """One process's part of the pymunk side: build ``creatures`` Spaces, step each through
    ``warmup`` untimed steps, then ``repeats`` windows of ``steps`` steps, each window started
    right after ``barrier`` (shared by every process of the run, if given).

    Returns (and puts on ``results``, if given) ``{"pid", "creatures", "steps", "warmup_steps",
    "spans": [(start, end) per window, time.perf_counter(), a system-wide clock], "finite"}``."""
    pop = PymunkCreatures(physics.examples.walker(), creatures, warmup + repeats * steps)
    pop.run(0, warmup)
    spans = []
    start = warmup
    for _ in range(repeats):  # each repetition carries on where the last one stopped
        if barrier is not None:
            barrier.wait(WORKER_TIMEOUT)
        t0 = time.perf_counter()
        pop.run(start, start + steps)
        spans.append((t0, time.perf_counter()))
        start += steps
    report = {"pid": os.getpid(), "creatures": creatures, "steps": steps, "warmup_steps": warmup,
              "spans": spans, "finite": pop.finite()}
    if results is not None:
        results.put(report)
    return report


def shares(population: int, processes: int) -> list[int]:
    """Creatures per process: ``population`` split as evenly as it goes over at most ``processes``."""
    processes = max(1, min(processes, population))
    q, r = divmod(population, processes)
    return [q + (i < r) for i in range(processes)]


def _pymunk_processes(population: int, steps: int, repeats: int, processes: int, warmup: int) -> list[dict]:
    """:func:`pymunk_share` in ``processes`` spawned processes; their reports."""
    ctx = mp.get_context("spawn")  # as evolution's workers: no fork of a process running numba threads
    parts = shares(population, processes)
    barrier = ctx.Barrier(len(parts))
    results = ctx.Queue()
    procs = [ctx.Process(target=pymunk_share, args=(n, steps, repeats, warmup, barrier, results), daemon=True)
             for n in parts]
    for p in procs:
        p.start()
    reports = []
    deadline = time.monotonic() + WORKER_TIMEOUT
    try:
        while len(reports) < len(procs):
            try:
                reports.append(results.get(timeout=0.5))
            except queue.Empty:
                dead = [p for p in procs if p.exitcode not in (None, 0)]
                if dead or time.monotonic() > deadline:
                    why = f"exit code {dead[0].exitcode}" if dead else f"no report in {WORKER_TIMEOUT:g} s"
                    raise RuntimeError(f"a pymunk worker process failed ({why})") from None
    finally:
        if len(reports) < len(procs):
            barrier.abort()
        for p in procs:
            p.join(timeout=10)
            if p.is_alive():
                p.terminate()
                p.join()
    return reports


def time_pymunk(population: int, steps: int = STEPS, repeats: int = REPEATS, cores: int = 1,
                warmup: int = WARMUP_STEPS) -> dict:
    """Creature-steps per second of pymunk: one Space per creature, each creature stepped through
    all its steps in turn, each muscle's pin length set every step; in this process
    (``cores=1``), or the population split over ``cores`` spawned processes, each window timed
    from the barrier before it to the end of the last process."""
    if cores == 1:
        reports = [pymunk_share(population, steps, repeats, warmup)]
    else:
        reports = _pymunk_processes(population, steps, repeats, cores, warmup)
    if not all(r["finite"] for r in reports):
        raise RuntimeError("pymunk produced non-finite positions during the benchmark")
    windows = [max(r["spans"][i][1] for r in reports) - min(r["spans"][i][0] for r in reports)
               for i in range(repeats)]
    row = _row("pymunk", population, cores, steps, warmup, windows)
    row["processes"] = len(reports)
    row["workers"] = [{"pid": r["pid"], "creatures": r["creatures"], "steps": r["steps"],
                       "warmup_steps": r["warmup_steps"]} for r in reports]
    return row


def pymunk_walk(steps: int, driven: bool) -> np.ndarray:
    """Centre of mass (steps + 1, 2) of one walker in pymunk, muscles sine-driven or at rest."""
    pop = PymunkCreatures(physics.examples.walker(), 1, steps, driven)
    bodies = pop.parts[0]["bodies"]
    mass = np.array([b.mass for b in bodies])

    def com():
        return mass @ np.array([tuple(b.position) for b in bodies]) / mass.sum()

    out = [com()]
    for t in range(steps):
        pop.run(t, t + 1)
        out.append(com())
    return np.array(out)


# ---------------------------------------------------------------------------------------------
# report


def _row(engine: str, population: int, cores: int, steps: int, warmup: int, times: list[float]) -> dict:
    seconds = statistics.median(times)
    return {"work": "physics", "engine": engine, "population": population, "cores": cores,
            "creature_steps_per_s": population * steps / seconds,
            "steps": steps, "warmup_steps": warmup, "repeats": len(times), "statistic": "median",
            "seconds": seconds, "dt": PARAMS.dt,
            "substeps": PARAMS.substeps if engine != "pymunk" else 1,
            "iterations": PARAMS.iterations if engine != "pymunk" else PYMUNK_ITERATIONS}


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
        _pymunk()
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


def machine() -> dict:
    """Where the benchmark ran."""
    import numba
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            names = [line.split(":", 1)[1].strip() for line in f if line.startswith("model name")]
        cpu = names[0] if names else cpu
    except OSError:
        pass
    try:
        layer = numba.threading_layer()
    except ValueError:
        layer = "not started"
    return {"cpu": cpu, "cpus": os.cpu_count(), "numba_threads": numba.get_num_threads(),
            "threading_layer": layer, "python": platform.python_version(), "numba": numba.__version__}


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
    """The README's physics table: per core first, then all cores; a ratio where both ran."""
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


def _populations(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma-separated list of integers: {text!r}") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError("populations must be positive integers")
    return values


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, 1 or more, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value


def add_arguments(parser) -> None:
    parser.add_argument("--populations", type=_populations, default=list(POPULATIONS),
                        help="comma-separated population sizes (default 1,150,1000)")
    parser.add_argument("--steps", type=_positive, default=STEPS,
                        help=f"steps per creature and window (default {STEPS}; both engines run fewer at "
                             f"large populations, at most {BUDGET:,} creature-steps per window)")
    parser.add_argument("--repeats", type=_positive, default=None,
                        help=f"repetitions per figure, the median is reported (default {REPEATS})")
    parser.add_argument("--quick", action="store_true",
                        help=f"physics: {QUICK_REPEATS} repetition and at most {QUICK_BUDGET:,} "
                             f"creature-steps per window; whole generation: {generation.QUICK_GENERATIONS} of "
                             f"ours, 1 of {generation.QUICK_BASELINE_GENOMES} genomes for the baseline; end to "
                             f"end: {generation.QUICK_END_TO_END_GENERATIONS} generations of ours, "
                             f"{generation.QUICK_BASELINE_END_TO_END_GENERATIONS} of the baseline (the first "
                             "of each not timed)")
    parser.add_argument("--no-pymunk", action="store_true",
                        help="time our engine only (also skips the generation baseline)")
    parser.add_argument("--no-generation", action="store_true",
                        help="skip the whole-generation and end-to-end benchmarks")
    parser.add_argument("--generations", type=_positive, default=None,
                        help="whole generation: our generations timed after the first (default "
                             f"{generation.GENERATIONS}, with --quick {generation.QUICK_GENERATIONS}); "
                             f"the baseline times {generation.BASELINE_GENERATIONS} (with --quick 1 of "
                             f"{generation.QUICK_BASELINE_GENOMES} genomes, scaled to "
                             f"{generation.POPULATION})")
    parser.add_argument("--viewer", action="store_true",
                        help="only the viewer's frame time (1 and 10 racing walkers at 1280x720, offscreen), and the "
                             "editor on a 40-sphere design, and the game's evolution screen with a run of 150 walkers "
                             "evolving in the background")
    parser.add_argument("--bodies", action="store_true",
                        help="instead: whole generations of the walker whose legs evolve against the "
                             "fixed walker (end to end, alternating rounds)")
    parser.add_argument("--medium", action="store_true",
                        help="instead: whole generations of the eel swimming and the bird flying against "
                             "the same creatures running on the ground (end to end, alternating rounds)")
    parser.add_argument("--json", action="store_true", help="print a JSON list of rows instead")
    parser.add_argument("--markdown", action="store_true",
                        help="print the physics rows as the README's markdown table instead (no "
                             "whole generation)")
    parser.add_argument("--tasks", action="store_true",
                        help="instead: a generation with the built-in run task against the same task in "
                             "pure numpy and the example flag task (what a plug-in task costs)")
    parser.add_argument("--env", action="store_true",
                        help="instead: env-steps/s of the Gymnasium environment, single and vectorised "
                             "(needs gymnasium)")
    parser.add_argument("--solvers", action="store_true",
                        help="instead: Witkin vs PBD solvers and DEM vs PBD contacts on their scenes "
                             "(markdown tables; --quick for a tenth of the simulated time)")


def run(args) -> int:
    if getattr(args, "solvers", False):
        from . import _bench_solvers
        if args.json:
            print(json.dumps(_bench_solvers.solver_rows(args.quick) + _bench_solvers.pile_rows(args.quick), indent=2))
        else:
            print(_bench_solvers.report(args.quick))
        return 0
    if getattr(args, "env", False):
        from ._bench_envs import format_env_speed, measure_env_speed
        result = measure_env_speed(steps=100 if args.quick else 300)
        if args.json:
            rows = [{"work": "env", "engine": "CreatureEnv", "num_envs": 1, "env_steps_per_s": result["single"]}]
            rows += [{"work": "env", "engine": "CreatureVectorEnv", "num_envs": n, "env_steps_per_s": v}
                     for n, v in result["vector"].items()]
            rows += [{"work": "env", "engine": "SyncVectorEnv", "num_envs": n, "env_steps_per_s": v}
                     for n, v in result["sync"].items()]
            print(json.dumps(rows, indent=2))
        else:
            print(format_env_speed(result))
        return 0
    for flag, measure, fmt in (("bodies", generation.run_bodies, generation.format_bodies),
                               ("medium", generation.run_media, generation.format_media)):
        if getattr(args, flag, False):  # whole generations side by side, with the machine
            rows = measure(args.quick)
            info = machine()
            for r in rows:
                r.update(info)
            print(json.dumps(rows, indent=2) if args.json else fmt(rows))
            return 0
    if getattr(args, "tasks", False):
        from ._bench_tasks import format_tasks, run_tasks
        rows = run_tasks(args.quick)
        print(json.dumps(rows, indent=2) if args.json else format_tasks(rows))
        return 0
    if args.viewer:
        from ._bench_viewer import (PLAY_SECONDS, format_editor, format_play, format_viewer, run_editor_bench,
                                    run_play_bench, run_viewer_bench)
        rows = run_viewer_bench()
        editor_rows = run_editor_bench()
        play_rows = run_play_bench(seconds=5.0 if args.quick else PLAY_SECONDS)
        print(json.dumps(rows + editor_rows + play_rows, indent=2) if args.json
              else "\n\n".join((format_viewer(rows), format_editor(editor_rows), format_play(play_rows))))
        return 0
    first = first_call()  # before anything else steps the engine
    repeats = args.repeats or (QUICK_REPEATS if args.quick else REPEATS)
    budget = QUICK_BUDGET if args.quick else BUDGET
    checks = {}
    try:
        rows = physics_rows(args.populations, args.steps, repeats, budget, pymunk=not args.no_pymunk)
    except RuntimeError as exc:  # pymunk missing or failed: our engine alone
        print(f"creatures bench: {exc}", file=sys.stderr)
        rows = physics_rows(args.populations, args.steps, repeats, budget, pymunk=False)
    checks["creatures"] = sanity(creatures_walk, args.steps)
    if any(r["engine"] == "pymunk" for r in rows):
        checks["pymunk"] = sanity(pymunk_walk, args.steps)
    for r in rows:
        r["first_call_s"] = first["seconds"]
        r["first_call_cache"] = first["cache"]
        r["layout"] = layouts(r["cores"])[r["engine"]]
        r.update(checks.get(r["engine"], {}))
    gen_rows, end_rows = [], []
    if not args.no_generation and not args.markdown:
        baseline = not args.no_pymunk and importlib.util.find_spec("pymunk") is not None
        gen_rows = generation.run_generation(args.quick, baseline=baseline, generations=args.generations)
        end_rows = generation.run_end_to_end(args.quick, baseline=baseline)
    info = machine()
    if args.markdown:
        print(format_markdown(rows))
    elif args.json:
        for r in rows + gen_rows + end_rows:
            r.update(info)
        print(json.dumps(rows + gen_rows + end_rows, indent=2))
    else:
        print(format_table(rows, info, first, checks, args.steps))
        if gen_rows:
            print()
            print(generation.format_generation(gen_rows))
        if end_rows:
            print()
            print(generation.format_end_to_end(end_rows))
    for engine, c in checks.items():
        if not c["stands"]:
            print(f"creatures bench: WARNING: the {engine} walker does not stand (lowest centre of mass "
                  f"{c['com_min_rest_m']:.3f} m with muscles at rest)", file=sys.stderr)
    return 0

"""The whole-generation part of ``creatures bench``: one generation of evolution, timed end to end.

The work: 150 walker genomes on the run task, 20 simulated seconds (1200 steps) each, sensors +
networks + physics, on 2 cores. The genomes come from ``neat.Population`` and are mutated a few
times each, so their networks have hidden nodes, as in a mid-run generation.

- **creatures**: ``evolution.evaluator.Evaluator(episode, neat_text, "feedforward", workers=2)``,
  the code path of ``creatures evolve``: two spawned worker processes, each compiling its half of
  the genomes into batched networks and running one batched rollout. The first generation
  includes starting the workers (spawn, imports, numba's cache) and is reported on its own; the
  figure is the median of the generations after it.
- **baseline**, the usual way: ``neat.ParallelEvaluator(2, eval_genome)``; ``eval_genome(genome,
  config)`` builds the walker in pymunk (one Space per creature, ``bench.pymunk_world``), makes
  ``neat.nn.FeedForwardNetwork.create(genome, config)`` and for 1200 steps computes the same
  inputs as ``evolution.sensors`` in plain Python, calls ``net.activate``, moves the muscle pins
  toward the commanded lengths with the engine's rate limit, steps the Space, and returns the
  distance the centre of mass travelled. Plain Python rather than numpy per creature: with 8
  spheres numpy's per-call cost makes the inputs slower (measured ~47 us a step against ~18).
  Ground contact is read geometrically (a sphere within the contact slop of the flat ground),
  cheaper than asking pymunk's arbiters. The pool is started before the clock starts, as the
  workers of our engine are. With ``quick``, one generation of the first 50 genomes is timed and
  scaled to 150 (each genome is its own task, so the cost is linear in their number).
- **baseline-rigid**: the same baseline with each 1/60 s step taken as
  :data:`~.common.PYMUNK_RIGID_SUBSTEPS` calls of ``space.step(dt / 6)``, pymunk near the
  rigidity ours holds (the physics table's ``pymunk-rigid``; at its default pymunk stretches the
  walker's rigid bones many times as far, as the physics table's strain check shows): the
  like-for-like ratio. The same genomes, starts, pool and timing; the network and the muscles'
  pins once a step, as ours.

Both sides do the default evaluation of ``creatures evolve`` (:mod:`evolution.trials`, the defaults
of ``RunSettings``): each genome scored from the generation's trial starts (the design's start
with every sphere moved by the trials' noise; the same starts on both sides), the trials made one
fitness by the trials' statistic, and the generation's best scored again from
:data:`~evolution.trials.POST_STARTS` fresh starts. Ours scores those beside the next
generation's creatures, in the same batches, as ``creatures evolve`` does (a generation here
is the population's trials and, beside them, the best before's fresh starts: the same genomes
every generation, so the same best; in a run, an elite that stays the best is not scored
again, on either side's account here). The baseline runs each trial as a pymunk episode of its
own, the post-evaluation's trials spread over its pool, as an expert user of neat-python would
write it.

End to end (:func:`run_end_to_end`): whole generations of evolution, breeding and speciation
included, on the same work (150 walker genomes, 20 s each, 2 workers, seed 0, the run's default neat
config):

- **creatures**: an ``evolution.run.Run`` in a temporary directory evolving its generations, as
  ``creatures evolve`` does (checkpoints, statistics and champions written); each generation's
  wall time (stats.csv's ``wall_seconds``: from the end of the one before, breeding, speciation,
  evaluation, statistics and files) and its evaluation time (``eval_seconds``); the first
  generation (worker start-up, the first population) is left out, the medians of the rest
  reported, and the share of the wall time that is not evaluation.
- **neat-python+pymunk**: neat-python's ``Population.run(ParallelEvaluator(2, eval_genome).evaluate,
  n)`` over the baseline's ``eval_genome``, with the same config (neat's own ``DefaultGenome``
  breeding and measuring distances; the species settings the run uses), each generation timed
  from a reporter's ``start_generation`` to its ``end_generation`` (evaluation, breeding,
  speciation), the evaluation inside it timed around ``ParallelEvaluator.evaluate``.

Both report the fitness of the same genomes: the best distance of each and the rank correlation
are printed as a sanity check (the physics differ, so they agree only roughly). Also reported:
the cores other processes used while the generations were timed (the machine may be shared),
and our generations once more with the chunks sent to the evaluator's pool directly (without
``Evaluator.evaluate``'s progress reports and bookkeeping).
"""

from __future__ import annotations

import math
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

import physics
from evolution.trials import POST_STARTS

from .common import PYMUNK_RIGID_SUBSTEPS, ratio_key

POPULATION = 150
SECONDS = 20.0
WORKERS = 2
TASK = "run"
DESIGN = "walker"
#: each genome of the initial population is mutated this many times (~3 hidden nodes each)
MUTATIONS = 20
SEED = 0
#: our engine: generations timed after the first (which includes starting the workers)
GENERATIONS = 7
QUICK_GENERATIONS = 5
#: the baseline: generations timed, and how many of the genomes (the rest is scaled up)
BASELINE_GENERATIONS = 2
QUICK_BASELINE_GENERATIONS = 1
QUICK_BASELINE_GENOMES = 50
#: end to end: generations our run evolves (the first, with the workers' start-up, not timed)
#: and generations of the baseline's Population.run (the first, with its pool's, not timed)
END_TO_END_GENERATIONS = 8
QUICK_END_TO_END_GENERATIONS = 3
BASELINE_END_TO_END_GENERATIONS = 3
QUICK_BASELINE_END_TO_END_GENERATIONS = 2
#: the baselines of the generation table: engine -> ``space.step`` calls per 1/60 s step
BASELINES = {"baseline": 1, "baseline-rigid": PYMUNK_RIGID_SUBSTEPS}
#: the issue's targets (against the baseline at pymunk's default, and at equal rigidity)
TARGET_SECONDS = 0.5
TARGET_RATIO = 10.0
TARGET_RIGID_RATIO = 20.0
#: end to end: at most this share of a generation's wall time outside evaluation
TARGET_NON_EVAL_SHARE = 0.15


# ---------------------------------------------------------------------------------------------
# the work


def trial_starts(spheres: int, generation: int = 1, seed: int = SEED) -> dict:
    """The default evaluation of generation ``generation`` of a run of ``seed``, as ``creatures
    evolve`` does it: ``{"spec": Trials, "starts": (K, P, 2) offsets or None (one exact start),
    "post": (POST_STARTS, P, 2) offsets}`` (:mod:`evolution.trials`)."""
    from evolution.trials import (DEFAULT_NOISE, DEFAULT_STATISTIC, DEFAULT_TRIALS, Trials, post_seeds,
                                  start_offsets, trial_seeds)

    spec = Trials(DEFAULT_TRIALS, DEFAULT_NOISE, DEFAULT_STATISTIC)
    starts = None if spec.exact else start_offsets(trial_seeds(spec, seed, generation), spec.noise, spheres)
    post = start_offsets(post_seeds(seed), spec.noise or DEFAULT_NOISE, spheres)
    return {"spec": spec, "starts": starts, "post": post}


def setup(population: int = POPULATION, seconds: float = SECONDS, mutations: int = MUTATIONS,
          seed: int = SEED):
    """The episode, the neat config (text and object) and ``population`` mutated genomes. The
    global ``random`` (neat draws from it) is left as it was."""
    import neat

    from creatures.design import resolve_design
    from evolution.genomes import load_neat_config, neat_config_text
    from evolution.rollout import Episode

    design = resolve_design(DESIGN)
    episode = Episode.make(design.body, TASK, seconds=seconds)
    neat_text = neat_config_text(episode.n_inputs(), episode.n_outputs(), population)
    with tempfile.TemporaryDirectory() as tmp:
        config = load_neat_config(neat_text, Path(tmp) / "neat.cfg")
    saved = random.getstate()
    try:
        pop = neat.Population(config, seed=seed)
        genomes = [pop.population[k] for k in sorted(pop.population)]
        for genome in genomes:
            for _ in range(mutations):
                genome.mutate(config.genome_config)
    finally:
        random.setstate(saved)
    return episode, neat_text, config, genomes


def network_sizes(genomes, n_outputs: int) -> dict:
    hidden = [len(g.nodes) - n_outputs for g in genomes]
    links = [sum(c.enabled for c in g.connections.values()) for g in genomes]
    return {"mean_hidden_nodes": float(np.mean(hidden)), "mean_enabled_links": float(np.mean(links))}


# ---------------------------------------------------------------------------------------------
# the machine is shared: how much of it did other processes use while we measured?


def _busy_seconds() -> float:
    """CPU seconds the whole machine has spent busy (Linux: /proc/stat)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:9]]
    return (sum(v) - v[3] - v[4]) / os.sysconf("SC_CLK_TCK")


def _own_seconds() -> float:
    """CPU seconds of this process, its reaped children and its live descendants."""
    tick = os.sysconf("SC_CLK_TCK")
    procs = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            procs[int(entry)] = (int(fields[1]), [int(x) for x in fields[11:15]])
    me = os.getpid()
    total = sum(procs[me][1]) if me in procs else 0
    tree = {me}
    grew = True
    while grew:
        grew = False
        for pid, (ppid, times) in procs.items():
            if ppid in tree and pid not in tree:
                tree.add(pid)
                total += times[0] + times[1]
                grew = True
    return total / tick


class OtherLoad:
    """Cores used by other processes during a ``with`` block (None where /proc is missing)."""

    cores: float | None = None

    def __enter__(self):
        try:
            self._start = (time.perf_counter(), _busy_seconds(), _own_seconds())
        except (OSError, ValueError, IndexError):
            self._start = None
        return self

    def __exit__(self, *exc):
        if self._start is not None:
            try:
                wall, busy, own = self._start
                wall = time.perf_counter() - wall
                others = (_busy_seconds() - busy) - (_own_seconds() - own)
                self.cores = max(0.0, others / wall) if wall > 0 else None
            except (OSError, ValueError, IndexError):
                self.cores = None


# ---------------------------------------------------------------------------------------------
# our engine: the evaluator of `creatures evolve`


def time_creatures(episode, neat_text: str, genomes, generations: int = GENERATIONS,
                   workers: int = WORKERS) -> dict:
    """Seconds per generation of ``evolution.evaluator.Evaluator`` (the first generation, with
    worker start-up, timed on its own).

    Alternating with those generations, the same chunks are also submitted to the evaluator's
    pool directly and awaited with ``concurrent.futures.wait``: the difference is the cost of
    ``Evaluator.evaluate``'s own bookkeeping (progress reports, gathering results)."""
    from evolution.chunks import pack_genome
    from evolution.evaluator import Evaluator

    packed = [pack_genome(g) for g in genomes]   # as `creatures evolve` sends them to its workers
    trials = trial_starts(len(episode.body.spheres))
    spec, starts, post = trials["spec"], trials["starts"], trials["post"]

    def generation(best):   # the generation's trials, and beside them the best before's fresh starts
        return evaluator.evaluate(packed, starts=starts, statistic=spec.statistic, also=(packed[best], post))

    times, unpolled = [], []
    t0 = time.perf_counter()
    with Evaluator(episode, neat_text, "feedforward", workers=workers) as evaluator:
        first = evaluator.evaluate(packed, starts=starts, statistic=spec.statistic)
        best = int(np.argmax(first.fitness))   # (the same genomes every generation: the same best)
        alone = evaluator.evaluate([packed[best]], starts=post).trials[0]
        first_seconds = time.perf_counter() - t0
        with OtherLoad() as other:
            for _ in range(generations):
                t0 = time.perf_counter()
                result = generation(best)
                times.append(time.perf_counter() - t0)
                if not (np.array_equal(result.fitness, first.fitness) and np.array_equal(result.also, alone)):
                    raise RuntimeError("the evaluator scored the same genomes differently in two generations")
                if evaluator.pool is not None:
                    t0 = time.perf_counter()
                    fitness = _evaluate_unpolled(evaluator, packed, starts, spec.statistic, (packed[best], post))
                    unpolled.append(time.perf_counter() - t0)
                    if not np.array_equal(fitness, first.fitness):
                        raise RuntimeError("the evaluator's chunks scored the genomes differently")
    seconds = statistics.median(times)
    return {"work": "generation", "engine": "creatures", "seconds_per_generation": seconds,
            "population": len(packed), "steps": episode.steps, "workers": workers,
            "generations_timed": len(times), "times_s": times, "first_generation_s": first_seconds,
            "startup_s": max(0.0, first_seconds - seconds),
            "unpolled_seconds_per_generation": statistics.median(unpolled) if unpolled else None,
            "unpolled_times_s": unpolled, "fitness": first.fitness,
            "failed": int(first.failed.sum()), "other_processes_cores": other.cores,
            "trials": spec.describe()}


def _evaluate_unpolled(evaluator, genomes: list, starts=None, statistic: str = "mean", also=None) -> np.ndarray:
    """What ``evaluator.evaluate`` does with a pool, minus its 0.1 s polling: the fitness."""
    from concurrent.futures import wait

    from evolution.evaluator import evaluate_in_worker
    from evolution.chunks import creature_chunks, gather

    chunks = creature_chunks(genomes, starts, evaluator.workers, also)
    futures = [evaluator.pool.submit(evaluate_in_worker, part, creatures) for part, creatures in chunks]
    wait(futures)
    return gather([f.result() for f in futures], 0.0, 1 if starts is None else len(starts), statistic,
                  0 if also is None else len(also[1])).fitness


# ---------------------------------------------------------------------------------------------
# the baseline: pymunk + neat-python's activate + ParallelEvaluator

#: set once per worker process by _init_baseline
_SETUP: dict | None = None


def baseline_setup(episode, substeps: int = 1) -> dict:
    """What every baseline evaluation needs besides the genome: the body, the start offset and the
    sensors' constants, as our engine defines them (computed once, not timed), and ``substeps``,
    the ``space.step`` calls per step (1: pymunk's default; :data:`BASELINES`)."""
    from evolution.sensors import MAX_SPEED

    body = episode.body
    if body.joints:
        raise NotImplementedError(f"{body.name}: the baseline has no joint-angle inputs")
    if episode.task.name != "run" or episode.terrain.kind != "flat":
        raise NotImplementedError("the baseline runs the run task on flat ground only")
    model = physics.build_model(body, 1)
    sensors = episode.context(model)
    muscles = [b for b in body.bones if b.muscle is not None]
    mass = [s.mass for s in body.spheres]
    msum = sum(mass)
    rx = sum(m * s.pos[0] for m, s in zip(mass, body.spheres)) / msum
    ry = sum(m * s.pos[1] for m, s in zip(mass, body.spheres)) / msum
    return {"body": body, "steps": episode.steps, "dt": episode.sim.dt, "substeps": substeps,
            "offset": physics.standing_offset(model, episode.terrain),
            "clock_hz": sensors.clock_hz, "size": sensors.body_size, "rest_height": sensors.rest_height,
            "max_speed": MAX_SPEED, "contact_tol": episode.sim.contact_slop,
            "muscles": [((b.a, b.b), float(r0), float(rg)) for b, r0, rg in
                        zip(muscles, model.muscle_rest[0], model.muscle_range[0])],
            "radius": [s.radius for s in body.spheres], "mass": mass, "msum": msum,
            "mq": [(m * (s.pos[0] - rx), m * (s.pos[1] - ry)) for m, s in zip(mass, body.spheres)]}


def _init_baseline(setup_: dict) -> None:
    global _SETUP
    _SETUP = setup_


def sense(s: dict, time_: float, pos, vel) -> list[float]:
    """The inputs of ``evolution.sensors`` for one creature (positions and velocities as lists of
    (x, y)), in plain Python: clock, muscle lengths, ground contacts, orientation, centre of mass."""
    phase = 2.0 * math.pi * s["clock_hz"] * time_
    inputs = [math.sin(phase), math.cos(phase)]
    for (a, c), r0, rg in s["muscles"]:                                    # muscle lengths
        inputs.append((math.dist(pos[a], pos[c]) / r0 - 1.0) / rg)
    tol = s["contact_tol"]
    for p, r in zip(pos, s["radius"]):                                     # ground contacts
        inputs.append(1.0 if p[1] - r <= tol else 0.0)
    cx = cy = vx = vy = 0.0                                                # centre of mass
    for m, p, v in zip(s["mass"], pos, vel):
        cx += m * p[0]
        cy += m * p[1]
        vx += m * v[0]
        vy += m * v[1]
    msum = s["msum"]
    cx /= msum
    cy /= msum
    sn = cs = 0.0                                                          # orientation
    for (qx, qy), p in zip(s["mq"], pos):
        px, py = p[0] - cx, p[1] - cy
        sn += qx * py - qy * px
        cs += qx * px + qy * py
    norm = math.hypot(sn, cs)
    inputs += [sn / norm, cs / norm] if norm > 0.0 else [0.0, 1.0]
    inputs.append(cy / s["rest_height"])                                   # flat ground at 0
    size, top = s["size"], s["max_speed"]
    inputs.append(min(top, max(-top, vx / msum / size)))
    inputs.append(min(top, max(-top, vy / msum / size)))
    return inputs


def eval_trial(genome, config, offsets=None) -> float:
    """Distance the walker driven by ``genome`` travels in pymunk from the design's start moved by
    ``offsets`` (one (x, y) a sphere; None: not moved): one episode, one creature, each step's
    muscles set once and then ``space.step`` called ``substeps`` times (the setup's)."""
    import neat

    from evolution.tasks import WORST_FITNESS

    from .pymunk_baseline import pymunk_world

    s = _SETUP
    space, parts = pymunk_world(s["body"])
    bodies, pins = parts["bodies"], parts["muscles"]
    ox, oy = s["offset"]
    for k, b in enumerate(bodies):
        x, y = b.position
        dx, dy = (0.0, 0.0) if offsets is None else offsets[k]
        b.position = (x + ox + dx, y + oy + dy)
    net = neat.nn.FeedForwardNetwork.create(genome, config)

    dt, steps = s["dt"], s["steps"]
    substeps = range(s["substeps"])
    h = dt / s["substeps"]   # dt itself at one substep
    mass = [b.mass for b in bodies]
    msum = sum(mass)
    rest = parts["rest"].tolist()
    rng = parts["range"].tolist()
    max_step = (parts["speed"] * parts["rest"] * dt).tolist()
    length = list(rest)

    def com_x():
        return sum(m * b.position[0] for m, b in zip(mass, bodies)) / msum

    start = com_x()
    for t in range(steps):
        inputs = sense(s, t * dt, [b.position for b in bodies], [b.velocity for b in bodies])
        outputs = net.activate(inputs)
        for k, c in enumerate(outputs):                                   # muscles, rate-limited
            if c != c:
                c = 0.0
            c = min(1.0, max(-1.0, c))
            step_ = rest[k] * (1.0 + c * rng[k]) - length[k]
            length[k] += min(max_step[k], max(-max_step[k], step_))
            pins[k].distance = length[k]
        for _ in substeps:
            space.step(h)
    distance = com_x() - start
    return distance if math.isfinite(distance) else WORST_FITNESS


def eval_genome(genome, config, starts=None, statistic: str = "mean") -> float:
    """The usual neat-python fitness function, one creature at a time: ``genome``'s distance from
    each start of ``starts`` (lists of per-sphere offsets; None: once, from the exact start) made
    one by ``statistic``; the worst fitness if any trial failed, as ours."""
    from evolution.tasks import WORST_FITNESS

    if starts is None:
        return eval_trial(genome, config)
    values = [eval_trial(genome, config, offsets) for offsets in starts]
    if WORST_FITNESS in values:
        return WORST_FITNESS
    return {"mean": statistics.fmean, "min": min, "median": statistics.median}[statistic](values)


def evaluate_baseline(pool, genomes, config, trials: dict, timeout=None) -> None:
    """One generation of the baseline, as ``neat.ParallelEvaluator.evaluate`` hands genomes to its
    pool (``apply_async`` each, then ``get`` each), with the generation's trial starts: sets each
    genome's fitness."""
    starts = None if trials["starts"] is None else trials["starts"].tolist()
    jobs = [pool.apply_async(eval_genome, (genome, config, starts, trials["spec"].statistic))
            for _, genome in genomes]
    for job, (_, genome) in zip(jobs, genomes):
        genome.fitness = job.get(timeout=timeout)


def post_evaluate_baseline(pool, genomes, config, trials: dict, timeout=None) -> list[float]:
    """The generation's best genome from the post-evaluation's fresh starts, a trial a task."""
    best = max((genome for _, genome in genomes), key=lambda g: g.fitness)
    jobs = [pool.apply_async(eval_trial, (best, config, offsets)) for offsets in trials["post"].tolist()]
    return [job.get(timeout=timeout) for job in jobs]


def time_baseline(episode, config, genomes, generations: int = BASELINE_GENERATIONS,
                  workers: int = WORKERS, population: int = POPULATION, engine: str = "baseline") -> dict:
    """Seconds per generation of the baseline (:func:`evaluate_baseline` on the pool of a
    ``neat.ParallelEvaluator(workers, eval_genome)``) over ``genomes``, scaled to ``population``
    genomes if fewer were given (the post-evaluation, the same for any population, unscaled).
    ``engine``: "baseline" (pymunk at its default) or "baseline-rigid" (:data:`BASELINES`' substeps)."""
    import neat

    if engine not in BASELINES:
        raise ValueError(f"engine must be one of {', '.join(BASELINES)}, not {engine!r}")
    bench_setup = baseline_setup(episode, BASELINES[engine])
    trials = trial_starts(len(episode.body.spheres))
    pairs = [(g.key, g) for g in genomes]
    times, post_times = [], []
    fitness = None
    with neat.ParallelEvaluator(workers, eval_genome, initializer=_init_baseline,
                                initargs=(bench_setup,)) as evaluator, OtherLoad() as other:
        for _ in range(generations):
            for g in genomes:
                g.fitness = None
            t0 = time.perf_counter()
            evaluate_baseline(evaluator.pool, pairs, config, trials)
            t1 = time.perf_counter()
            post_evaluate_baseline(evaluator.pool, pairs, config, trials)
            times.append(t1 - t0)
            post_times.append(time.perf_counter() - t1)
            f = np.array([g.fitness for g in genomes], dtype=float)
            if fitness is not None and not np.array_equal(f, fitness):
                raise RuntimeError("the baseline scored the same genomes differently in two generations")
            fitness = f
    measured = statistics.median(times)
    scale = population / len(genomes)
    return {"work": "generation", "engine": engine, "substeps": BASELINES[engine],
            "seconds_per_generation": measured * scale + statistics.median(post_times),
            "population": population, "steps": episode.steps, "workers": workers,
            "generations_timed": len(times), "times_s": times, "post_times_s": post_times,
            "genomes_timed": len(genomes), "scaled_by": scale, "fitness": fitness,
            "other_processes_cores": other.cores, "trials": trials["spec"].describe()}


# ---------------------------------------------------------------------------------------------
# the benchmark


def run_generation(quick: bool = False, baseline: bool = True, generations: int | None = None,
                   population: int = POPULATION, seconds: float = SECONDS, workers: int = WORKERS) -> list[dict]:
    """Rows ``{"work": "generation", "engine": ..., "seconds_per_generation": ...}`` for our
    engine and (unless ``baseline`` is False) the baseline and baseline-rigid (:data:`BASELINES`),
    each timed right after the one before, our row's ``vs_baseline`` and ``vs_baseline_rigid``
    the ratios, with a sanity comparison. ``population``, ``seconds`` and ``workers`` are the
    work's (the defaults the benchmark's; tests make it tiny)."""
    episode, neat_text, config, genomes = setup(population, seconds)
    sizes = network_sizes(genomes, episode.n_outputs())
    ours = time_creatures(episode, neat_text, genomes,
                          generations or (QUICK_GENERATIONS if quick else GENERATIONS), workers)
    rows = [ours]
    for engine in BASELINES if baseline else ():
        n = min(QUICK_BASELINE_GENOMES, len(genomes)) if quick else len(genomes)
        base = time_baseline(episode, config, genomes[:n],
                             QUICK_BASELINE_GENERATIONS if quick else BASELINE_GENERATIONS,
                             workers, population=len(genomes), engine=engine)
        rows.append(base)
        key = ratio_key(engine)
        ratio = base["seconds_per_generation"] / ours["seconds_per_generation"]
        ours[key] = ratio
        if engine == "baseline":
            ours["meets_ratio_target"] = bool(ratio >= TARGET_RATIO)
        else:
            ours["meets_rigid_ratio_target"] = bool(ratio >= TARGET_RIGID_RATIO)
        if ours["unpolled_seconds_per_generation"]:
            ours["unpolled_" + key] = base["seconds_per_generation"] / ours["unpolled_seconds_per_generation"]
    ours["meets_time_target"] = bool(ours["seconds_per_generation"] <= TARGET_SECONDS)
    for r in rows:
        r.update(sizes)
        r.update({"design": DESIGN, "task": TASK, "simulated_s": episode.seconds})
    _compare(rows)
    for r in rows:
        del r["fitness"]
    return rows


def _compare(rows: list[dict]) -> None:
    """Best distance (and the genome scoring it) of each engine over the genomes all scored, and
    the rank correlation of each baseline's fitness with ours (on the baseline's row; ours holds
    the first baseline's): the physics differ, so only roughly alike."""
    n = min(len(r["fitness"]) for r in rows)
    for r in rows:
        f = r["fitness"][:n]
        best = int(np.argmax(f))
        r.update({"compared_genomes": n, "best_distance_m": float(f[best]), "best_genome_index": best,
                  "mean_distance_m": float(np.mean(f)), "median_distance_m": float(np.median(f))})
    ours = np.argsort(np.argsort(rows[0]["fitness"][:n]))
    for r in rows[1:]:
        theirs = np.argsort(np.argsort(r["fitness"][:n]))
        r["rank_correlation"] = float(np.corrcoef(ours, theirs)[0, 1]) if n > 2 else float("nan")
    if len(rows) > 1:
        rows[0]["rank_correlation"] = rows[1]["rank_correlation"]


def format_generation(rows: list[dict]) -> str:
    """The whole-generation table: our row with its ratio against each baseline, the targets, the
    sanity comparison."""
    ours = rows[0]
    lines = [
        f"whole generation: {ours['population']} {ours['design']} genomes on the {ours['task']} task, "
        f"{ours['simulated_s']:g} s ({ours['steps']} steps) each, sensors + networks + physics, "
        f"{ours['workers']} workers; networks {ours['mean_hidden_nodes']:.1f} hidden nodes, "
        f"{ours['mean_enabled_links']:.0f} enabled links on average; all sides: {ours['trials']}, then the "
        f"best from {POST_STARTS} fresh starts",
        "",
        f"{'work':<11} {'engine':<14} {'s/generation':>12} {'vs baseline':>11} {'vs rigid':>8} {'others':>6}  how",
    ]
    for r in rows:
        ratios = [r.get(ratio_key(engine)) for engine in BASELINES]
        if r["engine"] == "creatures":
            how = (f"evolution.evaluator.Evaluator; median of {r['generations_timed']} after a first "
                   f"generation of {r['first_generation_s']:.2f} s (worker start-up ~{r['startup_s']:.2f} s)")
        else:
            substeps = r.get("substeps", 1)
            how = ("pymunk" + (f" at {substeps} substeps a step" if substeps > 1 else "")
                   + " + neat activate + ParallelEvaluator; "
                   + (f"median of {r['generations_timed']} generations" if r["generations_timed"] > 1
                      else "1 generation")
                   + (f" of {r['genomes_timed']} genomes, x {r['scaled_by']:.2f} (the post-evaluation not scaled)"
                      if r["scaled_by"] != 1 else ""))
        others = r.get("other_processes_cores")
        lines.append(f"{r['work']:<11} {r['engine']:<14} {r['seconds_per_generation']:>12.3f} "
                     f"{(f'{ratios[0]:.1f}x' if ratios[0] else ''):>11} "
                     f"{(f'{ratios[1]:.1f}x' if ratios[1] else ''):>8} "
                     f"{('' if others is None else f'{others:.2f}'):>6}  {how}")
    lines.append("others: cores used by other processes while the generations were timed (of "
                 f"{os.cpu_count()}); above ~0.2 the figures are disturbed, re-run")
    lines.append("")
    verdict = [f"{ours['seconds_per_generation']:.3f} s per generation "
               f"({'meets' if ours['meets_time_target'] else 'MISSES'} the target of <= {TARGET_SECONDS:g} s)"]
    if "vs_baseline" in ours:
        verdict.append(f"{ours['vs_baseline']:.1f}x the baseline "
                       f"({'meets' if ours['meets_ratio_target'] else 'MISSES'} the target of >= {TARGET_RATIO:g}x)")
    if "vs_baseline_rigid" in ours:
        verdict.append(f"{ours['vs_baseline_rigid']:.1f}x baseline-rigid "
                       f"({'meets' if ours['meets_rigid_ratio_target'] else 'MISSES'} the target of >= "
                       f"{TARGET_RIGID_RATIO:g}x)")
    lines.append("targets: " + "; ".join(verdict))
    if ours.get("unpolled_seconds_per_generation"):
        vs = [f"{ours[k]:.1f}x {engine}" for engine in BASELINES if (k := "unpolled_" + ratio_key(engine)) in ours]
        lines.append(f"without the Evaluator's bookkeeping (progress, result gathering): the same chunks "
                     f"sent to the pool directly took {ours['unpolled_seconds_per_generation']:.3f} s per "
                     f"generation" + (f" ({', '.join(vs)})" if vs else ""))
    for r in rows:
        lines.append(f"sanity {r['engine']:<14}: over the first {r['compared_genomes']} genomes best distance "
                     f"{r['best_distance_m']:+.2f} m (genome {r['best_genome_index']}), median "
                     f"{r['median_distance_m']:+.2f} m"
                     + (f", {r['failed']} failed" if r.get("failed") else ""))
    if len(rows) > 1:
        lines.append("sanity: rank correlation of our distances with "
                     + ", ".join(f"{r['engine']}'s {r['rank_correlation']:+.2f}" for r in rows[1:])
                     + " (the physics differ: alike only roughly)")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# end to end: whole generations of evolution, breeding and speciation included


def _end_to_end_row(engine: str, wall: list[float], evaluation: list[float], first: float,
                    population: int, steps: int, workers: int, other) -> dict:
    """A ``generation_end_to_end`` row from per-generation wall and evaluation times (the first
    generation left out when there are more)."""
    timed = slice(1, None) if len(wall) > 1 else slice(None)
    wall, evaluation = wall[timed], evaluation[timed]
    non_eval = [w - e for w, e in zip(wall, evaluation)]
    return {"work": "generation_end_to_end", "engine": engine,
            "wall_seconds": statistics.median(wall), "eval_seconds": statistics.median(evaluation),
            "non_eval_seconds": statistics.median(non_eval),
            "non_eval_share": sum(non_eval) / sum(wall) if sum(wall) > 0 else float("nan"),
            "generations_timed": len(wall), "wall_times_s": wall, "eval_times_s": evaluation,
            "first_generation_s": first, "population": population, "steps": steps, "workers": workers,
            "statistic": "median", "other_processes_cores": other.cores}


def time_run_end_to_end(generations: int = END_TO_END_GENERATIONS, population: int = POPULATION,
                        seconds: float = SECONDS, workers: int = WORKERS, seed: int = SEED,
                        design_name: str = DESIGN, task: str = TASK) -> dict:
    """Our end to end: an ``evolution.run.Run`` evolving ``generations`` generations in a
    temporary directory; wall and evaluation time per generation from its statistics (stats.csv's
    ``wall_seconds`` and ``eval_seconds``)."""
    from creatures.design import resolve_design
    from evolution.run import Run, RunSettings

    design = resolve_design(design_name)
    settings = RunSettings(design_name=design.name, design_text=design.text, task=task, seconds=seconds,
                           generations=generations, population=population, seed=seed, workers=workers)
    stats = []
    saved = random.getstate(), np.random.get_state()
    try:
        with tempfile.TemporaryDirectory() as tmp, OtherLoad() as other:
            run = Run.create(Path(tmp) / "run", settings, design.body, design.genes)
            run.evolve(on_generation=stats.append)
    finally:
        random.setstate(saved[0])
        np.random.set_state(saved[1])
    row = _end_to_end_row("creatures", [s.wall_seconds for s in stats], [s.eval_seconds for s in stats],
                          stats[0].wall_seconds, population, run.episode.steps, workers, other)
    row.update({"species": [s.species for s in stats], "best_fitness": max(s.best for s in stats),
                "how": "evolution.run.Run"})
    return row


def _generation_clock():
    """A neat reporter noting when each generation starts and ends (``Population.run`` calls
    ``start_generation`` before the evaluation and ``end_generation`` after the speciation)."""
    import neat

    class GenerationClock(neat.reporting.BaseReporter):
        def __init__(self):
            self.starts, self.ends, self.species = [], [], []

        def start_generation(self, generation):
            self.starts.append(time.perf_counter())

        def end_generation(self, config, population, species_set):
            self.ends.append(time.perf_counter())
            self.species.append(len(species_set.species))

    return GenerationClock()


def baseline_neat_config(episode, population: int = POPULATION):
    """The run's default neat config with neat-python's own genome: its breeding and its
    distances (our faster, bit-identical ones off); the same species settings as the run."""
    import neat

    from evolution.breeding import FAST
    from evolution.genomes import load_neat_config, neat_config_text

    with tempfile.TemporaryDirectory() as tmp:
        config = load_neat_config(neat_config_text(episode.n_inputs(), episode.n_outputs(), population),
                                  Path(tmp) / "neat.cfg")
    config.genome_type = neat.DefaultGenome
    setattr(config.genome_config, FAST, False)
    return config


def time_baseline_end_to_end(episode, generations: int = BASELINE_END_TO_END_GENERATIONS,
                             population: int = POPULATION, workers: int = WORKERS, seed: int = SEED) -> dict:
    """The baseline end to end: ``neat.Population(config).run(evaluate, generations)``, where
    ``evaluate`` scores a generation on the pool of a ``ParallelEvaluator(workers, eval_genome)``
    from the generation's own trial starts and post-evaluates its best
    (:func:`evaluate_baseline`, :func:`post_evaluate_baseline`); each generation timed by a
    reporter."""
    import neat

    config = baseline_neat_config(episode, population)
    bench_setup = baseline_setup(episode)
    clock = _generation_clock()
    evaluation = []
    saved = random.getstate()
    try:
        with neat.ParallelEvaluator(workers, eval_genome, initializer=_init_baseline,
                                    initargs=(bench_setup,)) as evaluator:
            def evaluate(genomes, config):
                t0 = time.perf_counter()
                trials = trial_starts(len(episode.body.spheres), len(evaluation) + 1, seed)
                evaluate_baseline(evaluator.pool, genomes, config, trials)
                post_evaluate_baseline(evaluator.pool, genomes, config, trials)
                evaluation.append(time.perf_counter() - t0)

            pop = neat.Population(config, seed=seed)
            pop.add_reporter(clock)
            with OtherLoad() as other:
                pop.run(evaluate, generations)
    finally:
        random.setstate(saved)
    wall = [b - a for a, b in zip(clock.starts, clock.ends)]
    row = _end_to_end_row("neat-python+pymunk", wall, evaluation[:len(wall)], wall[0], population,
                          episode.steps, workers, other)
    row.update({"species": clock.species, "best_fitness": float(pop.best_genome.fitness),
                "how": "neat.Population.run + ParallelEvaluator's pool"})
    return row


def run_end_to_end(quick: bool = False, baseline: bool = True) -> list[dict]:
    """Rows ``{"work": "generation_end_to_end", "engine": ..., "wall_seconds": ...,
    "eval_seconds": ..., "non_eval_share": ...}`` for our run and (unless ``baseline`` is False)
    neat-python's ``Population.run`` over pymunk."""
    from creatures.design import resolve_design
    from evolution.rollout import Episode

    ours = time_run_end_to_end(QUICK_END_TO_END_GENERATIONS if quick else END_TO_END_GENERATIONS)
    ours["meets_share_target"] = bool(ours["non_eval_share"] <= TARGET_NON_EVAL_SHARE)
    rows = [ours]
    if baseline:
        episode = Episode.make(resolve_design(DESIGN).body, TASK, seconds=SECONDS)
        base = time_baseline_end_to_end(episode, QUICK_BASELINE_END_TO_END_GENERATIONS if quick
                                        else BASELINE_END_TO_END_GENERATIONS)
        rows.append(base)
        ours["vs_baseline"] = base["wall_seconds"] / ours["wall_seconds"]
        ours["meets_ratio_target"] = bool(ours["vs_baseline"] >= TARGET_RATIO)
    for r in rows:
        r.update({"design": DESIGN, "task": TASK, "simulated_s": SECONDS})
    return rows


def format_end_to_end(rows: list[dict]) -> str:
    ours = rows[0]
    lines = [
        f"end to end: whole generations of evolution ({ours['population']} {ours['design']} genomes, "
        f"{ours['simulated_s']:g} s each, {ours['workers']} workers): breeding, speciation, evaluation, "
        "statistics and files",
        "",
        f"{'engine':<18} {'wall s/gen':>10} {'eval s/gen':>10} {'other s/gen':>11} {'share':>6} "
        f"{'vs baseline':>11} {'others':>6}  how",
    ]
    for r in rows:
        ratio = r.get("vs_baseline")
        others = r.get("other_processes_cores")
        lines.append(f"{r['engine']:<18} {r['wall_seconds']:>10.3f} {r['eval_seconds']:>10.3f} "
                     f"{r['non_eval_seconds']:>11.3f} {100 * r['non_eval_share']:>5.1f}% "
                     f"{(f'{ratio:.1f}x' if ratio else ''):>11} {('' if others is None else f'{others:.2f}'):>6}"
                     f"  {r['how']}; median of {r['generations_timed']} "
                     f"generation{'s' if r['generations_timed'] > 1 else ''} after a first of "
                     f"{r['first_generation_s']:.2f} s; species {', '.join(map(str, r['species']))}")
    lines.append("share: the part of a generation's wall time outside evaluation (breeding, speciation, "
                 "statistics, files)")
    verdict = [f"{100 * ours['non_eval_share']:.1f}% of a generation outside evaluation "
               f"({'meets' if ours['meets_share_target'] else 'MISSES'} the target of <= "
               f"{100 * TARGET_NON_EVAL_SHARE:g}%)"]
    if "vs_baseline" in ours:
        verdict.append(f"{ours['vs_baseline']:.1f}x the baseline end to end "
                       f"({'meets' if ours['meets_ratio_target'] else 'MISSES'} the target of >= {TARGET_RATIO:g}x)")
    lines.append("targets: " + "; ".join(verdict))
    return "\n".join(lines)


#: body evolution (``creatures bench --bodies``): the design whose body evolves, against the
#: fixed one it is drawn from; its generations may take at most this much longer
EVOLVING_DESIGN = "walker-evolving"
TARGET_BODY_OVERHEAD = 0.15
BODY_ROUNDS = 3
QUICK_BODY_ROUNDS = 1


def run_bodies(quick: bool = False, rounds: int | None = None, generations: int | None = None,
               population: int = POPULATION, seconds: float = SECONDS, workers: int = WORKERS) -> list[dict]:
    """Whole generations of the fixed walker and of the walker whose legs evolve
    (:data:`EVOLVING_DESIGN`), the same work otherwise (150 genomes, 20 s each, 2 workers, seed
    0, the run task), end to end as :func:`time_run_end_to_end` times them, in alternating
    rounds (so that a machine that slows down slows both): rows ``{"work": "body_evolution",
    "design": ..., "wall_seconds": median, "eval_seconds": median, ...}``, the evolving one's
    ``vs_fixed`` its wall time over the fixed one's."""
    rounds = rounds or (QUICK_BODY_ROUNDS if quick else BODY_ROUNDS)
    generations = generations or (QUICK_END_TO_END_GENERATIONS if quick else END_TO_END_GENERATIONS)
    timed = {DESIGN: [], EVOLVING_DESIGN: []}
    for _ in range(rounds):
        for name in timed:
            timed[name].append(time_run_end_to_end(generations, population, seconds, workers,
                                                   design_name=name))
    rows = []
    for name, runs in timed.items():
        wall = [w for r in runs for w in r["wall_times_s"]]
        evaluation = [e for r in runs for e in r["eval_times_s"]]
        rows.append({"work": "body_evolution", "engine": "creatures", "design": name,
                     "wall_seconds": statistics.median(wall), "eval_seconds": statistics.median(evaluation),
                     "generations_timed": len(wall), "rounds": rounds, "population": population,
                     "simulated_s": seconds, "workers": workers, "task": TASK, "statistic": "median",
                     "other_processes_cores": max(r["other_processes_cores"] or 0.0 for r in runs)})
    fixed, evolving = rows
    evolving["vs_fixed"] = evolving["wall_seconds"] / fixed["wall_seconds"]
    evolving["meets_target"] = bool(evolving["vs_fixed"] <= 1.0 + TARGET_BODY_OVERHEAD)
    return rows


def format_bodies(rows: list[dict]) -> str:
    fixed, evolving = rows
    lines = [f"body evolution: whole generations ({fixed['population']} genomes, {fixed['simulated_s']:g} s "
             f"each, {fixed['workers']} workers, the {fixed['task']} task), {fixed['design']} against "
             f"{evolving['design']}, in {fixed['rounds']} alternating rounds",
             "",
             f"{'design':<18} {'wall s/gen':>10} {'eval s/gen':>10} {'vs fixed':>8} {'others':>6}  generations"]
    for r in rows:
        ratio = r.get("vs_fixed")
        lines.append(f"{r['design']:<18} {r['wall_seconds']:>10.3f} {r['eval_seconds']:>10.3f} "
                     f"{(f'{ratio:.3f}x' if ratio else ''):>8} {r['other_processes_cores']:>6.2f}  "
                     f"median of {r['generations_timed']}")
    lines.append(f"target: a generation of evolving bodies within {100 * TARGET_BODY_OVERHEAD:g} % of the "
                 f"fixed body's: {100 * (evolving['vs_fixed'] - 1):+.1f} % "
                 f"({'meets' if evolving['meets_target'] else 'MISSES'} it)")
    return "\n".join(lines)


#: a fluid (``creatures bench --medium``): each design in its medium's task against the same
#: creatures running on the ground with no fluid; a generation may take at most this much longer
MEDIUM_PAIRS = (("eel", "swim"), ("fish", "swim"), ("bird", "fly"), ("glider", "fly-far"))
TARGET_MEDIUM_RATIO = 1.5


def run_media(quick: bool = False, rounds: int | None = None, generations: int | None = None,
              population: int = POPULATION, seconds: float = SECONDS, workers: int = WORKERS) -> list[dict]:
    """Whole generations of each design of :data:`MEDIUM_PAIRS` in its fluid task and in the run
    task on flat ground with no fluid, the same work otherwise (150 genomes, 20 s each, 2 workers,
    seed 0), end to end, in alternating rounds: rows ``{"work": "medium", "design": ...,
    "task": ..., "wall_seconds": median, ...}``; the fluid one's ``vs_ground`` is its wall time
    over the ground one's."""
    rounds = rounds or (QUICK_BODY_ROUNDS if quick else BODY_ROUNDS)
    generations = generations or (QUICK_END_TO_END_GENERATIONS if quick else END_TO_END_GENERATIONS)
    cases = [(design, task) for design, fluid in MEDIUM_PAIRS for task in (TASK, fluid)]
    timed = {case: [] for case in cases}
    for _ in range(rounds):
        for design, task in cases:
            timed[(design, task)].append(time_run_end_to_end(generations, population, seconds, workers,
                                                             design_name=design, task=task))
    rows = []
    for (design, task), runs in timed.items():
        wall = [w for r in runs for w in r["wall_times_s"]]
        evaluation = [e for r in runs for e in r["eval_times_s"]]
        rows.append({"work": "medium", "engine": "creatures", "design": design, "task": task,
                     "wall_seconds": statistics.median(wall), "eval_seconds": statistics.median(evaluation),
                     "generations_timed": len(wall), "rounds": rounds, "population": population,
                     "simulated_s": seconds, "workers": workers, "statistic": "median",
                     "other_processes_cores": max(r["other_processes_cores"] or 0.0 for r in runs)})
    for ground, fluid in zip(rows[::2], rows[1::2]):
        fluid["vs_ground"] = fluid["wall_seconds"] / ground["wall_seconds"]
        fluid["meets_target"] = bool(fluid["vs_ground"] <= TARGET_MEDIUM_RATIO)
    return rows


def format_media(rows: list[dict]) -> str:
    first = rows[0]
    lines = [f"fluids: whole generations ({first['population']} genomes, {first['simulated_s']:g} s each, "
             f"{first['workers']} workers), each design in its fluid task against the run task on the "
             f"ground, in {first['rounds']} alternating rounds",
             "",
             f"{'design':<8} {'task':<7} {'medium':<8} {'wall s/gen':>10} {'eval s/gen':>10} {'vs ground':>9} "
             f"{'others':>6}  generations"]
    from evolution.plugins import resolve
    for r in rows:
        ratio = r.get("vs_ground")
        medium = getattr(resolve("task", r["task"]).target, "medium", None) or "none"
        lines.append(f"{r['design']:<8} {r['task']:<7} {medium:<8} "
                     f"{r['wall_seconds']:>10.3f} {r['eval_seconds']:>10.3f} "
                     f"{(f'{ratio:.3f}x' if ratio else ''):>9} {r['other_processes_cores']:>6.2f}  "
                     f"median of {r['generations_timed']}")
    worst = max(r["vs_ground"] for r in rows if "vs_ground" in r)
    lines.append(f"target: a generation in a fluid within {TARGET_MEDIUM_RATIO:g}x the same creatures on the "
                 f"ground: at most {worst:.3f}x ({'meets' if worst <= TARGET_MEDIUM_RATIO else 'MISSES'} it)")
    return "\n".join(lines)

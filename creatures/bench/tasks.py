"""What a task written in pure numpy costs: ``creatures bench --tasks``.

The same generation (the mid-run genomes of :mod:`creatures.bench.generation`: 150 walkers, 20 s each, the
evaluator of ``creatures evolve`` on 2 worker processes) is timed with three tasks, their
generations alternating so that a noisy machine slows all three alike:

- ``run``, the built-in task (a numba kernel per step);
- :class:`NumpyRun`, the same task as a user would write it in numpy (below): the same scores to
  round-off, only the arithmetic's order differs;
- the flag task of ``examples/flag_task.py`` (pure numpy, with more work per step: distances,
  a dwell timer, creatures ending early), when the examples are there (a source checkout).

Also the cost of one ``update`` alone, for a batch of 75 (a worker's half), per step.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

import numpy as np

import physics
from evolution import Task

from . import generation

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "flag_task.py"   # (the source checkout's)
GENERATIONS = 5
QUICK_GENERATIONS = 2


class NumpyRun(Task):
    """Run to the right, in numpy: the centre of mass's x, weighted by the masses."""

    measures = "metres travelled to the right"

    def setup(self, ctx):
        mass = ctx.model.mass
        self.weight = mass / mass.sum(axis=1, keepdims=True)
        self.start = np.zeros(ctx.batch)
        self.x = np.zeros(ctx.batch)

    def reset(self, state, which):
        x = (self.weight * state.pos[:, :, 0]).sum(axis=1)
        self.start[which] = x[which]
        self.x[which] = x[which]

    def update(self, state, clock):
        x = (self.weight * state.pos[:, :, 0]).sum(axis=1)
        self.x = np.where(np.isfinite(x), x, self.x)

    def fitness(self):
        return self.x - self.start


def _tasks() -> list[tuple[str, str]]:
    tasks = [("run (built-in, numba)", "run"), ("run in numpy (NumpyRun)", "creatures.bench.tasks:NumpyRun")]
    if EXAMPLE.is_file():
        tasks.append(("examples/flag_task.py (numpy)", f"{EXAMPLE}:ReachFlag"))
    return tasks


def update_cost(task: str, batch: int = 75, steps: int = 600) -> float:
    """Microseconds per ``update`` of ``task`` for ``batch`` walkers (states of a real episode)."""
    from evolution import Episode, EpisodeRun

    class _Sine:
        def reset(self):
            pass

        def activate(self, inputs):
            return np.sin(np.arange(6)[None, :] + 0.1 * self.t)[[0] * inputs.shape[0]]

    brains = _Sine()
    brains.t = 0
    run = EpisodeRun(Episode.make(physics.examples.walker(), task, seconds=steps / 60.0), brains, batch)
    states = []
    while not run.done and len(states) < steps:
        brains.t += 1
        run.step()
        states.append(run.state)
    t0 = time.perf_counter()
    for s in states:
        run.task.update(s, run.clock)
    return (time.perf_counter() - t0) / len(states) * 1e6


def run_tasks(quick: bool = False) -> list[dict]:
    """Rows: seconds per generation with each task (medians of alternating generations)."""
    from evolution import Episode
    from evolution.evaluator import Evaluator
    from evolution.genomes import genome_to_dict

    episode, neat_text, _, genomes = generation.setup()
    dicts = [genome_to_dict(g) for g in genomes]
    tasks = _tasks()
    rounds = QUICK_GENERATIONS if quick else GENERATIONS
    times = {name: [] for name, _ in tasks}
    evaluators = []
    try:
        for name, spec in tasks:
            ep = Episode.make(episode.body, spec, seconds=episode.seconds)
            evaluators.append((name, Evaluator(ep, neat_text, "feedforward", workers=generation.WORKERS)))
            evaluators[-1][1].evaluate(dicts)  # start the workers, load the kernels
        with generation.OtherLoad() as other:
            for _ in range(rounds):
                for name, ev in evaluators:
                    t0 = time.perf_counter()
                    ev.evaluate(dicts)
                    times[name].append(time.perf_counter() - t0)
    finally:
        for _, ev in evaluators:
            ev.close()
    base = statistics.median(times[tasks[0][0]])
    rows = []
    for name, spec in tasks:
        s = statistics.median(times[name])
        rows.append({"work": "task", "task": name, "population": len(dicts), "steps": episode.steps,
                     "workers": generation.WORKERS, "seconds_per_generation": s, "times_s": times[name],
                     "vs_builtin": s / base - 1.0, "update_us_per_step_75": update_cost(spec),
                     "other_processes_cores": other.cores})
    return rows


def format_tasks(rows: list[dict]) -> str:
    lines = ["| task | seconds per generation | against the built-in | one update, 75 walkers |",
             "|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['task']} | {r['seconds_per_generation']:.3f} | {100 * r['vs_builtin']:+.1f} % | "
                     f"{r['update_us_per_step_75']:.1f} us |")
    r = rows[0]
    lines.append("")
    lines.append(f"{r['population']} walkers x {r['steps']} steps, {r['workers']} worker processes, medians of "
                 f"{len(r['times_s'])} alternating generations; other processes used "
                 f"{r['other_processes_cores'] or 0:.2f} cores meanwhile")
    return "\n".join(lines)

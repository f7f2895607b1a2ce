"""An evolution run: NEAT (neat-python) over batched rollouts, written to a run directory.

A run directory holds::

    settings.json        every setting of the run, the design's YAML text included
    body.json            the creature as the engine's plain body
    neat.cfg             the neat-python config the run uses
    stats.csv            one row per generation: best, mean, median, percentiles, species,
                         failed creatures, evaluation time
    species.csv          species sizes per generation (generation, species, size)
    best/gen_0001.json   the best genome of each generation, with its fitness

The seed covers everything random: neat-python's global ``random`` (it draws all its randomness
from it), numpy's global generator, and the terrain. Files are written atomically (a temporary
file, then a rename), so a crash never leaves half a file.
"""

from __future__ import annotations

import csv
import io
import json
import os
import random
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import neat

import physics

from .evaluator import Evaluator
from .genomes import NETWORK_KINDS, genome_to_dict, load_neat_config, neat_config_text
from .rollout import Episode
from .tasks import TASKS, Task

__all__ = ["RunSettings", "Run", "GenerationStats", "write_atomic"]

STATS_FIELDS = ("generation", "best", "mean", "median", "p90", "p75", "p25", "p10", "worst",
                "species", "failed", "nonfinite", "eval_seconds", "creature_steps_per_s")


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


@dataclass
class RunSettings:
    """Every setting of a run. ``design_text`` is the design's YAML, so the run does not depend on
    the design file staying as it was."""

    design_name: str
    design_text: str
    task: str = "run"
    terrain: str | None = None
    seconds: float = 20.0
    generations: int = 50
    population: int = 150
    seed: int = 0
    workers: int = 0          # 0: one per core
    network: str = "feedforward"
    clock_hz: float = 1.0
    sim: dict = field(default_factory=lambda: physics.SimParams().to_dict())
    neat_config: str | None = None  # the user's own neat config text, if any

    def __post_init__(self):
        if self.task not in TASKS:
            raise ValueError(f"unknown task {self.task!r} (choose from {', '.join(TASKS)})")
        if self.network not in NETWORK_KINDS:
            raise ValueError(f"unknown network kind {self.network!r} (choose from {', '.join(NETWORK_KINDS)})")
        if not (0 < self.seconds < 1e6 and self.generations >= 1 and self.population >= 2):
            raise ValueError("need 0 < seconds < 1e6, generations >= 1 and population >= 2")
        if self.seed < 0:
            raise ValueError("the seed must be 0 or more")
        self.task_spec()  # a clear error now for an unknown terrain

    def task_spec(self) -> Task:
        return Task(self.task, self.terrain, self.seed)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2)

    @classmethod
    def from_json(cls, text: str) -> "RunSettings":
        return cls(**json.loads(text))


@dataclass
class GenerationStats:
    generation: int
    best: float
    mean: float
    median: float
    p90: float
    p75: float
    p25: float
    p10: float
    worst: float
    species: int
    failed: int
    nonfinite: int
    eval_seconds: float
    creature_steps_per_s: float

    def row(self) -> list:
        return [getattr(self, f) for f in STATS_FIELDS]


def _with_sizes(text: str, n_inputs: int, n_outputs: int, population: int) -> str:
    """A user's neat config with the sizes this run needs (they follow from the design)."""
    out = []
    for line in text.splitlines():
        key = line.split("=")[0].strip() if "=" in line else None
        if key == "num_inputs":
            line = f"num_inputs = {n_inputs}"
        elif key == "num_outputs":
            line = f"num_outputs = {n_outputs}"
        elif key == "pop_size":
            line = f"pop_size = {population}"
        out.append(line)
    return "\n".join(out) + "\n"


class Run:
    """A run in a directory: create it with :meth:`create`, then :meth:`evolve`."""

    def __init__(self, directory: Path, settings: RunSettings, body: physics.Body):
        self.dir = Path(directory)
        self.settings = settings
        self.body = body
        sim = physics.SimParams.from_dict(settings.sim)
        self.episode = Episode(body, settings.task_spec(), settings.seconds, sim, settings.clock_hz)
        n_in, n_out = self.episode.n_inputs(), self.episode.n_outputs()
        if n_out == 0:
            raise ValueError("the design has no muscles: there is nothing for a brain to drive")
        base = settings.neat_config or neat_config_text(n_in, n_out, settings.population, settings.network)
        self.neat_text = _with_sizes(base, n_in, n_out, settings.population)
        with tempfile.TemporaryDirectory() as tmp:  # nothing is written before everything checks out
            self.config = load_neat_config(self.neat_text, Path(tmp) / "neat.cfg")
        if self.config.genome_config.feed_forward != (settings.network == "feedforward"):
            raise ValueError(f"the neat config says feed_forward = {self.config.genome_config.feed_forward}, "
                             f"but the run's network is {settings.network}")
        self.history: list[GenerationStats] = []

    @classmethod
    def create(cls, directory, settings: RunSettings, body: physics.Body) -> "Run":
        """Check everything, then write the run directory's first files."""
        run = cls(directory, settings, body)
        directory = Path(directory)
        (directory / "best").mkdir(parents=True, exist_ok=True)
        write_atomic(directory / "neat.cfg", run.neat_text)
        write_atomic(directory / "settings.json", settings.to_json())
        write_atomic(directory / "body.json", json.dumps(body.to_dict(), indent=1))
        write_atomic(directory / "stats.csv", ",".join(STATS_FIELDS) + "\n")
        write_atomic(directory / "species.csv", "generation,species,size\n")
        return run

    def evolve(self, on_generation=None, on_progress=None) -> neat.DefaultGenome:
        """Run all generations; returns the best genome found. ``on_generation(stats)`` after
        each generation; ``on_progress(done, total)`` during evaluation."""
        s = self.settings
        random.seed(s.seed)
        np.random.seed(s.seed % 2**32)
        population = neat.Population(self.config, seed=s.seed)
        with Evaluator(self.episode, self.neat_text, s.network, s.workers or None) as evaluator:
            def evaluate(genomes, config):
                dicts = [genome_to_dict(g) for _, g in genomes]
                result = evaluator.evaluate(dicts, on_progress)
                for (_, g), f in zip(genomes, result.fitness):
                    g.fitness = float(f)
                stats = self._record(population, genomes, result)
                if on_generation is not None:
                    on_generation(stats)

            for _ in range(s.generations):
                population.run(evaluate, 1)
        return population.best_genome

    def _record(self, population, genomes, result) -> GenerationStats:
        gen = population.generation + 1
        f = result.fitness
        q = np.percentile(f, [90, 75, 50, 25, 10])
        steps = len(f) * self.episode.steps
        stats = GenerationStats(gen, float(f.max()), float(f.mean()), float(q[2]), float(q[0]),
                                float(q[1]), float(q[3]), float(q[4]), float(f.min()),
                                len(population.species.species), int(result.failed.sum()),
                                int(result.nonfinite.sum()), round(result.seconds, 4),
                                round(steps / max(result.seconds, 1e-9), 1))
        self.history.append(stats)
        best = max((g for _, g in genomes), key=lambda g: g.fitness)
        record = {"generation": gen, "fitness": best.fitness, "genome": genome_to_dict(best)}
        write_atomic(self.dir / "best" / f"gen_{gen:04d}.json", json.dumps(record, indent=1))
        self._append(self.dir / "stats.csv", [stats.row()])
        self._append(self.dir / "species.csv",
                     [[gen, sid, len(sp.members)] for sid, sp in sorted(population.species.species.items())])
        return stats

    @staticmethod
    def _append(path: Path, rows) -> None:
        """Append CSV rows, rewriting the file atomically (stats files are small)."""
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerows(rows)
        write_atomic(path, path.read_text() + buf.getvalue())

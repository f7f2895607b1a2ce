"""Helpers shared by the evolution tests: designs, neat genomes of many shapes, tiny runs, and
the files of a run directory."""

from __future__ import annotations

import csv
import io
import random
from functools import cache
from pathlib import Path

import neat
import numpy as np

import physics
from creatures.design import resolve_design
from evolution.genomes import load_neat_config, neat_config_text
from evolution.run import RunSettings

#: the columns of stats.csv that measure the machine, not the run
TIMING_COLUMNS = ("eval_seconds", "creature_steps_per_s", "wall_seconds")


@cache
def design(name: str = "walker"):
    """A built-in design (loaded once per session; treat it as read-only)."""
    return resolve_design(name)


def stick() -> physics.Body:
    """Two spheres joined by a rigid bone: a body with nothing for a brain to drive."""
    return physics.Body([physics.Sphere((0.0, 0.1)), physics.Sphere((0.5, 0.1))],
                        [physics.Bone(0, 1)], name="stick")


def neat_config(path: Path, n_inputs: int, n_outputs: int, population: int = 10,
                kind: str = "feedforward"):
    """The run's default neat config for these sizes, loaded by neat (written to ``path``)."""
    config = load_neat_config(neat_config_text(n_inputs, n_outputs, population, kind), path)
    config.genome_config.innovation_tracker = neat.innovation.InnovationTracker()
    return config


def varied_genomes(config, count: int, seed: int, mutations: int = 25) -> list:
    """neat genomes of many shapes: configured new and mutated up to ``mutations`` times, then
    the second half bred by crossover from the first (which shuffles node and connection order).
    Every genome gets a fitness. neat's global ``random`` is restored afterwards."""
    saved = random.getstate()
    random.seed(seed)
    try:
        parents = []
        for key in range(count):
            genome = neat.DefaultGenome(key)
            genome.configure_new(config.genome_config)
            for _ in range(random.randrange(mutations + 1)):
                genome.mutate(config.genome_config)
            genome.fitness = random.uniform(-1.0, 1.0)
            parents.append(genome)
        genomes = parents[:count - count // 2]
        for key in range(len(genomes), count):
            child = neat.DefaultGenome(key)
            child.configure_crossover(random.choice(parents), random.choice(parents), config.genome_config)
            child.mutate(config.genome_config)
            child.fitness = random.uniform(-1.0, 1.0)
            genomes.append(child)
        return genomes
    finally:
        random.setstate(saved)


def tiny_settings(**overrides) -> RunSettings:
    """A walker run small enough for a test: 3 generations of 10, 1 simulated second each."""
    d = design("walker")
    values = dict(design_name=d.name, design_text=d.text, seconds=1.0, generations=3,
                  population=10, seed=1, workers=1)
    values.update(overrides)
    return RunSettings(**values)


def read_stats(directory: Path) -> list[dict]:
    """stats.csv as a list of rows (column -> text)."""
    with open(Path(directory) / "stats.csv", newline="") as f:
        return list(csv.DictReader(f))


def run_files(directory: Path) -> dict[str, bytes]:
    """Every file of a run directory by relative path, stats.csv without its timing columns."""
    directory = Path(directory)
    files = {str(p.relative_to(directory)): p.read_bytes()
             for p in sorted(directory.rglob("*")) if p.is_file()}
    rows = list(csv.reader(io.StringIO(files["stats.csv"].decode())))
    keep = [k for k, name in enumerate(rows[0]) if name not in TIMING_COLUMNS]
    files["stats.csv"] = "\n".join(",".join(row[k] for k in keep) for row in rows).encode()
    return files


def bits(a) -> np.ndarray:
    """The IEEE 754 bits of float64 values, for exact comparisons (-0.0 differs from 0.0)."""
    return np.asarray(a, dtype=np.float64).view(np.uint64)

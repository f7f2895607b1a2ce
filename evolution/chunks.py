"""Scoring one chunk of a generation: what the workers of every backend run
(:mod:`evolution.evaluator` on this machine's processes, :mod:`evolution.ray_backend` on a Ray
cluster), so that both agree bit for bit.

Workers receive genomes as plain data and compile them into batched networks themselves, exactly
as a replay does: :func:`pack_genome`'s tuples (what ``creatures evolve`` sends: a third of the
time of making dicts, and less to pickle) or :func:`evolution.genomes.genome_to_dict`'s dicts.
A chunk is one batched rollout (:func:`evaluate_chunk`); :func:`gather` joins the chunks'
results into one :class:`Evaluation`.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from neat.genes import DefaultConnectionGene, DefaultNodeGene

from .breeding import DefaultGenome
from .genomes import genome_from_dict, load_neat_config
from .rollout import Episode, run_episode

__all__ = ["PROGRESS_EVERY", "Evaluation", "bodies_of", "evaluate_chunk", "gather", "load_config_text",
           "make_brains", "pack_genome", "split_chunks", "unpack_genome"]

#: workers report progress every this many steps
PROGRESS_EVERY = 30

@dataclass
class Evaluation:
    """The result of evaluating a generation, in the order the genomes were given."""

    fitness: np.ndarray     # (N,)
    failed: np.ndarray      # (N,) bool: non-finite, past physics.integrity's limits, or task-failed
    nonfinite: np.ndarray   # (N,) bool
    seconds: float          # wall time
    warnings: list = field(default_factory=list)  # plug-in problems that did not stop the run


def make_brains(genomes, config, kind: str):
    """Batched networks for neat genomes (``reset()``, ``activate(inputs) -> outputs``)."""
    from .network import NetworkBatch, compile_networks
    return NetworkBatch(compile_networks(genomes, config, kind))


def pack_genome(genome) -> tuple:
    """A genome as a worker needs it, in plain tuples: ``(key, nodes, connections)``, the nodes
    ``(key, bias, response, activation, aggregation, time_constant)`` by key, the connections
    ``(in, out, weight, enabled, innovation)`` in the genome's order. :func:`unpack_genome`
    makes of it the genome ``genome_from_dict(genome_to_dict(genome))`` makes, without its
    fitness (a network does not read it), in a third of the time, and it pickles smaller."""
    return (genome.key,
            [(k, n.bias, n.response, n.activation, n.aggregation, getattr(n, "time_constant", 1.0))
             for k, n in sorted(genome.nodes.items())],
            [(k[0], k[1], c.weight, c.enabled, c.innovation) for k, c in genome.connections.items()],
            (tuple(getattr(genome, "body_values", ())), tuple(getattr(genome, "body_parts", ()))))


def unpack_genome(data: tuple):
    """The genome of :func:`pack_genome`'s tuples (an :class:`evolution.breeding.DefaultGenome`
    with neat's genes)."""
    key, nodes, connections = data[:3]
    genome = DefaultGenome(int(key))
    if len(data) > 3:
        genome.body_values, genome.body_parts = list(data[3][0]), list(data[3][1])
    genome_nodes, genome_connections = genome.nodes, genome.connections
    new = object.__new__  # the genes' constructors only check the key's and innovation's types
    for k, bias, response, activation, aggregation, time_constant in nodes:
        ng = new(DefaultNodeGene)
        ng.key = k = int(k)
        ng.bias, ng.response, ng.activation, ng.aggregation = bias, response, activation, aggregation
        ng.time_constant = time_constant
        genome_nodes[k] = ng
    for i, o, weight, enabled, innovation in connections:
        cg = new(DefaultConnectionGene)
        cg.key = k = (int(i), int(o))
        cg.innovation, cg.weight, cg.enabled = int(innovation), float(weight), bool(enabled)
        genome_connections[k] = cg
    return genome


def bodies_of(episode: Episode, genomes) -> tuple | None:
    """``(values (B, V), parts (B, S))``: the body genes of ``genomes`` for ``episode``'s design
    (None for a fixed design). Raises ValueError for a genome whose body genes do not fit it."""
    genes = episode.genes
    if not genes:
        return None
    values = np.array([g.body_values for g in genomes], dtype=np.float64).reshape(len(genomes), -1)
    parts = np.array([g.body_parts for g in genomes], dtype=np.bool_).reshape(len(genomes), -1)
    if values.shape[1] != genes.n_values or parts.shape[1] != genes.n_parts:
        raise ValueError(f"a genome has {values.shape[1]} body values and {parts.shape[1]} parts; the "
                         f"design evolves {genes.n_values} values and {genes.n_parts} optional parts")
    return values, parts


def split_chunks(n: int, chunks: int) -> list[np.ndarray]:
    """Indices of ``n`` genomes in at most ``chunks`` contiguous, nearly equal, non-empty chunks."""
    return [c for c in np.array_split(np.arange(n), max(1, chunks)) if len(c)]


def load_config_text(neat_text: str):
    """The neat config of ``neat_text`` (neat reads configs from files only)."""
    with tempfile.TemporaryDirectory() as tmp:
        return load_neat_config(neat_text, Path(tmp) / "neat.cfg")


def evaluate_chunk(episode: Episode, config, kind: str, genome_dicts: list, report=None):
    """Score one chunk of genomes (dicts or :func:`pack_genome`'s tuples) in one batched rollout:
    what every backend's workers run.

    ``report(creature_steps)`` is called every :data:`PROGRESS_EVERY` steps, if given. Returns
    ``(fitness (B,), failed (B,), nonfinite (B,), warnings)``. A plug-in that raises stops it
    with a :class:`evolution.PluginError`."""
    genomes = [genome_from_dict(d) if isinstance(d, dict) else unpack_genome(d) for d in genome_dicts]
    brains = make_brains(genomes, config, kind)
    B = len(genomes)
    bodies = bodies_of(episode, genomes)

    def on_step(t, state, inputs, outputs):
        if (t + 1) % PROGRESS_EVERY == 0:
            report(PROGRESS_EVERY * B)

    fitness, run = run_episode(episode, brains, B, on_step=None if report is None else on_step,
                               parallel=False, bodies=bodies)
    return fitness, run.failed.copy(), run.nonfinite.copy(), run.warnings


def gather(parts, seconds: float) -> Evaluation:
    """One :class:`Evaluation` from the chunks' ``evaluate_chunk`` results, in chunk order."""
    warnings = list(dict.fromkeys(w for p in parts for w in p[3]))
    return Evaluation(np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]),
                      np.concatenate([p[2] for p in parts]), seconds, warnings)

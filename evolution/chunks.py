"""Scoring one chunk of a generation: what the workers of every backend run
(:mod:`evolution.evaluator` on this machine's processes, :mod:`evolution.ray_backend` on a Ray
cluster), so that both agree bit for bit.

Workers receive genomes as plain data and compile them into batched networks themselves, exactly
as a replay does: :func:`pack_genome`'s tuples (what ``creatures evolve`` sends: a third of the
time of making dicts, and less to pickle) or :func:`evolution.genomes.genome_to_dict`'s dicts.
A chunk is one batched rollout (:func:`evaluate_chunk`) of creatures, each a genome from a
start: a genome scored over several trials (:mod:`evolution.trials`) is several creatures,
compiled once; :func:`gather` joins the chunks' results into one :class:`Evaluation`.
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

__all__ = ["PROGRESS_EVERY", "Evaluation", "bodies_of", "creature_chunks", "evaluate_chunk", "gather", "load_config_text",
           "make_brains", "pack_genome", "split_chunks", "unpack_genome"]

#: workers report progress every this many steps
PROGRESS_EVERY = 30

@dataclass
class Evaluation:
    """The result of evaluating a generation, in the order the genomes were given: each
    genome's fitness over its trials (:func:`evolution.trials.score`), and each trial's."""

    fitness: np.ndarray     # (N,)
    failed: np.ndarray      # (N,) bool: a trial non-finite, past physics.integrity's limits, or task-failed
    nonfinite: np.ndarray   # (N,) bool: a trial non-finite
    seconds: float          # wall time
    warnings: list = field(default_factory=list)  # plug-in problems that did not stop the run
    #: each trial's fitness, (N, K): for the champion's file and the statistics
    trials: np.ndarray = None
    #: the fitness of the genome scored besides, from each of its starts (``also``), or None
    also: np.ndarray = None


def make_brains(genomes, config, kind: str, index=None):
    """Batched networks for neat genomes (``reset()``, ``activate(inputs) -> outputs``); with
    ``index`` (ints), network b is genome ``index[b]``'s (each genome compiled once)."""
    from .network import NetworkBatch, compile_networks
    networks = compile_networks(genomes, config, kind)
    return NetworkBatch(networks if index is None else networks.take(index))


def pack_genome(genome) -> tuple:
    """A genome as a worker needs it, in plain tuples: ``(key, nodes, connections)``, the nodes
    ``(key, bias, response, activation, aggregation, time_constant)`` by key, the connections
    ``(in, out, weight, enabled, innovation)`` in the genome's order. :func:`unpack_genome`
    makes of it the genome ``genome_from_dict(genome_to_dict(genome))`` makes, without its
    fitness (a network does not read it), in a third of the time, and it pickles smaller. A
    grown body's plan (:class:`evolution.growth.Plan`) goes as it is."""
    return (genome.key,
            [(k, n.bias, n.response, n.activation, n.aggregation, getattr(n, "time_constant", 1.0))
             for k, n in sorted(genome.nodes.items())],
            [(k[0], k[1], c.weight, c.enabled, c.innovation) for k, c in genome.connections.items()],
            (tuple(getattr(genome, "body_values", ())), tuple(getattr(genome, "body_parts", ()))),
            getattr(genome, "body_plan", None))


def unpack_genome(data: tuple):
    """The genome of :func:`pack_genome`'s tuples (an :class:`evolution.breeding.DefaultGenome`
    with neat's genes)."""
    key, nodes, connections = data[:3]
    genome = DefaultGenome(int(key))
    if len(data) > 3:
        genome.body_values, genome.body_parts = list(data[3][0]), list(data[3][1])
    if len(data) > 4:
        genome.body_plan = data[4]
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
    """``(values (B, V), parts (B, S))``: the body genes of ``genomes`` (genomes or
    :func:`pack_genome`'s tuples) for ``episode``'s design (None for a fixed design). Raises
    ValueError for a genome whose body genes do not fit it."""
    genes = episode.genes
    if not genes:
        return None
    each = [g[3] if isinstance(g, tuple) else (g.body_values, g.body_parts) for g in genomes]
    values = np.array([v for v, _ in each], dtype=np.float64).reshape(len(genomes), -1)
    parts = np.array([p for _, p in each], dtype=np.bool_).reshape(len(genomes), -1)
    if values.shape[1] != genes.n_values or parts.shape[1] != genes.n_parts:
        raise ValueError(f"a genome has {values.shape[1]} body values and {parts.shape[1]} parts; the "
                         f"design evolves {genes.n_values} values and {genes.n_parts} optional parts")
    return values, parts


def split_chunks(n: int, chunks: int) -> list[np.ndarray]:
    """Indices of ``n`` genomes in at most ``chunks`` contiguous, nearly equal, non-empty chunks."""
    return [c for c in np.array_split(np.arange(n), max(1, chunks)) if len(c)]


def creature_chunks(genome_dicts: list, starts, chunks: int, also=None) -> list[tuple]:
    """A generation as chunks of creatures: every genome from every start of ``starts`` ((K, P,
    2) offsets; None: once, from the design's exact start), genome by genome, in at most
    ``chunks`` contiguous, nearly equal chunks. Each is ``(its genomes, (genome (C,) ints into
    them, offsets (C, P, 2)) or None)``: a genome goes to every chunk that has a trial of it, once.
    ``also``, ``(genome, offsets (K2, P, 2))``: one more genome from each of its own starts, its
    creatures after the generation's (the best of the generation before from its fresh starts,
    scored in the same batches: :meth:`evolution.run.Run.evolve`); it needs ``starts``."""
    if also is None and starts is None:
        return [([genome_dicts[i] for i in c], None) for c in split_chunks(len(genome_dicts), chunks)]
    if starts is None:
        raise ValueError("a genome scored besides the generation needs the generation's starts")
    starts = np.asarray(starts)
    K, N = len(starts), len(genome_dicts)
    genome_of = np.arange(N * K) // K
    offsets = starts[np.arange(N * K) % K]
    if also is not None:
        extra = np.asarray(also[1])
        genome_dicts = list(genome_dicts) + [also[0]]
        genome_of = np.concatenate([genome_of, np.full(len(extra), N)])
        offsets = np.concatenate([offsets, extra.astype(offsets.dtype, copy=False)])
    out = []
    for c in split_chunks(len(genome_of), chunks):
        genomes = genome_of[c]
        first = int(genomes[0])
        out.append((genome_dicts[first:int(genomes[-1]) + 1], (genomes - first, offsets[c])))
    return out


def _plan_of(genome):
    """A growing run's genome's body plan, with the design's genes it carries beside it
    (:func:`evolution.growth.grown_plan`), from the genome or :func:`pack_genome`'s tuple.
    ValueError for a genome without one."""
    from .growth import grown_plan
    if isinstance(genome, tuple):
        plan = genome[4] if len(genome) > 4 else None
        if plan is None:
            raise ValueError("a genome of a growing run has no body plan")
        return plan.with_genes(*genome[3])
    if getattr(genome, "body_plan", None) is None:
        raise ValueError("a genome of a growing run has no body plan")
    return grown_plan(genome)


def load_config_text(neat_text: str):
    """The neat config of ``neat_text`` (neat reads configs from files only)."""
    with tempfile.TemporaryDirectory() as tmp:
        return load_neat_config(neat_text, Path(tmp) / "neat.cfg")


def evaluate_chunk(episode: Episode, config, kind: str, genome_dicts: list, report=None, creatures=None):
    """Score one chunk of creatures in one batched rollout: what every backend's workers run.
    Each creature is a genome of ``genome_dicts`` (dicts or :func:`pack_genome`'s tuples) from a
    start: ``creatures`` is ``(genome (C,) ints, offsets (C, P, 2))``, where each starts moved
    from the design's start (:mod:`evolution.trials`); None is every genome once, from the
    design's exact start.

    ``report(creature_steps)`` is called every :data:`PROGRESS_EVERY` steps, if given. Returns
    ``(fitness (C,), failed (C,), nonfinite (C,), warnings)``. A plug-in that raises stops it
    with a :class:`evolution.PluginError`."""
    index, starts = creatures if creatures is not None else (None, None)
    if kind == "feedforward" and all(isinstance(d, tuple) for d in genome_dicts):
        genomes = list(genome_dicts)   # (compiled from the tuples: no genome objects made)
    else:
        genomes = [genome_from_dict(d) if isinstance(d, dict) else unpack_genome(d) for d in genome_dicts]
    if episode.growth is not None:   # bodies of many shapes: shape by shape (evolution.growth)
        from .growth import score_grown
        from .network import compile_networks
        index = np.arange(len(genomes)) if index is None else np.asarray(index)
        plans = {i: _plan_of(genomes[i]) for i in set(index.tolist())}
        return score_grown(episode, episode.growth, [plans[i] for i in index.tolist()],
                           compile_networks(genomes, config, kind).take(index), starts, report, PROGRESS_EVERY)
    brains = make_brains(genomes, config, kind, index)
    B = len(genomes) if index is None else len(index)
    bodies = bodies_of(episode, genomes if index is None else [genomes[i] for i in index])

    fitness, run = run_episode(episode, brains, B, parallel=False, bodies=bodies, starts=starts, report=report,
                               every=PROGRESS_EVERY)
    return fitness, run.failed.copy(), run.nonfinite.copy(), run.warnings


def gather(parts, seconds: float, trials: int = 1, statistic: str = "mean", also: int = 0) -> Evaluation:
    """One :class:`Evaluation` from the chunks' ``evaluate_chunk`` results, in chunk order, of
    ``trials`` creatures a genome (:func:`creature_chunks`), made one by ``statistic``; the last
    ``also`` creatures' fitnesses (the genome scored besides) in its ``also``."""
    from .trials import score
    warnings = list(dict.fromkeys(w for p in parts for w in p[3]))
    fitness, failed, nonfinite = (np.concatenate([p[k] for p in parts]) for k in range(3))
    end = len(fitness) - also
    extra = fitness[end:].copy() if also else None
    fitness, failed, nonfinite = (a[:end].reshape(-1, trials) for a in (fitness, failed, nonfinite))
    scores, failed_genome = score(fitness, failed, statistic)
    return Evaluation(scores, failed_genome, nonfinite.any(axis=1), seconds, warnings, fitness, extra)

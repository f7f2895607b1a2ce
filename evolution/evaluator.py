"""Evaluating a generation: one chunk of the population per worker process, each chunk one
batched rollout.

Workers receive genomes as plain data and compile them into batched networks themselves, exactly
as a replay does: :func:`pack_genome`'s tuples (what ``creatures evolve`` sends: a third of the
time of making dicts, and less to pickle) or :func:`evolution.genomes.genome_to_dict`'s dicts.
Creatures do not interact, and neither the physics nor the networks depend on which other
creatures share a batch, so the fitness of every genome is bit-identical whatever the number of
workers. Worker processes are started with ``spawn`` (forking a process whose numba threads are
running can deadlock) and step the physics without threads of their own: the workers already fill
the cores.

The Ray backend (:mod:`evolution.ray_backend`, ``backend="ray"``) sends the same chunks to a Ray
cluster as tasks; both backends score a chunk with :func:`evaluate_chunk`, so they agree bit for
bit. :func:`make_evaluator` picks the backend.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import tempfile
import time
from concurrent.futures import FIRST_EXCEPTION, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from neat.genes import DefaultConnectionGene, DefaultNodeGene

from . import limits
from .breeding import DefaultGenome
from .genomes import genome_from_dict, load_neat_config
from .rollout import Episode, run_episode

__all__ = ["BACKENDS", "Evaluator", "Evaluation", "bodies_of", "evaluate_chunk", "gather", "load_config_text",
           "make_brains", "make_evaluator", "pack_genome", "split_chunks", "unpack_genome", "worker_count"]

#: workers report progress every this many steps
PROGRESS_EVERY = 30

#: where generations can be evaluated: worker processes on this machine, or a Ray cluster
BACKENDS = ("local", "ray")


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


def worker_count(workers: int | None) -> int:
    """The processes a generation is evaluated on for the setting ``workers``: 0 (or None) is
    one per core, 1 is this process alone, N is N (at most ``limits.MAX_WORKERS``)."""
    return min(max(1, workers or os.cpu_count() or 1), limits.MAX_WORKERS)


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


# --- the worker side: module globals set once per process by _init_worker -----------------------
_EPISODE: Episode | None = None
_CONFIG = None
_KIND = "feedforward"
_COUNTER = None


def _init_worker(episode: Episode, neat_text: str, kind: str, counter) -> None:
    global _EPISODE, _CONFIG, _KIND, _COUNTER
    _EPISODE, _KIND, _COUNTER = episode, kind, counter
    _CONFIG = load_config_text(neat_text)


def _init_spawned_worker(*args) -> None:
    """A worker process's start: ready the process (OMP_WAIT_POLICY, numba caches in step with
    the sources; it inherits the parent's environment, but a library user's parent may not have
    called it), then :func:`_init_worker`."""
    from . import prepare_process
    prepare_process()
    _init_worker(*args)


def _ready() -> None:
    """A no-op: submitting one per worker starts them all (see :class:`Evaluator`)."""


def _count(creature_steps: int) -> None:
    with _COUNTER.get_lock():
        _COUNTER.value += creature_steps


def _evaluate_chunk(genome_dicts: list[dict]):
    return evaluate_chunk(_EPISODE, _CONFIG, _KIND, genome_dicts,
                          report=None if _COUNTER is None else _count)


class Evaluator:
    """Evaluates generations of genomes for one episode, on ``workers`` processes (1: in this
    process). Use as a context manager, or call :meth:`close`."""

    def __init__(self, episode: Episode, neat_text: str, kind: str = "feedforward", workers: int | None = None):
        self.episode = episode
        self.workers = worker_count(workers)
        ctx = mp.get_context("spawn")
        self.counter = ctx.Value("q", 0)
        self.pool = None
        if self.workers > 1:
            self.pool = ProcessPoolExecutor(self.workers, mp_context=ctx, initializer=_init_spawned_worker,
                                            initargs=(episode, neat_text, kind, self.counter))
            # Start every worker now with Ctrl-C ignored: a spawned child keeps an ignored
            # SIGINT, so a Ctrl-C at the terminal stops only this process, which shuts the
            # workers down itself, instead of printing a traceback from each worker.
            previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
            try:
                started = [self.pool.submit(_ready) for _ in range(self.workers)]
            finally:
                signal.signal(signal.SIGINT, previous)
            wait(started)
        else:
            _init_worker(episode, neat_text, kind, self.counter)
            # this evaluator's own: the module's globals are the last in-process evaluator's
            self._local = (episode, _CONFIG, kind)

    def evaluate(self, genome_dicts: list[dict], on_progress=None) -> Evaluation:
        """Fitness of every genome. ``on_progress(done, total)`` is called as creature-steps
        complete (from this process, about ten times a second)."""
        t0 = time.perf_counter()
        n = len(genome_dicts)
        total = n * self.episode.steps
        self.counter.value = 0
        chunks = split_chunks(n, self.workers)
        if self.pool is None:
            episode, config, kind = self._local
            parts = [evaluate_chunk(episode, config, kind, [genome_dicts[i] for i in c], report=self._count)
                     for c in chunks]
        else:
            futures = [self.pool.submit(_evaluate_chunk, [genome_dicts[i] for i in c]) for c in chunks]
            pending = futures
            while pending:  # wake up when the work is done, or every 0.1 s to show progress
                _, pending = wait(pending, timeout=0.1, return_when=FIRST_EXCEPTION)
                if on_progress is not None:
                    on_progress(min(self.counter.value, total), total)
            parts = [f.result() for f in futures]
        if on_progress is not None:
            on_progress(total, total)
        return gather(parts, time.perf_counter() - t0)

    def _count(self, creature_steps: int) -> None:
        with self.counter.get_lock():
            self.counter.value += creature_steps

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)
            self.pool = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def make_evaluator(episode: Episode, neat_text: str, kind: str = "feedforward",
                   workers: int | None = None, backend: str = "local", address: str | None = None):
    """An evaluator of generations on ``backend``: ``"local"`` (:class:`Evaluator`, worker
    processes on this machine) or ``"ray"`` (:class:`evolution.ray_backend.RayEvaluator`, tasks
    on the Ray cluster at ``address``). Both score every genome the same, bit for bit."""
    if backend == "local":
        if address is not None:
            raise ValueError("an address is for the ray backend only")
        return Evaluator(episode, neat_text, kind, workers)
    if backend == "ray":
        from .ray_backend import RayEvaluator  # imports ray: only when asked for
        return RayEvaluator(episode, neat_text, kind, workers, address=address)
    raise ValueError(f"unknown backend {backend!r} (choose from {', '.join(BACKENDS)})")

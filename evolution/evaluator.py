"""Evaluating a generation: one chunk of the population per worker process, each chunk one
batched rollout.

Workers receive genomes as plain dicts (:mod:`evolution.genomes`) and compile them into batched
networks themselves, exactly as a replay does. Creatures do not interact, and neither the
physics nor the networks depend on which other creatures share a batch, so the fitness of every
genome is bit-identical whatever the number of workers. Worker processes are started with
``spawn`` (forking a process whose numba threads are running can deadlock) and step the physics
without threads of their own: the workers already fill the cores.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import tempfile
import time
from concurrent.futures import FIRST_EXCEPTION, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .genomes import genome_from_dict, load_neat_config
from .rollout import Episode, run_episode

__all__ = ["Evaluator", "Evaluation", "make_brains"]

#: workers report progress every this many steps
PROGRESS_EVERY = 30


@dataclass
class Evaluation:
    """The result of evaluating a generation, in the order the genomes were given."""

    fitness: np.ndarray     # (N,)
    failed: np.ndarray      # (N,) bool: non-finite or broken apart
    nonfinite: np.ndarray   # (N,) bool
    seconds: float          # wall time


def make_brains(genomes, config, kind: str):
    """Batched networks for neat genomes (``reset()``, ``activate(inputs) -> outputs``)."""
    from .network import NetworkBatch, compile_networks
    return NetworkBatch(compile_networks(genomes, config, kind))


# --- the worker side: module globals set once per process by _init_worker -----------------------
_EPISODE: Episode | None = None
_CONFIG = None
_KIND = "feedforward"
_COUNTER = None


def _init_worker(episode: Episode, neat_text: str, kind: str, counter) -> None:
    global _EPISODE, _CONFIG, _KIND, _COUNTER
    _EPISODE, _KIND, _COUNTER = episode, kind, counter
    with tempfile.TemporaryDirectory() as tmp:
        _CONFIG = load_neat_config(neat_text, Path(tmp) / "neat.cfg")


def _ready() -> None:
    """A no-op: submitting one per worker starts them all (see :class:`Evaluator`)."""


def _evaluate_chunk(genome_dicts: list[dict]):
    genomes = [genome_from_dict(d) for d in genome_dicts]
    brains = make_brains(genomes, _CONFIG, _KIND)
    counter = _COUNTER
    B = len(genomes)

    def on_step(t, state, inputs, outputs):
        if counter is not None and (t + 1) % PROGRESS_EVERY == 0:
            with counter.get_lock():
                counter.value += PROGRESS_EVERY * B

    fitness, tracker = run_episode(_EPISODE, brains, B, on_step=on_step, parallel=False)
    return fitness, tracker.failed.copy(), tracker.nonfinite.copy()


class Evaluator:
    """Evaluates generations of genomes for one episode, on ``workers`` processes (1: in this
    process). Use as a context manager, or call :meth:`close`."""

    def __init__(self, episode: Episode, neat_text: str, kind: str = "feedforward", workers: int | None = None):
        self.episode = episode
        self.workers = max(1, workers or os.cpu_count() or 1)
        ctx = mp.get_context("spawn")
        self.counter = ctx.Value("q", 0)
        self.pool = None
        if self.workers > 1:
            self.pool = ProcessPoolExecutor(self.workers, mp_context=ctx, initializer=_init_worker,
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

    def evaluate(self, genome_dicts: list[dict], on_progress=None) -> Evaluation:
        """Fitness of every genome. ``on_progress(done, total)`` is called as creature-steps
        complete (from this process, about ten times a second)."""
        t0 = time.perf_counter()
        n = len(genome_dicts)
        total = n * self.episode.steps
        self.counter.value = 0
        chunks = [c for c in np.array_split(np.arange(n), self.workers) if len(c)]
        if self.pool is None:
            parts = [_evaluate_chunk([genome_dicts[i] for i in c]) for c in chunks]
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
        fitness = np.concatenate([p[0] for p in parts])
        failed = np.concatenate([p[1] for p in parts])
        nonfinite = np.concatenate([p[2] for p in parts])
        return Evaluation(fitness, failed, nonfinite, time.perf_counter() - t0)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)
            self.pool = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

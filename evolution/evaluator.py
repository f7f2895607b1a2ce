"""The local backend: a generation evaluated on this machine, one chunk of the population per
worker process, each chunk one batched rollout (:mod:`evolution.chunks`).

Creatures do not interact, and neither the physics nor the networks depend on which other
creatures share a batch, so the fitness of every genome is bit-identical whatever the number of
workers. Worker processes are started with ``spawn`` (forking a process whose numba threads are
running can deadlock) and step the physics without threads of their own: the workers already fill
the cores.

The Ray backend (:mod:`evolution.ray_backend`, ``backend="ray"``) sends the same chunks to a Ray
cluster as tasks; both backends score a chunk with :func:`evolution.chunks.evaluate_chunk`, so
they agree bit for bit. :func:`evolution.backends.make_evaluator` picks the backend.
"""

from __future__ import annotations

import gc
import multiprocessing as mp
import os
import signal
import sys
import time
from concurrent.futures import FIRST_EXCEPTION, ProcessPoolExecutor, wait

from . import limits
from .chunks import Evaluation, creature_chunks, evaluate_chunk, gather, load_config_text
from .process import prepare_process, steady_heap
from .rollout import Episode

__all__ = ["Evaluator", "worker_count", "evaluate_in_worker"]


def worker_count(workers: int | None) -> int:
    """The processes a generation is evaluated on for the setting ``workers``: 0 (or None) is
    one per core, 1 is this process alone, N is N (at most ``limits.MAX_WORKERS``)."""
    return min(max(1, workers or os.cpu_count() or 1), limits.MAX_WORKERS)

# --- the worker side: module globals set once per process by _init_worker -----------------------
_EPISODE: Episode | None = None
_CONFIG = None
_KIND = "feedforward"
_COUNTER = None


def _init_worker(episode: Episode, neat_text: str, kind: str, counter) -> None:
    global _EPISODE, _CONFIG, _KIND, _COUNTER
    _EPISODE, _KIND, _COUNTER = episode, kind, counter
    _CONFIG = load_config_text(neat_text)


def _init_spawned_worker(parent: int, *args) -> None:
    """A worker process's start: die with the process that started it, ready the process
    (OMP_WAIT_POLICY, numba caches in step with the sources; it inherits the parent's
    environment, but a library user's parent may not have called it), then :func:`_init_worker`."""
    die_with_parent(parent)
    prepare_process()
    _init_worker(*args)


def die_with_parent(parent: int) -> None:
    """On Linux, ask the kernel to kill this process when ``parent``, the process that started
    it, dies
    (``prctl(PR_SET_PDEATHSIG)``), so that a run killed outright (``kill -9``, an OOM killer)
    leaves no worker computing for nobody; and exit now if that has already happened. Elsewhere
    a worker notices when its next chunk never comes and its pool's pipe closes."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)   # 1: PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:   # the parent died before the request was made
        os._exit(1)


def _ready() -> None:
    """A no-op: submitting one per worker starts them all (see :class:`Evaluator`)."""


def _count(creature_steps: int) -> None:
    with _COUNTER.get_lock():
        _COUNTER.value += creature_steps


def evaluate_in_worker(genome_dicts: list[dict], creatures=None):
    """Score a chunk in a worker process of an :class:`Evaluator`'s pool (what its pool runs:
    the episode and config that process was started with)."""
    result = evaluate_chunk(_EPISODE, _CONFIG, _KIND, genome_dicts,
                            report=None if _COUNTER is None else _count, creatures=creatures)
    _steady_heap()
    return result


#: whether this worker has made its heap steady (:func:`_steady_heap`), after its first chunk
_HEAP_STEADY = False


def _steady_heap() -> None:
    """After a worker's first chunk (nothing frozen yet), its heap made steady for the worker's
    life (:func:`evolution.process.steady_heap`). A chunk makes some 20 objects a step and 10,000
    genes; without it every third chunk or so paid for a full collection of the whole process
    (~50 ms, an eighth of a generation). Asked once: ``gc.get_freeze_count`` walks every frozen
    object (~150,000 of them, 12 ms, on every chunk's way back before it was remembered)."""
    global _HEAP_STEADY
    if _HEAP_STEADY:
        return
    _HEAP_STEADY = True
    if gc.isenabled() and not gc.get_freeze_count():
        steady_heap()


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
                                            initargs=(os.getpid(), episode, neat_text, kind, self.counter))
            # Start every worker now with Ctrl-C and SIGTERM ignored: a spawned child keeps an
            # ignored signal, so a Ctrl-C at the terminal (or a kill of the process group)
            # stops only this process, which shuts the workers down itself, instead of a
            # traceback from each worker and a broken pool; a worker whose parent dies is
            # killed by the kernel (die_with_parent).
            previous = {s: signal.signal(s, signal.SIG_IGN) for s in (signal.SIGINT, signal.SIGTERM)}
            try:
                started = [self.pool.submit(_ready) for _ in range(self.workers)]
            finally:
                for s, handler in previous.items():
                    signal.signal(s, handler)
            wait(started)
        else:
            _init_worker(episode, neat_text, kind, self.counter)
            # this evaluator's own: the module's globals are the last in-process evaluator's
            self._local = (episode, _CONFIG, kind)

    def evaluate(self, genome_dicts: list[dict], on_progress=None, starts=None,
                 statistic: str = "mean", also=None) -> Evaluation:
        """Fitness of every genome: from each start of ``starts`` ((K, P, 2) offsets from the
        design's start, :mod:`evolution.trials`; None: once, from the exact start), made one by
        ``statistic``. ``also``, ``(genome, offsets (K2, P, 2))``: one more genome scored from
        each of its own starts in the same batches (its fitnesses in the result's ``also``:
        :func:`evolution.chunks.creature_chunks`). ``on_progress(done, total)`` is called as
        creature-steps complete (from this process, about ten times a second)."""
        t0 = time.perf_counter()
        n = len(genome_dicts)
        trials = 1 if starts is None else len(starts)
        extra = 0 if also is None else len(also[1])
        total = (n * trials + extra) * self.episode.steps
        self.counter.value = 0
        chunks = creature_chunks(genome_dicts, starts, self.workers, also)
        if self.pool is None:
            episode, config, kind = self._local
            parts = [evaluate_chunk(episode, config, kind, genomes, report=self._count, creatures=creatures)
                     for genomes, creatures in chunks]
        else:
            futures = [self.pool.submit(evaluate_in_worker, genomes, creatures) for genomes, creatures in chunks]
            pending = futures
            while pending:  # wake up when the work is done, or every 0.1 s to show progress
                _, pending = wait(pending, timeout=0.1, return_when=FIRST_EXCEPTION)
                if on_progress is not None:
                    on_progress(min(self.counter.value, total), total)
            parts = [f.result() for f in futures]
        if on_progress is not None:
            on_progress(total, total)
        return gather(parts, time.perf_counter() - t0, trials, statistic, extra)

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

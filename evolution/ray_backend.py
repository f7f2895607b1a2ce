"""Evaluating generations on a Ray cluster: the chunks of :mod:`evolution.chunks` as Ray tasks.

For runs that outgrow one machine (``creatures evolve ... --backend ray``). A generation is split
into chunks exactly as the local backend splits it, one chunk per CPU of the cluster (or
``workers``), and each chunk is one task that scores its genomes with
:func:`evolution.chunks.evaluate_chunk`, the function the local worker processes run. Creatures
do not interact, so the fitness of every genome is bit-identical to the local backend's, whatever
the chunking. The episode and the neat config are put in the object store once and shared by
every generation's tasks.

On a real cluster every node runs the tasks with its own installation: install the package, from
the same commit and with the same Python, on every node (``pip install 'creatures[cluster]'``);
numba compiles the physics once per node and caches it next to the installed sources. Bits agree
across nodes whose CPUs and installed packages are the same; numpy and numba may pick other
instructions on another kind of CPU.

Addresses, as ``ray.init`` reads them: ``None`` starts a Ray on this machine (or joins the one
that ``RAY_ADDRESS`` or a ``ray start`` on this machine names), ``"auto"`` joins a running cluster
from one of its nodes, ``"ray://HOST:10001"`` connects from outside through the Ray client. If
Ray is already initialized in this process, the evaluator uses it as it is.
"""

from __future__ import annotations

import logging
import math
import time
from functools import lru_cache

try:
    import ray
except ModuleNotFoundError as error:
    if error.name != "ray":
        raise
    raise ImportError("the ray backend needs Ray: pip install 'creatures[cluster]'") from None

from .chunks import Evaluation, creature_chunks, evaluate_chunk, gather, load_config_text, split_chunks
from .process import prepare_process
from .plugins import PluginError
from .rollout import Episode

__all__ = ["RayEvaluator"]

#: the tasks' environment: one thread each (a task is given one CPU, and steps the physics
#: without threads), so a node runs as many tasks as it has CPUs without oversubscribing them
TASK_ENV = {"NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}

#: how often the driver wakes up to report progress, in seconds
POLL_SECONDS = 0.1

#: how often a task tells the driver how far it got, in seconds at most
REPORT_SECONDS = 0.25


@lru_cache(maxsize=4)
def _config(neat_text: str):
    """The neat config, loaded once per worker process (Ray reuses its workers)."""
    return load_config_text(neat_text)


@lru_cache(maxsize=1)
def _prepare() -> None:
    """``evolution.prepare_process()``, once per Ray worker process (Ray reuses its workers)."""
    prepare_process()


def _reporter(progress, generation: int):
    """``report(creature_steps)`` for :func:`evaluate_chunk`: adds up the steps and sends them
    to the progress actor a few times a second. A call to the actor costs about a millisecond of
    the node's CPUs, too much for every PROGRESS_EVERY steps (measured: +10 % per generation);
    what is left unsent at the end does not matter, the driver counts a finished chunk whole."""
    unsent, last = 0, time.monotonic()

    def report(creature_steps: int) -> None:
        nonlocal unsent, last
        unsent += creature_steps
        if time.monotonic() - last >= REPORT_SECONDS:
            progress.add.remote(generation, unsent)  # fire and forget
            unsent, last = 0, time.monotonic()
    return report


@ray.remote(num_cpus=1, runtime_env={"env_vars": TASK_ENV})
def _evaluate_chunk_task(episode: Episode, neat_text: str, kind: str, genome_dicts: list[dict],
                         progress, generation: int, creatures=None):
    """One chunk, as a Ray task: the local workers' :func:`evaluate_chunk`."""
    _prepare()
    report = None if progress is None else _reporter(progress, generation)
    return evaluate_chunk(episode, _config(neat_text), kind, genome_dicts, report, creatures)


@ray.remote(num_cpus=0)
class _Progress:
    """Creature-steps done in the current generation, as the tasks report them. Reports from an
    earlier generation's tasks (cancelled, or late) do not count."""

    def __init__(self):
        self.generation, self.done = -1, 0

    def start(self, generation: int) -> None:
        self.generation, self.done = generation, 0

    def add(self, generation: int, creature_steps: int) -> None:
        if generation == self.generation:
            self.done += creature_steps

    def count(self) -> int:
        return self.done


class RayEvaluator:
    """Evaluates generations of genomes for one episode as Ray tasks, one per chunk: the
    interface of :class:`evolution.evaluator.Evaluator`. Use as a context manager, or call
    :meth:`close`, which shuts Ray down (or disconnects from the cluster) only if this evaluator
    called ``ray.init``: a Ray that was running in this process already is left as it was.

    ``workers``: the number of chunks a generation is split into (default: the cluster's CPUs);
    ``chunk_size``, if given, caps the genomes in a chunk (more, smaller tasks balance the load
    on nodes of unequal speed)."""

    def __init__(self, episode: Episode, neat_text: str, kind: str = "feedforward",
                 workers: int | None = None, address: str | None = None,
                 chunk_size: int | None = None):
        if chunk_size is not None and chunk_size < 1:
            raise ValueError("chunk_size must be 1 or more")
        self.episode, self.kind, self.chunk_size = episode, kind, chunk_size
        self.started_ray = not ray.is_initialized()
        if self.started_ray:
            try:
                if address is not None and "://" in address:
                    ray.init(address=address, logging_level=logging.WARNING)  # the Ray client
                else:
                    ray.init(address=address, include_dashboard=False, log_to_driver=False,
                             logging_level=logging.WARNING)
            except (ConnectionError, RuntimeError) as error:
                # Ray's own message, without its traceback; a cluster with token authentication
                # refuses drivers without its token (a ray:// connection then only times out)
                where = "start Ray" if address is None else f"connect to the Ray cluster at {address}"
                raise ConnectionError(f"cannot {where}: {error} (is it running, and is its auth "
                                      "token on this machine?)") from error
        self._progress = None  # the _Progress actor, made when progress is first asked for
        self._generation = 0
        try:
            self.workers = max(1, workers or int(ray.cluster_resources().get("CPU", 1)))
            self._episode_ref = ray.put(episode)
            self._neat_ref = ray.put(neat_text)
        except BaseException:
            self.close()
            raise

    def evaluate(self, genome_dicts: list[dict], on_progress=None, starts=None,
                 statistic: str = "mean", also=None) -> Evaluation:
        """Fitness of every genome, as :meth:`evolution.evaluator.Evaluator.evaluate` gives it
        (``starts``, ``statistic``: its trials; ``also``: a genome scored besides).
        ``on_progress(done, total)`` is called as creature-steps complete (from this process,
        about ten times a second)."""
        t0 = time.perf_counter()
        trials = 1 if starts is None else len(starts)
        extra = 0 if also is None else len(also[1])
        n = len(genome_dicts) * trials + extra   # creatures
        steps = self.episode.steps
        total = n * steps
        count = self.workers
        if self.chunk_size is not None:
            count = max(count, math.ceil(n / self.chunk_size))
        chunks = split_chunks(n, count)   # the creatures of each task, for its messages
        work = creature_chunks(genome_dicts, starts, count, also)
        self._generation += 1
        progress = None
        if on_progress is not None:
            if self._progress is None:
                self._progress = _Progress.remote()
            progress = self._progress
            ray.get(progress.start.remote(self._generation))
        refs = [_evaluate_chunk_task.remote(self._episode_ref, self._neat_ref, self.kind, genomes, progress,
                                            self._generation, creatures)
                for genomes, creatures in work]
        chunk_of = {ref: k for k, ref in enumerate(refs)}
        parts = [None] * len(refs)
        pending, done, finished, poll = refs, 0, 0, None
        try:
            while pending:  # wake up when the work is done, or every 0.1 s to show progress
                ready, pending = ray.wait(pending, num_returns=len(pending), timeout=POLL_SECONDS)
                for ref in ready:  # a failed task raises now, not after the others finish
                    k = chunk_of[ref]
                    parts[k] = self._result(ref, chunks[k])
                    finished += len(chunks[k]) * steps
                if progress is not None:
                    # both counts are lower bounds: the tasks' reports, and the finished chunks
                    if poll is not None and ray.wait([poll], timeout=0)[0]:
                        done = max(done, ray.get(poll))
                        poll = None
                    if poll is None:
                        poll = progress.count.remote()
                    done = max(done, finished)
                    on_progress(min(done, total), total)
        except BaseException:  # a failed task, or Ctrl-C: stop the others
            for ref in pending:
                ray.cancel(ref)
            raise
        if on_progress is not None:
            on_progress(total, total)
        return gather(parts, time.perf_counter() - t0, trials, statistic, extra)

    @staticmethod
    def _result(ref, chunk):
        """The task's result, or a clear error naming the creatures whose task failed."""
        where = f"the Ray task scoring creatures {chunk[0]}..{chunk[-1]}"
        try:
            return ray.get(ref)
        except ray.exceptions.RayTaskError as error:
            cause = error.cause
            if isinstance(cause, PluginError):  # a plug-in's own one line, as the local backend
                raise PluginError(str(cause)) from None
            raise RuntimeError(f"{where} failed: {type(cause).__name__}: {cause}") from error
        except ray.exceptions.RayError as error:  # a worker or node died, an object was lost...
            raise RuntimeError(f"{where} failed: {type(error).__name__}: {error}") from error

    def close(self) -> None:
        """Free what this evaluator holds on the cluster; shut Ray down if it started it."""
        if not ray.is_initialized():
            return
        if self._progress is not None:
            ray.kill(self._progress)
            self._progress = None
        self._episode_ref = self._neat_ref = None
        if self.started_ray:
            ray.shutdown()
            self.started_ray = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

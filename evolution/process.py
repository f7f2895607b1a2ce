"""Readying a process to run evolution: :func:`prepare_process` (the ``evolution`` package
exports it; a module of its own so that the worker processes' start-up can import it without
importing the package, which imports them)."""

from __future__ import annotations

import gc
from pathlib import Path

import physics

__all__ = ["prepare_process", "steady_heap"]

#: in a process that runs evolution, Python's collector takes its youngest generation every this
#: many allocations (its default, 700, collected every few steps of a chunk)
YOUNG_COLLECTIONS = 10_000


def prepare_process() -> None:
    """:func:`physics.prepare_process` for evolution too: also clears numba's cache of this
    package if its sources or physics' changed (its sensors' and tasks' kernels inline physics
    functions). The ``creatures`` command calls it first thing, and so does every worker process
    an :class:`Evaluator` or the Ray backend starts."""
    physics.prepare_process(Path(__file__).parent)


def steady_heap() -> tuple:
    """Python's cyclic garbage collector tuned for a process that runs evolution, and the
    thresholds it had: what exists now (kernels, modules, the episode) is frozen, left out of
    collections (refcounting still frees it), and the youngest generation is collected every
    :data:`YOUNG_COLLECTIONS` allocations. Genomes and states hold no cycles, and when the
    collector runs does not change what is computed. (evolution.run's ``_steady_heap`` for a
    run's own process, evolution.evaluator's workers after their first chunk.)"""
    thresholds = gc.get_threshold()
    gc.collect()
    gc.freeze()
    gc.set_threshold(max(thresholds[0], YOUNG_COLLECTIONS), *thresholds[1:])
    return thresholds

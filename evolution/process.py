"""Readying a process to run evolution: :func:`prepare_process` (the ``evolution`` package
exports it; a module of its own so that the worker processes' start-up can import it without
importing the package, which imports them)."""

from __future__ import annotations

from pathlib import Path

import physics

__all__ = ["prepare_process"]


def prepare_process() -> None:
    """:func:`physics.prepare_process` for evolution too: also clears numba's cache of this
    package if its sources or physics' changed (its sensors' and tasks' kernels inline physics
    functions). The ``creatures`` command calls it first thing, and so does every worker process
    an :class:`Evaluator` or the Ray backend starts."""
    physics.prepare_process(Path(__file__).parent)

"""Where a generation is evaluated: :func:`make_evaluator` picks the backend.

``local`` is :class:`evolution.evaluator.Evaluator` (worker processes on this machine), ``ray``
:class:`evolution.ray_backend.RayEvaluator` (tasks on a Ray cluster, imported only when asked
for: it imports ray). Both score a chunk with :func:`evolution.chunks.evaluate_chunk`, so they
agree bit for bit.
"""

from __future__ import annotations

from .evaluator import Evaluator
from .rollout import Episode

__all__ = ["BACKENDS", "make_evaluator"]

#: where generations can be evaluated: worker processes on this machine, or a Ray cluster
BACKENDS = ("local", "ray")


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

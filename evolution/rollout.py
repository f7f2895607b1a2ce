"""An episode: a batch of creatures with their brains on a task, step by step.

Each step: sensors -> networks -> muscle commands -> physics step -> fitness bookkeeping.
:class:`EpisodeRun` is that loop one step at a time; evolution scores with it (through
:func:`run_episode`) and the viewer replays champions with it, so what is watched is what was
scored.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

import physics

from .sensors import Sensors
from .tasks import Task, Tracker

__all__ = ["Episode", "EpisodeRun", "run_episode"]


@dataclass(frozen=True)
class Episode:
    """Everything an evaluation needs besides the brains: the body, the task, the physics.

    ``seconds`` of simulated time at ``sim.dt`` per step; ``clock_hz`` is the brains' clock."""

    body: physics.Body
    task: Task = field(default_factory=Task)
    seconds: float = 20.0
    sim: physics.SimParams = field(default_factory=physics.SimParams)
    clock_hz: float = 1.0

    @property
    def steps(self) -> int:
        return max(1, int(round(self.seconds / self.sim.dt)))

    def sensors(self, model: physics.Model) -> Sensors:
        return Sensors.of(model, self.clock_hz)

    def n_inputs(self) -> int:
        return self.sensors(physics.build_model(self.body, 1)).count

    def n_outputs(self) -> int:
        return sum(b.muscle is not None for b in self.body.bones)


class EpisodeRun:
    """An episode being run, one step at a time: the loop evolution scores with and the viewer
    watches (:func:`run_episode` is this class stepped to the end).

    Each :meth:`step`: sensors -> networks -> muscle commands -> physics step -> fitness
    bookkeeping. ``brains`` is an object with ``reset()`` and ``activate(inputs (B, S)) ->
    outputs (B, M)``; outputs are muscle commands, clipped to [-1, 1] by the engine, NaN read
    as 0.

    Attributes
    ----------
    model : physics.Model
    terrain : physics.Terrain
    state : physics.State
        After ``t`` steps.
    t : int
        Steps taken; the episode is over when ``t == episode.steps``.
    inputs : ndarray, shape (B, S)
        What the brains read at the last step.
    outputs : ndarray, shape (B, M)
        What they answered (zeros before the first step).
    tracker : Tracker
    """

    def __init__(self, episode: Episode, brains, batch: int, parallel: bool = False):
        self.episode, self.brains, self.parallel = episode, brains, parallel
        self.model = physics.build_model(episode.body, batch)
        self.terrain = episode.task.make_terrain()
        self.sensors = episode.sensors(self.model)
        self.inputs = np.empty((batch, self.sensors.count))
        self.reset()

    def reset(self) -> None:
        """Back to the start (the same start every time)."""
        params = self.episode.sim
        self.state = physics.initial_state(self.model, params,
                                           offset=physics.standing_offset(self.model, self.terrain))
        self.tracker = Tracker(self.episode.task, self.model, self.state, self.terrain)
        self.outputs = np.zeros((self.model.batch, self.model.n_muscles))
        self.inputs[:] = 0.0
        self.brains.reset()
        self.t = 0

    @property
    def done(self) -> bool:
        return self.t >= self.episode.steps

    def step(self) -> None:
        self.sensors.read(self.model, self.state, self.terrain, out=self.inputs)
        self.outputs = self.brains.activate(self.inputs)
        self.state = physics.step(self.model, self.state, self.outputs, self.episode.sim, self.terrain,
                                  parallel=self.parallel)
        self.tracker.update(self.state)
        self.t += 1

    def fitness(self) -> np.ndarray:
        """Fitness so far, shape (B,); at the end, the episode's fitness."""
        return self.tracker.fitness()


def run_episode(episode: Episode, brains, batch: int, on_step=None, parallel: bool = False):
    """Run ``batch`` creatures driven by ``brains`` through the whole episode.

    Returns ``(fitness (B,), tracker)``. ``on_step(t, state, inputs, outputs)`` is called after
    every step if given."""
    run = EpisodeRun(episode, brains, batch, parallel)
    while not run.done:
        run.step()
        if on_step is not None:
            on_step(run.t - 1, run.state, run.inputs, run.outputs)
    return run.fitness(), run.tracker

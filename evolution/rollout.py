"""An episode: a batch of creatures with their brains on a task, step by step.

Each step: sensors -> networks -> muscle commands -> physics step -> fitness bookkeeping. The
viewer replays champions with this very loop (``on_step`` lets it watch), so what is watched is
what was scored.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

import physics

from .sensors import Sensors
from .tasks import Task, Tracker

__all__ = ["Episode", "run_episode"]


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


def run_episode(episode: Episode, brains, batch: int, on_step=None, parallel: bool = False):
    """Run ``batch`` creatures driven by ``brains`` (an object with ``reset()`` and
    ``activate(inputs (B, S)) -> outputs (B, M)``) through the episode.

    Returns ``(fitness (B,), tracker)``. ``on_step(t, state, inputs, outputs)`` is called after
    every step if given. Outputs are muscle commands: clipped to [-1, 1] by the engine, NaN read
    as 0."""
    model = physics.build_model(episode.body, batch)
    terrain = episode.task.make_terrain()
    params = episode.sim
    state = physics.initial_state(model, params, offset=physics.standing_offset(model, terrain))
    sensors = episode.sensors(model)
    tracker = Tracker(episode.task, model, state, terrain)
    inputs = np.empty((batch, sensors.count))
    brains.reset()
    for t in range(episode.steps):
        sensors.read(model, state, terrain, out=inputs)
        outputs = brains.activate(inputs)
        state = physics.step(model, state, outputs, params, terrain, parallel=parallel)
        tracker.update(state)
        if on_step is not None:
            on_step(t, state, inputs, outputs)
    return tracker.fitness(), tracker

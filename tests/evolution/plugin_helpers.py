"""Plug-in files for the tests: small tasks and sensors written into a temporary folder, as a
user would write them."""

from __future__ import annotations

import textwrap
from pathlib import Path

#: a pure-numpy task: the centre of mass's rise, and a few ways to misbehave (chosen by class)
TASKS = '''
import numpy as np
import evolution
import physics


class Rise(evolution.Task):
    """Rise: lift the centre of mass."""
    measures = "metres of rise"

    def setup(self, ctx):
        self.start = np.zeros(ctx.batch)
        self.now = np.zeros(ctx.batch)

    def reset(self, state, which):
        y = physics.centre_of_mass(self.ctx.model, state)[:, 1]
        self.start[which] = y[which]
        self.now[which] = y[which]

    def update(self, state, clock):
        self.now[:] = physics.centre_of_mass(self.ctx.model, state)[:, 1]

    def fitness(self):
        return self.now - self.start


class Steps(evolution.Task):
    """Fitness: the steps each creature has lived; creature b ends after b + 2 steps."""

    def setup(self, ctx):
        self.steps = np.zeros(ctx.batch)

    def reset(self, state, which):
        self.steps[which] = 0

    def update(self, state, clock):
        self.steps[:] = clock.step

    def fitness(self):
        return self.steps.copy()

    def ended(self):
        return self.steps >= np.arange(self.ctx.batch) + 2


class FailOdd(Steps):
    """Fails every odd creature at its third step."""

    def ended(self):
        return None

    def failed(self):
        return (np.arange(self.ctx.batch) % 2 == 1) & (self.steps >= 3)


class WrongShape(Steps):
    def fitness(self):
        return np.zeros(self.ctx.batch + 1)


class NaNForFirst(Steps):
    def fitness(self):
        f = self.steps.copy()
        f[0] = np.nan
        return f


class Boom(Steps):
    """Raises in update() at step 3."""

    def update(self, state, clock):
        super().update(state, clock)
        if clock.step[0] == 3:
            raise ValueError("boom at step 3")


class NotATask:
    pass


def factory():
    return Rise()


def not_a_factory():
    return 42
'''

#: sensors: one that fills ``out``, one that returns its array, and broken ones
SENSORS = '''
import numpy as np
import evolution
import physics


class ComX(evolution.Sensor):
    """The centre of mass's x, in metres."""

    def size(self, ctx):
        return 1

    def read(self, state, clock, out):
        out[:, 0] = physics.centre_of_mass(self.ctx.model, state)[:, 0]


class Twice(evolution.Sensor):
    """The step count, twice (returned, not written)."""

    def size(self, ctx):
        return 2

    def labels(self, ctx):
        return ["steps a", "steps b"]

    def read(self, state, clock, out):
        return np.stack([clock.step, clock.step], axis=1).astype(float)


class BadShape(Twice):
    def read(self, state, clock, out):
        return np.zeros((3, 3))


class Raises(Twice):
    def read(self, state, clock, out):
        raise KeyError("no such thing")
'''


def write(folder: Path, name: str, text: str) -> Path:
    path = Path(folder) / name
    path.write_text(textwrap.dedent(text))
    return path


def tasks_file(folder: Path) -> Path:
    return write(folder, "my_tasks.py", TASKS)


def sensors_file(folder: Path) -> Path:
    return write(folder, "my_sensors.py", SENSORS)


class Still:
    """Brains that hold every muscle at rest (``muscles`` of them: the walker has 6)."""

    def __init__(self, muscles: int = 6):
        self.muscles = muscles

    def reset(self):
        pass

    def activate(self, inputs):
        import numpy as np
        return np.zeros((inputs.shape[0], self.muscles))

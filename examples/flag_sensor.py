"""A sensor of your own: the direction and the distance to the flag of ``flag_task.py``.

Run it (it evolves the walker on the flag task with this sensor added to the default ones):

    python examples/flag_sensor.py            # 30 generations of 150
    python examples/flag_sensor.py --smoke    # 2 small generations

or from the command line:

    creatures evolve walker --task examples/flag_task.py:ReachFlag \\
        --sensors examples/flag_sensor.py:FlagSensor

A sensor says how many inputs it adds (``size``), names them (``labels``, for the viewer's
brain panel) and fills them for the whole batch before every step (``read``). The brains of
the run get its inputs after the default ones.
"""

import sys
from pathlib import Path

import numpy as np

import evolution
from flag_task import FLAG_X  # a module beside a plug-in file can be imported


class FlagSensor(evolution.Sensor):
    """Where the flag is: its direction (-1 behind, +1 ahead) and distance (over the flag's)."""

    def size(self, ctx):
        return 2

    def labels(self, ctx):
        return ["flag direction", "flag distance"]

    def setup(self, ctx):
        mass = ctx.model.mass
        self.weight = mass / mass.sum(axis=1, keepdims=True)  # (B, P)
        self.start = np.zeros(ctx.batch)

    def reset(self, state, which):
        self.start[which] = (self.weight * state.pos[:, :, 0]).sum(axis=1)[which]

    def read(self, state, clock, out):
        # out: (B, 2), a view into the brains' inputs; fill it in place
        to_flag = self.start + FLAG_X - (self.weight * state.pos[:, :, 0]).sum(axis=1)
        out[:, 0] = np.sign(to_flag)
        out[:, 1] = np.minimum(np.abs(to_flag) / FLAG_X, 1.0)


def main(argv):
    from creatures.cli import main as creatures
    here = Path(__file__).parent
    size = (["--generations", "2", "--population", "12", "--seconds", "4", "--workers", "1"]
            if "--smoke" in argv else ["--generations", "30"])
    return creatures(["evolve", "walker", "--task", f"{here / 'flag_task.py'}:ReachFlag",
                      "--sensors", f"{__file__}:FlagSensor", *size,
                      *[a for a in argv if a != "--smoke"]])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

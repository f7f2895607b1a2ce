"""A task of your own, in pure numpy: walk to a flag 4 m away and stay there.

Run it (it evolves the walker on this task, then says where the results are):

    python examples/flag_task.py              # 30 generations of 150
    python examples/flag_task.py --smoke      # 2 small generations, a few seconds

or use it from the command line, like any task:

    creatures evolve walker --task examples/flag_task.py:ReachFlag

A task is a class with four methods, each working on the whole batch of B creatures at once
(numpy arrays, the batch axis first). Nothing in the package needs to change for it.
"""

import sys

import numpy as np

import evolution

#: where the flag stands (m, to the right of the start)
FLAG_X = 4.0
#: a creature that stays within NEAR metres of the flag for STAY seconds has arrived
NEAR = 0.3
STAY = 1.0


class ReachFlag(evolution.Task):
    """Walk to the flag 4 m away and stay there for a second: the sooner, the better."""

    measures = "metres closer to the flag, plus a metre per second to spare on arrival"
    default_terrain = "flat"

    def setup(self, ctx):
        # once per episode batch: the masses, to weigh the centre of mass, and per-creature arrays
        mass = ctx.model.mass                                # (B, P)
        self.weight = mass / mass.sum(axis=1, keepdims=True)
        self.x = np.zeros(ctx.batch)                          # centre of mass x now, (B,)
        self.start = np.zeros(ctx.batch)
        self.near_since = np.zeros(ctx.batch)                 # when it last came near, (B,) s
        self.arrived = np.zeros(ctx.batch, dtype=bool)
        self.spare = np.zeros(ctx.batch)                      # seconds left when it arrived
        self.seconds = ctx.steps * ctx.dt                     # the episode's length

    def reset(self, state, which):
        # creatures `which` (a (B,) bool mask) start: remember where
        x = (self.weight * state.pos[:, :, 0]).sum(axis=1)
        self.start[which] = x[which]
        self.x[which] = x[which]
        self.near_since[which] = np.inf
        self.arrived[which] = False
        self.spare[which] = 0.0

    def update(self, state, clock):
        # after every step: state.pos (B, P, 2), state.vel (B, P, 2); clock.time (B,) seconds
        self.x = (self.weight * state.pos[:, :, 0]).sum(axis=1)
        near = np.abs(self.x - self.start - FLAG_X) < NEAR
        self.near_since = np.where(near, np.minimum(self.near_since, clock.time), np.inf)
        here = (clock.time - self.near_since >= STAY) & ~self.arrived
        self.spare[here] = self.seconds - clock.time[here]
        self.arrived |= here

    def fitness(self):
        # (B,): how much closer to the flag than at the start, and the time to spare
        closer = FLAG_X - np.abs(self.x - self.start - FLAG_X)
        return closer + self.spare

    def ended(self):
        # creatures that have arrived are done: their fitness is kept as it is now
        return self.arrived


def main(argv):
    """Evolve the walker on this task with ``creatures evolve`` (the CLI, from Python)."""
    from creatures.cli import main as creatures
    size = (["--generations", "2", "--population", "12", "--seconds", "4", "--workers", "1"]
            if "--smoke" in argv else ["--generations", "30"])
    return creatures(["evolve", "walker", "--task", f"{__file__}:ReachFlag", *size,
                      *[a for a in argv if a != "--smoke"]])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

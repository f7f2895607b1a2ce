"""Tasks: what a creature is asked to do, on which terrain, and how it is scored.

==========  ===============  =================================================================
task        default terrain  fitness (metres)
==========  ===============  =================================================================
run         flat             distance the centre of mass travelled to the right
jump        flat             highest centre-of-mass height above its start height
climb       steps            highest terrain height reached under the centre of mass, plus a
                             hundredth of the distance travelled (credit for heading to the stairs)
obstacle    hurdles          distance travelled to the right over a course of hurdles
==========  ===============  =================================================================

A creature whose simulation becomes non-finite, or that breaks apart (a rigid bone off its length
by more than ``BROKEN_STRAIN``), gets ``WORST_FITNESS`` and is counted; the run goes on.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

import physics
from physics.sensors import creature_com

__all__ = ["Task", "TASKS", "WORST_FITNESS", "BROKEN_STRAIN", "make_task_terrain", "Tracker",
           "describe_fitness"]

TASKS = ("run", "jump", "climb", "obstacle")
DEFAULT_TERRAIN = {"run": "flat", "jump": "flat", "climb": "steps", "obstacle": "hurdles"}
TERRAINS = ("flat", "hills", "steps", "hurdles", "slope")

#: the fitness of a creature whose simulation failed; far below anything a creature can score
WORST_FITNESS = -1000.0
#: a rigid bone this far off its length means the creature broke apart
BROKEN_STRAIN = 0.5


_MEANING = {
    "run": "fitness is metres travelled to the right",
    "jump": "fitness is the highest centre-of-mass rise in metres",
    "climb": "fitness is the highest step height reached in metres (plus 1 % of the distance)",
    "obstacle": "fitness is metres travelled to the right over hurdles",
}


def describe_fitness(task: str) -> str:
    """What a task's fitness means, in words."""
    return _MEANING[task]


@dataclass(frozen=True)
class Task:
    """A task on a terrain."""

    name: str = "run"
    terrain: str | None = None  # None: the task's default
    seed: int = 0               # for random terrains (hills)

    def __post_init__(self):
        if self.name not in TASKS:
            raise ValueError(f"unknown task {self.name!r} (choose from {', '.join(TASKS)})")
        if self.terrain is not None and self.terrain not in TERRAINS:
            raise ValueError(f"unknown terrain {self.terrain!r} (choose from {', '.join(TERRAINS)})")

    @property
    def terrain_kind(self) -> str:
        return self.terrain or DEFAULT_TERRAIN[self.name]

    def make_terrain(self) -> physics.Terrain:
        return make_task_terrain(self.terrain_kind, self.seed)

    def to_dict(self) -> dict:
        return {"name": self.name, "terrain": self.terrain_kind, "seed": self.seed}


def make_task_terrain(kind: str, seed: int = 0) -> physics.Terrain:
    """The terrains tasks use: the engine's, plus a hurdle course."""
    if kind == "hurdles":
        return hurdles(seed)
    return physics.make_terrain(kind, seed)


def hurdles(seed: int = 0, height: float = 0.12, width: float = 0.3, spacing: float = 2.5,
            count: int = 60, start: float = 2.0) -> physics.Terrain:
    """A flat course with rounded hurdles (a raised cosine bump) every ``spacing`` metres."""
    xs, ys = [-1000.0], [0.0]
    for k in range(count):
        x0 = start + k * spacing
        u = np.linspace(0.0, 1.0, 9)
        xs += list(x0 + u * width)
        ys += list(height * 0.5 * (1.0 - np.cos(2.0 * np.pi * u)))
    xs.append(start + count * spacing + 1000.0)
    ys.append(0.0)
    return physics.Terrain(np.array(xs), np.array(ys), "hurdles")


class Tracker:
    """Per-creature bookkeeping during a rollout, updated by one kernel per step.

    Attributes
    ----------
    start : ndarray, shape (B, 2)
        Centre of mass at the start.
    com : ndarray, shape (B, 2)
        Centre of mass now.
    max_height : ndarray, shape (B,)
        Highest centre-of-mass height so far.
    max_ground : ndarray, shape (B,)
        Highest terrain height under the centre of mass so far.
    failed : ndarray of bool, shape (B,)
        Non-finite or broken apart at some step.
    nonfinite : ndarray of bool, shape (B,)
    """

    def __init__(self, task: Task, model: physics.Model, state: physics.State, terrain: physics.Terrain):
        self.task = task
        self.model = model
        self.terrain = terrain
        self.rigid = np.all(np.isinf(model.bone_max_force) & (model.bone_compliance == 0.0), axis=0)
        B = model.batch
        self.start = physics.centre_of_mass(model, state)
        self.com = self.start.copy()
        self.max_height = self.start[:, 1].copy()
        self.max_ground = terrain.height(self.start[:, 0])
        self.failed = np.zeros(B, dtype=np.bool_)
        self.nonfinite = np.zeros(B, dtype=np.bool_)

    def update(self, state: physics.State) -> None:
        m = self.model
        _track(state.pos, m.mass, m.bone_a, m.bone_b, m.bone_rest, self.rigid, self.terrain.xs,
               self.terrain.ys, self.com, self.max_height, self.max_ground, self.failed, self.nonfinite)

    def fitness(self) -> np.ndarray:
        """Fitness of every creature, shape (B,)."""
        name = self.task.name
        dx = self.com[:, 0] - self.start[:, 0]
        if name in ("run", "obstacle"):
            f = dx
        elif name == "jump":
            f = self.max_height - self.start[:, 1]
        else:  # climb
            f = self.max_ground + 0.01 * dx
        return np.where(self.failed, WORST_FITNESS, f)


@njit(cache=True)
def _track(pos, mass, bone_a, bone_b, bone_rest, rigid, xs, ys, com, max_height, max_ground,
           failed, nonfinite):
    for b in range(pos.shape[0]):
        if failed[b]:
            continue
        cx, cy = creature_com(mass, pos, b)
        if not (np.isfinite(cx) and np.isfinite(cy)):
            failed[b] = True
            nonfinite[b] = True
            continue
        for e in range(bone_a.shape[0]):
            if rigid[e]:
                dx = pos[b, bone_a[e], 0] - pos[b, bone_b[e], 0]
                dy = pos[b, bone_a[e], 1] - pos[b, bone_b[e], 1]
                if abs(np.sqrt(dx * dx + dy * dy) / bone_rest[b, e] - 1.0) > BROKEN_STRAIN:
                    failed[b] = True
        if failed[b]:
            continue
        com[b, 0] = cx
        com[b, 1] = cy
        max_height[b] = max(max_height[b], cy)
        max_ground[b] = max(max_ground[b], np.interp(cx, xs, ys))

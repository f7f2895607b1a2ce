"""Tasks: what creatures are asked to do and how they are scored, a whole batch at a time.

A task is a plug-in (:mod:`evolution.plugins`): a subclass of :class:`Task`
(:mod:`evolution.bases`). The built-in ones below are listed in the registry by where they are
(``evolution.tasks:Run``), as Gymnasium lists its environments:

==========  ===============  =================================================================
task        default terrain  fitness (metres)
==========  ===============  =================================================================
run         flat             distance the centre of mass travelled to the right
jump        flat             highest centre-of-mass height above its start height while no
                             sphere touches the ground
climb       steps            highest ground the creature stood on (the lowest terrain height
                             under the spheres touching the ground), plus a hundredth of the
                             distance travelled (credit for heading to the stairs)
obstacle    hurdles          distance travelled to the right over a course of hurdles
swim        (none: deep      distance the centre of mass travelled to the right, in water with
            water)           no ground in reach
fly         flat             the mean height of the centre of mass above its start over the
                             second half of the episode, counted while no sphere touches the
                             ground (0 while one does), in air
fly-far     flat             distance the centre of mass travelled to the right while no sphere
                             touched the ground (a step's travel counts when the creature is
                             airborne at its end), in air
==========  ===============  =================================================================

A task names the medium it is set in (:attr:`Task.medium`: ``water``, ``air`` or numbers,
``physics.medium_settings``) and whether there is ground at all (:attr:`Task.ground`);
``creatures evolve --medium`` overrides the medium. A flier scores only the height it holds in
the air: a single leap is over long before the second half, and a creature that hops is scored
only while it is off the ground, at the height it has then. Both fliers start on the ground, so
taking off is part of the task; a far flier is paid for the air it covers, so a runner that
hops earns only its hops.

Jump and climb score what the creature did, not what its centre of mass passed through: while
airborne the centre of mass moves as a thrown stone does, so only the take-off counts, never a
one-step spike; a climber is on a step when its feet are, not when it lunges its centre of mass
over the step's edge.

Whatever the task, a creature whose simulation becomes non-finite or whose body leaves the
physics behind (``physics.integrity``: a rigid bone stretched, a hinge forced, a sphere pushed
into the ground) gets ``WORST_FITNESS`` and is counted as failed; the run goes on (the episode
applies these rules, :mod:`evolution.rollout`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

import physics
from physics.sensors import creature_com
from physics.terrain import height_at

from .bases import Task

__all__ = ["Task", "Run", "Jump", "Climb", "Obstacle", "Swim", "Fly", "FlyFar", "WORST_FITNESS",
           "DEFAULT_TASK", "describe_fitness", "task_sim", "builtin_follow", "follow_builtin"]

#: the task when none is named: a run's (``evolution.run.RunSettings``, which every front end
#: asks for its defaults) and an episode's (``evolution.rollout.Episode``)
DEFAULT_TASK = "run"
#: the fitness of a creature whose simulation failed; far below anything a creature can score
WORST_FITNESS = -1000.0


def describe_fitness(task: str) -> str:
    """What the fitness of the task named ``task`` measures, as a sentence (``fitness is ...``)."""
    from .plugins import resolve
    return f"fitness is {resolve('task', task).sample.measures}"


def task_sim(task: Task, sim=None, medium=None):
    """The simulation settings of an episode of ``task`` (an instance): ``sim`` (default
    ``physics.SimParams()``) with the task's medium, or ``medium`` if given (a medium spec), and
    without ground if the task has none. Raises ValueError (one line) for a bad medium."""
    import dataclasses
    sim = sim or physics.SimParams()
    spec = getattr(task, "medium", "none") if medium is None else medium
    try:
        fluid = physics.medium_settings(spec)
    except ValueError as exc:
        where = "" if medium is not None else f"task {task.name or type(task).__name__}: "
        raise ValueError(f"{where}{exc}") from None
    ground = getattr(task, "ground", True)
    if not isinstance(ground, bool):
        raise ValueError(f"task {task.name or type(task).__name__}: ground must be True or False")
    return dataclasses.replace(sim, **fluid, ground=sim.ground and ground)


# --- the built-in tasks ------------------------------------------------------------------------------

class _CentreOfMassTask(Task):
    """Built-in tasks: the centre of mass at the start and now, followed by one kernel per step
    (the same arithmetic as the tracker they replace, so their fitness is bit for bit the same)."""

    def setup(self, ctx) -> None:
        B = ctx.batch
        self.start = np.zeros((B, 2))
        self.com = np.zeros((B, 2))
        self.best = np.zeros(B)   # what the task keeps the highest of

    def reset(self, state, which) -> None:
        com = physics.centre_of_mass(self.ctx.model, state)
        self.start[which] = com[which]
        self.com[which] = com[which]
        self.best[which] = com[which, 1]


class Run(_CentreOfMassTask):
    """Run to the right, as far as it can in the episode."""

    measures = "metres travelled to the right"
    default_terrain = "flat"

    def update(self, state, clock) -> None:
        _follow_com(state.pos, self.ctx.model.mass, self.com)

    def fitness(self) -> np.ndarray:
        return self.com[:, 0] - self.start[:, 0]


class Obstacle(Run):
    """Run to the right over a course of hurdles."""

    measures = "metres travelled to the right over hurdles"
    default_terrain = "hurdles"


class Jump(_CentreOfMassTask):
    """Jump: lift the centre of mass as high as it can above where it started, in the air."""

    measures = "the highest centre-of-mass rise while airborne in metres"

    def update(self, state, clock) -> None:
        _follow_airborne_height(state.pos, state.contact, self.ctx.model.mass, self.com, self.best)

    def fitness(self) -> np.ndarray:
        return self.best - self.start[:, 1]


class Climb(_CentreOfMassTask):
    """Climb the stairs: stand on the highest ground it can."""

    measures = "the highest step stood on in metres (plus 1 % of the distance)"
    default_terrain = "steps"

    def reset(self, state, which) -> None:
        super().reset(state, which)
        under = self.ctx.terrain.height(state.pos[..., 0])   # (B, P): where it starts
        self.best[which] = under.min(axis=1)[which]

    def update(self, state, clock) -> None:
        t = self.ctx.terrain
        _follow_ground_stood_on(state.pos, state.contact, self.ctx.model.mass, t.xs, t.ys, self.com,
                                self.best)

    def fitness(self) -> np.ndarray:
        return self.best + 0.01 * (self.com[:, 0] - self.start[:, 0])


class Swim(Run):
    """Swim to the right in deep water, nothing to stand on."""

    measures = "metres swum to the right"
    medium = "water"
    ground = False


class Fly(_CentreOfMassTask):
    """Fly: lift off and hold the centre of mass as high as it can over the second half."""

    measures = "mean height held in the air over the second half, in metres"
    medium = "air"

    def setup(self, ctx) -> None:
        super().setup(ctx)
        self.held = np.zeros(ctx.batch)          # sum of heights over the second half's steps
        self.from_step = ctx.steps // 2          # the second half: steps from_step+1 .. steps
        self.counted = max(ctx.steps - self.from_step, 1)

    def reset(self, state, which) -> None:
        super().reset(state, which)
        self.held[which] = 0.0

    def update(self, state, clock) -> None:
        _follow_held_height(state.pos, state.contact, self.ctx.model.mass, clock.step, self.from_step,
                            self.start, self.com, self.held)

    def fitness(self) -> np.ndarray:
        return self.held / self.counted


class FlyFar(_CentreOfMassTask):
    """Fly far: lift off and cover as much ground to the right as it can while in the air."""

    measures = "metres travelled to the right while airborne"
    medium = "air"

    def setup(self, ctx) -> None:
        super().setup(ctx)
        self.covered = np.zeros(ctx.batch)

    def reset(self, state, which) -> None:
        super().reset(state, which)
        self.covered[which] = 0.0

    def update(self, state, clock) -> None:
        _follow_airborne_travel(state.pos, state.contact, self.ctx.model.mass, self.com, self.covered)

    def fitness(self) -> np.ndarray:
        return self.covered.copy()


def builtin_follow(task):
    """``task``'s update as :func:`follow_builtin` takes it, ``(code, what it follows)``; None if
    it is not one of the built-ins (an exact class: a subclass may update otherwise)."""
    codes = {Run: 0, Obstacle: 0, Swim: 0, Jump: 1, Climb: 2, Fly: 3, FlyFar: 4}
    code = codes.get(type(task))
    if code is None:
        return None
    B = task.com.shape[0]
    own = {1: "best", 2: "best", 3: "held", 4: "covered"}.get(code)
    t = task.ctx.terrain
    return code, (task.com, getattr(task, own) if own else np.zeros(B), t.xs, t.ys, task.start,
                  int(getattr(task, "from_step", 0)))


@njit(cache=True, error_model="numpy")
def follow_builtin(code, follows, pos, contact, mass, step):
    """The update of the built-in task ``code`` (:func:`builtin_follow`) at a state's ``pos`` and
    ``contact``, the clock at ``step``."""
    com, own, xs, ys, start, from_step = follows
    if code == 0:
        _follow_com(pos, mass, com)
    elif code == 1:
        _follow_airborne_height(pos, contact, mass, com, own)
    elif code == 2:
        _follow_ground_stood_on(pos, contact, mass, xs, ys, com, own)
    elif code == 3:
        _follow_held_height(pos, contact, mass, step, from_step, start, com, own)
    else:
        _follow_airborne_travel(pos, contact, mass, com, own)


# The kernels stop following a creature whose centre of mass is not finite: it has failed (the
# episode's rules score it), and its last finite position stays.

@njit(cache=True, inline="always")
def _airborne(contact, b):
    """Whether none of creature ``b``'s spheres touches the ground."""
    for i in range(contact.shape[1]):
        if contact[b, i]:
            return False
    return True


@njit(cache=True, error_model="numpy")
def _follow_com(pos, mass, com):
    for b in range(pos.shape[0]):
        cx, cy = creature_com(mass, pos, b)
        if np.isfinite(cx) and np.isfinite(cy):
            com[b, 0] = cx
            com[b, 1] = cy


@njit(cache=True, error_model="numpy")
def _follow_airborne_height(pos, contact, mass, com, max_height):
    """The highest centre of mass of each creature at a step where none of its spheres touches."""
    for b in range(pos.shape[0]):
        cx, cy = creature_com(mass, pos, b)
        if np.isfinite(cx) and np.isfinite(cy):
            com[b, 0] = cx
            com[b, 1] = cy
            if _airborne(contact, b):
                max_height[b] = max(max_height[b], cy)


@njit(cache=True, error_model="numpy")
def _follow_ground_stood_on(pos, contact, mass, xs, ys, com, max_ground):
    """The highest ground each creature stands on: at a step where some of its spheres touch,
    the lowest terrain height under their centres (all its feet are at least that high)."""
    for b in range(pos.shape[0]):
        cx, cy = creature_com(mass, pos, b)
        if np.isfinite(cx) and np.isfinite(cy):
            com[b, 0] = cx
            com[b, 1] = cy
            lowest = np.inf
            for i in range(pos.shape[1]):
                if contact[b, i]:
                    lowest = min(lowest, height_at(xs, ys, pos[b, i, 0]))
            if lowest < np.inf:
                max_ground[b] = max(max_ground[b], lowest)


@njit(cache=True, error_model="numpy")
def _follow_held_height(pos, contact, mass, step, from_step, start, com, held):
    """Adds each creature's centre-of-mass height above its start to ``held`` at the steps of the
    second half where none of its spheres touches the ground."""
    for b in range(pos.shape[0]):
        cx, cy = creature_com(mass, pos, b)
        if np.isfinite(cx) and np.isfinite(cy):
            com[b, 0] = cx
            com[b, 1] = cy
            if step[b] > from_step and _airborne(contact, b):
                held[b] += cy - start[b, 1]


@njit(cache=True, error_model="numpy")
def _follow_airborne_travel(pos, contact, mass, com, covered):
    """Adds to ``covered`` each creature's travel to the right over this step if none of its
    spheres touches the ground at its end."""
    for b in range(pos.shape[0]):
        cx, cy = creature_com(mass, pos, b)
        if np.isfinite(cx) and np.isfinite(cy):
            if _airborne(contact, b):
                covered[b] += cx - com[b, 0]
            com[b, 0] = cx
            com[b, 1] = cy

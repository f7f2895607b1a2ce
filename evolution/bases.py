"""The plug-in API's base classes: :class:`Task`, :class:`Sensor` and :class:`TerrainMaker`
(subclass one to make a plug-in, :mod:`evolution.plugins`), and :class:`PluginError`.

A module of their own, as Gymnasium keeps ``Env`` apart from its registry: the registry
(:mod:`evolution.plugins`) and the built-ins (:mod:`evolution.tasks`, :mod:`evolution.sensors`,
:mod:`evolution.terrains`) both import it, and neither imports the other to exist.
"""

from __future__ import annotations

import numpy as np

import physics

__all__ = ["Task", "Sensor", "TerrainMaker", "PluginError"]


class PluginError(Exception):
    """A plug-in that cannot be found, loaded or used; ``str()`` is one line saying which and
    why."""


class Task:
    """What a batch of creatures is asked to do, and how each is scored.

    Subclass it and fill in :meth:`reset`, :meth:`update` and :meth:`fitness`; numpy in and
    out, the batch axis first (B creatures, P spheres of each). The same instance scores a whole
    batch for a whole episode, so per-creature state lives in arrays of length B::

        class Run(evolution.Task):
            "Run to the right."
            measures = "metres travelled to the right"

            def setup(self, ctx):
                self.start = np.zeros(ctx.batch)
                self.now = np.zeros(ctx.batch)

            def reset(self, state, which):
                self.start[which] = physics.centre_of_mass(self.ctx.model, state)[which, 0]
                self.now[which] = self.start[which]

            def update(self, state, clock):
                self.now[:] = physics.centre_of_mass(self.ctx.model, state)[:, 0]

            def fitness(self):
                return self.now - self.start

    The episode calls, in order: :meth:`setup` once (``self.ctx`` is set before it), then
    :meth:`reset` with every creature, then after every physics step :meth:`update`, and
    :meth:`fitness` whenever it wants the scores (at the end; the viewer and the Gymnasium
    environment every step, so it must not change anything). ``reset`` may come again for some
    creatures only (the vectorised Gymnasium environment restarts creatures one by one).

    Class attributes
    ----------------
    description : str
        One line: what the creature is asked to do (``creatures tasks`` lists it).
    measures : str
        What the fitness measures, in words (``metres travelled to the right``): the CLI, the
        charts' y axis and the viewer's HUD show it.
    default_terrain : str
        The terrain used when none is named: a terrain name in any form (``flat``,
        ``course.yaml``, ``file.py:Name``).
    medium : str or dict
        The fluid the task is set in: ``none`` (the default), ``water``, ``air``, or numbers
        (``water,flow_x=0.5``, ``{"density": 800}``: ``physics.medium_settings``).
    ground : bool
        Whether the ground exists (False: deep water or open sky, nothing to stand on; the
        creatures start where they would stand on the default terrain).
    name : str
        Set when the task is created: the name it was resolved by.
    """

    description: str = ""
    measures: str = "fitness"
    default_terrain: str = "flat"
    medium = "none"
    ground: bool = True
    name: str = ""

    def setup(self, ctx) -> None:
        """Once, before the first :meth:`reset`: allocate per-creature arrays.

        ``ctx`` (:class:`evolution.Context`, also ``self.ctx``) holds ``model`` (the batch's
        ``physics.Model``: ``mass (B, P)``, ``radius (B, P)``, ``bone_a``/``bone_b (E,)``...),
        ``terrain`` (``physics.Terrain``), ``sim`` (``physics.SimParams``), ``batch`` (B),
        ``steps`` (the episode's length in steps), ``dt``, ``body_size`` and ``rest_height``."""

    def reset(self, state: physics.State, which: np.ndarray) -> None:
        """Creatures ``which`` (bool, shape (B,)) start (again) from ``state``: ``state.pos
        (B, P, 2)``, ``state.vel (B, P, 2)``, ``state.contact (B, P)``. Leave the others."""

    def update(self, state: physics.State, clock) -> None:
        """After every step: the batch's new ``state`` and its ``clock`` (``clock.step (B,)``
        steps and ``clock.time (B,)`` seconds since each creature's start)."""

    def fitness(self) -> np.ndarray:
        """The fitness of every creature so far, shape (B,); finite numbers. A creature whose
        fitness is not finite (or all of them, for an array of the wrong shape) is counted as
        failed and scores ``WORST_FITNESS``."""
        raise NotImplementedError(f"{type(self).__name__} has no fitness()")

    def ended(self) -> np.ndarray | None:
        """Optional: creatures whose episode is over (bool, shape (B,)). Their fitness is frozen
        at this step's value; when every creature has ended, the episode stops early."""
        return None

    def failed(self) -> np.ndarray | None:
        """Optional: creatures that broke one of the task's own rules (bool, shape (B,)). They
        score ``WORST_FITNESS`` and are counted as failed, as a broken body is."""
        return None

    ctx = None  # the episode's Context, set before setup()


class Sensor:
    """Named inputs for the brain, read for a whole batch each step.

    Subclass it and fill in :meth:`size` and :meth:`read` (and :meth:`labels` for readable
    names); numpy in and out, the batch axis first::

        class Speed(evolution.Sensor):
            "The centre of mass's horizontal speed, in m/s over 5."

            def size(self, ctx):
                return 1

            def read(self, state, clock, out):
                out[:, 0] = physics.com_velocity(self.ctx.model, state)[:, 0] / 5.0

    The episode calls :meth:`setup` once (``self.ctx`` is set before it), :meth:`reset` for
    the creatures that start, then :meth:`read` before every step, for the brains to act on.

    Class attributes
    ----------------
    description : str
        One line: what it senses (``creatures sensors`` lists it).
    name : str
        Set when the sensor is created: the name it was resolved by.
    """

    description: str = ""
    name: str = ""
    ctx = None  # the episode's Context, set before setup()

    def size(self, ctx) -> int:
        """How many inputs it adds, for the creatures of ``ctx.model`` (the same for the whole
        batch)."""
        raise NotImplementedError(f"{type(self).__name__} has no size()")

    def labels(self, ctx) -> list[str]:
        """A short name per input (the viewer's brain panel shows them)."""
        n = self.size(ctx)
        return [self.name] if n == 1 else [f"{self.name} {k}" for k in range(n)]

    def bounds(self, ctx) -> tuple:
        """The range its inputs always stay within, ``(low, high)``: two numbers for all of them,
        or two arrays of :meth:`size`. The Gymnasium environment's observation space is made of
        them. Unbounded, ``(-inf, inf)``, unless the sensor says so."""
        return (-np.inf, np.inf)

    def setup(self, ctx) -> None:
        """Once, before the first :meth:`reset`: allocate what it keeps per creature."""

    def reset(self, state: physics.State, which: np.ndarray) -> None:
        """Creatures ``which`` (bool, shape (B,)) start (again) from ``state``."""

    def read(self, state: physics.State, clock, out: np.ndarray):
        """Fill ``out`` (shape (B, n), n = :meth:`size`; a view into the brains' inputs) with
        the inputs of every creature now, or return a (B, n) array. ``state.pos (B, P, 2)``,
        ``state.vel (B, P, 2)``, ``state.contact (B, P)``; ``clock.step (B,)`` and
        ``clock.time (B,)`` count from each creature's start."""
        raise NotImplementedError(f"{type(self).__name__} has no read()")


class TerrainMaker:
    """Makes the ground for an episode: subclass it and fill in :meth:`make`::

        class Ramp(evolution.TerrainMaker):
            "Flat for 2 m, then a 5 degree ramp."

            def make(self, seed):
                return physics.Terrain(np.array([-1000.0, 2.0, 1000.0]),
                                       np.array([0.0, 0.0, 998 * np.tan(np.radians(5))]), "ramp")

    Class attributes: ``description`` (one line for ``creatures terrains``; the docstring's
    first line if empty)."""

    description: str = ""

    def make(self, seed: int) -> physics.Terrain:
        """The terrain for a run with this ``seed`` (the same seed, the same terrain)."""
        raise NotImplementedError(f"{type(self).__name__} has no make()")

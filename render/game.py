"""What the game's screens are handed (``creatures play``): a menu to pick a creature from, and a
session (an evolution run in the background) to watch.

Like :mod:`render.scene`, this is a contract: the screens (:mod:`render.menu`, the start
screen; :mod:`render.play`, the evolution screen) draw these and call their methods; the
``creatures`` package builds them from its designs, tasks and run directories. Nothing here
steps physics or evolves: a :class:`Session` hands over :class:`~render.scene.Source` objects
to play, and the numbers of its generations to chart.

Every method that can fail for a reason the player should read (a design that does not load, a
disk that is full) raises :class:`GameError` with one line; the screens show it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from .scene import CreatureShape, Source

__all__ = ["GameError", "Pick", "GalleryItem", "Setup", "Menu", "Progress", "Session"]


class GameError(Exception):
    """Something the player asked for cannot be done; the message is one line, shown in the window."""


@dataclass(frozen=True)
class Pick:
    """One entry of a list to choose from (a task, a terrain): ``name`` is what is passed on,
    ``label`` what is shown (defaults to the name), ``description`` one line about it."""

    name: str
    description: str = ""
    label: str = ""

    @property
    def shown(self) -> str:
        return self.label or self.name


@dataclass(frozen=True)
class GalleryItem:
    """A design on the start screen.

    Attributes
    ----------
    name : str
        What :class:`Setup` passes on: a built-in design's name or a design file's path.
    title : str
        Shown on its card (the design's own name).
    description : str
        The design's description (may be long: the card wraps and cuts it).
    shape : CreatureShape or None
        How it looks (None: it does not load; ``problem`` says why).
    pose : ndarray, shape (P, 2)
        Its spheres' rest positions (m), drawn on the card, scaled to fit.
    origin : str
        ``built-in``, ``this directory`` (a design file in the working directory) or ``file``.
    problem : str or None
        Why it cannot be evolved (a design file with errors: its first problem, with line and
        column); the card shows it and cannot be started.
    task : str or None
        The task it was made for, if it says (``eel``: ``swim``): picked when it is chosen.
    """

    name: str
    title: str
    description: str = ""
    shape: CreatureShape | None = None
    pose: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    origin: str = "built-in"
    problem: str | None = None
    task: str | None = None


@dataclass
class Setup:
    """What the start screen hands back: a design (``GalleryItem.name``), a task and terrain
    (``Pick.name``; terrain ``None`` is the task's own), the population, the generations, the seed
    and the worker processes (0: one fewer than the cores, at least one)."""

    design: str
    task: str = "run"
    terrain: str | None = None
    population: int = 150
    generations: int = 50
    seed: int = 0
    workers: int = 0


class Menu(Protocol):
    """The start screen's data and its actions.

    Attributes
    ----------
    designs : list of GalleryItem
        The built-in designs, then the design files of the working directory.
    tasks : list of Pick
        The tasks (built-in and installed plug-ins), each with its one-line description.
    terrains : list of Pick
        The terrains; the first is the task's own (``name`` None is not allowed: its name is
        ``""``, label ``the task's own``).
    setup : Setup
        The defaults (``creatures evolve``'s), or what the command line asked for.
    population_range, generations_range : (int, int)
        The smallest and largest values the screen offers.
    """

    designs: list
    tasks: list
    terrains: list
    setup: Setup
    population_range: tuple
    generations_range: tuple

    def open(self, path: str) -> GalleryItem:
        """A design file the player typed the path of, added to :attr:`designs` (a file that
        does not load comes back with its ``problem``). :class:`GameError` if there is no such
        file."""

    def start(self, setup: Setup) -> "Session":
        """Start evolving: a new run directory, its evolution in background processes.
        :class:`GameError` (one line) if it cannot start (a design with errors, a bad setting)."""


@dataclass(frozen=True)
class Progress:
    """A run's finished generations, for the chart (the same numbers as ``creatures plot``).

    Attributes
    ----------
    generation : ndarray of int, shape (G,)
        1, 2, ... G (ascending).
    best, p90, p75, median, p25, p10, worst : ndarray, shape (G,)
        The fitness of each generation's best, percentiles, median and worst genome.
    species_ids : ndarray of int, shape (K,)
        Every species that has lived, oldest first.
    species_sizes : ndarray of int, shape (K, G)
        Members of each species in each generation (0 while it does not exist): stacked, the
        stack's height is the population.
    measures : str
        What fitness measures (``metres to the right``).
    """

    generation: np.ndarray
    best: np.ndarray
    p90: np.ndarray
    p75: np.ndarray
    median: np.ndarray
    p25: np.ndarray
    p10: np.ndarray
    worst: np.ndarray
    species_ids: np.ndarray
    species_sizes: np.ndarray
    measures: str = "fitness"

    @classmethod
    def empty(cls, measures: str = "fitness") -> "Progress":
        z = np.zeros(0)
        return cls(np.zeros(0, np.int64), z, z, z, z, z, z, z, np.zeros(0, np.int64),
                   np.zeros((0, 0), np.int64), measures)


class Session(Protocol):
    """A run being evolved in background processes (or a champion that may start one).

    Attributes
    ----------
    title : str
        ``walker - run on flat``.
    run_dir : str or None
        The run directory (None before a champion's run is started).
    total : int
        Generations the run goes to.
    done : int
        Generations finished (written to the run directory).
    state : str
        ``starting`` (workers starting, kernels compiling), ``evolving``, ``paused`` (stopped
        cleanly: :meth:`resume` goes on exactly), ``finished``, ``failed`` (``message`` says
        why) or ``champion`` (a champion file, no run yet: :meth:`evolve` starts one).
    message : str or None
        A line for the player: why evolution stopped, what was saved, where the run is.
    """

    title: str
    run_dir: str | None
    total: int
    done: int
    state: str
    message: str | None

    def poll(self) -> bool:
        """Look at the run directory (and the background process): True when generations
        finished (or the state changed) since the last poll. Called about twice a second."""

    def progress(self) -> Progress:
        """The finished generations' numbers."""

    def champion(self, generation: int | None = None) -> Source:
        """The champion of ``generation`` (None: the newest finished), replayed as evolution
        scored it. :class:`GameError` if there is none."""

    def race(self, generations: list) -> Source:
        """The champions of ``generations`` racing (each with its own body)."""

    def ghosts(self) -> Source | None:
        """The whole newest generation at once, each creature with its species' colour
        (``CreatureShape.color``) in a crowd scene (``Scene.crowd``); None before the run has a
        population."""

    def pause(self) -> None:
        """Stop evolution cleanly (the run's checkpoint is whole: :meth:`resume` goes on exactly)."""

    def resume(self) -> None:
        """Go on evolving after :meth:`pause` (or a run opened stopped)."""

    def evolve(self) -> None:
        """For a champion (``state == "champion"``): start a new run with its design, task and
        settings."""

    def save(self, generation: int | None = None) -> str:
        """Write the champion of ``generation`` (None: the newest) to a champion file, the
        format of ``creatures export``; returns its path. :class:`GameError` if it cannot."""

    def close(self) -> str:
        """Stop the background processes (cleanly: the run resumes exactly) and return a line
        for the terminal (where the run is, how to go on)."""

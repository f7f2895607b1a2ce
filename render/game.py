"""What the game's screens are handed: a menu to pick a creature from and a session (an evolution
run in the background) to watch (``creatures play``), and a design being edited (``creatures
edit``).

Like :mod:`render.scene`, this is a contract: the screens (:mod:`render.menu`, the start
screen; :mod:`render.play`, the evolution screen; :mod:`render.editor`, the editor) draw these
and call their methods; the ``creatures`` package builds them from its designs, tasks, run
directories and design files. Nothing here
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

__all__ = ["GameError", "Pick", "GalleryItem", "Setup", "Menu", "Progress", "Session", "BoardEntry", "Board", "Hall",
           "Sketch", "Issue", "Field", "DesignDoc"]


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
    grow : bool
        Evolved with a body that grows whatever :attr:`Setup.grow` says (*grow from scratch*:
        the sprout, two spheres and a muscle, that evolution builds on).
    """

    name: str
    title: str
    description: str = ""
    shape: CreatureShape | None = None
    pose: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    origin: str = "built-in"
    problem: str | None = None
    task: str | None = None
    grow: bool = False


@dataclass(kw_only=True)
class Setup:
    """What the start screen hands back: a design (``GalleryItem.name``), a task and terrain
    (``Pick.name``; terrain ``None`` is the task's own), the population, the generations, the seed
    and the worker processes (None: one fewer than the cores, at least one, so that the window
    keeps one; 0: one per core, as ``creatures evolve --workers 0``); the simulated seconds
    each creature is given (``seconds``), the starts each creature is scored from (``trials``)
    and how far each start moves every sphere (``noise``, metres; 0: the design's exact start),
    the sensors (``Pick.name`` of ``Menu.sensors``: a ``--sensors`` value, None the defaults)
    and the medium (``Pick.name`` of ``Menu.media``: a ``--medium`` value, None the task's own);
    whether the body grows (``grow``: evolution adds and removes spheres, bones and muscles, as
    ``creatures evolve --grow``; False: the design's body as it is).

    The run's settings have no defaults here: whoever makes one gives them (the ``creatures``
    package, from the run's own defaults), so that they are written in one place."""

    design: str
    task: str
    terrain: str | None = None
    population: int
    generations: int
    seed: int
    workers: int | None = None
    seconds: float
    trials: int
    noise: float
    sensors: str | None = None
    medium: str | None = None
    grow: bool = False


class Menu(Protocol):
    """The start screen's data and its actions.

    Attributes
    ----------
    designs : list of GalleryItem
        The built-in designs (and *grow from scratch*, ``GalleryItem.grow``), then the design
        files of the working directory.
    tasks : list of Pick
        The tasks (built-in and installed plug-ins), each with its one-line description.
    terrains : list of Pick
        The terrains; the first is the task's own (``name`` None is not allowed: its name is
        ``""``, label ``the task's own``).
    sensors : list of Pick
        The sensors a brain may have; the first the defaults (name ``""``), then the defaults
        with each other sensor (``rays``).
    media : list of Pick
        The fluids; the first the task's own (name ``""``: water for swim, air for fly, none
        for the others), then ``none``, ``water``, ``air``.
    setup : Setup
        The defaults (``creatures evolve``'s), or what the command line asked for.
    population_range, generations_range, seconds_range, trials_range : (int, int)
        The smallest and largest values the screen offers (trials step by doubling: 1, 2, 4...).
    noise_values : tuple of float
        The start noises (metres) the screen steps through, ascending (0: the exact start).
    """

    designs: list
    tasks: list
    terrains: list
    sensors: list
    media: list
    setup: Setup
    population_range: tuple
    generations_range: tuple
    seconds_range: tuple
    trials_range: tuple
    noise_values: tuple

    def open(self, path: str) -> GalleryItem:
        """A design file the player typed the path of, added to :attr:`designs` (a file that
        does not load comes back with its ``problem``). :class:`GameError` if there is no such
        file."""

    def start(self, setup: Setup) -> "Session":
        """Start evolving: a new run directory, its evolution in background processes.
        :class:`GameError` (one line) if it cannot start (a design with errors, a bad setting,
        a design that cannot grow when ``setup.grow``)."""

    def open_champion(self, path: str) -> "Session":
        """A champion file or a card the player opened (typed or dropped): a session in the
        ``champion`` state, to watch it and evolve it further. :class:`GameError` (one line)
        for a file that is not a usable champion."""


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
    failed : ndarray, shape (G,), or None
        The share (0..1) of each generation whose simulation failed (NaN: not known; None:
        none known). A failed creature scores the failure value (-1000), so that the plain
        percentiles dive when many fail: the chart draws the ``ok_`` ones and this share apart.
    ok_p90, ok_p75, ok_median, ok_p25, ok_p10, ok_worst : ndarray, shape (G,), or None
        The percentiles and worst of the creatures that did not fail (NaN: not known, a gap;
        None: the plain ones are drawn).
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
    failed: np.ndarray | None = None
    ok_p90: np.ndarray | None = None
    ok_p75: np.ndarray | None = None
    ok_median: np.ndarray | None = None
    ok_p25: np.ndarray | None = None
    ok_p10: np.ndarray | None = None
    ok_worst: np.ndarray | None = None

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

    def save_card(self, generation: int | None = None) -> str:
        """Write the champion of ``generation`` (None: the newest; a champion file's own) as a
        share card (a PNG holding it, as ``creatures card`` writes); returns its path.
        :class:`GameError` if it cannot."""

    def close(self) -> str:
        """Stop the background processes (cleanly: the run resumes exactly) and return a line
        for the terminal (where the run is, how to go on)."""


# --- the hall of fame (creatures play) --------------------------------------------------------------

@dataclass(frozen=True)
class BoardEntry:
    """One file of a board: ``rank`` (1 the best; 0: refused, ``reason`` says why in one line),
    its verified ``score`` (None when refused), and what it says of itself: ``name``, ``author``
    (empty: not said), ``generation`` (None: unknown) and ``champion`` (its hash, short)."""

    file: str
    rank: int = 0
    score: float | None = None
    name: str = ""
    author: str = ""
    generation: int | None = None
    champion: str = ""
    reason: str | None = None


@dataclass(frozen=True)
class Board:
    """A folder of entries verified for a challenge: ``entries`` ranked best first, then the
    refused ones; ``summary`` the challenge's rules in one line, ``measures`` what the score
    measures, ``pictures`` the PNG files of the folder that hold no champion (not entries)."""

    challenge: str
    summary: str
    measures: str
    folder: str
    entries: tuple = ()
    pictures: int = 0


class Hall(Protocol):
    """The hall of fame: boards of challenges, and their entries to watch and race.

    Attributes
    ----------
    challenges : list of Pick
        The challenges (``name``; ``description``: its rules in one line).
    folder : str
        The folder of entries shown first.
    mine : str or None
        The player's own champion (``walker run gen 12``), raced with the entries; None: none.
    """

    challenges: list
    folder: str
    mine: str | None

    def board(self, challenge: str, folder: str) -> Board:
        """Every champion file and card of ``folder`` verified for ``challenge`` (each is
        simulated again). :class:`GameError` (one line) for a folder that cannot be read."""

    def watch(self, files: list, mine: bool = False) -> Source:
        """The entries of ``files`` racing as ghosts (one: alone), with :attr:`mine` when
        ``mine``. :class:`GameError` (one line) if they cannot race."""


# --- the editor (creatures edit) ------------------------------------------------------------------

@dataclass(frozen=True)
class Sketch:
    """A design as the editor draws it: plain arrays, ids kept (the YAML's own).

    Attributes
    ----------
    sphere_id : tuple of str
    pos : ndarray, shape (P, 2)
        Sphere centres (m), as the file says (not settled by physics).
    radius : ndarray, shape (P,)
        Radii (m), defaults applied.
    bone_id : tuple of str
    bone_a, bone_b : ndarray of int, shape (E,)
        The spheres each bone joins (indices into the spheres; -1 for an id that names no sphere:
        such a bone is drawn from its other end only, and is one of the problems).
    muscle : ndarray of bool, shape (E,)
    joint_id : tuple of str
    joint_sphere : ndarray of int, shape (J,)
    joint_bones : ndarray of int, shape (J, 2)
        The two bones each joint is between (-1 for unknown ids).
    joint_kind : tuple of str
        ``hinge`` or ``free``.
    joint_min, joint_max : ndarray, shape (J,)
        A hinge's limits (degrees, as in the file: the angle from the first bone to the second,
        counter-clockwise); NaN for a free joint.
    cluster_id : tuple of str
    cluster_members : tuple of ndarray of int
        Each cluster's spheres.
    self_collision : bool
    evolving : frozenset of (str, str)
        ``(kind, id)`` of the items with an evolvable value or ``optional: true`` (drawn marked).
    sphere_color, bone_color : ndarray of uint8, shape (P, 3) and (E, 3)
        The design's looks: each sphere's and bone's colour, where ``sphere_colored`` and
        ``bone_colored`` (bool, (P,) and (E,)) say it has one (empty arrays: none at all).
    eyes : ndarray of bool, shape (P,)
        Spheres with an eye (empty: none).
    """

    sphere_id: tuple = ()
    pos: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    radius: np.ndarray = field(default_factory=lambda: np.zeros(0))
    bone_id: tuple = ()
    bone_a: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    bone_b: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    muscle: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    joint_id: tuple = ()
    joint_sphere: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    joint_bones: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), np.int64))
    joint_kind: tuple = ()
    joint_min: np.ndarray = field(default_factory=lambda: np.zeros(0))
    joint_max: np.ndarray = field(default_factory=lambda: np.zeros(0))
    cluster_id: tuple = ()
    cluster_members: tuple = ()
    self_collision: bool = False
    evolving: frozenset = frozenset()
    sphere_color: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), np.uint8))
    sphere_colored: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    bone_color: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), np.uint8))
    bone_colored: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    eyes: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))


@dataclass(frozen=True)
class Issue:
    """A problem of the design being edited: the loader's message (``line:column: ...``, as
    ``creatures validate`` prints it) and the items it is about, ``(kind, id)`` with kind one of
    ``sphere``, ``bone``, ``joint``, ``cluster`` (highlighted; empty for the whole design)."""

    message: str
    line: int = 0
    column: int = 0
    items: tuple = ()


@dataclass(frozen=True)
class Field:
    """One editable value of an item, for the side panel: ``key`` (``radius``, ``muscle.strength``,
    ``min``), ``value`` as the file has it (text: ``0.08``, ``{evolve: [0.05, 0.15]}``, ``true``),
    ``unit`` (``m``, ``kg``, ``N``, ``deg``, ``1/s``...; empty for none), ``default`` (True when the
    item does not say it and ``defaults:`` or the built-in default gives it), and ``hint`` (one
    line: what it means, the range it must be in)."""

    key: str
    value: str
    unit: str = ""
    default: bool = False
    hint: str = ""


class DesignDoc(Protocol):
    """A design file being edited (``creatures edit``). The YAML text is the source of truth:
    every edit rewrites the text (items it did not touch keep their lines, comments and key
    order), is checked by the loader ``creatures validate`` uses, and is one undo step.

    Items are named by ``(kind, id)``: kind ``sphere``, ``bone``, ``joint`` or ``cluster``.
    Methods that get a value the design cannot take raise :class:`GameError` (one line) and
    change nothing; edits that make the design invalid are made (the problems are listed in
    :attr:`problems`, the items highlighted) and can be undone.

    Attributes
    ----------
    path : str
        The file (written by :meth:`save`).
    title : str
        The design's name.
    text : str
        The YAML as it is now.
    sketch : Sketch
        What to draw (even while the design is invalid).
    problems : list of Issue
        Empty when the design is valid.
    dirty : bool
        Edited since opened or saved.
    can_undo, can_redo : bool
    terrains : list of Pick
        The terrains a live test can run on.
    """

    path: str
    title: str
    text: str
    sketch: Sketch
    problems: list
    dirty: bool
    can_undo: bool
    can_redo: bool
    terrains: list

    def add_sphere(self, x: float, y: float) -> str:
        """A new sphere at (x, y) (m) with the defaults; its new id (``sphere_7``)."""

    def move_spheres(self, ids, dx: float, dy: float) -> None:
        """Move spheres by (dx, dy) (m): one undo step."""

    def set_position(self, sphere: str, x: float, y: float) -> None:
        """Put a sphere at (x, y) (m)."""

    def add_bone(self, a: str, b: str) -> str:
        """A new bone between two spheres (a bone from a sphere to itself is made, and is a
        problem); its new id (``bone_3``)."""

    def toggle_muscle(self, bone: str) -> None:
        """A bone becomes a muscle (with the defaults), a muscle a bone."""

    def add_joint(self, sphere: str, bone1: str, bone2: str, kind: str = "hinge") -> str:
        """A new joint at ``sphere`` between two of its bones: a hinge limited to 45 degrees each
        side of the angle they make now, or ``free``; its new id (``joint_1``)."""

    def set_joint(self, joint: str, kind: str | None = None, min: float | None = None,
                  max: float | None = None) -> None:
        """Change a joint's kind or a hinge's limits (degrees)."""

    def add_cluster(self, spheres) -> str:
        """A new rigid cluster of these spheres (three or more); its new id."""

    def delete(self, items) -> None:
        """Delete items (``(kind, id)`` pairs); a sphere takes its bones, its joints and its
        place in clusters with it, a bone its joints. One undo step."""

    def fields(self, kind: str, id: str) -> list:
        """The item's editable values (list of :class:`Field`)."""

    def set_field(self, kind: str, id: str, key: str, text: str) -> None:
        """Set one value from what the player typed (a number; ``0.05..0.15`` for an evolvable
        range; ``true``/``false``; empty to fall back to the default). :class:`GameError` for
        text that is not a value of that field."""

    def mirror(self, items, axis_x: float = 0.0) -> list:
        """The other half of the selection: its spheres mirrored across the vertical line
        x = ``axis_x``, with the bones, joints and clusters among them (ids paired by a side
        suffix: ``knee_l`` / ``knee_r``; a hinge's limits mirrored). One undo step; returns the
        new items."""

    def pair_sphere(self, ident: str, axis_x: float = 0.0) -> tuple:
        """A sphere just placed and its mirror image, their ids paired by side (``sphere_7_l``,
        ``sphere_7_r``); one undo step; returns the two ids."""

    def duplicate(self, items, dx: float, dy: float) -> list:
        """A copy of the selection moved by (dx, dy) (m), with the parts among its spheres; one
        undo step; returns the new items."""

    def transform(self, spheres, angle: float = 0.0, scale: float = 1.0, about=None) -> None:
        """Rotate spheres by ``angle`` degrees and scale their distances by ``scale`` about
        ``about`` (default: their centre)."""

    def set_on_ground(self) -> None:
        """Move the creature so that its lowest sphere stands on the ground line."""

    def join(self, steps: int = 2) -> None:
        """The last ``steps`` edits become one undo step."""

    def undo(self) -> None:
        """Back one edit (exactly the text before it)."""

    def redo(self) -> None:
        """Forward one undone edit."""

    def save(self) -> str:
        """Write the file atomically; returns its path. :class:`GameError` (nothing written) if
        the design has problems or the file cannot be written."""

    def live_source(self, terrain: str = "") -> Source:
        """The last valid version on ``terrain`` (``""``: flat), its muscles on a sine wave, as
        ``creatures preview`` plays it. :class:`GameError` if it has never been valid."""

    def evolve(self) -> str:
        """Start evolving the design (saved first): ``creatures play FILE`` in a new process;
        returns a line saying what was done (or the ``creatures evolve`` command to run)."""

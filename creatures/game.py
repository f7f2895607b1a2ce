"""The play window: its start screen's choices (:class:`PlayMenu`, ``render.game.Menu``) and
the window that shows the start screen and the evolution screen (:class:`Game`)."""

from __future__ import annotations

import dataclasses
import os
import sys
from pathlib import Path

import numpy as np

import physics
from evolution.growth import seed_limits
from evolution.sensors import sensor_list
from evolution.trials import MAX_TRIALS
from render.game import GalleryItem, GameError, Pick, Setup

from .design import DesignError, builtin_names, resolve_design
from .runs import new_run_dir
from .session import DEFAULT_SETUP, PlaySession, start
from .shipped import SAVES_DIR
from .sources import creature_shape

POPULATION_RANGE = (10, 1000)
GENERATIONS_RANGE = (1, 10000)
#: the episode's simulated seconds the start screen steps through (the command line takes any)
SECONDS_RANGE = (2, 60)
#: the trials (starts each creature is scored from) the start screen steps through, doubling
#: (the command line takes any up to evolution.trials.MAX_TRIALS)
TRIALS_RANGE = (1, min(8, MAX_TRIALS))
#: the start noises (metres) the start screen steps through: the exact start, 0.1 mm, 1 mm, 1 cm
#: (the command line takes any up to evolution.trials.MAX_NOISE)
NOISE_VALUES = (0.0, 1e-4, 1e-3, 1e-2)
#: the fluids the start screen offers after the task's own: (name, what it is)
MEDIA_PICKS = (("none", "no fluid: on the ground, in a vacuum"),
               ("water", "water (1000 kg/m^3): buoyancy and drag; swimmers push against it"),
               ("air", "air (1.2 kg/m^3): a little drag; wings lift"))
#: random creatures the start screen shows after the designs (``creatures random``'s, by name)
RANDOM_ON_START = 3
#: the design *grow from scratch* evolves, with growth on (the start screen's first card)
SCRATCH_DESIGN = "sprout"

# --- the start screen's data --------------------------------------------------------------------

def _shipped_tasks() -> dict:
    """Design name -> the task its shipped champion was evolved for (``saves/NAME-TASK.json``;
    ``run`` when there is one for it), to pick that task when the design is chosen."""
    from evolution.plugins import available
    tasks = {p.name for p in available("task") if p.problem is None}
    out = {}
    for path in sorted(SAVES_DIR.glob("*.json")):
        for task in tasks:     # a task's name may have a dash in it itself (glider-fly-far)
            design = path.stem[:-len(task) - 1] if path.stem.endswith("-" + task) else ""
            if design and (design not in out or task == "run"):
                out[design] = task
    return out


def gallery_item(name: str, origin: str = "built-in", task: str | None = None) -> GalleryItem:
    """A design as the start screen shows it: drawn in its rest pose; a design that does not
    load comes with its first problem."""
    try:
        design = resolve_design(name)
    except DesignError as exc:
        problem = str(exc).splitlines()[0] if str(exc) else "it does not load"
        return GalleryItem(name=name, title=Path(name).stem, origin=origin, problem=problem)
    model = physics.build_model(design.body, 1)
    shape = creature_shape(model, design.name, {"design": design.name}, looks=design.looks)
    return GalleryItem(name=name, title=design.name, description=" ".join(design.description.split()),
                       shape=shape, pose=np.array(model.rest_pos[0], np.float64), origin=origin, task=task)


def scratch_item() -> GalleryItem:
    """*Grow from scratch*, as the start screen shows it: the sprout (two spheres and a muscle),
    evolved with a body that grows whatever the growth toggle says (``GalleryItem.grow``)."""
    item = gallery_item(SCRATCH_DESIGN)
    return dataclasses.replace(item, title="grow from scratch", grow=True, description=(
        f"Two spheres and a muscle (the {SCRATCH_DESIGN}); evolution grows the rest: spheres, bones and "
        "muscles, added and removed as the generations go."))


def grow_limits(body: physics.Body) -> dict:
    """The growth settings (``RunSettings.grow``) of a run the start screen starts: the default
    limits (``GrowSettings``'), raised to the design's own spheres, bones and muscles where it
    has more (up to 64), so that a design bigger than the defaults (the eel's 13 spheres) grows
    from itself instead of being refused; ``{}`` for one within them
    (:func:`evolution.growth.seed_limits`, as ``creatures evolve --grow`` does)."""
    return seed_limits(body)


class PlayMenu:
    """The start screen's choices (``render.game.Menu``): *grow from scratch* (the sprout with a
    body that grows), the built-in designs, this directory's design files and a few random
    creatures (``creatures random``'s), the tasks and terrains there are (built-in and
    installed), and ``creatures evolve``'s defaults."""

    population_range = POPULATION_RANGE
    generations_range = GENERATIONS_RANGE
    seconds_range = SECONDS_RANGE
    trials_range = TRIALS_RANGE
    noise_values = NOISE_VALUES

    def __init__(self, setup: Setup | None = None, directory: str = ".", out_dir: str = "runs",
                 random_seed: int | None = None):
        from evolution.plugins import available
        from evolution.sensors import DEFAULT_SENSORS
        self.setup = setup or dataclasses.replace(DEFAULT_SETUP)
        self.out_dir = out_dir
        shipped = _shipped_tasks()
        self.designs = [scratch_item()]
        self.designs += [gallery_item(n, "built-in", shipped.get(n)) for n in builtin_names()]
        for path in sorted(Path(directory).glob("*.y*ml")):
            if path.suffix.lower() in (".yaml", ".yml") and path.is_file() and not _is_terrain(path):
                self.designs.append(gallery_item(str(path), "this directory"))
        # a few random creatures, new ones each time (``random_seed`` fixes them): by name, so a
        # run of one says which (``creatures evolve random-S-N`` grows the same body)
        if random_seed is None:
            random_seed = int.from_bytes(os.urandom(4), "little") % 100_000
        self.designs += [gallery_item(f"random-{random_seed}-{k + 1:03d}", "random") for k in range(RANDOM_ON_START)]
        self.tasks = [Pick(p.name, _one_line(p.description)) for p in available("task") if p.problem is None]
        self.terrains = [Pick("", "the ground the task is made for", "the task's own")]
        self.terrains += [Pick(p.name, _one_line(p.description)) for p in available("terrain") if p.problem is None]
        self.sensors = [Pick("", ", ".join(DEFAULT_SENSORS), "the defaults")]
        self.sensors += [Pick(p.name, _one_line(p.description), f"defaults + {p.name}")
                         for p in available("sensor") if p.problem is None and p.name not in DEFAULT_SENSORS]
        self.media = [Pick("", "water for swim, air for fly, none for the others", "the task's own")]
        self.media += [Pick(name, what) for name, what in MEDIA_PICKS]

    def open(self, path: str) -> GalleryItem:
        path = path.strip()
        if not path:
            raise GameError("type the path of a design file (.yaml)")
        if not Path(path).is_file():
            raise GameError(f"{path}: no such file")
        item = gallery_item(path, "file")
        self.designs.append(item)
        return item

    def open_champion(self, path: str) -> PlaySession:
        """A champion file or a card, to watch and evolve further (as ``creatures play FILE``)."""
        from evolution.champion import ChampionError, load_champion
        path = path.strip()
        if not Path(path).is_file():
            raise GameError(f"{path}: no such file")
        try:
            champion = load_champion(path)
            champion.brains()
        except ChampionError as exc:
            raise GameError(f"{path}: {exc}") from None
        return PlaySession(workers=self.setup.workers, champion=champion, champion_path=path, out_dir=self.out_dir)

    def start(self, setup: Setup) -> PlaySession:
        try:
            design = resolve_design(setup.design)
        except DesignError as exc:
            raise GameError(" ".join(str(exc).splitlines()[0].split())) from None
        session = PlaySession(workers=setup.workers)
        session.state = "starting"
        session.run_dir = None
        try:
            sensors = sensor_list(setup.sensors) if setup.sensors else None
        except ValueError as exc:
            raise GameError(f"sensors: {exc}") from None
        out = new_run_dir(self.out_dir, design.name, setup.task)
        # what the start screen does not offer (the trials' statistic, the network...) is the run's
        # default; a design that cannot grow (clusters, muscle groups) is refused
        # by the run in one line
        start(session, out, design, task=setup.task, terrain=setup.terrain or None, sensors=sensors,
              seconds=float(setup.seconds), generations=int(setup.generations), population=int(setup.population),
              seed=int(setup.seed), workers=0, medium=setup.medium or None, trials=int(setup.trials),
              noise=float(setup.noise), grow=grow_limits(design.body) if setup.grow else None)
        return session


def _is_terrain(path: Path) -> bool:
    """A terrain file (``points:`` or ``pieces:`` at the top), not a design."""
    try:
        head = path.read_text(errors="replace")[:4000]
    except OSError:
        return False
    return any(line.startswith(("points:", "pieces:")) for line in head.splitlines())


def _one_line(text: str, width: int = 140) -> str:
    text = " ".join(str(text or "").split())
    return text if len(text) <= width else text[:width - 1].rstrip() + "\u2026"


def play_window(session, menu, size=(1280, 720), window=None) -> int:
    """Open the game window: the start screen (``menu``) or straight into ``session``; run until
    it is closed, then stop the background run cleanly and say where it is."""
    import arcade
    game = Game(menu, session, size, window)
    try:
        arcade.run()
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
    finally:
        line = game.close()
    if line:
        print(line, file=sys.stderr)
    return 0


def _drop_window():
    """arcade's window class, told to report files dropped on it (pyglet's ``file_drops``, which
    arcade's constructor does not pass on: pyglet reads it when it makes the window)."""
    import arcade

    class PlayWindow(arcade.Window):
        def _create(self):
            self._file_drops = True
            super()._create()
    return PlayWindow


class Game:
    """The window and its screens: the start screen (``render.menu.StartView``) hands a session
    to the evolution screen (``render.play.PlayView``); both open the hall of fame
    (``render.hall.HallView``). ``window``: an existing one (the tests'); else a new ``size``
    window, which reports files dropped on it. Public so that tests drive it through its views'
    input handlers."""

    def __init__(self, menu, session=None, size=(1280, 720), window=None):
        from render.menu import StartView
        self.window = window or _drop_window()(int(size[0]), int(size[1]), "creatures - play", resizable=True,
                                              antialiasing=False)  # the shaders antialias: 4x MSAA costs 2x on llvmpipe
        self.menu, self.session = menu, None
        self.start_view = None
        self.play_view = None
        self.hall_view = None
        if session is not None:
            self.show(session)
        else:
            self.start_view = StartView(menu, self.show, window=self.window, on_quit=self.quit,
                                        on_hall=lambda: self.show_hall(self.start_view))
            self.window.show_view(self.start_view)

    def show(self, session) -> None:
        from render.play import PlayView
        self.session = session
        self.play_view = PlayView(session, window=self.window, on_quit=self.quit,
                                  on_hall=lambda: self.show_hall(self.play_view, session))
        self.window.show_view(self.play_view)

    def show_hall(self, back_to, session=None) -> None:
        """The hall of fame (``render.hall.HallView``) of the working directory's entries, with
        ``session``'s champion to race; Back returns to ``back_to``."""
        from render.hall import HallView

        from .hall import PlayHall

        def back():
            self.window.show_view(back_to)
            back_to.on_resize(*self.window.get_size())
        self.hall_view = HallView(PlayHall(".", session), back, window=self.window)
        self.window.show_view(self.hall_view)

    def quit(self) -> None:
        if not self.window.closed:
            self.window.close()

    def close(self) -> str:
        line = self.session.close() if self.session is not None else ""
        if not self.window.closed:
            self.window.close()
        return line

"""Play: one window to pick a creature, evolve it, and watch it learn live.

With no argument it opens the start screen: grow from scratch (the sprout, its body grown by
evolution) and the built-in designs as a gallery (and the design files of this directory), a
task, a terrain, the medium, the sensors, whether the body grows (``--grow``), the population,
the generations, the episode's seconds, the trials and their start noise (``creatures
evolve``'s defaults); start, and the evolution screen shows each generation's champion as soon as its
generation ends (skipping ahead to the newest when they come faster than they can be watched),
the whole generation at once as ghosts, a live fitness chart and species stack, and a scrubber
to watch any generation's champion or race generation 1's against the latest; once the run has
finished, its best champions play in turn. Evolution runs in a background process
(``creatures resume`` on a normal run directory under ``runs/``), so ``creatures resume``,
``plot``, ``export`` and ``watch`` work on it afterwards; pausing, closing the window or Ctrl-C
stop it cleanly, and it resumes exactly. Press H in the window for the keys.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import physics
from evolution.champion import ChampionError, load_champion
from evolution.sensors import sensor_list
from evolution.trials import MAX_NOISE, MAX_TRIALS
from evolution.yamlread import did_you_mean
from render.game import GameError

from ..design import builtin_names
from ..game import GENERATIONS_RANGE, POPULATION_RANGE, PlayMenu, play_window
from ..runs import MAX_SECONDS
from ..session import DEFAULT_SETUP, PlaySession
from ..shipped import champion_path, shipped_names

EXAMPLES = """examples:
  creatures play                                       the start screen: pick a creature, a task, start
  creatures play walker --task jump --population 100   evolve the walker to jump, at once
  creatures play eel --seconds 10 --sensors rays       the eel, 10 s tries, with distance rays
  creatures play walker --trials 4 --noise 0.01        each creature scored from 4 starts moved 1 cm
  creatures play sprout --grow                         grow a body from scratch: evolution adds the parts
  creatures play <RUN_DIR>                             go on with a stopped run in the window
  creatures play walker-run                            watch a shipped champion; E evolves its design further
  creatures play <CHAMPION.json>                       a champion file (creatures export makes one)
  xvfb-run -a creatures play                           on a machine without a display (a virtual one)
"""


# --- the command --------------------------------------------------------------------------------

def add_arguments(parser) -> None:
    parser.add_argument("target", nargs="?", default=None, metavar="DESIGN|CHAMPION|RUN_DIR",
                        help="a design (built-in name or YAML file: evolve it at once), a champion file "
                             "(watch it; E evolves its design further) or a run directory (go on with it); "
                             "none: the start screen")
    d = DEFAULT_SETUP
    parser.add_argument("--task", default=None, help=f"the task (default {d.task}; creatures tasks lists them)")
    parser.add_argument("--terrain", default=None, help="the terrain (default: the task's own)")
    parser.add_argument("--population", type=int, default=None,
                        help=f"genomes per generation (default {d.population})")
    parser.add_argument("--generations", type=int, default=None, help=f"generations (default {d.generations})")
    parser.add_argument("--seed", type=int, default=None, help=f"the run's seed (default {d.seed})")
    parser.add_argument("--seconds", type=float, default=None,
                        help=f"simulated seconds each creature is tried for (default {d.seconds:g})")
    parser.add_argument("--trials", type=int, default=None,
                        help=f"starts each creature is scored from, as for creatures evolve (default {d.trials})")
    parser.add_argument("--noise", type=float, default=None, metavar="METRES",
                        help=f"how far each trial's start moves every sphere, as for creatures evolve "
                             f"(default {d.noise:g} m, 0: the design's exact start)")
    parser.add_argument("--sensors", default=None, metavar="S1,S2",
                        help="sensors to add to the default ones, as creatures evolve takes them (e.g. rays)")
    parser.add_argument("--medium", default=None, metavar="MEDIUM",
                        help="none, water, air or numbers, as creatures evolve takes them (default: the task's own)")
    parser.add_argument("--grow", action="store_true",
                        help="let evolution add and remove spheres, bones and muscles, as creatures evolve --grow "
                             "does (limits: its defaults, or the design's own size where it is bigger); "
                             "without a design: the start screen's growth toggle starts on")
    parser.add_argument("--workers", type=int, default=None,
                        help="processes that evaluate a generation in the background: 0 is one per core, "
                             "as for creatures evolve (default: one fewer than the cores, at least 1, so "
                             "that the window keeps one)")
    parser.add_argument("--size", default="1280x720", help="window size WxH (default 1280x720)")


def _fail(message: str) -> int:
    print(f"creatures play: {message}", file=sys.stderr)
    return 2


def no_display_message() -> str:
    return ("creatures play: no display to open a window on (DISPLAY is not set); run it on a desktop or "
            "under a virtual one (xvfb-run -a creatures play), or evolve headless with creatures evolve "
            "and make a GIF with creatures record")


def play_target(target: str) -> str:
    """What ``creatures play TARGET`` opens: ``target`` itself when it is a file or folder here or
    a built-in design's name, else the shipped champion of that name (``walker-run``, as replay,
    watch and record take one). A bare name that is none of these raises :class:`GameError` with
    the closest design or champion; a path is left for its reader to refuse."""
    path = Path(target)
    designs = builtin_names()
    if path.exists() or target in designs:
        return target
    try:
        return champion_path(target)
    except ChampionError:
        pass
    if path.name != target or path.suffix.lower() in (".yaml", ".yml", ".json", ".png"):
        return target
    champions = shipped_names()
    raise GameError(f"{target}: no built-in design, shipped champion or file of that name"
                    f"{did_you_mean(target, designs + champions)} (built-in designs: {', '.join(designs)}; "
                    f"shipped champions: {', '.join(champions) or 'none'})")


def run(args) -> int:
    from ..display import has_display
    from .args import parse_size
    try:
        size = parse_size(args.size)
    except ValueError as exc:
        return _fail(str(exc))
    if args.workers is not None and args.workers < 0:
        return _fail(f"--workers must be 1 or more (or 0: one per core), not {args.workers}")
    for name, low, high in (("population", *POPULATION_RANGE), ("generations", *GENERATIONS_RANGE)):
        v = getattr(args, name)
        if v is not None and not low <= v <= high:
            return _fail(f"--{name} must be {low} to {high}, not {v}")
    if args.seed is not None and args.seed < 0:
        return _fail(f"--seed must be 0 or more, not {args.seed}")
    if args.seconds is not None and not 0 < args.seconds < MAX_SECONDS:  # also refuses nan
        return _fail(f"--seconds must be a number of seconds above 0 and below {MAX_SECONDS:.0f}, not {args.seconds:g}")
    if args.trials is not None and not 1 <= args.trials <= MAX_TRIALS:
        return _fail(f"--trials must be a whole number from 1 to {MAX_TRIALS}, not {args.trials}")
    if args.noise is not None and not 0 <= args.noise <= MAX_NOISE:  # also refuses nan
        return _fail(f"--noise must be a number of metres from 0 to {MAX_NOISE:g}, not {args.noise:g}")
    for name, check in (("sensors", sensor_list), ("medium", physics.medium_settings)):
        try:
            if getattr(args, name) is not None:
                check(getattr(args, name))
        except ValueError as exc:
            return _fail(f"--{name}: {exc}")
    setup = dataclasses.replace(DEFAULT_SETUP, workers=args.workers, grow=bool(args.grow))
    for name in ("task", "terrain", "population", "generations", "seed", "seconds", "trials", "noise", "sensors",
                 "medium"):
        if getattr(args, name) is not None:
            setattr(setup, name, getattr(args, name))
    try:
        target = None if args.target is None else play_target(args.target)
    except GameError as exc:
        return _fail(str(exc))
    if args.grow and target is not None:
        path = Path(target)
        if path.is_dir() or path.suffix.lower() in (".json", ".png"):
            what = "a run directory (it grows as it was started)" if path.is_dir() else "a champion file"
            return _fail(f"--grow is for a design or the start screen; {args.target} is {what}")
    if not has_display():
        print(no_display_message(), file=sys.stderr)
        return 2
    session = None
    try:
        if target is not None:
            path = Path(target)
            if path.is_dir():
                session = PlaySession(path, workers=args.workers)
                session.resume()
            elif path.suffix.lower() in (".json", ".png"):    # a champion file or a card
                try:
                    champion = load_champion(path)
                    champion.brains()
                except ChampionError as exc:
                    return _fail(f"{path}: {exc}")
                if champion.earlier_engine():
                    print(f"{path}: {champion.earlier_engine()}", file=sys.stderr)
                session = PlaySession(workers=args.workers, champion=champion, champion_path=path)
            else:
                setup.design = target
                session = PlayMenu(setup).start(setup)
    except GameError as exc:
        return _fail(str(exc))
    return play_window(session, PlayMenu(setup) if session is None else None, size)

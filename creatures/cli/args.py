"""What several commands share on the command line: the plug-in option and its one-line errors,
sizes in pixels, and the champions the window commands show."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from evolution.champion import ChampionError
from evolution.yamlread import YamlError

from ..shipped import DEFAULT_SAVE, SAVES_DIR

#: the smallest and largest window (or GIF, video) ``--size`` takes
WINDOW_SIZES = ((64, 64), (7680, 4320))

PLUGIN_HELP = ("a plug-in file (path/to/file.py[:Name]) or module (package.module[:Name]) that a "
               "champion's task or sensors come from; a champion file never loads code by itself. "
               "It must be the file the champion was made with (same content); repeatable")


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill PID``), raised where the program is, as Ctrl-C raises KeyboardInterrupt:
    every command stops on it as on a Ctrl-C (a run keeps its last checkpoint and says how to go
    on), and exits with 143."""


def stop_on_sigterm() -> None:
    """Make SIGTERM raise :class:`Terminated` in the main thread (see there)."""
    import signal

    def terminated(signum, frame):
        raise Terminated()
    signal.signal(signal.SIGTERM, terminated)


def stopping() -> None:
    """The program is on its way out after a Ctrl-C or a kill: a second one (an impatient user,
    ``timeout -s INT`` to the whole process group) is ignored from here to the exit. Else one
    landing after the run's clean-up, while the message is printed or the interpreter shuts down,
    raised again there and killed the process by the signal (exit -2) after it had stopped
    cleanly."""
    import signal

    for s in (signal.SIGINT, signal.SIGTERM):
        signal.signal(s, signal.SIG_IGN)


def plugin_error(command: str, exc: Exception) -> str:
    """What to print for a plug-in that cannot be used: a file's problems as they are
    (``file:line:column: message``, like ``creatures validate``), else (no such file, one that
    cannot be read, any other plug-in) each line with the command's prefix."""
    if isinstance(exc, YamlError) and any(p.line > 0 for p in exc.problems):
        return str(exc)
    return "\n".join(f"creatures {command}: {line}" for line in str(exc).splitlines())


def add_plugin_argument(parser) -> None:
    parser.add_argument("--plugin", action="append", default=[], metavar="FILE_OR_MODULE",
                        help=PLUGIN_HELP)


def parse_size(text: str, smallest=WINDOW_SIZES[0], largest=WINDOW_SIZES[1]) -> tuple[int, int]:
    """``--size 1280x720`` -> (1280, 720), each within ``smallest`` .. ``largest``; ValueError
    with a one-line reason that names the option otherwise."""
    m = re.fullmatch(r"\s*([-+]?\d+)\s*[xX\u00d7]\s*([-+]?\d+)\s*", str(text))
    if not m:
        raise ValueError(f"--size must be WIDTHxHEIGHT in pixels, like 1280x720, not {text!r}")
    w, h = int(m[1]), int(m[2])
    if not (smallest[0] <= w <= largest[0] and smallest[1] <= h <= largest[1]):
        raise ValueError(f"--size {text}: width and height must be {smallest[0]}x{smallest[1]} to "
                         f"{largest[0]}x{largest[1]} pixels")
    return w, h


def add_race_argument(parser) -> None:
    parser.add_argument("--race", metavar="GENS", default=None,
                        help="race the champions of these generations of one run directory, each with "
                             "its own body: numbers, last, best, comma-separated (e.g. 1,last)")
    add_trial_argument(parser)


def add_trial_argument(parser) -> None:
    parser.add_argument("--trial", type=int, default=1, metavar="N",
                        help="a champion scored over several trials is shown in its trial N (default 1): each "
                             "started elsewhere, and its fitness at the end is that trial's")


def trial_index(args) -> int:
    """``--trial`` as an index from 0; ValueError (one line) below 1."""
    trial = getattr(args, "trial", 1)
    if trial < 1:
        raise ValueError(f"--trial counts from 1, not {trial}")
    return trial - 1


def race_generations(args):
    """The generations ``--race`` names (None without it); ValueError (one line) for bad text."""
    if getattr(args, "race", None) is None:
        return None
    from ..sources import parse_generations
    return parse_generations(args.race)


def default_targets() -> list[str]:
    path = SAVES_DIR / DEFAULT_SAVE
    if not path.exists():
        raise ChampionError(f"no champion given, and the shipped one ({path}) is missing")
    return [str(path)]


def not_a_design(targets) -> None:
    """Raise :class:`ChampionError` for a target that is a design (a built-in name, a YAML file),
    not a champion: saying how to see it move instead."""
    from ..design import builtin_names
    for t in targets:
        path = Path(t)
        if path.suffix.lower() in (".yaml", ".yml") or (t in builtin_names() and not path.exists()):
            raise ChampionError(f"{t} is a design, not a champion: to see it move, creatures preview "
                                f"{shlex.quote(t)}; to evolve a brain for it, creatures evolve {shlex.quote(t)}")


def champion_source(args, race_example: str, follow: bool = False):
    """What ``creatures watch`` and ``record`` show: the champion files or run directories
    named (a shipped champion by name; none: the shipped default), or with ``--race`` the
    generations of one run raced. Raises ValueError or :class:`ChampionError` with a one-line
    reason (``race_example``: the command line that --race wants)."""
    not_a_design(args.targets)
    from ..sources import load_sources
    generations = race_generations(args)
    if generations is not None and not args.targets:
        raise ChampionError(f"--race needs a run directory: {race_example}")
    return load_sources(args.targets or default_targets(), follow=follow, plugins=args.plugin,
                        generations=generations, trial=trial_index(args))

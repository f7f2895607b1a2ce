"""Watch champions race in a window, replayed with the very stepping code that scored them.

With no argument it plays a champion shipped in ``saves/`` (and any of them by name: walker-run).
Several files race side by side on one terrain, as ghosts that do not collide; so do the champions
of chosen generations of one run (``--race 1,last``), each with its own body when the body
evolves. Press H in the window for the controls.
"""

from __future__ import annotations

import sys

from evolution.champion import ChampionError

from ..display import has_display
from ..shipped import DEFAULT_SAVE
from .args import add_plugin_argument, add_race_argument, champion_source, parse_size

EXAMPLES = """examples:
  creatures watch                              a shipped champion (walker-run)
  creatures watch walker-run <CHAMPION.json>   race two champions
  creatures watch <RUN_DIR>                    the best champion of a run
  creatures watch <RUN_DIR> --follow           each new generation's champion, live
  creatures watch <RUN_DIR> --race 1,last      generation 1's champion against
                                                   the last one's, each with its own (evolved) body
"""


def add_arguments(parser) -> None:
    parser.add_argument("targets", nargs="*", metavar="FILE_OR_RUN_DIR",
                        help=f"champion files or run directories; a shipped champion by name "
                             f"(default: {DEFAULT_SAVE.removesuffix('.json')})")
    parser.add_argument("--follow", action="store_true",
                        help="follow a running evolution: each finished generation's champion starts")
    add_race_argument(parser)
    parser.add_argument("--size", default="1280x720", help="window size WxH (default 1280x720)")
    add_plugin_argument(parser)


def run(args) -> int:
    try:
        size = parse_size(args.size)
        source = champion_source(args, "creatures watch RUN_DIR --race 1,last", follow=args.follow)
    except (ValueError, ChampionError) as exc:
        print(f"creatures watch: {exc}", file=sys.stderr)
        return 2
    if not has_display():
        print("creatures watch: no display to open a window on (DISPLAY is not set); run it on a "
              "desktop or under xvfb-run, or make a GIF with: creatures record FILE --out NAME.gif",
              file=sys.stderr)
        return 2
    from render.viewer import watch
    watch(source, size=size, title=f"creatures - {source.scene.title}")
    return 0

"""Write a share card: a PNG that shows a champion and holds it (see evolution/cards.py)."""

from __future__ import annotations

import math
import os
import sys

from evolution import limits
from evolution.champion import MAX_AUTHOR, ChampionError

from .args import add_plugin_argument, add_trial_argument, parse_size, trial_index

EXAMPLES = """examples:
  creatures card saves/walker-run.json --out walker.png   a champion file
  creatures card walker-run --out walker.png              a shipped champion, by name
  creatures card <RUN_DIR> --out best.png --at 12
  creatures card saves/eel-swim.json --out eel.png --author "Ada L." --size 1200x675

Every command that reads a champion file reads a card too (replay, watch, record, play).
"""


def add_arguments(parser) -> None:
    parser.add_argument("target", metavar="CHAMPION",
                        help="a champion file, a card, a run directory (its best champion) or a shipped "
                             "champion's name")
    parser.add_argument("--out", required=True, metavar="NAME.png", help="the card to write")
    parser.add_argument("--at", type=float, default=None, metavar="SECONDS",
                        help="the moment of the episode to picture (default: halfway)")
    parser.add_argument("--size", default="800x450", help="the picture's size WxH (default 800x450)")
    parser.add_argument("--author", default=None, metavar="NAME",
                        help="who made it, written on the card and into its champion (default: the "
                             "champion's own author, if it has one)")
    add_trial_argument(parser)
    add_plugin_argument(parser)


def _fail(message: str) -> int:
    print(f"creatures card: {message}", file=sys.stderr)
    return 2


def run(args) -> int:
    if not args.out.lower().endswith(".png"):
        return _fail(f"--out must end in .png, not {args.out!r}")
    try:
        size = parse_size(args.size)
        from ..sources import load_sources
        source = load_sources([args.target], plugins=args.plugin, trial=trial_index(args))
    except (ValueError, ChampionError) as exc:
        return _fail(str(exc))
    champion = source.champions[0]
    at = champion.seconds / 2 if args.at is None else args.at
    if not (0 <= at <= champion.seconds and math.isfinite(at)):
        return _fail(f"--at must be within the episode, 0 to {champion.seconds:g} s, not {args.at}")
    if args.author is not None:
        try:
            champion.author = limits.check_text(args.author.strip(), "--author", MAX_AUTHOR)
        except ValueError as exc:
            return _fail(str(exc))
    from evolution.files import WriteError, write_atomic

    os.environ["ARCADE_HEADLESS"] = "1"  # before arcade is imported: drawn offscreen
    from ..cards import make_card
    try:
        write_atomic(args.out, make_card(champion, source, size=size, at=at))
    except (ValueError, RuntimeError) as exc:
        return _fail(str(exc))
    except (WriteError, OSError) as exc:
        return _fail(f"cannot write {args.out}: {exc.strerror or exc}")
    print(f"{args.out}: a card of {champion.name}, fitness {champion.fitness!r} on {champion.task.short}, "
          f"pictured at {at:g} s ({size[0]}x{size[1]}, {os.path.getsize(args.out) / 1e3:.0f} kB)")
    return 0

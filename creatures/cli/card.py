"""Write a share card: a PNG that shows a champion and holds it (see evolution/cards.py)."""

from __future__ import annotations

import math
import os
import sys

from evolution.champion import ChampionError

from .args import add_plugin_argument, parse_size

EXAMPLES = """examples:
  creatures card saves/walker-run.json --out walker.png      a champion file
  creatures card walker-run --out walker.png                 a shipped champion, by name
  creatures card runs/walker-run-20261122-101500 --out best.png --at 12

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
        source = load_sources([args.target], plugins=args.plugin)
    except (ValueError, ChampionError) as exc:
        return _fail(str(exc))
    champion = source.champions[0]
    at = champion.seconds / 2 if args.at is None else args.at
    if not (0 <= at <= champion.seconds and math.isfinite(at)):
        return _fail(f"--at must be within the episode, 0 to {champion.seconds:g} s, not {args.at}")
    from evolution.cards import card_bytes, encode_png
    from evolution.champion import champion_json
    from evolution.files import WriteError, write_atomic

    os.environ["ARCADE_HEADLESS"] = "1"  # before arcade is imported: drawn offscreen
    from render import Snapshot
    source.reset()
    for _ in range(int(round(at / source.scene.dt))):
        source.step()
    try:
        with Snapshot(source, size=size) as snap:
            picture = snap.take()
        write_atomic(args.out, card_bytes(encode_png(picture), champion_json(champion)))
    except (ValueError, RuntimeError) as exc:
        return _fail(str(exc))
    except (WriteError, OSError) as exc:
        return _fail(f"cannot write {args.out}: {exc.strerror or exc}")
    print(f"{args.out}: a card of {champion.name}, fitness {champion.fitness!r} on {champion.task.short}, "
          f"pictured at {at:g} s ({size[0]}x{size[1]}, {os.path.getsize(args.out) / 1e3:.0f} kB)")
    return 0

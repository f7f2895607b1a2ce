"""Record champions to a GIF or MP4, offscreen (no window, no display needed)."""

from __future__ import annotations

import math
import os
import sys

from evolution.champion import ChampionError

from .args import add_plugin_argument, add_race_argument, champion_source, parse_size

EXAMPLES = """examples:
  creatures record walker-run --out walker.gif                     a shipped champion, by name
  creatures record walker-run --out walker.mp4 --seconds 10 --size 1280x720 --fps 30
  creatures record walker-run walker-evolving-run --out race.gif   a race
  creatures record <RUN_DIR> --out best.gif --speed 2
  creatures record <RUN_DIR> --race 1,last --out race.gif          first against last
"""

FORMATS = (".gif", ".mp4")


def add_arguments(parser) -> None:
    parser.add_argument("targets", nargs="*", metavar="FILE_OR_RUN_DIR",
                        help="champion files or a run directory; a shipped champion by name "
                             "(default: walker-run)")
    parser.add_argument("--out", required=True, metavar="NAME.gif|NAME.mp4", help="the file to write")
    add_race_argument(parser)
    parser.add_argument("--seconds", type=float, default=None,
                        help="seconds of video to record: at --speed S, S times as many of the episode's "
                             "(default: the whole episode)")
    parser.add_argument("--size", default="800x450", help="frame size WxH (default 800x450)")
    parser.add_argument("--fps", type=int, default=30, help="frames per second (default 30)")
    parser.add_argument("--speed", type=float, default=1.0, help="playback speed (default 1)")
    parser.add_argument("--brain", action="store_true", help="show the brain panel (the first creature's)")
    parser.add_argument("--sensors", action="store_true", help="show ground contacts, joint angles and wing pitch")
    add_plugin_argument(parser)


def _fail(message: str) -> int:
    print(f"creatures record: {message}", file=sys.stderr)
    return 2


def run(args) -> int:
    if not args.out.lower().endswith(FORMATS):
        return _fail(f"--out must end in .gif or .mp4, not {args.out!r}")
    if args.seconds is not None and not (0 < args.seconds < 3600 and math.isfinite(args.seconds)):
        return _fail("--seconds must be a positive number of seconds, under an hour")
    if not (1 <= args.fps <= 120):
        return _fail("--fps must be 1 to 120")
    if not (0.0625 <= args.speed <= 64 and math.isfinite(args.speed)):
        return _fail("--speed must be between 1/16 and 64")
    try:
        size = parse_size(args.size)
        source = champion_source(args, "creatures record RUN_DIR --race 1,last --out race.gif")
    except (ValueError, ChampionError) as exc:
        return _fail(str(exc))
    os.environ["ARCADE_HEADLESS"] = "1"  # before arcade is imported: render offscreen
    from render.record import record
    try:
        info = record(source, args.out, seconds=args.seconds, size=size, fps=args.fps, speed=args.speed,
                      show_brain=args.brain, show_sensors=args.sensors)
    except (ValueError, OSError, RuntimeError) as exc:
        return _fail(str(exc))
    print(f"{args.out}: {info['frames']} frames, {info['seconds']:g} s at {args.fps} fps, "
          f"{size[0]}x{size[1]}, {info['bytes'] / 1e6:.2f} MB")
    return 0

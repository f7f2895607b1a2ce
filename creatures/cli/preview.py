"""Preview a design live: it stands on the ground with its muscles on a sine wave, and reloads
whenever its file is saved (problems show in the window, with line and column)."""

from __future__ import annotations

import sys

from ..design import DesignError, design_error
from ..display import has_display
from .args import parse_size

EXAMPLES = """examples:
  creatures preview                 the built-in walker
  creatures preview <DESIGN.yaml>   edit and save the file: the window follows
"""


def add_arguments(parser) -> None:
    parser.add_argument("design", nargs="?", default="walker",
                        help="a built-in design name or a YAML file (default: walker)")
    parser.add_argument("--size", default="1280x720", help="window size WxH (default 1280x720)")


def run(args) -> int:
    try:
        size = parse_size(args.size)
    except ValueError as exc:
        print(f"creatures preview: {exc}", file=sys.stderr)
        return 2
    from ..sources import Preview
    try:
        source = Preview(args.design)
    except DesignError as exc:
        print(design_error("preview", exc), file=sys.stderr)
        return 2
    if not has_display():
        print("creatures preview: no display to open a window on (DISPLAY is not set); run it on a "
              "desktop or under xvfb-run", file=sys.stderr)
        return 2
    from render.viewer import watch
    watch(source, size=size, title=f"creatures preview - {args.design}")
    return 0

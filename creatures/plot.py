"""Draw a run's fitness percentiles and species sizes over generations, as PNG charts.

``fitness.png`` and ``species.png`` in the run directory unless ``--out`` says otherwise, and
``body.png`` for a run whose body evolves; :mod:`creatures.charts` draws them and says what each
one shows.
"""

from __future__ import annotations

import math
import re
import sys

from .charts import DEFAULT_SIZE, PlotError, check_size, plot_run

EXAMPLES = """examples:
  creatures plot runs/walker-run-20261122-044002          writes fitness.png and species.png there
                                                          (and body.png if its body evolves)
  creatures plot runs/my-run --out charts --size 1600x900
  creatures plot runs/my-run --size 1920x1080 --dpi 150    larger text and lines
"""


def parse_size(text: str) -> tuple[int, int]:
    """``1200x700`` -> (1200, 700), within MIN_SIZE..MAX_SIZE. Raises :class:`PlotError`."""
    m = re.fullmatch(r"\s*(\d+)\s*[xX×]\s*(\d+)\s*", str(text))
    if not m:
        raise PlotError(f"--size must be WIDTHxHEIGHT in pixels, like 1200x700, not {text!r}")
    size = (int(m[1]), int(m[2]))
    try:
        check_size(size)
    except PlotError as exc:
        raise PlotError(f"--size {text}: {exc}") from None
    return size



def add_arguments(parser) -> None:
    parser.add_argument("run_dir", metavar="RUN_DIR", help="a run directory made by 'creatures evolve'")
    parser.add_argument("--out", metavar="DIR", default=None,
                        help="where to write fitness.png and species.png, and body.png for a run whose "
                             "body evolves (default: RUN_DIR)")
    parser.add_argument("--size", metavar="WxH", default=f"{DEFAULT_SIZE[0]}x{DEFAULT_SIZE[1]}",
                        help=f"each chart's size in pixels (default {DEFAULT_SIZE[0]}x{DEFAULT_SIZE[1]})")
    parser.add_argument("--dpi", metavar="N", default=None,
                        help="dots per inch: larger draws larger text and lines in the same pixels "
                             "(default 100, less for a picture smaller than 1100x640)")


def run(args) -> int:
    try:
        size = parse_size(args.size)
        dpi = None
        if args.dpi is not None:
            try:
                dpi = float(args.dpi)
            except ValueError:
                dpi = math.nan
            if not math.isfinite(dpi):
                raise PlotError(f"--dpi must be a number, not {args.dpi!r}")
            if not 10 <= dpi <= 1000:
                raise PlotError(f"--dpi must be 10 to 1000, not {args.dpi}")
        paths = plot_run(args.run_dir, args.out, size, dpi)
    except PlotError as exc:
        print(f"creatures plot: {exc}", file=sys.stderr)
        return 2
    for path in paths:
        print(path)
    return 0

"""Draw a run's fitness percentiles and species sizes over generations, as PNG charts.

``fitness.png`` and ``species.png`` in the run directory unless ``--out`` says otherwise,
``body.png`` for a run whose body evolves, ``body_size.png`` and ``lineage.png`` (its champion's
ancestors' bodies) for one whose body grows; :mod:`creatures.charts` draws them and says what
each one shows.
"""

from __future__ import annotations

import math
import sys

from ..charts import DEFAULT_SIZE, MAX_SIZE, MIN_SIZE, PlotError, plot_run
from .args import parse_size

EXAMPLES = """examples:
  creatures plot <RUN_DIR>                              writes fitness.png and species.png there
                                                          (and body.png if its body evolves,
                                                          body_size.png and lineage.png if it
                                                          grows)
  creatures plot <RUN_DIR> --out charts --size 1600x900
  creatures plot <RUN_DIR> --size 1920x1080 --dpi 150   larger text and lines
"""


def add_arguments(parser) -> None:
    parser.add_argument("run_dir", metavar="RUN_DIR", help="a run directory made by 'creatures evolve'")
    parser.add_argument("--out", metavar="DIR", default=None,
                        help="where to write fitness.png and species.png, body.png for a run whose "
                             "body evolves, body_size.png and lineage.png (its champion's ancestors' "
                             "bodies) for one whose body grows (default: RUN_DIR)")
    parser.add_argument("--size", metavar="WxH", default=f"{DEFAULT_SIZE[0]}x{DEFAULT_SIZE[1]}",
                        help=f"each chart's size in pixels (default {DEFAULT_SIZE[0]}x{DEFAULT_SIZE[1]})")
    parser.add_argument("--dpi", metavar="N", default=None,
                        help="dots per inch: larger draws larger text and lines in the same pixels "
                             "(default 100, less for a picture smaller than 1100x640)")


def run(args) -> int:
    try:
        try:
            size = parse_size(args.size, MIN_SIZE, MAX_SIZE)
        except ValueError as exc:
            raise PlotError(str(exc)) from None
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

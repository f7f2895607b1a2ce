"""Check design files and print every problem, as file:line:column: message."""

from __future__ import annotations

import sys

from .design import DesignError, load_design

EXAMPLES = """examples:
  creatures validate my_spider.yaml
  creatures validate designs/*.yaml        several at once; exit status 2 if any is invalid
"""


def add_arguments(parser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="design files (YAML)")
    parser.add_argument("-q", "--quiet", action="store_true", help="print only the problems")


def run(args) -> int:
    status = 0
    for path in args.files:
        try:
            design = load_design(path)
        except DesignError as exc:
            status = 2
            print(str(exc), file=sys.stderr)
            continue
        if not args.quiet:
            c = design.counts()
            print(f"{path}: ok ({design.name}: {c['spheres']} spheres, {c['bones']} bones, "
                  f"{c['muscles']} muscles, {c['joints']} joints, {c['clusters']} clusters)")
    return status

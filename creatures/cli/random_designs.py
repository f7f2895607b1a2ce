"""Write random creatures as design files, carykh-style: a few spheres joined into triangles, some
of the bones muscles, every one valid and able to stand (:mod:`creatures.design.random_design`
says how they are grown and checked)."""

from __future__ import annotations

import sys
from pathlib import Path

from evolution.files import make_directory, write_atomic

from ..design.random_design import random_design

EXAMPLES = """examples:
  creatures random --count 20 --seed 1 --out zoo               twenty random creatures in zoo/
  creatures random --count 1 --seed 7 --out zoo                the first of seed 7 (the same whatever the count)
  creatures random --count 200 --seed 2 --out zoo --quiet      only the closing line
"""

#: the most creatures one call writes
MAX_COUNT = 10_000


def add_arguments(parser) -> None:
    parser.add_argument("--count", type=int, default=10, metavar="N", help="how many creatures (default 10)")
    parser.add_argument("--seed", type=int, default=0, metavar="S",
                        help="which random creatures (default 0): creature k of a seed is always the same")
    parser.add_argument("--out", metavar="DIR", required=True,
                        help="the folder to write them to (made if missing; files already there are not overwritten)")
    parser.add_argument("-q", "--quiet", action="store_true", help="print only the closing line")


def run(args) -> int:
    if not 1 <= args.count <= MAX_COUNT:
        print(f"creatures random: --count must be from 1 to {MAX_COUNT}, not {args.count}", file=sys.stderr)
        return 2
    if args.seed < 0:
        print(f"creatures random: --seed must be 0 or more, not {args.seed}", file=sys.stderr)
        return 2
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        print(f"creatures random: {out} is a file, not a folder", file=sys.stderr)
        return 2
    names = [out / f"random-{args.seed}-{k + 1:03d}.yaml" for k in range(args.count)]
    there = [p for p in names if p.exists()]
    if there:
        more = f" (and {len(there) - 1} more)" if len(there) > 1 else ""
        print(f"creatures random: {there[0]} exists{more}: nothing written; choose another --out or --seed, "
              f"or move them away", file=sys.stderr)
        return 2
    try:
        make_directory(out)
    except OSError as exc:
        print(f"creatures random: cannot make {out}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    refused = 0
    for k, path in enumerate(names):
        try:
            design, text, tried = random_design(args.seed, k)
        except RuntimeError as exc:
            print(f"creatures random: {exc} ({k} written)", file=sys.stderr)
            return 2
        refused += tried
        try:
            write_atomic(path, text)
        except OSError as exc:
            print(f"creatures random: cannot write {path}: {exc.strerror or exc} ({k} written)", file=sys.stderr)
            return 2
        if not args.quiet:
            c = design.counts()
            m = c['muscles']
            print(f"{path}: {c['spheres']} spheres, {c['bones']} bones ({m} muscle{'s' if m != 1 else ''})")
    grown = f"; {refused} more grown and refused as unable to stand" if refused else ""
    print(f"wrote {args.count} random creature{'s' if args.count != 1 else ''} to {out}{grown}. Next: "
          f"creatures evolve {names[0]}")
    return 0

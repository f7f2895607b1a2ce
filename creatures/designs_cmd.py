"""List the built-in designs with their sphere, bone, muscle and joint counts."""

from __future__ import annotations

import json

from .bestiary import builtin_names, resolve_design

EXAMPLES = """examples:
  creatures designs            the table
  creatures designs --json     the same as JSON
"""


def add_arguments(parser) -> None:
    parser.add_argument("--json", action="store_true", help="print a JSON list instead")


def run(args) -> int:
    rows = []
    for name in builtin_names():
        d = resolve_design(name)
        rows.append({"name": name, **d.counts(), "description": " ".join(d.description.split())})
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    w = max([12] + [len(r["name"]) for r in rows])
    print(f"{'design':{w}s} {'spheres':>7s} {'bones':>5s} {'muscles':>7s} {'joints':>6s} {'clusters':>8s}  description")
    for r in rows:
        desc = r["description"] if len(r["description"]) <= 60 else r["description"][:57] + "..."
        print(f"{r['name']:{w}s} {r['spheres']:7d} {r['bones']:5d} {r['muscles']:7d} {r['joints']:6d} "
              f"{r['clusters']:8d}  {desc}")
    return 0

"""List the built-in designs with their sphere, bone, muscle and joint counts, or show one whole.

The table wraps each description in its column, to the terminal's width when the output is a
terminal (to :data:`WIDTH` columns otherwise, the same wherever it is piped or captured).
``creatures designs NAME`` shows one design (a built-in name or a design file): its counts, what
of its body evolves, its whole description, and what to do with it.
"""

from __future__ import annotations

import json
import shlex
import shutil
import sys
import textwrap

from ..design import DesignError, builtin_names, design_error, resolve_design

EXAMPLES = """examples:
  creatures designs          the table
  creatures designs --json   the same as JSON
  creatures designs walker   one design: its counts and its whole description
"""

#: the table's width when the output is not a terminal
WIDTH = 100
#: the description column is never narrower than this (a narrower terminal wraps the lines)
MIN_DESCRIPTION = 30
COUNTS = ("spheres", "bones", "muscles", "joints", "clusters")


def add_arguments(parser) -> None:
    parser.add_argument("name", nargs="?", default=None, metavar="NAME",
                        help="show this design whole (a built-in name or a design file)")
    parser.add_argument("--json", action="store_true", help="print JSON instead (a list, or one object)")


def _row(name: str, design) -> dict:
    row = {"name": name, **design.counts(), "description": " ".join(design.description.split())}
    groups = design.groups()
    if groups:
        row["groups"] = {g: [{"muscle": m, "invert": inv} for m, inv in ms] for g, ms in groups.items()}
    if design.genes:
        row["evolving"] = {"values": design.genes.n_values, "optional_parts": design.genes.n_parts}
    return row


def table(rows: list[dict], width: int) -> str:
    """The rows as a table ``width`` columns wide, each description wrapped in its column."""
    w = max([12] + [len(r["name"]) for r in rows])
    head = f"{'design':{w}s} {'spheres':>7s} {'bones':>5s} {'muscles':>7s} {'joints':>6s} {'clusters':>8s}  "
    column = max(MIN_DESCRIPTION, width - len(head))
    lines = [head + "description"]
    for r in rows:
        text = textwrap.wrap(r["description"], column) or [""]
        lines.append(f"{r['name']:{w}s} {r['spheres']:7d} {r['bones']:5d} {r['muscles']:7d} {r['joints']:6d} "
                     f"{r['clusters']:8d}  {text[0]}".rstrip())
        lines += [" " * len(head) + more for more in text[1:]]
    return "\n".join(lines)


def one(row: dict, width: int) -> str:
    """One design as ``creatures designs NAME`` shows it."""
    counts = ", ".join(f"{row[k]} {k if row[k] != 1 else k[:-1]}" for k in COUNTS)
    lines = [f"{row['name']}: {counts}"]
    if "groups" in row:
        def muscles(ms):
            return ", ".join(m["muscle"] + (" (inverted)" if m["invert"] else "") for m in ms)
        lines.append(f"its {row['muscles']} muscles take {row['outputs']} brain outputs: "
                     + "; ".join(f"group {g}: {muscles(ms)}" for g, ms in row["groups"].items()))
    if "evolving" in row:
        e = row["evolving"]
        lines.append(f"its body evolves: {e['values']} value{'' if e['values'] == 1 else 's'}, "
                     f"{e['optional_parts']} optional part{'' if e['optional_parts'] == 1 else 's'}")
    lines += [""] + (textwrap.wrap(row["description"], width) or ["(no description)"]) + [""]
    name = shlex.quote(row["name"])
    lines.append(f"see it move: creatures preview {name}   evolve it: creatures evolve {name}")
    return "\n".join(lines)


def _width() -> int:
    return shutil.get_terminal_size((WIDTH, 24)).columns if sys.stdout.isatty() else WIDTH


def run(args) -> int:
    if args.name is not None:
        try:
            row = _row(args.name, resolve_design(args.name))
        except DesignError as exc:
            print(design_error("designs", exc), file=sys.stderr)
            return 2
        print(json.dumps(row, indent=2) if args.json else one(row, _width()))
        return 0
    rows = [_row(name, resolve_design(name)) for name in builtin_names()]
    print(json.dumps(rows, indent=2) if args.json else table(rows, _width()))
    return 0

"""``creatures tasks``, ``creatures sensors`` and ``creatures terrains``: what can be evolved.

Each lists the plug-ins of its kind that are available here (built in, registered, or
announced by installed packages through the entry-point groups ``creatures.tasks``,
``creatures.sensors`` and ``creatures.terrains``), with where each comes from and what it does.
A file or module plug-in is not listed (it is named on the command line instead); with
``--check NAME_OR_FILE`` one of them is loaded and described.
"""

from __future__ import annotations

import json
import sys
from types import SimpleNamespace

import physics
from evolution import PluginError, available, resolve, task_sim

from ..design import DesignError, design_error, resolve_design
from .args import plugin_error

DESCRIPTION_WIDTH = 100


def _describe(plugin, kind: str, body=None) -> dict:
    """One row: name, source, location, description, and the kind's own facts."""
    row = {"name": plugin.name, "source": plugin.ref.source, "location": plugin.ref.location,
           "description": ""}
    if plugin.problem:
        row["error"] = plugin.problem
        return row
    try:
        row["description"] = plugin.description
        if kind == "task":
            row["measures"] = str(plugin.sample.measures)
            row["default_terrain"] = str(plugin.sample.default_terrain)
            sim = task_sim(plugin.sample)
            row["medium"] = physics.medium_name(sim)
            if not sim.ground:
                row["default_terrain"] = "none"
        elif kind == "sensor" and body is not None:
            from evolution import Context
            model = physics.build_model(body, 1)
            ctx = Context.of(model, physics.Terrain.flat(), physics.SimParams(), 1)
            row["inputs"] = int(plugin.create().size(ctx))
        elif kind == "terrain":
            t = plugin.make(0)
            row["points"] = int(t.xs.size)
            row["heights"] = [float(t.ys.min()), float(t.ys.max())]
    except PluginError as exc:
        row["error"] = str(exc)
    except Exception as exc:  # a broken installed plug-in: say so on its row, list the rest
        row["error"] = f"{type(exc).__name__}: {exc}"
    return row


def _short(text: str, width: int = DESCRIPTION_WIDTH) -> str:
    return text if len(text) <= width else text[:width - 3] + "..."


def _table(rows: list[dict], columns: list[tuple[str, str]]) -> str:
    cells = [[str(r.get(key, "")) for key, _ in columns] for r in rows]
    widths = [max([len(title)] + [len(c[k]) for c in cells]) for k, (_, title) in enumerate(columns)]
    lines = ["  ".join(title.ljust(w) for (_, title), w in zip(columns, widths)).rstrip()]
    for c in cells:
        lines.append("  ".join(v.ljust(w) for v, w in zip(c, widths)).rstrip())
    return "\n".join(lines)


def _make(kind: str, doc: str, examples: str, columns):
    def add_arguments(parser) -> None:
        parser.add_argument("--json", action="store_true", help="print a JSON list instead")
        parser.add_argument("--check", metavar="NAME_OR_FILE", default=None,
                            help=f"load one {kind} (a name, path/to/file.py:Name, package.module:Name"
                                 f"{', or a .yaml terrain file' if kind == 'terrain' else ''}) and "
                                 f"describe it, or say in one line why it cannot be used")
        if kind == "sensor":
            parser.add_argument("--design", default="walker",
                                help="count each sensor's inputs on this design (default walker)")

    def run(args) -> int:
        body = None
        if kind == "sensor":
            try:
                body = resolve_design(args.design).body
            except DesignError as exc:
                print(design_error(f"{kind}s", exc), file=sys.stderr)
                return 2
        if args.check:
            try:
                plugins = [resolve(kind, args.check)]
            except PluginError as exc:
                print(plugin_error(f"{kind}s", exc), file=sys.stderr)
                return 2
        else:
            plugins = available(kind)
        rows = [_describe(p, kind, body) for p in plugins]
        if args.check and "error" in rows[0]:
            print(f"creatures {kind}s: {rows[0]['error']}", file=sys.stderr)
            return 2
        if args.json:
            print(json.dumps(rows, indent=2))
        else:
            for r in rows:
                error = r.pop("error", None)
                r["description"] = _short(f"UNUSABLE: {error}" if error else r["description"])
                if "heights" in r:
                    r["heights"] = f"{r['heights'][0]:g}..{r['heights'][1]:g} m"
            print(_table(rows, columns))
        return 0

    return SimpleNamespace(__doc__=doc, EXAMPLES=examples, add_arguments=add_arguments, run=run)


tasks = _make("task", """List the tasks creatures can be evolved for, with where each comes from.""",
              """examples:
  creatures tasks
  creatures tasks --json
  creatures tasks --check examples/flag_task.py:ReachFlag     load a plug-in file and describe it
""", [("name", "task"), ("source", "source"), ("default_terrain", "terrain"), ("medium", "medium"),
      ("description", "what it asks"), ("measures", "fitness measures")])

sensors = _make("sensor", """List the sensors a brain can read, with where each comes from.""",
                """examples:
  creatures sensors
  creatures sensors --design worm          inputs counted on the worm
  creatures sensors --json
""", [("name", "sensor"), ("source", "source"), ("inputs", "inputs"), ("description", "what it senses")])

terrains = _make("terrain", """List the terrains creatures can be evolved on, with where each comes from.""",
                 """examples:
  creatures terrains
  creatures terrains --check examples/hilly_wall.yaml         check a terrain file
""", [("name", "terrain"), ("source", "source"), ("points", "points"), ("heights", "heights"),
      ("description", "description")])

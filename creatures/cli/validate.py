"""Check design files and terrain files, and print every problem, as file:line:column: message."""

from __future__ import annotations

import os
import sys

import yaml

from evolution.terrains import MAX_TERRAIN_BYTES, TerrainFileError, parse_terrain
from evolution.yamlread import YamlError, compose, did_you_mean, read_text

from ..design import DESIGN_DIR, MAX_DESIGN_BYTES, DesignError, builtin_names, parse_design

EXAMPLES = """examples:
  creatures validate <DESIGN.yaml>
  creatures validate designs/*.yaml    several at once; exit status 2 if any is invalid
  creatures validate <TERRAIN.yaml>    a terrain file (it has 'points' or 'pieces')
  creatures validate walker-evolving   a built-in design, by name (creatures designs lists them)
"""


def add_arguments(parser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="design or terrain files (YAML), or names of built-in designs")
    parser.add_argument("-q", "--quiet", action="store_true", help="print only the problems")


def is_terrain_file(text: str) -> bool:
    """Whether a YAML text reads as a terrain (a top-level 'points' or 'pieces') rather than a
    design; anything unreadable counts as a design (whose loader reports it)."""
    try:
        root = compose(text, "", MAX_TERRAIN_BYTES)
    except YamlError:
        return False
    return isinstance(root, yaml.MappingNode) and any(
        getattr(k, "value", None) in ("points", "pieces") for k, _ in root.value)


def run(args) -> int:
    status = 0
    for path in args.files:
        if not os.path.exists(path) and path in builtin_names():  # a built-in design, by name
            path = str(DESIGN_DIR / f"{path}.yaml")
        elif not os.path.exists(path) and not os.path.splitext(path)[1]:  # a name, misspelt perhaps
            status = 2
            print(f"{path}: no such file, and no built-in design of that name"
                  f"{did_you_mean(path, builtin_names())}", file=sys.stderr)
            continue
        try:
            text = read_text(path, max(MAX_DESIGN_BYTES, MAX_TERRAIN_BYTES), DesignError)
            if is_terrain_file(text):
                terrain = parse_terrain(text, path)
                if not args.quiet:
                    print(f"{path}: ok (terrain {terrain.name}: {terrain.xs.size} points, x from "
                          f"{terrain.xs[0]:g} to {terrain.xs[-1]:g} m, heights {terrain.ys.min():g} to "
                          f"{terrain.ys.max():g} m)")
                continue
            design = parse_design(text, path)
        except (DesignError, TerrainFileError, YamlError) as exc:
            status = 2
            print(str(exc), file=sys.stderr)
            continue
        if not args.quiet:
            c = design.counts()
            evolving = ""
            if design.genes:  # a body that evolves: how much of it
                g = design.genes
                evolving = (f"; {g.n_values} evolvable value{'' if g.n_values == 1 else 's'}, "
                            f"{g.n_parts} optional part{'' if g.n_parts == 1 else 's'}")
            outputs = f" on {c['outputs']} brain outputs" if c["outputs"] != c["muscles"] or design.groups() else ""
            print(f"{path}: ok ({design.name}: {c['spheres']} spheres, {c['bones']} bones, "
                  f"{c['muscles']} muscles{outputs}, {c['joints']} joints, {c['clusters']} clusters{evolving})")
    return status

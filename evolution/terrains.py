"""Terrains: the ground creatures are evolved on, as plug-ins and as files people draw.

The ground is always a ``physics.Terrain``: a polyline height field, flat beyond its ends. A
terrain plug-in (:mod:`evolution.plugins`) makes one from the run's seed; it is any of

- a subclass of :class:`TerrainMaker` (``make(seed) -> physics.Terrain``),
- a function ``f(seed) -> physics.Terrain``,
- a ``physics.Terrain`` itself,
- a terrain file in YAML (below): data, never code.

Built in: ``flat``, ``slope`` (10 degrees up from x = 0), ``steps`` (15 cm stairs from x = 2 m),
``hills`` (random rolling hills from the seed) and ``hurdles`` (12 cm bumps every 2.5 m).

A terrain file draws a course with a polyline of points or a list of pieces::

    name: wall course
    description: Rolling bumps, then a wall to climb.
    start: -2          # x (m) where the first piece begins; the ground is flat before it
    height: 0          # the ground's height there (m)
    pieces:
      - flat: 4                                      # metres of level ground
      - slope: {length: 3, degrees: 8}               # or {length: 3, rise: 0.4}
      - bumps: {count: 3, height: 0.15, width: 1.0}  # raised-cosine bumps, back to back
      - bumps: {count: 2, height: 0.1, width: 0.3, spacing: 2}  # or one every 2 m (start to start)
      - steps: {count: 4, height: 0.1, depth: 0.8}   # a staircase (negative height: down)
      - wall: {height: 0.4, thickness: 0.3}          # up, across the top, down again
      - flat: 10

or ``points: [[x0, y0], [x1, y1], ...]`` with x strictly increasing. Risers (steps, walls) are
1 cm wide, as the built-in stairs': the ground stays a height field. A slope gives ``degrees``
(-80 to 80) or ``rise``, not both; ``count`` is 1 to 10000 (bumps: 1 if left out); a wall is 0.2 m
thick unless it says. Every coordinate stays within +-1e6 m and a terrain has at most
:data:`MAX_TERRAIN_POINTS` vertices. :func:`parse_terrain` (and
:func:`evolution.plugins.load_terrain_file`, a file as a plug-in) reports every problem with its
line and column.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml

import physics

from .bases import PluginError, TerrainMaker
from .yamlread import Problem, Reader, YamlError, read_top

__all__ = ["TerrainMaker", "TerrainFileError", "TerrainFile", "parse_terrain", "hurdles", "terrain_to_dict", "terrain_from_dict", "MAX_TERRAIN_BYTES", "MAX_TERRAIN_POINTS", "RISER"]

#: terrain files larger than this are refused before parsing
MAX_TERRAIN_BYTES = 2_000_000
#: at most this many vertices in a terrain (a file's, or what a piece list makes)
MAX_TERRAIN_POINTS = 100_000
#: the width (m) of a riser: a step's or a wall's near-vertical side
RISER = 0.01
#: the largest coordinate a terrain file may use or its pieces reach (m)
MAX_COORDINATE = 1e6
#: the steepest slope (degrees): steeper sides are walls or steps
MAX_SLOPE_DEGREES = 80.0


def terrain_to_dict(terrain: physics.Terrain) -> dict:
    """A terrain as plain data, ``{"kind", "xs", "ys"}`` (floats round-trip exactly through JSON):
    what run directories and champion files keep of the ground."""
    return {"kind": terrain.kind, "xs": terrain.xs.tolist(), "ys": terrain.ys.tolist()}


def terrain_from_dict(data) -> physics.Terrain:
    """The terrain of :func:`terrain_to_dict`'s data, checked. Raises ValueError with a one-line
    reason (points that are not numbers, too many, not increasing...)."""
    if not isinstance(data, dict):
        raise ValueError("the terrain is not an object")
    xs, ys = data.get("xs"), data.get("ys")
    if not isinstance(xs, list) or not isinstance(ys, list):
        raise ValueError("the terrain has no 'xs' and 'ys' lists")
    if len(xs) > MAX_TERRAIN_POINTS:
        raise ValueError(f"the terrain has {len(xs)} points; at most {MAX_TERRAIN_POINTS}")
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in xs + ys):
        raise ValueError("the terrain's points must be numbers")
    try:
        if not all(math.isfinite(v) and abs(v) <= MAX_COORDINATE for v in xs + ys):
            raise ValueError(f"the terrain's points must be finite and within +-{MAX_COORDINATE:g} m")
    except OverflowError:  # an integer too large for a float
        raise ValueError(f"the terrain's points must be finite and within +-{MAX_COORDINATE:g} m") from None
    kind = data.get("kind", "custom")
    if not isinstance(kind, str):
        raise ValueError("the terrain's kind must be text")
    kind = "".join(c if c.isprintable() else "?" for c in kind[:200])  # it is printed
    try:
        return physics.Terrain(np.array(xs, dtype=np.float64), np.array(ys, dtype=np.float64), kind)
    except (ValueError, OverflowError) as exc:
        raise ValueError(f"the terrain is not usable: {exc}") from None


# --- built-in terrains ---------------------------------------------------------------------------------

def flat(seed: int = 0) -> physics.Terrain:
    """Level ground."""
    return physics.make_terrain("flat", seed)


def slope(seed: int = 0) -> physics.Terrain:
    """Level up to x = 0, then a 10 degree slope up to the right."""
    return physics.make_terrain("slope", seed)


def steps(seed: int = 0) -> physics.Terrain:
    """Stairs up to the right: 40 steps of 15 cm every metre from x = 2 m."""
    return physics.make_terrain("steps", seed)


def hills(seed: int = 0) -> physics.Terrain:
    """Random rolling hills from the run's seed (about +-0.5 m, waves of 1 to 4 m) from x = 2 m."""
    return physics.make_terrain("hills", seed)


def hurdles(seed: int = 0, height: float = 0.12, width: float = 0.3, spacing: float = 2.5,
            count: int = 60, start: float = 2.0) -> physics.Terrain:
    """A flat course with 12 cm rounded hurdles every 2.5 m from x = 2 m."""
    xs, ys = [-1000.0], [0.0]
    for k in range(count):
        x0 = start + k * spacing
        u = np.linspace(0.0, 1.0, 9)
        xs += list(x0 + u * width)
        ys += list(height * 0.5 * (1.0 - np.cos(2.0 * np.pi * u)))
    xs.append(start + count * spacing + 1000.0)
    ys.append(0.0)
    return physics.Terrain(np.array(xs), np.array(ys), "hurdles")


# --- terrain files --------------------------------------------------------------------------------------

class TerrainFileError(YamlError, PluginError):
    """A terrain file that cannot be used, with all its problems (one line each)."""


@dataclass(frozen=True, eq=False)
class TerrainFile(TerrainMaker):
    """A terrain read from a file: its name, polyline and description (the same for any seed)."""

    name: str
    xs: np.ndarray
    ys: np.ndarray
    description: str = ""

    def make(self, seed: int = 0) -> physics.Terrain:
        return physics.Terrain(self.xs, self.ys, self.name)


PIECE_KEYS = {
    "flat": {},
    "slope": {"length": True, "degrees": False, "rise": False},
    "bumps": {"count": False, "height": True, "width": True, "spacing": False},
    "steps": {"count": True, "height": True, "depth": True},
    "wall": {"height": True, "thickness": False},
}
TOP_KEYS = ("name", "description", "author", "licence", "start", "height", "points", "pieces")


def parse_terrain(text: str, source: str = "<terrain>", default_name: str | None = None) -> TerrainFile:
    """Parse and check a terrain file's text. Raises :class:`TerrainFileError`. A terrain with no
    ``name`` is called ``default_name``, else the stem of ``source`` (a path), else ``terrain``."""
    if default_name is None:
        default_name = "terrain" if source.startswith("<") else (Path(source).stem or "terrain")
    r, root, top = read_top(text, source, MAX_TERRAIN_BYTES, TerrainFileError, "terrain", TOP_KEYS)
    meta = {}
    for key in ("name", "description", "author", "licence"):
        meta[key] = r.string(top[key][1], f"'{key}'") if key in top else None
        value = meta[key]
        if value is not None:  # printed by commands: printable text of a sensible length
            limit = 2000 if key == "description" else 200
            text = value.replace("\n", " ").replace("\t", " ") if key == "description" else value
            if len(text) > limit or not text.isprintable():
                r.problem(top[key][1], f"'{key}' must be printable text of at most {limit} characters"
                                       f"{'' if key == 'description' else ', on one line'}")
                meta[key] = None
    x0 = _coordinate(r, top["start"][1], "'start'") if "start" in top else 0.0
    y0 = _coordinate(r, top["height"][1], "'height'") if "height" in top else 0.0
    if ("points" in top) == ("pieces" in top):
        r.problem(root, "a terrain needs either 'points' (a polyline) or 'pieces' (a course), "
                        "not both and not neither")
        raise TerrainFileError(source, r.problems)
    if "points" in top:
        for key in ("start", "height"):
            if key in top:
                r.problem(top[key][0], f"'{key}' is for 'pieces'; 'points' give their own coordinates")
        xs, ys = _read_points(r, top["points"][1])
    else:
        xs, ys = _read_pieces(r, top["pieces"][1], x0 if x0 is not None else 0.0,
                              y0 if y0 is not None else 0.0)
    if r.problems:
        raise TerrainFileError(source, r.problems)
    if len(xs) > MAX_TERRAIN_POINTS:
        raise TerrainFileError(source, [Problem(1, 1, f"the terrain has {len(xs)} points; at most "
                                                      f"{MAX_TERRAIN_POINTS}")])
    if len(xs) == 1:  # a single point: level ground at its height
        xs, ys = [xs[0] - 1.0, xs[0]], [ys[0], ys[0]]
    name = meta["name"] or default_name
    try:
        terrain = physics.Terrain(np.array(xs), np.array(ys), name)
    except ValueError as exc:
        raise TerrainFileError(source, [Problem(1, 1, f"not a usable terrain: {exc}")]) from None
    return TerrainFile(name, terrain.xs, terrain.ys, meta["description"] or "")


def _coordinate(r: Reader, node, what: str):
    value = r.number(node, what)
    if value is not None and abs(value) > MAX_COORDINATE:
        r.problem(node, f"{what} must be within +-{MAX_COORDINATE:g} m, not {node.value}")
        return None
    return value


def _read_points(r: Reader, node) -> tuple[list, list]:
    items = r.sequence(node, "'points'")
    if isinstance(node, yaml.SequenceNode) and not items:
        r.problem(node, "'points' must hold at least one [x, y]")
    if len(items) > MAX_TERRAIN_POINTS:
        r.problem(node, f"'points' holds {len(items)} points; at most {MAX_TERRAIN_POINTS}")
        return [], []
    xs, ys = [], []
    for k, item in enumerate(items):
        what = f"point {k + 1}"
        pair = r.sequence(item, what)
        if isinstance(item, yaml.SequenceNode) and len(pair) != 2:
            r.problem(item, f"{what} must be [x, y], two numbers")
            continue
        if len(pair) != 2:
            continue
        x, y = _coordinate(r, pair[0], f"{what}: x"), _coordinate(r, pair[1], f"{what}: y")
        if x is None or y is None:
            continue
        if xs and not x > xs[-1]:
            r.problem(pair[0], f"{what}: x must be greater than the point before's ({xs[-1]:g}): "
                               f"the ground is a height field (for a wall, step x by 0.01)")
            continue
        xs.append(x)
        ys.append(y)
    return xs, ys


def _read_pieces(r: Reader, node, x: float, y: float) -> tuple[list, list]:
    items = r.sequence(node, "'pieces'")
    if isinstance(node, yaml.SequenceNode) and not items:
        r.problem(node, "'pieces' must hold at least one piece")
    xs, ys = [x], [y]
    for k, item in enumerate(items):
        what = f"piece {k + 1}"
        before = len(r.problems)
        entries = r.mapping(item, what, PIECE_KEYS)
        if entries is None:
            continue
        if len(entries) != 1:
            if entries:
                r.problem(item, f"{what} must be one of {', '.join(PIECE_KEYS)}, one per list item")
            elif len(r.problems) == before:  # not an unknown kind (reported already): {}
                r.problem(item, f"{what} is empty: name one of {', '.join(PIECE_KEYS)}")
            continue
        kind, (knode, vnode) = next(iter(entries.items()))
        what = f"{what} ({kind})"
        n = len(xs)
        if kind == "flat":
            length = _length(r, vnode, what)
            if length is None:
                continue
            x += length
            xs.append(x)
            ys.append(y)
        else:
            values = _piece_values(r, vnode, what, PIECE_KEYS[kind])
            if values is None:
                continue
            x, y = _lay(kind, values, xs, ys, x, y, r, vnode, what)
        if not _laid_well(r, knode, what, xs, ys, n):
            return xs, ys
    return xs, ys


def _laid_well(r: Reader, node, what: str, xs: list, ys: list, n: int) -> bool:
    """Whether the vertices a piece added (from index ``n``) keep the course drawable: within
    +-MAX_COORDINATE, x still increasing, not too many. Else a problem, and the course stops."""
    new_x, new_y = xs[n:], ys[n:]  # a few vertices (plain Python: numpy's overhead is per call)
    if not new_x:
        return True
    if max(max(map(abs, new_x)), max(map(abs, new_y))) > MAX_COORDINATE:
        r.problem(node, f"{what} takes the course beyond +-{MAX_COORDINATE:g} m (to x = {new_x[-1]:g}, "
                        f"y = {new_y[-1]:g}); make it shorter or lower")
        return False
    previous = xs[n - 1]
    for x in new_x:
        if not x > previous:
            r.problem(node, f"{what} is too short to draw at x = {xs[n - 1]:g} m; make it longer")
            return False
        previous = x
    if len(xs) > MAX_TERRAIN_POINTS:
        r.problem(node, f"{what} takes the course to {len(xs)} points; at most {MAX_TERRAIN_POINTS}")
        return False
    return True


def _length(r: Reader, node, what: str, key: str = "length"):
    value = r.number(node, f"{what}: {key}")
    if value is not None and not 0 < value <= MAX_COORDINATE:
        r.problem(node, f"{what}: {key} must be more than 0 and at most {MAX_COORDINATE:g} m, "
                        f"not {node.value}")
        return None
    return value


def _piece_values(r: Reader, node, what: str, keys: dict) -> dict | None:
    entries = r.mapping(node, what, keys)
    if entries is None:
        return None
    values, ok = {}, True
    for key, required in keys.items():
        if key not in entries:
            if required:
                r.problem(node, f"{what} needs '{key}'")
                ok = False
            continue
        vnode = entries[key][1]
        if key == "count":
            v = r.integer(vnode, f"{what}: count")
            if v is not None and not 1 <= v <= 10_000:
                r.problem(vnode, f"{what}: count must be from 1 to 10000, not {vnode.value}")
                v = None
        elif key in ("length", "width", "depth", "thickness", "spacing"):
            v = _length(r, vnode, what, key)
        elif key == "degrees":
            v = r.number(vnode, f"{what}: degrees")
            if v is not None and not -MAX_SLOPE_DEGREES <= v <= MAX_SLOPE_DEGREES:
                r.problem(vnode, f"{what}: degrees must be within -{MAX_SLOPE_DEGREES:g}..{MAX_SLOPE_DEGREES:g} "
                                 f"(a steeper side is a wall or steps), not {vnode.value}")
                v = None
        else:  # height, rise
            v = _coordinate(r, vnode, f"{what}: {key}")
            if v is not None and key == "height" and v == 0 and what.endswith("(wall)"):
                r.problem(vnode, f"{what}: a wall of height 0 is flat ground")
                v = None
        if v is None:
            ok = False
        values[key] = v
    if "degrees" in entries and "rise" in entries:
        r.problem(node, f"{what}: give 'degrees' or 'rise', not both")
        ok = False
    elif "length" in keys and "degrees" in keys and "degrees" not in entries and "rise" not in entries:
        r.problem(node, f"{what} needs 'degrees' or 'rise' (for level ground, use flat)")
        ok = False
    elif ok and "rise" in values and abs(values["rise"]) > values["length"] * math.tan(math.radians(MAX_SLOPE_DEGREES)):
        degrees = math.degrees(math.atan(abs(values["rise"]) / values["length"]))
        r.problem(entries["rise"][1], f"{what}: a rise of {values['rise']:g} m over {values['length']:g} m "
                                      f"is {degrees:.1f} degrees; at most {MAX_SLOPE_DEGREES:g} (a steeper "
                                      f"side is a wall or steps)")
        ok = False
    return values if ok else None


def _lay(kind, v, xs, ys, x, y, r, node, what):
    """Append the vertices of one piece starting at (x, y); returns where it ends."""
    if kind == "slope":
        rise = v["rise"] if "rise" in v else v["length"] * math.tan(math.radians(v.get("degrees", 0.0)))
        x, y = x + v["length"], y + rise
        xs.append(x)
        ys.append(y)
    elif kind == "bumps":
        count, width = v.get("count", 1), v["width"]
        spacing = v.get("spacing", width)
        if spacing < width:
            r.problem(node, f"{what}: spacing ({spacing:g} m) must be at least the width ({width:g} m)")
            return x, y
        u = np.linspace(0.0, 1.0, 9)[1:]
        for k in range(count):
            x0 = x + k * spacing
            xs.extend((x0 + u * width).tolist())
            ys.extend((y + v["height"] * 0.5 * (1.0 - np.cos(2.0 * np.pi * u))).tolist())
            if spacing > width:
                xs.append(x0 + spacing)
                ys.append(y)
        x += count * spacing
    elif kind == "steps":
        if v["depth"] <= RISER:
            r.problem(node, f"{what}: depth must be more than a riser ({RISER:g} m), not {v['depth']:g}")
            return x, y
        for _ in range(v["count"]):
            xs += [x + RISER, x + v["depth"]]
            ys += [y + v["height"], y + v["height"]]
            x, y = x + v["depth"], y + v["height"]
    elif kind == "wall":
        thickness = v.get("thickness", 0.2)
        if thickness <= 2 * RISER:
            r.problem(node, f"{what}: thickness must be more than two risers ({2 * RISER:g} m), "
                            f"not {thickness:g}")
            return x, y
        top = y + v["height"]
        xs += [x + RISER, x + thickness - RISER, x + thickness]
        ys += [top, top, y]
        x += thickness
    return x, y

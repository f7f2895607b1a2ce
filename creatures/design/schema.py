"""The design format, declared once: every key of every item, with its kind of value, default,
unit, bounds, whether it may evolve and what it means.

Everything else that describes the format reads it from here: the loader's key tables and
checks (:mod:`.loader`), the editor's fields (:mod:`creatures.editing.text`), the charts' units
(:mod:`creatures.charts`) and the JSON Schema shipped for editors that complete and check YAML
(``creatures/design.schema.json``, written by :func:`write_json_schema`; a test keeps the file
current). What may evolve and within which bounds is
the engine's (:data:`evolution.bodygenes.FIELDS` and :data:`~evolution.bodygenes.BOUNDS`): read
from there too.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import physics
from evolution import limits
from evolution.bodygenes import BOUNDS as GENE_BOUNDS
from evolution.bodygenes import FIELDS as GENE_FIELDS
from evolution.bodygenes import POSITIVE as GENE_POSITIVE

#: a key that an item must have
REQUIRED = type("Required", (), {"__repr__": lambda self: "REQUIRED", "__reduce__": lambda self: "REQUIRED"})()

#: where the JSON Schema is shipped
SCHEMA_FILE = Path(__file__).resolve().parents[1] / "design.schema.json"

_C = limits.MAX_COORDINATE
_V = limits.MAX_VALUE


@dataclass(frozen=True)
class Key:
    """One key of an item of the format.

    ``kind``: ``str``, ``bool``, ``number``, ``point`` ([x, y] in metres), ``ref`` (an id),
    ``refs2`` (two ids), ``refs`` (two or more ids), ``muscle`` (true, or the muscle's keys),
    ``colour`` (a name, [r, g, b] or "#rrggbb": :mod:`.looks`),
    ``choice`` (one of ``choices``), and at the top ``defaults`` and ``list`` (of items).
    ``default``: :data:`REQUIRED` when the item needs it; None when there is none (or it is
    worked out, as a bone's width). ``bounds``: ``(low, high, low excluded)`` for a number (a
    point's coordinates); ``unit``: as people read it (angles in degrees, as designs write them);
    ``about``: what it is, in a few words."""

    name: str
    kind: str
    default: object = None
    unit: str = ""
    bounds: tuple | None = None
    about: str = ""
    choices: tuple = ()
    #: whether a design's ``defaults:`` may give it (ids, references and ``optional`` it may not)
    in_defaults: bool = True


def _item_keys(*keys: Key) -> dict[str, Key]:
    return {k.name: k for k in keys}


_OPTIONAL = "evolution may switch it off"
_LOOKS = "looks only (physics ignores it): "
_COLOURS = 'a name (red, orange, blue...), [red, green, blue] from 0 to 255, or "#rrggbb"'

#: every item's keys, in the order a design writes them
ITEMS: dict[str, dict[str, Key]] = {
    "design": _item_keys(
        Key("name", "str", REQUIRED, about="names runs and files: no '/' or '\\', not starting with '.'"),
        Key("description", "str", "", about="what it is, one paragraph"),
        Key("author", "str", "", about="who made it"),
        Key("licence", "str", "", about="e.g. CC0-1.0"),
        Key("self_collision", "bool", False, about="its spheres collide with each other"),
        Key("defaults", "defaults", about="values every item of a kind gets unless it says otherwise"),
        Key("spheres", "list", REQUIRED, about="the spheres, at least one"),
        Key("bones", "list", about="the bones; a bone with 'muscle' is a muscle the brain drives"),
        Key("joints", "list", about="angle limits between two bones where they meet"),
        Key("clusters", "list", about="groups of spheres kept in their shape"),
    ),
    "sphere": _item_keys(
        Key("id", "str", REQUIRED, about="the sphere's name, unique among the spheres", in_defaults=False),
        Key("position", "point", REQUIRED, "m", (-_C, _C, False),
            "[x, y]: its centre, from the left and above the ground line", in_defaults=False),
        Key("radius", "number", 0.1, "m", (0.0, _V, True), "its radius"),
        Key("mass", "number", 1.0, "kg", (0.0, _V, True), "its mass"),
        Key("friction", "number", 0.8, "", (0.0, _V, False), "static friction coefficient"),
        Key("kinetic_friction", "number", None, "", (0.0, _V, False),
            "sliding friction, at most friction (default: friction)"),
        Key("restitution", "number", 0.0, "", (0.0, 1.0, False), "bounce off the ground"),
        Key("fixed", "bool", False, about="pinned in place"),
        Key("optional", "bool", False, about=f"{_OPTIONAL} (and its bones and joints)", in_defaults=False),
        Key("colour", "colour", None, about=f"{_LOOKS}its colour: {_COLOURS}"),
        Key("eye", "bool", False, about=f"{_LOOKS}an eye on it, looking to the right", in_defaults=False),
    ),
    "bone": _item_keys(
        Key("id", "str", None, about="the bone's name (default: its spheres' ids)", in_defaults=False),
        Key("spheres", "refs2", REQUIRED, about="the two sphere ids it joins", in_defaults=False),
        Key("compliance", "number", 0.0, "m/N", (0.0, _V, False), "stretch per newton, 0 for rigid"),
        Key("muscle", "muscle", None, about="true, or the muscle's settings: makes the bone a muscle the brain drives"),
        Key("optional", "bool", False, about=_OPTIONAL, in_defaults=False),
        Key("width", "number", None, "m", (0.0, _V, True),
            "in water or air, the width of the plate it is (default: its spheres' mean diameter, or half its "
            "length for a wing)"),
        Key("wing", "bool", False, about="a wing: a broad plate in water or air, drawn as a wing"),
        Key("colour", "colour", None, about=f"{_LOOKS}its colour (a muscle's shows its contraction): {_COLOURS}"),
    ),
    "muscle": _item_keys(
        Key("range", "number", 0.2, "", (0.0, physics.MAX_MUSCLE_RANGE, True),
            "its length stays within rest x (1 +- range)"),
        Key("strength", "number", 150.0, "N", (0.0, _V, True), "its largest pull"),
        Key("speed", "number", 2.0, "1/s", (0.0, _V, True), "its largest change of length, rest lengths per second"),
        Key("stretch", "number", physics.MUSCLE_STRETCH, "", (0.0, 1.0, True),
            "its spring: how far off its commanded length, as a fraction of its rest length, it pulls its whole "
            "strength (a smaller stretch is a stiffer muscle)"),
        Key("damping", "number", physics.MUSCLE_DAMPING, "", (0.0, _V, False),
            "its dashpot's damping ratio: 1 follows its command without overshoot, less rings, more is sluggish"),
        Key("group", "str", None, about="muscles of one group share one brain output (a name: letters, digits, "
                                          "'-' and '_')", in_defaults=False),
        Key("invert", "bool", False, about="in its group, it lengthens as the others shorten", in_defaults=False),
    ),
    "joint": _item_keys(
        Key("id", "str", None, about="the joint's name", in_defaults=False),
        Key("sphere", "ref", REQUIRED, about="the sphere where its two bones meet", in_defaults=False),
        Key("bones", "refs2", REQUIRED, about="its two bones", in_defaults=False),
        Key("kind", "choice", "hinge", about="hinge (held within min..max) or free", choices=("hinge", "free")),
        Key("min", "number", -180.0, "deg", (-180.0, 180.0, False),
            "a hinge's least angle from the first bone to the second, counter-clockwise"),
        Key("max", "number", 180.0, "deg", (-180.0, 180.0, False), "a hinge's greatest angle, at least min"),
        Key("stiffness", "number", 0.0, "N m/rad", (0.0, _V, False), "springs it back to its first angle"),
        Key("optional", "bool", False, about=_OPTIONAL, in_defaults=False),
    ),
    "cluster": _item_keys(
        Key("id", "str", None, about="the cluster's name", in_defaults=False),
        Key("spheres", "refs", REQUIRED, about="two or more sphere ids kept in their shape", in_defaults=False),
        Key("stiffness", "number", 1.0, "", (0.0, 1.0, True), "how hard its shape is kept, per sweep"),
    ),
}

#: the kinds of item a design lists, and the top-level key that lists each
LISTS = {"sphere": "spheres", "bone": "bones", "joint": "joints", "cluster": "clusters"}
#: how many of each item a design may have (:mod:`evolution.limits`)
ITEM_LIMITS = {"sphere": limits.MAX_SPHERES, "bone": limits.MAX_BONES, "joint": limits.MAX_JOINTS,
               "cluster": limits.MAX_CLUSTERS}
#: the keys of a range, ``{evolve: [low, high], start: x}``
RANGE_KEYS = ("evolve", "start")


def evolves(item: str, key: str) -> bool:
    """Whether ``key`` of an ``item`` may be written as a range (a position: either coordinate)."""
    fields = GENE_FIELDS.get(item, ())
    return ("x" in fields and "y" in fields) if key == "position" else key in fields


#: the keys of each item whose numbers may be ranges
EVOLVABLE = {item: tuple(k for k in keys if evolves(item, k)) for item, keys in ITEMS.items() if item != "design"}


def _range_bounds(item: str, field: str) -> tuple:
    """Where a range of an evolvable value must stay, in the design's units (joint limits in
    degrees): (lowest, highest, whether the lowest itself is refused); the engine's bounds."""
    low, high = GENE_BOUNDS[(item, field)]
    if item == "joint" and field in ("min", "max"):
        low, high = round(math.degrees(low), 6), round(math.degrees(high), 6)
    return low, high, field in GENE_POSITIVE


#: the bounds of every evolvable value's range but the position's (bounded as any coordinate is)
RANGE_BOUNDS = {(item, field): _range_bounds(item, field)
                for item, fields in GENE_FIELDS.items() for field in fields if field not in ("x", "y")}


def default(item: str, key: str):
    """The built-in default of ``key`` of an ``item`` (:data:`REQUIRED` for a key it needs)."""
    return ITEMS[item][key].default


def unit(item: str, key: str) -> str:
    """``key``'s unit (a gene's field: ``x`` and ``y`` are a position's)."""
    if item == "sphere" and key in ("x", "y"):
        key = "position"
    k = ITEMS.get(item, {}).get(key)
    return k.unit if k else ""


def bounds_text(bounds: tuple) -> str:
    """``(0, 1e9, True)`` -> ``above 0``; ``(0, 1e9, False)`` -> ``0 or more``; ``(0, 0.9, True)``
    -> ``(0, 0.9]``; ``(-180, 180, False)`` -> ``-180..180``."""
    low, high, open_low = bounds
    if high >= _V:
        return f"above {low:g}" if open_low else f"{low:g} or more"
    return f"({low:g}, {high:g}]" if open_low else f"{low:g}..{high:g}"


# --- the JSON Schema ---------------------------------------------------------------------------------

_RANGE_NOTE = "; or a range, {evolve: [low, high], start: x}"


def _number(bounds: tuple | None) -> dict:
    out = {"type": "number"}
    if bounds is not None:
        low, high, open_low = bounds
        out["exclusiveMinimum" if open_low else "minimum"] = low
        out["maximum"] = high
    return out


def _evolvable(item: str, k: Key) -> dict:
    """A ``$defs`` entry: a number within the key's bounds, or a range within the engine's."""
    number = _number(k.bounds)
    field = "x" if k.kind == "point" else k.name
    inner = _number(RANGE_BOUNDS.get((item, field), k.bounds))
    unit_text = {"deg": " (degrees)", "m": " (metres)"}.get(k.unit, "")
    return {"oneOf": [number, {
        "type": "object", "additionalProperties": False, "required": ["evolve"],
        "properties": {
            "evolve": {"type": "array", "items": inner, "minItems": 2, "maxItems": 2,
                       "description": f"[low, high], low below high: the range evolution explores{unit_text}"},
            "start": {**inner, "description": "the first creatures' value, within the range (default: its middle)"}},
        "description": "an evolvable value: {evolve: [low, high], start: x}"}]}


def _def_name(item: str, k: Key) -> str:
    """The ``$defs`` name of an evolvable key's values."""
    return f"evolvable_{item}_{k.name}"


def _describe(k: Key, item: str) -> str:
    parts = [k.about]
    if k.unit:
        parts.append({"deg": "degrees", "m": "metres", "kg": "kilograms", "N": "newtons"}.get(k.unit, k.unit))
    if k.default is not None and k.default is not REQUIRED and k.kind != "list":
        shown = json.dumps(k.default) if not isinstance(k.default, float) else f"{k.default:g}"
        parts.append(f"default {shown}")
    text = parts[0] + (f" ({'; '.join(parts[1:])})" if len(parts) > 1 else "")
    if evolves(item, k.name) and k.kind == "number":
        text += _RANGE_NOTE
    elif k.kind == "point" and evolves(item, k.name):
        text += "; either coordinate may be a range, {evolve: [low, high], start: x}"
    return text


def _property(item: str, k: Key, defs: dict) -> dict:
    if k.kind == "str":
        out = {"type": "string"}
        if k.default is REQUIRED:
            out["minLength"] = 1
    elif k.kind == "bool":
        out = {"type": "boolean"}
    elif k.kind == "choice":
        out = {"enum": list(k.choices)}
    elif k.kind == "number":
        if evolves(item, k.name):
            defs[_def_name(item, k)] = _evolvable(item, k)
            out = {"$ref": f"#/$defs/{_def_name(item, k)}"}
        else:
            out = _number(k.bounds)
    elif k.kind == "point":
        coordinate = _number(k.bounds)
        if evolves(item, k.name):
            defs["evolvable_coordinate"] = _evolvable(item, k)
            coordinate = {"$ref": "#/$defs/evolvable_coordinate"}
        out = {"type": "array", "items": coordinate, "minItems": 2, "maxItems": 2}
    elif k.kind == "ref":
        out = {"type": "string", "minLength": 1}
    elif k.kind in ("refs2", "refs"):
        out = {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 2}
        if k.kind == "refs2":
            out["maxItems"] = 2
        else:
            out["maxItems"] = limits.MAX_CLUSTER_MEMBERS
    elif k.kind == "muscle":
        out = {"oneOf": [{"type": "boolean"}, _object("muscle", defs)]}
    elif k.kind == "colour":
        out = {"oneOf": [{"type": "string", "minLength": 1},
                         {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 255},
                          "minItems": 3, "maxItems": 3}]}
    else:
        raise AssertionError(k.kind)
    return {**out, "description": _describe(k, item)}


def _object(item: str, defs: dict, in_defaults: bool = False) -> dict:
    keys = [k for k in ITEMS[item].values() if k.in_defaults or not in_defaults]
    out = {"type": "object", "additionalProperties": False,
           "properties": {k.name: _property(item, k, defs) for k in keys}}
    required = [k.name for k in keys if k.default is REQUIRED]
    if required:
        out["required"] = required
    return out


def json_schema() -> dict:
    """The JSON Schema (draft 2020-12) of a design file, from :data:`ITEMS`."""
    defs: dict = {}
    top = ITEMS["design"]
    properties = {}
    for k in top.values():
        if k.kind == "defaults":
            prop = {"type": "object", "additionalProperties": False,
                    "properties": {item: _object(item, defs, in_defaults=True)
                                   for item in ("sphere", "bone", "muscle", "joint", "cluster")},
                    "description": k.about}
        elif k.kind == "list":
            item = next(i for i, key in LISTS.items() if key == k.name)
            prop = {"type": "array", "items": _object(item, defs), "maxItems": ITEM_LIMITS[item],
                    "description": k.about}
            if k.default is REQUIRED:
                prop["minItems"] = 1
        else:
            prop = _property("design", k, defs)
        properties[k.name] = prop
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://creatures.invalid/design.schema.json",
            "title": "creatures design",
            "description": "One sphere-and-bone creature. Units: metres, kilograms, degrees.",
            "type": "object", "additionalProperties": False,
            "required": [k.name for k in top.values() if k.default is REQUIRED],
            "properties": properties, "$defs": dict(sorted(defs.items()))}


def json_schema_text() -> str:
    """:func:`json_schema` as the shipped file holds it."""
    return json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"


def write_json_schema(path: Path = SCHEMA_FILE) -> Path:
    """Write :func:`json_schema_text` to the shipped file (after a change to :data:`ITEMS`)."""
    from evolution.files import write_atomic
    write_atomic(Path(path), json_schema_text().encode("utf-8"))
    return Path(path)

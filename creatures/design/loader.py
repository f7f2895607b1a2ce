"""Creature designs in YAML: the format, its loader, and every check a design must pass.

A design is one YAML document (units: metres, kilograms, degrees)::

    name: pendulum-walker
    description: what it is
    author: you
    licence: CC-BY-4.0
    self_collision: false
    defaults:                      # optional: values every item gets unless it says otherwise
      sphere: {radius: 0.08, mass: 0.5, friction: 0.8}
      muscle: {range: 0.2, strength: 150, speed: 2}
    spheres:
      - {id: hip, position: [0, 0.9], mass: 1.5}
      - {id: foot, position: [0.1, 0.1], radius: 0.1}
    bones:
      - {id: leg, spheres: [hip, foot], muscle: true}     # or muscle: {range: 0.1}
    joints:
      - {id: knee, sphere: knee, bones: [thigh, shin], kind: hinge, min: -150, max: -10}
    clusters:
      - {id: torso, spheres: [a, b, c], stiffness: 1.0}

Bodies that evolve (:mod:`evolution.bodygenes`): a sphere's ``position`` components, ``radius``,
``mass`` and ``friction``, a bone's ``compliance``, a muscle's ``strength``, ``range`` and
``speed`` and a joint's ``min``, ``max`` and ``stiffness`` may be written as a range,
``{evolve: [low, high]}`` or ``{evolve: [low, high], start: x}`` (the start is the middle unless
given; ``position: [{evolve: [-0.5, -0.3]}, 0.9]``), in ``defaults:`` too (then every item that
takes the default evolves its own value). A sphere, bone or joint may say ``optional: true``:
evolution may switch it off. :attr:`Design.body` holds the start values; :attr:`Design.genes`
the ranges and the optional parts.

:func:`load_design` reads a file (or text) and returns a :class:`Design`, or raises
:class:`DesignError` holding *every* problem found, each with its line and column. Nothing here
shows a traceback to the user: the command prints ``file:line:column: message`` lines.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import yaml

import physics
from evolution import limits
from evolution.bodygenes import FIELDS as GENE_FIELDS
from evolution.bodygenes import NO_GENES, BodyGenes, Gene, Switch
from evolution.bodygenes import pieces as connected_pieces
from evolution.yamlread import Problem, Reader, YamlError, compose, describe_node, did_you_mean, one_line, read_text

__all__ = ["Design", "DesignError", "Problem", "load_design", "parse_design", "MAX_DESIGN_BYTES"]

#: designs larger than this are refused before parsing (a creature is a few kilobytes)
MAX_DESIGN_BYTES = 1_000_000


class DesignError(YamlError):
    """A design that cannot be used, with all its problems."""


@dataclass
class Design:
    """A valid design: its metadata, the physics body (with every evolvable value at its
    start), the ids of its parts (in order), and its body genes."""

    name: str
    body: physics.Body
    description: str = ""
    author: str = ""
    licence: str = ""
    sphere_ids: list[str] = field(default_factory=list)
    bone_ids: list[str] = field(default_factory=list)
    muscle_ids: list[str] = field(default_factory=list)
    joint_ids: list[str] = field(default_factory=list)
    cluster_ids: list[str] = field(default_factory=list)
    source: str = ""
    text: str = ""
    #: the evolvable values (ranges) and optional parts; empty for a design without any
    genes: BodyGenes = NO_GENES

    def counts(self) -> dict:
        b = self.body
        return {"spheres": len(b.spheres), "bones": len(b.bones), "muscles": len(self.muscle_ids),
                "joints": len(b.joints), "clusters": len(b.clusters)}


# --- the format -------------------------------------------------------------------------------
# Each item kind maps a key to (kind of value, default). Kinds: "str", "bool", "number", "point",
# "ref" (an id), "refs2" (two ids), "refs" (two or more ids), "muscle", "kind".
_REQUIRED = object()

SPHERE_KEYS = {"id": ("str", _REQUIRED), "position": ("point", _REQUIRED), "radius": ("number", 0.1),
               "mass": ("number", 1.0), "friction": ("number", 0.8), "kinetic_friction": ("number", None),
               "restitution": ("number", 0.0), "fixed": ("bool", False), "optional": ("bool", False)}
BONE_KEYS = {"id": ("str", None), "spheres": ("refs2", _REQUIRED), "compliance": ("number", 0.0),
             "muscle": ("muscle", None), "optional": ("bool", False), "width": ("number", None),
             "wing": ("bool", False)}
MUSCLE_KEYS = {"range": ("number", 0.2), "strength": ("number", 150.0), "speed": ("number", 2.0)}
JOINT_KEYS = {"id": ("str", None), "sphere": ("ref", _REQUIRED), "bones": ("refs2", _REQUIRED),
              "kind": ("kind", "hinge"), "min": ("number", -180.0), "max": ("number", 180.0),
              "stiffness": ("number", 0.0), "optional": ("bool", False)}
CLUSTER_KEYS = {"id": ("str", None), "spheres": ("refs", _REQUIRED), "stiffness": ("number", 1.0)}
TOP_KEYS = {"name": "str", "description": "str", "author": "str", "licence": "str",
            "self_collision": "bool", "defaults": "defaults", "spheres": "list", "bones": "list",
            "joints": "list", "clusters": "list"}
ITEM_KEYS = {"sphere": SPHERE_KEYS, "bone": BONE_KEYS, "muscle": MUSCLE_KEYS, "joint": JOINT_KEYS,
             "cluster": CLUSTER_KEYS}
JOINT_KINDS = ("hinge", "free")
#: the keys of each item whose numbers may be ranges (``{evolve: [low, high]}``); a position
#: evolves component by component (genes ``x`` and ``y``)
EVOLVABLE = {"sphere": ("position", "radius", "mass", "friction"), "bone": ("compliance", "width"),
             "muscle": ("strength", "range", "speed"), "joint": ("min", "max", "stiffness"), "cluster": ()}
#: what a message says may evolve, by item
EVOLVABLE_SHOWN = {"sphere": "position (x, y), radius, mass, friction",
                   "bone": "compliance, width, and a muscle's strength, range, speed",
                   "muscle": "strength, range, speed", "joint": "min, max, stiffness"}
#: the keys of a range
RANGE_KEYS = ("evolve", "start")
#: where each evolvable value's range must stay, in the design's units (joint limits in degrees):
#: (lowest, highest, whether the lowest itself is refused). The engine's bounds
#: (``evolution.bodygenes``); positions are bounded as every coordinate is (limits.MAX_COORDINATE).
RANGE_BOUNDS = {("sphere", "radius"): (0.0, 1e6, True), ("sphere", "mass"): (0.0, 1e6, True),
                ("sphere", "friction"): (0.0, 1e6, False), ("bone", "compliance"): (0.0, 1e6, False),
                ("bone", "width"): (0.0, 1e6, True),
                ("muscle", "strength"): (0.0, 1e9, True),
                ("muscle", "range"): (0.0, physics.MAX_MUSCLE_RANGE, True),
                ("muscle", "speed"): (0.0, 1e6, True), ("joint", "min"): (-180.0, 180.0, False),
                ("joint", "max"): (-180.0, 180.0, False), ("joint", "stiffness"): (0.0, 1e9, False)}
#: how many of each item a design may have (:mod:`evolution.limits`)
ITEM_LIMITS = {"sphere": limits.MAX_SPHERES, "bone": limits.MAX_BONES, "joint": limits.MAX_JOINTS,
               "cluster": limits.MAX_CLUSTERS}


@dataclass
class _Item:
    """One parsed sphere/bone/joint/cluster: its values (an evolvable one at its start), the
    nodes to point problems at, and its ranges by (part, field) of :data:`GENE_FIELDS`."""

    node: object
    values: dict
    nodes: dict
    ranges: dict = field(default_factory=dict)


@dataclass(frozen=True)
class _Range:
    """A value written ``{evolve: [low, high], start: x}`` (design units), already checked."""

    low: float
    high: float
    start: float


def _is_range(node) -> bool:
    """Whether a node is written as a range (a mapping with 'evolve' or 'start')."""
    return isinstance(node, yaml.MappingNode) and any(
        isinstance(k, yaml.ScalarNode) and k.value in RANGE_KEYS for k, _ in node.value)


def _cannot_evolve(label: str, part: str | None) -> str:
    if part in EVOLVABLE_SHOWN:
        return f"{label} cannot evolve; these can: {EVOLVABLE_SHOWN[part]}"
    return f"{label} cannot evolve; nothing of a {part} can" if part else f"{label} cannot evolve"


def _read_range(r: Reader, node, label: str, gene: tuple, limit: float, unit: str = "") -> _Range | None:
    """A range, ``{evolve: [low, high], start: x}``, of the value ``gene`` = (part, field): two
    numbers, low below high, within what the engine can hold, the start (else the middle) within."""
    entries = r.mapping(node, label, RANGE_KEYS)
    if entries is None:
        return None
    if "evolve" not in entries:
        r.problem(node, f"{label} needs 'evolve: [low, high]' to be a range")
        return None
    enode = entries["evolve"][1]
    if not isinstance(enode, yaml.SequenceNode) or len(enode.value) != 2:
        shown = (f"a list of {len(enode.value)}" if isinstance(enode, yaml.SequenceNode)
                 else describe_node(enode))
        r.problem(enode, f"{label} evolve must be [low, high], two numbers, not {shown}")
        return None
    lo, hi = [_bounded(r, v, f"{label} evolve", limit, unit) for v in enode.value]
    start = None
    if "start" in entries:
        start = _bounded(r, entries["start"][1], f"{label} start", limit, unit)
        if start is None:
            return None
    if lo is None or hi is None:
        return None
    shown = f"{label} evolves over [{lo:g}, {hi:g}]"
    if lo > hi:
        r.problem(enode, f"{shown}, an empty range: its low end must be below its high end")
        return None
    if lo == hi:
        r.problem(enode, f"{shown}, a single value: write {lo:g} itself, or a wider range")
        return None
    if gene in RANGE_BOUNDS:
        low_bound, high_bound, open_low = RANGE_BOUNDS[gene]
        if gene == ("muscle", "range") and not (lo > 0 and hi <= high_bound):
            r.problem(enode, f"{shown}, outside what the engine can hold, (0, {high_bound:g}]")
            return None
        if gene[0] == "joint" and gene[1] in ("min", "max") and not (low_bound <= lo and hi <= high_bound):
            r.problem(enode, f"{shown}, which must stay within {low_bound:g}..{high_bound:g} degrees")
            return None
        if open_low and not lo > low_bound:
            r.problem(enode, f"{shown}, which must stay positive")
            return None
        if not lo >= low_bound:
            r.problem(enode, f"{shown}, which must not go negative")
            return None
        if hi > high_bound:
            r.problem(enode, f"{shown}, beyond {high_bound:g}: more than the engine can hold")
            return None
    if start is None:  # the middle, as written (0.075 for [0.05, 0.1], not 0.07500000000000001)
        start = min(max(float(f"{(lo + hi) / 2:.15g}"), lo), hi)
    elif not lo <= start <= hi:
        r.problem(entries["start"][1], f"{label} start {start:g} is outside its range [{lo:g}, {hi:g}]")
        return None
    return _Range(lo, hi, start)


def _take_ranges(values: dict, kind: str) -> dict:
    """Replace every range in an item's ``values`` by its start; return the ranges by
    (part, field) of :data:`GENE_FIELDS`."""
    ranges = {}
    for key, value in values.items():
        if isinstance(value, _Range):
            ranges[(kind, key)] = value
            values[key] = value.start
    if kind == "sphere" and isinstance(values.get("position"), tuple):
        xy = values["position"]
        for axis, c in zip("xy", xy):
            if isinstance(c, _Range):
                ranges[("sphere", axis)] = c
        values["position"] = tuple(c.start if isinstance(c, _Range) else c for c in xy)
    if kind == "bone" and isinstance(values.get("muscle"), dict):
        m = dict(values["muscle"])   # a copy: a muscle from the defaults is shared
        for key in MUSCLE_KEYS:
            if isinstance(m.get(key), _Range):
                ranges[("muscle", key)] = m[key]
                m[key] = m[key].start
        values["muscle"] = m
    return ranges


def _read_item(r: Reader, node, kind: str, index: int, defaults: dict) -> _Item | None:
    spec = ITEM_KEYS[kind]
    where = f"{kind} {index + 1}"
    if isinstance(node, yaml.MappingNode):
        for knode, vnode in node.value:
            if getattr(knode, "value", None) == "id" and isinstance(vnode, yaml.ScalarNode):
                where = f"{kind} '{one_line(vnode.value)}'"
    entries = r.mapping(node, where, spec)
    if entries is None:
        return None
    values, nodes = {}, {}
    for key, (kind_of, default) in spec.items():
        if key not in entries:
            if default is _REQUIRED:
                r.problem(node, f"{where} needs '{key}'")
                values[key] = None
            else:
                values[key] = defaults.get(key, default)
            nodes[key] = node
            continue
        knode, vnode = entries[key]
        nodes[key] = vnode
        label = f"{where}: '{key}'"
        values[key] = _read_value(r, vnode, kind_of, label, defaults, kind, key)
    return _Item(node, values, nodes, _take_ranges(values, kind))


def _bounded(r: Reader, vnode, label: str, limit: float, unit: str = ""):
    """A number of at most ``limit`` in size (a file's numbers are physical, not astronomical)."""
    value = r.number(vnode, label)
    if value is not None and abs(value) > limit:
        r.problem(vnode, f"{label} must be within +-{limit:g}{unit}, not {one_line(vnode.value)}")
        return None
    return value


def _read_value(r: Reader, vnode, kind_of: str, label: str, defaults: dict, part: str | None = None,
                key: str | None = None):
    """The value of ``key`` of an item of kind ``part`` (a :class:`_Range` where it is written
    as one and may evolve)."""
    if _is_range(vnode):
        if kind_of == "point":
            r.problem(vnode, f"{label} evolves component by component: write "
                             f"[{{evolve: [low, high]}}, y] or [x, {{evolve: [low, high]}}]")
            return None
        if kind_of == "muscle":
            r.problem(vnode, f"{label} cannot evolve as a whole; its strength, range and speed can "
                             f"(muscle: {{strength: {{evolve: [low, high]}}}})")
            return None
        if kind_of == "number" and key in EVOLVABLE.get(part, ()):
            return _read_range(r, vnode, label, (part, key), limits.MAX_VALUE)
        r.problem(vnode, _cannot_evolve(label, part))
        return None
    if kind_of == "number":
        return _bounded(r, vnode, label, limits.MAX_VALUE)
    if kind_of == "str":
        return r.string(vnode, label)
    if kind_of == "bool":
        return r.boolean(vnode, label)
    if kind_of == "kind":
        value = r.string(vnode, label)
        if value is not None and value not in JOINT_KINDS:
            r.problem(vnode, f"{label} must be one of {', '.join(JOINT_KINDS)}, not '{value}'"
                             f"{did_you_mean(value, JOINT_KINDS)}")
            return None
        return value
    if kind_of == "point":
        items = r.sequence(vnode, label)
        if isinstance(vnode, yaml.SequenceNode) and len(items) != 2:
            r.problem(vnode, f"{label} must be [x, y], two numbers")
            return None
        xy = [_read_range(r, v, f"{label} {axis}", ("sphere", axis), limits.MAX_COORDINATE, " m")
              if _is_range(v) else _bounded(r, v, label, limits.MAX_COORDINATE, " m")
              for axis, v in zip("xy", items)]
        return None if len(xy) != 2 or None in xy else (xy[0], xy[1])
    if kind_of in ("ref", "refs2", "refs"):
        if kind_of == "ref":
            return (r.string(vnode, label), vnode)
        items = r.sequence(vnode, label)
        if not isinstance(vnode, yaml.SequenceNode):
            return None
        if kind_of == "refs2" and len(items) != 2:
            r.problem(vnode, f"{label} must name exactly two")
            return None
        if kind_of == "refs" and len(items) < 2:
            r.problem(vnode, f"{label} must name two or more")
            return None
        if len(items) > limits.MAX_CLUSTER_MEMBERS:
            r.problem(vnode, f"{label} names {len(items)} spheres; at most {limits.MAX_CLUSTER_MEMBERS}")
            return None
        return [(r.string(v, label), v) for v in items]
    if kind_of == "muscle":
        # built-in defaults, then the design's defaults block, then this muscle's own values
        out = {key: default for key, (_, default) in MUSCLE_KEYS.items()}
        out.update(defaults.get("__muscle__", {}))
        if isinstance(vnode, yaml.ScalarNode) and vnode.tag.endswith(":bool"):
            return out if r.boolean(vnode, label) else None
        entries = r.mapping(vnode, f"{label}", MUSCLE_KEYS)
        if entries is None:
            return None
        for key in MUSCLE_KEYS:
            if key in entries:
                out[key] = _read_value(r, entries[key][1], "number", f"{label} {key}", {}, "muscle", key)
        out["__node__"] = vnode
        return out
    raise AssertionError(kind_of)


def _read_defaults(r: Reader, node) -> dict:
    """The defaults block: {kind: {key: value}} for sphere, bone, muscle, joint, cluster."""
    out = {k: {} for k in ITEM_KEYS}
    entries = r.mapping(node, "defaults", ITEM_KEYS)
    if entries is None:
        return out
    later = []   # a bone default that makes muscles: read once the muscle defaults are known
    for kind, (knode, vnode) in entries.items():
        spec = {k: v for k, v in ITEM_KEYS[kind].items() if v[1] is not _REQUIRED and k != "id"}
        sub = r.mapping(vnode, f"defaults.{kind}", spec)
        if sub is None:
            continue
        for key, (k2, v2) in sub.items():
            if key == "optional":  # a part at a time: which parts evolution may take away
                r.problem(k2, f"defaults.{kind}: 'optional' is not a default: write 'optional: true' on "
                              f"each {kind} that evolution may switch off")
                continue
            if (kind, key) == ("bone", "muscle"):
                later.append((v2, spec[key][0]))
                continue
            value = _read_value(r, v2, spec[key][0], f"defaults.{kind}: '{key}'", {}, kind, key)
            if value is not None:
                out[kind][key] = value
    for v2, kind_of in later:  # the built-in muscle values, then defaults.muscle, then its own
        value = _read_value(r, v2, kind_of, "defaults.bone: 'muscle'", {"__muscle__": out["muscle"]}, "bone", "muscle")
        if value is not None:
            out["bone"]["muscle"] = value
    return out


def parse_design(text: str, source: str = "<design>", root=None) -> Design:
    """Parse and check a design's YAML text. Raises :class:`DesignError` with every problem.
    ``root``: the text's node tree if the caller has composed it already
    (``evolution.yamlread.compose(text, ...)``; the editor does, for every edit); it is only read."""
    if root is None:
        root = compose(text, source, MAX_DESIGN_BYTES, DesignError, "design")
    r = Reader()
    if root is None:
        raise DesignError(source, [Problem(1, 1, "the design is empty")])
    top = r.mapping(root, "the design", TOP_KEYS)
    if top is None:
        raise DesignError(source, r.problems)

    defaults = _read_defaults(r, top["defaults"][1]) if "defaults" in top else {k: {} for k in ITEM_KEYS}
    muscle_defaults = dict(defaults["muscle"])

    def meta(key, default=""):
        if key not in top:
            if key == "name":
                r.problem(root, "the design needs a 'name'")
            return default
        value = r.string(top[key][1], f"'{key}'")
        if value is not None:  # printed by commands: printable text, of a sensible length
            text = value.replace("\n", " ").replace("\t", " ") if key == "description" else value
            try:
                limits.check_text(text, f"'{key}'", 10 * limits.MAX_TEXT if key == "description" else limits.MAX_TEXT)
            except ValueError as exc:
                r.problem(top[key][1], str(exc))
                return default
            if key == "name" and ("/" in value or "\\" in value or value.startswith(".")):
                r.problem(top[key][1], "'name' names files and run directories: it may not hold '/' or "
                                       "'\\' nor start with '.'")
                return default
        return default if value is None else value

    name = meta("name")
    description, author, licence = meta("description"), meta("author"), meta("licence")
    self_collision = False
    if "self_collision" in top:
        self_collision = bool(r.boolean(top["self_collision"][1], "'self_collision'"))

    def items(key, kind):
        if key not in top:
            if key == "spheres":
                r.problem(root, "the design needs 'spheres'")
            return []
        d = dict(defaults[kind])
        if kind == "bone":
            d["__muscle__"] = muscle_defaults
        seq = r.sequence(top[key][1], f"'{key}'")
        limit = ITEM_LIMITS[kind]
        if len(seq) > limit:  # refused at once: checking more would take long, and say nothing new
            mark = top[key][1].start_mark
            raise DesignError(source, [Problem(mark.line + 1, mark.column + 1,
                                               f"'{key}' holds {len(seq)} {key}; a design has at most {limit}")])
        return [it for i, n in enumerate(seq) if (it := _read_item(r, n, kind, i, d)) is not None]

    spheres = items("spheres", "sphere")
    bones = items("bones", "bone")
    joints = items("joints", "joint")
    clusters = items("clusters", "cluster")

    # ids: unique within their kind; unnamed bones/joints/clusters get a name from their parts
    def index_ids(items_, kind, auto):
        ids, seen = [], {}
        for k, it in enumerate(items_):
            ident = it.values.get("id") or auto(it, k)
            if ident in seen:
                r.problem(it.nodes["id"], f"{kind} id '{ident}' is used twice (first on line {seen[ident]})")
            else:
                seen[ident] = it.nodes["id"].start_mark.line + 1
            ids.append(ident)
        return ids

    sphere_ids = index_ids(spheres, "sphere", lambda it, k: f"sphere{k + 1}")
    sphere_index = {}
    for i, s in enumerate(sphere_ids):
        sphere_index.setdefault(s, i)

    def ref(pair, what, table, kind):
        ident, node = pair
        if ident is None:
            return None
        if ident not in table:
            r.problem(node, f"{what} refers to {kind} '{ident}', which does not exist"
                            f"{did_you_mean(ident, table)}")
            return None
        return table[ident]

    bone_ids = index_ids(bones, "bone", lambda it, k: "-".join(
        str(p[0]) for p in (it.values["spheres"] or [])) or f"bone{k + 1}")
    bone_index = {}
    for i, b in enumerate(bone_ids):
        bone_index.setdefault(b, i)
    joint_ids = index_ids(joints, "joint", lambda it, k: f"joint{k + 1}")
    cluster_ids = index_ids(clusters, "cluster", lambda it, k: f"cluster{k + 1}")

    # spheres: physical values
    body_spheres = []
    for sid, it in zip(sphere_ids, spheres):
        v, n = it.values, it.nodes
        for key in ("radius", "mass"):
            if v[key] is not None and not v[key] > 0:
                r.problem(n[key], f"sphere '{sid}': {key} must be positive, not {v[key]:g}")
        for key in ("friction", "kinetic_friction", "restitution"):
            if v[key] is not None and v[key] < 0:
                r.problem(n[key], f"sphere '{sid}': {key} must not be negative")
        if v["restitution"] is not None and v["restitution"] > 1:
            r.problem(n["restitution"], f"sphere '{sid}': restitution must be at most 1")
        if (v["kinetic_friction"] is not None and v["friction"] is not None
                and v["kinetic_friction"] > v["friction"]):
            r.problem(n["kinetic_friction"], f"sphere '{sid}': kinetic_friction must not exceed friction "
                                             f"({v['friction']:g})")
        body_spheres.append(v)

    def pos(i):
        p = body_spheres[i]["position"]
        return p if p is not None else None

    # bones and muscles
    body_bones, muscle_ids, bone_ends = [], [], []
    for bid, it in zip(bone_ids, bones):
        v, n = it.values, it.nodes
        ends = [ref(p, f"bone '{bid}'", sphere_index, "sphere") for p in (v["spheres"] or [])]
        bone_ends.append(ends if len(ends) == 2 and None not in ends else None)
        if bone_ends[-1] is not None:
            a, b = ends
            if a == b:
                r.problem(n["spheres"], f"bone '{bid}' joins sphere '{sphere_ids[a]}' to itself")
                bone_ends[-1] = None
            elif pos(a) is not None and pos(b) is not None and math.dist(pos(a), pos(b)) < 1e-6:
                r.problem(n["spheres"], f"bone '{bid}' has zero length: spheres '{sphere_ids[a]}' and "
                                        f"'{sphere_ids[b]}' are at the same position")
                bone_ends[-1] = None
        if v["compliance"] is not None and v["compliance"] < 0:
            r.problem(n["compliance"], f"bone '{bid}': compliance must not be negative")
        if v["width"] is not None and not v["width"] > 0:
            r.problem(n["width"], f"bone '{bid}': width must be positive (metres across the plate the "
                                  f"fluid pushes on)")
        m = v["muscle"]
        if m is not None:
            mnode = m.get("__node__", n["muscle"])
            rng = m.get("range")
            if rng is not None and not (0 < rng <= physics.MAX_MUSCLE_RANGE):
                r.problem(mnode, f"bone '{bid}': muscle range {rng:g} is outside what the engine can "
                                 f"hold, (0, {physics.MAX_MUSCLE_RANGE:g}]")
            for key in ("strength", "speed"):
                if m.get(key) is not None and not m[key] > 0:
                    r.problem(mnode, f"bone '{bid}': muscle {key} must be positive")
            muscle_ids.append(bid)
        body_bones.append(v)

    seen_pairs = {}
    for bid, it, ends in zip(bone_ids, bones, bone_ends):
        if ends is None:
            continue
        pair = (min(ends), max(ends))
        if pair in seen_pairs:
            r.problem(it.nodes["spheres"], f"bones '{seen_pairs[pair]}' and '{bid}' both join "
                                           f"'{sphere_ids[pair[0]]}' and '{sphere_ids[pair[1]]}'")
        else:
            seen_pairs[pair] = bid

    # joints: the two bones must meet at the joint's sphere
    body_joints = []
    for jid, it in zip(joint_ids, joints):
        v, n = it.values, it.nodes
        c = ref(v["sphere"], f"joint '{jid}'", sphere_index, "sphere") if v["sphere"] else None
        bs = [ref(p, f"joint '{jid}'", bone_index, "bone") for p in (v["bones"] or [])]
        others = None
        if c is not None and len(bs) == 2 and None not in bs:
            ends = [bone_ends[b] for b in bs]
            if bs[0] == bs[1]:
                r.problem(n["bones"], f"joint '{jid}' names bone '{bone_ids[bs[0]]}' twice")
            elif None not in ends:
                missing = [bone_ids[b] for b, e in zip(bs, ends) if c not in e]
                if missing:
                    r.problem(n["bones"], f"joint '{jid}': bone{'s' if len(missing) > 1 else ''} "
                                          f"{' and '.join(repr(m) for m in missing)} do"
                                          f"{'' if len(missing) > 1 else 'es'} not meet at sphere "
                                          f"'{sphere_ids[c]}'")
                else:
                    others = [e[1] if e[0] == c else e[0] for e in ends]
                    if others[0] == others[1]:
                        r.problem(n["bones"], f"joint '{jid}': its two bones join the same two spheres")
                        others = None
        lo, hi = v["min"], v["max"]
        if v["kind"] == "free" and (it.nodes["min"] is not it.node or it.nodes["max"] is not it.node):
            key = "min" if it.nodes["min"] is not it.node else "max"
            r.problem(it.nodes[key], f"joint '{jid}': a free joint has no limits; "
                                     f"'{key}' applies to hinges (kind: hinge)")
        if v["kind"] == "hinge" and lo is not None and hi is not None:
            if not (-180 <= lo <= hi <= 180):
                r.problem(n["min"], f"joint '{jid}': need -180 <= min <= max <= 180 degrees "
                                    f"(min {lo:g}, max {hi:g})")
            elif others is not None and None not in (pos(others[0]), pos(c), pos(others[1])):
                (ax, ay), (cx, cy), (bx, by) = pos(others[0]), pos(c), pos(others[1])
                ux, uy, wx, wy = ax - cx, ay - cy, bx - cx, by - cy
                angle = math.degrees(math.atan2(ux * wy - uy * wx, ux * wx + uy * wy))
                if not (lo - 1e-6 <= angle <= hi + 1e-6):
                    r.problem(n["min"], f"joint '{jid}': its initial angle {angle:.1f} degrees is outside "
                                        f"its limits [{lo:g}, {hi:g}]")
        if v["stiffness"] is not None and v["stiffness"] < 0:
            r.problem(n["stiffness"], f"joint '{jid}': stiffness must not be negative")
        body_joints.append((v, c, others))

    # clusters
    body_clusters = []
    for kid, it in zip(cluster_ids, clusters):
        v, n = it.values, it.nodes
        members = [ref(p, f"cluster '{kid}'", sphere_index, "sphere") for p in (v["spheres"] or [])]
        if None not in members and len(set(members)) != len(members):
            r.problem(n["spheres"], f"cluster '{kid}' names a sphere twice")
        if v["stiffness"] is not None and not (0 < v["stiffness"] <= 1):
            r.problem(n["stiffness"], f"cluster '{kid}': stiffness must be within (0, 1]")
        body_clusters.append(members if None not in members else None)

    # optional spheres: evolution switches them off, so nothing may hold them in place
    in_cluster = {m for members in body_clusters if members for m in members}
    for i, (sid, it) in enumerate(zip(sphere_ids, spheres)):
        if it.values["optional"]:
            if i in in_cluster:
                r.problem(it.nodes["optional"], f"sphere '{sid}': a sphere in a cluster cannot be optional")
            elif it.values["fixed"]:
                r.problem(it.nodes["optional"], f"sphere '{sid}': a fixed sphere cannot be optional")

    # the body must hold together: one connected piece through bones and clusters
    P = len(spheres)
    if P == 0 and "spheres" in top and isinstance(top["spheres"][1], yaml.SequenceNode):
        r.problem(top["spheres"][1], "the design needs at least one sphere")
    whole = all(e is not None for e in bone_ends) and len(set(sphere_ids)) == len(sphere_ids)
    if P > 1 and whole and all(s["position"] is not None for s in body_spheres):
        roots = connected_pieces(P, [e for e in bone_ends if e is not None], [m for m in body_clusters if m])
        pieces: dict[int, list[str]] = {}
        for i in range(P):
            pieces.setdefault(roots[i], []).append(sphere_ids[i])
        if len(pieces) > 1:
            desc = "; ".join("{" + ", ".join(p[:4]) + (", ..." if len(p) > 4 else "") + "}"
                             for p in pieces.values())
            r.problem(top["spheres"][0], f"the body falls apart into {len(pieces)} pieces not joined by "
                                         f"bones or clusters: {desc}")

    # overlapping spheres, when they collide with each other
    if self_collision and all(s["position"] is not None and s["radius"] is not None for s in body_spheres):
        linked = {tuple(sorted(e)) for e in bone_ends if e is not None}
        for v, c, others in body_joints:
            if others is not None:
                linked.add(tuple(sorted(others)))
        for members in body_clusters:
            if members:
                linked |= {(min(a, b), max(a, b)) for a in members for b in members}
        for i in range(P):
            for k in range(i + 1, P):
                if (i, k) in linked:
                    continue
                gap = math.dist(pos(i), pos(k)) - body_spheres[i]["radius"] - body_spheres[k]["radius"]
                if gap < -1e-9:
                    r.problem(spheres[k].nodes["position"],
                              f"spheres '{sphere_ids[i]}' and '{sphere_ids[k]}' overlap by "
                              f"{-gap * 1000:.1f} mm and self_collision is on (move them apart, or link "
                              f"them with a bone)")

    if r.problems:
        raise DesignError(source, r.problems)

    body = physics.Body(
        spheres=[physics.Sphere(tuple(s["position"]), s["radius"], s["mass"], s["friction"],
                                s["kinetic_friction"], s["restitution"], s["fixed"], bool(s["optional"]))
                 for s in body_spheres],
        bones=[physics.Bone(e[0], e[1], compliance=v["compliance"],
                            muscle=None if v["muscle"] is None else physics.Muscle(
                                v["muscle"]["range"], v["muscle"]["strength"], v["muscle"]["speed"]),
                            optional=bool(v["optional"]), width=v["width"], wing=bool(v["wing"]))
               for v, e in zip(body_bones, bone_ends)],
        joints=[physics.Joint(c, o[0], o[1], kind=v["kind"], min_angle=math.radians(v["min"]),
                              max_angle=math.radians(v["max"]), stiffness=v["stiffness"],
                              optional=bool(v["optional"]))
                for v, c, o in body_joints],
        clusters=[physics.Cluster(m, v.values["stiffness"]) for m, v in zip(body_clusters, clusters)],
        self_collision=self_collision, name=name)
    genes = _body_genes(spheres, sphere_ids, bones, bone_ids, joints, joint_ids)
    try:
        limits.check_body(body)
        physics.build_model(body, batch=1)  # the engine's own last checks
        genes.check(body)
    except ValueError as exc:
        raise DesignError(source, [Problem(1, 1, f"the engine cannot hold this design: {exc}")]) from None
    return Design(name=name, body=body, description=description, author=author, licence=licence,
                  sphere_ids=sphere_ids, bone_ids=bone_ids, muscle_ids=muscle_ids, joint_ids=joint_ids,
                  cluster_ids=cluster_ids, source=source, text=text, genes=genes)


def _body_genes(spheres, sphere_ids, bones, bone_ids, joints, joint_ids) -> BodyGenes:
    """A checked design's ranges and optional parts as :class:`BodyGenes`: spheres, bones
    (compliance, then the muscle's values) and joints in file order, each part's values in the
    order of :data:`GENE_FIELDS`; joint limits in radians. A free joint's limits do not evolve
    (it has none)."""
    genes, switches = [], []
    groups = (("sphere", spheres, sphere_ids, ("sphere",)), ("bone", bones, bone_ids, ("bone", "muscle")),
              ("joint", joints, joint_ids, ("joint",)))
    for kind, items_, ids, parts in groups:
        for index, (ident, it) in enumerate(zip(ids, items_)):
            if kind == "joint" and it.values["kind"] != "hinge":
                ranges = {k: v for k, v in it.ranges.items() if k[1] not in ("min", "max")}
            else:
                ranges = it.ranges
            for part in parts:
                for f in GENE_FIELDS[part]:
                    rg = ranges.get((part, f))
                    if rg is None:
                        continue
                    low, high, start = rg.low, rg.high, rg.start
                    if part == "joint" and f in ("min", "max"):
                        low, high, start = math.radians(low), math.radians(high), math.radians(start)
                    genes.append(Gene(f"{ident}.{f}", part, index, f, low, high, start))
    for kind, items_, ids, _ in groups:
        for index, (ident, it) in enumerate(zip(ids, items_)):
            if it.values["optional"]:
                switches.append(Switch(ident, kind, index))
    return BodyGenes(tuple(genes), tuple(switches)) if genes or switches else NO_GENES


def load_design(path) -> Design:
    """Read and check a design file. Raises :class:`DesignError` (never a traceback's worth of
    anything else) for a file that cannot be read or is not a valid design."""
    return parse_design(read_text(path, MAX_DESIGN_BYTES, DesignError, "design"), str(path))

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
import re
from dataclasses import dataclass, field

import yaml

import physics
from evolution import limits
from evolution.bodygenes import FIELDS as GENE_FIELDS
from evolution.bodygenes import NO_GENES, BodyGenes, Gene, Switch
from evolution.bodygenes import pieces as connected_pieces
from evolution.yamlread import Problem, Reader, YamlError, compose, describe_node, did_you_mean, one_line, read_text

from .looks import Looks, parse_colour
from .schema import EVOLVABLE, ITEM_LIMITS, ITEMS, LISTS, RANGE_BOUNDS, RANGE_KEYS, REQUIRED, Key, bounds_text

__all__ = ["Design", "DesignError", "Problem", "load_design", "parse_design", "MAX_DESIGN_BYTES"]

#: designs larger than this are refused before parsing (a creature is a few kilobytes)
MAX_DESIGN_BYTES = 1_000_000
#: a muscle group's name
GROUP_NAME = re.compile(rf"[A-Za-z0-9_-]{{1,{limits.MAX_GROUP_NAME}}}")


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
    #: its colours and eyes (physics never sees them)
    looks: Looks = Looks()

    def counts(self) -> dict:
        """How many of each part, and ``outputs``: the brain outputs that drive the muscles (one
        per muscle group and per muscle of no group)."""
        b = self.body
        return {"spheres": len(b.spheres), "bones": len(b.bones), "muscles": len(self.muscle_ids),
                "joints": len(b.joints), "clusters": len(b.clusters), "outputs": len(b.command_map()[2])}

    def groups(self) -> dict:
        """Each muscle group's muscles, ``{group: [(muscle id, inverted), ...]}``, in file order."""
        out = {}
        for bid, bone in zip(self.bone_ids, self.body.bones):
            if bone.muscle is not None and bone.muscle.group is not None:
                out.setdefault(bone.muscle.group, []).append((bid, bone.muscle.invert))
        return out


# --- the format: read from its one declaration (:mod:`.schema`) ----------------------------------
#: each item's keys: key -> (kind of value, default)
ITEM_KEYS = {item: {k.name: (k.kind, k.default) for k in keys.values()}
             for item, keys in ITEMS.items() if item != "design"}
MUSCLE_KEYS = ITEM_KEYS["muscle"]
#: each item's keys that a design's ``defaults:`` may not give (but ids, references and ``optional``,
#: which are not read there at all)
NOT_DEFAULTS = {item: {k.name for k in keys.values() if not k.in_defaults and k.default is not REQUIRED
                       and k.name not in ("id", "optional")} for item, keys in ITEMS.items() if item != "design"}
TOP_KEYS = {k.name: k.kind for k in ITEMS["design"].values()}
JOINT_KINDS = ITEMS["joint"]["kind"].choices


def _shown(item: str) -> str:
    names = ["position (x, y)" if k == "position" else k for k in EVOLVABLE[item]]
    if item == "bone":
        names.append(f"and a muscle's {', '.join(EVOLVABLE['muscle'])}")
    return ", ".join(names)


#: what a message says may evolve, by item
EVOLVABLE_SHOWN = {item: _shown(item) for item, keys in EVOLVABLE.items() if keys}


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
            if default is REQUIRED:
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
    if kind_of == "colour":
        if isinstance(vnode, yaml.SequenceNode):
            value = [r.number(v, label) for v in vnode.value]
            if None in value:
                return None
        else:
            value = r.string(vnode, label)
            if value is None:
                return None
        try:
            return parse_colour(value)
        except ValueError as exc:
            r.problem(vnode, f"{label} {exc}")
            return None
    if kind_of == "choice":
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
        for key, (kind, _) in MUSCLE_KEYS.items():
            if key in entries:
                if key in NOT_DEFAULTS["muscle"] and label.startswith("defaults"):
                    r.problem(entries[key][0], f"{label}: '{key}' is not a default: write it on each muscle of a group")
                    continue
                out[key] = _read_value(r, entries[key][1], kind, f"{label} {key}", {}, "muscle", key)
        out["__node__"] = vnode
        out["__nodes__"] = {key: entries[key][1] for key in entries}
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
        spec = {k: v for k, v in ITEM_KEYS[kind].items() if v[1] is not REQUIRED and k != "id"}
        sub = r.mapping(vnode, f"defaults.{kind}", spec)
        if sub is None:
            continue
        for key, (k2, v2) in sub.items():
            if key == "optional":  # a part at a time: which parts evolution may take away
                r.problem(k2, f"defaults.{kind}: 'optional' is not a default: write 'optional: true' on "
                              f"each {kind} that evolution may switch off")
                continue
            if key in NOT_DEFAULTS[kind]:  # a muscle's group: which muscles share an output
                r.problem(k2, f"defaults.{kind}: '{key}' is not a default: write it on each {kind} that has it")
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
    (``evolution.yamlread.compose(text, ...)``; the editor does, for every edit); it is only read.

    The stages, in order: the top-level keys and the metadata, every item's keys and values
    (defaults applied), the items' ids, then each kind of item checked against the others, then
    the body as a whole; a design with any problem stops there, else it is built and handed to
    the engine's own checks."""
    if root is None:
        root = compose(text, source, MAX_DESIGN_BYTES, DesignError, "design")
    r = Reader()
    if root is None:
        raise DesignError(source, [Problem(1, 1, "the design is empty")])
    top = r.mapping(root, "the design", TOP_KEYS)
    if top is None:
        raise DesignError(source, r.problems)
    p = _Parse(r, root, top, source)
    _read_meta(p)
    _read_items(p)
    _name_items(p)
    _check_spheres(p)
    _check_bones(p)
    _check_joints(p)
    _check_clusters(p)
    _check_whole(p)
    if r.problems:
        raise DesignError(source, r.problems)
    return _design(p, text)


@dataclass
class _Parse:
    """A design being read: its top-level entries, the problems found so far (in ``r``), and
    what each stage found for the next."""

    r: Reader
    root: object
    top: dict
    source: str
    meta: dict = field(default_factory=dict)
    #: kind -> the items read, in file order
    items: dict = field(default_factory=dict)
    #: kind -> the items' ids, and id -> the index of the first item of that id
    ids: dict = field(default_factory=dict)
    index: dict = field(default_factory=dict)
    #: per bone: its two sphere indices (None where they are wrong); the muscles' ids
    bone_ends: list = field(default_factory=list)
    muscle_ids: list = field(default_factory=list)
    #: per joint: (its values, its sphere's index, the far ends of its two bones)
    joints: list = field(default_factory=list)
    #: per cluster: its spheres' indices (None where they are wrong)
    members: list = field(default_factory=list)

    def problem(self, node, message: str, *about) -> None:
        """A problem at ``node`` about the items ``about``, (kind, id) pairs."""
        self.r.problem(node, message, about)

    def ref(self, pair, what: str, kind: str, about: tuple):
        """The index of the ``kind`` an (id, node) ``pair`` names, or None (a problem)."""
        ident, node = pair
        if ident is None:
            return None
        table = self.index[kind]
        if ident not in table:
            self.problem(node, f"{what} refers to {kind} '{ident}', which does not exist"
                               f"{did_you_mean(ident, table)}", *about)
            return None
        return table[ident]

    def pos(self, i: int):
        """Sphere ``i``'s position (None where it is wrong)."""
        return self.items["sphere"][i].values["position"]


def _out_of_bounds(k: Key, value: float) -> str | None:
    """What is wrong with ``value`` of the number key ``k`` (None: it is within its bounds)."""
    low, high, open_low = k.bounds
    if open_low and high < limits.MAX_VALUE:   # (0, high]: a fraction the engine can hold
        if not low < value <= high:
            return f"{value:g} is outside what the engine can hold, {bounds_text(k.bounds)}"
        return None
    if open_low and not value > low:
        return f"must be positive, not {value:g}" if low == 0 else f"must be above {low:g}, not {value:g}"
    if value < low:
        return "must not be negative" if low == 0 else f"must be at least {low:g}, not {value:g}"
    if value > high:
        return f"must be at most {high:g}"
    return None


def _check_numbers(p: _Parse, kind: str, values: dict, nodes, label: str, about: tuple, skip=()) -> None:
    """Every number of an item within its key's bounds (:mod:`.schema`). ``nodes``: key -> the
    node to point at; ``label``: the item, as a problem names it."""
    for k in ITEMS[kind].values():
        value = values.get(k.name)
        if k.kind == "number" and value is not None and k.name not in skip:
            wrong = _out_of_bounds(k, value)
            if wrong:
                p.problem(nodes(k.name), f"{label}{k.name} {wrong}", *about)


def _read_meta(p: _Parse) -> None:
    """The design's name, description, author, licence and self_collision."""
    r, top = p.r, p.top
    for key in ("name", "description", "author", "licence"):
        p.meta[key] = ""
        if key not in top:
            if key == "name":
                r.problem(p.root, "the design needs a 'name'")
            continue
        node = top[key][1]
        value = r.string(node, f"'{key}'")
        if value is None:
            continue
        text = value.replace("\n", " ").replace("\t", " ") if key == "description" else value
        try:  # printed by commands: printable text, of a sensible length
            limits.check_text(text, f"'{key}'", 10 * limits.MAX_TEXT if key == "description" else limits.MAX_TEXT)
        except ValueError as exc:
            r.problem(node, str(exc))
            continue
        if key == "name" and ("/" in value or "\\" in value or value.startswith(".")):
            r.problem(node, "'name' names files and run directories: it may not hold '/' or '\\' nor start with '.'")
            continue
        p.meta[key] = value
    p.meta["self_collision"] = False
    if "self_collision" in top:
        p.meta["self_collision"] = bool(r.boolean(top["self_collision"][1], "'self_collision'"))


def _read_items(p: _Parse) -> None:
    """Every sphere, bone, joint and cluster: its keys and values, the defaults applied."""
    r, top = p.r, p.top
    defaults = _read_defaults(r, top["defaults"][1]) if "defaults" in top else {k: {} for k in ITEM_KEYS}
    muscle_defaults = dict(defaults["muscle"])
    for kind, key in LISTS.items():
        p.items[kind] = []
        if key not in top:
            if key == "spheres":
                r.problem(p.root, "the design needs 'spheres'")
            continue
        d = dict(defaults[kind])
        if kind == "bone":
            d["__muscle__"] = muscle_defaults
        seq = r.sequence(top[key][1], f"'{key}'")
        limit = ITEM_LIMITS[kind]
        if len(seq) > limit:  # refused at once: checking more would take long, and say nothing new
            mark = top[key][1].start_mark
            raise DesignError(p.source, [Problem(mark.line + 1, mark.column + 1,
                                                 f"'{key}' holds {len(seq)} {key}; a design has at most {limit}")])
        p.items[kind] = [it for i, n in enumerate(seq) if (it := _read_item(r, n, kind, i, d)) is not None]


def _auto_id(kind: str, it: _Item, k: int) -> str:
    """The id of an item that has none: a bone's is its spheres' ids (``hip-knee``)."""
    if kind == "bone":
        return "-".join(str(s[0]) for s in (it.values["spheres"] or [])) or f"bone{k + 1}"
    return f"{kind}{k + 1}"


def _name_items(p: _Parse) -> None:
    """Each item's id, unique within its kind (an unnamed one gets one from its parts)."""
    for kind, items in p.items.items():
        ids, seen = [], {}
        for k, it in enumerate(items):
            ident = it.values.get("id") or _auto_id(kind, it, k)
            if ident in seen:
                p.problem(it.nodes["id"], f"{kind} id '{ident}' is used twice (first on line {seen[ident]})",
                          (kind, ident))
            else:
                seen[ident] = it.nodes["id"].start_mark.line + 1
            ids.append(ident)
        p.ids[kind] = ids
        p.index[kind] = {}
        for i, ident in enumerate(ids):
            p.index[kind].setdefault(ident, i)


def _check_spheres(p: _Parse) -> None:
    for sid, it in zip(p.ids["sphere"], p.items["sphere"]):
        v, n, about = it.values, it.nodes, ("sphere", sid)
        _check_numbers(p, "sphere", v, n.get, f"sphere '{sid}': ", (about,))
        if v["kinetic_friction"] is not None and v["friction"] is not None and v["kinetic_friction"] > v["friction"]:
            p.problem(n["kinetic_friction"], f"sphere '{sid}': kinetic_friction must not exceed friction "
                                             f"({v['friction']:g})", about)


def _check_bones(p: _Parse) -> None:
    """Bones join two different spheres apart from each other, no two the same two; and their
    muscles' values."""
    names = p.ids["sphere"]
    for bid, it in zip(p.ids["bone"], p.items["bone"]):
        v, n, about = it.values, it.nodes, ("bone", bid)
        ends = [p.ref(s, f"bone '{bid}'", "sphere", (about,)) for s in (v["spheres"] or [])]
        p.bone_ends.append(ends if len(ends) == 2 and None not in ends else None)
        if p.bone_ends[-1] is not None:
            a, b = ends
            if a == b:
                p.problem(n["spheres"], f"bone '{bid}' joins sphere '{names[a]}' to itself", about)
                p.bone_ends[-1] = None
            elif p.pos(a) is not None and p.pos(b) is not None and math.dist(p.pos(a), p.pos(b)) < 1e-6:
                p.problem(n["spheres"], f"bone '{bid}' has zero length: spheres '{names[a]}' and "
                                        f"'{names[b]}' are at the same position", about)
                p.bone_ends[-1] = None
        _check_numbers(p, "bone", v, n.get, f"bone '{bid}': ", (about,))
        m = v["muscle"]
        if m is not None:
            mnode = m.get("__node__", n["muscle"])
            _check_numbers(p, "muscle", m, lambda key: mnode, f"bone '{bid}': muscle ", (about,))
            _check_group(p, bid, m, m.get("__nodes__", {}), mnode, about)
            p.muscle_ids.append(bid)
    seen = {}
    for bid, it, ends in zip(p.ids["bone"], p.items["bone"], p.bone_ends):
        if ends is None:
            continue
        pair = (min(ends), max(ends))
        if pair in seen:
            p.problem(it.nodes["spheres"], f"bones '{seen[pair]}' and '{bid}' both join '{names[pair[0]]}' and "
                                           f"'{names[pair[1]]}'", ("bone", seen[pair]), ("bone", bid))
        else:
            seen[pair] = bid


def _check_group(p: _Parse, bid: str, m: dict, nodes: dict, mnode, about: tuple) -> None:
    """A muscle's group is a short name people type; ``invert`` is for a muscle in a group."""
    group = m.get("group")
    if group is not None and not GROUP_NAME.fullmatch(group):
        p.problem(nodes.get("group", mnode), f"bone '{bid}': muscle group must be a name of letters, digits, '-' "
                                             f"and '_' (at most {limits.MAX_GROUP_NAME}), not '{one_line(group)}'", about)
    if m.get("invert") and group is None:
        p.problem(nodes.get("invert", mnode), f"bone '{bid}': muscle invert is for a muscle in a group "
                                              f"(give it a group: the muscles it works against)", about)


def _check_joints(p: _Parse) -> None:
    """A joint's two bones meet at its sphere; a hinge's limits hold its first angle."""
    for jid, it in zip(p.ids["joint"], p.items["joint"]):
        v, n, about = it.values, it.nodes, ("joint", jid)
        c = p.ref(v["sphere"], f"joint '{jid}'", "sphere", (about,)) if v["sphere"] else None
        bs = [p.ref(b, f"joint '{jid}'", "bone", (about,)) for b in (v["bones"] or [])]
        others = _joint_ends(p, jid, n, c, bs) if c is not None and len(bs) == 2 and None not in bs else None
        if v["kind"] == "free" and (n["min"] is not it.node or n["max"] is not it.node):
            key = "min" if n["min"] is not it.node else "max"
            p.problem(n[key], f"joint '{jid}': a free joint has no limits; '{key}' applies to hinges (kind: hinge)",
                      about)
        _check_numbers(p, "joint", v, n.get, f"joint '{jid}': ", (about,), skip=("min", "max"))
        lo, hi = v["min"], v["max"]
        if v["kind"] == "hinge" and lo is not None and hi is not None:
            if not (-180 <= lo <= hi <= 180):
                p.problem(n["min"], f"joint '{jid}': need -180 <= min <= max <= 180 degrees (min {lo:g}, max {hi:g})",
                          about)
            elif others is not None and None not in (p.pos(others[0]), p.pos(c), p.pos(others[1])):
                (ax, ay), (cx, cy), (bx, by) = p.pos(others[0]), p.pos(c), p.pos(others[1])
                ux, uy, wx, wy = ax - cx, ay - cy, bx - cx, by - cy
                angle = math.degrees(math.atan2(ux * wy - uy * wx, ux * wx + uy * wy))
                if not (lo - 1e-6 <= angle <= hi + 1e-6):
                    p.problem(n["min"], f"joint '{jid}': its initial angle {angle:.1f} degrees is outside its "
                                        f"limits [{lo:g}, {hi:g}]", about)
        p.joints.append((v, c, others))


def _joint_ends(p: _Parse, jid: str, n: dict, c: int, bs: list):
    """The far ends of a joint's two bones, which must be two and meet at its sphere ``c`` (None
    when they do not: a problem)."""
    about = ("joint", jid)
    ends = [p.bone_ends[b] for b in bs]
    if bs[0] == bs[1]:
        p.problem(n["bones"], f"joint '{jid}' names bone '{p.ids['bone'][bs[0]]}' twice", about)
        return None
    if None in ends:
        return None
    missing = [p.ids["bone"][b] for b, e in zip(bs, ends) if c not in e]
    if missing:
        p.problem(n["bones"], f"joint '{jid}': bone{'s' if len(missing) > 1 else ''} "
                              f"{' and '.join(repr(m) for m in missing)} do{'' if len(missing) > 1 else 'es'} not "
                              f"meet at sphere '{p.ids['sphere'][c]}'", about, *(("bone", m) for m in missing))
        return None
    others = [e[1] if e[0] == c else e[0] for e in ends]
    if others[0] == others[1]:
        p.problem(n["bones"], f"joint '{jid}': its two bones join the same two spheres", about)
        return None
    return others


def _check_clusters(p: _Parse) -> None:
    for kid, it in zip(p.ids["cluster"], p.items["cluster"]):
        v, n, about = it.values, it.nodes, ("cluster", kid)
        members = [p.ref(s, f"cluster '{kid}'", "sphere", (about,)) for s in (v["spheres"] or [])]
        if None not in members and len(set(members)) != len(members):
            p.problem(n["spheres"], f"cluster '{kid}' names a sphere twice", about)
        _check_numbers(p, "cluster", v, n.get, f"cluster '{kid}': ", (about,))
        p.members.append(members if None not in members else None)


def _check_whole(p: _Parse) -> None:
    """The body as a whole: optional spheres nothing holds in place, one connected piece, and
    no overlapping spheres when they collide with each other."""
    spheres, names = p.items["sphere"], p.ids["sphere"]
    in_cluster = {m for members in p.members if members for m in members}
    for i, (sid, it) in enumerate(zip(names, spheres)):
        if it.values["optional"]:   # evolution switches it off, so nothing may hold it in place
            if i in in_cluster:
                p.problem(it.nodes["optional"], f"sphere '{sid}': a sphere in a cluster cannot be optional",
                          ("sphere", sid))
            elif it.values["fixed"]:
                p.problem(it.nodes["optional"], f"sphere '{sid}': a fixed sphere cannot be optional",
                          ("sphere", sid))
    P = len(spheres)
    if P == 0 and "spheres" in p.top and isinstance(p.top["spheres"][1], yaml.SequenceNode):
        p.problem(p.top["spheres"][1], "the design needs at least one sphere")
    whole = all(e is not None for e in p.bone_ends) and len(set(names)) == len(names)
    if P > 1 and whole and all(p.pos(i) is not None for i in range(P)):
        roots = connected_pieces(P, [e for e in p.bone_ends if e is not None], [m for m in p.members if m])
        pieces: dict[int, list[str]] = {}
        for i in range(P):
            pieces.setdefault(roots[i], []).append(names[i])
        if len(pieces) > 1:
            desc = "; ".join("{" + ", ".join(s[:4]) + (", ..." if len(s) > 4 else "") + "}" for s in pieces.values())
            p.problem(p.top["spheres"][0], f"the body falls apart into {len(pieces)} pieces not joined by "
                                           f"bones or clusters: {desc}")
    if p.meta["self_collision"]:
        _check_overlaps(p)


def _check_overlaps(p: _Parse) -> None:
    """Spheres that overlap and are not linked (by a bone, a joint or a cluster): with
    self_collision on they would push each other apart at the first step."""
    spheres, names = p.items["sphere"], p.ids["sphere"]
    if not all(s.values["position"] is not None and s.values["radius"] is not None for s in spheres):
        return
    linked = {tuple(sorted(e)) for e in p.bone_ends if e is not None}
    for _, _, others in p.joints:
        if others is not None:
            linked.add(tuple(sorted(others)))
    for members in p.members:
        if members:
            linked |= {(min(a, b), max(a, b)) for a in members for b in members}
    for i in range(len(spheres)):
        for k in range(i + 1, len(spheres)):
            if (i, k) in linked:
                continue
            gap = math.dist(p.pos(i), p.pos(k)) - spheres[i].values["radius"] - spheres[k].values["radius"]
            if gap < -1e-9:
                p.problem(spheres[k].nodes["position"],
                          f"spheres '{names[i]}' and '{names[k]}' overlap by {-gap * 1000:.1f} mm and "
                          f"self_collision is on (move them apart, or link them with a bone)",
                          ("sphere", names[i]), ("sphere", names[k]))


def _design(p: _Parse, text: str) -> Design:
    """The checked design built: its physics body and genes, handed to the engine's own checks."""
    spheres = [it.values for it in p.items["sphere"]]
    body = physics.Body(
        spheres=[physics.Sphere(tuple(s["position"]), s["radius"], s["mass"], s["friction"], s["kinetic_friction"],
                                s["restitution"], s["fixed"], bool(s["optional"])) for s in spheres],
        bones=[physics.Bone(e[0], e[1], compliance=v["compliance"],
                            muscle=None if v["muscle"] is None else physics.Muscle(
                                v["muscle"]["range"], v["muscle"]["strength"], v["muscle"]["speed"],
                                v["muscle"]["group"], bool(v["muscle"]["invert"]), v["muscle"]["stretch"],
                                v["muscle"]["damping"]),
                            optional=bool(v["optional"]), width=v["width"], wing=bool(v["wing"]))
               for v, e in zip((it.values for it in p.items["bone"]), p.bone_ends)],
        joints=[physics.Joint(c, o[0], o[1], kind=v["kind"], min_angle=math.radians(v["min"]),
                              max_angle=math.radians(v["max"]), stiffness=v["stiffness"], optional=bool(v["optional"]))
                for v, c, o in p.joints],
        clusters=[physics.Cluster(m, it.values["stiffness"]) for m, it in zip(p.members, p.items["cluster"])],
        self_collision=p.meta["self_collision"], name=p.meta["name"])
    genes = _body_genes(p.items["sphere"], p.ids["sphere"], p.items["bone"], p.ids["bone"], p.items["joint"],
                        p.ids["joint"])
    try:
        limits.check_body(body)
        physics.build_model(body, batch=1)  # the engine's own last checks
        genes.check(body)
    except ValueError as exc:
        raise DesignError(p.source, [Problem(1, 1, f"the engine cannot hold this design: {exc}")]) from None
    return Design(name=p.meta["name"], body=body, description=p.meta["description"], author=p.meta["author"],
                  licence=p.meta["licence"], sphere_ids=p.ids["sphere"], bone_ids=p.ids["bone"],
                  muscle_ids=p.muscle_ids, joint_ids=p.ids["joint"], cluster_ids=p.ids["cluster"], source=p.source,
                  text=text, genes=genes,
                  looks=Looks(tuple(s["colour"] for s in spheres), tuple(it.values["colour"] for it in p.items["bone"]),
                              tuple(bool(s["eye"]) for s in spheres)))


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

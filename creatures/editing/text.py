"""A design file's YAML as :mod:`creatures.editing` edits it: the editable fields of each kind of
item (:data:`FIELDS`), the composed text as items with their spans (:class:`Tree`), the
:class:`~render.game.Sketch` drawn from it (:func:`sketch_of`), and an edit turned into text
patches that change only the spans they mean to (:class:`Edit`, :class:`Patcher`).
:mod:`creatures.editing` says why an edit is a text patch.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np
import yaml

from render.game import GameError, Sketch

from ..design.looks import parse_colour
from ..design.schema import ITEMS, LISTS, REQUIRED, Key, bounds_text, evolves
from ..design.schema import default as builtin_default

KINDS = tuple(LISTS)
_LIST_KEYS = tuple(LISTS.values())
_INDENT = 2
ScalarNode, SeqNode, MapNode = yaml.ScalarNode, yaml.SequenceNode, yaml.MappingNode
#: what a plain scalar may not hold to be copied into a flow mapping as it is
FLOW_UNSAFE = re.compile(r"[,\[\]{}]|: |\s#")



# --- what can be edited: the side panel's fields ---------------------------------------------------

@dataclass(frozen=True)
class Spec:
    """One editable value: its type (``number``, ``bool``, ``str``, ``kind``), unit, hint, bounds
    ``(low, high, low excluded)`` for a number, whether it may evolve, its built-in default (as the
    loader has it), its gene ``(part, field)`` where that is not ``(kind, key)``, and whether an
    item needs it."""

    key: str
    type: str
    unit: str = ""
    hint: str = ""
    bounds: tuple | None = None
    evolves: bool = False
    default: object = None
    gene: tuple | None = None
    required: bool = False


def _spec(item: str, k: Key, name: str | None = None, gene: tuple | None = None, about: str | None = None) -> Spec:
    """The editor's field for key ``k`` of an ``item`` (:mod:`creatures.design.schema`)."""
    hint = about or k.about
    if k.kind == "number" and k.bounds is not None:
        hint += f", {bounds_text(k.bounds)}"
    elif k.kind == "bool":
        hint += ": true or false"
    may_evolve = evolves(item, k.name)
    if may_evolve:
        hint += "; may evolve (low..high)"
    required = k.default is REQUIRED
    kind = {"choice": "kind", "point": "number"}.get(k.kind, k.kind)   # a point: one field per coordinate
    shown_default = None if required or k.kind == "str" else k.default
    return Spec(name or k.name, kind, k.unit, hint, k.bounds if kind == "number" else None, may_evolve,
                shown_default, gene, required)


#: what the editor's panel shows of each kind of item: every key of the format but the ids and
#: the references (drawn and edited on the canvas); a position as x and y, a muscle's keys as
#: ``muscle.KEY`` beside its bone's
_ON_CANVAS = ("id", "position", "spheres", "sphere", "bones", "muscle")
_POSITION = ITEMS["sphere"]["position"]
FIELDS = {
    "sphere": [_spec("sphere", _POSITION, "x", ("sphere", "x"), "its centre, from the left"),
               _spec("sphere", _POSITION, "y", ("sphere", "y"), "its centre, above the ground line")]
              + [_spec("sphere", k) for k in ITEMS["sphere"].values() if k.name not in _ON_CANVAS],
    **{item: [_spec(item, k) for k in ITEMS[item].values() if k.name not in _ON_CANVAS]
       for item in ("bone", "joint", "cluster")},
    "muscle": [_spec("muscle", k, f"muscle.{k.name}") for k in ITEMS["muscle"].values()],
    "design": [_spec("design", k) for k in ITEMS["design"].values() if k.kind in ("str", "bool")],
}


# --- reading the node tree -------------------------------------------------------------------------

def node_end(node, text: str) -> int:
    """Where ``node``'s own text ends: a block collection's end mark lies past the comments and
    blank lines after it, and a block scalar's past its trailing line breaks; neither belongs to
    it."""
    while isinstance(node, (SeqNode, MapNode)) and not node.flow_style and node.value:
        last = node.value[-1]
        node = last[1] if isinstance(node, MapNode) else last
    end = node.end_mark.index
    if isinstance(node, ScalarNode) and node.style in ("|", ">"):
        while end > node.start_mark.index and text[end - 1] in " \t\r\n":
            end -= 1
    return end


def _number(node):
    """The number a plain scalar holds (as the loader reads it), else None."""
    if node.__class__ is not ScalarNode or node.style is not None or node.tag.endswith((":bool", ":null")):
        return None
    try:
        value = float(node.value)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def entries_of(node) -> dict:
    """A mapping node's ``{key: (key node, value node)}`` (the first of a repeated key)."""
    out = {}
    if node.__class__ is MapNode:
        for k, v in node.value:
            if k.__class__ is ScalarNode and k.value not in out:
                out[k.value] = (k, v)
    return out


def is_range(node) -> bool:
    return node.__class__ is MapNode and any(k.__class__ is ScalarNode and k.value in ("evolve", "start")
                                          for k, _ in node.value)


def range_of(node):
    """``(low, high, start or None)`` of a range node, else None."""
    e = entries_of(node)
    ev = e.get("evolve", (None, None))[1]
    if ev.__class__ is not SeqNode or len(ev.value) != 2:
        return None
    lo, hi = _number(ev.value[0]), _number(ev.value[1])
    if lo is None or hi is None:
        return None
    return lo, hi, _number(e["start"][1]) if "start" in e else None


def start_value(node):
    """A value as the design's own body has it: a number, or a range's start (the middle unless
    given, as the loader takes it); None if it is neither."""
    if node.__class__ is MapNode:
        r = range_of(node)
        if r is None:
            return None
        lo, hi, start = r
        return start if start is not None else min(max(float(f"{(lo + hi) / 2:.15g}"), lo), hi)
    return _number(node)


def _truth(node):
    """True/False for a boolean scalar, else None."""
    if node.__class__ is ScalarNode and node.tag.endswith(":bool"):
        return node.value.lower() in ("true", "yes", "on", "y")
    return None


def makes_muscle(node) -> bool:
    """Whether a bone's ``muscle`` value (None: not given) makes it a muscle."""
    return node is not None and (node.__class__ is MapNode or _truth(node) is True)


def word_of(node):
    """The text of a scalar (not null), else None."""
    if node.__class__ is ScalarNode and not node.tag.endswith(":null"):
        return node.value
    return None


def short_number(value: float) -> str:
    """A number written short: the shortest text that reads back as the same float, without an
    exponent (YAML 1.1 reads ``1e-06`` as text), ``150`` for 150.0, ``0`` for -0.0."""
    if value == 0:
        return "0"
    return np.format_float_positional(float(value), trim="-")


class Item:
    """One item of a list: its kind, position in the list (items that are mappings only), id (the
    loader's: an unnamed bone is ``a-b``, an unnamed joint ``joint3``), node, entries and span."""

    __slots__ = ("kind", "index", "id", "node", "keys", "start", "end")

    def __init__(self, kind, index, ident, node, keys, start, end):
        self.kind, self.index, self.id, self.node, self.keys = kind, index, ident, node, keys
        self.start, self.end = start, end

    def refs(self, key):
        """The ids a ``spheres``/``bones`` list names (None for a value that is not a list)."""
        v = self.keys.get(key)
        if v is None or v[1].__class__ is not SeqNode:
            return None
        return [word_of(n) for n in v[1].value]


class Tree:
    """The composed text: top-level entries, ``defaults:`` entries, the items of each list (with
    ids as the loader gives them) and the lookups by id (the first of a repeated id, as the
    loader resolves references)."""

    def __init__(self, root, text: str):
        self.root = root
        self.text = text
        self.top = entries_of(root)
        self.defaults = {}
        if "defaults" in self.top:
            self.defaults = {k: entries_of(v) for k, (_, v) in entries_of(self.top["defaults"][1]).items()}
        self.items = {}
        self.by_id = {}
        for kind in KINDS:
            seq = self.top.get(LISTS[kind], (None, None))[1]
            nodes = seq.value if seq.__class__ is SeqNode else []
            out = []
            for node in nodes:
                if node.__class__ is not MapNode:
                    continue  # the loader skips it too (and says why)
                keys = entries_of(node)
                ident = word_of(keys["id"][1]) if "id" in keys else None
                if not ident:
                    ident = self._auto_id(kind, keys, len(out))
                out.append(Item(kind, len(out), ident, node, keys, node.start_mark.index, node_end(node, text)))
            self.items[kind] = out
            table = {}
            for it in out:
                table.setdefault(it.id, it)
            self.by_id[kind] = table

    @staticmethod
    def _auto_id(kind, keys, k):
        if kind == "bone":
            v = keys.get("spheres", (None, None))[1]
            if v.__class__ is SeqNode and len(v.value) == 2:
                return "-".join(str(word_of(n)) for n in v.value)
            return f"bone{k + 1}"
        return f"{kind}{k + 1}"

    def default(self, kind: str, key: str):
        """The node ``defaults: {kind: {key: ...}}`` gives, or None."""
        v = self.defaults.get(kind, {}).get(key)
        return None if v is None else v[1]


# --- the sketch ------------------------------------------------------------------------------------

def sketch_of(tree: Tree) -> Sketch:
    """What the window draws, from the YAML data as it is (ids the loader would not resolve -> -1,
    defaults applied to radii), even when the design is invalid."""
    spheres, bones, joints, clusters = (tree.items[k] for k in KINDS)
    P = len(spheres)
    pos = np.zeros((P, 2))
    d_radius = tree.default("sphere", "radius")
    d_radius = start_value(d_radius) if d_radius is not None else None
    radius = np.full(P, d_radius if d_radius is not None else builtin_default("sphere", "radius"))
    evolving = set()
    ranged = {kind: {k for k, v in tree.defaults.get(kind, {}).items() if is_range(v[1])}
              for kind in ("sphere", "bone", "muscle", "joint")}

    def marks(it, part):
        return (any(is_range(v) for _, v in it.keys.values()) or _truth(it.keys.get("optional", (0, None))[1])
                or bool(ranged.get(part, set()) - it.keys.keys()))

    sphere_index = {}
    for i, it in enumerate(spheres):
        sphere_index.setdefault(it.id, i)
        p = it.keys.get("position")
        evolves = marks(it, "sphere")
        if p is not None and p[1].__class__ is SeqNode and len(p[1].value) == 2:
            x, y = (start_value(c) for c in p[1].value)
            pos[i] = (x or 0.0, y or 0.0)
            evolves = evolves or any(is_range(c) for c in p[1].value)
        r = it.keys.get("radius")
        if r is not None:
            value = start_value(r[1])
            if value is not None:
                radius[i] = value
        if evolves:
            evolving.add(("sphere", it.id))
    E = len(bones)
    d_muscle = tree.default("bone", "muscle")  # 'defaults: {bone: {muscle: true}}' makes every bone one
    bone_a, bone_b = np.full(E, -1, np.int64), np.full(E, -1, np.int64)
    muscle = np.zeros(E, bool)
    bone_index = {}
    for e, it in enumerate(bones):
        bone_index.setdefault(it.id, e)
        refs = it.refs("spheres") or []
        if len(refs) == 2:
            bone_a[e], bone_b[e] = (sphere_index.get(r, -1) for r in refs)
        m = it.keys.get("muscle")
        node = m[1] if m is not None else d_muscle
        muscle[e] = makes_muscle(node)
        evolves = marks(it, "bone")
        if muscle[e]:
            mk = entries_of(node)
            evolves = evolves or any(is_range(v) for _, v in mk.values()) or bool(ranged["muscle"] - mk.keys())
        if evolves:
            evolving.add(("bone", it.id))
    J = len(joints)
    joint_sphere = np.full(J, -1, np.int64)
    joint_bones = np.full((J, 2), -1, np.int64)
    joint_min, joint_max = np.full(J, np.nan), np.full(J, np.nan)
    kinds = []
    d_kind = word_of(tree.default("joint", "kind")) if tree.default("joint", "kind") is not None else None
    for j, it in enumerate(joints):
        s = it.keys.get("sphere")
        if s is not None:
            joint_sphere[j] = sphere_index.get(word_of(s[1]), -1)
        refs = it.refs("bones") or []
        if len(refs) == 2:
            joint_bones[j] = [bone_index.get(r, -1) for r in refs]
        k = it.keys.get("kind")
        kind = (word_of(k[1]) if k is not None else d_kind) or "hinge"
        kinds.append(kind)
        if kind == "hinge":
            for key, out, default in (("min", joint_min, -180.0), ("max", joint_max, 180.0)):
                node = it.keys[key][1] if key in it.keys else tree.default("joint", key)
                value = start_value(node) if node is not None else default
                out[j] = value if value is not None else default
        if marks(it, "joint"):
            evolving.add(("joint", it.id))
    members = []
    for it in clusters:
        refs = it.refs("spheres") or []
        members.append(np.array([sphere_index[r] for r in refs if r in sphere_index], np.int64))
    sc = tree.top.get("self_collision")
    looks = {}
    for kind, items in (("sphere", spheres), ("bone", bones)):
        default = _colour_of(tree.default(kind, "colour"))
        colours = [_colour_of(it.keys["colour"][1]) if "colour" in it.keys else default for it in items]
        looks[f"{kind}_color"] = np.array([c or (0, 0, 0) for c in colours], np.uint8).reshape(-1, 3)
        looks[f"{kind}_colored"] = np.array([c is not None for c in colours], bool)
    looks["eyes"] = np.array([bool(_truth(it.keys.get("eye", (0, None))[1])) for it in spheres], bool)
    return Sketch(sphere_id=tuple(it.id for it in spheres), pos=pos, radius=radius,
                  bone_id=tuple(it.id for it in bones), bone_a=bone_a, bone_b=bone_b, muscle=muscle,
                  joint_id=tuple(it.id for it in joints), joint_sphere=joint_sphere, joint_bones=joint_bones,
                  joint_kind=tuple(kinds), joint_min=joint_min, joint_max=joint_max,
                  cluster_id=tuple(it.id for it in clusters), cluster_members=tuple(members),
                  self_collision=bool(sc is not None and _truth(sc[1])), evolving=frozenset(evolving), **looks)


def _colour_of(node):
    """The colour a ``colour`` value node says (``creatures.design.looks``), or None (none, or
    not a colour: the loader says why)."""
    if node is None:
        return None
    try:
        if node.__class__ is SeqNode:
            return parse_colour([start_value(c) for c in node.value])
        return parse_colour(word_of(node) or "")
    except (ValueError, TypeError):
        return None


# --- an edit: what changes, then the text patches --------------------------------------------------

class Edit:
    """What one edit changes, gathered before any text moves.

    Attributes
    ----------
    items : dict
        ``(kind, index) -> new text`` of a changed item, or None for a deleted one.
    added : dict
        ``kind -> [text, ...]`` of new items.
    top : dict
        ``key -> new value text`` of a top-level key, or None to remove it.
    defaults : dict
        ``kind -> new value text`` under ``defaults:``.
    """

    def __init__(self):
        self.items = {}
        self.added = {k: [] for k in KINDS}
        self.top = {}
        self.defaults = {}


def _line_start(text: str, i: int) -> int:
    return text.rfind("\n", 0, i) + 1


def _next_line(text: str, i: int) -> int:
    """The start of the line after the one holding ``i`` (the text's end for the last line)."""
    j = text.find("\n", i)
    return len(text) if j < 0 else j + 1


def _dash_column(text: str, seq) -> int:
    """The column of the dashes of a block list (where its new items go)."""
    first = seq.value[0]
    prefix = text[_line_start(text, first.start_mark.index):first.start_mark.index]
    m = re.fullmatch(r"([ \t]*)-[ \t]+", prefix)
    return len(m.group(1)) if m else seq.start_mark.column


def _alone(text: str, node) -> bool:
    """Whether a list item starts its line (after its dash)."""
    s = node.start_mark.index
    return re.fullmatch(r"[ \t]*-[ \t]+", text[_line_start(text, s):s]) is not None


class Patcher:
    """Turns an :class:`Edit` of a :class:`Tree` into the new text."""

    def __init__(self, tree: Tree):
        self.tree = tree
        self.text = tree.text
        self.patches = []   # (start, end, text), applied in order of start (ties: as made)
        self._at_end = False  # lines were appended at the end already

    def put(self, start: int, end: int, new: str) -> None:
        self.patches.append((start, end, new))

    def eof(self, new: str) -> None:
        """Append lines at the end of the text (after a line break)."""
        t = self.text
        if t and not t.endswith("\n") and not self._at_end:
            new = "\n" + new
        self._at_end = True
        self.put(len(t), len(t), new)

    def before_lists(self, new: str) -> None:
        """Insert lines before the first of the lists (or ``defaults:``), else at the end."""
        keys = [self.tree.top[k][0] for k in ("defaults", *_LIST_KEYS) if k in self.tree.top]
        if keys and not self.tree.root.flow_style:
            s = _line_start(self.text, min(k.start_mark.index for k in keys))
            self.put(s, s, new)
        else:
            self.eof(new)

    def block_root(self) -> None:
        if self.tree.root.__class__ is not MapNode:
            raise GameError("the file is not a mapping of keys to values: fix it in a text editor first")
        if self.tree.root.flow_style and self.tree.root.value:
            raise GameError("the design is written as one flow mapping ({...}): the editor adds keys "
                            "only to block-style files")

    def apply(self, edit: Edit) -> str:
        t = self.text
        tree = self.tree
        # top-level values
        for key, value in edit.top.items():
            if key in tree.top:
                k, v = tree.top[key]
                if value is None:
                    self.put(_line_start(t, k.start_mark.index), _next_line(t, node_end(v, t)), "")
                else:
                    s = v.start_mark.index
                    self.put(s, node_end(v, t), (" " if t[s - 1:s] == ":" else "") + value)
            elif value is not None:
                self.block_root()
                self.before_lists(f"{key}: {value}\n")
        # defaults
        if edit.defaults:
            self._defaults(edit.defaults)
        # the lists
        for kind in KINDS:
            self._list(kind, edit)
        out, pos = [], 0
        for s, e, new in sorted(self.patches, key=lambda p: (p[0], p[1])):
            if s < pos:
                raise AssertionError("overlapping patches")
            out.append(t[pos:s])
            out.append(new)
            pos = e
        out.append(t[pos:])
        return "".join(out)

    def _defaults(self, values: dict) -> None:
        t, tree = self.text, self.tree
        node = tree.top.get("defaults", (None, None))[1]
        if node.__class__ is MapNode and node.value:
            entries = entries_of(node)
            lines = []
            for kind, value in values.items():
                if kind in entries:
                    v = entries[kind][1]
                    self.put(v.start_mark.index, node_end(v, t), value)
                elif node.flow_style:
                    close = t.rfind("}", 0, node.end_mark.index)
                    self.put(close, close, f", {kind}: {value}")
                else:
                    lines.append(f"{' ' * node.start_mark.column}{kind}: {value}\n")
            if lines:
                at = _next_line(t, node_end(node, t))
                self.put(at, at, ("" if t[at - 1:at] == "\n" or at == 0 else "\n") + "".join(lines))
            return
        block = "".join(f"{' ' * _INDENT}{kind}: {value}\n" for kind, value in values.items())
        if node is None:
            self.block_root()
            self.before_lists("defaults:\n" + block)
        elif node.__class__ is ScalarNode and node.tag.endswith(":null"):
            self.put(node.start_mark.index, node.end_mark.index, "")
            at = _next_line(t, node.end_mark.index)
            self.put(at, at, ("" if t[at - 1:at] == "\n" else "\n") + block)
        else:
            raise GameError("'defaults' is not a mapping: fix it in a text editor first")

    def _list(self, kind: str, edit: Edit) -> None:
        t, tree = self.text, self.tree
        key = LISTS[kind]
        changed = {i: v for (k, i), v in edit.items.items() if k == kind}
        added = edit.added[kind]
        if not changed and not added:
            return
        if key not in tree.top:
            self.block_root()
            self.eof(f"{key}:\n" + "".join(f"{' ' * _INDENT}- {a}\n" for a in added))
            return
        knode, seq = tree.top[key]
        if seq.__class__ is ScalarNode and seq.tag.endswith(":null"):
            self.put(seq.start_mark.index, seq.end_mark.index, "")
            at = _next_line(t, seq.end_mark.index)
            self.put(at, at, ("" if t[at - 1:at] == "\n" else "\n")
                     + "".join(f"{' ' * _INDENT}- {a}\n" for a in added))
            return
        if seq.__class__ is not SeqNode:
            raise GameError(f"'{key}' is not a list: fix it in a text editor first")
        items = tree.items[kind]
        node_of = {it.index: it.node for it in items}
        deleted = {id(node_of[i]) for i, v in changed.items() if v is None}
        new_of = {id(node_of[i]): v for i, v in changed.items() if v is not None}
        kept = [n for n in seq.value if id(n) not in deleted]
        if seq.flow_style or not seq.value:
            # a flow list is written again: its items as they were (or changed), then the new ones
            texts = [new_of.get(id(n), t[n.start_mark.index:node_end(n, t)]) for n in kept] + added
            self.put(seq.start_mark.index, seq.end_mark.index, "[" + ", ".join(texts) + "]")
            return
        if not kept and not added:  # the whole list goes: 'bones: []'
            last = seq.value[-1]
            end = _next_line(t, node_end(last, t))
            end -= t[end - 1:end] == "\n"
            self.put(knode.end_mark.index, end, ": []")
            return
        for n in seq.value:
            s, e = n.start_mark.index, node_end(n, t)
            if id(n) in deleted:
                if _alone(t, n):
                    self.put(_line_start(t, s), _next_line(t, e), "")
                else:
                    self.put(s, e, "")
            elif id(n) in new_of:
                self.put(s, e, new_of[id(n)])
        if added:
            col = _dash_column(t, seq)
            at = _next_line(t, node_end(seq.value[-1], t))
            self.put(at, at, ("" if t[at - 1:at] == "\n" else "\n")
                     + "".join(f"{' ' * col}- {a}\n" for a in added))


# --- the document ----------------------------------------------------------------------------------

"""The document model of ``creatures edit``: a design file being edited, as the editor window
(:mod:`render.editor`) sees it through :class:`render.game.DesignDoc`.

How an edit works
-----------------
The YAML text is the source of truth, and every edit is a text patch. The text is composed with
:func:`evolution.yamlread.compose` (the safe node tree the loader itself reads), whose nodes carry
the character span they came from. An edit works out the new text of the items it changes and
replaces exactly the span of each: one item of ``spheres:``, ``bones:``, ``joints:`` or
``clusters:``, a value under ``defaults:``, a top-level value. A new item is a new line
``  - {id: ..., ...}`` after the last item of its list, with the list's indentation (a list that
does not exist yet is appended as ``key:`` and its first line); a deleted item's line or lines go.
A changed item keeps its keys in their order and the text of every value it did not change, and is
written in flow style on one line. Every byte outside the changed spans stays as it was: untouched
items, comments, blank lines, and the way their numbers are written.

Why not ruamel.yaml, the usual "round-trip" YAML library: it re-emits the whole document, so lines
nobody touched may change (spacing, quoting, line breaks of long flow mappings), and it would be a
new dependency. The node spans of PyYAML, which the loader already uses, let an edit change only
what it means to, and a file opened and saved without an edit is the same bytes.

After every edit the text is composed again, the :class:`~render.game.Sketch` rebuilt from the
YAML data (also while the design is invalid), and the real loader
(:func:`creatures.design.parse_design`, what ``creatures validate`` runs) lists the problems; each
problem highlights the items whose span holds its line and column. Undo and redo keep whole texts.
"""

from __future__ import annotations

import bisect
import math
import re
import subprocess
import sys
from collections import deque
from pathlib import Path

import yaml

from evolution import PluginError, limits
from evolution.files import WriteError, write_atomic
from evolution.yamlread import compose, read_data
from render.game import Field, GameError, Issue, Pick, Sketch

from ..design import MAX_DESIGN_BYTES, DesignError, parse_design
from ..design.looks import colour_text, parse_colour
from .arrange import Arranging
from ..design.schema import ITEMS, RANGE_BOUNDS
from ..design.writer import yaml_scalar
from ..design.schema import default as builtin_default
from .text import (FIELDS, FLOW_UNSAFE, KINDS, Edit, Item, MapNode, Patcher, ScalarNode, SeqNode, Spec, Tree,
                   entries_of, is_range, makes_muscle, node_end, range_of, short_number, sketch_of,
                   start_value, word_of)

__all__ = ["DesignDocument", "LivePreview", "UNDO_LEVELS"]

#: undo steps kept (each a whole text: a few kilobytes)
UNDO_LEVELS = 500
#: what a design made from scratch gets in ``defaults:`` when its first sphere or muscle is added
SCRATCH_DEFAULTS = {"sphere": "{radius: 0.08, mass: 0.5, friction: 0.8}",
                    "muscle": "{range: 0.2, strength: 150, speed: 2}"}
#: a hinge made by :meth:`DesignDocument.add_joint` may bend this far (degrees) each way
HINGE_SPAN = 45.0
#: new and moved sphere positions are rounded to this many decimals (0.1 mm)
POSITION_DECIMALS = 4


class DesignDocument(Arranging):
    """A design file being edited (:class:`render.game.DesignDoc`): its YAML text, the sketch
    to draw, the problems the loader finds, and undo/redo of whole texts.

    Make one with :meth:`open` (a file), :meth:`new` (a file to make) or :meth:`from_builtin` (a
    copy of a built-in design). Items are named ``(kind, id)``, kind ``sphere``, ``bone``,
    ``joint`` or ``cluster``; ``fields("design", "")`` are the design's own values.

    Attributes
    ----------
    path : str
    title : str
        The design's name (the file's stem while it has none).
    text : str
        The YAML now (line breaks ``\\n``; a file written with ``\\r\\n`` is saved with them).
    sketch : Sketch
    problems : list of Issue
    dirty : bool
        The text differs from the file's (always True before a new file is first saved).
    design : Design or None
        The last valid version (what :meth:`live_source` plays).
    terrains : list of Pick
    """

    def __init__(self, path, text: str, saved: str | None = None, scratch: bool = False, newline: str = "\n",
                 bom: str = ""):
        self.path = str(path)
        self.text = text
        self._saved = saved         # the text of the file on the disk (None: not written yet)
        self._scratch = scratch     # made from nothing: its first sphere/muscle brings defaults
        self._newline = newline
        self._bom = bom
        self._undo: deque = deque(maxlen=UNDO_LEVELS)
        self._redo: list = []
        self._terrains = None
        self.design = None
        self._refresh()

    # --- making one ---------------------------------------------------------------------------
    @classmethod
    def open(cls, path) -> "DesignDocument":
        """A design file that exists (an invalid one too: its problems are listed). Raises
        :class:`GameError` for a file that is missing, too large or not text."""
        p = Path(path)
        if not p.is_file():
            raise GameError(f"{path}: no such file")
        try:
            _, text = read_data(p, MAX_DESIGN_BYTES, DesignError, "design")
        except DesignError as exc:
            raise GameError(str(exc).splitlines()[0]) from None
        # the text is edited as the parser counts it: \n line breaks, no byte-order mark (libyaml's
        # marks do not count one); both come back when it is saved
        bom = "\ufeff" if text.startswith("\ufeff") else ""
        text = text[len(bom):]
        newline = "\r\n" if "\r\n" in text and text.count("\r\n") == text.count("\n") else "\n"
        text = text.replace("\r\n", "\n") if newline == "\r\n" else text
        if "\r" in text:
            raise GameError(f"{path}: line breaks that are lone carriage returns; save it with \\n first")
        return cls(p, text, saved=text, newline=newline, bom=bom)

    @classmethod
    def new(cls, path, name: str | None = None) -> "DesignDocument":
        """A design to be made from scratch and saved as ``path`` (nothing is written before
        :meth:`save`): ``name: <the file's stem>``. :class:`GameError` if the file exists."""
        p = Path(path)
        if p.exists():
            raise GameError(f"{path} exists already: open it instead")
        return cls(p, f"name: {yaml_scalar(name or p.stem, flow=False)}\n", scratch=True)

    @classmethod
    def from_builtin(cls, name: str, path) -> "DesignDocument":
        """A copy of a built-in design (its text exactly) to be saved as ``path``."""
        from ..design.bestiary import DESIGN_DIR, builtin_names
        if name not in builtin_names():
            raise GameError(f"no built-in design '{name}' (built-in: {', '.join(builtin_names())})")
        p = Path(path)
        if p.exists():
            raise GameError(f"{path} exists already: open it instead")
        text = (DESIGN_DIR / f"{name}.yaml").read_text(encoding="utf-8")
        return cls(p, text)

    # --- state --------------------------------------------------------------------------------
    @property
    def dirty(self) -> bool:
        return self.text != self._saved

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    @property
    def valid(self) -> bool:
        return not self.problems

    @property
    def title(self) -> str:
        name = self._tree.top.get("name") if self._tree is not None else None
        value = word_of(name[1]) if name is not None else None
        return value or Path(self.path).stem

    @property
    def terrains(self) -> list:
        if self._terrains is None:
            from evolution.plugins import available
            picks = [Pick(p.name, " ".join((p.description or "").split())[:140])
                     for p in available("terrain") if p.problem is None]
            picks.sort(key=lambda p: p.name != "flat")
            self._terrains = picks
        return self._terrains

    def _refresh(self) -> None:
        """Compose the text, rebuild the sketch, run the loader, find each problem's items."""
        text, source = self.text, self.path
        try:
            root = compose(text, source, MAX_DESIGN_BYTES, DesignError, "design")
        except DesignError as exc:
            self._tree = None
            self.sketch = Sketch()
            self.problems = self._issues(exc.problems, None)
            return
        tree = Tree(root, text)
        self._tree = tree
        self.sketch = sketch_of(tree)
        try:
            self.design = parse_design(text, source, root)
            self.problems = []
        except DesignError as exc:
            self.problems = self._issues(exc.problems, tree)

    def _issues(self, problems, tree) -> list:
        """The loader's problems as :class:`Issue` s, each with the item whose span holds its
        line and column and the items the problem is about (both spheres of an overlap, both
        bones joining the same spheres: the loader points at the second only)."""
        text = self.text
        line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        spans = sorted((it.start, it.end, kind, it.id) for kind in KINDS
                       for it in (tree.items[kind] if tree is not None else ()))
        starts = [sp[0] for sp in spans]
        out = []
        for p in problems:
            message = f"{p.line}:{p.column}: {p.message}" if p.line > 0 else p.message
            items = []
            if spans and 0 < p.line <= len(line_starts):
                index = line_starts[p.line - 1] + max(p.column - 1, 0)
                k = bisect.bisect_right(starts, index) - 1
                if k >= 0 and index <= spans[k][1]:
                    items.append(spans[k][2:])
            items += [item for item in p.about if item not in items]
            out.append(Issue(message, p.line, p.column, tuple(items)))
        return out

    # --- undo ---------------------------------------------------------------------------------
    def _commit(self, text: str) -> None:
        if text == self.text:
            return
        self._undo.append(self.text)
        self._redo.clear()
        self.text = text
        self._refresh()

    def undo(self) -> None:
        """Back one edit: exactly the text before it."""
        if self._undo:
            self._redo.append(self.text)
            self.text = self._undo.pop()
            self._refresh()

    def redo(self) -> None:
        """Forward one undone edit."""
        if self._redo:
            self._undo.append(self.text)
            self.text = self._redo.pop()
            self._refresh()

    # --- helpers of edits ---------------------------------------------------------------------
    def _tree_for_edit(self) -> Tree:
        if self._tree is None:
            first = self.problems[0].message if self.problems else "the text does not read as YAML"
            raise GameError(f"the file does not read as YAML ({first}): fix it in a text editor, or undo")
        if self._tree.root.__class__ is not MapNode:
            raise GameError("the file is not a mapping of keys to values: fix it in a text editor, or undo")
        return self._tree

    def _item(self, kind: str, ident: str) -> Item:
        tree = self._tree_for_edit()
        if kind not in KINDS:
            raise GameError(f"no such kind of item: {kind!r} (sphere, bone, joint or cluster)")
        it = tree.by_id[kind].get(ident)
        if it is None:
            raise GameError(f"there is no {kind} '{ident}'")
        return it

    def _new_id(self, kind: str) -> str:
        """``sphere_7``: the first number not taken (nor by a mirrored pair, ``sphere_7_l``)."""
        taken = set(self._tree.by_id[kind])
        n = 1
        while {f"{kind}_{n}", f"{kind}_{n}_l", f"{kind}_{n}_r"} & taken:
            n += 1
        return f"{kind}_{n}"

    def _flow(self, node) -> str:
        """A value node as text fit for a flow mapping: its own text when it is one line of flow
        style (exactly as written), else written again from its data."""
        t = self.text
        s, e = node.start_mark.index, node_end(node, t)
        raw = t[s:e]
        if node.__class__ is ScalarNode:
            if "\n" not in raw and not (node.style is None and FLOW_UNSAFE.search(raw)) and \
                    node.style not in ("|", ">"):
                return raw
            if node.style is None and not node.tag.endswith(":str"):
                return node.value
            return yaml_scalar(node.value)
        if node.flow_style and "\n" not in raw:
            return raw
        if node.__class__ is SeqNode:
            return "[" + ", ".join(self._flow(n) for n in node.value) + "]"
        return "{" + ", ".join(f"{self._flow(k)}: {self._flow(v)}" for k, v in node.value) + "}"

    def _item_text(self, it: Item, changes: dict) -> str:
        """The item written again in flow style on one line: its keys in their order, the text of
        those not in ``changes`` as it was, ``changes`` (key -> value text, None to drop it)
        applied; a new key goes where the format lists it among the item's keys."""
        order = list(ITEMS[it.kind])
        rank = {k: i for i, k in enumerate(order)}
        entries = []  # [key, key text, value text]
        for k, v in it.node.value:
            key = k.value if k.__class__ is ScalarNode else None
            if key in changes:
                if changes[key] is not None and not any(e[0] == key for e in entries):
                    entries.append([key, self._flow(k), changes[key]])
                continue
            entries.append([key, self._flow(k), self._flow(v)])
        for key, value in changes.items():
            if value is None or any(e[0] == key for e in entries):
                continue
            r = rank.get(key, len(order))
            at = next((i for i, e in enumerate(entries) if rank.get(e[0], len(order)) > r), len(entries))
            entries.insert(at, [key, key, value])
        return "{" + ", ".join(f"{k}: {v}" for _, k, v in entries) + "}"

    def _change(self, edit: Edit, it: Item, changes: dict) -> None:
        edit.items[(it.kind, it.index)] = self._item_text(it, changes)

    def _apply(self, edit: Edit) -> None:
        self._commit(Patcher(self._tree).apply(edit))

    def _position_text(self, it: Item, xy, round_moved: bool = True) -> str:
        """A sphere's ``position`` moved to ``xy`` (each None: not moved): a moved number is rounded
        to 0.1 mm, a moved range shifted whole; what did not move keeps its text."""
        p = it.keys.get("position")
        comps = p[1].value if p is not None and p[1].__class__ is SeqNode and len(p[1].value) == 2 else None
        out = []
        for axis, target in enumerate(xy):
            node = comps[axis] if comps is not None else None
            if target is None and node is not None:
                out.append(self._flow(node))
                continue
            target = 0.0 if target is None else target
            now = start_value(node) if node is not None else None
            if node is not None and now == target:
                out.append(self._flow(node))
            elif node is not None and is_range(node) and range_of(node) is not None and now is not None:
                lo, hi, start = range_of(node)
                d = target - now
                shifted = [short_number(round(v + d, POSITION_DECIMALS)) for v in (lo, hi)]
                tail = "" if start is None else f", start: {short_number(round(start + d, POSITION_DECIMALS))}"
                out.append(f"{{evolve: [{shifted[0]}, {shifted[1]}]{tail}}}")
            else:
                out.append(short_number(round(target, POSITION_DECIMALS)))
        return f"[{out[0]}, {out[1]}]"

    def _sphere_xy(self, it: Item):
        return tuple(float(v) for v in self.sketch.pos[it.index])

    def _scratch_default(self, edit: Edit, kind: str) -> None:
        """A design made from scratch gets ``defaults: {kind: ...}`` with its first sphere or
        muscle, so that its items stay short."""
        if self._scratch and kind not in self._tree.defaults:
            edit.defaults[kind] = SCRATCH_DEFAULTS[kind]

    # --- spheres ------------------------------------------------------------------------------
    def add_sphere(self, x: float, y: float) -> str:
        """A new sphere at (x, y) (m) with the defaults; returns its id (``sphere_7``)."""
        self._tree_for_edit()
        x, y = _checked_xy(x, y)
        ident = self._new_id("sphere")
        edit = Edit()
        self._scratch_default(edit, "sphere")
        edit.added["sphere"].append(f"{{id: {ident}, position: [{short_number(round(x, POSITION_DECIMALS))}, "
                                    f"{short_number(round(y, POSITION_DECIMALS))}]}}")
        self._apply(edit)
        return ident

    def move_spheres(self, ids, dx: float, dy: float) -> None:
        """Move spheres by (dx, dy) (m), one undo step; each new position is rounded to 0.1 mm (a
        range moves whole), a coordinate not moved keeps its text."""
        dx, dy = float(dx), float(dy)
        if not (math.isfinite(dx) and math.isfinite(dy)):
            raise GameError("a move must be a finite distance")
        edit = Edit()
        for ident in dict.fromkeys(ids):
            it = self._item("sphere", ident)
            x, y = self._sphere_xy(it)
            target = (x + dx if dx else None, y + dy if dy else None)
            _checked_xy(x + dx, y + dy)
            self._change(edit, it, {"position": self._position_text(it, target)})
        self._apply(edit)

    def set_position(self, sphere: str, x: float, y: float) -> None:
        """Put a sphere at (x, y) (m), rounded to 0.1 mm (a coordinate that is a range is shifted
        whole)."""
        it = self._item("sphere", sphere)
        x, y = _checked_xy(x, y)
        edit = Edit()
        self._change(edit, it, {"position": self._position_text(it, (x, y))})
        self._apply(edit)

    # --- bones and muscles --------------------------------------------------------------------
    def add_bone(self, a: str, b: str) -> str:
        """A new bone between two spheres (a bone from a sphere to itself is made, and is one of
        the problems); returns its id (``bone_3``)."""
        self._item("sphere", a)
        self._item("sphere", b)
        ident = self._new_id("bone")
        edit = Edit()
        edit.added["bone"].append(f"{{id: {ident}, spheres: [{yaml_scalar(a)}, {yaml_scalar(b)}]}}")
        self._apply(edit)
        return ident

    def toggle_muscle(self, bone: str) -> None:
        """A bone becomes a muscle (``muscle: true``: the defaults' muscle, or the built-in one),
        a muscle a plain bone (its ``muscle`` key dropped, with its values)."""
        it = self._item("bone", bone)
        by_default = makes_muscle(self._tree.default("bone", "muscle"))
        edit = Edit()
        if self._muscle_node(it) is not None:
            self._change(edit, it, {"muscle": "false" if by_default else None})
        else:
            self._scratch_default(edit, "muscle")
            self._change(edit, it, {"muscle": None if by_default else "true"})
        self._apply(edit)

    # --- joints -------------------------------------------------------------------------------
    def _angle(self, sphere: Item, bones) -> float:
        """The angle (degrees) from the first bone to the second at ``sphere``, counter-clockwise
        positive, as the loader measures a hinge's limits."""
        tree = self._tree
        ends = []
        for b in bones:
            refs = b.refs("spheres") or []
            if len(refs) != 2 or sphere.id not in refs:
                raise GameError(f"bone '{b.id}' does not meet at sphere '{sphere.id}'")
            other = refs[1] if refs[0] == sphere.id else refs[0]
            if other not in tree.by_id["sphere"]:
                raise GameError(f"bone '{b.id}' names sphere '{other}', which does not exist")
            ends.append(self._sphere_xy(tree.by_id["sphere"][other]))
        if bones[0] is bones[1] or ends[0] == ends[1]:
            raise GameError("a joint is between two different bones")
        cx, cy = self._sphere_xy(sphere)
        (ax, ay), (bx, by) = ends
        ux, uy, wx, wy = ax - cx, ay - cy, bx - cx, by - cy
        return math.degrees(math.atan2(ux * wy - uy * wx, ux * wx + uy * wy))

    @staticmethod
    def _limits(angle: float) -> tuple:
        """A hinge's limits: ``HINGE_SPAN`` each side of ``angle``, to 0.1 degree outwards, within
        -180..180."""
        lo = max(-180.0, math.floor((angle - HINGE_SPAN) * 10) / 10)
        hi = min(180.0, math.ceil((angle + HINGE_SPAN) * 10) / 10)
        return lo, hi

    def add_joint(self, sphere: str, bone1: str, bone2: str, kind: str = "hinge") -> str:
        """A new joint at ``sphere`` between two of its bones: a hinge limited to 45 degrees each
        side of the angle they make now, or ``free``; returns its id (``joint_1``)."""
        if kind not in ("hinge", "free"):
            raise GameError(f"a joint is a hinge or free, not {kind!r}")
        s = self._item("sphere", sphere)
        bones = [self._item("bone", bone1), self._item("bone", bone2)]
        angle = self._angle(s, bones)
        ident = self._new_id("joint")
        text = f"{{id: {ident}, sphere: {yaml_scalar(sphere)}, bones: [{yaml_scalar(bone1)}, {yaml_scalar(bone2)}], kind: {kind}"
        if kind == "hinge":
            lo, hi = self._limits(angle)
            text += f", min: {short_number(lo)}, max: {short_number(hi)}"
        edit = Edit()
        edit.added["joint"].append(text + "}")
        self._apply(edit)
        return ident

    def _joint_changes(self, it: Item, kind=None, lo=None, hi=None) -> dict:
        changes = {}
        if kind is None and (lo is not None or hi is not None) and self.sketch.joint_kind[it.index] == "free":
            raise GameError(f"joint '{it.id}' is free: a free joint has no limits (make it a hinge first)")
        if kind is not None:
            if kind not in ("hinge", "free"):
                raise GameError(f"a joint is a hinge or free, not {kind!r}")
            changes["kind"] = kind
            if kind == "free":
                changes["min"] = changes["max"] = None
            elif lo is None and hi is None and "min" not in it.keys and "max" not in it.keys:
                refs = it.refs("bones") or []
                s = self._tree.by_id["sphere"].get(word_of(it.keys.get("sphere", (0, None))[1]))
                bones = [self._tree.by_id["bone"].get(r) for r in refs]
                if s is not None and len(bones) == 2 and None not in bones:
                    lo, hi = self._limits(self._angle(s, bones))
        now = self.sketch.joint_min[it.index], self.sketch.joint_max[it.index]
        for key, value in (("min", lo), ("max", hi)):
            if value is not None:
                value = float(value)
                if not -180.0 <= value <= 180.0:
                    raise GameError(f"a hinge's {key} must be within -180..180 degrees, not {value:g}")
                changes[key] = short_number(value)
        a = lo if lo is not None else now[0]
        b = hi if hi is not None else now[1]
        if changes.get("kind", "hinge") == "hinge" and not (math.isnan(a) or math.isnan(b)) and a > b:
            raise GameError(f"a hinge's min ({a:g}) must not be above its max ({b:g})")
        return changes

    def set_joint(self, joint: str, kind: str | None = None, min: float | None = None,
                  max: float | None = None) -> None:
        """Change a joint's kind (a free joint drops its limits; a joint made a hinge without
        limits gets 45 degrees each side of its angle now) or a hinge's limits (degrees)."""
        it = self._item("joint", joint)
        edit = Edit()
        self._change(edit, it, self._joint_changes(it, kind, min, max))
        self._apply(edit)

    # --- clusters -----------------------------------------------------------------------------
    def add_cluster(self, spheres) -> str:
        """A new cluster of three or more spheres (their shape held rigid); returns its id."""
        ids = list(dict.fromkeys(spheres))
        if len(ids) < 3:
            raise GameError("a cluster holds three spheres or more (two are a bone)")
        for s in ids:
            self._item("sphere", s)
        ident = self._new_id("cluster")
        edit = Edit()
        edit.added["cluster"].append(f"{{id: {ident}, spheres: [{', '.join(yaml_scalar(s) for s in ids)}]}}")
        self._apply(edit)
        return ident

    # --- deleting -----------------------------------------------------------------------------
    def delete(self, items) -> None:
        """Delete items (``(kind, id)`` pairs), one undo step: a sphere takes its bones, the joints
        at it and its place in clusters with it, a bone its joints; a cluster left with fewer than
        two spheres goes too."""
        tree = self._tree_for_edit()
        gone = {k: set() for k in KINDS}
        for kind, ident in items:
            gone[kind].add(self._item(kind, ident).index)
        dead_spheres = {tree.items["sphere"][i].id for i in gone["sphere"]}
        for it in tree.items["bone"]:
            if any(r in dead_spheres for r in (it.refs("spheres") or [])):
                gone["bone"].add(it.index)
        dead_bones = {tree.items["bone"][i].id for i in gone["bone"]}
        for it in tree.items["joint"]:
            at = word_of(it.keys["sphere"][1]) if "sphere" in it.keys else None
            if at in dead_spheres or any(r in dead_bones for r in (it.refs("bones") or [])):
                gone["joint"].add(it.index)
        edit = Edit()
        for it in tree.items["cluster"]:
            refs = it.refs("spheres")
            if it.index in gone["cluster"] or refs is None or not dead_spheres & set(refs):
                continue
            members = it.keys["spheres"][1].value
            kept = [n for n in members if word_of(n) not in dead_spheres]
            if len(kept) < 2:
                gone["cluster"].add(it.index)
            else:
                self._change(edit, it, {"spheres": "[" + ", ".join(self._flow(n) for n in kept) + "]"})
        for kind, indices in gone.items():
            for i in indices:
                edit.items[(kind, i)] = None
        self._apply(edit)

    # --- fields -------------------------------------------------------------------------------
    def _target(self, kind: str, ident: str):
        """(item or None for the design, its specs)."""
        if kind == "design":
            self._tree_for_edit()
            return None, FIELDS["design"]
        it = self._item(kind, ident)
        specs = list(FIELDS[kind])
        if kind == "bone" and self._muscle_node(it) is not None:
            specs += FIELDS["muscle"]
        return it, specs

    def _muscle_node(self, it: Item):
        """A muscle's ``muscle`` value node, its own or the defaults' (None for a plain bone)."""
        m = it.keys.get("muscle")
        node = m[1] if m is not None else self._tree.default("bone", "muscle")
        return node if makes_muscle(node) else None

    def fields(self, kind: str, id: str) -> list:
        """The item's editable values (list of :class:`Field`): ``kind`` ``sphere``, ``bone``,
        ``joint``, ``cluster``, or ``design`` (``id`` ignored) for name, description,
        self_collision..."""
        it, specs = self._target(kind, id)
        tree = self._tree
        out = []
        for spec in specs:
            default = False
            if it is None:
                entry = tree.top.get(spec.key)
                if entry is not None:
                    value = (word_of(entry[1]) or "") if spec.type == "str" else self._flow(entry[1])
                    value = " ".join(value.split()) if spec.key == "description" else value
                else:
                    value, default = _shown_default(spec.default), True
            elif spec.key in ("x", "y"):
                p = it.keys.get("position")
                ok = p is not None and p[1].__class__ is SeqNode and len(p[1].value) == 2
                value = self._flow(p[1].value["xy".index(spec.key)]) if ok else ""
            elif spec.key.startswith("muscle."):
                key = spec.key.split(".", 1)[1]
                mine = entries_of(it.keys["muscle"][1]) if "muscle" in it.keys else {}
                node = mine[key][1] if key in mine else tree.default("muscle", key)
                default = key not in mine
                value = self._flow(node) if node is not None else _shown_default(spec.default)
            elif spec.key in it.keys:
                value = self._flow(it.keys[spec.key][1])
            else:
                default = True
                node = tree.default(kind, spec.key)
                if node is not None:
                    value = self._flow(node)
                elif spec.key == "kinetic_friction":  # as friction, unless it says
                    f = it.keys.get("friction") or tree.defaults.get("sphere", {}).get("friction")
                    value = self._flow(f[1]) if f is not None else _shown_default(builtin_default("sphere", "friction"))
                else:
                    value = _shown_default(spec.default)
            out.append(Field(spec.key, value, spec.unit, default, spec.hint))
        return out

    def set_field(self, kind: str, id: str, key: str, text: str) -> None:
        """Set one value from what the player typed: a number, ``low..high`` for an evolvable
        range (``{evolve: [low, high]}``; ``{evolve: [low, high], start: x}`` as the file writes it
        is taken too), ``true``/``false``, text for a name, or nothing to drop the key (the default
        applies). :class:`GameError` (nothing changed) for text that is not a value of that field."""
        it, specs = self._target(kind, id)
        spec = next((s for s in specs if s.key == key), None)
        if spec is None:
            shown = ", ".join(s.key for s in specs)
            raise GameError(f"a {kind} has no field {key!r} here (fields: {shown})")
        label = key if it is None else f"{kind} '{id}': {key}"
        value = _typed(spec, text, label, kind)
        edit = Edit()
        if it is None:
            if value is None and spec.required:
                raise GameError(f"a design needs a {key}")
            edit.top[key] = value
        elif key in ("x", "y"):
            if value is None:
                raise GameError(f"{label}: a sphere needs its {key}")
            p = it.keys.get("position")
            if p is not None and p[1].__class__ is SeqNode and len(p[1].value) == 2:
                comps = [self._flow(n) for n in p[1].value]
            else:
                comps = ["0", "0"]
            comps["xy".index(key)] = value
            self._change(edit, it, {"position": f"[{comps[0]}, {comps[1]}]"})
        elif key.startswith("muscle."):
            sub = key.split(".", 1)[1]
            m = it.keys.get("muscle", (None, None))[1]
            entries = [] if m.__class__ is not MapNode else [
                [k.value, self._flow(k), self._flow(v)] for k, v in m.value]
            entries = [e for e in entries if e[0] != sub]
            if value is not None:
                order = list(ITEMS["muscle"])
                at = next((i for i, e in enumerate(entries)
                           if e[0] in order and order.index(e[0]) > order.index(sub)), len(entries))
                entries.insert(at, [sub, sub, value])
            text = "{" + ", ".join(f"{k}: {v}" for _, k, v in entries) + "}" if entries else "true"
            self._change(edit, it, {"muscle": text})
        elif kind == "joint" and key == "kind":
            self._change(edit, it, self._joint_changes(it, kind=value or "hinge") if value else {"kind": None})
        else:
            self._change(edit, it, {key: value})
        self._apply(edit)

    # --- saving, playing, evolving ------------------------------------------------------------
    def save(self) -> str:
        """Write the text to :attr:`path` atomically; returns the path. :class:`GameError`
        (nothing written) if the design has problems or the file cannot be written."""
        if self.problems:
            n = len(self.problems)
            raise GameError(f"not saved: {n} problem{'s' if n > 1 else ''} to fix first "
                            f"({self.problems[0].message})")
        data = self._bom + (self.text.replace("\n", self._newline) if self._newline != "\n" else self.text)
        try:
            write_atomic(self.path, data)
        except WriteError as exc:
            raise GameError(str(exc)) from None
        except OSError as exc:
            raise GameError(f"cannot write {self.path}: {exc.strerror or exc}") from None
        self._saved = self.text
        return self.path

    def live_source(self, terrain: str = "") -> "LivePreview":
        """The last valid version on ``terrain`` (``""``: flat), its muscles on a sine wave, as
        ``creatures preview`` plays it. :class:`GameError` if it has never been valid."""
        if self.design is None:
            raise GameError("the design has not been valid yet: nothing to play")
        return LivePreview(self.design, terrain)

    def evolve(self) -> str:
        """Save (if edited), then start ``creatures play FILE`` in a process of its own when
        there is a display; returns what was done, or the ``creatures evolve`` command to run.
        The play window writes to this terminal's stderr (where its run is when it closes, how to
        go on); it is not stopped by a Ctrl-C meant for the editor (a session of its own)."""
        from ..display import has_display
        if self.problems:
            raise GameError(f"cannot evolve it yet: {len(self.problems)} problem(s) "
                            f"({self.problems[0].message})")
        if self.dirty:
            self.save()
        if not has_display():
            return f"creatures evolve {self.path}"
        try:
            subprocess.Popen([sys.executable, "-m", "creatures", "play", self.path], start_new_session=True,
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=None)
        except OSError as exc:
            raise GameError(f"cannot start creatures play: {exc.strerror or exc}") from None
        return f"started creatures play {self.path}"


# --- typed values ----------------------------------------------------------------------------------

def _checked_xy(x, y) -> tuple:
    x, y = float(x), float(y)
    if not (math.isfinite(x) and math.isfinite(y)) or max(abs(x), abs(y)) > limits.MAX_COORDINATE:
        raise GameError(f"a position must be within +-{limits.MAX_COORDINATE:g} m")
    return x, y


def _shown_default(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return short_number(value)
    return str(value)


def _in_bounds(spec: Spec, value: float, label: str) -> None:
    lo, hi, open_lo = spec.bounds
    if (value <= lo if open_lo else value < lo) or value > hi:
        low = f"above {lo:g}" if open_lo else f"at least {lo:g}"
        raise GameError(f"{label} must be {low} and at most {hi:g}, not {value:g}")


def _parse_number(text: str, label: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise GameError(f"{label} must be a number, not {text!r}") from None
    if not math.isfinite(value):
        raise GameError(f"{label} must be a finite number, not {text!r}")
    return value


def _typed(spec: Spec, text: str, label: str, kind: str):
    """The value text to write for what the player typed in a field (None: drop the key)."""
    text = str(text).strip()
    if not text:
        return None
    if spec.type == "bool":
        if text.lower() not in ("true", "false"):
            raise GameError(f"{label} is true or false, not {text!r}")
        return text.lower()
    if spec.type == "kind":
        if text not in ("hinge", "free"):
            raise GameError(f"{label} is hinge or free, not {text!r}")
        return text
    if spec.type == "str":
        return yaml_scalar(text, flow=False)
    if spec.type == "colour":     # written as a name or [r, g, b] ("#rrggbb" would need quotes)
        try:
            return colour_text(parse_colour(yaml.safe_load(text) if text.startswith("[") else text))
        except (ValueError, yaml.YAMLError) as exc:
            raise GameError(f"{label} {exc}") from None
    # a number, or a range
    rng = None
    if text.startswith("{"):
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError:
            data = None
        ok = (isinstance(data, dict) and set(data) <= {"evolve", "start"} and isinstance(data.get("evolve"), list)
              and len(data["evolve"]) == 2)
        if not ok:
            raise GameError(f"{label} must be a number or a range like 0.05..0.15, not {text!r}")
        lo, hi = (_parse_number(str(v), label) for v in data["evolve"])
        start = _parse_number(str(data["start"]), label) if "start" in data else None
        rng = (lo, hi, start)
    elif ".." in text:
        parts = text.split("..")
        if len(parts) != 2:
            raise GameError(f"{label} must be a number or a range like 0.05..0.15, not {text!r}")
        rng = (_parse_number(parts[0].strip(), label), _parse_number(parts[1].strip(), label), None)
    if rng is None:
        value = _parse_number(text, label)
        _in_bounds(spec, value, label)
        return short_number(value)
    if not spec.evolves:
        raise GameError(f"{label} cannot evolve (it takes a number)")
    lo, hi, start = rng
    if not lo < hi:
        raise GameError(f"{label}: a range's low end must be below its high end ({lo:g}..{hi:g})")
    gene = spec.gene or ("muscle" if spec.key.startswith("muscle.") else kind, spec.key.split(".")[-1])
    bounds = RANGE_BOUNDS.get(gene, spec.bounds)
    check = Spec(spec.key, "number", bounds=bounds)
    _in_bounds(check, lo, label)
    _in_bounds(check, hi, label)
    tail = ""
    if start is not None:
        if not lo <= start <= hi:
            raise GameError(f"{label}: start {start:g} is outside its range {lo:g}..{hi:g}")
        tail = f", start: {short_number(start)}"
    return f"{{evolve: [{short_number(lo)}, {short_number(hi)}]{tail}}}"


# --- the live test ---------------------------------------------------------------------------------

def LivePreview(design, terrain: str = ""):
    """A valid design on a terrain (``""``: flat), its muscles on a sine wave, as ``creatures
    preview`` plays it (``creatures.sources.SineDesign``): a :class:`render.scene.Source`. Raises
    :class:`GameError` for a terrain that cannot be made."""
    from ..simulation import SINE_HZ
    from ..sources import SineDesign
    name = terrain or "flat"
    try:
        return SineDesign(design, name, f"{design.name} - on {name}, muscles on a {SINE_HZ:g} Hz sine", "live test")
    except (PluginError, ValueError) as exc:
        raise GameError(f"cannot play it on {name}: {exc}") from None

"""Reading YAML files people write, with every problem at its line and column.

Designs (``creatures.design``) and terrain files (:mod:`evolution.terrains`) are read the same
way: the text is composed into YAML nodes from the safe loader's events (libyaml's parser when
PyYAML has it), and a :class:`Reader` walks the nodes, converting values and collecting
:class:`Problem` s instead of stopping at the first. The caller raises a :class:`YamlError`
holding them all; a command prints them as ``file:line:column: message`` (at most
:data:`MAX_PROBLEMS` of them, then how many more there are).

A file is data and nothing else, whoever wrote it: no tag that makes an object (nothing in a
file can run code), nesting at most :data:`MAX_DEPTH` deep, anchors and aliases expanding to
at most :data:`MAX_VALUES` values (no "billion laughs"), one document, and nothing recurses
however the file nests.
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass

import yaml

__all__ = ["Problem", "YamlError", "Reader", "compose", "read_top", "read_text", "read_data", "did_you_mean",
           "describe_node", "MAX_DEPTH", "MAX_VALUES", "MAX_PROBLEMS"]

#: lists and mappings may nest at most this deep (a design or a terrain needs 4 or 5)
MAX_DEPTH = 100
#: values (scalars, lists, mappings) a file may hold with its anchors and aliases expanded: what
#: 2 MB of plain YAML can hold at most, and far short of the "billion laughs" (10^9)
MAX_VALUES = 1_000_000
#: problems a :class:`YamlError` shows (its message ends with how many more there are)
MAX_PROBLEMS = 20
#: the explicit tags a file may use: YAML's plain data types (``!!str 5``), never objects
PLAIN_TAGS = frozenset("tag:yaml.org,2002:" + t for t in ("str", "int", "float", "bool", "null", "seq", "map"))


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a file, at a 1-based line and column (0 when unknown). ``about``:
    the things of the file it is about, as ``(kind, name)`` pairs (a design's items: an editor
    marks them all, where the line and column point at one)."""

    line: int
    column: int
    message: str
    about: tuple = ()

    def format(self, source: str) -> str:
        if self.line <= 0:  # about the file as a whole (unreadable, too large)
            return f"{source}: {self.message}"
        return f"{source}:{self.line}:{self.column}: {self.message}"


class YamlError(Exception):
    """A file that cannot be used, with all its problems (``str()``: one line per problem)."""

    def __init__(self, source: str, problems: list[Problem]):
        self.source = source
        self.problems = sorted(problems, key=lambda p: (p.line, p.column))
        lines = [p.format(source) for p in self.problems[:MAX_PROBLEMS]]
        if len(self.problems) > MAX_PROBLEMS:
            lines.append(f"{source}: {len(self.problems) - MAX_PROBLEMS} more problems not shown "
                         f"(fix these first)")
        super().__init__("\n".join(lines))

    def __reduce__(self):
        return (type(self), (self.source, self.problems))


def did_you_mean(word: str, choices) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def describe_node(node) -> str:
    if node is None:
        return "nothing"
    if isinstance(node, yaml.MappingNode):
        return "a mapping"
    if isinstance(node, yaml.SequenceNode):
        return "a list"
    if node.tag.endswith(":null"):
        return "nothing (null)"
    if node.tag.endswith(":bool"):
        return f"the boolean {node.value}"
    return f"'{one_line(node.value)}'"


def one_line(text: str, limit: int = 40) -> str:
    """``text`` fit for a one-line message: control characters escaped, at most ``limit``
    characters (a problem is always one line, however a value was written)."""
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(text))
    return text if len(text) <= limit else text[:limit - 3] + "..."


#: characters a YAML file may not hold (YAML's own rule, checked before parsing so that the
#: place of the first one is a line and column in the text)
_NON_PRINTABLE = yaml.reader.Reader.NON_PRINTABLE

# libyaml's parser (C) when PyYAML has it: some 30 times faster than PyYAML's own, which takes
# seconds over a file of a megabyte. Only its events are used; the nodes are composed here.
_EventSource = getattr(yaml, "CSafeLoader", None) if getattr(yaml, "__with_libyaml__", False) else None
_EventSource = _EventSource or yaml.SafeLoader


class _Refused(Exception):
    """Composing stopped at ``mark`` for ``message`` (a YAML syntax problem)."""

    def __init__(self, mark, message: str):
        super().__init__(message)
        self.mark = mark
        self.message = message


_NO_KEY = object()
# a list or mapping being composed: [node, its pending key (a mapping's), anchor, values before it]
_NODE, _KEY, _ANCHOR, _FIRST = range(4)


def _tag_problem(event) -> Problem:
    tag = event.tag
    shown = "!!" + tag[len("tag:yaml.org,2002:"):] if tag.startswith("tag:yaml.org,2002:") else tag
    return Problem(event.start_mark.line + 1, event.start_mark.column + 1,
                   f"the tag '{one_line(shown)}' is not allowed: write plain data (numbers, text, "
                   f"lists and mappings) without tags")


def _compose_events(loader, tag_problems: list):
    """The root node of the single document of ``loader``'s events (None for none), composed
    as PyYAML's composer does but without recursion: nesting deeper than :data:`MAX_DEPTH`,
    an undefined or repeated anchor, anchors and aliases that expand to more than
    :data:`MAX_VALUES` values (the "billion laughs") and a second document are
    :class:`_Refused`; tags that would make objects are added to ``tag_problems``."""
    loader.get_event()  # stream start
    if loader.check_event(yaml.StreamEndEvent):
        return None
    loader.get_event()  # document start
    anchors = {}        # name -> (node, how many values it expands to)
    open_anchors = set()
    stack: list[list] = []
    values = 0          # values so far, with every alias expanded
    root = None
    resolved = {}       # (value, implicit) -> tag: plain scalars repeat ("1", "flat", ids...)
    get_event, resolve = loader.get_event, loader.resolve
    Scalar, Sequence, Mapping = yaml.ScalarNode, yaml.SequenceNode, yaml.MappingNode
    ScalarEvent, AliasEvent = yaml.ScalarEvent, yaml.AliasEvent
    starts = {yaml.SequenceStartEvent: Sequence, yaml.MappingStartEvent: Mapping}
    ends = (yaml.SequenceEndEvent, yaml.MappingEndEvent)

    def attach(node):
        nonlocal root
        if not stack:
            root = node
            return
        top = stack[-1]
        if top[_NODE].__class__ is Sequence:
            top[_NODE].value.append(node)
        elif top[_KEY] is _NO_KEY:
            top[_KEY] = node
        else:
            top[_NODE].value.append((top[_KEY], node))
            top[_KEY] = _NO_KEY

    def check_anchor(event):
        if event.anchor is not None and (event.anchor in anchors or event.anchor in open_anchors):
            raise _Refused(event.start_mark, f"the anchor '&{one_line(event.anchor)}' is defined twice")

    while True:
        event = get_event()
        kind = event.__class__
        if kind is ScalarEvent:
            if event.anchor is not None:
                check_anchor(event)
            tag = event.tag
            if tag is None or tag == "!":
                key = (event.value, event.implicit) if len(event.value) < 100 else None
                tag = resolved.get(key) if key is not None else None
                if tag is None:
                    tag = resolve(Scalar, event.value, event.implicit)
                    if key is not None and len(resolved) < 10_000:
                        resolved[key] = tag
            elif tag not in PLAIN_TAGS:
                tag_problems.append(_tag_problem(event))
            node = Scalar(tag, event.value, event.start_mark, event.end_mark,
                          style=event.style or None)  # libyaml says '' for plain
            values += 1
            if event.anchor is not None:
                anchors[event.anchor] = (node, 1)
            attach(node)
        elif kind in starts:
            if len(stack) >= MAX_DEPTH:
                raise _Refused(event.start_mark, f"lists and mappings nest more than {MAX_DEPTH} deep")
            if event.anchor is not None:
                check_anchor(event)
                open_anchors.add(event.anchor)
            cls = starts[kind]
            tag = event.tag
            if tag is None or tag == "!":
                tag = resolve(cls, None, event.implicit)
            elif tag not in PLAIN_TAGS:
                tag_problems.append(_tag_problem(event))
            stack.append([cls(tag, [], event.start_mark, None, flow_style=event.flow_style),
                          _NO_KEY, event.anchor, values])
            values += 1
        elif kind in ends:
            top = stack.pop()
            node = top[_NODE]
            node.end_mark = event.end_mark
            if top[_ANCHOR] is not None:
                open_anchors.discard(top[_ANCHOR])
                anchors[top[_ANCHOR]] = (node, values - top[_FIRST])
            attach(node)
        elif kind is AliasEvent:
            if event.anchor not in anchors:
                inside = " (an alias cannot stand inside its own anchor)" if event.anchor in open_anchors else ""
                raise _Refused(event.start_mark, f"found undefined alias '*{one_line(event.anchor)}'{inside}")
            node, size = anchors[event.anchor]
            values += size
            if values > MAX_VALUES:
                raise _Refused(event.start_mark, f"anchors and aliases expand to more than {MAX_VALUES} "
                                                 f"values")
            attach(node)
        else:  # the document's end
            break
    if not loader.check_event(yaml.StreamEndEvent):
        event = loader.get_event()
        raise _Refused(event.start_mark, "but found another document (expected a single document "
                                         "in the stream)")
    return root


def _line_column(text: str, position: int) -> tuple[int, int]:
    """1-based line and column of a character position (line breaks as YAML counts them)."""
    before = text[:position]
    line_start = max(before.rfind("\n"), before.rfind("\r")) + 1
    return before.count("\n") + before.count("\r") - before.count("\r\n") + 1, position - line_start + 1


def _tab_problem(text: str, mark) -> Problem | None:
    """The tab a YAML syntax error at ``mark`` is about, if it is about one: a tab in the
    indentation of its line (YAML indents with spaces only), or the tab at ``mark`` itself. The
    parsers' own words ("found character that cannot start any token", "mapping values are not
    allowed in this context", ...) do not say so."""
    if mark is None:
        return None
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if not 0 <= mark.line < len(lines):
        return None
    line = lines[mark.line]
    indent = line[:len(line) - len(line.lstrip(" \t"))]
    if "\t" in indent:
        return Problem(mark.line + 1, indent.index("\t") + 1,
                       "tabs are not allowed for indentation, use spaces")
    if 0 <= mark.column < len(line) and line[mark.column] == "\t":
        return Problem(mark.line + 1, mark.column + 1, "a tab is not allowed here, use spaces")
    return None


def compose(text: str, source: str, max_bytes: int, error=YamlError, what: str = "file"):
    """The root node of ``text`` (None for an empty document). Raises ``error(source,
    problems)`` for text over ``max_bytes``, a YAML syntax error, a character YAML does not
    allow, a tag (``!!python/object...``: a file is data, never objects), nesting deeper than
    :data:`MAX_DEPTH` or anchors and aliases expanding to more than :data:`MAX_VALUES` values.
    Nothing here recurses, however the file nests."""
    if len(text) > max_bytes or len(text.encode("utf-8", "replace")) > max_bytes:
        raise error(source, [Problem(1, 1, f"{what} is larger than {max_bytes} bytes")])
    bad = _NON_PRINTABLE.search(text)
    if bad:
        line, column = _line_column(text, bad.start())
        raise error(source, [Problem(line, column, f"the {what} holds a character YAML does not allow "
                                                   f"(#x{ord(bad.group()):04x}); it must be plain text")])
    loader = None
    tag_problems: list[Problem] = []
    try:
        loader = _EventSource(text)
        root = _compose_events(loader, tag_problems)
    except _Refused as exc:
        raise error(source, [*tag_problems, Problem(exc.mark.line + 1, exc.mark.column + 1,
                                                    f"YAML syntax: {exc.message}")]) from None
    except yaml.reader.ReaderError:  # the check above finds these first
        raise error(source, [Problem(0, 0, f"the {what} holds a character YAML does not allow; "
                                           f"it must be plain text")]) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        tab = _tab_problem(text, mark)
        if tab is not None:
            raise error(source, [tab]) from None
        message = getattr(exc, "problem", None) or str(exc)
        if message.startswith("did not find expected "):  # libyaml's words for PyYAML's
            message = message[len("did not find "):]
        if getattr(exc, "context", None):
            message += f" ({exc.context})"
        raise error(source, [Problem(mark.line + 1 if mark else 0, mark.column + 1 if mark else 0,
                                     f"YAML syntax: {one_line(message, 200)}")]) from None
    except (UnicodeError, MemoryError, RecursionError) as exc:  # not expected: nothing recurses
        raise error(source, [Problem(0, 0, f"the {what} cannot be read as YAML "
                                           f"({type(exc).__name__})")]) from None
    finally:
        if loader is not None:
            loader.dispose()
    if tag_problems:
        raise error(source, tag_problems)
    return root


def read_top(text: str, source: str, max_bytes: int, error, what: str, keys) -> tuple:
    """``(reader, root, top)`` of a file whose top is a mapping of ``keys`` (a terrain file, a
    challenge): :func:`compose`, then the mapping's entries (``Reader.mapping``). Raises
    ``error(source, problems)`` for an empty file or one whose top is not a mapping. ``what``
    names the file: ``terrain`` says "the terrain file is empty"."""
    root = compose(text, source, max_bytes, error, f"{what} file")
    if root is None:
        raise error(source, [Problem(1, 1, f"the {what} file is empty")])
    r = Reader()
    top = r.mapping(root, f"the {what}", keys)
    if top is None:
        raise error(source, r.problems)
    return r, root, top


def read_data(path, max_bytes: int, error=YamlError, what: str = "file") -> tuple[bytes, str]:
    """The bytes of the file at ``path`` and their UTF-8 text; ``error(source, problems)`` for a
    file that is too large, not text or cannot be read (never a traceback). At most
    ``max_bytes + 1`` bytes are ever read."""
    source = str(path)
    try:
        with open(path, "rb") as f:
            data = f.read(max_bytes + 1)
    except OSError as exc:
        raise error(source, [Problem(0, 0, f"cannot read: {exc.strerror or exc}")]) from None
    if len(data) > max_bytes:
        raise error(source, [Problem(0, 0, f"{what} is larger than {max_bytes} bytes")])
    try:
        return data, data.decode("utf-8")
    except UnicodeDecodeError:
        raise error(source, [Problem(0, 0, "not a text file (UTF-8)")]) from None


def read_text(path, max_bytes: int, error=YamlError, what: str = "file") -> str:
    """The UTF-8 text of the file at ``path`` (line breaks as ``\\n``); ``error(source,
    problems)`` for a file that is too large, not text or cannot be read (never a traceback)."""
    text = read_data(path, max_bytes, error, what)[1]
    return text.replace("\r\n", "\n").replace("\r", "\n")


class Reader:
    """Walks composed YAML nodes, converting values and collecting problems."""

    def __init__(self):
        self.problems: list[Problem] = []

    def problem(self, node, message: str, about: tuple = ()) -> None:
        mark = node.start_mark if node is not None else None
        self.problems.append(Problem(mark.line + 1 if mark else 0, mark.column + 1 if mark else 0, message,
                                     tuple(about)))

    # scalars
    def number(self, node, what: str):
        if not isinstance(node, yaml.ScalarNode) or node.tag.endswith(":bool") or node.tag.endswith(":null"):
            self.problem(node, f"{what} must be a number, not {describe_node(node)}")
            return None
        text = node.value.lower().lstrip("+-")
        try:  # YAML 1.1 reads 1e3 as a string; accept it as a number
            value = math.inf if text == ".inf" else math.nan if text == ".nan" else float(node.value)
        except ValueError:
            self.problem(node, f"{what} must be a number, not {describe_node(node)}")
            return None
        if node.style is not None:  # quoted or a block scalar: text, whatever it says
            self.problem(node, f"{what} must be a number, not the string {describe_node(node)}")
            return None
        if not math.isfinite(value):
            self.problem(node, f"{what} must be finite, not {one_line(node.value)}")
            return None
        return value

    def integer(self, node, what: str):
        value = self.number(node, what)
        if value is not None and not value.is_integer():
            self.problem(node, f"{what} must be a whole number, not {one_line(node.value)}")
            return None
        return None if value is None else int(value)

    def string(self, node, what: str):
        if not isinstance(node, yaml.ScalarNode) or node.tag.endswith(":null"):
            self.problem(node, f"{what} must be text, not {describe_node(node)}")
            return None
        return str(node.value)

    def boolean(self, node, what: str):
        if not (isinstance(node, yaml.ScalarNode) and node.tag.endswith(":bool")):
            self.problem(node, f"{what} must be true or false, not {describe_node(node)}")
            return None
        return node.value.lower() in ("true", "yes", "on", "y")

    def mapping(self, node, what: str, allowed) -> dict | None:
        """A mapping's entries as {key: (key_node, value_node)}; reports unknown and repeated keys."""
        if not isinstance(node, yaml.MappingNode):
            self.problem(node, f"{what} must be a mapping of keys to values, not {describe_node(node)}")
            return None
        out = {}
        for knode, vnode in node.value:
            key = knode.value if isinstance(knode, yaml.ScalarNode) else None
            if key is None:
                self.problem(knode, f"{what} has a key that is not a name")
            elif key in out:
                self.problem(knode, f"{what} has '{key}' twice")
            elif key not in allowed:  # a suggestion only while the problems are still shown
                hint = did_you_mean(key, allowed) if len(self.problems) < MAX_PROBLEMS else ""
                self.problem(knode, f"unknown key '{one_line(key)}' in {what}{hint}")
            else:
                out[key] = (knode, vnode)
        return out

    def sequence(self, node, what: str) -> list:
        if not isinstance(node, yaml.SequenceNode):
            self.problem(node, f"{what} must be a list, not {describe_node(node)}")
            return []
        return node.value

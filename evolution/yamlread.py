"""Reading YAML files people write, with every problem at its line and column.

Designs (``creatures.design``) and terrain files (:mod:`evolution.terrains`) are read the same
way: the text is composed into YAML nodes with the safe loader (no tags that make objects, so
nothing in a file can run code), and a :class:`Reader` walks the nodes, converting values and
collecting :class:`Problem` s instead of stopping at the first. The caller raises a
:class:`YamlError` holding them all; a command prints them as ``file:line:column: message``.
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass

import yaml

__all__ = ["Problem", "YamlError", "Reader", "compose", "read_text", "read_data", "did_you_mean",
           "describe_node", "MAX_DEPTH"]

#: lists and mappings may nest at most this deep (a design or a terrain needs 4 or 5)
MAX_DEPTH = 100
#: the explicit tags a file may use: YAML's plain data types (``!!str 5``), never objects
PLAIN_TAGS = frozenset("tag:yaml.org,2002:" + t for t in ("str", "int", "float", "bool", "null", "seq", "map"))


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a file, at a 1-based line and column (0 when unknown)."""

    line: int
    column: int
    message: str

    def format(self, source: str) -> str:
        if self.line <= 0:  # about the file as a whole (unreadable, too large)
            return f"{source}: {self.message}"
        return f"{source}:{self.line}:{self.column}: {self.message}"


class YamlError(Exception):
    """A file that cannot be used, with all its problems (``str()``: one line per problem)."""

    def __init__(self, source: str, problems: list[Problem]):
        self.source = source
        self.problems = sorted(problems, key=lambda p: (p.line, p.column))
        super().__init__("\n".join(p.format(source) for p in self.problems))

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


class _Loader(yaml.SafeLoader):
    """The safe loader's composer, refusing (with their places) tags that would make objects
    and nesting deeper than :data:`MAX_DEPTH` (before Python's recursion limit is near)."""

    def __init__(self, text: str):
        super().__init__(text)
        self.depth = 0
        self.tag_problems: list[Problem] = []

    def compose_node(self, parent, index):
        event = self.peek_event()
        if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)) and self.depth >= MAX_DEPTH:
            raise yaml.composer.ComposerError(
                None, None, f"lists and mappings nest more than {MAX_DEPTH} deep", event.start_mark)
        tag = getattr(event, "tag", None)
        if tag is not None and tag != "!" and tag not in PLAIN_TAGS:
            shown = "!!" + tag[len("tag:yaml.org,2002:"):] if tag.startswith("tag:yaml.org,2002:") else tag
            self.tag_problems.append(Problem(
                event.start_mark.line + 1, event.start_mark.column + 1,
                f"the tag '{one_line(shown)}' is not allowed: write plain data (numbers, text, "
                f"lists and mappings) without tags"))
        self.depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


def _line_column(text: str, position: int) -> tuple[int, int]:
    """1-based line and column of a character position (line breaks as YAML counts them)."""
    before = text[:position]
    line_start = max(before.rfind("\n"), before.rfind("\r")) + 1
    return before.count("\n") + before.count("\r") - before.count("\r\n") + 1, position - line_start + 1


def compose(text: str, source: str, max_bytes: int, error=YamlError, what: str = "file"):
    """The root node of ``text`` (None for an empty document). Raises ``error(source,
    problems)`` for text over ``max_bytes``, a YAML syntax error, a character YAML does not
    allow, a tag (``!!python/object...``: a file is data, never objects) or nesting deeper than
    :data:`MAX_DEPTH`."""
    if len(text.encode("utf-8", "replace")) > max_bytes:
        raise error(source, [Problem(1, 1, f"{what} is larger than {max_bytes} bytes")])
    loader = None
    try:
        loader = _Loader(text)  # checks the characters
        root = loader.get_single_node()
    except yaml.reader.ReaderError as exc:
        line, column = _line_column(text, exc.position)
        code = exc.character if isinstance(exc.character, int) else ord(str(exc.character)[:1] or "\0")
        raise error(source, [Problem(line, column, f"the {what} holds a character YAML does not allow "
                                                   f"(#x{code:04x}); it must be plain text")]) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        message = getattr(exc, "problem", None) or str(exc)
        if getattr(exc, "context", None):
            message += f" ({exc.context})"
        raise error(source, [Problem(mark.line + 1 if mark else 0, mark.column + 1 if mark else 0,
                                     f"YAML syntax: {one_line(message, 200)}")]) from None
    except RecursionError:  # MAX_DEPTH stops nesting first; this is for a deep Python stack
        raise error(source, [Problem(1, 1, f"the {what} nests lists or mappings too deeply")]) from None
    finally:
        if loader is not None:
            loader.dispose()
    if loader.tag_problems:
        raise error(source, loader.tag_problems)
    return root


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

    def problem(self, node, message: str) -> None:
        mark = node.start_mark if node is not None else None
        self.problems.append(Problem(mark.line + 1 if mark else 0, mark.column + 1 if mark else 0, message))

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
            elif key not in allowed:
                self.problem(knode, f"unknown key '{key}' in {what}{did_you_mean(key, allowed)}")
            else:
                out[key] = (knode, vnode)
        return out

    def sequence(self, node, what: str) -> list:
        if not isinstance(node, yaml.SequenceNode):
            self.problem(node, f"{what} must be a list, not {describe_node(node)}")
            return []
        return node.value

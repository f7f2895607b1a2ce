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
from pathlib import Path

import yaml

__all__ = ["Problem", "YamlError", "Reader", "compose", "read_text", "did_you_mean", "describe_node"]


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
    return f"'{node.value}'"


def compose(text: str, source: str, max_bytes: int, error=YamlError, what: str = "file"):
    """The root node of ``text`` (None for an empty document). Raises ``error(source,
    problems)`` for text over ``max_bytes`` or a YAML syntax error."""
    if len(text.encode("utf-8", "replace")) > max_bytes:
        raise error(source, [Problem(1, 1, f"{what} is larger than {max_bytes} bytes")])
    try:
        return yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        message = getattr(exc, "problem", None) or str(exc)
        if getattr(exc, "context", None):
            message += f" ({exc.context})"
        raise error(source, [Problem(mark.line + 1 if mark else 0, mark.column + 1 if mark else 0,
                                     f"YAML syntax: {message}")]) from None


def read_text(path, max_bytes: int, error=YamlError, what: str = "file") -> str:
    """The UTF-8 text of the file at ``path``; ``error(source, problems)`` for a file that is
    too large, not text or cannot be read (never a traceback)."""
    source = str(path)
    try:
        size = Path(path).stat().st_size
        if size > max_bytes:
            raise error(source, [Problem(0, 0, f"{what} is larger than {max_bytes} bytes")])
        return Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise error(source, [Problem(0, 0, "not a text file (UTF-8)")]) from None
    except OSError as exc:
        raise error(source, [Problem(0, 0, f"cannot read: {exc.strerror or exc}")]) from None


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
        try:
            value = float(node.value)  # YAML 1.1 reads 1e3 as a string; accept it as a number
        except ValueError:
            self.problem(node, f"{what} must be a number, not {describe_node(node)}")
            return None
        if node.style in ("'", '"'):
            self.problem(node, f"{what} must be a number, not the string {node.value!r}")
            return None
        if not math.isfinite(value):
            self.problem(node, f"{what} must be finite, not {node.value}")
            return None
        return value

    def integer(self, node, what: str):
        value = self.number(node, what)
        if value is not None and not value.is_integer():
            self.problem(node, f"{what} must be a whole number, not {node.value}")
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

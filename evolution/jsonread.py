"""Reading JSON files (run directories, champions), as data and never as anything else.

Every problem is one line naming the file, where in it when that is known (``line:column`` of
a syntax error, or the key of a value: ``'population'``) and what is wrong: a
:class:`JsonFileError`. Nothing here can be made to recurse without bound, to read more than
its size limit, or to take longer than parsing that many bytes takes:

- at most ``max_bytes`` are ever read (a larger file is refused unread);
- bytes that are not UTF-8 text are refused (a UTF-8 byte order mark is allowed);
- nesting deeper than :data:`MAX_DEPTH` is refused before parsing (Python's JSON parser
  recurses, and would otherwise raise RecursionError, or worse, in a deep stack);
- ``NaN`` and ``Infinity`` are refused, and with ``finite`` (the default) so are numbers that
  overflow a float (``1e400``); integers of more than :data:`MAX_DIGITS` digits are refused
  (Python refuses to convert those of more than 4300 anyway).
"""

from __future__ import annotations

import json
import math
import re

import numpy as np

__all__ = ["JsonFileError", "read_bytes", "read_text", "read_json", "loads", "MAX_DEPTH",
           "MAX_DIGITS", "key_path", "is_int", "is_number"]

#: lists and objects may nest at most this deep (our files nest 6 deep at most)
MAX_DEPTH = 64
#: a whole number may have at most this many digits (the largest our files write has 20)
MAX_DIGITS = 100


class JsonFileError(ValueError):
    """A file that cannot be used: ``str()`` is one line, ``source:where: message``."""

    def __init__(self, source, message: str, where: str = ""):
        self.source, self.message, self.where = str(source), message, where
        super().__init__(f"{self.source}:{where}: {message}" if where else f"{self.source}: {message}")

    @property
    def detail(self) -> str:
        """The line without the file's name (for a caller that names the file itself)."""
        return f"{self.where}: {self.message}" if self.where else self.message

    def __reduce__(self):
        return (type(self), (self.source, self.message, self.where))


def key_path(*keys) -> str:
    """``'brain.genome'`` for keys ``("brain", "genome")``; list indices as ``[3]``."""
    text = ""
    for k in keys:
        text += f"[{k}]" if isinstance(k, int) else (f".{k}" if text else str(k))
    return f"'{text}'"


def read_bytes(path, max_bytes: int, what: str = "file") -> bytes:
    """At most ``max_bytes`` of the file at ``path``; :class:`JsonFileError` for a file that is
    larger, missing, a directory or unreadable."""
    try:
        with open(path, "rb") as f:
            data = f.read(max_bytes + 1)
    except OSError as exc:
        raise JsonFileError(path, f"cannot read it: {exc.strerror or exc}") from None
    if len(data) > max_bytes:
        raise JsonFileError(path, f"it is larger than {max_bytes} bytes, the most a {what} may be")
    return data


def read_text(path, max_bytes: int, what: str = "file") -> str:
    """The UTF-8 text of the file at ``path`` (a byte order mark dropped); see :func:`read_bytes`."""
    data = read_bytes(path, max_bytes, what)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise JsonFileError(path, f"not a text file (byte {exc.start} is not UTF-8)") from None


_STRINGS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def _depth(text: str) -> int:
    """How deep lists and objects nest in JSON text (strings skipped), at C speed."""
    brackets = _STRINGS.sub("", text).encode("utf-8", "replace").translate(None, _NOT_BRACKETS)
    if not brackets:
        return 0
    codes = np.frombuffer(brackets, np.uint8)
    steps = np.where((codes == ord("[")) | (codes == ord("{")), 1, -1)
    return int(np.cumsum(steps).max())


def _constant(name):
    raise ValueError(f"{name} is not a number JSON allows")


def _integers(max_digits: int):
    def integer(text: str) -> int:
        if len(text.lstrip("-")) > max_digits:
            raise ValueError(f"a whole number of {len(text.lstrip('-'))} digits is too large "
                             f"(at most {max_digits} digits)")
        return int(text)
    return integer


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:30]} is too large for a float")
    return value


def loads(text: str, source, finite: bool = True, max_digits: int = MAX_DIGITS):
    """The JSON value of ``text``; :class:`JsonFileError` (naming ``source``) for anything that
    is not plain, finite JSON of at most :data:`MAX_DEPTH` levels (``finite=False`` lets
    ``1e400`` through as infinity, for a caller that says where it is)."""
    if _depth(text) > MAX_DEPTH:
        raise JsonFileError(source, f"not valid JSON: lists and objects nest more than {MAX_DEPTH} deep")
    try:
        return json.loads(text, parse_constant=_constant, parse_int=_integers(max_digits),
                          parse_float=_finite_float if finite else float)
    except json.JSONDecodeError as exc:
        raise JsonFileError(source, f"not valid JSON: {exc.msg}", f"{exc.lineno}:{exc.colno}") from None
    except RecursionError:  # the depth check comes first; a very deep stack might still get here
        raise JsonFileError(source, "not valid JSON: lists and objects nest too deeply") from None
    except ValueError as exc:  # from the hooks: a constant, a number too large
        raise JsonFileError(source, f"not valid JSON: {str(exc).splitlines()[0]}") from None


def read_json(path, max_bytes: int, what: str = "file", finite: bool = True):
    """The JSON value of the file at ``path``: at most ``max_bytes`` read, see :func:`loads`."""
    return loads(read_text(path, max_bytes, what), path, finite)


def is_int(value) -> bool:
    """A whole number (not a boolean, which Python counts as one)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value) -> bool:
    """A finite int or float (not a boolean), of a size a float holds."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return abs(value) < 1e300 if isinstance(value, int) else math.isfinite(value)


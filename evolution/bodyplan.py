"""A grown body's genes as plain data (:class:`Plan`): what a genome of a growing run carries
(:mod:`evolution.growth` grows, checks and scores them; :mod:`evolution.genomes` reads and
writes them with a genome)."""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["Plan"]


@dataclass(frozen=True)
class Plan:
    """A grown body's genes: ``spheres`` ``(innovation, slot, x, y, radius, mass)`` and ``bones``
    ``(innovation, a, b, muscle)`` (``a < b`` the spheres' innovations, ``muscle`` the muscle's
    slot or -1), in the order they were made."""

    spheres: tuple
    bones: tuple

    def to_dict(self) -> dict:
        return {"spheres": [list(s) for s in self.spheres], "bones": [list(b) for b in self.bones]}

    @classmethod
    def from_dict(cls, data) -> "Plan":
        """The plan of :meth:`to_dict`'s dict; ValueError (one line) for anything else (the body
        it makes is checked by :meth:`Growth.check`)."""
        try:
            spheres = tuple((_int(s[0]), _int(s[1]), *(_num(v) for v in s[2:6])) for s in data["spheres"]
                            if len(s) == 6 or _bad("a sphere gene has 6 numbers"))
            bones = tuple(tuple(_int(v) for v in b) for b in data["bones"]
                          if len(b) == 4 or _bad("a bone gene has 4 whole numbers"))
        except (KeyError, TypeError, IndexError) as exc:
            raise ValueError(f"the body plan must have lists 'spheres' and 'bones' ({exc})") from None
        return cls(spheres, bones)

    @property
    def n_muscles(self) -> int:
        return sum(1 for b in self.bones if b[3] >= 0)

    def size(self) -> tuple[int, int, int]:
        """(spheres, bones, muscles)."""
        return len(self.spheres), len(self.bones), self.n_muscles


def _bad(message: str):
    raise ValueError(message)


def _int(v) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise ValueError("a body plan's innovations, slots and ends are whole numbers")
    return v


def _num(v) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise ValueError("a body plan's values are finite numbers")
    return float(v)

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
    slot or -1), in the order they were made. For a design with ranges or optional hinges, the
    body's other genes too (:mod:`evolution.growgenes`): ``values`` and ``parts``, what its
    genome carries as ``body_values`` and ``body_parts`` (empty: the genes' starts). A genome's
    own plan leaves them empty; :meth:`with_genes` puts them in for the body to be built."""

    spheres: tuple
    bones: tuple
    values: tuple = ()
    parts: tuple = ()

    def with_genes(self, values=(), parts=()) -> "Plan":
        """This plan with a genome's carried body genes (see the class)."""
        if not values and not parts:
            return self
        return Plan(self.spheres, self.bones, tuple(float(v) for v in values), tuple(bool(p) for p in parts))

    def to_dict(self) -> dict:
        out = {"spheres": [list(s) for s in self.spheres], "bones": [list(b) for b in self.bones]}
        if self.values or self.parts:
            out.update(values=list(self.values), parts=list(self.parts))
        return out

    @classmethod
    def from_dict(cls, data) -> "Plan":
        """The plan of :meth:`to_dict`'s dict; ValueError (one line) for anything else (the body
        it makes is checked by :meth:`Growth.check`)."""
        try:
            spheres = tuple((_int(s[0]), _int(s[1]), *(_num(v) for v in s[2:6])) for s in data["spheres"]
                            if len(s) == 6 or _bad("a sphere gene has 6 numbers"))
            bones = tuple(tuple(_int(v) for v in b) for b in data["bones"]
                          if len(b) == 4 or _bad("a bone gene has 4 whole numbers"))
            values = tuple(_num(v) for v in data.get("values", ()))
            parts = tuple(p if isinstance(p, bool) else _bad("a body plan's parts are true or false")
                          for p in data.get("parts", ()))
        except (KeyError, TypeError, IndexError) as exc:
            raise ValueError(f"the body plan must have lists 'spheres' and 'bones' ({exc})") from None
        return cls(spheres, bones, values, parts)

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

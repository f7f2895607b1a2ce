"""A design's ranges and optional parts in a growing run (``creatures evolve DESIGN --grow``).

A design may write numbers as ranges and mark parts optional (:mod:`evolution.bodygenes`); it
grows as any other design does, and its ranges keep working:

- a seed sphere's position, size and mass are values of its plan gene (:mod:`evolution.growth`),
  so their ranges *bound* those values: growth moves and resizes such a sphere within them, never
  beyond, and a body with it outside them is not valid (:attr:`SeedGenes.bounds`);
- every other evolvable value (a sphere's friction, a bone's compliance and width, a muscle's
  strength, range and speed, a hinge's limits and stiffness) is a body gene the genome carries
  as a fixed design's genome does (its ``body_values``), set on that part of the seed wherever a
  grown body still has it (:attr:`SeedGenes.carried`);
- an optional sphere or bone is a part growth may take away and make again, as it may any
  other: its switch is growth's own now; an optional hinge keeps its switch (``body_parts``).

So a genome of such a run carries its plan, the carried values and the hinges' switches, and
the body it scores is :meth:`evolution.growth.Growth.body` of its plan with them
(:meth:`evolution.bodyplan.Plan.with_genes`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .bodygenes import NO_GENES, BodyGenes

__all__ = ["SeedGenes", "PLAN_FIELDS", "seed_genes"]

#: the sphere values a plan gene holds (``x``, ``y``, radius, mass): their ranges bound it
PLAN_FIELDS = ("x", "y", "radius", "mass")


@dataclass(frozen=True)
class SeedGenes:
    """A seed design's genes as a growing run takes them: ``bounds`` ``{(sphere, field): (low,
    high)}`` on its spheres' plan values (``field`` of :data:`PLAN_FIELDS`), and the ``carried``
    genes (:class:`BodyGenes`: the other values, and the hinges' switches)."""

    bounds: dict
    carried: BodyGenes

    def values(self, values, parts) -> tuple[dict, set]:
        """``({(part, index, field): value}, {joint switched off, ...})`` of a genome's carried
        ``values`` and ``parts`` (empty: the genes' starts), each value within its range."""
        genes = self.carried
        if not values:
            values = genes.start_values()
        if not parts:
            parts = genes.start_parts()
        got = {(g.part, g.index, g.field): float(np.clip(v, g.low, g.high)) for g, v in zip(genes.genes, values)}
        off = {s.index for s, on in zip(genes.switches, parts) if not on}
        return got, off

    def strongest(self, bone: int) -> float | None:
        """The most a carried strength gene lets seed bone ``bone``'s muscle pull (None: no gene)."""
        return next((g.high for g in self.carried.genes if g.part == "muscle" and g.index == bone
                     and g.field == "strength"), None)


def seed_genes(genes: BodyGenes = NO_GENES) -> SeedGenes:
    """A design's genes split for a growing run (see the module)."""
    bounds = {(g.index, g.field): (g.low, g.high) for g in genes.genes
              if g.part == "sphere" and g.field in PLAN_FIELDS}
    carried = BodyGenes(tuple(g for g in genes.genes if not (g.part == "sphere" and g.field in PLAN_FIELDS)),
                        tuple(s for s in genes.switches if s.part == "joint"))
    return SeedGenes(bounds, carried)

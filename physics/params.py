"""Simulation settings: one dataclass with good defaults that callers tweak (Box2D's b2DefaultWorldDef)."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields

__all__ = ["SimParams"]


@dataclass(frozen=True)
class SimParams:
    """How the world steps.

    Attributes
    ----------
    dt : float
        Time step (s) of one call to :func:`physics.step`; the brain acts once per step.
    substeps : int
        Verlet substeps per step, each of ``dt / substeps``.
    iterations : int
        Constraint-relaxation sweeps per substep (bones, joints, clusters, collisions, ground).
    gravity : float
        Downward acceleration (m/s^2); 0 turns gravity off.
    ground : bool
        Whether the terrain exists at all.
    damping : float
        Linear air drag (1/s): velocities lose ``damping * h`` of themselves each substep. 0 keeps
        the integrator free of artificial damping.
    bounce_speed : float
        Below this approach speed (m/s) contacts do not bounce, so resting bodies do not jitter.
    contact_slop : float
        A sphere within this distance (m) of the ground counts as touching it (sensors, friction).
    self_collision : bool
        Sphere-sphere collisions inside each creature, for bodies built with ``self_collision``.
    arena_collision : bool
        Sphere-sphere collisions between the creatures of a batch (they share one arena). Off by
        default: creatures evaluated together then do not influence each other.
    """

    dt: float = 1.0 / 60.0
    substeps: int = 1
    iterations: int = 8
    gravity: float = 9.81
    ground: bool = True
    damping: float = 0.0
    bounce_speed: float = 0.5
    contact_slop: float = 1e-3
    self_collision: bool = True
    arena_collision: bool = False

    def __post_init__(self):
        for f in fields(self):
            value = getattr(self, f.name)
            if f.type in ("bool", bool):
                ok = isinstance(value, bool)
            elif f.type in ("int", int):
                ok = isinstance(value, int) and not isinstance(value, bool)
            else:
                ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
            if not ok:
                raise ValueError(f"simulation setting {f.name} must be {f.type}, not {value!r}")
        if not (self.dt > 0 and self.substeps >= 1 and self.iterations >= 1):
            raise ValueError("dt must be positive, substeps and iterations at least 1")
        if self.damping < 0 or self.bounce_speed < 0 or self.contact_slop < 0:
            raise ValueError("damping, bounce_speed and contact_slop must be >= 0")

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "SimParams":
        names = {f.name for f in fields(cls)}
        unknown = set(data) - names
        if unknown:
            raise ValueError(f"unknown simulation settings: {', '.join(sorted(unknown))}")
        return cls(**data)

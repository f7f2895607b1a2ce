"""Simulation settings: one dataclass with good defaults that callers tweak (Box2D's b2DefaultWorldDef)."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields

__all__ = ["SimParams", "SOLVERS", "CONTACT_MODELS", "ENGINE_VERSION"]

#: The version of what the engine computes. It goes up when the same settings and commands give
#: different motion on purpose (a new solver, a new force law), so that a file holding settings
#: (a champion, a run) says which physics scored it: 1, the relaxation sweeps (until 2026-11;
#: files without the setting); 2, the skeleton's exact solve (physics/skeleton.py); 3, the plate
#: law of fluids (physics/medium.py: a plate's normal force from the whole speed, and the flat
#: plate's coefficients), which changed nothing without a fluid; 4, muscles as springs and
#: dashpots (physics/bones.py), which changed everything with a muscle; 5, a muscle past its
#: strength held at it on the side of its own demand (physics/skeleton.py: two nearly parallel
#: muscles no longer lock at +f and -f), which changed every motion where a muscle is at its
#: strength. The engine steps only
#: with its own version; :attr:`SimParams.engine` records the one a file was made with, and
#: :attr:`SimParams.earlier_engine` says whether today's engine moves such settings differently.
ENGINE_VERSION = 5

#: ``SimParams.solver``: position-based dynamics (the default, physics/step.py) or Witkin's
#: constrained dynamics (physics/witkin.py)
SOLVERS = ("pbd", "witkin")
#: ``SimParams.contacts``: position projection with velocity rejection (the default), or
#: Discrete Element Method springs and dashpots (physics/dem.py)
CONTACT_MODELS = ("pbd", "dem")


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
    push_out_speed : float
        The most outward speed (m/s) the ground's push-out may give a sphere (Box2D's
        ``contactPushMaxVelocity``): a sphere that starts a substep inside the ground comes out
        at this speed at most instead of being launched (physics/contacts.py).
    contact_slop : float
        A sphere within this distance (m) of the ground counts as touching it (sensors, friction).
    self_collision : bool
        Sphere-sphere collisions inside each creature, for bodies built with ``self_collision``.
    arena_collision : bool
        Sphere-sphere collisions between the creatures of a batch (they share one arena). Off by
        default: creatures evaluated together then do not influence each other.
    solver : str
        ``"pbd"`` (position-based dynamics, the default) or ``"witkin"`` (bones and muscles as
        exact constraints solved for their Lagrange multipliers, physics/witkin.py).
    contacts : str
        ``"pbd"`` (push-out and velocity rejection, the default) or ``"dem"`` (spring-dashpot
        contact forces for spheres against the ground and each other, physics/dem.py).
    witkin_alpha, witkin_beta : float
        Witkin's feedback against drift, per substep h: the constraint accelerations get
        ``-(alpha / h^2) c - (beta / h) dc/dt``. Stable for ``0 <= beta < 2`` and
        ``0 <= alpha < 4 - 2 beta``; 0 and 0 turn it off (the constraints then drift).
    dem_stiffness : float
        DEM contact spring k (N/m): the force is k times the overlap. Sets the stable substep
        (physics/dem.py), which :func:`physics.step` enforces by substepping.
    dem_damping : float
        DEM normal dashpot as a fraction of critical damping, in [0, 1): restitution
        ``exp(-zeta pi / sqrt(1 - zeta^2))``.
    dem_shear : float
        DEM tangential (shear) dashpot as a fraction of critical damping, capped by Coulomb
        friction.
    fluid_density : float
        Density (kg/m^3) of the fluid that fills the world (physics/medium.py): 0, the default,
        is no fluid at all (the stage is not run); water is about 1000, air 1.2. Spheres feel
        buoyancy and drag, bones the drag of flat plates.
    flow_x, flow_y : float
        The fluid's velocity (m/s): a current or a wind. Drag acts on velocities relative to it.
    fluid_drag_sphere, fluid_viscous_sphere : float
        A sphere's quadratic drag coefficient (dimensionless; 0.47 for a sphere at moderate
        Reynolds numbers) and linear (viscous) one (kg/(m^2 s)), on its cross-section.
    fluid_drag_normal, fluid_drag_tangent, fluid_viscous_normal, fluid_viscous_tangent : float
        A bone plate's quadratic coefficients, on its area: across it, the normal force
        coefficient of a flat plate broadside (2.0; at an angle of attack a it is that times
        sin a, physics/medium.py), and along it its skin friction (0.01, both faces); and its
        linear ones (kg/(m^2 s)), across and along.
    engine : int
        The engine version these settings were used with (:data:`ENGINE_VERSION`, the default).
        An earlier one (read from an older file) is kept as a record: :func:`physics.step`
        steps with today's engine whatever it says, and the files' readers tell the user.
    """

    dt: float = 1.0 / 60.0
    substeps: int = 3
    iterations: int = 1
    gravity: float = 9.81
    ground: bool = True
    damping: float = 0.0
    bounce_speed: float = 0.5
    push_out_speed: float = 1.0
    contact_slop: float = 1e-3
    self_collision: bool = True
    arena_collision: bool = False
    solver: str = "pbd"
    contacts: str = "pbd"
    witkin_alpha: float = 1.0
    witkin_beta: float = 1.0
    dem_stiffness: float = 5.0e4
    dem_damping: float = 0.3
    dem_shear: float = 0.5
    fluid_density: float = 0.0
    flow_x: float = 0.0
    flow_y: float = 0.0
    fluid_drag_sphere: float = 0.47
    fluid_viscous_sphere: float = 0.0
    fluid_drag_normal: float = 2.0
    fluid_drag_tangent: float = 0.01
    fluid_viscous_normal: float = 0.0
    fluid_viscous_tangent: float = 0.0
    engine: int = ENGINE_VERSION

    def __post_init__(self):
        for f in fields(self):
            value = getattr(self, f.name)
            if f.type in ("bool", bool):
                ok = isinstance(value, bool)
            elif f.type in ("str", str):
                ok = isinstance(value, str)
            elif f.type in ("int", int):
                ok = isinstance(value, int) and not isinstance(value, bool)
            else:
                ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
            if not ok:
                raise ValueError(f"simulation setting {f.name} must be {f.type}, not {value!r}")
        if not (self.dt > 0 and self.substeps >= 1 and self.iterations >= 1):
            raise ValueError("dt must be positive, substeps and iterations at least 1")
        if self.damping < 0 or self.bounce_speed < 0 or self.contact_slop < 0 or self.push_out_speed < 0:
            raise ValueError("damping, bounce_speed, push_out_speed and contact_slop must be >= 0")
        if self.solver not in SOLVERS:
            raise ValueError(f"unknown solver {self.solver!r} (choose from {', '.join(SOLVERS)})")
        if self.contacts not in CONTACT_MODELS:
            raise ValueError(f"unknown contact model {self.contacts!r} (choose from {', '.join(CONTACT_MODELS)})")
        if not (0.0 <= self.witkin_beta < 2.0 and 0.0 <= self.witkin_alpha < 4.0 - 2.0 * self.witkin_beta):
            raise ValueError("Witkin feedback is stable only for 0 <= witkin_beta < 2 and "
                             "0 <= witkin_alpha < 4 - 2 * witkin_beta")
        if not (self.dem_stiffness > 0 and 0.0 <= self.dem_damping < 1.0 and self.dem_shear >= 0):
            raise ValueError("dem_stiffness must be positive, dem_damping within [0, 1), dem_shear >= 0")
        if min(self.fluid_density, self.fluid_drag_sphere, self.fluid_viscous_sphere, self.fluid_drag_normal,
               self.fluid_drag_tangent, self.fluid_viscous_normal, self.fluid_viscous_tangent) < 0:
            raise ValueError("fluid_density and the fluid's drag coefficients must be >= 0")
        if not 1 <= self.engine <= ENGINE_VERSION:
            raise ValueError(f"engine version {self.engine} is not one this software knows (1 to {ENGINE_VERSION})")
        if self.fluid_density > 0 and (self.solver != "pbd" or self.contacts != "pbd"):
            raise ValueError("a fluid (fluid_density > 0) is stepped by the default solver and contacts only")

    def to_dict(self) -> dict:
        """Every setting, but the fluid's that are at their defaults (files of runs without a
        fluid read as they always have; :meth:`from_dict` fills them in)."""
        data = asdict(self)
        defaults = _fluid_defaults(self.engine)
        for name in FLUID_SETTINGS:
            if data[name] == defaults[name]:
                del data[name]
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "SimParams":
        """The settings :meth:`to_dict` wrote; a dict without ``engine`` was written before
        versions were recorded, by engine 1. Fluid settings it leaves out are the defaults of
        the engine that wrote it (a plate's coefficients were 1.28 and 0.04 before engine 3)."""
        names = {f.name for f in fields(cls)}
        unknown = set(data) - names
        if unknown:
            raise ValueError(f"unknown simulation settings: {', '.join(sorted(unknown))}")
        engine = data.get("engine", 1)
        return cls(**{**_fluid_defaults(engine if isinstance(engine, int) else ENGINE_VERSION), "engine": 1, **data})

    @property
    def earlier_engine(self) -> bool:
        """Whether these settings come from an engine that moved them differently from this one
        (see ENGINE_VERSION): since versions 4 and 5 changed muscles, any earlier one."""
        return self.engine < ENGINE_VERSION


#: the fluid's settings (physics/medium.py)
FLUID_SETTINGS = ("fluid_density", "flow_x", "flow_y", "fluid_drag_sphere", "fluid_viscous_sphere",
                  "fluid_drag_normal", "fluid_drag_tangent", "fluid_viscous_normal", "fluid_viscous_tangent")
_FLUID_DEFAULTS = {f.name: f.default for f in fields(SimParams) if f.name in FLUID_SETTINGS}
#: the fluid settings' defaults that changed, by the engine version that changed them
_FLUID_DEFAULTS_BEFORE = {3: {"fluid_drag_normal": 1.28, "fluid_drag_tangent": 0.04}}


def _fluid_defaults(engine: int) -> dict:
    """The defaults of the fluid's settings in engine version ``engine``."""
    out = dict(_FLUID_DEFAULTS)
    for version, before in sorted(_FLUID_DEFAULTS_BEFORE.items(), reverse=True):
        if engine < version:
            out.update(before)
    return out

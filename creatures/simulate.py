"""Run a creature headless and report what happened: distance, height, strain, clearance.

This is how a designer checks that a creature holds together before evolving it: drive its
muscles with a pattern for some seconds and read the summary. ``--json`` gives the same as one
JSON object.
"""

from __future__ import annotations

import json
import math
import sys

import numpy as np

import physics
from evolution import PluginError, resolve

from .bestiary import design_error, resolve_design
from .design import DesignError
from .plugin_args import plugin_error

EXAMPLES = """examples:
  creatures simulate                          the walker, 10 s, sine-driven muscles
  creatures simulate walker --muscles random --seconds 30 --seed 3
  creatures simulate my_creature.yaml --terrain hills --json
  creatures simulate walker --gravity 0 --no-ground --muscles random
  creatures simulate walker --solver witkin    bones as exact constraints (Witkin's method)
  creatures simulate worm --contacts dem       spring-dashpot contacts (Discrete Element Method)
  creatures simulate eel --medium water --no-ground     in deep water
  creatures simulate bird --medium air,flow_x=3          in a wind of 3 m/s
"""

MUSCLE_PATTERNS = ("none", "sine", "random")
#: the sine pattern: every muscle at this frequency, phases spread evenly over the muscles
SINE_HZ = 1.0
#: the random pattern: a new random command for every muscle this often
RANDOM_HOLD_S = 0.25


def muscle_commands(pattern: str, steps: int, n_muscles: int, dt: float, seed: int = 0) -> np.ndarray:
    """Commands of shape (steps, M) for a named pattern."""
    t = np.arange(steps)[:, None] * dt
    if pattern == "none" or n_muscles == 0:
        return np.zeros((steps, n_muscles))
    if pattern == "sine":
        phase = 2.0 * np.pi * np.arange(n_muscles)[None, :] / n_muscles
        return np.sin(2.0 * np.pi * SINE_HZ * t + phase)
    if pattern == "random":
        hold = max(1, round(RANDOM_HOLD_S / dt))
        rng = np.random.default_rng(seed)
        levels = rng.uniform(-1.0, 1.0, ((steps + hold - 1) // hold, n_muscles))
        return np.repeat(levels, hold, axis=0)[:steps]
    raise ValueError(f"unknown muscle pattern {pattern!r} (choose from {', '.join(MUSCLE_PATTERNS)})")


def clearance(model: physics.Model, state: physics.State, terrain: physics.Terrain) -> float:
    """Lowest gap between a sphere's bottom and the terrain height under its centre (m)."""
    bottom = state.pos[..., 1] - model.radius
    return float(np.min(bottom - terrain.height(state.pos[..., 0])))


def run_simulation(body: physics.Body, seconds: float = 10.0, muscles: str = "sine",
                   params: physics.SimParams | None = None, terrain: physics.Terrain | None = None,
                   seed: int = 0) -> dict:
    """Simulate one creature and summarise the run as a dict of plain numbers."""
    params = params or physics.SimParams()
    terrain = terrain or physics.Terrain.flat()
    model = physics.build_model(body, batch=1)
    # stand the creature on the terrain under its start: lowest sphere just touching
    lift = 0.0
    if params.ground:
        gap = np.min(model.rest_pos[0, :, 1] - model.radius[0] - terrain.height(model.rest_pos[0, :, 0]))
        lift = max(0.0, -gap) + 1e-4
    state = physics.initial_state(model, params, offset=(0.0, lift))
    steps = max(1, round(seconds / params.dt))
    cmd = muscle_commands(muscles, steps, model.n_muscles, params.dt, seed)
    rigid = physics.rigid_bones(model)[0]

    com0 = physics.centre_of_mass(model, state)[0]
    vel0 = physics.com_velocity(model, state)[0]
    max_height = com0[1]
    max_strain = 0.0
    worst = np.zeros(3)   # physics.integrity's measures, the rule evolution judges by
    max_muscle_error = 0.0
    lowest = clearance(model, state, terrain) if params.ground else math.inf
    finite = True
    contact_steps = 0
    t_end = 0.0
    for k in range(steps):
        state = physics.step(model, state, cmd[k][None, :], params, terrain)
        if not (np.all(np.isfinite(state.pos)) and np.all(np.isfinite(state.vel))):
            finite = False
            t_end = state.time
            break
        strain = np.abs(physics.bone_strain(model, state)[0])
        worst = np.fmax(worst, physics.integrity(model, state, terrain, params.ground)[0])
        if rigid.any():
            max_strain = max(max_strain, float(strain[rigid].max()))
        if (~rigid).any():
            max_muscle_error = max(max_muscle_error, float(strain[~rigid].max()))
        max_height = max(max_height, float(physics.centre_of_mass(model, state)[0, 1]))
        if params.ground:
            lowest = min(lowest, clearance(model, state, terrain))
            contact_steps += bool(state.contact[0].any())
        t_end = state.time
    com1 = physics.centre_of_mass(model, state)[0]
    vel1 = physics.com_velocity(model, state)[0]
    return {
        "design": body.name,
        "seconds": round(t_end, 6),
        "steps": steps,
        "muscles": muscles,
        "solver": params.solver,
        "contacts": params.contacts,
        "terrain": terrain.kind if params.ground else "none",
        "gravity": params.gravity,
        "medium": physics.medium_name(params),
        "spheres": model.n_spheres,
        "bones": model.n_bones,
        "muscle_count": model.n_muscles,
        "joints": model.n_joints,
        "distance": float(com1[0] - com0[0]),
        "max_height": float(max_height),
        "max_bone_strain": max_strain,
        "max_muscle_error": max_muscle_error,
        "max_hinge_overshoot": float(worst[1]),
        "max_penetration": float(worst[2]),
        "broken": physics.verdict(worst) if finite else "the simulation became non-finite",
        "lowest_clearance": None if math.isinf(lowest) else float(lowest),
        "ground_contact_fraction": contact_steps / steps if params.ground else 0.0,
        "finite": finite,
        "com_start": [float(v) for v in com0],
        "com_end": [float(v) for v in com1],
        "com_velocity_start": [float(v) for v in vel0],
        "com_velocity_end": [float(v) for v in vel1],
    }


def _engine(s: dict) -> str:
    """The solver and contact model, when they are not the defaults."""
    parts = [f"{key} {s[key]}" for key in ("solver", "contacts")
             if s.get(key, "pbd") != getattr(physics.SimParams, key)]
    return f", {', '.join(parts)}" if parts else ""


def format_summary(s: dict) -> str:
    """The summary as a few lines a person can read."""
    verdict = ("held together" if not s["broken"] else
               f"DID NOT hold together: {s['broken']}; evolution scores this as a failure")
    lines = [
        f"{s['design']}: {s['spheres']} spheres, {s['bones']} bones ({s['muscle_count']} muscles), "
        f"{s['joints']} joints",
        f"simulated {s['seconds']:.2f} s on {s['terrain']} ground, gravity {s['gravity']:g} m/s^2, "
        + (f"in {s['medium']}, " if s.get("medium", "none") != "none" else "")
        + f"muscles: {s['muscles']}" + _engine(s),
        f"  distance travelled   {s['distance']:+.3f} m  ({s['distance'] / max(s['seconds'], 1e-9):+.3f} m/s)",
        f"  max height (COM)     {s['max_height']:.3f} m",
        f"  max bone strain      {100 * s['max_bone_strain']:.2f} %  (muscles off target by at most "
        f"{100 * s['max_muscle_error']:.1f} %)",
        f"  max hinge overshoot  {s['max_hinge_overshoot']:.3f} rad",
    ]
    if s["lowest_clearance"] is not None:
        lines.append(f"  lowest clearance     {1000 * s['lowest_clearance']:+.2f} mm above the terrain"
                     f"  (touching {100 * s['ground_contact_fraction']:.0f} % of the time; deepest "
                     f"{100 * s['max_penetration']:.0f} % of a radius)")
    lines.append(f"  centre of mass       ({s['com_start'][0]:+.3f}, {s['com_start'][1]:.3f}) -> "
                 f"({s['com_end'][0]:+.3f}, {s['com_end'][1]:.3f}) m, velocity "
                 f"({s['com_velocity_end'][0]:+.3f}, {s['com_velocity_end'][1]:+.3f}) m/s at the end")
    lines.append(f"  all values finite    {'yes' if s['finite'] else 'NO: the simulation blew up'}")
    lines.append(f"verdict: {verdict}")
    return "\n".join(lines)


def add_arguments(parser) -> None:
    parser.add_argument("design", nargs="?", default="walker",
                        help="a built-in design name (see 'creatures designs') or a YAML file; "
                             "default: walker")
    parser.add_argument("--seconds", type=float, default=10.0, help="simulated time (default 10)")
    parser.add_argument("--muscles", choices=MUSCLE_PATTERNS, default="sine",
                        help="how the muscles are driven (default sine)")
    parser.add_argument("--gravity", type=float, default=physics.SimParams.gravity,
                        help="downward acceleration in m/s^2 (default 9.81)")
    parser.add_argument("--no-ground", action="store_true", help="no terrain at all")
    parser.add_argument("--terrain", default="flat",
                        help="terrain: a name (creatures terrains lists them), a terrain file (.yaml), "
                             "file.py:Name or module:Name (default flat)")
    parser.add_argument("--seed", type=int, default=0, help="seed for random muscles and hills")
    parser.add_argument("--solver", choices=physics.SOLVERS, default=physics.SimParams.solver,
                        help="pbd: position-based dynamics (default); witkin: bones and muscles as "
                             "exact constraints, solved for their Lagrange multipliers")
    parser.add_argument("--contacts", choices=physics.CONTACT_MODELS, default=physics.SimParams.contacts,
                        help="pbd: push-out and velocity rejection (default); dem: spring-dashpot "
                             "contact forces, substepped as their stiffness needs")
    parser.add_argument("--medium", default="none", metavar="MEDIUM",
                        help="the fluid around the creature: none (default), water, air, or numbers after "
                             "a name or alone, e.g. water,flow_x=0.5 or density=800,drag_normal=2 (keys: "
                             + ", ".join(physics.MEDIUM_KEYS) + ")")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead")


def run(args) -> int:
    try:
        design = resolve_design(args.design)
    except DesignError as exc:
        print(design_error("simulate", exc), file=sys.stderr)
        return 2
    if not (args.seconds > 0 and math.isfinite(args.seconds)):
        print(f"creatures simulate: --seconds must be a positive number, not {args.seconds:g}", file=sys.stderr)
        return 2
    if not (args.gravity >= 0 and math.isfinite(args.gravity)):
        print(f"creatures simulate: --gravity must be a number >= 0, not {args.gravity:g}", file=sys.stderr)
        return 2
    if args.seed < 0:
        print(f"creatures simulate: --seed must be 0 or more, not {args.seed}", file=sys.stderr)
        return 2
    try:
        params = physics.SimParams(gravity=args.gravity, ground=not args.no_ground, solver=args.solver,
                                   contacts=args.contacts, **physics.medium_settings(args.medium))
    except ValueError as exc:  # a bad medium, or a fluid with another solver
        print(f"creatures simulate: --medium: {exc}", file=sys.stderr)
        return 2
    try:
        terrain = resolve("terrain", args.terrain).make(args.seed)
    except PluginError as exc:
        print(plugin_error("simulate", exc), file=sys.stderr)
        return 2
    try:  # a design the chosen solver cannot hold, or contacts too stiff for the time step
        physics.substeps_for(physics.build_model(design.body, 1), params)
    except ValueError as exc:
        print(f"creatures simulate: {exc}", file=sys.stderr)
        return 2
    summary = run_simulation(design.body, args.seconds, args.muscles, params, terrain, args.seed)
    print(json.dumps(summary, indent=2) if args.json else format_summary(summary))
    return 0 if summary["finite"] else 1

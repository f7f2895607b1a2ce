"""Run a creature headless and report what happened: distance, height, strain, clearance.

This is how a designer checks that a creature holds together before evolving it: drive its
muscles with a pattern for some seconds and read the summary. ``--json`` gives the same as one
JSON object.
"""

from __future__ import annotations

import json
import math
import sys

import physics
from evolution import PluginError, resolve

from ..design import DesignError, design_error, resolve_design
from ..simulation import MUSCLE_PATTERNS, run_simulation
from .args import plugin_error

EXAMPLES = """examples:
  creatures simulate                                  the walker, 10 s, sine-driven muscles
  creatures simulate walker --muscles random --seconds 30 --seed 3
  creatures simulate <DESIGN.yaml> --terrain hills --json
  creatures simulate walker --gravity 0 --no-ground --muscles random
  creatures simulate walker --solver witkin           bones as exact constraints (Witkin's method)
  creatures simulate worm --contacts dem              spring-dashpot contacts (Discrete Element Method)
  creatures simulate eel --medium water --no-ground   in deep water
  creatures simulate bird --medium air,flow_x=3       in a wind of 3 m/s
"""

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
        f"simulated {s['seconds']:.2f} s "
        + ("with no ground" if s["terrain"] == "none" else f"on {s['terrain']} ground")
        + f", gravity {s['gravity']:g} m/s^2, "
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

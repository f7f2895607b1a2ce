"""``creatures bench``: every benchmark, side by side in one run.

This module is the command (its arguments, what it runs and prints); the benchmarks, what each
measures and how fairly, are :mod:`creatures.bench`."""

from __future__ import annotations

import argparse
import functools
import importlib
import json
import sys

from ..bench import generation, shapes
from ..bench.common import (BUDGET, POPULATIONS, PYMUNK_SUBSTEPS, QUICK_BUDGET, QUICK_REPEATS, REPEATS, STEPS,
                            machine)
from ..bench.engine import (creatures_walk, first_call, format_markdown, format_table, layouts, physics_rows, sanity,
                            strain_rows)
from ..bench.pymunk_baseline import pymunk_walk

EXAMPLES = """examples:
  creatures bench                              populations 1, 150 and 1000 per core and on all
                                               cores against pymunk at its default and near our
                                               rigidity (pymunk-rigid), medians of 3, the worst
                                               strain each holds, a whole generation against the
                                               baseline and baseline-rigid, and whole generations
                                               of evolution end to end against neat-python's
                                               (~2 min)
  creatures bench --quick                      shorter runs, one repetition; shorter generation
                                               and end-to-end benchmarks (~1 min)
  creatures bench --no-generation --markdown   the physics table of docs/performance.md
  creatures bench --json                       the same as a JSON list of rows
  creatures bench --populations 1,150 --steps 600 --repeats 5
  creatures bench --no-pymunk                  our engine only (no pymunk, no baseline generation)
  creatures bench --no-generation              the physics rows only
  creatures bench --tasks                      what a task written in pure numpy costs a generation
  creatures bench --bodies                     a generation of evolving bodies against fixed ones
  creatures bench --medium                     a generation in water or air against the ground
  creatures bench --shapes                     150 bodies of 20 random shapes against 150 of one shape
  creatures bench --env                        env-steps/s of the Gymnasium environment
  creatures bench --predictable                starts 1e-6 m apart, ours and pymunk; bodies under random muscles
"""


def _populations(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma-separated list of integers: {text!r}") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError("populations must be positive integers")
    return values


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, 1 or more, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value


def add_arguments(parser) -> None:
    parser.add_argument("--populations", type=_populations, default=list(POPULATIONS),
                        help="comma-separated population sizes (default 1,150,1000)")
    parser.add_argument("--steps", type=_positive, default=STEPS,
                        help=f"steps per creature and window (default {STEPS}; both engines run fewer at "
                             f"large populations, at most {BUDGET:,} creature-steps per window)")
    parser.add_argument("--repeats", type=_positive, default=None,
                        help=f"repetitions per figure, the median is reported (default {REPEATS})")
    parser.add_argument("--quick", action="store_true",
                        help=f"physics: {QUICK_REPEATS} repetition and at most {QUICK_BUDGET:,} "
                             f"creature-steps per window; whole generation: {generation.QUICK_GENERATIONS} of "
                             f"ours, 1 of {generation.QUICK_BASELINE_GENOMES} genomes for each baseline; end to "
                             f"end: {generation.QUICK_END_TO_END_GENERATIONS} generations of ours, "
                             f"{generation.QUICK_BASELINE_END_TO_END_GENERATIONS} of the baseline (the first "
                             "of each not timed)")
    parser.add_argument("--no-pymunk", action="store_true",
                        help="time our engine only (also skips the generation baseline)")
    parser.add_argument("--no-generation", action="store_true",
                        help="skip the whole-generation and end-to-end benchmarks")
    parser.add_argument("--generations", type=_positive, default=None,
                        help="whole generation: our generations timed after the first (default "
                             f"{generation.GENERATIONS}, with --quick {generation.QUICK_GENERATIONS}); "
                             f"each baseline times {generation.BASELINE_GENERATIONS} (with --quick 1 of "
                             f"{generation.QUICK_BASELINE_GENOMES} genomes, scaled to "
                             f"{generation.POPULATION})")
    parser.add_argument("--viewer", action="store_true",
                        help="only the viewer's frame time (1 and 10 racing walkers at 1280x720, offscreen), and the "
                             "editor on a 40-sphere design, and the game's evolution screen with a run of 150 walkers "
                             "evolving in the background")
    parser.add_argument("--bodies", action="store_true",
                        help="instead: whole generations of the walker whose legs evolve against the "
                             "fixed walker (end to end, alternating rounds)")
    parser.add_argument("--medium", action="store_true",
                        help="instead: whole generations of the eel and the fish swimming, the bird flying and the "
                             "glider flying far against the same creatures running on the ground (end to "
                             "end, alternating rounds)")
    parser.add_argument("--shapes", action="store_true",
                        help="instead: the physics of 150 bodies of 20 random shapes (a batch per shape) "
                             "against 150 of one shape (--quick: 5 s, one repetition)")
    parser.add_argument("--json", action="store_true", help="print a JSON list of rows instead")
    parser.add_argument("--markdown", action="store_true",
                        help="print the physics rows as docs/performance.md's markdown table instead (no "
                             "whole generation)")
    parser.add_argument("--tasks", action="store_true",
                        help="instead: a generation with the built-in run task against the same task in "
                             "pure numpy and the example flag task (what a plug-in task costs)")
    parser.add_argument("--env", action="store_true",
                        help="instead: env-steps/s of the Gymnasium environment, single and vectorised "
                             "(needs gymnasium)")
    parser.add_argument("--solvers", action="store_true",
                        help="instead: Witkin vs PBD solvers and DEM vs PBD contacts on their scenes "
                             "(markdown tables; --quick for a tenth of the simulated time)")
    parser.add_argument("--predictable", action="store_true",
                        help="instead: how far starts 1e-6 m apart drift apart (ours and pymunk), with other "
                             "muscles, and whether the land designs hold together under random muscles "
                             "(markdown tables, ~3 min; --quick: fewer starts)")


def run(args) -> int:
    if getattr(args, "predictable", False):
        from ..bench import predictable
        print(predictable.report(args.quick))
        return 0
    if getattr(args, "solvers", False):
        from ..bench import solvers
        if args.json:
            print(json.dumps(solvers.solver_rows(args.quick) + solvers.pile_rows(args.quick), indent=2))
        else:
            print(solvers.report(args.quick))
        return 0
    if getattr(args, "env", False):
        from ..bench.envs import format_env_speed, measure_env_speed
        result = measure_env_speed(steps=100 if args.quick else 300)
        if args.json:
            rows = [{"work": "env", "engine": "CreatureEnv", "num_envs": 1, "env_steps_per_s": result["single"]}]
            rows += [{"work": "env", "engine": "CreatureVectorEnv", "num_envs": n, "env_steps_per_s": v}
                     for n, v in result["vector"].items()]
            rows += [{"work": "env", "engine": "SyncVectorEnv", "num_envs": n, "env_steps_per_s": v}
                     for n, v in result["sync"].items()]
            print(json.dumps(rows, indent=2))
        else:
            print(format_env_speed(result))
        return 0
    for flag, measure, fmt in (("bodies", generation.run_bodies, generation.format_bodies),
                               ("medium", generation.run_media, generation.format_media),
                               ("shapes", shapes.run_shapes, shapes.format_shapes)):
        if getattr(args, flag, False):  # side by side, with the machine
            rows = measure(args.quick)
            info = machine()
            for r in rows:
                r.update(info)
            print(json.dumps(rows, indent=2) if args.json else fmt(rows))
            return 0
    if getattr(args, "tasks", False):
        from ..bench.tasks import format_tasks, run_tasks
        rows = run_tasks(args.quick)
        print(json.dumps(rows, indent=2) if args.json else format_tasks(rows))
        return 0
    if args.viewer:
        from ..bench.viewer import (PLAY_SECONDS, format_editor, format_play, format_viewer, run_editor_bench,
                                    run_play_bench, run_viewer_bench)
        rows = run_viewer_bench()
        editor_rows = run_editor_bench()
        play_rows = run_play_bench(seconds=5.0 if args.quick else PLAY_SECONDS)
        print(json.dumps(rows + editor_rows + play_rows, indent=2) if args.json
              else "\n\n".join((format_viewer(rows), format_editor(editor_rows), format_play(play_rows))))
        return 0
    first = first_call()  # before anything else steps the engine
    repeats = args.repeats or (QUICK_REPEATS if args.quick else REPEATS)
    budget = QUICK_BUDGET if args.quick else BUDGET
    checks = {}
    try:
        rows = physics_rows(args.populations, args.steps, repeats, budget, pymunk=not args.no_pymunk)
    except RuntimeError as exc:  # pymunk missing or failed: our engine alone
        print(f"creatures bench: {exc}", file=sys.stderr)
        rows = physics_rows(args.populations, args.steps, repeats, budget, pymunk=False)
    checks["creatures"] = sanity(creatures_walk, args.steps)
    for engine, substeps in PYMUNK_SUBSTEPS.items():
        if any(r["engine"] == engine for r in rows):
            checks[engine] = sanity(functools.partial(pymunk_walk, substeps=substeps), args.steps)
    strains = strain_rows(args.steps, list(checks))   # the engines the table has
    for r in rows:
        r["first_call_s"] = first["seconds"]
        r["first_call_cache"] = first["cache"]
        r["layout"] = layouts(r["cores"])[r["engine"]]
        r.update(checks.get(r["engine"], {}))
        r.update(strains.get(r["engine"], {}))
    gen_rows, end_rows = [], []
    if not args.no_generation and not args.markdown:
        baseline = not args.no_pymunk and importlib.util.find_spec("pymunk") is not None
        gen_rows = generation.run_generation(args.quick, baseline=baseline, generations=args.generations)
        end_rows = generation.run_end_to_end(args.quick, baseline=baseline)
    info = machine()
    if args.markdown:
        print(format_markdown(rows, strains))
    elif args.json:
        for r in rows + gen_rows + end_rows:
            r.update(info)
        print(json.dumps(rows + gen_rows + end_rows, indent=2))
    else:
        print(format_table(rows, info, first, checks, args.steps, strains))
        if gen_rows:
            print()
            print(generation.format_generation(gen_rows))
        if end_rows:
            print()
            print(generation.format_end_to_end(end_rows))
    for engine, c in checks.items():
        if not c["stands"]:
            print(f"creatures bench: WARNING: the {engine} walker does not stand (lowest centre of mass "
                  f"{c['com_min_rest_m']:.3f} m with muscles at rest)", file=sys.stderr)
    return 0

"""Evolve NEAT brains for a creature on a task, headless, a whole generation batched.

Every option has a default: ``creatures evolve`` alone evolves the walker to run on flat ground.
"""

from __future__ import annotations

import math
import shlex
import sys
import time
from datetime import datetime
from pathlib import Path

import evolution
from evolution.run import Run, RunError, RunSettings
from evolution.tasks import TASKS

from .bestiary import resolve_design
from .design import DesignError

EXAMPLES = """examples:
  creatures evolve                                   the walker learns to run, 50 generations
  creatures evolve quadruped --task jump --generations 100 --population 300
  creatures evolve my_spider.yaml --task climb --terrain steps --seconds 30 --seed 7
  creatures evolve worm --workers 1 --out runs/worm-1
  creatures evolve walker --network recurrent --neat-config my_neat.cfg
  creatures evolve walker --backend ray --address auto        on a Ray cluster
"""

BAR_WIDTH = 30


def add_arguments(parser) -> None:
    parser.add_argument("design", nargs="?", default="walker",
                        help="a built-in design name or a YAML file (default: walker)")
    parser.add_argument("--task", choices=TASKS, default="run", help="what to evolve for (default run)")
    parser.add_argument("--terrain", choices=("flat", "hills", "steps", "hurdles"), default=None,
                        help="terrain (default: the task's own: flat, or steps for climb, hurdles for obstacle)")
    parser.add_argument("--seconds", type=float, default=20.0, help="simulated seconds per evaluation (default 20)")
    parser.add_argument("--generations", type=int, default=50, help="generations (default 50)")
    parser.add_argument("--population", type=int, default=150, help="genomes per generation (default 150)")
    parser.add_argument("--seed", type=int, default=0, help="seed for everything random (default 0)")
    parser.add_argument("--workers", type=int, default=0, help="worker processes (default: one per core)")
    parser.add_argument("--network", choices=("feedforward", "recurrent"), default="feedforward",
                        help="network kind (default feedforward)")
    parser.add_argument("--neat-config", metavar="FILE", default=None,
                        help="your own neat-python config (its input/output counts and population are set for you)")
    add_backend_arguments(parser)
    parser.add_argument("--out", metavar="RUN_DIR", default=None,
                        help="run directory (default runs/DESIGN-TASK-DATE-TIME)")


def add_backend_arguments(parser, default: str | None = "local") -> None:
    parser.add_argument("--backend", choices=("local", "ray"), default=default,
                        help="where generations are evaluated: worker processes here (local, the default) "
                             "or tasks on a Ray cluster (ray; pip install 'creatures[cluster]'); "
                             "the results are the same")
    parser.add_argument("--address", default=None,
                        help="the Ray cluster: auto (a cluster started on this machine with ray start), "
                             "HOST:6379, or ray://HOST:10001 (default: start Ray here)")


def _fail(message: str) -> int:
    print(f"creatures evolve: {message}", file=sys.stderr)
    return 2


def run(args) -> int:
    try:
        design = resolve_design(args.design)
    except DesignError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    if not (args.seconds > 0 and math.isfinite(args.seconds)):
        return _fail("--seconds must be a positive number")
    if args.generations < 1 or args.population < 2 or args.workers < 0 or args.seed < 0:
        return _fail("need --generations >= 1, --population >= 2, --workers >= 0 and --seed >= 0")
    if args.address is not None and args.backend != "ray":
        return _fail("--address is for --backend ray")
    neat_text = None
    if args.neat_config:
        try:
            neat_text = Path(args.neat_config).read_text()
        except OSError as exc:
            return _fail(f"cannot read {args.neat_config}: {exc.strerror or exc}")
    out = Path(args.out or f"runs/{design.name}-{args.task}-{datetime.now():%Y%m%d-%H%M%S}")
    if (out / "settings.json").exists():
        return _fail(f"{out} already holds a run; choose another --out, or go on with: creatures resume {out}")
    try:
        settings = RunSettings(design_name=design.name, design_text=design.text, task=args.task,
                               terrain=args.terrain, seconds=args.seconds, generations=args.generations,
                               population=args.population, seed=args.seed, workers=args.workers,
                               network=args.network, neat_config=neat_text, backend=args.backend,
                               address=args.address)
        run_ = Run.create(out, settings, design.body)
    except (ValueError, OSError, KeyError, TypeError) as exc:  # a bad neat config, an unwritable directory
        return _fail(f"cannot start the run: {exc}")

    ep = run_.episode
    print(f"evolving {design.name} ({ep.n_inputs()} inputs, {ep.n_outputs()} muscles) to "
          f"{settings.task} on {ep.task.terrain_kind} ground: {settings.generations} generations of "
          f"{settings.population}, {settings.seconds:g} s each, seed {settings.seed}, "
          f"{settings.network} networks -> {out}")
    return drive(run_, out)


def drive(run_: Run, out: Path) -> int:
    """Evolve ``run_`` to its last generation, printing a line per generation (and a progress
    bar on a terminal). Ctrl-C stops it cleanly and says how to go on. Shared with ``resume``."""
    settings = run_.settings
    tty = sys.stdout.isatty()
    started = time.perf_counter()

    def on_progress(done, total):
        if tty:
            filled = int(BAR_WIDTH * done / max(total, 1))
            print(f"\r  [{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {100 * done / max(total, 1):5.1f} %",
                  end="", flush=True)

    def on_generation(s):
        if tty:
            print("\r" + " " * (BAR_WIDTH + 12) + "\r", end="")
        failed = f", {s.failed} failed" if s.failed else ""
        print(f"gen {s.generation:4d}  best {s.best:8.3f}  median {s.median:8.3f}  "
              f"species {s.species:3d}{failed}  {s.eval_seconds:5.2f} s", flush=True)

    try:
        run_.evolve(on_generation, on_progress)
    except KeyboardInterrupt:
        done = run_.generations_done
        print(f"\nstopped after generation {done} of {settings.generations}; everything up to it is "
              f"saved in {out}.\nto go on: creatures resume {shlex.quote(str(out))}", file=sys.stderr)
        return 130
    except (RunError, ImportError, ConnectionError) as exc:  # the last two: the ray backend
        print(f"creatures: {exc}", file=sys.stderr)
        return 2
    except RuntimeError as exc:  # a Ray task that failed
        if settings.backend != "ray":
            raise
        print(f"creatures: {exc}", file=sys.stderr)
        return 2
    h = run_.history
    top = max(h, key=lambda s: s.best)
    print(f"done in {time.perf_counter() - started:.1f} s: best fitness {top.best:.3f} "
          f"(generation {top.generation}); {evolution.describe_fitness(settings.task)}")
    print(f"results in {out}: settings.json, stats.csv, species.csv, best/gen_NNNN.json, checkpoint.json")
    return 0

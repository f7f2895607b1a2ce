"""Resume an evolution run where it stopped, or take a finished run further.

A run writes a checkpoint after every generation. Whatever stopped it (Ctrl-C, kill -9, a power
cut), ``creatures resume RUN_DIR`` goes on from the last checkpoint exactly as the uninterrupted
run would have: the same genomes, statistics and champions, bit for bit.
"""

from __future__ import annotations

import sys
from pathlib import Path

from evolution.run import Run, RunError, WriteError

from .evolve import add_backend_arguments, count, drive, where_evaluated

EXAMPLES = """examples:
  creatures resume <RUN_DIR>                     finish an interrupted run
  creatures resume <RUN_DIR> --generations 200   take it to generation 200
  creatures resume runs/worm-1 --workers 1
"""


def add_arguments(parser) -> None:
    parser.add_argument("run_dir", metavar="RUN_DIR", help="the run directory (as printed by creatures evolve)")
    parser.add_argument("--generations", type=int, default=None,
                        help="take the run to this many generations in all (default: the run's own)")
    parser.add_argument("--workers", type=int, default=None,
                        help="processes that evaluate a generation: 0 is one per core, 1 is this process "
                             "alone (default: the run's own); results do not depend on it")
    parser.add_argument("--reload-plugins", action="store_true",
                        help="take the run's plug-in files as they are now (after fixing one), instead of "
                             "refusing a plug-in that changed since the run began")
    add_backend_arguments(parser, default=None)


def _fail(message: str) -> int:
    print(f"creatures resume: {message}", file=sys.stderr)
    return 2


def run(args) -> int:
    out = Path(args.run_dir)
    try:
        run_ = Run.open(out, reload_plugins=args.reload_plugins)
        done = run_.generations_done
    except (RunError, ValueError) as exc:
        return _fail(str(exc))
    target = run_.settings.generations if args.generations is None else args.generations
    if target < 1:
        return _fail(f"--generations must be 1 or more, not {target}")
    if target < done:
        return _fail(f"the run already has {count(done, 'generation')}; --generations must be at least that")
    if target == done:
        return _fail(f"the run has finished its {count(done, 'generation')}; "
                     f"take it further with --generations {done + max(10, done // 2)}, say")
    if args.workers is not None and args.workers < 0:
        return _fail(f"--workers must be 1 or more (or 0: one per core), not {args.workers}")
    if target != run_.settings.generations:
        try:
            run_.set_generations(target)
        except WriteError as exc:  # a full disk, say: settings.json is as it was
            return _fail(str(exc))
    # not saved: where and on how many workers a run is evaluated changes no result
    if args.workers is not None:
        run_.settings.workers = args.workers
    if args.backend is not None:
        run_.settings.backend = args.backend
        run_.settings.address = args.address
    elif args.address is not None:
        run_.settings.address = args.address
    if run_.settings.address is not None and run_.settings.backend != "ray":
        return _fail("--address is for --backend ray")
    s = run_.settings
    print(f"resuming {s.design_name} ({s.task}, seed {s.seed}) in {out} after generation {done}: "
          f"{count(target - done, 'generation')} to go, to {target}{where_evaluated(s)}", flush=True)
    return drive(run_, out, "resume")

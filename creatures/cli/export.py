"""Write a run's champion to a shareable JSON file (see saves/README.md for the format); or take
the champion file out of a share card."""

from __future__ import annotations

import sys
from pathlib import Path

from evolution.champion import ChampionError, champion_from_run, load_champion, save_champion

EXAMPLES = """examples:
  creatures export <RUN_DIR> --out walker-runner.json
  creatures export <RUN_DIR> --generation 30 --out gen30.json
  creatures export saves/walker-runner.png --out walker-runner.json   the champion a card holds
"""


def add_arguments(parser) -> None:
    parser.add_argument("run_dir", metavar="RUN_DIR|CARD",
                        help="a run directory made by 'creatures evolve', or a share card (.png)")
    parser.add_argument("--generation", type=int, default=None,
                        help="the best of this generation (default: the best of the whole run)")
    parser.add_argument("--out", metavar="FILE", required=True, help="the champion file to write")


def run(args) -> int:
    if args.generation is not None and args.generation < 1:
        print(f"creatures export: --generation must be 1 or more, not {args.generation}", file=sys.stderr)
        return 2
    card = Path(args.run_dir).is_file()
    if card and args.generation is not None:
        print("creatures export: --generation is for a run directory; a card holds one champion", file=sys.stderr)
        return 2
    try:
        champion = load_champion(args.run_dir) if card else champion_from_run(args.run_dir, args.generation)
        save_champion(champion, args.out)
    except ChampionError as exc:
        print(f"creatures export: {f'{args.run_dir}: ' if card else ''}{exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"creatures export: cannot write {args.out}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    print(f"{args.out}: {champion.name}, fitness {champion.fitness!r} on {champion.task.short} "
          f"({champion.terrain.kind if champion.sim.ground else 'no ground'})")
    return 0

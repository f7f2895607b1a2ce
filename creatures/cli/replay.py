"""Re-simulate a champion file headless and print its replayed fitness next to the recorded one."""

from __future__ import annotations

import json
import sys

import physics
from evolution.champion import ChampionError, load_champion
from evolution.trials import MAX_NOISE
from evolution.lineage import short

from ..shipped import champion_path
from .args import add_plugin_argument

EXAMPLES = """examples:
  creatures replay walker-run                                            a shipped champion, by name (saves/walker-run.json)
  creatures replay <CHAMPION.json> --json
  creatures replay <FLAG_CHAMPION.json> --plugin examples/flag_task.py   its task is a plug-in file
  creatures replay walker-run --starts 20                                and from 20 fresh starts: mean, worst and spread
"""


def add_arguments(parser) -> None:
    parser.add_argument("file", metavar="FILE", help="a champion file, or a shipped champion by name "
                                                     "(walker-run, eel-swim...)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead")
    parser.add_argument("--starts", type=int, default=0, metavar="N",
                        help="also score it from N fresh starts (its trials' noise, or 1 cm; the same starts "
                             "on every machine: anyone can check a shared champion so), and print their mean, "
                             "worst and spread")
    parser.add_argument("--noise", type=float, default=None, metavar="METRES",
                        help="how far those starts move every sphere (default: its trials' noise, or 1 cm)")
    add_plugin_argument(parser)


def run(args) -> int:
    if not 0 <= args.starts <= 1000:
        print(f"creatures replay: --starts must be a whole number from 0 to 1000, not {args.starts}", file=sys.stderr)
        return 2
    if args.noise is not None and not 0 <= args.noise <= MAX_NOISE:
        print(f"creatures replay: --noise must be a number of metres from 0 to {MAX_NOISE:g}, not {args.noise:g}",
              file=sys.stderr)
        return 2
    try:
        path = champion_path(args.file)
        champion = load_champion(path, args.plugin)
        replayed = champion.replay()
        check = champion.rescore(args.starts, args.noise) if args.starts else None
    except ChampionError as exc:
        print(f"creatures replay: {args.file}: {exc}", file=sys.stderr)
        return 2
    same = replayed == champion.fitness
    earlier = champion.earlier_engine()
    if args.json:
        print(json.dumps({"file": path, "name": champion.name, "task": champion.task.name,
                          "terrain": champion.terrain.kind, "recorded_fitness": champion.fitness,
                          "replayed_fitness": replayed, "identical": same,
                          "engine": {"recorded": champion.sim.engine, "replayed": physics.ENGINE_VERSION},
                          "generation": champion.generation, "author": champion.author or None,
                          "hash": champion.hash(),
                          "trials": champion.trials.to_dict() if champion.trials.recorded else None,
                          "post": champion.post.to_dict() if champion.post else None,
                          "check": check,
                          "lineage": {"design": champion.design_hash, "seed": champion.seed,
                                      "settings": champion.settings_hash, "parent": champion.parent},
                          "software": champion.software}, indent=2))
    elif earlier:
        print(f"{args.file}: {earlier}: its fitness is now {replayed!r}")
    else:
        where = f"on {champion.terrain.kind}" if champion.sim.ground else "with no ground"
        if champion.sim.fluid_density > 0:
            where += f" in {physics.medium_name(champion.sim)}"
        print(f"{champion.name or args.file}: {champion.task.short} {where}, "
              f"{champion.seconds:g} s; fitness is {champion.measures}")
        print(f"  recorded fitness {champion.fitness!r}  ({champion.trials.describe()})")
        print(f"  replayed fitness {replayed!r}  ({'identical' if same else 'DIFFERENT'})")
        if champion.post is not None:
            print(f"  post-evaluated {champion.post.describe()}")
        by = f" by {champion.author}" if champion.author else ""
        print(f"  champion {short(champion.hash())}{by}, generation {champion.generation}; {champion.lineage_line()}")
    if check is not None and not args.json:
        print(f"  from {check['starts']} fresh starts moved {check['noise']:g} m: mean {check['mean']:.6g}, "
              f"worst {check['worst']:.6g}, sd {check['sd']:.3g}")
    return 0 if same else 1

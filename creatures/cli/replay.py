"""Re-simulate a champion file headless and print its replayed fitness next to the recorded one."""

from __future__ import annotations

import json
import sys

import physics
from evolution.champion import ChampionError, load_champion
from evolution.lineage import short

from ..shipped import champion_path
from .args import add_plugin_argument

EXAMPLES = """examples:
  creatures replay walker-run                 a shipped champion, by name (saves/walker-run.json)
  creatures replay champion.json --json
  creatures replay flag-champion.json --plugin examples/flag_task.py     its task is a plug-in file
"""


def add_arguments(parser) -> None:
    parser.add_argument("file", metavar="FILE", help="a champion file, or a shipped champion by name "
                                                     "(walker-run, eel-swim...)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead")
    add_plugin_argument(parser)


def run(args) -> int:
    try:
        path = champion_path(args.file)
        champion = load_champion(path, args.plugin)
        replayed = champion.replay()
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
        print(f"  recorded fitness {champion.fitness!r}")
        print(f"  replayed fitness {replayed!r}  ({'identical' if same else 'DIFFERENT'})")
        by = f" by {champion.author}" if champion.author else ""
        print(f"  champion {short(champion.hash())}{by}, generation {champion.generation}; {champion.lineage_line()}")
    return 0 if same else 1

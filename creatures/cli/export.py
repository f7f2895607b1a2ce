"""Write a run's champion to a shareable JSON file (see saves/README.md for the format); or take
the champion file out of a share card; or write the champion's body as a design file (YAML) to
open in the editor or evolve again."""

from __future__ import annotations

import sys
from pathlib import Path

from evolution.champion import Champion, ChampionError, champion_from_run, load_champion, save_champion
from evolution.files import write_atomic

from ..design import DesignError, parse_design
from ..design.writer import design_text, valid_name

EXAMPLES = """examples:
  creatures export <RUN_DIR> --out walker-runner.json
  creatures export <RUN_DIR> --generation 30 --out gen30.json
  creatures export saves/walker-runner.png --out walker-runner.json   the champion a card holds
"""


def add_arguments(parser) -> None:
    parser.add_argument("run_dir", metavar="RUN_DIR|CARD",
                        help="a run directory made by 'creatures evolve', a share card (.png), or a champion "
                             "file (.json) for --yaml")
    parser.add_argument("--generation", type=int, default=None,
                        help="the best of this generation (default: the best of the whole run)")
    parser.add_argument("--out", metavar="FILE", default=None, help="the champion file to write (JSON)")
    parser.add_argument("--yaml", metavar="FILE.yaml", default=None,
                        help="write the champion's body as a design file too (or instead): the body it was "
                             "scored with, grown or evolved, to open with 'creatures edit' or evolve again "
                             "(never overwrites a file)")


def _fail(message: str) -> int:
    print(f"creatures export: {message}", file=sys.stderr)
    return 2


def _printable(text: str) -> str:
    return "".join(c if c.isprintable() else "?" for c in text)


def champion_design(champion: Champion, origin: str) -> tuple[str, str]:
    """The champion's body as a design: ``(name, YAML text)`` (:func:`creatures.design.writer.
    design_text`), its name the body's made valid (``sprout (grown)`` -> ``sprout-grown``), its
    description saying where it came from (``origin``: ``the run walker-1``...),
    its parts named as the grown body's or the design's. ValueError for a body a design cannot
    hold (not seen: every champion's body comes from a design)."""
    try:
        design = parse_design(champion.design_yaml, "<the champion's design>") if champion.design_yaml else None
    except DesignError:
        design = None
    start = design.name if design is not None else champion.body.name.removesuffix(" (grown)")
    body, ids = champion.body, None
    if champion.grown is not None:
        ids = champion.grown.names
        how = f"its body grown from {start} by creatures evolve --grow"
    else:
        if design is not None and len(design.sphere_ids) == len(body.spheres) \
                and len(design.bone_ids) == len(body.bones) and len(design.joint_ids) == len(body.joints) \
                and len(design.cluster_ids) == len(body.clusters):
            ids = {"sphere": design.sphere_ids, "bone": design.bone_ids, "joint": design.joint_ids,
                   "cluster": design.cluster_ids}
        if champion.genes:
            off = champion.switched_off()
            how = f"its body evolved from the design {start}" + (
                f" (it had switched off {', '.join(off)}: here on, marked optional)" if off else "")
        else:
            how = f"the body of the design {start} as it is (its body did not evolve)"
    description = _printable(f"The champion of {origin} (generation {champion.generation}, fitness "
                             f"{champion.fitness:.6g} on the task {champion.task.short}): {how}.")[:1500]
    name = valid_name(body.name, valid_name(start, "champion"))
    return name, design_text(body, name, description, ids, author=champion.author)


def _write_yaml(champion: Champion, origin: str, path: Path) -> str:
    """Write the champion's body as the design file ``path`` (which does not exist); what to
    print. Raises ValueError (one line) for a body that is not a valid design, OSError."""
    name, text = champion_design(champion, origin)
    try:
        design = parse_design(text, str(path))   # what 'creatures validate' will say of it
    except DesignError as exc:
        raise ValueError(f"the champion's body is not a valid design: {str(exc).splitlines()[0]}") from None
    write_atomic(path, text)
    c = design.counts()
    return (f"{path}: the body of {champion.name} as the design {name} ({c['spheres']} spheres, {c['bones']} "
            f"bones, {c['muscles']} muscle{'s' if c['muscles'] != 1 else ''}); next: creatures edit {path}")


def run(args) -> int:
    if args.generation is not None and args.generation < 1:
        return _fail(f"--generation must be 1 or more, not {args.generation}")
    if args.out is None and args.yaml is None:
        return _fail("nothing to write: give --out FILE (the champion), --yaml FILE.yaml (its body as a design), "
                     "or both")
    card = Path(args.run_dir).is_file()
    if card and args.generation is not None:
        return _fail("--generation is for a run directory; a card holds one champion")
    yaml_path = None if args.yaml is None else Path(args.yaml)
    if yaml_path is not None:   # refused before anything is written
        if yaml_path.suffix.lower() not in (".yaml", ".yml"):
            return _fail(f"--yaml {yaml_path}: a design file's name ends in .yaml")
        if yaml_path.exists():
            return _fail(f"{yaml_path} exists: nothing written; choose another name, or move it away")
        if args.out is not None and Path(args.out).resolve() == yaml_path.resolve():
            return _fail(f"--out and --yaml both name {yaml_path}: the champion and its design are two files")
    try:
        champion = load_champion(args.run_dir) if card else champion_from_run(args.run_dir, args.generation)
        if args.out is not None:
            save_champion(champion, args.out)
    except ChampionError as exc:
        return _fail(f"{f'{args.run_dir}: ' if card else ''}{exc}")
    except OSError as exc:
        return _fail(f"cannot write {args.out}: {exc.strerror or exc}")
    if args.out is not None:
        print(f"{args.out}: {champion.name}, fitness {champion.fitness!r} on {champion.task.short} "
              f"({champion.terrain.kind if champion.sim.ground else 'no ground'})")
    if yaml_path is not None:
        origin = f"{'the file' if card else 'the run'} {Path(args.run_dir).resolve().name}"
        try:
            print(_write_yaml(champion, origin, yaml_path))
        except ValueError as exc:
            return _fail(str(exc))
        except OSError as exc:
            return _fail(f"cannot write {yaml_path}: {exc.strerror or exc}")
    return 0

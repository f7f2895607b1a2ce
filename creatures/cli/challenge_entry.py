"""``creatures evolve DESIGN --challenge CHALLENGE``: a run within a challenge's rules, and its entry.

The challenge sets the run's task, ground, seconds, medium and sensors (naming any of them too is
refused: the challenge decides them); the design must keep the challenge's body rules before a
generation is spent. At the end the run's champion is written to ``RUN_DIR/entry.json`` and
verified as ``creatures challenge verify`` would."""

from __future__ import annotations

import shlex

from evolution.challenges import ChallengeError
from evolution.plugins import resolve

__all__ = ["apply_challenge", "write_entry", "ENTRY"]

#: the entry a challenge run writes in its run directory
ENTRY = "entry.json"


def apply_challenge(args, design):
    """``(challenge, None)`` with ``args`` set from the challenge, or ``(None, message)``."""
    from ..challenge import resolve_challenge
    from .challenge import challenge_problem
    try:
        challenge = resolve_challenge(args.challenge)
    except ChallengeError as exc:
        return None, challenge_problem(exc, "evolve")
    given = [opt for opt, value in (("--task", args.task), ("--terrain", args.terrain), ("--sensors", args.sensors),
                                    ("--medium", args.medium), ("--seconds", args.seconds)) if value is not None]
    if given:
        return None, (f"creatures evolve: --challenge {challenge.name} sets the task, ground, seconds, medium "
                      f"and sensors; leave out {', '.join(given)}")
    broken = challenge.rules.broken(design.body)
    if broken:
        return None, f"creatures evolve: {design.name} breaks the rules of the challenge {challenge.name}: {broken}"
    terrain = challenge.terrain_file or challenge.terrain_name
    if challenge.terrain_file is None:
        if not challenge.on_ground(resolve("terrain", challenge.terrain_name).make(args.seed)):
            return None, (f"creatures evolve: the ground of the challenge {challenge.name} is {challenge.terrain_name} "
                          f"made from seed {challenge.terrain_seed}, and a run makes its ground from its own "
                          f"seed: evolve with --seed {challenge.terrain_seed}")
    args.task, args.terrain, args.seconds, args.medium = challenge.task, terrain, challenge.seconds, challenge.medium
    return challenge, None


def write_entry(challenge, spec: str, out) -> int:
    """Write the run's champion to ``out/entry.json``, verified; say so (and what next).
    ``spec``: the challenge as the user named it."""
    from evolution.champion import ChampionError, champion_from_run, save_champion
    from evolution.files import WriteError
    path = out / ENTRY
    try:
        champion = champion_from_run(out)
        verdict = challenge.verify(champion)
        if not verdict.verified:
            print(f"creatures evolve: its champion is no entry to {challenge.name}: {verdict.reason}")
            return 1
        save_champion(champion, path)
    except ChampionError as exc:
        print(f"creatures evolve: cannot make its entry: {exc}")
        return 2
    except (WriteError, OSError) as exc:
        print(f"creatures evolve: cannot write {path}: {getattr(exc, 'strerror', None) or exc}")
        return 2
    quoted = shlex.quote(str(path))
    name = shlex.quote(spec)
    print(f"entry to {challenge.name}: {path}, verified {verdict.score!r}")
    print(f"  creatures challenge verify {name} {quoted}   check it again, anywhere")
    print(f"  creatures card {quoted} --out {challenge.name}-entry.png   a card of it to share")
    return 0

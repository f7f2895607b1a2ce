"""List the built-in challenges: what each asks, its rules and what its score measures.

``creatures challenge verify NAME ENTRY...`` checks entries against one, ``creatures challenge
board NAME DIR`` ranks a folder of them, ``creatures evolve DESIGN --challenge NAME`` evolves an
entry within its rules. A challenge file of your own (YAML) works wherever a name does.
"""

from __future__ import annotations

import json
import sys
import textwrap

from evolution.challenges import ChallengeError

EXAMPLES = """examples:
  creatures challenges                             the built-in ones
  creatures challenges --json
  creatures challenges examples/hill_sprint.yaml   check a challenge file of your own, and show it
"""


def add_arguments(parser) -> None:
    parser.add_argument("files", metavar="CHALLENGE", nargs="*",
                        help="challenge files (or names) to check and show (default: the built-in ones)")
    parser.add_argument("--json", action="store_true", help="print JSON instead")


def run(args) -> int:
    from ..challenge import builtin_challenges, resolve_challenge
    from .challenge import challenge_problem
    found, status = [], 0
    for spec in args.files or builtin_challenges():
        try:
            found.append(resolve_challenge(spec))
        except ChallengeError as exc:
            print(challenge_problem(exc, "challenges"), file=sys.stderr)
            status = 2
    if args.json:
        print(json.dumps([c.to_dict() for c in found], indent=2))
        return status
    for c in found:
        print(f"{c.name}: {c.summary()}")
        print(f"  score: {c.measures()}")
        for line in textwrap.wrap(c.description, 96):
            print(f"  {line}")
    return status

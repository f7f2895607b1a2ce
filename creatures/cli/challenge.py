"""Challenges: verify entries and rank a folder of them; scores anyone can check, since replays are exact.

``creatures challenge verify CHALLENGE ENTRY...`` checks each entry (a champion file or a card)
against the challenge's rules and simulates it again: it prints the verified score, or one line
saying why the entry is refused. ``creatures challenge board CHALLENGE DIR`` does that for every
champion file and card in a folder and ranks them. CHALLENGE is a built-in challenge's name
(``creatures challenges`` lists them) or a challenge file. Nothing an entry holds runs as code.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from evolution.challenges import ChallengeError
from evolution.lineage import short

from ..challenge import board_rows, check_entry

EXAMPLES = """examples:
  creatures challenge verify sprint saves/walker-run.json saves/walker-evolving-run.json
  creatures challenge verify swim saves/eel-swim.json --json
  creatures challenge board sprint saves
  creatures challenge board examples/hill_sprint.yaml saves --json

exit status: verify 0 when every entry is verified, 1 when one is refused; 2 for a challenge
that cannot be used.
"""

def add_arguments(parser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    verify = sub.add_parser("verify", help="re-score entries exactly and check the challenge's rules",
                            description="Re-score each entry exactly and check it keeps the challenge's rules.")
    verify.add_argument("challenge", metavar="CHALLENGE", help="a built-in challenge's name or a challenge file")
    verify.add_argument("entries", metavar="ENTRY", nargs="+", help="champion files or cards")
    verify.add_argument("--json", action="store_true", help="print one JSON object instead")
    board = sub.add_parser("board", help="rank a folder of entries, each verified",
                           description="Verify every champion file and card in a folder and rank them.")
    board.add_argument("challenge", metavar="CHALLENGE", help="a built-in challenge's name or a challenge file")
    board.add_argument("folder", metavar="DIR", help="a folder of entries (.json champion files, .png cards)")
    board.add_argument("--json", action="store_true", help="print one JSON object instead")


def challenge_problem(exc: ChallengeError, command: str = "challenge") -> str:
    """What ``creatures COMMAND`` prints for a challenge it cannot use: the file's problems at
    their lines and columns, or one line."""
    if any(p.line > 0 for p in exc.problems):
        return str(exc)
    return "\n".join(f"creatures {command}: {line}" for line in str(exc).splitlines())


def _load(args):
    from ..challenge import resolve_challenge
    try:
        return resolve_challenge(args.challenge), None
    except ChallengeError as exc:
        return None, challenge_problem(exc)


def run(args) -> int:
    challenge, problem = _load(args)
    if problem:
        print(problem, file=sys.stderr)
        return 2
    if args.action == "verify":
        return _verify(challenge, args)
    return _board(challenge, args)


def _header(challenge) -> str:
    return f"{challenge.name}: {challenge.summary()}; the score is {challenge.measures()}"


def _verify(challenge, args) -> int:
    rows = [check_entry(challenge, path) for path in args.entries]
    if args.json:
        print(json.dumps({"challenge": challenge.to_dict(), "entries": rows}, indent=2))
    else:
        print(_header(challenge))
        for row in rows:
            if row["verified"]:
                print(f"{row['file']}: verified {row['score']!r} ({row['name']}, champion {short(row['hash'])})")
            else:
                print(f"{row['file']}: refused: {row['reason']}")
    return 0 if all(r["verified"] for r in rows) else 1


def _board(challenge, args) -> int:
    folder = Path(args.folder)
    if not folder.is_dir():
        print(f"creatures challenge: {folder} is not a folder", file=sys.stderr)
        return 2
    try:
        ranked, refused, pictures = board_rows(challenge, folder)
    except (ValueError, OSError) as exc:
        print(f"creatures challenge: {getattr(exc, 'strerror', None) or exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"challenge": challenge.to_dict(), "ranked": ranked, "refused": refused,
                          "pictures": pictures}, indent=2))
        return 0
    print(_header(challenge))
    skipped = f" (and {pictures} pictures that are not cards)" if pictures else ""
    print(f"{len(ranked)} verified of {len(ranked) + len(refused)} entries in {folder}{skipped}")
    print(format_board(ranked))
    if refused:
        print("refused:")
        for row in refused:
            print(f"  {row['file']}: {row['reason']}")
    return 0


def format_board(ranked: list) -> str:
    """The verified entries as a table: rank, score, name, author, generation, champion, file."""
    head = ("rank", "score", "name", "author", "gen", "champion", "file")
    rows = [(str(r["rank"]), f"{r['score']:.4f}", r["name"] or "-", r["author"] or "-", str(r["generation"]),
             short(r["hash"]), Path(r["file"]).name) for r in ranked]
    width = [max(len(x[k]) for x in [head, *rows]) for k in range(len(head))]
    right = (True, True, False, False, True, False, False)
    lines = ["  ".join(c.rjust(w) if r else c.ljust(w) for c, w, r in zip(row, width, right)).rstrip()
             for row in [head, *rows]]
    return "\n".join(lines)

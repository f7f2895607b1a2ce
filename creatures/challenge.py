"""Challenges by name or file, the built-in ones (``creatures/challenges/*.yaml``), and boards.

The format and the verification are ``evolution.challenges``'; this module finds challenge
files, and loads the designs a ``body: design:`` rule names (designs are the product's)."""

from __future__ import annotations

from pathlib import Path

from evolution.challenges import Challenge, ChallengeError, load_challenge
from evolution.champion import ChampionError, load_champion
from evolution.yamlread import Problem, did_you_mean

from .design import DesignError, resolve_design

__all__ = ["CHALLENGE_DIR", "MAX_ENTRIES", "builtin_challenges", "resolve_challenge", "check_entry", "board_rows"]

CHALLENGE_DIR = Path(__file__).resolve().parent / "challenges"
#: a board ranks at most this many entries (files in the folder)
MAX_ENTRIES = 1000


def builtin_challenges() -> list[str]:
    """The built-in challenges' names, in the order they are listed."""
    order = ("sprint", "hurdles", "swim")
    found = sorted(p.stem for p in CHALLENGE_DIR.glob("*.yaml"))
    return [n for n in order if n in found] + [n for n in found if n not in order]


def resolve_challenge(spec: str) -> Challenge:
    """A built-in challenge by name, or a challenge file by path. Raises :class:`ChallengeError`
    (its lines are ``file:line:column: message``)."""
    path = Path(spec)
    if spec in builtin_challenges() and not path.exists():
        path = CHALLENGE_DIR / f"{spec}.yaml"
    elif path.suffix.lower() not in (".yaml", ".yml") and not path.exists():
        names = builtin_challenges()
        raise ChallengeError(spec, [Problem(0, 0, f"no built-in challenge of that name and no such file"
                                                  f"{did_you_mean(spec, names)} (built-in: {', '.join(names)})")])
    folder = path.parent

    def design_body(name: str):
        where = folder / name if name.lower().endswith((".yaml", ".yml")) else name
        try:
            return resolve_design(str(where)).body
        except DesignError as exc:
            raise ValueError(str(exc).splitlines()[0]) from None

    return load_challenge(path, design_body)


def check_entry(challenge, path) -> dict:
    """One entry checked: ``file``, ``verified``, ``score`` (the replayed fitness), ``reason``
    (why it is refused, one line), and what it says of itself (name, author, generation,
    recorded fitness, hash)."""
    row = {"file": str(path), "verified": False, "score": None, "reason": None, "name": None,
           "author": None, "generation": None, "recorded_fitness": None, "hash": None}
    try:
        champion = load_champion(path)
    except ChampionError as exc:
        row["reason"] = str(exc)
        return row
    row.update(name=champion.name or champion.body.name, author=champion.author or None,
               generation=champion.generation, recorded_fitness=champion.fitness, hash=champion.hash())
    verdict = challenge.verify(champion)
    row.update(verified=verdict.verified, score=verdict.score, reason=verdict.reason)
    return row


def _picture_only(path: Path) -> bool:
    """Whether ``path`` is a sound PNG that holds no champion (a picture, not an entry)."""
    from evolution.cards import MAX_CARD_BYTES, CardError, holds_champion
    if path.suffix.lower() != ".png":
        return False
    try:
        with open(path, "rb") as f:
            return not holds_champion(f.read(MAX_CARD_BYTES + 1))
    except (CardError, OSError):
        return False   # refused as an entry, with the reason


def board_rows(challenge, folder) -> tuple[list, list, int]:
    """``(ranked, refused, pictures)``: the folder's verified entries best first (the same
    champion twice is listed once, the first file by name), the others, and how many PNG files
    were pictures with no champion (not entries)."""
    paths = sorted(p for p in Path(folder).iterdir() if p.suffix.lower() in (".json", ".png") and p.is_file())
    if len(paths) > MAX_ENTRIES:
        raise ValueError(f"{folder} holds {len(paths)} entries; a board ranks at most {MAX_ENTRIES}")
    entries = [p for p in paths if not _picture_only(p)]
    ranked, refused, seen = [], [], {}
    for path in entries:
        row = check_entry(challenge, path)
        if row["verified"] and row["hash"] in seen:
            row.update(verified=False, reason=f"the same champion as {seen[row['hash']]} (listed once)")
        if row["verified"]:
            seen[row["hash"]] = row["file"]
            ranked.append(row)
        else:
            refused.append(row)
    ranked.sort(key=lambda r: (-r["score"], r["hash"]))
    for k, row in enumerate(ranked, 1):
        row["rank"] = k
    return ranked, refused, len(paths) - len(entries)

"""Challenges by name or file, and the built-in ones (``creatures/challenges/*.yaml``).

The format and the verification are ``evolution.challenges``'; this module finds challenge
files, and loads the designs a ``body: design:`` rule names (designs are the product's)."""

from __future__ import annotations

from pathlib import Path

from evolution.challenges import Challenge, ChallengeError, load_challenge
from evolution.yamlread import Problem, did_you_mean

from .design import DesignError, resolve_design

__all__ = ["CHALLENGE_DIR", "builtin_challenges", "resolve_challenge"]

CHALLENGE_DIR = Path(__file__).resolve().parent / "challenges"


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

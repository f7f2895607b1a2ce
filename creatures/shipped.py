"""The champions shipped with creatures: where they are, and how a command names one.

They live in the top-level ``saves/`` folder beside the packages, in a clone and in an installed
copy alike: ``pyproject.toml`` installs its ``.json`` files as package data (a ``saves`` folder in
site-packages next to ``creatures/``), so the same path is right for an editable install, a plain
``pip install .`` and a clone run from its root. The GIFs and pictures beside them are the
README's, not the program's, and are not installed.

A command that reads a champion file takes a shipped one by name, the file's name without
``.json`` (``creatures replay walker-run``), as it takes a built-in design by name; a file of
that name in the current directory comes first.
"""

from __future__ import annotations

from pathlib import Path

from evolution.champion import ChampionError
from evolution.yamlread import did_you_mean

__all__ = ["SAVES_DIR", "DEFAULT_SAVE", "shipped_names", "champion_path"]

#: the shipped champions' folder (the one place that says where it is)
SAVES_DIR = Path(__file__).resolve().parents[1] / "saves"
#: what ``creatures watch`` and ``creatures record`` play with no argument
DEFAULT_SAVE = "walker-run.json"


def shipped_names() -> list[str]:
    """The shipped champions' names (their files' names without ``.json``), sorted."""
    return sorted(p.stem for p in SAVES_DIR.glob("*.json"))


def champion_path(target: str) -> str:
    """``target`` as the path of a champion file or run directory: itself when it exists, else
    the shipped champion of that name. A name that is neither (no folder in it, no ``.json``)
    raises :class:`ChampionError` saying which champions are shipped, with the closest one; any
    other path is left for its reader to refuse."""
    path = Path(target)
    if path.exists() or not target:
        return target
    if path.name == target and path.suffix.lower() != ".json":
        shipped = SAVES_DIR / f"{target}.json"
        if shipped.is_file():
            return str(shipped)
        names = shipped_names()
        raise ChampionError(f"no such file, and no shipped champion of that name"
                            f"{did_you_mean(target, names)}; shipped: {', '.join(names) or 'none'}")
    return target

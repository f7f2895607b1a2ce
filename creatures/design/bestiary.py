"""The built-in designs: every ``creatures/designs/NAME.yaml`` shipped with the package."""

from __future__ import annotations

import re
from pathlib import Path

from evolution.yamlread import did_you_mean

from .loader import Design, DesignError, Problem, load_design

__all__ = ["DESIGN_DIR", "builtin_names", "design_error", "resolve_design"]

DESIGN_DIR = Path(__file__).resolve().parents[1] / "designs"
#: the name of a random creature (``creatures random``): creature N of seed S, grown anew from
#: its name wherever a design is asked for
RANDOM_NAME = re.compile(r"random-(\d{1,9})-0*([1-9]\d{0,5})")


def builtin_names() -> list[str]:
    """Names of the built-in designs, sorted."""
    return sorted(p.stem for p in DESIGN_DIR.glob("*.yaml"))


def resolve_design(name_or_path: str) -> Design:
    """A built-in design by name, a design file by path, or a random creature by its name
    (``random-S-N``: creature N of seed S, as ``creatures random`` writes it). Raises
    :class:`DesignError`."""
    if name_or_path in builtin_names():
        return load_design(DESIGN_DIR / f"{name_or_path}.yaml")
    path = Path(name_or_path)
    if path.suffix.lower() in (".yaml", ".yml") or path.exists():
        return load_design(path)
    match = RANDOM_NAME.fullmatch(name_or_path)
    if match:
        from .random_design import random_design
        try:
            return random_design(int(match[1]), int(match[2]) - 1)[0]
        except RuntimeError as exc:
            raise DesignError(name_or_path, [Problem(0, 0, str(exc))]) from None
    names = builtin_names()
    raise DesignError(name_or_path, [Problem(0, 0, f"no built-in design of that name and no such file"
                                                   f"{did_you_mean(name_or_path, names)} "
                                                   f"(built-in: {', '.join(names)}; or random-SEED-N, a random "
                                                   f"creature)")])


def design_error(command: str, exc: DesignError) -> str:
    """What ``creatures COMMAND`` prints for a design it cannot use: a file's problems as they
    are (``file:line:column: message``, like ``creatures validate``), else (no such design, an
    unreadable file) one line with the command's prefix."""
    if any(p.line > 0 for p in exc.problems):
        return str(exc)
    return "\n".join(f"creatures {command}: {line}" for line in str(exc).splitlines())

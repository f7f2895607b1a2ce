"""A design's looks: a colour on a sphere or a bone, an eye on a sphere. Physics never sees them
(they are not in the engine's body); the viewer, the editor, GIFs and cards draw them.

A colour is written as a name (:data:`NAMES`), as ``[red, green, blue]`` (0 to 255 each) or, in
quotes (YAML reads ``#`` as a comment), as ``"#rrggbb"``."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

__all__ = ["NAMES", "Looks", "parse_colour", "colour_text"]

#: the colours a design may name
NAMES = {
    "black": (24, 24, 28), "white": (245, 245, 245), "grey": (140, 140, 146), "gray": (140, 140, 146),
    "red": (214, 48, 40), "orange": (240, 140, 40), "yellow": (240, 210, 50), "green": (70, 160, 70),
    "teal": (40, 150, 150), "blue": (50, 100, 220), "purple": (130, 70, 180), "pink": (236, 120, 170),
    "brown": (140, 90, 50), "tan": (210, 180, 140), "olive": (128, 128, 40), "navy": (30, 40, 110),
}
_HEX = re.compile(r"#([0-9a-fA-F]{6})")


def parse_colour(value) -> tuple[int, int, int]:
    """``(r, g, b)`` of a colour as a design writes it (a name, three numbers 0-255, ``#rrggbb``).
    ValueError (one line, without the key's name) for anything else."""
    if isinstance(value, str):
        text = value.strip().lower()
        if text in NAMES:
            return NAMES[text]
        m = _HEX.fullmatch(text)
        if m:
            h = m.group(1)
            return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)
        if text.startswith("[") and text.endswith("]"):     # as colour_text writes three numbers
            try:
                return parse_colour([float(v) for v in text[1:-1].split(",")])
            except ValueError:
                pass
        raise ValueError(f"must be a colour: a name ({', '.join(sorted(set(NAMES) - {'gray'}))}), "
                         f"[red, green, blue] from 0 to 255 or \"#rrggbb\"; not '{value[:40]}'")
    if (isinstance(value, (list, tuple)) and len(value) == 3
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) and float(v).is_integer()
                    and 0 <= v <= 255 for v in value)):
        return tuple(int(v) for v in value)
    raise ValueError("must be a colour: [red, green, blue], three whole numbers from 0 to 255 (or a name, "
                     "or \"#rrggbb\")")


def colour_text(rgb) -> str:
    """A colour as a design writes it: its name if it has one, else ``[r, g, b]``."""
    rgb = tuple(int(v) for v in rgb)
    name = next((n for n, c in NAMES.items() if c == rgb and n != "gray"), None)
    return name or f"[{rgb[0]}, {rgb[1]}, {rgb[2]}]"


@dataclass(frozen=True)
class Looks:
    """What a design looks like: per sphere its colour (None: the viewer's) and whether it has
    an eye; per bone its colour (None: the viewer's)."""

    sphere_colour: tuple = ()
    bone_colour: tuple = ()
    eyes: tuple = ()

    def __bool__(self) -> bool:
        return any(c is not None for c in self.sphere_colour + self.bone_colour) or any(self.eyes)

    def arrays(self) -> dict:
        """The looks as ``render.scene.CreatureShape`` takes them (``sphere_color``,
        ``sphere_colored``, ``bone_color``, ``bone_colored``, ``eyes``); empty for a design
        without any."""
        if not self:
            return {}
        out = {}
        if any(c is not None for c in self.sphere_colour):
            out["sphere_color"] = np.array([c or (0, 0, 0) for c in self.sphere_colour], np.uint8).reshape(-1, 3)
            out["sphere_colored"] = np.array([c is not None for c in self.sphere_colour], bool)
        if any(c is not None for c in self.bone_colour):
            out["bone_color"] = np.array([c or (0, 0, 0) for c in self.bone_colour], np.uint8).reshape(-1, 3)
            out["bone_colored"] = np.array([c is not None for c in self.bone_colour], bool)
        if any(self.eyes):
            out["eyes"] = np.array(self.eyes, bool)
        return out

"""Text measured without laying it out: widths from the glyphs' advances (as arcade lays text
out), to cut and wrap text to fit a width; and two small helpers the screens share."""

from __future__ import annotations

from ._display import prefer_headless

prefer_headless()

import pyglet  # noqa: E402

__all__ = ["Fonts", "one_line", "inside", "FONT", "MONO"]

#: the fonts the screens write in (the first one installed)
FONT = ("DejaVu Sans", "Arial", "Helvetica")
MONO = ("DejaVu Sans Mono", "Courier New", "Courier")


def one_line(text) -> str:
    """The first non-blank line of ``text``."""
    return next((s.strip() for s in str(text).splitlines() if s.strip()), "")


def inside(rect, x: float, y: float) -> bool:
    l, b, w, h = rect
    return l <= x < l + w and b <= y < b + h


class Fonts:
    """Text widths (window units) from the glyphs' advances, as arcade lays the text out; for
    wrapping and cutting texts to fit, without laying them out."""

    #: fitted texts :meth:`fit_remembered` keeps (then it starts again)
    REMEMBERED = 2000

    def __init__(self):
        self._fonts = {}
        self._fitted = {}

    def width(self, text: str, size: float, bold: bool = False) -> float:
        font = self._fonts.get((size, bold))
        if font is None:
            font = pyglet.font.load(FONT, size, weight="bold" if bold else "normal")
            self._fonts[(size, bold)] = font
        glyphs = font.get_glyphs(text)
        if isinstance(glyphs, tuple):       # pyglet 2.1: (glyphs, positions)
            glyphs = glyphs[0]
        return float(sum(g.advance for g in glyphs))

    def fit(self, text: str, width: float, size: float, bold: bool = False) -> str:
        """``text``, or as much of it as fits ``width`` followed by an ellipsis."""
        if self.width(text, size, bold) <= width:
            return text
        lo, hi = 0, len(text)                  # the longest prefix that fits with the ellipsis
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.width(text[:mid].rstrip() + "\u2026", size, bold) <= width:
                lo = mid
            else:
                hi = mid - 1
        return text[:lo].rstrip() + "\u2026"

    def fit_remembered(self, text: str, width: float, size: float, smallest: float = 10.0) -> str:
        """:meth:`fit` in ``width`` rounded to a whole unit (at least ``smallest``), remembered:
        for the texts a screen fits again every frame."""
        key = (text, round(width), size)
        out = self._fitted.get(key)
        if out is None:
            if len(self._fitted) >= self.REMEMBERED:
                self._fitted.clear()
            out = self._fitted[key] = self.fit(text, max(round(width), smallest), size)
        return out

    def fit_tail(self, text: str, width: float, size: float) -> str:
        """The end of ``text`` that fits ``width``, after an ellipsis (a long path being typed)."""
        if self.width(text, size) <= width:
            return text
        lo, hi = 0, len(text)                  # the fewest characters to drop
        while lo < hi:
            mid = (lo + hi) // 2
            if self.width("\u2026" + text[mid:], size) <= width:
                hi = mid
            else:
                lo = mid + 1
        return "\u2026" + text[lo:]

    def wrap(self, text: str, width: float, size: float, lines: int) -> list[str]:
        """``text`` (its whitespace collapsed) in at most ``lines`` lines of ``width``; the last
        line ends with an ellipsis when the text goes on."""
        words = str(text).split()
        if lines <= 0 or not words:
            return []
        out, cur = [], ""
        for w in words:
            trial = f"{cur} {w}" if cur else w
            if cur and self.width(trial, size) > width:
                out.append(cur)
                cur = w
            else:
                cur = trial
        out.append(cur)
        if len(out) > lines:
            out = out[:lines - 1] + [self.fit(" ".join(out[lines - 1:]) + " \u2026", width, size)]
        return [self.fit(s, width, size) for s in out]

"""Where the editor's window puts things for its size (:class:`EditorLayout`): the toolbar and
its buttons (as wide as their labels, which shorten to fit), the side panel and its rows, the
status strip with the problems, and the canvas; and what a window point is on. It measures text
with :class:`CachedFonts` (no text is laid out) and draws nothing; the parts that draw the
interface set their texts with :func:`set_text`."""

from __future__ import annotations

from ._display import prefer_headless

prefer_headless()

from .text import Fonts, inside  # noqa: E402

__all__ = ["EditorLayout", "CachedFonts", "set_text", "TOOLS", "BUTTONS", "TOOLBAR", "PAD", "PANEL_WIDTH", "PANEL_FRACTION",
           "ROW", "PANEL_TITLE", "PANEL_FOOT", "STATUS", "PROBLEM_LINE", "MAX_PROBLEM_LINES"]

TOOLBAR = 36                    # the toolbar's height
PAD = 8
PANEL_WIDTH = (210, 330)        # the side panel: PANEL_FRACTION of the width, within these
PANEL_FRACTION = 0.25
ROW = 22                        # a panel row
PANEL_TITLE = 34                # the panel's title above the rows
PANEL_FOOT = 86                 # under the rows: the hint and an error
STATUS = 20                     # the status line
PROBLEM_LINE = 16               # a line of the problems list
MAX_PROBLEM_LINES = 5

#: the tools (:attr:`EditorView.tool`)
TOOLS = ("select", "sphere", "bone", "muscle", "joint", "cluster")
#: names of :meth:`EditorView.button_rect`, left to right
BUTTONS = TOOLS + ("delete", "undo", "redo", "snap", "mirror", "flip", "duplicate", "ground", "save", "test", "evolve",
                   "help")
_BUTTON_KEYS = {"select": "V", "sphere": "S", "bone": "B", "muscle": "M", "joint": "J", "cluster": "C",
                "delete": "DEL", "undo": "^Z", "redo": "^Y", "snap": "G", "mirror": "N", "flip": "X",
                "duplicate": "^D", "ground": "^G", "save": "^S", "test": "T", "evolve": "E", "help": "H"}
_GROUP_ENDS = ("cluster", "redo", "ground")    # a wider gap after these buttons


def set_text(t, text: str) -> None:
    """``t.text = text``, only when it changes (laying a text out again is not free)."""
    if t.text != text:
        t.text = text


class CachedFonts(Fonts):
    """:class:`render.text.Fonts` remembering what it fitted and wrapped: the panel is laid out
    again after every edit (a dragged sphere's new position), mostly with the same strings."""

    LIMIT = 4000

    def __init__(self):
        super().__init__()
        self._memo = {}

    def _remember(self, key, make):
        out = self._memo.get(key)
        if out is None:
            if len(self._memo) > self.LIMIT:
                self._memo.clear()
            out = self._memo[key] = make()
        return out

    def width(self, text: str, size: float, bold: bool = False) -> float:
        return self._remember(("w", text, size, bold), lambda: Fonts.width(self, text, size, bold))

    def fit(self, text: str, width: float, size: float, bold: bool = False) -> str:
        return self._remember(("f", text, width, size, bold), lambda: Fonts.fit(self, text, width, size, bold))

    def wrap(self, text: str, width: float, size: float, lines: int) -> list[str]:
        return list(self._remember(("l", text, width, size, lines),
                                   lambda: tuple(Fonts.wrap(self, text, width, size, lines))))


class EditorLayout:
    """The editor's boxes for one size, each (left, bottom, width, height) in window units.

    Attributes
    ----------
    size : (int, int) or None
        The size laid out (None: not yet); what the interface's parts cache includes it.
    fonts : CachedFonts
        What the editor measures its text with.
    toolbar, panel, strip, canvas : tuple
        The toolbar (top), the side panel (right, under the toolbar), the status strip (bottom
        left: the status line and the problems) and the canvas (the rest).
    buttons : dict of str -> tuple
        Each of :data:`BUTTONS`.
    labels : dict of str -> str
        Each button's label, as long as the width allows (``sphere (S)``, ``sphere`` or ``S``),
        in text of ``label_size`` points.
    problem_slots : int
        Lines of the problems list.
    rows_top : float
        Where the panel's first row starts (its top).
    visible_rows : int
        Panel rows that fit (the others are scrolled to).
    """

    def __init__(self):
        self.size = None
        self.fonts = CachedFonts()

    def update(self, size) -> bool:
        """Lay out for ``size`` (window units); returns whether anything moved."""
        key = tuple(size)
        if key == self.size:
            return False
        self.size = key
        w, h = size
        pw = int(min(max(round(PANEL_FRACTION * w), PANEL_WIDTH[0]), PANEL_WIDTH[1]))
        pw = min(pw, max(w // 2, 120))
        top = h - TOOLBAR
        self.toolbar = (0, top, w, TOOLBAR)
        self.panel = (w - pw, 0, pw, top)
        lines = int(min(MAX_PROBLEM_LINES, max(3, (h - 240) // 80 + 2)))
        self.problem_slots = lines
        strip_h = 6 + STATUS + lines * PROBLEM_LINE + 6
        self.strip = (0, 0, w - pw, strip_h)
        self.canvas = (0, strip_h, w - pw, max(top - strip_h, 20))
        self.rows_top = top - PANEL_TITLE
        self.visible_rows = int(max(1, (self.rows_top - PANEL_FOOT) // ROW))
        self._layout_toolbar(w)
        return True

    def _layout_toolbar(self, w: int) -> None:
        """Buttons left to right, as wide as their labels; labels shorten to fit the width."""
        fonts = self.fonts
        for variant, size in ((0, 10), (1, 10), (1, 9), (1, 8), (2, 8)):
            labels = {}
            for name in BUTTONS:
                label = {"help": "keys"}.get(name, name)
                labels[name] = (f"{label} ({_BUTTON_KEYS[name]})" if variant == 0
                                else label if variant == 1 else _BUTTON_KEYS[name])
            pad = 14 if size >= 9 else 10
            widths = {n: fonts.width(labels[n], size) + pad for n in BUTTONS}
            gap, group = (4, 12) if size >= 9 else (3, 6)
            total = sum(widths.values()) + gap * (len(BUTTONS) - 1) + (group - gap) * len(_GROUP_ENDS)
            if total <= w - 2 * PAD:
                break
        self.buttons = {}
        self.labels = labels
        self.label_size = size
        x = PAD
        y = self.toolbar[1] + 5
        for name in BUTTONS:
            self.buttons[name] = (x, y, widths[name], TOOLBAR - 10)
            x += widths[name] + (group if name in _GROUP_ENDS else gap)

    def button_rect(self, name: str) -> tuple[float, float, float, float]:
        if name not in self.buttons:
            raise KeyError(f"no button {name!r}; there are {', '.join(BUTTONS)}")
        return self.buttons[name]

    def field_rect(self, i: int, scroll: int) -> tuple[float, float, float, float]:
        """Panel row ``i`` with the panel scrolled by ``scroll`` rows."""
        px, pb, pw, ph = self.panel
        top = self.rows_top - (i - scroll) * ROW
        return (px + 4, top - ROW + 1, pw - 8, ROW - 2)

    def problem_rect(self, i: int) -> tuple[float, float, float, float]:
        """Line ``i`` of the problems list."""
        l, b, w, h = self.strip
        top = b + h - 4 - STATUS - i * PROBLEM_LINE
        return (l + PAD, top - PROBLEM_LINE, w - 2 * PAD, PROBLEM_LINE)

    def value_x(self) -> float:
        """Where the panel's values start."""
        px, _, pw, _ = self.panel
        return px + round(0.46 * pw)

    def shown_rows(self, scroll: int, n: int) -> range:
        """The panel rows shown of ``n``, the panel scrolled by ``scroll`` rows."""
        return range(scroll, min(n, scroll + self.visible_rows))

    def target(self, x: float, y: float, live: bool, scroll: int, rows: int, problems: int):
        """What window point ``(x, y)`` is on: ``("button", name)``, ``("row", i)``,
        ``("problem", i)``, ``("panel", None)``, ``("strip", None)``, ``("canvas", None)``; the
        panel has ``rows`` rows scrolled by ``scroll``, the strip ``problems`` problem lines.
        During the live test (``live``) the toolbar has the only targets."""
        for name, rect in self.buttons.items():
            if inside(rect, x, y):
                return ("button", name)
        if inside(self.toolbar, x, y):
            return ("toolbar", None)
        if live:
            return ("canvas", None)
        if inside(self.panel, x, y):
            for i in self.shown_rows(scroll, rows):
                if inside(self.field_rect(i, scroll), x, y):
                    return ("row", i)
            return ("panel", None)
        if inside(self.strip, x, y):
            for i in range(problems):
                if inside(self.problem_rect(i), x, y):
                    return ("problem", i)
            return ("strip", None)
        return ("canvas", None)

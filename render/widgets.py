"""The pieces of interface the screens share: labelled buttons (:class:`Buttons`), used by the
evolution screen's row of buttons (``render.play``), the editor's toolbar (``render.editor_bars``)
and the start screen's header, settings, Start and file-entry buttons (``render.menu_picture``);
and the one-line text entry (:class:`TextEntry`), used by the start screen's file entry
(``render.menu``) and the editor's side panel (``render.editor_panel``).

A button is a rectangle in window units and a label centred on it. The screen keeps what differs
between screens: where the buttons go, their colours and what lights them, and the drawing of
their backs, which it does itself with its other boxes in one call (:meth:`Buttons.backs` gives
the rectangles and their colours). The labels are texts made once in the screen's batch and
changed only where they differ (setting a text's property lays it out again), never per frame.

A text entry is only what is typed: the screen draws it (:attr:`TextEntry.shown` is the line to
show) and decides what ENTER and ESC do, as it submits or cancels in its own way.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from ._display import prefer_headless

prefer_headless()

import arcade  # noqa: E402

from .text import FONT, inside  # noqa: E402

__all__ = ["Buttons", "TextEntry", "Toast", "CARET"]

#: drawn after the text being typed (unless the first key typed will replace it)
CARET = "|"


class Buttons(Mapping):
    """Buttons by name, each a rectangle ``(left, bottom, width, height)`` in window units with
    a label (an ``arcade.Text``) centred on it.

    As a mapping it holds the buttons placed (:meth:`place`), name to rectangle, in the order
    they were first placed: ``buttons["start"]``, ``name in buttons``, ``buttons.items()``. A
    screen lays its buttons out again by :meth:`clear`, :meth:`place` for each, then
    :meth:`hide_unplaced`; it asks which button is under the mouse with :meth:`at`, and draws
    their backs itself from :meth:`backs`. A button placed without a label is a rectangle only
    (the screen draws what is on it).

    Parameters
    ----------
    batch : pyglet.graphics.Batch
        Where the labels are made (the screen draws it).
    color : (r, g, b, a)
        The labels' colour when made (:meth:`set_color` changes one).
    size : float
        The labels' font size when made, unless :meth:`label` gives one.
    whole : callable, optional
        How a label's centre is made a whole number of units (``round``, ``math.floor``), as
        each screen has always drawn its labels; None: the exact centre of the rectangle.

    Attributes
    ----------
    texts : dict of str -> arcade.Text
        Every label made, of the buttons placed or not.
    """

    def __init__(self, batch, color, size: float = 10, whole=None):
        self.batch = batch
        self.color = tuple(color)
        self.size = size
        self.whole = whole
        self.texts: dict[str, arcade.Text] = {}
        self._rects: dict = {}
        self._colors: dict = {}

    # the buttons placed, as a mapping ------------------------------------------------------------
    def __getitem__(self, name: str):
        return self._rects[name]

    def __iter__(self):
        return iter(self._rects)

    def __len__(self) -> int:
        return len(self._rects)

    # labels and places ---------------------------------------------------------------------------
    def label(self, name: str, text: str, size: float | None = None, bold: bool | None = None) -> arcade.Text:
        """Button ``name``'s label, saying ``text``: made the first time (in ``size`` points,
        bold or not; by default :attr:`size`, not bold), afterwards changed only where it
        differs (``size`` and ``bold`` None: as they are). Its ``content_width`` is how wide the
        text is."""
        t = self.texts.get(name)
        if t is None:
            t = self.texts[name] = arcade.Text(text, 0, 0, self.color, self.size if size is None else size,
                                               font_name=FONT, bold=bool(bold), anchor_x="center",
                                               anchor_y="center", batch=self.batch)
            self._colors[name] = self.color
            return t
        if t.text != text:
            t.text = text
        if size is not None and t.font_size != size:
            t.font_size = size
        if bold is not None and t.bold != bool(bold):
            t.bold = bold
        return t

    def place(self, name: str, rect, text: str | None = None, size: float | None = None,
              bold: bool | None = None) -> None:
        """Put button ``name`` at ``rect`` (left, bottom, width, height); its label (made or
        changed by :meth:`label` when ``text`` is given) is centred on it and shown, moved only
        when it moves."""
        self._rects[name] = rect
        t = self.label(name, text, size, bold) if text is not None else self.texts.get(name)
        if t is None:
            return
        l, b, w, h = rect
        x, y = l + w / 2, b + h / 2
        if self.whole is not None:
            x, y = self.whole(x), self.whole(y)
        if (t.x, t.y) != (x, y):
            t.position = (x, y)
        if not t.visible:
            t.visible = True

    def clear(self) -> None:
        """Forget where the buttons are, before placing them again; their labels stay as they
        are until :meth:`hide_unplaced`."""
        self._rects = {}

    def hide_unplaced(self) -> None:
        """Hide the labels of the buttons not placed since :meth:`clear`."""
        for name, t in self.texts.items():
            if name not in self._rects and t.visible:
                t.visible = False

    def set_color(self, name: str, color) -> None:
        """The colour of button ``name``'s label, set only when it changes."""
        color = tuple(color)
        if self._colors.get(name) != color:
            self._colors[name] = color
            self.texts[name].color = color

    # what the screen asks --------------------------------------------------------------------------
    def at(self, x: float, y: float) -> str | None:
        """The name of the placed button at window point ``(x, y)`` (the first placed, should
        two overlap), or None."""
        for name, rect in self._rects.items():
            if inside(rect, x, y):
                return name
        return None

    def backs(self, boxes: list, colors: list, color) -> None:
        """Add each placed button's rectangle to ``boxes`` and the colour of its back,
        ``color(name)``, to ``colors``, in the order placed: for the screen's own
        ``render._gl.rects`` call, with its other boxes."""
        for name, rect in self._rects.items():
            boxes.append(rect)
            colors.append(color(name))


class TextEntry:
    """What is typed into a one-line text entry: the text, closed (None) or open, and the keys
    that change it. The screen hands it the window's ``on_text`` (:meth:`type`) and BACKSPACE
    (:meth:`backspace`), and does what ENTER and ESC do itself (reading :attr:`text`, then
    :meth:`close`).

    Parameters
    ----------
    limit : int, optional
        The most characters typed text may have (what is typed beyond it is dropped); None: no
        limit. A value opened with is kept whole.
    accept : callable, optional
        Whether a typed character is taken (``accept(c)``); by default printable ones only
        (``str.isprintable``), so the control characters of ENTER, TAB or BACKSPACE are dropped.

    Attributes
    ----------
    text : str or None
        The text being typed; None while the entry is closed.
    fresh : bool
        The first text typed (or BACKSPACE) replaces :attr:`text` (a value shown to be changed).
    skip_seconds : float
        How soon after :meth:`open` the text of the key that opened the entry comes (``skip``).
    """

    skip_seconds = 0.3

    def __init__(self, limit: int | None = None, accept=str.isprintable):
        self.limit = limit
        self.accept = accept
        self.text: str | None = None
        self.fresh = False
        self._skip = None               # (texts, time): the opening key's own text, which follows it

    @property
    def is_open(self) -> bool:
        """Whether the entry is open (:attr:`text` is not None)."""
        return self.text is not None

    @property
    def shown(self) -> str:
        """The line to draw: the text with :data:`CARET` after it (none while it is fresh)."""
        return (self.text or "") + ("" if self.fresh else CARET)

    def open(self, value: str = "", fresh: bool = False, skip=()) -> None:
        """Open the entry with ``value``; ``fresh``: the first text typed replaces it. ``skip``:
        the texts of the key that opened it (``("o", "O")``), whose own text follows the key
        press: the first text typed, if it is one of them and comes within
        :attr:`skip_seconds`, is not typed."""
        self.text = str(value)
        self.fresh = bool(fresh)
        self._skip = (tuple(skip), time.monotonic()) if skip else None

    def close(self) -> None:
        """Close the entry (:attr:`text` None)."""
        self.text = None
        self.fresh = False
        self._skip = None

    def type(self, text: str) -> bool:
        """Type ``text`` (the window's ``on_text``): its accepted characters are added, replacing
        the text if it is fresh, up to the limit. Nothing happens while the entry is closed.
        Returns whether the text changed."""
        if self.text is None:
            return False
        skip, self._skip = self._skip, None
        if skip is not None and text in skip[0] and time.monotonic() - skip[1] < self.skip_seconds:
            return False
        typed = "".join(c for c in text if self.accept(c))
        if not typed:
            return False
        if self.fresh:
            self.text = ""
            self.fresh = False
        if self.limit is not None:
            typed = typed[:max(0, self.limit - len(self.text))]
            if not typed:
                return False
        self.text += typed
        return True

    def backspace(self) -> None:
        """BACKSPACE: the last character goes (all of a fresh text)."""
        if self.text is None:
            return
        self.text = "" if self.fresh else self.text[:-1]
        self.fresh = False


class Toast:
    """A message shown for a while: what was said, when, and whether it is an error. Each screen
    draws it its own way (the evolution screen on its status lines, the editor in a box over its
    canvas); this holds the saying and the expiring.

    Parameters
    ----------
    seconds : float
        How long a message is shown.
    errors_stay : bool
        An error stays until something else is said (the editor's); else it expires as well.
    clock : callable
        The clock ``shown_at`` is read on.

    Attributes
    ----------
    text : str or None
        What was said last (None: nothing, or cleared).
    error : bool
        Whether it is an error.
    shown_at : float
        When it was said, on ``clock``.
    """

    def __init__(self, seconds: float, errors_stay: bool = False, clock=time.monotonic):
        self.seconds = seconds
        self.errors_stay = errors_stay
        self.clock = clock
        self.text: str | None = None
        self.error = False
        self.shown_at = 0.0

    def say(self, text, error: bool = False) -> None:
        """Show ``text`` from now on (None clears it)."""
        self.text = None if text is None else str(text)
        self.error = bool(error) and text is not None
        self.shown_at = self.clock()

    def expired(self) -> bool:
        """Whether there is a message shown for longer than :attr:`seconds` (an error that
        stays never expires)."""
        return bool(self.text and not (self.error and self.errors_stay)
                    and self.clock() - self.shown_at > self.seconds)

    def current(self) -> str:
        """The message while it is shown, else ""."""
        return "" if not self.text or self.expired() else self.text

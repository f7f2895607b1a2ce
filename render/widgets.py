"""The pieces of interface the screens share (:class:`Buttons`): labelled buttons, used by the
evolution screen's row of buttons (``render.play``), the editor's toolbar (``render.editor_bars``)
and the start screen's header, settings, Start and file-entry buttons (``render.menu_picture``).

A button is a rectangle in window units and a label centred on it. The screen keeps what differs
between screens: where the buttons go, their colours and what lights them, and the drawing of
their backs, which it does itself with its other boxes in one call (:meth:`Buttons.backs` gives
the rectangles and their colours). The labels are texts made once in the screen's batch and
changed only where they differ (setting a text's property lays it out again), never per frame.
"""

from __future__ import annotations

from collections.abc import Mapping

from ._display import prefer_headless

prefer_headless()

import arcade  # noqa: E402

from .text import FONT, inside  # noqa: E402

__all__ = ["Buttons"]


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

"""Boxes drawn over a screen: the keys' help (H) and a message box, each laid out where there is
room (:mod:`render.layout`) so that it covers nothing else the screen draws.

:class:`KeyHelp` is the help of the viewer, the start screen and the editor: a dark box with a
title and two columns (the keys right-aligned in gold, what they do beside them), framed so that
it stands out even over a panel of its own colour. It is laid out in an area, beside the boxes it
must not cover: with the largest text (and the roomiest rows) that fits, smaller when the room is
small. :class:`MessageBox` is a few lines of monospaced text (a design's problems, say) in a dark
red box, wrapped to the room there is.

Both are laid out only when what they show or where they go changes (text layout is what costs,
~0.15 ms a text on a software renderer), and drawn in screen units by whatever camera is in use.
"""

from __future__ import annotations

from ._display import prefer_headless

prefer_headless()

import arcade  # noqa: E402
import pyglet  # noqa: E402

from ._gl import Triangles, rects  # noqa: E402
from .layout import place  # noqa: E402
from .text import FONT, MONO, Fonts  # noqa: E402

__all__ = ["KeyHelp", "MessageBox", "HELP_BACK", "HELP_FRAME", "KEY_TEXT", "MESSAGE_BACK"]

HELP_BACK = (24, 28, 36, 240)
HELP_FRAME = (128, 140, 166, 255)      # a line around it: it never merges into a panel behind it
HELP_TEXT = (232, 236, 244, 255)
KEY_TEXT = (255, 214, 120, 255)
MESSAGE_BACK = (60, 16, 16, 235)
MESSAGE_TEXT = (255, 236, 230, 255)
#: text sizes the help tries, largest first
SIZES = (11, 10, 9, 8, 7)
#: smaller text than this is not worth keeping clear of the other boxes: the help goes over them
MIN_CLEAR = 8
PAD = 16                # inside the help's box, left and right
COLUMN_GAP = 14         # between the keys and what they do


class KeyHelp:
    """The keys' help box.

    Parameters
    ----------
    ctx : arcade.ArcadeContext
    keys : sequence of (str, str)
        ``(keys, what they do)``, one row each.
    size : int
        The largest text size (points); smaller ones are tried when it does not fit.
    title : str

    Attributes
    ----------
    texts : list of arcade.Text
        The title, then each row's keys and what they do.
    rect : (float, float, float, float)
        Where the box is (left, bottom, width, height), as :meth:`layout` last placed it.
    size : int
        The text size it was laid out with.
    clear : bool
        Whether the last layout kept clear of every box it was asked to (False: there was no
        room beside them, and it is drawn over them).
    """

    def __init__(self, ctx, keys, size: int = 11, title: str = "keys"):
        self.keys = tuple((str(k), str(w)) for k, w in keys)
        self.largest = int(size)
        self.batch = pyglet.graphics.Batch()
        self.texts = [arcade.Text(title, 0, 0, HELP_TEXT, size + 2, font_name=FONT, bold=True,
                                  anchor_y="top", batch=self.batch)]
        for k, what in self.keys:
            self.texts.append(arcade.Text(k, 0, 0, KEY_TEXT, size, font_name=FONT, bold=True,
                                          anchor_x="right", anchor_y="top", batch=self.batch))
            self.texts.append(arcade.Text(what, 0, 0, HELP_TEXT, size, font_name=FONT, anchor_y="top",
                                          batch=self.batch))
        self._box = Triangles(ctx)
        self._fonts = Fonts()
        self._key = None
        self.rect = (0.0, 0.0, 0.0, 0.0)
        self.size = size
        self.clear = True

    def _widths(self, size: int) -> tuple[float, float]:
        f = self._fonts
        keys = max((f.width(k, size, True) for k, _ in self.keys), default=0.0)
        whats = max((f.width(w, size) for _, w in self.keys), default=0.0)
        return keys, max(whats, f.width(self.texts[0].text, size + 2, True) - keys - COLUMN_GAP)

    @staticmethod
    def _title_height(size: int) -> float:
        return round(2.2 * size + 18)

    def box_size(self, size: int, step: float) -> tuple[float, float]:
        """(width, height) of the box with text of ``size`` and rows ``step`` apart."""
        keys, whats = self._widths(size)
        return (PAD + keys + COLUMN_GAP + whats + PAD,
                self._title_height(size) + step * len(self.keys) + 6)

    def layout(self, area, obstacles=()) -> tuple:
        """Place the box in ``area`` clear of ``obstacles`` (rectangles), as near its centre as
        the room allows: the largest text and roomiest rows that fit; if nothing fits beside
        the obstacles with text of :data:`MIN_CLEAR` points or more, over them (:attr:`clear`
        False), in the area. Returns :attr:`rect`."""
        area, obstacles = tuple(area), tuple(tuple(o) for o in obstacles)
        key = (area, obstacles)
        if key == self._key:
            return self.rect
        self._key = key
        centre = (area[0] + area[2] / 2, area[1] + area[3] / 2)
        sizes = [s for s in SIZES if s <= self.largest] or [SIZES[-1]]
        found = None
        for avoid in (obstacles, ()):
            for size in (sizes if not avoid else [s for s in sizes if s >= MIN_CLEAR] or sizes[:1]):
                for extra in (9, 6, 4):            # rows: roomy, then closer together
                    spot = place(self.box_size(size, size + extra), area, avoid, want=centre, gap=6)
                    if spot is not None:
                        found = (spot, size, size + extra, bool(avoid) or not obstacles)
                        break
                if found:
                    break
            if found:
                break
        if found is None:          # smaller than the smallest box: as much of it as fits
            size, step = sizes[-1], sizes[-1] + 4
            w, h = self.box_size(size, step)
            found = ((area[0], area[1] + area[3] - min(h, area[3]), w, min(h, area[3])), size, step, False)
        (left, bottom, w, h), size, step, clear = found
        self.rect, self.size, self.clear = (left, bottom, w, h), size, clear
        self._arrange(size, step)
        return self.rect

    def _arrange(self, size: int, step: float) -> None:
        left, bottom, w, h = self.rect
        top = bottom + h
        keys_w, _ = self._widths(size)
        title = self.texts[0]
        if title.font_size != size + 2:
            title.font_size = size + 2
        title.position = (round(left + PAD), round(top - 10))
        y0 = top - self._title_height(size)
        for r in range(len(self.keys)):
            k, what = self.texts[1 + 2 * r], self.texts[2 + 2 * r]
            for t in (k, what):
                if t.font_size != size:
                    t.font_size = size
            y = round(y0 - step * r)
            k.position = (round(left + PAD + keys_w), y)
            what.position = (round(left + PAD + keys_w + COLUMN_GAP), y)
        frame = [(left - 1, bottom - 1, w + 2, 1), (left - 1, top, w + 2, 1),
                 (left - 1, bottom, 1, h), (left + w, bottom, 1, h)]
        self._box.set(rects([self.rect] + frame, [HELP_BACK] + [HELP_FRAME] * 4))

    def draw(self) -> None:
        """Draw the box where :meth:`layout` put it."""
        self._box.draw()
        self.batch.draw()


class MessageBox:
    """Lines of monospaced text in a dark red box (a source's message: why a design does not
    load, with line and column), wrapped to the room there is.

    Attributes
    ----------
    rect : (float, float, float, float) or None
        Where the box is (None: no message).
    clear : bool
        Whether it keeps clear of the boxes it was asked to.
    """

    def __init__(self, ctx, size: int = 12, max_width: int = 900):
        self.batch = pyglet.graphics.Batch()
        self.text = arcade.Text("", 0, 0, MESSAGE_TEXT, size, font_name=MONO, multiline=True, width=max_width,
                                anchor_y="top", batch=self.batch)
        self.max_width = max_width
        self._box = Triangles(ctx)
        self._key = None
        self.rect = None
        self.clear = True

    def layout(self, message: str | None, area, obstacles=(), want=None) -> tuple | None:
        """Place ``message`` in ``area`` clear of ``obstacles``, its top centre as near ``want``
        (a point; by default the area's top centre) as the room allows: as wide as it may be (at
        most ``max_width``), narrower (more lines) where only a narrower room is free. Returns
        :attr:`rect`."""
        area, obstacles = tuple(area), tuple(tuple(o) for o in obstacles)
        key = (message, area, obstacles, want)
        if key == self._key:
            return self.rect
        self._key = key
        if not message:
            self.rect = None
            return None
        t = self.text
        if t.text != str(message):
            t.text = str(message)
        widest = int(min(area[2] - 28, self.max_width))
        widths = sorted({max(120, widest)} | {max(120, int(w)) for w in
                                               (widest * 0.75, widest * 0.55, widest * 0.4)}, reverse=True)
        found = None
        for avoid in (obstacles, ()):
            for width in widths:
                if t.width != width:
                    t.width = width
                size = (min(t.content_width, width) + 28, t.content_height + 24)
                top = want if want is not None else (area[0] + area[2] / 2, area[1] + area[3])
                spot = place(size, area, avoid, want=(top[0], top[1] - size[1] / 2), gap=6)
                if spot is not None:
                    found = spot
                    break
            if found:
                break
        if found is None:
            w, h = min(t.content_width, t.width) + 28, t.content_height + 24
            found = (area[0], area[1] + area[3] - h, w, h)
        self.clear = avoid == obstacles or not obstacles
        self.rect = found
        left, bottom, w, h = found
        t.position = (round(left + 14), round(bottom + h - 12))
        self._box.set(rects([found], MESSAGE_BACK))
        return found

    def draw(self) -> None:
        if self.rect is not None:
            self._box.draw()
            self.batch.draw()


"""The hall of fame of ``creatures play``: a folder of entries as a verified board for a challenge.

:class:`HallView` is an ``arcade.View`` around a :class:`~render.game.Hall` (built by the
``creatures`` package). It shows one board at a time:

- the header: the challenge (``<`` ``>`` or C / SHIFT+C step through ``hall.challenges``), its
  rules in one line and what its score measures, and the folder of entries (F types another);
- the board: each verified entry ranked, best first (rank, score, name, author, generation, its
  champion's hash, the file), then the refused ones in grey with the one line that says why.
  UP / DOWN (or a click) select a row, SPACE (or a click on its mark) chooses it for a race;
- the buttons: **Watch** (ENTER, or a double click: the selected entry alone), **Race** (R: the
  chosen entries, or the top five, as ghosts, with the player's own champion when there is
  one), **Back** (ESC).

Watching, the viewer fills the window (its keys work as in ``creatures watch``); ESC or the
Back button return to the board. A board is verified (every entry simulated again) when it is
first shown and when the challenge or the folder changes: the screen says so, draws once, then
verifies. Nothing here steps physics: the hall hands over the sources.
"""

from __future__ import annotations

import os
import time

from ._display import prefer_headless

prefer_headless()

import arcade  # noqa: E402
import pyglet  # noqa: E402
from arcade.camera import Camera2D  # noqa: E402
from arcade.types import LBWH  # noqa: E402

from ._gl import Triangles, rects  # noqa: E402
from .game import GameError  # noqa: E402
from .text import FONT, Fonts, inside  # noqa: E402
from .textpool import TextPool  # noqa: E402
from .theme import PANEL_BACK  # noqa: E402
from .widgets import Buttons, TextEntry, Toast  # noqa: E402

__all__ = ["HallView", "HALL_KEYS", "RACE_TOP"]

#: the mark of an entry chosen for a race, and of one that may be
CHOSEN_MARK, FREE_MARK = "\u25cf", "\u25cb"
#: how many of the best race when none is chosen
RACE_TOP = 5
#: at most this many race at once
MAX_RACE = 16
MESSAGE_SECONDS = 8.0
DOUBLE_CLICK = 0.4
BACK = (236, 240, 246)
ROW_SELECTED = (200, 222, 250, 255)
ROW_STRIPE = (226, 231, 239, 255)
BUTTON = (46, 54, 70, 230)
BUTTON_OFF = (46, 54, 70, 110)
BUTTON_TEXT = (240, 242, 248, 255)
TEXT = (22, 26, 34, 255)
DIM = (92, 100, 116, 255)
REFUSED = (150, 70, 60, 255)
CHOSEN = (214, 120, 36, 255)
PAD, ROW, BUTTON_HEIGHT, HEAD = 16, 22, 28, 112

#: (keys, what they do): the help line and the README
HALL_KEYS = (
    ("UP / DOWN, HOME / END, click", "select an entry"),
    ("SPACE, click the mark", "choose it for a race"),
    ("ENTER, double-click", "watch the selected entry"),
    ("R", "race the chosen entries (or the top five) and your champion, as ghosts"),
    ("C / SHIFT+C", "next / previous challenge"),
    ("F", "another folder of entries (ENTER opens it, ESC cancels)"),
    ("ESC", "back to the board / back"),
)
#: the board's columns: (title, width in window units, right-aligned)
COLUMNS = (("", 22, False), ("rank", 44, True), ("score", 96, True), ("name", 230, False), ("author", 130, False),
           ("gen", 48, True), ("champion", 120, False), ("file", 0, False))


class HallView(arcade.View):
    """The hall of fame (see the module docstring).

    Parameters
    ----------
    hall : render.game.Hall
    on_back : callable
        Called when the player leaves the board (ESC, Back).
    window : arcade.Window, optional

    Attributes
    ----------
    board : render.game.Board or None
        The board shown (None until it is verified).
    challenge : int
        Index of the challenge in ``hall.challenges``.
    folder : str
    selected : int
        The selected row of ``board.entries``.
    chosen : set of str
        The files chosen for a race.
    viewer : render.viewer.Viewer or None
        Plays an entry (or a race) while watching; None on the board.
    pending : bool
        The board is to be verified after the next frame (the screen says so first).
    """

    def __init__(self, hall, on_back, window=None):
        super().__init__(window)
        self.hall = hall
        self.on_back = on_back
        self.challenge = 0
        self.folder = str(hall.folder)
        self.board = None
        self.selected = 0
        self.chosen: set[str] = set()
        self.viewer = None
        self.pending = True
        self._said = False
        self.entry = TextEntry(limit=1000)
        self.toast = Toast(MESSAGE_SECONDS)
        self._last_click = (None, -1.0)
        self._batch = pyglet.graphics.Batch()
        self._boxes = Triangles(self.window.ctx)
        self._camera = Camera2D(window=self.window)
        self._fonts = Fonts()
        self.buttons = Buttons(self._batch, BUTTON_TEXT, 11, whole=round)
        self._title = arcade.Text("", 0, 0, TEXT, 16, font_name=FONT, bold=True, batch=self._batch, anchor_y="top")
        self._lines = TextPool(self._batch, color=DIM, font_size=10, font_name=FONT, anchor_y="top")
        self._cells = TextPool(self._batch, color=TEXT, font_size=10, font_name=FONT, anchor_y="center")
        self._cell_colors: list = []
        self.row_rects: list = []
        self._watch_batch = pyglet.graphics.Batch()
        self._watch_buttons = Buttons(self._watch_batch, BUTTON_TEXT, 11, whole=round)

    # --- what is shown ----------------------------------------------------------------------------
    @property
    def challenge_name(self) -> str:
        return self.hall.challenges[self.challenge].name if self.hall.challenges else ""

    def verify(self) -> None:
        """Verify the board of the challenge and folder shown now (``hall.board``)."""
        self.pending = False
        try:
            self.board = self.hall.board(self.challenge_name, self.folder)
        except GameError as exc:
            self.board = None
            self.say(str(exc))
            return
        self.selected = min(self.selected, max(len(self.board.entries) - 1, 0))
        files = {e.file for e in self.board.entries if e.rank}
        self.chosen &= files

    def cycle_challenge(self, step: int) -> None:
        if self.hall.challenges:
            self.challenge = (self.challenge + step) % len(self.hall.challenges)
            self.chosen.clear()
            self.pending = True

    def set_folder(self, folder: str) -> None:
        self.folder = folder.strip() or "."
        self.chosen.clear()
        self.selected = 0
        self.pending = True

    def select(self, index: int) -> None:
        if self.board and self.board.entries:
            self.selected = int(min(max(index, 0), len(self.board.entries) - 1))

    def toggle_chosen(self, index: int | None = None) -> None:
        """Choose the entry (or un-choose it) for a race; a refused one cannot race."""
        entry = self._entry(self.selected if index is None else index)
        if entry is None:
            return
        if not entry.rank:
            self.say(f"{entry.file} is refused: it cannot race")
        elif entry.file in self.chosen:
            self.chosen.discard(entry.file)
        elif len(self.chosen) >= MAX_RACE:
            self.say(f"at most {MAX_RACE} race at once")
        else:
            self.chosen.add(entry.file)

    def _entry(self, index: int):
        if not self.board or not 0 <= index < len(self.board.entries):
            return None
        return self.board.entries[index]

    def watch(self) -> bool:
        """Watch the selected entry alone."""
        entry = self._entry(self.selected)
        if entry is None:
            self.say("no entry to watch: this folder holds none")
            return False
        return self._play([entry.file], mine=False)

    def race(self) -> bool:
        """Race the chosen entries (or the top :data:`RACE_TOP`) and the player's champion."""
        ranked = [e.file for e in (self.board.entries if self.board else ()) if e.rank]
        files = [f for f in ranked if f in self.chosen] or ranked[:RACE_TOP]
        if not files:
            self.say("no verified entry to race")
            return False
        return self._play(files, mine=self.hall.mine is not None)

    def _play(self, files, mine: bool) -> bool:
        from .viewer import Viewer
        try:
            source = self.hall.watch(list(files), mine=mine)
        except GameError as exc:
            self.say(str(exc))
            return False
        self.viewer = Viewer(source, window=self.window, close_on_quit=False, poll_interval=None, hint=False)
        self.viewer.on_resize(*self.window.get_size())
        return True

    def back(self) -> None:
        """From watching to the board; from the board, ``on_back()``."""
        if self.viewer is not None:
            self.viewer = None
            return
        self.on_back()

    def say(self, text: str) -> None:
        self.toast.say(text)

    # --- layout and drawing -------------------------------------------------------------------------
    def _fit(self, text: str, width: float, size: int) -> str:
        """``text`` cut to ``width`` (remembered: the same texts come every frame)."""
        return self._fonts.fit_remembered(text, width, size)

    def _size(self):
        return self.window.get_size()

    def _layout_board(self) -> tuple[list, list]:
        """Place the header, the rows and the buttons; the boxes to fill and their colours."""
        w, h = self._size()
        boxes, colors = [(0, 0, w, h)], [BACK + (255,)]
        top = h - PAD
        b = self.buttons
        b.clear()
        _put(self._title, f"Hall of fame - {self.challenge_name or 'no challenge'}", (PAD + 38, top - 4))
        b.place("challenge<", (PAD, top - 30, 28, 28), "<")
        b.place("challenge>", (PAD + 38 + self._title.content_width + 10, top - 30, 28, 28), ">")
        b.place("folder", (w - PAD - 130, top - 30, 130, 28), "Folder (F)")
        bottom = PAD
        x = PAD
        for name, label in (("watch", "Watch (ENTER)"), ("race", self._race_label()), ("back", "Back (ESC)")):
            bw = max(int(b.label(name, label).content_width) + 22, 90)
            b.place(name, (x, bottom, bw, BUTTON_HEIGHT))
            x += bw + 8
        b.hide_unplaced()
        board = self.board
        lines = []
        if self.entry.is_open:
            lines.append(f"folder: {self.entry.shown}   (ENTER opens it, ESC cancels)")
        else:
            lines.append(f"folder: {os.path.abspath(self.folder)}")
        if board is not None:
            lines.append(f"{board.summary}; the score is {board.measures}")
            verified = sum(1 for e in board.entries if e.rank)
            pictures = f" (and {board.pictures} pictures that are not cards)" if board.pictures else ""
            lines.append(f"{verified} verified of {len(board.entries)} entries{pictures}")
        elif self.pending:
            lines.append("verifying the entries: each is simulated again...")
        for k, text in enumerate(lines):
            _put(self._lines.get(k), self._fit(text, w - 2 * PAD - 140, 10), (PAD, top - 42 - 19 * k))
        self._rows(boxes, colors, top - HEAD, bottom + BUTTON_HEIGHT + 30)
        message = self.toast.current()
        _put(self._lines.get(len(lines)), self._fit(message, w - x - 2 * PAD, 10) if message else "",
             (x + PAD, bottom + BUTTON_HEIGHT - 6))
        self._lines.finish(len(lines) + 1)
        off = self._buttons_off()
        b.backs(boxes, colors, lambda name: BUTTON_OFF if name in off else BUTTON)
        return boxes, colors

    def _race_label(self) -> str:
        n = len(self.chosen)
        mine = " + yours" if self.hall.mine else ""
        return f"Race {n} chosen{mine} (R)" if n else f"Race the top {RACE_TOP}{mine} (R)"

    def _buttons_off(self) -> set:
        ranked = any(e.rank for e in (self.board.entries if self.board else ()))
        off = set() if ranked else {"race"}
        if not (self.board and self.board.entries):
            off.add("watch")
        return off

    def _rows(self, boxes, colors, top: float, bottom: float) -> None:
        """The column titles and one row per entry that fits between ``top`` and ``bottom``
        (the selected one kept in view)."""
        w, _ = self._size()
        entries = list(self.board.entries) if self.board else []
        fits = max(int((top - bottom) // ROW) - 1, 1)
        first = max(0, min(self.selected - fits + 1, len(entries) - fits)) if self.selected >= fits else 0
        shown = entries[first:first + fits]
        widths = [c[1] for c in COLUMNS]
        widths[-1] = max(w - 2 * PAD - sum(widths[:-1]), 80)
        cells, k = [], 0
        cells.append((tuple(c[0] for c in COLUMNS), top, DIM))
        self.row_rects = []
        for i, e in enumerate(shown, start=first):
            y = top - ROW * (i - first + 1)
            rect = (PAD - 4, y - ROW / 2, w - 2 * PAD + 8, ROW)
            self.row_rects.append((i, rect))
            if i == self.selected:
                boxes.append(rect)
                colors.append(ROW_SELECTED)
            elif (i - first) % 2:
                boxes.append(rect)
                colors.append(ROW_STRIPE)
            mark = CHOSEN_MARK if e.file in self.chosen else (FREE_MARK if e.rank else "")
            if e.rank:
                row = (mark, str(e.rank), f"{e.score:.4f}", e.name, e.author or "-",
                       "-" if e.generation is None else str(e.generation), e.champion, _base(e.file))
                cells.append((row, y, TEXT))
            else:   # the file in the name's column, why it is refused across the columns after it
                cells.append(((mark, "-", "refused", _base(e.file), e.reason or "", None, None, None), y, REFUSED))
        for row, y, color in cells:
            x = PAD
            spans = list(widths)
            if row[-1] is None:   # a refused entry's reason: one cell from the author's column on
                first_none = row.index(None)
                spans[first_none - 1] = sum(widths[first_none - 1:])
            for (title, _, right), width, text in zip(COLUMNS, spans, row):
                if text is None:
                    continue
                t = self._cells.get(k)
                k += 1
                _put(t, self._fit(str(text), max(width - 8, 10), 10), (x + width - 8 if right else x, y), color,
                     "right" if right else "left")
                x += width
        self._cells.finish(k)

    def on_draw(self) -> None:
        self.clear()
        if self.viewer is not None:
            self.viewer.on_draw()
            self._draw_watch_overlay()
            return
        w, h = self._size()
        boxes, colors = self._layout_board()
        self._said = self.pending      # the board says it is verifying: the next update does it
        cam = self._camera
        cam.viewport = LBWH(0, 0, *self.window.get_framebuffer_size())
        cam.projection = LBWH(-w / 2, -h / 2, w, h)
        cam.position = (w / 2, h / 2)
        cam.use()
        self._boxes.set(rects(boxes, colors))
        self._boxes.draw()
        self._batch.draw()

    def _draw_watch_overlay(self) -> None:
        w, h = self._size()
        b = self._watch_buttons
        b.clear()
        bw = int(b.label("back", "Back to the board (ESC)").content_width) + 22
        b.place("back", (PAD, PAD, bw, BUTTON_HEIGHT))
        b.hide_unplaced()
        self.viewer.reserved = [(PAD - 2, PAD - 2, bw + 4, BUTTON_HEIGHT + 4)]
        cam = self._camera
        cam.viewport = LBWH(0, 0, *self.window.get_framebuffer_size())
        cam.projection = LBWH(-w / 2, -h / 2, w, h)
        cam.position = (w / 2, h / 2)
        cam.use()
        boxes, colors = [], []
        b.backs(boxes, colors, lambda name: PANEL_BACK)
        self._boxes.set(rects(boxes, colors))
        self._boxes.draw()
        self._watch_batch.draw()

    # --- input --------------------------------------------------------------------------------------
    def on_update(self, delta_time: float) -> None:
        if self.viewer is not None:
            self.viewer.on_update(delta_time)
        elif self.pending and self._said:
            self.verify()

    def on_resize(self, width: int, height: int) -> None:
        if self.viewer is not None:
            self.viewer.on_resize(width, height)

    def on_show_view(self) -> None:
        self._said = False

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        k = arcade.key
        if self.viewer is not None:
            if symbol == k.ESCAPE and not self.viewer.show_help:
                self.back()
            else:
                self.viewer.on_key_press(symbol, modifiers)
            return
        if self.entry.is_open:
            if symbol in (k.ENTER, k.RETURN, k.NUM_ENTER):
                text = self.entry.text
                self.entry.close()
                self.set_folder(text)
            elif symbol == k.ESCAPE:
                self.entry.close()
            elif symbol == k.BACKSPACE:
                self.entry.backspace()
            return
        if symbol in (k.UP, k.DOWN):
            self.select(self.selected + (1 if symbol == k.DOWN else -1))
        elif symbol in (k.HOME, k.END):
            self.select(0 if symbol == k.HOME else len(self.board.entries) - 1 if self.board else 0)
        elif symbol in (k.PAGEUP, k.PAGEDOWN):
            self.select(self.selected + (10 if symbol == k.PAGEDOWN else -10))
        elif symbol == k.SPACE:
            self.toggle_chosen()
        elif symbol in (k.ENTER, k.RETURN, k.NUM_ENTER):
            self.watch()
        elif symbol == k.R:
            self.race()
        elif symbol == k.C:
            self.cycle_challenge(-1 if modifiers & k.MOD_SHIFT else 1)
        elif symbol == k.F:
            self.entry.open(self.folder, fresh=True, skip=("f", "F"))
        elif symbol in (k.ESCAPE, k.Q):
            self.back()

    def on_key_release(self, symbol: int, modifiers: int) -> None:
        if self.viewer is not None:
            self.viewer.on_key_release(symbol, modifiers)

    def on_text(self, text: str) -> None:
        if self.entry.is_open:
            self.entry.type(text)

    def on_mouse_press(self, x, y, button, modifiers) -> None:
        if self.viewer is not None:
            if self._watch_buttons.at(x, y) == "back":
                self.back()
            else:
                self.viewer.on_mouse_press(x, y, button, modifiers)
            return
        name = self.buttons.at(x, y)
        if name is not None:
            {"challenge<": lambda: self.cycle_challenge(-1), "challenge>": lambda: self.cycle_challenge(1),
             "folder": lambda: self.entry.open(self.folder, fresh=True),
             "watch": self.watch, "race": self.race, "back": self.back}[name]()
            return
        for i, rect in self.row_rects:
            if inside(rect, x, y):
                if x < PAD + COLUMNS[0][1]:
                    self.toggle_chosen(i)
                    return
                now = time.monotonic()
                last, when = self._last_click
                self._last_click = (i, now)
                self.select(i)
                if last == i and now - when <= DOUBLE_CLICK:
                    self.watch()
                return

    def on_mouse_drag(self, x, y, dx, dy, buttons, modifiers) -> None:
        if self.viewer is not None:
            self.viewer.on_mouse_drag(x, y, dx, dy, buttons, modifiers)

    def on_mouse_scroll(self, x, y, scroll_x, scroll_y) -> None:
        if self.viewer is not None:
            self.viewer.on_mouse_scroll(x, y, scroll_x, scroll_y)
        else:
            self.select(self.selected - int(scroll_y))


def _put(text, value: str, position, color=None, anchor_x=None) -> None:
    """Set what differs of an ``arcade.Text`` (setting a property lays the text out again)."""
    if text.text != value:
        text.text = value
    if color is not None and tuple(text.color) != tuple(color):
        text.color = color
    if anchor_x is not None and text.anchor_x != anchor_x:
        text.anchor_x = anchor_x
    if (text.x, text.y) != position:
        text.position = position


def _base(path: str) -> str:
    return path.replace("\\", "/").rsplit("/", 1)[-1]

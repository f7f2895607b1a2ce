"""The editor's side panel (:class:`SidePanel`): the selected item's values (``doc.fields``), or
the design's own when nothing is selected, one row each (``key  value  unit``, a value that
comes from a default greyed), the hint of the row pointed at and the last error under them; and
the entry a value is typed into (ENTER sets it through ``doc.set_field``, ESC cancels, TAB goes
on to the next row)."""

from __future__ import annotations

from ._display import prefer_headless

prefer_headless()

import arcade  # noqa: E402
import numpy as np  # noqa: E402

from .editor_layout import PANEL_TITLE, ROW, set_text  # noqa: E402
from .editor_theme import FIELD, PANEL_ERROR, PANEL_LABEL, PANEL_MUTED, ROW_FOCUS, ROW_HOVER  # noqa: E402
from .game import GameError  # noqa: E402
from .parts import part_property  # noqa: E402
from .text import FONT, one_line  # noqa: E402
from .textpool import TextPool  # noqa: E402
from .theme import PANEL_TEXT, TEXT  # noqa: E402
from .widgets import TextEntry  # noqa: E402

__all__ = ["SidePanel"]


class SidePanel:
    """The side panel: what it shows, the entry, and its texts.

    Parameters
    ----------
    batch : pyglet.graphics.Batch
        The batch its texts go in (the interface's).
    layout : EditorLayout
        Where the panel and its rows are (``render.editor_layout``).

    Attributes
    ----------
    item : (str, str)
        The item shown (``("design", "")`` when nothing is selected).
    title : str
        ``sphere foot``, ``design walker``...
    rows : list of Field
        What it shows (``doc.fields(*item)``).
    scroll : int
        Rows scrolled past.
    focus : int
        The row TAB moved to (-1: none).
    hover : int
        The row under the mouse (-1: none).
    entry : render.widgets.TextEntry
        The entry a value is typed into: what is typed, and whether it is open.
    entry_text : str or None
        The value being typed into row :attr:`entry_row` (``entry.text``); None while no entry
        is open.
    entry_row : int
    entry_fresh : bool
        The first key typed replaces the value shown (``entry.fresh``).
    error : str or None
        Why the value typed was refused (shown under the rows).
    title_text : arcade.Text
    row_keys, row_values, row_units, hint_lines, error_lines : TextPool
        Its texts: the rows' keys, values and units (one per row shown), the hint's lines and
        the error's.
    """

    def __init__(self, batch, layout):
        self.layout = layout
        self.item = ("design", "")
        self.title = ""
        self.rows: list = []
        self.scroll = 0
        self.focus = -1
        self.hover = -1
        self.entry = TextEntry()
        self.entry_row = -1
        self.error = None
        self._key = None
        self._text_key = None
        self.title_text = arcade.Text("", 0, 0, PANEL_TEXT, 12, bold=True, anchor_y="center", font_name=FONT,
                                      batch=batch)
        self.row_keys = TextPool(batch, color=PANEL_LABEL, font_size=9, font_name=FONT, anchor_y="center")
        self.row_values = TextPool(batch, color=PANEL_TEXT, font_size=10, font_name=FONT, anchor_y="center")
        self.row_units = TextPool(batch, color=PANEL_MUTED, font_size=9, font_name=FONT, anchor_x="right",
                                  anchor_y="center")
        self.hint_lines = TextPool(batch, color=PANEL_LABEL, font_size=9, font_name=FONT, anchor_y="top")
        self.error_lines = TextPool(batch, color=PANEL_ERROR, font_size=9, font_name=FONT, anchor_y="top")

    entry_text = part_property("entry", "text", "The value being typed (None: no entry open).", settable=True)
    entry_fresh = part_property("entry", "fresh", "The first key typed replaces the value shown.", settable=True)

    # what it shows ------------------------------------------------------------------------------
    def forget(self) -> None:
        """Read the rows again at the next :meth:`refresh` (the document changed)."""
        self._key = None

    def refresh(self, doc, selection) -> None:
        """The rows for the item the panel shows, the last of ``selection`` (when that or the
        document changed)."""
        item = selection[-1] if selection else ("design", "")
        if self._key == (item,):
            return
        if item != self.item:
            self.focus = -1
            self.scroll = 0
            self.cancel()
            self.error = None
        self.item = item
        self._key = (item,)
        try:
            rows = list(doc.fields(*item))
        except GameError as e:
            rows = []
            self.error = one_line(e)
        self.rows = rows
        kind, name = item
        title = getattr(doc, "title", "") or ""
        self.title = f"design {title}".strip() if kind == "design" else f"{kind} {name}"
        more = len(selection) - 1
        if more > 0:
            self.title += f"  (+{more} selected)"
        self.focus = min(self.focus, len(rows) - 1)
        if self.entry_row >= len(rows):
            self.cancel()

    def shown(self) -> range:
        """The rows shown (the others are scrolled out)."""
        return self.layout.shown_rows(self.scroll, len(self.rows))

    def reveal(self, i: int) -> None:
        """Scroll so that row ``i`` is shown."""
        if i < self.scroll:
            self.scroll = i
        elif i >= self.scroll + self.layout.visible_rows:
            self.scroll = i - self.layout.visible_rows + 1

    def scroll_by(self, rows: int) -> None:
        top = max(0, len(self.rows) - self.layout.visible_rows)
        self.scroll = int(min(max(self.scroll + rows, 0), top))

    def on_wheel(self, scroll_y: float) -> None:
        """The wheel turned over the panel: scroll a row a notch."""
        self.scroll_by(-int(np.sign(scroll_y)) * max(1, int(abs(scroll_y))))

    def on_key(self, symbol: int, shift) -> bool:
        """The panel's keys while no entry is open: TAB moves the focus to the next row (with
        ``shift``, the previous one), ENTER opens the entry on it. Returns whether the key was
        one of them."""
        k = arcade.key
        if symbol == k.TAB:
            n = len(self.rows)
            if n:
                self.focus = (self.focus + (-1 if shift else 1)) % n if self.focus >= 0 else (n - 1 if shift else 0)
                self.reveal(self.focus)
        elif symbol in (k.RETURN, k.ENTER, k.NUM_ENTER):
            if 0 <= self.focus < len(self.rows):
                self.edit(self.focus)
        else:
            return False
        return True

    # the entry ----------------------------------------------------------------------------------
    def edit(self, i: int) -> None:
        """Open the entry on row ``i`` with its value (the first key typed replaces it)."""
        if not 0 <= i < len(self.rows):
            return
        self.focus = i
        self.reveal(i)
        self.entry_row = i
        self.entry.open(str(self.rows[i].value), fresh=True)
        self.error = None

    def cancel(self) -> None:
        """Close the entry (nothing is set)."""
        self.entry.close()
        self.entry_row = -1

    def submit(self, doc):
        """``doc.set_field`` with the typed text. Set: the entry closes, returns ``(row, key,
        text)`` (the row it was on, the field's key, the text set). Refused: the error stays
        under the entry, returns None (None too without an entry)."""
        if self.entry_text is None or not 0 <= self.entry_row < len(self.rows):
            self.cancel()
            return None
        field = self.rows[self.entry_row]
        kind, name = self.item
        text = self.entry_text.strip()
        try:
            doc.set_field(kind, name, field.key, text)
        except GameError as e:
            self.error = one_line(e) or f"{field.key}: not a value"
            self.entry.fresh = False
            return None
        self.error = None
        row = self.entry_row
        self.cancel()
        return row, field.key, text

    def entry_key(self, symbol: int, modifiers: int, submit) -> None:
        """A key pressed while the entry is open; ``submit()`` sets the value (the view's, which
        takes the change in), returning whether it was set."""
        k = arcade.key
        if symbol == k.ESCAPE:
            self.cancel()
            self.error = None
        elif symbol in (k.RETURN, k.ENTER, k.NUM_ENTER):
            submit()
        elif symbol == k.TAB:
            if submit() and self.rows:
                self.focus = (self.focus + 1) % len(self.rows)
                self.reveal(self.focus)
        elif symbol == k.BACKSPACE:
            self.entry.backspace()

    def type(self, text: str) -> None:
        """Typing into the entry (control characters are dropped; the first text typed replaces
        the value shown)."""
        self.entry.type(text)

    # drawing ------------------------------------------------------------------------------------
    def backs(self, boxes: list, colors: list) -> None:
        """Add the backs of the rows (the entry's, the focused one's, the hovered one's)."""
        layout = self.layout
        for i in self.shown():
            rect = layout.field_rect(i, self.scroll)
            if i == self.entry_row and self.entry_text is not None:
                boxes.append(rect)
                colors.append(ROW_FOCUS)
                vx = layout.value_x()
                boxes.append((vx - 3, rect[1] + 2, rect[0] + rect[2] - 34 - vx, rect[3] - 4))
                colors.append(FIELD)
            elif i == self.focus:
                boxes.append(rect)
                colors.append(ROW_FOCUS)
            elif i == self.hover:
                boxes.append(rect)
                colors.append(ROW_HOVER)

    def build_texts(self) -> None:
        """The title, the rows, the hint and the error (set only when they change)."""
        layout = self.layout
        fonts = layout.fonts
        px, pb, pw, ph = layout.panel
        hover = self.hover if self.hover >= 0 else self.focus
        key = (layout.size, self.title, id(self.rows), self.scroll, self.entry_row, self.entry_text,
               self.entry_fresh, hover, self.error)
        if self._text_key == key:
            return
        self._text_key = key
        set_text(self.title_text, fonts.fit(self.title, pw - 20, 12, bold=True))
        self.title_text.position = (px + 10, layout.rows_top + PANEL_TITLE / 2)
        vx = layout.value_x()
        n = 0
        for i in self.shown():
            f = self.rows[i]
            l, b, w, h = layout.field_rect(i, self.scroll)
            cy = round(b + h / 2)
            t = self.row_keys.get(n)
            set_text(t, fonts.fit(str(f.key), vx - px - 18, 9))
            t.position = (px + 10, cy)
            t = self.row_values.get(n)
            editing = i == self.entry_row and self.entry_text is not None
            if editing:
                text = fonts.fit_tail(self.entry.shown, l + w - 40 - vx, 10)
                color = TEXT
            else:
                text = fonts.fit(str(f.value), l + w - 40 - vx, 10)
                color = PANEL_MUTED if f.default else PANEL_TEXT
            set_text(t, text)
            if tuple(t.color) != color:
                t.color = color
            t.position = (vx, cy)
            t = self.row_units.get(n)
            set_text(t, str(f.unit or ""))
            t.position = (l + w - 6, cy)
            n += 1
        for pool in (self.row_keys, self.row_values, self.row_units):
            pool.finish(n)
        # under the rows: the hint of the row pointed at (or focused), then an error
        y = layout.rows_top - layout.visible_rows * ROW - 8
        lines = []
        if 0 <= hover < len(self.rows) and self.rows[hover].hint:
            lines = fonts.wrap(str(self.rows[hover].hint), pw - 20, 9, 3)
        elif not self.rows:
            lines = ["nothing to edit here"]
        elif self.entry_text is None:
            lines = fonts.wrap("click a value (or TAB, ENTER) to type a new one; greyed values "
                               "come from the defaults", pw - 20, 9, 3)
        else:
            lines = ["ENTER sets it, ESC cancels; empty: the default"]
        for k, s in enumerate(lines):
            t = self.hint_lines.get(k)
            set_text(t, s)
            t.position = (px + 10, y - 14 * k)
        self.hint_lines.finish(len(lines))
        errors = fonts.wrap(self.error, pw - 20, 9, 2) if self.error else []
        for k, s in enumerate(errors):
            t = self.error_lines.get(k)
            set_text(t, s)
            t.position = (px + 10, y - 14 * (len(lines) + k) - 4)
        self.error_lines.finish(len(errors))

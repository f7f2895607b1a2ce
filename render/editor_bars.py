"""The bars around the editor's canvas (:class:`Bars`): the toolbar above it (the buttons, the
tool in use and the toggles lit, undo and redo greyed when there is nothing to undo), the status
strip under it (the status line, then the problems in red, the first few and "... and N more",
or "valid" in green), the tool's hint at the top of the canvas, and the backs of all of it with
the side panel's, drawn in one call; and the message line over the canvas (:class:`MessageLine`:
``saved PATH``, what evolve did, an error)."""

from __future__ import annotations

import os

from ._display import prefer_headless

prefer_headless()

import arcade  # noqa: E402
import numpy as np  # noqa: E402
import pyglet  # noqa: E402

from ._gl import Triangles, rects  # noqa: E402
from .editor_layout import BUTTONS, PAD, TOOLBAR, set_text  # noqa: E402
from .editor_theme import (BUTTON, BUTTON_OFF_TEXT, BUTTON_ON, BUTTON_TEXT, ERROR_BACK, HINT_TEXT,  # noqa: E402
                           MESSAGE_BACK, MESSAGE_TEXT, PROBLEM_TEXT, STRIP_BACK, STRIP_EDGE, TOOLBAR_BACK,
                           VALID_TEXT)
from .text import FONT, one_line  # noqa: E402
from .textpool import TextPool  # noqa: E402
from .theme import PANEL_BACK, TEXT  # noqa: E402
from .widgets import Buttons, Toast  # noqa: E402

__all__ = ["Bars", "MessageLine", "MESSAGE_SECONDS", "TOOL_HINTS"]

#: seconds a message that is not an error stays (an error stays until the next edit)
MESSAGE_SECONDS = 8.0
#: the line at the top of the canvas, per tool
TOOL_HINTS = {
    "select": "select: click an item (SHIFT adds), drag a box, drag spheres to move them",
    "sphere": "sphere: click empty space to place a sphere",
    "bone": "bone: drag from one sphere to another, or to empty space (a new sphere there)",
    "muscle": "muscle: click a bone to make it a muscle, or a muscle a bone",
    "joint": "joint: click a sphere between two of its bones; drag a hinge's limit handles",
    "cluster": "cluster: select three or more spheres (SHIFT+click, a box), then C",
}


class Bars:
    """The toolbar, the status strip, the tool's hint and the interface's backs.

    Parameters
    ----------
    ctx : arcade.ArcadeContext
    layout : EditorLayout
        Where everything is (``render.editor_layout``).

    Attributes
    ----------
    ui : Triangles
        The backs of the toolbar and its buttons, and (while editing) of the side panel, its
        rows and the status strip: opaque, one draw call.
    ui_batch, toolbar_batch, canvas_batch : pyglet.graphics.Batch
        The texts: the panel's and the status strip's; the buttons' labels (shown during the
        live test too); the tool's hint.
    buttons : render.widgets.Buttons
        The toolbar's buttons where the layout put them, with their labels (the layout itself
        tells which button a point is on).
    status_text : arcade.Text
    problem_texts : TextPool
    tool_hint : arcade.Text
    problems : list of Issue
        The document's problems, as last listed (:meth:`list_problems`).
    problems_key : tuple or None
        Their messages and items, to tell when they change.
    problem_lines : list of str
        The problems list as drawn (``valid`` when there are none).
    status : str
        The status line as drawn.
    ui_key : tuple or None
        What :attr:`ui` was built for (None: build it again).
    """

    def __init__(self, ctx, layout):
        self.layout = layout
        self.ui = Triangles(ctx)
        self.ui_batch = pyglet.graphics.Batch()          # the panel and the status strip
        self.toolbar_batch = pyglet.graphics.Batch()     # the buttons' labels (shown while live too)
        self.canvas_batch = pyglet.graphics.Batch()
        self.buttons = Buttons(self.toolbar_batch, BUTTON_TEXT, whole=round)
        self.status_text = arcade.Text("", 0, 0, TEXT, 10, anchor_y="top", font_name=FONT, batch=self.ui_batch)
        self.problem_texts = TextPool(self.ui_batch, color=PROBLEM_TEXT, font_size=9, font_name=FONT,
                                      anchor_y="top")
        self.tool_hint = arcade.Text("", 0, 0, HINT_TEXT, 9, font_name=FONT, anchor_y="top",
                                     batch=self.canvas_batch)
        self.problems: list = []
        self.problems_key = None
        self.problem_lines: list[str] = []
        self.status = ""
        self.ui_key = None
        self._text_keys = {}

    def relayout(self) -> None:
        """The layout changed: the buttons' labels where it put them, everything built again."""
        layout = self.layout
        self.buttons.clear()
        for name in BUTTONS:
            self.buttons.place(name, layout.buttons[name], layout.labels[name], layout.label_size)
        self.ui_key = None
        self._text_keys = {}

    # the problems -------------------------------------------------------------------------------
    def take_problems(self, problems, again: bool = False) -> bool:
        """The document's ``problems`` (a list of ``Issue``, or None), listed again when they
        changed (or ``again``); returns whether they were."""
        problems = list(problems or [])
        key = tuple((str(p.message), tuple(tuple(i) for i in (p.items or ()))) for p in problems)
        if key != self.problems_key or again:
            self.list_problems(problems, key)
            return True
        return False

    def list_problems(self, problems: list, key) -> None:
        """The document's ``problems`` (``key``: their messages and items) as the lines drawn."""
        self.problems_key = key
        self.problems = problems
        lines = [one_line(p.message) for p in problems[:self.shown_problems()]]
        more = len(problems) - len(lines)
        self.problem_lines = (lines + ([f"... and {more} more"] if more > 0 else [])) if problems else ["valid"]

    def problem_items(self, i: int, ids: dict):
        """The items problem ``i`` is about that the design has (``ids``: per kind, its ids), or
        None when there is no such problem."""
        if i >= len(self.problems):
            return None
        items = [tuple(x) for x in (self.problems[i].items or ())]
        return [x for x in items if x[1] in ids.get(x[0], {})]

    def shown_problems(self) -> int:
        """Problems listed one per line (the last slot says "... and N more" when they do not fit)."""
        n = len(self.problems)
        slots = self.layout.problem_slots
        return n if n <= slots else slots - 1

    # drawing ------------------------------------------------------------------------------------
    def draw_backs(self, tool: str, snap: bool, live: bool, undo: bool, redo: bool, show_help: bool,
                   panel, mirror: bool = False) -> None:
        """Backs of the toolbar, the buttons, the panel, its rows (``panel``: the side panel) and
        the status strip (built again when what they show changes), drawn."""
        layout = self.layout
        key = (layout.size, tool, snap, mirror, live, undo, redo, panel.focus, panel.hover,
               panel.entry_row if panel.entry_text is not None else -1, panel.entry_fresh, panel.scroll,
               len(panel.rows), show_help)
        if key != self.ui_key:
            self.ui_key = key
            active = {"snap": snap, "mirror": mirror, "test": live, "help": show_help}
            boxes, colors = [layout.toolbar], [TOOLBAR_BACK]
            self.buttons.backs(boxes, colors,
                               lambda name: BUTTON_ON if (name == tool and not live) or active.get(name) else BUTTON)
            self.buttons.set_color("undo", BUTTON_TEXT if undo else BUTTON_OFF_TEXT)
            self.buttons.set_color("redo", BUTTON_TEXT if redo else BUTTON_OFF_TEXT)
            if not live:
                strip = layout.strip
                boxes += [layout.panel, strip, (strip[0], strip[3] - 1, strip[2], 1)]
                colors += [PANEL_BACK[:3] + (255,), STRIP_BACK, STRIP_EDGE]
                panel.backs(boxes, colors)
            self.ui.set(rects(boxes, colors))
        self.ui.draw(blend=False)          # opaque: a software rasteriser fills it faster

    @staticmethod
    def status_line(doc, design, tool: str, snap: bool) -> str:
        """The file (``*`` with unsaved changes), the tool, the snap, the number of parts."""
        name = os.path.basename(str(getattr(doc, "path", "") or "")) or str(getattr(doc, "title", "") or "design")
        s = design.sketch
        muscles = int(np.count_nonzero(design.muscle))
        parts = [f"{len(s.sphere_id)} spheres", f"{len(s.bone_id)} bones ({muscles} muscles)"]
        if len(s.joint_id):
            parts.append(f"{len(s.joint_id)} joints")
        if len(s.cluster_id):
            parts.append(f"{len(s.cluster_id)} clusters")
        dirty = "*" if getattr(doc, "dirty", False) else ""
        return (f"{name}{dirty}  |  tool: {tool}  |  snap {'on' if snap else 'off'}  |  "
                + ", ".join(parts))

    def build_texts(self, status: str, tool: str) -> None:
        """The status line (``status``), the problems and ``tool``'s hint (set only when they
        change)."""
        layout = self.layout
        fonts = layout.fonts
        self.status = status
        key = (layout.size, self.status, self.problems_key)
        if self._text_keys.get("strip") != key:
            self._text_keys["strip"] = key
            l, b, w, h = layout.strip
            set_text(self.status_text, fonts.fit(self.status, w - 2 * PAD, 10))
            self.status_text.position = (l + PAD, b + h - 6)
            color = PROBLEM_TEXT if self.problems else VALID_TEXT
            lines = self.problem_lines
            for i, s in enumerate(lines):
                t = self.problem_texts.get(i)
                set_text(t, fonts.fit(s, w - 2 * PAD, 9))
                if tuple(t.color) != color:
                    t.color = color
                rect = layout.problem_rect(i)
                t.position = (rect[0], rect[1] + rect[3] - 1)
            self.problem_texts.finish(len(lines))
        # the tool's hint at the top of the canvas
        key = (layout.size, tool)
        if self._text_keys.get("tool") != key:
            self._text_keys["tool"] = key
            l, b, w, h = layout.canvas
            set_text(self.tool_hint, fonts.fit(TOOL_HINTS[tool], w - 2 * PAD, 9))
            self.tool_hint.position = (l + PAD, b + h - 6)


class MessageLine(Toast):
    """The last line for the player, in a box at the bottom of the canvas (of the window during
    the live test), dark, or red for an error: a :class:`~render.widgets.Toast` whose error stays
    until the next edit (another line goes after :data:`MESSAGE_SECONDS`), said on
    ``time.monotonic()``.

    Parameters
    ----------
    ctx : arcade.ArcadeContext
    layout : EditorLayout

    Attributes
    ----------
    lines : TextPool
        The texts drawn (a long line wraps to two).
    """

    def __init__(self, ctx, layout):
        super().__init__(MESSAGE_SECONDS, errors_stay=True)
        self.layout = layout
        self.batch = pyglet.graphics.Batch()
        self.box = Triangles(ctx)
        self.lines = TextPool(self.batch, color=MESSAGE_TEXT, font_size=10, font_name=FONT, anchor_y="top")
        self._key = None

    def say(self, message, error: bool = False) -> None:
        """Show one line (``message`` None clears it)."""
        super().say(None if message is None else (one_line(message) or str(message)), error)

    def draw(self, live: bool) -> None:
        """Draw the line (laid out again when it or the layout changed); ``live``: over the
        live test (the whole window under the toolbar), otherwise over the canvas."""
        layout = self.layout
        key = (layout.size, self.text, self.error, live)
        if self._key != key:
            self._key = key
            fonts = layout.fonts
            size = layout.size
            l, b, w, h = (0, 0, size[0], size[1] - TOOLBAR) if live else layout.canvas
            room = w - 2 * PAD - 24
            text = self.text or ""
            lines = [text] if fonts.width(text, 10) <= room else fonts.wrap(text, room, 10, 2)
            bw = min(max(fonts.width(s, 10) for s in lines) + 24, w - 2 * PAD)
            bh = 10 + 15 * len(lines)
            box = (l + (w - bw) / 2, b + (36 if live else 8), bw, bh)
            for k, s in enumerate(lines):
                t = self.lines.get(k)
                set_text(t, s)
                t.position = (round(box[0] + 12), round(box[1] + bh - 5 - 15 * k))
            self.lines.finish(len(lines))
            self.box.set(rects([box], ERROR_BACK if self.error else MESSAGE_BACK))
        self.box.draw()
        self.batch.draw()

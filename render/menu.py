"""The start screen of ``creatures play``: pick a creature, a task and a terrain, then evolve it.

:class:`StartView` is an ``arcade.View`` drawing a :class:`~render.game.Menu`:

- the **gallery**: one card per design (``menu.designs``) in a grid, each with the creature in
  its rest pose (scaled to fit the card), its title, the start of its description and, for a
  design file, where it came from. A design that does not load is greyed and shows its problem;
  it cannot be started. The selected card is framed in blue. The gallery scrolls when the cards
  do not fit;
- the **settings panel** on the right: task, terrain, medium and sensors (each with its
  one-line description), population, generations, the episode's seconds and the seed, each with
  ``<`` ``>`` buttons, and the **Start** button; in a short window the rows close up (the
  label beside its buttons, no descriptions);
- the header with **Open a file** (a one-line entry for a design file's path) and **Keys**.

Choosing a design made for a task (``GalleryItem.task``: the eel swims) picks that task (and
its own medium). Start
calls ``menu.start(setup)`` and hands the session to ``on_start``; a
:class:`~render.game.GameError` is shown in a red box instead, and nothing else happens.

Keys are listed in :data:`KEYS` (the help overlay, H, shows them); every key has a button or a
click too. Design files dropped on the window are opened like typed ones (when the window was
made with ``file_drops=True``).

Drawing is cheap: geometry is built when the layout changes (a resize, a design added), the
selection changes (the frame around a card) or a setting changes (the panel's texts), never per
frame. Every card's bones and spheres are one batch of instanced segments (``render/_gl.py``;
a sphere is a zero-length segment, a disc), the card backs one batch of triangles, the texts
pyglet batches. Scrolling moves the gallery's camera only. The layout is in window units (the
mouse's), drawn through :class:`arcade.camera.Camera2D` onto the framebuffer.
"""

from __future__ import annotations

import dataclasses
import time

from ._display import prefer_headless

prefer_headless()

import arcade  # noqa: E402
import numpy as np  # noqa: E402
import pyglet  # noqa: E402
from arcade.camera import Camera2D  # noqa: E402
from arcade.types import LBWH  # noqa: E402

from ._gl import SEGMENT, VERTEX, Segments, Triangles, rects  # noqa: E402
from .game import GameError  # noqa: E402
from .layout import shrink  # noqa: E402
from .overlay import KeyHelp  # noqa: E402
from .text import Fonts as _Fonts, inside as _inside, one_line as _one_line  # noqa: E402
from .viewer import (BONE_RIGID, BONE_SOFT, FONT, MUSCLE_REST, PANEL_BACK, PANEL_TEXT, SKY,  # noqa: E402
                     SPHERE, TEXT, _mask, TextPool)

__all__ = ["StartView", "KEYS", "BUTTONS", "nice_values", "step_value"]

# look ---------------------------------------------------------------------------------------------
CARD = (250, 251, 253, 255)
CARD_PROBLEM = (222, 222, 226, 255)       # a design that does not load: greyed
CARD_EDGE = (166, 182, 198, 255)
PICTURE = (232, 242, 250, 255)            # the inset behind a creature
PICTURE_PROBLEM = (210, 210, 214, 255)
HIGHLIGHT = (37, 99, 235)                 # the frame around the selected card
HIGHLIGHT_CARD = (238, 245, 255, 255)     # the selected card's own back
DESCRIPTION = (72, 78, 90, 255)
MUTED = (112, 118, 130, 255)
PROBLEM_TEXT = (176, 30, 30, 255)
GREY_BONE = (160, 160, 168)               # a greyed creature's bones and spheres
GREY_SPHERE = (192, 192, 198)
SPHERE_RIM = tuple(int(c * 150 / 255) for c in SPHERE)     # as the viewer's disc texture tints it
GREY_RIM = tuple(int(c * 150 / 255) for c in GREY_SPHERE)
HEADER_BACK = (24, 28, 36, 255)
PANEL_LABEL = (176, 184, 198, 255)
PANEL_NOTE = (196, 202, 214, 255)
KEY_HINT = (255, 214, 120, 255)           # keys, as in the viewer's help
BUTTON = (62, 70, 88, 255)
BUTTON_LIGHT = (78, 88, 110, 255)
START = (34, 150, 70, 255)
START_OFF = (96, 100, 108, 255)           # the selected design cannot be started
ERROR_BACK = (196, 36, 36, 240)
ERROR_TEXT = (255, 255, 255, 255)
SHADE = (10, 14, 20, 110)                 # over the screen behind the file entry
FIELD = (250, 251, 253, 255)

# layout (window units) ----------------------------------------------------------------------------
HEADER = 48                     # the header's height
PAD = 12                        # margins
GAP = 14                        # between cards
CARD_MIN_WIDTH = 170            # the gallery has as many columns as fit cards this wide
CARD_HEIGHT = (150, 230)        # a card is 0.9 times as high as wide, within these
CARD_TEXT = 74                  # the text under a card's picture: title and two lines
PANEL_WIDTH = (220, 360)        # the settings panel: 0.3 of the width, within these
PANEL_FRACTION = 0.3
SCROLL_STEP = 60                # per wheel notch
DOUBLE_CLICK = 0.4              # seconds between two clicks on a card that start it
TITLE_SIZE, LINE_SIZE, SMALL_SIZE = 12, 9, 8

#: values population and generations step through (1, 1.5, 2, 3, 5, 7.5 times a power of ten),
#: within the menu's ranges
MANTISSAS = (1.0, 1.5, 2.0, 3.0, 5.0, 7.5)
SEED_RANGE = (0, 2**31 - 1)

#: the settings rows of the panel: (name, label, keys shown beside the label, note under the row)
ROWS = (
    ("task", "task", "T / shift T", None),
    ("terrain", "terrain", "G / shift G", None),
    ("medium", "medium", "M / shift M", None),
    ("sensors", "sensors", "I / shift I", None),
    ("population", "population", "- / +", "creatures in each generation"),
    ("generations", "generations", "[ / ]", "generations to evolve"),
    ("seconds", "episode seconds", "E / shift E", "simulated seconds each creature is tried for"),
    ("seed", "seed", "S / shift S", "the same seed evolves the same run"),
)
#: the rows that pick from a list (their notes are the picks' descriptions)
PICKS = ("task", "terrain", "medium", "sensors")
#: names of :meth:`StartView.button_rect` (the entry's two buttons only while it is open)
BUTTONS = ("start", "open", "help") + tuple(f"{r[0]}{s}" for r in ROWS for s in "<>") + (
    "entry-open", "entry-cancel")

#: (keys, what they do): the help overlay
KEYS = (
    ("arrows, click", "choose a creature"),
    ("ENTER, double-click", "start evolving it"),
    ("T / SHIFT+T", "next / previous task"),
    ("G / SHIFT+G", "next / previous terrain"),
    ("M / SHIFT+M", "next / previous medium (none, water, air)"),
    ("I / SHIFT+I", "next / previous sensors (the brain's inputs)"),
    ("+ / -", "more / fewer creatures (population)"),
    ("] / [", "more / fewer generations"),
    ("E / SHIFT+E", "longer / shorter episodes (simulated seconds)"),
    ("S / SHIFT+S", "next / previous seed"),
    ("O", "open a design file (ENTER opens, ESC cancels)"),
    ("wheel, PAGE UP/DOWN", "scroll the gallery"),
    ("HOME / END", "first / last creature"),
    ("H", "this help"),
    ("ESC / Q", "close the help / quit"),
)


def nice_values(low: int, high: int) -> list[int]:
    """Round values from ``low`` to ``high`` (both included): 1, 2, 3, 5, 10, 15, 20, 30, 50, 75,
    100, 150... as the population and generation buttons step through them."""
    low, high = int(low), int(high)
    out = {low, high}
    k = 0
    while 10 ** k <= max(high, 1):
        for m in MANTISSAS:
            v = m * 10 ** k
            if v == int(v) and low <= v <= high:
                out.add(int(v))
        k += 1
    return sorted(v for v in out if low <= v <= high)


def step_value(value: int, values: list[int], direction: int) -> int:
    """The next of ``values`` (sorted) above ``value`` (``direction`` > 0) or below it; the last
    or first value when there is none. A value between two steps goes to the nearer one on that
    side, so a number from the command line (137) joins the steps (150 up, 100 down)."""
    if not values:
        return int(value)
    if direction > 0:
        return next((v for v in values if v > value), values[-1])
    return next((v for v in reversed(values) if v < value), values[0])


def _picture_segments(item, box, grey: bool) -> np.ndarray:
    """A design's rest pose fitted into ``box`` (left, bottom, width, height), y up, as rows of
    :data:`SEGMENT`: its bones, cluster outlines and muscles, then each sphere as two discs (a
    rim, then its fill), the viewer's look. Empty when there is nothing sound to draw."""
    empty = np.zeros(0, SEGMENT)
    shape = item.shape
    if shape is None:
        return empty
    try:
        radius = np.asarray(shape.radius, np.float64).reshape(-1)
        pose = np.asarray(item.pose, np.float64).reshape(-1, 2)
    except (TypeError, ValueError):
        return empty
    P = radius.size
    if P == 0 or pose.shape[0] != P or not (np.isfinite(pose).all() and np.isfinite(radius).all()):
        return empty
    on = _mask(shape.sphere_on, P)
    if not on.any():
        return empty
    r = np.maximum(radius, 0.0)
    lo = (pose[on] - r[on, None]).min(axis=0)
    hi = (pose[on] + r[on, None]).max(axis=0)
    span = np.maximum(hi - lo, 1e-3)
    left, bottom, w, h = box
    inset = 6.0
    z = max(min((w - 2 * inset) / span[0], (h - 2 * inset) / span[1]), 1e-6)    # pixels per metre
    p = (pose - 0.5 * (lo + hi)) * z + np.array([left + 0.5 * w, bottom + 0.5 * h])
    # bones (kind 0 rigid, 1 springy, 2 muscle) and cluster outlines (rigid)
    a = np.asarray(shape.bone_a, np.int64).reshape(-1)
    b = np.asarray(shape.bone_b, np.int64).reshape(-1)
    E = min(a.size, b.size)
    a, b = a[:E], b[:E]
    good = (a >= 0) & (a < P) & (b >= 0) & (b < P)
    kind = np.where(np.asarray(shape.rigid, bool).reshape(-1)[:E], 0, 1) if E else np.zeros(0, np.int64)
    mb = np.asarray(shape.muscle_bone, np.int64).reshape(-1)
    kind[mb[(mb >= 0) & (mb < E)]] = 2
    keep = good & _mask(shape.bone_on, E) & on[np.where(good, a, 0)] & on[np.where(good, b, 0)]
    ca, cb, ck = [a[keep]], [b[keep]], [kind[keep]]
    for members in shape.clusters:
        m = np.asarray(members, np.int64).reshape(-1)
        m = m[(m >= 0) & (m < P)]
        m = m[on[m]]
        if m.size >= 2:
            ca.append(m if m.size > 2 else m[:1])
            cb.append(np.roll(m, -1) if m.size > 2 else m[1:])
            ck.append(np.zeros(ca[-1].size, np.int64))
    ba, bb, bk = np.concatenate(ca), np.concatenate(cb), np.concatenate(ck)
    colors = (np.array([GREY_BONE, GREY_BONE, GREY_BONE], np.uint8) if grey
              else np.array([BONE_RIGID, BONE_SOFT, MUSCLE_REST], np.uint8))
    widths = np.array([np.clip(0.04 * z, 2.0, 10.0), np.clip(0.025 * z, 1.5, 6.0),
                       np.clip(0.05 * z, 2.5, 12.0)])
    spheres = np.flatnonzero(on)
    S = spheres.size
    out = np.zeros(bk.size + 2 * S, SEGMENT)
    n = bk.size
    out["seg"][:n] = np.concatenate([p[ba], p[bb]], axis=1)
    out["color"][:n, :3] = colors[bk]
    out["color"][:n, 3] = 255
    out["width"][:n] = widths[bk]
    # spheres over the bones: a rim disc, then the fill (zero-length segments are discs)
    c = p[spheres]
    d = np.maximum(2.0 * r[spheres] * z, 3.0)
    out["seg"][n:] = np.repeat(np.concatenate([c, c], axis=1), 2, axis=0)
    out["color"][n::2, :3] = GREY_RIM if grey else SPHERE_RIM
    out["color"][n + 1::2, :3] = GREY_SPHERE if grey else SPHERE
    out["color"][n:, 3] = 255
    out["width"][n::2] = d
    out["width"][n + 1::2] = np.maximum(0.82 * d, d - 6.0)
    return out


def _chevron(rect, right: bool, color) -> np.ndarray:
    """A filled arrowhead in the middle of a button, pointing left or right, as :data:`VERTEX`."""
    l, b, w, h = rect
    cx, cy = l + w / 2, b + h / 2
    s = min(w, h) * 0.22
    tip, back = (cx + s, cx - 0.8 * s) if right else (cx - s, cx + 0.8 * s)
    v = np.zeros(3, VERTEX)
    v["pos"] = [(tip, cy), (back, cy + 1.3 * s), (back, cy - 1.3 * s)]
    v["color"] = color
    return v


class StartView(arcade.View):
    """The start screen: a gallery of designs, the settings, Start and Open a file.

    Parameters
    ----------
    menu : Menu
        The designs, tasks, terrains, defaults and ranges, and the ``open`` and ``start`` actions
        (``render.game.Menu``).
    on_start : callable
        Called with what ``menu.start(setup)`` returned (a ``Session``): the caller switches to
        the evolution screen.
    window : arcade.Window, optional
        Defaults to the current window.
    on_quit : callable, optional
        Called without arguments when the player quits (ESC, Q); by default the window closes.
    size : (int, int), optional
        The layout's size in window units and the framebuffer's in pixels (offscreen drawing);
        by default the window's, following it when it is resized.

    Attributes
    ----------
    menu : Menu
        What is shown.
    designs : list of GalleryItem
        The gallery's cards, in order: ``menu.designs`` (and a design file opened here).
    selected : int
        Index of the selected card in :attr:`designs`.
    setup : Setup
        The settings as chosen so far (``menu.setup`` at first); ``design`` is the selected
        card's ``name``. ``terrain`` is None for the task's own.
    message : str or None
        The one line shown in the red box (a design's problem, why start or open failed).
    entry_text : str or None
        The path being typed in the file entry; None while the entry is closed.
    show_help : bool
        The help overlay (H).
    scroll : float
        How far the gallery is scrolled down (window units).
    session : Session or None
        What the last successful start returned.
    quit_requested : bool
        The player asked to quit.
    draw_size : (int, int)
        The layout's size (window units).
    columns, max_scroll
        Cards in a gallery row; how far the gallery scrolls.

    Notes
    -----
    Tests and the game driver click through the real handlers at the centre of
    :meth:`card_rect` or :meth:`button_rect`; the actions behind the keys and buttons are public
    methods too (:meth:`select`, :meth:`move`, :meth:`cycle_task`, :meth:`cycle_terrain`,
    :meth:`step_population`, :meth:`step_generations`, :meth:`step_seed`, :meth:`start`,
    :meth:`open_entry`, :meth:`submit_entry`, :meth:`open_path`, :meth:`scroll_by`,
    :meth:`quit`). :meth:`draw_menu` draws into whichever framebuffer is in use (offscreen
    measurement).
    """

    def __init__(self, menu, on_start, window=None, on_quit=None, *, size=None):
        super().__init__(window)
        self.menu = menu
        self.on_start = on_start
        self.on_quit = on_quit
        self._fixed_size = size is not None
        self.draw_size = self._window_size() if size is None else (int(size[0]), int(size[1]))
        self._pixels = (self.window.get_framebuffer_size() if size is None
                        else (int(size[0]), int(size[1])))
        self.designs = list(menu.designs)
        self.setup = dataclasses.replace(menu.setup)
        self.message = None
        self.entry_text = None
        self.show_help = False
        self.scroll = 0.0
        self.session = None
        self.quit_requested = False
        self._pressed = None            # what the mouse button went down on
        self._last_click = (None, -1.0)  # (card, time) of the last click on a card
        self._swallow = None            # the O key's own on_text, which follows it
        names = [d.name for d in self.designs]
        self.selected = names.index(self.setup.design) if self.setup.design in names else 0
        if self.designs:
            self.setup.design = self.designs[self.selected].name
            self.message = self._problem_line(self.designs[self.selected])
        self._fonts = _Fonts()
        self._layout_key = None
        self._cards_dirty = self._panel_dirty = True
        self._overlay_keys = {}
        # GL: the gallery (scrolled) and the screen
        ctx = self.window.ctx
        self.ctx = ctx
        self._gallery_camera = Camera2D(window=self.window)
        self._screen_camera = Camera2D(window=self.window)
        self._card_backs = Triangles(ctx)
        self._pictures = Segments(ctx)
        self._ui = Triangles(ctx)
        self._scrollbar = Triangles(ctx)
        self._boxes = {k: Triangles(ctx) for k in ("message", "entry")}
        self._card_batch = pyglet.graphics.Batch()
        self._panel_batch = pyglet.graphics.Batch()
        self._batches = {k: pyglet.graphics.Batch() for k in ("message", "entry")}
        card = dict(font_name=FONT, anchor_y="top")
        self._titles = TextPool(self._card_batch, color=TEXT, font_size=TITLE_SIZE, bold=True, **card)
        self._lines = TextPool(self._card_batch, color=DESCRIPTION, font_size=LINE_SIZE, **card)
        self._tags = TextPool(self._card_batch, color=MUTED, font_size=SMALL_SIZE, italic=True,
                               anchor_x="right", **card)
        panel = dict(font_name=FONT, batch=self._panel_batch)
        self._header_title = arcade.Text("creatures", 0, 0, PANEL_TEXT, 17, bold=True,
                                         anchor_y="center", **panel)
        self._header_sub = arcade.Text("", 0, 0, PANEL_LABEL, 10, anchor_y="center", **panel)
        self._button_texts = {name: arcade.Text(label, 0, 0, PANEL_TEXT, size, bold=bold,
                                                anchor_x="center", anchor_y="center", **panel)
                              for name, label, size, bold in (
                                  ("open", "Open a file (O)", 10, False),
                                  ("help", "Keys (H)", 10, False),
                                  ("start", "Start evolving (ENTER)", 13, True))}
        self._row_labels = TextPool(self._panel_batch, color=PANEL_LABEL, font_size=LINE_SIZE,
                                     font_name=FONT, anchor_y="top")
        self._row_keys = TextPool(self._panel_batch, color=KEY_HINT, font_size=SMALL_SIZE,
                                   font_name=FONT, anchor_x="right", anchor_y="top")
        self._row_values = TextPool(self._panel_batch, color=PANEL_TEXT, font_size=12, bold=True,
                                     font_name=FONT, anchor_x="center", anchor_y="center")
        self._row_notes = TextPool(self._panel_batch, color=PANEL_NOTE, font_size=LINE_SIZE,
                                    font_name=FONT, anchor_y="top")
        self._summary = arcade.Text("", 0, 0, PANEL_NOTE, LINE_SIZE, font_name=FONT,
                                    anchor_y="bottom", batch=self._panel_batch)
        self._notes = TextPool(self._card_batch, color=MUTED, font_size=LINE_SIZE, font_name=FONT,
                                anchor_x="center", anchor_y="center")
        self._empty_text = arcade.Text("no designs: open a design file (O)", 0, 0, MUTED, 12,
                                       font_name=FONT, anchor_x="center", anchor_y="center",
                                       batch=self._card_batch)
        self._message_text = arcade.Text("", 0, 0, ERROR_TEXT, 11, font_name=FONT,
                                         anchor_y="center", batch=self._batches["message"])
        entry = dict(font_name=FONT, batch=self._batches["entry"])
        self._entry_texts = {
            "title": arcade.Text("Open a design file", 0, 0, PANEL_TEXT, 13, bold=True,
                                 anchor_y="top", **entry),
            "label": arcade.Text("design file:", 0, 0, PANEL_LABEL, 11, anchor_y="center", **entry),
            "field": arcade.Text("", 0, 0, TEXT, 11, anchor_y="center", **entry),
            "hint": arcade.Text("a YAML file (a path from here); ENTER opens, ESC cancels", 0, 0,
                                PANEL_LABEL, SMALL_SIZE + 1, anchor_y="center", **entry),
            "entry-open": arcade.Text("Open", 0, 0, PANEL_TEXT, 11, bold=True, anchor_x="center",
                                      anchor_y="center", **entry),
            "entry-cancel": arcade.Text("Cancel", 0, 0, PANEL_TEXT, 11, anchor_x="center",
                                        anchor_y="center", **entry),
        }
        self.help = KeyHelp(ctx, KEYS)

    # what is chosen ----------------------------------------------------------------------------
    @property
    def item(self):
        """The selected :class:`~render.game.GalleryItem`, or None (no designs)."""
        return self.designs[self.selected] if 0 <= self.selected < len(self.designs) else None

    @property
    def task_index(self) -> int:
        """Index of ``setup.task`` in ``menu.tasks`` (-1: not among them)."""
        return next((i for i, p in enumerate(self.menu.tasks) if p.name == self.setup.task), -1)

    @property
    def terrain_index(self) -> int:
        """Index of ``setup.terrain`` in ``menu.terrains`` (None is the entry named ``""``)."""
        return self.pick_index("terrain")

    def _problem_line(self, item) -> str | None:
        if item is None or not item.problem:
            return None
        return f"{item.title}: {_one_line(item.problem)}"

    def select(self, index: int) -> None:
        """Select card ``index`` (clamped): it becomes ``setup.design``; its task, if it was made
        for one the menu has, becomes ``setup.task``; a design with a problem shows it."""
        if not self.designs:
            return
        index = min(max(int(index), 0), len(self.designs) - 1)
        item = self.designs[index]
        self.selected = index
        self.setup.design = item.name
        if item.task and any(p.name == item.task for p in self.menu.tasks) and item.task != self.setup.task:
            self.setup.task, self.setup.medium = item.task, None     # and the task's own medium
        self.message = self._problem_line(item)
        self.reveal(index)
        self._cards_dirty = self._panel_dirty = True

    def move(self, dx: int, dy: int) -> None:
        """Move the selection ``dx`` cards right and ``dy`` rows down (arrows)."""
        if not self.designs:
            return
        self._ensure_layout()
        i = self.selected + dx + dy * self._columns
        if dy and not 0 <= i < len(self.designs):
            i = self.selected if i < 0 else len(self.designs) - 1
        self.select(i)

    def cycle_task(self, step: int = 1) -> None:
        """The next (``step`` 1) or previous (-1) task, going round."""
        self.setup.task = self._cycle(self.menu.tasks, self.task_index, step) or self.setup.task
        self._panel_dirty = True

    def cycle_terrain(self, step: int = 1) -> None:
        """The next or previous terrain, going round (``""``, the task's own, is None)."""
        self.cycle("terrain", step)

    def cycle(self, name: str, step: int = 1) -> None:
        """The next or previous ``terrain``, ``medium`` or ``sensors``, going round (``""``, the
        first, is None)."""
        picks = {"terrain": self.menu.terrains, "medium": self.menu.media, "sensors": self.menu.sensors}[name]
        if picks:
            setattr(self.setup, name, self._cycle(picks, self.pick_index(name), step) or None)
        self._panel_dirty = True

    def pick_index(self, name: str) -> int:
        """Index of the setup's ``task``, ``terrain``, ``medium`` or ``sensors`` in the menu's
        list (None is the entry named ``""``; -1: not among them)."""
        picks = {"task": self.menu.tasks, "terrain": self.menu.terrains, "medium": self.menu.media,
                 "sensors": self.menu.sensors}[name]
        value = getattr(self.setup, name) or ""
        return next((i for i, p in enumerate(picks) if p.name == value), -1)

    @staticmethod
    def _cycle(picks, index: int, step: int):
        if not picks:
            return None
        n = len(picks)
        i = (0 if step > 0 else n - 1) if index < 0 else (index + step) % n
        return picks[i].name

    def step_population(self, direction: int) -> None:
        """Up (``direction`` > 0) or down one step of :func:`nice_values` within
        ``menu.population_range``."""
        self.setup.population = step_value(self.setup.population,
                                           nice_values(*self.menu.population_range), direction)
        self._panel_dirty = True

    def step_generations(self, direction: int) -> None:
        """Up or down one step within ``menu.generations_range``."""
        self.setup.generations = step_value(self.setup.generations,
                                            nice_values(*self.menu.generations_range), direction)
        self._panel_dirty = True

    def step_seconds(self, direction: int) -> None:
        """Longer or shorter episodes, one step within ``menu.seconds_range``."""
        self.setup.seconds = step_value(self.setup.seconds, nice_values(*self.menu.seconds_range), direction)
        self._panel_dirty = True

    def step_seed(self, direction: int) -> None:
        """The next or previous seed (from 0)."""
        self.setup.seed = int(min(max(int(self.setup.seed) + (1 if direction > 0 else -1),
                                      SEED_RANGE[0]), SEED_RANGE[1]))
        self._panel_dirty = True

    # actions -----------------------------------------------------------------------------------
    def start(self):
        """Start evolving the selected design with :attr:`setup`: ``menu.start``, then
        ``on_start(session)``. A design with a problem, or a :class:`GameError`, only sets
        :attr:`message`. Returns the session, or None."""
        item = self.item
        if item is None:
            self.message = "no design to evolve: open a design file (O)"
            return None
        if item.problem:
            self.message = self._problem_line(item)
            return None
        setup = dataclasses.replace(self.setup, design=item.name)
        try:
            session = self.menu.start(setup)
        except GameError as e:
            self.message = _one_line(e) or "evolution could not start"
            return None
        self.message = None
        self.session = session
        self.on_start(session)
        return session

    def open_entry(self) -> None:
        """Open the file entry (empty)."""
        self.entry_text = ""
        self.show_help = False

    def cancel_entry(self) -> None:
        """Close the file entry without opening anything."""
        self.entry_text = None
        self._swallow = None

    def submit_entry(self):
        """Open the typed path (``menu.open``): the design is added and selected and the entry
        closes. A :class:`GameError` is shown and the entry stays open to correct the path.
        Returns the new item, or None."""
        path = (self.entry_text or "").strip()
        if not path:
            self.message = "type the path of a design file (ESC: cancel)"
            return None
        item = self.open_path(path)
        if item is not None:
            self.entry_text = None
        return item

    def open_path(self, path: str):
        """``menu.open(path)``; the item joins :attr:`designs` (unless the menu already has it)
        and is selected. A :class:`GameError` only sets :attr:`message`. Returns the item or None."""
        try:
            item = self.menu.open(str(path))
        except GameError as e:
            self.message = _one_line(e) or f"cannot open {path}"
            return None
        designs = list(self.menu.designs)
        if not any(d is item for d in designs):
            designs.append(item)
        self.designs = designs
        self._layout_key = None
        self.select(next(i for i, d in enumerate(designs) if d is item))
        return item

    def quit(self) -> None:
        """``on_quit()``, or close the window."""
        self.quit_requested = True
        if self.on_quit is not None:
            self.on_quit()
        else:
            self.window.close()

    def scroll_by(self, dy: float) -> None:
        """Scroll the gallery ``dy`` window units down (negative: up), within its content."""
        self._ensure_layout()
        self.scroll = float(min(max(self.scroll + dy, 0.0), self._max_scroll))

    def reveal(self, index: int) -> None:
        """Scroll so that card ``index`` is wholly in view (as far as the gallery's height allows)."""
        self._ensure_layout()
        if not 0 <= index < len(self._cards):
            return
        _, b, _, h = self._cards[index]
        top, bottom = self._gallery[1] + self._gallery[3] - PAD, PAD
        if b + h + self.scroll > top:
            self.scroll = top - (b + h)
        if b + self.scroll < bottom:
            self.scroll = bottom - b
        self.scroll = float(min(max(self.scroll, 0.0), self._max_scroll))

    # layout ------------------------------------------------------------------------------------
    def _window_size(self) -> tuple[int, int]:
        return tuple(int(v) for v in self.window.get_size())

    @property
    def columns(self) -> int:
        """Cards in a row of the gallery (the arrows move up and down by this many)."""
        self._ensure_layout()
        return self._columns

    @property
    def max_scroll(self) -> float:
        """How far the gallery scrolls (0: every card is in view)."""
        self._ensure_layout()
        return self._max_scroll

    def card_rect(self, i: int) -> tuple[float, float, float, float]:
        """Card ``i`` as (left, bottom, width, height) in window units, where it is on the
        screen now (scrolled; it may be partly or wholly out of view)."""
        self._ensure_layout()
        l, b, w, h = self._cards[i]
        return (l, b + self.scroll, w, h)

    def button_rect(self, name: str) -> tuple[float, float, float, float]:
        """A button as (left, bottom, width, height) in window units: ``start``, ``open``,
        ``help``, ``task<``, ``task>``, ``terrain<``... ``seed>`` (:data:`BUTTONS`), and while the
        entry is open ``entry-open`` and ``entry-cancel``."""
        self._ensure_layout()
        if name not in self._buttons:
            raise KeyError(f"no button {name!r}; there are {', '.join(BUTTONS)}")
        return self._buttons[name]

    def _ensure_layout(self) -> None:
        """Where everything goes, for the current size and number of designs (no drawing)."""
        key = (self.draw_size, len(self.designs))
        if key == self._layout_key:
            return
        self._layout_key = key
        self._built = False
        w, h = self.draw_size
        # the settings panel on the right, under the header; the gallery fills the rest
        pw = int(min(max(round(PANEL_FRACTION * w), PANEL_WIDTH[0]), PANEL_WIDTH[1]))
        px = w - PAD - pw
        top = h - HEADER
        self._panel = (px, PAD, pw, top - 2 * PAD)
        self._gallery = (0, 0, px - PAD // 2, top)
        gw = max(px - 2 * PAD, 40)
        cols = max(1, int((gw + GAP) // (CARD_MIN_WIDTH + GAP)))
        cw = int((gw - (cols - 1) * GAP) // cols)
        ch = int(min(max(round(0.9 * cw), CARD_HEIGHT[0]), CARD_HEIGHT[1]))
        self._columns = cols
        self._cards = []
        for i in range(len(self.designs)):
            r, c = divmod(i, cols)
            ctop = top - PAD - r * (ch + GAP)
            self._cards.append((PAD + c * (cw + GAP), ctop - ch, cw, ch))
        lowest = min((b for _, b, _, _ in self._cards), default=PAD)
        self._max_scroll = float(max(0, PAD - lowest))
        self.scroll = float(min(max(self.scroll, 0.0), self._max_scroll))
        # header buttons, right to left
        bh = HEADER - 18
        self._buttons = {"open": (w - PAD - 150, top + 9, 150, bh)}
        self._buttons["help"] = (w - PAD - 150 - 10 - 90, top + 9, 90, bh)
        self._layout_panel()
        self._layout_entry()

    def _layout_panel(self) -> None:
        """The settings rows from the panel's top, the Start button at its bottom. Rows shrink
        (smaller buttons, fewer description lines) when the panel is short."""
        px, pb, pw, ph = self._panel
        modes = (  # label line, button row, description line, lines (picks, others), gap, start, beside
            (17, 28, 14, 2, 1, 12, 46, False),
            (16, 26, 13, 2, 1, 8, 42, False),
            (16, 26, 13, 2, 0, 8, 42, False),
            (14, 22, 12, 1, 0, 5, 34, False),
            (12, 20, 11, 1, 0, 3, 30, False),
            (13, 20, 11, 0, 0, 3, 30, False),
            (13, 22, 11, 0, 0, 4, 30, True),       # the label beside its buttons
            (13, 19, 11, 0, 0, 2, 26, True))
        for mode in modes:
            label_h, button_h, line_h, n_pick, n_other, gap, start_h, beside = mode
            need = 10 + sum((0 if beside else label_h) + button_h + 4 + gap
                            + line_h * (n_pick if r[0] in PICKS else n_other) for r in ROWS) + start_h + 20
            if need <= ph:
                break
        self._panel_mode = mode
        rows = {}
        y = pb + ph - 10
        bw = button_h + 6
        # beside its buttons, a label is its last word ("seconds"), the value smaller
        label_w = max(self._fonts.width(label.split()[-1], LINE_SIZE) for _, label, *_ in ROWS) + 8 if beside else 0
        for name, *_ in ROWS:
            n_lines = n_pick if name in PICKS else n_other
            by = y - (0 if beside else label_h) - button_h
            self._buttons[f"{name}<"] = (px + 10 + label_w, by, bw, button_h)
            self._buttons[f"{name}>"] = (px + pw - 10 - bw, by, bw, button_h)
            rows[name] = {"label_y": by + (button_h + label_h) / 2 if beside else y, "beside": beside,
                          "value": (px + (pw + label_w) / 2, by + button_h / 2),
                          "value_width": pw - 20 - label_w - 2 * bw - 12,
                          "lines": [by - 4 - k * line_h for k in range(n_lines)]}
            y = by - 4 - n_lines * line_h - gap
        self._rows = rows
        self._buttons["start"] = (px + 10, pb + 10, pw - 20, start_h)
        # what Start will do, above it, where there is room
        self._summary_y = pb + 10 + start_h + 10 if y - (pb + 10 + start_h) > 40 else None

    def _layout_entry(self) -> None:
        w, h = self.draw_size
        ew, eh = int(min(w - 40, 640)), 138
        ex, ey = (w - ew) // 2, (h - eh) // 2
        self._entry_box = (ex, ey, ew, eh)
        self._entry_field = (ex + 110, ey + eh - 72, ew - 126, 30)
        self._buttons["entry-open"] = (ex + ew - 16 - 96, ey + 12, 96, 30)
        self._buttons["entry-cancel"] = (ex + ew - 16 - 96 - 10 - 96, ey + 12, 96, 30)

    # building (on layout, selection or setting changes; never per frame) ----------------------
    def _build(self) -> None:
        """Rebuild what changed since the last frame."""
        self._ensure_layout()
        if not self._built:
            self._build_cards()
            self._build_help()
            self._cards_dirty = self._panel_dirty = True
            self._overlay_keys = {}
            self._built = True
        if self._cards_dirty:
            self._build_card_backs()
            self._cards_dirty = False
        if self._panel_dirty:
            self._build_panel()
            self._panel_dirty = False

    def _picture_box(self, rect):
        l, b, w, h = rect
        return (l + 8, b + CARD_TEXT, w - 16, h - CARD_TEXT - 8)

    def _build_cards(self) -> None:
        """Every card's picture (one batch of segments) and texts."""
        fonts = self._fonts
        parts = []
        n_title = n_line = n_tag = n_note = 0
        for item, rect in zip(self.designs, self._cards):
            l, b, w, h = rect
            grey = bool(item.problem) or item.shape is None
            pic = self._picture_box(rect)
            parts.append(_picture_segments(item, pic, grey))
            text_w = w - 20
            t = self._titles.get(n_title)
            t.text = fonts.fit(item.title or item.name, text_w, TITLE_SIZE, bold=True)
            t.color = MUTED if grey else TEXT
            t.position = (l + 10, b + CARD_TEXT - 4)
            n_title += 1
            if item.problem:
                lines, color = fonts.wrap(item.problem, text_w, LINE_SIZE, 2), PROBLEM_TEXT
            else:
                lines, color = fonts.wrap(item.description, text_w, LINE_SIZE, 2), DESCRIPTION
            for k, s in enumerate(lines):
                t = self._lines.get(n_line)
                t.text = s
                t.color = color
                t.position = (l + 10, b + CARD_TEXT - 25 - 14 * k)
                n_line += 1
            if item.shape is None:
                t = self._notes.get(n_note)
                t.text = fonts.fit("no picture: it does not load", pic[2] - 8, LINE_SIZE)
                t.position = (pic[0] + pic[2] / 2, pic[1] + pic[3] / 2)
                n_note += 1
            if item.origin and item.origin != "built-in":
                t = self._tags.get(n_tag)
                t.text = fonts.fit(item.origin, pic[2] - 8, SMALL_SIZE)
                t.position = (pic[0] + pic[2] - 4, pic[1] + pic[3] - 3)
                n_tag += 1
        self._titles.finish(n_title)
        self._lines.finish(n_line)
        self._tags.finish(n_tag)
        self._notes.finish(n_note)
        seg = np.concatenate(parts) if parts else np.zeros(0, SEGMENT)
        rows = self._pictures.reserve(seg.size)
        rows[:] = seg
        self._pictures.upload()
        g = self._gallery
        self._empty_text.visible = not self.designs
        self._empty_text.position = (g[0] + g[2] / 2, g[1] + g[3] / 2)

    def _build_card_backs(self) -> None:
        """Card backs, their picture insets and the selected card's frame (one batch)."""
        boxes, colors = [], []
        for i, (item, rect) in enumerate(zip(self.designs, self._cards)):
            l, b, w, h = rect
            grey = bool(item.problem) or item.shape is None
            if i == self.selected:
                boxes.append((l - 4, b - 4, w + 8, h + 8))
                colors.append(HIGHLIGHT + (255,))
                back = HIGHLIGHT_CARD if not grey else CARD_PROBLEM
            else:
                boxes.append((l - 1, b - 1, w + 2, h + 2))
                colors.append(CARD_EDGE)
                back = CARD_PROBLEM if grey else CARD
            boxes.append(rect)
            colors.append(back)
            boxes.append(self._picture_box(rect))
            colors.append(PICTURE_PROBLEM if grey else PICTURE)
        self._card_backs.set(rects(boxes, colors) if boxes else np.zeros(0, VERTEX))

    def _build_panel(self) -> None:
        """The header, the panel, its buttons and texts for the current settings."""
        fonts = self._fonts
        w, h = self.draw_size
        px, pb, pw, ph = self._panel
        top = h - HEADER
        item = self.item
        startable = item is not None and not item.problem
        boxes = [(0, top, w, HEADER), self._panel]
        colors = [HEADER_BACK, PANEL_BACK]
        for name in ("open", "help"):
            boxes.append(self._buttons[name])
            colors.append(BUTTON_LIGHT)
        for name, *_ in ROWS:
            for s in "<>":
                boxes.append(self._buttons[name + s])
                colors.append(BUTTON)
        boxes.append(self._buttons["start"])
        colors.append(START if startable else START_OFF)
        v = [rects(boxes, colors)]
        v += [_chevron(self._buttons[name + s], s == ">", PANEL_TEXT) for name, *_ in ROWS for s in "<>"]
        self._ui.set(np.concatenate(v))
        # header
        self._header_title.position = (PAD + 4, top + HEADER / 2)
        sub_x = PAD + 4 + self._header_title.content_width + 14
        room = self._buttons["help"][0] - 12 - sub_x
        sub = "pick a creature, a task and a terrain, then start evolving"
        self._header_sub.text = fonts.fit(sub, room, 10) if room > 30 else ""
        self._header_sub.position = (sub_x, top + HEADER / 2 - 1)
        for name, t in self._button_texts.items():
            l, b, bw, bh = self._buttons[name]
            t.position = (l + bw / 2, b + bh / 2)
        self._button_texts["start"].text = next(
            (s for s in ("Start evolving (ENTER)", "Start evolving") if fonts.width(s, 13, True) <= pw - 30),
            "Start")
        summary = self._summary
        if self._summary_y is not None and item is not None:
            summary.text = fonts.fit(f"{item.title}: {self.setup.population} creatures, {self.setup.generations} "
                                     f"generations of {self.setup.seconds:g} s", pw - 24, LINE_SIZE)
            summary.position = (px + 12, self._summary_y)
            summary.visible = True
        else:
            summary.visible = False
        # rows: label and keys, the value between the buttons, descriptions under them
        lists = {"task": self.menu.tasks, "terrain": self.menu.terrains, "medium": self.menu.media,
                 "sensors": self.menu.sensors}
        picked = {n: (picks[i] if (i := self.pick_index(n)) >= 0 else None) for n, picks in lists.items()}
        values = {n: p.shown if p else str(getattr(self.setup, n) or {"task": "?", "sensors": "the defaults"}.get(
            n, "the task's own")) for n, p in picked.items()}
        values.update(population=f"{self.setup.population}", generations=f"{self.setup.generations}",
                      seconds=f"{self.setup.seconds:g} s", seed=f"{self.setup.seed}")
        notes = {n: p.description if p else "" for n, p in picked.items()}
        n_note = 0
        for k, (name, label, keys, note) in enumerate(ROWS):
            row = self._rows[name]
            t = self._row_labels.get(k)
            t.text = label.split()[-1] if row["beside"] else label
            t.position = (px + 12, row["label_y"])
            t = self._row_keys.get(k)
            t.text = "" if row["beside"] else keys
            t.position = (px + pw - 12, row["label_y"])
            t = self._row_values.get(k)
            size = 10 if row["beside"] else 12
            if t.font_size != size:
                t.font_size = size
            t.text = fonts.fit(values[name], row["value_width"], size, bold=True)
            t.position = row["value"]
            text = notes.get(name, note) or ""
            for s, y in zip(fonts.wrap(text, pw - 24, LINE_SIZE, len(row["lines"])), row["lines"]):
                t = self._row_notes.get(n_note)
                t.text = s
                t.position = (px + 12, y)
                n_note += 1
        self._row_labels.finish(len(ROWS))
        self._row_keys.finish(len(ROWS))
        self._row_values.finish(len(ROWS))
        self._row_notes.finish(n_note)

    def _build_help(self) -> None:
        w, h = self.draw_size
        self.help.layout(shrink((0, 0, w, h), 10))

    def _build_message(self) -> None:
        """The red box with :attr:`message`, at the bottom of the gallery (when it changed)."""
        key = (self.message, self.draw_size, self._layout_key)
        if self._overlay_keys.get("message") == key:
            return
        self._overlay_keys["message"] = key
        g = self._gallery
        room = g[2] - 2 * PAD - 28
        t = self._message_text
        t.text = self._fonts.fit(self.message or "", room, 11)
        bw = min(t.content_width + 28, g[2] - 2 * PAD)
        box = (g[0] + (g[2] - bw) / 2, PAD, bw, 30)
        t.position = (round(box[0] + 14), round(box[1] + 15))
        self._boxes["message"].set(rects([box], ERROR_BACK))

    def _build_entry(self) -> None:
        """The file entry over a shaded screen (when the text changed)."""
        key = (self.entry_text, self.draw_size, self._layout_key)
        if self._overlay_keys.get("entry") == key:
            return
        self._overlay_keys["entry"] = key
        w, h = self.draw_size
        ex, ey, ew, eh = self._entry_box
        fx, fy, fw, fh = self._entry_field
        boxes = [(0, 0, w, h), (ex, ey, ew, eh), (fx - 1, fy - 1, fw + 2, fh + 2), self._entry_field,
                 self._buttons["entry-open"], self._buttons["entry-cancel"]]
        colors = [SHADE, PANEL_BACK[:3] + (250,), HIGHLIGHT + (255,), FIELD, START, BUTTON]
        self._boxes["entry"].set(rects(boxes, colors))
        t = self._entry_texts
        t["title"].position = (ex + 16, ey + eh - 12)
        t["label"].position = (ex + 16, fy + fh / 2)
        t["field"].text = self._fonts.fit_tail((self.entry_text or "") + "|", fw - 12, 11)
        t["field"].position = (fx + 6, fy + fh / 2)
        t["hint"].position = (fx, fy - 14)
        for name in ("entry-open", "entry-cancel"):
            l, b, bw, bh = self._buttons[name]
            t[name].position = (l + bw / 2, b + bh / 2)

    def _build_scrollbar(self) -> None:
        key = (self.scroll, self._layout_key)
        if self._overlay_keys.get("scrollbar") == key:
            return
        self._overlay_keys["scrollbar"] = key
        if self._max_scroll <= 0:
            self._scrollbar.count = 0
            return
        g = self._gallery
        track = g[3] - 2 * PAD
        visible = g[3]
        length = max(30.0, track * visible / (visible + self._max_scroll))
        y = g[1] + PAD + (track - length) * (1.0 - self.scroll / self._max_scroll)
        x = g[0] + g[2] - 4         # between the cards and the panel
        self._scrollbar.set(rects([(x, g[1] + PAD, 4, track), (x, y, 4, length)],
                                  [(0, 0, 0, 30), (40, 60, 90, 150)]))

    # drawing -----------------------------------------------------------------------------------
    def on_draw(self) -> None:
        self.window.ctx.screen.use()
        self.clear(color=SKY)
        self.draw_menu()

    def draw_menu(self) -> None:
        """Draw the screen into the framebuffer in use (the window's, or an offscreen one)."""
        self._build()
        w, h = self.draw_size
        fw, fh = self._pixels
        sx, sy = fw / w, fh / h
        # the gallery, scrolled and clipped under the header, left of the panel
        g = self._gallery
        cam = self._gallery_camera
        cam.viewport = LBWH(0, 0, fw, fh)
        cam.projection = LBWH(-w / 2, -h / 2, w, h)
        cam.position = (w / 2, h / 2 - self.scroll)
        cam.scissor = LBWH(0, 0, max(1, round(g[2] * sx)), max(1, round(g[3] * sy)))
        cam.use()
        self._card_backs.draw(blend=False)
        self._pictures.draw(1.0 / sx)
        self._card_batch.draw()
        # the screen: header, panel, overlays
        scr = self._screen_camera
        scr.viewport = LBWH(0, 0, fw, fh)
        scr.projection = LBWH(-w / 2, -h / 2, w, h)
        scr.position = (w / 2, h / 2)
        scr.scissor = None
        scr.use()
        self._build_scrollbar()
        self._scrollbar.draw()
        self._ui.draw()
        self._panel_batch.draw()
        if self.entry_text is not None:
            self._build_entry()
            self._boxes["entry"].draw()
            self._batches["entry"].draw()
        if self.message:
            self._build_message()
            self._boxes["message"].draw()
            self._batches["message"].draw()
        if self.show_help:
            self.help.draw()

    def on_resize(self, width: int, height: int) -> None:
        if not self._fixed_size:
            self.draw_size = self._window_size()
            self._pixels = tuple(int(v) for v in self.window.get_framebuffer_size())

    def on_show_view(self) -> None:
        self.on_resize(*self.window.get_size())

    # input -------------------------------------------------------------------------------------
    def hit(self, x: float, y: float):
        """What is at window point ``(x, y)``: ``("button", name)``, ``("card", index)`` or None.
        While the file entry is open only its buttons and its box count (``("entry", None)``)."""
        self._ensure_layout()
        if self.entry_text is not None:
            for name in ("entry-open", "entry-cancel"):
                if _inside(self._buttons[name], x, y):
                    return ("button", name)
            return ("entry", None) if _inside(self._entry_box, x, y) else None
        for name, rect in self._buttons.items():
            if not name.startswith("entry-") and _inside(rect, x, y):
                return ("button", name)
        if _inside(self._gallery, x, y):
            for i, (l, b, w, h) in enumerate(self._cards):
                if _inside((l, b + self.scroll, w, h), x, y):
                    return ("card", i)
        return None

    def click(self, target) -> None:
        """Do what a click on ``target`` (from :meth:`hit`) does."""
        if target is None:
            if self.entry_text is not None:
                self.cancel_entry()
            return
        kind, what = target
        if kind == "card":
            now = time.monotonic()
            last, when = self._last_click
            if last == what and what == self.selected and now - when <= DOUBLE_CLICK:
                self._last_click = (None, -1.0)
                self.start()
                return
            self._last_click = (what, now)
            self.select(what)
            return
        if kind != "button":
            return
        if what == "start":
            self.start()
        elif what == "open":
            self.message = None
            self.open_entry()
        elif what == "help":
            self.show_help = not self.show_help
        elif what == "entry-open":
            self.submit_entry()
        elif what == "entry-cancel":
            self.cancel_entry()
        else:
            name, direction = what[:-1], (1 if what[-1] == ">" else -1)
            self.message = self._problem_line(self.item)
            {"task": self.cycle_task, "terrain": self.cycle_terrain,
             "medium": lambda d: self.cycle("medium", d), "sensors": lambda d: self.cycle("sensors", d),
             "population": self.step_population, "generations": self.step_generations,
             "seconds": self.step_seconds, "seed": self.step_seed}[name](direction)

    def on_mouse_press(self, x, y, button, modifiers) -> None:
        if button != arcade.MOUSE_BUTTON_LEFT:
            return
        if self.show_help:             # a click closes the help
            self.show_help = False
            self._pressed = "help-closed"
            return
        self._pressed = self.hit(x, y)

    def on_mouse_release(self, x, y, button, modifiers) -> None:
        if button != arcade.MOUSE_BUTTON_LEFT:
            return
        pressed, self._pressed = self._pressed, None
        if pressed == "help-closed":
            return
        target = self.hit(x, y)
        if target == pressed:
            self.click(target)

    def on_mouse_scroll(self, x, y, scroll_x, scroll_y) -> None:
        if self.entry_text is None:
            self.scroll_by(-scroll_y * SCROLL_STEP)

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        k = arcade.key
        if self.entry_text is not None:
            self._entry_key(symbol, modifiers)
            return
        if self.show_help:
            if symbol in (k.ESCAPE, k.H):
                self.show_help = False
                return
            self.show_help = False
        back = -1 if modifiers & k.MOD_SHIFT else 1
        problem = self._problem_line(self.item)
        if symbol in (k.ESCAPE, k.Q):
            self.quit()
        elif symbol == k.H:
            self.show_help = True
        elif symbol in (k.RETURN, k.ENTER, k.NUM_ENTER):
            self.start()
        elif symbol == k.O:
            self.message = None
            self.open_entry()
            self._swallow = time.monotonic()
        elif symbol in (k.LEFT, k.RIGHT, k.UP, k.DOWN):
            self.move((symbol == k.RIGHT) - (symbol == k.LEFT), (symbol == k.DOWN) - (symbol == k.UP))
        elif symbol == k.HOME:
            self.select(0)
        elif symbol == k.END:
            self.select(len(self.designs) - 1)
        elif symbol in (k.PAGEUP, k.PAGEDOWN):
            page = self._gallery[3] - 2 * PAD if self._layout_key else SCROLL_STEP
            self.scroll_by(page if symbol == k.PAGEDOWN else -page)
        else:
            action = {k.T: lambda: self.cycle_task(back), k.G: lambda: self.cycle_terrain(back),
                      k.S: lambda: self.step_seed(back), k.E: lambda: self.step_seconds(back),
                      k.M: lambda: self.cycle("medium", back), k.I: lambda: self.cycle("sensors", back),
                      k.EQUAL: lambda: self.step_population(1), k.PLUS: lambda: self.step_population(1),
                      k.NUM_ADD: lambda: self.step_population(1),
                      k.MINUS: lambda: self.step_population(-1),
                      k.NUM_SUBTRACT: lambda: self.step_population(-1),
                      k.BRACKETRIGHT: lambda: self.step_generations(1),
                      k.BRACKETLEFT: lambda: self.step_generations(-1)}.get(symbol)
            if action is not None:
                self.message = problem       # a setting's change clears an old error
                action()

    def _entry_key(self, symbol: int, modifiers: int) -> None:
        k = arcade.key
        if symbol == k.ESCAPE:
            self.cancel_entry()
            self.message = None
        elif symbol in (k.RETURN, k.ENTER, k.NUM_ENTER):
            self.submit_entry()
        elif symbol == k.BACKSPACE:
            self.entry_text = self.entry_text[:-1]

    def on_text(self, text: str) -> None:
        """Typing into the file entry (control characters are dropped)."""
        if self.entry_text is None:
            return
        swallow, self._swallow = self._swallow, None
        if swallow is not None and text in ("o", "O") and time.monotonic() - swallow < 0.3:
            return                      # the O that opened the entry
        typed = "".join(c for c in text if c.isprintable())
        if typed:
            self.entry_text += typed

    def on_file_drop(self, x, y, paths) -> None:
        """Design files dropped on the window are opened (the last one selected)."""
        for path in paths:
            self.open_path(path)

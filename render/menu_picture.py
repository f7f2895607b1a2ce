"""The picture of the start screen (:class:`~render.menu.StartView`): where everything goes and
how it is drawn.

:class:`StartPicture` belongs to one view and reads its state (the designs, the selection, the
setup, the message, the file entry, the help, the scroll); it never changes what is chosen. It
holds

- the **layout**, in window units (the mouse's): the header and its buttons, the gallery's cards
  (:attr:`StartPicture.cards`, unscrolled), the settings panel's rows and buttons, the file entry's
  box; the view hit-tests against it;
- the **geometry and texts** built from it, and draws them with :meth:`StartPicture.draw`.

Drawing is cheap: geometry is built when the layout changes (a resize, a design added), the
selection changes (the frame around a card) or a setting changes (the panel's texts), never per
frame; the view says which (:meth:`StartPicture.selection_changed`,
:meth:`StartPicture.settings_changed`, :meth:`StartPicture.designs_changed`). Every card's bones
and spheres are one batch of instanced segments (``render/_gl.py``; a sphere is a zero-length
segment, a disc), the card backs one batch of triangles, the texts pyglet batches. Scrolling
moves the gallery's camera only. The layout is drawn through :class:`arcade.camera.Camera2D`
onto the framebuffer.
"""

from __future__ import annotations

from ._display import prefer_headless

prefer_headless()

import arcade  # noqa: E402
import numpy as np  # noqa: E402
import pyglet  # noqa: E402
from arcade.camera import Camera2D  # noqa: E402
from arcade.types import LBWH  # noqa: E402

from ._gl import SEGMENT, VERTEX, Segments, Triangles, rects  # noqa: E402
from .layout import shrink  # noqa: E402
from .bodies import part_mask  # noqa: E402
from .text import FONT, Fonts  # noqa: E402
from .textpool import TextPool  # noqa: E402
from .theme import BONE_RIGID, BONE_SOFT, MUSCLE_REST, PANEL_BACK, PANEL_TEXT, SPHERE, TEXT  # noqa: E402
from .widgets import Buttons  # noqa: E402

__all__ = ["StartPicture", "ROWS", "BUTTONS", "GROW_NOTES", "noise_text", "trials_text", "grow_text"]

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
TITLE_SIZE, LINE_SIZE, SMALL_SIZE = 12, 9, 8
SUMMARY_ROOM = 58               # between the last row and Start, for the summary's two lines

#: the settings rows of the panel: (name, label, keys shown beside the label, note under the row)
ROWS = (
    ("task", "task", "T / shift T", None),
    ("terrain", "terrain", "G / shift G", None),
    ("medium", "medium", "M / shift M", None),
    ("sensors", "sensors", "I / shift I", None),
    ("grow", "body", "W", None),
    ("population", "population", "- / +", "creatures in each generation"),
    ("generations", "generations", "[ / ]", "generations to evolve"),
    ("seconds", "episode seconds", "E / shift E", "simulated seconds each creature is tried for"),
    ("trials", "trials", "R / shift R", "starts each creature is scored from"),
    ("noise", "start noise", "N / shift N", "how far each start moves every sphere"),
    ("seed", "seed", "S / shift S", "the same seed evolves the same run"),
)
#: the rows that pick from a list (their notes are the picks' descriptions)
PICKS = ("task", "terrain", "medium", "sensors")
#: the body row's note: (grow from scratch, the body grows, it does not)
GROW_NOTES = ("the sprout, grown by evolution", "evolution adds and removes parts",
              "the design's own (W: let it grow)")
#: names of :meth:`~render.menu.StartView.button_rect` (the entry's two buttons only while it is open)
BUTTONS = ("start", "open", "hall", "help") + tuple(f"{r[0]}{s}" for r in ROWS for s in "<>") + (
    "entry-open", "entry-cancel")


def noise_text(noise: float) -> str:
    """A start noise (metres) in human units: ``exact start`` (0), ``0.1 mm``, ``1 mm``, ``1 cm``."""
    noise = float(noise)
    if noise <= 0.0:
        return "exact start"
    if noise >= 0.01:
        return f"{round(noise * 100, 6):g} cm"
    return f"{round(noise * 1000, 6):g} mm"


def trials_text(count: int, noise: float) -> str:
    """How each creature is scored, short: ``1 start, 1 mm``, ``2 starts, 1 cm``, ``1 exact
    start``, ``4 exact starts`` (all the same start)."""
    count = int(count)
    starts = "start" if count == 1 else "starts"
    if float(noise) <= 0.0:
        return f"{count} exact {starts}"
    return f"{count} {starts}, {noise_text(noise)}"


def grow_text(grows: bool) -> str:
    """The body row's value: ``grows`` (evolution adds and removes parts) or ``fixed``."""
    return "grows" if grows else "fixed"


def _looks(color, colored, n: int):
    """A shape's own colours of its ``n`` spheres or bones as ``(colours (n, 3), which (n,))``,
    or None when it has none (or they do not fit)."""
    if color is None:
        return None
    c = np.asarray(color, np.uint8).reshape(-1, 3) if np.size(color) else np.zeros((0, 3), np.uint8)
    which = np.ones(n, bool) if colored is None else np.asarray(colored, bool).reshape(-1)
    return (c, which) if c.shape[0] == n and which.size == n else None


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
    on = part_mask(shape.sphere_on, P)
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
    keep = good & part_mask(shape.bone_on, E) & on[np.where(good, a, 0)] & on[np.where(good, b, 0)]
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
    if not grey:   # the design's looks, as the viewer, GIFs and cards wear them (muscles keep theirs)
        bone_index = np.concatenate([np.flatnonzero(keep)] + [np.full(x.size, -1) for x in ca[1:]])
        own = _looks(shape.bone_color, shape.bone_colored, E)
        if own is not None:
            mine = (bone_index >= 0) & (bk != 2)
            mine[mine] = own[1][bone_index[mine]]
            out["color"][:n, :3][mine] = own[0][bone_index[mine]]
    out["color"][:n, 3] = 255
    out["width"][:n] = widths[bk]
    # spheres over the bones: a rim disc, then the fill (zero-length segments are discs)
    c = p[spheres]
    d = np.maximum(2.0 * r[spheres] * z, 3.0)
    out["seg"][n:] = np.repeat(np.concatenate([c, c], axis=1), 2, axis=0)
    out["color"][n::2, :3] = GREY_RIM if grey else SPHERE_RIM
    out["color"][n + 1::2, :3] = GREY_SPHERE if grey else SPHERE
    own = None if grey else _looks(shape.sphere_color, shape.sphere_colored, P)
    if own is not None:
        fill = out["color"][n + 1::2, :3]
        coloured = own[1][spheres]
        fill[coloured] = own[0][spheres][coloured]
        out["color"][n + 1::2, :3] = fill
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


class StartPicture:
    """The start screen's layout and drawing, for one :class:`~render.menu.StartView`.

    It reads the view's state and draws it; the view keeps what is chosen and handles the input,
    hit-testing against the layout below. The layout is made again when the view's size or its
    number of designs changes (:meth:`ensure_layout`); the geometry and texts only when the view
    says something changed, so that a frame only draws.

    Parameters
    ----------
    view : StartView
        What is drawn: its ``draw_size``, ``designs``, ``selected``, ``item``, ``setup``,
        ``growing``, ``menu`` (and ``pick_index``), ``message``, ``entry`` (the file entry), ``show_help``,
        ``help`` and ``scroll``; its window's GL context draws.

    Attributes
    ----------
    view : StartView
        The view drawn.
    cards : list of (float, float, float, float)
        Each card as (left, bottom, width, height) in window units, unscrolled (the view adds its
        ``scroll``).
    gallery : (float, float, float, float)
        The gallery's area (under the header, left of the panel).
    buttons : render.widgets.Buttons
        The header's buttons, the settings rows' ``<`` ``>`` (their arrows drawn here) and Start:
        each one's rect by name (:data:`BUTTONS`), and the labels of the first three.
    entry_buttons : render.widgets.Buttons
        The file entry's ``entry-open`` and ``entry-cancel`` (drawn while the entry is open).
    entry_box : (float, float, float, float)
        The file entry's box (drawn while the entry is open).
    columns : int
        Cards in a gallery row.
    max_scroll : float
        How far the gallery scrolls (0: every card is in view).
    pictures : Segments
        Every card's creature, one batch of instanced segments (uploaded when the cards are laid
        out, never per frame).
    row_values : TextPool
        The settings rows' values, in the order of :data:`ROWS`.
    summary : (arcade.Text, arcade.Text)
        What Start will do, above it where there is room: the design, population, generations
        and seconds; under it how each creature is scored (:func:`trials_text`) and whether the
        body grows, where there is room for two lines.

    The layout's attributes are those of the last :meth:`ensure_layout`.
    """

    def __init__(self, view):
        self.view = view
        self._fonts = Fonts()
        self._layout_key = None
        self._cards_dirty = self._panel_dirty = True
        self._overlay_keys = {}
        # GL: the gallery (scrolled) and the screen
        ctx = view.window.ctx
        self._gallery_camera = Camera2D(window=view.window)
        self._screen_camera = Camera2D(window=view.window)
        self._card_backs = Triangles(ctx)
        self.pictures = Segments(ctx)
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
        self.buttons = Buttons(self._panel_batch, PANEL_TEXT)
        for name, label, size, bold in (("open", "Open a file (O)", 10, False), ("help", "Keys (H)", 10, False),
                                        ("hall", "Hall of fame (B)", 10, False),
                                        ("start", "Start evolving (ENTER)", 13, True)):
            self.buttons.label(name, label, size, bold)
        self._row_labels = TextPool(self._panel_batch, color=PANEL_LABEL, font_size=LINE_SIZE,
                                     font_name=FONT, anchor_y="top")
        self._row_keys = TextPool(self._panel_batch, color=KEY_HINT, font_size=SMALL_SIZE,
                                   font_name=FONT, anchor_x="right", anchor_y="top")
        self.row_values = TextPool(self._panel_batch, color=PANEL_TEXT, font_size=12, bold=True,
                                    font_name=FONT, anchor_x="center", anchor_y="center")
        self._row_notes = TextPool(self._panel_batch, color=PANEL_NOTE, font_size=LINE_SIZE,
                                    font_name=FONT, anchor_y="top")
        self.summary = tuple(arcade.Text("", 0, 0, PANEL_NOTE, LINE_SIZE, font_name=FONT,
                                         anchor_y="bottom", batch=self._panel_batch) for _ in range(2))
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
        }
        self.entry_buttons = Buttons(self._batches["entry"], PANEL_TEXT, 11)
        self.entry_buttons.label("entry-open", "Open", bold=True)
        self.entry_buttons.label("entry-cancel", "Cancel")

    # what the view tells -----------------------------------------------------------------------
    @property
    def laid_out(self) -> bool:
        """Whether :meth:`ensure_layout` has laid the screen out (since the designs changed)."""
        return self._layout_key is not None

    def designs_changed(self) -> None:
        """The view's designs changed (a file opened): lay the screen out again."""
        self._layout_key = None

    def selection_changed(self) -> None:
        """The selected card changed: its frame and the panel (the summary, Start) are built again."""
        self._cards_dirty = self._panel_dirty = True

    def settings_changed(self) -> None:
        """A setting changed: the panel's texts are built again."""
        self._panel_dirty = True

    # layout ------------------------------------------------------------------------------------
    def ensure_layout(self) -> None:
        """Where everything goes, for the view's size and number of designs (no drawing); the
        view's scroll is kept within the new :attr:`max_scroll`."""
        key = (self.view.draw_size, len(self.view.designs))
        if key == self._layout_key:
            return
        self._layout_key = key
        self._built = False
        w, h = self.view.draw_size
        # the settings panel on the right, under the header; the gallery fills the rest
        pw = int(min(max(round(PANEL_FRACTION * w), PANEL_WIDTH[0]), PANEL_WIDTH[1]))
        px = w - PAD - pw
        top = h - HEADER
        self._panel = (px, PAD, pw, top - 2 * PAD)
        self.gallery = (0, 0, px - PAD // 2, top)
        gw = max(px - 2 * PAD, 40)
        cols = max(1, int((gw + GAP) // (CARD_MIN_WIDTH + GAP)))
        cw = int((gw - (cols - 1) * GAP) // cols)
        ch = int(min(max(round(0.9 * cw), CARD_HEIGHT[0]), CARD_HEIGHT[1]))
        self.columns = cols
        self.cards = []
        for i in range(len(self.view.designs)):
            r, c = divmod(i, cols)
            ctop = top - PAD - r * (ch + GAP)
            self.cards.append((PAD + c * (cw + GAP), ctop - ch, cw, ch))
        lowest = min((b for _, b, _, _ in self.cards), default=PAD)
        self.max_scroll = float(max(0, PAD - lowest))
        self.view.scroll = float(min(max(self.view.scroll, 0.0), self.max_scroll))
        # header buttons, right to left
        bh = HEADER - 18
        self.buttons.clear()
        self.buttons.place("open", (w - PAD - 150, top + 9, 150, bh))
        self.buttons.place("hall", (w - PAD - 150 - 10 - 150, top + 9, 150, bh))
        self.buttons.place("help", (w - PAD - 150 - 10 - 150 - 10 - 90, top + 9, 90, bh))
        self._layout_panel()
        self._layout_entry()

    def _layout_panel(self) -> None:
        """The settings rows from the panel's top, the Start button at its bottom, the summary
        between them. Rows shrink (smaller buttons, fewer description lines) when the panel is
        short: the roomiest rows that leave the summary its two lines, else the roomiest that fit."""
        px, pb, pw, ph = self._panel
        modes = (  # label line, button row, description line, lines (picks, others), gap, start, beside
            (17, 28, 14, 2, 1, 12, 46, False),
            (16, 26, 13, 2, 1, 8, 42, False),
            (16, 26, 13, 2, 0, 8, 42, False),
            (14, 22, 12, 2, 0, 3, 36, False),
            (13, 21, 12, 2, 0, 1, 32, False),
            (14, 22, 12, 1, 0, 5, 34, False),
            (12, 20, 11, 1, 0, 3, 30, False),
            (13, 20, 11, 0, 0, 3, 30, False),
            (12, 19, 11, 0, 0, 2, 28, False),
            (13, 22, 11, 0, 0, 4, 30, True),       # the label beside its buttons
            (13, 19, 11, 0, 0, 2, 26, True),
            (13, 17, 11, 0, 0, 1, 24, True),
            (13, 16, 11, 0, 0, 0, 22, True))

        def need(mode, summary: bool) -> float:
            label_h, button_h, line_h, n_pick, n_other, gap, start_h, beside = mode
            return 10 + sum((0 if beside else label_h) + button_h + 4 + gap
                            + line_h * (n_pick if r[0] in PICKS else n_other) for r in ROWS) \
                + start_h + 10 + (SUMMARY_ROOM if summary else 10)
        mode = next((m for summary in (True, False) for m in modes if need(m, summary) <= ph), modes[-1])
        label_h, button_h, line_h, n_pick, n_other, gap, start_h, beside = mode
        self._panel_mode = mode
        rows = {}
        y = pb + ph - 10
        bw = button_h + 6
        # beside its buttons, a label is its last word ("seconds"), the value smaller
        label_w = max(self._fonts.width(label.split()[-1], LINE_SIZE) for _, label, *_ in ROWS) + 8 if beside else 0
        for name, *_ in ROWS:
            n_lines = n_pick if name in PICKS else n_other
            by = y - (0 if beside else label_h) - button_h
            self.buttons.place(f"{name}<", (px + 10 + label_w, by, bw, button_h))
            self.buttons.place(f"{name}>", (px + pw - 10 - bw, by, bw, button_h))
            rows[name] = {"label_y": by + (button_h + label_h) / 2 if beside else y, "beside": beside,
                          "value": (px + (pw + label_w) / 2, by + button_h / 2),
                          "value_width": pw - 20 - label_w - 2 * bw - 12,
                          "lines": [by - 4 - k * line_h for k in range(n_lines)]}
            y = by - 4 - n_lines * line_h - gap
        self._rows = rows
        self.buttons.place("start", (px + 10, pb + 10, pw - 20, start_h))
        # what Start will do, above it, where there is room (two lines where there is for both)
        room = y - (pb + 10 + start_h)
        self._summary_y = pb + 10 + start_h + 10 if room > 40 else None
        self._summary_lines = 2 if room >= SUMMARY_ROOM else 1

    def _layout_entry(self) -> None:
        w, h = self.view.draw_size
        ew, eh = int(min(w - 40, 640)), 138
        ex, ey = (w - ew) // 2, (h - eh) // 2
        self.entry_box = (ex, ey, ew, eh)
        self._entry_field = (ex + 110, ey + eh - 72, ew - 126, 30)
        self.entry_buttons.clear()
        self.entry_buttons.place("entry-open", (ex + ew - 16 - 96, ey + 12, 96, 30))
        self.entry_buttons.place("entry-cancel", (ex + ew - 16 - 96 - 10 - 96, ey + 12, 96, 30))

    # building (on layout, selection or setting changes; never per frame) ----------------------
    def _build(self) -> None:
        """Rebuild what changed since the last frame."""
        self.ensure_layout()
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
        for item, rect in zip(self.view.designs, self.cards):
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
        rows = self.pictures.reserve(seg.size)
        rows[:] = seg
        self.pictures.upload()
        g = self.gallery
        self._empty_text.visible = not self.view.designs
        self._empty_text.position = (g[0] + g[2] / 2, g[1] + g[3] / 2)

    def _build_card_backs(self) -> None:
        """Card backs, their picture insets and the selected card's frame (one batch)."""
        boxes, colors = [], []
        for i, (item, rect) in enumerate(zip(self.view.designs, self.cards)):
            l, b, w, h = rect
            grey = bool(item.problem) or item.shape is None
            if i == self.view.selected:
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
        view = self.view
        w, h = view.draw_size
        px, pb, pw, ph = self._panel
        top = h - HEADER
        item = view.item
        startable = item is not None and not item.problem
        boxes = [(0, top, w, HEADER), self._panel]
        colors = [HEADER_BACK, PANEL_BACK]
        backs = {"open": BUTTON_LIGHT, "hall": BUTTON_LIGHT, "help": BUTTON_LIGHT, "start": START if startable else START_OFF}
        self.buttons.backs(boxes, colors, lambda name: backs.get(name, BUTTON))      # the rows' < > in BUTTON
        v = [rects(boxes, colors)]
        v += [_chevron(self.buttons[name + s], s == ">", PANEL_TEXT) for name, *_ in ROWS for s in "<>"]
        self._ui.set(np.concatenate(v))
        # header
        self._header_title.position = (PAD + 4, top + HEADER / 2)
        sub_x = PAD + 4 + self._header_title.content_width + 14
        room = self.buttons["help"][0] - 12 - sub_x
        sub = "pick a creature, a task and a terrain, then start evolving"
        self._header_sub.text = fonts.fit(sub, room, 10) if room > 30 else ""
        self._header_sub.position = (sub_x, top + HEADER / 2 - 1)
        self.buttons.label("start", next(
            (s for s in ("Start evolving (ENTER)", "Start evolving") if fonts.width(s, 13, True) <= pw - 30),
            "Start"))
        first, second = self.summary
        setup = view.setup
        shown = self._summary_y is not None and item is not None
        first.visible = shown
        second.visible = shown and self._summary_lines == 2
        if shown:
            first.text = fonts.fit(f"{item.title}: {setup.population} creatures, {setup.generations} "
                                   f"generations of {setup.seconds:g} s", pw - 24, LINE_SIZE)
            grows = "; the body grows" if view.growing else ""
            second.text = fonts.fit(f"each scored from {trials_text(setup.trials, setup.noise)}{grows}", pw - 24,
                                    LINE_SIZE)
            first.position = (px + 12, self._summary_y + (LINE_SIZE + 7 if second.visible else 0))
            second.position = (px + 12, self._summary_y)
        # rows: label and keys, the value between the buttons, descriptions under them
        lists = {"task": view.menu.tasks, "terrain": view.menu.terrains, "medium": view.menu.media,
                 "sensors": view.menu.sensors}
        picked = {n: (picks[i] if (i := view.pick_index(n)) >= 0 else None) for n, picks in lists.items()}
        values = {n: p.shown if p else str(getattr(view.setup, n) or {"task": "?", "sensors": "the defaults"}.get(
            n, "the task's own")) for n, p in picked.items()}
        values.update(population=f"{view.setup.population}", generations=f"{view.setup.generations}",
                      seconds=f"{view.setup.seconds:g} s", seed=f"{view.setup.seed}",
                      trials=f"{view.setup.trials} start{'' if view.setup.trials == 1 else 's'}",
                      noise=noise_text(view.setup.noise), grow=grow_text(view.growing))
        notes = {n: p.description if p else "" for n, p in picked.items()}
        notes["grow"] = GROW_NOTES[0 if item is not None and item.grow else 1 if view.growing else 2]
        n_note = 0
        for k, (name, label, keys, note) in enumerate(ROWS):
            row = self._rows[name]
            t = self._row_labels.get(k)
            t.text = label.split()[-1] if row["beside"] else label
            t.position = (px + 12, row["label_y"])
            t = self._row_keys.get(k)
            t.text = "" if row["beside"] else keys
            t.position = (px + pw - 12, row["label_y"])
            t = self.row_values.get(k)
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
        self.row_values.finish(len(ROWS))
        self._row_notes.finish(n_note)

    def _build_help(self) -> None:
        w, h = self.view.draw_size
        self.view.help.layout(shrink((0, 0, w, h), 10))

    def _build_message(self) -> None:
        """The red box with :attr:`message`, at the bottom of the gallery (when it changed)."""
        key = (self.view.message, self.view.draw_size, self._layout_key)
        if self._overlay_keys.get("message") == key:
            return
        self._overlay_keys["message"] = key
        g = self.gallery
        room = g[2] - 2 * PAD - 28
        t = self._message_text
        t.text = self._fonts.fit(self.view.message or "", room, 11)
        bw = min(t.content_width + 28, g[2] - 2 * PAD)
        box = (g[0] + (g[2] - bw) / 2, PAD, bw, 30)
        t.position = (round(box[0] + 14), round(box[1] + 15))
        self._boxes["message"].set(rects([box], ERROR_BACK))

    def _build_entry(self) -> None:
        """The file entry over a shaded screen (when the text changed)."""
        entry = self.view.entry
        key = (entry.text, entry.fresh, self.view.draw_size, self._layout_key)
        if self._overlay_keys.get("entry") == key:
            return
        self._overlay_keys["entry"] = key
        w, h = self.view.draw_size
        ex, ey, ew, eh = self.entry_box
        fx, fy, fw, fh = self._entry_field
        boxes = [(0, 0, w, h), (ex, ey, ew, eh), (fx - 1, fy - 1, fw + 2, fh + 2), self._entry_field]
        colors = [SHADE, PANEL_BACK[:3] + (250,), HIGHLIGHT + (255,), FIELD]
        self.entry_buttons.backs(boxes, colors, {"entry-open": START, "entry-cancel": BUTTON}.get)
        self._boxes["entry"].set(rects(boxes, colors))
        t = self._entry_texts
        t["title"].position = (ex + 16, ey + eh - 12)
        t["label"].position = (ex + 16, fy + fh / 2)
        t["field"].text = self._fonts.fit_tail(entry.shown, fw - 12, 11)
        t["field"].position = (fx + 6, fy + fh / 2)
        t["hint"].position = (fx, fy - 14)

    def _build_scrollbar(self) -> None:
        key = (self.view.scroll, self._layout_key)
        if self._overlay_keys.get("scrollbar") == key:
            return
        self._overlay_keys["scrollbar"] = key
        if self.max_scroll <= 0:
            self._scrollbar.count = 0
            return
        g = self.gallery
        track = g[3] - 2 * PAD
        visible = g[3]
        length = max(30.0, track * visible / (visible + self.max_scroll))
        y = g[1] + PAD + (track - length) * (1.0 - self.view.scroll / self.max_scroll)
        x = g[0] + g[2] - 4         # between the cards and the panel
        self._scrollbar.set(rects([(x, g[1] + PAD, 4, track), (x, y, 4, length)],
                                  [(0, 0, 0, 30), (40, 60, 90, 150)]))

    # drawing -----------------------------------------------------------------------------------
    def draw(self, pixels) -> None:
        """Draw the screen into the framebuffer in use (the window's, or an offscreen one),
        ``pixels`` (width, height) big, building first what changed."""
        self._build()
        w, h = self.view.draw_size
        fw, fh = pixels
        sx, sy = fw / w, fh / h
        # the gallery, scrolled and clipped under the header, left of the panel
        g = self.gallery
        cam = self._gallery_camera
        cam.viewport = LBWH(0, 0, fw, fh)
        cam.projection = LBWH(-w / 2, -h / 2, w, h)
        cam.position = (w / 2, h / 2 - self.view.scroll)
        cam.scissor = LBWH(0, 0, max(1, round(g[2] * sx)), max(1, round(g[3] * sy)))
        cam.use()
        self._card_backs.draw(blend=False)
        self.pictures.draw(1.0 / sx)
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
        if self.view.entry.is_open:
            self._build_entry()
            self._boxes["entry"].draw()
            self._batches["entry"].draw()
        if self.view.message:
            self._build_message()
            self._boxes["message"].draw()
            self._batches["message"].draw()
        if self.view.show_help:
            self.view.help.draw()

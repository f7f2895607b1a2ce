"""The window of ``creatures edit``: build a creature from spheres, bones, muscles, joints and
clusters, and try it out live.

:class:`EditorView` is an ``arcade.View`` driving a :class:`~render.game.DesignDoc` (a design
file being edited; the ``creatures`` package builds it). The document owns the YAML, checks every
edit, keeps the undo steps and writes the file; the view draws its :class:`~render.game.Sketch`
and turns clicks and keys into the document's methods. It shows:

- the **canvas**: the design in metres, y up, over a grid and the ground line (y = 0). Spheres are
  discs to scale with a rim, bones dark segments, muscles red ones, joints arcs at their sphere
  spanning a hinge's [min, max] (a dashed ring for a free joint), clusters translucent polygons
  (their members' convex hull). The selection has a blue halo, the items a problem is about are
  red, the items that evolve (``sketch.evolving``) carry a purple dashed ring (spheres) or a
  purple badge (bones, joints, clusters). The wheel, + and - zoom; a right or middle drag and
  the arrows pan;
- the **toolbar** (top): the tools (select and move, sphere, bone, muscle, joint, cluster), the
  edits (delete, undo, redo), the grid snap, save, the live test, evolve and the keys;
- the **side panel** (right): the selected item's values (``doc.fields``), or the design's own
  when nothing is selected, each ``key  value  unit``; a value that comes from a default is
  greyed. Click a row (or TAB to it and press ENTER) to type a new value: ENTER sets it
  (``doc.set_field``), ESC cancels, an error is shown under the rows;
- the **problems** (bottom): the document's problems in red, the first few and "... and N more";
  a click on one selects its items. With none, "valid" in green. Above them a status line: the
  file (``*`` when it has unsaved changes), the tool, the snap, the number of parts.

The live test (T) replaces the canvas and the panels by a :class:`~render.viewer.Viewer`
playing ``doc.live_source(terrain)`` (the design on a sine wave; R goes through
``doc.terrains``); T again (or ESC) returns to the editing exactly as it was left (selection,
camera). The viewer's own keys work while it plays. Keys are listed in :data:`KEYS` (H shows
them); every tool and action has a button too.

Drawing is batched and built only when something changes: the grid and the ground line are one
batch of instanced segments (``render/_gl.py``), rebuilt when the zoom changes or the view pans
out of the region they cover; the design (cluster outlines, bones, joint arcs, spheres with
their rims and halos, badges, limit handles) is one more, the cluster polygons and hinge wedges
one batch of triangles, rebuilt when the sketch, the selection, the problems or the zoom change
and while something is dragged (from numpy arrays: a 40-sphere design rebuilds in well under a
millisecond). Panning moves the camera only. Texts are pyglet batches whose strings are set
only when they change. :func:`measure_editor_frames` times frames offscreen (``creatures bench
--viewer``).
"""

from __future__ import annotations

import math
import os
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
from .viewer import (BONE_RIGID, FONT, GROUND, PANEL_BACK, PANEL_TEXT, SKY, SPHERE, TEXT, Viewer,  # noqa: E402
                     TextPool)

__all__ = ["EditorView", "KEYS", "BUTTONS", "TOOLS", "SNAP", "measure_editor_frames"]

# look ---------------------------------------------------------------------------------------------
GROUND_FILL = tuple(int(c + (255 - c) * 0.5) for c in GROUND)   # under y = 0: the viewer's, paler
GROUND_LINE = (72, 104, 58)
GRID = (190, 212, 229)
GRID_MAJOR = (164, 192, 214)            # every metre
MUSCLE = (214, 70, 56)                  # a muscle at rest, distinct from the dark bones
SPHERE_RIM = tuple(int(c * 150 / 255) for c in SPHERE)     # as the viewer's disc texture tints it
JOINT = (36, 128, 188)
JOINT_WEDGE = (36, 128, 188, 46)        # a hinge's range, filled
CLUSTER_FILL = (122, 96, 214, 64)
CLUSTER_EDGE = (104, 80, 196, 200)
SELECT = (37, 99, 235)                  # the selection's halo (the menu's highlight)
PROBLEM = (222, 38, 38)                 # items a problem is about
PROBLEM_RIM = (150, 20, 20)
EVOLVE = (150, 62, 204)                 # items that evolve: dashed ring, badges
HANDLE_CORE = (255, 255, 255)
BOX_FILL = (37, 99, 235, 36)
BOX_EDGE = (37, 99, 235, 200)
TOOLBAR_BACK = (24, 28, 36, 255)
BUTTON = (62, 70, 88, 255)
BUTTON_ON = (37, 99, 235, 255)          # the tool in use, snap on, the live test
BUTTON_TEXT = (236, 240, 246, 255)
BUTTON_OFF_TEXT = (130, 136, 150, 255)  # undo / redo with nothing to undo
PANEL_LABEL = (176, 184, 198, 255)
PANEL_MUTED = (126, 132, 146, 255)      # values that come from defaults
PANEL_ERROR = (255, 120, 110, 255)
ROW_FOCUS = (52, 60, 78, 255)
ROW_HOVER = (40, 46, 60, 255)
FIELD = (250, 251, 253, 255)
FIELD_SELECTED = (196, 218, 252, 255)   # the entry's text before the first key replaces it
STRIP_BACK = (244, 246, 250, 255)
STRIP_EDGE = (206, 212, 222, 255)
PROBLEM_TEXT = (190, 28, 28, 255)
VALID_TEXT = (26, 140, 58, 255)
HINT_TEXT = (40, 48, 62, 200)
MESSAGE_BACK = (30, 36, 48, 235)
ERROR_BACK = (196, 36, 36, 240)
MESSAGE_TEXT = (255, 255, 255, 255)

# layout (window units) ----------------------------------------------------------------------------
TOOLBAR = 36                    # the toolbar's height
PAD = 8
PANEL_WIDTH = (210, 330)        # the side panel: PANEL_FRACTION of the width, within these
PANEL_FRACTION = 0.25
ROW = 22                        # a panel row
PANEL_TITLE = 34                # the panel's title above the rows
PANEL_FOOT = 86                 # under the rows: the hint and an error
STATUS = 20                     # the status line
PROBLEM_LINE = 16               # a line of the problems list

# behaviour ----------------------------------------------------------------------------------------
#: the grid snap (m): positions dropped or moved with snap on are multiples of it
SNAP = 0.05
#: hinge limits dragged with snap on are multiples of this (degrees; 1 otherwise)
ANGLE_SNAP = 5.0
ZOOM_RANGE = (8.0, 4000.0)      # pixels per metre
ZOOM_STEP = 1.25                # + and -
WHEEL_STEP = 1.15               # per wheel notch
PAN_STEP = 0.1                  # view widths per arrow press
PAN_SPEED = 0.8                 # view widths per second while an arrow is held
CLICK_SLOP = 4.0                # pixels a press may move and still be a click
HIT_SLOP = 4.0                  # pixels around a sphere or a bone that still hit it
ARC_PIXELS = 16.0               # a joint's arc: this far outside its sphere
ARC_STEPS = 32                  # segments of an arc
HANDLE_PIXELS = 13.0            # a limit handle's diameter
JOINT_REACH = 36.0              # the joint tool: clicks this far outside a sphere are about it
MAX_PROBLEM_LINES = 5
#: seconds a message that is not an error stays (an error stays until the next edit)
MESSAGE_SECONDS = 8.0
GRID_STEPS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0)
GRID_MIN_PIXELS = 14.0          # grid lines at least this far apart

#: the tools (:attr:`EditorView.tool`)
TOOLS = ("select", "sphere", "bone", "muscle", "joint", "cluster")
#: names of :meth:`EditorView.button_rect`, left to right
BUTTONS = TOOLS + ("delete", "undo", "redo", "snap", "save", "test", "evolve", "help")
_BUTTON_KEYS = {"select": "V", "sphere": "S", "bone": "B", "muscle": "M", "joint": "J", "cluster": "C",
                "delete": "DEL", "undo": "^Z", "redo": "^Y", "snap": "G", "save": "^S", "test": "T",
                "evolve": "E", "help": "H"}
_GROUP_ENDS = ("cluster", "redo", "snap")      # a wider gap after these buttons
_TOOL_HINTS = {
    "select": "select: click an item (SHIFT adds), drag a box, drag spheres to move them",
    "sphere": "sphere: click empty space to place a sphere",
    "bone": "bone: drag from one sphere to another",
    "muscle": "muscle: click a bone to make it a muscle, or a muscle a bone",
    "joint": "joint: click a sphere between two of its bones; drag a hinge's limit handles",
    "cluster": "cluster: select three or more spheres (SHIFT+click, a box), then C",
}

#: (keys, what they do): the help overlay
KEYS = (
    ("V", "select and move: click, SHIFT+click adds, drag a box or spheres"),
    ("S", "sphere: click empty space to place one"),
    ("B", "bone: drag from a sphere to another"),
    ("M", "muscle: click a bone (or M with bones selected): muscle / bone"),
    ("J", "joint: click a sphere between two bones; drag the limit handles"),
    ("K", "the selected joints: hinge / free"),
    ("C", "cluster the selected spheres (three or more)"),
    ("G", "snap to a 5 cm grid on / off"),
    ("DELETE, BACKSPACE", "delete the selection"),
    ("CTRL+Z / CTRL+Y, CTRL+SHIFT+Z", "undo / redo"),
    ("CTRL+S", "save"),
    ("TAB, ENTER, click", "choose a value in the panel, type it (ENTER sets)"),
    ("T", "live test on a sine wave / back to editing"),
    ("R", "next terrain for the live test"),
    ("E", "evolve the design"),
    ("wheel, + / -, F", "zoom in / out, fit the design"),
    ("right or middle drag, arrows", "pan"),
    ("H", "this help"),
    ("ESC", "cancel a drag, close the help, clear the selection"),
    ("Q, ESC ESC", "quit (with unsaved changes: Q twice)"),
)


# geometry helpers ---------------------------------------------------------------------------------
def _segments(p0, p1, color, width) -> np.ndarray:
    """Rows of :data:`SEGMENT` from ``p0`` to ``p1`` (each (N, 2)), one colour (RGBA) or one per
    row, widths in pixels."""
    p0 = np.asarray(p0, np.float64).reshape(-1, 2)
    p1 = np.asarray(p1, np.float64).reshape(-1, 2)
    out = np.zeros(p0.shape[0], SEGMENT)
    if not out.size:
        return out
    out["seg"][:, :2] = p0
    out["seg"][:, 2:] = p1
    out["color"] = np.broadcast_to(np.asarray(color, np.uint8).reshape(-1, 4), (out.size, 4))
    out["width"] = width
    return out


def _discs(p, color, width) -> np.ndarray:
    """Discs (zero-length segments) at ``p`` of diameter ``width`` (pixels)."""
    return _segments(p, p, color, width)


def _rgba(color, alpha: int = 255) -> tuple:
    return tuple(int(c) for c in color[:3]) + (int(alpha),)


def _hull(points: np.ndarray) -> np.ndarray:
    """The convex hull of ``points`` (N, 2), counter-clockwise, without repeats (Andrew's
    monotone chain); fewer than three distinct points come back as they are."""
    pts = sorted(set(map(tuple, np.asarray(points, np.float64).reshape(-1, 2).tolist())))
    if len(pts) <= 2:
        return np.array(pts, np.float64).reshape(-1, 2)

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower, upper = [], []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return np.array(lower[:-1] + upper[:-1], np.float64)


def _inside_hull(hull: np.ndarray, x: float, y: float) -> bool:
    if hull.shape[0] < 3:
        return False
    a, b = hull, np.roll(hull, -1, axis=0)
    cross = (b[:, 0] - a[:, 0]) * (y - a[:, 1]) - (b[:, 1] - a[:, 1]) * (x - a[:, 0])
    return bool(np.all(cross >= 0.0))


def _fan(center, ring: np.ndarray, color) -> np.ndarray:
    """Triangles from ``center`` to each edge of the open polyline ``ring`` (N, 2), as
    :data:`VERTEX` rows."""
    n = ring.shape[0] - 1
    out = np.zeros(3 * max(n, 0), VERTEX)
    if n <= 0:
        return out
    out["pos"][0::3] = center
    out["pos"][1::3] = ring[:-1]
    out["pos"][2::3] = ring[1:]
    out["color"] = color
    return out


def _point_segment_distance(p, a, b) -> np.ndarray:
    """Distances from point ``p`` (2,) to segments ``a``-``b`` (each (N, 2))."""
    d = b - a
    L2 = np.einsum("ij,ij->i", d, d)
    t = np.where(L2 > 0.0, np.einsum("ij,ij->i", p - a, d) / np.where(L2 > 0.0, L2, 1.0), 0.0)
    t = np.clip(t, 0.0, 1.0)
    q = a + d * t[:, None]
    return np.hypot(p[0] - q[:, 0], p[1] - q[:, 1])


def _snap(v, step: float = SNAP):
    return np.round(np.asarray(v, np.float64) / step) * step


def _clean(value: float) -> float:
    """A coordinate as it should be written: rounded to 0.1 mm (no 0.30000000000000004)."""
    return float(round(float(value), 4)) + 0.0


def _same(a, b) -> bool:
    """Whether two sketches hold the same values (arrays compared by value)."""
    if a is b:
        return True
    if a is None or b is None:
        return False
    for name in ("sphere_id", "bone_id", "joint_id", "joint_kind", "cluster_id", "self_collision",
                 "evolving"):
        if getattr(a, name) != getattr(b, name):
            return False
    for name in ("pos", "radius", "bone_a", "bone_b", "muscle", "joint_sphere", "joint_bones",
                 "joint_min", "joint_max"):
        x, y = np.asarray(getattr(a, name)), np.asarray(getattr(b, name))
        if x.shape != y.shape or not np.array_equal(x, y, equal_nan=x.dtype.kind == "f"):
            return False
    ca, cb = a.cluster_members, b.cluster_members
    return len(ca) == len(cb) and all(np.array_equal(np.asarray(p), np.asarray(q)) for p, q in zip(ca, cb))


class _CachedFonts(_Fonts):
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
        return self._remember(("w", text, size, bold), lambda: _Fonts.width(self, text, size, bold))

    def fit(self, text: str, width: float, size: float, bold: bool = False) -> str:
        return self._remember(("f", text, width, size, bold), lambda: _Fonts.fit(self, text, width, size, bold))

    def wrap(self, text: str, width: float, size: float, lines: int) -> list[str]:
        return list(self._remember(("l", text, width, size, lines),
                                   lambda: tuple(_Fonts.wrap(self, text, width, size, lines))))


class EditorView(arcade.View):
    """The editor's window (see the module docstring).

    Parameters
    ----------
    doc : DesignDoc
        The design being edited (``render.game.DesignDoc``).
    window : arcade.Window, optional
        Defaults to the current window.
    on_quit : callable, optional
        Called without arguments when the player quits (Q); by default the window closes.
    size : (int, int), optional
        The layout's size in window units and the framebuffer's in pixels (offscreen drawing);
        by default the window's, following it when it is resized.

    Attributes
    ----------
    doc : DesignDoc
    tool : str
        The tool in use, one of :data:`TOOLS`.
    selection : list of (str, str)
        The selected items, ``(kind, id)`` with kind ``sphere``, ``bone``, ``joint`` or
        ``cluster``, in the order they were selected (the panel shows the last).
    snap : bool
        Positions placed or moved snap to :data:`SNAP` metres (hinge limits to whole
        :data:`ANGLE_SNAP` degrees).
    live : bool
        The live test is playing (:attr:`viewer`).
    viewer : Viewer or None
        The live test's viewer (made at the first T, reused after).
    terrain : str
        The terrain of the live test (a ``Pick.name`` of ``doc.terrains``; ``""``: flat).
    message : str or None
        The last line for the player (``saved PATH``, what evolve did, an error), shown at the
        bottom of the canvas; ``message_error`` says whether it is an error.
    field_error : str or None
        Why the value typed in the panel was refused (shown under the rows).
    panel_title : str
        ``sphere foot``, ``design walker``...
    panel_item : (str, str)
        The item the panel shows (``("design", "")`` when nothing is selected).
    panel_rows : list of Field
        What the panel shows (``doc.fields(*panel_item)``).
    focus : int
        The panel row TAB moved to (-1: none).
    entry_text : str or None
        The value being typed into panel row :attr:`entry_row`; None while no entry is open.
    problem_lines : list of str
        The problems list as drawn (``valid`` when there are none).
    status : str
        The status line as drawn.
    camera_position : (float, float)
        World point (m) at the centre of the canvas.
    zoom : float
        Pixels (window units) per metre.
    show_help : bool
    quit_requested : bool
    draw_size : (int, int)
        The layout's size (window units).
    background : (int, int, int)
        The colour a frame is cleared with (the sky; the viewer's while the live test plays).

    Notes
    -----
    Tests and the game driver work through the real handlers (``on_mouse_press``,
    ``on_mouse_drag``, ``on_mouse_release``, ``on_key_press``, ``on_text``) at points given by
    :meth:`world_to_screen`, :meth:`button_rect`, :meth:`field_rect`, :meth:`problem_rect` and
    :meth:`handle_position`. :meth:`draw_editor` draws into whichever framebuffer is in use.
    """

    def __init__(self, doc, window=None, on_quit=None, size=None):
        super().__init__(window)
        self.doc = doc
        self.on_quit = on_quit
        self._fixed_size = size is not None
        self.draw_size = self._window_size() if size is None else (int(size[0]), int(size[1]))
        self._pixels = (tuple(int(v) for v in self.window.get_framebuffer_size()) if size is None
                        else (int(size[0]), int(size[1])))
        self.tool = "select"
        self.selection: list[tuple[str, str]] = []
        self.snap = False
        self.live = False
        self.viewer = None
        self.terrain = ""
        self.message = None
        self.message_error = False
        self._message_at = 0.0
        self.field_error = None
        self.panel_title = ""
        self.panel_item = ("design", "")
        self.panel_rows: list = []
        self.panel_scroll = 0
        self.focus = -1
        self.entry_text = None
        self.entry_row = -1
        self._entry_fresh = False       # the first key typed replaces the value shown
        self.problem_lines: list[str] = []
        self.status = ""
        self.show_help = False
        self.quit_requested = False
        self.camera_position = (0.0, 1.0)
        self.zoom = 100.0
        self.background = SKY
        self._fonts = _CachedFonts()
        self._drag = None               # what the left button is doing (a dict), None when up
        self._pan_button = False        # a right or middle drag pans
        self._quit_armed = False        # Q was pressed once with unsaved changes
        self._escape_armed = False      # ESC was pressed once with nothing to cancel
        self._held: set[int] = set()
        self._hover_row = -1
        self._layout_key = None
        self._sketch = None
        self._doc_text = None
        self._problems_key = None
        self._panel_key = None
        self._sel = {}
        self._problem_items = {}
        self._evolving = {}
        self._items_key = None
        self._items_dirty = True
        self._grid_key = None
        self._ui_key = None
        self._text_keys = {}
        # GL: the world (metres) through one camera, the interface (window units) through another
        ctx = self.window.ctx
        self.ctx = ctx
        self._world_camera = Camera2D(window=self.window)
        self._screen_camera = Camera2D(window=self.window)
        self._ground = Triangles(ctx)
        self._grid = Segments(ctx)
        self._fills = Triangles(ctx)
        self._items = Segments(ctx)
        self._overlay = Segments(ctx)
        self._overlay_fill = Triangles(ctx)
        self._ui = Triangles(ctx)
        self._boxes = {k: Triangles(ctx) for k in ("message", "live")}
        self._ground.set(rects([(-1e5, -1e5, 2e5, 1e5)], _rgba(GROUND_FILL)))
        # text, by layer
        self._ui_batch = pyglet.graphics.Batch()          # the panel and the status strip
        self._toolbar_batch = pyglet.graphics.Batch()     # the buttons' labels (shown while live too)
        self._canvas_batch = pyglet.graphics.Batch()
        self._batches = {k: pyglet.graphics.Batch() for k in ("message", "live")}
        ui = dict(font_name=FONT, batch=self._ui_batch)
        self._button_texts = {name: arcade.Text(name, 0, 0, BUTTON_TEXT, 10, font_name=FONT, anchor_x="center",
                                                anchor_y="center", batch=self._toolbar_batch)
                              for name in BUTTONS}
        self._panel_title = arcade.Text("", 0, 0, PANEL_TEXT, 12, bold=True, anchor_y="center", **ui)
        self._row_keys = TextPool(self._ui_batch, color=PANEL_LABEL, font_size=9, font_name=FONT,
                                   anchor_y="center")
        self._row_values = TextPool(self._ui_batch, color=PANEL_TEXT, font_size=10, font_name=FONT,
                                     anchor_y="center")
        self._row_units = TextPool(self._ui_batch, color=PANEL_MUTED, font_size=9, font_name=FONT,
                                    anchor_x="right", anchor_y="center")
        self._hint_lines = TextPool(self._ui_batch, color=PANEL_LABEL, font_size=9, font_name=FONT,
                                     anchor_y="top")
        self._error_lines = TextPool(self._ui_batch, color=PANEL_ERROR, font_size=9, font_name=FONT,
                                      anchor_y="top")
        self._status_text = arcade.Text("", 0, 0, TEXT, 10, anchor_y="top", **ui)
        self._problem_texts = TextPool(self._ui_batch, color=PROBLEM_TEXT, font_size=9, font_name=FONT,
                                        anchor_y="top")
        self._tool_hint = arcade.Text("", 0, 0, HINT_TEXT, 9, font_name=FONT, anchor_y="top",
                                      batch=self._canvas_batch)
        self._message_lines = TextPool(self._batches["message"], color=MESSAGE_TEXT, font_size=10,
                                        font_name=FONT, anchor_y="top")
        self._live_text = arcade.Text("", 0, 0, MESSAGE_TEXT, 10, font_name=FONT, anchor_y="center",
                                      batch=self._batches["live"])
        self.help = KeyHelp(ctx, KEYS, size=10)
        self._ensure_layout()
        self._sync()
        self.fit_view()

    # the document ------------------------------------------------------------------------------
    @property
    def sketch(self):
        """The sketch drawn (``doc.sketch`` as of the last change seen)."""
        return self._sketch

    def _sync(self) -> None:
        """Take in what changed in the document: the sketch (drawn again), the text (the panel's
        values), the problems (the list, the red items). Cheap when nothing changed."""
        doc = self.doc
        sketch = doc.sketch
        text = getattr(doc, "text", None)
        changed = False
        if sketch is not self._sketch:
            if not _same(sketch, self._sketch):
                self._set_sketch(sketch)
                changed = True
            self._sketch = sketch
        if text is not self._doc_text and text != self._doc_text:
            changed = True
        self._doc_text = text
        problems = list(doc.problems or [])
        key = tuple((str(p.message), tuple(tuple(i) for i in (p.items or ()))) for p in problems)
        if key != self._problems_key or changed:
            self._problems_key = key
            self._problems = problems
            self._problem_items = self._indices([i for p in problems for i in (p.items or ())])
            self._items_dirty = True
            lines = [_one_line(p.message) for p in problems[:self._shown_problems()]]
            more = len(problems) - len(lines)
            self.problem_lines = (lines + ([f"... and {more} more"] if more > 0 else [])) if problems else ["valid"]
        if changed:
            self._prune_selection()
            self._panel_key = None
        self._refresh_panel()

    def _set_sketch(self, s) -> None:
        """Index the new sketch: ids to indices, the arrays the drawing and the hits use."""
        P = len(s.sphere_id)
        self._pos = np.asarray(s.pos, np.float64).reshape(-1, 2)[:P]
        self._radius = np.maximum(np.asarray(s.radius, np.float64).reshape(-1)[:P], 0.0)
        self._bone_a = np.asarray(s.bone_a, np.int64).reshape(-1)
        self._bone_b = np.asarray(s.bone_b, np.int64).reshape(-1)
        E = len(s.bone_id)
        self._muscle = np.asarray(s.muscle, bool).reshape(-1)[:E]
        self._joint_sphere = np.asarray(s.joint_sphere, np.int64).reshape(-1)
        self._joint_bones = np.asarray(s.joint_bones, np.int64).reshape(-1, 2)
        self._joint_min = np.asarray(s.joint_min, np.float64).reshape(-1)
        self._joint_max = np.asarray(s.joint_max, np.float64).reshape(-1)
        self._clusters = [np.asarray(m, np.int64).reshape(-1) for m in s.cluster_members]
        self._ids = {"sphere": {v: i for i, v in enumerate(s.sphere_id)},
                     "bone": {v: i for i, v in enumerate(s.bone_id)},
                     "joint": {v: i for i, v in enumerate(s.joint_id)},
                     "cluster": {v: i for i, v in enumerate(s.cluster_id)}}
        self._names = {"sphere": tuple(s.sphere_id), "bone": tuple(s.bone_id), "joint": tuple(s.joint_id),
                       "cluster": tuple(s.cluster_id)}
        self._evolving = self._indices(s.evolving or ())
        self._items_dirty = True

    def _indices(self, items) -> dict:
        """``(kind, id)`` pairs as index arrays per kind (ids the sketch does not have dropped)."""
        out = {k: set() for k in ("sphere", "bone", "joint", "cluster")}
        ids = getattr(self, "_ids", None) or {}
        for item in items:
            try:
                kind, name = item
            except (TypeError, ValueError):
                continue
            i = ids.get(kind, {}).get(name)
            if i is not None:
                out[kind].add(i)
        return {k: np.array(sorted(v), np.int64) for k, v in out.items()}

    def _prune_selection(self) -> None:
        ids = self._ids
        self.selection = [(k, i) for k, i in self.selection if i in ids.get(k, {})]
        self._selection_changed()

    def _selection_changed(self) -> None:
        self._sel = self._indices(self.selection)
        self._items_dirty = True

    def _refresh_panel(self) -> None:
        """The panel's rows for the item it shows (when that or the document changed)."""
        item = self.selection[-1] if self.selection else ("design", "")
        if self._panel_key == (item,):
            return
        if item != self.panel_item:
            self.focus = -1
            self.panel_scroll = 0
            self.cancel_entry()
            self.field_error = None
        self.panel_item = item
        self._panel_key = (item,)
        try:
            rows = list(self.doc.fields(*item))
        except GameError as e:
            rows = []
            self.field_error = _one_line(e)
        self.panel_rows = rows
        kind, name = item
        title = getattr(self.doc, "title", "") or ""
        self.panel_title = f"design {title}".strip() if kind == "design" else f"{kind} {name}"
        more = len(self.selection) - 1
        if more > 0:
            self.panel_title += f"  (+{more} selected)"
        self.focus = min(self.focus, len(rows) - 1)
        if self.entry_row >= len(rows):
            self.cancel_entry()

    # coordinates -------------------------------------------------------------------------------
    def world_to_screen(self, x, y):
        """Window point (from the bottom left) of world point ``(x, y)`` (m); arrays work too."""
        l, b, w, h = self._canvas
        cx, cy = self.camera_position
        return ((np.asarray(x, np.float64) - cx) * self.zoom + l + w / 2,
                (np.asarray(y, np.float64) - cy) * self.zoom + b + h / 2)

    def screen_to_world(self, sx, sy):
        """World point (m) under window point ``(sx, sy)``."""
        l, b, w, h = self._canvas
        cx, cy = self.camera_position
        return ((np.asarray(sx, np.float64) - l - w / 2) / self.zoom + cx,
                (np.asarray(sy, np.float64) - b - h / 2) / self.zoom + cy)

    def _world(self, x, y) -> tuple[float, float]:
        wx, wy = self.screen_to_world(x, y)
        return float(wx), float(wy)

    def set_zoom(self, zoom: float, about=None) -> None:
        """Zoom to ``zoom`` pixels per metre (within :data:`ZOOM_RANGE`), keeping the world point
        under window point ``about`` in place (by default the canvas's centre)."""
        zoom = float(min(ZOOM_RANGE[1], max(ZOOM_RANGE[0], zoom)))
        if about is not None:
            wx, wy = self._world(*about)
            l, b, w, h = self._canvas
            self.camera_position = (wx - (about[0] - l - w / 2) / zoom, wy - (about[1] - b - h / 2) / zoom)
        self.zoom = zoom

    def pan(self, dx: float, dy: float) -> None:
        """Move the view by (dx, dy) window units (the design moves the other way)."""
        cx, cy = self.camera_position
        self.camera_position = (cx + dx / self.zoom, cy + dy / self.zoom)

    def fit_view(self) -> None:
        """Zoom and pan so the whole design (and the ground under it) fills the canvas."""
        l, b, w, h = self._canvas
        P = self._pos.shape[0]
        if P == 0:
            self.zoom = float(min(max(h / 2.5, ZOOM_RANGE[0]), ZOOM_RANGE[1]))
            self.camera_position = (0.0, 0.9)
            return
        ok = np.isfinite(self._pos).all(axis=1)
        if not ok.any():
            return
        r = self._radius[ok, None] if self._radius.size == P else 0.0
        lo = (self._pos[ok] - r).min(axis=0)
        hi = (self._pos[ok] + r).max(axis=0)
        lo[1] = min(lo[1], 0.0)
        span = np.maximum(hi - lo, 0.3)
        zoom = min(w / (1.4 * span[0]), h / (1.4 * span[1]))
        self.zoom = float(min(max(zoom, ZOOM_RANGE[0]), ZOOM_RANGE[1]))
        self.camera_position = (float(0.5 * (lo[0] + hi[0])), float(0.5 * (lo[1] + hi[1])))

    # layout ------------------------------------------------------------------------------------
    def _window_size(self) -> tuple[int, int]:
        return tuple(int(v) for v in self.window.get_size())

    def button_rect(self, name: str) -> tuple[float, float, float, float]:
        """A toolbar button as (left, bottom, width, height) in window units; names in
        :data:`BUTTONS`."""
        self._ensure_layout()
        if name not in self._buttons:
            raise KeyError(f"no button {name!r}; there are {', '.join(BUTTONS)}")
        return self._buttons[name]

    def field_rect(self, i: int) -> tuple[float, float, float, float]:
        """Panel row ``i`` (of :attr:`panel_rows`) as (left, bottom, width, height), where it is
        now (a row scrolled out of the panel is outside it: TAB or the wheel bring it in)."""
        self._ensure_layout()
        px, pb, pw, ph = self._panel
        top = self._rows_top - (i - self.panel_scroll) * ROW
        return (px + 4, top - ROW + 1, pw - 8, ROW - 2)

    def problem_rect(self, i: int) -> tuple[float, float, float, float]:
        """Line ``i`` of the problems list (problem ``i`` of ``doc.problems`` while it is shown)."""
        self._ensure_layout()
        l, b, w, h = self._strip
        top = b + h - 4 - STATUS - i * PROBLEM_LINE
        return (l + PAD, top - PROBLEM_LINE, w - 2 * PAD, PROBLEM_LINE)

    def handle_position(self, joint_id: str, which: str) -> tuple[float, float]:
        """Window point of a hinge's limit handle, ``which`` ``min`` or ``max`` (where the limit
        is now, or is being dragged to)."""
        j = self._ids["joint"].get(joint_id)
        if j is None:
            raise KeyError(f"no joint {joint_id!r}")
        geo = self._joint_geometry(self._drawn_pos())
        if geo is None or not geo["hinge"][j]:
            raise ValueError(f"joint {joint_id!r} is not a hinge with limits")
        angle = geo["start"][j] + math.radians(geo[which][j])
        c = geo["center"][j]
        R = geo["radius"][j]
        sx, sy = self.world_to_screen(c[0] + R * math.cos(angle), c[1] + R * math.sin(angle))
        return float(sx), float(sy)

    def _ensure_layout(self) -> None:
        """Where everything goes for the current size (no drawing)."""
        key = tuple(self.draw_size)
        if key == self._layout_key:
            return
        self._layout_key = key
        w, h = self.draw_size
        pw = int(min(max(round(PANEL_FRACTION * w), PANEL_WIDTH[0]), PANEL_WIDTH[1]))
        pw = min(pw, max(w // 2, 120))
        top = h - TOOLBAR
        self._toolbar = (0, top, w, TOOLBAR)
        self._panel = (w - pw, 0, pw, top)
        lines = int(min(MAX_PROBLEM_LINES, max(3, (h - 240) // 80 + 2)))
        self._problem_slots = lines
        strip_h = 6 + STATUS + lines * PROBLEM_LINE + 6
        self._strip = (0, 0, w - pw, strip_h)
        self._canvas = (0, strip_h, w - pw, max(top - strip_h, 20))
        self._rows_top = top - PANEL_TITLE
        self._visible_rows = int(max(1, (self._rows_top - PANEL_FOOT) // ROW))
        self._layout_toolbar()
        self._build_help()
        self._items_dirty = True
        self._grid_key = self._ui_key = None
        self._text_keys = {}

    def _layout_toolbar(self) -> None:
        """Buttons left to right, as wide as their labels; labels shorten to fit the width."""
        w = self.draw_size[0]
        fonts = self._fonts
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
        self._buttons = {}
        x = PAD
        y = self._toolbar[1] + 5
        for name in BUTTONS:
            self._buttons[name] = (x, y, widths[name], TOOLBAR - 10)
            x += widths[name] + (group if name in _GROUP_ENDS else gap)
            t = self._button_texts[name]
            t.text = labels[name]
            t.font_size = size
            l, b, bw, bh = self._buttons[name]
            t.position = (round(l + bw / 2), round(b + bh / 2))

    # hits --------------------------------------------------------------------------------------
    def _target(self, x: float, y: float):
        """What window point ``(x, y)`` is on: ``("button", name)``, ``("row", i)``,
        ``("problem", i)``, ``("panel", None)``, ``("strip", None)``, ``("canvas", None)``."""
        self._ensure_layout()
        for name, rect in self._buttons.items():
            if _inside(rect, x, y):
                return ("button", name)
        if _inside(self._toolbar, x, y):
            return ("toolbar", None)
        if self.live:
            return ("canvas", None)
        if _inside(self._panel, x, y):
            for i in range(self.panel_scroll, min(len(self.panel_rows), self.panel_scroll + self._visible_rows)):
                if _inside(self.field_rect(i), x, y):
                    return ("row", i)
            return ("panel", None)
        if _inside(self._strip, x, y):
            for i in range(self._shown_problems()):
                if _inside(self.problem_rect(i), x, y):
                    return ("problem", i)
            return ("strip", None)
        return ("canvas", None)

    def item_at(self, x: float, y: float, reach: float = 0.0):
        """The item under window point ``(x, y)``: spheres first (the nearest centre of those
        under the point, ``reach`` more pixels around them), then bones, then joints' arcs, then
        clusters; ``(kind, id)`` or None."""
        z = self.zoom
        p = np.array(self._world(x, y))
        pos = self._drawn_pos()
        P = pos.shape[0]
        if P:
            d = np.hypot(pos[:, 0] - p[0], pos[:, 1] - p[1]) * z
            hit = d <= self._radius * z + HIT_SLOP + reach
            hit &= np.isfinite(d)
            if hit.any():
                i = int(np.flatnonzero(hit)[np.argmin(d[hit])])
                return ("sphere", self._names["sphere"][i])
        a, b = self._bone_a, self._bone_b
        good = (a >= 0) & (b >= 0) & (a < P) & (b < P)
        if good.any():
            idx = np.flatnonzero(good)
            d = _point_segment_distance(p, pos[a[idx]], pos[b[idx]]) * z
            width = np.where(self._muscle[idx] if self._muscle.size == a.size else False,
                             self._muscle_width(), self._bone_width())
            hit = d <= width / 2 + HIT_SLOP
            if hit.any():
                i = int(idx[np.flatnonzero(hit)[np.argmin(d[hit])]])
                return ("bone", self._names["bone"][i])
        geo = self._joint_geometry(pos)
        if geo is not None:
            best, best_d = None, HIT_SLOP + 4.0
            for j in range(len(geo["hinge"])):
                if not geo["ok"][j]:
                    continue
                c = geo["center"][j]
                d = abs(math.hypot(p[0] - c[0], p[1] - c[1]) - geo["radius"][j]) * z
                if d > best_d:
                    continue
                if geo["hinge"][j]:
                    ang = math.degrees(math.atan2(p[1] - c[1], p[0] - c[0]) - geo["start"][j])
                    lo, hi = geo["min"][j], geo["max"][j]
                    ang = lo + (ang - lo) % 360.0
                    if ang > hi + math.degrees(HIT_SLOP / max(geo["radius"][j] * z, 1.0)):
                        continue
                best, best_d = j, d
            if best is not None:
                return ("joint", self._names["joint"][best])
        found, area = None, math.inf
        for k, m in enumerate(self._clusters):
            m = m[(m >= 0) & (m < P)]
            hull = _hull(pos[m]) if m.size >= 3 else np.zeros((0, 2))
            if _inside_hull(hull, p[0], p[1]):
                x0, y0 = hull[:, 0], hull[:, 1]
                A = 0.5 * abs(np.dot(x0, np.roll(y0, -1)) - np.dot(y0, np.roll(x0, -1)))
                if A < area:
                    found, area = k, A
        if found is not None:
            return ("cluster", self._names["cluster"][found])
        return None

    def _handle_at(self, x: float, y: float):
        """``(joint index, "min" or "max")`` of a selected hinge's handle under ``(x, y)``."""
        for j in self._sel.get("joint", np.zeros(0, np.int64)).tolist():
            for which in ("min", "max"):
                try:
                    hx, hy = self.handle_position(self._names["joint"][j], which)
                except (KeyError, ValueError):
                    break
                if math.hypot(hx - x, hy - y) <= HANDLE_PIXELS / 2 + HIT_SLOP:
                    return j, which
        return None

    def _bones_at(self, s: int) -> np.ndarray:
        """Bones that join sphere ``s`` to another one."""
        a, b = self._bone_a, self._bone_b
        return np.flatnonzero(((a == s) | (b == s)) & (a != b) & (a >= 0) & (b >= 0))

    def _joint_sphere_at(self, x: float, y: float):
        """The sphere with two bones or more nearest ``(x, y)`` within :data:`JOINT_REACH`
        pixels of its rim (the joint tool), or None."""
        pos = self._drawn_pos()
        if not pos.shape[0]:
            return None
        p = np.array(self._world(x, y))
        d = np.hypot(pos[:, 0] - p[0], pos[:, 1] - p[1]) * self.zoom - self._radius * self.zoom
        for i in np.argsort(d).tolist():
            if not d[i] <= JOINT_REACH:
                return None
            if self._bones_at(i).size >= 2:
                return i
        return None

    def bones_around(self, sphere: int, angle: float) -> tuple[int, int]:
        """The two bones of ``sphere`` on each side of direction ``angle`` (radians): the first
        is the nearest clockwise of it, the second the nearest counter-clockwise, so the joint's
        angle (from the first bone to the second, counter-clockwise) spans ``angle``."""
        bones = self._bones_at(sphere)
        pos = self._drawn_pos()
        other = np.where(self._bone_a[bones] == sphere, self._bone_b[bones], self._bone_a[bones])
        d = pos[other] - pos[sphere]
        theta = np.arctan2(d[:, 1], d[:, 0])
        ccw = (theta - angle) % (2 * np.pi)         # how far counter-clockwise of the click
        cw = (angle - theta) % (2 * np.pi)
        first = int(np.argmin(cw))
        ccw[first] = np.inf if bones.size > 1 else ccw[first]   # a click along a bone: the next one
        return int(bones[first]), int(bones[np.argmin(ccw)])

    # the geometry (built on change, never per frame) -------------------------------------------
    def _bone_width(self) -> float:
        return float(np.clip(0.04 * self.zoom, 2.0, 10.0))

    def _muscle_width(self) -> float:
        return float(np.clip(0.05 * self.zoom, 2.5, 12.0))

    def _moving(self) -> np.ndarray:
        """The spheres a move drag takes along: the selected spheres, the ends of the selected
        bones, the members of the selected clusters."""
        P = self._pos.shape[0]
        out = set(self._sel.get("sphere", np.zeros(0, np.int64)).tolist())
        for e in self._sel.get("bone", np.zeros(0, np.int64)).tolist():
            out.update(int(v) for v in (self._bone_a[e], self._bone_b[e]) if 0 <= v < P)
        for k in self._sel.get("cluster", np.zeros(0, np.int64)).tolist():
            out.update(int(v) for v in self._clusters[k] if 0 <= v < P)
        return np.array(sorted(out), np.int64)

    def _drawn_pos(self) -> np.ndarray:
        """Sphere positions as drawn: the sketch's, with a move being dragged applied."""
        d = self._drag
        if d is not None and d.get("kind") == "move" and d.get("offset") is not None:
            pos = self._pos.copy()
            pos[d["spheres"]] += d["offset"]
            return pos
        return self._pos

    def _joint_geometry(self, pos: np.ndarray):
        """Per joint: ``ok``, ``center`` (J, 2), arc ``radius`` (m), ``start`` (the first bone's
        direction, radians), ``hinge``, ``min`` and ``max`` (degrees; a dragged handle's value)."""
        J = self._joint_sphere.size
        if J == 0:
            return None
        P = pos.shape[0]
        c = self._joint_sphere
        okc = (c >= 0) & (c < P)
        cc = np.where(okc, c, 0)
        center = pos[cc] if P else np.zeros((J, 2))
        radius = (self._radius[cc] if P else np.zeros(J)) + ARC_PIXELS / self.zoom
        E = self._bone_a.size
        b1 = self._joint_bones[:, 0] if self._joint_bones.shape[0] == J else np.full(J, -1)
        okb = (b1 >= 0) & (b1 < E)
        bb = np.where(okb, b1, 0)
        if E:
            ba, bo = self._bone_a[bb], self._bone_b[bb]
            other = np.where(ba == c, bo, ba)
            oko = (other >= 0) & (other < P)
            tip = pos[np.where(oko, other, 0)] if P else np.zeros((J, 2))
        else:
            oko = np.zeros(J, bool)
            tip = center
        d = tip - center
        start = np.arctan2(d[:, 1], d[:, 0])
        kinds = tuple(self._sketch.joint_kind) + ("free",) * J
        lo = self._joint_min.copy() if self._joint_min.size == J else np.full(J, np.nan)
        hi = self._joint_max.copy() if self._joint_max.size == J else np.full(J, np.nan)
        drag = self._drag
        if drag is not None and drag.get("kind") == "handle":
            lo[drag["joint"]], hi[drag["joint"]] = drag["min"], drag["max"]
        hinge = np.array([k == "hinge" for k in kinds[:J]]) & np.isfinite(lo) & np.isfinite(hi)
        ok = okc & okb & oko & np.isfinite(center).all(axis=1)
        return {"ok": ok, "center": center, "radius": radius, "start": start, "hinge": hinge & ok,
                "min": lo, "max": hi}

    def _build_items(self) -> None:
        """The design as drawn: one batch of segments (cluster outlines, bone halos, bones, joint
        arcs, sphere halos, rims and fills, evolving marks, limit handles, in that order) and
        one of triangles (cluster polygons, hinge wedges)."""
        self._items_dirty = False
        z = self.zoom
        pos = self._drawn_pos()
        P = pos.shape[0]
        ok = np.isfinite(pos).all(axis=1)
        safe = np.where(ok[:, None], pos, 0.0)
        r = self._radius if self._radius.size == P else np.zeros(P)
        sel, prob, evo = self._sel, self._problem_items, self._evolving
        empty = np.zeros(0, np.int64)
        flag = (lambda sets, kind, n: np.isin(np.arange(n), sets.get(kind, empty)))
        parts, fills = [], []
        # clusters: their members' hull, filled, outlined
        for k, m in enumerate(self._clusters):
            m = m[(m >= 0) & (m < P)]
            m = m[ok[m]]
            if m.size < 2:
                continue
            hull = _hull(safe[m])
            selected = k in set(sel.get("cluster", empty).tolist())
            bad = k in set(prob.get("cluster", empty).tolist())
            edge = SELECT + (230,) if selected else (_rgba(PROBLEM, 220) if bad else CLUSTER_EDGE)
            fill = _rgba(PROBLEM, 60) if bad else CLUSTER_FILL
            if hull.shape[0] >= 3:
                closed = np.concatenate([hull, hull[:1]])
                fills.append(_fan(hull.mean(axis=0), closed, fill))
                parts.append(_segments(closed[:-1], closed[1:], edge, 3.5 if selected else 2.0))
            else:
                parts.append(_segments(hull[:1], hull[1:], edge, 3.5 if selected else 2.0))
        # bones: halos (selected, problem), then the bones, muscles wider and red
        a, b = self._bone_a, self._bone_b
        E = a.size
        muscle = self._muscle if self._muscle.size == E else np.zeros(E, bool)
        inside = (a >= 0) & (b >= 0) & (a < P) & (b < P)
        good = inside & ok[np.where(inside, a, 0)] & ok[np.where(inside, b, 0)] if P else np.zeros(E, bool)
        loop = good & (a == b)
        line = good & (a != b)
        width = np.where(muscle, self._muscle_width(), self._bone_width())
        bsel, bbad, bevo = flag(sel, "bone", E), flag(prob, "bone", E), flag(evo, "bone", E)
        p0 = safe[np.where(good, a, 0)] if P else np.zeros((E, 2))
        p1 = safe[np.where(good, b, 0)] if P else np.zeros((E, 2))
        # a bone from a sphere to itself: a small loop above it, so it can be seen and clicked
        loop_idx = np.flatnonzero(loop)
        halo_color = np.where(bsel[:, None], np.array(SELECT + (170,), np.uint8),
                              np.array(_rgba(PROBLEM, 110), np.uint8))
        h = line & (bsel | bbad)
        parts.append(_segments(p0[h], p1[h], halo_color[h], width[h] + 8.0))
        color = np.where(muscle[:, None], np.array(_rgba(MUSCLE), np.uint8), np.array(_rgba(BONE_RIGID), np.uint8))
        color[bbad] = _rgba(PROBLEM)
        parts.append(_segments(p0[line], p1[line], color[line], width[line]))
        for e in loop_idx.tolist():
            c = safe[a[e]]
            rr = 10.0 / z
            t = np.linspace(0.0, 2 * np.pi, 21)
            ring = c + np.array([0.0, r[a[e]] + rr]) + rr * np.stack([np.cos(t), np.sin(t)], axis=1)
            if bsel[e]:
                parts.append(_segments(ring[:-1], ring[1:], SELECT + (170,), 9.0))
            parts.append(_segments(ring[:-1], ring[1:], tuple(color[e]), 3.5))
        # a bone that names a missing sphere: a short red stub from the end it has
        half = ~inside & (((a >= 0) & (a < P)) ^ ((b >= 0) & (b < P))) if P else np.zeros(E, bool)
        for e in np.flatnonzero(half).tolist():
            s = a[e] if 0 <= a[e] < P else b[e]
            if ok[s]:
                tip = safe[s] + np.array([0.7, 0.7]) * (r[s] + 24.0 / z)
                parts.append(_segments(safe[s][None], tip[None], _rgba(PROBLEM), self._bone_width()))
        # joints: an arc over a hinge's range (a wedge under it), a dashed ring for a free joint
        geo = self._joint_geometry(safe)
        handles = []
        if geo is not None:
            J = geo["ok"].size
            jsel, jbad = flag(sel, "joint", J), flag(prob, "joint", J)
            for j in range(J):
                c, R = geo["center"][j], geo["radius"][j]
                col = _rgba(SELECT) if jsel[j] else (_rgba(PROBLEM) if jbad[j] else _rgba(JOINT))
                wid = 4.0 if jsel[j] else 3.0
                if not geo["ok"][j]:
                    if jbad[j] and 0 <= self._joint_sphere[j] < P:     # a joint that cannot be placed
                        t = np.linspace(0.0, 2 * np.pi, ARC_STEPS + 1)
                        ring = c + R * np.stack([np.cos(t), np.sin(t)], axis=1)
                        parts.append(_segments(ring[:-1:2], ring[1::2], col, 2.0))
                    continue
                if geo["hinge"][j]:
                    lo, hi = math.radians(geo["min"][j]), math.radians(geo["max"][j])
                    t = geo["start"][j] + np.linspace(lo, hi, ARC_STEPS + 1)
                    arc = c + R * np.stack([np.cos(t), np.sin(t)], axis=1)
                    fills.append(_fan(c, arc, _rgba(col, 50) if (jsel[j] or jbad[j]) else JOINT_WEDGE))
                    parts.append(_segments(arc[:-1], arc[1:], col, wid))
                    if jsel[j]:
                        handles.append(arc[[0, -1]])
                else:
                    t = np.linspace(0.0, 2 * np.pi, ARC_STEPS + 1)
                    ring = c + R * np.stack([np.cos(t), np.sin(t)], axis=1)
                    parts.append(_segments(ring[:-1:2], ring[1::2], col, wid - 1.0))
        # spheres: halo (selected blue, problem red), rim, fill (red for a problem)
        idx = np.flatnonzero(ok)
        ssel, sbad, sevo = flag(sel, "sphere", P), flag(prob, "sphere", P), flag(evo, "sphere", P)
        d = np.maximum(2.0 * r * z, 6.0)
        h = idx[ssel[idx] | sbad[idx]]
        parts.append(_discs(safe[h], np.where(ssel[h, None], np.array(SELECT + (200,), np.uint8),
                                              np.array(_rgba(PROBLEM, 130), np.uint8)), d[h] + 10.0))
        rim = np.where(sbad[idx, None], np.array(_rgba(PROBLEM_RIM), np.uint8), np.array(_rgba(SPHERE_RIM), np.uint8))
        parts.append(_discs(safe[idx], rim, d[idx]))
        fill = np.where(sbad[idx, None], np.array(_rgba(PROBLEM), np.uint8), np.array(_rgba(SPHERE), np.uint8))
        parts.append(_discs(safe[idx], fill, np.maximum(0.82 * d[idx], d[idx] - 5.0)))
        # evolving: a dashed ring around spheres, a badge on bones, joints and clusters
        ev = idx[sevo[idx]]
        if ev.size:
            k = 12
            t0 = np.arange(k) * (2 * np.pi / k)
            t1 = t0 + 0.55 * (2 * np.pi / k)
            rr = (r[ev] + 6.0 / z)[:, None]
            c = safe[ev][:, None, :]
            q0 = c + rr[..., None] * np.stack([np.cos(t0), np.sin(t0)], axis=1)[None]
            q1 = c + rr[..., None] * np.stack([np.cos(t1), np.sin(t1)], axis=1)[None]
            parts.append(_segments(q0.reshape(-1, 2), q1.reshape(-1, 2), _rgba(EVOLVE), 2.5))
        badges = [0.5 * (p0[bevo & line] + p1[bevo & line])]
        if geo is not None:
            J = geo["ok"].size
            jevo = flag(evo, "joint", J) & geo["ok"]
            mid = geo["start"] + np.where(geo["hinge"], np.radians(0.5 * (np.nan_to_num(geo["min"]) +
                                                                        np.nan_to_num(geo["max"]))), 0.0)
            badges.append(geo["center"][jevo] + geo["radius"][jevo, None] *
                          np.stack([np.cos(mid[jevo]), np.sin(mid[jevo])], axis=1))
        for k in evo.get("cluster", empty).tolist():
            m = self._clusters[k]
            m = m[(m >= 0) & (m < P)]
            if m.size:
                badges.append(safe[m].mean(axis=0)[None])
        badges = np.concatenate(badges) if badges else np.zeros((0, 2))
        parts.append(_discs(badges, (255, 255, 255, 255), 15.0))
        parts.append(_discs(badges, _rgba(EVOLVE), 12.0))
        parts.append(_discs(badges, (255, 255, 255, 255), 4.0))
        # a selected hinge's limit handles
        if handles:
            hp = np.concatenate(handles)
            parts.append(_discs(hp, SELECT + (255,), HANDLE_PIXELS))
            parts.append(_discs(hp, _rgba(HANDLE_CORE), HANDLE_PIXELS - 6.0))
        seg = np.concatenate(parts) if parts else np.zeros(0, SEGMENT)
        rows = self._items.reserve(seg.size)
        rows[:] = seg
        self._items.upload()
        self._fills.set(np.concatenate(fills) if fills else np.zeros(0, VERTEX))

    def _build_grid(self) -> None:
        """Grid lines (every :data:`GRID_STEPS` step at least :data:`GRID_MIN_PIXELS` apart,
        darker every metre) and the ground line over three view widths and heights around the
        view: panning within them needs no rebuild."""
        z = self.zoom
        l, b, w, h = self._canvas
        W, H = w / z, h / z
        cx, cy = self.camera_position
        cell = (math.floor(cx / W), math.floor(cy / H))
        key = (z, w, h, cell)
        if key == self._grid_key:
            return
        self._grid_key = key
        step = next((s for s in GRID_STEPS if s * z >= GRID_MIN_PIXELS), GRID_STEPS[-1])
        major = max(1.0, 5.0 * step) if step >= 1.0 else 1.0
        x0, x1 = (cell[0] - 1) * W, (cell[0] + 2) * W
        y0, y1 = (cell[1] - 1) * H, (cell[1] + 2) * H
        xs = np.arange(math.floor(x0 / step), math.ceil(x1 / step) + 1) * step
        ys = np.arange(math.floor(y0 / step), math.ceil(y1 / step) + 1) * step
        on = (lambda v: np.abs(v / major - np.round(v / major)) < 1e-6)
        col = (lambda v: np.where(on(v)[:, None], np.array(_rgba(GRID_MAJOR), np.uint8),
                                  np.array(_rgba(GRID), np.uint8)))
        parts = [
            _segments(np.stack([xs, np.full_like(xs, y0)], 1), np.stack([xs, np.full_like(xs, y1)], 1),
                      col(xs), np.where(on(xs), 1.5, 1.0)),
            _segments(np.stack([np.full_like(ys, x0), ys], 1), np.stack([np.full_like(ys, x1), ys], 1),
                      col(ys), np.where(on(ys), 1.5, 1.0)),
            _segments([(x0, 0.0)], [(x1, 0.0)], _rgba(GROUND_LINE), 2.5),
        ]
        seg = np.concatenate(parts)
        rows = self._grid.reserve(seg.size)
        rows[:] = seg
        self._grid.upload()

    def _build_overlay(self) -> None:
        """What a drag shows in window units: the selection box, the bone being drawn."""
        d = self._drag
        segs, tris = [], []
        if d is not None and d.get("moved"):
            if d["kind"] == "box":
                (x0, y0), (x1, y1) = d["start"], d["now"]
                box = (min(x0, x1), min(y0, y1), abs(x1 - x0), abs(y1 - y0))
                tris.append(rects([box], BOX_FILL))
                c = np.array([(box[0], box[1]), (box[0] + box[2], box[1]), (box[0] + box[2], box[1] + box[3]),
                              (box[0], box[1] + box[3])])
                segs.append(_segments(c, np.roll(c, -1, axis=0), BOX_EDGE, 1.5))
            elif d["kind"] == "bone":
                sx, sy = self.world_to_screen(*self._pos[d["sphere"]])
                segs.append(_segments([(float(sx), float(sy))], [d["now"]], SELECT + (200,), self._bone_width()))
                segs.append(_discs([d["now"]], SELECT + (200,), 8.0))
        seg = np.concatenate(segs) if segs else np.zeros(0, SEGMENT)
        rows = self._overlay.reserve(seg.size)
        rows[:] = seg
        if seg.size:
            self._overlay.upload()
        self._overlay_fill.set(np.concatenate(tris) if tris else np.zeros(0, VERTEX))

    # the interface (rebuilt when what it shows changes) -----------------------------------------
    def _can(self, name: str) -> bool:
        return bool(getattr(self.doc, name, True))

    def _shown_problems(self) -> int:
        """Problems listed one per line (the last slot says "... and N more" when they do not fit)."""
        n = len(self._problems)
        slots = self._problem_slots
        return n if n <= slots else slots - 1

    def _build_ui(self) -> None:
        """Backs of the toolbar, the buttons, the panel, its rows and the status strip."""
        undo, redo = self._can("can_undo"), self._can("can_redo")
        key = (self._layout_key, self.tool, self.snap, self.live, undo, redo, self.focus, self._hover_row,
               self.entry_row if self.entry_text is not None else -1, self._entry_fresh, self.panel_scroll,
               len(self.panel_rows), self.show_help)
        if key == self._ui_key:
            return
        self._ui_key = key
        active = {"snap": self.snap, "test": self.live, "help": self.show_help}
        boxes, colors = [self._toolbar], [TOOLBAR_BACK]
        for name in BUTTONS:
            boxes.append(self._buttons[name])
            on = (name == self.tool and not self.live) or active.get(name, False)
            colors.append(BUTTON_ON if on else BUTTON)
            t = self._button_texts[name]
            off = (name == "undo" and not undo) or (name == "redo" and not redo)
            color = BUTTON_OFF_TEXT if off else BUTTON_TEXT
            if tuple(t.color) != color:
                t.color = color
        if not self.live:
            boxes += [self._panel, self._strip, (self._strip[0], self._strip[3] - 1, self._strip[2], 1)]
            colors += [PANEL_BACK[:3] + (255,), STRIP_BACK, STRIP_EDGE]
            for i in self._visible_range():
                rect = self.field_rect(i)
                if i == self.entry_row and self.entry_text is not None:
                    boxes.append(rect)
                    colors.append(ROW_FOCUS)
                    vx = self._value_x()
                    boxes.append((vx - 3, rect[1] + 2, rect[0] + rect[2] - 34 - vx, rect[3] - 4))
                    colors.append(FIELD)
                elif i == self.focus:
                    boxes.append(rect)
                    colors.append(ROW_FOCUS)
                elif i == self._hover_row:
                    boxes.append(rect)
                    colors.append(ROW_HOVER)
        self._ui.set(rects(boxes, colors))

    def _visible_range(self) -> range:
        return range(self.panel_scroll, min(len(self.panel_rows), self.panel_scroll + self._visible_rows))

    def _value_x(self) -> float:
        px, _, pw, _ = self._panel
        return px + round(0.46 * pw)

    @staticmethod
    def _set(t, text: str) -> None:
        if t.text != text:
            t.text = text

    def _build_texts(self) -> None:
        """The panel's, the status line's and the problems' texts (set only when they change)."""
        fonts = self._fonts
        px, pb, pw, ph = self._panel
        # the panel
        hover = self._hover_row if self._hover_row >= 0 else self.focus
        key = (self._layout_key, self.panel_title, id(self.panel_rows), self.panel_scroll, self.entry_row,
               self.entry_text, self._entry_fresh, hover, self.field_error)
        if self._text_keys.get("panel") != key:
            self._text_keys["panel"] = key
            self._set(self._panel_title, fonts.fit(self.panel_title, pw - 20, 12, bold=True))
            self._panel_title.position = (px + 10, self._rows_top + PANEL_TITLE / 2)
            vx = self._value_x()
            n = 0
            for i in self._visible_range():
                f = self.panel_rows[i]
                l, b, w, h = self.field_rect(i)
                cy = round(b + h / 2)
                t = self._row_keys.get(n)
                self._set(t, fonts.fit(str(f.key), vx - px - 18, 9))
                t.position = (px + 10, cy)
                t = self._row_values.get(n)
                editing = i == self.entry_row and self.entry_text is not None
                if editing:
                    text = fonts.fit_tail(self.entry_text + ("" if self._entry_fresh else "|"), l + w - 40 - vx, 10)
                    color = TEXT
                else:
                    text = fonts.fit(str(f.value), l + w - 40 - vx, 10)
                    color = PANEL_MUTED if f.default else PANEL_TEXT
                self._set(t, text)
                if tuple(t.color) != color:
                    t.color = color
                t.position = (vx, cy)
                t = self._row_units.get(n)
                self._set(t, str(f.unit or ""))
                t.position = (l + w - 6, cy)
                n += 1
            for pool in (self._row_keys, self._row_values, self._row_units):
                pool.finish(n)
            # under the rows: the hint of the row pointed at (or focused), then an error
            y = self._rows_top - self._visible_rows * ROW - 8
            lines = []
            if 0 <= hover < len(self.panel_rows) and self.panel_rows[hover].hint:
                lines = fonts.wrap(str(self.panel_rows[hover].hint), pw - 20, 9, 3)
            elif not self.panel_rows:
                lines = ["nothing to edit here"]
            elif self.entry_text is None:
                lines = fonts.wrap("click a value (or TAB, ENTER) to type a new one; greyed values "
                                   "come from the defaults", pw - 20, 9, 3)
            else:
                lines = ["ENTER sets it, ESC cancels; empty: the default"]
            for k, s in enumerate(lines):
                t = self._hint_lines.get(k)
                self._set(t, s)
                t.position = (px + 10, y - 14 * k)
            self._hint_lines.finish(len(lines))
            errors = fonts.wrap(self.field_error, pw - 20, 9, 2) if self.field_error else []
            for k, s in enumerate(errors):
                t = self._error_lines.get(k)
                self._set(t, s)
                t.position = (px + 10, y - 14 * (len(lines) + k) - 4)
            self._error_lines.finish(len(errors))
        # the status line and the problems
        self.status = self._status_line()
        key = (self._layout_key, self.status, self._problems_key)
        if self._text_keys.get("strip") != key:
            self._text_keys["strip"] = key
            l, b, w, h = self._strip
            self._set(self._status_text, fonts.fit(self.status, w - 2 * PAD, 10))
            self._status_text.position = (l + PAD, b + h - 6)
            color = PROBLEM_TEXT if self._problems else VALID_TEXT
            lines = self.problem_lines
            for i, s in enumerate(lines):
                t = self._problem_texts.get(i)
                self._set(t, fonts.fit(s, w - 2 * PAD, 9))
                if tuple(t.color) != color:
                    t.color = color
                rect = self.problem_rect(i)
                t.position = (rect[0], rect[1] + rect[3] - 1)
            self._problem_texts.finish(len(lines))
        # the tool's hint at the top of the canvas
        key = (self._layout_key, self.tool)
        if self._text_keys.get("tool") != key:
            self._text_keys["tool"] = key
            l, b, w, h = self._canvas
            self._set(self._tool_hint, fonts.fit(_TOOL_HINTS[self.tool], w - 2 * PAD, 9))
            self._tool_hint.position = (l + PAD, b + h - 6)

    def _status_line(self) -> str:
        doc = self.doc
        name = os.path.basename(str(getattr(doc, "path", "") or "")) or str(getattr(doc, "title", "") or "design")
        s = self._sketch
        muscles = int(np.count_nonzero(self._muscle))
        parts = [f"{len(s.sphere_id)} spheres", f"{len(s.bone_id)} bones ({muscles} muscles)"]
        if len(s.joint_id):
            parts.append(f"{len(s.joint_id)} joints")
        if len(s.cluster_id):
            parts.append(f"{len(s.cluster_id)} clusters")
        dirty = "*" if getattr(doc, "dirty", False) else ""
        return (f"{name}{dirty}  |  tool: {self.tool}  |  snap {'on' if self.snap else 'off'}  |  "
                + ", ".join(parts))

    def _build_message(self) -> None:
        key = (self._layout_key, self.message, self.message_error, self.live)
        if self._text_keys.get("message") == key:
            return
        self._text_keys["message"] = key
        l, b, w, h = (0, 0, self.draw_size[0], self.draw_size[1] - TOOLBAR) if self.live else self._canvas
        room = w - 2 * PAD - 24
        text = self.message or ""
        lines = [text] if self._fonts.width(text, 10) <= room else self._fonts.wrap(text, room, 10, 2)
        bw = min(max(self._fonts.width(s, 10) for s in lines) + 24, w - 2 * PAD)
        bh = 10 + 15 * len(lines)
        box = (l + (w - bw) / 2, b + (36 if self.live else 8), bw, bh)
        for k, s in enumerate(lines):
            t = self._message_lines.get(k)
            self._set(t, s)
            t.position = (round(box[0] + 12), round(box[1] + bh - 5 - 15 * k))
        self._message_lines.finish(len(lines))
        self._boxes["message"].set(rects([box], ERROR_BACK if self.message_error else MESSAGE_BACK))

    def _build_live_bar(self) -> None:
        terrain = next((p.shown for p in self._terrains() if p.name == self.terrain), self.terrain or "flat")
        text = f"live test on {terrain}: R next terrain, T back to editing"
        key = (self._layout_key, text)
        if self._text_keys.get("live") == key:
            return
        self._text_keys["live"] = key
        t = self._live_text
        self._set(t, text)
        box = (PAD, 6, min(t.content_width + 24, self.draw_size[0] - 2 * PAD), 24)
        t.position = (round(box[0] + 12), round(box[1] + 12))
        self._boxes["live"].set(rects([box], MESSAGE_BACK))

    def _build_help(self) -> None:
        """The keys in a box beside the side panel (under the toolbar), its text smaller when
        the room is small; over the panel, framed, when even the smallest text needs more room."""
        w, h = self.draw_size
        self.help.layout(shrink((0, 0, w, h - TOOLBAR), 4), [self._panel])

    # drawing -----------------------------------------------------------------------------------
    def on_draw(self) -> None:
        self.window.ctx.screen.use()
        self.clear(color=self.background if not self.live or self.viewer is None else self.viewer.background)
        self.draw_editor()

    def draw_editor(self) -> None:
        """Draw the editor into the framebuffer in use (the window's, or an offscreen one),
        cleared with :attr:`background` by the caller."""
        self._ensure_layout()
        w, h = self.draw_size
        fw, fh = self._pixels
        sx, sy = fw / w, fh / h
        if self.live and self.viewer is not None:
            self.background = self.viewer.background
            self.viewer.draw_scene()
        else:
            self.background = SKY
            self._sync()
            if self._items_dirty or self._items_key != self.zoom:
                self._items_key = self.zoom
                self._build_items()
            self._build_grid()
            l, b, cw, ch = self._canvas
            cam = self._world_camera
            cam.viewport = LBWH(round(l * sx), round(b * sy), max(1, round(cw * sx)), max(1, round(ch * sy)))
            cam.zoom = 1.0                   # arcade scales a projection set by the zoom in force
            cam.projection = LBWH(-cw / 2, -ch / 2, cw, ch)
            cam.position = self.camera_position
            cam.zoom = self.zoom
            cam.use()
            pixel = 1.0 / self.zoom
            self._ground.draw(blend=False)
            self._grid.draw(pixel)
            self._fills.draw()
            self._items.draw(pixel)
        # the interface, in window units
        scr = self._screen_camera
        scr.viewport = LBWH(0, 0, fw, fh)
        scr.projection = LBWH(-w / 2, -h / 2, w, h)
        scr.position = (w / 2, h / 2)
        scr.zoom = 1.0
        scr.use()
        if not self.live:
            self._build_overlay()
            self._overlay_fill.draw()
            self._overlay.draw(1.0)
            self._build_texts()
            self._canvas_batch.draw()
        self._build_ui()
        self._ui.draw(blend=False)          # opaque: a software rasteriser fills it faster
        if self.live:
            self._build_live_bar()
            self._boxes["live"].draw()
            self._batches["live"].draw()
        else:
            self._ui_batch.draw()
        self._toolbar_batch.draw()
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
            self._ensure_layout()
            if self.viewer is not None:
                self.viewer.resize(self._live_size())

    def on_show_view(self) -> None:
        self.on_resize(*self.window.get_size())

    def on_update(self, delta_time: float) -> None:
        if (self.message and not self.message_error
                and time.monotonic() - self._message_at > MESSAGE_SECONDS):
            self.say(None)
        if self.live and self.viewer is not None:
            self.viewer.on_update(delta_time)
            return
        if self._held:
            k = arcade.key
            step = PAN_SPEED * self._canvas[2] * delta_time
            dx = (k.RIGHT in self._held) - (k.LEFT in self._held)
            dy = (k.UP in self._held) - (k.DOWN in self._held)
            self.pan(dx * step, dy * step)

    # actions -----------------------------------------------------------------------------------
    def say(self, message, error: bool = False) -> None:
        """Show one line (``message`` None clears it)."""
        self.message = None if message is None else (_one_line(message) or str(message))
        self.message_error = bool(error) and message is not None
        self._message_at = time.monotonic()

    def _edit(self, method: str, *args, **kwargs):
        """Call ``doc.method(*args)``: a :class:`GameError` is shown; the document's change is
        taken in at once. Returns what the method returned (None after an error)."""
        try:
            result = getattr(self.doc, method)(*args, **kwargs)
        except GameError as e:
            self.say(str(e), error=True)
            result = None
        else:
            self.say(None)              # an old line (an error, "saved") no longer holds
        self._sync()
        return result

    def select(self, items, add: bool = False) -> None:
        """Select ``items`` (``(kind, id)`` pairs); ``add`` keeps the selection there is."""
        items = [(str(k), str(i)) for k, i in items]
        self.selection = (list(self.selection) if add else []) + [it for it in items
                                                                   if not (add and it in self.selection)]
        self._selection_changed()
        self._refresh_panel()

    def set_tool(self, tool: str) -> None:
        """Use ``tool`` (one of :data:`TOOLS`); a drag under way is cancelled."""
        if tool not in TOOLS:
            raise ValueError(f"no tool {tool!r}; there are {', '.join(TOOLS)}")
        self.cancel_drag()
        self.tool = tool

    def toggle_snap(self) -> None:
        self.snap = not self.snap
        self.say(f"snap to a {SNAP * 100:g} cm grid: {'on' if self.snap else 'off'}")

    def delete(self) -> None:
        """Delete the selection (one undo step)."""
        if not self.selection:
            self.say("nothing selected to delete")
            return
        items = list(self.selection)
        self.selection = []
        self._selection_changed()
        self._edit("delete", items)

    def undo(self) -> None:
        if not self._can("can_undo"):
            self.say("nothing to undo")
            return
        self.cancel_drag()
        self._edit("undo")

    def redo(self) -> None:
        if not self._can("can_redo"):
            self.say("nothing to redo")
            return
        self.cancel_drag()
        self._edit("redo")

    def save(self) -> None:
        """``doc.save()``: ``saved PATH``, or the error."""
        path = self._edit("save")
        if path is not None:
            self.say(f"saved {path}")

    def evolve(self) -> None:
        """``doc.evolve()``: its line is shown."""
        line = self._edit("evolve")
        if line is not None:
            self.say(str(line))

    def toggle_muscle(self) -> None:
        """The selected bones become muscles and the muscles bones (with no bone selected: the
        muscle tool)."""
        bones = [i for k, i in self.selection if k == "bone"]
        if not bones:
            self.set_tool("muscle")
            return
        for b in bones:
            self._edit("toggle_muscle", b)

    def toggle_joint_kind(self) -> None:
        """The selected joints: a hinge becomes free, a free joint a hinge."""
        joints = [i for k, i in self.selection if k == "joint"]
        if not joints:
            self.say("select a joint first (J: the joint tool)")
            return
        for j in joints:
            k = self._ids["joint"].get(j)
            kind = self._sketch.joint_kind[k] if k is not None and k < len(self._sketch.joint_kind) else "hinge"
            self._edit("set_joint", j, kind="free" if kind == "hinge" else "hinge")

    def make_cluster(self) -> None:
        """Group the selected spheres (three or more) into a rigid cluster; with fewer selected,
        the cluster tool."""
        spheres = [i for k, i in self.selection if k == "sphere"]
        if len(spheres) < 3:
            self.set_tool("cluster")
            self.say("a cluster needs three spheres or more: select them (SHIFT+click, a box), then C")
            return
        new = self._edit("add_cluster", spheres)
        if new is not None:
            self.select([("cluster", new)])

    def _terrains(self) -> list:
        return list(getattr(self.doc, "terrains", None) or [])

    def _live_size(self) -> tuple[int, int]:
        fw, fh = self._pixels
        return fw, max(16, fh - round(TOOLBAR * fh / self.draw_size[1]))

    def toggle_live(self) -> None:
        """Start the live test (``doc.live_source(terrain)`` in the viewer), or go back to
        editing exactly as it was left."""
        if self.live:
            self.live = False
            self._ui_key = None
            return
        self.cancel_drag()
        self.cancel_entry()
        try:
            source = self.doc.live_source(self.terrain)
        except GameError as e:
            self.say(str(e), error=True)
            return
        self._play(source)
        self.live = True
        self._ui_key = None
        self.say(None)

    def _play(self, source) -> None:
        if self.viewer is None:
            self.viewer = Viewer(source, window=self.window, size=self._live_size(), close_on_quit=False,
                                 poll_interval=None, hint=False)
        else:
            self.viewer.set_source(source)

    def next_terrain(self) -> None:
        """The next of ``doc.terrains`` for the live test (playing it again from the start)."""
        picks = self._terrains()
        if not picks:
            self.say("no terrains to choose from")
            return
        names = [p.name for p in picks]
        i = names.index(self.terrain) if self.terrain in names else -1
        pick = picks[(i + 1) % len(picks)]
        self.terrain = pick.name
        if self.live:
            try:
                self._play(self.doc.live_source(self.terrain))
            except GameError as e:
                self.say(str(e), error=True)
                return
        self.say(f"terrain: {pick.shown}")

    def quit(self) -> bool:
        """Quit (``on_quit()`` or close the window); with unsaved changes, the first call only
        warns. Returns whether it quit."""
        if getattr(self.doc, "dirty", False) and not self._quit_armed:
            self._quit_armed = True
            self.say("unsaved changes: CTRL+S saves, Q again quits", error=True)
            return False
        self.quit_requested = True
        if self.on_quit is not None:
            self.on_quit()
        else:
            self.window.close()
        return True

    def cancel_drag(self) -> bool:
        """Drop the drag under way (nothing is changed); returns whether there was one."""
        had = self._drag is not None and self._drag.get("kind") not in ("swallow", "target")
        if self._drag is not None:
            self._drag = None
            self._items_dirty = True
        return had

    # the panel ---------------------------------------------------------------------------------
    def edit_field(self, i: int) -> None:
        """Open the entry on panel row ``i`` with its value (the first key typed replaces it)."""
        if not 0 <= i < len(self.panel_rows):
            return
        self.focus = i
        self._reveal(i)
        self.entry_row = i
        self.entry_text = str(self.panel_rows[i].value)
        self._entry_fresh = True
        self.field_error = None

    def cancel_entry(self) -> None:
        self.entry_text = None
        self.entry_row = -1
        self._entry_fresh = False

    def submit_entry(self) -> bool:
        """``doc.set_field`` with the typed text: the entry closes, or the error stays under it.
        Returns whether the value was set."""
        if self.entry_text is None or not 0 <= self.entry_row < len(self.panel_rows):
            self.cancel_entry()
            return False
        field = self.panel_rows[self.entry_row]
        kind, name = self.panel_item
        text = self.entry_text.strip()
        try:
            self.doc.set_field(kind, name, field.key, text)
        except GameError as e:
            self.field_error = _one_line(e) or f"{field.key}: not a value"
            self._entry_fresh = False
            return False
        self.field_error = None
        row = self.entry_row
        self.cancel_entry()
        if field.key == "id" and kind != "design" and text:       # renamed: keep it selected
            self.selection = [(k, text if (k, i) == (kind, name) else i) for k, i in self.selection]
        self._panel_key = None
        self._sync()
        self.focus = min(row, len(self.panel_rows) - 1)
        return True

    def _reveal(self, i: int) -> None:
        if i < self.panel_scroll:
            self.panel_scroll = i
        elif i >= self.panel_scroll + self._visible_rows:
            self.panel_scroll = i - self._visible_rows + 1

    def _scroll_panel(self, rows: int) -> None:
        top = max(0, len(self.panel_rows) - self._visible_rows)
        self.panel_scroll = int(min(max(self.panel_scroll + rows, 0), top))

    # input -------------------------------------------------------------------------------------
    def on_mouse_motion(self, x, y, dx, dy) -> None:
        row = -1
        if not self.live and _inside(self._panel, x, y):
            t = self._target(x, y)
            row = t[1] if t[0] == "row" else -1
        self._hover_row = row

    def on_mouse_press(self, x, y, button, modifiers) -> None:
        self._quit_armed = self._escape_armed = False
        if self.show_help:              # a click closes the help
            self.show_help = False
            self._drag = {"kind": "swallow"}
            return
        target = self._target(x, y)
        if button in (arcade.MOUSE_BUTTON_RIGHT, arcade.MOUSE_BUTTON_MIDDLE):
            if target[0] == "canvas":
                self._pan_button = True
            return
        if button != arcade.MOUSE_BUTTON_LEFT:
            return
        if target[0] in ("button", "row", "problem"):
            self._drag = {"kind": "target", "target": target}
            return
        if target[0] != "canvas" or self.live:
            if self.entry_text is not None and target[0] != "panel":
                self.cancel_entry()
            self._drag = {"kind": "swallow"}
            return
        if self.entry_text is not None:
            self.cancel_entry()
        self._press_canvas(x, y, bool(modifiers & arcade.key.MOD_SHIFT))

    def _press_canvas(self, x: float, y: float, shift: bool) -> None:
        tool = self.tool
        base = {"start": (x, y), "now": (x, y), "moved": False, "shift": shift}
        handle = self._handle_at(x, y) if tool in ("select", "joint") else None
        if handle is not None:
            j, which = handle
            self._drag = dict(base, kind="handle", joint=j, which=which,
                              min=float(self._joint_min[j]), max=float(self._joint_max[j]))
            return
        if tool == "joint":
            item = self.item_at(x, y)
            if item is None or item[0] not in ("joint", "sphere"):
                s = self._joint_sphere_at(x, y)
                if s is not None:
                    self._drag = dict(base, kind="joint", sphere=s)
                    return
            elif item[0] == "sphere" and self._bones_at(self._ids["sphere"][item[1]]).size >= 2:
                self._drag = dict(base, kind="joint", sphere=self._ids["sphere"][item[1]])
                return
        item = self.item_at(x, y)
        if tool == "bone" and item is not None and item[0] == "sphere":
            self._drag = dict(base, kind="bone", sphere=self._ids["sphere"][item[1]])
            return
        if tool == "muscle" and item is not None and item[0] == "bone":
            self._drag = dict(base, kind="muscle", bone=item[1])
            return
        if tool == "sphere" and (item is None or item[0] != "sphere"):
            self._drag = dict(base, kind="place")
            return
        if item is None:
            self._drag = dict(base, kind="box" if tool in ("select", "cluster") else "empty")
            return
        # an item: select it (SHIFT adds or removes); spheres, bones and clusters drag their spheres
        if shift:
            if item in self.selection:
                self.selection = [s for s in self.selection if s != item]
                self._selection_changed()
                self._refresh_panel()
                self._drag = {"kind": "swallow"}
                return
            self.select([item], add=True)
        elif item not in self.selection:
            self.select([item])
        kind, name = item
        spheres = self._moving()
        if kind in ("sphere", "bone", "cluster") and spheres.size:
            # the sphere that lands on the grid with snap on: the one grabbed, or the item's first
            first = {"sphere": lambda: [self._ids["sphere"][name]],
                     "bone": lambda: [self._bone_a[self._ids["bone"][name]]],
                     "cluster": lambda: self._clusters[self._ids["cluster"][name]][:1]}[kind]()
            anchor = int(first[0]) if len(first) and int(first[0]) in spheres.tolist() else int(spheres[0])
            self._drag = dict(base, kind="move", item=item, spheres=spheres, anchor=anchor, offset=None)
        else:
            self._drag = dict(base, kind="click", item=item)

    def on_mouse_drag(self, x, y, dx, dy, buttons, modifiers) -> None:
        if self.live:
            if self.viewer is not None and (self._drag is None or self._drag.get("kind") == "swallow"):
                self.viewer.on_mouse_drag(x, y, dx, dy, buttons, modifiers)      # pans the live view
            return
        if self._pan_button and buttons & (arcade.MOUSE_BUTTON_RIGHT | arcade.MOUSE_BUTTON_MIDDLE):
            self.pan(-dx, -dy)
            return
        d = self._drag
        if d is None or not buttons & arcade.MOUSE_BUTTON_LEFT or "start" not in d:
            return
        d["now"] = (x, y)
        if not d["moved"] and math.hypot(x - d["start"][0], y - d["start"][1]) >= CLICK_SLOP:
            d["moved"] = True
        if not d["moved"]:
            return
        if d["kind"] == "move":
            wx0, wy0 = self._world(*d["start"])
            wx, wy = self._world(x, y)
            off = np.array([wx - wx0, wy - wy0])
            if self.snap:
                a = self._pos[d["anchor"]]
                off = _snap(a + off) - a
            d["offset"] = off
            self._items_dirty = True
        elif d["kind"] == "handle":
            geo = self._joint_geometry(self._pos)
            j = d["joint"]
            c = geo["center"][j]
            wx, wy = self._world(x, y)
            ang = math.degrees(math.atan2(wy - c[1], wx - c[0]) - geo["start"][j])
            current = d[d["which"]]
            ang = current + ((ang - current + 180.0) % 360.0 - 180.0)      # the turn nearest to it
            ang = round(ang / ANGLE_SNAP) * ANGLE_SNAP if self.snap else round(ang)
            if d["which"] == "min":
                d["min"] = float(min(max(ang, d["max"] - 360.0), d["max"]))
            else:
                d["max"] = float(max(min(ang, d["min"] + 360.0), d["min"]))
            self._items_dirty = True

    def on_mouse_release(self, x, y, button, modifiers) -> None:
        if button in (arcade.MOUSE_BUTTON_RIGHT, arcade.MOUSE_BUTTON_MIDDLE):
            self._pan_button = False
            return
        if button != arcade.MOUSE_BUTTON_LEFT:
            return
        d, self._drag = self._drag, None
        if d is None:
            return
        kind = d["kind"]
        if kind == "target":
            target = self._target(x, y)
            if target == d["target"]:
                self.click(target)
            return
        if "start" not in d:
            return
        moved = d["moved"]
        self._items_dirty = True
        if kind == "move":
            if moved and d["offset"] is not None and np.any(d["offset"] != 0.0):
                ids = [self._names["sphere"][i] for i in d["spheres"].tolist()]
                self._edit("move_spheres", ids, _clean(d["offset"][0]), _clean(d["offset"][1]))
            elif not moved and not d["shift"] and len(self.selection) > 1:
                self.select([d["item"]])          # a click in a selection selects just that
        elif kind == "box":
            if moved:
                self._select_box(d["start"], (x, y), d["shift"])
            elif not d["shift"] and self.selection:
                self.select([])
        elif kind == "empty":
            if not d["shift"] and self.selection:
                self.select([])
        elif kind == "place":
            wx, wy = self._world(x, y)
            if self.snap:
                wx, wy = (float(v) for v in _snap([wx, wy]))
            new = self._edit("add_sphere", _clean(wx), _clean(wy))
            if new is not None:
                self.select([("sphere", new)])
        elif kind == "bone":
            item = self.item_at(x, y)
            if item is None or item[0] != "sphere":
                self.say("a bone goes from a sphere to another: release the drag on a sphere")
                return
            new = self._edit("add_bone", self._names["sphere"][d["sphere"]], item[1])
            if new is not None:
                self.select([("bone", new)])
        elif kind == "muscle":
            if self.item_at(x, y) == ("bone", d["bone"]):
                self._edit("toggle_muscle", d["bone"])
                self.select([("bone", d["bone"])])
        elif kind == "joint":
            if moved:
                return
            s = d["sphere"]
            c = self._pos[s]
            wx, wy = self._world(*d["start"])
            b1, b2 = self.bones_around(s, math.atan2(wy - c[1], wx - c[0]))
            names = self._names
            new = self._edit("add_joint", names["sphere"][s], names["bone"][b1], names["bone"][b2])
            if new is not None:
                self.select([("joint", new)])
        elif kind == "handle":
            if moved:
                j = d["joint"]
                self._edit("set_joint", self._names["joint"][j], min=d["min"], max=d["max"])

    def _select_box(self, a, b, add: bool) -> None:
        """Select what lies inside the box with corners ``a`` and ``b`` (window points): spheres
        with their centre in it, bones with both ends, joints with their sphere, clusters with
        all their members."""
        (x0, y0), (x1, y1) = self._world(*a), self._world(*b)
        lo = np.array([min(x0, x1), min(y0, y1)])
        hi = np.array([max(x0, x1), max(y0, y1)])
        pos = self._pos
        P = pos.shape[0]
        inside = np.all((pos >= lo) & (pos <= hi), axis=1) if P else np.zeros(0, bool)
        names = self._names
        items = [("sphere", names["sphere"][i]) for i in np.flatnonzero(inside).tolist()]
        ina = (lambda v: (v >= 0) & (v < P) & inside[np.clip(v, 0, max(P - 1, 0))] if P else np.zeros(v.shape, bool))
        items += [("bone", names["bone"][e]) for e in np.flatnonzero(ina(self._bone_a) & ina(self._bone_b)).tolist()]
        items += [("joint", names["joint"][j]) for j in np.flatnonzero(ina(self._joint_sphere)).tolist()]
        items += [("cluster", names["cluster"][k]) for k, m in enumerate(self._clusters)
                  if m.size and bool(np.all(ina(m)))]
        self.select(items, add=add)

    def click(self, target) -> None:
        """Do what a click on ``target`` does: a toolbar button, a panel row (edit it), a problem
        (select its items)."""
        kind, what = target
        if kind == "row":
            self.edit_field(what)
        elif kind == "problem":
            if what < len(self._problems):
                items = [tuple(i) for i in (self._problems[what].items or ())]
                items = [i for i in items if i[1] in self._ids.get(i[0], {})]
                self.select(items)
                if not items:
                    self.say("this problem is about the whole design")
        elif kind == "button":
            self.press_button(what)

    def press_button(self, name: str) -> None:
        """What the toolbar button ``name`` does."""
        if name in TOOLS:
            if self.live:
                self.toggle_live()
            if name == "muscle" and any(k == "bone" for k, _ in self.selection):
                self.toggle_muscle()
            elif name == "cluster" and sum(k == "sphere" for k, _ in self.selection) >= 3:
                self.make_cluster()
            else:
                self.set_tool(name)
            return
        {"delete": self.delete, "undo": self.undo, "redo": self.redo, "snap": self.toggle_snap,
         "save": self.save, "test": self.toggle_live, "evolve": self.evolve,
         "help": lambda: setattr(self, "show_help", not self.show_help)}[name]()

    def on_mouse_scroll(self, x, y, scroll_x, scroll_y) -> None:
        if self.live and self.viewer is not None:
            self.viewer.on_mouse_scroll(x, y, scroll_x, scroll_y)
            return
        target = self._target(x, y)
        if target[0] in ("row", "panel"):
            self._scroll_panel(-int(np.sign(scroll_y)) * max(1, int(abs(scroll_y))))
        elif target[0] == "canvas":
            self.set_zoom(self.zoom * WHEEL_STEP ** scroll_y, about=(x, y))

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        k = arcade.key
        if symbol != k.Q:
            self._quit_armed = False
        if symbol != k.ESCAPE:
            self._escape_armed = False
        if self.entry_text is not None:
            self._entry_key(symbol, modifiers)
            return
        if self.show_help:
            if symbol in (k.ESCAPE, k.H):
                self.show_help = False
                return
            self.show_help = False
        ctrl = modifiers & (k.MOD_CTRL | k.MOD_COMMAND)
        shift = modifiers & k.MOD_SHIFT
        if ctrl:
            if symbol == k.Z:
                self.redo() if shift else self.undo()
            elif symbol == k.Y:
                self.redo()
            elif symbol == k.S:
                self.save()
            return
        if self.live:
            self._live_key(symbol, modifiers)
            return
        tools = {k.V: "select", k.S: "sphere", k.B: "bone", k.J: "joint"}
        if symbol in tools:
            self.set_tool(tools[symbol])
        elif symbol == k.M:
            self.toggle_muscle()
        elif symbol == k.C:
            self.make_cluster()
        elif symbol == k.K:
            self.toggle_joint_kind()
        elif symbol == k.G:
            self.toggle_snap()
        elif symbol in (k.DELETE, k.BACKSPACE):
            self.delete()
        elif symbol == k.T:
            self.toggle_live()
        elif symbol == k.R:
            self.next_terrain()
        elif symbol == k.E:
            self.evolve()
        elif symbol == k.H:
            self.show_help = True
        elif symbol == k.F:
            self.fit_view()
        elif symbol == k.TAB:
            n = len(self.panel_rows)
            if n:
                self.focus = (self.focus + (-1 if shift else 1)) % n if self.focus >= 0 else (n - 1 if shift else 0)
                self._reveal(self.focus)
        elif symbol in (k.RETURN, k.ENTER, k.NUM_ENTER):
            if 0 <= self.focus < len(self.panel_rows):
                self.edit_field(self.focus)
        elif symbol in (k.EQUAL, k.PLUS, k.NUM_ADD):
            self.set_zoom(self.zoom * ZOOM_STEP)
        elif symbol in (k.MINUS, k.NUM_SUBTRACT):
            self.set_zoom(self.zoom / ZOOM_STEP)
        elif symbol in (k.LEFT, k.RIGHT, k.UP, k.DOWN):
            step = PAN_STEP * self._canvas[2]
            self.pan(((symbol == k.RIGHT) - (symbol == k.LEFT)) * step, ((symbol == k.UP) - (symbol == k.DOWN)) * step)
            self._held.add(symbol)
        elif symbol == k.ESCAPE:
            self.escape()
        elif symbol == k.Q:
            self.quit()

    def escape(self) -> None:
        """ESC: cancel the drag under way, else close the help, else clear the selection (and the
        panel's focus), else quit: with nothing to cancel the first ESC only says so (an ESC too
        many should not close an editor), a second one in a row quits."""
        if self.cancel_drag():
            return
        if self.show_help:
            self.show_help = False
        elif self.selection or self.focus >= 0:
            self.select([])
            self.focus = -1
        elif not self._escape_armed:
            self._escape_armed = True
            self.say("nothing to cancel: ESC again (or Q) quits")
        else:
            self._escape_armed = False
            self.quit()

    def _live_key(self, symbol: int, modifiers: int) -> None:
        k = arcade.key
        if symbol in (k.T, k.ESCAPE):
            if symbol == k.ESCAPE and self.viewer.show_help:
                self.viewer.show_help = False
            else:
                self.toggle_live()
        elif symbol == k.R:
            self.next_terrain()
        elif symbol == k.E:
            self.evolve()
        elif symbol == k.H:
            self.show_help = True
        elif symbol == k.Q:
            self.quit()
        else:
            self.viewer.on_key_press(symbol, modifiers)

    def on_key_release(self, symbol: int, modifiers: int) -> None:
        self._held.discard(symbol)
        if self.viewer is not None:
            self.viewer.on_key_release(symbol, modifiers)

    def _entry_key(self, symbol: int, modifiers: int) -> None:
        k = arcade.key
        if symbol == k.ESCAPE:
            self.cancel_entry()
            self.field_error = None
        elif symbol in (k.RETURN, k.ENTER, k.NUM_ENTER):
            self.submit_entry()
        elif symbol == k.TAB:
            if self.submit_entry() and self.panel_rows:
                self.focus = (self.focus + 1) % len(self.panel_rows)
                self._reveal(self.focus)
        elif symbol == k.BACKSPACE:
            self.entry_text = "" if self._entry_fresh else self.entry_text[:-1]
            self._entry_fresh = False

    def on_text(self, text: str) -> None:
        """Typing into the panel's entry (control characters are dropped)."""
        if self.entry_text is None:
            return
        typed = "".join(c for c in text if c.isprintable())
        if not typed:
            return
        if self._entry_fresh:
            self.entry_text = ""
            self._entry_fresh = False
        self.entry_text += typed


# measuring ----------------------------------------------------------------------------------------
def measure_editor_frames(doc, size=(1280, 720), frames=120, drag=False, warmup=10) -> dict:
    """Milliseconds per frame of the editor at ``size``, offscreen: the frame's input handled,
    everything drawn, and ``ctx.finish()`` (waiting for the rasteriser).

    Parameters
    ----------
    doc : DesignDoc
        The design to edit (its first sphere is the one dragged).
    size : (int, int)
    frames : int
        Frames measured (after ``warmup`` more).
    drag : bool or str
        False: idle frames (drawing only). True: each frame drags the first sphere a few
        pixels through the mouse handlers and releases it, so each frame commits one
        ``doc.move_spheres`` (a real document's validation counts); the sphere goes back and
        forth. ``"preview"``: one long drag, the sphere moved every frame and drawn where it is
        dragged, no document call (the drag is cancelled at the end).

    Returns
    -------
    dict
        ``median_ms``, ``p90_ms``, ``mean_ms``, ``max_ms``, ``input_ms`` and ``draw_ms``
        (medians of the two parts), ``frames``, ``size``, ``renderer``, ``moves`` (the document
        calls the frames made).
    """
    from .offscreen import check_number, check_size, offscreen

    size = check_size(size)
    frames = int(check_number("frames", frames, 1, 100000, whole=True))
    if drag not in (False, True, "preview"):
        raise ValueError(f"drag must be False, True or 'preview', not {drag!r}")
    left = arcade.MOUSE_BUTTON_LEFT
    with offscreen(size) as (window, fbo):
        ctx = window.ctx
        view = EditorView(doc, window=window, size=size)
        view.snap = False
        moves = 0
        P = len(view.sketch.sphere_id)
        if drag and P == 0:
            raise ValueError("the design has no sphere to drag")

        def grab():
            x, y = view.world_to_screen(*view.sketch.pos[0])
            return float(x), float(y)

        if drag == "preview":
            x0, y0 = grab()
            view.on_mouse_press(x0, y0, left, 0)
        total, handled, drawn = [], [], []
        for k in range(warmup + frames):
            t0 = time.perf_counter()
            step = 6.0 if k % 2 == 0 else -6.0        # back and forth: the design stays in place
            if drag == "preview":
                view.on_mouse_drag(x0 + (step if k % 2 == 0 else 0.0), y0 + 3.0, step, 3.0, left, 0)
            elif drag:
                x, y = grab()
                view.on_mouse_press(x, y, left, 0)
                view.on_mouse_drag(x + step, y, step, 0.0, left, 0)
                view.on_mouse_release(x + step, y, left, 0)
                moves += 1
            t1 = time.perf_counter()
            fbo.use()
            fbo.clear(color=tuple(view.background) + (255,))
            view.draw_editor()
            ctx.finish()
            t2 = time.perf_counter()
            if k >= warmup:
                total.append(t2 - t1 + t1 - t0)
                handled.append(t1 - t0)
                drawn.append(t2 - t1)
        if drag == "preview":
            view.escape()
        renderer = ctx.info.RENDERER
    ms = np.array(total) * 1000.0
    return {"median_ms": float(np.median(ms)), "p90_ms": float(np.percentile(ms, 90)),
            "mean_ms": float(ms.mean()), "max_ms": float(ms.max()),
            "input_ms": float(np.median(handled) * 1000.0), "draw_ms": float(np.median(drawn) * 1000.0),
            "frames": frames, "size": size, "renderer": renderer, "moves": moves}

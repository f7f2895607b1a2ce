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

The view holds the editing's state and turns input into the document's methods; the rest is
done by its parts, each in a module of its own: the canvas's camera (:mod:`render.editor_camera`),
the design as the canvas has it (:mod:`render.editor_design`), what is under the mouse
(:mod:`render.editor_hits`), what the left button does with each tool
(:mod:`render.editor_tools`), the canvas as drawn (:mod:`render.editor_geometry`), where
everything goes (:mod:`render.editor_layout`), the side panel (:mod:`render.editor_panel`), the
toolbar, the status strip and the message line (:mod:`render.editor_bars`), and the live test's
own view (:mod:`render.editor_live`), in the colours of :mod:`render.editor_theme`. This module
re-exports their constants.
"""

from __future__ import annotations

from ._display import prefer_headless

prefer_headless()

import arcade  # noqa: E402

from .editor_arrange import ARRANGE_KEYS, Arranger  # noqa: E402
from .editor_bars import MESSAGE_SECONDS, TOOL_HINTS, Bars, MessageLine  # noqa: E402
from .editor_bench import measure_frames  # noqa: E402
from .editor_camera import PAN_SPEED, PAN_STEP, WHEEL_STEP, ZOOM_RANGE, ZOOM_STEP, CanvasCamera  # noqa: E402
from .editor_design import ARC_PIXELS, HANDLE_PIXELS, Design  # noqa: E402
from .editor_geometry import ARC_STEPS, GRID_MIN_PIXELS, GRID_STEPS, DesignGeometry  # noqa: E402
from .editor_hits import HIT_SLOP, JOINT_REACH, CanvasHits  # noqa: E402
from .editor_layout import (BUTTONS, MAX_PROBLEM_LINES, PAD, PANEL_FOOT, PANEL_FRACTION, PANEL_TITLE,  # noqa: E402
                            PANEL_WIDTH, PROBLEM_LINE, ROW, STATUS, TOOLBAR, TOOLS, EditorLayout)
from .editor_live import LiveTestView  # noqa: E402
from .editor_panel import SidePanel  # noqa: E402
from .editor_theme import (BOX_EDGE, BOX_FILL, BUTTON, BUTTON_OFF_TEXT, BUTTON_ON, BUTTON_TEXT,  # noqa: E402
                           CLUSTER_EDGE, CLUSTER_FILL, ERROR_BACK, EVOLVE, FIELD, FIELD_SELECTED, GRID,
                           GRID_MAJOR, GROUND_FILL, GROUND_LINE, HANDLE_CORE, HINT_TEXT, JOINT, JOINT_WEDGE,
                           MESSAGE_BACK, MESSAGE_TEXT, MUSCLE, PANEL_ERROR, PANEL_LABEL, PANEL_MUTED, PROBLEM,
                           PROBLEM_RIM, PROBLEM_TEXT, ROW_FOCUS, ROW_HOVER, SELECT, SPHERE_RIM, STRIP_BACK,
                           STRIP_EDGE, TOOLBAR_BACK, VALID_TEXT)
from .editor_tools import ANGLE_SNAP, CLICK_SLOP, SNAP, CanvasTools  # noqa: E402
from .game import GameError  # noqa: E402
from .layout import shrink  # noqa: E402
from .overlay import KeyHelp  # noqa: E402
from .text import inside as _inside  # noqa: E402
from .parts import part_property  # noqa: E402
from .theme import SKY  # noqa: E402

__all__ = ["EditorView", "KEYS", "BUTTONS", "TOOLS", "SNAP", "measure_editor_frames",
           # the parts' constants, as this module had them
           "GROUND_FILL", "GROUND_LINE", "GRID", "GRID_MAJOR", "MUSCLE", "SPHERE_RIM", "JOINT", "JOINT_WEDGE",
           "CLUSTER_FILL", "CLUSTER_EDGE", "SELECT", "PROBLEM", "PROBLEM_RIM", "EVOLVE", "HANDLE_CORE",
           "BOX_FILL", "BOX_EDGE", "TOOLBAR_BACK", "BUTTON", "BUTTON_ON", "BUTTON_TEXT", "BUTTON_OFF_TEXT",
           "PANEL_LABEL", "PANEL_MUTED", "PANEL_ERROR", "ROW_FOCUS", "ROW_HOVER", "FIELD", "FIELD_SELECTED",
           "STRIP_BACK", "STRIP_EDGE", "PROBLEM_TEXT", "VALID_TEXT", "HINT_TEXT", "MESSAGE_BACK", "ERROR_BACK",
           "MESSAGE_TEXT", "TOOLBAR", "PAD", "PANEL_WIDTH", "PANEL_FRACTION", "ROW", "PANEL_TITLE", "PANEL_FOOT",
           "STATUS", "PROBLEM_LINE", "ANGLE_SNAP", "ZOOM_RANGE", "ZOOM_STEP", "WHEEL_STEP", "PAN_STEP",
           "PAN_SPEED", "CLICK_SLOP", "HIT_SLOP", "ARC_PIXELS", "ARC_STEPS", "HANDLE_PIXELS", "JOINT_REACH",
           "MAX_PROBLEM_LINES", "MESSAGE_SECONDS", "GRID_STEPS", "GRID_MIN_PIXELS", "TOOL_HINTS"]

#: (keys, what they do): the help overlay
KEYS = (
    ("V", "select and move: click, SHIFT+click adds, drag a box or spheres"),
    ("S", "sphere: click empty space to place one"),
    ("B", "bone: drag from a sphere to another, or to empty space"),
    ("M", "muscle: click a bone: muscle / bone (M on selected bones)"),
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
    *ARRANGE_KEYS,
    ("H", "this help"),
    ("ESC", "cancel a drag, close the help, clear the selection"),
    ("Q, ESC ESC", "quit (with unsaved changes: Q twice)"),
)


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
    viewer, terrain
        The live test's viewer (made at the first T, reused after) and terrain (a ``Pick.name``
        of ``doc.terrains``; ``""``: flat).
    message, message_error
        The last line for the player (``saved PATH``, what evolve did, an error), shown at the
        bottom of the canvas, and whether it is an error.
    panel_title, panel_item, panel_rows, panel_scroll, focus, entry_text, entry_row, field_error
        The side panel's: ``sphere foot``, ``design walker``...; the item it shows
        (``("design", "")`` when nothing is selected); its rows (``doc.fields(*panel_item)``);
        the rows scrolled past; the row TAB moved to (-1: none); the value being typed into row
        :attr:`entry_row` (None while no entry is open); why the value typed was refused.
    problem_lines, status
        The problems list as drawn (``valid`` when there are none), the status line as drawn.
    camera_position, zoom
        World point (m) at the centre of the canvas, and pixels (window units) per metre.
    show_help : bool
    quit_requested : bool
    draw_size : (int, int)
        The layout's size (window units).
    background : (int, int, int)
        The colour a frame is cleared with (the sky; the viewer's while the live test plays).
    layout, camera, design, hits, tools, geometry, panel, bars, message_line, live_test
        The parts (see the module docstring): the layout's boxes (``layout.canvas``...); the
        canvas's camera (its ``position`` and ``zoom`` are :attr:`camera_position` and
        :attr:`zoom`); the design's arrays and marks; the hit-testing; the left button's gesture
        (``tools.drag``); the canvas's batches (``geometry.items``...); the side panel (its rows,
        entry and texts: ``panel.row_values``...); the toolbar and the status strip; the message
        line (``message_line.text``, ``shown_at``, ``lines``); the live test's view (its viewer).

    Notes
    -----
    Tests and the game driver work through the real handlers (``on_mouse_press``,
    ``on_mouse_drag``, ``on_mouse_release``, ``on_key_press``, ``on_text``) at points given by
    :meth:`world_to_screen`, :meth:`button_rect`, :meth:`field_rect`, :meth:`problem_rect` and
    :meth:`handle_position`. :meth:`draw_editor` draws into whichever framebuffer is in use.
    The live test is a view of its own (:class:`~render.editor_live.LiveTestView`) that this one
    hands the frames, the keys and the mouse while it plays.
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
        self.show_help = False
        self.quit_requested = False
        self.background = SKY
        self._pan_button = False        # a right or middle drag pans
        self._quit_armed = False        # Q was pressed once with unsaved changes
        self._escape_armed = False      # ESC was pressed once with nothing to cancel
        self._held: set[int] = set()
        self._doc_text = None
        # the parts
        ctx = self.window.ctx
        self.ctx = ctx
        self.layout = EditorLayout()
        self.camera = CanvasCamera(self.window)
        self.design = Design()
        self.hits = CanvasHits(self.camera, self.design)
        self.tools = CanvasTools(self.camera, self.design, self.hits, select=self.select, edit=self._edit,
                                 say=self.say)
        self.geometry = DesignGeometry(ctx)
        self.bars = Bars(ctx, self.layout)
        self.panel = SidePanel(self.bars.ui_batch, self.layout)
        self.message_line = MessageLine(ctx, self.layout)
        self.arranger = Arranger(self)      # mirror, duplicate, copy and paste, rotate, scale, ground
        k = arcade.key
        # the keys that do one thing while editing (the others: on_key_press); R, E, H, Q during the live test too
        self._keys = {k.M: self.toggle_muscle, k.C: self.make_cluster, k.K: self.toggle_joint_kind,
                      k.G: self.toggle_snap, k.DELETE: self.delete, k.BACKSPACE: self.delete, k.T: self.toggle_live,
                      k.R: self.next_terrain, k.E: self.evolve, k.H: lambda: setattr(self, "show_help", True),
                      k.F: self.fit_view, k.ESCAPE: self.escape, k.Q: self.quit}
        self.live_test = LiveTestView(self.layout, back=self.toggle_live, window=self.window,
                                      keys={s: self._keys[s] for s in (k.R, k.E, k.H, k.Q)})
        self.help = KeyHelp(ctx, KEYS, size=10)
        self._ensure_layout()
        self._sync()
        self.fit_view()

    # the parts' state, as the view's -------------------------------------------------------------
    camera_position = part_property("camera", "position", "World point (m) at the centre of the canvas.", settable=True)
    zoom = part_property("camera", "zoom", "Pixels (window units) per metre.", settable=True)
    viewer = part_property("live_test", "viewer", "The live test's viewer (None before the first T).")
    terrain = part_property("live_test", "terrain", "The terrain of the live test.", settable=True)
    message = part_property("message_line", "text", "The last line for the player (None: none).", settable=True)
    message_error = part_property("message_line", "error", "Whether :attr:`message` is an error.", settable=True)
    panel_item = part_property("panel", "item", "The item the panel shows.")
    panel_title = part_property("panel", "title", "The panel's title.")
    panel_rows = part_property("panel", "rows", "What the panel shows.")
    panel_scroll = part_property("panel", "scroll", "Panel rows scrolled past.", settable=True)
    focus = part_property("panel", "focus", "The panel row TAB moved to (-1: none).", settable=True)
    entry_text = part_property("panel", "entry_text", "The value being typed (None: no entry open).", settable=True)
    entry_row = part_property("panel", "entry_row", "The panel row the entry is on (-1: none).", settable=True)
    field_error = part_property("panel", "error", "Why the value typed in the panel was refused.", settable=True)
    problem_lines = part_property("bars", "problem_lines", "The problems list as drawn.")
    status = part_property("bars", "status", "The status line as drawn.")

    # the document ------------------------------------------------------------------------------
    @property
    def sketch(self):
        """The sketch drawn (``doc.sketch`` as of the last change seen)."""
        return self.design.sketch

    def _sync(self) -> None:
        """Take in what changed in the document: the sketch (drawn again), the text (the panel's
        values), the problems (the list, the red items). Cheap when nothing changed."""
        doc = self.doc
        sketch = doc.sketch
        text = getattr(doc, "text", None)
        changed = self.design.take(sketch)
        if changed:
            self.geometry.dirty = True
        if text is not self._doc_text and text != self._doc_text:
            changed = True
        self._doc_text = text
        if self.bars.take_problems(doc.problems, changed):
            problems = self.bars.problems
            self.design.problem_items = self.design.indices([i for p in problems for i in (p.items or ())])
            self.geometry.dirty = True
        if changed:
            self._prune_selection()
            self.panel.forget()
        self.panel.refresh(doc, self.selection)

    def _prune_selection(self) -> None:
        ids = self.design.ids
        self.selection = [(k, i) for k, i in self.selection if i in ids.get(k, {})]
        self._selection_changed()

    def _selection_changed(self) -> None:
        self.design.selected = self.design.indices(self.selection)
        self.geometry.dirty = True

    # coordinates -------------------------------------------------------------------------------
    def world_to_screen(self, x, y):
        """Window point (from the bottom left) of world point ``(x, y)`` (m); arrays work too."""
        return self.camera.world_to_screen(x, y)

    def screen_to_world(self, sx, sy):
        """World point (m) under window point ``(sx, sy)``."""
        return self.camera.screen_to_world(sx, sy)

    def set_zoom(self, zoom: float, about=None) -> None:
        """Zoom to ``zoom`` pixels per metre (within :data:`ZOOM_RANGE`), keeping the world point
        under window point ``about`` in place (by default the canvas's centre)."""
        self.camera.set_zoom(zoom, about)

    def pan(self, dx: float, dy: float) -> None:
        """Move the view by (dx, dy) window units (the design moves the other way)."""
        self.camera.pan(dx, dy)

    def fit_view(self) -> None:
        """Zoom and pan so the whole design (and the ground under it) fills the canvas."""
        self.camera.fit(self.design.pos, self.design.radius)

    # layout ------------------------------------------------------------------------------------
    def _window_size(self) -> tuple[int, int]:
        return tuple(int(v) for v in self.window.get_size())

    def button_rect(self, name: str) -> tuple[float, float, float, float]:
        """A toolbar button as (left, bottom, width, height) in window units; names in
        :data:`BUTTONS`."""
        self._ensure_layout()
        return self.layout.button_rect(name)

    def field_rect(self, i: int) -> tuple[float, float, float, float]:
        """Panel row ``i`` (of :attr:`panel_rows`) as (left, bottom, width, height), where it is
        now (a row scrolled out of the panel is outside it: TAB or the wheel bring it in)."""
        self._ensure_layout()
        return self.layout.field_rect(i, self.panel.scroll)

    def problem_rect(self, i: int) -> tuple[float, float, float, float]:
        """Line ``i`` of the problems list (problem ``i`` of ``doc.problems`` while it is shown)."""
        self._ensure_layout()
        return self.layout.problem_rect(i)

    def handle_position(self, joint_id: str, which: str) -> tuple[float, float]:
        """Window point of a hinge's limit handle, ``which`` ``min`` or ``max`` (where the limit
        is now, or is being dragged to)."""
        return self.hits.handle_position(joint_id, which, self.tools.drag)

    def _ensure_layout(self) -> None:
        """Where everything goes for the current size (no drawing)."""
        if not self.layout.update(self.draw_size):
            return
        self.camera.canvas = self.layout.canvas
        self.bars.relayout()
        w, h = self.draw_size
        self.help.layout(shrink((0, 0, w, h - TOOLBAR), 4), [self.layout.panel])
        self.geometry.dirty = True
        self.geometry.grid_key = None

    # hits --------------------------------------------------------------------------------------
    def _target(self, x: float, y: float):
        """What window point ``(x, y)`` is on: ``("button", name)``, ``("row", i)``,
        ``("problem", i)``, ``("panel", None)``, ``("strip", None)``, ``("canvas", None)``."""
        self._ensure_layout()
        return self.layout.target(x, y, self.live, self.panel.scroll, len(self.panel.rows),
                                  self.bars.shown_problems())

    def item_at(self, x: float, y: float, reach: float = 0.0):
        """The item under window point ``(x, y)``: spheres first (the nearest centre of those
        under the point, ``reach`` more pixels around them), then bones, then joints' arcs, then
        clusters; ``(kind, id)`` or None."""
        return self.hits.item_at(x, y, self.tools.drag, reach)

    def bones_around(self, sphere: int, angle: float) -> tuple[int, int]:
        """The two bones of ``sphere`` on each side of direction ``angle`` (radians): the first
        is the nearest clockwise of it, the second the nearest counter-clockwise, so the joint's
        angle (from the first bone to the second, counter-clockwise) spans ``angle``."""
        return self.hits.bones_around(sphere, angle, self.tools.drag)

    # drawing -----------------------------------------------------------------------------------
    def _can(self, name: str) -> bool:
        return bool(getattr(self.doc, name, True))

    def on_draw(self) -> None:
        self.window.ctx.screen.use()
        self.clear(color=self.background if not self.live or self.viewer is None else self.viewer.background)
        self.draw_editor()

    def draw_editor(self) -> None:
        """Draw the editor into the framebuffer in use (the window's, or an offscreen one),
        cleared with :attr:`background` by the caller."""
        self._ensure_layout()
        camera, size, pixels = self.camera, self.draw_size, self._pixels
        if self.live and self.viewer is not None:
            self.background = self.live_test.background
            self.live_test.draw_scene()
        else:
            self.background = SKY
            self._sync()
            arr = self.arranger
            self.geometry.draw(camera, self.design, self.tools.drag, pixels, size, arr.axis if arr.mirror_mode else None)
        # the interface, in window units
        camera.use_screen(pixels, size)
        bars = self.bars
        if not self.live:
            self.geometry.draw_overlay(camera, self.design, self.tools.drag)
            self.panel.build_texts()
            bars.build_texts(bars.status_line(self.doc, self.design, self.tool, self.snap) + self.arranger.status(),
                             self.tool)
            bars.canvas_batch.draw()
        bars.draw_backs(self.tool, self.snap, self.live, self._can("can_undo"), self._can("can_redo"),
                        self.show_help, self.panel, self.arranger.mirror_mode)
        if self.live:
            self.live_test.draw_bar(self.doc)
        else:
            bars.ui_batch.draw()
        bars.toolbar_batch.draw()
        if self.message:
            self.message_line.draw(self.live)
        if self.show_help:
            self.help.draw()

    def on_resize(self, width: int, height: int) -> None:
        if not self._fixed_size:
            self.draw_size = self._window_size()
            self._pixels = tuple(int(v) for v in self.window.get_framebuffer_size())
            self._ensure_layout()
            if self.viewer is not None:
                self.live_test.resize(self._live_size())

    def on_show_view(self) -> None:
        self.on_resize(*self.window.get_size())

    def on_update(self, delta_time: float) -> None:
        if self.message_line.expired():
            self.say(None)
        if self.live and self.viewer is not None:
            self.live_test.on_update(delta_time)
            return
        self.camera.pan_held(self._held, delta_time)

    # actions -----------------------------------------------------------------------------------
    def say(self, message, error: bool = False) -> None:
        """Show one line (``message`` None clears it)."""
        self.message_line.say(message, error)

    def _edit(self, method: str, *args, **kwargs):
        """Call ``doc.method(*args)``: a :class:`GameError` is shown; the document's change is
        taken in at once. Returns what the method returned (None after an error)."""
        self.arranger.before(method, args)      # mirror mode: the parts' images, found before it
        try:
            result = getattr(self.doc, method)(*args, **kwargs)
        except GameError as e:
            self.say(str(e), error=True)
            result = None
        else:
            self.say(None)              # an old line (an error, "saved") no longer holds
            result = self.arranger.follow(method, args, kwargs, result)
        self._sync()
        return result

    def select(self, items, add: bool = False) -> None:
        """Select ``items`` (``(kind, id)`` pairs); ``add`` keeps the selection there is."""
        items = [(str(k), str(i)) for k, i in items]
        self.selection = (list(self.selection) if add else []) + [it for it in items
                                                                   if not (add and it in self.selection)]
        self._selection_changed()
        self.panel.refresh(self.doc, self.selection)

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
        """M: with bones selected by the select tool, they become muscles and the muscles bones;
        otherwise (nothing selected, or a bone just drawn, which stays selected) the muscle
        tool. The status line says which it did."""
        bones = [i for k, i in self.selection if k == "bone"]
        if not bones or self.tool != "select":
            self.set_tool("muscle")
            self.say("the muscle tool: click a bone to make it a muscle, a muscle to make it a bone")
            return
        for b in bones:
            self._edit("toggle_muscle", b)
        self.say(f"{len(bones)} selected bone{'s' if len(bones) > 1 else ''} switched between bone and muscle")

    def toggle_joint_kind(self) -> None:
        """The selected joints: a hinge becomes free, a free joint a hinge."""
        joints = [i for k, i in self.selection if k == "joint"]
        if not joints:
            self.say("select a joint first (J: the joint tool)")
            return
        for j in joints:
            k = self.design.ids["joint"].get(j)
            kind = self.sketch.joint_kind[k] if k is not None and k < len(self.sketch.joint_kind) else "hinge"
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

    def _live_size(self) -> tuple[int, int]:
        fw, fh = self._pixels
        return fw, max(16, fh - round(TOOLBAR * fh / self.draw_size[1]))

    def toggle_live(self) -> None:
        """Start the live test (``doc.live_source(terrain)`` in the viewer), or go back to
        editing exactly as it was left."""
        if self.live:
            self.live = False
            self.bars.ui_key = None
            return
        self.cancel_drag()
        self.cancel_entry()
        error = self.live_test.start(self.doc, self._live_size())
        if error is not None:
            self.say(error, error=True)
            return
        self.live = True
        self.bars.ui_key = None
        self.say(None)

    def next_terrain(self) -> None:
        """The next of ``doc.terrains`` for the live test (playing it again from the start)."""
        line, error = self.live_test.next_terrain(self.doc, self.live, self._live_size())
        self.say(line, error=error)

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
        tools = self.tools
        had = tools.drag is not None and tools.drag.get("kind") not in ("swallow", "target")
        if tools.drag is not None:
            tools.drag = None
            self.geometry.dirty = True
        return had

    # the panel ---------------------------------------------------------------------------------
    def edit_field(self, i: int) -> None:
        """Open the entry on panel row ``i`` with its value (the first key typed replaces it)."""
        self.panel.edit(i)

    def cancel_entry(self) -> None:
        self.panel.cancel()

    def submit_entry(self) -> bool:
        """``doc.set_field`` with the typed text: the entry closes, or the error stays under it.
        Returns whether the value was set."""
        panel = self.panel
        done = panel.submit(self.doc)
        if done is None:
            return False
        row, key, text = done
        kind, name = panel.item
        if key == "id" and kind != "design" and text:       # renamed: keep it selected
            self.selection = [(k, text if (k, i) == (kind, name) else i) for k, i in self.selection]
        panel.forget()
        self._sync()
        panel.focus = min(row, len(panel.rows) - 1)
        return True

    # input -------------------------------------------------------------------------------------
    def on_mouse_motion(self, x, y, dx, dy) -> None:
        self.arranger.moved(x, y)
        row = -1
        if not self.live and _inside(self.layout.panel, x, y):
            t = self._target(x, y)
            row = t[1] if t[0] == "row" else -1
        self.panel.hover = row

    def on_mouse_press(self, x, y, button, modifiers) -> None:
        self._quit_armed = self._escape_armed = False
        if self.show_help:              # a click closes the help
            self.show_help = False
            self.tools.drag = {"kind": "swallow"}
            return
        target = self._target(x, y)
        if button in (arcade.MOUSE_BUTTON_RIGHT, arcade.MOUSE_BUTTON_MIDDLE):
            if target[0] == "canvas":
                self._pan_button = True
            return
        if button != arcade.MOUSE_BUTTON_LEFT:
            return
        if target[0] in ("button", "row", "problem"):
            self.tools.drag = {"kind": "target", "target": target}
            return
        if target[0] != "canvas" or self.live:
            if self.entry_text is not None and target[0] != "panel":
                self.cancel_entry()
            self.tools.drag = {"kind": "swallow"}
            return
        if self.entry_text is not None:
            self.cancel_entry()
        self.tools.press(x, y, self.tool, bool(modifiers & arcade.key.MOD_SHIFT), self.selection)

    def on_mouse_drag(self, x, y, dx, dy, buttons, modifiers) -> None:
        d = self.tools.drag
        if self.live:
            if self.viewer is not None and (d is None or d.get("kind") == "swallow"):
                self.live_test.on_mouse_drag(x, y, dx, dy, buttons, modifiers)      # pans the live view
            return
        if self._pan_button and buttons & (arcade.MOUSE_BUTTON_RIGHT | arcade.MOUSE_BUTTON_MIDDLE):
            self.pan(-dx, -dy)
            return
        if d is None or not buttons & arcade.MOUSE_BUTTON_LEFT or "start" not in d:
            return
        if self.tools.follow(x, y, self.snap):
            self.geometry.dirty = True

    def on_mouse_release(self, x, y, button, modifiers) -> None:
        if button in (arcade.MOUSE_BUTTON_RIGHT, arcade.MOUSE_BUTTON_MIDDLE):
            self._pan_button = False
            return
        if button != arcade.MOUSE_BUTTON_LEFT:
            return
        d, self.tools.drag = self.tools.drag, None
        if d is None:
            return
        if d["kind"] == "target":
            target = self._target(x, y)
            if target == d["target"]:
                self.click(target)
            return
        if "start" not in d:
            return
        self.geometry.dirty = True
        self.tools.release(d, x, y, self.snap, self.selection)

    def click(self, target) -> None:
        """Do what a click on ``target`` does: a toolbar button, a panel row (edit it), a problem
        (select its items)."""
        kind, what = target
        if kind == "row":
            self.edit_field(what)
        elif kind == "problem":
            items = self.bars.problem_items(what, self.design.ids)
            if items is not None:
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
            if name == "muscle":
                self.toggle_muscle()
            elif name == "cluster" and sum(k == "sphere" for k, _ in self.selection) >= 3:
                self.make_cluster()
            else:
                self.set_tool(name)
            return
        {"delete": self.delete, "undo": self.undo, "redo": self.redo, "snap": self.toggle_snap,
         "mirror": self.arranger.toggle_mode, "flip": self.arranger.mirror, "duplicate": self.arranger.duplicate,
         "ground": self.arranger.ground, "save": self.save, "test": self.toggle_live, "evolve": self.evolve,
         "help": lambda: setattr(self, "show_help", not self.show_help)}[name]()

    def on_mouse_scroll(self, x, y, scroll_x, scroll_y) -> None:
        if self.live and self.viewer is not None:
            self.live_test.on_mouse_scroll(x, y, scroll_x, scroll_y)
            return
        target = self._target(x, y)
        if target[0] in ("row", "panel"):
            self.panel.on_wheel(scroll_y)
        elif target[0] == "canvas":
            self.camera.on_wheel(x, y, scroll_y)

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        k = arcade.key
        if symbol != k.Q:
            self._quit_armed = False
        if symbol != k.ESCAPE:
            self._escape_armed = False
        if self.entry_text is not None:
            self.panel.entry_key(symbol, modifiers, self.submit_entry)
            return
        if self.show_help:
            if symbol in (k.ESCAPE, k.H):
                self.show_help = False
                return
            self.show_help = False
        ctrl = modifiers & (k.MOD_CTRL | k.MOD_COMMAND)
        shift = modifiers & k.MOD_SHIFT
        if not self.live and self.arranger.key(symbol, modifiers):
            return
        if ctrl:
            if symbol == k.Z:
                self.redo() if shift else self.undo()
            elif symbol == k.Y:
                self.redo()
            elif symbol == k.S:
                self.save()
            return
        if self.live:
            self.live_test.on_key_press(symbol, modifiers)
            return
        tools = {k.V: "select", k.S: "sphere", k.B: "bone", k.J: "joint"}
        if symbol in tools:
            self.set_tool(tools[symbol])
        elif symbol in self._keys:
            self._keys[symbol]()
        elif self.panel.on_key(symbol, shift) or self.camera.on_key(symbol):
            if symbol in (k.LEFT, k.RIGHT, k.UP, k.DOWN):
                self._held.add(symbol)

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

    def on_key_release(self, symbol: int, modifiers: int) -> None:
        self._held.discard(symbol)
        self.live_test.on_key_release(symbol, modifiers)

    def on_text(self, text: str) -> None:
        """Typing into the panel's entry (control characters are dropped)."""
        self.panel.type(text)


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
    return measure_frames(EditorView, doc, size=size, frames=frames, drag=drag, warmup=warmup)

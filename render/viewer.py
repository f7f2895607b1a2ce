"""The arcade viewer: plays a :class:`~render.scene.Source` in a window.

Run it through the ``creatures`` commands (``creatures watch ...``), or from Python::

    from render import watch
    watch(source)                      # opens a 1280x720 window, runs until closed

:class:`Viewer` is an ``arcade.View``. Physics runs at the fixed rate of the scene: each frame
adds ``delta_time * speed`` to an accumulator and calls ``source.step()`` once per ``scene.dt``
in it (at most ``max_lag`` seconds of steps per frame, the rest dropped, so a slow frame cannot
spiral); the frame's delta time never reaches physics. Drawing interpolates the spheres between
the last two steps. Everything is drawn in batches: the terrain, its markers, and all bones and
muscles as instanced segments (``render/_gl.py``), the spheres as one ``SpriteList``, the text as
pyglet batches. World units are metres (``Camera2D`` with ``zoom`` in pixels per metre); the HUD
and panels are drawn in screen pixels.

The scene's medium shows: water as a blue background darkening with depth (one gradient strip
fixed to world heights, :data:`WATER_LEVELS`) with motes drifting with the current; wind in the
air as streaks moving with it (still air has none); the HUD says which (``medium: air, wind 3
m/s``). A scene without ground draws no terrain; its metre marks run along the bottom of the
view. Wing bones are drawn as plates: a translucent band under the bone, as thick as the plate
is wide.

A crowd (``scene.crowd``: a whole generation at once, carykh's view) draws every creature as a
translucent ghost (:data:`CROWD_ALPHA`) in its own ``color`` (its species'), so a hundred and
fifty of them read as a cloud; only the :data:`CROWD_LABELS` best by fitness so far are labelled
(``#1 ...``), and the HUD ranks them: the best :data:`MAX_HUD_CREATURES` (failed ones last), then
how many more. While the brain or the sensor panel is open, the creature it shows (TAB) is drawn
opaque and labelled too, and only its contacts are marked. A crowd's spheres are drawn as discs
in the bones' batch (one draw call for the whole crowd, positions set in bulk), not as sprites.
Any creature with a ``color`` is drawn in it, in a race too.

:meth:`Viewer.set_source` plays another source in the same viewer (building a viewer is slow: a
game screen switches between a champion and a crowd with it). Keys are listed in :data:`KEYS`
(the help overlay, H, shows them, then the ``extra_keys`` the viewer was given).
"""

from __future__ import annotations

import colorsys
import math
from fractions import Fraction

from ._display import prefer_headless

prefer_headless()

import arcade  # noqa: E402
import numpy as np  # noqa: E402
import pyglet  # noqa: E402
from arcade.camera import Camera2D  # noqa: E402
from arcade.types import LBWH  # noqa: E402
from PIL import Image, ImageDraw  # noqa: E402

from ._gl import Segments, Triangles, VERTEX, rects  # noqa: E402
from .layout import place, shrink  # noqa: E402
from .overlay import MESSAGE_BACK, KeyHelp, MessageBox  # noqa: E402,F401 (MESSAGE_BACK: the recorder's palette)
from .text import FONT, MONO  # noqa: E402,F401 (FONT: the other screens take it from here)

__all__ = ["Viewer", "watch", "KEYS", "SPEEDS", "scene_colors"]

# look ---------------------------------------------------------------------------------------------
SKY = (206, 228, 243)
GROUND = (133, 163, 104)
GROUND_EDGE = (72, 104, 58)
TICK = (46, 66, 38)
TICK_LABEL = (34, 50, 28, 255)
BONE_RIGID = (52, 52, 62)
BONE_SOFT = (150, 150, 162)
MUSCLE_CONTRACTED = np.array([40, 95, 235], dtype=np.float64)
MUSCLE_REST = np.array([150, 150, 150], dtype=np.float64)
MUSCLE_EXTENDED = np.array([228, 52, 40], dtype=np.float64)
SPHERE = (240, 168, 56)              # a creature alone
GHOST_ALPHA = 150                    # racing creatures are translucent
CROWD_ALPHA = 90                     # a crowd's creatures more so: 150 overlapping read as a cloud
CROWD_BONE_ALPHA = 80                # and their bones
CONTACT = (255, 228, 0)
TEXT = (22, 26, 34, 255)
HUD_BACK = (255, 255, 255, 170)
PANEL_BACK = (24, 28, 36, 225)
PANEL_TEXT = (232, 236, 244, 255)
WATER_SHALLOW = (170, 214, 236)     # water WATER_LEVELS[0] metres above the surface level and up
WATER = (112, 170, 214)             # water at the surface level (y = 0)
WATER_DEEP = (34, 72, 122)          # water WATER_LEVELS[2] metres below it and deeper
MOTE = (236, 246, 255, 120)         # specks drifting with the water
STREAK = (255, 255, 255, 175)       # wind streaks in the air
WING = (246, 190, 110)              # a lone creature's wings (translucent)
WING_ALPHA = (205, 105)             # a wing's opacity along its bone and at its edges
EDGE_POSITIVE = (236, 110, 40, 200)
EDGE_NEGATIVE = (60, 130, 240, 200)

# behaviour ----------------------------------------------------------------------------------------
#: playback speeds the speed keys move between
SPEEDS = (0.25, 16.0)
#: metres from the bottom to the top of the view at the default zoom: a 1.5 m walker fills a quarter
DEFAULT_VIEW_HEIGHT = 6.0
ZOOM_RANGE = (2.0, 4000.0)           # pixels per metre
FOLLOW_RATE = 4.0                    # 1/s: the camera closes 1 - exp(-rate t) of its gap to the leader
PAN_SPEED = 0.8                      # view widths per second with an arrow key held
MAX_HUD_CREATURES = 12               # creature lines in the HUD before "... and N more"
CROWD_LABELS = 3                     # a crowd's creatures labelled in the view: the best so far
#: a crowd is ranked again every this many steps (half a second at 60 Hz) and when it ends: the
#: HUD's names then change all at once, so the table never shows a half-updated ranking
CROWD_RERANK_STEPS = 30
#: a fluid at least this dense (kg/m^3), or a medium named ``water...``, is drawn as water
LIQUID_DENSITY = 500.0
#: heights (m) of the water's three colours (WATER_SHALLOW, WATER, WATER_DEEP); between them the
#: colour is interpolated, beyond them it stays. The reference, y = 0, is the level every
#: built-in terrain starts at, where the creatures start (standing on it, or over it without
#: ground): the water darkens as they go deeper, whatever the camera does.
WATER_LEVELS = (4.0, 0.0, -12.0)
#: water motes and wind streaks per screen pixel of the view (so many whatever its size)
MOTES_PER_PIXEL = 1.0 / 11000.0
STREAKS_PER_PIXEL = 1.0 / 16000.0
#: a streak (or a mote's tail in a current) is as long as the flow goes in this many seconds,
#: within these pixels
STREAK_SECONDS = 0.3
STREAK_PIXELS = (14.0, 90.0)
MOTE_TAIL_PIXELS = (0.0, 24.0)
#: a wing's band: as thick on the screen as its plate is wide, at least this many pixels and at
#: most this fraction of its bone's length (a broader plate would be a blob, not a wing)
WING_MIN_PIXELS = 3.0
WING_MAX_LENGTH = 0.6

#: (keys, what they do): the help overlay, and the README's table
KEYS = (
    ("SPACE", "pause / resume"),
    (".", "one step (pauses)"),
    ("] / [", "faster / slower (1/4x to 16x)"),
    ("R", "restart"),
    ("F", "follow the leader / free camera"),
    ("arrows, drag", "pan (frees the camera)"),
    ("wheel, + / -", "zoom in / out"),
    ("0", "default zoom"),
    ("N", "brain panel"),
    ("S", "sensors: contacts, joint angles"),
    ("TAB", "next creature for the panels (SHIFT: back)"),
    ("H", "this help"),
    ("ESC / Q", "close the help / quit"),
)


def speed_text(speed: float) -> str:
    """``1/4x``, ``1x``, ``16x``."""
    f = Fraction(speed).limit_denominator(64)
    return f"{f.numerator}x" if f.denominator == 1 else f"{f.numerator}/{f.denominator}x"


def creature_colors(n: int) -> list[tuple[int, int, int, int]]:
    """One sphere colour per creature: the warm default alone, else evenly spaced hues, translucent."""
    if n == 1:
        return [SPHERE + (255,)]
    out = []
    for i in range(n):
        r, g, b = colorsys.hsv_to_rgb((0.08 + i / n) % 1.0, 0.72, 0.92)
        out.append((int(r * 255), int(g * 255), int(b * 255), GHOST_ALPHA))
    return out


def _rgb(color) -> tuple[int, int, int] | None:
    """A shape's ``color`` as three bytes, or None when it has none (or not three numbers)."""
    if color is None:
        return None
    try:
        rgb = [float(c) for c in color][:3]
    except (TypeError, ValueError):
        return None
    if len(rgb) < 3 or not all(math.isfinite(c) for c in rgb):
        return None
    return tuple(int(min(max(round(c), 0), 255)) for c in rgb)


def scene_colors(shapes, crowd: bool = False) -> list[tuple[int, int, int, int]]:
    """One sphere colour per creature: its shape's ``color`` when it has one, else
    :func:`creature_colors`' hue; opaque alone, translucent in a race (:data:`GHOST_ALPHA`),
    more so in a crowd (:data:`CROWD_ALPHA`)."""
    shapes = list(shapes)
    out = creature_colors(len(shapes)) if shapes else []
    alpha = CROWD_ALPHA if crowd else (GHOST_ALPHA if len(shapes) > 1 else 255)
    for i, s in enumerate(shapes):
        rgb = _rgb(getattr(s, "color", None)) or out[i][:3]
        out[i] = rgb + (alpha,)
    return out


def label_color(color) -> tuple[int, int, int, int]:
    """A darker, opaque version of a creature's colour, readable on the sky and on panels' white."""
    h, s, v = colorsys.rgb_to_hsv(*(c / 255.0 for c in color[:3]))
    r, g, b = colorsys.hsv_to_rgb(h, min(1.0, s + 0.2), 0.42)
    return int(r * 255), int(g * 255), int(b * 255), 255


def _lighter(color) -> tuple[int, int, int]:
    """A pale version of a creature's colour (its springy bones in a race)."""
    return tuple(int(c + (255 - c) * 0.45) for c in color[:3])


def muscle_colors(contraction: np.ndarray) -> np.ndarray:
    """Blue when contracted (-1), grey at rest (0), red when extended (+1); shape (M, 3) bytes."""
    c = np.clip(np.nan_to_num(np.asarray(contraction, dtype=np.float64)), -1.0, 1.0)[:, None]
    out = np.where(c < 0.0, MUSCLE_REST + (MUSCLE_CONTRACTED - MUSCLE_REST) * -c,
                   MUSCLE_REST + (MUSCLE_EXTENDED - MUSCLE_REST) * c)
    return out.astype(np.uint8)


def value_colors(values: np.ndarray) -> np.ndarray:
    """Brain node colours: blue for -1, light grey for 0, orange for +1; shape (N, 3) bytes."""
    v = np.clip(np.nan_to_num(np.asarray(values, dtype=np.float64)), -1.0, 1.0)[:, None]
    mid = np.array([205.0, 205.0, 210.0])
    neg = np.array([50.0, 120.0, 245.0])
    pos = np.array([245.0, 130.0, 30.0])
    return np.where(v < 0.0, mid + (neg - mid) * -v, mid + (pos - mid) * v).astype(np.uint8)


def _disc_texture(name: str) -> arcade.Texture:
    """A white disc with a darker rim (tinted by each sprite's colour), antialiased by drawing at
    4x and shrinking."""
    n, big = 128, 512
    im = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    d = ImageDraw.Draw(im)
    d.ellipse((0, 0, big - 1, big - 1), fill=(150, 150, 150, 255))
    rim = int(big * 0.09)
    d.ellipse((rim, rim, big - 1 - rim, big - 1 - rim), fill=(255, 255, 255, 255))
    im = im.resize((n, n), Image.Resampling.LANCZOS)
    return arcade.Texture(im, hash=f"creatures-{name}")


def _mask(values, n: int) -> np.ndarray:
    """A shape's part mask (``sphere_on``, ``bone_on``, ``joint_on``) as ``n`` booleans; None is
    every part on."""
    if values is None:
        return np.ones(n, bool)
    return np.asarray(values, bool).reshape(n)


class TextPool:
    """Text objects of one style in one batch, created as needed and reused; the ones past the
    count in use are hidden."""

    def __init__(self, batch, **style):
        self.batch = batch
        self.style = style
        self.items: list[arcade.Text] = []
        self.used = 0

    def get(self, i: int) -> arcade.Text:
        while len(self.items) <= i:
            self.items.append(arcade.Text("", 0, 0, batch=self.batch, **self.style))
        t = self.items[i]
        if not t.visible:
            t.visible = True
        self.used = max(self.used, i + 1)
        return t

    def finish(self, n: int) -> None:
        """Hide every text from ``n`` on."""
        for t in self.items[n:self.used]:
            if t.visible:
                t.visible = False
        self.used = n


class Viewer(arcade.View):
    """Plays a source: steps it at its fixed rate, draws the scene, the HUD and the panels.

    Parameters
    ----------
    source : Source
        What to play (``render.scene.Source``).
    size : (int, int), optional
        Drawing size in pixels; defaults to the window's (and follows it when it is resized).
    speed : float
        Playback speed (1 is real time); the speed keys move it by factors of 2 within
        :data:`SPEEDS`.
    follow : bool
        The camera follows ``frame.leader``; otherwise it stays where it is put.
    zoom : float, optional
        Pixels per metre; by default :data:`DEFAULT_VIEW_HEIGHT` metres fill the height.
    interpolate : bool
        Draw the spheres between the last two steps (smooth slow motion).
    show_help, show_brain, show_sensors : bool
        Overlays shown at the start (H, N, S toggle them).
    poll_interval : float or None
        Seconds of wall time between calls to ``source.poll()``; None never polls.
    max_lag : float or None
        At most this many seconds of playback (times the speed) are stepped per update; the
        excess is dropped. None: no limit (the recorder's offscreen frames).
    close_on_quit : bool
        ESC / Q close the window (otherwise they only set :attr:`quit_requested`).
    hint : bool
        Show "H: help" in the bottom left corner.
    camera : (float, float), optional
        Where the view is centred at the start (m); by default on the leader.
    text_budget : int or None
        At most this many HUD numbers are laid out again per frame (they take turns, so each
        is refreshed several times a second); None: all, every frame (the recorder). A crowd's
        names change only when it is ranked again (:data:`CROWD_RERANK_STEPS`), all at once.
    extra_keys : sequence of (str, str)
        ``(keys, what they do)`` listed in the help overlay after :data:`KEYS` (a game screen's
        own keys); the box grows to fit them.
    window : arcade.Window, optional
        Defaults to the current window.

    Attributes
    ----------
    paused, speed, follow, show_help, show_brain, show_sensors, selected, zoom
        The state the keys change (``selected`` is the creature the panels show).
    camera_position : (float, float)
        World point (m) at the centre of the view.
    frame : Frame
        The source's frame being shown.
    hud_lines : list of str
        The HUD's text, line by line, as drawn.
    hud_fitness : list of (str, str)
        Per creature, the fitness so far and the recorded fitness as the HUD writes them (``-``
        for none; when no creature has one, a design's preview say, the HUD has no such column).
    ranking : ndarray of int
        The creatures in the HUD's order: in a crowd best first by fitness so far (failed ones,
        then ones with no fitness, last), otherwise as the scene lists them.
    crowd : bool
        Whether the scene is a crowd (``scene.crowd``).
    keys : tuple of (str, str)
        What the help overlay lists: :data:`KEYS`, then ``extra_keys``.
    status : str
        ``PAUSED``, ``DONE`` or empty.
    ground : bool
        Whether the scene has ground (its terrain is drawn).
    medium : str
        The scene's medium's name (``none``, ``water``, ``air, wind 3 m/s``...).
    fluid : str or None
        How the medium is drawn: ``water`` (a liquid), ``air`` (a lighter fluid) or None.
    flow : (float, float)
        The fluid's velocity (m/s) the motes and streaks drift with.
    background : (int, int, int)
        The colour the view is cleared with (the sky, or the shallow water's).
    help : KeyHelp
        The keys' help (``render.overlay``): its ``texts`` and where it was last put (``rect``).
    reserved : list of (float, float, float, float)
        Screen boxes (left, bottom, width, height) that whoever shows this viewer draws over it
        (a game screen's chart and buttons): the status, panels, help and messages keep clear.
    overlays : dict of str -> rectangle or None
        Where the last frame drew the ``hud``, the ``status``, the ``brain`` panel, the
        ``help`` and the source's ``message`` (None: not drawn): no two intersect, unless the
        window is too small for them side by side (``render.layout``).
    """

    def __init__(self, source, *, size=None, speed: float = 1.0, follow: bool = True, zoom=None,
                 interpolate: bool = True, show_help: bool = False, show_brain: bool = False,
                 show_sensors: bool = False, poll_interval=0.5, max_lag=0.1,
                 close_on_quit: bool = True, hint: bool = True, camera=None, text_budget=4,
                 extra_keys=(), window=None):
        super().__init__(window)
        if not (isinstance(speed, (int, float)) and 0.0 < speed <= 1024.0):
            raise ValueError(f"speed must be a positive number, not {speed!r}")
        try:
            extra = tuple((str(k), str(w)) for k, w in extra_keys)
        except (TypeError, ValueError):
            raise ValueError(f"extra_keys must be (keys, what they do) pairs, not {extra_keys!r}") from None
        self.keys = tuple(KEYS) + extra
        self.source = source
        self.draw_size = tuple(int(v) for v in (size or self.window.get_framebuffer_size()))
        self._fixed_size = size is not None
        self.speed = float(speed)
        self.follow = bool(follow)
        self.interpolate = bool(interpolate)
        self.show_help = bool(show_help)
        self.show_brain = bool(show_brain)
        self.show_sensors = bool(show_sensors)
        self.poll_interval = poll_interval
        self.max_lag = max_lag
        self.close_on_quit = close_on_quit
        self.hint = bool(hint)
        self.text_budget = text_budget
        self._text_turn = 0
        self.paused = False
        self.quit_requested = False
        self.selected = 0
        self._zoom_set = zoom
        self.zoom = float(zoom) if zoom else self.default_zoom()
        self.camera_position = (0.0, 0.0)
        self._camera_start = None if camera is None else (float(camera[0]), float(camera[1]))
        self.hud_lines: list[str] = []
        self.hud_fitness: list[tuple[str, str]] = []
        self.ranking = np.zeros(0, np.int64)
        self.crowd = False
        self._hud_recorded = True  # whether the HUD has a "recorded" column
        self._name_width = 0       # a crowd's HUD: the widest name so far (the columns stay put)
        self._ranked_at = None     # the step a crowd was last ranked at
        self._label_owner: list[int] = []      # the creature each label in use is above
        self._label_strings: list[str] = []    # a crowd's labels' texts, for the leaders now
        self._acc = 0.0            # steps owed (fractional)
        self._poll_clock = 0.0
        self._held: set[int] = set()
        self._scene_version = 0
        self._brain_key = None

        ctx = self.window.ctx
        self.ctx = ctx
        self._world_camera = Camera2D(viewport=LBWH(0, 0, *self.draw_size), window=self.window)
        self._screen_camera = Camera2D(viewport=LBWH(0, 0, *self.draw_size), window=self.window)
        self._disc = _disc_texture("disc")
        self._ground = Triangles(ctx, strip=True)
        self._backdrop = Triangles(ctx, strip=True)   # the water's depth shading
        self._wings = Triangles(ctx)
        self._flow_marks = Segments(ctx)              # water motes, wind streaks
        self._ground_edge = Segments(ctx)
        self._ticks = Segments(ctx)
        self._bones = Segments(ctx)
        self._edges = Segments(ctx)
        self._boxes = {k: Triangles(ctx) for k in ("hud", "panel")}
        self._brain_nodes: list = []
        # text, by layer
        self._world_batch = pyglet.graphics.Batch()
        self._hud_batch = pyglet.graphics.Batch()
        self._panel_batch = pyglet.graphics.Batch()
        self._tick_labels = TextPool(self._world_batch, color=TICK_LABEL, font_size=10,
                                      font_name=FONT, anchor_x="center", anchor_y="top")
        self._angle_labels = TextPool(self._world_batch, color=TEXT, font_size=9, font_name=FONT,
                                       anchor_x="left", anchor_y="bottom")
        # the creatures' labels: reused by each scene (a new source makes no new texts)
        self._label_pool = TextPool(self._world_batch, color=TEXT, font_size=10, font_name=FONT,
                                     anchor_x="center", anchor_y="bottom")
        self._labels: list[arcade.Text] = []
        hud = dict(color=TEXT, font_size=11, font_name=FONT, anchor_y="top", batch=self._hud_batch)
        self._hud_title_text = arcade.Text("", 0, 0, bold=True, **{**hud, "font_size": 13})
        self._hud_header_text = arcade.Text("", 0, 0, **{**hud, "font_size": 10})
        self._hud_medium_text = arcade.Text("", 0, 0, **{**hud, "font_size": 10})
        self._hud_more_text = arcade.Text("", 0, 0, **hud)
        self._hud_columns = [arcade.Text(name, 0, 0, anchor_x="right", **{**hud, "font_size": 9})
                             for name in ("now", "recorded")]
        self._hud_time_text = arcade.Text("", 0, 0, **hud)
        hud.pop("batch")
        self._hud_names = TextPool(self._hud_batch, **hud)
        self._hud_nows = TextPool(self._hud_batch, anchor_x="right", **hud)
        self._hud_recs = TextPool(self._hud_batch, anchor_x="right", **hud)
        self._status_text = arcade.Text("", 0, 0, (190, 30, 30, 255), 22, font_name=FONT, bold=True,
                                        anchor_x="center", anchor_y="top", batch=self._hud_batch)
        self._hint_text = arcade.Text("H: help", 8, 6, (22, 26, 34, 200), 9, font_name=FONT,
                                      batch=self._hud_batch)
        self._panel_texts = TextPool(self._panel_batch, color=PANEL_TEXT, font_size=8,
                                      font_name=FONT, anchor_y="center")
        self._panel_title = arcade.Text("", 0, 0, PANEL_TEXT, 11, font_name=FONT, bold=True,
                                        anchor_y="top", batch=self._panel_batch)
        self.help = KeyHelp(ctx, self.keys)
        self._message_box = MessageBox(ctx)
        self.reserved = []
        self.overlays = {}
        self.load_scene()

    # scene -------------------------------------------------------------------------------------
    def load_scene(self) -> None:
        """(Re)read ``source.scene`` and ``source.frame()``: rebuild sprites, labels, terrain."""
        scene = self.source.scene
        if not scene.dt > 0.0:
            raise ValueError(f"the scene's dt must be positive, not {scene.dt!r}")
        self.scene = scene
        self._scene_version += 1
        self._brain_key = None
        shapes = list(scene.creatures)
        n = len(shapes)
        self.selected = min(self.selected, max(n - 1, 0))
        self.crowd = crowd = bool(getattr(scene, "crowd", False))
        self.colors = scene_colors(shapes, crowd)
        ghost = n > 1 or crowd       # each creature's skeleton in its own colour
        self._name_width = 0
        self._ranked_at = None
        # topology of all creatures, spheres numbered one after the other
        offsets = np.cumsum([0] + [len(s.radius) for s in shapes])
        self._sphere_offset = offsets
        self._radius = (np.concatenate([np.asarray(s.radius, np.float64) for s in shapes]) if n
                        else np.zeros(0))
        a, b, kind, muscle_index, owner, keep = [], [], [], [], [], []
        sphere_on, self._joint_on = [], []
        wing_a, wing_b, wing_width, wing_owner = [], [], [], []
        m0 = 0
        for i, s in enumerate(shapes):
            E = len(s.bone_a)
            # the parts a creature has (an evolved body may have switched some off)
            on_p = _mask(s.sphere_on, len(s.radius))
            bone_a, bone_b = np.asarray(s.bone_a, np.int64), np.asarray(s.bone_b, np.int64)
            on_e = _mask(s.bone_on, E) & on_p[bone_a] & on_p[bone_b]
            js = np.asarray(s.joint_sphere, np.int64).reshape(-1)
            sphere_on.append(on_p)
            # wings (of the bones it has): drawn as translucent plates under the bones
            wing = getattr(s, "wing", None)
            if wing is not None and E:
                wing = np.asarray(wing, bool).reshape(E) & on_e
                width = getattr(s, "bone_width", None)
                width = (np.full(E, np.nan) if width is None
                         else np.asarray(width, np.float64).reshape(E))
                wing_a.append(bone_a[wing] + offsets[i])
                wing_b.append(bone_b[wing] + offsets[i])
                wing_width.append(width[wing])
                wing_owner.append(np.full(int(wing.sum()), i))
            self._joint_on.append(_mask(s.joint_on, js.size) & on_p[js])
            k = np.where(np.asarray(s.rigid, bool).reshape(E), 0, 1) if E else np.zeros(0, int)
            mi = np.full(E, -1)
            mb = np.asarray(s.muscle_bone, np.int64).reshape(-1)
            k[mb] = 2
            mi[mb] = m0 + np.arange(mb.size)
            m0 += mb.size
            # rigid clusters: closed outlines (of the members it has), drawn as rigid bones
            ca, cb = [bone_a], [bone_b]
            for members in s.clusters:
                m = np.asarray(members, np.int64).reshape(-1)
                m = m[on_p[m]]
                if m.size >= 2:
                    ca.append(m if m.size > 2 else m[:1])
                    cb.append(np.roll(m, -1) if m.size > 2 else m[1:])
            C = sum(len(x) for x in ca) - E
            a.append(np.concatenate(ca) + offsets[i])
            b.append(np.concatenate(cb) + offsets[i])
            kind.append(np.concatenate([k, np.zeros(C, np.int64)]))
            muscle_index.append(np.concatenate([mi, np.full(C, -1)]))
            owner.append(np.full(E + C, i))
            keep.append(np.concatenate([on_e, np.ones(C, bool)]))
        cat = (lambda xs, dt: np.concatenate(xs).astype(dt) if xs else np.zeros(0, dt))
        keep = cat(keep, bool)      # bones and muscles switched off are not drawn at all
        self._sphere_on = cat(sphere_on, bool)
        self._bone_a, self._bone_b = cat(a, np.int64)[keep], cat(b, np.int64)[keep]
        self._bone_kind, self._muscle_index = cat(kind, np.int64)[keep], cat(muscle_index, np.int64)[keep]
        owner = cat(owner, np.int64)[keep]
        self._bone_owner = owner
        alpha = np.array([CROWD_BONE_ALPHA if crowd else c[3] for c in self.colors], dtype=np.uint8)
        if ghost:   # a race or a crowd: each creature's skeleton in its own colour
            base = np.array([[label_color(c)[:3], _lighter(c), MUSCLE_REST] for c in self.colors], np.uint8)
        else:
            base = np.array([[BONE_RIGID, BONE_SOFT, MUSCLE_REST]], np.uint8)
        self._bone_rgba = np.zeros((self._bone_a.size, 4), np.uint8)
        self._bone_rgba[:, :3] = base[owner if ghost else 0, self._bone_kind]
        self._bone_rgba[:, 3] = alpha[owner] if owner.size else 0
        self._is_muscle = self._bone_kind == 2
        self._muscle_bones = np.flatnonzero(self._is_muscle)
        self._wing_a, self._wing_b = cat(wing_a, np.int64), cat(wing_b, np.int64)
        self._wing_width = cat(wing_width, np.float64)
        wing_rgb = (np.array([c[:3] for c in self.colors], np.uint8) if ghost
                    else np.array([WING], np.uint8))
        self._wing_rgb = (wing_rgb[cat(wing_owner, np.int64)] if ghost
                          else np.repeat(wing_rgb, self._wing_a.size, 0))
        self._wing_fade = CROWD_ALPHA / 255.0 if crowd else 1.0   # a crowd's wings are ghosts too
        self._load_medium(scene)
        # a crowd's spheres: discs (zero-length segments) drawn with the bones, in one call and
        # set in bulk (a sprite each costs a Python call per sphere and frame: ~6 ms for 1200)
        counts = np.diff(offsets).astype(np.int64)
        self._sphere_rgba = np.zeros((self._radius.size, 4), np.uint8)
        if crowd and n:
            self._sphere_rgba[:] = np.repeat(np.array(self.colors, np.uint8), counts, axis=0)
        # spheres otherwise: one sprite each, and behind each a larger yellow disc shown when it
        # touches the ground with the sensors on; all in one SpriteList, so one draw call (each
        # SpriteList draw costs ~1 ms on llvmpipe whatever its size), halos first so spheres
        # cover them
        self._sprites, self._rings = [], []
        for i, s in enumerate([] if crowd else shapes):
            for r in np.asarray(s.radius, np.float64):
                r = max(float(r), 1e-6)     # a sphere switched off may have no radius (not drawn)
                sp = arcade.Sprite(self._disc)
                sp.width = sp.height = 2.0 * r
                sp.color = self.colors[i]
                self._sprites.append(sp)
                ring = arcade.Sprite(self._disc)
                ring.width = ring.height = 3.0 * r
                ring.color = CONTACT + (255,)
                ring.visible = False
                self._rings.append(ring)
        self._sphere_list = arcade.SpriteList(capacity=max(2 * len(self._sprites), 1))
        self._sphere_list.extend(self._rings)
        self._sphere_list.extend(self._sprites)
        # labels: one per creature, or in a crowd the leaders' (set as they change)
        self._label_owner, self._label_strings = [], []
        if not crowd:
            for i, s in enumerate(shapes):
                self._set_label(i, i, s.label or f"creature {i}")
            self._label_owner = list(range(n))
        self._label_pool.finish(len(self._label_owner))
        self._labels = self._label_pool.items[:len(self._label_owner)]
        self._build_terrain(np.asarray(scene.terrain_x, np.float64), np.asarray(scene.terrain_y, np.float64))
        self.ground = bool(getattr(scene, "ground", True))
        self._acc = 0.0
        self._prev_pos = None
        self._set_frame(self.source.frame())
        first = self._scene_version == 1
        if first and self._camera_start is not None:
            self.camera_position = self._camera_start
        else:
            self.snap_camera(force=first)        # a reloaded scene keeps a free camera where it is

    def _set_label(self, k: int, i: int, text: str) -> arcade.Text:
        """Label ``k`` of the pool shows ``text`` in creature ``i``'s colour."""
        t = self._label_pool.get(k)
        t.text = text
        color = label_color(self.colors[i])
        if tuple(t.color) != color:
            t.color = color
        return t

    def set_source(self, source) -> None:
        """Play ``source`` from now on, in this viewer: its scene is loaded (:meth:`load_scene`),
        the first creature selected, and it plays (not paused). The camera keeps its mode (it
        jumps to the new leader when following, stays where it is when free), and the speed,
        zoom and panels stay as they are. Texts, sprites' and segments' buffers are reused or
        released, so switching back and forth costs no memory."""
        self.source = source
        self.paused = False
        self.selected = 0
        self._poll_clock = 0.0
        self.load_scene()

    def _load_medium(self, scene) -> None:
        """What the scene's medium looks like: :attr:`fluid` is ``water`` (a liquid), ``air`` (a
        lighter fluid) or None; :attr:`background` the colour the view is cleared with."""
        medium = str(getattr(scene, "medium", "none") or "none")
        density = float(getattr(scene, "fluid_density", 0.0) or 0.0)
        try:
            fx, fy = (float(v) for v in getattr(scene, "flow", (0.0, 0.0)))
        except (TypeError, ValueError):
            fx = fy = 0.0
        if not (math.isfinite(fx) and math.isfinite(fy)):
            fx = fy = 0.0
        self.flow = (fx, fy)
        self.medium = medium
        if medium.lower().startswith("water") or density >= LIQUID_DENSITY:
            self.fluid = "water"
        elif density > 0.0 or medium.lower() not in ("none", ""):
            self.fluid = "air"
        else:
            self.fluid = None
        self.background = WATER_SHALLOW if self.fluid == "water" else SKY
        # where the motes and streaks sit in their tile of the view: fixed, so each frame moves
        # them only by the flow (and the camera)
        rng = np.random.default_rng(1234)
        self._mark_uv = rng.random((400, 2))

    def _build_terrain(self, xs: np.ndarray, ys: np.ndarray) -> None:
        """The ground below the polyline as a triangle strip, its edge as segments, both extended
        flat far beyond the ends (the engine's ground is flat there too)."""
        if xs.size == 0:
            xs, ys = np.array([0.0]), np.array([0.0])
        far = 1e5
        x = np.concatenate([[xs[0] - far], xs, [xs[-1] + far]])
        y = np.concatenate([[ys[0]], ys, [ys[-1]]])
        self._terrain_x, self._terrain_y = x, y
        bottom = y.min() - far
        v = np.zeros(2 * x.size, dtype=VERTEX)
        v["pos"][0::2, 0] = x
        v["pos"][0::2, 1] = y
        v["pos"][1::2, 0] = x
        v["pos"][1::2, 1] = bottom
        v["color"] = GROUND + (255,)
        self._ground.set(v)
        seg = self._ground_edge.reserve(x.size - 1)
        seg["seg"] = np.stack([x[:-1], y[:-1], x[1:], y[1:]], axis=1)
        seg["color"] = GROUND_EDGE + (255,)
        seg["width"] = 3.0
        self._ground_edge.upload()

    # frames and stepping -----------------------------------------------------------------------
    def _positions(self, frame) -> np.ndarray:
        if not frame.creatures:
            return np.zeros((0, 2))
        return np.concatenate([np.asarray(c.pos, np.float64).reshape(-1, 2) for c in frame.creatures])

    def _set_frame(self, frame) -> None:
        self.frame = frame
        self._pos = self._positions(frame)
        self._update_hud()

    def advance(self, seconds: float, cap: int | None = None) -> int:
        """Add ``seconds`` of playback (already times the speed) and take the whole steps of
        ``scene.dt`` it makes, at most ``cap`` (the excess is dropped). Returns the steps taken."""
        self._acc += seconds / self.scene.dt
        n = int(math.floor(self._acc + 1e-9))
        if n <= 0:
            return 0
        self._acc = max(self._acc - n, 0.0)
        if cap is not None:
            n = min(n, cap)
        if self.frame.done:
            self._acc = 0.0
            return 0
        prev = self._pos
        for k in range(n):
            if self.interpolate and n > 1 and k == n - 1:
                prev = self._positions(self.source.frame())
            self.source.step()
        self._prev_pos = prev
        self._set_frame(self.source.frame())
        if self.frame.done:
            self._acc = 0.0
        return n

    def step_once(self) -> None:
        """Pause, and take exactly one step."""
        self.paused = True
        self._acc = 0.0
        if not self.frame.done:
            self.source.step()
            self._prev_pos = None
            self._set_frame(self.source.frame())

    def restart(self) -> None:
        """Back to the start of the episode (``source.reset()``)."""
        self.source.reset()
        self._acc = 0.0
        self._prev_pos = None
        self._set_frame(self.source.frame())
        if self.follow:
            self.snap_camera()

    def set_speed(self, speed: float) -> None:
        self.speed = float(min(SPEEDS[1], max(SPEEDS[0], speed)))

    def on_update(self, delta_time: float) -> None:
        if self.poll_interval is not None:
            self._poll_clock += delta_time
            if self._poll_clock >= self.poll_interval:
                self._poll_clock = 0.0
                if self.source.poll():
                    self.load_scene()
        if not self.paused and not self.frame.done:
            cap = None
            if self.max_lag is not None:
                cap = max(1, math.ceil(self.max_lag * self.speed / self.scene.dt))
            self.advance(delta_time * self.speed, cap)
        self._pan(delta_time)
        self._update_camera(delta_time)

    # camera ------------------------------------------------------------------------------------
    def default_zoom(self) -> float:
        return self.draw_size[1] / DEFAULT_VIEW_HEIGHT

    def _drawn_positions(self) -> np.ndarray:
        if (self.interpolate and not self.paused and not self.frame.done and self._prev_pos is not None
                and self._prev_pos.shape == self._pos.shape):
            alpha = min(max(self._acc, 0.0), 1.0)
            return self._prev_pos + (self._pos - self._prev_pos) * alpha
        return self._pos

    def _spheres_on(self, i: int, n: int) -> np.ndarray:
        """Which of creature ``i``'s ``n`` spheres it has (all, if its frame and its shape do not
        agree on how many)."""
        on = self._sphere_on[self._sphere_offset[i]:self._sphere_offset[i + 1]]
        return on if on.size == n else np.ones(n, bool)

    def _follow_target(self) -> tuple[float, float] | None:
        n = len(self.scene.creatures)
        if n == 0 or self._pos.shape[0] == 0:
            return None
        i = min(max(int(self.frame.leader), 0), n - 1)
        p = self._drawn_positions()[self._sphere_offset[i]:self._sphere_offset[i + 1]]
        p = p[self._spheres_on(i, len(p))]
        if p.shape[0] == 0 or not np.all(np.isfinite(p)):
            return None
        cx = 0.5 * (p[:, 0].min() + p[:, 0].max())
        cy = 0.5 * (p[:, 1].min() + p[:, 1].max())
        return cx, cy + 0.1 * self.draw_size[1] / self.zoom   # the creature a little below the middle

    def snap_camera(self, force: bool = False) -> None:
        """Put the camera on the leader at once (when following, or with ``force``)."""
        target = self._follow_target()
        if (self.follow or force) and target is not None:
            self.camera_position = target

    def _update_camera(self, delta_time: float) -> None:
        if not self.follow:
            return
        target = self._follow_target()
        if target is None:
            return
        k = 1.0 - math.exp(-FOLLOW_RATE * max(delta_time, 0.0))
        x, y = self.camera_position
        self.camera_position = (x + (target[0] - x) * k, y + (target[1] - y) * k)

    def _pan(self, delta_time: float) -> None:
        if not self._held:
            return
        k = arcade.key
        step = PAN_SPEED * self.draw_size[0] / self.zoom * delta_time
        dx = (k.RIGHT in self._held) - (k.LEFT in self._held)
        dy = (k.UP in self._held) - (k.DOWN in self._held)
        x, y = self.camera_position
        self.camera_position = (x + dx * step, y + dy * step)

    def zoom_by(self, factor: float, about=None) -> None:
        """Zoom by ``factor``, keeping the world point under screen point ``about`` in place."""
        old = self.zoom
        self.zoom = float(min(ZOOM_RANGE[1], max(ZOOM_RANGE[0], old * factor)))
        if about is not None and not self.follow:
            wx, wy = self.screen_to_world(*about, zoom=old)
            w, h = self.draw_size
            self.camera_position = (wx - (about[0] - w / 2) / self.zoom, wy - (about[1] - h / 2) / self.zoom)

    def world_to_screen(self, x, y):
        """Screen pixel (from the bottom left) of world point ``(x, y)`` (m); arrays work too."""
        cx, cy = self.camera_position
        w, h = self.draw_size
        return (np.asarray(x) - cx) * self.zoom + w / 2, (np.asarray(y) - cy) * self.zoom + h / 2

    def screen_to_world(self, sx, sy, zoom=None):
        z = zoom or self.zoom
        cx, cy = self.camera_position
        w, h = self.draw_size
        return (sx - w / 2) / z + cx, (sy - h / 2) / z + cy

    def resize(self, size) -> None:
        """Draw at a new size (pixels); the zoom keeps the same metres in the height unless set."""
        old_default = self.default_zoom()
        self.draw_size = (int(size[0]), int(size[1]))
        if self._zoom_set is None and abs(self.zoom - old_default) < 1e-9:
            self.zoom = self.default_zoom()
        for cam in (self._world_camera, self._screen_camera):
            cam.viewport = LBWH(0, 0, *self.draw_size)
            zoom, cam.zoom = cam.zoom, 1.0      # arcade scales a projection by the zoom in force
            cam.projection = LBWH(-self.draw_size[0] / 2, -self.draw_size[1] / 2, *self.draw_size)
            cam.zoom = zoom

    def on_resize(self, width: int, height: int) -> None:
        if not self._fixed_size:
            self.resize(self.window.get_framebuffer_size())

    # input -------------------------------------------------------------------------------------
    def on_key_press(self, symbol: int, modifiers: int) -> None:
        k = arcade.key
        if symbol == k.SPACE:
            self.paused = not self.paused
            self._acc = 0.0
            self._prev_pos = None
        elif symbol == k.PERIOD:
            self.step_once()
        elif symbol == k.BRACKETRIGHT:
            self.set_speed(self.speed * 2.0)
        elif symbol == k.BRACKETLEFT:
            self.set_speed(self.speed / 2.0)
        elif symbol == k.R:
            self.restart()
        elif symbol == k.F:
            self.follow = not self.follow
        elif symbol in (k.EQUAL, k.PLUS, k.NUM_ADD):
            self.zoom_by(1.25)
        elif symbol in (k.MINUS, k.NUM_SUBTRACT):
            self.zoom_by(0.8)
        elif symbol in (k.KEY_0, k.NUM_0):
            self.zoom = self.default_zoom()
        elif symbol == k.N:
            self.show_brain = not self.show_brain
        elif symbol == k.S:
            self.show_sensors = not self.show_sensors
        elif symbol == k.TAB:
            n = max(len(self.scene.creatures), 1)
            self.selected = (self.selected + (-1 if modifiers & k.MOD_SHIFT else 1)) % n
        elif symbol == k.H:
            self.show_help = not self.show_help
        elif symbol == k.ESCAPE and self.show_help:
            self.show_help = False
        elif symbol in (k.ESCAPE, k.Q):
            self.quit()
        elif symbol in (k.LEFT, k.RIGHT, k.UP, k.DOWN):
            self.follow = False
            self._held.add(symbol)

    def on_key_release(self, symbol: int, modifiers: int) -> None:
        self._held.discard(symbol)

    def on_mouse_drag(self, x, y, dx, dy, buttons, modifiers) -> None:
        self.follow = False
        cx, cy = self.camera_position
        self.camera_position = (cx - dx / self.zoom, cy - dy / self.zoom)

    def on_mouse_scroll(self, x, y, scroll_x, scroll_y) -> None:
        self.zoom_by(1.15 ** scroll_y, about=(x, y))

    def quit(self) -> None:
        self.quit_requested = True
        if self.close_on_quit:
            self.window.close()

    # HUD text ----------------------------------------------------------------------------------
    def _update_hud(self) -> None:
        """The HUD's strings for the current frame (drawn by :meth:`draw_scene`)."""
        fmt = (lambda v: "-" if v is None else f"{v:.4f}")
        scene, frame = self.scene, self.frame
        self._hud_title = scene.title or "creatures"
        self._hud_header = f"fitness: {scene.fitness_label}"
        lines = [self._hud_title, self._hud_header]
        medium = self.medium if self.medium.lower() not in ("none", "") else ""
        where = [f"medium: {medium}"] if medium else []
        if not self.ground:
            where.append("no ground")
        self._hud_medium = ", ".join(where)
        if self._hud_medium:
            lines.append(self._hud_medium)
        n = min(len(scene.creatures), len(frame.creatures))
        self.hud_fitness = [(fmt(cf.fitness), fmt(cf.recorded)) for cf in frame.creatures[:n]]
        # a design's preview has nothing recorded: no "recorded" column then
        self._hud_recorded = any(cf.recorded is not None for cf in frame.creatures)
        if not self.crowd:
            self.ranking = np.arange(n)
        elif (self._ranked_at is None or self.ranking.size != n or frame.done or frame.step < self._ranked_at
              or frame.step - self._ranked_at >= CROWD_RERANK_STEPS):
            self.ranking = self._rank(frame.creatures[:n])
            self._ranked_at = frame.step
        rows = []
        rows_max = self._hud_room(n, bool(self._hud_medium))
        for r, i in enumerate(self.ranking[:rows_max].tolist()):
            shape, cf = scene.creatures[i], frame.creatures[i]
            fit, rec = self.hud_fitness[i]
            label = shape.label or f"creature {i}"
            if self.crowd:      # one generation: its number is in the title, the rank here
                label = f"{r + 1}. {label}"
            else:
                gen = shape.info.get("generation") if isinstance(shape.info, dict) else None
                if gen is not None and f"gen {gen}" not in label:
                    label += f"  gen {gen}"
            if i == self.selected and len(scene.creatures) > 1:
                label = "> " + label
            if cf.failed:
                label += "  FAILED"
            rows.append((label, fit, rec, i))
            lines.append(f"{label}   {fit} / {rec}" if self._hud_recorded else f"{label}   {fit}")
        if self.crowd:
            self._crowd_labels(frame.creatures[:n])
        more = len(scene.creatures) - rows_max
        self._hud_more = f"... and {more} more" if more > 0 else ""
        if self._hud_more:
            lines.append(self._hud_more)
        t = f"t {frame.time:.2f}" + (f" / {scene.duration:.2f} s" if scene.duration else " s")
        self._hud_time = f"{t}   speed {speed_text(self.speed)}   step {frame.step}"
        lines.append(self._hud_time)
        self._hud_rows = rows
        self.hud_lines = lines

    def _hud_room(self, n: int, medium: bool) -> int:
        """Creature rows in the HUD: :data:`MAX_HUD_CREATURES` at most, fewer (at least one) when
        a box of :attr:`reserved` under it leaves less room (a game screen's chart)."""
        h = self.draw_size[1]
        right = (self.overlays.get("hud") or (0, 0, 320, 0))[2] + 4
        floor = max([b + bh for l, b, w, bh in self.reserved if l < right and b + bh < h - 60] + [0])
        fixed = 8 + 19 + 14 + (14 if medium else 0) + 14 + 15 + 8 + (15 if n > 1 else 0)
        return int(max(1, min(MAX_HUD_CREATURES, (h - floor - 8 - fixed) // 15)))

    @staticmethod
    def _rank(creatures) -> np.ndarray:
        """Creature indices best first: by fitness so far, the failed ones last (then the ones
        with no fitness), ties in the scene's order."""
        fit = np.array([np.nan if cf.fitness is None else cf.fitness for cf in creatures], np.float64)
        fit = np.where(np.isfinite(fit), fit, -np.inf)
        failed = np.array([bool(cf.failed) for cf in creatures], bool)
        return np.lexsort((np.arange(fit.size), -fit, failed))

    def _crowd_labels(self, creatures) -> None:
        """Who a crowd's labels are above: the :data:`CROWD_LABELS` best (not failed), and the
        creature the panels show while one is open (``> #57 ...``)."""
        top = [i for i in self.ranking[:CROWD_LABELS].tolist() if not creatures[i].failed]
        owners = [(r, i) for r, i in enumerate(top)]
        inspected = self._inspected()
        if inspected is not None and inspected not in top:
            owners.append((int(np.flatnonzero(self.ranking == inspected)[0]), inspected))
        shapes = self.scene.creatures
        self._label_owner = [i for _, i in owners]
        self._label_strings = [("> " if i == inspected else "") + f"#{r + 1} {shapes[i].label or f'creature {i}'}"
                               for r, i in owners]

    @property
    def status(self) -> str:
        """``DONE``, ``PAUSED`` or empty."""
        return "DONE" if self.frame.done else ("PAUSED" if self.paused else "")

    # drawing -----------------------------------------------------------------------------------
    def on_draw(self) -> None:
        self.window.ctx.screen.use()
        self.clear(color=self.background)
        self.draw_scene()

    def draw_scene(self) -> None:
        """Draw everything into the framebuffer in use (the window's, or the recorder's)."""
        self._update_hud()
        w, h = self.draw_size
        pixel = 1.0 / self.zoom
        pos = self._drawn_positions()
        # world ----------------------------------------------------------------------------------
        cam = self._world_camera
        cam.position = self.camera_position
        cam.zoom = self.zoom
        cam.use()
        if self.fluid == "water":
            self._draw_water()
        if self.fluid is not None:
            self._draw_flow_marks()
        if self.ground:
            self._ground.draw(blend=False)          # opaque: faster without blending
            self._ground_edge.draw(pixel)
        self._draw_ticks()
        self._draw_wings(pos)
        self._draw_creatures(pos)
        # screen ---------------------------------------------------------------------------------
        scr = self._screen_camera
        scr.position = (w / 2, h / 2)
        scr.zoom = 1.0
        scr.use()
        self._place_labels(pos)
        self._world_batch.draw()
        self._draw_hud()
        self._draw_overlays()

    def _view_box(self) -> tuple[float, float, float, float]:
        """The world (m) the view shows: left, bottom, right, top."""
        w, h = self.draw_size
        left, bottom = self.screen_to_world(0, 0)
        right, top = self.screen_to_world(w, h)
        return left, bottom, right, top

    def _drawn_time(self) -> float:
        """The simulated time of what is drawn: between the last two steps when interpolating."""
        t = float(self.frame.time)
        if self._drawn_positions() is not self._pos:
            t -= (1.0 - min(max(self._acc, 0.0), 1.0)) * self.scene.dt
        return t

    def _draw_water(self) -> None:
        """The water's depth shading: one vertical gradient over the view (a strip of at most
        five rows of vertices), its colours fixed to world heights (:data:`WATER_LEVELS`), so it
        darkens as the camera goes deeper. The view is cleared with the shallow colour, so the
        part of it above the shallow level is not drawn again."""
        left, bottom, right, top = self._view_box()
        levels = np.array(WATER_LEVELS[::-1], np.float64)             # increasing
        colors = np.array([WATER_DEEP, WATER, WATER_SHALLOW], np.float64)          # by level
        top = min(top, levels[-1])
        if not top > bottom:
            self._backdrop.count = 0
            return
        ys = np.concatenate([[bottom], levels[(levels > bottom) & (levels < top)], [top]])
        rgb = np.stack([np.interp(ys, levels, colors[:, k]) for k in range(3)], axis=1)
        margin = 2.0 / self.zoom
        v = np.zeros(2 * ys.size, dtype=VERTEX)
        v["pos"][0::2, 0] = left - margin
        v["pos"][1::2, 0] = right + margin
        v["pos"][0::2, 1] = ys
        v["pos"][1::2, 1] = ys
        v["pos"][0, 1] = v["pos"][1, 1] = bottom - margin
        v["color"][:, :3] = np.repeat(np.round(rgb), 2, axis=0).astype(np.uint8)
        v["color"][:, 3] = 255
        self._backdrop.set(v)
        self._backdrop.draw(blend=False)

    def _draw_flow_marks(self) -> None:
        """Motes in water (with a tail along a current), streaks in the wind (none in still air):
        fixed points of the world drifting with the flow, ``flow * time`` from where they started,
        wrapped into a tile the size of the view (a little more, so they leave it before
        wrapping). The camera moving shows against them, as against the ground."""
        fx, fy = self.flow
        speed = math.hypot(fx, fy)
        water = self.fluid == "water"
        if not water and speed == 0.0:
            self._flow_marks.count = 0
            return
        w, h = self.draw_size
        z = self.zoom
        if water:
            n = int(np.clip(w * h * MOTES_PER_PIXEL, 6, self._mark_uv.shape[0]))
            lo, hi = MOTE_TAIL_PIXELS
            color, width = MOTE, 3.0
        else:
            n = int(np.clip(w * h * STREAKS_PER_PIXEL, 4, self._mark_uv.shape[0]))
            lo, hi = STREAK_PIXELS
            color, width = STREAK, 2.0
        tail = min(max(speed * STREAK_SECONDS * z, lo), hi) if speed > 0.0 else 0.0   # pixels
        margin = tail + 4.0
        period = np.array([(w + 2 * margin) / z, (h + 2 * margin) / z])
        cx, cy = self.camera_position
        corner = np.array([cx, cy]) - 0.5 * period
        t = self._drawn_time()
        shift = np.array([fx, fy]) * t
        p = corner + np.mod(self._mark_uv[:n] * period + shift - corner, period)
        seg = self._flow_marks.reserve(n)
        seg["seg"][:, 2:4] = p
        if tail > 0.0:
            d = np.array([fx, fy]) / speed * (tail / z)
            seg["seg"][:, 0:2] = p - d
        else:
            seg["seg"][:, 0:2] = p
        seg["color"] = color
        seg["width"] = width
        self._flow_marks.upload()
        self._flow_marks.draw(1.0 / z)

    def _draw_wings(self, pos: np.ndarray) -> None:
        """Wings as plates: a translucent band along each wing bone, under its line, as thick
        as the plate is wide (a 2D creature's plate reaches out of the picture: seen a little
        from the side), at most :data:`WING_MAX_LENGTH` of the bone's length and at least
        :data:`WING_MIN_PIXELS`; a lens shape, most opaque along the bone, fading to its edges."""
        W = self._wing_a.size
        if W == 0 or pos.shape[0] == 0:
            self._wings.count = 0
            return
        a, b = pos[self._wing_a], pos[self._wing_b]
        d = b - a
        length = np.hypot(d[:, 0], d[:, 1])
        good = np.isfinite(a).all(axis=1) & np.isfinite(b).all(axis=1) & (length * self.zoom >= 1.0)
        if self._sphere_on.shape[0] == pos.shape[0]:
            good &= self._sphere_on[self._wing_a] & self._sphere_on[self._wing_b]
        if not good.any():
            self._wings.count = 0
            return
        a, b, d, length = a[good], b[good], d[good], length[good]
        width = self._wing_width[good]
        width = np.where(np.isfinite(width) & (width > 0.0), width, 0.5 * length)
        thick = np.maximum(np.minimum(width, WING_MAX_LENGTH * length), WING_MIN_PIXELS / self.zoom)
        t = d / length[:, None]
        nrm = np.stack([-t[:, 1], t[:, 0]], axis=1) * (0.5 * thick)[:, None]
        m = 0.5 * (a + b)
        # the centre line a, m, b; each side's edge at 0.55, 1, 0.55 of the half thickness
        centre = [a, m, b]
        sides = [[a + 0.55 * nrm, m + nrm, b + 0.55 * nrm], [a - 0.55 * nrm, m - nrm, b - 0.55 * nrm]]
        k = a.shape[0]
        v = np.zeros((k, 24), dtype=VERTEX)
        inner, outer = (round(a * self._wing_fade) for a in WING_ALPHA)
        rgb = self._wing_rgb[good]
        j = 0
        for edge in sides:
            for s in range(2):                       # two quads per side, two triangles each
                quad = [(centre[s], inner), (centre[s + 1], inner), (edge[s + 1], outer),
                        (centre[s], inner), (edge[s + 1], outer), (edge[s], outer)]
                for p, alpha in quad:
                    v["pos"][:, j] = p
                    v["color"][:, j, :3] = rgb
                    v["color"][:, j, 3] = alpha
                    j += 1
        self._wings.set(v.reshape(-1))
        self._wings.draw()

    def _draw_ticks(self) -> None:
        """A tick every metre on the ground (or every 2, 5, 10... m when zoomed out), a label
        every 5 ticks (or so that labels stay apart). With no ground, along the bottom of the
        view, pointing up."""
        w, h = self.draw_size
        left, _ = self.screen_to_world(0, 0)
        right, _ = self.screen_to_world(w, 0)
        spacing = next(s for s in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000)
                       if s * self.zoom >= 12 or s == 10000)
        every = next(s for s in (5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000)
                     if s % spacing == 0 and s * self.zoom >= 70 or s == 50000)
        xs = np.arange(math.ceil(left / spacing) * spacing, right + spacing, spacing, dtype=np.float64)
        if self.ground:
            ys = np.interp(xs, self._terrain_x, self._terrain_y)
            down = 1.0
        else:
            ys = np.full(xs.shape, self.screen_to_world(0, 0)[1])
            down = -1.0
        major = np.isclose(np.mod(xs, every), 0.0) | np.isclose(np.mod(xs, every), every)
        length = down * np.where(major, 16.0, 8.0) / self.zoom
        seg = self._ticks.reserve(xs.size)
        seg["seg"] = np.stack([xs, ys, xs, ys - length], axis=1)
        seg["color"] = TICK + (255,)
        seg["width"] = np.where(major, 2.0, 1.5)
        self._ticks.upload()
        self._ticks.draw(1.0 / self.zoom)
        sx, sy = self.world_to_screen(xs[major], ys[major])
        n = 0
        for x, px, py in zip(xs[major], sx, sy):
            t = self._tick_labels.get(n)
            t.text = f"{x:g} m"
            t.position = (round(float(px)), round(float(py) - 20 if self.ground else float(py) + 34))
            n += 1
        self._tick_labels.finish(n)

    def _draw_creatures(self, pos: np.ndarray) -> None:
        if pos.shape[0] == 0:
            return
        ok = np.isfinite(pos).all(axis=1)
        safe = np.where(ok[:, None], pos, 0.0)
        on = ok & self._sphere_on if self._sphere_on.shape == ok.shape else ok
        # bones, then muscles coloured by contraction, (in a crowd then the spheres as discs) all
        # in one call
        n = self._bone_a.size
        discs = self._crowd_discs(on) if self.crowd else (np.zeros(0, np.int64), np.zeros(0, np.int64))
        if n or discs[1].size:
            seg = self._bones.reserve(n + discs[0].size + discs[1].size)
            bones = seg[:n]
            bones["seg"][:, 0:2] = safe[self._bone_a]
            bones["seg"][:, 2:4] = safe[self._bone_b]
            rgba = self._bone_rgba.copy()
            if self._muscle_bones.size:
                contraction = np.concatenate([np.asarray(c.contraction, np.float64).reshape(-1)
                                              for c in self.frame.creatures])
                m = self._muscle_bones
                rgba[m, :3] = muscle_colors(contraction[self._muscle_index[m]])
            inspected = self._inspected()
            if inspected is not None:       # the creature the panels show stands out of the crowd
                rgba[self._bone_owner == inspected, 3] = 255
            rgba[~(ok[self._bone_a] & ok[self._bone_b]), 3] = 0
            bones["color"] = rgba
            z = self.zoom
            bones["width"] = np.select([self._bone_kind == 0, self._bone_kind == 1],
                                       [np.clip(0.04 * z, 2.0, 10.0), np.clip(0.025 * z, 1.5, 6.0)],
                                       np.clip(0.05 * z, 2.5, 12.0))
            k = n
            for which, size, color in ((discs[0], 3.0, None), (discs[1], 2.0, self._sphere_rgba)):
                rows = seg[k:k + which.size]
                p = safe[which]
                rows["seg"][:, 0:2] = p
                rows["seg"][:, 2:4] = p
                rows["color"] = CONTACT + (255,) if color is None else color[which]
                if color is not None and inspected is not None:
                    lo, hi = self._sphere_offset[inspected], self._sphere_offset[inspected + 1]
                    rows["color"][(which >= lo) & (which < hi), 3] = 255
                rows["width"] = size * self._radius[which] * z
                k += which.size
            self._bones.upload()
            self._bones.draw(1.0 / self.zoom)
        if self.crowd:
            return
        # spheres, over their contact halos (not those switched off)
        for sp, (x, y), good in zip(self._sprites, safe.tolist(), on.tolist()):
            sp.position = (x, y)
            if sp.visible != good:
                sp.visible = good
        if self.show_sensors:
            contact = np.concatenate([np.asarray(c.contact, bool).reshape(-1) for c in self.frame.creatures])
            shown = (contact & on).tolist()
        else:
            shown = [False] * len(self._rings)
        for ring, (x, y), on_ in zip(self._rings, safe.tolist(), shown):
            if on_:
                ring.position = (x, y)
            if ring.visible != on_:
                ring.visible = on_
        self._sphere_list.draw()

    def _inspected(self) -> int | None:
        """In a crowd with a panel open (brain or sensors), the creature it shows: drawn opaque
        and labelled, so it can be found among the ghosts. Otherwise None."""
        if not (self.crowd and (self.show_brain or self.show_sensors)):
            return None
        n = min(len(self.scene.creatures), len(self.frame.creatures))
        return self.selected if self.selected < n else None

    def _crowd_discs(self, on: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """A crowd's discs, as sphere indices: the contact halos (the selected creature's, with
        the sensors on: a hundred creatures' would be noise) and the spheres that are drawn."""
        halos = np.zeros(0, np.int64)
        i = self.selected
        if self.show_sensors and i < min(len(self.scene.creatures), len(self.frame.creatures)):
            lo, hi = self._sphere_offset[i], self._sphere_offset[i + 1]
            contact = np.asarray(self.frame.creatures[i].contact, bool).reshape(-1)
            if contact.size == hi - lo:
                halos = lo + np.flatnonzero(contact & on[lo:hi])
        return halos, np.flatnonzero(on)

    def _place_labels(self, pos: np.ndarray) -> None:
        """Each creature's label above it (stacked when labels would overlap; in a crowd only
        the leaders'), and the selected creature's joint angles next to its joint spheres when
        the sensors are shown."""
        if self.crowd:
            for k, (i, text) in enumerate(zip(self._label_owner, self._label_strings)):
                self._set_label(k, i, text)
            self._label_pool.finish(len(self._label_owner))
            self._labels = self._label_pool.items[:len(self._label_owner)]
        placed: list[tuple[float, float, float, float]] = []     # left, right, bottom, top
        order = []
        for t, i in zip(self._labels, self._label_owner):
            p = pos[self._sphere_offset[i]:self._sphere_offset[i + 1]]
            r = self._radius[self._sphere_offset[i]:self._sphere_offset[i + 1]]
            good = np.isfinite(p).all(axis=1) & self._spheres_on(i, len(p))
            if not good.any():
                t.visible = False
                continue
            top = float(np.max(p[good, 1] + r[good]))
            cx = float(0.5 * (p[good, 0].min() + p[good, 0].max()))
            order.append((top, cx, i, t))
        for top, cx, i, t in sorted(order, key=lambda o: o[:3]):    # lowest first; the others above
            if not t.visible:
                t.visible = True
            sx, sy = self.world_to_screen(cx, top)
            half = 0.5 * t.content_width + 3
            lo, hi = float(sx) - half, float(sx) + half
            y = float(sy) + 8
            moved = True
            while moved:
                moved = False
                for l, r_, b, tp in placed:
                    if l < hi and lo < r_ and b < y + 13 and y < tp:
                        y = tp + 1
                        moved = True
            placed.append((lo, hi, y, y + 13))
            t.position = (round(float(sx)), round(y))
        n = 0
        if self.show_sensors and self.scene.creatures:
            i = self.selected
            shape, cf = self.scene.creatures[i], self.frame.creatures[i]
            js = np.asarray(shape.joint_sphere, np.int64).reshape(-1)
            angles = np.asarray(cf.joint_angle, np.float64).reshape(-1)
            joint_on = self._joint_on[i]
            for j, (s, a) in enumerate(zip(js, angles)):
                p = pos[self._sphere_offset[i] + s]
                if not (j < joint_on.size and joint_on[j]) or not np.all(np.isfinite(p)) or not math.isfinite(a):
                    continue
                sx, sy = self.world_to_screen(p[0], p[1])
                off = self._radius[self._sphere_offset[i] + s] * self.zoom + 3
                t = self._angle_labels.get(n)
                t.text = f"{math.degrees(a):.0f}\u00b0"
                t.position = (round(float(sx + off)), round(float(sy + off * 0.5)))
                n += 1
        self._angle_labels.finish(n)

    def _draw_hud(self) -> None:
        """Top left: the title, then a table of the creatures (name, fitness now, recorded
        fitness: separate texts, so that a step only lays out the numbers again), then time and
        speed; the status (PAUSED, DONE) at the top centre. A crowd's ranking changes as they
        go: it is ranked again every :data:`CROWD_RERANK_STEPS` steps, its names then all laid
        out at once, and its name column only widens (the numbers do not jump left and right
        as the leaders change)."""
        w, h = self.draw_size
        race = len(self.scene.creatures) > 1 or self.crowd
        names, nows, recs = self._hud_names, self._hud_nows, self._hud_recs
        width = 0
        numbers = []               # (text, new string): laid out again within the budget below
        for k, (name, _, _, i) in enumerate(self._hud_rows):
            t = names.get(k)
            col = label_color(self.colors[i]) if race else TEXT
            if t.text != name:     # a crowd's names change only when it is ranked again
                t.text = name
            if tuple(t.color) != tuple(col):
                t.color = col
            width = max(width, t.content_width)
        names.finish(len(self._hud_rows))
        if self.crowd:
            width = self._name_width = max(self._name_width, width)
        x_now = 12 + width + 14 + 62
        recorded = self._hud_recorded
        x_rec = x_now + 14 + 62 if recorded else x_now
        y = h - 8
        self._hud_title_text.text = self._hud_title
        self._hud_title_text.position = (12, y)
        y -= 19
        self._hud_header_text.text = self._hud_header
        self._hud_header_text.position = (12, y)
        y -= 14
        self._hud_medium_text.text = self._hud_medium
        if self._hud_medium:
            self._hud_medium_text.position = (12, y)
            y -= 14
        self._hud_columns[0].position = (x_now, y)
        self._hud_columns[1].position = (x_rec, y)
        self._hud_columns[1].text = "recorded" if recorded else ""
        y -= 14
        for k, (_, fit, rec, _) in enumerate(self._hud_rows):
            names.items[k].position = (12, y)
            a = nows.get(k)
            numbers.append((a, fit))
            a.position = (x_now, y)
            if recorded:
                b = recs.get(k)
                numbers.append((b, rec))
                b.position = (x_rec, y)
            y -= 15
        nows.finish(len(self._hud_rows))
        recs.finish(len(self._hud_rows) if recorded else 0)
        self._hud_more_text.text = self._hud_more
        if self._hud_more:
            self._hud_more_text.position = (12, y)
            y -= 15
        numbers.append((self._hud_time_text, self._hud_time))
        self._hud_time_text.position = (12, y)
        y -= 15
        self._relayout(numbers)
        right = max(x_rec + 4, 12 + self._hud_title_text.content_width,
                    12 + self._hud_header_text.content_width, 12 + self._hud_time_text.content_width,
                    12 + self._hud_medium_text.content_width)
        box = self._boxes["hud"]
        hud = (4, y - 4, right + 4, h - 4 - (y - 4))
        box.set(rects([hud], HUD_BACK))
        box.draw()
        st = self._status_text
        st.text = self.status
        st.color = (30, 130, 50, 255) if self.status == "DONE" else (190, 30, 30, 255)
        # the status at the top centre, or beside (else under) the HUD when a long title is there
        size = (st.content_width + 8, 30) if self.status else (0, 0)
        spot = place(size, (0, 0, w, h), [hud] + self.reserved, want=(w / 2, h - 20), gap=4) if self.status else None
        spot = spot or (w / 2 - size[0] / 2, h - 40, *size)
        if (st.x, st.y) != (round(spot[0] + spot[2] / 2), round(spot[1] + spot[3] - 10)):
            st.position = (round(spot[0] + spot[2] / 2), round(spot[1] + spot[3] - 10))
        self.overlays = {"hud": hud, "status": spot if self.status else None}
        self._hint_text.visible = self.hint
        self._hud_batch.draw()

    def _relayout(self, updates) -> None:
        """Set the texts whose string changed, at most :attr:`text_budget` of them per frame,
        taking turns. Laying a text out again is what the HUD costs (~0.15 ms each on a software
        renderer, every frame for every racing creature); the ones left over wait a frame or two."""
        changed = [(t, s) for t, s in updates if t.text != s]
        budget = self.text_budget
        if budget is not None and len(changed) > budget:
            start = self._text_turn % len(changed)
            changed = (changed[start:] + changed[:start])[:budget]
            self._text_turn += budget
        for t, s in changed:
            t.text = s

    def _build_brain(self, rect) -> None:
        """Lay the selected creature's network out on the panel (``rect``): inputs left, outputs
        right, hidden nodes in columns by depth; edges coloured by sign, thick by |weight|."""
        key = (self._scene_version, self.selected, rect)
        if key == self._brain_key:
            return
        self._brain_key = key
        self._panel_rect = rect
        left, bottom, pw, ph = rect
        n = len(self.scene.creatures)
        label = self.scene.creatures[self.selected].label if n else ""
        self._panel_title.text = f"brain: {label or f'creature {self.selected}'}"
        self._panel_title.position = (round(left + 10), round(bottom + ph - 8))
        brain = self.source.brain(self.selected) if n else None
        self._brain = brain
        self._brain_nodes = []
        self._edges.count = 0
        if brain is None:
            t = self._panel_texts.get(0)
            t.text = "no brain"
            t.font_size = 12
            t.position = (round(left + pw / 2 - 30), round(bottom + ph / 2))
            self._panel_texts.finish(1)
            return
        inputs = [nd for nd in brain.nodes if nd.kind == "input"]
        outputs = [nd for nd in brain.nodes if nd.kind == "output"]
        hidden = [nd for nd in brain.nodes if nd.kind not in ("input", "output")]
        depths = sorted({nd.depth for nd in hidden})
        columns = [inputs] + [[nd for nd in hidden if nd.depth == d] for d in depths] + [outputs]
        columns = [c for c in columns if c]
        x0, x1 = left + 125, left + pw - 80  # room for the input labels ('sphere 12 contact')
        top, low = bottom + ph - 34, bottom + 12
        xs = np.linspace(x0, x1, len(columns)) if len(columns) > 1 else np.array([(x0 + x1) / 2])
        where = {}
        spacing = ph
        for cx, col in zip(xs, columns):
            gap = (top - low) / len(col)
            spacing = min(spacing, gap)
            for j, nd in enumerate(col):
                where[nd.key] = (float(cx), float(top - (j + 0.5) * gap))
        radius = float(np.clip(0.35 * spacing, 2.5, 8.0))
        font = float(np.clip(0.75 * spacing, 5.0, 9.0))
        self._brain_nodes = [nd for col in columns for nd in col]
        # one batch of segments: the edges, then each node as two discs (zero-length segments):
        # a dark outline and its value's colour, set every frame
        edges = [(where[a], where[b], wt) for a, b, wt in brain.edges if a in where and b in where]
        nodes = np.array([where[nd.key] for nd in self._brain_nodes], np.float64).reshape(-1, 2)
        E, N = len(edges), nodes.shape[0]
        seg = self._edges.reserve(E + 2 * N)
        if edges:
            wmax = max(abs(e[2]) for e in edges) or 1.0
            seg["seg"][:E] = [(a[0], a[1], b[0], b[1]) for a, b, _ in edges]
            seg["color"][:E] = [EDGE_POSITIVE if wt >= 0 else EDGE_NEGATIVE for _, _, wt in edges]
            seg["width"][:E] = [0.6 + 3.4 * min(abs(wt) / wmax, 1.0) for _, _, wt in edges]
        seg["seg"][E:] = np.repeat(np.concatenate([nodes, nodes], axis=1), 2, axis=0)
        seg["color"][E::2] = (16, 18, 24, 255)
        seg["width"][E::2] = 2 * radius + 3
        seg["width"][E + 1::2] = 2 * radius
        self._node_first = E
        n_text = 0
        for nd in inputs + outputs:
            t = self._panel_texts.get(n_text)
            t.text = nd.label or str(nd.key)
            if t.font_size != font:
                t.font_size = font
            x, y = where[nd.key]
            if nd.kind == "input":
                t.position = (round(x - radius - 4 - t.content_width), round(y))
            else:
                t.position = (round(x + radius + 4), round(y))
            n_text += 1
        self._panel_texts.finish(n_text)

    def _brain_rect(self, avoid) -> tuple:
        """Top right, clear of the HUD and the status (smaller when they leave less room)."""
        w, h = self.draw_size
        pw, ph = min(0.42 * w, 520.0), min(0.5 * h, 380.0)
        for k in (1.0, 0.8, 0.62):
            spot = place((round(k * pw), round(k * ph)), shrink((0, 0, w, h), 6), avoid,
                         want=(w - k * pw / 2, h - k * ph / 2), gap=6)
            if spot is not None:
                return spot
        return (w - pw - 10, h - ph - 10, pw, ph)

    def _draw_overlays(self) -> None:
        """The brain panel, the help and the source's message, each where it covers neither the
        HUD nor the status nor :attr:`reserved` nor each other (:attr:`overlays` says where);
        when the help has no room beside the brain panel, it takes the panel's place while it
        is open."""
        w, h = self.draw_size
        area = shrink((0, 0, w, h), 4)
        taken = [r for r in (self.overlays["hud"], self.overlays["status"]) if r] + list(self.reserved)
        brain = self._brain_rect(taken) if self.show_brain else None
        message = self._message_box.layout(getattr(self.source, "message", None), area,
                                           taken + ([brain] if brain else []), want=(w / 2, h - 46))
        if message:
            taken.append(message)
        helped = self.help.layout(area, taken + ([brain] if brain else [])) if self.show_help else None
        if helped and brain and not self.help.clear:
            helped, brain = self.help.layout(area, taken), None
        self.overlays.update(brain=brain, help=helped, message=message)
        if brain:
            self._draw_brain(brain)
        if helped:
            self.help.draw()
        self._message_box.draw()

    def _draw_brain(self, rect) -> None:
        self._build_brain(rect)
        box = self._boxes["panel"]
        box.set(rects([self._panel_rect], PANEL_BACK))
        box.draw()
        if self._brain is not None and self._brain_nodes:
            values = self.source.brain_values(self.selected) or {}
            v = np.array([float(values.get(nd.key, 0.0)) for nd in self._brain_nodes])
            fill = self._edges.data["color"][self._node_first + 1:self._edges.count:2]
            fill[:, :3] = value_colors(v)
            fill[:, 3] = 255
            self._edges.upload()
            self._edges.draw(1.0)
        self._panel_batch.draw()


def watch(source, size=(1280, 720), title: str = "creatures", **options) -> None:
    """Open a window playing ``source`` and run until it is closed (ESC, Q or the window's close
    button). ``options`` go to :class:`Viewer` (``speed``, ``follow``, ``show_brain``...).

    Needs a display: on a machine without one (pyglet headless), use :func:`render.record`."""
    frames = options.pop("_frames", None)   # tests: close after this many frames
    if pyglet.options.headless and frames is None:
        raise RuntimeError("watch needs a display (this process renders headless); "
                           "record a GIF or MP4 with `creatures record` instead")
    window = arcade.Window(int(size[0]), int(size[1]), title, resizable=True, visible=frames is None,
                           antialiasing=False)  # the shaders antialias; 4x MSAA doubles a frame on llvmpipe
    viewer = Viewer(source, window=window, **options)
    if frames is not None:
        count = [0]
        inner = viewer.on_update

        def on_update(delta_time):
            inner(delta_time)
            count[0] += 1
            if count[0] >= frames:
                window.close()
        viewer.on_update = on_update  # before show_view, which binds the view's handlers
    window.show_view(viewer)
    try:
        arcade.run()
    finally:
        if not window.closed:
            window.close()

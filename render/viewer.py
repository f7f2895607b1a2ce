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
fixed to world heights, :data:`render.backdrop.WATER_LEVELS`) with motes drifting with the current; wind in the
air as streaks moving with it (still air has none); the HUD says which (``medium: air, wind 3
m/s``). A scene without ground draws no terrain; its metre marks run along the bottom of the
view. Wing bones are drawn as plates: a translucent band under the bone, as thick as the plate
is wide.

A crowd (``scene.crowd``: a whole generation at once, carykh's view) draws every creature as a
translucent ghost (:data:`render.theme.CROWD_ALPHA`) in its own ``color`` (its species'), so a hundred and
fifty of them read as a cloud; only the :data:`render.bodies.CROWD_LABELS` best by fitness so far are labelled
(``#1 ...``), and the HUD ranks them: the best :data:`render.hud.MAX_HUD_CREATURES` (failed ones last), then
how many more. While the brain or the sensor panel is open, the creature it shows (TAB) is drawn
opaque and labelled too, and only its contacts are marked. A crowd's spheres are drawn as discs
in the bones' batch (one draw call for the whole crowd, positions set in bulk), not as sprites.
Any creature with a ``color`` is drawn in it, in a race too.

:meth:`Viewer.set_source` plays another source in the same viewer (building a viewer is slow: a
game screen switches between a champion and a crowd with it). Keys are listed in :data:`KEYS`
(the help overlay, H, shows them, then the ``extra_keys`` the viewer was given).

The viewer plays; what it draws is drawn by its parts, each in a module of its own: the camera
(:mod:`render.camera`), what the creatures are drawn over (:mod:`render.backdrop`: the medium,
the terrain, the metre marks), the creatures (:mod:`render.bodies`: bones, spheres, wings,
labels), the HUD (:mod:`render.hud`) and the brain panel (:mod:`render.brain_panel`), in the
colours of :mod:`render.theme`. This module re-exports the names the other screens take from it.
"""

from __future__ import annotations

import math

from ._display import prefer_headless

prefer_headless()

import arcade  # noqa: E402
import numpy as np  # noqa: E402
import pyglet  # noqa: E402

from .backdrop import Backdrop  # noqa: E402
from .bodies import Bodies  # noqa: E402
from .brain_panel import BrainPanel  # noqa: E402
from .camera import ViewCamera  # noqa: E402
from .hud import Hud  # noqa: E402
from .layout import shrink  # noqa: E402
from .overlay import KeyHelp, MessageBox  # noqa: E402
from .parts import part_property  # noqa: E402

__all__ = ["Viewer", "watch", "KEYS", "SPEEDS"]

#: playback speeds the speed keys move between
SPEEDS = (0.25, 16.0)

#: (keys, what they do): the help overlay, and the table of docs/watching.md
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
    ("S", "sensors: contacts, joint angles, wing pitch"),
    ("TAB", "next creature for the panels (SHIFT: back)"),
    ("H", "this help"),
    ("ESC / Q", "close the help / quit"),
)


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
        Pixels per metre; by default :data:`render.camera.DEFAULT_VIEW_HEIGHT` metres fill the height.
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
    hud : bool
        Draw the HUD, the status and the creatures' names (False: the scene alone, a share
        card's picture).
    camera : (float, float), optional
        Where the view is centred at the start (m); by default on the leader.
    text_budget : int or None
        At most this many HUD numbers are laid out again per frame (they take turns, so each
        is refreshed several times a second); None: all, every frame (the recorder). A crowd's
        names change only when it is ranked again (:data:`render.hud.CROWD_RERANK_STEPS`), all at once.
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
    medium, fluid, flow, background
        The backdrop's (:class:`render.backdrop.Backdrop`): the medium's name, how it is drawn,
        the fluid's velocity, the colour the view is cleared with.
    help : KeyHelp
        The keys' help (``render.overlay``): its ``texts`` and where it was last put (``rect``).
    reserved : list of (float, float, float, float)
        Screen boxes (left, bottom, width, height) that whoever shows this viewer draws over it
        (a game screen's chart and buttons): the status, panels, help and messages keep clear.
    overlays : dict of str -> rectangle or None
        Where the last frame drew the ``hud``, the ``status``, the ``brain`` panel, the
        ``help`` and the source's ``message`` (None: not drawn): no two intersect, unless the
        window is too small for them side by side (``render.layout``).
    camera : ViewCamera
        Where the view looks (``render.camera``): :attr:`zoom`, :attr:`camera_position` and
        :attr:`draw_size` are its ``zoom``, ``position`` and ``size``.
    backdrop : Backdrop
        The medium, the terrain and the metre marks (``render.backdrop``).
    bodies : Bodies
        The creatures: their bones, spheres, wings, labels and joint angles (``render.bodies``).
    hud : Hud
        The HUD (``render.hud``): its ``rows`` and texts.
    brain_panel : BrainPanel
        The brain panel (``render.brain_panel``): its ``nodes``, ``title`` and ``texts``.
    """

    def __init__(self, source, *, size=None, speed: float = 1.0, follow: bool = True, zoom=None,
                 interpolate: bool = True, show_help: bool = False, show_brain: bool = False,
                 show_sensors: bool = False, poll_interval=0.5, max_lag=0.1,
                 close_on_quit: bool = True, hint: bool = True, camera=None, text_budget=4,
                 extra_keys=(), window=None, hud: bool = True):
        super().__init__(window)
        if not (isinstance(speed, (int, float)) and 0.0 < speed <= 1024.0):
            raise ValueError(f"speed must be a positive number, not {speed!r}")
        try:
            extra = tuple((str(k), str(w)) for k, w in extra_keys)
        except (TypeError, ValueError):
            raise ValueError(f"extra_keys must be (keys, what they do) pairs, not {extra_keys!r}") from None
        self.keys = tuple(KEYS) + extra
        self.source = source
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
        self.show_hud = bool(hud)
        self.paused = False
        self.quit_requested = False
        self.selected = 0
        self.crowd = False
        self._camera_start = None if camera is None else (float(camera[0]), float(camera[1]))
        self._acc = 0.0            # steps owed (fractional)
        self._poll_clock = 0.0
        self._held: set[int] = set()
        self._scene_version = 0

        ctx = self.window.ctx
        self.ctx = ctx
        self.camera = ViewCamera(self.window, tuple(int(v) for v in (size or self.window.get_framebuffer_size())),
                                 zoom)
        # text, by layer: the world's (metre marks, labels, joint angles), the HUD's, the panel's
        self._world_batch = pyglet.graphics.Batch()
        self.backdrop = Backdrop(ctx, self._world_batch)
        self.bodies = Bodies(ctx, self._world_batch)
        self.hud = Hud(ctx, text_budget)
        self.brain_panel = BrainPanel(ctx)
        self.help = KeyHelp(ctx, self.keys)
        self._message_box = MessageBox(ctx)
        self.reserved = []
        self.overlays = {}
        self.load_scene()

    # the parts' state, as the viewer's -----------------------------------------------------------
    zoom = part_property("camera", "zoom", "Pixels per metre.", settable=True)
    camera_position = part_property("camera", "position", "World point (m) at the centre of the view.", settable=True)
    draw_size = part_property("camera", "size", "Drawing size in pixels.")
    text_budget = part_property("hud", "text_budget", "HUD numbers laid out again per frame at most (None: all).",
                        settable=True)
    hud_lines = part_property("hud", "lines", "The HUD's text, line by line, as drawn.")
    hud_fitness = part_property("hud", "fitness", "Per creature, the fitness so far and the recorded fitness.")
    ranking = part_property("hud", "ranking", "The creatures in the HUD's order.")
    colors = part_property("bodies", "colors", "One colour per creature.")
    medium = part_property("backdrop", "medium", "The scene's medium's name.")
    fluid = part_property("backdrop", "fluid", "How the medium is drawn: water, air or None.")
    flow = part_property("backdrop", "flow", "The fluid's velocity (m/s).")
    background = part_property("backdrop", "background", "The colour the view is cleared with.")
    ground = part_property("backdrop", "ground", "Whether the scene has ground.")

    # scene -------------------------------------------------------------------------------------
    def load_scene(self) -> None:
        """(Re)read ``source.scene`` and ``source.frame()``: rebuild sprites, labels, terrain."""
        scene = self.source.scene
        if not scene.dt > 0.0:
            raise ValueError(f"the scene's dt must be positive, not {scene.dt!r}")
        self.scene = scene
        self._scene_version += 1
        self.brain_panel.forget()
        shapes = list(scene.creatures)
        self.selected = min(self.selected, max(len(shapes) - 1, 0))
        self.crowd = bool(getattr(scene, "crowd", False))
        self.hud.forget()
        self.bodies.load(shapes, self.crowd)
        self.backdrop.load(scene)
        self._acc = 0.0
        self._prev_pos = None
        self._set_frame(self.source.frame())
        first = self._scene_version == 1
        if first and self._camera_start is not None:
            self.camera.position = self._camera_start
        else:
            self.snap_camera(force=first)        # a reloaded scene keeps a free camera where it is

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
        self.camera.pan(self._held, delta_time)
        # followed in the episode's time: at 2x a climbing bird stays as far from the middle as at 1x
        self._update_camera(delta_time * self.speed)

    @property
    def positions(self) -> np.ndarray:
        """The spheres' positions of the frame stepped last, (creatures, spheres, 2)."""
        return self._pos

    @property
    def message_shown(self) -> str:
        """The text of the message box drawn over the view ("" when there is none)."""
        return self._message_box.text.text

    def drawn_positions(self) -> np.ndarray:
        """The spheres' positions as drawn: between the last two steps while interpolating."""
        if (self.interpolate and not self.paused and not self.frame.done and self._prev_pos is not None
                and self._prev_pos.shape == self._pos.shape):
            alpha = min(max(self._acc, 0.0), 1.0)
            return self._prev_pos + (self._pos - self._prev_pos) * alpha
        return self._pos

    def _drawn_time(self) -> float:
        """The simulated time of what is drawn: between the last two steps when interpolating."""
        t = float(self.frame.time)
        if self.drawn_positions() is not self._pos:
            t -= (1.0 - min(max(self._acc, 0.0), 1.0)) * self.scene.dt
        return t

    # camera ------------------------------------------------------------------------------------
    def default_zoom(self) -> float:
        return self.camera.default_zoom()

    def _follow_target(self) -> tuple[float, float] | None:
        n = len(self.scene.creatures)
        if n == 0 or self._pos.shape[0] == 0:
            return None
        i = min(max(int(self.frame.leader), 0), n - 1)
        return self.camera.aim(self.bodies.points(i, self.drawn_positions()))

    def snap_camera(self, force: bool = False) -> None:
        """Put the camera on the leader at once (when following, or with ``force``)."""
        target = self._follow_target()
        if (self.follow or force) and target is not None:
            self.camera.position = target

    def _update_camera(self, delta_time: float) -> None:
        if not self.follow:
            return
        target = self._follow_target()
        if target is None:
            return
        self.camera.approach(target, delta_time)

    def zoom_by(self, factor: float, about=None) -> None:
        """Zoom by ``factor``, keeping the world point under screen point ``about`` in place."""
        self.camera.zoom_by(factor, None if self.follow else about)

    def world_to_screen(self, x, y):
        """Screen pixel (from the bottom left) of world point ``(x, y)`` (m); arrays work too."""
        return self.camera.world_to_screen(x, y)

    def screen_to_world(self, sx, sy, zoom=None):
        return self.camera.screen_to_world(sx, sy, zoom)

    def resize(self, size) -> None:
        """Draw at a new size (pixels); the zoom keeps the same metres in the height unless set."""
        self.camera.resize(size)

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
            self.camera.zoom = self.camera.default_zoom()
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
        self.camera.drag(dx, dy)

    def on_mouse_scroll(self, x, y, scroll_x, scroll_y) -> None:
        self.zoom_by(1.15 ** scroll_y, about=(x, y))

    def quit(self) -> None:
        self.quit_requested = True
        if self.close_on_quit:
            self.window.close()

    # HUD text ----------------------------------------------------------------------------------
    def _update_hud(self) -> None:
        """The HUD's strings for the current frame (drawn by :meth:`draw_scene`), and in a crowd
        who the labels are above (the leaders, and the creature the panels show)."""
        hud, frame = self.hud, self.frame
        hud.update(self.scene, frame, medium=self.backdrop.medium, ground=self.backdrop.ground,
                   crowd=self.crowd, selected=self.selected, speed=self.speed,
                   height=self.camera.size[1], reserved=self.reserved)
        if self.crowd:
            n = min(len(self.scene.creatures), len(frame.creatures))
            self.bodies.label_leaders(hud.ranking, frame.creatures[:n], self._inspected())

    @property
    def status(self) -> str:
        """``DONE``, ``PAUSED`` or empty."""
        return "DONE" if self.frame.done else ("PAUSED" if self.paused else "")

    def _inspected(self) -> int | None:
        """In a crowd with a panel open (brain or sensors), the creature it shows: drawn opaque
        and labelled, so it can be found among the ghosts. Otherwise None."""
        if not (self.crowd and (self.show_brain or self.show_sensors)):
            return None
        n = min(len(self.scene.creatures), len(self.frame.creatures))
        return self.selected if self.selected < n else None

    # drawing -----------------------------------------------------------------------------------
    def on_draw(self) -> None:
        self.window.ctx.screen.use()
        self.clear(color=self.backdrop.background)
        self.draw_scene()

    def draw_scene(self) -> None:
        """Draw everything into the framebuffer in use (the window's, or the recorder's)."""
        self._update_hud()
        cam, backdrop, bodies = self.camera, self.backdrop, self.bodies
        pixel = 1.0 / cam.zoom
        pos = self.drawn_positions()
        # world ----------------------------------------------------------------------------------
        cam.use_world()
        if backdrop.fluid == "water":
            backdrop.draw_water(cam)
        if backdrop.fluid is not None:
            backdrop.draw_flow_marks(cam, self._drawn_time())
        if backdrop.ground:
            backdrop.draw_ground(pixel)
        backdrop.draw_ticks(cam, self.reserved)   # no label under a panel drawn over the view
        bodies.draw_wings(pos, cam.zoom)
        bodies.draw(pos, self.frame, zoom=cam.zoom, selected=self.selected, sensors=self.show_sensors,
                    inspected=self._inspected())
        # screen ---------------------------------------------------------------------------------
        cam.use_screen()
        if self.show_hud or self.show_sensors:
            bodies.place_labels(pos, cam, self.frame, self.selected, self.show_sensors)
            self._world_batch.draw()
        if not self.show_hud:
            self.overlays = {"hud": None, "status": None, "brain": None, "help": None, "message": None}
            return
        self.overlays = self.hud.draw(cam.size, bodies.colors, self.status, self.reserved, self.hint)
        self._draw_overlays()

    def _draw_overlays(self) -> None:
        """The brain panel, the help and the source's message, each where it covers neither the
        HUD nor the status nor :attr:`reserved` nor each other (:attr:`overlays` says where);
        when the help has no room beside the brain panel, it takes the panel's place while it
        is open."""
        w, h = self.camera.size
        area = shrink((0, 0, w, h), 4)
        taken = [r for r in (self.overlays["hud"], self.overlays["status"]) if r] + list(self.reserved)
        brain = self.brain_panel.spot((w, h), taken) if self.show_brain else None
        message = self._message_box.layout(getattr(self.source, "message", None), area,
                                           taken + ([brain] if brain else []), want=(w / 2, h - 46))
        if message:
            taken.append(message)
        helped = self.help.layout(area, taken + ([brain] if brain else [])) if self.show_help else None
        if helped and brain and not self.help.clear:
            helped, brain = self.help.layout(area, taken), None
        self.overlays.update(brain=brain, help=helped, message=message)
        if brain:
            self.brain_panel.draw(self.source, self.scene.creatures, self.selected, brain)
        if helped:
            self.help.draw()
        self._message_box.draw()


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

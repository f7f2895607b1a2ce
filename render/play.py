"""The evolution screen of ``creatures play``: a run evolving in the background, watched live.

:class:`PlayView` is an ``arcade.View`` around a :class:`~render.game.Session` (built by the
``creatures`` package). It plays what the session hands over in a :class:`~render.viewer.Viewer`
(the same viewer as ``creatures watch``: its keys, HUD, brain and sensor panels all work) and
draws over it:

- the live fitness chart, the species stack and the generation scrubber
  (:class:`render.chart.Chart`), bottom right, growing each generation;
- a row of buttons (pause, ghosts, race, save) and a status line (the generation, whether the
  run is evolving, paused or finished, the run directory, the last message), bottom left.

What is played:

- ``live`` (the start, and END): the newest generation's champion as soon as its generation
  ends; when generations come faster than one can watch, a champion plays at least
  :data:`MIN_WATCH` seconds (or to its end) before the next one takes over;
- ``generation``: the champion of a generation picked on the scrubber (click or drag on the chart
  or the bar, HOME, PAGE UP/DOWN);
- ``ghosts`` (G): the whole generation being evaluated, every creature at once, coloured by
  species, ranked as they go (``Scene.crowd``); when it has played to its end and a newer
  generation is there, that one follows;
- ``race`` (V): generation 1's champion against the one shown.

Nothing here steps physics or evolves: the session owns the run (in another process) and the
sources; the view only decides what to play and when to ask (:meth:`Session.poll`, twice a
second).
"""

from __future__ import annotations

import time

import arcade
import numpy as np
import pyglet
from arcade.camera import Camera2D
from arcade.types import LBWH

from ._gl import Triangles, rects
from .chart import Chart
from .game import GameError
from .scene import Frame, Scene
from .viewer import FONT, Viewer

__all__ = ["PlayView", "PLAY_KEYS", "MIN_WATCH"]

#: seconds a live champion plays before a newer generation's champion may take over
MIN_WATCH = 4.0
POLL_INTERVAL = 0.5
#: seconds a message (saved, paused...) stays on the status line
MESSAGE_SECONDS = 8.0
BUTTON = (46, 54, 70, 230)
BUTTON_ON = (214, 120, 36, 240)
BUTTON_TEXT = (240, 242, 248, 255)
STATUS_BACK = (255, 255, 255, 190)
STATUS_TEXT = (22, 26, 34, 255)
ERROR_TEXT = (170, 24, 24, 255)

#: (keys, what they do) of the evolution screen, listed after the viewer's own in its help (H)
PLAY_KEYS = (
    ("G", "the whole generation as ghosts / its champion"),
    ("P", "pause / resume evolution"),
    ("E", "save the champion shown to a file (a champion: evolve its design)"),
    ("V", "race generation 1's champion against the one shown"),
    ("HOME / END", "generation 1 / the newest, live"),
    ("PAGE UP / DOWN", "an earlier / a later generation"),
    ("click the chart", "that generation's champion"),
    ("C", "chart on / off"),
)


class _Waiting:
    """What plays before the first generation has finished: an empty ground and a message."""

    def __init__(self, title: str, message: str):
        self.scene = Scene(terrain_x=np.array([-100.0, 100.0]), terrain_y=np.zeros(2), creatures=[],
                           dt=1.0 / 60.0, duration=None, title=title)
        self.message = message

    def reset(self):
        pass

    def step(self):
        pass

    def frame(self):
        return Frame(0.0, 0, [], 0, False)

    def brain(self, creature):
        return None

    def brain_values(self, creature):
        return {}

    def poll(self):
        return False


class PlayView(arcade.View):
    """The evolution screen (see the module docstring).

    Parameters
    ----------
    session : render.game.Session
    window : arcade.Window, optional
    on_quit : callable, optional
        Called on ESC / Q (the help closed); by default the window closes.
    poll_interval : float
        Seconds between :meth:`Session.poll` calls.
    min_watch : float
        :data:`MIN_WATCH`.

    Attributes
    ----------
    viewer : Viewer
        Plays the source shown (its keys and panels work as in ``creatures watch``).
    chart : Chart
    mode : str
        ``live``, ``generation``, ``ghosts``, ``race`` or ``champion`` (a champion file, no run).
    shown : int
        The generation whose champion (or ghosts) is played (0: none yet).
    show_chart : bool
    status : str
        The status line as drawn.
    message : str or None
        The last message (an error, what was saved), shown for :data:`MESSAGE_SECONDS`.
    """

    def __init__(self, session, window=None, on_quit=None, poll_interval: float = POLL_INTERVAL,
                 min_watch: float = MIN_WATCH):
        super().__init__(window)
        self.session = session
        self.on_quit = on_quit
        self.poll_interval = poll_interval
        self.min_watch = min_watch
        self.mode = "champion" if session.state == "champion" else "live"
        self.shown = 0
        self.show_chart = True
        self.message = None
        self._message_at = 0.0
        self._shown_at = time.perf_counter()
        self._poll_clock = 0.0
        self._scrubbing = False
        self.viewer = Viewer(self._first_source(), window=self.window, close_on_quit=False, poll_interval=None,
                             extra_keys=PLAY_KEYS, hint=False)
        self.chart = Chart(self.window.ctx)
        self.chart.total = max(int(session.total), 1)
        self.chart.set_progress(session.progress())
        self._camera = Camera2D(window=self.window)
        self._boxes = Triangles(self.window.ctx)
        self._batch = pyglet.graphics.Batch()
        self._status_text = arcade.Text("", 0, 0, STATUS_TEXT, 11, font_name=FONT, batch=self._batch,
                                        anchor_y="bottom")
        self._message_text = arcade.Text("", 0, 0, STATUS_TEXT, 11, font_name=FONT, batch=self._batch,
                                         anchor_y="bottom")
        self._button_texts = {}
        self.buttons = {}
        self.status = ""
        self._layout()

    # --- what plays -----------------------------------------------------------------------------
    def _first_source(self):
        s = self.session
        if s.state == "champion":
            return s.champion()
        if s.done > 0:
            try:
                source = s.champion(s.done)
                self.shown = s.done
                return source
            except GameError:
                pass
        return _Waiting(f"{s.title}: waiting for generation 1",
                        "evolving the first generation (a first run on this machine compiles the "
                        "kernels first: up to a minute)")

    def _play(self, source) -> None:
        self.viewer.set_source(source)
        self._shown_at = time.perf_counter()

    def show_generation(self, generation: int | None, mode: str = "generation") -> bool:
        """Play the champion of ``generation`` (None: the newest) and switch to ``mode``."""
        s = self.session
        if s.state == "champion":
            return False
        if s.done == 0:
            self.say("no generation has finished yet")
            return False
        gen = s.done if generation is None else int(min(max(generation, 1), s.done))
        try:
            source = s.champion(gen)
        except GameError as exc:
            self.say(str(exc))
            return False
        self.mode, self.shown = mode, gen
        self.chart.selected = None if mode == "live" else gen
        self._play(source)
        return True

    def show_ghosts(self) -> bool:
        """Play the whole generation being evaluated, as ghosts."""
        try:
            source = self.session.ghosts()
        except GameError as exc:
            self.say(str(exc))
            return False
        if source is None:
            self.say("the run has no population yet")
            return False
        self.mode = "ghosts"
        self.shown = getattr(source, "generation", self.session.done + 1)
        self._play(source)
        return True

    def show_race(self) -> bool:
        """Generation 1's champion against the one shown (or the newest)."""
        s = self.session
        if s.done == 0:
            self.say("no generation has finished yet")
            return False
        other = self.shown if self.mode in ("generation", "live") and self.shown else s.done
        try:
            source = s.race([1, other] if other != 1 else [1, "last"])
        except GameError as exc:
            self.say(str(exc))
            return False
        self.mode = "race"
        self._play(source)
        return True

    def say(self, message: str) -> None:
        self.message = message
        self._message_at = time.perf_counter()

    # --- evolution ------------------------------------------------------------------------------
    def toggle_evolution(self) -> None:
        s = self.session
        try:
            if s.state == "champion":
                self.say("this is a champion file: E evolves its design in a new run")
            elif s.state in ("evolving", "starting"):
                s.pause()
                self.say("pausing: the run stops after its last whole generation")
            elif s.state in ("paused", "failed"):
                s.resume()
                self.say("evolving again")
            elif s.state == "finished":
                self.say(f"the run has finished its {s.total} generations")
        except GameError as exc:
            self.say(str(exc))

    def save_or_evolve(self) -> None:
        s = self.session
        try:
            if s.state == "champion":
                s.evolve()
                self._layout()        # a run's buttons now
                self.mode = "live"
                self.shown = 0
                self.chart.total = max(int(s.total), 1)
                self.chart.set_progress(s.progress())
                self._play(self._first_source())
                self.say(f"evolving it in {s.run_dir}")
                return
            generation = self.shown if self.mode in ("generation", "live") and self.shown else None
            self.say(f"saved {s.save(generation)}")
        except GameError as exc:
            self.say(str(exc))

    def poll(self) -> None:
        """Ask the session what changed; follow the newest generation when live."""
        s = self.session
        if s.poll():
            self.chart.total = max(int(s.total), s.done, 1)
            self.chart.set_progress(s.progress())
            if s.message:
                self.say(s.message)
                s.message = None
        now = time.perf_counter()
        done = self.viewer.frame.done
        if self.mode == "live" and s.done > self.shown:
            if self.shown == 0 or done or now - self._shown_at >= self.min_watch:
                self.show_generation(None, "live")
        elif self.mode == "ghosts" and done and s.done + 1 > self.shown:
            self.show_ghosts()

    def quit(self) -> None:
        if self.on_quit is not None:
            self.on_quit()
        else:
            self.window.close()

    # --- layout and drawing -----------------------------------------------------------------------
    def _layout(self) -> None:
        w, h = self.viewer.draw_size
        cw, ch = int(min(470, 0.4 * w)), int(min(300, 0.44 * h))
        self.chart.layout(w - cw - 10, 10, cw, ch)
        names = [("pause", "P  pause"), ("ghosts", "G  ghosts"), ("race", "V  race gen 1"),
                 ("save", "E  save"), ("help", "H  keys")]
        if self.session.state == "champion":
            names = [("evolve", "E  evolve it further"), ("help", "H  keys")]
        x = 10
        self.buttons = {}
        for name, label in names:
            t = self._button_texts.get(name)
            if t is None:
                t = self._button_texts[name] = arcade.Text(label, 0, 0, BUTTON_TEXT, 11, font_name=FONT,
                                                           batch=self._batch, anchor_x="center",
                                                           anchor_y="center")
            t.text = label
            bw = max(int(t.content_width) + 22, 70)
            self.buttons[name] = (x, 10, bw, 28)
            x += bw + 8
        for name, t in self._button_texts.items():
            t.visible = name in self.buttons

    def button_rect(self, name: str) -> tuple:
        """``(left, bottom, width, height)`` of a button: ``pause``, ``ghosts``, ``race``,
        ``save``, ``help`` (``evolve`` for a champion)."""
        return self.buttons[name]

    def _status_line(self) -> str:
        s = self.session
        if s.state == "champion":
            return f"{s.title}: a champion file (E evolves its design in a new run)"
        state = {"starting": "starting", "evolving": "evolving", "pausing": "pausing", "paused": "paused",
                 "finished": "finished", "failed": "stopped"}.get(s.state, s.state)
        watching = {"live": f"watching the newest champion (gen {self.shown})" if self.shown else "waiting",
                    "generation": f"watching generation {self.shown}'s champion (END: the newest)",
                    "ghosts": f"generation {self.shown}: every creature at once",
                    "race": "a race (END: back to the newest)"}.get(self.mode, "")
        return f"generation {s.done} of {s.total}, {state}  |  {watching}  |  {s.run_dir}"

    def on_draw(self) -> None:
        self.viewer.on_draw()
        w, h = self.viewer.draw_size
        cam = self._camera
        cam.viewport = LBWH(0, 0, w, h)
        cam.projection = LBWH(-w / 2, -h / 2, w, h)
        cam.position = (w / 2, h / 2)
        cam.use()
        if self.show_chart and not self.viewer.show_help and self.session.state != "champion":
            self.chart.draw()         # (a champion file has no run to chart)
        self.status = self._status_line()
        message = self.message if self.message and time.perf_counter() - self._message_at < MESSAGE_SECONDS else ""
        self._status_text.text = self.status
        self._status_text.position = (16, 48)
        self._message_text.text = message
        self._message_text.position = (16, 68)
        error = self.session.state == "failed" or message.startswith(("cannot", "no ", "evolution stopped"))
        self._message_text.color = ERROR_TEXT if error else STATUS_TEXT
        boxes = [(8, 44, self._status_text.content_width + 16, 20)]
        colors = [STATUS_BACK]
        if message:
            boxes.append((8, 64, self._message_text.content_width + 16, 20))
            colors.append(STATUS_BACK)
        active = {"pause": self.session.state in ("paused", "pausing"), "ghosts": self.mode == "ghosts",
                  "race": self.mode == "race", "help": self.viewer.show_help}
        for name, (x, y, bw, bh) in self.buttons.items():
            boxes.append((x, y, bw, bh))
            colors.append(BUTTON_ON if active.get(name) else BUTTON)
            t = self._button_texts[name]
            t.position = (x + bw // 2, y + bh // 2)
        if "pause" in self._button_texts:
            paused = self.session.state in ("paused", "pausing", "failed")
            self._button_texts["pause"].text = "P  resume" if paused else "P  pause"
        self._boxes.set(rects(boxes, colors))
        self._boxes.draw()
        self._batch.draw()

    # --- input ------------------------------------------------------------------------------------
    def on_update(self, delta_time: float) -> None:
        self._poll_clock += delta_time
        if self._poll_clock >= self.poll_interval:
            self._poll_clock = 0.0
            self.poll()
        self.viewer.on_update(delta_time)

    def on_resize(self, width: int, height: int) -> None:
        self.viewer.on_resize(width, height)
        self._layout()

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        k = arcade.key
        if symbol == k.G:
            if self.mode == "ghosts":
                self.show_generation(None, "live")
            else:
                self.show_ghosts()
        elif symbol == k.P:
            self.toggle_evolution()
        elif symbol == k.E:
            self.save_or_evolve()
        elif symbol == k.V:
            self.show_race()
        elif symbol == k.HOME:
            self.show_generation(1)
        elif symbol == k.END:
            self.show_generation(None, "live")
        elif symbol in (k.PAGEUP, k.PAGEDOWN):
            base = self.shown if self.mode in ("generation", "live") and self.shown else self.session.done
            self.show_generation(base + (-1 if symbol == k.PAGEUP else 1))
        elif symbol == k.C:
            self.show_chart = not self.show_chart
        elif symbol in (k.ESCAPE, k.Q) and not (symbol == k.ESCAPE and self.viewer.show_help):
            self.quit()
        else:
            self.viewer.on_key_press(symbol, modifiers)

    def on_key_release(self, symbol: int, modifiers: int) -> None:
        self.viewer.on_key_release(symbol, modifiers)

    def _button_at(self, x, y):
        for name, (bx, by, bw, bh) in self.buttons.items():
            if bx <= x <= bx + bw and by <= y <= by + bh:
                return name
        return None

    def on_mouse_press(self, x, y, button, modifiers) -> None:
        name = self._button_at(x, y)
        if name is not None:
            {"pause": self.toggle_evolution, "ghosts": lambda: self.on_key_press(arcade.key.G, 0),
             "race": self.show_race, "save": self.save_or_evolve, "evolve": self.save_or_evolve,
             "help": lambda: self.viewer.on_key_press(arcade.key.H, 0)}[name]()
            return
        if self.show_chart and self.session.state != "champion" and self.chart.contains(x, y) and self.session.done:
            gen = self.chart.generation_at(x, y)
            if gen is not None:      # on the charts or the bar (not the title or the labels)
                self._scrubbing = True
                self.chart.selected = gen

    def on_mouse_drag(self, x, y, dx, dy, buttons, modifiers) -> None:
        if self._scrubbing:
            gen = self.chart.generation_at(x, y, clamp=True)
            if gen is not None:
                self.chart.selected = gen
            return
        self.viewer.on_mouse_drag(x, y, dx, dy, buttons, modifiers)

    def on_mouse_release(self, x, y, button, modifiers) -> None:
        if self._scrubbing:
            self._scrubbing = False
            gen = self.chart.selected
            if gen is not None:
                self.show_generation(gen)

    def on_mouse_scroll(self, x, y, scroll_x, scroll_y) -> None:
        self.viewer.on_mouse_scroll(x, y, scroll_x, scroll_y)

"""The evolution screen of ``creatures play``: a run evolving in the background, watched live.

:class:`PlayView` is an ``arcade.View`` around a :class:`~render.game.Session` (built by the
``creatures`` package). It plays what the session hands over in a :class:`~render.viewer.Viewer`
(the same viewer as ``creatures watch``: its keys, HUD, brain and sensor panels all work) and
draws over it:

- the live fitness chart, the species stack and the generation scrubber
  (:class:`render.chart.Chart`), bottom right, growing each generation; its handle marks the
  generation whose champion is playing;
- a row of buttons (pause, ghosts, race, save, card, hall of fame, keys), bottom left, and above them the status
  line, what is on screen and how far the run is (``generation 12's champion, 15 of 15
  generations done, finished``), a line saying which keys do what now, and the last message.
  They are laid out clear of each other and of the chart (:mod:`render.layout`), and the
  viewer's own boxes keep clear of them (``Viewer.reserved``).

What is played, and what follows when it ends (a finished episode stays :data:`DONE_HOLD`
seconds, then something plays: the window never stays on DONE):

- ``live`` (the start, and END): the newest generation's champion as soon as its generation
  ends. When generations come faster than one can watch, a champion plays at least
  :data:`MIN_WATCH` seconds (or to its end), then the newest takes over, the ones between
  skipped (the status says so, and counts down while it waits). A champion that has played to
  its end while the next generation evolves plays again. Once the run has finished (and the
  newest champion has played), the tour begins;
- ``tour`` (T, and at the end of a run): the run's best champions in turn, each the one that
  beat every earlier generation's (at most :data:`TOUR_SIZE`, from the first generation to the
  best: :func:`tour_generations`), round and round, the chart's handle following;
- ``generation``: the champion of a generation picked on the scrubber (click or drag on the chart
  or the bar, HOME, PAGE UP/DOWN), again and again;
- ``ghosts`` (G): the whole generation being evaluated, every creature at once, coloured by
  species, ranked as they go (``Scene.crowd``); when it has played to its end and a newer
  generation is there, that one follows, else it plays again;
- ``race`` (V): generation 1's champion against the one shown, again and again.

Nothing here steps physics or evolves: the session owns the run (in another process) and the
sources; the view only decides what to play and when to ask (:meth:`Session.poll`, twice a
second).
"""

from __future__ import annotations

import math
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
from .text import Fonts
from .text import FONT
from .viewer import Viewer
from .widgets import Buttons, Toast

__all__ = ["PlayView", "PLAY_KEYS", "MIN_WATCH", "DONE_HOLD", "TOUR_SIZE", "tour_generations"]

#: seconds a live champion plays before a newer generation's champion may take over
MIN_WATCH = 4.0
#: seconds a finished episode stays on the screen (DONE) before what follows plays
DONE_HOLD = 1.5
#: at most this many champions in the tour of a finished run
TOUR_SIZE = 6
POLL_INTERVAL = 0.5
#: seconds a message (saved, paused...) stays on the status line
MESSAGE_SECONDS = 8.0
BUTTON = (46, 54, 70, 230)
BUTTON_ON = (214, 120, 36, 240)
BUTTON_TEXT = (240, 242, 248, 255)
#: a button that does nothing now (P once the run has finished): faded, its label too
BUTTON_OFF = (46, 54, 70, 110)
BUTTON_TEXT_OFF = (240, 242, 248, 120)
STATUS_BACK = (255, 255, 255, 190)
STATUS_TEXT = (22, 26, 34, 255)
HINT_TEXT = (52, 60, 76, 255)
ERROR_TEXT = (170, 24, 24, 255)
#: the bottom of the button row, its height; the text lines' height (pixels)
MARGIN, BUTTON_HEIGHT, LINE = 10, 28, 20

#: the buttons' labels in a window too narrow for the whole ones
SHORT_LABELS = {"race": "V  race", "hall": "B  hall", "evolve": "E  evolve"}
#: (keys, what they do) of the evolution screen, listed after the viewer's own in its help (H)
PLAY_KEYS = (
    ("G", "the whole generation as ghosts / its champion"),
    ("P", "pause / resume evolution"),
    ("E", "save the champion shown to a file (a champion: evolve its design)"),
    ("K", "save the champion shown as a share card (a PNG that holds it)"),
    ("B", "the hall of fame: boards of the challenges, your champion racing their entries"),
    ("V", "race generation 1's champion against the one shown"),
    ("T", "the run's best champions in turn (the tour)"),
    ("HOME / END", "generation 1 / the newest, live"),
    ("PAGE UP / DOWN", "an earlier / a later generation"),
    ("click the chart", "that generation's champion"),
    ("C", "chart on / off"),
)


def tour_generations(progress, size: int = TOUR_SIZE) -> list[int]:
    """The generations whose champions the tour plays: each whose best fitness beat every
    earlier generation's (the first always), at most ``size`` of them evenly picked, the first
    and the best kept; ascending."""
    gens = np.asarray(progress.generation, np.int64).reshape(-1)
    best = np.asarray(progress.best, np.float64).reshape(-1)[:gens.size]
    if gens.size == 0:
        return []
    best = np.where(np.isfinite(best), best, -np.inf)
    record = np.maximum.accumulate(best)
    beats = np.concatenate([[True], best[1:] > record[:-1]])
    picks = np.flatnonzero(beats)
    if picks.size > size:
        picks = picks[np.unique(np.round(np.linspace(0, picks.size - 1, max(size, 2))).astype(np.int64))]
    return [int(g) for g in gens[picks]]


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
    done_hold : float
        :data:`DONE_HOLD`.
    size : (int, int), optional
        The drawing size in pixels (offscreen); by default the window's, following it.

    Attributes
    ----------
    viewer : Viewer
        Plays the source shown (its keys and panels work as in ``creatures watch``).
    chart : Chart
    mode : str
        ``live``, ``tour``, ``generation``, ``ghosts``, ``race`` or ``champion`` (a champion
        file, no run).
    shown : int
        The generation whose champion (or ghosts) is played (0: none yet).
    tour : list of int
        The generations of the tour (:func:`tour_generations`), while ``mode`` is ``tour``.
    show_chart : bool
    status : str
        The status line as drawn: what is on screen, then the run (``generation 12's champion,
        15 of 15 generations done, finished | runs/...``), before it is cut to fit.
    hint : str
        The line under it: which keys do what now.
    message : str or None
        The last message (an error, what was saved, generations skipped), shown for
        :data:`MESSAGE_SECONDS`.
    boxes : dict of str -> rectangle
        Where the last frame drew the ``chart``, the ``buttons`` row and the ``status``,
        ``hint`` and ``message`` lines (left, bottom, width, height).
    buttons : render.widgets.Buttons
        The row of buttons: each one's rectangle by name (:meth:`button_rect`), and its label.
    """

    def __init__(self, session, window=None, on_quit=None, poll_interval: float = POLL_INTERVAL,
                 min_watch: float = MIN_WATCH, done_hold: float = DONE_HOLD, size=None, on_hall=None):
        super().__init__(window)
        self.session = session
        self.on_quit = on_quit
        self.on_hall = on_hall
        self.poll_interval = poll_interval
        self.min_watch = min_watch
        self.done_hold = done_hold
        self.mode = "champion" if session.state == "champion" else "live"
        self.shown = 0
        self.tour: list[int] = []
        self._tour_at = 0
        self.show_chart = True
        self.toast = Toast(MESSAGE_SECONDS, clock=time.perf_counter)   # the message line's
        self.status = self.hint = ""
        self.boxes = {}
        self._shown_at = time.perf_counter()
        self._done_at = None           # when the episode playing ended (None: it has not)
        self._replays = 0              # times the episode shown has played again
        self._poll_clock = 0.0
        self._scrubbing = False
        self._raced = 0
        self._tried_at = -1e9          # when the newest champion was last asked for
        self.viewer = Viewer(self._first_source(), window=self.window, close_on_quit=False, poll_interval=None,
                             extra_keys=PLAY_KEYS, hint=False, size=size)
        self.chart = Chart(self.window.ctx)
        self.chart.total = max(int(session.total), 1)
        self.chart.set_progress(session.progress())
        self._camera = Camera2D(window=self.window)
        self._boxes = Triangles(self.window.ctx)
        self._batch = pyglet.graphics.Batch()
        self._fonts = Fonts()
        self._lines = {name: arcade.Text("", 0, 0, color, 11 if name != "hint" else 10, font_name=FONT,
                                         batch=self._batch, anchor_y="bottom")
                       for name, color in (("status", STATUS_TEXT), ("hint", HINT_TEXT), ("message", STATUS_TEXT))}
        self.buttons = Buttons(self._batch, BUTTON_TEXT, 11, whole=math.floor)
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
        self._done_at = None
        self._replays = 0

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
        self.chart.selected = gen
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
        self.chart.selected = None
        self._play(source)
        return True

    def show_race(self) -> bool:
        """Generation 1's champion against the one shown (or the newest)."""
        s = self.session
        if s.done == 0:
            self.say("no generation has finished yet")
            return False
        other = self.shown if self._champion_shown() else s.done
        try:
            source = s.race([1, other] if other != 1 else [1, "last"])
        except GameError as exc:
            self.say(str(exc))
            return False
        self.mode = "race"
        self._raced = other
        self._play(source)
        return True

    def start_tour(self, first: int = 0) -> bool:
        """Play the run's best champions in turn (:func:`tour_generations`), from the
        ``first``-th."""
        if self.session.state == "champion" or self.session.done == 0:
            self.say("no generation has finished yet" if self.session.state != "champion"
                     else "a champion file has no run: E evolves its design in one")
            return False
        tour = tour_generations(self.session.progress())
        if not tour:
            return False
        self.tour, self._tour_at = tour, first % len(tour)
        return self.show_generation(tour[self._tour_at], "tour")

    def _champion_shown(self) -> bool:
        return self.mode in ("generation", "live", "tour") and self.shown > 0

    @property
    def message(self) -> str | None:
        """The last message (an error, what was saved, generations skipped), shown for
        :data:`MESSAGE_SECONDS` on the message line."""
        return self.toast.text

    def say(self, message: str) -> None:
        self.toast.say(message)

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
            self.say(f"saved {s.save(self.shown if self._champion_shown() else None)}")
        except GameError as exc:
            self.say(str(exc))

    def poll(self) -> None:
        """Ask the session what changed (the chart follows)."""
        s = self.session
        if s.poll():
            self.chart.total = max(int(s.total), s.done, 1)
            self.chart.set_progress(s.progress())
            if s.message:
                self.say(s.message)
                s.message = None

    def follow(self) -> None:
        """What plays next, every frame: the newest generation when live (skipping those that
        came while the one shown played its :attr:`min_watch` seconds), and when an episode has
        stayed :attr:`done_hold` seconds on its end, the next of the tour, the tour itself (a
        finished run), a newer generation's ghosts, or the same again."""
        s, now = self.session, time.perf_counter()
        if self.viewer.frame.done:
            if self._done_at is None:
                self._done_at = now
        held = self._done_at is not None and now - self._done_at >= self.done_hold
        if self.viewer.paused or now - self._tried_at < self.poll_interval:
            return       # paused by the player (SPACE); or a champion that did not load, tried again soon
        if self.mode == "live" and s.done > self.shown:
            if self.shown == 0 or held or now - self._shown_at >= self.min_watch:
                self._tried_at = now
                before = self.shown
                if self.show_generation(None, "live") and before and self.shown - before > 1:
                    # short enough for the status line of the smallest window (no "... (PAGE UP/...")
                    self.say(f"skipped to generation {self.shown}: {before + 1}-{self.shown - 1} came too fast "
                             f"(PAGE UP/DOWN shows them)")
            return
        if not held:
            return
        if self.mode == "live" and s.state == "finished":
            self.start_tour(0)
        elif self.mode == "tour":
            if not self.start_tour(self._tour_at + 1):
                self._again()
        elif self.mode == "ghosts" and s.done + 1 > self.shown:
            if not self.show_ghosts():
                self._again()
        else:
            self._again()

    def _again(self) -> None:
        self.viewer.restart()
        self._done_at = None
        self._replays += 1

    def quit(self) -> None:
        if self.on_quit is not None:
            self.on_quit()
        else:
            self.window.close()

    # --- what the lines say -----------------------------------------------------------------------
    def _watching(self, short: bool = False) -> str:
        """What is on screen (``short``: in fewer words, for a narrow window)."""
        s, g = self.session, self.shown
        gen = "gen" if short else "generation"
        if s.state == "champion":
            return s.title if short else f"{s.title}: a champion file"
        if self.mode == "live":
            if not g:
                return f"waiting for {gen} 1"
            if s.done > g:          # generations came faster than it could be watched
                wait = self.min_watch - (time.perf_counter() - self._shown_at)
                when = f", in {wait:.0f} s" if wait >= 0.5 and self._done_at is None else ""
                return f"{gen} {g}'s champion (next: {gen} {s.done}{when})"
            again = " again" if self._replays else ""
            after = {"evolving": f", playing{again} while generation {g + 1} evolves",
                     "starting": f", playing{again} while generation {g + 1} evolves"}.get(s.state, again)
            return f"{gen} {g}'s champion, the newest{'' if short else after}"
        if self.mode == "tour":
            n = len(self.tour)
            return (f"{gen} {g}'s champion (best {self._tour_at + 1} of {n})" if short else
                    f"generation {g}'s champion ({self._tour_at + 1} of the run's {n} best, in turn)")
        if self.mode == "generation":
            return f"{gen} {g}'s champion"
        if self.mode == "ghosts":
            n = len(self.viewer.scene.creatures)
            being = "" if short or g <= s.done else (
                " being evaluated" if s.state in ("evolving", "starting") else " (bred, not evaluated by the run)")
            return f"{gen} {g}{being}: all {n} {'' if short else 'creatures '}at once"
        if self.mode == "race":
            return (f"race: gen 1 against gen {self._raced}" if short else
                    f"a race: generation 1's champion against generation {self._raced}'s")
        return ""

    def status_lines(self) -> list[str]:
        """The status line, longest first: what is on screen, how far the run is and where it
        is; without where; both in fewer words. The first that fits is drawn."""
        s = self.session
        if s.state == "champion":
            return [self._watching(), self._watching(short=True)]
        state = {"failed": "stopped"}.get(s.state, s.state)
        run = f"{s.done} of {s.total} generations done, {state}"
        long = f"{self._watching()}  |  {run}"
        return [long + (f"  |  {s.run_dir}" if s.run_dir else ""), long,
                f"{self._watching(short=True)}  |  {s.done}/{s.total} done, {state}"]

    def status_line(self) -> str:
        """The status line in full (what is drawn is the longest of :meth:`status_lines` that fits)."""
        return self.status_lines()[0]

    @property
    def replays(self) -> int:
        """How many times the episode shown has played again (a finished run's champions, or the
        newest while the next generation evolves)."""
        return self._replays

    def drawn_line(self, name: str) -> str:
        """The text drawn now on the ``status``, ``hint`` or ``message`` line (cut to fit)."""
        return self._lines[name].text

    def save_card(self) -> None:
        """Save the champion shown (a champion file's own) as a share card."""
        s = self.session
        try:
            if s.state != "champion" and not s.done:
                raise GameError("no generation has finished yet: no champion to make a card of")
            self.say(f"saved the card {s.save_card(self.shown if self._champion_shown() else None)}")
        except GameError as exc:
            self.say(str(exc))

    def open_hall(self) -> None:
        """``on_hall()``: the hall of fame."""
        if self.on_hall is None:
            self.say("no hall of fame here")
        else:
            self.on_hall()

    def hint_line(self) -> str:
        """Which keys do what now."""
        s = self.session
        if s.state == "champion":
            return "E: evolve its design further in a new run   R: again   H: all keys"
        if not s.done:
            return "P: pause   H: all keys"
        keys = {"live": "PAGE UP/DOWN: another generation   G: all at once   V: race gen 1   T: the best in turn",
                "tour": "PAGE UP/DOWN: another generation   END: the newest   E: save it   V: race gen 1",
                "generation": "END: the newest   PAGE UP/DOWN: another   E: save it   T: the best in turn",
                "ghosts": "G: back to the champion   TAB: one for the panels   T: the best in turn",
                "race": "END: the newest   R: again   T: the best in turn"}[self.mode]
        pause = {"evolving": "P: pause   ", "starting": "P: pause   ", "paused": "P: go on   ",
                 "failed": "P: try again   "}.get(s.state, "")
        return f"{keys}   {pause}H: all keys"

    def _fits(self, text: str, width: float, size: int) -> bool:
        return self._fit(text, width, size) == text

    def _fit(self, text: str, width: float, size: int) -> str:
        """``text`` cut to ``width`` (remembered: the same lines come every frame)."""
        return self._fonts.fit_remembered(text, width, size, 20.0)

    # --- layout and drawing -----------------------------------------------------------------------
    def _layout(self) -> None:
        """The buttons left to right along the bottom; the chart bottom right (over the buttons'
        row when they reach under it); the text lines left of the chart."""
        w, h = self.viewer.draw_size
        names = [("pause", self._pause_label()), ("ghosts", "G  ghosts"), ("race", "V  race gen 1"),
                 ("save", "E  save"), ("card", "K  card"), ("hall", "B  hall of fame"), ("help", "H  keys")]
        if self.session.state == "champion":
            names = [("evolve", "E  evolve it further"), ("card", "K  card"), ("hall", "B  hall of fame"),
                     ("help", "H  keys")]
        buttons, off = self.buttons, self._buttons_off()
        for short in (False, True):     # in a narrow window, the short labels (the keys say the rest)
            x = MARGIN
            buttons.clear()
            for name, label in names:
                label = SHORT_LABELS.get(name, label) if short else label
                bw = max(int(buttons.label(name, label).content_width) + 22, 70)     # as wide as its label
                buttons.place(name, (x, MARGIN, bw, BUTTON_HEIGHT))
                buttons.set_color(name, BUTTON_TEXT_OFF if name in off else BUTTON_TEXT)
                x += bw + 8
            if x - 8 <= w - MARGIN:
                break
        buttons.hide_unplaced()
        self._buttons_right = x - 8
        cw, ch = int(min(470, 0.4 * w)), int(min(300, 0.44 * h))
        above = MARGIN + BUTTON_HEIGHT + 8
        bottom = MARGIN if self._buttons_right + 10 <= w - cw - MARGIN else above
        self._chart_box = (w - cw - MARGIN, bottom, cw, max(min(ch, h - bottom - 60), 40))
        self.chart.layout(*self._chart_box)

    def _pause_label(self) -> str:
        """The P button's label: what pressing it does now; once the run has finished, nothing
        (the button is faded and says so)."""
        state = self.session.state
        if state == "finished":
            return "finished"
        return "P  resume" if state in ("paused", "pausing", "failed") else "P  pause"

    def _buttons_off(self) -> set:
        """The buttons that do nothing now (drawn faded)."""
        return {"pause"} if self.session.state == "finished" else set()

    def button_rect(self, name: str) -> tuple:
        """``(left, bottom, width, height)`` of a button: ``pause``, ``ghosts``, ``race``,
        ``save``, ``card``, ``hall``, ``help`` (``evolve``, ``card``, ``hall``, ``help`` for a
        champion)."""
        return self.buttons[name]

    def _chart_shown(self) -> bool:     # (a champion file has no run to chart)
        return self.show_chart and not self.viewer.show_help and self.session.state != "champion"

    def _place_lines(self) -> None:
        """The status, hint and message lines, bottom up over the buttons, cut to end before
        the chart; :attr:`boxes` and the viewer's ``reserved`` follow."""
        w, h = self.viewer.draw_size
        chart = self._chart_box if self._chart_shown() else None
        right = (chart[0] if chart else w) - 8
        message = self.toast.current()
        self.hint = self.hint_line()
        error = self.session.state == "failed" or message.startswith(("cannot", "no ", "evolution stopped"))
        colour = ERROR_TEXT if error else STATUS_TEXT
        if tuple(self._lines["message"].color) != colour:
            self._lines["message"].color = colour
        y = MARGIN + BUTTON_HEIGHT + 6
        self.boxes = {"buttons": (MARGIN - 2, MARGIN - 2, self._buttons_right - MARGIN + 4, BUTTON_HEIGHT + 4)}
        if chart:
            self.boxes["chart"] = chart
        options = self.status_lines()
        self.status = options[0]
        room = right - 16 - 16
        status = next((o for o in options if self._fits(o, room, 11)), options[-1])
        for name, text in (("status", status), ("hint", self.hint), ("message", message)):
            t = self._lines[name]
            fitted = self._fit(text, room, int(t.font_size)) if text else ""
            if t.text != fitted:
                t.text = fitted
            t.visible = bool(fitted)
            if fitted:
                if (t.x, t.y) != (16, y + 4):     # moving a text lays it out again: only when it moves
                    t.position = (16, y + 4)
                self.boxes[name] = (8, y, t.content_width + 16, LINE)
                y += LINE
        self.viewer.reserved = list(self.boxes.values())

    def on_draw(self) -> None:
        if "pause" in self.buttons and self.buttons.texts["pause"].text != self._pause_label():
            self._layout()      # the button's width follows its label, and the chart the buttons
        self._place_lines()
        self.viewer.on_draw()
        w, h = self.viewer.draw_size
        cam = self._camera
        cam.viewport = LBWH(0, 0, w, h)
        cam.projection = LBWH(-w / 2, -h / 2, w, h)
        cam.position = (w / 2, h / 2)
        cam.use()
        if self._chart_shown():
            self.chart.draw()
        boxes = [self.boxes[n] for n in ("status", "hint", "message") if n in self.boxes]
        colors = [STATUS_BACK] * len(boxes)
        active = {"pause": self.session.state in ("paused", "pausing"), "ghosts": self.mode == "ghosts",
                  "race": self.mode == "race", "help": self.viewer.show_help}
        off = self._buttons_off()
        self.buttons.backs(boxes, colors,
                           lambda name: BUTTON_OFF if name in off else BUTTON_ON if active.get(name) else BUTTON)
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
        self.follow()

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
        elif symbol == k.K:
            self.save_card()
        elif symbol == k.B:
            self.open_hall()
        elif symbol == k.V:
            self.show_race()
        elif symbol == k.T:
            self.start_tour()
        elif symbol == k.HOME:
            self.show_generation(1)
        elif symbol == k.END:
            self.show_generation(None, "live")
        elif symbol in (k.PAGEUP, k.PAGEDOWN):
            base = self.shown if self._champion_shown() else self.session.done
            self.show_generation(base + (-1 if symbol == k.PAGEUP else 1))
        elif symbol == k.C:
            self.show_chart = not self.show_chart
        elif symbol in (k.ESCAPE, k.Q) and not (symbol == k.ESCAPE and self.viewer.show_help):
            self.quit()
        else:
            if symbol == k.R:
                self._done_at = None
            self.viewer.on_key_press(symbol, modifiers)

    def on_key_release(self, symbol: int, modifiers: int) -> None:
        self.viewer.on_key_release(symbol, modifiers)

    def on_mouse_press(self, x, y, button, modifiers) -> None:
        name = self.buttons.at(x, y)
        if name is not None:
            {"pause": self.toggle_evolution, "ghosts": lambda: self.on_key_press(arcade.key.G, 0),
             "race": self.show_race, "save": self.save_or_evolve, "evolve": self.save_or_evolve,
             "card": self.save_card, "hall": self.open_hall,
             "help": lambda: self.viewer.on_key_press(arcade.key.H, 0)}[name]()
            return
        if self._chart_shown() and self.chart.contains(x, y) and self.session.done:
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

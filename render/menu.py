"""The start screen of ``creatures play``: pick a creature, a task and a terrain, then evolve it.

:class:`StartView` is an ``arcade.View`` drawing a :class:`~render.game.Menu`:

- the **gallery**: one card per design (``menu.designs``) in a grid, each with the creature in
  its rest pose (scaled to fit the card), its title, the start of its description and, for a
  design file, where it came from. A design that does not load is greyed and shows its problem;
  it cannot be started. The selected card is framed in blue. The gallery scrolls when the cards
  do not fit;
- the **settings panel** on the right: task, terrain, medium and sensors (each with its
  one-line description), the body (fixed, or grown by evolution: ``Setup.grow``, W),
  population, generations, the episode's seconds, the trials (the starts
  each creature is scored from: 1, 2, 4, 8), the start noise (how far each start moves every
  sphere: the exact start, 0.1 mm, 1 mm, 1 cm) and the seed, each with ``<`` ``>`` buttons, and
  the **Start** button; in a short window the rows close up (the label beside its buttons, no
  descriptions);
- the header with **Open a file** (a one-line entry for the path of a design file, or of a
  champion file or card: that one is watched, and can be evolved further), **Hall of fame**
  (``on_hall``: boards of the challenges) and **Keys**.

Choosing a design made for a task (``GalleryItem.task``: the eel swims) picks that task (and
its own medium). A card that always grows (``GalleryItem.grow``: *grow from scratch*) starts
with ``setup.grow`` on whatever the toggle says; the toggle is left as it is for the other
cards. Start
calls ``menu.start(setup)`` and hands the session to ``on_start``; a
:class:`~render.game.GameError` is shown in a red box instead, and nothing else happens.

Keys are listed in :data:`KEYS` (the help overlay, H, shows them); every key has a button or a
click too. Design files, champion files and cards dropped on the window are opened like typed
ones (when the window was made with ``file_drops=True``).

The view holds what is chosen and handles the input; where everything goes and how it is drawn
is its :class:`~render.menu_picture.StartPicture` (``picture``), which reads the view's state and
builds its geometry only when something changed, never per frame. The layout is in window units
(the mouse's).
"""

from __future__ import annotations

import dataclasses
import time

from ._display import prefer_headless

prefer_headless()

import arcade  # noqa: E402

from .game import GameError  # noqa: E402
from .menu_picture import BUTTONS, PAD, StartPicture, noise_text, trials_text  # noqa: E402
from .overlay import KeyHelp  # noqa: E402
from .parts import part_property  # noqa: E402
from .text import inside as _inside, one_line as _one_line  # noqa: E402
from .theme import SKY  # noqa: E402
from .widgets import TextEntry  # noqa: E402

__all__ = ["StartView", "KEYS", "BUTTONS", "nice_values", "doubling_values", "step_value", "noise_text",
           "trials_text"]

# input --------------------------------------------------------------------------------------------
SCROLL_STEP = 60                # per wheel notch
DOUBLE_CLICK = 0.4              # seconds between two clicks on a card that start it

#: values population and generations step through (1, 1.5, 2, 3, 5, 7.5 times a power of ten),
#: within the menu's ranges
MANTISSAS = (1.0, 1.5, 2.0, 3.0, 5.0, 7.5)
SEED_RANGE = (0, 2**31 - 1)

#: (keys, what they do): the help overlay
KEYS = (
    ("arrows, click", "choose a creature"),
    ("ENTER, double-click", "start evolving it"),
    ("T / SHIFT+T", "next / previous task"),
    ("G / SHIFT+G", "next / previous terrain"),
    ("M / SHIFT+M", "next / previous medium (none, water, air)"),
    ("I / SHIFT+I", "next / previous sensors (the brain's inputs)"),
    ("W", "the body grows (evolution adds and removes its parts) or stays fixed"),
    ("+ / -", "more / fewer creatures (population)"),
    ("] / [", "more / fewer generations"),
    ("E / SHIFT+E", "longer / shorter episodes (simulated seconds)"),
    ("R / SHIFT+R", "more / fewer trials (starts each creature is scored from)"),
    ("N / SHIFT+N", "more / less start noise (how far each start moves the spheres)"),
    ("S / SHIFT+S", "next / previous seed"),
    ("O", "open a design, champion file or card (ENTER opens, ESC cancels)"),
    ("B", "the hall of fame: boards of the challenges"),
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


def doubling_values(low: int, high: int) -> list[int]:
    """``low``, twice it, four times... up to ``high`` (both included): 1, 2, 4, 8 for the
    trials."""
    low, high = max(int(low), 1), int(high)
    out = {low, high} if low <= high else set()
    v = low
    while v <= high:
        out.add(v)
        v *= 2
    return sorted(out)


def step_value(value: int, values: list[int], direction: int) -> int:
    """The next of ``values`` (sorted) above ``value`` (``direction`` > 0) or below it; the last
    or first value when there is none. A value between two steps goes to the nearer one on that
    side, so a number from the command line (137) joins the steps (150 up, 100 down)."""
    if not values:
        return int(value)
    if direction > 0:
        return next((v for v in values if v > value), values[-1])
    return next((v for v in reversed(values) if v < value), values[0])


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
        card's ``name``. ``terrain`` is None for the task's own. ``grow`` is the toggle (W), for
        every card but one that always grows (:attr:`growing` says what Start does).
    message : str or None
        The one line shown in the red box (a design's problem, why start or open failed).
    entry : render.widgets.TextEntry
        The file entry: what is typed, and whether it is open.
    entry_text : str or None
        The path being typed in the file entry (``entry.text``); None while the entry is closed.
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
    picture : StartPicture
        The screen's layout and drawing (:mod:`render.menu_picture`): it reads the attributes
        above; the view hit-tests against its layout and tells it what changed.
    help : KeyHelp
        The help overlay listing :data:`KEYS` (the picture lays it out and draws it).

    Notes
    -----
    Tests and the game driver click through the real handlers at the centre of
    :meth:`card_rect` or :meth:`button_rect`; the actions behind the keys and buttons are public
    methods too (:meth:`select`, :meth:`move`, :meth:`cycle_task`, :meth:`cycle_terrain`,
    :meth:`step_population`, :meth:`step_generations`, :meth:`step_seconds`, :meth:`step_trials`,
    :meth:`step_noise`, :meth:`step_seed`, :meth:`toggle_grow`, :meth:`start`,
    :meth:`open_entry`, :meth:`submit_entry`, :meth:`open_path`, :meth:`scroll_by`,
    :meth:`quit`). :meth:`draw_menu` draws into whichever framebuffer is in use (offscreen
    measurement).
    """

    def __init__(self, menu, on_start, window=None, on_quit=None, *, size=None, on_hall=None):
        super().__init__(window)
        self.menu = menu
        self.on_start = on_start
        self.on_hall = on_hall
        self.on_quit = on_quit
        self._fixed_size = size is not None
        self.draw_size = self._window_size() if size is None else (int(size[0]), int(size[1]))
        self._pixels = (self.window.get_framebuffer_size() if size is None
                        else (int(size[0]), int(size[1])))
        self.designs = list(menu.designs)
        self.setup = dataclasses.replace(menu.setup)
        self.message = None
        self.entry = TextEntry()
        self.show_help = False
        self.scroll = 0.0
        self.session = None
        self.quit_requested = False
        self._pressed = None            # what the mouse button went down on
        self._last_click = (None, -1.0)  # (card, time) of the last click on a card
        names = [d.name for d in self.designs]
        self.selected = names.index(self.setup.design) if self.setup.design in names else 0
        if self.designs:
            self.setup.design = self.designs[self.selected].name
            self.message = self._problem_line(self.designs[self.selected])
        self.ctx = self.window.ctx
        self.help = KeyHelp(self.ctx, KEYS)
        self.picture = StartPicture(self)

    entry_text = part_property("entry", "text", "The path being typed (None: the entry is closed).", settable=True)

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

    @property
    def growing(self) -> bool:
        """Whether Start evolves a body that grows: the toggle (``setup.grow``), or a card that
        always grows (*grow from scratch*)."""
        item = self.item
        return bool(self.setup.grow or (item is not None and item.grow))

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
        self.picture.selection_changed()

    def move(self, dx: int, dy: int) -> None:
        """Move the selection ``dx`` cards right and ``dy`` rows down (arrows)."""
        if not self.designs:
            return
        self.picture.ensure_layout()
        i = self.selected + dx + dy * self.picture.columns
        if dy and not 0 <= i < len(self.designs):
            i = self.selected if i < 0 else len(self.designs) - 1
        self.select(i)

    def cycle_task(self, step: int = 1) -> None:
        """The next (``step`` 1) or previous (-1) task, going round."""
        self.setup.task = self._cycle(self.menu.tasks, self.task_index, step) or self.setup.task
        self.picture.settings_changed()

    def cycle_terrain(self, step: int = 1) -> None:
        """The next or previous terrain, going round (``""``, the task's own, is None)."""
        self.cycle("terrain", step)

    def cycle(self, name: str, step: int = 1) -> None:
        """The next or previous ``terrain``, ``medium`` or ``sensors``, going round (``""``, the
        first, is None)."""
        picks = {"terrain": self.menu.terrains, "medium": self.menu.media, "sensors": self.menu.sensors}[name]
        if picks:
            setattr(self.setup, name, self._cycle(picks, self.pick_index(name), step) or None)
        self.picture.settings_changed()

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
        self.picture.settings_changed()

    def step_generations(self, direction: int) -> None:
        """Up or down one step within ``menu.generations_range``."""
        self.setup.generations = step_value(self.setup.generations,
                                            nice_values(*self.menu.generations_range), direction)
        self.picture.settings_changed()

    def step_seconds(self, direction: int) -> None:
        """Longer or shorter episodes, one step within ``menu.seconds_range``."""
        self.setup.seconds = step_value(self.setup.seconds, nice_values(*self.menu.seconds_range), direction)
        self.picture.settings_changed()

    def step_trials(self, direction: int) -> None:
        """More or fewer trials (starts each creature is scored from), doubling or halving
        within ``menu.trials_range`` (:func:`doubling_values`)."""
        self.setup.trials = step_value(self.setup.trials, doubling_values(*self.menu.trials_range), direction)
        self.picture.settings_changed()

    def step_noise(self, direction: int) -> None:
        """More or less start noise: the next or previous of ``menu.noise_values`` (metres)."""
        values = sorted(float(v) for v in self.menu.noise_values)
        if values:
            self.setup.noise = float(step_value(float(self.setup.noise), values, direction))
        self.picture.settings_changed()

    def toggle_grow(self) -> None:
        """Switch growth on or off (``setup.grow``) for the designs picked; a card that always
        grows (*grow from scratch*) keeps growing, and says so."""
        item = self.item
        if item is not None and item.grow:
            self.message = f"{item.title} always grows: W is for the other designs"
            return
        self.setup.grow = not self.setup.grow
        self.picture.settings_changed()

    def step_seed(self, direction: int) -> None:
        """The next or previous seed (from 0)."""
        self.setup.seed = int(min(max(int(self.setup.seed) + (1 if direction > 0 else -1),
                                      SEED_RANGE[0]), SEED_RANGE[1]))
        self.picture.settings_changed()

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
        setup = dataclasses.replace(self.setup, design=item.name, grow=self.growing)
        try:
            session = self.menu.start(setup)
        except GameError as e:
            self.message = _one_line(e) or "evolution could not start"
            return None
        self.message = None
        self.session = session
        self.on_start(session)
        return session

    def open_entry(self, skip=()) -> None:
        """Open the file entry (empty); ``skip``: the texts of the key that opened it (the O key's
        own text follows it and is not typed)."""
        self.entry.open("", skip=skip)
        self.show_help = False

    def cancel_entry(self) -> None:
        """Close the file entry without opening anything."""
        self.entry.close()

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
            self.entry.close()
        return item

    def open_path(self, path: str):
        """``menu.open(path)``; the item joins :attr:`designs` (unless the menu already has it)
        and is selected. A champion file or a card (``.json``, ``.png``) is opened with
        ``menu.open_champion`` and handed to ``on_start`` (watched). A :class:`GameError` only
        sets :attr:`message`. Returns the item (or session) or None."""
        if str(path).strip().lower().endswith((".json", ".png")):
            try:
                session = self.menu.open_champion(str(path).strip())
            except GameError as e:
                self.message = _one_line(e) or f"cannot open {path}"
                return None
            self.message = None
            self.session = session
            self.on_start(session)
            return session
        try:
            item = self.menu.open(str(path))
        except GameError as e:
            self.message = _one_line(e) or f"cannot open {path}"
            return None
        designs = list(self.menu.designs)
        if not any(d is item for d in designs):
            designs.append(item)
        self.designs = designs
        self.picture.designs_changed()
        self.select(next(i for i, d in enumerate(designs) if d is item))
        return item

    def open_hall(self) -> None:
        """``on_hall()``: the hall of fame (nothing when the screen has none)."""
        if self.on_hall is not None:
            self.on_hall()
        else:
            self.message = "no hall of fame here"

    def quit(self) -> None:
        """``on_quit()``, or close the window."""
        self.quit_requested = True
        if self.on_quit is not None:
            self.on_quit()
        else:
            self.window.close()

    def scroll_by(self, dy: float) -> None:
        """Scroll the gallery ``dy`` window units down (negative: up), within its content."""
        self.picture.ensure_layout()
        self.scroll = float(min(max(self.scroll + dy, 0.0), self.picture.max_scroll))

    def reveal(self, index: int) -> None:
        """Scroll so that card ``index`` is wholly in view (as far as the gallery's height allows)."""
        p = self.picture
        p.ensure_layout()
        if not 0 <= index < len(p.cards):
            return
        _, b, _, h = p.cards[index]
        top, bottom = p.gallery[1] + p.gallery[3] - PAD, PAD
        if b + h + self.scroll > top:
            self.scroll = top - (b + h)
        if b + self.scroll < bottom:
            self.scroll = bottom - b
        self.scroll = float(min(max(self.scroll, 0.0), p.max_scroll))

    # where things are (the picture's layout) ---------------------------------------------------
    def _window_size(self) -> tuple[int, int]:
        return tuple(int(v) for v in self.window.get_size())

    @property
    def columns(self) -> int:
        """Cards in a row of the gallery (the arrows move up and down by this many)."""
        self.picture.ensure_layout()
        return self.picture.columns

    @property
    def max_scroll(self) -> float:
        """How far the gallery scrolls (0: every card is in view)."""
        self.picture.ensure_layout()
        return self.picture.max_scroll

    def card_rect(self, i: int) -> tuple[float, float, float, float]:
        """Card ``i`` as (left, bottom, width, height) in window units, where it is on the
        screen now (scrolled; it may be partly or wholly out of view)."""
        self.picture.ensure_layout()
        l, b, w, h = self.picture.cards[i]
        return (l, b + self.scroll, w, h)

    def button_rect(self, name: str) -> tuple[float, float, float, float]:
        """A button as (left, bottom, width, height) in window units: ``start``, ``open``,
        ``help``, ``task<``, ``task>``, ``terrain<``... ``seed>`` (:data:`BUTTONS`), and while the
        entry is open ``entry-open`` and ``entry-cancel``."""
        p = self.picture
        p.ensure_layout()
        rect = p.buttons.get(name) or p.entry_buttons.get(name)
        if rect is None:
            raise KeyError(f"no button {name!r}; there are {', '.join(BUTTONS)}")
        return rect

    # drawing -----------------------------------------------------------------------------------
    def on_draw(self) -> None:
        self.window.ctx.screen.use()
        self.clear(color=SKY)
        self.draw_menu()

    def draw_menu(self) -> None:
        """Draw the screen into the framebuffer in use (the window's, or an offscreen one)."""
        self.picture.draw(self._pixels)

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
        p = self.picture
        p.ensure_layout()
        if self.entry_text is not None:
            name = p.entry_buttons.at(x, y)
            if name is not None:
                return ("button", name)
            return ("entry", None) if _inside(p.entry_box, x, y) else None
        name = p.buttons.at(x, y)
        if name is not None:
            return ("button", name)
        if _inside(p.gallery, x, y):
            for i, (l, b, w, h) in enumerate(p.cards):
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
        elif what == "hall":
            self.open_hall()
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
             "seconds": self.step_seconds, "trials": self.step_trials, "noise": self.step_noise,
             "seed": self.step_seed, "grow": lambda d: self.toggle_grow()}[name](direction)

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
            self.open_entry(skip=("o", "O"))
        elif symbol == k.B:
            self.open_hall()
        elif symbol in (k.LEFT, k.RIGHT, k.UP, k.DOWN):
            self.move((symbol == k.RIGHT) - (symbol == k.LEFT), (symbol == k.DOWN) - (symbol == k.UP))
        elif symbol == k.HOME:
            self.select(0)
        elif symbol == k.END:
            self.select(len(self.designs) - 1)
        elif symbol in (k.PAGEUP, k.PAGEDOWN):
            page = self.picture.gallery[3] - 2 * PAD if self.picture.laid_out else SCROLL_STEP
            self.scroll_by(page if symbol == k.PAGEDOWN else -page)
        else:
            action = {k.T: lambda: self.cycle_task(back), k.G: lambda: self.cycle_terrain(back),
                      k.S: lambda: self.step_seed(back), k.E: lambda: self.step_seconds(back),
                      k.R: lambda: self.step_trials(back), k.N: lambda: self.step_noise(back),
                      k.M: lambda: self.cycle("medium", back), k.I: lambda: self.cycle("sensors", back),
                      k.W: self.toggle_grow,
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
            self.entry.backspace()

    def on_text(self, text: str) -> None:
        """Typing into the file entry (control characters are dropped)."""
        self.entry.type(text)

    def on_file_drop(self, x, y, paths) -> None:
        """Design files dropped on the window are opened (the last one selected)."""
        for path in paths:
            self.open_path(path)

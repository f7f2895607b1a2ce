"""The editor's live test (:class:`LiveTestView`): the design played by a
:class:`~render.viewer.Viewer` (``doc.live_source(terrain)``: the design on a sine wave), with a
bar saying on which terrain and how to go back. Its keys are the viewer's, but T and ESC go back
to editing, R takes the next terrain, E evolves, H shows the editor's keys, Q quits."""

from __future__ import annotations

from ._display import prefer_headless

prefer_headless()

import arcade  # noqa: E402
import pyglet  # noqa: E402

from ._gl import Triangles, rects  # noqa: E402
from .editor_layout import PAD, set_text  # noqa: E402
from .editor_theme import MESSAGE_BACK, MESSAGE_TEXT  # noqa: E402
from .game import GameError  # noqa: E402
from .text import FONT  # noqa: E402
from .viewer import Viewer  # noqa: E402

__all__ = ["LiveTestView"]


class LiveTestView(arcade.View):
    """The live test's view: the viewer playing the design, its input, and the bar.

    The editor's window keeps showing the editor (:class:`render.editor.EditorView`), which hands
    this view the frame's update, the keys and the mouse while the live test plays, and draws it
    (:meth:`draw_scene`, then its toolbar, then :meth:`draw_bar`): the toolbar, the messages and
    the help stay the editor's in both modes.

    Parameters
    ----------
    layout : EditorLayout
        The editor's layout (``render.editor_layout``).
    back : callable
        Called without arguments for T or ESC (the viewer's help closes first): back to editing.
    keys : dict of int -> callable
        The editor's keys that work during the live test too (R, E, H, Q), each called without
        arguments; any other key is the viewer's.
    window : arcade.Window, optional

    Attributes
    ----------
    viewer : Viewer or None
        The viewer (made at the first :meth:`play`, reused after).
    terrain : str
        The terrain played (a ``Pick.name`` of ``doc.terrains``; ``""``: flat).
    """

    def __init__(self, layout, *, back, keys, window=None):
        super().__init__(window)
        self.layout = layout
        self.back = back
        self.keys = dict(keys)
        self.viewer = None
        self.terrain = ""
        self.batch = pyglet.graphics.Batch()
        self.box = Triangles(self.window.ctx)
        self.text = arcade.Text("", 0, 0, MESSAGE_TEXT, 10, font_name=FONT, anchor_y="center", batch=self.batch)
        self._key = None

    @staticmethod
    def terrains(doc) -> list:
        """The terrains to choose from (``doc.terrains``)."""
        return list(getattr(doc, "terrains", None) or [])

    def start(self, doc, size):
        """Play ``doc.live_source(terrain)`` in a view of ``size`` pixels; returns why it cannot
        (a :class:`GameError`'s message), or None."""
        try:
            source = doc.live_source(self.terrain)
        except GameError as e:
            return str(e)
        self.play(source, size)
        return None

    def next_terrain(self, doc, playing: bool, size) -> tuple:
        """The next of ``doc.terrains`` (played again from the start if ``playing``): returns
        the line to show and whether it is an error."""
        picks = self.terrains(doc)
        if not picks:
            return "no terrains to choose from", False
        names = [p.name for p in picks]
        i = names.index(self.terrain) if self.terrain in names else -1
        pick = picks[(i + 1) % len(picks)]
        self.terrain = pick.name
        if playing:
            try:
                self.play(doc.live_source(self.terrain), size)
            except GameError as e:
                return str(e), True
        return f"terrain: {pick.shown}", False

    def play(self, source, size) -> None:
        """Play ``source`` (from its start) in a view of ``size`` pixels."""
        if self.viewer is None:
            self.viewer = Viewer(source, window=self.window, size=size, close_on_quit=False,
                                 poll_interval=None, hint=False)
        else:
            self.viewer.set_source(source)

    def resize(self, size) -> None:
        if self.viewer is not None:
            self.viewer.resize(size)

    @property
    def background(self):
        """The colour a frame is cleared with (the viewer's)."""
        return self.viewer.background

    # input -------------------------------------------------------------------------------------
    def on_update(self, delta_time: float) -> None:
        self.viewer.on_update(delta_time)

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        k = arcade.key
        if symbol in (k.T, k.ESCAPE):
            if symbol == k.ESCAPE and self.viewer.show_help:
                self.viewer.show_help = False
            else:
                self.back()
        elif symbol in self.keys:
            self.keys[symbol]()
        else:
            self.viewer.on_key_press(symbol, modifiers)

    def on_key_release(self, symbol: int, modifiers: int) -> None:
        if self.viewer is not None:
            self.viewer.on_key_release(symbol, modifiers)

    def on_mouse_drag(self, x, y, dx, dy, buttons, modifiers) -> None:
        if self.viewer is not None:
            self.viewer.on_mouse_drag(x, y, dx, dy, buttons, modifiers)      # pans the live view

    def on_mouse_scroll(self, x, y, scroll_x, scroll_y) -> None:
        self.viewer.on_mouse_scroll(x, y, scroll_x, scroll_y)

    # drawing -----------------------------------------------------------------------------------
    def draw_scene(self) -> None:
        """The viewer's frame, into the framebuffer in use."""
        self.viewer.draw_scene()

    def draw_bar(self, doc) -> None:
        """The bar at the bottom: on which of ``doc.terrains`` it plays, how to go back (window
        units, the screen camera in use)."""
        terrain = next((p.shown for p in self.terrains(doc) if p.name == self.terrain), self.terrain or "flat")
        text = f"live test on {terrain}: R next terrain, T back to editing"
        key = (self.layout.size, text)
        if self._key != key:
            self._key = key
            t = self.text
            set_text(t, text)
            box = (PAD, 6, min(t.content_width + 24, self.layout.size[0] - 2 * PAD), 24)
            t.position = (round(box[0] + 12), round(box[1] + 12))
            self.box.set(rects([box], MESSAGE_BACK))
        self.box.draw()
        self.batch.draw()

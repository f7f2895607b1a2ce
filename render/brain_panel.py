"""The viewer's brain panel (:class:`BrainPanel`, N): the selected creature's network, inputs
left, outputs right, hidden nodes in columns by depth; edges coloured by sign and thick by
|weight|, nodes coloured by their live values."""

from __future__ import annotations

from ._display import prefer_headless

prefer_headless()

import arcade  # noqa: E402
import numpy as np  # noqa: E402
import pyglet  # noqa: E402

from ._gl import Segments, Triangles, rects  # noqa: E402
from .layout import place, shrink  # noqa: E402
from .text import FONT  # noqa: E402
from .textpool import TextPool  # noqa: E402
from .theme import EDGE_NEGATIVE, EDGE_POSITIVE, PANEL_BACK, PANEL_TEXT, value_colors  # noqa: E402

__all__ = ["BrainPanel"]


class BrainPanel:
    """The panel, laid out again only when the creature or the place changes (:meth:`forget`:
    a new scene), drawn with the live node values every frame.

    Attributes
    ----------
    rect : (float, float, float, float) or None
        Where it was last laid out (left, bottom, width, height).
    brain : Brain or None
        The network shown (None: the creature has none).
    nodes : list of BrainNode
        Its nodes as drawn: the inputs first, then the hidden ones by depth, then the outputs.
    title : arcade.Text
        ``brain: <creature>``.
    texts : TextPool
        The input and output nodes' labels (or ``no brain``).
    """

    def __init__(self, ctx):
        self._edges = Segments(ctx)
        self._box = Triangles(ctx)
        self.nodes: list = []
        self.brain = None
        self.rect = None
        self._node_first = 0
        self._key = None
        self._batch = pyglet.graphics.Batch()
        self.texts = TextPool(self._batch, color=PANEL_TEXT, font_size=8, font_name=FONT, anchor_y="center")
        self.title = arcade.Text("", 0, 0, PANEL_TEXT, 11, font_name=FONT, bold=True,
                                 anchor_y="top", batch=self._batch)

    def forget(self) -> None:
        """Lay the panel out again at the next draw (a new scene)."""
        self._key = None

    def build(self, source, shapes, selected: int, rect) -> None:
        """Lay the ``selected`` creature's network (``source.brain``) out on the panel (``rect``):
        inputs left, outputs right, hidden nodes in columns by depth; edges coloured by sign,
        thick by |weight|."""
        key = (selected, rect)
        if key == self._key:
            return
        self._key = key
        self.rect = rect
        left, bottom, pw, ph = rect
        n = len(shapes)
        label = shapes[selected].label if n else ""
        self.title.text = f"brain: {label or f'creature {selected}'}"
        self.title.position = (round(left + 10), round(bottom + ph - 8))
        brain = source.brain(selected) if n else None
        self.brain = brain
        self.nodes = []
        self._edges.count = 0
        if brain is None:
            t = self.texts.get(0)
            t.text = "no brain"
            t.font_size = 12
            t.position = (round(left + pw / 2 - 30), round(bottom + ph / 2))
            self.texts.finish(1)
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
        self.nodes = [nd for col in columns for nd in col]
        # one batch of segments: the edges, then each node as two discs (zero-length segments):
        # a dark outline and its value's colour, set every frame
        edges = [(where[a], where[b], wt) for a, b, wt in brain.edges if a in where and b in where]
        nodes = np.array([where[nd.key] for nd in self.nodes], np.float64).reshape(-1, 2)
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
            t = self.texts.get(n_text)
            t.text = nd.label or str(nd.key)
            if t.font_size != font:
                t.font_size = font
            x, y = where[nd.key]
            if nd.kind == "input":
                t.position = (round(x - radius - 4 - t.content_width), round(y))
            else:
                t.position = (round(x + radius + 4), round(y))
            n_text += 1
        self.texts.finish(n_text)

    @staticmethod
    def spot(size, avoid) -> tuple:
        """Where the panel goes in a view of ``size`` pixels: top right, clear of the boxes
        ``avoid`` (the HUD and the status; smaller when they leave less room)."""
        w, h = size
        pw, ph = min(0.42 * w, 520.0), min(0.5 * h, 380.0)
        for k in (1.0, 0.8, 0.62):
            spot = place((round(k * pw), round(k * ph)), shrink((0, 0, w, h), 6), avoid,
                         want=(w - k * pw / 2, h - k * ph / 2), gap=6)
            if spot is not None:
                return spot
        return (w - pw - 10, h - ph - 10, pw, ph)

    def draw(self, source, shapes, selected: int, rect) -> None:
        """The panel at ``rect``, its nodes coloured by ``source.brain_values``."""
        self.build(source, shapes, selected, rect)
        box = self._box
        box.set(rects([self.rect], PANEL_BACK))
        box.draw()
        if self.brain is not None and self.nodes:
            values = source.brain_values(selected) or {}
            v = np.array([float(values.get(nd.key, 0.0)) for nd in self.nodes])
            fill = self._edges.data["color"][self._node_first + 1:self._edges.count:2]
            fill[:, :3] = value_colors(v)
            fill[:, 3] = 255
            self._edges.upload()
            self._edges.draw(1.0)
        self._batch.draw()

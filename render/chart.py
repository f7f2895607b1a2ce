"""The game window's live chart of a run: fitness over generations, the species stack, and a
generation scrubber, on one translucent dark panel.

It shows what ``creatures plot`` shows, with the same meaning, from a
:class:`~render.game.Progress`:

- on top (about 65 % of the height), the fitness of each generation: the best (orange), the
  90th percentile, the median (bold, white), the 10th percentile and the worst (dim red), with
  the 10th..90th and 25th..75th percentile bands shaded: the percentiles of the creatures that
  did not fail (``Progress.ok_median``...) when the progress has them;
- under it, when any creature failed, a thin strip with the share of each generation that
  failed (a bar per generation, full height 100 %), so that failures are seen apart instead of
  dragging the percentiles down;
- below it (about 25 %), the species stacked, each species a band of its own colour
  (:func:`species_colour`, the same as in ``species.png``): the stack's height is the population;
- at the bottom (about 10 %, at least 18 px), the scrubber: a bar with a tick per finished
  generation (just a filled range when they are too close together), the latest generation
  marked, and a handle at :attr:`Chart.selected`.

The x axis runs from generation 1 to ``max(total, last)``; each generation owns a column one
generation wide, centred on it (as the species columns of ``creatures plot``), so the lines'
points, the species columns and the scrubber ticks line up, and a click anywhere in a column
(:meth:`Chart.generation_at`) means its generation. A failed creature scores
:data:`WORST_FITNESS`, far below the rest; as in ``creatures plot``, the y axis is fitted to the
others, and where a line still reaches it (a generation that all failed, or a progress without
the ``ok_`` percentiles) a note says the failures are below the chart.

Cost: the geometry is built in numpy only when something it shows changes (new generations,
the layout, ``total``, the title), never per frame: two triangles per band step and per species
cell, one instanced segment (``render/_gl.py``) per line step. With more generations than pixel
columns, each column keeps its lowest and highest points of a line, the extremes of a band and
the mean of the species, so 2000 generations of 300 species stay a few thousand shapes. That
geometry is then drawn once into a cached picture (a texture the size of the panel, colours
premultiplied by alpha), since llvmpipe pays about 1 us per antialiased segment and 30 ns per
vertex, which every frame would add up. A frame is three draw calls: the picture (one quad),
the scrubber's handle with the selected generation's line (three segments, uploaded again only
when :attr:`Chart.selected` changes), and one pyglet batch of text, each label laid out again
only when its string changes. Measured on Mesa llvmpipe, 2 cores, a 420x260 px chart: a frame
0.86-0.9 ms whatever the run (1.0 ms while the handle is dragged); a new generation 7-8 ms for
200 generations of 40 species (3 ms of numpy and text, 4-5 ms drawing the picture), ~23 ms for
2000 generations of 300 species.

Everything is drawn in screen pixels: :meth:`Chart.draw` expects a camera whose projection is
the framebuffer in pixels (as the viewer's HUD camera) and draws into whatever framebuffer is in
use.
"""

from __future__ import annotations

import colorsys
import math

from ._display import prefer_headless

prefer_headless()

import arcade  # noqa: E402
import numpy as np  # noqa: E402
import pyglet  # noqa: E402
from pyglet.math import Mat4  # noqa: E402

from ._gl import SEGMENT, VERTEX, Segments, Triangles, rects  # noqa: E402
from .game import Progress  # noqa: E402
from .text import FONT  # noqa: E402
from .textpool import TextPool  # noqa: E402
from .theme import PANEL_BACK, PANEL_TEXT  # noqa: E402

__all__ = ["Chart", "species_colour", "nice_ticks", "BEST", "P90", "MEDIAN", "P10", "WORST", "BAND",
           "BAND_INNER", "LEGEND", "WORST_FITNESS"]

# look ---------------------------------------------------------------------------------------------
#: the lines (RGBA bytes): the tests look for them in the pixels
BEST = (255, 160, 40, 255)          # orange, 2 px
P90 = (110, 170, 240, 255)          # light blue, 1.2 px
MEDIAN = (255, 255, 255, 255)       # white, bold (3 px), drawn last
P10 = (80, 128, 196, 255)           # a darker blue, 1.2 px (``creatures plot`` dashes it instead)
WORST = (200, 84, 72, 255)          # dim red, 1.2 px
#: the shaded bands: the 10th..90th percentile, and over it the 25th..75th
BAND = (110, 160, 235, 40)
BAND_INNER = (110, 160, 235, 55)
#: (label, colour) of each line, in the legend's order
LEGEND = (("best", BEST), ("90%", P90), ("median", MEDIAN), ("10%", P10), ("worst", WORST))
#: the line widths (pixels), and the points' diameters when there is one generation
WIDTHS = {"best": 2.0, "p90": 1.2, "median": 3.0, "p10": 1.2, "worst": 1.2}
POINTS = {"best": 6.0, "p90": 4.0, "median": 7.0, "p10": 4.0, "worst": 4.0}
LABEL = (176, 184, 200, 255)        # tick labels
GRID = (255, 255, 255, 22)
AXIS = (150, 158, 176, 255)
ZERO = (200, 206, 220, 110)
TRACK = (12, 14, 20, 255)           # the scrubber's bar
FINISHED = (58, 68, 90, 255)        # its finished generations
TICK = (122, 134, 160, 255)         # a tick per finished generation
LATEST = (120, 220, 140, 255)       # the latest generation
HANDLE = (240, 244, 250, 255)
HANDLE_EDGE = (8, 10, 14, 255)
SELECTION = (255, 255, 255, 70)     # the selected generation's line through the charts
FAILED = (226, 104, 92, 255)        # the share of a generation that failed (its strip's bars)
FAILED_TRACK = (12, 14, 20, 255)    # the strip's background

#: the fitness of a creature whose simulation failed; must match ``evolution.tasks.WORST_FITNESS``
#: (``render`` imports nothing of ours)
WORST_FITNESS = -1000.0

# layout (pixels) ----------------------------------------------------------------------------------
PAD = 6                 # inside the panel's edges
TITLE_ROW = 15          # the title (and the legend, beside it or on a row of its own)
X_LABEL_ROW = 13        # the generation labels, between the fitness chart and the species
MIN_SCRUBBER = 18
FAILED_STRIP = (10, 0.07)   # the failed share's strip: at least this many pixels, or this share of the height
TICK_SPACING = 4.0      # the scrubber draws a tick per generation while they are this far apart
LINES = ("worst", "p10", "p90", "best", "median")   # drawing order: the median on top


def species_colour(species_id: int) -> tuple[float, float, float]:
    """A species' colour (RGB in 0..1), the same in every chart: hues a golden angle apart, so
    species created one after the other never look alike.

    Must match ``creatures.charts.species_colour`` (a test checks that they agree; ``render``
    imports nothing of ours).
    """
    hue = (0.58 + species_id * 0.6180339887498949) % 1.0
    value = 0.93 if species_id % 2 else 0.8
    return colorsys.hsv_to_rgb(hue, 0.55, value)


def nice_ticks(lo: float, hi: float, count: int, whole: bool = False) -> tuple[np.ndarray, float]:
    """Round values between ``lo`` and ``hi``, about ``count`` of them.

    Parameters
    ----------
    lo, hi : float
        The range (``lo < hi``).
    count : int
        How many ticks are wanted, roughly.
    whole : bool
        Only whole numbers (generations).

    Returns
    -------
    ticks : ndarray, shape (N,)
        Multiples of the step within the range, ascending.
    step : float
        1, 2, 2.5 or 5 times a power of ten, the one that cuts the range into the number of
        pieces nearest to ``count`` (when ``whole``: 1 or more, and not 2.5).
    """
    span = hi - lo
    if not (math.isfinite(span) and span > 0.0):
        return np.zeros(0), 1.0
    # the round step that cuts the range into the number of pieces nearest to count
    mag = 10.0 ** math.floor(math.log10(span / max(count, 1)))
    steps = [m * e for e in (mag / 10, mag, mag * 10) for m in (1.0, 2.0, 2.5, 5.0)
             if not (whole and (m * e < 1.0 or (m == 2.5 and e < 10)))] or [1.0]
    step = min(steps, key=lambda st: (abs(span / st - count), -st))
    first, last = math.ceil(lo / step - 1e-9), math.floor(hi / step + 1e-9)
    return np.arange(first, last + 1) * step, step


def _format(value: float, step: float) -> str:
    """A tick's label, with as many decimals as its step needs (``2.5``, ``-10``, ``0.05``)."""
    decimals = max(0, -math.floor(math.log10(step) + 1e-9))
    if decimals == 0 and not float(step).is_integer():
        decimals = 1
    if abs(value) < 1e-9 * step:
        value = 0.0
    return f"{value:.{decimals}f}"


def _segments(x0, y0, x1, y1, color, width) -> np.ndarray:
    """Rows of :data:`SEGMENT` (shapes broadcast; ``color`` one RGBA or one per row)."""
    x0, y0, x1, y1 = np.broadcast_arrays(*(np.asarray(v, np.float64) for v in (x0, y0, x1, y1)))
    out = np.zeros(x0.size, dtype=SEGMENT)
    out["seg"] = np.stack([x0.ravel(), y0.ravel(), x1.ravel(), y1.ravel()], axis=1)
    out["color"] = np.asarray(color, np.uint8)
    out["width"] = width
    return out


def _polyline(points: np.ndarray, color, width: float, point: float, keep=None) -> np.ndarray:
    """Segments joining consecutive points (a gap at a non-finite one); the only point, a disc
    (a segment of zero length) of diameter ``point``. ``keep``: the indices of the points to
    join (:func:`_thin`), all by default; two kept points are joined if none between them is
    missing."""
    ok = np.isfinite(points).all(axis=1)
    if points.shape[0] == 1:
        p = points[ok]
        return _segments(p[:, 0], p[:, 1], p[:, 0], p[:, 1], color, point)
    if keep is None:
        i = np.flatnonzero(ok[:-1] & ok[1:])
        j = i + 1
    else:
        missing = np.concatenate([[0], np.cumsum(~ok)])     # missing points before each index
        i, j = keep[:-1], keep[1:]
        joined = missing[j + 1] - missing[i] == 0
        i, j = i[joined], j[joined]
    a, b = points[i], points[j]
    return _segments(a[:, 0], a[:, 1], b[:, 0], b[:, 1], color, width)


def _thin(column: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The points a line needs where many share a pixel column: in each column the lowest and
    the highest (finite) one, as indices in ascending order. ``column`` is ascending."""
    f = np.flatnonzero(np.isfinite(y))
    if f.size == 0:
        return f
    order = np.lexsort((y[f], column[f]))           # by column, then by height
    c = column[f][order]
    first = np.flatnonzero(np.concatenate([[True], c[1:] != c[:-1]]))
    last = np.concatenate([first[1:] - 1, [c.size - 1]])
    return np.union1d(f[order[first]], f[order[last]])


def _band(x: np.ndarray, lo: np.ndarray, hi: np.ndarray, color) -> np.ndarray:
    """The area between two curves over ``x``: two triangles per step, as :data:`VERTEX` rows
    (none for a step with a non-finite end)."""
    ok = np.isfinite(lo) & np.isfinite(hi)
    i = np.flatnonzero(ok[:-1] & ok[1:]) if x.size > 1 else np.zeros(0, np.int64)
    j = i + 1
    corners = [(x[i], lo[i]), (x[j], lo[j]), (x[j], hi[j]), (x[i], lo[i]), (x[j], hi[j]), (x[i], hi[i])]
    out = np.zeros(6 * i.size, dtype=VERTEX)
    for k, (cx, cy) in enumerate(corners):
        out["pos"][k::6, 0] = cx
        out["pos"][k::6, 1] = cy
    out["color"] = color
    return out


# the cached picture, drawn back as one quad: its colours are premultiplied by their alpha
_BLIT_VS = """
#version 330
uniform WindowBlock {
    mat4 projection;
    mat4 view;
} window;
in vec2 in_pos;
in vec2 in_uv;
out vec2 v_uv;

void main() {
    gl_Position = window.projection * window.view * vec4(in_pos, 0.0, 1.0);
    v_uv = in_uv;
}
"""

_BLIT_FS = """
#version 330
uniform sampler2D picture;
in vec2 v_uv;
out vec4 f_color;

void main() {
    f_color = texture(picture, v_uv);
}
"""


def _blit_program(ctx):
    """The program that draws the cached picture, compiled once per context."""
    program = getattr(ctx, "_creatures_chart_blit", None)
    if program is None:
        program = ctx.program(vertex_shader=_BLIT_VS, fragment_shader=_BLIT_FS)
        ctx._creatures_chart_blit = program
    return program


def _put(t: arcade.Text, text: str, x: float, y: float, visible: bool = True) -> None:
    """Set a text's string (laid out again only if it changed) and its position (cheap)."""
    if t.visible != visible:
        t.visible = visible
    if not visible:
        return
    t.text = text
    pos = (round(x), round(y))
    if (t.x, t.y) != pos:
        t.position = pos


def _column(values, G: int, missing: float) -> np.ndarray:
    """A progress's optional column as G floats (``missing`` for all when it is None)."""
    if values is None:
        return np.full(G, missing)
    v = np.asarray(values, np.float64).reshape(-1)[:G]
    return np.concatenate([v, np.full(G - v.size, missing)]) if v.size < G else v


def _drawn(p: Progress, name: str, G: int) -> np.ndarray:
    """What a line or band edge draws: the percentile of the creatures that did not fail when
    the progress has it (NaN: a gap), else the plain one."""
    ok = getattr(p, f"ok_{name}", None)
    if ok is not None:
        return _column(ok, G, np.nan)
    return np.asarray(getattr(p, name), np.float64).reshape(-1)[:G]


def _same(a: Progress, b: Progress) -> bool:
    """Whether two progress records hold the same numbers."""
    if a is b:
        return True
    if a.measures != b.measures:
        return False
    names = ("generation", "best", "p90", "p75", "median", "p25", "p10", "worst", "species_ids",
             "species_sizes", "failed", "ok_p90", "ok_p75", "ok_median", "ok_p25", "ok_p10", "ok_worst")
    for n in names:
        x, y = getattr(a, n), getattr(b, n)
        if x is None or y is None:
            if x is not y:
                return False
            continue
        x, y = np.asarray(x), np.asarray(y)
        if not np.array_equal(x, y, equal_nan=x.dtype.kind == "f" and y.dtype.kind == "f"):
            return False
    return True


class Chart:
    """The live fitness chart, species stack and generation scrubber, drawn in screen pixels.

    A drawing widget, not a view: the game screen calls :meth:`set_progress` when the run has
    new generations, :meth:`layout` when the window changes, and :meth:`draw` every frame, with
    a camera in screen pixels in use (one screen pixel one framebuffer pixel).

    Parameters
    ----------
    ctx : arcade.ArcadeContext
        The window's context (``window.ctx``).

    Attributes
    ----------
    progress : Progress
        What is charted (:meth:`set_progress`).
    lines : dict of str -> ndarray, shape (G, 2)
        The screen points (pixels) of each line (``best``, ``p90``, ``median``, ``p10``,
        ``worst``), one per generation; y is clipped to the chart, a non-finite value is a NaN
        row (a gap in the line). With more generations than twice the chart's pixel columns,
        each column's lowest and highest points are the ones joined.
    plot_box, species_box, scrubber_box : (float, float, float, float)
        Left, bottom, width, height (pixels) of the fitness chart, the species stack and the
        scrubber's bar. The three share their left and right edges: the x axis.
    failed_box : (float, float, float, float)
        The failed share's strip, under the fitness chart (height 0: no creature failed).
    failed_rects : ndarray, shape (N, 4)
        Its bars (left, bottom, width, height in pixels), one per generation (per pixel column
        when they are more) in which some failed; full height is 100 %.
    y_range : (float, float)
        The fitness at the bottom and the top of the chart.
    species_top : float
        The count of creatures at the top of the species stack (the largest population).
    species_rects : ndarray, shape (N, 4)
        The species cells drawn (left, bottom, width, height in pixels), one per species and
        column with members: stacked, a column's heights add up to its population.
    species_cells : ndarray of int, shape (N,)
        The species id of each of :attr:`species_rects`.
    legend : tuple of (str, (int, int, int, int))
        Each line's label and colour, as the legend shows them (:data:`LEGEND`).
    """

    legend = LEGEND

    def __init__(self, ctx):
        from arcade.gl import BufferDescription

        self.ctx = ctx
        self.progress = Progress.empty()
        self._box = (0, 0, 0, 0)
        self._selected: int | None = None
        self._total: int | None = None
        self._title: str | None = None
        self._dirty = True              # the geometry and the texts must be built again
        self._stale = True              # the cached picture must be drawn again
        self._marks_dirty = True        # the handle and the selection line
        self._fill = Triangles(ctx)     # panel, bands, species, scrubber bar
        self._strokes = Segments(ctx)   # grid, axes, lines, scrubber ticks
        self._marks = Segments(ctx)     # handle and selection line, drawn every frame
        self._triangles = np.zeros(0, dtype=VERTEX)
        self._segments = np.zeros(0, dtype=SEGMENT)
        # the cached picture of all but the texts and the marks, and the quad that draws it
        self._picture = None
        self._framebuffer = None
        self._blit = _blit_program(ctx)
        self._quad_buffer = ctx.buffer(reserve=16 * 4)
        self._quad = ctx.geometry([BufferDescription(self._quad_buffer, "2f 2f", ["in_pos", "in_uv"])],
                                  mode=ctx.TRIANGLE_STRIP)
        self._colours: dict[int, tuple[int, int, int, int]] = {}
        self._lines_drawn: dict[str, np.ndarray] = {}
        self._plot_box = self._species_box = self._scrubber_box = self._failed_box = (0.0, 0.0, 0.0, 0.0)
        self._failed_rects = np.zeros((0, 4))
        self._y_range = (0.0, 1.0)
        self._species_top = 1.0
        self._species_rects = np.zeros((0, 4))
        self._species_cells = np.zeros(0, np.int64)
        self._last = 0
        self._span = 1
        # text, drawn every frame from one batch ---------------------------------------------------
        self._batch = pyglet.graphics.Batch()
        small = dict(font_size=8, font_name=FONT, batch=self._batch)
        self._title_text = arcade.Text("", 0, 0, PANEL_TEXT, 9, font_name=FONT, bold=True,
                                       anchor_y="top", batch=self._batch)
        self._legend_texts = [arcade.Text(label, 0, 0, colour, anchor_y="top", **small)
                              for label, colour in LEGEND]
        self._y_labels = TextPool(self._batch, color=LABEL, anchor_x="right", anchor_y="center",
                                font_size=8, font_name=FONT)
        self._x_labels = TextPool(self._batch, color=LABEL, anchor_x="center", anchor_y="top",
                                font_size=8, font_name=FONT)
        self._species_top_text = arcade.Text("", 0, 0, LABEL, anchor_x="right", anchor_y="top", **small)
        self._species_text = arcade.Text("species", 0, 0, LABEL, anchor_x="right", anchor_y="center",
                                         **small)
        self._first_text = arcade.Text("gen 1", 0, 0, PANEL_TEXT, anchor_x="right", anchor_y="center",
                                       **small)
        self._last_text = arcade.Text("", 0, 0, PANEL_TEXT, anchor_y="center", **small)
        self._message_text = arcade.Text("waiting for the first generation", 0, 0, PANEL_TEXT, 10,
                                         font_name=FONT, anchor_x="center", anchor_y="center",
                                         batch=self._batch)
        self._note_text = arcade.Text(f"failed creatures score {WORST_FITNESS:g}, below the chart",
                                      0, 0, WORST, 7, font_name=FONT, italic=True, anchor_y="bottom",
                                      batch=self._batch)
        self._failed_text = arcade.Text("failed", 0, 0, FAILED, anchor_x="right", anchor_y="center", **small)

    # what is shown -----------------------------------------------------------------------------
    def set_progress(self, progress: Progress) -> None:
        """Chart ``progress``; the geometry is built again (at the next draw or question) only
        if its numbers differ from the ones charted."""
        if not _same(progress, self.progress):
            self.progress = progress
            self._dirty = self._marks_dirty = True

    def layout(self, left: float, bottom: float, width: float, height: float) -> None:
        """Place the chart: the panel's box in screen pixels (rounded to whole pixels). The
        fitness chart takes the top (about 65 %), the species stack the next 25 %, the scrubber
        the bottom 10 % (at least 18 px)."""
        box = (round(left), round(bottom), max(round(width), 0), max(round(height), 0))
        if box != self._box:
            self._box = box
            self._dirty = self._marks_dirty = True

    @property
    def selected(self) -> int | None:
        """The generation the scrubber's handle marks (None: no handle)."""
        return self._selected

    @selected.setter
    def selected(self, generation: int | None) -> None:
        generation = None if generation is None else int(generation)
        if generation != self._selected:
            self._selected = generation
            self._marks_dirty = True

    @property
    def total(self) -> int | None:
        """The generations the run goes to: the x axis spans 1 to ``max(total, last)``."""
        return self._total

    @total.setter
    def total(self, generations: int | None) -> None:
        generations = None if generations is None else int(generations)
        if generations != self._total:
            self._total = generations
            self._dirty = self._marks_dirty = True

    @property
    def title(self) -> str:
        """The chart's title: ``fitness: metres to the right`` (from the progress's
        ``measures``) unless set (None: back to that)."""
        if self._title is not None:
            return self._title
        measures = (self.progress.measures or "").strip()
        return "fitness" if measures in ("", "fitness") else f"fitness: {measures}"

    @title.setter
    def title(self, text: str | None) -> None:
        if text != self._title:
            self._title = text
            self._dirty = True


    def close(self) -> None:
        """Free the cached picture's texture and framebuffer now (the garbage collector would
        later); a chart drawn again makes them again."""
        for obj in (self._framebuffer, self._picture):
            if obj is not None:
                obj.delete()
        self._framebuffer = self._picture = None
        self._stale = True

    # what is drawn, for tests and screenshots (built first if something changed) -----------------
    @property
    def lines(self) -> dict:
        self._ensure()
        return self._lines_drawn

    @property
    def plot_box(self) -> tuple:
        self._ensure()
        return self._plot_box

    @property
    def species_box(self) -> tuple:
        self._ensure()
        return self._species_box

    @property
    def scrubber_box(self) -> tuple:
        self._ensure()
        return self._scrubber_box

    @property
    def failed_box(self) -> tuple:
        self._ensure()
        return self._failed_box

    @property
    def failed_rects(self) -> np.ndarray:
        self._ensure()
        return self._failed_rects

    @property
    def y_range(self) -> tuple:
        self._ensure()
        return self._y_range

    @property
    def species_top(self) -> float:
        self._ensure()
        return self._species_top

    @property
    def species_rects(self) -> np.ndarray:
        self._ensure()
        return self._species_rects

    @property
    def species_cells(self) -> np.ndarray:
        self._ensure()
        return self._species_cells

    # mapping -----------------------------------------------------------------------------------
    def generation_x(self, generation) -> np.ndarray | float:
        """The screen x (pixels) of a generation's column's centre."""
        self._ensure()
        x0, _, w, _ = self._plot_box
        return x0 + (np.asarray(generation, np.float64) - 0.5) / self._span * w

    def fitness_y(self, fitness) -> np.ndarray | float:
        """The screen y (pixels) of a fitness on the chart, clipped to the chart's box."""
        self._ensure()
        _, y0, _, h = self._plot_box
        lo, hi = self._y_range
        return np.clip(y0 + (np.asarray(fitness, np.float64) - lo) / (hi - lo) * h, y0, y0 + h)

    def count_y(self, count) -> np.ndarray | float:
        """The screen y (pixels) of a count of creatures on the species stack."""
        self._ensure()
        _, y0, _, h = self._species_box
        return y0 + np.asarray(count, np.float64) / self._species_top * h

    def contains(self, x: float, y: float) -> bool:
        """Whether a screen point is on the chart's panel."""
        left, bottom, w, h = self._box
        return left <= x <= left + w and bottom <= y <= bottom + h

    def generation_at(self, x: float, y: float, clamp: bool = False) -> int | None:
        """The finished generation under a screen point: the one whose column holds ``x``.

        Parameters
        ----------
        x, y : float
            Screen pixels.
        clamp : bool
            Any point gives the nearest finished generation (a drag that began on the chart
            and left it); otherwise only points over the charts or the scrubber do.

        Returns
        -------
        int or None
            From 1 to the latest finished generation; None off the charts and the scrubber,
            or before the first generation.
        """
        self._ensure()
        x0, _, w, _ = self._plot_box
        if self._last <= 0 or w <= 0:
            return None
        if not clamp:
            bottom = self._scrubber_box[1]
            top = self._plot_box[1] + self._plot_box[3]
            if not (x0 - 2 <= x <= x0 + w + 2 and bottom - 2 <= y <= top):
                return None
        g = math.floor((x - x0) / w * self._span) + 1
        return int(min(max(g, 1), self._last))

    # drawing -----------------------------------------------------------------------------------
    def drawing(self) -> tuple[np.ndarray, np.ndarray]:
        """``(triangles, segments)``: what the chart draws (its fills and its lines, as the
        shaders take them), built first if the numbers changed since."""
        self._ensure()
        return self._triangles, self._segments

    def texts(self) -> dict:
        """The texts the chart shows now (built first if the numbers changed): ``title``,
        ``last`` (the newest generation's label), ``message`` (before the first generation) and
        ``note`` (failed creatures below the chart), "" where not shown, and ``y_labels``, the
        fitness axis's labels bottom up."""
        self._ensure()
        shown = {name: (t.text if t.visible else "") for name, t in (
            ("title", self._title_text), ("last", self._last_text), ("message", self._message_text),
            ("note", self._note_text))}
        shown["y_labels"] = [t.text for t in self._y_labels.items[:self._y_labels.used]]
        return shown

    @property
    def has_picture(self) -> bool:
        """Whether the chart holds its offscreen picture (made by drawing, freed by :meth:`close`)."""
        return self._picture is not None

    def draw(self) -> None:
        """Draw the chart into the framebuffer in use, through the camera in use (screen
        pixels). What changed is built (and its picture drawn) first; otherwise three draw
        calls: the cached picture, the handle and the selection line, the texts."""
        self._ensure()
        if self._box[2] <= 0 or self._box[3] <= 0:
            return
        if self._stale:
            self._paint()
            self._stale = False
        ctx = self.ctx
        blend = ctx.blend_func
        ctx.enable(ctx.BLEND)
        ctx.blend_func = ctx.ONE, ctx.ONE_MINUS_SRC_ALPHA       # the picture is premultiplied
        try:
            self._picture.use(0)
            self._quad.render(self._blit, vertices=4)
        finally:
            ctx.blend_func = blend
        self._marks.draw(1.0)
        self._batch.draw()

    def _ensure(self) -> None:
        """Build what changed: the geometry and the texts, then the marks."""
        if self._dirty:
            self._dirty = False
            try:
                self._build()
            except BaseException:
                self._dirty = True
                raise
            self._stale = True
        if self._marks_dirty:
            self._marks_dirty = False
            self._build_marks()

    def _paint(self) -> None:
        """Draw the panel, bands, species, grid, lines and scrubber into the cached picture
        (premultiplied alpha: the blending keeps the picture's alpha right), then put the
        framebuffer, camera and blending in use back."""
        ctx = self.ctx
        left, bottom, w, h = self._box
        if self._picture is None or self._picture.size != (w, h):
            self.close()
            self._picture = ctx.texture((w, h), components=4, filter=(ctx.NEAREST, ctx.NEAREST))
            self._framebuffer = ctx.framebuffer(color_attachments=[self._picture])
        quad = np.array([left, bottom, 0, 0, left + w, bottom, 1, 0,
                         left, bottom + h, 0, 1, left + w, bottom + h, 1, 1], dtype="f4")
        self._quad_buffer.write(quad.tobytes())
        self._fill.set(self._triangles)
        self._strokes.reserve(self._segments.size)[:] = self._segments
        self._strokes.upload()
        previous = ctx.active_framebuffer
        projection, view, blend = ctx.projection_matrix, ctx.view_matrix, ctx.blend_func
        try:
            self._framebuffer.use()
            self._framebuffer.clear(color=(0, 0, 0, 0))
            ctx.projection_matrix = Mat4.orthogonal_projection(left, left + w, bottom, bottom + h, -1, 1)
            ctx.view_matrix = Mat4()
            ctx.blend_func = ctx.SRC_ALPHA, ctx.ONE_MINUS_SRC_ALPHA, ctx.ONE, ctx.ONE_MINUS_SRC_ALPHA
            self._fill.draw()
            self._strokes.draw(1.0)
        finally:
            ctx.blend_func = blend
            previous.use()
            ctx.projection_matrix, ctx.view_matrix = projection, view

    def _build(self) -> None:
        """Lay out the texts and build the geometry of what :attr:`progress` says."""
        p = self.progress
        left, bottom, width, height = self._box
        gens = np.asarray(p.generation, np.int64).reshape(-1)
        G = gens.size
        last = int(gens[-1]) if G else 0
        span = max(int(self._total or 0), last, 1)
        self._last, self._span = last, span
        right, top = left + width, bottom + height

        # title and legend: the legend beside the title if it fits, else on a row of its own
        title = self._title_text
        title.text = self.title
        legend_w = sum(t.content_width for t in self._legend_texts) + 10 * (len(LEGEND) - 1)
        two_rows = title.content_width + 16 + legend_w > width - 2 * PAD
        _put(title, title.text, left + PAD, top - 3)
        x = left + PAD if two_rows else right - PAD - legend_w
        y = top - 3 - TITLE_ROW if two_rows else top - 4
        for t in self._legend_texts:
            _put(t, t.text, x, y)
            x += t.content_width + 10

        # rows, from the bottom: scrubber, species, generation labels, fitness
        scrub_h = max(MIN_SCRUBBER, round(0.10 * height))
        species_h = max(0, round(0.25 * height) - 4)
        bar_h = min(scrub_h - 6, 14)
        bar_y = bottom + 2 + (scrub_h - 2 - bar_h) // 2
        sp0 = bottom + scrub_h + 4
        sp1 = sp0 + species_h
        share = _column(p.failed, G, 0.0)
        failures = bool(np.nan_to_num(share).max(initial=0.0) > 0.0)
        fail_h = max(FAILED_STRIP[0], round(FAILED_STRIP[1] * height)) if failures else 0
        fa0 = sp1 + X_LABEL_ROW + 2
        fp0 = fa0 + (fail_h + 3 if failures else 0)
        fp1 = max(top - PAD - TITLE_ROW * (2 if two_rows else 1), fp0 + 1)

        # the fitness range (as creatures plot: failed creatures left below) and its ticks,
        # whose labels set the left margin; the percentiles of the creatures that did not fail
        # when the progress has them
        series = {n: _drawn(p, n, G) for n in LINES}
        values = np.concatenate([series[n] for n in LINES]) if G else np.zeros(0)
        values = values[np.isfinite(values)]
        fine = values > WORST_FITNESS
        failed = bool(fine.any() and not fine.all())
        if fine.any():
            values = values[fine]
        if values.size:
            lo, hi = float(values.min()), float(values.max())
            pad = 0.06 * (hi - lo) or 0.5
            lo, hi = lo - pad, hi + pad
        else:
            lo, hi = 0.0, 1.0
        self._y_range = (lo, hi)
        count = int(np.clip((fp1 - fp0) // 28, 2, 6))
        yticks, ystep = nice_ticks(lo, hi, count) if G else (np.zeros(0), 1.0)
        for k, v in enumerate(yticks):
            self._y_labels.get(k).text = _format(v, ystep)
        self._y_labels.finish(yticks.size)
        sizes = np.asarray(p.species_sizes, np.float64)
        sizes = sizes[:, :G] if sizes.ndim == 2 else np.zeros((0, G))
        totals = sizes.sum(axis=0) if sizes.size else np.zeros(0)
        self._species_top = float(max(totals.max() if totals.size else 0.0, 1.0))
        show_species = G > 0 and species_h >= 12
        self._species_top_text.text = f"{self._species_top:.0f}"
        self._last_text.text = f"gen {last}"
        margin = max([t.content_width for t in self._y_labels.items[:yticks.size]]
                     + [self._first_text.content_width if G else 0,
                        self._species_text.content_width if show_species and species_h >= 34 else 0,
                        self._species_top_text.content_width if show_species else 0,
                        self._failed_text.content_width if failures else 0, 12])
        x0 = left + PAD + math.ceil(margin) + 5
        x1 = max(right - PAD - 2, x0 + 1)
        pw = x1 - x0
        self._plot_box = (x0, fp0, pw, fp1 - fp0)
        self._failed_box = (x0, fa0, pw, fail_h)
        self._species_box = (x0, sp0, pw, sp1 - sp0)
        self._scrubber_box = (x0, bar_y, pw, bar_h)

        def gx(g):
            return x0 + (np.asarray(g, np.float64) - 0.5) / span * pw

        def fy(v):
            return np.clip(fp0 + (v - lo) / (hi - lo) * (fp1 - fp0), fp0, fp1)

        def crisp(v):       # the centre of a pixel row or column: lines 1 px wide stay sharp
            return np.floor(v) + 0.5

        # texts: ticks, labels, the message --------------------------------------------------------
        for k, v in enumerate(yticks):
            t = self._y_labels.items[k]
            _put(t, t.text, x0 - 5, crisp(fy(v)))
        xticks = (nice_ticks(1.0, float(span), max(2, int(pw // 55)), whole=True)[0] if span > 1
                  else np.ones(1))
        for k, g in enumerate(xticks):
            t = self._x_labels.get(k)
            t.text = f"{g:.0f}"
            x = min(gx(g), right - 2 - t.content_width / 2)       # the last one inside the panel
            _put(t, t.text, x, sp1 + X_LABEL_ROW + 1)
        self._x_labels.finish(xticks.size)
        _put(self._species_top_text, self._species_top_text.text, x0 - 5, sp1 + 1, show_species)
        _put(self._species_text, "species", x0 - 5, (sp0 + sp1) / 2 - 3, show_species and species_h >= 34)
        _put(self._first_text, "gen 1", x0 - 5, bar_y + bar_h / 2, G > 0 and bar_h > 0)
        _put(self._message_text, self._message_text.text, (x0 + x1) / 2, (fp0 + fp1) / 2, G == 0)
        _put(self._note_text, self._note_text.text, x0 + 6, fp0 + 4, failed)
        _put(self._failed_text, "failed", x0 - 5, fa0 + fail_h / 2, failures)

        fill = [rects([self._box], PANEL_BACK)]
        segs = []
        # the fitness chart: grid, bands, lines ------------------------------------------------------
        if yticks.size:
            ys = crisp(fy(yticks))
            segs.append(_segments(x0, ys, x1, ys, GRID, 1.0))
        if xticks.size:
            xs = crisp(gx(xticks))
            segs.append(_segments(xs, fp0, xs, fp1, GRID, 1.0))
            segs.append(_segments(xs, sp1, xs, sp1 + 3, AXIS, 1.0))
        if G and lo < 0.0 < hi:
            segs.append(_segments(x0, crisp(fy(0.0)), x1, crisp(fy(0.0)), ZERO, 1.0))
        segs.append(_segments([x0, x0 - 0.5], [fp0 - 0.5, fp0], [x1, x0 - 0.5], [fp0 - 0.5, fp1], AXIS, 1.0))
        xg = gx(gens)
        thin = G > 2 * pw                   # more generations than pixels: thinned lines and bands
        column = np.minimum(np.floor(xg - x0), pw - 1).astype(np.int64)
        if G:
            bands = {n: fy(_drawn(p, n, G)) for n in ("p10", "p90", "p25", "p75")}
            xb = xg
            if thin:                        # each pixel column: from its lowest to its highest
                start = np.flatnonzero(np.concatenate([[True], column[1:] != column[:-1]]))
                xb = xg[(start + np.append(start[1:], G)) // 2]
                for n in bands:
                    reduce = np.fmin if n in ("p10", "p25") else np.fmax
                    bands[n] = reduce.reduceat(bands[n], start)
            fill.append(_band(xb, bands["p10"], bands["p90"], BAND))
            fill.append(_band(xb, bands["p25"], bands["p75"], BAND_INNER))
        colours = {"best": BEST, "p90": P90, "median": MEDIAN, "p10": P10, "worst": WORST}
        lines = {}
        for n in LINES:
            v = series[n]
            ok = np.isfinite(v)
            pts = np.stack([np.where(ok, xg, np.nan), np.where(ok, fy(v), np.nan)], axis=1)
            lines[n] = pts
            keep = _thin(column, pts[:, 1]) if thin else None
            segs.append(_polyline(pts, colours[n], WIDTHS[n], POINTS[n], keep))
        self._lines_drawn = {n: lines[n] for n in ("best", "p90", "median", "p10", "worst")}

        # the failed share's strip ----------------------------------------------------------------
        self._failed_rects = np.zeros((0, 4))
        if failures:
            fill.append(rects([(x0, fa0, pw, fail_h)], FAILED_TRACK))
            bars = self._failed_geometry(gens, share, gx, fa0, fail_h, pw)
            self._failed_rects = bars
            if bars.size:
                fill.append(rects(bars, FAILED))

        # the species stack ----------------------------------------------------------------------
        boxes, cells = self._species_geometry(gens, sizes, p.species_ids, gx, sp0, sp1, pw)
        self._species_rects, self._species_cells = boxes, cells
        if cells.size:
            fill.append(rects(boxes, self._species_rgba(cells)))
        if show_species:
            segs.append(_segments(x0, sp0 - 0.5, x1, sp0 - 0.5, AXIS, 1.0))

        # the scrubber ---------------------------------------------------------------------------
        label = self._last_text
        if bar_h > 0:
            fill.append(rects([(x0, bar_y, pw, bar_h)], TRACK))
            if G:
                end = gx(last + 0.5)
                fill.append(rects([(x0, bar_y, end - x0, bar_h)], FINISHED))
                xl = crisp(gx(last))
                lw = label.content_width
                if x1 - xl >= lw + 12:                          # on the part still to come
                    anchor, lx = "left", xl + 6
                    cover = (lx - 3, lx + lw + 3)
                else:                                           # on the finished part
                    anchor, lx = "right", xl - 7
                    cover = (lx - lw - 3, lx + 3)
                if label.anchor_x != anchor:
                    label.anchor_x = anchor
                _put(label, label.text, lx, bar_y + bar_h / 2, last > 1)
                if pw / span >= TICK_SPACING:                   # a tick a generation, not under the label
                    xs = crisp(gx(gens))
                    if last > 1:
                        xs = xs[(xs < cover[0]) | (xs > cover[1])]
                    segs.append(_segments(xs, bar_y + 3, xs, bar_y + bar_h - 3, TICK, 1.0))
                segs.append(_segments(xl, bar_y, xl, bar_y + bar_h, LATEST, 2.0))
        if not (G and bar_h > 0):
            label.visible = False

        self._triangles = np.concatenate(fill)
        self._segments = np.concatenate(segs)

    @staticmethod
    def _failed_geometry(gens, share, gx, bottom, height, pw) -> np.ndarray:
        """A bar per generation in which some failed, as high as its share of the strip; with
        more generations than pixel columns, one per column, as high as its highest."""
        share = np.clip(np.nan_to_num(share), 0.0, 1.0)
        g = gens.astype(np.float64)
        left, right = gx(g - 0.5), gx(g + 0.5)
        if gens.size > pw:
            column = np.floor(left - gx(0.5)).astype(np.int64)
            start = np.flatnonzero(np.concatenate([[True], column[1:] != column[:-1]]))
            share = np.maximum.reduceat(share, start)
            left, right = left[start], np.append(left[start][1:], right[-1])
        some = share > 0.0
        return np.stack([left[some], np.full(some.sum(), float(bottom)), (right - left)[some],
                         share[some] * height], axis=1)

    def _species_geometry(self, gens, sizes, ids, gx, sp0, sp1, pw):
        """The species cells as boxes (left, bottom, width, height) and their species ids. Each
        generation is a column; with more generations than pixel columns, each pixel column
        holds the mean of its generations."""
        K, G = sizes.shape
        ids = np.asarray(ids, np.int64).reshape(-1)
        if K == 0 or G == 0 or sp1 <= sp0 or ids.size < K:
            return np.zeros((0, 4)), np.zeros(0, np.int64)
        gens = gens[:G].astype(np.float64)
        edges = np.append(gens - 0.5, gens[-1] + 0.5)
        if G > pw:               # average into one column per pixel
            column = np.floor(gx(gens) - gx(0.5)).astype(np.int64)
            start = np.flatnonzero(np.concatenate([[True], column[1:] != column[:-1]]))
            sizes = np.add.reduceat(sizes, start, axis=1) / np.diff(np.append(start, G))
            edges = np.append(gens[start] - 0.5, gens[-1] + 0.5)
        scale = (sp1 - sp0) / self._species_top
        tops = np.cumsum(sizes, axis=0)
        k, c = np.nonzero(sizes > 0)
        xl, xr = gx(edges[c]), gx(edges[c + 1])
        base = (tops[k, c] - sizes[k, c]) * scale + sp0
        boxes = np.stack([xl, base, xr - xl, sizes[k, c] * scale], axis=1)
        return boxes, ids[k]

    def _species_rgba(self, cells) -> np.ndarray:
        """The colour of each cell's species, (N, 4) bytes (cached per species id)."""
        unique, inverse = np.unique(cells, return_inverse=True)
        table = np.zeros((unique.size, 4), np.uint8)
        for i, sid in enumerate(unique.tolist()):
            c = self._colours.get(sid)
            if c is None:
                r, g, b = species_colour(sid)
                c = self._colours[sid] = (round(r * 255), round(g * 255), round(b * 255), 255)
            table[i] = c
        return table[inverse.reshape(-1)]

    def _build_marks(self) -> None:
        """The selected generation: a handle on the scrubber and a line through the charts."""
        g = self._selected
        if g is None or self._last <= 0 or not 1 <= g <= self._span or self._box[2] <= 0:
            self._marks.count = 0
            return
        x0, _, w, _ = self._plot_box
        x = math.floor(x0 + (g - 0.5) / self._span * w) + 0.5
        _, b, _, h = self._scrubber_box
        top = self._plot_box[1] + self._plot_box[3]
        seg = self._marks.reserve(3)
        seg[:] = np.concatenate([
            _segments(x, self._species_box[1], x, top, SELECTION, 1.0),
            _segments(x, b + 3, x, b + h - 3, HANDLE_EDGE, 9.0),
            _segments(x, b + 3, x, b + h - 3, HANDLE, 6.0)])
        self._marks.upload()

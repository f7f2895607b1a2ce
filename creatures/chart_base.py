"""What every chart of a run is drawn with: the error they raise (:class:`PlotError`), their
default size and colours, the run's best files generation by generation, a new figure, and the
legend below a grid of panels.

:mod:`creatures.charts` (fitness, species, body genes; reading a run, writing the pictures) and
:mod:`creatures.growth_charts` (a growing run's body sizes and lineage) both take them from here,
so that neither imports the other's module back.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from evolution import rundir

__all__ = ["PlotError", "DEFAULT_SIZE", "COLOURS", "best_records", "new_figure", "add_panels_legend",
           "generation_axis"]

DEFAULT_SIZE = (1200, 700)   # pixels

#: the colours of the fitness chart (the tests look for them in the pixels)
COLOURS = {
    "best": "#1b9e4b",      # green, thin
    "p90": "#4f7fbf",       # blue, thin (p10 too)
    "median": "#0b2a5b",    # dark blue, bold
    "worst": "#d1352b",     # red, thin
    "band": "#d6e4f5",      # 10th..90th percentile
    "band_inner": "#b3cbeb",  # 25th..75th percentile
    "champion": "#e08a00",  # orange dots: each generation's champion (body chart)
    "start": "#707070",     # dashed grey: the design's start (body chart)
    "on": "#7fb07a",        # green-grey: the share with an optional part on (body chart)
    "failed": "#e07b72",    # light red: the share of a generation that failed (its own panel)
    "fresh": "#e08a00",     # orange, dashed: the best one scored again from fresh starts
    # the lineage's bodies, as the viewer and the editor draw them (render.theme, render.editor_theme)
    "sphere": "#f0a838",    # SPHERE
    "sphere_rim": "#8d6220",  # SPHERE_RIM, as the viewer's disc texture tints a sphere's edge
    "bone": "#34343e",      # BONE_RIGID
    "muscle": "#d64638",    # the editor's MUSCLE: a muscle at rest, distinct from the dark bones
    "ground": "#e5ecdd",    # under y = 0, the viewer's GROUND made pale
    "ground_line": "#a3b894",
    "arrow": "#707070",     # from each body to the next
}


class PlotError(ValueError):
    """A run directory that cannot be plotted, or charts that cannot be written; one line."""


def best_records(directory: Path, generations):
    """``(generation, path, record)`` for each of ``generations`` whose best file the run has
    (``best/gen_NNNN.json``; one not written yet is skipped), read and checked. A damaged one is
    a :class:`PlotError` naming it."""
    for g in np.asarray(generations).tolist():
        best = directory / "best" / f"gen_{g:04d}.json"
        if not best.is_file():
            continue
        try:
            record = rundir.read_best(best)
        except rundir.RunFileError as exc:
            raise PlotError(str(exc)) from None
        yield g, best, record


def new_figure(size, dpi):
    """A matplotlib Figure of ``size`` pixels at ``dpi``, laid out by matplotlib ("constrained")
    and drawn off screen (Agg)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(size[0] / dpi, size[1] / dpi), dpi=dpi, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def generation_axis(ax, generations) -> None:
    """Panels sharing ``ax``'s x axis span ``generations`` (one generation: a unit around it),
    whole generations on the ticks; with none, ``ax`` says no bodies are recorded yet."""
    from matplotlib.ticker import MaxNLocator

    g = generations
    if len(g) == 1:
        ax.set_xlim(g[0] - 0.5, g[0] + 0.5)
    elif len(g):
        ax.set_xlim(g[0], g[-1])
    else:
        ax.text(0.5, 0.5, "no bodies recorded yet", transform=ax.transAxes, ha="center", color="0.4")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=1))


def add_panels_legend(fig, axes, size, dpi) -> None:
    """One legend below a grid of panels, of every label they have: one row if it fits (as the
    fitness chart's legend), else two, else one column."""
    handles, labels = [], []
    for ax in axes:
        for h, label in zip(*ax.get_legend_handles_labels()):
            if label not in labels:
                handles.append(h)
                labels.append(label)
    if handles:
        em = 0.83 * 10 * dpi / 72
        width = sum(0.6 * em * len(label) + 4.8 * em for label in labels)
        columns = next((c for c in (len(labels), math.ceil(len(labels) / 2))
                        if width * c / len(labels) < 0.95 * size[0]), 1)
        fig.legend(handles, labels, loc="outside lower center", ncols=columns, frameon=False,
                   fontsize="small")

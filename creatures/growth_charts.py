"""The charts of a run whose body grows (``creatures evolve --grow``), and what they read of it:

- ``body_size.png`` (:func:`body_size_figure`, from :func:`read_body_sizes`: :class:`SizeData`):
  the number of spheres, bones and muscles over generations;
- ``lineage.png`` (:func:`lineage_figure`, from :func:`read_lineage`: :class:`LineageData`): the
  bodies along the champion's ancestry, from the seed to its own.

:mod:`creatures.charts` reads them with the rest of a run and writes them with its other charts
(and re-exports every name here); both take their colours, figure and legend from
:mod:`creatures.chart_base`. The figures take the run as :func:`creatures.charts.read_run` reads
it (a :class:`creatures.charts.RunData`, not imported here: that would be an import circle).
"""

from __future__ import annotations

import dataclasses

import math
import textwrap
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from evolution import rundir
from evolution.growth import GrowSettings, Plan

from .chart_base import COLOURS, DEFAULT_SIZE, PlotError, add_panels_legend, best_records, generation_axis, new_figure

__all__ = ["MAX_LINEAGE_PANELS", "ROW_ARROW", "SIZE_PARTS", "MAX_PART_COUNT", "MAX_EXTENT", "SizeData",
           "LineageData", "read_body_sizes", "read_lineage", "body_size_figure", "lineage_panels",
           "lineage_label", "lineage_figure"]

#: the lineage draws at most this many bodies (the first, the last, and evenly spaced between)
MAX_LINEAGE_PANELS = 12
#: the length of the arrows out of a row of the lineage's panels and into the next row (points)
ROW_ARROW = 16
#: what a grown body's size counts, in the order a best file's ``population_sizes`` lists them
SIZE_PARTS = ("spheres", "bones", "muscles")
#: more parts of a kind than any body grows to (a run's limits are at most 64): a count above
#: it is a damaged file
MAX_PART_COUNT = 10_000
#: farther from the origin than any body grows (m): a sphere's position or radius beyond it is a
#: damaged file
MAX_EXTENT = 10_000.0


@dataclass
class SizeData:
    """The body sizes of a growing run's generations (those whose ``best/gen_NNNN.json`` is
    there): how many spheres, bones and muscles, in the order of ``SIZE_PARTS`` (the last axis).

    generations : ndarray, shape (G,)
    champion : ndarray of int, shape (G, 3)
        each generation's champion's
    mean, p10, p90 : ndarray, shape (G, 3)
        the population's mean, 10th percentile and 90th percentile
    limits : tuple of int, (3,)
        the most the run lets a body have of each (its growth settings)
    """

    generations: np.ndarray
    champion: np.ndarray
    mean: np.ndarray
    p10: np.ndarray
    p90: np.ndarray
    limits: tuple


@dataclass
class LineageData:
    """The bodies along the ancestry of a growing run's champion (:func:`read_lineage`): each
    structure as it was the generation it changed (a sphere or a bone added or removed, a bone
    turned muscle or back), the seed's first, then the champion's own body if only its values
    moved since.

    generation : int
        the champion's generation (the best file it is from)
    generations : list of int, (N,)
        each body's: 0 for the seed, the generation a change was bred for, the champion's for
        its own body
    plans : list of Plan, (N,)
    moved : bool
        whether the last body is the champion's own, added because its values moved since its
        structure last changed (else the last change is the champion's body to the bit)
    """

    generation: int
    generations: list
    plans: list
    moved: bool = False


# --- reading a growing run -----------------------------------------------------------------------

def read_body_sizes(directory: Path, settings: dict, generations) -> SizeData | None:
    """The body sizes of ``generations`` of the run in ``directory`` (their best files'
    ``population_sizes`` and champion's body plan), or None for a run whose body does not grow
    (its settings' ``grow`` is null or absent). A generation whose best file is missing is left
    out; a damaged one is a :class:`PlotError` naming it."""
    if settings.get("grow") is None:
        return None
    try:
        grow = GrowSettings.from_dict(settings["grow"])
    except ValueError as exc:
        raise PlotError(f"{directory / 'settings.json'}: its growth settings ('grow'): {exc}") from None
    gens, rows = [], {"champion": [], "mean": [], "p10": [], "p90": []}
    for g, best, record in best_records(directory, generations):
        sizes = record.get("population_sizes")
        if not isinstance(sizes, list) or not sizes:
            raise PlotError(f"{best}: no 'population_sizes' (the generation's body sizes)")
        counts = np.array([_body_size(size, best, f"'population_sizes' item {k + 1}")
                           for k, size in enumerate(sizes)], dtype=np.float64)
        q = np.percentile(counts, [10, 90], axis=0)
        gens.append(g)
        for name, row in (("champion", _plan_size(record["genome"].get("body"), best)),
                          ("mean", counts.mean(axis=0)), ("p10", q[0]), ("p90", q[1])):
            rows[name].append(row)
    G = len(gens)
    arrays = {name: np.asarray(r, dtype=np.int64 if name == "champion" else np.float64).reshape(G, 3)
              for name, r in rows.items()}
    return SizeData(np.asarray(gens, dtype=np.int64), limits=(grow.spheres, grow.bones, grow.muscles), **arrays)


def _body_size(size, path: Path, where: str) -> list:
    """``[spheres, bones, muscles]`` of a grown body as a best file's ``population_sizes`` holds it."""
    if not (isinstance(size, list) and len(size) == len(SIZE_PARTS)
            and all(isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= MAX_PART_COUNT for n in size)
            and size[2] <= size[1]):
        raise PlotError(f"{path}: {where} must be [spheres, bones, muscles]: whole numbers from 0 to "
                        f"{MAX_PART_COUNT}, no more muscles than bones")
    return size


def _plan_size(body, path: Path) -> tuple[int, int, int]:
    """``(spheres, bones, muscles)`` of a champion's grown body (its genome's ``body`` -> ``plan``)."""
    return _genome_plan(body, path).size()


def _genome_plan(body, path: Path) -> Plan:
    """The plan of a champion's grown body (its genome's ``body`` -> ``plan``)."""
    if not isinstance(body, dict) or "plan" not in body:
        raise PlotError(f"{path}: the genome's 'body' must be an object with a 'plan' (a grown body's)")
    try:
        return Plan.from_dict(body["plan"])
    except ValueError as exc:
        raise PlotError(f"{path}: the genome's body plan: {exc}") from None


def read_lineage(directory: Path, settings: dict, generations) -> LineageData | None:
    """The body structures along the ancestry of the run's champion (the best of ``generations``
    that :func:`evolution.rundir.champion_record` picks), from its best file's ``body_history``,
    then its own body if only its values moved since the last change; None for a run whose body
    does not grow, one with no best file yet, or one from before ``body_history`` was recorded.
    A damaged best file is a :class:`PlotError` naming it."""
    if settings.get("grow") is None:
        return None
    found = []   # (path, what champion_record reads of each record)
    for g, best, record in best_records(directory, generations):
        found.append((best, {k: record[k] for k in ("generation", "fitness", "post") if k in record}))
    if not found:
        return None
    champion = rundir.champion_record([r for _, r in found])
    path = next(p for p, r in found if r is champion)
    try:
        record = rundir.read_best(path)   # (read again: only the champion's is kept whole)
    except rundir.RunFileError as exc:
        raise PlotError(str(exc)) from None
    history = record.get("body_history")
    if history is None or history == []:   # a run from before it (or resumed from one): not known
        return None
    if not isinstance(history, list):
        raise PlotError(f"{path}: 'body_history' must be a list of [generation, plan] pairs")
    generation = record["generation"]
    bodies, previous = [], 0
    for k, item in enumerate(history):
        where = f"'body_history' item {k + 1}"
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], int)
                and not isinstance(item[0], bool) and isinstance(item[1], dict)):
            raise PlotError(f"{path}: {where} must be [generation, plan]: a whole number and a body plan")
        g = item[0]
        if not previous <= g <= generation:
            raise PlotError(f"{path}: {where}: generation {g} is not from {previous} to {generation} "
                            f"(the generations of an ancestry go up to the file's)")
        try:
            plan = Plan.from_dict(item[1])
        except ValueError as exc:
            raise PlotError(f"{path}: {where}: {exc}") from None
        bodies.append((g, _drawable(plan, path, where)))
        previous = g
    own = _drawable(_genome_plan(record["genome"].get("body"), path), path, "the genome's body plan")
    if _parts(own) != _parts(bodies[-1][1]):
        raise PlotError(f"{path}: 'body_history' does not end in the champion's body (its last plan has "
                        f"other parts than the genome's)")
    moved = own != bodies[-1][1]
    if moved:   # the same parts, moved or resized since the last change: the champion's as it is
        bodies.append((generation, own))
    return LineageData(generation, [g for g, _ in bodies], [b for _, b in bodies], moved)


def _parts(plan: Plan) -> tuple:
    """Which spheres and bones a plan has, and which bones are muscles (not where they are)."""
    return (sorted(s[0] for s in plan.spheres), sorted((b[0], b[1], b[2], b[3] >= 0) for b in plan.bones))


def _drawable(plan: Plan, path: Path, where: str) -> Plan:
    """``plan``, if it can be drawn: at least one sphere, each of a radius > 0 and its own
    innovation, within :data:`MAX_EXTENT`, no more parts than :data:`MAX_PART_COUNT`, bones
    between its spheres."""
    spheres = {s[0] for s in plan.spheres}
    if not 1 <= len(plan.spheres) <= MAX_PART_COUNT or len(plan.bones) > MAX_PART_COUNT:
        raise PlotError(f"{path}: {where}: a body of {len(plan.spheres)} spheres and {len(plan.bones)} bones "
                        f"(1 to {MAX_PART_COUNT} spheres, at most {MAX_PART_COUNT} bones)")
    if len(spheres) < len(plan.spheres):
        raise PlotError(f"{path}: {where}: two spheres have the same innovation")
    for s in plan.spheres:
        if not (0 < s[4] <= MAX_EXTENT and abs(s[2]) <= MAX_EXTENT and abs(s[3]) <= MAX_EXTENT):
            raise PlotError(f"{path}: {where}: sphere {s[0]} at ({s[2]:g}, {s[3]:g}) with a radius of {s[4]:g} "
                            f"(a radius > 0, all within {MAX_EXTENT:g} m)")
    for b in plan.bones:
        if b[1] not in spheres or b[2] not in spheres or b[3] < -1:
            raise PlotError(f"{path}: {where}: bone {b[0]} must join two of the plan's spheres and have a "
                            f"muscle slot of 0 or more (-1: a rigid bone)")
    return plan


# --- drawing -------------------------------------------------------------------------------------

def body_size_figure(run, size=DEFAULT_SIZE, dpi=100.0):
    """The body size chart of a run whose body grows, a matplotlib Figure of ``size`` pixels: a
    panel each for its spheres, bones and muscles (side by side, or one above the other in a
    picture taller than wide) with the population's mean and middle 80 % and the generation's
    champion, generation along x."""
    from matplotlib.ticker import MaxNLocator

    sizes = run.body_sizes
    stacked = size[1] > size[0]
    fig = new_figure(size, dpi)
    axes = fig.subplots(*((len(SIZE_PARTS), 1) if stacked else (1, len(SIZE_PARTS))), sharex=True)
    g = sizes.generations
    marker = "o" if len(g) == 1 else None
    for k, (ax, part, limit) in enumerate(zip(axes, SIZE_PARTS, sizes.limits)):
        ax.fill_between(g, sizes.p10[:, k], sizes.p90[:, k], color=COLOURS["band"], lw=0, label="middle 80 %")
        ax.plot(g, sizes.mean[:, k], color=COLOURS["median"], lw=2, marker=marker, label="mean")
        ax.plot(g, sizes.champion[:, k], ls="none", marker="o", ms=4, color=COLOURS["champion"],
                clip_on=False, label="the generation's champion")
        # counts from 0, with room above the largest (the limit may be far above: its title says it)
        top = max(float(sizes.p90[:, k].max(initial=0.0)), float(sizes.champion[:, k].max(initial=0)), 1.0)
        ax.set_ylim(0, top + max(1.0, 0.1 * top))
        ax.yaxis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=1))
        ax.set_title(f"{part} (at most {limit})", fontsize="small", loc="left")
        ax.tick_params(labelsize="x-small")
        ax.grid(color="0.9", lw=0.6)
        ax.set_axisbelow(True)
        if not stacked or k == len(SIZE_PARTS) - 1:
            ax.tick_params(labelbottom=True)
            ax.set_xlabel("generation", fontsize="x-small")
    generation_axis(axes[0], g)
    population = f"; population {run.population}" if run.population else ""
    fig.suptitle(f"{run.title()}: body size{population}", x=0.01, ha="left", fontweight="bold",
                 fontsize="large")
    add_panels_legend(fig, axes, size, dpi)
    return fig


def lineage_panels(n: int, most: int = MAX_LINEAGE_PANELS) -> list[int]:
    """Which of a lineage's ``n`` bodies its picture draws: all of them, or ``most``: the first,
    the last and evenly spaced between."""
    if n <= most:
        return list(range(n))
    return np.round(np.linspace(0, n - 1, most)).astype(int).tolist()  # (n - 1) / (most - 1) > 1 apart


def lineage_label(lineage: LineageData, k: int) -> str:
    """The title of body ``k`` of a lineage: whose it is (the seed, the generation it changed,
    the champion) over its size (``3 spheres, 3 bones, 2 muscles``)."""
    g, plan = lineage.generations[k], lineage.plans[k]
    when = "seed" if g == 0 else f"generation {g}"
    if k == len(lineage.plans) - 1:
        when = (f"champion, generation {lineage.generation}" if lineage.moved or g == lineage.generation
                else f"{when}: the champion (gen. {lineage.generation})")
    counts = ", ".join(f"{n} {part[:-1] if n == 1 else part}" for n, part in zip(plan.size(), SIZE_PARTS))
    return f"{when}\n{counts}"


def _standing(plan: Plan) -> Plan:
    """``plan`` with its spheres moved up or down together to stand on y = 0 (its lowest sphere
    touching it), as a body starts on flat ground."""
    lift = -min(p[3] - p[4] for p in plan.spheres)
    return dataclasses.replace(plan, spheres=tuple((i, slot, x, y + lift, r, m)
                                                   for i, slot, x, y, r, m in plan.spheres))


def _plan_box(plan: Plan) -> np.ndarray:
    """``(x0, y0, x1, y1)``: the box around a body's spheres (m)."""
    s = np.array([p[2:5] for p in plan.spheres], dtype=np.float64)   # (P, 3): x, y, radius
    return np.concatenate([(s[:, :2] - s[:, 2:]).min(axis=0), (s[:, :2] + s[:, 2:]).max(axis=0)])


def _strip_layout(n: int, aspect: float, size, dpi) -> tuple[int, int]:
    """``(rows, columns)`` of the lineage's ``n`` panels, each a box ``aspect`` times as wide as
    high: one row (a strip), unless rows read one after the other draw the bodies much larger."""
    em = 10 * dpi / 72
    width, height = 0.96 * size[0], size[1] - 7.5 * em   # without the title and the legend
    best = (0.0, 1, n)
    for rows in range(1, n + 1):
        columns = math.ceil(n / rows)
        if rows > 1 and math.ceil(n / (rows - 1)) == columns:
            continue   # as many columns with fewer rows
        w = (width - _arrow_gap(size) * (columns - 1)) / columns
        h = height / rows - 3.5 * em            # less the panel's two lines of title
        scale = min(w / aspect, h)              # the box's height in pixels
        if scale > best[0] * 1.3:               # a row more only if the bodies are much larger
            best = (scale, rows, columns)
    return best[1], best[2]


def _arrow_gap(size) -> float:
    """The room between two panels of a row, for the arrow from one to the next (pixels)."""
    return 0.04 * size[0]


def lineage_figure(run, size=DEFAULT_SIZE, dpi=100.0):
    """The lineage picture of a growing run's champion, a matplotlib Figure of ``size`` pixels:
    its ancestors' bodies from the seed to its own, left to right (row after row when that
    draws them larger), all at one scale, an arrow from each to the next (dashed where bodies
    were left out between: at most :data:`MAX_LINEAGE_PANELS` are drawn). Each panel draws its
    spheres as circles of their radius, rigid bones and muscles as lines of their colours,
    each body standing on the ground at y = 0 as it starts (its lowest sphere on it: growth
    moves spheres, not bodies), titled with :func:`lineage_label`."""
    from matplotlib.collections import LineCollection
    from matplotlib.lines import Line2D
    from matplotlib.patches import Circle, ConnectionPatch

    lineage = run.lineage
    N = len(lineage.plans)
    shown = lineage_panels(N)
    n = len(shown)
    plans = {k: _standing(lineage.plans[k]) for k in shown}
    boxes = np.array([_plan_box(plans[k]) for k in shown])
    lo, hi = boxes[:, :2].min(axis=0), boxes[:, 2:].max(axis=0)
    pad = 0.08 * float((hi - lo).max())
    lo, hi = lo - pad, hi + pad
    rows, columns = _strip_layout(n, float((hi - lo)[0] / (hi - lo)[1]), size, dpi)
    fig = new_figure(size, dpi)
    # room between the panels of a row for its arrows, and beside the rows for the arrows from
    # one row's end to the next row's start
    side = (ROW_ARROW + 6) * dpi / 72 / size[0] if rows > 1 else 0.0
    fig.get_layout_engine().set(wspace=min(0.5, _arrow_gap(size) * (columns - 1) / size[0]), hspace=0.04,
                                rect=(side, 0, 1 - 2 * side, 1))
    axes = fig.subplots(rows, columns, squeeze=False).reshape(-1)
    panel_px = size[0] / columns
    font = "small" if panel_px > 230 else "x-small"
    chars = max(12, int(0.85 * panel_px / ((10 if font == "small" else 8) * dpi / 72 * 0.55)))
    for ax, k in zip(axes, shown):
        plan = plans[k]
        ax.set_xlim(lo[0], hi[0])
        ax.set_ylim(lo[1], hi[1])
        ax.set_aspect("equal", adjustable="box")   # one scale in every panel: growth shows
        ax.set_xticks([])
        ax.set_yticks([])
        champion = k == N - 1
        for spine in ax.spines.values():
            spine.set_color(COLOURS["champion"] if champion else "0.82")
            spine.set_linewidth(1.6 if champion else 0.8)
        if lo[1] < 0 < hi[1]:
            ax.axhspan(lo[1], 0, color=COLOURS["ground"], lw=0, zorder=0)
            ax.axhline(0, color=COLOURS["ground_line"], lw=1, zorder=0.5)
        # bones, then the spheres over them (as the viewer draws a creature)
        at = {s[0]: (s[2], s[3]) for s in plan.spheres}
        for gid, colour, lw, muscle in (("bones", COLOURS["bone"], 1.8, False),
                                        ("muscles", COLOURS["muscle"], 2.6, True)):
            segments = [(at[b[1]], at[b[2]]) for b in plan.bones if (b[3] >= 0) == muscle]
            ax.add_collection(LineCollection(segments, colors=colour, linewidths=lw, capstyle="round",
                                             zorder=2 + muscle, gid=gid))
        for s in plan.spheres:
            ax.add_patch(Circle((s[2], s[3]), s[4], facecolor=COLOURS["sphere"], edgecolor=COLOURS["sphere_rim"],
                                lw=1, zorder=4))
        when, counts = lineage_label(lineage, k).split("\n")
        ax.set_title(f"{when}\n{textwrap.fill(counts, chars)}", fontsize=font,
                     fontweight="bold" if champion else "normal")
    for ax in axes[n:]:
        ax.set_visible(False)

    # an arrow from each body to the next: across the gap in a row, out of a row's end and into
    # the next row's start; dashed where bodies were left out between
    for i in range(n - 1):
        left_out = shown[i + 1] - shown[i] > 1
        style = dict(arrowstyle="-|>", color=COLOURS["arrow"], lw=1.3, mutation_scale=12,
                     ls=(0, (3, 2)) if left_out else "-")
        a, b = axes[i], axes[i + 1]
        if (i + 1) % columns:
            fig.add_artist(ConnectionPatch((1, 0.5), (0, 0.5), "axes fraction", "axes fraction", axesA=a,
                                           axesB=b, shrinkA=3, shrinkB=3, **style))
        else:
            a.annotate("", (1, 0.5), xycoords="axes fraction", xytext=(ROW_ARROW, 0), textcoords="offset points",
                       arrowprops={**style, "arrowstyle": "<|-"})
            b.annotate("", (0, 0.5), xycoords="axes fraction", xytext=(-ROW_ARROW, 0), textcoords="offset points",
                       arrowprops=style)

    changes = N - 1 - lineage.moved
    notes = [f"{changes} change{'' if changes == 1 else 's'} of structure along the champion's ancestry" if changes
             else "no change of structure along the champion's ancestry"]
    if lineage.moved:
        notes.append("then the champion's own body (the same parts, moved)")
    if n < N:
        notes.append(f"{n} of {N} bodies drawn, {N - n} left out (dashed arrows)")
    notes.append(f"all at one scale: each panel {hi[0] - lo[0]:.2g} m wide")
    fig.suptitle(f"{run.title()}: the champion's lineage", x=0.01, ha="left", fontweight="bold", fontsize="large")
    handles = [Line2D([], [], ls="none", marker="o", ms=8, mfc=COLOURS["sphere"], mec=COLOURS["sphere_rim"]),
               Line2D([], [], color=COLOURS["bone"], lw=1.8), Line2D([], [], color=COLOURS["muscle"], lw=2.6)]
    labels = ["sphere", "rigid bone", "muscle"]
    fig.legend(handles, labels, loc="outside lower center", ncols=len(labels), frameon=False, fontsize="small",
               title=textwrap.fill("; ".join(notes), max(40, int(0.9 * size[0] / (0.83 * 10 * dpi / 72 * 0.55)))),
               title_fontsize="small")
    return fig

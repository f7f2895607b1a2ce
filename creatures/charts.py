"""A run's charts: its fitness percentiles and species sizes over generations, as PNG pictures
(``creatures plot`` writes them; the play window draws the same series live).

Two files, and more for a run whose body evolves or grows:

- ``fitness.png``: the best, 90th percentile, median, 10th percentile and worst fitness of each
  generation (after carykh's percentile graph), with the 10th..90th and 25th..75th percentile
  bands shaded. A creature whose simulation failed scores -1000; the percentiles are those of
  the creatures that did not fail (so that a generation where half failed does not flatten the
  chart), and the share that failed, when any did, is drawn in a small panel below.
- ``species.png``: how many creatures each species holds, stacked, so the stack's height is the
  population; every species keeps one colour in every chart (it follows from its id).
- ``body.png``, only for a run whose body evolves: a small panel per evolvable value (titled
  with its label, in its units, angles in degrees) with the population's median and middle
  80 % per generation, the generation's champion marked and the design's start dashed; and a
  panel per optional part with the share of the population that has it on.
- ``body_size.png``, only for a run whose body grows (``creatures evolve --grow``): a panel each
  for the number of spheres, bones and muscles, with the population's mean and middle 80 % per
  generation and the generation's champion marked (each panel's title says the run's limit).
- ``lineage.png``, only for a run whose body grows and whose best files record ``body_history``:
  the bodies along the run's champion's ancestry (carykh's family tree in one picture), from the
  seed to the champion's own, left to right, each as it was the generation its structure changed
  (spheres as circles of their radius, rigid bones and muscles as lines, all at one scale),
  titled with that generation and its size, an arrow from each to the next; at most
  ``MAX_LINEAGE_PANELS`` of them (the first, the last, and evenly spaced between).

A run still evolving can be plotted: the charts show the generations finished so far (the run
writes its CSV files atomically, so a reader never sees half a row).

This module reads a run and writes its charts, and draws the first three; a growing run's two
(what they read of it, and how they are drawn) are in :mod:`creatures.growth_charts`, and what
every chart is drawn with in :mod:`creatures.chart_base`. Every public name of both is
importable from here too.
"""

from __future__ import annotations

import colorsys
import importlib.util
import io
import math
import textwrap
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from evolution import PluginError, resolve, rundir
from evolution.bodygenes import BodyGenes, Gene
from evolution.growgenes import seed_genes
from evolution.files import make_directory, write_atomic
from evolution.run import OK_FIELDS
from evolution.tasks import WORST_FITNESS

from .chart_base import COLOURS, DEFAULT_SIZE, PlotError, add_panels_legend, best_records, generation_axis, new_figure
from .design.schema import unit
from .growth_charts import (MAX_EXTENT, MAX_LINEAGE_PANELS, MAX_PART_COUNT, ROW_ARROW, SIZE_PARTS, LineageData,
                            SizeData, body_size_figure, lineage_figure, lineage_label, lineage_panels,
                            read_body_sizes, read_lineage)

__all__ = [
    # sizes, colours, limits
    "DEFAULT_SIZE", "FULL_DPI_SIZE", "MIN_AUTO_DPI", "MIN_SIZE", "MAX_SIZE", "COLOURS", "MAX_BODY_PANELS",
    "MAX_LINEAGE_PANELS", "ROW_ARROW", "SIZE_PARTS", "MAX_PART_COUNT", "MAX_EXTENT", "STATS_COLUMNS",
    "FAILURE_COLUMNS", "FRESH_COLUMN", "SPECIES_COLUMNS", "RUN_FILES", "MAX_SPECIES", "MAX_SPECIES_CELLS",
    "OK_QUANTILES",
    # reading a run
    "PlotError", "RunData", "BodyData", "SizeData", "LineageData", "read_run", "known_ok", "read_body_genes",
    "read_body_sizes", "read_lineage", "in_units", "gene_unit",
    # drawing and writing
    "species_colour", "auto_dpi", "fitness_label", "fitness_figure", "species_figure", "body_figure",
    "body_size_figure", "lineage_panels", "lineage_label", "lineage_figure", "check_size", "plot_run",
]

# The dpi sets the size of text and lines; the picture is --size pixels whatever it is. By default
# it is 100 at 1200x700 and less for smaller pictures, so that their text leaves room for the chart.
FULL_DPI_SIZE = (1100, 640)
MIN_AUTO_DPI = 55.0
MIN_SIZE = (400, 300)
MAX_SIZE = (10000, 10000)

#: the body chart draws at most this many panels (values first, then optional parts)
MAX_BODY_PANELS = 64


def in_units(gene: Gene, values):
    """A gene's values (the engine's units) as people read them: joint limits in degrees."""
    if gene.part == "joint" and gene.field in ("min", "max"):
        return np.degrees(values)
    return values


def gene_unit(gene: Gene) -> str:
    """A gene's unit as the body chart and ``creatures evolve`` show it (the design format's)."""
    return unit(gene.part, gene.field)


STATS_COLUMNS = ("generation", "best", "p90", "p75", "median", "p25", "p10", "worst")
#: read when stats.csv has them: the failed creatures, the creatures evaluated, and the
#: percentiles of those that did not fail (older runs have some or none of them)
FAILURE_COLUMNS = ("failed", "creatures") + OK_FIELDS
#: read when stats.csv has it: the generation's best scored again from fresh starts (its mean)
FRESH_COLUMN = "post_mean"
SPECIES_COLUMNS = ("generation", "species", "size")
RUN_FILES = ("stats.csv", "species.csv", "settings.json")
#: the species chart: at most this many species (each is drawn: a few ms each), and a table of
#: species x generations of at most this many cells (8 bytes each)
MAX_SPECIES = 2000
MAX_SPECIES_CELLS = 10_000_000


@dataclass
class RunData:
    """What the charts need from a run directory.

    stats : dict of column name -> ndarray, shape (G,)
        the columns of ``STATS_COLUMNS`` for the G finished generations, generation ascending;
        ``ok_p90`` ... ``ok_worst``, the percentiles of the creatures that did not fail (NaN
        where an older run did not record them and some failed); ``failed_share``, the share
        (0..1) of each generation that failed (NaN where not known); ``post_mean``, the best
        one's mean from fresh starts, when the run scored them
    species_generations : ndarray, shape (N,)
        the generations species.csv has rows for, ascending
    species_ids : ndarray, shape (K,)
        every species id that ever appears, ascending (oldest first)
    species_sizes : ndarray, shape (K, N)
        members of each species in each generation; 0 while a species does not exist
    body : BodyData or None
        the body genes over generations, for a run whose body evolves (None otherwise)
    body_sizes : SizeData or None
        the body sizes over generations, for a run whose body grows (None otherwise)
    lineage : LineageData or None
        the champion's ancestors' bodies, for a run whose body grows and that recorded them
    """

    directory: Path
    settings: dict
    stats: dict
    species_generations: np.ndarray
    species_ids: np.ndarray
    species_sizes: np.ndarray
    body: "BodyData | None" = None
    body_sizes: "SizeData | None" = None
    lineage: "LineageData | None" = None

    @property
    def design(self) -> str:
        name = self.settings.get("design_name")
        return name if isinstance(name, str) and name else self.directory.name

    @property
    def task(self) -> str | None:
        task = self.settings.get("task")
        return task if isinstance(task, str) else None

    @property
    def measures(self) -> str | None:
        """What the run's fitness measures: recorded by the run, or a built-in task's own."""
        measures = self.settings.get("measures")
        if isinstance(measures, str) and measures:
            return measures
        return _builtin(self.task, "measures") if self.task else None

    @property
    def population(self) -> int | None:
        n = self.settings.get("population")
        return n if isinstance(n, int) and not isinstance(n, bool) and n > 0 else None

    def title(self) -> str:
        """``walker: run on flat ground, seed 5``, with what settings.json knows."""
        parts = []
        if self.task:
            terrain = self.settings.get("terrain") or _builtin(self.task, "default_terrain")
            parts.append(f"{self.task} on {terrain} ground" if isinstance(terrain, str) else self.task)
        seed = self.settings.get("seed")
        if isinstance(seed, int) and not isinstance(seed, bool):
            parts.append(f"seed {seed}")
        return f"{self.design}: {', '.join(parts)}" if parts else self.design

    def progress(self) -> str:
        """``population 150, generation 12 of 50``."""
        last = int(self.stats["generation"][-1])
        total = self.settings.get("generations")
        gens = (f"generation {last} of {total}" if isinstance(total, int) and total > last
                else f"{last} generation{'s' if last != 1 else ''}")
        return f"population {self.population}, {gens}" if self.population else gens


@dataclass
class BodyData:
    """The body genes of a run's generations (those whose ``best/gen_NNNN.json`` is there), in
    the units :func:`in_units` shows.

    genes : BodyGenes
    generations : ndarray, shape (G,)
    p10, median, p90 : ndarray, shape (G, V)
        the population's 10th percentile, median and 90th percentile of each value
    champion : ndarray, shape (G, V)
        each generation's champion's values
    on : ndarray, shape (G, S)
        the share (0..1) of the population with each optional part on
    champion_on : ndarray of bool, shape (G, S)
    """

    genes: BodyGenes
    generations: np.ndarray
    p10: np.ndarray
    median: np.ndarray
    p90: np.ndarray
    champion: np.ndarray
    on: np.ndarray
    champion_on: np.ndarray


# --- reading a run -------------------------------------------------------------------------------

def read_run(run_dir) -> RunData:
    """Read the finished generations of a run directory. Raises :class:`PlotError`."""
    directory = Path(run_dir)
    if not directory.exists():
        raise PlotError(f"{directory}: no such directory")
    if not directory.is_dir():
        raise PlotError(f"{directory} is not a directory")
    missing = [name for name in RUN_FILES if not (directory / name).is_file()]
    if missing:
        raise PlotError(f"{directory} is not a run directory (no {', '.join(missing)})")
    settings = _read_settings(directory / "settings.json")

    header = _header(directory / "stats.csv")
    columns = STATS_COLUMNS + tuple(c for c in (*FAILURE_COLUMNS, FRESH_COLUMN) if c in header)
    rows = _read_csv(directory / "stats.csv", columns, ints=("generation", "failed", "creatures"))
    if not rows:
        raise PlotError(f"{directory} has no finished generation yet (stats.csv holds only its "
                        f"header): nothing to plot")
    _check_increasing(directory / "stats.csv", rows)
    stats = {c: np.array([row[c] for _, row in rows], dtype=np.int64 if c == "generation" else np.float64)
             for c in columns}

    path = directory / "species.csv"
    rows = _read_csv(path, SPECIES_COLUMNS, ints=SPECIES_COLUMNS)
    seen = set()
    for line, row in rows:
        if row["generation"] < 1 or row["species"] < 0 or row["size"] < 0:
            raise PlotError(f"{path}:{line}: generation must be 1 or more, species and size 0 or more")
        key = (row["generation"], row["species"])
        if key in seen:
            raise PlotError(f"{path}:{line}: species {key[1]} of generation {key[0]} appears twice")
        seen.add(key)
    generations = np.array(sorted({g for g, _ in seen}), dtype=np.int64)
    ids = np.array(sorted({s for _, s in seen}), dtype=np.int64)
    if len(ids) > MAX_SPECIES or len(ids) * len(generations) > MAX_SPECIES_CELLS:
        raise PlotError(f"{path}: {len(ids)} species over {len(generations)} generations are too many to "
                        f"chart (at most {MAX_SPECIES} species, and species x generations at most "
                        f"{MAX_SPECIES_CELLS})")
    sizes = np.zeros((len(ids), len(generations)), dtype=np.int64)
    for _, row in rows:
        sizes[np.searchsorted(ids, row["species"]), np.searchsorted(generations, row["generation"])] = row["size"]
    body = read_body_genes(directory, stats["generation"], grows=settings.get("grow") is not None)
    body_sizes = read_body_sizes(directory, settings, stats["generation"])
    lineage = read_lineage(directory, settings, stats["generation"])
    _add_failures(stats, generations, sizes, settings)
    return RunData(directory, settings, stats, generations, ids, sizes, body, body_sizes, lineage)


def _header(path: Path) -> set:
    """The column names of a CSV file's header line (empty if it cannot be read: the reader
    then says why)."""
    try:
        with open(path, "rb") as f:
            return {h.strip() for h in f.readline(4096).decode("utf-8", "replace").split(",")}
    except OSError:
        return set()


#: the percentile (0: the worst) each ``ok_`` column is
OK_QUANTILES = {"ok_p90": 90, "ok_p75": 75, "ok_median": 50, "ok_p25": 25, "ok_p10": 10, "ok_worst": 0}


def known_ok(name: str, ok, plain, creatures, failed) -> np.ndarray:
    """An ``ok_`` column where a run from before it did not record it (NaN): the plain
    percentile where the failed creatures (the lowest scores, -1000) do not reach it (none failed:
    it is the same; a few: it is a value of one that did not fail, near the one it stands for),
    else NaN (a gap rather than a dive). ``creatures`` and ``failed``: counts per generation
    (0 creatures: not known)."""
    ok, plain = np.asarray(ok, np.float64), np.asarray(plain, np.float64)
    creatures, failed = np.asarray(creatures, np.float64), np.asarray(failed, np.float64)
    lowest = np.floor(OK_QUANTILES[name] / 100.0 * np.maximum(creatures - 1, 0))  # numpy's percentile's
    clean = (creatures > 0) & (lowest >= failed) | (failed == 0)
    return np.where(np.isnan(ok), np.where(clean, plain, np.nan), ok)


def _add_failures(stats: dict, generations, sizes, settings: dict) -> None:
    """``stats``' ``ok_*`` columns where a run did not record them (:func:`known_ok`; NaN without
    a ``failed`` column) and ``failed_share`` (over the creatures evaluated: recorded, or the
    species' sizes, or the population)."""
    nan = np.full(stats["generation"].shape, np.nan)
    failed = stats.get("failed")
    counted = stats.get("creatures", np.zeros(nan.shape))
    totals = dict(zip(np.asarray(generations).tolist(), sizes.sum(axis=0).tolist())) if sizes.size else {}
    population = settings.get("population")
    population = population if isinstance(population, int) and population > 0 else 0
    creatures = np.array([c if c > 0 else totals.get(int(g), population)
                          for g, c in zip(stats["generation"].tolist(), counted.tolist())], np.float64)
    for name in OK_FIELDS:
        if failed is None:
            stats.setdefault(name, nan)
        else:
            stats[name] = known_ok(name, stats.get(name, nan), stats[name[3:]], creatures, failed)
    with np.errstate(invalid="ignore", divide="ignore"):
        stats["failed_share"] = (nan if failed is None else
                                 np.where(creatures > 0, np.minimum(failed / creatures, 1.0), np.nan))


def read_body_genes(directory: Path, generations, grows: bool = False) -> BodyData | None:
    """The body genes of ``generations`` of the run in ``directory`` (their best files'
    ``population_bodies`` and champion's ``body``), or None for a run whose body does not evolve
    (in a run whose body ``grows``, the genes its genomes carry beside their plans:
    :mod:`evolution.growgenes`). A generation whose best file is missing is left out; a damaged
    one is a :class:`PlotError` naming it."""
    path = directory / "body.json"
    if not path.is_file():
        return None
    try:
        data = rundir.read_object(path, what="creature's body")
    except rundir.RunFileError as exc:
        raise PlotError(str(exc)) from None
    if "evolve" not in data:
        return None
    try:
        genes = BodyGenes.from_dict(data["evolve"])
    except ValueError as exc:
        raise PlotError(f"{path}: its evolvable values ('evolve'): {exc}") from None
    if grows:
        genes = seed_genes(genes).carried
    if not genes:
        return None
    V, S = genes.n_values, genes.n_parts
    gens, rows = [], {"p10": [], "median": [], "p90": [], "champion": [], "on": [], "champion_on": []}
    for g, best, record in best_records(directory, generations):
        bodies = record.get("population_bodies")
        if not isinstance(bodies, list) or not bodies:
            raise PlotError(f"{best}: no 'population_bodies' (the generation's bodies)")
        values = np.empty((len(bodies), V))
        parts = np.empty((len(bodies), S), dtype=bool)
        for k, body in enumerate(bodies):
            values[k], parts[k] = _body_genes(body, V, S, best, f"'population_bodies' item {k + 1}")
        champion, champion_parts = _body_genes(record["genome"].get("body"), V, S, best, "the genome's 'body'")
        q = np.percentile(values, [10, 50, 90], axis=0) if V else np.zeros((3, 0))
        gens.append(g)
        for name, row in (("p10", q[0]), ("median", q[1]), ("p90", q[2]), ("champion", champion),
                          ("on", parts.mean(axis=0)), ("champion_on", champion_parts)):
            rows[name].append(row)
    G = len(gens)
    arrays = {name: np.asarray(r, dtype=bool if name == "champion_on" else np.float64).reshape(G, -1)
              for name, r in rows.items()}
    for name in ("p10", "median", "p90", "champion"):  # in the units people read
        for k, gene in enumerate(genes.genes):
            arrays[name][:, k] = in_units(gene, arrays[name][:, k])
    return BodyData(genes, np.asarray(gens, dtype=np.int64), **arrays)


def _body_genes(body, V: int, S: int, path: Path, where: str):
    """``(values (V,), parts (S,))`` of a genome's body genes as a best file holds them."""
    if not isinstance(body, dict):
        raise PlotError(f"{path}: {where} must be an object with 'values' and 'parts'")
    values, parts = body.get("values"), body.get("parts")
    if not (isinstance(values, list) and len(values) == V
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in values)):
        raise PlotError(f"{path}: {where}: 'values' must be {V} finite numbers")
    if not (isinstance(parts, list) and len(parts) == S and all(isinstance(p, bool) for p in parts)):
        raise PlotError(f"{path}: {where}: 'parts' must be {S} true or false")
    return np.asarray(values, dtype=np.float64), np.asarray(parts, dtype=bool)


def _read_settings(path: Path) -> dict:
    try:
        return rundir.read_object(path, what="run's settings")
    except rundir.RunFileError as exc:
        raise PlotError(str(exc)) from None


def _read_csv(path: Path, columns: tuple[str, ...], ints: tuple[str, ...]) -> list[tuple[int, dict]]:
    """The rows of a run's CSV file as (line number, {column: value}) for ``columns``
    (:func:`evolution.rundir.read_csv`)."""
    try:
        return rundir.read_csv(path, columns, ints, numbered=True)
    except rundir.RunFileError as exc:
        raise PlotError(str(exc)) from None


def _check_increasing(path: Path, rows) -> None:
    previous = 0
    for line, row in rows:
        if row["generation"] <= previous:
            raise PlotError(f"{path}:{line}: generation {row['generation']} after generation {previous}"
                            if previous else f"{path}:{line}: generation {row['generation']} is not 1 or more")
        previous = row["generation"]


# --- drawing -------------------------------------------------------------------------------------

def species_colour(species_id: int) -> tuple[float, float, float]:
    """A species' colour (RGB in 0..1), the same in every chart: hues a golden angle apart, so
    species created one after the other never look alike."""
    hue = (0.58 + species_id * 0.6180339887498949) % 1.0
    value = 0.93 if species_id % 2 else 0.8
    return colorsys.hsv_to_rgb(hue, 0.55, value)


def auto_dpi(size) -> float:
    """The dpi for a picture of ``size`` pixels when none is given: 100, or less for a small one."""
    return max(MIN_AUTO_DPI, 100.0 * min(1.0, size[0] / FULL_DPI_SIZE[0], size[1] / FULL_DPI_SIZE[1]))


def _titles(fig, ax, title: str, subtitle: str) -> None:
    fig.suptitle(title, x=0.01, ha="left", fontweight="bold", fontsize="large")
    ax.set_title(subtitle, loc="left", color="0.35", fontsize="medium")


def _builtin(task: str, attribute: str) -> str | None:
    """An attribute of a built-in task (no plug-in code runs for a chart)."""
    try:
        plugin = resolve("task", task) if task and ":" not in task else None
    except PluginError:
        return None
    if plugin is None or plugin.ref.source != "built-in":
        return None
    return str(getattr(plugin.sample, attribute))


def fitness_label(measures: str | None, height_px: int, dpi: float) -> str:
    """The y label, from what the task's fitness measures, wrapped to the chart's height."""
    if not measures:
        return "fitness"
    label = "fitness: " + measures
    chars = max(20, int(height_px * 0.8 / (10 * dpi / 72 * 0.55)))  # 10 pt text, ~0.55 em a character
    return textwrap.fill(label, chars)


def fitness_figure(run: RunData, size=DEFAULT_SIZE, dpi=100.0):
    """The fitness percentile chart, a matplotlib Figure of ``size`` pixels."""
    from matplotlib.ticker import MaxNLocator

    fig = new_figure(size, dpi)
    s = run.stats
    share = np.nan_to_num(s["failed_share"])
    failures = bool(share.max(initial=0.0) > 0.0)
    if failures:   # the share that failed in a small panel of its own, under the fitness
        ax, failed_ax = fig.subplots(2, 1, sharex=True, height_ratios=(5, 1))
    else:
        ax = fig.add_subplot()
    g = s["generation"]
    marker = "o" if len(g) == 1 else None  # a line needs two points to show
    # the percentiles of the creatures that did not fail (gaps where an older run did not
    # record them and the failed ones reach the plain ones: known_ok)
    s = {**s, **{n[3:]: s[n] for n in OK_FIELDS}}

    # bands, then lines: thin best, percentiles and worst, a bold median on top
    ax.fill_between(g, s["p10"], s["p90"], color=COLOURS["band"], lw=0, label="middle 80 %")
    ax.fill_between(g, s["p25"], s["p75"], color=COLOURS["band_inner"], lw=0, label="middle 50 %")
    ax.plot(g, s["best"], color=COLOURS["best"], lw=1.5, marker=marker, label="best")
    ax.plot(g, s["p90"], color=COLOURS["p90"], lw=1, marker=marker, label="90th percentile")
    ax.plot(g, s["p10"], color=COLOURS["p90"], lw=1, ls=(0, (4, 2)), marker=marker, label="10th percentile")
    ax.plot(g, s["worst"], color=COLOURS["worst"], lw=1.5, marker=marker, label="worst")
    ax.plot(g, s["median"], color=COLOURS["median"], lw=3, marker=marker, label="median")
    fresh = FRESH_COLUMN in s
    if fresh:   # what the best does from starts it was not selected on: the honest number
        ax.plot(g, s[FRESH_COLUMN], color=COLOURS["fresh"], lw=1.5, ls=(0, (5, 2)), marker=marker,
                label="best, from fresh starts")

    # a failed creature scores WORST_FITNESS: far below the rest, it would flatten the chart
    # (drawn lines reach it only where all failed, or in a run that did not record the others')
    values = np.concatenate([s[c] for c in ("best", "p90", "median", "p10", "worst") + ((FRESH_COLUMN,) if fresh else ())])
    values = values[np.isfinite(values)]
    fine = values > WORST_FITNESS
    if fine.any() and not fine.all():
        lo, hi = values[fine].min(), values[fine].max()
        pad = 0.06 * (hi - lo) or 0.5
        ax.set_ylim(lo - pad, hi + pad)
        ax.text(0.01, 0.015, f"failed creatures score {WORST_FITNESS:g}, below the chart",
                transform=ax.transAxes, fontsize="small", color=COLOURS["worst"], style="italic")
    lo, hi = ax.get_ylim()
    if lo < 0 < hi:
        ax.axhline(0, color="0.45", lw=0.8, zorder=1.5)

    if len(g) == 1:
        ax.set_xlim(g[0] - 0.5, g[0] + 0.5)
    else:
        ax.set_xlim(g[0], g[-1])
    ax.xaxis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=1))
    ax.grid(color="0.88", lw=0.8)
    ax.set_axisbelow(True)
    ax.set_ylabel(fitness_label(run.measures, size[1] * (5 / 6 if failures else 1), dpi))
    subtitle = run.progress()
    if failures:
        failed_ax.bar(g, 100.0 * share, width=1.0, color=COLOURS["failed"], lw=0)
        failed_ax.set_ylim(0, 100)
        failed_ax.set_yticks([0, 50, 100])
        failed_ax.grid(axis="y", color="0.88", lw=0.8)
        failed_ax.set_axisbelow(True)
        failed_ax.set_ylabel("failed %")
        failed_ax.set_xlabel("generation")
        subtitle += "; percentiles over the creatures that did not fail"
        if any(np.isnan(s[n[3:]][share > 0]).any() for n in OK_FIELDS):
            subtitle += " (gaps: this older run did not record them)"
    else:
        ax.set_xlabel("generation")
    _titles(fig, ax, f"{run.title()}: fitness", subtitle)
    handles, labels = ax.get_legend_handles_labels()
    order = [labels.index(n) for n in ("best", "best, from fresh starts", "90th percentile", "median",
                                       "10th percentile", "worst", "middle 80 %", "middle 50 %") if n in labels]
    # one row if it fits (about 0.6 em a character and 4.8 em of handle and spacing an entry),
    # else two rows, else one column
    em = 10 * dpi / 72
    width = sum(0.6 * em * len(labels[k]) + 4.8 * em for k in order)
    columns = next((n for n in (len(order), math.ceil(len(order) / 2))
                    if width * n / len(order) < 0.95 * size[0]), 1)
    fig.legend([handles[k] for k in order], [labels[k] for k in order], loc="outside lower center",
               ncols=columns, frameon=False)
    return fig


def species_figure(run: RunData, size=DEFAULT_SIZE, dpi=100.0):
    """The stacked species chart, a matplotlib Figure of ``size`` pixels. Each generation is a
    column one generation wide, centred on it."""
    from matplotlib.ticker import MaxNLocator

    fig = new_figure(size, dpi)
    ax = fig.add_subplot()
    gens, ids, sizes = run.species_generations, run.species_ids, run.species_sizes
    totals = sizes.sum(axis=0)
    top = max(run.population or 0, int(totals.max()) if totals.size else 0, 1)

    if len(gens):
        # steps: the value at gens[k] holds from gens[k] - 0.5 to the next edge
        edges = np.append(gens - 0.5, gens[-1] + 0.5)
        heights = np.concatenate([sizes, sizes[:, -1:]], axis=1)
        ax.stackplot(edges, heights, colors=[species_colour(int(i)) for i in ids], step="post", lw=0)
        ax.set_xlim(edges[0], edges[-1])
        # each species' id where it is largest, if its band is tall enough to hold it
        base = np.cumsum(sizes, axis=0) - sizes
        for k, sid in enumerate(ids):
            near_top = np.flatnonzero(sizes[k] >= 0.9 * sizes[k].max())
            j = int(near_top[len(near_top) // 2])  # the middle of its widest stretch, roughly
            if sizes[k, j] >= 0.06 * top:
                r, g_, b = species_colour(int(sid))
                ink = "black" if 0.3 * r + 0.59 * g_ + 0.11 * b > 0.5 else "white"
                ax.text(gens[j], base[k, j] + sizes[k, j] / 2, str(sid), ha="center", va="center",
                        fontsize="small", color=ink)
    else:
        ax.text(0.5, 0.5, "no species recorded yet", transform=ax.transAxes, ha="center", color="0.4")
    ax.set_ylim(0, top)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=1))
    ax.grid(axis="y", color="0.88", lw=0.8)
    ax.set_axisbelow(True)
    ax.set_xlabel("generation")
    ax.set_ylabel("creatures in each species (stacked)")
    now = int((sizes[:, -1] > 0).sum()) if len(gens) else 0
    count = f"{now} species now, {len(ids)} in all" if len(gens) else "no species yet"
    _titles(fig, ax, f"{run.title()}: species", f"{count}; {run.progress()}")
    return fig


def body_figure(run: RunData, size=DEFAULT_SIZE, dpi=100.0):
    """The body genes chart of a run whose body evolves, a matplotlib Figure of ``size`` pixels:
    a grid of small panels, one per evolvable value (its label, its units) then one per optional
    part (the share of the population with it on), generation along x."""

    body = run.body
    genes = body.genes
    panels = [("value", k, g) for k, g in enumerate(genes.genes)] + \
             [("part", k, s) for k, s in enumerate(genes.switches)]
    shown = panels[:MAX_BODY_PANELS]
    n = max(len(shown), 1)
    columns = max(1, min(n, round(math.sqrt(n * size[0] / size[1] / 1.3))))
    rows = math.ceil(n / columns)
    fig = new_figure(size, dpi)
    axes = fig.subplots(rows, columns, squeeze=False, sharex=True).reshape(-1)
    g = body.generations
    marker = "o" if len(g) == 1 else None
    small = "small" if n <= 12 else "x-small"
    for ax, (kind, k, item) in zip(axes, shown):
        if kind == "value":
            ax.fill_between(g, body.p10[:, k], body.p90[:, k], color=COLOURS["band"], lw=0, label="middle 80 %")
            ax.plot(g, body.median[:, k], color=COLOURS["median"], lw=2, marker=marker, label="median")
            ax.axhline(in_units(item, item.start), color=COLOURS["start"], lw=1, ls=(0, (4, 3)),
                       label="the design's start")
            ax.plot(g, body.champion[:, k], ls="none", marker="o", ms=3.5, color=COLOURS["champion"],
                    clip_on=False, label="the generation's champion")
            lo, hi = in_units(item, item.low), in_units(item, item.high)
            pad = 0.05 * (hi - lo) or 0.05 * abs(lo) or 0.05
            ax.set_ylim(lo - pad, hi + pad)
            ax.set_title(item.label, fontsize=small, loc="left")
            unit = gene_unit(item)
            if unit:
                ax.set_ylabel(unit, fontsize="x-small")
        else:
            share = 100.0 * body.on[:, k]
            ax.fill_between(g, 0.0, share, color=COLOURS["on"], alpha=0.45, lw=0)
            ax.plot(g, share, color=COLOURS["on"], lw=2, marker=marker, label="% of creatures with it on")
            ax.plot(g, np.where(body.champion_on[:, k], 100.0, 0.0), ls="none", marker="o", ms=3.5,
                    color=COLOURS["champion"], clip_on=False)
            ax.set_ylim(-6, 106)
            ax.set_title(f"{item.label} (optional): % on", fontsize=small, loc="left")
        ax.tick_params(labelsize="x-small")
        ax.grid(color="0.9", lw=0.6)
        ax.set_axisbelow(True)
    for ax in axes[len(shown):]:
        ax.set_visible(False)
    generation_axis(axes[0], g)
    for i, ax in enumerate(axes[:len(shown)]):
        if i + columns >= len(shown):  # the lowest panel of its column: the generations below it
            ax.tick_params(labelbottom=True)
            ax.set_xlabel("generation", fontsize="x-small")
    more = f" (the first {MAX_BODY_PANELS} of {len(panels)})" if len(panels) > len(shown) else ""
    fig.suptitle(f"{run.title()}: body genes{more}", x=0.01, ha="left", fontweight="bold", fontsize="large")
    add_panels_legend(fig, axes[:len(shown)], size, dpi)
    return fig


# --- writing -------------------------------------------------------------------------------------

def check_size(size) -> None:
    w, h = size
    if not (MIN_SIZE[0] <= w <= MAX_SIZE[0] and MIN_SIZE[1] <= h <= MAX_SIZE[1]):
        raise PlotError(f"a chart of {w}x{h} pixels is outside {MIN_SIZE[0]}x{MIN_SIZE[1]} .. "
                        f"{MAX_SIZE[0]}x{MAX_SIZE[1]}")


def _png(fig) -> bytes:
    buf = io.BytesIO()
    with warnings.catch_warnings():  # a grid of many small panels may not fit its layout: drawn anyway
        warnings.filterwarnings("ignore", message=".*layout.*", category=UserWarning)
        fig.savefig(buf, format="png", dpi=fig.dpi, metadata={"Software": None})
    return buf.getvalue()


def plot_run(run_dir, out_dir=None, size=DEFAULT_SIZE, dpi: float | None = None) -> list[Path]:
    """Write ``fitness.png`` and ``species.png`` of the run in ``run_dir`` (and ``body.png`` if
    its body evolves, ``body_size.png`` and ``lineage.png`` if it grows) to ``out_dir``
    (default: the run directory), each ``size`` = (width, height) pixels; returns their paths.
    Raises :class:`PlotError` with a one-line reason."""
    size = (int(size[0]), int(size[1]))
    check_size(size)
    dpi = auto_dpi(size) if dpi is None else float(dpi)
    if not (10 <= dpi <= 1000):
        raise PlotError(f"a dpi of {dpi:g} is outside 10 .. 1000")
    run = read_run(run_dir)
    out = Path(run_dir if out_dir is None else out_dir)
    if importlib.util.find_spec("matplotlib") is None:  # imported only to draw: other commands start faster
        raise PlotError("matplotlib is not installed (pip install 'matplotlib>=3.8')")
    if out.exists() and not out.is_dir():
        raise PlotError(f"cannot write to {out}: not a directory")
    try:
        make_directory(out)
    except OSError as exc:
        raise PlotError(f"cannot write to {out}: {exc.strerror or exc}") from None
    charts = {"fitness.png": fitness_figure(run, size, dpi), "species.png": species_figure(run, size, dpi)}
    if run.body is not None:
        charts["body.png"] = body_figure(run, size, dpi)
    if run.body_sizes is not None:
        charts["body_size.png"] = body_size_figure(run, size, dpi)
    if run.lineage is not None:
        charts["lineage.png"] = lineage_figure(run, size, dpi)
    images = {name: _png(fig) for name, fig in charts.items()}  # draw them all before writing any
    paths = []
    try:
        for name, data in images.items():
            path = out / name
            write_atomic(path, data)  # atomically and durably, as the run's own files
            paths.append(path)
    except OSError as exc:
        raise PlotError(f"cannot write to {out}: {exc.strerror or exc}") from None
    return paths

"""``creatures plot RUN_DIR``: the fitness and species charts of a run, checked in their pixels
(size, colours where the data puts them), and one-line refusals (exit 2, never a traceback) for
what cannot be plotted or written."""

import argparse
import json
import os
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from creatures import charts as chartlib
from creatures.cli import plot
from creatures.design import resolve_design
from evolution import Run, RunSettings

STATS_HEADER = ("generation,best,mean,median,p90,p75,p25,p10,worst,species,failed,nonfinite,"
                "eval_seconds,creature_steps_per_s")
SETTINGS = {"design_name": "worm", "task": "run", "seed": 4, "population": 10, "generations": 50}


def _stats_row(gen, best=10.0, p90=5.0, p75=2.5, median=0.0, p25=-2.5, p10=-5.0, worst=-10.0):
    return f"{gen},{best},{median},{median},{p90},{p75},{p25},{p10},{worst},2,0,0,0.1,1000.0"


def _make_run(directory, stats=None, species=None, settings=SETTINGS):
    """A run directory written by hand. ``stats``: lines after the header (default: generations
    1..4 with best 10, median 0, worst -10); ``species``: (generation, species, size) rows."""
    directory.mkdir(parents=True, exist_ok=True)
    stats = [_stats_row(g) for g in range(1, 5)] if stats is None else stats
    if species is None:
        species = [(1, 1, 10), (2, 1, 10), (3, 1, 6), (3, 2, 4), (4, 2, 7), (4, 3, 3)]
    (directory / "stats.csv").write_text("\n".join([STATS_HEADER, *stats]) + "\n")
    (directory / "species.csv").write_text(
        "\n".join(["generation,species,size", *(",".join(map(str, r)) for r in species)]) + "\n")
    (directory / "settings.json").write_text(json.dumps(settings))
    return directory


def _plot(capsys, *argv):
    """``creatures plot ARGV...`` through the module's own arguments: (status, stdout, stderr)."""
    parser = argparse.ArgumentParser(prog="creatures plot")
    plot.add_arguments(parser)
    status = plot.run(parser.parse_args([str(a) for a in argv]))
    out, err = capsys.readouterr()
    return status, out, err


def _pixels(path) -> np.ndarray:
    """The PNG's RGB pixels, shape (H, W, 3), int."""
    return np.asarray(Image.open(path).convert("RGB"), dtype=np.int64)


def _rgb(colour) -> np.ndarray:
    """A matplotlib colour ('#1b9e4b') or (r, g, b) in 0..1 as 0..255 integers."""
    from matplotlib.colors import to_rgb
    return np.round(np.array(to_rgb(colour)) * 255).astype(np.int64)


def _near(pixels, colour, tol=12) -> np.ndarray:
    """Where the pixels are within ``tol`` (per channel, 0..255) of a colour; shape (H, W)."""
    return (np.abs(pixels - _rgb(colour)) <= tol).all(axis=-1)


class Charts:
    """The charts of the hand-made run, plotted once at 1200x700, with where their data points
    land in the pictures."""

    def __init__(self, run_dir):
        self.dir = run_dir
        self.paths = chartlib.plot_run(run_dir)
        run = chartlib.read_run(run_dir)
        self.figures = {}
        for name, figure in (("fitness", chartlib.fitness_figure), ("species", chartlib.species_figure)):
            fig = figure(run, chartlib.DEFAULT_SIZE, chartlib.auto_dpi(chartlib.DEFAULT_SIZE))  # laid out as plot_run does
            fig.canvas.draw()
            self.figures[name] = fig

    def pixels(self, name) -> np.ndarray:
        return _pixels(self.dir / f"{name}.png")

    def where(self, name, x, y) -> tuple[int, int]:
        """(column, row) in ``name``.png of the data point (x, y)."""
        px, py = self.figures[name].axes[0].transData.transform((x, y))
        return int(round(px)), int(round(chartlib.DEFAULT_SIZE[1] - py))


@pytest.fixture
def run_dir(tmp_path):
    return _make_run(tmp_path / "run")


@pytest.fixture(scope="module")
def charts(tmp_path_factory):
    return Charts(_make_run(tmp_path_factory.mktemp("plot") / "run"))


# --- what it writes ------------------------------------------------------------------------------

def test_writes_both_charts_into_the_run_directory_and_prints_their_paths(capsys, run_dir):
    status, out, err = _plot(capsys, run_dir, "--size", "640x400")
    assert (status, err) == (0, "")
    assert out.splitlines() == [str(run_dir / "fitness.png"), str(run_dir / "species.png")]
    for name in ("fitness.png", "species.png"):
        assert Image.open(run_dir / name).format == "PNG"


def test_charts_are_1200x700_by_default(charts):
    assert charts.paths == [charts.dir / "fitness.png", charts.dir / "species.png"]
    for path in charts.paths:
        assert Image.open(path).size == (1200, 700)


@pytest.mark.parametrize("size, dpi", [("401x301", None), ("1366x768", "96"), ("1920x1080", "150"),
                                       ("900X500", "72")])
def test_charts_are_exactly_the_size_asked_for_at_any_dpi(capsys, run_dir, tmp_path, size, dpi):
    out = tmp_path / "charts"
    status, _, err = _plot(capsys, run_dir, "--out", out, "--size", size, *(["--dpi", dpi] if dpi else []))
    assert status == 0, err
    w, h = map(int, size.lower().split("x"))
    for name in ("fitness.png", "species.png"):
        assert Image.open(out / name).size == (w, h)


def test_out_directory_is_created_and_the_run_directory_left_alone(capsys, run_dir, tmp_path):
    out = tmp_path / "charts" / "walker"
    status, out_text, _ = _plot(capsys, run_dir, "--out", out)
    assert status == 0
    assert sorted(p.name for p in out.iterdir()) == ["fitness.png", "species.png"]
    assert not list(run_dir.glob("*.png"))
    assert out_text.splitlines() == [str(out / "fitness.png"), str(out / "species.png")]


def test_plotting_again_replaces_the_charts_and_leaves_no_temporary_file(capsys, run_dir):
    _plot(capsys, run_dir, "--size", "800x600")
    status, _, _ = _plot(capsys, run_dir, "--size", "640x480")
    assert status == 0
    assert Image.open(run_dir / "fitness.png").size == (640, 480)
    assert sorted(p.name for p in run_dir.iterdir()) == [
        "fitness.png", "settings.json", "species.csv", "species.png", "stats.csv"]


def test_plot_run_returns_the_paths_it_wrote(run_dir, tmp_path):
    paths = chartlib.plot_run(run_dir, tmp_path / "out", size=(640, 400))
    assert paths == [tmp_path / "out" / "fitness.png", tmp_path / "out" / "species.png"]
    assert all(Image.open(p).size == (640, 400) for p in paths)


# --- the fitness chart ---------------------------------------------------------------------------

def _column_rows(pixels, column, colour, tol=40):
    """The rows where a colour is found within 3 pixels of a column (the p10 line is dashed)."""
    rows = np.flatnonzero(_near(pixels[:, column - 3:column + 4], colour, tol).any(axis=1))
    assert rows.size, f"no {colour} in column {column}"
    return rows


def test_fitness_lines_are_drawn_where_their_values_are(charts):
    """best 10, p90 5, median 0, p10 -5, worst -10: each line's colour is found at its value's
    height, in the middle of the chart."""
    pixels = charts.pixels("fitness")
    for key, value in (("best", 10), ("median", 0), ("worst", -10), ("p90", 5), ("p90", -5)):
        column, row = charts.where("fitness", 2.5, value)
        rows = _column_rows(pixels, column, chartlib.COLOURS[key])
        assert np.abs(rows - row).min() <= 2, (key, value, row, rows)


def test_fitness_bands_shade_between_the_percentiles(charts):
    pixels = charts.pixels("fitness")
    column, outer = charts.where("fitness", 2.5, 3.75)  # between p75 and p90
    _, inner = charts.where("fitness", 2.5, 1.25)       # between median and p75
    _, outside = charts.where("fitness", 2.5, 7.5)      # between p90 and best
    assert _near(pixels[outer, column], chartlib.COLOURS["band"], 3)
    assert _near(pixels[inner, column], chartlib.COLOURS["band_inner"], 3)
    assert not _near(pixels[outside, column], chartlib.COLOURS["band"], 3)


def test_failed_creatures_do_not_squash_the_chart(capsys, tmp_path):
    """A failed creature scores -1000; the axis still spans the other values, so best (10) and
    median (0) stay far apart."""
    stats = [_stats_row(g, worst=-1000.0 if g % 2 else -10.0) for g in range(1, 5)]
    run_dir = _make_run(tmp_path / "run", stats)
    _plot(capsys, run_dir)
    pixels = _pixels(run_dir / "fitness.png")
    column = pixels.shape[1] // 2
    best = _column_rows(pixels, column, chartlib.COLOURS["best"]).mean()
    median = _column_rows(pixels, column, chartlib.COLOURS["median"]).mean()
    assert median - best > 0.3 * 700


NEW_HEADER = STATS_HEADER + ",wall_seconds,creatures,ok_p90,ok_p75,ok_median,ok_p25,ok_p10,ok_worst"


def _failing_row(gen, failed):
    """Generation ``gen`` of 10 where ``failed`` failed: the plain median dives (-500 for half),
    the others' percentiles are 5 / 2.5 / 1 / -0.5 / -2, their worst -4."""
    median = -500.0 if failed >= 5 else 1.0
    plain = f"{gen},10.0,{median},{median},5.0,2.5,-1000.0,-1000.0,-1000.0,2,{failed},0,0.1,1000.0"
    return plain + ",0.2,10,5.0,2.5,1.0,-0.5,-2.0,-4.0"


def _make_new_run(directory, stats):
    """A run directory written by hand with stats.csv's newest columns."""
    _make_run(directory, stats)
    (directory / "stats.csv").write_text("\n".join([NEW_HEADER, *stats]) + "\n")
    return directory


def test_failures_are_drawn_apart_and_the_percentiles_are_the_others(tmp_path):
    failed = [0, 5, 6, 0]
    run_dir = _make_new_run(tmp_path / "run", [_failing_row(g, f) for g, f in zip(range(1, 5), failed)])
    run = chartlib.read_run(run_dir)
    assert run.stats["ok_median"].tolist() == [1.0] * 4 and run.stats["failed_share"].tolist() == [0, 0.5, 0.6, 0]
    fig = chartlib.fitness_figure(run)
    fitness, failures = fig.axes
    assert fitness.get_ylim()[0] > -10.0                        # fitted to those that did not fail
    median = next(line for line in fitness.get_lines() if line.get_label() == "median")
    assert median.get_ydata().tolist() == [1.0] * 4
    assert [bar.get_height() for bar in failures.patches] == [0.0, 50.0, 60.0, 0.0]
    assert failures.get_ylim() == (0.0, 100.0)


def test_without_failures_there_is_no_failed_panel(run_dir):
    assert len(chartlib.fitness_figure(chartlib.read_run(run_dir)).axes) == 1


def test_an_older_run_leaves_gaps_where_the_failed_reach_a_percentile(tmp_path):
    """A run from before the ok_ columns, 6 of 10 failed in generation 2: its plain median and
    lower are not those of the creatures that did not fail (gaps); its 90th percentile is one
    (the failed ones are the lowest 6 of 10); none failed in generation 1: all are."""
    stats = [_stats_row(1), f"2,10.0,-800.0,-800.0,5.0,-1000.0,-1000.0,-1000.0,-1000.0,2,6,0,0.1,1000.0"]
    run = chartlib.read_run(_make_run(tmp_path / "run", stats))
    s = run.stats
    assert s["ok_p90"].tolist() == [5.0, 5.0] and s["ok_median"][0] == 0.0 and np.isnan(s["ok_median"][1])
    assert np.isnan(s["ok_worst"][1]) and s["failed_share"].tolist() == [0.0, 0.6]   # species: 10 a generation
    _, failures = chartlib.fitness_figure(run).axes
    assert [bar.get_height() for bar in failures.patches] == [0.0, 60.0]


def test_the_play_chart_gets_the_numbers_plot_draws(tmp_path):
    from creatures.session import PlaySession
    failed = [0, 5, 6, 0]
    run_dir = _make_new_run(tmp_path / "run", [_failing_row(g, f) for g, f in zip(range(1, 5), failed)])
    # the play window reads a run's settings whole (RunSettings.read), as a run writes them
    settings = RunSettings(design_name="worm", design_text="", seed=4, population=10)
    (run_dir / "settings.json").write_text(settings.to_json())
    progress = PlaySession(run_dir, workers=1).progress()
    run = chartlib.read_run(run_dir)
    for name in ("ok_p90", "ok_p75", "ok_median", "ok_p25", "ok_p10", "ok_worst"):
        assert np.array_equal(getattr(progress, name), run.stats[name]), name
    assert np.array_equal(progress.failed, run.stats["failed_share"])


def test_a_single_generation_is_plotted_as_points(capsys, tmp_path):
    run_dir = _make_run(tmp_path / "run", [_stats_row(1)], [(1, 1, 10)])
    status, _, err = _plot(capsys, run_dir)
    assert status == 0, err
    pixels = _pixels(run_dir / "fitness.png")
    best = _near(pixels, chartlib.COLOURS["best"], 20)
    rows, columns = np.nonzero(best[:-80])  # above the legend, which has a dot too
    assert 9 <= rows.size <= 200                 # a dot, not a line
    assert np.ptp(rows) <= 12 and np.ptp(columns) <= 12


def test_fitness_axis_says_what_the_task_measures():
    run = chartlib.RunData(Path("x"), {"task": "jump"}, {}, np.zeros(0), np.zeros(0), np.zeros((0, 0)))
    assert "highest centre-of-mass rise while airborne in metres" in chartlib.fitness_label(run.measures, 700, 100)


# --- the species chart ---------------------------------------------------------------------------

def test_species_stack_fills_the_population_at_the_last_generation(charts):
    """Generation 4: species 2 holds 7 and species 3 holds 3 of 10. A column of pixels there is
    species 2's colour from the axis up to 7, then species 3's up to the population line."""
    pixels = charts.pixels("species")
    column, bottom = charts.where("species", 4.3, 0)
    _, middle = charts.where("species", 4.3, 7)
    _, top = charts.where("species", 4.3, 10)
    line = pixels[top + 2:bottom - 1, column]
    two = _near(line, chartlib.species_colour(2), 3)
    three = _near(line, chartlib.species_colour(3), 3)
    assert (two | three).sum() >= len(line) - 2  # at most the boundary between them is blended
    split = middle - (top + 2)
    assert three[:split - 1].all() and two[split + 2:].all()


def test_species_appear_and_disappear(charts):
    """Species 1 lives in generations 1..3, species 3 only in 4: each colour only where it lives."""
    pixels = charts.pixels("species")
    gen1, _ = charts.where("species", 1, 5)
    gen4, _ = charts.where("species", 4, 5)
    one, three = _near(pixels, chartlib.species_colour(1), 3), _near(pixels, chartlib.species_colour(3), 3)
    assert one[:, gen1].sum() > 100 and one[:, gen4].sum() == 0
    assert three[:, gen4].sum() > 50 and three[:, gen1].sum() == 0


def test_a_species_keeps_its_colour_and_neighbours_differ():
    assert chartlib.species_colour(7) == chartlib.species_colour(7)
    for k in range(1, 60):
        a, b = np.array(chartlib.species_colour(k)), np.array(chartlib.species_colour(k + 1))
        assert np.abs(a - b).max() > 0.15, k


@pytest.mark.parametrize("species", [[(1, 1, 10), (2, 1, 10)], []])
def test_species_file_lagging_behind_the_stats_is_fine(capsys, tmp_path, species):
    """The run writes stats.csv, then species.csv: a reader may see one generation more in stats."""
    run_dir = _make_run(tmp_path / "run", [_stats_row(g) for g in (1, 2, 3)], species)
    status, _, err = _plot(capsys, run_dir, "--size", "400x300")
    assert (status, err) == (0, "")


# --- a real run ----------------------------------------------------------------------------------

def _tiny_settings() -> RunSettings:
    worm = resolve_design("worm")
    return RunSettings(design_name=worm.name, design_text=worm.text, generations=2, population=10,
                       seconds=1.0, workers=1, seed=2)


def test_a_real_tiny_run_is_plotted(capsys, tmp_path):
    run = Run.create(tmp_path / "run", _tiny_settings(), resolve_design("worm").body)
    run.evolve()
    status, _, err = _plot(capsys, tmp_path / "run", "--size", "800x500")
    assert (status, err) == (0, "")
    fitness, species = _pixels(tmp_path / "run" / "fitness.png"), _pixels(tmp_path / "run" / "species.png")
    assert fitness.shape == species.shape == (500, 800, 3)
    assert _near(fitness, chartlib.COLOURS["best"], 60).sum() > 300      # a thin line across the chart
    assert _near(fitness, chartlib.COLOURS["median"], 20).sum() > 1000   # a bold one
    first = int(chartlib.read_run(tmp_path / "run").species_ids[0])
    assert _near(species, chartlib.species_colour(first), 3).sum() > 0.3 * 800 * 500


def test_a_run_that_has_not_finished_a_generation_says_so(capsys, tmp_path):
    Run.create(tmp_path / "run", _tiny_settings(), resolve_design("worm").body)
    message = _refusal(*_plot(capsys, tmp_path / "run"))
    assert message == f"creatures plot: {tmp_path / 'run'} has no finished generation yet " \
                      f"(stats.csv holds only its header): nothing to plot"


# --- refusals ------------------------------------------------------------------------------------

def _refusal(status, out, err) -> str:
    assert status == 2, (status, out, err)
    assert out == ""
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("creatures plot: ")
    return lines[0]


def _damage(run_dir, name, line_number, text):
    lines = (run_dir / name).read_text().splitlines()
    lines[line_number - 1] = text
    (run_dir / name).write_text("\n".join(lines) + "\n")


def test_a_missing_directory_is_refused(capsys, tmp_path):
    assert _refusal(*_plot(capsys, tmp_path / "nope")).endswith(f"{tmp_path / 'nope'}: no such directory")


def test_a_file_is_not_a_run_directory(capsys, tmp_path):
    (tmp_path / "file").write_text("x")
    assert _refusal(*_plot(capsys, tmp_path / "file")).endswith("is not a directory")


def test_a_directory_without_stats_is_not_a_run_directory(capsys, run_dir):
    (run_dir / "stats.csv").unlink()
    assert _refusal(*_plot(capsys, run_dir)).endswith(f"{run_dir} is not a run directory (no stats.csv)")


def test_a_header_only_stats_file_has_nothing_to_plot(capsys, tmp_path):
    run_dir = _make_run(tmp_path / "run", stats=[], species=[])
    assert "has no finished generation yet" in _refusal(*_plot(capsys, run_dir))


@pytest.mark.parametrize("name, line, text, expected", [
    ("stats.csv", 3, _stats_row(2, best="abc"), "stats.csv:3: best is 'abc', not a finite number"),
    ("stats.csv", 3, _stats_row(2, median="nan"), "stats.csv:3: median is 'nan', not a finite number"),
    ("stats.csv", 3, "2,1.0,0.5,0.2,0.9", "stats.csv:3: 5 values, but the header names 14"),
    ("stats.csv", 5, "4,9.5,0.1,0.", "stats.csv:5: 4 values, but the header names 14"),  # cut off mid-line
    ("stats.csv", 4, _stats_row(2), "stats.csv:4: generation 2 after generation 2"),
    ("stats.csv", 3, _stats_row("2.5"), "stats.csv:3: generation is '2.5', not a whole number"),
    ("stats.csv", 1, "generation,mean", "stats.csv:1: the header has no best, p90, p75, median, p25, "
                                        "p10, worst columns"),
    ("species.csv", 2, "1,1,x", "species.csv:2: size is 'x', not a whole number"),
    ("species.csv", 2, "1,1", "species.csv:2: 2 values, but the header names 3"),
    ("species.csv", 3, "1,1,10", "species.csv:3: species 1 of generation 1 appears twice"),
    ("species.csv", 2, "1,1,-3", "species.csv:2: generation must be 1 or more, species and size 0 or more"),
])
def test_damaged_files_are_refused_with_file_and_line(capsys, run_dir, name, line, text, expected):
    _damage(run_dir, name, line, text)
    message = _refusal(*_plot(capsys, run_dir))
    assert message == f"creatures plot: {run_dir / expected}"
    assert not list(run_dir.glob("*.png"))


def test_a_damaged_settings_file_is_refused_at_its_place(capsys, run_dir):
    _damage(run_dir, "settings.json", 1, '{"design_name": ')
    message = _refusal(*_plot(capsys, run_dir))
    # what follows is the json module's own words (not ours to pin: they change with Python)
    assert message.startswith(f"creatures plot: {run_dir / 'settings.json'}:2:1: not valid JSON: ")


def test_binary_garbage_is_not_a_text_file(capsys, run_dir):
    (run_dir / "stats.csv").write_bytes(b"\xff\xfe\x00garbage")
    assert _refusal(*_plot(capsys, run_dir)).endswith("stats.csv: not a text file (byte 0 is not UTF-8)")


@pytest.mark.parametrize("size", ["12x", "big", "1200*700", "100x100", "20000x700", "1200x-7"])
def test_a_bad_size_is_refused(capsys, run_dir, size):
    message = _refusal(*_plot(capsys, run_dir, "--size", size))
    assert message.startswith("creatures plot: --size ")   # it names the option
    assert "--size must be WIDTHxHEIGHT" in message or "must be 400x300 to 10000x10000 pixels" in message


@pytest.mark.parametrize("dpi", ["abc", "nan", "inf", "5", "5000"])
def test_a_bad_dpi_is_refused(capsys, run_dir, dpi):
    message = _refusal(*_plot(capsys, run_dir, "--dpi", dpi))
    assert message.startswith("creatures plot: --dpi must be ")   # it names the option


def test_an_out_that_is_a_file_is_refused(capsys, run_dir, tmp_path):
    (tmp_path / "taken").write_text("x")
    message = _refusal(*_plot(capsys, run_dir, "--out", tmp_path / "taken"))
    assert message == f"creatures plot: cannot write to {tmp_path / 'taken'}: not a directory"


def test_an_out_below_a_file_is_refused(capsys, run_dir, tmp_path):
    (tmp_path / "taken").write_text("x")
    message = _refusal(*_plot(capsys, run_dir, "--out", tmp_path / "taken" / "charts"))
    assert message == f"creatures plot: cannot write to {tmp_path / 'taken' / 'charts'}: Not a directory"


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_an_unwritable_out_is_refused(capsys, run_dir, tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    try:
        message = _refusal(*_plot(capsys, run_dir, "--out", locked))
    finally:
        locked.chmod(0o700)
    assert message == f"creatures plot: cannot write to {locked}: Permission denied"
    assert list(locked.iterdir()) == []


# --- the command's module ------------------------------------------------------------------------

def test_the_module_reads_as_a_subcommand():
    assert plot.__doc__.strip().splitlines()[0].startswith("Draw a run's fitness")
    assert "creatures plot" in plot.EXAMPLES
    parser = argparse.ArgumentParser(prog="creatures plot")
    plot.add_arguments(parser)
    args = parser.parse_args(["runs/x"])
    assert (args.run_dir, args.out, args.size, args.dpi) == ("runs/x", None, "1200x700", None)


def test_a_failed_write_is_refused_and_leaves_no_temporary_file(capsys, run_dir, monkeypatch):
    def refuse(src, dst):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refuse)
    message = _refusal(*_plot(capsys, run_dir, "--size", "400x300"))
    assert message == f"creatures plot: cannot write to {run_dir}: Permission denied"
    assert sorted(p.name for p in run_dir.iterdir()) == ["settings.json", "species.csv", "stats.csv"]


# --- bodies that evolve ----------------------------------------------------------------------------

def _make_body_run(directory, generations=3, population=10, seed=0):
    """A hand-made run whose body evolves: a knee's lower limit (an angle) and a foot's radius
    evolvable, a brace and a tail optional; the bodies of each generation drawn at random."""
    from evolution.bodygenes import BodyGenes, Gene, Switch
    _make_run(directory, stats=[_stats_row(g) for g in range(1, generations + 1)])
    genes = BodyGenes((Gene("knee.min", "joint", 0, "min", -1.5, 0.0, -0.5),
                       Gene("foot.radius", "sphere", 1, "radius", 0.05, 0.15, 0.1)),
                      (Switch("brace", "bone", 2), Switch("tail", "sphere", 3)))
    (directory / "body.json").write_text(json.dumps({"name": "x", "evolve": genes.to_dict()}))
    rng = np.random.default_rng(seed)
    (directory / "best").mkdir()
    for g in range(1, generations + 1):
        bodies = [{"values": [float(rng.uniform(-1.5, 0.0)), float(rng.uniform(0.05, 0.15))],
                   "parts": [bool(rng.random() < 0.3 * g), True]} for _ in range(population)]
        record = {"generation": g, "fitness": 1.0, "genome": {"body": bodies[g]}, "population_bodies": bodies}
        (directory / "best" / f"gen_{g:04d}.json").write_text(json.dumps(record))
    return directory, genes


def _line(ax, label):
    return next(line for line in ax.lines if line.get_label() == label)


def test_a_run_whose_body_evolves_gets_a_body_chart_too(capsys, tmp_path):
    run_dir, _ = _make_body_run(tmp_path / "run")
    status, out, err = _plot(capsys, run_dir, "--size", "800x500")
    assert (status, err) == (0, "")
    assert out.splitlines() == [str(run_dir / name) for name in ("fitness.png", "species.png", "body.png")]
    pixels = _pixels(run_dir / "body.png")
    assert pixels.shape == (500, 800, 3)
    assert _near(pixels, chartlib.COLOURS["champion"], 30).sum() > 50     # the champions' dots
    assert _near(pixels, chartlib.COLOURS["median"], 20).sum() > 200      # the medians


def test_the_body_chart_has_a_panel_per_value_and_part_in_their_units(tmp_path):
    run_dir, genes = _make_body_run(tmp_path / "run")
    records = [json.loads((run_dir / "best" / f"gen_{g:04d}.json").read_text()) for g in (1, 2, 3)]
    values = np.array([[b["values"] for b in r["population_bodies"]] for r in records])    # (G, N, V)
    parts = np.array([[b["parts"] for b in r["population_bodies"]] for r in records])
    fig = chartlib.body_figure(chartlib.read_run(run_dir))
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title(loc="left") for ax in axes] == [
        "knee.min", "foot.radius", "brace (optional): % on", "tail (optional): % on"]
    knee, foot, brace, tail = axes
    assert knee.get_ylabel() == "deg" and foot.get_ylabel() == "m"
    # the knee's limit in degrees: median, champion, the design's start; the range is the y axis
    np.testing.assert_allclose(_line(knee, "median").get_ydata(), np.degrees(np.median(values[..., 0], axis=1)))
    np.testing.assert_allclose(_line(knee, "the generation's champion").get_ydata(),
                               [np.degrees(r["genome"]["body"]["values"][0]) for r in records])
    np.testing.assert_allclose(_line(knee, "the design's start").get_ydata(), np.degrees(-0.5))
    lo, hi = knee.get_ylim()
    assert lo < -86 < -85 and -1 < 0 < hi and hi < 5
    np.testing.assert_allclose(_line(foot, "median").get_ydata(), np.median(values[..., 1], axis=1))
    np.testing.assert_allclose(_line(brace, "% of creatures with it on").get_ydata(), 100 * parts[..., 0].mean(axis=1))
    np.testing.assert_allclose(_line(tail, "% of creatures with it on").get_ydata(), 100.0)
    # the 10th..90th percentile band of the foot's radius
    band = foot.collections[0].get_paths()[0].vertices
    assert band[:, 1].max() == pytest.approx(np.percentile(values[..., 1], 90, axis=1).max())
    assert band[:, 1].min() == pytest.approx(np.percentile(values[..., 1], 10, axis=1).min())


def test_the_body_chart_of_a_real_run(capsys, evolved_run, tmp_path):
    status, out, err = _plot(capsys, evolved_run, "--out", tmp_path)
    assert (status, err) == (0, "") and out.splitlines()[-1] == str(tmp_path / "body.png")
    run = chartlib.read_run(evolved_run)
    last = json.loads((evolved_run / "best" / "gen_0004.json").read_text())
    assert run.body.generations.tolist() == [1, 2, 3, 4]
    assert run.body.champion[-1].tolist() == last["genome"]["body"]["values"]
    on = np.mean([b["parts"][0] for b in last["population_bodies"]])
    assert run.body.on[-1, 0] == on and 0 < on < 1


def test_a_single_generation_and_many_genes_are_charted(capsys, tmp_path):
    from evolution.bodygenes import BodyGenes, Gene
    run_dir, _ = _make_body_run(tmp_path / "run", generations=1)
    status, _, err = _plot(capsys, run_dir, "--size", "400x300")
    assert (status, err) == (0, "")
    genes = BodyGenes(tuple(Gene(f"g{k}", "sphere", k, "mass", 0.5, 2.0, 1.0) for k in range(70)))
    (run_dir / "body.json").write_text(json.dumps({"evolve": genes.to_dict()}))
    record = {"generation": 1, "fitness": 1.0, "genome": {"body": {"values": [1.0] * 70, "parts": []}},
              "population_bodies": [{"values": [1.0] * 70, "parts": []}] * 3}
    (run_dir / "best" / "gen_0001.json").write_text(json.dumps(record))
    status, _, err = _plot(capsys, run_dir, "--size", "400x300")
    assert (status, err) == (0, "")
    fig = chartlib.body_figure(chartlib.read_run(run_dir))
    assert "(the first 64 of 70)" in fig.get_suptitle()


def test_a_run_whose_body_does_not_evolve_has_no_body_chart(capsys, tmp_path):
    run = Run.create(tmp_path / "run", _tiny_settings(), resolve_design("worm").body)
    run.evolve()
    status, out, err = _plot(capsys, tmp_path / "run")
    assert (status, err) == (0, "") and len(out.splitlines()) == 2
    assert not (tmp_path / "run" / "body.png").exists() and chartlib.read_run(tmp_path / "run").body is None


@pytest.mark.parametrize("damage, expected", [
    (lambda r: r.pop("population_bodies"), "no 'population_bodies' (the generation's bodies)"),
    (lambda r: r["population_bodies"][3].update(values=[1.0]),
     "'population_bodies' item 4: 'values' must be 2 finite numbers"),
    (lambda r: r["population_bodies"][0].update(parts=[1, 0]),
     "'population_bodies' item 1: 'parts' must be 2 true or false"),
    (lambda r: r["genome"].pop("body"), "the genome's 'body' must be an object with 'values' and 'parts'"),
])
def test_damaged_body_genes_are_refused_naming_the_file(capsys, tmp_path, damage, expected):
    run_dir, _ = _make_body_run(tmp_path / "run")
    path = run_dir / "best" / "gen_0002.json"
    record = json.loads(path.read_text())
    damage(record)
    path.write_text(json.dumps(record))
    assert _refusal(*_plot(capsys, run_dir)) == f"creatures plot: {path}: {expected}"
    assert not (run_dir / "fitness.png").exists()


def test_damaged_body_genes_in_body_json_are_refused(capsys, tmp_path):
    run_dir, _ = _make_body_run(tmp_path / "run")
    (run_dir / "body.json").write_text(json.dumps({"evolve": {"genes": [{"label": "x"}]}}))
    message = _refusal(*_plot(capsys, run_dir))
    assert message.startswith(f"creatures plot: {run_dir / 'body.json'}: its evolvable values ('evolve'): ")


def test_the_best_from_fresh_starts_is_drawn_when_the_run_scored_it(capsys, tmp_path):
    header = NEW_HEADER + ",post_mean,post_worst,post_sd"
    rows = [_failing_row(g, 0) + f",{6.0 + g},{4.0 + g},0.5" for g in range(1, 5)]
    run_dir = _make_run(tmp_path / "run", rows)
    (run_dir / "stats.csv").write_text("\n".join([header, *rows]) + "\n")
    run = chartlib.read_run(run_dir)
    assert run.stats["post_mean"].tolist() == [7.0, 8.0, 9.0, 10.0]
    labels = chartlib.fitness_figure(run).axes[0].get_legend_handles_labels()[1]
    assert "best, from fresh starts" in labels
    status, _, err = _plot(capsys, run_dir)
    assert status == 0, err
    assert _near(_pixels(run_dir / "fitness.png")[:-80], chartlib.COLOURS["fresh"], 20).sum() > 50
    older = chartlib.read_run(_make_new_run(tmp_path / "older", [_failing_row(1, 0)]))
    assert "post_mean" not in older.stats          # a run from before: no such line
    assert "best, from fresh starts" not in chartlib.fitness_figure(older).axes[0].get_legend_handles_labels()[1]


# --- bodies that grow ------------------------------------------------------------------------------

#: (seed 4: its champion's body changed along its ancestry, but the tests do not count on it)
GROW_ARGS = ("--grow", "--generations", "4", "--population", "12", "--workers", "1", "--seconds", "2", "--seed", "4")


@pytest.fixture(scope="module")
def grown_run(run_creatures, tmp_path_factory):
    """A tiny run of the sprout whose body grows (``creatures evolve sprout --grow``), not to be
    changed: copy it (:func:`_copy_run`) to damage it."""
    directory = tmp_path_factory.mktemp("grown") / "run"
    r = run_creatures("evolve", "sprout", *GROW_ARGS, "--out", directory)
    assert r.returncode == 0, r.stderr
    return directory


def _copy_run(run_dir, directory):
    import shutil
    shutil.copytree(run_dir, directory, ignore=shutil.ignore_patterns("*.png"))
    return directory


def _plan(spheres, bones, muscles):
    """A grown body's plan (genome -> body -> plan) of so many parts (muscles: its first bones)."""
    return {"spheres": [[k, k, 0.3 * k, 0.1, 0.05, 0.5] for k in range(spheres)],
            "bones": [[spheres + k, 0, 1, k if k < muscles else -1] for k in range(bones)]}


def _make_growing_run(directory, generations=3, population=10, seed=0, grow=None):
    """A hand-made run whose body grows (to at most 6 spheres, 12 bones and 5 muscles): each
    generation's bodies' sizes drawn at random, its champion the first of them. ``grow``: the
    settings' growth settings instead."""
    grow = {"spheres": 6, "bones": 12, "muscles": 5} if grow is None else grow
    _make_run(directory, stats=[_stats_row(g) for g in range(1, generations + 1)], settings={**SETTINGS, "grow": grow})
    rng = np.random.default_rng(seed)
    (directory / "best").mkdir()
    for g in range(1, generations + 1):
        sizes = []
        for _ in range(population):
            spheres = int(rng.integers(2, 7))
            bones = int(rng.integers(spheres - 1, 13))
            sizes.append([spheres, bones, int(rng.integers(0, min(bones, 5) + 1))])
        record = {"generation": g, "fitness": 1.0, "population_sizes": sizes,
                  "genome": {"body": {"values": [], "parts": [], "plan": _plan(*sizes[0])}}}
        (directory / "best" / f"gen_{g:04d}.json").write_text(json.dumps(record))
    return directory


def _best_records(run_dir):
    return [json.loads(p.read_text()) for p in sorted((run_dir / "best").glob("gen_*.json"))]


def test_a_growing_run_gets_a_body_size_chart_too(capsys, grown_run, tmp_path):
    status, out, err = _plot(capsys, grown_run, "--out", tmp_path, "--size", "800x500")
    assert (status, err) == (0, "")
    assert out.splitlines() == [str(tmp_path / n) for n in ("fitness.png", "species.png", "body_size.png",
                                                            "lineage.png")]
    pixels = _pixels(tmp_path / "body_size.png")
    assert pixels.shape == (500, 800, 3)
    assert _near(pixels, chartlib.COLOURS["champion"], 30).sum() > 50     # the champions' dots
    assert _near(pixels, chartlib.COLOURS["median"], 20).sum() > 200      # the means
    assert not (tmp_path / "body.png").exists()                          # no body genes: they grow


def test_the_body_sizes_read_are_what_the_best_files_say(grown_run):
    records = _best_records(grown_run)
    sizes = np.array([r["population_sizes"] for r in records])           # (G, N, 3)
    plans = [r["genome"]["body"]["plan"] for r in records]
    champion = [[len(p["spheres"]), len(p["bones"]), sum(b[3] >= 0 for b in p["bones"])] for p in plans]
    read = chartlib.read_run(grown_run).body_sizes
    assert read.generations.tolist() == [1, 2, 3, 4]
    assert read.champion.tolist() == champion
    np.testing.assert_allclose(read.mean, sizes.mean(axis=1))
    np.testing.assert_allclose(read.p10, np.percentile(sizes, 10, axis=1))
    np.testing.assert_allclose(read.p90, np.percentile(sizes, 90, axis=1))
    assert read.limits == (8, 20, 8)                                      # --grow's defaults


def test_the_body_size_chart_draws_the_sizes_read(tmp_path):
    run_dir = _make_growing_run(tmp_path / "run", generations=5)
    records = _best_records(run_dir)
    sizes = np.array([r["population_sizes"] for r in records])
    run = chartlib.read_run(run_dir)
    fig = chartlib.body_size_figure(run)
    assert [ax.get_title(loc="left") for ax in fig.axes] == [
        "spheres (at most 6)", "bones (at most 12)", "muscles (at most 5)"]
    assert fig.get_suptitle() == "worm: run on flat ground, seed 4: body size; population 10"
    for k, ax in enumerate(fig.axes):
        np.testing.assert_allclose(_line(ax, "mean").get_ydata(), sizes[..., k].mean(axis=1))
        np.testing.assert_allclose(_line(ax, "the generation's champion").get_ydata(),
                                   [r["population_sizes"][0][k] for r in records])
        band = ax.collections[0].get_paths()[0].vertices
        assert band[:, 1].max() == pytest.approx(np.percentile(sizes[..., k], 90, axis=1).max())
        assert band[:, 1].min() == pytest.approx(np.percentile(sizes[..., k], 10, axis=1).min())
        lo, hi = ax.get_ylim()
        assert lo == 0 and sizes[..., k].max() < hi                        # counts from 0, all in view
    assert fig.axes[0].get_xlim() == (1, 5)


def test_a_tall_body_size_chart_stacks_its_panels(tmp_path):
    run = chartlib.read_run(_make_growing_run(tmp_path / "run"))
    wide, tall = chartlib.body_size_figure(run, (1200, 700)), chartlib.body_size_figure(run, (600, 900))
    for fig in (wide, tall):
        fig.canvas.draw()
    boxes = [[ax.get_position() for ax in fig.axes] for fig in (wide, tall)]
    assert boxes[0][0].x1 < boxes[0][1].x0 < boxes[0][1].x1 < boxes[0][2].x0     # side by side
    assert boxes[1][0].y0 > boxes[1][1].y1 > boxes[1][1].y0 > boxes[1][2].y1     # one above the other


def test_a_generation_without_its_best_file_is_left_out_of_the_body_sizes(capsys, tmp_path):
    run_dir = _make_growing_run(tmp_path / "run")
    (run_dir / "best" / "gen_0002.json").unlink()
    assert chartlib.read_run(run_dir).body_sizes.generations.tolist() == [1, 3]
    (run_dir / "best" / "gen_0003.json").unlink()
    status, _, err = _plot(capsys, run_dir, "--size", "400x300")                # one generation: dots
    assert (status, err) == (0, "")
    (run_dir / "best" / "gen_0001.json").unlink()
    status, out, err = _plot(capsys, run_dir, "--size", "400x300")              # none yet: still drawn
    assert (status, err) == (0, "") and out.splitlines()[-1] == str(run_dir / "body_size.png")
    assert chartlib.read_run(run_dir).body_sizes.champion.shape == (0, 3)


@pytest.mark.parametrize("grow", ["absent", None])
def test_a_run_whose_body_does_not_grow_has_no_body_size_chart(capsys, tmp_path, grow):
    settings = SETTINGS if grow == "absent" else {**SETTINGS, "grow": grow}
    run_dir = _make_run(tmp_path / "run", settings=settings)
    status, out, err = _plot(capsys, run_dir)
    assert (status, err) == (0, "") and len(out.splitlines()) == 2
    assert chartlib.read_run(run_dir).body_sizes is None and not (run_dir / "body_size.png").exists()


SIZES_MUST_BE = "must be [spheres, bones, muscles]: whole numbers from 0 to 10000, no more muscles than bones"
NO_SIZES = "no 'population_sizes' (the generation's body sizes)"
NO_PLAN = "the genome's 'body' must be an object with a 'plan' (a grown body's)"


def _set_size(k, size):
    """A damage: the generation's creature ``k`` (from 0) has ``size``."""
    return lambda record: record["population_sizes"].__setitem__(k, size)


@pytest.mark.parametrize("damage, expected", [
    (lambda r: r.pop("population_sizes"), NO_SIZES),
    (lambda r: r.update(population_sizes=[]), NO_SIZES),
    (lambda r: r.update(population_sizes={"spheres": 2}), NO_SIZES),
    (_set_size(3, [2, 1]), f"'population_sizes' item 4 {SIZES_MUST_BE}"),
    (_set_size(0, [2, 1, 2]), f"'population_sizes' item 1 {SIZES_MUST_BE}"),       # more muscles than bones
    (_set_size(1, [2, "1", 1]), f"'population_sizes' item 2 {SIZES_MUST_BE}"),
    (_set_size(9, [2, True, 1]), f"'population_sizes' item 10 {SIZES_MUST_BE}"),
    (_set_size(0, [-1, 1, 1]), f"'population_sizes' item 1 {SIZES_MUST_BE}"),
    (_set_size(0, [10 ** 30, 1, 1]), f"'population_sizes' item 1 {SIZES_MUST_BE}"),
    (_set_size(0, None), f"'population_sizes' item 1 {SIZES_MUST_BE}"),
    (lambda r: r["genome"]["body"].pop("plan"), NO_PLAN),
    (lambda r: r["genome"].pop("body"), NO_PLAN),
    (lambda r: r["genome"]["body"]["plan"]["spheres"].__setitem__(0, [0, 0, 1.0]),
     "the genome's body plan: a sphere gene has 6 numbers"),
])
def test_damaged_body_sizes_are_refused_naming_the_file(capsys, grown_run, tmp_path, damage, expected):
    run_dir = _copy_run(grown_run, tmp_path / "run")
    path = run_dir / "best" / "gen_0002.json"
    record = json.loads(path.read_text())
    damage(record)
    path.write_text(json.dumps(record))
    assert _refusal(*_plot(capsys, run_dir)) == f"creatures plot: {path}: {expected}"
    assert not list(run_dir.glob("*.png"))


@pytest.mark.parametrize("grow, expected", [
    ("yes", "the growth settings must be an object"),
    ({"spheres": 0}, "the growth setting spheres must be a whole number from 1 to 64"),
    ({"legs": 4}, "unknown growth setting 'legs'"),
])
def test_damaged_growth_settings_are_refused(capsys, tmp_path, grow, expected):
    run_dir = _make_growing_run(tmp_path / "run", grow=grow)
    message = _refusal(*_plot(capsys, run_dir))
    assert message == f"creatures plot: {run_dir / 'settings.json'}: its growth settings ('grow'): {expected}"


# --- the champion's lineage ------------------------------------------------------------------------

def _chain(k):
    """Body ``k`` of a hand-made lineage: a truss of 2 + k // 2 spheres on the ground, zigzag,
    each joined to the next two, every third bone a muscle (shifting along with ``k``)."""
    P = 2 + k // 2
    spheres = [[i, i, 0.3 * i, 0.08 + (0.25 if i % 2 else 0.0), 0.08 - 0.002 * i, 0.5] for i in range(P)]
    bones = [[100 + i, i, i + 1, i if (i + k) % 3 == 0 else -1] for i in range(P - 1)]
    bones += [[200 + i, i, i + 2, -1] for i in range(P - 2)]
    return {"spheres": spheres, "bones": bones}


def _moved(plan):
    """``plan`` with its first sphere 1 cm further on: the same parts, other values."""
    plan = json.loads(json.dumps(plan))
    plan["spheres"][0][2] += 0.01
    return plan


def _make_lineage_run(directory, history, moved=True, generations=None):
    """A hand-made growing run whose champion is its last generation's best (the fittest), with
    ``history`` ([generation, plan] pairs) as its ``body_history`` and the last of them as its
    own body (moved 1 cm if ``moved``); the other generations' bests have the seed's alone."""
    generations = generations or history[-1][0] + 1
    _make_growing_run(directory, generations)
    for g in range(1, generations + 1):
        path = directory / "best" / f"gen_{g:04d}.json"
        record = json.loads(path.read_text())
        champion = g == generations
        record["fitness"] = float(g)
        record["body_history"] = history if champion else history[:1]
        plan = history[-1][1] if champion else history[0][1]
        record["genome"]["body"]["plan"] = _moved(plan) if champion and moved else plan
        path.write_text(json.dumps(record))
    return directory


def _panels(fig):
    return [ax for ax in fig.axes if ax.get_visible()]


def _circles(ax):
    from matplotlib.patches import Circle
    return [p for p in ax.patches if isinstance(p, Circle)]


def _segments(ax, gid):
    """The lines a panel draws for its rigid bones (``bones``) or its muscles, as ((x, y), (x, y))."""
    collection = next(c for c in ax.collections if c.get_gid() == gid)
    return sorted(tuple(tuple(round(float(v), 9) for v in end) for end in s) for s in collection.get_segments())


def _ends(plan, muscles):
    at = {s[0]: (s[2], s[3]) for s in plan["spheres"]}
    return sorted(tuple(tuple(round(v, 9) for v in at[e]) for e in b[1:3]) for b in plan["bones"]
                  if (b[3] >= 0) == muscles)


def _arrows(fig):
    """Each arrow from one panel to the next: those across a row, and those into a row's start."""
    from matplotlib.patches import ConnectionPatch
    across = [a for a in fig.artists if isinstance(a, ConnectionPatch)]
    into = [t.arrow_patch for ax in fig.axes for t in ax.texts if t.xy == (0, 0.5)]
    return across + into


def test_a_growing_run_draws_its_champions_lineage(capsys, grown_run, tmp_path):
    status, out, err = _plot(capsys, grown_run, "--out", tmp_path, "--size", "900x500")
    assert (status, err) == (0, "") and out.splitlines()[-1] == str(tmp_path / "lineage.png")
    pixels = _pixels(tmp_path / "lineage.png")
    assert pixels.shape == (500, 900, 3)
    assert _near(pixels, chartlib.COLOURS["sphere"], 10).sum() > 500     # the bodies' spheres
    assert _near(pixels, chartlib.COLOURS["muscle"], 30).sum() > 20      # the sprout's muscle at least


def test_the_lineage_is_the_champions_body_history(grown_run):
    from evolution.growth import Plan
    from evolution.rundir import champion_record
    champion = champion_record(_best_records(grown_run))
    history = champion["body_history"]
    own = Plan.from_dict(champion["genome"]["body"]["plan"])
    moved = own != Plan.from_dict(history[-1][1])
    lineage = chartlib.read_run(grown_run).lineage
    assert lineage.generation == champion["generation"]
    assert lineage.generations == [g for g, _ in history] + ([champion["generation"]] if moved else [])
    assert lineage.plans == [Plan.from_dict(p) for _, p in history] + ([own] if moved else [])
    assert lineage.generations[0] == 0 and lineage.plans[-1] == own     # from the seed to the champion
    panels = _panels(chartlib.lineage_figure(chartlib.read_run(grown_run), (900, 500)))
    assert len(panels) == len(history) + moved
    assert [ax.get_title() for ax in panels] == [chartlib.lineage_label(lineage, k) for k in range(len(panels))]
    assert [len(_circles(ax)) for ax in panels] == [len(p.spheres) for p in lineage.plans]


def test_each_panel_draws_its_body_at_one_scale(tmp_path):
    history = [[0, _chain(0)], [2, _chain(2)], [3, _chain(3)], [6, _chain(6)]]
    run = chartlib.read_run(_make_lineage_run(tmp_path / "run", history))     # the champion: generation 7
    fig = chartlib.lineage_figure(run)
    panels = _panels(fig)
    plans = [p for _, p in history] + [_moved(history[-1][1])]
    assert [ax.get_title() for ax in panels] == [
        "seed\n2 spheres, 1 bone, 1 muscle", "generation 2\n3 spheres, 3 bones, 1 muscle",
        "generation 3\n3 spheres, 3 bones, 1 muscle",       # (another bone the muscle)
        "generation 6\n5 spheres, 7 bones, 2 muscles", "champion, generation 7\n5 spheres, 7 bones, 2 muscles"]
    for ax, plan in zip(panels, plans):
        circles = _circles(ax)
        assert [c.center for c in circles] == [(s[2], s[3]) for s in plan["spheres"]]
        assert [c.radius for c in circles] == [s[4] for s in plan["spheres"]]
        assert _segments(ax, "bones") == _ends(plan, muscles=False)
        assert _segments(ax, "muscles") == _ends(plan, muscles=True)
        bones, muscles = (next(c for c in ax.collections if c.get_gid() == gid) for gid in ("bones", "muscles"))
        np.testing.assert_allclose(muscles.get_colors()[0][:3], _rgb(chartlib.COLOURS["muscle"]) / 255)
        np.testing.assert_allclose(bones.get_colors()[0][:3], _rgb(chartlib.COLOURS["bone"]) / 255)
        assert ax.get_aspect() == 1.0
    # one scale: the same view in every panel, every body in it
    assert len({(ax.get_xlim(), ax.get_ylim()) for ax in panels}) == 1
    (x0, x1), (y0, y1) = panels[0].get_xlim(), panels[0].get_ylim()
    assert x0 < -0.08 and 1.2 + 0.072 < x1 and y0 < 0 and 0.33 + 0.078 < y1   # (spheres' edges)
    # an arrow from each to the next, all solid: none left out
    arrows = _arrows(fig)
    assert len(arrows) == 4 and all(a.get_linestyle() in ("-", "solid") for a in arrows)
    # left to right: in a strip as wide as this, in one row
    fig = chartlib.lineage_figure(run, (1800, 400))
    fig.canvas.draw()
    boxes = [ax.get_position() for ax in _panels(fig)]
    assert all(a.x1 < b.x0 and a.y0 == pytest.approx(b.y0) for a, b in zip(boxes, boxes[1:]))
    assert len(_arrows(fig)) == 4 and not any(ax.texts for ax in fig.axes)     # all across: none between rows


def test_a_champion_unchanged_since_its_last_change_is_drawn_once(tmp_path):
    history = [[0, _chain(0)], [3, _chain(2)]]
    run = chartlib.read_run(_make_lineage_run(tmp_path / "run", history, moved=False))
    assert (run.lineage.generations, run.lineage.moved) == ([0, 3], False)
    titles = [ax.get_title() for ax in _panels(chartlib.lineage_figure(run))]
    assert titles == ["seed\n2 spheres, 1 bone, 1 muscle",
                      "generation 3: the champion (gen. 4)\n3 spheres, 3 bones, 1 muscle"]


def test_the_lineage_is_the_one_of_the_champion_chosen_from_fresh_starts(tmp_path):
    run_dir = _make_lineage_run(tmp_path / "run", [[0, _chain(0)], [2, _chain(4)]], generations=4)  # fittest: 4
    for g, mean in ((1, 1.0), (2, 3.0), (3, 2.0), (4, 0.5)):
        path = run_dir / "best" / f"gen_{g:04d}.json"
        record = json.loads(path.read_text())
        record["post"] = {"mean": mean, "sd": 0.1}
        if g == 2:    # the best from fresh starts
            record["body_history"] = [[0, _chain(0)], [1, _chain(2)]]
            record["genome"]["body"]["plan"] = _chain(2)
        path.write_text(json.dumps(record))
    lineage = chartlib.read_run(run_dir).lineage
    assert (lineage.generation, lineage.generations, lineage.moved) == (2, [0, 1], False)


def test_a_long_lineage_keeps_twelve_bodies_evenly_spaced(tmp_path):
    history = [[0, _chain(0)]] + [[2 * k, _chain(k)] for k in range(1, 30)]
    run = chartlib.read_run(_make_lineage_run(tmp_path / "run", history))      # 31 bodies with the champion's
    assert len(run.lineage.plans) == 31
    shown = chartlib.lineage_panels(31)
    fig = chartlib.lineage_figure(run)
    panels = _panels(fig)
    assert len(panels) == 12
    assert [ax.get_title() for ax in panels] == [chartlib.lineage_label(run.lineage, k) for k in shown]
    assert panels[0].get_title().startswith("seed\n") and panels[-1].get_title().startswith("champion, generation 59\n")
    assert "12 of 31 bodies drawn, 19 left out" in fig.legends[0].get_title().get_text().replace("\n", " ")
    arrows = _arrows(fig)
    assert len(arrows) == 11 and all(a.get_linestyle() not in ("-", "solid") for a in arrows)  # dashed: some left out
    fig.canvas.draw()   # read row after row: each panel right of the one before, or below it
    boxes = [ax.get_position() for ax in panels]
    assert all(a.x1 < b.x0 or a.y0 > b.y1 for a, b in zip(boxes, boxes[1:]))


@pytest.mark.parametrize("n", [1, 2, 12, 13, 31, 100, 1000])
def test_the_bodies_kept_are_the_first_the_last_and_evenly_spaced(n):
    shown = chartlib.lineage_panels(n)
    assert len(shown) == min(n, 12) and shown[0] == 0 and shown[-1] == n - 1
    gaps = np.diff(shown)
    assert (gaps >= 1).all() and (n == 1 or gaps.max() - gaps.min() <= 1)


def _history(*items):
    """A damage: the champion's ``body_history`` is ``items``."""
    return lambda record: record.update(body_history=list(items))


SPHERE = [5, 5, 0.0, 0.1, 0.05, 0.5]
LINEAGE_MUST_BE = "must be [generation, plan]: a whole number and a body plan"
GENERATIONS = "(the generations of an ancestry go up to the file's)"


@pytest.mark.parametrize("damage, expected", [
    (lambda r: r.update(body_history={"0": _chain(0)}), "'body_history' must be a list of [generation, plan] pairs"),
    (lambda r: r.update(body_history="seed"), "'body_history' must be a list of [generation, plan] pairs"),
    (_history([0, _chain(0)], [2]), f"'body_history' item 2 {LINEAGE_MUST_BE}"),
    (_history([0, _chain(0), 1]), f"'body_history' item 1 {LINEAGE_MUST_BE}"),
    (_history([True, _chain(0)]), f"'body_history' item 1 {LINEAGE_MUST_BE}"),
    (_history(["0", _chain(0)]), f"'body_history' item 1 {LINEAGE_MUST_BE}"),
    (_history([0, [_chain(0)]]), f"'body_history' item 1 {LINEAGE_MUST_BE}"),
    (_history([-1, _chain(0)]), f"'body_history' item 1: generation -1 is not from 0 to 5 {GENERATIONS}"),
    (_history([0, _chain(0)], [3, _chain(2)], [2, _chain(3)]),
     f"'body_history' item 3: generation 2 is not from 3 to 5 {GENERATIONS}"),
    (_history([0, _chain(0)], [6, _chain(3)]), f"'body_history' item 2: generation 6 is not from 0 to 5 {GENERATIONS}"),
    (_history([0, {"spheres": []}]), "'body_history' item 1: the body plan must have lists 'spheres' and 'bones' "
                                     "('bones')"),
    (_history([0, {"spheres": [[0, 0, 1.0, 2.0, 0.1]], "bones": []}]), "'body_history' item 1: a sphere gene has 6 numbers"),
    (_history([0, {"spheres": [[0, 0, "x", 2.0, 0.1, 0.5]], "bones": []}]),
     "'body_history' item 1: a body plan's values are finite numbers"),
    (_history([0, {"spheres": [], "bones": []}]),
     "'body_history' item 1: a body of 0 spheres and 0 bones (1 to 10000 spheres, at most 10000 bones)"),
    (_history([0, {"spheres": [SPHERE, SPHERE], "bones": []}]), "'body_history' item 1: two spheres have the same innovation"),
    (_history([0, {"spheres": [[5, 5, 0.0, 0.1, 0.0, 0.5]], "bones": []}]),
     "'body_history' item 1: sphere 5 at (0, 0.1) with a radius of 0 (a radius > 0, all within 10000 m)"),
    (_history([0, {"spheres": [[5, 5, 1e300, 0.1, 0.05, 0.5]], "bones": []}]),
     "'body_history' item 1: sphere 5 at (1e+300, 0.1) with a radius of 0.05 (a radius > 0, all within 10000 m)"),
    (_history([0, {"spheres": [SPHERE], "bones": [[9, 5, 6, -1]]}]),
     "'body_history' item 1: bone 9 must join two of the plan's spheres and have a muscle slot of 0 or more "
     "(-1: a rigid bone)"),
    (_history([0, {"spheres": [SPHERE, [6, 6, 1.0, 0.1, 0.05, 0.5]], "bones": [[9, 5, 6, -2]]}]),
     "'body_history' item 1: bone 9 must join two of the plan's spheres and have a muscle slot of 0 or more "
     "(-1: a rigid bone)"),
    (_history([0, _chain(0)], [2, _chain(3)]),      # the genome's body is _chain(4)'s, moved
     "'body_history' does not end in the champion's body (its last plan has other parts than the genome's)"),
])
def test_a_damaged_lineage_is_refused_naming_the_file(capsys, tmp_path, damage, expected):
    run_dir = _make_lineage_run(tmp_path / "run", [[0, _chain(0)], [2, _chain(2)], [4, _chain(4)]])
    path = run_dir / "best" / "gen_0005.json"   # the champion's
    record = json.loads(path.read_text())
    damage(record)
    path.write_text(json.dumps(record))
    assert _refusal(*_plot(capsys, run_dir)) == f"creatures plot: {path}: {expected}"
    assert not list(run_dir.glob("*.png"))


@pytest.mark.parametrize("history", ["absent", []])
def test_a_run_from_before_lineages_draws_none_and_says_nothing(capsys, grown_run, tmp_path, history):
    run_dir = _copy_run(grown_run, tmp_path / "run")
    for path in (run_dir / "best").glob("gen_*.json"):
        record = json.loads(path.read_text())
        record.pop("body_history")
        if history != "absent":    # (a run resumed from a checkpoint from before them)
            record["body_history"] = history
        path.write_text(json.dumps(record))
    status, out, err = _plot(capsys, run_dir, "--size", "400x300")
    assert (status, err) == (0, "")
    assert out.splitlines() == [str(run_dir / n) for n in ("fitness.png", "species.png", "body_size.png")]
    assert chartlib.read_run(run_dir).lineage is None and not (run_dir / "lineage.png").exists()


def test_a_run_whose_body_does_not_grow_has_no_lineage(capsys, tmp_path):
    run = Run.create(tmp_path / "run", _tiny_settings(), resolve_design("worm").body)
    run.evolve()
    status, out, err = _plot(capsys, tmp_path / "run")
    assert (status, err) == (0, "") and len(out.splitlines()) == 2
    assert chartlib.read_run(tmp_path / "run").lineage is None and not (tmp_path / "run" / "lineage.png").exists()

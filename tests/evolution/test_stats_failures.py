"""stats.csv's columns for the creatures that did not fail (a failed one scores -1000, which drags
the plain percentiles down when many fail): what a run records, and how an older run without
them reads and goes on."""

import csv
import math

import pytest

from evolution import Run
from evolution.run import OK_FIELDS, STATS_FIELDS, history_of
from evolution.tasks import WORST_FITNESS
from evolution_helpers import design, read_stats, tiny_settings
from plugin_helpers import tasks_file


@pytest.fixture(scope="module")
def failing(tmp_path_factory):
    """Two generations of ten on a task that fails every odd creature of a batch at its third step
    (fitness: the steps lived, so every creature that does not fail scores the episode's steps)."""
    folder = tmp_path_factory.mktemp("failing")
    settings = tiny_settings(task=f"{tasks_file(folder)}:FailOdd", generations=2, seconds=0.1)
    run = Run.create(folder / "run", settings, design(settings.design_name).body)
    run.evolve()
    return folder / "run", run


def test_the_percentiles_of_the_creatures_that_did_not_fail_are_recorded(failing):
    directory, run = failing
    steps = run.episode.steps
    for row in read_stats(directory):
        assert int(row["creatures"]) == 10 and int(row["failed"]) == 5
        assert float(row["median"]) < 0.0                       # the plain median dives...
        assert [float(row[n]) for n in OK_FIELDS] == [steps] * 6  # ...the others' is what they did


def test_what_a_run_reads_back_is_what_it_wrote(failing):
    directory, run = failing
    assert [[h.creatures, *(getattr(h, n) for n in OK_FIELDS)] for h in history_of(directory)] == \
           [[h.creatures, *(getattr(h, n) for n in OK_FIELDS)] for h in run.history]


def test_a_generation_that_all_failed_records_the_failure_value(tmp_path):
    settings = tiny_settings(task=f"{tasks_file(tmp_path)}:WrongShape", generations=1, seconds=0.05)
    run = Run.create(tmp_path / "run", settings, design(settings.design_name).body)
    run.evolve()
    (row,) = read_stats(tmp_path / "run")
    assert int(row["failed"]) == 10 and [float(row[n]) for n in OK_FIELDS] == [WORST_FITNESS] * 6


def _strip_new_columns(directory):
    """stats.csv as a run from before the creatures and ok_ columns wrote it."""
    path = directory / "stats.csv"
    keep = STATS_FIELDS.index("creatures")
    lines = path.read_text().splitlines()
    path.write_text("".join(",".join(line.split(",")[:keep]) + "\n" for line in lines))


def test_an_older_run_reads_its_creatures_from_species_and_unknown_percentiles_as_nan(tmp_path, failing):
    import shutil
    directory = tmp_path / "old"
    shutil.copytree(failing[0], directory)
    _strip_new_columns(directory)
    history = history_of(directory)
    assert [h.creatures for h in history] == [10, 10]
    assert all(math.isnan(getattr(h, n)) for h in history for n in OK_FIELDS)   # 5 failed: not known


def test_an_older_run_where_none_failed_has_the_plain_percentiles(tmp_path):
    settings = tiny_settings(generations=1)
    run = Run.create(tmp_path / "run", settings, design(settings.design_name).body)
    run.evolve()
    _strip_new_columns(tmp_path / "run")
    (h,) = history_of(tmp_path / "run")
    assert h.failed == 0 and [getattr(h, n) for n in OK_FIELDS] == [getattr(h, n[3:]) for n in OK_FIELDS]


def test_an_older_run_goes_on_with_rows_of_its_own_columns(tmp_path):
    settings = tiny_settings(generations=1)
    run = Run.create(tmp_path / "run", settings, design(settings.design_name).body)
    run.evolve()
    _strip_new_columns(tmp_path / "run")
    reopened = Run.open(tmp_path / "run")
    reopened.set_generations(2)
    reopened.evolve()
    with open(tmp_path / "run" / "stats.csv", newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == list(STATS_FIELDS[:STATS_FIELDS.index("creatures")])
    assert [len(r) for r in rows[1:]] == [len(rows[0])] * 2
    assert [h.generation for h in history_of(tmp_path / "run")] == [1, 2]

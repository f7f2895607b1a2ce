"""``creatures bench``'s physics rows compare like with like: the same work on both sides (warm-up,
steps, repetitions) and the same cores (1 thread against 1 process, N threads against N processes).
Nothing here is timed: tiny populations and windows, checked for what was run, not how fast."""

import json
import os

import numba
import pytest

from creatures import bench

pytest.importorskip("pymunk")

#: tiny: a population of 1 (per core only) and one of 5, split 3 + 2 over two processes
POPULATIONS = (1, 5)
STEPS, REPEATS, WARMUP = 7, 2, 3


@pytest.fixture(scope="module")
def rows():
    return bench.physics_rows(POPULATIONS, STEPS, REPEATS, budget=10_000, cores=(1, 2), warmup=WARMUP)


def _pairs(rows):
    """``{(cores, population): {engine: row}}``"""
    out = {}
    for r in rows:
        out.setdefault((r["cores"], r["population"]), {})[r["engine"]] = r
    return out


def test_rows_have_the_fields_of_the_report(rows):
    for r in rows:
        assert r["work"] == "physics" and r["engine"] in ("creatures", "pymunk")
        assert r["cores"] in (1, 2)
        assert r["creature_steps_per_s"] > 0
        assert r["statistic"] == "median" and r["repeats"] == REPEATS
        assert r["steps"] == STEPS and r["warmup_steps"] == WARMUP
    json.dumps(rows)  # the --json rows


def test_every_population_per_core_and_those_as_large_as_the_cores_on_all():
    rows = bench.physics_rows((1, 2), 2, 1, cores=(1, 2), warmup=1, pymunk=False)
    assert [(r["cores"], r["population"]) for r in rows] == [(1, 1), (1, 2), (2, 2)]


def test_both_sides_of_each_comparison_did_the_same_work(rows):
    pairs = _pairs(rows)
    assert set(pairs) == {(1, 1), (1, 5), (2, 5)}
    for key, pair in pairs.items():
        ours, theirs = pair["creatures"], pair["pymunk"]
        for field in ("steps", "warmup_steps", "repeats", "statistic", "population", "cores"):
            assert ours[field] == theirs[field], (key, field)
        for worker in theirs["workers"]:  # what each pymunk process says it ran
            assert worker["steps"] == ours["steps"] and worker["warmup_steps"] == ours["warmup_steps"]
        assert ours["vs_pymunk"] == pytest.approx(ours["creature_steps_per_s"] / theirs["creature_steps_per_s"])


def test_per_core_is_one_numba_thread_against_pymunk_in_this_one_process(rows):
    for pair in (p for (cores, _), p in _pairs(rows).items() if cores == 1):
        assert pair["creatures"]["threads"] == 1
        assert pair["pymunk"]["processes"] == 1
        assert [w["pid"] for w in pair["pymunk"]["workers"]] == [os.getpid()]


def test_all_cores_pymunk_splits_the_population_over_that_many_processes(rows):
    pair = _pairs(rows)[2, 5]
    workers = pair["pymunk"]["workers"]
    assert pair["pymunk"]["processes"] == len(workers) == 2
    pids = {w["pid"] for w in workers}
    assert len(pids) == 2 and os.getpid() not in pids
    assert sorted(w["creatures"] for w in workers) == [2, 3]
    assert pair["creatures"]["threads"] == min(2, numba.config.NUMBA_NUM_THREADS)


def test_shares_sum_to_the_population_and_differ_by_at_most_one():
    for population, processes in ((1000, 2), (7, 3), (2, 8), (1, 1)):
        parts = bench.shares(population, processes)
        assert sum(parts) == population and max(parts) - min(parts) <= 1 and min(parts) >= 1


def test_the_budget_shortens_both_engines_windows_alike():
    assert bench.window_steps(1, 1200, 300_000) == 1200
    assert bench.window_steps(1000, 1200, 300_000) == 300
    assert bench.window_steps(10**6, 1200, 300_000) == bench.MIN_STEPS
    assert bench.window_steps(10**6, 20, 300_000) == 20


def test_the_tables_show_per_core_first_and_a_ratio_per_pair(rows):
    md = bench.format_markdown(rows).splitlines()
    assert [line.split("|")[1].strip() for line in md[2:]] == ["1", "1", "2"]
    assert all(line.rstrip(" |").endswith("x") for line in md[2:])
    first = {"seconds": 0.1, "cache": "hit"}
    text = bench.format_table(rows, bench.machine(), first, {}, STEPS)
    assert text.index("per core:") < text.index("all 2 cores:")
    assert text.count("processes, each with its share") == 1


def test_quick_runs_both_core_counts_and_prints_json(run_creatures):
    r = run_creatures("bench", "--quick", "--populations", "1,4", "--steps", "20", "--no-generation", "--json")
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    cores = os.cpu_count()
    expected = {(1, 1), (1, 4)} | ({(cores, 4)} if 1 < cores <= 4 else set())
    assert {(r["cores"], r["population"]) for r in rows} == expected
    assert {r["engine"] for r in rows} == {"creatures", "pymunk"}
    assert all(r["repeats"] == bench.QUICK_REPEATS and r["steps"] == 20 for r in rows)
    assert all(r["stands"] for r in rows)

"""``creatures bench``'s physics rows compare like with like: the same work on both sides (warm-up,
steps, repetitions) and the same cores (1 thread against 1 process, N threads against N processes).
Nothing here is timed: tiny populations and windows, checked for what was run, not how fast."""

import json
import os
import statistics

import numba
import pytest

from creatures.bench.common import MIN_STEPS, QUICK_REPEATS, machine, window_steps
from creatures.bench.engine import format_markdown, format_table, physics_rows
from creatures.bench.pymunk_baseline import shares

pytest.importorskip("pymunk")

#: tiny: a population of 1 (per core only) and one of 5, split 3 + 2 over two processes
POPULATIONS = (1, 5)
STEPS, REPEATS, WARMUP = 7, 2, 3


@pytest.fixture(scope="module")
def rows():
    return physics_rows(POPULATIONS, STEPS, REPEATS, budget=10_000, cores=(1, 2), warmup=WARMUP)


def _pairs(rows):
    """``{(cores, population): {engine: row}}``, our engine as ``creatures/rollout`` and
    ``creatures/step``"""
    out = {}
    for r in rows:
        engine = r["engine"] + ("/" + r["calls"] if "calls" in r else "")
        out.setdefault((r["cores"], r["population"]), {})[engine] = r
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
    rows = physics_rows((1, 2), 2, 1, cores=(1, 2), warmup=1, pymunk=False)
    assert [(r["cores"], r["population"], r["calls"]) for r in rows] == [
        (1, 1, "rollout"), (1, 1, "step"), (1, 2, "rollout"), (1, 2, "step"), (2, 2, "rollout"), (2, 2, "step")]


def test_both_sides_of_each_comparison_did_the_same_work(rows):
    pairs = _pairs(rows)
    assert set(pairs) == {(1, 1), (1, 5), (2, 5)}
    for key, pair in pairs.items():
        theirs = pair["pymunk"]
        for ours in (pair["creatures/rollout"], pair["creatures/step"]):
            for field in ("steps", "warmup_steps", "repeats", "statistic", "population", "cores"):
                assert ours[field] == theirs[field], (key, field)
            for worker in theirs["workers"]:  # what each pymunk process says it ran
                assert worker["steps"] == ours["steps"] and worker["warmup_steps"] == ours["warmup_steps"]
            assert ours["vs_pymunk"] == pytest.approx(ours["creature_steps_per_s"] / theirs["creature_steps_per_s"])


def test_per_core_is_one_numba_thread_against_pymunk_in_this_one_process(rows):
    for pair in (p for (cores, _), p in _pairs(rows).items() if cores == 1):
        assert pair["creatures/rollout"]["threads"] == pair["creatures/step"]["threads"] == 1
        assert pair["pymunk"]["processes"] == 1
        assert [w["pid"] for w in pair["pymunk"]["workers"]] == [os.getpid()]


def test_all_cores_pymunk_splits_the_population_over_that_many_processes(rows):
    pair = _pairs(rows)[2, 5]
    workers = pair["pymunk"]["workers"]
    assert pair["pymunk"]["processes"] == len(workers) == 2
    pids = {w["pid"] for w in workers}
    assert len(pids) == 2 and os.getpid() not in pids
    assert sorted(w["creatures"] for w in workers) == [2, 3]
    assert pair["creatures/rollout"]["threads"] == min(2, numba.config.NUMBA_NUM_THREADS)
    assert pair["creatures/step"]["threads"] == min(2, numba.config.NUMBA_NUM_THREADS)


def test_shares_sum_to_the_population_and_differ_by_at_most_one():
    for population, processes in ((1000, 2), (7, 3), (2, 8), (1, 1)):
        parts = shares(population, processes)
        assert sum(parts) == population and max(parts) - min(parts) <= 1 and min(parts) >= 1


def test_the_budget_shortens_both_engines_windows_alike():
    assert window_steps(1, 1200, 300_000) == 1200
    assert window_steps(1000, 1200, 300_000) == 300
    assert window_steps(10**6, 1200, 300_000) == MIN_STEPS
    assert window_steps(10**6, 20, 300_000) == 20


def test_the_tables_show_per_core_first_and_a_ratio_per_pair(rows):
    md = format_markdown(rows).splitlines()
    assert [line.split("|")[1].strip() for line in md[2:]] == ["1", "1", "2"]
    assert all(line.rstrip(" |").endswith("x") for line in md[2:])
    first = {"seconds": 0.1, "cache": "hit"}
    text = format_table(rows, machine(), first, {}, STEPS)
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
    assert all(r["repeats"] == QUICK_REPEATS and r["steps"] == 20 for r in rows)
    assert all(r["stands"] for r in rows)


# --- end to end: whole generations, breeding and speciation included ---------------------------

#: tiny: 6 genomes, 6 steps each, one worker process (ours) / pool process (the baseline)
E2E = dict(population=6, workers=1)


@pytest.fixture(scope="module")
def end_to_end_rows():
    from creatures.bench import generation
    from creatures.design import resolve_design
    from evolution.rollout import Episode

    ours = generation.time_run_end_to_end(generations=3, seconds=0.1, **E2E)
    episode = Episode.make(resolve_design("walker").body, "run", seconds=0.1)
    theirs = generation.time_baseline_end_to_end(episode, generations=2, **E2E)
    return ours, theirs


def test_end_to_end_rows_time_each_generation_after_the_first(end_to_end_rows):
    ours, theirs = end_to_end_rows
    assert (ours["engine"], theirs["engine"]) == ("creatures", "neat-python+pymunk")
    assert ours["generations_timed"] == 2 and theirs["generations_timed"] == 1
    for r in (ours, theirs):
        assert r["work"] == "generation_end_to_end" and r["statistic"] == "median"
        assert r["population"] == 6 and r["steps"] == 6 and r["workers"] == 1
        assert len(r["wall_times_s"]) == len(r["eval_times_s"]) == r["generations_timed"]
        assert all(w >= e > 0 for w, e in zip(r["wall_times_s"], r["eval_times_s"]))
        assert 0 <= r["non_eval_share"] < 1
        assert r["non_eval_seconds"] == statistics.median(w - e for w, e in zip(r["wall_times_s"], r["eval_times_s"]))
        assert r["wall_seconds"] == statistics.median(r["wall_times_s"])
    assert len(ours["species"]) == 3 and len(theirs["species"]) == 2
    json.dumps([ours, theirs])


def test_the_baseline_breeds_with_neats_own_genome_and_the_runs_config():
    import neat

    from creatures.bench import generation
    from creatures.design import resolve_design
    from evolution.breeding import FAST
    from evolution.rollout import Episode

    config = generation.baseline_neat_config(Episode.make(resolve_design("walker").body, "run", seconds=0.1), 6)
    assert config.genome_type is neat.DefaultGenome and getattr(config.genome_config, FAST) is False
    assert config.pop_size == 6


def test_the_end_to_end_table_names_both_engines_and_the_targets(end_to_end_rows):
    from creatures.bench import generation

    ours, theirs = (dict(r) for r in end_to_end_rows)
    ours["vs_baseline"] = theirs["wall_seconds"] / ours["wall_seconds"]
    ours["meets_share_target"] = ours["non_eval_share"] <= generation.TARGET_NON_EVAL_SHARE
    ours["meets_ratio_target"] = ours["vs_baseline"] >= generation.TARGET_RATIO
    for r in (ours, theirs):
        r.update(design="walker", task="run", simulated_s=0.1)
    text = generation.format_end_to_end([ours, theirs])
    assert "creatures" in text and "neat-python+pymunk" in text
    assert "outside evaluation" in text and "the baseline end to end" in text


def test_body_evolution_rows_compare_the_evolving_walker_with_the_fixed_one():
    """``creatures bench --bodies``: whole generations of walker-evolving against walker, the
    same work, alternating rounds; the evolving one's ratio and the verdict on the 15 % target."""
    from creatures.bench import generation

    rows = generation.run_bodies(rounds=2, generations=3, population=6, seconds=0.1, workers=1)
    fixed, evolving = rows
    assert (fixed["design"], evolving["design"]) == ("walker", "walker-evolving")
    for r in rows:
        assert r["work"] == "body_evolution" and r["rounds"] == 2 and r["generations_timed"] == 4
        assert r["wall_seconds"] >= r["eval_seconds"] > 0 and r["population"] == 6
    assert evolving["vs_fixed"] == evolving["wall_seconds"] / fixed["wall_seconds"]
    assert evolving["meets_target"] == (evolving["vs_fixed"] <= 1 + generation.TARGET_BODY_OVERHEAD)
    text = generation.format_bodies(rows)
    assert "walker-evolving" in text and "target: a generation of evolving bodies within 15 %" in text
    json.dumps(rows)

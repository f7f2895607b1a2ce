"""``creatures bench``'s physics rows compare like with like: the same work on both sides (warm-up,
steps, repetitions) and the same cores (1 thread against 1 process, N threads against N processes),
against pymunk at its default and at the rigidity ours holds (pymunk-rigid), with the strain each
engine's skeleton holds measured beside them. Nothing here is timed: tiny populations and
windows, checked for what was run, not how fast."""

import json
import math
import os
import statistics

import numba
import pytest

from creatures.bench.common import (MIN_STEPS, PYMUNK_ITERATIONS, PYMUNK_RIGID_SUBSTEPS, QUICK_REPEATS, machine,
                                    window_steps)
from creatures.bench.engine import format_markdown, format_table, physics_rows, strain_rows
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


#: the pymunk rows of every comparison, and the field of our rows holding the ratio against each
PYMUNKS = {"pymunk": "vs_pymunk", "pymunk-rigid": "vs_pymunk_rigid"}


def test_rows_have_the_fields_of_the_report(rows):
    for r in rows:
        assert r["work"] == "physics" and r["engine"] in ("creatures", "pymunk", "pymunk-rigid")
        assert r["cores"] in (1, 2)
        if r["engine"] != "creatures":
            assert r["iterations"] == PYMUNK_ITERATIONS
            assert r["substeps"] == (PYMUNK_RIGID_SUBSTEPS if r["engine"] == "pymunk-rigid" else 1)
            assert {w["substeps"] for w in r["workers"]} == {r["substeps"]}
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
        assert set(pair) == {"creatures/rollout", "creatures/step", *PYMUNKS}, key
        for engine, ratio in PYMUNKS.items():
            theirs = pair[engine]
            for ours in (pair["creatures/rollout"], pair["creatures/step"]):
                for field in ("steps", "warmup_steps", "repeats", "statistic", "population", "cores"):
                    assert ours[field] == theirs[field], (key, engine, field)
                for worker in theirs["workers"]:  # what each pymunk process says it ran
                    assert worker["steps"] == ours["steps"] and worker["warmup_steps"] == ours["warmup_steps"]
                assert ours[ratio] == pytest.approx(ours["creature_steps_per_s"] / theirs["creature_steps_per_s"])


def test_per_core_is_one_numba_thread_against_pymunk_in_this_one_process(rows):
    for pair in (p for (cores, _), p in _pairs(rows).items() if cores == 1):
        assert pair["creatures/rollout"]["threads"] == pair["creatures/step"]["threads"] == 1
        for engine in PYMUNKS:
            assert pair[engine]["processes"] == 1
            assert [w["pid"] for w in pair[engine]["workers"]] == [os.getpid()]


def test_all_cores_pymunk_splits_the_population_over_that_many_processes(rows):
    pair = _pairs(rows)[2, 5]
    for engine in PYMUNKS:
        workers = pair[engine]["workers"]
        assert pair[engine]["processes"] == len(workers) == 2
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


@pytest.fixture(scope="module")
def strains():
    """The strain check at its defaults (about a second: pymunk-rigid's 16 kicking walkers)."""
    return strain_rows()


def test_the_tables_show_per_core_first_and_both_ratios_per_pair(rows, strains):
    md = format_markdown(rows, strains).splitlines()
    table = md[2:md.index("")]
    assert [line.split("|")[1].strip() for line in table] == ["1", "1", "2"]
    header = [cell.strip() for cell in md[0].strip(" |").split("|")]
    assert header[5:7] == ["pymunk (creature-steps/s)", "pymunk-rigid (creature-steps/s)"]
    rate = {(r["engine"] + ("/" + r["calls"] if "calls" in r else ""), r["cores"], r["population"]): r for r in rows}
    for line in table:  # both ratios of both calls, from the measured rates
        cells = [cell.strip() for cell in line.strip(" |").split("|")]
        key = int(cells[0]), int(cells[1].replace(",", ""))
        ours = [rate[(f"creatures/{calls}", *key)] for calls in ("rollout", "step")]
        assert cells[7:] == [f"{r[ratio]:.1f}x" for r in ours for ratio in PYMUNKS.values()]
        assert cells[6] == f"{rate[('pymunk-rigid', *key)]['creature_steps_per_s']:,.0f}"
    strain_table = md[md.index("") + 3:]
    assert [line.split("|")[1].strip() for line in strain_table] == ["creatures", "pymunk", "pymunk-rigid"]
    first = {"seconds": 0.1, "cache": "hit"}
    text = format_table(rows, machine(), first, {}, STEPS, strains)
    assert text.index("per core:") < text.index("all 2 cores:")
    assert text.count("processes, each with its share") == 1
    assert "vs pymunk" in text and "vs rigid" in text and text.count("  pymunk-rigid ") >= 2
    assert "worst rigid-bone strain" in text


def test_the_strain_check_measures_every_engine_and_the_rigid_pymunk_holds_tighter(strains):
    """The strain beside each engine is measured, not written down: finite for every engine, within
    the integrity limit for ours, and pymunk at 6 substeps holds the walker's bones tighter than
    pymunk at its default, under the sine and kicking alike (the reason pymunk-rigid exists)."""
    from physics.integrity import STRAIN_LIMIT

    assert set(strains) == {"creatures", "pymunk", "pymunk-rigid"}
    for engine, r in strains.items():
        for case in ("strain_sine", "strain_kicking"):
            assert math.isfinite(r[case]) and r[case] >= 0.0, (engine, case)
    assert strains["creatures"]["strain_kicking"] < STRAIN_LIMIT
    for case in ("strain_sine", "strain_kicking"):
        assert strains["pymunk-rigid"][case] < strains["pymunk"][case], case
    json.dumps(strains)


def test_quick_runs_both_core_counts_and_prints_json(run_creatures):
    r = run_creatures("bench", "--quick", "--populations", "1,4", "--steps", "20", "--no-generation", "--json")
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    cores = os.cpu_count()
    expected = {(1, 1), (1, 4)} | ({(cores, 4)} if 1 < cores <= 4 else set())
    assert {(r["cores"], r["population"]) for r in rows} == expected
    assert {r["engine"] for r in rows} == {"creatures", "pymunk", "pymunk-rigid"}
    assert all(r["repeats"] == QUICK_REPEATS and r["steps"] == 20 for r in rows)
    assert all(r["stands"] for r in rows)
    assert all(math.isfinite(r["strain_sine"]) and math.isfinite(r["strain_kicking"]) for r in rows)
    kicking = {r["engine"]: r["strain_kicking"] for r in rows}
    assert kicking["pymunk-rigid"] < kicking["pymunk"]
    for r in rows:
        if r["engine"] == "creatures":
            assert set(PYMUNKS.values()) <= set(r)


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


# --- a whole generation: ours against the baseline and baseline-rigid --------------------------


@pytest.fixture(scope="module")
def generation_rows():
    """The whole-generation benchmark on tiny work: 4 genomes, 0.1 s each, one worker."""
    from creatures.bench import generation

    return generation.run_generation(quick=True, generations=1, population=4, seconds=0.1, workers=1)


def test_the_generation_table_has_a_baseline_rigid_row_and_both_ratios(generation_rows):
    from creatures.bench import generation

    ours, base, rigid = generation_rows
    assert [r["engine"] for r in generation_rows] == ["creatures", "baseline", "baseline-rigid"]
    assert (base["substeps"], rigid["substeps"]) == (1, generation.BASELINES["baseline-rigid"]) == (1, 6)
    for r in (base, rigid):    # the same work as ours
        assert r["work"] == "generation" and r["population"] == ours["population"] == 4
        assert r["steps"] == ours["steps"] == 6 and r["trials"] == ours["trials"]
        assert r["genomes_timed"] == 4 and r["generations_timed"] == 1
    assert ours["vs_baseline"] == base["seconds_per_generation"] / ours["seconds_per_generation"]
    assert ours["vs_baseline_rigid"] == rigid["seconds_per_generation"] / ours["seconds_per_generation"]
    assert ours["meets_ratio_target"] == (ours["vs_baseline"] >= generation.TARGET_RATIO)
    assert ours["meets_rigid_ratio_target"] == (ours["vs_baseline_rigid"] >= generation.TARGET_RIGID_RATIO)
    # the rigid baseline really stepped otherwise: its walkers went elsewhere
    distances = [(r["best_distance_m"], r["median_distance_m"]) for r in (base, rigid)]
    assert distances[0] != distances[1]
    assert all(math.isfinite(r["rank_correlation"]) or r["compared_genomes"] <= 2 for r in generation_rows)
    text = generation.format_generation(generation_rows)
    assert "baseline-rigid" in text and "vs rigid" in text
    assert f"{ours['vs_baseline_rigid']:.1f}x baseline-rigid" in text
    assert f"{ours['vs_baseline']:.1f}x the baseline" in text
    json.dumps(generation_rows)


def test_the_shapes_row_times_many_shapes_against_one_and_says_the_ratio(capsys):
    """``creatures bench --shapes --quick``: the same population both ways, the ratio computed
    from the two timings, the verdict against the 2x target printed (no timing asserted)."""
    from creatures import cli
    from creatures.bench.shapes import POPULATION, SHAPES, TARGET, format_shapes, run_shapes
    many, one, grown = run_shapes(quick=True)
    assert many["population"] == one["population"] == POPULATION and many["shapes"] == SHAPES
    assert many["seconds"] > 0 and one["seconds"] > 0
    assert many["vs_one_shape"] == many["seconds"] / one["seconds"] and many["target"] == TARGET
    # a growing run's generation: its 150 plans, a batch per graph (the engine of graphs: 5, where
    # a batch per topology took 21), against its commonest body
    assert grown["shapes"] == 5 and 3.3 < grown["mean_spheres"] < 3.4 and grown["one_shape_spheres"] == 3
    assert grown["vs_one_shape"] == grown["seconds"] / grown["one_shape_seconds"]
    text = format_shapes([many, one, grown])
    assert f"{many['vs_one_shape']:.2f}x one shape" in text and ("meets" in text or "MISSES" in text)
    assert f"{grown['vs_one_shape']:.2f}x that body's" in text
    assert cli.main(["bench", "--shapes", "--quick", "--json"]) == 0
    assert '"work": "shapes"' in capsys.readouterr().out


def test_the_plug_in_table_times_the_flag_example_of_a_source_checkout():
    """``creatures bench --tasks`` times examples/flag_task.py beside the built-in run when the
    examples are there (this checkout): it had looked for them inside the package."""
    from creatures.bench import tasks

    assert tasks.EXAMPLE.is_file()
    assert [name for name, _ in tasks._tasks()][-1] == "examples/flag_task.py (numpy)"


def test_the_machine_says_what_the_kernels_are_compiled_for():
    """Our creatures are the vectors' lanes (pymunk is scalar), so the bench says how wide the
    vectors numba compiles for are, from the processor's own flags, beside its name (which
    alone does not tell: an "AMD EPYC" without AVX-512 ran this suite on 2026-11-30)."""
    import llvmlite.binding as llvm
    info = machine()
    if not numba.config.CPU_NAME:   # (numba compiles for the host)
        assert info["compiled_for"] == llvm.get_host_cpu_name()
    try:
        flags = set(open("/proc/cpuinfo").read().split())
    except OSError:
        pytest.skip("no /proc/cpuinfo to read the processor's flags from")
    assert info["vector_bits"] == (512 if "avx512f" in flags else 256 if "avx2" in flags else 128)
    line = format_table([], info, {"seconds": 0.1, "cache": "hit"}, {}, STEPS).splitlines()[0]
    assert f"(compiled for {info['compiled_for']}, {info['vector_bits']}-bit vectors)" in line

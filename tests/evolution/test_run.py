"""An evolution run and its directory: what is written, and that a run is a function of its
settings (the seed included) and nothing else: not the worker count, not the process."""

import csv
import json

import neat
import numpy as np
import pytest

from evolution import PluginError, Episode, Evaluator, Run, RunSettings, genome_from_dict, genome_to_dict
from evolution import neat_config_text, rundir
from evolution.genomes import THRESHOLD
from evolution.species import DefaultSpeciesSet
from evolution.run import STATS_FIELDS, RunError
from evolution_helpers import bits, design, read_stats, run_files, stick, tiny_settings

GENERATIONS = 3


def _evolve(directory, **overrides):
    """A tiny walker run in ``directory``; returns the Run, the best genome and the stats that
    ``on_generation`` received."""
    settings = tiny_settings(**{"generations": GENERATIONS, **overrides})
    run = Run.create(directory, settings, design(settings.design_name).body)
    seen = []
    best = run.evolve(on_generation=seen.append)
    return run, best, seen


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    directory = tmp_path_factory.mktemp("base")
    run, best, seen = _evolve(directory)
    return directory, run, best, seen


@pytest.fixture(scope="module")
def same_seed(tmp_path_factory):
    directory = tmp_path_factory.mktemp("same_seed")
    _evolve(directory)
    return directory


# --- the directory -----------------------------------------------------------------------------

def test_run_directory_holds_settings_body_neat_config_stats_species_and_bests(base):
    directory = base[0]
    names = {str(p.relative_to(directory)) for p in directory.rglob("*") if p.is_file()}
    assert names == {"settings.json", "body.json", "terrain.json", "neat.cfg", "stats.csv", "species.csv",
                     "checkpoint.json", ".lock",
                     *(f"best/gen_{g:04d}.json" for g in range(1, GENERATIONS + 1))}


def test_settings_json_holds_every_setting_and_the_design_text(base):
    directory, run = base[:2]
    data = json.loads((directory / "settings.json").read_text())
    assert set(data) == set(RunSettings.__dataclass_fields__)
    assert data["design_text"] == design("walker").text
    assert data["design_text"].startswith("name: walker")
    assert RunSettings.from_json((directory / "settings.json").read_text()) == run.settings


def test_run_settings_defaults_are_every_setting_but_the_design():
    d = RunSettings.defaults()
    assert set(d) == set(RunSettings.__dataclass_fields__) - {"design_name", "design_text"}
    assert RunSettings("walker", "text") == RunSettings("walker", "text", **d)
    # what the README's "creatures evolve" says it does
    assert (d["task"], d["seconds"], d["generations"], d["population"], d["seed"]) == ("run", 20.0, 50, 150, 0)


def test_an_episodes_defaults_are_a_runs():
    """One owner: an episode made without a task, seconds or clock has a run's."""
    import inspect
    d = RunSettings.defaults()
    make = inspect.signature(Episode.make).parameters
    assert (make["task"].default, make["seconds"].default, make["clock_hz"].default) == (
        d["task"], d["seconds"], d["clock_hz"])
    fields = Episode.__dataclass_fields__
    assert fields["task"].default_factory().name == d["task"]
    assert (fields["seconds"].default, fields["clock_hz"].default) == (d["seconds"], d["clock_hz"])


def test_a_run_records_what_it_resolved_and_leaves_what_was_asked_as_it_was(tmp_path):
    """Run.create works out the plug-ins, the sensors' order, what the fitness measures and the
    simulation settings (the task's ground, the medium); the run's settings hold them, and the
    settings it was given stay what the user asked for."""
    asked = tiny_settings(task="swim", medium="water")
    before = RunSettings.from_json(asked.to_json())
    run = Run.create(tmp_path, asked, design("eel").body)
    assert asked == before and asked.plugins is None and asked.measures is None and asked.sensors is None
    got = run.settings
    assert got is not asked and got.plugins["task"]["name"] == "swim" and got.measures
    assert got.sensors == got.sensor_names and got.sim["fluid_density"] == 1000.0 and not got.sim["ground"]
    assert RunSettings.read(tmp_path / "settings.json") == got


def test_neat_cfg_is_the_config_the_run_uses(base):
    directory, run = base[:2]
    text = (directory / "neat.cfg").read_text()
    assert text == run.neat_text
    genome_config = run.config.genome_config
    assert genome_config.num_inputs == run.episode.n_inputs() == 21
    assert genome_config.num_outputs == run.episode.n_outputs() == 6
    assert run.config.pop_size == run.settings.population


def test_stats_csv_has_a_header_and_one_row_per_generation(base):
    directory = base[0]
    with open(directory / "stats.csv", newline="") as f:
        rows = list(csv.reader(f))
    assert tuple(rows[0]) == STATS_FIELDS
    assert {"best", "mean", "median", "p90", "p75", "p25", "p10", "worst", "species", "failed",
            "eval_seconds"} <= set(rows[0])
    assert [int(r[0]) for r in rows[1:]] == list(range(1, GENERATIONS + 1))


def test_stats_percentiles_are_in_order(base):
    for row in read_stats(base[0]):
        values = [float(row[k]) for k in ("worst", "p10", "p25", "median", "p75", "p90", "best")]
        assert values == sorted(values), row
        assert float(row["worst"]) <= float(row["mean"]) <= float(row["best"])


def test_stats_counts_are_sane(base):
    for row in read_stats(base[0]):
        assert int(row["species"]) >= 1
        assert 0 <= int(row["nonfinite"]) <= int(row["failed"]) <= tiny_settings().population
        assert float(row["eval_seconds"]) > 0.0


def test_a_generations_wall_time_holds_its_evaluation_and_the_rest(base):
    """wall_seconds runs from the end of the generation before (the first: from the run's start,
    its workers' start-up included) to the end of its own files, so it holds the evaluation."""
    for row in read_stats(base[0]):
        assert float(row["wall_seconds"]) > float(row["eval_seconds"]) > 0.0


def test_a_run_from_before_the_wall_time_resumes(tmp_path):
    """A stats.csv without the wall_seconds column (runs made before it) reads as wall time 0,
    and gets the column when the run goes on."""
    directory = tmp_path / "old"
    run, _, _ = _evolve(directory, generations=2)
    lines = (directory / "stats.csv").read_text().splitlines()
    wall = STATS_FIELDS.index("wall_seconds")
    old = [",".join(line.split(",")[:wall]) for line in lines]   # the columns before wall_seconds
    (directory / "stats.csv").write_text("\n".join(old) + "\n")
    reopened = Run.open(directory)
    assert [h.wall_seconds for h in reopened.history] == [0.0, 0.0]
    assert [h.best for h in reopened.history] == [h.best for h in run.history]
    reopened.set_generations(3)
    reopened.evolve()
    rows = read_stats(directory)
    assert [float(r["wall_seconds"]) > 0.0 for r in rows] == [False, False, True]


def test_stats_csv_rows_are_what_on_generation_received(base):
    directory, run, _, seen = base
    assert seen == run.history
    assert [[str(v) for v in s.row()] for s in seen] == \
           [[row[k] for k in STATS_FIELDS] for row in read_stats(directory)]


def test_species_csv_lists_each_generations_species(base):
    directory = base[0]
    with open(directory / "species.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows and set(rows[0]) == {"generation", "species", "size"}
    for stats in read_stats(directory):
        these = [r for r in rows if r["generation"] == stats["generation"]]
        assert len(these) == int(stats["species"])
        assert all(int(r["size"]) >= 1 for r in these)
    first = [r for r in rows if r["generation"] == "1"]
    assert sum(int(r["size"]) for r in first) == tiny_settings().population


def test_best_file_per_generation_holds_a_loadable_genome_with_the_stats_best_fitness(base):
    directory = base[0]
    for stats in read_stats(directory):
        gen = int(stats["generation"])
        record = json.loads((directory / "best" / f"gen_{gen:04d}.json").read_text())
        assert record["generation"] == gen
        assert record["fitness"] == float(stats["best"])
        genome = genome_from_dict(record["genome"])
        assert isinstance(genome, neat.DefaultGenome)
        assert genome.fitness == record["fitness"]
        assert genome_to_dict(genome) == record["genome"]


def test_best_genomes_replay_to_their_recorded_fitness(base):
    """A champion re-evaluated from its file, in the trials its generation scored it in (their
    seeds are in the file), scores exactly what evolution recorded, trial by trial."""
    from evolution.trials import TrialRecord
    directory, run = base[:2]
    records = [json.loads(p.read_text()) for p in sorted((directory / "best").glob("*.json"))]
    spheres = len(run.body.spheres)
    with Evaluator(run.episode, run.neat_text, workers=1) as evaluator:
        for r in records:
            trials = TrialRecord.from_dict(r["trials"])
            replay = evaluator.evaluate([r["genome"]], starts=trials.offsets(spheres),
                                        statistic=trials.spec.statistic)
            assert np.array_equal(bits(replay.fitness), bits([r["fitness"]]))
            assert np.array_equal(bits(replay.trials[0]), bits(trials.fitness))


def test_evolve_returns_the_champion_best_from_fresh_starts(base):
    _, run, best, _ = base
    top = max(run.history, key=lambda s: (s.post_mean - s.post_sd, s.best, -s.generation))   # rundir.champion_record
    assert best.fitness == top.best
    assert all(s.post_mean == s.post_mean for s in run.history)      # every generation's best post-evaluated


def test_every_generations_best_is_post_evaluated_from_the_same_fresh_starts(base):
    directory, run, _, _ = base
    records = [json.loads(p.read_text()) for p in sorted((directory / "best").glob("gen_*.json"))]
    assert len(records) == len(run.history) >= 2
    assert all(r["post"]["seeds"] == records[0]["post"]["seeds"] for r in records)
    trials = {s for r in records for s in r.get("trials", {}).get("seeds", [])}
    assert not trials & set(records[0]["post"]["seeds"])


# --- determinism -------------------------------------------------------------------------------

def test_same_seed_gives_the_same_run_bit_for_bit(base, same_seed):
    assert run_files(same_seed) == run_files(base[0])


def test_different_seed_gives_a_different_run(base, tmp_path):
    _evolve(tmp_path, seed=2)
    ours, theirs = run_files(tmp_path), run_files(base[0])
    assert ours["stats.csv"] != theirs["stats.csv"]
    assert ours["best/gen_0001.json"] != theirs["best/gen_0001.json"]


def test_two_workers_give_the_run_of_one(base, tmp_path):
    _evolve(tmp_path, workers=2)
    ours, theirs = run_files(tmp_path), run_files(base[0])
    ours.pop("settings.json"), theirs.pop("settings.json")  # they name the worker count
    assert ours == theirs


def test_a_run_is_the_same_after_other_runs_in_the_process(base, tmp_path):
    """Nothing neat or numpy keep between runs leaks into the next: a recurrent run of another
    seed in between changes nothing."""
    _evolve(tmp_path / "other", seed=5, network="recurrent")
    _evolve(tmp_path / "again")
    assert run_files(tmp_path / "again") == run_files(base[0])


def test_a_recurrent_run_is_reproducible(tmp_path):
    _evolve(tmp_path / "a", network="recurrent", generations=2)
    _evolve(tmp_path / "b", network="recurrent", generations=2)
    assert run_files(tmp_path / "a") == run_files(tmp_path / "b")


# --- the user's neat config --------------------------------------------------------------------

def _user_config(feed_forward=True) -> str:
    """A neat config with the wrong sizes and some changed settings."""
    text = neat_config_text(3, 1, 999, "feedforward" if feed_forward else "recurrent")
    return (text.replace("conn_add_prob         = 0.5", "conn_add_prob = 0.9")
                .replace(f"compatibility_threshold = {THRESHOLD}", "compatibility_threshold = 2.5")
                .replace("activation_default    = tanh", "activation_default    = sigmoid"))


def test_user_neat_config_overrides_the_defaults(tmp_path):
    settings = tiny_settings(neat_config=_user_config())
    run = Run.create(tmp_path, settings, design("walker").body)
    assert run.config.genome_config.conn_add_prob == 0.9
    assert run.config.species_set_config.compatibility_threshold == 2.5
    assert run.config.genome_config.activation_default == "sigmoid"
    assert "conn_add_prob = 0.9" in (tmp_path / "neat.cfg").read_text()


def test_user_neat_config_gets_the_runs_sizes(tmp_path):
    settings = tiny_settings(neat_config=_user_config(), population=14)
    run = Run.create(tmp_path, settings, design("walker").body)
    assert run.config.genome_config.num_inputs == run.episode.n_inputs()
    assert run.config.genome_config.num_outputs == run.episode.n_outputs()
    assert run.config.pop_size == 14
    # (neat-python's own DefaultSpeciesSet does not know target_species and its kin: ours does)
    loaded = neat.Config(neat.DefaultGenome, neat.DefaultReproduction, DefaultSpeciesSet,
                         neat.DefaultStagnation, str(tmp_path / "neat.cfg"))
    assert (loaded.genome_config.num_inputs, loaded.genome_config.num_outputs, loaded.pop_size) == \
           (run.episode.n_inputs(), run.episode.n_outputs(), 14)


def test_user_neat_config_is_kept_verbatim_in_settings(tmp_path):
    text = _user_config()
    Run.create(tmp_path, tiny_settings(neat_config=text), design("walker").body)
    assert json.loads((tmp_path / "settings.json").read_text())["neat_config"] == text


def test_run_with_a_user_neat_config_evolves(tmp_path):
    run, best, _ = _evolve(tmp_path, neat_config=_user_config(), generations=1)
    assert len(run.history) == 1
    assert all(n.activation in ("sigmoid", "tanh", "sin", "gauss", "relu") for n in best.nodes.values())


def test_user_neat_config_of_the_other_network_kind_is_refused(tmp_path):
    with pytest.raises(ValueError, match="feed_forward"):
        Run.create(tmp_path, tiny_settings(neat_config=_user_config(), network="recurrent"),
                   design("walker").body)


# --- refusals ----------------------------------------------------------------------------------

def test_design_without_muscles_is_refused(tmp_path):
    with pytest.raises(ValueError, match="no muscles"):
        Run.create(tmp_path, tiny_settings(design_name="stick", design_text=""), stick())


def test_run_that_cannot_start_leaves_no_settings_behind(tmp_path):
    with pytest.raises(ValueError):
        Run.create(tmp_path / "run", tiny_settings(design_name="stick", design_text=""), stick())
    assert not (tmp_path / "run" / "settings.json").exists()


@pytest.mark.parametrize("bad", [dict(network="spiking"), dict(seconds=0.0), dict(generations=0),
                                 dict(population=1), dict(task=3), dict(sensors="rays")])
def test_bad_settings_are_refused(bad):
    with pytest.raises(ValueError):
        tiny_settings(**bad)


@pytest.mark.parametrize("bad, message", [(dict(task="dance"), "unknown task 'dance'"),
                                          (dict(terrain="lava"), "unknown terrain 'lava'"),
                                          (dict(sensors=["clock", "eyes"]), "unknown sensor 'eyes'")])
def test_unknown_plugins_are_refused_before_anything_is_written(bad, message, tmp_path):
    with pytest.raises(PluginError, match=message):
        Run.create(tmp_path / "run", tiny_settings(**bad), design("walker").body)
    assert not (tmp_path / "run").exists()


def test_infinite_seconds_are_refused():
    with pytest.raises(ValueError):
        tiny_settings(seconds=float("inf"))


def test_episode_sizes_follow_the_design():
    episode = Episode(design("worm").body)
    assert episode.n_outputs() == 5
    assert episode.n_inputs() == 2 + 5 + 4 + 11 + 5


@pytest.mark.parametrize("text, message", [
    ('{"kind": "flat", "xs": ["0", "1"], "ys": [0, 0]}', "the terrain's points must be numbers"),
    ('{"kind": "flat", "xs": [1, 0], "ys": [0, 0]}', "terrain xs must be strictly increasing"),
    (None, "terrain.json is missing"),
])
def test_a_damaged_terrain_file_in_a_run_directory_is_one_line(tmp_path, text, message):
    Run.create(tmp_path / "run", tiny_settings(), design("walker").body)
    path = tmp_path / "run" / "terrain.json"
    if text is None:
        path.unlink()
    else:
        path.write_text(text)
    with pytest.raises(RunError, match=message):
        Run.open(tmp_path / "run")


# --- a run that starts from a genome -------------------------------------------------------------

def test_a_run_started_from_a_genome_holds_it_and_its_mutants(base, tmp_path):
    """``start_genome`` (a champion's, evolved further): generation 1 holds the genome itself,
    scored as before, and copies mutated once each (other weights or structure); new
    innovations and hidden nodes continue above the genome's; the same seed starts the same
    way; the run resumes bit for bit like any other."""
    from evolution import checkpoint
    directory, run, best, seen = base
    record = json.loads((directory / "best" / f"gen_{GENERATIONS:04d}.json").read_text())
    start = record["genome"]
    a, _, seen_a = _evolve(tmp_path / "a", start_genome=start, generations=1)
    first = json.loads((tmp_path / "a" / "best" / "gen_0001.json").read_text())
    # (generation 1's starts are not the generation's that recorded it: scored here in them)
    with Evaluator(a.episode, a.neat_text, workers=1) as evaluator:
        again = evaluator.evaluate([start], starts=a.trials_of(1)["starts"], statistic=a.settings.statistic)
    assert first["fitness"] >= again.fitness[0] and seen_a[0].best == first["fitness"]
    assert checkpoint.loads((tmp_path / "a" / "checkpoint.json").read_text())["generation"] == 1
    # generation 0 of the same settings, as the run made it
    b = Run.create(tmp_path / "b", tiny_settings(start_genome=start, generations=1), design("walker").body)
    genomes = b.start_population().population     # generation 0 of the same settings
    copies = [genome_to_dict(g) for g in genomes.values()]
    strip = (lambda d: {k: v for k, v in d.items() if k not in ("key", "fitness")})  # noqa: E731
    assert strip(copies[0]) == strip(start)
    assert all(strip(c) != strip(start) for c in copies[1:])
    top = max(c["innovation"] for c in start["connections"])
    new = [c["innovation"] for g in copies[1:] for c in g["connections"]
           if (c["in"], c["out"]) not in {(d["in"], d["out"]) for d in start["connections"]}]
    assert all(i > top for i in new)
    c = Run.create(tmp_path / "c", tiny_settings(start_genome=start, generations=1), design("walker").body)
    assert [genome_to_dict(g) for g in c.start_population().population.values()] == copies
    # taken on from its checkpoint to generation 2: the files of a straight run of 2
    reopened = Run.open(tmp_path / "a")
    reopened.set_generations(2)
    reopened.evolve()
    _evolve(tmp_path / "d", start_genome=start, generations=2)
    assert run_files(tmp_path / "a") == run_files(tmp_path / "d")


def test_a_genome_that_does_not_fit_is_refused_before_anything_is_written(tmp_path):
    bad = {"key": 1, "fitness": None, "nodes": [{"key": 0, "bias": 0.0, "response": 1.0, "activation": "tanh",
                                                "aggregation": "sum"}], "connections": []}
    with pytest.raises(ValueError, match="the genome to start from does not fit the creature"):
        Run.create(tmp_path / "r", tiny_settings(start_genome=bad), design("walker").body)
    assert not (tmp_path / "r" / "settings.json").exists()
    with pytest.raises(ValueError, match="start_genome must be a genome"):
        tiny_settings(start_genome=[1, 2])


def test_the_champion_is_the_generation_best_that_did_best_and_reliably_from_fresh_starts():
    lucky = {"generation": 3, "fitness": 40.0, "post": {"mean": 30.0, "sd": 12.0}}     # goes far, or falls
    steady = {"generation": 5, "fitness": 31.0, "post": {"mean": 27.0, "sd": 1.0}}
    later = {"generation": 8, "fitness": 31.0, "post": {"mean": 27.0, "sd": 1.0}}
    assert rundir.champion_record([lucky, steady, later]) is steady                  # the earliest of equals
    old = [{"generation": 1, "fitness": 2.0}, {"generation": 2, "fitness": 5.0, "post": {"mean": 1.0, "sd": 0.0}}]
    assert rundir.champion_record(old)["generation"] == 2                             # by fitness, as before


def test_a_best_genome_met_again_is_not_post_evaluated_again(base):
    _, run, _, _ = base
    best = json.loads(sorted((base[0] / "best").glob("gen_*.json"))[-1].read_text())
    from evolution.chunks import pack_genome
    from evolution.generations import Waiting
    packed = pack_genome(genome_from_dict(best["genome"]))
    assert run._posts[repr(packed)] == best["post"]         # the run's last best, remembered
    written = []
    run._finish, finish = (lambda waiting, post, on_generation, seconds=0.0, episodes=0:
                           written.append((post, seconds, episodes))), run._finish
    try:
        run._waiting = Waiting(None, {}, [], packed, 0)
        run._flush(None, None)   # no evaluator: it would fail if simulated
    finally:
        del run._finish, finish
    assert written == [(best["post"], 0.0, 0)]

"""Exact resume: a run stopped after any generation and resumed from its JSON checkpoint ends
bit for bit as the uninterrupted run (genomes, species, statistics, champions, the checkpoint
itself), and what a crash leaves behind is cleaned up."""

import json
import re
import shutil

import pytest

from evolution.checkpoint import CheckpointError, dumps, loads, population_state, restore_population
from evolution.genomes import neat_config_text
from evolution.run import Run, RunError
from evolution_helpers import design, read_stats, run_files, tiny_settings

GENERATIONS = 10

# A config that makes every part of the NEAT state matter within a few generations: many
# species (a low threshold, fixed as in the configs of runs made before the dynamic threshold:
# tests/evolution/test_species.py resumes runs whose threshold moves), quick stagnation, new
# nodes often (the node id counter), recurrent networks (cycles survive), elitism (the best
# genome stays in the population).
BUSY_CONFIG = re.sub(r"^target_species .*\n|^threshold_(step|min) .*\n", "",
                     re.sub(r"^compatibility_threshold = .*$", "compatibility_threshold = 1.0",
                            neat_config_text(1, 1, 10, "recurrent"), flags=re.M), flags=re.M)
BUSY_CONFIG = (BUSY_CONFIG.replace("node_add_prob         = 0.2", "node_add_prob         = 0.6")
               .replace("max_stagnation       = 20", "max_stagnation       = 3"))
assert "compatibility_threshold = 1.0" in BUSY_CONFIG and "\ntarget_species" not in BUSY_CONFIG


def _settings(generations):
    return tiny_settings(generations=generations, population=24, seconds=0.5, network="recurrent",
                         neat_config=BUSY_CONFIG)


def _create(directory, generations):
    return Run.create(directory, _settings(generations), design("walker").body)


@pytest.fixture(scope="module")
def straight(tmp_path_factory):
    directory = tmp_path_factory.mktemp("straight")
    run = _create(directory, GENERATIONS)
    best = run.evolve()
    return directory, run, best


def test_the_busy_run_exercises_species_and_new_nodes(straight):
    directory = straight[0]
    species = [int(r["species"]) for r in read_stats(directory)]
    assert max(species) >= 4 and len(set(species)) >= 2
    state = json.loads((directory / "checkpoint.json").read_text())
    assert state["node_next"] is not None          # nodes were added by mutation
    assert state["generation"] == GENERATIONS
    assert state["species"]["next"] > max(species)  # species came and went


@pytest.mark.parametrize("stop", [1, 4, 7])
def test_stopped_then_resumed_run_equals_the_straight_run(straight, tmp_path, stop):
    _create(tmp_path, stop).evolve()
    assert json.loads((tmp_path / "checkpoint.json").read_text())["generation"] == stop
    run = Run.open(tmp_path)
    run.set_generations(GENERATIONS)
    best = run.evolve()
    assert run_files(tmp_path) == run_files(straight[0])
    assert best.key == straight[2].key and best.fitness == straight[2].fitness
    assert [h.row()[:12] for h in run.history] == [h.row()[:12] for h in straight[1].history]


def test_resuming_from_a_checkpoint_older_than_the_files_drops_the_newer_generations(straight, tmp_path):
    """A crash between writing a generation's stats and its checkpoint: the rows and best file
    of that generation are dropped, and it is evaluated again, identically."""
    saved = {}

    def keep_checkpoint(stats):  # called before the generation's checkpoint is written
        if stats.generation == 6:
            saved["text"] = (tmp_path / "checkpoint.json").read_text()

    _create(tmp_path, 6).evolve(on_generation=keep_checkpoint)
    assert json.loads(saved["text"])["generation"] == 5
    (tmp_path / "checkpoint.json").write_text(saved["text"])
    (tmp_path / ".stats.csv.tmp999").write_text("half a file")  # a kill -9 during a write
    run = Run.open(tmp_path)
    assert run.generations_done == 5 and len(run.history) == 6
    run.set_generations(GENERATIONS)
    run.evolve()
    assert run_files(tmp_path) == run_files(straight[0])


def test_a_ctrl_c_before_the_workers_report_leaves_the_last_bred_generations_checkpoint(straight, tmp_path,
                                                                                       monkeypatch):
    """A generation's checkpoint is written once the workers have the next one (at the
    evaluation's first progress report); a Ctrl-C before that still writes it on the way out."""
    from evolution import evaluator
    original, calls = evaluator.Evaluator.evaluate, []

    def interrupted(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 4:   # generation 4's evaluation, before any progress
            raise KeyboardInterrupt
        return original(self, *args, **kwargs)

    monkeypatch.setattr(evaluator.Evaluator, "evaluate", interrupted)
    with pytest.raises(KeyboardInterrupt):
        _create(tmp_path, GENERATIONS).evolve()
    monkeypatch.undo()
    assert json.loads((tmp_path / "checkpoint.json").read_text())["generation"] == 3
    Run.open(tmp_path).evolve()
    assert run_files(tmp_path) == run_files(straight[0])


def test_a_fresh_run_killed_before_its_first_generation_resumes_from_generation_zero(straight, tmp_path):
    run = _create(tmp_path, GENERATIONS)
    # what evolve writes before evaluating anything: the generation-0 checkpoint
    population = run.start_population()
    assert population.generation == 0 and (tmp_path / "checkpoint.json").exists()
    Run.open(tmp_path).evolve()
    assert run_files(tmp_path) == run_files(straight[0])


def test_checkpoint_round_trips_through_json_exactly(straight):
    directory, run = straight[:2]
    text = (directory / "checkpoint.json").read_text()
    population = restore_population(run.config, loads(text))
    assert dumps(population_state(population)) == text


def test_checkpoint_is_plain_json_with_a_format_and_version(straight):
    raw = (straight[0] / "checkpoint.json").read_bytes()
    assert not raw.startswith(b"\x80")  # not a pickle
    state = json.loads(raw)
    assert state["format"] == "creatures-checkpoint" and state["version"] == 1
    assert len(state["population"]) == 24


def test_finished_run_resumed_again_does_nothing(tmp_path):
    _create(tmp_path, 2).evolve()
    before = run_files(tmp_path)
    run = Run.open(tmp_path)
    assert run.generations_done == 2
    run.evolve()
    assert run_files(tmp_path) == before


@pytest.mark.parametrize("damage, message", [
    (lambda s: "{not json", "not valid JSON"),
    (lambda s: json.dumps({**json.loads(s), "format": "neat-pickle"}), "not a creatures checkpoint"),
    (lambda s: json.dumps({**json.loads(s), "version": 99}), "version 99 is not supported"),
    (lambda s: json.dumps({**json.loads(s), "population": []}), "holds no genomes"),
    (lambda s: json.dumps({k: v for k, v in json.loads(s).items() if k != "species"}), "damaged"),
    (lambda s: json.dumps({**json.loads(s), "random": {"version": 3, "state": [1, 2], "gauss_next": None}}),
     "damaged"),
])
def test_damaged_checkpoint_gives_a_one_line_error(tmp_path, damage, message):
    _create(tmp_path, 1).evolve()
    path = tmp_path / "checkpoint.json"
    path.write_text(damage(path.read_text()))
    run = Run.open(tmp_path)
    run.set_generations(2)
    with pytest.raises((RunError, CheckpointError)) as info:
        run.evolve()
    text = str(info.value)
    assert message in text and "\n" not in text and str(path) in text


def test_open_refuses_what_is_not_a_run_directory(tmp_path):
    with pytest.raises(RunError, match="is not a directory"):
        Run.open(tmp_path / "nothing")
    with pytest.raises(RunError, match=r"is not a run directory \(no settings.json, body.json"):
        Run.open(tmp_path)
    _create(tmp_path / "run", 1)
    (tmp_path / "run" / "settings.json").write_text('{"design_name": 3}')
    with pytest.raises(RunError, match="cannot open the run"):
        Run.open(tmp_path / "run")


def test_a_run_an_earlier_engine_evolved_is_not_resumed(tmp_path):
    """Its settings' physics without ``engine`` (written before it was recorded): today's engine
    moves its creatures differently, so its generations cannot go on exactly. One line says so."""
    _create(tmp_path, 1).evolve()
    path = tmp_path / "settings.json"
    settings = json.loads(path.read_text())
    del settings["sim"]["engine"]
    path.write_text(json.dumps(settings))
    with pytest.raises(RunError) as info:
        Run.open(tmp_path)
    text = str(info.value)
    assert "earlier version of the physics engine (version 1" in text and "\n" not in text


def test_two_processes_cannot_evolve_one_run_at_once(tmp_path):
    run = _create(tmp_path, 1)
    with run.lock():
        with pytest.raises(RunError, match="another process is evolving"):
            Run.open(tmp_path).evolve()


def test_set_generations_is_saved_in_settings(tmp_path):
    run = _create(tmp_path, 1)
    run.set_generations(5)
    assert json.loads((tmp_path / "settings.json").read_text())["generations"] == 5
    with pytest.raises(RunError):
        run.set_generations(0)


def test_copied_run_directory_resumes_identically(straight, tmp_path):
    """A checkpoint holds no absolute paths or process state: a run copied elsewhere (another
    machine) resumes the same."""
    first = tmp_path / "first"
    _create(first, 3).evolve()
    moved = tmp_path / "elsewhere" / "moved"
    shutil.copytree(first, moved)
    run = Run.open(moved)
    run.set_generations(GENERATIONS)
    run.evolve()
    assert run_files(moved) == run_files(straight[0])


def test_a_run_its_fitness_threshold_ends_resumes_to_the_same_files(straight, tmp_path):
    """A user's neat config that stops at a fitness threshold ends a run before it breeds: the
    generation that reached it is written with its best's fresh starts at once, and the
    checkpoint stays the generation before's, which keeps that one waiting for its best's fresh
    starts (evolution.run, Waiting); resumed, the run writes the waiting generation, reaches
    the threshold again and ends with the same files. The threshold: the straight run's second
    best, so that it ends at generation 2."""
    best = [float(row["best"]) for row in read_stats(straight[0])]
    assert best[1] > best[0]
    config = (BUSY_CONFIG.replace("fitness_threshold     = 1e9", f"fitness_threshold     = {best[1]!r}")
              .replace("no_fitness_termination = True", "no_fitness_termination = False"))
    assert f"fitness_threshold     = {best[1]!r}" in config and "no_fitness_termination = False" in config
    settings = tiny_settings(generations=GENERATIONS, population=24, seconds=0.5, network="recurrent",
                             neat_config=config)
    first = tmp_path / "first"
    Run.create(first, settings, design("walker").body).evolve()
    assert len(read_stats(first)) == 2
    state = json.loads((first / "checkpoint.json").read_text())
    assert state["generation"] == 1 and "waiting" in state
    again = tmp_path / "again"
    shutil.copytree(first, again)
    Run.open(again).evolve()
    assert run_files(again) == run_files(first)

"""Champion files: what a champion exported from a run holds, that replaying it scores exactly
what evolution recorded, that saving is stable, and that a bad file is refused with one line.

The bad champions are made from a good one by the recipes in ``BAD`` and written to a
``bad_champions/`` folder under pytest's temporary directory (a good champion is tens of kilobytes;
there is no point committing twenty of them). Each recipe names the text the one-line
:class:`ChampionError` must contain and whether ``load_champion`` or the replay refuses it (the
genome is only checked against the creature when a brain is built from it).
"""

from __future__ import annotations

import ast
import copy
import importlib.metadata
import inspect
import json
import math
from pathlib import Path

import numpy as np
import pytest

import evolution.champion as champion_module
import physics
from evolution import Run
from evolution.champion import (FORMAT, VERSION, Champion, ChampionError, champion_from_run,
                                load_champion, save_champion)
from evolution.sensors import DEFAULT_SENSORS
from evolution_helpers import design, read_stats, tiny_settings

TASKS = ("run", "jump", "climb", "obstacle")

GENERATIONS = 2
POPULATION = 10
SEED = 1


def _tiny_run(directory: Path, **overrides) -> Run:
    """A tiny walker run (2 generations of 10, 1 simulated second) in ``directory``."""
    settings = tiny_settings(**{"generations": GENERATIONS, "population": POPULATION, "seed": SEED,
                                **overrides})
    run = Run.create(directory, settings, design(settings.design_name).body)
    run.evolve()
    return run


def _best_record(directory: Path, generation: int) -> dict:
    return json.loads((directory / "best" / f"gen_{generation:04d}.json").read_text())


@pytest.fixture(scope="module")
def walker_run(tmp_path_factory):
    directory = tmp_path_factory.mktemp("walker_run")
    return directory, _tiny_run(directory)


@pytest.fixture(scope="module")
def champion_file(walker_run, tmp_path_factory):
    """The walker run's champion (the best of the run), saved."""
    path = tmp_path_factory.mktemp("champion") / "walker.json"
    save_champion(champion_from_run(walker_run[0]), path)
    return path


@pytest.fixture(scope="module")
def document(champion_file) -> dict:
    return json.loads(champion_file.read_text())


# --- what a champion file holds ------------------------------------------------------------------

def test_champion_file_is_json_with_format_and_version(champion_file, document):
    text = champion_file.read_text(encoding="utf-8")
    assert text.endswith("\n")
    assert document["format"] == FORMAT == "creatures-champion"
    # 3: a champion whose body evolved, 4: muscle groups, 5: scored over trials (their starts recorded),
    # 6: a grown body, 7: a grown body of a run of the engine of graphs
    assert document["version"] == (5 if "trials" in document else 2) and VERSION == 7
    assert set(document) - {"trials"} == {"format", "version", "name", "creature", "task", "terrain", "sensors",
                                          "episode", "physics", "brain", "recorded", "post", "lineage", "software"}


def test_champion_file_holds_the_creature_as_body_and_design_yaml(walker_run, document):
    _, run = walker_run
    assert document["creature"]["body"] == json.loads(json.dumps(run.body.to_dict()))
    assert document["creature"]["body"] == json.loads((walker_run[0] / "body.json").read_text())
    assert document["creature"]["design_yaml"] == design("walker").text
    assert document["creature"]["design_yaml"].startswith("name: walker")
    assert physics.Body.from_dict(document["creature"]["body"]) == run.body


def test_champion_file_holds_task_episode_and_physics(walker_run, document):
    settings = walker_run[1].settings
    assert document["task"] == {"name": "run", "source": "built-in",
                                "measures": "metres travelled to the right"}
    terrain = document["terrain"]
    assert {k: terrain[k] for k in ("name", "source", "kind")} == {"name": "flat", "source": "built-in",
                                                                  "kind": "flat"}
    flat = physics.Terrain.flat()
    assert (terrain["xs"], terrain["ys"]) == (flat.xs.tolist(), flat.ys.tolist())
    assert document["sensors"] == [{"name": n, "source": "built-in"} for n in DEFAULT_SENSORS]
    assert document["episode"] == {"seconds": settings.seconds, "clock_hz": settings.clock_hz}
    assert document["physics"] == physics.SimParams().to_dict() == settings.sim


def test_champion_file_holds_the_network_kind_and_the_whole_genome(document):
    brain = document["brain"]
    assert brain["network"] == "feedforward"
    genome = brain["genome"]
    assert genome["nodes"] and genome["connections"]
    for node in genome["nodes"]:
        assert {"key", "bias", "response", "activation", "aggregation"} <= set(node)
        assert isinstance(node["bias"], float) and isinstance(node["response"], float)
        assert isinstance(node["activation"], str) and isinstance(node["aggregation"], str)
    for conn in genome["connections"]:
        assert set(conn) == {"in", "out", "weight", "enabled", "innovation"}
        assert isinstance(conn["in"], int) and isinstance(conn["out"], int)
        assert isinstance(conn["weight"], float) and isinstance(conn["enabled"], bool)
        assert isinstance(conn["innovation"], int)
    outputs = {n["key"] for n in genome["nodes"]}
    assert set(range(6)) <= outputs  # the walker's six muscles


def test_champion_file_records_fitness_generation_seed_and_software(walker_run, document):
    directory = walker_run[0]
    recorded = document["recorded"]
    assert set(recorded) == {"fitness", "generation", "seed"}
    assert recorded["seed"] == SEED
    assert 1 <= recorded["generation"] <= GENERATIONS
    record = _best_record(directory, recorded["generation"])
    assert recorded["fitness"] == record["fitness"]
    assert document["brain"]["genome"] == record["genome"]
    assert document["name"] == f"walker run gen {recorded['generation']}"
    software = document["software"]
    assert software["creatures"] == importlib.metadata.version("creatures")
    assert software["numpy"] == np.__version__
    assert software["numba"] == importlib.metadata.version("numba")
    assert software["neat-python"] == importlib.metadata.version("neat-python")


def test_best_of_run_is_the_first_generation_with_the_best_fitness(walker_run, document):
    stats = read_stats(walker_run[0])
    best = max(float(row["best"]) for row in stats)
    first = min(int(row["generation"]) for row in stats if float(row["best"]) == best)
    assert document["recorded"]["fitness"] == best
    assert document["recorded"]["generation"] == first


@pytest.mark.parametrize("generation", range(1, GENERATIONS + 1))
def test_champion_of_a_chosen_generation_is_that_generations_best(walker_run, generation, tmp_path):
    directory = walker_run[0]
    champion = champion_from_run(directory, generation)
    record = _best_record(directory, generation)
    assert champion.generation == generation
    assert champion.fitness == record["fitness"]
    assert champion.genome == record["genome"]
    save_champion(champion, tmp_path / "gen.json")
    loaded = load_champion(tmp_path / "gen.json")
    assert loaded.generation == generation
    assert loaded.replay() == record["fitness"]


@pytest.mark.parametrize("generation", [0, -1, GENERATIONS + 1, 9999])
def test_champion_of_a_generation_the_run_does_not_have_is_refused(walker_run, generation):
    with pytest.raises(ChampionError, match=f"has no generation {generation} "
                                            rf"\(it has 1 to {GENERATIONS}\)") as info:
        champion_from_run(walker_run[0], generation)
    assert "\n" not in str(info.value)


def test_a_directory_that_is_not_a_run_is_refused(tmp_path):
    with pytest.raises(ChampionError, match="is not a run directory") as info:
        champion_from_run(tmp_path)
    assert "\n" not in str(info.value)


def test_a_run_without_a_finished_generation_is_refused(tmp_path):
    settings = tiny_settings(generations=1)
    Run.create(tmp_path, settings, design("walker").body)  # created, never evolved
    with pytest.raises(ChampionError, match="has no finished generation yet"):
        champion_from_run(tmp_path)


# --- replays -------------------------------------------------------------------------------------

def test_loaded_champion_replays_to_exactly_its_recorded_fitness(champion_file, document):
    champion = load_champion(champion_file)
    assert isinstance(champion, Champion)
    assert champion.fitness == document["recorded"]["fitness"]
    assert champion.replay() == champion.fitness


def test_a_champion_records_the_engine_that_scored_it(champion_file, document):
    assert document["physics"]["engine"] == physics.ENGINE_VERSION
    assert load_champion(champion_file).earlier_engine() is None


@pytest.mark.parametrize("engine", [None, 1])
def test_a_champion_of_an_earlier_engine_says_so_in_one_line(document, engine, tmp_path):
    """Its physics without ``engine`` (written before it was recorded) or with an earlier one:
    the recorded fitness is not what today's engine replays, and the champion says so."""
    doc = copy.deepcopy(document)
    doc["physics"].pop("engine")
    if engine is not None:
        doc["physics"]["engine"] = engine
    (tmp_path / "old.json").write_text(json.dumps(doc))
    note = load_champion(tmp_path / "old.json").earlier_engine()
    assert note.startswith("scored by an earlier version of the physics engine (version 1, fitness ")
    assert "\n" not in note


@pytest.mark.parametrize("engine", [0, physics.ENGINE_VERSION + 1, "2"])
def test_a_champion_of_an_unknown_engine_is_refused(document, engine, tmp_path):
    doc = copy.deepcopy(document)
    doc["physics"]["engine"] = engine
    (tmp_path / "odd.json").write_text(json.dumps(doc))
    with pytest.raises(ChampionError, match="engine"):
        load_champion(tmp_path / "odd.json")


def test_a_replay_is_the_same_every_time(champion_file):
    champion = load_champion(champion_file)
    assert champion.replay() == champion.replay() == champion.fitness


def test_replay_calls_on_step_once_per_step(champion_file):
    champion = load_champion(champion_file)
    steps = []
    fitness = champion.replay(on_step=lambda t, state, inputs, outputs: steps.append(t))
    assert steps == list(range(champion.episode().steps))
    assert champion.episode().steps == round(champion.seconds / champion.sim.dt)
    assert fitness == champion.fitness


@pytest.mark.parametrize("network", ["feedforward", "recurrent"])
@pytest.mark.parametrize("task", TASKS)
def test_every_task_and_network_kind_replays_exactly(task, network, tmp_path):
    _tiny_run(tmp_path / "run", task=task, network=network, population=8, seed=2)
    path = tmp_path / "champion.json"
    save_champion(champion_from_run(tmp_path / "run"), path)
    champion = load_champion(path)
    assert (champion.task.name, champion.network) == (task, network)
    assert math.isfinite(champion.fitness)
    assert champion.replay() == champion.fitness
    first = champion_from_run(tmp_path / "run", 1)
    assert first.replay() == first.fitness


def test_hills_champion_replays_on_the_terrain_of_its_seed(tmp_path):
    """hills are random: the task's seed in the file must bring back the very same hills."""
    run = _tiny_run(tmp_path / "run", terrain="hills", seed=7, population=8)
    path = tmp_path / "hills.json"
    save_champion(champion_from_run(tmp_path / "run"), path)
    doc = json.loads(path.read_text())
    assert (doc["terrain"]["name"], doc["terrain"]["kind"], doc["recorded"]["seed"]) == ("hills", "hills", 7)
    champion = load_champion(path)
    assert champion.replay() == champion.fitness
    ours, theirs = champion.terrain, run.episode.terrain
    assert np.array_equal(ours.xs, theirs.xs) and np.array_equal(ours.ys, theirs.ys)
    assert not np.array_equal(ours.ys, physics.make_terrain("hills", 8).ys)


# --- saving --------------------------------------------------------------------------------------

def test_save_load_save_gives_byte_identical_files(champion_file, tmp_path):
    again = tmp_path / "again.json"
    save_champion(load_champion(champion_file), again)
    assert again.read_bytes() == champion_file.read_bytes()
    third = tmp_path / "third.json"
    save_champion(load_champion(again), third)
    assert third.read_bytes() == champion_file.read_bytes()


def test_save_load_save_is_byte_identical_for_recurrent_runs_and_other_tasks(tmp_path):
    _tiny_run(tmp_path / "run", task="climb", network="recurrent", population=8)
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    save_champion(champion_from_run(tmp_path / "run"), first)
    save_champion(load_champion(first), second)
    assert second.read_bytes() == first.read_bytes()


def test_loaded_champion_is_the_saved_one(walker_run, champion_file):
    saved = champion_from_run(walker_run[0])
    assert json.loads(json.dumps(load_champion(champion_file).to_dict())) == \
           json.loads(json.dumps(saved.to_dict()))


def test_save_leaves_no_temporary_file_behind(champion_file, tmp_path):
    save_champion(load_champion(champion_file), tmp_path / "c.json")
    assert [p.name for p in tmp_path.iterdir()] == ["c.json"]


# --- bad champion files --------------------------------------------------------------------------

def _set(*keys, value):
    def change(doc):
        node = doc
        for k in keys[:-1]:
            node = node[k]
        node[keys[-1]] = value
    return change


def _drop(*keys):
    def change(doc):
        node = doc
        for k in keys[:-1]:
            node = node[k]
        del node[keys[-1]]
    return change


def _add_connection(**conn):
    def change(doc):
        doc["brain"]["genome"]["connections"].append(
            {"in": -1, "out": 0, "weight": 0.5, "enabled": True, "innovation": 99999, **conn})
    return change


def _without_output_node(doc):
    genome = doc["brain"]["genome"]
    genome["nodes"] = [n for n in genome["nodes"] if n["key"] != 0]
    genome["connections"] = [c for c in genome["connections"] if 0 not in (c["in"], c["out"])]


def _each_node(field, value=None, drop=False):
    def change(doc):
        for node in doc["brain"]["genome"]["nodes"]:
            if drop:
                del node[field]
            else:
                node[field] = value
    return change


def _replace_fitness(literal):
    """The good file's text with the recorded fitness written as ``literal``."""
    def text(good_text, doc):
        old = json.dumps(doc["recorded"]["fitness"])
        marker = f'"fitness": {old},\n  "generation"'
        assert good_text.count(marker) == 1
        return good_text.replace(marker, f'"fitness": {literal},\n  "generation"')
    return text


# name: (how to make it from the good champion, expected text in the message, who refuses it)
# "how" is a function of the parsed document (changing it in place), or of (good text, document)
# returning the file's whole text or bytes.
BAD = {
    "not_json": (lambda text, doc: "this is not a champion, it is prose\n",   # then the json module's words
                 "not valid JSON: ", "load"),
    "empty": (lambda text, doc: "", "not valid JSON", "load"),
    "truncated": (lambda text, doc: text[: len(text) // 2], "not valid JSON", "load"),
    "list_at_top": (lambda text, doc: f"[{text}]",
                    f"not a champion file (its format should be '{FORMAT}')", "load"),
    "wrong_format": (_set("format", value="creatures-design"),
                     f"not a champion file (its format should be '{FORMAT}')", "load"),
    "no_format": (_drop("format"), "not a champion file", "load"),
    "newer_version": (_set("version", value=VERSION + 1),
                      f"champion format version {VERSION + 1} is newer than this software reads "
                      f"({VERSION}); upgrade creatures", "load"),
    "version_zero": (_set("version", value=0), "unknown champion format version 0", "load"),
    "missing_version": (_drop("version"), "the champion has no version number", "load"),
    "version_as_text": (_set("version", value="1"), "the champion has no version number", "load"),
    "nan": (_replace_fitness("NaN"), "not valid JSON: NaN is not a number JSON allows", "load"),
    "infinity": (_replace_fitness("-Infinity"), "Infinity is not a number JSON allows", "load"),
    "overflow_to_infinity": (_replace_fitness("1e999"), "holds a non-finite number", "load"),
    "missing_genome": (_drop("brain", "genome"), "missing 'brain.genome'", "load"),
    "missing_body": (_drop("creature", "body"), "missing 'creature.body'", "load"),
    "missing_recorded_fitness": (_drop("recorded", "fitness"), "missing 'recorded.fitness'", "load"),
    "seconds_as_text": (_set("episode", "seconds", value="20"),
                        "'episode.seconds' has the wrong type", "load"),
    "seconds_zero": (_set("episode", "seconds", value=0),
                     "the episode must last more than 0 and at most 3600 seconds", "load"),
    "seconds_too_long": (_set("episode", "seconds", value=1e6),
                         "the episode must last more than 0 and at most 3600 seconds", "load"),
    "generation_as_float": (_set("recorded", "generation", value=1.5),
                            "'recorded.generation' has the wrong type", "load"),
    "task_as_list": (_set("task", value=["run"]), "'task' has the wrong type", "load"),
    "unknown_task": (_set("task", "name", value="dance"),
                     "task 'dance' (built-in) is not a built-in of this version of creatures", "replay"),
    "task_from_a_file": (lambda doc: doc["task"].update(name="evil.py:Evil", source="file",
                                                        location="/tmp/evil.py", sha256="0" * 64),
                         "task 'evil.py:Evil' (file, /tmp/evil.py) is code, and a shared file never "
                         "runs code by itself: if you trust it, name it with --plugin /tmp/evil.py",
                         "replay"),
    "task_from_a_module": (lambda doc: doc["task"].update(name="os:system", source="module",
                                                          location="os:system"),
                           "is code, and a shared file never runs code by itself", "replay"),
    "task_from_nowhere": (_set("task", "source", value="the internet"),
                          "task 'run' comes from an unknown source 'the internet'", "load"),
    "task_without_measures": (_drop("task", "measures"), "missing 'task.measures'", "load"),
    "unknown_sensor": (lambda doc: doc["sensors"].append({"name": "eyes", "source": "built-in"}),
                       "sensor 'eyes' (built-in) is not a built-in", "replay"),
    "sensor_as_text": (lambda doc: doc["sensors"].append("rays"), "a recorded sensor is not an object",
                       "load"),
    "no_sensors": (_set("sensors", value=[]), "must list between 1 and 1000 sensors", "load"),
    "terrain_going_back": (lambda doc: doc["terrain"].update(xs=[0.0, -1.0], ys=[0.0, 0.0]),
                           "the terrain is not usable: terrain xs must be strictly increasing", "load"),
    "terrain_points_as_text": (lambda doc: doc["terrain"].update(xs=["0", "1"], ys=[0.0, 0.0]),
                               "the terrain's points must be numbers", "load"),
    "terrain_of_one_point": (lambda doc: doc["terrain"].update(xs=[0.0], ys=[0.0]),
                             "the terrain is not usable", "load"),
    "unknown_network": (_set("brain", "network", value="spiking"),
                        "unknown network kind 'spiking'", "load"),
    "negative_mass": (lambda doc: doc["creature"]["body"]["spheres"][0].update(mass=-1.0),
                      "the creature or its settings are not usable: sphere masses and radii must "
                      "be positive", "load"),
    "bone_to_missing_sphere": (lambda doc: doc["creature"]["body"]["bones"][0].update(a=99),
                               "refers to sphere 99, which does not exist", "load"),
    "body_with_unknown_key": (lambda doc: doc["creature"]["body"]["spheres"][0].update(colour="red"),
                              "the creature or its settings are not usable", "load"),
    "unknown_physics_setting": (_set("physics", "wind", value=3.0),
                                "unknown simulation settings: wind", "load"),
    "zero_dt": (_set("physics", "dt", value=0.0), "dt must be positive", "load"),
    "genome_nodes_not_a_list": (_set("brain", "genome", "nodes", value={}),
                                "the genome has no 'nodes' list", "load"),
    "binary": (lambda text, doc: b"GIF89a\x00\x00\x00\rIHDR\xff\xfe\xfd", "not a text file", "load"),
    # a PNG's first bytes make it a card, whatever its name: a broken one is a card refused
    "png_named_json": (lambda text, doc: b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe\xfd",
                       "a card that cannot be read: truncated", "load"),
    "utf16": (lambda text, doc: text.encode("utf-16"), "not a text file", "load"),
    # the genome is checked against the creature when the brain is built: at replay
    "connection_from_nowhere": (_add_connection(**{"in": 999}),
                                "the genome has a connection 999 -> 0 between nodes that do not "
                                "exist", "replay"),
    "connection_to_nowhere": (_add_connection(out=777),
                              "the genome has a connection -1 -> 777 between nodes that do not "
                              "exist", "replay"),
    "connection_from_beyond_the_inputs": (_add_connection(**{"in": -999}),
                                          "connection -999 -> 0", "replay"),
    "missing_output_node": (_without_output_node,
                            "the genome lacks output nodes [0] for the creature's 6 outputs (one per muscle, or per muscle group)",
                            "replay"),
    "connection_weight_as_text": (lambda doc: doc["brain"]["genome"]["connections"][0]
                                  .update(weight="heavy"),
                                  "the genome has a connection with a bad weight or flag", "replay"),
    "unknown_activation": (_each_node("activation", "wiggle"),
                           "the genome does not fit the creature: No such activation function",
                           "replay"),
    "genome_without_key": (_drop("brain", "genome", "key"), "the genome does not fit the creature",
                           "replay"),
    # lineage and author (evolution.lineage)
    "lineage_as_list": (_set("lineage", value=["sha256:0"]), "'lineage' must be an object", "load"),
    "lineage_short_hash": (_set("lineage", "settings", value="sha256:1234"),
                           "'lineage.settings' must be 'sha256:' and 64 hex digits, or null", "load"),
    "lineage_parent_not_hex": (_set("lineage", "parent", value="sha256:" + "z" * 64),
                               "'lineage.parent' must be", "load"),
    "design_edited_under_its_hash": (lambda doc: doc["creature"].update(design_yaml=doc["creature"]["design_yaml"] + "#"),
                                     "'lineage.design' is not the hash of its design_yaml", "load"),
    "author_too_long": (_set("author", value="A" * 61), "'author' is 61 characters long; at most 60", "load"),
    "author_with_a_line_break": (_set("author", value="Ada\nrm -rf"), "'author' holds a character that is not "
                                 "printable", "load"),
    "author_as_number": (_set("author", value=7), "'author' must be text", "load"),
}

#: bad files that once crashed instead of being refused (fixed since): name -> (how, expected,
#: stage, what they used to raise). Either stage may refuse them ("any").
FORMER_BUGS = {
    "seconds_huge_integer": (_set("episode", "seconds", value=10**400), "seconds", "any",
                             OverflowError),
    "clock_hz_huge_integer": (_set("episode", "clock_hz", value=10**400), "", "any",
                              OverflowError),
    "fitness_huge_integer": (_set("recorded", "fitness", value=10**400), "", "any",
                             OverflowError),
    "software_not_an_object": (_set("software", value=["creatures", "0.1.0"]), "software", "any",
                               (TypeError, ValueError)),
    "software_as_text": (_set("software", value="creatures 0.1.0"), "software", "any",
                         (TypeError, ValueError)),
    "bone_sphere_index_fractional": (lambda doc: doc["creature"]["body"]["bones"][0].update(a=0.5),
                                     "", "any", IndexError),
    "gravity_as_text": (_set("physics", "gravity", value="down"), "", "any", TypeError),
    "node_without_activation": (_each_node("activation", drop=True), "genome node", "any",
                                AttributeError),
    "node_without_bias": (_each_node("bias", drop=True), "genome node", "any", AttributeError),
    # a boolean is an int to isinstance(): 'true' is read as a 1-second episode
    "seconds_as_boolean": (_set("episode", "seconds", value=True),
                           "'episode.seconds' has the wrong type", "any", pytest.fail.Exception),
    "recorded_fitness_as_boolean": (_set("recorded", "fitness", value=True),
                                    "'recorded.fitness' has the wrong type", "any",
                                    pytest.fail.Exception),
}


def _make(how, good_text: str, good: dict):
    if len(inspect.signature(how).parameters) == 2:
        return how(good_text, copy.deepcopy(good))
    doc = copy.deepcopy(good)
    how(doc)
    return json.dumps(doc, indent=1)


@pytest.fixture(scope="module")
def bad_champions(champion_file, tmp_path_factory) -> Path:
    """The ``bad_champions/`` folder: one file per recipe of ``BAD`` and ``FORMER_BUGS``."""
    folder = tmp_path_factory.mktemp("bad_champions")
    good_text = champion_file.read_text(encoding="utf-8")
    good = json.loads(good_text)
    for name, (how, *_) in {**BAD, **FORMER_BUGS}.items():
        content = _make(how, good_text, good)
        path = folder / f"{name}.json"
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        assert path.read_bytes() != champion_file.read_bytes(), name
    return folder


def _refusal(path: Path, stage: str) -> str:
    """The one-line message of the ChampionError refusing ``path`` at ``stage``; any other
    exception escapes and fails the test."""
    if stage == "load":
        with pytest.raises(ChampionError) as info:
            load_champion(path)
    elif stage == "replay":
        champion = load_champion(path)
        with pytest.raises(ChampionError) as info:
            champion.replay()
    else:  # "any": refused by load_champion or by the replay
        with pytest.raises(ChampionError) as info:
            load_champion(path).replay()
    message = str(info.value)
    assert message.strip() and "\n" not in message, repr(message)
    assert "Traceback" not in message
    return message


def _cases():
    for name, (_, expected, stage) in BAD.items():
        yield pytest.param(name, expected, stage, id=name)
    for name, (_, expected, stage, _raised) in FORMER_BUGS.items():
        yield pytest.param(name, expected, stage, id=name)


@pytest.mark.parametrize("name, expected, stage", list(_cases()))
def test_bad_champion_is_refused_with_one_line(bad_champions, name, expected, stage):
    message = _refusal(bad_champions / f"{name}.json", stage)
    assert expected in message, f"{name}: expected {expected!r} in {message!r}"


def test_the_good_champion_the_bad_ones_are_made_from_loads_and_replays(champion_file):
    champion = load_champion(champion_file)
    assert champion.replay() == champion.fitness


def test_bad_champions_folder_holds_every_recipe(bad_champions):
    assert sorted(p.stem for p in bad_champions.iterdir()) == sorted({**BAD, **FORMER_BUGS})


def test_a_file_over_max_bytes_is_refused_unread(champion_file, monkeypatch):
    size = champion_file.stat().st_size
    monkeypatch.setattr(champion_module, "MAX_BYTES", size - 1)
    with pytest.raises(ChampionError) as info:
        load_champion(champion_file)
    assert str(info.value) == f"it is {size} bytes; champions are at most {size - 1}"
    monkeypatch.setattr(champion_module, "MAX_BYTES", size)
    assert load_champion(champion_file).fitness == json.loads(champion_file.read_text())["recorded"]["fitness"]


def test_max_bytes_is_a_few_megabytes(champion_file):
    """Room for champions fifty times this walker's (bigger creatures, brains evolved longer: the
    saved ones are 12 to 52 kB), but not for a file that would take seconds to parse."""
    assert 50 * champion_file.stat().st_size <= champion_module.MAX_BYTES <= 10_000_000


def test_a_file_that_does_not_exist_is_refused(tmp_path):
    with pytest.raises(ChampionError) as info:
        load_champion(tmp_path / "nowhere.json")
    assert str(info.value) == "cannot read it: No such file or directory"


def test_a_directory_is_refused(tmp_path):
    with pytest.raises(ChampionError, match="cannot read it") as info:
        load_champion(tmp_path)
    assert "\n" not in str(info.value)


def test_deeply_nested_json_is_refused_with_one_line(document, tmp_path):
    text = json.dumps(document)[:-1] + ', "extra": ' + "[" * 100_000 + "]" * 100_000 + "}"
    (tmp_path / "deep.json").write_text(text)
    message = _refusal(tmp_path / "deep.json", "load")
    assert "not valid JSON" in message


def test_champion_error_messages_are_one_line_even_for_multi_line_json_errors(tmp_path):
    (tmp_path / "lines.json").write_text('{\n "format": "creatures-champion",\n "version": 1,\n oops\n}')
    message = _refusal(tmp_path / "lines.json", "load")
    assert message.startswith("not valid JSON: ") and "line 4" in message


# --- safety --------------------------------------------------------------------------------------

def test_champion_module_never_uses_pickle_or_runs_code_from_a_file():
    """A guard: champion files are read with json only. (The module's docstring mentions pickle
    to say it is never used, so the imports and names are checked, not the bare text.)"""
    source = Path(champion_module.__file__).read_text(encoding="utf-8")
    tree = ast.parse(source)
    unsafe = {"pickle", "cPickle", "_pickle", "dill", "cloudpickle", "marshal", "shelve", "joblib"}
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    assert not imported & unsafe, imported & unsafe
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    attributes = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    assert not (names | attributes) & (unsafe | {"eval", "exec", "__import__", "import_module"})
    code = ast.unparse(_strip_docstrings(tree))  # no comments, no docstrings
    assert "pickle" not in code
    assert "yaml" not in code.replace("design_yaml", "")  # the design's YAML is kept, never parsed


def _strip_docstrings(tree: ast.Module) -> ast.Module:
    tree = copy.deepcopy(tree)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
    return tree


# --- version 1 files (before plug-ins) ------------------------------------------------------------

V1_DIR = Path(__file__).with_name("v1_champions")
V1_FILES = sorted(V1_DIR.glob("*.json"))


def test_there_are_version_1_champions_to_test():
    assert len(V1_FILES) >= 2
    assert all(json.loads(p.read_text())["version"] == 1 for p in V1_FILES)


@pytest.mark.parametrize("path", V1_FILES, ids=lambda p: p.stem)
def test_a_version_1_champion_says_an_earlier_engine_scored_it(path):
    """Version 1 files predate the engine's version (their physics has no ``engine``): engine 1
    scored them, today's moves them differently, and the champion says so in one line, with
    the recorded fitness; its replay by today's engine is the same every time."""
    champion = load_champion(path)
    assert champion.sim.engine == 1 < physics.ENGINE_VERSION
    note = champion.earlier_engine()
    assert "\n" not in note and "version 1" in note and f"{champion.fitness:.6g}" in note
    assert champion.replay() == champion.replay()


@pytest.mark.parametrize("path", V1_FILES, ids=lambda p: p.stem)
def test_a_version_1_champion_is_read_as_builtins_with_the_default_sensors(path):
    old = json.loads(path.read_text())
    champion = load_champion(path)
    assert champion.task.source == "built-in" and champion.task.name == old["task"]["name"]
    assert champion.terrain_ref.name == old["task"]["terrain"] == champion.terrain.kind
    assert [r.name for r in champion.sensors] == list(DEFAULT_SENSORS)


@pytest.mark.parametrize("path", V1_FILES, ids=lambda p: p.stem)
def test_a_version_1_champion_saved_again_is_version_2_and_replays_the_same(path, tmp_path):
    champion = load_champion(path)
    save_champion(champion, tmp_path / "v2.json")
    again = load_champion(tmp_path / "v2.json")
    assert json.loads((tmp_path / "v2.json").read_text())["version"] == 2
    assert again.sim.engine == 1 and again.fitness == champion.fitness   # still the record of what scored it
    assert again.replay() == champion.replay()


@pytest.mark.parametrize("change, message", [
    ({"name": "dance"}, "unknown task 'dance'"),
    ({"terrain": "lava"}, "unknown terrain 'lava'"),
    ({"name": "examples/flag.py:Flag"}, "unknown task 'examples/flag.py:Flag'"),
    ({"seed": -1}, "'task.seed' must be a whole number >= 0"),
])
def test_a_version_1_champion_names_only_builtins(change, message, tmp_path):
    doc = json.loads(V1_FILES[0].read_text())
    doc["task"].update(change)
    (tmp_path / "old.json").write_text(json.dumps(doc))
    with pytest.raises(ChampionError, match=message):
        load_champion(tmp_path / "old.json")

"""``creatures export`` and ``creatures replay`` as a user meets them: a tiny run exported to a
champion file and replayed in a fresh interpreter to exactly its recorded fitness, and one-line
refusals (exit 2, never a traceback) for what cannot be exported or replayed."""

import json

import pytest

from evolution.champion import VERSION, champion_from_run, load_champion, save_champion

TINY = ("--generations", "2", "--population", "8", "--seconds", "1", "--workers", "1",
        "--seed", "3")


def _one_line_refusal(r, command: str) -> str:
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith(f"creatures {command}: ")
    return lines[0]


@pytest.fixture(scope="module")
def run_dir(run_creatures, tmp_path_factory):
    out = tmp_path_factory.mktemp("export") / "walker-run"
    r = run_creatures("evolve", "walker", *TINY, "--out", out)
    assert r.returncode == 0, r.stderr
    return out


@pytest.fixture(scope="module")
def exported(run_creatures, run_dir):
    """``creatures export RUN_DIR --out FILE``: the file and the finished process."""
    path = run_dir.parent / "walker-champion.json"
    return path, run_creatures("export", run_dir, "--out", path)


# --- export --------------------------------------------------------------------------------------

def test_export_exits_0_and_writes_the_champion(exported):
    path, r = exported
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    assert path.is_file()
    document = json.loads(path.read_text())
    assert document["format"] == "creatures-champion" and document["version"] == (5 if "trials" in document else 2)
    assert document["task"]["name"] == "run" and document["recorded"]["seed"] == 3


def test_export_says_what_it_wrote_in_one_line(exported):
    path, r = exported
    document = json.loads(path.read_text())
    assert r.stdout.splitlines() == [
        f"{path}: {document['name']}, fitness {document['recorded']['fitness']!r} on run (flat)"]


def test_exported_champion_is_the_best_of_the_run(exported, run_dir):
    path, _ = exported
    records = [json.loads(p.read_text()) for p in sorted((run_dir / "best").glob("gen_*.json"))]
    assert len(records) == 2
    document = json.loads(path.read_text())
    assert document["recorded"]["fitness"] == max(r["fitness"] for r in records)


def test_export_writes_what_save_champion_writes(exported, run_dir, tmp_path):
    path, _ = exported
    save_champion(champion_from_run(run_dir), tmp_path / "here.json")
    assert (tmp_path / "here.json").read_bytes() == path.read_bytes()


@pytest.mark.parametrize("generation", [1, 2])
def test_export_of_a_chosen_generation(run_creatures, run_dir, tmp_path, generation):
    path = tmp_path / f"gen{generation}.json"
    r = run_creatures("export", run_dir, "--generation", generation, "--out", path)
    assert r.returncode == 0, r.stderr
    record = json.loads((run_dir / "best" / f"gen_{generation:04d}.json").read_text())
    document = json.loads(path.read_text())
    assert document["recorded"]["generation"] == generation
    assert document["recorded"]["fitness"] == record["fitness"]
    assert document["brain"]["genome"] == record["genome"]


@pytest.mark.parametrize("generation, message", [
    (3, "has no generation 3 (it has 1 to 2)"),
    (0, "creatures export: --generation must be 1 or more, not 0"),
])
def test_export_of_a_generation_the_run_does_not_have_exits_2(run_creatures, run_dir, tmp_path,
                                                              generation, message):
    path = tmp_path / "none.json"
    r = run_creatures("export", run_dir, "--generation", generation, "--out", path)
    line = _one_line_refusal(r, "export")
    assert message in line
    assert not path.exists()


def test_export_of_a_directory_that_is_not_a_run_exits_2(run_creatures, tmp_path):
    (tmp_path / "notes.txt").write_text("not a run\n")
    r = run_creatures("export", tmp_path, "--out", tmp_path / "c.json")
    line = _one_line_refusal(r, "export")
    assert f"{tmp_path} is not a run directory" in line
    assert not (tmp_path / "c.json").exists()


def test_export_to_a_folder_that_does_not_exist_exits_2(run_creatures, run_dir, tmp_path):
    r = run_creatures("export", run_dir, "--out", tmp_path / "missing" / "c.json")
    assert "cannot write" in _one_line_refusal(r, "export")


def test_export_of_a_run_with_a_damaged_best_file_exits_2(run_creatures, run_dir, tmp_path):
    damaged = tmp_path / "damaged-run"
    (damaged / "best").mkdir(parents=True)
    for name in ("settings.json", "body.json", "neat.cfg", "stats.csv", "species.csv"):
        (damaged / name).write_bytes((run_dir / name).read_bytes())
    (damaged / "best" / "gen_0001.json").write_text('{"generation": 1, "fitn')
    r = run_creatures("export", damaged, "--out", tmp_path / "c.json")
    _one_line_refusal(r, "export")


# --- replay --------------------------------------------------------------------------------------

def test_replay_prints_recorded_and_replayed_fitness_identical(run_creatures, exported):
    path, _ = exported
    fitness = json.loads(path.read_text())["recorded"]["fitness"]
    r = run_creatures("replay", path)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    lines = r.stdout.splitlines()
    assert lines[0].endswith(": run on flat, 1 s; fitness is metres travelled to the right")
    assert lines[1].strip().startswith(f"recorded fitness {fitness!r}  (")   # (and the trials it is over)
    assert lines[2].strip() == f"replayed fitness {fitness!r}  (identical)"


def test_replay_json_prints_one_object_with_identical_fitness(run_creatures, exported):
    path, _ = exported
    document = json.loads(path.read_text())
    r = run_creatures("replay", path, "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)  # the whole output is one JSON object
    assert isinstance(out, dict)
    assert out["recorded_fitness"] == out["replayed_fitness"] == document["recorded"]["fitness"]
    assert out["identical"] is True
    assert (out["task"], out["terrain"]) == ("run", "flat")
    assert out["generation"] == document["recorded"]["generation"]
    assert out["software"] == document["software"]


def test_replay_of_a_chosen_generation_is_identical_too(run_creatures, run_dir, tmp_path):
    path = tmp_path / "gen1.json"
    assert run_creatures("export", run_dir, "--generation", 1, "--out", path).returncode == 0
    out = json.loads(run_creatures("replay", path, "--json").stdout)
    assert out["identical"] is True and out["generation"] == 1


def test_replay_of_a_champion_whose_recorded_fitness_was_changed_exits_1(run_creatures, exported,
                                                                        tmp_path):
    document = json.loads(exported[0].read_text())
    scored = document["recorded"]["fitness"]
    document["recorded"]["fitness"] += 1.0
    path = tmp_path / "changed.json"
    path.write_text(json.dumps(document))
    r = run_creatures("replay", path)
    assert r.returncode == 1
    assert "DIFFERENT" in r.stdout and "Traceback" not in r.stderr
    out = json.loads(run_creatures("replay", path, "--json").stdout)
    assert out["identical"] is False
    assert out["replayed_fitness"] == scored and out["recorded_fitness"] == scored + 1.0


def _bad_files(good: dict):
    """Bad champion files: name -> (content, expected text of the refusal)."""
    negative = json.loads(json.dumps(good))
    negative["creature"]["body"]["spheres"][0]["mass"] = -1.0
    no_output = json.loads(json.dumps(good))
    genome = no_output["brain"]["genome"]
    genome["nodes"] = [n for n in genome["nodes"] if n["key"] != 0]
    genome["connections"] = [c for c in genome["connections"] if 0 not in (c["in"], c["out"])]
    newer = dict(good, version=VERSION + 1)
    return {
        "not_json": ("certainly not json", "not valid JSON"),
        "binary": (b"\x00\xff\xfe\x80 binary", "not a text file"),
        "newer": (json.dumps(newer), "is newer than this software reads"),
        "negative_mass": (json.dumps(negative), "sphere masses and radii must be positive"),
        "no_output_node": (json.dumps(no_output), "the genome lacks output nodes [0]"),
    }


@pytest.mark.parametrize("name", ["not_json", "binary", "newer", "negative_mass", "no_output_node"])
def test_replay_of_a_bad_file_exits_2_with_one_line(run_creatures, exported, tmp_path, name):
    content, expected = _bad_files(json.loads(exported[0].read_text()))[name]
    path = tmp_path / f"{name}.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    line = _one_line_refusal(run_creatures("replay", path), "replay")
    assert line.startswith(f"creatures replay: {path}: ")
    assert expected in line


def test_replay_of_a_file_that_does_not_exist_exits_2(run_creatures, tmp_path):
    path = tmp_path / "nowhere.json"
    line = _one_line_refusal(run_creatures("replay", path), "replay")
    assert line == f"creatures replay: {path}: cannot read it: No such file or directory"


def test_replay_json_of_a_bad_file_still_refuses_on_stderr(run_creatures, tmp_path):
    (tmp_path / "bad.json").write_text("[1, 2, 3]")
    line = _one_line_refusal(run_creatures("replay", tmp_path / "bad.json", "--json"), "replay")
    assert "not a champion file" in line


def test_replay_of_a_file_with_a_bad_software_field_exits_2(run_creatures, exported, tmp_path):
    document = json.loads(exported[0].read_text())
    document["software"] = [1, 2]
    path = tmp_path / "software.json"
    path.write_text(json.dumps(document))
    _one_line_refusal(run_creatures("replay", path), "replay")


def test_exported_file_loads_in_process_too(exported):
    champion = load_champion(exported[0])
    assert champion.replay() == champion.fitness


# --- a champion whose body evolved ---------------------------------------------------------------

@pytest.mark.parametrize("generation", [None, 1])
def test_an_evolved_champion_replays_to_its_recorded_fitness_bit_for_bit(run_creatures, evolved_run,
                                                                         tmp_path, generation):
    """Exported and replayed in a fresh interpreter with its own body (not its design's start),
    to exactly the fitness evolution recorded."""
    path = tmp_path / "evolved.json"
    chosen = () if generation is None else ("--generation", generation)
    r = run_creatures("export", evolved_run, *chosen, "--out", path)
    assert r.returncode == 0, r.stderr
    document = json.loads(path.read_text())
    assert document["version"] == (5 if "trials" in document else 3) and "evolve" in document["creature"]
    r = run_creatures("replay", path, "--json")
    assert r.returncode == 0, (r.stdout, r.stderr)
    out = json.loads(r.stdout)
    assert out["identical"] is True and out["replayed_fitness"] == document["recorded"]["fitness"]
    assert out["generation"] == (generation or champion_from_run(evolved_run).generation)


def test_an_evolved_champion_differs_from_its_design_so_its_body_matters(evolved_run):
    """The run's best champion evolved away from the design's start: replayed with the start
    body (the old way, ``EpisodeRun(c.episode(), c.brains(), 1)``) it scores otherwise; with its
    own (``c.episode_run()``, ``c.replay()``) it scores what was recorded."""
    from evolution.rollout import EpisodeRun
    champion = champion_from_run(evolved_run)
    assert champion.genome["body"]["values"] != champion.genes.start_values()

    def play(run):
        while not run.done:
            run.step()
        return float(run.fitness()[0])

    assert play(champion.episode_run()) == champion.fitness == champion.replay()
    assert play(EpisodeRun(champion.episode(), champion.brains(), 1)) != champion.fitness

"""``creatures evolve`` as a user meets it: a tiny run from start to finish, its output and files,
and one-line refusals (exit 2, never a traceback) for what cannot run."""

import csv
import io
import json
import os
import re

import pytest

from evolution.trials import Trials

from creatures.cli.evolve import MEDIAN_NOTE
from creatures.design import resolve_design
from creatures.kernels import COMPILING
from evolution.run import Run, RunSettings

TINY = ("--generations", "2", "--population", "10", "--seconds", "1", "--workers", "1")
STICK = """name: stick
spheres:
  - {id: a, position: [0, 0.1]}
  - {id: b, position: [0.5, 0.1]}
bones:
  - {spheres: [a, b]}
"""


def _files(directory):
    """Every file of a run directory, stats.csv without its timing columns."""
    files = {str(p.relative_to(directory)): p.read_bytes()
             for p in sorted(directory.rglob("*")) if p.is_file()}
    rows = list(csv.reader(io.StringIO(files["stats.csv"].decode())))
    keep = [k for k, name in enumerate(rows[0]) if name not in ("eval_seconds", "creature_steps_per_s", "wall_seconds")]
    files["stats.csv"] = [[row[k] for k in keep] for row in rows]
    return files


def _one_line_refusal(r):
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    return lines[0]


@pytest.fixture(scope="module")
def tiny(run_creatures, tmp_path_factory):
    out = tmp_path_factory.mktemp("evolve") / "walker-run"
    return out, run_creatures("evolve", "walker", *TINY, "--out", out)


def test_tiny_run_exits_0(tiny):
    _, r = tiny
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr


def test_tiny_run_says_what_it_evolves_first(tiny):
    out, r = tiny
    first = r.stdout.splitlines()[0]
    assert first == ("evolving walker (21 inputs, 6 muscles) to run on flat ground: 2 generations of 10, "
                     f"1 s each, {Trials().describe()}, seed 0, feedforward networks, in this process -> {out}")


def test_one_generation_is_one_generation(run_creatures, tmp_path):
    r = run_creatures("evolve", "worm", "--generations", 1, "--population", 4, "--seconds", 0.1,
                      "--workers", 1, "--out", tmp_path / "run")
    assert r.returncode == 0, r.stderr
    assert ": 1 generation of 4, 0.1 s each," in r.stdout.splitlines()[0]


@pytest.mark.parametrize("workers, said", [
    (0, f", on {os.cpu_count()} worker processes" if (os.cpu_count() or 1) > 1 else ", in this process"),
    (1, ", in this process"), (3, ", on 3 worker processes")])
def test_the_first_line_says_where_generations_are_evaluated(workers, said):
    """--workers 0, the default, is one process per core: the first line says how many that is."""
    from creatures.cli.evolve import where_evaluated
    settings = RunSettings(design_name="worm", design_text="", workers=workers)
    assert where_evaluated(settings) == said
    settings.backend = "ray"      # the cluster's own: nothing to say here
    assert where_evaluated(settings) == ""


def test_tiny_run_prints_a_line_per_generation(tiny):
    _, r = tiny
    gens = [line for line in r.stdout.splitlines() if line.startswith("gen ")]
    assert len(gens) == 2
    for k, line in enumerate(gens, 1):
        assert re.match(rf"gen +{k}  best +-?\d+\.\d{{3}}  fresh +-?\d+\.\d{{3}}  median +-?\d+\.\d{{3}}  "
                        rf"species +\d+", line), line


def test_tiny_run_ends_with_a_summary_the_files_and_what_to_do_next_with_the_run_directory(tiny):
    out, r = tiny
    lines = r.stdout.splitlines()
    assert re.match(r"done in \d+\.\d s: best fitness -?\d+\.\d{3} \(generation [12]; from fresh starts "
                    r"-?\d+\.\d{3}, worst -?\d+\.\d{3}\); fitness is metres travelled to the right", lines[-6]), lines[-6]
    assert lines[-5:] == [
        f"results in {out}: settings.json, body.json, terrain.json, neat.cfg, stats.csv, species.csv, "
        "best/gen_NNNN.json, checkpoint.json",
        "next:",
        f"  creatures watch {out}                          watch its champion",
        f"  creatures plot {out}                           chart its fitness and species",
        f"  creatures export {out} --out walker-run.json   write its champion to a file to share or replay"]


def test_the_files_the_summary_names_are_the_files_the_run_wrote(tiny):
    out, r = tiny
    named = r.stdout.splitlines()[-5].split(": ", 1)[1].split(", ")
    written = {re.sub(r"gen_\d{4}", "gen_NNNN", str(p.relative_to(out)))
               for p in out.rglob("*") if p.is_file() and not p.name.startswith(".")}
    assert set(named) == written


def test_tiny_run_piped_prints_plain_lines_and_no_progress_bar(tiny):
    _, r = tiny
    assert "\r" not in r.stdout and "[#" not in r.stdout and "[." not in r.stdout
    lines = r.stdout.splitlines()
    assert lines[0].startswith("evolving walker")
    rest = [ln for ln in lines[1:] if not ln.startswith(COMPILING)]   # a first run says it compiles (and what)
    assert rest[0] == MEDIAN_NOTE                          # what the lines' median is
    assert [ln.split()[:2] for ln in rest[1:3]] == [["gen", "1"], ["gen", "2"]]
    assert rest[3].startswith("done in ")


def test_the_next_steps_quote_a_run_directory_with_spaces(tmp_path):
    from creatures.cli.evolve import next_steps
    text = next_steps(tmp_path / "my run", "walker-run.json")
    assert f"creatures watch '{tmp_path / 'my run'}'" in text
    assert f"creatures export '{tmp_path / 'my run'}' --out walker-run.json" in text


def test_tiny_run_creates_the_run_files(tiny):
    out, _ = tiny
    names = {str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()}
    assert names == {"settings.json", "body.json", "terrain.json", "neat.cfg", "stats.csv", "species.csv", "best/gen_0001.json",
                     "best/gen_0002.json", "checkpoint.json", ".lock"}
    assert len((out / "stats.csv").read_text().splitlines()) == 3


def test_tiny_run_equals_the_same_run_in_this_process(tiny, tmp_path):
    """A run is a function of its settings: another process (another hash seed, another start)
    writes the same files."""
    out, _ = tiny
    d = resolve_design("walker")
    settings = RunSettings(design_name=d.name, design_text=d.text, seconds=1.0, generations=2,
                           population=10, seed=0, workers=1)
    Run.create(tmp_path, settings, d.body).evolve()
    assert _files(tmp_path) == _files(out)


def test_out_holding_a_run_is_refused_and_left_alone(tiny, run_creatures):
    out, _ = tiny
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    r = run_creatures("evolve", "walker", *TINY, "--out", out)
    line = _one_line_refusal(r)
    assert line == (f"creatures evolve: {out} already holds a run; choose another --out, "
                    f"or go on with: creatures resume {out}")
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_unknown_design_exits_2_with_one_line(run_creatures, tmp_path):
    r = run_creatures("evolve", "no_such_creature", *TINY, "--out", tmp_path / "run")
    line = _one_line_refusal(r)
    assert line.startswith("creatures evolve: no_such_creature: no built-in design of that name")
    assert not (tmp_path / "run").exists()


BAD_NUMBERS = [
    (("--population", "1"), "--population must be 2 or more, not 1"),
    (("--population", "-5"), "--population must be 2 or more, not -5"),
    (("--seconds", "0"), "--seconds must be a number of seconds above 0 and below 1000000, not 0"),
    (("--seconds", "-2.5"), "--seconds must be a number of seconds above 0 and below 1000000, not -2.5"),
    (("--seconds", "nan"), "--seconds must be a number of seconds above 0 and below 1000000, not nan"),
    (("--seconds", "inf"), "--seconds must be a number of seconds above 0 and below 1000000, not inf"),
    (("--generations", "0"), "--generations must be 1 or more, not 0"),
    (("--generations", "-3"), "--generations must be 1 or more, not -3"),
    (("--workers", "-1"), "--workers must be 1 or more (or 0: one per core), not -1"),
    (("--seed", "-1"), "--seed must be 0 or more, not -1"),
]


@pytest.mark.parametrize("args, message", BAD_NUMBERS)
def test_bad_numbers_exit_2_with_one_line_naming_the_option(args, message, tmp_path, capsys):
    from creatures.cli import main
    assert main(["evolve", "walker", *args, "--out", str(tmp_path / "run")]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"creatures evolve: {message}\n"
    assert not (tmp_path / "run").exists()


def test_bad_numbers_exit_2_with_one_line_from_the_command_line(run_creatures, tmp_path):
    r = run_creatures("evolve", "walker", "--generations", "-3", "--out", tmp_path / "run")
    assert _one_line_refusal(r) == "creatures evolve: --generations must be 1 or more, not -3"


@pytest.mark.parametrize("args, message", [
    (("--generations", "x"), "argument --generations: invalid int value: 'x'"),
    (("--network", "lstm"), "argument --network: invalid choice: 'lstm' (choose from 'feedforward', 'recurrent')"),
    (("--no-such-option",), "unrecognized arguments: --no-such-option"),
    (("a", "b"), "unrecognized arguments: b"),
])
def test_a_command_line_mistake_is_one_usage_line_and_one_error_line(args, message, tmp_path, capsys):
    from creatures.cli import main
    with pytest.raises(SystemExit) as exit_:
        main(["evolve", *args])
    assert exit_.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines() == [
        "usage: creatures evolve [options] [design]   (creatures evolve --help says more)",
        f"creatures evolve: error: {message}"]


def test_unreadable_neat_config_exits_2_with_one_line(run_creatures, tmp_path):
    r = run_creatures("evolve", "walker", *TINY, "--neat-config", tmp_path / "missing.cfg",
                      "--out", tmp_path / "run")
    assert _one_line_refusal(r).startswith(f"creatures evolve: cannot read {tmp_path / 'missing.cfg'}")


def test_design_without_muscles_exits_2_with_one_line(run_creatures, tmp_path):
    (tmp_path / "stick.yaml").write_text(STICK)
    r = run_creatures("evolve", tmp_path / "stick.yaml", *TINY, "--out", tmp_path / "run")
    line = _one_line_refusal(r)
    assert line == ("creatures evolve: cannot start the run: the design has no muscles: there is "
                    "nothing for a brain to drive")


def test_out_of_a_run_that_never_started_can_be_used(run_creatures, tmp_path):
    (tmp_path / "stick.yaml").write_text(STICK)
    out = tmp_path / "run"
    assert run_creatures("evolve", tmp_path / "stick.yaml", *TINY, "--out", out).returncode == 2
    r = run_creatures("evolve", "walker", "--generations", "1", "--population", "4", "--seconds",
                      "0.1", "--workers", "1", "--out", out)
    assert r.returncode == 0, r.stderr


def test_negative_seed_on_hills_runs_or_is_refused_without_a_traceback(run_creatures, tmp_path):
    r = run_creatures("evolve", "walker", "--generations", "1", "--population", "4", "--seconds",
                      "0.1", "--workers", "1", "--terrain", "hills", "--seed", "-1",
                      "--out", tmp_path / "run")
    assert "Traceback" not in r.stderr
    assert r.returncode in (0, 2)


def test_evolves_defaults_are_the_runs(monkeypatch, tmp_path, capsys):
    """One owner: ``creatures evolve`` with no option asks for exactly ``RunSettings``' defaults
    (the settings it hands to the run, taken before a run is made)."""
    from creatures.cli import evolve, main
    from creatures.runs import StartError
    from evolution.sensors import DEFAULT_SENSORS
    asked = {}

    def create_run(out, design, **settings):
        asked.update(settings)
        raise StartError("stopped by the test")
    monkeypatch.setattr(evolve, "create_run", create_run)
    assert main(["evolve", "--out", str(tmp_path / "run")]) == 2
    assert "stopped by the test" in capsys.readouterr().err
    defaults = RunSettings.defaults()
    assert asked.pop("sensors") == list(DEFAULT_SENSORS) and defaults["sensors"] is None   # the same sensors
    assert asked == {name: defaults[name] for name in asked}
    assert set(asked) >= {"task", "terrain", "seconds", "generations", "population", "seed", "workers", "network",
                          "trials", "noise", "statistic", "backend", "address", "medium", "neat_config"}


def test_help_shows_examples(run_creatures):
    r = run_creatures("evolve", "--help")
    assert r.returncode == 0
    assert "examples:" in r.stdout
    assert "creatures evolve quadruped --task jump" in r.stdout
    for option in ("--task", "--terrain", "--seconds", "--generations", "--population", "--seed",
                   "--workers", "--network", "--neat-config", "--out"):
        assert option in r.stdout


def test_ray_backend_from_the_command_line_gives_the_local_run(tiny, run_creatures, tmp_path):
    pytest.importorskip("ray", reason="the ray backend needs Ray: pip install 'creatures[cluster]'")
    out, _ = tiny
    r = run_creatures("evolve", "walker", *TINY, "--backend", "ray", "--out", tmp_path / "ray")
    assert r.returncode == 0, r.stderr
    mine, theirs = _files(tmp_path / "ray"), _files(out)
    assert json.loads(mine.pop("settings.json"))["backend"] == "ray"
    theirs.pop("settings.json")
    assert mine == theirs


def test_address_without_the_ray_backend_is_refused(run_creatures, tmp_path):
    r = run_creatures("evolve", "walker", *TINY, "--address", "auto", "--out", tmp_path / "run")
    assert _one_line_refusal(r) == "creatures evolve: --address is for --backend ray"
    assert not (tmp_path / "run").exists()


# --- a body that evolves -------------------------------------------------------------------------

def test_a_run_whose_body_evolves_ends_with_the_champions_body_against_the_design(tmp_path, capsys):
    from evolving_helpers import evolving_run

    from creatures.cli.evolve import drive
    out = tmp_path / "run"
    assert drive(evolving_run(out), out) == 0
    lines = capsys.readouterr().out.splitlines()
    done = next(k for k, line in enumerate(lines) if line.startswith("done in "))
    generation = int(re.search(r"\(generation (\d+)[;)]", lines[done])[1])
    body = json.loads((out / "best" / f"gen_{generation:04d}.json").read_text())["genome"]["body"]
    assert lines[done + 1] == f"the champion's body (generation {generation}) against the design's start:"
    table = lines[done + 2:done + 6]
    for line, (label, start, value, rng) in zip(table, [
            ("foot.radius", "0.1", body["values"][0], r"\[0\.05, 0\.15\] m"),
            ("knee.y", "0.5", body["values"][1], r"\[0\.35, 0\.65\] m"),
            ("shin.strength", "150", body["values"][2], r"\[50, 300\] N")]):
        m = re.fullmatch(rf"  {re.escape(label)} +{start} -> (\S+) +{rng}", line)
        assert m, line
        assert float(m[1]) == pytest.approx(value, rel=1e-3)
    assert re.fullmatch(rf"  hip-knee +on -> {'on' if body['parts'][0] else 'off'}", table[3]), table[3]
    columns = {line.index("->") for line in table}
    assert len(columns) == 1                                   # one aligned table
    assert lines[done + 6].startswith("results in ")
    assert body["values"] != [0.1, 0.5, 150.0]                 # the body did evolve


def test_the_champions_body_shows_angles_in_degrees_and_parts_switched_off(tmp_path):
    from types import SimpleNamespace

    from creatures.cli.evolve import body_summary
    from evolution.bodygenes import BodyGenes, Gene, Switch
    genes = BodyGenes((Gene("knee.min", "joint", 0, "min", -1.5, 0.0, -0.5),),
                      (Switch("brace", "bone", 2), Switch("tail", "sphere", 3)))
    (tmp_path / "best").mkdir()
    record = {"generation": 7, "fitness": 1.0,
              "genome": {"body": {"values": [-0.75], "parts": [False, True]}}}
    (tmp_path / "best" / "gen_0007.json").write_text(json.dumps(record))
    assert body_summary(SimpleNamespace(genes=genes, dir=tmp_path), 7) == [
        "the champion's body (generation 7) against the design's start:",
        "  knee.min   -28.65 -> -42.97   [-85.94, 0] deg",
        "  brace          on -> off",
        "  tail           on -> on"]
    assert body_summary(SimpleNamespace(genes=genes, dir=tmp_path), 8) == []     # no such file: nothing
    assert body_summary(SimpleNamespace(genes=BodyGenes(), dir=tmp_path), 7) == []  # a fixed body

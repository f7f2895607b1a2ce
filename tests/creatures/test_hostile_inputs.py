"""Hostile and broken input: every file the program reads, through the command a user runs.

Each case is a design, terrain file, ``--neat-config``, champion or run directory that is broken
or built to hurt (binary, wrong encodings, control characters, YAML tags and anchors, nesting
thousands deep, huge and non-finite numbers, wrong types, truncated files, too many of anything).
Every one must be refused by its command with exit status 2 and exactly one line on stderr that
names the file, never a traceback; within a memory cap and a time limit (safety nets, not
performance targets).

The inputs are kept by kind under ``tests/hostile/`` (see its README.md); the few that are large
are made by :data:`GENERATED` here. All cases run in one subprocess (``python THIS_FILE CASES``),
through ``creatures.cli.main``, under an address-space limit (``RLIMIT_AS``, see
:data:`MEMORY_CAP`): starting one interpreter per case would take minutes.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HOSTILE = REPO / "tests" / "hostile"
CHAMPION = REPO / "saves" / "walker-run.json"
#: the tiny run every run-directory case starts from
BASE_RUN = ["evolve", "worm", "--generations", "1", "--population", "4", "--seconds", "0.2",
            "--workers", "1", "--seed", "3"]
#: a --neat-config case's command (the file goes after --neat-config)
TINY_EVOLVE = ["--generations", "1", "--population", "2", "--seconds", "0.1", "--workers", "1"]
#: run-directory commands
RUN_COMMANDS = {"resume": ["resume", "{dir}", "--generations", "2", "--workers", "1"],
                "plot": ["plot", "{dir}", "--out", "{tmp}/charts"],
                "export": ["export", "{dir}", "--out", "{tmp}/exported.json"],
                "watch": ["watch", "{dir}"]}
#: the address space the subprocess may use. A command peaks at 350 to 520 MB of it (numba and
#: LLVM reserve some; each thread a stack), the whole batch at about 650 MB; what once blew up
#: went past 3 GB.
MEMORY_CAP = (1024 + 16 * (os.cpu_count() or 1)) * 2**20
#: seconds: the whole batch, and any one case (a safety net: most take milliseconds)
BATCH_TIMEOUT = 240
CASE_TIMEOUT = 30


# --- the cases ------------------------------------------------------------------------------------

def _text(n: int, piece: str = "x") -> str:
    return piece * n


def _many_spheres_design(count: int, overlapping: bool = True) -> str:
    spheres = "".join(f"  - {{id: s{i}, position: [{0 if overlapping else i * 0.3}, 1]}}\n" for i in range(count))
    return f"name: crowd\nself_collision: true\nspheres:\n{spheres}"


def _chain_genome(doc: dict, hidden: int) -> None:
    """A feed-forward genome of ``hidden`` hidden nodes in a chain (neat-python's layering of it
    takes quadratic time)."""
    genome = doc["brain"]["genome"]
    node = dict(genome["nodes"][0])
    genome["nodes"] += [dict(node, key=100 + k) for k in range(hidden)]
    conns = [{"in": -1, "out": 100, "weight": 0.1, "enabled": True, "innovation": 1}]
    conns += [{"in": 100 + k, "out": 101 + k, "weight": 0.1, "enabled": True, "innovation": 2 + k}
              for k in range(hidden - 1)]
    conns.append({"in": 99 + hidden, "out": 0, "weight": 0.1, "enabled": True, "innovation": hidden + 1})
    genome["connections"] = conns


#: inputs too large to keep in git, made here: id -> (file name, what to write, commands).
#: "what to write" is a function returning the text, or for a champion a function changing the
#: walker champion's document; commands as :func:`_argv` names them.
GENERATED = {
    "designs/oversized": ("design.yaml", lambda: "# " + _text(1_100_000) + "\n", ["validate"]),
    "designs/deep_100000": ("design.yaml", lambda: "name: x\nspheres: " + "[" * 100_000 + "]" * 100_000 + "\n",
                            ["validate", "simulate"]),
    "designs/overlapping_20000_spheres": ("design.yaml", lambda: _many_spheres_design(20_000), ["validate"]),
    "designs/spheres_501": ("design.yaml", lambda: _many_spheres_design(501, overlapping=False), ["simulate"]),
    "designs/description_900000_characters": ("design.yaml", lambda: "name: x\ndescription: " + _text(900_000)
                                              + "\nspheres: [{id: a, position: [0, 1]}]\n", ["validate"]),
    "designs/integer_100000_digits": ("design.yaml", lambda: "name: x\nspheres: [{id: a, position: [0, "
                                      + _text(100_000, "9") + "]}]\n", ["validate"]),
    "terrains/oversized": ("course.yaml", lambda: "# " + _text(2_100_000) + "\n", ["validate"]),
    "terrains/points_100001": ("course.yaml", lambda: "points:\n" + "".join(f"  - [{k}, 0]\n" for k in range(100_001)),
                               ["validate"]),
    "terrains/pieces_100000_tiny": ("course.yaml", lambda: "pieces:\n" + "  - flat: 1e-300\n" * 100_000,
                                    ["validate"]),
    "terrains/deep_100000": ("course.yaml", lambda: "points: " + "[" * 100_000 + "]" * 100_000,
                             ["evolve_terrain"]),
    "neat_configs/oversized": ("neat.cfg", lambda: "#" + _text(200_000) + "\n", ["neat"]),
    "champions/oversized": ("champion.json", lambda: " " * 6_000_000 + "{}", ["replay"]),
    "champions/deep_100000": ("champion.json", lambda: "[" * 100_000 + "]" * 100_000, ["replay", "watch"]),
    "champions/truncated": ("champion.json", lambda: CHAMPION.read_text()[:20_000], ["replay"]),
    "champions/genome_chain_20000": ("champion.json", lambda doc: _chain_genome(doc, 20_000), ["replay", "watch"]),
    "champions/genome_chain_5000": ("champion.json", lambda doc: _chain_genome(doc, 5_000), ["replay"]),
    "challenges/oversized": ("challenge.yaml", lambda: "# " + _text(110_000) + "\n", ["challenges"]),
    "challenges/deep_100000": ("challenge.yaml", lambda: "name: " + "[" * 100_000 + "]" * 100_000 + "\n",
                               ["challenge_verify"]),
}

#: run-directory cases made here: id -> (what to do to the base run, commands, what the line names)
GENERATED_RUNS = {
    "runs/body_20000_spheres": ({"extend": {"body.json": {"spheres": [{
        "pos": [0.0, 1.0], "radius": 0.05, "mass": 1.0, "friction": 0.8, "kinetic_friction": None,
        "restitution": 0.0, "fixed": False}] * 20_000}}}, ["resume", "export", "watch"], "body.json"),
    "runs/species_200000": ({"append": {"species.csv": "".join(f"1,{k},1\n" for k in range(2, 200_000))}},
                            ["plot"], "species.csv"),
    "runs/stats_200000_rows": ({"append": {"stats.csv": "".join(f"{g}" + ",0.5" * 8 + ",1,0,0,0.1,1.0\n"
                                                                for g in range(2, 200_000)) + "x\n"}},
                               ["resume", "plot"], "stats.csv"),
}


def _stored() -> list[str]:
    ids = []
    for folder in ("designs", "terrains", "neat_configs", "champions", "cards", "challenges"):
        ids += [f"{folder}/{p.name}" for p in sorted((HOSTILE / folder).iterdir()) if p.is_file()]
    ids += [f"runs/{p.name}" for p in sorted((HOSTILE / "runs").iterdir()) if p.is_dir()]
    return ids


#: the command a stored input of each kind goes through
KIND_COMMANDS = {"designs": ["validate"], "terrains": ["validate"], "neat_configs": ["neat"],
                 "champions": ["replay"], "cards": ["replay"], "challenges": ["challenges"]}
#: a few stored inputs also go through the other commands that read their kind
EXTRA_COMMANDS = {
    "designs/python_tag.yaml": ["simulate", "evolve"],
    "designs/billion_laughs.yaml": ["simulate", "evolve"],
    "designs/deep_5000.yaml": ["simulate", "evolve"],
    "designs/binary.yaml": ["simulate", "evolve"],
    "terrains/python_tag.yaml": ["evolve_terrain"],
    "terrains/billion_laughs.yaml": ["evolve_terrain"],
    "terrains/deep_5000.yaml": ["evolve_terrain"],
    "terrains/binary.yaml": ["evolve_terrain"],
    "champions/genome_cycle.patch.json": ["watch"],
    "champions/body_many_spheres.patch.json": ["watch"],
    "champions/deep_2000.json": ["watch"],
    "challenges/python_tag.yaml": ["challenge_verify", "evolve_challenge"],
    "challenges/billion_laughs.yaml": ["challenge_board"],
}
#: a file where a run directory is expected
FILE_AS_RUN = ["resume", "plot", "export"]


def _all_cases() -> list[str]:
    """``kind/name:command`` for every input and every command it goes through."""
    ids = []
    for case_id in _stored():
        if case_id.startswith("runs/"):
            commands = json.loads((HOSTILE / case_id / "case.json").read_text())["commands"]
        else:
            commands = KIND_COMMANDS[case_id.split("/")[0]] + EXTRA_COMMANDS.get(case_id, [])
        ids += [f"{case_id}:{c}" for c in commands]
    for case_id, (_, _, commands) in GENERATED.items():
        ids += [f"{case_id}:{c}" for c in commands]
    for case_id, (_, commands, _) in GENERATED_RUNS.items():
        ids += [f"{case_id}:{c}" for c in commands]
    ids += [f"file_as_run_directory:{c}" for c in FILE_AS_RUN]
    return ids


CASES = _all_cases()


# --- making the inputs ----------------------------------------------------------------------------

def _set_path(doc, dotted: str, value, extend: bool = False):
    keys = [int(k) if k.isdigit() else k for k in dotted.split(".")]
    node = doc
    for k in keys[:-1]:
        node = node[k]
    if extend:
        node[keys[-1]].extend(copy.deepcopy(value))
    else:
        node[keys[-1]] = value


def _value(v):
    """A patch value: ``{"$text": [piece, n]}`` is the piece n times (for texts too long to keep)."""
    if isinstance(v, dict) and set(v) == {"$text"}:
        return v["$text"][0] * v["$text"][1]
    return v


def patched_champion(patch: dict) -> str:
    """The walker champion with a patch of tests/hostile/champions/*.patch.json applied:
    ``set`` {dotted path: value}, ``append`` {path: [items]}, ``repeat`` {path: [item, n]}."""
    doc = json.loads(CHAMPION.read_text())
    for path, value in patch.get("set", {}).items():
        _set_path(doc, path, _value(value))
    for path, items in patch.get("append", {}).items():
        _set_path(doc, path, items, extend=True)
    for path, (item, n) in patch.get("repeat", {}).items():
        _set_path(doc, path, [item] * n, extend=True)
    return json.dumps(doc)


def damage_run(directory: Path, case: dict) -> None:
    """Apply a run case (tests/hostile/runs/*/case.json, or GENERATED_RUNS) to a copy of the base run."""
    for rel in case.get("remove", []):
        (directory / rel).unlink(missing_ok=True)
    for rel in case.get("mkdir", []):
        (directory / rel).unlink(missing_ok=True)
        (directory / rel).mkdir()
    for rel in case.get("truncate", []):
        data = (directory / rel).read_bytes()
        (directory / rel).write_bytes(data[: len(data) // 2])
    for rel, text in case.get("append", {}).items():
        with open(directory / rel, "a", encoding="utf-8", newline="") as f:
            f.write(text)
    for rel, changes in case.get("edit", {}).items():
        path = directory / rel
        if rel.endswith(".cfg"):
            text = path.read_text()
            for key, value in changes.items():
                text = re.sub(rf"^{key}\s*=.*$", f"{key} = {value}", text, flags=re.M)
            path.write_text(text)
            continue
        doc = json.loads(path.read_text())
        for dotted, value in changes.items():
            _set_path(doc, dotted, value)
        path.write_text(json.dumps(doc))
    for rel, changes in case.get("extend", {}).items():
        doc = json.loads((directory / rel).read_text())
        for dotted, items in changes.items():
            _set_path(doc, dotted, items, extend=True)
        (directory / rel).write_text(json.dumps(doc))


def _argv(command: str, file: Path, tmp: Path) -> list[str]:
    f = str(file)
    return {"validate": ["validate", f], "simulate": ["simulate", f, "--seconds", "1"],
            "evolve": ["evolve", f, *TINY_EVOLVE, "--out", str(tmp / "run")],
            "preview_validate": ["validate", f, "-q"],
            "evolve_terrain": ["evolve", "worm", "--terrain", f, *TINY_EVOLVE, "--out", str(tmp / "run")],
            "neat": ["evolve", "worm", "--neat-config", f, *TINY_EVOLVE, "--out", str(tmp / "run")],
            "replay": ["replay", f], "watch": ["watch", f],
            "challenges": ["challenges", f], "challenge_verify": ["challenge", "verify", f, str(CHAMPION)],
            "challenge_board": ["challenge", "board", f, str(REPO / "saves")],
            "evolve_challenge": ["evolve", "walker", "--challenge", f, *TINY_EVOLVE[:4], "--out", str(tmp / "run")]}[command]


def _base_run(directory: Path) -> None:
    from creatures.cli import main
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
        status = main([*BASE_RUN, "--out", str(directory)])
    assert status == 0, err.getvalue()


def prepare(root: Path) -> dict:
    """Every case's command line and what its one line must name: {case: (argv, [names])}."""
    base = root / "base-run"
    _base_run(base)
    prepared = {}
    for case in CASES:
        case_id, command = case.rsplit(":", 1)
        tmp = root / re.sub(r"[^\w.-]", "_", case)
        tmp.mkdir()
        if case_id == "file_as_run_directory":
            file = HOSTILE / "designs" / "binary.yaml"
            prepared[case] = ([a.format(dir=file, tmp=tmp) for a in RUN_COMMANDS[command]], [str(file)])
            continue
        if case_id.startswith("runs/"):
            directory = tmp / "run"
            shutil.copytree(base, directory)
            if case_id in GENERATED_RUNS:
                spec, _, names = GENERATED_RUNS[case_id]
            else:
                folder = HOSTILE / case_id
                spec = json.loads((folder / "case.json").read_text())
                names = spec.get("names", "")
                for path in folder.rglob("*"):
                    if path.is_file() and path.name != "case.json":
                        target = directory / path.relative_to(folder)
                        if target.is_dir():
                            shutil.rmtree(target)
                        target.parent.mkdir(parents=True, exist_ok=True)
                        target.write_bytes(path.read_bytes())
            damage_run(directory, spec)
            argv = [a.format(dir=directory, tmp=tmp) for a in RUN_COMMANDS[command]]
            prepared[case] = (argv, [str(directory)] + ([names] if names else []))
            continue
        if case_id in GENERATED:
            name, make, _ = GENERATED[case_id]
            file = tmp / name
            if make.__code__.co_argcount == 1:  # a change to the walker champion
                doc = json.loads(CHAMPION.read_text())
                make(doc)
                file.write_text(json.dumps(doc))
            else:
                file.write_text(make())
            prepared[case] = (_argv(command, file, tmp), [str(file)])
            continue
        file = HOSTILE / case_id
        if file.name.endswith(".patch.json"):
            patched = tmp / file.name.replace(".patch", "")
            patched.write_text(patched_champion(json.loads(file.read_text())))
            file = patched
        prepared[case] = (_argv(command, file, tmp), [str(file)])
    return prepared


# --- running them ---------------------------------------------------------------------------------

class _Timeout(BaseException):
    """Raised in a case that runs too long (BaseException: no command catches it)."""


def drive(cases_file: str, results_file: str) -> None:
    """Run each case's command line through ``creatures.cli.main`` in this process, writing
    {case: {status, stderr, stdout, seconds}} to ``results_file`` after each (so that a crash
    of the whole process still tells which case it was in)."""
    import signal
    import traceback

    from creatures.cli import main

    def alarm(*_):
        raise _Timeout()

    signal.signal(signal.SIGALRM, alarm)
    results = {}
    for case, argv in json.loads(Path(cases_file).read_text()):
        out, err = io.StringIO(), io.StringIO()
        started = time.perf_counter()
        signal.alarm(CASE_TIMEOUT)
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                status = main(argv)
        except SystemExit as exc:
            status = exc.code
        except _Timeout:
            status = f"took more than {CASE_TIMEOUT} s"
        except BaseException:  # noqa: BLE001 - what a case must never do, recorded
            status = "raised"
            err.write(traceback.format_exc())
        finally:
            signal.alarm(0)
        results[case] = {"status": status, "stderr": err.getvalue(), "stdout": out.getvalue()[-2000:],
                         "seconds": round(time.perf_counter() - started, 3)}
        Path(results_file).write_text(json.dumps(results))
    peak = [line.split()[1] for line in open("/proc/self/status") if line.startswith("VmPeak")]
    results["__vm_peak_kb__"] = int(peak[0]) if peak else None
    Path(results_file).write_text(json.dumps(results))


def _limit_memory():
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def _run_batch(root: Path):
    prepared = prepare(root)
    cases_file, results_file = root / "cases.json", root / "results.json"
    cases_file.write_text(json.dumps([[case, argv] for case, (argv, _) in prepared.items()]))
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "ARCADE_HEADLESS")}
    proc = subprocess.run([sys.executable, __file__, str(cases_file), str(results_file)], cwd=root,
                          env=env, capture_output=True, text=True, timeout=BATCH_TIMEOUT,
                          preexec_fn=_limit_memory if sys.platform.startswith("linux") else None)
    done = json.loads(results_file.read_text()) if results_file.exists() else {}
    assert proc.returncode == 0, (f"the batch stopped after {len(done)} cases (in the case after "
                                  f"{list(done)[-1:]}):\n{proc.stderr[-3000:]}")
    return prepared, done


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """The batch's results, run once per test session: pytest-xdist's workers each set up this
    module's fixtures, and the batch is 30-40 s, so the first worker runs it (under a lock) and
    the others read what it saved."""
    import fcntl
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker is None:
        return _run_batch(tmp_path_factory.mktemp("hostile"))
    shared = tmp_path_factory.getbasetemp().parent / "hostile-batch"  # this session's, all workers'
    shared.mkdir(exist_ok=True)
    with open(shared / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        saved = shared / "batch.json"
        if saved.exists():
            prepared, done = json.loads(saved.read_text())
            return {case: tuple(value) for case, value in prepared.items()}, done
        prepared, done = _run_batch(tmp_path_factory.mktemp("hostile"))
        saved.write_text(json.dumps([prepared, done]))
        return prepared, done


@pytest.mark.parametrize("case", CASES)
def test_hostile_input_is_refused_with_one_line(results, case):
    prepared, done = results
    argv, names = prepared[case]
    result = done[case]
    lines = result["stderr"].strip().splitlines()
    assert "Traceback" not in result["stderr"], result["stderr"]
    assert result["status"] == 2, f"creatures {' '.join(argv)[:300]}: status {result['status']}\n{result['stderr'][:2000]}"
    assert len(lines) == 1, result["stderr"][:3000]
    for name in names:
        assert name in lines[0], f"{name!r} not in {lines[0]!r}"
    assert result["seconds"] < CASE_TIMEOUT


def test_nothing_in_a_file_ran_code(results):
    """No tag, activation name or plug-in reference in any case ran anything."""
    prepared, _ = results
    for argv, _ in prepared.values():
        assert not (Path(argv[-1]).parent / "pwned.txt").exists()
    assert not (REPO / "pwned.txt").exists()


def test_the_batch_stayed_under_the_memory_cap(results):
    _, done = results
    peak = done.get("__vm_peak_kb__")
    assert peak is None or peak * 1024 < MEMORY_CAP


def test_many_problems_are_cut_to_a_few_lines(tmp_path, capsys):
    """validate prints every problem of a design, but no more than MAX_PROBLEMS of them: a file
    of 60 000 unknown keys says 20 and how many more there are (and takes no minute to say it)."""
    from creatures.cli import main
    from evolution.yamlread import MAX_PROBLEMS
    path = tmp_path / "keys.yaml"
    path.write_text("".join(f"key{k}: {k}\n" for k in range(60_000)))
    started = time.perf_counter()
    assert main(["validate", str(path)]) == 2
    assert time.perf_counter() - started < CASE_TIMEOUT
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == MAX_PROBLEMS + 1
    assert all(line.startswith(str(path)) for line in lines)
    assert lines[-1] == f"{path}: {60_000 + 2 - MAX_PROBLEMS} more problems not shown (fix these first)"


def test_the_readme_states_the_limits_as_they_are():
    """The documentation's paragraph on broken and hostile files (docs/extending.md) gives each limit
    its value in the code."""
    from creatures import charts
    from creatures.design import MAX_DESIGN_BYTES
    from evolution import champion, jsonread, limits, rundir, yamlread
    from evolution.genomes import MAX_NEAT_CONFIG_BYTES
    from evolution.terrains import MAX_TERRAIN_BYTES
    text = " ".join((REPO / "docs" / "extending.md").read_text().split("**When a file is broken or hostile**")[1]
                    .split("\n\n")[0].split())

    def size(n):
        return f"{n // 1_000_000} MB" if n >= 1_000_000 else f"{n // 1000} kB"

    def count(n):
        return f"{n:,}".replace(",", " ") if n < 1_000_000 else f"{n / 1_000_000:g} million"

    expected = [f"designs {size(MAX_DESIGN_BYTES)}", f"terrain files {size(MAX_TERRAIN_BYTES)}",
                f"neat configs {size(MAX_NEAT_CONFIG_BYTES)}", f"champions {size(champion.MAX_BYTES)}",
                f"JSON files {size(rundir.MAX_JSON_BYTES)}", f"CSV files {size(rundir.MAX_CSV_BYTES)}",
                f"checkpoint {size(rundir.MAX_CHECKPOINT_BYTES)}",
                f"nest {yamlread.MAX_DEPTH} and {jsonread.MAX_DEPTH} levels",
                f"at most a {count(yamlread.MAX_VALUES)} values" if yamlread.MAX_VALUES != 1_000_000
                else "at most a million values", f"at most {jsonread.MAX_DIGITS} digits",
                f"at most {limits.MAX_SPHERES} spheres, {limits.MAX_BONES} bones, {limits.MAX_JOINTS} "
                f"joints and {limits.MAX_CLUSTERS} clusters ({limits.MAX_CLUSTER_MEMBERS} spheres in all)",
                f"within {limits.MAX_COORDINATE / 1000:g} km", f"within 1e{len(str(int(limits.MAX_VALUE))) - 1}",
                f"population at most {limits.MAX_POPULATION} genomes and "
                f"{count(limits.MAX_GENERATION_GENES)} genes",
                f"at most {count(limits.MAX_GENOME_NODES)} nodes", "2^31 - 1",
                f"{count(limits.MAX_GENOME_CONNECTIONS)} connections",
                f"{limits.MIN_DT * 1000:g} ms to {limits.MAX_DT:g} s",
                f"at most {limits.MAX_SUBSTEPS} substeps and {limits.MAX_ITERATIONS} iterations",
                f"at most {count(limits.MAX_EPISODE_STEPS)} steps", f"at most {limits.MAX_WORKERS} workers",
                f"at most {charts.MAX_SPECIES} species", f"at most {limits.MAX_TEXT} printable",
                f"first {yamlread.MAX_PROBLEMS} problems"]
    assert limits.MAX_NODE_KEY == 2**31 - 1
    for phrase in expected:
        assert phrase in text, phrase


def test_every_kind_of_hostile_input_is_kept(results):
    """The folders of tests/hostile/ hold the kinds the README names, none of them empty."""
    for folder in ("designs", "terrains", "neat_configs", "champions", "runs"):
        assert any((HOSTILE / folder).iterdir()), folder


if __name__ == "__main__":
    drive(*sys.argv[1:3])

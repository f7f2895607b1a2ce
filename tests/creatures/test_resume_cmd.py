"""``creatures resume``: a run killed (kill -9) or stopped (Ctrl-C) part way resumes and ends
bit for bit as the run that was never stopped; Ctrl-C says how to resume; bad directories get a
one-line refusal."""

import csv
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from evolution.run import Run

REPO = Path(__file__).parents[2]


GENERATIONS = 6
ARGS = ("evolve", "worm", "--generations", GENERATIONS, "--population", 20, "--seconds", 1,
        "--seed", 3, "--workers", 2)
TIMING = ("eval_seconds", "creature_steps_per_s", "wall_seconds")


def _files(directory):
    """A run directory's files by relative path, stats.csv without its timing columns."""
    files = {str(p.relative_to(directory)): p.read_bytes()
             for p in sorted(directory.rglob("*")) if p.is_file()}
    rows = list(csv.reader(io.StringIO(files["stats.csv"].decode())))
    keep = [k for k, name in enumerate(rows[0]) if name not in TIMING]
    files["stats.csv"] = "\n".join(",".join(r[k] for k in keep) for r in rows).encode()
    return files


def _start(out):
    """``creatures evolve`` in its own process group (so a signal reaches its workers too, as
    Ctrl-C at a terminal does)."""
    return subprocess.Popen([sys.executable, "-m", "creatures", *map(str, ARGS), "--out", str(out)],
                            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def _read_until(proc, generation) -> list[str]:
    """The run's lines up to the one of ``generation``."""
    lines = []
    while True:
        line = proc.stdout.readline()
        assert line, f"the run ended early: {''.join(lines)} {proc.stderr.read()}"
        lines.append(line)
        if line.startswith(f"gen {generation:4d}"):
            return lines


def _stop_after(proc, generation, sig):
    """Send ``sig`` to the run's process group once it has printed ``generation``."""
    lines = _read_until(proc, generation)
    time.sleep(0.05)  # land somewhere in the next generation
    try:
        os.killpg(proc.pid, sig)
    except ProcessLookupError:
        pass  # the run has finished already (_interrupt tries again)
    out, err = proc.communicate(timeout=120)
    return "".join(lines) + out, err


def _interrupt(out, generation, sig):
    """A run stopped by ``sig`` once it has printed ``generation``: ``(proc, stdout, stderr)``.
    A generation of this small run takes tens of milliseconds, so on a loaded machine the run
    may have finished before the signal lands (it then ends 0 and says nothing of the signal);
    such an attempt is made again, on a clean directory, up to three times."""
    for _ in range(3):
        shutil.rmtree(out, ignore_errors=True)
        proc = _start(out)
        stdout, stderr = _stop_after(proc, generation, sig)
        if proc.returncode != 0:
            return proc, stdout, stderr
    pytest.fail("the run finished before the signal landed, three times")


@pytest.fixture(scope="module")
def straight(tmp_path_factory, ):
    out = tmp_path_factory.mktemp("straight") / "run"
    r = subprocess.run([sys.executable, "-m", "creatures", *map(str, ARGS), "--out", str(out)],
                       cwd=REPO, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    return out


def test_killed_run_resumes_to_the_straight_run_bit_for_bit(straight, tmp_path, run_creatures):
    out = tmp_path / "run"
    proc, _, _ = _interrupt(out, 3, signal.SIGKILL)
    assert proc.returncode == -signal.SIGKILL
    # (the checkpoint of generation 3 may still be on its way; the generation it keeps waiting for
    # its best's fresh starts has no files yet: evolution.run, Waiting)
    done = Run.open(out).generations_done
    assert 1 <= done < GENERATIONS
    r = run_creatures("resume", out)
    assert r.returncode == 0, r.stderr
    to_go = f"{GENERATIONS - done} generation{'s' if GENERATIONS - done != 1 else ''}"
    assert r.stdout.startswith(f"resuming worm (run, seed 3) in {out} after generation {done}: "
                               f"{to_go} to go, to {GENERATIONS}")
    assert [ln for ln in r.stdout.splitlines() if ln.startswith("gen ")][0].startswith(f"gen {done + 1:4d}")
    assert _files(out) == _files(straight)


def test_ctrl_c_stops_cleanly_says_how_to_resume_and_resume_finishes_the_run(straight, tmp_path, run_creatures):
    out = tmp_path / "run"
    proc, stdout, stderr = _interrupt(out, 2, signal.SIGINT)
    assert proc.returncode == 130
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr
    lines = stderr.strip().splitlines()
    assert lines[-2].startswith("stopped after generation ") and f"saved in {out}" in lines[-2]
    assert lines[-1] == f"to go on: creatures resume {out}"
    r = run_creatures("resume", out)
    assert r.returncode == 0, r.stderr
    assert _files(out) == _files(straight)


def test_resume_takes_a_finished_run_further(straight, tmp_path, run_creatures):
    out = tmp_path / "run"
    args = [a if a != GENERATIONS else 4 for a in ARGS]
    assert run_creatures(*args, "--out", out).returncode == 0
    r = run_creatures("resume", out)
    assert r.returncode == 2
    assert r.stderr == ("creatures resume: the run has finished its 4 generations; take it further "
                        "with --generations 14, say\n")
    r = run_creatures("resume", out, "--generations", GENERATIONS, "--workers", 1)
    assert r.returncode == 0, r.stderr
    assert _files(out) == _files(straight)
    r = run_creatures("resume", out, "--generations", 2)
    assert r.returncode == 2
    assert r.stderr == (f"creatures resume: the run already has {GENERATIONS} generations; "
                        f"--generations must be at least that\n")


@pytest.mark.parametrize("make, message", [
    (lambda d: None, "is not a directory"),
    (lambda d: d.mkdir(), "is not a run directory (no settings.json, body.json, neat.cfg, stats.csv, species.csv)"),
])
def test_resume_refuses_what_is_not_a_run_in_one_line(tmp_path, run_creatures, make, message):
    target = tmp_path / "x"
    make(target)
    r = run_creatures("resume", target)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and message in r.stderr and "Traceback" not in r.stderr


def test_resume_with_a_damaged_checkpoint_says_so_in_one_line(straight, tmp_path, run_creatures):
    out = tmp_path / "run"
    import shutil
    shutil.copytree(straight, out)
    (out / "checkpoint.json").write_text('{"format": "creatures-checkpoint", "version": 1, "generation": 2}')
    r = run_creatures("resume", out, "--generations", GENERATIONS + 1)
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "checkpoint.json: the checkpoint is damaged" in r.stderr
    assert "Traceback" not in r.stderr


def _living(group: int) -> list[int]:
    """The processes of process group ``group`` still alive (not zombies: a dead child nobody
    waited for is not a process left behind)."""
    alive = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == group and fields[0] != "Z":   # state, ppid, pgrp
            alive.append(int(stat.parent.name))
    return alive


def _all_gone(group: int, seconds: float = 10.0) -> list[int]:
    end = time.monotonic() + seconds
    while _living(group) and time.monotonic() < end:
        time.sleep(0.1)
    return _living(group)


def _run_until(out, generation):
    proc = _start(out)
    _read_until(proc, generation)
    return proc


needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")


@needs_proc
def test_kill_stops_like_ctrl_c_and_leaves_no_process_behind(straight, tmp_path, run_creatures):
    out = tmp_path / "run"
    proc = _run_until(out, 2)
    proc.send_signal(signal.SIGTERM)                 # `kill PID`: the main process alone
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode in (143, 0), stderr       # 0: it had finished before the signal landed
    assert not _all_gone(proc.pid), "workers left behind"
    if proc.returncode == 143:
        assert "Traceback" not in stderr
        lines = stderr.strip().splitlines()
        assert lines[-2].startswith("stopped after generation ") and lines[-1] == f"to go on: creatures resume {out}"
        r = run_creatures("resume", out)
        assert r.returncode == 0, r.stderr
        assert _files(out) == _files(straight)


@needs_proc
def test_a_fast_double_ctrl_c_stops_cleanly_every_time(tmp_path):
    """Ctrl-C to the run, then to its whole process group 0-0.1 s later (``timeout -s INT``, an
    impatient user): it stops within seconds, says how to go on, and leaves no process."""
    for k, gap in enumerate((0.0, 0.02, 0.05, 0.1)):
        out = tmp_path / f"run{k}"
        proc = _run_until(out, 2)
        proc.send_signal(signal.SIGINT)
        time.sleep(gap)
        try:
            os.killpg(proc.pid, signal.SIGINT)
        except ProcessLookupError:
            pass
        _, stderr = proc.communicate(timeout=60)      # a hang fails here
        assert proc.returncode in (130, 0) and "Traceback" not in stderr, stderr
        assert not _all_gone(proc.pid), f"left behind after a gap of {gap} s"


@needs_proc
def test_a_run_killed_outright_takes_its_workers_with_it(tmp_path):
    proc = _run_until(tmp_path / "run", 2)
    proc.kill()                                       # kill -9 of the main process alone
    proc.communicate(timeout=60)
    assert not _all_gone(proc.pid), "workers outlived their run"

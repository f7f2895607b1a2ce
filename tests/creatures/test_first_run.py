"""A first run explains itself: before a generation that compiles numba's kernels (a cold cache:
the first run, or sources changed), ``creatures evolve`` says so, and on a terminal counts the
seconds in place of a progress bar stuck at 0 %; piped, it prints plain lines only."""

import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from creatures import kernels
from creatures.cli import evolve
from creatures.kernels import COMPILING, cached

REPO = Path(__file__).parents[2]

SOURCES = [*REPO.joinpath("physics").glob("*.py"), *REPO.joinpath("evolution").glob("*.py")]


def _newest_source() -> float:
    return max(p.stat().st_mtime for p in SOURCES)


# --- the detection ----------------------------------------------------------------------------------

def _fake_kernel(tmp_path, index_age: float | None):
    """A stand-in for a caching numba function: a source file, and its index ``index_age``
    seconds newer (negative: older; None: no index)."""
    source = tmp_path / "kernel.py"
    source.write_text("def f(): pass\n")
    index = tmp_path / "__pycache__" / "kernel.f-1.py311.nbi"
    if index_age is not None:
        index.parent.mkdir()
        index.write_bytes(b"")
        t = source.stat().st_mtime + index_age
        os.utime(index, (t, t))
    code = compile(source.read_text(), str(source), "exec")
    namespace = {}
    exec(code, namespace)
    return SimpleNamespace(py_func=namespace["f"],
                           _cache=SimpleNamespace(_cache_file=SimpleNamespace(_index_path=str(index))))


@pytest.mark.parametrize("age, expected", [(None, False), (-10.0, False), (0.0, True), (10.0, True)])
def test_a_kernel_is_cached_when_its_index_is_there_and_not_older_than_its_source(tmp_path, age, expected):
    assert cached(_fake_kernel(tmp_path, age)) is expected


def test_a_function_numba_does_not_cache_is_not_counted():
    assert cached(len) is None
    assert cached(SimpleNamespace(py_func=len, _cache=SimpleNamespace())) is None


def test_the_kernels_checked_are_the_workers_own():
    names = {k.py_func.__name__ for k in kernels.dispatchers()}
    assert names == {"_rollout_serial", "_run_steps", "_after_step"}   # (the episode's loop steps the networks)
    assert {k.py_func.__name__ for k in kernels.dispatchers(solver="witkin")} == {"_witkin_serial", "_step_networks",
                                                                                 "_after_step"}
    assert {k.py_func.__name__ for k in kernels.dispatchers(contacts="dem")} >= {"_pbd_dem_serial"}


def test_an_empty_numba_cache_means_compiling(tmp_path):
    r = subprocess.run([sys.executable, "-c", "import evolution; evolution.prepare_process(); "
                        "from creatures.kernels import kernels_to_compile; print(kernels_to_compile())"],
                       cwd=REPO, capture_output=True, text=True, timeout=120,
                       env={**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")})
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "True"


def _cache_dirs(env) -> list[Path]:
    """Where numba keeps physics' and evolution's kernels in a process with ``env``."""
    code = ("import sys; from physics.kernel_cache import numba_cache_dir; "
            "[print(numba_cache_dir(p)) for p in sys.argv[1:]]")
    r = subprocess.run([sys.executable, "-c", code, str(REPO / "physics"), str(REPO / "evolution")],
                       cwd=REPO, env=env, capture_output=True, text=True, timeout=120, check=True)
    return [Path(line) for line in r.stdout.splitlines()]


def test_the_first_run_says_it_compiles_and_the_next_one_does_not(tmp_path):
    """End to end, on a cache of its own that holds physics' kernels but not evolution's (as
    after an edit of evolution; an empty cache would compile for two minutes, and the
    detection of one is tested above): the first run compiles, the next one does not."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    physics_cache, _ = _cache_dirs(os.environ)
    own_physics, own_evolution = _cache_dirs(env)
    shutil.copytree(physics_cache, own_physics, ignore=shutil.ignore_patterns("*.pyc"), dirs_exist_ok=True)
    assert any(own_physics.glob("*.nbi")) and not any(own_evolution.glob("*.nbi"))
    args = [sys.executable, "-m", "creatures", "evolve", "walker", "--generations", "1",
            "--population", "4", "--seconds", "0.2", "--workers", "1"]
    before = _newest_source()
    first = subprocess.run([*args, "--out", str(tmp_path / "one")], cwd=REPO, env=env,
                           capture_output=True, text=True, timeout=900)
    assert first.returncode == 0, first.stderr
    lines = first.stdout.splitlines()
    # the physics' cache was kept: the episode's loop and its rules compile, and it says so
    assert lines[0].startswith("evolving walker") and lines[1] == COMPILING + ": the episode's loop, the episode's rules"
    assert lines[2] == evolve.MEDIAN_NOTE and lines[3].startswith("gen    1")
    second = subprocess.run([*args, "--out", str(tmp_path / "two")], cwd=REPO, env=env,
                            capture_output=True, text=True, timeout=900)
    assert second.returncode == 0, second.stderr
    if _newest_source() != before:
        pytest.skip("the sources changed while the test ran: the second run compiled again, rightly")
    assert COMPILING not in second.stdout
    assert second.stdout.splitlines()[2].startswith("gen    1")


# --- what drive prints --------------------------------------------------------------------------------

class _FakeRun:
    """What :func:`creatures.cli.evolve.drive` uses of a Run: one generation whose evaluation reports
    no progress for ``stuck`` (fake) seconds, then finishes."""

    def __init__(self, clock, stuck: float, **stats):
        self.clock, self.stuck, self.stats = clock, stuck, stats
        self.settings = SimpleNamespace(generations=1, sim={}, network="feedforward", design_name="walker",
                                        task="run", backend="local")
        self.episode = SimpleNamespace(task=SimpleNamespace(sample=SimpleNamespace(measures="metres")))
        self.history = []
        self.generations_done = 0

    def evolve(self, on_generation, on_progress):
        for _ in range(int(self.stuck * 10)):
            self.clock[0] += 0.1
            on_progress(0, 100)
        on_progress(50, 100)
        on_progress(100, 100)
        stats = SimpleNamespace(**{"generation": 1, "best": 1.0, "median": 0.5, "ok_median": 0.5, "species": 1,
                                   "failed": 0, "eval_seconds": self.stuck, "wall_seconds": self.stuck,
                                   "post_mean": 0.9, "post_worst": 0.8, "post_sd": 0.1, "warnings": [], **self.stats})
        self.history.append(stats)
        on_generation(stats)


@pytest.fixture
def fake_clock(monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(evolve.time, "perf_counter", lambda: clock[0])
    return clock


@pytest.mark.parametrize("tty", [False, True])
def test_a_first_generation_stuck_at_0_percent_says_it_compiles_once(monkeypatch, capsys, fake_clock, tty, tmp_path):
    monkeypatch.setattr(evolve, "kernels_to_compile", lambda *a: False)   # not foreseen
    monkeypatch.setattr(sys.stdout, "isatty", lambda: tty)
    assert evolve.drive(_FakeRun(fake_clock, stuck=8.0), tmp_path / "run") == 0
    out = capsys.readouterr().out
    assert out.count(COMPILING) == 1
    if tty:
        assert "\r  compiling: 6 s" in out and "\r  compiling: 8 s" in out   # counting
        assert "\r  [###############...............]  50.0 %" in out
    else:
        assert "\r" not in out and "[" not in out
        assert out.splitlines()[0] == COMPILING
        assert out.splitlines()[2].startswith("gen    1")


@pytest.mark.parametrize("tty", [False, True])
def test_a_foreseen_compile_is_said_before_the_first_generation(monkeypatch, capsys, fake_clock, tty, tmp_path):
    monkeypatch.setattr(evolve, "kernels_to_compile", lambda *a: True)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: tty)
    assert evolve.drive(_FakeRun(fake_clock, stuck=2.0), tmp_path / "run") == 0
    out = capsys.readouterr().out
    assert out.startswith(COMPILING + "\n")
    assert out.count(COMPILING) == 1
    assert ("\r  compiling: 1 s" in out) is tty


def test_piped_a_long_compile_says_what_compiles_and_that_it_still_does(monkeypatch, capsys, fake_clock, tmp_path):
    monkeypatch.setattr(evolve, "kernels_to_compile", lambda *a: True)
    monkeypatch.setattr(evolve, "kernels_missing", lambda *a: ["the physics step", "the networks"])
    monkeypatch.setattr(sys.stdout, "isatty", lambda: False)
    assert evolve.drive(_FakeRun(fake_clock, stuck=65.0), tmp_path / "run") == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == COMPILING + ": the physics step, the networks"
    assert [ln for ln in lines if ln.startswith("  still compiling: ")] == ["  still compiling: 30 s",
                                                                           "  still compiling: 60 s"]


def test_a_quick_first_generation_says_nothing_about_compiling(monkeypatch, capsys, fake_clock, tmp_path):
    monkeypatch.setattr(evolve, "kernels_to_compile", lambda *a: False)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert evolve.drive(_FakeRun(fake_clock, stuck=1.0), tmp_path / "run") == 0
    out = capsys.readouterr().out
    assert "compiling" not in out
    assert "\r  [..............................]   0.0 %" in out
    # the bar is wiped before the generation's line: nothing of it is left on that line
    gen = next(line for line in out.split("\n") if "gen    1" in line)
    assert gen.split("\r")[-1].startswith("gen    1")


def test_the_generation_lines_median_is_of_the_creatures_that_did_not_fail(monkeypatch, capsys, fake_clock, tmp_path):
    """Half a generation failing (-1000 each) puts the plain median at -500: the line shows the
    median of the others, and a line above the first says so."""
    monkeypatch.setattr(evolve, "kernels_to_compile", lambda *a: False)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: False)
    run_ = _FakeRun(fake_clock, stuck=0.1, median=-500.0, ok_median=2.25, failed=75)
    assert evolve.drive(run_, tmp_path / "run") == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == evolve.MEDIAN_NOTE and "did not fail" in lines[0]
    assert lines[1].startswith("gen    1  best    1.000  fresh    0.900  median    2.250  species   1, 75 failed")

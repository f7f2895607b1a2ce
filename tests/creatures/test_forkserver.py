"""The suite's ``run_creatures`` (:mod:`forkserver`) gives what a fresh ``python -m creatures``
gives: the same output, errors and exit status, from the same working directory."""

import subprocess
import sys
from pathlib import Path

import pytest

from forkserver import ForkServer

REPO = Path(__file__).parents[2]


@pytest.fixture(scope="module")
def server():
    s = ForkServer(REPO)
    assert s.alive
    yield s
    s.close()


def _fresh(argv, cwd=REPO):
    return subprocess.run([sys.executable, "-m", "creatures", *map(str, argv)], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("argv", [["--help"], ["validate", "walker"], ["evolev"], ["designs", "walker", "--json"],
                                  ["simulate", "worm", "--seconds", "0.5"]])
def test_a_forked_command_is_a_fresh_interpreters_command(server, argv):
    forked, fresh = server.run(argv), _fresh(argv)
    assert (forked.returncode, forked.stdout, forked.stderr) == (fresh.returncode, fresh.stdout, fresh.stderr)


def test_the_working_directory_is_the_commands(server, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("spheres:\n  - {x: 0, y: 1, radius: oops}\n")
    forked, fresh = server.run(["validate", "bad.yaml"], cwd=tmp_path), _fresh(["validate", "bad.yaml"], tmp_path)
    assert forked.returncode == fresh.returncode == 2
    assert forked.stderr == fresh.stderr and "bad.yaml:2:" in forked.stderr


def test_a_changed_environment_runs_a_fresh_interpreter(server, monkeypatch):
    wide = server.run(["--help"]).stdout
    monkeypatch.setenv("COLUMNS", "50")            # argparse wraps its help to the terminal's width
    forked, fresh = server.run(["--help"]), _fresh(["--help"])
    assert forked.stdout == fresh.stdout != wide


def test_a_command_past_its_timeout_is_killed(server):
    with pytest.raises(subprocess.TimeoutExpired):
        server.run(["simulate", "walker", "--seconds", "1000"], timeout=1)
    assert server.run(["validate", "walker"]).returncode == 0       # the server goes on


def test_a_server_that_died_leaves_fresh_interpreters():
    s = ForkServer(REPO)
    s.server.kill()
    s.server.wait()
    r = s.run(["validate", "walker"])
    assert r.returncode == 0 and not s.alive
    s.close()

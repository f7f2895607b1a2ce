"""Shared fixtures for the creatures tests."""

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).parents[2]


@pytest.fixture(scope="session")
def run_creatures():
    """Run ``python -m creatures ARGS...`` in a fresh interpreter from the repository's root, as a
    user would; returns the CompletedProcess with text stdout and stderr."""

    def run(*args, timeout=300):
        return subprocess.run([sys.executable, "-m", "creatures", *map(str, args)], cwd=REPO,
                              capture_output=True, text=True, timeout=timeout)

    return run


@pytest.fixture(scope="session")
def evolved_run(tmp_path_factory):
    """The directory of a finished run of 4 generations whose body evolved
    (:func:`evolving_helpers.make_evolving_run`; do not change it)."""
    from evolving_helpers import make_evolving_run
    directory = tmp_path_factory.mktemp("evolved") / "run"
    make_evolving_run(directory)
    return directory

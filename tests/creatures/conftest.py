"""Shared fixtures for the creatures tests."""

from pathlib import Path

import pytest

REPO = Path(__file__).parents[2]


@pytest.fixture(scope="session")
def run_creatures():
    """Run ``python -m creatures ARGS...`` in a process of its own from the repository's root (or
    ``cwd``), as a user would; returns the CompletedProcess with text stdout and stderr. The
    process is forked from one that has done a fresh interpreter's imports (:mod:`forkserver`):
    the same command line, the same modules, without their 1.7 s a command."""
    from forkserver import ForkServer
    server = ForkServer(REPO)

    def run(*args, cwd=REPO, timeout=300):
        return server.run(args, cwd=cwd, timeout=timeout)

    yield run
    server.close()


@pytest.fixture(scope="session")
def evolved_run(tmp_path_factory):
    """The directory of a finished run of 4 generations whose body evolved
    (:func:`evolving_helpers.make_evolving_run`; do not change it)."""
    from evolving_helpers import make_evolving_run
    directory = tmp_path_factory.mktemp("evolved") / "run"
    make_evolving_run(directory)
    return directory

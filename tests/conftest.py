"""Readies the test process as the ``creatures`` command readies its own, before any test module is
imported: ``OMP_WAIT_POLICY``, and numba's caches of ``physics`` and ``evolution`` cleared if
their sources changed (otherwise, after an edit of physics, the tests would run the kernels
compiled from the old sources). Importing the packages no longer does it. Then, once, before
the tests start, the kernels are compiled into numba's cache if they are not there (a fresh
clone), so that the test processes do not all compile them at once."""

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import evolution

evolution.prepare_process()

# Ctrl-C as at a terminal: a test runner started in the background of a non-interactive shell
# (a shell's ``&``) has SIGINT ignored, and every process the tests start would inherit that
# (the tests of Ctrl-C, of pausing the play window and of a killed window send it SIGINT)
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


#: the project's packages, whose bytecode every process the tests start would compile again where
#: Python writes none (PYTHONDONTWRITEBYTECODE)
PACKAGES = ("creatures", "evolution", "physics", "render")


def pytest_sessionstart(session):
    """Byte-compile the project, then warm numba's cache, in one process per kernel family
    (tests/warm_kernels.py), before pytest-xdist starts its workers (its own hook runs last)."""
    if hasattr(session.config, "workerinput"):  # an xdist worker: the controller did it
        return
    if session.config.getoption("collectonly", False):
        return
    _compile_sources()
    from creatures.kernels import kernels_to_compile
    if not any(kernels_to_compile(sim) for sim in ({}, {"solver": "witkin"}, {"contacts": "dem"})):
        return  # warm already
    warm = Path(__file__).with_name("warm_kernels.py")
    families = ("physics", "solvers")
    logs = [tempfile.TemporaryFile("w+") for _ in families]
    # (each in a session of its own, with the runs it starts, so that it can be stopped whole)
    procs = [subprocess.Popen([sys.executable, str(warm), family], stdout=subprocess.DEVNULL, stderr=log,
                              start_new_session=True) for family, log in zip(families, logs)]
    killed = set()
    try:
        while True:
            codes = [proc.poll() for proc in procs]
            if None not in codes or any(code not in (None, 0) for code in codes):
                break
            time.sleep(0.25)
    finally:
        # one family failed (the other may be waiting for what it compiles), or the session was
        # stopped (Ctrl-C, an error): the others with it, and what they started
        for family, proc in zip(families, procs):
            if proc.poll() is None:
                killed.add(family)
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    # (a family that fails stops the session with its error: when both failed at their first
    # line, silently, the tests compiled every kernel themselves, both workers at once)
    failed = []
    for family, proc, log in zip(families, procs, logs):
        if proc.returncode != 0 and family not in killed:
            log.seek(0)
            failed.append(f"tests/warm_kernels.py {family} failed:\n{log.read().strip()[-2000:]}")
        log.close()
    if failed:
        import pytest
        pytest.exit("\n".join(failed), returncode=1)


def _compile_sources():
    """Where Python is told not to write bytecode (``PYTHONDONTWRITEBYTECODE``, as in many CI and
    container images), every process a test starts (a ``creatures`` command, a run's evaluation
    workers, the warm-up's families) compiled the project's ~150 modules from source again, about
    0.3 s each (the 2-core Zen 3 machine); compiled once here (~1 s), they load from
    ``__pycache__`` as wherever Python writes it itself. Nothing else changes: a source newer than
    its bytecode is compiled again, as always (and bytecode up to date is left as it is)."""
    import compileall
    root = Path(__file__).resolve().parents[1]
    for package in PACKAGES:
        compileall.compile_dir(root / package, quiet=2)

"""The warm-up that compiles numba's kernels before the tests start (tests/warm_kernels.py, run by
tests/conftest.py as a script, one process per family) imports the project's packages, not the
tests' folders of the same names: as a script its own folder comes first on Python's path, and
there ``evolution/`` and ``physics/`` are the tests' (namespace packages with nothing in them).
Both families failed so at their first line, silently, and a fresh clone's tests compiled every
kernel themselves."""

import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_the_warm_up_run_as_a_script_imports_the_projects_packages():
    run = subprocess.run([sys.executable, str(TESTS / "warm_kernels.py"), "where"],
                         capture_output=True, text=True, timeout=120, cwd=TESTS)
    assert run.returncode == 0, run.stderr
    root = TESTS.parent
    assert run.stdout.split() == [str(root / "evolution" / "__init__.py"), str(root / "physics" / "__init__.py")]


def test_the_session_leaves_the_projects_bytecode_compiled(request):
    """tests/conftest.py compiles the project's modules, also where Python writes no bytecode
    itself (PYTHONDONTWRITEBYTECODE): every process the tests start loads them compiled."""
    import importlib.util
    conftest = request.config.pluginmanager.get_plugin(str(TESTS / "conftest.py"))  # (its own name is ambiguous)
    for package in conftest.PACKAGES:
        for source in (TESTS.parent / package).rglob("*.py"):
            cached = Path(importlib.util.cache_from_source(str(source)))
            assert cached.is_file() and cached.stat().st_mtime >= source.stat().st_mtime, source

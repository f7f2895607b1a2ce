"""Importing physics changes nothing outside it; physics.prepare_process sets OMP_WAIT_POLICY and
keeps numba's on-disk caches in step with every source their kernels were compiled from."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import physics
from physics.kernel_cache import STAMP_NAME, clear_stale_cache, numba_cache_dir, sources_digest

PHYSICS = Path(physics.__file__).parent


def _package(root: Path, name: str) -> Path:
    """A package directory with one source."""
    pkg = root / name
    pkg.mkdir(parents=True)
    (pkg / "mod.py").write_text("X = 1\n")
    return pkg


def _plant(pkg: Path) -> Path:
    """A numba cache file of ``pkg``, where numba would put it (its __pycache__ by default)."""
    f = numba_cache_dir(pkg) / "mod.kernel-1.py311.nbi"
    f.write_bytes(b"compiled")
    return f


def test_a_package_that_inlines_physics_is_cleared_when_either_changes(tmp_path):
    """Each package's cache is cleared when its own sources change, and an inlining package's
    (evolution's) also when physics' do; an unchanged one is left alone."""
    phys, evo = _package(tmp_path, "phys"), _package(tmp_path, "evo")
    assert clear_stale_cache(phys) and clear_stale_cache(evo, inlines=(phys,))  # no stamp yet
    in_phys, in_evo = _plant(phys), _plant(evo)
    assert not clear_stale_cache(phys) and not clear_stale_cache(evo, inlines=(phys,))
    assert in_phys.exists() and in_evo.exists()

    (phys / "mod.py").write_text("X = 2\n")          # physics edited: both stale
    assert clear_stale_cache(phys) and clear_stale_cache(evo, inlines=(phys,))
    assert not in_phys.exists() and not in_evo.exists()
    assert (numba_cache_dir(evo) / STAMP_NAME).read_text() == sources_digest(evo, phys)

    in_phys, in_evo = _plant(phys), _plant(evo)
    (evo / "extra.py").write_text("Y = 1\n")         # evolution edited: only its own
    assert not clear_stale_cache(phys) and clear_stale_cache(evo, inlines=(phys,))
    assert in_phys.exists() and not in_evo.exists()


def _python(code: str, cwd: Path) -> str:
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    env["PYTHONPATH"] = str(cwd)
    r = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_importing_physics_changes_nothing_and_prepare_process_readies_the_process(tmp_path):
    """A copy of physics with a stale cache: importing it leaves the environment and the cache
    files as they were; prepare_process sets OMP_WAIT_POLICY (unless set) and clears the cache."""
    shutil.copytree(PHYSICS, tmp_path / "physics", ignore=shutil.ignore_patterns("__pycache__"))
    planted = _plant(tmp_path / "physics")
    (planted.parent / STAMP_NAME).write_text("stale")
    show = "print(physics.__file__, os.environ.get('OMP_WAIT_POLICY'))"

    where, policy = _python("import os, physics; " + show, tmp_path).split()
    assert Path(where).parent == tmp_path / "physics"
    assert policy == "None" and planted.exists()

    assert _python("import os, physics; physics.prepare_process(); " + show, tmp_path).split()[1] == "passive"
    assert not planted.exists()
    assert (planted.parent / STAMP_NAME).read_text() == sources_digest(tmp_path / "physics")
    kept = "import os; os.environ['OMP_WAIT_POLICY'] = 'active'; import physics; physics.prepare_process(); "
    assert _python(kept + "print(os.environ['OMP_WAIT_POLICY'])", tmp_path) == "active"

"""A plain install (``pip install .``, not editable) is a whole program: its wheel holds every
shipped champion, and ``creatures`` run from a fresh venv with that wheel in it replays one by
name, reading it from the install (not from this clone).

Offline and without copying the dependencies: the wheel is built with the setuptools this venv
has (``--no-build-isolation``; the ``test`` extra asks for a recent enough one), installed with
``--no-deps`` into a venv made without pip, and that venv sees this one's packages through a
``.pth`` line naming their folder. Such a line only adds the folder to ``sys.path`` (the ``.pth``
files in it are not run), so this clone's editable install stays out of the fresh venv.
"""

import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
#: what a wheel is built from: pyproject.toml names the packages, README.md is its readme
SOURCES = ("pyproject.toml", "README.md", "creatures", "evolution", "physics", "render", "saves")


def _run(argv, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=600, **kwargs)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel of this clone, built from a copy of it (a build writes build/ and egg-info
    folders where it builds: not in the clone, where others are working)."""
    root = tmp_path_factory.mktemp("wheel")
    source = root / "source"
    source.mkdir()
    for name in SOURCES:
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, source / name,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(REPO / name, source / name)
    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                  "--no-index", "--wheel-dir", root / "dist", source])
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    (path,) = (root / "dist").glob("creatures-*.whl")
    return path


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    """A fresh venv with the wheel installed in it (and this venv's packages on its path): its
    ``bin`` folder."""
    env_dir = tmp_path_factory.mktemp("fresh") / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    done = _run([sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index",
                 wheel])
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    purelib = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    site = Path(_run([python, "-c", purelib]).stdout.strip())
    (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return env_dir / "bin"


def test_the_wheel_holds_every_shipped_champion_and_not_the_readmes_pictures(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    shipped = sorted(p.name for p in (REPO / "saves").glob("*.json"))
    in_wheel = sorted(n.removeprefix("saves/") for n in names if n.startswith("saves/"))
    assert shipped and in_wheel == shipped
    assert not [n for n in names if n.endswith((".gif", ".png"))]
    challenges = sorted(p.name for p in (REPO / "creatures" / "challenges").glob("*.yaml"))
    assert len(challenges) == 3 and challenges == sorted(n.removeprefix("creatures/challenges/") for n in names
                                                         if n.startswith("creatures/challenges/"))


def test_a_plain_install_finds_its_shipped_champions_by_name(installed, tmp_path):
    """The installed ``creatures`` runs from the install, and a shipped champion named as
    ``creatures replay NAME`` names it (creatures.shipped.champion_path) is the install's copy.
    (Replaying it there would compile every kernel again for the new install's cache, a minute
    of CI; tests/creatures/test_shipped.py replays a shipped champion by name.)"""
    where = _run([installed / "python", "-c", "import creatures; print(creatures.__file__)"], cwd=tmp_path)
    assert where.returncode == 0, where.stderr
    assert Path(where.stdout.strip()).is_relative_to(installed.parent), "it ran this clone's code"
    listed = _run([installed / "creatures", "designs"], cwd=tmp_path)
    assert listed.returncode == 0 and "hopper" in listed.stdout, listed.stderr[-3000:]
    listed = _run([installed / "creatures", "challenges"], cwd=tmp_path)
    assert listed.returncode == 0 and listed.stdout.startswith("sprint: "), listed.stderr[-3000:]
    found = _run([installed / "python", "-c", "from creatures.shipped import champion_path; "
                  "print(champion_path('hopper-jump'))"], cwd=tmp_path)
    assert found.returncode == 0, found.stderr[-3000:]
    path = Path(found.stdout.strip())
    assert path.is_relative_to(installed.parent)      # read from the install
    assert path.read_bytes() == (REPO / "saves" / "hopper-jump.json").read_bytes()

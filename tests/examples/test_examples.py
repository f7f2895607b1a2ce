"""Every example runs, as a user runs it: copied into a temporary folder (so nothing inside the
package is needed or touched) and started with ``--smoke`` for a couple of small generations."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).parents[2] / "examples"


@pytest.fixture
def folder(tmp_path):
    """The examples, copied into a folder of their own."""
    target = tmp_path / "mine"
    shutil.copytree(EXAMPLES, target, ignore=shutil.ignore_patterns("__pycache__", "*.png"))
    return target


def _run(folder, *args, timeout=120):
    r = subprocess.run([sys.executable, *map(str, args)], cwd=folder, capture_output=True, text=True,
                       timeout=timeout)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Traceback" not in r.stderr
    return r.stdout


def test_every_example_has_a_docstring_and_a_smoke_run():
    for path in EXAMPLES.glob("*.py"):
        text = path.read_text()
        assert text.startswith('"""'), path.name
        assert "--smoke" in text, path.name


def test_the_flag_task_evolves_from_a_folder_of_its_own(folder):
    out = _run(folder, "flag_task.py", "--smoke", "--out", "run")
    assert out.startswith("evolving walker (21 inputs, 6 muscles) to flag_task.py:ReachFlag on flat ground")
    assert "fitness is metres closer to the flag" in out
    settings = json.loads((folder / "run" / "settings.json").read_text())
    assert settings["plugins"]["task"]["location"] == str((folder / "flag_task.py").resolve())


def test_the_flag_sensor_adds_two_inputs(folder):
    out = _run(folder, "flag_sensor.py", "--smoke", "--out", "run")
    assert out.startswith("evolving walker (23 inputs, 6 muscles) to flag_task.py:ReachFlag")
    assert "flag_sensor.py:FlagSensor" in out.splitlines()[0]


def test_the_hilly_course_is_a_terrain_file(folder):
    out = _run(folder, "hilly_course.py", "--smoke", "--out", "run")
    assert out.startswith("hilly_wall.yaml: hilly wall,")
    assert "to run on hilly wall ground, sensors clock, muscles, joints, contacts, tilt, height, velocity, rays" in out
    terrain = json.loads((folder / "run" / "terrain.json").read_text())
    assert terrain["kind"] == "hilly wall" and max(terrain["ys"]) > 0.25


def test_the_engine_alone_plots_the_centre_of_mass(folder):
    out = _run(folder, "engine_only.py", "--smoke", "--out", "com.png")
    assert out.splitlines()[-1] == "chart: com.png"
    assert (folder / "com.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_gym_loop_drives_one_walker_and_a_batch(folder):
    out = _run(folder, "gym_loop.py", "--smoke").splitlines()
    assert out[0].startswith("one walker, a hand-made gait:") and "observation (21,), action (6,)" in out[0]
    assert out[1].startswith("16 walkers in one vector env:")


def test_ppo_runs_when_stable_baselines3_is_installed_and_is_skipped_cleanly_when_not(folder):
    import importlib.util
    out = _run(folder, "gym_loop.py", "--smoke", "--ppo", timeout=300).splitlines()
    if importlib.util.find_spec("stable_baselines3") is None:
        assert out[-1] == "PPO skipped: stable-baselines3 is not installed (pip install 'creatures[rl]')"
    else:
        assert out[-1].startswith("PPO after 1024 steps:")

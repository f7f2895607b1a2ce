"""``creatures edit``: what it opens, what it says without a display, and the real window driven
under Xvfb by its input handlers (tests/creatures/edit_driver.py): a three-sphere inchworm built
from an empty file, undo and redo exact, invalid edits shown and undone, a live test, a save
that ``creatures validate`` passes and that simulates; mirror mode, the toolbar's duplicate, flip
and ground; a symmetric strider built by hand and in mirror mode, saved, validated, simulated."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).parents[2]


def test_what_it_opens(tmp_path, monkeypatch):
    from creatures.cli.edit import open_document
    from render.game import GameError
    monkeypatch.chdir(tmp_path)
    new = open_document(None)
    assert new.path == "my-creature.yaml" and not Path(new.path).exists() and new.dirty   # not written yet
    Path("my-creature.yaml").write_text("name: taken\n")
    assert open_document(None).path == "my-creature-2.yaml"
    copy = open_document("walker")
    assert copy.path == "walker.yaml" and copy.text == (REPO / "creatures/designs/walker.yaml").read_text()
    assert not Path("walker.yaml").exists()          # a copy: written when saved
    opened = open_document("my-creature.yaml")
    assert opened.text == "name: taken\n" and opened.problems   # no spheres: its problems listed
    assert open_document("fresh.yml").path == "fresh.yml"
    for bad, words in (("nothing", "no such file, and no built-in design"), (str(tmp_path), "is a directory"),
                       ("nowhere/x.yaml", "no such directory")):
        with pytest.raises(GameError, match=words):
            open_document(bad)


def test_without_a_display_it_says_so_in_one_line(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "ARCADE_HEADLESS")}
    r = subprocess.run([sys.executable, "-m", "creatures", "edit", "worm.yaml"], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stdout == "" and r.stderr.count("\n") == 1
    assert "xvfb-run" in r.stderr and "creatures validate" in r.stderr
    assert not (tmp_path / "worm.yaml").exists()


def _share(image, rgb, tolerance=10) -> float:
    a = np.asarray(image.convert("RGB"), np.int16)
    return float((np.abs(a - np.array(rgb[:3])).max(axis=2) <= tolerance).mean())


@pytest.mark.skipif(shutil.which("xvfb-run") is None, reason="needs Xvfb (.ci/system-packages installs it)")
def test_an_inchworm_is_built_in_the_window_and_saved(tmp_path, run_creatures):
    from PIL import Image

    from render.theme import SPHERE
    env = {k: v for k, v in os.environ.items() if k != "ARCADE_HEADLESS"}
    out = tmp_path / "edit"
    r = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1280x720x24", sys.executable,
                        str(REPO / "tests/creatures/edit_driver.py"), str(out)],
                       cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    report = json.loads((out / "report.json").read_text())
    assert r.returncode == 0 and "error" not in report, (r.stderr[-3000:], report.get("error"))
    # built by clicks and drags: three spheres, two bones and a muscle, a hinge
    assert len(report["spheres"]) == 3 and len(report["bones"]) == 3 and len(report["muscles"]) == 1
    assert report["joint_kind"] == ["hinge"] and report["valid_built"]
    assert report["undo_exact"] and report["redo_exact"]
    assert report["saved_equals_text"] and report["saved_message"].startswith("saved")
    # invalid edits: shown with their items, the file untouched, undone
    (problem,) = report["self_bone_problems"]
    assert "to itself" in problem["message"] and problem["items"][0][0] == "bone"
    assert report["save_refused_message"].startswith("not saved") and report["file_unchanged_after_refused_save"]
    assert report["valid_after_undo"] and report["self_collision"]
    overlap = [p for p in report["overlap_problems"] if "overlap" in p["message"]]
    assert overlap and {tuple(i) for i in overlap[0]["items"]} >= {("sphere", report["spheres"][2])}
    assert report["valid_after_second_undo"]
    assert report["live"] and report["back_from_live"]
    mirror = report["mirror"]       # mirror mode: the arm's sphere and bone made on both sides
    assert mirror["mode"] and mirror["valid"] and mirror["bones"] == 5 and mirror["bones_after_undo"] == 3
    assert sorted(mirror["spheres"])[-2:] == ["sphere_4_l", "sphere_4_r"]
    arrange = report["arrange"]     # the toolbar's duplicate, flip and ground, each undone
    assert len(arrange["copy"]) == 1 and len(arrange["flipped"]) == 1 and arrange["spheres"] == 7
    assert abs(arrange["lowest"]) < 1e-6 and arrange["undone"]
    (apart,) = arrange["problems"]  # loose spheres (the arm's bone was undone): only that is wrong
    assert "falls apart" in apart and arrange["copy"][0] in apart and arrange["flipped"][0] in apart
    # a symmetric strider: the same body by hand and in mirror mode, in 21 and 14 actions (every
    # paired part is one action instead of two; the tool keys, N and the bone across the axis
    # cost the same either way); the mirror-mode file saved, validated and simulated
    strider = report["strider"]
    hand, mirrored = strider["by_hand"], strider["mirror"]
    assert hand["valid"] and mirrored["valid"] and hand["shape"] == mirrored["shape"] and len(hand["shape"]) == 6
    assert (hand["actions"], mirrored["actions"]) == (21, 14)
    assert mirrored["spheres"] == [f"sphere_{k}_{side}" for k in (1, 2, 3) for side in "lr"]
    assert strider["saved"].startswith("saved")
    r = run_creatures("validate", out / "strider.yaml")
    assert r.returncode == 0 and "6 spheres, 7 bones, 4 muscles" in r.stdout, r.stdout + r.stderr
    r = run_creatures("simulate", out / "strider.yaml", "--seconds", 2)
    assert r.returncode == 0, r.stdout + r.stderr
    # the saved file: validate passes, it simulates
    path = out / "inchworm.yaml"
    r = run_creatures("validate", path)
    assert r.returncode == 0, r.stdout + r.stderr
    r = run_creatures("simulate", path, "--seconds", 2)
    assert r.returncode == 0 and "inchworm" in r.stdout, r.stdout + r.stderr
    # the screenshots have their content
    building = Image.open(out / "edit-building.png")
    problem_shot = Image.open(out / "edit-problem.png")
    live = Image.open(out / "edit-live.png")
    for image in (building, problem_shot, live):
        assert image.size == (1280, 720) and len(image.convert("RGB").getcolors(1 << 20) or ()) > 100
    assert _share(building, SPHERE) > 0.001 and _share(live, SPHERE) > 0.0002
    from render.editor import PROBLEM
    assert _share(problem_shot, PROBLEM) > 0.00005 > _share(building, PROBLEM)

"""Edits of many parts at once (creatures/editing/arrange.py): mirror a selection across a
vertical axis, duplicate it, rotate and scale it, set the creature on the ground. Each is one
undo step, patches only what it changes, and a half creature mirrored is a whole valid one."""

from __future__ import annotations

import numpy as np
import pytest

from creatures.editing.arrange import mirrored_id
from creatures.editing.document import DesignDocument
from render.game import GameError

HALF = """name: half
spheres:
  - {id: head, position: [0, 1.0], colour: red, eye: true}
  - {id: hip, position: [0, 0.6]}
  - {id: knee_l, position: [-0.3, 0.35]}
  - {id: foot_l, position: [-0.35, 0.1], friction: 1.0}
bones:
  - {spheres: [head, hip]}
  - {id: thigh_l, spheres: [hip, knee_l]}
  - {spheres: [knee_l, foot_l], muscle: {range: 0.2, group: shins}}
  - {spheres: [head, knee_l], muscle: true}
joints:
  - {id: knee_joint_l, sphere: knee_l, bones: [thigh_l, knee_l-foot_l], min: -170, max: -40}
"""


def _doc(text=HALF):
    doc = DesignDocument("/tmp/half.yaml", text)
    assert not doc.problems, doc.problems
    return doc


def test_mirrored_ids_swap_their_side_or_gain_one():
    assert mirrored_id("knee_l", True) == "knee_r" and mirrored_id("knee_r", False) == "knee_l"
    assert mirrored_id("arm_left", True) == "arm_right" and mirrored_id("leg-r", True) == "leg-l"
    assert mirrored_id("tail", True) == "tail_r" and mirrored_id("tail", False) == "tail_l"


def test_a_half_creature_mirrored_is_a_whole_valid_symmetric_one():
    doc = _doc()
    made = doc.mirror([("sphere", "knee_l"), ("sphere", "foot_l")], 0.0)
    assert made == [("sphere", "knee_r"), ("sphere", "foot_r"), ("bone", "thigh_r"), ("bone", "knee_r-foot_r"),
                    ("bone", "head-knee_r"), ("joint", "knee_joint_r")]
    assert not doc.problems, doc.problems
    d = doc.design
    assert d.counts()["spheres"] == 6 and d.counts()["bones"] == 7 and d.counts()["joints"] == 2
    pos = {i: np.array(s.pos) for i, s in zip(d.sphere_ids, d.body.spheres)}
    for side in ("knee", "foot"):
        assert np.allclose(pos[f"{side}_r"], pos[f"{side}_l"] * [-1, 1])
    assert d.body.spheres[d.sphere_ids.index("foot_r")].friction == 1.0       # its values copied
    assert d.groups() == {"shins": [("knee_l-foot_l", False), ("knee_r-foot_r", False)]}
    j = d.body.joints[1]
    assert np.degrees([j.min_angle, j.max_angle]).round(6).tolist() == [40.0, 170.0]   # mirrored limits
    assert all(line in doc.text.splitlines() for line in HALF.splitlines())   # only additions
    doc.undo()
    assert doc.text == HALF


def test_an_evolving_limit_is_mirrored_range_and_start():
    text = HALF.replace("min: -170, max: -40}", "min: {evolve: [-170, -120], start: -150}, max: -40}")
    doc = _doc(text)
    doc.mirror([("sphere", "knee_l"), ("sphere", "foot_l")], 0.0)
    assert not doc.problems, doc.problems
    line = next(line for line in doc.text.splitlines() if "knee_joint_r" in line)
    assert "min: 40" in line and "max: {evolve: [120, 170], start: 150}" in line
    left, right = doc.design.body.joints
    assert np.degrees([right.min_angle, right.max_angle]).round(6).tolist() == [40.0, 150.0]
    assert np.degrees([left.min_angle, left.max_angle]).round(6).tolist() == [-150.0, -40.0]


def test_a_selection_on_the_axis_has_nothing_to_mirror():
    doc = _doc()
    with pytest.raises(GameError, match="nothing to make"):
        doc.mirror([("sphere", "head"), ("sphere", "hip")], 0.0)
    assert doc.text == HALF and not doc.can_undo


def test_mirroring_twice_makes_nothing_more_and_another_axis_takes_a_free_id():
    doc = _doc()
    doc.mirror([("sphere", "knee_l"), ("sphere", "foot_l")], 0.0)
    with pytest.raises(GameError, match="nothing to make: its image is there already"):
        doc.mirror([("sphere", "knee_l"), ("sphere", "foot_l")], 0.0)
    doc.mirror([("sphere", "knee_l")], 1.0)
    ids = doc.sketch.sphere_id
    assert "knee_r" in ids and "knee_r_2" in ids
    assert doc.sketch.pos[ids.index("knee_r_2")].tolist() == [2.3, 0.35]


def test_a_bone_mirrored_between_images_that_are_there_joins_them():
    doc = _doc()
    doc.mirror([("sphere", "knee_l"), ("sphere", "foot_l")], 0.0)
    doc.delete([("bone", "knee_r-foot_r")])
    made = doc.mirror([("bone", "knee_l-foot_l")], 0.0)      # the bone took its joint: both come back
    assert made == [("bone", "knee_r-foot_r"), ("joint", "knee_joint_r")] and not doc.problems
    assert doc.add_bone("hip", "foot_l") == "bone_1"
    assert doc.mirror([("bone", "bone_1")], 0.0) == [("bone", "bone_1_r")]
    assert doc.design.body.bones[-1].a == doc.design.sphere_ids.index("hip")


def test_a_sphere_just_placed_is_paired_with_its_image_by_side():
    doc = _doc()
    new = doc.add_sphere(-0.6, 0.5)
    assert doc.pair_sphere(new, 0.0) == ("sphere_1_l", "sphere_1_r")
    pos = dict(zip(doc.sketch.sphere_id, doc.sketch.pos.tolist()))
    assert pos["sphere_1_l"] == [-0.6, 0.5] and pos["sphere_1_r"] == [0.6, 0.5]
    assert doc.pair_sphere(doc.add_sphere(0.7, 0.2), 0.0) == ("sphere_2_r", "sphere_2_l")   # numbers not reused
    with pytest.raises(GameError, match="lies on the mirror axis"):
        doc.pair_sphere(doc.add_sphere(0.0, 0.2), 0.0)


def test_join_makes_two_edits_one_undo_step():
    doc = _doc()
    doc.add_sphere(-0.6, 0.5)
    doc.mirror([("sphere", "sphere_1")], 0.0)
    doc.join(2)
    assert "sphere_1_r" in doc.sketch.sphere_id
    doc.undo()
    assert doc.text == HALF


def test_duplicate_copies_the_parts_among_the_selection():
    doc = _doc()
    made = doc.duplicate([("bone", "knee_l-foot_l")], 0.5, 0.0)
    assert made == [("sphere", "knee_l_2"), ("sphere", "foot_l_2"), ("bone", "knee_l_2-foot_l_2")]
    ids = doc.sketch.sphere_id
    assert np.allclose(doc.sketch.pos[ids.index("foot_l_2")], [0.15, 0.1])
    assert len(doc.problems) == 1 and "falls apart" in doc.problems[0].message   # a loose copy: the loader says so
    doc.undo()
    assert doc.text == HALF


def test_rotate_scale_and_set_on_ground_are_one_step_each():
    doc = _doc()
    doc.transform(["knee_l", "foot_l"], 180.0, 1.0, about=(0.0, 0.6))
    ids = doc.sketch.sphere_id
    assert np.allclose(doc.sketch.pos[ids.index("knee_l")], [0.3, 0.85])
    doc.undo()
    doc.transform(["knee_l", "foot_l"], 0.0, 2.0)
    centre = np.array([-0.325, 0.225])
    assert np.allclose(doc.sketch.pos[ids.index("foot_l")], centre + 2 * (np.array([-0.35, 0.1]) - centre))
    doc.undo()
    doc.set_on_ground()          # the foot's bottom (0.1 - 0.1) is on the ground already: nothing
    assert doc.text == HALF and not doc.can_undo
    doc.transform(["head", "hip", "knee_l", "foot_l"], 0.0, 1.0, about=None)
    doc.move_spheres(["head", "hip", "knee_l", "foot_l"], 0.0, 0.5)
    doc.set_on_ground()
    assert np.allclose(doc.sketch.pos[:, 1], [1.0, 0.6, 0.35, 0.1])
    with pytest.raises(GameError, match="a scale above 0"):
        doc.transform(["hip"], 0.0, 0.0)

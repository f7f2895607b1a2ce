"""The YAML design loader: good designs become bodies, bad ones report every problem with its
line and column.

Each file in ``bad_designs/`` is one kind of mistake. Its first line (and any further leading
lines of the same form) says what the loader must report::

    # expect: 4:39: sphere 'a': mass must be positive

i.e. ``line:column: `` and a part of the message; a formatted problem must contain
``<path>:<expected>``.
"""

import math
from pathlib import Path

import pytest

import physics
from creatures.design import DesignError, Problem, load_design, parse_design

BAD_DIR = Path(__file__).with_name("bad_designs")
BAD_FILES = sorted(BAD_DIR.glob("*.yaml"))
EXPECT = "# expect: "

#: every kind of mistake the loader must catch, by the name of its file in bad_designs/
KINDS = ["yaml_syntax", "unknown_key", "wrong_type", "negative_mass", "zero_radius",
         "missing_sphere", "missing_bone", "duplicate_sphere", "zero_length_bone", "joint_apart",
         "muscle_range", "disconnected", "overlap", "empty", "list_at_top", "missing_spheres",
         "restitution", "hinge_outside", "joint_kind", "several_problems", "duplicate_bone",
         "free_joint_limits", "no_spheres"]

GOOD = """\
name: pendulum-walker
description: two legs and a muscle
defaults:
  sphere: {radius: 0.08, mass: 0.5, friction: 0.8}
  muscle: {range: 0.2, strength: 150, speed: 2}
spheres:
  - {id: hip, position: [0, 0.9], mass: 1.5}
  - {id: knee, position: [0.2, 0.5]}
  - {id: foot, position: [0.1, 0.1], radius: 0.1, kinetic_friction: 0.6}
bones:
  - {id: thigh, spheres: [hip, knee]}
  - {spheres: [knee, foot], muscle: {range: 0.1}}
  - {id: reach, spheres: [hip, foot], muscle: true}
joints:
  - {id: knee, sphere: knee, bones: [thigh, knee-foot], kind: hinge, min: 30, max: 170}
"""


def expectations(path: Path) -> list[str]:
    """The expected problems stated in a bad design's leading ``# expect:`` lines."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith(EXPECT):
            break
        out.append(line[len(EXPECT):])
    return out


def problems_of(path: Path) -> list[str]:
    with pytest.raises(DesignError) as info:
        load_design(path)
    return [p.format(info.value.source) for p in info.value.problems]


@pytest.mark.parametrize("path", BAD_FILES, ids=[p.stem for p in BAD_FILES])
def test_bad_design_reports_its_expected_problem(path):
    expected = expectations(path)
    assert expected, f"{path.name} must state its expected problem on its first line"
    found = problems_of(path)
    for e in expected:
        assert any(f"{path}:{e}" in p for p in found), f"expected {path}:{e}\ngot:\n" + "\n".join(found)


def test_bad_designs_cover_every_kind_of_mistake():
    assert sorted(p.stem for p in BAD_FILES) == sorted(KINDS)


def test_several_problems_are_all_reported_at_once():
    path = BAD_DIR / "several_problems.yaml"
    with pytest.raises(DesignError) as info:
        load_design(path)
    expected = expectations(path)
    assert len(expected) == 4
    assert len(info.value.problems) == len(expected)
    assert len(str(info.value).splitlines()) == len(expected)


def test_problems_are_sorted_by_position():
    with pytest.raises(DesignError) as info:
        load_design(BAD_DIR / "several_problems.yaml")
    positions = [(p.line, p.column) for p in info.value.problems]
    assert positions == sorted(positions)


def test_good_design_becomes_a_body_with_its_parts_in_order():
    d = parse_design(GOOD, "good.yaml")
    assert d.name == "pendulum-walker"
    assert d.sphere_ids == ["hip", "knee", "foot"]
    assert d.bone_ids == ["thigh", "knee-foot", "reach"]       # an unnamed bone is named a-b
    assert d.muscle_ids == ["knee-foot", "reach"]
    assert d.counts() == {"spheres": 3, "bones": 3, "muscles": 2, "joints": 1, "clusters": 0}
    assert d.body.bones[1].a == 1 and d.body.bones[1].b == 2


def test_defaults_apply_unless_an_item_says_otherwise():
    b = parse_design(GOOD).body
    hip, knee, foot = b.spheres
    assert (hip.mass, hip.radius) == (1.5, 0.08)
    assert (knee.mass, knee.friction, knee.kinetic_friction) == (0.5, 0.8, None)
    assert (foot.radius, foot.kinetic_friction) == (0.1, 0.6)
    shin, reach = b.bones[1].muscle, b.bones[2].muscle
    assert (shin.range, shin.strength, shin.speed) == (0.1, 150, 2)
    assert (reach.range, reach.strength, reach.speed) == (0.2, 150, 2)
    assert b.bones[0].muscle is None


def test_hinge_limits_are_read_in_degrees():
    j = parse_design(GOOD).body.joints[0]
    assert (j.c, j.a, j.b, j.kind) == (1, 0, 2, "hinge")
    assert math.isclose(j.min_angle, math.radians(30)) and math.isclose(j.max_angle, math.radians(170))


def test_a_valid_design_builds_an_engine_model():
    model = physics.build_model(parse_design(GOOD).body, batch=2)
    assert model.n_spheres == 3 and model.n_muscles == 2 and model.batch == 2


def test_muscle_true_takes_the_documented_defaults():
    d = parse_design("name: m\nspheres:\n  - {id: a, position: [0, 0.1]}\n  - {id: b, position: [0.3, 0.1]}\n"
                     "bones:\n  - {spheres: [a, b], muscle: true}\n")
    m = d.body.bones[0].muscle
    assert (m.range, m.strength, m.speed) == (0.2, 150.0, 2.0)


def test_parse_design_names_its_source_in_every_problem():
    with pytest.raises(DesignError) as info:
        parse_design("name: x\nspheres:\n  - {id: a, position: [0, 0.1], mass: 0}\n", "inline")
    assert str(info.value) == "inline:3:39: sphere 'a': mass must be positive, not 0"


def test_problem_without_a_position_names_only_the_file():
    assert Problem(0, 0, "cannot read").format("x.yaml") == "x.yaml: cannot read"
    assert Problem(2, 5, "bad").format("x.yaml") == "x.yaml:2:5: bad"


def test_missing_file_is_a_design_error(tmp_path):
    with pytest.raises(DesignError, match="cannot read"):
        load_design(tmp_path / "nope.yaml")


def test_binary_file_is_a_design_error(tmp_path):
    path = tmp_path / "noise.yaml"
    path.write_bytes(b"\xff\xfe\x00\x81 not text")
    with pytest.raises(DesignError, match="not a text file"):
        load_design(path)


def test_oversized_file_is_refused_before_parsing(tmp_path, monkeypatch):
    import creatures.design as design

    monkeypatch.setattr(design, "MAX_DESIGN_BYTES", 100)
    path = tmp_path / "big.yaml"
    path.write_text("name: big\n" + "# padding\n" * 20)
    with pytest.raises(DesignError, match="larger than 100 bytes"):
        load_design(path)

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
from evolution.bodygenes import NO_GENES, Gene, Switch

BAD_DIR = Path(__file__).with_name("bad_designs")
BAD_FILES = sorted(BAD_DIR.glob("*.yaml"))
EXPECT = "# expect: "

#: every kind of mistake the loader must catch, by the name of its file in bad_designs/
KINDS = ["yaml_syntax", "unknown_key", "wrong_type", "negative_mass", "zero_radius",
         "missing_sphere", "missing_bone", "duplicate_sphere", "zero_length_bone", "joint_apart",
         "muscle_range", "disconnected", "overlap", "empty", "list_at_top", "missing_spheres",
         "restitution", "hinge_outside", "joint_kind", "several_problems", "duplicate_bone",
         "free_joint_limits", "no_spheres", "tab_indent",
         # evolvable values and optional parts
         "range_empty", "range_single_value", "range_not_two_numbers", "range_outside_engine",
         "range_start_outside", "range_unknown_key", "range_cannot_evolve", "range_in_defaults",
         "optional_in_cluster", "optional_not_boolean", "optional_in_defaults"]

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
    assert d.counts() == {"spheres": 3, "bones": 3, "muscles": 2, "joints": 1, "clusters": 0, "outputs": 2}
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
    import creatures.design.loader as design

    monkeypatch.setattr(design, "MAX_DESIGN_BYTES", 100)
    path = tmp_path / "big.yaml"
    path.write_text("name: big\n" + "# padding\n" * 20)
    with pytest.raises(DesignError, match="larger than 100 bytes"):
        load_design(path)



# --- evolvable values and optional parts -------------------------------------------------------

#: GOOD's body as the loader built it before designs could evolve (Body.to_dict)
GOOD_BODY = {
    "spheres": [
        {"pos": (0.0, 0.9), "radius": 0.08, "mass": 1.5, "friction": 0.8, "kinetic_friction": None,
         "restitution": 0.0, "fixed": False},
        {"pos": (0.2, 0.5), "radius": 0.08, "mass": 0.5, "friction": 0.8, "kinetic_friction": None,
         "restitution": 0.0, "fixed": False},
        {"pos": (0.1, 0.1), "radius": 0.1, "mass": 0.5, "friction": 0.8, "kinetic_friction": 0.6,
         "restitution": 0.0, "fixed": False}],
    "bones": [
        {"a": 0, "b": 1, "rest": None, "compliance": 0.0, "muscle": None},
        {"a": 1, "b": 2, "rest": None, "compliance": 0.0, "muscle": {"range": 0.1, "strength": 150.0, "speed": 2.0,
                                                                     "stretch": 0.05, "damping": 2.0}},
        {"a": 0, "b": 2, "rest": None, "compliance": 0.0, "muscle": {"range": 0.2, "strength": 150.0, "speed": 2.0,
                                                                     "stretch": 0.05, "damping": 2.0}}],
    "joints": [{"c": 1, "a": 0, "b": 2, "kind": "hinge", "min_angle": math.radians(30),
                "max_angle": math.radians(170), "stiffness": 0.0}],
    "clusters": [], "self_collision": False, "name": "pendulum-walker"}

EVOLVING = """\
name: evolving
defaults:
  sphere: {radius: 0.08, mass: 0.5}
  muscle: {strength: {evolve: [80, 300]}, speed: 2}
spheres:
  - {id: hip, position: [0, 0.9], mass: {evolve: [1, 2], start: 1.5}}
  - {id: knee, position: [{evolve: [0.1, 0.3]}, 0.5]}
  - {id: foot, position: [0.1, {evolve: [0.08, 0.12]}], radius: {evolve: [0.05, 0.12], start: 0.1},
     friction: {evolve: [0.5, 1.0]}}
bones:
  - {id: thigh, spheres: [hip, knee], compliance: {evolve: [0, 0.001]}}
  - {id: shin, spheres: [knee, foot], muscle: {range: {evolve: [0.05, 0.15]}}, optional: true}
  - {id: reach, spheres: [hip, foot], muscle: {strength: 150, speed: {evolve: [1, 3]}}}
joints:
  - {id: knee, sphere: knee, bones: [thigh, shin], min: {evolve: [20, 40]}, max: 170,
     stiffness: {evolve: [0, 5], start: 1}, optional: true}
"""


def test_a_design_without_ranges_builds_the_same_body_as_before():
    d = parse_design(GOOD)
    assert d.body.to_dict() == GOOD_BODY
    assert not d.genes and d.genes == NO_GENES


def test_the_evolving_builtins_start_as_the_designs_they_come_from():
    from creatures.design import resolve_design

    for plain, evolving in (("walker", "walker-evolving"), ("worm", "worm-evolving")):
        a, b = resolve_design(plain).body.to_dict(), resolve_design(evolving).body.to_dict()
        for part in b["bones"]:   # the worm's optional belly muscles: the only difference
            part.pop("optional", None)
        a.pop("name"), b.pop("name")
        assert a == b
        assert resolve_design(evolving).genes


def test_ranges_become_genes_with_labels_parts_and_starts_in_order():
    d = parse_design(EVOLVING, "evolving.yaml")
    G = Gene
    r = math.radians
    assert d.genes.genes == (
        G("hip.mass", "sphere", 0, "mass", 1.0, 2.0, 1.5),
        G("knee.x", "sphere", 1, "x", 0.1, 0.3, 0.2),
        G("foot.y", "sphere", 2, "y", 0.08, 0.12, 0.1),
        G("foot.radius", "sphere", 2, "radius", 0.05, 0.12, 0.1),
        G("foot.friction", "sphere", 2, "friction", 0.5, 1.0, 0.75),
        G("thigh.compliance", "bone", 0, "compliance", 0.0, 0.001, 0.0005),
        G("shin.strength", "muscle", 1, "strength", 80.0, 300.0, 190.0),     # from defaults
        G("shin.range", "muscle", 1, "range", 0.05, 0.15, 0.1),
        G("reach.speed", "muscle", 2, "speed", 1.0, 3.0, 2.0),               # strength: 150, fixed
        G("knee.min", "joint", 0, "min", r(20), r(40), r(30)),               # degrees -> radians
        G("knee.stiffness", "joint", 0, "stiffness", 0.0, 5.0, 1.0),
    )
    d.genes.check(d.body)


def test_the_body_holds_every_evolvable_value_at_its_start():
    b = parse_design(EVOLVING).body
    hip, knee, foot = b.spheres
    assert hip.mass == 1.5 and knee.pos == (0.2, 0.5) and foot.pos == (0.1, 0.1)
    assert (foot.radius, foot.friction) == (0.1, 0.75)
    assert b.bones[0].compliance == 0.0005
    shin, reach = b.bones[1].muscle, b.bones[2].muscle
    assert (shin.range, shin.strength, shin.speed) == (0.1, 190.0, 2.0)
    assert (reach.range, reach.strength, reach.speed) == (0.2, 150.0, 2.0)
    j = b.joints[0]
    assert math.isclose(j.min_angle, math.radians(30)) and j.stiffness == 1.0


def test_optional_parts_are_flagged_and_switched_in_order():
    text = EVOLVING.replace("{id: knee, position", "{id: knee, optional: true, position")
    d = parse_design(text)
    assert [s.optional for s in d.body.spheres] == [False, True, False]
    assert [e.optional for e in d.body.bones] == [False, True, False]
    assert [j.optional for j in d.body.joints] == [True]
    assert d.genes.switches == (Switch("knee", "sphere", 1), Switch("shin", "bone", 1),
                                Switch("knee", "joint", 0))


def test_a_range_in_defaults_gives_every_item_its_own_gene():
    d = parse_design("name: d\ndefaults:\n  sphere: {radius: {evolve: [0.05, 0.1]}}\n"
                     "  muscle: {range: {evolve: [0.1, 0.3], start: 0.2}}\n"
                     "spheres:\n  - {id: a, position: [0, 0.1]}\n  - {id: b, position: [0.3, 0.1], radius: 0.08}\n"
                     "  - {id: c, position: [0.6, 0.1]}\n"
                     "bones:\n  - {spheres: [a, b], muscle: true}\n  - {spheres: [b, c], muscle: {strength: 90}}\n")
    assert [(g.label, g.index, g.low, g.high, g.start) for g in d.genes.genes] == [
        ("a.radius", 0, 0.05, 0.1, 0.075), ("c.radius", 2, 0.05, 0.1, 0.075),
        ("a-b.range", 0, 0.1, 0.3, 0.2), ("b-c.range", 1, 0.1, 0.3, 0.2)]
    assert [s.radius for s in d.body.spheres] == [0.075, 0.08, 0.075]


def test_a_free_joint_does_not_evolve_limits_it_has_not_got():
    text = GOOD.replace("kind: hinge, min: 30, max: 170", "kind: free")
    text = text.replace("defaults:\n", "defaults:\n  joint: {min: {evolve: [-170, -100]}, stiffness: {evolve: [0, 2]}}\n")
    assert [g.label for g in parse_design(text).genes.genes] == ["knee.stiffness"]


def test_the_ranges_the_loader_allows_are_the_engines():
    from creatures.design.schema import RANGE_BOUNDS
    from evolution.bodygenes import BOUNDS, POSITIVE

    for (part, field), (low, high, open_low) in RANGE_BOUNDS.items():
        lo, hi = BOUNDS[(part, field)]
        if part == "joint" and field in ("min", "max"):
            low, high = math.radians(low), math.radians(high)
        assert math.isclose(low, lo, abs_tol=1e-9) and math.isclose(high, hi, abs_tol=1e-9), (part, field)
        assert open_low == (field in POSITIVE), (part, field)


#: a sphere line to put a mistake in: line 3 of the design
ONE_LINE = "name: x\nspheres:\n  - {id: a, %s}\n  - {id: b, position: [0.3, 0.1]}\nbones:\n  - {id: ab, spheres: [a, b]%s}\n%s"


@pytest.mark.parametrize("sphere, bone, more, expected", [
    ("position: [0, 0.1], radius: {evolve: 0.1}", "", "",
     "3:50: sphere 'a': 'radius' evolve must be [low, high], two numbers, not '0.1'"),
    ("position: [0, 0.1], radius: {evolve: [x, 0.1]}", "", "",
     "3:51: sphere 'a': 'radius' evolve must be a number, not 'x'"),
    ("position: [0, 0.1], radius: {start: 0.1}", "", "",
     "3:41: sphere 'a': 'radius' needs 'evolve: [low, high]' to be a range"),
    ("position: [0, 0.1], radius: {evolve: [0.05, 0.1], start: big}", "", "",
     "3:70: sphere 'a': 'radius' start must be a number, not 'big'"),
    ("position: {evolve: [0, 1]}", "", "",
     "3:23: sphere 'a': 'position' evolves component by component: write [{evolve: [low, high]}, y]"),
    ("position: [{evolve: [0, 2e4]}, 0.1]", "", "",
     "3:37: sphere 'a': 'position' x evolve must be within +-10000 m, not 2e4"),
    ("position: [0, 0.1], kinetic_friction: {evolve: [0, 0.5]}", "", "",
     "3:51: sphere 'a': 'kinetic_friction' cannot evolve; these can: position (x, y), radius, mass, friction"),
    ("position: [0, 0.1], fixed: {evolve: [0, 1]}", "", "",
     "3:40: sphere 'a': 'fixed' cannot evolve; these can: position (x, y), radius, mass, friction"),
    ("position: [0, 0.1], optional: true, fixed: true", "", "",
     "3:43: sphere 'a': a fixed sphere cannot be optional"),
    ("position: [0, 0.1]", ", muscle: {evolve: [0.1, 0.2]}", "",
     "6:39: bone 'ab': 'muscle' cannot evolve as a whole; its strength, range and speed can"),
    ("position: [0, 0.1]", ", muscle: {speed: {evolve: [1, 2e7]}}", "",
     "6:56: bone 'ab': 'muscle' speed evolves over [1, 2e+07], beyond 1e+06: more than the engine can hold"),
    ("position: [0, 0.1]", ", compliance: {evolve: [-0.001, 0.001]}", "",
     "6:52: bone 'ab': 'compliance' evolves over [-0.001, 0.001], which must not go negative"),
    ("position: [0, 0.1]", "", "clusters:\n  - {spheres: [a, b], stiffness: {evolve: [0.5, 1]}}\n",
     "8:34: cluster 1: 'stiffness' cannot evolve; nothing of a cluster can"),
    ("position: [0, 0.1], id2: {evolve: [0, 1]}", "", "",
     "3:33: unknown key 'id2' in sphere 'a' (did you mean 'id'?)"),
])
def test_every_mistake_in_a_range_is_reported_at_its_place(sphere, bone, more, expected):
    with pytest.raises(DesignError) as info:
        parse_design(ONE_LINE % (sphere, bone, more), "inline")
    assert any(line.startswith(f"inline:{expected}") for line in str(info.value).splitlines()), str(info.value)


def test_range_problems_are_collected_with_the_others():
    text = ("name: x\nspheres:\n  - {id: a, position: [0, 0.1], radius: {evolve: [0.2, 0.1]}, mass: -1}\n"
            "  - {id: b, position: [0.3, 0.1], restitution: {evolve: [0, 1]}}\n"
            "bones:\n  - {spheres: [a, c], optional: 1}\n")
    with pytest.raises(DesignError) as info:
        parse_design(text, "inline")
    assert [f"{p.line}:{p.column}" for p in info.value.problems] == ["3:50", "3:69", "4:48", "6:19", "6:33"]


def test_validate_counts_the_evolvable_values_and_optional_parts(capsys):
    from creatures import cli
    from creatures.design import DESIGN_DIR

    assert cli.main(["validate", "worm-evolving", str(DESIGN_DIR / "walker.yaml")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (f"{DESIGN_DIR / 'worm-evolving.yaml'}: ok (worm-evolving: 11 spheres, 15 bones, 5 muscles, "
                      f"4 joints, 0 clusters; 10 evolvable values, 2 optional parts)")
    assert out[1].endswith("(walker: 8 spheres, 14 bones, 6 muscles, 0 joints, 0 clusters)")


def test_a_design_with_ranges_and_an_optional_bone_evolves(tmp_path):
    import json

    from evolution.run import Run, RunSettings

    d = parse_design(EVOLVING, "evolving.yaml")
    settings = RunSettings(design_name=d.name, design_text=d.text, generations=2, population=10,
                           seconds=2.0, workers=1)
    run = Run.create(tmp_path / "run", settings, d.body, d.genes)
    run.evolve()
    assert run.generations_done == 2
    body = json.loads((tmp_path / "run" / "body.json").read_text())
    assert body["evolve"] == d.genes.to_dict()
    assert [g["label"] for g in body["evolve"]["genes"]][:2] == ["hip.mass", "knee.x"]
    assert body["evolve"]["switches"] == [{"label": "shin", "part": "bone", "index": 1},
                                          {"label": "knee", "part": "joint", "index": 0}]
    assert body["bones"][1]["optional"] is True


def test_creatures_evolve_evolves_the_body_of_a_design_with_ranges(tmp_path, capsys):
    import json

    from creatures import cli

    out = tmp_path / "run"
    assert cli.main(["evolve", "worm-evolving", "--generations", "1", "--population", "10", "--seconds", "1",
                     "--workers", "1", "--out", str(out)]) == 0
    assert "(27 inputs, 5 muscles, 10 body values, 2 optional parts)" in capsys.readouterr().out
    assert len(json.loads((out / "body.json").read_text())["evolve"]["genes"]) == 10


def test_a_bone_default_that_makes_muscles_takes_the_muscle_defaults():
    """``defaults: {bone: {muscle: true}}``: every bone is a muscle with ``defaults.muscle``'s
    values (it took the built-in ones before), and its own values over them."""
    text = ("name: t\ndefaults:\n  bone: {muscle: {range: 0.1}}\n  muscle: {strength: 60, speed: 3}\n"
            "spheres:\n  - {id: a, position: [0, 0.5]}\n  - {id: b, position: [0.4, 0.5]}\n"
            "  - {id: c, position: [0.2, 0.8]}\n"
            "bones:\n  - {id: ab, spheres: [a, b]}\n  - {id: bc, spheres: [b, c], muscle: {strength: 90}}\n"
            "  - {id: ca, spheres: [c, a], muscle: false}\n")
    bones = parse_design(text).body.bones
    assert (bones[0].muscle.range, bones[0].muscle.strength, bones[0].muscle.speed) == (0.1, 60.0, 3.0)
    assert (bones[1].muscle.strength, bones[1].muscle.speed) == (90.0, 3.0)
    assert bones[2].muscle is None
    plain = text.replace("  bone: {muscle: {range: 0.1}}\n", "  bone: {muscle: true}\n")
    assert parse_design(plain).body.bones[0].muscle.strength == 60.0

"""A body written as a design file (:mod:`creatures.design.writer`) and read back is the same body,
to the bit: every built-in design, random creatures, a body that uses every key, an evolved
champion and a grown one (``creatures export --yaml``, which never overwrites a file, and
``creatures edit`` of a champion). Hinge limits that no number of degrees reaches are written
one unit in the last place outward, and bodies a design cannot hold are refused."""

import json
import math

import pytest

import physics
from creatures.design import builtin_names, design_text, load_design, parse_design, resolve_design
from creatures.design import random_design as rd
from creatures.design.writer import limit_degrees, valid_id, valid_name
from evolution.champion import champion_from_run, load_champion

GROW = ("--grow", "--generations", "2", "--population", "10", "--workers", "1", "--seconds", "2")

#: a valid design that uses every key of the format the body holds
EVERY_KEY = """\
name: every-key
self_collision: true
spheres:
  - {id: a, position: [0, 0.5], radius: 0.05, mass: 2, friction: 0.9, kinetic_friction: 0.4, restitution: 0.3}
  - {id: b, position: [0.4, 0.5], fixed: true}
  - {id: c, position: [0.2, 0.9]}
  - {id: d, position: [0.8, 0.5], optional: true}
  - {id: e, position: [0.2, 0.1]}
bones:
  - {id: ab, spheres: [a, b], compliance: 0.001}
  - {id: bc, spheres: [b, c], muscle: {group: pair, stretch: 0.1, damping: 1.5, range: 0.25}}
  - {id: ca, spheres: [c, a], muscle: {group: pair, invert: true, strength: 90, speed: 3}}
  - {id: bd, spheres: [b, d], optional: true, width: 0.2}
  - {id: ae, spheres: [a, e], wing: true}
  - {id: be, spheres: [b, e]}
joints:
  - {id: top, sphere: c, bones: [bc, ca], min: -90, max: -10, stiffness: 5}
  - {id: loose, sphere: a, bones: [ab, ae], kind: free}
  - {id: low, sphere: b, bones: [ab, be], optional: true}
clusters:
  - {id: k, spheres: [a, b, e], stiffness: 0.5}
"""


def _bits(body: physics.Body, name: bool = True) -> str:
    """The body as JSON text: floats by ``repr``, so equal texts are equal bodies to the bit
    (-0.0 and 0.0 differ)."""
    data = body.to_dict()
    if not name:
        data.pop("name")
    return json.dumps(data, sort_keys=True)


def _round_trip(body: physics.Body, **kwargs) -> physics.Body:
    return parse_design(design_text(body, body.name, **kwargs), "<written>").body


def _ids(design) -> dict:
    return {"sphere": design.sphere_ids, "bone": design.bone_ids, "joint": design.joint_ids,
            "cluster": design.cluster_ids}


# --- bodies of designs ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", builtin_names())
def test_every_builtin_design_round_trips_to_the_same_body(name):
    design = resolve_design(name)
    assert _bits(_round_trip(design.body)) == _bits(design.body)
    again = parse_design(design_text(design.body, design.name, design.description, _ids(design), design.author,
                                     design.licence), "<written>")
    assert _bits(again.body) == _bits(design.body)
    assert (again.sphere_ids, again.bone_ids, again.joint_ids, again.cluster_ids) == \
        (design.sphere_ids, design.bone_ids, design.joint_ids, design.cluster_ids)
    assert (again.description, again.author, again.licence) == (design.description, design.author, design.licence)


@pytest.mark.parametrize("seed, index", [(0, 0), (0, 1), (1, 2), (7, 0), (12, 5)])
def test_a_random_creature_round_trips_to_the_same_body(seed, index):
    design = rd.random_design(seed, index)[0]
    assert _bits(_round_trip(design.body)) == _bits(design.body)


def test_a_body_with_every_key_round_trips_to_the_same_body():
    design = parse_design(EVERY_KEY, "every-key.yaml")
    body = design.body
    assert any(s.fixed for s in body.spheres) and body.bones[2].muscle.invert and body.self_collision
    again = parse_design(design_text(body, body.name, ids=_ids(design)), "<written>")
    assert _bits(again.body) == _bits(body)
    assert again.groups() == design.groups() and again.genes.switches == design.genes.switches


def test_every_float_comes_back_to_the_bit():
    body = parse_design(EVERY_KEY, "every-key.yaml").body
    awkward = [0.1 + 0.2, 1 / 3, 2e-7 / 3, 123.456e-3, math.pi / 7, 0.7 * 3]
    s = body.spheres[0]
    s.pos = (-0.0, 0.5 + 1e-16 * 3)
    s.radius, s.mass, s.friction, s.kinetic_friction, s.restitution = awkward[1] / 10, awkward[0], awkward[5] / 2, \
        awkward[3], awkward[1] / 2
    body.bones[0].compliance = awkward[2]
    m = body.bones[1].muscle
    m.range, m.strength, m.speed, m.stretch, m.damping = awkward[3], 100 * awkward[4], awkward[5], awkward[2] * 1e5, \
        awkward[1]
    body.bones[3].width = awkward[4] / 10
    body.joints[0].stiffness = awkward[0] * 7
    body.clusters[0].stiffness = awkward[1] * 2
    physics.build_model(body, 1)
    again = _round_trip(body)
    assert _bits(again) == _bits(body)
    assert math.copysign(1.0, again.spheres[0].pos[0]) == -1.0


def test_defaults_are_left_out_and_the_loaders_defaults_are_its_own():
    """A key is written only where the loader would give another value: a muscle of range 0.3
    says so (the format's muscles range 0.2 by default, the engine's 0.3)."""
    body = parse_design("name: m\nspheres:\n  - {id: a, position: [0, 0.1]}\n  - {id: b, position: [0.5, 0.1]}\n"
                        "bones:\n  - {id: ab, spheres: [a, b], muscle: {range: 0.3, strength: 80}}\n", "m.yaml").body
    text = design_text(body, "m")
    assert "muscle: {range: 0.3, strength: 80.0}" in text and "position: [0.0, 0.1]}" in text
    assert "radius" not in text and "stretch" not in text and "compliance" not in text and "joints:" not in text
    assert _bits(parse_design(text, "<written>").body) == _bits(body)


# --- ids and names -------------------------------------------------------------------------------

def test_part_names_are_made_valid_unique_ids():
    body = resolve_design("sprout").body
    design = parse_design(design_text(body, "sprout", ids={"sphere": ["sphere 3", "sphere_3"],
                                                           "muscle": ["muscle 0"]}), "<written>")
    assert design.sphere_ids == ["sphere_3", "sphere_3_2"] and design.muscle_ids == ["muscle_0"]
    assert valid_id("3", "sphere") == "sphere_3" and valid_id("  ", "joint") == "joint"
    assert valid_id("knee (left)", "joint") == "knee_left"
    assert valid_name("sprout (grown)") == "sprout-grown" and valid_name(".. /") == "creature"


def test_unnamed_parts_are_numbered_by_kind():
    design = parse_design(design_text(resolve_design("walker").body, "walker"), "<written>")
    assert design.sphere_ids[:2] == ["sphere_1", "sphere_2"] and design.bone_ids[0] == "bone_1"
    assert design.muscle_ids[:2] == ["muscle_1", "muscle_2"]


def test_ids_that_do_not_fit_the_body_are_refused():
    body = resolve_design("sprout").body
    with pytest.raises(ValueError, match="names 3 parts; the body has 2"):
        design_text(body, "sprout", ids={"sphere": ["a", "b", "c"]})
    with pytest.raises(ValueError, match="no kind"):
        design_text(body, "sprout", ids={"spheres": ["a", "b"]})


# --- what a design cannot say --------------------------------------------------------------------

def _unreachable_near(angle: float, direction: float) -> float:
    """The first radian value from ``angle`` toward ``direction`` that no float of degrees is."""
    x = angle
    while math.radians(limit_degrees(x, -1)) == x:
        x = math.nextafter(x, direction)
    return x


def test_hinge_limits_of_whole_degrees_are_exact():
    for d in range(-180, 181):
        x = math.radians(d)
        assert limit_degrees(x) == d and math.radians(limit_degrees(x)) == x


def test_a_hinge_limit_no_degrees_reach_is_written_one_ulp_outward():
    """About one radian value in eleven is no ``math.radians`` of any float: the writer widens
    the hinge by at most one unit in the last place, and the design stays valid."""
    design = parse_design(EVERY_KEY, "every-key.yaml")
    body = design.body
    hinge = body.joints[0]
    hinge.min_angle = _unreachable_near(hinge.min_angle, 0.0)
    hinge.max_angle = _unreachable_near(hinge.max_angle, -1.0)
    physics.build_model(body, 1)
    again = parse_design(design_text(body, body.name), "<written>").body.joints[0]
    assert hinge.min_angle - math.ulp(hinge.min_angle) <= again.min_angle < hinge.min_angle
    assert hinge.max_angle < again.max_angle <= hinge.max_angle + math.ulp(hinge.max_angle)
    with pytest.raises(ValueError, match="no number of degrees"):
        limit_degrees(hinge.min_angle)


def test_outward_limits_stay_within_one_ulp_and_half_a_turn():
    x, seen = -math.pi, 0
    for k in range(20_000):
        x = -math.pi + 2 * math.pi * k / 20_000 + 1e-13
        for outward in (-1, 1):
            d = limit_degrees(x, outward)
            y = math.radians(d)
            assert -180 <= d <= 180 and abs(y - x) <= math.ulp(x) and (y - x) * outward >= 0
            seen += y != x
    assert 0 < seen < 2 * 20_000 * 0.15
    assert limit_degrees(math.pi, 1) == 180 and limit_degrees(-math.pi, -1) == -180


def test_a_rest_length_equal_to_the_spheres_distance_is_the_same_bone():
    body = resolve_design("sprout").body
    body.bones[0].rest = math.dist(body.spheres[0].pos, body.spheres[1].pos)
    again = _round_trip(body)
    assert again.bones[0].rest is None
    assert physics.build_model(again, 1).bone_rest.tolist() == physics.build_model(body, 1).bone_rest.tolist()


def test_a_rest_length_of_its_own_is_refused():
    body = resolve_design("sprout").body
    body.bones[0].rest = 0.3
    with pytest.raises(ValueError, match="rests at 0.3 m, not its spheres' distance"):
        design_text(body, "sprout")


def test_a_joint_without_its_bones_is_refused():
    body = parse_design(EVERY_KEY, "every-key.yaml").body
    body.joints.append(physics.Joint(2, 3, 4))
    with pytest.raises(ValueError, match="no bone joins sphere 2 to 3"):
        design_text(body, "x")


# --- champions: export --yaml and edit -----------------------------------------------------------

@pytest.fixture(scope="module")
def grown_run(run_creatures, tmp_path_factory):
    """A tiny run of the sprout growing its body (as the brief's command makes it)."""
    out = tmp_path_factory.mktemp("grown") / "sprout-run"
    r = run_creatures("evolve", "sprout", *GROW, "--out", out)
    assert r.returncode == 0, r.stderr
    return out


def _one_line_refusal(r) -> str:
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert r.stdout == "" and "Traceback" not in r.stderr
    (line,) = r.stderr.strip().splitlines()
    assert line.startswith("creatures export: ")
    return line


def test_export_yaml_of_a_grown_champion_validates_and_loads_as_its_body(run_creatures, grown_run, tmp_path):
    path = tmp_path / "grown.yaml"
    r = run_creatures("export", grown_run, "--yaml", path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("\n") == 1 and r.stdout.startswith(f"{path}: ") and "creatures edit" in r.stdout
    v = run_creatures("validate", path)
    assert v.returncode == 0, v.stdout + v.stderr
    champion = champion_from_run(grown_run)
    assert champion.grown is not None
    design = load_design(path)
    assert _bits(design.body, name=False) == _bits(champion.body, name=False)
    assert design.name == design.body.name == "sprout-grown" and champion.body.name == "sprout (grown)"
    assert design.sphere_ids == [n.replace(" ", "_") for n in champion.grown.names["sphere"]]
    assert design.muscle_ids == [n.replace(" ", "_") for n in champion.grown.names["muscle"]]
    assert "grown from sprout" in design.description and f"generation {champion.generation}" in design.description


def test_export_yaml_never_overwrites_a_file(run_creatures, grown_run, tmp_path):
    path, out = tmp_path / "taken.yaml", tmp_path / "champion.json"
    path.write_text("mine\n")
    line = _one_line_refusal(run_creatures("export", grown_run, "--yaml", path, "--out", out))
    assert line == f"creatures export: {path} exists: nothing written; choose another name, or move it away"
    assert path.read_text() == "mine\n" and not out.exists()


def test_export_yaml_and_out_together_write_both(run_creatures, grown_run, tmp_path):
    path, out = tmp_path / "both.yaml", tmp_path / "both.json"
    r = run_creatures("export", grown_run, "--out", out, "--yaml", path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("\n") == 2
    assert _bits(load_design(path).body, name=False) == _bits(load_champion(out).body, name=False)


def test_export_yaml_of_a_champion_file(run_creatures, grown_run, tmp_path):
    out, path = tmp_path / "c.json", tmp_path / "from-file.yaml"
    assert run_creatures("export", grown_run, "--out", out).returncode == 0
    r = run_creatures("export", out, "--yaml", path)
    assert r.returncode == 0, r.stderr
    assert _bits(load_design(path).body, name=False) == _bits(load_champion(out).body, name=False)
    assert "the file c.json" in load_design(path).description


def test_export_needs_something_to_write(run_creatures, grown_run, tmp_path):
    line = _one_line_refusal(run_creatures("export", grown_run))
    assert "--out" in line and "--yaml" in line
    line = _one_line_refusal(run_creatures("export", grown_run, "--yaml", tmp_path / "x.json"))
    assert "ends in .yaml" in line
    same = tmp_path / "same.yaml"
    line = _one_line_refusal(run_creatures("export", grown_run, "--yaml", same, "--out", same))
    assert "both name" in line and not same.exists()


def test_export_yaml_of_an_evolved_champion_is_its_evolved_body(run_creatures, evolved_run, tmp_path):
    path = tmp_path / "evolved.yaml"
    r = run_creatures("export", evolved_run, "--yaml", path)
    assert r.returncode == 0, r.stderr
    champion = champion_from_run(evolved_run)
    design = load_design(path)
    assert _bits(design.body) == _bits(champion.body)
    assert "evolved from the design walker" in design.description
    assert [s.label for s in design.genes.switches] == ["bone_11"]   # its optional bone, still optional


def test_edit_opens_a_grown_champion_as_a_new_design(grown_run, tmp_path, monkeypatch):
    from pathlib import Path

    from creatures.cli.edit import open_document
    monkeypatch.chdir(tmp_path)
    champion = champion_from_run(grown_run)
    doc = open_document(str(grown_run))
    assert doc.path == "sprout-grown.yaml" and not Path(doc.path).exists() and doc.dirty   # written when saved
    assert doc.problems == [] and _bits(doc.design.body, name=False) == _bits(champion.body, name=False)
    Path("sprout-grown.yaml").write_text("name: taken\n")
    assert open_document(str(grown_run)).path == "sprout-grown-2.yaml"


def test_edit_opens_a_champion_file(run_creatures, grown_run, tmp_path, monkeypatch):
    from creatures.cli.edit import open_document
    out = tmp_path / "champ.json"
    assert run_creatures("export", grown_run, "--out", out).returncode == 0
    monkeypatch.chdir(tmp_path)
    doc = open_document(str(out))
    assert doc.path == "sprout-grown.yaml" and doc.problems == []
    assert _bits(doc.design.body, name=False) == _bits(load_champion(out).body, name=False)


def test_edit_of_a_champion_that_cannot_be_read_is_one_line(tmp_path, monkeypatch):
    from creatures.cli.edit import open_document
    from render.game import GameError
    monkeypatch.chdir(tmp_path)
    (tmp_path / "broken.json").write_text("{")
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "settings.json").write_text("{}")
    for target, words in (("broken.json", "broken.json: "), ("run", "run/settings.json")):
        with pytest.raises(GameError, match=words) as caught:
            open_document(target)
        assert "\n" not in str(caught.value)

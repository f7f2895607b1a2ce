"""Designs in a fluid: a bone's ``width`` and ``wing`` in the YAML (read, refused with file:line:
column, evolvable, in the JSON schema), the commands' ``--medium``, the tasks' media in
``creatures tasks``, and the built-in eel and bird.

The bad designs of this feature live in ``bad_designs/medium/``, one mistake a file, each
stating what the loader must report on its leading ``# expect: line:column: text`` lines, as
those of ``bad_designs/`` do (``test_design.py``; they are kept in a folder of their own since
``test_design.py`` lists every file of ``bad_designs/`` by name).
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import numpy as np
import pytest
import yaml

import physics
from creatures.design import DESIGN_DIR, DesignError, builtin_names, load_design, parse_design, resolve_design

BAD_DIR = Path(__file__).with_name("bad_designs") / "medium"
BAD_FILES = sorted(BAD_DIR.glob("*.yaml"))
EXPECT = "# expect: "
SCHEMA = json.loads((Path(__file__).parents[2] / "creatures" / "design.schema.json").read_text())
TINY = ("--generations", "2", "--population", "6", "--seconds", "0.5", "--workers", "1")

PLATES = """\
name: plates
spheres:
  - {id: a, position: [0, 0.5], radius: 0.05}
  - {id: b, position: [0.4, 0.5], radius: 0.07}
  - {id: c, position: [0.2, 0.9], radius: 0.09}
  - {id: d, position: [0.2, 0.2], radius: 0.06}
bones:
  - {id: fin, spheres: [a, b], width: 0.3}
  - {id: arm, spheres: [b, c], wing: true}
  - {id: back, spheres: [c, a], width: 0.25, wing: true, muscle: true}
  - {id: plain, spheres: [a, d]}
"""

EVOLVING = """\
name: evolving plates
spheres:
  - {id: a, position: [0, 0.5], radius: 0.05}
  - {id: b, position: [0.4, 0.5], radius: {evolve: [0.04, 0.1]}}
  - {id: c, position: [0.2, 0.9], radius: 0.09}
bones:
  - {id: fin, spheres: [a, b], width: {evolve: [0.1, 0.5]}}
  - {id: arm, spheres: [b, c], wing: true, width: {evolve: [0.2, 0.6], start: 0.25}}
  - {id: back, spheres: [c, a], muscle: true}
"""


# --- the loader ----------------------------------------------------------------------------------

def test_a_design_with_widths_and_wings_gives_bones_with_them():
    d = parse_design(PLATES, "plates.yaml")
    assert [(b.width, b.wing) for b in d.body.bones] == [(0.3, False), (None, True), (0.25, True),
                                                           (None, False)]
    assert not d.genes
    model = physics.build_model(d.body, 1)
    assert model.bone_wing.tolist() == [False, True, True, False]
    np.testing.assert_allclose(model.bone_plate[0], [0.3, physics.WING_WIDTH * np.hypot(0.2, 0.4), 0.25,
                                                     0.05 + 0.06], rtol=1e-15)


def test_a_design_without_widths_or_wings_has_none():
    body = resolve_design("walker").body
    assert all(b.width is None and b.wing is False for b in body.bones)


def test_defaults_may_give_every_bone_a_width_and_wings():
    d = parse_design("name: d\ndefaults:\n  bone: {width: 0.2, wing: true}\nspheres:\n"
                     "  - {id: a, position: [0, 0.1]}\n  - {id: b, position: [0.3, 0.1]}\n"
                     "  - {id: c, position: [0.3, 0.5]}\nbones:\n  - {spheres: [a, b]}\n"
                     "  - {spheres: [b, c], width: 0.5, wing: false}\n")
    assert [(b.width, b.wing) for b in d.body.bones] == [(0.2, True), (0.5, False)]


def expectations(path: Path) -> list[str]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith(EXPECT):
            break
        out.append(line[len(EXPECT):])
    return out


def test_there_are_bad_designs_of_widths_and_wings():
    assert {p.stem for p in BAD_FILES} == {"bone_width_zero", "bone_width_negative", "bone_width_not_a_number",
                                           "bone_wing_not_boolean", "bone_width_range_not_positive"}


@pytest.mark.parametrize("path", BAD_FILES, ids=[p.stem for p in BAD_FILES])
def test_a_bad_width_or_wing_is_reported_at_its_line_and_column(path):
    expected = expectations(path)
    assert expected, f"{path.name} must state its expected problem on its first line"
    with pytest.raises(DesignError) as info:
        load_design(path)
    found = [p.format(info.value.source) for p in info.value.problems]
    assert len(found) == len(expected), found
    for e in expected:
        assert any(f"{path}:{e}" in p for p in found), f"expected {path}:{e}\ngot:\n" + "\n".join(found)
    assert all("\n" not in p for p in found)


def test_validate_reports_the_bad_widths_and_wings_by_file_line_and_column(run_creatures):
    r = run_creatures("validate", *BAD_FILES)
    assert r.returncode == 2 and r.stdout == ""
    assert "Traceback" not in r.stderr
    lines = r.stderr.splitlines()
    for f in BAD_FILES:
        assert any(line.startswith(f"{f}:{expectations(f)[0]}") for line in lines), (f, lines)


@pytest.mark.parametrize("value", ["1e-3", "2", "0.5"])
def test_any_positive_width_is_read(value):
    d = parse_design(f"name: w\nspheres:\n  - {{id: a, position: [0, 0.1]}}\n  - {{id: b, position: [0.3, 0.1]}}\n"
                     f"bones:\n  - {{spheres: [a, b], width: {value}}}\n")
    assert d.body.bones[0].width == float(value)


@pytest.mark.parametrize("value, message, column", [
    (".nan", "'width' must be finite", 39), (".inf", "'width' must be finite", 39),
    ("true", "'width' must be a number, not the boolean true", 39),
    ("{evolve: [-0.1, 0.5]}", "'width' evolves over [-0.1, 0.5], which must stay positive", 48),  # at the range
    ("{evolve: [0.1, 0.5], start: 0.7}", "'width' start 0.7 is outside its range [0.1, 0.5]", 67)])
def test_other_widths_that_are_not_widths_are_refused_at_their_place(value, message, column):
    text = ("name: w\nspheres:\n  - {id: a, position: [0, 0.1]}\n  - {id: b, position: [0.3, 0.1]}\n"
            f"bones:\n  - {{id: fin, spheres: [a, b], width: {value}}}\n")
    with pytest.raises(DesignError) as info:
        parse_design(text, "w.yaml")
    (problem,) = info.value.problems
    assert (problem.line, problem.column) == (6, column)
    assert message in problem.format("w.yaml")


# --- an evolvable width ----------------------------------------------------------------------------

def test_an_evolvable_width_is_a_gene_named_after_its_bone():
    d = parse_design(EVOLVING, "evolving.yaml")
    genes = {g.label: g for g in d.genes.genes}
    assert set(genes) == {"b.radius", "fin.width", "arm.width"}
    fin, arm = genes["fin.width"], genes["arm.width"]
    assert (fin.part, fin.field, fin.index, fin.low, fin.high, fin.start) == ("bone", "width", 0, 0.1, 0.5, 0.3)
    assert (arm.part, arm.field, arm.index, arm.start) == ("bone", "width", 1, 0.25)
    assert d.body.bones[0].width == 0.3 and d.body.bones[1].width == 0.25   # the start values


def _values(genes, **by_label) -> list[float]:
    values = genes.start_values()
    for k, g in enumerate(genes.genes):
        if g.label in by_label:
            values[k] = by_label[g.label]
    return values


@pytest.mark.parametrize("chosen", [{}, {"fin.width": 0.45, "arm.width": 0.21, "b.radius": 0.1},
                                    {"fin.width": 0.9, "b.radius": 0.041},          # clipped to its range
                                    {"arm.width": 0.6, "b.radius": 0.06}])
def test_the_evolved_body_rebuilds_the_stepped_plates_bit_for_bit(chosen):
    d = parse_design(EVOLVING, "evolving.yaml")
    genes = d.genes
    values = _values(genes, **chosen)
    stepped, refused = genes.model(d.body, [values], [genes.start_parts()])
    assert not refused.any()
    body = genes.body(d.body, values, genes.start_parts())
    rebuilt = physics.build_model(body, 1)
    assert np.array_equal(rebuilt.bone_plate.view(np.uint64), stepped.bone_plate.view(np.uint64))
    assert np.array_equal(rebuilt.bone_wing, stepped.bone_wing)
    fin = min(max(chosen.get("fin.width", 0.3), 0.1), 0.5)
    assert stepped.bone_plate[0, 0] == fin == body.bones[0].width
    assert body.bones[1].wing and not body.bones[0].wing
    assert body.bones[2].width is None                                  # no width, no gene: the default
    assert stepped.bone_plate[0, 2] == stepped.radius[0, 2] + stepped.radius[0, 0]
    # and the body survives its dict
    assert physics.Body.from_dict(json.loads(json.dumps(body.to_dict()))) == body


def test_creatures_with_different_widths_fall_differently_in_water():
    d = parse_design(EVOLVING, "evolving.yaml")
    genes = d.genes
    narrow, broad = _values(genes, **{"fin.width": 0.1}), _values(genes, **{"fin.width": 0.5})
    model, _ = genes.model(d.body, [narrow, broad], [genes.start_parts()] * 2)
    assert model.bone_plate[:, 0].tolist() == [0.1, 0.5]
    params = physics.SimParams(ground=False, fluid_density=1000.0)
    state = physics.initial_state(model, params)
    for _ in range(30):
        state = physics.step(model, state, None, params)
    assert not np.array_equal(state.pos[0], state.pos[1])


# --- the JSON schema -------------------------------------------------------------------------------

def test_the_schema_accepts_widths_wings_and_width_ranges():
    for text in (PLATES, EVOLVING):
        jsonschema.validate(yaml.safe_load(text), SCHEMA)
    design = yaml.safe_load(PLATES)
    design["defaults"] = {"bone": {"width": 0.2, "wing": True}}
    jsonschema.validate(design, SCHEMA)


@pytest.mark.parametrize("key, value", [("width", 0), ("width", -1), ("width", "wide"), ("wing", "yes"),
                                        ("wing", 1), ("width", {"evolve": [0, 0.5]}),
                                        ("width", {"evolve": [0.1, 0.5], "start": 0})])
def test_the_schema_rejects_what_the_loader_refuses_of_widths_and_wings(key, value):
    design = yaml.safe_load(PLATES)
    design["bones"][0][key] = value
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(design, SCHEMA)
    with pytest.raises(DesignError):                                 # and so does the loader
        parse_design(yaml.safe_dump(design), "d.yaml")


def test_the_schema_rejects_a_zero_width_in_the_defaults_too():
    design = yaml.safe_load(PLATES)
    design["defaults"] = {"bone": {"width": 0}}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(design, SCHEMA)


# --- the built-in eel and bird ---------------------------------------------------------------------

def test_the_eel_and_the_bird_are_built_in_and_their_schema_holds():
    names = builtin_names()
    assert "eel" in names and "bird" in names
    for name in ("eel", "bird"):
        jsonschema.validate(yaml.safe_load((DESIGN_DIR / f"{name}.yaml").read_text()), SCHEMA)
        body = resolve_design(name).body
        assert any(b.muscle is not None for b in body.bones)
        physics.build_model(body, 1)
    assert any(b.wing for b in resolve_design("bird").body.bones)
    assert any(b.width is not None for b in resolve_design("eel").body.bones)


def test_the_eel_and_the_bird_validate(run_creatures):
    r = run_creatures("validate", "eel", "bird")
    assert r.returncode == 0, r.stderr
    assert r.stdout.count(": ok") == 2


@pytest.mark.parametrize("name, args, where", [
    ("eel", ("--medium", "water", "--no-ground"), "in water"),
    ("bird", ("--medium", "air"), "in air"),
    ("bird", ("--medium", "air,flow_x=3", "--muscles", "random"), "in air, wind 3 m/s"),
])
def test_the_eel_and_the_bird_hold_together_in_their_media(run_creatures, name, args, where):
    r = run_creatures("simulate", name, "--seconds", "3", *args)
    assert r.returncode == 0, r.stderr
    assert where in r.stdout
    assert r.stdout.rstrip().splitlines()[-1] == "verdict: held together"
    assert "all values finite    yes" in r.stdout


# --- the commands ----------------------------------------------------------------------------------

def test_simulate_in_water_says_so(run_creatures):
    r = run_creatures("simulate", "walker", "--seconds", "1", "--medium", "water")
    assert r.returncode == 0, r.stderr
    assert "in water" in r.stdout.splitlines()[1]
    dry = run_creatures("simulate", "walker", "--seconds", "1")
    assert " in " not in dry.stdout.splitlines()[1]
    assert dry.stdout != r.stdout


def test_simulate_json_names_the_medium(run_creatures):
    r = run_creatures("simulate", "walker", "--seconds", "0.5", "--medium", "water,flow_x=0.5", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["medium"] == "water, flow 0.5 m/s"


@pytest.mark.parametrize("medium, message", [
    ("lava", "unknown medium 'lava'"),
    ("water,flow_x=fast", "flow_x must be a number"),
    ("density=-1", "must not be negative"),
])
def test_simulate_with_a_bad_medium_exits_2_in_one_line(run_creatures, medium, message):
    r = run_creatures("simulate", "walker", "--seconds", "0.5", "--medium", medium)
    assert r.returncode == 2
    assert r.stdout == ""
    (line,) = r.stderr.splitlines()
    assert line.startswith("creatures simulate: --medium:") and message in line


def test_simulate_in_water_with_another_solver_is_one_line(run_creatures):
    r = run_creatures("simulate", "walker", "--seconds", "0.5", "--medium", "water", "--solver", "witkin")
    assert r.returncode == 2
    (line,) = r.stderr.splitlines()
    assert line.startswith("creatures simulate:") and "Traceback" not in r.stderr


def test_evolve_with_a_bad_medium_exits_2_in_one_line_and_writes_nothing(run_creatures, tmp_path):
    r = run_creatures("evolve", "walker", "--medium", "lava", *TINY, "--out", tmp_path / "run")
    assert r.returncode == 2
    (line,) = r.stderr.splitlines()
    assert line.startswith("creatures evolve: --medium:") and "unknown medium 'lava'" in line
    assert not (tmp_path / "run").exists()


def test_evolve_eel_to_swim_says_where_and_writes_the_water(run_creatures, tmp_path):
    r = run_creatures("evolve", "eel", "--task", "swim", *TINY, "--out", tmp_path / "run")
    assert r.returncode == 0, r.stderr
    first = r.stdout.splitlines()[0]
    assert "to swim with no ground in water" in first, first
    sim = json.loads((tmp_path / "run" / "settings.json").read_text())["sim"]
    assert sim["fluid_density"] == 1000.0 and sim["ground"] is False


def test_evolve_with_a_medium_asked_for_records_it(run_creatures, tmp_path):
    r = run_creatures("evolve", "walker", "--medium", "water,flow_x=0.5", "--generations", "1", "--population",
                      "4", "--seconds", "0.2", "--workers", "1", "--out", tmp_path / "run")
    assert r.returncode == 0, r.stderr
    assert "on flat ground in water, flow 0.5 m/s" in r.stdout.splitlines()[0]
    data = json.loads((tmp_path / "run" / "settings.json").read_text())
    assert data["medium"] == "water,flow_x=0.5"
    assert (data["sim"]["fluid_density"], data["sim"]["flow_x"]) == (1000.0, 0.5)


def test_tasks_lists_swim_and_fly_with_their_media(run_creatures):
    r = run_creatures("tasks")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split()[:4] == ["task", "source", "terrain", "medium"]
    rows = {line.split()[0]: line.split() for line in lines[1:]}
    assert rows["swim"][1:4] == ["built-in", "none", "water"]
    assert rows["fly"][1:4] == ["built-in", "flat", "air"]
    for name in ("run", "jump", "obstacle"):
        assert rows[name][3] == "none"


def test_tasks_json_gives_each_task_its_medium(run_creatures):
    r = run_creatures("tasks", "--json")
    assert r.returncode == 0, r.stderr
    rows = {row["name"]: row for row in json.loads(r.stdout)}
    assert (rows["swim"]["medium"], rows["swim"]["default_terrain"]) == ("water", "none")
    assert (rows["fly"]["medium"], rows["fly"]["default_terrain"]) == ("air", "flat")
    assert rows["run"]["medium"] == "none"

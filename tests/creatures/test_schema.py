"""The shipped JSON Schema agrees with the loader on the built-in designs and on typos."""

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from creatures.design import DESIGN_DIR, DesignError, builtin_names, parse_design

SCHEMA = json.loads((Path(__file__).parents[2] / "creatures" / "design.schema.json").read_text())


def test_schema_is_a_valid_json_schema():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


@pytest.mark.parametrize("name", builtin_names())
def test_schema_accepts_every_builtin_design(name):
    jsonschema.validate(yaml.safe_load((DESIGN_DIR / f"{name}.yaml").read_text()), SCHEMA)


def test_schema_rejects_an_unknown_key():
    design = yaml.safe_load((DESIGN_DIR / "walker.yaml").read_text())
    design["spheres"][0]["radus"] = 0.1
    with pytest.raises(jsonschema.ValidationError, match="radus"):
        jsonschema.validate(design, SCHEMA)


def test_schema_rejects_a_muscle_range_the_engine_cannot_hold():
    design = yaml.safe_load((DESIGN_DIR / "walker.yaml").read_text())
    design["bones"][7]["muscle"] = {"range": 1.5}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(design, SCHEMA)


def _walker():
    return yaml.safe_load((DESIGN_DIR / "walker.yaml").read_text())


def test_schema_accepts_ranges_and_optional_parts_where_the_loader_does():
    design = _walker()
    design["defaults"]["muscle"]["strength"] = {"evolve": [80, 300], "start": 150}
    design["defaults"]["sphere"]["radius"] = {"evolve": [0.06, 0.1]}
    design["spheres"][4]["position"] = [{"evolve": [-0.9, -0.6]}, 0.5]
    design["spheres"][5]["friction"] = {"evolve": [0.8, 1.2]}
    design["spheres"][5]["optional"] = True
    design["bones"][0]["compliance"] = {"evolve": [0, 0.001]}
    design["bones"][7]["muscle"] = {"range": {"evolve": [0.05, 0.15]}, "speed": {"evolve": [1, 3]}}
    design["bones"][8]["optional"] = True
    design["joints"] = [{"sphere": "knee_hind", "bones": ["thigh_hind", "shin_hind"], "optional": True,
                         "min": {"evolve": [-180, 0], "start": -120}, "max": 180,
                         "stiffness": {"evolve": [0, 2], "start": 1}}]
    jsonschema.validate(design, SCHEMA)
    genes = parse_design(yaml.safe_dump(design), "walker-with-ranges").genes   # and so does the loader
    assert (genes.n_values, genes.n_parts) == (19, 3)


@pytest.mark.parametrize("where, key, value", [
    ("spheres", "radius", {"evolve": [0.05, 0.1], "strat": 0.08}),     # an unknown key in a range
    ("spheres", "radius", {"evolve": [0.05, 0.1, 0.2]}),               # three numbers
    ("spheres", "radius", {"start": 0.08}),                             # no evolve
    ("spheres", "radius", {"evolve": [-0.05, 0.1]}),                    # a radius must stay positive
    ("spheres", "restitution", {"evolve": [0, 0.5]}),                   # cannot evolve
    ("spheres", "optional", "yes please"),
    ("bones", "muscle", {"range": {"evolve": [0.1, 1.2]}}),            # beyond what the engine holds
])
def test_schema_rejects_what_the_loader_refuses_of_ranges(where, key, value):
    design = _walker()
    design[where][7 if where == "bones" else 0][key] = value
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(design, SCHEMA)


def test_schema_rejects_optional_in_defaults():
    design = _walker()
    design["defaults"]["sphere"]["optional"] = True
    with pytest.raises(jsonschema.ValidationError, match="optional"):
        jsonschema.validate(design, SCHEMA)


# --- one declaration of the format (creatures.design.schema) ---------------------------------------

def test_the_shipped_schema_is_the_one_the_format_declares():
    from creatures.design.schema import SCHEMA_FILE, json_schema_text
    assert SCHEMA_FILE.read_text(encoding="utf-8") == json_schema_text(), (
        "the format changed: rewrite the file with python -c 'from creatures.design.schema import "
        "write_json_schema; write_json_schema()'")


def _number_keys():
    from creatures.design.schema import ITEMS
    for item in ("sphere", "bone", "muscle", "joint", "cluster"):
        for key in ITEMS[item].values():
            if key.kind == "number" and key.bounds is not None:
                yield item, key


def _with(item, key, value):
    """A small valid design (a triangle with a muscle, a hinge and a cluster) with ``key`` of its
    first ``item`` set to ``value``."""
    design = {"name": "t",
              "spheres": [{"id": "a", "position": [0, 0.5]}, {"id": "b", "position": [0.4, 0.5]},
                          {"id": "c", "position": [0.2, 0.9]}],
              "bones": [{"id": "ab", "spheres": ["a", "b"], "muscle": {}}, {"id": "bc", "spheres": ["b", "c"]},
                        {"id": "ca", "spheres": ["c", "a"]}],
              "joints": [{"id": "j", "sphere": "c", "bones": ["bc", "ca"], "min": -180, "max": 180}],
              "clusters": [{"id": "k", "spheres": ["a", "b", "c"]}]}
    if item == "muscle":
        design["bones"][0]["muscle"][key] = value
    else:
        design[{"sphere": "spheres", "bone": "bones", "joint": "joints", "cluster": "clusters"}[item]][0][key] = value
    return design


@pytest.mark.parametrize("item, key", [(i, k.name) for i, k in _number_keys()])
def test_the_loader_and_the_schema_take_the_same_numbers(item, key):
    """Each number of the format at its bounds is taken by both, and just outside them refused
    by both: the loader checks the bounds the schema declares, and the JSON Schema is made from
    the same declaration."""
    from creatures.design.schema import ITEMS
    low, high, open_low = ITEMS[item][key].bounds
    inside = [low + (1e-3 if open_low else 0.0), min(high, 1e6)]
    outside = [low - 1.0] + ([low] if open_low else []) + ([high + 0.5] if high < 1e9 else [])
    if key in ("min", "max"):   # a hinge's limits must also hold its first angle (-53.1 degrees here)
        inside = [-180.0, -60.0] if key == "min" else [-50.0, 180.0]
    if key == "kinetic_friction":   # at most the friction (0.8 here)
        inside = [0.0, 0.8]
    for value in inside:
        design = _with(item, key, value)
        jsonschema.validate(design, SCHEMA)
        parse_design(yaml.safe_dump(design), "t.yaml")
    for value in outside:
        design = _with(item, key, value)
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(design, SCHEMA)
        with pytest.raises(DesignError):
            parse_design(yaml.safe_dump(design), "t.yaml")

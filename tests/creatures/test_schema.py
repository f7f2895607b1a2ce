"""The shipped JSON Schema agrees with the loader on the built-in designs and on typos."""

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from creatures.bestiary import DESIGN_DIR, builtin_names

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

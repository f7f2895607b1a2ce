"""The README's design example stays a valid design that moves."""

import re
from pathlib import Path

from creatures.design import parse_design
from creatures.simulate import run_simulation

README = Path(__file__).parents[2] / "README.md"


def test_readme_design_example_is_valid_and_moves():
    blocks = re.findall(r"```yaml\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks, "the README should show a design"
    design = parse_design(blocks[0], "README.md")
    summary = run_simulation(design.body, seconds=5.0, muscles="sine")
    assert summary["finite"]
    assert summary["max_bone_strain"] < 0.05
    assert abs(summary["distance"]) > 0.1

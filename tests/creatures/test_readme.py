"""The README stays true: its design example is a valid design that moves, and the outputs it shows
of deterministic commands are what those commands print now."""

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

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


# --- the README's deterministic command outputs, re-run --------------------------------------------

#: commands whose output does not depend on the machine or the time, as the README shows them
DETERMINISTIC = ("creatures designs", "creatures simulate walker --muscles random --seconds 20",
                 "creatures tasks", "creatures tasks --check my_task.py:Upright")


def _shown_commands() -> dict:
    """``{command: its output as shown}`` for the README's text blocks of deterministic commands."""
    shown = {}
    for block in re.findall(r"```text\n(.*?)```", README.read_text(), flags=re.S):
        command, output = None, []
        for line in block.splitlines():
            if line.startswith("$ "):
                if command in DETERMINISTIC:
                    shown[command] = "\n".join(output)
                command, output = line[2:].split("  #")[0].strip(), []
            else:
                output.append(line)
        if command in DETERMINISTIC:
            shown[command] = "\n".join(output)
    return shown


def test_the_readme_shows_the_deterministic_commands():
    assert set(_shown_commands()) == set(DETERMINISTIC)


@pytest.mark.parametrize("command", DETERMINISTIC)
def test_readme_outputs_are_what_the_commands_print_now(command, tmp_path):
    python = re.findall(r"```python\n(import numpy as np\n\nimport evolution\n\n\nclass Upright.*?)```",
                        README.read_text(), flags=re.S)
    (tmp_path / "my_task.py").write_text(python[0])
    r = subprocess.run([sys.executable, "-m", "creatures", *shlex.split(command)[1:]], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.rstrip("\n") == _shown_commands()[command]

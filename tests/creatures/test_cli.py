"""The ``creatures`` command as a user meets it: exit statuses, what goes to stdout and stderr,
and never a traceback for a mistake in the input."""

import json
import re
from pathlib import Path

from creatures.design import DESIGN_DIR, builtin_names

BAD_DIR = Path(__file__).with_name("bad_designs")
SUMMARY_KEYS = {"distance", "max_height", "max_bone_strain", "max_hinge_overshoot", "max_penetration",
                "broken", "lowest_clearance", "finite", "com_start", "com_end", "com_velocity_start",
                "com_velocity_end"}


def _expected(path: Path) -> str:
    return path.read_text(encoding="utf-8").splitlines()[0].removeprefix("# expect: ")


def test_validate_bad_design_exits_2_with_file_line_column_problems(run_creatures):
    path = BAD_DIR / "negative_mass.yaml"
    r = run_creatures("validate", path)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert r.stderr.splitlines() == [f"{path}:{_expected(path)}"]
    assert r.stdout == ""


def test_validate_reports_every_bad_design_without_a_traceback(run_creatures):
    files = sorted(BAD_DIR.glob("*.yaml"))
    r = run_creatures("validate", *files)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    lines = r.stderr.splitlines()
    pattern = re.compile("|".join(re.escape(str(f)) for f in files))
    for line in lines:
        assert re.match(rf"({pattern.pattern}):\d+:\d+: \S", line), line
    for f in files:
        assert any(line.startswith(f"{f}:{_expected(f)}") for line in lines), f


def test_validate_good_designs_exits_0(run_creatures):
    files = [DESIGN_DIR / f"{name}.yaml" for name in builtin_names()]
    r = run_creatures("validate", *files)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    assert len(r.stdout.splitlines()) == len(files)
    assert all(": ok (" in line for line in r.stdout.splitlines())


def test_validate_exits_2_if_any_design_is_bad(run_creatures):
    good, bad = DESIGN_DIR / "walker.yaml", BAD_DIR / "zero_radius.yaml"
    r = run_creatures("validate", good, bad)
    assert r.returncode == 2
    assert r.stdout.startswith(f"{good}: ok")
    assert r.stderr.startswith(f"{bad}:4:41: ")


def test_simulate_json_prints_one_summary_object(run_creatures):
    r = run_creatures("simulate", "walker", "--json", "--seconds", "2")
    assert r.returncode == 0, r.stderr
    summary = json.loads(r.stdout)              # one JSON document, nothing else on stdout
    assert isinstance(summary, dict)
    assert SUMMARY_KEYS <= summary.keys()
    assert summary["finite"] is True
    assert summary["seconds"] == 2.0
    for key in ("com_start", "com_end", "com_velocity_start", "com_velocity_end"):
        assert len(summary[key]) == 2


def test_simulate_unknown_design_exits_2_with_one_line(run_creatures):
    r = run_creatures("simulate", "no_such_creature")
    assert r.returncode == 2
    assert r.stdout == ""
    assert "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("creatures simulate: no_such_creature: no built-in design of that name")

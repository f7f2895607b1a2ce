"""Muscle groups in the design language (``group:`` and ``invert:`` on a muscle), as the loader
reads and checks them, as ``creatures validate`` and ``designs`` count them, as the Gymnasium
environment's action space and the brain panel show them."""

from __future__ import annotations

from pathlib import Path

import pytest

from creatures.design import DesignError, load_design, parse_design

REPO = Path(__file__).resolve().parents[2]
GROUPED = REPO / "examples" / "walker_groups.yaml"
TRIANGLE = """name: tri
spheres:
  - {id: a, position: [0, 0.5]}
  - {id: b, position: [0.6, 0.5]}
  - {id: c, position: [0.3, 0.9]}
bones:
  - {spheres: [a, b], muscle: MUSCLE_AB}
  - {spheres: [b, c], muscle: MUSCLE_BC}
  - {spheres: [a, c]}
"""


def _design(ab="true", bc="true"):
    return parse_design(TRIANGLE.replace("MUSCLE_AB", ab).replace("MUSCLE_BC", bc), "tri.yaml")


def _problems(ab, bc="true"):
    with pytest.raises(DesignError) as err:
        _design(ab, bc)
    return [p.format("tri.yaml") for p in err.value.problems]


def test_grouped_muscles_share_an_output_and_the_counts_say_so():
    d = _design("{group: pair}", "{group: pair, invert: true}")
    assert d.counts()["outputs"] == 1 and d.counts()["muscles"] == 2
    assert d.groups() == {"pair": [("a-b", False), ("b-c", True)]}
    assert _design().counts()["outputs"] == 2 and _design().groups() == {}


@pytest.mark.parametrize("ab, says", [
    ("{group: two words}", "tri.yaml:7:39: bone 'a-b': muscle group must be a name of letters, digits, '-' and '_'"),
    ("{group: " + "g" * 41 + "}", "muscle group must be a name of letters, digits, '-' and '_' (at most 40)"),
    ("{invert: true}", "tri.yaml:7:40: bone 'a-b': muscle invert is for a muscle in a group"),
    ("{group: [a]}", "tri.yaml:7:39: bone 1: 'muscle' group must be text, not a list"),
    ("{group: pair, invert: maybe}", "tri.yaml:7:53: bone 1: 'muscle' invert must be true or false, not 'maybe'"),
])
def test_a_bad_group_is_a_problem_at_its_line_and_column(ab, says):
    problems = _problems(ab)
    assert any(says in p for p in problems), problems


@pytest.mark.parametrize("defaults, says", [
    ("muscle: {group: all}", "tri.yaml:3:12: defaults.muscle: 'group' is not a default: write it on each muscle that has it"),
    ("muscle: {invert: true}", "tri.yaml:3:12: defaults.muscle: 'invert' is not a default"),
    ("bone: {muscle: {group: all}}", "tri.yaml:3:19: defaults.bone: 'muscle': 'group' is not a default"),
])
def test_a_group_is_not_a_default(defaults, says):
    text = TRIANGLE.replace("name: tri\n", f"name: tri\ndefaults:\n  {defaults}\n")
    with pytest.raises(DesignError) as err:
        parse_design(text.replace("MUSCLE_AB", "true").replace("MUSCLE_BC", "true"), "tri.yaml")
    problems = [p.format("tri.yaml") for p in err.value.problems]
    assert any(p.startswith(says) for p in problems), problems


def test_validate_and_designs_count_the_brain_outputs(run_creatures):
    r = run_creatures("validate", GROUPED)
    assert r.returncode == 0
    assert r.stdout.strip() == (f"{GROUPED}: ok (walker-groups: 8 spheres, 14 bones, 6 muscles on 3 brain outputs, "
                                f"0 joints, 0 clusters)")
    r = run_creatures("designs", GROUPED)
    assert ("its 6 muscles take 3 brain outputs: group shins: shin_hind, shin_fore (inverted); group hips: "
            "hip_muscle_hind, hip_muscle_fore (inverted); group knees: knee_muscle_hind, knee_muscle_fore "
            "(inverted)") in r.stdout
    r = run_creatures("validate", "walker")
    assert "6 muscles, 0 joints" in r.stdout      # no groups: as before


def test_the_gym_action_space_has_one_command_per_output():
    from creatures.envs import CreatureEnv
    env = CreatureEnv(design=str(GROUPED), seconds=1.0)
    assert env.action_space.shape == (3,)
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
    assert obs.shape == env.observation_space.shape
    with pytest.raises(ValueError, match=r"the action must have shape \(3,\)"):
        env.step([0.0] * 6)


def test_the_brain_panel_names_outputs_by_group(tmp_path):
    from creatures.sources import brain_graph
    genome = {"nodes": [{"key": k} for k in range(3)], "connections": [{"in": -1, "out": 0, "weight": 1.0, "enabled": True}]}
    brain = brain_graph(genome, ["clock sin"], ["shins", "hips", "knees"])
    assert [n.label for n in brain.nodes if n.kind == "output"] == ["shins", "hips", "knees"]
    assert load_design(GROUPED).body.command_map()[2] == ["shins", "hips", "knees"]

"""Challenge files (evolution/challenges.py): read with every problem at its line and column, and
entries checked against them: the task, the very ground, the seconds, the physics, the sensors and
the body rules before any simulation, then the recorded fitness against a replay."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import physics
from evolution.challenges import ChallengeError, load_challenge, parse_challenge
from evolution.champion import load_champion

REPO = Path(__file__).resolve().parents[2]
WALKER = REPO / "saves" / "walker-run.json"
SPRINT = "name: sprint\ntask: run\nterrain: flat\nseconds: 20\n"


def _problems(text: str, **kw) -> list[str]:
    with pytest.raises(ChallengeError) as err:
        parse_challenge(text, "c.yaml", **kw)
    return [p.format("c.yaml") for p in err.value.problems]


def test_a_challenge_is_read_with_its_defaults():
    c = parse_challenge(SPRINT + "description: >\n  Run\n  far.\n", "c.yaml")
    assert (c.name, c.task, c.terrain_name, c.terrain_seed, c.terrain_file, c.seconds) == ("sprint", "run", "flat", 0, None, 20.0)
    assert c.description == "Run far." and c.medium is None and c.rules.describe() == []
    assert c.sensors == ("clock", "muscles", "joints", "contacts", "tilt", "height", "velocity")
    assert c.sim() == physics.SimParams() and c.measures() == "metres travelled to the right"
    assert c.summary() == "run on flat, 20 s; scored from 10 starts moved 0.001 m"
    assert (c.starts, c.noise, c.seed) == (10, 1e-3, 0)


def test_a_challenge_says_how_it_scores_and_bad_trials_are_at_their_line():
    c = parse_challenge(SPRINT + "trials: {starts: 3, noise: 0.01, seed: 7}\n", "c.yaml")
    assert (c.starts, c.noise, c.seed) == (3, 0.01, 7) and c.summary().endswith("scored from 3 starts moved 0.01 m")
    assert c.to_dict()["trials"] == {"starts": 3, "noise": 0.01, "seed": 7}
    problems = _problems(SPRINT + "trials: {starts: 0, noise: 1, seed: -2, count: 4}\n")
    assert [p.split(": ")[0] for p in problems] == ["c.yaml:5:18", "c.yaml:5:28", "c.yaml:5:37", "c.yaml:5:41"]
    assert "'trials.starts' must be a whole number from 1 to 100" in problems[0]
    assert "'trials.noise' must be a number of metres from 0 to 0.1" in problems[1]


def test_every_problem_is_at_its_line_and_column():
    text = ("name: my sprint\ntask: dance\nterrain: {name: hills, seed: -1}\nseconds: 0\nmedium: lava\n"
            "sensors: [clock, eyes]\nbody:\n  spheres: 0\n  mass: [5, 1]\n  design: walker\n  wings: 2\n")
    problems = _problems(text)
    assert [p.split(": ")[0] for p in problems] == ["c.yaml:1:7", "c.yaml:2:7", "c.yaml:3:30", "c.yaml:4:10", "c.yaml:5:9",
                                                    "c.yaml:6:18", "c.yaml:8:12", "c.yaml:9:9", "c.yaml:10:11", "c.yaml:11:3"]
    assert "unknown task 'dance': a challenge names a built-in task" in problems[1]
    assert "'body.design' names a design, and nothing here can load designs" in problems[8]
    assert _problems("") == ["c.yaml:1:1: the challenge file is empty"]
    assert _problems("name: x\n") == [f"c.yaml:1:1: a challenge needs '{k}'" for k in ("task", "terrain", "seconds")]
    tagged = _problems("name: !!python/object/apply:os.system ['echo']\n")
    assert len(tagged) == 1 and tagged[0].startswith("c.yaml:1:7: ") and "tag" in tagged[0]


def test_a_challenge_never_names_code():
    assert "a challenge names a built-in task" in _problems(SPRINT.replace("task: run", "task: evil.py:Evil"))[0]
    assert "a challenge names a built-in terrain" in _problems(SPRINT.replace("flat", "evil.py:Evil"))[0]
    assert "must lie next to the challenge" in _problems(SPRINT.replace("flat", "../../etc/course.yaml"))[0]


def test_a_terrain_file_lies_next_to_the_challenge(tmp_path):
    shutil.copy(REPO / "examples" / "hilly_wall.yaml", tmp_path / "wall.yaml")
    (tmp_path / "c.yaml").write_text(SPRINT.replace("flat", "wall.yaml"))
    c = load_challenge(tmp_path / "c.yaml")
    assert c.terrain_file == str(tmp_path / "wall.yaml") and c.terrain.xs.size > 2
    (tmp_path / "wall.yaml").write_text("points: [[0, 0], [0, 1]]\n")
    with pytest.raises(ChallengeError, match="its terrain file: .*wall.yaml"):
        load_challenge(tmp_path / "c.yaml")


def test_the_design_rule_loads_its_design_through_the_callers_loader():
    body = load_champion(WALKER).body
    c = parse_challenge(SPRINT + "body: {design: walker}\n", "c.yaml", design_body=lambda name: body)
    assert c.rules.design == "walker" and c.rules.broken(body) is None
    other = physics.Body.from_dict(body.to_dict())
    other.spheres[0].mass += 0.001
    assert "not the design walker's" in c.rules.broken(other)
    assert "not the design walker's" in c.rules.broken(body, evolved=True)
    problems = _problems(SPRINT + "body: {design: nope}\n", design_body=lambda name: (_ for _ in ()).throw(ValueError("no such design")))
    assert problems == ["c.yaml:5:16: 'body.design': no such design"]


# --- entries ------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def walker():
    return load_champion(WALKER)


def _edited(tmp_path, change) -> object:
    doc = json.loads(WALKER.read_text())
    change(doc)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(doc))
    return load_champion(path)


def test_an_entry_that_keeps_the_rules_is_verified_at_its_replayed_fitness(walker):
    c = parse_challenge(SPRINT + "body: {spheres: 8, bones: 14, muscles: 6, mass: [8, 8], strength: 900}\n", "c.yaml")
    verdict = c.verify(walker)
    assert verdict.verified and walker.fitness == walker.replay()
    assert verdict.score == walker.rescore(10, 1e-3, 0)["mean"]           # the challenge's starts
    exact = parse_challenge(SPRINT + "trials: {starts: 3, noise: 0}\n", "c.yaml").verify(walker)
    assert exact.score == walker.rescore(1, 0.0, 9)["mean"]               # noise 0: the design's start


@pytest.mark.parametrize("rule, says", [
    ("spheres: 7", "it has 8 spheres; the challenge allows at most 7"),
    ("bones: 13", "it has 14 bones; the challenge allows at most 13"),
    ("muscles: 5", "it has 6 muscles; the challenge allows at most 5"),
    ("mass: [1, 7.5]", "it weighs 8 kg; the challenge wants 1 to 7.5 kg"),
    ("strength: 899", "its muscles pull 900 N together; the challenge allows at most 899 N"),
])
def test_an_entry_that_breaks_a_body_rule_is_refused_in_one_line(walker, rule, says):
    verdict = parse_challenge(SPRINT + f"body: {{{rule}}}\n", "c.yaml").verify(walker)
    assert verdict.score is None and verdict.reason == says


@pytest.mark.parametrize("challenge, says", [
    (SPRINT.replace("flat", "{name: hills, seed: 1}"), "it was scored on other ground (flat); the challenge's is hills made from seed 1"),
    (SPRINT.replace("task: run", "task: jump"), "it was scored on the task run; the challenge's task is jump"),
    (SPRINT.replace("20", "10"), "it was scored over 20 s; the challenge lasts 10 s"),
    (SPRINT + "medium: water\n", "it was scored with the physics setting fluid_density = 0.0; the challenge has 1000.0"),
    (SPRINT + "sensors: [clock, muscles]\n", "it senses with joints, which the challenge does not allow (it allows clock, muscles)"),
])
def test_an_entry_of_another_episode_is_refused_before_it_is_simulated(walker, challenge, says, monkeypatch):
    monkeypatch.setattr(type(walker), "replay", lambda self: pytest.fail("simulated"))
    verdict = parse_challenge(challenge, "c.yaml").verify(walker)
    assert verdict.reason == says


def test_an_entry_whose_fitness_or_physics_was_edited_is_refused(tmp_path):
    c = parse_challenge(SPRINT, "c.yaml")
    raised = _edited(tmp_path, lambda d: d["recorded"].update(fitness=d["recorded"]["fitness"] + 10))
    assert c.verify(raised).reason == (f"its recorded fitness {raised.fitness!r} is not what it scores "
                                       f"({raised.fitness - 10!r}): the file was edited, or scored by other software")
    n = physics.SimParams().iterations
    coarse = _edited(tmp_path, lambda d: d["physics"].update(iterations=n + 1))
    assert c.verify(coarse).reason == f"it was scored with the physics setting iterations = {n + 1}; the challenge has {n}"
    flat_moved = _edited(tmp_path, lambda d: d["terrain"].update(ys=[0.0, 1e-9]))
    assert c.verify(flat_moved).reason.startswith("it was scored on other ground")


def test_an_entry_scored_by_an_earlier_engine_is_refused(tmp_path):
    old = _edited(tmp_path, lambda d: d["physics"].update(engine=1))
    assert parse_challenge(SPRINT, "c.yaml").verify(old).reason.startswith("scored by an earlier version of the physics engine")


def test_a_challenge_as_data_names_everything_it_rules(walker):
    c = parse_challenge(SPRINT + "body: {spheres: 8, mass: [1, 12]}\n", "c.yaml")
    data = c.to_dict()
    assert data["terrain"] == {"name": "flat", "seed": 0, "file": None} and data["medium"] == "none"
    assert data["body"] == {"spheres": 8, "mass": [1.0, 12.0]} or data["body"] == {"spheres": 8, "mass": (1.0, 12.0)}
    json.dumps(data)

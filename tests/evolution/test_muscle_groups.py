"""Muscle groups: muscles that share one brain output (``group``), one of them negated
(``invert``). The body says which command drives which muscle (physics.Body.command_map); an
episode drives the muscles from the brain's outputs so (EpisodeRun.advance), exactly as the same
body ungrouped driven by the expanded commands; a grouped champion evolves, is saved as format 4
and replays bit for bit."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import physics
from creatures.design import load_design
from evolution import Run, limits
from evolution.champion import champion_from_run, load_champion, save_champion
from evolution.rollout import Episode, EpisodeRun
from evolution_helpers import tiny_settings

REPO = Path(__file__).resolve().parents[2]
GROUPED = REPO / "examples" / "walker_groups.yaml"


@pytest.fixture(scope="module")
def design():
    return load_design(GROUPED)


def _ungrouped(body: physics.Body) -> physics.Body:
    data = body.to_dict()
    for bone in data["bones"]:
        if bone.get("muscle"):
            bone["muscle"].pop("group", None)
            bone["muscle"].pop("invert", None)
    return physics.Body.from_dict(data)


def test_the_body_says_which_command_drives_each_muscle(design):
    channel, sign, names = design.body.command_map()
    assert names == ["shins", "hips", "knees"]
    assert channel.tolist() == [0, 1, 2, 0, 1, 2] and sign.tolist() == [1, 1, 1, -1, -1, -1]
    assert design.body.grouped and not _ungrouped(design.body).grouped
    channel, sign, names = _ungrouped(design.body).command_map()
    assert names == [f"muscle {k}" for k in range(6)] and channel.tolist() == list(range(6)) and (sign == 1).all()


def test_a_group_is_written_only_where_a_muscle_has_one_and_read_back(design):
    data = design.body.to_dict()
    muscles = [b["muscle"] for b in data["bones"] if b["muscle"]]
    assert muscles[0] == {"range": 0.1, "strength": 150.0, "speed": 2.0, "group": "shins", "stretch": 0.05,
                          "damping": 2.0}
    assert muscles[3]["invert"] is True
    assert "group" not in _ungrouped(design.body).to_dict()["bones"][7]["muscle"]
    assert physics.Body.from_dict(data).command_map()[2] == ["shins", "hips", "knees"]


def test_a_group_that_is_no_name_is_refused():
    body = load_design(GROUPED).body
    body.bones[7].muscle.group = 5
    with pytest.raises(ValueError, match="its group must be a name or none"):
        physics.build_model(body, 1)
    body.bones[7].muscle.group = "x" * 41
    with pytest.raises(ValueError, match="muscle group of bone 7 is 41 characters long; at most 40"):
        limits.check_body(body)
    body.bones[7].muscle.group, body.bones[7].muscle.invert = "ok", "yes"
    with pytest.raises(ValueError, match="invert must be true or false"):
        limits.check_body(body)


def test_an_episode_drives_grouped_muscles_as_the_ungrouped_body_driven_by_the_expanded_commands(design):
    class Open:         # stands in for brains: the runs are driven by advance()
        def reset(self):
            pass

    grouped = EpisodeRun(Episode.make(design.body, "run", seconds=2.0), Open(), 3)
    plain = EpisodeRun(Episode.make(_ungrouped(design.body), "run", seconds=2.0), Open(), 3)
    assert grouped.episode.n_outputs() == grouped.n_outputs == 3 and plain.n_outputs == 6
    assert grouped.episode.output_names() == ["shins", "hips", "knees"]
    assert grouped.outputs.shape == (3, 3)
    rng = np.random.default_rng(4)
    channel, sign, _ = design.body.command_map()
    for _ in range(120):
        c = rng.uniform(-1, 1, (3, 3))
        grouped.advance(c)
        plain.advance(c[:, channel] * sign)
    assert np.array_equal(grouped.state.pos, plain.state.pos) and np.array_equal(grouped.outputs, c)
    assert not np.array_equal(grouped.state.pos[:, 0], grouped.state.pos[:, 3])   # the muscles moved


def test_a_grouped_design_evolves_and_its_champion_replays_exactly(design, tmp_path):
    settings = tiny_settings(design_name=design.name, design_text=design.text, generations=2, population=8)
    run = Run.create(tmp_path / "run", settings, design.body)
    run.evolve()
    assert re.search(r"^num_outputs\s*=\s*3$", (tmp_path / "run" / "neat.cfg").read_text(), re.M)
    champion = champion_from_run(tmp_path / "run")
    save_champion(champion, tmp_path / "c.json")
    written = json.loads((tmp_path / "c.json").read_text())
    assert written["version"] == (5 if "trials" in written else 4)
    again = load_champion(tmp_path / "c.json")
    assert again.body.command_map()[2] == ["shins", "hips", "knees"]
    assert again.replay() == champion.fitness
    outputs = {n["key"] for n in again.genome["nodes"]} & {0, 1, 2, 3, 4, 5}
    assert outputs == {0, 1, 2}

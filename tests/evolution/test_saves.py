"""The champions shipped in saves/ load, replay to exactly their recorded fitness, and cover every
task. If the engine changes on purpose, re-export them (saves/README.md says how)."""

from pathlib import Path

import pytest

from evolution.champion import load_champion

SAVES = sorted((Path(__file__).parents[2] / "saves").glob("*.json"))


def test_there_is_a_shipped_champion_for_every_task():
    from evolution.plugins import available
    builtin = {p.name for p in available("task") if p.ref.source == "built-in"}
    assert builtin == {"run", "jump", "climb", "obstacle", "swim", "fly", "fly-far"}
    assert {load_champion(p).task.name for p in SAVES} == builtin


@pytest.mark.parametrize("path", SAVES, ids=[p.stem for p in SAVES])
def test_shipped_champion_replays_to_its_recorded_fitness(path):
    champion = load_champion(path)
    assert champion.replay() == champion.fitness

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


def test_the_shipped_champions_robustness_table_is_what_they_do_now():
    """saves/README.md's table (each champion from 12 starts moved 1e-6 m and 12 moved 1e-3 m), row
    for row; and the bar it shows: each keeps on average 85 % of its fresh-start mean, and 50 % at
    its worst start."""
    from shipped_robustness import NOISES, percentages, row
    text = (SAVES[0].parent / "README.md").read_text()
    shown = {line.split("`")[1]: line for line in text.splitlines() if line.startswith("| `") and " / " in line}
    assert set(shown) == {p.stem for p in SAVES}
    for path in SAVES:   # (of its fresh-start mean, and of its selection score)
        assert shown[path.stem] == row(path), path.stem
        p = percentages(path)
        assert all(p[k][0] >= 85 and p[k][1] >= 50 for n in NOISES for k in (n, ("selection", n))), (path.stem, p)

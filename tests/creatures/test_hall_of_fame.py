"""The hall of fame behind ``creatures play`` (creatures/hall.py, and the play window's card and
champion opening): boards verified as ``creatures challenge board`` verifies them, entries raced
with the player's champion, a champion saved as a card that replays exactly."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from creatures.game import PlayMenu
from creatures.hall import PlayHall
from creatures.session import PlaySession
from evolution.champion import load_champion
from render.game import GameError

REPO = Path(__file__).resolve().parents[2]
SAVES = REPO / "saves"


@pytest.fixture
def folder(tmp_path):
    for name in ("walker-run", "walker-evolving-run", "eel-swim", "fish-swim"):
        shutil.copy(SAVES / f"{name}.json", tmp_path)
    return tmp_path


def test_the_hall_offers_the_built_in_challenges_and_verifies_a_board(folder):
    hall = PlayHall(str(folder))
    assert [p.name for p in hall.challenges] == ["sprint", "hurdles", "swim"] and hall.mine is None
    board = hall.board("swim", str(folder))
    ranked = [e for e in board.entries if e.rank]
    swim = hall.challenge("swim")
    scored = {n: load_champion(folder / n) for n in ("eel-swim.json", "fish-swim.json")}
    score = {n: c.rescore(swim.starts, swim.noise, swim.seed)["mean"] for n, c in scored.items()}
    assert [(e.rank, Path(e.file).name) for e in ranked] == list(enumerate(sorted(score, key=score.get, reverse=True), 1))
    for e in ranked:   # each scored from the challenge's starts
        name = Path(e.file).name
        assert e.score == score[name] and e.champion == scored[name].hash()[7:19]
    refused = [e for e in board.entries if not e.rank]
    assert len(refused) == 2 and all("the challenge's task is swim" in e.reason for e in refused)
    assert board.summary.startswith("swim with no ground in water, 20 s") and board.measures == "metres swum to the right"
    with pytest.raises(GameError, match="is not a folder"):
        hall.board("swim", str(folder / "nowhere"))


def test_entries_race_with_the_players_champion(folder):
    session = PlaySession(champion=load_champion(folder / "walker-run.json"), champion_path="walker-run.json")
    hall = PlayHall(str(folder), session)
    assert hall.mine == session.title
    race = hall.watch([str(folder / "walker-evolving-run.json")], mine=True)
    names = [load_champion(folder / f).name for f in ("walker-evolving-run.json", "walker-run.json")]
    assert [s.label for s in race.scene.creatures] == [names[0], f"yours: {names[1]}"]
    with pytest.raises(GameError, match="a race needs one terrain|a race needs one medium"):
        hall.watch([str(folder / "eel-swim.json")], mine=True)


def test_the_start_screen_opens_a_card_as_a_champion_session(folder, tmp_path):
    menu = PlayMenu(directory=str(tmp_path))
    session = menu.open_champion(str(folder / "fish-swim.json"))
    assert session.state == "champion" and session.title.startswith(load_champion(folder / "fish-swim.json").name)
    (tmp_path / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    with pytest.raises(GameError, match="broken.png: a card that cannot be read: truncated"):
        menu.open_champion(str(tmp_path / "broken.png"))
    with pytest.raises(GameError, match="no such file"):
        menu.open_champion(str(tmp_path / "nope.png"))


def test_a_champion_saved_as_a_card_from_the_window_replays_exactly(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    champion = load_champion(SAVES / "hopper-jump.json")
    session = PlaySession(champion=champion, champion_path="hopper-jump.json")
    path = session.save_card()
    gen = champion.generation
    assert path == f"hopper-jump-gen{gen}.png" and session.save_card() == f"hopper-jump-gen{gen}-2.png"
    card = load_champion(tmp_path / path)
    assert card.hash() == champion.hash() and card.replay() == champion.replay()
    assert session.message.startswith(f"saved the card hopper-jump-gen{gen}-2.png")

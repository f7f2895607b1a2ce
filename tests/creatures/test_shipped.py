"""The shipped champions (``creatures.shipped``): one folder says where they are, and commands
take them by name. (That a plain install has them too: ``test_install.py``.)"""

import json
from pathlib import Path

import pytest

from creatures import game, shipped
from creatures.cli import args, play
from creatures.shipped import SAVES_DIR, champion_path, shipped_names
from evolution.champion import ChampionError

REPO = Path(__file__).resolve().parents[2]


def test_the_shipped_folder_is_the_repositorys_saves_folder():
    assert SAVES_DIR == REPO / "saves"
    assert shipped_names() == sorted(p.stem for p in (REPO / "saves").glob("*.json"))
    assert (SAVES_DIR / shipped.DEFAULT_SAVE).is_file()


def test_the_commands_use_the_one_shipped_folder():
    assert args.SAVES_DIR is SAVES_DIR
    assert args.default_targets() == [str(SAVES_DIR / shipped.DEFAULT_SAVE)]
    assert game.SAVES_DIR is SAVES_DIR


def test_a_name_is_the_shipped_champion_of_that_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert champion_path("eel-swim") == str(SAVES_DIR / "eel-swim.json")


def test_a_file_of_that_name_here_comes_first(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "eel-swim").write_text("{}")
    assert champion_path("eel-swim") == "eel-swim"


@pytest.mark.parametrize("target", ["nowhere.json", "runs/eel-swim", str(Path("/") / "eel-swim")])
def test_a_path_is_left_to_its_reader(tmp_path, monkeypatch, target):
    monkeypatch.chdir(tmp_path)
    assert champion_path(target) == target


def test_a_misspelt_name_is_refused_with_the_closest_and_the_list(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ChampionError) as info:
        champion_path("eel-swimm")
    message = str(info.value)
    assert "no shipped champion of that name (did you mean 'eel-swim'?)" in message
    assert message.endswith("shipped: " + ", ".join(shipped_names())) and "\n" not in message


def test_play_takes_a_shipped_champion_by_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert play.play_target("walker-run") == str(SAVES_DIR / "walker-run.json")


def test_play_takes_a_design_of_that_name_or_a_file_here_before_a_shipped_champion(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "eel-swim").mkdir()
    assert [play.play_target(t) for t in ("walker", "eel-swim", "mine.yaml")] == ["walker", "eel-swim", "mine.yaml"]


def test_play_refuses_a_misspelt_name_in_one_line_with_the_closest(run_creatures):
    result = run_creatures("play", "walkr-run")
    assert result.returncode == 2 and result.stdout == ""
    [line] = result.stderr.splitlines()
    assert line.startswith("creatures play: walkr-run: no built-in design, shipped champion or file of that "
                           "name (did you mean 'walker-run'?)")
    assert line.endswith(f"shipped champions: {', '.join(shipped_names())})")


def test_replay_takes_a_shipped_champion_by_name(run_creatures):
    result = run_creatures("replay", "hopper-jump", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["file"] == str(SAVES_DIR / "hopper-jump.json") and report["identical"]


@pytest.mark.parametrize("command", ["replay", "record"])
def test_a_misspelt_name_is_one_line_naming_it(run_creatures, tmp_path, command):
    argv = [command, "walkr-run"] + (["--out", tmp_path / "x.gif"] if command == "record" else [])
    result = run_creatures(*argv)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.splitlines() == [
        f"creatures {command}: walkr-run: no such file, and no shipped champion of that name "
        f"(did you mean 'walker-run'?); shipped: {', '.join(shipped_names())}"]

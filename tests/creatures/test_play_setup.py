"""``creatures play``'s start screen choices beyond the design and task: the episode's seconds,
the sensors and the medium, with ``creatures evolve``'s defaults, handed to the run; and their
command line options, refused in one line when wrong."""

import os

import pytest

from creatures.game import PlayMenu
from creatures.session import DEFAULT_SETUP, PlaySession
from evolution.evaluator import worker_count
from evolution.run import RunSettings
from evolution.sensors import DEFAULT_SENSORS
from render.game import GameError, Setup


def test_the_defaults_are_creatures_evolves():
    assert (DEFAULT_SETUP.seconds, DEFAULT_SETUP.sensors, DEFAULT_SETUP.medium) == (20.0, None, None)


def test_the_menu_offers_the_sensors_and_the_media():
    menu = PlayMenu()
    assert menu.sensors[0].name == "" and menu.sensors[0].shown == "the defaults"
    assert menu.sensors[0].description == ", ".join(DEFAULT_SENSORS)
    assert "rays" in [p.name for p in menu.sensors[1:]]
    assert [p.name for p in menu.media] == ["", "none", "water", "air"] and menu.media[0].shown == "the task's own"
    assert all(p.description for p in menu.sensors + menu.media)
    low, high = menu.seconds_range
    assert low <= DEFAULT_SETUP.seconds <= high


def test_a_run_started_from_the_menu_has_its_seconds_sensors_and_medium(tmp_path):
    menu = PlayMenu(directory=str(tmp_path), out_dir=str(tmp_path / "runs"))
    session = menu.start(Setup(design="walker", population=10, generations=1, seconds=5.0, sensors="rays",
                               medium="water", workers=1))
    try:
        settings = RunSettings.read(f"{session.run_dir}/settings.json")
    finally:
        session.close()
    assert settings.seconds == 5.0 and settings.sensors == [*DEFAULT_SENSORS, "rays"]
    assert settings.medium == "water" and settings.sim["fluid_density"] == 1000.0


def test_a_bad_sensor_list_is_refused_before_a_run_is_made(tmp_path):
    menu = PlayMenu(directory=str(tmp_path), out_dir=str(tmp_path / "runs"))
    with pytest.raises(GameError, match="sensors:"):
        menu.start(Setup(design="walker", sensors="clock"))          # already on
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("args, words", [
    (["--seconds", "0"], "--seconds must be a number of seconds above 0"),
    (["--sensors=-rays"], "--sensors: cannot take away sensor 'rays'"),
    (["--medium", "mud"], "--medium: unknown medium 'mud'"),
])
def test_bad_options_are_one_line(run_creatures, args, words):
    r = run_creatures("play", *args)
    assert r.returncode == 2 and words in r.stderr and r.stderr.count("\n") == 1


@pytest.mark.parametrize("workers", [0, 1, 3])
def test_workers_mean_what_they_mean_for_creatures_evolve(workers):
    """``--workers 0`` is one per core, as for evolve and resume; N is N."""
    assert PlaySession(workers=workers).workers == worker_count(workers)


def test_by_default_the_background_run_leaves_the_window_a_core():
    """(The start screen's setup, and the command line without --workers, hand on the default.)"""
    assert PlaySession(workers=DEFAULT_SETUP.workers).workers == max(1, (os.cpu_count() or 1) - 1)

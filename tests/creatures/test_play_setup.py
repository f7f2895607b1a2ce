"""``creatures play``'s start screen choices beyond the design and task: the episode's seconds,
the trials and their start noise, the sensors, the medium and whether the body grows, with
``creatures evolve``'s defaults, handed to the run; and their command line options, refused in
one line when wrong. (Growing bodies in the window: test_play_grow.py.)"""

import os
from dataclasses import replace

import pytest

from creatures.game import PlayMenu
from creatures.session import DEFAULT_SETUP, PlaySession
from evolution.evaluator import worker_count
from evolution.run import RunSettings
from evolution.sensors import DEFAULT_SENSORS
from evolution.trials import MAX_NOISE, MAX_TRIALS
from render.game import GameError


def test_the_defaults_are_creatures_evolves():
    assert (DEFAULT_SETUP.seconds, DEFAULT_SETUP.sensors, DEFAULT_SETUP.medium) == (20.0, None, None)


def test_the_start_screens_defaults_are_the_runs():
    """One owner: what play starts with is ``RunSettings``' defaults, not a copy of them."""
    d = RunSettings.defaults()
    assert DEFAULT_SETUP.design == "walker"
    assert (DEFAULT_SETUP.task, DEFAULT_SETUP.population, DEFAULT_SETUP.generations, DEFAULT_SETUP.seed,
            DEFAULT_SETUP.seconds) == (d["task"], d["population"], d["generations"], d["seed"], d["seconds"])
    assert (DEFAULT_SETUP.trials, DEFAULT_SETUP.noise) == (d["trials"], d["noise"])
    assert (DEFAULT_SETUP.terrain, DEFAULT_SETUP.sensors, DEFAULT_SETUP.medium) == (d["terrain"], None, d["medium"])
    assert d["grow"] is None and DEFAULT_SETUP.grow is False          # the body does not grow
    assert PlayMenu().setup == DEFAULT_SETUP


def test_the_menu_offers_the_sensors_and_the_media():
    menu = PlayMenu()
    assert menu.sensors[0].name == "" and menu.sensors[0].shown == "the defaults"
    assert menu.sensors[0].description == ", ".join(DEFAULT_SENSORS)
    assert "rays" in [p.name for p in menu.sensors[1:]]
    assert [p.name for p in menu.media] == ["", "none", "water", "air"] and menu.media[0].shown == "the task's own"
    assert all(p.description for p in menu.sensors + menu.media)
    low, high = menu.seconds_range
    assert low <= DEFAULT_SETUP.seconds <= high


def test_the_menu_offers_trials_and_start_noises_around_the_defaults():
    """1, 2, 4, 8 starts; the exact start, 0.1 mm, 1 mm, 1 cm: the defaults among them, all
    within what a run takes."""
    from render.menu import doubling_values
    menu = PlayMenu()
    assert doubling_values(*menu.trials_range) == [1, 2, 4, 8]
    assert DEFAULT_SETUP.trials in doubling_values(*menu.trials_range) and menu.trials_range[1] <= MAX_TRIALS
    assert menu.noise_values == (0.0, 1e-4, 1e-3, 1e-2) and DEFAULT_SETUP.noise in menu.noise_values
    assert max(menu.noise_values) <= MAX_NOISE


def test_a_run_started_from_the_menu_has_its_seconds_trials_sensors_and_medium(tmp_path):
    menu = PlayMenu(directory=str(tmp_path), out_dir=str(tmp_path / "runs"))
    session = menu.start(replace(DEFAULT_SETUP, population=10, generations=1, seconds=5.0, sensors="rays",
                                 medium="water", workers=1, trials=2, noise=1e-2))
    try:
        settings = RunSettings.read(f"{session.run_dir}/settings.json")
    finally:
        session.close()
    assert settings.seconds == 5.0 and settings.sensors == [*DEFAULT_SENSORS, "rays"]
    assert settings.medium == "water" and settings.sim["fluid_density"] == 1000.0
    assert (settings.trials, settings.noise) == (2, 1e-2)
    d = RunSettings.defaults()   # what the start screen does not offer: the run's defaults
    assert settings.statistic == d["statistic"]
    assert (settings.network, settings.clock_hz) == (d["network"], d["clock_hz"])


def test_the_default_trials_reach_the_run_as_they_are(tmp_path):
    """The exact start (noise 0) too: a setting the screen offers is a setting the run takes."""
    menu = PlayMenu(directory=str(tmp_path), out_dir=str(tmp_path / "runs"))
    session = menu.start(replace(DEFAULT_SETUP, population=10, generations=1, seconds=1.0, workers=1,
                                 trials=1, noise=0.0))
    try:
        settings = RunSettings.read(f"{session.run_dir}/settings.json")
    finally:
        session.close()
    assert (settings.trials, settings.noise) == (1, 0.0) and settings.trial_spec.exact
    assert settings.grow is None                       # growth off: the design's own body


def test_trials_a_run_does_not_take_are_refused_in_one_line(tmp_path):
    menu = PlayMenu(directory=str(tmp_path), out_dir=str(tmp_path / "runs"))
    with pytest.raises(GameError, match=f"trials must be a whole number from 1 to {MAX_TRIALS}"):
        menu.start(replace(DEFAULT_SETUP, trials=MAX_TRIALS + 1))
    with pytest.raises(GameError, match="noise must be a number of metres"):
        menu.start(replace(DEFAULT_SETUP, noise=1.0))


def test_the_command_lines_trials_and_noise_reach_the_start_screen(monkeypatch):
    from creatures import cli, display
    shown = []
    monkeypatch.setattr(display, "has_display", lambda: True)
    monkeypatch.setattr("creatures.cli.play.play_window", lambda session, menu, size: shown.append(menu) or 0)
    assert cli.main(["play", "--trials", "16", "--noise", "0.005"]) == 0
    assert (shown[0].setup.trials, shown[0].setup.noise) == (16, 0.005)
    assert cli.main(["play"]) == 0                     # none given: the run's defaults
    assert (shown[1].setup.trials, shown[1].setup.noise) == (DEFAULT_SETUP.trials, DEFAULT_SETUP.noise)


def test_the_command_lines_grow_switches_the_start_screens_toggle_on(monkeypatch):
    from creatures import cli, display
    shown = []
    monkeypatch.setattr(display, "has_display", lambda: True)
    monkeypatch.setattr("creatures.cli.play.play_window", lambda session, menu, size: shown.append(menu) or 0)
    assert cli.main(["play", "--grow"]) == 0 and cli.main(["play"]) == 0
    assert [m.setup.grow for m in shown] == [True, False]


def test_the_command_lines_grow_starts_a_design_growing(monkeypatch, tmp_path):
    from creatures import cli, display
    monkeypatch.chdir(tmp_path)
    shown = []
    monkeypatch.setattr(display, "has_display", lambda: True)
    monkeypatch.setattr("creatures.cli.play.play_window", lambda session, menu, size: shown.append(session) or 0)
    assert cli.main(["play", "sprout", "--grow", "--population", "10", "--generations", "1", "--seconds", "1",
                     "--workers", "1"]) == 0
    session = shown[0]
    try:
        settings = RunSettings.read(f"{session.run_dir}/settings.json")
    finally:
        session.close()
    assert settings.design_name == "sprout" and settings.grow == {"graph": True, "plan_weight": 6.0}


def test_a_bad_sensor_list_is_refused_before_a_run_is_made(tmp_path):
    menu = PlayMenu(directory=str(tmp_path), out_dir=str(tmp_path / "runs"))
    with pytest.raises(GameError, match="sensors:"):
        menu.start(replace(DEFAULT_SETUP, sensors="clock"))          # already on
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("args, words", [
    (["--seconds", "0"], "--seconds must be a number of seconds above 0"),
    (["--sensors=-rays"], "--sensors: cannot take away sensor 'rays'"),
    (["--medium", "mud"], "--medium: unknown medium 'mud'"),
    (["--trials", "0"], f"--trials must be a whole number from 1 to {MAX_TRIALS}, not 0"),
    (["--trials", str(MAX_TRIALS + 1)],
     f"--trials must be a whole number from 1 to {MAX_TRIALS}, not {MAX_TRIALS + 1}"),
    (["--noise", "0.5"], f"--noise must be a number of metres from 0 to {MAX_NOISE:g}, not 0.5"),
    (["--noise", "-0.001"], f"--noise must be a number of metres from 0 to {MAX_NOISE:g}"),
    (["--noise", "nan"], f"--noise must be a number of metres from 0 to {MAX_NOISE:g}, not nan"),
    (["walker-run", "--grow"], "--grow is for a design or the start screen; walker-run is a champion file"),
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

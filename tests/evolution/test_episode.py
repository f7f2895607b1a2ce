"""Plug-ins inside an episode: tasks that end or fail creatures, misbehaving tasks and sensors
(counted, or stopped with one line), restarting some creatures, and plug-in files evaluated in
worker processes and recorded by runs."""

from __future__ import annotations

import json

import numpy as np
import pytest

import physics
from evolution import (WORST_FITNESS, Episode, EpisodeRun, Evaluator, PluginError, Run,
                       genome_to_dict, neat_config_text, run_episode)
from evolution.run import RunError
from evolution_helpers import bits, design, neat_config, tiny_settings, varied_genomes
from plugin_helpers import Still, sensors_file, tasks_file

B = 4


def _run(tmp_path, task="run", sensors=None, seconds=1.0, batch=B):
    """An episode of the walker: ``task`` a built-in name or a class of my_tasks.py; ``sensors``
    classes of my_sensors.py, after the default ones."""
    if task[:1].isupper():
        task = f"{tasks_file(tmp_path)}:{task}"
    if sensors is not None:
        sensors = ",".join(f"{sensors_file(tmp_path)}:{s}" for s in sensors)
    episode = Episode.make(physics.examples.walker(), task, sensors=sensors, seconds=seconds)
    return EpisodeRun(episode, Still(), batch)


def _to_the_end(run):
    while not run.done:
        run.step()
    return run.fitness()


# --- tasks that end and fail creatures ----------------------------------------------------------------

def test_a_task_that_ends_creatures_freezes_their_fitness_and_stops_when_all_have_ended(tmp_path):
    run = _run(tmp_path, "Steps")           # creature b ends after b + 2 steps
    fitness = _to_the_end(run)
    assert run.t == B + 1 < run.episode.steps
    assert fitness.tolist() == [2.0, 3.0, 4.0, 5.0]
    assert run.ended.all() and not run.failed.any()


def test_a_task_that_fails_creatures_gets_them_the_worst_fitness(tmp_path):
    run = _run(tmp_path, "FailOdd", seconds=0.1)
    fitness = _to_the_end(run)
    assert run.failed.tolist() == [False, True, False, True]
    assert fitness[1] == fitness[3] == WORST_FITNESS
    assert fitness[0] == fitness[2] == run.episode.steps
    assert not run.nonfinite.any()


def test_a_fitness_of_the_wrong_shape_fails_every_creature_with_a_warning(tmp_path):
    run = _run(tmp_path, "WrongShape", seconds=0.05)
    fitness = _to_the_end(run)
    assert (fitness == WORST_FITNESS).all() and run.failed.all()
    assert run.warnings == [f"task '{tmp_path}/my_tasks.py:WrongShape' (file, {tmp_path.resolve()}/my_tasks.py): "
                            f"fitness() returned shape (5,), not (4,): the creatures are counted as failed"]


def test_a_nan_fitness_fails_that_creature_only(tmp_path):
    run = _run(tmp_path, "NaNForFirst", seconds=0.05)
    fitness = _to_the_end(run)
    assert run.failed.tolist() == [True, False, False, False]
    assert fitness[0] == WORST_FITNESS and (fitness[1:] == run.episode.steps).all()
    assert "returned a non-finite value" in run.warnings[0]


def test_an_exception_inside_update_names_the_plugin_method_file_and_line(tmp_path):
    run = _run(tmp_path, "Boom")
    with pytest.raises(PluginError) as exc:
        _to_the_end(run)
    text = str(exc.value)
    line = next(k for k, s in enumerate((tmp_path / "my_tasks.py").read_text().splitlines(), 1)
                if 'raise ValueError("boom' in s)
    assert text == (f"task '{tmp_path}/my_tasks.py:Boom' (file, {tmp_path.resolve()}/my_tasks.py) failed in "
                    f"update(): ValueError: boom at step 3 at {tmp_path.resolve()}/my_tasks.py:{line}")


# --- sensors --------------------------------------------------------------------------------------------

def test_plugin_sensors_add_their_inputs_after_the_others(tmp_path):
    run = _run(tmp_path, sensors=["ComX", "Twice"])
    names = run.episode.input_names()
    assert names[-3:] == [f"{tmp_path}/my_sensors.py:ComX", "steps a", "steps b"]
    assert run.inputs.shape == (B, 21 + 3)
    for _ in range(5):
        run.step()
    inputs = run.read_sensors()
    np.testing.assert_array_equal(inputs[:, -3], physics.centre_of_mass(run.model, run.state)[:, 0])
    assert (inputs[:, -2:] == 5.0).all()


def test_a_sensor_returning_the_wrong_shape_stops_the_episode_with_one_line(tmp_path):
    run = _run(tmp_path, sensors=["BadShape"])
    with pytest.raises(PluginError, match=r"read\(\) returned shape \(3, 3\), not \(4, 2\)"):
        run.step()


def test_an_exception_inside_a_sensor_names_it(tmp_path):
    run = _run(tmp_path, sensors=["Raises"])
    with pytest.raises(PluginError, match=r"sensor '.*my_sensors.py:Raises' .* failed in read\(\): KeyError: 'no such thing' at .*my_sensors.py:\d+"):
        run.step()


# --- restarting some creatures ----------------------------------------------------------------------------

def test_restarting_some_creatures_leaves_the_others_and_matches_a_fresh_start(tmp_path):
    """Creatures 1 and 2 restart after 30 steps; 30 steps later they are where creatures that
    started then would be, and creatures 0 and 3 are where 60 uninterrupted steps put them."""
    def driven(batch):
        class Sine:
            def __init__(self):
                self.run = None

            def reset(self):
                pass

            def activate(self, inputs):
                t = self.run.clock.time[:, None]
                return np.sin(2 * np.pi * t + np.arange(6)[None, :])
        brains = Sine()
        episode = Episode.make(physics.examples.walker(), f"{tasks_file(tmp_path)}:Rise", seconds=2.0)
        run = EpisodeRun(episode, brains, batch)
        brains.run = run
        return run

    run, fresh, long = driven(B), driven(B), driven(B)
    for _ in range(30):
        run.step()
        long.step()
    run.restart(np.array([False, True, True, False]))
    for _ in range(30):
        run.step()
        long.step()
        fresh.step()
    for b in (1, 2):
        assert np.array_equal(bits(run.state.pos[b]), bits(fresh.state.pos[b]))
        assert run.fitness()[b] == fresh.fitness()[b] and run.clock.step[b] == 30
    for b in (0, 3):
        assert np.array_equal(bits(run.state.pos[b]), bits(long.state.pos[b]))
        assert run.fitness()[b] == long.fitness()[b] and run.clock.step[b] == 60


# --- in worker processes, and in runs ----------------------------------------------------------------------

def test_a_plugin_file_scores_the_same_in_worker_processes(tmp_path):
    path = tasks_file(tmp_path)
    episode = Episode.make(design("walker").body, f"{path}:Rise",
                           sensors=f"rays,{sensors_file(tmp_path)}:ComX", seconds=0.5)
    config = neat_config(tmp_path / "neat.cfg", episode.n_inputs(), episode.n_outputs(), 8)
    genomes = [genome_to_dict(g) for g in varied_genomes(config, 8, seed=3)]
    text = neat_config_text(episode.n_inputs(), episode.n_outputs(), 8)
    with Evaluator(episode, text, workers=1) as one, Evaluator(episode, text, workers=2) as two:
        a, b = one.evaluate(genomes), two.evaluate(genomes)
    assert np.array_equal(bits(a.fitness), bits(b.fitness))
    assert np.ptp(a.fitness) > 0


def test_a_plugin_that_raises_in_a_worker_stops_the_evaluation_with_its_one_line(tmp_path):
    episode = Episode.make(design("walker").body, f"{tasks_file(tmp_path)}:Boom", seconds=0.5)
    config = neat_config(tmp_path / "neat.cfg", episode.n_inputs(), episode.n_outputs(), 4)
    genomes = [genome_to_dict(g) for g in varied_genomes(config, 4, seed=3)]
    with Evaluator(episode, neat_config_text(episode.n_inputs(), episode.n_outputs(), 4), workers=2) as pool:
        with pytest.raises(PluginError, match=r"failed in update\(\): ValueError: boom at step 3 at "):
            pool.evaluate(genomes)


def test_a_run_records_its_plugins_and_refuses_to_resume_when_a_file_changed(tmp_path):
    path = tasks_file(tmp_path)
    settings = tiny_settings(task=f"{path}:Rise", sensors=["clock", "rays"], generations=2)
    run = Run.create(tmp_path / "run", settings, design("walker").body)
    run.evolve()
    saved = json.loads((tmp_path / "run" / "settings.json").read_text())
    assert saved["plugins"]["task"] == {"name": f"{path}:Rise", "source": "file",
                                        "location": str(path.resolve()),
                                        "sha256": run.episode.task.ref.sha256}
    assert [s["name"] for s in saved["plugins"]["sensors"]] == ["clock", "rays"]
    assert saved["measures"] == "metres of rise"
    assert Run.open(tmp_path / "run").episode.task.ref == run.episode.task.ref
    path.write_text(path.read_text() + "\n# edited\n")
    with pytest.raises(RunError, match="has changed since it was recorded"):
        Run.open(tmp_path / "run")
    again = Run.open(tmp_path / "run", reload_plugins=True)
    assert again.episode.task.ref.sha256 != run.episode.task.ref.sha256
    assert json.loads((tmp_path / "run" / "settings.json").read_text())["plugins"]["task"]["sha256"] == \
        again.episode.task.ref.sha256


def test_a_run_is_checked_before_anything_is_written(tmp_path):
    for settings in (tiny_settings(task=f"{tasks_file(tmp_path)}:Boom"),
                     tiny_settings(sensors=["clock", f"{sensors_file(tmp_path)}:Raises"])):
        with pytest.raises(PluginError, match="failed in"):
            Run.create(tmp_path / "run", settings, design("walker").body)
        assert not (tmp_path / "run").exists()


def test_run_episode_returns_the_run_with_its_flags(tmp_path):
    episode = Episode.make(physics.examples.walker(), seconds=0.1)
    fitness, run = run_episode(episode, Still(), 2)
    assert fitness.shape == (2,) and not run.failed.any() and run.warnings == []

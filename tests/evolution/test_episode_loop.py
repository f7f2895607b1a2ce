"""The episode's loop in one kernel (``EpisodeRun.run_until``, ``evolution.rollout._run_steps``)
takes the steps ``EpisodeRun.step`` takes, bit for bit: the fitness, the state, the clock, the
flags and measures, the brains' inputs, outputs and node values; and an episode with a part the
kernel cannot take (a plug-in, a task of its own kind, muscles sharing commands, parallel brains)
is stepped in Python, the same."""

from __future__ import annotations

import numpy as np
import pytest

import physics
from evolution import Episode, EpisodeRun
from evolution.growth import grown_runs
from evolution.network import NetworkBatch, compile_networks
from evolution_helpers import bits, design, neat_config, varied_genomes
from plugin_helpers import Still, sensors_file, tasks_file
from creatures.design import load_design
from test_muscle_groups import GROUPED


def _brains(tmp_path, episode, batch, kind="feedforward", seed=3):
    n_in = EpisodeRun(episode, Still(), 1).inputs.shape[1]
    config = neat_config(tmp_path / "neat.cfg", n_in, len(episode.body.command_map()[2]), 10, kind)
    genomes = varied_genomes(config, batch, seed)
    return lambda: NetworkBatch(compile_networks(genomes, config, kind))


def _pair(make_run):
    """The same episode twice: stepped by ``step`` and by ``run_until`` (in two stretches)."""
    slow, fast = make_run(), make_run()
    while not slow.done:
        slow.step()
    fast.run_until(17)
    assert fast.t == min(17, slow.t) or fast.done
    fast.run_until(fast.episode.steps)
    return slow, fast


def _same(slow, fast):
    assert fast.t == slow.t
    assert (bits(fast.fitness()) == bits(slow.fitness())).all()
    for a, b in ((fast.state.pos, slow.state.pos), (fast.state.vel, slow.state.vel),
                 (fast.state.muscle_len, slow.state.muscle_len), (fast.inputs, slow.inputs),
                 (fast.outputs, slow.outputs), (fast._measures, slow._measures), (fast.clock.time, slow.clock.time),
                 (fast.brains.values, slow.brains.values)):
        assert (bits(a) == bits(b)).all()
    for a, b in ((fast.state.contact, slow.state.contact), (fast.ended, slow.ended), (fast.failed, slow.failed),
                 (fast.nonfinite, slow.nonfinite), (fast.clock.step, slow.clock.step)):
        assert np.array_equal(a, b)
    assert fast.state.time == slow.state.time and fast.done == slow.done


@pytest.mark.parametrize("name, task, terrain, sensors, kind, batch", [
    ("walker", "run", None, None, "feedforward", 6),
    ("walker", "run", None, "-default,clock,rays,velocity", "recurrent", 5),
    ("walker", "obstacle", None, "rays", "feedforward", 4),   # (its hurdles under the height sensor and the rays)
    ("walker", "jump", None, None, "feedforward", 4),
    ("walker", "climb", None, "-contacts", "feedforward", 4),
    ("eel", "swim", None, None, "feedforward", 3),            # (in water)
    ("bird", "fly", None, None, "feedforward", 3),            # (in air, the second half counted)
    ("glider", "fly-far", None, None, "recurrent", 3),
    ("walker", "run", "hills", None, "feedforward", 130),     # (two chunks of lanes)
])
def test_the_loop_in_one_kernel_takes_the_steps_step_takes(tmp_path, name, task, terrain, sensors, kind, batch):
    body = design(name).body
    episode = Episode.make(body, task, seconds=0.5, terrain=terrain, sensors=sensors)
    brains = _brains(tmp_path, episode, batch, kind)
    starts = np.random.default_rng(1).normal(0.0, 1e-3, (batch, len(body.spheres), 2))

    def make():
        run = EpisodeRun(episode, brains(), batch, False, starts=starts)
        assert run._kernel_args() is not None
        return run

    _same(*_pair(make))


def test_creatures_that_fail_end_the_kernel_loop_as_they_end_the_steps(tmp_path):
    """Starts deep in the ground fail every creature at once (the loop stops early), or some."""
    episode = Episode.make(design("walker").body, "run", seconds=0.5)
    brains = _brains(tmp_path, episode, 4)
    for sunk in ([0, 1, 2, 3], [1, 3]):
        starts = np.zeros((4, 8, 2))
        starts[sunk, :, 1] = -0.6
        slow, fast = _pair(lambda: EpisodeRun(episode, brains(), 4, False, starts=starts))
        assert fast.failed[sunk].all() and (len(sunk) < 4 or fast.t < episode.steps)
        _same(slow, fast)


def test_grown_bodies_wired_to_their_brains_take_the_same_steps(tmp_path):
    from test_growth import _growing_episode, _growth, _plans
    g = _growth()
    plans = _plans(g, 8, seed=4)
    episode = _growing_episode(g, 0.5)
    config = neat_config(tmp_path / "neat.cfg", episode.wiring.n_inputs, episode.wiring.n_outputs, 8)
    networks = compile_networks(varied_genomes(config, 8, 5), config, "feedforward")
    slow_runs, fast_runs = grown_runs(episode, g, plans, networks), grown_runs(episode, g, plans, networks)
    assert len(slow_runs) >= 3
    for (slow, _), (fast, _) in zip(slow_runs, fast_runs):
        assert fast._kernel_args() is not None
        while not slow.done:
            slow.step()
        fast.run_until(episode.steps)
        _same(slow, fast)


def test_an_episode_with_a_part_the_kernel_cannot_take_is_stepped_in_python(tmp_path):
    walker = design("walker").body
    brains = _brains(tmp_path, Episode.make(walker, "run"), 3)
    cases = [Episode.make(walker, f"{tasks_file(tmp_path)}:Rise", seconds=0.3),        # a plug-in task
             Episode.make(walker, "run", sensors=f"{sensors_file(tmp_path)}:ComX", seconds=0.3)]
    for episode in cases:
        n = EpisodeRun(episode, Still(), 1).inputs.shape[1]
        config = neat_config(tmp_path / "n.cfg", n, 6, 10)
        net = NetworkBatch(compile_networks(varied_genomes(config, 3, 2), config, "feedforward"))
        run = EpisodeRun(episode, net, 3, False)
        assert run._kernel_args() is None
        slow = EpisodeRun(episode, NetworkBatch(net.networks), 3, False)
        while not slow.done:
            slow.step()
        run.run_until(episode.steps)
        assert (bits(run.fitness()) == bits(slow.fitness())).all()
    parallel = brains()
    parallel.parallel = True
    assert EpisodeRun(Episode.make(walker, "run"), parallel, 3, False)._kernel_args() is None
    assert EpisodeRun(Episode.make(walker, "run"), brains(), 3, None)._kernel_args() is None
    body = load_design(GROUPED).body   # (muscles that share a brain's output)
    assert body.grouped
    episode = Episode.make(body, "run", seconds=0.3)
    n_in = EpisodeRun(episode, Still(), 1).inputs.shape[1]
    config = neat_config(tmp_path / "g.cfg", n_in, episode.n_outputs(), 10)
    run = EpisodeRun(episode, NetworkBatch(compile_networks(varied_genomes(config, 2, 1), config, "feedforward")), 2,
                     False)
    assert run._kernel_args() is None
    assert physics.kernel_plan(physics.build_model(walker, 2), physics.SimParams(solver="witkin")) is None


def test_every_kind_of_episode_hands_the_loop_arguments_of_one_type(tmp_path, monkeypatch):
    """numba compiles a kernel once more for every new combination of its arguments' types (an
    array's layout and whether it is read-only are part of its type), and the episode's loop holds
    the whole physics step: a fixed design, one with body genes (Fortran-ordered model arrays) and
    grown bodies wired to their brains (per-creature index rows) hand it the same types."""
    import numba
    from test_growth import _growing_episode, _growth, _plans
    from evolution import rollout

    seen = []
    real = rollout._run_steps

    def typed(*args):
        seen.append(tuple(numba.typeof(a) for a in args[1:]))   # (n, the steps, is an int either way)
        return real(*args)

    monkeypatch.setattr(rollout, "_run_steps", typed)
    for name in ("walker", "walker-evolving"):
        d = design(name)
        episode = Episode.make(d.body, "run", seconds=0.1, genes=d.genes)
        assert (name == "walker-evolving") == bool(episode.genes)
        EpisodeRun(episode, _brains(tmp_path, episode, 3)(), 3, False).run_until(episode.steps)
    g = _growth()
    episode = _growing_episode(g, 0.1)
    config = neat_config(tmp_path / "grown.cfg", episode.wiring.n_inputs, episode.wiring.n_outputs, 8)
    networks = compile_networks(varied_genomes(config, 6, 5), config, "feedforward")
    for run, _ in grown_runs(episode, g, _plans(g, 6, seed=4), networks):
        run.run_until(episode.steps)
    assert len(seen) >= 4 and all(types == seen[0] for types in seen), [
        i for i, types in enumerate(seen) if types != seen[0]]

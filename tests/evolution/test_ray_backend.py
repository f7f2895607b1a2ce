"""The Ray backend: a generation's chunks as Ray tasks on a local Ray started by these tests score
every genome exactly as the local evaluator does, report progress, fail loudly, and leave alone a
Ray they did not start."""

import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import physics

ray = pytest.importorskip("ray", reason="the ray backend needs Ray: pip install 'creatures[cluster]'")

from evolution import Episode, Evaluator, genome_to_dict, neat_config_text  # noqa: E402
from evolution.backends import make_evaluator  # noqa: E402
from evolution.ray_backend import RayEvaluator  # noqa: E402
from evolution_helpers import bits, design, neat_config, varied_genomes  # noqa: E402

COUNT = 12
SECONDS = 1.0


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    """A Ray of 2 CPUs on this machine for the whole module, as a user's script would start it."""
    if ray.is_initialized():
        pytest.skip("Ray is already running in this process")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def episode():
    return Episode.make(design("walker").body, "run", seconds=SECONDS)


@pytest.fixture(scope="module")
def neat_text(episode):
    return neat_config_text(episode.n_inputs(), episode.n_outputs(), COUNT)


@pytest.fixture(scope="module")
def dicts(episode, tmp_path_factory):
    config = neat_config(tmp_path_factory.mktemp("neat") / "neat.cfg", episode.n_inputs(),
                         episode.n_outputs(), COUNT)
    return [genome_to_dict(g) for g in varied_genomes(config, COUNT, seed=8)]


@pytest.fixture(scope="module")
def reference(episode, neat_text, dicts):
    """The local evaluator's scores, in this process."""
    with Evaluator(episode, neat_text, workers=1) as evaluator:
        return evaluator.evaluate(dicts)


@pytest.fixture(scope="module")
def cluster(episode, neat_text):
    with RayEvaluator(episode, neat_text, workers=2) as evaluator:
        yield evaluator


def test_plugin_files_travel_to_ray_tasks_and_score_as_locally(neat_text, dicts, tmp_path):
    """A task and a sensor from files: Ray's workers get their text (checked by its hash) and
    score every genome as the local evaluator does; a plug-in that raises in a Ray task stops the
    evaluation with its own one line."""
    from evolution import PluginError
    from plugin_helpers import sensors_file, tasks_file
    tasks, sensors = tasks_file(tmp_path), sensors_file(tmp_path)
    ep = Episode.make(design("walker").body, f"{tasks}:Rise", sensors=f"rays,{sensors}:ComX", seconds=SECONDS)
    text = neat_config_text(ep.n_inputs(), ep.n_outputs(), COUNT)
    config = neat_config(tmp_path / "neat.cfg", ep.n_inputs(), ep.n_outputs(), COUNT)
    genomes = [genome_to_dict(g) for g in varied_genomes(config, COUNT, seed=8)]
    with Evaluator(ep, text, workers=1) as local, RayEvaluator(ep, text, workers=2) as remote:
        assert np.array_equal(bits(local.evaluate(genomes).fitness), bits(remote.evaluate(genomes).fitness))
    boom = Episode.make(design("walker").body, f"{tasks}:Boom", seconds=SECONDS)
    with RayEvaluator(boom, neat_config_text(boom.n_inputs(), boom.n_outputs(), COUNT), workers=2) as remote:
        with pytest.raises(PluginError, match=r"failed in update\(\): ValueError: boom at step 3"):
            remote.evaluate(dicts)


def test_genomes_under_test_score_differently(reference):
    """Otherwise a mix-up of the order could not show."""
    assert len(set(reference.fitness.tolist())) == COUNT


@pytest.mark.parametrize("workers, chunk_size", [(1, None), (2, None), (3, None), (2, 5)])
def test_ray_tasks_give_the_bits_of_the_local_evaluator(episode, neat_text, dicts, reference,
                                                       workers, chunk_size):
    with RayEvaluator(episode, neat_text, workers=workers, chunk_size=chunk_size) as evaluator:
        result = evaluator.evaluate(dicts)
    assert evaluator.workers == workers
    assert np.array_equal(bits(result.fitness), bits(reference.fitness))
    assert np.array_equal(result.failed, reference.failed)
    assert np.array_equal(result.nonfinite, reference.nonfinite)
    assert result.seconds > 0.0


def test_creatures_that_break_apart_fail_on_ray_as_locally(dicts):
    """Walkers with 100 kN muscles that reach their length in a fiftieth of a second, stiff
    (stretch 0.01) and underdamped (damping 0.5): some brains break them apart (6 of these 12;
    with the default spring and dashpot the skeleton holds even 100 kN muscles), and the same
    ones fail on Ray."""
    from dataclasses import replace
    body = design("walker").body
    strong = replace(body, bones=[replace(b, muscle=replace(b.muscle, strength=1e5, speed=50.0, stretch=0.01,
                                                            damping=0.5)) if b.muscle else b
                                  for b in body.bones])
    harsh = Episode.make(strong, "run", seconds=1.0)
    text = neat_config_text(harsh.n_inputs(), harsh.n_outputs(), COUNT)
    with Evaluator(harsh, text, workers=1) as evaluator:
        local = evaluator.evaluate(dicts)
    with RayEvaluator(harsh, text, workers=3) as evaluator:
        result = evaluator.evaluate(dicts)
    assert 0 < local.failed.sum() < COUNT
    assert np.array_equal(result.failed, local.failed)
    assert np.array_equal(result.nonfinite, local.nonfinite)
    assert np.array_equal(bits(result.fitness), bits(local.fitness))


def test_ray_tasks_return_results_in_input_order(cluster, dicts, reference):
    order = np.random.default_rng(1).permutation(COUNT)
    result = cluster.evaluate([dicts[i] for i in order])
    assert np.array_equal(bits(result.fitness), bits(reference.fitness[order]))


def test_generations_reuse_the_evaluator(cluster, dicts, reference):
    """The episode and config put in the object store once serve every generation."""
    first = cluster.evaluate(dicts[:5])
    second = cluster.evaluate(dicts)
    assert np.array_equal(bits(first.fitness), bits(reference.fitness[:5]))
    assert np.array_equal(bits(second.fitness), bits(reference.fitness))


def test_chunks_default_to_the_cluster_cpus(episode, neat_text):
    with RayEvaluator(episode, neat_text) as evaluator:
        assert evaluator.workers == 2


def test_progress_reaches_the_total_and_never_goes_back(cluster, dicts):
    calls = []
    cluster.evaluate(dicts, on_progress=lambda done, total: calls.append((done, total)))
    total = COUNT * cluster.episode.steps
    assert calls[-1] == (total, total)
    assert all(t == total and 0 <= done <= total for done, t in calls)
    assert [done for done, _ in calls] == sorted(done for done, _ in calls)


def test_factory_picks_the_backend(episode, neat_text):
    with make_evaluator(episode, neat_text, workers=1) as local:
        assert type(local) is Evaluator
    with make_evaluator(episode, neat_text, workers=1, backend="ray") as remote:
        assert type(remote) is RayEvaluator


def test_factory_names_the_backends_for_an_unknown_one(episode, neat_text):
    with pytest.raises(ValueError, match="unknown backend 'spark' \\(choose from local, ray\\)"):
        make_evaluator(episode, neat_text, backend="spark")


def test_factory_refuses_an_address_for_the_local_backend(episode, neat_text):
    with pytest.raises(ValueError, match="an address is for the ray backend only"):
        make_evaluator(episode, neat_text, backend="local", address="auto")


def test_factory_says_how_to_install_ray_when_it_is_missing(episode, neat_text, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails as if not installed
    monkeypatch.delitem(sys.modules, "evolution.ray_backend")
    with pytest.raises(ImportError, match=r"^the ray backend needs Ray: pip install 'creatures\[cluster\]'$"):
        make_evaluator(episode, neat_text, backend="ray")


def test_a_failing_task_raises_in_the_driver(cluster, dicts):
    """A malformed genome fails its task: the driver raises, naming the chunk, instead of
    waiting for ever; the evaluator still works afterwards."""
    broken = dicts[:7] + [{"key": 99}] + dicts[8:]
    outcome = {}

    def evaluate():
        try:
            cluster.evaluate(broken)
        except Exception as error:  # noqa: BLE001 - what the driver raised is the result
            outcome["error"] = error

    thread = threading.Thread(target=evaluate, daemon=True)
    thread.start()
    thread.join(timeout=60)
    assert not thread.is_alive(), "the evaluation hangs"
    error = outcome.get("error")
    assert isinstance(error, RuntimeError)
    assert "creatures 6..11 failed: KeyError: 'nodes'" in str(error)
    assert len(cluster.evaluate(dicts[:3]).fitness) == 3


def test_close_leaves_a_ray_it_found_running(episode, neat_text):
    evaluator = RayEvaluator(episode, neat_text, workers=1)
    assert not evaluator.started_ray
    evaluator.close()
    assert ray.is_initialized()


def test_close_shuts_down_a_ray_it_started(tmp_path):
    """In a process of its own, where no Ray is running yet."""
    script = textwrap.dedent("""
        import ray
        from evolution import Episode, neat_config_text
        from evolution.ray_backend import RayEvaluator
        from evolution_helpers import design

        episode = Episode.make(design("walker").body, "run", seconds=0.1)
        text = neat_config_text(episode.n_inputs(), episode.n_outputs(), 4)
        with RayEvaluator(episode, text, workers=1) as evaluator:
            assert evaluator.started_ray and ray.is_initialized()
        assert not ray.is_initialized()
        print("closed")
    """)
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    env["PYTHONPATH"] = os.path.dirname(os.path.abspath(__file__))  # for evolution_helpers
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "closed"


# --- whole runs --------------------------------------------------------------------------------

def test_a_run_on_ray_equals_the_local_run_bit_for_bit(tmp_path):
    """The issue's promise: the same seed gives the same run on either backend (genomes,
    species, statistics, champions and the checkpoint)."""
    from evolution import Run
    from evolution_helpers import run_files, tiny_settings
    local, remote = tmp_path / "local", tmp_path / "ray"
    Run.create(local, tiny_settings(workers=2), design("walker").body).evolve()
    Run.create(remote, tiny_settings(workers=2, backend="ray"), design("walker").body).evolve()
    a, b = run_files(local), run_files(remote)
    assert a.pop("settings.json") != b.pop("settings.json")  # it names the backend
    assert a == b


def test_a_run_started_locally_resumes_on_ray_identically(tmp_path):
    from evolution import Run
    from evolution_helpers import run_files, tiny_settings
    straight, moved = tmp_path / "straight", tmp_path / "moved"
    Run.create(straight, tiny_settings(generations=4), design("walker").body).evolve()
    Run.create(moved, tiny_settings(generations=2), design("walker").body).evolve()
    run = Run.open(moved)
    run.set_generations(4)
    run.settings.backend = "ray"
    run.evolve()
    assert run_files(moved) == run_files(straight)


def test_run_settings_check_the_backend():
    from evolution_helpers import tiny_settings
    with pytest.raises(ValueError, match="unknown backend 'spark'"):
        tiny_settings(backend="spark")
    with pytest.raises(ValueError, match="an address is for the ray backend"):
        tiny_settings(address="auto")
    assert tiny_settings(backend="ray", address="auto").address == "auto"


def test_evolving_bodies_score_on_ray_as_locally(dicts):
    """Genomes with body genes (the walker with evolvable legs: each creature its own body, some
    with a bone switched off): Ray's tasks give the local evaluator's bits."""
    import random as _random
    from evolution.bodygenes import BodyGenes, Gene, Switch
    body = design("walker").body
    body = physics.Body.from_dict(body.to_dict())
    body.bones[10].optional = True
    genes = BodyGenes((Gene("knee.y", "sphere", 4, "y", 0.35, 0.65, 0.5),
                       Gene("foot.radius", "sphere", 5, "radius", 0.05, 0.15, 0.1)),
                      (Switch("thigh", "bone", 10),))
    ep = Episode.make(body, "run", seconds=SECONDS, genes=genes)
    text = neat_config_text(ep.n_inputs(), ep.n_outputs(), COUNT)
    rng = _random.Random(3)
    bodied = [{**d, "body": {"values": [rng.uniform(0.35, 0.65), rng.uniform(0.05, 0.15)],
                             "parts": [rng.random() < 0.6]}} for d in dicts]
    with Evaluator(ep, text, workers=1) as local, RayEvaluator(ep, text, workers=2) as remote:
        mine, theirs = local.evaluate(bodied), remote.evaluate(bodied)
    assert np.array_equal(bits(mine.fitness), bits(theirs.fitness))
    with Evaluator(ep, text, workers=1) as local:
        plain = local.evaluate([{**d, "body": {"values": [0.5, 0.1], "parts": [True]}} for d in dicts])
    assert not np.array_equal(bits(mine.fitness), bits(plain.fitness))  # the bodies mattered


def test_a_growing_generation_scores_on_ray_as_locally(tmp_path):
    """Bodies of many shapes (evolution.growth): Ray's tasks group them by topology as the local
    evaluator does, and every genome scores the same, bit for bit."""
    import dataclasses
    import random

    from evolution.growth import GrowSettings, Growth, grown_episode
    growth = Growth(design("sprout").body, GrowSettings(add_sphere=0.5, add_bone=0.3, toggle_muscle=0.2))
    base = Episode.make(design("sprout").body, "run", seconds=SECONDS)
    seed, _, _ = grown_episode(base, growth, growth.seed_plan())
    ep = dataclasses.replace(base, wiring=seed.wiring, growth=growth)
    text = neat_config_text(ep.n_inputs(), ep.n_outputs(), COUNT)
    config = neat_config(tmp_path / "neat.cfg", ep.n_inputs(), ep.n_outputs(), COUNT)
    genomes = varied_genomes(config, COUNT, seed=9)
    saved = random.getstate()
    random.seed(3)
    for k, g in enumerate(genomes):
        growth.generation = k
        plan = growth.seed_plan()
        for _ in range(k % 6):
            plan = growth.mutate(plan)
        g.body_plan = plan
    random.setstate(saved)
    dicts = [genome_to_dict(g) for g in genomes]
    assert len({growth.body(g.body_plan)[1] for g in genomes}) >= 3
    with Evaluator(ep, text, workers=1) as local, RayEvaluator(ep, text, workers=2) as remote:
        assert np.array_equal(bits(local.evaluate(dicts).fitness), bits(remote.evaluate(dicts).fitness))

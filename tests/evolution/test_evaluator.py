"""Evaluating a generation: a genome's fitness depends on the genome alone, never on how many
workers there are, which chunk it lands in, or who its neighbours are."""

import numpy as np
import pytest

from evolution import Episode, Evaluator, genome_to_dict, neat_config_text
from evolution.chunks import make_brains
from evolution.genomes import genome_from_dict
from evolution.rollout import run_episode
from evolution_helpers import bits, design, neat_config, varied_genomes

COUNT = 12
SECONDS = 1.0


@pytest.fixture(scope="module")
def episode():
    return Episode.make(design("walker").body, "run", seconds=SECONDS)


@pytest.fixture(scope="module")
def neat_text(episode):
    return neat_config_text(episode.n_inputs(), episode.n_outputs(), COUNT)


@pytest.fixture(scope="module")
def dicts(episode, tmp_path_factory):
    """Genome dicts of many shapes, with weights large enough to make the walkers move."""
    config = neat_config(tmp_path_factory.mktemp("neat") / "neat.cfg", episode.n_inputs(),
                         episode.n_outputs(), COUNT)
    return [genome_to_dict(g) for g in varied_genomes(config, COUNT, seed=8)]


@pytest.fixture(scope="module")
def serial(episode, neat_text):
    with Evaluator(episode, neat_text, workers=1) as evaluator:
        yield evaluator


@pytest.fixture(scope="module")
def reference(serial, dicts):
    """Fitness of the genomes in their order, in this process."""
    return serial.evaluate(dicts)


@pytest.fixture(scope="module")
def pool(episode, neat_text):
    with Evaluator(episode, neat_text, workers=2) as evaluator:
        assert evaluator.pool is not None
        yield evaluator


def test_genomes_under_test_score_differently(reference):
    """Otherwise a mix-up of the order could not show."""
    assert len(set(reference.fitness.tolist())) == COUNT


def test_evaluation_has_one_entry_per_genome(reference):
    assert reference.fitness.shape == reference.failed.shape == reference.nonfinite.shape == (COUNT,)
    assert reference.seconds > 0.0


def test_two_workers_give_the_bits_of_one(pool, dicts, reference):
    result = pool.evaluate(dicts)
    assert np.array_equal(bits(result.fitness), bits(reference.fitness))
    assert np.array_equal(result.failed, reference.failed)


def test_two_workers_return_results_in_input_order(pool, dicts, reference):
    order = np.random.default_rng(1).permutation(COUNT)
    result = pool.evaluate([dicts[i] for i in order])
    assert np.array_equal(bits(result.fitness), bits(reference.fitness[order]))


def test_reversed_order_gives_reversed_fitness(serial, dicts, reference):
    result = serial.evaluate(dicts[::-1])
    assert np.array_equal(bits(result.fitness), bits(reference.fitness[::-1]))


def test_fitness_does_not_depend_on_the_neighbours(serial, dicts, reference):
    """Each genome alone, and the genomes split into uneven chunks, score as in one batch."""
    alone = np.concatenate([serial.evaluate([d]).fitness for d in dicts])
    assert np.array_equal(bits(alone), bits(reference.fitness))
    chunks = np.concatenate([serial.evaluate(dicts[a:b]).fitness for a, b in ((0, 5), (5, 6), (6, 12))])
    assert np.array_equal(bits(chunks), bits(reference.fitness))


def test_duplicate_genomes_score_the_same(serial, dicts):
    result = serial.evaluate([dicts[3], dicts[0], dicts[3], dicts[3]])
    assert bits(result.fitness[0]) == bits(result.fitness[2]) == bits(result.fitness[3])


def test_evaluation_equals_a_rollout_of_the_compiled_genomes(episode, neat_text, dicts, reference,
                                                            tmp_path):
    """What a worker computes is the episode with the genomes' batched networks, nothing else:
    a replay built the same way reproduces the scores."""
    from evolution.genomes import load_neat_config
    config = load_neat_config(neat_text, tmp_path / "neat.cfg")
    brains = make_brains([genome_from_dict(d) for d in dicts], config, "feedforward")
    fitness, _ = run_episode(episode, brains, len(dicts))
    assert np.array_equal(bits(fitness), bits(reference.fitness))


def test_progress_reports_every_creature_step_at_the_end(serial, dicts):
    calls = []
    serial.evaluate(dicts[:4], on_progress=lambda done, total: calls.append((done, total)))
    total = 4 * serial.episode.steps
    assert calls and calls[-1] == (total, total)


def test_pool_progress_never_exceeds_the_total(pool, dicts):
    calls = []
    pool.evaluate(dicts, on_progress=lambda done, total: calls.append((done, total)))
    total = COUNT * pool.episode.steps
    assert calls[-1] == (total, total)
    assert all(0 <= done <= total for done, _ in calls)
    assert [done for done, _ in calls] == sorted(done for done, _ in calls)


def test_recurrent_fitness_does_not_depend_on_the_neighbours(episode, tmp_path):
    config = neat_config(tmp_path / "neat.cfg", episode.n_inputs(), episode.n_outputs(), 6,
                         "recurrent")
    dicts = [genome_to_dict(g) for g in varied_genomes(config, 6, seed=9)]
    text = neat_config_text(episode.n_inputs(), episode.n_outputs(), 6, "recurrent")
    with Evaluator(episode, text, "recurrent", workers=1) as evaluator:
        together = evaluator.evaluate(dicts).fitness
        alone = np.concatenate([evaluator.evaluate([d]).fitness for d in dicts])
    assert np.array_equal(bits(together), bits(alone))


def test_evolutions_numba_cache_is_stamped_with_physics_sources_too():
    """evolution's kernels inline physics functions, so its cache stamp (written by
    ``evolution.prepare_process``, which tests/conftest.py calls) covers physics' sources as well
    as its own: an edit of either clears it."""
    from pathlib import Path

    import evolution
    import physics
    from physics.kernel_cache import STAMP_NAME, numba_cache_dir, sources_digest

    here, phys = Path(evolution.__file__).parent, Path(physics.__file__).parent
    evolution.prepare_process()
    assert (numba_cache_dir(here) / STAMP_NAME).read_text() == sources_digest(here, phys)
    assert (numba_cache_dir(phys) / STAMP_NAME).read_text() == sources_digest(phys)


def test_packed_genomes_score_as_their_dicts(serial, pool, dicts, reference):
    """``creatures evolve`` sends pack_genome's tuples (dicts and tuples may even be mixed)."""
    from evolution.chunks import pack_genome

    packed = [pack_genome(genome_from_dict(d)) for d in dicts]
    assert np.array_equal(bits(serial.evaluate(packed).fitness), bits(reference.fitness))
    mixed = [p if k % 2 else d for k, (p, d) in enumerate(zip(packed, dicts))]
    assert np.array_equal(bits(pool.evaluate(mixed).fitness), bits(reference.fitness))


def _worker_heap() -> tuple:
    import gc
    return gc.get_freeze_count(), gc.get_threshold()[0]


def test_a_worker_freezes_its_heap_after_its_first_chunk(pool, dicts):
    """What a worker holds after its first chunk (kernels, modules, the episode) is left out of
    the garbage collector's collections: else every few chunks paid for a full collection of the
    whole process (docs/performance.md)."""
    pool.evaluate(dicts)
    for frozen, threshold in (pool.pool.submit(_worker_heap).result() for _ in range(4)):
        assert frozen > 1000 and threshold >= 10_000


@pytest.mark.parametrize("workers", ["serial", "pool"])
def test_a_genome_scored_besides_the_generation_scores_as_alone(workers, request, dicts):
    """The best before's fresh starts ride in the generation's batches (evolution.run): every
    creature scores the bits it scores without them, and they those they score alone."""
    from evolution.trials import post_seeds, start_offsets, trial_seeds, Trials
    evaluator = request.getfixturevalue(workers)
    P = len(evaluator.episode.body.spheres)
    starts = start_offsets(trial_seeds(Trials(2, 0.01), 0, 1), 0.01, P)
    post = start_offsets(post_seeds(0)[:5], 0.01, P)
    plain = evaluator.evaluate(dicts, starts=starts)
    both = evaluator.evaluate(dicts, starts=starts, also=(dicts[3], post))
    alone = evaluator.evaluate([dicts[3]], starts=post)
    assert np.array_equal(bits(both.fitness), bits(plain.fitness))
    assert np.array_equal(bits(both.trials), bits(plain.trials))
    assert plain.also is None and both.also.shape == (5,)
    assert np.array_equal(bits(both.also), bits(alone.trials[0]))


def test_a_genome_scored_besides_shares_the_chunks_out_evenly(dicts):
    from evolution.chunks import creature_chunks
    starts = np.zeros((2, 8, 2))
    chunks = creature_chunks(dicts, starts, 2, also=(dicts[0], np.ones((5, 8, 2))))
    sizes = [len(index) for _, (index, _) in chunks]
    assert sizes == [15, 14]            # 12 genomes x 2 starts, and 5 besides
    genomes, (index, offsets) = chunks[-1]
    assert genomes[-1] is dicts[0] and (index[-5:] == len(genomes) - 1).all() and (offsets[-5:] == 1.0).all()
    with pytest.raises(ValueError, match="starts"):
        creature_chunks(dicts, None, 2, also=(dicts[0], np.ones((5, 8, 2))))

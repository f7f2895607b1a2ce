"""Trials (evolution/trials.py): the starts a genome is scored from, how its trials make one
fitness, and the records a champion file keeps of them."""

import numpy as np
import pytest

from evolution.tasks import WORST_FITNESS
from evolution.trials import (LEGACY, MAX_NOISE, MAX_TRIALS, PostEvaluation, TrialRecord, Trials, check_seeds,
                              post_seeds, score, spread_of, start_offsets, trial_seeds)


def test_a_start_moves_every_sphere_by_about_the_noise_and_never_down():
    seeds = trial_seeds(Trials(64, 0.01), run_seed=3, generation=5)
    d = start_offsets(seeds, 0.01, 8)
    assert d.shape == (64, 8, 2) and (d[..., 1] >= 0).all()
    assert 0.008 < d[..., 0].std() < 0.012 and abs(d[..., 0].mean()) < 0.002
    assert np.array_equal(d, start_offsets(seeds, 0.01, 8))                 # from the seeds alone
    assert not start_offsets(seeds, 0.0, 8).any()                           # 0: the exact start


def test_trial_starts_are_new_every_generation_and_post_starts_the_same_for_the_whole_run():
    spec = Trials(4, 1e-3)
    assert trial_seeds(spec, 0, 1) == trial_seeds(spec, 0, 1) != trial_seeds(spec, 0, 2)
    assert trial_seeds(spec, 0, 1) != trial_seeds(spec, 1, 1)
    assert post_seeds(7) == post_seeds(7) != post_seeds(8) and len(post_seeds(7)) == 20
    every = [s for g in range(1, 50) for s in trial_seeds(spec, 7, g)]
    assert not set(every) & set(post_seeds(7)) and not set(every) & set(check_seeds(20))   # streams apart
    assert check_seeds(5, seed=2) == check_seeds(5, seed=2) != check_seeds(5, seed=3)
    assert all(0 <= s < 2**63 for s in every)                               # JSON-safe


@pytest.mark.parametrize("statistic, expected", [("mean", [2.0, 2.0]), ("min", [1.0, 0.0]),
                                                 ("median", [2.0, 1.0])])
def test_a_genomes_trials_make_one_fitness_and_one_failed_trial_fails_it(statistic, expected):
    fitness = np.array([[1.0, 2.0, 3.0], [0.0, 1.0, 5.0], [9.0, 9.0, 9.0]])
    failed = np.array([[False] * 3, [False] * 3, [False, True, False]])
    out, bad = score(fitness, failed, statistic)
    assert out.tolist() == [*expected, WORST_FITNESS] and bad.tolist() == [False, False, True]


def test_trials_refuse_what_they_cannot_be_in_one_line():
    for count, noise, statistic in [(0, 0.0, "mean"), (MAX_TRIALS + 1, 0.0, "mean"), (True, 0.0, "mean"),
                                    (1, -1e-3, "mean"), (1, MAX_NOISE * 2, "mean"), (1, float("nan"), "mean"),
                                    (1, 0.0, "max")]:
        with pytest.raises(ValueError) as exc:
            Trials(count, noise, statistic)
        assert "\n" not in str(exc.value)
    assert Trials(1, 0.0).exact and not Trials(1, 1e-3).exact
    assert Trials(1, 0.0).describe() == "one exact start"
    assert Trials(4, 0.01, "min").describe() == "4 starts moved 0.01 m, the min"
    assert Trials.from_dict(Trials(3, 0.002, "median").to_dict()) == Trials(3, 0.002, "median")


def test_a_champions_trial_and_post_records_read_back_and_refuse_anything_else():
    record = TrialRecord(Trials(2, 1e-3), (11, 12), (3.5, 4.5))
    assert TrialRecord.from_dict(record.to_dict()) == record and LEGACY.recorded is False
    assert record.offsets(3).shape == (2, 3, 2)
    post = PostEvaluation(1e-2, (1, 2, 3), (1.0, 2.0, 6.0))
    assert post.summary == spread_of([1.0, 2.0, 6.0]) == {"mean": 3.0, "worst": 1.0, "sd": pytest.approx(2.6458, 1e-4)}
    assert PostEvaluation.from_dict(post.to_dict()) == post
    forged = {**post.to_dict(), "mean": 99.0}                         # a summary is worked out again
    assert PostEvaluation.from_dict(forged).summary["mean"] == 3.0
    for bad in [{**record.to_dict(), "seeds": [1]}, {**record.to_dict(), "fitness": [1.0, float("inf")]},
                {**record.to_dict(), "seeds": [-1, 2]}, {**record.to_dict(), "colour": 1}, []]:
        with pytest.raises(ValueError):
            TrialRecord.from_dict(bad)
    with pytest.raises(ValueError):
        PostEvaluation.from_dict({**post.to_dict(), "starts": 0})

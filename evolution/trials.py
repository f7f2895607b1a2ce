"""Trials: each genome scored over several perturbed starts, and its champion post-evaluated.

A genome scored once, from one exact start, can win by a trajectory that happened to go far: a
brain in the loop amplifies a micrometre into metres (docs/engineering.md, "Predictable physics"), and
evolution picks the lucky start. So a genome is scored over ``count`` trials, each an episode
from the design's start with every sphere moved by ``noise`` (m): Gaussian across, its absolute
value upward (nothing starts lower than the design does). Its fitness is a ``statistic`` of its
trials' (a trial that fails makes the genome fail: a body that breaks in one start is a body
that breaks). The starts are fresh every generation and the same for every genome of a
generation, so genomes are compared on equal terms and a lucky genome meets new starts in the
next generation (Jakobi 1997, the envelope of noise; Milano, Carvalho & Nolfi 2018).

Every start is made from a seed (:func:`start_offsets`): a champion file records its trials'
seeds, and a replay starts from exactly those. The seeds of a generation's trials
(:func:`trial_seeds`) come from the run's seed and the generation; those of the post-evaluations
(:func:`post_seeds`: :data:`POST_STARTS` fresh starts that play no part in selection, the same
for every generation's best) from the run's seed, by a stream of their own; :func:`check_seeds`
are the seeds anyone checking a shared champion uses (``creatures replay --starts N``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .tasks import WORST_FITNESS

__all__ = ["Trials", "TrialRecord", "PostEvaluation", "LEGACY", "STATISTICS", "DEFAULT_TRIALS", "DEFAULT_NOISE", "DEFAULT_STATISTIC", "POST_STARTS",
           "MAX_TRIALS", "start_offsets", "trial_seeds", "post_seeds", "check_seeds", "score", "spread_of"]

#: how a genome's trials make its fitness: their mean, their worst, or their median
STATISTICS = ("mean", "min", "median")
#: the defaults (docs/evolving.md, "Fitness under perturbation": chosen by measurement)
DEFAULT_TRIALS = 1
DEFAULT_NOISE = 1e-2
DEFAULT_STATISTIC = "mean"
#: a champion's post-evaluation: over this many fresh starts, not used to select it
POST_STARTS = 20
#: the most trials a genome may have (a generation is population x trials episodes)
MAX_TRIALS = 64
#: the most a start may be moved (m): a perturbation, not another pose
MAX_NOISE = 0.1
#: the seed streams (``numpy.random.SeedSequence`` entropy): selection's trials, post-evaluation,
#: and the checks anyone can repeat
_TRIALS, _POST, _CHECK = 1, 2, 3


@dataclass(frozen=True)
class Trials:
    """How a genome is scored: ``count`` episodes from starts moved by ``noise`` (m), their
    fitnesses made one by ``statistic`` (:data:`STATISTICS`). ``Trials(1, 0.0)`` is the exact
    start alone, as runs were scored before trials."""

    count: int = DEFAULT_TRIALS
    noise: float = DEFAULT_NOISE
    statistic: str = DEFAULT_STATISTIC

    def __post_init__(self):
        if isinstance(self.count, bool) or not isinstance(self.count, int) or not 1 <= self.count <= MAX_TRIALS:
            raise ValueError(f"trials must be a whole number from 1 to {MAX_TRIALS}, not {self.count!r}")
        if isinstance(self.noise, bool) or not isinstance(self.noise, (int, float)) \
                or not (math.isfinite(self.noise) and 0.0 <= self.noise <= MAX_NOISE):
            raise ValueError(f"noise must be a number of metres from 0 to {MAX_NOISE:g}, not {self.noise!r}")
        if self.statistic not in STATISTICS:
            raise ValueError(f"the trials' statistic must be one of {', '.join(STATISTICS)}, not {self.statistic!r}")

    @property
    def exact(self) -> bool:
        """One trial from the design's exact start (how runs were scored before trials)."""
        return self.count == 1 and self.noise == 0.0

    def describe(self) -> str:
        if self.exact:
            return "one exact start"
        starts = "1 start" if self.count == 1 else f"{self.count} starts"
        how = "" if self.count == 1 else f", the {self.statistic}"
        return f"{starts} moved {self.noise:g} m{how}"

    def to_dict(self) -> dict:
        return {"count": self.count, "noise": self.noise, "statistic": self.statistic}

    @classmethod
    def from_dict(cls, data) -> "Trials":
        """Raises ValueError for anything but what :meth:`to_dict` writes."""
        if not isinstance(data, dict) or set(data) - {"count", "noise", "statistic"}:
            raise ValueError("trials must be an object of count, noise and statistic")
        return cls(data.get("count", DEFAULT_TRIALS), data.get("noise", DEFAULT_NOISE),
                   data.get("statistic", DEFAULT_STATISTIC))


def _seeds(stream: int, run_seed: int, index: int, n: int) -> list[int]:
    state = np.random.SeedSequence([stream, int(run_seed), int(index)]).generate_state(n, dtype=np.uint64)
    return [int(s) >> 1 for s in state]   # below 2^63: JSON-safe integers anywhere


def trial_seeds(trials: Trials, run_seed: int, generation: int) -> list[int]:
    """The seeds of generation ``generation``'s trials (the same for all its genomes)."""
    return _seeds(_TRIALS, run_seed, generation, trials.count)


def post_seeds(run_seed: int, n: int = POST_STARTS) -> list[int]:
    """The seeds of a run's post-evaluations: a stream of their own, so they never are a
    selection trial's, and the same for every generation's best. A genome that stays the best
    for many generations is then scored once from them, not over and over from new starts until
    one set flatters it (measured: the glider's champion was chosen by its luckiest of five
    post-evaluations, 19.5 where the other four gave 13.5-15.9), and generations' bests are
    compared on the same starts."""
    return _seeds(_POST, run_seed, 0, n)


def check_seeds(n: int, seed: int = 0) -> list[int]:
    """The seeds anyone re-scoring a champion uses (``creatures replay --starts N``): the
    same for every champion and every machine."""
    return _seeds(_CHECK, seed, 0, n)


def start_offsets(seeds, noise: float, spheres: int) -> np.ndarray:
    """(len(seeds), spheres, 2): how far each start moves each sphere from the design's start,
    for ``noise`` (m): Gaussian in x, its absolute value in y (up). Zeros for ``noise`` 0."""
    out = np.zeros((len(seeds), spheres, 2))
    if noise > 0.0:
        for k, seed in enumerate(seeds):
            d = np.random.default_rng(int(seed)).normal(0.0, noise, (spheres, 2))
            d[:, 1] = np.abs(d[:, 1])
            out[k] = d
    return out


def score(fitness: np.ndarray, failed: np.ndarray, statistic: str) -> tuple[np.ndarray, np.ndarray]:
    """Each genome's fitness and failure from its trials' (both (N, K)): ``statistic`` of the
    trials, or ``WORST_FITNESS`` for a genome a trial of which failed. Returns ``(fitness (N,),
    failed (N,))``."""
    fitness = np.asarray(fitness, dtype=np.float64)
    failed = np.asarray(failed, dtype=np.bool_).any(axis=1)
    if statistic == "mean":
        out = fitness.mean(axis=1)
    elif statistic == "min":
        out = fitness.min(axis=1)
    else:
        out = np.median(fitness, axis=1)
    return np.where(failed, WORST_FITNESS, out), failed


def spread_of(values) -> dict:
    """A post-evaluation's summary: ``{"mean", "worst", "sd"}`` of its fitnesses (sd with one
    degree of freedom; 0 for one value)."""
    v = np.asarray(values, dtype=np.float64)
    return {"mean": float(v.mean()), "worst": float(v.min()),
            "sd": float(v.std(ddof=1)) if v.size > 1 else 0.0}


def _ints(value, n: int, what: str) -> tuple:
    if not isinstance(value, list) or len(value) != n or not all(
            isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2**63 for v in value):
        raise ValueError(f"{what} must be a list of {n} whole numbers from 0 to 2^63 - 1")
    return tuple(value)


def _numbers(value, n: int, what: str) -> tuple:
    if not isinstance(value, list) or len(value) != n or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in value):
        raise ValueError(f"{what} must be a list of {n} finite numbers")
    return tuple(float(v) for v in value)


@dataclass(frozen=True)
class TrialRecord:
    """A genome's trials as its run scored them: how (``spec``), from which starts (``seeds``,
    :func:`start_offsets`) and what each gave (``fitness``). ``recorded`` False: a champion
    file without trials (from before them, or scored once from its exact start, which is
    written as then), scored once from its exact start (:data:`LEGACY`)."""

    spec: Trials
    seeds: tuple
    fitness: tuple = ()
    recorded: bool = True

    def offsets(self, spheres: int) -> np.ndarray:
        return start_offsets(self.seeds, self.spec.noise, spheres)

    def to_dict(self) -> dict:
        return {**self.spec.to_dict(), "seeds": list(self.seeds), "fitness": list(self.fitness)}

    @classmethod
    def from_dict(cls, data) -> "TrialRecord":
        """Raises ValueError (one line) for anything but what :meth:`to_dict` writes."""
        if not isinstance(data, dict):
            raise ValueError("'trials' must be an object")
        spec = Trials.from_dict({k: v for k, v in data.items() if k not in ("seeds", "fitness")})
        return cls(spec, _ints(data.get("seeds"), spec.count, "'trials.seeds'"),
                   _numbers(data.get("fitness"), spec.count, "'trials.fitness'"))

    def describe(self) -> str:
        return self.spec.describe()


#: what a champion from before trials was scored on: its exact start, once
LEGACY = TrialRecord(Trials(1, 0.0, "mean"), (0,), recorded=False)


@dataclass(frozen=True)
class PostEvaluation:
    """A champion scored again from fresh starts that took no part in selecting it: moved by
    ``noise`` (m) from the seeds ``seeds``, each start's ``fitness``."""

    noise: float
    seeds: tuple
    fitness: tuple

    @property
    def summary(self) -> dict:
        """``{"mean", "worst", "sd"}`` (:func:`spread_of`)."""
        return spread_of(self.fitness)

    def to_dict(self) -> dict:
        return {"starts": len(self.seeds), "noise": self.noise, "seeds": list(self.seeds),
                "fitness": list(self.fitness), **self.summary}

    @classmethod
    def from_dict(cls, data) -> "PostEvaluation":
        """Raises ValueError (one line) for anything but what :meth:`to_dict` writes (its
        summary is worked out again from its fitnesses, not trusted)."""
        if not isinstance(data, dict):
            raise ValueError("'post' must be an object")
        n = data.get("starts")
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 1000:
            raise ValueError("'post.starts' must be a whole number from 1 to 1000")
        noise = Trials(1, data.get("noise"), "mean").noise
        return cls(noise, _ints(data.get("seeds"), n, "'post.seeds'"), _numbers(data.get("fitness"), n, "'post.fitness'"))

    def describe(self) -> str:
        s = self.summary
        return (f"from {len(self.seeds)} fresh starts moved {self.noise:g} m: mean {s['mean']:.6g}, "
                f"worst {s['worst']:.6g}, sd {s['sd']:.3g}")

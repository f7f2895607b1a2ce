"""A generation's statistics (a row of a run's ``stats.csv``), and a generation evaluated whose
files wait for its best's post-evaluation (:class:`Waiting`: :meth:`evolution.run.Run.evolve`)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, fields

from .checkpoint import CheckpointError
from .jsonread import is_int

__all__ = ["STATS_FIELDS", "OK_FIELDS", "POST_FIELDS", "WALL_STATS_FIELDS", "GenerationStats", "Waiting", "stats_fields"]

STATS_FIELDS = ("generation", "best", "mean", "median", "p90", "p75", "p25", "p10", "worst",
                "species", "failed", "nonfinite", "eval_seconds", "creature_steps_per_s", "wall_seconds",
                "creatures", "ok_p90", "ok_p75", "ok_median", "ok_p25", "ok_p10", "ok_worst",
                "post_mean", "post_worst", "post_sd")
#: the percentiles and worst of the creatures that did not fail (all the failure value when all failed)
OK_FIELDS = STATS_FIELDS[-9:-3]
#: the best genome's post-evaluation (NaN: a run from before it)
POST_FIELDS = STATS_FIELDS[-3:]
#: stats.csv's columns before runs recorded how many creatures they evaluated and the percentiles
#: of those that did not fail (read from species.csv, and from the columns when none failed)
WALL_STATS_FIELDS = STATS_FIELDS[:15]
#: stats.csv's columns before runs measured their generations' wall time (read as 0: not measured)
_LEGACY_STATS_FIELDS = STATS_FIELDS[:14]


@dataclass
class GenerationStats:
    generation: int
    best: float
    mean: float
    median: float
    p90: float
    p75: float
    p25: float
    p10: float
    worst: float
    species: int
    failed: int
    nonfinite: int
    eval_seconds: float
    creature_steps_per_s: float
    #: the generation's wall time: from the end of the one before (or the start of the run) to
    #: its own end, breeding, evaluation, statistics and files together (0: not measured)
    wall_seconds: float = 0.0
    #: the creatures evaluated (the population; 0: not known)
    creatures: int = 0
    #: the percentiles and worst of the creatures that did not fail (a failed creature scores
    #: ``WORST_FITNESS``, so that the plain ones dive when many fail); every one is
    #: ``WORST_FITNESS`` when all failed, NaN when not known (a run from before they were
    #: recorded, with failures)
    ok_p90: float = math.nan
    ok_p75: float = math.nan
    ok_median: float = math.nan
    ok_p25: float = math.nan
    ok_p10: float = math.nan
    ok_worst: float = math.nan
    #: the best genome's post-evaluation: the mean, worst and standard deviation of its fitness
    #: from :data:`~evolution.trials.POST_STARTS` fresh starts (NaN: not known)
    post_mean: float = math.nan
    post_worst: float = math.nan
    post_sd: float = math.nan
    #: plug-in problems of this generation that did not stop it (not in stats.csv)
    warnings: list = field(default_factory=list)

    def row(self, fields: tuple = STATS_FIELDS) -> list:
        return [getattr(self, f) for f in fields]


@dataclass
class Waiting:
    """A generation evaluated whose files wait for its best's post-evaluation (scored beside the
    next generation: a batch of 20 creatures costs a third of one of 150, a batch of 170 a tenth
    more). A checkpoint keeps it (:meth:`to_state`): a run resumed writes the same files."""

    stats: GenerationStats     # its post-evaluation and seconds still to come
    record: dict               # best/gen_NNNN.json's, its "post" still None
    species: list              # species.csv's rows
    genome: object             # the best, as workers take it (pack_genome's tuples; its dict when resumed)
    steps: int                 # the creature-steps its evaluation simulated

    def to_state(self) -> dict:
        """As strings of JSON (a record or statistic may be non-finite, which a checkpoint refuses)."""
        stats = {f.name: getattr(self.stats, f.name) for f in fields(GenerationStats)}
        return {"stats": json.dumps(stats), "record": json.dumps(self.record), "species": self.species,
                "steps": self.steps}

    @classmethod
    def from_state(cls, data) -> "Waiting":
        """What :meth:`to_state` made; CheckpointError for anything else."""
        try:
            stats, record = GenerationStats(**json.loads(data["stats"])), json.loads(data["record"])
            species, steps = [[int(v) for v in row] for row in data["species"]], data["steps"]
            if not (isinstance(record, dict) and isinstance(record.get("genome"), dict) and is_int(steps)):
                raise ValueError
        except (TypeError, ValueError, KeyError):
            raise CheckpointError("its waiting generation (waiting) is not one a run wrote") from None
        return cls(stats, record, species, record["genome"], int(steps))


def stats_fields(header: str) -> tuple:
    """The columns of ``STATS_FIELDS`` a stats.csv header names, in its order: all of them, or
    an older run's (every run has at least ``_LEGACY_STATS_FIELDS``; read_csv names any missing)."""
    names = {h.strip() for h in header.split(",")}
    return _LEGACY_STATS_FIELDS + tuple(n for n in STATS_FIELDS[len(_LEGACY_STATS_FIELDS):] if n in names)

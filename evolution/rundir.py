"""Reading a run directory's files (:mod:`evolution.run`) as a run left them, or as a person or
a crash left them: every file checked, every problem one line naming the file and where in it
(a line of a CSV file, a key of a JSON file), a :class:`RunFileError`.

Each file is read up to a size limit (far above what a run writes), as UTF-8 JSON or CSV of the
expected shape; a value of the wrong type is refused here rather than failing somewhere later.
"""

from __future__ import annotations

import math
from pathlib import Path

import physics

from . import limits
from .jsonread import JsonFileError, is_int, is_number, read_json, read_text

__all__ = ["RunFileError", "read_object", "read_body", "read_best", "read_checkpoint",
           "read_csv", "champion_record", "MAX_JSON_BYTES", "MAX_CHECKPOINT_BYTES", "MAX_CSV_BYTES", "best_generation"]

#: settings.json, body.json, terrain.json, best/gen_NNNN.json: a few hundred kB at most
MAX_JSON_BYTES = 10_000_000
#: checkpoint.json: about 150 bytes a gene, for a population at the limits' largest
MAX_CHECKPOINT_BYTES = 300_000_000
#: stats.csv (one row a generation) and species.csv (one row a species a generation)
MAX_CSV_BYTES = 50_000_000


class RunFileError(JsonFileError):
    """A file of a run directory that cannot be used; ``str()`` is one line naming it."""


def _error(path, exc: JsonFileError) -> RunFileError:
    return RunFileError(path, exc.message, exc.where)


def read_object(path, max_bytes: int = MAX_JSON_BYTES, what: str = "file") -> dict:
    """A JSON object from ``path``; :class:`RunFileError` for anything else."""
    try:
        data = read_json(path, max_bytes, what)
    except JsonFileError as exc:
        raise _error(path, exc) from None
    if not isinstance(data, dict):
        raise RunFileError(path, f"not a {what} (a JSON object)")
    return data


def read_body(path) -> physics.Body:
    """The creature of a run's ``body.json``, checked against :mod:`evolution.limits` and by the
    engine (:func:`physics.build_model`)."""
    data = read_object(path, what="creature's body")
    try:
        for key in ("spheres", "bones", "joints", "clusters"):
            if not isinstance(data.get(key), list) or not all(isinstance(x, dict) for x in data[key]):
                raise ValueError(f"'{key}' must be a list of objects")
        for k, bone in enumerate(data["bones"]):
            if bone.get("muscle") is not None and not isinstance(bone["muscle"], dict):
                raise ValueError(f"bone {k}: 'muscle' must be an object or null")
        body = physics.Body.from_dict(data)
        limits.check_body(body)
        physics.build_model(body, 1)
    except (ValueError, TypeError, KeyError, IndexError, OverflowError) as exc:
        raise RunFileError(path, f"not a usable creature: {_plain(exc)}") from None
    return body


def read_body_and_genes(path):
    """``(body, genes)`` of a run's ``body.json``: the creature (:func:`read_body`) and the
    design's evolvable values and optional parts (its ``evolve`` object; none: a fixed design),
    checked against the body."""
    from .bodygenes import NO_GENES, BodyGenes
    body = read_body(path)
    data = read_object(path, what="creature's body")
    if "evolve" not in data:
        return body, NO_GENES
    try:
        genes = BodyGenes.from_dict(data["evolve"])
        genes.check(body)
    except ValueError as exc:
        raise RunFileError(path, f"its evolvable values ('evolve'): {_plain(exc)}") from None
    return body, genes


def read_best(path) -> dict:
    """A run's ``best/gen_NNNN.json``: ``{"generation": int, "fitness": float, "genome": dict}``,
    and ``"post"`` (its fresh starts: ``{"mean": float, "sd": float, ...}``) when the run scored them."""
    record = read_object(path, what="best-genome file")
    if not is_int(record.get("generation")) or record["generation"] < 1:
        raise RunFileError(path, "'generation' must be a whole number, 1 or more")
    if not is_number(record.get("fitness")):
        raise RunFileError(path, "'fitness' must be a number")
    if not isinstance(record.get("genome"), dict):
        raise RunFileError(path, "'genome' must be an object")
    if "post" in record and not (isinstance(record["post"], dict)
                                 and all(is_number(record["post"].get(k)) for k in ("mean", "sd"))):
        raise RunFileError(path, "'post' must be an object with numbers 'mean' and 'sd'")
    return record


def reliable(post: dict) -> float:
    """What a champion is chosen by: its fresh starts' mean less their standard deviation."""
    return post["mean"] - post["sd"]


def champion_record(records: list[dict]) -> dict:
    """The run's champion among its generations' best records (:func:`read_best`): the one that
    did best, and reliably, from fresh starts (its ``post`` mean less their standard deviation),
    so that no lucky selection score picks it, nor a gait that fails from some starts (docs/evolving.md,
    "Fitness under perturbation", measured); by fitness when some record has no fresh starts (a
    run from before them). The earliest of equals."""
    if all("post" in r for r in records):
        return max(records, key=lambda r: (reliable(r["post"]), r["fitness"], -r["generation"]))
    return max(records, key=lambda r: (r["fitness"], -r["generation"]))


def best_generation(path: Path) -> int | None:
    """N of a ``gen_NNNN.json`` file name, or None for a file of another name."""
    digits = path.stem[4:]
    return int(digits) if path.stem.startswith("gen_") and digits.isdigit() and len(digits) < 10 else None


def read_checkpoint(path) -> dict:
    """A run's ``checkpoint.json`` as a JSON object, its generation a whole number >= 0 (the rest
    is checked as it is restored: :func:`evolution.checkpoint.restore_population`)."""
    try:
        data = read_json(path, MAX_CHECKPOINT_BYTES, "checkpoint", finite=False)
    except JsonFileError as exc:
        raise _error(path, exc) from None
    if not isinstance(data, dict):
        raise RunFileError(path, "not a checkpoint (a JSON object)")
    generation = data.get("generation", 0)
    if not is_int(generation) or not 0 <= generation < 10**9:
        raise RunFileError(path, "'generation' must be a whole number, 0 or more")
    return data


def read_csv(path, names: tuple[str, ...], ints: tuple[str, ...] = (), numbered: bool = False) -> list:
    """The rows of a run's CSV file (a header line naming at least ``names``, then one row per
    line, blank lines skipped) as dicts of ``names``: whole numbers for ``ints``, finite floats
    for the others; with ``numbered``, as (line number, dict) pairs. :class:`RunFileError` at
    the first line that is not so."""
    try:
        text = read_text(path, MAX_CSV_BYTES, "CSV file")
    except JsonFileError as exc:
        raise _error(path, exc) from None
    lines = text.splitlines()
    if not lines or not lines[0].strip():
        raise RunFileError(path, "no header line", "1")
    header = [h.strip() for h in lines[0].split(",")]
    absent = [n for n in names if n not in header]
    if absent:
        raise RunFileError(path, f"the header has no {', '.join(absent)} column{'s' if len(absent) > 1 else ''}", "1")
    where = {n: header.index(n) for n in names}
    rows = []
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        cells = line.split(",")
        if len(cells) != len(header):
            raise RunFileError(path, f"{len(cells)} values, but the header names {len(header)}", str(number))
        row = {}
        for name, k in where.items():
            cell = cells[k].strip()
            try:
                if name in ints:
                    if len(cell) > 18:
                        raise ValueError
                    value = int(cell)
                else:
                    if len(cell) > 40:
                        raise ValueError
                    value = float(cell)
                    if not math.isfinite(value):
                        raise ValueError
            except ValueError:
                kind = "a whole number" if name in ints else "a finite number"
                raise RunFileError(path, f"{name} is {cell[:30]!r}, not {kind}", str(number)) from None
            row[name] = value
        rows.append((number, row) if numbered else row)
    return rows


def _plain(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 200 else text[:197] + "..."

"""Where a champion came from: hashes that name a design, a run's settings and a champion.

Every hash is ``sha256:`` and 64 hex digits, of canonical JSON (keys sorted, no spaces, floats
written as Python writes them: the shortest text that reads back exactly), so the same thing has
the same hash on every machine:

- a **design**'s hash is of its YAML text, as the run recorded it;
- a **run's settings** hash is of the settings that decide what its generations are (the design,
  task, terrain, sensors, seconds, population, seed, network, physics, neat config, starting
  genome and trials), not of those that only say how long or where it runs (generations, workers,
  backend);
- a **champion**'s hash is of what it does: its body, brain, task, terrain, sensors, episode and
  physics, not its name, author, recorded fitness or lineage. A card and a JSON file of one
  champion have the same hash; so does a copy whose recorded fitness someone edited.
"""

from __future__ import annotations

import hashlib
import json
import re

__all__ = ["digest", "design_hash", "settings_hash", "champion_hash", "short", "check_hash",
           "RESULT_SETTINGS"]

#: the run settings that decide what its generations are (RunSettings' fields)
RESULT_SETTINGS = ("design_text", "task", "terrain", "sensors", "seconds", "population", "seed",
                   "network", "clock_hz", "sim", "medium", "neat_config", "plugins", "start_genome")
#: run settings that decide its generations too, hashed when the settings have them (a run from
#: before trials has none and keeps its hash)
TRIAL_SETTINGS = ("trials", "noise", "statistic")
#: the parts of a champion document that decide what it does
_CHAMPION_PARTS = ("task", "terrain", "sensors", "episode", "physics", "brain")
_HASH = re.compile(r"sha256:[0-9a-f]{64}")


def digest(value) -> str:
    """``sha256:...`` of ``value`` as canonical JSON."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False, ensure_ascii=True)
    return "sha256:" + hashlib.sha256(text.encode("ascii")).hexdigest()


def design_hash(design_text: str) -> str:
    """The hash of a design's YAML text."""
    return "sha256:" + hashlib.sha256(design_text.encode("utf-8")).hexdigest()


def settings_hash(settings: dict) -> str:
    """The hash of a run's settings (``dataclasses.asdict(RunSettings)``), of the ones in
    :data:`RESULT_SETTINGS` (and of :data:`TRIAL_SETTINGS` it has)."""
    return digest({**{k: settings.get(k) for k in RESULT_SETTINGS},
                   **{k: settings[k] for k in TRIAL_SETTINGS if k in settings}})


def champion_hash(document: dict) -> str:
    """The hash of a champion document (``Champion.to_dict()``): of its creature's body and
    evolved parts and of :data:`_CHAMPION_PARTS`, not of the task's words (``measures``)."""
    creature = {k: v for k, v in document["creature"].items() if k != "design_yaml"}
    parts = {k: document[k] for k in _CHAMPION_PARTS}
    parts["task"] = {k: v for k, v in parts["task"].items() if k != "measures"}
    return digest({"creature": creature, **parts})


def short(value: str | None) -> str:
    """A hash as people read it: its first 12 hex digits (``-`` for none)."""
    return value.removeprefix("sha256:")[:12] if value else "-"


def check_hash(value, what: str) -> str | None:
    """``value`` if it is None or a well-formed hash, else a ValueError naming ``what``."""
    if value is None or (isinstance(value, str) and _HASH.fullmatch(value)):
        return value
    raise ValueError(f"{what} must be 'sha256:' and 64 hex digits, or null")

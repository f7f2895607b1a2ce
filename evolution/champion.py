"""Champion files: one small, safe, versioned JSON document per evolved creature.

A champion holds everything needed to replay it anywhere: the creature (as the engine's plain
body, and the design's YAML text for people), the task and terrain, the physics settings, the
NEAT genome and network kind, and where it came from (recorded fitness, generation, seed,
software versions). ``saves/README.md`` documents the format.

Opening a file someone sent is safe: plain JSON (never pickle, no code), a size limit, the format
name and version checked, finite numbers only, and every problem reported as one line
(:class:`ChampionError`), never a traceback.
"""

from __future__ import annotations

import json
import math
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import physics

from .genomes import NETWORK_KINDS, genome_from_dict, load_neat_config, neat_config_text
from .rollout import Episode, run_episode
from .tasks import TASKS, Task

__all__ = ["Champion", "ChampionError", "FORMAT", "VERSION", "MAX_BYTES", "load_champion",
           "save_champion", "software_versions", "champion_from_run"]

FORMAT = "creatures-champion"
VERSION = 1
#: champions larger than this are refused unread (a champion is a few tens of kilobytes)
MAX_BYTES = 5_000_000


class ChampionError(Exception):
    """A champion file that cannot be used; ``str()`` is one line saying why."""


def software_versions() -> dict:
    import importlib.metadata as md

    def v(name):
        try:
            return md.version(name)
        except md.PackageNotFoundError:
            return None
    return {"creatures": v("creatures"), "numpy": np.__version__, "numba": v("numba"),
            "neat-python": v("neat-python")}


@dataclass
class Champion:
    """An evolved creature and everything needed to replay it."""

    body: physics.Body
    design_yaml: str
    task: Task
    seconds: float
    clock_hz: float
    sim: physics.SimParams
    network: str
    genome: dict
    fitness: float
    generation: int
    seed: int
    software: dict
    name: str = ""

    @property
    def episode(self) -> Episode:
        return Episode(self.body, self.task, self.seconds, self.sim, self.clock_hz)

    def neat_config(self):
        """A neat config with the creature's input and output counts (what the networks are
        built with)."""
        ep = self.episode
        self._check_genome(ep.n_inputs(), ep.n_outputs())
        text = neat_config_text(ep.n_inputs(), ep.n_outputs(), 2, self.network)
        with tempfile.TemporaryDirectory() as tmp:
            return load_neat_config(text, Path(tmp) / "neat.cfg")

    def brains(self):
        """The champion's network, batched (a batch of one)."""
        from .evaluator import make_brains
        config = self.neat_config()
        try:
            return make_brains([genome_from_dict(self.genome)], config, self.network)
        except (KeyError, ValueError, TypeError, AssertionError, AttributeError) as exc:
            raise ChampionError(f"the genome does not fit the creature: {exc}") from None

    def node_slots(self) -> dict:
        """Node key -> slot in the values of :meth:`brains` (``NetworkBatch.values``)."""
        from .network import node_slots
        return node_slots(genome_from_dict(self.genome), self.neat_config(), self.network)

    def _check_genome(self, n_inputs: int, n_outputs: int) -> None:
        """Every connection joins an input or a node to a node; every output node exists."""
        try:
            for n in self.genome["nodes"]:
                for f, kind in (("key", int), ("bias", (int, float)), ("response", (int, float)),
                                ("activation", str), ("aggregation", str)):
                    if not isinstance(n.get(f), kind) or isinstance(n.get(f), bool):
                        raise ChampionError(f"a genome node lacks a proper '{f}'")
            nodes = {int(n["key"]) for n in self.genome["nodes"]}
            for c in self.genome["connections"]:
                i, o = int(c["in"]), int(c["out"])
                if not ((-n_inputs <= i < 0) or i in nodes) or o not in nodes:
                    raise ChampionError(f"the genome has a connection {i} -> {o} between nodes "
                                        f"that do not exist")
                if not isinstance(c["weight"], (int, float)) or not isinstance(c["enabled"], bool):
                    raise ChampionError("the genome has a connection with a bad weight or flag")
        except (KeyError, TypeError, ValueError) as exc:
            raise ChampionError(f"the genome is malformed: {exc}") from None
        missing = set(range(n_outputs)) - nodes
        if missing:
            raise ChampionError(f"the genome lacks output nodes {sorted(missing)} for the creature's "
                                f"{n_outputs} muscles")

    def replay(self, on_step=None) -> float:
        """Simulate the champion again, with the stepping code that scored it; its fitness."""
        fitness, _ = run_episode(self.episode, self.brains(), 1, on_step=on_step)
        return float(fitness[0])

    def to_dict(self) -> dict:
        return {
            "format": FORMAT, "version": VERSION, "name": self.name,
            "creature": {"body": self.body.to_dict(), "design_yaml": self.design_yaml},
            "task": self.task.to_dict(),
            "episode": {"seconds": self.seconds, "clock_hz": self.clock_hz},
            "physics": self.sim.to_dict(),
            "brain": {"network": self.network, "genome": self.genome},
            "recorded": {"fitness": self.fitness, "generation": self.generation, "seed": self.seed},
            "software": self.software,
        }


def save_champion(champion: Champion, path) -> None:
    """Write a champion file atomically."""
    from .run import write_atomic
    write_atomic(Path(path), json.dumps(champion.to_dict(), indent=1, allow_nan=False) + "\n")


def _reject_constant(name):
    raise ValueError(f"{name} is not a number JSON allows")


def _check_finite(value, where="the file"):
    if isinstance(value, float) and not math.isfinite(value):
        raise ChampionError(f"{where} holds a non-finite number")
    if isinstance(value, dict):
        for k, v in value.items():
            _check_finite(v, f"'{k}'")
    elif isinstance(value, list):
        for v in value:
            _check_finite(v, where)


def _get(data, *keys, kind=None):
    node = data
    for k in keys:
        if not isinstance(node, dict) or k not in node:
            raise ChampionError(f"missing '{'.'.join(keys)}'")
        node = node[k]
    wants_number = kind in (int, float) or (isinstance(kind, tuple) and (int in kind or float in kind))
    if kind is not None and (not isinstance(node, kind) or (wants_number and isinstance(node, bool))):
        raise ChampionError(f"'{'.'.join(keys)}' has the wrong type")
    return node


def _number(data, *keys, positive=False):
    """A finite float at ``keys`` (an int or a float, not a boolean)."""
    value = _get(data, *keys, kind=(int, float))
    try:
        value = float(value)
    except OverflowError:
        raise ChampionError(f"'{'.'.join(keys)}' is too large") from None
    if not math.isfinite(value) or (positive and not value > 0):
        raise ChampionError(f"'{'.'.join(keys)}' must be a finite{' positive' if positive else ''} number")
    return value


def load_champion(path) -> Champion:
    """Read and check a champion file. Raises :class:`ChampionError` with a one-line reason."""
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise ChampionError(f"cannot read it: {exc.strerror or exc}") from None
    if size > MAX_BYTES:
        raise ChampionError(f"it is {size} bytes; champions are at most {MAX_BYTES}")
    try:
        data = json.loads(path.read_bytes().decode("utf-8"), parse_constant=_reject_constant)
    except UnicodeDecodeError:
        raise ChampionError("not a text file") from None
    except (ValueError, RecursionError) as exc:
        raise ChampionError(f"not valid JSON: {str(exc).splitlines()[0]}") from None
    except OSError as exc:
        raise ChampionError(f"cannot read it: {exc.strerror or exc}") from None
    return champion_from_dict(data)


def champion_from_dict(data) -> Champion:
    """Check a parsed champion document and build the :class:`Champion`."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ChampionError(f"not a champion file (its format should be '{FORMAT}')")
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise ChampionError("the champion has no version number")
    if version > VERSION:
        raise ChampionError(f"champion format version {version} is newer than this software reads "
                            f"({VERSION}); upgrade creatures")
    if version < 1:
        raise ChampionError(f"unknown champion format version {version}")
    _check_finite(data)
    task = _get(data, "task", kind=dict)
    name = _get(data, "task", "name", kind=str)
    if name not in TASKS:
        raise ChampionError(f"unknown task '{name}'")
    network = _get(data, "brain", "network", kind=str)
    if network not in NETWORK_KINDS:
        raise ChampionError(f"unknown network kind '{network}'")
    seconds = _number(data, "episode", "seconds")
    if not 0 < seconds <= 3600:
        raise ChampionError("the episode must last more than 0 and at most 3600 seconds")
    try:
        body = physics.Body.from_dict(_get(data, "creature", "body", kind=dict))
        physics.build_model(body, 1)
        sim = physics.SimParams.from_dict(_get(data, "physics", kind=dict))
        spec = Task(name, task.get("terrain"), int(task.get("seed", 0)))
        spec.make_terrain()
    except ChampionError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, OverflowError) as exc:
        raise ChampionError(f"the creature or its settings are not usable: {exc}") from None
    genome = _get(data, "brain", "genome", kind=dict)
    for key in ("nodes", "connections"):
        if not isinstance(genome.get(key), list):
            raise ChampionError(f"the genome has no '{key}' list")
    software = data.get("software") or {}
    if not isinstance(software, dict):
        raise ChampionError("'software' must be an object")
    return Champion(
        body=body, design_yaml=str(_get(data, "creature", "design_yaml", kind=str)), task=spec,
        seconds=seconds, clock_hz=_number(data, "episode", "clock_hz", positive=True),
        sim=sim, network=network, genome=genome, fitness=_number(data, "recorded", "fitness"),
        generation=int(_get(data, "recorded", "generation", kind=int)),
        seed=int(_get(data, "recorded", "seed", kind=int)),
        software=software, name=str(data.get("name", "")))


def champion_from_run(run_dir, generation: int | None = None) -> Champion:
    """The best genome of a run directory as a champion: of ``generation``, or of the whole run."""
    from .run import RunSettings
    run_dir = Path(run_dir)
    try:
        settings = RunSettings.from_json((run_dir / "settings.json").read_text())
        body = physics.Body.from_dict(json.loads((run_dir / "body.json").read_text()))
    except OSError as exc:
        raise ChampionError(f"{run_dir} is not a run directory ({exc.strerror or exc})") from None
    except (ValueError, TypeError, KeyError) as exc:
        raise ChampionError(f"{run_dir}: unreadable settings: {exc}") from None
    files = sorted((run_dir / "best").glob("gen_*.json"))
    if not files:
        raise ChampionError(f"{run_dir} has no finished generation yet")
    if generation is not None:
        path = run_dir / "best" / f"gen_{generation:04d}.json"
        if not path.exists():
            raise ChampionError(f"{run_dir} has no generation {generation} "
                                f"(it has 1 to {len(files)})")
        paths = [path]
    else:
        paths = files
    try:
        records = [json.loads(p.read_text()) for p in paths]
        record = max(records, key=lambda r: (r["fitness"], -r["generation"]))
        record["genome"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ChampionError(f"{run_dir}: a damaged best-genome file: {exc}") from None
    return Champion(body=body, design_yaml=settings.design_text, task=settings.task_spec(),
                    seconds=settings.seconds, clock_hz=settings.clock_hz,
                    sim=physics.SimParams.from_dict(settings.sim), network=settings.network,
                    genome=record["genome"], fitness=float(record["fitness"]),
                    generation=int(record["generation"]), seed=settings.seed,
                    software=software_versions(),
                    name=f"{settings.design_name} {settings.task} gen {record['generation']}")

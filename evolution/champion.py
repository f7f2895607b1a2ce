"""Champion files: one small, safe, versioned JSON document per evolved creature.

A champion holds everything needed to replay it anywhere: the creature (as the engine's plain
body, and the design's YAML text for people), the task and sensors it was scored with (as
plug-in references: name, source, and for a file its hash), the terrain as points, the physics
settings, the NEAT genome and network kind, and where it came from (recorded fitness,
generation, seed, software versions). ``saves/README.md`` documents the format.

Opening a file someone sent is safe: plain JSON (never pickle, never code: a plug-in that is a
file or a module is loaded only when the user names it), a size limit, the format name and
version checked, finite numbers only, and every problem reported as one line
(:class:`ChampionError`), never a traceback.
"""

from __future__ import annotations

import json
import math
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

import physics

from . import limits, lineage
from .bodygenes import NO_GENES, BodyGenes
from .growgenes import seed_genes
from .growth import Grown, graph_names
from .genomes import NETWORK_KINDS, check_body, check_genome, genome_from_dict, load_neat_config, neat_config_text
from .jsonread import JsonFileError, loads, read_bytes, read_text
from .plugins import PluginError, PluginRef, load_ref, resolve
from .rollout import Episode, run_episode
from .sensors import DEFAULT_SENSORS
from .terrains import terrain_from_dict, terrain_to_dict
from .trials import LEGACY, PostEvaluation, TrialRecord, check_seeds, score, spread_of, start_offsets

__all__ = ["Champion", "ChampionError", "FORMAT", "VERSION", "MAX_BYTES", "load_champion",
           "save_champion", "software_versions", "champion_from_run"]

FORMAT = "creatures-champion"
#: the newest format version: 7 for a grown body of a run of the engine of graphs (stepped as its
#: graph's model, which older software would step as its own), 6 for another grown body (its
#: wiring to its brain, which older software would not replay), 5 for a champion scored over trials (their starts, which older
#: software would not replay), 4 for one whose muscles share brain outputs (muscle groups, which
#: older software would drive one output per muscle), 3 for one whose body evolved (its design's
#: ranges and its body genes, which older software could not replay), 2 otherwise
VERSION = 7
#: champions larger than this are refused unread (a champion is a few tens of kilobytes)
MAX_BYTES = 5_000_000
#: an author's name is at most this long
MAX_AUTHOR = 60


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
    """An evolved creature and everything needed to replay it.

    ``task`` and ``sensors`` are recorded plug-in references (:class:`PluginRef`): they are
    found again when the champion is replayed (:meth:`episode`). The terrain is carried as
    points, so it never needs its plug-in again."""

    body: physics.Body
    design_yaml: str
    task: PluginRef
    terrain: physics.Terrain
    terrain_ref: PluginRef
    sensors: list
    measures: str
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
    #: a champion of the user's own run may load the run's plug-in files; one read from a file
    #: (which anyone may have sent) loads only built-ins and installed entry points
    trusted: bool = False
    #: the plug-in files or modules the user named for it (``--plugin``), not saved
    named: tuple = ()
    #: the design's evolvable values and optional parts, if its body evolved: ``body`` is then
    #: the evolved body and the genome's ``body`` holds its genes
    genes: BodyGenes = NO_GENES
    #: who made it (shown on its card; empty: not said)
    author: str = ""
    #: its lineage (:mod:`evolution.lineage`): the hash of the settings of the run that evolved
    #: it, and of the champion that run started from (None: not known, or a run from scratch)
    settings_hash: str | None = None
    parent: str | None = None
    #: how it was scored (:class:`evolution.trials.TrialRecord`: its trials' seeds and
    #: fitnesses; ``LEGACY`` for a file from before trials: its exact start, once), and its
    #: post-evaluation from fresh starts (None: not made)
    trials: TrialRecord = LEGACY
    post: PostEvaluation | None = None
    #: a grown body's wiring to its brain and sphere slots (:class:`evolution.growth.Grown`;
    #: None: a design's body): ``body`` is the grown body, the genome's ``body`` holds its plan
    grown: Grown | None = None
    _episode: object = field(default=None, init=False, repr=False, compare=False)

    def bodies(self, count: int = 1):
        """The bodies of ``count`` copies of the champion as :meth:`Episode.model` takes them:
        its body genes (None: a fixed body), or a grown body itself."""
        if self.grown is not None:
            return [self.body] * count
        if not self.genes:
            return None
        body = self.genome.get("body") or {}
        return [body.get("values", [])] * count, [body.get("parts", [])] * count

    def offsets(self, offsets):
        """Starts made for the run's spheres ((K, S, 2): a grown body's run's sphere slots) as
        the champion's ((K, P, 2))."""
        return self.grown.offsets(offsets) if self.grown is not None else offsets

    @property
    def sphere_slots(self) -> int:
        """How many spheres its trials' starts move (its run's sphere slots, for a grown body)."""
        return self.grown.slot_count if self.grown is not None else len(self.body.spheres)

    def switched_off(self) -> list[str]:
        """The labels of the optional parts the champion has switched off."""
        return self.genes.off((self.genome.get("body") or {}).get("parts", [])) if self.genes else []

    @property
    def design_hash(self) -> str:
        """The hash of its design's YAML text (:func:`evolution.lineage.design_hash`)."""
        return lineage.design_hash(self.design_yaml)

    def hash(self) -> str:
        """The hash of what it does (:func:`evolution.lineage.champion_hash`): a card and a JSON
        file of it have the same one."""
        return lineage.champion_hash(self.to_dict())

    def lineage_line(self) -> str:
        """Its lineage in one line, for people."""
        start = f"design {lineage.short(self.design_hash)}, run seed {self.seed}"
        if not self.settings_hash:
            return f"{start} (the run's settings were not recorded)"
        parent = f"evolved from champion {lineage.short(self.parent)}" if self.parent else "evolved from scratch"
        return f"{start}, settings {lineage.short(self.settings_hash)}, {parent}"

    def episode_run(self, parallel: bool | None = False, trial: int = 0):
        """An :class:`evolution.EpisodeRun` of the champion alone, as evolution scored it
        (its brain, and its own body) in its trial ``trial`` (from 0: each trial started
        elsewhere, :attr:`trials`). Raises :class:`ChampionError` (one line)."""
        from .rollout import EpisodeRun
        if not 0 <= trial < self.trials.spec.count:
            raise ChampionError(f"it has {self.trials.spec.count} trial{'s' if self.trials.spec.count > 1 else ''}, "
                                f"not a trial {trial + 1}")
        starts = self.offsets(self.trials.offsets(self.sphere_slots)[trial:trial + 1])
        try:
            return EpisodeRun(self.episode(), self.brains(), 1, parallel, self.bodies(), starts)
        except PluginError as exc:
            raise ChampionError(str(exc)) from None

    def episode(self) -> Episode:
        """The episode it was scored in, its plug-ins found again (:attr:`named` stands for
        recorded files or modules, see :func:`evolution.plugins.load_ref`). Raises :class:`ChampionError` (one line) for a plug-in missing or changed."""
        if self._episode is None:
            try:
                task = load_ref(self.task, self.trusted, self.named)
                sensors = tuple(load_ref(r, self.trusted, self.named) for r in self.sensors)
            except PluginError as exc:
                raise ChampionError(str(exc)) from None
            grown = self.grown
            names = (graph_names(self.body, grown.names) if grown.graph else grown.names) if grown else {}
            self._episode = Episode(self.body, task, self.terrain, sensors, self.seconds, self.sim,
                                    self.clock_hz, genes=self.genes, part_names=names,
                                    wiring=grown.wiring if grown else None, varied=grown is not None,
                                    graph=bool(grown and grown.graph))
        return self._episode

    def n_inputs(self) -> int:
        return self.episode().n_inputs()

    def neat_config(self):
        """A neat config with the creature's input and output counts (what the networks are
        built with)."""
        ep = self.episode()
        try:
            n_inputs = ep.n_inputs()
        except PluginError as exc:
            raise ChampionError(str(exc)) from None
        self._check_genome(n_inputs, ep.n_outputs())
        text = neat_config_text(n_inputs, ep.n_outputs(), 2, self.network)
        with tempfile.TemporaryDirectory() as tmp:
            return load_neat_config(text, Path(tmp) / "neat.cfg")

    def brains(self):
        """The champion's network, batched (a batch of one)."""
        from .chunks import make_brains
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
        """The genome fits the creature and :mod:`evolution.limits` (see
        :func:`evolution.genomes.check_genome`): one line otherwise."""
        try:
            check_genome(self.genome, n_inputs, n_outputs, self.network)
        except ValueError as exc:
            raise ChampionError(str(exc)) from None

    def earlier_engine(self) -> str | None:
        """None if today's engine scored this champion; else one line saying which engine did
        and at what fitness (a replay steps with today's physics, so its number differs)."""
        if not self.sim.earlier_engine:
            return None
        return (f"scored by an earlier version of the physics engine (version {self.sim.engine}, fitness "
                f"{self.fitness:.6g}); replayed by this one (version {physics.ENGINE_VERSION}) it moves differently")

    def replay(self, on_step=None) -> float:
        """Simulate the champion again in each of its trials, with the stepping code that scored
        it; its fitness, the trials' statistic. ``on_step(t, state, inputs, outputs)`` after every
        step (of the batch of its trials). A plug-in that raises is a :class:`ChampionError`
        naming it."""
        fitness, failed = self._score_from(self.trials.offsets(self.sphere_slots), on_step)
        return float(score(fitness[None], failed[None], self.trials.spec.statistic)[0][0])

    def trial_fitness(self, trial: int = 0) -> float:
        """The recorded fitness of trial ``trial`` (from 0): what :meth:`episode_run` of it
        ends at. A champion from before trials: its fitness."""
        return float(self.trials.fitness[trial]) if self.trials.recorded else self.fitness

    def trial_label(self, trial: int = 0) -> str:
        """``trial 2 of 4`` for a champion of several trials; empty for one of a single one."""
        count = self.trials.spec.count
        return f"trial {trial + 1} of {count}" if count > 1 else ""

    def replay_trials(self) -> list[float]:
        """Each trial's fitness, replayed."""
        return [float(f) for f in self._score_from(self.trials.offsets(self.sphere_slots))[0]]

    def rescore(self, starts: int, noise: float | None = None, seed: int = 0) -> dict:
        """The champion from ``starts`` fresh starts that anyone can repeat
        (:func:`evolution.trials.check_seeds` of ``seed``), moved by ``noise`` (m; default: its
        trials' noise, or the default 1 cm for a champion of exact starts): ``{"starts", "noise", "seed",
        "fitness", "mean", "worst", "sd"}``."""
        from .trials import DEFAULT_NOISE
        noise = (self.trials.spec.noise or DEFAULT_NOISE) if noise is None else float(noise)
        fitness, _ = self._score_from(start_offsets(check_seeds(starts, seed), noise, self.sphere_slots))
        return {"starts": starts, "noise": noise, "seed": seed, "fitness": [float(f) for f in fitness],
                **spread_of(fitness)}

    def _score_from(self, offsets, on_step=None):
        """The champion run from each start of ``offsets`` (K, S, 2: by its run's sphere slots),
        in one batch: ``(fitness (K,), failed (K,))``."""
        from .chunks import make_brains
        K = len(offsets)
        offsets = self.offsets(offsets)
        bodies = self.bodies(K)
        config = self.neat_config()   # (the genome checked against the creature first)
        try:
            brains = make_brains([genome_from_dict(self.genome)], config, self.network, np.zeros(K, int))
        except (KeyError, ValueError, TypeError, AssertionError, AttributeError) as exc:
            raise ChampionError(f"the genome does not fit the creature: {exc}") from None
        try:
            fitness, run = run_episode(self.episode(), brains, K, on_step=on_step, bodies=bodies, starts=offsets)
        except PluginError as exc:
            raise ChampionError(str(exc)) from None
        return fitness, run.failed.copy()

    def to_dict(self) -> dict:
        creature = {"body": self.body.to_dict(), "design_yaml": self.design_yaml}
        if self.genes:  # the design's ranges, and what the champion switched off (for people)
            creature["evolve"] = self.genes.to_dict()
            creature["switched_off"] = self.switched_off()
        if self.grown is not None:
            creature["grown"] = self.grown.to_dict()
        # (one exact start, as every champion was scored before trials: written as then)
        trials = self.trials.recorded and not self.trials.spec.exact
        version = (7 if self.grown.graph else 6) if self.grown is not None \
            else 5 if trials else 4 if self.body.grouped else 3 if self.genes else 2
        extra = {"trials": self.trials.to_dict()} if trials else {}
        if self.post is not None:
            extra["post"] = self.post.to_dict()
        return {
            "format": FORMAT, "version": version, "name": self.name,
            "creature": creature,
            "task": {**self.task.to_dict(), "measures": self.measures},
            "terrain": {**self.terrain_ref.to_dict(), **terrain_to_dict(self.terrain)},
            "sensors": [r.to_dict() for r in self.sensors],
            "episode": {"seconds": self.seconds, "clock_hz": self.clock_hz},
            "physics": self.sim.to_dict(),
            "brain": {"network": self.network, "genome": self.genome},
            "recorded": {"fitness": self.fitness, "generation": self.generation, "seed": self.seed},
            **extra,
            "lineage": {"design": self.design_hash, "settings": self.settings_hash, "parent": self.parent},
            **({"author": self.author} if self.author else {}),
            "software": self.software,
        }


def champion_json(champion: Champion) -> str:
    """The champion file's text: indented JSON, the terrain's points on one line each."""
    data = champion.to_dict()
    terrain = data["terrain"]
    points = {key: json.dumps(terrain[key], allow_nan=False) for key in ("xs", "ys")}
    terrain.update(xs="@xs@", ys="@ys@")
    text = json.dumps(data, indent=1, allow_nan=False)
    for key, line in points.items():
        text = text.replace(f'"@{key}@"', line, 1)
    return text + "\n"


def save_champion(champion: Champion, path) -> None:
    """Write a champion file (:func:`champion_json`) atomically and durably
    (:func:`evolution.files.write_atomic`; a :class:`~evolution.files.WriteError` leaves an old
    file as it was)."""
    from .files import write_atomic
    write_atomic(Path(path), champion_json(champion))


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


def load_champion(path, plugins=()) -> Champion:
    """Read and check a champion file, or a card (a PNG holding one: :mod:`evolution.cards`).
    Raises :class:`ChampionError` with a one-line reason. ``plugins``: files or modules the user
    names for its plug-ins (``--plugin``); nothing else that is code is loaded for it."""
    from .cards import MAX_CARD_BYTES, CardError, champion_text, is_png
    path = Path(path)
    try:
        size = path.stat().st_size
        with open(path, "rb") as f:
            card = is_png(f.read(8))
    except OSError as exc:
        raise ChampionError(f"cannot read it: {exc.strerror or exc}") from None
    if path.suffix.lower() == ".png" and not card:
        raise ChampionError("named .png but not a PNG (its first bytes are not the PNG signature)")
    limit = MAX_CARD_BYTES if card else MAX_BYTES
    if size > limit:
        raise ChampionError(f"it is {size} bytes; {'cards' if card else 'champions'} are at most {limit}")
    try:  # at most the limit read (it may have grown), JSON nested at most 64 deep
        if card:
            text = champion_text(read_bytes(path, MAX_CARD_BYTES, "card"), MAX_BYTES)
        else:
            text = read_text(path, MAX_BYTES, "champion")
        data = loads(text, path, finite=False, max_digits=4300)
    except CardError as exc:
        raise ChampionError(f"a card that cannot be read: {exc}") from None
    except JsonFileError as exc:  # the caller names the file
        line, _, column = exc.where.partition(":")
        where = f" (line {line}, column {column} of its champion)" if card else f" (line {line}, column {column})"
        raise ChampionError(f"{exc.message}{where}" if column else exc.message) from None
    champion = champion_from_dict(data)
    champion.named = tuple(plugins)
    return champion


def champion_from_dict(data) -> Champion:
    """Check a parsed champion document and build the :class:`Champion`. Version 1 files (from
    before plug-ins) are read as the built-in task and terrain they name, with the default
    sensors, which is what they were scored with."""
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
    network = _get(data, "brain", "network", kind=str)
    if network not in NETWORK_KINDS:
        raise ChampionError(f"unknown network kind '{network}'")
    seconds = _number(data, "episode", "seconds")
    if not 0 < seconds <= 3600:
        raise ChampionError("the episode must last more than 0 and at most 3600 seconds")
    seed = _get(data, "recorded", "seed", kind=int)
    try:
        if version == 1:
            task, terrain, terrain_ref, sensors, measures = _plugins_v1(data, seed)
        else:
            task, terrain, terrain_ref, sensors, measures = _plugins_v2(data)
        body = physics.Body.from_dict(_get(data, "creature", "body", kind=dict))
        limits.check_body(body)
        physics.build_model(body, 1)
        genes = NO_GENES
        if "evolve" in data["creature"]:
            genes = BodyGenes.from_dict(data["creature"]["evolve"])
            genes.check(body)
        grown = None
        if "grown" in data["creature"]:
            if genes:
                raise ChampionError("a grown body has no design ranges ('evolve')")
            grown = Grown.from_dict(data["creature"]["grown"], body)
        sim = physics.SimParams.from_dict(_get(data, "physics", kind=dict))
        limits.check_sim(sim, seconds)
    except (ChampionError, PluginError) as exc:
        raise ChampionError(str(exc)) from None
    except (KeyError, TypeError, ValueError, IndexError, OverflowError) as exc:
        raise ChampionError(f"the creature or its settings are not usable: {exc}") from None
    genome = _get(data, "brain", "genome", kind=dict)
    for key in ("nodes", "connections"):
        if not isinstance(genome.get(key), list):
            raise ChampionError(f"the genome has no '{key}' list")
    try:
        check_body(genome.get("body"), grown.genes if grown is not None else genes)
    except ValueError as exc:
        raise ChampionError(f"the genome's body genes: {exc}") from None
    software = data.get("software") or {}
    if not isinstance(software, dict):
        raise ChampionError("'software' must be an object")
    design_yaml = str(_get(data, "creature", "design_yaml", kind=str))
    settings_hash, parent = _lineage(data, design_yaml)
    trials, post = _trials(data, version)
    try:  # printed by the commands that show a champion
        limits.check_text(data.get("author", ""), "'author'", MAX_AUTHOR)
        limits.check_text(data.get("name", ""), "'name'")
        limits.check_text(measures, "'task.measures'")
        limits.check_text(body.name, "'creature.body.name'")
    except ValueError as exc:
        raise ChampionError(str(exc)) from None
    return Champion(
        body=body, design_yaml=design_yaml, task=task,
        terrain=terrain, terrain_ref=terrain_ref, sensors=sensors, measures=measures,
        seconds=seconds, clock_hz=_number(data, "episode", "clock_hz", positive=True),
        sim=sim, network=network, genome=genome, fitness=_number(data, "recorded", "fitness"),
        generation=int(_get(data, "recorded", "generation", kind=int)), seed=int(seed),
        software=software, name=str(data.get("name", "")), genes=genes, author=data.get("author", ""),
        settings_hash=settings_hash, parent=parent, trials=trials, post=post, grown=grown)


def _trials(data, version: int) -> tuple:
    """A champion document's ``(trials, post-evaluation)``, checked: a file of format version 5
    records its trials (else it was scored once, from its exact start: ``LEGACY``), and any may
    hold a post-evaluation."""
    try:
        trials = TrialRecord.from_dict(data.get("trials")) if version >= 5 and "trials" in data else LEGACY
        post = PostEvaluation.from_dict(data["post"]) if data.get("post") is not None else None
    except ValueError as exc:
        raise ChampionError(str(exc)) from None
    if version >= 5 and "trials" not in data:
        raise ChampionError("missing 'trials' (a version 5 champion records them)")
    return trials, post


def _lineage(data, design_yaml: str) -> tuple:
    """A champion document's recorded ``(settings hash, parent hash)``, checked (a file from
    before lineage was recorded has none); its design hash must be its design's."""
    record = data.get("lineage")
    if record is None:
        return None, None
    if not isinstance(record, dict):
        raise ChampionError("'lineage' must be an object")
    try:
        design = lineage.check_hash(record.get("design"), "'lineage.design'")
        found = (lineage.check_hash(record.get("settings"), "'lineage.settings'"),
                 lineage.check_hash(record.get("parent"), "'lineage.parent'"))
    except ValueError as exc:
        raise ChampionError(str(exc)) from None
    if design is not None and design != lineage.design_hash(design_yaml):
        raise ChampionError("'lineage.design' is not the hash of its design_yaml (the design was edited)")
    return found


#: the tasks and terrains a version 1 champion may name (all built in)
V1_TASKS = ("run", "jump", "climb", "obstacle")
V1_TERRAINS = ("flat", "hills", "steps", "hurdles", "slope")


def _plugins_v1(data, seed):
    name = _get(data, "task", "name", kind=str)
    if name not in V1_TASKS:
        raise ChampionError(f"unknown task '{name}'")
    task = resolve("task", name)
    terrain_name = data["task"].get("terrain") or task.sample.default_terrain
    if terrain_name not in V1_TERRAINS:
        raise ChampionError(f"unknown terrain '{terrain_name}'")
    maker = resolve("terrain", terrain_name)
    sensors = [resolve("sensor", n).ref for n in DEFAULT_SENSORS]
    task_seed = data["task"].get("seed", seed)
    if not isinstance(task_seed, int) or isinstance(task_seed, bool) or task_seed < 0:
        raise ChampionError("'task.seed' must be a whole number >= 0")
    return task.ref, maker.make(task_seed), maker.ref, sensors, task.sample.measures


def _plugins_v2(data):
    task = PluginRef.from_dict("task", _get(data, "task", kind=dict))
    measures = _get(data, "task", "measures", kind=str)
    tdata = _get(data, "terrain", kind=dict)
    terrain_ref = PluginRef.from_dict("terrain", tdata)
    try:
        terrain = terrain_from_dict({"kind": terrain_ref.name, **tdata})
    except ValueError as exc:
        raise ChampionError(str(exc)) from None
    sensors = _get(data, "sensors", kind=list)
    if not sensors or len(sensors) > 1000:
        raise ChampionError("the champion must list between 1 and 1000 sensors")
    return task, terrain, terrain_ref, [PluginRef.from_dict("sensor", d) for d in sensors], measures


def champion_from_run(run_dir, generation: int | None = None) -> Champion:
    """The best genome of a run directory as a champion: of ``generation``, or of the whole run
    (:func:`evolution.rundir.champion_record`: the one best and most reliable from fresh
    starts).
    Every file it reads is checked (:mod:`evolution.rundir`): a :class:`ChampionError` naming
    the file otherwise."""
    from .run import RunSettings, read_terrain
    from .rundir import best_generation, champion_record, read_best, read_body_and_genes
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise ChampionError(f"{run_dir} is not a run directory (not a directory)")
    if not (run_dir / "settings.json").is_file():
        raise ChampionError(f"{run_dir} is not a run directory (no settings.json)")
    try:
        settings = RunSettings.read(run_dir / "settings.json")
        body, genes = read_body_and_genes(run_dir / "body.json")
    except JsonFileError as exc:
        raise ChampionError(str(exc)) from None
    files = {n: p for p in (run_dir / "best").glob("gen_*.json") if (n := best_generation(p)) is not None}
    if not files:
        raise ChampionError(f"{run_dir} has no finished generation yet")
    if generation is not None:
        if generation not in files:
            raise ChampionError(f"{run_dir} has no generation {generation} "
                                f"(it has {min(files)} to {max(files)})")
        paths = [files[generation]]
    else:
        paths = [files[n] for n in sorted(files)]
    design_genes = genes
    if settings.grow is not None:   # its genomes carry the genes that are not their plan's
        genes = seed_genes(genes).carried
    try:
        records = [read_best(p) for p in paths]
        record = champion_record(records)
        outputs = settings.grow_settings.muscles if settings.grow is not None else len(body.command_map()[2])
        check_genome(record["genome"], None, outputs, settings.network)
        check_body(record["genome"].get("body"), genes)
    except JsonFileError as exc:
        raise ChampionError(str(exc)) from None
    except ValueError as exc:  # the genome
        raise ChampionError(f"{paths[records.index(record)]}: {exc}") from None
    # no plug-in code runs here: the champion records the run's plug-ins as the run did
    try:
        if settings.plugins is not None:
            task_ref, terrain_ref, sensor_refs = settings.recorded_refs()
            measures = settings.measures or "fitness"
        else:  # a run from before plug-ins were recorded: built-ins by name
            task, maker, sensors = settings.resolve_plugins(recorded=False)
            task_ref, terrain_ref, sensor_refs = task.ref, maker.ref, [s.ref for s in sensors]
            measures = task.sample.measures
        terrain = read_terrain(run_dir, settings)
    except JsonFileError as exc:
        raise ChampionError(str(exc)) from None
    except (PluginError, OSError, ValueError, TypeError, KeyError) as exc:
        raise ChampionError(f"{run_dir}: {exc}") from None
    grown = None
    if settings.grow is not None:   # a grown body: its plan's, wired as the run recorded
        try:
            body, grown = _grown_of(body, design_genes, settings, record)
        except ValueError as exc:
            raise ChampionError(f"{paths[records.index(record)]}: {exc}") from None
        genes = NO_GENES   # (its body has them)
    elif genes:  # the champion's own body: the design's with its genes
        genome_body = record["genome"]["body"]
        body = genes.body(body, genome_body["values"], genome_body["parts"])
    return Champion(body=body, design_yaml=settings.design_text, task=task_ref, terrain=terrain,
                    terrain_ref=terrain_ref, sensors=sensor_refs, measures=measures,
                    seconds=settings.seconds, clock_hz=settings.clock_hz,
                    sim=physics.SimParams.from_dict(settings.sim), network=settings.network,
                    genome=record["genome"], fitness=float(record["fitness"]),
                    generation=int(record["generation"]), seed=settings.seed,
                    software=software_versions(), trusted=True,
                    name=f"{settings.design_name} {task_ref.short} gen {record['generation']}",
                    genes=genes, settings_hash=lineage.settings_hash(asdict(settings)), parent=settings.parent,
                    grown=grown,
                    **_trials_of_record(record, paths[records.index(record)]))


def _grown_of(seed: physics.Body, genes: BodyGenes, settings, record: dict) -> tuple:
    """A growing run's best-genome record's body and :class:`Grown` record (``genes``: its
    design's). ValueError (one line)."""
    from .growth import Growth, Plan
    genome_body = record["genome"].get("body") or {}
    plan = genome_body.get("plan")
    if plan is None or "grown" not in record:
        raise ValueError("the run grows its bodies, but this genome has no body plan or wiring")
    growth = Growth(seed, settings.grow_settings, genes)
    plan = Plan.from_dict(plan)
    growth.check(plan)
    body = growth.body(plan.with_genes(genome_body.get("values", ()), genome_body.get("parts", ())))[0]
    return body, Grown.from_dict(record["grown"], body)


def _trials_of_record(record: dict, path) -> dict:
    """A best-genome record's trials and post-evaluation as :class:`Champion` fields (a run from
    before trials recorded neither: its exact start, once)."""
    try:
        trials = TrialRecord.from_dict(record["trials"]) if "trials" in record else LEGACY
        post = PostEvaluation.from_dict(record["post"]) if record.get("post") is not None else None
    except ValueError as exc:
        raise ChampionError(f"{path}: {exc}") from None
    return {"trials": trials, "post": post}

"""An evolution run: NEAT (neat-python) over batched rollouts, written to a run directory.

A run directory holds::

    settings.json        every setting of the run, the design's YAML text included, and the
                         plug-ins it uses (task, terrain, sensors: name, source, file and hash)
    body.json            the creature as the engine's plain body
    terrain.json         the ground it is evolved on, as points (so the run does not depend on
                         the terrain's code or file staying as it was)
    neat.cfg             the neat-python config the run uses
    stats.csv            one row per generation: best, mean, median, percentiles, species,
                         failed creatures, evaluation time (its trials and the best's
                         fresh starts), the generation's wall time (from
                         the end of the one before: reproduction, evaluation, statistics, files),
                         the creatures evaluated, the percentiles and worst of those that
                         did not fail (``ok_median``...: a failed one scores -1000, which drags
                         the plain ones down when many fail), and the best genome's
                         post-evaluation (``post_mean``, ``post_worst``, ``post_sd``: from
                         fresh starts, :mod:`evolution.trials`). A run from before a column
                         keeps its header's columns when it goes on.
    species.csv          species sizes per generation (generation, species, size)
    best/gen_0001.json   the best genome of each generation, with its fitness, its trials (their
                         seeds and fitnesses) and its post-evaluation
    checkpoint.json      the whole NEAT state after the last finished generation
                         (:mod:`evolution.checkpoint`), rewritten after every generation

The seed covers everything random: neat-python's global ``random`` (it draws all its randomness
from it), numpy's global generator, the terrain, and the starts of every generation's trials
and post-evaluation (:mod:`evolution.trials`: each genome is scored over ``trials`` starts moved
by ``noise``, made one by ``statistic``; the generation's best is then scored again from
:data:`~evolution.trials.POST_STARTS` fresh starts, which took no part in selecting it; the run's
champion is the generation best that did best and most reliably from them (their mean less their
standard deviation), :func:`evolution.rundir.champion_record`).
Files are written atomically and durably (a temporary file, flushed to the disk, a rename, the
directory flushed: :mod:`evolution.files`), so
a crash or a power cut never leaves half a file. A file that cannot be written (a full disk)
stops the run with a :class:`WriteError`; the last checkpoint stays as it was, so the run resumes.

A run stopped at any point (Ctrl-C, kill -9, a power cut) resumes from its checkpoint with
:meth:`Run.open` and :meth:`Run.evolve`: rows and best files of a generation that finished after
the checkpoint are dropped, that generation is evaluated again, and the run goes on exactly as
the uninterrupted run would have (the same genomes, statistics and champions, bit for bit; only
the timing columns differ).
"""

from __future__ import annotations

import csv
import fcntl
import gc
import io
import json
import random
import re
import signal
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import MISSING, asdict, dataclass, field, fields, replace
from itertools import count
from pathlib import Path

import numpy as np
import neat

import physics

from . import checkpoint, limits, lineage, rundir
from .bodygenes import NO_GENES, BodyGenes
from .breeding import SpeciationScope, distance_scope
from .backends import BACKENDS, make_evaluator
from .chunks import pack_genome
from .files import WriteError, make_directory, write_atomic
from .bodyplan import Plan
from .growth import GrowSettings, Growth, grown_episode, grown_plan, grown_record
from .process import steady_heap
from .generations import WALL_STATS_FIELDS, OK_FIELDS, STATS_FIELDS, GenerationStats, Waiting, stats_fields
from .genomes import (MAX_NEAT_CONFIG_BYTES, NETWORK_KINDS, NeatConfigError, body_of_genome, check_body,
                      check_genome, check_neat_config, genome_from_dict, genome_to_dict,
                      load_neat_config, neat_config_text, read_neat_config)
from .jsonread import JsonFileError, is_int, is_number
from .plugins import Plugin, PluginError, PluginRef, load_ref, resolve
from .rollout import DEFAULT_CLOCK_HZ, DEFAULT_SECONDS, Episode, run_episode
from .tasks import DEFAULT_TASK, WORST_FITNESS, task_sim
from .sensors import DEFAULT_SENSORS
from .trials import (DEFAULT_NOISE, DEFAULT_STATISTIC, DEFAULT_TRIALS, POST_STARTS, Trials, post_seeds, spread_of,
                     start_offsets, trial_seeds)
from .terrains import terrain_from_dict, terrain_to_dict

__all__ = ["RunSettings", "Run", "RunError", "GenerationStats", "WriteError", "write_atomic",
           "read_terrain", "RUN_FILES"]

CHECKPOINT = "checkpoint.json"
TERRAIN = "terrain.json"
#: every file of a run directory, in the order the module docstring lists them
RUN_FILES = ("settings.json", "body.json", TERRAIN, "neat.cfg", "stats.csv", "species.csv",
             "best/gen_NNNN.json", CHECKPOINT)


class RunError(ValueError):
    """A run directory that cannot be opened, resumed or evolved; the message is one line."""

@dataclass
class RunSettings:
    """Every setting of a run. ``design_text`` is the design's YAML, so the run does not depend on
    the design file staying as it was.

    Made with what a user asks for; :meth:`Run.create` records what it resolved from that in a
    copy (:meth:`resolved`): the plug-ins found (``plugins``), the sensors in input order, what
    the fitness ``measures``, and ``sim`` with the task's ground and the medium applied. The
    run's ``settings`` (and its ``settings.json``) are that copy; the object given stays as
    asked.

    Every setting's default is written here, once (the lower layers' own are the same
    constants: :data:`~evolution.tasks.DEFAULT_TASK`, :data:`~evolution.rollout.DEFAULT_SECONDS`,
    :mod:`evolution.trials`' ``DEFAULT_*``); ``creatures evolve``'s options, the play window's
    start screen and the Gymnasium environment take theirs from :meth:`defaults`."""

    design_name: str
    design_text: str
    task: str = DEFAULT_TASK
    terrain: str | None = None   # None: the task's default
    sensors: list | None = None  # sensor names in input order; None: the default ones
    seconds: float = DEFAULT_SECONDS
    generations: int = 50
    population: int = 150
    seed: int = 0
    workers: int = 0          # 0: one per core
    network: str = "feedforward"
    clock_hz: float = DEFAULT_CLOCK_HZ
    backend: str = "local"    # where generations are evaluated: "local" processes or "ray"
    address: str | None = None  # the Ray cluster's address (None: a Ray started here)
    sim: dict = field(default_factory=lambda: physics.SimParams().to_dict())
    #: the medium asked for (``creatures evolve --medium``; None: the task's own), set into
    #: ``sim`` by :meth:`Run.create` with the task's ground (``evolution.tasks.task_sim``)
    medium: str | None = None
    neat_config: str | None = None  # the user's own neat config text, if any
    #: recorded by Run.create: each plug-in's PluginRef as a dict ({"task": ..., "terrain": ...,
    #: "sensors": [...]}) and what the task's fitness measures, in words
    plugins: dict | None = None
    measures: str | None = None
    #: a genome (``genome_to_dict``'s form, a champion's) the first generation starts from
    #: instead of neat's random one: an exact copy, and the rest of the population copies of it
    #: mutated once each (:func:`seeded_population`); None: neat's own start
    start_genome: dict | None = None
    #: the hash of the champion ``start_genome`` is from (:mod:`evolution.lineage`), if known
    parent: str | None = None
    #: how each genome is scored (:class:`evolution.trials.Trials`): over ``trials`` starts,
    #: each moved by ``noise`` (m), made one by ``statistic``; a run's settings.json from before
    #: trials reads as one exact start (:meth:`read`)
    trials: int = DEFAULT_TRIALS
    noise: float = DEFAULT_NOISE
    statistic: str = DEFAULT_STATISTIC
    #: a run whose bodies grow (``creatures evolve --grow``): its limits and mutation rates
    #: (:class:`evolution.growth.GrowSettings` as a dict; missing keys: defaults); None: the
    #: design's body, evolving only as its ranges and optional parts say
    grow: dict | None = None

    def __post_init__(self):
        for name in ("task", "design_name", "design_text"):
            if not isinstance(getattr(self, name), str):
                raise ValueError(f"the setting {name} must be text")
        if len(self.design_text) > limits.MAX_DESIGN_TEXT:
            raise ValueError(f"the setting design_text is longer than {limits.MAX_DESIGN_TEXT} characters")
        if self.terrain is not None and not isinstance(self.terrain, str):
            raise ValueError("the setting terrain must be text or null")
        if self.sensors is not None and (not isinstance(self.sensors, list)
                                         or not all(isinstance(x, str) for x in self.sensors)):
            raise ValueError("the setting sensors must be a list of names or null")
        if self.network not in NETWORK_KINDS:
            raise ValueError(f"unknown network kind {self.network!r} (choose from {', '.join(NETWORK_KINDS)})")
        for name in ("generations", "population", "seed", "workers"):
            if not is_int(getattr(self, name)):
                raise ValueError(f"the setting {name} must be a whole number, not {getattr(self, name)!r:.40}")
        for name in ("seconds", "clock_hz"):
            if not is_number(getattr(self, name)):
                raise ValueError(f"the setting {name} must be a number, not {getattr(self, name)!r:.40}")
        if not (0 < self.seconds < 1e6 and self.generations >= 1 and self.population >= 2):
            raise ValueError("need 0 < seconds < 1e6, generations >= 1 and population >= 2")
        if self.population > limits.MAX_POPULATION:
            raise ValueError(f"the population is {self.population}; at most {limits.MAX_POPULATION}")
        if self.generations >= 10**9 or not 0 < self.clock_hz <= 1e6:
            raise ValueError("need generations below 1000000000 and 0 < clock_hz <= 1e6")
        if not 0 <= self.seed < 2**63:
            raise ValueError("the seed must be 0 or more (and below 2^63)")
        if not 0 <= self.workers <= limits.MAX_WORKERS:
            raise ValueError(f"the setting workers must be 0 (one per core) to {limits.MAX_WORKERS}")
        if len(self.sensor_names) > 1000:
            raise ValueError("the setting sensors names more than 1000 sensors")
        if self.neat_config is not None and (not isinstance(self.neat_config, str)
                                             or len(self.neat_config) > MAX_NEAT_CONFIG_BYTES):
            raise ValueError(f"the setting neat_config must be text of at most {MAX_NEAT_CONFIG_BYTES} "
                             f"characters, or null")
        for name in ("measures", "address"):
            if getattr(self, name) is not None and not isinstance(getattr(self, name), str):
                raise ValueError(f"the setting {name} must be text or null")
        if self.plugins is not None and not isinstance(self.plugins, dict):
            raise ValueError("the setting plugins must be an object or null")
        if self.start_genome is not None and not isinstance(self.start_genome, dict):
            raise ValueError("the setting start_genome must be a genome (an object) or null")  # checked by Run
        if not isinstance(self.sim, dict):
            raise ValueError("the setting sim must be an object")
        lineage.check_hash(self.parent, "the setting parent")
        if self.medium is not None:
            if not isinstance(self.medium, str) or len(self.medium) > 1000:
                raise ValueError("the setting medium must be text or null")
            try:
                physics.medium_settings(self.medium)
            except ValueError as exc:
                raise ValueError(f"the setting medium: {exc}") from None
        try:
            limits.check_sim(physics.SimParams.from_dict(self.sim))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"the setting sim: {' '.join(str(exc).split())}") from None
        if self.backend not in BACKENDS:
            raise ValueError(f"unknown backend {self.backend!r} (choose from {', '.join(BACKENDS)})")
        if self.address is not None and self.backend != "ray":
            raise ValueError("an address is for the ray backend")
        self.trial_spec   # checked (a ValueError that says which)
        if self.grow is not None:
            GrowSettings.from_dict(self.grow)   # checked (one line)

    @property
    def grow_settings(self) -> GrowSettings | None:
        """:attr:`grow` as :class:`evolution.growth.GrowSettings` (None: the body does not grow)."""
        return None if self.grow is None else GrowSettings.from_dict(self.grow)

    @classmethod
    def defaults(cls) -> dict:
        """Every setting that has a default, by name, with it (all but ``design_name`` and
        ``design_text``): ``{"task": "run", "seconds": 20.0, "generations": 50, ...}``, a new dict
        (and a new ``sim``) each call."""
        out = {}
        for f in fields(cls):
            if f.default is not MISSING:
                out[f.name] = f.default
            elif f.default_factory is not MISSING:
                out[f.name] = f.default_factory()
        return out

    @property
    def trial_spec(self) -> Trials:
        """How each genome is scored (:class:`evolution.trials.Trials`)."""
        return Trials(self.trials, self.noise, self.statistic)

    @property
    def sensor_names(self) -> list[str]:
        return list(self.sensors) if self.sensors is not None else list(DEFAULT_SENSORS)

    def resolve_plugins(self, recorded: bool = True, allow_code: bool = True):
        """The run's plug-ins ``(task, terrain, sensors)``: the recorded ones found again (a
        missing or changed one is a :class:`PluginError`), or with ``recorded=False`` (and for a
        run made before plug-ins were recorded) found by name."""
        if recorded and self.plugins:
            task, terrain, sensors = self.recorded_refs()
            return (load_ref(task, allow_code), load_ref(terrain, allow_code),
                    [load_ref(s, allow_code) for s in sensors])
        task = resolve("task", self.task)
        terrain = resolve("terrain", self.terrain or task.sample.default_terrain)
        return task, terrain, [resolve("sensor", n) for n in self.sensor_names]

    def recorded_refs(self) -> tuple:
        """The recorded plug-ins as references ``(task, terrain, [sensors])``, no code loaded.
        Raises :class:`PluginError` for a damaged record."""
        p = self.plugins
        try:
            return (PluginRef.from_dict("task", p["task"]), PluginRef.from_dict("terrain", p["terrain"]),
                    [PluginRef.from_dict("sensor", d) for d in p["sensors"]])
        except (KeyError, TypeError) as exc:
            raise PluginError(f"the run's recorded plug-ins are damaged ({exc})") from None

    def resolved(self, task: Plugin, terrain: Plugin, sensors: list, sim: physics.SimParams | None = None) -> "RunSettings":
        """These settings with what was resolved from them recorded (a new object: ``self``
        stays what was asked): each plug-in's PluginRef, the sensors' names in input order, what
        the task's fitness measures and, given, the simulation settings worked out from the
        asked ones, the task and the medium."""
        return replace(self, sensors=[s.name for s in sensors],
                       plugins={"task": task.ref.to_dict(), "terrain": terrain.ref.to_dict(),
                                "sensors": [s.ref.to_dict() for s in sensors]},
                       measures=str(task.sample.measures), sim=self.sim if sim is None else sim.to_dict())

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2)

    @classmethod
    def from_json(cls, text: str) -> "RunSettings":
        return cls(**json.loads(text))

    @classmethod
    def read(cls, path) -> "RunSettings":
        """A run's ``settings.json``, checked; :class:`~evolution.rundir.RunFileError` (one line
        naming the file) for one that cannot be read or holds a setting of the wrong kind."""
        data = rundir.read_object(path, what="run's settings")
        if not {"trials", "noise", "statistic"} & set(data):   # a run from before trials: its exact start
            data = {**data, "trials": 1, "noise": 0.0, "statistic": "mean"}
        unknown = sorted(set(data) - set(cls.__dataclass_fields__))
        if unknown:
            raise rundir.RunFileError(path, f"unknown setting{'s' if len(unknown) > 1 else ''} "
                                            f"{', '.join(repr(k) for k in unknown[:5])[:200]}")
        try:
            return cls(**data)
        except (TypeError, ValueError) as exc:
            message = re.sub(r"^\S*__init__\(\) ", "", " ".join(str(exc).split()))
            message = re.sub(r"^missing \d+ required positional arguments?: ", "missing the setting ", message)
            raise rundir.RunFileError(path, message[:300]) from None


def read_terrain(directory, settings: RunSettings) -> physics.Terrain:
    """A run directory's ground: its ``terrain.json``, or for a run made before there was one,
    the built-in terrain its settings name, made from its seed. No plug-in code runs. Raises
    ValueError (or OSError, PluginError) with one line."""
    path = Path(directory) / TERRAIN
    if path.exists():
        try:
            return terrain_from_dict(rundir.read_object(path, what="terrain"))
        except rundir.RunFileError:
            raise
        except ValueError as exc:
            raise rundir.RunFileError(path, str(exc)) from None
    if settings.plugins is not None:
        raise ValueError(f"{path} is missing")
    task = resolve("task", settings.task)
    return resolve("terrain", settings.terrain or task.sample.default_terrain).make(settings.seed)


def _with_sizes(text: str, n_inputs: int, n_outputs: int, population: int) -> str:
    """A user's neat config with the sizes this run needs (they follow from the design)."""
    out = []
    for line in text.splitlines():
        key = line.split("=")[0].strip() if "=" in line else None
        if key == "num_inputs":
            line = f"num_inputs = {n_inputs}"
        elif key == "num_outputs":
            line = f"num_outputs = {n_outputs}"
        elif key == "pop_size":
            line = f"pop_size = {population}"
        out.append(line)
    return "\n".join(out) + "\n"


def _raised_by_neat(exc: BaseException) -> bool:
    """Whether ``exc`` was raised inside neat-python (not by an evaluation it called)."""
    tb = exc.__traceback__
    while tb.tb_next is not None:
        tb = tb.tb_next
    return Path(neat.__file__).parent in Path(tb.tb_frame.f_code.co_filename).parents


_STOPPING = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def _clean_up_uninterrupted():
    """Around a run: the signal handlers of Ctrl-C and ``kill`` as they were on entry, put back
    on the way out (:func:`_interrupts_ignored_once_stopping` sets them aside)."""
    main = threading.current_thread() is threading.main_thread()
    saved = {s: signal.getsignal(s) for s in _STOPPING} if main else {}
    try:
        yield
    finally:
        for s, handler in saved.items():
            if handler is not None:
                signal.signal(s, handler)


@contextmanager
def _interrupts_ignored_once_stopping():
    """Once a Ctrl-C (or SIGTERM, where a program raises on it) stops the run, a second one must
    not interrupt its clean-up: the worker pool's shutdown interrupted half way left the process
    waiting forever for its workers at exit (issue seen with Ctrl-C twice within 0.1 s, as
    ``timeout -s INT`` and impatient users send). So from the first on, both are ignored until
    :func:`_clean_up_uninterrupted` puts their handlers back; the workers, which ignore SIGINT
    anyway, finish their chunk and go."""
    try:
        yield
    except KeyboardInterrupt:
        if threading.current_thread() is threading.main_thread():
            for s in _STOPPING:
                signal.signal(s, signal.SIG_IGN)
        raise


@contextmanager
def _steady_heap():
    """Python's cyclic garbage collector, tuned for a run for the ``with`` block, as it was after.

    A generation makes and drops some 40,000 gene objects; the collector's full collections, one
    almost every generation, traverse every object of the process (numba's, numpy's, the modules':
    ~40 ms each on the project's machine), and its youngest generation is collected every 700
    allocations. What exists when the run starts is frozen (``gc.freeze``: left out of
    collections; refcounting still frees it) and the youngest generation collected every 10,000
    allocations: measured, 81 -> 53 ms a generation outside evaluation. Genomes hold no cycles,
    and when the collector runs does not change what a run computes. Left alone where the
    collector is off or something froze objects already (a program that manages it itself)."""
    if not gc.isenabled() or gc.get_freeze_count():
        yield
        return
    thresholds = steady_heap()
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()


@contextmanager
def _random_untouched():
    """Python's and numpy's global generators as they were, whatever the block draws from them."""
    python, numpy_ = random.getstate(), np.random.get_state()
    try:
        yield
    finally:
        random.setstate(python)
        np.random.set_state(numpy_)


class Run:
    """A run in a directory: start one with :meth:`create` or reopen one with :meth:`open`, then
    :meth:`evolve` (which starts from the checkpoint if there is one)."""

    def __init__(self, directory: Path, settings: RunSettings, body: physics.Body,
                 neat_text: str | None = None, terrain: physics.Terrain | None = None,
                 plugins=None, genes: BodyGenes = NO_GENES):
        """``plugins``: ``(task, terrain, sensors)`` already resolved (else the recorded ones
        are found again); ``terrain``: the run's ground (else made by the terrain plug-in);
        ``genes``: the design's evolvable values and optional parts (its body evolves too)."""
        self.dir = Path(directory)
        self.settings = settings
        self.body = body
        self.genes = genes
        genes.check(body)
        sim = physics.SimParams.from_dict(settings.sim)
        task, maker, sensors = plugins or settings.resolve_plugins()
        if terrain is None:
            terrain = maker.make(settings.seed)
        self.episode = Episode(body, task, terrain, tuple(sensors), settings.seconds, sim,
                               settings.clock_hz, genes=genes)
        self.growth = None
        if settings.grow is not None:   # a growing body: the brain is wired to the body's slots
            self.growth = Growth(body, settings.grow_settings, genes)
            # its genomes carry the design's genes that are not their plan's (evolution.growgenes)
            self.genes = genes = self.growth.genes.carried
            seed, _, _ = grown_episode(self.episode, self.growth, self.growth.seed_plan())
            self.episode = replace(self.episode, wiring=seed.wiring, growth=self.growth)
        n_in, n_out = self.episode.n_inputs(), self.episode.n_outputs()
        if n_out == 0:
            raise ValueError("the design has no muscles: there is nothing for a brain to drive")
        source = str(self.dir / "neat.cfg") if neat_text is not None else "the neat config"
        if neat_text is None:
            base = settings.neat_config or neat_config_text(n_in, n_out, settings.population, settings.network)
            neat_text = _with_sizes(base, n_in, n_out, settings.population)
        self.neat_text = neat_text
        with tempfile.TemporaryDirectory() as tmp:  # nothing is written before everything checks out
            self.config = load_neat_config(self.neat_text, Path(tmp) / "neat.cfg", source)
        check_neat_config(self.config, source)  # the population's size, in genes
        # its genomes' body genes: on the genome config, the one object neat-python hands the
        # genome's methods (evolution.breeding.DefaultGenome.parse_config says why)
        self.config.genome_config.body_genes = genes or None
        self.config.genome_config.growth = self.growth
        sizes = (self.config.genome_config.num_inputs, self.config.genome_config.num_outputs)
        if sizes != (n_in, n_out):
            raise ValueError(f"{source}: num_inputs and num_outputs are {sizes[0]} and {sizes[1]}, but the "
                             f"creature has {n_in} inputs and {n_out} muscles")
        if settings.start_genome is not None:
            try:
                check_genome(settings.start_genome, n_in, n_out, settings.network)
                check_body(settings.start_genome.get("body"), genes or None)
                self._start_node = self._adopt(settings.start_genome)
            except ValueError as exc:
                raise ValueError(f"the genome to start from does not fit the creature: {exc}") from None
        if self.config.genome_config.feed_forward != (settings.network == "feedforward"):
            raise ValueError(f"the neat config says feed_forward = {self.config.genome_config.feed_forward}, "
                             f"but the run's network is {settings.network}")
        self.history: list[GenerationStats] = []
        self._stats_fields = STATS_FIELDS   # stats.csv's columns (an older run's header may have fewer)
        self._writer = None    # the checkpoint writer thread, while evolving
        self._pending = None   # the checkpoint it is writing
        self._deferred = None  # the checkpoint taken, to be written once the workers have the next generation
        self._posts = {}       # post-evaluations of recent generations' bests, by genome (see _post_of)
        self._waiting = None   # the generation whose files wait for its best's fresh starts (Waiting)
        self._post_offsets = None   # the post-evaluation's starts (_post_starts)

    def _adopt(self, genome: dict) -> int | None:
        """A start genome's body plan taken in by a growing run (its family tree's node), or
        None (a run that does not grow). ValueError (one line) for a genome that does not fit."""
        plan = (genome.get("body") or {}).get("plan")
        if self.growth is None:
            if plan is not None:
                raise ValueError("it has a grown body, and this run does not grow (--grow)")
            return None
        if plan is None:
            raise ValueError("it has no grown body, and this run grows (--grow)")
        return self.growth.adopt(Plan.from_dict(plan))

    @classmethod
    def create(cls, directory, settings: RunSettings, body: physics.Body,
               genes: BodyGenes = NO_GENES) -> "Run":
        """Check everything (the plug-ins too: a few steps of a small batch, for plug-ins that
        are not built in), then write the run directory's first files. Raises
        :class:`PluginError` for a plug-in that cannot be found or fails."""
        plugins = settings.resolve_plugins(recorded=False)
        sim = task_sim(plugins[0].sample, physics.SimParams.from_dict(settings.sim), settings.medium)
        try:
            limits.check_sim(sim, settings.seconds)
        except ValueError as exc:
            raise ValueError(f"the setting medium: {exc}") from None
        settings = settings.resolved(*plugins, sim=sim)   # the caller's settings stay as asked
        run = cls(directory, settings, body, plugins=plugins, genes=genes)
        run.check_plugins()
        directory = Path(directory)
        make_directory(directory / "best")
        write_atomic(directory / "neat.cfg", run.neat_text)
        data = body.to_dict()
        if genes:
            data["evolve"] = genes.to_dict()
        write_atomic(directory / "body.json", json.dumps(data, indent=1))
        write_atomic(directory / TERRAIN, json.dumps(terrain_to_dict(run.episode.terrain)))
        write_atomic(directory / "stats.csv", ",".join(STATS_FIELDS) + "\n")
        write_atomic(directory / "species.csv", "generation,species,size\n")
        # last: a directory with settings.json holds a run (a start that failed half-way, on a
        # full disk say, leaves a directory that ``creatures evolve --out`` can use again)
        write_atomic(directory / "settings.json", settings.to_json())
        return run

    @classmethod
    def open(cls, directory, reload_plugins: bool = False) -> "Run":
        """Reopen a run directory (to resume it, or to go on for more generations). Raises
        :class:`RunError` with a one-line reason if the directory is not a whole run, or if a
        plug-in it uses is missing or has changed since; ``reload_plugins`` takes the plug-ins
        by name as they are now (and records them) instead."""
        directory = Path(directory)
        if not directory.is_dir():
            raise RunError(f"{directory} is not a directory")
        names = ("settings.json", "body.json", "neat.cfg", "stats.csv", "species.csv")
        missing = [n for n in names if not (directory / n).is_file()]
        if missing:
            raise RunError(f"{directory} is not a run directory (no {', '.join(missing)})")
        try:
            settings = RunSettings.read(directory / "settings.json")
            sim = physics.SimParams.from_dict(settings.sim)
            if sim.earlier_engine:
                raise RunError(f"{directory} was evolved by an earlier version of the physics engine "
                               f"(version {sim.engine}, this is {physics.ENGINE_VERSION}): its generations cannot "
                               f"go on exactly; start a new run")
            body, genes = rundir.read_body_and_genes(directory / "body.json")
            terrain = read_terrain(directory, settings)
            neat_text = read_neat_config(directory / "neat.cfg", population=settings.population)
            history = cls._history_of(directory)
            plugins = settings.resolve_plugins(recorded=not reload_plugins)
            if reload_plugins and settings.plugins:
                settings = settings.resolved(*plugins)
            run = cls(directory, settings, body, neat_text, terrain, plugins, genes)
            if reload_plugins:
                run.check_plugins()
                write_atomic(directory / "settings.json", settings.to_json())
        except PluginError as exc:
            raise RunError(f"{directory}: {exc}") from None
        except (JsonFileError, NeatConfigError) as exc:  # names the file, and where in it
            raise RunError(f"cannot open the run: {exc}") from None
        except (ValueError, TypeError, KeyError, OSError) as exc:
            raise RunError(f"cannot open the run in {directory}: {exc}") from None
        run.history = history
        return run

    def check_plugins(self, steps: int = 3) -> None:
        """A few steps of two creatures on the run's plug-ins, so that a broken one stops the
        run before anything is written or any worker starts (built-ins are trusted: tested)."""
        ep = self.episode
        if all(p.ref.source == "built-in" for p in (ep.task, *ep.sensors)):
            return

        class _Still:
            def reset(self):
                pass

            def activate(self, inputs):
                return np.zeros((inputs.shape[0], ep.n_outputs()))

        short = Episode(ep.body, ep.task, ep.terrain, ep.sensors, steps * ep.sim.dt, ep.sim, ep.clock_hz,
                        genes=ep.genes)
        run_episode(short, _Still(), 2)

    @property
    def generations_done(self) -> int:
        """Generations done so far, their files written, by the checkpoint (0 if there is none
        yet): its generation, less one it keeps waiting for its best's fresh starts (a run that
        goes on writes that one's files first, :class:`Waiting`)."""
        path = self.dir / CHECKPOINT
        if not path.exists():
            return 0
        data = rundir.read_checkpoint(path)  # RunFileError: one line
        return max(0, data.get("generation", 0) - ("waiting" in data))

    def set_generations(self, generations: int) -> None:
        """Change how many generations the run goes to (to go on after it has finished)."""
        if generations < 1:
            raise RunError("a run needs at least 1 generation")
        self.settings.generations = generations
        write_atomic(self.dir / "settings.json", self.settings.to_json())

    def evolve(self, on_generation=None, on_progress=None) -> neat.DefaultGenome:
        """Run the generations left, from the checkpoint if there is one; returns the best genome
        found. ``on_generation(stats)`` after each generation; ``on_progress(done, total)``
        during evaluation. A checkpoint is written after every generation."""
        with _clean_up_uninterrupted():
            return self._evolve(on_generation, on_progress)

    def _evolve(self, on_generation, on_progress) -> neat.DefaultGenome:
        s = self.settings
        # Checkpoints are encoded and written by a thread while the next generation is
        # evaluated (the state itself is taken at once): writing ~1 MB of JSON takes ~40 ms, in
        # one call that holds the interpreter, so the thread starts once the workers have the
        # generation (at the evaluation's first progress report, _start_checkpoint), not while
        # this thread packs it (which waited for the encoding: 50 ms a generation). (With one
        # worker, in this process, the evaluation holds the interpreter itself and reports once,
        # at its end: the write comes after it, as it did in effect before.)
        with self.lock(), ThreadPoolExecutor(1, thread_name_prefix="checkpoint") as writer, \
                make_evaluator(self.episode, self.neat_text, s.network, s.workers or None,
                               backend=s.backend, address=s.address) as evaluator, \
                self._checkpoint_written(), \
                _interrupts_ignored_once_stopping():   # innermost: before the pool's shutdown
            self._writer = writer
            self._generation_start = time.perf_counter()  # the first generation's wall: from here
            population = self.start_population()  # seeds or restores the random generators: after Ray's start

            def progress(done, total):   # the workers have the generation: the checkpoint's turn
                self._start_checkpoint()
                if on_progress is not None:
                    on_progress(done, total)

            def evaluate(genomes, config):
                if self._pending is not None and self._pending.done():
                    pending, self._pending = self._pending, None
                    pending.result()  # a checkpoint that failed stops the run now
                packed = [pack_genome(g) for _, g in genomes]
                generation = population.generation + 1
                if self.growth is not None:   # the children bred after it are of the next one
                    self.growth.generation = generation
                waiting, also = self._waiting, None
                with _random_untouched():  # Ray draws from Python's random; neat's stream is neat's
                    trials = self.trials_of(generation)
                    if waiting is not None and trials["starts"] is not None:   # the best before, from its
                        also = (waiting.genome, self._post_starts())   # fresh starts, in the same batches
                    result = evaluator.evaluate(packed, progress, trials["starts"], s.statistic, also)
                for (_, g), f in zip(genomes, result.fitness):
                    g.fitness = float(f)
                self._wait_for_checkpoint()  # the files of the generation before come after it
                if also is not None:
                    self._finish(waiting, self._post_of(waiting.genome, result.also), on_generation)
                elif waiting is not None:   # (none to score them beside: exact starts)
                    self._flush(evaluator, on_generation)
                best = packed[int(np.argmax(result.fitness))]
                self._waiting = self._record(population, genomes, result, trials, best)
                self._generation_start = time.perf_counter()  # the next one's wall starts here
                # its best's fresh starts: known (an elite's), or now when the generation's starts
                # are exact (nothing to score them beside), else beside the next generation's
                if repr(best) in self._posts or trials["starts"] is None:
                    self._flush(evaluator, on_generation)

            with _steady_heap():  # Python's garbage collector: see _steady_heap
                while population.generation < s.generations:
                    before = population.generation
                    try:
                        population.run(evaluate, 1)
                    except RuntimeError as exc:  # neat-python's own, for a config it cannot breed from
                        if type(exc) is not RuntimeError or not _raised_by_neat(exc):
                            raise
                        raise RunError(f"{self.dir / 'neat.cfg'}: neat-python cannot breed the next generation "
                                       f"with this config: {' '.join(str(exc).split())}") from None
                    finally:
                        SpeciationScope.close(self.config.genome_config)
                    if population.generation == before:  # a user's neat config hit its fitness threshold
                        break
                    self._checkpoint(population)
                if self._waiting is not None:   # the last generation's best, from its fresh starts
                    checkpointed = population.generation == self._waiting.stats.generation
                    self._wait_for_checkpoint()
                    self._flush(evaluator, on_generation)
                    if checkpointed:   # (not when a fitness threshold ended it: no checkpoint then, as ever)
                        self._checkpoint(population)   # nothing waits any more
            self._wait_for_checkpoint()
            self._writer = None
        return self.best_genome()

    def best_genome(self) -> neat.DefaultGenome:
        """The run's champion genome (:func:`evolution.rundir.champion_record`: the generation
        best that did best from fresh starts), with its fitness as recorded. Not neat's
        ``best_genome``, whose fitness a later generation rewrites when it scores the same
        genome again, from other starts."""
        paths = [p for p in (self.dir / "best").glob("gen_*.json") if rundir.best_generation(p) is not None]
        if not paths:
            raise RunError(f"{self.dir} has no finished generation yet")
        best = rundir.champion_record([rundir.read_best(p) for p in paths])
        genome = genome_from_dict(best["genome"])
        genome.fitness = best["fitness"]
        return genome

    def trials_of(self, generation: int) -> dict:
        """Generation ``generation``'s trials: ``{"seeds": [...], "starts": (K, P, 2) offsets, or
        None for one exact start}`` (:mod:`evolution.trials`)."""
        spec = self.settings.trial_spec
        seeds = trial_seeds(spec, self.settings.seed, generation)
        starts = None if spec.exact else start_offsets(seeds, spec.noise, self.sphere_slots)
        return {"seeds": seeds, "starts": starts}

    @property
    def sphere_slots(self) -> int:
        """How many spheres a start moves: the design's, or a growing body's sphere slots."""
        return self.growth.settings.spheres if self.growth is not None else len(self.body.spheres)

    def _post_starts(self):
        """The post-evaluation's starts: the run's post seeds (never a selection trial's, the same
        every generation), moved by the run's noise (the default, 1 cm, for a run of exact starts);
        made once (a generator a seed: 3 ms)."""
        if self._post_offsets is None:
            self._post_offsets = start_offsets(post_seeds(self.settings.seed), self.settings.noise or DEFAULT_NOISE,
                                               self.sphere_slots)
        return self._post_offsets

    def _post_of(self, genome, fitness) -> dict:
        """A best genome's post-evaluation from its :meth:`_post_starts`' fitnesses:
        ``{"starts", "noise", "seeds", "fitness", "mean", "worst", "sd"}``, kept for the genome
        (an elite that stays the best is not simulated again: it would score the same, bit for bit)."""
        seeds = post_seeds(self.settings.seed)
        fitness = [float(f) for f in fitness]
        post = {"starts": len(seeds), "noise": self.settings.noise or DEFAULT_NOISE, "seeds": seeds,
                "fitness": fitness, **spread_of(fitness)}
        self._posts = {repr(genome): post, **dict(list(self._posts.items())[:15])}   # the 16 newest
        return post

    def _flush(self, evaluator, on_generation) -> None:
        """The waiting generation's files, its best scored from fresh starts now if not known."""
        waiting, self._waiting = self._waiting, None
        post, seconds, episodes = self._posts.get(repr(waiting.genome)), 0.0, 0
        if post is None:
            result = evaluator.evaluate([waiting.genome], None, self._post_starts())
            post, seconds, episodes = self._post_of(waiting.genome, result.trials[0]), result.seconds, POST_STARTS
        self._finish(waiting, post, on_generation, seconds, episodes)

    def start_population(self) -> neat.Population:
        """The population to go on from: the checkpoint's, with the files trimmed back to it,
        or a new one from the seed. Its breeding and speciation measure distances on arrays
        (:class:`evolution.breeding.SpeciationScope`)."""
        population = self._population()
        population.add_reporter(SpeciationScope())
        return population

    def _population(self) -> neat.Population:
        path = self.dir / CHECKPOINT
        if path.exists():
            try:
                data = rundir.read_checkpoint(path)
                population = checkpoint.restore_population(self.config, data)
                self._waiting = Waiting.from_state(data["waiting"]) if "waiting" in data else None
            except JsonFileError as exc:
                raise RunError(str(exc)) from None
            except checkpoint.CheckpointError as exc:
                raise RunError(f"{path}: {exc}") from None
            # (a generation that waits for its best's fresh starts writes its files again)
            self._trim(population.generation - (self._waiting is not None))
            return population
        s = self.settings
        random.seed(s.seed)
        np.random.seed(s.seed % 2**32)
        with distance_scope(self.config.genome_config):  # its first speciation
            population = neat.Population(self.config, seed=s.seed)
            if s.start_genome is not None:
                seeded_population(population, s.start_genome, getattr(self, "_start_node", None))
        self._trim(0)
        self._checkpoint(population)
        return population

    def _checkpoint(self, population) -> None:
        """Take the population's state now; encode and write it on the writer thread once the
        next generation's evaluation is under way (:meth:`_start_checkpoint`)."""
        state = checkpoint.population_state(population)
        if self._waiting is not None:
            state["waiting"] = self._waiting.to_state()
        self._wait_for_checkpoint()
        write = lambda: write_atomic(self.dir / CHECKPOINT, checkpoint.dumps(state))  # noqa: E731
        if self._writer is None:
            write()
        else:
            self._deferred = write

    def _start_checkpoint(self) -> None:
        """The checkpoint taken last, handed to the writer thread (if it waits for its turn)."""
        if self._deferred is not None:
            write, self._deferred = self._deferred, None
            self._pending = self._writer.submit(write)

    @contextmanager
    def _checkpoint_written(self):
        """The checkpoint taken last handed to the writer when the block ends, however it ends
        (a Ctrl-C, a failed generation: the writer's pool, closed after it, waits for it)."""
        try:
            yield
        finally:
            self._start_checkpoint()

    def _wait_for_checkpoint(self) -> None:
        self._start_checkpoint()
        if self._pending is not None:
            pending, self._pending = self._pending, None
            pending.result()  # raises what the write raised (a full disk, say: a WriteError)

    def _trim(self, generation: int) -> None:
        """Forget what generations after ``generation`` wrote (they finished after the checkpoint
        and will be evaluated again, identically)."""
        for name in ("stats.csv", "species.csv"):
            path = self.dir / name
            lines = path.read_text().splitlines(keepends=True)
            keep = lines[:1] + [ln for ln in lines[1:]  # rows were checked when the run was opened
                                if ln.strip() and int(ln.split(",")[0]) <= generation]
            if name == "stats.csv" and "wall_seconds" not in lines[0]:  # a run from before it
                keep = [",".join(WALL_STATS_FIELDS) + "\n"] + [ln.rstrip("\n") + ",0\n" for ln in keep[1:]]
            if name == "stats.csv":  # a run from before a column keeps writing rows of its header's
                self._stats_fields = stats_fields(keep[0])
            if keep != lines:
                write_atomic(path, "".join(keep))
        for path in (self.dir / "best").glob("gen_*.json"):
            number = rundir.best_generation(path)
            if number is not None and number > generation:
                path.unlink()
        for path in [*self.dir.glob(".*.tmp*"), *(self.dir / "best").glob(".*.tmp*")]:
            path.unlink()  # left by a kill -9 in the middle of a write
        self.history = [h for h in self._read_history() if h.generation <= generation]

    def _read_history(self) -> list[GenerationStats]:
        return self._history_of(self.dir)

    @staticmethod
    def _history_of(directory: Path) -> list[GenerationStats]:
        """The rows of ``stats.csv``, each checked (and ``species.csv``'s, which a run appends
        to): :class:`~evolution.rundir.RunFileError` at the first line that is not a proper row."""
        ints = tuple(n for n, f in GenerationStats.__dataclass_fields__.items() if f.type in (int, "int"))
        try:
            with open(directory / "stats.csv", "rb") as f:
                fields = stats_fields(f.readline(4096).decode("utf-8", "replace"))
        except OSError:
            fields = STATS_FIELDS   # read_csv says what is wrong
        rows = rundir.read_csv(directory / "stats.csv", fields, ints)
        species = rundir.read_csv(directory / "species.csv", ("generation", "species", "size"),
                                  ("generation", "species", "size"))
        history = [GenerationStats(**row) for row in rows]
        if "creatures" not in fields:   # a run from before it: its species hold them all
            sizes = {}
            for r in species:
                sizes[r["generation"]] = sizes.get(r["generation"], 0) + r["size"]
            for h in history:
                h.creatures = sizes.get(h.generation, 0)
        for h in history:      # none failed: the percentiles of those that did not are the plain ones
            if h.failed == 0:
                for name in OK_FIELDS:
                    if name not in fields:
                        setattr(h, name, getattr(h, name[3:]))
        return history

    @contextmanager
    def lock(self):
        """One process evolves a run directory at a time."""
        try:
            lock = open(self.dir / ".lock", "w")
        except OSError as exc:
            raise RunError(f"cannot lock the run: {self.dir / '.lock'}: {exc.strerror or exc}") from None
        with lock as f:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise RunError(f"another process is evolving {self.dir}") from None
            yield

    def _record(self, population, genomes, result, trials: dict, best) -> "Waiting":
        """The generation's files as they will be written once its best (``best``, as workers
        take it) is scored from fresh starts (:meth:`_finish`)."""
        gen = population.generation + 1
        f = result.fitness
        q = np.percentile(f, [90, 75, 50, 25, 10])
        ok = f[~np.asarray(result.failed, bool)]
        okq = (np.percentile(ok, [90, 75, 50, 25, 10]).tolist() + [ok.min()] if ok.size
               else [WORST_FITNESS] * len(OK_FIELDS))
        # every episode simulated: each genome's trials and the best before's fresh starts
        episodes = result.trials.size + (0 if result.also is None else result.also.size)
        stats = GenerationStats(gen, float(f.max()), float(f.mean()), float(q[2]), float(q[0]),
                                float(q[1]), float(q[3]), float(q[4]), float(f.min()),
                                len(population.species.species), int(result.failed.sum()),
                                int(result.nonfinite.sum()), result.seconds, 0.0,
                                round(time.perf_counter() - self._generation_start, 4), len(f),
                                *(float(v) for v in okq), warnings=list(result.warnings))
        k = int(np.argmax(f))   # the first best, as max() picks it
        best_genome = genomes[k][1]
        spec = self.settings.trial_spec
        record = {"generation": gen, "fitness": best_genome.fitness, "genome": genome_to_dict(best_genome),
                  "trials": {**spec.to_dict(), "seeds": trials["seeds"],
                             "fitness": [float(v) for v in result.trials[k]]},
                  "post": None}
        if self.genes:   # the generation's bodies, for charts of the body genes over generations
            record["population_bodies"] = [body_of_genome(g) for _, g in genomes]
        if self.growth is not None:   # the best's wiring; each grown body's size, for charts
            record["grown"] = grown_record(self.episode, self.growth, grown_plan(best_genome))
            record["body_history"] = [[g, plan.to_dict()] for g, plan in self.growth.lineage(best_genome.body_node)]
            record["population_sizes"] = [list(g.body_plan.size()) for _, g in genomes]
        species = [[gen, sid, len(sp.members)] for sid, sp in sorted(population.species.species.items())]
        return Waiting(stats, record, species, best, episodes * self.episode.steps)

    def _finish(self, waiting: "Waiting", post: dict, on_generation, seconds: float = 0.0, episodes: int = 0) -> None:
        """Write a generation's files with its best's post-evaluation ``post`` (``seconds`` and
        ``episodes`` more spent on it apart from the generation's evaluation)."""
        stats, record, extra_seconds = waiting.stats, dict(waiting.record, post=post), seconds
        seconds = stats.eval_seconds + seconds
        steps = waiting.steps + episodes * self.episode.steps
        stats = replace(stats, eval_seconds=round(seconds, 4), creature_steps_per_s=round(steps / max(seconds, 1e-9), 1),
                        wall_seconds=round(stats.wall_seconds + extra_seconds, 4),
                        post_mean=post["mean"], post_worst=post["worst"], post_sd=post["sd"])
        self.history.append(stats)
        write_atomic(self.dir / "best" / f"gen_{stats.generation:04d}.json", json.dumps(record, indent=1))
        self._append(self.dir / "stats.csv", [stats.row(self._stats_fields)])
        self._append(self.dir / "species.csv", waiting.species)
        if on_generation is not None:
            on_generation(stats)

    @staticmethod
    def _append(path: Path, rows) -> None:
        """Append CSV rows, rewriting the file atomically (stats files are small)."""
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerows(rows)
        write_atomic(path, path.read_text() + buf.getvalue())


def history_of(directory) -> list[GenerationStats]:
    """The finished generations' statistics of a run directory (its ``stats.csv``, each row
    checked; ``species.csv`` too): for a window that watches a run evolving elsewhere.
    :class:`~evolution.rundir.RunFileError` at the first line that is not a proper row."""
    return Run._history_of(Path(directory))


def seeded_population(population: neat.Population, genome: dict, body_node: int | None = None) -> None:
    """Start ``population`` (just made by neat, generation 0) from ``genome`` instead of neat's
    random genomes: under the same keys, the first an exact copy, each of the others a copy
    mutated once by the run's own config (neat's mutation, drawing from the seeded ``random``:
    the same start every time). New innovation numbers and hidden nodes continue above the
    genome's, and the population is divided into species again. ``body_node``: in a growing run,
    the node of the family tree the genome's body plan was taken in as (``Growth.adopt``)."""
    config = population.config
    gc = config.genome_config
    first = genome_from_dict(genome)
    tracker = neat.innovation.InnovationTracker(max((c.innovation for c in first.connections.values()), default=-1) + 1)
    population.reproduction.innovation_tracker = tracker
    gc.innovation_tracker = tracker
    gc.node_indexer = count(max([*first.nodes, gc.num_outputs - 1]) + 1)
    genomes = {}
    for k, key in enumerate(population.population):
        g = genome_from_dict(genome)
        g.key, g.fitness = key, None
        if body_node is not None:
            g.body_node = body_node
        if k:
            g.mutate(gc)
        genomes[key] = g
    population.population = genomes
    population.species = config.species_set_type(config.species_set_config, population.reporters)
    population.species.speciate(config, population.population, population.generation)

"""Play: one window to pick a creature, evolve it, and watch it learn live.

With no argument it opens the start screen: the built-in designs as a gallery (and the design
files of this directory), a task, a terrain, the medium, the sensors, the population, the
generations and the episode's seconds (``creatures evolve``'s defaults); start, and the
evolution screen shows each generation's champion as soon as its generation ends (skipping ahead
to the newest when they come faster than they can be watched), the whole generation at once as
ghosts, a live fitness chart and species stack, and a scrubber to watch any generation's
champion or race generation 1's against the latest; once the run has finished, its best
champions play in turn. Evolution runs in a
background process (``creatures resume`` on a normal run directory under ``runs/``), so
``creatures resume``, ``plot``, ``export`` and ``watch`` work on it afterwards; pausing, closing
the window or Ctrl-C stop it cleanly, and it resumes exactly. Press H in the window for the keys.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

import physics
from evolution import PluginError
from evolution.champion import ChampionError, champion_from_run, load_champion, save_champion
from evolution.checkpoint import CheckpointError, generation_genomes
from evolution.chunks import bodies_of, make_brains
from evolution.evaluator import worker_count
from evolution.genomes import genome_to_dict
from evolution.jsonread import JsonFileError
from evolution.network import node_slots
from evolution.rollout import EpisodeRun
from evolution.run import CHECKPOINT, OK_FIELDS, Run, RunError, history_of
from evolution.rundir import RunFileError, read_checkpoint, read_csv
from evolution.sensors import sensor_list
from evolution.yamlread import did_you_mean
from render.game import GalleryItem, GameError, Pick, Progress, Setup
from render.scene import CreatureFrame, Frame

from .bestiary import builtin_names, resolve_design
from .design import DesignError, parse_design
from .plot import known_ok, species_colour
from .shipped import SAVES_DIR, champion_path, shipped_names
from .show import Race, brain_graph, creature_shape, generation_race, terrain_scene, where_text

EXAMPLES = """examples:
  creatures play                                 the start screen: pick a creature, a task, start
  creatures play walker --task jump --population 100    evolve the walker to jump, at once
  creatures play eel --seconds 10 --sensors rays        the eel, 10 s tries, with distance rays
  creatures play runs/walker-run-20261124-101500        go on with a stopped run in the window
  creatures play walker-run                      watch a shipped champion; E evolves its design further
  creatures play my-walker.json                  a champion file (creatures export makes one)
  xvfb-run -a creatures play                     on a machine without a display (a virtual one)
"""

#: what ``creatures play`` starts with (``creatures evolve``'s defaults)
DEFAULT_SETUP = Setup(design="walker", task="run", terrain=None, population=150, generations=50, seed=0,
                      seconds=20.0, sensors=None, medium=None)
POPULATION_RANGE = (10, 1000)
GENERATIONS_RANGE = (1, 10000)
#: the episode's simulated seconds the start screen steps through (the command line takes any)
SECONDS_RANGE = (2, 60)
#: the fluids the start screen offers after the task's own: (name, what it is)
MEDIA_PICKS = (("none", "no fluid: on the ground, in a vacuum"),
               ("water", "water (1000 kg/m^3): buoyancy and drag; swimmers push against it"),
               ("air", "air (1.2 kg/m^3): a little drag; wings lift"))
#: seconds to wait for the background run to stop cleanly before it is killed
STOP_TIMEOUT = 20.0


def default_workers() -> int:
    """The background run's worker processes when none are asked for: one fewer than the cores
    (the window keeps one), at least one. (``--workers 0`` is one per core, as everywhere.)"""
    return max(1, (os.cpu_count() or 1) - 1)


# --- the whole generation at once ---------------------------------------------------------------

def _rgb(colour) -> tuple[int, int, int]:
    return tuple(int(round(255 * c)) for c in colour)


class Crowd:
    """Every genome of one generation at once, stepped together in one batch by
    ``evolution.EpisodeRun`` (the loop evolution scores with: creatures do not interact, so each
    one's fitness is the one evolution gives it, whatever the batch). Each creature is coloured
    by its species (the colours of ``creatures plot``); the scene is a crowd (``Scene.crowd``)."""

    def __init__(self, run: Run, genomes: list, species: dict, generation: int):
        ep = run.episode
        self.genomes = genomes
        self.generation = generation
        self._kind = run.settings.network
        self._config = run.config
        brains = make_brains(genomes, run.config, self._kind)
        self.run = EpisodeRun(ep, brains, len(genomes), False, bodies_of(ep, genomes))
        m = self.run.model
        shapes = []
        for b, g in enumerate(genomes):
            sid = species.get(g.key, -1)
            shape = creature_shape(m, f"genome {g.key}", {"design": run.settings.design_name,
                                                          "task": ep.task.ref.short, "species": sid,
                                                          "generation": generation}, b)
            shapes.append(dataclasses.replace(shape, color=_rgb(species_colour(max(sid, 0)))))
        self.species = [species.get(g.key, -1) for g in genomes]
        title = (f"{run.settings.design_name} - generation {generation}: all {len(genomes)} creatures "
                 f"- {ep.task.ref.short} {where_text(ep.terrain, ep.sim)}")
        scene = terrain_scene(ep.terrain, shapes, ep.sim.dt, ep.seconds, title, ep.task.sample.measures, ep.sim)
        self.scene = dataclasses.replace(scene, crowd=True)
        self.message = None
        self._names = None
        self._slots = {}

    def reset(self) -> None:
        self.run.reset()

    def step(self) -> None:
        if not self.run.done:
            self.run.step()

    def fitness(self) -> np.ndarray:
        """Every creature's fitness so far (at the end: what evolution gives it)."""
        return np.asarray(self.run.fitness(), np.float64)

    def frame(self) -> Frame:
        r, m, s = self.run, self.run.model, self.run.state
        e = m.muscle_bone
        d = s.pos[:, m.bone_a[e]] - s.pos[:, m.bone_b[e]]
        length = np.sqrt((d * d).sum(axis=2))
        contraction = np.clip((length / m.muscle_rest - 1.0) / m.muscle_range, -1.0, 1.0)
        angles = physics.joint_angles(m, s)
        fit = self.fitness()
        failed = r.failed
        creatures = [CreatureFrame(pos=s.pos[b].copy(), contraction=contraction[b], contact=s.contact[b].copy(),
                                   joint_angle=angles[b], fitness=float(fit[b]), failed=bool(failed[b]))
                     for b in range(len(self.genomes))]
        ranked = np.where(failed | ~np.isfinite(fit), -np.inf, fit)
        return Frame(time=r.t * self.scene.dt, step=r.t, creatures=creatures, leader=int(np.argmax(ranked)),
                     done=r.done)

    def brain(self, creature: int):
        if self._names is None:
            self._names = self.run.episode.input_names()
        return brain_graph(genome_to_dict(self.genomes[creature]), self._names, self.run.model.n_muscles)

    def brain_values(self, creature: int) -> dict:
        if creature not in self._slots:
            self._slots[creature] = node_slots(self.genomes[creature], self._config, self._kind)
        net = self.run.brains
        values = net.values[creature, net.active]
        return {key: float(values[slot]) for key, slot in self._slots[creature].items()}

    def poll(self) -> bool:
        return False


# --- a run evolving in the background -----------------------------------------------------------

def _death_signal():
    """The function the background process runs before it starts: SIGINT (the window's pause,
    and a clean stop) at its default even where the window was started with it ignored (``nohup``,
    a shell's ``&``), where the run would inherit that and never pause; and on Linux ``prctl``
    asking for a SIGINT when the window's process dies, so a killed window never leaves a run
    evolving on its own. Looked up here, in the window's process: the forked child only calls
    it (no import, no lookup between fork and exec)."""
    prctl = None
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            prctl = ctypes.CDLL(None, use_errno=True).prctl
        except (OSError, AttributeError):
            pass
    default = signal.SIG_DFL

    def before_exec():
        signal.signal(signal.SIGINT, default)
        if prctl is not None:
            prctl(1, signal.SIGINT)  # 1: PR_SET_PDEATHSIG
    return before_exec


class PlaySession:
    """A run directory evolving in a background process (``creatures resume RUN_DIR``), as the
    evolution screen sees it (``render.game.Session``); or a champion file, watched, with no run
    until :meth:`evolve` starts one.

    The background process is started with :meth:`resume` (a new run is one with no generation
    yet) and stopped with SIGINT, which is Ctrl-C: the run stops cleanly after its last whole
    checkpoint and ``creatures resume`` goes on exactly (the generation it was in the middle of
    is evaluated again, identically)."""

    def __init__(self, run_dir=None, workers: int | None = None, champion=None, champion_path=None,
                 out_dir: str = "runs"):
        # None: one fewer than the cores; 0, one per core, and N, N: as creatures evolve takes them
        self.workers = default_workers() if workers is None else worker_count(int(workers))
        self.run_dir = None if run_dir is None else str(run_dir)
        self.out_dir = out_dir
        self._champion = champion
        self._champion_path = champion_path
        self._proc = None
        self._log = None
        self._asked_stop = False
        self._stats_key = None
        self._history = []
        self._species = []
        self._run = None
        self.message = None
        self.done = 0
        if champion is None and run_dir is None:  # a run about to be made (start() makes it)
            self.state, self.total, self.title, self.measures = "starting", 0, "", "fitness"
            return
        if champion is not None:
            self.state = "champion"
            self.total = 0
            self.title = f"{champion.name or 'champion'} - {champion.task.short} {where_text(champion.terrain, champion.sim)}"
            self.measures = champion.measures
            return
        self._read_settings()
        self._read_progress()
        self.state = "finished" if self.done >= self.total else "paused"

    # --- reading the run directory ---------------------------------------------------------
    def _read_settings(self) -> None:
        path = Path(self.run_dir) / "settings.json"
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError) as exc:
            raise GameError(f"{self.run_dir} is not a run directory ({path}: {exc})") from None
        self.total = int(data.get("generations", 0))
        self.measures = data.get("measures") or "fitness"
        terrain = data.get("terrain") or "the task's own ground"
        self.title = f"{data.get('design_name', '?')} - {data.get('task', '?')} on {terrain}"

    def _read_progress(self) -> bool:
        """Read stats.csv and species.csv again if they changed; True if they did."""
        d = Path(self.run_dir)
        try:
            key = tuple((p.stat().st_mtime_ns, p.stat().st_size) for p in (d / "stats.csv", d / "species.csv"))
        except OSError:
            return False
        if key == self._stats_key:
            return False
        try:
            history = history_of(d)
            species = read_csv(d / "species.csv", ("generation", "species", "size"),
                               ("generation", "species", "size"))
        except RunFileError:
            return False  # being written: read it again at the next poll
        self._stats_key = key
        changed = len(history) != len(self._history)
        self._history, self._species = history, species
        self.done = history[-1].generation if history else 0
        return changed

    def progress(self) -> Progress:
        h = self._history
        if not h:
            return Progress.empty(self.measures)
        col = lambda name: np.array([getattr(s, name) for s in h], np.float64)  # noqa: E731
        gens = np.array([s.generation for s in h], np.int64)
        ids = np.array(sorted({r["species"] for r in self._species}), np.int64)
        sizes = np.zeros((ids.size, gens.size), np.int64)
        where = {int(g): k for k, g in enumerate(gens)}
        for r in self._species:
            k = where.get(r["generation"])
            if k is not None:
                sizes[np.searchsorted(ids, r["species"]), k] = r["size"]
        creatures, failed = col("creatures"), col("failed")
        with np.errstate(invalid="ignore", divide="ignore"):
            share = np.where(creatures > 0, np.minimum(failed / creatures, 1.0), np.nan)
        ok = {n: known_ok(n, col(n), col(n[3:]), creatures, failed) for n in OK_FIELDS}
        return Progress(gens, col("best"), col("p90"), col("p75"), col("median"), col("p25"), col("p10"),
                        col("worst"), ids, sizes, self.measures, share, **ok)

    # --- the background process ------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def resume(self) -> None:
        if self.state == "champion":
            raise GameError("this is a champion: E evolves its design in a new run")
        if self.running:
            return
        if self.done >= self.total:
            self.state = "finished"
            self.message = f"the run has finished its {self.total} generations"
            return
        cmd = [sys.executable, "-m", "creatures", "resume", self.run_dir, "--workers", str(self.workers)]
        self._log = tempfile.TemporaryFile()
        self._proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                      stderr=self._log, preexec_fn=_death_signal())
        self._asked_stop = False
        self.state = "evolving"
        self.message = None

    def pause(self) -> None:
        if self.running:
            self._asked_stop = True
            self._proc.send_signal(signal.SIGINT)
            self.state = "pausing"

    def _ended(self) -> None:
        """The background process has exited: why."""
        code = self._proc.returncode
        self._proc = None
        self._read_progress()
        tail = ""
        if self._log is not None:
            self._log.seek(0)
            lines = [ln.strip() for ln in self._log.read().decode("utf-8", "replace").splitlines() if ln.strip()]
            self._log.close()
            self._log = None
            tail = next((ln for ln in reversed(lines) if not ln.startswith(("to go on", "stopped after"))), "")
        if self.done >= self.total and code == 0:
            self.state = "finished"
            self.message = f"finished: {self.total} generations"
        elif self._asked_stop or code in (130, -signal.SIGINT):
            self.state = "paused"
            self.message = f"paused after generation {self.done}: P goes on"
        else:
            self.state = "failed"
            self.message = f"evolution stopped: {tail or f'exit code {code}'}"

    def poll(self) -> bool:
        changed = False
        if self._proc is not None and self._proc.poll() is not None:
            self._ended()
            changed = True
        if self.run_dir is not None and self._read_progress():
            changed = True
        return changed

    def close(self) -> str:
        """Stop the background process (cleanly; killed if it does not stop in
        :data:`STOP_TIMEOUT` seconds) and say where the run is."""
        if self._proc is not None:
            if self._proc.poll() is None:
                self._asked_stop = True
                self._proc.send_signal(signal.SIGINT)
                try:
                    self._proc.wait(STOP_TIMEOUT)
                except subprocess.TimeoutExpired:
                    self._proc.kill()
                    self._proc.wait()
            self._ended()
        if self.run_dir is None:
            return ""
        quoted = shlex.quote(self.run_dir)
        if self.done >= self.total:
            return f"the run in {self.run_dir} has its {self.total} generations: creatures watch {quoted}"
        return (f"stopped after generation {self.done} of {self.total}; everything up to it is saved in "
                f"{self.run_dir}.\nto go on: creatures resume {quoted}  (or in the window: creatures play {quoted})")

    # --- what to watch ---------------------------------------------------------------------
    def champion(self, generation: int | None = None):
        if self._champion is not None:
            return Race([self._champion], [self._champion.name or "champion"])
        if self.done == 0:
            raise GameError("no generation has finished yet")
        gen = self.done if generation is None else int(generation)
        try:
            c = champion_from_run(self.run_dir, gen)
            return Race([c], [f"gen {gen}"], f"{c.body.name or 'champion'} - gen {gen} - {c.task.short} "
                                             f"{where_text(c.terrain, c.sim)}")
        except ChampionError as exc:
            raise GameError(str(exc)) from None

    def race(self, generations: list):
        if self._champion is not None:
            return self.champion()
        try:
            return generation_race(self.run_dir, generations)
        except ChampionError as exc:
            raise GameError(str(exc)) from None

    def _opened_run(self) -> Run:
        if self._run is None:
            try:
                self._run = Run.open(self.run_dir)
            except RunError as exc:
                raise GameError(str(exc)) from None
        return self._run

    def ghosts(self):
        """The generation being evaluated now (the checkpoint's population: the one after the
        last finished generation), all at once."""
        if self.run_dir is None:
            return None
        path = Path(self.run_dir) / CHECKPOINT
        if not path.exists():
            return None
        run = self._opened_run()
        try:
            state = read_checkpoint(path)
            genomes, species = generation_genomes(run.config, state)
            return Crowd(run, genomes, species, int(state.get("generation", 0)) + 1)
        except (JsonFileError, CheckpointError) as exc:
            raise GameError(f"{path}: {exc}") from None
        except PluginError as exc:
            raise GameError(str(exc)) from None

    # --- saving, and a champion's new run --------------------------------------------------
    def save(self, generation: int | None = None) -> str:
        try:
            if self._champion is not None:
                champion = self._champion
            else:
                if self.done == 0:
                    raise GameError("no generation has finished yet: nothing to save")
                champion = champion_from_run(self.run_dir, generation or self.done)
        except ChampionError as exc:
            raise GameError(str(exc)) from None
        stem = f"{champion.body.name or 'champion'}-{champion.task.short.replace(':', '-')}-gen{champion.generation}"
        stem = "".join(c if c.isalnum() or c in "-_." else "-" for c in stem)
        path, k = Path(f"{stem}.json"), 2
        while path.exists():
            path, k = Path(f"{stem}-{k}.json"), k + 1
        try:
            save_champion(champion, path)
        except OSError as exc:
            raise GameError(f"cannot write {path}: {exc.strerror or exc}") from None
        self.message = f"saved {path} (fitness {champion.fitness:.4f}, generation {champion.generation})"
        return str(path)

    def evolve(self) -> None:
        """Evolve a champion further: a new run with its design, task and settings whose first
        generation starts from its genome (an exact copy, and copies mutated once each:
        ``evolution.run.seeded_population``)."""
        if self._champion is None:
            return
        c = self._champion
        refs = [c.task, c.terrain_ref, *c.sensors]
        foreign = [r for r in refs if r.source not in ("built-in", "registered", "entry point")]
        if foreign:
            raise GameError(f"its {foreign[0].describe()} is code from a file: a champion file never "
                            f"runs code; start it yourself with creatures evolve --task/--terrain/--sensors")
        try:
            design = parse_design(c.design_yaml, str(self._champion_path or "champion"))
        except DesignError as exc:
            raise GameError(f"its design does not load: {str(exc).splitlines()[0]}") from None
        sim = c.sim
        medium = ("none" if sim.fluid_density == 0 else
                  ",".join(f"{k}={getattr(sim, a)!r}" for k, a in physics.MEDIUM_KEYS.items()))
        out = _new_run_dir(self.out_dir, design.name, c.task.name)
        self._champion, self.state = None, "starting"
        try:
            start(self, out, design, task=c.task.name, terrain=c.terrain_ref.name,
                  sensors=[r.name for r in c.sensors], seconds=c.seconds, generations=DEFAULT_SETUP.generations,
                  population=DEFAULT_SETUP.population, seed=c.seed, workers=0, network=c.network,
                  medium=medium, sim={**sim.to_dict(), "ground": True, "engine": physics.ENGINE_VERSION},
                  clock_hz=c.clock_hz,
                  start_genome=c.genome)
        except GameError:
            self._champion, self.state = c, "champion"
            raise


def _new_run_dir(out_dir: str, design: str, task: str) -> Path:
    from .evolve import default_out
    out = Path(out_dir) / Path(default_out(design, task)).name
    k = 2
    while out.exists():
        out = out.with_name(f"{out.name.rsplit('~', 1)[0]}~{k}")
        k += 1
    return out


def start(session: PlaySession, out: Path, design, **settings) -> None:
    """Create the run in ``out`` (as ``creatures evolve`` does) and make ``session`` evolve it."""
    from .evolve import StartError, create_run
    try:
        run = create_run(out, design, **settings)
    except StartError as exc:
        raise GameError(" ".join(str(exc).split())) from None
    session.run_dir = str(out)
    session._run = run
    session._stats_key = None
    session._history, session._species = [], []
    session.done = 0
    session._read_settings()
    session.resume()


# --- the start screen's data --------------------------------------------------------------------

def _shipped_tasks() -> dict:
    """Design name -> the task its shipped champion was evolved for (``saves/NAME-TASK.json``;
    ``run`` when there is one for it), to pick that task when the design is chosen."""
    from evolution.plugins import available
    tasks = {p.name for p in available("task") if p.problem is None}
    out = {}
    for path in sorted(SAVES_DIR.glob("*.json")):
        design, _, task = path.stem.rpartition("-")
        if design and task in tasks and (design not in out or task == "run"):
            out[design] = task
    return out


def gallery_item(name: str, origin: str = "built-in", task: str | None = None) -> GalleryItem:
    """A design as the start screen shows it: drawn in its rest pose; a design that does not
    load comes with its first problem."""
    try:
        design = resolve_design(name)
    except DesignError as exc:
        problem = str(exc).splitlines()[0] if str(exc) else "it does not load"
        return GalleryItem(name=name, title=Path(name).stem, origin=origin, problem=problem)
    model = physics.build_model(design.body, 1)
    shape = creature_shape(model, design.name, {"design": design.name})
    return GalleryItem(name=name, title=design.name, description=" ".join(design.description.split()),
                       shape=shape, pose=np.array(model.rest_pos[0], np.float64), origin=origin, task=task)


class PlayMenu:
    """The start screen's choices (``render.game.Menu``): the built-in designs and this
    directory's design files, the tasks and terrains there are (built-in and installed), and
    ``creatures evolve``'s defaults."""

    population_range = POPULATION_RANGE
    generations_range = GENERATIONS_RANGE
    seconds_range = SECONDS_RANGE

    def __init__(self, setup: Setup | None = None, directory: str = ".", out_dir: str = "runs"):
        from evolution.plugins import available
        from evolution.sensors import DEFAULT_SENSORS
        self.setup = setup or dataclasses.replace(DEFAULT_SETUP)
        self.out_dir = out_dir
        shipped = _shipped_tasks()
        self.designs = [gallery_item(n, "built-in", shipped.get(n)) for n in builtin_names()]
        for path in sorted(Path(directory).glob("*.y*ml")):
            if path.suffix.lower() in (".yaml", ".yml") and path.is_file() and not _is_terrain(path):
                self.designs.append(gallery_item(str(path), "this directory"))
        self.tasks = [Pick(p.name, _one_line(p.description)) for p in available("task") if p.problem is None]
        self.terrains = [Pick("", "the ground the task is made for", "the task's own")]
        self.terrains += [Pick(p.name, _one_line(p.description)) for p in available("terrain") if p.problem is None]
        self.sensors = [Pick("", ", ".join(DEFAULT_SENSORS), "the defaults")]
        self.sensors += [Pick(p.name, _one_line(p.description), f"defaults + {p.name}")
                         for p in available("sensor") if p.problem is None and p.name not in DEFAULT_SENSORS]
        self.media = [Pick("", "water for swim, air for fly, none for the others", "the task's own")]
        self.media += [Pick(name, what) for name, what in MEDIA_PICKS]

    def open(self, path: str) -> GalleryItem:
        path = path.strip()
        if not path:
            raise GameError("type the path of a design file (.yaml)")
        if not Path(path).is_file():
            raise GameError(f"{path}: no such file")
        item = gallery_item(path, "file")
        self.designs.append(item)
        return item

    def start(self, setup: Setup) -> PlaySession:
        try:
            design = resolve_design(setup.design)
        except DesignError as exc:
            raise GameError(" ".join(str(exc).splitlines()[0].split())) from None
        session = PlaySession(workers=setup.workers)
        session.state = "starting"
        session.run_dir = None
        try:
            sensors = sensor_list(setup.sensors) if setup.sensors else None
        except ValueError as exc:
            raise GameError(f"sensors: {exc}") from None
        out = _new_run_dir(self.out_dir, design.name, setup.task)
        start(session, out, design, task=setup.task, terrain=setup.terrain or None, sensors=sensors,
              seconds=float(setup.seconds), generations=int(setup.generations), population=int(setup.population),
              seed=int(setup.seed), workers=0, medium=setup.medium or None)
        return session


def _is_terrain(path: Path) -> bool:
    """A terrain file (``points:`` or ``pieces:`` at the top), not a design."""
    try:
        head = path.read_text(errors="replace")[:4000]
    except OSError:
        return False
    return any(line.startswith(("points:", "pieces:")) for line in head.splitlines())


def _one_line(text: str, width: int = 140) -> str:
    text = " ".join(str(text or "").split())
    return text if len(text) <= width else text[:width - 1].rstrip() + "\u2026"


# --- the command --------------------------------------------------------------------------------

def add_arguments(parser) -> None:
    parser.add_argument("target", nargs="?", default=None, metavar="DESIGN|CHAMPION|RUN_DIR",
                        help="a design (built-in name or YAML file: evolve it at once), a champion file "
                             "(watch it; E evolves its design further) or a run directory (go on with it); "
                             "none: the start screen")
    parser.add_argument("--task", default=None, help="the task (default run; creatures tasks lists them)")
    parser.add_argument("--terrain", default=None, help="the terrain (default: the task's own)")
    parser.add_argument("--population", type=int, default=None, help="genomes per generation (default 150)")
    parser.add_argument("--generations", type=int, default=None, help="generations (default 50)")
    parser.add_argument("--seed", type=int, default=None, help="the run's seed (default 0)")
    parser.add_argument("--seconds", type=float, default=None,
                        help="simulated seconds each creature is tried for (default 20)")
    parser.add_argument("--sensors", default=None, metavar="S1,S2",
                        help="sensors to add to the default ones, as creatures evolve takes them (e.g. rays)")
    parser.add_argument("--medium", default=None, metavar="MEDIUM",
                        help="none, water, air or numbers, as creatures evolve takes them (default: the task's own)")
    parser.add_argument("--workers", type=int, default=None,
                        help="processes that evaluate a generation in the background: 0 is one per core, "
                             "as for creatures evolve (default: one fewer than the cores, at least 1, so "
                             "that the window keeps one)")
    parser.add_argument("--size", default="1280x720", help="window size WxH (default 1280x720)")


def _fail(message: str) -> int:
    print(f"creatures play: {message}", file=sys.stderr)
    return 2


def no_display_message() -> str:
    return ("creatures play: no display to open a window on (DISPLAY is not set); run it on a desktop or "
            "under a virtual one (xvfb-run -a creatures play), or evolve headless with creatures evolve "
            "and make a GIF with creatures record")


def play_target(target: str) -> str:
    """What ``creatures play TARGET`` opens: ``target`` itself when it is a file or folder here or
    a built-in design's name, else the shipped champion of that name (``walker-run``, as replay,
    watch and record take one). A bare name that is none of these raises :class:`GameError` with
    the closest design or champion; a path is left for its reader to refuse."""
    path = Path(target)
    designs = builtin_names()
    if path.exists() or target in designs:
        return target
    try:
        return champion_path(target)
    except ChampionError:
        pass
    if path.name != target or path.suffix.lower() in (".yaml", ".yml", ".json"):
        return target
    champions = shipped_names()
    raise GameError(f"{target}: no built-in design, shipped champion or file of that name"
                    f"{did_you_mean(target, designs + champions)} (built-in designs: {', '.join(designs)}; "
                    f"shipped champions: {', '.join(champions) or 'none'})")


def run(args) -> int:
    from .watch import has_display, parse_size
    try:
        size = parse_size(args.size)
    except ValueError as exc:
        return _fail(str(exc))
    if args.workers is not None and args.workers < 0:
        return _fail(f"--workers must be 1 or more (or 0: one per core), not {args.workers}")
    for name, low, high in (("population", *POPULATION_RANGE), ("generations", *GENERATIONS_RANGE)):
        v = getattr(args, name)
        if v is not None and not low <= v <= high:
            return _fail(f"--{name} must be {low} to {high}, not {v}")
    if args.seed is not None and args.seed < 0:
        return _fail(f"--seed must be 0 or more, not {args.seed}")
    from .evolve import MAX_SECONDS
    if args.seconds is not None and not 0 < args.seconds < MAX_SECONDS:  # also refuses nan
        return _fail(f"--seconds must be a number of seconds above 0 and below {MAX_SECONDS:.0f}, not {args.seconds:g}")
    for name, check in (("sensors", sensor_list), ("medium", physics.medium_settings)):
        try:
            if getattr(args, name) is not None:
                check(getattr(args, name))
        except ValueError as exc:
            return _fail(f"--{name}: {exc}")
    setup = dataclasses.replace(DEFAULT_SETUP, workers=args.workers)
    for name in ("task", "terrain", "population", "generations", "seed", "seconds", "sensors", "medium"):
        if getattr(args, name) is not None:
            setattr(setup, name, getattr(args, name))
    try:
        target = None if args.target is None else play_target(args.target)
    except GameError as exc:
        return _fail(str(exc))
    if not has_display():
        print(no_display_message(), file=sys.stderr)
        return 2
    session = None
    try:
        if target is not None:
            path = Path(target)
            if path.is_dir():
                session = PlaySession(path, workers=args.workers)
                session.resume()
            elif path.suffix.lower() == ".json":
                try:
                    champion = load_champion(path)
                    champion.brains()
                except ChampionError as exc:
                    return _fail(f"{path}: {exc}")
                if champion.earlier_engine():
                    print(f"{path}: {champion.earlier_engine()}", file=sys.stderr)
                session = PlaySession(workers=args.workers, champion=champion, champion_path=path)
            else:
                setup.design = target
                session = PlayMenu(setup).start(setup)
    except GameError as exc:
        return _fail(str(exc))
    return play_window(session, PlayMenu(setup) if session is None else None, size)


def play_window(session, menu, size=(1280, 720), window=None) -> int:
    """Open the game window: the start screen (``menu``) or straight into ``session``; run until
    it is closed, then stop the background run cleanly and say where it is."""
    import arcade
    game = Game(menu, session, size, window)
    try:
        arcade.run()
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
    finally:
        line = game.close()
    if line:
        print(line, file=sys.stderr)
    return 0


class Game:
    """The window and its two screens: the start screen (``render.menu.StartView``) hands a
    session to the evolution screen (``render.play.PlayView``). ``window``: an existing one (the
    tests'); else a new ``size`` window. Public so that tests drive it through its views' input
    handlers."""

    def __init__(self, menu, session=None, size=(1280, 720), window=None):
        import arcade

        from render.menu import StartView
        self.window = window or arcade.Window(int(size[0]), int(size[1]), "creatures - play", resizable=True,
                                              antialiasing=False)  # the shaders antialias: 4x MSAA costs 2x on llvmpipe
        self.menu, self.session = menu, None
        self.start_view = None
        self.play_view = None
        if session is not None:
            self.show(session)
        else:
            self.start_view = StartView(menu, self.show, window=self.window, on_quit=self.quit)
            self.window.show_view(self.start_view)

    def show(self, session) -> None:
        from render.play import PlayView
        self.session = session
        self.play_view = PlayView(session, window=self.window, on_quit=self.quit)
        self.window.show_view(self.play_view)

    def quit(self) -> None:
        if not self.window.closed:
            self.window.close()

    def close(self) -> str:
        line = self.session.close() if self.session is not None else ""
        if not self.window.closed:
            self.window.close()
        return line

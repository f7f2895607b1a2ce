"""A run evolving in a background process, as the play window's evolution screen sees it.

:class:`PlaySession` is ``render.game.Session``: a run directory evolving in a background
process (``creatures resume`` on a normal run directory under ``runs/``), so ``creatures
resume``, ``plot``, ``export`` and ``watch`` work on it afterwards; pausing, closing the window
or Ctrl-C stop it cleanly, and it resumes exactly. Or a champion file, watched, until it is
evolved further. :class:`Crowd` is a whole generation at once, as ghosts.
"""

from __future__ import annotations

import dataclasses
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
from evolution.champion import ChampionError, champion_from_run, save_champion
from evolution.checkpoint import CheckpointError, generation_genomes
from evolution.chunks import bodies_of, make_brains
from evolution.evaluator import worker_count
from evolution.genomes import genome_to_dict
from evolution.growth import grown_plan, grown_runs
from evolution.jsonread import JsonFileError
from evolution.network import compile_networks, node_slots
from evolution.rollout import EpisodeRun
from evolution.run import CHECKPOINT, OK_FIELDS, Run, RunError, RunSettings, history_of
from evolution.rundir import RunFileError, read_checkpoint, read_csv
from render.game import GameError, Progress, Setup
from render.scene import CreatureFrame, Frame

from .charts import known_ok, species_colour
from .design import DesignError, parse_design
from .runs import StartError, create_run, new_run_dir
from .sources import Race, brain_graph, creature_shape, generation_race, terrain_scene, where_text

_RUN = RunSettings.defaults()
#: what ``creatures play`` starts with: the walker, with the run's defaults (``RunSettings``' own,
#: as ``creatures evolve``'s; terrain, sensors and medium None: the task's own and the defaults).
#: The run it starts is given no other setting, so it takes the rest (the trials' statistic, the
#: network...) there too.
DEFAULT_SETUP = Setup(design="walker", task=_RUN["task"], population=_RUN["population"],
                      generations=_RUN["generations"], seed=_RUN["seed"], seconds=_RUN["seconds"],
                      trials=_RUN["trials"], noise=_RUN["noise"])

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
    """Every genome of one generation at once, stepped together by ``evolution.EpisodeRun`` (the
    loop evolution scores with: creatures do not interact, so each one's fitness is the one
    evolution gives it, whatever the batch): one batch, or in a run whose bodies grow one batch
    per body topology, as evolution scores them (``evolution.growth.score_grown``). Each creature
    is coloured by its species (the colours of ``creatures plot``); the scene is a crowd
    (``Scene.crowd``).

    Attributes
    ----------
    runs : list of (EpisodeRun, ndarray of int, shape (B_k,))
        The batches, each with the creatures (indices into ``genomes``) it steps, in its order.
    """

    def __init__(self, run: Run, genomes: list, species: dict, generation: int):
        ep = run.episode
        self.genomes = genomes
        self.generation = generation
        self._kind = run.settings.network
        self._config = run.config
        # each from the generation's first trial's start (the same for all: evolution.trials)
        starts = run.trials_of(generation)["starts"]
        self.runs = _batches(run, genomes, None if starts is None else starts[:1])
        self._where = {}   # creature -> (its batch, its row in it)
        for k, (_, index) in enumerate(self.runs):
            self._where.update({int(c): (k, row) for row, c in enumerate(index)})
        shapes = [None] * len(genomes)
        for r, index in self.runs:
            for row, c in enumerate(index):
                g = genomes[c]
                sid = species.get(g.key, -1)
                shape = creature_shape(r.model, f"genome {g.key}", {"design": run.settings.design_name,
                                                                    "task": ep.task.ref.short, "species": sid,
                                                                    "generation": generation}, row)
                shapes[c] = dataclasses.replace(shape, color=_rgb(species_colour(max(sid, 0))))
        self.species = [species.get(g.key, -1) for g in genomes]
        trial = " (trial 1 of {})".format(run.settings.trials) if run.settings.trials > 1 else ""
        after = " (bred after the run's last, not evaluated by it)" if generation > run.settings.generations else ""
        title = (f"{run.settings.design_name} - generation {generation}{after}: all {len(genomes)} creatures{trial} "
                 f"- {ep.task.ref.short} {where_text(ep.terrain, ep.sim)}")
        scene = terrain_scene(ep.terrain, shapes, ep.sim.dt, ep.seconds, title, ep.task.sample.measures, ep.sim)
        self.scene = dataclasses.replace(scene, crowd=True)
        self.message = None
        self._names = {}
        self._slots = {}

    def reset(self) -> None:
        for r, _ in self.runs:
            r.reset()

    def step(self) -> None:
        for r, _ in self.runs:
            if not r.done:
                r.step()

    def fitness(self) -> np.ndarray:
        """Every creature's fitness so far (at the end: what evolution gives it)."""
        fit = np.zeros(len(self.genomes))
        for r, index in self.runs:
            fit[index] = np.asarray(r.fitness(), np.float64)
        return fit

    def frame(self) -> Frame:
        creatures = [None] * len(self.genomes)
        failed = np.zeros(len(self.genomes), bool)
        fit = self.fitness()
        for r, index in self.runs:
            m, s = r.model, r.state
            e = m.muscle_bone
            d = s.pos[:, m.bone_a[e]] - s.pos[:, m.bone_b[e]]
            length = np.sqrt((d * d).sum(axis=2))
            with np.errstate(divide="ignore", invalid="ignore"):   # (a graph's rods: range 0, not drawn)
                contraction = np.clip((length / m.muscle_rest - 1.0) / m.muscle_range, -1.0, 1.0)
            angles = physics.joint_angles(m, s)
            failed[index] = r.failed
            for row, c in enumerate(index):
                creatures[c] = CreatureFrame(pos=s.pos[row].copy(), contraction=contraction[row, m.muscle_on[row]],
                                             contact=s.contact[row].copy(), joint_angle=angles[row],
                                             fitness=float(fit[c]), failed=bool(r.failed[row]))
        first = self.runs[0][0]
        ranked = np.where(failed | ~np.isfinite(fit), -np.inf, fit)
        return Frame(time=first.t * self.scene.dt, step=first.t, creatures=creatures, leader=int(np.argmax(ranked)),
                     done=all(r.done for r, _ in self.runs))

    def brain(self, creature: int):
        k, _ = self._where[creature]
        if k not in self._names:
            self._names[k] = self.runs[k][0].episode.brain_names()
        inputs, outputs = self._names[k]
        return brain_graph(genome_to_dict(self.genomes[creature]), inputs, outputs)

    def brain_values(self, creature: int) -> dict:
        if creature not in self._slots:
            self._slots[creature] = node_slots(self.genomes[creature], self._config, self._kind)
        k, row = self._where[creature]
        net = self.runs[k][0].brains
        values = net.values[row, net.active]
        return {key: float(values[slot]) for key, slot in self._slots[creature].items()}

    def poll(self) -> bool:
        return False


def _batches(run: Run, genomes: list, starts) -> list[tuple]:
    """``(EpisodeRun, creatures (B,) ints)`` for ``genomes`` of ``run``, each from the start
    moved by ``starts`` ((1, S, 2); None: the exact start): all in one batch, or in a run whose
    bodies grow one batch per body topology (each creature's body its plan's, its brain wired to
    it, its start by sphere slot), as ``evolution.growth.score_grown`` scores them."""
    ep = run.episode
    if run.growth is None:
        brains = make_brains(genomes, run.config, run.settings.network)
        return [(EpisodeRun(ep, brains, len(genomes), False, bodies_of(ep, genomes), starts),
                 np.arange(len(genomes)))]
    networks = compile_networks(genomes, run.config, run.settings.network)
    for g in genomes:
        if getattr(g, "body_plan", None) is None:
            raise GameError(f"genome {g.key} of a run whose bodies grow has no body plan")
    if starts is not None:
        starts = np.broadcast_to(np.asarray(starts)[:1], (len(genomes),) + np.shape(starts)[1:])
    return grown_runs(ep, run.growth, [grown_plan(g) for g in genomes], networks, starts)


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

    @property
    def pid(self) -> int | None:
        """The background run's process id (None: no background process was started)."""
        return None if self._proc is None else self._proc.pid

    # --- reading the run directory ---------------------------------------------------------

    def _read_settings(self) -> None:
        path = Path(self.run_dir) / "settings.json"
        try:
            settings = RunSettings.read(path)
        except RunFileError as exc:   # missing, unreadable or a bad setting: one line naming the file
            raise GameError(f"{self.run_dir} is not a run directory ({exc})") from None
        self.total = settings.generations
        self.measures = settings.measures or "fitness"
        terrain = settings.terrain or "the task's own ground"
        grows = " (growing)" if settings.grow is not None else ""
        self.title = f"{settings.design_name}{grows} - {settings.task} on {terrain}"

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
    def chosen_champion(self, generation: int | None = None):
        """The champion of ``generation`` (None: the newest; a champion file's own).
        :class:`GameError` if there is none yet."""
        try:
            if self._champion is not None:
                return self._champion
            if self.done == 0:
                raise GameError("no generation has finished yet: nothing to save")
            return champion_from_run(self.run_dir, generation or self.done)
        except ChampionError as exc:
            raise GameError(str(exc)) from None

    @staticmethod
    def _free_path(champion, suffix: str) -> Path:
        """``walker-run-gen12.json`` (``.png``) in the working directory, ``-2``, ``-3``... when taken."""
        stem = f"{champion.body.name or 'champion'}-{champion.task.short.replace(':', '-')}-gen{champion.generation}"
        stem = "".join(c if c.isalnum() or c in "-_." else "-" for c in stem)
        path, k = Path(f"{stem}{suffix}"), 2
        while path.exists():
            path, k = Path(f"{stem}-{k}{suffix}"), k + 1
        return path

    def save(self, generation: int | None = None) -> str:
        champion = self.chosen_champion(generation)
        path = self._free_path(champion, ".json")
        try:
            save_champion(champion, path)
        except OSError as exc:
            raise GameError(f"cannot write {path}: {exc.strerror or exc}") from None
        self.message = f"saved {path} (fitness {champion.fitness:.4f}, generation {champion.generation})"
        return str(path)

    def save_card(self, generation: int | None = None) -> str:
        from evolution.files import write_atomic

        from .cards import make_card
        champion = self.chosen_champion(generation)
        path = self._free_path(champion, ".png")
        try:
            write_atomic(path, make_card(champion, Race([champion])))
        except ChampionError as exc:
            raise GameError(str(exc)) from None
        except OSError as exc:
            raise GameError(f"cannot write {path}: {exc.strerror or exc}") from None
        self.message = f"saved the card {path} (fitness {champion.fitness:.4f}, generation {champion.generation})"
        return str(path)

    def evolve(self) -> None:
        """Evolve a champion further: a new run with its design, task and settings whose first
        generation starts from its genome (an exact copy, and copies mutated once each:
        ``evolution.run.seeded_population``); its generations, population and trials are the
        run's defaults (``RunSettings``')."""
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
        out = new_run_dir(self.out_dir, design.name, c.task.name)
        self._champion, self.state = None, "starting"
        try:
            start(self, out, design, task=c.task.name, terrain=c.terrain_ref.name,
                  sensors=[r.name for r in c.sensors], seconds=c.seconds, seed=c.seed, workers=0, network=c.network,
                  medium=medium, sim={**sim.to_dict(), "ground": True, "engine": physics.ENGINE_VERSION},
                  clock_hz=c.clock_hz, start_genome=c.genome, parent=c.hash(), **_growing(c))
        except GameError:
            self._champion, self.state = c, "champion"
            raise


def _growing(champion) -> dict:
    """The settings that make a run evolving ``champion`` further grow as the run that grew it
    did (nothing for a design's champion): its design is the seed that run grew it from."""
    grown = champion.grown
    if grown is None:
        return {}
    if grown.settings is not None:
        return {"grow": dict(grown.settings)}
    return {"grow": {"spheres": grown.slot_count, "muscles": grown.wiring.n_outputs}}


def start(session: PlaySession, out: Path, design, **settings) -> None:
    """Create the run in ``out`` (as ``creatures evolve`` does) and make ``session`` evolve it."""
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



"""Sources for the viewer and the recorder: champions racing, a run being followed, a design
previewed. They implement ``render.scene.Source``.

A champion is stepped by ``evolution.EpisodeRun``, the loop evolution scored it with, at the
episode's own fixed ``dt``, with its own body (``Champion.episode_run``: a body that evolved is
not its design's): its fitness at the end of the replay is the recorded one, bit for bit. Racing
champions each run their own episode (creatures do not interact), on one terrain, and each is
drawn with its own body, the parts it switched off left out.
"""

from __future__ import annotations

import dataclasses
import math
import sys
from pathlib import Path

import numpy as np

import physics
from evolution import PluginError
from evolution.champion import Champion, ChampionError, champion_from_run, load_champion
from evolution.jsonread import JsonFileError
from evolution.rollout import Episode, EpisodeRun
from render.scene import Brain, BrainNode, CreatureFrame, CreatureShape, Frame, Scene

from .design import DesignError, parse_design, resolve_design
from .shipped import champion_path
from .simulation import SINE_HZ

__all__ = ["Race", "RunFollower", "Preview", "SineDesign", "load_sources", "creature_shape", "creature_frame", "brain_graph",
           "looks_of",
           "terrain_scene", "where_text"]


# --- one creature ------------------------------------------------------------------------------

def looks_of(design_text: str):
    """The looks of a design's YAML text (a champion's, a run's): its colours and eyes; none
    for a text that no longer loads (a champion from an older format keeps its body, which is
    what replays)."""
    from .design.looks import Looks
    try:
        return parse_design(design_text, "<design>").looks
    except DesignError:
        return Looks()


def creature_shape(model: physics.Model, label: str = "", info: dict | None = None, b: int = 0,
                   looks=None) -> CreatureShape:
    """How creature ``b`` of ``model`` looks: its own radii and rest shape (a body that evolved
    differs from its batch's others), the parts it has switched off (not drawn), and its bones'
    plate widths (``model.bone_plate``) with the wings among them (``model.bone_wing``: drawn as
    plates)."""
    rigid = physics.rigid_bones(model)[b]
    clusters = []
    for k in range(model.n_clusters):
        members = model.cluster_sphere[model.cluster_start[k]:model.cluster_start[k + 1]]
        rest = model.rest_pos[b, members]
        d = rest - rest.mean(axis=0)
        clusters.append(members[np.argsort(np.arctan2(d[:, 1], d[:, 0]))])  # around the centre
    sphere_on, bone_on, joint_on = model.sphere_on[b], model.bone_on[b], model.joint_on[b]
    drawn = looks.arrays() if looks else {}
    if drawn and (len(looks.sphere_colour) != model.n_spheres or len(looks.bone_colour) != model.n_bones):
        drawn = {}    # looks of another body: none
    masks = {}
    if not (sphere_on.all() and bone_on.all() and joint_on.all()):
        masks = dict(sphere_on=sphere_on.copy(), bone_on=bone_on.copy(), joint_on=joint_on.copy())
    return CreatureShape(radius=model.radius[b].copy(), bone_a=model.bone_a.copy(),
                         bone_b=model.bone_b.copy(), muscle_bone=model.muscle_bone[model.muscle_on[b]],
                         rigid=rigid, joint_sphere=model.joint_c.copy(), label=label,
                         info=dict(info or {}), clusters=tuple(clusters),
                         bone_width=np.array(model.bone_plate[b], np.float64),
                         wing=np.array(model.bone_wing, bool), **masks, **drawn)


def creature_frame(model: physics.Model, state: physics.State, b: int = 0, **extra) -> CreatureFrame:
    """Creature ``b`` of a batch now. Muscle contraction is what the brain senses: the length
    off rest over the muscle's range (its muscles: a graph's model's rods are none)."""
    on = model.muscle_on[b]
    e = model.muscle_bone[on]
    d = state.pos[b, model.bone_a[e]] - state.pos[b, model.bone_b[e]]
    length = np.sqrt((d * d).sum(axis=1))
    contraction = np.clip((length / model.muscle_rest[b, on] - 1.0) / model.muscle_range[b, on], -1.0, 1.0)
    return CreatureFrame(pos=state.pos[b].copy(), contraction=contraction,
                         contact=state.contact[b].copy(),
                         joint_angle=physics.joint_angles(model, state)[b].copy(), **extra)


def terrain_scene(terrain: physics.Terrain, creatures, dt, duration, title, fitness_label,
                   sim: physics.SimParams | None = None) -> Scene:
    """The scene of an episode on ``terrain``, in ``sim``'s medium and with its ground or
    without (None: no fluid, with ground)."""
    medium = {}
    if sim is not None:
        medium = dict(ground=bool(sim.ground), medium=physics.medium_name(sim),
                      fluid_density=float(sim.fluid_density),
                      flow=(float(sim.flow_x), float(sim.flow_y)))
    return Scene(terrain_x=terrain.xs.copy(), terrain_y=terrain.ys.copy(), creatures=creatures,
                 dt=dt, duration=duration, title=title, fitness_label=fitness_label, **medium)


def where_text(terrain: physics.Terrain, sim: physics.SimParams) -> str:
    """``on flat`` for a title; with no ground, the medium instead (``in water``)."""
    if sim.ground:
        return f"on {terrain.kind}"
    medium = physics.medium_name(sim)
    return f"in {medium}" if medium != "none" else "with no ground"


def _medium_key(sim: physics.SimParams) -> tuple:
    """What a race's champions must share to be drawn in one scene: the fluid, its flow, and
    whether there is ground."""
    return (bool(sim.ground), float(sim.fluid_density), float(sim.flow_x), float(sim.flow_y))


def _medium_text(sim: physics.SimParams) -> str:
    """``water, no ground``: a champion's medium, to tell racers apart."""
    return physics.medium_name(sim) + ("" if sim.ground else ", no ground")


# --- champions racing ---------------------------------------------------------------------------

class Race:
    """One or more champions replayed side by side on one terrain, as ghosts that do not
    collide. Raises :class:`ChampionError` (one line) for champions that cannot share a race."""

    def __init__(self, champions: list[Champion], labels: list[str] | None = None, title: str | None = None,
                 trial: int = 0):
        if not champions:
            raise ChampionError("nothing to watch")
        labels = labels or [c.name or f"champion {k + 1}" for k, c in enumerate(champions)]
        # each champion in its trial ``trial`` (a champion scored over several shows one, and says which)
        labels = [f"{label}, {c.trial_label(trial)}" if c.trial_label(trial) else label
                  for label, c in zip(labels, champions)]
        self.trial = trial
        first = champions[0]
        terrain = first.terrain
        for c, label in zip(champions[1:], labels[1:]):
            t = c.terrain
            if not (np.array_equal(t.xs, terrain.xs) and np.array_equal(t.ys, terrain.ys)):
                raise ChampionError(f"{label} runs on {t.kind} terrain and {labels[0]} on "
                                    f"{terrain.kind}: a race needs one terrain")
            if c.sim.dt != first.sim.dt:
                raise ChampionError(f"{label} steps at dt {c.sim.dt:g} s and {labels[0]} at "
                                    f"{first.sim.dt:g} s: a race needs one time step")
            if _medium_key(c.sim) != _medium_key(first.sim):
                raise ChampionError(f"{label} is in {_medium_text(c.sim)} and {labels[0]} in "
                                    f"{_medium_text(first.sim)}: a race needs one medium")
        self.champions = champions
        try:
            # each with its own body (an evolved one differs from its design's)
            self.runs = [c.episode_run(trial=trial) for c in champions]
        except PluginError as exc:
            raise ChampionError(str(exc)) from None
        self._slots = [None] * len(champions)
        self._names = [None] * len(champions)
        shapes = [creature_shape(r.model, label, {"design": c.body.name, "task": c.task.short,
                                                  "terrain": terrain.kind,
                                                  "generation": c.generation,
                                                  **({"fresh": c.post.summary["mean"]} if c.post else {})},
                                 looks=looks_of(c.design_yaml) if len(champions) == 1 else None)
                  for r, c, label in zip(self.runs, champions, labels)]
        tasks = sorted({c.task.short for c in champions})
        if title is None:
            where = where_text(terrain, first.sim)
            title = (f"{first.body.name or 'champion'} - {first.task.short} {where}"
                     if len(champions) == 1 else
                     f"race of {len(champions)} - {'/'.join(tasks)} {where}")
        self.scene = terrain_scene(terrain, shapes, first.sim.dt, max(c.seconds for c in champions),
                                    title, first.measures, self.runs[0].episode.sim)
        self.message = None

    def reset(self) -> None:
        for r in self.runs:
            r.reset()

    def step(self) -> None:
        try:
            for r in self.runs:
                if not r.done:
                    r.step()
        except PluginError as exc:
            raise ChampionError(str(exc)) from None

    def frame(self) -> Frame:
        creatures, xs = [], []
        for r, c in zip(self.runs, self.champions):
            f = float(r.fitness()[0])
            creatures.append(creature_frame(r.model, r.state, fitness=f, recorded=c.trial_fitness(self.trial),
                                            failed=bool(r.failed[0])))
            x = float(r.centre_of_mass()[0, 0])
            xs.append(x if math.isfinite(x) else -math.inf)
        t = max(r.t for r in self.runs)
        return Frame(time=t * self.scene.dt, step=t, creatures=creatures, leader=int(np.argmax(xs)),
                     done=all(r.done for r in self.runs))

    def brain(self, creature: int) -> Brain:
        r = self.runs[creature]
        if self._names[creature] is None:
            self._names[creature] = named_ends(self.champions[creature], r.episode)
        inputs, outputs = self._names[creature]
        return brain_graph(self.champions[creature].genome, inputs, outputs)

    def brain_values(self, creature: int) -> dict:
        if self._slots[creature] is None:
            self._slots[creature] = self.champions[creature].node_slots()
        net = self.runs[creature].brains
        values = net.values[0, net.active]
        return {key: float(values[slot]) for key, slot in self._slots[creature].items()}

    def poll(self) -> bool:
        return False


def named_ends(champion: Champion, episode: Episode) -> tuple[list, list]:
    """A champion's brain inputs and outputs by the names its design gives its parts
    (``shin_hind``, ``foot_fore contact``), where its design can be read and its parts are the
    design's (not an evolved body that dropped some); ``muscle 3``, ``sphere 0 contact``
    otherwise. A grown body's parts are named by their slots, and its brain's inputs and outputs
    for parts it does not have are ``unused``."""
    if episode.wiring is not None:
        return episode.brain_names()
    try:
        design = parse_design(champion.design_yaml)
    except DesignError:   # a design this version reads otherwise: numbered names
        return episode.input_names(), episode.output_names()
    names = {"sphere": list(design.sphere_ids), "muscle": list(design.muscle_ids), "joint": list(design.joint_ids)}
    named = dataclasses.replace(episode, part_names=names)
    return named.input_names(), named.output_names()


def brain_graph(genome: dict, input_names: list, output_names: list) -> Brain:
    """A genome (``genome_to_dict``'s form) as the brain panel's nodes and enabled edges: the
    inputs named, the outputs by what they drive (``muscle k``, or a muscle group's name:
    ``Episode.output_names``), hidden nodes by depth."""
    n_out = len(output_names)
    keys = {int(n["key"]) for n in genome["nodes"]}
    edges = [(int(e["in"]), int(e["out"]), float(e["weight"]))
             for e in genome["connections"] if e["enabled"]]
    depth = _depths(keys, edges, n_out)
    nodes = [BrainNode(-(k + 1), "input", name) for k, name in enumerate(input_names)]
    nodes += [BrainNode(k, "output" if k < n_out else "hidden",
                        output_names[k] if k < n_out else "", depth.get(k, 1))
              for k in sorted(keys)]
    return Brain(nodes, edges)


def _depths(keys: set, edges: list, n_out: int) -> dict:
    """Depth of each hidden node: the longest path from the inputs over enabled edges, cycles
    (recurrent networks) cut; outputs go last. Walked with a stack of its own, not recursion:
    a genome read from a file may chain thousands of nodes."""
    depth = {}
    incoming = {}
    for a, b, _ in edges:
        incoming.setdefault(b, []).append(a)
    done = object()
    for root in keys:
        if root < 0 or root in depth:
            continue
        seen = {root}
        stack = [[root, iter(incoming.get(root, ())), 0]]  # node, its inputs left, deepest so far
        while stack:
            frame = stack[-1]
            child = next(frame[1], done)
            if child is done:
                stack.pop()
                seen.discard(frame[0])
                depth[frame[0]] = 1 + frame[2]
                if stack:
                    stack[-1][2] = max(stack[-1][2], depth[frame[0]])
                continue
            if child < 0:
                value = 0
            elif child in depth:
                value = depth[child]
            elif child in seen:
                value = 1
            else:
                seen.add(child)
                stack.append([child, iter(incoming.get(child, ())), 0])
                continue
            frame[2] = max(frame[2], value)
    return {k: d for k, d in depth.items() if k >= n_out}


# --- following a run ----------------------------------------------------------------------------

class RunFollower:
    """The champion of the newest finished generation of a run directory; when another
    generation finishes (the run is evolving elsewhere), its champion starts."""

    def __init__(self, run_dir):
        self.run_dir = Path(run_dir)
        self.generation = 0
        self.race = None
        self.scene = None
        self.message = None
        if not (self.run_dir / "settings.json").is_file():
            raise ChampionError(f"{self.run_dir} is not a run directory (no settings.json)")
        if not self.poll():
            try:
                self._waiting()
            except JsonFileError as exc:  # names the file, and where in it
                raise ChampionError(str(exc)) from None
            except (OSError, ValueError, KeyError, TypeError) as exc:
                raise ChampionError(f"{self.run_dir}: unreadable run settings ({exc})") from None
            except PluginError as exc:
                raise ChampionError(f"{self.run_dir}: {exc}") from None

    def _newest(self) -> int:
        from evolution.rundir import best_generation
        gens = [best_generation(p) for p in (self.run_dir / "best").glob("gen_*.json")]
        return max((g for g in gens if g is not None), default=0)

    def _waiting(self) -> None:
        from evolution.run import RunSettings, read_terrain
        settings = RunSettings.read(self.run_dir / "settings.json")
        terrain = read_terrain(self.run_dir, settings)
        sim = physics.SimParams.from_dict(settings.sim)
        self.scene = terrain_scene(terrain, [], sim.dt,
                                    settings.seconds, f"{settings.design_name} - {settings.task}: waiting",
                                    settings.measures or "fitness", sim)
        self.message = f"waiting for the first generation of {self.run_dir}"

    def poll(self) -> bool:
        newest = self._newest()
        if newest <= self.generation:
            return False
        try:
            champion = champion_from_run(self.run_dir, newest)
        except ChampionError:
            return False  # being written: try again at the next poll
        self.race = Race([champion])
        self.generation = newest
        self.scene = self.race.scene
        self.message = None
        return True

    def reset(self) -> None:
        if self.race is not None:
            self.race.reset()

    def step(self) -> None:
        if self.race is not None:
            self.race.step()

    def frame(self) -> Frame:
        if self.race is None:
            return Frame(0.0, 0, [], 0, False)
        return self.race.frame()

    def brain(self, creature):
        return None if self.race is None else self.race.brain(creature)

    def brain_values(self, creature):
        return {} if self.race is None else self.race.brain_values(creature)


# --- previewing a design -------------------------------------------------------------------------

class _Sine:
    """Brains for a preview: every muscle on a sine, phases spread evenly (as ``creatures
    simulate --muscles sine``)."""

    def __init__(self, n_muscles: int, dt: float):
        self.n, self.dt, self.t = n_muscles, dt, 0

    def reset(self) -> None:
        self.t = 0

    def activate(self, inputs):
        phase = 2.0 * np.pi * np.arange(self.n) / max(self.n, 1)
        out = np.sin(2.0 * np.pi * SINE_HZ * self.t * self.dt + phase)[None, :]
        self.t += 1
        return np.repeat(out, inputs.shape[0], axis=0)


class SineDesign:
    """A valid design on a terrain (None: flat ground), its muscles driven by a sine wave (as
    ``creatures simulate --muscles sine``), stepped by ``evolution.EpisodeRun``: what
    ``creatures preview`` and the editor's live test play. Raises what ``Episode.make`` raises
    for a terrain that cannot be made (a :class:`~evolution.PluginError`, a ValueError)."""

    SECONDS = 1e6  # it never ends

    def __init__(self, design, terrain: str | None = None, title: str | None = None, task: str = "preview"):
        sim = physics.SimParams()
        episode = Episode.make(design.body, "run", terrain=terrain, seconds=self.SECONDS, sim=sim)
        self.run = EpisodeRun(episode, _Sine(episode.n_outputs(), sim.dt), 1)
        info = {"design": design.name, "task": task, **({"terrain": terrain} if terrain else {})}
        shape = creature_shape(self.run.model, design.name, info, looks=design.looks)
        self.scene = terrain_scene(self.run.terrain, [shape], sim.dt, None,
                                    title or f"{design.name} - preview, muscles on a {SINE_HZ:g} Hz sine",
                                    self.run.task.measures, episode.sim)
        self.message = None

    def reset(self) -> None:
        self.run.reset()

    def step(self) -> None:
        self.run.step()

    def frame(self) -> Frame:
        r = self.run
        return Frame(time=r.t * self.scene.dt, step=r.t,
                     creatures=[creature_frame(r.model, r.state, fitness=float(r.fitness()[0]),
                                               failed=bool(r.failed[0]))])

    def brain(self, creature):
        return None

    def brain_values(self, creature):
        return {}

    def poll(self) -> bool:
        return False


class Preview:
    """A design standing on flat ground, its muscles driven by a sine wave (:class:`SineDesign`),
    reloaded whenever its file is saved. A design that does not load shows its problems (with
    line and column) and the last good version stays on screen."""

    SECONDS = SineDesign.SECONDS

    def __init__(self, design: str):
        self.name = design
        self.path = None if design in _builtin() else Path(design)
        self.playing = None
        self.message = None
        self._mtime = None
        self._load()
        if self.playing is None:
            raise DesignError(design, self._problems)

    run = property(lambda self: self.playing.run)
    scene = property(lambda self: self.playing.scene)

    def _load(self) -> bool:
        self._problems = []
        try:
            try:  # taken before reading: a save while it reads is seen at the next poll
                self._mtime = self.path.stat().st_mtime_ns if self.path is not None else None
            except OSError:
                self._mtime = None  # no such file (just now, or at all): resolve_design says so
            design = resolve_design(self.name)
        except DesignError as exc:
            self._problems = exc.problems
            self.message = str(exc)
            return False
        except OSError as exc:
            self.message = f"{self.name}: {exc.strerror or exc}"
            return False
        self.playing = SineDesign(design)
        self.message = None
        return True

    def poll(self) -> bool:
        if self.path is None:
            return False
        try:
            mtime = self.path.stat().st_mtime_ns
        except OSError:
            return False
        if mtime == self._mtime:
            return False
        return self._load()

    def reset(self) -> None:
        self.playing.reset()

    def step(self) -> None:
        self.playing.step()

    def frame(self) -> Frame:
        return self.playing.frame()

    def brain(self, creature):
        return None

    def brain_values(self, creature):
        return {}


def _builtin() -> list[str]:
    from .design import builtin_names
    return builtin_names()


# --- what a command line names -------------------------------------------------------------------

def load_sources(targets: list[str], follow: bool = False, plugins=(), generations=None, trial: int = 0):
    """The source for ``creatures watch``/``record`` arguments: champion files (one, or several
    racing) or a run directory (its best champion, or with ``follow`` the newest generation's,
    or with ``generations`` the champions of those generations racing: see
    :func:`generation_race`). ``plugins``: the plug-in files or modules the user named for
    champion files (``--plugin``). A target that does not exist may name a shipped champion
    (:func:`~creatures.shipped.champion_path`). ``trial``: the trial (from 0) each champion is
    shown in (:meth:`Champion.episode_run`). Raises :class:`ChampionError` with one line."""
    named = []
    for t in targets:
        try:
            named.append(champion_path(t))
        except ChampionError as exc:
            raise ChampionError(f"{t}: {exc}") from None
    targets = named
    if follow:
        if generations is not None:
            raise ChampionError("--follow and --race do not go together: --follow plays each new "
                                "generation's champion, --race the generations it names")
        if len(targets) != 1 or not Path(targets[0]).is_dir():
            raise ChampionError("--follow takes one run directory")
        return RunFollower(targets[0])
    if generations is not None:
        if len(targets) != 1 or not Path(targets[0]).is_dir():
            raise ChampionError("--race takes one run directory")
        return generation_race(targets[0], generations)
    champions, labels = [], []
    for t in targets:
        path = Path(t)
        champion = champion_from_run(path) if path.is_dir() else _load(path, plugins)
        try:
            champion.episode()  # its plug-ins found (or refused) now, with the file's name
            champion.brains()   # and its genome checked against the creature
        except ChampionError as exc:
            raise ChampionError(f"{path}: {exc}") from None
        champions.append(champion)
        labels.append(champion.name or path.stem)
    if len(set(labels)) < len(labels):  # the same champion twice, say: tell them apart
        labels = [f"{k + 1}. {label}" for k, label in enumerate(labels)]
    return Race(champions, labels, trial=trial)


#: at most this many generations race at once
MAX_RACERS = 16


def parse_generations(text: str) -> list:
    """``--race`` text -> the generations it names: whole numbers (1 or more), ``last`` (the
    newest finished generation) or ``best`` (the generation of the whole run's best champion),
    comma-separated: ``1,last`` -> ``[1, "last"]``. Raises ValueError (one line)."""
    words = [w.strip().lower() for w in str(text).split(",")]
    wanted = []
    for w in words:
        if w in ("last", "best"):
            wanted.append(w)
        elif w.isdigit() and len(w) < 10 and int(w) >= 1:
            wanted.append(int(w))
        else:
            raise ValueError(f"--race takes generations of the run, like 1,last or 1,25,50 (numbers from 1, "
                             f"last, best), not {text!r}")
    if len(wanted) > MAX_RACERS:
        raise ValueError(f"--race names {len(wanted)} generations; at most {MAX_RACERS} race at once")
    return wanted


def generation_race(run_dir, generations) -> Race:
    """The champions of some generations of one run racing, each with its own body (a body that
    evolves shows how it changed) and labelled with its generation (``gen 1``, ``gen 50``).
    ``generations``: what :func:`parse_generations` returns (or its text). Raises
    :class:`ChampionError` with one line."""
    from evolution.rundir import best_generation
    run_dir = Path(run_dir)
    if isinstance(generations, str):
        try:
            generations = parse_generations(generations)
        except ValueError as exc:
            raise ChampionError(str(exc)) from None
    if not generations:
        raise ChampionError("--race names no generation")
    if not (run_dir / "settings.json").is_file():
        raise ChampionError(f"{run_dir} is not a run directory (no settings.json)")
    finished = sorted(n for p in (run_dir / "best").glob("gen_*.json") if (n := best_generation(p)) is not None)
    if not finished:
        raise ChampionError(f"{run_dir} has no finished generation yet")
    champions, labels = [], []
    for wanted in generations:
        if wanted == "best":
            champion = champion_from_run(run_dir)
            label = f"best, gen {champion.generation}"
        else:
            champion = champion_from_run(run_dir, finished[-1] if wanted == "last" else int(wanted))
            label = f"gen {champion.generation}"
        try:
            champion.brains()   # its genome checked against the creature, naming the run
        except ChampionError as exc:
            raise ChampionError(f"{run_dir}: {exc}") from None
        champions.append(champion)
        labels.append(label)
    if len(set(labels)) < len(labels):
        labels = [f"{k + 1}. {label}" for k, label in enumerate(labels)]
    first = champions[0]
    gens = sorted({c.generation for c in champions})
    named = " vs ".join(f"gen {g}" for g in gens) if len(gens) > 1 else f"gen {gens[0]}"
    title = f"{first.body.name or 'champion'} - {named} - {first.task.short} {where_text(first.terrain, first.sim)}"
    return Race(champions, labels, title)


def _load(path: Path, plugins=()) -> Champion:
    try:
        champion = load_champion(path, plugins)
    except ChampionError as exc:
        raise ChampionError(f"{path}: {exc}") from None
    if champion.earlier_engine():   # its recorded fitness is not what the window will show
        print(f"{path}: {champion.earlier_engine()}", file=sys.stderr)
    return champion

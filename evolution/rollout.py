"""An episode: a batch of creatures with their brains on a task, step by step.

Each step: sensors -> networks -> muscle commands -> physics step -> the episode's failure rules
-> the task's update. :class:`EpisodeRun` is that loop one step at a time; evolution scores
with it (through :func:`run_episode`), the viewer replays champions with it and the Gymnasium
environment steps it, so what is watched is what was scored. Where every part of an episode is a
built-in that has a kernel (the built-in sensors and tasks, one batch of networks, the PBD
solver), :meth:`EpisodeRun.run_until` takes its steps in one kernel call (:func:`_run_steps`),
each stage the kernel :meth:`EpisodeRun.step` calls: the same bits, without Python's side of each
stage at every step (docs/performance.md).

The episode's own rules, whatever the task: a creature whose centre of mass stops being finite,
or whose body leaves the physics behind (a rigid bone more than 5 % off its length, a hinge
forced past its limit, a sphere deep inside the ground: ``physics.integrity``, the same rule as
``creatures simulate``'s verdict), has failed: it scores ``WORST_FITNESS`` and is counted. So is a creature the task fails (:meth:`Task.failed`) or
whose fitness comes back not finite. A creature that has failed or that the task has ended
(:meth:`Task.ended`) keeps its fitness from then on; when all have, the episode stops early.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
from numba import njit

import physics
from physics import step_in_kernel
from physics.integrity import MEASURES, frame_of, measure, rigid_bones, within_limits
from physics.sensors import creature_com

from .bodygenes import NO_GENES, BodyGenes
from .plugins import Plugin, PluginError, plugin_failure, resolve
from .network import NetworkBatch, step_range
from .sensors import DEFAULT_SENSORS, builtin_reads, read_builtins
from .tasks import DEFAULT_TASK, WORST_FITNESS, Task, builtin_follow, follow_builtin, task_sim

__all__ = ["Context", "Clock", "Episode", "EpisodeRun", "Wiring", "WiredBrains", "run_episode", "DEFAULT_SECONDS", "DEFAULT_CLOCK_HZ"]

#: an episode's simulated seconds, and its brains' clock (Hz), when none are given: a run's
#: defaults too (``evolution.run.RunSettings``, which every front end asks for its defaults)
DEFAULT_SECONDS = 20.0
DEFAULT_CLOCK_HZ = 1.0


@dataclass(frozen=True)
class Context:
    """What tasks and sensors are told at the start of an episode (the same for every creature).

    Attributes
    ----------
    model : physics.Model
        The batch's static arrays: ``mass (B, P)``, ``radius (B, P)``, ``rest_pos (B, P, 2)``,
        ``bone_a``/``bone_b (E,)``, ``muscle_bone (M,)``, ``joint_a``/``joint_c``/``joint_b
        (J,)``... (``physics/model.py``).
    terrain : physics.Terrain
        The ground: ``xs``, ``ys (N,)``, ``height(x)``.
    sim : physics.SimParams
        How the world steps (``dt``, ``gravity``, ``ground``...).
    steps : int
        The episode's length in steps (it may end earlier).
    clock_hz : float
        The frequency of the brains' clock.
    body_size : float
        The design's length scale (m): its rest extent (at least a sphere's diameter).
    rest_height : float
        The design's rest centre-of-mass height above its lowest point (m).
    body_sizes, rest_heights : ndarray, shape (B,)
        The same of each creature's own body (they differ when bodies evolve: a sensor that
        measures in body lengths should use these).
    part_names : dict
        ``{"sphere": [...], "muscle": [...], "joint": [...]}`` from the design, if known.
    """

    model: physics.Model
    terrain: physics.Terrain
    sim: physics.SimParams
    steps: int
    clock_hz: float = DEFAULT_CLOCK_HZ
    body_size: float = 1.0
    rest_height: float = 1.0
    part_names: dict = field(default_factory=dict)
    body_sizes: np.ndarray = None
    rest_heights: np.ndarray = None

    def __post_init__(self):
        B = self.model.batch
        if self.body_sizes is None:
            object.__setattr__(self, "body_sizes", np.full(B, self.body_size))
        if self.rest_heights is None:
            object.__setattr__(self, "rest_heights", np.full(B, self.rest_height))

    @staticmethod
    def _scales(model: physics.Model, b: int) -> tuple[float, float]:
        """Creature ``b``'s length scale and rest height (of its spheres switched on)."""
        on = model.sphere_on[b]
        pos, radius, mass = model.rest_pos[b], model.radius[b], model.mass[b]
        if not on.all():
            pos, radius, mass = pos[on], radius[on], mass[on]
        extent = np.ptp(pos, axis=0)
        size = float(max(extent.max(), 2.0 * radius.max()))
        com_y = float((mass * pos[:, 1]).sum() / mass.sum())
        bottom = float((pos[:, 1] - radius).min())
        return size, max(com_y - bottom, 1e-3)

    @classmethod
    def of(cls, model: physics.Model, terrain: physics.Terrain, sim: physics.SimParams, steps: int,
           clock_hz: float = DEFAULT_CLOCK_HZ, part_names: dict | None = None, design: physics.Model | None = None,
           varied: bool = False) -> "Context":
        """``design``: a model of the design's own body, for :attr:`body_size` and
        :attr:`rest_height` (default: ``model``'s first creature); ``varied``: the creatures
        have bodies of their own (else they all have the first one's scales)."""
        size, height = cls._scales(design if design is not None else model, 0)
        B = model.batch
        if varied:
            scales = np.array([cls._scales(model, b) for b in range(B)], dtype=np.float64).reshape(B, 2)
            sizes, heights = scales[:, 0].copy(), scales[:, 1].copy()
        else:
            sizes, heights = np.full(B, size), np.full(B, height)
        return cls(model, terrain, sim, int(steps), float(clock_hz), size, height,
                   dict(part_names or {}), sizes, heights)

    @property
    def batch(self) -> int:
        return self.model.batch

    @property
    def dt(self) -> float:
        return self.sim.dt

    def names(self, kind: str) -> list[str]:
        """The names of the body's spheres, muscles or joints (``muscle 0``... if unknown)."""
        count = {"sphere": self.model.n_spheres, "muscle": self.model.n_muscles,
                 "joint": self.model.n_joints}[kind]
        names = self.part_names.get(kind)
        return list(names) if names and len(names) == count else [f"{kind} {k}" for k in range(count)]


class Clock:
    """Steps and time since each creature's start (creatures may start at different steps in
    the vectorised Gymnasium environment; in evolution they start together).

    Attributes
    ----------
    step : ndarray of int64, shape (B,)
    time : ndarray of float64, shape (B,)
        Seconds, summed ``dt`` by ``dt`` (as ``physics.State.time`` is).

    :class:`EpisodeRun` advances it after every step (in its kernel).
    """

    def __init__(self, batch: int):
        self.step = np.zeros(batch, dtype=np.int64)
        self.time = np.zeros(batch)

    def restart(self, which) -> None:
        self.step[which] = 0
        self.time[which] = 0.0


@dataclass(frozen=True)
class Wiring:
    """How a body's sensors and muscles meet a brain made for more of them: a grown body's
    (:mod:`evolution.growth`), whose brain has an input for every input any body of its run may
    have and an output for every muscle it may have. Input ``k`` of the body's sensors is the
    brain's input ``inputs[k]`` (the brain's other inputs read 0); the body's command ``k``
    (its muscle ``k``) is the brain's output ``outputs[k]``. In a graph's model (a growing run's
    engine of graphs: :attr:`Episode.graph`) some of the model's muscles are the body's rods:
    their commands and the inputs that read them are wired to nothing (-1)."""

    n_inputs: int
    n_outputs: int
    inputs: tuple
    outputs: tuple

    def to_dict(self) -> dict:
        return {"n_inputs": self.n_inputs, "n_outputs": self.n_outputs, "inputs": list(self.inputs),
                "outputs": list(self.outputs)}

    @classmethod
    def from_dict(cls, data) -> "Wiring":
        """The wiring of :meth:`to_dict`'s dict; ValueError (one line) for anything else."""
        try:
            n_in, n_out = data["n_inputs"], data["n_outputs"]
            inputs, outputs = tuple(data["inputs"]), tuple(data["outputs"])
        except (KeyError, TypeError) as exc:
            raise ValueError(f"the wiring must have n_inputs, n_outputs, inputs and outputs ({exc})") from None
        for n, where in ((n_in, "n_inputs"), (n_out, "n_outputs")):
            if isinstance(n, bool) or not isinstance(n, int) or not 0 < n <= 100_000:
                raise ValueError(f"the wiring's {where} must be a whole number from 1 to 100000")
        for items, n, where in ((inputs, n_in, "inputs"), (outputs, n_out, "outputs")):
            wired = [i for i in items if i != -1]
            if any(isinstance(i, bool) or not isinstance(i, int) or not -1 <= i < n for i in items) \
                    or len(set(wired)) != len(wired):
                raise ValueError(f"the wiring's {where} must be different whole numbers from 0 to {n - 1} "
                                 f"(or -1, none)")
        return cls(n_in, n_out, inputs, outputs)


class WiredBrains:
    """Brains seen through wirings (:class:`Wiring`): ``activate`` takes the bodies' inputs and
    answers their commands. ``inputs`` (S,) and ``outputs`` (M,) are one wiring's for every
    creature, or (B, S) and (B, M) one per creature (creatures of one topology wired to their
    brains by different slots: :func:`evolution.growth.score_grown`); the brain's other inputs
    read 0. The same values reach the brains either way. Anything else is the brains' own."""

    def __init__(self, brains, n_inputs: int, inputs, outputs, batch: int):
        self.brains = brains
        self._inputs = np.zeros((batch, n_inputs))
        # one row per creature either way, copied in kernels (numpy's fancy indexing and
        # take_along_axis cost ~8 us a step: in a growing run, a tenth of its batches' time)
        self._in, self._out = _per_creature(inputs, batch), _per_creature(outputs, batch)

    def reset(self) -> None:
        self.brains.reset()

    def activate(self, inputs):
        _wire_in(np.ascontiguousarray(inputs, dtype=np.float64), self._in, self._inputs)
        brain = np.ascontiguousarray(self.brains.activate(self._inputs), dtype=np.float64)
        out = np.empty(self._out.shape)
        _wire_out(brain, self._out, out)
        return out

    def __getattr__(self, name):
        return getattr(self.brains, name)


def _per_creature(index, batch: int) -> np.ndarray:
    """A wiring's indices, (S,) for every creature or (B, S) one row each, as (B, S) int64: a
    copy of its own, writeable (a read-only array is a numba type of its own, and the episode's
    loop, which holds the whole physics step, compiled once more for it)."""
    index = np.asarray(index, dtype=np.int64)
    return np.broadcast_to(index.reshape(-1, index.shape[-1]) if index.ndim == 2 else index[None, :],
                           (batch, index.shape[-1])).copy()


@njit(cache=True)
def _wire_in(inputs, index, out):
    """``out[b, index[b, s]] = inputs[b, s]``: a body's inputs into its brain's (:class:`WiredBrains`;
    an input wired to -1 into none)."""
    for b in range(inputs.shape[0]):
        for s in range(inputs.shape[1]):
            if index[b, s] >= 0:
                out[b, index[b, s]] = inputs[b, s]


@njit(cache=True)
def _wire_out(outputs, index, out):
    """``out[b, m] = outputs[b, index[b, m]]``: a brain's outputs to its body's muscles (a muscle
    wired to -1, a graph's rod, 0)."""
    for b in range(out.shape[0]):
        for m in range(out.shape[1]):
            out[b, m] = outputs[b, index[b, m]] if index[b, m] >= 0 else 0.0


def _default_sensors() -> tuple:
    return tuple(resolve("sensor", name) for name in DEFAULT_SENSORS)


@dataclass(frozen=True, eq=False)
class Episode:
    """Everything an evaluation needs besides the brains: the body, the task, its terrain, the
    sensors, and the physics. ``seconds`` of simulated time at ``sim.dt`` per step;
    ``clock_hz`` is the brains' clock. :meth:`make` builds one from names."""

    body: physics.Body
    task: Plugin = field(default_factory=lambda: resolve("task", DEFAULT_TASK))
    terrain: physics.Terrain = field(default_factory=lambda: physics.Terrain.flat())
    sensors: tuple = field(default_factory=_default_sensors)
    seconds: float = DEFAULT_SECONDS
    sim: physics.SimParams = field(default_factory=physics.SimParams)
    clock_hz: float = DEFAULT_CLOCK_HZ
    part_names: dict = field(default_factory=dict)
    #: the design's evolvable values and optional parts (:mod:`evolution.bodygenes`): each
    #: creature's body is made of its genome's body genes (empty: every creature is ``body``)
    genes: BodyGenes = NO_GENES
    #: the brain's inputs and outputs when they are not the body's own (a grown body's)
    wiring: Wiring | None = None
    #: creatures have bodies of their own, of ``body``'s topology: :meth:`model` takes them as
    #: :class:`physics.Body` s (a grown body's episode: :mod:`evolution.growth`)
    varied: bool = False
    #: a run that grows bodies (:class:`evolution.growth.Growth`): its chunks are scored body
    #: shape by body shape (:func:`evolution.chunks.evaluate_chunk`)
    growth: object = None
    #: bodies stepped as their graph's models (``physics.build_model(body, graph=True)``: a
    #: growing run's engine of graphs, :mod:`evolution.growth`): the model's muscles are every
    #: bone of the graph, :attr:`part_names` names them (a rod ``rod E``), :attr:`wiring` says
    #: which the brain drives
    graph: bool = False

    @classmethod
    def make(cls, body: physics.Body, task=DEFAULT_TASK, terrain=None, sensors=None, seed: int = 0,
             seconds: float = DEFAULT_SECONDS, sim: physics.SimParams | None = None,
             clock_hz: float = DEFAULT_CLOCK_HZ, part_names: dict | None = None, genes: BodyGenes = NO_GENES,
             medium=None) -> "Episode":
        """An episode from plug-in names (or :class:`Plugin` s): ``terrain`` None is the task's
        default, made for ``seed``; ``sensors`` None is :data:`DEFAULT_SENSORS`, else a list of
        names or a ``--sensors`` string (:func:`evolution.sensors.sensor_list`). ``sim`` None is
        the default settings in the task's medium and with its ground (:func:`task_sim`);
        ``medium`` (a medium spec) sets another medium. Raises :class:`PluginError`, or
        ValueError for a bad medium."""
        from .sensors import sensor_list
        task = task if isinstance(task, Plugin) else resolve("task", task)
        if sim is None or medium is not None:
            sim = task_sim(task.sample, sim, medium)
        if terrain is None:
            terrain = task.sample.default_terrain
        if not isinstance(terrain, physics.Terrain):
            terrain = (terrain if isinstance(terrain, Plugin) else resolve("terrain", terrain)).make(seed)
        if sensors is None or isinstance(sensors, str):
            try:
                sensors = sensor_list(sensors)
            except ValueError as exc:
                raise PluginError(str(exc)) from None
        sensors = tuple(s if isinstance(s, Plugin) else resolve("sensor", s) for s in sensors)
        return cls(body, task, terrain, sensors, seconds, sim, clock_hz,
                   dict(part_names or {}), genes)

    @property
    def steps(self) -> int:
        return max(1, int(round(self.seconds / self.sim.dt)))

    def context(self, model: physics.Model) -> Context:
        if self.varied:
            return Context.of(model, self.terrain, self.sim, self.steps, self.clock_hz, self.part_names,
                              varied=True)
        if not self.genes:
            return Context.of(model, self.terrain, self.sim, self.steps, self.clock_hz, self.part_names)
        return Context.of(model, self.terrain, self.sim, self.steps, self.clock_hz, self.part_names,
                          design=physics.build_model(self.body, 1), varied=True)

    def model(self, batch: int, bodies=None) -> tuple[physics.Model, np.ndarray]:
        """The model of ``batch`` creatures and which of them have a refused body (bool (B,)):
        ``bodies`` is ``(values (B, V), parts (B, S))`` of the design's body genes (None: the
        design's start body for all); for a :attr:`varied` episode, ``bodies`` is
        one :class:`physics.Body` per creature, of :attr:`body`'s topology, or its model (a
        :class:`physics.Model` of one creature)."""
        if self.varied and bodies is not None:
            if len(bodies) != batch:
                raise ValueError(f"{len(bodies)} bodies for {batch} creatures")
            model = physics.stack_models([b if isinstance(b, physics.Model) else
                                          physics.build_model(b, 1, graph=self.graph) for b in bodies])
            if model is bodies[0]:   # one model handed in, which its maker keeps: this run's own copy
                model = replace(model)   # (the arrays shared, what stepping prepares its own)
            return model, np.zeros(batch, dtype=np.bool_)
        if not self.genes:
            if bodies is not None and (np.size(bodies[0]) or np.size(bodies[1])):
                raise ValueError("body genes given for a design that has none")
            return physics.build_model(self.body, batch, graph=self.graph), np.zeros(batch, dtype=np.bool_)
        if bodies is None:
            bodies = ([self.genes.start_values()] * batch, [self.genes.start_parts()] * batch)
        return self.genes.model(self.body, *bodies)

    def input_names(self) -> list[str]:
        """A short name for every brain input, in order: each sensor's labels."""
        ctx = self.context(physics.build_model(self.body, 1, graph=self.graph))
        names = []
        for plugin in self.sensors:
            try:
                names += [str(x) for x in plugin.create().labels(ctx)]
            except PluginError:
                raise
            except Exception as exc:
                raise plugin_failure(plugin.ref, "labels()", exc) from None
        return names

    def n_inputs(self) -> int:
        """The brain's inputs: the sensors' (or as :attr:`wiring` says)."""
        return self.wiring.n_inputs if self.wiring is not None else len(self.input_names())

    def n_outputs(self) -> int:
        """The brain's outputs: one per muscle group and per muscle of no group
        (``physics.Body.command_map``), or as :attr:`wiring` says."""
        return self.wiring.n_outputs if self.wiring is not None else len(self.body.command_map()[2])

    def brain_names(self) -> tuple[list[str], list[str]]:
        """The names of the brain's inputs and outputs, by the brain's own numbering: the body's
        (:meth:`input_names`, :meth:`output_names`), or through :attr:`wiring` the body's where
        it has them and ``unused input K`` / ``unused output K`` where it does not."""
        inputs, outputs = self.input_names(), self.output_names()
        w = self.wiring
        if w is None:
            return inputs, outputs
        brain_in = [f"unused input {k}" for k in range(w.n_inputs)]
        brain_out = [f"unused output {k}" for k in range(w.n_outputs)]
        for k, name in zip(w.inputs, inputs):
            if k >= 0:
                brain_in[k] = name
        for k, name in zip(w.outputs, outputs):
            if k >= 0:
                brain_out[k] = name
        return brain_in, brain_out

    def output_names(self) -> list[str]:
        """What each output drives: a group's name, or a muscle of its own by its name in
        :attr:`part_names` (``muscle K`` where they do not name every muscle); a graph's
        model's every muscle, its rods too, as :attr:`part_names` names them."""
        if self.graph:
            return list(self.part_names["muscle"])
        channel, _, names = self.body.command_map()
        muscles = self.part_names.get("muscle")
        if not muscles or len(muscles) != len(channel):
            return names
        own = [b.muscle.group is None for b in self.body.bones if b.muscle is not None]
        names = list(names)
        for k, c in enumerate(channel):
            if own[k]:
                names[int(c)] = muscles[k]
        return names


def _overrides(obj, base, method: str) -> bool:
    return getattr(type(obj), method) is not getattr(base, method)


class EpisodeRun:
    """An episode being run, one step at a time: the loop evolution scores with and the viewer
    watches (:func:`run_episode` is this class stepped to the end).

    Each :meth:`step`: sensors -> networks -> muscle commands -> physics step -> failure rules
    -> task update. ``brains`` is an object with ``reset()`` and ``activate(inputs (B, S)) ->
    outputs (B, C)``; outputs are muscle commands (one per muscle group and per muscle of no
    group: :meth:`advance`), clipped to [-1, 1] by the engine, NaN read as 0. An exception inside a plug-in becomes a :class:`PluginError` naming it. ``parallel``
    is ``physics.step``'s (None: threads for large batches).

    Attributes
    ----------
    model : physics.Model
    terrain : physics.Terrain
    ctx : Context
    task : Task
    sensors : list of Sensor
    state : physics.State
        After ``t`` steps.
    clock : Clock
    t : int
        Steps taken; the episode is over at ``episode.steps`` or when every creature has ended.
    inputs : ndarray, shape (B, S)
        What the brains read at the last step.
    outputs : ndarray, shape (B, C)
        What they answered (zeros before the first step).
    n_outputs : int
        C: the brains' outputs (one per muscle group and per muscle of no group).
    failed, nonfinite, ended : ndarray of bool, shape (B,)
        Failed (any rule); failed by becoming non-finite; ended (by the task, or by failing).
    warnings : list of str
        Plug-in problems that did not stop the episode (a fitness of the wrong shape, NaN).
    """

    def __init__(self, episode: Episode, brains, batch: int, parallel: bool | None = False, bodies=None,
                 starts=None):
        if episode.wiring is not None:
            w = episode.wiring
            brains = WiredBrains(brains, w.n_inputs, w.inputs, w.outputs, batch)
        self.episode, self.brains, self.parallel = episode, brains, parallel
        self.model, self.refused = episode.model(batch, bodies)
        self.terrain = episode.terrain
        self.ctx = episode.context(self.model)
        self.task = self._create(episode.task)
        self.sensors = [self._create(p) for p in episode.sensors]
        reads, k = [], 0
        for plugin, sensor in zip(episode.sensors, self.sensors):
            n = self._call(plugin, "size", sensor.size, self.ctx)
            if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
                raise PluginError(f"{plugin.ref.describe()}: size() must be a whole number >= 0, not {n!r}")
            reads.append((plugin, sensor, slice(k, k + int(n))))
            k += int(n)
        self.inputs = np.zeros((batch, k))
        self._reads = [(p, s, self.inputs[:, sl], sl) for p, s, sl in reads]
        self.clock = Clock(batch)
        self.failed = np.zeros(batch, dtype=np.bool_)
        self.nonfinite = np.zeros(batch, dtype=np.bool_)
        self.ended = np.zeros(batch, dtype=np.bool_)
        self.final = np.zeros(batch)
        self.rigid = rigid_bones(self.model)
        self._frame = frame_of(self.model, self.rigid)   # what the failure rules measure
        channel, sign, names = episode.body.command_map()
        self.n_outputs = self.model.n_muscles if episode.graph else len(names)
        # the brains' outputs to the muscles' commands, when muscles share them (groups): into
        # one buffer, not an array a step
        self._expand = (channel, sign, np.zeros((batch, channel.size))) if episode.body.grouped else None
        self._measures = np.zeros((batch, len(MEASURES)))
        self._task_ends = _overrides(self.task, Task, "ended")
        self._task_fails = _overrides(self.task, Task, "failed")
        self._kernel = None   # (what _run_steps takes: made on first use, False if it cannot)
        self.warnings: list[str] = []
        offset = (physics.standing_offsets(self.model, self.terrain) if episode.genes or episode.varied
                  else physics.standing_offset(self.model, self.terrain))
        self.start_state = self._design_start = physics.initial_state(self.model, episode.sim, offset=offset)
        if starts is not None:
            self.move_starts(starts)
        self.reset()

    def move_starts(self, starts, which=None) -> None:
        """Start creatures ``which`` (bool (B,); None: all) from the design's start moved by
        ``starts`` ((B, P, 2), or one (P, 2) for all; :mod:`evolution.trials`) from their next
        :meth:`restart` (or :meth:`reset`) on."""
        base = self._design_start
        offsets = np.broadcast_to(np.asarray(starts, dtype=np.float64), base.pos.shape)
        if which is None and not np.any(offsets):   # (the design's start itself, to the bit)
            self.start_state = base
            return
        pos = self.start_state.pos.copy()
        which = slice(None) if which is None else np.asarray(which, dtype=np.bool_)
        pos[which] = base.pos[which] + offsets[which]
        s = self.start_state
        self.start_state = physics.State(np.ascontiguousarray(pos), s.vel, s.muscle_len, s.contact, s.time)

    def input_slices(self) -> list[tuple]:
        """``(plugin, slice)`` per sensor, in input order: which of the brain's inputs each fills."""
        return [(plugin, sl) for plugin, _, _, sl in self._reads]

    # --- calling plug-ins -----------------------------------------------------------------
    def input_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """``(low, high)``, shape (S,) each: the range each brain input stays within, as its
        sensor's :meth:`~evolution.Sensor.bounds` says (-inf, inf where it says nothing). A plug-in
        that answers anything but two numbers or arrays with low <= high is a PluginError."""
        low, high = np.full(self.inputs.shape[1], -np.inf), np.full(self.inputs.shape[1], np.inf)
        for plugin, sensor, _, sl in self._reads:
            answer = self._call(plugin, "bounds", sensor.bounds, self.ctx)
            try:
                lo, hi = (np.broadcast_to(np.asarray(v, dtype=np.float64), (sl.stop - sl.start,))
                          for v in answer)
            except (TypeError, ValueError):
                raise PluginError(f"{plugin.ref.describe()}: bounds() must return (low, high), two "
                                  f"numbers or two arrays of size(), not {answer!r:.80}") from None
            if np.isnan(lo).any() or np.isnan(hi).any() or (lo > hi).any():
                raise PluginError(f"{plugin.ref.describe()}: bounds() must have low <= high")
            low[sl], high[sl] = lo, hi
        return low, high

    def _create(self, plugin: Plugin):
        obj = plugin.create()
        obj.ctx = self.ctx
        self._call(plugin, "setup", obj.setup, self.ctx)
        return obj

    @staticmethod
    def _call(plugin: Plugin, method: str, fn, *args):
        try:
            return fn(*args)
        except PluginError:
            raise
        except Exception as exc:
            raise plugin_failure(plugin.ref, f"{method}()", exc) from None

    def _warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)

    def _flags(self, method: str, value) -> np.ndarray | None:
        """A task's ended()/failed() answer as (B,) booleans, or None (a warning for a bad one)."""
        if value is None:
            return None
        flags = np.asarray(value)
        if flags.shape != (self.model.batch,):
            self._warn(f"{self.episode.task.ref.describe()}: {method}() returned shape {flags.shape}, "
                       f"not ({self.model.batch},): ignored")
            return None
        return flags.astype(np.bool_)

    # --- the loop ---------------------------------------------------------------------------
    def reset(self) -> None:
        """Back to the start (the same start every time), every creature."""
        self.t = 0
        self.brains.reset()
        self.outputs = np.zeros((self.model.batch, self.n_outputs))
        self.restart(np.ones(self.model.batch, dtype=np.bool_))

    def restart(self, which: np.ndarray) -> None:
        """Creatures ``which`` (bool, shape (B,)) back to their start; the others go on. The
        brains are not reset (``reset()`` resets them all)."""
        if which.all():
            self.state = self.start_state
        else:
            s, s0 = self.state, self.start_state
            pos, vel, length, contact = s.pos.copy(), s.vel.copy(), s.muscle_len.copy(), s.contact.copy()
            pos[which], vel[which] = s0.pos[which], s0.vel[which]
            length[which], contact[which] = s0.muscle_len[which], s0.contact[which]
            self.state = physics.State(pos, vel, length, contact, s.time)
        self.clock.restart(which)
        self.failed[which] = self.refused[which]  # a refused body has failed from the start
        self.nonfinite[which] = False
        self.ended[which] = self.refused[which]
        self._all_ended = bool(self.ended.all())
        self.final[which] = 0.0
        self.outputs = np.where(which[:, None], 0.0, self.outputs)  # never into the brains' buffer
        self.inputs[which] = 0.0
        self._call(self.episode.task, "reset", self.task.reset, self.state, which)
        for plugin, sensor, _, _ in self._reads:
            self._call(plugin, "reset", sensor.reset, self.state, which)

    @property
    def done(self) -> bool:
        return self.t >= self.episode.steps or self._all_ended

    def read_sensors(self) -> np.ndarray:
        """The brains' inputs now, shape (B, S) (into :attr:`inputs`)."""
        for plugin, sensor, view, sl in self._reads:
            try:
                got = sensor.read(self.state, self.clock, view)
            except Exception as exc:
                raise plugin_failure(plugin.ref, "read()", exc) from None
            if got is not None and got is not view:
                got = np.asarray(got, dtype=np.float64)
                if got.shape != view.shape:
                    raise PluginError(f"{plugin.ref.describe()}: read() returned shape {got.shape}, "
                                      f"not {view.shape}")
                self.inputs[:, sl] = got
        return self.inputs

    def step(self) -> None:
        """One step: the sensors are read, the brains answer, :meth:`advance`."""
        self.read_sensors()
        self.advance(self.brains.activate(self.inputs))

    def run_until(self, t_end: int) -> None:
        """:meth:`step` until ``t_end`` steps are taken or the episode is done: in one kernel call
        where every part of the episode has a kernel (:meth:`_kernel_args`), the same bits."""
        t_end = min(t_end, self.episode.steps)
        if self.done or self.t >= t_end:
            return
        args = self._kernel_args()
        if args is None:
            while not self.done and self.t < t_end:
                self.step()
            return
        physics_plan, reads, brains, wiring, follow, net = args
        state = self.state
        pos, vel, length, contact = (np.array(a) for a in (state.pos, state.vel, state.muscle_len, state.contact))
        m, clock, sim = self.model, self.clock, self.episode.sim
        rules = (m.mass, self._frame, (self.terrain.table, self.terrain.blocks), sim.ground, sim.dt,
                 (clock.step, clock.time), (self.ended, self.failed, self.nonfinite), self._measures)
        taken, net.active = _run_steps(t_end - self.t, (pos, vel, length, contact), physics_plan, reads,
                                       brains + (net.active,), wiring, rules, follow)
        time = state.time
        for _ in range(taken):
            time += sim.dt   # (as each step's State adds it)
        self.state = physics.State(pos, vel, length, contact, time)
        self.outputs = wiring[4].copy()   # (the commands: the networks' outputs themselves where not wired)
        self.t += taken
        self._all_ended = bool(self.ended.all())

    def run_to_end(self, report=None, every: int = 30) -> None:
        """Through to the episode's end (:meth:`run_until`), calling ``report(creature_steps)``
        after every ``every`` steps if given."""
        while not self.done:
            self.run_until(self.t + every if report is not None else self.episode.steps)
            if report is not None and self.t % every == 0:
                report(every * self.model.batch)

    def _kernel_args(self):
        """What :func:`_run_steps` takes for this episode, made once; None if some part of it has
        no kernel there (a plug-in or a built-in subclassed, a task that ends or fails creatures
        itself, muscles sharing commands, brains other than one batch of networks on one thread,
        a solver other than PBD's)."""
        if self._kernel is None:
            self._kernel = self._make_kernel_args() or False
        return self._kernel or None

    def _make_kernel_args(self):
        brains, wired = self.brains, isinstance(self.brains, WiredBrains)
        net = brains.brains if wired else brains
        if self.parallel is not False or self._expand is not None or type(net) is not NetworkBatch or net.parallel \
                or (wired and type(brains) is not WiredBrains) or self._task_ends or self._task_fails:
            return None
        reads = builtin_reads(self.sensors, [sl for _, _, _, sl in self._reads], self.ctx)
        follow = builtin_follow(self.task)
        plan = physics.kernel_plan(self.model, self.episode.sim, self.terrain)
        if reads is None or follow is None or plan is None:
            return None
        n = net.networks
        B = self.model.batch
        outputs = np.empty((B, n.num_outputs))
        network = (net.values, n.kind == "recurrent", n.eval_count, n.bias, n.response, n.activation,
                   n.aggregation, n.link_start, n.link_source, n.link_weight, n.output_slot, net._scratch, outputs)
        if wired:
            wiring = (True, brains._in, brains._inputs, brains._out, np.empty(brains._out.shape))
        else:
            wiring = (False, np.zeros((B, 0), np.int64), self.inputs, np.zeros((B, 0), np.int64), outputs)
        return plan, reads + (self.inputs,), network, wiring, follow, net

    def advance(self, commands: np.ndarray) -> None:
        """One physics step with the muscles driven by ``commands`` (B, C): one per brain output,
        which is one per muscle unless muscles share a group (each muscle then takes its group's
        command, negated if it is inverted); then :meth:`observe`. (The Gymnasium environment
        drives it so with its actions, reading the sensors after each step for the observation:
        each state is read once, as in :meth:`step`.)"""
        self.outputs = commands
        if self._expand is not None:
            channel, sign, muscles = self._expand
            np.take(np.asarray(commands, dtype=np.float64), channel, axis=1, out=muscles)
            commands = np.multiply(muscles, sign, out=muscles)
        self.observe(physics.step(self.model, self.state, commands, self.episode.sim, self.terrain,
                                  parallel=self.parallel))

    def observe(self, state: physics.State) -> None:
        """Take ``state`` as the batch's state after one more step: the clock advances, the
        failure rules and the task look at it (:meth:`step` calls it after the physics)."""
        self.state = state
        m, clock = self.model, self.clock
        sim, ground = self.episode.sim, self.terrain
        changed = _after_step(state.pos, m.mass, self._frame, (ground.table, ground.blocks), sim.ground, sim.dt,
                              (clock.step, clock.time), (self.ended, self.failed, self.nonfinite), self._measures)
        try:
            self.task.update(state, clock)
        except Exception as exc:
            raise plugin_failure(self.episode.task.ref, "update()", exc) from None
        if self._task_fails:
            fails = self._flags("failed", self._call(self.episode.task, "failed", self.task.failed))
            if fails is not None:
                new = fails & ~self.ended
                if new.any():
                    self.failed |= new
                    self.ended |= new
                    changed = True
        if self._task_ends:
            ends = self._flags("ended", self._call(self.episode.task, "ended", self.task.ended))
            if ends is not None:
                new = ends & ~self.ended
                if new.any():
                    self.final[new] = self._task_fitness()[new]
                    self.ended |= new
                    changed = True
        if changed:
            self._all_ended = bool(self.ended.all())
        self.t += 1

    def _task_fitness(self) -> np.ndarray:
        """The task's fitness, checked: a creature with a non-finite fitness (all of them, for
        the wrong shape) fails."""
        f = self._call(self.episode.task, "fitness", self.task.fitness)
        B = self.model.batch
        where = self.episode.task.ref.describe()
        try:
            f = np.asarray(f, dtype=np.float64)
        except (TypeError, ValueError):
            f = None
        if f is None or f.shape != (B,):
            got = "no numbers" if f is None else f"shape {f.shape}, not ({B},)"
            self._warn(f"{where}: fitness() returned {got}: the creatures are counted as failed")
            f = np.full(B, np.nan)
        elif not np.isfinite(f[~self.failed]).all():
            self._warn(f"{where}: fitness() returned a non-finite value: those creatures are counted "
                       f"as failed")
        bad = ~np.isfinite(f)
        if bad.any():
            self.failed |= bad
            self.ended |= bad
            self._all_ended = bool(self.ended.all())
        return f

    def fitness(self) -> np.ndarray:
        """Fitness so far, shape (B,); at the end, the episode's fitness."""
        f = self._task_fitness()
        f = np.where(self.ended, self.final, f)
        return np.where(self.failed, WORST_FITNESS, f)

    def centre_of_mass(self) -> np.ndarray:
        """Every creature's centre of mass now, shape (B, 2)."""
        return physics.centre_of_mass(self.model, self.state)


@njit(cache=True, error_model="numpy")
def _after_step(pos, mass, frame, terrain, ground, dt, clock, flags, measures):
    """After a physics step: every creature's clock (``clock``: steps, time) advances, and the
    episode's failure rules judge the creatures still going (``flags``: ended, failed,
    non-finite; a creature that fails has ended; ``frame``: physics.integrity.frame_of's). True
    if any failed."""
    step, time = clock
    ended, failed, nonfinite = flags
    measure(pos, frame, terrain, ground, ended, measures)
    changed = False
    for b in range(pos.shape[0]):
        step[b] += 1
        time[b] += dt
        if ended[b]:
            continue
        cx, cy = creature_com(mass, pos, b)
        if not (np.isfinite(cx) and np.isfinite(cy)):
            failed[b] = True
            nonfinite[b] = True
        elif not within_limits(measures[b]):
            failed[b] = True
        if failed[b]:
            ended[b] = True
            changed = True
    return changed


@njit(cache=True, error_model="numpy")
def _run_steps(n, state, physics_plan, reads, brains, wiring, rules, follow):
    """Up to ``n`` steps of an episode, each as :meth:`EpisodeRun.step` takes it, stage by stage
    the kernel it calls: the built-in sensors read (``reads``: :func:`evolution.sensors.builtin_reads`
    and the inputs), the networks stepped (``brains``: a batch's arrays, whether recurrent, its
    outputs and the buffer it reads), wired to the bodies (``wiring``: whether, the indices in and
    out, the brains' inputs, the commands), the physics stepped (``physics_plan``:
    ``physics.kernel_plan``'s), the episode's rules and the task (``follow``:
    :func:`evolution.tasks.builtin_follow`'s). The ``state`` arrays advance in place; stops early when every creature has ended.
    Returns the steps taken and the buffer the networks read next."""
    pos, vel, length, contact = state
    buffers, plan = physics_plan
    codes, starts, ends, what, inputs = reads
    values, recurrent, eval_count, bias, response, activation, aggregation, link_start, link_source, \
        link_weight, output_slot, scratch, outputs, read = brains
    wired, index_in, brain_inputs, index_out, commands = wiring
    mass, frame, terrain, ground, dt, clock, flags, measures = rules
    B = pos.shape[0]
    taken = 0
    for _ in range(n):
        read_builtins(codes, starts, ends, what, pos, vel, contact, clock[1], inputs)
        write = 1 - read if recurrent else read
        if wired:
            _wire_in(inputs, index_in, brain_inputs)
        step_range(0, B, brain_inputs, values, read, write, eval_count, bias, response, activation, aggregation,
                   link_start, link_source, link_weight, output_slot, scratch, outputs)
        read = write
        if wired:
            _wire_out(outputs, index_out, commands)
        step_in_kernel(pos, vel, length, contact, commands, buffers, plan)
        changed = _after_step(pos, mass, frame, terrain, ground, dt, clock, flags, measures)
        follow_builtin(follow[0], follow[1], pos, contact, mass, clock[0])
        taken += 1
        if changed and flags[0].all():
            break
    return taken, read


def run_episode(episode: Episode, brains, batch: int, on_step=None, parallel: bool = False, bodies=None,
                starts=None, report=None, every: int = 30):
    """Run ``batch`` creatures driven by ``brains`` through the whole episode (with the bodies
    ``bodies``, see :meth:`Episode.model`; from starts moved by ``starts``, (B, P, 2), see
    :mod:`evolution.trials`).

    Returns ``(fitness (B,), run)`` (the :class:`EpisodeRun`, for its failure flags and
    warnings). ``on_step(t, state, inputs, outputs)`` is called after every step if given;
    ``report(creature_steps)`` after every ``every`` steps (:meth:`EpisodeRun.run_until` takes
    the steps between)."""
    run = EpisodeRun(episode, brains, batch, parallel, bodies, starts)
    if on_step is not None:
        while not run.done:
            run.step()
            on_step(run.t - 1, run.state, run.inputs, run.outputs)
    else:
        run.run_to_end(report, every)
    return run.fitness(), run


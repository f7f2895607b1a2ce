"""Gymnasium environments: an agent drives a creature's muscles; ``import creatures.envs``
registers ``creatures/Creature-v0``::

    import gymnasium
    import creatures.envs                          # registers creatures/Creature-v0
    env = gymnasium.make("creatures/Creature-v0", design="walker", task="run")
    obs, info = env.reset(seed=0)                  # obs (S,) float32: the sensors
    for _ in range(1200):
        action = env.action_space.sample()         # (C,) float32 muscle commands in [-1, 1]
        obs, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:                # info["fitness"]: the episode's fitness
            obs, info = env.reset()
    envs = gymnasium.make_vec("creatures/Creature-v0", 64, vectorization_mode="vector_entry_point")

``design`` is a built-in name or a design file; ``task``, ``terrain`` and ``sensors`` are plug-in
names as everywhere (``run``, ``path/to/task.py:Class``, ``course.yaml``...). One step is one
physics step of ``dt`` (1/60 s), through :class:`evolution.EpisodeRun`, the loop evolution
scores with: the observation is what the sensors read (the brains' inputs), the reward the
task's fitness increment, so an episode's rewards add up to its fitness. ``terminated``: the
creature failed (past physics.integrity, non-finite; its fitness drops to -1000) or the task ended
it; ``truncated``: ``seconds`` ran out. The dynamics have no randomness; each reset moves the
creature's start by ``noise`` metres (Gaussian per sphere, as evolution's trials do; see
:mod:`evolution.trials`), drawn from ``np_random``, so a policy learns to walk, not to replay one
lucky start: ``reset(seed=s)`` repeats an episode, ``noise=0`` starts every episode from the
design's start to the bit.

:class:`CreatureVectorEnv` steps a whole batch in one physics call (Gymnasium's ``VectorEnv``,
next-step autoreset), creature for creature bit-identical to :class:`CreatureEnv`.
``render_mode="rgb_array"`` draws with the viewer's own drawing, offscreen (``render.Snapshot``).

Importing this module or making an environment changes nothing in the process: a program that
steps them calls ``evolution.prepare_process()`` once, first (``OMP_WAIT_POLICY`` for big vector
environments on a busy machine, numba's caches in step with edited sources; see ``physics``).
"""

from __future__ import annotations

import math
import os

try:
    import gymnasium
    from gymnasium import spaces
    from gymnasium.vector import AutoresetMode, VectorEnv
    from gymnasium.vector.utils import batch_space
except ImportError:
    raise ImportError("creatures.envs needs gymnasium: pip install 'creatures[gym]'") from None

import numpy as np

import physics
from evolution import PluginError
from evolution.rollout import Episode, EpisodeRun
from evolution.run import RunSettings
from evolution.trials import MAX_NOISE, start_offsets
from evolution.yamlread import YamlError
from render.scene import Frame

from .design import resolve_design
from .sources import creature_frame, creature_shape, terrain_scene

__all__ = ["ENV_ID", "CreatureEnv", "CreatureVectorEnv", "MAX_GHOSTS"]

#: the registered id
ENV_ID = "creatures/Creature-v0"
#: the vector environment draws at most this many of its creatures (the first ones)
MAX_GHOSTS = 16

_DT = physics.SimParams().dt
#: the run's defaults (``RunSettings``' own): an environment's task and seconds are evolution's
_RUN = RunSettings.defaults()


# --- building an episode ------------------------------------------------------------------------

class _Agent:
    """The ``brains`` an :class:`EpisodeRun` wants; the agent's actions drive the muscles."""

    def reset(self) -> None:
        pass

    def activate(self, inputs):
        raise RuntimeError("the environment's creatures are driven by actions, not brains")


def _one_line(exc: Exception) -> str:
    lines = [s for s in str(exc).splitlines() if s.strip()] or [type(exc).__name__]
    return lines[0] + (f" (and {len(lines) - 1} more problems)" if len(lines) > 1 else "")


def _noise(noise) -> float:
    """``noise`` checked: metres from 0 to :data:`~evolution.trials.MAX_NOISE` (a one-line ValueError)."""
    if isinstance(noise, bool) or not isinstance(noise, (int, float, np.integer, np.floating)) \
            or not 0 <= noise <= MAX_NOISE:
        raise ValueError(f"noise must be a number of metres from 0 to {MAX_NOISE:g}, not {noise!r}")
    return float(noise)


def _draw_starts(run: EpisodeRun, rng, noise: float, which=None) -> None:
    """Move the starts of creatures ``which`` (all: None) by ``noise`` from the design's, each
    from a seed drawn from ``rng`` (the environment's ``np_random``), in creature order."""
    if noise == 0.0:
        return
    B, P = run.model.batch, run.model.n_spheres
    chosen = np.ones(B, np.bool_) if which is None else np.asarray(which, np.bool_)
    seeds = [int(rng.integers(2**63)) for _ in range(int(chosen.sum()))]
    offsets = np.zeros((B, P, 2))
    offsets[chosen] = start_offsets(seeds, noise, P)
    run.move_starts(offsets, chosen)


def _build(design, task, terrain, sensors, seconds, terrain_seed, batch: int, parallel=False):
    """``(Design, EpisodeRun of batch creatures)``; raises a one-line ValueError."""
    if not isinstance(design, (str, os.PathLike)):
        raise ValueError(f"design must be a built-in design name or a design file, not {design!r}")
    if (isinstance(seconds, bool) or not isinstance(seconds, (int, float, np.integer, np.floating))
            or not math.isfinite(seconds) or seconds <= 0):
        raise ValueError(f"seconds must be a positive number, not {seconds!r}")
    if isinstance(terrain_seed, bool) or not isinstance(terrain_seed, (int, np.integer)):
        raise ValueError(f"terrain_seed must be a whole number, not {terrain_seed!r}")
    try:
        found = resolve_design(os.fspath(design))
    except YamlError as exc:
        raise ValueError(_one_line(exc)) from None
    except OSError as exc:
        raise ValueError(f"{design}: {exc.strerror or exc}") from None
    if not found.muscle_ids:
        raise ValueError(f"the design '{found.name}' has no muscles: there is nothing for an agent "
                         f"to drive")
    names = {"sphere": found.sphere_ids, "muscle": found.muscle_ids, "joint": found.joint_ids}
    try:
        episode = Episode.make(found.body, task, terrain, sensors, seed=int(terrain_seed),
                               seconds=float(seconds), part_names=names)
        run = EpisodeRun(episode, _Agent(), batch, parallel=parallel)
    except (PluginError, YamlError) as exc:
        raise ValueError(_one_line(exc)) from None
    return found, run


def _spaces(run: EpisodeRun):
    M = run.n_outputs      # one command per muscle group and per muscle of no group
    low, high = run.input_bounds()   # bounded where a sensor is (clock, joints, contacts...)
    obs = spaces.Box(low.astype(np.float32), high.astype(np.float32), dtype=np.float32)
    act = spaces.Box(-1.0, 1.0, (M,), np.float32)
    return obs, act


def _check_render(render_mode, size):
    if render_mode not in (None, "rgb_array"):
        raise ValueError(f"render_mode must be None or 'rgb_array', not {render_mode!r}")
    try:
        w, h = size
        ok = all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) and 16 <= v <= 4096
                 for v in (w, h))
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise ValueError(f"size must be (width, height) in pixels from 16 to 4096, not {size!r}")
    return int(w), int(h)


class _EnvSource:
    """A ``render.scene.Source`` over an environment's run: the environment steps it, a
    ``render.Snapshot`` only draws its frame (the first ``shown`` creatures, as ghosts when
    there are several)."""

    def __init__(self, run: EpisodeRun, design_name: str, shown: int, looks=None):
        self.run, self.shown = run, shown
        ep = run.episode
        task = ep.task.ref.short
        info = {"design": design_name, "task": task, "terrain": run.terrain.kind}
        labels = [design_name] if shown == 1 else [f"env {b}" for b in range(shown)]
        shapes = [creature_shape(run.model, label, info, b, looks if shown == 1 else None)
                  for b, label in enumerate(labels)]
        self.scene = terrain_scene(run.terrain, shapes, ep.sim.dt, ep.seconds,
                                    f"{design_name} - {task} on {run.terrain.kind}",
                                    run.task.measures, ep.sim)
        self.message = None

    def frame(self) -> Frame:
        run, n = self.run, self.shown
        fitness = run.fitness()
        creatures = [creature_frame(run.model, run.state, b, fitness=float(fitness[b]),
                                    failed=bool(run.failed[b])) for b in range(n)]
        x = run.centre_of_mass()[:n, 0]
        x = np.where(np.isfinite(x), x, -np.inf)
        over = run.ended[:n] | (run.clock.step[:n] >= run.episode.steps)
        return Frame(time=float(run.clock.time[0]), step=int(run.clock.step[0]),
                     creatures=creatures, leader=int(np.argmax(x)), done=bool(over.all()))

    def reset(self) -> None:   # the environment resets the run
        pass

    def step(self) -> None:    # the environment steps the run
        pass

    def brain(self, creature):
        return None

    def brain_values(self, creature):
        return {}

    def poll(self) -> bool:
        return False


def _snapshot(run, design_name, shown, size, looks=None):
    from render import Snapshot  # arcade loads here, headless when there is no display

    return Snapshot(_EnvSource(run, design_name, shown, looks), size=size)


# --- one creature ---------------------------------------------------------------------------------

class CreatureEnv(gymnasium.Env):
    """One creature of ``design`` on ``task``, its muscles driven by the actions.

    Parameters
    ----------
    design : str or path
        A built-in design name (``walker``) or a design file.
    task, terrain, sensors
        Plug-in names (:mod:`evolution.plugins`): ``task`` by default a run's (``run``),
        ``terrain`` None is the task's default, ``sensors`` None the default sensors (a list of
        names, or a ``--sensors`` string).
    seconds : float
        The episode's length (by default a run's, 20); it is truncated after
        ``round(seconds / dt)`` steps.
    noise : float
        How far each reset moves every sphere's start (m; by default a run's trials', 0.01).
    terrain_seed : int
        The seed a generated terrain is made with (``hills``...).
    render_mode : None or "rgb_array"
    size : (int, int)
        ``render()``'s picture, in pixels.

    Spaces: observation ``Box(low, high, (S,), float32)``, the sensors after the last step
    (after a reset, at the start), each input within its sensor's bounds (``clock``, ``joints``
    and ``tilt`` in [-1, 1], ``contacts`` and ``rays`` in [0, 1], ``velocity`` in [-5, 5];
    ``muscles`` and ``height`` unbounded); action ``Box(-1, 1, (C,), float32)``, one command per muscle,
    or per muscle group where the design groups muscles (cast to float64 for the physics). Reward: the fitness now minus the fitness before the step
    (before the first step: 0), so an episode's rewards add up to its fitness (to round-off).
    ``info``: ``{"fitness": float, "failed": bool}``. Bad names raise a one-line ValueError.

    Attributes
    ----------
    run : evolution.EpisodeRun
        The episode being run (batch 1): ``run.state``, ``run.episode.steps``...
    design : creatures.design.Design
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 1.0 / _DT}

    def __init__(self, design="walker", task=_RUN["task"], terrain=None, sensors=None, seconds=_RUN["seconds"],
                 terrain_seed=0, render_mode=None, size=(640, 360), noise=_RUN["noise"]):
        self.size = _check_render(render_mode, size)
        self.noise = _noise(noise)
        self.render_mode = render_mode
        self.design, self.run = _build(design, task, terrain, sensors, seconds, terrain_seed, 1)
        self.metadata = {**type(self).metadata, "render_fps": 1.0 / self.run.episode.sim.dt}
        self.observation_space, self.action_space = _spaces(self.run)
        self._commands = np.zeros((1, self.run.n_outputs))
        self._fitness = 0.0
        self._snapshot = None

    def _info(self, fitness: float) -> dict:
        return {"fitness": fitness, "failed": bool(self.run.failed[0])}

    def _observe(self) -> np.ndarray:
        obs = self.run.read_sensors()[0].astype(np.float32)
        if np.isnan(obs).any():        # a failed creature's state: the observation stays usable
            obs[np.isnan(obs)] = 0.0
        return obs

    def reset(self, *, seed=None, options=None):
        """Back to a start; returns ``(obs (S,), info)``. Each episode starts from the design's
        start with every sphere moved by ``noise`` (m), as evolution's trials do
        (:mod:`evolution.trials`), drawn from ``np_random``: ``seed`` seeds it, so
        ``reset(seed=s)`` starts the same episode every time. With ``noise=0`` every reset starts
        the design's exact start. The dynamics are deterministic."""
        super().reset(seed=seed)
        _draw_starts(self.run, self.np_random, self.noise)
        self.run.reset()
        self._fitness = 0.0
        return self._observe(), self._info(float(self.run.fitness()[0]))

    def step(self, action):
        """``action`` (C,) in [-1, 1] -> ``(obs (S,), reward, terminated, truncated, info)``."""
        a = np.asarray(action)
        shape = self._commands.shape[1:]
        if a.shape != shape:
            raise ValueError(f"the action must have shape {shape}, not {a.shape}")
        self._commands[0] = a
        run = self.run
        run.advance(self._commands)
        fitness = float(run.fitness()[0])
        reward, self._fitness = fitness - self._fitness, fitness
        terminated = bool(run.ended[0])
        truncated = not terminated and bool(run.clock.step[0] >= run.episode.steps)
        return self._observe(), reward, terminated, truncated, self._info(fitness)

    def render(self):
        """``rgb_array``: the creature now, (H, W, 3) uint8, drawn as the viewer draws it."""
        if self.render_mode != "rgb_array":
            return None
        if self._snapshot is None:
            self._snapshot = _snapshot(self.run, self.design.name, 1, self.size, self.design.looks)
        return self._snapshot.take()

    def close(self):
        if self._snapshot is not None:
            self._snapshot.close()
            self._snapshot = None
        super().close()


# --- a batch of creatures -------------------------------------------------------------------------

class CreatureVectorEnv(VectorEnv):
    """``num_envs`` creatures stepped together, one physics call per step: what ``num_envs``
    :class:`CreatureEnv` s would give, creature for creature, bit for bit.

    Takes :class:`CreatureEnv`'s parameters, and ``copy`` (return copies of the observations,
    rewards and flags; False hands out the environment's own buffers, overwritten by the next
    step). Arrays: observations (N, S) float32, actions (N, C) in [-1, 1], rewards (N,)
    float64, terminations and truncations (N,) bool; ``info`` holds ``fitness`` (N,) and
    ``failed`` (N,) (with Gymnasium's ``_fitness``/``_failed`` masks, all True).

    Next-step autoreset (``AutoresetMode.NEXT_STEP``): a creature whose episode ended at one step
    is restarted at the next, whose action for it is ignored; that step returns its first
    observation, reward 0, not terminated nor truncated. ``reset(options={"reset_mask": m})``
    restarts creatures ``m`` (bool (N,)) only. ``render()`` draws the first :data:`MAX_GHOSTS`
    creatures as ghosts on one terrain, one picture.
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 1.0 / _DT,
                "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, num_envs=1, design="walker", task=_RUN["task"], terrain=None, sensors=None,
                 seconds=_RUN["seconds"], terrain_seed=0, render_mode=None, size=(640, 360), copy=True,
                 noise=_RUN["noise"]):
        whole = isinstance(num_envs, (int, np.integer)) and not isinstance(num_envs, bool)
        if not whole or num_envs < 1:
            raise ValueError(f"num_envs must be a whole number >= 1, not {num_envs!r}")
        self.size = _check_render(render_mode, size)
        self.noise = _noise(noise)
        self.render_mode = render_mode
        self.num_envs = N = int(num_envs)
        self.copy = bool(copy)
        self.design, self.run = _build(design, task, terrain, sensors, seconds, terrain_seed, N, parallel=None)
        self.metadata = {**type(self).metadata, "render_fps": 1.0 / self.run.episode.sim.dt}
        self.single_observation_space, self.single_action_space = _spaces(self.run)
        self.observation_space = batch_space(self.single_observation_space, N)
        self.action_space = batch_space(self.single_action_space, N)
        S, M = self.single_observation_space.shape[0], self.single_action_space.shape[0]
        # the hot path's buffers
        self._commands = np.zeros((N, M))
        self._obs = np.zeros((N, S), np.float32)
        self._nan = np.zeros((N, S), np.bool_)
        self._fitness = np.zeros(N)           # fitness at the last step, 0 at a creature's start
        self._rewards = np.zeros(N)
        self._terminated = np.zeros(N, np.bool_)
        self._truncated = np.zeros(N, np.bool_)
        self._autoreset = np.zeros(N, np.bool_)     # restart these at the next step
        self._resetting = np.zeros(N, np.bool_)
        self._all = np.ones(N, np.bool_)
        self._snapshot = None

    # ------------------------------------------------------------------------------------------
    def _observe(self) -> np.ndarray:
        np.copyto(self._obs, self.run.read_sensors(), casting="same_kind")
        np.isnan(self._obs, out=self._nan)
        if self._nan.any():
            self._obs[self._nan] = 0.0
        return self._obs.copy() if self.copy else self._obs

    def _info(self, fitness: np.ndarray) -> dict:
        failed = self.run.failed
        return {"fitness": fitness, "_fitness": self._all.copy(),
                "failed": failed.copy(), "_failed": self._all.copy()}

    def reset(self, *, seed=None, options=None):
        """All creatures back to a start (or only ``options["reset_mask"]``, bool (N,)):
        ``(obs (N, S), info)``. Each start is moved by ``noise`` as :meth:`CreatureEnv.reset`
        says, drawn from this environment's ``np_random`` creature by creature (and so for a
        creature's next start when it ends); ``seed`` (an int, or a list whose first item is
        used) seeds it. With ``noise=0`` the creatures are :class:`CreatureEnv` s' exactly."""
        if isinstance(seed, (list, tuple)):
            seed = seed[0] if seed else None
        super().reset(seed=seed)
        mask = (options or {}).get("reset_mask")
        if mask is None:
            _draw_starts(self.run, self.np_random, self.noise)
            self.run.reset()
            which = self._all
        else:
            which = np.asarray(mask)
            if which.dtype != np.bool_ or which.shape != (self.num_envs,):
                raise ValueError(f"options['reset_mask'] must be a bool array of shape "
                                 f"({self.num_envs},)")
            _draw_starts(self.run, self.np_random, self.noise, which)
            self.run.restart(which.copy())
        self._fitness[which] = 0.0
        self._autoreset[which] = False
        return self._observe(), self._info(self.run.fitness())

    def step(self, actions):
        """``actions`` (N, C) -> ``(obs (N, S), rewards (N,), terminated (N,), truncated (N,),
        info)``, every creature in one physics step."""
        run = self.run
        cmd = self._commands
        a = np.asarray(actions)
        if a.shape != cmd.shape:
            raise ValueError(f"the actions must have shape {cmd.shape}, not {a.shape}")
        np.copyto(cmd, a, casting="same_kind")
        # the creatures that ended at the last step start again at this one
        self._autoreset, self._resetting = self._resetting, self._autoreset
        resetting = self._resetting
        restart = bool(resetting.any())
        if restart:
            cmd[resetting] = 0.0
        run.advance(cmd)
        if restart:   # stepped with the others; now back to a start: state, clock, task, sensors
            _draw_starts(run, self.np_random, self.noise, resetting)
            run.restart(resetting)
            self._fitness[resetting] = 0.0
        fitness = run.fitness()
        rewards, term, trunc = self._rewards, self._terminated, self._truncated
        np.subtract(fitness, self._fitness, out=rewards)
        self._fitness[:] = fitness
        np.copyto(term, run.ended)
        np.greater_equal(run.clock.step, run.episode.steps, out=trunc)
        np.greater(trunc, term, out=trunc)      # truncated and not terminated
        if restart:
            rewards[resetting] = 0.0
            term[resetting] = False
            trunc[resetting] = False
        np.logical_or(term, trunc, out=self._autoreset)
        obs = self._observe()
        if self.copy:
            rewards, term, trunc = rewards.copy(), term.copy(), trunc.copy()
        return obs, rewards, term, trunc, self._info(fitness)

    def render(self):
        """``rgb_array``: the first :data:`MAX_GHOSTS` creatures now, as ghosts on one terrain,
        (H, W, 3) uint8, drawn as the viewer draws them."""
        if self.render_mode != "rgb_array":
            return None
        if self._snapshot is None:
            self._snapshot = _snapshot(self.run, self.design.name, min(self.num_envs, MAX_GHOSTS),
                                       self.size)
        return self._snapshot.take()

    def close_extras(self, **kwargs):
        if self._snapshot is not None:
            self._snapshot.close()
            self._snapshot = None


if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="creatures.envs:CreatureEnv",
                       vector_entry_point="creatures.envs:CreatureVectorEnv")

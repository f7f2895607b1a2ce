"""What every benchmark of ``creatures bench`` shares: the engine settings and populations
measured, the sine commands both engines are driven by, a row of results, the machine."""

from __future__ import annotations

import os
import platform
import statistics

import numpy as np

import physics

from ..simulation import SINE_HZ  # every muscle driven by a sine of this frequency, phases spread evenly

#: the benchmark's configuration: the engine's defaults (the report names their step, substeps
#: and iterations)
PARAMS = physics.SimParams()
#: pymunk as its users run it: one step a frame with its default 10 solver iterations
PYMUNK_ITERATIONS = 10
#: pymunk at the rigidity ours holds (the ``pymunk-rigid`` rows): each 1/60 s step taken as this
#: many ``space.step(dt / 6)`` calls, at the same 10 iterations. At its default pymunk stretches the
#: walker's rigid bones 4.57 % at worst, and more iterations alone do not stiffen it (30: 3.54 %,
#: 100: 4.13 %); 10 iterations x 6 substeps hold 0.40 %, tenths of a percent as ours do (issue 46's
#: measurements). Against pymunk at its default we compare with a softer skeleton; this is the
#: like-for-like figure. Every run measures the strains again (engine.strain_rows): there
#: pymunk-rigid is still somewhat looser than ours, so its ratio, if anything, flatters pymunk.
PYMUNK_RIGID_SUBSTEPS = 6
#: the pymunk rows of the physics table: engine -> ``space.step`` calls per 1/60 s step
PYMUNK_SUBSTEPS = {"pymunk": 1, "pymunk-rigid": PYMUNK_RIGID_SUBSTEPS}
POPULATIONS = (1, 150, 1000)
STEPS = 1200
REPEATS = 3
#: untimed steps before the clock starts, for either engine (pymunk allocates in its first steps,
#: our engine its per-model scratch memory)
WARMUP_STEPS = 10
#: pymunk costs ~8-25 us per creature-step on one core: above this many creature-steps per
#: repetition both engines run fewer steps (the same number; never below MIN_STEPS), which keeps
#: pymunk's window at a few seconds
BUDGET = 300_000
MIN_STEPS = 60
#: --quick: one repetition and a smaller budget
QUICK_REPEATS = 1
QUICK_BUDGET = 30_000
#: sanity: with muscles at rest for STAND_SECONDS the walker's centre of mass must stay above this
STAND_SECONDS = 3.0
STAND_MIN_HEIGHT = 0.4
#: pymunk's ground: a static segment this far either side of the origin, at height 0
GROUND_HALF_LENGTH = 1000.0
#: a pymunk worker process that has not reported after this many seconds is given up on
WORKER_TIMEOUT = 1800.0
#: the worst-strain check (engine.strain_rows), besides the table's own sine: the walker kicking
#: hard, as tests/physics/test_integrity.py kicks it on flat ground: this many walkers side by side
#: over [-2, 2] m, dropped from this height (m), every muscle a new random sign (from this seed)
#: every KICK_HOLD steps, for KICK_STEPS steps (5 s). The table's slow sine strains a skeleton
#: little; kicking shows what it holds when a brain drives it hard
KICK_WALKERS = 16
KICK_DROP = 0.3
KICK_HOLD = 2
KICK_STEPS = 300
KICK_SEED = 0



def all_cores() -> int:
    """The machine's core count, the ``cores`` of the all-cores rows."""
    return os.cpu_count() or 1


def window_steps(population: int, steps: int = STEPS, budget: int = BUDGET) -> int:
    """Steps per creature in each measured window, for both engines: ``steps``, fewer at large
    populations so that a window is at most ``budget`` creature-steps, never fewer than MIN_STEPS
    (unless ``steps`` itself is)."""
    return min(steps, max(MIN_STEPS, budget // population))


def sine_period(dt: float = PARAMS.dt, hz: float = SINE_HZ) -> int:
    """Steps per period of the sine commands (60 at 1 Hz and 60 steps per second)."""
    period = round(1.0 / (hz * dt))
    if abs(period * hz * dt - 1.0) > 1e-9:
        raise ValueError(f"the sine of {hz} Hz does not repeat after a whole number of steps of {dt} s")
    return period


def sine_commands(n_muscles: int, population: int, dt: float = PARAMS.dt) -> np.ndarray:
    """One period of the commands, shape (period, B, M), C-contiguous: muscle m of every creature
    gets ``sin(2 pi f t + 2 pi m / M)``; step t uses row ``t % period``."""
    period = sine_period(dt)
    t = np.arange(period)[:, None] * dt
    phase = 2.0 * np.pi * np.arange(n_muscles)[None, :] / max(n_muscles, 1)
    one = np.sin(2.0 * np.pi * SINE_HZ * t + phase)                      # (period, M)
    return np.ascontiguousarray(np.broadcast_to(one[:, None, :], (period, population, n_muscles)))




def kick_commands(muscles: int, population: int = KICK_WALKERS, steps: int = KICK_STEPS, hold: int = KICK_HOLD,
                  seed: int = KICK_SEED) -> np.ndarray:
    """Random sign commands, a new sign for every muscle of every creature every ``hold`` steps:
    shape (steps, population, muscles), C-contiguous (tests/physics/physics_helpers.bang_bang)."""
    signs = np.random.default_rng(seed).choice([-1.0, 1.0], size=(-(-steps // hold), population, muscles))
    return np.ascontiguousarray(np.repeat(signs, hold, axis=0)[:steps])


def kick_offsets(population: int = KICK_WALKERS, drop: float = KICK_DROP) -> np.ndarray:
    """(population, 2): the kicking walkers side by side over [-2, 2] m, ``drop`` m up."""
    return np.stack([np.linspace(-2.0, 2.0, population), np.full(population, drop)], axis=-1)


def ratio_key(engine: str) -> str:
    """The field of our rows holding our ratio against ``engine`` ("vs_pymunk", "vs_pymunk_rigid",
    "vs_baseline", "vs_baseline_rigid")."""
    return "vs_" + engine.replace("-", "_")


def result_row(engine: str, population: int, cores: int, steps: int, warmup: int, times: list[float]) -> dict:
    """A physics row: the median of ``times`` (seconds per window of ``steps`` steps of
    ``population`` creatures) as creature-steps per second, with the engine's settings."""
    seconds = statistics.median(times)
    pymunk = engine in PYMUNK_SUBSTEPS
    return {"work": "physics", "engine": engine, "population": population, "cores": cores,
            "creature_steps_per_s": population * steps / seconds,
            "steps": steps, "warmup_steps": warmup, "repeats": len(times), "statistic": "median",
            "seconds": seconds, "dt": PARAMS.dt,
            "substeps": PYMUNK_SUBSTEPS[engine] if pymunk else PARAMS.substeps,
            "iterations": PYMUNK_ITERATIONS if pymunk else PARAMS.iterations}


def machine() -> dict:
    """Where the benchmark ran."""
    import numba
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            names = [line.split(":", 1)[1].strip() for line in f if line.startswith("model name")]
        cpu = names[0] if names else cpu
    except OSError:
        pass
    try:
        layer = numba.threading_layer()
    except ValueError:
        layer = "not started"
    return {"cpu": cpu, "cpus": os.cpu_count(), "numba_threads": numba.get_num_threads(),
            "threading_layer": layer, "python": platform.python_version(), "numba": numba.__version__,
            **compiled_for()}


def compiled_for() -> dict:
    """What numba's compiler makes the kernels for on this machine: LLVM's name of the processor
    (``NUMBA_CPU_NAME`` if set) and the widest vectors it may use (``vector_bits``: 512 with
    AVX-512, 256 with AVX2, else 128). The creatures of a chunk are its vectors' lanes: a vector
    instruction can step 8 of them with AVX-512 (where LLVM's tuning for the processor uses the
    whole width), 4 with AVX2, while pymunk is scalar. So a ratio against pymunk depends on it,
    and the processor's name alone does not tell ("AMD EPYC" was a Zen 3 without AVX-512 on
    2026-11-30, and a Zen 5 with it the days before)."""
    import llvmlite.binding as llvm
    from numba.core import config
    name = config.CPU_NAME if config.CPU_NAME not in (None, "", "host") else llvm.get_host_cpu_name()
    features = set((config.CPU_FEATURES or llvm.get_host_cpu_features().flatten()).split(","))
    bits = 512 if "+avx512f" in features else 256 if "+avx2" in features else 128
    return {"compiled_for": name, "vector_bits": bits}



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




def result_row(engine: str, population: int, cores: int, steps: int, warmup: int, times: list[float]) -> dict:
    seconds = statistics.median(times)
    return {"work": "physics", "engine": engine, "population": population, "cores": cores,
            "creature_steps_per_s": population * steps / seconds,
            "steps": steps, "warmup_steps": warmup, "repeats": len(times), "statistic": "median",
            "seconds": seconds, "dt": PARAMS.dt,
            "substeps": PARAMS.substeps if engine != "pymunk" else 1,
            "iterations": PARAMS.iterations if engine != "pymunk" else PYMUNK_ITERATIONS}


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
            "threading_layer": layer, "python": platform.python_version(), "numba": numba.__version__}



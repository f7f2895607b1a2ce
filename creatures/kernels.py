"""Whether a run will compile numba's kernels before its first generation (a few minutes: a first
`creatures evolve walker` took 125 s on the Zen 5 machine, 2026-12-01; several more on the Zen 3).

The first run on a machine, or the first after the sources changed, compiles the physics step
and the other kernels that evolution's workers call; later runs load them from numba's on-disk
cache in well under a second. :func:`kernels_to_compile` tells which it will be, before the
workers start, by looking for each kernel's cache index (where numba keeps it: next to the
sources, or under ``NUMBA_CACHE_DIR``) and checking that it is newer than the kernel's source.
``evolution.prepare_process`` (which the ``creatures`` command runs first) has already cleared
the caches that inline sources changed since. Nothing is compiled or unpickled here.
"""

from __future__ import annotations

import os

#: what ``creatures evolve`` says before a generation that compiles first
COMPILING = "compiling the physics kernels (first run only, a few minutes)"


def dispatchers(solver: str = "pbd", contacts: str = "pbd", network: str = "feedforward") -> list:
    """The top-level kernels an evaluation worker calls from Python (numba caches each with
    everything it inlines): the physics step of the run's solver, and with PBD's the episode's
    loop (``evolution.rollout._run_steps``, which steps the networks itself), else the networks;
    the episode's rules. Names that do not exist (any more) are skipped."""
    import importlib
    networks = ("evolution.network", "_step_networks")
    if solver == "witkin":
        step, loop = ("physics.witkin", "_witkin_serial"), networks
    elif contacts == "dem":
        step, loop = ("physics.dem", "_pbd_dem_serial"), networks
    else:
        step, loop = ("physics.step", "_rollout_serial"), ("evolution.rollout", "_run_steps")
    names = [step, loop, ("evolution.rollout", "_after_step")]
    found = []
    for module, name in names:
        try:
            found.append(getattr(importlib.import_module(module), name))
        except (ImportError, AttributeError):
            pass
    return found


def cached(dispatcher) -> bool | None:
    """Whether numba's on-disk cache holds ``dispatcher`` compiled from its current source:
    its index file exists and is newer than the source (numba's own stamp is the source's
    modification time and size). None when it cannot tell (not a caching numba function)."""
    try:
        index = dispatcher._cache._cache_file._index_path
        source = dispatcher.py_func.__code__.co_filename
    except AttributeError:
        return None
    try:
        return os.stat(index).st_mtime >= os.stat(source).st_mtime
    except FileNotFoundError:
        return False
    except OSError:
        return None


#: what each kernel is, as ``creatures evolve`` names it while it compiles
KERNEL_NAMES = {"_rollout_serial": "the physics step", "_witkin_serial": "the physics step (Witkin)",
                "_pbd_dem_serial": "the physics step (DEM contacts)", "_step_networks": "the networks",
                "_run_steps": "the episode's loop",
                "_after_step": "the episode's rules"}


def kernels_missing(sim: dict | None = None, network: str = "feedforward") -> list[str]:
    """What a run with these physics settings (``SimParams.to_dict()``) and network kind will
    compile before its first generation, by name (:data:`KERNEL_NAMES`): the kernels it needs
    that are not in numba's cache. Empty: none."""
    sim = sim or {}
    kernels = dispatchers(sim.get("solver", "pbd"), sim.get("contacts", "pbd"), network)
    return [KERNEL_NAMES.get(k.py_func.__name__, k.py_func.__name__) for k in kernels if cached(k) is False]


def kernels_to_compile(sim: dict | None = None, network: str = "feedforward") -> bool:
    """True when the kernels a run with these physics settings and network kind needs are not
    all in numba's cache: the first generation compiles them (:func:`kernels_missing`)."""
    return bool(kernels_missing(sim, network))

"""Compiles numba's kernels into its on-disk cache before the tests start (tests/conftest.py runs
this, one process per family, before pytest-xdist starts its workers). A fresh clone has no
cache: without this, every test process and every ``creatures`` run a test starts would compile
the same kernels at the same moment, several minutes of CI. A cache that is warm already costs
a second. Not a test module: ``python tests/warm_kernels.py FAMILY``.

The two families share the physics step: the physics family compiles it and the episode's loop
(one copy of each, whatever the run: every run hands them the same types), the solvers family
the other solvers, the networks stepped on their own and the step of a graph's model (a growing
run's bodies: a step of its own) first, then the threaded step once the step it wraps is
cached, and a growing run's episode loop. (On the AMD EPYC machine, 2026-12-01, from an empty
cache: 271 s for both families without the graph's step and loop, 320 and 324 s with them;
without them three processes of the tests compiled them at once, tests of 284 s and 329 s.) From an empty cache both take about 200 s on the AMD Zen 3 machine
(AVX2, 2.45 GHz; 2026-11-30: the step cached after ~130 s, the two families ending 4 s apart;
the step compiles the step for one creature beside it since, about 240 s instead of 130, and
the step for one block of 8 lanes too since: 63 -> 90 s on the Zen 5 machine).
A fresh clone's pytest session, this included, then took 16 min 13 s instead of 16 min 59 s,
its tests 12 min 44 s (13 min 45 s in another run; the families had failed at their first
import, see ``sys.path`` below, and the tests compiled every kernel themselves, both workers at
once)."""

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
# Run as a script, Python puts this folder first on the path, where the tests' own folders
# ``evolution/`` and ``physics/`` (no ``__init__``) would be imported as empty namespace packages
# in place of the project's (an editable install's finder comes after the path): every family
# then failed at its first line, silently, and the tests compiled every kernel themselves, both
# workers at once. The repository first, whose sources the tests import.
sys.path[0] = str(REPO)


def _evolve(*args, design="worm"):
    """A one-generation run, which compiles (or loads) what an evaluation worker calls."""
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([sys.executable, "-m", "creatures", "evolve", design, "--generations", "1",
                        "--population", "6", "--seconds", "0.2", "--workers", "1", "--seed", "0",
                        "--out", str(Path(out) / "run"), *args], cwd=REPO, capture_output=True, check=False)


def physics_family():
    import evolution
    evolution.prepare_process()
    import physics
    model = physics.build_model(physics.examples.walker(), 64)
    params = physics.SimParams()
    state = physics.initial_state(model, params)
    cmds = np.zeros((2, 64, model.n_muscles))
    physics.step(model, state, cmds[0], params, parallel=False)
    physics.rollout(model, state, cmds, params, parallel=False)
    arena = physics.SimParams(arena_collision=True)
    physics.step(model, physics.initial_state(model, arena), cmds[0], arena, parallel=False)
    _evolve()
    _evolve("--network", "recurrent", "--medium", "water")   # (the same loop: loaded, and what is left)


def solvers_family():
    import evolution
    evolution.prepare_process()
    import physics
    model = physics.build_model(physics.examples.walker(), 2)
    for params in (physics.SimParams(solver="witkin"), physics.SimParams(contacts="dem")):
        physics.step(model, physics.initial_state(model, params), None, params)
    _networks()
    # the step of a graph's model (a growing run's bodies), a step of its own
    model = physics.build_model(physics.examples.walker(), 2, graph=True)
    physics.step(model, physics.initial_state(model, physics.SimParams()), None, parallel=False)
    # last, once the physics family has cached the step this one wraps in threads (~50 s more)
    from physics.step import _rollout_serial
    _wait_until_cached(_rollout_serial)
    model = physics.build_model(physics.examples.walker(), 64)
    physics.step(model, physics.initial_state(model, physics.SimParams()), None, parallel=True)
    _evolve("--grow", design="sprout")   # (a growing run's episode loop, around the graph's step)


def _wait_until_cached(dispatcher, seconds: float = 600.0) -> None:
    """Until numba's cache holds ``dispatcher`` (another family is compiling it), for at most
    ``seconds``; then compiling it here would load it instead."""
    from creatures.kernels import cached
    end = time.monotonic() + seconds
    while cached(dispatcher) is False and time.monotonic() < end:
        time.sleep(0.5)


def _networks():
    """The networks of a batch stepped on their own (the other solvers' episodes, the Gymnasium env),
    in one thread and on numba's threads (evolution.network.NetworkBatch)."""
    from evolution.network import benchmark
    for parallel in (False, True):
        benchmark(batch=8, steps=2, mutations=2, parallel=parallel)


def where():
    """Prints the files of the packages the families compile (tests/test_warm_kernels.py)."""
    import evolution
    import physics
    print(evolution.__file__, physics.__file__, sep="\n")


FAMILIES = {"physics": physics_family, "solvers": solvers_family, "where": where}

if __name__ == "__main__":
    FAMILIES[sys.argv[1]]()

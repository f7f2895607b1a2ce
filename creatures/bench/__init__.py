"""Every benchmark of ``creatures bench``, side by side in one run.

The command (:mod:`creatures.cli.bench`) runs the physics table (:mod:`.engine`, against the pymunk baseline
of :mod:`.pymunk_baseline`, both driven as :mod:`.common` says), whole generations
(:mod:`.generation`: against neat-python + pymunk, bodies that evolve, water and air), and on
request the solvers (:mod:`.solvers`), plug-in tasks (:mod:`.tasks`), the Gymnasium environment
(:mod:`.envs`), many body shapes against one (:mod:`.shapes`) and the viewer, the game and the
editor (:mod:`.viewer`).

The physics table measures the engine against pymunk on the reference walker, twice: pymunk at
its default (``pymunk``: one ``space.step`` a 1/60 s step, 10 iterations), and near the rigidity ours
holds (``pymunk-rigid``: the same 10 iterations, each step taken as 6 calls of
``space.step(dt / 6)``; :data:`.common.PYMUNK_RIGID_SUBSTEPS` says why). At its default pymunk
lets the walker's rigid bones stretch several percent, ours a few tenths at most, so only the
second ratio compares like with like; the run measures the worst strain each engine holds on the
same walkers under the same commands (:func:`.engine.strain_rows`) and prints it under the table.

Both engines simulate the same creature (``physics.examples.walker()``: 8 spheres, 14 bones of which
6 are muscles, ground contact, dt 1/60) with the same sine-driven muscle commands, for several
population sizes, and report creature-steps per second. Both do the same work: at each population
the same warm-up (untimed), the same number of steps in the measured window, the same number of
repetitions, and the median of them reported. And on the same cores, twice:

- per core: our engine on 1 numba thread against pymunk in 1 process;
- all cores (``os.cpu_count()``): our engine on that many numba threads against pymunk in that many
  processes, the population split between them, each process stepping its own creatures (wall
  time from a barrier that every process reaches after its warm-up to the end of the last one).

Our engine steps the whole population in one batched ``physics.step`` call per step. pymunk gets
the usual treatment, the way its users evaluate a population: one Space per creature, each creature
stepped through all its steps before the next (which keeps one Space in the cache: at 1000
creatures about twice as fast as stepping every Space once per step, 1.6x at 150), with muscles as
pin joints whose length is set every step. The first ``physics.step`` call of the process is timed on its own: it compiles the
numba kernels, or loads them from the cache next to the sources.

Then a whole generation (``creatures/bench/generation.py``): 150 walker genomes on the run task,
20 simulated seconds each, sensors + networks + physics on 2 cores, through the evaluator of
``creatures evolve``; against the same work done the usual way, pymunk for the body, neat-python's
``activate`` for the brain and its ``ParallelEvaluator`` for the two cores, at pymunk's default
(``baseline``) and at 6 substeps (``baseline-rigid``). Targets: at most 0.5 s per generation, at
least 10x the baseline and 20x baseline-rigid. And end to end: whole generations of a real
``evolution.run.Run`` (breeding, speciation, evaluation, statistics, files) against neat-python's
``Population.run`` over the same baseline evaluation; targets: at most 15 % of a generation's
wall time outside evaluation, and at least 10x the baseline end to end.
"""

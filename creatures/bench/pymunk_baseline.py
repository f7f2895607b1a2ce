"""The pymunk baseline, the usual way: one Space per creature, each creature stepped through all
its steps before the next, muscles as pin joints whose length is set every step; in one process
or one process per core. At pymunk's default (``pymunk``: one ``space.step`` a step) or at the
rigidity ours holds (``pymunk-rigid``: :data:`~.common.PYMUNK_RIGID_SUBSTEPS` of them), and how
far each stretches the walker's rigid bones (:func:`pymunk_strain`)."""

from __future__ import annotations

import math
import multiprocessing as mp
import os
import queue
import time

import numpy as np

import physics

from .common import (GROUND_HALF_LENGTH, PARAMS, PYMUNK_ITERATIONS, PYMUNK_SUBSTEPS, REPEATS, STEPS, WARMUP_STEPS,
                     WORKER_TIMEOUT, result_row, sine_commands)


def load_pymunk():
    """pymunk, or a RuntimeError saying how to get it."""
    try:
        import pymunk
    except ImportError as exc:
        raise RuntimeError("pymunk is not installed, so there is no baseline to compare with "
                           "(pip install 'pymunk==6.9', or run 'creatures bench --no-pymunk')") from exc
    return pymunk


def pymunk_walker(space, body_def: physics.Body) -> dict:
    """Add one creature described by ``body_def`` to a pymunk ``space``; return its parts.

    Each sphere is a body (mass, moment of a circle) with a circle shape (radius, friction, no
    bounce); a pinned sphere is a static body. A rigid bone is a PinJoint between the centres,
    a compliant bone a DampedSpring of stiffness 1 / compliance; a muscle is the same constraint
    with its length set every step (see :func:`drive_pymunk_muscles`) and its force capped at its
    strength. A rigid cluster is a PinJoint between every pair of its spheres. Without
    self-collision the creature's shapes share one ShapeFilter group; with it, only spheres joined
    by a bone are kept from colliding, as in our engine. Joints (angle limits and springs between
    two bones) have no pymunk counterpart and are refused.

    Returns ``{"bodies": [...], "muscles": [constraint per muscle], "attr": [name of the length
    attribute per muscle], "rest": (M,) rest lengths, "range": (M,), "speed": (M,)}``.
    """
    pymunk = load_pymunk()
    if body_def.joints:
        raise NotImplementedError(f"{body_def.name}: joints have no pymunk counterpart in this benchmark")
    group = None if body_def.self_collision else pymunk.ShapeFilter(group=1)
    bodies = []
    for s in body_def.spheres:
        if s.fixed:
            b = pymunk.Body(body_type=pymunk.Body.STATIC)
        else:
            b = pymunk.Body(s.mass, pymunk.moment_for_circle(s.mass, 0.0, s.radius))
        b.position = s.pos
        shape = pymunk.Circle(b, s.radius)
        shape.friction = s.friction
        shape.elasticity = s.restitution
        if group is not None:
            shape.filter = group
        space.add(b, shape)
        bodies.append(b)

    def link(i, j, rest=None, compliance=0.0):
        a, c = bodies[i], bodies[j]
        if rest is None:
            rest = math.dist(body_def.spheres[i].pos, body_def.spheres[j].pos)
        if compliance > 0.0:
            con = pymunk.DampedSpring(a, c, (0, 0), (0, 0), rest, 1.0 / compliance, 0.0)
            attr = "rest_length"
        else:
            con = pymunk.PinJoint(a, c, (0, 0), (0, 0))
            con.distance = rest
            attr = "distance"
        con.collide_bodies = False
        space.add(con)
        return con, attr, rest

    muscles, attrs, rest, rng, speed = [], [], [], [], []
    for bone in body_def.bones:
        con, attr, r = link(bone.a, bone.b, bone.rest, bone.compliance)
        if bone.muscle is not None:
            con.max_force = bone.muscle.strength
            muscles.append(con)
            attrs.append(attr)
            rest.append(r)
            rng.append(bone.muscle.range)
            speed.append(bone.muscle.speed)
    for cluster in body_def.clusters:
        members = cluster.spheres
        for k, i in enumerate(members):
            for j in members[k + 1:]:
                link(i, j)
    return {"bodies": bodies, "muscles": muscles, "attr": attrs, "rest": np.array(rest),
            "range": np.array(rng), "speed": np.array(speed)}


def pymunk_world(body_def: physics.Body):
    """A pymunk Space set up like our engine's world, with one creature in it."""
    pymunk = load_pymunk()
    space = pymunk.Space()
    space.gravity = (0.0, -PARAMS.gravity)
    space.iterations = PYMUNK_ITERATIONS
    # pymunk's default slop (0.1) assumes pixels; in metres it would let a foot sink 10 cm
    space.collision_slop = PARAMS.contact_slop
    ground = pymunk.Segment(space.static_body, (-GROUND_HALF_LENGTH, 0.0), (GROUND_HALF_LENGTH, 0.0), 0.0)
    ground.friction = 1.0  # pymunk multiplies the two frictions: the sphere's own applies
    ground.elasticity = 0.0
    space.add(ground)
    return space, pymunk_walker(space, body_def)


def muscle_targets(cmd: np.ndarray, rest: np.ndarray, rng: np.ndarray) -> np.ndarray:
    """The lengths the commands ask for, ``rest * (1 + cmd * range)`` (commands clipped to [-1, 1],
    NaN read as 0), for a whole command table at once."""
    return rest * (1.0 + np.clip(np.nan_to_num(cmd), -1.0, 1.0) * rng)


def drive_pymunk_muscles(length: np.ndarray, target: np.ndarray, max_step: np.ndarray) -> None:
    """Move muscle lengths (B, M) toward ``target`` by at most ``max_step`` (``speed * rest * dt``),
    in place: the same rate limit as ``physics.bones.drive_muscles``."""
    move = target - length
    np.minimum(move, max_step, out=move)
    np.maximum(move, -max_step, out=move)
    length += move


class PymunkCreatures:
    """``population`` copies of a body, one pymunk Space each, their muscles driven by the sine
    commands (or held at rest) for ``steps`` steps of ``dt``, each taken as ``substeps`` calls of
    ``space.step(dt / substeps)``. :meth:`run` is the benchmark's hot loop.

    Every creature gets the same commands, so the rate-limited muscle lengths of every step are
    computed once, up front, with numpy (command generation is not what is measured, which is
    generous to the baseline); setting them on the pin joints is the part a pymunk user cannot
    avoid, and is timed. The pins are set once a step, not once a substep, as ours takes one
    command a step."""

    def __init__(self, body_def: physics.Body, population: int, steps: int, driven: bool = True,
                 substeps: int = 1):
        if substeps < 1:
            raise ValueError(f"substeps must be 1 or more, not {substeps}")
        self.substeps = substeps
        worlds = [pymunk_world(body_def) for _ in range(population)]
        self.spaces = [space for space, _ in worlds]
        self.parts = [parts for _, parts in worlds]
        self.pins = [parts["muscles"] for parts in self.parts]
        first = self.parts[0]
        if any(attr != "distance" for attr in first["attr"]):
            raise NotImplementedError("the benchmark's pymunk loop drives pin-joint muscles only")
        rest = first["rest"]
        cmd = sine_commands(len(rest), 1)[:, 0] * (1.0 if driven else 0.0)     # (period, M)
        target = muscle_targets(cmd, rest, first["range"])
        max_step = first["speed"] * rest * PARAMS.dt
        length = rest.copy()
        lengths = []
        for t in range(steps):
            drive_pymunk_muscles(length, target[t % target.shape[0]], max_step)
            lengths.append(length.tolist())
        #: (steps, M) the muscle lengths of each step, as Python floats
        self.lengths = lengths

    def run(self, start: int, stop: int) -> None:
        """Steps ``start`` to ``stop - 1`` of every creature: each creature through all of them,
        then the next (each step: the muscles' pin lengths, then ``space.step``, ``substeps``
        times; at one substep without the inner loop, so the default's figure pays nothing for
        it)."""
        lengths = self.lengths[start:stop]
        substeps = self.substeps
        if substeps == 1:
            dt = PARAMS.dt
            for space, pins in zip(self.spaces, self.pins):
                step = space.step
                for row in lengths:
                    for pin, d in zip(pins, row):
                        pin.distance = d
                    step(dt)
            return
        h = PARAMS.dt / substeps
        each = range(substeps)
        for space, pins in zip(self.spaces, self.pins):
            step = space.step
            for row in lengths:
                for pin, d in zip(pins, row):
                    pin.distance = d
                for _ in each:
                    step(h)

    def finite(self) -> bool:
        return all(math.isfinite(b.position.x) and math.isfinite(b.position.y)
                   for parts in self.parts for b in parts["bodies"])


def pymunk_share(creatures: int, steps: int, repeats: int, warmup: int = WARMUP_STEPS,
                 barrier=None, results=None, substeps: int = 1) -> dict:
    """One process's part of the pymunk side: build ``creatures`` Spaces, step each through
    ``warmup`` untimed steps, then ``repeats`` windows of ``steps`` steps (each of ``substeps``
    ``space.step`` calls), each window started right after ``barrier`` (shared by every process
    of the run, if given).

    Returns (and puts on ``results``, if given) ``{"pid", "creatures", "steps", "warmup_steps",
    "substeps", "spans": [(start, end) per window, time.perf_counter(), a system-wide clock],
    "finite"}``."""
    pop = PymunkCreatures(physics.examples.walker(), creatures, warmup + repeats * steps, substeps=substeps)
    pop.run(0, warmup)
    spans = []
    start = warmup
    for _ in range(repeats):  # each repetition carries on where the last one stopped
        if barrier is not None:
            barrier.wait(WORKER_TIMEOUT)
        t0 = time.perf_counter()
        pop.run(start, start + steps)
        spans.append((t0, time.perf_counter()))
        start += steps
    report = {"pid": os.getpid(), "creatures": creatures, "steps": steps, "warmup_steps": warmup,
              "substeps": substeps, "spans": spans, "finite": pop.finite()}
    if results is not None:
        results.put(report)
    return report


def shares(population: int, processes: int) -> list[int]:
    """Creatures per process: ``population`` split as evenly as it goes over at most ``processes``."""
    processes = max(1, min(processes, population))
    q, r = divmod(population, processes)
    return [q + (i < r) for i in range(processes)]


def _pymunk_processes(population: int, steps: int, repeats: int, processes: int, warmup: int,
                      substeps: int = 1) -> list[dict]:
    """:func:`pymunk_share` in ``processes`` spawned processes; their reports."""
    ctx = mp.get_context("spawn")  # as evolution's workers: no fork of a process running numba threads
    parts = shares(population, processes)
    barrier = ctx.Barrier(len(parts))
    results = ctx.Queue()
    procs = [ctx.Process(target=pymunk_share, args=(n, steps, repeats, warmup, barrier, results, substeps),
                         daemon=True) for n in parts]
    for p in procs:
        p.start()
    reports = []
    deadline = time.monotonic() + WORKER_TIMEOUT
    try:
        while len(reports) < len(procs):
            try:
                reports.append(results.get(timeout=0.5))
            except queue.Empty:
                dead = [p for p in procs if p.exitcode not in (None, 0)]
                if dead or time.monotonic() > deadline:
                    why = f"exit code {dead[0].exitcode}" if dead else f"no report in {WORKER_TIMEOUT:g} s"
                    raise RuntimeError(f"a pymunk worker process failed ({why})") from None
    finally:
        if len(reports) < len(procs):
            barrier.abort()
        for p in procs:
            p.join(timeout=10)
            if p.is_alive():
                p.terminate()
                p.join()
    return reports


def time_pymunk(population: int, steps: int = STEPS, repeats: int = REPEATS, cores: int = 1,
                warmup: int = WARMUP_STEPS, engine: str = "pymunk") -> dict:
    """Creature-steps per second of pymunk: one Space per creature, each creature stepped through
    all its steps in turn, each muscle's pin length set every step; in this process
    (``cores=1``), or the population split over ``cores`` spawned processes, each window timed
    from the barrier before it to the end of the last process. ``engine``: "pymunk" (its
    default, one ``space.step`` a step) or "pymunk-rigid" (:data:`~.common.PYMUNK_SUBSTEPS`);
    the row is named so."""
    if engine not in PYMUNK_SUBSTEPS:
        raise ValueError(f"engine must be one of {', '.join(PYMUNK_SUBSTEPS)}, not {engine!r}")
    substeps = PYMUNK_SUBSTEPS[engine]
    if cores == 1:
        reports = [pymunk_share(population, steps, repeats, warmup, substeps=substeps)]
    else:
        reports = _pymunk_processes(population, steps, repeats, cores, warmup, substeps)
    if not all(r["finite"] for r in reports):
        raise RuntimeError("pymunk produced non-finite positions during the benchmark")
    windows = [max(r["spans"][i][1] for r in reports) - min(r["spans"][i][0] for r in reports)
               for i in range(repeats)]
    row = result_row(engine, population, cores, steps, warmup, windows)
    row["processes"] = len(reports)
    row["workers"] = [{"pid": r["pid"], "creatures": r["creatures"], "steps": r["steps"],
                       "warmup_steps": r["warmup_steps"], "substeps": r["substeps"]} for r in reports]
    return row


def pymunk_walk(steps: int, driven: bool, substeps: int = 1) -> np.ndarray:
    """Centre of mass (steps + 1, 2) of one walker in pymunk, muscles sine-driven or at rest,
    each step taken as ``substeps`` calls of ``space.step``."""
    pop = PymunkCreatures(physics.examples.walker(), 1, steps, driven, substeps)
    bodies = pop.parts[0]["bodies"]
    mass = np.array([b.mass for b in bodies])

    def com():
        return mass @ np.array([tuple(b.position) for b in bodies]) / mass.sum()

    out = [com()]
    for t in range(steps):
        pop.run(t, t + 1)
        out.append(com())
    return np.array(out)




def rigid_pairs(body_def: physics.Body) -> list[tuple[int, int, float]]:
    """The rigid bones of ``body_def`` as (sphere a, sphere b, rest length): no compliance and not
    a muscle, as :func:`physics.integrity.rigid_bones` has them; the rest length the design's
    distance where the bone gives none, as :func:`pymunk_walker` pins it."""
    return [(b.a, b.b, math.dist(body_def.spheres[b.a].pos, body_def.spheres[b.b].pos) if b.rest is None
             else float(b.rest)) for b in body_def.bones if b.muscle is None and b.compliance == 0.0]


def pymunk_strain(commands: np.ndarray, offsets: np.ndarray, substeps: int = 1,
                  body_def: physics.Body | None = None) -> float:
    """The worst rigid-bone strain (relative length error, 0.01 is 1 %) of walkers in pymunk,
    read after every step as :func:`physics.integrity` reads ours: creature ``k`` in a Space of
    its own, its rest pose shifted by ``offsets[k]``, its muscles driven by ``commands[:, k]``
    (rate-limited to the same lengths as ours), each step taken as ``substeps`` calls of
    ``space.step``.

    Parameters
    ----------
    commands : (T, B, M) array
        Muscle commands in [-1, 1], one row a step.
    offsets : (B, 2) array
        Each creature's shift from the design's rest pose (m).
    substeps : int
        ``space.step(dt / substeps)`` calls per step (1: pymunk's default).
    body_def : physics.Body, optional
        The body (default: the reference walker).

    Returns
    -------
    float
        The largest ``|length / rest - 1|`` of any rigid bone of any creature after any step;
        NaN if a position went non-finite.
    """
    body_def = body_def or physics.examples.walker()
    pairs = rigid_pairs(body_def)
    h = PARAMS.dt / substeps
    worst = 0.0
    for k in range(commands.shape[1]):
        space, parts = pymunk_world(body_def)
        bodies, pins = parts["bodies"], parts["muscles"]
        dx, dy = (float(v) for v in offsets[k])
        for b, s in zip(bodies, body_def.spheres):
            b.position = (s.pos[0] + dx, s.pos[1] + dy)
        rest = parts["rest"]
        target = muscle_targets(commands[:, k], rest, parts["range"])
        length, max_step = rest.copy(), parts["speed"] * rest * PARAMS.dt
        for row in target:
            drive_pymunk_muscles(length, row, max_step)
            for pin, d in zip(pins, length.tolist()):
                pin.distance = d
            for _ in range(substeps):
                space.step(h)
            for a, b, r in pairs:
                s = abs(math.dist(bodies[a].position, bodies[b].position) / r - 1.0)
                if s != s:
                    return s
                worst = max(worst, s)
    return worst

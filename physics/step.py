"""One step of the world, for a whole batch of creatures at once.

Stage sequence of :func:`step` (``h = dt / substeps``; Macklin et al., *Small Steps in Physics
Simulation*, 2019: several substeps of one solve each beat one step of many sweeps)::

    drive_muscles            muscle rest lengths move toward the commands (rate-limited), once per step
    find_contacts            the terrain near each sphere as a half-plane, once per step, from where
                             the sphere would go in the whole step (the substeps re-solve these
                             planes against their own depths); on a terrain with corners, once per
                             substep instead, after predict: a foot landing in the corner at the
                             foot of a step had the riser's plane for the whole step, sank into the
                             tread unheld, and the last push-out lifted it alone (3.7 % strain)
    for each substep:
        rest_of_substep      the muscles' rest lengths this far through the step (no jumps)
        predict              v += g h (and drag); p = x + v h              (Verlet, velocity form)
        buoyancy             in a fluid: each sphere's buoyancy (physics/medium.py)
        for each iteration (1 by default):
            solve_joints     angular springs (Jacobi, mass split among a sphere's springs)
            solve_clusters   shape matching of soft clusters (rigid ones are in the skeleton)
            solve_ground     push out of the contact half-plane; Coulomb friction, static and kinetic
            factor_skeleton, solve_skeleton   every rigid bone, rigid cluster, violated hinge
                             limit and muscle of the creature in one exact linear solve
                             (physics/skeleton.py), the spheres the ground holds made heavy
                             along its normal; muscles held at their strength
            mark_lifted      spheres that solve pulled out of the ground: if any, the solve is
                             done again from the same positions with them free (the ground only pushes)
            (hinges carried past a limit: factored and solved again, rigid rows only)
            solve_self_collisions   Jacobi sweeps over the creature's colliding sphere pairs
            press_friction, solve_skeleton   friction on what the skeleton pressed into the
                             ground, then the skeleton's rigid rows again
        relax_medium, solve_skeleton   in a fluid: the implicit drag of spheres and bone plates on
                             what the substep did, then the rigid rows again (physics/medium.py)
        finish_ground        last push-out (nothing ends inside the ground), contact flags
        recover_velocity     v = (p - x) / h
        reject_ground_velocity   remove velocity into the ground; bounce by restitution; cap the
                             outward velocity the push-out made (SimParams.push_out_speed)
    collide_arena            between creatures, after every substep, if the arena is shared

Nothing here sweeps a design's items in the order it lists them: the skeleton is one exact
solve, the other constraints are Jacobi sweeps (each from the same snapshot, corrections added
up) and the fluid's plates are averaged, so a body and its mirror image listed the other way
round move alike (a Gauss-Seidel sweep in listed order let a symmetric one-muscle triangle glide
20 m in 20 s one way, and 20 m the other way listed in reverse).

The other solvers are separate kernels, chosen here before any of the above runs:
``SimParams(solver="witkin")`` steps with physics/witkin.py (exact constraints, Lagrange
multipliers) and ``SimParams(contacts="dem")`` with physics/dem.py (the stages above with
spring-dashpot contact forces in place of the ground and collision stages).

Every stage but the last works on one chunk of creatures at a time (``physics/hot.py``
says why), chunks in parallel; a creature's result does not depend on its chunk-mates, the
number of threads, or the batch it is in. The arena stage couples creatures, so it runs on one
thread, in a fixed order. A step is a rollout of one step: one kernel (and one compile) serves
both, serial and threaded.
"""

from __future__ import annotations

from collections import namedtuple
from typing import NamedTuple

import numba
import numpy as np
from numba import njit, prange

from . import dem, witkin
from .hot import chunk_lanes, creatures_alike, packed_hot_of, packed_workspace_of, unowned, whole_eights
from .lanes import WIDTH, block, one_block, stepped, width
from .layout import flat, for_stages, unpack_hot, unpack_work, work_chunks
from .bones import R_REST, drive_muscles, rest_of_substep
from .clusters import solve_clusters
from .collide import ARENA_PASSES, collide_arena, solve_self_collisions
from .contacts import find_contacts, finish_ground, loosen_grip, mark_lifted, press_friction, reject_ground_velocity, solve_ground
from .integrate import predict, recover_velocity
from .medium import PlateRows, buoyancy, coefficients, relax_medium
from .joints import solve_joints
from .skeleton import factor_skeleton, solve_skeleton
from .model import Model
from .params import SimParams
from .state import State
from .terrain import Terrain, is_straight

__all__ = ["step", "rollout", "substeps_for", "prepare_step", "StepPlan", "StepArgs", "kernel_plan", "step_in_kernel"]

#: Jacobi sweeps over a creature's colliding sphere pairs per iteration, after the skeleton's
#: solve: a sphere pressed between two others is pushed both ways at once by one sweep; with two,
#: crumpled chains ended steps 1.4 mm inside each other
COLLISION_SWEEPS = 4


@njit(cache=True, error_model="numpy", inline="always")
def _copy_lanes(dst, src, n):
    """``dst[:, :, :n] = src[:, :, :n]``, in loops: numba's slice copy brings its shape-mismatch
    message along, string formatting that took seconds of the first run's compile."""
    for i in range(dst.shape[0]):
        for k in range(dst.shape[1]):
            for l in range(n):
                dst[i, k, l] = src[i, k, l]


@njit(cache=True, error_model="numpy", inline="always")
def _zero(a):
    """``a[...] = 0`` in one flat loop (a C-contiguous view): numba's slice assignment
    (``a[:, :] = 0.0``) cost about 30 ns a call, ten calls a substep."""
    row = flat(a)
    for i in range(row.shape[0]):
        row[i] = 0


@njit(cache=True, error_model="numpy", inline="always")
def _copy_rows(dst, src, n):
    """``dst[:, :n] = src[:, :n]``, in loops (see :func:`_copy_lanes`)."""
    for i in range(dst.shape[0]):
        for l in range(n):
            dst[i, l] = src[i, l]


#: a chunk of at least TWIN_LANES creatures, this share of them or fewer lifting a sphere, solves
#: those again in its twin (see _solve_lifting_again), else the whole chunk again. Measured (one
#: thread, alternating runs): the walker under varied commands lifts with ~a quarter of a chunk
#: of 75-125 each substep and gains 8-12 %; a 5-sphere, 7-bone body with a third of its chunk
#: lifting lost 4-12 % at 32-64 lanes (their loops' set-up, not their lanes, is what a small chunk
#: pays, and the copies cost more than the lanes they spare) and broke even at 128
TWIN_LANES = 72
FEW_LIFTING = 0.3


@njit(cache=True, error_model="numpy", inline="always")
def _lifting_lanes(lifted, lanes, n):
    """The lanes (of the first ``n``) with a sphere ``lifted`` (P, LANES) into ``lanes``, in
    order; returns how many."""
    k = 0
    for l in range(n):
        up = False
        for i in range(lifted.shape[0]):
            up |= lifted[i, l] > 0.0
        if up:
            lanes[k] = l
            k += 1
    return k


@njit(cache=True, error_model="numpy", inline="always")
def _gather(dst, src, lanes, k):
    """Lane j < k of ``dst`` := lane ``lanes[j]`` of ``src`` (C-contiguous, lanes last)."""
    L = src.shape[src.ndim - 1]
    d, s = flat(dst), flat(src)
    for i in range(0, s.shape[0], L):
        for j in range(k):
            d[i + j] = s[i + lanes[j]]


@njit(cache=True, error_model="numpy", inline="always")
def _scatter(dst, src, lanes, k):
    """Lane ``lanes[j]`` of ``dst`` := lane j < k of ``src`` (C-contiguous, lanes last)."""
    L = src.shape[src.ndim - 1]
    d, s = flat(dst), flat(src)
    for i in range(0, s.shape[0], L):
        for j in range(k):
            d[i + lanes[j]] = s[i + j]


@njit(cache=True, error_model="numpy", inline="always")
def _solve_lifting_again(h, packed_work, c, packed, work, k, chunks, again, lead):
    """The skeleton's solve done again for the ``k`` creatures of chunk ``c`` whose feet its
    first solve lifted (``work.lifting[c]``), alone: gathered into the chunk's twin
    (``chunks + c``, lanes 0 .. k - 1, then up to a whole eight), factored and solved there with
    those spheres free, and what the rest of the substep reads put back in their lanes: the
    positions, the load, the multipliers, and of the factor what the solves of the rods and hinges alone read after it
    (``lead``: the leading block's rows, its factor's entries and its legs). Only where every
    creature of the batch has the same arrays (``physics.hot.creatures_alike``): the twin's lane
    j reads the model at lane j, not at its creature's.

    The same bits as solving the whole chunk again: a creature that lifted nothing is solved
    again to what its first solve gave (physics/skeleton.py), so its lanes keep that, and a
    lane's arithmetic is its own. Under varied muscles some creature lifts a foot in nearly every
    substep (a fifth to a quarter of them each substep): the whole chunk solved again was a third
    of the step."""
    t = chunks + c
    lanes = work.lifting[c]
    # in whole eights of lanes, as the chunk (the last creature's lane again: the same bits, put
    # back twice)
    for j in range(k, whole_eights(k)):
        lanes[j] = lanes[k - 1]
    k = whole_eights(k)
    rows, entries, legs = lead
    # where the first solve started from, and what it held
    _gather(work.p[t], work.before[c], lanes, k)
    for a in (work.x, work.v, work.plane):
        _gather(a[t], a[c], lanes, k)
    for a in (work.push, work.grip, work.lifted, work.lam, work.pulled_before):
        _gather(a[t], a[c], lanes, k)
    if again:   # (a hinge the solve before brought back stays at its limit: its pivot says so)
        _gather(work.sk_pivot[t], work.sk_pivot[c], lanes, k)
    rest, rest_t = work.bone_rows[c], work.bone_rows[t]
    for e in range(rest.shape[0]):   # (the solve reads a bone's length this substep alone)
        for j in range(k):
            rest_t[e, R_REST, j] = rest[e, R_REST, lanes[j]]
    _zero(work.load[t])
    first = t - t   # (lane 0 of the model: a runtime 0, a literal one compiles the callees again)
    factor_skeleton(h, packed_work, t, packed, first, k, again, t >= 0, t < 0)
    solve_skeleton(h, packed_work, t, packed, first, k, t < 0, t >= 0, t < 0)
    for a in (work.p, work.load, work.sk_mass, work.sk_normal, work.sk_hold):
        _scatter(a[c], a[t], lanes, k)
    _scatter(work.lam[c], work.lam[t], lanes, k)
    for a, m in ((work.sk_leg_n, legs), (work.sk_factor, entries), (work.sk_pivot, rows), (work.sk_inv_pivot, rows)):
        _scatter(a[c][:m], a[t][:m], lanes, k)


#: a step's settings as the kernels read them (:class:`StepPlan`'s ``solver``): plain numbers,
#: and the medium's coefficients (physics/medium.py)
#: (``graph``: True for a graph's model, whose code is compiled into its step alone, else None;
#: ``kinds``: None for a graph's model, stepped by the steps for many and for one block, not the
#: step for one, else True:
#: numba prunes the code under ``x is None`` or ``x is not None`` where ``x`` is None, and keeps both
#: ways where it is not. Not ``()``: a parallel step's threads cannot take an empty tuple)
Settings = namedtuple("Settings", "dt substeps iterations gravity drag bounce push slop ground self_collision fluid "
                                   "alike graph kinds")


@njit(cache=True, error_model="numpy")
def _step_chunk(c, start, cmd, end, out_contact, packed, packed_work, terrain, s, single):
    """The whole step for chunk ``c``: creatures ``c * lanes`` to ``c * lanes + lanes - 1``, from
    ``start`` (positions, velocities and muscle lengths, (B, ...) each) into ``end`` (the same),
    with the :class:`Settings` ``s``. ``single`` is None in the step compiled for one creature
    (:func:`_rollout_serial`'s), a :class:`physics.lanes.OneBlock` in the step compiled for one
    block of lanes (the same), a runtime False elsewhere: the stages it reaches take it along
    (their lane counts are :func:`physics.lanes.stepped`'s, so there every lane loop counts to a
    constant 1 or :data:`physics.lanes.WIDTH`). ``packed`` and ``packed_work`` are the model's
    arrays and the workspace as packed buffers, unpacked here into the :data:`physics.layout.Hot` and
    :data:`physics.layout.Work` records; the stages that read many of the model's arrays take the
    buffers and unpack them themselves (see :func:`physics.skeleton.factor_skeleton`: a call
    handing on a whole record costs about 0.5 us)."""
    hot, work = unpack_hot(*packed), unpack_work(*packed_work)
    pos, vel, muscle_len = start
    out_pos, out_vel, out_len = end
    table, blocks = terrain
    gravity, drag, slop, ground, fluid = s.gravity, s.drag, s.slop, s.ground, s.fluid
    substeps, iterations = s.substeps, s.iterations
    B, P = pos.shape[0], pos.shape[1]
    h = s.dt / substeps
    lanes = work.x.shape[3]
    C = work_chunks(packed_work)   # (the skeleton's arrays have a twin of each chunk after them)
    # the stages called several times a substep take the buffers' addresses, one word an array
    # (physics.layout.by_address: each call pushed some 62 words; a step of one block 0.83x the
    # time), but in the step compiled for one creature, whose calls hardly showed
    pk, pw = for_stages(packed, single), for_stages(packed_work, single)
    b0 = c * lanes
    n = min(lanes, B - b0)   # its creatures: read from start, written to end
    m = whole_eights(n)      # its lanes stepped (past n, copies of its last creature)
    if single is None:   # compiled for a batch of one creature (_rollout_serial's): a constant
        n = 1
    m = stepped(single, m)   # (a constant in the steps compiled for one creature or one block)
    x, p, v, q = work.x[c], work.p[c], work.v[c], work.q[c]
    rest, lam, lamj = work.bone_rows[c], work.lam[c], work.lam_joint[c]
    dn, fric, plane, vn = work.push[c], work.cut[c], work.plane[c], work.vn[c]
    touching, active, touched, grip = work.touching[c], work.active[c], work.touched[c], work.grip[c]
    load, loose, lifted = work.load[c], work.loose[c], work.lifted[c]
    before, pulled_before = work.before[c], work.pulled_before[c]
    plate_rows = PlateRows(work.plate_tx[c], work.plate_ty[c], work.plate_share[c], work.plate_ux[c],
                           work.plate_uy[c], work.plate_dvx[c], work.plate_dvy[c])
    # gather
    for i in range(P):
        for k in range(2):
            for l in range(m):
                x[i, k, l] = pos[b0 + min(l, n - 1), i, k]
                v[i, k, l] = vel[b0 + min(l, n - 1), i, k]
    drive_muscles(muscle_len, cmd, out_len, rest, pk, b0, n, s.dt)
    for e in range(rest.shape[0]):
        for r in range(rest.shape[1]):
            for l in range(n, m):
                rest[e, r, l] = rest[e, r, n - 1]
    _zero(touched)
    _zero(loose)
    # A call costs what its arguments cost to hand on (seven or more words an array): the small
    # stages of a substep are inlined here (inline="always": the ground's, the integrator's),
    # the skeleton's factor and solve, called several times a substep, take the packed buffers
    # of the model and the workspace (their addresses, ``pk`` and ``pw`` above) and the chunk
    # and unpack what they read themselves, and
    # the other stages get the arrays they read one by one. Stages with nothing to do are not
    # called at all. (docs/performance.md: one walker 1.2x faster, bit for bit.)
    bone_a, bone_b = hot.bone_a, hot.bone_b
    inv_mass, radius = hot.inv_mass, hot.radius
    joints = hot.joint_c.shape[0] > 0
    hinges = hot.hinge_row.shape[0] > 0
    clusters = hot.cluster_start.shape[0] > 1
    medium = fluid[0] > 0.0
    muscles = hot.muscle_bone.shape[0] > 0
    push_h = s.push * h
    # contacts once a step, from where each sphere would go in the whole step; on a terrain with
    # corners every substep, from where it goes in the substep (see the module)
    corners = not is_straight(table)
    # the stages' flags as runtime bools: numba compiles a function once more for each literal
    # or omitted argument (a literal True is a type of its own), seconds of the first run each
    no, yes = c < 0, c >= 0
    W = width(single)
    # the leading block of the skeleton (rods and hinges): its rows, its factor's entries, its legs
    rows = hot.sk_lead[0]
    lead = (rows, hot.sk_col_start[rows], hot.row_leg_start[rows])
    if ground and not corners:
        predict(x, v, p, inv_mass, b0, 0.0, -gravity, s.dt, drag, m, False, single)
        find_contacts(x, p, plane, active, radius, table, blocks, b0, m, slop, single)
    for sub in range(substeps):
        if muscles:
            rest_of_substep(rest, hot.muscle_bone, m, sub, substeps, single)
        predict(x, v, p, inv_mass, b0, 0.0, -gravity, h, drag, m, True, single)
        if ground and corners:
            find_contacts(x, p, plane, active, radius, table, blocks, b0, m, slop, single)
        if medium:
            buoyancy(v, p, inv_mass, radius, b0, m, h, gravity, fluid)
        _zero(lam)
        _zero(lamj)
        _zero(dn)
        _zero(fric)
        _zero(grip)
        _zero(load)
        _zero(lifted)
        for it in range(iterations):
            if joints:
                solve_joints(x, p, q, lamj, pk, b0, m, h, no, single)
            if clusters:
                solve_clusters(x, p, q, pk, b0, m, single)
            if ground:
                solve_ground(x, p, plane, active, dn, fric, grip, loose, inv_mass, hot.friction,
                             hot.kinetic_friction, b0, m, push_h, single)
            # the skeleton and the muscles, solved together; then the skeleton alone, which
            # puts the rigid bones back where a muscle at its strength could not hold them
            factor_skeleton(h, pw, c, pk, b0, m, it > 0, yes, single, s.graph)
            if ground:
                _copy_lanes(before, p, m)
                _copy_rows(pulled_before, lam, m)
            solve_skeleton(h, pw, c, pk, b0, m, no, no, single, s.graph)
            if ground and mark_lifted(active, load, lifted, m, single):
                # the ground held a sphere the solve pulled out of it: solved again with it free
                k = _lifting_lanes(lifted, work.lifting[c], m)
                if s.alike and m >= TWIN_LANES and k <= m * FEW_LIFTING:
                    # those creatures alone, in the chunk's twin (see _solve_lifting_again)
                    _solve_lifting_again(h, pw, c, pk, work, k, C, it > 0, lead)
                else:
                    _copy_lanes(p, before, m)
                    _zero(load)
                    # (the legs as the factor above took them: x has not moved)
                    factor_skeleton(h, pw, c, pk, b0, m, it > 0, no, single, s.graph)
                    solve_skeleton(h, pw, c, pk, b0, m, no, yes, single, s.graph)
            if hinges and iterations == 1:   # the hinges that solve carried past a limit, with those it brought back
                factor_skeleton(h, pw, c, pk, b0, m, yes, no, single, s.graph)
                solve_skeleton(h, pw, c, pk, b0, m, yes, no, single, s.graph)
            if ground:   # grips that give (pulled along harder than static friction holds) slide next substep
                loosen_grip(active, dn, grip, load, loose, inv_mass, hot.friction, b0, m, single)
            if s.self_collision:
                for sweep in range(COLLISION_SWEEPS):
                    solve_self_collisions(x, p, q, hot.pair_a, hot.pair_b, inv_mass, radius, b0, m, single)
            if ground:   # friction on what the skeleton pressed into the ground, and the skeleton again
                press_friction(x, p, plane, active, dn, fric, load, inv_mass, hot.friction, hot.kinetic_friction,
                               b0, m, single)
                solve_skeleton(h, pw, c, pk, b0, m, yes, no, single, s.graph)
                _zero(load)
        if medium:   # the fluid brakes what gravity, the skeleton and the muscles did; the skeleton has the last word
            relax_medium(x, p, q, vn, plate_rows, inv_mass, radius, bone_a, bone_b, hot.bone_on, hot.bone_plate, b0, m, h, fluid)
            solve_skeleton(h, pw, c, pk, b0, m, yes, no, single, s.graph)
            _zero(load)
        if ground:
            finish_ground(x, p, v, plane, active, dn, touching, vn, pk, terrain, b0, m, slop, push_h, single)
        recover_velocity(x, p, v, h, m, single)
        if ground:
            reject_ground_velocity(v, plane, touching, vn, dn, hot.restitution, b0, m, s.bounce, s.push, h, single)
            for i in range(P):
                for l0 in range(0, m, W):
                    l = block(l0, single)
                    touched[i, l] = touched[i, l] | touching[i, l]
        # the substep's end is the next one's start
        for i in range(P):
            for k in range(2):
                for l0 in range(0, m, W):
                    l = block(l0, single)
                    x[i, k, l] = p[i, k, l]
    # scatter
    for i in range(P):
        for l in range(n):
            out_contact[b0 + l, i] = touched[i, l]
            for k in range(2):
                out_pos[b0 + l, i, k] = x[i, k, l]
                out_vel[b0 + l, i, k] = v[i, k, l]


@njit(cache=True, error_model="numpy")
def _rollout_chunk(c, start, out, cmds, every, packed, packed_work, terrain, s, single):
    """Chunk ``c`` through all the steps of ``cmds`` (T, B, M) from ``start`` (positions,
    velocities, muscle lengths): step t reads what step t - 1 wrote, the two halves of ``out``'s
    buffers (2, B, ...) in turn (the input state is not written; one step, T = 1, needs only the
    first half: :func:`step` is this kernel too, one compile less); positions after every
    ``every`` steps into ``frames[1:]``. Each step is :func:`_step_chunk`, so the result is the
    one of stepping one call at a time, bit for bit. ``packed``, ``packed_work``: the model's
    arrays and the workspace, packed (unpacked where they are read); ``single``: :func:`_step_chunk`'s."""
    pos, vel, muscle_len = start
    buf_pos, buf_vel, buf_len, out_contact, frames = out
    lanes = unpack_work(*packed_work).x.shape[3]
    b0 = c * lanes
    n = min(lanes, pos.shape[0] - b0)
    for t in range(cmds.shape[0]):
        w = t % 2
        # one call site: numba links the step into each caller, and LLVM optimises every copy
        if t == 0:
            p0, v0, l0 = pos, vel, muscle_len
        else:
            p0, v0, l0 = buf_pos[1 - w], buf_vel[1 - w], buf_len[1 - w]
        _step_chunk(c, (p0, v0, l0), cmds[t], (buf_pos[w], buf_vel[w], buf_len[w]), out_contact, packed,
                    packed_work, terrain, s, single)
        if every > 0 and (t + 1) % every == 0:
            f = (t + 1) // every
            for l in range(n):
                for i in range(pos.shape[1]):
                    frames[f, b0 + l, i, 0] = buf_pos[w, b0 + l, i, 0]
                    frames[f, b0 + l, i, 1] = buf_pos[w, b0 + l, i, 1]


@njit(parallel=True, cache=True, error_model="numpy")
def _rollout_parallel(start, out, cmds, every, hot, work, terrain, settings):
    """:func:`_rollout_chunk` for every chunk, chunks in parallel. Every argument is a plain
    tuple (cheaper for numba's dispatcher to type than named ones): ``start`` (pos, vel,
    muscle_len), ``out`` (buf_pos, buf_vel, buf_len, contact, frames), ``hot`` and ``work``
    :class:`physics.layout.Packed` buffers, ``terrain`` (table, blocks), ``settings`` the
    :class:`Settings`' values."""
    # (the caller's arrays outlive the call too: borrowed, see physics.hot.unowned)
    start, out, cmds, terrain, settings = unowned((start, out, cmds, terrain, settings))
    s = Settings(*settings)
    for c in prange(work_chunks(work)):   # (the records unpacked inside: physics.layout.work_chunks)
        k = np.int64(c)
        _rollout_chunk(k, start, out, cmds, every, hot, work, terrain, s, k < 0)


@njit(cache=True, error_model="numpy")
def _rollout_serial(start, out, cmds, every, hot, work, terrain, settings):
    """:func:`_rollout_parallel` on one thread, chunk after chunk; a batch of one creature by
    the step compiled for one (``single`` None: :func:`_step_chunk`), and a batch of one chunk
    of one block of lanes (2 to 8 creatures) by the step compiled for one block
    (:func:`physics.lanes.one_block`), in this same kernel, so that whatever compiles the step (a
    first run's episode loop) compiles all three: every lane loop counts to a constant 1 or 8
    there, and LLVM makes each a few scalar or vector instructions, without the loop, its trip
    count and (before the blocks of lanes) the alias checks and remainder a loop of a runtime
    count brings (one walker in one rollout call 1.9x as fast; 8 creatures of each of five random
    shapes 1.18x; the same bits, a lane's arithmetic being its own)."""
    start, out, cmds, terrain, settings = unowned((start, out, cmds, terrain, settings))
    s = Settings(*settings)
    _rollout_kinds(s.kinds, start, out, cmds, every, hot, work, terrain, s)


@njit(cache=True, error_model="numpy")
def _rollout_kinds(kinds, start, out, cmds, every, hot, work, terrain, s):
    """:func:`_rollout_serial`'s three steps; a graph's model (``kinds`` None: :data:`Settings`)
    steps a batch of one creature as one block too: numba prunes the step for one before typing
    it, and the graph's step compiles twice, not three times (a growing generation's batches of
    one to eight creatures, a step for many, had cost it 2.08-2.18x its commonest body's 150)."""
    B = start[0].shape[0]
    if kinds is not None:
        if B == 1:   # (chunk B - 1 = 0: a runtime 0, a literal one is a numba type of its own)
            _rollout_chunk(B - 1, start, out, cmds, every, hot, work, terrain, s, None)
            return
    if work_chunks(work) == 1 and unpack_work(*work).x.shape[3] == WIDTH:
        _rollout_chunk(B - B, start, out, cmds, every, hot, work, terrain, s, one_block())
        return
    for c in range(work_chunks(work)):
        _rollout_chunk(c, start, out, cmds, every, hot, work, terrain, s, c < 0)


class StepArgs(NamedTuple):
    """A SimParams as the PBD kernels take it: plain numbers, and the medium's coefficients."""

    pbd: bool            # the PBD solver with PBD contacts (else Witkin or DEM steps)
    dt: float
    substeps: int
    iterations: int
    gravity: float
    damping: float
    bounce: float        # bounce_speed
    push: float          # push_out_speed
    slop: float          # contact_slop
    ground: bool
    self_collision: bool
    arena: bool          # arena_collision
    fluid: np.ndarray    # physics/medium.py's coefficients


def step_args(params: SimParams) -> StepArgs:
    return StepArgs(params.solver == "pbd" and params.contacts == "pbd", float(params.dt), int(params.substeps),
                    int(params.iterations), float(params.gravity), float(params.damping),
                    float(params.bounce_speed), float(params.push_out_speed), float(params.contact_slop),
                    bool(params.ground), bool(params.self_collision), bool(params.arena_collision),
                    coefficients(params))


class StepPlan(NamedTuple):
    """Everything a step of one model with one SimParams on some threads needs, made once
    (:func:`prepare_step`). Every solver has the same two halves: a plan made once, and an
    advance of a state by it. For the PBD solver with its own contacts (this module's): ``hot``,
    the model's packed arrays (:func:`physics.hot.packed_hot_of`) and ``work``, the workspace
    for its chunks, packed too (:func:`physics.hot.packed_workspace_of`), both as plain tuples
    for the kernels; ``solver``, the :class:`Settings` after the time step and the substeps
    (iterations, gravity, damping, bounce, push, slop, ground, self-collision where the model
    has pairs, the medium's coefficients). For the Witkin solver and DEM contacts those are None
    and ``own`` is the solver's plan (``physics.witkin.prepare``, ``physics.dem.prepare``),
    ``advance`` its advance."""

    args: StepArgs
    parallel: bool
    hot: tuple | None
    work: tuple | None
    solver: tuple | None
    own: object
    advance: object
    #: the batch's creatures, spheres and muscles
    sizes: tuple


def prepare_step(model: Model, params: SimParams | None = None, parallel: bool | None = None) -> StepPlan:
    """The plan for stepping ``model``'s whole batch with ``params`` (:func:`step`'s
    ``parallel``), made on first use and kept in ``model.prepared.plans`` by (settings, parallel,
    threads): one explicit place, so that nothing prepared for one setting is used for another.
    The plan used last is found first by identity (a step of one creature costs ~40 us, and
    hashing the settings ~1)."""
    params = params or _DEFAULT
    prepared = model.prepared
    threads = 1 if parallel is False else numba.get_num_threads()
    last = prepared.last
    if last is not None and last[0] is params and last[1] is parallel and last[2] == threads:
        return last[3]
    if params.solver == "pbd" and params.contacts == "pbd":
        use = threads > 1 and model.batch >= 16 * threads if parallel is None else bool(parallel)
    else:   # the other solvers: one thread unless asked (physics/dem.py says why)
        use = bool(parallel) and threads > 1
    key = (params, use, threads if use else 1)
    plan = prepared.plans.get(key)
    if plan is None:
        args = step_args(params)
        if args.pbd:
            lanes = chunk_lanes(model.batch, key[2])
            solver = (args.iterations, args.gravity, args.damping, args.bounce, args.push, args.slop, args.ground,
                      args.self_collision and model.pair_a.shape[0] > 0, args.fluid, creatures_alike(model),
                      True if model.graph else None, None if model.graph else True)   # (Settings' graph, kinds)
            plan = StepPlan(args, use, tuple(packed_hot_of(model)), tuple(packed_workspace_of(model, lanes)), solver,
                            None, None, (model.batch, model.n_spheres, model.n_muscles))
        else:
            if model.graph:
                raise ValueError(f"a graph's model is stepped by the pbd solver, not {params.solver}")
            other = witkin if params.solver == "witkin" else dem
            plan = StepPlan(args, use, None, None, None, other.prepare(model, params, use), other.advance,
                            (model.batch, model.n_spheres, model.n_muscles))
        prepared.plans[key] = plan
    prepared.last = (params, parallel, threads, plan)
    return plan


def kernel_plan(model: Model, params: SimParams | None = None, terrain: Terrain | None = None):
    """What :func:`step_in_kernel` needs to step ``model``'s whole batch inside a caller's own
    kernel, one thread, as :func:`step` with ``parallel=False`` does (the same bits): ``(buffers,
    plan)``; None where :func:`step` would step otherwise (the Witkin solver, DEM contacts, a shared
    arena)."""
    params = params or _DEFAULT
    terrain = terrain or _FLAT
    plan = prepare_step(model, params, False)
    a = plan.args
    if not a.pbd or (a.arena and model.batch > 1):
        return None
    B, P, M = plan.sizes
    buffers = (np.empty((1, B, P, 2)), np.empty((1, B, P, 2)), np.empty((1, B, M)), np.empty((1, 0, 0, 2)))
    return buffers, (plan.hot, plan.work, (_writable(terrain.table), _writable(terrain.blocks)),
                     (a.dt, a.substeps) + plan.solver)


@njit(cache=True, error_model="numpy")
def step_in_kernel(pos, vel, length, contact, commands, buffers, plan):
    """One :func:`step` of the batch from within a kernel: ``pos``, ``vel``, ``length`` (a
    state's arrays) advanced in place by ``commands`` (B, M), and ``contact`` set, with
    :func:`kernel_plan`'s ``buffers`` and ``plan``; the same bits as :func:`step`."""
    out_pos, out_vel, out_len, frames = buffers
    hot, work, terrain, settings = plan
    # (no frames kept: ``every`` a runtime 0, as step() passes it from Python; a literal 0 is a
    # numba type of its own, and the step was compiled once for this loop and once more for
    # step(): the first step a viewer took after a first run compiled for half a minute)
    every = np.int64(0)
    _rollout_serial((pos, vel, length), (out_pos, out_vel, out_len, contact, frames),
                    commands.reshape(1, commands.shape[0], commands.shape[1]), every, hot, work, terrain, settings)
    pos[:] = out_pos[0]
    vel[:] = out_vel[0]
    length[:] = out_len[0]


def _writable(a: np.ndarray) -> np.ndarray:
    """``a``, or a copy if it is read-only. A read-only array is a numba type of its own: a call
    with one compiled the whole step once more (a minute and a half, the first time). Arrays come
    read-only out of pickle's buffers (Ray's object store) and from ``np.broadcast_to``."""
    return a if a.flags.writeable else a.copy()


def step(model: Model, state: State, commands, params: SimParams | None = None,
         terrain: Terrain | None = None, parallel: bool | None = None) -> State:
    """Advance every creature of the batch by ``params.dt``.

    Parameters
    ----------
    model : Model
        The batch's static arrays (B creatures).
    state : State
        The current state; it is not modified.
    commands : ndarray, shape (B, M), or None
        Muscle commands in [-1, 1] (clipped; NaN counts as 0). None holds every muscle at rest.
    params : SimParams
        Defaults to ``SimParams()``.
    terrain : Terrain
        Defaults to flat ground at height 0. Ignored when ``params.ground`` is False.
    parallel : bool or None
        Spread the batch over numba's threads, one chunk of creatures per thread. By default
        when there are several threads and at least 16 creatures per thread. Pass False in
        processes that already share the cores (evolution's workers): the batch is then stepped
        on one thread, in chunks of up to 128 creatures. The result is the same either way, bit
        for bit. The Witkin and DEM solvers use one thread unless this is True.

    Returns
    -------
    State
        The new state.
    """
    params = params or _DEFAULT
    terrain = terrain or _FLAT
    pos = state.pos
    plan = prepare_step(model, params, parallel)
    B, P = pos.shape[0], pos.shape[1]
    batch, spheres, M = plan.sizes
    if B != batch or P != spheres:
        raise ValueError(f"state is for {B} creatures of {P} spheres, model for {batch} of {spheres}")
    if commands is None:
        cmd = np.zeros((B, M))
    else:
        cmd = _writable(np.ascontiguousarray(commands, dtype=np.float64))
        if cmd.shape != (B, M):
            raise ValueError(f"commands must have shape {(B, M)}, not {cmd.shape}")
    a = plan.args
    if not a.pbd:
        return plan.advance(plan.own, model, state, cmd, terrain, a.dt)
    dt, substeps = a.dt, a.substeps
    kernel = _rollout_parallel if plan.parallel else _rollout_serial
    table, blocks = _writable(terrain.table), _writable(terrain.blocks)
    # a rollout of one step, written straight into the new state's arrays
    out_pos = np.empty((1,) + pos.shape)
    out_vel = np.empty((1,) + state.vel.shape)
    out_len = np.empty((1,) + state.muscle_len.shape)
    out_contact = np.empty((B, P), dtype=np.bool_)
    cmds = cmd.reshape(1, B, M)
    if not (a.arena and B > 1):
        kernel((_writable(pos), _writable(state.vel), _writable(state.muscle_len)),
               (out_pos, out_vel, out_len, out_contact, _NO_FRAMES), cmds, 0, plan.hot, plan.work, (table, blocks),
               (dt, substeps) + plan.solver)
        return State(out_pos[0], out_vel[0], out_len[0], out_contact, state.time + dt)
    # A shared arena couples the creatures, so each substep is a step of its own for the kernel
    # (dt / substeps, one substep: the muscles move at the same rate, the contacts are found
    # again), followed by the pass between creatures. Once a step, after all the substeps, the
    # pass fought the skeleton (its pushes know nothing of bones) and a pile of worms blew up.
    h = dt / substeps
    pos, vel, length = _writable(pos), _writable(state.vel), _writable(state.muscle_len)
    touched = np.zeros((B, P), dtype=np.bool_)
    for s in range(substeps):
        kernel((pos, vel, length), (out_pos, out_vel, out_len, out_contact, _NO_FRAMES), cmds, 0, plan.hot,
               plan.work, (table, blocks), (h, 1) + plan.solver)
        collide_arena(out_pos[0], out_vel[0], model.mass, model.inv_mass, model.radius, ARENA_PASSES)
        touched |= out_contact
        pos, vel, length = out_pos[0].copy(), out_vel[0].copy(), out_len[0].copy()
    return State(out_pos[0], out_vel[0], out_len[0], touched, state.time + dt)


def substeps_for(model: Model, params: SimParams) -> int:
    """Substeps per step that :func:`step` uses: ``params.substeps``, or more where the Witkin
    solver's springs or DEM contacts need shorter ones to stay stable (physics/witkin.py,
    physics/dem.py). Raises ValueError if that would be unreasonably many."""
    limit = witkin.spring_substep(model) if params.solver == "witkin" else np.inf
    return dem.required_substeps(model, params, limit)


def rollout(model: Model, state: State, commands, params: SimParams | None = None,
            terrain: Terrain | None = None, every: int = 0, parallel: bool | None = None):
    """Step through a sequence of commands of shape (T, B, M) (or a callable ``f(t, state)``
    returning (B, M), with ``T`` then given as ``commands=(f, T)``).

    Returns the final state, and with ``every > 0`` also the positions every ``every`` steps as
    an array of shape (T // every + 1, B, P, 2).

    A sequence known in advance (open-loop commands) runs in one kernel call: each chunk of
    creatures goes through all T steps without coming back to Python (no per-step call cost, and
    on several threads no meeting point between steps). The result is bit for bit the one of
    calling :func:`step` T times. A callable, the Witkin and DEM solvers and a shared arena
    (which couples the chunks every step) are stepped one call at a time. ``parallel`` is
    :func:`step`'s."""
    params = params or _DEFAULT
    terrain = terrain or _FLAT
    if isinstance(commands, tuple):
        f, T = commands
        return _rollout_by_steps(model, state, f, T, params, terrain, every, parallel)
    seq = _writable(np.ascontiguousarray(commands, dtype=np.float64))
    T = seq.shape[0]
    plan = prepare_step(model, params, parallel)
    a = plan.args
    B, P = state.pos.shape[0], state.pos.shape[1]
    batch, spheres, M = plan.sizes
    if not a.pbd or (a.arena and B > 1) or T == 0:
        return _rollout_by_steps(model, state, lambda t, s: seq[t], T, params, terrain, every, parallel)
    if B != batch or P != spheres:
        raise ValueError(f"state is for {B} creatures of {P} spheres, model for {batch} of {spheres}")
    if seq.shape != (T, B, M):
        raise ValueError(f"commands must have shape {(T, B, M)}, not {seq.shape}")
    dt = a.dt
    kernel = _rollout_parallel if plan.parallel else _rollout_serial
    table, blocks = _writable(terrain.table), _writable(terrain.blocks)
    buf_pos = np.empty((2,) + state.pos.shape)
    buf_vel = np.empty((2,) + state.vel.shape)
    buf_len = np.empty((2,) + state.muscle_len.shape)
    contact = np.empty((B, P), dtype=np.bool_)
    frames = np.empty((T // every + 1 if every else 1, B, P, 2))
    frames[0] = state.pos
    kernel((_writable(state.pos), _writable(state.vel), _writable(state.muscle_len)),
           (buf_pos, buf_vel, buf_len, contact, frames), seq, int(every), plan.hot, plan.work, (table, blocks),
           (dt, a.substeps) + plan.solver)
    time = state.time
    for _ in range(T):
        time = time + dt   # as T calls of step() add it
    w = (T - 1) % 2
    state = State(buf_pos[w].copy(), buf_vel[w].copy(), buf_len[w].copy(), contact, time)
    return (state, frames) if every else state


def _rollout_by_steps(model, state, f, T, params, terrain, every, parallel):
    frames = [state.pos] if every else None
    for t in range(T):
        state = step(model, state, f(t, state), params, terrain, parallel)
        if every and (t + 1) % every == 0:
            frames.append(state.pos)
    return (state, np.stack(frames)) if every else state


_FLAT = Terrain.flat()
#: the frames argument of a rollout that keeps none
_NO_FRAMES = np.empty((1, 0, 0, 2))
_DEFAULT = SimParams()

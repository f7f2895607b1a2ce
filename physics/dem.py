"""Discrete Element Method contacts (``SimParams(contacts="dem")``, seed 004).

A contact is a stiff spring with a dashpot, instead of a position projection. For sphere i
touching a body (the ground, or sphere j) with overlap ``delta > 0`` along the unit normal n
(pointing toward i), relative velocity ``u = v_i - v_j`` and effective mass
``m = 1 / (w_i + w_j)`` (the sphere's own mass against the ground)::

    F_n = k delta - 2 zeta sqrt(k m) (u . n)                 spring and normal dashpot
    F_t = -min(2 s sqrt(k m) |u_t|, mu max(F_n, 0)) u_t/|u_t|  shear dashpot, Coulomb-capped

on i, and minus that on j: momentum is conserved pair by pair. ``k`` is ``dem_stiffness``,
``zeta`` ``dem_damping``, ``s`` ``dem_shear`` and ``mu`` the spheres' kinetic friction (mixed
as ``sqrt(mu_i mu_j)``, as Box2D mixes friction).

Differences from seed 004, on purpose:

- its dashpot ``eta (v_j - v_i)`` damps the whole relative velocity, so the dashpot also acts as
  a second, unbounded friction; here it acts along the normal only, and the dashpot coefficient
  is a fraction of critical damping, so every pair has the same restitution whatever its masses;
- its shear force ``k_t u_t`` has no Coulomb limit (a sliding contact could hold any load);
- its spatial hash tests a particle only against its own cell: two spheres on either side of a
  cell boundary never collide. The arena here is binned by :func:`physics.collide.build_grid`
  (the engine's own uniform-grid hash, cells of the largest diameter) and every sphere is tested
  against the 3 x 3 cells around it;
- it integrates with forward Euler, which gains energy on any spring; here the forces go through
  the same symplectic (semi-implicit) Euler as the rest of the engine.

Restitution. Between contacts' first touch and their separation the overlap obeys
``m delta'' + c delta' + k delta = 0``, a damped oscillator of ``omega = sqrt(k / m)``; it
leaves after half a damped period with ``e = exp(-zeta pi / sqrt(1 - zeta^2))`` of its approach
speed. The normal force is not clipped at zero, so that this is exactly the model's restitution
(the dashpot pulls slightly in the contact's last moments).

Stable substep. Symplectic Euler on ``x'' = -omega^2 x - 2 zeta omega x'`` is stable for
``omega h < 2 (sqrt(1 + zeta^2) - zeta)`` (2 without damping). One sphere of mass m on the ground
has ``omega^2 = k / m``: hence the critical step ``2 sqrt(m / k)`` for the lightest sphere. But
two spheres touching have ``omega^2 = k (1/m_i + 1/m_j)``, up to ``2 k / m_min``, and a sphere in
a packed pile feels up to six neighbours (hexagonal packing); the pile's stiffest mode (spheres
alternating against each other) then has ``omega^2 <= 2 * 3 k / m_min`` (each neighbour's
spring moves by twice the sphere's displacement, and the six unit normals sum to 3 times the
identity). With ``OMEGA_FACTOR = 6``, ``omega_max = sqrt(6 k / m_min)`` and::

    h_max = 2 (sqrt(1 + zeta^2) - zeta) / omega_max ~ 0.82 sqrt(m_min / k) (sqrt(1 + zeta^2) - zeta)

The margin matters more than the linear analysis says: a contact is one-sided, and where it
starts and ends between substeps it gains energy. Measured on a 1 kg ball resting on the ground
(k = 5e4 N/m, no dashpots, omega = 224 rad/s): at omega h = 1.86 (inside the linear limit of 2)
it was thrown 1.2 m high within 2 s, at 1.24 it jittered by 2 mm, from 0.93 down it rested.

The shear dashpot alone takes ``x / (1 + x / 2)`` of the tangential velocity per substep, with
``x = 2 s omega h`` (the dashpots act on mid-substep velocities, :func:`_pair_force`), which must
stay at most 1, else it reverses the slide instead of stopping it: ``h <= 1 / (s omega_max)``.
:func:`required_substeps` is how many substeps of at most that length a step needs;
:func:`physics.step` uses that many (at least ``params.substeps``) and refuses, with the reason,
anything beyond ``MAX_SUBSTEPS``. Bones stay rigid constraints (projected by
PBD, or solved exactly by Witkin's method), which only lower the frequencies: a constraint
can remove a mode, never stiffen one.
"""

from __future__ import annotations

from collections import namedtuple

import numba
import numpy as np
from numba import njit, prange

from .hot import chunk_lanes, packed_hot_of, packed_workspace_of, whole_eights
from .bones import drive_muscles, rest_of_substep
from .clusters import solve_clusters
from .collide import cell_hash, build_grid
from .integrate import recover_velocity
from .joints import solve_joints
from .layout import by_address, unpack_hot, unpack_work, work_chunks
from .skeleton import factor_skeleton, solve_skeleton
from .terrain import closest_on_terrain, terrain_top

__all__ = ["critical_substep", "required_substeps", "dem_forces", "Spheres", "Law", "step", "MAX_SUBSTEPS", "OMEGA_FACTOR"]

#: the stiffest contact mode is at most sqrt(OMEGA_FACTOR k / m_min) (module docstring)
OMEGA_FACTOR = 6.0
#: more substeps per step than this is refused: the contacts are too stiff for the time step
MAX_SUBSTEPS = 2000


def critical_substep(model, params) -> float:
    """The longest stable substep (s) for ``params``' DEM contacts on ``model``'s spheres (the
    module docstring derives it): the lightest free sphere, the stiffest mode of a packed pile,
    the normal dashpot's and the shear dashpot's limits."""
    free = model.inv_mass > 0.0
    if not free.any():
        return np.inf
    m_min = float(model.mass[free].min())
    omega = np.sqrt(OMEGA_FACTOR * params.dem_stiffness / m_min)
    z = params.dem_damping
    h = 2.0 * (np.sqrt(1.0 + z * z) - z) / omega
    if params.dem_shear > 0.0:
        h = min(h, 1.0 / (params.dem_shear * omega))
    return float(h)


def required_substeps(model, params, limit: float = np.inf) -> int:
    """Substeps per step: ``params.substeps``, or more if the DEM contacts (or ``limit``, another
    stable-substep bound in seconds) need shorter ones. Raises ValueError beyond MAX_SUBSTEPS."""
    h_max = min(limit, critical_substep(model, params) if params.contacts == "dem" else np.inf)
    n = params.substeps
    if np.isfinite(h_max):
        n = max(n, int(np.ceil(params.dt / h_max - 1e-9)))
    if n > MAX_SUBSTEPS:
        raise ValueError(
            f"these settings need substeps of at most {h_max:.3g} s to stay stable, {n} per step of "
            f"{params.dt:.4g} s (more than {MAX_SUBSTEPS}); lower dem_stiffness ({params.dem_stiffness:g} N/m) "
            f"or dt, or make the lightest sphere heavier")
    return n


# ---------------------------------------------------------------------------------------------
# contact forces


@njit(cache=True, error_model="numpy")
def _pair_force(nx, ny, overlap, ux, uy, m_eff, mu, k, zeta, shear, h):
    """The force on a sphere from one contact (module docstring): normal n toward the sphere,
    relative velocity u, effective mass m_eff, substep h. Returns (fx, fy).

    The dashpots see the contact's velocity at mid-substep, not the half-step velocity ``u``
    that the integrator carries (half a substep old): ``u_mid = u + (h / 2) a`` with ``a`` this
    contact's own acceleration, solved for in closed form (``u_mid = (u + h k delta / 2m) /
    (1 + h c / 2m)`` along the normal), which makes the damping second-order accurate. Measured
    on a 1 kg sphere hitting the ground at 1 m/s with 85 substeps per contact: restitution within
    0.2 / 1.3 / 1.7 % of the analytic value for zeta 0.1 / 0.3 / 0.6 (with ``u``: 0.4 / 0.7 /
    7.9 %). Coarser substeps resolve a contact with a handful of substeps, and where it starts
    and ends between them then moves the restitution by tens of percent: the stable substep is
    not an accurate one."""
    crit = 2.0 * np.sqrt(k * m_eff)
    half = 0.5 * h / m_eff
    un = ux * nx + uy * ny
    c_n = zeta * crit
    un_mid = (un + half * k * overlap) / (1.0 + half * c_n)
    fn = k * overlap - c_n * un_mid
    tx = ux - un * nx
    ty = uy - un * ny
    ut = np.sqrt(tx * tx + ty * ty)
    fx = fn * nx
    fy = fn * ny
    if ut > 1e-15:
        c_t = shear * crit
        ft = min(c_t * ut / (1.0 + half * c_t), mu * max(fn, 0.0))
        fx -= ft * tx / ut
        fy -= ft * ty / ut
    return fx, fy


#: what the contact forces read of a batch's spheres, creature-major (B, P) each, and its
#: self-collision pairs (:func:`contact_arrays`)
Spheres = namedtuple("Spheres", "inv_mass radius mu pair_a pair_b")
#: the contact law: normal stiffness (N/m), damping ratio, shear rate, the reach within which a
#: sphere counts as touching the ground (m), and the substep (s)
Law = namedtuple("Law", "k zeta shear slop h")


@njit(cache=True, error_model="numpy")
def dem_creature(b, x, v, F, touching, spheres, terrain, law, ground, self_collision):
    """Contact forces inside creature ``b``: each sphere against the ground (``terrain``: its
    table and blocks), and the model's self-collision pairs. ``x, v, F : (B, P, 2)``; ``F[b]`` is
    overwritten; ``touching[b, i]`` says whether sphere i is within the law's ``slop`` of the
    ground."""
    P = x.shape[1]
    table, blocks = terrain
    inv_mass, radius, mu = spheres.inv_mass, spheres.radius, spheres.mu
    slop = law.slop
    for i in range(P):
        F[b, i, 0] = 0.0
        F[b, i, 1] = 0.0
        touching[b, i] = False
    if ground:
        top = blocks[2]
        for i in range(P):
            w = inv_mass[b, i]
            r = radius[b, i]
            px = x[b, i, 0]
            py = x[b, i, 1]
            if w == 0.0 or py - r - slop > top:
                continue
            if py - r - slop > terrain_top(blocks, px - r, px + r):
                continue
            d, nx, ny = closest_on_terrain(table, px, py, r + slop)
            if d > r + slop:
                continue
            touching[b, i] = True
            if d >= r:
                continue
            fx, fy = _pair_force(nx, ny, r - d, v[b, i, 0], v[b, i, 1], 1.0 / w, mu[b, i], law.k, law.zeta,
                                 law.shear, law.h)
            F[b, i, 0] += fx
            F[b, i, 1] += fy
    if self_collision:
        for c in range(spheres.pair_a.shape[0]):
            i = spheres.pair_a[c]
            j = spheres.pair_b[c]
            _sphere_pair(x, v, F, b, i, b, j, spheres, law)


@njit(cache=True, error_model="numpy")
def _sphere_pair(x, v, F, bi, i, bj, j, spheres, law):
    """Sphere (bi, i) against sphere (bj, j): equal and opposite forces if they overlap."""
    inv_mass, radius, mu = spheres.inv_mass, spheres.radius, spheres.mu
    dx = x[bi, i, 0] - x[bj, j, 0]
    dy = x[bi, i, 1] - x[bj, j, 1]
    reach = radius[bi, i] + radius[bj, j]
    d2 = dx * dx + dy * dy
    if not d2 < reach * reach:   # written so that NaN stays out
        return False
    w = inv_mass[bi, i] + inv_mass[bj, j]
    d = np.sqrt(d2)
    if not (d >= 1e-12 and w > 0.0 and radius[bi, i] > 0.0 and radius[bj, j] > 0.0):  # switched off: no
        return False
    fx, fy = _pair_force(dx / d, dy / d, reach - d, v[bi, i, 0] - v[bj, j, 0], v[bi, i, 1] - v[bj, j, 1],
                         1.0 / w, np.sqrt(mu[bi, i] * mu[bj, j]), law.k, law.zeta, law.shear, law.h)
    F[bi, i, 0] += fx
    F[bi, i, 1] += fy
    F[bj, j, 0] -= fx
    F[bj, j, 1] -= fy
    return True


@njit(cache=True, error_model="numpy")
def dem_arena(x, v, F, spheres, law):
    """Contacts between spheres of different creatures, added to ``F``: the whole batch binned
    in the engine's hashed uniform grid (cells of the largest diameter), each sphere tested
    against the 3 x 3 cells around its own, each pair once, in index order (deterministic).
    Returns the number of touching pairs."""
    B, P = x.shape[0], x.shape[1]
    radius = spheres.radius
    rmax = 0.0
    for b in range(B):
        for i in range(P):
            rmax = max(rmax, radius[b, i])
    cx, cy, start, order = build_grid(x, 2.0 * rmax)
    mask = start.shape[0] - 2
    hits = 0
    for q0 in range(B * P):
        b0 = q0 // P
        i0 = q0 - b0 * P
        for ox in range(-1, 2):
            for oy in range(-1, 2):
                gx = cx[q0] + ox
                gy = cy[q0] + oy
                bucket = cell_hash(gx, gy, mask)
                for s in range(start[bucket], start[bucket + 1]):
                    q1 = order[s]
                    if q1 <= q0 or cx[q1] != gx or cy[q1] != gy:
                        continue
                    b1 = q1 // P
                    if b1 == b0:
                        continue
                    hits += _sphere_pair(x, v, F, b0, i0, b1, q1 - b1 * P, spheres, law)
    return hits


@njit(parallel=True, cache=True, error_model="numpy")
def _dem_forces_parallel(x, v, F, touching, spheres, terrain, law, ground, self_collision, arena):
    for b in prange(x.shape[0]):
        dem_creature(np.int64(b), x, v, F, touching, spheres, terrain, law, ground, self_collision)
    if arena:
        dem_arena(x, v, F, spheres, law)


@njit(cache=True, error_model="numpy")
def dem_forces(x, v, F, touching, spheres, terrain, law, ground, self_collision, arena):
    """All contact forces of a batch (``x, v, F : (B, P, 2)``, ``touching : (B, P)``), one
    creature after the other, then between creatures if ``arena``; the :class:`Law`'s ``h`` is
    the substep."""
    for b in range(x.shape[0]):
        dem_creature(b, x, v, F, touching, spheres, terrain, law, ground, self_collision)
    if arena:
        dem_arena(x, v, F, spheres, law)


# ---------------------------------------------------------------------------------------------
# position-based dynamics with DEM contacts
#
# The PBD stages of physics/step.py, unchanged, on the same lane-major chunks; what differs is
# the order of the loops. DEM contacts between creatures must see every creature's positions at
# every substep, so the substep loop is outside the chunks: per substep, the chunks' state is
# copied to creature-major arrays, the contact forces are computed for the whole batch, and each
# chunk runs one substep (forces and gravity, bones, joints, clusters; no ground or
# self-collision stages: those are forces now).

#: a step's settings as the PBD-with-DEM kernels read them: plain numbers, and the contact
#: law's stiffness, damping ratio and shear rate
Settings = namedtuple("Settings", "dt substeps iterations gravity drag slop ground self_collision arena k zeta shear")


@njit(cache=True, error_model="numpy")
def _begin_chunk(c, start, cmd, out_len, hot, work, dt, packed):
    """Gather chunk ``c`` into its lanes from ``start`` (positions, velocities, muscle lengths);
    drive its muscles and prepare its bones (once a step)."""
    pos, vel, muscle_len = start
    X, V = work.x, work.v
    B, P = pos.shape[0], pos.shape[1]
    lanes = X.shape[3]
    b0 = c * lanes
    n = min(lanes, B - b0)
    m = whole_eights(n)   # its lanes stepped (past n, copies of its last creature: physics/step.py)
    for i in range(P):
        for k in range(2):
            for l in range(m):
                X[c, i, k, l] = pos[b0 + min(l, n - 1), i, k]
                V[c, i, k, l] = vel[b0 + min(l, n - 1), i, k]
    rest = work.bone_rows[c]
    drive_muscles(muscle_len, cmd, out_len, rest, packed, b0, n, dt)
    for e in range(rest.shape[0]):
        for r in range(rest.shape[1]):
            for l in range(n, m):
                rest[e, r, l] = rest[e, r, n - 1]


@njit(cache=True, error_model="numpy")
def _lanes_to_batch(c, work, xb, vb):
    """Copy chunk ``c``'s positions and velocities to creature-major ``xb, vb : (B, P, 2)``."""
    X, V = work.x, work.v
    B, P = xb.shape[0], xb.shape[1]
    lanes = X.shape[3]
    b0 = c * lanes
    n = min(lanes, B - b0)
    for i in range(P):
        for k in range(2):
            for l in range(n):
                xb[b0 + l, i, k] = X[c, i, k, l]
                vb[b0 + l, i, k] = V[c, i, k, l]


@njit(cache=True, error_model="numpy")
def _pbd_substep(c, F, hot, work, h, s, sub, packed, packed_work):
    """PBD substep ``sub`` of ``s.substeps`` of chunk ``c`` with the contact forces ``F : (B, P,
    2)`` applied like gravity in the prediction (symplectic Euler: v += (g + F / m) h; p = x + v h).
    ``packed`` and ``packed_work``: the addresses of the model's packed arrays and of the
    workspace (physics.layout.by_address), which ``hot`` and ``work`` are unpacked from (the
    skeleton's stages unpack them themselves: physics/step.py says why)."""
    iterations, gravity, drag, substeps = s.iterations, s.gravity, s.drag, s.substeps
    P = work.x.shape[1]
    lanes = work.x.shape[3]
    B = F.shape[0]
    b0 = c * lanes
    n = whole_eights(min(lanes, B - b0))   # its lanes (_begin_chunk)
    last = B - 1
    x, p, v, q = work.x[c], work.p[c], work.v[c], work.q[c]
    rest = work.bone_rows[c]
    lam = work.lam_joint[c]
    push, plane = work.push[c], work.plane[c]
    keep = max(0.0, 1.0 - drag * h)
    no = c < 0   # a runtime False: a literal one compiles the callee again (physics/step.py)
    rest_of_substep(rest, hot.muscle_bone, n, sub, substeps, no)
    for i in range(P):
        for k in range(2):
            g = -gravity if k == 1 else 0.0
            for l in range(n):
                w = hot.inv_mass[i, b0 + l]
                vk = (v[i, k, l] + (g + F[min(b0 + l, last), i, k] * w) * h) * keep
                vk = vk if w > 0.0 else 0.0
                v[i, k, l] = vk
                p[i, k, l] = x[i, k, l] + vk * h
    lam[:, :] = 0.0
    # no ground stage here (its contacts are forces): the skeleton holds no sphere
    push[:, :] = 0.0
    work.grip[c][:, :] = 0.0     # (the skeleton's stages read them from the workspace)
    work.lifted[c][:, :] = 0.0
    plane[:, 2, :] = -np.inf
    pulled = work.lam[c]   # each muscle's multiplier so far this substep (held at its strength in all)
    pulled[:, :] = 0.0
    for it in range(iterations):
        if hot.joint_c.shape[0] > 0:
            solve_joints(x, p, q, lam, packed, b0, n, h, no, no)
        if hot.cluster_start.shape[0] > 1:
            solve_clusters(x, p, q, packed, b0, n, no)
        # the skeleton and the muscles together, then the skeleton alone (physics/step.py)
        factor_skeleton(h, packed_work, c, packed, b0, n, it > 0, c >= 0, no)
        solve_skeleton(h, packed_work, c, packed, b0, n, no, no, no)
    recover_velocity(x, p, v, h, n, no)
    for i in range(P):
        for k in range(2):
            for l in range(n):
                x[i, k, l] = p[i, k, l]


@njit(parallel=True, cache=True, error_model="numpy")
def _pbd_dem_parallel(start, end, cmd, hot, work, batch, terrain, settings):
    """A step of the batch, chunks in parallel: ``start`` (pos, vel, muscle_len) into ``end``
    (pos, vel, muscle_len, contact); ``hot``, ``work`` :class:`physics.layout.Packed` buffers;
    ``batch`` the creature-major scratch (positions, velocities, forces) and :class:`Spheres`;
    ``terrain`` (table, blocks); ``settings`` the :class:`Settings`' values (plain tuples: cheaper
    for numba's dispatcher)."""
    s = Settings(*settings)
    xb, vb, F, spheres = batch[0], batch[1], batch[2], Spheres(*batch[3:])
    out_pos, out_vel, out_len, out_contact = end
    chunks = work_chunks(work)   # (the records unpacked inside each loop: physics.layout.work_chunks)
    h = s.dt / s.substeps
    law = Law(s.k, s.zeta, s.shear, s.slop, h)
    for c in prange(chunks):
        _begin_chunk(np.int64(c), start, cmd, out_len, unpack_hot(*hot), unpack_work(*work), s.dt, by_address(hot))
    for sub in range(s.substeps):
        for c in prange(chunks):
            _lanes_to_batch(np.int64(c), unpack_work(*work), xb, vb)
        _dem_forces_parallel(xb, vb, F, out_contact, spheres, terrain, law, s.ground, s.self_collision, s.arena)
        for c in prange(chunks):
            _pbd_substep(np.int64(c), F, unpack_hot(*hot), unpack_work(*work), h, s, sub, by_address(hot),
                         by_address(work))
    for c in prange(chunks):
        _lanes_to_batch(np.int64(c), unpack_work(*work), out_pos, out_vel)


@njit(cache=True, error_model="numpy")
def _pbd_dem_serial(start, end, cmd, hot, work, batch, terrain, settings):
    """:func:`_pbd_dem_parallel` on one thread."""
    packed, packed_work = by_address(hot), by_address(work)   # (the stages take addresses: physics/step.py)
    chunks = work_chunks(work)
    hot, work, s = unpack_hot(*hot), unpack_work(*work), Settings(*settings)
    xb, vb, F, spheres = batch[0], batch[1], batch[2], Spheres(*batch[3:])
    out_pos, out_vel, out_len, out_contact = end
    h = s.dt / s.substeps
    law = Law(s.k, s.zeta, s.shear, s.slop, h)
    for c in range(chunks):
        _begin_chunk(c, start, cmd, out_len, hot, work, s.dt, packed)
    for sub in range(s.substeps):
        for c in range(chunks):
            _lanes_to_batch(c, work, xb, vb)
        dem_forces(xb, vb, F, out_contact, spheres, terrain, law, s.ground, s.self_collision, s.arena)
        for c in range(chunks):
            _pbd_substep(c, F, hot, work, h, s, sub, packed, packed_work)
    for c in range(chunks):
        _lanes_to_batch(c, work, out_pos, out_vel)


@njit(cache=True, error_model="numpy")
def ground_touching(x, touching, inv_mass, radius, table, blocks, slop):
    """Which spheres of ``x : (B, P, 2)`` are within ``slop`` of the ground (the contact sensor)."""
    top = blocks[2]
    for b in range(x.shape[0]):
        for i in range(x.shape[1]):
            r = radius[b, i]
            px = x[b, i, 0]
            py = x[b, i, 1]
            touching[b, i] = False
            if py - r - slop > top or py - r - slop > terrain_top(blocks, px - r, px + r):
                continue
            d, nx, ny = closest_on_terrain(table, px, py, r + slop)
            touching[b, i] = d <= r + slop


def contact_arrays(model) -> tuple:
    """Creature-major arrays the contact kernels read, made writeable and contiguous (a
    read-only array is another numba type, and compiles the kernels again)."""
    return tuple(np.array(a, order="C", copy=True) for a in
                 (model.inv_mass, model.radius, model.kinetic_friction, model.pair_a, model.pair_b))


#: what :func:`advance` needs, made once per (model, settings, threads) (:func:`prepare`): the
#: kernel, the model's packed record and workspace, the creature-major scratch (positions,
#: velocities, forces) and the :class:`Spheres` as the kernel takes them (``batch``), the
#: spheres again, the settings the kernel takes, whether there is ground, the slop
Plan = namedtuple("Plan", "kernel hot work batch spheres settings ground slop")


def prepare(model, params, parallel, substeps=None) -> Plan:
    """The :class:`Plan` for stepping ``model`` with ``params`` (``solver="pbd"``,
    ``contacts="dem"``), substepped as the contacts need. ``substeps`` forces a count, unchecked
    (for experiments on the stability limit)."""
    B, P = model.batch, model.n_spheres
    substeps = substeps or required_substeps(model, params)
    threads = numba.get_num_threads()
    # one thread unless asked: the threaded kernel is a compile of its own (about a minute) for
    # a solver that is there to compare against
    parallel = bool(parallel) and threads > 1
    lanes = chunk_lanes(B, threads if parallel else 1)
    spheres = Spheres(*contact_arrays(model))
    ground = bool(params.ground)
    self_collision = bool(params.self_collision and spheres.pair_a.shape[0] > 0)
    arena = bool(params.arena_collision and B > 1)
    batch = (np.zeros((B, P, 2)), np.zeros((B, P, 2)), np.zeros((B, P, 2))) + tuple(spheres)
    settings = (float(params.dt), int(substeps), int(params.iterations), float(params.gravity), float(params.damping),
                float(params.contact_slop), ground, self_collision, arena, float(params.dem_stiffness),
                float(params.dem_damping), float(params.dem_shear))
    return Plan(_pbd_dem_parallel if parallel else _pbd_dem_serial, tuple(packed_hot_of(model)),
                tuple(packed_workspace_of(model, lanes)), batch, spheres, settings, ground, float(params.contact_slop))


def advance(plan: Plan, model, state, cmd, terrain, dt: float):
    """``state`` one step of ``dt`` on by ``plan``: :func:`physics.step` for ``solver="pbd"``,
    ``contacts="dem"``, the PBD stages with DEM contact forces instead of the ground and
    collision stages."""
    from .state import State
    B, P = state.pos.shape[0], state.pos.shape[1]
    out_pos = np.empty_like(state.pos)
    out_vel = np.empty_like(state.vel)
    out_len = np.empty_like(state.muscle_len)
    out_contact = np.empty((B, P), dtype=np.bool_)
    plan.kernel((state.pos, state.vel, state.muscle_len), (out_pos, out_vel, out_len, out_contact), cmd, plan.hot,
                plan.work, plan.batch, (terrain.table, terrain.blocks), plan.settings)
    if plan.ground:
        ground_touching(out_pos, out_contact, plan.spheres.inv_mass, plan.spheres.radius, terrain.table, terrain.blocks,
                        plan.slop)
    else:
        out_contact[:] = False
    return State(out_pos, out_vel, out_len, out_contact, state.time + dt)


def step(model, state, cmd, params, terrain, parallel, substeps=None):
    """:func:`physics.step` for DEM contacts with a forced count of ``substeps``, unchecked (for
    experiments on the stability limit): :func:`advance` by a :func:`prepare` of its own, kept
    with the model's plans."""
    key = ("dem", params, bool(parallel), substeps)
    plan = model.prepared.plans.get(key)
    if plan is None:
        plan = model.prepared.plans[key] = prepare(model, params, parallel, substeps)
    return advance(plan, model, state, cmd, terrain, params.dt)

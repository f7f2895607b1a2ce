"""The skeleton: every rigid bone and hinge limit of a creature solved together, exactly.

Rigid bones are the one constraint that must hold: a bone that stretches is a body that cheats.
Relaxation sweeps over them converge slowly, and the one that converges fastest, Gauss-Seidel,
depends on the order a design lists its bones: a mirror-symmetric A-frame with one muscle along
its base (which honest physics leaves where it stands) glided 20 m in 20 s one way, and listed the
other way round 20 m the other way; evolution found that. Jacobi sweeps have no order, but held
the walker only within 3 % with 16 substeps. So within each substep the rigid bones ("rods") and
the hinge limits that are violated are one linear system, solved exactly: one Newton step of

    rod e:    C_e = (|p_i - p_j|^2 - r_e^2) / (2 r_e)      (zero exactly where |p_i - p_j| = r_e)
    hinge k:  C_k = theta_k - its limit                    (only while past it)

for multipliers ``lam``, ``A lam = -C`` with ``A = G W G^T``: each row has a gradient ("leg")
``G_rm`` at each of its spheres m (a rod ``+-u_e`` with ``u_e = (x_i - x_j) / r_e``, a hinge the
angle's gradients, joints.py), taken at the substep's start x so that the corrections
``dp_m = W_m sum_r lam_r G_rm`` keep angular momentum (bones.py says why), and they sum to zero
over a row's legs, so momentum is kept exactly. ``A`` is symmetric and as sparse as the
skeleton (two rows couple only where they share a sphere). It is factored as ``L D L^T`` in an
order that keeps L sparse (minimum degree, chosen once per topology by :func:`plan_skeleton`):
a chain, a ladder or a braced torso costs a few operations per row. The solve is the same linear
algebra whatever order a design lists its items in (only the rounding differs), so a mirror image
moves as the mirror image.

**The ground holds what it touches.** The ground is solved just before (contacts.py); a sphere it
pushed this substep, or within ``HOLD_REACH`` of its contact plane, is ``HOLD_MASS`` times
heavier along the contact normal in this solve (``W_m = w_m (I - (1 - 1/HOLD_MASS) n n^T)``),
and one that static friction holds is that much heavier in every direction (else the solve
slid a block resting on a slope it should grip: 1.1 m in 2 s).
Without that the solve moved planted feet and knees back into the ground, the last push-out
moved them out again, and bones ended 2-3 % off; with them held rigidly, a bone standing upright
between two held spheres could only be fixed sideways, a near-zero pivot, and the step blew up.

**The ground only pushes.** A hold works both ways: a sphere held along the normal is as heavy
out of the ground as into it, so the solve could not lift a foot off (an eel lying on its belly
could not bend, a walker could not pick up its feet). So the solve records what it held back
along each normal (``load``), and where that pulled a sphere out of the ground
(contacts.mark_lifted) the substep's solve is done again from the same positions with it free
along the normal (static friction still holds it along the ground for that substep: freed every
way, a planted foot pulled up a little was pushed centimetres into the ground by the rest of the
body). The muscles that were at their strength in the first solve keep the multipliers they had
there (``pin``): solved afresh, a muscle could turn round and push the freed foot into the ground.
The solve done again starts from what each muscle had pulled before the first one (``started``),
so that a creature that lifted nothing is solved again to the same bits (the whole chunk is
solved again when any of its creatures lifted a foot; starting from the first solve's pull
instead, with a second sweep a creature's muscles depended on its neighbours in the batch).

**Redundant rows.** A braced torso has more bones than its spheres need (one redundant bone per
brace): ``A`` is then singular. Every diagonal gets ``REGULARISE`` of itself added (Tikhonov), so
the system has one solution whatever the order of elimination, close to the least-squares one:
the lengths a braced torso cannot all reach at once are shared out among its bones. (Dropping
the row whose pivot vanished instead, as a first version did, left the result depending on
which row the elimination met last, which is the order of the design's bones: a walker's
recorded gait went 9.3 m listed one way and 5.9 m the other.) The multiplier of the singular
direction grows large but moves nothing (it is a self-stress: ``G^T lam = 0``). A hinge within
its limits has no legs and is left out (its multiplier 0).

The plan is flat integer arrays, so that the numeric phase is loops over the creatures' lanes, a
block of them at a time (physics/lanes.py: every creature of a batch shares the topology, so
every lane does the same operations; the hinges' and clusters' rows stay lane loops, an
arctangent or a creature's own anchors a lane).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from .bones import muscle_pull, muscle_softness
from .joints import wrap_angle, joint_angle
from .layout import unpack_hot, unpack_work
from .lanes import block, item, width, where, vmin, vmax, any_lane, stepped, one_at_a_time

__all__ = ["plan_skeleton", "frames_of", "skeleton_scratch", "Scratch", "REGULARISE", "HOLD_MASS", "HOLD_REACH"]

#: every rigid row's diagonal gets this fraction of itself (unheld) added: A is singular for a
#: braced body (see the module). It also leaves a loaded row that much short of its length: at
#: 1e-4 a quadruped's torso frame left its legs' bones 1.7 % off under random muscles (0.48 %
#: at 1e-6, every land design within 0.5 %)
REGULARISE = 1e-6
#: the same for the soft rows that are not muscles (compliant bones, bones that may be switched
#: off): softer, so that two of them asked for lengths the skeleton cannot give at once do not
#: lock (a muscle is a spring of its own: :func:`muscle_softness`)
REGULARISE_SOFT = 0.1
#: a sphere the ground holds is this many times heavier along the contact normal (see the module)
HOLD_MASS = 100.0
#: a sphere within this (m) of its contact plane counts as held, pushed or not
HOLD_REACH = 0.005
_HOLD = float(np.sqrt(1.0 - 1.0 / HOLD_MASS))

#: a chunk's scratch for the skeleton's solve (physics/layout.py's ``sk_*`` fields, one chunk's
#: slice): the inverse masses it gives the spheres, the held normals, the legs and their
#: components along the normals, the factor below its diagonal, the pivots and their inverses,
#: the hinge rows' errors, the multipliers and their correction for clamped muscles, and the
#: inverse mass by which a correction presses each sphere into the ground and slides it along
Scratch = namedtuple("Scratch", "mass normal leg leg_n factor pivot inv_pivot error lam dlam hold")

def frames_of(plan: dict, cluster_start, cluster_sphere, cluster_rest) -> tuple:
    """Each creature's frames of its rigid clusters, from its own rest shapes (``cluster_rest :
    (B, Q, 2)``), so that a creature moves alike whatever batch it is in:
    ``(anchor_a, anchor_b, frame_member, frame_rest)``. A cluster's anchors are the two members
    farthest apart at rest (member ordinals, int64 (K, B) each; the first such pair as listed
    if several are as far); each frame row (plan order) measures, in the frame of its cluster's
    anchors a and b (``u`` from a to b, ``n = (u_y, -u_x)``), the distance a-b (its cluster's
    row 0), or the offset from a of the cluster's j-th other member ``i`` (``frame_member``,
    int64 (F, B), -1 for a row 0) along u (rows 1 + 2j) or along n (rows 2 + 2j); ``frame_rest``
    (F, B) is that measure at rest."""
    rest = np.asarray(cluster_rest, dtype=np.float64)
    B, K = rest.shape[0], len(cluster_start) - 1
    anchor_a = np.zeros((K, B), np.int64)
    anchor_b = np.zeros((K, B), np.int64)
    others = []
    for k in range(K):
        q0, q1 = int(cluster_start[k]), int(cluster_start[k + 1])
        offsets = rest[:, q0:q1]
        m = q1 - q0
        d = np.sqrt(((offsets[:, :, None, :] - offsets[:, None, :, :]) ** 2).sum(-1))   # (B, m, m)
        iu, ju = np.triu_indices(m, k=1)
        best = d[:, iu, ju].argmax(axis=1)    # the first of equals, as listed
        anchor_a[k], anchor_b[k] = iu[best], ju[best]
        rows = np.arange(m)[None, :].repeat(B, 0)
        keep = (rows != anchor_a[k][:, None]) & (rows != anchor_b[k][:, None])
        others.append(rows[keep].reshape(B, m - 2) if m > 2 else np.zeros((B, 0), np.int64))
    F = plan["frame_row"].shape[0]
    member = np.full((F, B), -1, np.int64)
    value = np.zeros((F, B))
    lanes = np.arange(B)
    for t in range(F):
        k, r = int(plan["frame_cluster"][t]), int(plan["frame_r"][t])
        q0 = int(cluster_start[k])
        a = rest[lanes, q0 + anchor_a[k]]
        b = rest[lanes, q0 + anchor_b[k]]
        length = np.sqrt(((b - a) ** 2).sum(-1))
        if r == 0:
            value[t] = length
            continue
        member[t] = others[k][:, (r - 1) // 2]
        u = (b - a) / length[:, None]
        off = rest[lanes, q0 + member[t]] - a
        value[t] = (off * u).sum(-1) if r % 2 == 1 else off[:, 0] * u[:, 1] - off[:, 1] * u[:, 0]
    return anchor_a, anchor_b, member, value


def plan_skeleton(bone_a, bone_b, rigid_bones, soft_bones, joint_a, joint_c, joint_b, joint_limited,
                  n_spheres: int, cluster_start=(0,), cluster_sphere=(), muscle_bones=(), graph=False) -> dict:
    """The symbolic phase: the rows (every rigid bone and rigid cluster's frame, every limited
    joint, then every soft bone), an elimination order (see below), the nonzero pattern of L
    with its fill, and the operation lists of the numeric phase. Int64 arrays, see the module.

    With ``graph``, the plan of a graph (a growing run's: see :func:`physics.build_model`): each
    bone of ``muscle_bones`` is a rod in some creatures and a muscle in others, its row ordered
    with the rods (by minimum degree, whichever it is), its kind read lane by lane
    (``row_muscle`` -2); the factor makes a second factor without each creature's muscle rows
    for the solves of the rods alone (factor_skeleton)."""
    rods = [("rod", int(e), (int(bone_a[e]), int(bone_b[e]))) for e in rigid_bones]
    for k in range(len(cluster_start) - 1):   # each rigid cluster's frame rows (see frames_of)
        members = tuple(int(i) for i in cluster_sphere[int(cluster_start[k]):int(cluster_start[k + 1])])
        rods += [("frame", (k, r), members) for r in range(2 * len(members) - 3)]
    muscles = {int(e) for e in muscle_bones}
    per_lane = bool(graph)
    if per_lane:   # (rods or muscles, creature by creature: rows of the leading block)
        rods += [("soft", int(e), (int(bone_a[e]), int(bone_b[e]))) for e in muscle_bones]
    hinges = [("hinge", k, (int(joint_a[k]), int(joint_b[k]), int(joint_c[k])))
              for k in range(len(joint_c)) if joint_limited[k]]
    # the soft rows: the compliant bones, then the muscles (each as listed): a muscle at its
    # strength is held there and every row before the muscles takes what that leaves
    # (solve_skeleton), the compliant bones too (left as solved with the muscle's whole ask,
    # a compliant leg rang up until the creature flew apart)
    softs = [("soft", int(e), (int(bone_a[e]), int(bone_b[e])))
             for e in [e for e in soft_bones if int(e) not in muscles]
             + ([] if per_lane else [e for e in soft_bones if int(e) in muscles])]
    rows = rods + hinges + softs
    lead = len(rods) + len(hinges)
    fix = lead + sum(1 for _, e, _ in softs if e not in muscles)
    n = len(rows)
    at = [[] for _ in range(n_spheres)]
    for r, (_, _, spheres) in enumerate(rows):
        for s in spheres:
            at[s].append(r)
    graph = [set() for _ in range(n)]
    for rs in at:
        for r1 in rs:
            graph[r1].update(r2 for r2 in rs if r2 != r1)
    # The order: the rods by minimum degree among themselves (the rows of the rigid skeleton,
    # which keeps their factor sparse), then the hinges and then the soft bones each in the
    # order the design lists them. A part a creature switches off (Model.with_values) is a row
    # of zeros, which changes no sum; ordered so, it changes no other row's place either, and a
    # creature with a part switched off moves as the body without it, to the bit.
    alive = {r: {a for a in graph[r] if a < len(rods)} for r in range(len(rods))}
    order = []
    while alive:
        v = min(alive, key=lambda r: (len(alive[r]), r))
        nbrs = alive.pop(v)
        for a in nbrs:
            alive[a].discard(v)
            alive[a].update(nbrs - {a})
        order.append(v)
    order += list(range(len(rods), n))
    # the symbolic elimination in that order: the rows of column k are the neighbours of the
    # row eliminated k-th, at the time
    alive = {r: set(graph[r]) for r in range(n)}
    rows_of = []
    for v in order:
        nbrs = alive.pop(v)
        for a in nbrs:
            alive[a].discard(v)
            alive[a].update(nbrs - {a})
        rows_of.append(nbrs)
    pos = {v: k for k, v in enumerate(order)}
    cols = [sorted(pos[a] for a in nb) for nb in rows_of]   # rows i > k of column k
    col_start, ent_row, entry = [0], [], {}
    for k in range(n):
        for i in [k] + cols[k]:
            entry[(i, k)] = len(ent_row)
            ent_row.append(i)
        col_start.append(len(ent_row))
    # legs, row by row in elimination order
    leg_row, leg_sphere, row_leg_start, legs_at = [], [], [0], {}
    rod_row, rod_bone, rod_a, rod_b, rod_leg = [], [], [], [], []
    soft_row, soft_bone, soft_a, soft_b, soft_leg = [], [], [], [], []
    muscle_of = {int(e): m for m, e in enumerate(muscle_bones)}
    row_muscle = [-1] * n
    hinge_row, hinge_joint, hinge_leg = [], [], []
    frame = {name: [] for name in ("row", "cluster", "r", "leg")}
    for k, v in enumerate(order):
        kind, index, spheres = rows[v]
        if kind == "frame":   # (a leg at every member of the cluster, as listed)
            for name, value in zip(frame, (k, index[0], index[1], len(leg_row))):
                frame[name].append(value)
        elif kind == "rod":
            rod_row.append(k), rod_bone.append(index), rod_a.append(spheres[0]), rod_b.append(spheres[1])
            rod_leg.append(len(leg_row))
        elif kind == "soft":
            soft_row.append(k), soft_bone.append(index), soft_a.append(spheres[0]), soft_b.append(spheres[1])
            soft_leg.append(len(leg_row))
            row_muscle[k] = -2 if per_lane and index in muscles else muscle_of.get(index, -1)
        else:
            hinge_row.append(k), hinge_joint.append(index), hinge_leg.append(len(leg_row))
        for s in spheres:
            legs_at.setdefault(s, []).append(len(leg_row))
            leg_row.append(k)
            leg_sphere.append(s)
        row_leg_start.append(len(leg_row))
    # A's off-diagonal entries: a contribution per sphere two rows share
    asm = []
    for s, legs in legs_at.items():
        for l1 in legs:
            for l2 in legs:
                k1, k2 = leg_row[l1], leg_row[l2]
                if k1 > k2:
                    asm.append((entry[(k1, k2)], l1, l2, s))
    asm.sort()
    # left-looking updates: column k gets, from every earlier column j with L_kj != 0,
    # V[i, k] -= L_ij * (L_kj D_j) for the rows i >= k of column j (pair_* and op_*: a pair (k, j)
    # at a time, each over every block of a chunk, the order factor_skeleton takes for many
    # blocks); and the same updates entry by entry, each entry's in the order of j (upd_*: the
    # order it takes for one block, each entry's sum in a register)
    pair_start, pair_entry, pair_j, pair_op_start, op_target, op_source = [0], [], [], [0], [], []
    below = [[] for _ in range(n)]
    for j in range(n):
        for i in cols[j]:
            below[i].append(j)
    updates = {}
    for k in range(n):
        for j in below[k]:
            pair_entry.append(entry[(k, j)])
            pair_j.append(j)
            for i in cols[j]:
                if i >= k:
                    op_target.append(entry[(i, k)])
                    op_source.append(entry[(i, j)])
                    updates.setdefault(entry[(i, k)], []).append((entry[(i, j)], entry[(k, j)], j))
            pair_op_start.append(len(op_target))
        pair_start.append(len(pair_entry))
    upd_start, upd = [0], []
    for t in range(len(ent_row)):
        upd += updates.get(t, [])
        upd_start.append(len(upd))
    upd = np.array(upd, np.int64).reshape(-1, 3)
    # L's entries below the diagonal row by row, in the order of their columns (the forward
    # substitution, _substitute)
    row_start, row_entry, row_col = [0], [], []
    for i in range(n):
        for j in below[i]:
            row_entry.append(entry[(i, j)])
            row_col.append(j)
        row_start.append(len(row_entry))

    def arr(x):
        return np.array(x, np.int64).reshape(-1)

    asm = np.array(asm, np.int64).reshape(-1, 4)
    return {"sk_col_start": arr(col_start), "sk_ent_row": arr(ent_row), "rod_row": arr(rod_row),
            "rod_bone": arr(rod_bone), "rod_a": arr(rod_a), "rod_b": arr(rod_b), "rod_leg": arr(rod_leg),
            "hinge_row": arr(hinge_row), "hinge_joint": arr(hinge_joint), "hinge_leg": arr(hinge_leg),
            "leg_row": arr(leg_row), "leg_sphere": arr(leg_sphere), "row_leg_start": arr(row_leg_start),
            "asm_entry": asm[:, 0].copy(), "asm_leg1": asm[:, 1].copy(), "asm_leg2": asm[:, 2].copy(),
            "asm_sphere": asm[:, 3].copy(), "pair_start": arr(pair_start), "pair_entry": arr(pair_entry),
            "pair_j": arr(pair_j), "pair_op_start": arr(pair_op_start), "op_target": arr(op_target),
            "op_source": arr(op_source), "upd_start": arr(upd_start), "upd_source": upd[:, 0].copy(),
            "upd_entry": upd[:, 1].copy(), "upd_j": upd[:, 2].copy(), "sk_row_start": arr(row_start),
            "sk_row_entry": arr(row_entry), "sk_row_col": arr(row_col), "soft_row": arr(soft_row),
            "soft_bone": arr(soft_bone), "soft_a": arr(soft_a), "soft_b": arr(soft_b), "soft_leg": arr(soft_leg),
            "sk_lead": arr([lead, fix, int(per_lane)]),
            "row_muscle": arr(row_muscle),
            **{"frame_" + name: arr(value) for name, value in frame.items()}}


@njit(cache=True, error_model="numpy")
def skeleton_scratch(work, c):
    """Chunk ``c``'s :class:`Scratch` (views of the :data:`physics.layout.Work` record's)."""
    return Scratch(work.sk_mass[c], work.sk_normal[c], work.sk_leg[c], work.sk_leg_n[c], work.sk_factor[c],
                   work.sk_pivot[c], work.sk_inv_pivot[c], work.sk_error[c], work.sk_lam[c], work.sk_dlam[c],
                   work.sk_hold[c])


@njit(cache=True, error_model="numpy")
def factor_skeleton(h, packed_work, c, packed, b0, n, again, legs, single, graph=None):
    """Assemble ``A`` at the substep's start ``x`` and factor it, for the positions ``p`` the
    sweeps have reached (which hinges are past their limits, which spheres the ground holds), for
    chunk ``c`` (creatures ``b0`` to ``b0 + n - 1``). ``packed`` and ``packed_work``: the model's
    arrays and the workspace as packed buffers (:func:`physics.hot.packed_hot_of`,
    :func:`physics.hot.packed_workspace_of`), or their addresses (:func:`physics.layout.by_address`,
    as the step hands them), unpacked here: a call costs what its arguments cost to hand on, each
    array seven or more words, an address one (the unpacked model's record, 77 arrays, about
    0.5 us whatever the call did; the chunk's 17 arrays this stage reads, a sixth of a one-creature
    step), and these stages are called several times a substep.

    It reads the chunk's ``x``, ``v`` and ``p``, ``push : (P, LANES)`` (the ground's push this
    substep), ``grip`` and ``lifted``, and ``plane : (P, 3, LANES)`` (the contact planes). Out, in
    the chunk's :class:`Scratch`: ``N : (P, 2, LANES)`` each sphere's held normal (scaled, 0 if not held), ``G :
    (legs, 2, LANES)`` the legs and ``Gn : (legs, LANES)`` their components along N, ``V : (nnz,
    LANES)`` L below its diagonal, ``PV, D : (R, LANES)`` the pivots and their inverses (0 for a
    dropped row), ``C : (R, LANES)`` the hinge rows' errors. The legs of the rods, the clusters'
    frames and the soft bones depend on ``x`` alone: with ``legs`` False they are left as the
    chunk's factor before took them in this substep (the solve done again for a lifted foot, the
    hinges done again), and only the hinges' are taken again (they are taken at ``p``)."""
    n = stepped(single, n)   # (a constant in the steps compiled for one creature or one block: physics/step.py)
    hot, work = unpack_hot(*packed), unpack_work(*packed_work)
    R = hot.sk_col_start.shape[0] - 1
    if R == 0:
        return
    x, v, p, plane = work.x[c], work.v[c], work.p[c], work.plane[c]
    held, grip, lifted = work.push[c], work.grip[c], work.lifted[c]
    sk = skeleton_scratch(work, c)
    c_ = c   # (``c`` is a plane's offset below)
    WS, N, G, Gn, V, PV, D, C = sk.mass, sk.normal, sk.leg, sk.leg_n, sk.factor, sk.pivot, sk.inv_pivot, sk.error
    hold = sk.hold
    inv_mass = hot.inv_mass
    W = width(single)
    for i in range(N.shape[0]):
        nx = plane[i, 0]
        ny = plane[i, 1]
        c = plane[i, 2]
        px = p[i, 0]
        py = p[i, 1]
        push = held[i]
        static = grip[i]
        free = lifted[i]
        hx = N[i, 0]
        hy = N[i, 1]
        ws = WS[i, 0]
        wn = WS[i, 1]
        into = hold[i, 0]
        slide = hold[i, 1]
        w = inv_mass[i, b0:b0 + n]
        for l0 in range(0, n, W):
            l = block(l0, single)
            # on the ground: pushed by it this substep, or within HOLD_REACH of it now, at the
            # substep's start or where it was going before the sweeps (a knee the muscles lift
            # off the ground is still on it for the solve, which would otherwise press it into
            # the ground for the last push-out to undo)
            gx = x[i, 0, l] + v[i, 0, l] * h
            gy = x[i, 1, l] + v[i, 1, l] * h
            gap = vmin(vmin(nx[l] * px[l] + ny[l] * py[l], nx[l] * x[i, 0, l] + ny[l] * x[i, 1, l]),
                       nx[l] * gx + ny[l] * gy) - c[l]
            # One the last solve pulled out of the ground is free along the normal (the ground
            # only pushes); static friction still holds it along the ground this substep
            # (freed every way, a planted foot pulled up a little was pushed down by the rest of
            # the body, centimetres, into the ground).
            lift = free[l] > 0.0
            gripped = (static[l] > 0.0) & (~lift)
            slides = (static[l] > 0.0) & lift
            on = ((push[l] > 0.0) | (gap <= HOLD_REACH)) & (static[l] == 0.0) & (~lift)
            wl = w[l]
            hx[l] = where(on, nx[l] * _HOLD, where(slides, -ny[l] * _HOLD, 0.0))
            hy[l] = where(on, ny[l] * _HOLD, where(slides, nx[l] * _HOLD, 0.0))
            ws[l] = where(gripped, wl * (1.0 / HOLD_MASS), wl)
            wn[l] = where(on | slides | gripped, wl * (1.0 / HOLD_MASS), wl)
            # the inverse mass by which the solve's corrections press the sphere into the ground
            # where the ground holds it along the normal or every way, and slide it along the ground
            # where friction holds the slide or every way (the load, solve_skeleton: once here, not
            # for each leg at each solve)
            into[l] = where(on | gripped, wl, 0.0)
            slide[l] = where(slides | gripped, wl, 0.0)
    # the rods', the clusters' frames' and the soft bones' legs (taken at x: with ``legs`` False,
    # the ones the chunk's last factor took this substep, as they are)
    if legs:
        for t in range(hot.rod_row.shape[0]):
            a = hot.rod_a[t]
            b = hot.rod_b[t]
            g = hot.rod_leg[t]
            e = hot.rod_bone[t]
            bone_on = hot.bone_on[e, b0:b0 + n]   # (the creatures' arrays as views from b0)
            inv_rest = hot.rod_inv_rest[t, b0:b0 + n]
            # a bone switched off (no force: Model.with_values) has no legs, so no row
            for k in range(2):
                ga, gb, xa, xb = G[g, k], G[g + 1, k], x[a, k], x[b, k]
                for l0 in range(0, n, W):
                    l = block(l0, single)
                    d = where(bone_on[l], (xa[l] - xb[l]) * inv_rest[l], 0.0)
                    ga[l] = d
                    gb[l] = -d
        for t in range(hot.frame_row.shape[0]):
            # a rigid cluster's frame row (see frames_of), each creature by its own anchors: legs
            # (the gradients of the distance a-b, or of s = (x_i - x_a).u and t = (x_i - x_a).n, at
            # x) at a, b and i, zero at the other members. A cluster a creature has soft (stiffness
            # < 1) or without an anchor (switched off) has no rows there, and is shape-matched
            # (clusters.py)
            k = hot.frame_cluster[t]
            r = hot.frame_r[t]
            q0 = hot.cluster_start[k]
            m = hot.cluster_start[k + 1] - q0
            g = hot.frame_leg[t]
            for l in range(n):
                b_ = b0 + l
                for o in range(m):
                    G[g + o, 0, l] = 0.0
                    G[g + o, 1, l] = 0.0
                oa = hot.anchor_a[k, b_]
                ob = hot.anchor_b[k, b_]
                a = hot.cluster_sphere[q0 + oa]
                b = hot.cluster_sphere[q0 + ob]
                on = (hot.cluster_stiffness[k, b_] >= 1.0) & (hot.mass[a, b_] > 0.0) & (hot.mass[b, b_] > 0.0)
                dx = x[b, 0, l] - x[a, 0, l]
                dy = x[b, 1, l] - x[a, 1, l]
                length = np.sqrt(dx * dx + dy * dy)
                if not (on and length > 1e-12):
                    continue
                ux = dx / length
                uy = dy / length
                if r == 0:
                    G[g + oa, 0, l] = -ux
                    G[g + oa, 1, l] = -uy
                    G[g + ob, 0, l] = ux
                    G[g + ob, 1, l] = uy
                    continue
                oi = hot.frame_member[t, b_]
                i = hot.cluster_sphere[q0 + oi]
                if not (hot.mass[i, b_] > 0.0):
                    continue
                nx = uy
                ny = -ux
                rx = x[i, 0, l] - x[a, 0, l]
                ry = x[i, 1, l] - x[a, 1, l]
                if r % 2 == 1:   # s: u at i, t n / L at b
                    cx = ux
                    cy = uy
                    f = (rx * nx + ry * ny) / length
                else:            # t: n at i, -s n / L at b
                    cx = nx
                    cy = ny
                    f = -(rx * ux + ry * uy) / length
                G[g + oi, 0, l] = cx
                G[g + oi, 1, l] = cy
                G[g + ob, 0, l] = f * nx
                G[g + ob, 1, l] = f * ny
                G[g + oa, 0, l] = -cx - f * nx
                G[g + oa, 1, l] = -cy - f * ny
        for t in range(hot.soft_row.shape[0]):
            a = hot.soft_a[t]
            b = hot.soft_b[t]
            g = hot.soft_leg[t]
            on = hot.bone_on[hot.soft_bone[t], b0:b0 + n]
            for l0 in range(0, n, W):
                l = block(l0, single)
                dx = x[a, 0, l] - x[b, 0, l]
                dy = x[a, 1, l] - x[b, 1, l]
                d = np.sqrt(dx * dx + dy * dy)
                # (a bone switched off, or of no length, has no row)
                il = where(on[l] & (d > 1e-12), 1.0 / d, 0.0)
                G[g, 0, l] = dx * il
                G[g + 1, 0, l] = -dx * il
                G[g, 1, l] = dy * il
                G[g + 1, 1, l] = -dy * il
    for t in range(hot.hinge_row.shape[0]):
        k = hot.hinge_row[t]
        j = hot.hinge_joint[t]
        a = hot.joint_a[j]
        c = hot.joint_c[j]
        b = hot.joint_b[j]
        g = hot.hinge_leg[t]
        for l in range(n):
            ux = x[a, 0, l] - x[c, 0, l]
            uy = x[a, 1, l] - x[c, 1, l]
            vx = x[b, 0, l] - x[c, 0, l]
            vy = x[b, 1, l] - x[c, 1, l]
            uu = ux * ux + uy * uy
            vv = vx * vx + vy * vy
            theta = joint_angle(p[a, 0, l], p[a, 1, l], p[c, 0, l], p[c, 1, l], p[b, 0, l], p[b, 1, l])
            lo = hot.joint_min[j, b0 + l]
            hi = hot.joint_max[j, b0 + l]
            # the distance to each limit the short way round (a limit near +-180 degrees): a
            # hinge past a limit is brought back to it; ``again``, one the solve before brought
            # back stays at its limit
            dlo = wrap_angle(theta - lo)
            dhi = wrap_angle(theta - hi)
            d = dlo if abs(dlo) <= abs(dhi) else dhi
            past = (theta < lo) | (theta > hi)
            was = again and (PV[k, l] > 0.0)
            # (limits all the way round are none: a joint switched off has them, Model.with_values)
            limited = (lo > -np.pi) | (hi < np.pi)
            ok = (past | was) & (uu > 1e-18) & (vv > 1e-18) & limited
            C[k, l] = d if ok else 0.0
            iu = 1.0 / uu if ok else 0.0
            iv = 1.0 / vv if ok else 0.0
            G[g, 0, l] = uy * iu
            G[g, 1, l] = -ux * iu
            G[g + 1, 0, l] = -vy * iv
            G[g + 1, 1, l] = vx * iv
            G[g + 2, 0, l] = -(uy * iu - vy * iv)
            G[g + 2, 1, l] = -(-ux * iu + vx * iv)
    for g in range(G.shape[0]):
        m = hot.leg_sphere[g]
        for l0 in range(0, n, W):
            l = block(l0, single)
            Gn[g, l] = G[g, 0, l] * N[m, 0, l] + G[g, 1, l] * N[m, 1, l]
    # the diagonal, then the off-diagonal entries of each column
    # (rows indexed in place, not through views: for one creature a view's set-up cost as much
    # as its loop)
    for k in range(R):
        c0 = hot.sk_col_start[k]
        for l0 in range(0, n, W):
            l = block(l0, single)
            V[c0, l] = 0.0
            PV[k, l] = 0.0   # for now: the diagonal the row would have unheld (the pivot's scale)
        for g in range(item(hot.row_leg_start, k), item(hot.row_leg_start, k + 1)):
            m = item(hot.leg_sphere, g)
            w = inv_mass[m, b0:b0 + n]
            for l0 in range(0, n, W):
                l = block(l0, single)
                gg = G[g, 0, l] * G[g, 0, l] + G[g, 1, l] * G[g, 1, l]
                V[c0, l] += WS[m, 0, l] * (gg - Gn[g, l] * Gn[g, l])
                PV[k, l] += w[l] * gg
        for t in range(c0 + 1, hot.sk_col_start[k + 1]):
            for l0 in range(0, n, W):
                l = block(l0, single)
                V[t, l] = 0.0
    inv_h2 = 1.0 / (h * h)
    for t in range(hot.soft_row.shape[0]):   # XPBD compliance (compliant bones)
        diag = V[hot.sk_col_start[hot.soft_row[t]]]
        comp = hot.bone_compliance[hot.soft_bone[t], b0:b0 + n]
        for l0 in range(0, n, W):
            l = block(l0, single)
            diag[l] += comp[l] * inv_h2
    for s in range(hot.asm_entry.shape[0]):
        t = item(hot.asm_entry, s)
        g1 = item(hot.asm_leg1, s)
        g2 = item(hot.asm_leg2, s)
        m = item(hot.asm_sphere, s)
        for l0 in range(0, n, W):
            l = block(l0, single)
            V[t, l] += WS[m, 0, l] * (G[g1, 0, l] * G[g2, 0, l] + G[g1, 1, l] * G[g2, 1, l] - Gn[g1, l] * Gn[g2, l])
    if (graph is not None):   # a graph's: its rods alone, each creature's muscle rows out (their pivots 0)
        _factor_rods(h, packed_work, c_, packed, b0, n, single)
    _eliminate(V, PV, D, hot, h, b0, n, W, single, None, graph)


@njit(cache=True, error_model="numpy")
def _factor_rods(h, packed_work, c, packed, b0, n, single):
    """A graph's second factor (``sk_factor2``, ``sk_pivot2``, ``sk_inv_pivot2``): chunk ``c``'s
    assembled system with each creature's muscle rows taken out (their entries 0, their pivots
    0: a row dropped), for the solves of its rods alone (:func:`solve_skeleton`). A function of
    its own, called only for a graph's plan: inlined, its code cost the other plans' factor 8 %
    at one block."""
    n = stepped(single, n)
    hot, work = unpack_hot(*packed), unpack_work(*packed_work)
    R = hot.sk_col_start.shape[0] - 1
    W = width(single)
    V, PV = work.sk_factor[c], work.sk_pivot[c]
    V2, PV2 = work.sk_factor2[c], work.sk_pivot2[c]
    for k in range(R):
        mk = hot.row_is_muscle[k, b0:b0 + n]
        for t in range(hot.sk_col_start[k], hot.sk_col_start[k + 1]):
            mi = hot.row_is_muscle[hot.sk_ent_row[t], b0:b0 + n]
            for l0 in range(0, n, W):
                l = block(l0, single)
                V2[t, l] = where(mi[l] | mk[l], 0.0, V[t, l])
        for l0 in range(0, n, W):
            l = block(l0, single)
            PV2[k, l] = where(mk[l], 0.0, PV[k, l])
    _eliminate(V2, PV2, work.sk_inv_pivot2[c], hot, h, b0, n, W, single, (), ())


@njit(cache=True, error_model="numpy", inline="always")
def _eliminate(V, PV, D, hot, h, b0, n, W, single, rods, graph):
    """Left-looking L D L^T of ``V`` (``PV``: each row's unheld diagonal, 0 for a row dropped):
    for one block an entry at a time, its updates summed in a register; for many, a pair of
    columns at a time over every block (the order the cache likes). With ``rods`` (``()``, else
    None), a graph's second factor. (A graph's code is under ``graph is not None``, which numba
    prunes in the other plans' steps: as an LLVM-folded constant it cost one creature 15-20 %.)"""
    R = hot.sk_col_start.shape[0] - 1
    few = one_at_a_time(single)
    for k in range(R):
        c0, c1 = hot.sk_col_start[k], hot.sk_col_start[k + 1]
        if few:
            for t in range(c0, c1):
                o0, o1 = item(hot.upd_start, t), item(hot.upd_start, t + 1)
                for l0 in range(0, n, W):
                    l = block(l0, single)
                    total = V[t, l]
                    for o in range(o0, o1):
                        source, e, j = item(hot.upd_source, o), item(hot.upd_entry, o), item(hot.upd_j, o)
                        total = total - V[source, l] * V[e, l] * PV[j, l]
                    V[t, l] = total
        else:
            for pr in range(item(hot.pair_start, k), item(hot.pair_start, k + 1)):
                e = item(hot.pair_entry, pr)
                j = item(hot.pair_j, pr)
                for o in range(item(hot.pair_op_start, pr), item(hot.pair_op_start, pr + 1)):
                    target = item(hot.op_target, o)
                    source = item(hot.op_source, o)
                    for l0 in range(0, n, W):
                        l = block(l0, single)
                        V[target, l] -= V[source, l] * V[e, l] * PV[j, l]
        eps = REGULARISE_SOFT if k >= hot.sk_lead[0] else REGULARISE
        if rods is not None:   # (a second factor's rows: rods, their muscles out)
            m = -1
        else:
            m = hot.row_muscle[k]
        if m >= 0:   # a muscle: its spring and dashpot (physics/bones.py)
            omega = hot.muscle_omega[m, b0:b0 + n]
            zeta = hot.muscle_damping[m, b0:b0 + n]
            for l0 in range(0, n, W):
                l = block(l0, single)
                keep = PV[k, l] > 0.0
                piv = V[c0, l] + muscle_softness(h * omega[l], zeta[l]) * PV[k, l]
                D[k, l] = where(keep, 1.0 / piv, 0.0)
                PV[k, l] = where(keep, piv, 0.0)
        elif (graph is not None) and m == -2:   # a graph's bone: a muscle in some creatures, a rod in the others
            muscle = hot.row_is_muscle[k, b0:b0 + n]
            omega, zeta = hot.row_omega[k, b0:b0 + n], hot.row_zeta[k, b0:b0 + n]
            for l0 in range(0, n, W):
                l = block(l0, single)
                keep = PV[k, l] > 0.0
                piv = V[c0, l] + where(muscle[l], muscle_softness(h * omega[l], zeta[l]), eps) * PV[k, l]
                D[k, l] = where(keep, 1.0 / piv, 0.0)
                PV[k, l] = where(keep, piv, 0.0)
        else:
            for l0 in range(0, n, W):
                l = block(l0, single)
                keep = PV[k, l] > 0.0
                piv = V[c0, l] + eps * PV[k, l]
                D[k, l] = where(keep, 1.0 / piv, 0.0)
                PV[k, l] = where(keep, piv, 0.0)
        for t in range(c0 + 1, c1):
            for l0 in range(0, n, W):
                l = block(l0, single)
                V[t, l] *= D[k, l]


@njit(cache=True, error_model="numpy")
def _substitute(lam, V, D, plan, R, n, single):
    """``lam`` := A^-1 lam for the first ``R`` rows (all of them, or the leading block, whose
    factor is the leading part of L: the soft rows come last): L y = lam, then z = y / D and
    L^T x = z backwards. ``plan``: the factor's entries by columns (``sk_col_start``,
    ``sk_ent_row``) and by rows (``sk_row_start``, ``sk_row_entry``, ``sk_row_col``). Each row's
    sum is kept in a register a block at a time, its terms in the order of their columns (through
    memory, each term waited for the store of the one before). (Indexed in place rather than
    through row views: for one creature a view's set-up cost as much as its loop.)"""
    n = stepped(single, n)   # (a constant in the steps compiled for one creature or one block: physics/step.py)
    W = width(single)
    col_start, ent_row, row_start, row_entry, row_col = plan
    for i in range(R):
        first, last = item(row_start, i), item(row_start, i + 1)
        if one_at_a_time(single):
            for l0 in range(0, n, W):
                l = block(l0, single)
                total = lam[i, l]
                for t in range(first, last):
                    total = total - V[item(row_entry, t), l] * lam[item(row_col, t), l]
                lam[i, l] = total
        else:
            for t in range(first, last):
                e, k = item(row_entry, t), item(row_col, t)
                for l0 in range(0, n, W):
                    l = block(l0, single)
                    lam[i, l] -= V[e, l] * lam[k, l]
    for k in range(R - 1, -1, -1):
        first, last = item(col_start, k) + 1, item(col_start, k + 1)
        for l0 in range(0, n, W):
            l = block(l0, single)
            total = lam[k, l] * D[k, l]
            for t in range(first, last):
                i = item(ent_row, t)
                if i >= R:
                    break
                total = total - V[t, l] * lam[i, l]
            lam[k, l] = total


@njit(cache=True, error_model="numpy", inline="always")
def _clamp(f, muscle, l, k, e, g, pin, lam, dlam, pulled, started, move, legs, hot):
    """Soft row ``k`` (bone ``e``, legs ``g`` and ``g + 1``) in block ``l`` held to ``f``, its
    force limit times h^2 (``muscle``: a muscle's, bounded by its own demand, :func:`_bounds`);
    what the clamp takes off moves its two spheres (``move``; ``legs``: the spheres' weights
    ``WS``, the legs ``G`` with their normal parts ``Gn`` and the held normals ``N``). Whether it
    held any lane back."""
    WS, G, Gn, N = legs
    pl = pulled[e, l]
    base = started[e, l] if pin else pl
    total = base + lam[k, l]
    was = (abs(pl) >= f) & pin
    lo, hi = _bounds(f, total, dlam[k, l], muscle)
    held = where(was, pl, vmin(hi, vmax(lo, total)))
    cut = held - total
    lam[k, l] = held - base
    pulled[e, l] = held
    ma = hot.leg_sphere[g]
    mb = hot.leg_sphere[g + 1]
    wa = WS[ma, 0, l] * cut
    move[ma, 0, l] += wa * (G[g, 0, l] - Gn[g, l] * N[ma, 0, l])
    move[ma, 1, l] += wa * (G[g, 1, l] - Gn[g, l] * N[ma, 1, l])
    wb = WS[mb, 0, l] * cut
    move[mb, 0, l] += wb * (G[g + 1, 0, l] - Gn[g + 1, l] * N[mb, 0, l])
    move[mb, 1, l] += wb * (G[g + 1, 1, l] - Gn[g + 1, l] * N[mb, 1, l])
    return any_lane(held != total)


@njit(cache=True, error_model="numpy")
def _solve_rods(packed_work, c, packed, b0, n, single):
    """A graph's solve of its leading block alone (:func:`solve_skeleton`'s ``lead_only``): its
    bones' right-hand sides (a rod's length to go; a muscle's row out, 0) beside the rods', frames'
    and hinges' the solve set, solved by the second factor (:func:`_factor_rods`). A function of
    its own, called only for a graph's plan (physics/skeleton.py's factor says why)."""
    n = stepped(single, n)
    hot, work = unpack_hot(*packed), unpack_work(*packed_work)
    W = width(single)
    lead = hot.sk_lead[0]
    p, G, lam, rest = work.p[c], work.sk_leg[c], work.sk_lam[c], work.bone_rows[c]
    for t in range(hot.soft_row.shape[0]):
        k = hot.soft_row[t]
        if k >= lead:
            continue
        a, b, e, g = hot.soft_a[t], hot.soft_b[t], hot.soft_bone[t], hot.soft_leg[t]
        muscle = hot.row_is_muscle[k, b0:b0 + n]
        for l0 in range(0, n, W):
            l = block(l0, single)
            d, along = _length_along(p, G, a, b, g, l)
            lam[k, l] = where(muscle[l], 0.0, (rest[e, 2, l] - d) * along)
    plan = (hot.sk_col_start, hot.sk_ent_row, hot.sk_row_start, hot.sk_row_entry, hot.sk_row_col)
    _substitute(lam, work.sk_factor2[c], work.sk_inv_pivot2[c], plan, lead, n, single)


@njit(cache=True, error_model="numpy")
def _correct_rods(packed_work, c, packed, b0, n, single, fix):
    """A graph's correction for its muscles at their strength (:func:`solve_skeleton`) of its
    first ``fix`` rows (the rows the correction fixes: what the rows after them hold is not a
    right-hand side, and a lane that clamped nothing must get nothing): each creature's muscle
    rows out of the right-hand side ``dlam`` (0), solved by the second factor."""
    n = stepped(single, n)
    hot, work = unpack_hot(*packed), unpack_work(*packed_work)
    W = width(single)
    dlam = work.sk_dlam[c]
    for k in range(fix):
        muscle = hot.row_is_muscle[k, b0:b0 + n]
        for l0 in range(0, n, W):
            l = block(l0, single)
            dlam[k, l] = where(muscle[l], 0.0, dlam[k, l])
    plan = (hot.sk_col_start, hot.sk_ent_row, hot.sk_row_start, hot.sk_row_entry, hot.sk_row_col)
    _substitute(dlam, work.sk_factor2[c], work.sk_inv_pivot2[c], plan, fix, n, single)


@njit(cache=True, error_model="numpy", inline="always")
def _length_along(p, G, a, b, g, l):
    """Row ``g``'s bone between spheres ``a`` and ``b`` in lane ``l``: its length at ``p``, and how
    far a correction along its leg (taken at the substep's start) shortens it, ``cos(turn)``
    clipped to [0, 1] (the bone turned since the substep's start; never past 90 degrees)."""
    dx = p[a, 0, l] - p[b, 0, l]
    dy = p[a, 1, l] - p[b, 1, l]
    d = np.sqrt(dx * dx + dy * dy)
    slope = where(d > 1e-12, (dx * G[g, 0, l] + dy * G[g, 1, l]) / d, 0.0)
    return d, vmin(1.0, vmax(0.0, slope))


@njit(cache=True, error_model="numpy", inline="always")
def _bounds(f, total, demand, muscle):
    """The bounds of a soft row's multiplier: ``-f`` and ``f`` (its strength, ``f = 0`` for a bone
    switched off); a muscle past its strength (``|total| > f``) is held at its strength on the side
    of its own ``demand`` (its right-hand side before the coupled solve), or at 0 where the
    coupled solve asked it to push against that. (Clamped each on its own, two nearly parallel
    muscles of a flat triangle were held at +f and -f, one pulling and one pushing, and the far
    sphere, feeling nearly nothing, drifted away: docs/limits.md.)"""
    over = (abs(total) > f) & muscle
    lo = where(over & (demand > 0.0), 0.0, -f)
    hi = where(over & (demand < 0.0), 0.0, f)
    return lo, hi


@njit(cache=True, error_model="numpy")
def solve_skeleton(h, packed_work, c, packed, b0, n, lead_only, pin, single, graph=None):
    """One Newton step of every row at once (the module says how): the errors at ``p`` (the
    hinges' are in ``C``, from :func:`factor_skeleton`), the factored system solved for ``lam :
    (R, LANES)``, and the corrections added to ``p``, for chunk ``c``, its arrays in the packed
    workspace (:func:`factor_skeleton` says why: ``p``, ``x``, the muscles' rest lengths
    ``bone_rows``, ``plane``, ``load``, ``q`` as ``move``, ``lam`` as ``pulled``, and
    ``pulled_before`` as ``started``). With ``lead_only``, the rods and hinges alone (the soft
    rows as they are).

    A muscle asked for more than its strength is held at its strength (its multiplier clamped;
    on the side of its own demand, or at 0 where the coupled solve asked it to push against
    that: :func:`_bounds`), and the rods, hinges and compliant bones take what that leaves: their multipliers are
    corrected by the leading block's solve of ``A_ll dlam = -A_ls (clamped - asked)`` (the
    muscles come last, plan_skeleton), the product computed as
    the displacement ``move : (P, 2, LANES)`` the change of the soft multipliers would make,
    seen along the leading rows' legs. (Moving the spheres by the clamped muscles first and
    solving the rods after, the same thing to first order, carried a swimming eel's light ribs
    many times as far as the body would let them, and the rods could not be put back.)

    What the ground held back of the corrections along its normals (``plane``) is added to
    ``load[:, 0] : (P, LANES)`` (into the ground: positive), and what static friction held back
    along the ground (a gripped sphere is heavy every way) to ``load[:, 1]`` (along the tangent
    ``(-n_y, n_x)``), for friction (contacts.py).

    ``pulled : (E, LANES)`` is each muscle's multiplier so far this substep, updated; with ``pin``
    (the solve done again, the module says why) the multipliers start from ``started`` (what
    ``pulled`` was before the first solve) and a muscle the first solve held at its strength
    keeps that."""
    n = stepped(single, n)   # (a constant in the steps compiled for one creature or one block: physics/step.py)
    hot, work = unpack_hot(*packed), unpack_work(*packed_work)
    R = hot.sk_col_start.shape[0] - 1
    if R == 0:
        return
    p, x, rest, plane, load, move = work.p[c], work.x[c], work.bone_rows[c], work.plane[c], work.load[c], work.q[c]
    pulled, started = work.lam[c], work.pulled_before[c]
    sk = skeleton_scratch(work, c)
    c_ = c   # (``c`` is a cluster's index below)
    WS, N, G, Gn, V, D, C, lam, dlam = sk.mass, sk.normal, sk.leg, sk.leg_n, sk.factor, sk.inv_pivot, sk.error, sk.lam, sk.dlam
    lead = hot.sk_lead[0]
    plan = (hot.sk_col_start, hot.sk_ent_row, hot.sk_row_start, hot.sk_row_entry, hot.sk_row_col)
    W = width(single)
    for t in range(hot.rod_row.shape[0]):
        k = hot.rod_row[t]
        e = hot.rod_bone[t]
        a = hot.rod_a[t]
        b = hot.rod_b[t]
        g = hot.rod_leg[t]
        bone_rest = hot.bone_rest[e, b0:b0 + n]
        for l0 in range(0, n, W):
            l = block(l0, single)
            # C = |d| - r, taken as far as a correction along u shortens it
            d, along = _length_along(p, G, a, b, g, l)
            lam[k, l] = (bone_rest[l] - d) * along
    for t in range(hot.frame_row.shape[0]):
        c = hot.frame_cluster[t]
        r = hot.frame_r[t]
        q0 = hot.cluster_start[c]
        rhs = lam[hot.frame_row[t]]
        target = hot.frame_rest[t, b0:b0 + n]
        for l in range(n):
            a = hot.cluster_sphere[q0 + hot.anchor_a[c, b0 + l]]
            b = hot.cluster_sphere[q0 + hot.anchor_b[c, b0 + l]]
            i = hot.cluster_sphere[q0 + max(0, hot.frame_member[t, b0 + l])]
            dx = p[b, 0, l] - p[a, 0, l]
            dy = p[b, 1, l] - p[a, 1, l]
            length = np.sqrt(dx * dx + dy * dy)
            rx = p[i, 0, l] - p[a, 0, l]
            ry = p[i, 1, l] - p[a, 1, l]
            now = length if r == 0 else (rx * dx + ry * dy if r % 2 == 1 else rx * dy - ry * dx) / length
            # (a row without legs, off in this creature, moves nothing whatever its multiplier)
            rhs[l] = target[l] - now if length > 1e-12 else 0.0
    for t in range(hot.hinge_row.shape[0]):
        k = hot.hinge_row[t]
        for l0 in range(0, n, W):
            l = block(l0, single)
            lam[k, l] = -C[k, l]
    if lead_only:
        if (graph is not None):   # (a graph's rods alone are solved by its second factor)
            _solve_rods(packed_work, c_, packed, b0, n, single)
        else:
            _substitute(lam, V, D, plan, lead, n, single)
    else:
        for t in range(hot.soft_row.shape[0]):
            k = hot.soft_row[t]
            a = hot.soft_a[t]
            b = hot.soft_b[t]
            e = hot.soft_bone[t]
            g = hot.soft_leg[t]
            m = hot.row_muscle[k]
            # toward the length this substep (bones.R_REST): a compliant bone all the way (its
            # compliance is in the pivot), a muscle as its spring and dashpot ask (muscle_pull)
            if m >= 0:
                omega = hot.muscle_omega[m, b0:b0 + n]
                zeta = hot.muscle_damping[m, b0:b0 + n]
                for l0 in range(0, n, W):
                    l = block(l0, single)
                    d, along = _length_along(p, G, a, b, g, l)
                    d0 = np.sqrt((x[a, 0, l] - x[b, 0, l]) ** 2 + (x[a, 1, l] - x[b, 1, l]) ** 2)
                    pull = muscle_pull(rest[e, 2, l] - d, d - d0, h * omega[l], zeta[l]) * along
                    lam[k, l] = pull
                    dlam[k, l] = pull   # the muscle's own demand (its sign bounds its clamped force)
            elif (graph is not None) and m == -2:   # a graph's bone: a muscle in some creatures, a rod in the others
                muscle = hot.row_is_muscle[k, b0:b0 + n]
                omega, zeta = hot.row_omega[k, b0:b0 + n], hot.row_zeta[k, b0:b0 + n]
                for l0 in range(0, n, W):
                    l = block(l0, single)
                    d, along = _length_along(p, G, a, b, g, l)
                    d0 = np.sqrt((x[a, 0, l] - x[b, 0, l]) ** 2 + (x[a, 1, l] - x[b, 1, l]) ** 2)
                    pull = where(muscle[l], muscle_pull(rest[e, 2, l] - d, d - d0, h * omega[l], zeta[l]) * along,
                                 (rest[e, 2, l] - d) * along)
                    lam[k, l] = pull
                    dlam[k, l] = pull
            else:
                for l0 in range(0, n, W):
                    l = block(l0, single)
                    d, along = _length_along(p, G, a, b, g, l)
                    lam[k, l] = (rest[e, 2, l] - d) * along
        _substitute(lam, V, D, plan, R, n, single)
        # a muscle pulls with its strength at most; the rods, hinges and compliant bones take what that leaves
        h2 = h * h
        move[:, :, :n] = 0.0
        clamped = False
        for t in range(hot.soft_row.shape[0]):
            k = hot.soft_row[t]
            e = hot.soft_bone[t]
            g = hot.soft_leg[t]
            muscle = hot.row_muscle[k]
            # the most force it exerts (a muscle its strength, a compliant bone no limit, a bone
            # switched off 0); what the clamp takes off moves its two spheres (``move``)
            on = hot.bone_on[e, b0:b0 + n]
            # a graph's bone: a muscle in some creatures (its strength), a rod in the others (inf)
            if (graph is not None) and muscle == -2:
                is_muscle, strength = hot.row_is_muscle[k, b0:b0 + n], hot.row_strength[k, b0:b0 + n]
                for l0 in range(0, n, W):
                    l = block(l0, single)
                    f = where(on[l], strength[l], 0.0) * h2
                    clamped |= _clamp(f, is_muscle[l], l, k, e, g, pin, lam, dlam, pulled, started, move,
                                      (WS, G, Gn, N), hot)
            else:
                strength = hot.muscle_strength[muscle, b0:b0 + n] if muscle >= 0 else hot.bone_rest[e, b0:b0 + n]
                ga0, ga1, gb0, gb1 = G[g, 0], G[g, 1], G[g + 1, 0], G[g + 1, 1]
                ma = hot.leg_sphere[g]
                mb = hot.leg_sphere[g + 1]
                for l0 in range(0, n, W):
                    l = block(l0, single)
                    f = where(on[l], where(muscle >= 0, strength[l], np.inf), 0.0) * h2
                    pl = pulled[e, l]
                    base = started[e, l] if pin else pl
                    total = base + lam[k, l]
                    was = (abs(pl) >= f) & pin
                    lo, hi = _bounds(f, total, dlam[k, l], muscle >= 0)
                    held = where(was, pl, vmin(hi, vmax(lo, total)))
                    cut = held - total
                    clamped |= any_lane(held != total)
                    lam[k, l] = held - base
                    pulled[e, l] = held
                    wa = WS[ma, 0, l] * cut
                    move[ma, 0, l] += wa * (ga0[l] - Gn[g, l] * N[ma, 0, l])
                    move[ma, 1, l] += wa * (ga1[l] - Gn[g, l] * N[ma, 1, l])
                    wb = WS[mb, 0, l] * cut
                    move[mb, 0, l] += wb * (gb0[l] - Gn[g + 1, l] * N[mb, 0, l])
                    move[mb, 1, l] += wb * (gb1[l] - Gn[g + 1, l] * N[mb, 1, l])
        # (no muscle at its strength in any lane: the rods and hinges stand as solved)
        fix = hot.sk_lead[1] if clamped else 0
        for k in range(fix):
            for l0 in range(0, n, W):
                l = block(l0, single)
                dlam[k, l] = 0.0
            for g in range(item(hot.row_leg_start, k), item(hot.row_leg_start, k + 1)):
                m = item(hot.leg_sphere, g)
                for l0 in range(0, n, W):
                    l = block(l0, single)
                    dlam[k, l] -= G[g, 0, l] * move[m, 0, l] + G[g, 1, l] * move[m, 1, l]
        if (graph is not None):   # (each creature's muscle rows are out of its rods' system)
            _correct_rods(packed_work, c_, packed, b0, n, single, fix)
        else:
            _substitute(dlam, V, D, plan, fix, n, single)
        for k in range(fix):
            for l0 in range(0, n, W):
                l = block(l0, single)
                lam[k, l] += dlam[k, l]
    # the corrections (the ground's share held back: the load, by each sphere's hold)
    hold = sk.hold
    for g in range(G.shape[0]):
        k = hot.leg_row[g]
        if lead_only and k >= lead:
            continue
        m = hot.leg_sphere[g]
        for l0 in range(0, n, W):
            l = block(l0, single)
            s = WS[m, 0, l] * lam[k, l]
            gx = G[g, 0, l]
            gy = G[g, 1, l]
            p[m, 0, l] += s * (gx - Gn[g, l] * N[m, 0, l])
            load[m, 0, l] -= hold[m, 0, l] * lam[k, l] * (gx * plane[m, 0, l] + gy * plane[m, 1, l])
            p[m, 1, l] += s * (gy - Gn[g, l] * N[m, 1, l])
            load[m, 1, l] += hold[m, 1, l] * lam[k, l] * (gy * plane[m, 0, l] - gx * plane[m, 1, l])

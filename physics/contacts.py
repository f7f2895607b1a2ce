"""Ground contact: push spheres out of the terrain, Coulomb friction, velocity rejection.

Three parts, in this order within a substep:

1. ``find_contacts`` (once per substep) turns the terrain near each sphere into a half-plane.
2. ``solve_ground`` (inside the relaxation sweeps) moves a sphere that is closer than its radius
   to its plane out along the normal, and applies Coulomb friction at position level (Macklin
   et al. 2014): the sphere's tangential displacement over the substep is cancelled if it is
   within ``mu_s`` times the normal push so far (static: nothing creeps down a slope that
   friction can hold), else shortened by ``mu_k`` times the push (kinetic). On positions rather
   than velocities, because a velocity zeroed after the sphere has moved still lets it slide
   ``g sin(theta) h^2`` every substep; inside the sweeps rather than after them, because the
   bones then repair what friction moved.
3. ``finish_ground`` pushes out once more (nothing ends a substep inside the ground) and records
   who touches; after velocity recovery, ``reject_ground_velocity`` applies seed 003's
   non-bouncing collision: the normal velocity into the surface is removed (its rejection from
   the normal is kept); with restitution e the sphere leaves at ``e`` times its approach speed,
   if that was above ``bounce_speed`` (so resting contacts do not jitter).
"""

import numpy as np
from numba import njit

from .lanes import any_lane, block, stepped, vmax, vmin, where, width
from .layout import unpack_hot
from .terrain import BLOCK, closest_on_terrain, is_straight, terrain_top

#: contact generation also gives a plane to spheres this far (m) beyond their own motion: within a
#: substep their bones can drag them down by centimetres (a foot resting 1-3 mm above the ground was
#: pulled 1.3 cm into it and popped out after the skeleton's last sweep, leaving a bone 3.75 % short)
CONTACT_MARGIN = 0.1

#: a sphere the skeleton pulls out of the ground by more than this (m) in a substep lifts off
LIFT_SLACK = 1e-7


@njit(cache=True, error_model="numpy")
def find_contacts(x, p, plane, active, radius, table, blocks, b0, n, slop, single):
    """Contact generation: the terrain near each sphere's predicted position ``p`` as a
    half-plane ``nx * px + ny * py >= c`` for its centre (``plane : (P, 3, LANES)``), from the
    closest point of the terrain. The substeps then solve the plane, which is cheap and
    vectorises, instead of searching the polyline again and again. On flat ground and slopes the
    plane is exact, and found once a step (physics/step.py); near a corner it is the tangent at
    the closest point, found again every substep.

    A sphere clearly above the terrain gets a plane far below it instead of an exact query: first
    against the terrain's highest point (a test over the whole lane row, which vectorises), then
    against the broad-phase blocks. ``active : (P,)`` says whether any creature of the chunk may
    touch the ground with sphere i this substep; the sweeps skip the others. On level ground the
    exact query is made a block of lanes at a time (:func:`_level_query`), to the same bits."""
    n = stepped(single, n)   # (a constant in the steps compiled for one creature or one block: physics/step.py)
    top = blocks[2]
    W = width(single)
    # level ground (one flat segment): the query below worked out a block at a time, the same
    # arithmetic (_level_query)
    level = is_straight(table) and table[1, 0] == table[1, 1]
    ground = _level_ground(table, blocks)
    for i in range(p.shape[0]):
        px = p[i, 0]
        py = p[i, 1]
        nx = plane[i, 0]
        ny = plane[i, 1]
        c = plane[i, 2]
        rad = radius[i, b0:b0 + n]
        x0 = x[i, 0]
        y0 = x[i, 1]
        near = False
        for l0 in range(0, n, W):
            l = block(l0, single)
            reach = _reach(px[l], py[l], x0[l], y0[l], rad[l], slop)
            ny[l] = reach     # scratch until the exact query below
            nx[l] = 0.0
            c[l] = -np.inf
            near |= any_lane(py[l] - reach <= top)
        active[i] = near
        if level and near:
            _level_contacts(px, py, nx, ny, c, rad, ground, n, single)
            continue
        if not near:
            continue
        for l in range(n):
            reach = ny[l]
            ny[l] = 1.0
            if py[l] - reach > terrain_top(blocks, px[l] - reach, px[l] + reach):
                continue
            d, gx, gy = closest_on_terrain(table, px[l], py[l], reach)
            nx[l] = gx
            ny[l] = gy
            c[l] = gx * px[l] + gy * py[l] - d + rad[l]


@njit(cache=True, error_model="numpy", inline="always")
def _level_ground(table, blocks):
    """What :func:`_level_query` reads of a level terrain (one flat segment), as scalars: its
    segment (start, direction, normal, inverse squared length), the broad phase's start, its last
    block and the last block the segment covers (on a level segment the blocks it covers, from
    the first, are its height and those past its end, if any, -inf), both as floats, and that
    height."""
    nb = np.int64(blocks[1])
    lo = 0
    hi = nb - 1
    while lo < hi:   # the last block of the ground's height
        mid = (lo + hi + 1) // 2
        if blocks[3 + mid] == -np.inf:
            hi = mid - 1
        else:
            lo = mid
    return (table[0, 0], table[1, 0], table[0, 1] - table[0, 0], table[1, 1] - table[1, 0], table[2, 0],
            table[3, 0], table[4, 0], blocks[0], np.float64(nb - 1), np.float64(lo), blocks[3])


@njit(cache=True, error_model="numpy", inline="always")
def _level_query(px, py, reach, ground):
    """find_contacts' query for one sphere on level ground (``ground``: :func:`_level_ground`),
    bit for bit: ``(skip, dist, gx, gy)``, ``skip`` where :func:`physics.terrain.terrain_top`
    puts the ground out of reach (the highest block over the range is its first's), else
    :func:`physics.terrain.closest_on_terrain` on the one segment (its one search, the same
    arithmetic, its branches as selects: numbers, or a block's vectors, physics/lanes.py). The
    first block over the range is found in floats, clamped to the table: the block terrain_top's
    integer index gives, for every position less than 2**63 blocks from the start."""
    ax, ay, ex, ey, tx, ty, inv, start, top, last, height = ground
    k0 = vmin(vmax(np.floor((px - reach - start) / BLOCK), 0.0), top)
    skip = py - reach > where(k0 <= last, height, -np.inf)
    below = (px - ax) * tx + (py - ay) * ty < 0.0
    u = ((px - ax) * ex + (py - ay) * ey) * inv
    cx = ax + u * ex
    cy = ay + u * ey
    d2 = (px - cx) * (px - cx) + (py - cy) * (py - cy)
    found = d2 < np.inf
    bx = where(found, cx, 0.0)
    by = where(found, cy, 0.0)
    d = np.sqrt(where(found, d2, np.inf))
    far = d > 1e-9
    gx = (px - bx) / d
    gy = (py - by) / d
    dist = where(far, where(below, -d, d), 0.0)
    gx = where(far, where(below, -gx, gx), tx)
    gy = where(far, where(below, -gy, gy), ty)
    return skip, dist, gx, gy


@njit(cache=True, error_model="numpy", inline="always")
def _reach(px, py, x0, y0, rad, slop):
    """How far from its predicted centre ``(px, py)`` find_contacts looks for a sphere's ground."""
    dx = px - x0
    dy = py - y0
    return rad + np.sqrt(dx * dx + dy * dy) + slop + CONTACT_MARGIN


@njit(cache=True, error_model="numpy", inline="always")
def _level_contacts(px, py, nx, ny, c, rad, ground, n, single):
    """find_contacts' exact query on level ground (:func:`_level_query`) for a sphere's lanes,
    a block at a time, each lane's reach read from ``ny`` (find_contacts' scratch) before the
    plane's rows are written."""
    W = width(single)
    for l0 in range(0, n, W):
        l = block(l0, single)
        skip, dist, gx, gy = _level_query(px[l], py[l], ny[l], ground)
        c[l] = where(skip, -np.inf, gx * px[l] + gy * py[l] - dist + rad[l])
        nx[l] = where(skip, 0.0, gx)
        ny[l] = where(skip, 1.0, gy)


@njit(cache=True, error_model="numpy", inline="always")
def solve_ground(x, p, plane, active, dn, fric, grip, loose, inv_mass, friction, kinetic_friction, b0, n, rise, single):
    """Push spheres out of their contact half-plane, with Coulomb friction.

    The push adds up in ``dn : (P, LANES)``, the normal displacement the ground has imposed this
    substep. Friction acts on the sphere's tangential displacement over the substep (from ``x``):
    if, without what friction itself removed so far (``fric : (P, LANES)``), it is within
    ``mu_s * dn``, it is cancelled (static: it does not creep); otherwise it loses ``mu_k`` times
    this projection's push (kinetic; over a substep that adds up to ``mu_k * dn``). Judging the
    static case on the slide friction has already shortened made a sliding contact stick again
    the next sweep, as if the coefficient were mu_s + mu_k. ``grip : (P, LANES)`` is set to 1 for
    a sphere static friction holds (the skeleton's solve then treats it as held in every
    direction, physics/skeleton.py), else 0; never for a sphere static friction let go of in the
    last substep (``loose``, :func:`loosen_grip`), which slides. (``inv_mass``, ``friction``,
    ``kinetic_friction`` are the hot arrays, passed alone: the whole hot tuple is copied at
    every call.)"""
    W = width(single)
    for i in range(p.shape[0]):
        held = grip[i]
        if not active[i]:
            held[:n] = 0.0
            continue
        px = p[i, 0]
        py = p[i, 1]
        x0 = x[i, 0]
        y0 = x[i, 1]
        nx = plane[i, 0]
        ny = plane[i, 1]
        c = plane[i, 2]
        push = dn[i]
        cut_so_far = fric[i]
        w = inv_mass[i, b0:b0 + n]
        mu_s = friction[i, b0:b0 + n]
        mu_k = kinetic_friction[i, b0:b0 + n]
        for l0 in range(0, n, W):
            l = block(l0, single)
            # out to the surface, or for a sphere that started the substep inside the ground,
            # out by ``rise`` at most (a push-out capped like its speed: see the module)
            depth0 = c[l] - (nx[l] * x0[l] + ny[l] * y0[l])
            pen = c[l] - (nx[l] * px[l] + ny[l] * py[l]) - vmax(0.0, depth0 - rise)
            pen = where((pen > 0.0) & (w[l] > 0.0), pen, 0.0)
            ax = px[l] + nx[l] * pen
            ay = py[l] + ny[l] * pen
            total = push[l] + pen
            push[l] = total
            # friction along the tangent t = (-ny, nx)
            tx = -ny[l]
            ty = nx[l]
            slide = (ax - x0[l]) * tx + (ay - y0[l]) * ty
            kinetic = vmin(mu_k[l] * pen, abs(slide))
            static = (abs(slide + cut_so_far[l]) <= mu_s[l] * total) & (loose[i, l] == 0.0)
            cut = where(static, slide, where(slide > 0.0, kinetic, -kinetic))
            cut = where(total > 0.0, cut, 0.0)
            held[l] = where(static & (total > 0.0), 1.0, 0.0)
            cut_so_far[l] += cut
            px[l] = (px[l] + nx[l] * pen) - cut * -ny[l]
            py[l] = (py[l] + ny[l] * pen) - cut * nx[l]


@njit(cache=True, error_model="numpy", inline="always")
def press_friction(x, p, plane, active, dn, fric, load, inv_mass, friction, kinetic_friction, b0, n, single):
    """Friction on the load the skeleton pressed into the ground (``load[:, 0] : (P, LANES)``, its
    normal displacement held back, physics/skeleton.py): the skeleton's solve comes after
    :func:`solve_ground` and holds the spheres on the ground, so the weight a body rests on its
    feet never shows as a push there, and friction would grip with the feet's own weight only
    (a block slid down a slope 1.8x as far as kinetic friction allows). The slide left is
    cancelled if it is within ``mu_s`` times this load, else shortened by ``mu_k`` times it: at
    most what this load can grip, so that the skeleton's bones move by no more (cancelling the
    whole slide, as :func:`solve_ground` does, undid what the skeleton had just solved: bones
    ended 2-4 % off)."""
    W = width(single)
    for i in range(p.shape[0]):
        if not active[i]:
            continue
        # (the creatures' arrays as views from b0)
        im, mu_s, mu_k = inv_mass[i, b0:b0 + n], friction[i, b0:b0 + n], kinetic_friction[i, b0:b0 + n]
        px, py, nx, ny = p[i, 0], p[i, 1], plane[i, 0], plane[i, 1]
        for l0 in range(0, n, W):
            l = block(l0, single)
            w = im[l]
            pressed = load[i, 0, l]
            extra = where((pressed > 0.0) & (w > 0.0), pressed, 0.0)
            tx = -ny[l]
            ty = nx[l]
            slide = (px[l] - x[i, 0, l]) * tx + (py[l] - x[i, 1, l]) * ty
            kinetic = vmin(mu_k[l] * extra, abs(slide))
            static = abs(slide) <= mu_s[l] * extra
            cut = where(static, slide, where(slide > 0.0, kinetic, -kinetic))
            cut = where(extra > 0.0, cut, 0.0)
            fric[i, l] += cut
            px[l] -= cut * -ny[l]
            py[l] -= cut * nx[l]


@njit(cache=True, error_model="numpy", inline="always")
def loosen_grip(active, dn, grip, load, loose, inv_mass, friction, b0, n, single):
    """Which spheres static friction lets go of for the next substep (``loose : (P, LANES)``, 1
    or 0; :func:`solve_ground` then lets them slide with kinetic friction): those it gripped this
    substep whose bones and muscles pulled them along the ground harder than it holds. The
    skeleton held a gripped sphere every way, and what it held back along the ground
    (``load[:, 1]``) is more than ``mu_s`` times the whole normal load (the ground's push this
    substep and the skeleton's, ``load[:, 0]``). Without this a muscle between two gripped feet
    never moved them: a worm of 40 N muscles on 3 N of grip lay still. (Let go the same
    substep, the skeleton had to be factored and solved again: a third of the step's time.)"""
    W = width(single)
    for i in range(grip.shape[0]):
        if not active[i]:
            for l0 in range(0, n, W):
                loose[i, block(l0, single)] = 0.0
            continue
        im, mu_s = inv_mass[i, b0:b0 + n], friction[i, b0:b0 + n]
        for l0 in range(0, n, W):
            l = block(l0, single)
            normal = dn[i, l] + vmax(0.0, load[i, 0, l])
            gives = (grip[i, l] > 0.0) & (im[l] > 0.0) & (abs(load[i, 1, l]) > mu_s[l] * normal)
            loose[i, l] = where(gives, 1.0, 0.0)


@njit(cache=True, error_model="numpy", inline="always")
def mark_lifted(active, load, lifted, n, single):
    """Which spheres the skeleton's last solve pulled out of the ground (``lifted : (P, LANES)``,
    1 or 0): it held them back along the normal as if the ground could pull (``load[:, 0] < 0``,
    physics/skeleton.py) by more than ``LIFT_SLACK``. Returns whether it marked any that were
    not already: the substep's solve is then done again with them free."""
    new = False
    W = width(single)
    for i in range(lifted.shape[0]):
        if not active[i]:
            continue
        for l0 in range(0, n, W):
            l = block(l0, single)
            now = load[i, 0, l] < -LIFT_SLACK
            was = lifted[i, l]
            new |= any_lane(now & (was == 0.0))
            lifted[i, l] = where(now | (was > 0.0), 1.0, 0.0)
    return new


@njit(cache=True, error_model="numpy", inline="always")
def finish_ground(x, p, v, plane, active, dn, touching, vn_in, packed, terrain, b0, n, slop, rise, single):
    """Last push-out of the substep, so that nothing ends inside the ground (added to ``dn``);
    record which spheres touch (``touching : (P, LANES)``) and the predicted velocity ``v`` along
    the normal (``vn_in : (P, LANES)``, negative when approaching) for restitution.

    A sphere the broad phase skipped may still have been dragged down by its bones during the
    sweeps (a muscle can move a foot centimetres within one substep), so skipped spheres that
    now reach below the terrain's top get their exact query here. On a terrain with corners (more
    than one segment) every sphere near the ground is checked exactly, twice: in a concave corner
    (the foot of a step) pushing out of one face can push into the other. ``terrain`` is
    ``(table, blocks)``; ``packed`` the model's packed arrays."""
    table, blocks = terrain
    top = blocks[2]
    straight = is_straight(table)
    hot = unpack_hot(*packed)   # (the model's packed arrays: physics/skeleton.py's factor_skeleton says why)
    radius, inv_mass = hot.radius, hot.inv_mass
    W = width(single)
    for i in range(p.shape[0]):
        px = p[i, 0]
        py = p[i, 1]
        nx = plane[i, 0]
        ny = plane[i, 1]
        c = plane[i, 2]
        rad = radius[i, b0:b0 + n]
        w = inv_mass[i, b0:b0 + n]
        push = dn[i]
        vn = vn_in[i]
        if not straight:   # (scratch: each sphere's true depth at the substep's start, below)
            vn[:n] = 0.0
        check = False
        for l0 in range(0, n, W):
            l = block(l0, single)
            planed = c[l] != -np.inf
            check |= any_lane((planed & (not straight)) | ((~planed) & (py[l] - rad[l] - slop <= top)))
        if check:
            for l in range(n):
                if (straight or c[l] == -np.inf) and py[l] - rad[l] - slop > top:
                    continue
                if straight and c[l] != -np.inf:
                    continue  # the plane is the terrain itself
                # how deep the sphere started the substep: in the terrain, not behind the
                # half-plane of a face it is now near (one that started above a step's corner
                # is behind its riser's plane, and was let out at the capped speed only)
                d0, _, _ = closest_on_terrain(table, x[i, 0, l], x[i, 1, l], rad[l] + slop)
                vn[l] = max(0.0, rad[l] - d0)
                for rep in range(2):
                    d, gx, gy = closest_on_terrain(table, px[l], py[l], rad[l] + slop)
                    if d > rad[l] + slop:
                        break
                    nx[l] = gx
                    ny[l] = gy
                    c[l] = gx * px[l] + gy * py[l] - d + rad[l]
                    # the plane holds for the step's later substeps: the sphere is solved
                    # there (whatever its chunk-mates do: a creature must not depend on them)
                    active[i] = True
                    out = rad[l] - d - max(0.0, vn[l] - rise)
                    if out <= 0.0 or w[l] == 0.0:
                        break
                    px[l] += gx * out
                    py[l] += gy * out
                    push[l] += out
        vx = v[i, 0]
        vy = v[i, 1]
        touch = touching[i]
        x0 = x[i, 0]
        y0 = x[i, 1]
        for l0 in range(0, n, W):
            l = block(l0, single)
            depth = where(straight, c[l] - (nx[l] * x0[l] + ny[l] * y0[l]), vn[l])
            pen = c[l] - (nx[l] * px[l] + ny[l] * py[l])
            touch[l] = pen >= -slop
            pen -= vmax(0.0, depth - rise)
            pen = where((pen > 0.0) & (w[l] > 0.0), pen, 0.0)
            push[l] += pen
            vn[l] = vx[l] * nx[l] + vy[l] * ny[l]
            px[l] += nx[l] * pen
            py[l] += ny[l] * pen


@njit(cache=True, error_model="numpy", inline="always")
def reject_ground_velocity(v, plane, touching, vn_in, dn, restitution, b0, n, bounce_speed, push_speed, h, single):
    """Remove velocity into the ground (seed 003's rejection); bounce with restitution; and cap
    the outward velocity the push-out created.

    A push-out of ``dn`` over the substep adds up to ``dn / h`` of outward velocity to the
    sphere, once the velocity is recovered from positions. For a sphere that starts its substep
    on the surface that is only what stops its approach, but one that starts inside the ground
    (placed there, or shoved there by another creature) would leave it at ``depth / h``: 3 m/s
    for 5 cm in a 60 Hz step, a launch from nothing. As Box2D caps its push-out speed
    (``contactPushMaxVelocity``), the outward normal velocity is kept to ``push_speed`` or what
    the sphere would have without the push, whichever is larger (the ground still only pushes:
    at most ``dn / h`` is taken off)."""
    inv_h = 1.0 / h
    W = width(single)
    for i in range(v.shape[0]):
        vx = v[i, 0]
        vy = v[i, 1]
        nx = plane[i, 0]
        ny = plane[i, 1]
        touch = touching[i]
        approach_v = vn_in[i]
        push = dn[i]
        e = restitution[i, b0:b0 + n]
        for l0 in range(0, n, W):
            l = block(l0, single)
            vn = vx[l] * nx[l] + vy[l] * ny[l]
            target = vmax(vn, 0.0)
            # (a bounce below is restitution's, not the push-out's)
            target = where(target > push_speed, vmin(target, vmax(push_speed, vn - push[l] * inv_h)), target)
            approach = -approach_v[l]
            bounce = where(approach > bounce_speed, e[l] * approach, 0.0)
            target = vmax(target, bounce)
            dv = where(touch[l], target - vn, 0.0)
            vx[l] += dv * nx[l]
            vy[l] += dv * ny[l]

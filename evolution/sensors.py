"""Sensors: what a brain reads, a whole batch at a time.

A sensor is a plug-in (:mod:`evolution.plugins`): a subclass of :class:`Sensor` that adds named
inputs to the brain. An episode's brain inputs are its sensors' inputs side by side, in the
order of the episode's sensor list. The default list (:data:`DEFAULT_SENSORS`) gives this layout
(``S = 2 + M + J + P + 5`` inputs, each scaled to about [-1, 1]):

==========  =====  ==============================================================================
sensor      count  value
==========  =====  ==============================================================================
clock       2      sin and cos of ``2 pi f t`` (f: the episode's ``clock_hz``)
muscles     M      (length / rest - 1) / range: -1 fully contracted, +1 extended
joints      J      angle / pi
contacts    P      1 if the sphere touches the ground, else 0
tilt        2      sin and cos of the body's angle against its rest pose
height      1      centre-of-mass height above the terrain under it, over the body's rest height
velocity    2      centre-of-mass vx, vy in body lengths per second (clipped to +-5)
==========  =====  ==============================================================================

More built-ins, off by default: ``rays`` (distances from the centre of mass to the terrain along
a few rays: below, ahead-down and ahead, as Keiwan's *Evolution* senses the ground ahead).

The built-ins are numba kernels with exactly the arithmetic of the one kernel they replace, so
champions evolved before sensors were plug-ins replay bit for bit.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from physics.sensors import creature_com, creature_rotation
from physics.terrain import find_segment, height_at

from .bases import Sensor

__all__ = ["Sensor", "DEFAULT_SENSORS", "MAX_SPEED", "Clock", "Muscles", "Joints", "Contacts",
           "Tilt", "Height", "Velocity", "Rays", "sensor_list", "builtin_reads", "read_builtins"]

#: velocities are clipped to this many body lengths per second before they reach a brain
MAX_SPEED = 5.0

#: the sensors every episode has unless told otherwise (their layout is the brains' inputs)
DEFAULT_SENSORS = ("clock", "muscles", "joints", "contacts", "tilt", "height", "velocity")


def sensor_list(text: str | None) -> list[str]:
    """The sensor names of a ``--sensors`` value: the defaults, plus every name it lists, minus
    every ``-name`` (``-default`` takes away all the defaults). ``rays`` is the defaults and
    rays; ``-default,clock,rays`` is exactly clock and rays; ``-contacts`` the defaults without
    contacts. None or empty: the defaults. Raises ValueError for a name given twice or taken
    away without being there."""
    names = list(DEFAULT_SENSORS)
    if not text or not text.strip():
        return names
    for item in (s.strip() for s in text.split(",")):
        if not item:
            raise ValueError("an empty sensor name in the list")
        if item == "-default":
            names = [n for n in names if n not in DEFAULT_SENSORS]
        elif item.startswith("-"):
            if item[1:] not in names:
                raise ValueError(f"cannot take away sensor '{item[1:]}': it is not on "
                                 f"(on: {', '.join(names) or 'none'})")
            names.remove(item[1:])
        elif item in names:
            raise ValueError(f"sensor '{item}' is already on")
        else:
            names.append(item)
    if not names:
        raise ValueError("no sensors left: a brain needs at least one input")
    return names


# --- the built-in sensors --------------------------------------------------------------------------

class Clock(Sensor):
    """A clock: sin and cos of 2 pi f t, f the episode's clock frequency."""

    def size(self, ctx) -> int:
        return 2

    def bounds(self, ctx) -> tuple:
        return (-1.0, 1.0)

    def labels(self, ctx) -> list[str]:
        return ["clock sin", "clock cos"]

    def read(self, state, clock, out) -> None:
        _read_clock(clock.time, self.ctx.clock_hz, out)


class Muscles(Sensor):
    """Each muscle's length: -1 fully contracted, 0 at rest, +1 fully extended."""

    def size(self, ctx) -> int:
        return ctx.model.n_muscles

    def labels(self, ctx) -> list[str]:
        return [f"{m} length" for m in ctx.names("muscle")]

    def setup(self, ctx) -> None:
        e = ctx.model.muscle_bone
        self.a, self.b = ctx.model.bone_a[e], ctx.model.bone_b[e]

    def read(self, state, clock, out) -> None:
        m = self.ctx.model
        _read_muscles(state.pos, self.a, self.b, m.muscle_rest, m.muscle_range, out)


class Joints(Sensor):
    """Each joint's angle over pi."""

    def size(self, ctx) -> int:
        return ctx.model.n_joints

    def bounds(self, ctx) -> tuple:
        return (-1.0, 1.0)

    def labels(self, ctx) -> list[str]:
        return [f"{j} angle" for j in ctx.names("joint")]

    def read(self, state, clock, out) -> None:
        m = self.ctx.model
        _read_joints(state.pos, m.joint_a, m.joint_c, m.joint_b, out)


class Contacts(Sensor):
    """Each sphere's ground contact: 1 touching, 0 not."""

    def size(self, ctx) -> int:
        return ctx.model.n_spheres

    def bounds(self, ctx) -> tuple:
        return (0.0, 1.0)

    def labels(self, ctx) -> list[str]:
        return [f"{s} contact" for s in ctx.names("sphere")]

    def read(self, state, clock, out) -> None:
        _read_contacts(state.contact, out)


class Tilt(Sensor):
    """The body's rotation against its rest pose, as sin and cos."""

    def size(self, ctx) -> int:
        return 2

    def bounds(self, ctx) -> tuple:
        return (-1.0, 1.0)

    def labels(self, ctx) -> list[str]:
        return ["tilt sin", "tilt cos"]

    def read(self, state, clock, out) -> None:
        m = self.ctx.model
        _read_tilt(state.pos, m.mass, m.rest_pos, out)


class Height(Sensor):
    """The centre of mass's height above the terrain under it, over the rest pose's."""

    def size(self, ctx) -> int:
        return 1

    def labels(self, ctx) -> list[str]:
        return ["height"]

    def read(self, state, clock, out) -> None:
        c, t = self.ctx, self.ctx.terrain
        _read_height(state.pos, c.model.mass, t.xs, t.ys, c.rest_heights, out)


class Velocity(Sensor):
    """The centre of mass's velocity in body lengths per second, clipped to +-5."""

    def size(self, ctx) -> int:
        return 2

    def bounds(self, ctx) -> tuple:
        return (-MAX_SPEED, MAX_SPEED)

    def labels(self, ctx) -> list[str]:
        return ["speed x", "speed y"]

    def read(self, state, clock, out) -> None:
        _read_velocity(state.vel, self.ctx.model.mass, self.ctx.body_sizes, out)


class Rays(Sensor):
    """Distance rays: how far the ground is from the centre of mass along rays below, ahead-down
    and ahead (0 at the centre, 1 at ``reach`` body lengths or nothing within it)."""

    #: ray directions, degrees from the +x axis (to the right): -90 is straight down
    angles: tuple = (-90.0, -60.0, -30.0, 0.0)
    #: how far a ray sees, in body lengths
    reach: float = 3.0

    def size(self, ctx) -> int:
        return len(self.angles)

    def bounds(self, ctx) -> tuple:
        return (0.0, 1.0)

    def labels(self, ctx) -> list[str]:
        return [f"ray {a:g} deg" for a in self.angles]

    def setup(self, ctx) -> None:
        a = np.radians(np.asarray(self.angles, dtype=np.float64))
        self.dirs = np.ascontiguousarray(np.stack([np.cos(a), np.sin(a)], axis=1))
        self.distance = float(self.reach) * ctx.body_sizes  # each creature's own body lengths

    def read(self, state, clock, out) -> None:
        c, t = self.ctx, self.ctx.terrain
        _read_rays(state.pos, c.model.mass, t.xs, t.ys, self.dirs, self.distance,
                   bool(c.sim.ground), out)


# --- the built-ins read inside a kernel -------------------------------------------------------------

#: the built-in sensors :func:`read_builtins` reads, by code (exact classes: a subclass may read
#: otherwise)
_BUILTIN = {Clock: 0, Muscles: 1, Joints: 2, Contacts: 3, Tilt: 4, Height: 5, Velocity: 6, Rays: 7}


def builtin_reads(sensors, columns, ctx):
    """``sensors`` (each with its ``columns``, a slice of the brains' inputs) as
    :func:`read_builtins` takes them, ``(codes, starts, ends, what they read)``; None if any is
    not one of the built-ins it reads."""
    codes = [_BUILTIN.get(type(s), -1) for s in sensors]
    if -1 in codes:
        return None
    muscles = [s for s in sensors if type(s) is Muscles]
    m = ctx.model
    a, b = (muscles[0].a, muscles[0].b) if muscles else (np.zeros(0, np.int64), np.zeros(0, np.int64))
    rays = [s for s in sensors if type(s) is Rays]
    if len(rays) > 1:   # (one set of rays is read; two would be two sets)
        return None
    dirs, distance = (rays[0].dirs, rays[0].distance) if rays else (np.zeros((0, 2)), np.zeros(ctx.batch))
    t = ctx.terrain
    reads = (float(ctx.clock_hz), np.ascontiguousarray(a, dtype=np.int64), np.ascontiguousarray(b, dtype=np.int64),
             m.muscle_rest, m.muscle_range, m.joint_a, m.joint_c, m.joint_b, m.mass, m.rest_pos, t.xs, t.ys,
             ctx.rest_heights, ctx.body_sizes, dirs, distance, bool(ctx.sim.ground))
    return (np.array(codes, dtype=np.int64), np.array([c.start for c in columns], dtype=np.int64),
            np.array([c.stop for c in columns], dtype=np.int64), reads)


@njit(cache=True, error_model="numpy")
def read_builtins(codes, starts, ends, reads, pos, vel, contact, time, inputs):
    """The built-in sensors ``codes`` (:func:`builtin_reads`) read into their columns of
    ``inputs`` (B, I), each as its ``read`` does, from a state's ``pos``, ``vel`` and ``contact``
    and the clock's ``time``."""
    hz, ma, mb, m_rest, m_range, ja, jc, jb, mass, rest_pos, xs, ys, rest_heights, sizes, dirs, distance, ground = reads
    for k in range(codes.shape[0]):
        out = inputs[:, starts[k]:ends[k]]
        code = codes[k]
        if code == 0:
            _read_clock(time, hz, out)
        elif code == 1:
            _read_muscles(pos, ma, mb, m_rest, m_range, out)
        elif code == 2:
            _read_joints(pos, ja, jc, jb, out)
        elif code == 3:
            _read_contacts(contact, out)
        elif code == 4:
            _read_tilt(pos, mass, rest_pos, out)
        elif code == 5:
            _read_height(pos, mass, xs, ys, rest_heights, out)
        elif code == 6:
            _read_velocity(vel, mass, sizes, out)
        else:
            _read_rays(pos, mass, xs, ys, dirs, distance, ground, out)


# --- kernels ------------------------------------------------------------------------------------------

@njit(cache=True)
def _read_clock(time, clock_hz, out):
    for b in range(out.shape[0]):
        if b > 0 and time[b] == time[b - 1]:  # creatures that started together: computed once
            out[b, 0] = out[b - 1, 0]
            out[b, 1] = out[b - 1, 1]
            continue
        phase = 2.0 * np.pi * clock_hz * time[b]
        out[b, 0] = np.sin(phase)
        out[b, 1] = np.cos(phase)


@njit(cache=True)
def _read_muscles(pos, ma, mb, m_rest, m_range, out):
    for b in range(pos.shape[0]):
        for m in range(ma.shape[0]):
            dx = pos[b, ma[m], 0] - pos[b, mb[m], 0]
            dy = pos[b, ma[m], 1] - pos[b, mb[m], 1]
            r = m_range[b, m]   # (0: a graph's rod, which no brain reads)
            out[b, m] = (np.sqrt(dx * dx + dy * dy) / m_rest[b, m] - 1.0) / r if r > 0.0 else 0.0


@njit(cache=True)
def _read_joints(pos, ja, jc, jb, out):
    for b in range(pos.shape[0]):
        for j in range(jc.shape[0]):
            ux = pos[b, ja[j], 0] - pos[b, jc[j], 0]
            uy = pos[b, ja[j], 1] - pos[b, jc[j], 1]
            vx = pos[b, jb[j], 0] - pos[b, jc[j], 0]
            vy = pos[b, jb[j], 1] - pos[b, jc[j], 1]
            out[b, j] = np.arctan2(ux * vy - uy * vx, ux * vx + uy * vy) / np.pi


@njit(cache=True)
def _read_contacts(contact, out):
    for b in range(contact.shape[0]):
        for i in range(contact.shape[1]):
            out[b, i] = 1.0 if contact[b, i] else 0.0


@njit(cache=True, error_model="numpy")
def _read_tilt(pos, mass, rest_pos, out):
    for b in range(pos.shape[0]):
        sn, cs = creature_rotation(mass, rest_pos, pos, b)
        norm = np.sqrt(sn * sn + cs * cs)
        out[b, 0] = sn / norm if norm > 0.0 else 0.0
        out[b, 1] = cs / norm if norm > 0.0 else 1.0


@njit(cache=True, error_model="numpy")
def _read_height(pos, mass, xs, ys, rest_height, out):
    for b in range(pos.shape[0]):
        cx, cy = creature_com(mass, pos, b)
        out[b, 0] = (cy - height_at(xs, ys, cx)) / rest_height[b]


@njit(cache=True, error_model="numpy")
def _read_velocity(vel, mass, sizes, out):
    for b in range(vel.shape[0]):
        vxs, vys = creature_com(mass, vel, b)
        out[b, 0] = min(MAX_SPEED, max(-MAX_SPEED, vxs / sizes[b]))
        out[b, 1] = min(MAX_SPEED, max(-MAX_SPEED, vys / sizes[b]))


@njit(cache=True, error_model="numpy")
def ray_to_terrain(xs, ys, ox, oy, dx, dy, reach):
    """Distance along the unit ray (dx, dy) from (ox, oy) to the first point at or below the
    terrain polyline (flat beyond its ends), or ``reach`` if there is none within it. 0 if the
    origin is below the ground. Exact: the height of the ray over the ground is piecewise linear
    between the vertices it passes."""
    g0 = oy - height_at(xs, ys, ox)
    if g0 <= 0.0:
        return 0.0
    n = xs.shape[0]
    t0 = 0.0
    if dx != 0.0:
        x_end = ox + reach * dx
        k = find_segment(xs, ox)
        if dx > 0.0:
            k += 1
            while k < n and xs[k] < x_end:
                if xs[k] > ox:
                    t = (xs[k] - ox) / dx
                    g = oy + t * dy - ys[k]
                    if g <= 0.0:
                        return t0 + (t - t0) * g0 / (g0 - g)
                    t0, g0 = t, g
                k += 1
        else:
            while k >= 0 and xs[k] > x_end:
                if xs[k] < ox:
                    t = (xs[k] - ox) / dx
                    g = oy + t * dy - ys[k]
                    if g <= 0.0:
                        return t0 + (t - t0) * g0 / (g0 - g)
                    t0, g0 = t, g
                k -= 1
    g = oy + reach * dy - height_at(xs, ys, ox + reach * dx)
    if g <= 0.0:
        return t0 + (reach - t0) * g0 / (g0 - g)
    return reach


@njit(cache=True, error_model="numpy")
def _read_rays(pos, mass, xs, ys, dirs, reach, ground, out):
    for b in range(pos.shape[0]):
        cx, cy = creature_com(mass, pos, b)
        for r in range(dirs.shape[0]):
            if not ground or not (np.isfinite(cx) and np.isfinite(cy)):
                out[b, r] = 1.0
            else:
                out[b, r] = ray_to_terrain(xs, ys, cx, cy, dirs[r, 0], dirs[r, 1], reach[b]) / reach[b]

"""Shared builders and independent reference measurements for the physics tests.

The bodies here exercise what the reference examples do not: hinge joints with limits and
springs, and a rigid cluster. The measurements (angular momentum, distance to a polyline) are
plain numpy, written apart from the engine's own code, so that a test compares the engine with
something it did not compute itself.
"""

from __future__ import annotations

import numpy as np

import physics
from physics import Body, Bone, Cluster, Joint, Muscle, Sphere

#: no gravity, no ground: only the creature's internal forces act
FREE_SPACE = physics.SimParams(gravity=0.0, ground=False)


# bodies -----------------------------------------------------------------------------------------
def hinge_arm() -> Body:
    """A four-segment arm of five spheres: rigid segments, a hinge at each of the three inner
    spheres (limits [90, 150] degrees around a rest angle of 120, the middle one also a spring of
    20 N m/rad), and a muscle across every hinge. A muscle's range of 0.3 asks for 75 to beyond
    180 degrees, so every command pushes a hinge into one of its limits."""
    turn = np.radians(60.0)  # each segment turns 60 degrees clockwise: joint angles of +120
    pts = [np.zeros(2)]
    for k in range(4):
        pts.append(pts[-1] + 0.3 * np.array([np.cos(-k * turn), np.sin(-k * turn)]))
    spheres = [Sphere(tuple(p), radius=0.05, mass=m) for p, m in zip(pts, (1.0, 0.5, 0.7, 0.5, 1.2))]
    bones = [Bone(k, k + 1) for k in range(4)]
    bones += [Bone(k, k + 2, muscle=Muscle(range=0.3, strength=100.0, speed=2.0)) for k in range(3)]
    joints = [Joint(c=k, a=k - 1, b=k + 1, min_angle=np.radians(90.0), max_angle=np.radians(150.0),
                    stiffness=20.0 if k == 2 else 0.0) for k in (1, 2, 3)]
    return Body(spheres, bones, joints, name="hinge arm")


def cluster_walker() -> Body:
    """A rigid pentagon torso (one shape-matched cluster of five spheres, no bones between
    them) on two two-segment legs, each moved by a hip and a knee muscle, with a free joint and
    an angular spring at each knee."""
    ring = [(0.3 * np.cos(a), 0.6 + 0.3 * np.sin(a)) for a in np.radians([210, 270, 330, 30, 150])]
    spheres = [Sphere(p, radius=0.06, mass=m) for p, m in zip(ring, (1.0, 1.4, 1.0, 0.8, 0.8))]
    spheres += [Sphere((-0.4, 0.3), radius=0.06, mass=0.4), Sphere((-0.3, 0.0), radius=0.08, mass=0.4),
                Sphere((0.4, 0.3), radius=0.06, mass=0.4), Sphere((0.3, 0.0), radius=0.08, mass=0.4)]
    bones = []
    for hip, knee, foot, top in ((0, 5, 6, 4), (2, 7, 8, 3)):
        bones += [Bone(hip, knee), Bone(knee, foot),
                  Bone(top, knee, muscle=Muscle(range=0.25)),
                  Bone(hip, foot, muscle=Muscle(range=0.15))]
    joints = [Joint(c=5, a=0, b=6, kind="free", stiffness=5.0), Joint(c=7, a=2, b=8, kind="free", stiffness=5.0)]
    return Body(spheres, bones, joints, [Cluster([0, 1, 2, 3, 4])], name="cluster walker")


def block(degrees: float = 0.0, friction: float = 0.5, kinetic_friction: float | None = None) -> Body:
    """A rigid triangle of three 1 kg spheres (radius 5 cm, base 40 cm), its base resting on a
    line through the origin inclined by ``degrees``: a block for friction tests."""
    th = np.radians(degrees)
    along = np.array([np.cos(th), np.sin(th)])
    up = np.array([-np.sin(th), np.cos(th)])
    r = 0.05
    pts = [s * along + r * up for s in (-0.2, 0.2)] + [(r + 0.15) * up]
    spheres = [Sphere(tuple(p), radius=r, mass=1.0, friction=friction, kinetic_friction=kinetic_friction)
               for p in pts]
    return Body(spheres, [Bone(0, 1), Bone(1, 2), Bone(0, 2)], name="block")


#: the bodies whose internal forces must conserve momentum: bones and muscles, joints, a cluster,
#: and self-collisions
BODIES = {
    "walker": physics.examples.walker,
    "hinge arm": hinge_arm,
    "cluster walker": cluster_walker,
    "chain": physics.examples.chain,
}


# runs -------------------------------------------------------------------------------------------
def bang_bang(rng, steps: int, batch: int, muscles: int, hold: int = 2) -> np.ndarray:
    """Random sign commands, a new sign for every muscle every ``hold`` steps: shape (T, B, M)."""
    n = -(-steps // hold)
    signs = rng.choice([-1.0, 1.0], size=(n, batch, muscles))
    return np.repeat(signs, hold, axis=0)[:steps]


def run(model, state, commands, params, terrain=None, each=None):
    """Step through ``commands`` of shape (T, B, M), calling ``each(state)`` after every step."""
    for cmd in commands:
        state = physics.step(model, state, cmd, params, terrain)
        if each is not None:
            each(state)
    return state


def rotation_velocities(model, omega) -> np.ndarray:
    """Velocities (B, P, 2) of each creature's rest pose spinning rigidly at ``omega`` (B,)
    rad/s about its centre of mass."""
    m = model.mass[..., None]
    c = (m * model.rest_pos).sum(1) / m.sum(1)
    r = model.rest_pos - c[:, None, :]
    return np.asarray(omega, dtype=np.float64).reshape(-1, 1, 1) * np.stack([-r[..., 1], r[..., 0]], -1)


# reference measurements --------------------------------------------------------------------------
def momentum(model, state) -> np.ndarray:
    """Linear momentum of each creature, sum m v: shape (B, 2)."""
    return np.einsum("bp,bpk->bk", model.mass, state.vel)


def _about_com(model, state):
    m = model.mass
    msum = m.sum(1)[:, None, None]
    r = state.pos - (m[..., None] * state.pos).sum(1, keepdims=True) / msum
    u = state.vel - (m[..., None] * state.vel).sum(1, keepdims=True) / msum
    return m, r, u


def angular_momentum(model, state) -> np.ndarray:
    """Angular momentum of each creature about its centre of mass, sum m (r - c) x (v - V):
    shape (B,). With half-step velocities, ``x[n] x (x[n] - x[n-1]) / h`` is the quantity Verlet
    conserves exactly for free particles, so no midpoint correction is needed."""
    m, r, u = _about_com(model, state)
    return np.einsum("bp,bp->b", m, r[..., 0] * u[..., 1] - r[..., 1] * u[..., 0])


def angular_scale(model, state) -> np.ndarray:
    """sum m |r - c| |v - V|, shape (B,): the most angular momentum the creature's motion about
    its centre of mass could carry; angular momentum errors are measured against it."""
    m, r, u = _about_com(model, state)
    return np.einsum("bp,bp->b", m, np.linalg.norm(r, axis=-1) * np.linalg.norm(u, axis=-1))


def polyline_distance(xs, ys, px, py, reach: float = 1.0) -> np.ndarray:
    """Signed distance from the points (px, py) (arrays of one shape) to the ground below the
    polyline through (xs, ys), which continues flat beyond its ends: positive above the ground.

    Brute force: the exact distance to every segment within ``reach`` of the points' x range.
    Distances up to ``reach`` are exact; larger ones are only known to exceed it."""
    px = np.asarray(px, dtype=np.float64)
    py = np.asarray(py, dtype=np.float64)
    xs = np.concatenate([[min(xs[0], px.min()) - 2 * reach], xs, [max(xs[-1], px.max()) + 2 * reach]])
    ys = np.concatenate([[ys[0]], ys, [ys[-1]]])
    keep = (xs[1:] >= px.min() - reach) & (xs[:-1] <= px.max() + reach)
    ax, ay = xs[:-1][keep], ys[:-1][keep]
    ex, ey = np.diff(xs)[keep], np.diff(ys)[keep]
    qx, qy = px.reshape(-1, 1), py.reshape(-1, 1)
    u = np.clip(((qx - ax) * ex + (qy - ay) * ey) / (ex * ex + ey * ey), 0.0, 1.0)
    d = np.hypot(qx - (ax + u * ex), qy - (ay + u * ey)).min(axis=1)
    above = qy[:, 0] >= np.interp(qx[:, 0], xs, ys)
    return np.where(above, d, -d).reshape(px.shape)


def varied_model(body: Body, batch: int, rng, off: float = 0.3) -> physics.Model:
    """``batch`` creatures of ``body``'s topology, each with a body of its own (what body
    evolution makes, ``Model.with_values``): rest positions moved by up to 2 cm, radii, masses,
    friction, muscle strengths, ranges and speeds, bone compliances and joint stiffnesses
    drawn per creature, and each bone, joint and non-cluster sphere switched off with
    probability ``off`` (a sphere switched off takes its bones and joints with it)."""
    base = physics.build_model(body, batch)
    P, E, J = base.n_spheres, base.n_bones, base.n_joints
    in_cluster = np.zeros(P, dtype=bool)
    in_cluster[base.cluster_sphere] = True
    sphere_on = (rng.random((batch, P)) >= off / 3) | in_cluster
    values = dict(
        rest_pos=base.rest_pos + rng.uniform(-0.02, 0.02, base.rest_pos.shape),
        radius=base.radius * rng.uniform(0.7, 1.3, (batch, P)),
        mass=base.mass * rng.uniform(0.5, 2.0, (batch, P)),
        friction=rng.uniform(0.5, 1.2, (batch, P)), kinetic_friction=0.4,
        muscle_strength=rng.uniform(50.0, 300.0, (batch, base.n_muscles)),
        muscle_range=rng.uniform(0.1, 0.4, (batch, base.n_muscles)),
        muscle_speed=rng.uniform(1.0, 4.0, (batch, base.n_muscles)),
        bone_compliance=np.where(rng.random((batch, E)) < 0.2, 1e-4, 0.0),
        joint_stiffness=rng.uniform(0.0, 10.0, (batch, J)),
        sphere_on=sphere_on, bone_on=rng.random((batch, E)) >= off, joint_on=rng.random((batch, J)) >= off)
    # joint limits widened to hold the moved rest angles
    u = values["rest_pos"][:, base.joint_a] - values["rest_pos"][:, base.joint_c]
    v = values["rest_pos"][:, base.joint_b] - values["rest_pos"][:, base.joint_c]
    rest = np.arctan2(u[..., 0] * v[..., 1] - u[..., 1] * v[..., 0], (u * v).sum(-1))
    values["joint_min"] = np.minimum(base.joint_min, rest - 1e-6)
    values["joint_max"] = np.maximum(base.joint_max, rest + 1e-6)
    values["joint_min"] = np.maximum(values["joint_min"], -np.pi)
    values["joint_max"] = np.minimum(values["joint_max"], np.pi)
    return base.with_values(**values)

"""Reference bodies the engine's benchmark and tests use (designs for people live in YAML).

``walker()`` is the benchmark's reference creature: 8 spheres, 14 bones of which 6 are muscles.
Its torso is a braced quadrilateral (its one redundant bone is rigid and consistent, so nothing
fights); each leg is a thigh plus three muscles (shin, hip, knee), which fix the leg's two free
spheres exactly once: 13 independent constraints for the 13 internal degrees of freedom.
"""

from __future__ import annotations

import numpy as np

from .model import Body, Bone, Muscle, Sphere

__all__ = ["walker", "pendulum", "chain"]


def walker(strength: float = 150.0, speed: float = 2.0) -> Body:
    """The reference walker: a braced torso on two three-muscle legs, 1.4 m long, 8 kg.

    Each leg hangs from a hip sphere H by a rigid thigh to the knee K; the shin K-F (range 0.1),
    the knee muscle H-F (range 0.08) and the hip muscle R-K from the rump or chest R (range 0.2)
    move it. No combination of commands asks a triangle for impossible sides, nor brings a hip
    or knee within 10 % of straight, where a muscle loses its lever arm and can only fight the
    skeleton (R sits where R-H is perpendicular to the thigh, which gives the hip its widest
    swing).
    """
    torso = dict(radius=0.08, mass=1.5, friction=0.8)
    limb = dict(radius=0.08, mass=0.5, friction=0.8)
    foot = dict(radius=0.1, mass=0.5, friction=1.0, kinetic_friction=0.8)
    spheres = [
        Sphere((-0.40, 0.90), **torso), Sphere((0.40, 0.90), **torso),   # 0, 1: hips
        Sphere((-0.626, 1.098), **torso), Sphere((0.626, 1.098), **torso),  # 2, 3: rump, chest
        Sphere((-0.75, 0.50), **limb), Sphere((-0.45, 0.10), **foot),    # 4, 5: hind knee, foot
        Sphere((0.75, 0.50), **limb), Sphere((0.45, 0.10), **foot),      # 6, 7: fore knee, foot
    ]
    bones = [Bone(0, 1), Bone(2, 3), Bone(0, 2), Bone(1, 3), Bone(0, 3), Bone(1, 2)]
    for hip, top, knee, ft in ((0, 2, 4, 5), (1, 3, 6, 7)):
        bones += [Bone(hip, knee),
                  Bone(knee, ft, muscle=Muscle(range=0.1, strength=strength, speed=speed)),
                  Bone(top, knee, muscle=Muscle(range=0.2, strength=strength, speed=speed)),
                  Bone(hip, ft, muscle=Muscle(range=0.08, strength=strength, speed=speed))]
    return Body(spheres, bones, name="walker")


def pendulum(length: float = 1.0, angle: float = 0.05, bob_mass: float = 1.0) -> Body:
    """A bob on a rigid massless rod from a pinned pivot at (0, 0), ``angle`` radians from rest."""
    pivot = Sphere((0.0, 0.0), radius=0.01, mass=1.0, fixed=True)
    bob = Sphere((length * np.sin(angle), -length * np.cos(angle)), radius=0.01, mass=bob_mass)
    return Body([pivot, bob], [Bone(0, 1)], name="pendulum")


def chain(links: int = 6, spacing: float = 0.25, radius: float = 0.1) -> Body:
    """A worm-like chain of spheres on a line, each link a muscle, self-collision on."""
    spheres = [Sphere((k * spacing, radius), radius=radius, mass=0.5) for k in range(links + 1)]
    bones = [Bone(k, k + 1, muscle=Muscle(range=0.3)) for k in range(links)]
    return Body(spheres, bones, self_collision=True, name="chain")

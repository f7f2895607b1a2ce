"""A design's looks as the viewer draws them (render/bodies.py): a creature alone in its spheres'
and bones' own colours, with its eyes; racing ghosts keep one colour each (to tell them apart)."""

from __future__ import annotations

import dataclasses

import numpy as np

from render import Snapshot
from render_helpers import PhysicsSource

TEAL, NAVY = (40, 150, 150), (30, 40, 110)


def _dressed(source, eyes=True):
    shapes = []
    for shape in source.scene.creatures:
        P, E = len(shape.radius), len(shape.bone_a)
        rigid = np.flatnonzero(np.asarray(shape.rigid, bool))
        bone_colored = np.zeros(E, bool)
        bone_colored[rigid] = True
        shapes.append(dataclasses.replace(
            shape, sphere_color=np.tile(np.array(TEAL, np.uint8), (P, 1)), sphere_colored=np.ones(P, bool),
            bone_color=np.tile(np.array(NAVY, np.uint8), (E, 1)), bone_colored=bone_colored,
            eyes=np.arange(P) == 3 if eyes else None))
    source.scene = dataclasses.replace(source.scene, creatures=shapes)
    return source


def _near(img, color, tol=3) -> int:
    return int(np.all(np.abs(img.astype(int) - np.array(color)) <= tol, axis=2).sum())


def _picture(source):
    with Snapshot(source, size=(480, 270), zoom=160, hud=False) as snap:
        return snap.take(), snap.viewer.bodies


def test_a_creature_alone_wears_its_looks_and_its_eye(window):
    img, bodies = _picture(_dressed(PhysicsSource(duration=1.0)))
    assert _near(img, TEAL) > 300 and _near(img, NAVY) > 100
    assert len(bodies.eyes) == 1
    k, r, white, pupil = bodies.eyes[0]
    assert white.visible and pupil.visible and pupil.center_x > white.center_x   # looking right
    assert _near(img, (255, 255, 255)) > 10 and _near(img, (20, 20, 26)) > 3
    plain, _ = _picture(PhysicsSource(duration=1.0))
    assert _near(plain, TEAL) == 0 and _near(plain, NAVY) == 0


def test_racing_ghosts_keep_their_own_colours(window):
    img, bodies = _picture(_dressed(PhysicsSource(n=2, duration=1.0), eyes=False))
    assert _near(img, TEAL) == 0 and _near(img, NAVY) == 0 and bodies.eyes == []

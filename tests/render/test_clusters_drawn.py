"""Rigid clusters have no bones of their own: the viewer draws each as a closed outline in the
rigid bones' colour, so a clustered torso does not look like loose spheres."""

import dataclasses

import numpy as np
from render_helpers import PhysicsSource, near, pixel, screen_pixels

import physics
from render.theme import BONE_RIGID, SKY
from render.viewer import Viewer


def _square() -> physics.Body:
    """Four spheres on a 1 m square held by one cluster, and a bone-less pair beside it."""
    spheres = [physics.Sphere((x, y), radius=0.05) for x, y in ((0, 1), (1, 1), (1, 2), (0, 2))]
    return physics.Body(spheres, [], clusters=[physics.Cluster([0, 1, 2, 3])], name="square")


def test_a_cluster_is_drawn_as_its_outline(window):
    source = PhysicsSource(body=_square(), duration=None, brain=False)
    source.params = physics.SimParams(dt=source.params.dt, gravity=0.0, ground=False)
    shape = dataclasses.replace(source.scene.creatures[0], clusters=(np.array([0, 1, 2, 3]),))
    source.scene = dataclasses.replace(source.scene, creatures=[shape])
    viewer = Viewer(source, window=window, follow=False, interpolate=False, poll_interval=None,
                    close_on_quit=False, zoom=120.0)
    pos = viewer.frame.creatures[0].pos
    centre = pos.mean(axis=0)
    viewer.camera_position = tuple(centre)
    viewer.on_draw()
    px = screen_pixels(viewer.window)
    for a, b in ((0, 1), (1, 2), (2, 3), (3, 0)):      # the middle of every side: an outline
        sx, sy = viewer.world_to_screen(*(0.5 * (pos[a] + pos[b])))
        assert near(pixel(px, sx, sy), BONE_RIGID, tol=40), (a, b, pixel(px, sx, sy))
    sx, sy = viewer.world_to_screen(*centre)            # not filled, and no diagonal
    assert near(pixel(px, sx, sy), SKY)

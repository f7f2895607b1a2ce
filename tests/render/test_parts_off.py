"""A creature whose body evolved may have parts switched off (``CreatureShape.sphere_on``,
``bone_on``, ``joint_on``): the viewer draws none of them, nor the bones and joints at a sphere
switched off, and neither the camera nor the label goes by a sphere that is not there."""

import dataclasses

import numpy as np
from render_helpers import PhysicsSource, near, pixel, screen_pixels

import physics
from render.theme import BONE_RIGID, SKY
from render.viewer import Viewer


def _row() -> physics.Body:
    """Spheres A B C D one metre apart in a row, bones A-B, B-C (a muscle) and C-D, joints at
    B and D."""
    spheres = [physics.Sphere((x, 1.0), radius=0.05) for x in (0.0, 1.0, 2.0, 3.0)]
    bones = [physics.Bone(0, 1), physics.Bone(1, 2, muscle=physics.Muscle()), physics.Bone(2, 3)]
    joints = [physics.Joint(c=1, a=0, b=2, kind="free"), physics.Joint(c=3, a=2, b=1, kind="free")]
    return physics.Body(spheres, bones, joints, name="row")


def _viewer(window, **masks):
    source = PhysicsSource(body=_row(), duration=None, brain=False)
    source.params = physics.SimParams(dt=source.params.dt, gravity=0.0, ground=False)
    shape = dataclasses.replace(source.scene.creatures[0], **masks)
    source.scene = dataclasses.replace(source.scene, creatures=[shape])
    viewer = Viewer(source, window=window, follow=False, interpolate=False, poll_interval=None,
                    close_on_quit=False, zoom=120.0)
    viewer.camera_position = tuple(viewer.frame.creatures[0].pos.mean(axis=0))
    return viewer


def _drawn(viewer):
    viewer.on_draw()
    px = screen_pixels(viewer.window)
    pos = viewer.frame.creatures[0].pos

    def at(p):
        return pixel(px, *viewer.world_to_screen(*p))

    return pos, at


def test_every_part_is_drawn_when_no_mask_is_given(window):
    pos, at = _drawn(_viewer(window))
    assert near(at(0.5 * (pos[0] + pos[1])), BONE_RIGID, tol=40)
    assert not near(at(0.5 * (pos[1] + pos[2])), SKY, tol=30)      # the muscle
    assert near(at(0.5 * (pos[2] + pos[3])), BONE_RIGID, tol=40)
    assert not near(at(pos[3]), SKY, tol=30)


def test_switched_off_spheres_bones_and_muscles_are_not_drawn(window):
    viewer = _viewer(window, sphere_on=np.array([True, True, True, False]),
                     bone_on=np.array([True, False, True]))
    pos, at = _drawn(viewer)
    assert near(at(0.5 * (pos[0] + pos[1])), BONE_RIGID, tol=40)   # on: drawn
    assert not near(at(pos[2]), SKY, tol=30)                        # sphere C is there
    assert near(at(0.5 * (pos[1] + pos[2])), SKY)                   # the muscle switched off
    assert near(at(pos[3]), SKY)                                    # sphere D switched off
    assert near(at(0.5 * (pos[2] + pos[3])), SKY)                   # and the bone to it


def test_joints_at_switched_off_spheres_get_no_angle_and_the_camera_ignores_them(window):
    viewer = _viewer(window, sphere_on=np.array([True, True, True, False]))
    viewer.show_sensors = True
    viewer.on_draw()
    angles = viewer.bodies.angle_labels.items[:viewer.bodies.angle_labels.used]
    assert len(angles) == 1                       # the joint at B, not the one at D
    viewer.follow = True
    viewer.snap_camera()
    pos = viewer.frame.creatures[0].pos
    middle = 0.5 * (pos[0, 0] + pos[2, 0])
    assert viewer.camera_position[0] == middle    # the middle of A..C, not of A..D
    viewer.on_draw()
    label = viewer.bodies.labels[0]              # and the label above A..C
    sx, _ = viewer.world_to_screen(middle, 1.0)
    assert abs(label.x - sx) <= 1


def test_a_joint_switched_off_gets_no_angle(window):
    viewer = _viewer(window, joint_on=np.array([False, True]))
    viewer.show_sensors = True
    viewer.on_draw()
    assert viewer.bodies.angle_labels.used == 1


def test_a_cluster_outline_skips_a_member_switched_off(window):
    spheres = [physics.Sphere((x, y), radius=0.05) for x, y in ((0, 1), (1, 1), (1, 2), (0, 2))]
    body = physics.Body(spheres, [], clusters=[physics.Cluster([0, 1, 2, 3])], name="square")
    source = PhysicsSource(body=body, duration=None, brain=False)
    source.params = physics.SimParams(dt=source.params.dt, gravity=0.0, ground=False)
    shape = dataclasses.replace(source.scene.creatures[0], clusters=(np.array([0, 1, 2, 3]),),
                                sphere_on=np.array([True, True, True, False]))
    source.scene = dataclasses.replace(source.scene, creatures=[shape])
    viewer = Viewer(source, window=window, follow=False, interpolate=False, poll_interval=None,
                    close_on_quit=False, zoom=120.0)
    viewer.camera_position = tuple(viewer.frame.creatures[0].pos.mean(axis=0))
    pos, at = _drawn(viewer)
    assert near(at(0.5 * (pos[0] + pos[1])), BONE_RIGID, tol=40)
    assert near(at(0.5 * (pos[1] + pos[2])), BONE_RIGID, tol=40)
    assert near(at(0.5 * (pos[2] + pos[0])), BONE_RIGID, tol=40)   # closed through the others
    assert near(at(0.5 * (pos[2] + pos[3])), SKY) and near(at(0.5 * (pos[3] + pos[0])), SKY)

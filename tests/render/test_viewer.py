"""The viewer, driven by hand (on_update / on_draw / on_key_press) in a hidden headless window:
what it draws (read back as pixels), how it steps the source, and what the keys do."""

import math

import arcade
import numpy as np
import pytest
from render_helpers import PhysicsSource, ball, near, pixel, screen_pixels

import physics
from render.theme import CONTACT, GROUND, SKY, SPHERE
from render.viewer import Viewer

K = arcade.key


def make_viewer(window, source, **options):
    options = {"interpolate": False, "poll_interval": None, "close_on_quit": False, **options}
    return Viewer(source, window=window, **options)


def draw(viewer):
    viewer.on_draw()
    return screen_pixels(viewer.window)


def lone_sphere(viewer, creature=0):
    """Index (within the creature) and centre of a sphere that no other sphere covers."""
    pos = viewer.frame.creatures[creature].pos
    r = viewer.scene.creatures[creature].radius
    for i in range(len(pos)):
        d = np.hypot(*(pos - pos[i]).T)
        d[i] = np.inf
        if np.all(d > r + r[i] + 0.02):
            return i, pos[i]
    raise AssertionError("every sphere touches another")


# drawing ------------------------------------------------------------------------------------------
def test_sphere_is_drawn_where_the_state_puts_it(window):
    source = PhysicsSource(duration=1.0)
    viewer = make_viewer(window, source, follow=False)
    for _ in range(20):
        viewer.on_update(1 / 60)
    i, (x, y) = lone_sphere(viewer)
    viewer.camera_position = (x + 0.3, y - 0.2)          # a known, off-centre place
    px = draw(viewer)
    sx, sy = viewer.world_to_screen(x, y)
    assert near(pixel(px, sx, sy), SPHERE)
    assert near(pixel(px, sx + 2.5 * viewer.zoom, sy + 0.5 * viewer.zoom), SKY)  # far from it: sky


def test_world_to_screen_agrees_with_arcade_camera(window):
    viewer = make_viewer(window, PhysicsSource(duration=1.0), follow=False, camera=(3.0, -1.0), zoom=80)
    viewer.on_draw()
    sx, sy = viewer.world_to_screen(4.25, 0.5)
    p = viewer.camera.world.project((4.25, 0.5))
    assert (sx, sy) == pytest.approx((p[0], p[1]), abs=1e-3)


def test_terrain_is_filled_below_its_line_and_not_above(window):
    xs = np.array([-2.0, 0.0, 1.0, 2.0, 3.0, 4.0])
    ys = np.array([0.0, 0.0, 0.3, -0.2, 0.4, 0.4])
    source = PhysicsSource(terrain=physics.Terrain(xs, ys), duration=1.0)
    viewer = make_viewer(window, source, follow=False, camera=(3.0, 0.5), zoom=60)
    px = draw(viewer)
    # between the metre ticks, away from the walker (x < 1.2) and the HUD; x > 4 is the flat
    # continuation beyond the terrain's last vertex
    for x in (1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5):
        ground = np.interp(x, xs, ys)
        sx, sy = viewer.world_to_screen(x, ground)
        assert near(pixel(px, sx, sy - 12), GROUND), x
        assert near(pixel(px, sx, sy + 12), SKY), x


# stepping -----------------------------------------------------------------------------------------
def test_steps_follow_accumulated_time_at_the_fixed_rate(window):
    source = PhysicsSource(duration=None)
    viewer = make_viewer(window, source)
    total = 0.0
    for dt in (0.031, 0.007, 0.013, 0.05, 0.0021, 0.029, 0.0333, 0.004, 0.06, 0.017) * 3:
        viewer.on_update(dt)
        total += dt
        assert viewer.frame.step == math.floor(total / source.scene.dt + 1e-9)
    assert source.steps_called == viewer.frame.step


def test_speed_keys_double_halve_and_clamp(window):
    viewer = make_viewer(window, PhysicsSource(duration=None))
    seen = []
    for _ in range(6):
        viewer.on_key_press(K.BRACKETRIGHT, 0)
        seen.append(viewer.speed)
    assert seen == [2, 4, 8, 16, 16, 16]
    seen = []
    for _ in range(8):
        viewer.on_key_press(K.BRACKETLEFT, 0)
        seen.append(viewer.speed)
    assert seen == [8, 4, 2, 1, 0.5, 0.25, 0.25, 0.25]


def test_four_times_speed_takes_four_steps_per_sixtieth(window):
    viewer = make_viewer(window, PhysicsSource(duration=None))
    viewer.on_key_press(K.BRACKETRIGHT, 0)
    viewer.on_key_press(K.BRACKETRIGHT, 0)
    assert viewer.speed == 4
    for k in range(1, 6):
        viewer.on_update(1 / 60)
        assert viewer.frame.step == 4 * k


def test_a_slow_frame_is_capped_and_the_excess_dropped(window):
    source = PhysicsSource(duration=None)
    viewer = make_viewer(window, source)          # max_lag 0.1 s
    viewer.on_update(5.0)
    assert viewer.frame.step == math.ceil(0.1 / source.scene.dt)
    viewer.on_update(1 / 60)
    assert viewer.frame.step == math.ceil(0.1 / source.scene.dt) + 1


def test_space_pauses_and_resumes(window):
    viewer = make_viewer(window, PhysicsSource(duration=None))
    viewer.on_update(0.1)
    viewer.on_key_press(K.SPACE, 0)
    assert viewer.paused
    stopped = viewer.frame.step
    for _ in range(10):
        viewer.on_update(1 / 30)
    assert viewer.frame.step == stopped
    assert viewer.status == "PAUSED"
    viewer.on_key_press(K.SPACE, 0)
    viewer.on_update(0.05)
    assert viewer.frame.step == stopped + 3


def test_period_takes_exactly_one_step_while_paused(window):
    source = PhysicsSource(duration=None)
    viewer = make_viewer(window, source)
    viewer.on_key_press(K.SPACE, 0)
    for k in range(1, 4):
        viewer.on_key_press(K.PERIOD, 0)
        viewer.on_update(1 / 60)
        assert viewer.frame.step == k
    assert source.steps_called == 3


def test_r_restarts_from_step_zero(window):
    source = PhysicsSource(duration=None)
    viewer = make_viewer(window, source)
    viewer.on_update(0.1)
    assert viewer.frame.step == 6
    viewer.on_key_press(K.R, 0)
    assert viewer.frame.step == 0
    assert source.resets == 1
    start = source.frame().creatures[0].pos
    assert np.array_equal(viewer.frame.creatures[0].pos, start)


def test_hud_fitness_meets_the_recorded_fitness_at_the_end(window):
    source = PhysicsSource(n=3, duration=0.75)
    viewer = make_viewer(window, source, speed=4.0)
    for _ in range(100):
        viewer.on_update(1 / 60)
    viewer.on_draw()
    assert viewer.frame.done and viewer.status == "DONE"
    for (now, recorded), value in zip(viewer.hud_fitness, source.recorded):
        assert now == recorded == f"{value:.4f}"
    assert any(f"{source.recorded[1]:.4f}" in line for line in viewer.hud_lines)
    steps = viewer.frame.step
    viewer.on_update(0.5)                       # done: no more steps
    assert viewer.frame.step == steps == 45


def test_hud_has_no_recorded_column_when_nothing_is_recorded(window):
    source = PhysicsSource(n=2, duration=None)      # open-ended, as a design's preview: nothing recorded
    viewer = make_viewer(window, source)
    viewer.on_update(1 / 60)
    viewer.on_draw()
    assert [rec for _, rec in viewer.hud_fitness] == ["-", "-"]
    for line in viewer.hud_lines[2:4]:
        assert "walker " in line and " / " not in line and not line.endswith(" -")
    assert [t.text for t in viewer.hud.columns] == ["now", ""]
    assert viewer.hud.recs.used == 0
    recorded = make_viewer(window, PhysicsSource(n=2, duration=0.5))
    recorded.on_update(1 / 60)
    recorded.on_draw()
    assert [t.text for t in recorded.hud.columns] == ["now", "recorded"]
    assert recorded.hud.recs.used == 2 and " / " in recorded.hud_lines[2]


def test_hud_shows_a_champions_fitness_from_fresh_starts_after_its_name(window):
    import dataclasses
    source = PhysicsSource(n=2, duration=0.5)
    first = dataclasses.replace(source.scene.creatures[0], info={**source.scene.creatures[0].info, "fresh": 41.5})
    source.scene = dataclasses.replace(source.scene, creatures=[first, *source.scene.creatures[1:]])
    viewer = make_viewer(window, source)
    viewer.on_update(1 / 60)
    viewer.on_draw()
    names = [row[0] for row in viewer.hud.rows]
    assert names[0].endswith("gen 10  (fresh starts 41.50)") and "fresh" not in names[1]


def test_hud_shows_time_and_speed(window):
    viewer = make_viewer(window, PhysicsSource(duration=2.0))
    viewer.on_key_press(K.BRACKETLEFT, 0)
    viewer.on_key_press(K.BRACKETLEFT, 0)
    for _ in range(4):
        viewer.on_update(0.05)
    viewer.on_draw()
    assert viewer.hud_lines[-1] == "t 0.05 / 2.00 s   speed 1/4x   step 3"
    assert viewer.hud_lines[0] == "test race"


# camera -------------------------------------------------------------------------------------------
def test_f_toggles_following_the_leader(window):
    source = PhysicsSource(n=2, spacing=4.0, duration=None)
    viewer = make_viewer(window, source)
    assert viewer.follow
    viewer.camera_position = (-20.0, 5.0)
    viewer.on_update(1 / 60)
    assert viewer.camera_position[0] > -20.0            # moving toward the leader
    viewer.on_key_press(K.F, 0)
    assert not viewer.follow
    viewer.camera_position = (-20.0, 5.0)
    for _ in range(5):
        viewer.on_update(1 / 60)
    assert viewer.camera_position == (-20.0, 5.0)       # free: stays
    viewer.on_key_press(K.F, 0)
    for _ in range(240):
        viewer.on_update(1 / 60)
    leader = viewer.frame.creatures[viewer.frame.leader].pos
    # (within 10 cm: the camera eases toward a leader that walks on, aiming at what is drawn,
    # between its last two steps)
    assert abs(viewer.camera_position[0] - 0.5 * (leader[:, 0].min() + leader[:, 0].max())) < 0.1


def test_zoom_keys_and_wheel(window):
    viewer = make_viewer(window, PhysicsSource(duration=None), follow=False)
    z = viewer.zoom
    viewer.on_key_press(K.EQUAL, 0)
    assert viewer.zoom == pytest.approx(1.25 * z)
    viewer.on_key_press(K.MINUS, 0)
    assert viewer.zoom == pytest.approx(z)
    under = viewer.screen_to_world(100, 50)
    viewer.on_mouse_scroll(100, 50, 0, 2)
    assert viewer.zoom == pytest.approx(z * 1.15 ** 2)
    assert viewer.screen_to_world(100, 50) == pytest.approx(under)      # zoom about the cursor
    viewer.on_key_press(K.KEY_0, 0)
    assert viewer.zoom == pytest.approx(window.height / 6.0)


def test_arrows_and_drag_pan_a_free_camera(window):
    viewer = make_viewer(window, PhysicsSource(duration=None))
    x0, y0 = viewer.camera_position
    viewer.on_key_press(K.RIGHT, 0)
    assert not viewer.follow
    viewer.on_update(0.5)
    viewer.on_key_release(K.RIGHT, 0)
    x1, y1 = viewer.camera_position
    assert x1 > x0 and y1 == y0
    viewer.on_mouse_drag(10, 10, 30, -60, 1, 0)
    assert viewer.camera_position == pytest.approx((x1 - 30 / viewer.zoom, y1 + 60 / viewer.zoom))


def test_default_zoom_shows_a_walker_at_a_quarter_of_the_height(window):
    viewer = make_viewer(window, PhysicsSource(duration=None))
    assert 1.5 * viewer.zoom == pytest.approx(window.height / 4)


# overlays and panels ------------------------------------------------------------------------------
def test_h_toggles_the_help_overlay(window):
    viewer = make_viewer(window, PhysicsSource(duration=None))
    before = draw(viewer)
    viewer.on_key_press(K.H, 0)
    assert viewer.show_help
    shown = draw(viewer)
    h, w = before.shape[:2]
    middle = (slice(h // 2 - 40, h // 2 + 40), slice(w // 2 - 100, w // 2 + 100))
    assert np.abs(shown[middle].astype(int) - before[middle]).sum() > 0
    viewer.on_key_press(K.ESCAPE, 0)                    # ESC closes the help first
    assert not viewer.show_help and not viewer.quit_requested
    assert np.array_equal(draw(viewer), before)


def test_n_shows_the_brain_panel(window):
    source = PhysicsSource(duration=None)
    viewer = make_viewer(window, source)
    before = draw(viewer)
    viewer.on_key_press(K.N, 0)
    shown = draw(viewer)
    left, bottom, pw, ph = (int(v) for v in viewer.brain_panel.rect)
    panel = (slice(bottom + 5, bottom + ph - 5), slice(left + 5, left + pw - 5))
    changed = np.any(shown[panel] != before[panel], axis=2).mean()
    assert changed > 0.5                                # the panel covers its area
    assert [n.key for n in viewer.brain_panel.nodes[:4]] == [-1, -2, -3, -4]   # inputs first
    # node colours follow the live values
    viewer.on_update(0.3)
    later = draw(viewer)
    assert np.any(later[panel] != shown[panel])


def test_brain_panel_says_when_there_is_no_brain(window):
    viewer = make_viewer(window, PhysicsSource(duration=None, brain=False), show_brain=True)
    draw(viewer)
    texts = [t.text for t in viewer.brain_panel.texts.items[:viewer.brain_panel.texts.used]]
    assert texts == ["no brain"]


def test_tab_cycles_the_selected_creature(window):
    viewer = make_viewer(window, PhysicsSource(n=3, duration=None), show_brain=True)
    seen = []
    for _ in range(4):
        viewer.on_key_press(K.TAB, 0)
        seen.append(viewer.selected)
    viewer.on_key_press(K.TAB, K.MOD_SHIFT)
    seen.append(viewer.selected)
    assert seen == [1, 2, 0, 1, 0]
    viewer.on_draw()
    assert viewer.brain_panel.title.text == "brain: walker 0"
    assert viewer.hud_lines[2].startswith("> walker 0")


def test_s_marks_contacts_and_writes_joint_angles(window):
    source = PhysicsSource(duration=None)
    viewer = make_viewer(window, source)
    for _ in range(200):
        viewer.on_update(1 / 60)
        if viewer.frame.creatures[0].contact.any():
            break
    contact = viewer.frame.creatures[0].contact
    assert contact.any()
    before = draw(viewer)
    viewer.on_key_press(K.S, 0)
    shown = draw(viewer)
    k = int(np.flatnonzero(contact)[0])
    x, y = viewer.frame.creatures[0].pos[k]
    r = viewer.scene.creatures[0].radius[k]
    sx, sy = viewer.world_to_screen(x, y)
    reach = int((r + 0.05) * viewer.zoom)
    around = (slice(int(sy) - reach, int(sy) + reach), slice(int(sx) - reach, int(sx) + reach))

    def yellow(px):
        return int(np.sum(np.all(np.abs(px[around].astype(int) - CONTACT) <= 30, axis=2)))
    assert yellow(before) == 0 and yellow(shown) > 10      # a ring round the sphere on the ground
    angles = [t.text for t in viewer.bodies.angle_labels.items[:viewer.bodies.angle_labels.used]]
    expected = [f"{math.degrees(a):.0f}\u00b0" for a in viewer.frame.creatures[0].joint_angle]
    assert angles == expected and len(angles) == 2


def test_a_race_draws_every_label_and_translucent_creatures(window):
    source = PhysicsSource(n=10, body=ball(0.12), spacing=0.6, duration=None)
    viewer = make_viewer(window, source, follow=False, camera=(2.7, 1.2), zoom=90)
    px = draw(viewer)
    labels = viewer.bodies.labels
    assert [t.text for t in labels] == [f"ball {b}" for b in range(10)]
    assert all(t.visible for t in labels)
    colors = {c[:3] for c in viewer.colors}
    assert len(colors) == 10                            # a hue each
    for b, cf in enumerate(viewer.frame.creatures):
        sx, sy = viewer.world_to_screen(*cf.pos[0])
        seen = pixel(px, sx, sy)
        rgb, alpha = np.array(viewer.colors[b][:3]), viewer.colors[b][3] / 255
        assert alpha < 1
        assert near(seen, alpha * rgb + (1 - alpha) * np.array(SKY), tol=3)   # sky shows through
        t = labels[b]
        assert t.y > sy                                 # above its creature
        box = px[int(t.y) + 1:int(t.y) + 10, int(t.x) - 10:int(t.x) + 10]
        assert np.any(np.abs(box.astype(int) - SKY).sum(axis=2) > 60)   # text drawn there


def test_a_message_is_shown_over_the_last_scene(window):
    source = PhysicsSource(duration=None)
    viewer = make_viewer(window, source)
    before = draw(viewer)
    source.message = "walker.yaml:3:7: bone 4 joins sphere 9, which does not exist\nwalker.yaml:9:1: bad"
    shown = draw(viewer)
    left, bottom, width, height = (int(v) for v in viewer.overlays["message"])
    box = (slice(bottom + 2, bottom + height - 2), slice(left + 2, left + width - 2))
    assert np.abs(shown[box].astype(int) - before[box]).sum(axis=2).mean() > 30
    assert viewer.message_shown == source.message
    i, (x, y) = lone_sphere(viewer)
    sx, sy = viewer.world_to_screen(x, y)
    assert near(pixel(shown, sx, sy), SPHERE)           # the scene is still drawn behind it
    source.message = None
    assert np.array_equal(draw(viewer), before)


def test_poll_true_rereads_the_scene(window):
    source = PhysicsSource(n=1, duration=None)
    viewer = make_viewer(window, source, poll_interval=0.5)
    viewer.on_update(0.3)
    assert source.polls == 0
    viewer.on_update(0.3)
    assert source.polls == 1 and len(viewer.bodies.labels) == 1
    source.pending = PhysicsSource(n=3, duration=None, title="reloaded")
    viewer.on_update(0.5)
    assert source.polls == 2
    assert len(viewer.scene.creatures) == 3
    assert len(viewer.bodies.sprites) == 3 * 8 and len(viewer.bodies.labels) == 3
    viewer.on_draw()
    assert viewer.hud_lines[0] == "reloaded"
    assert len(viewer.hud_fitness) == 3


def test_q_quits(window):
    viewer = make_viewer(window, PhysicsSource(duration=None))
    viewer.on_key_press(K.Q, 0)
    assert viewer.quit_requested


def test_drawing_interpolates_between_the_last_two_steps(window):
    source = PhysicsSource(duration=None)
    viewer = make_viewer(window, source, interpolate=True)
    viewer.on_update(1 / 60)
    before = viewer.positions.copy()
    viewer.on_update(1.5 / 60)               # one more step, half a step owed
    after = viewer.positions
    assert viewer.frame.step == 2
    np.testing.assert_allclose(viewer.drawn_positions(), before + 0.5 * (after - before), atol=1e-9)
    viewer.on_key_press(K.SPACE, 0)          # paused: the frame itself
    np.testing.assert_array_equal(viewer.drawn_positions(), after)


def test_failed_creatures_with_non_finite_positions_are_skipped(window):
    class Broken(PhysicsSource):
        def frame(self):
            f = super().frame()
            f.creatures[1].pos[:] = np.nan
            f.creatures[1].failed = True
            return f

    viewer = make_viewer(window, Broken(n=2, spacing=2.0, duration=None), show_sensors=True)
    viewer.on_update(0.05)
    draw(viewer)
    assert [sp.visible for sp in viewer.bodies.sprites] == [True] * 8 + [False] * 8
    assert not viewer.bodies.labels[1].visible
    assert "FAILED" in viewer.hud_lines[3] and "FAILED" not in viewer.hud_lines[2]


def test_an_empty_scene_draws_terrain_and_hud(window):
    source = PhysicsSource(duration=None)
    empty = PhysicsSource(duration=None)
    empty.scene = type(source.scene)(terrain_x=source.scene.terrain_x, terrain_y=source.scene.terrain_y,
                                     creatures=[], dt=source.scene.dt, title="nothing")
    empty.frame = lambda: type(source.frame())(time=0.0, step=0, creatures=[])
    viewer = make_viewer(window, empty, show_brain=True, show_sensors=True, camera=(0.0, 1.0))
    viewer.on_key_press(K.TAB, 0)
    viewer.on_update(0.1)
    px = draw(viewer)
    assert viewer.hud_lines[0] == "nothing"
    sx, sy = viewer.world_to_screen(2.5, 0.0)
    assert near(pixel(px, sx, sy - 12), GROUND)


def test_resize_keeps_the_camera_consistent(window):
    viewer = make_viewer(window, PhysicsSource(duration=None), follow=False, camera=(1.0, 0.5))
    viewer.resize((400, 300))
    assert viewer.zoom == pytest.approx(300 / 6.0)
    viewer.on_draw()
    sx, sy = viewer.world_to_screen(2.0, 1.0)
    p = viewer.camera.world.project((2.0, 1.0))
    assert (sx, sy) == pytest.approx((p[0], p[1]), abs=1e-3)
    assert (sx, sy) == pytest.approx((200 + 50.0, 150 + 25.0))
    # resized again after drawing (the world camera zoomed in by then): arcade scales a
    # projection set on a zoomed camera, which shrank the world 50 times before this was fixed
    viewer.resize((320, 240))
    viewer.on_draw()
    sx, sy = viewer.world_to_screen(2.0, 1.0)
    p = viewer.camera.world.project((2.0, 1.0))
    assert (sx, sy) == pytest.approx((p[0], p[1]), abs=1e-3)
    assert (sx, sy) == pytest.approx((160 + 40.0, 120 + 20.0))


def test_no_ground_label_shows_under_a_panel_drawn_over_the_view(window):
    source = PhysicsSource(duration=1.0)
    viewer = make_viewer(window, source, follow=False)
    viewer.on_draw()
    labels = viewer.backdrop._tick_labels
    shown = [tuple(t.position) for t in labels.items[:labels.used]]
    assert shown                                             # the ground's metres are labelled
    w, h = viewer.camera.size
    viewer.reserved = [(w / 2, 0, w / 2, h)]                 # a panel over the right half
    viewer.on_draw()
    under = [tuple(t.position) for t in labels.items[:labels.used]]
    assert under and all(x < w / 2 - 30 for x, _ in under) and len(under) < len(shown)

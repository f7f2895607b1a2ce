"""The scene's medium as drawn: water blue and darker the deeper, wind as streaks that move with
it (none in still air), wings as translucent plates as thick as they are wide, no terrain when
there is no ground, and the medium in the HUD; the recorder draws the same."""

import dataclasses

import numpy as np
import pytest
from PIL import Image
from render_helpers import PhysicsSource, near, pixel, screen_pixels

import physics
from render import Snapshot, record
from render.backdrop import WATER_LEVELS
from render.theme import GROUND, SKY, WATER, WATER_DEEP, WATER_SHALLOW, WING
from render.viewer import Viewer

WATER_SCENE = dict(medium="water", fluid_density=1000.0, ground=False)
WIND = dict(medium="air, wind 3 m/s", fluid_density=1.2, flow=(3.0, 0.0))


def _source(body=None, **scene):
    source = PhysicsSource(body=body, duration=None, brain=False)
    source.scene = dataclasses.replace(source.scene, **scene)
    return source


def _viewer(window, source, **options):
    options = {"follow": False, "interpolate": False, "poll_interval": None, "close_on_quit": False,
               "hint": False, **options}
    return Viewer(source, window=window, **options)


def _draw(viewer):
    viewer.on_draw()
    return screen_pixels(viewer.window)


def _row_colour(px, viewer, y, x0=320, x1=630):
    """The median colour of the screen row at world height ``y``, right of the HUD (motes are a
    few pixels of it)."""
    _, sy = viewer.world_to_screen(0.0, y)
    return np.median(px[int(sy), x0:x1].astype(float), axis=0)


# water ----------------------------------------------------------------------------------------------
def test_water_is_blue_and_darker_the_deeper(window):
    # the walker stands near x = 0; the camera looks at x = 40, from 6 m above y = 0 to 14 m below
    viewer = _viewer(window, _source(**WATER_SCENE), camera=(40.0, -4.0), zoom=18.0)
    px = _draw(viewer)
    heights = (5.5, WATER_LEVELS[1], -3.0, -6.0, -9.0, -13.5)
    rows = [_row_colour(px, viewer, y) for y in heights]
    for y, c in zip(heights, rows):
        assert c[2] > c[0] + 40 and c[2] > c[1], (y, c)        # blue
    brightness = [c.sum() for c in rows]
    assert all(a > b + 20 for a, b in zip(brightness, brightness[1:])), brightness
    assert near(rows[0], WATER_SHALLOW, 2)                        # above the shallow level
    assert near(rows[1], WATER, 3)                                # at the reference level
    assert near(rows[-1], WATER_DEEP, 2)                          # below the deep level
    # and not the sky: a scene with no medium is drawn as before
    dry = _viewer(window, _source(ground=False), camera=(40.0, -4.0), zoom=18.0)
    assert near(_row_colour(_draw(dry), dry, -6.0), SKY, 1)


def test_the_depth_shading_is_fixed_to_world_heights_not_to_the_screen(window):
    viewer = _viewer(window, _source(**WATER_SCENE), camera=(40.0, 0.0), zoom=40.0)
    middle = _row_colour(_draw(viewer), viewer, 0.0)
    viewer.camera_position = (40.0, -5.0)        # the camera goes 5 m deeper
    px = _draw(viewer)
    _, sy = viewer.world_to_screen(0.0, -5.0)
    assert sy == pytest.approx(180.0)             # the same screen row as before...
    assert _row_colour(px, viewer, -5.0).sum() < middle.sum() - 30   # ...is darker now


def test_water_has_motes_that_drift_with_the_current(window):
    still = _viewer(window, _source(**WATER_SCENE), camera=(40.0, 0.0), zoom=60.0)
    flowing = _viewer(window, _source(**{**WATER_SCENE, "medium": "water, flow 0.5 m/s",
                                         "flow": (0.5, 0.0)}), camera=(40.0, 0.0), zoom=60.0)
    for v in (still, flowing):
        _draw(v)
        p0 = v.backdrop.flow_marks.data[:v.backdrop.flow_marks.count]["seg"].copy()
        assert v.backdrop.flow_marks.count >= 6
        for _ in range(12):
            v.on_update(1.0 / 60.0)
        _draw(v)
        p1 = v.backdrop.flow_marks.data[:v.backdrop.flow_marks.count]["seg"]
        moved = p1[:, 2:] - p0[:, 2:]
        if v is still:
            assert np.array_equal(p1, p0)              # still water: the motes stay
        else:                                           # 0.2 s at 0.5 m/s, but for wrapping
            unwrapped = np.abs(moved[:, 0]) < 1.0
            assert unwrapped.sum() >= 0.8 * len(moved)
            assert moved[unwrapped, 0] == pytest.approx(0.1, abs=1e-4)
            assert np.all(moved[:, 1] == 0.0)
            assert np.all(p1[:, 0] < p1[:, 2])          # a tail behind each, upstream


# wind -----------------------------------------------------------------------------------------------
def _sky_region(px):
    """Pixels of the sky right of the HUD, above the ground (the walker is far to the left)."""
    return px[130:250, 330:630]


def test_wind_shows_as_streaks_and_still_air_as_sky(window):
    cam = dict(camera=(40.0, 2.0), zoom=60.0)
    still = _viewer(window, _source(medium="air", fluid_density=1.2), **cam)
    sky = _sky_region(_draw(still))
    assert np.all(np.abs(sky.astype(int) - SKY).max(axis=2) <= 1)     # no streaks at all
    assert still.backdrop.flow_marks.count == 0
    windy = _viewer(window, _source(**WIND), **cam)
    first = _sky_region(_draw(windy))
    streaked = np.abs(first.astype(int) - SKY).max(axis=2) > 12
    assert streaked.sum() > 50
    assert np.all(first[streaked].astype(int) >= np.array(SKY) - 1)   # lighter than the sky
    for _ in range(6):
        windy.on_update(1.0 / 60.0)
    second = _sky_region(_draw(windy))
    assert np.any(second != first)                                      # they move


@pytest.mark.parametrize("speed", [1.5, 3.0])
def test_streaks_move_with_the_wind(window, speed):
    source = _source(**{**WIND, "flow": (0.0, -speed)})                # a wind blowing down
    viewer = _viewer(window, source, camera=(40.0, 2.0), zoom=60.0)
    _draw(viewer)
    p0 = viewer.backdrop.flow_marks.data[:viewer.backdrop.flow_marks.count]["seg"].copy()
    for _ in range(6):
        viewer.on_update(1.0 / 60.0)
    _draw(viewer)
    p1 = viewer.backdrop.flow_marks.data[:viewer.backdrop.flow_marks.count]["seg"]
    moved = p1 - p0
    unwrapped = np.abs(moved[:, 3]) < 1.0
    assert unwrapped.sum() >= 0.8 * len(moved)
    assert moved[unwrapped, 3] == pytest.approx(-speed * 0.1, abs=1e-4)   # 0.1 s of the wind
    assert np.all(moved[:, 0] == 0.0)
    # each streak trails the wind: its tail above its head, longer for a stronger wind
    length = p1[:, 1] - p1[:, 3]
    assert length == pytest.approx(np.full(len(length), speed * 0.3), rel=1e-5)


def test_the_hud_names_the_medium(window):
    viewer = _viewer(window, _source(**WIND))
    assert "medium: air, wind 3 m/s" in viewer.hud_lines
    viewer = _viewer(window, _source(**WATER_SCENE))
    assert "medium: water, no ground" in viewer.hud_lines
    plain = _viewer(window, _source())
    assert not any("medium" in line or "ground" in line for line in plain.hud_lines)
    assert plain.hud_lines[2].startswith("walker 0")


# no ground ------------------------------------------------------------------------------------------
def test_no_ground_draws_no_terrain(window):
    xs = np.array([-2.0, 0.0, 1.0, 2.0, 3.0, 4.0])
    ys = np.array([0.0, 0.0, 0.3, -0.2, 0.4, 0.4])
    terrain = physics.Terrain(xs, ys)
    for ground in (True, False):
        source = PhysicsSource(terrain=terrain, duration=1.0)
        source.scene = dataclasses.replace(source.scene, ground=ground)
        viewer = _viewer(window, source, camera=(3.0, 0.5), zoom=60)
        px = _draw(viewer)
        for x in (1.5, 2.5, 3.5, 4.5, 5.5):
            sx, sy = viewer.world_to_screen(x, np.interp(x, xs, ys))
            assert near(pixel(px, sx, sy - 12), GROUND if ground else SKY), (ground, x)
            assert near(pixel(px, sx, sy + 12), SKY), (ground, x)
        green = np.all(np.abs(px.astype(int) - GROUND) <= 3, axis=2).sum()
        assert (green > 10000) if ground else (green == 0)
        # the metre marks: on the ground, or along the bottom of the view
        tick_rows = px[:6, :, :].astype(int).sum(axis=2) < 300
        assert tick_rows.any() != ground
    # the camera, the steps and the HUD go on as before
    for _ in range(30):
        viewer.on_update(1.0 / 60.0)
    viewer.follow = True
    viewer.snap_camera()
    _draw(viewer)
    assert viewer.frame.step == 30 and "no ground" in viewer.hud_lines


# wings ----------------------------------------------------------------------------------------------
def _bird() -> physics.Body:
    """Two spheres 1.2 m apart joined by one bone, and a third above joined by a plain bone."""
    spheres = [physics.Sphere((0.0, 1.0), 0.05), physics.Sphere((1.2, 1.0), 0.05),
               physics.Sphere((0.6, 1.5), 0.05)]
    bones = [physics.Bone(0, 1), physics.Bone(0, 2), physics.Bone(1, 2)]
    return physics.Body(spheres, bones, name="bird")


def _wing_pixels(window, width, wing=(True, False, False)):
    """The frame of the bird (no ground, still) with its first bone a wing of ``width``."""
    source = _source(body=_bird(), ground=False)
    shape = source.scene.creatures[0]
    widths = None if width is None else np.array([width, 0.1, 0.1])
    shape = dataclasses.replace(shape, wing=None if wing is None else np.array(wing), bone_width=widths)
    source.scene = dataclasses.replace(source.scene, creatures=[shape])
    viewer = _viewer(window, source, zoom=150.0)
    pos = viewer.frame.creatures[0].pos
    viewer.camera_position = (float(pos[:, 0].mean()), float(pos[:, 1].mean()))
    return _draw(viewer), viewer


def _count_wing(px):
    """Pixels tinted towards the wing's colour: redder and less blue than the sky."""
    c = px.astype(int)
    return int(((c[..., 0] > SKY[0] + 4) & (c[..., 2] < SKY[2] - 8)).sum())


def test_a_wing_is_a_translucent_band_as_thick_as_its_plate_is_wide(window):
    # the orange spheres count too: what the wing adds is over the bird without one
    plain = _count_wing(_wing_pixels(window, 0.4, wing=(False, False, False))[0])
    assert _count_wing(_wing_pixels(window, 0.4, wing=None)[0]) == plain
    counts = {w: _count_wing(_wing_pixels(window, w)[0]) - plain for w in (0.1, 0.2, 0.4)}
    assert 0 < counts[0.1] < counts[0.2] < counts[0.4]
    # each 0.1 m more of plate adds a band of the bone's length (1.2 m at 150 px/m) times 0.1 m
    # (times 0.775: a lens, its ends 0.55 as thick as its middle)
    per_tenth = 0.775 * 1.2 * 0.1 * 150.0 ** 2
    assert counts[0.4] - counts[0.2] == pytest.approx(2 * per_tenth, rel=0.1)
    assert counts[0.2] - counts[0.1] == pytest.approx(per_tenth, rel=0.15)
    # clamped: never thicker than 0.6 of the bone's length; unknown width: half its length
    huge = _count_wing(_wing_pixels(window, 5.0)[0])
    assert huge == pytest.approx(_count_wing(_wing_pixels(window, 0.6 * 1.2)[0]), rel=0.01)
    assert huge - plain > 1.5 * counts[0.4]
    assert _count_wing(_wing_pixels(window, None)[0]) == pytest.approx(
        _count_wing(_wing_pixels(window, 0.6)[0]), rel=0.01)


def test_a_wing_is_translucent_and_under_its_bone(window):
    px, viewer = _wing_pixels(window, 0.4)
    plain, _ = _wing_pixels(window, 0.4, wing=(False, False, False))
    pos = viewer.frame.creatures[0].pos
    mid = 0.5 * (pos[0] + pos[1])
    sx, sy = viewer.world_to_screen(*mid)
    assert np.array_equal(pixel(px, sx, sy), pixel(plain, sx, sy))    # the bone's line on top
    inside = pixel(px, sx + 0.1 * viewer.zoom, sy + 0.1 * viewer.zoom)  # the band, off the bone
    for k in range(3):                          # between the sky and the wing colour: translucent
        lo, hi = sorted((SKY[k], WING[k]))
        assert lo - 1 <= inside[k] <= hi + 1
    assert not near(inside, SKY, 10) and not near(inside, WING, 10)
    # the other bones look as they did
    other = 0.5 * (pos[0] + pos[2])
    assert np.array_equal(pixel(px, *viewer.world_to_screen(*other)),
                          pixel(plain, *viewer.world_to_screen(*other)))


def test_the_sensors_write_each_wings_pitch(window):
    """With the sensors shown, a wing's pitch (its chord's angle to the horizontal, from its second
    sphere to its first) is written below its middle; without them, or for a bone that is no wing,
    nothing. The bird's wing runs from (0, 1) to (1.2, 1): level, listed trailing edge first it
    reads 180 degrees; leading edge first with the trailing edge 20 degrees down, 20."""
    def pitch_labels(viewer):
        used = viewer.bodies.angle_labels.items[:viewer.bodies.angle_labels.used]
        return [t.text for t in used if t.text.startswith("pitch")]
    _, viewer = _wing_pixels(window, 0.4)
    assert pitch_labels(viewer) == []
    viewer.show_sensors = True
    _draw(viewer)
    assert pitch_labels(viewer) == ["pitch 180\u00b0"]
    label = viewer.bodies.angle_labels.items[0]       # the bird has no joints: the only label
    pos = viewer.frame.creatures[0].pos
    mid = viewer.world_to_screen(*(0.5 * (pos[0] + pos[1])))
    assert abs(label.position[0] - mid[0]) < 10 and label.position[1] < mid[1]   # at its middle, below
    _, plain = _wing_pixels(window, 0.4, wing=(False, False, False))
    plain.show_sensors = True
    _draw(plain)
    assert pitch_labels(plain) == []
    body = _bird()
    body.spheres[0] = physics.Sphere((0.0, 1.0 - 1.2 * np.tan(np.radians(20.0))), 0.05)   # trailing edge down
    source = _source(body=physics.Body(body.spheres, [physics.Bone(1, 0), *body.bones[1:]], name="bird"),
                     ground=False)
    shape = dataclasses.replace(source.scene.creatures[0], wing=np.array([True, False, False]),
                                bone_width=np.array([0.4, 0.1, 0.1]))
    source.scene = dataclasses.replace(source.scene, creatures=[shape])
    tilted = _viewer(window, source, zoom=150.0, show_sensors=True)
    _draw(tilted)
    assert pitch_labels(tilted) == ["pitch 20\u00b0"]      # leading edge (on the right) first: nose up


# the recorder and snapshots draw the same ---------------------------------------------------------
def test_snapshots_and_recordings_draw_the_water(window, tmp_path):
    source = _source(**WATER_SCENE)
    with Snapshot(source, size=(480, 270), follow=False, camera=(40.0, 9.0), zoom=30.0) as snap:
        top = snap.take()
    # all of the view above the shallow level: the cleared background is the shallow water's
    assert near(np.median(top[110:220, 320:470].reshape(-1, 3), axis=0), WATER_SHALLOW, 1)
    out = tmp_path / "water.gif"
    record(source, out, seconds=0.1, size=(480, 270), fps=10, follow=False, camera=(40.0, -6.0),
           zoom=30.0)
    with Image.open(out) as im:
        frame = np.asarray(im.convert("RGB")).astype(int)
    deep = np.median(frame[230:250, 320:470].reshape(-1, 3), axis=0)
    high = np.median(frame[110:130, 320:470].reshape(-1, 3), axis=0)
    assert deep[2] > deep[0] + 40 and high[2] > high[0] + 40
    assert deep.sum() < high.sum() - 20

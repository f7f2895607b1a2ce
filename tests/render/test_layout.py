"""Boxes drawn over a view never cover each other (render/layout.py, render/overlay.py): the
rectangles' arithmetic, then the viewer's HUD, status word (DONE), brain panel, help and
message box, and the editor's help beside its side panel, for a range of window sizes."""

import itertools

import numpy as np
import pytest

from render.layout import free_regions, intersects, place, within
from render.viewer import KEYS, Viewer
from render_helpers import PhysicsSource

SIZES = [(1920, 1080), (1280, 720), (1024, 768), (800, 600), (720, 480), (640, 360)]
LONG_TITLE = "walker - gen 12 - examples/some_long_plugin_file.py:ReachTheFlagOverTheHills on hills ground"
PLAY_KEYS = (("G", "the whole generation as ghosts / its champion"), ("P", "pause / resume evolution"),
             ("E", "save the champion shown to a file (a champion: evolve its design)"),
             ("HOME / END", "generation 1 / the newest, live"), ("C", "chart on / off"))
MESSAGE = ("my_spider.yaml:12:7: bones[3] joins sphere 'knee', which does not exist; and more about it\n"
           "my_spider.yaml:14:3: joints[0]: min must be below max")


# rectangles ---------------------------------------------------------------------------------------
def test_touching_rectangles_do_not_intersect_and_overlapping_ones_do():
    assert not intersects((0, 0, 10, 10), (10, 0, 5, 5))
    assert intersects((0, 0, 10, 10), (9, 9, 5, 5))
    assert not intersects((0, 0, 0, 10), (0, 0, 10, 10))        # empty


def test_free_regions_are_inside_the_area_and_clear_of_every_obstacle():
    rng = np.random.default_rng(3)
    area = (0, 0, 800, 600)
    for _ in range(200):
        obstacles = [(rng.uniform(-50, 750), rng.uniform(-50, 550), rng.uniform(5, 300), rng.uniform(5, 300))
                     for _ in range(rng.integers(0, 4))]
        for region in free_regions(area, obstacles, gap=4):
            assert within(region, area)
            assert not any(intersects(region, o) for o in obstacles)


def test_place_finds_the_room_beside_a_box_and_says_when_there_is_none():
    area = (0, 0, 400, 300)
    hud = (0, 200, 300, 100)
    spot = place((80, 30), area, [hud], want=(340, 285))
    assert spot is not None and within(spot, area) and not intersects(spot, hud)
    assert spot[0] >= 300                                      # beside it, at the top
    assert place((390, 290), area, [hud]) is None


# the viewer ---------------------------------------------------------------------------------------
def _overlays(window, size, title, done=False, brain=False, help=False, message=None, keys=()):
    source = PhysicsSource(duration=0.1 if done else None, title=title)
    source.message = message
    viewer = Viewer(source, window=window, size=size, interpolate=False, poll_interval=None,
                    close_on_quit=False, show_brain=brain, show_help=help, extra_keys=keys)
    if done:
        viewer.advance(1.0)
        assert viewer.status == "DONE"
    viewer.on_draw()
    return viewer.overlays


def _disjoint(boxes, size):
    drawn = {k: v for k, v in boxes.items() if v}
    for (a, ra), (b, rb) in itertools.combinations(drawn.items(), 2):
        assert not intersects(ra, rb), (size, a, ra, b, rb)
    for name, rect in drawn.items():
        if name != "hud":          # the HUD is as wide as its title
            assert within(rect, (0, 0, *size)), (size, name, rect)
    return drawn


@pytest.mark.parametrize("size", SIZES)
def test_done_is_never_drawn_over_the_hud(window, size):
    drawn = _disjoint(_overlays(window, size, LONG_TITLE, done=True), size)
    assert "status" in drawn


@pytest.mark.parametrize("size", SIZES)
def test_the_brain_panel_and_the_help_are_never_over_each_other(window, size):
    drawn = _disjoint(_overlays(window, size, "walker - gen 3 - run on flat", brain=True, help=True,
                                keys=PLAY_KEYS), size)
    assert "help" in drawn
    if size[0] >= 1280:
        assert "brain" in drawn        # room for both side by side


@pytest.mark.parametrize("size", SIZES)
def test_a_message_is_never_drawn_over_the_hud(window, size):
    drawn = _disjoint(_overlays(window, size, "walker (preview)", message=MESSAGE), size)
    assert "message" in drawn


@pytest.mark.parametrize("size", SIZES[:4])
def test_everything_at_once_stays_apart(window, size):
    _disjoint(_overlays(window, size, LONG_TITLE, done=True, brain=True, help=True, message=MESSAGE,
                        keys=PLAY_KEYS), size)


def test_the_help_lists_every_key_inside_its_box(window):
    source = PhysicsSource(duration=None)
    viewer = Viewer(source, window=window, size=(800, 600), show_help=True, show_brain=True, poll_interval=None)
    viewer.on_draw()
    left, bottom, width, height = viewer.help.rect
    texts = viewer.help.texts
    assert [t.text for t in texts[1::2]] == [k for k, _ in KEYS]
    for key, what in zip(texts[1::2], texts[2::2]):
        assert key.x - key.content_width >= left + 4 and what.x + what.content_width <= left + width - 4
        assert bottom < what.y - what.content_height and what.y <= bottom + height


def test_reserved_boxes_are_kept_clear(window):
    size = (1280, 720)
    source = PhysicsSource(duration=None)
    source.message = MESSAGE
    viewer = Viewer(source, window=window, size=size, show_help=True, poll_interval=None)
    viewer.reserved = [(0, 0, 1280, 330), (800, 0, 480, 720)]      # a game's chart and buttons
    viewer.on_draw()
    for name in ("help", "message"):
        rect = viewer.overlays[name]
        assert rect and not any(intersects(rect, r) for r in viewer.reserved), name


# the editor's help --------------------------------------------------------------------------------
@pytest.mark.parametrize("size", SIZES)
def test_the_editors_help_is_whole_and_beside_its_side_panel_when_there_is_room(window, size):
    from test_editor import make_view, triangle_doc
    view, _, _ = make_view(window, triangle_doc(), size=size)
    view.show_help = True
    view.on_draw()
    help = view.help
    left, bottom, width, height = help.rect
    toolbar = size[1] - view.layout.toolbar[3]
    assert within(help.rect, (0, 0, size[0], toolbar))              # in the window, under the toolbar
    for key, what in zip(help.texts[1::2], help.texts[2::2]):    # no text cut by the box's edge
        assert key.x - key.content_width >= left + 4 and what.x + what.content_width <= left + width - 4
    if size[0] >= 1024:
        assert help.clear and not intersects(help.rect, view.layout.panel) and help.size >= 9
    else:
        assert help.clear or help.size >= 8           # over the panel (framed) rather than tiny

"""A share card's picture (render/card.py): its regions tile the card, the words fit (cut or
wrapped, never spilling), and the motion strip pictures the episode from its first step to its
last."""

from __future__ import annotations

import numpy as np
import pytest

from render.card import BACK, CardText, card_picture, draw_card, layout, strip_frame_size, strip_steps
from render_helpers import PhysicsSource

TEXT = CardText(title="walker run gen 40", subtitle="walker · run on flat · 20 s", score="32.72",
                measures="metres travelled to the right",
                facts=("generation 40", "by Ada", "champion 899759c68f85", "design 36ee5d63ead3", "seed 1"))


@pytest.mark.parametrize("size", [(800, 450), (320, 180), (1280, 720), (400, 600)])
def test_the_regions_tile_the_card_from_top_to_bottom(size):
    regions = layout(size)
    tops = [regions[k][1] for k in ("head", "picture", "strip", "foot")]
    heights = [regions[k][3] for k in ("head", "picture", "strip", "foot")]
    assert tops[0] == 0 and all(t + h == n for t, h, n in zip(tops, heights, tops[1:]))
    assert tops[-1] + heights[-1] == size[1] and all(regions[k][2] == size[0] for k in ("head", "foot"))
    assert 2 <= regions["frames"] <= 8
    fw, fh = strip_frame_size(size)
    assert fw * regions["frames"] <= size[0] and fh < regions["strip"][3]


def test_a_card_too_small_for_its_words_is_refused_in_one_line():
    with pytest.raises(ValueError, match=r"a card of 200x90 pixels is too small .* at least 200x\d+"):
        layout((200, 90))


def test_the_strip_spans_the_episode():
    assert strip_steps(1200, 6) == [0, 240, 480, 720, 960, 1200]
    assert strip_steps(7, 2) == [0, 7] and strip_steps(5, 1) == [0]


def _card(text=TEXT, size=(800, 450)):
    regions = layout(size)
    picture = np.full((regions["picture"][3], size[0], 3), (10, 200, 30), np.uint8)
    fw, fh = strip_frame_size(size)
    strip = [np.full((fh, fw, 3), (200, 200, 250), np.uint8) for _ in range(regions["frames"])]
    return regions, card_picture(size, picture, strip, text, [f"{k} s" for k in range(len(strip))])


def test_the_picture_goes_in_its_region_and_the_words_around_it():
    regions, card = _card()
    assert card.shape == (450, 800, 3) and card.dtype == np.uint8
    _, top, w, h = regions["picture"]
    assert (card[top:top + h] == (10, 200, 30)).all()
    for name in ("head", "foot"):
        _, t, _, hh = regions[name]
        band = card[t:t + hh].reshape(-1, 3)
        assert (band == BACK).all(axis=1).mean() > 0.6          # the card's back...
        assert (band != BACK).any(axis=1).sum() > 200            # ...with words on it
    _, t, _, hh = regions["strip"]
    assert ((card[t:t + hh] == (200, 200, 250)).all(axis=2)).sum() > 0.5 * np.prod(strip_frame_size((800, 450)))


def test_long_words_are_cut_and_many_facts_wrap_onto_two_lines():
    long = CardText(title="a very long name " * 10, subtitle="x " * 200, score="12345.67",
                    measures="what it measures " * 10, facts=tuple(f"fact number {k}" for k in range(30)))
    regions, card = _card(long)
    short_card = _card()[1]
    _, t, _, hh = regions["foot"]
    rows = (card[t:t + hh] != BACK).any(axis=(1, 2))
    runs = np.flatnonzero(np.diff(rows.astype(int)) == 1)
    assert len(runs) == 2                                        # two lines of facts
    assert (card[-2:] == BACK).all() and (short_card[-2:] == BACK).all()


def test_a_picture_of_the_wrong_size_is_refused():
    with pytest.raises(ValueError, match="a 800x450 card's picture is 800x"):
        card_picture((800, 450), np.zeros((10, 10, 3), np.uint8), [], TEXT)


def test_draw_card_pictures_a_source_through_its_episode(window):
    source = PhysicsSource(duration=1.0)
    seen = []
    card = draw_card(source, TEXT, size=(480, 270), at_step=30, total_steps=60,
                     labels=lambda step, frame: seen.append((step, frame.step)) or f"{step}")
    assert card.shape == (270, 480, 3)
    assert seen == [(s, s) for s in strip_steps(60, layout((480, 270))["frames"])]
    assert source.steps_called == 60 and source.resets == 1
    _, top, w, h = layout((480, 270))["picture"]
    picture = card[top:top + h].reshape(-1, 3)
    assert len(np.unique(picture, axis=0)) > 10                 # sky, ground and a creature


def test_a_snapshot_without_the_hud_draws_the_scene_alone(window):
    from render import Snapshot
    source = PhysicsSource(duration=1.0)
    pictures = {}
    for hud in (True, False):
        with Snapshot(source, size=(480, 270), hud=hud) as snap:
            pictures[hud] = snap.take()
            assert (snap.viewer.overlays["hud"] is None) == (not hud)
    differ = (pictures[True] != pictures[False]).any(axis=2)
    rows, cols = np.nonzero(differ)
    assert differ.sum() > 500 and rows.min() < 60 and cols.min() < 60   # the HUD's box, top left


def test_a_snapshot_gives_the_window_its_camera_and_screen_back(window):
    """A snapshot drawn on a window in use (the play window's card, the Gymnasium environment's
    render) leaves the window's camera in use and its screen as they were (else the next camera
    that gives back the camera in use sets the snapshot's small viewport on the screen)."""
    from render import Snapshot
    camera, viewport = window.current_camera, tuple(window.ctx.screen.viewport)
    with Snapshot(PhysicsSource(duration=0.5), size=(480, 270)) as snap:
        snap.take()
        assert window.current_camera is camera and tuple(window.ctx.screen.viewport) == viewport
    assert window.current_camera is camera and tuple(window.ctx.screen.viewport) == viewport

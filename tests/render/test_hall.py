"""The hall of fame (render/hall.py) on a fake hall, in a hidden headless window: it says it is
verifying, then shows the board ranked with the refused entries and why; the keys, the mouse and
the buttons select, choose, watch and race entries, change the challenge and the folder; watching
fills the window and ESC returns to the board."""

import numpy as np
import pytest
from arcade import key

from render.game import Board, BoardEntry, GameError, Pick
from render.hall import CHOSEN_MARK, RACE_TOP, REFUSED, ROW_SELECTED, HallView
from render_helpers import PhysicsSource

LEFT = 1


def _board(challenge, folder, n=7):
    ranked = [BoardEntry(f"{folder}/e{k}.json", rank=k + 1, score=40.0 - k, name=f"walker gen {k}",
                         author="Ada" if k == 0 else "", generation=k, champion=f"{k:012x}") for k in range(n)]
    refused = [BoardEntry(f"{folder}/bad.json", name="eel", reason="it was scored on the task swim; the challenge's task is run")]
    return Board(challenge, "run on flat, 20 s; at most 8 spheres", "metres travelled to the right", folder,
                 tuple(ranked + refused), pictures=1)


class FakeHall:
    def __init__(self, mine="walker - run on flat"):
        self.challenges = [Pick("sprint", "run on flat"), Pick("hurdles", "obstacle on hurdles"), Pick("swim", "swim")]
        self.folder = "entries"
        self.mine = mine
        self.boards, self.watched = [], []
        self.fail = None

    def board(self, challenge, folder):
        self.boards.append((challenge, folder))
        if self.fail:
            raise GameError(self.fail)
        return _board(challenge, folder)

    def watch(self, files, mine=False):
        self.watched.append((list(files), mine))
        return PhysicsSource(n=len(files) + mine, duration=0.5, brain=False)


def make_view(window, hall=None):
    hall = hall or FakeHall()
    backs = []
    view = HallView(hall, lambda: backs.append(1), window=window)
    return view, hall, backs


def shown(view):
    """Draw, then the update after it verifies (a board is verified after the frame that says so)."""
    view.on_draw()
    view.on_update(1 / 60)
    view.on_draw()


def image(view):
    import arcade
    view.on_draw()
    return np.asarray(arcade.get_image(components=3))[::-1]


def has_color(img, color, tol=2):
    return bool(np.any(np.all(np.abs(img.astype(int) - np.array(color[:3])) <= tol, axis=2)))


def test_it_says_it_verifies_then_shows_the_board(window):
    view, hall, _ = make_view(window)
    view.on_show_view()
    view.on_draw()
    assert view.pending and hall.boards == [] and any("verifying" in t.text for t in view._lines.items)
    view.on_update(1 / 60)
    assert hall.boards == [("sprint", "entries")] and not view.pending
    view.on_draw()
    texts = [t.text for t in view._cells.items if t.visible]
    assert "walker gen 0" in texts and "Ada" in texts and "refused" not in texts   # six rows fit at 640x360
    view.on_key_press(key.END, 0)
    view.on_draw()
    texts = [t.text for t in view._cells.items if t.visible]
    assert "refused" in texts and "walker gen 0" not in texts
    assert any("7 verified of 8 entries (and 1 pictures that are not cards)" in t.text for t in view._lines.items)
    img = image(view)
    assert has_color(img, ROW_SELECTED) and has_color(img, REFUSED)


def test_keys_select_choose_and_race_the_chosen_with_the_players_champion(window):
    view, hall, _ = make_view(window)
    shown(view)
    view.on_key_press(key.DOWN, 0)
    view.on_key_press(key.SPACE, 0)
    view.on_key_press(key.DOWN, 0)
    view.on_key_press(key.DOWN, 0)
    view.on_key_press(key.SPACE, 0)
    assert view.chosen == {"entries/e1.json", "entries/e3.json"}
    view.on_draw()
    assert CHOSEN_MARK in [t.text for t in view._cells.items if t.visible]
    view.on_key_press(key.R, 0)
    assert hall.watched == [(["entries/e1.json", "entries/e3.json"], True)] and view.viewer is not None
    view.on_update(1 / 60)
    view.on_draw()
    view.on_key_press(key.ESCAPE, 0)
    assert view.viewer is None
    view.on_key_press(key.SPACE, 0)            # un-choose e3
    view.on_key_press(key.END, 0)
    for _ in range(10):
        view.on_key_press(key.DOWN, 0)
    view.on_key_press(key.SPACE, 0)            # the refused entry cannot race
    assert view.chosen == {"entries/e1.json"} and "cannot race" in view.toast.current()


def test_none_chosen_races_the_top_five_and_enter_watches_the_selected_alone(window):
    view, hall, _ = make_view(window, FakeHall(mine=None))
    shown(view)
    view.race()
    assert hall.watched[-1] == ([f"entries/e{k}.json" for k in range(RACE_TOP)], False)
    view.back()
    view.on_key_press(key.DOWN, 0)
    view.on_key_press(key.ENTER, 0)
    assert hall.watched[-1] == (["entries/e1.json"], False)


def test_the_challenge_and_the_folder_change_and_are_verified_again(window):
    view, hall, _ = make_view(window)
    shown(view)
    view.on_key_press(key.C, 0)
    shown(view)
    view.on_key_press(key.C, key.MOD_SHIFT)
    view.on_key_press(key.C, key.MOD_SHIFT)
    shown(view)
    view.on_key_press(key.F, 0)
    view.on_text("f")                          # the F key's own text is not typed
    view.on_text("cards")
    view.on_key_press(key.ENTER, 0)
    shown(view)
    assert hall.boards == [("sprint", "entries"), ("hurdles", "entries"), ("swim", "entries"), ("swim", "cards")]


def test_a_folder_that_cannot_be_read_is_said_and_nothing_is_shown(window):
    hall = FakeHall()
    hall.fail = "nowhere is not a folder"
    view, _, _ = make_view(window, hall)
    shown(view)
    assert view.board is None and view.toast.current() == "nowhere is not a folder"
    assert not view.watch() and "no entry to watch" in view.toast.current()


def test_the_mouse_selects_chooses_watches_and_the_buttons_work(window):
    view, hall, backs = make_view(window)
    shown(view)
    i, (l, b, w, h) = view.row_rects[2]
    view.on_mouse_press(l + 300, b + h / 2, LEFT, 0)
    assert view.selected == 2
    view.on_mouse_press(l + 300, b + h / 2, LEFT, 0)        # a double click watches it
    assert hall.watched[-1] == (["entries/e2.json"], False) and view.viewer is not None
    view.on_draw()
    r = view._watch_buttons["back"]
    view.on_mouse_press(r[0] + 5, r[1] + 5, LEFT, 0)
    assert view.viewer is None
    view.on_draw()
    i, (l, b, w, h) = view.row_rects[4]
    view.on_mouse_press(l + 8, b + h / 2, LEFT, 0)           # its mark: chosen
    assert view.chosen == {"entries/e4.json"}
    for name, then in (("challenge>", lambda: view.challenge == 1), ("race", lambda: view.viewer is not None)):
        view.on_draw()
        r = view.buttons[name]
        view.on_mouse_press(r[0] + r[2] / 2, r[1] + r[3] / 2, LEFT, 0)
        assert then(), name
    view.back()
    view.on_draw()
    r = view.buttons["back"]
    view.on_mouse_press(r[0] + 5, r[1] + 5, LEFT, 0)
    assert backs == [1]


def test_a_race_that_cannot_be_run_is_said(window):
    hall = FakeHall()
    view, _, _ = make_view(window, hall)
    shown(view)
    hall.watch = lambda files, mine=False: (_ for _ in ()).throw(GameError("a race needs one terrain"))
    assert not view.race() and view.viewer is None and view.toast.current() == "a race needs one terrain"


@pytest.mark.parametrize("size", [(1280, 720), (800, 500)])
def test_the_rows_fit_above_the_buttons(window, size):
    view, _, _ = make_view(window)
    view.hall.board = lambda c, f: _board(c, f, n=60)
    window.set_size(*size)
    try:
        shown(view)
        lowest = min(rect[1] for _, rect in view.row_rects)
        assert lowest > view.buttons["watch"][1] + view.buttons["watch"][3]
        for _ in range(59):
            view.on_key_press(key.DOWN, 0)
        view.on_draw()
        assert any(i == 59 for i, _ in view.row_rects)           # the selected row is kept in view
    finally:
        window.set_size(640, 360)

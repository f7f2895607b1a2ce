"""The start screen (render.menu.StartView) driven through its real input handlers in a hidden
headless window: choosing a card, the settings, starting, opening a file, and what it draws."""

import arcade
import numpy as np
import pytest

from render.game import GalleryItem, GameError, Pick, Setup
from render.menu import KEYS, StartView, doubling_values, nice_values, step_value
from render.menu_picture import GROW_NOTES, HIGHLIGHT, ROWS, grow_text, noise_text, trials_text
from render.scene import CreatureShape
from render.theme import SKY, SPHERE

K = arcade.key
LEFT = arcade.MOUSE_BUTTON_LEFT


# a fake menu --------------------------------------------------------------------------------------
def triangle_item(name="triangle", **fields):
    shape = CreatureShape(radius=np.array([0.1, 0.1, 0.12]), bone_a=np.array([0, 1, 2]),
                          bone_b=np.array([1, 2, 0]), muscle_bone=np.array([2]),
                          rigid=np.array([True, True, False]), joint_sphere=np.zeros(0, np.int64))
    pose = np.array([[0.0, 0.1], [0.6, 0.1], [0.3, 0.5]])
    fields.setdefault("description", "A triangle with one muscle: the simplest walker there is, "
                                     "shuffling along on its long side for ever and ever.")
    return GalleryItem(name, name, shape=shape, pose=pose, **fields)


def worm_item():
    shape = CreatureShape(radius=np.array([0.15, 0.15]), bone_a=np.array([0]), bone_b=np.array([1]),
                          muscle_bone=np.array([0]), rigid=np.array([False]),
                          joint_sphere=np.zeros(0, np.int64))
    return GalleryItem("worm", "worm", "Two spheres and a muscle.", shape,
                       np.array([[0.0, 0.15], [0.5, 0.15]]), task="swim")


def scratch_item():
    """A card that always grows (grow from scratch), a triangle evolved as ``seed``."""
    return triangle_item("seed", grow=True, description="Evolution builds the body.")


def broken_item():
    return GalleryItem("broken.yaml", "broken", "", None, origin="this directory",
                       problem="broken.yaml:3:5: bones[0] joins sphere 'x', which does not exist\nmore")


class FakeMenu:
    """Three designs (a triangle, a worm made for swimming, one with a problem), three tasks,
    three terrains; records what it is asked."""

    def __init__(self, extra=0):
        self.designs = [triangle_item(), worm_item(), broken_item()]
        self.designs += [triangle_item(f"tri{i}", origin="file") for i in range(extra)]
        self.tasks = [Pick("run", "go as far right as you can"), Pick("swim", "swim right"),
                      Pick("jump", "jump as high as you can")]
        self.terrains = [Pick("", "whatever the task uses", "the task's own"),
                         Pick("flat", "flat ground"), Pick("hills", "rolling hills")]
        self.sensors = [Pick("", "clock, muscles", "the defaults"), Pick("rays", "distance rays", "defaults + rays")]
        self.media = [Pick("", "water for swim", "the task's own"), Pick("none", "no fluid"), Pick("water", "wet")]
        self.setup = Setup(design="triangle", task="run", population=150, generations=50, seed=3, workers=2,
                           seconds=20.0, trials=1, noise=1e-3)
        self.population_range = (10, 500)
        self.generations_range = (1, 200)
        self.seconds_range = (2, 60)
        self.trials_range = (1, 8)
        self.noise_values = (0.0, 1e-4, 1e-3, 1e-2)
        self.started, self.opened = [], []
        self.start_error = None

    def open(self, path):
        self.opened.append(path)
        if "missing" in path:
            raise GameError(f"no such file: {path}")
        item = triangle_item(path, origin="file")
        self.designs.append(item)
        return item

    def open_champion(self, path):
        self.opened.append(path)
        if "broken" in path:
            raise GameError(f"{path}: a card that cannot be read: truncated")
        return ("champion session", path)

    def start(self, setup):
        self.started.append(setup)
        if self.start_error:
            raise GameError(self.start_error)
        return ("session", setup.design)


class Calls(list):
    def __call__(self, *args):
        self.append(args)


def make_view(window, menu=None, **options):
    menu = menu or FakeMenu()
    started, quits = Calls(), Calls()
    view = StartView(menu, started, window=window, on_quit=quits, **options)
    return view, menu, started, quits


def click(view, rect):
    x, y = rect[0] + rect[2] / 2, rect[1] + rect[3] / 2
    view.on_mouse_press(x, y, LEFT, 0)
    view.on_mouse_release(x, y, LEFT, 0)


def click_card(view, i):
    """Click card ``i``, scrolling the wheel first if its centre is out of view."""
    for _ in range(50):
        l, b, w, h = view.card_rect(i)
        cy = b + h / 2
        if 0 < cy < view.draw_size[1] - 60:
            break
        view.on_mouse_scroll(l + w / 2, view.draw_size[1] / 2, 0, -1 if cy < 0 else 1)
    click(view, view.card_rect(i))


def key(view, symbol, modifiers=0):
    view.on_key_press(symbol, modifiers)
    view.on_key_release(symbol, modifiers)


# choosing a creature ------------------------------------------------------------------------------
def test_the_menu_setup_and_its_design_are_chosen_at_first(window):
    view, menu, _, _ = make_view(window)
    assert view.selected == 0 and view.setup == menu.setup
    assert view.setup is not menu.setup          # the menu's defaults stay as they were
    assert view.message is None and view.entry_text is None


def test_clicking_a_card_selects_it_and_its_design(window):
    view, menu, started, _ = make_view(window)
    click_card(view, 1)
    assert view.selected == 1 and view.setup.design == "worm"
    click_card(view, 0)
    assert view.selected == 0 and view.setup.design == "triangle"
    assert started == []                         # single clicks on different cards start nothing


def test_a_click_outside_the_cards_keeps_the_selection(window):
    view, _, _, _ = make_view(window)
    click_card(view, 1)
    l, b, w, h = view.card_rect(1)
    click(view, (l + w + 2, b + h / 2, 4, 4))    # the gap between two cards
    assert view.selected == 1


def test_arrows_move_the_selection_across_and_down_the_grid(window):
    view, _, _, _ = make_view(window, FakeMenu(extra=3))
    columns = view.columns
    assert columns >= 2
    key(view, K.RIGHT)
    assert view.selected == 1
    key(view, K.LEFT)
    key(view, K.LEFT)                            # stays on the first
    assert view.selected == 0
    key(view, K.DOWN)
    assert view.selected == columns
    key(view, K.UP)
    assert view.selected == 0
    key(view, K.END)
    assert view.selected == 5 and view.setup.design == "tri2"
    key(view, K.HOME)
    assert view.selected == 0


def test_moving_down_scrolls_the_selected_card_into_view(window):
    view, _, _, _ = make_view(window, FakeMenu(extra=6))
    for _ in range(4):
        key(view, K.DOWN)
    l, b, w, h = view.card_rect(view.selected)
    assert view.scroll > 0
    assert b >= 0 and b + h <= view.draw_size[1]


def test_the_wheel_and_page_keys_scroll_within_the_gallery(window):
    view, _, _, _ = make_view(window, FakeMenu(extra=6))
    top = view.card_rect(0)[1]
    view.on_mouse_scroll(100, 100, 0, -1)         # wheel down: the cards move up
    assert view.card_rect(0)[1] > top
    for _ in range(100):
        view.on_mouse_scroll(100, 100, 0, -1)
    last = view.card_rect(len(view.designs) - 1)
    assert 0 <= last[1] <= 20                    # no further than the last row
    key(view, K.PAGEUP)
    key(view, K.PAGEUP)
    key(view, K.PAGEUP)
    assert view.scroll == 0 and view.card_rect(0)[1] == top


def test_at_1280x720_ten_cards_fit_left_of_the_panel(window):
    menu = FakeMenu(extra=7)
    view, _, _, _ = make_view(window, menu, size=(1280, 720))
    panel_left = min(view.button_rect(n)[0] for n in ("start", "task<", "seed<"))
    for i in range(10):
        l, b, w, h = view.card_rect(i)
        assert l >= 0 and b >= 0 and l + w < panel_left and b + h <= 720 - 40
        assert w >= 170 and h >= 150
    assert view.max_scroll == 0


# settings -----------------------------------------------------------------------------------------
def test_task_cycles_both_ways_by_keys_and_buttons(window):
    view, _, _, _ = make_view(window)
    seen = []
    for _ in range(3):
        key(view, K.T)
        seen.append(view.setup.task)
    assert seen == ["swim", "jump", "run"]
    key(view, K.T, K.MOD_SHIFT)
    assert view.setup.task == "jump"
    click(view, view.button_rect("task>"))
    assert view.setup.task == "run"
    click(view, view.button_rect("task<"))
    assert view.setup.task == "jump"


def test_terrain_cycles_both_ways_and_the_tasks_own_is_none(window):
    view, _, _, _ = make_view(window)
    assert view.setup.terrain is None
    key(view, K.G)
    assert view.setup.terrain == "flat"
    key(view, K.G)
    assert view.setup.terrain == "hills"
    click(view, view.button_rect("terrain>"))
    assert view.setup.terrain is None
    click(view, view.button_rect("terrain<"))
    assert view.setup.terrain == "hills"
    key(view, K.G, K.MOD_SHIFT)
    assert view.setup.terrain == "flat"


def test_population_steps_through_round_values_within_its_range(window):
    view, menu, _, _ = make_view(window)
    ups = []
    for _ in range(6):
        key(view, K.EQUAL)
        ups.append(view.setup.population)
    assert ups == [200, 300, 500, 500, 500, 500]
    for _ in range(20):
        click(view, view.button_rect("population<"))
    assert view.setup.population == menu.population_range[0] == 10
    click(view, view.button_rect("population>"))
    key(view, K.PLUS)
    assert view.setup.population == 20
    key(view, K.MINUS)
    assert view.setup.population == 15


def test_generations_step_within_their_range(window):
    view, menu, _, _ = make_view(window)
    key(view, K.BRACKETRIGHT)
    assert view.setup.generations == 75
    click(view, view.button_rect("generations>"))
    assert view.setup.generations == 100
    for _ in range(30):
        key(view, K.BRACKETLEFT)
    assert view.setup.generations == menu.generations_range[0] == 1
    for _ in range(30):
        click(view, view.button_rect("generations>"))
    assert view.setup.generations == menu.generations_range[1] == 200


def test_seed_steps_both_ways_and_stays_at_least_zero(window):
    view, _, _, _ = make_view(window)
    key(view, K.S)
    assert view.setup.seed == 4
    click(view, view.button_rect("seed<"))
    key(view, K.S, K.MOD_SHIFT)
    assert view.setup.seed == 2
    for _ in range(5):
        click(view, view.button_rect("seed<"))
    assert view.setup.seed == 0


def test_trials_double_and_halve_within_their_range_by_keys_and_buttons(window):
    view, menu, _, _ = make_view(window)
    ups = []
    for _ in range(5):
        key(view, K.R)
        ups.append(view.setup.trials)
    assert ups == [2, 4, 8, 8, 8]
    key(view, K.R, K.MOD_SHIFT)
    assert view.setup.trials == 4
    click(view, view.button_rect("trials<"))
    click(view, view.button_rect("trials<"))
    click(view, view.button_rect("trials<"))
    assert view.setup.trials == menu.trials_range[0] == 1
    click(view, view.button_rect("trials>"))
    assert view.setup.trials == 2
    view.setup.trials = 3                        # from the command line: joins the steps
    key(view, K.R)
    assert view.setup.trials == 4


def test_noise_steps_through_the_menus_values_by_keys_and_buttons(window):
    view, menu, _, _ = make_view(window)
    assert view.setup.noise == 1e-3
    key(view, K.N)
    assert view.setup.noise == 1e-2
    click(view, view.button_rect("noise>"))      # the largest stays
    assert view.setup.noise == 1e-2
    key(view, K.N, K.MOD_SHIFT)
    key(view, K.N, K.MOD_SHIFT)
    assert view.setup.noise == 1e-4
    click(view, view.button_rect("noise<"))
    assert view.setup.noise == 0.0
    click(view, view.button_rect("noise<"))
    assert view.setup.noise == 0.0 and isinstance(view.setup.noise, float)
    view.setup.noise = 0.005                     # from the command line: joins the steps
    key(view, K.N, K.MOD_SHIFT)
    assert view.setup.noise == 1e-3


def test_trials_and_noise_are_shown_in_human_units():
    assert [noise_text(v) for v in (0.0, 1e-4, 1e-3, 1e-2, 0.005, 0.1)] == [
        "exact start", "0.1 mm", "1 mm", "1 cm", "5 mm", "10 cm"]
    assert trials_text(1, 1e-3) == "1 start, 1 mm" and trials_text(2, 1e-2) == "2 starts, 1 cm"
    assert trials_text(1, 0.0) == "1 exact start" and trials_text(4, 0.0) == "4 exact starts"
    assert doubling_values(1, 8) == [1, 2, 4, 8] and doubling_values(1, 6) == [1, 2, 4, 6]
    assert any(k.startswith("R ") for k, _ in KEYS) and any(k.startswith("N ") for k, _ in KEYS)


def test_the_summary_over_start_says_how_each_creature_is_scored(window):
    view, _, _, _ = make_view(window, size=(1280, 720))
    view.on_draw()
    first, second = view.picture.summary
    assert first.visible and second.visible
    assert first.text == "triangle: 150 creatures, 50 generations of 20 s"
    assert second.text == "each scored from 1 start, 1 mm"
    assert first.y > second.y + second.content_height - 2           # the lines do not overlap
    key(view, K.R)
    key(view, K.N)
    view.on_draw()
    assert second.text == "each scored from 2 starts, 1 cm"
    for _ in range(3):
        key(view, K.N, K.MOD_SHIFT)
    view.on_draw()
    assert second.text == "each scored from 2 exact starts"
    # the summary stays above Start and below the last row
    start = view.button_rect("start")
    seed = view.button_rect("seed<")
    assert start[1] + start[3] < second.y and first.y + first.content_height < seed[1]


def test_a_design_made_for_a_task_picks_it(window):
    view, _, _, _ = make_view(window)
    assert view.setup.task == "run"
    click_card(view, 1)                          # the worm swims
    assert view.setup.task == "swim"
    click_card(view, 0)                          # a design without a task keeps the choice
    assert view.setup.task == "swim"


def test_round_values_and_steps():
    assert nice_values(10, 500) == [10, 15, 20, 30, 50, 75, 100, 150, 200, 300, 500]
    assert nice_values(1, 12) == [1, 2, 3, 5, 10, 12]
    values = nice_values(10, 500)
    assert step_value(137, values, 1) == 150 and step_value(137, values, -1) == 100
    assert step_value(500, values, 1) == 500 and step_value(10, values, -1) == 10


# starting -----------------------------------------------------------------------------------------
def test_the_medium_sensors_and_seconds_step_by_buttons_and_keys(window):
    view, menu, _, _ = make_view(window)
    click(view, view.button_rect("medium>"))
    assert view.setup.medium == "none"
    key(view, K.M)
    assert view.setup.medium == "water"
    key(view, K.M)
    assert view.setup.medium is None                     # round to the task's own
    key(view, K.I)
    assert view.setup.sensors == "rays"
    key(view, K.I, K.MOD_SHIFT)
    assert view.setup.sensors is None
    assert view.setup.seconds == 20.0
    key(view, K.E)
    assert view.setup.seconds == 30
    click(view, view.button_rect("seconds<"))
    click(view, view.button_rect("seconds<"))
    assert view.setup.seconds == 15
    key(view, K.M)
    key(view, K.I)
    key(view, K.ENTER)
    assert (menu.started[-1].seconds, menu.started[-1].sensors, menu.started[-1].medium) == (15, "rays", "none")


def test_a_design_made_for_a_task_picks_it_and_the_tasks_own_medium(window):
    view, _, _, _ = make_view(window)
    key(view, K.M)
    assert view.setup.medium == "none"
    click_card(view, 1)                                  # the worm, made to swim
    assert view.setup.task == "swim" and view.setup.medium is None


def test_the_panel_shows_every_row_with_its_value(window):
    view, _, _, _ = make_view(window, size=(1280, 720))
    key(view, K.I)
    view.on_draw()
    values = [t.text for t in view.picture.row_values.items[:len(ROWS)]]
    assert values == ["run", "the task's own", "the task's own", "defaults + rays", "fixed", "150", "50", "20 s",
                      "1 start", "1 mm", "3"]
    key(view, K.R)
    key(view, K.N, K.MOD_SHIFT)
    key(view, K.N, K.MOD_SHIFT)
    key(view, K.W)
    view.on_draw()
    values = [t.text for t in view.picture.row_values.items[:len(ROWS)]]
    assert values[4] == "grows" and values[8:10] == ["2 starts", "exact start"]


def test_enter_starts_with_the_chosen_setup_and_hands_on_the_session(window):
    view, menu, started, _ = make_view(window)
    click_card(view, 1)
    key(view, K.G)
    key(view, K.EQUAL)
    key(view, K.BRACKETLEFT)
    key(view, K.R)
    key(view, K.R)
    key(view, K.N)
    key(view, K.ENTER)
    assert menu.started == [Setup(design="worm", task="swim", terrain="flat", population=200,
                                  generations=30, seed=3, workers=2, seconds=20.0, trials=4, noise=1e-2,
                                  grow=False)]
    assert started == [(("session", "worm"),)]
    assert view.session == ("session", "worm") and view.message is None


def test_the_start_button_and_a_double_click_start_too(window):
    view, menu, started, _ = make_view(window)
    click(view, view.button_rect("start"))
    assert [s.design for s in menu.started] == ["triangle"]
    click_card(view, 1)
    click_card(view, 1)                          # a double click on a card
    assert [s.design for s in menu.started] == ["triangle", "worm"]
    assert len(started) == 2


def test_a_game_error_from_start_is_shown_and_nothing_else_happens(window):
    view, menu, started, _ = make_view(window)
    menu.start_error = "the disk is full\n(details on a second line)"
    key(view, K.ENTER)
    assert len(menu.started) == 1
    assert started == [] and view.session is None
    assert view.message == "the disk is full"
    view.on_draw()                               # drawn in its red box without trouble


def test_a_design_with_a_problem_shows_it_and_cannot_start(window):
    view, menu, started, _ = make_view(window)
    click_card(view, 2)
    assert view.selected == 2
    assert view.message == "broken: broken.yaml:3:5: bones[0] joins sphere 'x', which does not exist"
    key(view, K.ENTER)
    click(view, view.button_rect("start"))
    assert menu.started == [] and started == []
    assert "does not exist" in view.message
    click_card(view, 0)                          # a sound design clears it
    assert view.message is None


# growing bodies -----------------------------------------------------------------------------------
def test_growth_is_off_by_default_and_w_or_the_body_buttons_switch_it(window):
    view, menu, _, _ = make_view(window)
    assert not view.setup.grow and not view.growing
    key(view, K.W)
    assert view.setup.grow and view.growing
    key(view, K.W, K.MOD_SHIFT)                          # shift or not: W switches
    assert not view.setup.grow
    click(view, view.button_rect("grow>"))
    assert view.setup.grow
    click(view, view.button_rect("grow<"))
    assert not view.setup.grow
    assert grow_text(True) == "grows" and grow_text(False) == "fixed"
    assert any(k == "W" for k, _ in KEYS)                 # the help lists it


def test_growth_switched_on_reaches_the_run_of_any_design(window):
    view, menu, started, _ = make_view(window)
    click_card(view, 1)
    key(view, K.W)
    key(view, K.ENTER)
    assert (menu.started[-1].design, menu.started[-1].grow) == ("worm", True)
    key(view, K.W)
    click(view, view.button_rect("start"))
    assert (menu.started[-1].design, menu.started[-1].grow) == ("worm", False)
    assert len(started) == 2


def test_grow_from_scratch_always_grows_and_leaves_the_toggle_to_the_others(window):
    menu = FakeMenu()
    menu.designs.insert(0, scratch_item())
    view, _, _, _ = make_view(window, menu)
    assert view.item.name == "triangle" and not view.growing   # the setup's design is chosen first
    view.select(0)
    assert view.growing and not view.setup.grow
    key(view, K.W)                                       # it stays on, and says why
    assert view.growing and not view.setup.grow and "always grows" in view.message
    key(view, K.ENTER)
    assert (menu.started[-1].design, menu.started[-1].grow) == ("seed", True)
    click_card(view, 1)                                  # the toggle, off, for the others
    assert not view.growing and view.message is None
    key(view, K.ENTER)
    assert (menu.started[-1].design, menu.started[-1].grow) == ("triangle", False)


def test_the_body_row_and_the_summary_say_whether_it_grows(window):
    menu = FakeMenu()
    menu.designs.insert(0, scratch_item())
    view, _, _, _ = make_view(window, menu, size=(1920, 1080))     # tall: every row has its note
    row = [name for name, *_ in ROWS].index("grow")

    def shown():
        view.on_draw()
        notes = [t.text for t in view.picture._row_notes.items if t.visible]
        return view.picture.row_values.items[row].text, view.picture.summary[1].text, notes
    value, summary, notes = shown()
    assert (value, summary) == ("fixed", "each scored from 1 start, 1 mm") and GROW_NOTES[2] in notes
    key(view, K.W)
    value, summary, notes = shown()
    assert (value, summary) == ("grows", "each scored from 1 start, 1 mm; the body grows") and GROW_NOTES[1] in notes
    key(view, K.W)
    view.select(0)
    value, summary, notes = shown()
    assert (value, summary) == ("grows", "each scored from 1 start, 1 mm; the body grows") and GROW_NOTES[0] in notes


def test_a_design_that_cannot_grow_shows_the_runs_one_line_reason(window):
    view, menu, started, _ = make_view(window)
    menu.start_error = "cannot start the run: a body with rigid clusters cannot grow (--grow): clusters are not part"
    key(view, K.W)
    key(view, K.ENTER)
    assert menu.started[-1].grow and started == [] and view.session is None
    assert view.message == menu.start_error
    view.on_draw()                                       # in its red box
    key(view, K.W)                                       # a setting's change clears it
    assert view.message is None


# opening a file -----------------------------------------------------------------------------------
def test_o_opens_the_entry_and_enter_opens_the_typed_file(window):
    view, menu, _, _ = make_view(window)
    key(view, K.O)
    view.on_text("o")                            # the O key's own text: not typed
    assert view.entry_text == ""
    view.on_text("mine/crab.yamlx")
    key(view, K.BACKSPACE)
    assert view.entry_text == "mine/crab.yaml"
    view.on_draw()                               # the entry is drawn
    key(view, K.ENTER)
    assert menu.opened == ["mine/crab.yaml"]
    assert view.entry_text is None
    assert len(view.designs) == 4 and view.selected == 3
    assert view.setup.design == "mine/crab.yaml"
    assert view.card_rect(3)[2] > 0


def test_a_champion_file_or_card_typed_or_dropped_is_watched(window):
    view, menu, started, _ = make_view(window)
    key(view, K.O)
    view.on_text("o")
    view.on_text("cards/walker.png")
    key(view, K.ENTER)
    assert menu.opened == ["cards/walker.png"] and started == [(("champion session", "cards/walker.png"),)]
    view.on_file_drop(0, 0, ["broken.png"])
    assert view.message == "broken.png: a card that cannot be read: truncated" and len(started) == 1
    view.on_file_drop(0, 0, ["me.json"])
    assert started[-1] == (("champion session", "me.json"),) and len(view.designs) == 3


def test_b_and_the_hall_button_open_the_hall_of_fame(window):
    halls = []
    view, _, _, _ = make_view(window, on_hall=lambda: halls.append(1))
    key(view, K.B)
    view.on_draw()
    click(view, view.button_rect("hall"))
    assert halls == [1, 1]
    view, _, _, _ = make_view(window)
    key(view, K.B)
    assert view.message == "no hall of fame here"


def test_keys_typed_into_the_entry_do_not_act(window):
    view, menu, _, quits = make_view(window)
    key(view, K.O)
    for symbol, text in ((K.Q, "q"), (K.T, "t"), (K.G, "g"), (K.H, "h")):
        view.on_key_press(symbol, 0)
        view.on_text(text)
    assert view.entry_text == "qtgh"
    assert quits == [] and view.setup.task == "run" and view.setup.terrain is None
    assert not view.show_help


def test_a_file_that_does_not_open_is_shown_and_the_entry_stays(window):
    view, menu, started, _ = make_view(window)
    click(view, view.button_rect("open"))
    assert view.entry_text == ""
    view.on_text("missing.yaml")
    key(view, K.ENTER)
    assert view.message == "no such file: missing.yaml"
    assert view.entry_text == "missing.yaml" and len(view.designs) == 3
    view.on_draw()
    key(view, K.ESCAPE)                          # cancels the entry, does not quit
    assert view.entry_text is None and view.message is None
    assert started == [] and view.selected == 0


def test_the_entry_works_by_mouse(window):
    view, menu, _, _ = make_view(window)
    click(view, view.button_rect("open"))
    view.on_text("a.yaml")
    click(view, view.button_rect("entry-cancel"))
    assert view.entry_text is None and menu.opened == []
    click(view, view.button_rect("open"))
    view.on_text("b.yaml")
    click(view, view.button_rect("entry-open"))
    assert menu.opened == ["b.yaml"] and view.setup.design == "b.yaml"


# help and quitting --------------------------------------------------------------------------------
def test_h_shows_the_help_and_escape_closes_it_before_quitting(window):
    view, _, _, quits = make_view(window)
    key(view, K.H)
    assert view.show_help
    view.on_draw()
    key(view, K.ESCAPE)
    assert not view.show_help and quits == []
    key(view, K.ESCAPE)
    assert quits == [()] and view.quit_requested
    view2, _, _, quits2 = make_view(window)
    key(view2, K.Q)
    assert quits2 == [()]
    assert any("help" in what for _, what in KEYS)


# drawing ------------------------------------------------------------------------------------------
def image(view):
    view.on_draw()
    return np.asarray(arcade.get_image(components=3))[::-1]      # rows from the bottom, as y


def has_color(img, color, tol=2):
    return bool(np.any(np.all(np.abs(img.astype(int) - np.array(color[:3])) <= tol, axis=2)))


def test_the_screen_shows_the_creatures_and_frames_the_selected_card(window):
    view, _, _, _ = make_view(window)
    img = image(view)
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 20       # not blank
    assert has_color(img, SPHERE) and has_color(img, HIGHLIGHT) and has_color(img, SKY)
    # the frame is just outside the selected card, and moves with the selection
    l, b, w, h = view.card_rect(0)
    assert np.array_equal(img[int(b + h / 2), int(l - 2)], HIGHLIGHT)
    click_card(view, 1)
    img = image(view)
    l1, b1, w1, h1 = view.card_rect(1)
    assert np.array_equal(img[int(b1 + h1 / 2), int(l1 - 2)], HIGHLIGHT)
    assert not np.array_equal(img[int(b + h / 2), int(l - 2)], HIGHLIGHT)


def test_a_sphere_is_drawn_inside_its_card(window):
    view, _, _, _ = make_view(window)
    img = image(view)
    l, b, w, h = view.card_rect(1)                 # the worm: two big spheres side by side
    inside = img[int(b):int(b + h), int(l):int(l + w)]
    assert has_color(inside, SPHERE)


def test_frames_do_not_rebuild_the_pictures(window):
    view, _, _, _ = make_view(window)
    uploads = []
    inner = view.picture.pictures.upload
    view.picture.pictures.upload = lambda: (uploads.append(1), inner())[1]
    for _ in range(3):
        view.on_draw()
    key(view, K.RIGHT)                               # the selection: only the card backs change
    key(view, K.T)
    view.on_draw()
    view.on_draw()
    assert len(uploads) == 1
    view.open_path("c.yaml")                         # a new card: laid out again
    view.on_draw()
    assert len(uploads) == 2


@pytest.mark.parametrize("size", [(640, 360), (800, 480), (1024, 600), (1280, 720), (1920, 1080)])
def test_buttons_do_not_overlap(window, size):
    view, _, _, _ = make_view(window, size=size)
    names = ["start", "open", "help"] + [f"{n}{s}" for n, *_ in ROWS for s in "<>"]
    boxes = [view.button_rect(n) for n in names]
    for i, a in enumerate(boxes):
        assert 0 <= a[0] and a[0] + a[2] <= size[0] and 0 <= a[1] and a[1] + a[3] <= size[1]
        for bx in boxes[i + 1:]:
            assert (a[0] + a[2] <= bx[0] or bx[0] + bx[2] <= a[0]
                    or a[1] + a[3] <= bx[1] or bx[1] + bx[3] <= a[1]), (a, bx)

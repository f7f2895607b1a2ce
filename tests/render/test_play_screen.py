"""The evolution screen (render/play.py) on a fake session, in a hidden headless window, on a fake
clock: it follows the newest generation and skips ahead (saying so) when generations come faster
than they can be watched, never stays on a finished episode, tours the best champions once the
run has finished (the chart's handle following), says what is on screen and which keys do what,
and lays its chart, buttons and lines out clear of each other and of the viewer's boxes."""

import itertools

from arcade import key

import numpy as np
import pytest

from render import play as play_module
from render.game import Progress
from render.layout import intersects, within
from render.play import PlayView, tour_generations
from render_helpers import PhysicsSource


class Clock:
    """Stands in for ``time.perf_counter`` in render.play: moves only when told."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


@pytest.fixture
def clock(monkeypatch):
    c = Clock()
    monkeypatch.setattr(play_module.time, "perf_counter", c)
    return c


def progress(best):
    best = np.asarray(best, float)
    g = np.arange(1, best.size + 1)
    return Progress(g, best, best - 1, best - 2, best - 3, best - 4, best - 5, best - 6,
                    np.array([1]), np.full((1, best.size), 10), "metres to the right")


class FakeSession:
    """A run of ``total`` generations whose bests are ``best``; ``finish(n)`` makes n done."""

    def __init__(self, best, total=None, duration=0.5):
        self.best = list(best)
        self.title = "walker - run on flat"
        self.run_dir = "runs/walker-run-test"
        self.total = total or len(self.best)
        self.done = 0
        self.state = "evolving"
        self.message = None
        self.duration = duration
        self.asked = []
        self._changed = False

    def finish(self, n):
        self.done = n
        if n >= self.total:
            self.state = "finished"
        self._changed = True

    def poll(self):
        changed, self._changed = self._changed, False
        return changed

    def progress(self):
        return progress(self.best[:self.done])

    def champion(self, generation=None):
        g = self.done if generation is None else generation
        self.asked.append(g)
        return PhysicsSource(duration=self.duration, title=f"walker - gen {g} - run on flat", brain=False)

    def race(self, generations):
        return PhysicsSource(n=2, duration=self.duration, title="race", brain=False)

    def ghosts(self):
        source = PhysicsSource(n=20, duration=self.duration, title="ghosts", brain=False)
        source.generation = self.done + 1
        return source

    def pause(self):
        self.state = "paused"

    def resume(self):
        self.state = "evolving"

    def save(self, generation=None):
        return f"walker-gen{generation}.json"

    def save_card(self, generation=None):
        return f"walker-gen{generation}.png"

    def close(self):
        return ""


def make_view(window, session, **options):
    options = {"poll_interval": 0.0, "min_watch": 4.0, "done_hold": 1.5, **options}
    return PlayView(session, window=window, on_quit=lambda: None, **options)


def run(view, clock, seconds, step=1 / 30):
    """``seconds`` of frames (the viewer steps at its speed, the clock moves with it)."""
    for _ in range(int(round(seconds / step))):
        clock.now += step
        view.on_update(step)


# --- which generations the tour plays --------------------------------------------------------------
def test_the_tour_is_each_generation_that_beat_all_before_it():
    assert tour_generations(progress([1, 3, 2, 5, 5, 4, 7])) == [1, 2, 4, 7]


def test_a_long_tour_is_thinned_keeping_the_first_and_the_best():
    tour = tour_generations(progress(np.arange(50.0)), size=6)
    assert len(tour) == 6 and tour[0] == 1 and tour[-1] == 50 and tour == sorted(tour)


def test_no_generation_no_tour():
    assert tour_generations(progress([])) == []


# --- following the run -----------------------------------------------------------------------------
def test_the_first_generation_is_shown_as_soon_as_it_is_done(window, clock):
    session = FakeSession([1, 2, 3], total=10)
    view = make_view(window, session)
    assert view.shown == 0 and "waiting for generation 1" in view.status_line()
    session.finish(1)
    run(view, clock, 0.1)
    assert (view.mode, view.shown) == ("live", 1) and view.chart.selected == 1
    assert view.status_line().startswith("generation 1's champion, the newest")
    assert "1 of 10 generations done, evolving" in view.status_line()


def test_generations_faster_than_one_can_watch_are_skipped_and_the_status_says_so(window, clock):
    session = FakeSession(range(1, 16), total=15, duration=20.0)
    view = make_view(window, session)
    session.finish(1)
    run(view, clock, 0.1)
    session.finish(9)                        # eight more while generation 1 plays
    run(view, clock, 1.0)
    assert view.shown == 1 and "(next: generation 9, in 3 s)" in view.status_line()
    run(view, clock, 3.2)                    # its minimum watch is over: the newest, not the next
    assert view.shown == 9 and session.asked == [1, 9]
    assert view.message == "skipped to generation 9: 2-8 came too fast (PAGE UP/DOWN shows them)"


def test_a_champion_that_played_to_its_end_plays_again_while_the_next_evolves(window, clock):
    session = FakeSession([1, 2], total=10, duration=0.5)
    view = make_view(window, session)
    session.finish(1)
    run(view, clock, 0.6)
    assert view.viewer.frame.done and view.viewer.status == "DONE"
    run(view, clock, 1.6)                    # DONE stays a moment, then it plays again
    assert not view.viewer.frame.done and view.shown == 1 and view.replays == 1
    assert "playing again while generation 2 evolves" in view.status_line()


def test_a_finished_run_tours_its_best_champions_round_and_round(window, clock):
    session = FakeSession([1, 3, 2, 5], duration=0.5)
    view = make_view(window, session)
    session.finish(4)
    run(view, clock, 0.1)
    assert view.shown == 4
    seen = []
    for _ in range(8):
        run(view, clock, 2.1)               # each: its episode, then DONE for a moment
        seen.append((view.mode, view.shown, view.chart.selected))
    assert [s[0] for s in seen] == ["tour"] * 8
    assert [s[1] for s in seen] == [1, 2, 4, 1, 2, 4, 1, 2]      # the generations that beat all before
    assert all(g == selected for _, g, selected in seen)        # the chart's handle follows
    status = view.status_line()
    assert "of the run's 3 best, in turn" in status and "4 of 4 generations done, finished" in status
    assert "PAGE UP/DOWN" in view.hint or "PAGE UP/DOWN" in view.hint_line()


def test_nothing_stays_on_done(window, clock):
    """Whatever is shown (a generation picked, a race, the ghosts), its end is followed by
    something playing."""
    session = FakeSession([1, 2, 3], total=3, duration=0.5)
    view = make_view(window, session)
    session.finish(3)
    run(view, clock, 0.1)
    for action in (lambda: view.show_generation(2), view.show_race, view.show_ghosts):
        action()
        run(view, clock, 0.6)
        assert view.viewer.frame.done
        run(view, clock, 1.6)
        assert not view.viewer.frame.done, view.mode


def test_a_paused_viewer_is_not_taken_away(window, clock):
    session = FakeSession(range(1, 10), total=10, duration=20.0)
    view = make_view(window, session)
    session.finish(1)
    run(view, clock, 0.1)
    view.on_key_press(play_module.arcade.key.SPACE, 0)
    session.finish(5)
    run(view, clock, 6.0)
    assert view.shown == 1


def test_t_starts_the_tour_and_end_goes_back_to_the_newest(window, clock):
    session = FakeSession([1, 3, 2, 5, 4], total=10, duration=5.0)
    view = make_view(window, session)
    session.finish(5)
    run(view, clock, 0.1)
    view.on_key_press(play_module.arcade.key.T, 0)
    assert (view.mode, view.shown, view.tour) == ("tour", 1, [1, 2, 4])
    view.on_key_press(play_module.arcade.key.END, 0)
    assert (view.mode, view.shown) == ("live", 5)


def test_the_keys_line_says_what_to_press(window, clock):
    session = FakeSession([1, 2], total=10)
    view = make_view(window, session)
    assert view.hint_line() == "P: pause   H: all keys"
    session.finish(2)
    run(view, clock, 0.1)
    hint = view.hint_line()
    assert "PAGE UP/DOWN" in hint and "G:" in hint and "T: the best in turn" in hint and "H: all keys" in hint


def test_once_the_run_has_finished_the_pause_button_is_faded_and_says_so(window, clock):
    """P does nothing once the run has finished (pressing it only says so): its button says
    'finished', faded, and stays wide enough for its label."""
    session = FakeSession([1, 2, 3], total=3)
    view = make_view(window, session)
    view.on_draw()
    assert view.buttons.texts["pause"].text == "P  pause"
    session.finish(3)
    run(view, clock, 0.1)
    view.on_draw()
    label = view.buttons.texts["pause"]
    assert label.text == "finished" and tuple(label.color) == play_module.BUTTON_TEXT_OFF
    x, _, width, _ = view.button_rect("pause")
    assert label.content_width < width and view.button_rect("ghosts")[0] > x + width


# --- layout ----------------------------------------------------------------------------------------
SIZES = [(1920, 1080), (1280, 720), (1024, 768), (800, 600), (640, 360)]


@pytest.mark.parametrize("size", SIZES)
def test_the_chart_buttons_lines_and_the_viewers_boxes_stay_apart(window, clock, size):
    session = FakeSession(range(1, 30), total=50, duration=20.0)
    view = make_view(window, session, size=size)
    session.finish(3)
    run(view, clock, 0.1)
    session.finish(9)
    run(view, clock, 0.1)
    view.say("saved walker-run-gen3.json (fitness 3.1234, generation 3): a message long enough to be cut " * 2)
    for brain, ghosts in ((False, False), (True, False), (False, True)):
        view.viewer.show_brain = brain
        if ghosts:
            view.show_ghosts()                  # 20 creatures: a tall HUD
        for _ in range(2):                      # (the HUD's rows follow its width of the frame before)
            view.on_draw()
        boxes = {**view.boxes, **{f"viewer {k}": v for k, v in view.viewer.overlays.items() if v}}
        assert {"chart", "buttons", "status", "hint", "message"} <= set(boxes)
        for (a, ra), (b, rb) in itertools.combinations(boxes.items(), 2):
            assert not intersects(ra, rb), (size, a, ra, b, rb)
        for name in ("chart", "buttons", "status", "hint", "message"):
            assert within(boxes[name], (0, 0, *size)), (size, name)
        drawn = view.drawn_line("status")                   # whole, in fewer words when narrow
        assert drawn in view.status_lines() or drawn.endswith("\u2026")
        assert drawn.startswith(("generation 10", "gen 10") if ghosts else ("generation 3's", "gen 3's"))


@pytest.mark.parametrize("size", SIZES[:4])
def test_the_help_hides_the_chart_and_keeps_clear_of_the_buttons_and_lines(window, clock, size):
    """(A window too short for the help's 23 rows beside them, 640x360, gets it over them.)"""
    session = FakeSession([1, 2, 3], total=10)
    view = make_view(window, session, size=size)
    session.finish(3)
    run(view, clock, 0.1)
    view.on_key_press(play_module.arcade.key.H, 0)
    view.on_draw()
    assert "chart" not in view.boxes
    help_rect = view.viewer.overlays["help"]
    for name in ("buttons", "status", "hint"):
        assert not intersects(help_rect, view.boxes[name]), name


def test_k_saves_the_champion_shown_as_a_card_and_b_opens_the_hall(window, clock):
    halls = []
    session = FakeSession([1, 2, 3])
    view = make_view(window, session, on_hall=lambda: halls.append(1))
    view.on_key_press(key.K, 0)
    assert "no generation has finished yet" in view.toast.current()
    session.finish(2)
    run(view, clock, 1.0)
    view.on_key_press(key.K, 0)
    assert view.toast.current() == "saved the card walker-gen2.png"
    view.show_generation(1)
    r = view.button_rect("card")
    view.on_mouse_press(r[0] + 5, r[1] + 5, 1, 0)
    assert view.toast.current() == "saved the card walker-gen1.png"
    view.on_key_press(key.B, 0)
    r = view.button_rect("hall")
    view.on_mouse_press(r[0] + 5, r[1] + 5, 1, 0)
    assert halls == [1, 1]
    assert make_view(window, session).open_hall() is None       # no hall: said, nothing else

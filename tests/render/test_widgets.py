"""The pieces of interface the screens share (render.widgets). The labelled buttons (Buttons):
placed where the screen says with their labels centred, which one a point is on, the ones not
placed again hidden, label colours, and the backs' rectangles and colours handed to the screen,
in the order placed. The one-line text entry (TextEntry): typing, BACKSPACE, a fresh value
replaced by the first key, the characters refused, the limit and the opening key's own text."""

import math

import pyglet

from render.widgets import CARET, Buttons, TextEntry, Toast

WHITE, GREY = (255, 255, 255, 255), (128, 128, 128, 255)


def test_placed_buttons_are_a_mapping_of_their_rectangles_with_labels_centred(window):
    buttons = Buttons(pyglet.graphics.Batch(), WHITE, 11)
    buttons.place("go", (10, 20, 81, 30), "Go")
    buttons.place("arrow", (100, 20, 30, 30))                       # no label: a rectangle only
    assert dict(buttons) == {"go": (10, 20, 81, 30), "arrow": (100, 20, 30, 30)}
    assert list(buttons) == ["go", "arrow"] and "arrow" in buttons and set(buttons.texts) == {"go"}
    t = buttons.texts["go"]
    assert t.text == "Go" and t.font_size == 11 and (t.x, t.y) == (50.5, 35) and t.visible
    floor = Buttons(pyglet.graphics.Batch(), WHITE, whole=math.floor)
    floor.place("go", (10, 20, 81, 30), "Go", size=9, bold=True)
    t = floor.texts["go"]
    assert (t.x, t.y) == (50, 35) and t.font_size == 9 and t.bold


def test_a_label_changes_only_where_it_differs(window):
    buttons = Buttons(pyglet.graphics.Batch(), WHITE)
    t = buttons.label("start", "Start evolving", 13, bold=True)
    wide = t.content_width
    assert buttons.label("start", "Start") is t and t.text == "Start" and t.content_width < wide
    assert t.font_size == 13 and t.bold                              # kept: none given
    buttons.place("start", (0, 0, 200, 40))
    assert (t.x, t.y) == (100, 20)


def test_the_button_at_a_point(window):
    buttons = Buttons(pyglet.graphics.Batch(), WHITE)
    buttons.place("a", (0, 0, 50, 20), "A")
    buttons.place("b", (60, 0, 50, 20), "B")
    assert buttons.at(10, 10) == "a" and buttons.at(60, 0) == "b" and buttons.at(109.5, 19.5) == "b"
    assert buttons.at(55, 10) is None and buttons.at(110, 10) is None and buttons.at(10, 20) is None


def test_laid_out_again_the_buttons_not_placed_are_hidden_and_come_back_when_placed(window):
    buttons = Buttons(pyglet.graphics.Batch(), WHITE)
    for name in ("pause", "save", "help"):
        buttons.place(name, (0, 0, 10, 10), name)
    buttons.clear()
    buttons.place("evolve", (0, 0, 10, 10), "evolve")
    buttons.place("help", (20, 0, 10, 10))
    buttons.hide_unplaced()
    assert list(buttons) == ["evolve", "help"] and buttons.at(5, 5) == "evolve"
    assert [n for n, t in buttons.texts.items() if t.visible] == ["help", "evolve"]
    assert buttons.texts["help"].text == "help" and buttons.texts["help"].x == 25
    buttons.clear()
    buttons.place("save", (0, 0, 10, 10))
    buttons.hide_unplaced()
    assert [n for n, t in buttons.texts.items() if t.visible] == ["save"]


def test_label_colours_and_the_backs_for_the_screen(window):
    buttons = Buttons(pyglet.graphics.Batch(), WHITE)
    buttons.place("undo", (0, 0, 40, 20), "undo")
    buttons.place("redo", (50, 0, 40, 20), "redo")
    assert tuple(buttons.texts["undo"].color) == WHITE
    buttons.set_color("undo", GREY)
    assert tuple(buttons.texts["undo"].color) == GREY and tuple(buttons.texts["redo"].color) == WHITE
    buttons.texts["redo"].color = (1, 1, 1, 255)                   # (as if by someone else)
    buttons.set_color("redo", WHITE)                                # no change: the text is not touched
    assert tuple(buttons.texts["redo"].color) == (1, 1, 1, 255)
    boxes, colors = [(0, 0, 100, 30)], [(1, 2, 3, 255)]            # the screen's own boxes first
    buttons.backs(boxes, colors, lambda name: (9, 9, 9, 255) if name == "redo" else (5, 5, 5, 255))
    assert boxes == [(0, 0, 100, 30), (0, 0, 40, 20), (50, 0, 40, 20)]
    assert colors == [(1, 2, 3, 255), (5, 5, 5, 255), (9, 9, 9, 255)]


# the text entry -----------------------------------------------------------------------------------
def test_a_closed_entry_takes_nothing_and_an_open_one_takes_what_is_typed():
    entry = TextEntry()
    assert entry.text is None and not entry.is_open
    assert not entry.type("abc") and entry.text is None
    entry.backspace()
    assert entry.text is None
    entry.open()
    assert entry.text == "" and entry.is_open and not entry.fresh and entry.shown == CARET
    assert entry.type("mine/") and entry.type("crab.yaml")
    assert entry.text == "mine/crab.yaml" and entry.shown == "mine/crab.yaml" + CARET
    entry.backspace()
    entry.backspace()
    assert entry.text == "mine/crab.ya"
    entry.close()
    assert entry.text is None and not entry.is_open and not entry.fresh


def test_backspace_on_an_empty_entry_leaves_it_empty_and_open():
    entry = TextEntry()
    entry.open("a")
    entry.backspace()
    entry.backspace()
    assert entry.text == "" and entry.is_open


def test_the_first_text_typed_or_backspace_replaces_a_fresh_value():
    entry = TextEntry()
    entry.open(0.1, fresh=True)
    assert entry.text == "0.1" and entry.fresh and entry.shown == "0.1"       # no caret while fresh
    assert not entry.type("\r")                                              # refused: still fresh
    assert entry.fresh
    entry.type("0.15")
    assert entry.text == "0.15" and not entry.fresh
    entry.type("2")
    assert entry.text == "0.152"
    entry.open("0.1", fresh=True)
    entry.backspace()
    assert entry.text == "" and not entry.fresh


def test_control_characters_are_refused_and_accept_chooses_the_others():
    entry = TextEntry()
    entry.open()
    entry.type("a\tb\x08c\r\n")
    assert entry.text == "abc"
    digits = TextEntry(accept=str.isdigit)
    digits.open()
    assert digits.type("x1y2") and not digits.type("z")
    assert digits.text == "12"


def test_the_limit_drops_what_is_typed_beyond_it():
    entry = TextEntry(limit=4)
    entry.open()
    entry.type("abc")
    assert entry.type("def") and entry.text == "abcd"
    assert not entry.type("e") and entry.text == "abcd"
    entry.backspace()
    entry.type("xy")
    assert entry.text == "abcx"
    entry.open("longer than four")                                            # kept whole
    assert entry.text == "longer than four" and not entry.type("!")
    entry.open("longer than four", fresh=True)
    entry.type("123456")
    assert entry.text == "1234"


def test_the_text_of_the_key_that_opened_the_entry_is_not_typed():
    entry = TextEntry()
    entry.open(skip=("o", "O"))
    assert not entry.type("O") and entry.text == ""
    entry.type("o")                                                           # only the first
    assert entry.text == "o"
    entry.open(skip=("o", "O"))
    entry.type("x")                                                           # something else comes first
    entry.type("o")
    assert entry.text == "xo"
    entry.open(skip=("o", "O"))
    entry.close()
    entry.open()
    entry.type("o")
    assert entry.text == "o"


def test_the_opening_key_text_is_typed_when_it_comes_late():
    entry = TextEntry()
    entry.skip_seconds = 0.0                                                  # whenever it comes, too late
    entry.open(skip=("o",))
    entry.type("o")
    assert entry.text == "o"


# --- Toast ----------------------------------------------------------------------------------------

def test_a_toast_is_shown_for_its_seconds_and_an_error_stays_where_the_screen_wants():
    now = [100.0]
    toast = Toast(8.0, clock=lambda: now[0])
    assert toast.current() == "" and not toast.expired()
    toast.say("saved walker.yaml")
    now[0] += 7.9
    assert toast.current() == "saved walker.yaml" and not toast.expired()
    now[0] += 0.2
    assert toast.current() == "" and toast.expired() and toast.text == "saved walker.yaml"
    toast.say("cannot write", error=True)            # on the evolution screen errors expire too
    now[0] += 9.0
    assert toast.error and toast.expired()
    staying = Toast(8.0, errors_stay=True, clock=lambda: now[0])
    staying.say("unsaved changes", error=True)
    now[0] += 100.0
    assert staying.current() == "unsaved changes" and not staying.expired()
    staying.say(None, error=True)                    # None clears, and is no error
    assert staying.text is None and not staying.error and staying.current() == ""

"""The labelled buttons the screens share (render.widgets.Buttons): placed where the screen says
with their labels centred, which one a point is on, the ones not placed again hidden, label
colours, and the backs' rectangles and colours handed to the screen, in the order placed."""

import math

import pyglet

from render.widgets import Buttons

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

"""The editor's keys for edits of many parts at once (render/editor_arrange.py): X mirrors the
selection across the mirror axis (SHIFT+X puts it at the mouse), CTRL+D duplicates, CTRL+C and
CTRL+V copy and paste at the mouse, [ ] rotate, < > scale, CTRL+G sets the creature on the
ground; what is made is selected."""

from __future__ import annotations

from arcade import key
import numpy as np

from render.editor_arrange import DUPLICATE_OFFSET, ROTATE_STEP, SCALE_STEP
from test_editor import at, make_view, triangle_doc


class ArrangingDoc(type(triangle_doc())):
    def mirror(self, items, axis_x=0.0):
        self.calls.append(("mirror", (list(items), axis_x)))
        x, y, r = self.state["spheres"]["a"]
        self.state["spheres"]["a_r"] = [2 * axis_x - x, y, r]
        self._done()
        return [("sphere", "a_r")]

    def duplicate(self, items, dx, dy):
        self.calls.append(("duplicate", (list(items), round(dx, 6), round(dy, 6))))
        x, y, r = self.state["spheres"]["a"]
        self.state["spheres"]["a_2"] = [x + dx, y + dy, r]
        self._done()
        return [("sphere", "a_2")]

    def transform(self, spheres, angle=0.0, scale=1.0, about=None):
        self.calls.append(("transform", (list(spheres), angle, scale)))

    def set_on_ground(self):
        self.calls.append(("set_on_ground", ()))


def _view(window):
    doc = triangle_doc()
    doc.__class__ = ArrangingDoc
    view, _, _ = make_view(window, doc)
    view.on_draw()
    return view, doc


def test_the_keys_call_the_documents_edits_and_select_what_they_make(window):
    view, doc = _view(window)
    view.on_key_press(key.X, 0)
    assert doc.calls == [] and "select what to mirror" in view.message_line.text
    view.select([("sphere", "a"), ("sphere", "b")])
    view.on_key_press(key.X, 0)
    assert doc.calls[-1] == ("mirror", ([("sphere", "a"), ("sphere", "b")], 0.0))
    assert view.selection == [("sphere", "a_r")]
    view.select([("sphere", "a")])
    view.on_key_press(key.D, key.MOD_CTRL)
    assert doc.calls[-1] == ("duplicate", ([("sphere", "a")], DUPLICATE_OFFSET, 0.0)) and view.selection == [("sphere", "a_2")]
    view.select([("sphere", "a"), ("sphere", "c")])
    view.on_key_press(key.BRACKETLEFT, 0)
    view.on_key_press(key.PERIOD, 0)
    assert doc.calls[-2:] == [("transform", (["a", "c"], ROTATE_STEP, 1.0)), ("transform", (["a", "c"], 0.0, SCALE_STEP))]
    view.on_key_press(key.G, key.MOD_CTRL)
    assert doc.calls[-1] == ("set_on_ground", ())


def test_the_toolbar_buttons_do_what_their_keys_do(window):
    view, doc = _view(window)
    assert {"flip", "duplicate", "ground"} <= set(view.layout.buttons)
    view.select([("sphere", "a"), ("sphere", "b")])
    view.press_button("flip")
    assert doc.calls[-1] == ("mirror", ([("sphere", "a"), ("sphere", "b")], 0.0)) and view.selection == [("sphere", "a_r")]
    view.select([("sphere", "a")])
    x, y, w, h = view.button_rect("duplicate")        # clicked, as a player does
    view.on_mouse_press(x + w / 2, y + h / 2, 1, 0)
    view.on_mouse_release(x + w / 2, y + h / 2, 1, 0)
    assert doc.calls[-1] == ("duplicate", ([("sphere", "a")], DUPLICATE_OFFSET, 0.0)) and view.selection == [("sphere", "a_2")]
    view.press_button("ground")
    assert doc.calls[-1] == ("set_on_ground", ())


def test_the_axis_goes_to_the_mouse_and_paste_lands_at_it(window):
    view, doc = _view(window)
    sx, sy = at(view, 0.5, 0.7)
    view.on_mouse_motion(sx, sy, 0, 0)
    view.on_key_press(key.X, key.MOD_SHIFT)
    assert abs(view.arranger.axis - 0.5) < 0.01
    view.select([("sphere", "a"), ("sphere", "b")])         # centred at (0, 0.3)
    view.on_key_press(key.C, key.MOD_CTRL)
    view.on_key_press(key.V, key.MOD_CTRL)
    name, (items, dx, dy) = doc.calls[-1]
    assert name == "duplicate" and items == [("sphere", "a"), ("sphere", "b")]
    assert abs(dx - 0.5) < 0.01 and abs(dy - 0.4) < 0.01


def test_the_rotate_and_scale_handles_turn_the_selection(window):
    import math
    view, doc = _view(window)
    view.select([("sphere", "a"), ("sphere", "b"), ("sphere", "c")])
    view.on_draw()
    handles = view.design.turn_handles(view.camera.zoom)
    centre = handles["centre"]
    assert handles["rotate"][1] > 0.9 and handles["scale"][0] > 0.4          # above, and right of the box
    # the rotate handle dragged a quarter turn about the centre (counter-clockwise)
    r = handles["rotate"] - centre
    end = centre + np.array([-r[1], r[0]])
    from test_editor import drag
    drag(view, at(view, *handles["rotate"]), at(view, *end), steps=12)
    name, (spheres, angle, scale) = doc.calls[-1]
    assert name == "transform" and sorted(spheres) == ["a", "b", "c"] and abs(angle - 90.0) < 1.0 and scale == 1.0
    # the scale handle dragged to twice its distance from the centre
    view.select([("sphere", "a"), ("sphere", "b"), ("sphere", "c")])
    view.on_draw()
    handles = view.design.turn_handles(view.camera.zoom)
    centre = handles["centre"]
    drag(view, at(view, *handles["scale"]), at(view, *(centre + 2 * (handles["scale"] - centre))), steps=12)
    name, (spheres, angle, scale) = doc.calls[-1]
    assert name == "transform" and angle == 0.0 and abs(scale - 2.0) < 0.02
    assert math.isfinite(scale)

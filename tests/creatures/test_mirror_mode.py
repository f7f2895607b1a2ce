"""The editor's mirror mode and mirror selection, driven through the window's input handlers on
a real design document: a symmetric walker built with mirror mode (N) is the one built by hand on
both sides, in far fewer actions; every action's image is in the same undo step; the file
validates and simulates."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

#: the left half of a symmetric strider (m): the right half is its mirror image across x = 0
LEFT = {"hip": (-0.2, 0.7), "knee": (-0.4, 0.4), "foot": (-0.3, 0.1)}
#: the editor's layout (window units; drawn offscreen at this size whatever the window's)
SIZE = (1280, 720)
#: its bones: (a, b, muscle); 'r:' names a sphere of the right half
BONES = [("hip", "knee", False), ("knee", "foot", True), ("hip", "foot", True), ("hip", "r:hip", False)]


@pytest.fixture(scope="module")
def window():
    """The window there is, or a hidden one of our own, closed after (other modules' tests
    expect the window they make)."""
    from render._display import prefer_headless
    prefer_headless()            # no display: EGL, before pyglet is first imported
    import arcade
    try:
        yield arcade.get_window()
        return
    except RuntimeError:
        pass
    own = arcade.Window(640, 360, "mirror mode", visible=False)
    yield own
    own.close()


class Player:
    """The view's handlers, counting the player's actions (a click, a drag, a key)."""

    def __init__(self, view):
        import arcade
        self.view, self.arcade, self.actions = view, arcade, 0

    def key(self, symbol, modifiers=0):
        self.actions += 1
        self.view.on_key_press(symbol, modifiers)
        self.view.on_key_release(symbol, modifiers)

    def _press(self, a, b):
        v, btn = self.view, self.arcade.MOUSE_BUTTON_LEFT
        (x0, y0), (x1, y1) = (tuple(float(c) for c in v.world_to_screen(*p)) for p in (a, b))
        v.on_mouse_press(x0, y0, btn, 0)
        if (x0, y0) != (x1, y1):
            for k in range(1, 7):
                x, y = x0 + (x1 - x0) * k / 6, y0 + (y1 - y0) * k / 6
                v.on_mouse_drag(x, y, (x1 - x0) / 6, (y1 - y0) / 6, btn, 0)
        v.on_mouse_release(x1, y1, btn, 0)
        self.actions += 1

    def click(self, p):
        self._press(p, p)

    def drag(self, a, b):
        self._press(a, b)


def _at(name: str):
    if name.startswith("r:"):
        x, y = LEFT[name[2:]]
        return (-x, y)
    return LEFT[name]


def _build(view, mirror: bool) -> int:
    import arcade
    k = arcade.key
    p = Player(view)
    view.set_zoom(300.0)
    if mirror:
        p.key(k.N)
    p.key(k.S)
    for spot in LEFT.values():
        p.click(spot)
    if not mirror:
        for x, y in LEFT.values():
            p.click((-x, y))
    p.key(k.B)
    right = [(f"r:{a}", f"r:{b}", m) for a, b, m in BONES if not b.startswith("r:")]  # the crossing bone is its own image
    bones = BONES if mirror else BONES + right
    for a, b, _ in bones:
        p.drag(_at(a), _at(b))
    p.key(k.ESCAPE)            # the last bone drawn is selected: M would toggle it
    p.key(k.M)
    for a, b, muscle in bones:
        if muscle:
            pa, pb = np.array(_at(a)), np.array(_at(b))
            p.click(tuple(0.7 * pa + 0.3 * pb))
    return p.actions


def _shape(doc):
    """The body as sorted sphere positions and bone/muscle position pairs (ids aside)."""
    body = doc.design.body
    pos = [tuple(np.round(s.pos, 4)) for s in body.spheres]
    bones = sorted((tuple(sorted((pos[b.a], pos[b.b]))), b.muscle is not None) for b in body.bones)
    return sorted(pos), bones


def test_a_symmetric_strider_built_in_mirror_mode_is_the_one_built_by_hand(window, tmp_path):
    from creatures.editing.document import DesignDocument
    from creatures.simulation import run_simulation
    from render.editor import EditorView
    docs, actions = {}, {}
    for mirror in (False, True):
        doc = DesignDocument.new(tmp_path / f"strider-{mirror}.yaml", "strider")
        view = EditorView(doc, window=window, on_quit=lambda: None, size=SIZE)
        view._ensure_layout()      # the layout the handlers map by (not drawn: the window is shared)
        actions[mirror] = _build(view, mirror)
        assert not doc.problems, (mirror, doc.problems[:3], doc.text)
        docs[mirror] = doc
    assert _shape(docs[True]) == _shape(docs[False])
    assert len(docs[True].design.body.spheres) == 6 and len(docs[True].design.body.bones) == 7
    # 14 actions against 21: every paired part is one action instead of two; the keys (tools,
    # N) and the bone across the axis (its own image) are the same either way
    assert actions == {False: 21, True: 14}, actions
    doc = docs[True]
    ids = doc.design.sphere_ids
    assert sorted(ids) == [f"sphere_{k}_{side}" for k in (1, 2, 3) for side in "lr"]     # pairs, by side
    # each action and its image are one undo step: the last undo takes both muscles back
    muscles = sum(b.muscle is not None for b in doc.design.body.bones)
    doc.undo()
    assert sum(b.muscle is not None for b in doc.design.body.bones) == muscles - 2
    doc.redo()
    path = doc.save()
    assert Path(path).read_text() == doc.text
    summary = run_simulation(doc.design.body, seconds=2.0, muscles="sine")
    assert summary["steps"] == 120 and np.isfinite(summary["distance"]) and summary["muscle_count"] == 4


def test_mirror_mode_moves_and_deletes_the_image_too(window, tmp_path):
    import arcade
    from creatures.editing.document import DesignDocument
    from render.editor import EditorView
    doc = DesignDocument.new(tmp_path / "pair.yaml", "pair")
    view = EditorView(doc, window=window, on_quit=lambda: None, size=SIZE)
    view._ensure_layout()
    p = Player(view)
    view.set_zoom(300.0)
    p.key(arcade.key.N)
    p.key(arcade.key.S)
    p.click((-0.3, 0.2))
    p.key(arcade.key.V)
    p.drag((-0.3, 0.2), (-0.5, 0.3))                 # the sphere moved, its image mirrored
    pos = dict(zip(doc.sketch.sphere_id, doc.sketch.pos.round(4).tolist()))
    assert pos == {"sphere_1_l": [-0.5, 0.3], "sphere_1_r": [0.5, 0.3]}
    doc.undo()
    assert dict(zip(doc.sketch.sphere_id, doc.sketch.pos.round(4).tolist())) == {"sphere_1_l": [-0.3, 0.2],
                                                                                  "sphere_1_r": [0.3, 0.2]}
    view.select([("sphere", "sphere_1_l")])
    p.key(arcade.key.DELETE)
    assert doc.sketch.sphere_id == ()
    doc.undo()
    assert len(doc.sketch.sphere_id) == 2


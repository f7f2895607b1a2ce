"""The editor's mirror mode and mirror selection, driven through the window's input handlers on
a real design document: a symmetric walker built with mirror mode (N) is the one built by hand on
both sides, in far fewer actions; every action's image is in the same undo step; the file
validates and simulates."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from edit_driver import Player, build_strider

#: the editor's layout (window units; drawn offscreen at this size whatever the window's)
SIZE = (1280, 720)


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


def _build(view, mirror: bool) -> int:
    """The strider built as the Xvfb driver builds it (tests/creatures/edit_driver.py); the
    player's actions."""
    p = Player(view)
    view.set_zoom(300.0)
    for _ in build_strider(p, mirror):
        pass
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
    bones = list(doc.sketch.bone_id)       # bones paired by side too; the one across the axis is its own
    left, right = ({b[:-2] for b in bones if b.endswith(side)} for side in ("_l", "_r"))
    assert len(left) == 3 and left == right and len(bones) == 7
    # each action and its image are one undo step: the last undo takes both muscles back
    muscles = sum(b.muscle is not None for b in doc.design.body.bones)
    doc.undo()
    assert sum(b.muscle is not None for b in doc.design.body.bones) == muscles - 2
    doc.redo()
    path = doc.save()
    assert Path(path).read_text() == doc.text
    summary = run_simulation(doc.design.body, seconds=2.0, muscles="sine")
    assert summary["steps"] == 120 and np.isfinite(summary["distance"]) and summary["muscle_count"] == 4


def _mirror_mode(window, path):
    """A new design open in the editor, in mirror mode (N): ``(doc, view, player)``."""
    import arcade
    from creatures.editing.document import DesignDocument
    from render.editor import EditorView
    doc = DesignDocument.new(path, path.stem)
    view = EditorView(doc, window=window, on_quit=lambda: None, size=SIZE)
    view._ensure_layout()
    p = Player(view)
    view.set_zoom(300.0)
    p.key(arcade.key.N)
    return doc, view, p


def test_mirror_mode_moves_and_deletes_the_image_too(window, tmp_path):
    import arcade
    doc, view, p = _mirror_mode(window, tmp_path / "pair.yaml")
    p.key(arcade.key.S)
    p.click_world(-0.3, 0.2)
    p.key(arcade.key.V)
    p.drag_world((-0.3, 0.2), (-0.5, 0.3))          # the sphere moved, its image mirrored
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


def test_a_bone_drawn_in_mirror_mode_is_named_by_its_side_and_undone_with_its_image(window, tmp_path):
    import arcade
    doc, _, p = _mirror_mode(window, tmp_path / "legs.yaml")
    p.key(arcade.key.S)
    p.click_world(-0.3, 0.2)
    p.click_world(-0.4, 0.5)
    p.key(arcade.key.B)
    p.drag_world((-0.3, 0.2), (-0.4, 0.5))
    assert sorted(doc.sketch.bone_id) == ["bone_1_l", "bone_1_r"]          # as its spheres: by side
    doc.undo()                                                              # the pair in one step
    assert doc.sketch.bone_id == () and len(doc.sketch.sphere_id) == 4

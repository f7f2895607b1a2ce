"""Drive ``creatures edit``'s real window as a player would, by its view's input handlers: build a
three-sphere inchworm in a new file (three spheres, two bones and a muscle, a hinge), check undo
and redo step by step, make two invalid edits (a bone from a sphere to itself; overlapping
spheres with self-collision on) and undo them, test it live, save; then in mirror mode (its
toolbar button) place and join an arm on one side, its image made on the other; the arm's hand
duplicated, flipped and the creature set on the ground by the toolbar's buttons, and undone;
then a symmetric strider built twice in new files, by hand and in mirror mode, the actions
counted (a click, a drag, a key), the mirror-mode one saved; quit.

Run under a display (``xvfb-run -a python tests/creatures/edit_driver.py OUT_DIR``): it writes
``OUT_DIR/inchworm.yaml``, the screenshots ``edit-building.png``, ``edit-problem.png`` and
``edit-live.png``, ``strider.yaml`` (built in mirror mode) and ``report.json`` (what it saw, for ``test_edit.py`` to check). The README's
screenshot is made by this very script.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

SIZE = (1280, 720)
#: where the inchworm's spheres are clicked (m): tail, hump, head
SPOTS = {"tail": (-0.35, 0.1), "hump": (0.0, 0.32), "head": (0.35, 0.1)}
#: the left half of a symmetric strider (m): the right half is its mirror image across x = 0
STRIDER = {"hip": (-0.2, 0.7), "knee": (-0.4, 0.4), "foot": (-0.3, 0.1)}
#: its bones: (a, b, muscle); 'r:' names a sphere of the right half
STRIDER_BONES = [("hip", "knee", False), ("knee", "foot", True), ("hip", "foot", True), ("hip", "r:hip", False)]


def strider_spot(name: str) -> tuple[float, float]:
    """Where the strider's sphere ``name`` is ('r:hip': the right hip)."""
    if name.startswith("r:"):
        x, y = STRIDER[name[2:]]
        return (-x, y)
    return STRIDER[name]


def build_strider(p, mirror: bool):
    """Build the strider by ``p``'s actions: every part on both sides by hand, or the left half
    in mirror mode (its image made by the editor). A generator: it yields after each action."""
    import arcade
    k = arcade.key
    if mirror:
        p.key(k.N)
        yield
    p.key(k.S)
    spots = list(STRIDER.values()) + ([] if mirror else [(-x, y) for x, y in STRIDER.values()])
    for spot in spots:
        p.click_world(*spot)
        yield
    p.key(k.B)
    bones = STRIDER_BONES if mirror else STRIDER_BONES + [(f"r:{a}", f"r:{b}", m) for a, b, m in STRIDER_BONES
                                                           if not b.startswith("r:")]  # the crossing bone is its own image
    for a, b, _ in bones:
        p.drag_world(strider_spot(a), strider_spot(b))
        yield
    p.key(k.ESCAPE)            # the last bone drawn is selected: M would toggle it
    p.key(k.M)
    for a, b, muscle in bones:
        if muscle:
            (xa, ya), (xb, yb) = strider_spot(a), strider_spot(b)
            p.click_world(0.7 * xa + 0.3 * xb, 0.7 * ya + 0.3 * yb)
            yield


def _screenshot(window, path: Path) -> None:
    import arcade
    window.on_draw()
    arcade.get_image(0, 0, *window.get_framebuffer_size()).convert("RGB").save(path, optimize=True)


class Player:
    """Mouse and keys through the view's own handlers."""

    def __init__(self, view):
        import arcade
        self.view, self.arcade = view, arcade
        #: the player's actions so far: a click, a drag, a key (text typed aside)
        self.actions = 0

    def click(self, x, y, modifiers=0):
        self.actions += 1
        b = self.arcade.MOUSE_BUTTON_LEFT
        self.view.on_mouse_press(x, y, b, modifiers)
        self.view.on_mouse_release(x, y, b, modifiers)

    def click_world(self, wx, wy, modifiers=0):
        sx, sy = self.view.world_to_screen(wx, wy)
        self.click(float(sx), float(sy), modifiers)

    def button(self, name):
        x, y, w, h = self.view.button_rect(name)
        self.click(x + w / 2, y + h / 2)

    def drag_world(self, a, b, steps=6):
        v, btn = self.view, self.arcade.MOUSE_BUTTON_LEFT
        (x0, y0), (x1, y1) = (tuple(float(c) for c in v.world_to_screen(*p)) for p in (a, b))
        self.actions += 1
        v.on_mouse_press(x0, y0, btn, 0)
        px, py = x0, y0
        for k in range(1, steps + 1):
            x, y = x0 + (x1 - x0) * k / steps, y0 + (y1 - y0) * k / steps
            v.on_mouse_drag(x, y, x - px, y - py, btn, 0)
            px, py = x, y
        v.on_mouse_release(x1, y1, btn, 0)

    def key(self, symbol, modifiers=0):
        self.actions += 1
        self.view.on_key_press(symbol, modifiers)
        self.view.on_key_release(symbol, modifiers)

    def type(self, text):
        for ch in text:
            self.view.on_text(ch)


def script(view, doc, out: Path, report: dict):
    import arcade
    k = arcade.key
    p = Player(view)
    texts = [doc.text]
    yield
    # three spheres, by clicks with the sphere tool
    p.button("sphere")
    for name in ("tail", "hump", "head"):
        p.click_world(*SPOTS[name])
        texts.append(doc.text)
        yield
    ids = list(doc.sketch.sphere_id)
    report["spheres"] = ids
    tail, hump, head = ids
    # two bones and a third that becomes a muscle, by drags with the bone tool
    p.button("bone")
    for a, b in (("tail", "hump"), ("hump", "head"), ("tail", "head")):
        p.drag_world(SPOTS[a], SPOTS[b])
        texts.append(doc.text)
        yield
    report["bones"] = list(doc.sketch.bone_id)
    p.button("muscle")
    mid = ((SPOTS["tail"][0] + SPOTS["head"][0]) / 2, (SPOTS["tail"][1] + SPOTS["head"][1]) / 2)
    p.click_world(*mid)
    texts.append(doc.text)
    yield
    report["muscles"] = [b for b, m in zip(doc.sketch.bone_id, doc.sketch.muscle) if m]
    # a hinge at the hump, between its two bones (clicked below it, between them)
    p.button("joint")
    p.click_world(SPOTS["hump"][0], SPOTS["hump"][1] - 0.12)
    texts.append(doc.text)
    yield
    report["joints"] = list(doc.sketch.joint_id)
    report["joint_kind"] = list(doc.sketch.joint_kind)
    report["valid_built"] = not doc.problems
    p.button("select")
    p.click_world(*SPOTS["hump"])
    yield
    _screenshot(view.window, out / "edit-building.png")
    # undo every step, then redo every step: the text is each step's exactly
    undone = []
    for _ in range(len(texts) - 1):
        p.key(k.Z, k.MOD_CTRL)
        undone.append(doc.text)
    redone = []
    for _ in range(len(texts) - 1):
        p.key(k.Y, k.MOD_CTRL)
        redone.append(doc.text)
    report["undo_exact"] = undone == texts[-2::-1]
    report["redo_exact"] = redone == texts[1:]
    yield
    # save: a file the loader takes
    p.key(k.S, k.MOD_CTRL)
    yield
    report["saved_message"] = view.message
    saved = Path(doc.path).read_text()
    report["saved_equals_text"] = saved == doc.text
    # an invalid edit: a bone from the tail to itself
    p.button("bone")
    p.drag_world(SPOTS["tail"], (SPOTS["tail"][0] + 0.01, SPOTS["tail"][1]))
    yield
    report["self_bone_problems"] = [{"message": i.message, "items": [list(x) for x in i.items]} for i in doc.problems]
    _screenshot(view.window, out / "edit-problem.png")
    p.key(k.S, k.MOD_CTRL)                    # refused: the file stays as it was
    yield
    report["save_refused_message"] = view.message
    report["file_unchanged_after_refused_save"] = Path(doc.path).read_text() == saved
    p.key(k.Z, k.MOD_CTRL)
    report["valid_after_undo"] = not doc.problems and doc.text == saved
    yield
    # another: self-collision on (the design's own field, typed in the panel) and a sphere
    # placed over the head
    p.key(k.ESCAPE)
    p.button("select")
    p.click_world(3.0, 3.0)                   # empty space: nothing selected, the design's fields
    yield
    rows = [r[0] if isinstance(r, (tuple, list)) else getattr(r, "key", r) for r in view.panel_rows]
    report["design_rows"] = [str(r) for r in rows]
    i = [str(r) for r in rows].index("self_collision")
    x, y, w, h = view.field_rect(i)
    p.click(x + w / 2, y + h / 2)
    p.key(k.ENTER) if getattr(view, "entry_text", None) is None else None
    for _ in range(20):
        p.key(k.BACKSPACE)
    p.type("true")
    p.key(k.ENTER)
    yield
    report["self_collision"] = "self_collision: true" in doc.text
    p.button("sphere")
    p.click_world(SPOTS["head"][0] + 0.1, SPOTS["head"][1] + 0.02)
    yield
    report["overlap_problems"] = [{"message": i.message, "items": [list(x) for x in i.items]} for i in doc.problems]
    p.key(k.Z, k.MOD_CTRL)
    p.key(k.Z, k.MOD_CTRL)
    report["valid_after_second_undo"] = not doc.problems and doc.text == saved
    yield
    # the live test: T, a moment of it, T again: back to the editing pose
    before = (list(view.selection), tuple(view.world_to_screen(0.0, 0.0)))
    p.key(k.T)
    for _ in range(40):
        yield
    report["live"] = bool(view.live)
    _screenshot(view.window, out / "edit-live.png")
    p.key(k.T)
    yield
    report["back_from_live"] = (not view.live and
                                (list(view.selection), tuple(view.world_to_screen(0.0, 0.0))) == before)
    # mirror mode (its toolbar button): a pair of arms, placed and joined on one side only
    p.button("mirror")
    p.button("sphere")
    arm = (SPOTS["hump"][0] - 0.2, SPOTS["hump"][1] + 0.25)
    p.click_world(*arm)
    p.button("bone")
    p.drag_world(SPOTS["hump"], arm)
    yield
    _screenshot(view.window, out / "edit-mirror.png")
    report["mirror"] = {"mode": view.arranger.mirror_mode, "spheres": list(doc.sketch.sphere_id),
                        "bones": len(doc.sketch.bone_id), "valid": not doc.problems}
    p.key(k.Z, k.MOD_CTRL)          # the bone and its image: one undo step
    report["mirror"]["bones_after_undo"] = len(doc.sketch.bone_id)
    p.button("mirror")
    # the arm's hand (left) by the toolbar's buttons: duplicated, the copy flipped across the
    # axis, the creature set on the ground; then each undone
    before_arrange = doc.text
    p.button("select")
    p.click_world(*arm)
    p.button("duplicate")
    yield
    copy = [i for kind, i in view.selection if kind == "sphere"]
    p.button("flip")
    yield
    flipped = [i for kind, i in view.selection if kind == "sphere"]
    p.button("ground")
    yield
    low = min(y - r for (x, y), r in zip(doc.sketch.pos, doc.sketch.radius))
    report["arrange"] = {"copy": copy, "flipped": flipped, "spheres": len(doc.sketch.sphere_id),
                         "lowest": float(low), "problems": [str(i.message) for i in doc.problems]}
    for _ in range(3):
        p.key(k.Z, k.MOD_CTRL)
    report["arrange"]["undone"] = doc.text == before_arrange
    yield
    # a symmetric strider, in new files: by hand, then in mirror mode (saved)
    from creatures.cli.edit import open_document
    from render.editor import EditorView
    report["strider"] = {}
    for mirror in (False, True):
        sdoc = open_document(str(out / ("strider.yaml" if mirror else "strider-by-hand.yaml")))
        sview = EditorView(sdoc, window=view.window, on_quit=lambda: None)
        view.window.show_view(sview)
        yield
        sview.set_zoom(300.0)
        sp = Player(sview)
        yield from build_strider(sp, mirror)
        report["strider"]["mirror" if mirror else "by_hand"] = {
            "actions": sp.actions, "valid": not sdoc.problems, "spheres": sorted(sdoc.sketch.sphere_id),
            "shape": sorted((round(float(x), 4), round(float(y), 4)) for x, y in sdoc.sketch.pos)}
        if mirror:
            sp.button("save")
            yield
            report["strider"]["saved"] = sview.message
    view.window.show_view(view)
    yield
    p.key(k.Q)
    yield
    p.key(k.Q)
    yield


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", help="where the design, the screenshots and report.json go")
    args = parser.parse_args(argv)
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    os.chdir(out)
    import arcade
    import pyglet

    from creatures.cli.edit import open_document
    from render.editor import EditorView
    path = out / "inchworm.yaml"
    if path.exists():
        path.unlink()
    doc = open_document(str(path))
    window = arcade.Window(*SIZE, "creatures - edit", antialiasing=False)
    view = EditorView(doc, window=window, on_quit=window.close)
    window.show_view(view)
    report: dict = {"path": str(path)}
    steps = script(view, doc, out, report)

    def tick(dt):
        try:
            next(steps)
        except StopIteration:
            pyglet.clock.unschedule(tick)
            if not window.closed:
                window.close()
        except Exception as exc:  # noqa: BLE001 - reported, and the window closed
            import traceback
            report["error"] = "".join(traceback.format_exception(exc))
            pyglet.clock.unschedule(tick)
            window.close()

    pyglet.clock.schedule_interval(tick, 1 / 30)
    try:
        arcade.run()
    finally:
        (out / "report.json").write_text(json.dumps(report, indent=1))
    return 1 if "error" in report else 0


if __name__ == "__main__":
    sys.exit(main())

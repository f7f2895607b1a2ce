"""The editor's window (render.editor.EditorView) driven through its real input handlers in a
hidden headless window, against a small in-memory document that records what it is asked:
placing spheres, bones, muscles, joints and clusters, moving, deleting, undo, the panel, the
problems, saving, the live test, quitting, and what it draws."""

import copy
import math

import arcade
import numpy as np
import pytest

from render.editor import BUTTONS, KEYS, MUSCLE, PROBLEM, SNAP, EditorView, measure_editor_frames
from render.game import Field, GameError, Issue, Pick, Sketch
from render.scene import CreatureFrame, CreatureShape, Frame, Scene
from render.theme import BONE_RIGID, SKY, SPHERE


K = arcade.key
LEFT = arcade.MOUSE_BUTTON_LEFT
RIGHT = arcade.MOUSE_BUTTON_RIGHT
CTRL = K.MOD_CTRL
SHIFT = K.MOD_SHIFT


# a fake document ----------------------------------------------------------------------------------
class FakeSource:
    """A design standing still: enough of a Source for the viewer."""

    def __init__(self, sketch, terrain):
        P = len(sketch.sphere_id)
        self.terrain = terrain
        self.pos = np.asarray(sketch.pos, float).reshape(-1, 2).copy()
        ok = (sketch.bone_a >= 0) & (sketch.bone_b >= 0)
        shape = CreatureShape(radius=np.asarray(sketch.radius, float), bone_a=sketch.bone_a[ok],
                              bone_b=sketch.bone_b[ok], muscle_bone=np.flatnonzero(sketch.muscle[ok]),
                              rigid=~sketch.muscle[ok], joint_sphere=np.zeros(0, np.int64), label="live")
        self.scene = Scene(terrain_x=np.array([-50.0, 50.0]), terrain_y=np.zeros(2), creatures=[shape],
                           dt=1 / 60, duration=None, title=f"live test on {terrain or 'flat'}")
        self.message = None
        self.steps = 0
        self.P = P

    def reset(self):
        self.steps = 0

    def step(self):
        self.steps += 1

    def frame(self):
        cf = CreatureFrame(pos=self.pos, contraction=np.zeros(int(self.scene.creatures[0].muscle_bone.size)),
                           contact=np.zeros(self.P, bool), joint_angle=np.zeros(0))
        return Frame(time=self.steps / 60, step=self.steps, creatures=[cf], leader=0, done=False)

    def brain(self, creature):
        return None

    def brain_values(self, creature):
        return {}

    def poll(self):
        return False


class FakeDoc:
    """A design in memory: spheres, bones, joints and clusters by id, every edit one undo step,
    a bone from a sphere to itself its one kind of problem (plus ``extra_problems``). ``calls``
    records every edit, save, undo, live test and evolve (not the reads)."""

    def __init__(self, path="/tmp/designs/creature.yaml"):
        self.path = path
        self.title = "creature"
        self.calls = []
        self.state = {"spheres": {}, "bones": {}, "joints": {}, "clusters": {}, "values": {}, "n": 0}
        self.undos, self.redos = [], []
        self.dirty = False
        self.version = 0
        self.extra_problems = []
        self.evolving = frozenset()
        self.set_field_error = None
        self.save_error = None
        self.terrains = [Pick("", "flat ground", "flat"), Pick("hills", "rolling hills"),
                         Pick("steps", "stairs up")]
        self._sketch = None

    # edits --------------------------------------------------------------------------------------
    def _begin(self, name, *args, **kwargs):
        self.calls.append((name, args, kwargs) if kwargs else (name, args))
        self.undos.append(copy.deepcopy(self.state))
        self.redos.clear()

    def _done(self):
        self.dirty = True
        self.version += 1
        self._sketch = None

    def _new(self, prefix):
        self.state["n"] += 1
        return f"{prefix}{self.state['n']}"

    def add_sphere(self, x, y):
        self._begin("add_sphere", x, y)
        sid = self._new("s")
        self.state["spheres"][sid] = [float(x), float(y), 0.1]
        self._done()
        return sid

    def move_spheres(self, ids, dx, dy):
        self._begin("move_spheres", list(ids), dx, dy)
        for i in ids:
            self.state["spheres"][i][0] += dx
            self.state["spheres"][i][1] += dy
        self._done()

    def set_position(self, sphere, x, y):
        self._begin("set_position", sphere, x, y)
        self.state["spheres"][sphere][:2] = [x, y]
        self._done()

    def add_bone(self, a, b):
        self._begin("add_bone", a, b)
        bid = self._new("b")
        self.state["bones"][bid] = [a, b, False]
        self._done()
        return bid

    def toggle_muscle(self, bone):
        self._begin("toggle_muscle", bone)
        self.state["bones"][bone][2] = not self.state["bones"][bone][2]
        self._done()

    def _direction(self, sphere, bone):
        a, b, _ = self.state["bones"][bone]
        other = b if a == sphere else a
        (x0, y0), (x1, y1) = self.state["spheres"][sphere][:2], self.state["spheres"][other][:2]
        return math.degrees(math.atan2(y1 - y0, x1 - x0))

    def add_joint(self, sphere, bone1, bone2, kind="hinge"):
        self._begin("add_joint", sphere, bone1, bone2)
        jid = self._new("j")
        angle = (self._direction(sphere, bone2) - self._direction(sphere, bone1)) % 360.0
        lo, hi = (angle - 45.0, angle + 45.0) if kind == "hinge" else (math.nan, math.nan)
        self.state["joints"][jid] = [sphere, bone1, bone2, kind, lo, hi]
        self._done()
        return jid

    def set_joint(self, joint, kind=None, min=None, max=None):
        self._begin("set_joint", joint, kind=kind, min=min, max=max)
        j = self.state["joints"][joint]
        if kind is not None:
            j[3] = kind
            if kind == "free":
                j[4] = j[5] = math.nan
            elif math.isnan(j[4]):
                j[4], j[5] = 0.0, 180.0
        if min is not None:
            j[4] = float(min)
        if max is not None:
            j[5] = float(max)
        self._done()

    def add_cluster(self, spheres):
        if len(spheres) < 3:
            raise GameError("a cluster needs three spheres or more")
        self._begin("add_cluster", list(spheres))
        cid = self._new("c")
        self.state["clusters"][cid] = list(spheres)
        self._done()
        return cid

    def delete(self, items):
        self._begin("delete", list(items))
        st = self.state
        for kind, i in items:
            if kind == "sphere":
                st["spheres"].pop(i, None)
                for b in [b for b, v in st["bones"].items() if i in v[:2]]:
                    st["bones"].pop(b)
                for c in st["clusters"].values():
                    if i in c:
                        c.remove(i)
            elif kind == "bone":
                st["bones"].pop(i, None)
            elif kind == "joint":
                st["joints"].pop(i, None)
            elif kind == "cluster":
                st["clusters"].pop(i, None)
        for j in [j for j, v in st["joints"].items() if v[0] not in st["spheres"]
                  or v[1] not in st["bones"] or v[2] not in st["bones"]]:
            st["joints"].pop(j)
        self._done()

    def join(self, steps=2):
        self.calls.append(("join", (steps,)))
        for _ in range(steps - 1):
            if len(self.undos) >= 2:
                del self.undos[-1]

    def undo(self):
        self.calls.append(("undo", ()))
        if self.undos:
            self.redos.append(self.state)
            self.state = self.undos.pop()
            self._done()

    def redo(self):
        self.calls.append(("redo", ()))
        if self.redos:
            self.undos.append(self.state)
            self.state = self.redos.pop()
            self._done()

    @property
    def can_undo(self):
        return bool(self.undos)

    @property
    def can_redo(self):
        return bool(self.redos)

    # fields -------------------------------------------------------------------------------------
    def fields(self, kind, id):
        st = self.state
        v = st["values"]
        if kind == "sphere":
            x, y, r = st["spheres"][id]
            return [Field("id", id), Field("x", f"{x:g}", "m"), Field("y", f"{y:g}", "m"),
                    Field("radius", f"{r:g}", "m", hint="the sphere's radius, from 0.01 to 1 m"),
                    Field("mass", v.get((kind, id, "mass"), "1"), "kg", default=(kind, id, "mass") not in v,
                          hint="its mass; the defaults say 1 kg")]
        if kind == "bone":
            return [Field("id", id), Field("muscle", str(st["bones"][id][2]).lower())]
        if kind == "joint":
            j = st["joints"][id]
            return [Field("id", id), Field("kind", j[3]), Field("min", f"{j[4]:g}", "deg"),
                    Field("max", f"{j[5]:g}", "deg")]
        if kind == "cluster":
            return [Field("id", id)]
        return [Field("name", self.title), Field("self_collision", "false", default=True)]

    def set_field(self, kind, id, key, text):
        self.calls.append(("set_field", (kind, id, key, text)))
        if self.set_field_error:
            raise GameError(self.set_field_error)
        if key == "radius":
            try:
                r = float(text)
            except ValueError:
                raise GameError(f"radius must be a number in metres, not {text!r}") from None
            self.undos.append(copy.deepcopy(self.state))
            self.state["spheres"][id][2] = r
        else:
            self.undos.append(copy.deepcopy(self.state))
            self.state["values"][(kind, id, key)] = text
        self._done()

    # what the view reads ------------------------------------------------------------------------
    @property
    def text(self):
        return f"version {self.version}"

    @property
    def sketch(self):
        if self._sketch is None:
            st = self.state
            sids = tuple(st["spheres"])
            si = {s: i for i, s in enumerate(sids)}
            bids = tuple(st["bones"])
            bi = {b: i for i, b in enumerate(bids)}
            jids = tuple(st["joints"])
            J = [st["joints"][j] for j in jids]
            self._sketch = Sketch(
                sphere_id=sids, pos=np.array([v[:2] for v in st["spheres"].values()], float).reshape(-1, 2),
                radius=np.array([v[2] for v in st["spheres"].values()], float),
                bone_id=bids, bone_a=np.array([si.get(v[0], -1) for v in st["bones"].values()], np.int64),
                bone_b=np.array([si.get(v[1], -1) for v in st["bones"].values()], np.int64),
                muscle=np.array([v[2] for v in st["bones"].values()], bool),
                joint_id=jids, joint_sphere=np.array([si.get(j[0], -1) for j in J], np.int64),
                joint_bones=np.array([[bi.get(j[1], -1), bi.get(j[2], -1)] for j in J], np.int64).reshape(-1, 2),
                joint_kind=tuple(j[3] for j in J), joint_min=np.array([j[4] for j in J], float),
                joint_max=np.array([j[5] for j in J], float), cluster_id=tuple(st["clusters"]),
                cluster_members=tuple(np.array([si[s] for s in c if s in si], np.int64)
                                      for c in st["clusters"].values()),
                evolving=self.evolving)
        return self._sketch

    @property
    def problems(self):
        out = [Issue(f"{self.path}:{3 + i}:7: bone {b} joins sphere {v[0]!r} to itself", 3 + i, 7,
                     (("bone", b), ("sphere", v[0])))
               for i, (b, v) in enumerate(self.state["bones"].items()) if v[0] == v[1]]
        return out + list(self.extra_problems)

    def save(self):
        self.calls.append(("save", ()))
        if self.save_error:
            raise GameError(self.save_error)
        if self.problems:
            raise GameError(f"not saved: {self.problems[0].message}")
        self.dirty = False
        return self.path

    def live_source(self, terrain=""):
        self.calls.append(("live_source", (terrain,)))
        return FakeSource(self.sketch, terrain)

    def evolve(self):
        self.calls.append(("evolve", ()))
        return f"evolving {self.path} in a new window (creatures play {self.path})"

    def names(self, call):
        return [c for c in self.calls if c[0] == call]


class Calls(list):
    def __call__(self, *args):
        self.append(args)


# helpers ------------------------------------------------------------------------------------------
def triangle_doc(muscle=True):
    """Three spheres joined in a triangle (one of its bones a muscle), not dirty, no undo."""
    doc = FakeDoc()
    st = doc.state
    st["spheres"] = {"a": [-0.4, 0.3, 0.1], "b": [0.4, 0.3, 0.1], "c": [0.0, 0.9, 0.12]}
    st["bones"] = {"ab": ["a", "b", muscle], "bc": ["b", "c", False], "ca": ["c", "a", False]}
    return doc


def star_doc():
    """A centre sphere with three bones: to the right, up and to the left."""
    doc = FakeDoc()
    st = doc.state
    st["spheres"] = {"m": [0.0, 0.6, 0.08], "r": [0.5, 0.6, 0.08], "u": [0.0, 1.1, 0.08], "l": [-0.5, 0.6, 0.08]}
    st["bones"] = {"right": ["m", "r", False], "up": ["m", "u", False], "left": ["m", "l", False]}
    return doc


def make_view(window, doc=None, **options):
    doc = doc or FakeDoc()
    quits = Calls()
    view = EditorView(doc, window=window, on_quit=quits, **options)
    return view, doc, quits


def at(view, x, y):
    sx, sy = view.world_to_screen(x, y)
    return float(sx), float(sy)


def click(view, point, modifiers=0, button=LEFT):
    view.on_mouse_press(point[0], point[1], button, modifiers)
    view.on_mouse_release(point[0], point[1], button, modifiers)


def click_rect(view, rect, modifiers=0):
    click(view, (rect[0] + rect[2] / 2, rect[1] + rect[3] / 2), modifiers)


def drag(view, a, b, steps=5, modifiers=0, button=LEFT, release=True):
    view.on_mouse_press(a[0], a[1], button, modifiers)
    last = a
    for k in range(1, steps + 1):
        p = (a[0] + (b[0] - a[0]) * k / steps, a[1] + (b[1] - a[1]) * k / steps)
        view.on_mouse_drag(p[0], p[1], p[0] - last[0], p[1] - last[1], button, modifiers)
        last = p
    if release:
        view.on_mouse_release(b[0], b[1], button, modifiers)


def screen_pixels(window):
    """The framebuffer as (H, W, 3) indexed [y, x] from the bottom left (as render_helpers does,
    without importing the physics it needs)."""
    w, h = window.get_framebuffer_size()
    return np.frombuffer(window.ctx.screen.read(components=3), dtype=np.uint8).reshape(h, w, 3)


def pixel(pixels, sx, sy):
    return pixels[int(np.floor(sy)), int(np.floor(sx))].astype(int)


def near(color, expected, tol=3):
    return bool(np.all(np.abs(np.asarray(color, int)[:3] - np.asarray(expected, int)[:3]) <= tol))


def key(view, symbol, modifiers=0):
    view.on_key_press(symbol, modifiers)
    view.on_key_release(symbol, modifiers)


def image(view):
    view.on_draw()
    return screen_pixels(view.window)


def row_of(view, name):
    return next(i for i, f in enumerate(view.panel_rows) if f.key == name)


# placing and connecting ---------------------------------------------------------------------------
def test_clicks_with_the_sphere_tool_place_spheres_where_clicked(window):
    view, doc, _ = make_view(window)
    key(view, K.S)
    assert view.tool == "sphere"
    points = [(-0.5, 0.3), (0.5, 0.3), (0.0, 0.8)]
    for p in points:
        click(view, at(view, *p))
    calls = doc.names("add_sphere")
    assert len(calls) == 3
    for (_, (x, y)), (px, py) in zip(calls, points):
        assert abs(x - px) < 1.5 / view.zoom and abs(y - py) < 1.5 / view.zoom
    assert len(doc.sketch.sphere_id) == 3
    assert view.selection == [("sphere", "s3")]            # the new sphere is selected


def test_a_click_on_a_sphere_with_the_sphere_tool_selects_it(window):
    view, doc, _ = make_view(window, triangle_doc())
    key(view, K.S)
    click(view, at(view, 0.4, 0.3))
    assert doc.names("add_sphere") == [] and view.selection == [("sphere", "b")]


def test_snap_rounds_placed_and_moved_positions_to_the_grid(window):
    view, doc, _ = make_view(window)
    key(view, K.G)
    assert view.snap
    key(view, K.S)
    click(view, at(view, 0.123, 0.456))
    (_, (x, y)), = doc.names("add_sphere")
    assert x == pytest.approx(0.1) and y == pytest.approx(0.45)
    key(view, K.V)
    drag(view, at(view, 0.1, 0.45), at(view, 0.33, 0.61))
    (_, (ids, dx, dy)), = doc.names("move_spheres")
    assert ids == ["s1"]
    assert (0.1 + dx) / SNAP == pytest.approx(round((0.1 + dx) / SNAP)) and dx == pytest.approx(0.25)
    assert (0.45 + dy) / SNAP == pytest.approx(round((0.45 + dy) / SNAP)) and dy == pytest.approx(0.15)


def test_dragging_from_a_sphere_to_another_adds_a_bone(window):
    view, doc, _ = make_view(window)
    key(view, K.S)
    for p in [(-0.5, 0.3), (0.5, 0.3), (0.0, 0.8)]:
        click(view, at(view, *p))
    key(view, K.B)
    drag(view, at(view, -0.5, 0.3), at(view, 0.5, 0.3))
    drag(view, at(view, 0.5, 0.3), at(view, 0.0, 0.8))
    assert doc.names("add_bone") == [("add_bone", ("s1", "s2")), ("add_bone", ("s2", "s3"))]
    assert view.selection == [("bone", "b5")]


def test_a_bone_dragged_into_empty_space_ends_at_a_new_sphere_in_one_step(window):
    from render.editor_tools import BONE_ANGLE_SNAP
    view, doc, _ = make_view(window, triangle_doc())
    key(view, arcade.key.B)
    drag(view, at(view, 0.0, 0.9), at(view, 0.31, 1.13))
    assert [c[0] for c in doc.calls[-3:]] == ["add_sphere", "add_bone", "join"]
    new = doc.calls[-3][1]
    assert abs(new[0] - 0.31) < 0.01 and abs(new[1] - 1.13) < 0.01
    assert view.selection == [("bone", list(doc.state["bones"])[-1])]
    key(view, arcade.key.G)                                   # snap: the angle on 15 degrees, the length on 5 cm
    drag(view, at(view, 0.0, 0.9), at(view, -0.3, 1.05))     # 153 degrees, 0.335 m
    x, y = doc.calls[-3][1]
    angle, length = math.degrees(math.atan2(y - 0.9, x)), math.hypot(x, y - 0.9)
    assert abs(angle / BONE_ANGLE_SNAP - round(angle / BONE_ANGLE_SNAP)) < 1e-4 and round(angle) == 150
    assert abs(length - 0.35) < 1e-3
    n = len(doc.state["spheres"])
    key(view, arcade.key.Z, arcade.key.MOD_CTRL)              # one undo: the sphere and its bone go
    assert len(doc.state["spheres"]) == n - 1


def test_a_bone_from_a_sphere_to_itself_shows_its_message_and_its_sphere_red(window):
    view, doc, _ = make_view(window, triangle_doc())
    assert view.problem_lines == ["valid"]
    key(view, K.B)
    click(view, at(view, 0.0, 0.9))                          # pressed and released on one sphere
    assert doc.names("add_bone") == [("add_bone", ("c", "c"))]
    assert len(view.problem_lines) == 1 and "to itself" in view.problem_lines[0]
    img = image(view)
    assert near(pixel(img, *at(view, 0.0, 0.9)), PROBLEM)
    assert near(pixel(img, *at(view, 0.4, 0.3)), SPHERE)      # the others keep their colour


def test_clicking_a_bone_with_the_muscle_tool_toggles_it(window):
    view, doc, _ = make_view(window, triangle_doc())
    key(view, K.M)                                            # nothing selected: the muscle tool
    assert view.tool == "muscle"
    click(view, at(view, 0.2, 0.6))                           # the middle of bone bc
    assert doc.names("toggle_muscle") == [("toggle_muscle", ("bc",))]
    assert doc.sketch.muscle.tolist() == [True, True, False]


def test_m_after_drawing_a_bone_is_the_muscle_tool_not_a_toggle_of_that_bone(window):
    view, doc, _ = make_view(window, triangle_doc())
    view.set_tool("bone")
    view.selection = [("bone", "ca")]                         # as a bone just drawn stays selected
    key(view, K.M)
    assert view.tool == "muscle" and not doc.names("toggle_muscle")
    assert "muscle tool" in view.message


def test_m_with_a_bone_selected_toggles_it(window):
    view, doc, _ = make_view(window, triangle_doc())
    click(view, at(view, -0.2, 0.6))                          # select bone ca
    assert view.selection == [("bone", "ca")]
    key(view, K.M)
    assert doc.names("toggle_muscle") == [("toggle_muscle", ("ca",))] and view.tool == "select"


# joints -------------------------------------------------------------------------------------------
def angle_point(view, centre, degrees, pixels):
    cx, cy = at(view, *centre)
    a = math.radians(degrees)
    return cx + pixels * math.cos(a), cy + pixels * math.sin(a)


@pytest.mark.parametrize("degrees, bones", [(45, ("right", "up")), (130, ("up", "left")),
                                            (270, ("left", "right"))])
def test_a_click_between_two_bones_adds_a_hinge_between_them(window, degrees, bones):
    view, doc, _ = make_view(window, star_doc())
    key(view, K.J)
    reach = 0.08 * view.zoom + 14
    click(view, angle_point(view, (0.0, 0.6), degrees, reach))
    assert doc.names("add_joint") == [("add_joint", ("m",) + bones)]
    assert view.selection == [("joint", "j1")]


def test_dragging_a_limit_handle_sets_the_hinge_limit(window):
    view, doc, _ = make_view(window, star_doc())
    key(view, K.J)
    click(view, angle_point(view, (0.0, 0.6), 45, 0.08 * view.zoom + 14))    # right -> up: 45..135
    assert doc.state["joints"]["j1"][4:] == [45.0, 135.0]
    hx, hy = view.handle_position("j1", "max")
    c = at(view, 0.0, 0.6)
    assert math.degrees(math.atan2(hy - c[1], hx - c[0])) == pytest.approx(135.0, abs=0.5)
    R = math.hypot(hx - c[0], hy - c[1])
    drag(view, (hx, hy), angle_point(view, (0.0, 0.6), 160, R), release=False)
    assert doc.names("set_joint") == []                                     # shown live, not yet set
    assert view.handle_position("j1", "max") == pytest.approx(angle_point(view, (0.0, 0.6), 160, R), abs=1.0)
    p = angle_point(view, (0.0, 0.6), 160, R)
    view.on_mouse_release(p[0], p[1], LEFT, 0)
    assert doc.names("set_joint") == [("set_joint", ("j1",), {"kind": None, "min": 45.0, "max": 160.0})]
    # the min handle, in the select tool
    key(view, K.V)
    hx, hy = view.handle_position("j1", "min")
    drag(view, (hx, hy), angle_point(view, (0.0, 0.6), 20, R))
    assert doc.names("set_joint")[-1] == ("set_joint", ("j1",), {"kind": None, "min": 20.0, "max": 160.0})


def test_k_toggles_the_selected_joint_between_hinge_and_free(window):
    view, doc, _ = make_view(window, star_doc())
    key(view, K.J)
    click(view, angle_point(view, (0.0, 0.6), 45, 0.08 * view.zoom + 14))
    key(view, K.K)
    assert doc.names("set_joint") == [("set_joint", ("j1",), {"kind": "free", "min": None, "max": None})]
    key(view, K.K)
    assert doc.names("set_joint")[-1][2]["kind"] == "hinge"


# selecting, clusters, moving, deleting ------------------------------------------------------------
def test_a_box_selects_the_spheres_in_it_and_c_makes_a_cluster(window):
    view, doc, _ = make_view(window, triangle_doc())
    drag(view, at(view, -0.7, 0.1), at(view, 0.7, 1.2))
    assert {i for k, i in view.selection if k == "sphere"} == {"a", "b", "c"}
    assert {i for k, i in view.selection if k == "bone"} == {"ab", "bc", "ca"}
    key(view, K.C)
    (_, (spheres,)), = doc.names("add_cluster")
    assert sorted(spheres) == ["a", "b", "c"]
    assert view.selection == [("cluster", "c1")]


def test_shift_click_adds_to_the_selection_and_c_needs_three_spheres(window):
    view, doc, _ = make_view(window, triangle_doc())
    click(view, at(view, -0.4, 0.3))
    click(view, at(view, 0.4, 0.3), SHIFT)
    assert view.selection == [("sphere", "a"), ("sphere", "b")]
    key(view, K.C)
    assert doc.names("add_cluster") == [] and view.tool == "cluster" and "three" in view.message
    click(view, at(view, 0.0, 0.9), SHIFT)
    click_rect(view, view.button_rect("cluster"))
    assert doc.names("add_cluster") == [("add_cluster", (["a", "b", "c"],))]


def test_dragging_selected_spheres_moves_them_live_in_one_edit(window):
    view, doc, _ = make_view(window, triangle_doc())
    click(view, at(view, -0.4, 0.3))
    click(view, at(view, 0.4, 0.3), SHIFT)
    start, end = at(view, -0.4, 0.3), at(view, -0.1, 0.5)
    drag(view, start, end, steps=6, release=False)
    assert doc.names("move_spheres") == []
    img = image(view)                                          # drawn where it is dragged
    assert near(pixel(img, *end), SPHERE) and not near(pixel(img, *start), SPHERE)
    view.on_mouse_release(end[0], end[1], LEFT, 0)
    (_, (ids, dx, dy)), = doc.names("move_spheres")
    assert ids == ["a", "b"]
    assert dx == pytest.approx(0.3, abs=1.5 / view.zoom) and dy == pytest.approx(0.2, abs=1.5 / view.zoom)
    assert view.selection == [("sphere", "a"), ("sphere", "b")]


def test_dragging_a_bone_moves_both_its_spheres(window):
    view, doc, _ = make_view(window, triangle_doc())
    drag(view, at(view, 0.2, 0.6), at(view, 0.3, 0.6))          # bone bc, by its middle
    (_, (ids, dx, dy)), = doc.names("move_spheres")
    assert ids == ["b", "c"] and dx == pytest.approx(0.1, abs=1.5 / view.zoom)
    assert view.selection == [("bone", "bc")]


def test_an_edit_the_document_refuses_is_shown_and_changes_nothing(window, monkeypatch):
    view, doc, _ = make_view(window, triangle_doc())

    def refuse(a, b):
        raise GameError("bone a-b is already there")
    monkeypatch.setattr(doc, "add_bone", refuse)
    key(view, K.B)
    drag(view, at(view, -0.4, 0.3), at(view, 0.4, 0.3))
    assert view.message == "bone a-b is already there" and view.message_error
    assert view.selection == [] and doc.sketch.bone_id == ("ab", "bc", "ca")
    key(view, K.S)
    click(view, at(view, 1.0, 1.0))                               # the next edit clears it
    assert view.message is None


def test_delete_and_backspace_delete_the_selection(window):
    view, doc, _ = make_view(window, triangle_doc())
    click(view, at(view, 0.0, 0.9))
    key(view, K.DELETE)
    assert doc.names("delete") == [("delete", ([("sphere", "c")],))]
    assert view.selection == [] and doc.sketch.bone_id == ("ab",)
    click(view, at(view, 0.0, 0.3))
    key(view, K.BACKSPACE)
    assert doc.names("delete")[-1] == ("delete", ([("bone", "ab")],))


def test_undo_and_redo_keys_and_buttons_call_the_document(window):
    view, doc, _ = make_view(window, triangle_doc())
    key(view, K.S)
    click(view, at(view, 1.0, 1.0))
    key(view, K.Z, CTRL)
    key(view, K.Y, CTRL)
    key(view, K.Z, CTRL)
    key(view, K.Z, CTRL | SHIFT)
    click_rect(view, view.button_rect("undo"))
    click_rect(view, view.button_rect("redo"))
    assert [c[0] for c in doc.calls if c[0] in ("undo", "redo")] == ["undo", "redo", "undo", "redo", "undo", "redo"]
    assert len(doc.sketch.sphere_id) == 4


def test_undo_of_a_new_sphere_drops_it_from_the_selection(window):
    view, doc, _ = make_view(window, triangle_doc())
    key(view, K.S)
    click(view, at(view, 1.0, 1.0))
    assert view.selection == [("sphere", "s1")]
    key(view, K.Z, CTRL)
    assert view.selection == [] and view.panel_item == ("design", "")


# the panel ----------------------------------------------------------------------------------------
def test_the_panel_shows_the_design_then_the_selected_item(window):
    view, doc, _ = make_view(window, triangle_doc())
    assert view.panel_item == ("design", "") and [f.key for f in view.panel_rows] == ["name", "self_collision"]
    click(view, at(view, 0.4, 0.3))
    assert view.panel_title.startswith("sphere b")
    assert [f.key for f in view.panel_rows] == ["id", "x", "y", "radius", "mass"]


def test_the_panel_edits_a_field_by_clicking_and_typing(window):
    view, doc, _ = make_view(window, triangle_doc())
    click(view, at(view, 0.4, 0.3))
    click_rect(view, view.field_rect(row_of(view, "radius")))
    assert view.entry_text == "0.1"
    view.on_text("0.15")                                      # the first key replaces the value
    key(view, K.BACKSPACE)
    view.on_text("2")
    key(view, K.ENTER)
    assert doc.names("set_field") == [("set_field", ("sphere", "b", "radius", "0.12"))]
    assert view.entry_text is None
    assert next(f.value for f in view.panel_rows if f.key == "radius") == "0.12"


def test_tab_and_enter_edit_a_field_from_the_keyboard(window):
    view, doc, _ = make_view(window, triangle_doc())
    click(view, at(view, 0.4, 0.3))
    for _ in range(row_of(view, "mass") + 1):
        key(view, K.TAB)
    assert view.panel_rows[view.focus].key == "mass"
    key(view, K.ENTER)
    view.on_text("s")                                         # typed, not the sphere tool
    key(view, K.BACKSPACE)
    view.on_text("2.5")
    key(view, K.ENTER)
    assert view.tool == "select"
    assert doc.names("set_field") == [("set_field", ("sphere", "b", "mass", "2.5"))]


def test_defaults_are_greyed_and_the_hint_is_shown(window):
    view, doc, _ = make_view(window, triangle_doc())
    click(view, at(view, 0.4, 0.3))
    mass = view.panel_rows[row_of(view, "mass")]
    assert mass.default
    image(view)
    values = [t for t in view.panel.row_values.items if t.visible]
    assert tuple(values[row_of(view, "mass")].color)[:3] != tuple(values[row_of(view, "radius")].color)[:3]
    view.on_mouse_motion(*(lambda r: (r[0] + r[2] / 2, r[1] + r[3] / 2))(view.field_rect(row_of(view, "radius"))), 0, 0)
    image(view)
    assert any("radius" in t.text for t in view.panel.hint_lines.items if t.visible)


def test_a_game_error_from_set_field_is_shown_and_the_entry_stays_open(window):
    view, doc, _ = make_view(window, triangle_doc())
    click(view, at(view, 0.4, 0.3))
    click_rect(view, view.field_rect(row_of(view, "radius")))
    view.on_text("big")
    key(view, K.ENTER)
    assert view.field_error == "radius must be a number in metres, not 'big'"
    assert view.entry_text == "big"
    image(view)
    assert any("metres" in t.text for t in view.panel.error_lines.items if t.visible)
    key(view, K.ESCAPE)
    assert view.entry_text is None and view.field_error is None
    assert view.selection == [("sphere", "b")]                # ESC closed the entry only


# saving, evolving, problems -----------------------------------------------------------------------
def test_ctrl_s_saves_and_shows_the_path_or_the_error(window):
    view, doc, _ = make_view(window, triangle_doc())
    key(view, K.S, CTRL)
    assert view.message == "saved /tmp/designs/creature.yaml" and not view.message_error
    assert view.tool == "select"
    doc.save_error = "cannot write /tmp/designs/creature.yaml: no space left on the device"
    key(view, K.S, CTRL)
    assert view.message == doc.save_error and view.message_error
    image(view)
    shown = " ".join(t.text for t in view.message_line.lines.items if t.visible)
    assert shown.replace("\u2026", "").split() == doc.save_error.split()


def test_e_evolves_and_shows_the_line_for_a_while(window):
    view, doc, _ = make_view(window, triangle_doc())
    key(view, K.E)
    assert doc.names("evolve") and view.message.startswith("evolving /tmp/designs/creature.yaml")
    view.on_update(1 / 60)
    assert view.message
    view.message_line.shown_at -= 60.0
    view.on_update(1 / 60)
    assert view.message is None


def test_problems_are_listed_highlighted_and_clicking_one_selects_its_items(window):
    doc = triangle_doc()
    doc.extra_problems = [Issue(f"p{i}: bone ab is too short", items=(("bone", "ab"),)) for i in range(6)]
    view, _, _ = make_view(window, doc)
    n = view.layout.problem_slots
    assert view.problem_lines[:n - 1] == [f"p{i}: bone ab is too short" for i in range(n - 1)]
    assert view.problem_lines[-1] == f"... and {6 - (n - 1)} more"
    img = image(view)
    assert near(pixel(img, *at(view, 0.0, 0.3)), PROBLEM)     # bone ab is drawn red
    click_rect(view, view.problem_rect(0))
    assert view.selection == [("bone", "ab")]
    doc.extra_problems = []
    image(view)
    assert view.problem_lines == ["valid"]


# the live test ------------------------------------------------------------------------------------
def test_the_live_test_plays_and_comes_back_as_it_was(window):
    view, doc, _ = make_view(window, triangle_doc())
    click(view, at(view, 0.4, 0.3))
    view.on_mouse_scroll(*at(view, 0.0, 0.6), 0, 2)
    drag(view, (200, 200), (150, 170), button=RIGHT)
    before = (list(view.selection), view.camera_position, view.zoom, view.tool)
    key(view, K.T)
    assert view.live and doc.names("live_source") == [("live_source", ("",))]
    assert isinstance(view.viewer.source, FakeSource)
    img = image(view)
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 10
    view.on_update(1 / 60)
    key(view, K.R)
    assert doc.names("live_source")[-1] == ("live_source", ("hills",)) and view.viewer.source.terrain == "hills"
    key(view, K.T)
    assert not view.live
    assert (view.selection, view.camera_position, view.zoom, view.tool) == before
    img = image(view)
    assert near(pixel(img, *at(view, 0.0, 0.9)), SPHERE)
    click_rect(view, view.button_rect("test"))                # the button too
    assert view.live and doc.names("live_source")[-1] == ("live_source", ("hills",))
    click_rect(view, view.button_rect("test"))
    assert not view.live


# quitting -----------------------------------------------------------------------------------------
def test_quitting_with_unsaved_changes_asks_for_a_second_q(window):
    view, doc, quits = make_view(window, triangle_doc())
    key(view, K.S)
    click(view, at(view, 1.0, 1.0))
    assert doc.dirty
    key(view, K.Q)
    assert quits == [] and view.message == "unsaved changes: CTRL+S saves, Q again quits"
    key(view, K.Q)
    assert quits == [()] and view.quit_requested


def test_a_saved_design_quits_at_once(window):
    view, doc, quits = make_view(window, triangle_doc())
    key(view, K.Q)
    assert quits == [()]


def test_escape_cancels_a_drag_then_clears_the_selection_then_quits(window):
    view, doc, quits = make_view(window, triangle_doc())
    click(view, at(view, -0.4, 0.3))
    drag(view, at(view, -0.4, 0.3), at(view, 0.0, 0.5), release=False)
    key(view, K.ESCAPE)
    end = at(view, 0.0, 0.5)
    view.on_mouse_release(end[0], end[1], LEFT, 0)
    assert doc.names("move_spheres") == [] and view.selection == [("sphere", "a")]
    key(view, K.H)
    assert view.show_help
    key(view, K.ESCAPE)
    assert not view.show_help and view.selection == [("sphere", "a")]
    key(view, K.ESCAPE)
    assert view.selection == [] and quits == []
    key(view, K.ESCAPE)                                       # nothing to cancel: it says so
    assert quits == [] and "ESC again" in view.message
    key(view, K.S)                                            # anything else in between...
    key(view, K.ESCAPE)
    assert quits == []
    key(view, K.ESCAPE)                                       # ...then two in a row quit
    assert quits == [()]


# the camera ---------------------------------------------------------------------------------------
def test_the_wheel_zooms_about_the_pointer_and_a_right_drag_pans(window):
    view, doc, _ = make_view(window, triangle_doc())
    p = at(view, 0.4, 0.3)
    z = view.zoom
    view.on_mouse_scroll(p[0], p[1], 0, 3)
    assert view.zoom == pytest.approx(z * 1.15 ** 3)
    assert at(view, 0.4, 0.3) == pytest.approx(p)
    drag(view, (200, 200), (260, 180), button=RIGHT)
    assert at(view, 0.4, 0.3) == pytest.approx((p[0] + 60, p[1] - 20))
    assert doc.calls == [] and view.selection == []
    key(view, K.F)
    assert view.screen_to_world(*view.world_to_screen(0.4, 0.3)) == pytest.approx((0.4, 0.3))


def test_buttons_pick_tools_and_toggle_snap(window):
    view, doc, _ = make_view(window, triangle_doc())
    for name in ("sphere", "bone", "joint", "select"):
        click_rect(view, view.button_rect(name))
        assert view.tool == name
    click_rect(view, view.button_rect("snap"))
    assert view.snap
    click_rect(view, view.button_rect("help"))
    assert view.show_help


@pytest.mark.parametrize("size", [(640, 360), (1280, 720)])
def test_toolbar_buttons_fit_and_do_not_overlap(window, size):
    view, _, _ = make_view(window, triangle_doc(), size=size)
    boxes = [view.button_rect(n) for n in BUTTONS]
    for i, a in enumerate(boxes):
        assert 0 <= a[0] and a[0] + a[2] <= size[0] and 0 <= a[1] and a[1] + a[3] <= size[1]
        for b in boxes[i + 1:]:
            assert a[0] + a[2] <= b[0] or b[0] + b[2] <= a[0], (a, b)


# drawing ------------------------------------------------------------------------------------------
def test_the_design_is_drawn_with_sphere_bone_and_muscle_colours(window):
    view, _, _ = make_view(window, triangle_doc())
    img = image(view)
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 20
    assert near(pixel(img, *at(view, 0.4, 0.3)), SPHERE)
    assert near(pixel(img, *at(view, 0.2, 0.6)), BONE_RIGID)       # bone bc
    assert near(pixel(img, *at(view, 0.0, 0.3)), MUSCLE)           # muscle ab
    l, b, w, h = view.layout.canvas
    # sky (but grid lines) in a patch of the canvas's top right corner (it once read black there:
    # a snapshot drawn earlier on the shared window had left its camera in use, which set its
    # small viewport and scissor on the screen: test_card's test of that)
    patch = img[int(b + h - 50):int(b + h - 30), int(l + w - 40):int(l + w - 20)].reshape(-1, 3).astype(int)
    assert (np.abs(patch - np.array(SKY)).max(axis=1) <= 30).mean() > 0.8


def test_frames_rebuild_the_design_only_when_something_changes(window):
    view, doc, _ = make_view(window, triangle_doc())
    uploads = []
    inner = view.geometry.items.upload
    view.geometry.items.upload = lambda: (uploads.append(1), inner())[1]
    for _ in range(3):
        view.on_draw()
    assert len(uploads) == 1
    drag(view, (200, 200), (230, 200), button=RIGHT)               # panning moves the camera only
    view.on_draw()
    assert len(uploads) == 1
    click(view, at(view, 0.4, 0.3))                                # the selection changed
    view.on_draw()
    view.on_draw()
    assert len(uploads) == 2
    key(view, K.EQUAL)                                             # zoom: widths in pixels change
    view.on_draw()
    assert len(uploads) == 3


def test_evolving_items_are_marked(window):
    doc = triangle_doc()
    view, _, _ = make_view(window, doc)
    plain = image(view).copy()
    doc.evolving = frozenset({("sphere", "c"), ("bone", "bc")})
    doc._sketch = None
    img = image(view)
    from render.editor import EVOLVE
    x, y = at(view, 0.2, 0.6)                                     # the badge on bone bc
    around = img[int(y) - 6:int(y) + 7, int(x) - 6:int(x) + 7].reshape(-1, 3)
    assert any(near(c, EVOLVE, tol=8) for c in around)
    assert not np.array_equal(plain, img)


def test_the_help_lists_the_keys(window):
    view, _, _ = make_view(window)
    key(view, K.H)
    assert view.show_help
    img = image(view)
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 10
    assert any(k == "T" for k, _ in KEYS) and any("CTRL+Z" in k for k, _ in KEYS)


def test_measure_editor_frames_times_idle_dragging_and_edits(window):
    doc = triangle_doc()
    idle = measure_editor_frames(doc, size=(320, 180), frames=4, warmup=1)
    assert idle["frames"] == 4 and idle["median_ms"] > 0 and idle["renderer"]
    edits = measure_editor_frames(doc, size=(320, 180), frames=4, warmup=1, drag=True)
    assert edits["moves"] == 5 and len(doc.names("move_spheres")) == 5
    preview = measure_editor_frames(doc, size=(320, 180), frames=4, warmup=1, drag="preview")
    assert preview["moves"] == 0 and len(doc.names("move_spheres")) == 5

"""The document model of ``creatures edit`` (:mod:`creatures.editing`): edits are text patches
that leave every untouched byte as it was, the loader checks every step, undo is exact."""

import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import physics
from creatures.design import DESIGN_DIR, builtin_names, load_design
from creatures.editing import DesignDocument
from creatures.simulation import run_simulation
from render.game import GameError, Sketch

REPO = Path(__file__).parents[2]
BAD = Path(__file__).with_name("bad_designs")


def readme_design() -> str:
    """The design example of the documentation's "Designing a creature" page (its first yaml block)."""
    text = (REPO / "docs" / "designs.md").read_text(encoding="utf-8")
    section = text[text.index("# Designing a creature"):]
    return re.search(r"```yaml\n(.*?)```", section, flags=re.S).group(1)


def design_files(tmp_path) -> dict:
    """Every built-in design and the README's example, copied into ``tmp_path``."""
    out = {}
    for name in builtin_names():
        p = tmp_path / f"{name}.yaml"
        p.write_bytes((DESIGN_DIR / f"{name}.yaml").read_bytes())
        out[name] = p
    p = tmp_path / "readme.yaml"
    p.write_text(readme_design(), encoding="utf-8")
    out["readme"] = p
    return out


NAMES = builtin_names() + ["readme"]


def same_body(a, b) -> bool:
    """Two designs' bodies bit for bit: their dicts, every model array, and their genes."""
    if a.body.to_dict() != b.body.to_dict() or a.genes != b.genes:
        return False
    ma, mb = physics.build_model(a.body, batch=1), physics.build_model(b.body, batch=1)
    for key, value in vars(ma).items():
        if isinstance(value, np.ndarray) and not np.array_equal(value, getattr(mb, key)):
            return False
    return True


def build_inchworm(doc):
    """The README's inchworm made through the editor; returns every text along the way."""
    texts = [doc.text]
    tail = doc.add_sphere(0.0, 0.08)
    texts.append(doc.text)
    back = doc.add_sphere(0.3, 0.35)
    texts.append(doc.text)
    head = doc.add_sphere(0.6, 0.08)
    texts.append(doc.text)
    rear = doc.add_bone(tail, back)
    texts.append(doc.text)
    front = doc.add_bone(back, head)
    texts.append(doc.text)
    belly = doc.add_bone(tail, head)
    texts.append(doc.text)
    doc.toggle_muscle(belly)
    texts.append(doc.text)
    doc.add_joint(back, rear, front)
    texts.append(doc.text)
    return texts


# --- the round trip ------------------------------------------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_open_and_save_without_edits_writes_the_same_bytes_and_body(tmp_path, name):
    path = design_files(tmp_path)[name]
    before = path.read_bytes()
    original = load_design(path)
    doc = DesignDocument.open(path)
    assert doc.problems == [] and not doc.dirty
    assert doc.save() == str(path)
    assert path.read_bytes() == before
    assert same_body(load_design(path), original)


@pytest.mark.parametrize("name", NAMES)
def test_moving_one_sphere_changes_only_its_line(tmp_path, name):
    path = design_files(tmp_path)[name]
    original = load_design(path)
    doc = DesignDocument.open(path)
    sphere = doc.sketch.sphere_id[0]
    lines = doc.text.splitlines()
    doc.move_spheres([sphere], 0.05, 0.0)
    assert doc.problems == [] and doc.dirty
    doc.save()
    after = path.read_text(encoding="utf-8").splitlines()
    changed = [k for k, (a, b) in enumerate(zip(lines, after)) if a != b]
    assert len(after) == len(lines) and len(changed) == 1
    assert re.search(rf"id: {sphere}\b", after[changed[0]])
    assert [line for line in after if line.lstrip().startswith("#")] == \
           [line for line in lines if line.lstrip().startswith("#")]
    x = original.body.spheres[0].pos[0]
    assert load_design(path).body.spheres[0].pos[0] == round(x + 0.05, 4)


@pytest.mark.parametrize("name", NAMES)
def test_rewriting_every_item_keeps_the_body_bit_for_bit(tmp_path, name):
    """Every item written again in flow style (a value set to what it is) loads as the same body:
    the values it did not change are copied as they were written."""
    path = design_files(tmp_path)[name]
    original = load_design(path)
    doc = DesignDocument.open(path)
    s = doc.sketch
    for kind, ids, key in (("sphere", s.sphere_id, "x"), ("bone", s.bone_id, "compliance"),
                           ("joint", s.joint_id, "stiffness"), ("cluster", s.cluster_id, "stiffness")):
        for ident in ids:
            value = next(f.value for f in doc.fields(kind, ident) if f.key == key)
            doc.set_field(kind, ident, key, value)
    assert doc.problems == []
    doc.save()
    assert same_body(load_design(path), original)


def test_a_multi_line_item_edited_becomes_one_flow_line_and_keeps_its_ranges(tmp_path):
    path = design_files(tmp_path)["walker-evolving"]
    doc = DesignDocument.open(path)
    before = doc.text
    doc.set_field("sphere", "foot_hind", "mass", "0.7")
    line = next(line for line in doc.text.splitlines() if "foot_hind, position" in line)
    assert line == ("  - {id: foot_hind, position: [{evolve: [-0.60, -0.30]}, {evolve: [0.06, 0.14]}], "
                    "radius: {evolve: [0.06, 0.14]}, mass: 0.7, friction: 1.0, kinetic_friction: 0.8}")
    assert len(doc.text.splitlines()) == len(before.splitlines()) - 1
    assert doc.problems == [] and doc.design.genes == load_design(path).genes


# --- building a creature -------------------------------------------------------------------------

def test_an_inchworm_built_from_a_new_file_validates_and_moves(tmp_path, run_creatures):
    path = tmp_path / "inchworm.yaml"
    doc = DesignDocument.new(path)
    build_inchworm(doc)
    assert not path.exists()  # nothing written before save
    assert doc.problems == [] and doc.title == "inchworm"
    assert doc.save() == str(path) and not doc.dirty
    assert path.read_text(encoding="utf-8") == doc.text
    design = load_design(path)
    assert design.counts() == {"spheres": 3, "bones": 3, "muscles": 1, "joints": 1, "clusters": 0, "outputs": 1}
    done = run_creatures("validate", path)
    assert done.returncode == 0, done.stdout + done.stderr
    summary = run_simulation(design.body, seconds=2.0, muscles="sine")
    assert summary["finite"] and summary["broken"] is None


def test_a_new_design_gets_defaults_and_short_items(tmp_path):
    doc = DesignDocument.new(tmp_path / "worm.yaml", name="my worm")
    build_inchworm(doc)
    assert doc.text == (
        "name: my worm\n"
        "defaults:\n"
        "  sphere: {radius: 0.08, mass: 0.5, friction: 0.8}\n"
        "  muscle: {range: 0.2, strength: 150, speed: 2}\n"
        "spheres:\n"
        "  - {id: sphere_1, position: [0, 0.08]}\n"
        "  - {id: sphere_2, position: [0.3, 0.35]}\n"
        "  - {id: sphere_3, position: [0.6, 0.08]}\n"
        "bones:\n"
        "  - {id: bone_1, spheres: [sphere_1, sphere_2]}\n"
        "  - {id: bone_2, spheres: [sphere_2, sphere_3]}\n"
        "  - {id: bone_3, spheres: [sphere_1, sphere_3], muscle: true}\n"
        "joints:\n"
        "  - {id: joint_1, sphere: sphere_2, bones: [bone_1, bone_2], kind: hinge, min: 51, max: 141.1}\n")


def test_a_new_sphere_in_a_file_with_defaults_writes_only_its_id_and_position(tmp_path):
    doc = DesignDocument.open(design_files(tmp_path)["walker"])
    ident = doc.add_sphere(0.123456, 0.5)
    lines = doc.text.splitlines()
    assert lines[lines.index("bones:") - 1] == f"  - {{id: {ident}, position: [0.1235, 0.5]}}"
    assert doc.sketch.radius[-1] == 0.08  # the file's default


def test_new_ids_are_readable_unique_and_take_the_lowest_free_number(tmp_path):
    doc = DesignDocument.new(tmp_path / "a.yaml")
    ids = [doc.add_sphere(k * 0.3, 0.1) for k in range(4)]
    assert ids == ["sphere_1", "sphere_2", "sphere_3", "sphere_4"]
    doc.delete([("sphere", "sphere_2")])
    assert doc.add_sphere(2.0, 0.1) == "sphere_2"
    assert doc.add_sphere(2.5, 0.1) == "sphere_5"
    assert len(set(doc.sketch.sphere_id)) == len(doc.sketch.sphere_id) == 5
    assert doc.add_bone("sphere_1", "sphere_2") == "bone_1"
    assert doc.add_cluster(["sphere_3", "sphere_4", "sphere_5"]) == "cluster_1"


def test_a_hinge_is_made_around_the_angle_its_bones_make_now(tmp_path):
    doc = DesignDocument.new(tmp_path / "a.yaml")
    build_inchworm(doc)
    lo, hi = doc.sketch.joint_min[0], doc.sketch.joint_max[0]
    rest = math.degrees(physics.build_model(doc.design.body).joint_rest[0, 0])
    assert lo < rest < hi and (lo + hi) / 2 == pytest.approx(rest, abs=0.1)
    doc.set_joint("joint_1", kind="free")
    assert "kind: free}" in doc.text and "min:" not in doc.text and doc.problems == []
    doc.set_joint("joint_1", kind="hinge")
    assert doc.sketch.joint_min[0] == lo and doc.sketch.joint_max[0] == hi
    doc.set_joint("joint_1", min=60, max=120)
    assert "min: 60, max: 120" in doc.text and doc.problems == []
    before = doc.text
    with pytest.raises(GameError):
        doc.set_joint("joint_1", min=130)  # above its max
    with pytest.raises(GameError):
        doc.add_joint("sphere_1", "bone_2", "bone_3")  # bone_2 does not meet at sphere_1
    assert doc.text == before


def test_toggling_a_muscle_twice_gives_back_the_bone(tmp_path):
    doc = DesignDocument.open(design_files(tmp_path)["walker"])
    before = doc.text
    doc.toggle_muscle("thigh_hind")
    assert "{id: thigh_hind, spheres: [hip_hind, knee_hind], muscle: true}" in doc.text
    assert doc.sketch.muscle[doc.sketch.bone_id.index("thigh_hind")]
    doc.toggle_muscle("thigh_hind")
    assert doc.text == before
    doc.toggle_muscle("shin_hind")  # a muscle with its own values: they go with it
    assert "{id: shin_hind, spheres: [knee_hind, foot_hind]}" in doc.text and doc.problems == []


def test_a_bone_that_is_a_muscle_by_default_is_toggled_off_and_back(tmp_path):
    path = tmp_path / "all_muscle.yaml"
    path.write_text("name: m\ndefaults:\n  bone: {muscle: true}\nspheres:\n  - {id: a, position: [0, 0.1]}\n"
                    "  - {id: b, position: [0.5, 0.1]}\nbones:\n  - {id: ab, spheres: [a, b]}\n")
    doc = DesignDocument.open(path)
    assert doc.sketch.muscle.tolist() == [True] and doc.problems == []
    doc.toggle_muscle("ab")
    assert "{id: ab, spheres: [a, b], muscle: false}" in doc.text and doc.sketch.muscle.tolist() == [False]
    doc.toggle_muscle("ab")
    assert doc.text == path.read_text() and doc.sketch.muscle.tolist() == [True]


# --- undo and redo -------------------------------------------------------------------------------

def test_undo_and_redo_restore_every_step_exactly(tmp_path):
    doc = DesignDocument.new(tmp_path / "inchworm.yaml")
    texts = build_inchworm(doc)
    sketches = []
    for text in reversed(texts[:-1]):
        doc.undo()
        assert doc.text == text
        sketches.append(doc.sketch)
    assert not doc.can_undo and doc.can_redo
    assert doc.sketch.sphere_id == ()
    for text in texts[1:]:
        doc.redo()
        assert doc.text == text
    assert not doc.can_redo and doc.problems == []
    doc.undo()
    doc.add_sphere(1.0, 1.0)  # a new edit clears redo
    assert not doc.can_redo


def test_undo_back_to_the_file_is_not_dirty(tmp_path):
    doc = DesignDocument.open(design_files(tmp_path)["worm"])
    doc.move_spheres(["head", "tail"], 0.0, 0.02)
    assert doc.dirty
    doc.undo()
    assert not doc.dirty


# --- invalid edits -------------------------------------------------------------------------------

def test_a_bone_from_a_sphere_to_itself_is_that_bones_problem_and_is_not_saved(tmp_path):
    path = design_files(tmp_path)["walker"]
    on_disk = path.read_bytes()
    doc = DesignDocument.open(path)
    bone = doc.add_bone("knee_hind", "knee_hind")
    assert len(doc.problems) == 1
    issue = doc.problems[0]
    assert ("bone", bone) in issue.items and "to itself" in issue.message
    assert issue.message.startswith(f"{issue.line}:{issue.column}: ")
    assert doc.sketch.bone_a[-1] == doc.sketch.bone_b[-1] == doc.sketch.sphere_id.index("knee_hind")
    with pytest.raises(GameError, match="not saved: 1 problem"):
        doc.save()
    assert path.read_bytes() == on_disk
    doc.undo()
    assert doc.problems == [] and doc.text.encode() == on_disk


def test_overlapping_spheres_with_self_collision_highlight_both(tmp_path):
    doc = DesignDocument.new(tmp_path / "hook.yaml")
    doc.set_field("design", "", "self_collision", "true")
    a, b, c = doc.add_sphere(0.0, 0.1), doc.add_sphere(0.3, 0.1), doc.add_sphere(0.3, 0.4)
    doc.add_bone(a, b)
    doc.add_bone(b, c)
    assert doc.problems == [] and doc.sketch.self_collision
    doc.set_position(c, 0.05, 0.15)  # onto a, which it has no bone to
    assert len(doc.problems) == 1, doc.problems
    overlap = doc.problems[0]
    assert re.search(r"spheres 'sphere_1' and 'sphere_3' overlap by [\d.]+ mm and self_collision is on",
                     overlap.message)
    assert set(overlap.items) == {("sphere", a), ("sphere", c)}


def test_two_bones_joining_the_same_spheres_highlight_both(tmp_path):
    doc = DesignDocument.open(design_files(tmp_path)["readme"])
    bone = doc.add_bone("head", "back")
    assert [p.items for p in doc.problems] == [(("bone", bone), ("bone", "front"))]
    assert "both join" in doc.problems[0].message


def test_a_dangling_reference_keeps_the_sketch_drawable(tmp_path):
    doc = DesignDocument.open(design_files(tmp_path)["readme"])
    doc.delete([("sphere", "head")])
    assert doc.problems == [] and doc.sketch.bone_id == ("rear",) and doc.sketch.joint_id == ()
    doc.undo()
    text = doc.text.replace("spheres: [back, head]", "spheres: [back, nose]")
    path = tmp_path / "dangling.yaml"
    path.write_text(text, encoding="utf-8")
    doc = DesignDocument.open(path)
    e = doc.sketch.bone_id.index("front")
    assert doc.sketch.bone_b[e] == -1 and doc.problems
    assert any(("bone", "front") in p.items for p in doc.problems)


@pytest.mark.parametrize("path", sorted(BAD.rglob("*.yaml")), ids=lambda p: p.stem)
def test_every_bad_design_opens_with_the_loaders_problems(path):
    from creatures.design import DesignError
    with pytest.raises(DesignError) as exc:
        load_design(path)
    doc = DesignDocument.open(path)
    assert [(p.line, p.column) for p in doc.problems] == [(p.line, p.column) for p in exc.value.problems]
    assert isinstance(doc.sketch, Sketch) and doc.design is None
    with pytest.raises(GameError):
        doc.save()
    with pytest.raises(GameError):
        doc.live_source()


# --- fields --------------------------------------------------------------------------------------

def test_set_field_writes_numbers_ranges_and_booleans_and_empty_removes(tmp_path):
    doc = DesignDocument.open(design_files(tmp_path)["walker"])
    doc.set_field("sphere", "foot_hind", "radius", "0.05..0.15")
    assert "radius: {evolve: [0.05, 0.15]}" in doc.text and doc.problems == []
    gene = next(g for g in doc.design.genes.genes if g.label == "foot_hind.radius")
    assert (gene.low, gene.high, gene.start) == (0.05, 0.15, 0.1)
    assert ("sphere", "foot_hind") in doc.sketch.evolving
    doc.set_field("sphere", "foot_hind", "radius", "{evolve: [0.05, 0.15], start: 0.12}")
    assert doc.sketch.radius[doc.sketch.sphere_id.index("foot_hind")] == 0.12
    doc.set_field("sphere", "knee_hind", "mass", "0.75")
    assert "{id: knee_hind, position: [-0.75, 0.50], mass: 0.75}" in doc.text
    doc.set_field("sphere", "knee_hind", "optional", "true")
    assert doc.design.genes.switches[0].label == "knee_hind"
    doc.set_field("sphere", "knee_hind", "mass", "")
    doc.set_field("sphere", "knee_hind", "optional", "")
    assert "{id: knee_hind, position: [-0.75, 0.50]}" in doc.text
    field = next(f for f in doc.fields("sphere", "knee_hind") if f.key == "mass")
    assert (field.value, field.unit, field.default) == ("0.5", "kg", True)
    doc.set_field("bone", "hip_muscle_hind", "muscle.strength", "90")
    assert "muscle: {range: 0.2, strength: 90}" in doc.text
    doc.set_field("bone", "hip_muscle_hind", "muscle.range", "")
    doc.set_field("bone", "hip_muscle_hind", "muscle.strength", "")
    assert "{id: hip_muscle_hind, spheres: [rump, knee_hind], muscle: true}" in doc.text
    doc.set_field("design", "", "name", "walker 2")
    assert doc.text.startswith("name: walker 2\n") and doc.title == "walker 2"
    doc.set_field("design", "", "author", "me")
    assert "\nauthor: me\n" in doc.text
    doc.set_field("design", "", "description", "A walker: #2, with [brackets]")
    assert '\ndescription: "A walker: #2, with [brackets]"\n' in doc.text
    assert doc.fields("design", "")[1].value == "A walker: #2, with [brackets]"
    doc.set_field("design", "", "description", "")
    assert "description:" not in doc.text
    assert doc.problems == []


@pytest.mark.parametrize("kind, ident, key, text", [
    ("sphere", "knee_hind", "mass", "heavy"),
    ("sphere", "knee_hind", "mass", "-1"),
    ("sphere", "knee_hind", "mass", "nan"),
    ("sphere", "knee_hind", "restitution", "0..1"),        # cannot evolve
    ("sphere", "knee_hind", "radius", "0.2..0.1"),         # empty range
    ("sphere", "knee_hind", "radius", "0..0.1"),           # a radius stays above 0
    ("sphere", "knee_hind", "x", ""),                      # a sphere needs its x
    ("sphere", "knee_hind", "fixed", "maybe"),
    ("sphere", "knee_hind", "shade", "red"),               # no such field
    ("sphere", "knee_hind", "colour", "blurple"),          # no such colour
    ("sphere", "knee_hind", "colour", "[1, 2]"),
    ("bone", "shin_hind", "muscle.range", "1.5"),
    ("bone", "belly", "muscle.range", "0.1"),              # not a muscle
    ("joint", "nope", "min", "0"),
    ("design", "", "name", ""),
])
def test_set_field_refuses_text_that_is_not_a_value_and_changes_nothing(tmp_path, kind, ident, key, text):
    doc = DesignDocument.open(design_files(tmp_path)["walker"])
    before = doc.text
    with pytest.raises(GameError):
        doc.set_field(kind, ident, key, text)
    assert doc.text == before and not doc.can_undo


# --- deleting ------------------------------------------------------------------------------------

def test_deleting_a_sphere_takes_its_bones_joints_and_place_in_clusters(tmp_path):
    doc = DesignDocument.open(design_files(tmp_path)["worm"])
    doc.delete([("sphere", "hump2")])
    s = doc.sketch
    assert "hump2" not in s.sphere_id
    assert not any("hump2" in b for b in s.bone_id)
    assert s.joint_id == ("joint1", "joint2")  # those at foot1 and foot2 went; the others renumber
    assert doc.problems == [] or all("hump2" not in p.message for p in doc.problems)
    assert "# between neighbouring humps" in doc.text
    doc = DesignDocument.open(design_files(tmp_path)["quadruped"])
    doc.delete([("sphere", "head")])
    assert "{id: torso, spheres: [hip, loin, withers, shoulder]}" in doc.text and doc.problems == []
    doc = DesignDocument.open(design_files(tmp_path)["spider"])
    doc.delete([("sphere", "head"), ("sphere", "abdomen")])
    assert doc.sketch.cluster_id == ()  # one sphere left: the cluster goes
    assert "clusters: []" in doc.text


def test_deleting_a_bone_takes_its_joints(tmp_path):
    doc = DesignDocument.open(design_files(tmp_path)["readme"])
    doc.delete([("bone", "rear")])
    assert doc.sketch.joint_id == () and "joints: []" in doc.text
    assert doc.text.count("\n") == readme_design().count("\n") - 2


# --- other layouts of a file ---------------------------------------------------------------------

def test_flow_lists_null_lists_and_windows_line_breaks(tmp_path):
    path = tmp_path / "flow.yaml"
    path.write_text("name: f\nspheres: [{id: a, position: [0, 0.1]}, {id: b, position: [0.5, 0.1]}]  # two\n"
                    "bones: [{spheres: [a, b]}]\njoints:\n", encoding="utf-8")
    doc = DesignDocument.open(path)
    c = doc.add_sphere(1.0, 0.1)
    doc.add_bone("b", c)
    assert doc.text.splitlines()[1] == ("spheres: [{id: a, position: [0, 0.1]}, {id: b, position: [0.5, 0.1]}, "
                                       "{id: sphere_1, position: [1, 0.1]}]  # two")
    doc.delete([("sphere", "a")])
    assert doc.sketch.bone_id == ("bone_1",)
    doc.add_bone("b", "sphere_1")  # a second bone between the same two: a problem, but the text is made
    doc.undo()
    doc.add_sphere(1.5, 0.1)
    doc.add_bone("sphere_1", "sphere_2")
    doc.add_joint("sphere_1", "bone_1", "bone_2", "free")
    assert "joints:\n  - {id: joint_1, sphere: sphere_1, bones: [bone_1, bone_2], kind: free}\n" in doc.text
    assert doc.problems == []
    bom = tmp_path / "bom.yaml"
    bom.write_bytes(b"\xef\xbb\xbfname: b\nspheres:\n  - {id: a, position: [0, 0.1]}\n")
    doc = DesignDocument.open(bom)
    doc.move_spheres(["a"], 0.1, 0.0)
    doc.save()
    assert bom.read_bytes() == b"\xef\xbb\xbfname: b\nspheres:\n  - {id: a, position: [0.1, 0.1]}\n"
    crlf = tmp_path / "crlf.yaml"
    crlf.write_bytes(b"name: c\r\nspheres:\r\n  - {id: a, position: [0, 0.1]}\r\n")
    doc = DesignDocument.open(crlf)
    doc.add_sphere(0.3, 0.1)
    doc.add_bone("a", "sphere_1")
    doc.save()
    assert crlf.read_bytes() == (b"name: c\r\nspheres:\r\n  - {id: a, position: [0, 0.1]}\r\n"
                                 b"  - {id: sphere_1, position: [0.3, 0.1]}\r\nbones:\r\n"
                                 b"  - {id: bone_1, spheres: [a, sphere_1]}\r\n")


def test_opening_refuses_what_is_not_a_design_file(tmp_path):
    with pytest.raises(GameError, match="no such file"):
        DesignDocument.open(tmp_path / "missing.yaml")
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(GameError, match="not a text file"):
        DesignDocument.open(binary)
    big = tmp_path / "big.yaml"
    big.write_text("#" * 1_000_001)
    with pytest.raises(GameError, match="larger than"):
        DesignDocument.open(big)
    with pytest.raises(GameError, match="exists already"):
        DesignDocument.new(binary)
    with pytest.raises(GameError, match="no built-in design"):
        DesignDocument.from_builtin("dragon", tmp_path / "dragon.yaml")


def test_a_copy_of_a_built_in_is_its_text_until_saved(tmp_path):
    path = tmp_path / "my_hopper.yaml"
    doc = DesignDocument.from_builtin("hopper", path)
    assert doc.text == (DESIGN_DIR / "hopper.yaml").read_text() and doc.dirty and not path.exists()
    doc.save()
    assert path.read_bytes() == (DESIGN_DIR / "hopper.yaml").read_bytes() and not doc.dirty


# --- playing and evolving ------------------------------------------------------------------------

def test_terrains_start_with_flat(tmp_path):
    doc = DesignDocument.new(tmp_path / "a.yaml")
    names = [p.name for p in doc.terrains]
    assert names[0] == "flat" and "hills" in names


def test_the_live_test_plays_the_last_valid_version_on_a_terrain(tmp_path):
    doc = DesignDocument.new(tmp_path / "a.yaml")
    with pytest.raises(GameError, match="not been valid"):
        doc.live_source()
    build_inchworm(doc)
    doc.add_bone("sphere_1", "sphere_1")  # invalid now: the last valid version plays
    source = doc.live_source("hills")
    assert len(source.scene.creatures) == 1 and len(source.scene.creatures[0].bone_a) == 3
    assert "hills" in source.scene.title
    for _ in range(5):
        source.step()
    frame = source.frame()
    assert frame.step == 5 and np.isfinite(frame.creatures[0].pos).all()
    with pytest.raises(GameError):
        doc.live_source("volcano")


def test_evolve_saves_then_starts_play_or_says_the_command(tmp_path, monkeypatch):
    import creatures.display
    started = []
    monkeypatch.setattr(subprocess, "Popen", lambda args, **kw: started.append((args, kw)))
    path = tmp_path / "inchworm.yaml"
    doc = DesignDocument.new(path)
    build_inchworm(doc)
    monkeypatch.setattr(creatures.display, "has_display", lambda: False)
    assert doc.evolve() == f"creatures evolve {path}" and path.exists() and not started
    monkeypatch.setattr(creatures.display, "has_display", lambda: True)
    assert doc.evolve() == f"started creatures play {path}"
    assert started == [([sys.executable, "-m", "creatures", "play", str(path)], started[0][1])]
    assert started[0][1]["start_new_session"] is True
    assert started[0][1]["stderr"] is None          # where its run is, when it closes: on this terminal
    doc.add_bone("sphere_1", "sphere_1")
    with pytest.raises(GameError):
        doc.evolve()


# --- the benchmark's design ------------------------------------------------------------------------

def test_the_benchmarks_40_sphere_design_takes_moves_one_line_each(tmp_path):
    """``creatures bench --viewer`` times an edit per frame of this design (timing lives there):
    each move is one line of the file and keeps it valid."""
    from creatures.bench.viewer import ladder_design
    path = tmp_path / "ladder.yaml"
    path.write_text(ladder_design())
    doc = DesignDocument.open(path)
    assert doc.problems == [] and len(doc.sketch.sphere_id) == 40
    for k in range(30):
        before = doc.text.splitlines()
        doc.move_spheres([doc.sketch.sphere_id[k]], 0.001, 0.0)
        after = doc.text.splitlines()
        assert len(after) == len(before) and sum(a != b for a, b in zip(before, after)) == 1
        assert doc.problems == []

"""Looks in the design language: ``colour`` on a sphere or a bone (a name, [r, g, b] or
"#rrggbb"), ``eye`` on a sphere. Read and checked by the loader (problems at their line and
column), never seen by physics (the body and a champion's hash are the same with or without
them), edited in the editor's panel, drawn from the sketch."""

from __future__ import annotations

import pytest

from creatures.design import DesignError, parse_design
from creatures.design.looks import NAMES, colour_text, parse_colour
from creatures.editing.document import DesignDocument
from render.game import GameError

PLAIN = """name: looky
spheres:
  - {id: a, position: [0, 0.2]SA}
  - {id: b, position: [0.6, 0.2]SB}
  - {id: c, position: [0.3, 0.6]SC}
bones:
  - {spheres: [a, b], muscle: true}
  - {spheres: [b, c]BC}
  - {spheres: [a, c]}
"""


def _text(sa="", sb="", sc="", bc=""):
    return PLAIN.replace("SA", sa).replace("SB", sb).replace("SC", sc).replace("BC", bc)


def test_colours_are_names_numbers_or_hex_and_eyes_are_flags():
    d = parse_design(_text(", colour: red", ', colour: "#3050d0"', ", eye: true", ", colour: [1, 2, 3]"), "l.yaml")
    assert d.looks.sphere_colour == (NAMES["red"], (48, 80, 208), None)
    assert d.looks.bone_colour == (None, (1, 2, 3), None) and d.looks.eyes == (False, False, True)
    arrays = d.looks.arrays()
    assert arrays["sphere_colored"].tolist() == [True, True, False] and arrays["eyes"].tolist() == [False, False, True]
    assert arrays["bone_colored"].tolist() == [False, True, False]
    assert not parse_design(_text(), "l.yaml").looks and parse_design(_text(), "l.yaml").looks.arrays() == {}


def test_physics_never_sees_the_looks():
    plain = parse_design(_text(), "l.yaml")
    dressed = parse_design(_text(", colour: red", sc=", eye: true", bc=", colour: navy"), "l.yaml")
    assert dressed.body.to_dict() == plain.body.to_dict()


def test_a_default_colour_dresses_every_sphere_but_an_eye_is_no_default():
    d = parse_design(_text().replace("name: looky\n", "name: looky\ndefaults:\n  sphere: {colour: teal}\n"), "l.yaml")
    assert d.looks.sphere_colour == (NAMES["teal"],) * 3
    with pytest.raises(DesignError, match="'eye' is not a default"):
        parse_design(_text().replace("name: looky\n", "name: looky\ndefaults:\n  sphere: {eye: true}\n"), "l.yaml")


@pytest.mark.parametrize("value, says", [
    ("blu", "l.yaml:3:41: sphere 'a': 'colour' must be a colour: a name (black, blue"),
    ("[1, 2]", "must be a colour: [red, green, blue], three whole numbers from 0 to 255"),
    ("[1, 2, 300]", "three whole numbers from 0 to 255"),
    ("[1, 2, 2.5]", "three whole numbers from 0 to 255"),
    ('"#12345"', "not '#12345'"),
])
def test_a_colour_that_is_none_is_a_problem_at_its_place(value, says):
    with pytest.raises(DesignError) as err:
        parse_design(_text(f", colour: {value}"), "l.yaml")
    problems = [p.format("l.yaml") for p in err.value.problems]
    assert any(says in p for p in problems), problems


def test_colour_text_round_trips():
    for rgb in ((214, 48, 40), (1, 2, 3)):
        assert parse_colour(colour_text(rgb)) == rgb
    assert colour_text(NAMES["gray"]) == "grey"


def test_the_editor_edits_and_draws_the_looks(tmp_path):
    doc = DesignDocument(str(tmp_path / "l.yaml"), _text())
    doc.set_field("sphere", "a", "colour", "#ff0000")
    doc.set_field("sphere", "c", "eye", "true")
    doc.set_field("bone", "b-c", "colour", "purple")
    assert "{id: a, position: [0, 0.2], colour: [255, 0, 0]}" in doc.text and "colour: purple" in doc.text
    assert not doc.problems
    sk = doc.sketch
    assert sk.sphere_colored.tolist() == [True, False, False] and sk.sphere_color[0].tolist() == [255, 0, 0]
    assert sk.eyes.tolist() == [False, False, True] and sk.bone_colored.tolist() == [False, True, False]
    with pytest.raises(GameError, match="must be a colour"):
        doc.set_field("sphere", "b", "colour", "blurple")
    doc.undo()
    assert doc.sketch.bone_colored.tolist() == [False, False, False]


def test_the_start_screens_thumbnail_wears_the_looks(tmp_path):
    from creatures.game import gallery_item
    from render.menu_picture import _picture_segments
    path = tmp_path / "looky.yaml"
    path.write_text(_text(", colour: red", "", "", ", colour: [1, 2, 3]"))
    segments = _picture_segments(gallery_item(str(path), origin="file"), (0, 0, 200, 100), False)
    colours = {tuple(int(v) for v in c[:3]) for c in segments["color"]}
    assert NAMES["red"] in colours and (1, 2, 3) in colours     # sphere a's fill, bone bc
    plain = tmp_path / "plain.yaml"
    plain.write_text(_text())
    grey = _picture_segments(gallery_item(str(plain), origin="file"), (0, 0, 200, 100), False)
    assert NAMES["red"] not in {tuple(int(v) for v in c[:3]) for c in grey["color"]}

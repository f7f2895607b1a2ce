"""Terrain files: good ones draw exactly the ground they describe, bad and hostile ones report
every problem with its line and column (a TerrainFileError, never another exception).

Each file in ``bad_terrains/`` is one kind of mistake. Its first line (and any further leading
lines of the same form) says what the loader must report::

    # expect: 4:20: piece 1 (steps): count must be a whole number, not 2.5

i.e. ``line:column: `` and a part of the message; a formatted problem must contain
``<path>:<expected>``.
"""

import hashlib
import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import evolution
import physics
import physics.examples
from evolution import terrains
from evolution.plugins import load_terrain_file
from evolution.terrains import MAX_TERRAIN_BYTES, RISER, TerrainFileError, parse_terrain
from evolution.yamlread import MAX_DEPTH

BAD_DIR = Path(__file__).with_name("bad_terrains")
BAD_FILES = sorted(BAD_DIR.glob("*.yaml"))
EXPECT = "# expect: "

#: every kind of mistake the loader must catch, by the name of its file in bad_terrains/
KINDS = ["yaml_syntax", "empty", "list_at_top", "unknown_key", "points_and_pieces", "no_course",
         "points_not_increasing", "point_not_a_pair", "not_finite", "huge_coordinate",
         "unknown_piece", "two_kinds_in_one_piece", "empty_piece", "degrees_and_rise", "too_steep",
         "slope_without_angle", "negative_length", "zero_length", "count_not_whole", "count_zero",
         "count_too_large", "steps_shallower_than_riser", "wall_of_height_zero", "bumps_overlap",
         "missing_key", "several_problems", "quoted_number"]

GOOD = """\
name: wall course
description: Rolling bumps, then a wall to climb.
start: -2
height: 0
pieces:
  - flat: 4
  - slope: {length: 3, degrees: 8}
  - bumps: {count: 3, height: 0.15, width: 1.0}
  - steps: {count: 4, height: 0.1, depth: 0.8}
  - wall: {height: 0.4, thickness: 0.3}
  - flat: 10
"""


# --- helpers ---------------------------------------------------------------------------------------

def course(*pieces: str, start: float = 0.0, height: float = 0.0) -> physics.Terrain:
    """The terrain of a course of ``pieces`` (each the YAML after ``- ``) from (start, height)."""
    text = f"start: {start}\nheight: {height}\npieces:\n" + "".join(f"  - {p}\n" for p in pieces)
    return parse_terrain(text, "course.yaml").make(0)


def write(folder: Path, text, name: str = "course.yaml") -> Path:
    path = folder / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def expectations(path: Path) -> list[str]:
    """The expected problems stated in a bad terrain's leading ``# expect:`` lines."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith(EXPECT):
            break
        out.append(line[len(EXPECT):])
    return out


def error_of(path: Path) -> TerrainFileError:
    with pytest.raises(TerrainFileError) as info:
        load_terrain_file(path)
    return info.value


def validate(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "creatures", "validate", str(path)],
                          capture_output=True, text=True, cwd=Path(__file__).parents[2])


# --- good files: the geometry promised --------------------------------------------------------------

def test_points_give_exactly_those_vertices():
    t = parse_terrain("points: [[-1, 0], [0.5, 0.25], [2, -0.5], [7, 1e3]]\n").make(0)
    assert t.xs.tolist() == [-1, 0.5, 2, 7]
    assert t.ys.tolist() == [0, 0.25, -0.5, 1000]


def test_a_single_point_is_level_ground_at_its_height():
    t = parse_terrain("points: [[3, 0.7]]\n").make(0)
    assert t.height(np.array([-50.0, 3.0, 50.0])).tolist() == [0.7, 0.7, 0.7]


def test_flat_is_level_for_its_length():
    t = course("flat: 4", height=0.3)
    assert t.xs.tolist() == [0, 4] and t.ys.tolist() == [0.3, 0.3]


def test_slope_by_degrees_rises_its_length_times_the_tangent():
    t = course("slope: {length: 3, degrees: 8}")
    assert t.xs[-1] == 3
    assert math.isclose(t.ys[-1], 3 * math.tan(math.radians(8)))


def test_slope_by_rise_ends_that_much_higher_or_lower():
    t = course("slope: {length: 2, rise: 0.4}", "slope: {length: 1, rise: -0.1}")
    assert t.xs.tolist() == [0, 2, 3]
    assert np.allclose(t.ys, [0, 0.4, 0.3])


def test_bumps_reach_their_height_at_each_middle():
    t = course("bumps: {count: 3, height: 0.15, width: 1.0}", start=1, height=0.2)
    middles = 1 + np.arange(3) * 1.0 + 0.5
    assert np.allclose(t.height(middles), 0.2 + 0.15)


def test_bumps_without_spacing_are_back_to_back():
    t = course("bumps: {count: 3, height: 0.2, width: 0.5}", "flat: 1")
    # raised cosine: a quarter into each bump it is at half height, with no level ground between
    quarters = np.arange(3) * 0.5 + 0.125
    assert np.allclose(t.height(quarters), 0.1)
    assert np.allclose(t.height(np.array([0.5, 1.0, 1.5])), 0.0)
    assert t.xs[-1] == 2.5                                     # 3 x 0.5, then the flat


def test_bumps_with_spacing_start_a_spacing_apart_with_level_ground_between():
    t = course("bumps: {count: 2, height: 0.1, width: 0.5, spacing: 2}", "flat: 1")
    assert np.allclose(t.height(np.array([0.25, 2.25])), 0.1)          # the middles
    assert np.allclose(t.height(np.array([0.75, 1.5, 2.75, 3.5])), 0.0)  # between and after
    assert t.xs[-1] == 2 * 2 + 1


def test_bumps_count_defaults_to_one():
    t = course("bumps: {height: 0.1, width: 0.5}")
    assert t.xs[-1] == 0.5 and np.isclose(t.height(0.25), 0.1)


def test_steps_rise_by_their_height_over_a_one_centimetre_riser():
    h, d = 0.1, 0.8
    t = course(f"steps: {{count: 4, height: {h}, depth: {d}}}", start=1, height=0.5)
    for k in range(4):
        x0, below = 1 + k * d, 0.5 + k * h
        assert np.isclose(t.height(x0), below)                      # the foot of the riser
        assert np.isclose(t.height(x0 + RISER / 2), below + h / 2)  # halfway up it
        assert np.isclose(t.height(x0 + RISER), below + h)          # the tread, from 1 cm on
        assert np.isclose(t.height(x0 + d), below + h)              # to the tread's end
    assert np.isclose(t.xs[-1], 1 + 4 * d)


def test_steps_with_a_negative_height_go_down():
    t = course("steps: {count: 3, height: -0.2, depth: 0.5}")
    treads = np.arange(3) * 0.5 + 0.25
    assert np.allclose(t.height(treads), [-0.2, -0.4, -0.6])


def test_wall_rises_to_its_height_across_its_thickness_and_comes_back_down():
    t = course("flat: 1", "wall: {height: 0.4, thickness: 0.3}", "flat: 2", height=0.1)
    top = 0.1 + 0.4
    assert np.allclose(t.height(np.array([1 + RISER, 1.15, 1.3 - RISER])), top)
    assert np.isclose(t.height(1 + RISER / 2), 0.1 + 0.4 / 2)          # a 1 cm riser up
    assert np.allclose(t.height(np.array([1.3, 2.0, 3.3])), 0.1)       # and down again


def test_wall_is_twenty_centimetres_thick_unless_it_says():
    t = course("wall: {height: 0.3}")
    assert t.xs[-1] == pytest.approx(0.2) and t.ys[-1] == 0


def test_start_and_height_place_the_first_piece():
    t = course("flat: 4", start=-2, height=0.5)
    assert (t.xs[0], t.ys[0], t.xs[-1]) == (-2, 0.5, 2)


def test_each_piece_begins_where_the_one_before_ended():
    t = parse_terrain(GOOD).make(0)
    rise = 3 * math.tan(math.radians(8))
    # after the flat (to x = 2), the slope (to 5), the bumps (to 8), the stairs start at the slope's top
    assert np.isclose(t.height(8 + RISER), rise + 0.1)
    assert np.isclose(t.height(8 + 4 * 0.8 + 0.3 + 5), rise + 0.4)     # after the wall


def test_the_terrain_is_flat_beyond_its_ends():
    t = parse_terrain(GOOD).make(0)
    assert t.height(t.xs[0] - 100) == t.ys[0]
    assert t.height(t.xs[-1] + 100) == t.ys[-1]


def test_the_module_docstring_example_is_a_valid_course():
    doc = terrains.__doc__
    example = doc[doc.index("    name: wall course"):doc.index("or ``points:")]
    t = parse_terrain("\n".join(line[4:] for line in example.splitlines()))
    assert t.name == "wall course" and t.xs.size > 10


def test_name_defaults_to_the_files_stem(tmp_path):
    path = write(tmp_path, "pieces:\n  - flat: 1\n", "my_course.yaml")
    assert load_terrain_file(path).make(0).kind == "my_course"


def test_name_in_the_file_names_the_terrain(tmp_path):
    assert load_terrain_file(write(tmp_path, GOOD)).make(0).kind == "wall course"


def test_description_is_kept():
    assert parse_terrain(GOOD).description == "Rolling bumps, then a wall to climb."


def test_every_seed_gives_the_same_terrain(tmp_path):
    plugin = load_terrain_file(write(tmp_path, GOOD))
    a, b = plugin.make(0), plugin.make(12345)
    assert np.array_equal(a.xs, b.xs) and np.array_equal(a.ys, b.ys)


# --- bad files: every problem at its line and column ------------------------------------------------

@pytest.mark.parametrize("path", BAD_FILES, ids=[p.stem for p in BAD_FILES])
def test_bad_terrain_reports_its_expected_problem(path):
    expected = expectations(path)
    assert expected, f"{path.name} must state its expected problem on its first line"
    found = str(error_of(path)).splitlines()
    for e in expected:
        assert any(f"{path}:{e}" in p for p in found), f"expected {path}:{e}\ngot:\n" + "\n".join(found)


def test_bad_terrains_cover_every_kind_of_mistake():
    assert sorted(p.stem for p in BAD_FILES) == sorted(KINDS)


def test_several_problems_are_all_reported_at_once():
    path = BAD_DIR / "several_problems.yaml"
    error = error_of(path)
    assert len(error.problems) == len(expectations(path)) == 5
    assert len(str(error).splitlines()) == 5


def test_problems_are_reported_in_line_order():
    lines = [p.line for p in error_of(BAD_DIR / "several_problems.yaml").problems]
    assert lines == sorted(lines) and len(set(lines)) == len(lines)


def test_parse_terrain_names_its_source_in_every_problem():
    with pytest.raises(TerrainFileError) as info:
        parse_terrain("pieces:\n  - flat: -1\n", "inline")
    assert str(info.value) == "inline:2:11: piece 1 (flat): length must be more than 0 and at most 1e+06 m, not -1"


def test_an_empty_piece_is_reported_beside_another_problem_on_its_line():
    with pytest.raises(TerrainFileError) as info:
        parse_terrain("pieces: [{flatt: 1}, {}]\n", "inline")
    assert str(info.value).splitlines() == [
        "inline:1:11: unknown key 'flatt' in piece 1 (did you mean 'flat'?)",
        "inline:1:22: piece 2 is empty: name one of flat, slope, bumps, steps, wall"]


def test_a_piece_of_unknown_keys_is_not_also_called_empty():
    with pytest.raises(TerrainFileError) as info:
        parse_terrain("pieces:\n  - foo: 1\n    bar: 2\n", "inline")
    assert "empty" not in str(info.value) and len(info.value.problems) == 2


def test_a_block_scalar_is_text_not_a_number():
    with pytest.raises(TerrainFileError) as info:
        parse_terrain("start: |\n  3\npieces:\n  - flat: 1\n", "inline")
    assert str(info.value) == "inline:1:8: 'start' must be a number, not the string '3\\n'"


def test_parse_terrain_names_an_unnamed_terrain_after_its_source():
    assert parse_terrain("pieces:\n  - flat: 1\n", "courses/hill_climb.yaml").name == "hill_climb"


# --- hostile files: a clean TerrainFileError naming the file, whatever is in it -------------------------

def deep_lists(n: int) -> str:
    return "points: " + "[" * n + "]" * n + "\n"


def deep_mappings(n: int) -> str:
    return "pieces: " + "{a: " * n + "1" + "}" * n + "\n"


#: cases refused by our own rules, whichever YAML parser reads the file: (the file, what the
#: message says). Nesting one past :data:`yamlread.MAX_DEPTH` is ours to refuse: a parser that
#: refused it first would refuse files this program promises to read.
HOSTILE = {
    "oversized": (lambda: "# padding\n" * (MAX_TERRAIN_BYTES // 10 + 1), "larger than 2000000 bytes"),
    "binary": (lambda: b"\xff\xfe\x00\x81\x89PNG not text", "not a text file"),
    "control_character": (lambda: "name: a\x00b\npieces:\n  - flat: 1\n",
                          ":1:8: the terrain file holds a character YAML does not allow (#x0000)"),
    "deep_lists": (lambda: deep_lists(MAX_DEPTH + 1),
                   f"YAML syntax: lists and mappings nest more than {MAX_DEPTH} deep"),
    "deep_mappings": (lambda: deep_mappings(MAX_DEPTH + 1), f"nest more than {MAX_DEPTH} deep"),
    "python_tag": (lambda: "name: !!python/object/apply:os.getcwd []\npieces:\n  - flat: 1\n",
                   ":1:7: the tag '!!python/object/apply:os.getcwd' is not allowed"),
    "many_pieces_points": (lambda: "pieces:\n" + "  - bumps: {count: 10000, height: 0.1, width: 0.1}\n" * 3,
                           ":3:5: piece 2 (bumps) takes the course to 160001 points; at most 100000"),
    "beyond_the_coordinate_limit": (lambda: "pieces:\n  - steps: {count: 10000, height: 0, depth: 1000000}\n",
                                    ":2:5: piece 1 (steps) takes the course beyond +-1e+06 m"),
    "too_short_to_draw": (lambda: "start: 1000\npieces:\n  - flat: 1e-15\n",
                          ":3:5: piece 1 (flat) is too short to draw at x = 1000 m"),
}


#: cases that a YAML parser may refuse before our rules see them (libyaml stops at 1000 levels,
#: PyYAML's own parser does not), in its own words: only the contract is checked, one line
#: naming the file and the place
HOSTILE_TO_THE_PARSER = {
    "deep_lists_5000": lambda: deep_lists(5000),
    "deep_mappings_5000": lambda: deep_mappings(5000),
}


def assert_one_line_at_a_place(error: TerrainFileError, path: Path, line: int = 1) -> None:
    """Our contract for a file that cannot be read: one line, the file, its line and column."""
    text = str(error)
    assert "\n" not in text, text
    assert re.fullmatch(rf"{re.escape(str(path))}:{line}:[1-9][0-9]*: \S.*", text), text


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_file_is_a_clean_terrain_file_error(tmp_path, case):
    make, message = HOSTILE[case]
    path = write(tmp_path, make())
    error = error_of(path)
    assert str(error).startswith(str(path))
    assert message in str(error)


@pytest.mark.parametrize("case", sorted(HOSTILE_TO_THE_PARSER))
def test_a_file_the_parser_refuses_is_one_line_at_its_place(tmp_path, case):
    path = write(tmp_path, HOSTILE_TO_THE_PARSER[case]())
    assert_one_line_at_a_place(error_of(path), path)


def test_more_points_than_the_limit_are_refused(tmp_path, monkeypatch):
    # the limit lowered: 100 001 real points take PyYAML some 14 s to read
    monkeypatch.setattr(terrains, "MAX_TERRAIN_POINTS", 50)
    path = write(tmp_path, "points:\n" + "".join(f"  - [{k}, 0]\n" for k in range(51)))
    assert str(error_of(path)) == f"{path}:2:3: 'points' holds 51 points; at most 50"


def test_a_python_tag_never_runs_anything(tmp_path):
    marker = tmp_path / "ran"
    path = write(tmp_path, f"name: !!python/object/apply:builtins.open ['{marker}', 'w']\npoints: [[0, 0]]\n")
    error_of(path)
    assert not marker.exists()


def test_plain_data_tags_are_allowed():
    t = parse_terrain("name: !!str 42\npoints: !!seq [[0, 0], [1, !!float 2]]\n")
    assert t.name == "42" and t.ys.tolist() == [0, 2]


@pytest.mark.parametrize("parser", ["libyaml", "pyyaml"])
def test_nesting_past_pythons_recursion_limit_is_still_a_clean_error(tmp_path, monkeypatch, parser):
    """Our limit lifted, the file goes as deep as its parser lets it: whoever stops it (PyYAML's
    own parser reads every level, twice Python's recursion limit, so our composer must not
    recurse), the error is one line at its place, never the RecursionError fallback (which has
    no place)."""
    import yaml

    from evolution import yamlread
    if parser == "libyaml":
        if not getattr(yaml, "__with_libyaml__", False):
            pytest.skip("this PyYAML has no libyaml")
        monkeypatch.setattr(yamlread, "_EventSource", yaml.CSafeLoader)
    else:
        monkeypatch.setattr(yamlread, "_EventSource", yaml.SafeLoader)
    monkeypatch.setattr(yamlread, "MAX_DEPTH", 10**9)      # no limit of ours
    # (not deeper: PyYAML's own scanner takes quadratic time over nested flow lists)
    path = write(tmp_path, deep_lists(2 * sys.getrecursionlimit()))
    assert_one_line_at_a_place(error_of(path), path)


def test_a_multi_line_value_is_shown_on_one_line():
    with pytest.raises(TerrainFileError) as info:
        parse_terrain('start: "1\\n2"\npieces:\n  - flat: 1\n', "inline")
    assert str(info.value) == "inline:1:8: 'start' must be a number, not '1\\n2'"


# --- loading: the plug-in and its reference ----------------------------------------------------------

def test_a_missing_file_cannot_be_read(tmp_path):
    path = tmp_path / "nope.yaml"
    assert str(error_of(path)) == f"{path}: cannot read: No such file or directory"


def test_the_reference_is_a_file_at_its_absolute_path(tmp_path, monkeypatch):
    write(tmp_path, GOOD)
    monkeypatch.chdir(tmp_path)
    ref = load_terrain_file("course.yaml").ref
    assert (ref.kind, ref.name, ref.source) == ("terrain", "course.yaml", "file")
    assert ref.location == str((tmp_path / "course.yaml").resolve())


def test_the_reference_hash_is_the_sha256_of_the_files_bytes(tmp_path):
    data = GOOD.replace("\n", "\r\n").encode("utf-8")     # Windows line ends: bytes != text read
    path = write(tmp_path, data)
    assert load_terrain_file(path).ref.sha256 == hashlib.sha256(data).hexdigest()


def test_the_reference_hash_changes_when_the_file_changes(tmp_path):
    path = write(tmp_path, GOOD)
    before = load_terrain_file(path).ref.sha256
    write(tmp_path, GOOD.replace("flat: 10", "flat: 11"))
    assert load_terrain_file(path).ref.sha256 != before


def test_resolve_reads_a_yaml_path_as_a_terrain_file(tmp_path):
    path = write(tmp_path, GOOD)
    resolved, loaded = evolution.resolve("terrain", str(path)).make(3), load_terrain_file(path).make(3)
    assert np.array_equal(resolved.xs, loaded.xs) and np.array_equal(resolved.ys, loaded.ys)


def test_an_episode_runs_on_a_terrain_file(tmp_path):
    path = write(tmp_path, GOOD)
    episode = evolution.Episode.make(physics.examples.walker(), "run", terrain=str(path))
    assert episode.terrain.kind == "wall course"
    assert np.array_equal(episode.terrain.ys, load_terrain_file(path).make(0).ys)


# --- the command: creatures validate -------------------------------------------------------------------

def test_validate_accepts_a_good_terrain_file(tmp_path):
    path = write(tmp_path, GOOD, "good.yaml")
    result = validate(path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"{path}: ok (terrain wall course: ")


def test_validate_prints_every_problem_of_a_bad_terrain_file_and_exits_2():
    path = BAD_DIR / "several_problems.yaml"
    result = validate(path)
    assert result.returncode == 2
    lines, expected = result.stderr.splitlines(), expectations(path)
    assert len(lines) == len(expected)
    assert all(line.startswith(f"{path}:{e}") for line, e in zip(lines, expected)), result.stderr
    assert result.stdout == ""

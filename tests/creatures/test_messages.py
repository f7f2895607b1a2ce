"""Every command's refusals, as a user meets them: a wrong number names its option (and the value);
a design that cannot be found has the command's prefix; a command-line mistake is one usage line
and one error line; ``watch`` of a design points at ``preview``; every --help shows the command's
whole description. Run in this process (``creatures.cli.main``): each is one line on stderr,
exit 2, nothing on stdout."""

import pytest

from creatures import cli
from creatures.cli import main

WALKER_FILE = "creatures/designs/walker.yaml"


def _refused(capsys, *argv) -> str:
    code = main(list(map(str, argv)))
    captured = capsys.readouterr()
    assert code == 2, captured
    assert captured.out == ""
    assert "Traceback" not in captured.err
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    return lines[0]


@pytest.mark.parametrize("argv, message", [
    (("simulate", "--seconds", "-1"), "creatures simulate: --seconds must be a positive number, not -1"),
    (("simulate", "--seconds", "inf"), "creatures simulate: --seconds must be a positive number, not inf"),
    (("simulate", "--gravity", "nan"), "creatures simulate: --gravity must be a number >= 0, not nan"),
    (("simulate", "--seed", "-1"), "creatures simulate: --seed must be 0 or more, not -1"),
    (("export", "runs/x", "--generation", "0", "--out", "x.json"),
     "creatures export: --generation must be 1 or more, not 0"),
    (("export", "runs/x", "--generation", "-3", "--out", "x.json"),
     "creatures export: --generation must be 1 or more, not -3"),
    (("record", "--out", "a.gif", "--fps", "0"), "creatures record: --fps must be 1 to 120"),
    (("record", "--out", "a.gif", "--seconds", "nan"),
     "creatures record: --seconds must be a positive number of seconds, under an hour"),
    (("record", "--out", "a.gif", "--speed", "0"), "creatures record: --speed must be between 1/16 and 64"),
    (("record", "--out", "a.gif", "--size", "0x0"),
     "creatures record: --size 0x0: width and height must be 64x64 to 7680x4320 pixels"),
    (("watch", "--size=-5x10"), "creatures watch: --size -5x10: width and height must be 64x64 to 7680x4320 pixels"),
    (("preview", "--size", "1x1"), "creatures preview: --size 1x1: width and height must be 64x64 to 7680x4320 pixels"),
    (("plot", "runs/x", "--dpi", "5"), "creatures plot: --dpi must be 10 to 1000, not 5"),
    (("plot", "runs/x", "--size", "1x1"),
     "creatures plot: --size 1x1: width and height must be 400x300 to 10000x10000 pixels"),
])
def test_a_wrong_number_names_its_option(capsys, argv, message):
    assert _refused(capsys, *argv) == message


@pytest.mark.parametrize("argv, message", [
    (("--generations", "-3"), "--generations must be 1 or more, not -3"),
    (("--generations", "0"), "--generations must be 1 or more, not 0"),
    (("--workers", "-1"), "--workers must be 1 or more (or 0: one per core), not -1"),
])
def test_resume_numbers_name_their_option(capsys, tmp_path, argv, message):
    from creatures.design import resolve_design
    from evolution.run import Run, RunSettings
    d = resolve_design("walker")
    Run.create(tmp_path, RunSettings(design_name=d.name, design_text=d.text, generations=3,
                                     population=4, seconds=0.1, workers=1), d.body)
    assert _refused(capsys, "resume", tmp_path, *argv) == f"creatures resume: {message}"


@pytest.mark.parametrize("argv, message", [
    (("bench", "--steps", "0"), "argument --steps: must be 1 or more, not 0"),
    (("bench", "--steps", "x"), "argument --steps: must be a whole number, 1 or more, not 'x'"),
    (("bench", "--repeats", "-2"), "argument --repeats: must be 1 or more, not -2"),
    (("evolve", "--seconds", "soon"), "argument --seconds: invalid float value: 'soon'"),
    (("validate",), "the following arguments are required: FILE"),
    (("resume", "runs/x", "--generations", "1.5"), "argument --generations: invalid int value: '1.5'"),
])
def test_a_command_line_mistake_is_one_usage_line_and_one_error_line(capsys, argv, message):
    with pytest.raises(SystemExit) as exit_:
        main(list(argv))
    assert exit_.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    usage, error = captured.err.splitlines()
    command = f"creatures {argv[0]}"
    assert usage.startswith(f"usage: {command} [options]")
    assert usage.endswith(f"({command} --help says more)")
    assert error == f"{command}: error: {message}"


def test_export_with_nothing_to_write_says_what_it_can_write(capsys):
    assert _refused(capsys, "export", "runs/x") == ("creatures export: nothing to write: give --out FILE (the "
                                                    "champion), --yaml FILE.yaml (its body as a design), or both")


def test_an_unknown_command_is_one_usage_line_and_one_error_line(capsys):
    with pytest.raises(SystemExit):
        main(["evolev"])
    usage, error = capsys.readouterr().err.splitlines()
    assert usage == "usage: creatures [options] COMMAND ...   (creatures --help says more)"
    assert error.startswith("creatures: error: argument COMMAND: invalid choice: 'evolev' (choose from ")


def test_the_short_usage_names_the_positionals_and_required_options():
    parser = cli.build_parser()
    sub = {a.dest: a for a in parser._actions}["command"].choices
    assert sub["export"].short_usage().startswith("usage: creatures export [options] RUN_DIR|CARD")
    assert sub["watch"].short_usage().startswith("usage: creatures watch [options] [FILE_OR_RUN_DIR ...]")
    assert sub["validate"].short_usage().startswith("usage: creatures validate [options] FILE [FILE ...]")


@pytest.mark.parametrize("command", ["simulate", "evolve", "preview"])
def test_a_design_that_does_not_exist_has_the_commands_prefix(capsys, command):
    line = _refused(capsys, command, "nosuchdesign")
    assert line.startswith(f"creatures {command}: nosuchdesign: no built-in design of that name and no "
                           "such file (built-in: ")


@pytest.mark.parametrize("command", ["simulate", "evolve", "preview", "designs", "edit", "validate"])
def test_a_misspelt_design_name_gets_the_closest_one(capsys, command):
    line = _refused(capsys, command, "walkr")
    assert "no built-in design of that name" in line and "(did you mean 'walker'?)" in line


def test_sensors_of_a_design_that_does_not_exist_has_the_prefix(capsys):
    assert _refused(capsys, "sensors", "--design", "nosuch").startswith("creatures sensors: nosuch: no built-in design")


@pytest.mark.parametrize("argv", [("terrains", "--check"), ("evolve", "walker", "--terrain"),
                                  ("simulate", "walker", "--terrain")])
def test_a_terrain_file_that_cannot_be_read_has_the_commands_prefix(capsys, tmp_path, argv):
    missing = tmp_path / "nowhere.yaml"
    line = _refused(capsys, *argv, missing)
    assert line == f"creatures {argv[0]}: {missing}: cannot read: No such file or directory"


def test_a_terrain_file_keeps_its_file_line_column_problems(capsys, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("pieces:\n  - flat: -1\n")
    assert _refused(capsys, "terrains", "--check", bad).startswith(f"{bad}:2:")   # as creatures validate


def test_a_design_file_keeps_its_file_line_column_problems(capsys, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nspheres: []\nbones: []\nself_colision: true\n")
    code = main(["evolve", str(bad)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith(f"{bad}:")            # like creatures validate: file:line:column: message


@pytest.mark.parametrize("command", ["watch", "record"])
@pytest.mark.parametrize("design", ["walker", WALKER_FILE])
def test_watching_a_design_points_at_preview(capsys, command, design):
    extra = ("--out", "x.gif") if command == "record" else ()
    assert _refused(capsys, command, design, *extra) == (
        f"creatures {command}: {design} is a design, not a champion: to see it move, creatures "
        f"preview {design}; to evolve a brain for it, creatures evolve {design}")


@pytest.mark.parametrize("name, module, help_", cli.COMMANDS)
def test_every_help_shows_the_whole_first_paragraph_of_its_description(capsys, name, module, help_):
    with pytest.raises(SystemExit):
        main([name, "--help"])
    out = capsys.readouterr().out
    first = module.__doc__.strip().split("\n\n")[0].replace("``", "")
    assert first in out


def test_preview_help_shows_its_whole_description(capsys):
    with pytest.raises(SystemExit):
        main(["preview", "--help"])
    out = capsys.readouterr().out
    assert ("Preview a design live: it stands on the ground with its muscles on a sine wave, and reloads\n"
            "whenever its file is saved (problems show in the window, with line and column).") in out

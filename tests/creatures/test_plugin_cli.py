"""Plug-ins from the command line, as a user meets them: listing what there is, evolving with a
task, sensors and a terrain of one's own, a plug-in that breaks mid-run (one line, the run
stopped cleanly, resumed once fixed), and champions whose plug-ins are code."""

from __future__ import annotations

import json
import textwrap

import pytest

from evolution.champion import load_champion

TINY = ("--generations", "2", "--population", "6", "--seconds", "0.5", "--workers", "1")

FLAG = '''
import numpy as np
import evolution
import physics

class Rise(evolution.Task):
    """Rise: lift the centre of mass."""
    measures = "metres of rise"

    def setup(self, ctx):
        self.start = np.zeros(ctx.batch)
        self.now = np.zeros(ctx.batch)

    def reset(self, state, which):
        y = physics.centre_of_mass(self.ctx.model, state)[:, 1]
        self.start[which] = y[which]
        self.now[which] = y[which]

    def update(self, state, clock):
        self.now[:] = physics.centre_of_mass(self.ctx.model, state)[:, 1]

    def fitness(self):
        return self.now - self.start


SETUPS = 0


class BreaksLater(Rise):
    """Rise, until its third episode (the run's check, generation 1, then generation 2 with
    generation 1's best's post-evaluation beside it), whose update raises."""

    def setup(self, ctx):
        global SETUPS
        SETUPS += 1
        super().setup(ctx)

    def update(self, state, clock):
        super().update(state, clock)
        if SETUPS >= 3:
            raise RuntimeError("the flag fell over")


class Speed(evolution.Sensor):
    """The centre of mass's horizontal velocity."""

    def size(self, ctx):
        return 1

    def read(self, state, clock, out):
        out[:, 0] = physics.com_velocity(self.ctx.model, state)[:, 0]
'''

COURSE = """\
name: little wall
description: Two metres of flat ground, then a 10 cm wall.
start: -2
pieces:
  - flat: 4
  - wall: {height: 0.1, thickness: 0.5}
  - flat: 5
"""


@pytest.fixture
def flag(tmp_path):
    path = tmp_path / "flag.py"
    path.write_text(textwrap.dedent(FLAG))
    return path


def _one_line(r):
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    return lines[0]


# --- listing -----------------------------------------------------------------------------------------

def test_tasks_lists_the_builtins_with_their_source_terrain_and_meaning(run_creatures):
    r = run_creatures("tasks")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split()[:3] == ["task", "source", "terrain"]
    rows = {line.split()[0]: line for line in lines[1:]}
    assert set(rows) >= {"run", "jump", "climb", "obstacle"}
    assert rows["climb"].split()[1:3] == ["built-in", "steps"]
    assert "metres travelled to the right" in rows["run"]


def test_sensors_and_terrains_list_as_json(run_creatures):
    sensors = json.loads(run_creatures("sensors", "--json", "--design", "worm").stdout)
    inputs = {s["name"]: s["inputs"] for s in sensors}
    assert inputs == {"clock": 2, "muscles": 5, "joints": 4, "contacts": 11, "tilt": 2, "height": 1,
                      "velocity": 2, "rays": 4}
    terrains = {t["name"]: t for t in json.loads(run_creatures("terrains", "--json").stdout)}
    assert terrains["steps"]["source"] == "built-in" and terrains["steps"]["heights"] == [0.0, 6.0]


def test_check_describes_a_plugin_file(run_creatures, flag):
    r = run_creatures("tasks", "--check", f"{flag}:Rise", "--json")
    assert r.returncode == 0, r.stderr
    (row,) = json.loads(r.stdout)
    assert row["source"] == "file" and row["measures"] == "metres of rise"
    assert row["description"] == "Rise: lift the centre of mass."


def test_check_of_a_terrain_file(run_creatures, tmp_path):
    (tmp_path / "course.yaml").write_text(COURSE)
    r = run_creatures("terrains", "--check", tmp_path / "course.yaml")
    assert r.returncode == 0, r.stderr
    assert "Two metres of flat ground, then a 10 cm wall." in r.stdout


@pytest.mark.parametrize("args, message", [
    (("tasks", "--check", "{dir}/flag.py:Rice"), "has no 'Rice' (did you mean 'Rise'?)"),
    (("tasks", "--check", "{dir}/flag.py:Speed"), "Speed in {dir}/flag.py is not a task"),
    (("sensors", "--check", "eyes"), "unknown sensor 'eyes'"),
])
def test_check_of_a_bad_plugin_is_one_line(run_creatures, flag, args, message):
    d = str(flag.parent.resolve())
    line = _one_line(run_creatures(*(a.format(dir=d) for a in args)))
    assert message.format(dir=d) in line


# --- evolving with one's own plug-ins ----------------------------------------------------------------

def test_evolve_with_a_task_a_sensor_and_a_terrain_of_ones_own(run_creatures, flag, tmp_path):
    (tmp_path / "course.yaml").write_text(COURSE)
    out = tmp_path / "run"
    r = run_creatures("evolve", "walker", "--task", f"{flag}:Rise", "--sensors", f"rays,{flag}:Speed",
                      "--terrain", tmp_path / "course.yaml", *TINY, "--out", out)
    assert r.returncode == 0, r.stderr
    first = r.stdout.splitlines()[0]
    assert first.startswith("evolving walker (26 inputs, 6 muscles) to flag.py:Rise on little wall ground, "
                            "sensors clock, muscles, joints, contacts, tilt, height, velocity, rays, flag.py:Speed:")
    assert "fitness is metres of rise" in r.stdout
    settings = json.loads((out / "settings.json").read_text())
    assert settings["plugins"]["terrain"]["source"] == "file"
    assert settings["plugins"]["sensors"][-1]["name"] == f"{flag}:Speed"


def test_an_unknown_task_is_refused_in_one_line(run_creatures, tmp_path):
    line = _one_line(run_creatures("evolve", "--task", "dance", *TINY, "--out", tmp_path / "run"))
    assert line.startswith("creatures evolve: unknown task 'dance'")
    assert not (tmp_path / "run").exists()


def test_a_bad_terrain_file_gets_file_line_column(run_creatures, tmp_path):
    (tmp_path / "bad.yaml").write_text("pieces:\n  - flat: -1\n")
    r = run_creatures("evolve", "--terrain", tmp_path / "bad.yaml", *TINY, "--out", tmp_path / "run")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.startswith(f"{tmp_path / 'bad.yaml'}:2:")


def test_a_plugin_that_breaks_mid_run_stops_it_cleanly_and_it_resumes_once_fixed(run_creatures, flag, tmp_path):
    out = tmp_path / "run"
    r = run_creatures("evolve", "--task", f"{flag}:BreaksLater", *TINY, "--out", out)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    line = next(k for k, s in enumerate(flag.read_text().splitlines(), 1) if "the flag fell over" in s)
    assert lines[0] == (f"creatures: task '{flag}:BreaksLater' (file, {flag.resolve()}) failed in update(): "
                        f"RuntimeError: the flag fell over at {flag.resolve()}:{line}")
    # (generation 1 waits in the checkpoint for its best's fresh starts: evolution.run, Waiting)
    assert lines[1] == f"the run stopped after generation 0 of 2; everything up to it is saved in {out}."
    checkpoint = json.loads((out / "checkpoint.json").read_text())
    assert checkpoint["generation"] == 1
    # generation 1's files wait in the checkpoint for its best's fresh starts (evolution.run)
    assert json.loads(checkpoint["waiting"]["record"])["generation"] == 1
    assert list((out / "best").iterdir()) == []

    flag.write_text(flag.read_text().replace('raise RuntimeError("the flag fell over")', "pass"))
    refused = _one_line(run_creatures("resume", out))
    assert "has changed since it was recorded" in refused
    r = run_creatures("resume", out, "--reload-plugins")
    assert r.returncode == 0, r.stderr
    assert json.loads((out / "checkpoint.json").read_text())["generation"] == 2
    assert sorted(p.name for p in (out / "best").iterdir()) == ["gen_0001.json", "gen_0002.json"]


# --- champions whose plug-ins are code ---------------------------------------------------------------

@pytest.fixture
def flag_champion(run_creatures, flag, tmp_path):
    out = tmp_path / "run"
    r = run_creatures("evolve", "--task", f"{flag}:Rise", "--sensors", f"{flag}:Speed", *TINY, "--out", out)
    assert r.returncode == 0, r.stderr
    path = tmp_path / "flag-champion.json"
    assert run_creatures("export", out, "--out", path).returncode == 0
    return path


def test_a_champion_file_does_not_run_its_plugin_unless_named(run_creatures, flag, flag_champion):
    line = _one_line(run_creatures("replay", flag_champion))
    assert line == (f"creatures replay: {flag_champion}: task '{flag}:Rise' (file, {flag.resolve()}) is code, "
                    f"and a shared file never runs code by itself: if you trust it, name it with "
                    f"--plugin {flag.resolve()}")
    r = run_creatures("replay", flag_champion, "--plugin", flag)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[2].endswith("(identical)")


def test_a_champion_refuses_a_named_plugin_that_is_not_the_one_it_was_made_with(run_creatures, flag,
                                                                                flag_champion):
    flag.write_text(flag.read_text() + "\n# changed\n")
    line = _one_line(run_creatures("replay", flag_champion, "--plugin", flag))
    assert "is not the one recorded (its sha256 differs: it has changed)" in line


def test_a_champion_records_its_plugins_by_reference_and_never_their_code(flag, flag_champion):
    doc = json.loads(flag_champion.read_text())
    assert doc["task"]["source"] == "file" and doc["task"]["location"] == str(flag.resolve())
    assert len(doc["task"]["sha256"]) == 64 and doc["task"]["measures"] == "metres of rise"
    assert "class Rise" not in flag_champion.read_text()
    champion = load_champion(flag_champion, [str(flag)])
    assert champion.replay() == champion.fitness


@pytest.mark.parametrize("command", ["watch", "record"])
def test_watch_and_record_refuse_unnamed_plugin_code_in_one_line(run_creatures, flag, flag_champion, tmp_path,
                                                                 command):
    extra = ("--out", tmp_path / "x.gif") if command == "record" else ()
    line = _one_line(run_creatures(command, flag_champion, *extra))
    assert line.startswith(f"creatures {command}: {flag_champion}: task '{flag}:Rise' (file, {flag.resolve()}) is code")
    assert not (tmp_path / "x.gif").exists()


def test_record_plays_a_champion_whose_plugins_are_named(run_creatures, flag, flag_champion, tmp_path):
    r = run_creatures("record", flag_champion, "--plugin", flag, "--out", tmp_path / "x.gif",
                      "--seconds", "0.2", "--size", "160x90", "--fps", "10")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "x.gif").read_bytes()[:6] == b"GIF89a"


def test_check_of_a_plugin_that_cannot_be_made_says_why_in_one_line(run_creatures, tmp_path):
    (tmp_path / "broken.py").write_text(textwrap.dedent('''
        import evolution

        class Broken(evolution.Task):
            def __init__(self):
                raise RuntimeError("no flag today")
        '''))
    line = _one_line(run_creatures("tasks", "--check", f"{tmp_path}/broken.py:Broken"))
    assert line.startswith(f"creatures tasks: task '{tmp_path}/broken.py:Broken' (file, ")
    assert f"failed in __init__(): RuntimeError: no flag today at {tmp_path.resolve()}/broken.py:6" in line

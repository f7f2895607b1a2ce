"""A full disk (simulated: the write, fsync or rename of one file raises ENOSPC) while
``creatures evolve`` writes a checkpoint (on its writer thread) or a generation's files, and
while ``creatures export`` writes a champion: the command stops with one line on stderr and
exit 2, no traceback, no temporary file; the previous checkpoint stays whole, and ``creatures
resume`` then ends the run exactly as the run that never stopped."""

import csv
import errno
import io
import json
import os
from pathlib import Path

import pytest

from creatures.cli import main
from evolution.run import Run

GENERATIONS = 4
TINY = ["--generations", str(GENERATIONS), "--population", "10", "--seconds", "1", "--workers", "1",
        "--seed", "2"]
NO_SPACE = os.strerror(errno.ENOSPC)


def _files(directory):
    """Every file of a run directory, stats.csv without its timing columns, no lock file."""
    files = {str(p.relative_to(directory)): p.read_bytes()
             for p in sorted(Path(directory).rglob("*")) if p.is_file() and p.name != ".lock"}
    rows = list(csv.reader(io.StringIO(files["stats.csv"].decode())))
    keep = [k for k, name in enumerate(rows[0]) if name not in ("eval_seconds", "creature_steps_per_s", "wall_seconds")]
    files["stats.csv"] = [[row[k] for k in keep] for row in rows]
    return files


def _temporaries(directory):
    return [p for p in Path(directory).rglob(".*.tmp*")]


def _full_disk_at(monkeypatch, name, after, where="replace"):
    """Let ``after`` writes of files called ``name`` through, then fail the next ones with ENOSPC:
    at their rename (``replace``) or at their fsync (``fsync``: the data never reached the disk)."""
    count = {"n": 0}

    def full(target):
        if Path(target).name.startswith(f".{name}.tmp") or Path(target).name == name:
            count["n"] += 1
            return count["n"] > after
        return False

    if where == "replace":
        real = os.replace

        def replace(src, dst, *a, **k):
            if full(dst):
                raise OSError(errno.ENOSPC, NO_SPACE)
            return real(src, dst, *a, **k)
        monkeypatch.setattr(os, "replace", replace)
    else:
        if not os.path.isdir("/proc/self/fd"):
            pytest.skip("needs /proc/self/fd to tell which file an fsync is for")
        real = os.fsync

        def fsync(fd):
            if full(os.readlink(f"/proc/self/fd/{fd}")):
                raise OSError(errno.ENOSPC, NO_SPACE)
            return real(fd)
        monkeypatch.setattr(os, "fsync", fsync)


@pytest.fixture(scope="module")
def straight(tmp_path_factory):
    out = tmp_path_factory.mktemp("straight") / "run"
    assert main(["evolve", "walker", *TINY, "--out", str(out)]) == 0
    return out


def _one_line(capsys, code):
    captured = capsys.readouterr()
    assert code == 2, captured.err
    assert "Traceback" not in captured.err
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    return lines[0], captured.out


@pytest.mark.parametrize("name, after, where, intact", [
    # (a checkpoint keeps its generation waiting for its best's fresh starts, unless they are
    # known, an elite's: the run is intact up to the one before it then; evolution.run, Waiting)
    ("checkpoint.json", 2, "replace", 0),    # generation 2's checkpoint, on the writer thread
    ("checkpoint.json", 3, "fsync", 2),      # generation 3's, its data never on the disk
    ("checkpoint.json", 0, "replace", 0),    # the very first one (generation 0)
    ("gen_0003.json", 0, "replace", 2),      # a generation's best genome, on the main thread
    ("stats.csv", 3, "fsync", 2),            # header, 1 and 2 written; generation 3's row fails
])
def test_a_full_disk_stops_evolve_in_one_line_and_resume_finishes_the_run(
        straight, tmp_path, monkeypatch, capsys, name, after, where, intact):
    out = tmp_path / "run"
    capsys.readouterr()
    _full_disk_at(monkeypatch, name, after, where)
    code = main(["evolve", "walker", *TINY, "--out", str(out)])
    monkeypatch.undo()
    line, stdout = _one_line(capsys, code)
    failed = out / "best" / name if name.startswith("gen_") else out / name
    assert line == (f"creatures evolve: cannot write {failed}: {NO_SPACE} (the run is intact up to "
                    f"generation {intact}; free some space and run creatures resume {out})")
    assert _temporaries(out) == []
    if (out / "checkpoint.json").exists():         # the previous checkpoint, whole
        assert Run.open(out).generations_done == intact
    else:
        assert intact == 0
    assert "next:" not in stdout
    # stats.csv may hold a generation the checkpoint does not: resume drops it and redoes it
    assert main(["resume", str(out)]) == 0
    captured = capsys.readouterr()
    assert f"after generation {intact}:" in captured.out
    assert _files(out) == _files(straight)


def test_a_full_disk_while_exporting_leaves_the_old_champion(straight, tmp_path, monkeypatch, capsys):
    target = tmp_path / "champion.json"
    target.write_text("an older champion")
    capsys.readouterr()
    _full_disk_at(monkeypatch, "champion.json", 0)
    code = main(["export", str(straight), "--out", str(target)])
    monkeypatch.undo()
    line, stdout = _one_line(capsys, code)
    assert line == f"creatures export: cannot write {target}: {NO_SPACE}"
    assert stdout == ""
    assert target.read_text() == "an older champion"
    assert os.listdir(tmp_path) == ["champion.json"]
    assert main(["export", str(straight), "--out", str(target)]) == 0   # with space again: written
    assert json.loads(target.read_text())["format"] == "creatures-champion"


def test_a_full_disk_while_resume_sets_the_generations_is_one_line(straight, tmp_path, monkeypatch, capsys):
    import shutil
    out = tmp_path / "run"
    shutil.copytree(straight, out)
    before = (out / "settings.json").read_text()
    capsys.readouterr()
    _full_disk_at(monkeypatch, "settings.json", 0)
    code = main(["resume", str(out), "--generations", str(GENERATIONS + 1)])
    monkeypatch.undo()
    line, _ = _one_line(capsys, code)
    assert line == f"creatures resume: cannot write {out / 'settings.json'}: {NO_SPACE}"
    assert (out / "settings.json").read_text() == before
    assert _temporaries(out) == []

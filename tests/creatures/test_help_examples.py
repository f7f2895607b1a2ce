"""Every example in every ``creatures COMMAND --help`` names files that exist, and the fast ones run.

An example line is ``creatures ...`` (or ``xvfb-run -a creatures ...``) up to two spaces, after
which comes what it does. A word of it names a file when it has a folder in it or a file's
suffix (a plug-in ``path/file.py:Class`` names ``path/file.py``); the word after ``--out`` is
what the command writes, and is not looked for. Each file named must be either

- shipped with the clone (under ``examples/`` or ``saves/``), or
- one of the reader's own, listed in :data:`READERS_FILES` with how a reader comes to have it
  (a design of theirs, a run ``creatures evolve`` made, a champion ``creatures export`` wrote...).

The examples run in a folder laid out as the reader's would be: the shipped folders, and the
reader's own files made there first. "Fast" is decided by the command (:data:`FAST`): the
headless ones that read, list, check or replay, or simulate one creature. The others (generations
of evolution, windows, recordings, benchmarks of minutes) are only checked for their files.
"""

import glob
import re
import shutil
from pathlib import Path

import pytest

from creatures import cli

REPO = Path(__file__).resolve().parents[2]
#: the folders a reader has from the clone
SHIPPED = ("examples", "saves")
#: suffixes that make a word a file's name
SUFFIXES = (".yaml", ".yml", ".json", ".py", ".cfg", ".gif", ".mp4", ".png")
#: the commands whose examples run here (in this process, one by one)
FAST = {"designs", "tasks", "sensors", "terrains", "validate", "simulate", "replay", "export", "plot", "challenges",
        "challenge"}
#: the reader's own files the examples name, and what each is: a design of theirs, a folder of
#: them, a terrain file, a NEAT config, a run directory (``creatures evolve``), a champion file
#: (``creatures export``), one evolved on the flag task of examples/flag_task.py
READERS_FILES = {
    "<DESIGN.yaml>": "design", "inchworm.yaml": "design",
    "designs/*.yaml": "designs",
    "<TERRAIN.yaml>": "terrain",
    "<NEAT.cfg>": "neat_config",
    "<RUN_DIR>": "run", "runs/worm-1": "run",
    "<CHAMPION.json>": "champion",
    "<FLAG_CHAMPION.json>": "flag_champion",
}
#: the reader's files an example may name as they are, not as a <PLACEHOLDER>: each is what an
#: example before it makes (``creatures edit inchworm.yaml`` starts it, ``creatures evolve worm
#: --out runs/worm-1`` makes that run), or a folder of the reader's own designs
AS_THEY_ARE = {"inchworm.yaml", "runs/worm-1", "designs/*.yaml"}
PLACEHOLDER = re.compile(r"<[A-Z_]+(\.[a-z]+)?>")
#: generations of the reader's run: enough for ``export --generation 30``
RUN_GENERATIONS = 30


def help_examples() -> list[tuple[str, list[str]]]:
    """(command, argv after ``creatures``) of every example line of every command's --help."""
    parser = cli.build_parser()
    commands = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction").choices
    out = []
    for name, sub in commands.items():
        text = sub.format_help()
        assert "\nexamples:\n" in text, f"creatures {name} --help has no examples"
        for line in text.split("\nexamples:\n", 1)[1].splitlines():
            words = re.split(r"\s{2,}", line.strip(), maxsplit=1)[0].split()
            if "creatures" in words:
                argv = words[words.index("creatures") + 1:]
                assert argv[0] == name, f"creatures {name} --help shows an example of another command: {line}"
                out.append((name, argv))
    return out


def named_files(argv: list[str]) -> list[str]:
    """The files an example's words name (not what follows --out: the command writes that)."""
    files = []
    for k, word in enumerate(argv):
        if word.startswith("-") or (k and argv[k - 1] == "--out"):
            continue
        plugin = re.fullmatch(r"(.+\.py):\w+", word)
        path = plugin.group(1) if plugin else word
        if "/" in path or path.lower().endswith(SUFFIXES) or PLACEHOLDER.fullmatch(path):
            files.append(path)
    return files


EXAMPLES = help_examples()


def _creatures(run_creatures, where: Path, *argv) -> None:
    result = run_creatures(*argv, cwd=where, timeout=600)
    assert result.returncode == 0, f"creatures {' '.join(map(str, argv))}:\n{result.stderr[-3000:]}"


@pytest.fixture(scope="module")
def readers_folder(tmp_path_factory, run_creatures) -> Path:
    """A folder as a reader's would be: the clone's shipped folders, and every file of
    :data:`READERS_FILES` made as the reader would have it."""
    here = tmp_path_factory.mktemp("reader")
    for name in SHIPPED:
        (here / name).symlink_to(REPO / name, target_is_directory=True)
    tiny = ["--population", "4", "--seconds", "0.5", "--workers", "1", "--seed", "1"]
    made = here / "made"
    _creatures(run_creatures, here, "evolve", "walker", "--generations", RUN_GENERATIONS, *tiny,
               "--out", made / "run")
    _creatures(run_creatures, here, "evolve", "walker", "--task", "examples/flag_task.py:ReachFlag",
               "--generations", 1, *tiny, "--out", made / "flag-run")
    _creatures(run_creatures, here, "export", made / "run", "--out", made / "champion.json")
    _creatures(run_creatures, here, "export", made / "flag-run", "--out", made / "flag-champion.json")
    design = REPO / "creatures" / "designs" / "walker.yaml"
    for name, kind in READERS_FILES.items():
        path = here / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if kind == "design":
            shutil.copy(design, path)
        elif kind == "designs":
            for builtin in ("walker", "worm"):
                shutil.copy(REPO / "creatures" / "designs" / f"{builtin}.yaml", path.parent)
        elif kind == "terrain":
            shutil.copy(REPO / "examples" / "hilly_wall.yaml", path)
        elif kind == "neat_config":
            shutil.copy(made / "run" / "neat.cfg", path)
        elif kind == "run":
            shutil.copytree(made / "run", path)
        elif kind == "champion":
            shutil.copy(made / "champion.json", path)
        elif kind == "flag_champion":
            shutil.copy(made / "flag-champion.json", path)
        else:
            raise AssertionError(f"READERS_FILES[{name!r}]: no way to make a {kind!r}")
    return here


def _id(example) -> str:
    return " ".join(example[1])


def test_the_readers_own_files_are_placeholders_nobody_would_paste():
    """An example that names a file of the reader's says so: ``<RUN_DIR>``, ``<CHAMPION.json>``
    (copied as it is, it fails at once and visibly, not on a run directory of someone's date)."""
    assert all(PLACEHOLDER.fullmatch(name) or name in AS_THEY_ARE for name in READERS_FILES)


def test_every_command_has_examples_and_some_run():
    assert {name for name, _ in EXAMPLES} == {name for name, _, _ in cli.COMMANDS}
    assert FAST <= {name for name, _ in EXAMPLES}


@pytest.mark.parametrize("example", EXAMPLES, ids=_id)
def test_every_file_a_help_example_names_exists(readers_folder, example):
    name, argv = example
    for path in named_files(argv):
        shipped = path.split("/")[0] in SHIPPED
        assert shipped or path in READERS_FILES, (
            f"creatures {name} --help: {path} is neither shipped (under {', '.join(SHIPPED)}) nor "
            f"one of the reader's own files this test knows how to make (READERS_FILES)")
        found = glob.glob(str(readers_folder / path)) if "*" in path else [readers_folder / path]
        assert found and all(Path(p).exists() for p in found), f"creatures {name} --help: no {path}"


@pytest.mark.parametrize("example", [e for e in EXAMPLES if e[0] in FAST], ids=_id)
def test_a_fast_help_example_runs(readers_folder, example, monkeypatch, capsys):
    name, argv = example
    monkeypatch.chdir(readers_folder)
    words = [w for word in argv for w in (sorted(glob.glob(word)) if "*" in word else [word])]
    code = cli.main(words)
    err = capsys.readouterr().err
    assert code == 0, f"creatures {' '.join(argv)}: exit status {code}\n{err[-3000:]}"

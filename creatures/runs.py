"""Starting a run: checking a design and its settings and writing a run directory's first files.

What ``creatures evolve`` and the play window's evolution screen share: both start runs here, so a
run started from either is the same run (and ``creatures resume`` goes on with either)."""

from __future__ import annotations

import shlex
from datetime import datetime
from pathlib import Path

from evolution import PluginError
from evolution.run import Run, RunSettings, WriteError

#: RunSettings' limit on the seconds a creature is tried for
MAX_SECONDS = 1e6


class StartError(Exception):
    """A run that cannot start, and why (one line). ``plugin``: the plug-in's own error when a
    plug-in is the cause (a file's problems are its lines, ``file:line:column: message``)."""

    def __init__(self, message: str, plugin: Exception | None = None):
        super().__init__(message)
        self.plugin = plugin


def task_slug(task: str) -> str:
    """A task's name for a file or directory: ``run``, or ``ReachFlag`` for ``examples/flag.py:ReachFlag``."""
    name = task.rsplit(":", 1)[-1]
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in name) or "task"


def default_out(design_name: str, task: str) -> str:
    """``runs/walker-run-20261124-101500``: where a run goes when no directory is named."""
    return f"runs/{design_name}-{task_slug(task)}-{datetime.now():%Y%m%d-%H%M%S}"


def new_run_dir(out_dir: str | Path, design_name: str, task: str) -> Path:
    """A directory in ``out_dir`` for a new run that does not exist yet: ``default_out``'s name,
    with ``~2``, ``~3``... when two runs start in the same second."""
    out = Path(out_dir) / Path(default_out(design_name, task)).name
    k = 2
    while out.exists():
        out = out.with_name(f"{out.name.rsplit('~', 1)[0]}~{k}")
        k += 1
    return out


def create_run(out: Path, design, **settings) -> Run:
    """Check everything and write the first files of a new run of ``design`` (a
    :class:`~creatures.design.Design`) in ``out``; ``settings`` are :class:`RunSettings`' own
    (task, terrain, sensors, seconds, generations, population, seed, workers...). Raises
    :class:`StartError` (one line) for a directory that already holds a run, a plug-in that
    cannot be used, a disk that cannot be written or a bad setting."""
    out = Path(out)
    if (out / "settings.json").exists():
        raise StartError(f"{out} already holds a run; choose another --out, or go on with: "
                         f"creatures resume {shlex.quote(str(out))}")
    try:
        run_settings = RunSettings(design_name=design.name, design_text=design.text, **settings)
        return Run.create(out, run_settings, design.body, design.genes)
    except PluginError as exc:  # a plug-in that cannot be found, loaded or run
        raise StartError(str(exc), exc) from None
    except WriteError as exc:  # a full disk, say: settings.json, written last, is not there
        raise StartError(f"cannot start the run: {exc}") from None
    except OSError as exc:  # a directory that cannot be made
        raise StartError(f"cannot start the run: cannot write {exc.filename or out}: {exc.strerror or exc}") from None
    except (ValueError, KeyError, TypeError) as exc:  # a bad neat config
        raise StartError(f"cannot start the run: {exc}") from None

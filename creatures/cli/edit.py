"""Edit a design in a window: click to place spheres, drag to connect bones, make muscles, add
joints and clusters, test it live, and save the YAML.

The YAML file stays the source of truth: every edit rewrites only the items it touches (the
other lines, comments and key order stay as they were), is checked by the loader ``creatures
validate`` uses (problems are listed in the window, their items highlighted), and can be undone.
A file that does not exist is a new design; a built-in design's name opens a copy (saved as
NAME.yaml here); a champion (a file ``creatures export`` wrote, a card, or a run directory: its
best) opens its body as a new design (saved as NAME.yaml here: a grown body as it grew, an
evolved one as it evolved). Press H in the window for the keys.
"""

from __future__ import annotations

import sys
from pathlib import Path

from evolution.yamlread import did_you_mean
from render.game import GameError

from ..design import builtin_names

EXAMPLES = """examples:
  creatures edit                   a new design (my-creature.yaml here)
  creatures edit inchworm.yaml     open it, or start it if it does not exist
  creatures edit walker            a copy of the built-in walker, saved as walker.yaml here
  creatures edit <CHAMPION.json>   a champion's body as a new design, saved as NAME.yaml here
  creatures edit <RUN_DIR>         the body of a run's champion (grown or evolved), likewise
"""


def add_arguments(parser) -> None:
    parser.add_argument("file", nargs="?", default=None, metavar="FILE.yaml|DESIGN|CHAMPION",
                        help="a design file (a new one if it does not exist), a built-in design's name "
                             "(a copy), or a champion (.json, a card .png, or a run directory: its body as a "
                             "new design); default: a new my-creature.yaml")
    parser.add_argument("--size", default="1280x720", help="window size WxH (default 1280x720)")


def _fail(message: str) -> int:
    print(f"creatures edit: {message}", file=sys.stderr)
    return 2


def _free(stem: str) -> Path:
    """``stem.yaml``, or ``stem-2.yaml``... the first that does not exist here."""
    path, k = Path(f"{stem}.yaml"), 2
    while path.exists():
        path, k = Path(f"{stem}-{k}.yaml"), k + 1
    return path


#: the files that hold a champion (the rest are design files)
CHAMPION_SUFFIXES = (".json", ".png")


def champion_document(target: str):
    """A new design of the body of the champion ``target`` (a champion file, a card or a run
    directory), to be saved as ``NAME.yaml`` here (the first free name: :func:`_free`).
    Raises :class:`GameError` (one line)."""
    from evolution.champion import ChampionError, champion_from_run, load_champion

    from ..editing import DesignDocument
    from .export import champion_design
    path = Path(target)
    try:
        champion = champion_from_run(path) if path.is_dir() else load_champion(path)
        name, text = champion_design(champion, f"the {'run' if path.is_dir() else 'file'} {path.resolve().name}")
    except ChampionError as exc:
        raise GameError(str(exc) if path.is_dir() else f"{target}: {exc}") from None
    except ValueError as exc:
        raise GameError(f"{target}: its champion's body cannot be written as a design: {exc}") from None
    return DesignDocument(_free(name), text)


def open_document(target: str | None):
    """The document ``creatures edit TARGET`` edits: an existing file, a new one, a copy of a
    built-in design, or a champion's body (:func:`champion_document`). Raises
    :class:`GameError` (one line)."""
    from ..editing import DesignDocument
    if target is None:
        return DesignDocument.new(str(_free("my-creature")))
    path = Path(target)
    if path.exists():
        if path.is_dir():
            if (path / "settings.json").is_file():
                return champion_document(target)
            raise GameError(f"{path} is a directory, not a design file (nor a run directory: no settings.json)")
        if path.suffix.lower() in CHAMPION_SUFFIXES:
            return champion_document(target)
        return DesignDocument.open(str(path))
    if target in builtin_names():
        return DesignDocument.from_builtin(target, str(_free(target)))
    if path.suffix.lower() not in (".yaml", ".yml"):
        raise GameError(f"{target}: no such file, and no built-in design of that name"
                        f"{did_you_mean(target, builtin_names())} (a new design file ends in .yaml; "
                        f"built-in: {', '.join(builtin_names())})")
    if not path.parent.is_dir():
        raise GameError(f"{path.parent}: no such directory")
    return DesignDocument.new(str(path))


def run(args) -> int:
    from ..display import has_display
    from .args import parse_size
    try:
        size = parse_size(args.size)
        doc = open_document(args.file)
    except (ValueError, GameError) as exc:
        return _fail(str(exc))
    if not has_display():
        print("creatures edit: no display to open a window on (DISPLAY is not set); run it on a desktop or "
              "under a virtual one (xvfb-run -a creatures edit FILE), or edit the YAML in any text editor "
              "and check it with creatures validate FILE", file=sys.stderr)
        return 2
    edit_window(doc, size)
    if doc.dirty:
        print(f"creatures edit: closed with changes not saved; {doc.path} is as it was last saved", file=sys.stderr)
    return 0


def edit_window(doc, size=(1280, 720), window=None):
    """Open the editor on ``doc`` and run until the window is closed; returns the view."""
    import arcade

    from render.editor import EditorView
    window = window or arcade.Window(int(size[0]), int(size[1]), f"creatures - edit {doc.path}", resizable=True,
                                     antialiasing=False)
    view = EditorView(doc, window=window, on_quit=window.close)
    window.show_view(view)
    try:
        arcade.run()
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
    finally:
        if not window.closed:
            window.close()
    return view

"""The command-line side of plug-ins: naming the code a champion needs, and one-line errors."""

from __future__ import annotations

PLUGIN_HELP = ("a plug-in file (path/to/file.py[:Name]) or module (package.module[:Name]) that a "
               "champion's task or sensors come from; a champion file never loads code by itself. "
               "It must be the file the champion was made with (same content); repeatable")


def plugin_error(command: str, exc: Exception) -> str:
    """What to print for a plug-in that cannot be used: a file's problems as they are
    (``file:line:column: message``, like ``creatures validate``), else (no such file, one that
    cannot be read, any other plug-in) each line with the command's prefix."""
    from evolution.yamlread import YamlError
    if isinstance(exc, YamlError) and any(p.line > 0 for p in exc.problems):
        return str(exc)
    return "\n".join(f"creatures {command}: {line}" for line in str(exc).splitlines())


def add_plugin_argument(parser) -> None:
    parser.add_argument("--plugin", action="append", default=[], metavar="FILE_OR_MODULE",
                        help=PLUGIN_HELP)

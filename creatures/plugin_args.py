"""The command-line side of plug-ins: naming the code a champion needs, and one-line errors."""

from __future__ import annotations

PLUGIN_HELP = ("a plug-in file (path/to/file.py[:Name]) or module (package.module[:Name]) that a "
               "champion's task or sensors come from; a champion file never loads code by itself. "
               "It must be the file the champion was made with (same content); repeatable")


def add_plugin_argument(parser) -> None:
    parser.add_argument("--plugin", action="append", default=[], metavar="FILE_OR_MODULE",
                        help=PLUGIN_HELP)

"""The ``creatures`` command: one entry point, one subcommand per job.

Each subcommand lives in its own module with ``add_arguments(parser)`` and ``run(args) -> int``;
this module only wires them together, so ``creatures --help`` lists them all.
"""

from __future__ import annotations

import argparse
import sys

from . import (__version__, bench, designs_cmd, evolve, export, plot, plugins_cmd, preview, record, replay,
               resume, simulate, validate, watch)

#: (name, module, one-line help) of every subcommand, in the order --help lists them
COMMANDS = [
    ("designs", designs_cmd, "list the built-in designs"),
    ("tasks", plugins_cmd.tasks, "list the tasks (built in, installed) and check plug-in files"),
    ("sensors", plugins_cmd.sensors, "list the sensors a brain can read"),
    ("terrains", plugins_cmd.terrains, "list the terrains, check terrain files"),
    ("validate", validate, "check design and terrain files, print every problem"),
    ("simulate", simulate, "run a creature headless and report what happened"),
    ("evolve", evolve, "evolve brains for a creature on a task"),
    ("resume", resume, "go on with a stopped run, exactly where it stopped"),
    ("plot", plot, "draw a run's fitness and species charts"),
    ("export", export, "write a run's champion to a shareable file"),
    ("replay", replay, "re-simulate a champion file and check its fitness"),
    ("watch", watch, "watch champions race in a window"),
    ("preview", preview, "preview a design live, reloading it when saved"),
    ("record", record, "record champions to a GIF or MP4, offscreen"),
    ("bench", bench, "measure the engine against pymunk, side by side"),
]


class _Formatter(argparse.RawDescriptionHelpFormatter):
    pass


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="creatures", formatter_class=_Formatter,
        description="Design sphere-and-bone creatures, evolve their brains, watch the champions.",
        epilog="Run 'creatures COMMAND --help' for a command's options and an example.")
    parser.add_argument("--version", action="version", version=f"creatures {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module, help_ in COMMANDS:
        p = sub.add_parser(name, help=help_, description=module.__doc__.strip().splitlines()[0],
                           epilog=getattr(module, "EXAMPLES", None), formatter_class=_Formatter)
        module.add_arguments(p)
        p.set_defaults(run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "run", None) is None:
        parser.print_help()
        return 2
    try:
        return int(args.run(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())

"""The ``creatures`` command: one entry point, one subcommand per job.

Each subcommand lives in its own module with ``add_arguments(parser)`` and ``run(args) -> int``;
this module only wires them together, so ``creatures --help`` lists them all.
"""

from __future__ import annotations

import argparse
import os
import sys

import evolution

from .. import __version__
from . import (bench, card, challenge, challenges, designs, edit, evolve, export, play, plot, plugins, preview, random_designs,
               record, replay, resume, simulate, validate, watch)
from .args import Terminated, stop_on_sigterm, stopping

#: (name, module, one-line help) of every subcommand, in the order --help lists them
COMMANDS = [
    ("designs", designs, "list the built-in designs, or show one: its parts and what it is"),
    ("tasks", plugins.tasks, "list the tasks (built in, installed) and check plug-in files"),
    ("sensors", plugins.sensors, "list the sensors a brain can read"),
    ("terrains", plugins.terrains, "list the terrains, check terrain files"),
    ("validate", validate, "check design and terrain files, print every problem"),
    ("random", random_designs, "write random creatures as design files, each valid and able to stand"),
    ("simulate", simulate, "run a creature headless and report what happened"),
    ("evolve", evolve, "evolve brains for a creature on a task"),
    ("resume", resume, "go on with a stopped run, exactly where it stopped"),
    ("plot", plot, "draw a run's fitness and species charts"),
    ("export", export, "write a run's champion to a shareable file"),
    ("card", card, "write a share card: a PNG that shows a champion and holds it"),
    ("replay", replay, "re-simulate a champion file and check its fitness"),
    ("challenges", challenges, "list the built-in challenges, or check challenge files"),
    ("challenge", challenge, "verify entries to a challenge and rank a folder of them"),
    ("play", play, "pick a creature, evolve it and watch it learn, in one window"),
    ("watch", watch, "watch champions race in a window"),
    ("preview", preview, "preview a design live, reloading it when saved"),
    ("edit", edit, "edit a design in a window: spheres, bones, muscles, joints; writes the YAML"),
    ("record", record, "record champions to a GIF or MP4, offscreen"),
    ("bench", bench, "measure the engine against pymunk, side by side"),
]


class _Formatter(argparse.RawDescriptionHelpFormatter):
    pass


class _Parser(argparse.ArgumentParser):
    """argparse, with a mistake on the command line said in two lines: a one-line usage (the
    whole one, with every option, is what --help is for) and the error."""

    def short_usage(self) -> str:
        words = [self.prog, "[options]"]
        for action in self._actions:
            if action.option_strings:
                if action.required:
                    words.append(f"{action.option_strings[0]} {action.metavar or action.dest.upper()}")
                continue
            if action.nargs == argparse.PARSER:
                words.append(f"{action.metavar or 'COMMAND'} ...")
                continue
            name = action.metavar or action.dest
            if action.nargs in ("?", "*"):
                name = f"[{name}{' ...' if action.nargs == '*' else ''}]"
            elif action.nargs == "+":
                name = f"{name} [{name} ...]"
            words.append(name)
        return f"usage: {' '.join(words)}   ({self.prog} --help says more)"

    def error(self, message: str):
        self.exit(2, f"{self.short_usage()}\n{self.prog}: error: {' '.join(message.split())}\n")

    def parse_args(self, args=None, namespace=None):
        """As argparse's, but words left over are refused by the command they were given to."""
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            parser = self
            for action in self._actions:
                if isinstance(action, argparse._SubParsersAction):
                    parser = action.choices.get(getattr(parsed, action.dest, None), self)
            parser.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed


def description(module) -> str:
    """A command's description for --help: its module docstring's first paragraph, whole."""
    text = (module.__doc__ or "").strip().split("\n\n")[0]
    return text.replace("``", "")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="creatures", formatter_class=_Formatter,
        description="Design sphere-and-bone creatures, evolve their brains, watch the champions.",
        epilog="Run 'creatures COMMAND --help' for a command's options and an example.")
    parser.add_argument("--version", action="version", version=f"creatures {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module, help_ in COMMANDS:
        p = sub.add_parser(name, help=help_, description=description(module),
                           epilog=getattr(module, "EXAMPLES", None), formatter_class=_Formatter)
        module.add_arguments(p)
        p.set_defaults(run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    evolution.prepare_process()  # OMP_WAIT_POLICY, numba's caches: before any kernel runs
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "run", None) is None:
        parser.print_help()
        return 2
    stop_on_sigterm()
    try:
        return int(args.run(args) or 0)
    except KeyboardInterrupt as exc:
        stopping()
        print("interrupted", file=sys.stderr)
        return 143 if isinstance(exc, Terminated) else 130
    except BrokenPipeError:  # the output's reader stopped (creatures evolve | head): quietly
        # (the Python docs' recipe: stdout to devnull, so that flushing at exit does not raise again)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())

"""Command line: ``kernelscope diagnose REPORT [REPORT...]``, ``kernelscope roofline``, ``kernelscope gpus``,
``kernelscope occupancy``, ``kernelscope banks``, ``kernelscope compare``, ``kernelscope timeline``,
``kernelscope source``.

One module per command (its arguments and the function that runs it); the shared options (``--input-format``,
``--format``, ``--lang``, ``-q``, ``--gpu``/``--spec``, ``-o``) are built once, as the parent parser of each
command, from the :class:`~kernelscope.cli.options.Shared` options it declares. The commands parse arguments, call
:mod:`kernelscope.api` and the analysis, and hand the results to :mod:`kernelscope.render`.

Exit codes: 0 success, 2 bad input (one-line message naming the file and the problem, nothing written; also a
``--kernel`` / ``--pair`` selection that matches nothing, and an ``-o`` that cannot be written or is an input);
``compare`` exits 1 on a regression beyond ``--fail-if-slower``.

Inputs may be standard input (``-``) or other streams (:mod:`kernelscope.cli.inputs`); how ``-o`` is written
(links, FIFOs, devices, standard output) is in :mod:`kernelscope.cli.output`.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from ..errors import KernelscopeError, one_line
from ..knowledge import LANGUAGES
from ..version import __version__
from .banks import COMMAND as BANKS
from .compare import COMMAND as COMPARE
from .diagnose import COMMAND as DIAGNOSE
from .gpus import COMMAND as GPUS
from .occupancy import COMMAND as OCCUPANCY
from .options import Command, Shared
from .output import write_atomic, write_atomic_files
from .roofline import COMMAND as ROOFLINE
from .source import COMMAND as SOURCE
from .timeline import COMMAND as TIMELINE

__all__ = ["COMMANDS", "main", "write_atomic", "write_atomic_files"]

#: Every command, in the order ``kernelscope --help`` lists them.
COMMANDS: tuple[Command, ...] = (DIAGNOSE, SOURCE, GPUS, OCCUPANCY, BANKS, TIMELINE, ROOFLINE, COMPARE)


class _Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors (exit 2), like every other kernelscope error."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _parent(shared: Shared) -> argparse.ArgumentParser:
    """The parent parser holding the shared options one command takes, with its help texts."""
    p = argparse.ArgumentParser(add_help=False)
    if shared.input_formats is not None:
        p.add_argument("--input-format", choices=("auto", *shared.input_formats), default="auto",
                       help=shared.input_format_help)
    if shared.formats is not None:
        p.add_argument("--format", choices=shared.formats, default=shared.format_default, help=shared.format_help)
    if shared.lang_help is not None:
        p.add_argument("--lang", choices=LANGUAGES, default="en", help=shared.lang_help)
    if shared.quiet_help is not None:
        p.add_argument("-q", "--quiet", action="store_true", help=shared.quiet_help)
    if shared.gpu_help is not None:
        g = p.add_mutually_exclusive_group()
        g.add_argument("--gpu", metavar="NAME", help=shared.gpu_help[0])
        g.add_argument("--spec", metavar="FILE", help=shared.gpu_help[1])
    if shared.output_help is not None:
        p.add_argument("-o", "--output", metavar="FILE", required=shared.output_required, help=shared.output_help)
    return p


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="kernelscope",
        description="Why is this CUDA kernel slow, and what to do about it.",
    )
    p.add_argument("--version", action="version", version=f"kernelscope {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        c = sub.add_parser(command.name, help=command.help, description=command.description,
                           parents=[_parent(command.shared)])
        command.add_arguments(c)
        c.set_defaults(func=command.run)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 ok, 1 a ``compare`` regression, 2 bad input)."""
    args = _parser().parse_args(argv)
    try:
        return args.func(args)
    except KernelscopeError as exc:
        print(f"kernelscope: error: {one_line(str(exc))}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"kernelscope: error: {exc.filename or ''}: {exc.strerror}", file=sys.stderr)
        return 2

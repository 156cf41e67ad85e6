"""``kernelscope gpus``: the GPU catalogue (names usable with ``--gpu``) with its dense peaks."""

from __future__ import annotations

import argparse

from ..knowledge.gpus import catalogue
from .options import OUTPUT_HELP, Command, Shared
from .output import emit, emit_tables


def _gpus(args: argparse.Namespace) -> int:
    if args.format == "json":
        from ..render.json_commands import gpus_json

        return emit(args.output, gpus_json(catalogue(), args.lang))
    from ..render.gpus import gpus_table  # rich only for the command that prints it

    return emit_tables(args.output, [gpus_table(catalogue(), args.lang)], args.format)


COMMAND = Command(
    name="gpus",
    help="list the GPU catalogue (names usable with --gpu) with its dense peaks",
    description=None,
    shared=Shared(formats=("table", "json", "markdown"), lang=True,
                  output_help=OUTPUT_HELP),
    add_arguments=lambda p: None,
    run=_gpus,
)

"""``kernelscope gpus``: the GPU catalogue (names usable with ``--gpu``) with its dense peaks."""

from __future__ import annotations

import argparse

from ..knowledge.gpus import catalogue
from .options import Command, Shared
from .output import show


def _gpus(args: argparse.Namespace) -> int:
    from ..render.gpus import gpus_table  # rich only for the command that prints it

    show([gpus_table(catalogue(), args.lang)])
    return 0


COMMAND = Command(
    name="gpus",
    help="list the GPU catalogue (names usable with --gpu) with its dense peaks",
    description=None,
    shared=Shared(lang_help="language of the table's labels"),
    add_arguments=lambda p: None,
    run=_gpus,
)

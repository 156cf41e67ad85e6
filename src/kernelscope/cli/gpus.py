"""``kernelscope gpus``: the GPU catalogue (names usable with ``--gpu``) with its dense peaks."""

from __future__ import annotations

import argparse

from ..knowledge.gpus import catalogue
from ..render.gpus import gpus_table
from .options import Command, Shared
from .output import show


def _gpus(args: argparse.Namespace) -> int:
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

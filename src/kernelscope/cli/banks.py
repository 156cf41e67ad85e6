"""``kernelscope banks``: shared-memory bank conflicts of one warp reading a 2-D ``__shared__`` tile (row or column
access) and the smallest row padding that removes them. Parses the options, calls :mod:`kernelscope.analysis.banks`
and hands the result to :mod:`kernelscope.render.banks`."""

from __future__ import annotations

import argparse
import sys

from ..errors import InputError
from .options import OUTPUT_HELP, Command, Shared
from .output import show, write_atomic

#: Analysis parameter -> the command-line flag an error names.
_FLAGS = {"dtype": "--dtype", "access": "--access", "tile": "--tile", "compute_capability": "--arch"}


def _add_banks_parser(b: argparse.ArgumentParser) -> None:
    b.add_argument("--dtype", required=True, metavar="TYPE", help="element type: float, half, double, __nv_bfloat16, char, short, int, long long (each also unsigned; "
                   "int8_t ... uint64_t too)")
    b.add_argument("--tile", required=True, metavar="ROWSxCOLS", help="the array T tile[ROWS][COLS], e.g. 32x32")
    b.add_argument("--access", required=True, metavar="row|column",
                   help="column: thread t reads tile[t][c] (down a column, as a transpose does); "
                   "row: thread t reads tile[r][t]")
    b.add_argument("--arch", metavar="ARCH", help="GPU architecture (sm_90, 8.6, ...); every supported one has 32 "
                   "banks of 4 bytes, so this only checks it and names it")


def _banks(args: argparse.Namespace) -> int:
    # the analysis and rich only for this command (every other command starts without them)
    from ..analysis.banks import bank_conflicts, parse_access, parse_dtype, parse_tile
    from ..analysis.occupancy import parse_compute_capability
    from ..render.banks import render_banks, renderables

    try:
        dtype = parse_dtype(args.dtype, "--dtype")
        rows, cols = parse_tile(args.tile, "--tile")
        access = parse_access(args.access, "--access")
        cc = None if args.arch is None else parse_compute_capability(args.arch, "--arch")
        report = bank_conflicts(dtype, rows, cols, access, cc)
    except InputError as exc:  # name the command-line flag rather than the API parameter
        if exc.source in _FLAGS:
            raise exc.relabelled(_FLAGS[exc.source]) from None
        raise
    if args.output:
        write_atomic(args.output, render_banks(report, args.format, args.lang))
    elif args.format == "table":
        show(renderables(report, args.lang))
    else:
        sys.stdout.write(render_banks(report, args.format, args.lang))
    return 0


COMMAND = Command(
    name="banks",
    help="shared-memory bank conflicts of a warp reading a 2-D __shared__ tile, and the padding that removes them",
    description="For T tile[ROWS][COLS] read by one warp of 32 threads, down a column (thread t reads tile[t][c]) "
    "or along a row (tile[r][t]): the n-way bank conflict of each warp request, wavefronts against the ideal, the "
    "distinct 32-bit words each bank serves, and the smallest padding (COLS+p elements per row) that makes it "
    "conflict-free. Model: 32 banks x 4 bytes, bank = (byte address / 4) mod 32, threads reading the same 32-bit "
    "word get it broadcast, 8-byte elements served per half-warp (CUDA C++ Programming Guide, Compute Capability "
    "5.x, Shared Memory).",
    shared=Shared(formats=("table", "json", "markdown"), lang=True,
                  output_help=OUTPUT_HELP),
    add_arguments=_add_banks_parser,
    run=_banks,
)

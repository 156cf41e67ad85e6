"""``kernelscope source REPORT``: where in the code a launch spends its time, from an Nsight Compute report's
per-instruction data: the hottest instructions and source lines, with the stall reasons and memory counters at each.
Calls :func:`kernelscope.api.source_file` and hands the result to :mod:`kernelscope.render.source`."""

from __future__ import annotations

import argparse
import sys

from .inputs import spooled
from .options import OUTPUT_HELP, Command, Shared
from .output import refuse_inputs, show, write_atomic


def _add_source_parser(p: argparse.ArgumentParser) -> None:
    p.add_argument("report", metavar="REPORT",
                   help="Nsight Compute report (.ncu-rep) profiled with the SourceCounters section (--set full)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--kernel", metavar="NAME",
                       help="every launch that NAME names and that holds per-instruction data: an exact kernel "
                       "name (function or demangled), or regex:PATTERN")
    which.add_argument("--launch", type=int, metavar="N", help="only the launch with index N (0-based, report order)")
    p.add_argument("--top", type=int, default=10, metavar="N",
                   help="how many instructions and source lines to show per launch (default: 10)")


def _source(args: argparse.Namespace) -> int:
    # NumPy, the analysis and rich only for this command
    from ..api import source_file
    from ..render.source import render_source, renderables

    if args.output:
        refuse_inputs([args.output], [args.report])
    with spooled([args.report]) as spools:
        result = spools.relabel(source_file(spools.path(args.report), kernel=args.kernel, launch=args.launch,
                                            top=args.top, sass="all" if args.format == "html" else "top"))
    if args.output:
        write_atomic(args.output, render_source(result, args.format, args.lang))
    elif args.format == "table":
        show(renderables(result, args.lang))
    else:
        sys.stdout.write(render_source(result, args.format, args.lang))
    return 0


COMMAND = Command(
    name="source",
    help="where in the code: the hottest instructions and source lines of a launch, with the stall reason at each",
    description="From the per-instruction data of an Nsight Compute report (Source Counters and instruction "
    "sampling: collect it with `ncu --section SourceCounters` or `--set full`, add `--import-source yes` for the "
    "source text, compile with `nvcc -lineinfo` for file and line): per selected launch (default: the longest launch "
    "that holds such data) the hottest instructions (warp samples by stall reason, executed instructions, active "
    "threads, global sectors and shared wavefronts against what the accesses need) and the hottest source lines, "
    "each with its dominant stall and what its own counters show.",
    shared=Shared(formats=("table", "json", "markdown", "html"), lang=True,
                  output_help=OUTPUT_HELP),
    add_arguments=_add_source_parser,
    run=_source,
)

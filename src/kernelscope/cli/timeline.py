"""``kernelscope timeline FILE...``: where the whole program's time goes (Nsight Systems exports, ``nsys stats``
output, PyTorch profiler traces)."""

from __future__ import annotations

import argparse
import sys

from ..api import diagnose_file, timeline_file
from ..errors import InputError
from ..ingest import TIMELINE_FORMATS
from ..render import FORMATS as TIMELINE_OUTPUTS
from .inputs import spooled
from .options import OUTPUT_HELP, Command, Shared
from .output import refuse_inputs, write_atomic


def _add_timeline_parser(t: argparse.ArgumentParser) -> None:
    t.add_argument("traces", nargs="+", metavar="FILE",
                   help="Nsight Systems SQLite export (nsys export --type sqlite), `nsys stats` output (text, "
                   "--format csv or table), or a PyTorch profiler trace (.json, .json.gz, a directory or .tar.gz)")
    t.add_argument("--top", type=int, default=10, metavar="N", help="rows per ranking (default 10)")
    t.add_argument("--kernels", nargs="+", metavar="REPORT", default=[],
                   help="Nsight Compute reports (.ncu-rep, CSV or text exports) of the same program: join the top "
                   "kernels with their diagnoses (bottleneck, top finding, estimated speedup) and the program speedup "
                   "fixing each would give (Amdahl); matched by demangled name, then grid/block")


def _timeline(args: argparse.Namespace) -> int:
    from ..analysis.timeline import join_kernels
    from ..render.timeline import render_timeline, renderables

    if args.top < 1:
        raise InputError("--top", f"must be at least 1, got {args.top}")
    if args.output:
        refuse_inputs([args.output], [*args.traces, *args.kernels])
    with spooled(args.traces) as spools:
        reports = [spools.relabel(rep) for path in args.traces
                   for rep in timeline_file(spools.path(path), args.input_format, args.top)]
    joins = None
    if args.kernels:  # the seeds' workflow in one command: Nsight Systems first, then Nsight Compute on the top kernels
        diagnosed = [diagnose_file(path) for path in args.kernels]
        joins = [join_kernels(rep, diagnosed, args.top) for rep in reports]
    if args.output:
        write_atomic(args.output, render_timeline(reports, args.format, args.lang, args.top, joins=joins))
    elif args.format == "table":
        from ..render.cjk import CJKConsole

        console = CJKConsole(soft_wrap=False)
        if not console.is_terminal:
            console.width = max(console.width, 160)  # piped output: no terminal width to respect
        console.print(*renderables(reports, args.lang, args.top, joins))
    else:
        sys.stdout.write(render_timeline(reports, args.format, args.lang, args.top, joins=joins))
    return 0


COMMAND = Command(
    name="timeline",
    help="where the whole program's time goes: Nsight Systems exports, nsys stats output, PyTorch profiler traces",
    description="Split the program's wall time into kernels, copies (by direction, pageable or pinned), memsets "
    "and GPU idle per device and stream (busy time as a union: never above 100%), rank kernels, copies and "
    "API calls, measure launch overhead, name the largest time black hole with its Amdahl projection, and run "
    "the Nsight Systems expert checks. With --kernels REPORT..., join the top kernels with their Nsight Compute "
    "diagnoses: Nsight Systems first, then Nsight Compute on the kernels that matter, in one command.",
    shared=Shared(
        input_formats=TIMELINE_FORMATS,
        input_format_help="format of the FILEs (default: auto, detected from their content)",
        formats=TIMELINE_OUTPUTS,
        lang_help="language of labels and findings",
        output_help=OUTPUT_HELP,
    ),
    add_arguments=_add_timeline_parser,
    run=_timeline,
)

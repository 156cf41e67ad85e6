"""``kernelscope timeline FILE...``: where the whole program's time goes (Nsight Systems exports, ``nsys stats``
output, PyTorch profiler traces)."""

from __future__ import annotations

import argparse
import sys

from ..api import timeline_file
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


def _timeline(args: argparse.Namespace) -> int:
    from ..render.timeline import render_timeline, renderables

    if args.top < 1:
        raise InputError("--top", f"must be at least 1, got {args.top}")
    if args.output:
        refuse_inputs([args.output], args.traces)
    with spooled(args.traces) as spools:
        reports = [spools.relabel(rep) for path in args.traces
                   for rep in timeline_file(spools.path(path), args.input_format, args.top)]
    if args.output:
        write_atomic(args.output, render_timeline(reports, args.format, args.lang, args.top))
    elif args.format == "table":
        from rich.console import Console

        console = Console(soft_wrap=False)
        if not console.is_terminal:
            console.width = max(console.width, 160)  # piped output: no terminal width to respect
        console.print(*renderables(reports, args.lang, args.top))
    else:
        sys.stdout.write(render_timeline(reports, args.format, args.lang, args.top))
    return 0


COMMAND = Command(
    name="timeline",
    help="where the whole program's time goes: Nsight Systems exports, nsys stats output, PyTorch profiler traces",
    description="Split the program's wall time into kernels, copies (by direction, pageable or pinned), memsets "
    "and GPU idle per device and stream (busy time as a union: never above 100%), rank kernels, copies and "
    "API calls, measure launch overhead, name the largest time black hole with its Amdahl projection, and run "
    "the Nsight Systems expert checks.",
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

"""``kernelscope fusion INPUT``: what fusing chains of memory-bound kernels would buy (the seed lesson 000, Q1), from
a program timeline (PyTorch profiler trace, Nsight Systems export) or from a kernel report holding the unfused
kernels (``--kernels a,b,c`` or ``--around NAME``). Parses the options, calls :mod:`kernelscope.analysis.fusion` /
:mod:`kernelscope.analysis.timeline.fusion` and hands the result to :mod:`kernelscope.render.fusion`."""

from __future__ import annotations

import argparse
import sys

from ..errors import InputError
from .options import OUTPUT_HELP, Command, Shared
from .output import refuse_inputs, write_atomic


def _add_fusion_parser(p: argparse.ArgumentParser) -> None:
    p.add_argument("input", metavar="INPUT",
                   help="a PyTorch profiler trace (record_shapes=True gives the bytes) or an Nsight Systems SQLite "
                   "export; or, with --kernels / --around, an Nsight Compute report (.ncu-rep or CSV) holding the "
                   "unfused kernels")
    p.add_argument("--kernels", metavar="A,B,C",
                   help="a kernel report: the chain's kernels in order, comma-separated (function names, or "
                   "substrings of the demangled names)")
    p.add_argument("--around", metavar="NAME",
                   help="a kernel report: the kernel NAME and its memory-bound neighbours in report order")
    p.add_argument("--top", type=int, default=10, metavar="N", help="candidates shown (default 10)")


def _fusion(args: argparse.Namespace) -> int:
    from ..render.fusion import render_fusion

    if args.top < 1:
        raise InputError("--top", key="at_least_one", values={"top": args.top})
    if args.kernels is not None and args.around is not None:
        raise InputError("--kernels", key="kernels_or_around")
    if args.output:
        refuse_inputs([args.output], [args.input])
    if args.kernels is not None or args.around is not None:
        source, estimates = "report", _from_report(args)
    else:
        source, estimates = "timeline", _from_timeline(args)
    if args.output:
        write_atomic(args.output, render_fusion(args.input, source, estimates, args.format, args.lang))
    elif args.format == "table":
        from ..render.fusion import renderables
        from .output import show

        show(renderables(args.input, estimates, args.lang))
    else:
        sys.stdout.write(render_fusion(args.input, source, estimates, args.format, args.lang))
    return 0


def _from_report(args: argparse.Namespace):
    from ..analysis.fusion import chain_in_report, report_estimate
    from ..api import diagnose_file

    diagnosed = diagnose_file(args.input)
    names = [] if args.kernels is None else [n.strip() for n in args.kernels.split(",") if n.strip()]
    chain = chain_in_report(diagnosed.kernels, names, args.around,
                            "--kernels" if args.kernels is not None else "--around")
    total = sum(k.duration_s for k in diagnosed.report.kernels if k.duration_s is not None)
    return [report_estimate(chain, total or None)]


def _from_timeline(args: argparse.Namespace):
    from ..analysis.timeline import analyse
    from ..ingest import load_timeline

    try:
        data = load_timeline(args.input)
    except InputError as exc:
        if getattr(exc, "key", None) in ("is_ncu_report", "is_kernel_profile"):
            raise InputError(args.input, "is a kernel report: name the chain with --kernels A,B,C or --around NAME",
                             key="fusion_needs_kernels") from None
        raise
    reports = analyse(data, args.top)
    return [e for rep in reports for e in rep.fusion][:args.top]


COMMAND = Command(
    name="fusion",
    help="what fusing chains of memory-bound kernels would save: from a trace, or from a kernel report",
    description="Find chains of memory-bound kernels (elementwise, activation, normalisation, reduction, copy) "
    "run back to back on one stream, each consuming the previous one's output, and estimate what fusing each "
    "would save: unfused vs fused DRAM bytes (from the operators' input shapes, a report's DRAM counters, or the "
    "chain assumed), the fused time at the bandwidth the kernels reached (prediction) and at the DRAM peak "
    "(bound), the saving per run, the runs per step and the program gain (Amdahl), with the fusion route that "
    "fits (torch.compile, a GEMM epilogue, a fused kernel).",
    shared=Shared(
        formats=("table", "json", "markdown"),
        lang=True,
        output_help=OUTPUT_HELP,
    ),
    add_arguments=_add_fusion_parser,
    run=_fusion,
)

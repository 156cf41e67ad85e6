"""``kernelscope roofline REPORT -o FILE``: the roofline chart (PNG or SVG) of a report's kernels."""

from __future__ import annotations

import argparse

from ..api import diagnose_report, load, resolve_gpu
from ..errors import InputError
from ..ingest import FORMATS as INPUT_FORMATS
from .options import GPU_HELP, Command, Shared
from .output import write_atomic


def _add_roofline_parser(r: argparse.ArgumentParser) -> None:
    r.add_argument("report", metavar="REPORT", help="profiler file (any input kernelscope diagnose reads)")
    r.add_argument("--kernel", metavar="REGEX", help="only kernels whose (demangled) name matches REGEX")
    r.add_argument("--top", type=int, metavar="N", help="only the N longest launches")


def _roofline(args: argparse.Namespace) -> int:
    from ..render import charts

    try:
        fmt = charts.chart_format(args.output)
    except ValueError as exc:
        raise InputError(args.output, str(exc)) from None
    gpu = resolve_gpu(args.gpu, args.spec)
    from ..render.progress import Steps, wanted

    with Steps(wanted(args.quiet, True)) as steps:
        step = steps.stage("roofline", 2)
        res = diagnose_report(load(args.report, args.input_format), gpu=gpu, kernel_regex=args.kernel, top=args.top)
        step()
        if not res.kernels:
            raise InputError(args.report, f"no kernel matches --kernel {args.kernel!r}" if args.kernel else "no kernel launches")
        if len(res.kernels) == 1 and (args.kernel is not None or args.top is not None):
            total = sum(g.total_duration_s for g in res.groups) or None
            data = charts.kernel_roofline_chart(res.kernels[0], args.lang, fmt, total)
        else:
            data = charts.report_roofline_chart(res, args.lang, fmt)
        step()
    write_atomic(args.output, data)
    return 0


COMMAND = Command(
    name="roofline",
    help="roofline chart (PNG or SVG) of a report's kernels, or of the kernels --kernel selects",
    description="Draw the roofline of a report: log-log FLOP/byte vs FLOP/s, a ceiling per precision and pipe "
    "of the GPU and the DRAM bandwidth slope with the ridge points, each kernel a point sized by its share of "
    "GPU time and coloured by its bottleneck class. One selected launch gets its own chart (every pipe it used).",
    shared=Shared(
        input_formats=INPUT_FORMATS,
        input_format_help="format of REPORT",
        lang_help="language of the chart's labels",
        quiet_help="no progress bar",
        gpu_help=GPU_HELP,
        output_help="chart file, .png or .svg (written atomically)",
        output_required=True,
    ),
    add_arguments=_add_roofline_parser,
    run=_roofline,
)

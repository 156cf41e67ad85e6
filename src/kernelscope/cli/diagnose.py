"""``kernelscope diagnose REPORT [REPORT...]``: roofline, Speed-of-Light and warp-stall diagnosis of every kernel."""

from __future__ import annotations

import argparse
import sys

from ..api import diagnose_file, load_criteria, resolve_gpu, source_for
from ..ingest import FORMATS as INPUT_FORMATS
from ..render import DIAGNOSE_FORMATS, render
from .options import GPU_HELP, OUTPUT_HELP, Command, Shared
from .output import write_atomic_files

#: Hottest instructions and source lines per launch in the where-in-the-code part of the HTML / Markdown output.
SOURCE_TOP = 10


def _add_arguments(d: argparse.ArgumentParser) -> None:
    d.add_argument("reports", nargs="+", metavar="REPORT",
                   help="Nsight Compute report (.ncu-rep), `ncu --csv` export (details or raw page), "
                   "or plain-numbers file (.toml/.json)")
    d.add_argument("--kernel", metavar="REGEX", help="only kernels whose (demangled) name matches REGEX")
    d.add_argument("--top", type=int, metavar="N", help="only the N longest launches of each report")
    d.add_argument("--criteria", metavar="FILE", help="TOML [criteria] table overriding the bottleneck-class thresholds")


def _diagnose(args: argparse.Namespace) -> int:
    gpu = resolve_gpu(args.gpu, args.spec)
    criteria = load_criteria(args.criteria) if args.criteria is not None else None
    from ..render.progress import Steps, wanted

    with Steps(wanted(args.quiet, bool(args.output))) as steps:
        step = steps.stage("reading", len(args.reports))
        results = []
        for path in args.reports:
            results.append(diagnose_file(path, gpu=gpu, kernel_regex=args.kernel, top=args.top, criteria=criteria,
                                         input_format=args.input_format))
            step()
        files: dict[str, str | bytes] = {}
        if args.format in ("html", "markdown"):  # where in the code, for the launches with per-instruction data
            sass = "top" if args.format == "html" else ()  # the Markdown shows lines only: no disassembly
            sources = [source_for(res, SOURCE_TOP, sass) for res in results]
        if args.format == "html":
            from ..render.html import count_work, to_html

            text = to_html(results, args.lang, steps.stage("charts", count_work(results)), sources)
        elif args.format == "markdown":
            from ..render.markdown import chart_files, to_markdown

            links = None
            if args.output:
                links, files = chart_files(results, args.lang, args.output, steps.stage("charts", 2 * len(results)))
            text = to_markdown(results, args.lang, links, sources)
        else:
            text = None
    if args.output:
        write_atomic_files({**files, args.output: text if text is not None else render(results, args.format, args.lang)})
    elif text is not None:
        sys.stdout.write(text)
    elif args.format == "table":
        from rich.console import Console

        from ..render.table import renderables

        Console(soft_wrap=False).print(*renderables(results, args.lang))
    else:
        sys.stdout.write(render(results, args.format, args.lang))
    return 0


COMMAND = Command(
    name="diagnose",
    help="roofline, Speed-of-Light and warp-stall diagnosis of every kernel in Nsight Compute reports",
    description="Diagnose every profiled kernel: where GPU time goes, then per kernel its duration, "
    "Speed-of-Light, arithmetic intensity and bound, achieved vs attainable FLOP/s, top warp stalls "
    "and the advice that matters most.",
    shared=Shared(
        input_formats=INPUT_FORMATS,
        input_format_help="format of the REPORT files (default: auto, detected from their content)",
        formats=DIAGNOSE_FORMATS,
        format_help="output format (default: table); html: one self-contained page with charts; markdown "
        "written with -o also writes its charts beside it (REPORT_roofline.svg ...)",
        lang_help="language of labels and advice",
        quiet_help="no progress bar (it is only shown on a terminal anyway)",
        gpu_help=GPU_HELP,
        output_help=OUTPUT_HELP,
    ),
    add_arguments=_add_arguments,
    run=_diagnose,
)

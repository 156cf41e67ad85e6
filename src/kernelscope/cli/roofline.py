"""``kernelscope roofline REPORT -o FILE``: the roofline chart (PNG or SVG) of a report's kernels; with ``--levels``
the hierarchical roofline (a ceiling and a point per memory level: L1, L2, DRAM) of one launch."""

from __future__ import annotations

import argparse

from ..api import diagnose_report, load, no_kernel_matches, resolve_gpu
from ..errors import InputError
from ..ingest import FORMATS as INPUT_FORMATS
from .inputs import spooled
from .options import GPU_HELP, Command, Shared
from .output import chart_font_note, refuse_inputs, write_atomic


def _add_roofline_parser(r: argparse.ArgumentParser) -> None:
    r.add_argument("report", metavar="REPORT", help="profiler file (any input kernelscope diagnose reads)")
    r.add_argument("--kernel", metavar="REGEX", help="only kernels whose (demangled) name matches REGEX")
    r.add_argument("--top", type=int, metavar="N", help="only the N longest launches")
    r.add_argument("--launch", type=int, metavar="N",
                   help="only the launch with index N (0-based, report order; the [N] of the charts): its own chart")
    r.add_argument("--levels", action="store_true",
                   help="the hierarchical roofline of one launch (--launch N, else the first selected launch): a "
                   "bandwidth ceiling and a point per memory level (L1, L2, DRAM), the limiting level named")


def _pick_launch(res, launch: int | None):
    """The selected launch with index ``launch`` (None: None).

    Raises:
        InputError: a negative index, or no selected launch has it (the message lists the selected indices).
    """
    if launch is None:
        return None
    if launch < 0:
        raise InputError("--launch", f"expected a launch index >= 0, got {launch}")
    for d in res.kernels:
        if d.kernel.index == launch:
            return d
    indices = [d.kernel.index for d in res.kernels]
    shown = ", ".join(map(str, indices[:12])) + (", ..." if len(indices) > 12 else "")
    raise InputError("--launch", f"no launch {launch} among the selected launches ({shown})")


def _hierarchy(d, res, lang: str, fmt: str, report: str) -> bytes:
    """The hierarchical roofline of launch ``d`` (one of ``res.kernels``).

    Raises:
        InputError: the launch has none (no FLOPs, no level's bytes ...): the message says why, and which
            selected launches have one.
    """
    from ..render import charts

    data = charts.hierarchy_chart(d, lang, fmt)
    if data is None:
        reason = charts.hierarchy_reason(charts.why_no_hierarchy(d) or "no_roofline", "en")  # type: ignore[arg-type]
        others = [str(k.kernel.index) for k in res.kernels if charts.has_hierarchy(k)]
        hint = f"; launches with one: {', '.join(others[:12])}{', ...' if len(others) > 12 else ''} (--launch N)" if others else ""
        raise InputError(report, f"launch {d.kernel.index} ({d.kernel.name}): no hierarchical roofline: {reason}{hint}")
    return data


def _roofline(args: argparse.Namespace) -> int:
    from ..render import charts

    try:
        fmt = charts.chart_format(args.output)
    except ValueError as exc:
        raise InputError(args.output, str(exc)) from None
    refuse_inputs([args.output], [args.report, args.spec])
    from ..render.progress import Steps, wanted

    with spooled([args.report, args.spec]) as spools, Steps(wanted(args.quiet, True)) as steps:
        gpu = resolve_gpu(args.gpu, spools.path(args.spec))
        step = steps.stage("roofline", 2)
        res = diagnose_report(load(spools.path(args.report), args.input_format), gpu=gpu, kernel_regex=args.kernel,
                              top=args.top)
        step()
        if not res.kernels:
            if args.kernel is None:
                raise InputError(args.report, "no kernel launches")
            raise no_kernel_matches(args.report, "--kernel", args.kernel, (k.name for k in res.report.kernels))
        res = spools.relabel(res)
        chart_font_note(args.lang)
        one = _pick_launch(res, args.launch)
        if args.levels:
            data = _hierarchy(one or res.kernels[0], res, args.lang, fmt, args.report)
        elif one is not None or (len(res.kernels) == 1 and (args.kernel is not None or args.top is not None)):
            total = sum(g.total_duration_s for g in res.groups) or None
            data = charts.kernel_roofline_chart(one or res.kernels[0], args.lang, fmt, total)
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
    "GPU time and coloured by its bottleneck class. One selected launch (--launch N) gets its own chart (every "
    "pipe it used). --levels draws one launch's hierarchical roofline instead: a bandwidth ceiling per memory "
    "level whose peak the report measures (L1, L2, DRAM), the compute ceiling, and a point per level, the level "
    "closest to its ceiling named as the limiting one.",
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

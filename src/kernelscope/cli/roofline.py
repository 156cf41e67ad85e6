"""``kernelscope roofline REPORT -o FILE``: the roofline chart (PNG or SVG) of a report's kernels; with ``--levels``
the hierarchical roofline (a ceiling and a point per memory level: L1, L2, DRAM) of one launch. ``--format json``
(``table``, ``markdown``) gives the numbers that chart draws instead, without matplotlib."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import InputError
from ..ingest import FORMATS as INPUT_FORMATS
from .inputs import spooled
from .options import GPU_HELP, Command, Shared
from .output import chart_font_note, emit, emit_tables, refuse_inputs, write_atomic


def _add_roofline_parser(r: argparse.ArgumentParser) -> None:
    r.add_argument("report", metavar="REPORT", help="profiler file (any input kernelscope diagnose reads)")
    r.add_argument("--kernel", metavar="NAME",
                   help="only the kernels NAME names: an exact kernel name (function or demangled), or regex:PATTERN")
    r.add_argument("--top", type=int, metavar="N", help="only the N longest launches")
    r.add_argument("--launch", type=int, metavar="N",
                   help="only the launch with index N (0-based, report order; the [N] of the charts): its own chart")
    r.add_argument("--levels", action="store_true",
                   help="the hierarchical roofline of one launch (--launch N, else the longest selected launch that "
                   "has one): a bandwidth ceiling and a point per memory level (L1, L2, DRAM), the limiting level named")


def _pick_launch(res, launch: int | None):
    """The selected launch with index ``launch`` (None: None).

    Raises:
        InputError: a negative index, or no selected launch has it (the message lists the selected indices).
    """
    if launch is None:
        return None
    if launch < 0:
        raise InputError("--launch", key="launch_index_negative", values={"launch": launch})
    for d in res.kernels:
        if d.kernel.index == launch:
            return d
    indices = [d.kernel.index for d in res.kernels]
    shown = ", ".join(map(str, indices[:12])) + (", ..." if len(indices) > 12 else "")
    raise InputError("--launch", f"no launch {launch} among the selected launches ({shown})", key="no_launch_index",
                     values={"launch": launch, "shown": shown})


def _default_levels_launch(res, lang: str):
    """``--levels`` without ``--launch``: the longest selected launch that has a hierarchical roofline (like
    ``source``'s longest launch with per-instruction data; never the first launch merely for coming first, often a
    short warm-up), said on standard error when there was a choice; the longest launch when none has one (the
    error then says why and which launches have one)."""
    import sys

    from ..analysis.selection import longest_launch
    from ..knowledge.messages import frame
    from ..render.common import Fmt
    from ..render.roofline_data import has_hierarchy

    with_one = [k for k in res.kernels if has_hierarchy(k)]
    d = longest_launch(with_one or res.kernels, lambda x: x.kernel)
    if with_one and len(res.kernels) > 1:
        f = Fmt(lang)
        print(frame("note", lang, message=frame("levels_launch", lang, index=d.kernel.index, name=d.kernel.name,
                                                   duration=f.time(d.kernel.duration_s))), file=sys.stderr)
    return d


def _no_hierarchy(d, res, report: str) -> InputError:
    """Why launch ``d`` (one of ``res.kernels``) has no hierarchical roofline (no FLOPs, no level's bytes ...), and
    which selected launches have one."""
    from ..render.common import Fmt
    from ..render.roofline_data import has_hierarchy, hierarchy_reason, why_no_hierarchy

    key = why_no_hierarchy(d) or "no_roofline"
    no_peak = [n for n in d.notes if n.key.startswith("no_peak")]
    # no roofline because the GPU's ceilings lack the launch's pipe: say which pipe and GPU, not just "no roofline"
    reason = Fmt("en").notes(no_peak) if key == "no_roofline" and no_peak else hierarchy_reason(key, "en")
    others = [str(k.kernel.index) for k in res.kernels if has_hierarchy(k)]
    hint = f"; launches with one: {', '.join(others[:12])}{', ...' if len(others) > 12 else ''} (--launch N)" if others else ""
    return InputError(report, key="no_hierarchical_roofline",
        values={"index": d.kernel.index, "name": d.kernel.name, "reason": reason, "hint": hint})


def _total_s(res) -> float | None:
    return sum(g.total_duration_s for g in res.groups) or None


def _chart(which: str, d, res, args: argparse.Namespace, fmt: str) -> bytes:
    """The chart file's bytes: the hierarchical roofline of ``d`` (``levels``), the roofline of ``d`` alone
    (``launch``) or of every selected launch (``report``).

    Raises:
        InputError: ``levels`` and the launch has no hierarchical roofline.
    """
    from ..render import charts

    chart_font_note(args.lang, fmt)
    if which == "levels":
        data = charts.hierarchy_chart(d, args.lang, fmt)
        if data is None:
            raise _no_hierarchy(d, res, args.report)
        return data
    if which == "launch":
        return charts.kernel_roofline_chart(d, args.lang, fmt, _total_s(res))
    return charts.report_roofline_chart(res, args.lang, fmt)


def _numbers(which: str, d, res, args: argparse.Namespace):
    """The numbers of the chart :func:`_chart` would draw (:class:`kernelscope.render.roofline_data.RooflineData`;
    no matplotlib)."""
    from ..render import roofline_data

    if which == "levels":
        data = roofline_data.hierarchy_data(d, _total_s(res))
        if data is None:
            raise _no_hierarchy(d, res, args.report)
        return data
    if which == "launch":
        return roofline_data.launch_data(d, args.lang, _total_s(res))
    return roofline_data.report_data(res, args.lang)


def _roofline(args: argparse.Namespace) -> int:
    fmt = None
    if args.format == "chart":
        from ..render import charts

        if args.output is None:
            raise InputError("-o/--output", "missing; the chart is written to a file: -o chart.svg or -o chart.png "
                             "(--format json, table or markdown print its numbers)", key="chart_output_missing")
        try:
            fmt = charts.chart_format(args.output)
        except ValueError as exc:
            raise InputError(args.output, str(exc), key="chart_file_name",
                             values={"name": Path(args.output).name}) from None
    refuse_inputs([args.output], [args.report, args.spec])
    from ..api import diagnose_report, load, no_kernel_matches, resolve_gpu  # (loaded for this command only)
    from ..render.progress import Steps, wanted

    with spooled([args.report, args.spec]) as spools, Steps(wanted(args.quiet, True)) as steps:
        gpu = resolve_gpu(args.gpu, spools.path(args.spec))
        step = steps.stage("roofline", 2)
        res = diagnose_report(load(spools.path(args.report), args.input_format), gpu=gpu, kernel=args.kernel,
                              top=args.top)
        step()
        if not res.kernels:
            if args.kernel is None:
                raise InputError(args.report, "no kernel launches", key="no_kernel_launches")
            raise no_kernel_matches(args.report, "--kernel", args.kernel, (k.name for k in res.report.kernels))
        res = spools.relabel(res)
        one = _pick_launch(res, args.launch)
        if args.levels:
            which = "levels"
        elif one is not None or (len(res.kernels) == 1 and (args.kernel is not None or args.top is not None)):
            which = "launch"
        else:
            which = "report"
        d = one or (_default_levels_launch(res, args.lang) if args.levels else res.kernels[0])
        out = _chart(which, d, res, args, fmt) if fmt is not None else _numbers(which, d, res, args)
        step()
    if fmt is not None:
        write_atomic(args.output, out)
        return 0
    if args.format == "json":
        from ..render.json_commands import roofline_json

        return emit(args.output, roofline_json(out, res.report.path, args.lang))
    from ..render.roofline_table import renderables

    return emit_tables(args.output, renderables(out, res.report.path, args.lang), args.format)


COMMAND = Command(
    name="roofline",
    help="roofline chart (PNG or SVG) of a report's kernels, or of the kernels --kernel selects; or its numbers "
    "(--format json, table, markdown)",
    description="Draw the roofline of a report: log-log FLOP/byte vs FLOP/s, a ceiling per precision and pipe "
    "of the GPU and the DRAM bandwidth slope with the ridge points, each kernel a point sized by its share of "
    "GPU time and coloured by its bottleneck class. One selected launch (--launch N) gets its own chart (every "
    "pipe it used). --levels draws one launch's hierarchical roofline instead: a bandwidth ceiling per memory "
    "level whose peak the report measures (L1, L2, DRAM), the compute ceiling, and a point per level, the level "
    "closest to its ceiling named as the limiting one.",
    shared=Shared(
        input_formats=INPUT_FORMATS,
        input_format_help="format of REPORT",
        formats=("chart", "json", "table", "markdown"),
        format_help="output format (default: chart, written to -o FILE.svg or .png); json, table, markdown: the "
        "numbers the chart draws (ceilings, ridge points, each launch's points), on standard output or to -o FILE",
        format_default="chart",
        lang=True,
        quiet_help="no progress bar",
        gpu_help=GPU_HELP,
        output_help="chart file, .png or .svg; with --format json, table or markdown the text file (written "
        "atomically)",
    ),
    add_arguments=_add_roofline_parser,
    run=_roofline,
)

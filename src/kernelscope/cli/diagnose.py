"""``kernelscope diagnose REPORT [REPORT...]``: roofline, Speed-of-Light and warp-stall diagnosis of every kernel."""

from __future__ import annotations

import argparse
import gc
import sys
from typing import Callable

from ..errors import ArgumentValueError
from ..ingest import FORMATS as INPUT_FORMATS
from ..ingest import probe_reports, recognised
from ..render import DIAGNOSE_FORMATS, render
from ..render.common import LAUNCH_VIEWS
from ..render.arrow import diagnosis_table
from ..distributed.map import DIAGNOSE_SUFFIXES, diagnose_one, diagnose_source_one, in_process, jobs_from, run_map
from ..distributed.map import add_arguments as add_map_arguments
from .dataset import add_dataset_argument, check as check_dataset, save as save_dataset
from .batch import Batch
from .inputs import Spools, spooled
from .options import GPU_HELP, OUTPUT_HELP, Command, Shared
from .output import chart_font_note, is_stream, refuse_inputs, show, write_atomic_files

#: Hottest instructions and source lines per launch in the where-in-the-code part of the HTML / Markdown output.
SOURCE_TOP = 10


def _add_arguments(d: argparse.ArgumentParser) -> None:
    d.add_argument("reports", nargs="+", metavar="REPORT",
                   help="Nsight Compute report (.ncu-rep), `ncu --csv` export (details or raw page), "
                   "or plain-numbers file (.toml/.json); a directory (the files in it kernelscope reads) or a glob "
                   "('reports/**/*.ncu-rep', expanded by kernelscope, sorted)")
    d.add_argument("--kernel", metavar="NAME",
                   help="only the kernels NAME names: an exact kernel name (function or demangled), or regex:PATTERN")
    d.add_argument("--top", type=int, metavar="N", help="only the N longest launches of each report")
    d.add_argument("--criteria", metavar="FILE", help="TOML [criteria] table overriding the bottleneck-class thresholds")
    d.add_argument("--launches", choices=LAUNCH_VIEWS, default="grouped",
                   help="grouped (default): one panel per kernel, grid and block, with the spread across its repeated "
                   "launches and those that differ (the JSON keeps every launch and adds the groups); all: one panel "
                   "per launch")
    d.add_argument("--useful-flops", metavar="NAME=COUNT", action="append", type=_useful_flops, default=[],
                   help="FLOPs the kernel NAME's algorithm needs per launch (repeatable): shown beside the executed "
                   "FLOPs the counters give (padding, masked lanes, tensor-tile waste included)")
    add_map_arguments(d)
    add_dataset_argument(d)


def _useful_flops(text: str) -> tuple[str, float]:
    """``NAME=COUNT`` (the last ``=`` parts them: a name may hold one) -> (name, FLOP)."""
    name, sep, count = text.rpartition("=")
    try:
        value = float(count.replace(",", "").replace("_", ""))
    except ValueError:
        value = float("nan")
    if not sep or not name.strip() or not value >= 0 or value == float("inf"):
        raise ArgumentValueError("useful_flops_value", {"text": text})
    return name.strip(), value


class _Collector:
    """The cyclic garbage collector paused while reports are read, diagnosed and rendered: a whole model's profile
    (thousands of launches) makes millions of long-lived objects that every full collection would walk again (a
    third of the run time at 5,000 launches), and almost no cyclic garbage. Before charts are drawn (matplotlib
    makes cycles) it runs again, over a heap frozen first so that what is alive then is not walked again."""

    def __enter__(self) -> "_Collector":
        self.was_enabled = gc.isenabled()
        gc.disable()
        return self

    def charts(self) -> None:
        """Collect again from here on (the objects alive now frozen), as it was before."""
        gc.freeze()
        if self.was_enabled:
            gc.enable()

    def __exit__(self, *exc: object) -> None:
        gc.unfreeze()
        if self.was_enabled:
            gc.enable()


def _diagnose(args: argparse.Namespace) -> int:
    with _Collector() as collector:
        return _diagnose_all(args, collector)


def _diagnose_all(args: argparse.Namespace, collector: _Collector) -> int:
    batch = Batch(args.keep_going)
    args.reports = batch.expand(args.reports, DIAGNOSE_SUFFIXES, recognise=recognised)  # dirs and globs -> files
    inputs = [*args.reports, args.criteria, args.spec]
    if args.output:
        refuse_inputs([args.output], inputs)
    check_dataset(args)  # --format parquet / --dataset: pyarrow and the folder, before any work
    with spooled(inputs) as spools:
        with batch.guard(len(args.reports)):
            text, files, results = _run(args, spools, collector, batch)
        if not results:  # --keep-going and every input failed: nothing to report
            return batch.close(DIAGNOSE_SUFFIXES, len(args.reports), args.lang)
        if files:
            refuse_inputs(files, inputs)  # a chart beside the output must not be an input either
    if not save_dataset(args, "diagnose", results, diagnosis_table):
        _write(args, text, files, results)
    return batch.close(DIAGNOSE_SUFFIXES, len(args.reports), args.lang)


def _write(args: argparse.Namespace, text: str | list[bytes] | None, files: dict[str, str | bytes],
           results: list) -> None:
    """Write the diagnoses to ``-o`` (with the chart files) or standard output, in ``--format``."""
    if text is None and args.format == "json":  # the JSON as UTF-8 bytes, never decoded and encoded again
        from ..knowledge import check_lang
        from ..render.json import to_json_pieces

        check_lang(args.lang)
        text = to_json_pieces(results, args.lang)
    if args.output:
        write_atomic_files({**files, args.output: text if text is not None else render(results, args.format, args.lang,
                                                                                       args.launches, args.details)})
    elif isinstance(text, list):
        _write_bytes(text)
    elif text is not None:
        sys.stdout.write(text)
    elif args.format == "table":
        from ..render.table import renderables

        show(renderables(results, args.lang, args.launches, args.details))
    else:
        sys.stdout.write(render(results, args.format, args.lang, args.launches, args.details))


def _write_bytes(data: list[bytes]) -> None:
    """UTF-8 ``data``, in pieces, to standard output: to its binary buffer where it has one (a redirected stream in
    tests may not: decoded there)."""
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        sys.stdout.write(b"".join(data).decode("utf-8"))
        return
    sys.stdout.flush()
    buffer.writelines(data)
    buffer.flush()


def _run(args: argparse.Namespace, spools: Spools, collector: _Collector,
         batch: Batch) -> tuple[str | None, dict[str, str | bytes], list]:
    """Read and diagnose every report, then render the formats that need more than the diagnoses (HTML, Markdown:
    the where-in-the-code views and the charts): (their text or None, the chart files to write, the diagnoses)."""
    from ..api import load_criteria, no_kernel_matches, resolve_gpu  # (loaded for this command only)

    gpu = resolve_gpu(args.gpu, spools.path(args.spec))
    criteria = load_criteria(spools.path(args.criteria)) if args.criteria is not None else None
    from ..render.progress import Steps, wanted

    with Steps(wanted(args.quiet, bool(args.output))) as steps:
        step = steps.stage("reading", len(args.reports))
        useful = dict(args.useful_flops)
        jobs = jobs_from(args.jobs)
        if in_process(jobs, len(args.reports), args.engine):  # a worker probes the reports it reads itself
            probe_reports([spools.path(path) for path in args.reports])  # a damaged report: one line, not an abort
        options = dict(gpu=gpu, kernel=args.kernel, top=args.top, criteria=criteria, input_format=args.input_format,
                       useful_flops=useful)
        # The map: each report read and diagnosed alone (this process, a process pool or Ray tasks), in input order;
        # for HTML / Markdown, where in the code too (the launches with per-instruction data), from the same read.
        sources = encoded = None
        if args.format in ("html", "markdown"):
            where = (SOURCE_TOP, "top" if args.format == "html" else (), args.launches)  # Markdown: lines, no SASS
            both = run_map(diagnose_source_one, [(spools.path(path), options, where) for path in args.reports],
                           jobs=jobs, engine=args.engine, address=args.address, step=step, failed=batch.failed)
            results, sources = [rd for rd, _ in both], [spools.relabel(src) for _, src in both]
        elif _one_document(args):  # one report's JSON: its launches diagnosed and encoded side by side
            results, encoded = _encoded(args, spools.path(args.reports[0]), options, jobs, step, batch)
        else:
            results = run_map(diagnose_one, [(spools.path(path), options) for path in args.reports],
                              jobs=jobs, engine=args.engine, address=args.address, step=step, failed=batch.failed)
        if not results:
            return None, {}, results
        for name in useful:  # a name no report holds is a typo, not a silent no-op
            if not any(name in (k.name, k.demangled_name) for res in results for k in res.report.kernels):
                raise no_kernel_matches("--useful-flops", "--useful-flops", name,
                                        (k.name for res in results for k in res.report.kernels))
        if args.kernel is not None and not any(res.kernels for res in results) and not any(
                enc.launches for enc in encoded or ()):
            raise no_kernel_matches(spools.label(results[0].report.path) if len(results) == 1 else "--kernel",
                                    "--kernel", args.kernel, (k.name for res in results for k in res.report.kernels))
        files: dict[str, str | bytes] = {}
        results = [spools.relabel(res) for res in results]  # every read done: name the inputs as given
        text = None
        if encoded is not None:
            from ..knowledge import check_lang
            from ..render.json import to_json_pieces

            check_lang(args.lang)
            text = to_json_pieces(results, args.lang, encoded)
        if args.format in ("html", "markdown"):
            collector.charts()
        if args.format == "html":
            from ..render.html import count_work, to_html

            text = to_html(results, args.lang, steps.stage("charts", count_work(results, args.launches)), sources,
                           args.launches)
        elif args.format == "markdown":
            from ..render.markdown import chart_files, to_markdown

            links = None
            if args.output and not is_stream(args.output):  # charts beside a file, none beside a stream
                chart_font_note(args.lang, "svg")
                links, files = chart_files(results, args.lang, args.output, steps.stage("charts", 2 * len(results)),
                                           args.launches)
            text = to_markdown(results, args.lang, links, sources, args.launches, args.details)
    return text, files, results


def _one_document(args: argparse.Namespace) -> bool:
    """Whether the output is the JSON of one report read here (no dataset beside it): its launches may then be
    diagnosed and encoded by worker processes (:mod:`.launch_pool`)."""
    return (args.format == "json" and len(args.reports) == 1 and args.engine == "local"
            and not getattr(args, "dataset", None))


def _encoded(args: argparse.Namespace, path: str, options: dict, jobs: int, step: Callable[[], None],
             batch: Batch) -> tuple[list, list | None]:
    """:func:`.launch_pool.diagnose_encoded` of the one report: ([its diagnosis], [its encoded launches]); with
    ``--keep-going`` a refusal is kept in the batch (([], None)), as the per-file map keeps it."""
    from ..errors import InputError
    from .launch_pool import diagnose_encoded

    if jobs < 1:
        raise InputError("--jobs", key="jobs_at_least_one", values={"jobs": jobs})
    try:
        res, enc = diagnose_encoded(path, options, args.lang, jobs, step)
    except InputError as exc:
        if batch.failed is None:
            raise
        batch.failed.append(exc)
        return [], None
    return [res], [enc]


COMMAND = Command(
    name="diagnose",
    help="roofline, Speed-of-Light and warp-stall diagnosis of every kernel in Nsight Compute reports",
    description="Diagnose every profiled kernel: where GPU time goes, then per kernel its duration, "
    "Speed-of-Light, arithmetic intensity and bound, achieved vs attainable FLOP/s, top warp stalls "
    "and the advice that matters most.",
    shared=Shared(
        input_formats=INPUT_FORMATS,
        input_format_help="format of the REPORT files (default: auto, detected from their content)",
        formats=(*DIAGNOSE_FORMATS, "parquet"),
        format_help="output format (default: table); html: one self-contained page with charts; markdown "
        "written with -o also writes its charts beside it (REPORT_roofline.svg ...)",
        lang=True,
        quiet_help="no progress bar (it is only shown on a terminal anyway)",
        gpu_help=GPU_HELP,
        output_help=OUTPUT_HELP,
        details=True,
    ),
    add_arguments=_add_arguments,
    run=_diagnose,
)

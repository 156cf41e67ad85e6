"""``kernelscope timeline FILE...``: where the whole program's time goes (Nsight Systems exports, ``nsys stats``
output, PyTorch profiler traces)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace

from ..errors import InputError
from ..ingest import TIMELINE_FORMATS, recognised
from ..render import FORMATS as TIMELINE_OUTPUTS
from ..render.arrow import timeline_table
from ..render.brief import TOP_ROWS
from ..distributed.map import TIMELINE_SUFFIXES, expand, jobs_from, run_map, timeline_one, timeline_rank_one
from ..distributed.map import add_arguments as add_map_arguments
from .dataset import add_dataset_argument, check as check_dataset, save as save_dataset
from .batch import Batch
from .inputs import spooled
from .options import OUTPUT_HELP, TIMELINE_DETAILS_HELP, Command, Shared
from .output import refuse_inputs, show, write_atomic


def _add_timeline_parser(t: argparse.ArgumentParser) -> None:
    t.add_argument("traces", nargs="+", metavar="FILE",
                   help="Nsight Systems SQLite export (nsys export --type sqlite), `nsys stats` output (text, "
                   "--format csv or table), or a PyTorch profiler trace (.json, .json.gz, a directory or .tar.gz); "
                   "a directory of PyTorch profiler traces is one multi-rank program (its files are the ranks; "
                   "refused when they record different world sizes or GPUs: give a glob of its files to analyse each "
                   "as its own program), any other directory gives its files, each its own program; a glob is "
                   "expanded by kernelscope, sorted")
    t.add_argument("--as-ranks", action="store_true",
                   help="the inputs (files, directories, globs) are the ranks of ONE program: each rank's trace is "
                   "read and analysed alone (memory of about one file; with --jobs / --engine ray) into a small "
                   "summary (every rank of an archive or directory of traces), then reduced: program wall (the "
                   "slowest rank's), per-rank computation / communication unions and collective wait, the straggler "
                   "(the longest own work: wall minus collective wait), program projections beyond the waits and "
                   "the cross-rank imbalance of the top kernels; a directory gives its files; traces of different "
                   "runs (world size, GPU) are refused; not with --kernels or parquet output")
    add_map_arguments(t)
    add_dataset_argument(t)
    t.add_argument("--top", type=int, default=None, metavar="N",
                   help="rows per ranking (default 10; the short report without --details shows 5)")
    t.add_argument("--kernels", nargs="+", metavar="REPORT", default=[],
                   help="Nsight Compute reports (.ncu-rep, CSV or text exports) of the same program: join the top "
                   "kernels with their diagnoses (bottleneck, top finding, estimated speedup) and the program speedup "
                   "fixing each would give (Amdahl); matched by demangled name, then grid/block")


def _timeline(args: argparse.Namespace) -> int:
    from ..analysis.timeline import join_kernels
    from ..render.timeline import render_timeline, renderables

    shown = args.top if args.top is not None else 10 if args.details else TOP_ROWS  # rows the report shows
    args.top = 10 if args.top is None else args.top
    if args.top < 1:
        raise InputError("--top", key="at_least_one", values={"top": args.top})
    if args.as_ranks:
        return _as_ranks(args)
    batch = Batch(args.keep_going)
    args.traces = batch.expand(args.traces, TIMELINE_SUFFIXES, keep_kineto_dirs=True,
                               recognise=lambda f: recognised(f, timeline=True))
    if args.output:
        refuse_inputs([args.output], [*args.traces, *args.kernels])
    check_dataset(args)  # --format parquet / --dataset: pyarrow and the folder, before any work
    from ..render.progress import Steps, wanted

    with batch.guard(len(args.traces)), spooled(args.traces) as spools, \
            Steps(wanted(getattr(args, "quiet", False), bool(args.output))) as steps:
        # The map: each input read and analysed alone (this process, a process pool or Ray tasks), in input order.
        per_file = run_map(timeline_one, [(spools.path(path), args.input_format, args.top) for path in args.traces],
                           jobs=jobs_from(args.jobs), engine=args.engine, address=args.address,
                           step=steps.stage("reading", len(args.traces)), failed=batch.failed)
        reports = [spools.relabel(rep) for reps in per_file for rep in reps]
    if not per_file:  # --keep-going and every input failed: nothing to report
        return batch.close(TIMELINE_SUFFIXES, len(args.traces), args.lang)
    joins = None
    if args.kernels:  # the seeds' workflow in one command: Nsight Systems first, then Nsight Compute on the top kernels
        from ..api import diagnose_file  # (the diagnosis only with --kernels)

        diagnosed = [diagnose_file(path) for path in args.kernels]
        joins = [join_kernels(rep, diagnosed, args.top) for rep in reports]
        _warn_other_gpus(reports, diagnosed, args.lang)
    if save_dataset(args, "timeline", reports, timeline_table):
        return batch.close(TIMELINE_SUFFIXES, len(args.traces), args.lang)
    if args.output:
        write_atomic(args.output, render_timeline(reports, args.format, args.lang, shown, joins=joins,
                                                  details=args.details))
    elif args.format == "table":
        show(renderables(reports, args.lang, shown, joins, args.details))
    else:
        sys.stdout.write(render_timeline(reports, args.format, args.lang, shown, joins=joins, details=args.details))
    return batch.close(TIMELINE_SUFFIXES, len(args.traces), args.lang)


def _warn_other_gpus(reports: list, diagnosed: list, lang: str) -> None:
    """One line on standard error per ``--kernels`` report profiled on a GPU none of the traces ran on."""
    from ..analysis.timeline.join import other_gpus
    from ..knowledge.messages import frame

    seen = set()
    for rep in reports:
        for path, gpu, trace in other_gpus(rep, diagnosed):
            if path not in seen:
                seen.add(path)
                print(frame("note", lang, message=frame("kernels_other_gpu", lang, report=path, gpu=gpu, trace=trace)),
                      file=sys.stderr)


def _as_ranks(args: argparse.Namespace) -> int:
    """``--as-ranks``: the map keeps one small summary per rank file; the reduce needs only those."""
    from ..analysis.timeline.ranks import reduce_ranks
    from ..render.progress import Steps, wanted
    from ..render.timeline_ranks import ranks_renderables, render_ranks

    if args.kernels:
        raise InputError("--kernels", key="kernels_with_as_ranks")
    if args.keep_going:
        raise InputError("--keep-going", key="keep_going_with_as_ranks")
    if args.format == "parquet" or getattr(args, "dataset", None):
        raise InputError("--as-ranks", key="as_ranks_no_parquet")
    args.traces = expand(args.traces, TIMELINE_SUFFIXES)  # a directory gives its files: one rank each
    if args.output:
        refuse_inputs([args.output], args.traces)
    with spooled(args.traces) as spools, Steps(wanted(getattr(args, "quiet", False), bool(args.output))) as steps:
        per_input = run_map(timeline_rank_one,
                            [(spools.path(path), path, args.input_format, i) for i, path in enumerate(args.traces)],
                            jobs=jobs_from(args.jobs), engine=args.engine, address=args.address,
                            step=steps.stage("reading", len(args.traces)))
    # every rank of every input (an archive or a directory of traces holds several), in input order
    summaries = [replace(s, order=i) for i, s in enumerate(s for ranks in per_input for s in ranks)]
    try:
        reduced = reduce_ranks(summaries, top=args.top)
    except ValueError as exc:
        raise InputError("--as-ranks", str(exc)) from None
    if args.output:
        write_atomic(args.output, render_ranks(reduced, args.format, args.lang))
    elif args.format == "table":
        show(ranks_renderables(reduced, args.lang))
    else:
        sys.stdout.write(render_ranks(reduced, args.format, args.lang))
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
        formats=(*TIMELINE_OUTPUTS, "parquet"),
        lang=True,
        output_help=OUTPUT_HELP,
        details=TIMELINE_DETAILS_HELP,
    ),
    add_arguments=_add_timeline_parser,
    run=_timeline,
)

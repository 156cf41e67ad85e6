"""``kernelscope compare BEFORE AFTER``: what an optimisation did, kernel by kernel and for the whole program; exit 1
on a regression beyond ``--fail-if-slower``."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from ..analysis.selection import match
from ..errors import InputError
from ..ingest import FORMATS as INPUT_FORMATS
from ..ingest import TIMELINE_FORMATS, detect_format, detect_timeline_format, probe_reports
from ..render import FORMATS
from .dataset import is_dataset, read_table
from .inputs import Spools, spooled
from .options import COMPARE_DETAILS_HELP, OUTPUT_HELP, Command, Shared
from .output import refuse_inputs, show, write_atomic

if TYPE_CHECKING:
    from ..analysis.compare_program import ProgramSide
    from ..analysis.diagnosis import KernelDiagnosis
    from ..model import GpuSpec, Measurement


def _add_arguments(c: argparse.ArgumentParser) -> None:
    c.add_argument("reports", nargs="+", metavar="REPORT", help="BEFORE AFTER, or one report with --before-kernel/--after-kernel")
    c.add_argument("--before-kernel", metavar="NAME", help="the BEFORE kernel: an exact kernel name (function or "
                   "demangled), or regex:PATTERN (with one REPORT: both kernels come from it)")
    c.add_argument("--after-kernel", metavar="NAME", help="the AFTER kernel (as --before-kernel)")
    c.add_argument("--pair", action="append", default=[], metavar="BEFORE=AFTER",
                   help="pair two kernels by hand, each an exact kernel name (function or demangled), or "
                   "regex:PATTERN; repeatable")
    c.add_argument("--fail-if-slower", metavar="PCT", help="exit 1 when a kernel or the total is slower by more than PCT (e.g. 5%%)")


def _percent(text: str, source: str) -> float:
    try:
        value = float(text.strip().removesuffix("%"))
    except ValueError:
        raise InputError(source, key="percentage_expected", values={"text": text}) from None
    if not value >= 0:
        raise InputError(source, key="percentage_negative", values={"text": text})
    return value


def _pairs(args: argparse.Namespace) -> list[tuple[str, str]]:
    """The kernel pairs given by hand: every ``--pair``, then ``--before-kernel``/``--after-kernel``."""
    pairs = []
    for item in args.pair:
        b, sep, a = item.partition("=")
        if not sep or not b or not a:
            raise InputError("--pair", key="pair_expected", values={"item": item})
        pairs.append((b, a))
    if (args.before_kernel is None) != (args.after_kernel is None):
        raise InputError("--before-kernel/--after-kernel", key="give_both_or_neither")
    if args.before_kernel is not None:
        pairs.append((args.before_kernel, args.after_kernel))
    return pairs


@dataclass(frozen=True)
class _Loaded:
    """One input as a side: its diagnosed launches (a timeline's: one summary row per kernel name), how it measured,
    and for a timeline its program wall and split."""

    kernels: Sequence[KernelDiagnosis]
    measurement: Measurement | None
    program: ProgramSide | None


def _is_timeline(path: str, input_format: str | None) -> bool:
    """Whether an input is a program timeline (Nsight Systems export or stats, PyTorch profiler trace) rather than a
    kernel profile: by ``--input-format``, else detected (a file that is neither gets the kernel-profile error)."""
    if input_format not in (None, "auto"):
        return input_format in TIMELINE_FORMATS
    try:
        detect_format(path)
        return False
    except InputError as first:
        try:
            detect_timeline_format(path)
        except InputError:
            raise first from None
        return True


def _load_side(path: str, input_format: str | None, gpu: GpuSpec | None) -> _Loaded:
    """Read and diagnose one input (a kernel profile, or a program timeline: see
    :mod:`kernelscope.analysis.compare_timeline`)."""
    from ..api import diagnose_report, load  # (the diagnosis loads only for the commands that diagnose)

    if not _is_timeline(path, input_format):
        report = load(path, input_format)
        return _Loaded(diagnose_report(report, gpu=gpu).kernels, report.measurement, None)
    from ..analysis.compare_timeline import program_side, timeline_profile
    from ..api import timeline_file
    from ..ingest.measurement import timeline_measurement

    runs = timeline_file(path, input_format)
    if len(runs) != 1:
        raise InputError(path, key="compare_many_captures", values={"n_runs": len(runs)})
    profile = timeline_profile(runs[0], timeline_measurement(runs[0].format))
    return _Loaded(diagnose_report(profile, gpu=gpu).kernels, profile.measurement, program_side(runs[0]))


def _sides(args: argparse.Namespace, gpu: GpuSpec | None, pairs: list[tuple[str, str]],
           spools: Spools, loaded: list[_Loaded]) -> tuple[Sequence[KernelDiagnosis], Sequence[KernelDiagnosis]]:
    """The BEFORE and AFTER launches: of two reports, or the paired kernels of one. A pair's name that matches no
    kernel of its side, or is ambiguous there, is refused here, with the names there are. Each input as read is
    appended to ``loaded``."""
    from ..api import no_kernel_matches

    if len(args.reports) not in (1, 2):
        raise InputError("compare", key="compare_two_files", values={"n_reports": len(args.reports)})
    if len(args.reports) == 1 and not pairs:
        raise InputError(args.reports[0], key="compare_one_report")
    probe_reports([spools.path(r) for r in args.reports])  # a damaged report: one line, not an abort
    loaded += [_load_side(spools.path(r), args.input_format, gpu) for r in args.reports]
    sides = [x.kernels for x in loaded]
    before_all, after_all = sides[0], sides[-1]
    for side, launches, report in ((0, before_all, args.reports[0]), (1, after_all, args.reports[-1])):
        for pair in pairs:
            option = ("--before-kernel", "--after-kernel")[side] if pair == (args.before_kernel, args.after_kernel) \
                else f"--pair ({('before', 'after')[side]})"
            if not match(launches, pair[side], lambda d: d.kernel, report, option, one=True):
                raise no_kernel_matches(report, option, pair[side], (d.kernel.name for d in launches))
    if len(args.reports) == 2:
        return before_all, after_all

    def pick(spec: str) -> list:
        return match(before_all, spec, lambda d: d.kernel, args.reports[0], "--pair", one=True)

    # each side holds only the paired kernels (a ladder a->b->c uses b on both sides)
    before = list({d.kernel.index: d for b, _ in pairs for d in pick(b)}.values())
    after = list({d.kernel.index: d for _, a in pairs for d in pick(a)}.values())
    return before, after


def _compare(args: argparse.Namespace) -> int:
    from ..analysis.compare import compare  # heavy modules load only for the command that runs
    from ..api import resolve_gpu
    from ..render import compare as rc

    threshold = _percent(args.fail_if_slower, "--fail-if-slower") if args.fail_if_slower is not None else None
    if any(is_dataset(r) for r in args.reports):
        return _compare_datasets(args, threshold)
    pairs = _pairs(args)
    if args.output:
        refuse_inputs([args.output], [*args.reports, args.spec])
    with spooled([*args.reports, args.spec]) as spools:
        gpu = resolve_gpu(args.gpu, spools.path(args.spec))
        loaded: list[_Loaded] = []
        before, after = _sides(args, gpu, pairs, spools, loaded)
        programs = (loaded[0].program, loaded[-1].program) if len(loaded) == 2 else None
        # one report, or kernels paired inside the same file given twice: no program totals
        same = len(args.reports) == 1 or bool(pairs) and os.path.realpath(args.reports[0]) == os.path.realpath(args.reports[1])
        result = compare(before, after, pairs, program=not same, pair_rule="name",
                         methods=(loaded[0].measurement, loaded[-1].measurement),
                         programs=programs if programs and None not in programs else None)
        if not result.pairs:  # nothing compared: neither a result nor a passed gate
            raise _nothing_matched(result, [spools.label(r) for r in args.reports], args.lang)
    regressions = result.regressions(threshold / 100.0) if threshold is not None else ()
    if args.format == "json":
        text = rc.to_json(result, args.lang, regressions, threshold)
    elif args.format == "markdown":
        text = rc.to_markdown(result, args.lang, regressions, threshold, details=args.details)
    else:
        text = None
    if args.output:
        write_atomic(args.output, text if text is not None else rc.to_text(result, args.lang, regressions, threshold,
                                                                          details=args.details))
    elif text is not None:
        sys.stdout.write(text)
    else:
        show(rc.to_table(result, args.lang, regressions, threshold, details=args.details))
    return 1 if regressions else 0


def _compare_datasets(args: argparse.Namespace, threshold: float | None) -> int:
    """Two kernelscope datasets: their launches aggregated and matched per kernel key (see
    :mod:`kernelscope.analysis.compare_datasets`); a dataset against a report, or hand pairing, is refused."""
    from ..analysis.compare_datasets import compare_datasets
    from ..render import compare_datasets as rd
    from ..render.common import Fmt

    if len(args.reports) != 2 or not all(is_dataset(r) for r in args.reports):
        raise InputError(Fmt(args.lang).label("sides_vs", a=args.reports[0], b=args.reports[-1]), key="compare_dataset_and_report")
    if args.pair or args.before_kernel or args.after_kernel:
        raise InputError("--pair/--before-kernel/--after-kernel", key="compare_pair_datasets")
    if args.output:
        refuse_inputs([args.output], list(args.reports))
    result = compare_datasets(read_table(args.reports[0], "launches"), read_table(args.reports[1], "launches"))
    if not result.kernels:
        raise InputError(Fmt(args.lang).label("sides_vs", a=args.reports[0], b=args.reports[-1]), Fmt(args.lang).label("dsc_none_matched"))
    regressions = result.regressions(threshold / 100.0) if threshold is not None else ()
    render = {"json": rd.to_json, "markdown": rd.to_markdown}.get(args.format)
    text = render(result, args.lang, regressions, threshold) if render else None
    if args.output:
        write_atomic(args.output, text if text is not None else rd.to_text(result, args.lang, regressions, threshold))
    elif text is not None:
        sys.stdout.write(text)
    else:
        show(rd.to_table(result, args.lang, regressions, threshold))
    return 1 if regressions else 0


def _nothing_matched(result, labels: list[str], lang: str) -> InputError:
    """The error for two sides without one kernel in common (exit 2: a gate must not pass on nothing)."""
    from ..render.common import Fmt
    from ..render.compare import names_list

    f = Fmt(lang)
    return InputError(f.label("sides_vs", a=labels[0], b=labels[-1]), key="compare_none_matched",
        values={"unmatched_before": names_list(result.unmatched_before, f),
                "unmatched_after": names_list(result.unmatched_after, f)})


COMMAND = Command(
    name="compare",
    help="before/after comparison of two profiles or program timelines (or two kernels of one); a CI gate with "
    "--fail-if-slower",
    description="Match kernels by name and launch configuration and show what an optimisation did: speedup "
    "(with the run-to-run spread), effective bandwidth, achieved FLOP/s, Speed-of-Light, bound, stall mix, "
    "occupancy, and the matched kernels' GPU time with the unmatched time apart. A REPORT may be a program "
    "timeline (Nsight Systems export or stats, PyTorch profiler trace): per-kernel count, total and mean, and "
    "for two timelines the program wall and its split. Two kernelscope datasets (--format parquet -o DIR) compare "
    "all their kernels: per kernel (demangled name, grid, block) launches, median and total duration. Sides measured differently (Nsight Compute's replay vs a "
    "timeline, other replay, cache or clock settings) are warned about, and so are different SM or memory clocks "
    "measured on the two sides (both clocks, with the ratio in SM cycles beside the time ratio). When the matched "
    "kernels are under half of a side's GPU time, the all-kernels ratio is the headline. Two profiles of one "
    "kernel each, named differently, are paired (as --pair would). Exit 1 on a regression beyond "
    "--fail-if-slower, 2 on bad input.",
    shared=Shared(
        input_formats=INPUT_FORMATS + TIMELINE_FORMATS,
        input_format_help="format of the REPORT files (detected per file by default)",
        formats=FORMATS,
        lang=True,
        gpu_help=("use this catalogue GPU's peaks for both sides", "GPU spec file for both sides"),
        output_help=OUTPUT_HELP,
        details=COMPARE_DETAILS_HELP,
    ),
    add_arguments=_add_arguments,
    run=_compare,
)

"""``kernelscope compare BEFORE AFTER``: what an optimisation did, kernel by kernel and for the whole program; exit 1
on a regression beyond ``--fail-if-slower``."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Sequence

from ..analysis.selection import kernel_names, select
from ..api import diagnose_report, load, no_kernel_matches, resolve_gpu
from ..errors import InputError
from ..ingest import FORMATS as INPUT_FORMATS
from ..ingest import probe_reports
from ..render import FORMATS
from .inputs import Spools, spooled
from .options import OUTPUT_HELP, Command, Shared
from .output import refuse_inputs, write_atomic

if TYPE_CHECKING:
    from ..analysis.diagnosis import KernelDiagnosis
    from ..model import GpuSpec


def _add_arguments(c: argparse.ArgumentParser) -> None:
    c.add_argument("reports", nargs="+", metavar="REPORT", help="BEFORE AFTER, or one report with --before-kernel/--after-kernel")
    c.add_argument("--before-kernel", metavar="REGEX", help="the BEFORE kernel (with one REPORT: both kernels come from it)")
    c.add_argument("--after-kernel", metavar="REGEX", help="the AFTER kernel")
    c.add_argument("--pair", action="append", default=[], metavar="BEFORE=AFTER",
                   help="pair two kernels by hand (regexes on their names); repeatable")
    c.add_argument("--fail-if-slower", metavar="PCT", help="exit 1 when a kernel or the total is slower by more than PCT (e.g. 5%%)")


def _percent(text: str, source: str) -> float:
    try:
        value = float(text.strip().removesuffix("%"))
    except ValueError:
        raise InputError(source, f"expected a percentage such as 5% or 5, got {text!r}") from None
    if not value >= 0:
        raise InputError(source, f"expected a percentage >= 0, got {text!r}")
    return value


def _pairs(args: argparse.Namespace) -> list[tuple[str, str]]:
    """The kernel pairs given by hand: every ``--pair``, then ``--before-kernel``/``--after-kernel``."""
    pairs = []
    for item in args.pair:
        b, sep, a = item.partition("=")
        if not sep or not b or not a:
            raise InputError("--pair", f"expected BEFORE=AFTER (two name regexes), got {item!r}")
        pairs.append((b, a))
    if (args.before_kernel is None) != (args.after_kernel is None):
        raise InputError("--before-kernel/--after-kernel", "give both or neither")
    if args.before_kernel is not None:
        pairs.append((args.before_kernel, args.after_kernel))
    return pairs


def _sides(args: argparse.Namespace, gpu: GpuSpec | None, pairs: list[tuple[str, str]],
           spools: Spools) -> tuple[Sequence[KernelDiagnosis], Sequence[KernelDiagnosis]]:
    """The BEFORE and AFTER launches: of two reports, or the paired kernels of one. A pair's regex that matches no
    kernel of its side is refused here, with the names there are."""
    if len(args.reports) not in (1, 2):
        raise InputError("compare", f"expected BEFORE AFTER (or one REPORT with --before-kernel/--after-kernel), got {len(args.reports)} files")
    if len(args.reports) == 1 and not pairs:
        raise InputError(args.reports[0], "one REPORT compares kernels inside it: give --before-kernel and --after-kernel, or --pair BEFORE=AFTER")
    probe_reports([spools.path(r) for r in args.reports])  # a damaged report: one line, not an abort
    sides = [diagnose_report(load(spools.path(r), args.input_format), gpu=gpu).kernels for r in args.reports]
    before_all, after_all = sides[0], sides[-1]
    for side, launches, report in ((0, before_all, args.reports[0]), (1, after_all, args.reports[-1])):
        for pair in pairs:
            if not select(launches, pair[side], lambda d: kernel_names(d.kernel), "--pair"):
                option = ("--before-kernel", "--after-kernel")[side] if pair == (args.before_kernel, args.after_kernel) \
                    else f"--pair ({('before', 'after')[side]})"
                raise no_kernel_matches(report, option, pair[side], (d.kernel.name for d in launches))
    if len(args.reports) == 2:
        return before_all, after_all

    def pick(rx: str) -> list:
        return select(before_all, rx, lambda d: kernel_names(d.kernel), "--pair")

    # each side holds only the paired kernels (a ladder a->b->c uses b on both sides)
    before = list({d.kernel.index: d for b, _ in pairs for d in pick(b)}.values())
    after = list({d.kernel.index: d for _, a in pairs for d in pick(a)}.values())
    return before, after


def _compare(args: argparse.Namespace) -> int:
    from ..analysis.compare import compare  # heavy modules load only for the command that runs
    from ..render import compare as rc

    threshold = _percent(args.fail_if_slower, "--fail-if-slower") if args.fail_if_slower is not None else None
    pairs = _pairs(args)
    if args.output:
        refuse_inputs([args.output], [*args.reports, args.spec])
    with spooled([*args.reports, args.spec]) as spools:
        gpu = resolve_gpu(args.gpu, spools.path(args.spec))
        before, after = _sides(args, gpu, pairs, spools)
        result = compare(before, after, pairs, program=len(args.reports) != 1)
        if not result.pairs:  # nothing compared: neither a result nor a passed gate
            raise _nothing_matched(result, [spools.label(r) for r in args.reports])
    regressions = result.regressions(threshold / 100.0) if threshold is not None else ()
    if args.format == "json":
        text = rc.to_json(result, args.lang, regressions, threshold)
    elif args.format == "markdown":
        text = rc.to_markdown(result, args.lang, regressions, threshold)
    else:
        text = None
    if args.output:
        write_atomic(args.output, text if text is not None else rc.to_text(result, args.lang, regressions, threshold))
    elif text is not None:
        sys.stdout.write(text)
    else:
        from rich.console import Console

        Console(soft_wrap=False).print(*rc.to_table(result, args.lang, regressions, threshold))
    return 1 if regressions else 0


def _nothing_matched(result, labels: list[str]) -> InputError:
    """The error for two sides without one kernel in common (exit 2: a gate must not pass on nothing)."""
    from ..render.common import short_name

    def listed(names: tuple[str, ...]) -> str:
        shown = ", ".join(short_name(n, 40) for n in names[:4])
        return (shown + (f", ... ({len(names)} names)" if len(names) > 4 else "")) or "no kernels"

    return InputError(" vs ".join(labels), "no kernel matched between the two sides (by name and launch "
                      f"configuration): before has {listed(result.unmatched_before)}; after has "
                      f"{listed(result.unmatched_after)}; pair kernels by hand with --pair BEFORE=AFTER")


COMMAND = Command(
    name="compare",
    help="before/after comparison of two profiles (or two kernels of one); a CI gate with --fail-if-slower",
    description="Match kernels by name and launch configuration and show what an optimisation did: speedup "
    "(with the run-to-run spread), effective bandwidth, achieved FLOP/s, Speed-of-Light, bound, stall mix, "
    "occupancy, and the whole program's GPU time. Exit 1 on a regression beyond --fail-if-slower, 2 on bad input.",
    shared=Shared(
        input_formats=INPUT_FORMATS,
        input_format_help="format of the REPORT files",
        formats=FORMATS,
        lang_help="language of labels",
        gpu_help=("use this catalogue GPU's peaks for both sides", "GPU spec file for both sides"),
        output_help=OUTPUT_HELP,
    ),
    add_arguments=_add_arguments,
    run=_compare,
)

"""Command line: ``kernelscope diagnose REPORT [REPORT...]``, ``kernelscope roofline``, ``kernelscope gpus``,
``kernelscope occupancy``, ``kernelscope compare``, ``kernelscope timeline``.

Exit codes: 0 success, 2 bad input (one-line message naming the file and the problem, nothing written).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Sequence

from ..api import diagnose_report, load, load_criteria, resolve_gpu, timeline_file
from ..errors import InputError, KernelscopeError
from ..ingest import FORMATS as INPUT_FORMATS
from ..render import DIAGNOSE_FORMATS, FORMATS, render
from ..version import __version__


class _Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors (exit 2), like every other kernelscope error."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="kernelscope",
        description="Why is this CUDA kernel slow, and what to do about it.",
    )
    p.add_argument("--version", action="version", version=f"kernelscope {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    d = sub.add_parser(
        "diagnose",
        help="roofline, Speed-of-Light and warp-stall diagnosis of every kernel in Nsight Compute reports",
        description="Diagnose every profiled kernel: where GPU time goes, then per kernel its duration, "
        "Speed-of-Light, arithmetic intensity and bound, achieved vs attainable FLOP/s, top warp stalls "
        "and the advice that matters most.",
    )
    d.add_argument("reports", nargs="+", metavar="REPORT",
                   help="Nsight Compute report (.ncu-rep), `ncu --csv` export (details or raw page), "
                   "or plain-numbers file (.toml/.json)")
    d.add_argument("--input-format", choices=("auto", *INPUT_FORMATS), default="auto",
                   help="format of the REPORT files (default: auto, detected from their content)")
    d.add_argument("--kernel", metavar="REGEX", help="only kernels whose (demangled) name matches REGEX")
    d.add_argument("--top", type=int, metavar="N", help="only the N longest launches of each report")
    d.add_argument("--format", choices=DIAGNOSE_FORMATS, default="table",
                   help="output format (default: table); html: one self-contained page with charts; markdown "
                   "written with -o also writes its charts beside it (REPORT_roofline.svg ...)")
    d.add_argument("--lang", choices=("en", "zh"), default="en", help="language of labels and advice")
    d.add_argument("-q", "--quiet", action="store_true", help="no progress bar (it is only shown on a terminal anyway)")
    g = d.add_mutually_exclusive_group()
    g.add_argument("--gpu", metavar="NAME", help="use this catalogue GPU's peaks instead of the report's device")
    g.add_argument("--spec", metavar="FILE", help="TOML/JSON file with peak_flops_per_s and dram_bandwidth_bytes_per_s")
    d.add_argument("--criteria", metavar="FILE", help="TOML [criteria] table overriding the bottleneck-class thresholds")
    d.add_argument("-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of standard output")
    sub.add_parser("gpus", help="list the GPU catalogue (names usable with --gpu) with its dense peaks")
    _add_occupancy_parser(sub)
    _add_timeline_parser(sub)
    _add_roofline_parser(sub)
    c = sub.add_parser(
        "compare",
        help="before/after comparison of two profiles (or two kernels of one); a CI gate with --fail-if-slower",
        description="Match kernels by name and launch configuration and show what an optimisation did: speedup "
        "(with the run-to-run spread), effective bandwidth, achieved FLOP/s, Speed-of-Light, bound, stall mix, "
        "occupancy, and the whole program's GPU time. Exit 1 on a regression beyond --fail-if-slower, 2 on bad input.",
    )
    c.add_argument("reports", nargs="+", metavar="REPORT", help="BEFORE AFTER, or one report with --before-kernel/--after-kernel")
    c.add_argument("--before-kernel", metavar="REGEX", help="the BEFORE kernel (with one REPORT: both kernels come from it)")
    c.add_argument("--after-kernel", metavar="REGEX", help="the AFTER kernel")
    c.add_argument("--pair", action="append", default=[], metavar="BEFORE=AFTER",
                   help="pair two kernels by hand (regexes on their names); repeatable")
    c.add_argument("--fail-if-slower", metavar="PCT", help="exit 1 when a kernel or the total is slower by more than PCT (e.g. 5%%)")
    c.add_argument("--input-format", choices=("auto", *INPUT_FORMATS), default="auto", help="format of the REPORT files")
    c.add_argument("--format", choices=FORMATS, default="table", help="output format (default: table)")
    c.add_argument("--lang", choices=("en", "zh"), default="en", help="language of labels")
    cg = c.add_mutually_exclusive_group()
    cg.add_argument("--gpu", metavar="NAME", help="use this catalogue GPU's peaks for both sides")
    cg.add_argument("--spec", metavar="FILE", help="GPU spec file for both sides")
    c.add_argument("-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of standard output")
    return p


def write_atomic(path: str, text: str | bytes) -> None:
    """Write ``text`` (str as UTF-8, or bytes) to ``path`` via a temporary file in the same folder and a rename,
    so an interrupted run never leaves a half-written file.

    Raises:
        InputError: the folder is not writable (nothing is left behind).
    """
    write_atomic_files({path: text})


def write_atomic_files(files: dict[str, str | bytes]) -> None:
    """Write several files all or nothing: every one goes to a temporary file beside its target first; only
    when all are written are they renamed into place (a file it replaces is kept as a hard link until then).
    On a failure every temporary file is removed, the targets already renamed are put back as they were, and
    nothing is left behind.

    Raises:
        InputError: a target is a directory or its folder is not writable.
    """
    staged: list[tuple[str, Path]] = []
    done: list[tuple[Path, str | None]] = []  # renamed targets and the backup of what they replaced
    umask = os.umask(0)
    os.umask(umask)
    try:
        for path, data in files.items():
            target = Path(path)
            if target.is_dir():
                raise InputError(path, "is a directory; expected an output file name")
            try:
                fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
            except OSError as exc:
                raise InputError(path, f"cannot write the output file ({exc.strerror})") from None
            staged.append((tmp, target))
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(data.encode("utf-8") if isinstance(data, str) else data)
                mode = target.stat().st_mode & 0o777 if target.exists() else 0o666 & ~umask
                os.chmod(tmp, mode)  # mkstemp creates 0600; give the file the mode a plain open() would
            except OSError as exc:
                raise InputError(path, f"cannot write the output file ({exc.strerror})") from None
        for tmp, target in staged:
            backup = None
            try:
                if target.exists() and len(staged) > 1:
                    backup = f"{tmp}.old"
                    os.link(target, backup)
                os.replace(tmp, target)
            except OSError as exc:
                if backup is not None:
                    Path(backup).unlink(missing_ok=True)
                raise InputError(str(target), f"cannot write the output file ({exc.strerror})") from None
            done.append((target, backup))
    except BaseException:
        for target, backup in reversed(done):  # undo the renames already made
            try:
                if backup is not None:
                    os.replace(backup, target)
                else:
                    target.unlink(missing_ok=True)
            except OSError:
                pass
        for tmp, _ in staged:
            Path(tmp).unlink(missing_ok=True)
        raise
    for _, backup in done:
        if backup is not None:
            Path(backup).unlink(missing_ok=True)


def _diagnose(args: argparse.Namespace) -> int:
    gpu = resolve_gpu(args.gpu, args.spec)
    criteria = load_criteria(args.criteria) if args.criteria is not None else None
    from ..render.progress import Steps, wanted

    with Steps(wanted(args.quiet, bool(args.output))) as steps:
        step = steps.stage("reading", len(args.reports))
        results = []
        for path in args.reports:
            results.append(diagnose_report(load(path, args.input_format), gpu=gpu, kernel_regex=args.kernel,
                                           top=args.top, criteria=criteria))
            step()
        files: dict[str, str | bytes] = {}
        if args.format == "html":
            from ..render.html import count_work, to_html

            text = to_html(results, args.lang, steps.stage("charts", count_work(results)))
        elif args.format == "markdown" and args.output:
            from ..render.markdown import chart_files, to_markdown

            links, files = chart_files(results, args.lang, args.output, steps.stage("charts", 2 * len(results)))
            text = to_markdown(results, args.lang, links)
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


def _gpus() -> int:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    t = Table(title="kernelscope GPU catalogue (dense datasheet peaks; sources in data/gpus.toml)")
    for col in ("name", "arch", "CC", "SMs", "DRAM GB/s", "FP64 TF", "FP32 TF", "FP16 TC TF", "BF16 TC TF", "FP8 TC TF"):
        t.add_column(col, justify="left" if col in ("name", "arch") else "right", no_wrap=col == "name")

    def tf(spec, pipe):
        v = spec.peak_flops_per_s.get(pipe)
        return "-" if v is None else f"{v / 1e12:.4g}"

    from ..knowledge.gpus import catalogue

    for g in catalogue():
        cc = "-" if g.compute_capability is None else f"{g.compute_capability[0]}.{g.compute_capability[1]}"
        t.add_row(
            Text(g.name), Text(g.architecture or "-"), cc, str(g.sm_count or "-"),
            f"{g.dram_bandwidth_bytes_per_s / 1e9:.4g}", tf(g, "fp64"), tf(g, "fp32"),
            tf(g, "fp16_tensor"), tf(g, "bf16_tensor"), tf(g, "fp8_tensor"),
        )
    Console().print(t)
    return 0


#: Threads per block used with --cu when --threads is not given.
OCCUPANCY_DEFAULT_THREADS = 256


def _add_timeline_parser(sub) -> None:
    from ..ingest import TIMELINE_FORMATS
    from ..render.timeline import FORMATS as TIMELINE_OUTPUTS

    t = sub.add_parser(
        "timeline",
        help="where the whole program's time goes: Nsight Systems exports, nsys stats output, PyTorch profiler traces",
        description="Split the program's wall time into kernels, copies (by direction, pageable or pinned), memsets "
        "and GPU idle per device and stream (busy time as a union: never above 100%%), rank kernels, copies and "
        "API calls, measure launch overhead, name the largest time black hole with its Amdahl projection, and run "
        "the Nsight Systems expert checks.",
    )
    t.add_argument("traces", nargs="+", metavar="FILE",
                   help="Nsight Systems SQLite export (nsys export --type sqlite), `nsys stats` output (text, "
                   "--format csv or table), or a PyTorch profiler trace (.json, .json.gz, a directory or .tar.gz)")
    t.add_argument("--input-format", choices=("auto", *TIMELINE_FORMATS), default="auto",
                   help="format of the FILEs (default: auto, detected from their content)")
    t.add_argument("--format", choices=TIMELINE_OUTPUTS, default="table", help="output format (default: table)")
    t.add_argument("--lang", choices=("en", "zh"), default="en", help="language of labels and findings")
    t.add_argument("--top", type=int, default=10, metavar="N", help="rows per ranking (default 10)")
    t.add_argument("-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of standard output")


def _timeline(args: argparse.Namespace) -> int:
    from ..render.timeline import render_timeline, renderables

    if args.top < 1:
        raise InputError("--top", f"must be at least 1, got {args.top}")
    reports = [rep for path in args.traces for rep in timeline_file(path, args.input_format, args.top)]
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


def _add_roofline_parser(sub) -> None:
    r = sub.add_parser(
        "roofline",
        help="roofline chart (PNG or SVG) of a report's kernels, or of the kernels --kernel selects",
        description="Draw the roofline of a report: log-log FLOP/byte vs FLOP/s, a ceiling per precision and pipe "
        "of the GPU and the DRAM bandwidth slope with the ridge points, each kernel a point sized by its share of "
        "GPU time and coloured by its bottleneck class. One selected launch gets its own chart (every pipe it used).",
    )
    r.add_argument("report", metavar="REPORT", help="profiler file (any input kernelscope diagnose reads)")
    r.add_argument("-o", "--output", required=True, metavar="FILE", help="chart file, .png or .svg (written atomically)")
    r.add_argument("--kernel", metavar="REGEX", help="only kernels whose (demangled) name matches REGEX")
    r.add_argument("--top", type=int, metavar="N", help="only the N longest launches")
    r.add_argument("--input-format", choices=("auto", *INPUT_FORMATS), default="auto", help="format of REPORT")
    r.add_argument("--lang", choices=("en", "zh"), default="en", help="language of the chart's labels")
    rg = r.add_mutually_exclusive_group()
    rg.add_argument("--gpu", metavar="NAME", help="use this catalogue GPU's peaks instead of the report's device")
    rg.add_argument("--spec", metavar="FILE", help="TOML/JSON file with peak_flops_per_s and dram_bandwidth_bytes_per_s")
    r.add_argument("-q", "--quiet", action="store_true", help="no progress bar")


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


def _add_occupancy_parser(sub) -> None:
    o = sub.add_parser(
        "occupancy",
        help="theoretical occupancy of a launch configuration, or of every kernel of a .cu file (via nvcc/ptxas)",
        description="Blocks and warps per SM a launch gets, which resource limits it, and the smallest change "
        "that reaches the next occupancy step. Sizes take bytes or KiB: 49152, 48K, 48KiB.",
    )
    o.add_argument("--arch", required=True, metavar="ARCH", help="GPU architecture: sm_90, sm_86, sm_120, 9.0 ...")
    src = o.add_mutually_exclusive_group(required=True)
    src.add_argument("--regs", type=int, metavar="N", help="registers per thread")
    src.add_argument("--cu", metavar="FILE", help="compile FILE with nvcc (-cubin -Xptxas -v) and use each kernel's "
                     "registers, static shared memory and barriers from ptxas")
    o.add_argument("--threads", type=int, metavar="N",
                   help=f"threads per block (required with --regs; with --cu default {OCCUPANCY_DEFAULT_THREADS})")
    o.add_argument("--smem", metavar="SIZE", help="static shared memory per block (default 0; with --cu ptxas gives it)")
    o.add_argument("--dyn-smem", metavar="SIZE", default="0", help="dynamic shared memory per block (default 0)")
    o.add_argument("--carveout", metavar="KiB", help="shared-memory size configured per SM, KiB (default: the "
                   "smallest configurable size that holds as many blocks as the other limits allow)")
    o.add_argument("--barriers", type=int, metavar="N", help="named barriers per block, CC 9.0+ (default 0; "
                   "with --cu ptxas gives it)")


def _size_text(n: int) -> str:
    return f"{n // 1024} KiB" if n % 1024 == 0 and n else f"{n} B"


_PARAM_WORDS = {
    "registers_per_thread": ("registers/thread", str),
    "shared_mem_per_block_bytes": ("shared memory/block", _size_text),
    "threads_per_block": ("threads/block", str),
    "shared_mem_config_bytes": ("carveout", _size_text),
}
_LIMIT_WORDS = {"warps": "warp slots", "registers": "registers", "shared_mem": "shared memory",
                "blocks": "blocks per SM", "barriers": "barriers"}


_LIMIT_SHORT = {"warps": "warps", "registers": "regs", "shared_mem": "smem", "blocks": "blocks",
                "barriers": "barriers"}


def _limiters_text(o, short: bool = False) -> str:
    words = _LIMIT_SHORT if short else _LIMIT_WORDS
    text = "+".join(words[l] for l in o.limiters) if short else " + ".join(words[l] for l in o.limiters)
    return f"cannot launch ({text})" if o.active_blocks_per_sm == 0 else text


def _next_step_texts(o, occ) -> list[str]:
    out = []
    for step in occ.next_step(o):
        word, fmt = _PARAM_WORDS[step.parameter]
        r = step.result
        out.append(f"{word} {fmt(step.current)} -> {fmt(step.proposed)} gives {r.active_warps_per_sm} warps "
                   f"({r.occupancy_pct:.1f}%)")
    return out


def _what_if_table(o, occ, vary: str, title: str, unit) -> "object":
    """One what-if table: consecutive values with the same blocks per SM and limiters share a row."""
    from rich.table import Table

    t = Table(title=title, title_justify="left")
    for col in (unit[0], "blocks/SM", "warps/SM", "occupancy", "limited by", ""):
        t.add_column(col, justify="left" if col in (unit[0], "limited by", "") else "right")
    current = getattr(o, vary)
    groups: list[list] = []  # [first value, last value, [results]]
    lo = 1 if vary == "threads_per_block" else 0
    for value, r in occ.what_if(o, vary):
        key = (r.active_blocks_per_sm, r.limiters)
        if groups and (groups[-1][2][-1].active_blocks_per_sm, groups[-1][2][-1].limiters) == key:
            groups[-1][1] = value
            groups[-1][2].append(r)
        else:
            groups.append([lo, value, [r]])
        lo = value + 1

    def span(values: list) -> str:
        a, b = min(values), max(values)
        return str(a) if a == b else f"{a}-{b}"

    for first, last, rs in groups:
        if vary == "threads_per_block":
            label = unit[1](last) if first == last else f"{unit[1](first)} - {unit[1](last)}"
        else:
            label = f"up to {unit[1](last)}"
        pcts = sorted({f"{r.occupancy_pct:.1f}" for r in rs}, key=float)
        t.add_row(label, str(rs[0].active_blocks_per_sm), span([r.active_warps_per_sm for r in rs]),
                  f"{pcts[0]}%" if len(pcts) == 1 else f"{pcts[0]}-{pcts[-1]}%", _limiters_text(rs[0]),
                  "<- now" if first <= current <= last else "")
    return t


_FLAGS = {"threads_per_block": "--threads", "registers_per_thread": "--regs", "barriers_per_block": "--barriers",
          "shared_mem_per_block_bytes": "--smem + --dyn-smem", "shared_mem_config_bytes": "--carveout"}


def _occupancy(args: argparse.Namespace) -> int:
    try:
        return _occupancy_run(args)
    except InputError as exc:  # name the command-line flag rather than the API parameter
        if exc.source in _FLAGS:
            raise InputError(_FLAGS[exc.source], exc.problem) from None
        raise


def _occupancy_run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from ..analysis import occupancy as occ

    cc = occ.parse_compute_capability(args.arch, "--arch")
    limits = occ.arch_limits(cc)
    dyn = occ.parse_size(args.dyn_smem, "--dyn-smem")
    config = None
    if args.carveout is not None:
        text = args.carveout.strip()
        config = int(text) * 1024 if text.isdigit() else occ.parse_size(text, "--carveout")
    console = Console(soft_wrap=False)
    where = f"{limits.architecture}, compute capability {cc[0]}.{cc[1]}"

    if args.cu is None:
        if args.threads is None:
            raise InputError("--threads", "missing; give the threads per block (e.g. --threads 256)")
        smem = (0 if args.smem is None else occ.parse_size(args.smem, "--smem")) + dyn
        o = occ.occupancy(cc, args.threads, args.regs, smem, config, barriers_per_block=args.barriers or 0)
        launch = Table(title=f"Launch on {where}", title_justify="left", show_header=False)
        launch.add_column(justify="left")
        launch.add_column(justify="left")
        launch.add_row("threads/block", f"{o.threads_per_block} ({o.warps_per_block} warps)")
        launch.add_row("registers/thread", f"{o.registers_per_thread} (allocated {o.registers_per_thread_allocated}, "
                       f"{o.registers_per_block_allocated} per block)")
        launch.add_row("shared memory/block", f"{_size_text(o.shared_mem_per_block_bytes)} (allocated "
                       f"{_size_text(o.shared_mem_per_block_allocated_bytes)} with "
                       f"{_size_text(limits.shared_mem_reserved_per_block_bytes)} reserved by the driver)")
        how = "as given" if config is not None else "smallest that fits, chosen by kernelscope"
        launch.add_row("shared memory/SM (carveout)", f"{_size_text(o.shared_mem_config_bytes)} ({how})")
        if "barriers" in o.block_limits:
            launch.add_row("barriers/block", str(o.barriers_per_block))
        lim = Table(title="Blocks per SM allowed by each resource", title_justify="left")
        for col in ("resource", "blocks/SM", ""):
            lim.add_column(col, justify="right" if col == "blocks/SM" else "left")
        for key, value in o.block_limits.items():
            lim.add_row(_LIMIT_WORDS[key], str(value), "limiter" if key in o.limiters else "")
        result = (f"Active: {o.active_blocks_per_sm} blocks/SM = {o.active_warps_per_sm} of {o.max_warps_per_sm} "
                  f"warps/SM, theoretical occupancy {o.occupancy_pct:.1f}%, limited by {_limiters_text(o)}")
        steps = _next_step_texts(o, occ)
        console.print(launch, lim, Text(result))
        console.print(Text("Next step: " + ("; ".join(steps) if steps else "none; no single change raises the warps per SM")))
        console.print(
            _what_if_table(o, occ, "threads_per_block", "What if: threads per block", ("threads/block", str)),
            _what_if_table(o, occ, "registers_per_thread", "What if: registers per thread", ("regs/thread", str)),
            _what_if_table(o, occ, "shared_mem_per_block_bytes", "What if: shared memory per block",
                           ("smem/block", _size_text)),
        )
        return 0

    from ..ingest.ptxas import compile_resource_usage

    if args.smem is not None:
        raise InputError("--smem", "not used with --cu (ptxas gives the static shared memory); use --dyn-smem")
    threads = OCCUPANCY_DEFAULT_THREADS if args.threads is None else args.threads
    occ.occupancy(cc, threads, 0, 0, config)  # validates --threads and --carveout once, before compiling
    text = args.arch.strip().lower()
    nvcc_arch = text if text.startswith("sm_") else f"sm_{cc[0]}{cc[1]}"
    report = compile_resource_usage(args.cu, nvcc_arch)
    said = " (default; set with --threads)" if args.threads is None else ""
    console.print(Text(f"{args.cu} compiled for {nvcc_arch} ({where}); {threads} threads per block{said}"
                       + (f", {_size_text(dyn)} dynamic shared memory" if dyn else "")))
    from rich import box

    t = Table(title="Theoretical occupancy per kernel (ptxas resource usage)", title_justify="left",
              box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True, show_edge=False)
    barriers_apply = limits.block_barriers_per_sm is not None
    cols = ("kernel", "regs", "smem", *(("bar",) if barriers_apply else ()), "spills", "blocks", "warps", "occ.",
            "limited by")
    longest = max(len(k.demangled_name.split("(")[0] or k.name) for k in report.kernels)
    for col in cols:
        t.add_column(col, justify="left" if col in ("kernel", "limited by") else "right",
                     overflow="fold" if col == "kernel" else None, min_width=min(longest, 40) if col == "kernel" else None)
    notes = []
    for k in report.kernels:
        name = k.demangled_name.split("(")[0] or k.name
        spills = "SPILLS" if k.spills else "0"
        try:
            o = occ.occupancy(cc, threads, k.registers_per_thread, k.shared_mem_static_bytes + dyn, config,
                              barriers_per_block=args.barriers if args.barriers is not None else (k.barriers or 0))
        except InputError as exc:
            cells = ("-", "-", "-", f"cannot launch: {exc.problem}")
            notes.append(f"{name}: {exc}")
        else:
            cells = (str(o.active_blocks_per_sm), str(o.active_warps_per_sm),
                     f"{o.occupancy_pct:.1f}%", _limiters_text(o, short=True))
            notes += [f"{name}: {s}" for s in _next_step_texts(o, occ)]
        bar = (("-" if k.barriers is None else str(k.barriers)),) if barriers_apply else ()
        t.add_row(Text(name), str(k.registers_per_thread), _size_text(k.shared_mem_static_bytes), *bar,
                  Text(spills, style="bold red" if k.spills else ""), *cells)
    console.print(t)
    for k in report.kernels:
        if k.spills:
            console.print(Text(f"SPILLS: {k.demangled_name.split('(')[0]} spills registers to local memory "
                               f"({k.spill_stores_bytes} B stores, {k.spill_loads_bytes} B loads, "
                               f"{k.stack_frame_bytes or 0} B stack frame per thread); its register cap "
                               "(__launch_bounds__ / -maxrregcount) is below what it needs."))
    if notes:
        console.print(Text("Next step: " + "; ".join(notes)))
    return 0


def _percent(text: str, source: str) -> float:
    try:
        value = float(text.strip().removesuffix("%"))
    except ValueError:
        raise InputError(source, f"expected a percentage such as 5% or 5, got {text!r}") from None
    if not value >= 0:
        raise InputError(source, f"expected a percentage >= 0, got {text!r}")
    return value


def _compare(args: argparse.Namespace) -> int:
    from ..analysis.compare import compare
    from ..analysis.selection import kernel_names, select
    from ..render import compare as rc

    gpu = resolve_gpu(args.gpu, args.spec)
    threshold = _percent(args.fail_if_slower, "--fail-if-slower") if args.fail_if_slower is not None else None
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
    one_report = len(args.reports) == 1
    if one_report:
        if not pairs:
            raise InputError(args.reports[0], "one REPORT compares kernels inside it: give --before-kernel and --after-kernel, or --pair BEFORE=AFTER")
        launches = diagnose_report(load(args.reports[0], args.input_format), gpu=gpu).kernels

        def pick(rx: str) -> list:
            return select(launches, rx, lambda d: kernel_names(d.kernel), "--pair")

        # each side holds only the paired kernels (a ladder a->b->c uses b on both sides)
        before = list({d.kernel.index: d for b, _ in pairs for d in pick(b)}.values())
        after = list({d.kernel.index: d for _, a in pairs for d in pick(a)}.values())
    elif len(args.reports) == 2:
        before = diagnose_report(load(args.reports[0], args.input_format), gpu=gpu).kernels
        after = diagnose_report(load(args.reports[1], args.input_format), gpu=gpu).kernels
    else:
        raise InputError("compare", f"expected BEFORE AFTER (or one REPORT with --before-kernel/--after-kernel), got {len(args.reports)} files")
    result = compare(before, after, pairs, program=not one_report)
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


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 ok, 2 bad input)."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "diagnose":
            return _diagnose(args)
        if args.command == "gpus":
            return _gpus()
        if args.command == "occupancy":
            return _occupancy(args)
        if args.command == "compare":
            return _compare(args)
        if args.command == "timeline":
            return _timeline(args)
        if args.command == "roofline":
            return _roofline(args)
    except KernelscopeError as exc:
        print(f"kernelscope: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"kernelscope: error: {exc.filename or ''}: {exc.strerror}", file=sys.stderr)
        return 2
    return 2

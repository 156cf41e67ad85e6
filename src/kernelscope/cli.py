"""Command line: ``kernelscope diagnose REPORT [REPORT...]``.

Exit codes: 0 success, 2 bad input (one-line message naming the file and the problem, nothing written).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Sequence

from . import __version__, hardware
from .api import diagnose_file
from .errors import InputError, KernelscopeError
from .render.common import FORMATS, render


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
    d.add_argument("reports", nargs="+", metavar="REPORT", help="Nsight Compute report (.ncu-rep) or plain-numbers file (.toml/.json)")
    d.add_argument("--kernel", metavar="REGEX", help="only kernels whose (demangled) name matches REGEX")
    d.add_argument("--top", type=int, metavar="N", help="only the N longest launches of each report")
    d.add_argument("--format", choices=FORMATS, default="table", help="output format (default: table)")
    d.add_argument("--lang", choices=("en", "zh"), default="en", help="language of labels and advice")
    g = d.add_mutually_exclusive_group()
    g.add_argument("--gpu", metavar="NAME", help="use this catalogue GPU's peaks instead of the report's device")
    g.add_argument("--spec", metavar="FILE", help="TOML/JSON file with peak_flops_per_s and dram_bandwidth_bytes_per_s")
    d.add_argument("-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of standard output")
    sub.add_parser("gpus", help="list the GPU catalogue (names usable with --gpu) with its dense peaks")
    return p


def write_atomic(path: str, text: str) -> None:
    """Write ``text`` to ``path`` via a temporary file in the same folder and a rename, so an interrupted
    run never leaves a half-written file.

    Raises:
        OSError: the folder is not writable.
    """
    target = Path(path)
    if target.is_dir():
        raise InputError(path, "is a directory; expected an output file name")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    except OSError as exc:
        raise InputError(path, f"cannot write the output file ({exc.strerror})") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        umask = os.umask(0)
        os.umask(umask)
        mode = target.stat().st_mode & 0o777 if target.exists() else 0o666 & ~umask
        os.chmod(tmp, mode)  # mkstemp creates 0600; give the file the mode a plain open() would
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise InputError(path, f"cannot write the output file ({exc.strerror})") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _diagnose(args: argparse.Namespace) -> int:
    gpu = None
    if args.gpu is not None:
        gpu = hardware.find_gpu(args.gpu)
    elif args.spec is not None:
        gpu = hardware.load_spec(args.spec)
    results = [diagnose_file(path, gpu=gpu, kernel_regex=args.kernel, top=args.top) for path in args.reports]
    if args.output:
        write_atomic(args.output, render(results, args.format, args.lang))
    elif args.format == "table":
        from rich.console import Console

        from .render.table import renderables

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

    for g in hardware.catalogue():
        cc = "-" if g.compute_capability is None else f"{g.compute_capability[0]}.{g.compute_capability[1]}"
        t.add_row(
            Text(g.name), Text(g.architecture or "-"), cc, str(g.sm_count or "-"),
            f"{g.dram_bandwidth_bytes_per_s / 1e9:.4g}", tf(g, "fp64"), tf(g, "fp32"),
            tf(g, "fp16_tensor"), tf(g, "bf16_tensor"), tf(g, "fp8_tensor"),
        )
    Console().print(t)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 ok, 2 bad input)."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "diagnose":
            return _diagnose(args)
        if args.command == "gpus":
            return _gpus()
    except KernelscopeError as exc:
        print(f"kernelscope: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"kernelscope: error: {exc.filename or ''}: {exc.strerror}", file=sys.stderr)
        return 2
    return 2

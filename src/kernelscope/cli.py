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
from .errors import KernelscopeError
from .render.common import FORMATS, render


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
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
    d.add_argument("reports", nargs="+", metavar="REPORT", help="Nsight Compute report (.ncu-rep)")
    d.add_argument("--kernel", metavar="REGEX", help="only kernels whose (demangled) name matches REGEX")
    d.add_argument("--top", type=int, metavar="N", help="only the N longest launches of each report")
    d.add_argument("--format", choices=FORMATS, default="table", help="output format (default: table)")
    d.add_argument("--lang", choices=("en", "zh"), default="en", help="language of labels and advice")
    g = d.add_mutually_exclusive_group()
    g.add_argument("--gpu", metavar="NAME", help="use this catalogue GPU's peaks instead of the report's device")
    g.add_argument("--spec", metavar="FILE", help="TOML/JSON file with peak_flops_per_s and dram_bandwidth_bytes_per_s")
    d.add_argument("-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of standard output")
    return p


def write_atomic(path: str, text: str) -> None:
    """Write ``text`` to ``path`` via a temporary file in the same folder and a rename, so an interrupted
    run never leaves a half-written file.

    Raises:
        OSError: the folder is not writable.
    """
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent if str(target.parent) else ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _diagnose(args: argparse.Namespace) -> int:
    gpu = None
    if args.gpu:
        gpu = hardware.find_gpu(args.gpu)
    elif args.spec:
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


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 ok, 2 bad input)."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "diagnose":
            return _diagnose(args)
    except KernelscopeError as exc:
        print(f"kernelscope: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"kernelscope: error: {exc.filename or ''}: {exc.strerror}", file=sys.stderr)
        return 2
    return 2

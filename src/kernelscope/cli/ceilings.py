"""``kernelscope ceilings``: measure this machine's GPU (DRAM bandwidth, dense GEMM rate per precision) with PyTorch
or CuPy (:mod:`kernelscope.measure`), show the results next to the catalogue's datasheet figures
(:mod:`kernelscope.analysis.ceilings`, :mod:`kernelscope.render.ceilings`), and with ``-o`` write them as a spec file
that ``--spec`` reads (``measured = true``). Without a usable GPU: one line, exit 2, nothing written."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import InputError
from .options import Command, Shared
from .output import show, write_atomic

#: The spec file formats ``-o`` may name, by extension (those :func:`kernelscope.ingest.settings.read_spec` reads).
SPEC_SUFFIXES = {".toml": "toml", ".json": "json"}


def _add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--backend", choices=("auto", "torch", "cupy"), default="auto",
                   help="library that drives the GPU: torch (PyTorch), cupy (CuPy), or auto: PyTorch if it sees a "
                        "GPU, else CuPy (default: auto)")
    p.add_argument("--repeats", type=int, default=10, metavar="N",
                   help="timed samples per quantity, each after warm-up; every rate is over their median (default: 10)")


def _spec_format(output: str | None) -> str | None:
    """The spec file's format from ``-o``'s extension (checked before anything is measured)."""
    if output is None:
        return None
    suffix = Path(output).suffix.lower()
    if suffix not in SPEC_SUFFIXES:
        raise InputError(output, key="spec_file_suffix", values={"value": suffix or 'no extension'})
    return SPEC_SUFFIXES[suffix]


def find_backend(choice: str):  # type: ignore[no-untyped-def]
    """:func:`kernelscope.measure.backends.find_backend`, loaded when the command runs (not at every start)."""
    from ..measure.backends import find_backend as find

    return find(choice)


def _ceilings(args: argparse.Namespace) -> int:
    spec_format = _spec_format(args.output)
    if args.repeats < 1:
        raise InputError("--repeats", key="repeats_at_least_one", values={"repeats": args.repeats})
    from ..analysis.ceilings import compare_with_datasheet, datasheet_for, spec_fields  # (this command only)
    from ..measure.ceilings import Timing, measure_ceilings

    backend = find_backend(args.backend)  # NoGpuError: one line, exit 2, nothing written
    run = measure_ceilings(backend, Timing(repeats=args.repeats))
    datasheet = datasheet_for(run.device_name)
    rows = compare_with_datasheet(run, datasheet)
    if args.output is not None:
        from ..render.ceilings import spec_text

        try:
            fields = spec_fields(run)
        except ValueError as exc:
            raise InputError(args.output, str(exc)) from None
        write_atomic(args.output, spec_text(fields, spec_format or "toml", Path(args.output).name))
    if args.format == "json":
        from ..render.ceilings import ceilings_json

        sys.stdout.write(ceilings_json(run, rows, datasheet, args.lang, args.output))
        return 0
    from ..render.ceilings import ceilings_renderables  # rich only for the command that prints it

    show(ceilings_renderables(run, rows, datasheet, args.lang, args.output))
    return 0


COMMAND = Command(
    name="ceilings",
    help="measure this GPU's DRAM bandwidth and dense matrix rates (FP32, TF32, FP16, BF16, FP8) with PyTorch or "
         "CuPy, next to its datasheet figures; -o writes them as a spec file for --spec",
    description="Measure what this machine's GPU achieves: DRAM bandwidth (a large device-to-device copy) and the "
                "dense matrix-multiply rate of each precision (FP32, TF32, FP16, BF16, FP8), timed with device events "
                "after a warm-up, through PyTorch or CuPy; each beside the catalogue's datasheet figure. -o FILE "
                "writes the measured figures as a spec file (measured = true) that --spec gives to diagnose and "
                "roofline. Needs an NVIDIA GPU and PyTorch (with CUDA) or CuPy.",
    shared=Shared(formats=("table", "json"), format_from_output=False, lang=True,
                  output_help="write the measured ceilings to FILE (.toml or .json), a spec file for --spec marked "
                              "measured = true"),
    add_arguments=_add_arguments,
    run=_ceilings,
)

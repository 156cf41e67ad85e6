"""``kernelscope occupancy``: theoretical occupancy of one launch configuration (``--regs``), or of every kernel of a
``.cu`` file (``--cu``, resources from nvcc/ptxas). Parses the sizes, calls :mod:`kernelscope.analysis.occupancy`
and hands the results to :mod:`kernelscope.render.occupancy`."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ..analysis.occupancy import (
    WHAT_IF, arch_limits, next_step, occupancy, parse_compute_capability, parse_size, what_if,
)
from ..errors import InputError
from .options import OUTPUT_HELP, Command, Shared
from .output import emit, emit_tables, refuse_inputs

if TYPE_CHECKING:
    from ..ingest.ptxas import PtxasKernel
    from ..render.occupancy import KernelOccupancy, Launch, SourceFile

#: Threads per block used with --cu when --threads is not given.
OCCUPANCY_DEFAULT_THREADS = 256

#: API parameter -> the command-line flag an error names.
_FLAGS = {"threads_per_block": "--threads", "registers_per_thread": "--regs", "barriers_per_block": "--barriers",
          "shared_mem_per_block_bytes": "--smem + --dyn-smem", "shared_mem_config_bytes": "--carveout"}


def _add_occupancy_parser(o: argparse.ArgumentParser) -> None:
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


def _occupancy(args: argparse.Namespace) -> int:
    from ..render.occupancy import launch_renderables, source_renderables  # rich only for this command

    if args.output:
        refuse_inputs([args.output], [args.cu])
    try:
        cc, dyn, config = _settings(args)
        what = _launch(args, cc, dyn, config) if args.cu is None else _source(args, cc, dyn, config)
    except InputError as exc:  # name the command-line flag rather than the API parameter
        if exc.source in _FLAGS:
            raise exc.relabelled(_FLAGS[exc.source]) from None
        raise
    if args.format == "json":
        from ..render.json_commands import occupancy_json

        return emit(args.output, occupancy_json(what, args.lang))
    items = launch_renderables(what, args.lang) if args.cu is None else source_renderables(what, args.lang)  # type: ignore[arg-type]
    return emit_tables(args.output, items, args.format)


def _settings(args: argparse.Namespace) -> tuple[tuple[int, int], int, int | None]:
    """Compute capability, dynamic shared memory (bytes) and the carveout (bytes; None: kernelscope picks it)."""
    cc = parse_compute_capability(args.arch, "--arch")
    arch_limits(cc)  # an unsupported compute capability fails here, before the sizes are read
    dyn = parse_size(args.dyn_smem, "--dyn-smem")
    config = None
    if args.carveout is not None:
        text = args.carveout.strip()
        config = int(text) * 1024 if text.isdigit() else parse_size(text, "--carveout")
    return cc, dyn, config


def _launch(args: argparse.Namespace, cc: tuple[int, int], dyn: int, config: int | None) -> Launch:
    """One launch configuration (--threads, --regs, --smem + --dyn-smem, --barriers), with its next steps and
    what-if tables."""
    from ..render.occupancy import Launch

    if args.threads is None:
        raise InputError("--threads", "missing; give the threads per block (e.g. --threads 256)", key="threads_missing")
    smem = (0 if args.smem is None else parse_size(args.smem, "--smem")) + dyn
    o = occupancy(cc, args.threads, args.regs, smem, config, barriers_per_block=args.barriers or 0)
    return Launch(compute_capability=cc, limits=arch_limits(cc), occupancy=o, next_steps=next_step(o),
                  what_if={vary: what_if(o, vary) for vary in WHAT_IF})


def _source(args: argparse.Namespace, cc: tuple[int, int], dyn: int, config: int | None) -> SourceFile:
    """Every kernel of the --cu file, compiled with nvcc for --arch, at --threads per block."""
    from ..ingest.ptxas import compile_resource_usage
    from ..render.occupancy import SourceFile

    if args.smem is not None:
        raise InputError("--smem", key="smem_with_cu")
    threads = OCCUPANCY_DEFAULT_THREADS if args.threads is None else args.threads
    occupancy(cc, threads, 0, 0, config)  # validates --threads and --carveout once, before compiling
    text = args.arch.strip().lower()
    nvcc_arch = text if text.startswith("sm_") else f"sm_{cc[0]}{cc[1]}"
    report = compile_resource_usage(args.cu, nvcc_arch)
    return SourceFile(
        path=args.cu, nvcc_arch=nvcc_arch, compute_capability=cc, limits=arch_limits(cc), threads_per_block=threads,
        threads_defaulted=args.threads is None, dynamic_shared_mem_bytes=dyn,
        kernels=[_kernel(k, cc, threads, dyn, config, args.barriers) for k in report.kernels],
        ptxas_warnings=report.warnings,
    )


def _kernel(k: PtxasKernel, cc: tuple[int, int], threads: int, dyn: int, config: int | None,
            barriers: int | None) -> KernelOccupancy:
    """One kernel's occupancy with its ptxas resources (--barriers overrides ptxas' barrier count)."""
    from ..render.occupancy import KernelOccupancy

    bound = getattr(k, "max_threads_per_block", None)  # __launch_bounds__: a larger block does not launch at all
    if bound is not None and threads > bound:
        return KernelOccupancy(kernel=k, occupancy=None, error=InputError(
            "--threads", key="launch_bounds_exceeded", values={"threads": threads, "max": bound}))
    try:
        o = occupancy(cc, threads, k.registers_per_thread, k.shared_mem_static_bytes + dyn, config,
                      barriers_per_block=barriers if barriers is not None else (k.barriers or 0))
    except InputError as exc:
        return KernelOccupancy(kernel=k, occupancy=None, error=exc)
    steps = [s for s in next_step(o, spills=k.spills)  # no step to a block size its __launch_bounds__ refuses
             if not (bound is not None and s.parameter == "threads_per_block" and s.proposed > bound)]
    return KernelOccupancy(kernel=k, occupancy=o, next_steps=steps)


COMMAND = Command(
    name="occupancy",
    help="theoretical occupancy of a launch configuration, or of every kernel of a .cu file (via nvcc/ptxas)",
    description="Blocks and warps per SM a launch gets, which resource limits it, and the smallest change "
    "that reaches the next occupancy step. Sizes take bytes or KiB: 49152, 48K, 48KiB.",
    shared=Shared(formats=("table", "json", "markdown"), lang=True,
                  output_help=OUTPUT_HELP),
    add_arguments=_add_occupancy_parser,
    run=_occupancy,
)

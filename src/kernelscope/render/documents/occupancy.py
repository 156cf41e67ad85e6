"""``kernelscope.occupancy/1``: the JSON document of ``kernelscope occupancy --format json``.

Theoretical occupancy of one launch configuration (``--regs``: the result, the blocks per SM each resource allows,
the next steps and the what-if rows) or of every kernel of a ``.cu`` file (``--cu``: ptxas' resource usage and the
occupancy each kernel gets). Sizes in bytes (``_bytes``), occupancy in percent 0-100 (``_pct``), counts plain
integers.
"""

from typing import Annotated, Literal

from msgspec import Meta

from .common import Doc, Lang, Version

__all__ = [
    "ArchLimitsDoc", "BlockLimitDoc", "KernelOccupancyDoc", "LaunchOccupancyDoc", "NextStepDoc", "OccupancyReportDoc",
    "OccupancyResultDoc", "SourceOccupancyDoc", "StepResultDoc", "WhatIfDoc", "WhatIfRowDoc",
]

Resource = Annotated[Literal["warps", "registers", "shared_mem", "blocks", "barriers"], Meta(
    description="an SM resource: warp slots, registers, shared memory, the resident-blocks limit, named barriers")]
Limiters = Annotated[list[Resource], Meta(description=(
    "every resource whose limit equals the active blocks (ties all listed); empty only when the launch cannot run "
    "for a reason none of them names"))]
Parameter = Annotated[Literal["threads_per_block", "registers_per_thread", "shared_mem_per_block_bytes",
                              "shared_mem_config_bytes"],
                      Meta(description="a launch parameter (its unit in its name: threads, registers, bytes)")]


class ArchLimitsDoc(Doc):
    """the per-SM resources of the compute capability (kernelscope/data/occupancy.toml, each number with its source)"""

    warp_size: Annotated[int, Meta(description="threads per warp")]
    max_threads_per_block: Annotated[int, Meta(description="largest block, threads")]
    max_warps_per_sm: Annotated[int, Meta(description="resident warps per SM (warp slots)")]
    max_blocks_per_sm: Annotated[int, Meta(description="resident blocks per SM")]
    registers_per_sm: Annotated[int, Meta(description="32-bit registers per SM")]
    max_registers_per_block: Annotated[int, Meta(description="32-bit registers one block may use")]
    max_registers_per_thread: Annotated[int, Meta(description="32-bit registers one thread may use")]
    register_allocation_unit: Annotated[int, Meta(description="registers are allocated per warp in units of this many")]
    sub_partitions: Annotated[int, Meta(description="SM sub-partitions the register file is split between")]
    shared_mem_per_sm_bytes: Annotated[int, Meta(description="largest shared-memory capacity per SM, bytes")]
    shared_mem_per_block_bytes: Annotated[int, Meta(description="shared memory per block without opt-in, bytes")]
    shared_mem_per_block_optin_bytes: Annotated[int, Meta(description=(
        "shared memory per block with opt-in, bytes (without the driver's reserved bytes)"))]
    shared_mem_allocation_unit_bytes: Annotated[int, Meta(description="a block's shared memory is rounded up to this, bytes")]
    shared_mem_reserved_per_block_bytes: Annotated[int, Meta(description="shared memory the driver reserves per block, bytes")]
    shared_mem_carveouts_bytes: Annotated[list[int], Meta(description="configurable shared-memory sizes per SM, ascending, bytes")]
    max_barriers_per_block: Annotated[int, Meta(description="named barriers a block may use")]
    block_barriers_per_sm: Annotated[int | None, Meta(description=(
        "barrier budget per SM (checked from compute capability 9.0); null: no barrier limit applies"))]


class BlockLimitDoc(Doc):
    """the blocks per SM one resource allows"""

    resource: Resource
    blocks_per_sm: Annotated[int, Meta(description=(
        "blocks per SM this resource allows (count); a resource the launch does not use shows the blocks-per-SM "
        "maximum, as Nsight Compute's launch__occupancy_limit_* metrics do"))]
    limiter: Annotated[bool, Meta(description="true when this resource limits the active blocks")]


class OccupancyResultDoc(Doc):
    """the theoretical occupancy of one launch configuration on one SM"""

    threads_per_block: Annotated[int, Meta(description="threads per block, as given")]
    warps_per_block: Annotated[int, Meta(description="warp slots one block takes: ceil(threads / 32)")]
    registers_per_thread: Annotated[int, Meta(description="registers per thread, as given")]
    registers_per_thread_allocated: Annotated[int, Meta(description="registers per thread as allocated (rounded up)")]
    registers_per_block_allocated: Annotated[int, Meta(description="registers one block is allocated")]
    shared_mem_per_block_bytes: Annotated[int, Meta(description="static + dynamic shared memory per block, as given, bytes")]
    shared_mem_per_block_allocated_bytes: Annotated[int, Meta(description=(
        "shared memory one block is allocated: given + the driver's reserved bytes, rounded up to the allocation unit, bytes"))]
    shared_mem_config_bytes: Annotated[int, Meta(description="the SM's shared-memory size (carveout) used, bytes")]
    shared_mem_config_requested_bytes: Annotated[int | None, Meta(description=(
        "the carveout asked for with --carveout, bytes; null: kernelscope chose the smallest size that holds as many "
        "blocks as the other limits allow"))]
    barriers_per_block: Annotated[int, Meta(description="named barriers one block uses (0: none or not known)")]
    block_limits: Annotated[list[BlockLimitDoc], Meta(description=(
        "the blocks per SM each resource allows, in the order warps, registers, shared_mem, blocks, barriers "
        "(barriers only from compute capability 9.0)"))]
    active_blocks_per_sm: Annotated[int, Meta(description="resident blocks per SM: the smallest limit (0: cannot launch)")]
    active_warps_per_sm: Annotated[int, Meta(description="resident warps per SM: active blocks x warps per block")]
    max_warps_per_sm: Annotated[int, Meta(description="the SM's warp slots")]
    occupancy_pct: Annotated[float, Meta(description="theoretical occupancy: active warps / max warps, percent 0-100")]
    limiters: Limiters
    can_launch: Annotated[bool, Meta(description="false when not one block fits on an SM (active_blocks_per_sm is 0)")]
    summary: Annotated[str, Meta(description="the result in one sentence, in the document's language")]


class StepResultDoc(Doc):
    """the occupancy a changed launch parameter gives"""

    active_blocks_per_sm: Annotated[int, Meta(description="resident blocks per SM")]
    active_warps_per_sm: Annotated[int, Meta(description="resident warps per SM")]
    occupancy_pct: Annotated[float, Meta(description="theoretical occupancy, percent 0-100")]
    limiters: Limiters


class NextStepDoc(Doc):
    """the smallest change of one launch parameter that raises the resident warps per SM"""

    parameter: Parameter
    current: Annotated[int, Meta(description="the parameter's value now, in its unit (for the carveout: the size used)")]
    proposed: Annotated[int, Meta(description="the value that reaches the next step, in the parameter's unit")]
    result: StepResultDoc
    text: Annotated[str, Meta(description="the step in one line, in the document's language")]


class WhatIfRowDoc(Doc):
    """the occupancy with the varied parameter at one value, the others as given"""

    value: Annotated[int, Meta(description="the varied parameter's value, in its unit (threads, registers, bytes)")]
    active_blocks_per_sm: Annotated[int, Meta(description="resident blocks per SM (0: cannot launch)")]
    active_warps_per_sm: Annotated[int, Meta(description="resident warps per SM")]
    occupancy_pct: Annotated[float, Meta(description="theoretical occupancy, percent 0-100")]
    limiters: Limiters


class WhatIfDoc(Doc):
    """one parameter varied over the values that matter (threads: multiples of 32; registers: each allocation step;
    shared memory: the most a block may use for each number of blocks per SM)"""

    parameter: Annotated[Literal["threads_per_block", "registers_per_thread", "shared_mem_per_block_bytes"],
                         Meta(description="the varied launch parameter")]
    rows: Annotated[list[WhatIfRowDoc], Meta(description="one per value, ascending")]


class LaunchOccupancyDoc(Doc):
    """one launch configuration (--threads, --regs, --smem + --dyn-smem, --barriers, --carveout)"""

    occupancy: OccupancyResultDoc
    next_steps: Annotated[list[NextStepDoc], Meta(description=(
        "per parameter, the smallest change that reaches more warps (registers, shared memory, threads, carveout); "
        "empty: no single change does"))]
    what_if: Annotated[list[WhatIfDoc], Meta(description="threads per block, registers per thread, shared memory per block varied")]


class KernelOccupancyDoc(Doc):
    """one kernel of the .cu file: ptxas' resource usage and the occupancy it gets"""

    name: Annotated[str, Meta(description="mangled kernel name as ptxas prints it (user data: escape before display)")]
    demangled_name: Annotated[str, Meta(description="demangled signature (the name when it cannot be demangled)")]
    registers_per_thread: Annotated[int, Meta(description="registers per thread (ptxas)")]
    shared_mem_static_bytes: Annotated[int, Meta(description="static shared memory per block (ptxas), bytes")]
    barriers: Annotated[int | None, Meta(description="named barriers (ptxas); null: ptxas did not print a count")]
    stack_frame_bytes: Annotated[int | None, Meta(description="stack frame per thread (ptxas), bytes; null: not printed")]
    spill_stores_bytes: Annotated[int, Meta(description="register spill stores per thread (ptxas), bytes")]
    spill_loads_bytes: Annotated[int, Meta(description="register spill loads per thread (ptxas), bytes")]
    spills: Annotated[bool, Meta(description="true when the kernel spills registers to local memory")]
    ptxas_warnings: Annotated[list[str], Meta(description=(
        "ptxas' warnings that cite this kernel, as ptxas printed them (e.g. '.minnctapersm will be ignored': its "
        "__launch_bounds__ minimum blocks dropped); empty: none"))]
    occupancy: Annotated[OccupancyResultDoc | None, Meta(description=(
        "the occupancy at the file's block size; null: the kernel cannot launch with these settings (see error)"))]
    error: Annotated[str | None, Meta(description="why it cannot launch (one line); null: it can")]
    next_steps: Annotated[list[NextStepDoc], Meta(description="the next occupancy steps; empty: none, or it cannot launch")]


class SourceOccupancyDoc(Doc):
    """every kernel of a .cu file compiled with nvcc (ptxas -v), analysed at one block size"""

    path: Annotated[str, Meta(description="the .cu file as given (user data: escape before display)")]
    nvcc_arch: Annotated[str, Meta(description="the -arch it was compiled for, e.g. sm_90")]
    threads_per_block: Annotated[int, Meta(description="the block size used for every kernel, threads")]
    threads_defaulted: Annotated[bool, Meta(description="true when --threads was not given (the default block size)")]
    dynamic_shared_mem_bytes: Annotated[int, Meta(description="dynamic shared memory added to every kernel's static shared memory, bytes")]
    kernels: Annotated[list[KernelOccupancyDoc], Meta(description="one per kernel, in ptxas' order")]
    ptxas_warnings: Annotated[list[str], Meta(description="ptxas' warnings that cite no kernel, as printed; empty: none")]


class OccupancyReportDoc(Doc):
    """Output of `kernelscope occupancy --format json`: the theoretical occupancy of one launch configuration
    (launch) or of every kernel of a .cu file (source); exactly one of the two is non-null. Rules: those of the CUDA
    occupancy calculator (cuda_occupancy.h) and the CUDA C++ Programming Guide (kernelscope.analysis.occupancy)."""

    schema: Annotated[Literal["kernelscope.occupancy/1"], Meta(description="document schema id and version")]
    kernelscope_version: Version
    lang: Lang
    compute_capability: Annotated[tuple[int, int], Meta(description="[major, minor] of --arch")]
    architecture: Annotated[str, Meta(description="family name of that compute capability")]
    limits: ArchLimitsDoc
    launch: Annotated[LaunchOccupancyDoc | None, Meta(description="the launch configuration (--regs); null with --cu")]
    source: Annotated[SourceOccupancyDoc | None, Meta(description="every kernel of the .cu file (--cu); null with --regs")]

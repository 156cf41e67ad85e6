"""Theoretical occupancy: how many blocks and warps of a launch fit on one SM, exactly as the hardware allocates.

Pure functions over frozen dataclasses. The per-compute-capability resources live in ``data/occupancy.toml`` (:mod:`kernelscope.knowledge.occupancy`)
(every number with its source); the allocation rules applied here are those of the CUDA occupancy
calculator (CUDA 13.0 ``cuda_occupancy.h``) and of the CUDA C++ Programming Guide:

* **warps**: a block takes ceil(threads / 32) warp slots; blocks by warps = max warps per SM // that.
* **registers**: allocated per *warp*, regs/thread x 32 rounded up to 256 (regs/thread rounded up to a
  multiple of 8). The register file is split evenly between the SM's sub-partitions (4; 2 on CC 6.0) and
  a warp lives in one, so warps per SM by registers = floor(regs per SM / sub-partitions / regs per warp)
  x sub-partitions (the "4-warp granularity"); blocks = that // warps per block. A launch whose block
  needs more than the per-block register limit, counting its warps rounded up to a multiple of the
  sub-partitions (the hardware check), gets 0 blocks: it cannot launch.
* **shared memory**: static + dynamic + the bytes the driver reserves per block (1 KiB from CC 8.0),
  rounded up to the allocation unit (256 B up to CC 7.x, 128 B from 8.0); blocks = the SM's configured
  shared-memory size (the *carveout*) // that.
* **blocks**: the fixed number of resident blocks per SM.
* **barriers** (CC 9.0 and later, as ``cuda_occupancy.h`` does): blocks = the SM's barrier budget //
  named barriers used per block; no limit when a block uses none.

A resource the launch does not use (0 registers, no shared memory on CC < 8.0, no barriers) sets no limit;
its entry in :attr:`Occupancy.block_limits` then shows the blocks-per-SM maximum, as Nsight Compute's
``launch__occupancy_limit_*`` metrics do, and it is never named a limiter.

**Carveout.** An explicit ``shared_mem_config_bytes`` (e.g. Nsight Compute's ``launch__shared_mem_config_size``,
the size the driver actually used) must be one of the architecture's configurable sizes; when it is smaller
than one block needs, the driver overrides the preference and the smallest size that fits one block is used
(``cuda_occupancy.h``; the carveout attribute "is only a hint" per the CUDA Runtime API). Without one,
kernelscope picks the smallest configurable size that holds as many blocks as the other limits allow, so
shared memory never lowers the occupancy the other resources allow. The real driver may configure a larger
size (it also weighs kernels already running on the SM; the Volta/Ampere tuning guides: "the driver
automatically configures the shared memory capacity for each kernel to avoid shared memory occupancy
bottlenecks while also allowing concurrent execution with already launched kernels where possible"), which
changes only the shared-memory block limit, never the active blocks. With a carveout kernelscope chose,
shared memory is named a limiter only when even the largest carveout would not hold more blocks.

Percentages are 0-100; sizes are bytes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from types import MappingProxyType
from typing import Mapping

from ..errors import InputError
from ..notes import Listed
from ..knowledge.occupancy import ArchLimits, arch_limits, supported_compute_capabilities
from ..model import KernelProfile

__all__ = ["RESOURCES", "WHAT_IF", "ArchLimits", "NextStep", "Occupancy", "arch_limits", "next_step", "occupancy",
           "occupancy_of", "parse_compute_capability", "parse_size", "stage_cost", "stage_costs_occupancy", "block_size_step", "waves_per_sm",
           "supported_compute_capabilities", "what_if"]

#: Keys of :attr:`Occupancy.block_limits`, in display order ("barriers" only from CC 9.0).
RESOURCES: tuple[str, ...] = ("warps", "registers", "shared_mem", "blocks", "barriers")

#: What :func:`what_if` can vary.
WHAT_IF: tuple[str, ...] = ("threads_per_block", "registers_per_thread", "shared_mem_per_block_bytes")

_KIB = 1024


def _cc_key(cc: tuple[int, int]) -> str:
    return f"{cc[0]}.{cc[1]}"


@dataclass(frozen=True)
class Occupancy:
    """Theoretical occupancy of one launch configuration on one SM.

    Attributes:
        compute_capability: ``(major, minor)``.
        threads_per_block: threads per block, as given.
        warps_per_block: warp slots one block takes (ceil(threads / 32)).
        registers_per_thread: registers per thread, as given.
        registers_per_thread_allocated: registers per thread as allocated (rounded up to the allocation unit).
        registers_per_block_allocated: registers one block is allocated (allocated per warp x warps per block).
        shared_mem_per_block_bytes: static + dynamic shared memory per block, as given, bytes.
        shared_mem_per_block_allocated_bytes: shared memory one block is allocated: given + the driver's
            reserved bytes, rounded up to the allocation unit, bytes.
        shared_mem_config_bytes: the SM's shared-memory size (carveout) used for the shared-memory limit, bytes.
        shared_mem_config_requested_bytes: the carveout that was asked for, or None when kernelscope chose it.
        barriers_per_block: named barriers one block uses (0: none or not known).
        block_limits: resource (see :data:`RESOURCES`) -> blocks per SM that resource allows. "barriers" only
            from CC 9.0. A resource the launch does not use shows the blocks-per-SM maximum.
        active_blocks_per_sm: resident blocks per SM (the smallest limit; 0: the launch cannot run).
        active_warps_per_sm: resident warps per SM (active blocks x warps per block).
        max_warps_per_sm: the SM's warp slots.
        occupancy_pct: active warps / max warps, 0-100.
        limiters: every resource whose limit equals the active blocks (ties all listed), in
            :data:`RESOURCES` order. A resource the launch does not use is never listed; nor is shared memory
            when kernelscope chose the carveout and the largest carveout would hold more blocks (the tie
            then only reflects a carveout sized to the other limits).
    """

    compute_capability: tuple[int, int]
    threads_per_block: int
    warps_per_block: int
    registers_per_thread: int
    registers_per_thread_allocated: int
    registers_per_block_allocated: int
    shared_mem_per_block_bytes: int
    shared_mem_per_block_allocated_bytes: int
    shared_mem_config_bytes: int
    shared_mem_config_requested_bytes: int | None
    barriers_per_block: int
    block_limits: Mapping[str, int]
    active_blocks_per_sm: int
    active_warps_per_sm: int
    max_warps_per_sm: int
    occupancy_pct: float
    limiters: tuple[str, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "block_limits", MappingProxyType(dict(self.block_limits)))


@dataclass(frozen=True)
class NextStep:
    """The smallest change of one launch parameter that raises the resident warps per SM.

    Attributes:
        parameter: ``"registers_per_thread"``, ``"shared_mem_per_block_bytes"``, ``"threads_per_block"`` or
            ``"shared_mem_config_bytes"`` (only when the carveout was fixed by the caller).
        current: the parameter's value now (for the carveout: the size used, bytes).
        proposed: the value that reaches the next step.
        result: the occupancy with ``proposed``.
    """

    parameter: str
    current: int
    proposed: int
    result: Occupancy


# ----------------------------------------------------------------------------------------------- data


def parse_compute_capability(text: str, source: str = "--arch") -> tuple[int, int]:
    """``"sm_90"``, ``"sm_90a"``, ``"compute_120"``, ``"90"``, ``"9.0"`` or ``"10.3"`` -> ``(major, minor)``.

    In the ``sm_XY`` forms the last digit is the minor version (``sm_100`` -> 10.0, ``sm_86`` -> 8.6).

    Raises:
        InputError: any other text, or a compute capability kernelscope has no data for.
    """
    t = text.strip().lower()
    m = re.fullmatch(r"(\d+)\.(\d)", t) or re.fullmatch(r"(?:sm_|compute_)?(\d+)(\d)[af]?", t)
    if m is None:
        raise InputError(source, key="bad_arch", values={"text": text})
    cc = (int(m.group(1)), int(m.group(2)))
    if cc not in supported_compute_capabilities():
        known = Listed(f"sm_{a}{b}" for a, b in supported_compute_capabilities())
        raise InputError(
            source, key="arch_unsupported", values={"text": text, "cc": _cc_key(cc), "known": known}
        )
    return cc


_UNITS = {"b": 1, "k": _KIB, "kb": _KIB, "kib": _KIB, "m": _KIB**2, "mb": _KIB**2, "mib": _KIB**2}
_SIZE = re.compile(r"(\d+)\s*(b|k|kb|kib|m|mb|mib)?", re.IGNORECASE)


def parse_size(text: str, source: str) -> int:
    """A size in bytes from ``"49152"``, ``"48K"``, ``"48KB"``, ``"48KiB"`` or ``"1MiB"`` (K/KB/KiB = 1024 bytes,
    as CUDA documentation uses "KB"; M/MB/MiB = 1024 KiB).

    Raises:
        InputError: anything else (negative, fractional, unknown unit), naming ``source``.
    """
    m = _SIZE.fullmatch(text.strip())
    if m is None:
        raise InputError(source, key="bad_size", values={"text": text})
    unit = (m.group(2) or "b").lower()
    return int(m.group(1)) * _UNITS[unit]


# ------------------------------------------------------------------------------------------- calculator


def _round_up(x: int, unit: int) -> int:
    return -(-x // unit) * unit


def _check_int(name: str, value: object, lo: int, hi: int, cc: str, *, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(name, key="not_integer", values={"value": value})
    if not lo <= value <= hi:
        sizes = {f"{k}_kib": v / _KIB for k, v in (("value", value), ("lo", lo), ("hi", hi))}  # bytes keys: KiB
        raise InputError(name, key=key, values={"value": value, "lo": lo, "hi": hi, "cc": cc, **sizes})
    return value


def _register_limit(a: ArchLimits, warps_per_block: int, regs: int) -> tuple[int | None, int]:
    """(blocks per SM allowed by registers or None for no limit, registers allocated per warp)."""
    per_warp = _round_up(regs * a.warp_size, a.register_allocation_unit)
    if per_warp == 0:
        return None, 0
    assumed = per_warp * _round_up(warps_per_block, a.sub_partitions)  # hardware check: all sub-partitions
    if assumed > a.max_registers_per_block or per_warp * warps_per_block > a.max_registers_per_block:
        return 0, per_warp
    warps_per_sub_partition = a.registers_per_sm // a.sub_partitions // per_warp
    blocks = warps_per_sub_partition * a.sub_partitions // warps_per_block
    if a.register_limit_also_checks is not None and blocks > 0:
        other, _ = _register_limit(arch_limits(a.register_limit_also_checks), warps_per_block, regs)
        if other == 0:
            blocks = 0
    return blocks, per_warp


def _smem_fits(config: int, allocated: int) -> int | None:
    return None if allocated == 0 else config // allocated


def occupancy(
    compute_capability: tuple[int, int],
    threads_per_block: int,
    registers_per_thread: int,
    shared_mem_per_block_bytes: int = 0,
    shared_mem_config_bytes: int | None = None,
    *,
    barriers_per_block: int = 0,
) -> Occupancy:
    """Theoretical occupancy of a launch on one SM (rules in the module docstring).

    Args:
        compute_capability: ``(major, minor)``, one of :func:`supported_compute_capabilities`.
        threads_per_block: threads per block, 1..max threads per block.
        registers_per_thread: registers per thread as the compiler reports them, 0..max registers per thread (255).
        shared_mem_per_block_bytes: static + dynamic shared memory per block, bytes (without the driver's
            reserved bytes), 0..the opt-in maximum per block.
        shared_mem_config_bytes: the SM's shared-memory size (carveout) in bytes, one of the architecture's
            configurable sizes; None to pick the smallest size that holds as many blocks as the other limits allow.
        barriers_per_block: named barriers one block uses (ptxas ``used N barriers``); 0 when none or not known.
            Only CC 9.0 and later limit blocks by barriers.

    Raises:
        InputError: an unsupported compute capability or a value outside its range (one line, naming the
            parameter and the allowed range).
    """
    a = arch_limits(compute_capability)
    cc = a.compute_capability
    name = _cc_key(cc)
    threads = _check_int("threads_per_block", threads_per_block, 1, a.max_threads_per_block, name,
                         key="out_of_range")
    regs = _check_int("registers_per_thread", registers_per_thread, 0, a.max_registers_per_thread, name,
                      key="out_of_range")
    smem = _check_int(
        "shared_mem_per_block_bytes", shared_mem_per_block_bytes, 0, a.shared_mem_per_block_optin_bytes,
        name, key="out_of_range_optin",
    )
    barriers = _check_int("barriers_per_block", barriers_per_block, 0, a.max_barriers_per_block, name,
                          key="out_of_range")
    if shared_mem_config_bytes is not None:
        _check_int("shared_mem_config_bytes", shared_mem_config_bytes, 0, a.shared_mem_per_sm_bytes, name,
                   key="out_of_range_bytes")
        if shared_mem_config_bytes not in a.shared_mem_carveouts_bytes:
            choices = Listed(c // _KIB for c in a.shared_mem_carveouts_bytes)
            raise InputError(
                "shared_mem_config_bytes",
                key="bad_smem_config",
                    values={"shared_mem_config_bytes": shared_mem_config_bytes, "cc": _cc_key(cc), "choices": choices},
            )

    warps = -(-threads // a.warp_size)
    limits: dict[str, int | None] = {"warps": a.max_warps_per_sm // warps}
    limits["registers"], regs_per_warp = _register_limit(a, warps, regs)
    smem_allocated = _round_up(smem + a.shared_mem_reserved_per_block_bytes, a.shared_mem_allocation_unit_bytes)
    limits["shared_mem"] = None  # filled in below, once the carveout is known
    limits["blocks"] = a.max_blocks_per_sm
    if a.block_barriers_per_sm is not None:
        limits["barriers"] = a.block_barriers_per_sm // barriers if barriers else None

    fitting = [c for c in a.shared_mem_carveouts_bytes if c >= smem_allocated]  # non-empty: smem <= opt-in
    if shared_mem_config_bytes is not None:
        config = shared_mem_config_bytes if shared_mem_config_bytes >= smem_allocated else fitting[0]
    else:
        target = max(1, min(v for k, v in limits.items() if v is not None and k != "shared_mem"))
        enough = [c for c in fitting if smem_allocated == 0 or c // smem_allocated >= target]
        config = enough[0] if enough else fitting[-1]
    limits["shared_mem"] = _smem_fits(config, smem_allocated)

    active = min(v for v in limits.values() if v is not None)
    limiting = [k for k in RESOURCES if limits.get(k) is not None and limits[k] == active]
    if shared_mem_config_bytes is None and "shared_mem" in limiting and smem_allocated:
        if a.shared_mem_carveouts_bytes[-1] // smem_allocated > active:
            limiting.remove("shared_mem")  # a tie only because the carveout was sized to the other limits
    return Occupancy(
        compute_capability=cc,
        threads_per_block=threads,
        warps_per_block=warps,
        registers_per_thread=regs,
        registers_per_thread_allocated=regs_per_warp // a.warp_size,
        registers_per_block_allocated=regs_per_warp * warps,
        shared_mem_per_block_bytes=smem,
        shared_mem_per_block_allocated_bytes=smem_allocated,
        shared_mem_config_bytes=config,
        shared_mem_config_requested_bytes=shared_mem_config_bytes,
        barriers_per_block=barriers,
        block_limits={k: (a.max_blocks_per_sm if v is None else v) for k, v in limits.items()},
        active_blocks_per_sm=active,
        active_warps_per_sm=active * warps,
        max_warps_per_sm=a.max_warps_per_sm,
        occupancy_pct=100.0 * active * warps / a.max_warps_per_sm,
        limiters=tuple(limiting),
    )


def occupancy_of(kernel: KernelProfile, compute_capability: tuple[int, int] | None = None) -> Occupancy | None:
    """Theoretical occupancy of a profiled launch, from its compute capability, block shape, registers per thread,
    static + dynamic shared memory and (when recorded) the shared-memory configuration the driver used.

    ``compute_capability`` stands in for the profile's when the profile does not record one (an nvprof GPU trace
    names its device, not its compute capability: the catalogue entry of that device gives it).

    Returns None when one of those is not recorded, the compute capability is not in ``data/occupancy.toml``,
    or the recorded values are out of range.

    Named barriers count as 0 (no barrier limit): Nsight Compute records ``launch__barrier_count``, but its
    ``launch__occupancy_limit_barriers`` (32 for one barrier on CC 9.0, Nsight Compute 2025.1) and
    ``cuda_occupancy.h`` (2 x 32 / 1 = 64) disagree, so the count is not used; with 0 the barrier limit shows
    the blocks-per-SM maximum, which is what Nsight Compute reports in every corpus report. Nsight Compute
    2021.x computed its shared-memory limit with the SM's maximum shared memory instead of the configured
    size, so its ``launch__occupancy_limit_shared_mem`` can be higher than this one (never the active blocks).
    """
    launch = kernel.launch
    cc = kernel.device.compute_capability or compute_capability
    needed = (cc, launch.threads_per_block, launch.registers_per_thread,
              launch.shared_mem_static_bytes, launch.shared_mem_dynamic_bytes)
    if any(v is None for v in needed) or cc not in supported_compute_capabilities():
        return None
    config = launch.shared_mem_config_bytes
    try:
        o = occupancy(
            cc, launch.threads_per_block, launch.registers_per_thread,
            launch.shared_mem_static_bytes + launch.shared_mem_dynamic_bytes,
            config if config is not None and config in arch_limits(cc).shared_mem_carveouts_bytes else None,
        )
    except InputError:
        return None
    largest = arch_limits(cc).shared_mem_carveouts_bytes[-1]
    if "shared_mem" in o.limiters and len(o.limiters) > 1 and o.shared_mem_per_block_allocated_bytes \
            and largest // o.shared_mem_per_block_allocated_bytes > o.active_blocks_per_sm:
        # the driver sized the carveout of this launch to the other limits (32 one-warp blocks with no shared memory
        # of their own fill a 32 KiB carveout with their 1 KiB reserve each): the tie is not a shared-memory limit
        o = replace(o, limiters=tuple(x for x in o.limiters if x != "shared_mem"))
    return o


def waves_per_sm(kernel: KernelProfile, occupancy: Occupancy | None, sm_count: int | None) -> float | None:
    """Full waves of the grid: Nsight's ``launch__waves_per_multiprocessor`` when measured, else
    blocks / (active blocks per SM x SM count). None when neither is known."""
    if kernel.launch.waves_per_sm is not None:
        return kernel.launch.waves_per_sm
    blocks = kernel.launch.blocks
    if blocks is None or occupancy is None or not sm_count or occupancy.active_blocks_per_sm == 0:
        return None
    return blocks / (occupancy.active_blocks_per_sm * sm_count)


# --------------------------------------------------------------------------------------------- what-if


def _with(base: Occupancy, **change: int) -> Occupancy:
    args = {
        "threads_per_block": base.threads_per_block,
        "registers_per_thread": base.registers_per_thread,
        "shared_mem_per_block_bytes": base.shared_mem_per_block_bytes,
        "shared_mem_config_bytes": base.shared_mem_config_requested_bytes,
    }
    args.update(change)
    return occupancy(base.compute_capability, barriers_per_block=base.barriers_per_block, **args)


def _values(base: Occupancy, vary: str) -> list[int]:
    a = arch_limits(base.compute_capability)
    if vary == "threads_per_block":
        return list(range(a.warp_size, a.max_threads_per_block + 1, a.warp_size))
    if vary == "registers_per_thread":
        step = a.register_allocation_unit // a.warp_size
        top = a.max_registers_per_thread
        return sorted({*range(step, top + 1, step), top})
    if vary == "shared_mem_per_block_bytes":
        configs = (
            a.shared_mem_carveouts_bytes if base.shared_mem_config_requested_bytes is None
            else (base.shared_mem_config_requested_bytes,)
        )
        unit, reserved = a.shared_mem_allocation_unit_bytes, a.shared_mem_reserved_per_block_bytes
        found = {0, a.shared_mem_per_block_optin_bytes}
        for c in configs:
            for n in range(1, a.max_blocks_per_sm + 1):
                found.add(c // n // unit * unit - reserved)  # the most a block may use for n blocks in c
        return sorted(v for v in found if 0 <= v <= a.shared_mem_per_block_optin_bytes)
    raise InputError("vary", key="cannot_vary", values={"vary": vary, "what_if": Listed(WHAT_IF)})


def what_if(base: Occupancy, vary: str) -> tuple[tuple[int, Occupancy], ...]:
    """Occupancy of ``base`` with one parameter changed, over the values that matter.

    ``vary``: ``"threads_per_block"`` (32 to the maximum, step 32), ``"registers_per_thread"`` (each register
    allocation step: multiples of 8 and the per-thread maximum) or ``"shared_mem_per_block_bytes"`` (0, the
    opt-in maximum and, for every carveout and block count n, the most a block may use for n blocks to fit).
    Other parameters, including a carveout the caller fixed, stay as in ``base``.

    Returns:
        ``(value, occupancy)`` pairs in ascending value order.

    Raises:
        InputError: an unknown ``vary``.
    """
    return tuple((v, _with(base, **{vary: v})) for v in _values(base, vary))


def stage_cost(base: Occupancy) -> dict[str, int]:
    """What a second pipeline stage (double buffering: the next tile prefetched while the current one is used) may
    cost the launch's resident blocks, as values for the remedies' text: ``stage_blocks`` (blocks per SM now),
    ``stage_regs`` (registers per thread now), ``stage_regs_max`` (the most registers per thread that keep those
    blocks, up to the per-thread maximum: a prefetch through registers, or the addresses of an asynchronous one, must
    fit below it), ``stage_blocks_over`` (blocks per SM one register allocation step above it; 0: none above) and
    ``stage_blocks_smem2`` (blocks per SM with twice the block's shared memory, the second buffer, the carveout left to
    the driver; 0 where that exceeds the opt-in maximum per block). Register limits as :func:`occupancy` applies them."""
    return dict(_stage_cost(base.compute_capability, base.warps_per_block, base.threads_per_block,
                            base.registers_per_thread, base.shared_mem_per_block_bytes, base.barriers_per_block,
                            base.active_blocks_per_sm))


@lru_cache(maxsize=1024)
def _stage_cost(cc: tuple[int, int], warps: int, threads: int, regs: int, smem: int, barriers: int,
                blocks: int) -> tuple[tuple[str, int], ...]:
    a = arch_limits(cc)
    step = a.register_allocation_unit // a.warp_size
    keep, over = a.max_registers_per_thread, 0
    for r in range(_round_up(max(regs, 1), step), a.max_registers_per_thread + step, step):
        r = min(r, a.max_registers_per_thread)
        by_regs, _ = _register_limit(a, warps, r)
        if by_regs is not None and by_regs < blocks:
            over = by_regs
            break
        keep = r
    twice = 2 * smem
    smem2 = occupancy(cc, threads, regs, twice, barriers_per_block=barriers).active_blocks_per_sm \
        if twice <= a.shared_mem_per_block_optin_bytes else 0
    return (("stage_blocks", blocks), ("stage_regs", regs), ("stage_regs_max", max(keep, regs)),
            ("stage_blocks_over", over), ("stage_blocks_smem2", smem2))


def stage_costs_occupancy(base: Occupancy, loss_share: float) -> bool:
    """Whether a second pipeline stage may cost the launch at least ``loss_share`` (0-1) of its resident blocks
    (:func:`stage_cost`): registers limit its blocks per SM (no other limit leaves slack) and one register
    allocation step past ``stage_regs_max``, below the per-thread maximum, loses that share; or twice its shared
    memory per block does."""
    cost = stage_cost(base)
    blocks = cost["stage_blocks"]
    if blocks <= 0:
        return False
    top = arch_limits(base.compute_capability).max_registers_per_thread
    regs = "registers" in base.limiters and cost["stage_regs_max"] < top \
        and (blocks - cost["stage_blocks_over"]) / blocks >= loss_share
    return regs or (blocks - cost["stage_blocks_smem2"]) / blocks >= loss_share


def block_size_step(base: Occupancy) -> dict[str, int] | None:
    """Where whole blocks leave warp slots empty (the warps-per-SM or blocks-per-SM limit is one of the launch's
    limiters), the block size that fits more warps (:func:`next_step`'s threads step, the carveout left to the
    driver), as values for the remedies' text: ``block_threads`` (now), ``block_threads_step`` (proposed),
    ``block_warps`` (resident warps per SM now), ``block_warps_step`` (with the proposed size) and ``block_max_warps``;
    None where the block size is not a limiter or no size fits more warps."""
    if not {"warps", "blocks"} & set(base.limiters) or base.active_warps_per_sm >= base.max_warps_per_sm:
        return None
    step = next((st for st in next_step(base, driver_carveout=True) if st.parameter == "threads_per_block"), None)
    if step is None:
        return None
    return {"block_threads": step.current, "block_threads_step": step.proposed, "block_warps": base.active_warps_per_sm,
            "block_warps_step": step.result.active_warps_per_sm, "block_max_warps": base.max_warps_per_sm}


def next_step(base: Occupancy, driver_carveout: bool = False, spills: bool = False) -> list[NextStep]:
    """For each launch parameter, the smallest change that raises the resident warps per SM above ``base``.

    ``driver_carveout``: the carveout of ``base`` is the one the driver chose for the launch as it is (a profiled
    launch's ``launch__shared_mem_config_size``), not one the caller fixed: the driver picks the carveout per launch
    from the kernel's needs (CUDA C++ Programming Guide, "Shared Memory": the preferred carveout is a hint), so the
    registers, shared memory and threads steps are evaluated with the carveout free. A 32 KiB carveout of a
    one-block launch does not cap the launch that uses fewer registers. ``spills``: the kernel already spills
    registers to local memory (ptxas): fewer registers per thread is not offered, it would spill more.

    Registers and shared memory are only lowered (the largest value that reaches more warps); threads per
    block may go either way (nearest multiple of 32 that reaches more warps; the smaller one on a tie); a
    caller-fixed carveout is only raised. A parameter that cannot reach more warps on its own is left out.

    Returns:
        :class:`NextStep` entries in the order registers, shared memory, threads, carveout.
    """
    out: list[NextStep] = []
    probe = replace(base, shared_mem_config_requested_bytes=None) if driver_carveout else base
    regs = [] if spills else [(v, o) for v, o in what_if(probe, "registers_per_thread") if v < base.registers_per_thread]
    for v, o in sorted(regs, reverse=True, key=lambda p: p[0]):
        if o.active_warps_per_sm > base.active_warps_per_sm:
            out.append(NextStep("registers_per_thread", base.registers_per_thread, v, o))
            break
    smem = [(v, o) for v, o in what_if(probe, "shared_mem_per_block_bytes") if v < base.shared_mem_per_block_bytes]
    for v, o in sorted(smem, reverse=True, key=lambda p: p[0]):
        if o.active_warps_per_sm > base.active_warps_per_sm:
            out.append(NextStep("shared_mem_per_block_bytes", base.shared_mem_per_block_bytes, v, o))
            break
    better = [(v, o) for v, o in what_if(probe, "threads_per_block")
              if v != base.threads_per_block and o.active_warps_per_sm > base.active_warps_per_sm]
    if better:
        v, o = min(better, key=lambda p: (abs(p[0] - base.threads_per_block), p[0]))
        out.append(NextStep("threads_per_block", base.threads_per_block, v, o))
    if base.shared_mem_config_requested_bytes is not None and not driver_carveout:
        a = arch_limits(base.compute_capability)
        for c in a.shared_mem_carveouts_bytes:
            if c > base.shared_mem_config_bytes:
                o = _with(base, shared_mem_config_bytes=c)
                if o.active_warps_per_sm > base.active_warps_per_sm:
                    out.append(NextStep("shared_mem_config_bytes", base.shared_mem_config_bytes, c, o))
                    break
    return out


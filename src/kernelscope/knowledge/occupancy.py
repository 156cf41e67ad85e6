"""Per-compute-capability SM resources that decide occupancy (``data/occupancy.toml``), every number with its
source (CUDA C++ Programming Guide tables, the architecture tuning guides, facts read from ``cuda_occupancy.h``).

The calculator that applies them is :mod:`kernelscope.analysis.occupancy`.
"""

from __future__ import annotations

from functools import cache
from types import MappingProxyType
from typing import Annotated, Any, Literal, Mapping

import msgspec
from msgspec import Meta

from ..errors import InputError
from ..notes import Listed
from . import Model, NonNegativeInt, PositiveInt, load, problem

_KIB = 1024

#: Numeric fields every compute capability must give (each with a source).
_NUMERIC = (
    "warp_size", "max_threads_per_block", "max_warps_per_sm", "max_blocks_per_sm", "registers_per_sm",
    "max_registers_per_block", "max_registers_per_thread", "register_allocation_unit", "sub_partitions",
    "shared_mem_per_sm_bytes", "shared_mem_per_block_bytes", "shared_mem_per_block_optin_bytes",
    "shared_mem_allocation_unit_bytes", "shared_mem_reserved_per_block_bytes", "max_barriers_per_block",
    "shared_mem_carveouts_kib",
)


class ArchLimits(Model, kw_only=True):
    """The per-SM resources of one compute capability (``data/occupancy.toml``).

    Attributes:
        compute_capability: ``(major, minor)``.
        architecture: family name, for display.
        warp_size: threads per warp.
        max_threads_per_block: largest block.
        max_warps_per_sm: resident warps per SM.
        max_blocks_per_sm: resident blocks per SM.
        registers_per_sm: 32-bit registers per SM.
        max_registers_per_block: 32-bit registers one block may use.
        max_registers_per_thread: 32-bit registers one thread may use.
        register_allocation_unit: registers are allocated per warp in units of this many.
        sub_partitions: SM sub-partitions the register file is split between.
        shared_mem_per_sm_bytes: largest shared-memory capacity per SM, bytes.
        shared_mem_per_block_bytes: shared memory per block without opt-in, bytes.
        shared_mem_per_block_optin_bytes: shared memory per block with opt-in, bytes (excluding the reserved bytes).
        shared_mem_allocation_unit_bytes: a block's shared memory is rounded up to this, bytes.
        shared_mem_reserved_per_block_bytes: shared memory the driver reserves per block, bytes.
        shared_mem_carveouts_bytes: configurable shared-memory sizes per SM, ascending, bytes.
        max_barriers_per_block: named barriers a block may use.
        block_barriers_per_sm: barrier budget per SM checked from CC 9.0 on, or None where no barrier limit applies.
        register_limit_also_checks: another compute capability whose register limit must also be non-zero
            (CC 6.0 is checked as 6.1 too, as ``cuda_occupancy.h`` does for Pascal forward compatibility), or None.
        sources: field name -> citation.
        unverified: fields whose value could not be checked against its source.
    """

    compute_capability: tuple[int, int]
    architecture: str
    warp_size: PositiveInt
    max_threads_per_block: PositiveInt
    max_warps_per_sm: PositiveInt
    max_blocks_per_sm: PositiveInt
    registers_per_sm: PositiveInt
    max_registers_per_block: PositiveInt
    max_registers_per_thread: PositiveInt
    register_allocation_unit: PositiveInt
    sub_partitions: PositiveInt
    shared_mem_per_sm_bytes: PositiveInt
    shared_mem_per_block_bytes: PositiveInt
    shared_mem_per_block_optin_bytes: PositiveInt
    shared_mem_allocation_unit_bytes: PositiveInt
    shared_mem_reserved_per_block_bytes: NonNegativeInt
    shared_mem_carveouts_bytes: Annotated[tuple[int, ...], Meta(min_length=1)]
    max_barriers_per_block: PositiveInt
    block_barriers_per_sm: PositiveInt | None = None
    register_limit_also_checks: tuple[int, int] | None = None
    sources: dict[str, str] = {}
    unverified: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.shared_mem_carveouts_bytes[-1] != self.shared_mem_per_sm_bytes:
            raise ValueError("largest carveout != shared_mem_per_sm_bytes")


class _Entry(Model, kw_only=True, forbid_unknown_fields=False):
    """One ``[cc."M.m"]`` table merged over ``[common]`` (file spellings: carveouts in KiB, CCs as "M.m"); the
    numbers themselves are checked by :class:`ArchLimits`."""

    register_allocation_granularity: Literal["warp"]
    shared_mem_carveouts_kib: tuple[int, ...]
    register_limit_also_checks: str | None = None
    sources: dict[str, str]
    unverified: tuple[str, ...] = ()


class _OccupancyFile(Model, kw_only=True):
    source: dict[str, str]
    common: dict[str, Any]
    cc: dict[str, dict[str, Any]]


def _cc(text: str) -> tuple[int, int]:
    major, minor = text.split(".")
    return int(major), int(minor)


def _cc_key(cc: tuple[int, ...]) -> str:
    return ".".join(str(p) for p in cc)


@cache
def _catalogue() -> Mapping[tuple[int, int], ArchLimits]:
    data = load("occupancy.toml", _OccupancyFile)
    common_sources = data.common.get("sources", {})
    out: dict[tuple[int, int], ArchLimits] = {}
    for key, table in data.cc.items():
        where = f'cc."{key}"'
        merged = {**data.common, **table, "sources": {**common_sources, **table.get("sources", {})}}
        try:
            entry = msgspec.convert(merged, _Entry)
        except msgspec.ValidationError as exc:
            raise InputError("kernelscope/data/occupancy.toml", f"{where}: {problem(exc)}") from None
        unsourced = [f for f in _NUMERIC if f not in entry.sources or entry.sources[f] not in data.source]
        if unsourced:
            raise InputError("kernelscope/data/occupancy.toml", f"{where}: fields without a known source: {unsourced}")
        fields = {k: v for k, v in merged.items() if k in ArchLimits.__struct_fields__}
        fields.update(
            compute_capability=_cc(key),
            shared_mem_carveouts_bytes=tuple(sorted(k * _KIB for k in entry.shared_mem_carveouts_kib)),
            register_limit_also_checks=None if entry.register_limit_also_checks is None else _cc(entry.register_limit_also_checks),
            sources={f: data.source[s] for f, s in entry.sources.items() if s in data.source},
        )
        try:
            out[_cc(key)] = msgspec.convert(fields, ArchLimits)
        except msgspec.ValidationError as exc:
            raise InputError("kernelscope/data/occupancy.toml", f"{where}: {problem(exc)}") from None
    return MappingProxyType(dict(sorted(out.items())))


def supported_compute_capabilities() -> tuple[tuple[int, int], ...]:
    """Every compute capability ``data/occupancy.toml`` describes, ascending."""
    return tuple(_catalogue())


def arch_limits(compute_capability: tuple[int, int]) -> ArchLimits:
    """The per-SM resources of one compute capability.

    Raises:
        InputError: a compute capability ``data/occupancy.toml`` does not describe.
    """
    cc = tuple(compute_capability)
    limits = _catalogue().get(cc)  # type: ignore[arg-type]
    if limits is None:
        known = Listed(_cc_key(c) for c in _catalogue())
        what = _cc_key(cc) if len(cc) == 2 else repr(compute_capability)
        raise InputError("compute_capability", key="not_supported", values={"what": what, "known": known})
    return limits

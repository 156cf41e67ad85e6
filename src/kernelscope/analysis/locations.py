"""Where each finding happens: the instructions (and source lines) behind a root cause.

Each finding of ``data/findings.toml`` names, in ``locate``, the per-instruction metrics that point at it (Nsight
Compute's Source Counters and warp sampling; the first one the report holds is used): excessive global sectors for
uncoalesced accesses, excessive shared wavefronts for bank conflicts, the Long Scoreboard samples for a Long
Scoreboard finding, ... ``idle_thread_slots`` is derived per instruction as 32 x ``inst_executed`` -
``thread_inst_executed``: the thread slots that divergent or predicated-off threads left unused.

Pure Python over :class:`~kernelscope.model.InstructionValues` (no NumPy: this runs in every diagnosis of a report
with per-instruction data); reading them is the reader's job
(:func:`kernelscope.ingest.ncu_source.read_instruction_values`, driven by :func:`needed_metrics`), and so is reading
the source lines of the chosen instructions afterwards (:func:`~kernelscope.ingest.ncu_source.read_source_lines`,
joined by :func:`with_lines`). ``kernelscope source``, which holds the whole
:class:`~kernelscope.model.InstructionTable` already, locates in it instead (:func:`locate_in_table`).
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, replace
from typing import Iterable, Mapping

from ..knowledge.findings import findings as finding_texts
from ..model import InstructionTable, InstructionValues
from .engine import Finding

__all__ = [
    "IDLE_THREAD_SLOTS", "Location", "lines_of", "locate", "locate_findings", "locate_in_table", "needed_metrics",
    "values_of", "with_lines",
]

#: The derived per-instruction quantity of thread divergence, and the metrics it is derived from.
IDLE_THREAD_SLOTS = "idle_thread_slots"
IDLE_INPUTS = ("inst_executed", "thread_inst_executed")
WARP_SIZE = 32


@dataclass(frozen=True)
class Location:
    """One instruction behind a per-instruction quantity (see :func:`locate`).

    Attributes:
        pc: its address; offset: pc - the function's first PC (bytes), or None.
        file / line: its source location, or None without ``-lineinfo`` (or before :func:`with_lines`).
        value: the quantity there, in the metric's unit.
        share: value / the quantity's total over all instructions, 0-1.
        metric: the Nsight metric (or derived quantity) the value comes from.
        sass: its SASS text when read, else None.
    """

    pc: int
    offset: int | None
    file: str | None
    line: int | None
    value: float
    share: float
    metric: str
    sass: str | None = None


def locate(values: Mapping[int, float], metric: str, function_pc: int | None = None, top: int = 3) -> tuple[Location, ...]:
    """The ``top`` instructions with the largest ``values`` ({PC: value}), largest first, ties by PC; NaN, zero and
    negative values left out; share = value / the sum of the finite positive values."""
    clean = {pc: v for pc, v in values.items() if math.isfinite(v) and v > 0}
    total = math.fsum(clean.values())
    best = heapq.nsmallest(top, clean.items(), key=lambda item: (-item[1], item[0]))
    return tuple(Location(pc, None if function_pc is None else pc - function_pc, None, None, v, v / total, metric)
                 for pc, v in best)


def with_lines(located: Mapping[str, tuple[Location, ...]],
               lines: Mapping[int, tuple[str | None, int | None]]) -> dict[str, tuple[Location, ...]]:
    """``located`` with each location's source file and line from ``lines`` ({PC: (file, line)}); instructions of one
    source line become one location (the first one's PC, their values and shares summed), largest first: three
    instructions of ``transpose.cu:78`` are that line with their 75 %, not the line three times."""
    out: dict[str, tuple[Location, ...]] = {}
    for fid, locs in located.items():
        merged: dict[tuple, Location] = {}
        for x in locs:
            file, line = lines.get(x.pc, (None, None))
            key = (file, line) if line else ("pc", x.pc)
            prev = merged.get(key)
            merged[key] = replace(x, file=file, line=line) if prev is None else \
                replace(prev, value=prev.value + x.value, share=prev.share + x.share)
        out[fid] = tuple(sorted(merged.values(), key=lambda x: -x.value))
    return out


def _metric_for(finding_id: str, available: Iterable[str]) -> str | None:
    """The first ``locate`` metric of a finding that ``available`` holds (the derived one when its inputs are)."""
    text = finding_texts().get(finding_id)
    if text is None:
        return None
    have = set(available)
    for metric in text.locate:
        if metric == IDLE_THREAD_SLOTS and all(m in have for m in IDLE_INPUTS) or metric in have:
            return metric
    return None


def needed_metrics(found: Iterable[Finding], available: Iterable[str]) -> tuple[str, ...]:
    """The per-instruction metrics to read so that every finding in ``found`` can be located, given the metrics the
    launch holds (``KernelProfile.instruction_metrics``); empty when none can be."""
    available = tuple(available)
    out: dict[str, None] = {}
    for f in found:
        metric = _metric_for(f.id, available)
        if metric is not None:
            out.update(dict.fromkeys(IDLE_INPUTS if metric == IDLE_THREAD_SLOTS else (metric,)))
    return tuple(out)


def locate_findings(found: Iterable[Finding], read: InstructionValues, top: int = 3) -> dict[str, tuple[Location, ...]]:
    """Finding id -> its ``top`` instructions by its ``locate`` metric (:func:`locate`; without source lines: see
    :func:`with_lines`); a finding whose metric was not read is absent."""
    out: dict[str, tuple[Location, ...]] = {}
    for f in found:
        if f.id in out:
            continue
        metric = _metric_for(f.id, read.values)
        if metric is None:
            continue
        if metric == IDLE_THREAD_SLOTS:
            executed, threads = (read.values[m] for m in IDLE_INPUTS)
            values = {pc: WARP_SIZE * n - threads[pc] for pc, n in executed.items() if pc in threads}
        else:
            values = dict(read.values[metric])
        places = locate(values, metric, read.function_pc, top)
        if places:
            out[f.id] = places
    return out


def values_of(table: InstructionTable, metrics: Iterable[str] | None = None) -> InstructionValues:
    """A launch's :class:`~kernelscope.model.InstructionTable` as :class:`~kernelscope.model.InstructionValues`:
    metric -> {PC: value} for ``metrics`` (None: every column; a name the table lacks is left out), the PCs where
    a column is NaN (no value there) left out. Plain Python (``.tolist()``): no NumPy import here."""
    pcs = [int(p) for p in table.pc.tolist()]
    names = table.columns if metrics is None else [m for m in dict.fromkeys(metrics) if m in table.columns]
    return InstructionValues(function_pc=table.function_pc, values={
        name: {pc: v for pc, v in zip(pcs, table.columns[name].tolist()) if v == v} for name in names})


def lines_of(table: InstructionTable) -> dict[int, tuple[str | None, int | None]]:
    """PC -> (source file, 1-based line) of every row of ``table``, (file, None) / (None, None) where the table
    has no line (0) / no file, ready for :func:`with_lines`."""
    return {int(pc): (file, line or None) for pc, file, line in zip(table.pc.tolist(), table.file, table.line.tolist())}


def locate_in_table(found: Iterable[Finding], table: InstructionTable, top: int = 3) -> dict[str, tuple[Location, ...]]:
    """:func:`locate_findings` on a launch's whole per-instruction table, with each location's file and line from
    the table itself: finding id -> its ``top`` instructions, in the order of ``found`` (a diagnosis lists its
    findings most important first); a finding the table cannot locate is absent."""
    found = tuple(found)
    wanted = needed_metrics(found, table.columns)
    if not wanted:
        return {}
    return with_lines(locate_findings(found, values_of(table, wanted), top), lines_of(table))

"""Where in the code: the hottest instructions and source lines of one launch, with the cause at each.

Pure NumPy over an :class:`~kernelscope.model.InstructionTable` (Nsight Compute's Source Counters and instruction
sampling; reading it is :func:`kernelscope.ingest.ncu_source.read_instructions`' job). Per instruction and per
source line (the instructions compiled from one ``file:line``, summed):

* warp samples (``smsp__pcsamp_sample_count``) and their split by canonical stall reason
  (``smsp__pcsamp_warps_issue_stalled_<reason>``; their per-PC sum is the sample count), the healthy states
  (``selected``, ``not_selected``, ``math_pipe_throttle``: :func:`kernelscope.knowledge.stalls.describe`) apart;
* executed warp instructions (``inst_executed``) and thread efficiency, the share of the 32 thread slots of each
  executed instruction that a thread used: ``thread_inst_executed / (32 x inst_executed)``, else
  ``derived__avg_thread_executed / 32`` (Nsight stores that average rounded down to a whole thread);
* global sectors fetched against the sectors the accesses need (``memory_l2_theoretical_sectors_global``, its
  ``_ideal`` and ``derived__memory_l2_theoretical_sectors_global_excessive`` = sectors - ideal);
* shared-memory wavefronts against the ideal (``memory_l1_wavefronts_shared``, ``..._ideal``,
  ``derived__memory_l1_wavefronts_shared_excessive``) and the n-way bank conflict
  (``derived__memory_l1_conflicts_shared_nway``; a line shows its worst instruction's).

Source: Nsight Compute Kernel Profiling Guide, "Source Counters" and "Warp Sampling"; the sums were checked on the
corpus reports (stall reasons per PC sum to the sample count; excessive = sectors - ideal).

Each hot line gets a statement (:class:`~kernelscope.notes.Note` keys ``src_*`` of ``data/labels.toml``): its
dominant unhealthy stall as a share of all that reason's samples, then what its own counters show, when they show
waste: global accesses fetching at least :data:`SHOWN_RATIO` x the sectors they need, shared accesses taking at
least that many x the wavefronts they need, fewer than :data:`SHOWN_EFFICIENCY` of the thread slots used.

Given the launch's located findings (:func:`kernelscope.analysis.locations.locate_in_table`: finding id -> its top
instructions), each hot instruction and line also names the findings it supports: those with a located PC there.
A line's conclusion follows its own samples: a finding located by a stall reason's samples is the line's only when
that reason is the line's dominant unhealthy stall; located at one of its instructions otherwise (a top MIO
Throttle instruction on a line dominated by Long Scoreboard), it is named as that instruction's
(:attr:`HotLine.at_instructions`), not the line's. A finding located by a waste counter (sectors, wavefronts, idle
thread slots), which sums over the line's instructions, stays the line's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Mapping

import numpy as np

from ..knowledge.metrics import stall_families
from ..knowledge.stalls import describe, lookup, norm
from ..model import InstructionTable, KernelProfile, ProfileReport, SourceMarker
from ..notes import Note
from .locations import Location

__all__ = [
    "AtInstruction", "Counters", "HotInstruction", "HotLine", "LaunchSource", "SourceReport", "StallSamples", "analyse",
    "findings_by_pc", "hot_instructions", "hot_lines", "ranking", "statement",
]

WARP_SIZE = 32
SAMPLES = "smsp__pcsamp_sample_count"
EXECUTED = "inst_executed"
THREADS = "thread_inst_executed"
AVG_THREADS = "derived__avg_thread_executed"
SECTORS = "memory_l2_theoretical_sectors_global"
SECTORS_IDEAL = "memory_l2_theoretical_sectors_global_ideal"
#: Excessive global sectors, newer name first (older reports: without "theoretical").
SECTORS_EXCESS = ("derived__memory_l2_theoretical_sectors_global_excessive", "derived__memory_l2_sectors_global_excessive")
WAVEFRONTS = "memory_l1_wavefronts_shared"
WAVEFRONTS_IDEAL = "memory_l1_wavefronts_shared_ideal"
WAVEFRONTS_EXCESS = "derived__memory_l1_wavefronts_shared_excessive"
NWAY = "derived__memory_l1_conflicts_shared_nway"
#: A line statement names fetched / needed sectors or wavefronts from this ratio up (10 % more than needed).
SHOWN_RATIO = 1.1
#: ... and thread efficiency below this share of the 32 thread slots (28.8 threads).
SHOWN_EFFICIENCY = 0.9


@dataclass(frozen=True)
class StallSamples:
    """Samples of one warp state at an instruction or line.

    Attributes:
        reason: canonical stall reason id (``data/stalls.toml``; a spelling it lacks is kept as it is).
        samples: warp samples in that state (count).
        share: of the instruction's or line's samples, 0-1.
        share_of_reason: of all the launch's samples in that state, 0-1.
    """

    reason: str
    samples: float
    share: float
    share_of_reason: float


@dataclass(frozen=True)
class Counters:
    """The per-instruction counters of one instruction, or summed over one source line's instructions. None: the
    report has no such metric there (e.g. sectors for an instruction that is not a global access).

    Attributes:
        samples: warp samples (``smsp__pcsamp_sample_count``, count).
        share: samples as a share of the launch's, else executed instructions as a share of the launch's, 0-1.
        stalls: the unhealthy stall reasons with samples, most first.
        healthy: the healthy states (selected, not selected, math pipe throttle) with samples, most first.
        inst_executed: executed warp instructions (count).
        thread_efficiency: share of the 32 thread slots of the executed instructions a thread used, 0-1.
        sectors: global sectors fetched (count); excess_sectors: beyond the ideal (count);
        sector_ratio: fetched / needed (the ideal), >= 1.
        wavefronts: shared-memory wavefronts (count); excess_wavefronts: beyond the ideal (count);
        wavefront_ratio: taken / needed, >= 1.
        nway: the n-way shared bank conflict (a line: its worst instruction's); None also where it is 0 (not a
            shared-memory access).
    """

    samples: float | None
    share: float | None
    stalls: tuple[StallSamples, ...]
    healthy: tuple[StallSamples, ...]
    inst_executed: float | None
    thread_efficiency: float | None
    sectors: float | None
    excess_sectors: float | None
    sector_ratio: float | None
    wavefronts: float | None
    excess_wavefronts: float | None
    wavefront_ratio: float | None
    nway: float | None


@dataclass(frozen=True)
class HotInstruction:
    """One of the hottest instructions.

    Attributes:
        pc: its address; offset: pc - the function's first PC (bytes), or None.
        file / line: its source location, or None without ``-lineinfo``.
        sass: its SASS text when read, else None.
        counters: its :class:`Counters`.
        markers: Nsight's source markers on it.
        findings: ids of the findings located at it (``data/findings.toml``), most important first.
    """

    pc: int
    offset: int | None
    file: str | None
    line: int | None
    sass: str | None
    counters: Counters
    markers: tuple[SourceMarker, ...] = ()
    findings: tuple[str, ...] = ()


@dataclass(frozen=True)
class AtInstruction:
    """A finding located at one instruction of a hot line whose own samples do not show it (see the module).

    Attributes:
        pc: the instruction's address; offset: pc - the function's first PC (bytes), or None.
        finding: the finding's id (``data/findings.toml``).
    """

    pc: int
    offset: int | None
    finding: str


@dataclass(frozen=True)
class HotLine:
    """One of the hottest source lines: its instructions summed.

    Attributes:
        file / line: the source location (``-lineinfo``), line 1-based.
        text: the line's source text when the report embeds the file, else None.
        pcs: the PCs of its instructions, ascending.
        counters: their counters, summed.
        statement: the line's dominant stall and what its counters show (Notes, to be joined with "; ").
        markers: Nsight's source markers on its instructions.
        findings: ids of the findings located at its instructions that the line's own counters show (a stall
            finding: the line's dominant unhealthy stall), most important first.
        at_instructions: the other findings located at one of its instructions, named as that instruction's
            (most important finding first, then by PC).
    """

    file: str
    line: int
    text: str | None
    pcs: tuple[int, ...]
    counters: Counters
    statement: tuple[Note, ...]
    markers: tuple[SourceMarker, ...] = ()
    findings: tuple[str, ...] = ()
    at_instructions: tuple[AtInstruction, ...] = ()


@dataclass(frozen=True)
class LaunchSource:
    """Where one launch spends its time in the code.

    Attributes:
        kernel: the launch; table: its per-instruction data.
        ranked_by: the metric instructions and lines are ranked by (:func:`ranking`), or None (neither measured).
        total_samples: the launch's warp samples (count), or None; total_executed: its executed warp instructions.
        instructions: the hottest instructions, hottest first; lines: the hottest source lines, hottest first.
        has_lines: whether any instruction has a source line (compiled with ``-lineinfo``).
        located: the launch's diagnosis findings located in ``table``: finding id -> its top instructions (with
            file and line), most important finding first; empty when none could be located.
    """

    kernel: KernelProfile
    table: InstructionTable
    ranked_by: str | None
    total_samples: float | None
    total_executed: float | None
    instructions: tuple[HotInstruction, ...]
    lines: tuple[HotLine, ...]
    has_lines: bool
    located: Mapping[str, tuple[Location, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class SourceReport:
    """``kernelscope source`` on one report: the report, and each selected launch's :class:`LaunchSource`, in
    report order."""

    report: ProfileReport
    launches: tuple[LaunchSource, ...]


def analyse(kernel: KernelProfile, table: InstructionTable, top: int = 10,
            located: Mapping[str, tuple[Location, ...]] | None = None) -> LaunchSource:
    """The ``top`` hottest instructions and source lines of one launch (see :func:`hot_instructions`,
    :func:`hot_lines`), each naming the findings of ``located`` (finding id -> its instructions, most important
    first; None: no findings) that have an instruction there."""
    cols = table.columns
    located = dict(located or {})
    return LaunchSource(
        kernel=kernel, table=table, ranked_by=ranking(table), total_samples=_total(cols.get(SAMPLES)),
        total_executed=_total(cols.get(EXECUTED)), instructions=hot_instructions(table, top, located),
        lines=hot_lines(table, top, located), has_lines=bool(np.any(table.line > 0)), located=located,
    )


def findings_by_pc(located: Mapping[str, tuple[Location, ...]] | None) -> dict[int, tuple[str, ...]]:
    """PC -> the ids of the findings located there, in ``located``'s order (most important first)."""
    out: dict[int, dict[str, None]] = {}
    for fid, places in (located or {}).items():
        for x in places:
            out.setdefault(x.pc, {})[fid] = None
    return {pc: tuple(ids) for pc, ids in out.items()}


def _line_findings(pcs: tuple[int, ...], counters: Counters, table: InstructionTable,
                   located: Mapping[str, tuple[Location, ...]] | None) -> tuple[tuple[str, ...], tuple[AtInstruction, ...]]:
    """The findings of ``located`` at the line of ``pcs``: (the line's own, those named as one of its instructions').
    A finding located by a stall reason's samples is the line's when that reason is the line's dominant unhealthy
    stall (``counters.stalls[0]``), else its instructions'; one located by a waste counter is the line's."""
    here = set(pcs)
    dominant = counters.stalls[0].reason if counters.stalls else None
    own: list[str] = []
    at: list[AtInstruction] = []
    for fid, places in (located or {}).items():
        hits = sorted({x.pc for x in places if x.pc in here})
        if not hits:
            continue
        reasons = {_stall_reason(x.metric) for x in places}
        reason = next(iter(reasons)) if len(reasons) == 1 else None
        if reason is None or reason == dominant:
            own.append(fid)
        else:
            at.extend(AtInstruction(pc, _offset(table, pc), fid) for pc in hits)
    return tuple(own), tuple(at)


def ranking(table: InstructionTable) -> str | None:
    """The column instructions and lines are ranked by: ``smsp__pcsamp_sample_count`` when the launch has
    samples, else ``inst_executed`` when it has executed instructions, else None."""
    for name in (SAMPLES, EXECUTED):
        total = _total(table.columns.get(name))
        if total is not None and total > 0:
            return name
    return None


def hot_instructions(table: InstructionTable, top: int = 10,
                     located: Mapping[str, tuple[Location, ...]] | None = None) -> tuple[HotInstruction, ...]:
    """The ``top`` instructions with the most samples (else executed instructions; ties by PC), zeros left out.

    Returns:
        Per instruction: PC, offset from the function's first PC (bytes), file/line, SASS (when read), its
        :class:`Counters` (samples in total and by canonical stall reason, healthy states apart, executed
        instructions, thread efficiency, sectors and excess, shared wavefronts and excess, n-way), and the ids of
        the findings of ``located`` (finding id -> its instructions) located at it.
    """
    key = ranking(table)
    if key is None:
        return ()
    rows = _top(table.columns[key], table.pc, top)
    per = _Per.of(table)
    markers = _markers_by_pc(table.markers)
    found = findings_by_pc(located)
    out = []
    for i in rows.tolist():
        pc = int(table.pc[i])
        out.append(HotInstruction(
            pc=pc, offset=_offset(table, pc), file=table.file[i], line=int(table.line[i]) or None,
            sass=table.sass.get(pc), counters=per.counters(i, key), markers=markers.get(pc, ()),
            findings=found.get(pc, ()),
        ))
    return tuple(out)


def hot_lines(table: InstructionTable, top: int | None = 10,
              located: Mapping[str, tuple[Location, ...]] | None = None) -> tuple[HotLine, ...]:
    """The ``top`` source lines (None: all) with the most samples (else executed instructions), each the sum over
    the instructions compiled from it; instructions without a line are left out, lines with nothing left out; ties
    by file and line.

    Returns:
        Per line: file, line, its source text (when embedded), its PCs, summed :class:`Counters` (stall shares of
        the line's samples and of each reason's total; the line's own sectors, wavefronts, efficiency; its worst
        n-way), its statement (Notes), the ids of the findings of ``located`` (finding id -> its instructions)
        with an instruction on it that the line's own counters show, most important first, and the others, each
        named as its instruction's (:class:`AtInstruction`).
    """
    key = ranking(table)
    named = np.not_equal(np.array(table.file, dtype=object), None)
    known = np.flatnonzero((table.line > 0) & named)
    if key is None or known.size == 0:
        return ()
    files, fcode = np.unique(np.array(table.file, dtype=object)[known].astype(str), return_inverse=True)
    lines = table.line[known]
    base = int(lines.max()) + 1
    keys, inv = np.unique(fcode.astype(np.int64) * base + lines, return_inverse=True)
    per = _Per.of(table).take(known).group(inv, len(keys))
    rank = np.nan_to_num(per.values(key), nan=0.0)
    order = np.lexsort((keys, -rank))
    order = order[rank[order] > 0][:top]
    by_group = np.argsort(inv, kind="stable")  # rows of group g: by_group[starts[g]:starts[g + 1]]
    starts = np.searchsorted(inv[by_group], np.arange(len(keys) + 1))
    markers = _markers_by_pc(table.markers)
    texts = _source_lines(table.sources)
    out = []
    for g in order.tolist():
        file, line = str(files[keys[g] // base]), int(keys[g] % base)
        pcs = tuple(table.pc[known[by_group[starts[g]:starts[g + 1]]]].tolist())
        counters = per.counters(g, key)
        own, at = _line_findings(pcs, counters, table, located)
        out.append(HotLine(file=file, line=line, text=texts(file, line), pcs=pcs, counters=counters,
                           statement=statement(file, line, counters, key),
                           markers=tuple(m for p in pcs for m in markers.get(p, ())), findings=own,
                           at_instructions=at))
    return tuple(out)


def statement(file: str, line: int, c: Counters, key: str) -> tuple[Note, ...]:
    """A hot line's statement: its dominant unhealthy stall (share of all that reason's samples, and of the
    line's), else its share of samples or executed instructions; then its counters that show waste."""
    where = {"file": file.replace("\\", "/").rsplit("/", 1)[-1], "line": line}
    if c.stalls:
        s = c.stalls[0]
        notes = [Note("src_line_stall", {**where, "reason": s.reason, "share": s.share_of_reason, "line_share": s.share})]
    elif key == SAMPLES:
        notes = [Note("src_line_samples", {**where, "share": c.share})]
    else:
        notes = [Note("src_line_executed", {**where, "share": c.share})]
    if c.sector_ratio is not None and c.sector_ratio >= SHOWN_RATIO:
        notes.append(Note("src_line_sectors", {"ratio": c.sector_ratio, "excess": c.excess_sectors}))
    if c.wavefront_ratio is not None and c.wavefront_ratio >= SHOWN_RATIO:
        notes.append(Note("src_line_shared", {"ratio": c.wavefront_ratio, "nway": c.nway}))
    if c.thread_efficiency is not None and c.thread_efficiency < SHOWN_EFFICIENCY:
        notes.append(Note("src_line_divergence", {"threads": c.thread_efficiency * WARP_SIZE}))
    return tuple(notes)


# ---------------------------------------------------------------------------------------------------------
# Per-row quantities, summed per group.


@cache
def _stall_reason(name: str) -> str | None:
    """The canonical reason of a plain PC-sampling stall column (the ``_not_issued`` twins are not)."""
    for family in stall_families():
        match = family.regex.match(name)
        if match:
            if family.name != "pc_sampling":
                return None
            return lookup().get(norm(match.group(1)), match.group(1))
    return None


class _Per:
    """Per row (instruction, or group of instructions) arrays of the quantities :class:`Counters` shows. Sums keep
    NaN where no row of a group has a value; ``nway`` keeps the largest."""

    _SUMMED = ("samples", "executed", "threads", "thread_executed", "sectors", "sectors_ideal", "sectors_excess",
               "wavefronts", "wavefronts_ideal", "wavefronts_excess")

    def __init__(self, arrays: Mapping[str, np.ndarray], stalls: Mapping[str, np.ndarray],
                 totals: Mapping[str, float | None]) -> None:
        self.arrays = dict(arrays)
        self.stalls = dict(stalls)  # canonical reason -> samples per row
        self.totals = dict(totals)  # launch totals: samples, executed, and per reason

    @classmethod
    def of(cls, table: InstructionTable) -> "_Per":
        cols = table.columns
        nan = np.full(len(table.pc), np.nan)
        executed = cols.get(EXECUTED, nan)
        threads = cols[THREADS] if THREADS in cols else cols.get(AVG_THREADS, nan) * executed
        excess = next((cols[n] for n in SECTORS_EXCESS if n in cols), nan)
        arrays = {
            "samples": cols.get(SAMPLES, nan), "executed": executed, "threads": threads,
            "thread_executed": np.where(np.isfinite(threads), executed, np.nan),
            "sectors": cols.get(SECTORS, nan), "sectors_ideal": cols.get(SECTORS_IDEAL, nan), "sectors_excess": excess,
            "wavefronts": cols.get(WAVEFRONTS, nan), "wavefronts_ideal": cols.get(WAVEFRONTS_IDEAL, nan),
            "wavefronts_excess": cols.get(WAVEFRONTS_EXCESS, nan), "nway": cols.get(NWAY, nan),
        }
        stalls: dict[str, np.ndarray] = {}
        for name, column in cols.items():
            reason = _stall_reason(name)
            if reason is not None:
                stalls[reason] = stalls[reason] + np.nan_to_num(column) if reason in stalls else np.nan_to_num(column)
        totals = {"samples": _total(arrays["samples"]), "executed": _total(executed)}
        totals.update({f"stall:{r}": float(v.sum()) for r, v in stalls.items()})
        return cls(arrays, stalls, totals)

    def take(self, rows: np.ndarray) -> "_Per":
        """The same quantities for the given rows only (launch totals kept)."""
        return _Per({k: v[rows] for k, v in self.arrays.items()}, {k: v[rows] for k, v in self.stalls.items()},
                    self.totals)

    def group(self, inv: np.ndarray, k: int) -> "_Per":
        """Summed over groups: row i goes to group ``inv[i]`` of ``k``."""
        arrays = {name: _group_sum(self.arrays[name], inv, k) for name in self._SUMMED}
        nway = np.full(k, np.nan)
        np.fmax.at(nway, inv, self.arrays["nway"])
        arrays["nway"] = nway
        stalls = {r: np.bincount(inv, weights=v, minlength=k) for r, v in self.stalls.items()}
        return _Per(arrays, stalls, self.totals)

    def values(self, key: str) -> np.ndarray:
        """The ranking values per row: samples or executed instructions."""
        return self.arrays["samples" if key == SAMPLES else "executed"]

    def counters(self, i: int, key: str) -> Counters:
        """The :class:`Counters` of row ``i``."""
        a = {name: _num(v[i]) for name, v in self.arrays.items()}
        samples = a["samples"]
        base = self.totals["samples" if key == SAMPLES else "executed"]
        value = samples if key == SAMPLES else a["executed"]
        stalls, healthy = [], []
        for reason, v in self.stalls.items():
            n = float(v[i])
            if n > 0:
                total = self.totals.get(f"stall:{reason}") or n
                item = StallSamples(reason, n, n / samples if samples else 0.0, n / total)
                (healthy if describe(reason).healthy else stalls).append(item)
        ideal = a["sectors_ideal"]
        if ideal is None and a["sectors"] is not None and a["sectors_excess"] is not None:
            ideal = a["sectors"] - a["sectors_excess"]
        excess = a["sectors_excess"] if a["sectors_excess"] is not None else _diff(a["sectors"], ideal)
        wf_ideal = a["wavefronts_ideal"]
        if wf_ideal is None and a["wavefronts"] is not None and a["wavefronts_excess"] is not None:
            wf_ideal = a["wavefronts"] - a["wavefronts_excess"]
        wf_excess = a["wavefronts_excess"] if a["wavefronts_excess"] is not None else _diff(a["wavefronts"], wf_ideal)
        return Counters(
            samples=samples, share=None if value is None or not base else value / base,
            stalls=tuple(sorted(stalls, key=lambda s: (-s.samples, s.reason))),
            healthy=tuple(sorted(healthy, key=lambda s: (-s.samples, s.reason))),
            inst_executed=a["executed"], thread_efficiency=_ratio(a["threads"], WARP_SIZE * (a["thread_executed"] or 0)),
            sectors=a["sectors"], excess_sectors=excess, sector_ratio=_ratio(a["sectors"], ideal),
            wavefronts=a["wavefronts"], excess_wavefronts=wf_excess, wavefront_ratio=_ratio(a["wavefronts"], wf_ideal),
            nway=a["nway"] if a["nway"] is not None and a["nway"] > 0 else None,
        )


def _group_sum(values: np.ndarray, inv: np.ndarray, k: int) -> np.ndarray:
    finite = np.isfinite(values)
    sums = np.bincount(inv, weights=np.where(finite, values, 0.0), minlength=k)
    seen = np.bincount(inv, weights=finite.astype(np.float64), minlength=k) > 0
    return np.where(seen, sums, np.nan)


def _top(values: np.ndarray, pc: np.ndarray, top: int | None) -> np.ndarray:
    """Row indices of the ``top`` largest positive finite values, largest first, ties by PC."""
    clean = np.nan_to_num(np.asarray(values, dtype=np.float64), nan=0.0, posinf=0.0, neginf=0.0)
    order = np.lexsort((pc, -clean))
    return order[clean[order] > 0][:top]


def _total(column: np.ndarray | None) -> float | None:
    if column is None or not np.any(np.isfinite(column)):
        return None
    return float(np.nansum(column))


def _num(value: float) -> float | None:
    value = float(value)
    return value if np.isfinite(value) else None


def _ratio(num: float | None, den: float | None) -> float | None:
    if num is None or den is None or den <= 0:
        return None
    return num / den


def _diff(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a - b


def _offset(table: InstructionTable, pc: int) -> int | None:
    return None if table.function_pc is None else pc - table.function_pc


def _markers_by_pc(markers: tuple[SourceMarker, ...]) -> dict[int, tuple[SourceMarker, ...]]:
    out: dict[int, list[SourceMarker]] = {}
    for m in markers:
        out.setdefault(m.pc, []).append(m)
    return {pc: tuple(ms) for pc, ms in out.items()}


def _source_lines(sources: Mapping[str, str]):
    """A function ``(file, line) -> the line's text, stripped`` (None when the file is not embedded)."""
    split: dict[str, list[str]] = {}

    def text(file: str, line: int) -> str | None:
        if file not in sources:
            return None
        rows = split.setdefault(file, sources[file].splitlines())
        return rows[line - 1].strip() if 0 < line <= len(rows) else None

    return text

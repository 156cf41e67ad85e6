"""Parsed trace files -> one :class:`~kernelscope.timeline_model.Timeline`: ranks, devices, copy kinds, meta.

Each trace file is one rank: its ``distributedInfo.rank`` goes into the ``rank`` column. A single trace without
``distributedInfo`` gets rank -1 and ``meta["rank"] = "not recorded"`` (case C21); several such files in a
directory or archive are numbered 0, 1, ... in path order, which is stated in ``problems``. Several files are
merged (:func:`~kernelscope.timeline_model.merge_timelines`) with their ranks in the ``rank`` column. An input
with no GPU activity at all is refused, with the reason it usually has.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

import numpy as np

from ...errors import InputError
from ..records import screen_records
from ...timeline_model import (
    COPY_DTOD,
    COPY_DTOH,
    COPY_HTOD,
    COPY_HTOH,
    COPY_PTOP,
    COPY_UNKNOWN,
    MEMCPY,
    LaunchArgs,
    Timeline,
    merge_timelines,
    run_mismatch,
)
from .columns import _BUSY, _Parsed
from .decode import _Top
from .values import _as_int

#: Format id of this reader (``Timeline.format``).
FORMAT = "kineto"

_COPY_DIRECTIONS = {
    "HtoD": COPY_HTOD, "HtoA": COPY_HTOD, "DtoH": COPY_DTOH, "AtoH": COPY_DTOH, "DtoD": COPY_DTOD,
    "AtoD": COPY_DTOD, "DtoA": COPY_DTOD, "AtoA": COPY_DTOD, "HtoH": COPY_HTOH, "PtoP": COPY_PTOP,
}
_COPY_NAME = re.compile(r"Memcpy\s+(\w+)(?:\s*\(([^)]*)\))?")


def _copy_attrs(name: str) -> tuple[int, int]:
    """(copy_kind code, pageable flag) of a Kineto memcpy name such as ``Memcpy HtoD (Pageable -> Device)``."""
    m = _COPY_NAME.match(name)
    if not m:
        return COPY_UNKNOWN, -1
    kind = _COPY_DIRECTIONS.get(m.group(1), COPY_UNKNOWN)
    ends = m.group(2)
    if ends is None:
        return kind, -1
    return kind, 1 if "pageable" in ends.lower() else 0


# ---------------------------------------------------------------------------------------------------- timeline
def _build(parsed: list[_Parsed], src: str) -> Timeline:
    notes: list[str] = []
    traces = [p for p in parsed if p.not_trace is None]
    for p in parsed:
        if p.not_trace is not None:
            notes.append(f"{p.not_trace}: skipped")
    if not traces:
        raise InputError(src, key="no_kineto_trace", values={"value": '; '.join((p.not_trace or '' for p in parsed))})
    ranks = _ranks(traces, notes)
    multi = len(traces) > 1
    timelines = []
    for p, rank in zip(traces, ranks):
        timelines.append(_timeline(p, src, rank, multi))
    busy = sum(int(np.isin(tl.kind, _BUSY).sum()) for tl in timelines)
    invalid_busy = sum(r.count for tl in timelines for r in tl.invalid if r.kind in ("kernel", "memcpy", "memset"))
    if busy == 0 and invalid_busy == 0:
        raise _no_gpu_error(src, traces)
    if not multi:
        tl = timelines[0]
        if notes:
            tl = _with(tl, problems=tuple(notes) + tl.problems)
        return tl
    why = run_mismatch([(_world(tl), _gpu(tl), r if r >= 0 else None) for tl, r in zip(timelines, ranks)])
    if why is not None:
        raise InputError(src, key="not_ranks_of_one_program", values={"why": why})
    merged = merge_timelines(timelines, path=src, format=FORMAT)
    meta = dict(merged.meta)
    meta.pop("file", None)
    meta["ranks"] = str(len(traces))
    meta["rank"] = ", ".join(str(r) for r in ranks)
    meta["files"] = ", ".join(p.label for p in traces)
    return _with(merged, meta=meta, problems=tuple(notes) + merged.problems)


def _world(tl: Timeline) -> int | None:
    """The world size a trace records (``distributedInfo.world_size``), None when none or not a number."""
    w = tl.meta.get("world_size")
    return int(w) if w is not None and w.isdigit() else None


def _gpu(tl: Timeline) -> str | None:
    """The GPU kind of a trace (its one recorded device name), None when none or several."""
    names = {n for _, n in tl.devices if n}
    return names.pop() if len(names) == 1 else None


def _with(tl: Timeline, **changes) -> Timeline:
    return replace(tl, **changes)


#: Largest rank the ``rank`` column (int32) holds.
_MAX_RANK = 2**31 - 1


def _ranks(traces: list[_Parsed], notes: list[str]) -> list[int]:
    recorded: list[int | None] = []
    for p in traces:
        info = p.top.distributedInfo
        rank = _as_int(info.get("rank")) if isinstance(info, dict) else None
        if rank is not None and not 0 <= rank <= _MAX_RANK:
            notes.append(f"{p.label}: distributedInfo.rank {str(rank)[:24]} is not a rank (0 to {_MAX_RANK}); "
                         "taken as not recorded")
            rank = None
        recorded.append(rank)
    if len(traces) == 1:
        return [recorded[0] if recorded[0] is not None else -1]
    ranks: list[int] = []
    used = {r for r in recorded if r is not None}
    claimed: set[int] = set()
    nxt = 0
    for p, r in zip(traces, recorded):
        if r is not None and r not in claimed:  # the first file naming a rank keeps it
            ranks.append(r)
            claimed.add(r)
            continue
        while nxt in used:
            nxt += 1
        if r is None:
            notes.append(f"{p.label}: rank not recorded (no distributedInfo); numbered {nxt} by file order")
        else:
            notes.append(f"{p.label}: rank {r} is recorded by several files; numbered {nxt} by file order")
        ranks.append(nxt)
        used.add(nxt)
    return ranks


def _timeline(p: _Parsed, src: str, rank: int, multi: bool) -> Timeline:
    cols = dict(p.columns)
    n = cols["kind"].shape[0]
    names = tuple(p.names) if p.names else ("",)
    copy_kind = np.zeros(n, dtype=np.uint8)
    pageable = np.full(n, -1, dtype=np.int8)
    is_copy = cols["kind"] == MEMCPY
    if is_copy.any():
        ids = np.unique(cols["name_id"][is_copy])
        lut_kind = np.zeros(len(names), dtype=np.uint8)
        lut_page = np.full(len(names), -1, dtype=np.int8)
        for i in ids.tolist():
            lut_kind[i], lut_page[i] = _copy_attrs(names[i])
        copy_kind[is_copy] = lut_kind[cols["name_id"][is_copy]]
        pageable[is_copy] = lut_page[cols["name_id"][is_copy]]
    launch = LaunchArgs(**p.launch) if p.launch is not None else None
    top = p.top
    problems = list(p.problems)
    devices = _devices(top, p, cols, problems)
    meta: dict[str, str] = {"file": p.label}
    if rank >= 0:
        meta["rank"] = str(rank)
    else:
        meta["rank"] = "not recorded"  # (the analysis states it: "the trace records no rank ...")
    info = top.distributedInfo if isinstance(top.distributedInfo, dict) else {}
    for key in ("world_size", "backend"):
        if info.get(key) is not None:
            meta[key] = str(info[key])
    meta["time_resolution"] = "ns (fractional µs)" if p.fractional_us else "µs"
    if isinstance(top.displayTimeUnit, str):
        meta["displayTimeUnit"] = top.displayTimeUnit
    if p.window_ns is not None:
        meta["profiler_window_ns"] = f"{p.window_ns[0]}-{p.window_ns[1]}"
    if isinstance(top.traceName, str):
        meta["trace_name"] = top.traceName
    meta["events"] = str(p.events)
    tl = Timeline(
        path=src, format=FORMAT, names=names, start_ns=cols["start_ns"], end_ns=cols["end_ns"], kind=cols["kind"],
        name_id=cols["name_id"], device=cols["device"], stream=cols["stream"],
        correlation_id=cols["correlation_id"], bytes=cols["bytes"], copy_kind=copy_kind, pageable=pageable,
        rank=np.full(n, rank, dtype=np.int32), devices=devices, invalid=tuple(p.invalid), problems=tuple(problems),
        launch=launch, capture_ns=None, tool_version=_tool_version(top), meta=meta, op_inputs=p.op_inputs,
    )
    tl = screen_records(tl, ns_clock=p.fractional_us)  # impossible records left out, same-stream overlaps clipped
    if not multi:
        return tl
    return _with(tl, problems=tuple(f"{p.label}: {x}" for x in tl.problems),
                 invalid=tuple(replace(r, reason=f"{r.reason} ({p.label})") for r in tl.invalid),
                 repaired=tuple(replace(r, reason=f"{r.reason} ({p.label})") for r in tl.repaired))


def _devices(top: _Top, p: _Parsed, cols: dict[str, np.ndarray], problems: list[str]) -> tuple[tuple[int, str], ...]:
    props = top.deviceProperties if isinstance(top.deviceProperties, list) else (
        top.computeProperties if isinstance(top.computeProperties, list) else None)
    devices: list[tuple[int, str]] = []
    if props:
        for i, d in enumerate(props):
            if isinstance(d, dict):
                did = _as_int(d.get("id"))
                devices.append((did if did is not None else i, str(d.get("name") or "")))
    used = sorted(set(np.unique(cols["device"][np.isin(cols["kind"], _BUSY)]).tolist()) - {-1})
    known = {d for d, _ in devices}
    if not props:
        problems.append("deviceProperties not recorded: the GPU model is not named in the trace")
    for d in used:
        if d not in known:
            devices.append((d, ""))
    return tuple(devices)


def _tool_version(top: _Top) -> str | None:
    parts = []
    if top.schemaVersion is not None:
        parts.append(f"Kineto trace schema {top.schemaVersion}")
    if top.cupti_version is not None:
        parts.append(f"CUPTI {top.cupti_version}")
    if top.cuda_runtime_version is not None:
        parts.append(f"CUDA runtime {top.cuda_runtime_version}")
    if top.cuda_driver_version is not None:
        parts.append(f"CUDA driver {top.cuda_driver_version}")
    return ", ".join(parts) or None


def _no_gpu_error(src: str, traces: list[_Parsed]) -> InputError:
    skipped: Counter = Counter()
    events = 0
    for p in traces:
        skipped.update(p.skipped)
        events += p.events
    if skipped.get("cuda_profiler_range"):
        return InputError(src, key="kineto_range_profiler_only",
                          values={"events": events, "ranges": skipped["cuda_profiler_range"]})
    return InputError(src, key="kineto_no_gpu_activity", values={"events": events})

"""Decoded events -> NumPy columns: one trace file (one rank) at a time.

:func:`_parse_trace` decodes one stream (:mod:`.decode`) into a :class:`_Builder`, which keeps the ``"ph": "X"``
events of the categories below as rows (converted piece by piece with :mod:`.values`), counts the rows without
usable timing as invalid, and hands back a :class:`_Parsed`: the columns, names, launch args and facts of the file.

Event categories (``cat``, compared without case, so both the current and the 2021 spellings) -> kinds of
:mod:`kernelscope.timeline_model`: see :data:`_CATEGORIES`; any other ``"ph": "X"`` category -> other. GPU rows
take the device from ``args.device`` (else ``pid``) and the stream from ``args.stream`` (else ``tid``: an integer,
or a string such as ``"stream 7"``); host rows keep the thread id (integer or numeric string) in ``stream``.
Correlation ids come from ``args.correlation``; byte counts from ``args.bytes``. Host operators recorded with
shapes keep their ``args["Input Dims"]`` / ``args["Input type"]`` (:class:`~kernelscope.timeline_model.OperatorInputs`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from itertools import chain, repeat
from typing import Any, BinaryIO

import numpy as np

from ...errors import InputError
from ...timeline_model import (
    ANNOTATION,
    CPU_OP,
    GPU_ANNOTATION,
    KERNEL,
    KIND_NAMES,
    MEMCPY,
    MEMSET,
    OTHER,
    RUNTIME_API,
    SYNC,
    InvalidRecord,
    OperatorInputs,
    operator_inputs,
)
from ..inflate import GZIP_ERRORS
from .decode import _NotTrace, _split_events, _Top, _where
from .values import _INT64_US_MAX, _int_column, _launch_chunk, _launch_columns, _ns_column

#: Correlation ids kept per invalid-record group.
MAX_INVALID_IDS = 32
_INT64_MAX = np.iinfo(np.int64).max

_SKIP = -1  # category not kept
_WINDOW = -2  # the profiler's own "Trace" span

#: ``cat`` (lower case) -> kind code, or _SKIP / _WINDOW.
_CATEGORIES: dict[str, int] = {
    "kernel": KERNEL,
    "gpu_memcpy": MEMCPY,
    "memcpy": MEMCPY,
    "gpu_memset": MEMSET,
    "memset": MEMSET,
    "cuda_sync": SYNC,
    "cuda_runtime": RUNTIME_API,
    "runtime": RUNTIME_API,
    "cuda_driver": RUNTIME_API,
    "gpu_user_annotation": GPU_ANNOTATION,
    "user_annotation": ANNOTATION,
    "cpu_op": CPU_OP,
    "operator": CPU_OP,
    "python_function": CPU_OP,
    "trace": _WINDOW,
    "ac2g": _SKIP,
    "fwdbwd": _SKIP,
    "async": _SKIP,
    "flow": _SKIP,
    "cuda_profiler_range": _SKIP,
}
#: Kinds whose rows are on a GPU (device from args.device / pid, stream from args.stream / tid).
_GPU_KIND = [False] * len(KIND_NAMES)
for _k in (KERNEL, MEMCPY, MEMSET, SYNC, GPU_ANNOTATION):
    _GPU_KIND[_k] = True
_BUSY = (KERNEL, MEMCPY, MEMSET)

_NOT_SHAPED = object()  # (cached for dims that are not a readable list)
_DTYPES = {"start_ns": np.int64, "end_ns": np.int64, "kind": np.uint8, "name_id": np.int32, "device": np.int16,
           "stream": np.int64, "correlation_id": np.int64, "bytes": np.int64}


# ------------------------------------------------------------------------------------------------ one trace file
@dataclass
class _Parsed:
    """One trace file's columns and facts."""

    label: str
    top: _Top = field(default_factory=_Top)
    columns: dict[str, np.ndarray] = field(default_factory=dict)
    names: list[str] = field(default_factory=list)
    launch: dict[str, np.ndarray] | None = None
    op_inputs: OperatorInputs | None = None
    invalid: list[InvalidRecord] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    window_ns: tuple[int, int] | None = None
    fractional_us: bool = False
    events: int = 0
    skipped: Counter = field(default_factory=Counter)
    not_trace: str | None = None
    input_bytes: int = 0


def _parse_trace(stream: BinaryIO, source: str, label: str, chunk_bytes: int, optional: bool = False,
                 shapes: dict | None = None) -> _Parsed:
    """Parse one Chrome-trace JSON stream, decoding ``chunk_bytes`` at a time. ``optional``: a JSON file that is
    not a trace is returned marked ``not_trace`` (directories / archives skip it) instead of being refused.
    ``shapes``: the decoded operator shapes of the files read before (:attr:`_Builder.shapes`; the ranks of one
    run repeat the same shapes), filled in; None: this file's own."""
    builder = _Builder(label, shapes)
    try:
        _split_events(stream, source, label, builder, chunk_bytes)
    except GZIP_ERRORS as exc:
        raise InputError(source, key="bad_gzip", values={"source": _where(source, label), "exc": exc}) from None
    except _NotTrace as exc:
        if not optional:
            raise InputError(source, str(exc)) from None
        parsed = _Parsed(label)
        parsed.not_trace = str(exc)
        return parsed
    return builder.finish()


# --------------------------------------------------------------------------------------------- events -> columns
class _Builder:
    """Turns decoded events into NumPy column chunks."""

    def __init__(self, label: str, shapes: dict | None = None) -> None:
        self.label = label
        self.top = _Top()
        self.name_ids: dict[Any, int] = {}
        self.names: list[str] = []
        self.categories = dict(_CATEGORIES)
        self.parts: dict[str, list[np.ndarray]] = {k: [] for k in (
            "start_ns", "end_ns", "kind", "name_id", "device", "stream", "correlation_id", "bytes")}
        self.launch_parts: list[tuple[np.ndarray, dict]] = []  # (row index in the file, launch columns)
        # cpu_op events with a readable Input Dims list: rows, and entries in op_table (OperatorInputs)
        self.op_rows: list[np.ndarray] = []
        self.op_codes: list[np.ndarray] = []
        self.op_table: list[tuple] = []
        self.op_code_of: dict[bytes, int] = {}  # raw Input Dims + Input type text -> entry (-1: not shaped)
        # raw text -> operator_inputs of it, or _NOT_SHAPED (shared by the files of one input)
        self.shapes: dict[bytes, Any] = {} if shapes is None else shapes
        self.rows = 0
        self.invalid: dict[tuple[str, str, str], list] = {}
        self.invalid_gpu_corr: list[tuple[tuple[str, str, str], int]] = []
        self.window: tuple[int, int] | None = None
        self.fractional = False
        self.events = 0
        self.skipped: Counter = Counter()
        self.zero_dur_kernels = 0
        self.problems: list[str] = []

    def _name_id(self, name: Any) -> int:
        text = name if isinstance(name, str) else ("" if name is None else str(name))
        nid = self.name_ids.get(text)
        if nid is None:
            nid = len(self.names)
            self.names.append(text)
            self.name_ids[text] = nid
        try:
            self.name_ids[name] = nid
        except TypeError:  # unhashable name (a list ...)
            pass
        return nid

    def _category(self, cat: Any) -> int:
        key = cat.lower() if isinstance(cat, str) else ""
        code = _CATEGORIES.get(key, OTHER)
        try:
            self.categories[cat] = code
        except TypeError:  # unhashable category (a list ...)
            pass
        return code

    def add(self, events: list) -> None:
        """Columns of one decoded piece: one tuple per kept event, transposed at the end. (A plain loop: on this
        project's 2-core machines it beat a column-wise ``attrgetter`` / ``map`` extraction by 2-3x, the
        events being scattered objects that every extra pass walks again.)"""
        self.events += len(events)
        categories = self.categories
        name_ids = self.name_ids
        gpu_kind = _GPU_KIND
        rows: list[tuple] = []
        kernels: list[tuple] = []
        op_rows: list[int] = []
        op_dims: list = []
        op_types: list = []
        append = rows.append
        for e in events:
            ph = e.ph
            if ph != "X":  # metadata ("M"), flows ("s"/"f"), instants ("i"), counters ...: nothing to keep
                self.skipped[ph if isinstance(ph, str) else "?"] += 1
                continue
            cat = e.cat
            try:
                code = categories[cat]
            except (KeyError, TypeError):
                code = self._category(cat)
            if code < 0:
                if code == _WINDOW:
                    self._trace_window(e)
                else:
                    self.skipped[cat] += 1
                continue
            name = e.name
            try:
                nid = name_ids[name]
            except (KeyError, TypeError):
                nid = self._name_id(name)
            a = e.args
            # (a missing correlation id or byte count goes in as -1, the columns' fill for None: the columns stay
            # plain integers, converted in one pass)
            if a is None:
                append((code, nid, e.ts, e.dur, e.pid if gpu_kind[code] else -1, e.tid, -1, -1))
            elif gpu_kind[code]:
                dev = a.device
                if dev is None:
                    dev = e.pid
                st = a.stream
                if st is None:
                    st = e.tid
                corr, nbytes = a.correlation, a.bytes
                if corr is None:
                    corr = -1
                if nbytes is None:
                    nbytes = -1
                if code == KERNEL:
                    kernels.append((len(rows), a.grid, a.block, a.registers, a.shared_memory, a.warps_per_sm))
                append((code, nid, e.ts, e.dur, dev, st, corr, nbytes))
            else:
                if code == CPU_OP and a.input_dims:
                    op_rows.append(len(rows))
                    op_dims.append(a.input_dims)
                    op_types.append(a.input_type)
                corr = a.correlation
                append((code, nid, e.ts, e.dur, -1, e.tid, -1 if corr is None else corr, -1))
        if rows:
            self._store(rows, kernels, (op_rows, op_dims, op_types) if op_rows else ())

    def _store(self, rows: list[tuple], kernels: list[tuple], ops: tuple = ()) -> None:
        launch = _launch_chunk(kernels) if kernels else None
        try:  # the common piece: every value an integer and every row timed, converted in one pass
            table = np.fromiter(chain.from_iterable(rows), dtype=np.int64, count=8 * len(rows)).reshape(-1, 8)
        except (TypeError, ValueError, OverflowError):
            table = None
        if table is not None and int(np.abs(table[:, 2:4]).max()) <= _INT64_US_MAX and bool(
                (table[:, 2] > 0).all()) and bool((table[:, 3] >= 0).all()):
            c = table.T
            self._store_arrays(c[0].astype(np.uint8), c[1].astype(np.int32), c[2], c[3], _int_column(c[4], -1, np.int16),
                               _int_column(c[5], -1, np.int64), _int_column(c[6], -1, np.int64),
                               _int_column(c[7], -1, np.int64), launch, ops)
            return
        # else column by column (None, text, floats, rows without timing: see :mod:`.values`)
        kinds, nids, tss, durs, devs, streams, corrs, nbytes = zip(*rows)
        self._store_arrays(np.array(kinds, dtype=np.uint8), np.array(nids, dtype=np.int32), tss, durs,
                           _int_column(devs, -1, np.int16), _int_column(streams, -1, np.int64, text=True),
                           _int_column(corrs, -1, np.int64), _int_column(nbytes, -1, np.int64), launch, ops)

    def _store_arrays(self, kind, name_id, tss, durs, device, stream, corr, byt, launch, ops=()) -> None:
        """Keep the rows with usable timing (count the others as invalid) and append the columns."""
        n = kind.shape[0]
        start, start_ok, frac1 = _ns_column(tss)
        dur, dur_ok, frac2 = _ns_column(durs)
        self.fractional = self.fractional or frac1 or frac2
        ok = start_ok & dur_ok & (start > 0) & (dur >= 0)
        all_ok = bool(ok.all())
        if not all_ok:
            self._invalid(np.flatnonzero(~ok), kind, name_id, tss, durs, start, start_ok, dur, dur_ok, corr)
        zero = (kind == KERNEL) & (dur == 0) & ok
        if zero.any():
            self.zero_dur_kernels += int(zero.sum())
        keep = None if all_ok else np.flatnonzero(ok)
        # An end past INT64_MAX ns is saturated to it (never wrapped): the screen leaves such records out.
        end = np.where(dur > _INT64_MAX - np.maximum(start, 0), _INT64_MAX, start + dur)
        cols = {"start_ns": start, "end_ns": end, "kind": kind, "name_id": name_id, "device": device,
                "stream": stream, "correlation_id": corr, "bytes": byt}
        for key, arr in cols.items():
            self.parts[key].append(arr if keep is None else arr[keep])
        if launch is not None:
            launch = dict(launch)
            rows_idx = launch.pop("row")
            if keep is not None:
                new_index = np.full(n, -1, dtype=np.int64)
                new_index[keep] = np.arange(keep.shape[0])
                mapped = new_index[rows_idx]
                sel = mapped >= 0
                launch = {k: v[sel] for k, v in launch.items()}
                rows_idx = mapped[sel]
            self.launch_parts.append((rows_idx + self.rows, launch))
        if ops:
            self._store_ops(ops, keep, n)
        self.rows += n if keep is None else int(keep.shape[0])

    def _store_ops(self, ops: tuple[list[int], list, list], keep: np.ndarray | None, n: int) -> None:
        """Keep the shapes of the operators in ``ops`` (rows in the piece, raw ``Input Dims``, raw ``Input type``)
        whose row was kept and whose dims are a list, as entries of this file's table. Each distinct raw text is
        decoded once (the per-operator work is C-level ``map`` calls: a trace holds hundreds of thousands of
        operators and a few hundred shapes). The two raw texts are looked up as one, joined: a list's text ends
        where its brackets close, so two joined texts are equal only when both parts are (dims that are not a
        list are never shaped, whatever the type)."""
        code_of = self.op_code_of
        keys = list(map(b"".join, zip(ops[1], ops[2])))
        code = np.fromiter(map(code_of.get, keys, repeat(-2)), np.int64, len(keys))
        for j in np.flatnonzero(code == -2).tolist():
            key = keys[j]
            c = code_of.get(key)
            if c is None:
                g = self.shapes.get(key)
                if g is None:
                    d = len(ops[1][j])
                    g = self.shapes[key] = operator_inputs(key[:d], key[d:]) or _NOT_SHAPED
                c = code_of[key] = -1 if g is _NOT_SHAPED else len(self.op_table)
                if c >= 0:
                    self.op_table.append(g)
            code[j] = c
        row = np.fromiter(ops[0], np.int64, len(ops[0]))  # (a list of ints: cheaper than np.array's type probe)
        if keep is not None:
            new_index = np.full(n, -1, dtype=np.int64)
            new_index[keep] = np.arange(keep.shape[0])
            row = new_index[row]
        sel = np.flatnonzero((row >= 0) & (code >= 0))
        self.op_rows.append(row[sel] + self.rows)
        self.op_codes.append(code[sel])

    def _invalid(self, bad, kind, name_id, tss, durs, start, start_ok, dur, dur_ok, corr) -> None:
        for i in bad.tolist():
            code = int(kind[i])
            ts_v, dur_v = tss[i], durs[i]
            if not start_ok[i] or not dur_ok[i]:
                if ts_v is None or not start_ok[i]:
                    reason = "no start time" if ts_v is None else f"unreadable ts {ts_v!r}"
                else:
                    reason = "no duration" if dur_v is None else (
                        f"end past INT64_MAX ns (dur {dur_v} µs)" if type(dur_v) is int and dur_v > 0
                        else f"unreadable dur {dur_v!r}")
            elif start[i] <= 0 and dur[i] <= 0:
                reason = ("no GPU timing" if code in _BUSY else "no timing") + f" (ts {ts_v}, dur {dur_v})"
            elif start[i] <= 0:
                reason = f"no start time (ts {ts_v})"
            else:
                reason = f"negative duration (dur {dur_v})"
            key = (KIND_NAMES[code], self.names[int(name_id[i])], reason)
            entry = self.invalid.setdefault(key, [0, []])
            entry[0] += 1
            c = int(corr[i])
            if c >= 0:
                if len(entry[1]) < MAX_INVALID_IDS:
                    entry[1].append(c)
                if code in _BUSY:
                    self.invalid_gpu_corr.append((key, c))

    def _trace_window(self, e) -> None:
        start, ok1, _ = _ns_column([e.ts])
        dur, ok2, _ = _ns_column([e.dur])
        if ok1[0] and ok2[0] and start[0] > 0:
            lo, hi = int(start[0]), int(start[0] + dur[0])
            if self.window is None:
                self.window = (lo, hi)
            else:
                self.window = (min(lo, self.window[0]), max(hi, self.window[1]))

    def finish(self) -> _Parsed:
        parsed = _Parsed(self.label, top=self.top)
        if self.rows:
            parsed.columns = {k: np.concatenate(v) for k, v in self.parts.items()}
        else:
            parsed.columns = {k: np.zeros(0, dtype=_DTYPES[k]) for k in self.parts}
        self.parts = {}
        parsed.names = self.names
        if self.launch_parts:
            parsed.launch = _launch_columns(self.launch_parts, self.rows)
        if self.op_rows:
            parsed.op_inputs = OperatorInputs(np.concatenate(self.op_rows), np.concatenate(self.op_codes),
                                              tuple(self.op_table))
        runtime_corr = parsed.columns["correlation_id"][parsed.columns["kind"] == RUNTIME_API]
        launched: set = set()
        if self.invalid_gpu_corr:
            ids = np.array([c for _, c in self.invalid_gpu_corr], dtype=np.int64)
            seen = np.isin(ids, runtime_corr)
            launched = {key for (key, _), s in zip(self.invalid_gpu_corr, seen) if s}
        for key, (count, ids) in self.invalid.items():
            kind, name, reason = key
            if kind in ("kernel", "memcpy", "memset") and ids:
                reason += "; launch seen" if key in launched else "; no launch recorded"
            parsed.invalid.append(InvalidRecord(kind, name, reason, count, tuple(ids)))
        if self.zero_dur_kernels and not self.fractional:  # (a ns-resolution trace: left out by the screen)
            parsed.problems.append(f"{self.zero_dur_kernels} kernel(s) with dur 0 (shorter than the trace's "
                                   "time resolution) kept as zero-length")
        parsed.window_ns = self.window
        parsed.fractional_us = self.fractional
        parsed.events = self.events
        parsed.skipped = self.skipped
        parsed.problems.extend(self.problems)
        return parsed

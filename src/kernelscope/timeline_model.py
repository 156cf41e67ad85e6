"""Domain objects of the program-level timeline (``kernelscope timeline``): one program run as columns.

A :class:`Timeline` holds every interval of one run (kernels, copies, memsets, synchronisations, host-side
CUDA API calls, annotations) as NumPy COLUMNS, one element per interval, never as lists of dicts: a trace
with millions of kernels stays a handful of flat arrays that the analysis (``kernelscope.analysis.timeline``) works on
vectorised.

Units: timestamps and durations inside a Timeline are **integer nanoseconds** (``int64``), to keep them exact
(a float64 holding ~1.7e18 ns since the epoch would lose sub-microsecond precision, and sums of many short
intervals must not drift). Readers convert whatever the file holds (µs floats in Chrome traces, ns in Nsight
Systems) to ns integers; the analysis converts durations to SECONDS (float) at its boundary, so every result
object is in SI units like the rest of kernelscope. Byte counts are plain bytes.

Row order is not significant: readers may append by table / category; the analysis sorts where it needs to.

Readers: ``kernelscope.ingest.nsys_sqlite`` (Nsight Systems SQLite exports), ``kernelscope.ingest.kineto``
(PyTorch profiler / Kineto Chrome traces), ``kernelscope.ingest.nsys_gpu_trace`` (the per-record
``nsys stats --report cuda_gpu_trace``). Other ``nsys stats`` text/CSV holds per-name summaries, not intervals:
its reader produces a :class:`TimelineSummary` instead (see there for what cannot be computed from it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping, Sequence

import numpy as np

# --------------------------------------------------------------------------------------------------- kind codes
#: Interval kinds; ``Timeline.kind`` holds the index into this tuple (uint8).
KIND_NAMES: tuple[str, ...] = (
    "kernel",  # 0: GPU kernel execution (busy)
    "memcpy",  # 1: GPU copy (busy; direction in copy_kind, pageable flag in pageable)
    "memset",  # 2: GPU memset (busy)
    "sync",  # 3: synchronisation wait (cudaDeviceSynchronize / StreamSynchronize / EventSynchronize ...), host side
    "runtime_api",  # 4: host-side CUDA runtime / driver API call (cudaLaunchKernel, cudaMemcpyAsync, ...)
    "annotation",  # 5: host-side range (NVTX push/pop, PyTorch user_annotation / ProfilerStep#); never busy time
    "gpu_annotation",  # 6: GPU-side range enclosing other GPU work (Kineto gpu_user_annotation, case C17); never busy
    "cpu_op",  # 7: host framework operator (aten::..., python_function)
    "other",  # 8: anything else a reader keeps (not used by the breakdown)
)
KERNEL, MEMCPY, MEMSET, SYNC, RUNTIME_API, ANNOTATION, GPU_ANNOTATION, CPU_OP, OTHER = range(len(KIND_NAMES))
#: Kinds that make a GPU busy (union of these = busy time; copies count, case C14).
BUSY_KINDS: tuple[int, ...] = (KERNEL, MEMCPY, MEMSET)

#: Name of one CUDA graph replay of a graph-level trace (nsys ``--cuda-graph-trace=graph``, the default: the graph's
#: kernels are not traced one by one): readers keep each replay as one busy kernel-kind row of this name, with
#: ``graph_launched`` 1 (case N18). ``{graph_id}`` is the profiler's graph id.
GRAPH_REPLAY_NAME = "CUDA graph {graph_id} (replay)"
#: Meta key of a Timeline read from a graph-level trace: how many graph replays it holds (a decimal string).
GRAPH_REPLAYS_META = "graph_trace_replays"

#: Copy directions; ``Timeline.copy_kind`` holds the index (uint8). 0 for non-copy rows.
COPY_KIND_NAMES: tuple[str, ...] = ("unknown", "HtoD", "DtoH", "DtoD", "HtoH", "PtoP")
COPY_UNKNOWN, COPY_HTOD, COPY_DTOH, COPY_DTOD, COPY_HTOH, COPY_PTOP = range(len(COPY_KIND_NAMES))

#: Column name -> dtype (every column of a Timeline, in this order).
COLUMN_DTYPES: Mapping[str, np.dtype] = MappingProxyType({
    "start_ns": np.dtype(np.int64),
    "end_ns": np.dtype(np.int64),
    "kind": np.dtype(np.uint8),
    "name_id": np.dtype(np.int32),
    "device": np.dtype(np.int16),
    "stream": np.dtype(np.int64),
    "correlation_id": np.dtype(np.int64),
    "bytes": np.dtype(np.int64),
    "copy_kind": np.dtype(np.uint8),
    "pageable": np.dtype(np.int8),
    "rank": np.dtype(np.int32),
    "graph_launched": np.dtype(np.int8),
})
#: Value an optional column is filled with when a reader does not give it.
COLUMN_FILL: Mapping[str, int] = MappingProxyType({
    "device": -1, "stream": -1, "correlation_id": -1, "bytes": -1, "copy_kind": COPY_UNKNOWN, "pageable": -1,
    "rank": -1, "graph_launched": -1,
})


def copy_kind_code(name: str) -> int:
    """Code of a copy direction name (see :data:`COPY_KIND_NAMES`)."""
    return COPY_KIND_NAMES.index(name)


def _column(value, dtype: np.dtype, n: int | None, name: str) -> np.ndarray:
    arr = np.asarray(value, dtype=dtype)
    if arr.ndim != 1:
        raise ValueError(f"Timeline column {name} must be 1-D, got shape {arr.shape}")
    if n is not None and arr.shape[0] != n:
        raise ValueError(f"Timeline column {name} has {arr.shape[0]} elements, expected {n}")
    if arr.flags.writeable:
        if arr is value:
            arr = arr.view()  # read-only view; the caller's array keeps its own flags, no copy
        arr.setflags(write=False)
    return arr


@dataclass(frozen=True)
class InvalidRecord:
    """Records a reader found but could not use (e.g. Kineto kernels with ``ts`` 0 / ``dur`` 0, case C03):
    counted and named, never used in the breakdown.

    Attributes:
        kind: interval kind name (:data:`KIND_NAMES`), e.g. ``"kernel"``.
        name: the record's name (kernel name, API name ...).
        reason: why it is unusable, e.g. ``"no GPU timing (ts 0, dur 0); launch seen"``.
        count: how many records of this kind/name/reason.
        correlation_ids: their correlation ids, where recorded (at most a few dozen kept).
    """

    kind: str
    name: str
    reason: str
    count: int = 1
    correlation_ids: tuple[int, ...] = ()


@dataclass(frozen=True)
class RepairedRecord:
    """Records a reader kept after repairing them (see :mod:`kernelscope.ingest.records`): e.g. a kernel whose end
    runs past the start of the next operation on its own stream (impossible: one stream runs one operation at a
    time, case N01) ends at that start instead.

    Attributes:
        kind: interval kind name (:data:`KIND_NAMES`), e.g. ``"kernel"``.
        name: the record's name.
        reason: what was wrong and what was done, e.g. ``"end past the start of the next operation on its stream:
            clipped there"``.
        device, stream: where the records ran (-1 = not recorded).
        count: how many records of this kind / name / reason / device / stream were repaired.
        removed_ns: the time removed from them in all, integer ns; ``max_removed_ns`` the most from one record.
        correlation_ids: their correlation ids, where recorded (at most a few dozen kept).
    """

    kind: str
    name: str
    reason: str
    device: int = -1
    stream: int = -1
    count: int = 1
    removed_ns: int = 0
    max_removed_ns: int = 0
    correlation_ids: tuple[int, ...] = ()


@dataclass(frozen=True)
class LaunchArgs:
    """Optional kernel launch configuration, as columns aligned with the Timeline rows (-1 = not recorded or not a
    kernel row; ``warps_per_sm`` NaN = not recorded). Used for secondary checks (occupancy from trace args, C03);
    the timeline rankings give each kernel name its most common launch shape (grid, block, registers per thread).

    Attributes:
        grid_x, grid_y, grid_z, block_x, block_y, block_z: launch shape (int32).
        registers_per_thread: int32.
        shared_mem_bytes: static + dynamic shared memory per block in bytes (int32).
        dynamic_shared_mem_bytes: the dynamic part, where recorded separately (int32).
        warps_per_sm: the profiler's "warps per SM" where recorded (Kineto), float64.
    """

    grid_x: np.ndarray
    grid_y: np.ndarray
    grid_z: np.ndarray
    block_x: np.ndarray
    block_y: np.ndarray
    block_z: np.ndarray
    registers_per_thread: np.ndarray
    shared_mem_bytes: np.ndarray
    dynamic_shared_mem_bytes: np.ndarray
    warps_per_sm: np.ndarray

    def __post_init__(self) -> None:
        n = None
        for name in ("grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z", "registers_per_thread",
                     "shared_mem_bytes", "dynamic_shared_mem_bytes"):
            arr = _column(getattr(self, name), np.dtype(np.int32), n, name)
            n = arr.shape[0]
            object.__setattr__(self, name, arr)
        object.__setattr__(self, "warps_per_sm", _column(self.warps_per_sm, np.dtype(np.float64), n, "warps_per_sm"))

    def __len__(self) -> int:
        return int(self.grid_x.shape[0])

    @classmethod
    def empty(cls, n: int) -> "LaunchArgs":
        """All-unknown launch args for ``n`` rows."""
        neg = np.full(n, -1, dtype=np.int32)
        return cls(*([neg] * 9), warps_per_sm=np.full(n, np.nan))

    def take(self, index: np.ndarray) -> "LaunchArgs":
        """The rows at ``index`` (an integer or boolean index array)."""
        return LaunchArgs(**{name: getattr(self, name)[index] for name in _LAUNCH_FIELDS})


def operator_inputs(dims_text: bytes, types_text: bytes) -> tuple[tuple, tuple] | None:
    """One operator's ``Input Dims`` / ``Input type`` raw JSON texts decoded as (dims per input, type per input);
    None when the dims text is not a readable list (empty, not JSON msgspec can represent, not a list). An input
    whose dims are not a flat list of integers >= 0 gets None (a TensorList ...); a missing or malformed type is
    ``""``."""
    dims, types = _json(dims_text), _json(types_text)
    if not isinstance(dims, list):
        return None
    out = []
    for d in dims:
        if isinstance(d, list) and all(type(v) is int and v >= 0 for v in d):
            out.append(tuple(d))
        else:
            out.append(None)
    t = types if isinstance(types, list) else []
    names = tuple(str(t[i]) if i < len(t) and isinstance(t[i], str) else "" for i in range(len(out)))
    return tuple(out), names


def _json(raw: bytes):
    """The value of a raw JSON text; None for an empty text or one msgspec cannot represent (1e999 ...)."""
    import msgspec  # (only where shapes are decoded)

    if not raw:
        return None
    try:
        return msgspec.json.decode(raw)
    except (msgspec.DecodeError, RecursionError):  # (ValidationError is a DecodeError)
        return None


@dataclass(frozen=True)
class OperatorInputs:
    """The input shapes and dtypes of host framework operators (``cpu_op`` rows), where the trace records them
    (PyTorch profiler with ``record_shapes=True``: the ``Input Dims`` and ``Input type`` args of each operator),
    each distinct pair of texts decoded once (a trace holds hundreds of thousands of operators, a training loop
    repeats a few hundred shapes).

    Attributes:
        row: int64 Timeline rows of the operators whose ``Input Dims`` is a readable list (sorted, each once).
        code: int64 per operator, its entry in ``table``.
        table: the distinct inputs: (dims per input, type per input) of :func:`operator_inputs`.
    """

    row: np.ndarray
    code: np.ndarray
    table: tuple[tuple[tuple, tuple], ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "row", _column(self.row, np.dtype(np.int64), None, "row"))
        object.__setattr__(self, "code", _column(self.code, np.dtype(np.int64), None, "code"))
        object.__setattr__(self, "table", tuple(self.table))
        if not self.code.shape[0] == self.row.shape[0]:
            raise ValueError("OperatorInputs: row and code must have the same length")

    def __len__(self) -> int:
        return int(self.row.shape[0])

    def shapes(self, index: np.ndarray | None = None) -> tuple[np.ndarray, tuple[tuple[tuple, tuple], ...]]:
        """The inputs of the operators at ``index`` (positions in :attr:`row`; None: all) as (int64 code per
        operator, table): ``table[code]`` is (dims per input, type per input). Equal codes, one shared value."""
        return (self.code if index is None else self.code[index]), self.table

    def take(self, index: np.ndarray, n: int) -> "OperatorInputs":
        """The entries of the rows kept by ``index`` (an integer or boolean index into a Timeline of ``n`` rows),
        renumbered to the new rows."""
        new = np.full(n, -1, dtype=np.int64)
        kept = np.arange(n)[index]
        new[kept] = np.arange(kept.shape[0])
        mapped = new[self.row]
        sel = np.flatnonzero(mapped >= 0)
        order = sel[np.argsort(mapped[sel], kind="stable")]
        return OperatorInputs(mapped[order], self.code[order], self.table)


_LAUNCH_FIELDS = ("grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z", "registers_per_thread",
                  "shared_mem_bytes", "dynamic_shared_mem_bytes", "warps_per_sm")


@dataclass(frozen=True)
class Timeline:
    """One program run's intervals as columns (one element per interval; all columns have the same length).

    Columns (NumPy arrays, read-only once stored):
        start_ns, end_ns: int64 nanoseconds, in the file's own clock (not shifted to 0). ``end_ns >= start_ns``.
        kind: uint8 code into :data:`KIND_NAMES`.
        name_id: int32 index into ``names`` (kernel name, API name, annotation text ...).
        device: int16 GPU id the interval ran on; -1 for host-side rows (API calls, host annotations, CPU ops).
        stream: int64 CUDA stream id for GPU rows; for host rows the host thread id where recorded; -1 = unknown.
        correlation_id: int64 CUPTI correlation id joining an API call to the GPU work it launched; -1 = none.
        bytes: int64 bytes moved / set (memcpy, memset); -1 = not applicable / not recorded.
        copy_kind: uint8 code into :data:`COPY_KIND_NAMES` (memcpy rows; 0 "unknown" elsewhere).
        pageable: int8 for memcpy rows: 1 = a pageable host buffer is involved, 0 = pinned / device-only,
            -1 = unknown or not a copy.
        rank: int32 distributed rank the row belongs to (multi-rank traces); -1 = not recorded (single process).
        graph_launched: int8 for GPU rows: 1 = the row ran as a node of a CUDA graph (Nsight Systems records a
            ``graphNodeId``), 0 = launched on its own, -1 = not recorded (the analysis then infers it from the
            launch call: a graph launch, or one call that started several kernels; see
            :mod:`kernelscope.analysis.timeline.graphs`).

    Other attributes:
        path: the input as given by the user (file, directory or archive).
        format: input format id, e.g. ``"nsys-sqlite"``, ``"kineto"``.
        names: the string table ``name_id`` points into.
        devices: ``(device id, GPU name)`` pairs recorded in the file (name "" when not recorded).
        invalid: records found but unusable (counted and named, not in the columns), see :class:`InvalidRecord`.
        problems: data problems found while reading, one line each (stated, not fatal).
        launch: optional kernel launch args aligned with the rows, or None when the input has none.
        capture_ns: ``(start, end)`` of the capture window when the file records it, else None (the analysis
            then uses the span of the recorded activity).
        tool_version: profiler version that wrote the file, or None.
        meta: other facts about the run worth showing (e.g. ``{"ranks": "8"}``), strings only.
        repaired: records kept after a repair (e.g. an end clipped at the next start on its stream), see
            :class:`RepairedRecord`.
        op_inputs: input shapes and dtypes of host operators (:class:`OperatorInputs`), None when the trace
            records none.

    Build one with the keyword arguments: ``start_ns``, ``end_ns``, ``kind``, ``name_id`` and ``names`` are
    required; every other column may be omitted (None) and is then filled with its "not recorded" value
    (:data:`COLUMN_FILL`). Columns are converted to their dtype (:data:`COLUMN_DTYPES`) without a copy when
    they already have it.
    """

    path: str
    format: str
    names: tuple[str, ...]
    start_ns: np.ndarray
    end_ns: np.ndarray
    kind: np.ndarray
    name_id: np.ndarray
    device: np.ndarray | None = None
    stream: np.ndarray | None = None
    correlation_id: np.ndarray | None = None
    bytes: np.ndarray | None = None
    copy_kind: np.ndarray | None = None
    pageable: np.ndarray | None = None
    rank: np.ndarray | None = None
    graph_launched: np.ndarray | None = None
    devices: tuple[tuple[int, str], ...] = ()
    invalid: tuple[InvalidRecord, ...] = ()
    problems: tuple[str, ...] = ()
    launch: LaunchArgs | None = None
    capture_ns: tuple[int, int] | None = None
    tool_version: str | None = None
    meta: Mapping[str, str] = field(default_factory=dict)
    repaired: tuple[RepairedRecord, ...] = ()
    op_inputs: OperatorInputs | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "names", tuple(self.names))
        n = None
        for name, dtype in COLUMN_DTYPES.items():
            value = getattr(self, name)
            if value is None:
                if n is None:
                    raise ValueError(f"Timeline column {name} is required")
                value = np.full(n, COLUMN_FILL[name], dtype=dtype)
            arr = _column(value, dtype, n, name)
            n = arr.shape[0]
            object.__setattr__(self, name, arr)
        if self.launch is not None and len(self.launch) != n:
            raise ValueError(f"Timeline launch args have {len(self.launch)} rows, expected {n}")
        if n and (self.name_id.min() < 0 or self.name_id.max() >= len(self.names)):
            raise ValueError("Timeline name_id points outside names")
        object.__setattr__(self, "devices", tuple((int(i), str(nm)) for i, nm in self.devices))
        object.__setattr__(self, "invalid", tuple(self.invalid))
        object.__setattr__(self, "problems", tuple(self.problems))
        object.__setattr__(self, "meta", MappingProxyType(dict(self.meta)))
        object.__setattr__(self, "repaired", tuple(self.repaired))

    def __len__(self) -> int:
        return int(self.start_ns.shape[0])

    @property
    def duration_ns(self) -> np.ndarray:
        """``end_ns - start_ns`` per row (int64 ns)."""
        return self.end_ns - self.start_ns

    @property
    def invalid_count(self) -> int:
        """How many records were found but not usable (sum over :attr:`invalid`)."""
        return sum(r.count for r in self.invalid)

    def device_name(self, device_id: int) -> str | None:
        """GPU name of a device id, or None when the file does not name it."""
        for i, name in self.devices:
            if i == device_id:
                return name or None
        return None

    def take(self, index: np.ndarray) -> "Timeline":
        """A Timeline of the rows at ``index`` (integer or boolean index array); other attributes are kept."""
        cols = {name: getattr(self, name)[index] for name in COLUMN_DTYPES}
        return Timeline(
            path=self.path, format=self.format, names=self.names, **cols, devices=self.devices,
            invalid=self.invalid, problems=self.problems,
            launch=self.launch.take(index) if self.launch is not None else None,
            capture_ns=self.capture_ns, tool_version=self.tool_version, meta=self.meta, repaired=self.repaired,
            op_inputs=None if self.op_inputs is None else self.op_inputs.take(index, len(self)),
        )


def run_mismatch(facts: Sequence[tuple[int | None, str | None, int | None]]) -> str | None:
    """Why traces are not the ranks of one run (one line), or None. ``facts``: per trace (world size, GPU name,
    rank), None where not recorded. Ranks of one run agree on the world size and the GPU kind where their traces
    record them, and a recorded world size holds every recorded rank (a directory of unrelated traces -- other
    GPUs, other programs -- is not one multi-rank program)."""
    worlds = sorted({w for w, _, _ in facts if w is not None})
    if len(worlds) > 1:
        return "the traces record different world sizes (" + ", ".join(map(str, worlds)) + ")"
    gpus = sorted({g for _, g, _ in facts if g})
    if len(gpus) > 1:
        return "the traces ran on different GPUs (" + ", ".join(gpus) + ")"
    if worlds and worlds[0] > 0:
        out = sorted({r for _, _, r in facts if r is not None and r >= worlds[0]})
        if out:
            return f"rank {out[0]} is outside the recorded world size {worlds[0]}"
    return None


def merge_timelines(timelines: Sequence[Timeline], path: str | None = None, format: str | None = None) -> Timeline:
    """Concatenate several Timelines (e.g. one per rank) into one; name tables are merged and ``name_id``
    remapped. Devices, invalid and repaired records and problems are concatenated (devices de-duplicated); launch
    args are kept when any input has them (unknown elsewhere); operator input shapes are concatenated, their rows
    shifted to the merged rows and their tables merged (an input that several Timelines hold is one entry)."""
    if not timelines:
        raise ValueError("merge_timelines needs at least one Timeline")
    if len(timelines) == 1 and path is None and format is None:
        return timelines[0]
    names: dict[str, int] = {}
    name_ids = []
    for tl in timelines:
        mapping = np.fromiter((names.setdefault(nm, len(names)) for nm in tl.names), dtype=np.int32,
                              count=len(tl.names))
        name_ids.append(mapping[tl.name_id] if len(tl) else np.zeros(0, dtype=np.int32))
    cols = {name: np.concatenate([getattr(tl, name) for tl in timelines]) for name in COLUMN_DTYPES if name != "name_id"}
    launch = None
    if any(tl.launch is not None for tl in timelines):
        parts = [tl.launch if tl.launch is not None else LaunchArgs.empty(len(tl)) for tl in timelines]
        launch = LaunchArgs(**{f: np.concatenate([getattr(p, f) for p in parts]) for f in _LAUNCH_FIELDS})
    devices: list[tuple[int, str]] = []
    for tl in timelines:
        for d in tl.devices:
            if d not in devices:
                devices.append(d)
    captures = [tl.capture_ns for tl in timelines if tl.capture_ns is not None]
    versions = {tl.tool_version for tl in timelines if tl.tool_version}
    meta: dict[str, str] = {}
    for tl in timelines:
        meta.update(tl.meta)
    op_inputs = None
    if any(tl.op_inputs is not None for tl in timelines):
        offsets = np.cumsum([0] + [len(tl) for tl in timelines[:-1]])
        parts = [(tl.op_inputs, off) for tl, off in zip(timelines, offsets.tolist()) if tl.op_inputs is not None]
        # one table for all: an input shape that several files hold (the ranks of one program run the same
        # operators) is one entry, so what is computed per distinct shape is computed once
        table: dict[tuple, int] = {}
        codes = []
        for p, _ in parts:
            remap = np.fromiter((table.setdefault(entry, len(table)) for entry in p.table), dtype=np.int64,
                                count=len(p.table))
            codes.append(remap[p.code] if len(p.code) else p.code)
        op_inputs = OperatorInputs(np.concatenate([p.row + off for p, off in parts]), np.concatenate(codes),
                                   tuple(table))
    return Timeline(
        path=path if path is not None else timelines[0].path,
        format=format if format is not None else timelines[0].format,
        names=tuple(names), name_id=np.concatenate(name_ids), **cols, devices=tuple(devices),
        invalid=tuple(r for tl in timelines for r in tl.invalid),
        problems=tuple(p for tl in timelines for p in tl.problems),
        repaired=tuple(r for tl in timelines for r in tl.repaired),
        launch=launch,
        capture_ns=(min(c[0] for c in captures), max(c[1] for c in captures)) if captures else None,
        tool_version=versions.pop() if len(versions) == 1 else None,
        meta=meta, op_inputs=op_inputs,
    )


# ------------------------------------------------------------------------------------------ summaries (nsys stats)
@dataclass(frozen=True)
class SummaryRow:
    """One row of a per-name summary (``nsys stats`` gpukernsum / cuda_gpu_kern_sum, cuda_api_sum, mem-time ...).

    Durations in SECONDS (converted from the report's ns). None = the report does not give it.

    Attributes:
        kind: interval kind name (:data:`KIND_NAMES`): "kernel", "memcpy", "memset", "runtime_api", "annotation".
        name: the name as printed (a name cut by nsys keeps its ellipsis "…" / "..." and ``truncated`` is True).
        count: launches / calls / instances.
        total_s, mean_s, min_s, max_s, median_s, stddev_s: times in seconds.
        time_pct: the report's own "Time (%)" column (0-100, share within its report), or None.
        copy_kind: copy direction name for memcpy rows ("HtoD" ...), else None.
        bytes: total bytes moved (from the memory-size report of the same operation), else None.
        truncated: True when the printed name was cut with an ellipsis.
        report: report name as found in the file (e.g. "cuda_gpu_kern_sum", "gpukernsum", "CUDA Kernel Statistics").
        line: 1-based line number the row came from.
    """

    kind: str
    name: str
    count: int | None
    total_s: float | None
    mean_s: float | None = None
    min_s: float | None = None
    max_s: float | None = None
    median_s: float | None = None
    stddev_s: float | None = None
    time_pct: float | None = None
    copy_kind: str | None = None
    bytes: float | None = None
    truncated: bool = False
    report: str = ""
    line: int = 0


@dataclass(frozen=True)
class TimelineSummary:
    """Per-name summaries of one run (``nsys stats`` output): what the ranking / Amdahl analysis can use.

    A summary has no intervals, so it CANNOT give: GPU idle time, utilisation, the union of busy time (overlap
    between streams or between copies and kernels), per-stream splits, launch latency or gaps. The analysis
    says so instead of guessing; its "program time" for Amdahl is the sum of GPU kernel + copy + memset totals
    (busy time, assuming no overlap), stated as such.

    Attributes:
        path, format: the input and its format id (``"nsys-stats"``).
        rows: every summary row, in file order.
        reports: report names found in the file, in order.
        runs: how many separate captures (report blocks) the file holds; rows of later runs are kept with a
            ``run`` index in ``run_of_row`` (same order as ``rows``).
        run_of_row: 0-based run index per row.
        locale: number format detected: "C" (``1,234.5``), "comma-decimal" (``1.234,5``), or "plain".
        problems: data problems found while reading.
        tool_version: nsys version if printed, else None.
        device_names: GPU names printed in the file, if any.
    """

    path: str
    format: str
    rows: tuple[SummaryRow, ...]
    reports: tuple[str, ...] = ()
    runs: int = 1
    run_of_row: tuple[int, ...] = ()
    locale: str = "plain"
    problems: tuple[str, ...] = ()
    tool_version: str | None = None
    device_names: tuple[str, ...] = ()

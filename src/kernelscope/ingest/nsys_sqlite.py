"""Reader for Nsight Systems SQLite exports (``nsys export --type sqlite``) into a :class:`~kernelscope.timeline_model.Timeline`.

Extraction only (no analysis). The database is opened READ-ONLY through an SQLite URI (``mode=ro``): the user's
file is never changed, not even its mtime.

Tables read (each only when present; columns looked up with ``PRAGMA table_info`` so every schema generation in
the corpus works):

* ``CUPTI_ACTIVITY_KIND_KERNEL`` -- ``start``/``end`` (ns), ``deviceId``, ``streamId``, ``correlationId``, the
  name as a ``StringIds`` id (``demangledName``, else ``shortName``, else ``mangledName``: older exports have no
  ``mangledName``), and the launch shape (``gridX``..., ``registersPerThread``, ``static/dynamicSharedMemory``)
  when ``launch_args`` is asked for; ``graphNodeId`` (kernels, copies, memsets: non-NULL = the row ran as a node of
  a CUDA graph) into the ``graph_launched`` column (-1 when the export has no such column).
* ``CUPTI_ACTIVITY_KIND_MEMCPY`` -- plus ``bytes``, ``copyKind`` (CUPTI's ``CUpti_ActivityMemcpyKind``: HtoA/AtoH/
  array and unified-memory kinds folded into HtoD / DtoH / DtoD) and ``srcKind``/``dstKind`` (pageable or not).
* ``CUPTI_ACTIVITY_KIND_MEMSET``, ``CUPTI_ACTIVITY_KIND_SYNCHRONIZATION`` (``syncType``),
  ``CUPTI_ACTIVITY_KIND_RUNTIME`` (host-side runtime and driver API calls; ``nameId``, version suffixes such as
  ``_v7000`` removed from the names), ``NVTX_EVENTS`` (push/pop and start/end ranges).
* ``CUPTI_ACTIVITY_KIND_GRAPH_TRACE`` (nsys' default ``--cuda-graph-trace=graph``: one row per CUDA graph replay,
  no rows for its kernels, case N18): one busy kernel-kind row per replay (``GRAPH_REPLAY_NAME``, graph_launched 1,
  its correlation id), except replays whose node kernels are in the kernel table too; their count in ``meta``.
* GPU names from ``TARGET_INFO_GPU`` or ``TARGET_INFO_CUDA_GPU`` (device id column ``id``, ``deviceId`` or
  ``cuDevice``), the tool version from ``EXPORT_META_DATA`` / ``META_DATA_EXPORT``, the capture window from
  ``ANALYSIS_DETAILS``.

Impossible records (an end at ``INT64_MAX``, start and end 0, negative or zero durations, timestamps absurdly far
from the rest) are left out and counted in ``invalid``; an operation running past the start of the next one on its
own stream is clipped there and listed in ``repaired`` (:func:`kernelscope.ingest.records.screen_records`).

Memory kinds. Nsight Systems exports number them as its ``ENUM_CUDA_MEM_KIND`` table says (0 pageable, 1 pinned,
2 device, 3 array, 4 managed, 5 device static, 6 managed static, 7 unknown; NVIDIA's own ``cuda_memcpy_async``
expert rule tests ``srcKind == 0``). When that table is present its labels decide; without it that numbering is
assumed unless the device side of the HtoD / DtoH copies is only consistent with CUPTI's raw
``CUpti_ActivityMemoryKind`` numbering (0 unknown, 1 pageable, 2 pinned, 3 device ...), e.g. an HtoD copy into
kind 3, which Nsight's numbering would call an array (a copy kind of its own); the choice is stated in ``meta``.

Speed and memory: the Timeline's columns are allocated once (sizes from ``COUNT(*)``) and filled chunk by chunk:
each chunk of :data:`CHUNK_ROWS` rowids is one ``SELECT ... WHERE rowid BETWEEN ? AND ?`` whose row tuples go
through ``np.fromiter`` into the columns (tables with sparse rowids: one cursor read with ``fetchmany``). Creating a
Python int per value is what costs, so a kernel row comes back as three values: ``start``, ``end`` and one SQL
integer packing device (3 bits), stream (10 bits), name id (19 bits), correlation id (31 bits) and the graph-node
flag (the sign bit); a row whose values do not fit makes the packed value NULL and its chunk is read again unpacked.
A 5-million-row kernel table thus costs about twice a bare ``SELECT start, end`` (``benchmarks/timeline_bench.py``).
"""

from __future__ import annotations

import os
import re
import sqlite3
from itertools import chain

import numpy as np

from ..errors import InputError
from ..timeline_model import (
    COPY_DTOD,
    COPY_DTOH,
    COPY_HTOD,
    COPY_HTOH,
    COPY_PTOP,
    COPY_UNKNOWN,
    GRAPH_REPLAY_NAME,
    GRAPH_REPLAYS_META,
    KERNEL,
    MEMCPY,
    MEMSET,
    RUNTIME_API,
    SYNC,
    ANNOTATION,
    LaunchArgs,
    Timeline,
)
from .files import check_file
from .records import screen_records

FORMAT = "nsys-sqlite"

#: Rowids per chunk (one SELECT each) / rows per ``fetchmany`` call.
CHUNK_ROWS = 1 << 16


#: CUPTI copyKind (CUpti_ActivityMemcpyKind, same ids in ENUM_CUDA_MEMCPY_OPER) -> kernelscope copy_kind code.
_COPY_KIND = np.array([
    COPY_UNKNOWN,  # 0 unknown
    COPY_HTOD,  # 1 HtoD
    COPY_DTOH,  # 2 DtoH
    COPY_HTOD,  # 3 HtoA
    COPY_DTOH,  # 4 AtoH
    COPY_DTOD,  # 5 AtoA
    COPY_DTOD,  # 6 AtoD
    COPY_DTOD,  # 7 DtoA
    COPY_DTOD,  # 8 DtoD
    COPY_HTOH,  # 9 HtoH
    COPY_PTOP,  # 10 PtoP
    COPY_HTOD,  # 11 unified HtoD
    COPY_DTOH,  # 12 unified DtoH
    COPY_DTOD,  # 13 unified DtoD
], dtype=np.uint8)
_UNIFIED_COPY_KINDS = (11, 12, 13)

#: Memory-kind numberings: value -> "pageable" / "pinned" / "device" / "unknown" (see module docstring).
_MEMKIND_NSYS = {0: "pageable", 1: "pinned", 2: "device", 3: "array", 4: "managed", 5: "device", 6: "managed",
                 7: "unknown"}
_MEMKIND_CUPTI = {0: "unknown", 1: "pageable", 2: "pinned", 3: "device", 4: "array", 5: "managed", 6: "device",
                  7: "managed"}

_SYNC_TYPES = {0: "Unknown sync", 1: "Event sync", 2: "Stream wait event", 3: "Stream sync", 4: "Context sync"}
_API_VERSION_SUFFIX = re.compile(r"_v\d+$")
_STREAM_ALL = 4294967295  # streamId of context-wide synchronisation records


def read_nsys_sqlite(path: str | os.PathLike, launch_args: bool | None = None) -> Timeline:
    """Read an Nsight Systems SQLite export into a Timeline (read-only; the file is never modified).

    Args:
        path: the ``.sqlite`` file.
        launch_args: also read each kernel's grid/block/registers/shared memory (True), never (False), or only
            when the kernel table has at most 250,000 rows (None, the default: nine more values per row slow the read down several times).

    Raises:
        InputError: not an SQLite database, not an Nsight Systems export, or a capture with no GPU activity.
    """
    p = check_file(path, "an Nsight Systems SQLite export")
    uri = p.resolve().as_uri() + "?mode=ro"
    try:
        con = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as exc:
        raise InputError(str(path), key="sqlite_cannot_open", values={"exc": exc}) from None
    try:
        return _read(con, str(path), launch_args)
    except InputError:
        raise
    except (OverflowError, ValueError) as exc:  # (from _block: np.fromiter over the cells)
        raise InputError(str(path), key="sqlite_not_int64", values={"value": ' '.join(str(exc).split())[:80]}) from None
    except sqlite3.DatabaseError as exc:
        raise InputError(str(path), key="sqlite_unreadable", values={"exc": exc}) from None
    finally:
        con.close()


# ------------------------------------------------------------------------------------------------- helpers
def _tables(con: sqlite3.Connection) -> set[str]:
    return {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}


def _columns(con: sqlite3.Connection, table: str) -> set[str]:
    return {r[1] for r in con.execute(f"PRAGMA table_info({table})")}


def _count(con: sqlite3.Connection, table: str, where: str = "") -> int:
    return int(con.execute(f"SELECT COUNT(*) FROM {table} {where}").fetchone()[0])


def _block(rows: list, ncols: int) -> np.ndarray:
    """Row tuples (integers only) as an (n, ncols) int64 array. Raises TypeError on a NULL, OverflowError on a value
    beyond the int64 range (e.g. a REAL 1e308 cell), ValueError on text that is not a number (a TEXT 'x' cell;
    :func:`read_nsys_sqlite` reports both)."""
    k = len(rows)
    return np.fromiter(chain.from_iterable(rows), dtype=np.int64, count=k * ncols).reshape(k, ncols)


def _scan(con: sqlite3.Connection, table: str, n: int, fast_sql: str | None, fast_cols: int, safe_sql: str,
          safe_cols: int, sink) -> None:
    """Read ``table`` in chunks of :data:`CHUNK_ROWS` rowids and hand each chunk to ``sink(block, packed)``.

    ``fast_sql`` returns fewer values per row (small columns packed into one SQL integer; fewer Python objects is
    what makes the fetch fast) and NULL where a row does not fit the packing: such a chunk is read again with
    ``safe_sql``. Both take ``{where}``. Tables whose rowids are sparse are read with one ``safe_sql`` cursor and
    ``fetchmany``.
    """
    lo, hi = con.execute(f"SELECT MIN(rowid), MAX(rowid) FROM {table}").fetchone()
    if lo is None:
        return
    if fast_sql is None or hi - lo + 1 > 4 * n + CHUNK_ROWS:
        cur = con.execute(safe_sql.format(where=""))
        while True:
            rows = cur.fetchmany(CHUNK_ROWS)
            if not rows:
                return
            sink(_block(rows, safe_cols), False)
    where = "WHERE rowid BETWEEN ? AND ?"
    fast = fast_sql.format(where=where)
    safe = safe_sql.format(where=where)
    for a in range(lo, hi + 1, CHUNK_ROWS):
        bounds = (a, a + CHUNK_ROWS - 1)
        rows = con.execute(fast, bounds).fetchall()
        if not rows:
            continue
        try:
            sink(_block(rows, fast_cols), True)
        except TypeError:  # a NULL: some row of this chunk does not fit the packing
            sink(_block(con.execute(safe, bounds).fetchall(), safe_cols), False)


class _Columns:
    """The Timeline's columns, allocated once for every table (sizes from COUNT(*)) and filled chunk by chunk."""

    SPEC = (("start", np.int64, 0), ("end", np.int64, 0), ("kind", np.uint8, 0), ("name_id", np.int32, 0),
            ("device", np.int16, -1), ("stream", np.int64, -1), ("corr", np.int64, -1), ("bytes", np.int64, -1),
            ("copy_kind", np.uint8, COPY_UNKNOWN), ("pageable", np.int8, -1), ("graph", np.int8, -1))

    def __init__(self, n: int) -> None:
        self.cols = {name: np.full(n, fill, dtype=dtype) for name, dtype, fill in self.SPEC}
        self.pos = 0

    def put(self, k: int, **values) -> slice:
        """Write the next ``k`` rows (arrays or scalars per column; unnamed columns keep their fill value)."""
        if self.pos + k > self.cols["start"].shape[0]:  # the table grew since COUNT(*): make room
            extra = max(k, self.pos)
            for name, dtype, fill in self.SPEC:
                self.cols[name] = np.concatenate([self.cols[name], np.full(extra, fill, dtype=dtype)])
        sl = slice(self.pos, self.pos + k)
        for name, v in values.items():
            self.cols[name][sl] = v
        self.pos += k
        return sl

    def final(self) -> dict[str, np.ndarray]:
        return {name: c[:self.pos] if c.shape[0] != self.pos else c for name, c in self.cols.items()}


class _Names:
    """The Timeline's string table, filled from StringIds ids (through lookup tables) and literal names."""

    def __init__(self, strings: dict[int, str]) -> None:
        self.strings = strings
        self.names: list[str] = []
        self.index: dict[str, int] = {}
        self._luts: dict[object, np.ndarray] = {}

    def add(self, name: str) -> int:
        i = self.index.get(name)
        if i is None:
            i = self.index[name] = len(self.names)
            self.names.append(name)
        return i

    def map_ids(self, ids: np.ndarray, clean=None) -> np.ndarray:
        """Timeline name ids for an array of StringIds ids (O(n) through a lookup table kept per ``clean``)."""
        if ids.size == 0:
            return np.zeros(0, dtype=np.int32)
        lo, hi = int(ids.min()), int(ids.max())
        if lo < 0 or hi >= 64 * 1024 * 1024:  # not table-sized: the slow path
            distinct, inverse = np.unique(ids, return_inverse=True)
            mapped = np.array([self.add(self._text(int(i), clean)) for i in distinct], dtype=np.int32)
            return mapped[inverse]
        lut = self._luts.get(clean)
        if lut is None or lut.shape[0] <= hi:
            grown = np.full(max(hi + 1, len(self.strings) + 1, 1024), -1, dtype=np.int32)
            if lut is not None:
                grown[:lut.shape[0]] = lut
            lut = self._luts[clean] = grown
        got = lut[ids]
        missing = got < 0
        if missing.any():
            for i in np.unique(ids[missing]).tolist():
                lut[i] = self.add(self._text(i, clean))
            got = lut[ids]
        return got

    def _text(self, string_id: int, clean) -> str:
        text = self.strings.get(string_id)
        if text is None:
            text = f"<unknown name, StringIds id {string_id}>"
        return clean(text) if clean is not None else text


def _strings(con: sqlite3.Connection, tables: set[str]) -> dict[int, str]:
    if "StringIds" not in tables:
        return {}
    return {int(i): str(v) for i, v in con.execute("SELECT id, value FROM StringIds")}


def _version(con: sqlite3.Connection, tables: set[str]) -> str | None:
    for table in ("EXPORT_META_DATA", "META_DATA_EXPORT"):
        if table in tables and {"name", "value"} <= _columns(con, table):
            row = con.execute(f"SELECT value FROM {table} WHERE name = 'EXPORT_PRODUCT_VERSION'").fetchone()
            if row and row[0]:
                return str(row[0])
    return None


def _devices(con: sqlite3.Connection, tables: set[str]) -> tuple[tuple[int, str], ...]:
    for table in ("TARGET_INFO_GPU", "TARGET_INFO_CUDA_GPU", "TARGET_INFO_CUDA_DEVICE"):
        if table not in tables:
            continue
        cols = _columns(con, table)
        id_col = next((c for c in ("id", "deviceId", "cuDevice") if c in cols), None)
        if id_col is None or "name" not in cols:
            continue
        out = []
        for i, name in con.execute(f"SELECT {id_col}, name FROM {table} ORDER BY {id_col}"):
            if i is not None and (int(i), str(name or "").strip()) not in out:
                out.append((int(i), str(name or "").strip()))
        if out:
            return tuple(out)
    return ()


def _capture(con: sqlite3.Connection, tables: set[str]) -> tuple[int, int] | None:
    if "ANALYSIS_DETAILS" in tables and {"startTime", "stopTime"} <= _columns(con, "ANALYSIS_DETAILS"):
        row = con.execute("SELECT MIN(startTime), MAX(stopTime) FROM ANALYSIS_DETAILS").fetchone()
        if row and row[0] is not None and row[1] is not None:
            return int(row[0]), int(row[1])
    return None


# --------------------------------------------------------------------------------------------------- reading
_TABLES = ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
           "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS",
           "CUPTI_ACTIVITY_KIND_GRAPH_TRACE")
#: The tables of GPU work (busy time).
_GPU_TABLES = _TABLES[:3] + ("CUPTI_ACTIVITY_KIND_GRAPH_TRACE",)
_LAUNCH_COLS = ("gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ", "registersPerThread",
                "staticSharedMemory", "dynamicSharedMemory")

# Kernel rows packed into one SQL integer: (correlationId + 1) << 32 | name << 13 | streamId << 3 | deviceId.
_K_DEV_BITS, _K_STREAM_BITS, _K_NAME_BITS = 3, 10, 19


def _no_rows(con: sqlite3.Connection, gpu_tables: list[str], counts: dict[str, int]) -> str:
    """Why the GPU activity tables give no interval, said truly: empty tables are called empty, a table with rows
    but without ``start`` / ``end`` columns is named with its row count."""
    empty = [t for t in gpu_tables if counts.get(t, 0) == 0 and t in counts]
    odd = [f"{t} ({n} rows, no start/end columns)" for t in gpu_tables if t not in counts and (n := _count(con, t))]
    bare = [t for t in gpu_tables if t not in counts and t not in {o.split(" ")[0] for o in odd}]
    parts = []
    if empty or bare:
        parts.append(f"the {', '.join(empty + bare)} table(s) are empty")
    if odd:
        parts.append(f"the {', '.join(odd)} hold no intervals")
    return "; ".join(parts)


def _read(con: sqlite3.Connection, path: str, launch_args: bool | None) -> Timeline:
    tables = _tables(con)
    gpu_tables = [t for t in _GPU_TABLES if t in tables]
    nsys_like = bool(tables & {"StringIds", "TARGET_INFO_GPU", "TARGET_INFO_CUDA_GPU", "CUPTI_ACTIVITY_KIND_RUNTIME",
                               "ANALYSIS_DETAILS", "EXPORT_META_DATA", "META_DATA_EXPORT", "ThreadNames"})
    if not gpu_tables and not nsys_like:
        raise InputError(path, key="sqlite_not_nsys")
    if not gpu_tables:
        raise InputError(path, key="sqlite_no_gpu_tables")
    counts = {t: _count(con, t) for t in _TABLES if t in tables and {"start", "end"} <= _columns(con, t)}
    if not any(counts.get(t, 0) for t in gpu_tables):
        raise InputError(path, key="sqlite_no_gpu_activity", values={"detail": _no_rows(con, gpu_tables, counts)})

    names = _Names(_strings(con, tables))
    cols = _Columns(sum(counts.values()))
    problems: list[str] = []
    meta: dict[str, str] = {}
    kernel_n = counts.get("CUPTI_ACTIVITY_KIND_KERNEL", 0)
    want_launch = bool(kernel_n) and ((kernel_n <= 250_000) if launch_args is None else bool(launch_args))
    launch = ({f: np.full(sum(counts.values()), -1, dtype=np.int32) for f in _LAUNCH_FIELDS}
              if want_launch else None)
    if kernel_n:
        _read_kernels(con, names, cols, kernel_n, launch, problems)
    if counts.get("CUPTI_ACTIVITY_KIND_MEMCPY"):
        _read_memcpy(con, tables, names, cols, counts["CUPTI_ACTIVITY_KIND_MEMCPY"], meta)
    if counts.get("CUPTI_ACTIVITY_KIND_MEMSET"):
        _read_memset(con, names, cols, counts["CUPTI_ACTIVITY_KIND_MEMSET"])
    if counts.get("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"):
        _read_sync(con, names, cols, counts["CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"])
    if counts.get("CUPTI_ACTIVITY_KIND_RUNTIME"):
        _read_runtime(con, names, cols, counts["CUPTI_ACTIVITY_KIND_RUNTIME"])
    if counts.get("NVTX_EVENTS"):
        _read_nvtx(con, names, cols)
    if counts.get("CUPTI_ACTIVITY_KIND_GRAPH_TRACE"):
        _read_graph_trace(con, tables, names, cols, counts["CUPTI_ACTIVITY_KIND_GRAPH_TRACE"], meta)
    c = cols.final()
    n_rows = c["start"].shape[0]
    if launch is not None:
        fit = {f: a[:n_rows] if a.shape[0] >= n_rows else np.concatenate([a, np.full(n_rows - a.shape[0], -1, a.dtype)])
               for f, a in launch.items()}
        launch = LaunchArgs(**fit, warps_per_sm=np.full(n_rows, np.nan))

    tl = Timeline(
        path=path, format=FORMAT, names=tuple(names.names), start_ns=c["start"], end_ns=c["end"], kind=c["kind"],
        name_id=c["name_id"], device=c["device"], stream=c["stream"], correlation_id=c["corr"], bytes=c["bytes"],
        copy_kind=c["copy_kind"], pageable=c["pageable"], graph_launched=c["graph"], devices=_devices(con, tables),
        problems=tuple(problems), launch=launch, capture_ns=_capture(con, tables), tool_version=_version(con, tables),
        meta=meta,
    )
    # Impossible records (end at INT64_MAX, no timing, negative or zero durations, timestamps absurdly far from the
    # rest) left out and counted; same-stream overlaps clipped and listed (kernelscope.ingest.records).
    return screen_records(tl, ns_clock=True)


def _col(cols: set[str], name: str, default: str = "-1") -> str:
    return f"COALESCE({name}, {default})" if name in cols else default


def _graph(cols: set[str]) -> str:
    """SQL for the Timeline's ``graph_launched`` flag: 1 when the row has a ``graphNodeId`` (it ran as a node of a
    CUDA graph), 0 when not, -1 when the table has no such column (older exports)."""
    return "graphNodeId IS NOT NULL" if "graphNodeId" in cols else "-1"


_LAUNCH_FIELDS = ("grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z", "registers_per_thread",
                  "shared_mem_bytes", "dynamic_shared_mem_bytes")


def _read_kernels(con, names: _Names, out: _Columns, n: int, launch: dict[str, np.ndarray] | None,
                  problems: list[str]) -> None:
    table = "CUPTI_ACTIVITY_KIND_KERNEL"
    cols = _columns(con, table)
    name_col = next((c for c in ("demangledName", "shortName", "mangledName", "name") if c in cols), None)
    if name_col is None:
        problems.append("kernel table has no name column (demangledName/shortName/mangledName)")
    name_sql = f"COALESCE({name_col}, 0)" if name_col else "0"
    corr_sql = _col(cols, "correlationId")
    graph = "graphNodeId" in cols  # a graph node's kernel has one (sign bit of the packed value; a column unpacked)
    extra = ""
    if launch is not None:
        extra = ", " + ", ".join(_col(cols, c) for c in _LAUNCH_COLS)
    # One bit test per row: every field shifted right by its width must be 0 (negative values fail too, as
    # SQLite's >> is arithmetic; a NULL fails as well). Rows that fail come back NULL -> chunk re-read unpacked.
    corr1 = "IFNULL(correlationId + 1, 0)" if "correlationId" in cols else "0"
    name_raw = name_col or "0"
    fits = (f"((deviceId >> {_K_DEV_BITS}) | (streamId >> {_K_STREAM_BITS}) | ({name_raw} >> {_K_NAME_BITS}) "
            f"| ({corr1} >> 31)) = 0")
    packed = (f"CASE WHEN {fits} THEN ({corr1} << 32) | ({name_raw} << {_K_STREAM_BITS + _K_DEV_BITS}) "
              f"| (streamId << {_K_DEV_BITS}) | deviceId{' | ((graphNodeId IS NOT NULL) << 63)' if graph else ''} END")
    fast = f"SELECT start, end, {packed}{extra} FROM {table} {{where}}"
    safe = (f"SELECT start, end, deviceId, streamId, {corr_sql}, {name_sql}, "
            f"{'graphNodeId IS NOT NULL' if graph else -1}{extra} FROM {table} {{where}}")

    def sink(b: np.ndarray, is_packed: bool) -> None:
        if is_packed:
            p = b[:, 2]
            flag = (p < 0).astype(np.int8) if graph else -1
            p = p & np.int64((1 << 63) - 1)
            device = p & ((1 << _K_DEV_BITS) - 1)
            stream = (p >> _K_DEV_BITS) & ((1 << _K_STREAM_BITS) - 1)
            name_ids = (p >> (_K_DEV_BITS + _K_STREAM_BITS)) & ((1 << _K_NAME_BITS) - 1)
            corr = (p >> 32) - 1
            rest = b[:, 3:]
        else:
            device, stream, corr, name_ids, flag = b[:, 2], b[:, 3], b[:, 4], b[:, 5], b[:, 6]
            rest = b[:, 7:]
        sl = out.put(b.shape[0], start=b[:, 0], end=b[:, 1], kind=KERNEL, name_id=names.map_ids(name_ids),
                     device=device, stream=stream, corr=corr, graph=flag)
        if launch is not None:
            for j, f in enumerate(_LAUNCH_FIELDS[:7]):
                launch[f][sl] = rest[:, j]
            smem_s, smem_d = rest[:, 7], rest[:, 8]
            launch["shared_mem_bytes"][sl] = np.where((smem_s >= 0) & (smem_d >= 0), smem_s + smem_d, -1)
            launch["dynamic_shared_mem_bytes"][sl] = smem_d

    ncols = 9 if launch is not None else 0
    _scan(con, table, n, fast, 3 + ncols, safe, 7 + ncols, sink)


def _memkind_classes(con, tables: set[str], copy_kinds: np.ndarray, src: np.ndarray, dst: np.ndarray,
                     meta: dict[str, str]) -> dict[int, str]:
    if "ENUM_CUDA_MEM_KIND" in tables:
        classes = {}
        for i, name, label in con.execute("SELECT id, name, label FROM ENUM_CUDA_MEM_KIND"):
            text = f"{name} {label}".lower()
            classes[int(i)] = next((c for c in ("pageable", "pinned", "unknown") if c in text), "device")
        meta["memory_kind_numbering"] = "ENUM_CUDA_MEM_KIND table"
        return classes
    device_side = np.concatenate([dst[copy_kinds == 1], src[copy_kinds == 2]])
    nsys_only = int(np.isin(device_side, (2,)).sum())
    cupti_only = int(np.isin(device_side, (3, 6)).sum())
    if cupti_only and not nsys_only:
        meta["memory_kind_numbering"] = ("CUPTI CUpti_ActivityMemoryKind (1 = pageable): the device side of HtoD/DtoH "
                                         "copies is only consistent with it")
        return _MEMKIND_CUPTI
    meta["memory_kind_numbering"] = "Nsight Systems ENUM_CUDA_MEM_KIND (0 = pageable), assumed"
    return _MEMKIND_NSYS


def _fetch_all(con, table: str, n: int, sql: str, ncols: int) -> list[np.ndarray]:
    """Every row of ``sql`` (integer columns, no NULLs) as ``ncols`` int64 columns."""
    blocks: list[np.ndarray] = []
    _scan(con, table, n, None, 0, sql, ncols, lambda b, _packed: blocks.append(b))
    whole = np.concatenate(blocks) if blocks else np.zeros((0, ncols), dtype=np.int64)
    return [whole[:, j] for j in range(ncols)]


def _read_memcpy(con, tables: set[str], names: _Names, out: _Columns, n: int, meta: dict[str, str]) -> None:
    table = "CUPTI_ACTIVITY_KIND_MEMCPY"
    cols = _columns(con, table)
    sql = (f"SELECT start, end, deviceId, streamId, {_col(cols, 'correlationId')}, {_col(cols, 'bytes')}, "
           f"{_col(cols, 'copyKind', '0')}, {_col(cols, 'srcKind')}, {_col(cols, 'dstKind')}, {_graph(cols)} "
           f"FROM {table} {{where}}")
    start, end, device, stream, corr_ids, nb, ck, sk, dk, graph = _fetch_all(con, table, n, sql, 10)
    classes = _memkind_classes(con, tables, ck, sk, dk, meta)
    copy_kind = _COPY_KIND[np.where((ck >= 0) & (ck < _COPY_KIND.shape[0]), ck, 0)]
    lut_size = int(max(sk.max(initial=0), dk.max(initial=0), max(classes, default=0))) + 2
    pageable_lut = np.zeros(lut_size, dtype=bool)
    unknown_lut = np.ones(lut_size, dtype=bool)
    for i, c in classes.items():
        if 0 <= i < lut_size:
            pageable_lut[i] = c == "pageable"
            unknown_lut[i] = c == "unknown"
    s_idx = np.where(sk >= 0, sk, lut_size - 1)
    d_idx = np.where(dk >= 0, dk, lut_size - 1)
    is_pageable = pageable_lut[s_idx] | pageable_lut[d_idx]
    is_unknown = unknown_lut[s_idx] | unknown_lut[d_idx]
    pageable = np.where(is_pageable, 1, np.where(is_unknown, -1, 0)).astype(np.int8)
    unified = np.isin(ck, _UNIFIED_COPY_KINDS)
    # One name per (direction, unified) pair, as nsys prints them; only the pairs that occur.
    label = {COPY_HTOD: "HtoD", COPY_DTOH: "DtoH", COPY_DTOD: "DtoD", COPY_HTOH: "HtoH", COPY_PTOP: "PtoP",
             COPY_UNKNOWN: "unknown"}
    combo = copy_kind.astype(np.int32) * 2 + unified
    name_lut = np.zeros(2 * len(label), dtype=np.int32)
    for c in np.unique(combo).tolist():
        direction, is_unified = divmod(c, 2)
        prefix = "CUDA Unified Memory memcpy" if is_unified else "CUDA memcpy"
        name_lut[c] = names.add(f"[{prefix} {label[direction]}]")
    out.put(start.shape[0], start=start, end=end, kind=MEMCPY, name_id=name_lut[combo], device=device, stream=stream,
            corr=corr_ids, bytes=nb, copy_kind=copy_kind, pageable=pageable, graph=graph)


def _read_memset(con, names: _Names, out: _Columns, n: int) -> None:
    table = "CUPTI_ACTIVITY_KIND_MEMSET"
    cols = _columns(con, table)
    sql = (f"SELECT start, end, deviceId, streamId, {_col(cols, 'correlationId')}, {_col(cols, 'bytes')}, "
           f"{_graph(cols)} FROM {table} {{where}}")
    start, end, device, stream, corr_ids, nb, graph = _fetch_all(con, table, n, sql, 7)
    out.put(start.shape[0], start=start, end=end, kind=MEMSET, name_id=names.add("[CUDA memset]"), device=device,
            stream=stream, corr=corr_ids, bytes=nb, graph=graph)


def _read_graph_trace(con, tables: set[str], names: _Names, out: _Columns, n: int, meta: dict[str, str]) -> None:
    """CUDA graph replays of a graph-level trace as busy kernel-kind rows (see the module docstring)."""
    cols = _columns(con, table := "CUPTI_ACTIVITY_KIND_GRAPH_TRACE")
    sql = (f"SELECT start, end, {_col(cols, 'deviceId')}, {_col(cols, 'streamId')}, {_col(cols, 'correlationId')}, "
           f"{_col(cols, 'graphId')} FROM {table} {{where}}")
    start, end, device, stream, corr_ids, gid = _fetch_all(con, table, n, sql, 6)
    if (kernel := "CUPTI_ACTIVITY_KIND_KERNEL") in tables and {"graphNodeId", "correlationId"} <= _columns(con, kernel):
        traced = [r[0] for r in con.execute(f"SELECT DISTINCT correlationId FROM {kernel} WHERE graphNodeId IS NOT "
                                            "NULL AND correlationId IS NOT NULL")]  # node-level trace as well
        keep = ~np.isin(corr_ids, np.array(traced, dtype=np.int64)) | (corr_ids < 0)
        start, end, device, stream, corr_ids, gid = (a[keep] for a in (start, end, device, stream, corr_ids, gid))
    if start.size == 0:
        return
    ids, inverse = np.unique(gid, return_inverse=True)
    lut = np.array([names.add(GRAPH_REPLAY_NAME.format(graph_id=i if i >= 0 else "?")) for i in ids.tolist()],
                   dtype=np.int32)
    out.put(start.shape[0], start=start, end=end, kind=KERNEL, name_id=lut[inverse], device=device, stream=stream,
            corr=corr_ids, graph=1)
    meta[GRAPH_REPLAYS_META] = str(int(start.shape[0]))


def _read_sync(con, names: _Names, out: _Columns, n: int) -> None:
    table = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"
    cols = _columns(con, table)
    sql = (f"SELECT start, end, {_col(cols, 'deviceId')}, {_col(cols, 'streamId')}, {_col(cols, 'correlationId')}, "
           f"{_col(cols, 'syncType', '0')} FROM {table} {{where}}")
    start, end, device, streams, corr_ids, st = _fetch_all(con, table, n, sql, 6)
    streams = np.where(streams == _STREAM_ALL, -1, streams)
    lut = np.array([names.add(_SYNC_TYPES[i]) for i in range(5)], dtype=np.int32)
    other = names.add("Unknown sync") if ((st < 0) | (st > 4)).any() else 0
    name_id = np.where((st >= 0) & (st < 5), lut[np.clip(st, 0, 4)], other)
    out.put(start.shape[0], start=start, end=end, kind=SYNC, name_id=name_id, device=device, stream=streams,
            corr=corr_ids)


def _clean_api(name: str) -> str:
    return _API_VERSION_SUFFIX.sub("", name)


def _read_runtime(con, names: _Names, out: _Columns, n: int) -> None:
    table = "CUPTI_ACTIVITY_KIND_RUNTIME"
    cols = _columns(con, table)
    if "nameId" not in cols:
        return
    tid = _col(cols, "globalTid")
    corr = _col(cols, "correlationId")
    fast = (f"SELECT start, end, {tid}, CASE WHEN {corr} BETWEEN -1 AND {(1 << 31) - 2} AND nameId BETWEEN 0 AND "
            f"{(1 << 32) - 1} THEN (({corr} + 1) << 32) | nameId END FROM {table} {{where}}")
    safe = f"SELECT start, end, {tid}, {corr}, nameId FROM {table} {{where}}"

    def sink(b: np.ndarray, is_packed: bool) -> None:
        if is_packed:
            corr_ids, name_ids = (b[:, 3] >> 32) - 1, b[:, 3] & 0xFFFFFFFF
        else:
            corr_ids, name_ids = b[:, 3], b[:, 4]
        out.put(b.shape[0], start=b[:, 0], end=b[:, 1], kind=RUNTIME_API, name_id=names.map_ids(name_ids, _clean_api),
                device=-1, stream=b[:, 2], corr=corr_ids)

    _scan(con, table, n, fast, 4, safe, 5, sink)


def _read_nvtx(con, names: _Names, out: _Columns) -> None:
    table = "NVTX_EVENTS"
    cols = _columns(con, table)
    text = "text" if "text" in cols else "NULL"
    text_id = "textId" if "textId" in cols else "NULL"
    tid = _col(cols, "globalTid")
    where = "WHERE end IS NOT NULL AND end >= start"
    if "eventType" in cols:
        where += " AND eventType IN (59, 60, 70, 71)"  # NvtxPushPopRange, NvtxStartEndRange (+ payload variants)
    rows = con.execute(f"SELECT start, end, {tid}, {text}, {text_id} FROM {table} {where}").fetchall()
    if not rows:
        return
    k = len(rows)

    def label(r) -> str:
        if r[3] is not None:
            return str(r[3])
        if r[4] is not None and r[4] in names.strings:
            return names.strings[r[4]]
        return "<unnamed NVTX range>"

    out.put(k, start=np.fromiter((r[0] for r in rows), dtype=np.int64, count=k),
            end=np.fromiter((r[1] for r in rows), dtype=np.int64, count=k), kind=ANNOTATION,
            name_id=np.fromiter((names.add(label(r)) for r in rows), dtype=np.int32, count=k), device=-1,
            stream=np.fromiter((r[2] for r in rows), dtype=np.int64, count=k))

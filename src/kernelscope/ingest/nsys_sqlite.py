"""Reader for Nsight Systems SQLite exports (``nsys export --type sqlite``) into a :class:`~kernelscope.timeline_model.Timeline`.

Extraction only (no analysis). The database is opened READ-ONLY through an SQLite URI (``mode=ro``): the user's
file is never changed, not even its mtime.

Tables read (each only when present; columns looked up with ``PRAGMA table_info`` so every schema generation in
the corpus works):

* ``CUPTI_ACTIVITY_KIND_KERNEL`` -- ``start``/``end`` (ns), ``deviceId``, ``streamId``, ``correlationId``, the
  name as a ``StringIds`` id (``demangledName``, else ``shortName``, else ``mangledName``: older exports have no
  ``mangledName``), and the launch shape (``gridX``..., ``registersPerThread``, ``static/dynamicSharedMemory``)
  when ``launch_args`` is asked for.
* ``CUPTI_ACTIVITY_KIND_MEMCPY`` -- plus ``bytes``, ``copyKind`` (CUPTI's ``CUpti_ActivityMemcpyKind``: HtoA/AtoH/
  array and unified-memory kinds folded into HtoD / DtoH / DtoD) and ``srcKind``/``dstKind`` (pageable or not).
* ``CUPTI_ACTIVITY_KIND_MEMSET``, ``CUPTI_ACTIVITY_KIND_SYNCHRONIZATION`` (``syncType``),
  ``CUPTI_ACTIVITY_KIND_RUNTIME`` (host-side runtime and driver API calls; ``nameId``, version suffixes such as
  ``_v7000`` removed from the names), ``NVTX_EVENTS`` (push/pop and start/end ranges).
* GPU names from ``TARGET_INFO_GPU`` or ``TARGET_INFO_CUDA_GPU`` (device id column ``id``, ``deviceId`` or
  ``cuDevice``), the tool version from ``EXPORT_META_DATA`` / ``META_DATA_EXPORT``, the capture window from
  ``ANALYSIS_DETAILS``.

Memory kinds. Nsight Systems exports number them as its ``ENUM_CUDA_MEM_KIND`` table says (0 pageable, 1 pinned,
2 device, 3 array, 4 managed, 5 device static, 6 managed static, 7 unknown; NVIDIA's own ``cuda_memcpy_async``
expert rule tests ``srcKind == 0``). When that table is present its labels decide; without it that numbering is
assumed unless the device side of the HtoD / DtoH copies is only consistent with CUPTI's raw
``CUpti_ActivityMemoryKind`` numbering (0 unknown, 1 pageable, 2 pinned, 3 device ...), e.g. an HtoD copy into
kind 3, which Nsight's numbering would call an array (a copy kind of its own); the choice is stated in ``meta``.

Speed: rows are fetched with ``fetchmany`` in chunks straight into preallocated NumPy columns
(``np.fromiter`` over the row tuples); small integer columns are packed into one SQL value where they fit, so
that a 5-million-row kernel table costs little more than a bare ``SELECT start, end``.
"""

from __future__ import annotations

import os
import re
import sqlite3
from itertools import chain
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..timeline_model import (
    COPY_DTOD,
    COPY_DTOH,
    COPY_HTOD,
    COPY_HTOH,
    COPY_PTOP,
    COPY_UNKNOWN,
    KERNEL,
    MEMCPY,
    MEMSET,
    RUNTIME_API,
    SYNC,
    ANNOTATION,
    InvalidRecord,
    KIND_NAMES,
    LaunchArgs,
    Timeline,
)

FORMAT = "nsys-sqlite"

#: Rows per ``fetchmany`` call.
CHUNK_ROWS = 1 << 16

_NO_GPU = ("recorded no GPU activity: {detail} (usually: the app ran no CUDA work, or nsys ran without "
           "--trace=cuda)")

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
            when the kernel table has at most 1 million rows (None, the default: they cost a third of the read).

    Raises:
        InputError: not an SQLite database, not an Nsight Systems export, or a capture with no GPU activity.
    """
    p = Path(path)
    if not p.exists():
        raise InputError(str(path), "file not found")
    if p.is_dir():
        raise InputError(str(path), "is a directory; expected an Nsight Systems SQLite export")
    uri = p.resolve().as_uri() + "?mode=ro"
    try:
        con = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as exc:
        raise InputError(str(path), f"cannot open the SQLite database read-only ({exc})") from None
    try:
        return _read(con, str(path), launch_args)
    except sqlite3.DatabaseError as exc:
        raise InputError(str(path), f"not a readable SQLite database ({exc}); expected an Nsight Systems export "
                                    "(`nsys export --type sqlite`)") from None
    finally:
        con.close()


# ------------------------------------------------------------------------------------------------- helpers
def _tables(con: sqlite3.Connection) -> set[str]:
    return {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}


def _columns(con: sqlite3.Connection, table: str) -> set[str]:
    return {r[1] for r in con.execute(f"PRAGMA table_info({table})")}


def _count(con: sqlite3.Connection, table: str, where: str = "") -> int:
    return int(con.execute(f"SELECT COUNT(*) FROM {table} {where}").fetchone()[0])


def _fetch(con: sqlite3.Connection, sql: str, ncols: int, n: int) -> list[np.ndarray]:
    """Run ``sql`` (integer columns only, no NULLs) and return its ``ncols`` columns as int64 arrays.
    ``n`` is the expected row count (the arrays grow if the table grew meanwhile)."""
    cols = [np.empty(n, dtype=np.int64) for _ in range(ncols)]
    cur = con.execute(sql)
    i = 0
    while True:
        rows = cur.fetchmany(CHUNK_ROWS)
        if not rows:
            break
        k = len(rows)
        block = np.fromiter(chain.from_iterable(rows), dtype=np.int64, count=k * ncols).reshape(k, ncols)
        if i + k > cols[0].shape[0]:
            cols = [np.concatenate([c[:i], np.empty(max(k, i), dtype=np.int64)]) for c in cols]
        for j in range(ncols):
            cols[j][i:i + k] = block[:, j]
        i += k
    return [c[:i] for c in cols]


class _Names:
    """The Timeline's string table, filled from StringIds ids and literal names."""

    def __init__(self, strings: dict[int, str]) -> None:
        self.strings = strings
        self.names: list[str] = []
        self.index: dict[str, int] = {}

    def add(self, name: str) -> int:
        i = self.index.get(name)
        if i is None:
            i = self.index[name] = len(self.names)
            self.names.append(name)
        return i

    def map_ids(self, ids: np.ndarray, clean=None) -> np.ndarray:
        """Timeline name ids for an array of StringIds ids (O(n) through a lookup table)."""
        if ids.size == 0:
            return np.zeros(0, dtype=np.int32)
        lo, hi = int(ids.min()), int(ids.max())
        if lo >= 0 and hi < 64 * 1024 * 1024:
            used = np.zeros(hi + 1, dtype=bool)
            used[ids] = True
            distinct = np.flatnonzero(used)
            lut = np.zeros(hi + 1, dtype=np.int32)
            lut[distinct] = [self.add(self._text(int(i), clean)) for i in distinct]
            return lut[ids]
        distinct, inverse = np.unique(ids, return_inverse=True)
        mapped = np.array([self.add(self._text(int(i), clean)) for i in distinct], dtype=np.int32)
        return mapped[inverse]

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


def _fit_all(con: sqlite3.Connection, table: str, limits: dict[str, int]) -> bool:
    """Whether every value of each integer column lies in [0, 2**bits) (NULLs allowed), in one table scan."""
    if not limits:
        return True
    sql = ", ".join(f"MIN({c}), MAX({c})" for c in limits)
    row = con.execute(f"SELECT {sql} FROM {table}").fetchone()
    for i, bits in enumerate(limits.values()):
        lo, hi = row[2 * i], row[2 * i + 1]
        if lo is not None and (lo < 0 or hi >= (1 << bits)):
            return False
    return True


# --------------------------------------------------------------------------------------------------- reading
class _Parts:
    """Column pieces, one per table, concatenated at the end."""

    def __init__(self) -> None:
        self.pieces: list[dict[str, np.ndarray]] = []

    def add(self, n: int, **cols: np.ndarray | int) -> None:
        self.pieces.append({k: (np.full(n, v) if np.isscalar(v) else v) for k, v in cols.items()} | {"_n": n})

    def column(self, name: str, fill: int, dtype) -> np.ndarray:
        parts = [np.asarray(p[name], dtype=dtype) if name in p else np.full(p["_n"], fill, dtype=dtype)
                 for p in self.pieces]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)


def _read(con: sqlite3.Connection, path: str, launch_args: bool | None) -> Timeline:
    tables = _tables(con)
    gpu_tables = [t for t in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET")
                  if t in tables]
    nsys_like = bool(tables & {"StringIds", "TARGET_INFO_GPU", "TARGET_INFO_CUDA_GPU", "CUPTI_ACTIVITY_KIND_RUNTIME",
                               "ANALYSIS_DETAILS", "EXPORT_META_DATA", "META_DATA_EXPORT", "ThreadNames"})
    if not gpu_tables and not nsys_like:
        raise InputError(path, "SQLite database without Nsight Systems tables (no StringIds, TARGET_INFO_GPU or "
                               "CUPTI_ACTIVITY_KIND_* tables); expected an `nsys export --type sqlite` file")
    counts = {t: _count(con, t) for t in gpu_tables}
    if not gpu_tables:
        raise InputError(path, _NO_GPU.format(detail="the export has no CUPTI_ACTIVITY_KIND_KERNEL, _MEMCPY or "
                                                     "_MEMSET table"))
    if not any(counts.values()):
        raise InputError(path, _NO_GPU.format(detail=f"the {', '.join(gpu_tables)} table(s) are empty"))

    names = _Names(_strings(con, tables))
    parts = _Parts()
    problems: list[str] = []
    meta: dict[str, str] = {}
    launch_pieces: list[LaunchArgs] = []

    kernel_n = counts.get("CUPTI_ACTIVITY_KIND_KERNEL", 0)
    want_launch = (kernel_n <= 1_000_000) if launch_args is None else bool(launch_args)
    if kernel_n:
        launch_pieces.append(_read_kernels(con, names, parts, kernel_n, want_launch, problems))
    if counts.get("CUPTI_ACTIVITY_KIND_MEMCPY"):
        _read_memcpy(con, tables, names, parts, counts["CUPTI_ACTIVITY_KIND_MEMCPY"], meta)
    if counts.get("CUPTI_ACTIVITY_KIND_MEMSET"):
        _read_memset(con, names, parts, counts["CUPTI_ACTIVITY_KIND_MEMSET"])
    if "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION" in tables:
        _read_sync(con, names, parts)
    if "CUPTI_ACTIVITY_KIND_RUNTIME" in tables:
        _read_runtime(con, names, parts)
    if "NVTX_EVENTS" in tables:
        _read_nvtx(con, names, parts)

    start = parts.column("start", 0, np.int64)
    end = parts.column("end", 0, np.int64)
    kind = parts.column("kind", 0, np.uint8)
    name_id = parts.column("name_id", 0, np.int32)
    launch = None
    if want_launch and kernel_n:
        n_other = start.shape[0] - kernel_n
        rest = LaunchArgs.empty(n_other)
        first = launch_pieces[0]
        launch = LaunchArgs(**{f: np.concatenate([getattr(first, f), getattr(rest, f)])
                               for f in ("grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z",
                                         "registers_per_thread", "shared_mem_bytes", "dynamic_shared_mem_bytes",
                                         "warps_per_sm")})

    # Records without usable timing: counted and named, kept out of the columns (case C03's rule).
    bad = (end < start) | ((start == 0) & (end == 0))
    invalid: list[InvalidRecord] = []
    if bad.any():
        for code in np.unique(kind[bad]):
            sel = bad & (kind == code)
            ids, counts_by_name = np.unique(name_id[sel], return_counts=True)
            for i, c in zip(ids.tolist(), counts_by_name.tolist()):
                invalid.append(InvalidRecord(KIND_NAMES[int(code)], names.names[i],
                                             "no usable timing (end before start, or start and end both 0)", int(c)))
        problems.append(f"{int(bad.sum())} record(s) without usable timing left out (see invalid)")
        keep = ~bad
    else:
        keep = None

    cols = {
        "start_ns": start, "end_ns": end, "kind": kind, "name_id": name_id,
        "device": parts.column("device", -1, np.int16),
        "stream": parts.column("stream", -1, np.int64),
        "correlation_id": parts.column("corr", -1, np.int64),
        "bytes": parts.column("bytes", -1, np.int64),
        "copy_kind": parts.column("copy_kind", COPY_UNKNOWN, np.uint8),
        "pageable": parts.column("pageable", -1, np.int8),
    }
    if keep is not None:
        cols = {k: v[keep] for k, v in cols.items()}
        launch = launch.take(keep) if launch is not None else None
    return Timeline(
        path=path, format=FORMAT, names=tuple(names.names), **cols, devices=_devices(con, tables),
        invalid=tuple(invalid), problems=tuple(problems), launch=launch, capture_ns=_capture(con, tables),
        tool_version=_version(con, tables), meta=meta,
    )


def _read_kernels(con, names: _Names, parts: _Parts, n: int, want_launch: bool, problems: list[str]) -> LaunchArgs:
    table = "CUPTI_ACTIVITY_KIND_KERNEL"
    cols = _columns(con, table)
    name_col = next((c for c in ("demangledName", "shortName", "mangledName", "name") if c in cols), None)
    if name_col is None:
        problems.append("kernel table has no name column (demangledName/shortName/mangledName)")
        name_sql = "0"
    else:
        name_sql = f"COALESCE({name_col}, 0)"
    corr = "COALESCE(correlationId, -1)" if "correlationId" in cols else "-1"
    # Pack device (16 bits) + stream (47 bits) and correlation (31 bits) + name id (32 bits) into one value each
    # when they fit: fewer Python ints per row is what makes the fetch fast.
    limits = {"deviceId": 15, "streamId": 47}
    if corr != "-1":
        limits["correlationId"] = 31
    if name_col is not None:
        limits[name_col] = 32
    packed = _fit_all(con, table, limits)
    launch_cols = ("gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ", "registersPerThread",
                   "staticSharedMemory", "dynamicSharedMemory")
    extra = ""
    if want_launch:
        extra = ", " + ", ".join(f"COALESCE({c}, -1)" if c in cols else "-1" for c in launch_cols)
    if packed:
        corr_p = "COALESCE(correlationId + 1, 0)" if corr != "-1" else "0"
        sql = (f"SELECT start, end, (streamId << 16) | deviceId, ({corr_p} << 32) | {name_sql}{extra} FROM {table}")
        got = _fetch(con, sql, 4 + (9 if want_launch else 0), n)
        start, end, dev_stream, corr_name = got[:4]
        device = dev_stream & 0xFFFF
        stream = dev_stream >> 16
        corr_ids = (corr_name >> 32) - 1
        name_ids = corr_name & 0xFFFFFFFF
        rest = got[4:]
    else:
        sql = f"SELECT start, end, deviceId, streamId, {corr}, {name_sql}{extra} FROM {table}"
        got = _fetch(con, sql, 6 + (9 if want_launch else 0), n)
        start, end, device, stream, corr_ids, name_ids = got[:6]
        rest = got[6:]
    k = start.shape[0]
    parts.add(k, start=start, end=end, kind=KERNEL, name_id=names.map_ids(name_ids), device=device, stream=stream,
              corr=corr_ids)
    if not want_launch:
        return LaunchArgs.empty(0)
    gx, gy, gz, bx, by, bz, regs, smem_s, smem_d = rest
    smem = np.where((smem_s >= 0) & (smem_d >= 0), smem_s + smem_d, -1)
    return LaunchArgs(gx, gy, gz, bx, by, bz, regs, smem, smem_d, np.full(k, np.nan))


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


def _read_memcpy(con, tables: set[str], names: _Names, parts: _Parts, n: int, meta: dict[str, str]) -> None:
    table = "CUPTI_ACTIVITY_KIND_MEMCPY"
    cols = _columns(con, table)
    corr = "COALESCE(correlationId, -1)" if "correlationId" in cols else "-1"
    src = "COALESCE(srcKind, -1)" if "srcKind" in cols else "-1"
    dst = "COALESCE(dstKind, -1)" if "dstKind" in cols else "-1"
    nbytes = "COALESCE(bytes, -1)" if "bytes" in cols else "-1"
    copy = "COALESCE(copyKind, 0)" if "copyKind" in cols else "0"
    start, end, device, stream, corr_ids, nb, ck, sk, dk = _fetch(
        con, f"SELECT start, end, deviceId, streamId, {corr}, {nbytes}, {copy}, {src}, {dst} FROM {table}", 9, n)
    classes = _memkind_classes(con, tables, ck, sk, dk, meta)
    ck_safe = np.where((ck >= 0) & (ck < _COPY_KIND.shape[0]), ck, 0)
    copy_kind = _COPY_KIND[ck_safe]
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
    name_id = name_lut[combo]
    parts.add(start.shape[0], start=start, end=end, kind=MEMCPY, name_id=name_id, device=device, stream=stream,
              corr=corr_ids, bytes=nb, copy_kind=copy_kind, pageable=pageable)


def _read_memset(con, names: _Names, parts: _Parts, n: int) -> None:
    table = "CUPTI_ACTIVITY_KIND_MEMSET"
    cols = _columns(con, table)
    corr = "COALESCE(correlationId, -1)" if "correlationId" in cols else "-1"
    nbytes = "COALESCE(bytes, -1)" if "bytes" in cols else "-1"
    start, end, device, stream, corr_ids, nb = _fetch(
        con, f"SELECT start, end, deviceId, streamId, {corr}, {nbytes} FROM {table}", 6, n)
    parts.add(start.shape[0], start=start, end=end, kind=MEMSET, name_id=names.add("[CUDA memset]"), device=device,
              stream=stream, corr=corr_ids, bytes=nb)


def _read_sync(con, names: _Names, parts: _Parts) -> None:
    table = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"
    cols = _columns(con, table)
    if not {"start", "end"} <= cols:
        return
    dev = "deviceId" if "deviceId" in cols else "-1"
    stream = "streamId" if "streamId" in cols else "-1"
    corr = "COALESCE(correlationId, -1)" if "correlationId" in cols else "-1"
    stype = "COALESCE(syncType, 0)" if "syncType" in cols else "0"
    n = _count(con, table)
    if not n:
        return
    start, end, device, streams, corr_ids, st = _fetch(
        con, f"SELECT start, end, {dev}, {stream}, {corr}, {stype} FROM {table}", 6, n)
    streams = np.where(streams == _STREAM_ALL, -1, streams)
    lut = np.array([names.add(_SYNC_TYPES.get(i, f"Sync type {i}")) for i in range(5)], dtype=np.int32)
    other = names.add("Unknown sync")
    name_id = np.where((st >= 0) & (st < 5), lut[np.clip(st, 0, 4)], other)
    parts.add(start.shape[0], start=start, end=end, kind=SYNC, name_id=name_id, device=device, stream=streams,
              corr=corr_ids)


def _clean_api(name: str) -> str:
    return _API_VERSION_SUFFIX.sub("", name)


def _read_runtime(con, names: _Names, parts: _Parts) -> None:
    table = "CUPTI_ACTIVITY_KIND_RUNTIME"
    cols = _columns(con, table)
    if not {"start", "end", "nameId"} <= cols:
        return
    n = _count(con, table)
    if not n:
        return
    tid = "COALESCE(globalTid, -1)" if "globalTid" in cols else "-1"
    corr = "COALESCE(correlationId, -1)" if "correlationId" in cols else "-1"
    start, end, tids, corr_ids, name_ids = _fetch(
        con, f"SELECT start, end, {tid}, {corr}, nameId FROM {table}", 5, n)
    parts.add(start.shape[0], start=start, end=end, kind=RUNTIME_API, name_id=names.map_ids(name_ids, _clean_api),
              device=-1, stream=tids, corr=corr_ids)


def _read_nvtx(con, names: _Names, parts: _Parts) -> None:
    table = "NVTX_EVENTS"
    cols = _columns(con, table)
    if not {"start", "end"} <= cols:
        return
    text = "text" if "text" in cols else "NULL"
    text_id = "textId" if "textId" in cols else "NULL"
    tid = "COALESCE(globalTid, -1)" if "globalTid" in cols else "-1"
    where = "WHERE end IS NOT NULL AND end >= start"
    if "eventType" in cols:
        where += " AND eventType IN (59, 60, 70, 71)"  # NvtxPushPopRange, NvtxStartEndRange (+ payload variants)
    rows = con.execute(f"SELECT start, end, {tid}, {text}, {text_id} FROM {table} {where}").fetchall()
    if not rows:
        return
    start = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    end = np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows))
    tids = np.fromiter((r[2] for r in rows), dtype=np.int64, count=len(rows))
    name_id = np.fromiter(
        (names.add(r[3] if r[3] is not None else names.strings.get(r[4], "<unnamed NVTX range>") if r[4] is not None
                   else "<unnamed NVTX range>") for r in rows), dtype=np.int32, count=len(rows))
    parts.add(len(rows), start=start, end=end, kind=ANNOTATION, name_id=name_id, device=-1, stream=tids)

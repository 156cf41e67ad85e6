"""Reader for the per-record report of ``nsys stats``: ``--report cuda_gpu_trace`` (older name ``gputrace``), one row
per kernel, copy and memset with its start, duration, bytes, memory kinds, device, stream and name (case N23).
It holds intervals, so it becomes a :class:`~kernelscope.timeline_model.Timeline`, not a summary.

Extraction only. Layouts: ``--format csv`` (a header row ``Start (ns),Duration (ns),CorrId,...,Name``), console
text (the header over a line of dashes; cells cut under the dashes, :class:`.columns.Columns`, the name running to
the end of the line) and ``--format table`` (``| ... |`` rows between ``+---+`` borders), with or without the
``Processing [...] with [.../cuda_gpu_trace.py]...`` line before it.

Columns (as nsys 2022-2026 prints them; the older ``gputrace`` spellings too): ``Start`` and ``Duration`` with their
unit in the header (``(ns)``, ``(us)``...); ``CorrId``; ``GrdX``..``BlkZ``, ``Reg/Trd``, ``StcSMem``/``DymSMem``
(MB); ``Bytes`` or ``Size`` (MB); ``SrcMemKd``/``DstMemKd`` (``Pageable`` marks a pageable copy); ``Device``
(``NVIDIA H100 80GB HBM3 (0)``: the device id in brackets, the GPU name before it); ``Strm``/``Stream``; ``Name``.
Row kinds from the name as nsys writes it: ``[CUDA memcpy Host-to-Device]`` / ``[CUDA memcpy HtoD]`` (direction;
named ``[CUDA memcpy HtoD]`` as the SQLite reader names it), ``[CUDA memset]``, any other name a kernel. Numbers:
plain (CSV), or in the console text and table with the number format of the file (``1,000.5`` or, in a
comma-decimal locale, ``1.000,5``: told from the file by the summary reader's rules, ``number_format``).
"""

from __future__ import annotations

import re

import numpy as np

from ..errors import InputError
from ..timeline_model import KERNEL, MEMCPY, MEMSET, LaunchArgs, Timeline, copy_kind_code
from .columns import Columns
from .records import screen_records
from .units import NSYS_BYTES, NSYS_TIME_S

FORMAT = "nsys-stats"

_UNIT = re.compile(r"^(.*?)\s*\(([^()]*)\)\s*$")
_COPY = re.compile(r"^\[CUDA (?:Unified Memory )?memcpy (.+?)\]$", re.IGNORECASE)
_DIRECTIONS = {"htod": "HtoD", "host-to-device": "HtoD", "dtoh": "DtoH", "device-to-host": "DtoH",
               "dtod": "DtoD", "device-to-device": "DtoD", "htoh": "HtoH", "host-to-host": "HtoH",
               "ptop": "PtoP", "peer-to-peer": "PtoP"}
_DEVICE = re.compile(r"^(.*?)\s*\((\d+)\)\s*$")
#: Header cell (lower case, unit removed) -> column.
_COLUMNS = {"start": "start", "duration": "duration", "corrid": "corr", "grdx": "grid_x", "grdy": "grid_y",
            "grdz": "grid_z", "blkx": "block_x", "blky": "block_y", "blkz": "block_z", "reg/trd": "regs",
            "stcsmem": "smem_static", "dymsmem": "smem_dynamic", "bytes": "bytes", "size": "bytes",
            "srcmemkd": "src_kind", "dstmemkd": "dst_kind", "device": "device", "strm": "stream", "stream": "stream",
            "name": "name"}


def _cell(header: str) -> tuple[str | None, str | None]:
    """(column, unit) of one header cell."""
    h = header.strip().strip('"')
    unit = None
    m = _UNIT.match(h)
    if m:
        h, unit = m.group(1), m.group(2)
    return _COLUMNS.get(h.strip().lower()), unit


def is_trace_header(cells: list[str]) -> bool:
    """Whether table header cells are a ``cuda_gpu_trace`` header (Start, Duration and Name columns)."""
    cols = {_cell(c)[0] for c in cells}
    return {"start", "duration", "name"} <= cols


class _Numbers:
    """Cell text to numbers in one number format: ``"C"`` (``,`` thousands separators) or ``"comma-decimal"``."""

    def __init__(self, fmt: str) -> None:
        self.comma_decimal = fmt == "comma-decimal"

    def __call__(self, v: str) -> float | None:
        """A cell's number; None for an empty, ``-`` or ``N/A`` cell.

        Raises:
            ValueError: any other text.
        """
        v = v.strip().strip('"')
        if not v or v in ("-", "N/A", "n/a"):
            return None
        return float(v.replace(".", "").replace(",", ".") if self.comma_decimal else v.replace(",", ""))

    def optional(self, v: str | None) -> float | None:
        """An optional cell's number; None also for text that is not one (the column is then not recorded)."""
        try:
            return self(v or "")
        except ValueError:
            return None


class _NoTime(Exception):
    """A row without a number for its start or duration."""


#: The Timeline columns this reader fills: (name, dtype, fill).
_SPEC = (("start", np.int64, 0), ("end", np.int64, 0), ("kind", np.uint8, 0), ("name_id", np.int32, 0),
         ("device", np.int16, -1), ("stream", np.int64, -1), ("corr", np.int64, -1), ("bytes", np.int64, -1),
         ("copy_kind", np.uint8, 0), ("pageable", np.int8, -1))
_LAUNCH = ("grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z", "regs", "smem", "smem_dynamic")


def _record(cols: dict[str, np.ndarray], launch: dict[str, np.ndarray], i: int, r: dict[str, str], num: "_Numbers",
            scales: tuple[float, float, float, float], table: dict[str, int], devices: dict[int, str]) -> None:
    """Row ``i`` (cells ``r``) into the columns; ``scales``: seconds per start and duration unit, bytes per
    ``Bytes`` and per shared-memory unit.

    Raises:
        _NoTime: no start or duration number; OverflowError / ValueError: a value out of its column's range.
    """
    try:
        s, d = num(r.get("start", "")), num(r.get("duration", ""))
    except ValueError:
        s = d = None
    if s is None or d is None:
        raise _NoTime
    cols["start"][i] = round(s * scales[0] * 1e9)
    cols["end"][i] = cols["start"][i] + round(d * scales[1] * 1e9)
    nm = r.get("name", "").strip().strip('"')
    m = _COPY.match(nm)
    if m:  # named as the SQLite reader names copies ("[CUDA memcpy HtoD]")
        direction = _DIRECTIONS.get(m.group(1).strip().lower(), "unknown")
        nm = f"[CUDA {'Unified Memory ' if 'unified' in nm.lower() else ''}memcpy {direction}]"
        cols["kind"][i] = MEMCPY
        cols["copy_kind"][i] = copy_kind_code(direction)
    else:
        cols["kind"][i] = MEMSET if nm.lower().startswith("[cuda memset") else KERNEL
    cols["name_id"][i] = table.setdefault(nm, len(table))
    dm = _DEVICE.match(r.get("device", ""))
    if dm:
        cols["device"][i] = int(dm.group(2))
        devices.setdefault(int(dm.group(2)), dm.group(1).strip())
    elif (dv := r.get("device", "").strip()).isdigit():
        cols["device"][i] = int(dv)
    for col in ("stream", "corr"):
        v = num.optional(r.get(col))
        if v is not None:
            cols[col][i] = int(v)
    if cols["kind"][i] == KERNEL:
        _launch_args(r, launch, i, scales[3], num)
        return
    b = num.optional(r.get("bytes"))
    if b is not None:
        cols["bytes"][i] = round(b * scales[2])
    kinds = {r.get("src_kind", "").lower(), r.get("dst_kind", "").lower()} - {""}
    if kinds:
        cols["pageable"][i] = 1 if "pageable" in kinds else 0


def _launch_args(r: dict[str, str], launch: dict[str, np.ndarray], i: int, sm_scale: float, num: _Numbers) -> None:
    """Row ``i``'s launch shape, registers and shared memory (bytes, from the header's unit) into ``launch``."""
    for col in ("grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z", "regs"):
        v = num.optional(r.get(col))
        if v is not None:
            launch[col][i] = int(v)
    st, dy = num.optional(r.get("smem_static")), num.optional(r.get("smem_dynamic"))
    if st is not None and dy is not None:
        launch["smem"][i] = round((st + dy) * sm_scale)
        launch["smem_dynamic"][i] = round(dy * sm_scale)


def _rows(lines: list[str], at: int, names: list[str | None], layout: str, split) -> list[tuple[int, dict]]:
    """``(line number, {column: cell})`` of each row under the header at ``at``, up to the first blank line (CSV:
    or the first shorter row; table: or the first line that is neither a row nor a border)."""
    columns = Columns.under_dashes(lines[at + 1]) if layout == "console" else None
    rows: list[tuple[int, dict[str, str]]] = []
    for j in range(at + 2 if layout == "console" else at + 1, len(lines)):
        line = lines[j]
        if not line.strip():
            break
        if layout == "table":
            if line.strip().startswith("+"):
                continue
            if not line.strip().startswith("|"):
                break
            got = [c.strip() for c in line.strip().strip("|").split("|")]
        else:
            got = split(line.strip()) if layout == "csv" else columns.cut(line)  # type: ignore[union-attr]
        if len(got) < len(names):
            if layout == "csv":
                break
            got += [""] * (len(names) - len(got))
        rows.append((j + 1, {c: v for c, v in zip(names, got) if c is not None}))
    return rows


def read_gpu_trace(path: str, lines: list[str], at: int, cells: list[str], layout: str, split,
                   number_format=None) -> Timeline:
    """The Timeline of the ``cuda_gpu_trace`` table whose header is line ``at`` (0-based) of ``lines``.

    Args:
        path: the file (for messages).
        lines: the file's lines.
        at: index of the header line; console text has its dashes on the next line.
        cells: the header cells.
        layout: ``"csv"``, ``"console"`` (rows cut under the dashes) or ``"table"`` (``| ... |`` rows).
        split: how a CSV row is split into cells (the summary reader's CSV splitter).
        number_format: ``number_format(lines, cells)`` -> ``"C"`` or ``"comma-decimal"`` for console and table
            numbers, from ``(line number, cell)`` pairs (the summary reader's rule); None: ``"C"``.

    Raises:
        InputError: a row whose start or duration is not a number, or a value out of its column's range (naming
            the line), or a table without rows.
    """
    header = [_cell(c) for c in cells]
    units = {c: u for c, u in header if c is not None}
    t_scale = {c: NSYS_TIME_S.get(units.get(c) or "ns") for c in ("start", "duration")}
    if None in t_scale.values():
        raise InputError(path, key="gpu_trace_bad_unit",
            values={"at": at + 1, "value": units.get('start'), "value2": units.get('duration')})
    b_scale = NSYS_BYTES.get(units.get("bytes") or "MB", 1e6)
    sm_scale = NSYS_BYTES.get(units.get("smem_static") or "MB", 1e6)
    rows = _rows(lines, at, [c for c, _ in header], layout, split)
    if not rows:
        raise InputError(path, key="gpu_trace_no_rows")
    numeric = [(ln, r[c]) for ln, r in rows for c in ("start", "duration", "bytes") if r.get(c)]
    num = _Numbers("C" if layout == "csv" or number_format is None else number_format(numeric))
    n = len(rows)
    cols = {name: np.full(n, fill, dtype) for name, dtype, fill in _SPEC}
    launch = {f: np.full(n, -1, np.int32) for f in _LAUNCH}
    table: dict[str, int] = {}
    devices: dict[int, str] = {}
    for i, (lineno, r) in enumerate(rows):
        try:
            _record(cols, launch, i, r, num, (t_scale["start"], t_scale["duration"], b_scale, sm_scale), table,
                    devices)
        except _NoTime:
            raise InputError(path, key="gpu_trace_bad_time",
                values={"lineno": lineno, "value": r.get('start'), "value2": r.get('duration')}) from None
        except (OverflowError, ValueError):  # inf / nan, or beyond the column's integer range
            raise InputError(path, key="gpu_trace_out_of_range", values={"lineno": lineno}) from None
    args = LaunchArgs(grid_x=launch["grid_x"], grid_y=launch["grid_y"], grid_z=launch["grid_z"],
                      block_x=launch["block_x"], block_y=launch["block_y"], block_z=launch["block_z"],
                      registers_per_thread=launch["regs"], shared_mem_bytes=launch["smem"],
                      dynamic_shared_mem_bytes=launch["smem_dynamic"], warps_per_sm=np.full(n, np.nan))
    tl = Timeline(path=path, format=FORMAT, names=tuple(table), start_ns=cols["start"], end_ns=cols["end"],
                  kind=cols["kind"], name_id=cols["name_id"], device=cols["device"], stream=cols["stream"],
                  correlation_id=cols["corr"], bytes=cols["bytes"], copy_kind=cols["copy_kind"],
                  pageable=cols["pageable"], devices=tuple(sorted(devices.items())), launch=args,
                  meta={"report": "cuda_gpu_trace"})
    return screen_records(tl, ns_clock=True)

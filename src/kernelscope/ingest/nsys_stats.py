"""Reader for ``nsys stats`` output into a :class:`~kernelscope.timeline_model.TimelineSummary` (per-name summaries).

Extraction only. Layouts read (all found in real files):

* console text of ``nsys profile --stats=true`` / ``nsys stats``, three header generations::

      Time(%)      Total Time       Calls         Average    Minimum    Maximum  Name            (2020-2021, ns
                                                                                                   from the title)
      Time(%)  Total Time (ns)  Num Calls    Average   Minimum   Maximum   Name                 (2021)
      Time (%)  Total Time (ns)  Num Calls  Avg (ns)  Med (ns)  Min (ns)  Max (ns)  StdDev (ns)  Name   (2022+)

  each header followed by a line of dashes; the report is named by a title (``CUDA API Statistics:``,
  ``CUDA Kernel Statistics (nanoseconds)``...), by ``[5/8] Executing 'cuda_api_sum' stats report`` or by
  ``Processing [...] with [.../cuda_gpu_kern_sum.py]``; a table with no name is recognised by its columns
  (``Instances`` = kernels, ``[CUDA memcpy ...]`` rows = memory operations, ``cuda*``/``cu*`` names = API calls).
* ``--format csv`` (a header row ``Time (%),Total Time (ns),...``) and ``--format table`` (``| ... |`` rows
  between ``+---+`` borders, possibly written in a Windows code page: a name cut with byte 0x85 is "…").
* both report-name generations: ``cudaapisum``/``cuda_api_sum``, ``gpukernsum``/``cuda_gpu_kern_sum``,
  ``gpumemtimesum``/``cuda_gpu_mem_time_sum``, ``gpumemsizesum``/``cuda_gpu_mem_size_sum``, ``nvtxsum``/``nvtx_sum``.
  OS-runtime summaries (``osrtsum``/``osrt_sum``) are recognised and skipped.
* the per-record GPU trace (``--report cuda_gpu_trace`` / ``gputrace``, CSV or console text): intervals, so the
  file is read as a :class:`~kernelscope.timeline_model.Timeline` instead (:mod:`.nsys_gpu_trace`, case N23).

Numbers: the number format is detected from the FILE, never from the machine's locale (case C20): ``1,234.5``
("C"), ``1.234,5`` ("comma-decimal", e.g. ``32,0`` in Time(%), ``13.508.755.722``), or plain ``1234.5``. A file
whose numbers fit both readings is an error naming the line; so is a file that mixes both.

Names cut by nsys keep their ellipsis ("…" or "...") and are marked ``truncated``; the unit-less 2020-2021 console
layout (``Time(%)  Total Time  Calls  Average ...``, fixed-width name column) cut long names to the column width
without a mark: there a name filling its column exactly is marked truncated too. Later layouts size the name column
to the longest name, so a complete name filling it is never marked (case N05).

No data: a file whose tables hold only their headers is refused ("no data", naming the tables), never an empty
success; rows holding a negative number (a time, count or share) are left out and stated, and a file with nothing
else is refused naming the field. Detection (:func:`looks_like_nsys_stats`) accepts any line of the output: a
``[3/8] Executing 'nvtx_sum' stats report`` line, a report title, or a table header (console, CSV or table).
Several captures in one file (a report seen again) become separate runs (``run_of_row``).
"""

from __future__ import annotations

import csv
import io
import os
import re
from dataclasses import dataclass, field, replace

from ..errors import InputError
from ..notes import Listed
from ..timeline_model import SummaryRow, Timeline, TimelineSummary
from .columns import Columns, split_on_gaps
from .files import check_file, unreadable
from .nsys_gpu_trace import is_trace_header, read_gpu_trace
from .units import NSYS_BYTES, NSYS_TIME_S

FORMAT = "nsys-stats"

#: Report name (both generations) -> what its rows are.
REPORTS: dict[str, str] = {
    "cuda_api_sum": "api", "cudaapisum": "api",
    "cuda_gpu_kern_sum": "kernel", "gpukernsum": "kernel",
    "cuda_gpu_mem_time_sum": "memtime", "gpumemtimesum": "memtime",
    "cuda_gpu_mem_size_sum": "memsize", "gpumemsizesum": "memsize",
    "nvtx_sum": "nvtx", "nvtxsum": "nvtx", "nvtxppsum": "nvtx", "nvtx_pushpop_sum": "nvtx",
    "osrt_sum": "skip", "osrtsum": "skip", "cuda_gpu_trace": "skip", "gputrace": "skip", "cuda_api_trace": "skip",
    "um_sum": "skip", "um_total_sum": "skip", "openmp_sum": "skip", "cuda_kern_exec_sum": "skip",
}
#: Console titles of the 2020-2021 generations -> (what, unit when the header has none).
_TITLES: tuple[tuple[re.Pattern, str, str | None], ...] = (
    (re.compile(r"^CUDA API Statistics"), "api", "ns"),
    (re.compile(r"^CUDA Kernel Statistics"), "kernel", "ns"),
    (re.compile(r"^CUDA Memory Operation Statistics \((?:nanoseconds|by time)\)"), "memtime", "ns"),
    (re.compile(r"^CUDA Memory Operation Statistics \((?:by size in )?KiB\)"), "memsize", "KiB"),
    (re.compile(r"^CUDA Memory Operation Statistics \(by size\)"), "memsize", None),
    (re.compile(r"^Operating System Runtime API Statistics"), "skip", "ns"),
    (re.compile(r"^NVTX (?:Push-Pop )?Range Statistics"), "nvtx", "ns"),
    (re.compile(r"^CUDA Kernel & Memory Operations Trace"), "skip", None),
    (re.compile(r"^CUDA (?:GPU )?Trace"), "skip", None),
)
_EXECUTING = re.compile(r"Executing '([A-Za-z0-9_]+)' stats report")
_PROCESSING = re.compile(r"^Processing \[.*?\] with \[.*?([A-Za-z0-9_]+)\.py\]")
_STARS = re.compile(r"^\s*\*\* .*\(([A-Za-z0-9_]+)\):\s*$")
_SKIPPED = re.compile(r"^SKIPPED: .* does not contain (.*?)\.?\s*$")

_COLUMNS = {
    "time_pct": ("time(%)", "time (%)"),
    "total": ("total time", "total"),
    "count": ("calls", "num calls", "instances", "count", "operations", "num ops", "ops"),
    "mean": ("average", "avg"),
    "median": ("med", "median"),
    "min": ("minimum", "min"),
    "max": ("maximum", "max"),
    "stddev": ("stddev", "std dev"),
    "name": ("name", "operation", "range"),
    "style": ("style",),
}
_UNIT_IN_HEADER = re.compile(r"^(.*?)\s*\(([^()]*)\)\s*$")
_ELLIPSES = ("…", "...", "\ufffd")
_MEMCPY = re.compile(r"^\[CUDA (?:Unified Memory )?memcpy (.+?)\]$", re.IGNORECASE)
_COPY_DIRECTIONS = {"htod": "HtoD", "host-to-device": "HtoD", "dtoh": "DtoH", "device-to-host": "DtoH",
                    "dtod": "DtoD", "device-to-device": "DtoD", "htoh": "HtoH", "host-to-host": "HtoH",
                    "ptop": "PtoP", "peer-to-peer": "PtoP"}
_DEVICE = re.compile(r"((?:NVIDIA|Tesla|Quadro|GeForce|TITAN|A100|H100)[^()|,]*?) \((\d+)\)")

# Number-format evidence (see module docstring).
_C_EVIDENCE = re.compile(r"^-?\d{1,3}(?:,\d{3})+\.\d+$|^-?\d{1,3}(?:,\d{3}){2,}$|^-?\d+\.\d{1,2}$|^-?\d+\.\d{4,}$")
_COMMA_EVIDENCE = re.compile(r"^-?\d{1,3}(?:\.\d{3})+,\d+$|^-?\d{1,3}(?:\.\d{3}){2,}$|^-?\d+,\d{1,2}$|^-?\d+,\d{4,}$")
_AMBIGUOUS = re.compile(r"^-?\d{1,3}[.,]\d{3}$")
_NUMBER = re.compile(r"^-?[\d.,]+$")


def looks_like_nsys_stats(head: bytes) -> bool:
    """Whether the first bytes of a file look like ``nsys stats`` output (any layout)."""
    text = _decode(head)
    for line in _lines(text)[:4000]:
        s = line.strip().strip("|").strip()
        if _EXECUTING.search(line) or _STARS.match(line) or (_PROCESSING.match(line) and "reports" in line):
            return True
        if any(t.match(line.strip()) for t, _, _ in _TITLES[:3]):
            return True
        low = s.lower().replace(" ", "")
        if low.startswith(("time(%)", '"time(%)"')) and ("totaltime" in low or "total" in low) and (
                "name" in low or "operation" in low or "range" in low):
            return True
        cells = _header_cells(line)
        if _header_ok(cells) or is_trace_header(cells):  # any table header (console, CSV, table), a GPU trace
            return True
    return False


def _header_cells(line: str) -> list[str]:
    """The cells of a line read as a table header: ``|``-separated, CSV, or console (two or more spaces apart)."""
    s = line.strip()
    if s.startswith("|"):
        return [c.strip() for c in s.strip("|").split("|")]
    if "," in s:
        return _csv(s)
    return re.split(r"\s{2,}", s)


@dataclass
class _Table:
    what: str  # api / kernel / memtime / memsize / nvtx / skip / unknown
    report: str
    unit: str | None
    header: list[str]
    rows: list[tuple[int, list[str]]] = field(default_factory=list)
    name_width: int | None = None


def read_nsys_stats(path: str | os.PathLike) -> TimelineSummary | Timeline:
    """Read ``nsys stats`` console text, ``--format csv`` or ``--format table`` output: its summaries, or, when it
    holds no summary but the per-record ``cuda_gpu_trace`` report, that report's intervals as a Timeline
    (:mod:`.nsys_gpu_trace`; a file with summaries is read as before, its GPU trace skipped).

    Raises:
        InputError: unreadable file, no summary table, a capture with no CUDA data, an ambiguous or mixed number
            format (naming the line), or a malformed row.
    """
    p = check_file(path, "`nsys stats` output")
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise unreadable(str(path), exc) from None
    text = _decode(raw)
    lines = _lines(text)
    tables, skipped = _tables(lines, str(path))
    used = [t for t in tables if t.what in ("api", "kernel", "memtime", "memsize", "nvtx")]
    if not used:  # no summary: the per-record GPU trace, when the file holds one, is a timeline
        trace = _gpu_trace(lines, str(path))
        if trace is not None:
            return trace
    if tables:
        _check_has_rows(used or tables, str(path))  # headers only: "no data", never an empty success
    if not used:
        cuda_skipped = [s for s in skipped if "cuda" in s.lower() or "gpu" in s.lower()]
        if cuda_skipped or any(t.what == "skip" for t in tables):
            detail = (f"nsys stats skipped its CUDA reports (\"does not contain {cuda_skipped[0]}\")" if cuda_skipped
                      else "only OS-runtime / trace tables, no CUDA API, kernel or memory summary")
            raise InputError(str(path), key="stats_no_gpu_activity", values={"detail": detail})
        raise InputError(str(path), key="stats_no_table")
    locale = _detect_locale(used, str(path))
    problems = [f"the {t.report or 'unnamed'} table holds a header but no rows" for t in used if not t.rows]
    out, run_of_row, reports, runs = _collect(used, locale, str(path), problems)
    devices = []
    for m in _DEVICE.finditer(text):
        nm = m.group(1).strip()
        if nm not in devices:
            devices.append(nm)
    return TimelineSummary(
        path=str(path), format=FORMAT, rows=tuple(out), reports=tuple(reports), runs=runs,
        run_of_row=tuple(run_of_row) if runs > 1 else (), locale=locale, problems=tuple(problems),
        device_names=tuple(devices),
    )


def _gpu_trace(lines: list[str], path: str) -> Timeline | None:
    """The ``cuda_gpu_trace`` table of the file as a Timeline (CSV header, or console header over dashes), or None
    when the file has none."""
    def number_format(cells: list[tuple[int, str]]) -> str:
        return "comma-decimal" if _locale_of(cells, path, ambiguous_ok=True) == "comma-decimal" else "C"

    for i, line in enumerate(lines):
        s = line.strip()
        if s.startswith("|") and is_trace_header(cells := [c.strip() for c in s.strip("|").split("|")]):
            return read_gpu_trace(path, lines, i, cells, "table", _csv, number_format)
        if "," in s and is_trace_header(cells := _csv(s)):
            return read_gpu_trace(path, lines, i, cells, "csv", _csv)
        if s and i + 1 < len(lines) and _is_dashes(lines[i + 1]):
            cells = Columns.under_dashes(lines[i + 1]).cut(line)
            if is_trace_header(cells):
                return read_gpu_trace(path, lines, i, cells, "console", _csv, number_format)
    return None


def _check_has_rows(used: list[_Table], path: str) -> None:
    """Refuse a file whose summary tables hold only their headers: "no data", not an empty success."""
    if any(t.rows for t in used):
        return
    names = Listed(dict.fromkeys(t.report or "header '" + ",".join(t.header[:3]) + ",...'" for t in used))
    raise InputError(path, key="stats_no_rows", values={"names": names})


def _negative(t: _Table, row: dict) -> str | None:
    """The header of the first field of ``row`` holding a negative number (times, counts and shares cannot be
    negative), or None."""
    for canon, header in zip((_canon(c)[0] for c in t.header), t.header):
        v = row.get(canon) if canon not in (None, "name", "style") else None
        if v is not None and v < 0:
            return header.strip().strip('"')
    return None


def _collect(used: list[_Table], locale: str, path: str,
             problems: list[str]) -> tuple[list[SummaryRow], list[int], list[str], int]:
    """The summary rows of every used table (with the bytes of the size report attached to the time report's
    rows of the same operation), their run index, the report names and the number of runs. Rows holding a negative
    number are left out (stated in ``problems``); a file with nothing else is refused, naming the field."""
    rows: list[SummaryRow] = []
    run_of_row: list[int] = []
    run = 0
    seen: set[str] = set()
    sizes: dict[tuple[int, str], float | None] = {}
    reports: list[str] = []
    negative: list[tuple[int, str]] = []
    for t in used:
        if t.what in seen:
            run += 1
            seen = set()
        seen.add(t.what)
        if (t.report or t.what) not in reports:
            reports.append(t.report or t.what)
        for lineno, cells in t.rows:
            row = _row(t, cells, lineno, locale, path)
            if row is None:
                continue
            field_name = _negative(t, row)
            if field_name is not None:
                negative.append((lineno, field_name))
                continue
            if t.what == "memsize":
                # A size printed as 0 (e.g. "0.000" MB) is below the print resolution: unknown, not zero bytes.
                sizes[(run, row["name"])] = row["total"] if row.get("total") else None
                continue
            rows.append(_summary_row(t, row, lineno))
            run_of_row.append(run)
    if negative:
        (line, name), n = negative[0], len(negative)
        if not rows and not sizes:
            raise InputError(path, key="stats_all_negative", values={"line": line, "name": name})
        problems.append(f"{n} row(s) holding a negative value left out (line {line}: '{name}')")
    out = [replace(r, bytes=sizes[(k, r.name)])
           if r.kind in ("memcpy", "memset") and sizes.get((k, r.name)) is not None else r
           for r, k in zip(rows, run_of_row)]
    return out, run_of_row, reports, run + 1


# --------------------------------------------------------------------------------------------- text layer
def _decode(raw: bytes) -> str:
    try:
        return raw.decode("utf-8").lstrip("\ufeff")
    except UnicodeDecodeError:
        return raw.decode("cp1252", errors="replace")


def _lines(text: str) -> list[str]:
    """Lines split on newlines only (never on NEL / U+2028), each as a terminal shows it (text after the last CR)."""
    out = []
    for line in text.split("\n"):
        line = line.rstrip("\r")
        if "\r" in line:
            line = line.rsplit("\r", 1)[1]
        out.append(line)
    return out


def _is_dashes(line: str) -> bool:
    s = line.strip()
    return bool(s) and set(s) <= {"-", " "} and "--" in s


def _canon(header: str) -> tuple[str | None, str | None]:
    """(canonical column, unit) of one header cell."""
    h = header.strip().strip('"')
    unit = None
    m = _UNIT_IN_HEADER.match(h)
    if m and m.group(2) not in ("%",):
        h, unit = m.group(1), m.group(2)
    low = h.lower().strip()
    for canon, spellings in _COLUMNS.items():
        if low in spellings:
            return canon, unit
    return None, unit


def _header_ok(cells: list[str]) -> bool:
    canon = [_canon(c)[0] for c in cells]
    return "total" in canon and "name" in canon and ("count" in canon or "time_pct" in canon)


def _report_from(line: str) -> tuple[str, str | None] | None:
    """(report name, what) announced by a line, or None."""
    s = line.strip()
    for rx in (_EXECUTING, _STARS):
        m = rx.search(s) if rx is _EXECUTING else rx.match(line)
        if m:
            name = m.group(1)
            return name, REPORTS.get(name, "skip")
    m = _PROCESSING.match(s)
    if m:
        name = m.group(1)
        return name, REPORTS.get(name, "skip")
    for rx, what, _unit in _TITLES:
        if rx.match(s):
            return s.rstrip(":"), what
    return None


def _title_unit(report: str) -> str | None:
    for rx, _what, unit in _TITLES:
        if rx.match(report):
            return unit
    return None


def _tables(lines: list[str], path: str) -> tuple[list[_Table], list[str]]:
    tables: list[_Table] = []
    skipped: list[str] = []
    report, what = "", "unknown"
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        ann = _report_from(line)
        if ann is not None:
            report, what = ann
            i += 1
            continue
        m = _SKIPPED.match(line.strip())
        if m:
            skipped.append(m.group(1))
            report, what = "", "unknown"
            i += 1
            continue
        s = line.strip()
        # --format table: | cells |
        if s.startswith("|") and s.endswith("|"):
            cells = [c.strip() for c in s.strip("|").split("|")]
            if _header_ok(cells):
                t = _Table(what, report, _title_unit(report), cells)
                j = i + 1
                while j < n and lines[j].strip().startswith(("|", "+")):
                    ls = lines[j].strip()
                    if ls.startswith("|"):
                        t.rows.append((j + 1, [c.strip() for c in ls.strip("|").split("|", len(cells) - 1)]))
                    j += 1
                tables.append(_finish(t))
                report, what = "", "unknown"
                i = j
                continue
        # CSV
        if "," in s and not _is_dashes(s):
            cells = _csv(s)
            if len(cells) >= 4 and _header_ok(cells):
                t = _Table(what, report, _title_unit(report), cells)
                j = i + 1
                while j < n and lines[j].strip() and "," in lines[j]:
                    c = _csv(lines[j].strip())
                    if len(c) < len(cells) - 1:
                        break
                    t.rows.append((j + 1, c))
                    j += 1
                tables.append(_finish(t))
                report, what = "", "unknown"
                i = j
                continue
        # console: header + dashes
        if i + 1 < n and _is_dashes(lines[i + 1]) and s:
            # Header names are centred or right-aligned over their dashes: each runs from the end of the previous
            # dash group to the end of its own. Rows are split on whitespace, the name (last) keeping its spaces.
            columns = Columns.under_dashes(lines[i + 1])
            header = columns.cut(line)
            if _header_ok(header) or what == "skip":
                t = _Table(what, report, _title_unit(report), header)
                if not any(_canon(c)[1] for c in header):  # the unit-less 2020-2021 layout: fixed name width
                    t.name_width = columns.marks[-1][1] - columns.marks[-1][0]
                j = i + 2
                while j < n and lines[j].strip() and not _is_dashes(lines[j]):
                    t.rows.append((j + 1, split_on_gaps(lines[j], len(header))))
                    j += 1
                if _header_ok(header):
                    tables.append(_finish(t))
                report, what = "", "unknown"
                i = j
                continue
        i += 1
    return tables, skipped


def _csv(line: str) -> list[str]:
    try:
        return [c.strip() for c in next(csv.reader(io.StringIO(line)))]
    except (csv.Error, StopIteration):
        return []


def _finish(t: _Table) -> _Table:
    """Name an unnamed table from its columns and rows."""
    canon = [_canon(c)[0] for c in t.header]
    if t.what in ("unknown", "") or t.what is None:
        headers = " ".join(h.lower() for h in t.header)
        names = [cells[-1] for _, cells in t.rows if cells]
        if any(_MEMCPY.match(nm) or nm.lower().startswith("[cuda memset") for nm in names):
            t.what = "memsize" if "time_pct" not in canon and not any("time" in h.lower() for h in t.header) else "memtime"
        elif "instances" in headers and "style" not in canon:
            t.what = "kernel"
        elif "style" in canon or "range" in headers:
            t.what = "nvtx"
        elif names and sum(nm.startswith(("cuda", "cu")) for nm in names) >= max(1, len(names) // 2):
            t.what = "api"
        else:
            t.what = "skip"
    return t


# --------------------------------------------------------------------------------------------- numbers
def _numeric_cells(t: _Table) -> list[tuple[int, str]]:
    canon = [_canon(c)[0] for c in t.header]
    out = []
    for lineno, cells in t.rows:
        for c, v in zip(canon, cells):
            if c not in (None, "name", "style") and v:
                out.append((lineno, v.strip()))
    return out


def _detect_locale(tables: list[_Table], path: str) -> str:
    return _locale_of([cell for t in tables for cell in _numeric_cells(t)], path)


def _locale_of(cells: list[tuple[int, str]], path: str, ambiguous_ok: bool = False) -> str:
    """The number format of ``(line number, cell)`` pairs: ``"C"``, ``"comma-decimal"`` or ``"plain"`` (see the
    module docstring); ``ambiguous_ok``: "plain" instead of the error when only ambiguous values decide.

    Raises:
        InputError: both formats found, or (without ``ambiguous_ok``) only ambiguous values.
    """
    c_lines: list[int] = []
    comma_lines: list[int] = []
    ambiguous: list[int] = []
    for lineno, v in cells:
        v = v.strip()
        if _C_EVIDENCE.match(v):
            c_lines.append(lineno)
        elif _COMMA_EVIDENCE.match(v):
            comma_lines.append(lineno)
        elif _AMBIGUOUS.match(v):
            ambiguous.append(lineno)
    if c_lines and comma_lines:
        minority = comma_lines if len(comma_lines) < len(c_lines) else c_lines
        raise InputError(path, key="stats_number_format_mixed", values={"minority": minority[0]})
    if comma_lines:
        return "comma-decimal"
    if c_lines:
        return "C"
    if ambiguous and not ambiguous_ok:
        raise InputError(path, key="stats_number_format_ambiguous", values={"ambiguous": ambiguous[0]})
    return "plain"


def _number(v: str, locale: str) -> float:
    v = v.strip().strip('"')
    if locale == "comma-decimal":
        v = v.replace(".", "").replace(",", ".")
    else:
        v = v.replace(",", "")
    return float(v)


def _row(t: _Table, cells: list[str], lineno: int, locale: str, path: str) -> dict | None:
    canon = [_canon(c) for c in t.header]
    if len(cells) < len(canon):
        if len(cells) == len(canon) - 1 and canon[-1][0] == "name":
            cells = cells + [""]
        else:
            raise InputError(path, key="stats_bad_field_count",
                values={"lineno": lineno, "n_cells": len(cells), "n_canon": len(canon), "header": Listed(t.header)})
    out: dict = {}
    for (c, unit), v in zip(canon, cells):
        if c is None or c == "style":
            continue
        if c == "name":
            out["name"] = v.strip()
            continue
        v = v.strip()
        if v in ("", "-", "N/A"):
            out[c] = None
            continue
        try:
            if not _NUMBER.match(v.strip('"')):
                raise ValueError(v)
            x = _number(v, locale)
        except ValueError:
            raise InputError(path, key="stats_not_number",
                values={"lineno": lineno, "header": t.header[[x for x, _ in canon].index(c)], "v": v}) from None
        if c in ("total", "mean", "median", "min", "max", "stddev"):
            out[c] = x * _scale(t, unit, path, lineno)
        else:
            out[c] = x
    return out if "name" in out else None


def _scale(t: _Table, unit: str | None, path: str, lineno: int) -> float:
    """Factor to seconds (time tables) or bytes (size tables)."""
    u = unit or t.unit or ("MB" if t.what == "memsize" else "ns")
    if t.what == "memsize":
        if u in NSYS_BYTES:
            return NSYS_BYTES[u]
    elif u in NSYS_TIME_S:
        return NSYS_TIME_S[u]
    raise InputError(path, key="stats_unknown_unit", values={"lineno": lineno, "u": u, "value": t.report or t.what})


def _summary_row(t: _Table, row: dict, lineno: int) -> SummaryRow:
    name = row["name"]
    truncated = name.endswith(_ELLIPSES) or (t.name_width is not None and t.name_width >= 40
                                             and len(name) >= t.name_width)
    if t.what == "memtime":
        m = _MEMCPY.match(name)
        if m:
            kind, copy = "memcpy", _COPY_DIRECTIONS.get(m.group(1).strip().lower(), "unknown")
        else:
            kind, copy = ("memset" if "memset" in name.lower() else "memcpy"), None
    else:
        kind = {"api": "runtime_api", "kernel": "kernel", "nvtx": "annotation"}[t.what]
        copy = None
    count = row.get("count")
    return SummaryRow(
        kind=kind, name=name, count=int(count) if count is not None else None, total_s=row.get("total"),
        mean_s=row.get("mean"), min_s=row.get("min"), max_s=row.get("max"), median_s=row.get("median"),
        stddev_s=row.get("stddev"), time_pct=row.get("time_pct"), copy_kind=copy, truncated=truncated,
        report=t.report or t.what, line=lineno,
    )

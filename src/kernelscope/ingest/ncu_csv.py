"""Reader for Nsight Compute CSV exports: ``ncu --csv`` (details page, the default), ``ncu --csv --page raw`` and
``ncu --csv --print-summary per-kernel``.

Only extraction and unit conversion happen here: each profiled launch becomes one
:class:`~kernelscope.model.KernelProfile` in SI units, through the same metric-name conversion as ``.ncu-rep``
(:func:`.ncu_metrics.profile_from_metrics`; details-page labels are mapped back to metric names by
:func:`.ncu_details.profile_from_details`).

Facts about the files this reader relies on (the ncu CSV files of the shared corpus, Nsight Compute 2020.2 ..
2026.2, and the cases C08 / C09):

* What precedes the header is not CSV: the application's own stdout, ``==PROF==`` lines, free-text warnings
  (an ncu that could not deploy its section files). The header is the first row whose first field is ``ID``.
  A failed run (``==ERROR==`` lines only) has no header at all. ncu's message lines (``==PROF==``,
  ``==WARNING==``, ``==ERROR==``, ``==INFO==``: ``==`` + letters + ``==``) also appear among and after the rows
  (``==PROF== Report: /tmp/x,y.ncu-rep``, ``==WARNING== ... revert...Success.``), commas included: never CSV.
* Several exports may be concatenated into one file (``cat`` of a details page and a section export): each
  starts with its own header; rows repeating a launch already read (same ID, kernel name and process) belong
  to that launch.
* Details page: one row per (launch, section, metric); header generations seen: 14 columns (2020.x: NVTX
  columns and "Kernel Time", no block / grid / device / CC), 15 (+ "Block Size", "Grid Size", "Device", "CC"),
  20 (+ rule columns "Rule Name" .. "Estimated Speedup"), 21 (+ "Body Item Label", section exports).
  Metric rows of the 20/21-column pages stop after "Metric Value" with a trailing comma (shorter than the
  header); rule rows leave the metric columns empty and use section *identifiers* ("SpeedOfLight").
  Rows of one launch share its "ID".
* Raw page: a header of identifier columns and metric names, then a units row (empty cells under the
  identifier columns), then one row per launch.
* ``--print-summary per-kernel``: no "ID" column; "Invocations" and Minimum / Maximum / Average columns instead
  of "Metric Value", one row per (kernel, section, metric).
* Shared-memory sizes are printed in decimal Kbyte with two decimals ("24.58 Kbyte/block" for 24 KiB): the
  exact byte count is recovered (:func:`.ncu_details.exact_size_bytes`).
* "Device" is the device *index* ("0"), not a name: only a ``device__attribute_display_name`` column (raw
  page, or ``--metrics device__attribute_display_name``) names the GPU. Files carry no tool version.
* Numbers may have thousands separators (``"292,928"``); ``n/a`` means not measured. Files may start with a
  UTF-8 BOM and use CRLF line ends; PowerShell's ``>`` writes UTF-16 with a BOM. Kernel names are quoted and may hold commas, templates and
  ``(anonymous namespace)``.
"""

from __future__ import annotations

import csv
import dataclasses
import gc
import math
import os
from typing import Iterator, TextIO

from ..errors import InputError
from ..model import KernelProfile, Measurement, ProfileReport
from .files import check_file, open_text, reading
from .ncu_csv_rows import Rows, clip, note_message, row_source
from .ncu_details import MetricRow, RuleRow, profile_from_details, squashed
from .ncu_metrics import profile_from_metrics
from .ncu_printed import (
    SHARED_MEM_PREFIX,
    add_launch_identity,
    function_name,
    is_string_value,
    parse_number,
    snap_shared_mem,
)

FORMAT = "ncu-csv"

_DETAILS_REQUIRED = ("Kernel Name", "Section Name", "Metric Name", "Metric Unit", "Metric Value")


def read_ncu_csv(path: str | os.PathLike) -> ProfileReport:
    """Read every profiled launch of an ``ncu --csv`` export (details or raw page, or ``--print-summary
    per-kernel``).

    Args:
        path: the CSV file (any extension; ncu's own messages and the application's output may precede it).
            UTF-8 (with or without BOM) or UTF-16 with a BOM (what PowerShell's ``>`` writes).

    Returns:
        A :class:`ProfileReport` with ``format="ncu-csv"``, ``tool_version=None`` (CSV files do not record
        it) and one :class:`KernelProfile` per launch in file order (details rows grouped by "ID", kernel
        name and process). Exports concatenated into one file (e.g. a details page and a roofline-section
        export of the same run) that repeat a launch (same ID, kernel name and process) give one launch: the
        later rows only fill metrics the earlier ones lack, said in ``problems``. A ``--print-summary
        per-kernel`` export gives one profile per kernel with the Average column, ``launch_count`` =
        Invocations. ``device.display_name`` is None unless the file has a ``device__attribute_display_name``
        column or metric (ncu's "Device" column is an index): pass ``--gpu`` / ``--spec`` then. ncu's
        ``==WARNING==`` / ``==ERROR==`` lines anywhere in the file are skipped and named in every launch's
        ``problems``; other ``==PROF==``-style lines are skipped.

    Raises:
        InputError: the file is missing or unreadable; it holds no ncu CSV header (e.g. only ``==ERROR==``
            lines of a failed run: the message quotes the first one); a header without kernel rows; a
            malformed line (the message gives its line number); a value that is not a number or a unit
            kernelscope cannot convert (file, line, metric and value / unit named); a raw page without its
            units row; a ``--print-summary`` export that is not per kernel.
    """
    source = os.fspath(path)
    check_file(source, "an Nsight Compute CSV export")
    # A model's details page (hundreds of thousands of rows) makes as many long-lived tuples, which a collection
    # pass every few thousand allocations would walk again and again; reading makes no cycles, so the cyclic
    # collector is paused while reading (and restored as it was).
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        with reading(source), open_text(source) as fh:
            return _read(source, fh)
    finally:
        if gc_was_enabled:
            gc.enable()


def _first_field(line: str) -> str:
    try:
        row = next(csv.reader([line]))
    except (csv.Error, StopIteration):
        return ""
    return row[0].strip() if row else ""


_SUMMARY_COLUMNS = ("Metric Name", "Minimum", "Maximum", "Average")


def _is_summary_header(fields: list[str]) -> bool:
    """The header of an ``ncu --csv --print-summary`` export (Minimum / Maximum / Average columns, no "ID")."""
    names = [f.strip() for f in fields]
    return "ID" not in names and all(c in names for c in _SUMMARY_COLUMNS)


def _find_header(source: str, fh: TextIO, messages: list[str]) -> tuple[int, list[str]]:
    """(line number, fields) of the header: the first row whose first field is ``ID`` (or a ``--print-summary``
    header)."""
    first_error = first_ncu = first_text = None
    lineno = 0
    for line in fh:
        lineno += 1
        text = line.strip()
        if not text:
            continue
        if note_message(line, lineno, messages):
            if text.startswith("==ERROR==") and first_error is None:
                first_error = text
            elif first_ncu is None:
                first_ncu = text
            continue
        first = _first_field(line)
        if first == "ID" or (first and "Average" in line and _is_summary_header(_fields_or_empty(line))):
            try:
                fields = next(csv.reader([line], strict=True))
            except csv.Error as exc:
                raise InputError(source, key="csv_bad_header", values={"lineno": lineno, "exc": exc}) from None
            return lineno, [f.strip() for f in fields]
        if first_text is None:
            first_text = text
    if lineno == 0:
        raise InputError(source, key="csv_empty")
    said = first_error or first_ncu
    if said:
        why = f"ncu printed: {clip(said)}"
        if first_error is None:
            why += "; no CSV header row (first field \"ID\") follows"
    else:
        why = f"no ncu CSV header row (first field \"ID\"); the file starts with {clip(first_text or '')!r}"
    raise InputError(source, key="csv_no_data", values={"why": why})


def _fields_or_empty(line: str) -> list[str]:
    try:
        return next(csv.reader([line]))
    except (csv.Error, StopIteration):
        return []


class _Launches:
    """The launches of a file in order: details-page groups (rows of one ID, kernel and process, which a later
    export of the same run may add to) and finished raw-page / summary profiles."""

    def __init__(self) -> None:
        self.slots: list[dict | KernelProfile] = []
        self.groups: dict[tuple[str, ...], dict] = {}

    def __len__(self) -> int:
        return len(self.slots)

    def group(self, key: tuple[str, ...], header_line: int, make) -> dict:
        group = self.groups.get(key)
        if group is None:
            group = self.groups[key] = make()
            group["header_line"] = header_line
            group["merged"] = []
            group["rules_seen"] = set()
            self.slots.append(group)
        elif group["header_line"] != header_line and header_line not in group["merged"]:
            group["merged"].append(header_line)
        return group

    def add(self, profile: KernelProfile) -> None:
        self.slots.append(profile)

    def profiles(self, source: str, messages: list[str]) -> list[KernelProfile]:
        out: list[KernelProfile] = []
        for index, slot in enumerate(self.slots):
            if isinstance(slot, KernelProfile):
                profile = slot
            else:
                problems = list(slot.get("problems", ()))
                for line in slot["merged"]:
                    problems.append(
                        f"launch ID {slot['id']} of the export on line {slot['header_line']} is repeated by the export "
                        f"on line {line} (exports concatenated): merged into one launch, whose later rows only fill "
                        "metrics the earlier ones lack"
                    )
                extra: dict = {"problems": problems}
                if slot.get("launch_count"):
                    extra["launch_count"] = slot["launch_count"]
                profile = profile_from_details(
                    index, slot["name"], slot["rows"], source, device_name=slot["device"], cc=slot["cc"],
                    grid=slot["grid"], block=slot["block"], extra=extra,
                )
            if messages:
                profile = dataclasses.replace(profile, problems=profile.problems + tuple(messages))
            out.append(profile)
        return out


def _read(source: str, fh: TextIO) -> ProfileReport:
    messages: list[str] = []
    header_line, header = _find_header(source, fh, messages)
    launches = _Launches()
    rows = row_source(source, fh, header_line, messages)
    while True:
        if _is_summary_header(header):
            nxt = _read_summary(source, header, header_line, rows, launches)
        elif all(c in header for c in _DETAILS_REQUIRED):
            nxt = _read_details(source, header, header_line, rows, launches)
        elif "Kernel Name" in header or any("__" in c for c in header):
            nxt = _read_raw(source, header, header_line, rows, launches)
        else:
            raise InputError(
                source,
                key="csv_not_ncu_header", values={"header_line": header_line, "header": clip(', '.join(header))},
            )
        if nxt is None:
            break
        header_line, header = nxt  # a second header (concatenated exports): read on with its columns
    if not len(launches):
        raise InputError(
            source, key="csv_no_kernels", values={"header_line": header_line}
        )
    return ProfileReport(path=source, format=FORMAT, kernels=tuple(launches.profiles(source, messages)),
                         tool_version=None, measurement=Measurement(tool="ncu"))


def _is_header(fields: list[str]) -> bool:
    return bool(fields) and (fields[0].strip() == "ID" or _is_summary_header(fields))


def _check_id(source: str, line: int, text: str, what: str) -> str:
    t = text.strip()
    if not t.isdigit():
        raise InputError(source, key="csv_bad_id", values={"line": line, "what": what, "t": clip(t, 40)})
    return t


def _device_name(text: str) -> str | None:
    """The "Device" column: a GPU name only when it is not a device index."""
    t = text.strip()
    return None if not t or t.isdigit() else t


# ---------------------------------------------------------------------------------------------------------
# Details page.


def _read_details(
    source: str,
    header: list[str],
    header_line: int,
    rows: "Rows",
    launches: _Launches,
) -> tuple[int, list[str]] | None:
    """Read details-page rows into ``launches`` until the end or the next header ((line, fields) of that header)."""
    page = _Details(source, header, header_line, launches)
    if page.i_id == 0:
        return page.read(rows)
    for line, fields in rows:
        nxt = page.row(line, fields)
        if nxt is not None:
            return nxt
    return None


class _Details:
    """The columns of one details-page header and the launch being read; :meth:`row` reads any row,
    :meth:`read` the common ones (a metric row of the launch of the row before) without the checks they pass."""

    def __init__(self, source: str, header: list[str], header_line: int, launches: _Launches) -> None:
        col = {name: i for i, name in reversed(list(enumerate(header)))}
        self.source, self.header_line, self.launches, self.width = source, header_line, launches, len(header)
        self.i_id, self.i_kernel = col["ID"], col["Kernel Name"]
        self.i_sec, self.i_name, self.i_unit, self.i_value = (
            col[c] for c in ("Section Name", "Metric Name", "Metric Unit", "Metric Value"))
        self.i_rule = col.get("Rule Name")
        self.i_rtype, self.i_rdesc = col.get("Rule Type"), col.get("Rule Description")
        self.i_stype, self.i_speed = col.get("Estimated Speedup Type"), col.get("Estimated Speedup")
        self.i_label = col.get("Body Item Label")
        self.i_pid = col.get("Process ID")
        self.i_dev, self.i_cc, self.i_grid, self.i_block = (
            col.get("Device"), col.get("CC"), col.get("Grid Size"), col.get("Block Size"))
        self.metric_width = max(self.i_id, self.i_kernel, self.i_sec, self.i_name, self.i_unit, self.i_value) + 1
        # the columns up to the metric's and the launch's identity (most rows: one bounds check for all of them)
        self.plain = max(self.metric_width, *(i + 1 for i in (self.i_pid, self.i_label) if i is not None))
        self.last_key: tuple[str, str, str] | None = None
        self.group: dict = {}

    def read(self, rows: Rows) -> tuple[int, list[str]] | None:
        """All rows of ``rows`` (a :class:`Rows`: line numbers from its reader's count; "ID" is the first column).
        A row in the launch, with the shape and the cells :meth:`row` takes without a word, is added here; any
        other goes through :meth:`row`."""
        reader, base, dropped = rows.reader, rows.base, rows.dropped
        i_kernel, i_sec, i_name, i_unit, i_value, i_label = (
            self.i_kernel, self.i_sec, self.i_name, self.i_unit, self.i_value, self.i_label)
        i_pid = self.i_kernel if self.i_pid is None else self.i_pid  # (no Process ID: the name compared twice)
        i_rule = self.width if self.i_rule is None else self.i_rule
        plain, width = self.plain, self.width
        cur_id = cur_name = cur_pid = None
        append = None
        done = reader.line_num
        try:
            for fields in reader:
                line = base + done + 1 if not dropped else rows.line(done + 1)
                done = reader.line_num
                n = len(fields)
                if (plain <= n <= width and fields[0] == cur_id and fields[i_kernel] == cur_name
                        and fields[i_pid] == cur_pid):
                    if i_rule >= n or not fields[i_rule]:
                        append((fields[i_sec], fields[i_name], fields[i_unit], fields[i_value], line,
                                "" if i_label is None else fields[i_label]))
                        continue
                    if fields[i_rule].strip() and not fields[i_name].strip():  # (a rule result of the launch)
                        self.rule(line, fields)
                        continue
                if not fields or (not fields[0].strip() and all(not f.strip() for f in fields)):
                    continue  # (a blank row)
                nxt = self.row(line, fields)
                if nxt is not None:
                    return nxt
                if n >= plain and fields[0].isdigit():  # (the launch's key, as the row is: the next rows compare)
                    cur_id, cur_name, cur_pid, append = fields[0], fields[i_kernel], fields[i_pid], \
                        self.group["rows"].append
                else:
                    cur_id = None
        except csv.Error as exc:
            raise rows.bad_line(rows.line(done + 1), exc) from None
        return None

    def cell(self, fields: list[str], i: int | None) -> str:
        """The cell of column ``i`` ("" when the column is absent or the row shorter)."""
        return fields[i] if i is not None and i < len(fields) else ""

    def row(self, line: int, fields: list[str]) -> tuple[int, list[str]] | None:
        """Read one row (checked); a header gives (line, fields) of that header."""
        cell, source, header_line = self.cell, self.source, self.header_line
        n = len(fields)
        kid = fields[0].strip()
        if not kid.isdigit() and _is_header(fields):  # (a launch ID is never a header)
            return line, [f.strip() for f in fields]
        if n > self.width and any(f.strip() for f in fields[self.width:]):
            raise InputError(source, key="csv_bad_details_row",
                             values={"line": line, "n_fields": n, "header_line": header_line, "n_header": self.width})
        i_rule, i_name = self.i_rule, self.i_name
        is_rule = i_rule is not None and i_rule < n and fields[i_rule].strip() != "" and not cell(
            fields, i_name).strip()
        if not is_rule and n < self.metric_width:
            raise InputError(source, key="csv_short_metric_row", values={"line": line, "n_fields": n,
                                                                         "metric_width": self.metric_width,
                                                                         "header_line": header_line})
        if self.i_id or not kid.isdigit():
            kid = _check_id(source, line, fields[self.i_id], "details")
        i_pid = self.i_pid
        if n >= self.plain:
            name = fields[self.i_kernel]
            key = (kid, name, "" if i_pid is None else fields[i_pid].strip())
        else:
            name = cell(fields, self.i_kernel)
            key = (kid, name, cell(fields, i_pid).strip())
        if key != self.last_key:  # (the rows of one launch come together: one lookup per launch, not per row)
            self.last_key, self.group = key, self.launches.group(
                key, header_line,
                lambda: {
                    "id": kid, "name": name, "rows": [], "device": _device_name(cell(fields, self.i_dev)),
                    "cc": cell(fields, self.i_cc) or None, "grid": cell(fields, self.i_grid) or None,
                    "block": cell(fields, self.i_block) or None,
                },
            )
        if is_rule:
            self.rule(line, fields)
        else:
            self.group["rows"].append((fields[self.i_sec], fields[i_name], fields[self.i_unit], fields[self.i_value],
                                       line, "" if self.i_label is None else cell(fields, self.i_label)))
        return None

    def rule(self, line: int, fields: list[str]) -> None:
        """Add a rule-result row of the launch being read (a concatenated export's repeat of one is left out)."""
        cell, group = self.cell, self.group
        rule = RuleRow(
            section=cell(fields, self.i_sec), rule=cell(fields, self.i_rule), type=cell(fields, self.i_rtype),
            description=cell(fields, self.i_rdesc), speedup=cell(fields, self.i_speed),
            speedup_type=cell(fields, self.i_stype), line=line,
        )
        seen = (rule.rule.strip(), squashed(rule.description))
        if seen not in group["rules_seen"]:  # a concatenated export repeats its launch's rule results
            group["rules_seen"].add(seen)
            group["rows"].append(rule)


# ---------------------------------------------------------------------------------------------------------
# --print-summary per-kernel: one row per (kernel, section, metric), Minimum / Maximum / Average columns.


def _read_summary(
    source: str,
    header: list[str],
    header_line: int,
    rows: Iterator[tuple[int, list[str]]],
    launches: _Launches,
) -> tuple[int, list[str]] | None:
    col = {name: i for i, name in reversed(list(enumerate(header)))}
    if "Kernel Name" not in col or "Section Name" not in col:
        raise InputError(
            source,
            key="csv_summary_not_per_kernel", values={"header_line": header_line},
        )
    i_kernel, i_sec, i_name, i_unit, i_avg = (
        col[c] for c in ("Kernel Name", "Section Name", "Metric Name", "Metric Unit", "Average"))
    i_inv = col.get("Invocations")
    i_dev, i_cc, i_grid, i_block = col.get("Device"), col.get("CC"), col.get("Grid Size"), col.get("Block Size")
    ident = [i for i in range(len(header)) if i < i_sec and i != i_inv]
    width = max(i_kernel, i_sec, i_name, i_unit, i_avg) + 1

    def cell(fields: list[str], i: int | None) -> str:
        return fields[i].strip() if i is not None and i < len(fields) else ""

    for line, fields in rows:
        if _is_header(fields):
            return line, [f.strip() for f in fields]
        if len(fields) < width or (len(fields) > len(header) and any(f.strip() for f in fields[len(header):])):
            raise InputError(source, key="csv_bad_summary_row",
                values={"line": line, "n_fields": len(fields), "header_line": header_line, "n_header": len(header)})
        invocations = cell(fields, i_inv).replace(",", "")
        if invocations and not invocations.isdigit():
            raise InputError(source, key="csv_bad_invocations", values={"line": line, "invocations": invocations})
        count = int(invocations) if invocations else None
        group = launches.group(
            ("summary", str(header_line), *(cell(fields, i) for i in ident)), header_line,
            lambda: {
                "id": "-", "name": cell(fields, i_kernel), "rows": [], "device": _device_name(cell(fields, i_dev)),
                "cc": cell(fields, i_cc) or None, "grid": cell(fields, i_grid) or None,
                "block": cell(fields, i_block) or None, "launch_count": count,
                "problems": [f"values are averages over {count if count else 'several'} invocations "
                             "(ncu --print-summary), not one launch"],
            },
        )
        group["rows"].append(MetricRow(section=fields[i_sec], name=fields[i_name], unit=fields[i_unit],
                                       value=fields[i_avg], line=line))
    return None


# ---------------------------------------------------------------------------------------------------------
# Raw page.


def _read_raw(
    source: str,
    header: list[str],
    header_line: int,
    rows: Iterator[tuple[int, list[str]]],
    launches: _Launches,
) -> tuple[int, list[str]] | None:
    col = {name: i for i, name in reversed(list(enumerate(header)))}
    i_id = col["ID"]
    i_kernel = next((col[c] for c in ("Kernel Name", "Function Name", "Name") if c in col), None)
    metric_cols = [(i, name) for i, name in enumerate(header) if "__" in name]
    units: list[str] = [""] * len(header)
    units_line: int | None = None
    first = True
    for line, fields in rows:
        if _is_header(fields):
            return line, [f.strip() for f in fields]
        if len(fields) > len(header) and any(f.strip() for f in fields[len(header):]):
            raise InputError(source, key="csv_bad_raw_row",
                values={"line": line, "n_fields": len(fields), "header_line": header_line, "n_header": len(header)})
        if first and not fields[i_id].strip():
            # The units row: a unit per metric column, empty cells under ID, Kernel Name, ... ("" = no unit).
            units = [f.strip() for f in fields] + [""] * (len(header) - len(fields))
            units_line = line
            first = False
            continue
        if first and metric_cols:
            raise InputError(
                source,
                key="csv_no_units_row", values={"line": line, "header_line": header_line},
            )
        first = False
        if len(fields) < len(header):
            raise InputError(source, key="csv_cut_raw_row",
                values={"line": line, "n_fields": len(fields), "header_line": header_line, "n_header": len(header)})
        _check_id(source, line, fields[i_id], "raw-page")
        launches.add(_raw_kernel(source, len(launches), line, header, units, units_line, metric_cols, i_kernel, fields))
    return None


def _raw_kernel(
    source: str,
    index: int,
    line: int,
    header: list[str],
    units: list[str],
    units_line: int | None,
    metric_cols: list[tuple[int, str]],
    i_kernel: int | None,
    fields: list[str],
) -> KernelProfile:
    col = {name: i for i, name in enumerate(header)}
    demangled = (fields[i_kernel].strip() if i_kernel is not None else "") or f"kernel_{index}"
    name = function_name(demangled) or demangled
    values: dict[str, float] = {}
    unit_of: dict[str, str] = {}
    strings: dict[str, str] = {}
    locations: dict[str, str] = {}
    nonfinite: list[str] = []
    printed: dict[str, tuple[str, str]] = {}
    where = f"line {line}" if units_line is None else f"line {line} (unit from the units row, line {units_line})"
    for i, metric in metric_cols:
        text = fields[i]
        try:
            value = parse_number(text)
        except ValueError as exc:
            if not is_string_value(metric, units[i], text):
                unit = f", unit {units[i]!r}" if units[i] else ""
                raise InputError(source, key="csv_bad_raw_value", values={"line": line, "index": index, "name": name,
                                                                          "metric": metric, "unit": unit,
                                                                          "exc": exc}) from None
            strings[metric] = text.strip()
            continue
        if value is None or metric in values:
            continue
        if not math.isfinite(value):
            nonfinite.append(metric)
            continue
        values[metric] = value
        unit_of[metric] = units[i]
        locations[metric] = where
        if metric.startswith(SHARED_MEM_PREFIX):
            printed[metric] = (text, units[i])

    def ident(column: str) -> str:
        i = col.get(column)
        return fields[i].strip() if i is not None and i < len(fields) else ""

    # The identifier columns, as the metrics a report stores (when the page lacks those metrics).
    add_launch_identity(values, unit_of, strings, _device_name(ident("Device")), ident("CC") or None,
              ident("Grid Size") or None, ident("Block Size") or None)
    snap_shared_mem(values, unit_of, printed)
    problems = []
    if nonfinite:
        problems.append(f"{len(nonfinite)} metric values are NaN or infinite (not measured, e.g. "
                        f"{', '.join(sorted(nonfinite)[:3])})")
    return profile_from_metrics(
        index, name, demangled, demangled if demangled.startswith("_Z") else None, values, unit_of, (), source,
        problems, strings=strings, locations=locations, partial_flops=True,
    )

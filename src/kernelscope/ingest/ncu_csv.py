"""Reader for Nsight Compute CSV exports: ``ncu --csv`` (details page, the default) and ``ncu --csv --page raw``.

Only extraction and unit conversion happen here: each profiled launch becomes one
:class:`~kernelscope.model.KernelProfile` in SI units, through the same metric-name conversion as ``.ncu-rep``
(:func:`.ncu_metrics.profile_from_metrics`; details-page labels are mapped back to metric names by
:func:`.ncu_details.profile_from_details`).

Facts about the files this reader relies on (the ncu CSV files of the shared corpus, Nsight Compute 2020.2 ..
2026.2, and the cases C08 / C09):

* What precedes the header is not CSV: the application's own stdout, ``==PROF==`` lines, free-text warnings
  (an ncu that could not deploy its section files). The header is the first row whose first field is ``ID``.
  A failed run (``==ERROR==`` lines only) has no header at all.
* Details page: one row per (launch, section, metric); header generations seen: 14 columns (2020.x: NVTX
  columns and "Kernel Time", no block / grid / device / CC), 15 (+ "Block Size", "Grid Size", "Device", "CC"),
  20 (+ rule columns "Rule Name" .. "Estimated Speedup"), 21 (+ "Body Item Label", section exports).
  Metric rows of the 20/21-column pages stop after "Metric Value" with a trailing comma (shorter than the
  header); rule rows leave the metric columns empty and use section *identifiers* ("SpeedOfLight").
  Rows of one launch share its "ID".
* Raw page: a header of identifier columns and metric names, then a units row (empty cells under the
  identifier columns), then one row per launch.
* "Device" is the device *index* ("0"), not a name: only a ``device__attribute_display_name`` column (raw
  page, or ``--metrics device__attribute_display_name``) names the GPU. Files carry no tool version.
* Numbers may have thousands separators (``"292,928"``); ``n/a`` means not measured. Files may start with a
  UTF-8 BOM and use CRLF line ends. Kernel names are quoted and may hold commas, templates and
  ``(anonymous namespace)``.
"""

from __future__ import annotations

import csv
import math
import os
from typing import Iterator, TextIO

from kernelscope.errors import InputError
from kernelscope.model import KernelProfile, ProfileReport

from .ncu_details import MetricRow, RuleRow, add_launch_identity, function_name, parse_number, profile_from_details
from .ncu_metrics import profile_from_metrics

FORMAT = "ncu-csv"

#: Prefixes of the lines ncu itself prints around its output (never CSV).
NCU_MESSAGE_PREFIXES = ("==PROF==", "==ERROR==", "==WARNING==", "==WARN==", "==INFO==")

_DETAILS_REQUIRED = ("Kernel Name", "Section Name", "Metric Name", "Metric Unit", "Metric Value")


def read_ncu_csv(path: str | os.PathLike) -> ProfileReport:
    """Read every profiled launch of an ``ncu --csv`` export (details or raw page).

    Args:
        path: the CSV file (any extension; ncu's own messages and the application's output may precede it).

    Returns:
        A :class:`ProfileReport` with ``format="ncu-csv"``, ``tool_version=None`` (CSV files do not record
        it) and one :class:`KernelProfile` per launch in file order (details rows grouped by "ID" and kernel
        name). ``device.display_name`` is None unless the file has a ``device__attribute_display_name``
        column or metric (ncu's "Device" column is an index): pass ``--gpu`` / ``--spec`` then.

    Raises:
        InputError: the file is missing or unreadable; it holds no ncu CSV header (e.g. only ``==ERROR==``
            lines of a failed run: the message quotes the first one); a header without kernel rows; a
            malformed line (the message gives its line number); a unit kernelscope cannot convert (file,
            line, metric and unit named).
    """
    source = os.fspath(path)
    if not os.path.exists(source):
        raise InputError(source, "file not found")
    if os.path.isdir(source):
        raise InputError(source, "is a directory, not an Nsight Compute CSV export")
    try:
        with open(source, encoding="utf-8-sig", errors="replace", newline="") as fh:
            return _read(source, fh)
    except OSError as exc:
        raise InputError(source, f"cannot read the file ({exc.strerror or exc})") from None


class _Lines:
    """Iterator over a file's lines that counts them (for line numbers of multi-line-aware csv parsing)."""

    def __init__(self, fh: TextIO, done: int) -> None:
        self._fh = fh
        self.n = done

    def __iter__(self) -> "_Lines":
        return self

    def __next__(self) -> str:
        line = next(self._fh)
        self.n += 1
        return line


def _first_field(line: str) -> str:
    try:
        row = next(csv.reader([line]))
    except (csv.Error, StopIteration):
        return ""
    return row[0].strip() if row else ""


def _find_header(source: str, fh: TextIO) -> tuple[int, list[str]]:
    """(line number, fields) of the header: the first row whose first field is ``ID``."""
    first_error = first_ncu = first_text = None
    lineno = 0
    for line in fh:
        lineno += 1
        text = line.strip()
        if not text:
            continue
        if text.startswith(NCU_MESSAGE_PREFIXES):
            if text.startswith("==ERROR==") and first_error is None:
                first_error = text
            elif first_ncu is None:
                first_ncu = text
            continue
        if _first_field(line) == "ID":
            try:
                fields = next(csv.reader([line], strict=True))
            except csv.Error as exc:
                raise InputError(source, f"line {lineno}: malformed ncu CSV header ({exc})") from None
            return lineno, [f.strip() for f in fields]
        if first_text is None:
            first_text = text
    if lineno == 0:
        raise InputError(source, "holds no profiler data (the file is empty)")
    said = first_error or first_ncu
    if said:
        why = f"ncu printed: {_clip(said)}"
        if first_error is None:
            why += "; no CSV header row (first field \"ID\") follows"
    else:
        why = f"no ncu CSV header row (first field \"ID\"); the file starts with {_clip(first_text or '')!r}"
    raise InputError(source, f"holds no profiler data ({why})")


def _clip(text: str, n: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 3] + "..."


def _rows(source: str, fh: TextIO, header_line: int) -> Iterator[tuple[int, list[str]]]:
    """(line number, fields) of every CSV row after the header; ncu message lines and blank lines skipped."""
    lines = _Lines(fh, header_line)
    reader = csv.reader(lines, strict=True)
    while True:
        start = lines.n + 1
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise InputError(source, f"line {start}: malformed CSV line ({exc})") from None
        if not fields or all(not f.strip() for f in fields):
            continue
        if len(fields) == 1 and fields[0].lstrip().startswith(NCU_MESSAGE_PREFIXES):
            continue
        yield start, fields


def _read(source: str, fh: TextIO) -> ProfileReport:
    header_line, header = _find_header(source, fh)
    kernels: list[KernelProfile] = []
    rows = _rows(source, fh, header_line)
    while True:
        if all(c in header for c in _DETAILS_REQUIRED):
            nxt = _read_details(source, header, header_line, rows, len(kernels), kernels)
        elif "Kernel Name" in header or any("__" in c for c in header):
            nxt = _read_raw(source, header, header_line, rows, len(kernels), kernels)
        else:
            raise InputError(
                source,
                f"line {header_line}: not an ncu CSV header (expected \"Metric Name\" / \"Metric Value\" columns of "
                f"the details page, or metric-name columns of the raw page; got {_clip(', '.join(header))!r})",
            )
        if nxt is None:
            break
        header_line, header = nxt  # a second header (concatenated exports): read on with its columns
    if not kernels:
        raise InputError(
            source, f"holds no profiled kernels (the ncu CSV header on line {header_line} is followed by no kernel rows)"
        )
    return ProfileReport(path=source, format=FORMAT, kernels=tuple(kernels), tool_version=None)


def _is_header(fields: list[str]) -> bool:
    return bool(fields) and fields[0].strip() == "ID"


def _check_id(source: str, line: int, text: str, what: str) -> str:
    t = text.strip()
    if not t.isdigit():
        raise InputError(source, f"line {line}: malformed {what} row (ID {_clip(t, 40)!r} is not a number)")
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
    rows: Iterator[tuple[int, list[str]]],
    first_index: int,
    out: list[KernelProfile],
) -> tuple[int, list[str]] | None:
    col = {name: i for i, name in reversed(list(enumerate(header)))}
    i_id, i_kernel = col["ID"], col["Kernel Name"]
    i_sec, i_name, i_unit, i_value = (col[c] for c in ("Section Name", "Metric Name", "Metric Unit", "Metric Value"))
    i_rule = col.get("Rule Name")
    i_rtype, i_rdesc = col.get("Rule Type"), col.get("Rule Description")
    i_stype, i_speed = col.get("Estimated Speedup Type"), col.get("Estimated Speedup")
    i_label = col.get("Body Item Label")
    i_dev, i_cc, i_grid, i_block = col.get("Device"), col.get("CC"), col.get("Grid Size"), col.get("Block Size")
    metric_width = max(i_id, i_kernel, i_sec, i_name, i_unit, i_value) + 1

    def cell(fields: list[str], i: int | None) -> str:
        return fields[i] if i is not None and i < len(fields) else ""

    groups: dict[tuple[str, str], dict] = {}
    next_header: tuple[int, list[str]] | None = None
    for line, fields in rows:
        if _is_header(fields):
            next_header = (line, [f.strip() for f in fields])
            break
        if len(fields) > len(header) and any(f.strip() for f in fields[len(header):]):
            raise InputError(source, f"line {line}: malformed details row ({len(fields)} fields, the header on line "
                                     f"{header_line} has {len(header)})")
        is_rule = i_rule is not None and cell(fields, i_rule).strip() != "" and not cell(fields, i_name).strip()
        if not is_rule and len(fields) < metric_width:
            raise InputError(source, f"line {line}: malformed details row ({len(fields)} fields; a metric row needs "
                                     f"{metric_width}, up to \"Metric Value\", as the header on line {header_line})")
        kid = _check_id(source, line, fields[i_id], "details")
        name = cell(fields, i_kernel)
        group = groups.get((kid, name))
        if group is None:
            group = groups[(kid, name)] = {
                "name": name, "rows": [], "device": _device_name(cell(fields, i_dev)),
                "cc": cell(fields, i_cc) or None, "grid": cell(fields, i_grid) or None,
                "block": cell(fields, i_block) or None,
            }
        if is_rule:
            group["rows"].append(RuleRow(
                section=cell(fields, i_sec), rule=cell(fields, i_rule), type=cell(fields, i_rtype),
                description=cell(fields, i_rdesc), speedup=cell(fields, i_speed),
                speedup_type=cell(fields, i_stype), line=line,
            ))
        else:
            group["rows"].append(MetricRow(
                section=fields[i_sec], name=fields[i_name], unit=fields[i_unit], value=fields[i_value],
                line=line, label=cell(fields, i_label),
            ))
    for offset, g in enumerate(groups.values()):
        out.append(profile_from_details(
            first_index + offset, g["name"], g["rows"], source,
            device_name=g["device"], cc=g["cc"], grid=g["grid"], block=g["block"],
        ))
    return next_header


# ---------------------------------------------------------------------------------------------------------
# Raw page.


def _read_raw(
    source: str,
    header: list[str],
    header_line: int,
    rows: Iterator[tuple[int, list[str]]],
    first_index: int,
    out: list[KernelProfile],
) -> tuple[int, list[str]] | None:
    col = {name: i for i, name in reversed(list(enumerate(header)))}
    i_id = col["ID"]
    i_kernel = next((col[c] for c in ("Kernel Name", "Function Name", "Name") if c in col), None)
    metric_cols = [(i, name) for i, name in enumerate(header) if "__" in name]
    units: list[str] = [""] * len(header)
    units_line: int | None = None
    index = first_index
    first = True
    for line, fields in rows:
        if _is_header(fields):
            return line, [f.strip() for f in fields]
        if len(fields) > len(header) and any(f.strip() for f in fields[len(header):]):
            raise InputError(source, f"line {line}: malformed raw-page row ({len(fields)} fields, the header on line "
                                     f"{header_line} has {len(header)})")
        if first and not fields[i_id].strip():
            # The units row: a unit per metric column, empty cells under ID, Kernel Name, ... ("" = no unit).
            units = [f.strip() for f in fields] + [""] * (len(header) - len(fields))
            units_line = line
            first = False
            continue
        first = False
        if len(fields) < len(header):
            raise InputError(source, f"line {line}: malformed raw-page row ({len(fields)} fields, the header on line "
                                     f"{header_line} has {len(header)}; a cut line?)")
        _check_id(source, line, fields[i_id], "raw-page")
        out.append(_raw_kernel(source, index, line, header, units, units_line, metric_cols, i_kernel, fields))
        index += 1
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
    where = f"line {line}" if units_line is None else f"line {line} (unit from the units row, line {units_line})"
    for i, metric in metric_cols:
        text = fields[i]
        try:
            value = parse_number(text)
        except ValueError:
            if text.strip():
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

    def ident(column: str) -> str:
        i = col.get(column)
        return fields[i].strip() if i is not None and i < len(fields) else ""

    # The identifier columns, as the metrics a report stores (when the page lacks those metrics).
    add_launch_identity(values, unit_of, strings, _device_name(ident("Device")), ident("CC") or None,
              ident("Grid Size") or None, ident("Block Size") or None)
    problems = []
    if nonfinite:
        problems.append(f"{len(nonfinite)} metric values are NaN or infinite (not measured, e.g. "
                        f"{', '.join(sorted(nonfinite)[:3])})")
    return profile_from_metrics(
        index, name, demangled, demangled if demangled.startswith("_Z") else None, values, unit_of, (), source,
        problems, strings=strings, locations=locations, partial_flops=True,
    )

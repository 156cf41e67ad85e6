"""Nsight Compute "details page" rows -> :class:`~kernelscope.model.KernelProfile`.

The details page (``ncu --csv --page details``, and the console output of ``ncu``) names each value by its
section and display label ("GPU Speed Of Light Throughput" / "Duration") with a unit as printed ("usecond",
"Gbyte/second"), and prints numbers with thousands separators ("292,928"). This module maps those rows back
to Nsight metric names (table ``data/ncu_details.toml``), converts every mapped value to SI with a unit check,
and hands the result to :func:`kernelscope.ingest.ncu_metrics.profile_from_metrics`, the same conversion the
``.ncu-rep`` reader uses, so every analysis works unchanged.

Rows of the "Command line profiler metrics" section (``ncu --metrics ...``) carry metric names as labels and
are taken as such, in their own units; a value there that is not a number (``"23,42"``) raises InputError as
in a mapped row, unless it is a string-valued metric (:func:`is_string_value`). Shared-memory sizes printed in
decimal Kbyte become their exact byte counts (:func:`exact_size_bytes`). Rows whose label kernelscope does not map are kept out (they feed no
field); a mapped row with a unit its quantity does not take raises :class:`~kernelscope.errors.InputError`
naming the file, the line, the metric and the unit.

Used by the CSV reader (:mod:`.ncu_csv`) and the console-text reader (:mod:`.ncu_text`).
"""

from __future__ import annotations

import dataclasses
import math
import re
from decimal import Decimal
from functools import cache
from typing import Any, Iterable, Mapping, NamedTuple, Sequence, Union

from pydantic import field_validator

from ..errors import InputError
from ..knowledge import Model, load
from ..knowledge.occupancy import arch_limits
from ..model import KernelProfile, RuleResult
from .ncu_metrics import BYTES, CYCLES, FREQ_HZ, TIME_S, profile_from_metrics
from .nsight_rules import message_type, sol_verdict


class MetricRow(NamedTuple):
    """One metric row of the details page.

    Attributes:
        section: section display name ("GPU Speed Of Light Throughput") or identifier ("SpeedOfLight").
        name: metric display label ("Duration"), or a metric name ("gpu__time_duration.sum") for rows of
            "Command line profiler metrics".
        unit: unit as printed ("usecond", "Gbyte/second", "" for none).
        value: value as printed ("20.23", "1,658.42", "n/a").
        line: 1-based line of the input it was read from (named by errors), or None.
        label: the "Body Item Label" column of roofline exports (which chart the row belongs to), or "".
    """

    section: str
    name: str
    unit: str
    value: str
    line: int | None = None
    label: str = ""


class RuleRow(NamedTuple):
    """One rule-result row of the details page.

    Attributes:
        section: section identifier or display name the rule belongs to (informational).
        rule: rule name / identifier ("SOLBottleneck").
        type: message type as printed ("OPT", "WRN", "INF", "ERR", "OPTIMIZATION" ...).
        description: the rule's text.
        speedup: "Estimated Speedup" as printed ("38.17", "" when none).
        speedup_type: "Estimated Speedup Type" ("local" / "global" / "").
        line: 1-based input line, or None.
    """

    section: str
    rule: str
    type: str
    description: str
    speedup: str = ""
    speedup_type: str = ""
    line: int | None = None


#: What :func:`profile_from_details` takes: metric rows (a plain 4-tuple (section, name, unit, value) is a
#: metric row) and rule rows.
Row = Union[MetricRow, RuleRow, tuple]

# ---------------------------------------------------------------------------------------------------------
# Quantities (the "kind" of data/ncu_details.toml): accepted units -> (factor to SI, SI unit stored).

_PER_TIME = TIME_S
_COUNT_UNITS = {"", "inst", "instruction", "instructions", "warp", "block", "thread", "register/thread",
                "register", "SM", "cluster", "sector", "request", "cycle", "pass"}
_EXPECTED = {
    "time": "a time unit such as ns, nsecond, us, usecond, msecond, second",
    "bytes": "a byte unit such as byte, Kbyte, Mbyte, Gbyte",
    "bytes_per_block": "a byte unit per block such as byte/block, Kbyte/block",
    "bytes_per_second": "a bandwidth unit such as byte/second, Mbyte/second, Gbyte/s",
    "bytes_per_cycle": "a byte unit per cycle such as byte/cycle",
    "frequency": "a frequency unit such as hz, Mhz, Ghz, cycle/nsecond, cycle/usecond",
    "percent": "%",
    "cycles": "cycle",
    "count": "a count unit such as inst, warp, block, thread, register/thread, or none",
    "per_cycle": "inst/cycle",
    "stall": "cycles per instruction (unit inst, cycle or none)",
    "ratio": "no unit",
}
#: Quantity kinds of ``data/ncu_details.toml``.
KINDS: tuple[str, ...] = tuple(_EXPECTED)


def bytes_per_second_factor(unit: str) -> float | None:
    """Factor of a bandwidth unit to bytes/s ("Gbyte/second" -> 1e9, "Mbyte/s" -> 1e6); None if not one."""
    num, sep, den = unit.strip().partition("/")
    if not sep:
        return None
    size, per = BYTES.get(num), _PER_TIME.get(den)
    return None if size is None or per is None else size / per


def convert(kind: str, unit: str) -> tuple[float, str] | None:
    """``(factor to SI, SI unit)`` for a value of quantity ``kind`` printed with ``unit``; None when the unit
    does not fit the quantity (never a guessed scale)."""
    unit = unit.strip()
    if kind == "time":
        f = TIME_S.get(unit)
        return None if f is None else (f, "second")
    if kind == "bytes":
        f = BYTES.get(unit)
        return None if f is None else (f, "byte")
    if kind == "bytes_per_block":
        base, sep, per = unit.partition("/")
        f = BYTES.get(base)
        return None if f is None or (sep and per != "block") else (f, "byte/block")
    if kind == "bytes_per_second":
        f = bytes_per_second_factor(unit)
        return None if f is None else (f, "byte/second")
    if kind == "bytes_per_cycle":
        base, sep, per = unit.partition("/")
        f = BYTES.get(base)
        return None if f is None or per != "cycle" else (f, "byte/cycle")
    if kind == "frequency":
        f = FREQ_HZ.get(unit.lower())
        return None if f is None else (f, "hz")
    if kind == "percent":
        return (1.0, "%") if unit == "%" else None
    if kind == "cycles":
        return (1.0, "cycle") if unit in CYCLES else None
    if kind == "count":
        return (1.0, unit) if unit in _COUNT_UNITS else None
    if kind == "per_cycle":
        return (1.0, "inst/cycle") if unit in ("inst/cycle", "instruction/cycle", "/cycle", "inst", "") else None
    if kind == "stall":
        return (1.0, "cycle") if unit in ("", "inst", "cycle", "cycles", "cycle/inst") else None
    if kind == "ratio":
        return (1.0, "") if unit == "" else None
    raise ValueError(f"unknown quantity kind {kind!r} in ncu_details.toml")


# ---------------------------------------------------------------------------------------------------------
# Numbers and launch identifiers as printed.

_GROUPED = re.compile(r"^[+-]?\d{1,3}(?:,\d{3})+(?:\.\d*)?(?:[eE][+-]?\d+)?$")
_NOT_MEASURED = {"", "n/a", "na", "-", "--", "(n/a)", "not available"}


def parse_number(text: str) -> float | None:
    """A number as Nsight Compute prints it: ``"292,928"``, ``"1,658.42"``, ``"20.23"``, ``"1e+06"``.

    Returns None for "not measured" (empty, ``n/a``, ``-``). NaN / inf are returned as such.

    Raises:
        ValueError: anything else, including a comma that is not a thousands separator (``"20,23"``: the
            scale would be a guess).
    """
    t = text.strip()
    if t.lower() in _NOT_MEASURED:
        return None
    if "," in t:
        if not _GROUPED.match(t):
            raise ValueError(f"{text!r} is not a number (a comma that is not a thousands separator)")
        t = t.replace(",", "")
    try:
        return float(t)
    except ValueError:
        raise ValueError(f"{text!r} is not a number") from None


_DIMS = re.compile(r"^\(?\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)?$")


def parse_dims(text: str | Sequence[int] | None) -> tuple[int, int, int] | None:
    """``"(256, 1, 1)"`` (or a 3-sequence) -> ``(256, 1, 1)``; None for empty / unrecognised text."""
    if text is None:
        return None
    if not isinstance(text, str):
        vals = tuple(int(v) for v in text)
        return vals if len(vals) == 3 else None  # type: ignore[return-value]
    m = _DIMS.match(text.strip())
    return None if m is None else (int(m.group(1)), int(m.group(2)), int(m.group(3)))


def parse_cc(text: str | Sequence[int] | None) -> tuple[int, int] | None:
    """Compute capability ``"8.6"`` (or ``(8, 6)``) -> ``(8, 6)``; None for empty / unrecognised text."""
    if text is None:
        return None
    if not isinstance(text, str):
        vals = tuple(int(v) for v in text)
        return vals if len(vals) == 2 else None  # type: ignore[return-value]
    m = re.match(r"^\s*(\d+)\.(\d+)\s*$", text)
    return None if m is None else (int(m.group(1)), int(m.group(2)))


def function_name(signature: str) -> str:
    """The bare function name of a demangled kernel signature, as ``.ncu-rep`` names kernels:
    ``"void ns::gemm<32>(const float *, int)"`` -> ``"gemm"``; ``"(anonymous namespace)::k(int)"`` -> ``"k"``.
    A name without a parameter list is returned without its template arguments and scopes."""
    text = signature.strip()
    if not text:
        return text
    # Drop the trailing top-level parameter list "( ... )" (and cv-qualifiers after it).
    end = len(text)
    tail = re.search(r"\)\s*(?:const|volatile|\s)*$", text)
    if tail:
        depth = 0
        for i in range(tail.start(), -1, -1):
            c = text[i]
            if c == ")":
                depth += 1
            elif c == "(":
                depth -= 1
                if depth == 0:
                    end = i
                    break
    head = text[:end]
    # Remove template arguments and parenthesised scopes at top level, split scopes and the return type.
    out: list[str] = []
    angle = paren = 0
    for c in head:
        if c == "<":
            angle += 1
            continue
        if c == ">":
            angle = max(0, angle - 1)
            continue
        if c == "(":
            paren += 1
        elif c == ")":
            paren = max(0, paren - 1)
        if angle == 0:
            out.append(" " if (c == " " and paren == 0) else (c if paren == 0 else "_"))
    words = "".join(out).split()
    last = words[-1] if words else head
    name = last.split("::")[-1].strip()
    return name or text


# ---------------------------------------------------------------------------------------------------------
# The mapping table.


def _key(text: str) -> str:
    return " ".join(str(text).split()).lower()


class _Entry(Model):
    """One ``[[metric]]`` row kind of ``data/ncu_details.toml`` (keys documented there)."""

    section: str
    labels: tuple[str, ...]
    metric: str
    kind: str
    scale: float = 1.0

    @field_validator("kind")
    @classmethod
    def _known_kind(cls, kind: str) -> str:
        if kind not in KINDS:
            raise ValueError(f"unknown quantity kind {kind!r}; expected one of {', '.join(KINDS)}")
        return kind


class _DetailsFile(Model):
    sections: dict[str, tuple[str, ...]]
    metric: tuple[_Entry, ...]


@cache
def _table() -> tuple[dict[str, str], dict[tuple[str, str], tuple[_Entry, ...]]]:
    """(section key -> identifier, (identifier or "*", label key) -> entries) from data/ncu_details.toml."""
    data = load("ncu_details.toml", _DetailsFile)
    sections: dict[str, str] = {}
    for ident, names in data.sections.items():
        sections[_key(ident)] = ident
        for n in names:
            sections[_key(n)] = ident
    entries: dict[tuple[str, str], list[_Entry]] = {}
    for entry in data.metric:
        for label in entry.labels:
            entries.setdefault((entry.section, _key(label)), []).append(entry)
    return sections, {k: tuple(v) for k, v in entries.items()}


def section_id(section: str) -> str | None:
    """The section identifier for a display name or identifier ("Launch Statistics" -> "LaunchStats"), or None."""
    return _table()[0].get(_key(section))


_METRIC_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*__[A-Za-z0-9_.]+$")


def is_metric_name(text: str) -> bool:
    """True for an Nsight metric name (``dram__bytes_read.sum``), as opposed to a display label."""
    return bool(_METRIC_NAME.match(text.strip()))


# ---------------------------------------------------------------------------------------------------------


def profile_from_details(
    index: int,
    kernel_name: str,
    rows: Iterable[Row],
    source: str,
    *,
    device_name: str | None = None,
    cc: str | Sequence[int] | None = None,
    grid: str | Sequence[int] | None = None,
    block: str | Sequence[int] | None = None,
    extra: Mapping[str, Any] | None = None,
) -> KernelProfile:
    """One kernel launch of a details page -> :class:`KernelProfile` (SI units, None = not measured).

    Args:
        index: 0-based position of the launch in its file.
        kernel_name: the kernel as the page names it (usually the demangled signature); the profile's
            ``name`` is its bare function name, ``demangled_name`` the text as given (``mangled_name`` too when
            it is a ``_Z`` symbol).
        rows: :class:`MetricRow` / plain ``(section, name, unit, value)`` tuples and :class:`RuleRow`, in
            file order. Metric rows: section display name or identifier, label (or metric name), unit and
            value as printed; a value that is empty or ``n/a`` is "not measured". Rule rows become
            :class:`~kernelscope.model.RuleResult` (type from "OPT"/"WRN"/"INF"/"ERR", estimated speedup).
        source: the file, named by every error.
        device_name: the GPU's name when the input gives one (a device *index* is not a name: pass None).
        cc: compute capability, ``"8.6"`` or ``(8, 6)``.
        grid, block: launch shape, ``"(256, 1, 1)"`` or a 3-tuple.
        extra: :class:`KernelProfile` fields to set after reading the rows (e.g. ``{"duration_s": 1e-5}``);
            ``"problems"`` are added to the reader's own. For readers with values no row carries.

    The first row giving a metric wins (the same value often appears in several sections). A page with a
    bandwidth (``dram__bytes.sum.per_second``: "Memory Throughput" of Memory Workload Analysis, "DRAM
    Bandwidth" of the roofline) and a duration but no DRAM byte count gets ``dram__bytes.sum`` = bandwidth x
    duration, said in ``problems``.

    Raises:
        InputError: a mapped row with a unit its quantity does not take, or a value that is not a number
            (the message names the file, the line, the kernel, the metric and the unit or value); a metric
            used for a field with a unit the conversion tables lack.
        ValueError / TypeError: ``extra`` names a field KernelProfile does not have.
    """
    demangled = kernel_name.strip() or f"kernel_{index}"
    name = function_name(demangled) or demangled
    mangled = demangled if demangled.startswith("_Z") else None
    label = f"kernel {index} ({name})"
    sections, entries = _table()

    values: dict[str, float] = {}
    units: dict[str, str] = {}
    strings: dict[str, str] = {}
    locations: dict[str, str] = {}
    nonfinite: list[str] = []
    rules: list[RuleResult] = []
    printed: dict[str, tuple[str, str]] = {}  # shared-memory sizes as printed (value, unit), see snap_shared_mem

    def where(line: int | None) -> str:
        return f"line {line}: " if line else ""

    for raw in rows:
        if isinstance(raw, RuleRow):
            rule = _rule(raw)
            if rule is not None:
                rules.append(rule)
            continue
        row = raw if isinstance(raw, MetricRow) else MetricRow(*raw)
        text = row.name.strip()
        if not text:
            continue
        sec_id = sections.get(_key(row.section))
        found = None if sec_id == "CommandLineMetrics" else (
            entries.get((sec_id or _key(row.section), _key(text))) or entries.get(("*", _key(text)))
        )
        if found is None:
            if sec_id == "CommandLineMetrics" or is_metric_name(text):
                try:
                    _raw_metric(row, text, values, units, strings, locations, nonfinite, printed)
                except ValueError as exc:
                    raise InputError(
                        source, f"{where(row.line)}{label}: '{text}' ({row.section}): value {exc}") from None
            continue  # a display row kernelscope does not use
        choice = next(((e, c) for e in found if (c := convert(e.kind, row.unit)) is not None), None)
        if choice is None:
            raise InputError(
                source,
                f"{where(row.line)}{label}: '{text}' ({row.section}, metric {found[0].metric}) has unit "
                f"{row.unit.strip()!r}, which kernelscope cannot convert (expected {_EXPECTED[found[0].kind]})",
            )
        entry, (factor, si_unit) = choice
        try:
            value = parse_number(row.value)
        except ValueError as exc:
            raise InputError(source, f"{where(row.line)}{label}: '{text}' ({row.section}): value {exc}") from None
        if value is None or entry.metric in values:
            continue
        if not math.isfinite(value):
            nonfinite.append(entry.metric)
            continue
        values[entry.metric] = value * factor * entry.scale
        units[entry.metric] = si_unit
        if entry.metric.startswith(SHARED_MEM_PREFIX):
            printed[entry.metric] = (row.value, row.unit)
        if row.line:
            locations[entry.metric] = f"line {row.line}"

    add_launch_identity(values, units, strings, device_name, cc, grid, block)
    snap_shared_mem(values, units, printed)
    problems: list[str] = []
    if nonfinite:
        problems.append(f"{len(nonfinite)} metric values are NaN or infinite (not measured, e.g. "
                        f"{', '.join(sorted(nonfinite)[:3])})")
    derived = _derive_dram_bytes(values, units)
    if derived:
        problems.append(derived)

    profile = profile_from_metrics(
        index, name, demangled, mangled, values, units, rules, source, problems,
        strings=strings, locations=locations, partial_flops=True,
    )
    if extra:
        fields = dict(extra)
        if "problems" in fields:
            fields["problems"] = profile.problems + tuple(fields["problems"])
        if "rules" in fields:
            fields["nsight_sol_class"], fields["nsight_sol_title"] = sol_verdict(fields["rules"])
        profile = dataclasses.replace(profile, **fields)
    return profile


def _raw_metric(
    row: MetricRow,
    metric: str,
    values: dict[str, float],
    units: dict[str, str],
    strings: dict[str, str],
    locations: dict[str, str],
    nonfinite: list[str],
    printed: dict[str, tuple[str, str]],
) -> None:
    """A row labelled with a metric name: kept in its own unit (converted where a field reads it).

    Raises:
        ValueError: a value that is not a number where a number is due (see :func:`is_string_value`).
    """
    if metric in values or metric in strings:
        return
    try:
        value = parse_number(row.value)
    except ValueError:
        if not is_string_value(metric, row.unit, row.value):
            raise
        strings[metric] = row.value.strip()  # a string-valued metric (device__attribute_display_name, ...)
        return
    if value is None:
        return
    if not math.isfinite(value):
        nonfinite.append(metric)
        return
    values[metric] = value
    units[metric] = row.unit.strip()
    if metric.startswith(SHARED_MEM_PREFIX):
        printed[metric] = (row.value, row.unit)
    if row.line:
        locations[metric] = f"line {row.line}"


_NUMBER_LIKE = re.compile(r"^[+-]?[\d.]")


def is_string_value(metric: str, unit: str, text: str) -> bool:
    """Whether a value that :func:`parse_number` refuses is a string-valued metric (kept as text) rather than a
    number that cannot be read (an error).

    Nsight Compute's string metrics (``device__attribute_display_name`` "NVIDIA B200",
    ``launch__func_cache_config`` "CachePreferNone", ``launch__execution_model`` "SIMT", ...) have no unit, no
    rollup suffix (``.sum``, ``.avg``, ``.pct``...: those are counters, ratios and throughputs, numbers by
    construction) and do not start like a number. Anything else that is not a number (``"5,12"``, ``"abc"`` in
    ``ns``) cannot be read.
    """
    t = text.strip()
    return bool(t) and not unit.strip() and "." not in metric and not _NUMBER_LIKE.match(t)


#: Metric names of per-block / per-SM shared-memory sizes (``launch__shared_mem_per_block_static``,
#: ``launch__shared_mem_config_size``, ...): whole byte counts that ncu prints in decimal Kbyte.
SHARED_MEM_PREFIX = "launch__shared_mem"

_PRINTED_DECIMAL = re.compile(r"^\d+(?:\.(\d*))?$")


def exact_size_bytes(metric: str, text: str, unit: str, cc: tuple[int, int] | None) -> int | None:
    """The whole byte count behind a shared-memory size printed in decimal units, or None.

    Nsight Compute prints these sizes with decimal prefixes and two decimals ("24.58 Kbyte/block" for 24 KiB =
    24576 B; carveouts "8.19", "65.54", "102.40", "167.94 Kbyte"), so the printed text is a rounding of the true
    byte count: the bytes B with round(B / 1000, 2) == 24.58 are 24575 .. 24585. Of those, kernelscope takes the
    one the hardware can have: for the shared-memory configuration size (carveout) the compute capability's
    configurable size in that range (:func:`kernelscope.occupancy.arch_limits`), else the single multiple of
    128 B (the shared-memory allocation unit from CC 8.0; 256 B before) in it. None when the unit is not a
    decimal multiple of bytes or no single candidate exists (the printed value is then used as it is).
    """
    base = unit.strip().split("/", 1)[0]
    factor = BYTES.get(base)
    if factor is None or factor <= 1.0 or factor in (1024.0, 1024.0**2, 1024.0**3):
        return None
    t = text.strip().replace(",", "")
    mt = _PRINTED_DECIMAL.match(t)
    if mt is None:
        return None
    decimals = len(mt.group(1) or "")
    half = Decimal(5) / Decimal(10) ** (decimals + 1)
    scale = Decimal(repr(factor))
    lo, hi = (Decimal(t) - half) * scale, (Decimal(t) + half) * scale
    if metric == "launch__shared_mem_config_size" and cc is not None:

        try:
            sizes = arch_limits(cc).shared_mem_carveouts_bytes
        except InputError:
            sizes = ()
        fits = [c for c in sizes if lo <= c <= hi]
        if len(fits) == 1:
            return fits[0]
    unit_bytes = 128
    first, last = math.ceil(lo / unit_bytes), math.floor(hi / unit_bytes)
    return first * unit_bytes if first == last and first >= 0 else None


def snap_shared_mem(values: dict[str, float], units: dict[str, str], printed: Mapping[str, tuple[str, str]]) -> None:
    """Replace shared-memory sizes printed in decimal Kbyte by their exact byte counts (:func:`exact_size_bytes`),
    with the compute capability in ``values`` (``device__attribute_compute_capability_*``)."""
    major = values.get("device__attribute_compute_capability_major")
    minor = values.get("device__attribute_compute_capability_minor")
    cc = (int(major), int(minor)) if major is not None and minor is not None else None
    for metric, (text, unit) in printed.items():
        exact = exact_size_bytes(metric, text, unit, cc)
        if exact is not None and metric in values:
            values[metric] = float(exact)
            units[metric] = "byte/block" if "/block" in unit else "byte"


def add_launch_identity(
    values: dict[str, float],
    units: dict[str, str],
    strings: dict[str, str],
    device_name: str | None,
    cc: str | Sequence[int] | None,
    grid: str | Sequence[int] | None,
    block: str | Sequence[int] | None,
) -> None:
    """Store a page's launch identifiers (device name, compute capability ``"8.6"``, grid / block ``"(x, y, z)"``)
    as the metrics a report stores them in (``device__attribute_display_name`` in ``strings``,
    ``device__attribute_compute_capability_*``, ``launch__grid_dim_*``, ``launch__block_dim_*``), unless the
    page already has those metrics. Empty / unparseable identifiers are skipped."""
    if device_name and device_name.strip() and "device__attribute_display_name" not in strings:
        strings["device__attribute_display_name"] = device_name.strip()
    pair = parse_cc(cc)
    if pair is not None and "device__attribute_compute_capability_major" not in values:
        for n, v in zip(("major", "minor"), pair):
            values[f"device__attribute_compute_capability_{n}"] = float(v)
            units[f"device__attribute_compute_capability_{n}"] = ""
    for prefix, dims in (("launch__grid_dim_", parse_dims(grid)), ("launch__block_dim_", parse_dims(block))):
        if dims is not None and prefix + "x" not in values:
            for axis, v in zip("xyz", dims):
                values[prefix + axis] = float(v)
                units[prefix + axis] = ""


def _derive_dram_bytes(values: dict[str, float], units: dict[str, str]) -> str | None:
    """Add ``dram__bytes.sum`` = bandwidth x duration when the page has no DRAM byte count; the note to report."""
    if any(n in values for n in ("dram__bytes_read.sum", "dram__bytes_write.sum", "dram__bytes.sum")):
        return None
    rate_name = "dram__bytes.sum.per_second"
    duration_name = next((n for n in ("gpu__time_duration.sum", "gpu__time_duration.avg") if n in values), None)
    if rate_name not in values or duration_name is None or not values[duration_name] > 0:
        return None  # (a duration of 0 or below is not a measurement: profile_from_metrics says so)
    rate_factor = bytes_per_second_factor(units.get(rate_name, ""))
    time_factor = TIME_S.get(units.get(duration_name, "").strip())
    if rate_factor is None or time_factor is None:
        return None  # the field readers report the unit
    values["dram__bytes.sum"] = values[rate_name] * rate_factor * values[duration_name] * time_factor
    units["dram__bytes.sum"] = "byte"
    return ("DRAM bytes derived as DRAM bandwidth x duration (dram__bytes.sum.per_second x gpu__time_duration.sum, "
            "both as printed, to 3-4 significant digits): the page has no DRAM byte count")


def _rule(row: RuleRow) -> RuleResult | None:
    text = " ".join(str(row.description or "").split())
    if not text and not row.rule.strip():
        return None
    if not text:
        return None  # the rule ran but said nothing
    try:
        speedup = parse_number(row.speedup or "")
    except ValueError:
        speedup = None
    if speedup is not None and not math.isfinite(speedup):
        speedup = None
    kind = (row.speedup_type or "").strip().lower()
    speedup_type = "local" if "local" in kind else "global" if "global" in kind else None
    rule_id = row.rule.strip()
    return RuleResult(
        rule_id=rule_id,
        title=rule_id,
        message_type=message_type(row.type),
        message=text,
        estimated_speedup_pct=speedup,
        speedup_type=speedup_type,
    )

"""Nsight Compute "details page" rows -> :class:`~kernelscope.model.KernelProfile`.

The details page (``ncu --csv --page details``, and the console output of ``ncu``) names each value by its
section and display label ("GPU Speed Of Light Throughput" / "Duration") with a unit as printed ("usecond",
"Gbyte/second"), and prints numbers with thousands separators ("292,928"). This module maps those rows back
to Nsight metric names (table ``data/ncu_details.toml``), converts every mapped value to SI with a unit check,
and hands the result to :func:`kernelscope.ingest.ncu_metrics.profile_from_metrics`, the same conversion the
``.ncu-rep`` reader uses, so every analysis works unchanged.

Rows of the "Command line profiler metrics" section (``ncu --metrics ...``) carry metric names as labels and
are taken as such, in their own units; a value there that is not a number (``"23,42"``) raises InputError as
in a mapped row, unless it is a string-valued metric (:func:`.ncu_printed.is_string_value`). So are the rows of a
section kernelscope does not know (a custom section file, whatever its name: "Custom L2 metrics (run 1)"), under
their label as printed (``l2_hit_rate``). Shared-memory sizes
printed in decimal Kbyte become their exact byte counts (:func:`.ncu_printed.exact_size_bytes`). Rows of known sections whose
label kernelscope does not map are kept out (they feed no field); a mapped row with a unit its quantity does not take
(:func:`.units.ncu_quantity`) raises :class:`~kernelscope.errors.InputError` naming the file, the line, the
metric and the unit.

Used by the CSV reader (:mod:`.ncu_csv`) and the console-text reader (:mod:`.ncu_text`).
"""

from __future__ import annotations

import dataclasses
import math
import re
from functools import cache, lru_cache
from typing import Any, Iterable, Iterator, Mapping, NamedTuple, Sequence, Union

from ..errors import InputError
from ..knowledge import Model, load
from ..model import KernelProfile, RuleResult
from .ncu_metrics import derive_dram_bytes, profile_from_metrics
from .ncu_printed import (
    SHARED_MEM_PREFIX,
    add_launch_identity,
    function_name,
    is_string_value,
    parse_number,
    snap_shared_mem,
)
from .nsight_rules import message_type, sol_verdict
from .units import NCU_EXPECTED, NCU_KINDS, NCU_TIME_S, ncu_bytes_per_second, ncu_quantity


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
# The mapping table.


def _key(text: str) -> str:
    return " ".join(str(text).split()).lower()


class _Entry(Model, kw_only=True):
    """One ``[[metric]]`` row kind of ``data/ncu_details.toml`` (keys documented there)."""

    section: str
    labels: tuple[str, ...]
    metric: str
    kind: str
    scale: float = 1.0

    def __post_init__(self) -> None:
        if self.kind not in NCU_KINDS:
            raise ValueError(f"field 'kind': unknown quantity kind {self.kind!r}; expected one of {', '.join(NCU_KINDS)}")


class _DetailsFile(Model, kw_only=True):
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
# Reading a launch's rows.


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
    page = _Page(source, f"kernel {index} ({name})")
    page.read(rows)
    add_launch_identity(page.values, page.units, page.strings, device_name, cc, grid, block)
    snap_shared_mem(page.values, page.units, page.printed)
    problems: list[str] = []
    if page.nonfinite:
        problems.append(f"{len(page.nonfinite)} metric values are NaN or infinite (not measured, e.g. "
                        f"{', '.join(sorted(page.nonfinite)[:3])})")
    derived = derive_dram_bytes(page.values, page.units, "both as printed, to 3-4 significant digits", "the page")
    if derived:
        problems.append(derived)

    profile = profile_from_metrics(
        index, name, demangled, mangled, page.values, page.units, page.rules, source, problems,
        strings=page.strings, locations=_LineOf(page.lines), partial_flops=True,
    )
    return _with_extra(profile, extra) if extra else profile


def _with_extra(profile: KernelProfile, extra: Mapping[str, Any]) -> KernelProfile:
    """``profile`` with the fields of ``extra`` set (its ``problems`` added to the profile's own; its ``rules``
    giving the Speed-of-Light verdict)."""
    fields = dict(extra)
    if fields == {"problems": []} or fields == {"problems": ()}:
        return profile  # nothing to add (a CSV reader passes its file's problems, most often none)
    if "problems" in fields:
        fields["problems"] = profile.problems + tuple(fields["problems"])
    if "rules" in fields:
        fields["nsight_sol_class"], fields["nsight_sol_title"] = sol_verdict(fields["rules"])
    return dataclasses.replace(profile, **fields)


@lru_cache(maxsize=8192)
def _plan(section: str, name: str, unit: str) -> tuple[str, str | None, tuple[_Entry, ...] | None, bool,
                                                          tuple[_Entry, tuple[float, str]] | None]:
    """How a row of ``section`` labelled ``name`` (as printed) in ``unit`` is read, the same for every launch of a
    file, so worked out once: (the label stripped, the section identifier or None, the entries mapping the label or
    None, whether the label is a metric name, the first of those entries whose quantity takes ``unit`` with (factor
    to SI, SI unit) or None)."""
    text = name.strip()
    sections, entries = _table()
    sec_id = sections.get(_key(section))
    found = None if sec_id == "CommandLineMetrics" else (
        entries.get((sec_id or _key(section), _key(text))) or entries.get(("*", _key(text)))
    )
    choice = next(((e, c) for e in found or () if (c := ncu_quantity(e.kind, unit)) is not None), None)
    return text, sec_id, found, is_metric_name(text), choice


@lru_cache(maxsize=8192)
def _how(section: str, name: str, unit: str) -> tuple:
    """:func:`_plan` of a row as :meth:`_Page.read` takes it: ``(_MAPPED, metric, factor, scale, SI unit, shared)``
    for a display row kernelscope maps and can convert, ``(_RAW, metric, 1.0, 1.0, unit stripped, shared)`` for a
    row kept under its label, ``_SKIP_ROW`` for a row that feeds nothing, ``_CHECK_ROW`` for one :meth:`_Page.add`
    reads (an error to raise); ``shared``: a shared-memory size (:func:`snap_shared_mem` takes its printed form)."""
    text, sec_id, found, metric_name, choice = _plan(section, name, unit)
    if not text:
        return _SKIP_ROW
    if found is not None:
        if choice is None:
            return _CHECK_ROW
        entry, (factor, si_unit) = choice
        return (_MAPPED, entry.metric, factor, entry.scale, si_unit, entry.metric.startswith(SHARED_MEM_PREFIX))
    if sec_id in ("CommandLineMetrics", None) or metric_name:
        return (_RAW, text, 1.0, 1.0, unit.strip(), text.startswith(SHARED_MEM_PREFIX))
    return _SKIP_ROW


_SKIP, _CHECK, _MAPPED, _RAW = range(4)
_SKIP_ROW, _CHECK_ROW = (_SKIP, "", 1.0, 1.0, "", False), (_CHECK, "", 1.0, 1.0, "", False)


class _LineOf(Mapping[str, str]):
    """metric -> where it was read (``"line 12"``), from the line numbers, worded only when asked (by an error)."""

    def __init__(self, lines: Mapping[str, int]) -> None:
        self._lines = lines

    def __getitem__(self, metric: str) -> str:
        return f"line {self._lines[metric]}"

    def __iter__(self) -> Iterator[str]:
        return iter(self._lines)

    def __len__(self) -> int:
        return len(self._lines)


class _Page:
    """What the rows of one launch give, as :func:`profile_from_metrics` takes it: metric values by Nsight
    metric name with their units, string-valued metrics, where each metric was read, the metrics that were NaN or
    infinite, the rule results, and shared-memory sizes as printed (value, unit) for :func:`snap_shared_mem`."""

    def __init__(self, source: str, label: str) -> None:
        self.source = source
        self.label = label  # "kernel 3 (sgemm)", for errors
        self.values: dict[str, float] = {}
        self.units: dict[str, str] = {}
        self.strings: dict[str, str] = {}
        self.lines: dict[str, int] = {}  # metric -> the line it was read from
        self.nonfinite: list[str] = []
        self.rules: list[RuleResult] = []
        self.printed: dict[str, tuple[str, str]] = {}

    def read(self, rows: Iterable[Row]) -> None:
        """Read the rows of a launch, in order: :meth:`add` of each, the common rows (a number in a row :func:`_how`
        says is read without a word) without the checks they pass."""
        values, units, strings, lines, printed = (
            self.values, self.units, self.strings, self.lines, self.printed)
        isfinite, how_of = math.isfinite, _how
        for raw in rows:
            if (type(raw) is not tuple or len(raw) != 6) and type(raw) is not MetricRow:
                self.add(raw)
                continue
            section, name, unit, value, line, _ = raw
            kind, metric, factor, scale, si_unit, shared = how_of(section, name, unit)
            if kind <= _CHECK:
                if kind == _CHECK:
                    self.add(MetricRow(*raw))
                continue
            if kind == _RAW and (metric in values or metric in strings):
                continue  # (a mapped row's value is read first: a value that is not a number is an error)
            try:
                number = float(value)  # (what parse_number gives when float() takes the text)
            except ValueError:
                try:
                    number = parse_number(value)  # ("1,234", "n/a")
                except ValueError:
                    self.add(MetricRow(*raw))  # (raises, or keeps a text value)
                    continue
                if number is None:
                    continue
            if metric in values:
                continue
            if not isfinite(number):
                self.nonfinite.append(metric)
                continue
            values[metric] = number * factor * scale  # (a row kept in its own unit: factor and scale 1.0, exact)
            units[metric] = si_unit
            if shared:
                printed[metric] = (value, unit)
            if line:
                lines[metric] = line

    def add(self, raw: Row) -> None:
        """Read one row: a rule result, a mapped display row, a row labelled with a metric name, or (a display row
        kernelscope does not use) nothing."""
        if type(raw) is MetricRow:  # (most rows: no isinstance chain)
            row = raw
        elif isinstance(raw, RuleRow):
            rule = _rule(raw)
            if rule is not None:
                self.rules.append(rule)
            return
        else:
            row = raw if isinstance(raw, MetricRow) else MetricRow(*raw)
        text, sec_id, found, metric_name, choice = _plan(row.section, row.name, row.unit)
        if not text:
            return
        if found is not None:
            # A display row kernelscope maps (data/ncu_details.toml): converted to SI with ``choice``, the first entry
            # whose quantity takes the row's unit (_plan). The first row giving a metric wins.
            if choice is None:
                raise self.error(row, f"'{text}' ({row.section}, metric {found[0].metric}) has unit "
                                      f"{row.unit.strip()!r}, which kernelscope cannot convert (expected "
                                      f"{NCU_EXPECTED[found[0].kind]})")
            entry, (factor, si_unit) = choice
            metric = entry.metric
            try:
                value = parse_number(row.value)
            except ValueError as exc:
                raise self.error(row, f"'{text}' ({row.section}): value {exc}") from None
            if value is None or metric in self.values:
                return
            if not math.isfinite(value):
                self.nonfinite.append(metric)
                return
            self.store(metric, value * factor * entry.scale, si_unit, row)
        elif sec_id in ("CommandLineMetrics", None) or metric_name:
            # a metric name, or any row of a section kernelscope does not know (a custom section file, e.g.
            # "Custom L2 metrics" with nvprof-style names): kept under its label, nothing is dropped
            try:
                self.raw_metric(row, text)
            except ValueError as exc:
                if sec_id is None and not is_metric_name(text):
                    self.strings.setdefault(text, row.value.strip())  # a text value of a custom section's row
                    return
                raise self.error(row, f"'{text}' ({row.section}): value {exc}") from None

    def error(self, row: MetricRow, problem: str) -> InputError:
        where = f"line {row.line}: " if row.line else ""
        return InputError(self.source, key="details_bad_value",
            values={"where": where, "label": self.label, "problem": problem})

    def raw_metric(self, row: MetricRow, metric: str) -> None:
        """A row labelled with a metric name: kept in its own unit (converted where a field reads it).

        Raises:
            ValueError: a value that is not a number where a number is due (see :func:`is_string_value`).
        """
        if metric in self.values or metric in self.strings:
            return
        try:
            value = parse_number(row.value)
        except ValueError:
            if not is_string_value(metric, row.unit, row.value):
                raise
            self.strings[metric] = row.value.strip()  # a string-valued metric (device__attribute_display_name, ...)
            return
        if value is None:
            return
        if not math.isfinite(value):
            self.nonfinite.append(metric)
            return
        self.store(metric, value, row.unit.strip(), row)

    def store(self, metric: str, value: float, unit: str, row: MetricRow) -> None:
        self.values[metric] = value
        self.units[metric] = unit
        if metric.startswith(SHARED_MEM_PREFIX):
            self.printed[metric] = (row.value, row.unit)
        if row.line:
            self.lines[metric] = row.line


@lru_cache(maxsize=8192)
def squashed(text: str) -> str:
    """``text`` with each run of white space made one space and none at the ends (a rule's text repeats for every
    launch of its kernel: worked out once)."""
    return " ".join(text.split())


def _rule(row: RuleRow) -> RuleResult | None:
    return _rule_result(row.rule, row.type, str(row.description or ""), row.speedup or "", row.speedup_type or "")


@lru_cache(maxsize=8192)
def _rule_result(rule: str, type_: str, description: str, speedup_text: str, speedup_kind: str) -> RuleResult | None:
    """The :class:`RuleResult` of a rule row's cells (immutable: the same for every launch that prints them)."""
    text = squashed(description)
    if not text and not rule.strip():
        return None
    if not text:
        return None  # the rule ran but said nothing
    try:
        speedup = parse_number(speedup_text)
    except ValueError:
        speedup = None
    if speedup is not None and not math.isfinite(speedup):
        speedup = None
    kind = speedup_kind.strip().lower()
    speedup_type = "local" if "local" in kind else "global" if "global" in kind else None
    rule_id = rule.strip()
    return RuleResult(
        rule_id=rule_id,
        title=rule_id,
        message_type=message_type(type_),
        message=text,
        estimated_speedup_pct=speedup,
        speedup_type=speedup_type,
    )

"""Values that cannot be real: one screen for every reader (``kernelscope.ingest.load`` runs it on every launch,
:func:`kernelscope.analysis.diagnosis.diagnose` again on what it is given).

A value outside what a measurement of one launch can be is moved out of the :class:`~kernelscope.model.KernelProfile`
field (and the ``metrics`` entry) it would have filled into ``KernelProfile.implausible``
(:class:`~kernelscope.model.Implausible`: the metric, the raw value, its unit, the reason) with a line in
``problems``; the field is then None ("not measured") and no verdict or advice rests on it. What is screened (bounds
in ``data/plausibility.toml``, each with its source):

* percentages (``*_pct`` fields, breakdowns, and every ``metrics`` entry whose unit is ``%`` or whose name is a
  ``.pct`` / ``pct_of_peak`` metric: % of peak, hit rates, occupancy, efficiencies) above 100 or below 0, beyond
  ``pct_tolerance`` points of counter noise;
* byte counts (``dram_bytes_*``, byte-unit metrics) below 0 or above ``max_bytes``; FLOP counts below 0 or above
  ``max_flops``; any other counter (``.sum`` / ``.avg`` ... or a count unit) below 0;
* the SM clock (``sm_frequency_hz``) outside ``min_sm_clock_hz`` .. ``max_sm_clock_hz``: then, when the profile
  holds elapsed cycles and a duration, the clock is derived as cycles / duration (said in ``problems``).

Checks against a GPU's ceilings (DRAM bytes above the peak bandwidth, FLOP/s above the roof) need the spec the
diagnosis uses: :mod:`kernelscope.analysis.plausible`, through :func:`flag` here. Reason texts (en / zh) are
``data/labels.toml`` ``[note]`` ``implausible_*`` (:func:`implausible_note`).
"""

from __future__ import annotations

import dataclasses
import math
import re
import weakref
from functools import cache, lru_cache
from typing import Any, Iterable, Mapping

from ..model import Implausible, KernelProfile
from ..notes import Note
from . import Model, NonEmpty, load
from .text import note_text


class _Limit(Model, kw_only=True):
    value: float
    source: NonEmpty


class _File(Model, kw_only=True):
    limits: dict[str, _Limit]


@cache
def limits() -> Mapping[str, float]:
    """The bounds of ``data/plausibility.toml`` by key (``pct_tolerance``, ``max_bytes``, ``max_flops``,
    ``min_sm_clock_hz``, ``max_sm_clock_hz``)."""
    return {key: entry.value for key, entry in load("plausibility.toml", _File).limits.items()}


#: Percentage fields of KernelProfile -> the metrics a reader fills them from (the first is the one named when none
#: of them is in ``metrics``).
PCT_FIELDS: dict[str, tuple[str, ...]] = {
    "sol_compute_pct": ("sm__throughput.avg.pct_of_peak_sustained_elapsed",),
    "sol_memory_pct": ("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",),
    "dram_throughput_pct": ("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
                            "dram__throughput.avg.pct_of_peak_sustained_elapsed"),
    "tensor_pipe_active_pct": ("sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
                               "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
                               "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed"),
    "achieved_occupancy_pct": ("sm__warps_active.avg.pct_of_peak_sustained_active",),
    "theoretical_occupancy_pct": ("sm__maximum_warps_per_active_cycle_pct",),
}
#: Percentage maps of KernelProfile (keys: metric names for the breakdowns, pipes for the tensor maps).
PCT_MAPS = ("compute_breakdown_pct", "memory_breakdown_pct", "tensor_ops_pct", "tensor_pipe_op_active_pct")
#: Byte fields of KernelProfile -> their metrics.
BYTE_FIELDS: dict[str, tuple[str, ...]] = {
    "dram_bytes_read": ("dram__bytes_read.sum", "dram__bytes_op_read.sum"),
    "dram_bytes_write": ("dram__bytes_write.sum", "dram__bytes_op_write.sum"),
    "dram_bytes_total": ("dram__bytes.sum",),
}
#: The SM clock's metrics.
CLOCK_METRICS = ("smsp__cycles_elapsed.avg.per_second", "sm__cycles_elapsed.avg.per_second",
                 "gpc__cycles_elapsed.avg.per_second")
#: Elapsed-cycle counts (in the SM / GPC clock) a clock can be derived from, with a duration.
CYCLE_METRICS = ("smsp__cycles_elapsed.avg", "sm__cycles_elapsed.avg", "gpc__cycles_elapsed.max",
                 "sm__cycles_elapsed.max")
DURATION_METRICS = ("gpu__time_duration.sum", "gpu__time_duration.avg")

_BYTE_UNIT = re.compile(r"^(?P<prefix>[KkMGTP]?)(?P<binary>i?)(?:byte|B)s?$")
_COUNT_UNITS = {"sector", "sectors", "cycle", "cycles", "inst", "warp", "request", "wavefront", "thread", "block",
                "transaction"}
_COUNTER_SUFFIX = re.compile(r"\.(?:sum|avg|max|min)$")
_PREFIX = {"": 1.0, "K": 1e3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}


def byte_factor(unit: str) -> float | None:
    """Bytes per unit of a byte-count unit ("byte", "Kbyte", "MB", "KiB"; binary with ``i``), or None for any other
    unit (a rate such as "byte/second" is not a count)."""
    m = _BYTE_UNIT.match(unit.strip())
    if m is None:
        return None
    prefix = m.group("prefix")
    if m.group("binary"):
        return float(1024 ** ("KMGTP".index(prefix.upper()) + 1)) if prefix else None
    return _PREFIX[prefix]


def is_percent(name: str, unit: str) -> bool:
    """A metric that is a percentage (0-100): unit ``%``, or a ``.pct`` / ``pct_of_peak`` / ``_pct`` name."""
    return unit.strip() == "%" or name.endswith((".pct", "_pct")) or ".pct_of_peak" in name


def _is_counter(name: str, unit: str) -> bool:
    """A metric that counts something (cannot be negative): a ``.sum`` / ``.avg`` / ``.max`` / ``.min`` rollup, or
    a byte or count unit."""
    u = unit.strip().split("/", 1)[0]
    return bool(_COUNTER_SUFFIX.search(name)) or byte_factor(unit) is not None or u in _COUNT_UNITS


def pct_reason(name: str, value: float) -> str | None:
    """The reason key when percentage ``value`` of metric ``name`` cannot be real, or None when it can."""
    tol = limits()["pct_tolerance"]
    if value < -tol:
        return "implausible_negative"
    if value <= 100.0 + tol:
        return None
    lowered = name.lower()
    if "warps_active" in lowered or "occupancy" in lowered or "maximum_warps" in lowered:
        return "implausible_occupancy"
    if "hit_rate" in lowered:
        return "implausible_hit_rate"
    return "implausible_pct"


@lru_cache(maxsize=16384)
def _metric_kind(name: str, unit: str) -> tuple[bool, float | None, bool]:
    """(a percentage, bytes per unit of a byte count or None, a counter) for a metric and its unit: what the screen
    checks, the same for every launch of a report, so classified once."""
    return is_percent(name, unit), byte_factor(unit), _is_counter(name, unit)


def _metric_reason(name: str, value: float, unit: str) -> tuple[str, float | None] | None:
    """(reason, limit) for one ``metrics`` entry that cannot be real, or None."""
    if not math.isfinite(value):
        return None  # NaN / inf: readers already leave those out as not measured
    percent, factor, counter = _metric_kind(name, unit)
    if percent:
        if 0.0 <= value <= 100.0:  # (pct_reason says None for these, whatever its tolerance)
            return None
        reason = pct_reason(name, value)
        return None if reason is None else (reason, None if reason == "implausible_negative" else 100.0)
    if factor is not None and value * factor > limits()["max_bytes"]:
        return "implausible_bytes", limits()["max_bytes"] / factor
    if value < 0 and counter:
        return "implausible_negative", None
    return None


def _source_metric(kernel: KernelProfile, names: tuple[str, ...], value: float, fallback: str,
                   factor: float = 1.0) -> str:
    """The metric among ``names`` that a field's ``value`` came from (in ``metrics`` with that value), else the
    first of them in ``metrics``, else ``fallback`` (the field's name: a plain-numbers file, an nvprof metric)."""
    for n in names:
        v = kernel.metrics.get(n)
        if v is not None and math.isclose(v * factor, value, rel_tol=1e-9, abs_tol=1e-12):
            return n
    for n in names:
        if n in kernel.metrics:
            return n
    return fallback


#: Profiles screened and found clean, by identity, each with a weak reference to it (the memo keeps nothing alive,
#: and a reused id is told apart): a report's launches are screened when read and again when diagnosed.
_CLEAN: dict[int, weakref.ref] = {}


def _forget(ref: weakref.ref, key: int) -> None:
    if _CLEAN.get(key) is ref:
        del _CLEAN[key]


def screen(kernel: KernelProfile) -> KernelProfile:
    """``kernel`` with every value that cannot be real moved into ``implausible`` (see the module docstring);
    ``kernel`` itself when there is none. Idempotent: a moved value is no longer there to be moved again."""
    known = _CLEAN.get(id(kernel))
    if known is not None and known() is kernel:
        return kernel  # (a profile is immutable: screened clean once, clean for good)
    found: list[Implausible] = []
    changes: dict[str, Any] = {}
    _screen_fields(kernel, found, changes)
    _screen_maps(kernel, found, changes)
    _screen_metrics(kernel, found)
    clock = _screen_clock(kernel, found, changes)
    if not found:
        key = id(kernel)
        _CLEAN[key] = weakref.ref(kernel, lambda ref, key=key: _forget(ref, key))
        return kernel
    return flag(kernel, found, extra_problems=clock, **changes)


def _screen_fields(kernel: KernelProfile, found: list[Implausible], changes: dict[str, Any]) -> None:
    """Percentage, byte and FLOP fields (the metric they came from is named)."""
    for field_name, names in PCT_FIELDS.items():
        value = getattr(kernel, field_name)
        if value is None or (reason := pct_reason(names[0], value)) is None:
            continue
        metric = _source_metric(kernel, names, value, field_name)
        found.append(Implausible(metric, value, "%", pct_reason(metric, value) or reason,
                                 None if reason == "implausible_negative" else 100.0))
        changes[field_name] = None
    max_bytes = limits()["max_bytes"]
    for field_name, names in BYTE_FIELDS.items():
        value = getattr(kernel, field_name)
        if value is None or 0 <= value <= max_bytes:
            continue
        unit = next((kernel.metric_units[n] for n in names if n in kernel.metric_units), "byte")
        metric = _source_metric(kernel, names, value, field_name, byte_factor(unit) or 1.0)
        found.append(Implausible(metric, value, "byte", "implausible_negative" if value < 0 else "implausible_bytes",
                                 None if value < 0 else max_bytes))
        changes[field_name] = None
    max_flops = limits()["max_flops"]
    bad = {p: v for p, v in kernel.flop_counts.items() if not 0 <= v <= max_flops}
    for pipe, value in bad.items():
        found.append(Implausible(f"flop_counts.{pipe}", value, "FLOP",
                                 "implausible_negative" if value < 0 else "implausible_flops",
                                 None if value < 0 else max_flops))
    if bad:
        changes["flop_counts"] = {p: v for p, v in kernel.flop_counts.items() if p not in bad}
    useful = kernel.useful_flops
    if useful is not None and not 0 <= useful <= max_flops:
        found.append(Implausible("useful_flops", useful, "FLOP", "implausible_negative" if useful < 0
                                 else "implausible_flops", None if useful < 0 else max_flops))
        changes["useful_flops"] = None


def _screen_maps(kernel: KernelProfile, found: list[Implausible], changes: dict[str, Any]) -> None:
    """The percentage maps: breakdowns by metric name, tensor maps by pipe."""
    for field_name in PCT_MAPS:
        values: Mapping[str, float] = getattr(kernel, field_name)
        bad = {k: v for k, v in values.items() if pct_reason(k, v) is not None}
        if not bad:
            continue
        for key, value in bad.items():
            # breakdowns are keyed by metric name; a tensor map by pipe: named by the tensor metric it came from
            metric = key if key in kernel.metrics or "__" in key else next(
                (n for n, v in kernel.metrics.items() if v == value and "tensor" in n), f"{field_name}.{key}")
            reason = pct_reason(key, value)
            found.append(Implausible(metric, value, "%", reason,  # type: ignore[arg-type]
                                     None if reason == "implausible_negative" else 100.0))
        changes[field_name] = {k: v for k, v in values.items() if k not in bad}


def _screen_metrics(kernel: KernelProfile, found: list[Implausible]) -> None:
    """Every other ``metrics`` entry (a metric already named by a field is not listed twice)."""
    named = {x.metric for x in found}
    for name, value in kernel.metrics.items():
        unit = kernel.metric_units.get(name, "")
        bad = _metric_reason(name, value, unit)
        if bad is not None and name not in named:
            found.append(Implausible(name, value, unit.strip(), bad[0], bad[1]))


def _screen_clock(kernel: KernelProfile, found: list[Implausible], changes: dict[str, Any]) -> list[str]:
    """The SM clock: outside the bounds it is moved out, and derived as elapsed cycles / duration when the profile
    holds both (the problem line saying so is returned)."""
    f = kernel.sm_frequency_hz
    lo, hi = limits()["min_sm_clock_hz"], limits()["max_sm_clock_hz"]
    if f is None or not math.isfinite(f) or lo <= f <= hi:
        return []
    metric = _source_metric(kernel, CLOCK_METRICS, f, "sm_frequency_hz")
    if all(x.metric != metric for x in found):
        found.append(Implausible(metric, f, "hz", "implausible_clock", lo if f < lo else hi))
    changes["sm_frequency_hz"] = None
    cycles = next(((n, kernel.metrics[n]) for n in CYCLE_METRICS if n in kernel.metrics
                   and kernel.metric_units.get(n, "cycle").strip() in ("cycle", "")), None)
    d = kernel.duration_s
    if cycles is None or d is None or not d > 0 or not cycles[1] > 0 or not lo <= cycles[1] / d <= hi:
        return []
    changes["sm_frequency_hz"] = cycles[1] / d
    return [f"SM clock derived as {cycles[0]} / duration = {cycles[1] / d / 1e9:#.3g} GHz (the printed clock is "
            "not possible)"]


def flag(kernel: KernelProfile, found: Iterable[Implausible], extra_problems: Iterable[str] = (),
         **changes: Any) -> KernelProfile:
    """``kernel`` with ``found`` added to ``implausible`` (and their lines to ``problems``), their metrics removed
    from ``metrics`` / ``metric_units``, and the field ``changes`` applied (e.g. ``achieved_occupancy_pct=None``)."""
    found = [x for x in found if x not in kernel.implausible]
    gone = {x.metric for x in found}
    metrics = {k: v for k, v in kernel.metrics.items() if k not in gone}
    units = {k: v for k, v in kernel.metric_units.items() if k not in gone}
    problems = kernel.problems + tuple(implausible_text(x, "en") for x in found) + tuple(extra_problems)
    return dataclasses.replace(kernel, implausible=kernel.implausible + tuple(found), problems=problems,
                               metrics=metrics, metric_units=units, **changes)


def implausible_note(x: Implausible) -> Note:
    """The reason of ``x`` as a :class:`~kernelscope.notes.Note` (template ``labels.toml`` ``[note]`` ``x.reason``):
    values ``metric``, ``value``, ``u`` (its unit), ``limit`` and ``rate`` in ``x``'s unit, and ``gbps`` /
    ``peak_gbps`` (GB/s), ``tflops`` / ``peak_tflops`` (TFLOP/s), ``mhz`` (MHz), ``mb`` (bytes in MB), ``mib`` (in
    MiB, as worded), ``times`` (a percentage above 100 as a multiple of the peak) where they apply."""
    values: dict[str, Any] = {"metric": x.metric, "value": x.value, "u": x.unit, "limit": x.limit, "rate": x.rate}
    if x.rate is not None and x.limit is not None:
        values.update(gbps=x.rate / 1e9, peak_gbps=x.limit / 1e9, tflops=x.rate / 1e12, peak_tflops=x.limit / 1e12)
    if x.reason == "implausible_clock":
        values["mhz"] = x.value / 1e6
    if x.reason == "implausible_pct":  # above 100 %: worded as a multiple of the peak ("1.44x its peak")
        values["times"] = x.value / 100.0
    if x.unit == "byte":
        values["mb"] = x.value / 1e6
        values["mib"] = x.value / 2.0**20  # "64 MiB", binary as every byte size a report shows (never "67.1 MB")
    return Note(x.reason, values)


def implausible_text(x: Implausible, lang: str = "en") -> str:
    """The reason of ``x`` worded in ``lang`` (the English one is the ``problems`` line)."""
    note = implausible_note(x)
    return note_text(note.key, note.values, lang)

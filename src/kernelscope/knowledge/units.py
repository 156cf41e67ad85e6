"""The hardware units behind the Speed-of-Light throughputs (``data/units.toml``): which unit each breakdown
sub-metric measures, on which side (compute / memory), what a limit there means, and its name in en / zh."""

from __future__ import annotations

import re
from functools import cache
from typing import Literal

from . import Model, NonEmpty, check_lang, load

#: String metrics in which a report lists the sub-metrics of its two Speed-of-Light throughputs.
BREAKDOWNS = {
    "compute": "breakdown:sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "memory": "breakdown:gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
}


class Unit(Model, kw_only=True):
    """One hardware unit on one side (see the header of ``data/units.toml``)."""

    id: NonEmpty
    side: Literal["compute", "memory"]
    kind: Literal["math", "memory_instructions", "issue", "control", "l1", "shared", "l2", "dram", "interconnect"]
    en: NonEmpty
    zh: NonEmpty
    metrics: tuple[str, ...]

    def name(self, lang: str) -> str:
        """The unit's name in ``lang``."""
        return self.zh if check_lang(lang) == "zh" else self.en


class FmaSplit(Model, kw_only=True):
    """The FMA pipe as FMAheavy (FP32 and integer multiply-add) beside FMAlite (FP32 only): the compute capabilities
    ("M.m") where it is, and the metrics of the logical pipe and of the heavy one (``data/units.toml``
    ``[fma_split]``, with its sources)."""

    compute_capabilities: tuple[str, ...]
    logical: NonEmpty
    heavy: NonEmpty


class _UnitsFile(Model, kw_only=True):
    unit: tuple[Unit, ...]
    fma_split: FmaSplit


@cache
def by_metric() -> dict[str, Unit]:
    """Breakdown sub-metric -> the unit it measures."""
    return {m: u for u in load("units.toml", _UnitsFile).unit for m in u.metrics}


#: Memory-side counters by the prefix of their unit, for a sub-metric this file does not list (the whole L1/TEX
#: throughput ``l1tex__throughput``, a newer Nsight Compute's breakdown).
MEMORY_PREFIXES = {"l1tex__": "l1", "lts__": "l2", "dram__": "dram"}


def unit_of(metric: str, side: str) -> Unit | None:
    """The unit a breakdown sub-metric is shown as: its entry here, else that of the same counter without a version
    suffix (``sm__pipe_tensor_cycles_active_v2``), else (memory side) the unit of its prefix
    (:data:`MEMORY_PREFIXES`); None when none names one. For naming only: the analysis keeps such a sub-metric
    apart (``UnitLoad.unit`` None), as its thresholds were set without it."""
    known = by_metric()
    u = known.get(metric) or known.get(re.sub(r"_v\d+(?=\.)", "", metric))
    if u is not None or side != "memory":
        return u
    prefix = next((p for p in MEMORY_PREFIXES if metric.startswith(p)), None)
    return None if prefix is None else unit(MEMORY_PREFIXES[prefix])


@cache
def fma_split() -> FmaSplit:
    """Where and by which metrics the FMA pipe is two physical pipes (:class:`FmaSplit`)."""
    return load("units.toml", _UnitsFile).fma_split


@cache
def unit(unit_id: str) -> Unit:
    """A unit by id (the first entry with that id). Raises KeyError for an unknown id."""
    for u in load("units.toml", _UnitsFile).unit:
        if u.id == unit_id:
            return u
    raise KeyError(unit_id)


#: A unit name's gloss in brackets: "FMA pipe (FP32 and integer multiply-add)", "加载/存储（LSU）管线".
_GLOSS = re.compile(r" ?\([^()]*\)|（[^（）]*）")


@cache
def glossed_names(lang: str) -> tuple[tuple[str, str], ...]:
    """(the unit's name, the name without its bracketed gloss) of each unit whose name glosses itself
    (``FMA 管线（FP32 与整数乘加）`` -> ``FMA 管线``; ``load/store (LSU) pipe`` -> ``load/store pipe``), longest first:
    a block of text glosses a unit once (render/rows.py ``gloss_once``)."""
    names = {u.name(lang) for u in load("units.toml", _UnitsFile).unit}
    pairs = {(n, re.sub(r"\s+", " ", _GLOSS.sub("", n)).strip()) for n in names if _GLOSS.search(n)}
    return tuple(sorted(pairs, key=lambda p: -len(p[0])))


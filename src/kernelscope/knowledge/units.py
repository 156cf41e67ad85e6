"""The hardware units behind the Speed-of-Light throughputs (``data/units.toml``): which unit each breakdown
sub-metric measures, on which side (compute / memory), what a limit there means, and its name in en / zh."""

from __future__ import annotations

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


class _UnitsFile(Model, kw_only=True):
    unit: tuple[Unit, ...]


@cache
def by_metric() -> dict[str, Unit]:
    """Breakdown sub-metric -> the unit it measures."""
    return {m: u for u in load("units.toml", _UnitsFile).unit for m in u.metrics}


@cache
def unit(unit_id: str) -> Unit:
    """A unit by id (the first entry with that id). Raises KeyError for an unknown id."""
    for u in load("units.toml", _UnitsFile).unit:
        if u.id == unit_id:
            return u
    raise KeyError(unit_id)

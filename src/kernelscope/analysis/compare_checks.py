"""What makes two compared profiles less than like for like: a different measurement method (tool, replay, cache or
clock settings: :func:`method_warnings`) and different clocks actually measured (:func:`clock_change`). Pure, no I/O.

Clock normalisation: a launch's SM cycles are its duration x its measured SM clock
(``smsp__cycles_elapsed.avg.per_second``, :attr:`kernelscope.model.KernelProfile.sm_frequency_hz`), so
``cycles before / cycles after`` is the speedup with the SM clock difference taken out (exact for a kernel whose
time scales with the SM clock; a DRAM-bound kernel's time follows the memory clock,
``dram__cycles_elapsed.avg.per_second``, which is shown beside it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable

from ..model import KernelProfile, Measurement
from ..notes import Listed, Note

#: The :class:`kernelscope.model.Measurement` fields the method warning compares.
METHOD_FIELDS = ("tool", "replay_mode", "cache_control", "clock_control")

#: Relative difference of two measured clocks (SM or memory) above which they are warned about (a fraction): the
#: run-to-run drift of a locked clock is well below 1 %.
CLOCK_TOLERANCE = 0.02

_MEM_CLOCK = "dram__cycles_elapsed.avg.per_second"


def method_warnings(before: Measurement | None, after: Measurement | None) -> tuple[Note, ...]:
    """``cmp_method`` (with each side's tool and settings, ``before_<field>`` / ``after_<field>``, and the fields
    that differ, ``differ``) when the two sides measured differently: different tools, or a setting both record
    with different values; empty when they agree or a side's method is not recorded."""
    if before is None or after is None:
        return ()
    differ = [name for name in METHOD_FIELDS
              if getattr(before, name) is not None and getattr(after, name) is not None
              and getattr(before, name) != getattr(after, name)]
    if not differ:
        return ()
    values = {f"{side}_{name}": getattr(m, name) for side, m in (("before", before), ("after", after))
              for name in METHOD_FIELDS}
    return (Note("cmp_method", {**values, "differ": Listed(differ)}),)


@dataclass(frozen=True)
class Clocks:
    """The clocks one side ran at, time-weighted over its launches, and its SM cycles.

    Attributes:
        sm_hz: SM clock (Hz), the launches' ``sm_frequency_hz`` weighted by their time; None when none records it.
        mem_hz: memory (DRAM) clock (Hz), ``dram__cycles_elapsed.avg.per_second`` weighted likewise, or None.
        time_s: the time of the launches the SM clock was read from (s).
        cycles: SM cycles of those launches: sum of duration x launches x SM clock (cycles).
    """

    sm_hz: float | None
    mem_hz: float | None
    time_s: float
    cycles: float


def side_clocks(kernels: Iterable[tuple[KernelProfile, float]]) -> Clocks:
    """The :class:`Clocks` of ``(kernel, time in s)`` items (the time a launch, or a set of them, stands for)."""
    sm = mem = t_sm = t_mem = 0.0
    for k, t in kernels:
        if not (t > 0 and math.isfinite(t)):
            continue
        f = k.sm_frequency_hz
        if f is not None and math.isfinite(f) and f > 0:
            sm += f * t
            t_sm += t
        m = k.metrics.get(_MEM_CLOCK) if k.metrics else None
        if m is not None and math.isfinite(m) and m > 0:
            mem += m * t
            t_mem += t
    return Clocks(sm / t_sm if t_sm else None, mem / t_mem if t_mem else None, t_sm, sm)


@dataclass(frozen=True)
class ClockChange:
    """The clocks of the two sides of a comparison (a pair's representatives, or all kernels of each profile).

    Attributes:
        before / after: each side's :class:`Clocks`.
    """

    before: Clocks
    after: Clocks

    @property
    def sm_differs(self) -> bool:
        """Both SM clocks known and more than :data:`CLOCK_TOLERANCE` apart."""
        return _apart(self.before.sm_hz, self.after.sm_hz)

    @property
    def mem_differs(self) -> bool:
        """Both memory clocks known and more than :data:`CLOCK_TOLERANCE` apart."""
        return _apart(self.before.mem_hz, self.after.mem_hz)

    @property
    def differs(self) -> bool:
        """The SM or the memory clocks differ (what the warning is for)."""
        return self.sm_differs or self.mem_differs

    @property
    def time_speedup(self) -> float | None:
        """Time before / time after of the launches the SM clocks were read from (ratio), None without both."""
        b, a = self.before.time_s, self.after.time_s
        return b / a if b > 0 and a > 0 else None

    @property
    def cycle_speedup(self) -> float | None:
        """SM cycles before / SM cycles after: the speedup at equal SM clocks (ratio), None without both."""
        b, a = self.before.cycles, self.after.cycles
        return b / a if b > 0 and a > 0 else None


def _apart(x: float | None, y: float | None) -> bool:
    return x is not None and y is not None and abs(x - y) > CLOCK_TOLERANCE * max(x, y)


def clock_change(before: Iterable[tuple[KernelProfile, float]],
                 after: Iterable[tuple[KernelProfile, float]]) -> ClockChange | None:
    """The :class:`ClockChange` of two sides given as ``(kernel, time in s)`` items; None when a side records no
    clock at all."""
    b, a = side_clocks(before), side_clocks(after)
    if (b.sm_hz is None or a.sm_hz is None) and (b.mem_hz is None or a.mem_hz is None):
        return None
    return ClockChange(b, a)


def clock_warning(change: ClockChange | None) -> tuple[Note, ...]:
    """``cmp_clocks`` when the clocks differ: both SM clocks and both memory clocks (Hz, None where not recorded),
    the time ratio of the kernels the SM clock was read from (``speedup``: time before / time after) and their SM-cycle
    ratio (``cycle_speedup``); empty otherwise."""
    if change is None or not change.differs:
        return ()
    b, a = change.before, change.after
    return (Note("cmp_clocks", {"sm_before_hz": b.sm_hz, "sm_after_hz": a.sm_hz, "mem_before_hz": b.mem_hz,
                                "mem_after_hz": a.mem_hz, "speedup": change.time_speedup,
                                "cycle_speedup": change.cycle_speedup}),)

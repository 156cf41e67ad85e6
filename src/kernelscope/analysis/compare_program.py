"""The program figure of two timelines compared (``kernelscope compare`` of two traces): each side's wall and its
split, and the figure the gate tests: per profiler step when both sides mark steps, else the walls. Pure, no I/O."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from .noise import significance, step_noise


@dataclass(frozen=True)
class ProgramSide:
    """One side's program timeline: its wall time and where it went (seconds).

    Attributes:
        path / format: the input.
        wall_s: program wall time (first to last recorded interval; the slowest rank's), None for ``nsys stats``
            summaries (no intervals).
        kernel_s / memcpy_s / memset_s: GPU time with at least one kernel running / copies and no kernel / memsets
            only (exclusive, summed over the devices of the rank that ends the program); for a summary the plain
            sums of the per-name totals (overlap not known).
        gpu_idle_s: time of the wall with no GPU work at all, None for a summary.
        host_api_s: union of host-side CUDA API time (that rank's), None when not recorded.
        steps_s: the duration of each profiler step (``ProfilerStep#N`` ranges; of the slowest rank where several
            record it), in step order; empty when the trace marks no steps.
    """

    path: str
    format: str
    wall_s: float | None
    kernel_s: float
    memcpy_s: float
    memset_s: float
    gpu_idle_s: float | None
    host_api_s: float | None
    steps_s: tuple[float, ...] = ()


@dataclass(frozen=True)
class ProgramFigure:
    """The program-level figure of two timelines: per profiler step when both mark steps, else the wall.

    Attributes:
        basis: ``"steps"`` (median step time of each side), ``"wall"`` (neither side marks steps: the walls), or
            ``"none"`` (one side marks steps and the other does not, or a wall is unknown: no program figure; raw walls
            of captures holding different numbers of steps are not comparable).
        before_s / after_s: the compared times (s), None for ``"none"``.
        steps_before / steps_after: steps per side (0 when none are marked).
        speedup: before_s / after_s, None for ``"none"``.
        noise / beyond_noise: per step, the step times' relative standard deviation (:func:`significance`); None
            for walls (one sample per side).
    """

    basis: str
    before_s: float | None
    after_s: float | None
    steps_before: int
    steps_after: int
    speedup: float | None
    noise: float | None = None
    beyond_noise: bool | None = None

    def slower_by(self) -> float | None:
        """after / before - 1 (a fraction; > 0 is slower), None without a figure."""
        return None if self.speedup is None else 1.0 / self.speedup - 1.0


def program_figure(programs: tuple[ProgramSide, ProgramSide] | None) -> ProgramFigure | None:
    """The program figure of two timelines (:class:`ProgramFigure`), or None when the sides are not both timelines.
    "3 steps of 11 ms vs 5 steps of 10 ms" is 1.10x faster per step, never the 33 / 50 ms of the walls."""
    if programs is None:
        return None
    b, a = programs
    nb, na = len(b.steps_s), len(a.steps_s)
    if nb and na:
        mb, ma = statistics.median(b.steps_s), statistics.median(a.steps_s)
        speedup = mb / ma if mb > 0 and ma > 0 else None
        noise, beyond = significance(step_noise(b.steps_s), step_noise(a.steps_s),
                                     None if speedup is None else 1.0 / speedup - 1.0)
        return ProgramFigure("steps", mb, ma, nb, na, speedup, noise, beyond)
    if nb or na or not b.wall_s or not a.wall_s:
        return ProgramFigure("none", None, None, nb, na, None)
    return ProgramFigure("wall", b.wall_s, a.wall_s, 0, 0, b.wall_s / a.wall_s)

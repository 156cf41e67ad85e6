"""Compare two datasets of launches (``kernelscope compare DIR_BEFORE DIR_AFTER``): nightly before/after across all
kernels.

Pure functions over the ``launches`` tables of two kernelscope datasets (Arrow tables, or anything whose
``column(name).to_pylist()`` gives a column; reading the Parquet files is the command line's job). Each side's
launches are aggregated per kernel key (demangled name, else name; grid; block): launch count, median and total
``duration_s``. Keys are matched exactly; per matched kernel the speedup is median before / median after; the
overall speedup is of the matched kernels' total time only, with the unmatched kernels' time apart (as
:mod:`kernelscope.analysis.compare`). Kernels left unmatched whose names differ only by a generated ordinal or hash
pair as in :mod:`kernelscope.analysis.compare` (same grid and block, nearest median); the gate follows the same noise
rule (:func:`kernelscope.analysis.noise.significance`) and gates unmatched time the same way.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Any

from .noise import significance, weighted_noise
from ..knowledge.names import generated_pairs

#: (kernel name, grid, block): grid and block as (x, y, z) tuples, or None when not recorded.
Key = tuple[str, tuple[int, ...] | None, tuple[int, ...] | None]


@dataclass(frozen=True)
class KernelAggregate:
    """One kernel key's launches on one side: count, median and total duration (s; None / 0 when none measured), and
    the run-to-run noise (sample standard deviation / mean of the durations, a fraction; None with fewer than two)."""

    count: int
    median_s: float | None
    total_s: float
    noise: float | None = None


@dataclass(frozen=True)
class DatasetKernel:
    """One matched kernel: its key, both sides, and speedup = median before / median after (None when unknown);
    ``after_name`` the AFTER name when it was paired by generated name (else None)."""

    name: str
    grid: tuple[int, ...] | None
    block: tuple[int, ...] | None
    before: KernelAggregate
    after: KernelAggregate
    after_name: str | None = None

    @property
    def significance(self) -> tuple[float | None, bool | None]:
        """``(noise, beyond)`` of the change of the medians (:func:`kernelscope.analysis.noise.significance`)."""
        return significance(self.before.noise, self.after.noise, self.slower_by())

    @property
    def speedup(self) -> float | None:
        b, a = self.before.median_s, self.after.median_s
        if b is None or a is None or a <= 0 or b <= 0:
            return None
        return b / a

    def slower_by(self) -> float | None:
        """after / before - 1 of the medians (a fraction; > 0 is slower), None when unknown."""
        s = self.speedup
        return None if s is None else 1.0 / s - 1.0


@dataclass(frozen=True)
class DatasetComparison:
    """Two datasets compared kernel by kernel (matched kernels most regressed first, then by before time); the
    unmatched kernels, each side's (key, aggregate), apart."""

    kernels: tuple[DatasetKernel, ...]
    unmatched_before: tuple[tuple[Key, KernelAggregate], ...]
    unmatched_after: tuple[tuple[Key, KernelAggregate], ...]
    launches_before: int
    launches_after: int

    @property
    def unmatched_before_s(self) -> float:
        return math.fsum(x.total_s for _, x in self.unmatched_before)

    @property
    def unmatched_after_s(self) -> float:
        return math.fsum(x.total_s for _, x in self.unmatched_after)

    @property
    def matched_before_s(self) -> float:
        return math.fsum(k.before.total_s for k in self.kernels)

    @property
    def matched_after_s(self) -> float:
        return math.fsum(k.after.total_s for k in self.kernels)

    @property
    def speedup(self) -> float | None:
        """Matched kernels' total time before / after (None when either is 0)."""
        b, a = self.matched_before_s, self.matched_after_s
        return b / a if a > 0 and b > 0 else None

    @property
    def total_before_s(self) -> float:
        return self.matched_before_s + self.unmatched_before_s

    @property
    def total_after_s(self) -> float:
        return self.matched_after_s + self.unmatched_after_s

    @property
    def noise(self) -> tuple[float | None, bool | None]:
        """``(noise, beyond)`` of the matched total: each side's :func:`kernelscope.analysis.noise.weighted_noise`."""
        s = self.speedup
        return significance(weighted_noise([(k.before.noise, k.before.total_s) for k in self.kernels]),
                            weighted_noise([(k.after.noise, k.after.total_s) for k in self.kernels]),
                            None if s is None else 1.0 / s - 1.0)

    @property
    def unmatched_growth(self) -> float | None:
        """(after-only - before-only time) / the BEFORE total (a fraction), None when BEFORE has no time."""
        total = self.total_before_s
        return (self.unmatched_after_s - self.unmatched_before_s) / total if total > 0 else None

    def regressions(self, threshold: float) -> tuple[str, ...]:
        """What the gate fails on at ``threshold`` (a fraction, 0.05 = 5 %), each slower by more than it and not
        within the run-to-run noise: kernels (``name [grid .. block ..]``), ``"total"`` for the matched kernels
        together, ``"unmatched"`` when after-only time grew by more than the threshold of the BEFORE total."""
        out = [key_text((k.name, k.grid, k.block)) for k in self.kernels
               if (s := k.slower_by()) is not None and s > threshold and k.significance[1] is not False]
        if self.speedup is not None and 1.0 / self.speedup - 1.0 > threshold and self.noise[1] is not False:
            out.append("total")
        growth = self.unmatched_growth
        if growth is not None and growth > threshold and self.unmatched_after:
            out.append("unmatched")
        return tuple(out)


def _generated_pairs(left_b: dict[Key, KernelAggregate], left_a: dict[Key, KernelAggregate]) -> list[DatasetKernel]:
    """Pair (and remove from ``left_b`` / ``left_a``) keys whose names differ only by a generated suffix, with the
    same grid and block, nearest medians first."""
    kb, ka = list(left_b.items()), list(left_a.items())
    out = []
    for i, j in generated_pairs(kb, ka, lambda x: x[0][0], lambda x: (x[0][1], x[0][2]), lambda x: x[1].median_s):
        (key_b, xb), (key_a, xa) = kb[i], ka[j]
        del left_b[key_b], left_a[key_a]
        out.append(DatasetKernel(key_b[0], key_b[1], key_b[2], xb, xa, after_name=key_a[0]))
    return out


def key_text(key: Key) -> str:
    """``name [grid GxGxG block BxBxB]`` (the launch shape only where recorded)."""
    name, grid, block = key
    shape = " ".join(f"{w} {'x'.join(str(v) for v in d)}" for w, d in (("grid", grid), ("block", block)) if d)
    return f"{name} [{shape}]" if shape else name


def _dims(value: Any) -> tuple[int, ...] | None:
    return None if value is None else tuple(int(v) for v in value)


def aggregate(table: Any) -> dict[Key, KernelAggregate]:
    """Per kernel key (demangled name, else name; grid; block) of a ``launches`` table: count, median and total
    ``duration_s`` (null durations count as launches but not in the median or total). First appearance order."""
    names = table.column("name").to_pylist()
    demangled = table.column("demangled_name").to_pylist() if "demangled_name" in table.column_names else [None] * len(names)
    grids = table.column("grid").to_pylist()
    blocks = table.column("block").to_pylist()
    durations = table.column("duration_s").to_pylist()
    groups: dict[Key, list[float | None]] = {}
    for name, dem, grid, block, d in zip(names, demangled, grids, blocks, durations):
        key = (dem or name or "?", _dims(grid), _dims(block))
        groups.setdefault(key, []).append(d if d is None or math.isfinite(d) else None)
    out = {}
    for key, values in groups.items():
        measured = [v for v in values if v is not None]
        mean = statistics.fmean(measured) if len(measured) >= 2 else 0.0
        out[key] = KernelAggregate(count=len(values), median_s=statistics.median(measured) if measured else None,
                                   total_s=math.fsum(measured),
                                   noise=statistics.stdev(measured) / mean if mean > 0 else None)
    return out


def compare_datasets(before: Any, after: Any) -> DatasetComparison:
    """Compare the ``launches`` tables of two datasets (see the module docstring)."""
    b, a = aggregate(before), aggregate(after)
    kernels = [DatasetKernel(k[0], k[1], k[2], b[k], a[k]) for k in b if k in a]
    left_b = {k: x for k, x in b.items() if k not in a}
    left_a = {k: x for k, x in a.items() if k not in b}
    kernels += _generated_pairs(left_b, left_a)
    kernels.sort(key=lambda k: (-(k.slower_by() or -math.inf), -k.before.total_s))
    return DatasetComparison(
        kernels=tuple(kernels), unmatched_before=tuple(left_b.items()), unmatched_after=tuple(left_a.items()),
        launches_before=sum(x.count for x in b.values()), launches_after=sum(x.count for x in a.values()),
    )

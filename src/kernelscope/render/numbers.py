"""Numbers as a reader of a report expects them (the rules :class:`kernelscope.render.common.Fmt` words them by):
durations by magnitude, each in its own unit at four significant digits and one text wherever it is shown; sibling
counts and percentages in one precision; byte sizes binary, rates in three digits. Pure functions of the values
and the language's words; no I/O."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from ..knowledge.counts import PREFIXES, counts

#: The one mark of a table cell with no value, in every table and both languages (never "–" in one and "-" in
#: another).
NO_VALUE = "-"
#: Binary byte units, largest first (bytes per unit): every byte size a report shows (data moved, shared memory,
#: caches) is in these, one rule for every command and both languages; bandwidths (GB/s) stay decimal SI.
BYTE_SCALES = ((2.0**40, "TiB"), (2.0**30, "GiB"), (2.0**20, "MiB"), (2.0**10, "KiB"))
#: Duration units, largest first (seconds per unit).
TIME_SCALES = ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns"))
#: The durations of a note that are one quantity before and after a change (``{base_s} -> {after_s}``): worded
#: together by :meth:`Fmt.words`; every other duration of a note is worded alone.
SIBLING_DURATIONS = (("before_s", "after_s"), ("base_s", "after_s"), ("lane_base_s", "lane_after_s"),
                     ("unfused_s", "fused_s"), ("replay_s", "loop_s"), ("t_few_s", "t_many_s"))


def durations(seconds: tuple[float | None, ...], nm: str, below: str = "", stamp_s: float | None = None) -> list[str]:
    """Durations (seconds) as :meth:`Fmt.times` names them: units by magnitude, each value in its own natural unit
    (the one that puts it in [1, 1000): ``2.621 ms``, never ``2621 µs``; ``302 µs``, never ``0.302 ms``, also
    beside ``1.472 ms``), four significant digits in every unit, trailing zeros kept (``5.400 ms``, ``185.0 µs /
    13.37 µs / 5.383 µs``), and no decimal below the source's resolution: a whole-µs value (a Kineto trace's
    stamps) prints no decimal in µs (``8 µs``, ``190 µs``, never ``8.0 µs`` or ``0.190 ms``) but keeps its real
    zeros above it (``5400 µs`` is ``5.400 ms``); a whole-ns one no decimal in ns (``580 ns``). A value reads the
    same beside others as alone (``500 µs`` in a table and in the prose, never ``0.50 ms`` beside ``500 µs``; a
    mean ``82.69 µs`` in both): a group only tells the source's resolution where it is not known (``stamp_s``), the
    resolution its values tell (:func:`_step`: ``374.0 µs -> 280.2 µs`` of a whole-ns source, never ``374 µs``). Nothing at all is a bare ``0``. ``nm``: the language's "not measured" (for
    None); ``below``: unused (kept for callers: no value is below its own unit's resolution); ``stamp_s``: the
    source's resolution where known (:data:`kernelscope.render.common.NCU_STAMP_S`)."""
    step = stamp_s or _step(seconds)
    return [nm if s is None else (ZERO if not s else _duration(s, step)) for s in seconds]


def _step(seconds: tuple[float | None, ...]) -> float | None:
    """The source resolution (s) ``seconds`` tell: one µs where two or more of them (or all) are whole µs (a Kineto
    trace's stamps, beside their mean), else one ns where all are whole ns (ncu, nsys); None where they are finer
    (a mean, a model's estimate)."""
    real = [abs(s) for s in seconds if s]
    whole_us = sum(1 for s in real if _exact(s / 1e-6, 0))
    if real and (whole_us >= 2 or whole_us == len(real)):
        return 1e-6
    return 1e-9 if all(_exact(s / 1e-9, 0) for s in real) else None


def _duration(s: float, step: float | None) -> str:
    """One non-zero duration ``s`` (seconds) in its natural unit (:func:`durations`), ``step``: its source's
    resolution (s), None where unknown."""
    top = float(f"{abs(s):.4g}")  # (999.96 µs is 1.000 ms)
    scale, unit = next(((k, u) for k, u in TIME_SCALES if top >= k), TIME_SCALES[-1])
    x = s / scale
    digits = _four(x)
    for res in (step,) if step else (1e-6, 1e-9):  # the source's, else the value's own (a mean: none)
        if _exact(s / res, 0):  # a whole multiple: zeros kept, no decimal below it
            digits = min(digits, max(round(math.log10(scale / res)), 0))
            break
    return f"{x:.{digits}f} {unit}"


def _exact(x: float, d: int) -> bool:
    """Whether ``x`` is exact at ``d`` decimals (durations from whole-ns / whole-µs stamps)."""
    return abs(x * 10 ** d - round(x * 10 ** d)) < 1e-6 * max(1.0, abs(x) * 10 ** d)


#: The durations of a note that are a set threshold (a rule's limit), not a measurement: worded by
#: :func:`set_value` (``超过 1 ms``, never ``超过 1.000 ms``).
THRESHOLDS = frozenset(("limit_s",))


def set_value(text: str) -> str:
    """A worded threshold (a number the rule chose, not a measurement) without the zero decimals a measured value
    keeps: ``1.000 ms`` is ``1 ms``, ``2.50 µs`` is ``2.5 µs``."""
    return re.sub(r"(\d)\.(\d*?)0+(?=\D|$)", lambda m: m.group(1) + ("." + m.group(2) if m.group(2) else ""), text,
                  count=1)


def _four(x: float) -> int:
    """The decimals that show ``x`` in four significant digits (none from 1000 on)."""
    return max(3 - int(math.floor(math.log10(abs(float(f"{x:.4g}")) + 1e-12))), 0)


#: A duration, saving or size of nothing at all: a bare ``0``, never ``0 s`` or ``0.000 µs``.
ZERO = "0"


def alike(values: Sequence[float], unit: str, digits: int = 4, binary: bool = False) -> str:
    """Values of one row in one scale and one precision, the unit once: ``152.0 / 152.6 / 153.2 µs``,
    ``2.19 / 2.20 / 2.21 TFLOP/s`` (``unit``: ``"s"`` scales as a duration, another SI unit by its prefixes;
    ``binary``: bytes by KiB / MiB / GiB, never ``kB`` / ``MB``); the largest value keeps ``digits`` significant
    digits."""
    top = max(abs(v) for v in values)
    if unit == "s":
        scale, name = next(((k, u) for k, u in TIME_SCALES if top >= k), TIME_SCALES[-1])
    elif binary:
        scale, name = next(((k, u) for k, u in BYTE_SCALES if top >= k), (1.0, "B"))
    else:
        k, p = next(((k, p) for k, p in PREFIXES if top >= k), (1.0, ""))
        scale, name = k, p + unit
    scaled = [v / scale for v in values]
    big = max(abs(v) for v in scaled)
    decimals = max(digits - 1 - (int(math.floor(math.log10(big))) if big > 0 else 0), 0)
    return " / ".join(f"{v:.{decimals}f}" for v in scaled) + (f" {name}" if name else "")


def negligible_gain(value: float | None) -> bool:
    """Whether a speedup prints as 1.00x at two decimals (no gain worth stating: "negligible", never "1.00x"); False
    for None or a non-finite value."""
    return value is not None and math.isfinite(value) and abs(value - 1.0) < 0.005


def factor(value: float | None, digits: int = 2, whole: bool = False) -> str:
    """A speedup or ratio: ``"1.67x"``, ``"∞"`` when unbounded (an item that disappears), ``"-"`` when unknown; from
    100 on without decimals (``"668x"``: three significant digits are all a factor that large carries); with
    ``whole`` (a bound that is a count: n kernels fused into one) a whole one too (``"16x"``, never ``"16.00x"``: its
    zeros are no measured digits). A measured ratio keeps its decimals (``1.00x`` beside ``3.41x`` in a column)."""
    if value is None or math.isnan(value):
        return "-"
    if math.isinf(value):
        return "∞"
    if abs(value) >= 99.995 or whole and abs(value - round(value)) < 1e-9:  # 668x, not 667.67x; a bound 16x
        return f"{value:.0f}x"
    return f"{value:.{digits}f}x"  # (no fake digits)


def cuda_versions(text: str) -> str:
    """A trace's "CUDA runtime 12090, CUDA driver 13000" (CUDA's encoding: 1000 x major + 10 x minor) as a reader
    knows the versions: "CUDA runtime 12.9, CUDA driver 13.0"; other text unchanged."""
    return re.sub(r"\b(CUDA (?:runtime|driver)) (\d{4,6})\b",
                  lambda m: f"{m.group(1)} {int(m.group(2)) // 1000}.{int(m.group(2)) % 1000 // 10}", text)


def data_size(n: float, digits: int = 3) -> str:
    """A byte count (bytes) in the binary unit that keeps it at or above 1: ``13.3 KiB``, ``530 MiB``, ``512 B``,
    ``digits`` significant digits (whole bytes below 1 KiB). Never decimal ``kB``/``MB`` (those are not the
    shared-memory and cache sizes' KiB that occupancy and the hardware tables use)."""
    if math.isinf(n):
        return "∞ B"
    scale, unit = next(((s, u) for s, u in BYTE_SCALES if abs(n) >= s), (1.0, "B"))
    if scale == 1.0:
        return f"{n:.0f} B" if n == int(n) else f"{n:.{digits}g} B"
    text = f"{n / scale:.{digits}g}"
    if "e" in text:  # (1023.9 KiB at 3 digits is "1.02e+03"): the next unit up
        text = f"{n / scale / 1024:.{digits}g}"
        unit = {"KiB": "MiB", "MiB": "GiB", "GiB": "TiB"}.get(unit, unit)
    return f"{text} {unit}"


def peak_figure(value: float) -> str:
    """A catalogue peak (in the unit of its column: GB/s, TFLOP/s) in the one precision of its column: three
    significant digits, trailing zeros kept (``1.46``, ``0.367``, ``5.20``, ``14.0``), a value of 100 or more
    whole (``125``, ``1979``, never ``1.98e+03``); never ``1.456`` above ``5.2`` in one column."""
    if abs(value) >= 99.95:
        return f"{value:.0f}"
    return f"{value:#.3g}".rstrip(".")


def rate(value: float, unit: str = "B/s") -> str:
    """A measured rate (bandwidth: decimal SI, as NVIDIA prints it) in its natural prefix, in the one precision of
    every rate a report shows, the catalogue peaks' (:func:`peak_figure`): three significant digits, trailing zeros
    kept, whole from 100 on (``4.01 GB/s``, ``36.2 GB/s``, ``362 GB/s``, ``5019 GB/s``; never ``4.011 GB/s``)."""
    if math.isinf(value):
        return f"∞ {unit}"
    scale, prefix = next(((k, p) for k, p in PREFIXES if abs(value) >= k), (1.0, ""))
    return f"{peak_figure(value / scale)} {prefix}{unit}"


#: A table cell that is a percentage (``50%``, ``+123.4%（掉队）``): sign and whole part, decimals, the rest.
_PCT_CELL = re.compile(r"^([+-]?\d+)(\.\d+)?%(.*)$", re.S)


def percent_column(cells: Sequence[str]) -> list[str]:
    """The cells of one table column with their percentages in one precision: where one shows decimals, a whole one
    shows as many zeros (``50.0%`` beside ``33.3%``, never ``50%``; ``+0.0%`` beside ``+123.4%``); other cells (a
    name, "< 0.1%", "-") unchanged."""
    found = [_PCT_CELL.match(c) if isinstance(c, str) else None for c in cells]
    digits = max((len(m.group(2)) - 1 for m in found if m and m.group(2)), default=0)
    if not digits:
        return list(cells)
    return [f"{m.group(1)}.{'0' * digits}%{m.group(3)}" if m and not m.group(2) else c for c, m in zip(cells, found)]


def percent_columns(rows: Sequence[Sequence[str]]) -> list[list[str]]:
    """``rows`` of a table with each column's percentages in one precision (:func:`percent_column`)."""
    if not rows:
        return [list(r) for r in rows]
    width = max(len(r) for r in rows)
    columns = [percent_column([r[i] if i < len(r) else "" for r in rows]) for i in range(width)]
    return [[columns[i][j] for i in range(len(r))] for j, r in enumerate(rows)]

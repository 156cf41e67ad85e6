"""One-off CUDA API costs in ``nsys stats`` summaries: the call that created the CUDA context (the first
``cudaMalloc`` / ``cudaFree`` ... of the process) and once-per-process calls (module loading such as
``cuModuleGetLoadingMode``), told apart from the per-call costs so that a 100 ms context creation is neither
ranked as the program's costliest API nor given per-call advice (case N05: ``cudaMalloc`` 3 calls, 106.9 ms in
all, of which one call of 106.9 ms; the other 2 take 11,281 ns together).

The rule is data (``timeline_rules.toml`` ``[one_off_calls]``, with its source): every call of an API matching
``once_regex`` is one-off; for an API matching ``first_call_regex``, its longest call is one-off when it took at
least ``min_ratio_to_median`` times the API's median call (without a printed median: the mean of its other calls).
The remaining calls stay in the per-call ranking: count and total without the one-off, mean recomputed, and max /
median / stddev unknown (None: a summary does not give them without the one-off call).
"""

from __future__ import annotations

from dataclasses import replace

from ...knowledge.timeline_checks import OneOffCalls
from ...timeline_model import SummaryRow
from .report import OneOffCall


def split_one_offs(rows: list[SummaryRow], rule: OneOffCalls) -> tuple[list[SummaryRow], tuple[OneOffCall, ...]]:
    """The ``runtime_api`` summary rows without their one-off costs (rows of once-per-process calls dropped, a
    first call taken out of its API's row), and those costs; file order kept. When anything was taken out, every
    row's ``time_pct`` (the file's share, which counted the one-off time) is dropped so that shares are recomputed."""
    once, first = rule.once, rule.first_call
    kept: list[SummaryRow] = []
    found: list[OneOffCall] = []
    for r in rows:
        total, count = r.total_s or 0.0, r.count or 0
        if once.search(r.name) and count > 0:
            found.append(OneOffCall(r.name, "once", count, total, count, 0, 0.0, r.median_s,
                                    _ratio(r.max_s, r.median_s)))
            continue
        typical = _typical(r)
        if (first.search(r.name) and count >= 2 and r.max_s is not None and typical
                and r.max_s >= rule.min_ratio_to_median * typical):
            rest = max(total - r.max_s, 0.0)
            found.append(OneOffCall(r.name, "first_call", 1, r.max_s, count, count - 1, rest, r.median_s,
                                    r.max_s / typical))
            r = replace(r, count=count - 1, total_s=rest, mean_s=rest / (count - 1), max_s=None, median_s=None,
                        stddev_s=None)
        kept.append(r)
    if found:
        kept = [replace(r, time_pct=None) for r in kept]
    return kept, tuple(found)


def _typical(r: SummaryRow) -> float | None:
    """The API's typical call: its printed median, else the mean of its calls other than the longest."""
    if r.median_s is not None:
        return r.median_s
    if r.count and r.count >= 2 and r.total_s is not None and r.max_s is not None:
        return max(r.total_s - r.max_s, 0.0) / (r.count - 1)
    return None


def _ratio(top: float | None, median: float | None) -> float | None:
    return top / median if top is not None and median else None

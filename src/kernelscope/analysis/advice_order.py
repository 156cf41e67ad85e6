"""The advice order of a launch's findings on the performance model (:mod:`.performance`): which finding comes first,
and each one's marginal gain after those above it, so that the gains multiply to what making all of them gives.
Pure functions, no I/O."""

from __future__ import annotations

from typing import Sequence

from .performance import UPPER_BOUND, Change, Units, conservative_value, merged, predict, relieves


#: Tiers of the advice order (:func:`rank_and_share`), first to last. A ``"note"`` is a finding whose own counters
#: show it is no root cause (:attr:`.engine.Finding.low_rank`): listed after every other finding, with its figures.
TIERS = ("relieves_limiter", "limiter", "worthwhile", "unestimated", "negligible", "note")


def rank_and_share(items: Sequence[tuple[object, Change | None, float | None, str | None, str | None]], units: Units,
                   worthwhile: float, measured: Sequence[float | None] | None = None,
                   notes: Sequence[bool] | None = None) -> list[tuple[object, float | None, float | None, str]]:
    """Order a launch's findings for advice and give each its marginal gain.

    Args:
        items: ``(finding, its change or None, its own estimated speedup or None, its kind or None, the unit it names
            as the launch's limiter or None)`` in rule order. A limiter finding (DRAM at its roof, a pipe at its
            limit, memory instructions) has no estimate of its own: its remedy is the only one that relieves that
            unit, and every other change is bounded by it.
        units: the launch's units.
        worthwhile: the smallest conservative value that counts as a gain (``min_worthwhile_speedup``).
        measured: per item, the measured share its evidence covers (:func:`measured_share`), or None: the order of
            the findings without an estimate, largest first (those without a measured share after them, in rule
            order), so that an unsized finding never outranks a measured larger cause. None: rule order.
        notes: per item, True for a low-rank note (its own counters show it is no root cause): tier ``"note"``,
            after every other finding (estimated notes still get their marginal gain after all the others).

    Returns:
        ``(finding, marginal speedup, saved share, tier)`` in advice order (tiers: :data:`TIERS`): the estimated
        findings that relieve a unit some limiter finding names; the limiter findings; the other estimated
        findings worth it (conservative value at least ``worthwhile``); the other findings without an estimate (by their
        measured share, largest first); the negligible ones; the notes. Within the estimated tiers greedy on the model: the next is the one whose
        marginal gain after those already listed (T'(their changes) / T'(theirs and its own), :func:`predict` of
        :func:`merged` changes, never above its own estimate) has the largest conservative value
        (:func:`conservative_value`); ties keep rule order. So the first estimated line is a finding's own estimate,
        the gains multiply to what making all of them gives, and the saved shares (the part of the measured kernel
        time each saves after those above it) add up to what all of them save, at most 1. Marginal and saved share
        are None for a finding without an estimate.
    """
    low = list(notes) if notes is not None else [False] * len(items)
    weight = list(measured) if measured is not None else [None] * len(items)
    limiting = [lim for (_, _, s, _, lim), n in zip(items, low) if s is None and lim and not n]
    pending = [(i, item) for i, item in enumerate(items) if item[2] is not None]
    done: list[Change] = []
    share_before = 1.0
    picked: list[tuple[int, int, object, float, float]] = []  # (tier, order, finding, marginal, saved share)

    def marginal(change: Change | None, own: float) -> float:
        if change is None or change.empty:
            return own
        after = predict(units, merged([*done, change], units)).time_share
        return max(1.0, min(own, share_before / after)) if after > 0 else own

    def tier(i: int, change: Change | None, value: float) -> int:
        if low[i]:
            return 5
        if value < worthwhile:
            return 4
        return 0 if any(relieves(change, lim, units) for lim in limiting) else 2

    while pending:
        scored = []
        for i, (finding, change, own, kind, _) in pending:
            g = marginal(change, own)  # type: ignore[arg-type]
            value = conservative_value(g, kind) or 1.0
            alone = conservative_value(own, kind) or 1.0  # ties (gains that all went to 1.00x) by their own estimate
            scored.append((tier(i, change, value), -value, -alone, i, g, finding, change))
        scored.sort(key=lambda t: t[:4])
        t, _, _, i, g, finding, change = _realized_first(scored, pending, done, units)
        picked.append((t, len(picked), finding, g, share_before * (1.0 - 1.0 / g)))
        if change is not None and not change.empty:
            done.append(change)
        share_before /= g
        pending = [(j, item) for j, item in pending if j != i]
    # without an estimate: by the measured share of their evidence, largest first; unmeasured ones after, rule order
    unestimated = [(5 if low[i] else 1 if lim else 3,
                    (0, -weight[i], i) if weight[i] is not None else (1, 0.0, i), finding, None, None)
                   for i, (finding, _, s, _, lim) in enumerate(items) if s is None]
    estimated = [(t, (-1, 0.0, order), finding, g, saved) for t, order, finding, g, saved in picked]
    ordered = sorted([*estimated, *unestimated], key=lambda x: (x[0], x[1]))
    return [(finding, g, saved, TIERS[t]) for t, _, finding, g, saved in ordered]


def _hides_only(change: Change | None) -> bool:
    """Whether ``change`` only hides waiting (an outcome, "Long Scoreboard hidden"), no work, idle time or warps."""
    return change is not None and change.waiting > 0 and not any(change.work.values()) and not change.idle \
        and change.warps <= 1.0


def _realized_first(scored: list, pending: list, done: list[Change], units: Units) -> tuple:
    """The next finding of :func:`rank_and_share`'s greedy order: the best scored, except that a stall-hiding bound
    (a change that only hides waiting: an outcome no remedy of the report sizes, "Long Scoreboard hidden") gives way
    to a finding of its tier whose change realizes part of it (its gain shrinks after the bound: more warps hide
    the same wait) when listing that finding first is worth at least as much on the pair: its value x the bound's
    value after it, against the bound's value x its value after the bound (:func:`conservative_value`). The concrete
    change then leads and the bound follows with what is left of it (expert review 14: "hide the Long Scoreboard
    wait, at most 2.36x" above "32-thread blocks cap occupancy at 32 of 64 warps: 40 warps give 1.25x", which was
    then called negligible after the bound)."""
    best = scored[0]
    kinds = {i: item[3] for i, item in pending}
    own = {i: item[2] for i, item in pending}
    hide = best[6]
    if kinds[best[3]] != UPPER_BOUND or not _hides_only(hide):
        return best

    def share(*changes: Change) -> float:
        return predict(units, merged([*done, *changes], units)).time_share

    for cand in scored[1:]:
        change = cand[6]
        if cand[0] != best[0] or change is None or change.empty or _hides_only(change):
            continue  # (another hidden stall is no way to hide this one)
        both = share(hide, change)
        if both <= 0:
            continue
        bound_after = max(1.0, min(own[best[3]], share(change) / both))
        cand_after = max(1.0, min(own[cand[3]], share(hide) / both))
        if cand_after >= cand[4] - 1e-9:  # no overlap: it realizes nothing of the bound
            continue
        first_cand = conservative_value(cand[4], kinds[cand[3]]) * conservative_value(bound_after, UPPER_BOUND)
        first_bound = conservative_value(best[4], UPPER_BOUND) * conservative_value(cand_after, kinds[cand[3]])
        if first_cand >= first_bound * (1.0 - 1e-9):
            return cand
    return best

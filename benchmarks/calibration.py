#!/usr/bin/env python3
"""Calibration (a benchmark, not a test): kernelscope's predicted speedups against the measured before/after pairs of
the shared corpus (``benchmarks/calibration_pairs.toml``: every pair and in-report ladder of
``../shared/corpus/README.md``).

Per pair: the change made, the BEFORE launch's findings with estimates (each its own estimate, largest first, "at
most" for an upper bound), the finding whose action is the change and its estimate, the measured speedup (median
BEFORE duration / median AFTER duration), the verdict, and the performance model's post-hoc check (the speedup it
gives for the change of work the two profiles show: :func:`kernelscope.analysis.performance.posthoc`). Then the
summary: of the pairs of one change whose finding has a prediction, the share within 1.5x and within 2x of the
measured speedup; the upper bounds that held; the "wrong direction" pairs (a prediction of 1.2x or more that met a
measured speedup below 1.05x).

    python benchmarks/calibration.py                       # print the table and the summary
    python benchmarks/calibration.py --write docs/calibration.md
    python benchmarks/calibration.py --corpus /path/to/corpus/ncu

``tests/test_calibration.py`` checks that ``docs/calibration.md`` is what this prints.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus" / "ncu"
PAIRS = Path(__file__).with_name("calibration_pairs.toml")
#: Within this factor of the measured speedup a prediction is "close".
CLOSE = 1.05
#: A prediction at least this large that met a measured speedup below NO_GAIN went the wrong way.
CONFIDENT, NO_GAIN = 1.2, 1.05
#: BEFORE and AFTER launches whose SM or DRAM clocks differ by more than the groups' CLOCK_SPREAD (5 %, the closeness
#: a prediction is held to: :func:`kernelscope.analysis.groups.clock_ranges`) measure the clock as much as the change:
#: such a pair is shown, not scored. (readOffset's launches 0 and 1 ran at DRAM clocks of 10.12 and 9.08 GHz: their
#: 1.14x is 1.11x of clock; launches 1 and 2, at one clock, 1.01x.)


@dataclass(frozen=True)
class Pair:
    """One pair of ``calibration_pairs.toml``."""

    id: str
    before: tuple
    after: tuple
    change: str
    finding: tuple[str, ...]
    where: dict
    kind: str


@dataclass(frozen=True)
class Row:
    """One computed row of the table."""

    pair: Pair
    estimates: tuple[tuple[str, float, str], ...]  # (finding id, own estimate, kind) on the BEFORE launch
    matched: str | None  # the finding for the change, when the BEFORE launch has it
    predicted: float | None
    predicted_kind: str | None
    measured: float | None
    posthoc: float | None
    work: tuple[tuple[str, float], ...]  # (unit, after / before work), largest relative change first
    verdict: str
    clocks: tuple = ()  # the ClockRanges of the two launches (kernelscope.analysis.groups.clock_ranges)

    @property
    def scored(self) -> bool:
        """A pair of one or several changes, both sides at the same clocks (within the groups' CLOCK_SPREAD)."""
        return self.pair.kind in ("one change", "several changes") and not self.clocks


def pairs(path: Path = PAIRS) -> list[Pair]:
    """The pairs of the file."""
    raw = tomllib.loads(path.read_text(encoding="utf-8"))["pair"]
    return [Pair(p["id"], tuple(p["before"]), tuple(p.get("after") or p["before"]), p["change"], tuple(p["finding"]),
                 dict(p.get("where", {})), p["kind"]) for p in raw]


@cache
def _diagnosed(path: str):
    from kernelscope import diagnose_file

    return diagnose_file(path).kernels


def _launches(corpus: Path, spec: tuple):
    report, name, *index = spec
    found = [d for d in _diagnosed(str(corpus / report)) if d.kernel.name == name
             and (not index or d.kernel.index == index[0])]
    if not found:
        raise SystemExit(f"calibration: {name} is not in {report}")
    return found


def _median(ds) -> float | None:
    values = [d.kernel.duration_s for d in ds if d.kernel.duration_s]
    return statistics.median(values) if values else None


def _representative(ds):
    med = _median(ds)
    return min(ds, key=lambda d: abs((d.kernel.duration_s or math.inf) - (med or 0.0)))


def compute(pair: Pair, corpus: Path = CORPUS) -> Row:
    """The row of one pair, as the code computes it now."""
    try:
        from kernelscope.analysis.performance import posthoc
    except ImportError:  # a kernelscope before the performance model (to measure the old estimates)
        posthoc = None

    before, after = _launches(corpus, pair.before), _launches(corpus, pair.after)
    rep, rep_after = _representative(before), _representative(after)
    tb, ta = _median(before), _median(after)
    measured = tb / ta if tb and ta else None
    own: dict[str, tuple[float, str]] = {}
    for f in sorted(rep.findings, key=lambda f: -(f.estimated_speedup or 0.0)):
        if f.estimated_speedup is not None:
            own.setdefault(f.id, (f.estimated_speedup, getattr(f, "estimate_kind", None) or "prediction"))
    matched = predicted = kind = None
    for fid in pair.finding:
        hits = [f for f in rep.findings if f.id == fid and all(f.message.values.get(k) == v for k, v in pair.where.items())]
        if hits:
            best = max(hits, key=lambda f: f.estimated_speedup or 0.0)
            matched, predicted, kind = fid, best.estimated_speedup, getattr(best, "estimate_kind", None)
            break
    check = posthoc(rep.units, tb, rep_after.units, ta) if posthoc is not None else None
    work = tuple((w.unit, w.ratio) for w in check.changes[:3]) if check is not None else ()
    row = Row(pair, tuple((i, s, k) for i, (s, k) in own.items()), matched, predicted, kind, measured,
              check.speedup if check is not None else None, work, "", _clocks(rep, rep_after))
    return Row(**{**row.__dict__, "verdict": verdict(row)})


def _clocks(before, after) -> tuple:
    """The clocks of the two launches that differ beyond the groups' CLOCK_SPREAD (none with a kernelscope that does
    not compare them)."""
    try:
        from kernelscope.analysis.groups import clock_ranges
    except ImportError:
        return ()
    return clock_ranges((before, after))


def verdict(row: Row) -> str:
    """The row's verdict in words."""
    p, m, kind = row.predicted, row.measured, row.pair.kind
    clocks = ", ".join(f"{c.clock.upper()} {c.min_hz / 1e9:#.3g}-{c.max_hz / 1e9:#.3g} GHz" for c in row.clocks)
    if kind == "not comparable":
        return "not comparable: the ratio measures something else than the change"
    if kind == "control":
        return "control: nothing the model sizes changed" + (f"; the clocks differ ({clocks})" if clocks else "")
    if clocks:
        estimate = "" if p is None else f"; {'at most ' if row.predicted_kind == 'upper_bound' else ''}{p:.2f}x"
        return f"not scored: the clocks differ ({clocks}), the measured ratio is not the change's alone{estimate}"
    if row.matched is None:
        return "no finding for this change" if not row.pair.finding else "no finding: the cause was not seen or not measured"
    if p is None:
        return "no estimate: the cause is named, not sized"
    if m is None:
        return "not measured"
    ratio = m / p
    several = " (several changes: the finding covers part of them)" if kind == "several changes" else ""
    if row.predicted_kind == "upper_bound":
        held = "bound held" if m <= p * CLOSE else "bound exceeded"
        return f"{held}: at most {p:.2f}x, measured {m:.2f}x{several}"
    if max(ratio, 1 / ratio) <= CLOSE:
        word = "close"
    elif p >= CONFIDENT and m < NO_GAIN:
        word = "wrong direction"
    else:
        word = "under-predicted" if ratio > 1 else "over-predicted"
    within = "within 1.5x" if max(ratio, 1 / ratio) <= 1.5 else "within 2x" if max(ratio, 1 / ratio) <= 2 else "off by more than 2x"
    return f"{word}: {p:.2f}x vs {m:.2f}x, {within}{several}"


def _x(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}x"


def _est(s: float, kind: str) -> str:
    return f"at most {s:.2f}x" if kind == "upper_bound" else f"{s:.2f}x"


def table(rows: list[Row]) -> str:
    """The Markdown table of the rows."""
    out = ["| # | before -> after | change made | kind | findings on BEFORE with estimates | finding for the change "
           "| predicted | measured | post-hoc model | work after / before | verdict |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        p = r.pair
        before = f"`{p.before[0]}`: `{p.before[1]}`" + (f" #{p.before[2]}" if len(p.before) > 2 else "")
        after = f"`{p.after[0]}`: `{p.after[1]}`" + (f" #{p.after[2]}" if len(p.after) > 2 else "") \
            if p.after[0] != p.before[0] else f"`{p.after[1]}`" + (f" #{p.after[2]}" if len(p.after) > 2 else "")
        ests = ", ".join(f"`{i}` {_est(s, k)}" for i, s, k in r.estimates) or "none"
        work = ", ".join(f"{u} {w:.2f}" for u, w in r.work) or "-"
        predicted = "-" if r.predicted is None else _est(r.predicted, r.predicted_kind or "prediction")
        out.append(f"| {p.id} | {before} -> {after} | {p.change} | {p.kind} | {ests} | "
                   f"{'`' + r.matched + '`' if r.matched else 'none'} | {predicted} | {_x(r.measured)} | "
                   f"{_x(r.posthoc)} | {work} | {r.verdict} |")
    return "\n".join(out)


def summary(rows: list[Row]) -> dict:
    """The figures of the summary (see the module docstring)."""
    scored = [r for r in rows if r.scored and r.predicted is not None and r.measured is not None]
    preds = [r for r in scored if r.predicted_kind != "upper_bound"]
    single = [r for r in preds if r.pair.kind == "one change"]

    def within(rs, k):
        return sum(1 for r in rs if max(r.measured / r.predicted, r.predicted / r.measured) <= k)

    bounds = [r for r in scored if r.predicted_kind == "upper_bound"]
    wrong = [r.pair.id for r in scored if r.predicted >= CONFIDENT and r.measured < NO_GAIN and r.pair.kind == "one change"]
    wrong_several = [r.pair.id for r in scored if r.predicted >= CONFIDENT and r.measured < NO_GAIN
                     and r.pair.kind == "several changes"]
    post = [r for r in rows if r.scored and r.posthoc and r.measured]
    return {
        "pairs": len(rows),
        "predictions": len(preds), "single_change_predictions": len(single),
        "within_1_5": within(single, 1.5), "within_2": within(single, 2.0),
        "all_within_1_5": within(preds, 1.5), "all_within_2": within(preds, 2.0),
        "bounds": len(bounds), "bounds_held": sum(1 for r in bounds if r.measured <= r.predicted * CLOSE),
        "wrong_direction": wrong, "wrong_direction_several": wrong_several,
        "posthoc": len(post), "posthoc_within_1_5": within([Row(**{**r.__dict__, "predicted": r.posthoc}) for r in post], 1.5),
        "posthoc_within_2": within([Row(**{**r.__dict__, "predicted": r.posthoc}) for r in post], 2.0),
        "no_finding": [r.pair.id for r in rows if r.pair.finding and r.matched is None and r.scored],
        "clocks_differ": [r.pair.id for r in rows if r.clocks and r.pair.kind in ("one change", "several changes")],
        "no_estimate": [r.pair.id for r in rows if r.matched is not None and r.predicted is None],
    }


def summary_text(s: dict) -> str:
    """The summary in words."""
    wrong = ", ".join(s["wrong_direction"]) or "none"
    return "\n".join([
        f"- Pairs: {s['pairs']}; with a prediction for the change: {s['predictions']} "
        f"({s['single_change_predictions']} of one change).",
        f"- Predictions of one change within 1.5x of the measured speedup: {s['within_1_5']} of "
        f"{s['single_change_predictions']}; within 2x: {s['within_2']} of {s['single_change_predictions']} "
        f"(all predictions, several changes included: {s['all_within_1_5']} and {s['all_within_2']} of "
        f"{s['predictions']}).",
        f"- Upper bounds for the change that held (measured at most the bound, 5 % tolerance): {s['bounds_held']} of "
        f"{s['bounds']}.",
        f"- Wrong direction (a prediction of {CONFIDENT:.1f}x or more, measured below {NO_GAIN:.2f}x): {wrong} among "
        f"the single changes; {', '.join(s['wrong_direction_several']) or 'none'} among the pairs of several changes "
        f"(the finding's change was made together with others that cost more; the post-hoc column shows whether the "
        f"model, given the work the AFTER profile shows, explains the result).",
        f"- Post-hoc model (the speedup it gives for the change of work the two profiles show) within 1.5x: "
        f"{s['posthoc_within_1_5']} of {s['posthoc']}; within 2x: {s['posthoc_within_2']} of {s['posthoc']}.",
        f"- The cause not seen or not measured on BEFORE: {', '.join(s['no_finding']) or 'none'}; named but not "
        f"sized: {', '.join(s['no_estimate']) or 'none'}.",
        f"- Not scored, the two launches' SM or DRAM clocks differing by more than 5 %: "
        f"{', '.join(s['clocks_differ']) or 'none'}.",
    ])


HEADER = """# Calibration: predicted vs measured speedups

kernelscope attaches an estimated speedup to many of its findings ("removing this cause would make the kernel about
1.25x faster"). This page checks those estimates against every before/after pair and in-report ladder of the shared
corpus (`../shared/corpus/README.md`, "Before/after pairs"), misses included. It is generated by
`python benchmarks/calibration.py --write docs/calibration.md` (the pairs: `benchmarks/calibration_pairs.toml`), and
`tests/test_calibration.py` fails when it no longer matches what the code computes.

## How the estimates are made

One performance model sizes every finding (`src/kernelscope/analysis/performance.py`). A launch is its units, each
busy a share of the elapsed time (the Speed-of-Light breakdown's sub-metrics, the shared-memory part of the L1 data
pipe, the busiest instance of each from its `.max` twin, the idle SM time, the stall shares). A finding's remedy is a
change: the fraction of some units' work it removes, the idle SM time it recovers, or the waiting it hides. Then

    T'/T = max(1 - saved, F),   saved = max over units (fraction removed x busy share) + idle recovered + waiting hidden
    F    = the busiest unit after the change (what is left of the relieved units, all of the others)

and the estimated speedup is T / T'. No estimate can exceed 100 / the busiest unrelieved unit %. An estimate is a
**prediction** (a definite change whose work the report counts: pad the array, coalesce the accesses) or an **upper
bound** (an ideal: all idle SM time recovered, a stall hidden completely; printed "at most"). A finding whose gain no
defensible model gives has no estimate (tiling: it depends on the reuse achieved; DRAM at its roof: on the bytes not
moved).

Columns: "findings on BEFORE with estimates" are the BEFORE launch's (the one of median duration), each with its own
estimate, largest first, exactly as `kernelscope compare` lists them under "Estimated from the BEFORE findings".
"Finding for the change" is the finding whose one action is the change that was made; "predicted" is its estimate.
"Measured" is the median BEFORE duration / the median AFTER duration. "Post-hoc model" is the speedup the model gives
for the change of work the two profiles actually show (each unit's busy share x duration, before vs after; "work
after / before" lists the three units whose work changed most), i.e. the model checked without having to guess the
change. Kinds: one change; several changes (the finding covers part of what changed); control (nothing the model
sizes changed); not comparable (the ratio measures something else). A pair whose two launches ran at SM or DRAM
clocks more than 5 % apart (`smsp__cycles_elapsed.avg.per_second`, `dram__cycles_elapsed.avg.per_second`) is shown
but not scored: its measured ratio holds the clock's change too.

## The table

"""


def document(rows: list[Row]) -> str:
    """The whole page."""
    return HEADER + table(rows) + "\n\n## Summary\n\n" + summary_text(summary(rows)) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Print (or ``--write``) the calibration page."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=CORPUS, help="the corpus' ncu/ folder (default: %(default)s)")
    ap.add_argument("--write", type=Path, help="write the page to this file instead of printing it")
    args = ap.parse_args(argv)
    if not args.corpus.is_dir():
        print(f"calibration: the corpus folder {args.corpus} is absent", file=sys.stderr)
        return 2
    rows = [compute(p, args.corpus) for p in pairs()]
    text = document(rows)
    if args.write:
        args.write.write_text(text, encoding="utf-8")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

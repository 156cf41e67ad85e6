"""Rendering of a before/after :class:`kernelscope.analysis.compare.Comparison` as table, Markdown or JSON."""

from __future__ import annotations

import math
import re

from rich import box
from rich.console import Group
from rich.table import Table
from rich.text import Text

from ..analysis.compare import METHOD_FIELDS, Comparison, KernelComparison, Side
from ..analysis.compare_checks import ClockChange, Clocks
from ..analysis.compare_program import ProgramSide
from ..analysis.resolved import Resolution
from ..knowledge.findings import findings
from ..knowledge.text import note_text
from ..model import Measurement
from ..notes import Note
from ..version import __version__
from .brief import top_by
from .rich_text import Heading, md_spaced, to_plain
from .common import Fmt, md_cell, safe, short_name
from .numbers import peak_figure
from .compare_moved import moved_text, said_above
from .inline import md_prose
from .documents import encode
from .documents.common import NoteDoc
from .documents.compare import (
    ClockChangeDoc,
    ClocksDoc,
    CompareDoc,
    ComparedKernelDoc,
    FindingEstimateDoc,
    MethodDoc,
    PostHocDoc,
    PredictionDoc,
    ProgramDoc,
    ProgramFigureDoc,
    ProgramsDoc,
    ResolutionDoc,
    SideDoc,
    StallShiftDoc,
    WorkChangeDoc,
)
from ..analysis.introduced import MODEL_DISAGREES
from .compare_introduced import (estimate_doc, estimates_text, grown_work_doc, introduced_lines, introduction_doc,
                                 launch_change_doc, launch_line, posthoc_order, removed_lines, sized_unchanged)
from .json import finite, notes, null_reasons

SCHEMA = "kernelscope.compare/2"

#: Method values worded by a label ``method_<kind>_<value>`` (others are shown as recorded).
_TOOLS = ("ncu", "nvprof", "nsys", "pytorch")
_WORDED = {"replay": ("kernel", "application", "range", "app-range", "none"), "cache": ("flush-all", "none"),
           "clock": ("base", "none")}

#: Null fields of a compared kernel that are computed from others (JSON Pointer -> note key); other nulls were
#: not recorded in that profile.
_DERIVED_NULLS = {
    f"/{side}/{field}": "not_derivable"
    for side in ("before", "after")
    for field in ("spread_s", "bandwidth_bytes_per_s", "bandwidth_pct_of_peak", "achieved_flops_per_s", "efficiency")
} | {"/speedup": "not_derivable", "/beyond_noise": "not_derivable", "/program_speedup": "not_derivable",
     "/noise": "not_derivable", "/before/noise": "not_derivable", "/after/noise": "not_derivable"}


def _pair_rows(p: KernelComparison, f: Fmt, details: bool = True) -> list[tuple[str, str, str]]:
    """(label, before, after) rows of one compared kernel (without ``details``, those measured on a side)."""
    b, a = p.before, p.after

    def bw(s: Side) -> str:
        if s.bandwidth_bytes_per_s is None:
            return f.nm
        pct = (f.paren(f.label("cmp_bandwidth_pct", pct=f.pct(s.bandwidth_pct_of_peak)))  # which peak: the spec's
               if s.bandwidth_pct_of_peak is not None else "")
        return f"{peak_figure(s.bandwidth_bytes_per_s / 1e9)} GB/s{pct}"  # as every rate (numbers.rate)

    def spread(s: Side) -> str:
        return f.nm if s.spread_s is None else f.span(*f.times(*s.spread_s))

    def achieved(s: Side) -> str:
        if s.achieved_flops_per_s == 0:
            return f.label("no_fp_na")  # no FP instructions: not "0 FLOP/s (not measured)"
        if s.achieved_flops_per_s is None:
            return f.nm
        return f.flops(s.achieved_flops_per_s) + ("" if s.efficiency is None else f.paren(f.share(s.efficiency)))

    dur = f.times(b.duration_s, a.duration_s)  # before and after: each by magnitude, one resolution
    tot = [x for pair in zip(f.times(b.total_s, a.total_s), f.times(b.mean_s, a.mean_s)) for x in pair]  # bt, bm, at, am
    rows = [
        (f.label("duration"), f.spaced(dur[0], f.launches(b.launches)), f.spaced(dur[1], f.launches(a.launches))),
        (f.label("total_mean"), *(tot[i] if n == 1 else f.label("total_mean_value", total=tot[i], mean=tot[i + 1])
                                  for i, n in ((0, b.launches), (2, a.launches)))),  # one launch: no "(mean)"
        (f.label("spread"), spread(b), spread(a)),
        (f.label("bandwidth"), bw(b), bw(a)),
        (f.label("achieved"), achieved(b), achieved(a)),
        (f.label("cmp_sol"), f.sol_values(b.sol_compute_pct, b.sol_memory_pct), f.sol_values(a.sol_compute_pct, a.sol_memory_pct)),
        (f.label("bound"), f.bounds(b.classes), f.bounds(a.classes)),
        (f.label("occupancy_achieved"), f.pct(b.achieved_occupancy_pct), f.pct(a.achieved_occupancy_pct)),
    ]
    if b.launches == a.launches == 1:  # one launch each: the total is the duration above
        rows = [r for r in rows if r[0] != f.label("total_mean")]
    unmeasured = {f.nm, f.sol_values(None, None), f.bounds(())}
    return rows if details else [r for r in rows if not (r[1] in unmeasured and r[2] in unmeasured)]


def _speed(value: float | None, f: Fmt, within: bool = False) -> str:
    """A speedup; one below 1 reads as the regression it is: ``0.95x (5 % slower)``, ``0.95×（变慢，耗时为优化前的
    1.05 倍）``; twice as slow or more as a factor: ``0.02x (55.31x slower)`` (a percentage of thousands reads badly
    in any language: "5430% slower"); ``within`` the run-to-run noise, no change to name: the factor alone."""
    text = f.factor(value)
    if within or value is None or not math.isfinite(value) or not 0 < value < 1:
        return text
    if value <= 0.5:
        return f.label("speed_slower_times", x=text, factor=f.factor(1.0 / value), times=f"{1.0 / value:.2f}")
    pct = 100.0 * (1.0 / value - 1.0)
    return f.label("speed_slower", x=text, pct=f"{pct:.0f}" if pct >= 0.95 else f"{pct:.1g}", times=f"{1.0 / value:.2f}")


def speed_noise(value: float | None, noise: str, f: Fmt, within: bool = False) -> str:
    """"加速比 1.01×（处于 1.6% 的运行间波动之内）"; a slowdown's bracket takes the noise too, one bracket in
    Chinese: "加速比 0.67×（变慢，耗时为优化前的 1.5×；超出 0.5% 的运行间波动）"; ``within`` the noise, never
    "slower": "加速比 0.99×（处于 7.9% 的运行间波动之内）"."""
    speed = f.spaced(f.label("speedup"), _speed(value, f, within))
    if f.zh and speed.endswith("）"):
        return speed[:-1] + f.semi + noise + "）"
    return speed + f.paren(noise)


def noise_text(beyond: bool | None, noise: float | None, f: Fmt, launches: tuple[int, int] | None = None) -> str:
    """"within the run-to-run noise of 7.9%" (and the other cases of :func:`kernelscope.analysis.compare.
    significance`); ``launches``: (before, after) launch counts, named when the noise is unknown because a side has
    fewer than two."""
    if beyond is None:
        if noise is not None:
            return f.label("noise_one_side", noise=f.pct(100.0 * noise))
        if launches is not None and min(launches) < 2:
            return f.label("noise_unknown_counts", nb=launches[0], na=launches[1])
        return f.label("noise_unknown")
    return f.label("beyond_noise" if beyond else "within_noise", noise=f.pct(100.0 * noise))


def _verdict(p: KernelComparison, f: Fmt, said: bool = False) -> str:
    """A pair's heading: its speedup with the run-to-run noise, then its effect on the program; ``said``
    (:func:`said_above`): the factor without the slowdown's words."""
    text = speed_noise(p.speedup, noise_text(p.beyond_noise, p.noise, f, (p.before.launches, p.after.launches)), f,
                       p.beyond_noise is False or said)
    if p.program_speedup is not None:
        text += f.semi + f.spaced(f.label("program_effect"), f.factor(p.program_speedup))
    return text


def _title(p: KernelComparison, f: Fmt | None = None) -> str:
    marker = ("" if f.zh else " ") + f.label("shape_marker") if f is not None and p.shape_differs else ""
    if p.before_name == p.after_name:
        return short_name(p.before_name) + marker
    return f"{short_name(p.before_name)}{f.arrow if f is not None else ' -> '}{short_name(p.after_name)}{marker}"


def _shape_note(p: KernelComparison, f: Fmt) -> str | None:
    """The line under a pair matched by name whose grid or block differ."""
    if not p.shape_differs:
        return None

    def shape(s: Side) -> str:
        def dims(d: tuple[int, int, int] | None) -> str:
            return f.nm if d is None else ("×" if f.zh else "x").join(str(v) for v in d)
        return f.label("shape_text", grid=dims(s.grid), block=dims(s.block))

    return f.label("shape_differs", before=shape(p.before), after=shape(p.after))


def method_text(m: Measurement | None, f: Fmt) -> str:
    """How one side measured, worded: ``Nsight Compute (kernel replay (serialised), caches flushed, clocks locked
    at base)``; settings not recorded are left out."""
    if m is None:
        return f.label("method_unknown")
    tool = f.label(f"method_{m.tool}") if m.tool in _TOOLS else (safe(m.tool) if m.tool else f.label("method_unknown"))
    parts = []
    for kind, value in (("replay", m.replay_mode), ("cache", m.cache_control), ("clock", m.clock_control)):
        if value is not None:
            parts.append(f.label(f"method_{kind}_{value.replace('-', '_')}") if value in _WORDED[kind] else safe(value))
    return tool + f.paren(f.comma.join(parts) or f.label("method_settings_unknown"))


def clock_text(before_hz: float | None, after_hz: float | None, f: Fmt) -> str:
    """"1.53 GHz before, 1.63 GHz after (+6.5%)"; "not measured" alone when a side lacks the clock."""
    if before_hz is None or after_hz is None:
        return f.nm
    change = round(100.0 * (after_hz / before_hz - 1.0), 1) + 0.0  # never "-0.0%"
    return f.label("clock_values", before=f"{peak_figure(before_hz / 1e9)} GHz", after=f"{peak_figure(after_hz / 1e9)} GHz",
                   change=f"{change:+.1f}%")


def _clock_words(values: dict, f: Fmt) -> dict[str, str]:
    """The values of a ``cmp_clocks`` note (or of a pair's clocks) worded: each clock pair, both ratios."""
    return {"sm": clock_text(values.get("sm_before_hz"), values.get("sm_after_hz"), f),
            "mem": clock_text(values.get("mem_before_hz"), values.get("mem_after_hz"), f),
            # ratios of the times: the factor alone (the matched kernels' line says a slowdown in words, once)
            "speedup": f.factor(values.get("speedup")), "cycle_speedup": f.factor(values.get("cycle_speedup"))}


def _pair_clocks(p: KernelComparison, f: Fmt, comparison: Comparison) -> str | None:
    """The line under a pair whose SM or memory clocks differ: both clocks and the SM-cycle ratio beside the time
    ratio; None when they agree or are not recorded, or when the pair is all there is on both sides (the
    ``cmp_clocks`` warning above already says the same)."""
    c = p.clocks
    if c is None or not c.differs:
        return None
    if len(comparison.pairs) == 1 and not comparison.unmatched_before and not comparison.unmatched_after \
            and comparison.clocks is not None and comparison.clocks.differs:
        return None
    values = {"sm_before_hz": c.before.sm_hz, "sm_after_hz": c.after.sm_hz, "mem_before_hz": c.before.mem_hz,
              "mem_after_hz": c.after.mem_hz, "speedup": p.speedup, "cycle_speedup": c.cycle_speedup}
    return f.head(f.label("pair_clocks"), f.label("pair_clocks_value", **_clock_words(values, f)))


def _worded(note: Note, f: Fmt) -> str:
    """A warning in words (``cmp_method`` names each side's method; ``cmp_clocks`` gives both clocks in GHz)."""
    if note.key == "cmp_clocks":
        return safe(note_text(note.key, _clock_words(dict(note.values), f), f.lang))
    if note.key == "cmp_sole_pair":
        return safe(note_text(note.key, {k: short_name(v) for k, v in note.values.items()}, f.lang))
    if note.key != "cmp_method":
        return f.note(note)
    sides = {side: Measurement(**{k: note.values.get(f"{side}_{k}") for k in METHOD_FIELDS}) for side in ("before", "after")}
    return f.note(Note("cmp_method", {side: method_text(m, f) for side, m in sides.items()}))


def names_list(names: tuple[str, ...], f: Fmt, shown: int = 4) -> str:
    """At most ``shown`` names as a list and how many there are in all: ``a, b, ... (11)`` / ``a、b 等 11 个``;
    no name at all is ``-`` / ``无``."""
    if not names:
        return f.label("list_none")
    text = f.listing(short_name(n, 40) for n in names[:shown])
    return text + f.label("list_more", n=len(names)) if len(names) > shown else text


def unmatched_line(before_s: float, before: str | None, after_s: float, after: str | None, f: Fmt) -> str:
    """"Not matched: 28.23 ms before only (a, b); after only: none": each side's unmatched time (s) with its names
    (``before`` / ``after``, None: that side has no unmatched kernel, which reads "none", never a zero duration)."""
    sides = [f.label(f"unmatched_{side}_none") if names is None else f.label(f"unmatched_{side}", time=f.time(s), names=names)
             for side, s, names in (("before", before_s, before), ("after", after_s, after))]
    return f.label("unmatched_time", before=sides[0], after=sides[1])


def _summary(c: Comparison, f: Fmt) -> list[str]:
    lines = [f.head(f.label("warning"), _worded(n, f)) for n in c.warnings]
    if c.total_before_s == 0 and c.total_after_s == 0:
        return lines  # kernels picked inside one report: no program totals
    noise, beyond = c.noise
    matched = f.head(f.label("matched_kernels", n=len(c.pairs)), f.arrow.join(f.times(c.matched_before_s, c.matched_after_s)) + f.semi + speed_noise(c.speedup, noise_text(beyond, noise, f), f, beyond is False))
    every = f.arrow.join(f.times(c.total_before_s, c.total_after_s)) + f.semi + \
        f.spaced(f.label("speedup"), _speed(c.total_speedup, f))
    program = _program_line(c, f)
    if c.headline == "program" and program is not None:  # two timelines: what the program's user waits for leads
        lines.append(program)
    if c.headline == "all":  # the unmatched kernels dominate the time: every kernel's ratio leads
        pb, pa = c.matched_shares
        lines.append(f.head(f.label("all_kernels_headline", pb=_share(pb), pa=_share(pa)), every))
    else:
        lines.append(matched)
    if c.unmatched_before or c.unmatched_after:
        lines.append(unmatched_line(c.unmatched_before_s, names_list(c.unmatched_before, f) if c.unmatched_before else None,
                                    c.unmatched_after_s, names_list(c.unmatched_after, f) if c.unmatched_after else None, f))
        if len(c.unmatched_before) == 1 and len(c.unmatched_after) == 1 and not c.by_hand and all(
                re.fullmatch(r"[\w:]+", n) for n in (c.unmatched_before[0], c.unmatched_after[0])):
            # one kernel left on each side, named as a regular expression reads it: most likely the one renamed
            lines.append(f.label("unmatched_pair_hint", before=c.unmatched_before[0], after=c.unmatched_after[0]))
        lines.append(matched if c.headline == "all" else f.head(f.label("all_kernels"), every))
    if program is not None and c.headline != "program":
        lines.append(program)
    return lines


def _program_line(c: Comparison, f: Fmt) -> str | None:
    """The program figure's line (wall or median step of two timelines), None without one."""
    figure = c.program
    if figure is None:
        return None
    if figure.basis == "none":
        return f.label("program_no_figure", nb=figure.steps_before, na=figure.steps_after)
    head = f.label("program_steps", nb=figure.steps_before, na=figure.steps_after) if figure.basis == "steps" \
        else f.label("program_wall")
    speed = speed_noise(figure.speedup, noise_text(figure.beyond_noise, figure.noise, f), f,
                        figure.beyond_noise is False) \
        if figure.basis == "steps" else f.spaced(f.label("speedup"), _speed(figure.speedup, f))
    return f.head(head, f.arrow.join(f.times(figure.before_s, figure.after_s)) + f.semi + speed)


def _share(fraction: float) -> str:
    """A share of GPU time that stays readable when tiny: "0.0008%", "12%"."""
    pct = 100.0 * fraction
    return "0%" if pct == 0 else f"{pct:.2g}%" if pct < 10 else f"{pct:.0f}%"


def _program_rows(programs: tuple[ProgramSide, ProgramSide], f: Fmt) -> list[tuple[str, str, str, str]]:
    """(label, before, after, change) rows of the two program timelines."""
    rows = []
    for key, attr in (("program_wall", "wall_s"), ("program_kernels", "kernel_s"), ("program_copies", "memcpy_s"),
                      ("program_memsets", "memset_s"), ("program_idle", "gpu_idle_s"), ("program_host_api", "host_api_s")):
        b, a = getattr(programs[0], attr), getattr(programs[1], attr)
        before, after, change = f.times(b, a, None if b is None or a is None else abs(a - b))
        change = change if b is None or a is None or a == b else ("+" if a > b else "-") + change
        rows.append((f.label(key), before, after, change))
    return rows


def _predictions(p: KernelComparison, f: Fmt) -> list[str]:
    """Nsight Compute's rule estimates beside the measured reduction: one line listing the rules that share one
    measured figure (the kernel's: it is the same for every rule), never that figure repeated once per rule."""
    groups: dict[float, list[str]] = {}
    for x in p.predictions[:3]:
        got = round(x.measured_reduction_pct or 0.0, 6)
        groups.setdefault(got, []).append(f.label("predicted_value", rule=f.finding_title(x.rule_id),
                                                  est=x.estimated_speedup_pct))
    return [f.listing(items) + (" " if f.lang == "en" else f.semi) +
            f.label("predicted_measured_slower" if got < 0 else "predicted_measured", got=abs(got))
            for got, items in groups.items()]


def _estimates(p: KernelComparison, f: Fmt) -> str:
    """kernelscope's estimates from the BEFORE findings (its "What to do" lead first) next to the measured speedup
    (:func:`.compare_introduced.estimates_text`)."""
    return estimates_text(p, f, f.factor(p.speedup))  # the measured factor alone: the heading says a slowdown


def _posthoc(p: KernelComparison, f: Fmt) -> str | None:
    """"work after / before: shared memory 0.08, L1/TEX cache 0.14, DRAM 1.00; for that change of work the model
    gives 1.69x; measured 1.33x", or None without a check."""
    check = p.posthoc
    if check is None or check.speedup is None:
        return None
    shown = posthoc_order(p)
    items = f.listing(f"{f.unit(w.unit)} {w.ratio:.2f}" for w in shown if math.isfinite(w.ratio))
    text = f.label("posthoc_items", items=items or f.label("list_none"), model=_speed(check.speedup, f), got=f.factor(p.speedup))
    if p.model_disagrees:
        text += f.semi + f.label("posthoc_disagrees_work" if p.grown_work else "posthoc_disagrees",
                                 factor=f.factor(MODEL_DISAGREES))
    return text


#: The statuses of a followed BEFORE finding that the heading "what the change resolved" can stand over.
RESOLVING = frozenset({"resolved", "reduced", "gone"})


def _resolved(p: KernelComparison, f: Fmt) -> list[str]:
    """One line per followed BEFORE finding: "uncoalesced shared-memory accesses: resolved (16.3 M -> 0 wavefronts);
    BEFORE estimated at most 1.65x", then the measured speedup once."""
    out = []
    for r in p.resolved:
        text = f.label("resolved_item", finding=f.finding_title(r.finding_id), status=f.label(f"status_{r.status}"))
        if r.before_value is not None or r.after_value is not None:
            unit = findings()[r.finding_id].verify_unit
            before, after = f.counts(r.before_value, r.after_value)  # one quantity before -> after: one precision
            measured = f.label(f"resolved_{unit}", before=before, after=after)
            per = findings()[r.finding_id].verify_per_unit
            if r.status == "with_work" and r.before_per_work is not None and r.after_per_work is not None:
                measured += f.semi + f.label(f"per_{per}", before=f"{r.before_per_work:.3g}", after=f"{r.after_per_work:.3g}")
            text += f.paren(measured)
        if r.estimated_speedup is not None:
            text += f.semi + f.label("resolved_estimate", estimate=f.estimate(r.estimated_speedup, r.estimate_kind))
            sized = sized_unchanged(p, r, f)
            text += f.semi + sized if sized is not None else ""
        out.append(text)
    if out:
        out.append(f.label("resolved_measured", speedup=f.factor(p.speedup)))  # (the heading says a slowdown)
    return out


def _sections(p: KernelComparison, f: Fmt) -> list[tuple[str, list[str]]]:
    """The pair's sections (label, lines), those with lines: what the change resolved (headed "what became of the
    BEFORE findings" where none of them is resolved, reduced or gone), what it removed (the work a faster AFTER
    does less of) and what it introduced; a regression's in reverse (what it added first)."""
    resolved = "resolved_title" if any(r.status in RESOLVING for r in p.resolved) else "resolved_none_title"
    sections = [(title, lines) for title, lines in ((resolved, _resolved(p, f)),
                                                    ("removed_title", removed_lines(p, f)),
                                                    ("introduced_title", introduced_lines(p, f))) if lines]
    return list(reversed(sections)) if p.regressed else sections


def _gate_item(item: str, c, f: Fmt) -> str:
    if item == "total":
        return f.label("gate_total")
    if item == "program":
        return f.label("gate_program")
    if item == "unmatched":
        names = tuple(x[0][0] if isinstance(x, tuple) else x for x in c.unmatched_after)
        return f.label("unmatched_gate", names=names_list(names, f), growth=100.0 * (c.unmatched_growth or 0.0))
    return safe(item)


def _regressions_line(regressions: tuple[str, ...], threshold_pct: float, f: Fmt, c) -> str:
    """"Regressions beyond 5%: k, total, after-only kernels (...)": ``c`` a :class:`Comparison` or a
    :class:`kernelscope.analysis.compare_datasets.DatasetComparison` (both name ``unmatched_after`` and
    ``unmatched_growth``)."""
    return f.head(f.label("regressions", pct=threshold_pct), f.listing(_gate_item(r, c, f) for r in regressions) or f.label("list_none"))


def shown_pairs(c: Comparison, details: bool) -> tuple[list[KernelComparison], int]:
    """The compared kernels a view shows: every one with ``details``, else the :data:`.brief.TOP_ROWS` whose total
    time changed most (in their order); and how many were left out."""
    if details:
        return list(c.pairs), 0
    return top_by(c.pairs, lambda p: abs(p.after.total_s - p.before.total_s))


def to_table(c: Comparison, lang: str, regressions: tuple[str, ...] = (), threshold_pct: float | None = None,
             details: bool = True) -> list:
    """rich renderables of a comparison: one :class:`rich.console.Group`, so that ``Console.print(*to_table(...))``
    puts each line on its own line (``print`` of several renderables joins them with spaces). Warnings and the
    matched / unmatched time first, the program timelines' split when both sides are timelines, then one table per
    compared kernel (without ``details``: those of :func:`shown_pairs`, then how many more there are); the
    regressions line last, on a line of its own after a blank one."""
    f = Fmt(lang)
    pairs, more = shown_pairs(c, details)
    out: list = [Text(line, style="bold") for line in _summary(c, f)]
    if c.programs is not None:
        t = Table(title=Text(f.label("program_title"), style="bold cyan"), box=box.SIMPLE_HEAD, title_justify="left")
        for i, head in enumerate(("", f.label("before"), f.label("after"), f.label("program_change"))):
            t.add_column(head, style="bold" if i == 0 else None, no_wrap=i == 0, justify="left" if i == 0 else "right")
        for row in _program_rows(c.programs, f):
            t.add_row(*(Text(x) for x in row))
        out.append(t)
    for p in pairs:
        t = Table(title=Text(f.head(_title(p, f), _verdict(p, f, said_above(p, c, f))), style="bold cyan"), box=box.SIMPLE_HEAD,
                  title_justify="left")
        t.add_column("", style="bold", no_wrap=True)
        t.add_column(f.label("before"), overflow="fold")
        t.add_column(f.label("after"), overflow="fold")
        for row in _pair_rows(p, f, details):
            t.add_row(*(Text(x) for x in row))
        out.append(t)
        shape = _shape_note(p, f)
        if shape is not None:
            out.append(Text(shape, style="bold"))
        clocks = _pair_clocks(p, f, c)
        if clocks is not None:
            out.append(Text(clocks, style="bold"))
        if p.generator is not None:
            out.append(Text(f.label("cmp_matched_generated", generator=f.label(f"gen_{p.generator}"))))
        out.append(Text(f.head(f.label("what_moved"), moved_text(p, f))))
        for title, lines in _sections(p, f):
            out.append(Heading(f.label(title), style="bold"))
            out += [Text("  " + line) for line in lines]
        launch = launch_line(p, f)
        out += [Text(""), Text(launch)] if launch is not None else []  # each paragraph after a blank line
        if details or p.estimates:
            out += [Text(""), Text(f.head(f.label("estimated_by_findings"), _estimates(p, f)))]
        check = _posthoc(p, f)
        if check is not None:
            out += [Text(""), Text(f.head(f.label("posthoc"), check))]
        predictions = [Text(f.head(f.label("predicted"), line)) for line in _predictions(p, f)]
        out += [Text(""), *predictions] if predictions else []
    if more:
        out += [Text(""), Text(f.label("brief_more_kernels", n=more))]
    if threshold_pct is not None:
        out += [Text(""), Text(_regressions_line(regressions, threshold_pct, f, c), style="bold")]
    return [Group(*out)]


def to_text(c: Comparison, lang: str, regressions: tuple[str, ...] = (), threshold_pct: float | None = None,
            width: int | None = None, details: bool = True) -> str:
    """Plain text (no colour codes) of :func:`to_table`."""
    return to_plain([Group(*to_table(c, lang, regressions, threshold_pct, details))], width)


def to_markdown(c: Comparison, lang: str, regressions: tuple[str, ...] = (), threshold_pct: float | None = None,
                details: bool = True) -> str:
    """Markdown for a pull-request comment: the summary (warnings, matched and unmatched time, program walls), the
    program timelines' split, a table of the compared kernels, then one before/after table per kernel (without
    ``details``: those of :func:`shown_pairs`, then how many more there are); the regressions line last, a
    paragraph of its own."""
    f = Fmt(lang)
    pairs, more = shown_pairs(c, details)
    cell = md_cell
    lines = [f"## {f.label('compare_title')}", ""] + [f"- {md_prose(x)}" for x in _summary(c, f)] + [""]
    if c.programs is not None:
        lines += [f"| {f.label('program_title')} | {f.label('before')} | {f.label('after')} | {f.label('program_change')} |",
                  "|---|---:|---:|---:|"]
        lines += [f"| {cell(a)} | {b} | {x} | {d} |" for a, b, x, d in _program_rows(c.programs, f)] + [""]
    lines += [f"| {f.label('kernel')} | {f.label('before')} | {f.label('after')} | {f.label('speedup')} | {f.label('spread')} |", "|---|---:|---:|---:|---|"]
    for p in pairs:
        lines.append(f"| `{cell(_title(p, f))}` | {' | '.join(f.times(p.before.duration_s, p.after.duration_s))} | "
                     f"{_speed(p.speedup, f, p.beyond_noise is False or said_above(p, c, f))} | {cell(noise_text(p.beyond_noise, p.noise, f, (p.before.launches, p.after.launches)))} |")
    lines += ["", cell(f.label("brief_more_kernels", n=more)), ""] if more else [""]
    for p in pairs:
        lines += [f"### `{cell(_title(p, f))}`", "", _verdict(p, f, said_above(p, c, f)), "", f"| | {f.label('before')} | {f.label('after')} |", "|---|---|---|"]
        lines += [f"| {cell(a)} | {cell(b)} | {cell(x)} |" for a, b, x in _pair_rows(p, f, details)]
        shape = _shape_note(p, f)
        lines += ["", f"**{cell(shape)}**"] if shape is not None else []
        clocks = _pair_clocks(p, f, c)
        lines += ["", f"**{cell(clocks)}**"] if clocks is not None else []
        lines += ["", cell(f.label("cmp_matched_generated", generator=f.label(f"gen_{p.generator}")))] if p.generator else []
        lines += ["", f.head(f.label("what_moved"), md_prose(moved_text(p, f)))]
        for title, found in _sections(p, f):
            lines += ["", f"**{cell(f.label(title))}**", ""] + [f"- {md_prose(x)}" for x in found]
        launch = launch_line(p, f)
        lines += ["", md_prose(launch)] if launch is not None else []
        lines += ["", f.head(f.label("estimated_by_findings"), md_prose(_estimates(p, f)))] if details or p.estimates else []
        check = _posthoc(p, f)
        lines += ["", f.head(f.label("posthoc"), cell(check))] if check is not None else []
        lines += ["\n" + f.head(f.label("predicted"), cell(x)) for x in _predictions(p, f)]
        lines.append("")
    if threshold_pct is not None:
        lines += ["", f"**{cell(_regressions_line(regressions, threshold_pct, f, c))}**"]
    return md_spaced("\n".join(lines))


def to_json(c: Comparison, lang: str, regressions: tuple[str, ...] = (), threshold_pct: float | None = None) -> str:
    """JSON document (schema ``kernelscope.compare/2``, types :mod:`kernelscope.render.documents.compare`, JSON Schema
    ``schemas/compare-2.schema.json``); durations in s, bandwidth in bytes/s, shares 0..1; each compared kernel's
    ``not_measured`` gives the reason for each null."""
    f = Fmt(lang)
    kernels = []
    for p in c.pairs:
        k = ComparedKernelDoc(
            before_name=p.before_name, after_name=p.after_name, matched_by=p.matched_by,  # type: ignore[arg-type]
            shape_differs=p.shape_differs,
            speedup=finite(p.speedup), beyond_noise=p.beyond_noise, program_speedup=finite(p.program_speedup),
            before=_side(p.before), after=_side(p.after),
            stall_shift=[StallShiftDoc(reason=r, share_before=b, share_after=a) for r, b, a in p.stall_shift],
            predictions=[PredictionDoc(rule_id=x.rule_id, estimated_speedup_pct=x.estimated_speedup_pct,
                                       measured_reduction_pct=finite(x.measured_reduction_pct)) for x in p.predictions],
            predicted=[FindingEstimateDoc(finding_id=i, estimated_speedup=x) for i, x in p.predicted],
            explanation=notes(p.explanation, f), not_measured=[],
            posthoc=None if p.posthoc is None or p.posthoc.speedup is None else PostHocDoc(
                changes=[WorkChangeDoc(unit=w.unit, metric=w.metric, before_s=w.before_s, after_s=w.after_s)
                         for w in p.posthoc.changes], speedup=p.posthoc.speedup, disagrees=p.model_disagrees),
            noise=finite(p.noise), generator=p.generator, resolved=[_resolution(r) for r in p.resolved],
            clocks=_clocks(p.clocks), introduced=[introduction_doc(r) for r in p.introduced],
            launch_changes=[launch_change_doc(x) for x in p.launch_changes],
            grown_work=[grown_work_doc(g) for g in p.grown_work],
            removed_work=[grown_work_doc(g) for g in p.removed_work],
            estimates=[estimate_doc(e) for e in p.estimates],
        )
        k.not_measured = null_reasons(k, f, {**_DERIVED_NULLS, "/posthoc": "posthoc_none"},
                                      ("/explanation", "/predictions", "/not_measured", "/posthoc", "/resolved",
                                       "/generator", "/clocks", "/introduced", "/launch_changes", "/grown_work",
                                       "/removed_work", "/estimates"))
        kernels.append(k)
    return encode(CompareDoc(
        schema=SCHEMA, kernelscope_version=__version__, lang=lang,  # type: ignore[arg-type]
        total_before_s=c.total_before_s, total_after_s=c.total_after_s, total_speedup=finite(c.total_speedup),
        matched_before_s=c.matched_before_s, matched_after_s=c.matched_after_s, speedup=finite(c.speedup),
        unmatched_before=list(c.unmatched_before), unmatched_after=list(c.unmatched_after),
        unmatched_before_s=c.unmatched_before_s, unmatched_after_s=c.unmatched_after_s,
        before_method=_method(c.before_method), after_method=_method(c.after_method),
        warnings=[NoteDoc(key=n.key, text=_worded(n, f), values=dict(n.values)) for n in c.warnings],
        programs=_programs(c),
        fail_if_slower_pct=threshold_pct, regressions=list(regressions), kernels=kernels,
        noise=finite(c.noise[0]), beyond_noise=c.noise[1], unmatched_growth=finite(c.unmatched_growth),
        by_hand=c.by_hand, headline=c.headline, clocks=_clocks(c.clocks),  # type: ignore[arg-type]
    ))


def _clocks(c: ClockChange | None) -> ClockChangeDoc | None:
    if c is None:
        return None

    def one(x: Clocks) -> ClocksDoc:
        return ClocksDoc(sm_hz=finite(x.sm_hz), mem_hz=finite(x.mem_hz), time_s=x.time_s, cycles=x.cycles)

    return ClockChangeDoc(before=one(c.before), after=one(c.after), differs=c.differs,
                          cycle_speedup=finite(c.cycle_speedup))


def _resolution(r: Resolution) -> ResolutionDoc:
    return ResolutionDoc(finding_id=r.finding_id, status=r.status, measure=list(r.measure),  # type: ignore[arg-type]
                         before_value=finite(r.before_value), after_value=finite(r.after_value),
                         estimated_speedup=finite(r.estimated_speedup), estimate_kind=r.estimate_kind,  # type: ignore[arg-type]
                         before_per_work=finite(r.before_per_work), after_per_work=finite(r.after_per_work))


def _method(m: Measurement | None) -> MethodDoc | None:
    if m is None:
        return None
    return MethodDoc(tool=m.tool if m.tool in _TOOLS else None, replay_mode=m.replay_mode,  # type: ignore[arg-type]
                     cache_control=m.cache_control, clock_control=m.clock_control)


def _programs(c: Comparison) -> ProgramsDoc | None:
    programs, figure = c.programs, c.program
    if programs is None or figure is None:
        return None

    def one(p: ProgramSide) -> ProgramDoc:
        return ProgramDoc(wall_s=p.wall_s, kernel_s=p.kernel_s, memcpy_s=p.memcpy_s, memset_s=p.memset_s,
                          gpu_idle_s=p.gpu_idle_s, host_api_s=p.host_api_s, steps_s=list(p.steps_s))

    b, a = programs
    wall = b.wall_s / a.wall_s if b.wall_s and a.wall_s else None
    return ProgramsDoc(before=one(b), after=one(a), wall_speedup=finite(wall), figure=ProgramFigureDoc(
        basis=figure.basis, before_s=figure.before_s, after_s=figure.after_s,  # type: ignore[arg-type]
        steps_before=figure.steps_before, steps_after=figure.steps_after, speedup=finite(figure.speedup),
        noise=finite(figure.noise), beyond_noise=figure.beyond_noise))


def _side(s: Side) -> SideDoc:
    return SideDoc(
        duration_s=s.duration_s, spread_s=s.spread_s, launches=s.launches,
        bandwidth_bytes_per_s=finite(s.bandwidth_bytes_per_s), bandwidth_pct_of_peak=finite(s.bandwidth_pct_of_peak),
        achieved_flops_per_s=finite(s.achieved_flops_per_s), efficiency=finite(s.efficiency),
        sol_compute_pct=s.sol_compute_pct, sol_memory_pct=s.sol_memory_pct, classes=list(s.classes),  # type: ignore[arg-type]
        achieved_occupancy_pct=s.achieved_occupancy_pct, theoretical_occupancy_pct=s.theoretical_occupancy_pct,
        stall_shares=dict(s.stall_shares), total_s=s.total_s, mean_s=finite(s.mean_s), grid=s.grid, block=s.block,
        noise=finite(s.noise),
    )

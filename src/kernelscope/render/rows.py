"""The label/value rows of a kernel panel (summary, limiter, memory level, Nsight agreement, advice, where in the
code), shared by the table and Markdown renderers: text only, no analysis."""

from __future__ import annotations

from typing import Any, Sequence

from ..analysis.diagnosis import KernelDiagnosis, ReportDiagnosis
from ..analysis.limiters import UnitLoad, ranking
from ..analysis.nsight import AGREE, KERNELSCOPE_ONLY, NO_COUNTERPART, NSIGHT_ONLY
from ..knowledge.glossary import glossed_terms
from ..knowledge.units import glossed_names
from ..knowledge.plausibility import implausible_note, implausible_text
from ..notes import Note
from .common import Fmt, data_size, safe, si
from .numbers import percent_column


def glossed(f: Fmt) -> tuple[tuple[str, str], ...]:
    """(glossed term, bare word) of every gloss a text may add, longest first: the glossary's English glosses in
    Chinese (``轮（waves）``) and the units named with a gloss in both languages (``FMA 管线（FP32 与整数乘加）``).
    Stall names are not among them: they read "English（中文）" everywhere (tests/test_zh_terms.py)."""
    terms = (glossed_terms() if f.zh else ()) + glossed_names(f.lang)
    return tuple(sorted(set(terms), key=lambda t: -len(t[0])))


def _depth(text: str) -> int:
    """How many brackets (half- or full-width) are open at the end of ``text``."""
    return text.count("(") + text.count("（") - text.count(")") - text.count("）")


def gloss_once(rows: list[tuple[str, str]], f: Fmt) -> list[tuple[str, str]]:
    """``rows`` (one block: a kernel's panel) with each glossed term (:func:`glossed`) glossed once: at its first
    occurrence outside brackets; every other occurrence, and every one inside brackets, is the bare word, so that
    a gloss never nests in parentheses (``限制单元已经测得（FMA 管线达峰值的 95%）``, not ``（FMA 管线（FP32 与整数乘加）
    达…）``): ``每个 SM 2.51 轮（waves）`` ... ``共 2.51 轮``."""
    out, seen = [], set()
    terms = glossed(f)
    for label, text in rows:
        for term, bare in terms:
            if term not in text:
                continue
            pieces, i = [], 0
            while (j := text.find(term, i)) >= 0:
                keep = term not in seen and _depth(text[:j]) == 0
                seen.update((term,) if keep else ())
                word = term if keep else bare
                if not keep and text[j + len(term):j + len(term) + 1].isascii() and \
                        text[j + len(term):j + len(term) + 1].isalnum() and not bare[-1:].isspace():
                    word += " "  # the bare word spaced from a number after it ("FMA 管线 94.9%")
                pieces += [text[i:j], word]
                i = j + len(term)
            text = "".join(pieces) + text[i:]
        out.append((label, text))
    return out


def summary_rows(result: ReportDiagnosis, f: Fmt) -> list[tuple[str, str, str, str]]:
    """(kernel, launches, total time, share) per kernel name, largest first."""
    seconds = [g.total_duration_s if g.launches > g.unmeasured_launches else None for g in result.groups]
    totals = f.times(*seconds)
    f.pin(seconds, totals)  # a kernel's panel words its duration as its row here
    shares = percent_column([f.share(g.share) for g in result.groups])  # one column: one precision
    return [(safe(g.name), str(g.launches), t, p)  # one column: units by magnitude (Fmt.times)
            for g, t, p in zip(result.groups, totals, shares)]


def load_name(u: UnitLoad, f: Fmt) -> str:
    """A busy unit's name in ``f``'s language: its unit, else the unit its counter belongs to
    (:func:`kernelscope.knowledge.units.unit_of`); the counter's name only when no unit is known."""
    return f.unit(u.unit) if u.unit else safe(f.unit(u.metric))


def named_loads(loads: Sequence[UnitLoad], f: Fmt) -> list[tuple[str, UnitLoad]]:
    """(name, load) per unit as shown, busiest first: two loads of one unit (the L1/TEX cache's Speed-of-Light
    sub-metric and its whole throughput) shown once, with the larger figure."""
    out: dict[str, UnitLoad] = {}
    for u in loads:
        name = load_name(u, f)
        if name not in out or u.pct > out[name].pct:
            out[name] = u
    return sorted(out.items(), key=lambda item: -item[1].pct)


def unit_line(d: KernelDiagnosis, f: Fmt, top: int = 3) -> str | None:
    """"compute: LSU pipe 84.0%, FMA pipe 22.0%; memory: L1/TEX cache 85.1%, ..." (the ``top`` busiest units of
    each side), or None when the analysis ranks no unit (no Speed-of-Light breakdown and no tensor data path
    counter)."""
    parts = []
    compute, memory = ranking(d.limiters, d.units)  # the analysis's ranking: the one the advice names the busiest of
    for side, loads in (("compute", compute), ("memory", memory)):
        if loads:
            units = f.listing(f.spaced(name, f.pct(u.pct)) for name, u in named_loads(loads, f)[:top])
            parts.append(f.head(f.label('side_' + side), units))
    return f.semi.join(parts) or None


def level_line(d: KernelDiagnosis, f: Fmt) -> str | None:
    """Each measured memory level with its % of peak, bytes, hit rate and arithmetic intensity, then the level
    closest to its peak where two levels or more have a measured % to compare; None when no level was measured."""
    items = []
    for lv in d.levels:
        extra = [data_size(lv.bytes)] if lv.bytes is not None else []
        if lv.hit_rate_pct is not None:
            extra.append(f.label("level_hit", v=f.pct(lv.hit_rate_pct)))
        if lv.arithmetic_intensity_flop_per_byte:  # none, or 0 (no FP work: the intensity row says it once)
            work = d.roofline.pipe if d.roofline is not None and d.roofline.pipe else ()  # OP/B for integer work
            extra.append(f.intensity(lv.arithmetic_intensity_flop_per_byte, work))
        if lv.throughput_pct is None and extra:  # bytes known, % of peak not: the bytes, not "not measured (50 MB)"
            items.append(f.spaced(level_name(lv.level, f), f.comma.join(extra)))
        else:
            items.append(f.spaced(level_name(lv.level, f), f.pct(lv.throughput_pct)) + (f.paren(f.comma.join(extra)) if extra else ""))
    if not items:
        return None
    lim = d.limiting_level if sum(lv.throughput_pct is not None for lv in d.levels) >= 2 else None
    return f.semi.join(items) + ("" if lim is None else f.stop + f.label("level_limiting", name=level_name(lim.level, f)))


def gpu_unknown(k, f: Fmt) -> str:
    """The GPU row of a profile that names no catalogue GPU: "not identified", with the compute capability the
    profile records (a profile without a GPU name is not an unmeasured GPU)."""
    cc = k.device.compute_capability
    return f.label("gpu_unknown_cc", cc=f"{cc[0]}.{cc[1]}") if cc is not None else f.label("gpu_unknown")


def level_name(level: str, f: Fmt) -> str:
    """A memory level's name in ``f``'s language (``l1``, ``l2``, ``dram`` are units of ``data/units.toml``)."""
    return f.label("level_shared") if level == "shared" else f.unit(level)


def nsight_line(d: KernelDiagnosis, f: Fmt) -> str | None:
    """Nsight Compute's stored findings beside ours, grouped: both found, only Nsight, no kernelscope rule, only
    kernelscope; None when the report stores no rule results that fired."""
    groups: dict[str, list[str]] = {AGREE: [], NSIGHT_ONLY: [], NO_COUNTERPART: [], KERNELSCOPE_ONLY: []}
    by_id = {x.id: x for x in d.findings}

    def ours(ids: tuple[str, ...]) -> str:
        return f.listing(f.finding_title(i, by_id.get(i)) for i in ids)

    for m in d.nsight_matches:
        est = "" if m.nsight_speedup_pct is None else f.paren(f.label("nsight_est", p=m.nsight_speedup_pct))
        if m.status == AGREE:
            groups[AGREE].append(f.label("nsight_pair", rule=m.rule_id, est=est, ours=ours(m.findings)))
        elif m.status == KERNELSCOPE_ONLY:
            groups[KERNELSCOPE_ONLY].append(ours(m.findings) + f.paren(m.rule_id))
        else:
            groups[m.status].append(f"{m.rule_id}{est}")
    keys = {AGREE: "nsight_agree", NSIGHT_ONLY: "nsight_only", NO_COUNTERPART: "nsight_no_counterpart",
            KERNELSCOPE_ONLY: "kernelscope_only"}
    parts = [f.label(keys[status], items=f.listing(items)) for status, items in groups.items() if items]
    return f.semi.join(parts) or None


def place(loc: Any, f: Fmt) -> str:
    """One location of a finding: ``file.cu:14`` (file name only) when the report has line information, else the
    instruction's offset in its function (``PC +0x1a0``), else its address."""
    if loc.file and loc.line:
        return safe(f"{loc.file.replace(chr(92), '/').rsplit('/', 1)[-1]}:{loc.line}")
    if loc.offset is not None:
        return f.label("located_pc", offset=loc.offset)
    return f"PC {loc.pc:#x}"


def places(d: KernelDiagnosis, finding_id: str, f: Fmt) -> str | None:
    """"where: readWriteOffset.cu:14 (87.2%), ..." for a located finding (share of its per-instruction metric), or
    None when it has no locations."""
    locs = d.locations.get(finding_id)
    if not locs:
        return None
    return f.label("located_at", places=f.listing(place(x, f) + ("" if x.share is None else f.paren(f.share(x.share)))
                                                     for x in locs))


def advice_lines(d: KernelDiagnosis, f: Fmt, worthwhile_only: bool = False) -> list[str]:
    """The advice, most important first: a root cause as "title [est. gain]: action. where: file:line (share)"
    (in Chinese three sentences, "title。gain。action" : the action has a colon of its own), a class paragraph under
    its class's name (with its ceiling when it has one: "latency-bound [at most 2.30x ...]: ..."), a fallback
    paragraph as its text. ``worthwhile_only``: only :attr:`~KernelDiagnosis.worthwhile_advice` (the short report)."""
    out = []
    for a in d.worthwhile_advice if worthwhile_only else d.advice_findings:
        text = f.advice(a.advice, a)  # type: ignore[arg-type]
        # a class paragraph is titled by its class (a class finding may share a root cause's id: small_grid)
        title = f.bound(a.bound) if a.advice.startswith("class:") and a.bound else f.finding_title(a.id, a)
        if a.estimated_speedup is None and (a.advice.startswith("class:") or a.advice.startswith("finding:")
                                            and a.severity == "info"):  # no gain to state: what the report lacks,
            text = f"{title}。{text}" if f.zh else f"{title}: {text}"  # a class without a ceiling
        elif a.advice.startswith("finding:") or a.estimated_speedup is not None:  # type: ignore[union-attr]
            gain = f.gain(a, d.program_gain(a))
            text = f"{title}。{gain}。{text}" if f.zh else f"{title} [{gain}]: {text}"
            where = places(d, a.id, f)
            if where is not None:
                text = f.spaced(text, where)
        out.append(text)
    return out


def useful_line(d: KernelDiagnosis, f: Fmt) -> str | None:
    """"1.07 GFLOP of 1.24 GFLOP executed (86.3%): 2.15 TFLOP/s / attainable ..., efficiency ...; 12.3 FLOP/B": the
    point of the useful FLOPs the user gave beside the executed ones; None when none were given."""
    u, r = d.useful_roofline, d.roofline
    if u is None or u.flops is None:
        return None
    executed = r.flops if r is not None else None
    return f.label("useful_line", useful=si(u.flops, "FLOP"), executed=f.nm if executed is None else si(executed, "FLOP"),
                   share=f.share(u.flops / executed if executed else None), achieved=f.flops(u.achieved_flops_per_s),
                   attainable=f.flops(u.attainable_flops_per_s), eff=f.share(u.efficiency),
                   ai=f.intensity(u.arithmetic_intensity_flop_per_byte))


def data_rows(k: Any, f: Fmt) -> list[tuple[str, str]]:
    """The launch's implausible values (each with its raw value and reason, in ``f``'s language) and its other data
    problems (the implausible values' own English lines left out of those)."""
    rows = []
    if k.implausible:
        rows.append((f.label("implausible"), f.notes(implausible_note(x) for x in k.implausible)))
    said = {implausible_text(x, "en") for x in k.implausible}
    problems = [p for p in k.problems if p not in said]
    if problems:
        rows.append((f.label("problems"), safe(f.semi.join(map(f.problem, problems)))))
    return rows


def kernel_notes(d: KernelDiagnosis) -> list[Note | str]:
    """The launch's notes: the diagnosis's, then the keys of what its roofline could not measure."""
    notes: list[Note | str] = list(d.notes)
    explained = any("tensor" in n.key or n.key == "no_fp_counters" for n in d.notes)
    r = d.roofline
    if r is not None:
        notes += [m for m in r.not_measured if not (explained and m == "flops_not_measured")
                  and not (m == "efficiency_undefined" and "roofline_not_applicable" in r.not_measured)]
    return notes


def notes_text(d: KernelDiagnosis, f: Fmt) -> str | None:
    """:func:`kernel_notes` worded in ``f``'s language, or None without any."""
    notes = kernel_notes(d)
    return f.notes(notes) if notes else None


def kernel_title(d: KernelDiagnosis) -> str:
    """One-line title: ``[index] name``."""
    return safe(f"[{d.kernel.index}] {d.kernel.name}")


def kernel_rows(d: KernelDiagnosis, f: Fmt, top_stalls: int = 5, verdict: bool = True, advice: bool = True) -> list[tuple[str, str]]:
    """Label/value rows describing one diagnosis, in reading order (``verdict`` / ``advice``: include the
    bottleneck row with its evidence / the advice rows; the HTML card shows those apart)."""
    k = d.kernel
    rows: list[tuple[str, str]] = []
    launch = k.launch
    if launch.grid is not None and launch.block is not None:
        shape = f.grid_block(launch.grid, launch.block)
        if launch.registers_per_thread is not None:
            shape += f.comma + f.label("registers", n=launch.registers_per_thread)
        rows.append((f.label("launch_config"), shape))
    rows.append((f.label("duration"), f.time(k.duration_s)))
    rows.append((f.label("gpu"), safe(d.gpu.name) if d.gpu is not None else gpu_unknown(k, f)))
    rows.append((f.label("peaks"), f.notes(d.provenance)))
    rows.append((f.label("sol"), f.sol_values(d.sol.compute_pct, d.sol.memory_pct)))
    evidence = d.evidence if d.classes else (d.sol.evidence if d.sol.bound is not None else ())
    if verdict:  # the evidence on a row of its own: its notes hold brackets, which a bracket around them would nest
        rows.append((f.label("bound"), f.bounds(d.verdict)))
        if evidence:
            rows.append((f.label("evidence"), f.notes(evidence)))
    if d.ncu_bottleneck is not None:
        rows.append((f.label("nsight_says"), safe(d.ncu_bottleneck_title or "") + f.paren(f.bound(d.ncu_bottleneck))))
    units, levels = unit_line(d, f), level_line(d, f)
    if units is not None:
        rows.append((f.label("busiest_units"), units))
    if levels is not None:
        rows.append((f.label("memory_levels"), levels))
    r = d.roofline
    if r is not None:
        ridge = r.ridge_point_flop_per_byte  # "拐点 12.8 FLOP/B（FP32 CUDA 核心）"; "FP8 Tensor Core 的拐点未测量"
        work = r.pipe or ()  # integer work (INT8 tensor cores): OP/B, the unit of its OP/s, for intensity and ridge
        line = f.intensity(0) if r.arithmetic_intensity_flop_per_byte == 0 else f.intensity(r.arithmetic_intensity_flop_per_byte, work) + f.semi + (
            f.spaced(f.label("ridge_point"), f.intensity(ridge, work)) + f.paren(f.pipe(r.pipe)) if ridge is not None
            else f.spaced(f.label("ridge_of", pipe=f.pipe(r.pipe)), f.nm))
        if r.bound is not None:
            line += f.arrow + f.bound(r.bound)
        rows.append((f.label("arithmetic_intensity"), line))
        if r.achieved_flops_per_s is not None or r.attainable_flops_per_s is not None:
            est = f.paren(f.note("estimated_from_pipe")) if r.flops_estimated else ""
            rows.append((
                f.label("achieved"),
                (f.flops(0) if r.achieved_flops_per_s == 0 else  # no FP work: no attainable rate or efficiency
                 f"{f.flops(r.achieved_flops_per_s, r.pipe)}{est} / "
                 + f.spaced(f.label("attainable"), f.flops(r.attainable_flops_per_s, r.pipe))
                 + f.comma + f.spaced(f.label("efficiency"), f.share(r.efficiency)))
                + ("" if r.achieved_bytes_per_s is None else f"{f.semi}DRAM {si(r.achieved_bytes_per_s, 'B/s')}"),
            ))
    if (useful := useful_line(d, f)) is not None:
        rows.append((f.label("useful"), useful))
    occ = d.occupancy
    if occ is not None:
        line = f.note(Note("occupancy_line", {
            "t": f.pct(occ.occupancy_pct), "warps": occ.active_warps_per_sm, "max_warps": occ.max_warps_per_sm,
            "limiter": f.limiters(occ.limiters), "a": f.pct(k.achieved_occupancy_pct),
        }))
    else:
        line = f.occupancy(k.achieved_occupancy_pct, k.theoretical_occupancy_pct)
    if d.waves_per_sm is not None:
        line += f.semi + f.label("waves", w=d.waves_per_sm)
    if d.occupancy_notes:
        line += f.stop + f.notes(d.occupancy_notes)
    rows.append((f.label("occupancy"), line))
    if d.stalls is not None and d.stalls.shares:
        parts = [f.spaced(f.stall_name(s.reason), f.share(s.share_of_stalls)) for s in d.stalls.shares[:top_stalls]]
        if d.stalls.selected_value is not None and d.stalls.total:
            note = f.label("stalls_note", s=f.share(d.stalls.selected_value / d.stalls.total))
        else:
            note = f.label("stalls_note_plain")
        rows.append((f.label("stalls"), f.listing(parts) + (f.semi + note if f.zh else f.paren(note))))  # zh: names glossed "（…）"
    else:
        rows.append((f.label("stalls"), f.nm))
    if (notes := notes_text(d, f)) is not None:
        rows.append((f.label("notes"), notes))
    rows += data_rows(k, f)
    nsight = nsight_line(d, f)
    if nsight is not None:
        rows.append((f.label("nsight_findings"), nsight))
    for i, text in enumerate(advice_lines(d, f) if advice else (), 1):
        rows.append((f.label("advice") if i == 1 else "", f"{i}. {text}"))
    return gloss_once(rows, f)


def shown_text(n: int, total: int, f: Fmt, launches: int | None = None, all_launches: int | None = None) -> str:
    """"2 of 5 launches diagnosed"; every launch: "all 5 launches diagnosed" (never "5 / 5"), the only one: "the one
    launch diagnosed". ``launches`` / ``all_launches``: the launches the ``n`` diagnosed entries and the ``total``
    entries stand for, where an entry is a summary row of several launches (nvprof's Calls, Nsight Compute's
    Invocations): the entries are then said to be summary rows and the launches counted from them, "2 kernels
    (summary rows, 300 launches in all) diagnosed", never "all 2 launches" beside a table of 150 + 150."""
    if all_launches is not None and all_launches != total:
        launches = n if launches is None else launches
        if n == total:
            return f.label("kernels_shown_summary_one" if total == 1 else "kernels_shown_summary_all", total=total,
                           launches=launches)
        return f.label("kernels_shown_summary", n=n, total=total, launches=launches, all=all_launches)
    if n == total:
        return f.label("kernels_shown_one" if total == 1 else "kernels_shown_all", total=total)
    return f.label("kernels_shown", n=n, total=total)


def report_shown_text(res: ReportDiagnosis, f: Fmt) -> str:
    """:func:`shown_text` of a report's diagnosis: its entries diagnosed of the report's, with the launches they
    stand for (a summary row counts its ``launch_count``)."""
    return shown_text(len(res.kernels), len(res.report.kernels), f,
                      sum(d.kernel.launch_count for d in res.kernels), sum(k.launch_count for k in res.report.kernels))

"""Rendering of ``kernelscope timeline`` results (:class:`~kernelscope.analysis.timeline.TimelineReport`): a rich
table view, JSON and Markdown, in English or Chinese. No analysis here.

JSON is the typed document ``kernelscope.timeline/1`` (:mod:`kernelscope.render.documents.timeline`, JSON Schema
``schemas/timeline-1.schema.json``), encoded by :func:`kernelscope.render.documents.encode`; units are in the
field names. It holds only numbers, strings, booleans and null: a value that is infinite (an Amdahl factor "gone",
the speedup when an item is the whole program time, the open-ended last gap bin) or NaN is written as null, and
the object holding it gets ``<field>_null_reason``: ``"gone"``, ``"unbounded"``, ``"open_ended"`` (what the
field's dataclass declares in ``NON_FINITE``) or ``"not_a_number"``. The text views print ∞. A finding is the
common finding document (``id``, ``severity``, ``message``, ``evidence``, ``bound``, ``advice``,
``estimated_speedup``, ``speedup_note``, ``source``) plus ``time_s`` and ``count``, and ``rule`` / ``note`` (the
same as ``id`` / ``message``) for readers of earlier timeline documents.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace
from typing import TYPE_CHECKING, Sequence

import msgspec

from ..version import __version__
from ..notes import Note
from ..analysis.engine import Finding
from ..analysis.timeline import (
    Amdahl, ItemStat, JoinedKernel, KernelJoin, ScopeShare, TimelineReport, TimeSplit, time_and_count)
from .brief import TOP_FINDINGS, Footnotes, footnote_markdown, footnote_table
from .common import Fmt, data_size, md_cell, safe, short_name, short_names
from .inline import md_label_line, md_labelled, md_prose
from .numbers import percent_columns, rate
from .records import record_name
from ..knowledge.text import labels
from .documents import enc_hook, encode
from .documents.timeline import (
    AbsentKernelDoc, AmdahlDoc, BlackHoleDoc, CopyDirectionDoc, GapHistogramDoc, GraphUseDoc, InvalidRecordDoc, ItemStatDoc,
    JoinedKernelDoc, KernelsJoinedDoc, NcuKernelDoc,
    LaunchBoundDoc, LaunchOverheadDoc, LaunchShapeDoc, RankRowDoc, TimeSplitDoc, TimelineDoc, TimelineFindingDoc,
    TimelineReportDoc, TinyKernelDoc,
)
from .documents.timeline import ScopeShareDoc, StepsDoc
from .fusion import chain_legend, fusion_doc, md_chain_cell, fusion_headline, fusion_lines, fusion_section, narrow_parts, with_fusion_column
from .timeline_join import absent_section, join_section
from .timeline_overview import LABEL_NAME_TABLES, comm_rows, graph_rows, at_tick, launch_waits, stamp_tick, md_name as _md_name, md_value as _md_value
from .timeline_scopes import Captioned, amdahl_caption, black_hole_note, lane_rows, program_caption, program_columns
from .timeline_records import one_off_docs, one_off_rows, repaired_docs, repaired_text, utilisation_cell
from .doc_copy import copy_doc as _copy, plain as _plain
from .json_common import findings, notes

if TYPE_CHECKING:  # (rich loads for the terminal report only: the JSON and Markdown need none of it)
    from rich.console import RenderableType


SCHEMA = "kernelscope.timeline/1"
FORMATS: tuple[str, ...] = ("table", "json", "markdown")


def render_timeline(reports: Sequence[TimelineReport], fmt: str = "table", lang: str = "en", top: int = 10,
                    width: int | None = None, joins: Sequence[KernelJoin | None] | None = None, details: bool = True) -> str:
    """Render timeline reports as ``"table"`` (plain text), ``"json"`` or ``"markdown"``; ``joins``: per report,
    its top kernels joined with Nsight Compute diagnoses (:func:`kernelscope.analysis.timeline.join_kernels`);
    ``details``: the table and Markdown in full, else short (the JSON is complete either way).

    Raises:
        ValueError: unknown format or language.
    """
    Fmt(lang)  # checks the language
    if fmt == "json":
        return to_json_text(reports, lang, joins)
    if fmt == "markdown":
        return to_markdown(reports, lang, top, joins, details)
    if fmt == "table":
        from rich.console import Group

        from .rich_text import to_plain

        return to_plain([Group(*renderables(reports, lang, top, joins, details))], width)
    raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")


# ----------------------------------------------------------------------------------------------- shared text
#: The timeline's formatter: :class:`Fmt` (an exact zero is "0 s" there, with its unit, as everywhere).
_F = Fmt


def _x(value: float | None, f: Fmt) -> str:
    return f.gain_factor(value)  # one precision for every speedup; one that prints as 1.00x: negligible


def _bytes(n: float | None) -> str:
    if n is None:
        return "-"
    return data_size(n, 4)


def _rate(v: float | None) -> str:
    """A copy's throughput in its natural unit (``150 MB/s``, never ``0.150 GB/s``), as every rate (:func:`rate`)."""
    return "-" if v is None else rate(v)


def _joins(reports: Sequence[TimelineReport],
           joins: Sequence[KernelJoin | None] | None) -> Sequence[KernelJoin | None]:
    """One join (or None) per report."""
    if joins is None:
        return [None] * len(reports)
    if len(joins) != len(reports):
        raise ValueError(f"one join per report: {len(joins)} joins for {len(reports)} reports")
    return joins


def _rank(f: Fmt, rank: int | None) -> str:
    return f.label("tl_rank_not_recorded") if rank is None else str(rank)


def _black_hole_note(rep: TimelineReport, lang: str) -> Note | None:
    """The headline: the black hole worded from the row it names (render/timeline_scopes.py); for an ``nsys stats``
    summary whose host-side CUDA API time far exceeds its GPU time, that statement instead (no GPU item is the
    program's largest cost when the GPU is idle most of the run)."""
    host = next((n for n in rep.notes if n.key == "tl_summary_api_dominates"), None)
    return host if host is not None else black_hole_note(rep, lang)


def _gpu_runs(shown: Sequence[tuple[int, str]], f: Fmt) -> list[str]:
    """The GPUs ``shown`` (index, name) as items of a list: consecutive indices of one name as one item
    ("0-7: Tesla V100-SXM2-32GB (8 GPUs)", "0～7：Tesla V100-SXM2-32GB（8 块）"), never the same name once per rank."""
    runs: list[list[tuple[int, str]]] = []
    for i, n in shown:
        if runs and runs[-1][-1][1] == n and isinstance(i, int) and runs[-1][-1][0] == i - 1:
            runs[-1].append((i, n))
        else:
            runs.append([(i, n)])
    return [f"{run[0][0]}{f.colon}{safe(run[0][1]) or '-'}" if len(run) == 1 else
            f.label("tl_gpus_run", first=run[0][0], last=run[-1][0], name=safe(run[0][1]) or "-", n=len(run))
            for run in runs]


def _gpus(rep: TimelineReport, f: Fmt) -> str:
    """The GPUs that ran work in the trace ("0: NVIDIA A100"), the others of the machine as a count; all of them
    when the report has no per-device split."""
    busy = {d.device for d in rep.devices}
    shown = [(i, n) for i, n in rep.devices_named if i in busy] or list(rep.devices_named)
    text = f.listing(_gpu_runs(shown, f))
    rest = len(rep.devices_named) - len(shown)
    return text + f.label("tl_gpus_without_work", n=rest) if rest else text


def _overview(rep: TimelineReport, f: Fmt, notes: Footnotes | None = None) -> list[tuple[str, str]]:
    rows = []
    head = f.input_head(rep.path, rep.format, rep.tool_version, (f"{f.comma}{f.problem(rep.title)}" if f.zh else f"  [{rep.title}]") if rep.title else "")
    rows.append((f.label("tl_input"), head))
    if rep.devices_named:
        rows.append((f.label("gpu"), _gpus(rep, f)))
    if rep.wall_s is not None:
        rows.append((f.label("tl_wall"), f.time(rep.wall_s)))
    elif rep.program_time_s is not None:
        rows.append((f.label("tl_program_time"), f.time(rep.program_time_s)))
    if rep.host_api_s is not None:
        host = f.time(rep.host_api_s)
        if len(rep.ranks) > 1:  # one rank's own (never summed over ranks against one wall)
            host = f.label("tl_host_api_rank", time=host, rank=_rank(f, rep.host_api_rank))
        rows.append((f.label("tl_host_api"), host))
    bh = _black_hole_note(rep, f.lang)
    if bh is not None:
        if isinstance(bh.values.get("name"), str):  # the table's short name (JSON keeps it whole)
            bh = Note(bh.key, {**bh.values, "name": short_name(record_name(bh.values["name"], f.lang))})
        rows.append((f.label("tl_black_hole"), f.note(bh)))
    rows += comm_rows(rep, f)
    if rep.fusion:  # beside the black hole: the largest fusion saving
        rows.append((f.label("fu_largest"), fusion_headline(rep.fusion[0], f)))
        legend = chain_legend(rep.fusion[:1], f)  # what ⇒ means, where the headline's chain has one
        if legend is not None:
            rows.append(("", legend))
    if rep.launch is not None:
        L = rep.launch
        tick = stamp_tick(rep)  # a whole-µs Kineto trace: each statistic at that resolution
        latency, queued = launch_waits(L, f, tick)
        every = L.launches == L.matched and not L.graph_launches  # each call joined to its kernel: "all N", not "N to N"
        rows.append((f.label("tl_launch"), f.label(
            ("tl_launch_line_one" if L.launches == 1 else "tl_launch_line_all") if every else "tl_launch_line", launches=L.launches if L.launches is not None else "-",
            graphs=f.label("tl_launch_graphs", n=L.graph_launches) if L.graph_launches else "",
            matched=L.matched, latency=latency, queued=queued, api=f.time(at_tick(L.api_median_s, tick)))))
    return rows + graph_rows(rep, f, notes)


def _device_rows(rep: TimelineReport, f: Fmt, streams: bool) -> tuple[list[str], list[list[str]]]:
    head = [f.label("tl_rank"), f.label("tl_device")] + ([f.label("tl_stream")] if streams else []) + [
        f.label("tl_span"), f.label("tl_kernels"), f.label("tl_memcpy"), f.label("tl_memset"), f.label("tl_idle"),
        f.label("tl_util"), f.label("tl_sum_streams"), f.label("tl_overlap"), f.label("tl_sync")]
    multi_rank = any(d.rank is not None for d in rep.devices)
    if not multi_rank:
        head = head[1:]
    rows = []
    for d in (rep.streams if streams else rep.devices):
        dev = str(d.device)
        cells = ([_rank(f, d.rank)] if multi_rank else []) + [dev] + ([str(d.stream)] if streams else []) + [
            f.time(d.span_s), f.time(d.kernel_s), f.time(d.memcpy_s), f.time(d.memset_s), f.time(d.idle_s),
            utilisation_cell(f, d), f.time(d.sum_over_streams_s), f.time(d.overlap_s), f.time(d.sync_s)]
        rows.append(cells)
    return head, rows


def _copy_rows(rep: TimelineReport, f: Fmt) -> tuple[list[str], list[list[str]]]:
    head = [f.label("tl_device"), f.label("tl_direction"), f.label("tl_count"), f.label("total_time"),
            f.label("tl_bytes"), f.label("tl_throughput"), f.label("tl_pageable")]
    rows = []
    for d in rep.devices:
        for c in d.copies:
            rows.append([str(d.device), c.direction, str(c.count), f.time(c.total_s), _bytes(c.bytes),
                         _rate(c.throughput_bytes_per_s), f.time(c.pageable_s) if c.pageable_s else "-"])
    return head, rows


def _item_rows(items: Sequence[ItemStat], f: Fmt, top: int, amdahl: bool, copies: bool = False,
               tick: float | None = None) -> tuple[list[str], list[list[str]]]:
    """A ranking's header and rows; ``tick``: the trace's time resolution (s; Kineto: 1 µs), below which a measured
    zero mean / min / max reads ``< 1 µs`` / ``不到 1 µs``, never ``0 s``."""
    graphs = any(it.graph_launches for it in items)  # a "from graphs" column only when some ran from CUDA graphs
    head = [f.label("tl_name"), f.label("tl_count")] + ([f.label("tl_graph_runs")] if graphs else []) + [
        f.label("total_time"), f.label("tl_mean"), f.label("tl_min"), f.label("tl_max"), f.label("share")]
    if copies:
        head += [f.label("tl_bytes"), f.label("tl_throughput")]
    if amdahl:
        head += [f.label(k) for k in program_columns(items)]
    rows = []
    for it, short in zip(items[:top], short_names([record_name(it.name, f.lang) for it in items[:top]])):
        name = f.label("program_idle") if f.zh and it.kind == "gpu_idle" else short  # ours, not input
        name += f.paren(f.label("tl_truncated")) if it.truncated else ""
        cells = [name, str(it.count)] + ([str(it.graph_launches or 0)] if graphs else []) + [
            *f.times(it.total_s, it.mean_s, it.min_s, it.max_s), f.pct(it.share_pct)]  # each by magnitude
        for i, s in ((-4, it.mean_s), (-3, it.min_s), (-2, it.max_s)):
            if tick and it.count and s == 0:  # a measured call shorter than the clock's tick, not no time
                cells[i] = f.label("pct_below", x=f.time(tick)).removesuffix("%")
        if copies:
            cells += [_bytes(it.bytes), _rate(it.throughput_bytes_per_s)]
        if amdahl:
            sp = it.amdahl.speedups if it.amdahl is not None else (None, None, None)
            cells += [f.share(it.program_fraction), _x(sp[0], f), _x(sp[1], f), _x(sp[-1], f)]
        rows.append(cells)
    return head, rows


def _short(seconds: float) -> str:
    """Compact time for bin labels, the unit spaced as every time is: 1 µs, 100 µs, 10 ms, 1 s."""
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns")):
        if seconds >= scale:
            return f"{seconds / scale:g} {unit}"
    return f"{seconds:g} s"


def _gap_rows(rep: TimelineReport, f: Fmt) -> tuple[list[str], list[list[str]]]:
    edges = rep.gap_edges_s
    labels = []
    for a, b in zip(edges[:-1], edges[1:]):
        between = f.span(_short(a), _short(b)) if f.zh else f"{_short(a)}-{_short(b)}"  # a range: "1 µs～10 µs"
        labels.append(f"<{_short(b)}" if a == 0 else (f"{'≥' if f.zh else '>='}{_short(a)}" if math.isinf(b) else between))
    ranked = any(d.rank is not None for d in rep.devices if d.gaps is not None)  # cells "rank/device"
    head = [f.label("tl_rank_device" if ranked else "tl_device")] + labels + [f.label("tl_overlapping")]
    rows = []
    for d in rep.devices:
        if d.gaps is None:
            continue
        cells = [str(d.device) if d.rank is None else f"{d.rank}/{d.device}"]
        cells += [f"{n}{f.paren(f.time(t))}" if n else "0" for n, t in zip(d.gaps.counts, d.gaps.totals_s)]
        cells.append(str(d.gaps.overlapping))
        rows.append(cells)
    return head, rows


def _tiny_rows(rep: TimelineReport, f: Fmt, top: int) -> tuple[list[str], list[list[str]]]:
    head = [f.label("tl_name"), f.label("launches"), f.label("tl_median"), f.label("tl_launch_cost"),
            f.label("total_time"), f.label("tl_savings")]
    tiny = rep.tiny_kernels[:top]
    rows = [[name, str(t.launches), f.time(t.median_s), f.time(t.launch_cost_s), f.time(t.total_s),
             f.time(t.savings_s)] for t, name in zip(tiny, short_names([t.name for t in tiny]))]
    return head, rows


def _rank_rows(rep: TimelineReport, f: Fmt) -> tuple[list[str], list[list[str]]]:
    head = [f.label("tl_rank"), f.label("tl_wall"), f.label("tl_util"), f.label("tl_communication"),
            f.label("tl_computation"), f.label("tl_overlap_short"),
            f.label("tl_exposed_short"), f.label("tl_wait_short"), f.label("tl_own_short"), f.label("tl_no_gpu"),
            f.label("tl_host_api_short")]
    rows = []
    for r in rep.ranks:
        mark = " *" if rep.slowest_rank is not None and r.rank == rep.slowest_rank else ""
        rows.append([_rank(f, r.rank) + mark, f.time(r.wall_s), f.pct(r.utilisation_pct), f.time(r.communication_s),
                     f.time(r.computation_s),
                     f.time(r.overlap_s), f.time(r.exposed_communication_s), f.time(r.collective_wait_s),
                     f.time(r.own_s), f.time(r.no_gpu_s), f.time(r.host_api_s)])
    return head, rows


def _titled(f: Fmt, key: str, items: Sequence[ItemStat], rep: TimelineReport | None = None) -> str:
    """A ranking's title, then what its program columns are of (:func:`.timeline_scopes.amdahl_caption`) after a
    semicolon (never parentheses in parentheses); ``rep``: its report, whose ranks (several or not) choose the
    words ("summed over ranks" or "over devices")."""
    ranks = rep is None or len(rep.ranks) > 1
    share = _SHARE_OF.get(key)
    if share is not None and not ranks and f"{share}_devices" in labels().label:
        share += "_devices"
    if not ranks and f"{key}_devices" in labels().label:
        key += "_devices"
    parts = [(f.label(share) if share else "", [f.label("share")]),
             (amdahl_caption(items, f, ranks, program_caption(items)), [f.label(k) for k in program_columns(items)])]
    return Captioned.build(f.label(key), parts, f.semi)


#: What the share column of each ranking is of (labels.toml), said in its caption.
_SHARE_OF = {"tl_top_kernels": "tl_share_of_kernels", "tl_top_copies": "tl_share_of_copies",
             "tl_gpu_idle": "tl_share_of_idle"}
def _sections(rep: TimelineReport, f: Fmt, top: int,
              join: KernelJoin | None = None) -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, header, rows) of every table of one report, in reading order (empty tables left out), the
    percentages of a column in one precision (:func:`~kernelscope.render.numbers.percent_columns`); with
    ``join``, the top kernels' Nsight Compute diagnoses and the report kernels absent from the timeline follow the
    kernel ranking."""
    out = []
    if rep.devices:
        out.append((f.label("tl_devices"), *_device_rows(rep, f, False)))
        if len(rep.streams) > len(rep.devices):
            out.append((f.label("tl_streams"), *_device_rows(rep, f, True)))
        h, r = _copy_rows(rep, f)
        if r:
            out.append((f.label("tl_copies"), h, r))
    if len(rep.ranks) > 1:
        marked = rep.slowest_rank is not None and any(r.rank == rep.slowest_rank for r in rep.ranks)
        out.append((f.label("tl_ranks") + (f.semi + f.label("tl_slowest_mark") if marked else ""),  # the * legend
                    *_rank_rows(rep, f)))
    tick = 1e-6 if rep.format == "kineto" else None  # Kineto stamps whole µs
    if rep.kernels:
        out.append((_titled(f, "tl_top_kernels", rep.kernels, rep), *_item_rows(rep.kernels, f, top, True, tick=tick)))
    if join is not None:
        if join.kernels:
            out.append(with_fusion_column(join_section(join, rep.kernels, f), [k.name for k in join.kernels],
                                          rep.fusion, f))
        absent = absent_section(join, f)
        if absent is not None:
            out.append(absent)
    fusion = fusion_section(rep.fusion, f)  # beside the per-kernel rankings: what fusing a chain would save
    if fusion is not None:
        out.append(fusion)
    if rep.copies or rep.memsets:
        items = sorted(rep.copies + rep.memsets, key=lambda i: -i.total_s)
        out.append((_titled(f, "tl_top_copies", items, rep), *_item_rows(items, f, top, True, copies=True)))
    h, r = lane_rows(rep, f, top)
    if r:
        ifs = [(f.label("tl_lanes_if"), h[h.index(f.label("tl_device_if_2x")):])]  # goes with the "if" columns
        out.append((Captioned.build(f.label("tl_lanes"), ifs, f.comma if f.zh else " "), h, r))
    if rep.gpu_idle is not None:
        out.append((_titled(f, "tl_gpu_idle", (rep.gpu_idle,), rep), *_item_rows((rep.gpu_idle,), f, top, True)))
    if rep.api_calls:
        out.append((f.label("tl_top_api"), *_item_rows(rep.api_calls, f, top, False, tick=tick)))
    if rep.one_off_calls:
        out.append((f.label("tl_one_off"), *one_off_rows(rep, f)))
    if rep.annotations:
        out.append((f.label("tl_top_annotations"), *_item_rows(rep.annotations, f, top, False, tick=tick)))
    if rep.devices and any(d.gaps is not None and (sum(d.gaps.counts) or d.gaps.overlapping) for d in rep.devices):
        out.append((f.label("tl_gaps") + f.semi + f.label("tl_gaps_cells"), *_gap_rows(rep, f)))  # what "2（0）" is
    if rep.tiny_kernels:
        out.append((f.label("tl_tiny"), *_tiny_rows(rep, f, top)))
    return [(title, head, percent_columns(rows)) for title, head, rows in out]  # a column's % in one precision


def _closing(rep: TimelineReport, f: Fmt, notes: Footnotes | None = None) -> list[tuple[str, str]]:
    """The rows after the tables: fusion's own lines, the checks, the notes (with ``notes``, the short report: no
    fusion lines, the notes go there), what could not be computed and the records set aside or repaired."""
    rows = fusion_lines(rep.fusion, f) if notes is None else []
    title = "tl_findings" if rep.format.startswith("nsys") else "tl_findings_timeline"  # Nsight's rules, or ours
    for i, fd in enumerate(rep.findings):
        rows.append((f.label(title) if i == 0 else "", f.note(fd.message)))
    kept = [n for n in rep.notes if not (rep.invalid and n.key == "tl_invalid_records")]  # a row below says it
    if kept and notes is None:
        rows.append((f.label("notes"), f.notes(kept)))
    for n in kept if notes is not None else ():
        notes.add(f.note(n), "")
    if rep.not_computable:
        rows.append((f.label("tl_not_computable"), f.listing(f.label(f"tl_nc_{k}") for k in rep.not_computable)))
    if rep.invalid:
        rows.append((f.label("tl_invalid"), f.semi.join(
            f.note(Note("tl_invalid_item", {"n": r.count, "kind": f.label(f"tl_record_{r.kind}"), "name": safe(r.name),
                                            "reason": safe(f.problem(r.reason))})) for r in rep.invalid)))
    if rep.repaired:
        rows.append((f.label("tl_repaired"), repaired_text(rep, f)))
    if rep.problems:
        rows.append((f.label("problems"), safe(f.semi.join(map(f.problem, rep.problems)))))
    return rows


# ----------------------------------------------------------------------------------------------- table
#: Label keys of the columns holding words, not numbers: left-justified and wrapped in the table view.
TEXT_COLUMNS = ("bound", "tl_one_off_why", "tl_join_top_finding", "tl_join_kernel_speedup", "tl_join_launch", "tl_join_report", "fu_bytes", "fu_route", "fu_column")


#: Label keys of the tables the short report keeps (the others: ``--details``).
BRIEF_TABLES = ("tl_devices", "tl_ranks", "tl_top_kernels", "tl_join_title", "tl_join_absent", "fu_title")


def _parts(rep: TimelineReport, f: Fmt, top: int, join: KernelJoin | None, details: bool):
    """(overview rows, tables, closing rows, footnotes or None, the names of the tables left out or None)
    of one report; the short report (``details`` False) keeps the tables of :data:`BRIEF_TABLES` (of the fusion
    chains the first :data:`.brief.TOP_FINDINGS`)."""
    notes = None if details else Footnotes()
    overview, sections = _overview(rep, f, notes), _sections(rep, f, top, join)
    if notes is None:
        return overview, sections, _closing(rep, f), None, None
    keep = tuple(f.label(k, n=0, top=0).split("0")[0] for k in BRIEF_TABLES)
    kept = [(t, h, r[:TOP_FINDINGS] if t.startswith(f.label("fu_title")) else r) for t, h, r in sections if t.startswith(keep)]
    dropped = [re.split(r" ?[(（:：;；]", s[0])[0] for s in sections if not s[0].startswith(keep)]
    return overview, kept, _closing(rep, f, notes), notes, f.listing(dropped) or None  # None: no table left out


def renderables(reports: Sequence[TimelineReport], lang: str, top: int = 10,
                joins: Sequence[KernelJoin | None] | None = None, details: bool = True) -> list[RenderableType]:
    """rich renderables for each report, in input order (``joins``: see :func:`render_timeline`; ``details``: every
    table and note, else the short report of :func:`_parts`)."""
    from rich import box
    from rich.padding import Padding
    from rich.table import Table
    from rich.text import Text

    from .cjk_console import PATH, name_text, path_text
    from .fit import fills, narrow_form

    f = _F(lang)
    out: list[RenderableType] = []
    for rep, join in zip(reports, _joins(reports, joins)):
        overview, sections, closing, notes, more = _parts(rep, f, top, join, details)
        out.append(Text(f.label("tl_title"), style="bold"))
        t = Table(box=box.SIMPLE, show_header=False)
        t.add_column(style="bold", no_wrap=True)
        t.add_column(overflow="fold")
        for label, value in overview:  # the input's path wraps between its parts
            t.add_row(Text(label), path_text(value) if label == f.label("tl_input") else Text(value))
        out.append(t)
        text_columns = {f.label(k) for k in TEXT_COLUMNS}
        labelled = tuple(re.split(r"[0(（]", f.label(k, n=0, top=0))[0] for k in LABEL_NAME_TABLES)  # any variant
        for title, head, rows in sections:
            tab = Table(title=title, box=box.SIMPLE_HEAD, title_justify="left")
            if isinstance(title, Captioned):  # each part of the caption goes with the columns it describes (fit)
                tab._refit = lambda t, c=title: setattr(t, "title", c.shown([str(col.header) for col in t.columns],
                                                                        getattr(t, "_before", None)))
            for i, h in enumerate(head):
                if i == 0:
                    tab.add_column(h, justify="left", overflow="fold", min_width=12)
                elif h in text_columns:
                    tab.add_column(h, justify="left", overflow="fold")
                else:
                    tab.add_column(h, justify="right", no_wrap=True)
            for r in rows:
                tab.add_row(name_text(r[0]), *(name_text(c) if PATH.fullmatch(c) else Text(c) for c in r[1:]))
            if head[0] == f.label("fu_chain"):  # a chain: the room the numbers leave; too narrow, the fusion
                narrow_form(fills(tab, 0), lambda t=title, h=head, r=rows: narrow_parts(t, h, r))  # command's parts
            out.append(tab)
        if closing:  # after a table, whose last line is blank already: no blank edge above, one below
            t = Table(box=box.SIMPLE, show_header=False, show_edge=False)
            t.add_column(style="bold", no_wrap=True)
            t.add_column(overflow="fold")
            for i, (label, value) in enumerate(closing):  # a blank line before each labelled row but the first
                under = label if label or not i else under  # the checks are a list: a bullet, lines hanging
                bullet = "• " if under in (f.label("tl_findings"), f.label("tl_findings_timeline")) else ""
                t.add_row(Text(label), Text(bullet + value), end_section=bool(closing[i + 1:] and closing[i + 1][0]))
            out.append(Padding(t, (0, 0, 1, 1)))
        if notes is not None:
            out += footnote_table(notes, f, "brief_more_tables" if more else "brief_more_rows", names=more)
    return out


# ----------------------------------------------------------------------------------------------- markdown
def _cell(text: str) -> str:
    return md_cell(text)


def to_markdown(reports: Sequence[TimelineReport], lang: str, top: int = 10,
                joins: Sequence[KernelJoin | None] | None = None, details: bool = True) -> str:
    """Markdown: per report, an overview list and GitHub tables (``details``: as :func:`renderables`)."""
    f = _F(lang)
    lines: list[str] = []
    for rep, join in zip(reports, _joins(reports, joins)):
        overview, sections, closing, notes, more = _parts(rep, f, top, join, details)
        lines += [f"## {f.label('tl_title')}", ""]
        # names, the path in spans; a row without a label continues the one above
        lines += md_labelled([(_cell(label), _md_value(label, value, f)) for label, value in overview], f.colon, f.semi)
        lines.append("")
        text_columns = {f.label(k) for k in TEXT_COLUMNS}
        labelled = tuple(re.split(r"[0(（]", f.label(k, n=0, top=0))[0] for k in LABEL_NAME_TABLES)  # any variant
        for title, head, rows in sections:  # words left-aligned (as in the table view), numbers right
            head_text, _, caption = (title.head, "", title.caption()) if isinstance(title, Captioned) \
                else str(title).partition(f.semi)  # the heading: the title alone, its caption below
            lines += [f"### {_cell(head_text)}", ""] + ([("\\" if caption[0] in "*-+#" else "") + md_prose(caption), ""] if caption else [])
            lines += ["| " + " | ".join(_cell(h) for h in head) + " |",
                      "|" + "".join("---|" if i == 0 or h in text_columns else "---:|" for i, h in enumerate(head))]
            names = head[:1] == [f.label("tl_name")] and not head_text.startswith(labelled)  # kernel / API names
            chains = head_text.startswith(f.label("fu_title").split(f.semi)[0])  # the fusion table, rows in rep.fusion order
            lines += ["| " + " | ".join(md_chain_cell(rep.fusion[n], n + 1, f) if chains and not i
                                        else _md_name(c, f) if names and not i else _cell(c) for i, c in enumerate(r))
                      + " |" for n, r in enumerate(rows)]
            lines.append("")
        label = ""
        for own, value in closing:  # each bullet with its label (a table row under the one above inherits it)
            label = own or label
            lines.append(md_label_line(_cell(label), md_prose(value), f.colon))
        lines.append("")
        if notes is not None:
            lines += footnote_markdown(notes, f, md_prose, "brief_more_tables" if more else "brief_more_rows",
                                       names=more)
    from .rich_text import md_spaced  # (not at import: a timeline's JSON loads no rich)

    return md_spaced("\n".join(lines))


# ----------------------------------------------------------------------------------------------- JSON
def _note(n: Note) -> Note:
    return Note(n.key, {k: _plain(v) for k, v in n.values.items()})


def _findings(items: Sequence[Finding], f: Fmt) -> list[TimelineFindingDoc]:
    """The common finding documents with the time and count each concerns, and the keys ``rule`` / ``note`` of
    earlier timeline documents (the same as ``id`` / ``message``)."""
    out = []
    for fd in items:
        plain = replace(fd, message=_note(fd.message), estimated_speedup=_plain(fd.estimated_speedup),
                        evidence=tuple(replace(e, value=_plain(e.value)) for e in fd.evidence))
        doc = findings((plain,), f)[0]
        time_s, count = time_and_count(plain)
        out.append(TimelineFindingDoc(**msgspec.structs.asdict(doc), rule=doc.id, note=doc.message,
                                      time_s=time_s, count=count))
    return out


def _amdahl(a: Amdahl | None) -> AmdahlDoc | None:
    return None if a is None else _copy(AmdahlDoc, a)


def _share(s: ScopeShare) -> ScopeShareDoc:
    return _copy(ScopeShareDoc, s, amdahl=_amdahl(s.amdahl))


def _item(it: ItemStat) -> ItemStatDoc:
    return _copy(ItemStatDoc, it, amdahl=_amdahl(it.amdahl),
                 launch=None if it.launch is None else _copy(LaunchShapeDoc, it.launch),
                 devices=[_share(s) for s in it.devices])


def _split(d: TimeSplit) -> TimeSplitDoc:
    return _copy(TimeSplitDoc, d, copies=[_copy(CopyDirectionDoc, c) for c in d.copies],
                 gaps=None if d.gaps is None else _copy(GapHistogramDoc, d.gaps))


def _ncu_doc(k: JoinedKernel, f: Fmt) -> NcuKernelDoc | None:
    """The Nsight Compute launch a top kernel was joined to, with its diagnosis' summary (None: no data)."""
    n = k.ncu
    if n is None:
        return None
    d, top = n.diagnosis, n.top_finding
    kp = d.kernel
    return _copy(NcuKernelDoc, n, index=kp.index, name=kp.name, demangled_name=kp.demangled_name,
                 duration_s=_plain(kp.duration_s), grid=_plain(kp.launch.grid), block=_plain(kp.launch.block),
                 bound=d.bound, verdict=list(n.verdict), top_finding=None if top is None else findings((top,), f, d)[0],
                 top_finding_title=None if top is None else f.finding_title(top.id, top))


def _join_doc(join: KernelJoin, f: Fmt) -> KernelsJoinedDoc:
    """The top kernels joined with their Nsight Compute diagnoses as a document."""
    return _copy(KernelsJoinedDoc, join,
                 kernels=[_copy(JoinedKernelDoc, k, amdahl=_amdahl(k.amdahl), ncu=_ncu_doc(k, f)) for k in join.kernels],
                 absent=[_copy(AbsentKernelDoc, a) for a in join.absent])


def report_doc(rep: TimelineReport, f: Fmt, join: KernelJoin | None = None) -> TimelineReportDoc:
    """One report as a document (``join``: its top kernels joined with Nsight Compute diagnoses)."""
    bh = _black_hole_note(rep, f.lang)
    b = rep.black_hole
    return _copy(TimelineReportDoc, rep,
        devices=[_split(d) for d in rep.devices], streams=[_split(d) for d in rep.streams],
        kernels=[_item(i) for i in rep.kernels], copies=[_item(i) for i in rep.copies],
        memsets=[_item(i) for i in rep.memsets], api_calls=[_item(i) for i in rep.api_calls],
        syncs=[_item(i) for i in rep.syncs], annotations=[_item(i) for i in rep.annotations],
        launch=None if rep.launch is None else _copy(LaunchOverheadDoc, rep.launch),
        graphs=None if rep.graphs is None else _copy(GraphUseDoc, rep.graphs),
        launch_bound=None if rep.launch_bound is None else _copy(LaunchBoundDoc, rep.launch_bound),
        tiny_kernels=[_copy(TinyKernelDoc, t) for t in rep.tiny_kernels],
        black_hole=None if b is None else _copy(BlackHoleDoc, b, amdahl=_amdahl(b.amdahl),
                                                lane=None if b.lane is None else _share(b.lane)),
        gpu_idle=None if rep.gpu_idle is None else _item(rep.gpu_idle),
        communication=None if rep.communication is None else _item(rep.communication),
        steps=None if rep.steps is None else _copy(StepsDoc, rep.steps),
        ranks=[_copy(RankRowDoc, r) for r in rep.ranks], findings=_findings(rep.findings, f),
        notes=notes([_note(n) for n in rep.notes], f), invalid=[_copy(InvalidRecordDoc, r) for r in rep.invalid],
        repaired=repaired_docs(rep), one_off_calls=one_off_docs(rep),
        kernel_time_s=_plain(rep.kernel_time_s), black_hole_text=f.note(bh) if bh is not None else None,
        kernels_joined=None if join is None else _join_doc(join, f),
        fusion=[fusion_doc(e, f) for e in rep.fusion],
    )


def timeline_doc(reports: Sequence[TimelineReport], lang: str = "en",
                 joins: Sequence[KernelJoin | None] | None = None) -> TimelineDoc:
    """The ``kernelscope.timeline/1`` document of ``reports`` (``joins``: see :func:`render_timeline`)."""
    f = _F(lang)
    return TimelineDoc(schema=SCHEMA, kernelscope_version=__version__, lang=lang,  # type: ignore[arg-type]
                       reports=[report_doc(rep, f, join) for rep, join in zip(reports, _joins(reports, joins))])


def to_json(reports: Sequence[TimelineReport], lang: str = "en",
            joins: Sequence[KernelJoin | None] | None = None) -> dict:
    """The document as plain JSON-ready Python (dicts, lists, numbers, strings, None): every field of every report;
    times in seconds (``*_s``), percentages ``*_pct``, fractions 0-1, timestamps ``*_ns``, sizes in bytes."""
    return msgspec.to_builtins(timeline_doc(reports, lang, joins), enc_hook=enc_hook)


def to_json_text(reports: Sequence[TimelineReport], lang: str = "en",
                 joins: Sequence[KernelJoin | None] | None = None) -> str:
    """The document as JSON text (schema ``schemas/timeline-1.schema.json``)."""
    return encode(timeline_doc(reports, lang, joins))

"""The words and table cells of where in the code (:class:`~kernelscope.analysis.source.LaunchSource`), shared by
every rendering of it: ``kernelscope source`` in each format (:mod:`kernelscope.render.source`,
:mod:`kernelscope.render.source_html`) and the where-in-the-code parts of ``diagnose --format html/markdown``.

Every string from the report (file names, source and SASS text) is made safe for a terminal (:func:`safe`); the
HTML escapes it on top. No analysis here.
"""

from __future__ import annotations

from typing import Sequence

from ..analysis.source import Counters, HotInstruction, HotLine, LaunchSource, StallSamples
from ..knowledge.text import labels
from ..notes import Note
from .common import Fmt, md_cell, md_code, safe, short_name
from .numbers import NO_VALUE

#: Printed where a counter does not apply to an instruction or line (e.g. sectors of an arithmetic instruction).
NA = NO_VALUE  # one "no value" mark in every table (the timeline, roofline and ceilings tables: "-")
#: Stall reasons shown per row in the text views.
STALLS_SHOWN = 2
#: The top healthy state (selected, not selected, math pipe throttle) is shown from this share of the samples up.
HEALTHY_SHOWN = 0.05


def base_name(path: str) -> str:
    """A file name without its folders (either slash)."""
    return path.replace("\\", "/").rsplit("/", 1)[-1]


def count_text(value: float | None, f: Fmt) -> str:
    """A count in a table's count column as :meth:`Fmt.table_count` writes it (the whole number: ``111104``), or
    "-"; prose words counts with :meth:`Fmt.count` (``11.1 万``, ``111 k``)."""
    return NA if value is None else f.table_count(value)




def _ratio(value: float | None, f: Fmt) -> str:
    return NA if value is None else f.factor(value, 1)


def _stalls(items: Sequence[StallSamples], f: Fmt, shown: int = STALLS_SHOWN) -> str:
    """The main stall reasons of a line, whole percentages (``不足 1%`` for a tiny one); one with no share is not listed."""
    return f.listing(f.spaced(f.stall_name(s.reason), f.pct(s.share * 100, 0)) for s in items[:shown] if s.share > 0)


def stall_text(c: Counters, f: Fmt) -> str:
    """"Long Scoreboard 97%, Wait 1% (not stalls: Selected 2%)": the top unhealthy stalls and the top healthy state
    (when at least :data:`HEALTHY_SHOWN` of the samples), each as a share of the instruction's or line's samples;
    "-" without samples."""
    text = _stalls(c.stalls, f)
    if c.healthy and c.healthy[0].share >= HEALTHY_SHOWN:
        healthy = f.head(f.label("src_not_stalls"), _stalls(c.healthy, f, 1))
        # zh: the stall names carry their gloss "（…）", so the healthy state follows after "；", not in brackets
        text = (text + (f.semi + healthy if f.zh else f.paren(healthy))) if text else healthy
    return text or NA


def threads_text(c: Counters, digits: int = 1) -> str:
    """Active threads per executed instruction, of 32, at ``digits`` decimals."""
    return NA if c.thread_efficiency is None else f"{c.thread_efficiency * 32:.{digits}f}"


def column_digits(values: Sequence[float | None]) -> int:
    """The decimals of a column of one-decimal values: none when every value is whole at one decimal (``32``,
    ``32×``, not ``32.0``, ``32.0×``), else one for all (``1.0×`` above ``2.5×``)."""
    return 0 if all(v is None or round(v, 1) == round(v) for v in values) else 1


def offset_text(h: HotInstruction) -> str:
    """``+0x0240`` (from the function's first PC), or the PC when that is not recorded."""
    return f"+{h.offset:#06x}" if h.offset is not None else f"{h.pc:#x}"


def launch_title(ls: LaunchSource, f: Fmt) -> str:
    """"Where in the code: [1] name"."""
    return safe(f.label("src_title", index=ls.kernel.index, name=short_name(ls.kernel.name)))


def launch_lines(ls: LaunchSource, f: Fmt) -> list[str]:
    """The lines under a launch's title: duration and ranking, then what the report lacks for this view."""
    if ls.ranked_by == "smsp__pcsamp_sample_count":
        ranked = f.label("src_ranked_samples", n=f.count(ls.total_samples or 0))  # the one count format
    elif ls.ranked_by == "inst_executed":
        ranked = f.label("src_ranked_executed", n=f.count(ls.total_executed or 0))
    else:
        ranked = f.label("src_ranked_none")
    return [f.head(f.label("duration"), f.time(ls.kernel.duration_s)) + f.semi + ranked, *launch_notes(ls, f)]


def launch_notes(ls: LaunchSource, f: Fmt) -> list[str]:
    """What the report lacks for this view: line information (``-lineinfo``), the source text (``--import-source``)."""
    if not ls.has_lines:
        return [f.label("src_no_lines")]
    if ls.lines and all(line.text is None for line in ls.lines):
        return [f.label("src_no_text")]
    return []


def statement_text(line: HotLine, f: Fmt) -> str:
    """A hot line's statement in ``f``'s language, for the cell beside its file:line, which it does not repeat
    ("100% of all LG Throttle samples ...; its global accesses fetch 9.0x the sectors they need ..."): each note
    worded by its ``{key}_cell`` template where it has one."""
    cell = labels().note
    return f.label("src_join").join(f.note(Note(f"{n.key}_cell", n.values) if f"{n.key}_cell" in cell else n)
                                    for n in line.statement)


def instruction_head(f: Fmt) -> list[str]:
    """Column titles of the instruction table."""
    keys = ("src_offset", "src_sass", "src_samples", "src_share", "src_stalls", "src_executed", "src_threads",
            "src_sectors", "src_wavefronts", "src_nway")
    return [f.label(k) for k in keys]


def instruction_cells(h: HotInstruction, f: Fmt) -> list[str]:
    """One instruction's cells, in :func:`instruction_head` order."""
    c = h.counters
    return [offset_text(h), safe(h.sass or NA), count_text(c.samples, f), f.share(c.share) if c.share is not None else NA,
            stall_text(c, f), count_text(c.inst_executed, f), threads_text(c), _ratio(c.sector_ratio, f),
            _ratio(c.wavefront_ratio, f), NA if c.nway is None else f"{c.nway:g}"]


def _count_columns(rows: list[list[str]], columns: dict[int, list[float | None]], f: Fmt) -> list[list[str]]:
    """``rows`` with each count column ``i`` rewritten from its values as one column of whole numbers
    (:func:`count_text`), "-" kept where a value is missing."""
    for i, values in columns.items():
        for row, value in zip(rows, values):
            row[i] = count_text(value, f)
    return rows


def instruction_rows(instructions: Sequence[HotInstruction], f: Fmt) -> list[list[str]]:
    """:func:`instruction_cells` of each instruction, its samples and executed columns each in one precision, its
    threads and ratio columns each at the decimals :func:`column_digits` gives them."""
    rows = [instruction_cells(h, f) for h in instructions]
    counters = [h.counters for h in instructions]
    d = column_digits([None if c.thread_efficiency is None else c.thread_efficiency * 32 for c in counters])
    for row, c in zip(rows, counters):
        row[6] = threads_text(c, d)
    for i, name in ((7, "sector_ratio"), (8, "wavefront_ratio")):
        d = column_digits([getattr(c, name) for c in counters])
        for row, c in zip(rows, counters):
            row[i] = NA if getattr(c, name) is None else f.factor(getattr(c, name), d)
    return _count_columns(rows,
                          {2: [h.counters.samples for h in instructions],
                           5: [h.counters.inst_executed for h in instructions]}, f)


def line_head(f: Fmt) -> list[str]:
    """Column titles of the line table."""
    return [f.label(k) for k in ("src_where", "src_line_text", "src_samples", "src_share", "src_instructions",
                                 "src_cause")]


def finding_titles(ids: Sequence[str], f: Fmt) -> str:
    """The titles of findings (``data/findings.toml``) in ``f``'s language, as a list (:meth:`Fmt.listing`)."""
    return f.listing(f.finding_title(i) for i in ids)


def line_cells(line: HotLine, f: Fmt, findings: bool = True) -> list[str]:
    """One line's cells, in :func:`line_head` order; with ``findings``, its last ("At this line") cell ends with
    an arrow ("->", "→" in Chinese) and the titles of the line's own findings (the HTML shows them as badges
    instead), then each finding located at one of its instructions only, named as that instruction's ("at its
    instruction +0x02b0: MIO queue full (MIO Throttle)")."""
    c = line.counters
    cause = statement_text(line, f)
    if findings and line.findings:
        cause += f.arrow + finding_titles(line.findings, f)
    if findings and line.at_instructions:
        cause += f.label("src_join") + f.label("src_join").join(at_instruction_texts(line, f))
    return [safe(f"{base_name(line.file)}:{line.line}"), safe(line.text) if line.text is not None else NA,
            count_text(c.samples, f), f.share(c.share) if c.share is not None else NA, str(len(line.pcs)), cause]


def at_instruction_texts(line: HotLine, f: Fmt) -> list[str]:
    """Per instruction of ``line`` with findings located there that the line's own samples do not show: "at its
    instruction +0x02b0: MIO queue full (MIO Throttle)", in ``f``'s language, by PC."""
    by_pc: dict[tuple[int, int | None], list[str]] = {}
    for a in line.at_instructions:
        by_pc.setdefault((a.pc, a.offset), []).append(a.finding)
    return [f.label("src_at_instruction", offset=f"+{offset:#06x}" if offset is not None else f"{pc:#x}",
                    findings=finding_titles(ids, f)) for (pc, offset), ids in sorted(by_pc.items())]


def line_rows(lines: Sequence[HotLine], f: Fmt, findings: bool = True) -> list[list[str]]:
    """:func:`line_cells` of each line, its samples column in one precision."""
    return _count_columns([line_cells(x, f, findings) for x in lines], {2: [x.counters.samples for x in lines]}, f)


# ----------------------------------------------------------------------------------------------- markdown
def md_table(head: list[str], rows: list[list[str]], right: set[int]) -> list[str]:
    """A Markdown table: ``head``, then ``rows`` (cells as they are, escaped), the columns in ``right`` right-aligned."""
    out = ["| " + " | ".join(md_cell(h) for h in head) + " |",
           "|" + "|".join("---:" if i in right else "---" for i in range(len(head))) + "|"]
    return out + ["| " + " | ".join(md_cell(c) for c in r) + " |" for r in rows]


def lines_markdown(ls: LaunchSource, f: Fmt) -> list[str]:
    """The hottest lines of a launch as a Markdown table (source text as code, each line's statement and findings);
    no lines: []."""
    if not ls.lines:
        return []
    code = [[c if i != 1 else (md_code(c) if c != NA else c) for i, c in enumerate(row)] for row in line_rows(ls.lines, f)]
    return md_table(line_head(f), code, {2, 3, 4})

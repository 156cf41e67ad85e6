"""The short default of the terminal and Markdown reports (``--details`` gives them whole; the JSON is always
complete): per kernel what an engineer reads first (the verdict, the limiter, the top findings with their estimates
and where in the code), the caveats once per report as footnotes, and a line naming what ``--details`` adds."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence, TypeVar

from .common import Fmt

if TYPE_CHECKING:  # (the kernel rows load where a diagnosis is rendered: a timeline's report needs only the notes)
    from ..analysis.diagnosis import KernelDiagnosis
    from ..analysis.groups import LaunchGroup

T = TypeVar("T")

#: Findings per kernel the short report shows (the rest: ``--details``).
TOP_FINDINGS = 3
#: Rows of a long comparison or ranking the short report shows (the rest: ``--details``).
TOP_ROWS = 5


class Footnotes:
    """The caveats of one report, each text once, with the panels it applies to (in first-seen order)."""

    def __init__(self) -> None:
        self._where: dict[str, list[str]] = {}

    def add(self, text: str | None, where: str) -> None:
        """Record ``text`` (None: nothing) as applying to the panel ``where`` (e.g. ``"[1]"``)."""
        if text:
            panels = self._where.setdefault(text, [])
            if where not in panels:
                panels.append(where)

    def items(self) -> list[tuple[str, str]]:
        """("[1] [2]", text) per caveat, in first-seen order; empty when there is none."""
        return [(" ".join(w), text) for text, w in self._where.items()]

    def panels(self) -> bool:
        """Whether a caveat names panels (``"[1]"``): a report of panels (diagnose), not of tables (timeline)."""
        return any(w.startswith("[") for where in self._where.values() for w in where)


def brief_rows(d: KernelDiagnosis, f: Fmt, notes: Footnotes) -> list[tuple[str, str]]:
    """The rows of one kernel's short panel: launch shape, duration, the verdict, the limiter (the busiest unit of
    each side), the data problems, then the top :data:`TOP_FINDINGS` findings worth acting on (a gain of at least
    ``min_worthwhile_speedup``, or not estimated) with their estimates and locations;
    its GPU, ceilings and notes go to ``notes`` (printed once per report)."""
    from .rows import advice_lines, data_rows, gloss_once, kernel_notes, unit_line

    k = d.kernel
    rows: list[tuple[str, str]] = []
    launch = k.launch
    if launch.grid is not None and launch.block is not None:
        rows.append((f.label("launch_config"),
                     f.grid_block(launch.grid, launch.block)))
    rows.append((f.label("duration"), f.time(k.duration_s)))
    rows.append((f.label("bound"), f.bounds(d.verdict)))
    limiter = unit_line(d, f, top=1)
    if limiter is not None:
        rows.append((f.label("busiest_units"), limiter))
    else:  # no Speed-of-Light breakdown: its two figures are the limiter
        rows.append((f.label("sol"), f.sol_values(d.sol.compute_pct, d.sol.memory_pct)))
    rows += data_rows(k, f)
    advice = advice_lines(d, f, worthwhile_only=True)  # a gain below min_worthwhile_speedup: --details
    for i, text in enumerate(advice[:TOP_FINDINGS], 1):
        rows.append((f.label("advice") if i == 1 else "", f"{i}. {text}"))
    hidden = len(d.advice_findings) - min(len(advice), TOP_FINDINGS)
    if hidden > 0:
        rows.append((f.label("advice") if not advice else "", f.label("brief_more_advice", n=hidden)))
    where = f"[{k.index}]"
    notes.add(f.notes(d.provenance) if d.provenance else None, where)
    for n in kernel_notes(d):
        notes.add(f.note(n), where)
    return gloss_once(rows, f)


def brief_group_rows(g: LaunchGroup | None, f: Fmt) -> list[tuple[str, str]]:
    """A group's rows in the short panel: its launches and total, and the launches that differ (the spread is
    ``--details``); none for a single launch."""
    from .launch_groups import group_rows

    rows = group_rows(g, f) if g is not None else []
    return [rows[0], rows[2]] if len(rows) == 3 else rows


def top_by(items: Sequence[T], key, n: int = TOP_ROWS) -> tuple[list[T], int]:
    """The ``n`` items of largest ``key`` in their given order, and how many were left out."""
    if len(items) <= n:
        return list(items), 0
    keep = set(sorted(range(len(items)), key=lambda i: -key(items[i]))[:n])
    return [x for i, x in enumerate(items) if i in keep], len(items) - n


def footnote_block(notes: Footnotes, f: Fmt, more_key: str = "brief_more", **more: object) -> tuple[str, list[tuple[str, str]], str]:
    """The footnote section of a short report: (its title, ("[1] [2]", caveat) per caveat, the line naming
    ``--details``: label ``more_key`` with ``more``)."""
    title = f.label("brief_notes" if notes.panels() else "brief_notes_plain")  # "[n]" explained only where used
    return title, notes.items(), f.label(more_key, **more)


def footnote_table(notes: Footnotes, f: Fmt, more_key: str = "brief_more", **more: object) -> list:
    """:func:`footnote_block` as rich renderables: a two-column table (none without caveats), then the line."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    title, items, line = footnote_block(notes, f, more_key, **more)
    out: list = []
    if items:
        t = Table(title=Text(title, style="bold"), box=box.SIMPLE, show_header=False, title_justify="left")
        t.add_column(no_wrap=True)
        t.add_column(overflow="fold")
        for where, text in items:
            t.add_row(Text(where), Text(text))
        out.append(t)
    return out + [Text(line)]


def footnote_markdown(notes: Footnotes, f: Fmt, cell, more_key: str = "brief_more", **more: object) -> list[str]:
    """:func:`footnote_block` as Markdown lines (``cell`` escapes a text for a table cell or list item)."""
    from .inline import md_label_line

    title, items, line = footnote_block(notes, f, more_key, **more)
    out = [f"**{cell(title)}**", ""] + [md_label_line(cell(w), cell(t), f.colon) for w, t in items] + [""] \
        if items else []
    return out + [cell(line), ""]

"""Rendering of the fusion estimate (:class:`~kernelscope.analysis.fusion.FusionEstimate`): the table section and
the worded lines the timeline shows, the JSON documents, and the whole output of ``kernelscope fusion``. No analysis
here."""

from __future__ import annotations

import math
from typing import Callable, Sequence

from ..analysis.fusion import FusionEstimate, FusionKernel
from ..notes import Note
from ..version import __version__
from .common import Fmt, data_size, md_cell, md_code, safe, short_names
from .inline import md_prose
from .numbers import negligible_gain, rate
from .documents import encode
from .documents.fusion import FusionCommandDoc, FusionDoc, FusionKernelDoc

Section = tuple[str, list[str], list[list[str]]]
#: Widest kernel name in a chain cell.
CHAIN_NAME_WIDTH = 40
#: The columns of the fusion table that hold words (the chain, the bytes, the route): left-aligned in every view.
TEXT_COLUMNS = (0, 3, 8)


def _x(value: float | None, f: Fmt, whole: bool = False) -> str:
    """A speedup in one precision (1.00x: negligible); ``whole``: an upper bound, the chain's kernel count (16x)."""
    return f.nm if value is None else f.gain_factor(value, whole)


def _bytes(value: float | None, f: Fmt) -> str:
    return f.nm if value is None else data_size(value, 4)


def chain_text(e: FusionEstimate, width: int = CHAIN_NAME_WIDTH, zh: bool = False,
               code: Callable[[str], str] | None = None) -> str:
    """The chain as ``GEMM ⇒ a → b → c`` (the epilogue head first, when there is one): each kernel by the host
    operator that launched it when the trace records it (``aten::gelu``), else by its name, shortened so that
    different kernels stay apart (:func:`short_names`). A run of repeats is written once with its count
    (:func:`compressed`): ``(a → b → c) × 4``, never the same kernels four times over. ``code``: how each name is
    written (Markdown: a code span), the arrows and counts around it as they are."""
    kernels = ([e.head] if e.head is not None else []) + list(e.kernels)
    shorts = iter(short_names([k.name for k in kernels], width))
    words = [safe(k.operator) if k.operator else short for k, short in zip(kernels, shorts)]
    words = [code(w) for w in words] if code is not None else words
    text = compressed(words[1:] if e.head is not None else words, zh)
    return text if e.head is None else f"{words[0]} ⇒ {text}"


def periods(words: Sequence[str]) -> list[tuple[list[str], int]]:
    """``words`` as (block, count) runs: at each place the repeated block that covers the most words (at least two
    copies back to back; of equal cover the shortest block), else the one word once. ``a b c b c b c d`` ->
    ``[([a], 1), ([b, c], 3), ([d], 1)]``; ``a a a a`` -> ``[([a], 4)]``."""
    out: list[tuple[list[str], int]] = []
    i, n = 0, len(words)
    while i < n:
        best = (1, 1)  # (period, copies)
        for p in range(1, (n - i) // 2 + 1):
            copies = 1
            while i + (copies + 1) * p <= n and words[i + copies * p:i + (copies + 1) * p] == words[i:i + p]:
                copies += 1
            if copies >= 2 and p * copies > best[0] * best[1]:
                best = (p, copies)
        p, copies = best
        out.append((list(words[i:i + p]), copies))
        i += p * copies
    return out


def compressed(words: Sequence[str], zh: bool = False) -> str:
    """``words`` joined by `` → ``, each repeated run once with its count: ``(addcmul → sqrt → add) × 4`` (in
    Chinese ``（addcmul → sqrt → add）× 4``), a repeated single word ``add × 4``."""
    parts = []
    for block, copies in periods(words):
        text = " → ".join(block)
        if copies == 1:
            parts.append(text)
        elif len(block) == 1:
            parts.append(f"{text} × {copies}")
        else:
            parts.append(f"（{text}）× {copies}" if zh else f"({text}) × {copies}")
    return " → ".join(parts)


def _steps_part(e: FusionEstimate, f: Fmt) -> str:
    """"(16/step)" / "（每步 16 次）" where the chain runs a whole number of times per step, else the steps its runs
    fall in, "(in 3 steps)" / "（共 3 步）" (never a fraction of a run: "每步 0.25 次"); "" without steps."""
    if e.per_step is None or not e.steps:
        return ""
    if abs(e.per_step - round(e.per_step)) < 1e-9:
        return f.paren(f.label("fu_per_step", n=f"{round(e.per_step)}"))
    return f.paren(f.label("fu_over_steps", steps=e.steps))


def _runs(e: FusionEstimate, f: Fmt) -> str:
    """The table's runs cell: "48", "48 (16/step)", "13 (in 3 steps)"."""
    return f"{e.occurrences}{_steps_part(e, f)}"


def _runs_text(e: FusionEstimate, f: Fmt) -> str:
    """The runs in a sentence, the count with its measure word before the per-step part: "48 runs (16/step)",
    "48 次（每步 16 次）" (never "48（每步 16 次）次")."""
    return f"{f.label('fu_runs_count', n=e.occurrences)}{_steps_part(e, f)}"


def _one(e: FusionEstimate) -> str:
    """"_one" for a chain run once (its summary says so, not "saves X per run, 1 run, X saved"), else ""."""
    return "_one" if e.occurrences == 1 and e.per_step is None else ""


def _bytes_cell(e: FusionEstimate, f: Fmt, assumed_below: bool = False) -> str:
    """The bytes before -> after; without byte counts the assumption the estimate made, in the words its summary
    sentence uses (:func:`summary_note`): an epilogue chain's own traffic assumed gone (never the plain chain's
    "each kernel reads the previous one's output", which is not what an epilogue's estimate assumes), a plain
    chain's assumed share of the traffic (never a bare 0.0%)."""
    if e.unfused_bytes is None:
        if e.head is not None:  # the assumption said once, in the lines below the table, where they are printed
            if assumed_below and ASSUMPTIONS & set(e.caveats):
                return f.label("fu_bytes_unrecorded_see")
            return f.note(Note("fu_bytes_epilogue_assumed", {}))
        return f.label("fu_bytes_unrecorded_share", fraction=f.share(e.bytes_fraction))
    return f"{_bytes(e.unfused_bytes, f)} → {_bytes(e.fused_bytes, f)}{f.paren(f.share(e.bytes_fraction))}"


def chain_legend(estimates: Sequence[FusionEstimate], f: Fmt) -> str | None:
    """What ⇒ and → mean, for the chains where ⇒ appears (a chain folded into a GEMM's epilogue), else None."""
    return f.label("fu_legend") if any(e.head is not None for e in estimates) else None


def md_chain_cell(e: FusionEstimate, i: int, f: Fmt) -> str:
    """A chain's cell in a Markdown table: ``#1 `a` → `b```, each kernel name a code span."""
    return md_cell(f"#{i} ") + chain_text(e, zh=f.zh, code=lambda w: md_code(md_cell(w)))


def fusion_section(estimates: Sequence[FusionEstimate], f: Fmt, assumed_below: bool = False) -> Section | None:
    """(title, header, rows) of the fusion candidates, or None when there are none; the title carries the legend
    of ⇒ where a chain has one (:func:`chain_legend`); ``assumed_below``: the assumptions are printed below the
    table (:func:`fusion_lines`), so a bytes cell taken as a chain refers to them ("not recorded (estimated, see
    assumptions)") instead of repeating the sentence on every row."""
    if not estimates:
        return None
    head = [f.label("fu_chain"), f.label("fu_runs"), f.label("fu_unfused"), f.label("fu_bytes"), f.label("fu_fused"),
            f.label("fu_bound"), f.label("fu_saving"), f.label("fu_program"), f.label("fu_route")]
    rows = []
    for i, e in enumerate(estimates):
        rows.append([f"#{i + 1} {chain_text(e, zh=f.zh)}", _runs(e, f), f.time(e.unfused_s), _bytes_cell(e, f, assumed_below),
                     _fused_cell(e, f), f.time(e.fused_bound_s),
                     _saving_cell(e, f),
                     f.share(e.program_fraction) + ("" if negligible_gain(e.program_speedup)
                                                    else f.paren(_x(e.program_speedup, f))),
                     f.label(f"fu_route_{e.route}")])
    legend = chain_legend(estimates, f)
    return f.label("fu_title") + ("" if legend is None else f.semi + legend), head, rows


def _saving_cell(e: FusionEstimate, f: Fmt) -> str:
    """The saving per run ("≤" on an upper bound); no saving is "none", never "≤ 0 s"."""
    if e.saving_s <= 0:
        return f.label("fu_saving_none")
    return ("≤ " if e.estimate_kind == "upper_bound" else "") + f.time(e.saving_s)


def _gain(e: FusionEstimate, f: Fmt) -> str:
    """The chain's speedup, "at most" on the assumed-chain basis (an upper bound)."""
    bound = e.estimate_kind == "upper_bound"  # n kernels into one at most n x: a whole bound prints whole (16x)
    x = _x(e.speedup, f, whole=bound)
    return f.label("fu_at_most", x=x) if bound else x


def _fused_cell(e: FusionEstimate, f: Fmt) -> str:
    """"62.15 µs (2.33x)" for a prediction; for an upper bound the least the fused time can be, "≥ 121.0 µs (at most
    2x)", or "not known (at most 1.32x)" when nothing bounds it from below (never a zero time beside a speedup)."""
    if e.fused_s is None or e.estimate_kind == "upper_bound":
        if e.fused_floor_s <= 0:
            return f.label("fu_fused_unknown", x=_gain(e, f))
        return f.label("fu_fused_at_least", time=f.time(e.fused_floor_s), x=_gain(e, f))
    return f.time(e.fused_s) + f.paren(_x(e.speedup, f))


def with_fusion_column(section: Section, names: Sequence[str], estimates: Sequence[FusionEstimate],
                       f: Fmt) -> Section:
    """``section`` (one row per kernel of ``names``, in order) with a column beside its per-kernel figures: the
    fusion candidate each kernel is in (its number in the fusion table) and that chain's program saving; the
    section unchanged when no kernel is in one."""
    cells = []
    for name in names:
        i = next((i for i, e in enumerate(estimates) if any(k.name == name for k in e.kernels)), None)
        cells.append("" if i is None else f.label("fu_in_chain", i=i + 1, share=f.share(estimates[i].program_fraction)))
    if not any(cells):
        return section
    title, head, rows = section
    return title, [*head, f.label("fu_column")], [[*r, c] for r, c in zip(rows, cells)]


#: The caveats that are assumptions the estimate makes (shown as their own row), not things it cannot know.
ASSUMPTIONS = frozenset({"assumed_chain", "epilogue_assumed"})


def summary_note(e: FusionEstimate, f: Fmt, i: int = 1) -> Note:
    """The candidate (number ``i`` of the table) in one sentence (its numbers are the estimate's own): a predicted
    fused time when the bytes are known, else the fused time said to be not known and the saving an upper bound;
    a fused time no shorter than the unfused one (at the precision shown) is said to save nothing."""
    fuse = f.note(Note("fu_fuse" if e.head is None else "fu_fuse_head", {"n": len(e.kernels)}))
    if e.fused_s is None:
        key = "fu_bytes_assumed" if e.head is None else "fu_bytes_epilogue_assumed"
        floor = (f.note(Note("fu_floor_zero", {})) if e.fused_floor_s <= 0
                 else f.note(Note("fu_floor_time", {"time": f.time(e.fused_floor_s)})))
        if e.saving_s <= 0 or e.total_saving_s <= 0:  # nothing to save: said so, never "at most 0 saved"
            return Note("fu_summary_bound_none", {
                "i": i, "n": len(e.kernels), "fuse": fuse,
                "bytes": f.note(Note(key, {"fraction": f.share(e.bytes_fraction)})), "floor": floor,
                "runs": _runs_text(e, f)})
        return Note("fu_summary_bound" + _one(e), {
            "i": i, "n": len(e.kernels), "fuse": fuse, "speedup": _gain(e, f),
            "bytes": f.note(Note(key, {"fraction": f.share(e.bytes_fraction)})), "floor": floor,
            "saving_run_s": e.saving_s, "runs": _runs_text(e, f), "saving_s": e.total_saving_s,
            "share": f.share(e.program_fraction), "program": _x(e.program_speedup, f)})
    bytes_text = f.note(Note("fu_bytes_known", {"unfused": _bytes(e.unfused_bytes, f),
                                                "fused": _bytes(e.fused_bytes, f),
                                                "fraction": f.share(e.bytes_fraction),
                                                "bw": rate(e.achieved_bytes_per_s)}))
    if e.saving_s <= 0 or f.time(e.fused_s) == f.time(e.unfused_s):  # no saving: said plainly, not compared
        return Note("fu_summary_none", {"i": i, "n": len(e.kernels), "fuse": fuse, "unfused_s": e.unfused_s,
                                        "bytes": bytes_text, "runs": _runs_text(e, f)})
    # a report's chain: the fused time at the bandwidth reached is the least it can be (the data flow assumed)
    return Note(("fu_summary_flow" if e.estimate_kind == "upper_bound" else "fu_summary") + _one(e), {
        "i": i, "n": len(e.kernels), "fuse": fuse,
        "speedup": _gain(e, f), "fused_s": e.fused_s, "unfused_s": e.unfused_s, "bytes": bytes_text,
        "runs": _runs_text(e, f), "saving_s": e.total_saving_s, "share": f.share(e.program_fraction),
        "program": _x(e.program_speedup, f)})


def fusion_headline(e: FusionEstimate, f: Fmt) -> str:
    """The largest candidate in one line, for the timeline's overview beside the black hole."""
    return f.note(Note("fu_headline", {"chain": chain_text(e, zh=f.zh), "saving_s": e.total_saving_s,
                                       "share": f.share(e.program_fraction), "program": _x(e.program_speedup, f),
                                       "speedup": _gain(e, f)}))


def advice_text(e: FusionEstimate, f: Fmt) -> str:
    """What to do for the candidate's route."""
    return f.note(Note(f"fu_advice_{e.route}", {}))


def fusion_lines(estimates: Sequence[FusionEstimate], f: Fmt) -> list[tuple[str, str]]:
    """(label, text) lines: per candidate its sentence, then its advice (in full at the first chain of its route,
    "same as chain 1" at the later ones); the assumptions, then the caveats, once after them."""
    rows: list[tuple[str, str]] = []
    first: dict[str, int] = {}  # route -> the number of the first chain advised so
    for i, e in enumerate(estimates):
        rows.append((f.label("fu_command_title") if i == 0 else "", f.note(summary_note(e, f, i + 1))))
        advice = advice_text(e, f) if e.route not in first else f.label("fu_advice_same", i=first[e.route])
        first.setdefault(e.route, i + 1)
        rows.append(("", f"{f.label('fu_advice')}{f.colon}{advice}"))
    caveats = list(dict.fromkeys(c for e in estimates for c in e.caveats))
    for label, group in (("fu_assumptions", [c for c in caveats if c in ASSUMPTIONS]),
                         ("fu_caveats", [c for c in caveats if c not in ASSUMPTIONS])):
        if group:
            rows.append((f.label(label), f.semi.join(f.note(Note(f"fu_caveat_{c}", {})) for c in group)))
    return rows


# ----------------------------------------------------------------------------------------------- JSON
def _num(v: float | None) -> float | None:
    return None if v is None or not math.isfinite(v) else float(v)


def _kernel_doc(k: FusionKernel) -> FusionKernelDoc:
    return FusionKernelDoc(name=k.name, operator=k.operator, family=k.family, time_s=k.time_s,
                           read_bytes=_num(k.read_bytes), write_bytes=_num(k.write_bytes))


def fusion_doc(e: FusionEstimate, f: Fmt) -> FusionDoc:
    """One candidate as a document (non-finite numbers are null)."""
    from .json_common import notes

    return FusionDoc(
        kernels=[_kernel_doc(k) for k in e.kernels], head=None if e.head is None else _kernel_doc(e.head),
        occurrences=e.occurrences, steps=e.steps, per_step=_num(e.per_step), unfused_s=e.unfused_s,
        unfused_bytes=_num(e.unfused_bytes), fused_bytes=_num(e.fused_bytes), bytes_fraction=e.bytes_fraction,
        bytes_basis=e.bytes_basis,  # type: ignore[arg-type]
        achieved_bytes_per_s=_num(e.achieved_bytes_per_s), peak_bytes_per_s=_num(e.peak_bytes_per_s),
        fused_s=_num(e.fused_s), fused_floor_s=e.fused_floor_s, fused_bound_s=_num(e.fused_bound_s), saving_s=e.saving_s,
        saving_bound_s=_num(e.saving_bound_s), speedup=_num(e.speedup), total_saving_s=e.total_saving_s,
        program_s=_num(e.program_s), program_fraction=_num(e.program_fraction),
        program_speedup=_num(e.program_speedup), estimate_kind=e.estimate_kind, route=e.route,  # type: ignore[arg-type]
        advice=advice_text(e, f), caveats=notes([Note(f"fu_caveat_{c}", {}) for c in e.caveats], f),
        device=e.device, stream=e.stream, rank=e.rank)


# ----------------------------------------------------------------------------------------------- the command
SCHEMA = "kernelscope.fusion/1"
FORMATS: tuple[str, ...] = ("table", "json", "markdown")


def render_fusion(path: str, source: str, estimates: Sequence[FusionEstimate], fmt: str = "table",
                  lang: str = "en", width: int | None = None) -> str:
    """The output of ``kernelscope fusion``: ``"table"`` (plain text), ``"markdown"`` or ``"json"``
    (``schemas/fusion-1.schema.json``); ``source`` is ``"timeline"`` or ``"report"``.

    Raises:
        ValueError: unknown format or language.
    """
    f = Fmt(lang)
    if fmt == "json":
        return encode(FusionCommandDoc(schema=SCHEMA, kernelscope_version=__version__, lang=lang,  # type: ignore[arg-type]
                                       path=path, source=source,  # type: ignore[arg-type]
                                       candidates=[fusion_doc(e, f) for e in estimates]))
    if fmt == "markdown":
        section = fusion_section(estimates, f, assumed_below=True)
        lines = fusion_lines(estimates, f)
        out = [f"## {f.label('fu_command_title')}", "", f"- {md_code(_md(path))}", ""]
        if section is None:
            out += [f.label("fu_none"), ""]
        else:
            title, head, rows = section
            out += [f"### {_md(title)}", "", "| " + " | ".join(_md(h) for h in head) + " |",
                    "|" + "".join("---|" if i in TEXT_COLUMNS else "---:|" for i in range(len(head)))]
            out += ["| " + " | ".join(md_chain_cell(estimates[n], n + 1, f) if not i else _md(c) for i, c in enumerate(r))
                    + " |" for n, r in enumerate(rows)]  # the chain's kernel names in code spans
            out.append("")
            out += [f"- {md_prose(text.strip())}" for _, text in lines]  # prose: its code in spans
        from .rich_text import md_spaced

        return md_spaced("\n".join(out))
    if fmt == "table":
        from rich.console import Group

        from .rich_text import to_plain

        return to_plain([Group(*renderables(path, estimates, lang))], width)
    raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")


def renderables(path: str, estimates: Sequence[FusionEstimate], lang: str) -> list:
    """rich renderables of the ``kernelscope fusion`` table view (the terminal prints them at its width)."""
    from rich import box
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    from rich.padding import Padding

    from .cjk_console import name_text, path_text
    from .fit import fills, narrow_form

    f = Fmt(lang)
    section = fusion_section(estimates, f, assumed_below=True)  # (fusion_lines below it)
    parts: list = [Text(f.label("fu_command_title"), style="bold"), Group(path_text(safe(path)))]  # the path on its own line
    if section is None:
        return parts + [Text(f.label("fu_none"))]
    title, head, rows = section
    t = Table(title=title, box=box.SIMPLE_HEAD, title_justify="left")
    for i, h in enumerate(head):  # the chain, the bytes and the route are words; the others numbers, kept whole
        if i in TEXT_COLUMNS:
            t.add_column(h, justify="left", overflow="fold", min_width=12 if i == 0 else None)
        else:
            t.add_column(h, justify="right", no_wrap=True)
    for r in rows:
        t.add_row(name_text(r[0]), *(Text(c) for c in r[1:]))  # the chain wraps between name tokens
    # too narrow for its nine columns (either language): two tables, the second keyed by the chain's number
    narrow_form(fills(t, 0), lambda: narrow_parts(title, head, rows))
    lt = Table(box=box.SIMPLE, show_header=False, show_edge=False)  # under the table's blank last line: one blank
    lt.add_column(style="bold", no_wrap=True)
    lt.add_column(overflow="fold")
    for label, text in fusion_lines(estimates, f):
        lt.add_row(Text(label), Text(text))
    return parts + [t, Padding(lt, (0, 0, 1, 1))]


#: The columns of the fusion table's first narrow part (:func:`narrow_parts`): the chain, its runs, its unfused and
#: fused times; the others (the bytes, a long sentence, among them) go to the second, so that the chain has the
#: width the numbers leave (three or four names a line at 80 columns, not one).
FIRST_PART = (0, 1, 2, 4)
#: The columns of a narrow part that hold whole values (times): never wrapped; the others wrap.
WHOLE_COLUMNS = (2, 5, 6, 8)  # (the route, a short name: torch.compile never folded for the bytes' room)


def narrow_parts(title: str, head: Sequence[str], rows: Sequence[Sequence[str]]) -> list:
    """The fusion table for a terminal too narrow for its columns side by side (:func:`~.fit.narrow_form`): the
    chain, its runs, its unfused and fused times; then, by the chain's number (``#1``), the bytes, the bound, the
    saving, the program share and the route (the ``fusion`` command's table and the timeline's alike). Every column kept, each table compact (:func:`~.fit.compact`)."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    from rich.cells import cell_len

    from .cjk_console import NarrowHeader, name_text
    from .fit import compact, fills, wants

    out = []
    for n, columns in enumerate((FIRST_PART, (0, *(i for i in range(len(head)) if i not in FIRST_PART)))):
        t = Table(title=title if n == 0 else None, box=box.SIMPLE_HEAD, title_justify="left")
        for i in columns:
            left = i in TEXT_COLUMNS
            whole = i in WHOLE_COLUMNS or (n > 0 and i == 0)  # a header over whole values wraps at its breaks,
            h = "#" if n and i == 0 else NarrowHeader(head[i], no_wrap=False) if whole else head[i]  # in English too
            t.add_column(h, justify="left" if left else "right", overflow="fold", no_wrap=whole)
        for r in rows:
            key = r[0].split(" ", 1)[0]  # "#1"
            t.add_row(*(name_text(r[0]) if i == 0 and not n else Text(key if i == 0 else r[i]) for i in columns))
        # the chain: the room the numbers leave; the bytes (a sentence): room for their header on one line
        out.append(fills(compact(t), 0) if n == 0 else wants(compact(t), 1, cell_len(head[3])))
    return out


def _md(text: str) -> str:
    return md_cell(text)


__all__ = ["FORMATS", "SCHEMA", "advice_text", "chain_legend", "chain_text", "compressed", "md_chain_cell", "periods", "fusion_doc", "fusion_headline", "fusion_lines", "fusion_section", "with_fusion_column",
           "narrow_parts", "render_fusion", "renderables", "summary_note"]

"""``kernelscope roofline --format table|markdown``: the numbers of a roofline chart as tables, in English or
Chinese: its title, the ceilings (compute peaks, bandwidth slopes, ridge points), each selected launch's points
(or why it has none) and, for the hierarchical roofline, the memory levels. No analysis here: it words and lays out
:class:`~kernelscope.render.roofline_data.RooflineData`."""

from __future__ import annotations

from pathlib import Path

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from .cjk_console import labels_text, name_text, path_text
from .common import Fmt, data_size, ops_unit, safe, si
from .roofline_data import RooflineData, ceiling_names

__all__ = ["renderables", "title"]


def _level(level: str, f: Fmt) -> str:
    return f.label(f"chart_hier_{level}")


def title(data: RooflineData, report: str, f: Fmt, own_line: bool = False) -> str:
    """The chart's title: the report (or the launch) and the GPU; ``own_line``: the report's file name starts a
    line of its own (a terminal folds a long one alone, not inside the title's words)."""
    if data.chart == "report":
        what = ("\n" if own_line else "") + safe(Path(report).name)
    else:
        k = data.launches[0].diag.kernel
        what = f"[{k.index}] {safe(k.name)}"
    prefix = "chart_hier_title" if data.chart == "levels" else "chart_roofline_title"
    if data.gpu is None or not data.ceilings:
        return f.label(f"{prefix}_plain", what=what).replace(" \n", "\n")
    return f.label(prefix, what=what, gpu=safe(data.gpu.name)).replace(" \n", "\n")


def _ceilings_table(data: RooflineData, f: Fmt) -> Table:
    t = Table(title=f.label("roof_ceilings"), title_justify="left", box=box.SIMPLE_HEAD)
    for key, justify in (("roof_ceiling", "left"), ("roof_peak", "right"), ("roof_ridges", "left"),
                         ("roof_source", "left")):
        t.add_column(f.label(key), justify=justify)  # type: ignore[arg-type]
    scale = data.clock_scale  # the ceilings are already at it: the chart's, the JSON's, the same numbers
    spec = "roof_from_spec" if data.gpu is not None and data.gpu.origin == "catalogue" else "roof_from_given"
    source = f.label(spec) if scale is None else f.label(f"{spec}_clock", scale=scale)
    for peak, pipes in data.ceilings:
        ridges = [f.label("roof_ridge_value", ai=f.intensity(peak / bw, pipes), level=_level(level, f))
                  for level, bw, _ in data.memory]
        used = f.paren(f.label("roof_used")) if data.used_pipes & set(pipes) else ""
        names = ceiling_names(pipes, f)
        t.add_row(labels_text(names[:-1] + [names[-1] + used]), si(peak, ops_unit(pipes)),
                  labels_text(ridges, f.listing_sep) if ridges else Text("-"),
                  Text(source))
    for level, bw, source in data.memory:
        t.add_row(Text(_level(level, f)), si(bw, "B/s"), "",
                  f.label("roof_from_report" if source == "report" else spec))
    return t


def _points_table(data: RooflineData, f: Fmt) -> Table:
    t = Table(title=f.label("roof_points"), title_justify="left", box=box.SIMPLE_HEAD)  # inset as the ceilings
    cols = [("roof_launch", "left"), ("roof_pipe", "left"), ("roof_ai", "right"), ("roof_perf", "right"),
            ("roof_class", "left"), ("roof_gpu_time", "right")]
    longest = max((len(safe(lp.diag.kernel.name)) + 4 for lp in data.launches), default=0)
    pipes = {r.pipe for lp in data.launches for r in lp.points}
    kinds = {ops_unit(p) for p in pipes}  # the intensity's unit: FLOP/B, OP/B for integer work, each cell's if both
    ai_unit = kinds.pop().replace("/s", "/B") if len(kinds) == 1 else None if kinds else "FLOP/B"
    for key, justify in cols:
        head = (ai_unit or f.label("roof_ai_head")) if key == "roof_ai" else f.label(key)
        t.add_column(head, justify=justify, overflow="fold",  # type: ignore[arg-type]
                     min_width=min(longest, 32) if key == "roof_launch" else None,
                     no_wrap=key in ("roof_ai", "roof_gpu_time"))
    for lp in data.launches:
        k = lp.diag.kernel
        name = name_text(f"[{k.index}] {safe(k.name)}")  # wraps between the name's tokens
        share, bound = f.share(lp.share) if lp.share is not None else "-", f.bound(lp.diag.bound)
        if not lp.points:
            t.add_row(name, "-", "-", "-", Text(f.label("roof_not_plotted", why=lp.not_plotted or f.nm)), share)
        for r in lp.points:
            perf = si(r.achieved_flops_per_s, ops_unit(r.pipe))
            if r.efficiency is not None:
                perf += f.paren(f.share(r.efficiency))
            ai = f"{r.arithmetic_intensity_flop_per_byte:.3g}"
            t.add_row(name, f.pipe(r.pipe), ai if ai_unit else f"{ai} {ops_unit(r.pipe).replace('/s', '/B')}", perf,
                      bound, share)
    return t


def _levels_table(data: RooflineData, f: Fmt) -> Table:
    t = Table(title=f.label("roof_levels"), title_justify="left", box=box.SIMPLE_HEAD)
    for key, justify in (("roof_level", "left"), ("roof_bytes", "right"), ("roof_ai", "right"), ("roof_peak", "right"),
                         ("roof_of_ceiling", "right"), (None, "left")):
        t.add_column(f.label(key) if key else "", justify=justify)  # type: ignore[arg-type]
    for lv, limiting in data.levels:
        ai = lv.arithmetic_intensity_flop_per_byte
        t.add_row(_level(lv.level, f), "-" if lv.bytes is None else data_size(lv.bytes), "-" if ai is None else f"{ai:.3g}",
                  "-" if lv.peak_bytes_per_s is None else si(lv.peak_bytes_per_s, "B/s"),
                  "-" if lv.bandwidth_pct is None else f.pct(lv.bandwidth_pct),
                  f.label("roof_limiting") if limiting else "")
    return t


def renderables(data: RooflineData, report: str, lang: str) -> list[RenderableType]:
    """rich renderables of one chart's numbers, each printed on its own: the title, the ceilings (when there is a
    GPU), the points, and the memory levels of a hierarchical roofline."""
    f = Fmt(lang)
    head, _, rest = title(data, report, f, own_line=True).partition("\n")
    name = safe(Path(report).name) if rest else ""  # on a line of its own, wrapped as a path (as diagnose's),
    # then the GPU
    gpu = rest[len(name):].strip()
    lines = ([path_text(name, style="bold")] if name else []) + ([Text(gpu, style="bold")] if gpu else [])
    out: list[RenderableType] = [Group(Text(head, style="bold"), *lines)]
    if data.ceilings or data.memory:
        out.append(_ceilings_table(data, f))
    elif data.chart != "levels":
        out.append(Text(f.label("chart_no_gpu")))
    out.append(_points_table(data, f))
    if data.chart == "levels":
        out += [_levels_table(data, f), Text(f.label("roof_levels_note"))]  # (what "of its ceiling" is of)
    return out

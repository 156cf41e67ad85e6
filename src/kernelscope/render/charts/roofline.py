"""Roofline charts, of one launch (its point on every pipe it used) or of a whole report (every launch a point
sized by its share of GPU time): the GPU spec's ceilings, the DRAM slope, ridge points, the kernel points with
labels placed where they overlap nothing, and the launches that could not be plotted, each with the reason.
Every number drawn comes from the diagnosis (roofline points, the GPU spec's ceilings); nothing is derived here
beyond placing it on the page.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

from ...analysis.diagnosis import KernelDiagnosis, ReportDiagnosis
from ...analysis.groups import LaunchGroup
from ...analysis.roofline import ridge_point
from ...model import GpuSpec
from ..common import Fmt, ops_unit, safe, si
from ..roofline_data import ceiling_name, ceiling_scale
from ..roofline_data import ceilings as _gpu_ceilings
from ..roofline_data import pick_gpu as _pick_gpu
from ..roofline_data import plotted_points, time_share, why_not_plotted
from .style import (
    CLASS_COLOURS, _DPI, _Box, _Placer, _box, _finish, _kernel_label, _new_figure, _place_axes, chart_context, _short,
    _wrap, chart_lang, fit_title,
)


# ------------------------------------------------------------------------------------------ numbers, ticks



def _decade_ticks(lo: float, hi: float) -> list[float]:
    return [10.0 ** e for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)]


def _tick_si(value: float, _pos: object = None) -> str:
    return si(value, digits=None, sep="")


def _tick_plain(value: float, _pos: object = None) -> str:
    if value >= 1e4:
        return _tick_si(value)
    return f"{value:g}"


# ------------------------------------------------------------------------------------------ points


@dataclass(frozen=True)
class _Point:
    diag: KernelDiagnosis
    ai: float
    perf: float
    pipe: str
    label: str
    area: float
    colour: str
    gid: str
    title: str
    sized: bool = False  # area from the launch's share of GPU time (else a fixed size)


def _point_title(d: KernelDiagnosis, ai: float, perf: float, pipe: str, share: float | None, f: Fmt,
                 count: int | None = None) -> str:
    r = d.roofline
    lines = [f"[{d.kernel.index}] {safe(d.kernel.name)}" + (f" ×{count}" if count else "")]
    line = f.intensity(ai) + f.comma + si(perf, ops_unit(pipe)) + f.paren(f.pipe(pipe))
    if r is not None and r.pipe == pipe and r.efficiency is not None:  # "，为可达上限的 42.2%"
        line += f.comma + f.label("chart_of_attainable", pct=f.share(r.efficiency))
    lines.append(line)
    lines.append(f.bounds(d.verdict))
    t = f.time(d.kernel.duration_s)
    lines.append(t if share is None else t + f.paren(f.label("chart_of_gpu_time", pct=f.share(share))))
    return "\n".join(lines)


def _points(diags: Sequence[KernelDiagnosis], gpu: GpuSpec | None, total_s: float | None, f: Fmt,
            by_pipe: bool, chart_f: Fmt, groups: Mapping[int, LaunchGroup] | None = None,
            ) -> tuple[list[_Point], list[tuple[str, str]]]:
    """The points of ``diags``; with ``groups`` (launch index -> its group of repeated launches, the launch being
    the group's representative) a point stands for its group: sized by the group's share, labelled ``×N``."""
    points: list[_Point] = []
    skipped: list[tuple[str, str]] = []
    for d in diags:
        why = why_not_plotted(d, gpu, chart_f)
        if why is not None:
            skipped.append((safe(d.kernel.name), why))
            continue
        k = d.kernel
        g = groups.get(k.index) if groups else None
        share = time_share(d, total_s) if g is None else g.time_share  # this launch's (group's) part of GPU time
        count = g.count if g is not None and len(g.launches) > 1 else None
        area = 70.0 if share is None else 28.0 + 1100.0 * share
        colour = CLASS_COLOURS.get(d.bound, CLASS_COLOURS[None])
        for r in plotted_points(d, by_pipe):
            ai, perf = r.arithmetic_intensity_flop_per_byte, r.achieved_flops_per_s
            label = _kernel_label(d) if not by_pipe else _kernel_label(d) + chart_f.paren(chart_f.pipe(r.pipe))
            label += f" ×{count}" if count else ""
            points.append(_Point(
                diag=d, ai=ai, perf=perf, pipe=r.pipe, label=label, area=area, colour=colour,
                gid=f"ks-kernel-{k.index}" + ("" if r is d.roofline else f"-{r.pipe}"),
                title=_point_title(d, ai, perf, r.pipe, share, f, count), sized=share is not None,
            ))
    return points, skipped


def _ceilings(gpu: GpuSpec, f: Fmt, scale: float | None) -> list[tuple[float, list[str], str]]:
    """(peak, pipes, label) per distinct peak, highest first, at the SM-clock factor ``scale``
    (:func:`~kernelscope.render.roofline_data.ceiling_scale`: the table's and the JSON's ceilings); pipes with equal
    peaks share one line."""
    out = []
    for peak, pipes in _gpu_ceilings(gpu, scale):
        out.append((peak, pipes, f.head(ceiling_name(pipes, f), si(peak, ops_unit(pipes)))))
    return out



# ------------------------------------------------------------------------------------------ the figure


@dataclass(frozen=True)
class _Roof:
    """The GPU's roof on the chart: ``ceilings`` as :func:`_ceilings` gives them (empty without a GPU), the ridge
    point of each, and the DRAM bandwidth (the slope)."""

    ceilings: list[tuple[float, list[str], str]]
    ridges: list[float]
    bw: float | None


def _roof(gpu: GpuSpec | None, f: Fmt, points: Sequence[_Point]) -> _Roof:
    # the plotted launches' clock factor, as roofline_data's RooflineData (table, JSON) has it: one ceiling source
    scale = ceiling_scale(r for d in {id(p.diag): p.diag for p in points}.values() for r in plotted_points(d, False))
    ceilings = _ceilings(gpu, f, scale) if gpu is not None else []
    bw = gpu.dram_bandwidth_bytes_per_s if gpu is not None else None
    ridges = [ridge_point(peak, bw) for peak, _, _ in ceilings] if gpu is not None else []
    return _Roof(ceilings, ridges, bw)


def _roofline_figure(points: list[_Point], skipped: list[tuple[str, str]], gpu: GpuSpec | None, title: str,
                     f: Fmt, used_pipes: set[str], fmt: str, width: float = 10.0, base_h: float = 6.4) -> bytes:
    notes = _not_plotted_lines(skipped, f)
    chars = int((width - 1.1) * 16.5)
    note_lines = sum(len(_wrap(n, chars)) for n in notes)
    note_h = 0.17 * note_lines + (0.15 if notes else 0)
    height = base_h + note_h
    fig, renderer = _new_figure(width, height)
    bottom_in = 0.62 + note_h
    ax = _log_log_axes(fig, renderer, width, height, bottom_in, title)
    roof = _roof(gpu, f, points)
    xlo, xhi, ylo, yhi = _limits(points, roof)
    _set_scales(ax, xlo, xhi, ylo, yhi, f)

    placer = _Placer(ax, renderer)
    handles = _draw_roof(ax, placer, renderer, gpu, roof, used_pipes, xlo, xhi, f)
    radius = _draw_points(ax, placer, points)
    _add_legend(ax, placer, renderer, points, handles, f)
    if roof.ceilings:
        _label_roof(ax, placer, renderer, roof, used_pipes, xlo, xhi, f)
    _label_points(ax, placer, points, radius, f)
    _label_ridges(placer, roof)

    if notes:
        y = (bottom_in - 0.5) / height
        text = "\n".join(line for n in notes for line in _wrap(n, chars))
        fig.text(0.85 / width, y, text, fontsize=7.5, va="top", ha="left", color="#333333", parse_math=False)
    return _finish(fig, fmt, {p.gid: p.title for p in points})


def _log_log_axes(fig: Figure, renderer, width: float, height: float, bottom_in: float, title: str):
    """The chart's single axes, log-log, under the title (margins in inches; the title fitted to the width, on more
    lines when it must: :func:`fit_title`)."""
    text, size, lines = fit_title(fig, renderer, title, width, 12 if width >= 9 else 10.5)
    _place_axes(fig, width, height, 0.85, 0.25, 0.55 + 0.19 * (lines - 1), bottom_in)
    ax = fig.add_subplot(1, 1, 1)
    ax.set_xscale("log")
    ax.set_yscale("log")
    fig.suptitle(text, fontsize=size, fontweight="bold", x=0.5, y=1 - 0.18 / height, va="top")
    return ax


def _limits(points: list[_Point], roof: _Roof) -> tuple[float, float, float, float]:
    """(xlo, xhi, ylo, yhi): whole decades around the points and ridge points, at least 4 decades wide and 3 high."""
    xs = [p.ai for p in points] + roof.ridges
    ys = [p.perf for p in points] + [peak for peak, _, _ in roof.ceilings]
    if not xs:
        xs, ys = [0.1, 100.0], [1e9, 1e13]
    xlo = 10.0 ** math.floor(math.log10(min(xs) / 4))
    xhi = 10.0 ** math.ceil(math.log10(max(xs) * 8))
    if math.log10(xhi / xlo) < 4:
        xhi = xlo * 1e4
    ylo_candidates = list(ys) + ([roof.bw * xlo * 2] if roof.bw else [])
    ylo = 10.0 ** math.floor(math.log10(min(ylo_candidates) / 3))
    yhi = max(ys) * 2.5  # room above the highest ceiling for its label
    if math.log10(yhi / ylo) < 3:
        ylo = 10.0 ** math.floor(math.log10(yhi / 1e3))
    return xlo, xhi, ylo, yhi


def _set_scales(ax, xlo: float, xhi: float, ylo: float, yhi: float, f: Fmt) -> None:
    """Limits, a tick per decade (SI-prefixed), the grid and the axis titles."""
    ax.set_xlim(xlo, xhi)
    ax.set_ylim(ylo, yhi)
    ax.xaxis.set_major_locator(FixedLocator(_decade_ticks(xlo, xhi)))
    ax.yaxis.set_major_locator(FixedLocator(_decade_ticks(ylo, yhi)))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(_tick_plain))
    ax.yaxis.set_major_formatter(FuncFormatter(_tick_si))
    ax.grid(True, which="major", color="0.9", lw=0.6, zorder=0)
    ax.set_xlabel(f.label("chart_x_axis"), fontsize=10)
    ax.set_ylabel(f.label("chart_y_axis"), fontsize=10)
    ax.tick_params(labelsize=9)


def _draw_roof(ax, placer: _Placer, renderer, gpu: GpuSpec | None, roof: _Roof, used_pipes: set[str],
               xlo: float, xhi: float, f: Fmt) -> list:
    """The DRAM slope, a ceiling per peak (bold where a plotted launch used its pipe, dashed grey otherwise) and
    the ridge points, or a note that there is no GPU spec; the legend entries this adds."""
    handles: list = []
    if gpu is not None and roof.ceilings:
        bw = roof.bw
        top_ridge = max(roof.ridges)
        slope_x = [xlo, top_ridge]
        ax.plot(slope_x, [bw * x for x in slope_x], color="#222222", lw=2.0, zorder=3, solid_capstyle="butt")
        for (peak, pipes, label), ridge in zip(roof.ceilings, roof.ridges):
            used = bool(used_pipes & set(pipes))
            ax.plot([ridge, xhi], [peak, peak], color="#222222" if used else "#777777", lw=2.0 if used else 1.1,
                    ls="-" if used else (0, (5, 3)), zorder=3)
            ax.plot([ridge], [peak], marker="D", ms=5, color="#222222", zorder=4, ls="none")
            placer.block_point(ridge, peak, 4)
        handles.append(Line2D([], [], marker="D", ms=5, color="#222222", ls="none", label=f.label("chart_ridge")))
    elif gpu is None:
        t = ax.text(0.985, 0.975, f.label("chart_no_gpu"), transform=ax.transAxes, ha="right", va="top", fontsize=9,
                    color="0.3", parse_math=False, bbox={"boxstyle": "round,pad=0.3", "fc": "#fff8c5", "ec": "#d4a72c"})
        placer.block(_box(t.get_window_extent(renderer)))
    return handles


def _draw_points(ax, placer: _Placer, points: list[_Point]) -> dict[str, float]:
    """The kernel points; their marker radius in pixels by gid."""
    # kernel points: largest first underneath, so small ones stay visible
    radius = {}
    for p in sorted(points, key=lambda p: (-p.area, p.diag.kernel.index)):
        ax.scatter([p.ai], [p.perf], s=p.area, c=p.colour, edgecolors="black", linewidths=0.6, alpha=0.88, zorder=5, gid=p.gid)
        radius[p.gid] = math.sqrt(p.area) / 2 * _DPI / 72.0
        placer.block_point(p.ai, p.perf, radius[p.gid])
    return radius


def _add_legend(ax, placer: _Placer, renderer, points: list[_Point], handles: list, f: Fmt) -> None:
    """The legend, top left: ``handles`` then a marker per bottleneck class plotted (in order of appearance)."""
    classes = []
    for p in points:
        if p.diag.bound not in classes:
            classes.append(p.diag.bound)
    for c in classes:
        handles.append(Line2D([], [], marker="o", ms=7, color=CLASS_COLOURS.get(c, CLASS_COLOURS[None]), ls="none",
                              markeredgecolor="black", markeredgewidth=0.6, label=f.bound(c)))
    if handles:
        leg = ax.legend(handles=handles, loc="upper left", fontsize=8, framealpha=0.92,
                        title=f.label("chart_size_note") if any(p.sized for p in points) else None, title_fontsize=7.5)
        leg.set_zorder(8)
        placer.block(_box(leg.get_window_extent(renderer)))


def _label_roof(ax, placer: _Placer, renderer, roof: _Roof, used_pipes: set[str], xlo: float, xhi: float,
                f: Fmt) -> None:
    # ceiling labels above their line, right-aligned at the right edge (moved left / below / wrapped on
    # collisions), then the DRAM label along the slope
    for (peak, pipes, label), ridge in zip(roof.ceilings, roof.ridges):
        used = bool(used_pipes & set(pipes))
        _place_ceiling_label(ax, placer, renderer, label, ridge, peak, xhi, bold=used)
    _place_slope_label(ax, placer, renderer, f.label("chart_dram", bw=si(roof.bw, "B/s")), xlo, max(roof.ridges), roof.bw)


def _label_points(ax, placer: _Placer, points: list[_Point], radius: dict[str, float], f: Fmt) -> None:
    # labels: launches of one kernel name (and pipe) drawn on top of each other share one label ("name ×N");
    # clusters of the longest launches are labelled first; a label that finds no room falls back to "[index]"
    bbox = {"boxstyle": "round,pad=0.2", "fc": "white", "ec": "none", "alpha": 0.85}
    for members in _clusters(ax, points, radius):
        rep = members[0]
        px, py = ax.transData.transform((rep.ai, rep.perf))
        reach = max(math.dist((px, py), ax.transData.transform((m.ai, m.perf))) + radius[m.gid] for m in members)
        label = rep.label if len(members) == 1 else f"{_short(rep.diag.kernel.name)} ×{len(members)}" + (
            f.paren(f.pipe(rep.pipe)) if rep.label.endswith((")", "）")) else "")
        if not placer.place(label, rep.ai, rep.perf, reach, bbox=bbox):
            placer.place(f"[{rep.diag.kernel.index}]", rep.ai, rep.perf, reach, rings=(2, 10, 22), fontsize=7, bbox=bbox)


def _label_ridges(placer: _Placer, roof: _Roof) -> None:
    # ridge values last: below-right of their marker if there is room, else anywhere near it
    for (peak, _, _), ridge in zip(roof.ceilings, roof.ridges):
        placer.place(f"{ridge:.3g}", ridge, peak, 4, rings=(2, 8, 16),
                     directions=(-45, -60, -30, -90, -20, -75, 0, 135, 120, 150, 90, 180, 45),
                     leader=False, fontsize=7.5, color="#222222",
                     bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.8})


def _clusters(ax, points: list[_Point], radius: dict[str, float]) -> list[list[_Point]]:
    """Points of one kernel name and pipe whose markers touch, grouped; longest launch first in each group,
    groups in order of their longest launch."""
    order = sorted(points, key=lambda p: (-(p.diag.kernel.duration_s or 0.0), p.diag.kernel.index))
    groups: list[list[_Point]] = []
    for p in order:
        xy = ax.transData.transform((p.ai, p.perf))
        for g in groups:
            head = g[0]
            if (head.diag.kernel.name, head.pipe) == (p.diag.kernel.name, p.pipe) and math.dist(
                xy, ax.transData.transform((head.ai, head.perf))
            ) <= radius[head.gid] + radius[p.gid] + 4:
                g.append(p)
                break
        else:
            groups.append([p])
    return groups


def _place_ceiling_label(ax, placer: _Placer, renderer, label: str, ridge: float, peak: float, xhi: float, bold: bool) -> None:
    """A ceiling's label: right-aligned above (or below) its line at the right edge, shifted left but never past
    its ridge point; else ending at the ridge point, above the ceiling's level (the empty, unattainable corner
    left of the ridge); smaller or wrapped after each " / " when it does not fit; as a last resort where it
    would go first."""
    from matplotlib.transforms import offset_copy

    text = ax.text(xhi, peak, label, fontsize=8, ha="right", va="bottom", zorder=6, parse_math=False,
                   fontweight="bold" if bold else "normal", color="#222222",
                   bbox={"boxstyle": "square,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.75})
    to_pt = 72.0 / ax.figure.dpi
    px_ridge = ax.transData.transform((ridge, peak))[0]
    wrapped = label.replace(" / ", " /\n")

    def at(x: float, dx_px: float, dy_px: float, va: str) -> _Box:
        text.set_position((x, peak))
        text.set_transform(offset_copy(ax.transData, fig=ax.figure, x=dx_px * to_pt, y=dy_px * to_pt, units="points"))
        text.set_va(va)
        return _box(text.get_window_extent(renderer))

    def right_side():
        for shift_px in (0, 40, 80, 120, 160, 200, 260, 320):
            for va, dy in (("bottom", 3), ("top", -3)):
                box = at(xhi, -(6 + shift_px), dy, va)
                if box.x0 > px_ridge + 6 and placer.fits(box):
                    return box
        return None

    def at_ridge():
        for dy in (4, 10, 18):
            box = at(ridge, -9, dy, "bottom")
            if placer.fits(box):
                return box
        return None

    for content, size, where in ((label, 8, right_side), (label, 8, at_ridge), (label, 7, right_side),
                                 (wrapped, 7.5, right_side), (label, 7, at_ridge), (wrapped, 7, at_ridge),
                                 (wrapped, 6.5, right_side)):
        text.set_text(content)
        text.set_fontsize(size)
        box = where()
        if box is not None:
            placer.block(box)
            return
    text.set_text(label)
    text.set_fontsize(7)
    placer.block(at(xhi, -6, 3, "bottom"))


def _place_slope_label(ax, placer: _Placer, renderer, label: str, xlo: float, xtop: float, bw: float) -> None:
    (x0, y0), (x1, y1) = ax.transData.transform([(xlo, bw * xlo), (xtop, bw * xtop)])
    angle = math.degrees(math.atan2(y1 - y0, x1 - x0))
    for frac in (0.22, 0.32, 0.12, 0.45, 0.6):
        x = 10 ** (math.log10(xlo) + frac * math.log10(xtop / xlo))
        y = bw * x
        if not (ax.get_ylim()[0] < y < ax.get_ylim()[1]):
            continue
        t = ax.annotate(label, (x, y), xytext=(-4 * math.sin(math.radians(angle)), 4 * math.cos(math.radians(angle))),
                        textcoords="offset points", rotation=angle, rotation_mode="anchor", ha="center", va="bottom",
                        fontsize=8, zorder=6, parse_math=False, color="#222222")
        box = _box(t.get_window_extent(renderer))
        if placer.fits(box):
            placer.block(box)
            return
        t.remove()


def _not_plotted_lines(skipped: list[tuple[str, str]], f: Fmt) -> list[str]:
    """'Not plotted: name x3 (reason); ...' grouped by reason, at most a few lines."""
    if not skipped:
        return []
    by_reason: dict[str, dict[str, int]] = {}
    for name, why in skipped:
        by_reason.setdefault(why, {}).setdefault(name, 0)
        by_reason[why][name] += 1
    parts = []
    for why, names in by_reason.items():
        listed = [f"{_short(n, 48)}" + (f" ×{c}" if c > 1 else "") for n, c in names.items()]
        if len(listed) > 8:
            listed = listed[:8] + [f.label("chart_more", n=len(listed) - 8)]
        parts.append(f.head(f.listing(listed), why))
    return [f.head(f.label("chart_not_plotted"), f.semi.join(parts))]



# ------------------------------------------------------------------------------------------ charts


def _title(prefix: str, gpu: GpuSpec | None, f: Fmt) -> str:
    if gpu is None:
        return f.label("chart_roofline_title_plain", what=prefix)
    return f.label("chart_roofline_title", what=prefix, gpu=safe(gpu.name))


def report_roofline_chart(result: ReportDiagnosis, lang: str = "en", fmt: str = "svg",
                          diagnoses: Sequence[KernelDiagnosis] | None = None, inline: bool = False,
                          groups: Sequence[LaunchGroup] | None = None) -> bytes:
    """The roofline of a whole report (or of ``diagnoses``, a selection of its launches): every launch with a
    measured arithmetic intensity and FLOP/s is a point sized by its share of the report's GPU time and coloured
    by its bottleneck class; the others are listed under the chart with the reason. With ``groups`` (groups of
    repeated launches, :mod:`kernelscope.analysis.groups`), one point per group instead: its representative's,
    sized by the group's share and labelled ``×N``."""
    f = Fmt(chart_lang(lang, fmt))
    full = Fmt(lang)
    by_rep = {g.representative.kernel.index: g for g in groups} if groups is not None else None
    if groups is not None:
        diagnoses = [g.representative for g in groups]
    diags = tuple(result.kernels if diagnoses is None else diagnoses)
    gpu = _pick_gpu(diags)
    total = math.fsum(g.total_duration_s for g in result.groups) or None
    with chart_context(f.lang, inline, fmt):
        points, skipped = _points(diags, gpu, total, full, False, f, by_rep)
        used = {d.roofline.pipe for d in diags if d.roofline is not None and (gpu is None or (d.gpu and d.gpu.name == gpu.name))}
        name = Path(result.report.path).name
        return _roofline_figure(points, skipped, gpu, _title(_short(name, 60), gpu, f), f, used, fmt)


def kernel_roofline_chart(d: KernelDiagnosis, lang: str = "en", fmt: str = "svg", total_s: float | None = None,
                          inline: bool = False) -> bytes:
    """The roofline of one launch: its point on every pipe it used (the main pipe's ceiling drawn bold)."""
    f = Fmt(chart_lang(lang, fmt))
    full = Fmt(lang)
    with chart_context(f.lang, inline, fmt):
        points, skipped = _points([d], d.gpu, total_s, full, True, f)
        used = {d.roofline.pipe} if d.roofline is not None else set()
        return _roofline_figure(points, skipped, d.gpu, _title(_kernel_label(d), d.gpu, f), f, used, fmt, 7.5, 5.4)


def has_roofline_point(d: KernelDiagnosis) -> bool:
    """Whether the launch gets a point on a roofline chart (measured, finite, positive intensity and FLOP/s)."""
    r = d.roofline
    return (
        r is not None and r.arithmetic_intensity_flop_per_byte is not None and r.achieved_flops_per_s is not None
        and math.isfinite(r.arithmetic_intensity_flop_per_byte) and r.arithmetic_intensity_flop_per_byte > 0
        and r.achieved_flops_per_s > 0
    )

"""The hierarchical roofline of one launch: log-log arithmetic intensity (FLOP per byte moved at each level) vs
FLOP/s, a bandwidth ceiling per memory level whose peak the report measures (L1, L2, DRAM), the compute ceiling of
the pipe the launch uses, and one point per level: the launch's FLOP/s at its intensity against that level's bytes
(Nsight Compute Kernel Profiling Guide, "Roofline Charts": the hierarchical roofline; its
``SpeedOfLight_Hierarchical*RooflineChart`` sections). The level whose point is closest to its own ceiling (highest
``MemoryLevel.bandwidth_pct``, :func:`kernelscope.render.roofline_data.limiting_level`) is named as the limiting
level, unless the launch is closer to its compute roof (then the compute pipe is named) or near no roof at all
(:func:`kernelscope.analysis.limiters.binding_roof`).

Every number drawn comes from the diagnosis (``KernelDiagnosis.levels``: bytes, peak bandwidth, intensity, % of
ceiling; ``KernelDiagnosis.roofline``: FLOP/s, the compute peak); nothing is derived here beyond placing it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from matplotlib.lines import Line2D

from ...analysis.diagnosis import KernelDiagnosis
from ...analysis.limiters import MemoryLevel
from ..common import Fmt, data_size, ops_unit, safe, si
from ..roofline_data import (LEVELS, binding, compute_share_pct, has_hierarchy, hierarchy_reason, limiting_level,
                             why_no_hierarchy)
from ..roofline_data import level_plotted as _plotted
from .roofline import _place_ceiling_label, _place_slope_label, _set_scales
from .style import (
    _DPI, _Placer, _box, _finish, _kernel_label, _new_figure, _place_axes, chart_context, _wrap, chart_lang, fit_title,
)

__all__ = ["LEVEL_COLOURS", "has_hierarchy", "hierarchy_chart", "hierarchy_reason", "why_no_hierarchy"]

#: Colour of each level's ceiling and point.
LEVEL_COLOURS: dict[str, str] = {"l1": "#2ca02c", "l2": "#ff7f0e", "dram": "#1f77b4"}


@dataclass(frozen=True)
class _Level:
    """One level on the chart: its measurements, its name in the chart's language and whether it limits."""

    lv: MemoryLevel
    name: str
    limiting: bool

    @property
    def ai(self) -> float:
        return self.lv.arithmetic_intensity_flop_per_byte  # type: ignore[return-value]


def _bold(f: Fmt) -> str:
    """Bold for Latin labels; CJK fonts here have no bold face (matplotlib would warn and use the regular one)."""
    return "bold" if f.lang == "en" else "normal"


def hierarchy_chart(d: KernelDiagnosis, lang: str = "en", fmt: str = "svg", inline: bool = False) -> bytes | None:
    """The hierarchical roofline of one launch as SVG or PNG bytes, or None when it has none (the reason:
    :func:`why_no_hierarchy`). ``inline``: SVG text kept as ``<text>`` for an HTML page (else drawn as paths)."""
    if why_no_hierarchy(d) is not None:
        return None
    f = Fmt(chart_lang(lang, fmt))
    full = Fmt(lang)
    with chart_context(f.lang, inline, fmt):
        return _figure(d, f, full, fmt)


def _levels(d: KernelDiagnosis, f: Fmt) -> list[_Level]:
    lim = limiting_level(d)
    return [_Level(lv, f.label(f"chart_hier_{lv.level}"), lv is lim) for lv in d.levels if _plotted(lv)]


def _limits(levels: list[_Level], perf: float, peak: float | None) -> tuple[float, float, float, float]:
    """(xlo, xhi, ylo, yhi): whole decades around the points and the ridge points, at least 4 decades wide and 3
    high, the bandwidth slopes visible at the left edge."""
    bws = [lv.lv.peak_bytes_per_s for lv in levels if lv.lv.peak_bytes_per_s]
    xs = [lv.ai for lv in levels] + ([peak / bw for bw in bws] if peak else [])
    xlo = 10.0 ** math.floor(math.log10(min(xs) / 4))
    xhi = 10.0 ** math.ceil(math.log10(max(xs) * 8))
    if math.log10(xhi / xlo) < 4:
        xhi = xlo * 1e4
    ys = [perf] + ([peak] if peak else []) + [bw * xlo * 2 for bw in bws]
    ylo = 10.0 ** math.floor(math.log10(min(ys) / 3))
    yhi = max([perf] + ([peak] if peak else []) + [bw * xhi for bw in bws if not peak]) * 2.5
    if math.log10(yhi / ylo) < 3:
        ylo = 10.0 ** math.floor(math.log10(yhi / 1e3))
    return xlo, xhi, ylo, yhi


def _figure(d: KernelDiagnosis, f: Fmt, full: Fmt, fmt: str) -> bytes:
    r = d.roofline
    perf, peak = r.achieved_flops_per_s, r.peak_flops_per_s  # type: ignore[union-attr]
    levels = _levels(d, f)
    notes = _unplotted(d, f)
    width, chars = 7.5, int((7.5 - 1.1) * 16.5)
    note_lines = [line for n in notes for line in _wrap(n, chars)]
    note_h = 0.17 * len(note_lines) + (0.15 if notes else 0)
    height = 5.6 + note_h
    fig, renderer = _new_figure(width, height)
    bottom_in = 0.62 + note_h
    gpu = d.gpu.name if d.gpu is not None else None
    title = (f.label("chart_hier_title", what=_kernel_label(d), gpu=safe(gpu)) if gpu is not None and peak
             else f.label("chart_hier_title_plain", what=_kernel_label(d)))
    title, size, lines = fit_title(fig, renderer, title, width, 10.5, _bold(f))
    _place_axes(fig, width, height, 0.85, 0.25, 0.55 + 0.19 * (lines - 1), bottom_in)
    ax = fig.add_subplot(1, 1, 1)
    ax.set_xscale("log")
    ax.set_yscale("log")
    fig.suptitle(title, fontsize=size, fontweight=_bold(f), x=0.5, y=1 - 0.18 / height, va="top")
    xlo, xhi, ylo, yhi = _limits(levels, perf, peak)  # type: ignore[arg-type]
    _set_scales(ax, xlo, xhi, ylo, yhi, f)
    ax.set_xlabel(f.label("chart_hier_x_axis"), fontsize=10)
    placer = _Placer(ax, renderer)
    _draw_ceilings(ax, levels, peak, xlo, xhi)
    gids = _draw_points(ax, placer, levels, perf)  # type: ignore[arg-type]
    _legend(ax, placer, renderer, d, levels, f)
    _label_ceilings(ax, placer, renderer, d, levels, peak, xlo, xhi, f)
    for lv in sorted(levels, key=lambda x: not x.limiting):
        placer.place(lv.name, lv.ai, perf, 7, rings=(3, 10, 22, 40), color=LEVEL_COLOURS[lv.lv.level],
                     fontweight=_bold(f) if lv.limiting else "normal",
                     bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "none", "alpha": 0.85})
    if notes:
        fig.text(0.85 / width, (bottom_in - 0.5) / height, "\n".join(note_lines), fontsize=7.5, va="top", ha="left",
                 color="#333333", parse_math=False)
    titles = {gid: _tooltip(lv, perf, full) for gid, lv in gids.items()}  # type: ignore[arg-type]
    return _finish(fig, fmt, titles)


def _draw_ceilings(ax, levels: list[_Level], peak: float | None, xlo: float, xhi: float) -> None:
    """A bandwidth slope per level with a measured peak, up to where it meets the compute ceiling, and that
    ceiling from the lowest of those ridge points (or across the chart) to the right edge."""
    ridges = []
    for lv in levels:
        bw = lv.lv.peak_bytes_per_s
        if not bw:
            continue
        x_end = min(peak / bw, xhi) if peak else xhi
        ridges.append(x_end)
        ax.plot([xlo, x_end], [bw * xlo, bw * x_end], color=LEVEL_COLOURS[lv.lv.level], lw=2.4 if lv.limiting else 1.6,
                zorder=3, solid_capstyle="butt")
    if peak:
        ax.plot([min(ridges, default=xlo), xhi], [peak, peak], color="#222222", lw=2.0, zorder=3)


def _draw_points(ax, placer: _Placer, levels: list[_Level], perf: float) -> dict[str, _Level]:
    """A point per level (the limiting one larger, with a thick edge); their SVG ids."""
    gids = {}
    for lv in levels:
        gid = f"ks-level-{lv.lv.level}"
        size = 150.0 if lv.limiting else 80.0
        ax.scatter([lv.ai], [perf], s=size, c=LEVEL_COLOURS[lv.lv.level], edgecolors="black",
                   linewidths=1.6 if lv.limiting else 0.6, zorder=5, gid=gid)
        placer.block_point(lv.ai, perf, math.sqrt(size) / 2 * _DPI / 72.0)
        gids[gid] = lv
    return gids


def _legend(ax, placer: _Placer, renderer, d: KernelDiagnosis, levels: list[_Level], f: Fmt) -> None:
    """Bottom right (under the slopes): each level with its intensity and % of its ceiling, the compute pipe's % of its peak; the legend's
    title names the limiting level."""
    handles = []
    for lv in levels:
        ai = f.intensity(lv.ai)
        text = (f.label("chart_hier_share", level=lv.name, ai=ai, share=f.pct(lv.lv.bandwidth_pct))
                if lv.lv.bandwidth_pct is not None else f.label("chart_hier_no_peak", level=lv.name, ai=ai))
        handles.append(Line2D([], [], marker="o", ms=7, color=LEVEL_COLOURS[lv.lv.level], ls="-",
                              markeredgecolor="black", markeredgewidth=0.6, label=text))
    r, share = d.roofline, compute_share_pct(d)
    if r is not None and r.efficiency is not None and share is not None:
        handles.append(Line2D([], [], color="#222222", lw=2.0,
                              label=f.label("chart_hier_compute", pipe=f.pipe(r.pipe), share=f.pct(share))))
    kind, near = binding(d)
    near_name = f.label(f"chart_hier_{near.level}") if near is not None else ""
    if kind == "memory" and near is not None:
        title = f.label("chart_hier_limiting", level=near_name, share=f.pct(near.bandwidth_pct))
    elif kind == "compute" and r is not None and share is not None and near is not None:
        title = f.label("chart_hier_compute_limiting", pipe=f.pipe(r.pipe), share=f.pct(share), level=near_name,
                        level_share=f.pct(near.bandwidth_pct))
    elif near is not None and r is not None and share is not None:  # (no roof near: latency or launch overhead)
        title = f.label("chart_hier_no_roof", pipe=f.pipe(r.pipe), share=f.pct(share), level=near_name,
                        level_share=f.pct(near.bandwidth_pct))
    else:
        title = f.label("chart_hier_no_limiting")
    leg = ax.legend(handles=handles, loc="lower right", fontsize=7.5, framealpha=0.92, title=title, title_fontsize=8)
    leg.get_title().set_fontweight(_bold(f))
    leg.set_zorder(8)
    placer.block(_box(leg.get_window_extent(renderer)))


def _label_ceilings(ax, placer: _Placer, renderer, d: KernelDiagnosis, levels: list[_Level], peak: float | None,
                    xlo: float, xhi: float, f: Fmt) -> None:
    """The compute ceiling's label at the right edge, then each level's peak bandwidth along its slope."""
    slopes = [(lv, lv.lv.peak_bytes_per_s) for lv in levels if lv.lv.peak_bytes_per_s]
    if peak:
        ridge = min((peak / bw for _, bw in slopes), default=xlo)
        label = f.head(f.pipe(d.roofline.pipe), si(peak, ops_unit(d.roofline.pipe)))  # type: ignore[union-attr]
        _place_ceiling_label(ax, placer, renderer, label, ridge, peak, xhi, bold=_bold(f) == "bold")
    for lv, bw in slopes:
        x_end = min(peak / bw, xhi) if peak else xhi
        _place_slope_label(ax, placer, renderer, f.label("chart_hier_ceiling", level=lv.name, bw=si(bw, "B/s")),
                           xlo, x_end, bw)


def _unplotted(d: KernelDiagnosis, f: Fmt) -> list[str]:
    """'Without a point: DRAM (DRAM bytes not measured)' for each of L1, L2, DRAM the diagnosis has no intensity of."""
    present = {lv.level for lv in d.levels if _plotted(lv)}
    missing = [f.label(f"chart_hier_{lvl}") for lvl in LEVELS if lvl not in present]
    return [f.head(f.label("chart_hier_not_plotted"), f.listing(missing) + f.paren(f.nm))] if missing else []


def _tooltip(lv: _Level, perf: float, f: Fmt) -> str:
    """An SVG point's tooltip: the level, its bytes and counter, intensity, FLOP/s, peak and % of its ceiling."""
    m = lv.lv
    lines = [f.head(f.unit(m.level), data_size(m.bytes) + f.paren(safe(m.bytes_metric or ""))),  # type: ignore[arg-type]
             f"{f.intensity(lv.ai)}, {si(perf, 'FLOP/s')}"]
    if m.peak_bytes_per_s is not None:
        lines.append(f.label("chart_hier_ceiling", level=f.label(f"chart_hier_{m.level}"),
                             bw=si(m.peak_bytes_per_s, "B/s"))
                     + ("" if m.bandwidth_pct is None else f.paren(f.pct(m.bandwidth_pct))))  # not "(not measured)"
    return "\n".join(lines)

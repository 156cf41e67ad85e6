"""Warp-stall charts: horizontal bars of one launch's stall reasons, and stacked bars of a whole report (a bar
per launch). Every share drawn comes from the diagnosis; healthy reasons (issuing, busy pipes) are grey and
hatched."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Sequence

from matplotlib.figure import Figure
from matplotlib.patches import Patch

from ...analysis.diagnosis import KernelDiagnosis, ReportDiagnosis
from ...knowledge.stalls import describe
from ..common import Fmt
from .style import (
    _HEALTHY_EDGE, _HEALTHY_FACE, _HEALTHY_HATCHES, _STALL_COLOUR, _STALL_PALETTE, _finish, _kernel_label,
    _new_figure, _place_axes, chart_context, _short, _text_width_in, chart_lang,
)

#: How a reason is drawn in the report chart: (face colour, hatch or None, edge colour).
_Look = tuple[str, str | None, str]


def has_stalls(d: KernelDiagnosis) -> bool:
    """Whether the launch has a stall breakdown to chart."""
    return d.stalls is not None and bool(d.stalls.shares) and d.stalls.stall_total > 0


def _no_stalls_figure(fig: Figure, width: float, title: str, title_size: float, f: Fmt, fmt: str) -> bytes:
    """A small chart that says there is nothing to draw."""
    _place_axes(fig, width, 1.6, 0.3, 0.3, 0.5, 0.2)
    ax = fig.add_subplot(1, 1, 1)
    fig.suptitle(title, fontsize=title_size, fontweight="bold", y=1 - 0.08 / 1.6, va="top")
    ax.axis("off")
    ax.text(0.5, 0.5, f.label("chart_no_stalls"), ha="center", va="center", transform=ax.transAxes, parse_math=False)
    return _finish(fig, fmt)


def _bar_axes(ax, ys: list[int], labels: list[str], label_size: float, xmax: float, f: Fmt) -> None:
    """A row per label (first on top), shares in % along x, a light vertical grid, no top or right spine."""
    ax.set_yticks(ys)
    ax.set_yticklabels(labels, fontsize=label_size)
    for t in ax.get_yticklabels():
        t.set_parse_math(False)
    ax.set_xlim(0, xmax)
    ax.set_ylim(-0.6, len(ys) - 0.4)
    ax.set_xlabel(f.label("chart_stall_axis"), fontsize=9)
    ax.tick_params(axis="x", labelsize=8)
    ax.grid(True, axis="x", color="0.9", lw=0.6, zorder=0)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


# ------------------------------------------------------------------------------------------ one launch


def stall_chart(d: KernelDiagnosis, lang: str = "en", fmt: str = "svg", top: int = 12, inline: bool = False) -> bytes:
    """Horizontal bars of one launch's warp stalls (share of stall cycles, largest on top); healthy reasons
    (issuing, busy pipes) grey and hatched; Selected (issuing) given apart."""
    f = Fmt(chart_lang(lang, fmt))
    with chart_context(f.lang, inline, fmt):
        shares = [s for s in d.stalls.shares if round(s.share_of_stalls * 100, 1) > 0] if has_stalls(d) else []
        shown = shares[:top]  # a reason that would read "0.0%" is no bar
        rest = shares[top:]
        rows = [(f.stall_name(s.reason), s.share_of_stalls, describe(s.reason).healthy) for s in shown]
        if rest:
            rows.append((f.label("chart_other_reasons", n=len(rest)), math.fsum(s.share_of_stalls for s in rest), False))
        fig, renderer = _new_figure(7.2, 3.0)
        title = f.label("chart_stalls_title", kernel=_kernel_label(d))
        if not rows:
            return _no_stalls_figure(fig, 7.2, title, 10.5, f, fmt)
        left = _text_width_in(fig, renderer, [r[0] for r in rows], 8.5) + 0.2
        st = d.stalls
        selected = None
        if st.selected_value is not None and st.total:
            selected = f.label("chart_selected", s=f.share(st.selected_value / st.total))
        width = max(left + 5.0 + 0.35, 7.0)
        bottom = 0.5 + 0.3 + (0.25 if selected else 0.0)
        height = 0.55 + 0.27 * len(rows) + 0.2 + bottom
        _place_axes(fig, width, height, left, 0.35, 0.55, bottom)
        ax = fig.add_subplot(1, 1, 1)
        fig.suptitle(title, fontsize=10.5, fontweight="bold", y=1 - 0.1 / height, va="top")
        ys = list(range(len(rows)))[::-1]
        for y, (name, share, healthy) in zip(ys, rows):
            ax.barh(y, share * 100, height=0.7, color=_HEALTHY_FACE if healthy else _STALL_COLOUR,
                    edgecolor=_HEALTHY_EDGE if healthy else "none", hatch="///" if healthy else None, lw=0.6, zorder=3)
            ax.annotate(f"{share * 100:.1f}%", (share * 100, y), xytext=(2.5, 0), textcoords="offset points",
                        va="center", ha="left", fontsize=8, parse_math=False)  # set off by points, not a space
        xmax = max(share for _, share, _ in rows) * 100
        _bar_axes(ax, ys, [name for name, _, _ in rows], 8.5, xmax * 1.18 + 1, f)
        handles = [Patch(fc=_STALL_COLOUR, label=f.label("chart_stall_unhealthy"))]
        if any(h for _, _, h in rows):
            handles.append(Patch(fc=_HEALTHY_FACE, ec=_HEALTHY_EDGE, hatch="///", label=f.label("chart_stall_healthy")))
        fig.legend(handles=handles, loc="lower left", bbox_to_anchor=(left / width - 0.01, (0.08 + (0.25 if selected else 0)) / height),
                   ncol=2, fontsize=7.5, frameon=False, borderaxespad=0.0, handlelength=1.6)
        if selected:
            fig.text(left / width, 0.08 / height, selected, fontsize=7.5, color="#333333", va="bottom", parse_math=False)
        return _finish(fig, fmt)


# ------------------------------------------------------------------------------------------ a whole report


def report_stall_chart(result: ReportDiagnosis, lang: str = "en", fmt: str = "svg",
                       diagnoses: Sequence[KernelDiagnosis] | None = None, max_launches: int = 40, top: int = 8,
                       inline: bool = False) -> bytes:
    """Stacked horizontal bars, one per launch (the ``max_launches`` longest, report order), of the share of
    stall cycles per reason: the ``top`` reasons of the report each in a colour (healthy ones grey, hatched),
    the rest as "other"."""
    f = Fmt(chart_lang(lang, fmt))
    diags, hidden = _longest_launches(result.kernels if diagnoses is None else diagnoses, max_launches)
    title = f.label("chart_report_stalls_title", report=_short(Path(result.report.path).name, 60))
    with chart_context(f.lang, inline, fmt):
        fig, renderer = _new_figure(10.0, 3.0)
        if not diags:
            return _no_stalls_figure(fig, 8.0, title, 11, f, fmt)
        reasons, looks, has_other = _reason_looks(diags, top)
        handles = _reason_handles(reasons, looks, has_other, f)
        ylabels = [_kernel_label(d) for d in diags]
        left = _text_width_in(fig, renderer, ylabels, 8) + 0.2
        legend_w = _text_width_in(fig, renderer, [h.get_label() for h in handles], 8) + 0.55
        plot_w = 5.6
        width = left + plot_w + 0.25 + legend_w + 0.15
        bottom = 0.55 + (0.25 if hidden else 0.0)
        height = max(0.6 + 0.3 * len(diags) + bottom, 0.6 + 0.22 * len(handles) + bottom)
        _place_axes(fig, width, height, left, 0.25 + legend_w + 0.15, 0.6, bottom)
        ax = fig.add_subplot(1, 1, 1)
        fig.suptitle(title, fontsize=11, fontweight="bold", y=1 - 0.1 / height, va="top")
        ys = list(range(len(diags)))[::-1]
        _stacked_bars(ax, ys, diags, reasons, looks)
        _bar_axes(ax, ys, ylabels, 8, 100, f)
        fig.legend(handles=handles, loc="upper left", bbox_to_anchor=((left + plot_w + 0.25) / width, 1 - 0.6 / height),
                   fontsize=8, frameon=False, borderaxespad=0.0)
        if hidden:
            fig.text(left / width, 0.08 / height, f.label("chart_more_launches", n=hidden), fontsize=7.5, color="#333333",
                     parse_math=False)
        return _finish(fig, fmt)


def _longest_launches(diagnoses: Sequence[KernelDiagnosis], max_launches: int) -> tuple[list[KernelDiagnosis], int]:
    """The launches with stalls, at most the ``max_launches`` longest (in report order), and how many were left out."""
    diags = [d for d in diagnoses if has_stalls(d)]
    hidden = 0
    if len(diags) > max_launches:
        keep = {id(d) for d in sorted(diags, key=lambda d: -(d.kernel.duration_s or 0.0))[:max_launches]}
        hidden = len(diags) - max_launches
        diags = [d for d in diags if id(d) in keep]
    return diags, hidden


def _reason_looks(diags: Sequence[KernelDiagnosis], top: int) -> tuple[list[str], dict[str, _Look], bool]:
    """The ``top`` reasons (by their largest share in any launch), how each is drawn (unhealthy ones in palette
    colours, healthy ones grey with a hatch each), and whether other reasons are left over."""
    weight: dict[str, float] = {}
    for d in diags:
        for s in d.stalls.shares:
            weight[s.reason] = max(weight.get(s.reason, 0.0), s.share_of_stalls)
    weight = {r: w for r, w in weight.items() if round(w * 100, 1) > 0}  # a reason at "0.0%" everywhere: none
    reasons = sorted(weight, key=lambda r: (-weight[r], r))[:top]
    looks: dict[str, _Look] = {}
    ci = hi = 0
    for r in reasons:
        if describe(r).healthy:
            looks[r] = (_HEALTHY_FACE, _HEALTHY_HATCHES[hi % len(_HEALTHY_HATCHES)], _HEALTHY_EDGE)
            hi += 1
        else:
            looks[r] = (_STALL_PALETTE[ci % len(_STALL_PALETTE)], None, "white")
            ci += 1
    return reasons, looks, len(weight) > len(reasons)


def _reason_handles(reasons: list[str], looks: dict[str, _Look], has_other: bool, f: Fmt) -> list[Patch]:
    """Legend entries: a reason each (healthy ones marked so), then "other" when reasons were left over."""
    handles = []
    for r in reasons:
        face, hatch, edge = looks[r]
        name = f.label("chart_healthy_named", name=f.stall_name(r)) if describe(r).healthy else f.stall_name(r)
        handles.append(Patch(fc=face, hatch=hatch, ec=edge if hatch else face, label=name))
    if has_other:
        handles.append(Patch(fc="#f0f0f0", ec="#bbbbbb", label=f.label("chart_other")))
    return handles


def _stacked_bars(ax, ys: list[int], diags: Sequence[KernelDiagnosis], reasons: list[str],
                  looks: dict[str, _Look]) -> None:
    """A bar per launch: its share of each reason in ``reasons`` order, then the rest as "other"."""
    for y, d in zip(ys, diags):
        left_x = 0.0
        values = {s.reason: s.share_of_stalls for s in d.stalls.shares}
        for r in reasons:
            v = values.get(r, 0.0) * 100
            if v <= 0:
                continue
            face, hatch, edge = looks[r]
            ax.barh(y, v, left=left_x, height=0.72, color=face, hatch=hatch, edgecolor=edge, lw=0.5, zorder=3)
            left_x += v
        other = math.fsum(v for r, v in values.items() if r not in looks) * 100
        if other > 0:
            ax.barh(y, other, left=left_x, height=0.72, color="#f0f0f0", edgecolor="#bbbbbb", lw=0.5, zorder=3)

"""Charts with matplotlib (Agg, no display): the roofline of one kernel or of a whole report, and warp-stall
breakdowns. Rendering only: every number drawn comes from the diagnosis (roofline points, the GPU spec's
ceilings, stall shares); nothing is derived here beyond placing it on the page.

Output is SVG (text drawn as paths, so a chart looks the same everywhere and needs no font; element ids are
prefixed per chart so several charts can sit inline in one HTML page) or PNG. Chinese labels are drawn with a CJK
font (Debian ``fonts-noto-cjk``); without one here, an SVG keeps its Chinese labels as ``<text>`` for the reader's
browser to draw (a CJK font-family list), and only a PNG falls back to English labels (:func:`chart_lang` says
which).

:mod:`.style` holds what every chart shares (fonts, colours, figure, label placement, output), :mod:`.roofline`,
:mod:`.hierarchy` (the hierarchical roofline of one launch: a ceiling and a point per memory level) and
:mod:`.stalls` the kinds of chart; this package names the public API and the report-level set (``charts_for``:
the report's roofline and stall charts; the hierarchical roofline is per launch and not among them).
"""

from __future__ import annotations

from typing import Callable, Iterable

from ...analysis.diagnosis import ReportDiagnosis
from ...analysis.groups import launch_groups
from .hierarchy import has_hierarchy, hierarchy_chart, hierarchy_reason, why_no_hierarchy
from .roofline import has_roofline_point, kernel_roofline_chart, report_roofline_chart, why_not_plotted
from .stalls import has_stalls, report_stall_chart, stall_chart
from .style import CHART_FORMATS, CLASS_COLOURS, chart_format, chart_lang, cjk_font, svg_for_html

__all__ = [
    "CHART_FORMATS", "CLASS_COLOURS", "chart_format", "chart_lang", "charts_for", "cjk_font", "count_charts",
    "has_hierarchy", "has_roofline_point", "has_stalls", "hierarchy_chart", "hierarchy_reason",
    "kernel_roofline_chart", "report_roofline_chart", "report_stall_chart", "stall_chart", "svg_for_html",
    "why_no_hierarchy", "why_not_plotted",
]


def charts_for(result: ReportDiagnosis, lang: str, fmt: str = "svg",
               progress: Callable[[], None] | None = None, launches: str = "grouped") -> dict[str, bytes]:
    """The report-level charts by name (``"roofline"``, and ``"stalls"`` when any launch has stall metrics).
    ``launches="grouped"``: a roofline point per group of repeated launches and a stall bar per group shown in full
    (:mod:`kernelscope.render.launch_groups`); ``"all"``: per launch."""
    from ..launch_groups import FULL_GROUPS, check_view

    groups = launch_groups(result) if check_view(launches) == "grouped" else None
    out = {"roofline": report_roofline_chart(result, lang, fmt, groups=groups)}
    if progress:
        progress()
    if any(has_stalls(d) for d in result.kernels):
        shown = None if groups is None else [g.representative for g in groups[:FULL_GROUPS]]
        out["stalls"] = report_stall_chart(result, lang, fmt, diagnoses=shown)
    if progress:
        progress()
    return out


def count_charts(results: Iterable[ReportDiagnosis], per_kernel: bool = True, launches: str = "grouped") -> int:
    """How many charts :mod:`kernelscope.render.html` draws for ``results`` (for a progress bar)."""
    from ..launch_groups import panels

    n = 0
    for res in results:
        n += 2
        if per_kernel:
            n += sum(has_roofline_point(d) + has_stalls(d) for d, _ in panels(res, launches)[0])
    return n

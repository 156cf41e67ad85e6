"""Charts with matplotlib (Agg, no display): the roofline of one kernel or of a whole report, and warp-stall
breakdowns. Rendering only: every number drawn comes from the diagnosis (roofline points, the GPU spec's
ceilings, stall shares); nothing is derived here beyond placing it on the page.

Output is SVG (text drawn as paths, so a chart looks the same everywhere and needs no font; element ids are
prefixed per chart so several charts can sit inline in one HTML page) or PNG. Chinese labels need a CJK font
(Debian ``fonts-noto-cjk``); without one, charts fall back to English labels (:func:`chart_lang` says which).
"""

from __future__ import annotations

import functools
import hashlib
import io
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Sequence
from xml.sax.saxutils import escape as _xml_escape

import matplotlib

# No display and no global state: pyplot is never imported and every figure gets its own Agg canvas
# (FigureCanvasAgg), so the user's own matplotlib backend (a Jupyter notebook's, say) is left alone.
from matplotlib import font_manager
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

from ..analysis.diagnosis import KernelDiagnosis, ReportDiagnosis
from ..model import GpuSpec
from ..analysis.roofline import ridge_point
from ..knowledge.stalls import describe
from .common import Fmt, safe

CHART_FORMATS: tuple[str, ...] = ("svg", "png")

#: Colour of each bottleneck class (None: not classified).
CLASS_COLOURS: dict[str | None, str] = {
    "memory-bound": "#1f77b4",
    "compute-bound": "#d62728",
    "latency-bound": "#ff7f0e",
    "occupancy-bound": "#9467bd",
    "launch-bound": "#8c564b",
    "balanced": "#2ca02c",
    None: "#7f7f7f",
}
#: Unhealthy stall reasons in the report stall chart, in order of appearance.
_STALL_PALETTE = ("#1f77b4", "#d62728", "#ff7f0e", "#9467bd", "#8c564b", "#17becf", "#e377c2", "#bcbd22", "#2ca02c")
_HEALTHY_FACE = "#d9d9d9"
_HEALTHY_EDGE = "#7a7a7a"
_HEALTHY_HATCHES = ("///", "\\\\\\", "xxx", "...")
_STALL_COLOUR = "#4878a8"

_DPI = 100  # layout dpi; PNGs are saved at _PNG_DPI, which scales everything alike
_PNG_DPI = 150
_LABEL_SIZE = 8.0
_NAME_CHARS = 40

#: CJK fonts tried for Chinese labels, best first, and font files tried when matplotlib's font cache predates them.
_CJK_FAMILIES = (
    "Noto Sans CJK SC", "Noto Sans CJK JP", "Noto Sans CJK TC", "Source Han Sans SC", "Source Han Sans CN",
    "WenQuanYi Zen Hei", "WenQuanYi Micro Hei", "Droid Sans Fallback", "Microsoft YaHei", "SimHei", "PingFang SC",
    "Noto Serif CJK SC", "AR PL UMing CN",
)
_CJK_FILES = (
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
    "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
)


# ------------------------------------------------------------------------------------------ fonts, language


@functools.cache
def cjk_font() -> str | None:
    """The family name of an installed CJK font matplotlib can use, or None."""

    def find() -> str | None:
        for family in _CJK_FAMILIES:
            try:
                font_manager.findfont(font_manager.FontProperties(family=family), fallback_to_default=False)
            except ValueError:
                continue
            return family
        return None

    found = find()
    if found is None:  # fonts installed after matplotlib cached its font list
        for path in _CJK_FILES:
            if Path(path).is_file():
                try:
                    font_manager.fontManager.addfont(path)
                except Exception:  # noqa: BLE001 - an unreadable font file only means no CJK labels
                    continue
        found = find()
    return found


def chart_lang(lang: str) -> str:
    """The language charts are labelled in: ``lang``, or ``"en"`` for Chinese when no CJK font is installed."""
    return "en" if lang == "zh" and cjk_font() is None else lang


def _rc(lang: str, inline: bool = False) -> dict:
    families = ["DejaVu Sans"]
    if lang == "zh" and cjk_font() is not None:
        families = ["DejaVu Sans", cjk_font()]  # per-glyph fallback: Latin from DejaVu, Chinese from the CJK font
    return {
        "font.family": families,
        "axes.unicode_minus": False,
        # standalone files draw text as paths (same look everywhere, no font needed); SVG inlined in HTML keeps
        # <text> elements (a fraction of the size, searchable, drawn with the browser's fonts)
        "svg.fonttype": "none" if inline else "path",
        "svg.hashsalt": "kernelscope",
        "path.simplify": True,
    }


# ------------------------------------------------------------------------------------------ helpers


def _short(text: str, n: int = _NAME_CHARS) -> str:
    text = safe(text)
    return text if len(text) <= n else text[: n - 1] + "…"


def _kernel_label(d: KernelDiagnosis) -> str:
    return f"[{d.kernel.index}] {_short(d.kernel.name)}"


def _si(value: float, unit: str = "") -> str:
    for scale, prefix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= scale:
            return f"{value / scale:.3g} {prefix}{unit}"
    return f"{value:.3g} {unit}".rstrip()


def _ops_unit(pipe: str) -> str:
    return "OP/s" if pipe.startswith("int") else "FLOP/s"


def _decade_ticks(lo: float, hi: float) -> list[float]:
    return [10.0 ** e for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)]


def _tick_si(value: float, _pos: object = None) -> str:
    for scale, prefix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= scale:
            return f"{value / scale:g}{prefix}"
    return f"{value:g}"


def _tick_plain(value: float, _pos: object = None) -> str:
    if value >= 1e4:
        return _tick_si(value)
    return f"{value:g}"


def _wrap(text: str, width: int) -> list[str]:
    """Wrap by display width (a CJK character counts as two columns)."""
    out: list[str] = []
    for para in text.split("\n"):
        line, cols = "", 0
        for word in re.split(r"(\s+)", para):
            w = sum(2 if ord(ch) > 0x2E80 else 1 for ch in word)
            if cols + w > width and line.strip():
                out.append(line.rstrip())
                line, cols = "", 0
                if word.isspace():
                    continue
            while w > width:  # a single long word (a C++ name): hard break
                cut, c = 0, 0
                while cut < len(word) and c + (2 if ord(word[cut]) > 0x2E80 else 1) <= width:
                    c += 2 if ord(word[cut]) > 0x2E80 else 1
                    cut += 1
                out.append(word[:cut])
                word = word[cut:]
                w = sum(2 if ord(ch) > 0x2E80 else 1 for ch in word)
            line += word
            cols += w
        if line.strip():
            out.append(line.rstrip())
    return out


@dataclass
class _Box:
    x0: float
    y0: float
    x1: float
    y1: float

    def overlaps(self, other: "_Box", pad: float = 1.5) -> bool:
        return not (self.x1 + pad <= other.x0 or other.x1 + pad <= self.x0 or self.y1 + pad <= other.y0 or other.y1 + pad <= self.y0)

    def inside(self, other: "_Box") -> bool:
        return self.x0 >= other.x0 and self.x1 <= other.x1 and self.y0 >= other.y0 and self.y1 <= other.y1


def _box(bb) -> _Box:
    return _Box(bb.x0, bb.y0, bb.x1, bb.y1)


class _Placer:
    """Deterministic greedy label placement: each label takes the first candidate position (nearest first,
    in a fixed order of directions) whose box stays inside the axes and overlaps no marker and no label placed
    before it."""

    _DIRECTIONS = (0, 45, -45, 90, -90, 135, -135, 180, 22, -22, 68, -68, 112, -112, 158, -158)

    def __init__(self, ax, renderer) -> None:
        self.ax = ax
        self.renderer = renderer
        self.area = _box(ax.get_window_extent(renderer))
        self.taken: list[_Box] = []

    def block(self, box: _Box) -> None:
        self.taken.append(box)

    def block_point(self, x: float, y: float, radius_px: float) -> None:
        px, py = self.ax.transData.transform((x, y))
        self.taken.append(_Box(px - radius_px, py - radius_px, px + radius_px, py + radius_px))

    def fits(self, box: _Box) -> bool:
        return box.inside(self.area) and not any(box.overlaps(t) for t in self.taken)

    def place(self, text: str, x: float, y: float, radius_px: float, *, rings: Sequence[float] = (3, 14, 30, 50, 75),
              directions: Sequence[int] | None = None, leader: bool = True, **style) -> bool:
        """Annotate (x, y) with ``text`` near it; False (and nothing drawn) when no candidate fits."""
        to_pt = 72.0 / self.ax.figure.dpi
        arrow = {"arrowstyle": "-", "color": "0.45", "lw": 0.6, "shrinkA": 0, "shrinkB": radius_px * to_pt}
        ann = self.ax.annotate(
            text, (x, y), xytext=(0, 0), textcoords="offset points", fontsize=style.pop("fontsize", _LABEL_SIZE),
            va="center", ha="center", zorder=7, annotation_clip=False, parse_math=False,
            arrowprops=arrow if leader else None, **style,
        )
        bb = ann.get_window_extent(self.renderer)
        w, h = bb.width, bb.height
        px, py = self.ax.transData.transform((x, y))
        for ring in rings:
            for angle in directions or self._DIRECTIONS:
                a = math.radians(angle)
                # distance from the point to the label's centre so the box edge clears the marker by `ring`
                cx = px + math.cos(a) * (radius_px + ring + w / 2)
                cy = py + math.sin(a) * (radius_px + ring + h / 2)
                box = _Box(cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)
                if self.fits(box):
                    ann.xyann = ((cx - px) * to_pt, (cy - py) * to_pt)
                    if ann.arrow_patch is not None:
                        ann.arrow_patch.set_visible(ring > 20)
                    self.taken.append(box)
                    return True
        ann.remove()
        return False


def _finish(fig: Figure, fmt: str, points: dict[str, str] | None = None) -> bytes:
    """Save ``fig`` as ``fmt`` bytes; SVG gets per-chart id prefixes and point tooltips (``points``: gid -> title)."""
    if fmt not in CHART_FORMATS:
        raise ValueError(f"chart format must be one of {', '.join(CHART_FORMATS)}, got {fmt!r}")
    buf = io.BytesIO()
    if fmt == "png":
        fig.savefig(buf, format="png", dpi=_PNG_DPI, metadata={"Software": None}, facecolor="white")
        return buf.getvalue()
    fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None}, facecolor="white")
    return _tidy_svg(buf.getvalue().decode("utf-8"), points or {}).encode("utf-8")


def _tidy_svg(svg: str, titles: dict[str, str]) -> str:
    """Drop the RDF metadata, prefix every id (and its references) with a hash of the chart, and add a
    ``<title>`` (a tooltip in browsers) to each kernel point group."""
    svg = re.sub(r"<metadata>.*?</metadata>\s*", "", svg, flags=re.S)
    prefix = "ks" + hashlib.sha1(svg.encode("utf-8")).hexdigest()[:8] + "-"
    svg = re.sub(r'\bid="([^"]+)"', lambda m: f'id="{prefix}{m.group(1)}"', svg)
    svg = re.sub(r'(xlink:href|href)="#([^"]+)"', lambda m: f'{m.group(1)}="#{prefix}{m.group(2)}"', svg)
    svg = re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#{prefix}{m.group(1)})", svg)
    for gid, title in titles.items():
        svg = svg.replace(f'<g id="{prefix}{gid}">', f'<g id="{prefix}{gid}" class="ks-point"><title>{_xml_escape(title)}</title>', 1)
    return svg


def svg_for_html(svg: bytes) -> str:
    """An SVG chart as markup to inline in HTML: without the XML declaration and DOCTYPE (which names a DTD URL)."""
    text = svg.decode("utf-8")
    text = re.sub(r"<\?xml[^>]*\?>\s*", "", text)
    text = re.sub(r"<!DOCTYPE[^>]*>\s*", "", text)
    return text.strip()


def _new_figure(width: float, height: float) -> tuple[Figure, object]:
    fig = Figure(figsize=(width, height), dpi=_DPI)
    FigureCanvasAgg(fig)
    return fig, fig.canvas.get_renderer()


# ------------------------------------------------------------------------------------------ roofline


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


def _pick_gpu(diags: Sequence[KernelDiagnosis]) -> GpuSpec | None:
    counts: dict[str, list] = {}
    for d in diags:
        if d.gpu is not None:
            counts.setdefault(d.gpu.name, []).append(d.gpu)
    if not counts:
        return None
    return max(counts.values(), key=len)[0]


def why_not_plotted(d: KernelDiagnosis, gpu: GpuSpec | None, f: Fmt) -> str | None:
    """Why a launch has no point on the chart (None: it has one)."""
    if gpu is not None and d.gpu is None:
        return f.label("chart_no_gpu")
    if gpu is not None and d.gpu.name != gpu.name:
        return f.label("chart_other_gpu", gpu=safe(d.gpu.name))
    r = d.roofline
    if r is None:
        return f.notes([n for n in d.notes if n.key.startswith("no_peak")]) or f.label("chart_no_roofline")
    if r.arithmetic_intensity_flop_per_byte is None or r.achieved_flops_per_s is None:
        reasons = [m for m in r.not_measured if m != "efficiency_undefined"] or list(r.not_measured)
        text = f.notes(reasons) if reasons else f.label("chart_no_roofline")
        if "flops_not_measured" in r.not_measured and "_tensor" in r.pipe:
            text += f" ({f.pipe(r.pipe)})"
        return text
    if math.isinf(r.arithmetic_intensity_flop_per_byte):
        return f.label("chart_ai_infinite")
    if r.arithmetic_intensity_flop_per_byte <= 0 or r.achieved_flops_per_s <= 0:
        return f.note("no_fp_work")
    return None


def _point_title(d: KernelDiagnosis, ai: float, perf: float, pipe: str, share: float | None, f: Fmt) -> str:
    r = d.roofline
    lines = [f"[{d.kernel.index}] {safe(d.kernel.name)}"]
    line = f"{f.intensity(ai)}, {_si(perf, _ops_unit(pipe))} ({f.pipe(pipe)})"
    if r is not None and r.pipe == pipe and r.efficiency is not None:
        line += f", {f.share(r.efficiency)} {f.label('of_attainable')}"
    lines.append(line)
    lines.append(" + ".join(f.bound(c) for c in d.verdict) or f.nm)
    t = f.time(d.kernel.duration_s)
    lines.append(t if share is None else f"{t} ({f.share(share)} {f.label('of_gpu_time')})")
    return "\n".join(lines)


def _points(diags: Sequence[KernelDiagnosis], gpu: GpuSpec | None, total_s: float | None, f: Fmt,
            by_pipe: bool, chart_f: Fmt) -> tuple[list[_Point], list[tuple[str, str]]]:
    points: list[_Point] = []
    skipped: list[tuple[str, str]] = []
    for d in diags:
        why = why_not_plotted(d, gpu, chart_f)
        if why is not None:
            skipped.append((safe(d.kernel.name), why))
            continue
        k = d.kernel
        share = None
        if total_s and k.duration_s is not None:
            share = k.duration_s * k.launch_count / total_s  # this launch's part of the report's GPU time
        area = 70.0 if share is None else 28.0 + 1100.0 * share
        colour = CLASS_COLOURS.get(d.bound, CLASS_COLOURS[None])
        candidates = [d.roofline]
        if by_pipe:
            candidates += [r for r in d.roofline_by_pipe if r.pipe != d.roofline.pipe]
        for r in candidates:
            ai, perf = r.arithmetic_intensity_flop_per_byte, r.achieved_flops_per_s
            if ai is None or perf is None or not math.isfinite(ai) or ai <= 0 or perf <= 0:
                continue
            label = _kernel_label(d) if not by_pipe else f"{_kernel_label(d)} ({chart_f.pipe(r.pipe)})"
            points.append(_Point(
                diag=d, ai=ai, perf=perf, pipe=r.pipe, label=label, area=area, colour=colour,
                gid=f"ks-kernel-{k.index}" + ("" if r is d.roofline else f"-{r.pipe}"),
                title=_point_title(d, ai, perf, r.pipe, share, f), sized=share is not None,
            ))
    return points, skipped


def _ceilings(gpu: GpuSpec, f: Fmt) -> list[tuple[float, list[str], str]]:
    """(peak, pipes, label) per distinct peak, highest first; pipes with equal peaks share one line."""
    by_peak: dict[float, list[str]] = {}
    for pipe, peak in gpu.peak_flops_per_s.items():
        by_peak.setdefault(peak, []).append(pipe)
    out = []
    for peak in sorted(by_peak, reverse=True):
        pipes = by_peak[peak]
        shown = [p for p in pipes if not (p == "fp16_tensor_fp16acc" and "fp16_tensor" in pipes)]
        names = [f.pipe(p) for p in shown]
        heads = [n.split(" ", 1) for n in names]
        if len(names) > 1 and all(len(h) == 2 and h[1] == heads[0][1] for h in heads):
            name = "/".join(h[0] for h in heads) + " " + heads[0][1]
        else:
            name = " / ".join(names)
        unit = "OP/s" if all(p.startswith("int") for p in pipes) else "FLOP/s"
        out.append((peak, pipes, f"{name}: {_si(peak, unit)}"))
    return out


def _roofline_figure(points: list[_Point], skipped: list[tuple[str, str]], gpu: GpuSpec | None, title: str,
                     f: Fmt, used_pipes: set[str], fmt: str, width: float = 10.0, base_h: float = 6.4) -> bytes:
    notes = _not_plotted_lines(skipped, f)
    chars = int((width - 1.1) * 16.5)
    note_lines = sum(len(_wrap(n, chars)) for n in notes)
    note_h = 0.17 * note_lines + (0.15 if notes else 0)
    fig, renderer = _new_figure(width, base_h + note_h)
    top_in, bottom_in = 0.55, 0.62 + note_h
    _place_axes(fig, width, base_h + note_h, 0.85, 0.25, top_in, bottom_in)
    ax = fig.add_subplot(1, 1, 1)
    ax.set_xscale("log")
    ax.set_yscale("log")
    fig.suptitle(title, fontsize=12 if width >= 9 else 10.5, fontweight="bold", x=0.5, y=1 - 0.18 / (base_h + note_h), va="top")

    ceilings = _ceilings(gpu, f) if gpu is not None else []
    bw = gpu.dram_bandwidth_bytes_per_s if gpu is not None else None
    ridges = [ridge_point(peak, bw) for peak, _, _ in ceilings] if gpu is not None else []
    xs = [p.ai for p in points] + ridges
    ys = [p.perf for p in points] + [peak for peak, _, _ in ceilings]
    if not xs:
        xs, ys = [0.1, 100.0], [1e9, 1e13]
    xlo = 10.0 ** math.floor(math.log10(min(xs) / 4))
    xhi = 10.0 ** math.ceil(math.log10(max(xs) * 8))
    if math.log10(xhi / xlo) < 4:
        xhi = xlo * 1e4
    ylo_candidates = list(ys) + ([bw * xlo * 2] if bw else [])
    ylo = 10.0 ** math.floor(math.log10(min(ylo_candidates) / 3))
    yhi = max(ys) * 2.5  # room above the highest ceiling for its label
    if math.log10(yhi / ylo) < 3:
        ylo = 10.0 ** math.floor(math.log10(yhi / 1e3))
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

    placer = _Placer(ax, renderer)
    handles: list = []
    if gpu is not None and ceilings:
        top_ridge = max(ridges)
        slope_x = [xlo, top_ridge]
        ax.plot(slope_x, [bw * x for x in slope_x], color="#222222", lw=2.0, zorder=3, solid_capstyle="butt")
        for (peak, pipes, label), ridge in zip(ceilings, ridges):
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

    # kernel points: largest first underneath, so small ones stay visible
    radius = {}
    for p in sorted(points, key=lambda p: (-p.area, p.diag.kernel.index)):
        ax.scatter([p.ai], [p.perf], s=p.area, c=p.colour, edgecolors="black", linewidths=0.6, alpha=0.88, zorder=5, gid=p.gid)
        radius[p.gid] = math.sqrt(p.area) / 2 * _DPI / 72.0
        placer.block_point(p.ai, p.perf, radius[p.gid])

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

    if gpu is not None and ceilings:
        # ceiling labels above their line, right-aligned at the right edge (moved left / below / wrapped on
        # collisions), then the DRAM label along the slope
        for (peak, pipes, label), ridge in zip(ceilings, ridges):
            used = bool(used_pipes & set(pipes))
            _place_ceiling_label(ax, placer, renderer, label, ridge, peak, xhi, bold=used)
        _place_slope_label(ax, placer, renderer, f.label("chart_dram", bw=_si(bw, "B/s")), xlo, max(ridges), bw)

    # labels: launches of one kernel name (and pipe) drawn on top of each other share one label ("name ×N");
    # clusters of the longest launches are labelled first; a label that finds no room falls back to "[index]"
    bbox = {"boxstyle": "round,pad=0.2", "fc": "white", "ec": "none", "alpha": 0.85}
    for members in _clusters(ax, points, radius):
        rep = members[0]
        px, py = ax.transData.transform((rep.ai, rep.perf))
        reach = max(math.dist((px, py), ax.transData.transform((m.ai, m.perf))) + radius[m.gid] for m in members)
        label = rep.label if len(members) == 1 else f"{_short(rep.diag.kernel.name)} ×{len(members)}" + (
            f" ({f.pipe(rep.pipe)})" if rep.label.endswith(")") else "")
        if not placer.place(label, rep.ai, rep.perf, reach, bbox=bbox):
            placer.place(f"[{rep.diag.kernel.index}]", rep.ai, rep.perf, reach, rings=(2, 10, 22), fontsize=7, bbox=bbox)

    # ridge values last: below-right of their marker if there is room, else anywhere near it
    for (peak, _, _), ridge in zip(ceilings, ridges):
        placer.place(f"{ridge:.3g}", ridge, peak, 4, rings=(2, 8, 16),
                     directions=(-45, -60, -30, -90, -20, -75, 0, 135, 120, 150, 90, 180, 45),
                     leader=False, fontsize=7.5, color="#222222",
                     bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.8})

    if notes:
        y = (bottom_in - 0.5) / (base_h + note_h)
        text = "\n".join(line for n in notes for line in _wrap(n, chars))
        fig.text(0.85 / width, y, text, fontsize=7.5, va="top", ha="left", color="#333333", parse_math=False)
    return _finish(fig, fmt, {p.gid: p.title for p in points})


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
        parts.append(f"{', '.join(listed)}: {why}")
    return [f"{f.label('chart_not_plotted')}: " + "; ".join(parts)]


def _title(prefix: str, gpu: GpuSpec | None, f: Fmt) -> str:
    if gpu is None:
        return f.label("chart_roofline_title_plain", what=prefix)
    return f.label("chart_roofline_title", what=prefix, gpu=safe(gpu.name))


def report_roofline_chart(result: ReportDiagnosis, lang: str = "en", fmt: str = "svg",
                          diagnoses: Sequence[KernelDiagnosis] | None = None, inline: bool = False) -> bytes:
    """The roofline of a whole report (or of ``diagnoses``, a selection of its launches): every launch with a
    measured arithmetic intensity and FLOP/s is a point sized by its share of the report's GPU time and coloured
    by its bottleneck class; the others are listed under the chart with the reason."""
    f = Fmt(chart_lang(lang))
    full = Fmt(lang)
    diags = tuple(result.kernels if diagnoses is None else diagnoses)
    gpu = _pick_gpu(diags)
    total = math.fsum(g.total_duration_s for g in result.groups) or None
    with matplotlib.rc_context(_rc(f.lang, inline)):
        points, skipped = _points(diags, gpu, total, full, False, f)
        used = {d.roofline.pipe for d in diags if d.roofline is not None and (gpu is None or (d.gpu and d.gpu.name == gpu.name))}
        name = Path(result.report.path).name
        return _roofline_figure(points, skipped, gpu, _title(_short(name, 60), gpu, f), f, used, fmt)


def kernel_roofline_chart(d: KernelDiagnosis, lang: str = "en", fmt: str = "svg", total_s: float | None = None,
                          inline: bool = False) -> bytes:
    """The roofline of one launch: its point on every pipe it used (the main pipe's ceiling drawn bold)."""
    f = Fmt(chart_lang(lang))
    full = Fmt(lang)
    with matplotlib.rc_context(_rc(f.lang, inline)):
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


# ------------------------------------------------------------------------------------------ stalls


def has_stalls(d: KernelDiagnosis) -> bool:
    """Whether the launch has a stall breakdown to chart."""
    return d.stalls is not None and bool(d.stalls.shares) and d.stalls.stall_total > 0


def _text_width_in(fig: Figure, renderer, texts: Iterable[str], size: float) -> float:
    """Widest of ``texts`` at ``size`` points, in inches."""
    widest = 0.0
    for text in texts:
        t = fig.text(0, 0, text, fontsize=size, parse_math=False)
        widest = max(widest, t.get_window_extent(renderer).width)
        t.remove()
    return widest / fig.dpi


def _place_axes(fig: Figure, width: float, height: float, left: float, right: float, top: float, bottom: float) -> None:
    """Size the figure (inches) and put its single axes at the given margins (inches)."""
    fig.set_size_inches(width, height)
    fig.subplots_adjust(left=left / width, right=1 - right / width, top=1 - top / height, bottom=bottom / height)


def stall_chart(d: KernelDiagnosis, lang: str = "en", fmt: str = "svg", top: int = 12, inline: bool = False) -> bytes:
    """Horizontal bars of one launch's warp stalls (share of stall cycles, largest on top); healthy reasons
    (issuing, busy pipes) grey and hatched; Selected (issuing) given apart."""
    f = Fmt(chart_lang(lang))
    with matplotlib.rc_context(_rc(f.lang, inline)):
        shares = list(d.stalls.shares) if has_stalls(d) else []
        shown = shares[:top]
        rest = shares[top:]
        rows = [(f.stall_name(s.reason), s.share_of_stalls, describe(s.reason).healthy) for s in shown]
        if rest:
            rows.append((f.label("chart_other_reasons", n=len(rest)), math.fsum(s.share_of_stalls for s in rest), False))
        fig, renderer = _new_figure(7.2, 3.0)
        title = f.label("chart_stalls_title", kernel=_kernel_label(d))
        if not rows:
            _place_axes(fig, 7.2, 1.6, 0.3, 0.3, 0.5, 0.2)
            ax = fig.add_subplot(1, 1, 1)
            fig.suptitle(title, fontsize=10.5, fontweight="bold", y=1 - 0.08 / 1.6, va="top")
            ax.axis("off")
            ax.text(0.5, 0.5, f.label("chart_no_stalls"), ha="center", va="center", transform=ax.transAxes, parse_math=False)
            return _finish(fig, fmt)
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
            ax.text(share * 100, y, f" {share * 100:.1f}%", va="center", ha="left", fontsize=8, parse_math=False)
        ax.set_yticks(ys)
        ax.set_yticklabels([name for name, _, _ in rows], fontsize=8.5)
        for t in ax.get_yticklabels():
            t.set_parse_math(False)
        xmax = max(share for _, share, _ in rows) * 100
        ax.set_xlim(0, xmax * 1.18 + 1)
        ax.set_ylim(-0.6, len(rows) - 0.4)
        ax.set_xlabel(f.label("chart_stall_axis"), fontsize=9)
        ax.tick_params(axis="x", labelsize=8)
        ax.grid(True, axis="x", color="0.9", lw=0.6, zorder=0)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        handles = [Patch(fc=_STALL_COLOUR, label=f.label("chart_stall_unhealthy"))]
        if any(h for _, _, h in rows):
            handles.append(Patch(fc=_HEALTHY_FACE, ec=_HEALTHY_EDGE, hatch="///", label=f.label("chart_stall_healthy")))
        fig.legend(handles=handles, loc="lower left", bbox_to_anchor=(left / width - 0.01, (0.08 + (0.25 if selected else 0)) / height),
                   ncol=2, fontsize=7.5, frameon=False, borderaxespad=0.0, handlelength=1.6)
        if selected:
            fig.text(left / width, 0.08 / height, selected, fontsize=7.5, color="#333333", va="bottom", parse_math=False)
        return _finish(fig, fmt)


def report_stall_chart(result: ReportDiagnosis, lang: str = "en", fmt: str = "svg",
                       diagnoses: Sequence[KernelDiagnosis] | None = None, max_launches: int = 40, top: int = 8,
                       inline: bool = False) -> bytes:
    """Stacked horizontal bars, one per launch (the ``max_launches`` longest, report order), of the share of
    stall cycles per reason: the ``top`` reasons of the report each in a colour (healthy ones grey, hatched),
    the rest as "other"."""
    f = Fmt(chart_lang(lang))
    diags = [d for d in (result.kernels if diagnoses is None else diagnoses) if has_stalls(d)]
    hidden = 0
    if len(diags) > max_launches:
        keep = {id(d) for d in sorted(diags, key=lambda d: -(d.kernel.duration_s or 0.0))[:max_launches]}
        hidden = len(diags) - max_launches
        diags = [d for d in diags if id(d) in keep]
    title = f.label("chart_report_stalls_title", report=_short(Path(result.report.path).name, 60))
    with matplotlib.rc_context(_rc(f.lang, inline)):
        fig, renderer = _new_figure(10.0, 3.0)
        if not diags:
            _place_axes(fig, 8.0, 1.6, 0.3, 0.3, 0.5, 0.2)
            ax = fig.add_subplot(1, 1, 1)
            fig.suptitle(title, fontsize=11, fontweight="bold", y=1 - 0.08 / 1.6, va="top")
            ax.axis("off")
            ax.text(0.5, 0.5, f.label("chart_no_stalls"), ha="center", va="center", transform=ax.transAxes, parse_math=False)
            return _finish(fig, fmt)
        weight: dict[str, float] = {}
        for d in diags:
            for s in d.stalls.shares:
                weight[s.reason] = max(weight.get(s.reason, 0.0), s.share_of_stalls)
        reasons = sorted(weight, key=lambda r: (-weight[r], r))[:top]
        colours: dict[str, tuple[str, str | None, str]] = {}
        ci = hi = 0
        for r in reasons:
            if describe(r).healthy:
                colours[r] = (_HEALTHY_FACE, _HEALTHY_HATCHES[hi % len(_HEALTHY_HATCHES)], _HEALTHY_EDGE)
                hi += 1
            else:
                colours[r] = (_STALL_PALETTE[ci % len(_STALL_PALETTE)], None, "white")
                ci += 1
        handles = []
        for r in reasons:
            face, hatch, edge = colours[r]
            name = f.stall_name(r) + (f" ({f.label('chart_healthy_short')})" if describe(r).healthy else "")
            handles.append(Patch(fc=face, hatch=hatch, ec=edge if hatch else face, label=name))
        if len(weight) > len(reasons):
            handles.append(Patch(fc="#f0f0f0", ec="#bbbbbb", label=f.label("chart_other")))
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
        for y, d in zip(ys, diags):
            left_x = 0.0
            values = {s.reason: s.share_of_stalls for s in d.stalls.shares}
            for r in reasons:
                v = values.get(r, 0.0) * 100
                if v <= 0:
                    continue
                face, hatch, edge = colours[r]
                ax.barh(y, v, left=left_x, height=0.72, color=face, hatch=hatch, edgecolor=edge, lw=0.5, zorder=3)
                left_x += v
            other = math.fsum(v for r, v in values.items() if r not in colours) * 100
            if other > 0:
                ax.barh(y, other, left=left_x, height=0.72, color="#f0f0f0", edgecolor="#bbbbbb", lw=0.5, zorder=3)
        ax.set_yticks(ys)
        ax.set_yticklabels(ylabels, fontsize=8)
        for t in ax.get_yticklabels():
            t.set_parse_math(False)
        ax.set_xlim(0, 100)
        ax.set_ylim(-0.6, len(diags) - 0.4)
        ax.set_xlabel(f.label("chart_stall_axis"), fontsize=9)
        ax.tick_params(axis="x", labelsize=8)
        ax.grid(True, axis="x", color="0.9", lw=0.6, zorder=0)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        fig.legend(handles=handles, loc="upper left", bbox_to_anchor=((left + plot_w + 0.25) / width, 1 - 0.6 / height),
                   fontsize=8, frameon=False, borderaxespad=0.0)
        if hidden:
            fig.text(left / width, 0.08 / height, f.label("chart_more_launches", n=hidden), fontsize=7.5, color="#333333",
                     parse_math=False)
        return _finish(fig, fmt)


# ------------------------------------------------------------------------------------------ files


def chart_format(path: str) -> str:
    """``"svg"`` or ``"png"`` from an output file name.

    Raises:
        ValueError: another extension.
    """
    ext = Path(path).suffix.lower().lstrip(".")
    if ext not in CHART_FORMATS:
        raise ValueError(f"expected a .png or .svg file name, got {Path(path).name!r}")
    return ext


def charts_for(result: ReportDiagnosis, lang: str, fmt: str = "svg",
               progress: Callable[[], None] | None = None) -> dict[str, bytes]:
    """The report-level charts by name (``"roofline"``, and ``"stalls"`` when any launch has stall metrics)."""
    out = {"roofline": report_roofline_chart(result, lang, fmt)}
    if progress:
        progress()
    if any(has_stalls(d) for d in result.kernels):
        out["stalls"] = report_stall_chart(result, lang, fmt)
    if progress:
        progress()
    return out


def count_charts(results: Iterable[ReportDiagnosis], per_kernel: bool = True) -> int:
    """How many charts :mod:`kernelscope.render.html` draws for ``results`` (for a progress bar)."""
    n = 0
    for res in results:
        n += 2
        if per_kernel:
            n += sum(has_roofline_point(d) + has_stalls(d) for d in res.kernels)
    return n

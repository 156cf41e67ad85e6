"""What every chart shares: fonts (a CJK font for Chinese labels), colours, the figure and its canvas, label
placement and layout, and the SVG/PNG output.

SVG text is drawn as paths (a chart looks the same everywhere and needs no font; element ids are prefixed per
chart so several charts can sit inline in one HTML page); PNG is saved at a higher dpi. SVG inlined in HTML, and
a Chinese SVG when no CJK font is installed here, keep their text as ``<text>`` elements that the reader's browser
draws with its own fonts (:data:`SVG_FONT_FAMILIES`): Chinese labels stay Chinese in every SVG. Only a Chinese PNG
without a CJK font here falls back to English labels (:func:`chart_lang`).
"""

from __future__ import annotations

import functools
import hashlib
import io
import math
import re
import logging
import warnings
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Sequence
from xml.sax.saxutils import escape as _xml_escape

# No display and no global state: pyplot is never imported and every figure gets its own Agg canvas
# (FigureCanvasAgg), so the user's own matplotlib backend (a Jupyter notebook's, say) is left alone.
import matplotlib
from matplotlib import font_manager
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from rich.cells import cell_len

from ...analysis.diagnosis import KernelDiagnosis
from ..common import safe

CHART_FORMATS: tuple[str, ...] = ("svg", "png")


class _NoWeightFallbackWarnings(logging.Filter):
    """Drops matplotlib's "findfont: Failed to find font weight bold for <CJK font>, now using 400" warnings: a CJK
    font often comes in one weight, and regular-weight bold labels are what a chart wants then (the warnings
    otherwise fill standard error, once per label)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("findfont: Failed to find font weight")


logging.getLogger("matplotlib.font_manager").addFilter(_NoWeightFallbackWarnings())

#: Colour of each bottleneck class (None: not classified).
CLASS_COLOURS: dict[str | None, str] = {
    "memory-bound": "#1f77b4",
    "compute-bound": "#d62728",
    "latency-bound": "#ff7f0e",
    "occupancy-bound": "#9467bd",
    "launch-bound": "#8c564b",
    "small-grid": "#e377c2",
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


#: The font families of SVG ``<text>`` (drawn by the reader's browser): the Latin font the layout was measured with,
#: then CJK fonts of Linux, macOS and Windows for the Chinese characters, then the browser's sans-serif.
SVG_FONT_FAMILIES = ("DejaVu Sans", "Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC", "Microsoft YaHei",
                     "sans-serif")

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


def chart_lang(lang: str, fmt: str = "svg") -> str:
    """The language a ``fmt`` chart is labelled in: ``lang``, except ``"en"`` for a Chinese PNG when no CJK font is
    installed (an SVG keeps Chinese text for the reader's browser to draw: :func:`_rc`)."""
    return "en" if lang == "zh" and fmt == "png" and cjk_font() is None else lang


def _rc(lang: str, inline: bool = False, fmt: str = "svg") -> dict:
    families = ["DejaVu Sans"]
    if lang == "zh" and cjk_font() is not None:
        families = ["DejaVu Sans", cjk_font()]  # per-glyph fallback: Latin from DejaVu, Chinese from the CJK font
    # standalone files draw text as paths (same look everywhere, no font needed); SVG inlined in HTML keeps <text>
    # elements (a fraction of the size, searchable, drawn with the browser's fonts), and so does a Chinese SVG when
    # there is no CJK font here to draw its paths with
    as_text = inline or (lang == "zh" and fmt == "svg" and cjk_font() is None)
    return {
        "font.family": families,
        "axes.unicode_minus": False,
        "svg.fonttype": "none" if as_text else "path",
        "svg.hashsalt": "kernelscope",
        "path.simplify": True,
    }


@contextmanager
def chart_context(lang: str, inline: bool = False, fmt: str = "svg") -> Iterator[None]:
    """Where a chart in ``lang`` is drawn: matplotlib's settings for it (:func:`_rc`), glyph warnings silenced."""
    with matplotlib.rc_context(_rc(lang, inline, fmt)), no_glyph_warnings():
        yield


@contextmanager
def no_glyph_warnings() -> Iterator[None]:
    """Silence matplotlib's "Glyph N missing from font(s)" warnings: Chinese text measured without a CJK font (an SVG
    whose ``<text>`` the browser draws) is laid out with matplotlib's fallback glyphs, on purpose."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"Glyph \d+ .*missing from font")
        yield


# ------------------------------------------------------------------------------------------ text


def _short(text: str, n: int = _NAME_CHARS) -> str:
    text = safe(text)
    return text if len(text) <= n else text[: n - 1] + "…"


def _kernel_label(d: KernelDiagnosis) -> str:
    return f"[{d.kernel.index}] {_short(d.kernel.name)}"


def _wrap(text: str, width: int) -> list[str]:
    """Wrap by display width (terminal cells: a CJK character counts as two; ``rich.cells.cell_len``)."""
    out: list[str] = []
    for para in text.split("\n"):
        line, cols = "", 0
        for word in re.split(r"(\s+)", para):
            w = cell_len(word)
            if cols + w > width and line.strip():
                out.append(line.rstrip())
                line, cols = "", 0
                if word.isspace():
                    continue
            while w > width:  # a single long word (a C++ name): hard break
                cut, c = 0, 0
                while cut < len(word) and c + cell_len(word[cut]) <= width:
                    c += cell_len(word[cut])
                    cut += 1
                out.append(word[:cut])
                word = word[cut:]
                w = cell_len(word)
            line += word
            cols += w
        if line.strip():
            out.append(line.rstrip())
    return out


# ------------------------------------------------------------------------------------------ label placement


#: Pixels kept free between a label and anything else (:meth:`_Box.overlaps`).
_PAD = 1.5


@dataclass
class _Box:
    x0: float
    y0: float
    x1: float
    y1: float

    def overlaps(self, other: "_Box", pad: float = _PAD) -> bool:
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
        self._edges: list[tuple[float, float, float, float]] = []  # taken boxes as (x0, y0, x1 + pad, y1 + pad)

    def block(self, box: _Box) -> None:
        self.taken.append(box)
        self._edges.append((box.x0, box.y0, box.x1 + _PAD, box.y1 + _PAD))

    def block_point(self, x: float, y: float, radius_px: float) -> None:
        px, py = self.ax.transData.transform((x, y))
        self.block(_Box(px - radius_px, py - radius_px, px + radius_px, py + radius_px))

    def fits(self, box: _Box) -> bool:
        """Inside the axes and overlapping no taken box (:meth:`_Box.overlaps`, computed inline: a report chart
        tries thousands of candidates against hundreds of boxes)."""
        if not box.inside(self.area):
            return False
        x0, y0, x1, y1 = box.x0, box.y0, box.x1 + _PAD, box.y1 + _PAD
        for tx0, ty0, tx1, ty1 in self._edges:
            if not (x1 <= tx0 or tx1 <= x0 or y1 <= ty0 or ty1 <= y0):
                return False
        return True

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
                    self.block(box)
                    return True
        ann.remove()
        return False


# ------------------------------------------------------------------------------------------ figure, layout


def _new_figure(width: float, height: float) -> tuple[Figure, object]:
    fig = Figure(figsize=(width, height), dpi=_DPI)
    FigureCanvasAgg(fig)
    return fig, fig.canvas.get_renderer()


def _text_width_in(fig: Figure, renderer, texts: Iterable[str], size: float, weight: str = "normal") -> float:
    """Widest of ``texts`` at ``size`` points (and font ``weight``), in inches."""
    widest = 0.0
    for text in texts:
        t = fig.text(0, 0, text, fontsize=size, fontweight=weight, parse_math=False)
        widest = max(widest, t.get_window_extent(renderer).width)
        t.remove()
    return widest / fig.dpi


def fit_title(fig: Figure, renderer, title: str, width: float, size: float, weight: str = "bold",
              margin_in: float = 0.3) -> tuple[str, float, int]:
    """The chart title as drawn: (text, font size, lines) such that every line fits the figure's ``width`` (inches)
    less ``margin_in``: at ``size``, else down to 9 pt, else wrapped (by words, long names hard-broken) into as many
    lines as it needs at 9 pt. Nothing of it is cut off at either end."""
    room = width - margin_in
    for s in (size, max(9.0, size - 1.5), 9.0):
        if _text_width_in(fig, renderer, [title], s, weight) <= room:
            return title, s, 1
    chars = max(20, int(len(title) * room / max(_text_width_in(fig, renderer, [title], 9.0, weight), 1e-6)))
    while chars > 20:
        lines = _wrap(title, chars)
        if _text_width_in(fig, renderer, lines, 9.0, weight) <= room:
            break
        chars -= 4
    lines = _wrap(title, chars)
    return "\n".join(lines), 9.0, len(lines)


def _place_axes(fig: Figure, width: float, height: float, left: float, right: float, top: float, bottom: float) -> None:
    """Size the figure (inches) and put its single axes at the given margins (inches)."""
    fig.set_size_inches(width, height)
    fig.subplots_adjust(left=left / width, right=1 - right / width, top=1 - top / height, bottom=bottom / height)


# ------------------------------------------------------------------------------------------ output


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
    """Drop the RDF metadata, prefix every id (and its references) with a hash of the chart, add a ``<title>`` (a
    tooltip in browsers) to each kernel point group, and give ``<text>`` the font list :data:`SVG_FONT_FAMILIES`."""
    svg = re.sub(r"<metadata>.*?</metadata>\s*", "", svg, flags=re.S)
    svg = _FONT_FAMILY.sub("font-family: " + _SVG_FAMILIES, svg)
    prefix = "ks" + hashlib.sha1(svg.encode("utf-8")).hexdigest()[:8] + "-"
    svg = re.sub(r'\bid="([^"]+)"', lambda m: f'id="{prefix}{m.group(1)}"', svg)
    svg = re.sub(r'(xlink:href|href)="#([^"]+)"', lambda m: f'{m.group(1)}="#{prefix}{m.group(2)}"', svg)
    svg = re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#{prefix}{m.group(1)})", svg)
    for gid, title in titles.items():
        svg = svg.replace(f'<g id="{prefix}{gid}">', f'<g id="{prefix}{gid}" class="ks-point"><title>{_xml_escape(title)}</title>', 1)
    return svg


#: A ``font-family`` matplotlib writes into SVG ``<text>`` styles (quoted names, commas; up to the next declaration).
_FONT_FAMILY = re.compile(r"font-family: ?[^;\"]*")
_SVG_FAMILIES = ", ".join(f if f == "sans-serif" else f"'{f}'" for f in SVG_FONT_FAMILIES)


def svg_for_html(svg: bytes) -> str:
    """An SVG chart as markup to inline in HTML: without the XML declaration and DOCTYPE (which names a DTD URL)."""
    text = svg.decode("utf-8")
    text = re.sub(r"<\?xml[^>]*\?>\s*", "", text)
    text = re.sub(r"<!DOCTYPE[^>]*>\s*", "", text)
    return text.strip()


def chart_format(path: str) -> str:
    """``"svg"`` or ``"png"`` from an output file name.

    Raises:
        ValueError: another extension.
    """
    ext = Path(path).suffix.lower().lstrip(".")
    if ext not in CHART_FORMATS:
        raise ValueError(f"expected a .png or .svg file name, got {Path(path).name!r}")
    return ext

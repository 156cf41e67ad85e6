"""The numbers a roofline chart draws, without drawing them (no matplotlib here): the GPU whose roof is drawn, its
compute ceilings and memory bandwidths, and per launch its points (arithmetic intensity, achieved FLOP/s) or why
it has none; for the hierarchical roofline of one launch, a point per memory level and the limiting level.

The charts (:mod:`.charts.roofline`, :mod:`.charts.hierarchy`) place these on the page; ``kernelscope roofline
--format json|table|markdown`` writes them (:mod:`.roofline`, :mod:`.json_commands`). Every number comes from the
diagnosis (roofline points, the GPU spec's ceilings, the measured memory levels); nothing is derived here beyond
choosing what one chart shows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Literal, Sequence

from ..analysis.diagnosis import KernelDiagnosis, ReportDiagnosis
from ..analysis.limiters import MemoryLevel, binding_roof
from ..analysis.roofline import RooflinePoint
from ..model import GpuSpec
from ..knowledge.criteria import criteria as default_criteria
from .common import Fmt, integer_pipe, safe

__all__ = [
    "LEVELS", "LaunchPoints", "RooflineData", "ceiling_scale", "ceilings", "has_hierarchy", "hierarchy_data", "hierarchy_reason",
    "launch_data", "level_plotted", "pick_gpu", "plotted_points", "report_data", "time_share", "why_no_hierarchy",
    "why_not_plotted",
]

#: The memory levels of the hierarchical roofline, innermost first (shared memory is not a level of Nsight
#: Compute's hierarchical roofline).
LEVELS: tuple[str, ...] = ("l1", "l2", "dram")

Chart = Literal["report", "launch", "levels"]


# ------------------------------------------------------------------------------------------ the roofline


def pick_gpu(diags: Sequence[KernelDiagnosis]) -> GpuSpec | None:
    """The GPU whose roof a chart of ``diags`` draws: the one most PLOTTABLE launches (a point of their own:
    measured, finite, positive intensity and FLOP/s) were diagnosed with, else the one most launches were (None:
    none). A chart drawn on the roof of launches that cannot be plotted would show no point at all."""
    counts: dict[str, list] = {}
    plottable: dict[str, int] = {}
    for d in diags:
        if d.gpu is not None:
            counts.setdefault(d.gpu.name, []).append(d.gpu)
            plottable[d.gpu.name] = plottable.get(d.gpu.name, 0) + (_own_reason(d, Fmt("en")) is None)
    if not counts:
        return None
    return max(counts.items(), key=lambda kv: (plottable[kv[0]], len(kv[1])))[1][0]


def why_not_plotted(d: KernelDiagnosis, gpu: GpuSpec | None, f: Fmt) -> str | None:
    """Why a launch has no point on the chart of ``gpu``'s roof, in ``f``'s language (None: it has one): what its
    own numbers lack first (DRAM bytes, FLOPs ...: it would have no point on any roof), then that it was profiled on
    another GPU than the chart's."""
    if gpu is not None and d.gpu is None:
        return f.label("chart_no_gpu")
    own = _own_reason(d, f)
    if own is not None:
        return own
    if gpu is not None and d.gpu.name != gpu.name:
        return f.label("chart_other_gpu", gpu=safe(d.gpu.name))
    return None


def _own_reason(d: KernelDiagnosis, f: Fmt) -> str | None:
    """Why the launch has no point of its own (None: it has one), whatever the chart's GPU."""
    r = d.roofline
    if r is None:
        return f.notes([n for n in d.notes if n.key.startswith("no_peak")]) or f.label("chart_no_roofline")
    if r.arithmetic_intensity_flop_per_byte is None or r.achieved_flops_per_s is None:
        if any(x.metric.startswith(("flop_counts", "dram")) for x in d.kernel.implausible):
            return f.label("chart_implausible")  # its FLOPs or DRAM bytes cannot be real: kept off the chart
        reasons = [m for m in r.not_measured if m != "efficiency_undefined"] or list(r.not_measured)
        text = f.notes(reasons) if reasons else f.label("chart_no_roofline")
        if "flops_not_measured" in r.not_measured and "_tensor" in r.pipe:
            text += f.paren(f.pipe(r.pipe))
        return text
    if math.isinf(r.arithmetic_intensity_flop_per_byte):
        return f.label("chart_ai_infinite")
    if r.arithmetic_intensity_flop_per_byte <= 0 or r.achieved_flops_per_s <= 0:
        return f.note("no_fp_work")
    return None


def plotted_points(d: KernelDiagnosis, by_pipe: bool) -> list[RooflinePoint]:
    """The launch's points a chart draws: its main pipe's, and with ``by_pipe`` every other pipe it used; only
    those with a measured, finite, positive intensity and FLOP/s."""
    if d.roofline is None:
        return []
    candidates = [d.roofline]
    if by_pipe:
        candidates += [r for r in d.roofline_by_pipe if r.pipe != d.roofline.pipe]
    out = []
    for r in candidates:
        ai, perf = r.arithmetic_intensity_flop_per_byte, r.achieved_flops_per_s
        if ai is None or perf is None or not math.isfinite(ai) or ai <= 0 or perf <= 0:
            continue
        out.append(r)
    return out


def time_share(d: KernelDiagnosis, total_s: float | None) -> float | None:
    """The launch's part of the report's GPU time ``total_s`` (fraction 0-1; None: unknown)."""
    k = d.kernel
    if not total_s or k.duration_s is None:
        return None
    return k.duration_s * k.launch_count / total_s


def ceilings(gpu: GpuSpec, scale: float | None = None) -> list[tuple[float, list[str]]]:
    """The GPU's compute ceilings as a chart draws them: (peak FLOP/s, the pipes with that dense peak) per distinct
    peak, highest first; integer pipes (OP/s, :func:`.common.ops_unit`) on lines of their own; each datasheet peak
    times ``scale`` (the SM-clock factor of :func:`ceiling_scale`) when given, so that the roof drawn is the one the
    points' efficiencies are of."""
    by_peak: dict[tuple[float, bool], list[str]] = {}  # integer and floating-point pipes never share a line
    for pipe, peak in gpu.peak_flops_per_s.items():
        by_peak.setdefault((peak, integer_pipe(pipe)), []).append(pipe)
    return [(peak * (scale or 1.0), by_peak[(peak, integer)])
            for peak, integer in sorted(by_peak, key=lambda k: (-k[0], k[1]))]


def ceiling_scale(points: Iterable[RooflinePoint]) -> float | None:
    """The SM-clock factor of the plotted points' ceilings (datasheet peak x profiled SM clock / boost clock, set by
    :func:`kernelscope.analysis.roofline.kernel_points`) when every point has the same one, else None (the
    datasheet peaks). The ONE source of the compute ceilings that the chart, the table, the HTML report and the
    JSON document show."""
    scales = {round(p.clock_scale, 3): p.clock_scale for p in points if p.clock_scale}
    return scales.popitem()[1] if len(scales) == 1 else None


@dataclass(frozen=True)
class LaunchPoints:
    """One selected launch on a chart.

    Attributes:
        diag: its diagnosis.
        share: its part of the report's GPU time, fraction 0-1 (None: unknown); a report chart sizes points by it.
        points: the points drawn, the main pipe's first (empty: not plotted).
        not_plotted: why it has no point, worded; None when it has one.
    """

    diag: KernelDiagnosis
    share: float | None
    points: tuple[RooflinePoint, ...]
    not_plotted: str | None


@dataclass(frozen=True)
class RooflineData:
    """What one roofline chart draws.

    Attributes:
        chart: ``"report"`` (every selected launch, its main pipe), ``"launch"`` (one launch, every pipe it used) or
            ``"levels"`` (one launch's hierarchical roofline).
        gpu: the GPU whose ceilings are drawn, or None (no roof).
        ceilings: (peak FLOP/s, pipes) per compute ceiling, highest first: the GPU's dense datasheet peaks; for
            ``"levels"`` the launch's own pipe at the peak its roofline used (clock-scaled when the clock is known).
        memory: (level, peak bytes/s, source) per bandwidth slope: ``("dram", ..., "gpu_spec")`` for the roofline,
            each level with a peak measured in the report (``"report"``) for the hierarchical one.
        used_pipes: pipes a plotted launch used (their ceilings drawn bold).
        launches: the selected launches, in report order.
        levels: ``"levels"`` only: (level, limiting) for each of :data:`LEVELS` the diagnosis measured.
        clock_scale: the SM-clock factor ``ceilings`` carry (:func:`ceiling_scale`), None: the datasheet peaks (or,
            for ``"levels"``, the launch's own ceiling, already at its clock).
    """

    chart: Chart
    gpu: GpuSpec | None
    ceilings: tuple[tuple[float, tuple[str, ...]], ...]
    memory: tuple[tuple[str, float, str], ...]
    used_pipes: frozenset[str]
    launches: tuple[LaunchPoints, ...]
    levels: tuple[tuple[MemoryLevel, bool], ...] = ()
    clock_scale: float | None = None


def _roof(gpu: GpuSpec | None, launches: Sequence[LaunchPoints]) -> dict:
    if gpu is None:
        return {"gpu": None, "ceilings": (), "memory": ()}
    scale = ceiling_scale(p for lp in launches for p in lp.points)
    return {"gpu": gpu, "ceilings": tuple((peak, tuple(pipes)) for peak, pipes in ceilings(gpu, scale)),
            "memory": (("dram", gpu.dram_bandwidth_bytes_per_s, "gpu_spec"),), "clock_scale": scale}


def report_data(result: ReportDiagnosis, lang: str = "en",
                diagnoses: Sequence[KernelDiagnosis] | None = None) -> RooflineData:
    """The roofline of a whole report (or of ``diagnoses``, a selection of its launches): each launch's main pipe
    point, sized by its share of the report's GPU time."""
    f = Fmt(lang)
    diags = tuple(result.kernels if diagnoses is None else diagnoses)
    gpu = pick_gpu(diags)
    total = math.fsum(g.total_duration_s for g in result.groups) or None
    launches = []
    for d in diags:
        why = why_not_plotted(d, gpu, f)
        points = () if why is not None else tuple(plotted_points(d, False))
        launches.append(LaunchPoints(d, time_share(d, total), points, why))
    used = {d.roofline.pipe for d in diags
            if d.roofline is not None and (gpu is None or (d.gpu and d.gpu.name == gpu.name))}
    return RooflineData(chart="report", used_pipes=frozenset(used), launches=tuple(launches),
                        **_roof(gpu, launches))


def launch_data(d: KernelDiagnosis, lang: str = "en", total_s: float | None = None) -> RooflineData:
    """The roofline of one launch: its point on every pipe it used (its main pipe's ceiling drawn bold)."""
    why = why_not_plotted(d, d.gpu, Fmt(lang))
    points = () if why is not None else tuple(plotted_points(d, True))
    used = frozenset({d.roofline.pipe} if d.roofline is not None else ())
    launches = (LaunchPoints(d, time_share(d, total_s), points, why),)
    return RooflineData(chart="launch", used_pipes=used, launches=launches, **_roof(d.gpu, launches))


# ------------------------------------------------------------------------------------------ hierarchical


def level_plotted(lv: MemoryLevel) -> bool:
    """A level gets a point on the hierarchical roofline when its intensity is measured, finite and positive."""
    ai = lv.arithmetic_intensity_flop_per_byte
    return lv.level in LEVELS and ai is not None and math.isfinite(ai) and ai > 0


def why_no_hierarchy(d: KernelDiagnosis) -> str | None:
    """Why the launch gets no hierarchical roofline, as a key: a ``[note]`` key of ``labels.toml``
    (``no_roofline``, ``flops_not_measured``, ``no_fp_work``, ``duration_not_measured``) or the ``[label]`` key
    ``chart_hier_no_levels`` (no level with bytes); None when it gets one. Word it with :func:`hierarchy_reason`."""
    r = d.roofline
    if r is None:
        return "no_roofline"
    if r.flops is None:
        return "flops_not_measured"
    if r.flops <= 0:
        return "no_fp_work"
    if r.achieved_flops_per_s is None or r.achieved_flops_per_s <= 0:
        return "duration_not_measured"
    if not any(level_plotted(lv) for lv in d.levels):
        return "chart_hier_no_levels"
    return None


def hierarchy_reason(key: str, lang: str = "en") -> str:
    """A :func:`why_no_hierarchy` key worded in ``lang``."""
    f = Fmt(lang)
    return f.label(key) if key.startswith("chart_") else f.note(key)


def has_hierarchy(d: KernelDiagnosis) -> bool:
    """Whether the launch gets a hierarchical roofline (FLOPs > 0, FLOP/s and at least one level's intensity)."""
    return why_no_hierarchy(d) is None


def compute_share_pct(d: KernelDiagnosis) -> float | None:
    """The launch's achieved FLOP/s as % of its pipe's peak (the height of its point under the compute roof), or
    None without both."""
    r = d.roofline
    if r is None or not r.peak_flops_per_s or not r.achieved_flops_per_s:
        return None
    return r.achieved_flops_per_s / r.peak_flops_per_s * 100.0


def binding(d: KernelDiagnosis) -> tuple[str | None, MemoryLevel | None]:
    """The roof that binds the launch's hierarchical roofline and its nearest plotted level
    (:func:`kernelscope.analysis.limiters.binding_roof`, with the ``latency_sol_pct`` criterion)."""
    return binding_roof(tuple(lv for lv in d.levels if level_plotted(lv)), compute_share_pct(d),
                        default_criteria()["latency_sol_pct"])


def limiting_level(d: KernelDiagnosis) -> MemoryLevel | None:
    """The plotted level that binds the launch (:func:`binding`: nearest its ceiling, nearer than the compute roof,
    at ``latency_sol_pct`` or more), or None (the compute roof binds, no roof does, or no level has a peak)."""
    kind, level = binding(d)
    return level if kind == "memory" else None


def hierarchy_data(d: KernelDiagnosis, total_s: float | None = None) -> RooflineData | None:
    """The hierarchical roofline of one launch (None when it has none: :func:`why_no_hierarchy`)."""
    if why_no_hierarchy(d) is not None:
        return None
    r = d.roofline
    assert r is not None
    lim = limiting_level(d)
    levels = tuple((lv, lv is lim) for lv in d.levels if lv.level in LEVELS)
    memory = tuple((lv.level, lv.peak_bytes_per_s, "report") for lv in d.levels
                   if level_plotted(lv) and lv.peak_bytes_per_s)
    peak = r.peak_flops_per_s
    return RooflineData(
        chart="levels", gpu=d.gpu, ceilings=((peak, (r.pipe,)),) if peak else (), memory=memory,  # type: ignore[arg-type]
        used_pipes=frozenset({r.pipe}), launches=(LaunchPoints(d, time_share(d, total_s), (r,), None),), levels=levels,
    )


def ceiling_names(pipes: Sequence[str], f: Fmt) -> list[str]:
    """The labels of one ceiling's name (:func:`ceiling_name`), each a label of its own: the pipes that share the
    peak, FP16-accumulate left out beside FP16 (the same tensor cores), "FP16/BF16 Tensor Core" one label where
    the names end alike."""
    shown = [p for p in pipes if not (p == "fp16_tensor_fp16acc" and "fp16_tensor" in pipes)]
    names = [f.pipe(p) for p in shown]
    heads = [n.split(" ", 1) for n in names]
    if len(names) > 1 and all(len(h) == 2 and h[1] == heads[0][1] for h in heads):
        return ["/".join(h[0] for h in heads) + " " + heads[0][1]]
    return names


def ceiling_name(pipes: Sequence[str], f: Fmt) -> str:
    """One ceiling's name, the same in the table and the chart: its labels (:func:`ceiling_names`) joined by
    `` / ``."""
    return " / ".join(ceiling_names(pipes, f))

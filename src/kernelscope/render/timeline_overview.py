"""Overview rows of ``kernelscope timeline`` (:mod:`kernelscope.render.timeline` places them): one rank's
computation / communication split, the straggler fixed, the training steps, the CUDA-graph share and the
launch-bound verdict with the graph saving its replay model predicts. No analysis here."""

from __future__ import annotations

import math

from ..analysis.timeline import TimelineReport
from ..analysis.timeline.report import LaunchOverhead
from .brief import Footnotes
from .common import Fmt, md_cell, md_code, safe
from .inline import md_prose


def comm_rows(rep: TimelineReport, f: Fmt) -> list[tuple[str, str]]:
    """Overview rows: one rank's computation / communication unions, the straggler fixed, the training steps."""
    rows = []
    if rep.communication is not None and len(rep.ranks) == 1:
        r = rep.ranks[0]
        rows.append((f.label("tl_comm_line"), f.label(
            "tl_comm_split_none" if r.overlap_s <= 0 else "tl_comm_split", compute=f.time(r.computation_s), comm=f.time(r.communication_s),
            comm_sum=f.time(r.communication_sum_s),
            overlap=f.time(r.overlap_s), exposed=f.time(r.exposed_communication_s),
            pct=100.0 * r.exposed_communication_s / r.wall_s if r.wall_s > 0 else 0.0)))
    c = rep.communication
    if c is not None and len(rep.ranks) > 1 and c.amdahl is not None and c.amdahl.projected_s:
        rows.append((f.label("tl_comm_line"), f.label(
            "tl_comm_ranks", exposed=f.time(c.total_s), n=len(rep.ranks),
            wait=f.time(sum(r.collective_wait_s for r in rep.ranks)), before=f.time(c.amdahl.base_s),
            after=f.time(c.amdahl.projected_s[-1]), speedup=speed_text(c.amdahl.speedups[-1], f))))
    if rep.balanced_wall_s is not None and rep.wall_s:
        sp = rep.wall_s / rep.balanced_wall_s if rep.balanced_wall_s > 0 else math.inf
        rows.append((f.label("tl_balanced"), f.label(
            "tl_balanced_line", before=f.time(rep.wall_s), after=f.time(rep.balanced_wall_s),
            speedup=speed_text(sp, f))))
    st = rep.steps
    if st is not None:
        one = st.count == 1  # one step: no spread, no slowest or fastest (tl_steps_line_one)
        of_rank = "" if st.rank is None or len(rep.ranks) < 2 else f.label(
            "tl_steps_rank_one" if one else "tl_steps_of_rank", rank=st.rank)
        median, slow, fast = f.times(st.median_s, st.slowest_s, st.fastest_s)  # one quantity: one precision
        rows.append((f.label("tl_steps"), f.label("tl_steps_line_one", first=st.first, of_rank=of_rank, median=median)
                     if one else f.label(
            "tl_steps_line", n=st.count, first=st.first, last=st.last, of_rank=of_rank, median=median,
            slow_n=st.slowest_step, slow=slow, fast=fast, spread=st.spread_pct)))
    return rows


def speed_text(sp: float, f: Fmt) -> str:
    """A speedup as "2.23x" (zh "2.23×"), "∞" when unbounded."""
    return f.factor(sp)  # one precision for every speedup (common.factor)


def graph_rows(rep: TimelineReport, f: Fmt, notes: Footnotes | None = None) -> list[tuple[str, str]]:
    """Overview rows: the GPU time that ran from CUDA graphs, the per-launch cost and the predicted graph saving;
    with ``notes`` (the short report) the replay model it comes from goes there, once, instead of into the row."""
    rows = []
    g = rep.graphs
    if g is not None:
        whole = any(n.key == "tl_graph_level_trace" for n in rep.notes)  # replays, not their nodes (N18)
        how = f.label("tl_graphs_whole" if whole else "tl_graphs_recorded" if g.recorded else "tl_graphs_inferred")
        rows.append((f.label("tl_graphs"), f.label(
            "tl_graphs_line", kernel_s=f.time(g.kernel_s), total_s=f.time(g.total_kernel_s), pct=g.kernel_pct,
            kernels=g.kernels, launches=g.launches, how=how, host_s=f.time(g.host_s))))
    b = rep.launch_bound
    if b is not None:
        verdict = f.label("tl_launch_bound_yes" if b.launch_bound else "tl_launch_bound_no")
        key = "tl_launch_cost_spacing" if b.cost_source == "spacing" else "tl_launch_cost_call"
        text = f.label(key, cost_s=f.time(b.per_launch_s), pairs=b.spacings, kernel_s=f.time(b.kernel_s),
                       verdict=verdict)
        if b.launch_bound and b.predicted_saving_s > 0:
            loop = b.bound_launches * b.per_launch_s
            kernels = b.bound_kernel_s or 0.0
            kept = (f.label("tl_graph_kept_kernels", kernels_s=f.time(kernels), replay_s=f.time(b.replay_s))
                    if kernels > b.replay_s else f.label("tl_graph_kept_replay", replay_s=f.time(b.replay_s)))
            capped = b.predicted_saving_s < loop - max(kernels, b.replay_s) - 1e-12  # at most the GPU idle time
            saving = (f.label("tl_graph_saving_capped", saving_s=f.time(b.predicted_saving_s)) if capped
                      else f.time(b.predicted_saving_s))
            scope = ("" if b.ranks <= 1 or b.program_saving_s is None or rep.wall_s is None else
                     f.label("tl_graph_ranks", ranks=b.ranks, wall_s=f.time(rep.wall_s),
                             program_s=f.time(b.program_saving_s)))
            values = dict(n=b.bound_launches, replay_s=f.time(b.replay_s), kept=kept, saving=saving, scope=scope,
                          loop_s=f.time(loop), saving_s=f.time(b.predicted_saving_s),
                          even=b.break_even_nodes if b.break_even_nodes is not None else "-",
                          fixed_s=f.time(b.replay_fixed_s), per_node_s=f.time(b.replay_per_node_s),
                          source=safe(f.problem(b.model_source)))
            text += f.semi + f.label("tl_graph_saving" if notes is None else "tl_graph_saving_short", **values)
            if notes is not None:
                notes.add(f.label("tl_graph_model", **values), f.label("tl_launch_cost_line"))
        rows.append((f.label("tl_launch_cost_line"), text))
    return rows


def latencies(median: float | None, p95: float | None, largest: float | None, f: Fmt) -> list[str]:
    """Launch latencies median, p95, max, each by magnitude (:meth:`Fmt.times`); a max a thousand times the p95 or
    more (a first launch's lazy initialisation: 3 s beside 20 µs) is worded alone, so that it tells the median and
    p95 nothing of their source's resolution."""
    typical = max((x for x in (median, p95) if x), default=0.0)
    if not typical or not largest or largest < 1000 * typical:
        return f.times(median, p95, largest)
    return [*f.times(median, p95), f.time(largest)]


def _depth(low: int | None, high: int | None, f: Fmt) -> str:
    """Operations ahead in the queue: "1-3" (in Chinese "1～3"), or "3" when all were the same (not "1-1")."""
    return str(low) if low == high else f.span(str(low), str(high)) if f.zh else f"{low}-{high}"


#: The fewest samples a p95 is printed for: below 20 the 95th percentile is the largest sample or an interpolation
#: towards it (n * 0.05 < 1), a figure the max beside it already gives.
MIN_P95_SAMPLES = 20


def at_tick(seconds: float | None, tick: float | None) -> float | None:
    """A statistic (a median, a percentile, a max: not a mean) of durations stamped at ``tick`` (s; Kineto: whole
    µs), rounded to that resolution: the median of 6 µs and 7 µs prints ``7 µs``, never ``6.500 µs`` (a precision
    the source does not have); unchanged where the resolution is not known (``tick`` None) or finer than a µs."""
    if seconds is None or not tick:
        return seconds
    return math.floor(seconds / tick + 0.5) * tick


def stamp_tick(rep: TimelineReport) -> float | None:
    """The trace's time resolution where its samples tell it: 1 µs for a Kineto trace whose recorded samples (each
    ranking's min and max, the launch latency's max: single events, not statistics) are all whole µs; None for a
    ns-resolution (fractional µs) Kineto trace and other formats, whose statistics keep their digits."""
    if rep.format != "kineto":
        return None
    samples = [x for it in (*rep.kernels, *rep.copies, *rep.memsets, *rep.api_calls) for x in (it.min_s, it.max_s)]
    if rep.launch is not None:
        samples += [rep.launch.latency_max_s, rep.launch.queue_wait_max_s]
    real = [x for x in samples if x]
    whole = all(abs(x / 1e-6 - round(x / 1e-6)) < 1e-6 * max(1.0, x / 1e-6) for x in real)
    return 1e-6 if real and whole else None


def launch_waits(L: LaunchOverhead, f: Fmt, tick: float | None = None) -> tuple[str, str]:
    """The launch line's latency clause (launches into an empty queue: median, p95, max) and queue-wait clause
    (launches behind earlier work: median, max; "" for none); one launch is its value alone, "(one launch only)"
    / "（仅 1 次）", never a median, p95 and max of one sample; no p95 below :data:`MIN_P95_SAMPLES` launches. Each
    statistic at the trace's resolution ``tick`` (:func:`at_tick`)."""
    if L.latency_median_s is None:
        latency = f.label("tl_launch_latency_none")
    elif L.idle_queue_launches == 1:
        latency = f.label("tl_launch_latency_one", t=f.time(at_tick(L.latency_median_s, tick)))
    else:
        few = L.idle_queue_launches is not None and L.idle_queue_launches < MIN_P95_SAMPLES
        p95 = None if few else at_tick(L.latency_p95_s, tick)
        median, p95_text, largest = latencies(at_tick(L.latency_median_s, tick), p95,
                                              at_tick(L.latency_max_s, tick), f)
        latency = f.label("tl_launch_latency_few" if few else "tl_launch_latency",
                          n=L.idle_queue_launches if L.idle_queue_launches is not None else "-",
                          median=median, p95=p95_text, max=largest)
    if not L.queued_launches:
        return latency, ""
    depth = _depth(L.queue_depth_min, L.queue_depth_max, f)
    if L.queued_launches == 1:
        return latency, f.label("tl_launch_queued_one", depth=depth, t=f.time(at_tick(L.queue_wait_median_s, tick)))
    return latency, f.label("tl_launch_queued", n=L.queued_launches, depth=depth,
                            **dict(zip(("median", "max"), f.times(at_tick(L.queue_wait_median_s, tick),
                                                                  at_tick(L.queue_wait_max_s, tick)))))


# ----------------------------------------------------------------------------------------------- Markdown cells
#: Tables whose name column (``tl_name``) holds our own labels or the user's free text (copies and memsets, the GPU's
#: idle time, NVTX ranges), not code: every other table's names (kernels, CUDA API calls) are code spans in Markdown,
#: as ``diagnose --format markdown`` writes them.
LABEL_NAME_TABLES = ("tl_top_copies", "tl_gpu_idle", "tl_top_annotations")


def md_name(cell: str, f: Fmt) -> str:
    """A name cell as a code span (its "(truncated)" mark outside it); an empty cell as it is."""
    mark = f.paren(f.label("tl_truncated"))
    name, tail = (cell[:-len(mark)], mark) if cell.endswith(mark) else (cell, "")
    return md_code(md_cell(name)) + md_cell(tail) if name.strip() else md_cell(cell)


def md_value(label: str, value: str, f: Fmt) -> str:
    """An overview row's value in Markdown: prose (its names in code spans), the input's path a code span."""
    if label == f.label("tl_input"):
        path, _, rest = value.partition("\n")
        return md_code(md_cell(path)) + ("" if f.zh or not rest else " ") + md_prose(rest)
    return md_prose(value)

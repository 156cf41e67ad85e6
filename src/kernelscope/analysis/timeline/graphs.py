"""CUDA graphs and launch-bound loops: which kernels ran as graph nodes, how much GPU time ran from graphs, the
host's cost per kernel launch, and what replaying launch-bound launches as one CUDA graph would save.

Graph nodes. One graph launch call (``cudaGraphLaunch``, ``cuGraphLaunch``, ``hipGraphLaunch`` ...) starts many
kernels, all with the call's correlation id. A kernel ran as a graph node when the file says so (Nsight Systems'
``graphNodeId``: the Timeline's ``graph_launched`` column) or, when the file does not record it, when its launch
call (joined on rank + correlation id, whatever the call's name) is a graph launch or started several kernels.

Per-launch cost (a Timeline): the MEDIAN SPACING of consecutive kernel launch calls of one host thread (start to
next start; graph launches left out). When launches come back to back, that spacing is what the host spends per
launch -- the call and the host work around it, all of which a graph replay removes -- and the median keeps the
few pairs that span a synchronisation or a pause out. It is never the call's own duration nor a constant. An
``nsys stats`` summary has no timestamps: there the only per-launch cost is the launch call's own mean duration
(``cost_source = "call_duration"``, stated in the output).

Graph saving (``timeline_rules.toml`` ``[graph_replay]``, with its source): replaying ``n`` kernels as one graph
costs ``fixed + per_node * n``; capturing ``n`` launch-bound launches (kernels shorter than ``max_kernel_fraction``
of the per-launch cost ``c``) saves ``n * c - (fixed + per_node * n)``; a graph pays for itself from
``ceil(fixed / (c - per_node))`` nodes on.

Vectorised (NumPy): no Python loop over events, only over the distinct names of the launch calls.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np

from ...knowledge.timeline_checks import TimelineChecks
from ...timeline_model import Timeline
from .intervals import by_key_and_start
from .report import NS, GraphUse, ItemStat, LaunchBound

#: A graph launch call, by name (only for calls whose kernels the file does not mark as graph nodes).
GRAPH_LAUNCH_API = re.compile(r"graph\w*launch", re.IGNORECASE)

_NO_CALL = np.int64(-1)


def _graph_names(tl: Timeline, rows: np.ndarray) -> np.ndarray:
    """Per row of ``rows``: its name is a graph launch call's (the regex runs once per distinct name)."""
    if rows.size == 0:
        return np.zeros(0, dtype=bool)
    ids = tl.name_id[rows]
    present = np.flatnonzero(np.bincount(ids, minlength=len(tl.names)))
    lut = np.zeros(len(tl.names), dtype=bool)
    lut[present] = [bool(GRAPH_LAUNCH_API.search(tl.names[i])) for i in present.tolist()]
    return lut[ids]


@dataclass(frozen=True)
class KernelLaunches:
    """The kernel rows of a Timeline joined to their launch calls, with the graph nodes marked, and one element per
    launch call (a call joined to at least one kernel), in join order.

    Attributes:
        k_rows: the kernel rows (Timeline rows), in the order of ``k_api`` and ``graph``.
        k_api: per kernel row, the Timeline row of its launch call; -1 when none was found.
        k_call: per kernel row, the index of its launch call in the ``call_*`` arrays; -1 when none was found.
        graph: per kernel row, True when it ran as a node of a CUDA graph.
        call_api: per launch call, its Timeline row.
        call_first_ns: start of the first kernel it launched (int64 ns, file clock).
        call_kernels: how many kernels it launched.
        call_kernel_ns: their summed duration (ns, float64).
        call_graph: it launched CUDA graph nodes.
    """

    k_rows: np.ndarray
    k_api: np.ndarray
    k_call: np.ndarray
    graph: np.ndarray
    call_api: np.ndarray
    call_first_ns: np.ndarray
    call_kernels: np.ndarray
    call_kernel_ns: np.ndarray
    call_graph: np.ndarray

    @classmethod
    def of(cls, tl: Timeline, k_rows: np.ndarray, pos: np.ndarray, api_sorted: np.ndarray,
           dur: np.ndarray) -> "KernelLaunches":
        """Join the kernel rows ``k_rows``: ``pos`` is each one's launch call as a position in ``api_sorted`` (the
        API rows in join-key order, :meth:`.correlation.ApiJoin.positions`), -1 when none; ``dur`` every row's
        duration (ns)."""
        hit = pos >= 0
        p = pos[hit]
        n_api = api_sorted.shape[0]
        per_call = np.bincount(p, minlength=n_api)
        multi = np.zeros(k_rows.shape[0], dtype=bool)
        multi[hit] = per_call[p] > 1
        calls = np.flatnonzero(per_call)
        call_api = api_sorted[calls]
        k_api = np.full(k_rows.shape[0], _NO_CALL, dtype=np.int64)
        k_api[hit] = api_sorted[p]
        k_call = np.full(k_rows.shape[0], _NO_CALL, dtype=np.int64)
        k_call[hit] = (np.cumsum(per_call > 0) - 1)[p]
        by_name = np.zeros(k_rows.shape[0], dtype=bool)
        by_name[hit] = _graph_names(tl, k_api[hit])
        recorded = tl.graph_launched[k_rows]
        graph = np.where(recorded >= 0, recorded == 1, hit & (multi | by_name))
        starts = tl.start_ns[k_rows]
        first = np.full(n_api, np.iinfo(np.int64).max, dtype=np.int64)
        single = hit & ~multi
        first[pos[single]] = starts[single]
        if multi.any():  # several kernels per call (graphs): the earliest one
            np.minimum.at(first, pos[multi], starts[multi])
        kd = dur[k_rows]
        kernel_ns = np.bincount(p, weights=kd[hit].astype(np.float64), minlength=n_api)
        call_graph = np.bincount(p, weights=graph[hit], minlength=n_api) > 0
        return cls(k_rows=k_rows, k_api=k_api, k_call=k_call, graph=graph, call_api=call_api, call_first_ns=first[calls],
                   call_kernels=per_call[calls], call_kernel_ns=kernel_ns[calls], call_graph=call_graph[calls])


@dataclass(frozen=True)
class LaunchQueue:
    """What each launch call's first kernel found on its stream (arrays aligned with ``KernelLaunches.call_api``;
    built by :func:`.correlation.launch_queue`).

    Attributes:
        depth: operations of the stream (kernels, copies, memsets) that started before the kernel and had not
            ended when the call started (int64; 0: an empty queue).
        ahead_end_ns: the latest end of the stream's operations that started before the kernel (int64 ns, file
            clock); -1 when none did.
        first_ns: the kernel's start (int64 ns).
        call_ns: the call's start (int64 ns).
    """

    depth: np.ndarray
    ahead_end_ns: np.ndarray
    first_ns: np.ndarray
    call_ns: np.ndarray

    @property
    def queued(self) -> np.ndarray:
        """Per call: its kernel found earlier work on its stream."""
        return self.depth > 0

    @property
    def wait_ns(self) -> np.ndarray:
        """Per call, the queue wait: from the call's start until the work ahead ended (at most until the kernel's
        start), 0 for an empty queue (TraceLens' Q)."""
        return np.where(self.queued, np.minimum(self.ahead_end_ns, self.first_ns) - self.call_ns, 0)

    def backlogged(self, gap_ns: float) -> np.ndarray:
        """Per call: queued and its kernel started within ``gap_ns`` of the end of the work ahead, i.e. the GPU did
        not wait for this launch (the stream ran it as soon as it could)."""
        return self.queued & (self.first_ns - self.ahead_end_ns <= gap_ns)


def graph_use(tl: Timeline, k_rows: np.ndarray, launches: KernelLaunches, dur: np.ndarray) -> GraphUse | None:
    """How much kernel time ran from CUDA graphs, with the graph launch calls' host time counted once per launch;
    None when no kernel ran as a graph node."""
    g = launches.graph
    if not g.any():
        return None
    kd = dur[k_rows]
    total = float(kd.sum())
    graph_ns = float(kd[g].sum())
    g_calls = launches.call_api[launches.call_graph]
    return GraphUse(
        launches=int(g_calls.size), kernels=int(g.sum()), kernel_s=graph_ns * NS, total_kernel_s=total * NS,
        kernel_pct=100.0 * graph_ns / total if total > 0 else 0.0,
        host_s=float(dur[g_calls].sum()) * NS if g_calls.size else None,
        recorded=bool((tl.graph_launched[k_rows] >= 0).any()))


def mark_graph_kernels(tl: Timeline, kernels: Sequence[ItemStat], k_rows: np.ndarray,
                       launches: KernelLaunches) -> tuple[ItemStat, ...]:
    """The kernel ranking with ``graph_launches`` set: how many runs of each name were CUDA graph nodes."""
    counts = np.bincount(tl.name_id[k_rows[launches.graph]], minlength=len(tl.names))
    by_name: dict[str, int] = {}
    for i in np.flatnonzero(counts).tolist():
        by_name[tl.names[i]] = by_name.get(tl.names[i], 0) + int(counts[i])
    return tuple(replace(k, graph_launches=by_name.get(k.name, 0)) for k in kernels)


def _thread_order(s: np.ndarray, rk: np.ndarray, th: np.ndarray) -> np.ndarray:
    """``np.lexsort((s, th, rk))``: (rank, thread) as one exact key (their offsets from the least, the thread's
    scaled by the rank's) where it fits in int64, then :func:`.intervals.by_key_and_start`."""
    r0, t0 = int(rk.min()), int(th.min())
    width = int(th.max()) - t0 + 1
    if (int(rk.max()) - r0 + 1) * width >= 1 << 62:
        return np.lexsort((s, th, rk))
    return by_key_and_start((rk.astype(np.int64) - r0) * width + (th.astype(np.int64) - t0), s)[0]


def launch_spacing(tl: Timeline, calls: np.ndarray, max_ns: float | None = None) -> tuple[float | None, int]:
    """``(median spacing in ns, pairs measured)`` of consecutive launch calls ``calls`` (Timeline rows) of one host
    thread of one rank (start to next start), pairs further apart than ``max_ns`` left out (host work between
    launches, not a launch's cost); ``(None, 0)`` when no pair is left. One sort at most (none when the calls are
    one thread's, in time order)."""
    if calls.size < 2:
        return None, 0
    s, rk, th = tl.start_ns[calls], tl.rank[calls], tl.stream[calls]
    one_thread = rk.min() == rk.max() and th.min() == th.max()
    if not one_thread:
        order = _thread_order(s, rk, th)
        s, rk, th = s[order], rk[order], th[order]
    elif (s[1:] < s[:-1]).any():
        s = np.sort(s)
    gaps = s[1:] - s[:-1]
    if not one_thread:
        gaps = gaps[(rk[1:] == rk[:-1]) & (th[1:] == th[:-1])]
    if max_ns is not None:
        gaps = gaps[gaps <= max_ns]
    if gaps.size == 0:
        return None, 0
    return float(np.median(gaps)), int(gaps.size)


def graph_saving(per_launch_s: float, n: int, checks: TimelineChecks) -> tuple[float, float, int | None]:
    """``(replay cost, predicted saving, break-even nodes)`` of replaying ``n`` launches that cost ``per_launch_s``
    each as one CUDA graph, by the ``[graph_replay]`` cost model (seconds; break-even None when a node costs at
    least a launch)."""
    model = checks.graph_replay
    replay = model.fixed_s + model.per_node_s * n
    margin = per_launch_s - model.per_node_s
    even = max(1, math.ceil(model.fixed_s / margin - 1e-9)) if margin > 0 else None
    return replay, n * per_launch_s - replay, even


def _bound(cost_source: str, per_launch_s: float, spacings: int, launches: int, bound: int, kernel_s: float | None,
           bound_kernel_s: float | None, is_bound: bool, checks: TimelineChecks) -> LaunchBound:
    replay, _, even = graph_saving(per_launch_s, bound, checks)
    # the loop then takes the longer of the replay and its kernels' own time (the GPU still runs every kernel)
    saving = bound * per_launch_s - max(replay, bound_kernel_s or 0.0)
    model = checks.graph_replay
    return LaunchBound(
        cost_source=cost_source, per_launch_s=per_launch_s, spacings=spacings, launches=launches,
        bound_launches=bound, kernel_s=kernel_s, bound_kernel_s=bound_kernel_s, launch_bound=is_bound,
        replay_fixed_s=model.fixed_s, replay_per_node_s=model.per_node_s, replay_s=replay, predicted_saving_s=saving,
        break_even_nodes=even, model_source=model.source)


def launch_bound(tl: Timeline, launches: KernelLaunches, checks: TimelineChecks,
                 queue: LaunchQueue | None = None) -> LaunchBound | None:
    """Per-launch cost from the spacing of the kernel launch calls (graph launches left out; pairs further apart
    than ``max_spacing_s`` left out: host work between launches, not launch cost), the launches whose kernels ran
    shorter than ``max_kernel_fraction`` of it and were not backlogged (``queue``, :func:`.correlation.launch_queue`:
    a kernel that started as soon as the work ahead of it on its stream ended, within ``backlog_gap_s``, did not
    wait for its launch), and the predicted graph saving for them; launch-bound when the median kernel is that
    short and at most half of the launches were backlogged. None when no pair of kernel launch calls of one thread
    is left."""
    cfg = checks.launch_bound
    own = ~launches.call_graph
    calls = launches.call_api[own]
    spacing_ns, pairs = launch_spacing(tl, calls, cfg.max_spacing_s / NS)
    if spacing_ns is None or spacing_ns <= 0:
        return None
    kernel_ns = launches.call_kernel_ns[own]
    queued = (np.zeros(calls.shape[0], dtype=bool) if queue is None
              else queue.backlogged(cfg.backlog_gap_s / NS)[own])
    limit = cfg.max_kernel_fraction * spacing_ns
    short = (kernel_ns < limit) & ~queued
    median = float(np.median(kernel_ns))
    # launch-bound needs a loop: at least min_launches spacings measured (one pair of calls is no per-launch cost)
    is_bound = median < limit and 2 * int(queued.sum()) <= calls.size and pairs >= cfg.min_launches
    return _bound("spacing", spacing_ns * NS, pairs, int(calls.size), int(short.sum()), median * NS,
                  float(kernel_ns[short].sum()) * NS, is_bound, checks)


def summary_launch_bound(api_calls: Sequence[ItemStat], kernels: Sequence[ItemStat],
                         checks: TimelineChecks) -> LaunchBound | None:
    """The same from ``nsys stats`` totals: the kernel launch calls (``launch_api_regex``) and their own mean
    duration as the per-launch cost (a summary has no timestamps), against the mean kernel duration. None without
    launch calls or kernels, or when graph launches were made (their kernels are counted among the kernels)."""
    cfg = checks.launch_bound
    calls = [a for a in api_calls if cfg.launch_api.match(a.name)]
    n = sum(a.count for a in calls)
    k_n = sum(k.count for k in kernels)
    if not n or not k_n or any(GRAPH_LAUNCH_API.search(a.name) for a in api_calls):
        return None
    per_launch = sum(a.total_s for a in calls) / n
    kernel_mean = sum(k.total_s for k in kernels) / k_n
    is_bound = kernel_mean < cfg.max_kernel_fraction * per_launch
    bound = n if is_bound else 0
    return _bound("call_duration", per_launch, 0, n, bound, kernel_mean, kernel_mean * bound, is_bound, checks)

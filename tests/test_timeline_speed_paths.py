"""The vectorised fast paths of the timeline analysis (issue 25/31: the 189 MB trace's analysis cost) give what
the plain definitions give, on random inputs."""

from __future__ import annotations

import numpy as np

from conftest import SHARED, need
from kernelscope.analysis.timeline.correlation import ApiJoin, launch_queue
from kernelscope.analysis.timeline.fusion import fusion_chains
from kernelscope.analysis.timeline.graphs import KernelLaunches
from kernelscope.analysis.timeline.breakdown import walls
from kernelscope.analysis.timeline.intervals import (
    KindRows, StreamOrder, busy_before, by_key_and_start, distinct, rows_by_rank, union_segments,
)
from kernelscope.ingest import load_timeline
from kernelscope.timeline_model import Timeline


def _busy_before_by_definition(seg_s: np.ndarray, seg_e: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Busy ns before each t: every segment's part before t, summed (one Python sum per instant)."""
    return np.array([sum(max(0, min(int(x), int(e)) - int(s)) for s, e in zip(seg_s, seg_e)) for x in t],
                    dtype=np.int64)


def test_busy_before_matches_its_definition() -> None:
    rng = np.random.default_rng(25)
    for _ in range(300):
        n = int(rng.integers(0, 20))
        start = rng.integers(0, 1000, n).astype(np.int64)
        seg_s, seg_e = union_segments(start, start + rng.integers(0, 60, n))
        # instants before, inside, between, at the edges of and after the segments
        t = np.concatenate([rng.integers(-50, 1100, 30), seg_s, seg_e, seg_s - 1, seg_e + 1]).astype(np.int64)
        got = busy_before(seg_s, seg_e, t)
        assert got.dtype == np.int64
        assert np.array_equal(got, _busy_before_by_definition(seg_s, seg_e, t))


def test_busy_before_keeps_the_dtype_of_float_segments() -> None:
    seg_s, seg_e = np.array([1.0, 5.0]), np.array([3.0, 6.5])
    assert busy_before(seg_s, seg_e, np.array([0.0, 2.0, 4.0, 6.0, 9.0])).tolist() == [0.0, 1.0, 2.0, 3.0, 3.5]


def test_rows_by_rank_are_the_masked_rows_in_their_order() -> None:
    rng = np.random.default_rng(31)
    n = 500
    start = rng.integers(0, 10_000, n)
    tl = Timeline(start_ns=start, end_ns=start + 5, kind=np.full(n, 4), name_id=np.zeros(n, dtype=np.int32),
                  names=("cudaLaunchKernel",), rank=rng.integers(-1, 4, n), path="random", format="kineto")
    rows = rng.permutation(n)[:300]
    pick = rng.permutation(n)[:100]
    in_rank_order = pick[np.argsort(tl.rank[pick], kind="stable")]  # (a part whose ranks already come in order)
    for parts in ((rows,), (rows[:120], rows[120:]), (rows[:0], in_rank_order, rows)):
        of, joined = rows_by_rank(tl, *parts), np.concatenate(parts)
        for rk in (-1, 0, 1, 2, 3, 7):
            assert np.array_equal(of(rk), joined[tl.rank[joined] == rk])


def test_thread_and_start_order_is_the_lexsort() -> None:
    rng = np.random.default_rng(7)
    for _ in range(50):
        n = int(rng.integers(0, 300))
        key = rng.integers(0, 4, n).astype(np.int64) << 40
        start = np.sort(rng.integers(0, 50, n)) if rng.random() < 0.5 else rng.integers(0, 50, n)  # (ties too)
        order, keys, cuts = by_key_and_start(key, start)
        assert np.array_equal(order, np.lexsort((start, key)))
        assert keys == sorted(set(key.tolist())) and cuts[-1] == n
        assert all((key[order[lo:hi]] == k).all() for k, lo, hi in zip(keys, cuts[:-1], cuts[1:]))


def test_fusion_chains_from_the_analysis_indexes_are_the_chains_found_alone() -> None:
    """The rows and launch calls analyse_timeline hands over (busy rows, KernelLaunches) give the candidates that
    fusion_chains finds by itself, on a multi-rank trace with shapes."""
    tl = load_timeline(str(need(SHARED / "corpus" / "torch_traces" / "param_dlrm_kineto_8rank_v100.tar.gz")))
    rows = KindRows.of(tl)
    join = ApiJoin.of(tl, rows.api)
    launches = KernelLaunches.of(tl, rows.kernel, join.positions(tl, rows.kernel), join.api_rows[join.order], rows.dur)
    busy = np.sort(np.concatenate([rows.kernel, rows.memcpy, rows.memset]))
    streams = StreamOrder.of(tl, busy)
    alone = fusion_chains(tl, 1.0, top=100_000)
    assert len(alone) > 10
    assert fusion_chains(tl, 1.0, 100_000, join, streams, (launches.k_rows, launches.k_api)) == alone
    # the launch queue from the same stream order: each stream a slice, its rows already in start order
    plain, sliced = launch_queue(tl, launches, busy), launch_queue(tl, launches, streams.rows, streams)
    for field in ("depth", "ahead_end_ns", "first_ns", "call_ns"):
        assert np.array_equal(getattr(plain, field), getattr(sliced, field))


def test_distinct_is_numpy_unique_in_order_or_not() -> None:
    rng = np.random.default_rng(3)
    for a in (np.zeros(0, dtype=np.int32), np.full(5, 2, dtype=np.int32), np.sort(rng.integers(-1, 8, 400)).astype(
            np.int32), rng.integers(-1, 8, 400).astype(np.int32), np.array([3, 1], dtype=np.int16)):
        got = distinct(a)
        assert got.dtype == a.dtype and np.array_equal(got, np.unique(a))


def test_rank_walls_with_ranks_in_order_or_not() -> None:
    """walls slices the rows rank by rank where the Timeline holds them so; shuffled, the same walls."""
    rng = np.random.default_rng(11)
    n = 400
    rank = np.sort(rng.integers(0, 4, n))
    start = rng.integers(0, 10_000, n)
    end = start + rng.integers(0, 500, n)

    def tl(order: np.ndarray) -> Timeline:
        return Timeline(start_ns=start[order], end_ns=end[order], kind=np.zeros(n), name_id=np.zeros(n, np.int32),
                        names=("k",), rank=rank[order], path="random", format="kineto")
    ordered, shuffled = walls(tl(np.arange(n))), walls(tl(rng.permutation(n)))
    assert ordered.by_rank == shuffled.by_rank and ordered.bounds == shuffled.bounds
    assert ordered.bounds == {r: (int(start[rank == r].min()), int(end[rank == r].max())) for r in range(4)}


def _adjacent_by_definition(tl: Timeline, busy: np.ndarray, is_k: np.ndarray, max_gap_ns: float) -> np.ndarray:
    """The links of consecutive stream positions as first written: one lexsort of the kernels by (rank, device,
    start) over Timeline rows."""
    a, b = busy[:-1], busy[1:]
    same = is_k[:-1] & is_k[1:] & (tl.rank[a] == tl.rank[b]) & (tl.device[a] == tl.device[b]) & (
        tl.stream[a] == tl.stream[b])
    same &= tl.start_ns[b] - tl.end_ns[a] <= max_gap_ns
    k = busy[is_k]
    order = np.lexsort((tl.start_ns[k], tl.device[k], tl.rank[k]))
    pos = np.empty(tl.kind.shape[0], dtype=np.int64)
    pos[k[order]] = np.arange(k.shape[0])
    same[same] &= (pos[b[same]] - pos[a[same]]) == 1
    return same


def test_chain_links_match_their_definition_with_tied_starts() -> None:
    """Kernels of two streams and two devices starting at the same instants (ties broken by stream), copies
    between them: the per-device sort gives the links of the one lexsort."""
    from kernelscope.analysis.timeline.fusion import _Chains
    from kernelscope.knowledge.fusion import chain_rule
    rng = np.random.default_rng(5)
    for _ in range(20):
        n = 300
        start = rng.integers(0, 400, n) * 1000  # (many equal starts)
        kind = np.where(rng.random(n) < 0.9, 0, 1)
        tl = Timeline(start_ns=start, end_ns=start + rng.integers(0, 3000, n), kind=kind,
                      name_id=np.zeros(n, np.int32), names=("elementwise_kernel",), path="random", format="kineto",
                      device=rng.integers(0, 2, n), stream=rng.integers(7, 9, n), rank=rng.integers(0, 2, n))
        c = _Chains(tl)
        is_k = tl.kind[c.busy] == 0
        assert np.array_equal(c.pre, _adjacent_by_definition(tl, c.busy, is_k, chain_rule().max_gap_s / 1e-9))


def test_intervals_overlapping_the_gaps_are_those_with_time_in_them() -> None:
    """host_gaps measures only the rows that share time with the gaps: exactly those whose time in the gaps
    (busy_before over the gaps) is positive, with gaps and intervals of no length among them."""
    from kernelscope.analysis.timeline.checks import _overlapping
    rng = np.random.default_rng(9)
    for _ in range(300):
        edges = np.sort(rng.integers(0, 200, 2 * int(rng.integers(0, 8))))
        gap_s, gap_e = edges[0::2], edges[1::2]  # (sorted, disjoint; touching or empty ones too)
        start = rng.integers(-10, 210, 60)
        end = start + rng.integers(0, 40, 60)
        inside = busy_before(gap_s, gap_e, end) - busy_before(gap_s, gap_e, start) if gap_s.size else 0 * start
        assert np.array_equal(_overlapping(gap_s, gap_e, start, end), np.flatnonzero(inside > 0))


def test_host_item_times_swept_from_start_order_are_the_plain_ones() -> None:
    """host_lanes sorts a rank's host rows by start so that only the crowded ones are swept: the same counts,
    totals and busy (union) times per name as the sweep of every row in their own order."""
    from kernelscope.analysis.timeline.intervals import item_times
    rng = np.random.default_rng(13)
    for _ in range(100):
        n = int(rng.integers(1, 200))
        start = rng.integers(0, 5000, n)
        end = start + rng.integers(0, 300, n)
        key = rng.integers(0, 6, n).astype(np.int64)
        plain = item_times(key, start, end, exclusive=False)
        o = np.argsort(start, kind="stable")
        swept = item_times(key[o], start[o], end[o], exclusive=False, presorted=True)
        for field in ("keys", "count", "total_ns", "busy_ns", "exclusive_ns"):
            assert np.array_equal(getattr(plain, field), getattr(swept, field))


def test_launch_thread_order_is_the_lexsort() -> None:
    """launch_spacing's order of the calls by (rank, thread, start): one exact key, or the lexsort itself for
    thread ids too far apart to combine."""
    from kernelscope.analysis.timeline.graphs import _thread_order
    rng = np.random.default_rng(17)
    for wide in (False, True):
        for _ in range(30):
            n = int(rng.integers(1, 300))
            rk = rng.integers(-1, 4, n).astype(np.int32)
            th = rng.integers(0, 3, n) * ((1 << 61) if wide else 977) - 1
            s = rng.integers(0, 40, n)
            assert np.array_equal(_thread_order(s, rk, th), np.lexsort((s, th, rk)))


def test_dense_codes_are_numpy_unique() -> None:
    from kernelscope.analysis.timeline.intervals import dense_codes
    rng = np.random.default_rng(19)
    for key in (np.zeros(0, dtype=np.int64), rng.integers(-1, 50, 500), rng.integers(-1, 1 << 40, 50)):
        keys, inv, counts = dense_codes(key)
        u_keys, u_inv, u_counts = np.unique(key, return_inverse=True, return_counts=True)
        assert np.array_equal(keys, u_keys) and np.array_equal(inv, u_inv.reshape(-1))
        assert np.array_equal(counts, u_counts)


def test_name_unions_in_one_sort_are_each_names_own_union() -> None:
    from kernelscope.analysis.timeline import checks

    rng = np.random.default_rng(31)
    for trial in range(200):
        n = int(rng.integers(1, 40))
        base = 1_700_000_000_000_000_000 if trial % 2 else 0  # (epoch ns, as Kineto traces hold)
        start = base + rng.integers(0, 2000, n).astype(np.int64)
        end = start + rng.integers(0, 300, n)
        name_id = rng.integers(0, 6, n).astype(np.int32)
        gap_s, gap_e = union_segments(base + rng.integers(0, 2000, 5).astype(np.int64),
                                      base + rng.integers(0, 2000, 5).astype(np.int64) + 400)
        names = [int(i) for i in rng.permutation(np.unique(name_id))[:4]]
        want_cut, want_own = [], []
        for i in names:  # the definition: each name's union on its own
            seg_s, seg_e = union_segments(start[name_id == i], end[name_id == i])
            want_cut.append(float((busy_before(gap_s, gap_e, seg_e) - busy_before(gap_s, gap_e, seg_s)).sum()))
            want_own.append(float((seg_e - seg_s).sum()))
        assert checks._name_unions(start, end, name_id, names, gap_s, gap_e) == (want_cut, want_own)
    # times too far apart to offset in int64: one name at a time, the same sums
    start = np.array([0, 1 << 61, 5, (1 << 61) + 7], dtype=np.int64)
    end = start + np.array([10, 10, 2, 1])
    got = checks._name_unions(start, end, np.array([0, 0, 1, 1], dtype=np.int32), [1, 0],
                              np.array([0], dtype=np.int64), np.array([6], dtype=np.int64))
    assert got == ([1.0, 6.0], [3.0, 20.0])

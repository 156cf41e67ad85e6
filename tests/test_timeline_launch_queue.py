"""Issue 25, readers and launch logic: launch latency is not queueing (case N20), kernels far apart are host-side
(CPU-bound) gaps, not a launch-bound loop, graph-level nsys traces hold graph replays as busy time (case N18), and
``nsys stats --report cuda_gpu_trace`` is read as a timeline (case N23). Every expected number is computed by hand
from the inputs (the comments give the arithmetic)."""

from __future__ import annotations

import sqlite3

import pytest

from conftest import CASES, flat, need
from test_timeline_graphs import US, build_case, launch_loop, tl_from, validate
from kernelscope.analysis.timeline import analyse, analyse_timeline, time_and_count
from kernelscope.errors import InputError
from kernelscope.ingest import detect_timeline_format, load_timeline
from kernelscope.ingest.kineto import read_kineto
from kernelscope.ingest.nsys_sqlite import read_nsys_sqlite
from kernelscope.render.timeline import render_timeline, to_json
from kernelscope.timeline_model import ANNOTATION, COPY_DTOH, COPY_HTOD, KERNEL, MEMCPY, MEMSET, RUNTIME_API, Timeline

MS = 1000 * US


# ------------------------------------------------------------------------------ N20: launch latency vs queue wait
def test_n20_launch_latency_only_into_an_empty_queue():
    rep = analyse_timeline(read_kineto(need(CASES / "N20_kineto_queued_launches.json")))
    L = rep.launch
    # 20 calls every 10 µs from 1000 µs, kernels of 500 µs back to back from 1015 µs: only the first call found its
    # stream empty (1015 - 1000 = 15 µs); call i (at 1000 + 10 i) finds kernels 0 .. i-1 ahead of it (depth i)
    assert (L.launches, L.idle_queue_launches, L.queued_launches) == (20, 1, 19)
    assert L.latency_median_s == pytest.approx(15e-6) and L.latency_max_s == pytest.approx(15e-6)
    assert (L.queue_depth_min, L.queue_depth_max) == (1, 19)
    # queue wait of call i = (1015 + 500 i) - (1000 + 10 i) = 15 + 490 i µs, i = 1..19: 505 .. 9325 µs, median i = 10
    assert L.queue_wait_median_s == pytest.approx((15 + 490 * 10) * 1e-6)
    assert L.queue_wait_max_s == pytest.approx(9325e-6)
    assert L.api_median_s == pytest.approx(5e-6)
    (d,) = rep.devices
    assert d.span_s == pytest.approx(10e-3) and d.utilisation_pct == pytest.approx(100.0)  # 1015 .. 11015 µs
    assert rep.launch_bound is not None and not rep.launch_bound.launch_bound
    assert not [f for f in rep.findings if f.id in ("launch_bound", "tiny_kernels")]
    table = render_timeline([rep], "table", "en", width=400)
    assert "1 into an empty stream queue" in table and "15 µs (one launch only)" in table and "median 15 µs" not in table
    assert "19 calls queued behind earlier work" in table and "median 4.915 ms" in table and "4.670 ms" not in table
    zh = flat(render_timeline([rep], "table", "zh", width=400))
    assert "排队等待" in zh and "4.915 ms" in zh
    doc = to_json([rep])
    validate(doc)
    lo = doc["reports"][0]["launch"]
    assert lo["queued_launches"] == 19 and lo["queue_wait_max_s"] == pytest.approx(9325e-6)
    assert lo["latency_median_s"] == pytest.approx(15e-6)


def test_queue_is_per_stream_and_counts_copies():
    """A launch into an empty stream has launch latency even while another stream keeps the GPU busy; a copy still
    running on the kernel's own stream when the call starts puts the launch in a queue."""
    rows = [(0, 1000 * US, KERNEL, "long", 0, 7, 1), (0, 5 * US, RUNTIME_API, "cudaLaunchKernel", -1, 1, 1),
            # stream 8 is empty at 100 µs: 12 µs of launch latency although stream 7 is busy
            (100 * US, 105 * US, RUNTIME_API, "cudaLaunchKernel", -1, 1, 2), (112 * US, 150 * US, KERNEL, "b", 0, 8, 2),
            # a copy on stream 9 from 190 to 400 µs, the kernel launched at 200 µs runs after it: depth 1, 200 µs wait
            (180 * US, 185 * US, RUNTIME_API, "cudaMemcpyAsync", -1, 1, 3), (190 * US, 400 * US, MEMCPY, "cp", 0, 9, 3),
            (200 * US, 205 * US, RUNTIME_API, "cudaLaunchKernel", -1, 1, 4), (400 * US, 410 * US, KERNEL, "c", 0, 9, 4)]
    L = analyse_timeline(tl_from(rows)).launch
    assert (L.launches, L.idle_queue_launches, L.queued_launches) == (3, 2, 1)  # the copy is no kernel launch
    assert L.latency_median_s == pytest.approx((0 + 12) / 2 * 1e-6)  # "long": 0 µs, "b": 12 µs
    assert L.queue_wait_median_s == pytest.approx(200e-6) and (L.queue_depth_min, L.queue_depth_max) == (1, 1)


def test_queued_launches_are_never_launch_bound():
    """30 launches 2 µs apart of 1.5 µs kernels look launch-bound by their spacing (1.5 < 0.9 x 2), but every one
    queues behind a 1 ms kernel launched first and runs as soon as the kernel ahead ends: the GPU never waits for
    the host (backlog)."""
    rows = [(0, 1 * US, RUNTIME_API, "cudaLaunchKernel", -1, 1, 1000), (2 * US, 1002 * US, KERNEL, "big", 0, 7, 1000)]
    rows += launch_loop(30, 2.0, 1.0, 1.5, t0=3 * US, corr0=1)
    # kernels start 4 µs after their call in launch_loop; here they run after "big", back to back
    rows = [r if r[2] != KERNEL or r[3] != "k" else (1002 * US + 1500 * (r[6] - 1), 1002 * US + 1500 * r[6], *r[2:])
            for r in rows]
    rep = analyse_timeline(tl_from(rows))
    assert rep.launch.queued_launches == 30 and rep.launch.idle_queue_launches == 1
    # call i (1-based) at 3 + 2 (i - 1) µs; the work ahead of its kernel ends at 1002 + 1.5 (i - 1) µs
    assert rep.launch.queue_wait_max_s == pytest.approx(999e-6)  # i = 1: 1002 - 3 µs
    b = rep.launch_bound
    assert b.per_launch_s == pytest.approx(2e-6) and b.bound_launches == 0 and not b.launch_bound
    assert not [f for f in rep.findings if f.id == "launch_bound"]
    # a loop into an idle GPU, calls 4 µs apart: kernel i at 4 + 4 i µs, 1.5 µs long; each call finds the previous
    # kernel just started (a launch latency of 4 µs = the spacing keeps one in flight: queued, 1.5 µs of queue wait),
    # but its own kernel starts 2.5 µs after that one ends (more than backlog_gap_s, 1 µs): the GPU waits for the
    # host, launch-bound (1.5 < 0.9 x 4 µs)
    free = analyse_timeline(tl_from(launch_loop(30, 4.0, 1.0, 1.5)))
    assert free.launch.queued_launches == 29 and free.launch.queue_wait_median_s == pytest.approx(1.5e-6)
    assert free.launch_bound.launch_bound and free.launch_bound.bound_launches == 30


# -------------------------------------------------------------- issue 25 item 5: far-apart kernels are host gaps
def _host_bound(n: int = 21, period_ms: float = 16.0) -> Timeline:
    """``n`` steps ``period_ms`` apart: a 32 µs cudaLaunchKernel at t, its 100 µs kernel at t + 40 µs, a
    cudaStreamSynchronize [t + 40, t + 145) µs, then host work in the NVTX range "preprocess" [t + 150 µs, t + 12 ms)."""
    rows = []
    for i in range(n):
        t = round(i * period_ms * MS)
        rows += [(t, t + 32 * US, RUNTIME_API, "cudaLaunchKernel", -1, 1, i + 1),
                 (t + 40 * US, t + 140 * US, KERNEL, "step_kernel", 0, 7, i + 1),
                 (t + 40 * US, t + 145 * US, RUNTIME_API, "cudaStreamSynchronize", -1, 1, -1),
                 (t + 150 * US, t + 12 * MS, ANNOTATION, "preprocess", -1, 1, -1)]
    return tl_from(rows)


def test_far_apart_kernels_are_host_gaps_not_launch_bound():
    rep = analyse_timeline(_host_bound())
    # every pair of launch calls is 16 ms apart, beyond max_spacing_s (200 µs): no per-launch cost, no verdict
    # (before: "launch-bound", 21 launches x 16 ms saved)
    assert rep.launch_bound is None
    assert not [f for f in rep.findings if f.id in ("launch_bound", "tiny_kernels")]
    (f,) = [f for f in rep.findings if f.id == "host_gaps"]
    # 20 gaps, each from a kernel's end (t + 140 µs) to the next kernel's start (t + 16 ms + 40 µs): 15.9 ms
    t, n = time_and_count(f)
    assert n == 20 and t == pytest.approx(20 * 15.9e-3)
    ev = {e.metric: e.value for e in f.evidence}
    assert ev["host_gaps.largest_gap"] == pytest.approx(15.9e-3)
    # in the gaps: the next launch call (32 µs each, 640 µs) and 5 µs of each synchronisation (100 µs): the launch
    # call covers most; the range "preprocess" covers [t + 150 µs, t + 12 ms) = 11.85 ms of each gap
    assert f.message.key == "tl_host_gaps" and f.message.values["api"] == "cudaLaunchKernel"
    assert ev["host_gaps.api_time"] == pytest.approx(20 * 32e-6)
    assert f.message.values["range"] == "preprocess" and ev["host_gaps.range_time"] == pytest.approx(20 * 11.85e-3)
    wall = 20 * 16e-3 + 12e-3  # first call at 0, last range ends at 320 + 12 ms
    assert ev["rank_wall"] == pytest.approx(wall)
    assert f.estimated_speedup == pytest.approx(wall / (wall - 20 * 15.9e-3))
    table = render_timeline([rep], "table", "en", width=400)
    assert "[host_gaps]" not in table  # the check's text, not its id
    assert "host-side (CPU-bound) gaps, not launch overhead" in table and "preprocess" in table
    assert "受 CPU 限制" in flat(render_timeline([rep], "table", "zh", width=400))


def test_host_gaps_below_their_share_are_not_reported():
    """Gaps of 1 ms or more that add up to less than 10 % of the wall are no finding: 2 gaps of 2 ms in 60 ms."""
    rows = [(0, 28 * MS, KERNEL, "a", 0, 7, -1), (30 * MS, 58 * MS, KERNEL, "b", 0, 7, -1),
            (60 * MS, 60 * MS + 1, KERNEL, "c", 0, 7, -1)]
    rep = analyse_timeline(tl_from(rows))
    assert not [f for f in rep.findings if f.id == "host_gaps"]  # 4 ms of 60 ms: 6.7 %
    rows[2] = (64 * MS, 64 * MS + 1, KERNEL, "c", 0, 7, -1)  # 2 + 6 = 8 ms of 64 ms: 12.5 %
    (f,) = [f for f in analyse_timeline(tl_from(rows)).findings if f.id == "host_gaps"]
    assert time_and_count(f) == (pytest.approx(8e-3), 2) and f.message.key == "tl_host_gaps_none"


# ------------------------------------------------------------------------- N18: graph-level nsys trace
def test_n18_graph_replays_are_busy_time(tmp_path):
    tl = read_nsys_sqlite(build_case("N18_nsys_graph_level_trace.sql", tmp_path))
    rep = analyse_timeline(tl)
    (d,) = rep.devices
    # GPU span 10 µs .. 5462 µs = 5.452 ms; busy 4 eager kernels (100 µs) + 2 replays of 2.4 ms = 4.900 ms
    assert d.span_s == pytest.approx(5.452e-3) and d.kernel_s == pytest.approx(4.9e-3)
    assert d.idle_s == pytest.approx(0.552e-3) and round(d.utilisation_pct, 1) == 89.9
    bh = rep.black_hole
    assert bh.name == "CUDA graph 1 (replay)" and bh.time_s == pytest.approx(4.8e-3)
    assert rep.wall_s == pytest.approx(5.463e-3) and round(100 * 4.8 / 5.463, 1) == 87.9
    assert bh.program_fraction == pytest.approx(4.8 / 5.463)
    g = rep.graphs
    assert (g.launches, g.kernels, g.recorded) == (2, 2, True) and g.kernel_s == pytest.approx(4.8e-3)
    (note,) = [n for n in rep.notes if n.key == "tl_graph_level_trace"]
    assert note.values["n"] == 2 and note.values["time_s"] == pytest.approx(4.8e-3)
    table = render_timeline([rep], "table", "en", width=400)
    assert "--cuda-graph-trace=node" in table and "89.9%" in table and "98.2%" not in table
    assert "--cuda-graph-trace=node" in flat(render_timeline([rep], "table", "zh", width=400))
    validate(to_json([rep]))


def test_graph_trace_rows_with_traced_nodes_are_not_counted_twice(tmp_path):
    """An export holding both the replay row and its node kernels (graphNodeId set, same correlation id) keeps the
    kernels only; a replay without node kernels is still busy time."""
    schema = need(CASES / "_nsys_min_schema.sql").read_text(encoding="utf-8")
    body = """
CREATE TABLE CUPTI_ACTIVITY_KIND_GRAPH_TRACE (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
  globalPid INTEGER, graphId INTEGER NOT NULL, graphExecId INTEGER NOT NULL);
INSERT INTO StringIds VALUES (1, 'node_a'), (2, 'node_b');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1000, 2000, 0, 1, 7, 50, 1, 1, 1, NULL, 1, 32, 1, 1, 1, 128, 1, 1, 0, 0, 11);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (2000, 4000, 0, 1, 7, 50, 1, 2, 2, NULL, 1, 32, 1, 1, 1, 128, 1, 1, 0, 0, 12);
INSERT INTO CUPTI_ACTIVITY_KIND_GRAPH_TRACE VALUES (1000, 4000, 0, 1, 0, 7, 50, 1, 3, 3);
INSERT INTO CUPTI_ACTIVITY_KIND_GRAPH_TRACE VALUES (10000, 16000, 0, 1, 0, 7, 60, 1, 4, 4);
"""
    path = tmp_path / "both.sqlite"
    con = sqlite3.connect(path)
    con.executescript(schema + body)
    con.commit()
    con.close()
    rep = analyse_timeline(read_nsys_sqlite(path))
    assert {k.name: k.total_s for k in rep.kernels} == {
        "CUDA graph 4 (replay)": pytest.approx(6e-6), "node_b": pytest.approx(2e-6), "node_a": pytest.approx(1e-6)}
    assert rep.devices[0].kernel_s == pytest.approx(9e-6)  # 3 µs of nodes + 6 µs of replay, never 12 µs


def test_graph_trace_alone_is_gpu_activity(tmp_path):
    """An export whose only GPU table is the graph trace is read, not refused as "no GPU activity"."""
    path = tmp_path / "only.sqlite"
    con = sqlite3.connect(path)
    con.executescript("""
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_GRAPH_TRACE (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, graphId INTEGER NOT NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_GRAPH_TRACE VALUES (0, 3000, 0, 1, 7, 5, 2), (4000, 7000, 0, 1, 7, 6, 2);""")
    con.commit()
    con.close()
    rep = analyse_timeline(read_nsys_sqlite(path))
    assert [(k.name, k.count) for k in rep.kernels] == [("CUDA graph 2 (replay)", 2)]
    assert rep.devices[0].utilisation_pct == pytest.approx(600 / 7)  # 6 µs busy of a 7 µs span


# ------------------------------------------------------------------- N23: nsys stats --report cuda_gpu_trace
def _check_n23(rep) -> None:
    (d,) = rep.devices
    # span 1.000 .. 13.500 ms; kernels 20 µs + 2.4 ms; HtoD copy 10 ms at 3.5 ms; busy 12.42 ms, idle 80 µs
    assert d.span_s == pytest.approx(12.5e-3) and d.kernel_s == pytest.approx(2.42e-3)
    assert d.memcpy_s == pytest.approx(10e-3) and d.idle_s == pytest.approx(80e-6)
    assert round(d.utilisation_pct, 1) == 99.4
    (c,) = d.copies
    assert c.direction == "HtoD" and c.bytes == 67_109_000 and c.pageable_s == pytest.approx(10e-3)
    assert c.throughput_bytes_per_s == pytest.approx(6.7109e9)
    (f,) = [f for f in rep.findings if f.id == "pageable_memcpy"]
    assert time_and_count(f) == (pytest.approx(10e-3), 1)
    assert {e.metric: e.value for e in f.evidence}["pageable_memcpy.bytes"] == 67_109_000
    assert rep.black_hole.name == "[CUDA memcpy HtoD]" and rep.black_hole.program_fraction == pytest.approx(0.8)
    assert rep.devices_named == ((0, "NVIDIA H100 80GB HBM3"),)


def test_n23_cuda_gpu_trace_csv_is_a_timeline(tmp_path):
    src = need(CASES / "N23_nsys_stats_cuda_gpu_trace.csv")
    assert detect_timeline_format(src) == "nsys-stats"
    tl = load_timeline(src)
    assert isinstance(tl, Timeline) and tl.format == "nsys-stats"
    k = tl.kind == KERNEL
    assert sorted(tl.launch.grid_x[k].tolist()) == [132, 256] and sorted(tl.launch.registers_per_thread[k]) == [32, 168]
    assert tl.launch.dynamic_shared_mem_bytes[k].max() == 213_000  # 0.213 MB
    (rep,) = analyse(tl)
    _check_n23(rep)
    (rep,) = analyse(load_timeline(src, "nsys-stats"))
    _check_n23(rep)
    bare = tmp_path / "trace.csv"  # without the "Processing ..." line and the blank line after it
    bare.write_text("".join(src.read_text(encoding="utf-8").splitlines(keepends=True)[2:]), encoding="utf-8")
    assert detect_timeline_format(bare) == "nsys-stats"
    _check_n23(analyse(load_timeline(bare))[0])


def _console(header: list[str], rows: list[list[str]]) -> str:
    """A console table as nsys prints it: numbers right-aligned over dashes as wide as the widest cell, the name
    column left-aligned and last, columns two spaces apart."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    def line(cells):
        return "  ".join(c.rjust(w) if i < len(cells) - 1 else c for i, (c, w) in enumerate(zip(cells, widths)))
    return "\n".join([line(header), "  ".join("-" * w for w in widths)] + [line(r) for r in rows]) + "\n"


def test_cuda_gpu_trace_console_text(tmp_path):
    """The console layout, with thousands separators, a memset and a DtoH copy from pinned memory; times in µs."""
    header = ["Start (us)", "Duration (us)", "CorrId", "GrdX", "BlkX", "Bytes (MB)", "SrcMemKd", "DstMemKd", "Device",
              "Strm", "Name"]
    rows = [["1,000.000", "500.000", "11", "1,024", "256", "", "", "", "NVIDIA A100-SXM4-80GB (1)", "7", "my kernel"],
            ["1,500.000", "100.000", "12", "", "", "1.000", "", "Device", "NVIDIA A100-SXM4-80GB (1)", "7",
             "[CUDA memset]"],
            ["1,700.000", "300.000", "13", "", "", "4.000", "Device", "Pinned", "NVIDIA A100-SXM4-80GB (1)", "7",
             "[CUDA memcpy Device-to-Host]"]]
    path = tmp_path / "gputrace.txt"
    path.write_text("Processing [r.sqlite] with [/opt/nsys/reports/cuda_gpu_trace.py]... \n\n" + _console(header, rows),
                    encoding="utf-8")
    tl = load_timeline(path)
    assert isinstance(tl, Timeline)
    assert sorted(tl.kind.tolist()) == [KERNEL, MEMCPY, MEMSET]
    assert tl.start_ns.min() == 1_000_000 and tl.end_ns.max() == 2_000_000  # 1000 µs .. 1700 + 300 µs
    assert set(tl.device.tolist()) == {1} and set(tl.stream.tolist()) == {7}
    c = tl.kind == MEMCPY
    assert tl.copy_kind[c].tolist() == [COPY_DTOH] and tl.pageable[c].tolist() == [0] and tl.bytes[c].tolist() == [4e6]
    assert tl.launch.grid_x[tl.kind == KERNEL].tolist() == [1024]
    rep = analyse_timeline(tl)
    (d,) = rep.devices
    # busy 500 + 100 + 300 = 900 µs of a 1000 µs span (idle 100 µs from 1600 to 1700 µs)
    assert d.span_s == pytest.approx(1e-3) and d.idle_s == pytest.approx(100e-6) and d.memset_s == pytest.approx(1e-4)
    assert not [f for f in rep.findings if f.id == "pageable_memcpy"]


def test_cuda_gpu_trace_bad_time_is_one_line(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("Start (ns),Duration (ns),CorrId,Strm,Name\n1000,abc,1,7,k\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"line 2: Start / Duration is not a number"):
        load_timeline(path)
    path.write_text("Start (ns),Duration (ns),CorrId,Strm,Name\n", encoding="utf-8")
    with pytest.raises(InputError, match="no data"):
        load_timeline(path)


def test_queue_depth_with_many_streams_and_rows_out_of_order():
    """20 streams (more than the few the masks handle: the sorted path), rows in reverse time order: on each
    stream a 100 µs kernel launched at 0 into an empty queue (latency 0), and a call at 10 µs whose kernel runs
    after it (depth 1, queue wait 100 - 10 = 90 µs)."""
    rows = []
    for s in range(20):
        c = 2 * s + 1
        rows += [(0, 2 * US, RUNTIME_API, "cudaLaunchKernel", -1, 1, c), (0, 100 * US, KERNEL, "a", 0, 100 + s, c),
                 (10 * US, 12 * US, RUNTIME_API, "cudaLaunchKernel", -1, 1, c + 1),
                 (100 * US, 150 * US, KERNEL, "b", 0, 100 + s, c + 1)]
    L = analyse_timeline(tl_from(rows[::-1])).launch
    assert (L.launches, L.idle_queue_launches, L.queued_launches) == (40, 20, 20)
    assert L.latency_max_s == 0 and (L.queue_depth_min, L.queue_depth_max) == (1, 1)
    assert L.queue_wait_median_s == pytest.approx(90e-6) and L.queue_wait_max_s == pytest.approx(90e-6)


def test_host_gaps_name_the_range_that_fills_them_once():
    """Gaps [10, 14) and [24, 28) ms between three 10 ms kernels (8 ms of a 38 ms wall, 21 %). The step range
    [0, 38) ms holds them all but lies mostly outside them (8 of 38 ms); "load" [10.5, 13.5) and [24.5, 27.5) ms,
    with a nested "load" [11, 12) ms counted once, fills 6 ms of them: "load" is named, with 6 ms (not 7)."""
    rows = [(0, 10 * MS, KERNEL, "a", 0, 7, -1), (14 * MS, 24 * MS, KERNEL, "a", 0, 7, -1),
            (28 * MS, 38 * MS, KERNEL, "a", 0, 7, -1), (0, 38 * MS, ANNOTATION, "step", -1, 1, -1),
            (10_500 * US, 13_500 * US, ANNOTATION, "load", -1, 1, -1), (11 * MS, 12 * MS, ANNOTATION, "load", -1, 1, -1),
            (24_500 * US, 27_500 * US, ANNOTATION, "load", -1, 1, -1)]
    (f,) = [f for f in analyse_timeline(tl_from(rows)).findings if f.id == "host_gaps"]
    assert time_and_count(f) == (pytest.approx(8e-3), 2) and f.message.key == "tl_host_gaps_range"
    assert f.message.values["range"] == "load" and f.message.values["range_s"] == pytest.approx(6e-3)


def test_cuda_gpu_trace_comma_decimal_console_and_table_layout(tmp_path):
    """The console text in a comma-decimal locale (``1.000.000`` ns, ``67,109`` MB: told by the start times) and the
    ``--format table`` layout read the same two records: a 20 µs kernel at 1 ms and a 67.109 MB pageable HtoD copy
    of 10 ms at 3.5 ms (busy 10.02 ms of a 12.5 ms span)."""
    header = ["Start (ns)", "Duration (ns)", "Bytes (MB)", "SrcMemKd", "DstMemKd", "Strm", "Name"]
    comma = [["1.000.000", "20.000", "", "", "", "7", "k"],
             ["3.500.000", "10.000.000", "67,109", "Pageable", "Device", "7", "[CUDA memcpy Host-to-Device]"]]
    path = tmp_path / "comma.txt"
    path.write_text(_console(header, comma), encoding="utf-8")
    plain = [[c.replace(".", "").replace(",", ".") for c in r[:3]] + r[3:] for r in comma]
    table = tmp_path / "table.txt"
    border = "+" + "+".join("-" * 14 for _ in header) + "+"
    table.write_text("\n".join([border, "| " + " | ".join(header) + " |", border]
                               + ["| " + " | ".join(r) + " |" for r in plain] + [border]) + "\n", encoding="utf-8")
    for p in (path, table):
        tl = load_timeline(p)
        assert isinstance(tl, Timeline), p
        assert sorted(tl.start_ns.tolist()) == [1_000_000, 3_500_000] and tl.end_ns.max() == 13_500_000
        c = tl.kind == MEMCPY
        assert tl.bytes[c].tolist() == [67_109_000] and tl.pageable[c].tolist() == [1]
        assert tl.copy_kind[c].tolist() == [COPY_HTOD]
        d = analyse_timeline(tl).devices[0]
        assert d.span_s == pytest.approx(12.5e-3) and d.idle_s == pytest.approx(12.5e-3 - 10.02e-3)


@pytest.mark.parametrize("cell", ["9223372036854775807", "inf", "nan"])
def test_cuda_gpu_trace_value_out_of_range_is_one_line(tmp_path, cell):
    """A device id, stream or time beyond its column (the fuzzer's 0 -> INT64_MAX) is one line naming the row."""
    path = tmp_path / "big.csv"
    path.write_text(f"Start (ns),Duration (ns),Device,Strm,Name\n1000,{cell},0,7,k\n2000,5,{cell},7,k\n",
                    encoding="utf-8")
    with pytest.raises(InputError, match=r"line \d: .*out of range|line \d: Start / Duration"):
        load_timeline(path)

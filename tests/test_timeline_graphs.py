"""CUDA graphs and launch-bound loops (cases N02, C19, N05): graph launches joined on correlation id whatever the
call's name, launch latency to the FIRST node only, graph-launched kernels marked, the share of GPU time that ran
from graphs, Nsight Systems' graphNodeId, the per-launch cost from the spacing of launch calls, and the CUDA graph
saving predicted by the measured cost model of ``timeline_rules.toml`` ``[graph_replay]``."""

from __future__ import annotations

import json
import math
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from conftest import CASES, REPO, need
from kernelscope.analysis.timeline import analyse, analyse_summary, analyse_timeline, time_and_count
from kernelscope.analysis.timeline.graphs import graph_saving, launch_spacing
from kernelscope.ingest import load_timeline
from kernelscope.ingest.kineto import read_kineto
from kernelscope.ingest.nsys_sqlite import read_nsys_sqlite
from kernelscope.ingest.nsys_stats import read_nsys_stats
from kernelscope.knowledge.timeline_checks import timeline_checks
from kernelscope.render.timeline import render_timeline, to_json
from kernelscope.timeline_model import KERNEL, MEMCPY, RUNTIME_API, Timeline

US = 1000  # ns
N02 = "N02_kineto_graph_replay_corr.json"


def validate(doc: dict) -> None:
    """Check a timeline JSON document against the checked-in schema (skips without jsonschema)."""
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((REPO / "schemas" / "timeline-1.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(doc, schema, cls=jsonschema.Draft202012Validator)


def build_case(name: str, tmp_path: Path) -> Path:
    """``cat _nsys_min_schema.sql <case>.sql | sqlite3 <case>.sqlite`` with Python's sqlite3 module."""
    schema = need(CASES / "_nsys_min_schema.sql").read_text(encoding="utf-8")
    body = need(CASES / name).read_text(encoding="utf-8")
    out = tmp_path / (name.split("_")[0] + ".sqlite")
    con = sqlite3.connect(out)
    con.executescript(schema + body)
    con.commit()
    con.close()
    return out


def tl_from(rows, names=None) -> Timeline:
    """rows: (start_ns, end_ns, kind, name, device, stream or host thread, correlation id[, graph_launched])."""
    names = names or sorted({r[3] for r in rows})
    cols = {k: [] for k in ("start_ns", "end_ns", "kind", "name_id", "device", "stream", "correlation_id",
                            "graph_launched")}
    for r in rows:
        s, e, k, nm, dev, st, corr, *g = r
        for key, v in zip(cols, (s, e, k, names.index(nm), dev, st, corr, g[0] if g else -1)):
            cols[key].append(v)
    return Timeline(path="synthetic", format="test", names=tuple(names), **cols)


def launch_loop(n: int, spacing_us: float, call_us: float, kernel_us: float, *, t0: int = 0, thread: int = 1,
                corr0: int = 1, api: str = "cudaLaunchKernel", kernel: str = "k") -> list[tuple]:
    """``n`` launch calls of ``call_us`` every ``spacing_us`` on one host thread, each starting one ``kernel_us``
    kernel 4 µs after its call."""
    rows = []
    for i in range(n):
        t = t0 + round(i * spacing_us * US)
        rows.append((t, t + round(call_us * US), RUNTIME_API, api, -1, thread, corr0 + i))
        rows.append((t + 4 * US, t + 4 * US + round(kernel_us * US), KERNEL, kernel, 0, 7, corr0 + i))
    return rows


# ------------------------------------------------------------------------------------------- N02: CUDA graphs
def test_n02_graph_launches_first_node_latency_and_graph_share():
    rep = analyse_timeline(read_kineto(need(CASES / N02)))
    L = rep.launch
    # 3 launch calls: cudaLaunchKernel at 100 µs, cudaGraphLaunch at 140 and 200 µs (15 µs each), 7 kernels
    assert (L.launches, L.graph_launches, L.matched, L.unmatched) == (3, 2, 7, 0)
    # latency to the FIRST node only: 20 and 20 µs into an empty queue; the second graph (call at 200 µs) queues
    # behind the first until 300 µs: 100 µs of queue wait with 3 nodes ahead (attention still running at 200 µs,
    # moe and rmsnorm queued), not launch latency; not "7 launches, median 100 µs"
    assert L.latency_median_s == pytest.approx(20e-6)
    assert L.latency_max_s == pytest.approx(20e-6) and L.latency_mean_s == pytest.approx(20e-6)
    assert (L.idle_queue_launches, L.queued_launches, L.queue_depth_min, L.queue_depth_max) == (2, 1, 3, 3)
    assert L.queue_wait_median_s == pytest.approx(100e-6) and L.queue_wait_max_s == pytest.approx(100e-6)
    assert L.api_median_s == pytest.approx(15e-6)  # one value per call, the graph launch counted once
    g = rep.graphs
    assert (g.launches, g.kernels, g.recorded) == (2, 6, False)
    assert g.kernel_s == pytest.approx(280e-6) and g.total_kernel_s == pytest.approx(290e-6)
    assert round(g.kernel_pct, 1) == 96.6
    assert g.host_s == pytest.approx(30e-6)  # 2 x 15 µs: once per launch, not per node
    by_name = {k.name: k for k in rep.kernels}
    assert sum(k.count for k in rep.kernels) == 7  # no kernel dropped by a name-based join
    assert {n: k.graph_launches for n, k in by_name.items()} == {
        "attention_kernel": 2, "moe_gemm_kernel": 2, "rmsnorm_kernel": 2, "embedding_kernel": 0}
    assert rep.launch_bound is None  # one non-graph launch call: no spacing to measure


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_n02_rendered_table_and_json(lang):
    rep = analyse_timeline(read_kineto(need(CASES / N02)))
    table = render_timeline([rep], "table", lang, width=400)
    assert "96.6%" in table and "280 µs" in table and "30 µs" in table  # exact values without zero decimals
    assert ("From graphs" if lang == "en" else "来自 Graph") in table
    doc = to_json([rep], lang)
    validate(doc)
    r = doc["reports"][0]
    assert r["graphs"]["kernel_s"] == pytest.approx(280e-6) and r["graphs"]["launches"] == 2
    assert r["launch"]["launches"] == 3 and r["launch"]["graph_launches"] == 2
    assert r["launch"]["latency_median_s"] == pytest.approx(20e-6)
    assert {k["name"]: k["graph_launches"] for k in r["kernels"]}["embedding_kernel"] == 0
    assert r["launch_bound"] is None


@pytest.mark.parametrize("api", ["cuGraphLaunch", "hipGraphLaunch", "myRuntimeSubmit"])
def test_graph_join_on_correlation_whatever_the_api_name(api):
    """A call that starts several kernels is a graph launch by its correlation id, whatever it is called; a one-node
    graph is known by its call's name."""
    rows = [(0, 15 * US, RUNTIME_API, api, -1, 1, 5),
            (20 * US, 30 * US, KERNEL, "a", 0, 7, 5), (30 * US, 50 * US, KERNEL, "b", 0, 7, 5),
            (100 * US, 110 * US, RUNTIME_API, api, -1, 1, 6), (130 * US, 140 * US, KERNEL, "a", 0, 7, 6)]
    rep = analyse_timeline(tl_from(rows))
    assert rep.launch.matched == 3 and rep.launch.launches == 2
    # 20 and 30 µs to the first kernel of each call (per kernel it would be 20, 30, 30 µs: median 30)
    assert rep.launch.latency_median_s == pytest.approx(25e-6) and rep.launch.latency_max_s == pytest.approx(30e-6)
    one_node_is_graph = api != "myRuntimeSubmit"
    assert rep.launch.graph_launches == 1 + one_node_is_graph
    assert rep.graphs.kernels == 2 + one_node_is_graph


# ------------------------------------------------------------------------------------------- SQLite graphNodeId
_GRAPH_DB = """
INSERT INTO StringIds VALUES(1,'cudaGraphLaunch_v10000'), (2,'cudaLaunchKernel_v7000'), (3,'gemm'), (4,'norm');
INSERT INTO TARGET_INFO_GPU VALUES(0,'NVIDIA H100 80GB HBM3',132,9,0,3350000000000,1980000);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1000,16000,1,1,{c1},1,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(40000,45000,1,1,{c2},2,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(20000,30000,0,1,{s},{c1},1,3,3,NULL,NULL,32,1,1,1,128,1,1,0,0,{n1});
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(30000,35000,0,1,{s},{c1},1,4,4,NULL,NULL,32,1,1,1,128,1,1,0,0,{n2});
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(50000,60000,0,1,{s},{c2},1,3,3,NULL,NULL,32,1,1,1,128,1,1,0,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES(35000,36000,0,1,{s},{c1},1,4096,8,2,2,{n3});
"""


@pytest.mark.parametrize("packed", [True, False], ids=["packed", "unpacked"])
def test_sqlite_graph_node_id_marks_graph_kernels(tmp_path, packed):
    """A kernel (or copy) row with a non-NULL graphNodeId ran as a graph node, in both SQL read paths (a stream id
    beyond 10 bits takes the unpacked one)."""
    schema = need(CASES / "_nsys_min_schema.sql").read_text(encoding="utf-8")
    path = tmp_path / "graph.sqlite"
    con = sqlite3.connect(path)
    con.executescript(schema + _GRAPH_DB.format(c1=10, c2=11, s=7 if packed else 5000, n1=2**40 + 3, n2=2**40 + 4,
                                                n3=2**40 + 5))
    con.commit()
    con.close()
    tl = read_nsys_sqlite(path)
    k = np.flatnonzero(tl.kind == KERNEL)
    k = k[np.argsort(tl.start_ns[k])]
    assert tl.graph_launched[k].tolist() == [1, 1, 0]
    assert tl.graph_launched[tl.kind == MEMCPY].tolist() == [1]
    assert tl.graph_launched[tl.kind == RUNTIME_API].tolist() == [-1, -1]
    assert tl.correlation_id[k].tolist() == [10, 10, 11] and tl.stream[k].tolist() == [7 if packed else 5000] * 3
    rep = analyse_timeline(tl)
    g = rep.graphs
    assert (g.launches, g.kernels, g.recorded) == (1, 2, True)
    assert g.kernel_s == pytest.approx(15e-6) and g.total_kernel_s == pytest.approx(25e-6)
    assert g.host_s == pytest.approx(15e-6)
    assert {x.name: x.graph_launches for x in rep.kernels} == {"gemm": 1, "norm": 1}
    assert (rep.launch.launches, rep.launch.graph_launches) == (2, 1)
    assert rep.launch.latency_median_s == pytest.approx(14.5e-6)  # 19 µs to the graph's first node, 10 µs


def test_sqlite_without_graph_node_column_infers_from_the_call(tmp_path):
    """Older exports have no graphNodeId: the column is -1 and the graph launch is inferred from its call."""
    schema = need(CASES / "_nsys_min_schema.sql").read_text(encoding="utf-8")
    schema = schema.replace(", graphNodeId INTEGER", "")
    body = _GRAPH_DB.format(c1=10, c2=11, s=7, n1="", n2="", n3="").replace(",)", ")")
    path = tmp_path / "old.sqlite"
    con = sqlite3.connect(path)
    con.executescript(schema + body.replace(",0,0,NULL);", ",0,0);"))
    con.commit()
    con.close()
    tl = read_nsys_sqlite(path)
    assert set(tl.graph_launched.tolist()) == {-1}
    g = analyse_timeline(tl).graphs
    assert (g.launches, g.kernels, g.recorded) == (1, 2, False)


# ------------------------------------------------------------------------------------------- C19: launch-bound loop
def test_c19_launch_bound_and_predicted_graph_saving(tmp_path):
    rep = analyse_timeline(read_nsys_sqlite(build_case("C19_nsys_tiny_kernels.sql", tmp_path)))
    b = rep.launch_bound
    assert b.cost_source == "spacing" and b.spacings == 63
    assert b.per_launch_s == pytest.approx(6.43e-6)  # API-to-API spacing of the 64 back-to-back launches
    assert (b.launches, b.bound_launches, b.launch_bound) == (64, 64, True)
    assert b.kernel_s == pytest.approx(1.5e-6)
    assert b.replay_s == pytest.approx(52.12e-6)  # 15 µs + 0.58 µs x 64
    # the loop then takes the longer of the replay (52.12 µs) and its kernels (64 x 1.5 = 96 µs):
    # 64 x 6.43 - 96 = 411.52 - 96 = 315.52 µs; break-even ceil(15 / (6.43 - 0.58)) = 3 nodes
    assert b.predicted_saving_s == pytest.approx(315.52e-6, abs=0.05e-6)
    assert b.break_even_nodes == 3
    assert rep.graphs is None  # graphNodeId NULL everywhere
    (f,) = [f for f in rep.findings if f.id == "launch_bound"]
    assert time_and_count(f) == (pytest.approx(315.52e-6, abs=0.05e-6), 64)
    assert "ocannl" in f.source and "#488" in f.source
    wall = rep.program_time_s
    # the loop then takes the longer of the replay (52.12 µs) and its kernels (64 x 1.5 = 96 µs)
    assert f.estimated_speedup == pytest.approx(wall / (wall - (411.52e-6 - 96e-6)))
    table = render_timeline([rep], "table", "en", width=400)
    assert "315.5 µs" in table and "from 3 nodes on" in table and "median spacing" in table
    doc = to_json([rep])
    validate(doc)
    lb = doc["reports"][0]["launch_bound"]
    assert lb["predicted_saving_s"] == pytest.approx(315.52e-6, abs=0.05e-6) and lb["break_even_nodes"] == 3
    assert lb["cost_source"] == "spacing" and "RTX 5070 Ti" in lb["model_source"]


def test_graph_replay_cost_model_is_data_with_its_source():
    model = timeline_checks().graph_replay
    assert (model.fixed_s, model.per_node_s) == (15e-6, 0.58e-6)
    assert "ocannl" in model.source and "2026-07-30" in model.source and "CUDA 13.3" in model.source
    replay, saving, even = graph_saving(6.43e-6, 64, timeline_checks())
    assert (replay, saving, even) == (pytest.approx(52.12e-6), pytest.approx(359.4e-6), 3)
    assert graph_saving(0.5e-6, 64, timeline_checks())[2] is None  # a node costs more than a launch: never pays


# ------------------------------------------------------------------------------------------- N05: nsys stats
N05_COST_S = 3_201_638e-9 / 1010  # cudaLaunchKernel: total 3,201,638 ns over 1,010 calls (mean 3,169.9 ns)
# the launches then take the longer of the replay (15 + 0.58 x 1010 = 600.8 µs) and their kernels (1,831,281 ns):
N05_SAVING_S = 3_201_638e-9 - 1_831_281e-9  # 3201.638 - 1831.281 = 1370.357 µs


def _check_n05(rep) -> None:
    b = rep.launch_bound
    assert b.cost_source == "call_duration" and b.spacings == 0  # no timestamps: the call's own mean duration
    assert b.per_launch_s == pytest.approx(N05_COST_S) and b.per_launch_s == pytest.approx(3169.9e-9, abs=0.05e-9)
    assert b.kernel_s == pytest.approx(1813.1e-9, abs=0.05e-9)  # vectorAdd: 1,831,281 ns / 1,010 instances
    assert (b.launches, b.bound_launches, b.launch_bound) == (1010, 1010, True)
    assert b.predicted_saving_s == pytest.approx(1370.4e-6, abs=0.05e-6)
    assert b.predicted_saving_s == pytest.approx(N05_SAVING_S)
    assert b.break_even_nodes == 6  # ceil(15 / (3.16994 - 0.58))
    (f,) = [f for f in rep.findings if f.id == "launch_bound"]
    assert f.message.key == "tl_launch_bound_summary" and f.estimated_speedup is None
    assert "no wall time" in f.speedup_note
    for lang in ("en", "zh"):
        table = render_timeline([rep], "table", lang, width=400)
        assert "1.370 ms" in table
        assert ("launch call's own mean duration" if lang == "en" else "启动调用自身的平均耗时") in table
    validate(to_json([rep]))


def test_n05_stats_launch_bound_from_the_call_duration():
    _check_n05(analyse_summary(read_nsys_stats(need(CASES / "N05_nsys_stats_context_init.txt"))))


def test_n05_through_format_detection():
    """The same through ``load_timeline`` (the stats file is detected as nsys stats output)."""
    (rep,) = analyse(load_timeline(need(CASES / "N05_nsys_stats_context_init.txt")))
    _check_n05(rep)


# ------------------------------------------------------------------------------------------- per-launch spacing
def test_per_launch_cost_is_the_spacing_not_the_call_duration():
    rep = analyse_timeline(tl_from(launch_loop(40, spacing_us=10, call_us=1, kernel_us=2)))
    b = rep.launch_bound
    assert b.per_launch_s == pytest.approx(10e-6) and b.spacings == 39  # not the 1 µs call
    assert b.launch_bound and b.bound_launches == 40
    # the loop then takes the longer of the replay (15 + 0.58 x 40 = 38.2 µs) and its kernels (40 x 2 = 80 µs):
    # 400 - 80 = 320 µs, but the GPU waits only 396 - 80 = 316 µs of its 396 µs span (first kernel at 4 µs, last
    # ending at 394 + 2): a graph removes at most that
    assert b.predicted_saving_s == pytest.approx(min(40 * 10e-6 - 40 * 2e-6, 396e-6 - 80e-6))
    assert b.break_even_nodes == math.ceil(15 / (10 - 0.58))
    assert "launch_bound" in {f.id for f in rep.findings}


def test_spacing_per_thread_unsorted_rows_and_pauses():
    """Two host threads interleaved (8 and 12 µs cadence), rows in no order, and a long pause in one loop: the
    spacing is taken per thread, in time order, and the median ignores the pause."""
    a = launch_loop(30, spacing_us=8, call_us=2, kernel_us=1, thread=1, corr0=1)
    a += launch_loop(30, spacing_us=8, call_us=2, kernel_us=1, thread=1, corr0=100, t0=5_000 * US)  # after a pause
    b = launch_loop(21, spacing_us=12, call_us=2, kernel_us=1, thread=2, corr0=1000, t0=3 * US)
    rows = a + b
    rng = np.random.default_rng(0)
    shuffled = [rows[i] for i in rng.permutation(len(rows))]
    tl = tl_from(shuffled)
    calls = np.flatnonzero(tl.kind == RUNTIME_API)
    median, pairs = launch_spacing(tl, calls)
    assert pairs == 29 + 30 + 20  # within each thread only (the pause is one pair)
    expected = np.median([8 * US] * 58 + [5_000 * US - 29 * 8 * US] + [12 * US] * 20)
    assert median == pytest.approx(expected) and median == 8 * US
    assert analyse_timeline(tl).launch_bound.per_launch_s == pytest.approx(8e-6)


def test_gpu_bound_launch_queue_is_not_launch_bound():
    """Back-pressure: a full launch queue spaces the launches by the kernel time itself; not launch-bound."""
    rep = analyse_timeline(tl_from(launch_loop(50, spacing_us=100, call_us=99, kernel_us=99.5)))
    b = rep.launch_bound
    assert b.per_launch_s == pytest.approx(100e-6) and not b.launch_bound and b.bound_launches == 0
    assert "launch_bound" not in {f.id for f in rep.findings}


def test_graph_launches_are_not_in_the_spacing_and_one_call_has_none():
    rows = launch_loop(30, spacing_us=50, call_us=15, kernel_us=1, api="cudaGraphLaunch")  # one-node graphs
    rep = analyse_timeline(tl_from(rows))
    assert rep.graphs.kernels == 30 and rep.launch.graph_launches == 30
    assert rep.launch_bound is None  # no launch call of its own kernel: nothing to space
    one = analyse_timeline(tl_from(launch_loop(1, spacing_us=10, call_us=1, kernel_us=2)))
    assert one.launch_bound is None and one.launch.launches == 1


def test_graph_kernels_recorded_by_the_file_win_over_the_inference():
    """graph_launched 0 from the file: not a graph node even if one call started two kernels."""
    rows = [(0, 5 * US, RUNTIME_API, "cudaLaunchCooperativeKernelMultiDevice", -1, 1, 1),
            (10 * US, 20 * US, KERNEL, "k", 0, 7, 1, 0), (10 * US, 20 * US, KERNEL, "k", 1, 7, 1, 0)]
    rep = analyse_timeline(tl_from(rows))
    assert rep.graphs is None and rep.launch.graph_launches == 0 and rep.kernels[0].graph_launches == 0

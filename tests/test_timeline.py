"""Program-level timeline: the Timeline model, the analysis core (union vs sum, split, rankings, launch overhead,
gaps, tiny kernels, black hole, Amdahl, expert checks, ranks) on timelines built here, renderers and CLI."""

from __future__ import annotations

import json
import math
import random
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from conftest import REPO, SEEDS, SHARED, need
from kernelscope.cli import main
from kernelscope.errors import InputError
from kernelscope.ingest import detect_timeline_format, load_timeline
from kernelscope.render.timeline import render_timeline, to_json
from kernelscope.analysis.engine import Finding
from kernelscope.analysis.timeline import (
    TIMELINE_RULES,
    amdahl,
    amdahl_speedup,
    analyse,
    analyse_summary,
    analyse_timeline,
    time_and_count,
    union_length_ns,
    union_segments,
)
from kernelscope.knowledge import raw
from kernelscope.knowledge import validate as validate_data
from kernelscope.knowledge.timeline_checks import TimelineChecks, timeline_checks
from kernelscope.timeline_model import (
    COLUMN_DTYPES,
    COPY_HTOD,
    GPU_ANNOTATION,
    KERNEL,
    KIND_NAMES,
    MEMCPY,
    RUNTIME_API,
    InvalidRecord,
    LaunchArgs,
    SummaryRow,
    Timeline,
    TimelineSummary,
    merge_timelines,
)

US = 1000  # ns


def validate(doc: dict) -> None:
    """Check a timeline JSON document against the checked-in schema (skips without jsonschema)."""
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((REPO / "schemas" / "timeline-1.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(doc, schema, cls=jsonschema.Draft202012Validator)


def tl_from(rows, names, **kw) -> Timeline:
    """rows: (start_ns, end_ns, kind, name, device, stream, corr[, bytes, copy_kind, pageable, rank])."""
    cols = {k: [] for k in ("start_ns", "end_ns", "kind", "name_id", "device", "stream", "correlation_id", "bytes",
                            "copy_kind", "pageable", "rank")}
    for r in rows:
        r = tuple(r) + (-1, 0, -1, -1)[len(r) - 7:] if len(r) < 11 else tuple(r)
        s, e, k, nm, dev, st, corr, b, ck, pg, rk = r
        for key, v in zip(cols, (s, e, k, names.index(nm), dev, st, corr, b, ck, pg, rk)):
            cols[key].append(v)
    return Timeline(path="synthetic", format="test", names=tuple(names), **cols, **kw)


# ------------------------------------------------------------------------------------------------ model
def test_model_columns_dtypes_and_read_only():
    tl = tl_from([(0, 10, KERNEL, "k", 0, 7, 1)], ["k"])
    assert tuple(COLUMN_DTYPES) == ("start_ns", "end_ns", "kind", "name_id", "device", "stream", "correlation_id",
                                    "bytes", "copy_kind", "pageable", "rank", "graph_launched")
    for name, dtype in COLUMN_DTYPES.items():
        arr = getattr(tl, name)
        assert arr.dtype == dtype and not arr.flags.writeable
    assert KIND_NAMES[:6] == ("kernel", "memcpy", "memset", "sync", "runtime_api", "annotation")
    with pytest.raises(ValueError):
        tl.start_ns[0] = 5


def test_model_defaults_validation_and_no_copy():
    start = np.array([0, 5], dtype=np.int64)
    tl = Timeline(path="p", format="f", names=("a",), start_ns=start, end_ns=start + 1, kind=[0, 0], name_id=[0, 0])
    assert tl.rank.tolist() == [-1, -1] and tl.bytes.tolist() == [-1, -1] and tl.pageable.tolist() == [-1, -1]
    assert np.shares_memory(tl.start_ns, start) and start.flags.writeable  # a read-only view, the caller's array untouched
    with pytest.raises(ValueError, match="has 1 elements, expected 2"):
        Timeline(path="p", format="f", names=("a",), start_ns=start, end_ns=[1], kind=[0, 0], name_id=[0, 0])
    with pytest.raises(ValueError, match="name_id points outside"):
        Timeline(path="p", format="f", names=("a",), start_ns=start, end_ns=start, kind=[0, 0], name_id=[0, 3])


def test_merge_timelines_remaps_names_and_keeps_ranks():
    a = tl_from([(0, 10, KERNEL, "x", 0, 7, 1, -1, 0, -1, 0)], ["x"], devices=((0, "GPU A"),))
    b = tl_from([(0, 20, KERNEL, "y", 0, 7, 1, -1, 0, -1, 1), (30, 40, KERNEL, "x", 0, 7, 2, -1, 0, -1, 1)], ["y", "x"],
                devices=((0, "GPU A"),), invalid=(InvalidRecord("kernel", "z", "ts 0"),))
    m = merge_timelines([a, b], path="both")
    assert m.names == ("x", "y") and [m.names[i] for i in m.name_id] == ["x", "y", "x"]
    assert m.rank.tolist() == [0, 1, 1] and m.devices == ((0, "GPU A"),) and m.invalid_count == 1


# ------------------------------------------------------------------------------------------------ union core
def _py_union(iv):
    total, cur = 0, None
    for s, e in sorted(iv):
        if cur is None or s > cur[1]:
            if cur:
                total += cur[1] - cur[0]
            cur = [s, e]
        else:
            cur[1] = max(cur[1], e)
    return total + (cur[1] - cur[0] if cur else 0)


def test_union_matches_plain_python_on_random_intervals():
    rng = random.Random(5)
    for _ in range(200):
        iv = [(s, s + rng.randint(0, 50)) for s in (rng.randint(0, 400) for _ in range(rng.randint(1, 40)))]
        s = np.array([a for a, _ in iv], dtype=np.int64)
        e = np.array([b for _, b in iv], dtype=np.int64)
        assert union_length_ns(s, e) == _py_union(iv)
        seg_s, seg_e = union_segments(s, e)
        assert (seg_s[1:] > seg_e[:-1]).all()  # disjoint, sorted


# ------------------------------------------------------------------------------------------------ Amdahl (seed)
def test_amdahl_seed_example():
    """Seed 003: a kernel taking 10% of the time made 10x faster makes the whole program only ~9% faster;
    at 60% the same effort is worth more than five times as much."""
    text = need(SEEDS / "003_0fc95ced349178b3.txt").read_text(encoding="utf-8")
    assert "10%" in text and "10 倍" in text and "约 9%" in text
    a = amdahl(0.10, [10.0])
    assert a.saved_fraction[0] == pytest.approx(0.09)  # 9% of the time saved
    assert a.speedups[0] == pytest.approx(1 / 0.91)  # 1.099x
    assert amdahl_speedup(0.10, math.inf) == pytest.approx(1 / 0.9)
    big = amdahl(0.60, [10.0])
    assert big.saved_fraction[0] / a.saved_fraction[0] == pytest.approx(6.0)  # "5 倍以上"
    assert amdahl_speedup(1.0, math.inf) == math.inf
    default = amdahl(0.5)
    assert default.factors == (2.0, 10.0, math.inf)
    assert default.speedups == pytest.approx((4 / 3, 1 / 0.55, 2.0))


def test_amdahl_on_a_timeline_item():
    # one 10 us kernel in a 100 us program: 10% of the time
    tl = tl_from([(0, 90 * US, RUNTIME_API, "cudaMalloc", -1, 1, -1), (90 * US, 100 * US, KERNEL, "k", 0, 7, 5)],
                 ["cudaMalloc", "k"])
    rep = analyse_timeline(tl)
    (k,) = rep.kernels
    assert k.program_fraction == pytest.approx(0.10)
    assert k.amdahl.saved_fraction[1] == pytest.approx(0.09)
    assert rep.black_hole.category == "gpu_idle" and rep.black_hole.host_api == "cudaMalloc"
    assert rep.black_hole.host_api_s == pytest.approx(90e-6)


# ------------------------------------------------------------------------------------------------ split
def test_split_streams_copies_memsets_and_annotations():
    names = ["a", "b", "[CUDA memcpy HtoD]", "[CUDA memset]", "nccl:all_reduce", "sync"]
    rows = [
        (0, 100, KERNEL, "a", 0, 7, 1),
        (50, 150, KERNEL, "b", 0, 8, 2),  # overlaps a by 50
        (140, 200, MEMCPY, "[CUDA memcpy HtoD]", 0, 9, 3, 1000, COPY_HTOD, 1, -1),  # 10 under b, 50 alone
        (300, 310, 2, "[CUDA memset]", 0, 7, 4),  # memset alone
        (40, 160, GPU_ANNOTATION, "nccl:all_reduce", 0, 8, -1),  # encloses kernels: never busy (C17)
        (0, 400, 3, "sync", 0, -1, -1),  # host-side wait
    ]
    rep = analyse_timeline(tl_from(rows, names))
    (d,) = rep.devices
    assert (d.span_s, d.busy_s) == (pytest.approx(310e-9), pytest.approx(210e-9))
    assert d.kernel_s == pytest.approx(150e-9) and d.memcpy_s == pytest.approx(50e-9)
    assert d.memset_s == pytest.approx(10e-9) and d.idle_s == pytest.approx(100e-9)
    assert d.kernel_s + d.memcpy_s + d.memset_s + d.idle_s == pytest.approx(d.span_s)
    assert d.sum_over_streams_s == pytest.approx(270e-9) and d.overlap_s == pytest.approx(60e-9)
    assert d.copy_compute_overlap_s == pytest.approx(10e-9)
    assert d.sync_s == pytest.approx(400e-9)
    assert d.largest_gap_s == pytest.approx(100e-9) and d.largest_gap_start_ns == 200
    assert {s.stream for s in rep.streams} == {7, 8, 9}
    assert rep.kernel_time_s == pytest.approx(200e-9)  # annotation time never counted
    assert [c.name for c in rep.copies] == ["[CUDA memcpy HtoD]"] and rep.copies[0].bytes == 1000
    assert rep.devices[0].gaps.overlapping == 1


def test_invalid_records_are_carried_not_used():
    inv = (InvalidRecord("kernel", "volta_sgemm", "no GPU timing (ts 0, dur 0); launch seen", 1, (102,)),)
    rep = analyse_timeline(tl_from([(1000, 1250, KERNEL, "volta_sgemm", 0, 7, 101)], ["volta_sgemm"], invalid=inv))
    assert rep.invalid == inv and any(n.key == "tl_invalid_records" for n in rep.notes)
    assert rep.devices[0].span_s == pytest.approx(250e-9)


def test_launch_overhead_gap_histogram_and_tiny_kernels():
    names = ["cudaLaunchKernel", "tiny", "big"]
    rows = []
    t = 0
    for i in range(40):  # 40 x (4 us launch call, 2 us kernel, 10 us apart on the GPU)
        rows.append((t, t + 4 * US, RUNTIME_API, "cudaLaunchKernel", -1, 1, 1000 + i))
        rows.append((t + 6 * US, t + 8 * US, KERNEL, "tiny", 0, 7, 1000 + i))
        t += 10 * US
    rows.append((t, t + 4 * US, RUNTIME_API, "cudaLaunchKernel", -1, 1, 5000))
    rows.append((t + 6 * US, t + 1006 * US, KERNEL, "big", 0, 7, 5000))
    rep = analyse_timeline(tl_from(rows, names))
    L = rep.launch
    assert (L.matched, L.unmatched) == (41, 0)
    assert L.latency_median_s == pytest.approx(6e-6) and L.api_median_s == pytest.approx(4e-6)
    gaps = rep.devices[0].gaps
    assert gaps.counts[1] == 40 and gaps.totals_s[1] == pytest.approx(40 * 8e-6)  # 8 us gaps: 1-10 us bin
    (tiny,) = rep.tiny_kernels
    assert tiny.name == "tiny" and tiny.launches == 40 and tiny.launch_cost_s == pytest.approx(4e-6)
    assert tiny.savings_s == pytest.approx(39 * 4e-6)  # each 8 us gap capped at the 4 us launch cost; first has none
    # one concern, one finding: launch_bound (2 us kernels, a launch every 10 us; it prices the CUDA graph) stands
    # for the tiny kernels
    ids = [f.id for f in rep.findings]
    assert "launch_bound" in ids and "tiny_kernels" not in ids


def test_tiny_kernels_finding_without_a_launch_bound_loop():
    # 40 x (4 us call every 4 us, 3.9 us kernels back to back): the queue is full (kernel 3.9 us >= 0.9 x the 4 us
    # spacing: not launch-bound) but each kernel is about as long as its launch cost: the tiny-kernel finding
    names = ["cudaLaunchKernel", "tiny"]
    rows = []
    for i in range(40):
        t = i * 4 * US
        rows.append((t, t + 4 * US, RUNTIME_API, "cudaLaunchKernel", -1, 1, 1000 + i))
        rows.append((t + 5 * US, t + 5 * US + 3900, KERNEL, "tiny", 0, 7, 1000 + i))
    rep = analyse_timeline(tl_from(rows, names))
    ids = [f.id for f in rep.findings]
    assert "launch_bound" not in ids
    (f,) = [f for f in rep.findings if f.id == "tiny_kernels"]
    assert isinstance(f, Finding) and f.severity == "optimization"
    assert time_and_count(f) == (pytest.approx(39 * 100e-9), 40)  # 0.1 us gaps before each launch but the first
    wall = rep.program_time_s
    assert f.estimated_speedup == pytest.approx(wall / (wall - 39 * 100e-9))
    assert {e.metric for e in f.evidence} >= {"tiny_kernels.savings", "tiny_kernels.launches", "program_time"}


def test_gpu_gap_and_low_utilisation_checks():
    rows = [(0, 100 * US, KERNEL, "k", 0, 7, 1), (700_000 * US, 700_100 * US, KERNEL, "k", 0, 7, 2)]
    rep = analyse_timeline(tl_from(rows, ["k"]))
    rules = {f.id: f for f in rep.findings}
    assert time_and_count(rules["gpu_gaps"]) == (pytest.approx(0.6999), 1)
    assert "500 ms" in rules["gpu_gaps"].source
    # one GPU: its gap is time with no GPU work, so the program would run wall / (wall - gap) times faster
    assert rules["gpu_gaps"].estimated_speedup == pytest.approx(0.7001 / (0.7001 - 0.6999))
    low = rules["low_utilisation"]
    assert low.message.values["low"] >= 28 and low.message.values["util"] < 1
    assert time_and_count(low) == (pytest.approx(0.6999), low.message.values["low"])


def test_sync_memcpy_rule_excludes_small_htod_and_names_api():
    names = ["cudaMemcpy_v3020", "cudaMemcpy", "cudaMemcpyAsync", "[CUDA memcpy HtoD]"]
    rows = [
        (0, 10, RUNTIME_API, "cudaMemcpy", -1, 1, 1), (2, 8, MEMCPY, "[CUDA memcpy HtoD]", 0, 7, 1, 1 << 20, COPY_HTOD, 0, -1),
        (20, 30, RUNTIME_API, "cudaMemcpy", -1, 1, 2), (22, 28, MEMCPY, "[CUDA memcpy HtoD]", 0, 7, 2, 4096, COPY_HTOD, 0, -1),
        (40, 50, RUNTIME_API, "cudaMemcpyAsync", -1, 1, 3), (42, 48, MEMCPY, "[CUDA memcpy HtoD]", 0, 7, 3, 1 << 20, COPY_HTOD, 1, -1),
    ]
    rep = analyse_timeline(tl_from(rows, names))
    f = {x.id: x for x in rep.findings}
    assert time_and_count(f["sync_memcpy"]) == (pytest.approx(6e-9), 1)
    assert f["sync_memcpy"].message.values["apis"] == "cudaMemcpy"
    assert time_and_count(f["pageable_memcpy"])[1] == 1 and f["pageable_memcpy"].message.values["n_async"] == 1
    # making a copy asynchronous does not remove it: no estimate, and the reason
    assert f["sync_memcpy"].estimated_speedup is None and "asynchronous" in f["sync_memcpy"].speedup_note


def test_multi_rank_side_by_side_and_slowest():
    names = ["gemm", "ncclKernel_AllReduce"]
    rows = []
    for rank, compute in ((0, 100), (1, 160), (2, 120)):
        rows.append((0, compute * US, KERNEL, "gemm", 0, 7, 1, -1, 0, -1, rank))
        rows.append((compute * US, 200 * US, KERNEL, "ncclKernel_AllReduce", 0, 20, 2, -1, 0, -1, rank))
    rep = analyse_timeline(tl_from(rows, names))
    assert [r.rank for r in rep.ranks] == [0, 1, 2]
    assert rep.slowest_rank == 1
    r1 = rep.ranks[1]
    assert r1.computation_s == pytest.approx(160e-6) and r1.communication_s == pytest.approx(40e-6)
    # all-reduce 100 / 40 / 80 us: the last to arrive (rank 1) waits 0, the others 60 and 40 us
    assert [r.collective_wait_s for r in rep.ranks] == pytest.approx([60e-6, 0.0, 40e-6])
    assert [r.own_s for r in rep.ranks] == pytest.approx([140e-6, 200e-6, 160e-6])
    note = next(n for n in rep.notes if n.key == "tl_straggler_rank")
    assert note.values["rank"] == 1 and note.values["wait_s"] == 0.0
    # the black hole's share is of the same program time as the rankings' (the summed rank walls)
    assert rep.black_hole.name == "gemm" and rep.black_hole.program_fraction == rep.kernels[0].program_fraction
    assert len(rep.devices) == 3 and all(d.utilisation_pct == pytest.approx(100.0) for d in rep.devices)


def test_kernel_rankings_carry_the_most_common_launch_shape():
    rows = [(i * 100, i * 100 + 50, KERNEL, "gemm" if i < 5 else "relu", 0, 7, i) for i in range(7)]
    tl = tl_from(rows, ["gemm", "relu"])
    n = len(tl)
    grid = np.array([[64, 1, 1], [64, 1, 1], [128, 1, 1], [64, 1, 1], [-1, -1, -1], [-1, -1, -1], [-1, -1, -1]])
    launch = LaunchArgs(grid_x=grid[:, 0], grid_y=grid[:, 1], grid_z=grid[:, 2], block_x=[256, 256, 256, 256, -1, -1, -1],
                        block_y=[1] * 4 + [-1] * 3, block_z=[1] * 4 + [-1] * 3, registers_per_thread=[32, 32, 40, 32, -1, -1, -1],
                        shared_mem_bytes=np.full(n, -1), dynamic_shared_mem_bytes=np.full(n, -1), warps_per_sm=np.full(n, np.nan))
    rep = analyse_timeline(replace(tl, launch=launch))
    by_name = {k.name: k for k in rep.kernels}
    shape = by_name["gemm"].launch
    assert (shape.grid, shape.block, shape.registers_per_thread) == ((64, 1, 1), (256, 1, 1), 32)
    assert (shape.launches, shape.recorded, shape.shapes) == (3, 4, 2)  # 3 of the 4 recorded launches; 2 shapes seen
    assert by_name["relu"].launch is None  # no launch args recorded for it
    assert analyse_timeline(tl).kernels[0].launch is None  # a trace without launch args
    k = to_json([rep])["reports"][0]["kernels"]
    assert {x["name"]: x["launch"] for x in k}["gemm"] == {"grid": [64, 1, 1], "block": [256, 1, 1],
                                                           "registers_per_thread": 32, "launches": 3, "recorded": 4, "shapes": 2}


def test_json_never_writes_inf_and_text_says_infinity():
    # one kernel is the whole program: removing it makes the program infinitely faster
    rep = analyse_timeline(tl_from([(0, 100 * US, KERNEL, "k", 0, 7, 1)], ["k"]))
    assert math.isinf(rep.kernels[0].amdahl.speedups[-1])
    text = render_timeline([rep], "json", "en")
    assert '"inf"' not in text and "Infinity" not in text and "NaN" not in text
    doc = json.loads(text)
    validate(doc)
    a = doc["reports"][0]["kernels"][0]["amdahl"]
    assert a["speedups"][-1] is None and a["speedups_null_reason"] == "unbounded"
    assert a["factors"][-1] is None and a["factors_null_reason"] == "gone"
    for lang in ("en", "zh"):
        table = render_timeline([rep], "table", lang)
        assert "∞" in table and "inf" not in table


def test_timeline_checks_are_validated_data():
    checks = timeline_checks()
    assert checks.gpu_gaps.min_gap_s == 0.5 and "500 ms" in checks.gpu_gaps.source
    assert checks.amdahl.factors == (2.0, 10.0) and checks.ranks.communication.search("ncclKernel_AllReduce")
    data = dict(raw("timeline_rules.toml"))
    for broken in ({**data, "gpu_gap": {}}, {**data, "gpu_gaps": {"min_gap_s": 0.5}},
                   {**data, "amdahl": {"factors": [0.5], "source": "x"}},
                   {**data, "ranks": {"communication_regex": "(", "source": "x"}}):
        with pytest.raises(InputError, match="^timeline_rules.toml: field '"):
            validate_data(broken, TimelineChecks, "timeline_rules.toml")
    assert [r.id for r in TIMELINE_RULES] == ["sync_memcpy", "pageable_memcpy", "sync_memset", "gpu_gaps",
                                              "host_gaps", "low_utilisation", "launch_bound", "tiny_kernels"]


# ------------------------------------------------------------------------------------------------ summaries
def test_summary_analysis_states_what_it_cannot_compute():
    s = TimelineSummary(path="s.txt", format="nsys-stats", rows=(
        SummaryRow("kernel", "k1", 10, 0.9, 0.09), SummaryRow("kernel", "k2", 5, 0.1, 0.02),
        SummaryRow("runtime_api", "cudaMemcpy", 3, 0.5), SummaryRow("runtime_api", "cudaLaunchKernel", 15, 0.01)))
    rep = analyse_summary(s)
    assert rep.source == "summary" and rep.wall_s is None and rep.program_time_s == pytest.approx(1.0)
    assert rep.kernels[1].amdahl.saved_fraction[1] == pytest.approx(0.09)  # k2 = 10% of the GPU time
    assert {"idle", "utilisation", "overlap", "launch_overhead", "gaps"} <= set(rep.not_computable)
    assert rep.devices == () and rep.black_hole.name == "k1"
    assert [f.id for f in rep.findings] == ["sync_memcpy"]
    assert rep.findings[0].message.key == "tl_sync_memcpy_summary"  # the same rule, from per-name totals
    assert time_and_count(rep.findings[0]) == (pytest.approx(0.5), 3)
    assert analyse(s)[0].kernels == rep.kernels


# ------------------------------------------------------------------------------------------------ rendering / CLI
def _sample_report():
    names = ["cudaLaunchKernel", "gemm_kernel", "[CUDA memcpy HtoD]"]
    rows = [(0, 5 * US, RUNTIME_API, "cudaLaunchKernel", -1, 1, 1), (6 * US, 50 * US, KERNEL, "gemm_kernel", 0, 7, 1),
            (60 * US, 90 * US, MEMCPY, "[CUDA memcpy HtoD]", 0, 7, -1, 1 << 20, COPY_HTOD, 1, -1)]
    return analyse_timeline(tl_from(rows, names, devices=((0, "NVIDIA H100"),)))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_renderers(lang):
    rep = _sample_report()
    table = render_timeline([rep], "table", lang)
    assert "gemm_kernel" in table and ("Largest time black hole" in table if lang == "en" else "最大耗时项" in table)
    md = render_timeline([rep], "markdown", lang)
    assert md.startswith("## ") and "| `gemm_kernel` |" in md
    doc = json.loads(render_timeline([rep], "json", lang))
    validate(doc)
    assert doc["schema"] == "kernelscope.timeline/1"
    assert doc["lang"] == lang and "language" not in doc  # named as in the diagnosis and compare documents
    r = doc["reports"][0]
    assert r["devices"][0]["utilisation_pct"] <= 100 and "kernel_s" in r["devices"][0]
    assert r["kernels"][0]["amdahl"]["factors"][-1] is None
    assert r["kernels"][0]["amdahl"]["factors_null_reason"] == "gone"
    assert "speedups_null_reason" not in r["kernels"][0]["amdahl"]  # a reason only beside a null
    assert r["gap_edges_s"][-1] is None and r["gap_edges_s_null_reason"] == "open_ended"
    fd = r["findings"][0]
    assert fd["note"]["text"] and fd["rule"] == "pageable_memcpy" and fd["count"] == 1
    assert fd["time_s"] == pytest.approx(30e-6) and fd["severity"] == "optimization"
    assert fd["evidence"][0] == {"metric": "pageable_memcpy.copy_time", "value": pytest.approx(30e-6), "unit": "s"}
    assert fd["estimated_speedup"] is None and fd["speedup_note"]
    # the common finding shape (as in diagnose), with the keys of earlier timeline documents beside it
    assert fd["id"] == fd["rule"] and fd["message"] == fd["note"] and fd["bound"] is None
    with pytest.raises(ValueError):
        render_timeline([rep], "html", lang)


def test_json_has_no_numpy_scalars():
    # json.dumps raises TypeError on a NumPy scalar; the round trip must give back plain numbers
    doc = json.loads(json.dumps(to_json([_sample_report()])))
    assert isinstance(doc, dict) and doc
    assert doc == json.loads(render_timeline([_sample_report()], "json", "en"))  # one document, two spellings


def test_json_nan_is_null_with_its_reason():
    rep = _sample_report()
    k = rep.kernels[0]
    broken = replace(k, amdahl=replace(k.amdahl, speedups=(np.float64("nan"),) + k.amdahl.speedups[1:]))
    doc = json.loads(render_timeline([replace(rep, kernels=(broken,))], "json", "en"))
    validate(doc)
    a = doc["reports"][0]["kernels"][0]["amdahl"]
    assert a["speedups"][0] is None and a["speedups_null_reason"] == "not_a_number"


CORPUS_TIMELINES = [p for d in ("nsys", "torch_traces") if (SHARED / "corpus" / d).is_dir()
                    for p in sorted((SHARED / "corpus" / d).iterdir()) if p.name != "README.md"]
_NO_CORPUS = f"shared corpus not available: {SHARED / 'corpus'} has no nsys/ or torch_traces/ (../shared is absent)"


@pytest.mark.parametrize("path", CORPUS_TIMELINES or [pytest.param(None, marks=pytest.mark.skip(reason=_NO_CORPUS))],
                         ids=lambda p: p.name if isinstance(p, Path) else "absent")
def test_corpus_json_matches_the_schema(path):
    """The JSON of every corpus timeline kernelscope reads validates against schemas/timeline-1.schema.json and
    holds no non-finite number as a string."""
    from test_schemas import non_finite_strings

    try:
        reports = analyse(load_timeline(path))
    except InputError as e:  # refused with a reason (test_nsys / test_kineto check which and why)
        pytest.skip(f"kernelscope does not read {path.name}: {str(e)[:120]}")
    for lang in ("en", "zh"):
        text = render_timeline(reports, "json", lang)
        assert "Infinity" not in text and "NaN" not in text
        doc = json.loads(text)
        validate(doc)
        assert non_finite_strings(doc) == []


def test_cli_errors_are_one_line(tmp_path, capsys):
    missing = tmp_path / "nope.sqlite"
    assert main(["timeline", str(missing)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "file not found" in err
    odd = tmp_path / "x.bin"
    odd.write_bytes(b"\x00\x01garbage")
    assert main(["timeline", str(odd)]) == 2
    assert "unrecognised timeline input" in capsys.readouterr().err
    rep = tmp_path / "r.nsys-rep"
    rep.write_bytes(b"\x00" * 64)
    assert main(["timeline", str(rep)]) == 2
    assert "nsys export --type sqlite" in capsys.readouterr().err


def test_cli_output_file(tmp_path, capsys):
    stats = tmp_path / "s.txt"
    stats.write_text(" Time (%)  Total Time (ns)  Instances  Avg (ns)  Med (ns)  Min (ns)  Max (ns)  StdDev (ns)  Name\n"
                     " --------  ---------------  ---------  --------  --------  --------  --------  -----------  ----\n"
                     "    100.0        1,000,000         10 100,000.0 100,000.0    90,000   110,000      5,000.0  k\n",
                     encoding="utf-8")
    out = tmp_path / "o.md"
    assert main(["timeline", str(stats), "--format", "markdown", "--lang", "zh", "-o", str(out), "--top", "3"]) == 0
    text = out.read_text(encoding="utf-8")
    assert "程序耗时分布" in text and "| `k` |" in text


def test_detection_routes_traces_to_kineto(tmp_path):
    for name in ("a.json", "a.json.gz", "a.tar.gz"):
        p = tmp_path / name
        p.write_bytes(b"{}")
        assert detect_timeline_format(p) == "kineto"
    assert detect_timeline_format(tmp_path) == "kineto"


def test_low_utilisation_above_threshold_overall_says_so_and_saves_only_its_low_slices():
    """Busy 90 % of the span: the 50 % rule fires only on its low slices and says the device is not below 50 %
    overall. Span 0..3000 µs, 30 slices of 100 µs; kernels 0..1300 and 1600..3000 µs: busy 2700 / 3000 = 90 %;
    slices 13, 14, 15 idle (3 low), 300 µs idle in them (all of the device's idle time)."""
    rows = [(0, 1300 * US, KERNEL, "k", 0, 7, 1), (1600 * US, 3000 * US, KERNEL, "k", 0, 7, 2)]
    rep = analyse_timeline(tl_from(rows, ["k"]))
    (low,) = [f for f in rep.findings if f.id == "low_utilisation"]
    assert low.message.key == "tl_low_utilisation_slices"
    assert low.message.values["util"] == pytest.approx(90.0) and low.message.values["low"] == 3
    assert low.message.values["idle_s"] == pytest.approx(300e-6)
    assert "not below 50%" in render_timeline([rep], "table", "en", width=400)
    # a device busy only 10 % of its span is below the threshold overall: the plain note
    rows = [(0, 100 * US, KERNEL, "k", 0, 7, 1), (900 * US, 1000 * US, KERNEL, "k", 0, 7, 2)]
    (low,) = [f for f in analyse_timeline(tl_from(rows, ["k"])).findings if f.id == "low_utilisation"]
    assert low.message.key == "tl_low_utilisation" and low.message.values["util"] == pytest.approx(20.0)

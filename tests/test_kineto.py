"""PyTorch profiler / Kineto Chrome traces: cases C03, C17, C21, every corpus trace (checked against an independent
stdlib-json computation), hand-summed events on small traces the tests write (both category spellings, integer
and string ``tid``, gz, directory, tar), exact ns conversion, chunk boundaries, and unsafe archives."""

from __future__ import annotations

import gc
import gzip
import io
import json
import tarfile
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest

from conftest import CASES, SHARED, need
from kernelscope.cli import main
from kernelscope.errors import InputError
from kernelscope.ingest import detect_timeline_format, kineto, load_timeline
from kernelscope.ingest.kineto import read_kineto
from kernelscope.analysis.occupancy import occupancy
from kernelscope.analysis.timeline import analyse_timeline
from kernelscope.timeline_model import (
    ANNOTATION,
    COLUMN_DTYPES,
    COPY_DTOH,
    COPY_HTOD,
    CPU_OP,
    GPU_ANNOTATION,
    KERNEL,
    MEMCPY,
    MEMSET,
    RUNTIME_API,
    SYNC,
)

TORCH = SHARED / "corpus" / "torch_traces"
US = 1e-6

#: Kernel counts per corpus file, from the corpus README's table ("Kernels = events with cat kernel").
README_KERNELS = {
    "hta_alexnet_a100_rank0_trace.json.gz": 79,
    "hta_cupti_profiler_a100.json.gz": 0,
    "hta_nccl_data_a100_rank0.json.gz": 2700,
    "hta_ns_resolution_v100_rank-0.pt.trace.json.gz": 4350,
    "hta_trace_filter_sampled_rank-0.json.gz": 1154,
    "hta_trace_filter_sampled_rank-1.json.gz": 1104,
    "hta_triton_example_a100.json.gz": 1,
    "kineto_docs_before_fix_trace_h100.json": 1,
    "kineto_tbplugin_resnet50_2021-01_worker0.pt.trace.json.gz": 9564,
    "kineto_tbplugin_test_gpu_metrics_input.json": 30,
    "param_dlrm_kineto_8rank_v100.tar.gz": 2104,
}
#: Kernels per rank of the 8-rank DLRM archive (one file per rank).
DLRM_RANK_KERNELS = {0: 245, 1: 310, 2: 246, 3: 315, 4: 251, 5: 245, 6: 246, 7: 246}


# ------------------------------------------------------------------------------------------------ helpers
def ev(cat, name, ts, dur, *, pid=0, tid=7, ph="X", **args):
    e = {"ph": ph, "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts}
    if dur is not None:
        e["dur"] = dur
    if args:
        e["args"] = {k.replace("_", " ") if k in ("registers_per_thread", "shared_memory") else k: v
                     for k, v in args.items()}
    return e


def doc(events, **top):
    return {"schemaVersion": 1, **top, "traceEvents": events}


def write(path: Path, d, *, gz=False, pretty=False) -> Path:
    text = json.dumps(d, indent=2 if pretty else None).encode()
    path.write_bytes(gzip.compress(text) if gz else text)
    return path


def py_union(intervals) -> int:
    """Union length the plain way (sort, sweep), independent of kernelscope."""
    total = 0
    cur_s = cur_e = None
    for s, e in sorted(intervals):
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    if cur_e is not None:
        total += cur_e - cur_s
    return total


def columns_equal(a, b) -> bool:
    return all(np.array_equal(getattr(a, c), getattr(b, c)) for c in COLUMN_DTYPES if c != "name_id") and \
        [a.names[i] for i in a.name_id] == [b.names[i] for i in b.name_id]


def kinds_sum(tl, kind) -> tuple[int, int]:
    m = tl.kind == kind
    return int(m.sum()), int((tl.end_ns[m] - tl.start_ns[m]).sum())


# ------------------------------------------------------------------------------------------------ case C03
def test_c03_ts0_kernel_counted_named_not_used():
    tl = read_kineto(need(CASES / "C03_kineto_ts0_kernel.json"))
    assert kinds_sum(tl, KERNEL) == (2, 550_000)
    (bad,) = tl.invalid
    assert (bad.kind, bad.name, bad.count, bad.correlation_ids) == ("kernel", "volta_sgemm_64x64_nt", 1, (102,))
    assert "no GPU timing" in bad.reason and "launch seen" in bad.reason
    assert tl.devices == ((0, "Tesla V100-SXM2-16GB"),)
    k = tl.kind == KERNEL
    assert tl.start_ns[k].min() == 1615207264504020 * 1000  # never 0
    assert set(tl.stream[k].tolist()) == {7} and set(tl.correlation_id[k].tolist()) == {101, 103}
    rep = analyse_timeline(tl)
    (d,) = rep.devices
    assert d.span_s == pytest.approx(2310 * US, abs=1e-12)  # 1615207264504020 -> ...506330 µs
    assert (d.start_ns, d.end_ns) == (1615207264504020000, 1615207264506330000)
    assert d.kernel_s == pytest.approx(550 * US, abs=1e-12)
    assert d.gaps.overlapping == 0 and all(t >= 0 for t in d.gaps.totals_s)  # no negative gaps
    assert sum(d.gaps.counts) == 1
    assert rep.invalid == tl.invalid


def test_c03_launch_args_secondary_check():
    tl = read_kineto(need(CASES / "C03_kineto_ts0_kernel.json"))
    la = tl.launch
    assert la is not None
    k = np.flatnonzero(tl.kind == KERNEL)
    assert la.grid_x[k].tolist() == [4, 4] and la.grid_y[k].tolist() == [4, 4] and la.grid_z[k].tolist() == [36, 36]
    assert la.block_x[k].tolist() == [64, 64] and la.registers_per_thread[k].tolist() == [126, 126]
    assert la.shared_mem_bytes[k].tolist() == [8192, 8192]
    assert la.warps_per_sm[k].tolist() == [14.4, 14.4]
    assert (la.grid_x[tl.kind != KERNEL] == -1).all() and np.isnan(la.warps_per_sm[tl.kind != KERNEL]).all()
    # 4*4*36 blocks x 2 warps / 80 SMs = 14.4 warps per SM; the launch can reach 14.4/64 = 22.5 % of the SM,
    # under the 25 % theoretical occupancy of 126 registers x 64 threads + 8192 B (case C02)
    blocks = 4 * 4 * 36
    assert blocks * (64 // 32) / 80 == pytest.approx(float(la.warps_per_sm[k[0]]))
    occ = occupancy((7, 0), 64, 126, 8192)
    assert occ.occupancy_pct == pytest.approx(25.0)
    assert float(la.warps_per_sm[k[0]]) / occ.max_warps_per_sm == pytest.approx(0.225)


# ------------------------------------------------------------------------------------------------ case C17
def test_c17_gpu_user_annotations_are_never_busy_time():
    tl = read_kineto(need(CASES / "C17_kineto_gpu_user_annotation.json"))
    assert kinds_sum(tl, KERNEL) == (2, 80_000)
    assert kinds_sum(tl, GPU_ANNOTATION) == (2, 88_000)  # naive sum with them: 168 µs
    rep = analyse_timeline(tl)
    (d,) = rep.devices
    assert d.kernel_s == pytest.approx(80 * US, abs=1e-12)
    assert d.busy_s == pytest.approx(80 * US, abs=1e-12)
    assert d.sum_over_streams_s == pytest.approx(80 * US, abs=1e-12)
    assert rep.kernel_time_s == pytest.approx(80 * US, abs=1e-12)
    # the annotations are kept with their names (nccl:all_reduce encloses the 50 µs kernel)
    ann = {tl.names[i] for i in tl.name_id[tl.kind == GPU_ANNOTATION]}
    assert ann == {"nccl:all_reduce", "nccl:barrier"}


# ------------------------------------------------------------------------------------------------ case C21
@pytest.mark.parametrize("name,kernel_us", [("C03_kineto_ts0_kernel.json", 550),
                                            ("C17_kineto_gpu_user_annotation.json", 80)])
def test_c21_no_distributed_info_is_one_rank_not_recorded(name, kernel_us, capsys):
    path = need(CASES / name)
    tl = read_kineto(path)
    assert (tl.rank == -1).all()
    assert tl.meta["rank"] == "not recorded"
    rep = analyse_timeline(tl)
    assert len(rep.ranks) == 1 and rep.ranks[0].rank is None and rep.slowest_rank is None
    assert rep.ranks[0].kernel_s == pytest.approx(kernel_us * US, abs=1e-12)
    assert any(n.key == "tl_rank_not_recorded" for n in rep.notes)
    assert main(["timeline", str(path)]) == 0
    out = capsys.readouterr().out
    assert "records no rank" in out


# ------------------------------------------------------------------------------------------------ corpus
def corpus_traces() -> list:
    if TORCH.is_dir():
        return sorted(TORCH.iterdir())
    return [pytest.param(None, marks=pytest.mark.skip(
        reason=f"shared inputs not available: {TORCH} is absent (it lives beside the checkout in ../shared)"))]


def test_corpus_listing_matches_readme():
    need(TORCH)
    assert sorted(p.name for p in corpus_traces()) == sorted(README_KERNELS)


@pytest.mark.parametrize("path", corpus_traces(), ids=lambda p: p.name if p else "corpus")
def test_every_corpus_trace_analysed_or_refused(path):
    expected = README_KERNELS[path.name]
    if expected == 0:
        with pytest.raises(InputError, match="recorded no GPU activity") as exc:
            load_timeline(path)
        assert "cuda_profiler_range" in str(exc.value)
        return
    tl = load_timeline(path)
    assert tl.format == "kineto"
    n_kernels = int((tl.kind == KERNEL).sum()) + sum(r.count for r in tl.invalid if r.kind == "kernel")
    assert n_kernels == expected
    rep = analyse_timeline(tl)
    assert sum(k.count for k in rep.kernels) == int((tl.kind == KERNEL).sum())
    assert rep.devices and all(0 <= d.utilisation_pct <= 100 for d in rep.devices)
    assert all(d.idle_s >= 0 and d.busy_s <= d.span_s + 1e-12 for d in rep.devices)


def _stdlib_traces(path: Path) -> list[dict]:
    """The corpus file parsed with the standard library only (numbers as Decimal: exact)."""
    def loads(raw: bytes) -> dict:
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
        return json.loads(raw, parse_float=Decimal)

    if path.name.endswith(".tar.gz"):
        with tarfile.open(path) as tar:
            return [loads(tar.extractfile(m).read()) for m in sorted(tar.getmembers(), key=lambda m: m.name)
                    if m.isfile()]
    return [loads(path.read_bytes())]


def _independent(d: dict) -> dict:
    """Per device: span, busy union, kernel union, kernel count -- from the raw events, by hand."""
    per: dict[int, dict] = {}
    for e in d["traceEvents"]:
        cat = str(e.get("cat", "")).lower()
        if e.get("ph") != "X" or cat not in ("kernel", "gpu_memcpy", "memcpy", "gpu_memset", "memset"):
            continue
        if not e.get("ts") or e.get("dur") is None:
            continue
        s = int(Decimal(e["ts"]) * 1000)
        t = s + int(Decimal(e["dur"]) * 1000)
        dev = (e.get("args") or {}).get("device", e.get("pid"))
        p = per.setdefault(int(dev), {"busy": [], "kernel": []})
        p["busy"].append((s, t))
        if cat == "kernel":
            p["kernel"].append((s, t))
    out = {}
    for dev, p in per.items():
        lo = min(s for s, _ in p["busy"])
        hi = max(t for _, t in p["busy"])
        out[dev] = {"span": hi - lo, "busy": py_union(p["busy"]), "kernel": py_union(p["kernel"]),
                    "kernels": len(p["kernel"]), "start": lo}
    return out


@pytest.mark.parametrize("name", ["hta_alexnet_a100_rank0_trace.json.gz", "hta_nccl_data_a100_rank0.json.gz",
                                  "hta_ns_resolution_v100_rank-0.pt.trace.json.gz",
                                  "hta_trace_filter_sampled_rank-0.json.gz", "hta_trace_filter_sampled_rank-1.json.gz",
                                  "kineto_tbplugin_resnet50_2021-01_worker0.pt.trace.json.gz",
                                  "kineto_tbplugin_test_gpu_metrics_input.json", "param_dlrm_kineto_8rank_v100.tar.gz"])
def test_corpus_breakdown_against_stdlib_json(name):
    path = need(TORCH / name)
    traces = _stdlib_traces(path)
    tl = read_kineto(path)
    rep = analyse_timeline(tl)
    by_key = {(d.rank, d.device): d for d in rep.devices}
    for d in traces:
        rank = (d.get("distributedInfo") or {}).get("rank")
        for dev, want in _independent(d).items():
            got = by_key[(rank, dev)]
            assert got.start_ns == want["start"]
            assert got.end_ns - got.start_ns == want["span"]
            assert got.busy_s == pytest.approx(want["busy"] * 1e-9, rel=1e-12, abs=1e-15)
            assert got.kernel_s == pytest.approx(want["kernel"] * 1e-9, rel=1e-12, abs=1e-15)
            assert got.kernel_count == want["kernels"]


def test_corpus_dlrm_eight_ranks_side_by_side():
    tl = read_kineto(need(TORCH / "param_dlrm_kineto_8rank_v100.tar.gz"))
    assert tl.meta["ranks"] == "8"
    per_rank = {r: int(((tl.kind == KERNEL) & (tl.rank == r)).sum()) for r in range(8)}
    assert per_rank == DLRM_RANK_KERNELS
    rep = analyse_timeline(tl)
    assert [r.rank for r in rep.ranks] == list(range(8))
    assert rep.slowest_rank is not None
    for row in rep.ranks:
        # wall-clock unions (issue 25): computation + communication - their overlap is the kernel union
        assert row.computation_s + row.communication_s - row.overlap_s == pytest.approx(row.kernel_s, rel=1e-9)
        assert row.computation_s <= row.kernel_s and row.own_s == pytest.approx(row.wall_s - row.collective_wait_s)
    # each rank's GPU is the device of the same number
    assert {(d.rank, d.device) for d in rep.devices} == {(r, r) for r in range(8)}


def test_corpus_trace_filter_ranks_as_directory_and_archive(tmp_path):
    files = [need(TORCH / f"hta_trace_filter_sampled_rank-{r}.json.gz") for r in (0, 1)]
    d = tmp_path / "ranks"
    d.mkdir()
    for f in files:
        (d / f.name).write_bytes(f.read_bytes())
    arc = tmp_path / "ranks.tar.gz"
    with tarfile.open(arc, "w:gz") as tar:
        for f in files:
            tar.add(f, arcname=f"run/{f.name}")
    singles = [read_kineto(f) for f in files]
    for path in (d, arc):
        tl = load_timeline(path)
        assert sorted(np.unique(tl.rank).tolist()) == [0, 1]
        assert {r: int(((tl.kind == KERNEL) & (tl.rank == r)).sum()) for r in (0, 1)} == {0: 1154, 1: 1104}
        for r, single in enumerate(singles):
            assert columns_equal(tl.take(tl.rank == r), single)
        rep = analyse_timeline(tl)
        rows = {row.rank: row for row in rep.ranks}
        for r, single in enumerate(singles):
            (one,) = analyse_timeline(single).ranks
            assert rows[r].busy_s == pytest.approx(one.busy_s, rel=1e-12)
            assert rows[r].kernel_s == pytest.approx(one.kernel_s, rel=1e-12)
            assert rows[r].idle_s == pytest.approx(one.idle_s, rel=1e-12)


def test_corpus_ns_resolution_is_exact():
    """``displayTimeUnit`` is display-only: ts stays µs; the 3 decimals are ns and must survive exactly
    (a float64 holds 1712195495505582.988 only to 0.25 µs)."""
    tl = read_kineto(need(TORCH / "hta_ns_resolution_v100_rank-0.pt.trace.json.gz"))
    assert tl.meta["displayTimeUnit"] == "ns"
    assert tl.meta["time_resolution"].startswith("ns")
    k = np.flatnonzero(tl.kind == KERNEL)
    first = k[np.argmin(tl.start_ns[k])]
    assert int(tl.start_ns[first]) == 1712195495505582988
    assert int(tl.end_ns[first] - tl.start_ns[first]) == 4928
    nccl = read_kineto(need(TORCH / "hta_nccl_data_a100_rank0.json.gz"))
    assert nccl.meta["displayTimeUnit"] == "ms" and nccl.meta["time_resolution"].startswith("ns")
    old = read_kineto(need(TORCH / "kineto_tbplugin_resnet50_2021-01_worker0.pt.trace.json.gz"))
    assert old.meta["time_resolution"] == "µs"
    assert any("292 kernel(s) with dur 0" in p for p in old.problems)  # sub-µs kernels: kept


def test_corpus_without_device_properties_says_so():
    tl = read_kineto(need(TORCH / "hta_trace_filter_sampled_rank-0.json.gz"))
    assert tl.devices == ((0, ""),)
    assert any("deviceProperties not recorded" in p for p in tl.problems)
    tl = read_kineto(need(TORCH / "kineto_tbplugin_test_gpu_metrics_input.json"))  # 2021: computeProperties
    assert tl.device_name(0) == "Tesla V100-DGXS-32GB"


def test_corpus_versions_and_cuda_driver_category():
    tl = read_kineto(need(TORCH / "hta_triton_example_a100.json.gz"))
    assert tl.tool_version == "Kineto trace schema 1, CUPTI 18, CUDA runtime 12000, CUDA driver 12000"
    api = {tl.names[i] for i in tl.name_id[tl.kind == RUNTIME_API]}
    assert "cuLaunchKernel" in api  # cat "cuda_driver"
    rep = analyse_timeline(tl)
    assert rep.launch is not None and rep.launch.matched == 1  # joined through the driver call


# ------------------------------------------------------------------------------------------- hand-summed traces
def mixed_events():
    """Both category spellings, integer and string tids, overlapping streams; durations chosen to hand-sum."""
    return [
        {"name": "process_labels", "ph": "M", "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}},
        ev("cpu_op", "aten::mm", 1000, 50, pid=99, tid=99),
        ev("Operator", "aten::add", 1060, 10, pid=99, tid="99"),
        ev("cuda_runtime", "cudaLaunchKernel", 1010, 5, pid=99, tid=99, correlation=1),
        ev("Runtime", "cudaLaunchKernel", 1020, 4, pid=99, tid="99", correlation=2),
        ev("cuda_driver", "cuLaunchKernel", 1030, 3, pid=99, tid=99, correlation=3),
        ev("Runtime", "cudaMemcpyAsync", 1040, 6, pid=99, tid="99", correlation=4),
        ev("cuda_runtime", "cudaMemsetAsync", 1047, 2, pid=99, tid=99, correlation=5),
        # kernels: [1100,1200) stream 7, [1150,1250) stream "stream 9" (old spelling), [1300,1310) stream 7
        ev("kernel", "gemm", 1100, 100, tid=7, device=0, stream=7, correlation=1, grid=[2, 1, 1], block=[128, 1, 1],
           registers_per_thread=32, shared_memory=0),
        ev("Kernel", "relu", 1150, 100, tid="stream 9", device=0, correlation=2),
        ev("kernel", "gemm", 1300, 10, tid=7, device=0, stream=7, correlation=3),
        ev("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 1320, 20, tid=7, device=0, stream=7, correlation=4,
           bytes=4096),
        ev("Memcpy", "Memcpy DtoH (Device -> Pinned)", 1345, 5, tid="stream 9", device=0, correlation=6, bytes=64),
        ev("Memset", "Memset (Device)", 1400, 2, tid="stream 7", device=0, correlation=5, bytes=128),
        ev("gpu_user_annotation", "## forward ##", 1090, 400, tid=7),
        ev("user_annotation", "ProfilerStep#1", 990, 600, pid=99, tid=99),
        ev("cuda_sync", "Stream Sync", 1260, 30, tid=7, device=0, stream=7),
        {"ph": "s", "id": 1, "pid": 99, "tid": 99, "ts": 1010, "cat": "ac2g", "name": "launch"},
        {"ph": "f", "id": 1, "pid": 0, "tid": 7, "ts": 1100, "cat": "ac2g", "name": "launch", "bp": "e"},
        {"ph": "i", "s": "g", "pid": "", "tid": "", "ts": 1600, "name": "Record Window End"},
    ]


def test_hand_summed_small_trace(tmp_path):
    path = write(tmp_path / "t.json", doc(mixed_events(), distributedInfo={"rank": 3, "world_size": 4}))
    tl = read_kineto(path)
    assert kinds_sum(tl, KERNEL) == (3, 210_000)
    assert kinds_sum(tl, MEMCPY) == (2, 25_000)
    assert kinds_sum(tl, MEMSET) == (1, 2_000)
    assert kinds_sum(tl, RUNTIME_API) == (5, 20_000)
    assert kinds_sum(tl, CPU_OP) == (2, 60_000)
    assert kinds_sum(tl, ANNOTATION) == (1, 600_000)
    assert kinds_sum(tl, GPU_ANNOTATION) == (1, 400_000)
    assert kinds_sum(tl, SYNC) == (1, 30_000)
    assert (tl.rank == 3).all() and tl.meta["rank"] == "3" and tl.meta["world_size"] == "4"
    k = tl.kind == KERNEL
    assert sorted(tl.stream[k].tolist()) == [7, 7, 9]  # "stream 9" from the string tid
    assert (tl.device[k] == 0).all() and (tl.device[tl.kind == RUNTIME_API] == -1).all()
    assert set(tl.stream[tl.kind == RUNTIME_API].tolist()) == {99}  # host thread id, int or numeric string
    c = np.flatnonzero(tl.kind == MEMCPY)
    by_name = {tl.names[tl.name_id[i]]: i for i in c}
    h = by_name["Memcpy HtoD (Pageable -> Device)"]
    d = by_name["Memcpy DtoH (Device -> Pinned)"]
    assert (tl.copy_kind[h], tl.pageable[h], tl.bytes[h]) == (COPY_HTOD, 1, 4096)
    assert (tl.copy_kind[d], tl.pageable[d], tl.bytes[d]) == (COPY_DTOH, 0, 64)
    assert tl.bytes[tl.kind == MEMSET].tolist() == [128]
    assert (tl.bytes[k] == -1).all()
    gemm = np.flatnonzero(k & (tl.start_ns == 1_100_000))[0]
    assert (tl.launch.grid_x[gemm], tl.launch.block_x[gemm], tl.launch.registers_per_thread[gemm]) == (2, 128, 32)
    relu = np.flatnonzero(k & (tl.start_ns == 1_150_000))[0]
    assert tl.launch.grid_x[relu] == -1  # not recorded
    rep = analyse_timeline(tl)
    (dev,) = rep.devices
    busy = py_union([(1100, 1200), (1150, 1250), (1300, 1310), (1320, 1340), (1345, 1350), (1400, 1402)])
    assert busy == 187
    assert dev.busy_s == pytest.approx(busy * US, abs=1e-12)
    assert dev.kernel_s == pytest.approx(160 * US, abs=1e-12)  # [1100,1250) + [1300,1310)
    assert dev.span_s == pytest.approx(302 * US, abs=1e-12)  # 1100 -> 1402, annotations excluded
    assert dev.sync_s == pytest.approx(30 * US, abs=1e-12)
    assert rep.launch.matched == 3  # kernels 1, 2, 3 joined on correlation (runtime and driver calls)


def test_both_spellings_give_the_same_columns(tmp_path):
    new = [ev("kernel", "k", 100, 10, tid=7, device=0, stream=7, correlation=1),
           ev("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", 120, 5, tid=7, device=0, stream=7, correlation=2),
           ev("gpu_memset", "Memset (Device)", 130, 1, tid=7, device=0, stream=7, correlation=3),
           ev("cuda_runtime", "cudaLaunchKernel", 90, 3, pid=5, tid=5, correlation=1),
           ev("cpu_op", "aten::x", 80, 30, pid=5, tid=5)]
    old = [ev("Kernel", "k", 100, 10, tid="stream 7", device=0, correlation=1),
           ev("Memcpy", "Memcpy HtoD (Pinned -> Device)", 120, 5, tid="stream 7", device=0, correlation=2),
           ev("Memset", "Memset (Device)", 130, 1, tid="stream 7", device=0, correlation=3),
           ev("Runtime", "cudaLaunchKernel", 90, 3, pid=5, tid="5", correlation=1),
           ev("Operator", "aten::x", 80, 30, pid=5, tid="5")]
    a = read_kineto(write(tmp_path / "new.json", doc(new)))
    b = read_kineto(write(tmp_path / "old.json", doc(old)))
    assert columns_equal(a, b)


def test_exact_ns_conversion(tmp_path):
    text = (b'{"traceEvents": [\n'
            b'{"ph": "X", "cat": "kernel", "name": "a", "pid": 0, "tid": 7, "ts": 1712195495505582.988, "dur": 4.928},\n'
            b'{"ph": "X", "cat": "kernel", "name": "b", "pid": 0, "tid": 7, "ts": 1.0005, "dur": 0.0015},\n'
            b'{"ph": "X", "cat": "kernel", "name": "c", "pid": 0, "tid": 7, "ts": 1.5e3, "dur": 2E0},\n'
            b'{"ph": "X", "cat": "kernel", "name": "d", "pid": 0, "tid": 7, "ts": 4458676983543.183, "dur": 41.407},\n'
            b'{"ph": "X", "cat": "kernel", "name": "e", "pid": 0, "tid": 7, "ts": 1682725898236567, "dur": 68.0}\n'
            b']}')
    (tmp_path / "t.json").write_bytes(text)
    tl = read_kineto(tmp_path / "t.json")
    got = {tl.names[i]: (int(s), int(e - s)) for i, s, e in zip(tl.name_id, tl.start_ns, tl.end_ns)}
    assert got == {
        "a": (1712195495505582988, 4928),
        "b": (1000, 2),  # 1000.5 ns -> 1000 and 1.5 ns -> 2 (half-even)
        "c": (1_500_000, 2000),
        "d": (4458676983543183, 41407),
        "e": (1682725898236567000, 68000),
    }
    assert tl.meta["time_resolution"].startswith("ns")


# ------------------------------------------------------------------------------------------- input layouts
def _two_ranks(tmp_path: Path) -> tuple[dict, dict]:
    r0 = doc(mixed_events(), distributedInfo={"rank": 0})
    ev1 = [dict(e) for e in mixed_events()]
    for e in ev1:
        if isinstance(e.get("ts"), int):
            e["ts"] += 7
    r1 = doc(ev1, distributedInfo={"rank": 1})
    return r0, r1


def test_same_trace_in_every_layout(tmp_path):
    r0, r1 = _two_ranks(tmp_path)
    ref0 = read_kineto(write(tmp_path / "r0.json", r0))
    ref1 = read_kineto(write(tmp_path / "r1.json", r1))
    assert columns_equal(read_kineto(write(tmp_path / "r0p.json", r0, pretty=True)), ref0)
    assert columns_equal(read_kineto(write(tmp_path / "r0.json.gz", r0, gz=True)), ref0)
    bare = tmp_path / "bare.json"  # Chrome's JSON array format
    bare.write_text(json.dumps(r0["traceEvents"]))
    b = read_kineto(bare)
    assert b.meta["rank"] == "not recorded" and (b.rank == -1).all()
    assert all(np.array_equal(getattr(b, c), getattr(ref0, c)) for c in COLUMN_DTYPES if c not in ("name_id", "rank"))
    # a directory (one plain, one gzip, in a sub-folder) and archives (tar.gz, tar, gz members)
    d = tmp_path / "dir"
    (d / "sub").mkdir(parents=True)
    write(d / "rank0.json", r0)
    write(d / "sub" / "rank1.pt.trace.json.gz", r1, gz=True)
    (d / "notes.txt").write_text("not a trace")
    (d / ".hidden.json").write_text("{}")
    tgz = tmp_path / "ranks.tar.gz"
    tar_plain = tmp_path / "ranks.tar"
    for arc, mode in ((tgz, "w:gz"), (tar_plain, "w")):
        with tarfile.open(arc, mode) as tar:
            tar.add(d / "rank0.json", arcname="traces/rank0.json")
            tar.add(d / "sub" / "rank1.pt.trace.json.gz", arcname="traces/rank1.json.gz")
            tar.add(d / "notes.txt", arcname="traces/notes.txt")
    for path in (d, tgz, tar_plain):
        assert detect_timeline_format(path) == "kineto"
        tl = load_timeline(path)
        assert tl.meta["ranks"] == "2"
        assert columns_equal(tl.take(tl.rank == 0), ref0)
        assert columns_equal(tl.take(tl.rank == 1), ref1)
    assert any("notes.txt" in p for p in load_timeline(tgz).problems)


def test_files_without_rank_are_numbered_in_file_order(tmp_path):
    d = tmp_path / "d"
    d.mkdir()
    (d / "a.json").write_bytes(need(CASES / "C03_kineto_ts0_kernel.json").read_bytes())
    (d / "b.json").write_bytes(need(CASES / "C17_kineto_gpu_user_annotation.json").read_bytes())
    # a V100 trace and an A100 trace are not the ranks of one program (issue 25): refused in one line
    with pytest.raises(InputError, match="not the ranks of one program: the traces ran on different GPUs"):
        read_kineto(d)
    (d / "b.json").write_bytes(need(CASES / "C03_kineto_ts0_kernel.json").read_bytes())
    tl = read_kineto(d)
    assert kinds_sum(tl.take(tl.rank == 0), KERNEL) == (2, 550_000)
    assert kinds_sum(tl.take(tl.rank == 1), KERNEL) == (2, 550_000)
    assert any("a.json: rank not recorded" in p and "numbered 0" in p for p in tl.problems)
    assert any("(a.json)" in r.reason for r in tl.invalid)  # invalid records say which file
    rep = analyse_timeline(tl)
    assert [r.rank for r in rep.ranks] == [0, 1]


def test_duplicate_ranks_are_renumbered(tmp_path):
    d = tmp_path / "d"
    d.mkdir()
    for name in ("x.json", "y.json"):
        write(d / name, doc([ev("kernel", "k", 100, 10)], distributedInfo={"rank": 0}))
    tl = read_kineto(d)
    assert sorted(np.unique(tl.rank).tolist()) == [0, 1]
    assert any("rank 0 is recorded by several files" in p for p in tl.problems)


def test_chunk_boundaries_inside_strings_and_nested_objects(tmp_path, monkeypatch):
    tricky = [
        {"ph": "X", "cat": "cpu_op", "name": 'weird}, {"name": "x"}, {', "pid": 1, "tid": 1, "ts": 50, "dur": 1},
        {"ph": "X", "cat": "cpu_op", "name": "nest", "pid": 1, "tid": 1, "ts": 51, "dur": 1,
         "args": {"Input Dims": [[1, 2], []], "objs": [{"a": 1}, {"b": 2}], "occupancy": {"x": {"y": 1}}}},
    ]
    events = tricky + [ev("kernel", f"k{i}", 100 + 10 * i, 5, correlation=i) for i in range(300)] + tricky
    d = doc(events, traceName='has "traceEvents": [ inside', deviceProperties=[{"id": 0, "name": "GPU X"}])
    d["displayTimeUnit"] = "ms"  # a key after traceEvents
    path = write(tmp_path / "t.json", d)
    ref = read_kineto(path)
    assert kinds_sum(ref, KERNEL) == (300, 1_500_000) and kinds_sum(ref, CPU_OP) == (4, 4000)
    assert ref.meta["displayTimeUnit"] == "ms" and ref.device_name(0) == "GPU X"
    for chunk in (1, 37, 200, 1000):
        monkeypatch.setattr(kineto, "CHUNK_BYTES", chunk)
        for pretty in (False, True):
            tl = read_kineto(write(tmp_path / f"c{chunk}{pretty}.json", d, pretty=pretty))
            assert columns_equal(tl, ref)
            assert tl.meta["displayTimeUnit"] == "ms"


def test_a_head_or_an_event_larger_than_the_read_window_reads_the_same(tmp_path, monkeypatch):
    """The reader's window (a fixed memory map of about two chunks) is replaced by a larger one, its bytes kept, when
    the top-level keys before the event list or one event do not fit: the trace reads as with a window that fits."""
    big = "x" * (3 << 20)
    events = [ev("kernel", "k0", 100, 5, correlation=0), ev("cpu_op", big, 110, 1, pid=1, tid=1),
              ev("kernel", "k1", 120, 5, correlation=1)]
    for array in (False, True):
        path = write(tmp_path / f"t{array}.json", events if array else doc(events, traceName=big))
        ref = read_kineto(path)
        monkeypatch.setattr(kineto, "CHUNK_BYTES", 4096)
        tl = read_kineto(path)
        monkeypatch.undo()
        assert columns_equal(tl, ref) and big in tl.names and kinds_sum(tl, KERNEL) == (2, 10_000)
        assert tl.meta.get("traceName") == ref.meta.get("traceName")


def test_isal_and_standard_library_inflate_read_the_same_timeline(tmp_path, monkeypatch):
    """python-isal's gzip reader is the fast path and the standard library's the fallback (kernelscope.ingest.inflate):
    a gzip trace and a gzip tar archive of two ranks read to the same Timeline either way, chunk by chunk."""
    pytest.importorskip("isal")
    from kernelscope.ingest import inflate

    assert inflate.BACKEND == "isal"
    events = [ev("kernel", f"k{i % 7}", 100 + 10 * i, 5, correlation=i, grid=[i % 5 + 1, 1, 1], block=[128, 1, 1])
              for i in range(3000)] + [ev("cpu_op", "aten::mm", 90 + 10 * i, 3, pid=1, tid=1,
                                          **{"Input Dims": [[i % 3 + 1, 8], [8, 4]], "Input type": ["float", "float"]})
                                       for i in range(3000)]
    one = write(tmp_path / "t.json.gz", doc(events, distributedInfo={"rank": 0}), gz=True, pretty=True)
    arc = _tar(tmp_path / "ranks.tar.gz", [_file(f"rank{r}.json", json.dumps(doc(events, distributedInfo={
        "rank": r, "world_size": 2})).encode()) for r in range(2)])
    monkeypatch.setattr(kineto, "CHUNK_BYTES", 64 << 10)  # (many reads of the stream)
    for path in (one, arc):
        fast = read_kineto(path)
        with monkeypatch.context() as m:
            m.setattr(inflate, "_gzip", gzip)
            slow = read_kineto(path)
        assert columns_equal(fast, slow) and np.array_equal(fast.rank, slow.rank)
        assert (fast.meta, fast.invalid, fast.problems) == (slow.meta, slow.invalid, slow.problems)
        ops, slow_ops = fast.op_inputs, slow.op_inputs
        assert np.array_equal(ops.row, slow_ops.row) and np.array_equal(ops.code, slow_ops.code)
        assert ops.table == slow_ops.table and len(ops.row) > 0
        assert kinds_sum(fast, KERNEL)[0] == 3000 * (2 if path is arc else 1)


def test_events_of_other_phases_are_skipped_by_the_typed_decoder(tmp_path, monkeypatch):
    """Every Trace Event Format phase but "X" is decoded as its ``ph`` alone (wherever the key is in the object) and
    counted, never kept, without the loose decoding; an unknown phase or none sends its piece to the loose decoding,
    with the same rows."""
    from kernelscope.ingest.kineto import columns, decode

    kept = [ev("kernel", "k", 100, 5, correlation=1), ev("cuda_runtime", "cudaLaunchKernel", 95, 2, pid=1, tid=1,
                                                         correlation=1)]
    phases = "B E i I C b n e S T p F s t f P O N D M V v R c ( )".split()
    others = [{"name": f"e{ph}", "ph": ph, "cat": "kernel", "ts": 100, "dur": 5, "pid": 0, "tid": 7,
               "id": 3, "args": {"name": "x", "labels": [1]}} for ph in phases]
    ref = read_kineto(write(tmp_path / "ref.json", doc(kept)))
    spec = write(tmp_path / "spec.json", doc(others[:14] + kept + others[14:]))

    def refuse(items):
        raise AssertionError("loose decoding of events of the Trace Event Format")

    with monkeypatch.context() as m:
        m.setattr(decode, "_loose_events", refuse)
        tl = read_kineto(spec)
        parsed = columns._parse_trace(spec.open("rb"), str(spec), spec.name, 1 << 20)
    assert columns_equal(tl, ref)
    assert parsed.skipped == {ph: 1 for ph in phases}
    odd = write(tmp_path / "odd.json", doc(others + [{"ph": "Q", "name": "q"}, {"name": "no ph"}] + kept))
    assert columns_equal(read_kineto(odd), ref)
    assert columns._parse_trace(odd.open("rb"), str(odd), odd.name, 1 << 20).skipped == {
        **{ph: 1 for ph in phases}, "Q": 1, "?": 1}


def test_odd_event_shapes_do_not_crash(tmp_path):
    events = [
        ev("kernel", "ok", 100, 10, correlation=1),
        {"ph": "X", "cat": "kernel", "name": ["not", "a", "string"], "pid": 0, "tid": 7, "ts": 120, "dur": 1},
        {"ph": "X", "cat": ["odd"], "name": "odd cat", "pid": 0, "tid": 7, "ts": 130, "dur": 1},
        {"ph": "X", "cat": "kernel", "name": "args list", "pid": 0, "tid": 7, "ts": 140, "dur": 1, "args": [1, 2]},
        {"ph": "X", "cat": "kernel", "name": "float tid", "pid": 0.0, "tid": 7.0, "ts": 150, "dur": 1},
        {"ph": "X", "cat": "kernel", "name": "bad ts", "pid": 0, "tid": 7, "ts": "soon", "dur": 1},
        {"ph": "X", "cat": "kernel", "name": "no dur", "pid": 0, "tid": 7, "ts": 160},
        {"ph": "X", "name": "no cat", "pid": 0, "tid": 7, "ts": 170, "dur": 1},
        42,
        {"ph": "B", "cat": "cpu_op", "name": "begin", "pid": 1, "tid": 1, "ts": 1},
    ]
    tl = read_kineto(write(tmp_path / "t.json", doc(events)))
    assert int((tl.kind == KERNEL).sum()) == 4  # ok, list name, args list, float tid
    reasons = {r.name: r.reason for r in tl.invalid}
    assert "unreadable ts" in reasons["bad ts"] and reasons["no dur"].startswith("no duration")
    assert "['not', 'a', 'string']" in tl.names and "odd cat" in tl.names  # kept as text / as "other"
    analyse_timeline(tl)


def test_zero_duration_kernel_is_kept_negative_is_not(tmp_path):
    tl = read_kineto(write(tmp_path / "t.json", doc([ev("kernel", "short", 100, 0, correlation=1),
                                                     ev("kernel", "broken", 200, -5, correlation=2),
                                                     ev("cuda_runtime", "cudaLaunchKernel", 90, 2, pid=1, tid=1,
                                                        correlation=2)])))
    assert kinds_sum(tl, KERNEL) == (1, 0)
    (bad,) = tl.invalid
    assert bad.name == "broken" and "negative duration" in bad.reason and "launch seen" in bad.reason
    assert any("with dur 0" in p for p in tl.problems)


def test_gc_state_is_restored(tmp_path):
    path = write(tmp_path / "t.json", doc([ev("kernel", "k", 1, 1)]))
    assert gc.isenabled()
    read_kineto(path)
    assert gc.isenabled()
    with pytest.raises(InputError):
        read_kineto(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(InputError):
        read_kineto(tmp_path / "bad.json")
    assert gc.isenabled()


# ------------------------------------------------------------------------------------------- refusals
@pytest.mark.parametrize("content,message", [
    (b"", "file is empty"),
    (b"hello", "not JSON"),
    (b'{"schemaVersion": 1, "other": []}', "not a Chrome trace"),
    (b'{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 1}, {"ph": "X", "ca',
     "ends early"),
    (b'{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "op", "pid": 1, "tid": 1, "ts": 1, "dur": 1}]}',
     "recorded no GPU activity"),
])
def test_refusals_name_the_problem(tmp_path, content, message):
    path = tmp_path / "t.json"
    path.write_bytes(content)
    with pytest.raises(InputError, match=message) as exc:
        read_kineto(path)
    assert str(path) in str(exc.value)


def test_directory_and_archive_without_traces(tmp_path):
    d = tmp_path / "empty"
    d.mkdir()
    (d / "readme.txt").write_text("x")
    with pytest.raises(InputError, match="no PyTorch profiler traces"):
        read_kineto(d)
    arc = tmp_path / "a.tar.gz"
    with tarfile.open(arc, "w:gz") as tar:
        tar.add(d / "readme.txt", arcname="readme.txt")
    with pytest.raises(InputError, match="no PyTorch profiler traces"):
        read_kineto(arc)
    write(d / "config.json", {"lr": 0.1})  # a JSON file that is not a trace, alone
    with pytest.raises(InputError, match="not a Chrome trace"):
        read_kineto(d)


def test_cli_refusal_is_one_line(tmp_path, capsys):
    path = need(TORCH / "hta_cupti_profiler_a100.json.gz")
    assert main(["timeline", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "recorded no GPU activity" in err and len(err.splitlines()) == 1


# ------------------------------------------------------------------------------------------- unsafe archives
def _tar(path: Path, members: list[tuple[tarfile.TarInfo, bytes | None]], mode="w:gz") -> Path:
    with tarfile.open(path, mode) as tar:
        for info, data in members:
            if data is not None:
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
            else:
                tar.addfile(info)
    return path


def _file(name: str, data: bytes) -> tuple[tarfile.TarInfo, bytes]:
    return tarfile.TarInfo(name), data


GOOD = json.dumps(doc([ev("kernel", "k", 100, 10)], distributedInfo={"rank": 0})).encode()


def _special(name: str, kind: bytes, linkname: str = "") -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = linkname
    return info, None


@pytest.mark.parametrize("members,message", [
    ([_file("../evil.json", GOOD)], "'..' component"),
    ([_file("ok/../../evil.json", GOOD)], "'..' component"),
    ([_file("/tmp/evil.json", GOOD)], "absolute path"),
    ([_file("good.json", GOOD), _special("link.json", tarfile.SYMTYPE, "/etc/passwd")], "symbolic link"),
    ([_file("good.json", GOOD), _special("hard.json", tarfile.LNKTYPE, "good.json")], "hard link"),
    ([_special("dev", tarfile.CHRTYPE)], "device file"),
    ([_special("fifo", tarfile.FIFOTYPE)], "FIFO"),
])
def test_unsafe_archives_are_refused(tmp_path, monkeypatch, members, message):
    monkeypatch.chdir(tmp_path)
    arc = _tar(tmp_path / "bad.tar.gz", members)
    before = sorted(p.name for p in tmp_path.rglob("*"))
    with pytest.raises(InputError, match=message) as exc:
        read_kineto(arc)
    assert "refusing" in str(exc.value)
    assert sorted(p.name for p in tmp_path.rglob("*")) == before  # nothing was extracted
    assert not (tmp_path.parent / "evil.json").exists()


def test_oversized_archives_and_bombs_are_refused(tmp_path):
    big = json.dumps(doc([ev("kernel", f"k{i}", 100 + i, 1) for i in range(2000)])).encode()
    arc = _tar(tmp_path / "big.tar.gz", [_file("a.json", big), _file("b.json", big)])
    assert len(read_kineto(arc)) == 4000
    with pytest.raises(InputError, match="over the reader's"):
        read_kineto(arc, max_member_bytes=len(big) - 1)
    with pytest.raises(InputError, match="in all"):
        read_kineto(arc, max_bytes=len(big) + 10)
    with pytest.raises(InputError, match="entries"):
        read_kineto(arc, max_members=1)
    # a gzip bomb: tiny file, huge when decompressed (the limit counts decompressed bytes)
    bomb = tmp_path / "bomb.json.gz"
    bomb.write_bytes(gzip.compress(b'{"traceEvents": [' + b" " * (4 << 20) + b"]}"))
    assert bomb.stat().st_size < 100_000
    with pytest.raises(InputError, match="decompress"):
        read_kineto(bomb, max_bytes=1 << 20)
    # a gz member inside a tar is limited the same way
    arc2 = _tar(tmp_path / "bomb.tar", [_file("x.json.gz", bomb.read_bytes())], mode="w")
    with pytest.raises(InputError, match="decompressed"):
        read_kineto(arc2, max_member_bytes=1 << 20)


def test_corrupt_archive_and_gzip(tmp_path):
    good = _tar(tmp_path / "good.tar.gz", [_file("a.json", GOOD)])
    cut = tmp_path / "cut.tar.gz"
    cut.write_bytes(good.read_bytes()[:60])
    with pytest.raises(InputError):
        read_kineto(cut)
    gz = tmp_path / "cut.json.gz"
    gz.write_bytes(gzip.compress(GOOD)[:40])
    with pytest.raises(InputError, match="gzip|ends early|truncated"):
        read_kineto(gz)


def test_directory_parsed_by_several_processes_is_the_same(tmp_path, monkeypatch):
    r0, r1 = _two_ranks(tmp_path)
    d = tmp_path / "d"
    d.mkdir()
    write(d / "r0.json", r0)
    write(d / "r1.json.gz", r1, gz=True)
    one = read_kineto(d, jobs=1)
    monkeypatch.setattr(kineto, "PARALLEL_MIN_BYTES", 0)
    files = sorted(d.iterdir())
    if kineto._workers(2, files) != 2:
        pytest.skip("no fork here (or other threads are running): the files are parsed in this process")
    two = read_kineto(d, jobs=2)
    assert columns_equal(one, two) and one.meta == two.meta and one.problems == two.problems
    # a refusal inside a worker comes back as the same one-line InputError; the size limit still holds in all
    (d / "r2.json").write_bytes(b'{"traceEvents": [{"ph": "X", "ca')
    with pytest.raises(InputError, match="r2.json: malformed JSON"):
        read_kineto(d, jobs=2)
    (d / "r2.json").unlink()
    total = sum(len(json.dumps(x)) for x in (r0, r1))
    with pytest.raises(InputError, match="decompressed"):
        read_kineto(d, jobs=2, max_bytes=total - 10)


def test_directory_parses_come_back_through_the_shared_slots(tmp_path, monkeypatch):
    # a worker writes a parse that fits its file's slot into the shared map (the parent rebuilds it from there, its
    # columns views of the map) and sends one that does not through the pool's pipe: both give the serial read
    from kernelscope.ingest.kineto import sources

    r0, r1 = _two_ranks(tmp_path)
    big = doc([ev("kernel", f"k{i % 7}", 2000 + 10 * i, 5, pid=0, tid=7, correlation=i) for i in range(4000)],
              distributedInfo={"rank": 0})
    d = tmp_path / "d"
    d.mkdir()
    write(d / "r0.json", big)
    write(d / "r1.json", r1)  # (a few events: its parse is larger than the file, no slot holds it)
    one = read_kineto(d, jobs=1)
    monkeypatch.setattr(kineto, "PARALLEL_MIN_BYTES", 0)
    if kineto._workers(2, sorted(d.iterdir())) != 2:
        pytest.skip("no fork here (or other threads are running): the files are parsed in this process")
    loaded = []
    real_load = sources._Slots.load
    monkeypatch.setattr(sources._Slots, "load", lambda self, spans: loaded.append(spans) or real_load(self, spans))
    two = read_kineto(d, jobs=2)
    assert len(loaded) == 1 and sources._SLOTS is None
    assert columns_equal(one, two) and one.meta == two.meta and one.problems == two.problems
    # no shared map (refused by the system): every parse through the pipe, the same Timeline
    loaded.clear()
    monkeypatch.setattr(sources._Slots, "of", classmethod(lambda cls, files: None))
    assert columns_equal(read_kineto(d, jobs=2), one) and not loaded


def test_multi_rank_program_time_is_the_slowest_rank():
    # 8 ranks: the program time is the longest rank wall; an item's program share is what its absence saves there
    # (each rank losing the time the item adds to its device's busy union), never above 1 (test_timeline_multi.py)
    from kernelscope.ingest.kineto import read_kineto
    from kernelscope.analysis.timeline import analyse_timeline

    tl = read_kineto(need(SHARED / "corpus" / "torch_traces" / "param_dlrm_kineto_8rank_v100.tar.gz"))
    rep = analyse_timeline(tl)
    assert rep.program_time_s == pytest.approx(max(r.wall_s for r in rep.ranks)) == rep.wall_s
    # the top kernel is a SendRecv collective whose time is mostly waiting for other ranks: gone, it saves little
    top = rep.kernels[0]
    assert "SendRecv" in top.name and top.program_fraction < 0.05
    # a computation kernel: each rank's own work (wall - collective wait) loses its exclusive time; the program
    # ends with the slowest own work, shifted by T - B (issue 25, analysis/timeline/collectives.py)
    gemm = next(k for k in rep.kernels if k.name == "volta_sgemm_128x32_nt")
    own = {r.rank: r.wall_s - r.collective_wait_s for r in rep.ranks}
    after = max(own[r.rank] - next((d.exclusive_s for d in gemm.devices if d.rank == r.rank), 0.0)
                for r in rep.ranks) + rep.wall_s - max(own.values())
    assert gemm.program_fraction == pytest.approx(1 - after / rep.wall_s)
    assert 0 < gemm.program_fraction < 1

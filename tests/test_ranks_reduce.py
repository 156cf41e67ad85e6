"""timeline --as-ranks (issue 18): rank files of ONE program, each read alone, reduced from per-rank summaries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kernelscope.analysis.timeline.ranks import RankSummary, reduce_ranks
from kernelscope.cli import main

US = 1e-6
#: gemm time per rank (us): rank 3 runs it twice as long, so it is the slowest rank and a straggler.
GEMM_US = (200, 200, 200, 400)


def _trace(rank: int, gemm_us: float, softmax: bool) -> dict:
    """gemm, a 10 us gap, a 100 us all-reduce (stream 7); rank 1 also a 20 us softmax on stream 8 under the gemm
    (overlapped: no change to its wall, busy or kernel union)."""
    ev = [{"ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": 0, "tid": 7, "ts": 1000.0, "dur": float(gemm_us),
           "args": {"device": 0, "stream": 7, "correlation": 1}},
          {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce", "pid": 0, "tid": 7, "ts": 1010.0 + gemm_us,
           "dur": 100.0, "args": {"device": 0, "stream": 7, "correlation": 2}}]
    if softmax:
        ev.append({"ph": "X", "cat": "kernel", "name": "softmax_kernel", "pid": 0, "tid": 8, "ts": 1050.0,
                   "dur": 20.0, "args": {"device": 0, "stream": 8, "correlation": 3}})
    return {"distributedInfo": {"rank": rank, "world_size": 4}, "traceEvents": ev}


@pytest.fixture(scope="module")
def rank_dir(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("ranks")
    for r, g in enumerate(GEMM_US):  # file order is the reverse of the recorded ranks
        (d / f"trace-{3 - r}.json").write_text(json.dumps(_trace(r, g, r == 1)))
    return d


def _ranks(capsys, argv: list[str]) -> dict:
    capsys.readouterr()
    assert main(["timeline", "--as-ranks", *argv, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["reports"] == []
    return doc["ranks"]


def test_per_rank_table_slowest_straggler_imbalance(rank_dir, capsys):
    rr = _ranks(capsys, [str(rank_dir / "*.json"), "--jobs", "1"])
    assert rr["rank_source"] == "recorded"
    rows = rr["ranks"]
    assert [r["rank"] for r in rows] == [0, 1, 2, 3]
    assert [Path(r["path"]).name for r in rows] == ["trace-3.json", "trace-2.json", "trace-1.json", "trace-0.json"]
    walls = [g + 10 + 100 for g in GEMM_US]  # gemm, gap, all-reduce
    kernel = [g + 100 for g in GEMM_US]
    assert [r["wall_s"] for r in rows] == pytest.approx([w * US for w in walls])
    assert [r["busy_s"] for r in rows] == pytest.approx([k * US for k in kernel])
    assert [r["kernel_s"] for r in rows] == pytest.approx([k * US for k in kernel])
    assert [r["share_pct"] for r in rows] == pytest.approx([100 * k / 1400 for k in kernel])  # 300+300+300+500
    assert rr["wall_s"] == pytest.approx(510 * US) and rr["median_wall_s"] == pytest.approx(310 * US)
    assert rows[3]["vs_median_pct"] == pytest.approx(100 * (510 / 310 - 1))
    assert rr["slowest_rank"] == 3 and rr["stragglers"] == [3] and rr["straggler_pct"] == 10.0
    assert [r["straggler"] for r in rows] == [False, False, False, True]
    k = {x["name"]: x for x in rr["kernels"]}
    assert [x["name"] for x in rr["kernels"]] == ["gemm_kernel", "ncclKernel_AllReduce", "softmax_kernel"]
    g = k["gemm_kernel"]
    assert (g["min_s"], g["median_s"], g["max_s"]) == pytest.approx((200 * US, 200 * US, 400 * US))
    assert g["max_over_median"] == pytest.approx(2.0) and g["max_rank"] == 3 and g["ranks_with"] == 4
    assert g["total_s"] == pytest.approx(1000 * US) and g["count"] == 4
    assert k["ncclKernel_AllReduce"]["max_over_median"] == pytest.approx(1.0)
    s = k["softmax_kernel"]  # on rank 1 only: median 0, no ratio
    assert s["median_s"] == 0 and s["max_over_median"] is None and s["max_rank"] == 1 and s["ranks_with"] == 1


def test_serial_equals_jobs_2_and_directory(rank_dir, capsys):
    serial = _ranks(capsys, [str(rank_dir / "*.json"), "--jobs", "1"])
    pooled = _ranks(capsys, [str(rank_dir / "*.json"), "--jobs", "2"])
    by_dir = _ranks(capsys, [str(rank_dir), "--jobs", "2"])  # a directory gives its files, one rank each
    assert serial == pooled == by_dir


def test_table_and_zh(rank_dir, capsys):
    capsys.readouterr()
    assert main(["timeline", "--as-ranks", str(rank_dir), "--jobs", "1", "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    assert "掉队" in out and "自身工作最长的 Rank" in out and "gemm_kernel" in out and "2.00×" in out


def test_reduce_falls_back_to_file_order_and_threshold():
    a = RankSummary(order=0, path="a", recorded_rank=None, wall_s=1.0, busy_s=1.0, kernel_s=1.0, kernels=(("k", 1.0, 1),))
    b = RankSummary(order=1, path="b", recorded_rank=5, wall_s=1.05, busy_s=1.0, kernel_s=1.0, kernels=())
    rr = reduce_ranks([b, a], top=5, straggler_pct=10.0)
    assert rr.rank_source == "file_order" and [ln.rank for ln in rr.ranks] == [0, 1]
    assert rr.slowest_rank == 1 and rr.stragglers == ()  # 5 % above the median 1.025: within the threshold
    assert rr.kernels[0].max_rank == 0 and rr.kernels[0].min_s == 0.0
    assert reduce_ranks([a, b], top=5, straggler_pct=1.0).stragglers == (1,)


def test_refusals(rank_dir, capsys):
    assert main(["timeline", "--as-ranks", str(rank_dir), "--format", "parquet", "-o", str(rank_dir / "ds")]) == 2
    assert main(["timeline", "--as-ranks", str(rank_dir / "*.nothing")]) == 2

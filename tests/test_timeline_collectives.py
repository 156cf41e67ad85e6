"""Issue 25 (part B): ranks, communication and steps as they really run -- the straggler by its collective wait,
computation and communication as wall-clock unions, exposed communication as a category, archives and directories
of ranks, training steps. Expected values are hand-computed (cases N14 and N22 of ../shared/cases)."""

from __future__ import annotations

import json
import tarfile
from pathlib import Path

import pytest

from kernelscope.analysis.timeline import analyse_timeline
from kernelscope.cli import main
from kernelscope.ingest.kineto import read_kineto

CASES = Path(__file__).resolve().parents[2] / "shared" / "cases"
MS = 1e-3


def need(p: Path) -> Path:
    if not p.exists():
        pytest.skip(f"{p} is absent (the shared cases live in ../shared)")
    return p


def _k(name: str, ts_us: float, dur_us: float, stream: int = 7) -> dict:
    return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": stream, "ts": ts_us, "dur": dur_us,
            "args": {"device": 0, "stream": stream}}


def _step(n: int, ts_us: float, dur_us: float) -> dict:
    return {"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{n}", "pid": 1, "tid": 1, "ts": ts_us,
            "dur": dur_us}


def _doc(rank: int, events: list[dict], world: int = 2, gpu: str = "NVIDIA H100 80GB HBM3") -> dict:
    return {"distributedInfo": {"rank": rank, "world_size": world, "backend": "nccl"},
            "deviceProperties": [{"id": 0, "name": gpu}], "traceEvents": events}


def _json(capsys, argv: list[str]) -> dict:
    capsys.readouterr()
    assert main(["timeline", *argv, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


# ------------------------------------------------------------------------------------------------ N14
def test_n14_directory_straggler_is_the_rank_that_waits_least():
    rep = analyse_timeline(read_kineto(need(CASES / "N14_ranks_ddp_compute_straggler")))
    assert [r.wall_s for r in rep.ranks] == pytest.approx([362.1 * MS] * 4)  # equal walls: no wall straggler
    assert rep.slowest_rank == 1
    r = {x.rank: x for x in rep.ranks}
    assert r[1].computation_s == pytest.approx(352.08 * MS) and r[0].computation_s == pytest.approx(152.08 * MS)
    assert r[1].communication_s == pytest.approx(10 * MS) and r[0].communication_s == pytest.approx(210 * MS)
    assert [r[i].collective_wait_s for i in range(4)] == pytest.approx([200 * MS, 0.0, 200 * MS, 200 * MS])
    # rank 1's backward at the others' 83 ms: 50 + 83 + 10 + 19.1 = 162.1 ms
    assert rep.balanced_wall_s == pytest.approx(162.1 * MS)
    bwd = next(k for k in rep.kernels if k.name == "resnet_bwd_conv_kernel")
    # 2x: 50 + 141.5 + 10 + 19.1 = 220.6; 10x: 50 + 28.3 + 10 + 19.1 = 107.4; gone: 79.1 (ms)
    assert bwd.amdahl.projected_s == pytest.approx((220.6 * MS, 107.4 * MS, 79.1 * MS))
    assert bwd.amdahl.speedups[0] == pytest.approx(362.1 / 220.6)
    # the 210 ms all-reduce on ranks 0/2/3 is 200 ms of waiting: gone there, rank 0 still waits for rank 1
    ar = next(k for k in rep.kernels if k.name.startswith("ncclDevKernel_AllReduce"))
    lane0 = next(d for d in ar.devices if d.rank == 0)
    assert lane0.amdahl.projected_s[-1] == pytest.approx(352.1 * MS)
    assert ar.amdahl.projected_s[-1] == pytest.approx(352.1 * MS)
    # exposed communication beyond the waits: 10 ms on every rank
    assert rep.communication.amdahl.projected_s[-1] == pytest.approx(352.1 * MS)
    assert rep.communication.total_s == pytest.approx(640 * MS)  # 3 x 210 + 10, of which 600 ms waiting
    from kernelscope.render.timeline import render_timeline

    text = render_timeline([rep], "table", "en", width=400)
    assert "600.0 ms of it waiting" in text and "362.1 ms -> 352.1 ms (1.03x)" in text
    assert "362.1 ms -> 162.1 ms (2.23x" in text


def test_n14_as_ranks_names_rank_1_in_every_mode(capsys):
    d = need(CASES / "N14_ranks_ddp_compute_straggler")
    serial = _json(capsys, ["--as-ranks", str(d), "--jobs", "1"])["ranks"]
    pooled = _json(capsys, ["--as-ranks", str(d), "--jobs", "2"])["ranks"]
    assert serial == pooled
    assert serial["slowest_rank"] == 1 and serial["stragglers"] == [1]
    lines = {x["rank"]: x for x in serial["ranks"]}
    assert lines[1]["wait_s"] == 0 and lines[0]["wait_s"] == pytest.approx(200 * MS)
    assert lines[1]["own_s"] == pytest.approx(362.1 * MS) and lines[2]["own_s"] == pytest.approx(162.1 * MS)
    assert lines[1]["vs_median_pct"] == pytest.approx(100 * (362.1 / 162.1 - 1))
    assert serial["balanced_wall_s"] == pytest.approx(162.1 * MS)
    bwd = next(k for k in serial["kernels"] if k["name"] == "resnet_bwd_conv_kernel")
    assert bwd["projected_s"] == pytest.approx([220.6 * MS, 107.4 * MS, 79.1 * MS])
    assert bwd["speedups"][0] == pytest.approx(1.6414, abs=1e-3)


# ------------------------------------------------------------------------------------------------ N22
def test_n22_exposed_communication_is_the_black_hole():
    rep = analyse_timeline(read_kineto(need(CASES / "N22_kineto_exposed_comm_two_streams.json")))
    (r,) = rep.ranks
    assert r.computation_s == pytest.approx(80 * MS) and r.communication_s == pytest.approx(60 * MS)
    assert r.communication_sum_s == pytest.approx(120 * MS)
    assert r.overlap_s == 0 and r.exposed_communication_s == pytest.approx(60 * MS) and r.collective_wait_s == 0
    b = rep.black_hole
    assert b.category == "communication" and b.row == "communication"
    assert b.program_fraction == pytest.approx(60 / 140.1)
    assert b.amdahl.projected_s[-1] == pytest.approx(80.1 * MS) and b.amdahl.speedups[-1] == pytest.approx(140.1 / 80.1)
    assert b.amdahl.projected_s[0] == pytest.approx(110.1 * MS)
    # each collective alone gains nothing: the other covers it
    for k in rep.kernels:
        if k.name.startswith("nccl"):
            assert k.program_fraction == 0


# -------------------------------------------------------------------------- unions, not sums over streams
def test_two_compute_streams_are_a_union_and_not_the_straggler(tmp_path):
    # rank 0: compute [0, 80) and [50, 130) us on two streams (sum 160 in a 140 wall), all-reduce [130, 140);
    # rank 1: compute [0, 135), all-reduce [135, 140): rank 0 waits 5 us, rank 1 is last and the straggler
    d = tmp_path / "run"
    d.mkdir()
    (d / "r0.json").write_text(json.dumps(_doc(0, [_k("gemm_a", 1000, 80), _k("gemm_b", 1050, 80, 8),
                                                    _k("ncclKernel_AllReduce", 1130, 10, 20)])))
    (d / "r1.json").write_text(json.dumps(_doc(1, [_k("gemm_a", 1000, 135), _k("ncclKernel_AllReduce", 1135, 5, 20)])))
    rep = analyse_timeline(read_kineto(d))
    r0, r1 = rep.ranks
    assert r0.computation_s == pytest.approx(130e-6) and r0.overlap_s == 0
    assert r0.collective_wait_s == pytest.approx(5e-6) and r1.collective_wait_s == 0
    assert rep.slowest_rank == 1


# ------------------------------------------------------------------------------ archives and directories
def _rank_events(rank: int) -> list[dict]:
    gemm = 300 if rank == 2 else 100  # rank 2 is the straggler: the others wait 200 us in the all-reduce
    return [_k("gemm", 1000, gemm), _k("ncclKernel_AllReduce", 1000 + gemm, 310 - gemm + 10, 20)]


def test_as_ranks_reads_every_rank_of_an_archive(tmp_path, capsys):
    files = []
    for r in range(4):
        f = tmp_path / f"rank{r}.json"
        f.write_text(json.dumps(_doc(r, _rank_events(r), world=4)))
        files.append(f)
    arc = tmp_path / "ranks.tar.gz"
    with tarfile.open(arc, "w:gz") as tar:
        for f in files:
            tar.add(f, arcname=f.name)
    rr = _json(capsys, ["--as-ranks", str(arc), "--jobs", "1"])["ranks"]
    assert [x["rank"] for x in rr["ranks"]] == [0, 1, 2, 3]
    assert all(x["busy_s"] <= x["wall_s"] + 1e-12 for x in rr["ranks"])
    assert rr["slowest_rank"] == 2 and rr["stragglers"] == [2]
    # the archive and the loose files give the same reduce
    assert _json(capsys, ["--as-ranks", *map(str, files), "--jobs", "1"])["ranks"]["ranks"] == [
        {**x, "path": str(tmp_path / f"rank{x['rank']}.json"), "member": None} for x in rr["ranks"]]


def test_unrelated_traces_are_refused(tmp_path, capsys):
    d = tmp_path / "mixed"
    d.mkdir()
    (d / "a.json").write_text(json.dumps(_doc(0, _rank_events(0), world=2)))
    (d / "b.json").write_text(json.dumps(_doc(1, _rank_events(1), world=8)))
    capsys.readouterr()
    assert main(["timeline", str(d)]) == 2
    err = capsys.readouterr().err
    assert "not the ranks of one program" in err and "world sizes (2, 8)" in err and "Traceback" not in err
    assert main(["timeline", "--as-ranks", str(d), "--jobs", "1"]) == 2
    assert "not the ranks of one program" in capsys.readouterr().err
    # as separate programs: the files themselves
    assert main(["timeline", str(d / "*.json"), "--jobs", "1", "--format", "json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["reports"]) == 2


# ------------------------------------------------------------------------------------------------ steps
def test_steps_median_slowest_spread_and_per_step_comparison(tmp_path, capsys):
    # rank 0: steps of 100, 140, 100 us; rank 1: two steps of 100 us (a shorter trace, not a faster rank)
    ev0 = [_step(1, 1000, 100), _step(2, 1100, 140), _step(3, 1240, 100), _k("gemm", 1000, 340)]
    ev1 = [_step(1, 1000, 100), _step(2, 1100, 100), _k("gemm", 1000, 200)]
    (tmp_path / "r0.json").write_text(json.dumps(_doc(0, ev0)))
    (tmp_path / "r1.json").write_text(json.dumps(_doc(1, ev1)))
    rep = analyse_timeline(read_kineto(tmp_path / "r0.json"))
    st = rep.steps
    assert (st.count, st.first, st.last, st.slowest_step) == (3, 1, 3, 2)
    assert st.median_s == pytest.approx(100e-6) and st.slowest_s == pytest.approx(140e-6)
    assert st.spread_pct == pytest.approx(40.0)
    rr = _json(capsys, ["--as-ranks", str(tmp_path / "r0.json"), str(tmp_path / "r1.json"), "--jobs", "1"])["ranks"]
    assert rr["compared_by"] == "own_per_step"
    lines = rr["ranks"]
    assert [x["steps"] for x in lines] == [3, 2]
    # own work per step: 340 / 3 = 113.3 us vs 200 / 2 = 100 us: rank 0 is slower although its wall is not 1.7x
    assert lines[0]["compared_s"] == pytest.approx(340e-6 / 3) and lines[1]["compared_s"] == pytest.approx(100e-6)
    assert rr["slowest_rank"] == 0


# ------------------------------------------------------------------------------------------ the wait model
def test_collective_waits_match_calls_by_name_and_occurrence():
    import numpy as np

    from kernelscope.analysis.timeline.collectives import CollectiveCalls, collective_waits, program_after

    def calls(rank, names, index, dur, exposed):
        return CollectiveCalls(rank, names, np.array(index), np.array(dur), np.array(exposed))

    # rank 0: all-reduce 50, 30, a broadcast 7 (rank 1 never calls it: no barrier to match);
    # rank 1: all-reduce 30 (20 of it under computation), 40, 60 (a third call rank 0 lacks: not matched)
    a = calls(0, ("ar", "bc"), [0, 1, 0], [50, 7, 30], [50, 7, 30])
    b = calls(1, ("ar",), [0, 0, 0], [30, 40, 60], [10, 40, 60])
    wa, wb = collective_waits([a, b])
    assert wa == {"ar": 20} and wb == {"ar": 10}  # 50 - 30 on rank 0's first; 40 - 30 on rank 1's second
    assert collective_waits([a]) == [{}]  # one rank: nothing to wait for
    # program_after: walls 100 / 90, waits 20 / 10 -> own 80 / 80, B = 80, T = 100 (shift 20); an item saving
    # 40 on rank 0 and 10 on rank 1: gone -> max(40, 70) + 20 = 90; 2x -> max(60, 75) + 20 = 95
    after = program_after(np.array([100, 90]), np.array([20, 10]), np.array([[40.0, 10.0]]), (2.0, float("inf")))
    assert after.tolist() == [[95.0, 90.0]]
    # no wait: classic per-rank Amdahl, max(100 - 40, 90 - 10) = 80
    assert program_after(np.array([100, 90]), None, np.array([[40.0, 10.0]]), (float("inf"),)).tolist() == [[80.0]]


def test_ranks_are_compared_per_step_only_when_step_counts_differ():
    from kernelscope.analysis.timeline.collectives import compared

    assert compared([3.0, 2.0], [3, 2]) == ([1.0, 1.0], True)
    assert compared([3.0, 2.0], [4, 4]) == ([3.0, 2.0], False)
    assert compared([3.0, 2.0], [0, 2]) == ([3.0, 2.0], False)  # a trace without steps: whole traces

"""The advice order of findings without an estimate, and predication in near-full warps.

When a report has no unit to size a finding against (no Speed-of-Light breakdown, no ``sm__issue_active``), the
findings follow the measured share of their own evidence (a stall reason's share of the stall cycles, the waiting or
idle time their change removes), never rule order: an unsized finding never outranks a measured larger cause. A
thread-divergence finding whose warps are all but full (at least ``NEAR_FULL_WARP_THREADS`` of 32 threads active:
only predication idles lanes) is a low-rank note, after every other finding, with its figures.

The case: reduceGmem of Lashi0812/CudaProgramming (a tree reduction in global memory, 149 us on an RTX 4090):
Long Scoreboard 60 % and Barrier 26 % of the stall cycles, 31.5 of 32 threads active, 20.4 predicated on; the expert's
fix was shared memory (its reduceSmem kernel, 1.5x faster), not divergence.
"""

from __future__ import annotations

import pytest

from conftest import CORPUS_NCU, need
from kernelscope import diagnose_file
from kernelscope.analysis.causes import NEAR_FULL_WARP_THREADS
from kernelscope.analysis.diagnosis import diagnose
from kernelscope.analysis.engine import Evidence
from kernelscope.analysis.advice_order import rank_and_share
from kernelscope.analysis.performance import (
    PREDICTION, UPPER_BOUND, Change, Counter, Units, measured_share,
)
from kernelscope.model import DeviceInfo, GpuSpec, KernelProfile

ADA = GpuSpec(name="RTX 4090 test", dram_bandwidth_bytes_per_s=1.008e12, sm_count=128,
              peak_flops_per_s={"fp32": 82.6e12})
DEV = DeviceInfo(display_name="RTX 4090 test", compute_capability=(8, 9), sm_count=128)
THREADS = "smsp__thread_inst_executed_per_inst_executed.ratio"
THREADS_PRED = "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio"
#: reduceGmem's stalls, cycles per issued instruction (Nsight's smsp__average_warp_latency_issue_stalled_*): long
#: scoreboard 28.8 and barrier 12.6 of 48.8 stall cycles (59 % and 26 %), selected 1 (issuing, left out of the shares)
STALLS = {"long_scoreboard": 28.8, "barrier": 12.6, "wait": 3.6, "mio_throttle": 1.2, "short_scoreboard": 0.4,
          "branch_resolving": 0.3, "not_selected": 0.2, "no_instruction": 0.2, "drain": 0.1, "selected": 1.0}
REPORT = CORPUS_NCU / "Lashi0812__CudaProgramming__profiling_profiles_smemReduceInteger.ncu-rep"


def _k(threads: float, pred: float) -> KernelProfile:
    """A launch without any unit's throughput (no Speed-of-Light, no breakdown): nothing can be sized."""
    return KernelProfile(index=0, name="reduceGmem", demangled_name="reduceGmem", device=DEV, duration_s=149e-6,
                         stall_values=STALLS, stall_family="per_issue_active",
                         metrics={THREADS: threads, THREADS_PRED: pred})


def _order(d) -> list[str]:
    return [f.id for f in sorted((f for f in d.findings if f.rank is not None), key=lambda f: f.rank)]


def test_unestimated_findings_follow_their_measured_share():
    # four findings, none estimated: measured 0.1, 0.6, none, 0.3 -> 0.6, 0.3, 0.1, then the unmeasured one
    items = [(name, None, None, None, None) for name in "abcd"]
    order = rank_and_share(items, Units(), 1.05, measured=[0.1, 0.6, None, 0.3])
    assert [(f, t) for f, _, _, t in order] == [("b", "unestimated"), ("d", "unestimated"), ("a", "unestimated"),
                                                ("c", "unestimated")]
    # without measured shares: rule order, as before
    assert [f for f, _, _, _ in rank_and_share(items, Units(), 1.05)] == list("abcd")


def test_a_low_rank_note_comes_after_everything_with_its_marginal_gain():
    # busiest unit b at 50 %: removing 0.4 of it saves 0.2 -> 1.25x; the note removes 0.4 of b too, but comes last:
    # after the first, b is at 30 %, the note takes it to 10 %: T'/T 0.8 -> 0.6, marginal 1.333x (below its own 1.25x
    # cap: its own estimate, 1.25x, bounds it)
    u = Units((Counter("b", "b", 0.5, 0.5),))
    note, first = Change({"b": 0.4}, kind=UPPER_BOUND), Change({"b": 0.4}, kind=PREDICTION)
    items = [("note", note, 1.25, UPPER_BOUND, None), ("none", None, None, None, None),
             ("first", first, 1.25, PREDICTION, None), ("tiny", Change({"b": 0.01}), 1.005, PREDICTION, None)]
    order = rank_and_share(items, u, 1.05, measured=[None, 0.2, None, None], notes=[True, False, False, False])
    assert [(f, t) for f, _, _, t in order] == [("first", "worthwhile"), ("none", "unestimated"),
                                                ("tiny", "negligible"), ("note", "note")]
    gain = next(g for f, g, _, _ in order if f == "note")
    assert 1.0 <= gain <= 1.25


def test_measured_share_reads_the_findings_own_evidence():
    u = Units((Counter("issue", "issue", 0.4, 0.5),), stall_shares={"barrier": 0.2}, selected_share=0.2)
    stall = (Evidence("stall_share.long_scoreboard", 0.6, "share"), Evidence("sm__issue_active", None, "%"))
    assert measured_share(None, stall, u) == pytest.approx(0.6)
    # a stall paragraph's evidence is cycles per issue: its share from the launch's, issuing left out: 0.2 / 0.8
    assert measured_share(None, (Evidence("stall_value.barrier", 3.0, "per_issue_active"),), u) == pytest.approx(0.25)
    assert measured_share(Change(idle=0.07), (), u) == pytest.approx(0.07)
    # a change of a measured unit's work: its fraction of the busiest instance, 0.5 x 0.5
    assert measured_share(Change({"issue": 0.5}), (), u) == pytest.approx(0.25)
    # a change of units the report did not measure, evidence that is no share: nothing measured
    assert measured_share(Change({"fma": 0.5}), (Evidence(THREADS, 20.0, "thread"),), u) is None


def test_unsized_divergence_in_full_warps_is_a_note_after_the_stalls():
    d = diagnose(_k(31.5, 20.4), ADA)
    order = _order(d)
    assert order.index("long_scoreboard_latency") < order.index("barrier_stall") < order.index("thread_divergence")
    div = next(f for f in d.findings if f.id == "thread_divergence")
    assert div.low_rank and div.negligible and div.estimated_speedup is None
    assert div.message.values["by"] == "predication" and div.message.values["threads"] == 31.5  # its figures stay
    assert d.advice_findings[-1].id == "thread_divergence"
    assert "thread_divergence" not in [f.id for f in d.worthwhile_advice]  # not in the short report


def test_real_divergence_is_a_root_cause_but_unsized_it_waits_for_the_measured_stalls():
    # 16 of 32 threads active: the warps diverge; no unit measured, so no estimate and no measured share: after the
    # stalls whose shares were measured, still among the root causes (not a note)
    d = diagnose(_k(16.0, 16.0), ADA)
    div = next(f for f in d.findings if f.id == "thread_divergence")
    assert not div.low_rank and not div.negligible and div.message.values["by"] == "divergence"
    order = _order(d)
    assert order.index("barrier_stall") < order.index("thread_divergence")
    assert "thread_divergence" in [f.id for f in d.worthwhile_advice]


def test_the_near_full_warp_threshold():
    assert 28.0 < NEAR_FULL_WARP_THREADS <= 31.0
    below = next(f for f in diagnose(_k(NEAR_FULL_WARP_THREADS - 0.1, 20.0), ADA).findings if f.id == "thread_divergence")
    at = next(f for f in diagnose(_k(NEAR_FULL_WARP_THREADS, 20.0), ADA).findings if f.id == "thread_divergence")
    assert not below.low_rank and at.low_rank


def test_reduce_gmem_advice_starts_with_its_stalls():
    rd = diagnose_file(need(REPORT))
    gmem = next(d for d in rd.kernels if d.kernel.name == "reduceGmem")
    assert [f.id for f in gmem.advice_findings] == ["long_scoreboard_latency", "barrier_stall", "thread_divergence"]
    div = gmem.advice_findings[-1]
    assert div.low_rank and div.negligible and div.message.values["threads"] > NEAR_FULL_WARP_THREADS
    smem = next(d for d in rd.kernels if d.kernel.name == "reduceSmem")
    assert smem.advice_findings[-1].id == "thread_divergence" and smem.advice_findings[-1].low_rank

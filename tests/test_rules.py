"""Bottleneck classes from the rules, on hand-built profiles whose expected classes follow from the lesson's
criteria by hand."""

from __future__ import annotations

from dataclasses import replace

import pytest

from kernelscope.analysis.diagnosis import diagnose
from kernelscope.model import DeviceInfo, GpuSpec, KernelProfile, LaunchConfig
from kernelscope.knowledge.criteria import criteria

A100 = GpuSpec(name="A100 test", dram_bandwidth_bytes_per_s=1.555e12, peak_flops_per_s={"fp32": 19.5e12, "fp16_tensor": 312e12}, sm_count=108)
DEV = DeviceInfo(display_name="A100 test", compute_capability=(8, 0), sm_count=108)


def _k(**kw) -> KernelProfile:
    base = dict(index=0, name="k", demangled_name="k", device=DEV, duration_s=1e-3)
    base.update(kw)
    return KernelProfile(**base)


def _keys(d):
    return [n.key for n in d.evidence]


def test_lesson_naive_sgemm_is_memory_plus_latency():
    # lesson 002 2.4: memory 92%, SM 35%, achieved occupancy 25%, Long Scoreboard 70% -> "memory + latency"
    k = _k(sol_memory_pct=92.0, sol_compute_pct=35.0, achieved_occupancy_pct=25.0,
           stall_values={"long_scoreboard": 70.0}, stall_family="given_percent")
    d = diagnose(k, A100)
    assert d.classes == ("memory-bound", "latency-bound")
    assert _keys(d) == ["rule_memory", "rule_latency_ls_no_theoretical"]
    # issue 12: the specific cause replaces the generic class paragraphs (Long Scoreboard -> async copies)
    assert d.advice == ("finding:long_scoreboard_latency",)


def test_lesson_tiled_sgemm_is_compute_bound():
    d = diagnose(_k(sol_memory_pct=45.0, sol_compute_pct=85.0, achieved_occupancy_pct=60.0), A100)
    assert d.classes == ("compute-bound",)


def test_latency_rule_needs_the_occupancy_gap():
    # Long Scoreboard 50% but achieved 70% of theoretical 100%: not latency-bound by the lesson's rule
    k = _k(sol_memory_pct=70.0, sol_compute_pct=30.0, achieved_occupancy_pct=70.0, theoretical_occupancy_pct=100.0,
           stall_values={"long_scoreboard": 50.0, "barrier": 50.0}, stall_family="per_issue_active")
    assert "latency-bound" not in diagnose(k, A100).classes
    k2 = _k(sol_memory_pct=70.0, sol_compute_pct=30.0, achieved_occupancy_pct=50.0, theoretical_occupancy_pct=100.0,
            stall_values={"long_scoreboard": 50.0, "barrier": 50.0}, stall_family="per_issue_active")
    d = diagnose(k2, A100)
    assert d.classes == ("latency-bound",) and _keys(d) == ["rule_latency_ls"]


def _register_heavy(**stalls):
    # CC 8.0, 256 threads, 128 registers: 4096 registers per warp -> 4 warps per sub-partition -> 16 warps
    # -> 2 blocks of 8 warps -> 16 / 64 = 25% theoretical, limited by registers.
    return _k(launch=LaunchConfig(grid=(1080, 1, 1), block=(256, 1, 1), registers_per_thread=128, shared_mem_static_bytes=0,
                                  shared_mem_dynamic_bytes=0),
              sol_memory_pct=40.0, sol_compute_pct=30.0, achieved_occupancy_pct=24.0,
              stall_values=stalls, stall_family="per_issue_active")


def test_register_limited_kernel_is_occupancy_bound():
    d = diagnose(_register_heavy(long_scoreboard=20.0, wait=2.0), A100)
    assert d.occupancy.occupancy_pct == pytest.approx(25.0)
    assert d.occupancy.limiters == ("registers",)
    assert "occupancy-bound" in d.classes
    assert "latency-bound" in d.classes  # both < 60% of peak
    # 1080 blocks / (2 blocks per SM x 108 SMs) = 5 waves exactly: no tail note
    assert d.waves_per_sm == pytest.approx(5.0)
    assert "tail_effect" not in [n.key for n in d.occupancy_notes]


def test_busy_warps_are_not_occupancy_bound():
    d = diagnose(_register_heavy(math_pipe_throttle=20.0, not_selected=10.0, long_scoreboard=5.0), A100)
    assert "occupancy-bound" not in d.classes
    busy = [n for n in d.occupancy_notes if n.key == "occupancy_busy"]
    assert busy and busy[0].values["share"] == pytest.approx(30 / 35)


def test_small_grid_is_its_class_and_only_a_short_kernel_is_launch_bound():
    d = diagnose(_k(sol_memory_pct=5.0, sol_compute_pct=3.0, launch=LaunchConfig(waves_per_sm=0.08), duration_s=8.5e-6), A100)
    assert d.classes == ("small-grid",)  # small grid, and not latency-bound on top, nor launch overhead
    d = diagnose(_k(sol_memory_pct=5.0, sol_compute_pct=3.0, duration_s=2e-6, launch=LaunchConfig(waves_per_sm=3.0)), A100)
    assert "launch-bound" in d.classes and "short_kernel" in _keys(d)


def test_tail_effect_note():
    # 260 blocks, 2 blocks per SM on 108 SMs: 260 / 216 = 1.20 waves, last wave 20% full
    k = _register_heavy(long_scoreboard=1.0)
    k = replace(k, launch=replace(k.launch, grid=(260, 1, 1)))
    d = diagnose(k, A100)
    assert d.waves_per_sm == pytest.approx(260 / 216)
    tail = [n for n in d.occupancy_notes if n.key == "tail_effect"]
    assert tail and tail[0].values["last_pct"] == pytest.approx((260 / 216 - 1) * 100)


def test_both_high_is_compute_and_memory():
    d = diagnose(_k(sol_memory_pct=91.2, sol_compute_pct=91.2), A100)
    assert d.classes == ("memory-bound", "compute-bound")


def test_criteria_override():
    k = _k(sol_memory_pct=92.0, sol_compute_pct=35.0)
    assert diagnose(k, A100).classes == ("memory-bound",)
    assert diagnose(k, A100, criteria(dict(memory_high_pct=95))).classes != ("memory-bound",)
    with pytest.raises(KeyError):
        criteria({"memory_hihg_pct": 90})
    with pytest.raises(ValueError):
        criteria({"memory_high_pct": -1})


def test_nothing_measured_says_so():
    d = diagnose(_k(duration_s=None), A100)
    assert d.classes == () and d.bound is None and d.verdict == ()


def test_low_occupancy_alone_is_not_a_bottleneck():
    # 25% theoretical by registers, but memory at 70% of peak and no stall data: no latency symptom
    k = replace(_register_heavy(), sol_memory_pct=70.0, sol_compute_pct=40.0, stall_values={}, stall_family=None,
                achieved_occupancy_pct=24.0)
    assert "occupancy-bound" not in diagnose(k, A100).classes


def test_gap_on_a_small_grid_is_not_occupancy_bound():
    # achieved far below theoretical, but the grid (100 blocks on 108 SMs) is less than one wave: the grid, not
    # registers, caps occupancy. Memory at 70% >= 60%: the small grid does not override the throughput verdict,
    # it is an optimization (8 idle SMs, and 5% of the 25% theoretical occupancy on the others: split into more
    # blocks, up to 5x the warps) with its upper bound: memory, 70% busy, does the same work: at most 1 / 0.7.
    k = replace(_register_heavy(), launch=replace(_register_heavy().launch, grid=(100, 1, 1)),
                sol_memory_pct=70.0, sol_compute_pct=40.0, stall_values={}, stall_family=None, achieved_occupancy_pct=5.0)
    d = diagnose(k, A100)
    assert "occupancy-bound" not in d.classes and "launch-bound" not in d.classes and "small-grid" not in d.classes
    (small,) = [f for f in d.findings if f.id == "small_grid"]
    assert small.severity == "optimization" and small.estimated_speedup == pytest.approx(1 / 0.7)
    assert small.change.warps == pytest.approx(25 / 5) and small.change.idle == pytest.approx(8 / 108)
    assert small.message.values == {"blocks": 100, "sms": 108, "idle_sms": 8}
    assert d.waves_per_sm == pytest.approx(100 / 216)

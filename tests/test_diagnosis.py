"""Diagnosis core on hand-built profiles: SOL classes, pipe choice, Nsight rule translation, advice."""

from __future__ import annotations

import pytest

from kernelscope.analysis.diagnosis import (
    BALANCED,
    COMPUTE_BOUND,
    LATENCY_BOUND,
    MEMORY_BOUND,
    SMALL_GRID,
    classify_sol,
    diagnose,
    group_by_name,
    Note,
)
from kernelscope.analysis.roofline import choose_pipe
from kernelscope.ingest.nsight_rules import sol_verdict
from kernelscope.model import DeviceInfo, GpuSpec, KernelProfile, LaunchConfig, RuleResult

GPU = GpuSpec(
    name="Test GPU",
    dram_bandwidth_bytes_per_s=2.0e12,
    peak_flops_per_s={"fp32": 20e12, "fp64": 10e12, "fp16_tensor": 300e12},
    sm_count=100,
    boost_clock_hz=1.5e9,
    origin="arguments",
)


@pytest.mark.parametrize(
    "compute, memory, waves, expected",
    [
        (35.0, 92.0, None, MEMORY_BOUND),  # the lesson's naive SGEMM
        (85.0, 45.0, None, COMPUTE_BOUND),  # the lesson's tiled SGEMM
        (83.1, 83.1, None, COMPUTE_BOUND),  # tie above 80: Nsight analyses compute first
        (42.4, 41.9, None, LATENCY_BOUND),  # both < 60
        (64.8, 64.8, None, BALANCED),
        (53.1, 68.8, None, MEMORY_BOUND),  # 60-80, memory clearly higher
        (11.8, 11.8, 0.29, SMALL_GRID),  # fewer than one wave: a small grid, not launch overhead
        (90.0, 10.0, 0.5, COMPUTE_BOUND),  # high throughput is judged before the grid size
        (38.0, 85.5, 0.89, MEMORY_BOUND),  # cutlass ReferenceGemm_kernel: Nsight says High Throughput (DRAM)
        (33.3, 44.4, 0.8, SMALL_GRID),  # ESMM kernel: Nsight says Small Grid
    ],
)
def test_classify_sol(compute, memory, waves, expected):
    v = classify_sol(compute, memory, waves)
    assert v.bound == expected
    assert v.evidence  # the verdict states the values that triggered it


def test_classify_sol_not_measured():
    v = classify_sol(None, 50.0, 3.0)
    assert v.bound is None
    assert v.evidence[0].key == "sol_not_measured"


def _kernel(**kw) -> KernelProfile:
    base = dict(index=0, name="k", demangled_name="k(float*)", device=DeviceInfo(display_name="Test GPU", sm_count=80, max_sm_clock_hz=1.5e9))
    base.update(kw)
    return KernelProfile(**base)


def test_choose_pipe_dominant_precision():
    k = _kernel(flop_counts={"fp32": 1000.0, "fp64": 10.0, "fp16": 0.0})
    assert choose_pipe(k, GPU) == ("fp32", 1000.0, ())
    k = _kernel(flop_counts={"fp32": 5.0, "fp64": 10.0})
    assert choose_pipe(k, GPU)[:2] == ("fp64", 10.0)


def test_choose_pipe_tensor_work_is_not_measured():
    k = _kernel(flop_counts={"fp32": 100.0}, tensor_pipe_active_pct=40.0)
    pipe, flops, notes = choose_pipe(k, GPU)
    assert (pipe, flops) == ("fp16_tensor", None)
    assert notes[0].key == "tensor_pipe_assumed" and notes[0].values["pct"] == 40.0


def test_choose_pipe_without_counters():
    pipe, flops, notes = choose_pipe(_kernel(), GPU)
    assert (pipe, flops) == ("fp32", None) and notes


def test_diagnose_full_kernel_by_hand():
    k = _kernel(
        duration_s=1e-3,
        flop_counts={"fp32": 2e9},
        dram_bytes_read=3e8,
        dram_bytes_write=1e8,
        sol_compute_pct=20.0,
        sol_memory_pct=85.0,
        launch=LaunchConfig(waves_per_sm=12.0),
        stall_values={"long_scoreboard": 30.0, "not_selected": 5.0, "selected": 1.0, "barrier": 4.0},
        stall_family="per_issue_active",
        cycles_per_issued_instruction=40.0,
    )
    d = diagnose(k, GPU)
    r = d.roofline
    assert r.arithmetic_intensity_flop_per_byte == pytest.approx(2e9 / 4e8)  # 5 FLOP/B
    assert r.ridge_point_flop_per_byte == pytest.approx(10.0)
    assert r.bound == MEMORY_BOUND
    assert r.achieved_flops_per_s == pytest.approx(2e12)
    assert r.efficiency == pytest.approx(2e12 / (5 * 2e12))
    assert d.bound == MEMORY_BOUND
    assert d.stalls.shares[0].reason == "long_scoreboard"
    assert d.stalls.shares[0].share_of_stalls == pytest.approx(30 / 39)
    # Long Scoreboard 30/39 of the stall cycles: the specific finding (async copies) replaces the generic paragraphs
    assert d.advice[0] == "finding:long_scoreboard_latency"
    assert not any(a.startswith(("class:", "stall:")) for a in d.advice)
    assert "stall:not_selected" not in d.advice  # healthy reasons get no advice
    assert Note("device_sms_differ", {"sms": 80, "spec_sms": 100}) in d.provenance


def ncu_bottleneck(kernel):
    return sol_verdict(kernel.rules)  # the readers resolve Nsight's stored verdict


def test_ncu_bottleneck_translation():
    def rule(title, message):
        return _kernel(rules=(RuleResult("SOLBottleneck", title, "WARNING", message),))

    assert ncu_bottleneck(rule("High Memory Throughput", "Memory is more heavily utilized than Compute"))[0] == MEMORY_BOUND
    assert ncu_bottleneck(rule("Latency Issue", "low compute throughput"))[0] == LATENCY_BOUND
    assert ncu_bottleneck(rule("Small Grid", "This kernel grid is too small to fill"))[0] == SMALL_GRID
    assert ncu_bottleneck(rule("High Throughput", "greater than 80.0% ... Start by analyzing DRAM in the Memory Workload Analysis"))[0] == MEMORY_BOUND
    assert ncu_bottleneck(rule("High Throughput", "Start by analyzing workloads in the Compute Workload Analysis section."))[0] == COMPUTE_BOUND
    assert ncu_bottleneck(rule("", "Rule Bottleneck returned an error"))[0] is None
    assert ncu_bottleneck(_kernel()) == (None, None)


def test_group_by_name_orders_by_total_time():
    ks = [
        _kernel(index=0, name="a", duration_s=1.0),
        _kernel(index=1, name="b", duration_s=3.0),
        _kernel(index=2, name="a", duration_s=1.5),
        _kernel(index=3, name="c"),
    ]
    groups = group_by_name(ks)
    assert [g.name for g in groups] == ["b", "a", "c"]
    assert groups[1].launches == 2 and groups[1].total_duration_s == pytest.approx(2.5)
    assert groups[0].share == pytest.approx(3.0 / 5.5)
    assert groups[2].unmeasured_launches == 1


def test_choose_pipe_from_tensor_ops_by_type():
    # per-type tensor metrics decide: BF16 busiest -> BF16 ceiling (falls back to fp16_tensor if the spec lacks it)
    k = _kernel(flop_counts={"fp32": 100.0}, tensor_ops_pct={"bf16_tensor": 30.0, "fp16_tensor": 2.0, "tf32_tensor": 0.0})
    gpu = GpuSpec(name="g", dram_bandwidth_bytes_per_s=1e12, peak_flops_per_s={"fp32": 1e13, "bf16_tensor": 1e14})
    pipe, flops, notes = choose_pipe(k, gpu)
    assert (pipe, flops) == ("bf16_tensor", None) and notes[0].values == {"pct": 30.0, "pipe": "bf16_tensor"}
    assert choose_pipe(k, GPU)[0] == "fp16_tensor"


def test_tensor_ops_all_zero_overrides_pipe_activity():
    # A100 silu in the corpus: HMMA pipe 2.1% active but every sm__ops_path_tensor_src_* is 0 -> FP32 roofline
    k = _kernel(flop_counts={"fp32": 1.4e9}, tensor_pipe_active_pct=30.0, tensor_ops_pct={"fp16_tensor": 0.0})
    assert choose_pipe(k, GPU) == ("fp32", 1.4e9, ())


def test_no_tensor_advice_on_gpus_without_tensor_cores():
    k = _kernel(sol_compute_pct=90.0, sol_memory_pct=20.0)
    d = diagnose(k, GPU)
    assert d.advice[0] == "class:compute-bound"
    assert "compute_tensor_cores" in d.advice_findings[0].remedies and "compute_half2" not in d.advice_findings[0].remedies
    no_tc = GpuSpec(name="GTX", dram_bandwidth_bytes_per_s=1e11, peak_flops_per_s={"fp32": 5e12})
    first = diagnose(k, no_tc).advice_findings[0]
    assert first.advice == "class:compute-bound"
    assert "compute_half2" in first.remedies and "compute_tensor_cores" not in first.remedies


def test_consistency_notes():
    # roofline (DRAM) says memory-bound, SOL says compute-bound: both shown, with the reason
    k = _kernel(duration_s=1.0, flop_counts={"fp32": 1e9}, dram_bytes_read=1e9, dram_bytes_write=0.0,
                sol_compute_pct=90.0, sol_memory_pct=30.0, achieved_occupancy_pct=60.0, theoretical_occupancy_pct=50.0)
    keys = [n.key for n in diagnose(k, GPU).notes]
    assert "roofline_vs_sol" in keys and "occupancy_above_theoretical" in keys
    # 1e15 FLOP in 1 s on a 20 TFLOP/s roof: impossible, flagged and not used (no efficiency of 5000% rests on it)
    k = _kernel(duration_s=1.0, flop_counts={"fp32": 1e15}, dram_bytes_read=1e9, dram_bytes_write=0.0)
    d = diagnose(k, GPU)
    assert d.roofline.flops is None and d.roofline.efficiency is None and "fp32" not in d.kernel.flop_counts
    (x,) = d.kernel.implausible
    assert (x.metric, x.value, x.reason) == ("flop_counts.fp32", 1e15, "implausible_flops_above_peak")
    assert x.rate == pytest.approx(1e15) and x.limit == pytest.approx(20e12)


def test_tensor_pipe_kind_picks_int8():
    k = _kernel(tensor_pipe_op_active_pct={"int8_tensor": 11.4, "fp16_tensor": 0.0})
    gpu = GpuSpec(name="g", dram_bandwidth_bytes_per_s=1e12, peak_flops_per_s={"fp32": 1e13, "fp16_tensor": 1e14, "int8_tensor": 2e14})
    pipe, flops, notes = choose_pipe(k, gpu)
    assert (pipe, flops) == ("int8_tensor", None)
    assert notes[0].values["kind"] == "IMMA"


def test_group_by_name_counts_summary_rows_as_their_launches():
    # an nvprof summary row: 150 calls averaging 1.5 ms -> 150 launches, 225 ms
    ks = [_kernel(index=0, name="red", duration_s=1.5e-3, launch_count=150), _kernel(index=1, name="one", duration_s=0.1)]
    g = {x.name: x for x in group_by_name(ks)}
    assert g["red"].launches == 150 and g["red"].total_duration_s == pytest.approx(0.225)
    assert g["red"].share == pytest.approx(0.225 / 0.325)

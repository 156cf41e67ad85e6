"""Root-cause findings (issue 12): each cause rule on a hand-built profile whose numbers are worked out by hand in
the comments (model: time saved r = e x u, speedup = 1 / (1 - r); data/findings.toml), the program-level gain, the
advice order, and, on the shared corpus, Nsight Compute's own cause rules against ours and the verdicts of the
kernels the issue names."""

from __future__ import annotations

import math

import pytest

from conftest import CORPUS_NCU, SHARED, corpus_reports, need
from kernelscope import diagnose_file, load
from kernelscope.analysis.diagnosis import RULES, diagnose, diagnose_report
from kernelscope.model import DeviceInfo, GpuSpec, KernelProfile, LaunchConfig, ProfileReport, RuleResult
from kernelscope.render.table import to_table

A100 = GpuSpec(name="A100 test", dram_bandwidth_bytes_per_s=1.555e12, sm_count=108,
               peak_flops_per_s={"fp32": 19.5e12, "tf32_tensor": 156e12, "fp16_tensor": 312e12})
DEV = DeviceInfo(display_name="A100 test", compute_capability=(8, 0), sm_count=108)
L1_PCT = "l1tex__throughput.avg.pct_of_peak_sustained_active"
L2_PCT = "lts__throughput.avg.pct_of_peak_sustained_elapsed"
ISSUE = "sm__issue_active.avg.pct_of_peak_sustained_elapsed"


def _k(**kw) -> KernelProfile:
    base = dict(index=0, name="k", demangled_name="k", device=DEV, duration_s=1e-3,
                sol_compute_pct=40.0, sol_memory_pct=50.0)
    base.update(kw)
    return KernelProfile(**base)


def _one(k: KernelProfile, finding_id: str, gpu: GpuSpec = A100):
    found = [f for f in diagnose(k, gpu).findings if f.id == finding_id]
    assert len(found) <= 1, found
    return found[0] if found else None


def test_uncoalesced_global_by_hand():
    # 4000 sectors for 1000 ideal: e = 3000 / 4000 = 0.75; L2 at 80%: r = 0.6 -> 1 / 0.4 = 2.5x
    k = _k(metrics={"memory_l2_theoretical_sectors_global": 4000.0, "memory_l2_theoretical_sectors_global_ideal": 1000.0,
                    L2_PCT: 80.0})
    f = _one(k, "uncoalesced_global")
    assert f.estimated_speedup == pytest.approx(2.5)
    assert f.message.values["excess_pct"] == pytest.approx(75.0)
    assert {e.metric for e in f.evidence} >= {"memory_l2_theoretical_sectors_global", L2_PCT}
    assert f.advice == "finding:uncoalesced_global"
    # ideal accesses: no finding
    ideal = _k(metrics={"memory_l2_theoretical_sectors_global": 1000.0, "memory_l2_theoretical_sectors_global_ideal": 1000.0})
    assert _one(ideal, "uncoalesced_global") is None


def test_uncoalesced_shared_by_hand():
    # 300 wavefronts for 100 ideal: e = 2/3; L1 at 60%: r = 0.4 -> 1 / 0.6 = 1.667x
    k = _k(metrics={"memory_l1_wavefronts_shared": 300.0, "memory_l1_wavefronts_shared_ideal": 100.0, L1_PCT: 60.0})
    assert _one(k, "uncoalesced_shared").estimated_speedup == pytest.approx(1 / 0.6)


def test_bank_conflicts_n_way_and_estimate_by_hand():
    # loads: 100 requests, 3200 wavefronts, 3100 conflicts: 32-way; e = 3100/3200 = 0.96875; L1 50%:
    # r = 0.484375 -> 1 / 0.515625 = 1.9394x. Stores: 5 conflicts of 105 wavefronts = 4.8% < 10%: no finding.
    k = _k(metrics={
        "smsp__sass_inst_executed_op_shared_ld.sum": 100.0,
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": 3200.0,
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": 3100.0,
        "smsp__sass_inst_executed_op_shared_st.sum": 100.0,
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": 105.0,
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": 5.0,
        L1_PCT: 50.0})
    found = [f for f in diagnose(k, A100).findings if f.id == "shared_bank_conflicts"]
    assert [f.message.values["op"] for f in found] == ["ld"]
    assert found[0].message.values["nway"] == pytest.approx(32.0)
    assert found[0].estimated_speedup == pytest.approx(1 / 0.515625)


def test_bank_conflicts_in_a_dram_bound_kernel_barely_matter():
    # the same 32-way conflicts with L1 at 5% (the kernel waits on DRAM): r = 0.96875 x 0.05 = 0.0484 -> 1.051x
    k = _k(metrics={"smsp__sass_inst_executed_op_shared_ld.sum": 100.0,
                    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": 3200.0,
                    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": 3100.0, L1_PCT: 5.0},
           sol_memory_pct=92.0, dram_throughput_pct=92.0)
    d = diagnose(k, A100)
    conflicts = next(f for f in d.findings if f.id == "shared_bank_conflicts")
    assert conflicts.estimated_speedup == pytest.approx(1 / (1 - 0.96875 * 0.05))
    # the DRAM limit (100 / 92 = 1.087x) ranks above the conflicts
    assert d.advice[0] == "finding:dram_bandwidth_bound"


def test_thread_divergence_by_hand():
    # 12 active, 10 predicated-on threads per instruction: e = 1 - 10/32 = 0.6875; SM 40%: r = 0.275 -> 1.3793x
    k = _k(metrics={"smsp__thread_inst_executed_per_inst_executed.ratio": 12.0,
                    "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio": 10.0})
    assert _one(k, "thread_divergence").estimated_speedup == pytest.approx(1 / 0.725)
    full = _k(metrics={"smsp__thread_inst_executed_per_inst_executed.ratio": 31.5,
                       "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio": 30.0})
    assert _one(full, "thread_divergence") is None


def test_register_spills_by_hand():
    # local 900 + 100 sectors of 2000: e = 0.5; memory 70%: r = 0.35 -> 1.5385x
    k = _k(sol_memory_pct=70.0, metrics={
        "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum": 900.0, "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum": 100.0,
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": 800.0, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": 200.0})
    f = _one(k, "register_spills")
    assert f.message.values["local_pct"] == pytest.approx(50.0)
    assert f.estimated_speedup == pytest.approx(1 / 0.65)


def test_dram_at_its_roof_gives_the_headroom():
    # DRAM 90%: no change that moves the same bytes can win more than 100 / 90 = 1.111x
    f = _one(_k(sol_memory_pct=90.0, dram_throughput_pct=90.0), "dram_bandwidth_bound")
    assert f.estimated_speedup == pytest.approx(100 / 90)


def test_low_l2_hit_rate_needs_busy_dram():
    assert _one(_k(dram_throughput_pct=50.0, metrics={"lts__t_sector_hit_rate.pct": 30.0}), "low_l2_hit_rate") is not None
    assert _one(_k(dram_throughput_pct=20.0, metrics={"lts__t_sector_hit_rate.pct": 30.0}), "low_l2_hit_rate") is None
    assert _one(_k(dram_throughput_pct=50.0, metrics={"lts__t_sector_hit_rate.pct": 70.0}), "low_l2_hit_rate") is None


def test_atomic_contention():
    # L2 atomic unit 75% (a memory breakdown sub-metric); one atomic per warp instead of per thread:
    # r = 31/32 x 0.75 = 0.7266 -> 3.657x
    k = _k(memory_breakdown_pct={"lts__d_atomic_input_cycles_active.avg.pct_of_peak_sustained_elapsed": 75.0})
    assert _one(k, "atomic_contention").estimated_speedup == pytest.approx(1 / (1 - 31 / 32 * 0.75))
    idle = _k(memory_breakdown_pct={"lts__d_atomic_input_cycles_active.avg.pct_of_peak_sustained_elapsed": 10.0})
    assert _one(idle, "atomic_contention") is None


def test_long_scoreboard_estimate_and_its_cap():
    # per issue-active values: long scoreboard 6, wait 2, selected 2 -> 6/10 = 0.6 of all cycles, 0.75 of stalls;
    # issue active 20%: r = 0.6 x 0.8 = 0.48 -> 1 / 0.52 = 1.923x (headroom 100 / 50 = 2 is not reached)
    stalls = dict(stall_values={"long_scoreboard": 6.0, "wait": 2.0, "selected": 2.0}, stall_family="per_issue_active",
                  compute_breakdown_pct={ISSUE: 20.0})
    f = _one(_k(**stalls), "long_scoreboard_latency")
    assert f.estimated_speedup == pytest.approx(1 / 0.52)
    # memory at 70%: capped at 100 / 70 = 1.4286x
    capped = _one(_k(sol_memory_pct=70.0, **stalls), "long_scoreboard_latency")
    assert capped.estimated_speedup == pytest.approx(100 / 70)
    assert "capped" in capped.speedup_note


def test_workload_imbalance_by_hand():
    # avg 800, max 1000 active cycles; 80000 of 100000 elapsed: r = (1 - 0.8) x 0.8 = 0.16 -> 1.1905x
    k = _k(metrics={"sm__cycles_active.avg": 800.0, "sm__cycles_active.max": 1000.0, "sm__cycles_active.sum": 80000.0,
                    "sm__cycles_elapsed.sum": 100000.0})
    assert _one(k, "workload_imbalance").estimated_speedup == pytest.approx(1 / 0.84)


def test_unfused_fp32_counts_only_pairs():
    rate = "smsp__sass_thread_inst_executed_op_{}_pred_on.sum.per_cycle_elapsed"
    fma = "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed"
    # FADD 10, FMUL 10, FFMA 20: 10 pairs fuse, e = 10 / 40 = 0.25; FMA pipe 60%: r = 0.15 -> 1.1765x
    k = _k(metrics={rate.format("fadd"): 10.0, rate.format("fmul"): 10.0, rate.format("ffma"): 20.0},
           compute_breakdown_pct={fma: 60.0})
    assert _one(k, "unfused_fp32").estimated_speedup == pytest.approx(1 / 0.85)
    # adds without multiplies cannot fuse (Nsight's FPInstructions rule would still fire)
    adds = _k(metrics={rate.format("fadd"): 10.0, rate.format("fmul"): 0.0, rate.format("ffma"): 0.0},
              compute_breakdown_pct={fma: 60.0})
    assert _one(adds, "unfused_fp32") is None


def test_memory_instructions_vs_math_pipe():
    lsu = "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_elapsed"
    fma = "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed"
    d = diagnose(_k(sol_compute_pct=84.0, compute_breakdown_pct={lsu: 84.0, fma: 22.0}), A100)
    assert [f.id for f in d.findings if f.id.endswith("_bound") and f.advice] == ["memory_instructions_bound"]
    assert d.evidence[0].key == "rule_compute_unit" and d.evidence[0].values["unit"] == "lsu"
    # an arithmetic pipe at 90%: at its limit, headroom 100 / 90
    math_bound = _one(_k(sol_compute_pct=90.0, compute_breakdown_pct={fma: 90.0}), "compute_pipe_bound")
    assert math_bound.estimated_speedup == pytest.approx(100 / 90)


def test_tensor_cores_unused_by_hand():
    # FP32 GEMM-like work above the ridge (AI 50 > 19.5e12 / 1.555e12 = 12.5): FMA pipe 70%, tensor idle;
    # e = 1 - 19.5 / 156 = 0.875, r = 0.875 x 0.7 = 0.6125 -> 2.58x
    # (in 5 ms: 10 TFLOP/s, below the FP32 roof; 5e10 FLOP in 1 ms would be above it, an implausible count)
    k = _k(sol_compute_pct=70.0, flop_counts={"fp32": 5e10}, dram_bytes_read=1e9, dram_bytes_write=0.0,
           compute_breakdown_pct={"sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed": 70.0},
           tensor_pipe_active_pct=0.0, duration_s=5e-3)
    f = _one(k, "tensor_cores_unused")
    assert f.estimated_speedup == pytest.approx(1 / (1 - 0.875 * 0.7))
    no_tensor = GpuSpec(name="old", dram_bandwidth_bytes_per_s=1.555e12, peak_flops_per_s={"fp32": 19.5e12}, sm_count=108)
    assert _one(k, "tensor_cores_unused", no_tensor) is None


def test_fp64_on_a_consumer_gpu_by_hand():
    # FP32 40 TFLOP/s, FP64 1/64 of it; FP64 pipe 50%: e = 1 - 1/64, r = 0.4921875 -> 1.9692x
    gpu = GpuSpec(name="consumer", dram_bandwidth_bytes_per_s=1e12, peak_flops_per_s={"fp32": 40e12, "fp64": 0.625e12},
                  sm_count=108)
    # 5e8 FP64 FLOP in 1 ms = 0.5 TFLOP/s, below the 0.625 TFLOP/s roof (1e9 would be above it: implausible)
    k = _k(flop_counts={"fp64": 5e8}, dram_bytes_read=1e8, dram_bytes_write=0.0,
           compute_breakdown_pct={"sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed": 50.0})
    assert _one(k, "fp64_on_consumer_gpu", gpu).estimated_speedup == pytest.approx(1 / (1 - (1 - 1 / 64) * 0.5))


def test_program_gain_is_amdahl_over_the_report():
    # two launches, 3 ms and 1 ms: the first is 75% of GPU time; its uncoalesced loads (2.5x) save 0.75 x 0.6 = 45%
    slow = _k(index=0, duration_s=3e-3, metrics={"memory_l2_theoretical_sectors_global": 4000.0,
                                                 "memory_l2_theoretical_sectors_global_ideal": 1000.0, L2_PCT: 80.0})
    fast = _k(index=1, name="other", demangled_name="other", duration_s=1e-3)
    rd = diagnose_report(ProfileReport(path="x", format="plain", kernels=(slow, fast)), gpu=A100)
    d = rd.kernels[0]
    f = next(f for f in d.findings if f.id == "uncoalesced_global")
    assert d.time_share == pytest.approx(0.75)
    assert d.program_gain(f) == pytest.approx(0.45)


def test_generic_paragraph_only_without_a_specific_finding():
    d = diagnose(_k(sol_memory_pct=90.0, sol_compute_pct=20.0), A100)
    assert d.advice == ("class:memory-bound",)
    specific = diagnose(_k(sol_memory_pct=90.0, sol_compute_pct=20.0, dram_throughput_pct=90.0), A100)
    assert specific.advice == ("finding:dram_bandwidth_bound",)


def test_no_more_warps_advice_when_warp_slots_are_full():
    # latency-bound (compute 30%, memory 40%, one full wave) at 94% achieved occupancy: not "more warps"
    launch = LaunchConfig(grid=(1080, 1, 1), block=(256, 1, 1))
    busy = diagnose(_k(sol_compute_pct=30.0, sol_memory_pct=40.0, achieved_occupancy_pct=94.0, launch=launch), A100)
    assert busy.advice == ("class:latency-bound:occupied",)
    low = diagnose(_k(sol_compute_pct=30.0, sol_memory_pct=40.0, achieved_occupancy_pct=40.0, launch=launch), A100)
    assert low.advice == ("class:latency-bound",)


def test_nsight_findings_beside_ours():
    uga = RuleResult("UncoalescedGlobalAccess", "Uncoalesced", "OPTIMIZATION", "...", 40.0, "local")
    issue = RuleResult("IssueSlotUtilization", "Issue", "OPTIMIZATION", "...", 12.0, "local")
    div = RuleResult("ThreadDivergence", "Divergence", "INFO", "ran, fired nothing")
    k = _k(rules=(uga, issue, div), metrics={
        "memory_l2_theoretical_sectors_global": 1500.0, "memory_l2_theoretical_sectors_global_ideal": 1000.0,
        "smsp__thread_inst_executed_per_inst_executed.ratio": 12.0,
        "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio": 12.0})
    matches = {m.rule_id: m for m in diagnose(k, A100).nsight_matches}
    assert matches["UncoalescedGlobalAccess"].status == "agree"
    assert matches["UncoalescedGlobalAccess"].findings == ("uncoalesced_global",)
    assert matches["IssueSlotUtilization"].status == "no_counterpart"
    assert matches["ThreadDivergence"].status == "kernelscope_only"
    # the same Nsight rule without our evidence: Nsight only
    alone = diagnose(_k(rules=(uga,)), A100).nsight_matches
    assert [(m.rule_id, m.status) for m in alone] == [("UncoalescedGlobalAccess", "nsight_only")]


# ------------------------------------------------------------------------------------------------ corpus

#: Nsight Compute's cause rules the issue names -> the kernelscope finding of the same cause.
NSIGHT_CAUSES = {"UncoalescedGlobalAccess": "uncoalesced_global", "UncoalescedSharedAccess": "uncoalesced_shared",
                 "SharedMemoryConflicts": "shared_bank_conflicts", "ThreadDivergence": "thread_divergence"}


def _corpus():
    reports = corpus_reports()
    if not reports:
        pytest.skip(f"shared corpus not available: {CORPUS_NCU} is absent")
    return [diagnose_file(p) for p in reports]


def test_every_nsight_cause_is_found_from_metrics():
    checked = {}
    for rd in _corpus():
        for d in rd.kernels:
            ours = {f.id for f in d.findings}
            for r in d.kernel.rules:
                if r.rule_id in NSIGHT_CAUSES and r.message_type in ("OPTIMIZATION", "WARNING"):
                    key = (rd.report.path, d.kernel.index, r.rule_id)
                    checked[key] = NSIGHT_CAUSES[r.rule_id] in ours
    missing = [k for k, ok in checked.items() if not ok]
    assert not missing, missing
    # corpus counts (launches): UncoalescedGlobalAccess 3, ThreadDivergence 34; the two shared-memory rules never
    # fired (UncoalescedSharedAccess stored errors only)
    by_rule = {rule: sum(1 for k in checked if k[2] == rule) for rule in NSIGHT_CAUSES}
    assert by_rule == {"UncoalescedGlobalAccess": 3, "UncoalescedSharedAccess": 0, "SharedMemoryConflicts": 0,
                       "ThreadDivergence": 34}


def test_every_finding_has_an_estimate_or_says_why():
    n = 0
    for rd in _corpus():
        for d in rd.kernels:
            for f in d.findings:
                if f.advice and f.advice.startswith("finding:"):
                    n += 1
                    assert f.estimated_speedup is not None or f.speedup_note, (rd.report.path, f.id)
                    if f.estimated_speedup is not None:
                        assert 1.0 <= f.estimated_speedup < math.inf
    assert n > 100


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_corpus_finding_renders(lang):
    for rd in _corpus():
        text = to_table([rd], lang, width=200)
        assert "{" not in text.replace("{'", "")  # no unfilled template field


def test_naive_sgemm_is_a_memory_instruction_limit():
    path = need(CORPUS_NCU / "LakshyaSingh354__CudaCode__gemm_reps_naive.ncu-rep")
    for d in diagnose_file(path).kernels:
        assert d.classes == ("compute-bound",)
        assert d.limiters.top_compute.unit == "lsu"  # 83.1% LSU, FMA far below
        assert d.evidence[0].values["unit"] == "lsu"
        assert not any(a.startswith("class:compute-bound") for a in d.advice)  # no __fdividef paragraph
        assert d.advice[0] in ("finding:lg_throttle", "finding:memory_instructions_bound")
        assert "finding:memory_instructions_bound" in d.advice


def test_reference_gemm_with_a_block_on_every_sm_is_not_launch_bound():
    path = need(CORPUS_NCU / "panjd123__cutlass__report-s8.ncu-rep")
    d = next(d for d in diagnose_file(path).kernels if "ReferenceGemm" in d.kernel.name)
    assert d.kernel.launch.blocks == 576 and d.kernel.device.sm_count == 108
    assert d.classes == ("memory-bound",)
    assert d.limiters.top_memory.unit == "l1"


def test_persistent_kernel_is_latency_bound_not_launch_bound():
    path = need(SHARED / "corpus" / "ncu_csv" / "meinie_b200_raw_flashinfer_decode_gqa_bf16_b1_ctx4k.ncu.csv")
    persistent = [d for d in diagnose_file(path, gpu="NVIDIA B200").kernels if d.kernel.name.startswith("Persistent")]
    assert persistent and all(d.kernel.launch.blocks == 148 for d in persistent)
    for d in persistent:
        assert d.classes == ("latency-bound",)
        assert [n.key for n in d.evidence] == ["rule_latency_grid"]


def test_loaded_corpus_reports_keep_their_rule_results():
    path = need(CORPUS_NCU / "bwd29__self-join-MiSTIC__ilpProf.ncu-rep")
    k = load(path).kernels[0]
    assert sum(1 for r in k.rules if r.rule_id == "UncoalescedGlobalAccess") >= 1

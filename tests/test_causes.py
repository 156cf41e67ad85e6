"""Root-cause findings: each cause rule on a hand-built profile whose numbers are worked out by hand in the comments
(the performance model, kernelscope.analysis.performance: T'/T = max(1 - saved, the busiest unit after the change)),
the program-level gain, the advice order, and, on the shared corpus, Nsight Compute's own cause rules against ours and
the verdicts of the kernels the issue names."""

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


#: Speed-of-Light breakdown sub-metrics (data/units.toml): the units the performance model sizes against.
PIPE = "l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed"  # L1 data pipe
L2S = "lts__t_sectors.avg.pct_of_peak_sustained_elapsed"  # L2
DRAM = "dram__cycles_active.avg.pct_of_peak_sustained_elapsed"
LSU = "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_elapsed"
FMA = "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed"
ATOM = "lts__d_atomic_input_cycles_active.avg.pct_of_peak_sustained_elapsed"
SHARED_PART = "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed"
UNCOALESCED = {"memory_l2_theoretical_sectors_global": 4000.0, "memory_l2_theoretical_sectors_global_ideal": 1000.0,
               "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": 3000.0,
               "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": 1000.0,
               "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum": 0.0, "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum": 0.0,
               "l1tex__t_sector_hit_rate.pct": 0.0, "lts__t_sectors.sum": 5000.0, "lts__t_sector_hit_rate.pct": 50.0,
               "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": 100.0,
               "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": 250.0}


def test_uncoalesced_global_by_hand():
    # excess 3000 of 4000 sectors: 0.75 of the L1's 4000 global + local sectors; L1 hits 0 %, so all 3000 reach L2:
    # 0.6 of its 5000 sectors; half miss L2: 3000 x 32 B x 0.5 = 48 kB of the 96 kB of DRAM bytes = 0.5.
    # L1 80 % -> 20 %, L2 50 % -> 20 %, DRAM 40 % -> 20 %, LSU 30 % stays: saved = 0.6 (the L1's), floor 0.3:
    # T'/T = max(0.4, 0.3) = 0.4 -> 2.5x, a prediction
    k = _k(metrics=UNCOALESCED, dram_bytes_read=96000.0, dram_bytes_write=0.0,
           memory_breakdown_pct={PIPE: 80.0, L2S: 50.0, DRAM: 40.0}, compute_breakdown_pct={LSU: 30.0})
    f = _one(k, "uncoalesced_global")
    assert f.estimated_speedup == pytest.approx(2.5)
    assert f.estimate_kind == "prediction"
    assert f.change.work["l1"] == pytest.approx(0.75) and f.change.work["l2"] == pytest.approx(0.6)
    assert f.change.work["dram"] == pytest.approx(0.5)
    # the text is the evidence: loads 30 sectors per request, stores 4
    assert f.message.values["excess_pct"] == pytest.approx(75.0)
    assert f.message.values["ld_per_request"] == pytest.approx(30.0) and f.message.values["st_per_request"] == 4.0
    assert f.advice == "finding:uncoalesced_global"
    # the LSU pipe at 70 % issues the same instructions after the fix: at most 1 / 0.7 = 1.43x, whatever the waste
    busy_lsu = _k(metrics=UNCOALESCED, dram_bytes_read=96000.0, dram_bytes_write=0.0,
                  memory_breakdown_pct={PIPE: 80.0, L2S: 50.0, DRAM: 40.0}, compute_breakdown_pct={LSU: 70.0})
    assert _one(busy_lsu, "uncoalesced_global").estimated_speedup == pytest.approx(1 / 0.7)
    # ideal accesses: no finding
    ideal = _k(metrics={"memory_l2_theoretical_sectors_global": 1000.0, "memory_l2_theoretical_sectors_global_ideal": 1000.0})
    assert _one(ideal, "uncoalesced_global") is None


def test_uncoalesced_global_in_a_kernel_whose_l2_traffic_is_local():
    # the same 3000 excess sectors of 4000 global, but 96000 local sectors at L1 and 99000 L2 sectors (97 % local,
    # register spills): 3000 / 100000 = 0.03 of the L1 sectors; L1 hits 90 %: 300 reach L2, 0.003 of its sectors.
    # The L1 at 80 % loses 2.4 points: 1 / (1 - 0.024) = 1.025x, not the 0.75 x 80 % = 2.5x of the global share alone
    m = {**UNCOALESCED, "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum": 96000.0, "lts__t_sectors.sum": 99000.0,
         "l1tex__t_sector_hit_rate.pct": 90.0}
    f = _one(_k(metrics=m, memory_breakdown_pct={PIPE: 80.0, L2S: 50.0}), "uncoalesced_global")
    assert f.estimated_speedup == pytest.approx(1 / (1 - 0.8 * 0.03))


def test_uncoalesced_shared_by_hand():
    # 300 wavefronts for 100 ideal, no bank-conflict counters: 200 excess = 2/3 of the shared wavefronts. Shared
    # memory 45 % -> 15 %, the L1 data pipe 50 % -> 20 %: 0.3 of the time less work, but DRAM (55 %) is the busiest
    # unit and overlaps with them: only the 45 % it leaves uncovered can shrink: saved 0.3 x 0.45 = 0.135 -> 1.156x;
    # with the L1 data pipe the busiest (70 % vs DRAM 55 %) its own 0.3 counts whole: 1 / 0.7 = 1.4286x
    m = {"memory_l1_wavefronts_shared": 300.0, "memory_l1_wavefronts_shared_ideal": 100.0, SHARED_PART: 45.0}
    f = _one(_k(metrics=m, memory_breakdown_pct={PIPE: 50.0, DRAM: 55.0}), "uncoalesced_shared")
    assert f.estimated_speedup == pytest.approx(1 / (1 - 0.3 * 0.45))
    f = _one(_k(metrics=m, memory_breakdown_pct={PIPE: 70.0, DRAM: 55.0}), "uncoalesced_shared")
    assert f.estimated_speedup == pytest.approx(1 / 0.7)
    # DRAM at 80 %: 0.3 x 0.2 = 0.06 -> 1.064x
    f = _one(_k(metrics=m, memory_breakdown_pct={PIPE: 50.0, DRAM: 80.0}), "uncoalesced_shared")
    assert f.estimated_speedup == pytest.approx(1 / 0.94)
    # without the shared part of the L1 measured: not sized by the whole L1's throughput
    no_part = _one(_k(metrics={k: v for k, v in m.items() if k != SHARED_PART}, memory_breakdown_pct={PIPE: 96.0}),
                   "uncoalesced_shared")
    assert no_part.estimated_speedup is None and "shared memory" in no_part.speedup_note


CONFLICTS = {"smsp__sass_inst_executed_op_shared_ld.sum": 100.0,
             "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": 3200.0,
             "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": 3100.0,
             "smsp__sass_inst_executed_op_shared_st.sum": 100.0,
             "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": 105.0,
             "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": 5.0}


def test_without_a_breakdown_the_speed_of_light_figures_bound_the_estimate():
    # no sub-metric measured, only SOL compute 40 % and memory 50 %: the kernel's busiest unit is at 50 % at least,
    # so hiding a stall of 0.6 of the warp cycles gives at most 1 / max(0.4, 0.5) = 2x
    stalls = dict(stall_values={"long_scoreboard": 6.0, "wait": 2.0, "selected": 2.0}, stall_family="per_issue_active")
    d = diagnose(_k(**stalls, metrics={ISSUE: 20.0}), A100)
    assert {c.metric for c in d.units.counters} == {"sm__throughput.avg.pct_of_peak_sustained_elapsed",
                                                    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"}


def test_bank_conflicts_n_way_and_estimate_by_hand():
    # loads: 3200 wavefronts of which 3100 conflicts: 3200 / (3200 - 3100) = 32-way; they are 3100 / 3305 of all
    # shared wavefronts (stores: 5 of 105 = 4.8 % < 10 %: no finding). Shared 50 % -> 3.1 %, data pipe 60 % -> 13.1 %:
    # saved 0.469, floor 0.2 (issue): 1 / (1 - 0.5 x 3100 / 3305) = 1.883x
    k = _k(metrics={**CONFLICTS, SHARED_PART: 50.0}, memory_breakdown_pct={PIPE: 60.0}, compute_breakdown_pct={ISSUE: 20.0})
    found = [f for f in diagnose(k, A100).findings if f.id == "shared_bank_conflicts"]
    assert [f.message.values["op"] for f in found] == ["ld"]
    assert found[0].message.values["nway"] == pytest.approx(32.0)
    assert found[0].estimated_speedup == pytest.approx(1 / (1 - 0.5 * 3100 / 3305))


def test_bank_conflicts_of_128_bit_loads_count_the_conflict_free_wavefronts():
    # case N13: LDS.128, 8,844,480 loads, 283,023,360 wavefronts, 247,645,440 conflicts: 35,377,920 conflict-free
    # wavefronts = 4 per request (the 128-bit minimum); 283,023,360 / 35,377,920 = 8-way, not 32
    k = _k(metrics={"smsp__sass_inst_executed_op_shared_ld.sum": 8844480.0,
                    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": 283023360.0,
                    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": 247645440.0})
    f = _one(k, "shared_bank_conflicts")
    assert f.message.values["nway"] == pytest.approx(8.0)
    assert f.message.values["conflict_pct"] == pytest.approx(87.5)
    assert f.estimated_speedup is None  # L1/TEX and shared throughput not measured


def test_bank_conflicts_and_uncoalesced_shared_never_count_the_same_wavefronts():
    # 3305 wavefronts, 305 ideal: 3000 excess, of which 3100 + 5 are bank conflicts: nothing left for
    # uncoalesced_shared; with 3500 excess, the 395 not due to conflicts are its own (395 / 3805 = 10.4 %)
    base = {**CONFLICTS, SHARED_PART: 50.0, "memory_l1_wavefronts_shared": 3305.0, "memory_l1_wavefronts_shared_ideal": 305.0}
    d = diagnose(_k(metrics=base, memory_breakdown_pct={PIPE: 60.0}), A100)
    assert "uncoalesced_shared" not in {f.id for f in d.findings}
    more = {**base, "memory_l1_wavefronts_shared": 3805.0}
    f = _one(_k(metrics=more, memory_breakdown_pct={PIPE: 60.0}), "uncoalesced_shared")
    assert f.message.values["excess_pct"] == pytest.approx(100 * (3500 - 3105) / 3805)


def test_bank_conflicts_in_a_dram_bound_kernel_barely_matter():
    # the same conflicts with shared memory at 4 % while DRAM runs at 92 %: 0.04 x 0.938 less shared work, of which
    # only the 8 % of the time DRAM leaves uncovered can go: 1 / (1 - 0.0375 x 0.08) = 1.003x; the DRAM limit (not
    # estimated: only fewer bytes help) comes first
    k = _k(metrics={**CONFLICTS, SHARED_PART: 4.0}, memory_breakdown_pct={PIPE: 10.0, DRAM: 92.0},
           sol_memory_pct=92.0, dram_throughput_pct=92.0)
    d = diagnose(k, A100)
    conflicts = next(f for f in d.findings if f.id == "shared_bank_conflicts")
    assert conflicts.estimated_speedup == pytest.approx(1 / (1 - 0.04 * 3100 / 3305 * 0.08))
    assert conflicts.estimated_speedup <= 1 / 0.92
    assert d.advice[0] == "finding:dram_bandwidth_bound"


def test_thread_divergence_by_hand():
    # 12 active, 10 predicated-on threads per instruction: 1 - 10/32 = 0.6875 of the instructions; issue 40 % ->
    # 12.5 %, FMA 30 % -> 9.4 %, DRAM 20 % stays: T'/T = max(1 - 0.275, 0.2) -> 1.3793x, an upper bound
    k = _k(metrics={"smsp__thread_inst_executed_per_inst_executed.ratio": 12.0,
                    "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio": 10.0},
           compute_breakdown_pct={ISSUE: 40.0, FMA: 30.0}, memory_breakdown_pct={DRAM: 20.0})
    f = _one(k, "thread_divergence")
    assert f.estimated_speedup == pytest.approx(1 / 0.725)
    assert f.estimate_kind == "upper_bound"
    assert f.message.values["by"] == "divergence" and f.message.values["used"] == 10.0
    full = _k(metrics={"smsp__thread_inst_executed_per_inst_executed.ratio": 31.5,
                       "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio": 30.0})
    assert _one(full, "thread_divergence") is None


def test_predication_is_not_called_divergence():
    # 31.8 threads active, 20.3 predicated on: Nsight's ThreadDivergence fires on the 20.3; the text gives both
    k = _k(metrics={"smsp__thread_inst_executed_per_inst_executed.ratio": 31.8,
                    "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio": 20.3},
           compute_breakdown_pct={ISSUE: 40.0})
    d = diagnose(k, A100)
    f = next(f for f in d.findings if f.id == "thread_divergence")
    assert f.message.values["by"] == "predication"
    text = to_table(_report(k), "en", width=200)
    assert "31.8 of 32 threads are active" in text and "20.3 of them predicated on" in text
    assert "Only 31.8" not in text


def _report(*ks: KernelProfile):
    return [diagnose_report(ProfileReport(path="x", format="plain", kernels=ks), gpu=A100)]


def test_register_spills_by_hand():
    # local 900 + 100 sectors of 2000 at L1: 0.5; their L1 misses 300 + 100 = 400 of the 1000 L2 sectors: 0.4;
    # local requests 50 + 10 of 200 L1 requests: 0.3 of the LSU pipe; 200 local instructions of 1000: 0.2 of issue.
    # L1 70 % -> 35 %, L2 30 % -> 18 %, LSU 40 % -> 28 %, issue 50 % -> 40 %: T'/T = max(1 - 0.35, 0.40) -> 1.5385x
    m = {"l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum": 900.0, "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum": 100.0,
         "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": 800.0, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": 200.0,
         "l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_miss.sum": 300.0,
         "l1tex__t_sectors_pipe_lsu_mem_local_op_st_lookup_miss.sum": 100.0, "lts__t_sectors.sum": 1000.0,
         "l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum": 50.0, "l1tex__t_requests_pipe_lsu_mem_local_op_st.sum": 10.0,
         "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": 100.0, "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": 40.0,
         "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum": 0.0, "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum": 0.0,
         "sass__inst_executed_local_loads": 150.0, "sass__inst_executed_local_stores": 50.0,
         "smsp__inst_executed.sum": 1000.0}
    k = _k(metrics=m, memory_breakdown_pct={PIPE: 70.0, L2S: 30.0}, compute_breakdown_pct={LSU: 40.0, ISSUE: 50.0})
    f = _one(k, "register_spills")
    assert f.message.values["local_pct"] == pytest.approx(50.0)
    assert f.estimated_speedup == pytest.approx(1 / 0.65)
    # instruction issue at 90 % is the busiest unit: it loses 18 points (the local instructions), the L1's 35 count
    # only on the 10 % issue leaves uncovered: saved max(0.18, 0.035) -> 1 / 0.82 = 1.22x (the DRAM utilisation, 20 %
    # here, does not size a spill)
    busy = _k(metrics=m, memory_breakdown_pct={PIPE: 70.0, L2S: 30.0, DRAM: 20.0},
              compute_breakdown_pct={LSU: 40.0, ISSUE: 90.0})
    assert _one(busy, "register_spills").estimated_speedup == pytest.approx(1 / 0.82)


def test_dram_at_its_roof_names_the_headroom_but_is_not_a_prediction():
    # DRAM 90 %: no change that moves the same bytes can win more than 100 / 90 = 1.111x (in the text); moving
    # fewer bytes gains in proportion to the bytes: not estimated
    f = _one(_k(sol_memory_pct=90.0, dram_throughput_pct=90.0), "dram_bandwidth_bound")
    assert f.estimated_speedup is None
    assert f.message.values["headroom"] == pytest.approx(100 / 90)
    assert "1.11x" in f.speedup_note


def test_low_l2_hit_rate_needs_busy_dram():
    assert _one(_k(dram_throughput_pct=50.0, metrics={"lts__t_sector_hit_rate.pct": 30.0}), "low_l2_hit_rate") is not None
    assert _one(_k(dram_throughput_pct=20.0, metrics={"lts__t_sector_hit_rate.pct": 30.0}), "low_l2_hit_rate") is None
    assert _one(_k(dram_throughput_pct=50.0, metrics={"lts__t_sector_hit_rate.pct": 70.0}), "low_l2_hit_rate") is None


def test_atomic_contention_in_the_busiest_slice():
    # the atomic unit averages 10 % over the L2 slices but its busiest slice runs at 75 %: atomics on one address.
    # One atomic per warp: 31/32 of the atomic work; the busiest L2 slice (50 % vs 20 % on average) loses 31/32 of
    # its excess over the average. Atomics 75 % -> 2.3 %, that slice 50 % -> 20.9 %:
    # T'/T = max(1 - 0.7266, 0.209) -> 1 / (1 - 31/32 x 0.75) = 3.657x
    k = _k(memory_breakdown_pct={ATOM: 10.0, L2S: 20.0}, compute_breakdown_pct={ISSUE: 10.0},
           metrics={ATOM.replace(".avg.", ".max."): 75.0, L2S.replace(".avg.", ".max."): 50.0})
    f = _one(k, "atomic_contention")
    assert f.estimated_speedup == pytest.approx(1 / (1 - 31 / 32 * 0.75))
    assert f.message.values == {"pct": 75.0, "avg": 10.0}
    # the average alone (a report without the .max twin): 10 % is no contention
    assert _one(_k(memory_breakdown_pct={ATOM: 10.0}), "atomic_contention") is None


def test_a_hot_l2_slice_bounds_the_kernel():
    # the busiest slice's sectors at 90 % against 30 % on average (3x): the kernel cannot finish before that slice.
    # Spread evenly: 90 % -> 30 %, DRAM 40 %: T'/T = max(1 - 0.6, 0.4) = 0.4 -> at most 2.5x; any other change at
    # most 1 / 0.9
    k = _k(memory_breakdown_pct={L2S: 30.0, DRAM: 40.0}, metrics={L2S.replace(".avg.", ".max."): 90.0},
           compute_breakdown_pct={ISSUE: 20.0})
    d = diagnose(k, A100)
    f = next(f for f in d.findings if f.id == "hot_l2_slice")
    assert f.estimated_speedup == pytest.approx(2.5) and f.estimate_kind == "upper_bound"
    assert f.message.values["ratio"] == pytest.approx(3.0)
    others = [g for g in d.findings if g.estimated_speedup and g.id != "hot_l2_slice"]
    assert all(g.estimated_speedup <= 1 / 0.9 + 1e-9 for g in others)
    even = _k(memory_breakdown_pct={L2S: 30.0}, metrics={L2S.replace(".avg.", ".max."): 40.0})
    assert _one(even, "hot_l2_slice") is None


def test_long_scoreboard_hidden_is_an_upper_bound_within_the_units():
    # per issue-active values: long scoreboard 6, wait 2, selected 2 -> 0.6 of all warp cycles, 0.75 of the stalls.
    # Hidden completely, the same warps issue 1 / (1 - 0.6) as often (Little's law): T'/T = max(0.4, issue 0.2)
    # -> at most 2.5x
    stalls = dict(stall_values={"long_scoreboard": 6.0, "wait": 2.0, "selected": 2.0}, stall_family="per_issue_active",
                  compute_breakdown_pct={ISSUE: 20.0})
    f = _one(_k(memory_breakdown_pct={DRAM: 10.0}, **stalls), "long_scoreboard_latency")
    assert f.estimated_speedup == pytest.approx(2.5) and f.estimate_kind == "upper_bound"
    # DRAM at 70 %: no faster than 1 / 0.7
    capped = _one(_k(memory_breakdown_pct={DRAM: 70.0}, **stalls), "long_scoreboard_latency")
    assert capped.estimated_speedup == pytest.approx(1 / 0.7)
    # without sm__issue_active: not sized
    bare = _one(_k(stall_values=stalls["stall_values"], stall_family="per_issue_active"), "long_scoreboard_latency")
    assert bare.estimated_speedup is None and "sm__issue_active" in bare.speedup_note


def test_workload_imbalance_by_hand():
    # avg 800, max 1000 active cycles per SM; 100 SMs (80000 / 800), 1000 elapsed cycles each: the SM time after the
    # average SM is done, (1000 - 800) / 1000 = 0.2, recovered when the work is spread: at most 1 / 0.8 = 1.25x
    k = _k(metrics={"sm__cycles_active.avg": 800.0, "sm__cycles_active.max": 1000.0, "sm__cycles_active.sum": 80000.0,
                    "sm__cycles_elapsed.sum": 100000.0}, compute_breakdown_pct={ISSUE: 30.0})
    f = _one(k, "workload_imbalance")
    assert f.estimated_speedup == pytest.approx(1.25) and f.estimate_kind == "upper_bound"


def test_unfused_fp32_counts_only_pairs():
    rate = "smsp__sass_thread_inst_executed_op_{}_pred_on.sum.per_cycle_elapsed"
    # FADD 10, FMUL 10, FFMA 20: 10 pairs fuse, 0.25 of the FP32 instructions; FMA pipe 60 % -> 45 %: 1 / 0.85
    k = _k(metrics={rate.format("fadd"): 10.0, rate.format("fmul"): 10.0, rate.format("ffma"): 20.0},
           compute_breakdown_pct={FMA: 60.0})
    assert _one(k, "unfused_fp32").estimated_speedup == pytest.approx(1 / 0.85)
    # adds without multiplies cannot fuse (Nsight's FPInstructions rule would still fire)
    adds = _k(metrics={rate.format("fadd"): 10.0, rate.format("fmul"): 0.0, rate.format("ffma"): 0.0},
              compute_breakdown_pct={FMA: 60.0})
    assert _one(adds, "unfused_fp32") is None


def test_memory_instructions_vs_math_pipe():
    d = diagnose(_k(sol_compute_pct=84.0, compute_breakdown_pct={LSU: 84.0, FMA: 22.0}), A100)
    assert [f.id for f in d.findings if f.id.endswith("_bound") and f.advice] == ["memory_instructions_bound"]
    assert d.evidence[0].key == "rule_compute_unit" and d.evidence[0].values["unit"] == "lsu"
    # an arithmetic pipe at 90 %: at its limit; any other change at most 100 / 90 (text), not an estimate
    math_bound = _one(_k(sol_compute_pct=90.0, compute_breakdown_pct={FMA: 90.0}), "compute_pipe_bound")
    assert math_bound.estimated_speedup is None
    assert math_bound.message.values["headroom"] == pytest.approx(100 / 90)


def test_tensor_cores_unused_by_hand():
    # FP32 GEMM-like work above the ridge (AI 50 > 19.5e12 / 1.555e12 = 12.5): FMA pipe 70 %, tensor idle;
    # 1 - 19.5 / 156 = 0.875 of the FMA work at the tensor rate: 70 % -> 8.75 %: at most 1 / (1 - 0.6125) = 2.58x
    # (in 5 ms: 10 TFLOP/s, below the FP32 roof; 5e10 FLOP in 1 ms would be above it, an implausible count)
    k = _k(sol_compute_pct=70.0, flop_counts={"fp32": 5e10}, dram_bytes_read=1e9, dram_bytes_write=0.0,
           compute_breakdown_pct={FMA: 70.0}, memory_breakdown_pct={DRAM: 20.0}, tensor_pipe_active_pct=0.0,
           duration_s=5e-3)
    f = _one(k, "tensor_cores_unused")
    assert f.estimated_speedup == pytest.approx(1 / (1 - 0.875 * 0.7)) and f.estimate_kind == "upper_bound"
    no_tensor = GpuSpec(name="old", dram_bandwidth_bytes_per_s=1.555e12, peak_flops_per_s={"fp32": 19.5e12}, sm_count=108)
    assert _one(k, "tensor_cores_unused", no_tensor) is None


def test_fp64_on_a_consumer_gpu_by_hand():
    # FP32 40 TFLOP/s, FP64 1/64 of it; FP64 pipe 50 %: (1 - 1/64) of it at the FP32 rate -> 1 / (1 - 0.4922) = 1.969x
    gpu = GpuSpec(name="consumer", dram_bandwidth_bytes_per_s=1e12, peak_flops_per_s={"fp32": 40e12, "fp64": 0.625e12},
                  sm_count=108)
    # 5e8 FP64 FLOP in 1 ms = 0.5 TFLOP/s, below the 0.625 TFLOP/s roof (1e9 would be above it: implausible)
    k = _k(flop_counts={"fp64": 5e8}, dram_bytes_read=1e8, dram_bytes_write=0.0,
           compute_breakdown_pct={"sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed": 50.0})
    assert _one(k, "fp64_on_consumer_gpu", gpu).estimated_speedup == pytest.approx(1 / (1 - (1 - 1 / 64) * 0.5))


def test_program_gain_is_amdahl_over_the_report():
    # two launches, 3 ms and 1 ms: the first is 75% of GPU time; its uncoalesced accesses (2.5x) save 0.75 x 0.6 = 45%
    slow = _k(index=0, duration_s=3e-3, metrics=UNCOALESCED, dram_bytes_read=96000.0, dram_bytes_write=0.0,
              memory_breakdown_pct={PIPE: 80.0, L2S: 50.0, DRAM: 40.0}, compute_breakdown_pct={LSU: 30.0})
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
    assert busy.advice == ("class:latency-bound",)
    assert "latency_occupied" in busy.advice_findings[0].remedies
    assert "latency_more_warps" not in busy.advice_findings[0].remedies
    low = diagnose(_k(sol_compute_pct=30.0, sol_memory_pct=40.0, achieved_occupancy_pct=40.0, launch=launch), A100)
    assert low.advice == ("class:latency-bound",) and "latency_occupied" not in low.advice_findings[0].remedies


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
NSIGHT_CAUSES = {"UncoalescedGlobalAccess": {"uncoalesced_global"},
                 # Nsight's excess shared wavefronts include the bank conflicts, which kernelscope reports apart
                 "UncoalescedSharedAccess": {"uncoalesced_shared", "shared_bank_conflicts"},
                 "SharedMemoryConflicts": {"shared_bank_conflicts"}, "ThreadDivergence": {"thread_divergence"}}


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
                    checked[key] = bool(NSIGHT_CAUSES[r.rule_id] & ours)
    missing = [k for k, ok in checked.items() if not ok]
    assert not missing, missing
    # corpus counts (launches), the 38 reports: the 16 added ones bring UncoalescedGlobalAccess 3 -> 8, the two
    # shared-memory rules (fired in the feather_gemm tiled kernels and the transpose) and ThreadDivergence 34 -> 41
    by_rule = {rule: sum(1 for k in checked if k[2] == rule) for rule in NSIGHT_CAUSES}
    assert by_rule == {"UncoalescedGlobalAccess": 8, "UncoalescedSharedAccess": 3, "SharedMemoryConflicts": 4,
                       "ThreadDivergence": 41}


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

"""A latency verdict that rests on the compute side alone says so: where the report measured no memory throughput (no
Speed-of-Light memory figure, no counter of a memory-side unit), the latency paragraph first asks to confirm the
verdict, since a memory-bound kernel shows the same low compute figures (native review 15: a B200 decode kernel
called latency-bound with memory not measured)."""

from __future__ import annotations

import dataclasses

import pytest

from conftest import SHARED, need
from test_design import A100, ISSUE, _k
from kernelscope import diagnose_file
from kernelscope.analysis.diagnosis import diagnose
from kernelscope.model import LaunchConfig

DRAM = "dram__throughput.avg.pct_of_peak_sustained_elapsed"
L2 = "lts__t_sectors.avg.pct_of_peak_sustained_elapsed"


def _latency_paragraph(**kw):
    # 216 blocks of 2 warps on 108 SMs: 4 of 64 warp slots per SM, the busiest measured unit at 20 %: latency-bound
    launch = LaunchConfig(grid=(216, 1, 1), block=(64, 1, 1), registers_per_thread=32, shared_mem_static_bytes=0,
                          shared_mem_dynamic_bytes=0)
    args = {"sol_compute_pct": None, "sol_memory_pct": None, "compute_breakdown_pct": {ISSUE: 20.0}, **kw}
    d = diagnose(_k(launch=launch, **args), A100)
    return next(f for f in d.findings if f.advice == "class:latency-bound")


def test_a_latency_verdict_without_memory_data_asks_to_confirm_it():
    f = _latency_paragraph()
    assert f.id == "latency_from_grid" and f.remedies[0] == "latency_memory_not_measured"


def test_any_memory_figure_is_enough():
    for memory in ({DRAM: 15.0}, {L2: 10.0}):
        f = _latency_paragraph(memory_breakdown_pct=memory)
        assert "latency_memory_not_measured" not in f.remedies
    f = _latency_paragraph(sol_memory_pct=12.0)
    assert "latency_memory_not_measured" not in f.remedies


def test_corpus_b200_decode_without_memory_data():
    d = diagnose_file(need(SHARED / "corpus" / "ncu_csv" / "meinie_b200_raw_flashinfer_decode_gqa_bf16_b1_ctx4k.ncu.csv"))
    for k in d.kernels:
        f = next(f for f in k.findings if f.advice == "class:latency-bound")
        assert f.remedies[0] == "latency_memory_not_measured", k.kernel.name


def test_the_occupancy_gap_of_a_small_grid_names_the_grid():
    # 54 blocks on 108 SMs (half a wave): achieved 20 % of a theoretical 100 %; the gap's cause is the grid, said so
    launch = LaunchConfig(grid=(54, 1, 1), block=(256, 1, 1), registers_per_thread=32, shared_mem_static_bytes=0,
                          shared_mem_dynamic_bytes=0)
    k = _k(launch=launch, achieved_occupancy_pct=20.0, compute_breakdown_pct={ISSUE: 20.0})
    d = diagnose(k, A100)
    gap = next(f for f in d.findings if f.id == "occupancy_gap")
    assert gap.message.key == "occupancy_gap_grid" and gap.message.values["waves"] < 1
    # an ordinary grid (1080 blocks, 1.25 waves) keeps the general causes where a partial last wave can explain the
    # gap: the second wave's time at a quarter of the blocks lowers the average by at most 100 / 2 = 50 points
    grid = LaunchConfig(grid=(1080, 1, 1), block=(256, 1, 1), registers_per_thread=32, shared_mem_static_bytes=0,
                        shared_mem_dynamic_bytes=0)
    gap = next(f for f in diagnose(_k(launch=grid, achieved_occupancy_pct=55.0, compute_breakdown_pct={ISSUE: 20.0}),
                                   A100).findings if f.id == "occupancy_gap")
    assert gap.message.key == "occupancy_gap"
    # ... and says it cannot where the gap is larger (20 % achieved: 80 points), as over many waves
    for blocks, achieved, points in ((1080, 20.0, 50.0), (108 * 8 * 85 + 1, 25.8, 100 / 86)):
        k = _k(launch=dataclasses.replace(grid, grid=(blocks, 1, 1)), achieved_occupancy_pct=achieved,
               compute_breakdown_pct={ISSUE: 20.0})
        gap = next(f for f in diagnose(k, A100).findings if f.id == "occupancy_gap")
        assert gap.message.key == "occupancy_gap_waves"
        assert gap.message.values["tail_points"] == pytest.approx(points)


def test_corpus_an_inferred_fix_whose_bound_held_leads_what_the_report_cannot_tell():
    # ESMM basic (SOL / Occupancy / Launch only): the L1 wavefronts inferred from two utilisations, at most 8.46x
    # (the coalesced kernel ran 7.71x faster), rank by their bound, before the re-profile item (blind reviews 15, 16)
    from conftest import CORPUS_NCU
    d = next(k for k in diagnose_file(need(CORPUS_NCU / "AveryClapp__ESMM-Research__profile.ncu-rep")).kernels
             if k.kernel.name == "basic")
    ids = [f.id for f in d.worthwhile_advice]
    assert ids[0] == "excess_l1_wavefronts" and "not_collected" in ids[1:]

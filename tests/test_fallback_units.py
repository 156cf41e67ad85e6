"""Units a report measured without their Speed-of-Light breakdown (an ncu console print or a CSV of chosen metrics)
still size estimates: the tensor pipe from sm__pipe_tensor_cycles_active and DRAM derived from its bytes over the
duration (kernelscope.analysis.performance._fallback_counters). Expectations computed by hand."""

from __future__ import annotations

import pytest

from conftest import CASES, need
from kernelscope.analysis.diagnosis import diagnose
from kernelscope.analysis.performance import DRAM_DERIVED, TENSOR_ACTIVE, TENSOR_ELAPSED, units_of
from kernelscope.ingest import load
from kernelscope.knowledge.gpus import find_gpu
from kernelscope.model import DeviceInfo, KernelProfile, LaunchConfig

N17 = CASES / "N17_ncu_console_blackwell_utc_fp8.txt"


def _k(metrics: dict, **kw) -> KernelProfile:
    return KernelProfile(index=0, name="k", demangled_name="k", duration_s=1e-3, launch=LaunchConfig(grid=(128, 1, 1), block=(256, 1, 1)),
                         device=DeviceInfo(display_name="x", compute_capability=(9, 0), sm_count=132),
                         metrics=metrics, **kw)


def test_the_tensor_pipe_over_active_cycles_is_scaled_to_the_elapsed_ones():
    # 80 % of the active cycles, SMs active 75 % of the elapsed ones -> 60 % of the elapsed time; busiest SM 80 %
    u = units_of(_k({TENSOR_ACTIVE: 80.0, "sm__cycles_active.avg": 750.0, "sm__cycles_elapsed.avg": 1000.0}))
    (c,) = u.of("tensor")
    assert (c.metric, c.busy, c.hottest) == (TENSOR_ACTIVE, pytest.approx(0.6), pytest.approx(0.8))


def test_without_sm_cycles_the_active_share_stands_and_the_elapsed_one_wins():
    (c,) = units_of(_k({TENSOR_ACTIVE: 71.3})).of("tensor")
    assert c.busy == pytest.approx(0.713) == c.hottest
    (c,) = units_of(_k({TENSOR_ACTIVE: 71.3, TENSOR_ELAPSED: 50.0})).of("tensor")
    assert (c.metric, c.busy) == (TENSOR_ELAPSED, pytest.approx(0.5))


def test_derived_dram_only_where_no_memory_figure_was_measured():
    (c,) = units_of(_k({}), derived_dram_pct=16.6).of("dram")
    assert (c.metric, c.busy) == (DRAM_DERIVED, pytest.approx(0.166))
    measured = _k({}, sol_memory_pct=40.0)
    assert units_of(measured, derived_dram_pct=16.6).of("dram") == ()
    assert units_of(_k({}), derived_dram_pct=None).counters == ()


def test_n17_small_grid_is_sized_and_the_busiest_unit_is_the_tensor_pipe():
    """128 blocks of one per SM on B200's 148 SMs: 20 SMs idle, spreading the work over all of them at most
    148 / 128 = 1.156x; the unaffected DRAM (67.10 MB / 52.48 µs = 1.279 TB/s of 7.7 TB/s, 16.6 %) allows more; the
    busiest unit is the tensor pipe at 71.3 % of the active cycles (no SM cycles in the print)."""
    (k,) = load(need(N17)).kernels
    d = diagnose(k, find_gpu("NVIDIA B200"))
    small = next(f for f in d.findings if f.id == "small_grid")
    assert small.estimated_speedup == pytest.approx(148 / 128, rel=1e-3)
    assert small.estimate_kind == "upper_bound"
    units = units_of(k, derived_dram_pct=d.roofline.derived_dram_throughput_pct)
    busiest = max(units.counters, key=lambda c: c.hottest)
    assert busiest.unit == "tensor" and busiest.hottest == pytest.approx(0.713)
    (dram,) = units.of("dram")
    assert dram.busy == pytest.approx(67.10e6 / 52.48e-6 / 7.7e12, rel=2e-3)

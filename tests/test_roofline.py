"""Roofline arithmetic against hand-computed values."""

from __future__ import annotations

import math

import pytest

from kernelscope.analysis.roofline import COMPUTE_BOUND, MEMORY_BOUND, ridge_point, roofline_point


def test_case_c08_vec_scale_numbers():
    # shared case C08: 2,097,152 FLOP, 8,388,608 DRAM bytes, 5120 ns on an sm_90 part.
    # AI = 0.25 FLOP/B, achieved = 409.6 GFLOP/s; H100 SXM5 FP32: 67e12 / 3.35e12 = 20 FLOP/B.
    p = roofline_point("fp32", 67e12, 3.35e12, flops=2_097_152, dram_bytes=8_388_608, duration_s=5120e-9)
    assert p.arithmetic_intensity_flop_per_byte == pytest.approx(0.25)
    assert p.achieved_flops_per_s == pytest.approx(409.6e9)
    assert p.ridge_point_flop_per_byte == pytest.approx(20.0)
    assert p.bound == MEMORY_BOUND
    assert p.attainable_flops_per_s == pytest.approx(0.25 * 3.35e12)
    assert p.efficiency == pytest.approx(409.6e9 / (0.25 * 3.35e12))
    assert p.not_measured == ()


def test_compute_bound_attainable_is_peak():
    p = roofline_point("fp16_tensor", 312e12, 2.039e12, flops=1e12, dram_bytes=1e9, duration_s=0.01)
    assert p.bound == COMPUTE_BOUND  # AI 1000 > 153
    assert p.attainable_flops_per_s == 312e12
    assert p.efficiency == pytest.approx(1e14 / 312e12)


def test_exactly_at_ridge_is_compute_bound():
    p = roofline_point("fp32", 10e12, 1e12, flops=10.0, dram_bytes=1.0, duration_s=1.0)
    assert p.arithmetic_intensity_flop_per_byte == p.ridge_point_flop_per_byte == 10.0
    assert p.bound == COMPUTE_BOUND


def test_missing_measurements_are_none_with_reasons_never_zero():
    p = roofline_point("fp32", 19.5e12, 1.555e12, flops=None, dram_bytes=1e6, duration_s=1e-3)
    assert p.arithmetic_intensity_flop_per_byte is None
    assert p.achieved_flops_per_s is None and p.efficiency is None and p.bound is None
    assert "flops_not_measured" in p.not_measured
    q = roofline_point("fp32", 19.5e12, 1.555e12, flops=1e6, dram_bytes=None, duration_s=None)
    assert q.achieved_flops_per_s is None
    assert {"dram_bytes_not_measured", "duration_not_measured"} <= set(q.not_measured)


def test_no_dram_traffic_is_infinite_intensity():
    p = roofline_point("fp32", 19.5e12, 1.555e12, flops=100.0, dram_bytes=0.0, duration_s=1e-6)
    assert math.isinf(p.arithmetic_intensity_flop_per_byte)
    assert p.bound == COMPUTE_BOUND and p.attainable_flops_per_s == 19.5e12


def test_zero_flops_has_no_efficiency():
    p = roofline_point("fp32", 19.5e12, 1.555e12, flops=0.0, dram_bytes=1e6, duration_s=1e-6)
    assert p.achieved_flops_per_s == 0.0
    assert p.efficiency is None
    assert "efficiency_undefined" in p.not_measured


@pytest.mark.parametrize("peak, bw", [(0, 1e12), (-1, 1e12), (1e12, 0), (math.nan, 1e12), (1e12, math.inf)])
def test_bad_peaks_raise(peak, bw):
    with pytest.raises(ValueError):
        ridge_point(peak, bw)


@pytest.mark.parametrize("kw", [{"flops": -1.0}, {"dram_bytes": math.nan}, {"duration_s": 0.0}])
def test_bad_measurements_raise(kw):
    args = {"flops": 1.0, "dram_bytes": 1.0, "duration_s": 1.0, **kw}
    with pytest.raises(ValueError):
        roofline_point("fp32", 1e12, 1e12, **args)

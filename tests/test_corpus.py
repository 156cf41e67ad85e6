"""Every real report in ../shared/corpus/ncu diagnosed end to end; derived values re-computed here from the
raw metrics (read through ncu_report directly, not through kernelscope's reader)."""

from __future__ import annotations

import math

import pytest

from conftest import CORPUS_NCU, corpus_reports, need
from kernelscope import diagnose_file
from kernelscope.render import render

ncu_report = pytest.importorskip("ncu_report", reason="NVIDIA's ncu-report package is not installed on this platform")

REPORTS = corpus_reports()
_ABSENT = f"shared corpus not available: {CORPUS_NCU} is absent"
if not REPORTS:
    pytestmark = pytest.mark.skip(reason=_ABSENT)
# one skipped case instead of pytest's bare "got empty parameter set" when the corpus is absent
PARAMS = REPORTS or [pytest.param(None, marks=pytest.mark.skip(reason=_ABSENT))]


def _raw(path):
    """{index: {metric: (value, unit)}} for every launch, straight from ncu_report."""
    ctx = ncu_report.load_report(str(path))
    out = []
    for r in range(ctx.num_ranges()):
        rng = ctx.range_by_idx(r)
        for i in range(rng.num_actions()):
            a = rng.action_by_idx(i)
            vals = {}
            for name in a.metric_names():
                m = a[name]
                try:
                    vals[name] = (m.as_double(), m.unit())
                except Exception:
                    continue
            out.append(vals)
    return out


_BYTES = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9}
_TIME = {"ns": 1e-9, "nsecond": 1e-9, "usecond": 1e-6, "us": 1e-6, "msecond": 1e-3, "ms": 1e-3}


def _finite(raw, name):
    v = raw.get(name)
    return v is not None and math.isfinite(v[0])


def _fp32_flops(raw):
    """FLOP = (fadd + fmul + 2 ffma) thread instructions; counts = per-cycle rate x SMSP cycles elapsed."""
    total = 0.0
    for op, w in (("fadd", 1), ("fmul", 1), ("ffma", 2)):
        name = f"smsp__sass_thread_inst_executed_op_{op}_pred_on.sum.per_cycle_elapsed"
        if not _finite(raw, name) or not _finite(raw, "smsp__cycles_elapsed.avg"):
            return None
        total += w * raw[name][0] * raw["smsp__cycles_elapsed.avg"][0]
    return total


@pytest.fixture(scope="module")
def diagnosed():
    return {p.name: (diagnose_file(p), _raw(p)) for p in REPORTS}


@pytest.mark.parametrize("path", PARAMS, ids=lambda p: p.name[:50] if p else "absent")
def test_every_kernel_gets_a_diagnosis_or_a_reason(path, diagnosed):
    res, raw = diagnosed[path.name]
    assert len(res.kernels) == len(raw) == len(res.report.kernels)
    text = render([res], "table", "en")
    for d in res.kernels:
        if d.bound is None:
            # an explicit reason: SOL not measured and no roofline verdict
            assert d.sol.evidence[0].key == "sol_not_measured"
            assert d.roofline is None or d.roofline.not_measured
        assert d.kernel.name in text


def _check_against_raw(res, raw_all) -> int:
    """Re-compute duration, SOL %, DRAM bytes and the FP32 roofline of every launch of ``res`` from the raw metrics
    and compare; returns how many FP32 roofline points were checked. A launch without FP work has "roofline not
    applicable" (no attainable, efficiency or bound); a GPU without ceilings has no peak, ridge, attainable,
    efficiency or bound, while intensity and achieved FLOP/s are still checked."""
    checked = 0
    for d, raw in zip(res.kernels, raw_all):
        k = d.kernel
        if _finite(raw, "gpu__time_duration.sum"):
            v, unit = raw["gpu__time_duration.sum"]
            assert k.duration_s == pytest.approx(v * _TIME[unit], rel=1e-9)
        if _finite(raw, "sm__throughput.avg.pct_of_peak_sustained_elapsed"):
            assert d.sol.compute_pct == pytest.approx(raw["sm__throughput.avg.pct_of_peak_sustained_elapsed"][0])
        if _finite(raw, "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"):
            assert d.sol.memory_pct == pytest.approx(raw["gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"][0])
        if not (_finite(raw, "dram__bytes_read.sum") and _finite(raw, "dram__bytes_write.sum")):
            continue
        (rv, ru), (wv, wu) = raw["dram__bytes_read.sum"], raw["dram__bytes_write.sum"]
        dram = rv * _BYTES[ru] + wv * _BYTES[wu]
        flops = _fp32_flops(raw)
        r = d.roofline
        if flops is None or r is None or r.pipe != "fp32":
            continue
        assert r.flops == pytest.approx(flops, rel=1e-6)
        assert r.dram_bytes == pytest.approx(dram, rel=1e-9)
        ceilings = d.gpu is not None
        if not ceilings:  # a GPU the catalogue lacks: no ceiling, so nothing that needs one
            assert r.peak_flops_per_s is None and r.peak_bandwidth_bytes_per_s is None
            assert r.ridge_point_flop_per_byte is None
        if dram > 0:
            ai = flops / dram
            assert r.arithmetic_intensity_flop_per_byte == pytest.approx(ai, rel=1e-6)
            achieved = flops / k.duration_s
            assert r.achieved_flops_per_s == pytest.approx(achieved, rel=1e-6)
            if flops == 0:  # no FP work: roofline not applicable, no roof to attain or be bound by
                assert "roofline_not_applicable" in r.not_measured
                assert r.attainable_flops_per_s is None and r.efficiency is None and r.bound is None
            elif not ceilings:
                assert r.attainable_flops_per_s is None and r.efficiency is None and r.bound is None
            else:
                attainable = min(r.peak_flops_per_s, ai * r.peak_bandwidth_bytes_per_s)
                assert r.attainable_flops_per_s == pytest.approx(attainable, rel=1e-6)
                assert r.efficiency == pytest.approx(achieved / attainable, rel=1e-6)
                assert r.bound == ("memory-bound" if ai < r.ridge_point_flop_per_byte else "compute-bound")
        checked += 1
    return checked


@pytest.mark.parametrize("path", PARAMS, ids=lambda p: p.name[:50] if p else "absent")
def test_derived_values_match_raw_metrics(path, diagnosed):
    res, raw_all = diagnosed[path.name]
    checked = _check_against_raw(res, raw_all)
    if any(_fp32_flops(r) for r in raw_all) and any(d.roofline and d.roofline.pipe == "fp32" for d in res.kernels):
        assert checked > 0


#: An FP32 GEMM (FP work) and a transpose (no FP work, Nsight Compute 2026.2).
NO_CEILINGS = ("InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_01_naive.ncu-rep",
               "Atopos0313__cuda_learning__reports_day08_before.ncu-rep")


@pytest.mark.parametrize("name", NO_CEILINGS)
def test_derived_values_without_ceilings(name):
    """The same reports as if they named a GPU the catalogue lacks and held no memory clock to derive ceilings from:
    no ceilings, every other value still checked."""
    from dataclasses import replace

    from kernelscope.analysis.diagnosis import diagnose_report
    from kernelscope.ingest import load

    path = need(CORPUS_NCU / name)
    report = load(path)
    unknown = replace(report, kernels=tuple(
        replace(k, device=replace(k.device, display_name="NVIDIA Imaginary GPU 9000", max_mem_clock_hz=None))
        for k in report.kernels))
    res = diagnose_report(unknown)
    assert all(d.gpu is None for d in res.kernels)
    assert all(d.roofline is None or d.roofline.peak_flops_per_s is None for d in res.kernels)
    raw_all = _raw(path)
    checked = _check_against_raw(res, raw_all)
    assert checked == sum(1 for r in raw_all if _fp32_flops(r) is not None and _finite(r, "dram__bytes_read.sum"))


def test_a100_silu_roofline_by_hand():
    # AlpriElse silu on A100-SXM4-40GB, kernel 0: ridge = 19.5 TFLOP/s / 1555 GB/s (A100 datasheet), the FLOP/s
    # ceiling scaled to the profiled SM clock (1.0908 GHz measured / 1.41 GHz boost: x0.7736 -> 9.70 FLOP/B).
    path = need(CORPUS_NCU / "AlpriElse__cs599k__silu_CUDA_ncu-reports_2025-04-21-77_06-MT.ncu-rep")
    d = diagnose_file(path).kernels[0]
    assert d.gpu.name.startswith("NVIDIA A100-SXM4-40GB")
    assert d.roofline.pipe == "fp32"
    assert d.roofline.ridge_point_flop_per_byte == pytest.approx(19.5e12 * (1.0908 / 1.41) / 1555e9, rel=1e-3)
    assert d.roofline.bound == "memory-bound"
    assert d.bound == "memory-bound"  # SOL memory 77% vs compute 31%
    assert d.ncu_bottleneck == "memory-bound"


def test_nan_kernel_is_kept_and_reported_not_measured():
    path = need(CORPUS_NCU / "bwd29__self-join-MiSTIC__profileHIGGS.out.ncu-rep")
    res = diagnose_file(path)
    d = res.kernels[0]
    assert any("NaN" in p for p in d.kernel.problems)
    assert d.sol.compute_pct is None and d.sol.bound is None
    assert d.stalls is None
    text = render([res], "table", "en")
    assert "not measured" in text and "NaN" in text
    assert "nan" not in text.replace("NaN", "")  # no NaN number printed anywhere


def test_stall_shares_from_raw_ratios():
    path = need(CORPUS_NCU / "panjd123__cutlass__report-s8.ncu-rep")
    res = diagnose_file(path)
    raw = _raw(path)[1]
    prefix, suffix = "smsp__average_warps_issue_stalled_", "_per_issue_active.ratio"
    ratios = {n[len(prefix):-len(suffix)]: v for n, (v, _) in raw.items() if n.startswith(prefix) and n.endswith(suffix) and math.isfinite(v)}
    stall_total = sum(v for r, v in ratios.items() if r != "selected")
    top = max((r for r in ratios if r != "selected"), key=ratios.get)
    s = res.kernels[1].stalls.shares[0]
    assert s.reason == top == "lg_throttle"
    assert s.share_of_stalls == pytest.approx(ratios[top] / stall_total)


def test_sol_class_agrees_with_nsight_compute(diagnosed):
    agree = total = 0
    for res, _ in diagnosed.values():
        for d in res.kernels:
            if d.ncu_bottleneck is not None:
                total += 1
                agree += d.sol.bound == d.ncu_bottleneck
    assert total > 150
    assert agree / total >= 0.95, f"{agree}/{total}"

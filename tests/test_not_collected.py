"""What a report did not collect is said only where it could change the advice: once a math pipe is measured at
its peak only the per-instruction counters (the pipe's wasted lanes) matter; a launch not worth tuning lists no
re-profiling in the short view (--details keeps it)."""

from __future__ import annotations

from conftest import CORPUS_NCU, need
from kernelscope import diagnose_file


def _diag(report: str):
    return diagnose_file(need(CORPUS_NCU / report)).kernels


def test_a_saturated_math_pipe_asks_only_for_the_per_instruction_counters():
    # ZSL98's SGEMM: FMA pipe 94.9 % of peak, memory well below 80 %; no WarpStateStats, SourceCounters nor memory
    # workload: stalls and memory cannot move the limiter, the instruction counters can show wasted lanes
    for d in _diag("ZSL98__bitwise_spgemm__profiling_results_sgemm.ncu-rep"):
        ids = {f.id for f in d.findings}
        assert "not_collected" not in ids
        f = next(f for f in d.findings if f.id == "waste_not_collected")
        assert f.message.values["sections"] == "SourceCounters" and f.message.values["pct"] >= 80.0
        assert f.estimated_speedup is None


def test_a_basic_set_report_of_a_kernel_below_its_peaks_still_lists_every_missing_section():
    (d,) = _diag("EricccYang__cuda_operators__reduce_reduce_v2.ncu-rep")
    f = next(f for f in d.findings if f.id == "not_collected")
    assert f.message.values["sections"] == "WarpStateStats SourceCounters MemoryWorkloadAnalysis"
    assert f in d.worthwhile_advice


def test_a_launch_not_worth_tuning_does_not_ask_to_profile_again_in_the_short_view():
    (d,) = _diag("LakshyaSingh354__CudaCode__report.ncu-rep")  # a 2x2 grid of 2x2 threads, 2.5 µs
    assert d.advice_findings[0].id == "nothing_worthwhile"
    assert any(f.id == "not_collected" for f in d.advice_findings)  # --details: still there
    assert [f.id for f in d.worthwhile_advice] == ["nothing_worthwhile"]

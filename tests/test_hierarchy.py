"""The hierarchical roofline: per-level peak bandwidth from the report's own metrics (checked by hand against a
corpus report and against Nsight Compute's own derived metrics), the level nearest its ceiling, the chart (en and
zh) and ``kernelscope roofline --levels``."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import pytest

from conftest import CORPUS_NCU, need
from kernelscope.analysis.diagnosis import diagnose
from kernelscope.analysis.limiters import (
    INPUTS, L1_ASYNC_SECTORS, L1_SECTORS_NAME, L1_TMA_LOADS, MemoryLevel, limiting_level, memory_levels, nearest_ceiling,
)
from kernelscope.cli import main
from kernelscope.knowledge.gpus import find_gpu
from kernelscope.knowledge.metrics import request
from kernelscope.model import DeviceInfo, KernelProfile
from kernelscope.render import charts

#: An A100 report of Nsight Compute 2025 with the hierarchical roofline sections (launch 0: silu_kernel, FP32).
SILU = CORPUS_NCU / "AlpriElse__cs599k__silu_CUDA_ncu-reports_2025-04-21-77_06-MT.ncu-rep"
#: A GTX 1660 SUPER report whose L1 and L2 peaks are only given as % of peak (launch 0: naive_gemm).
NAIVE = CORPUS_NCU / "LakshyaSingh354__CudaCode__gemm_reps_naive.ncu-rep"
#: A report whose first launch executes no floating-point instruction.
NO_FP = CORPUS_NCU / "bautista-garcia__heat_sim__profile.ncu-rep"
#: An RTX 4060 Ti flash-attention forward that loads its tiles with cp.async (LDGSTS, L1 bypass).
FA3DB = CORPUS_NCU / "Bias92__flashattn-cuda__docs_profiling_ncu_sections_db_full_after_n4096_full.ncu-rep"


def _raw(path, index=0):
    """Metric name -> value of one result, read with NVIDIA's ncu_report directly (not through kernelscope)."""
    ncu_report = pytest.importorskip("ncu_report")
    action = ncu_report.load_report(str(need(path))).range_by_idx(0).action_by_idx(index)
    return {n: action.metric_by_name(n).as_double() for n in action.metric_names()}


def _level(d, name):
    return next(lv for lv in d.levels if lv.level == name)


# ----------------------------------------------------------------------------------------- peaks by hand


def test_level_peaks_by_hand_from_a_corpus_report():
    m = _raw(SILU)
    d = charts_diag(SILU)
    l1, l2, dram = _level(d, "l1"), _level(d, "l2"), _level(d, "dram")
    # L1: LSU writeback cycles x 128 B; peak = 108 SMs x 1 cycle x 128 B per cycle x the L1 clock (1.0908 GHz)
    assert m["l1tex__lsu_writeback_active_mem_lg.sum.peak_sustained"] == 108
    assert l1.bytes == m["l1tex__lsu_writeback_active_mem_lg.sum"] * 128 == 2162688 * 128
    assert l1.peak_bytes_per_s == pytest.approx(108 * 128 * m["l1tex__cycles_elapsed.avg.per_second"], rel=1e-12)
    assert l1.peak_bytes_per_s == pytest.approx(15.0798e12, rel=1e-4)
    assert l1.peak_from == "peak_sustained" and l1.bytes_metric == "l1tex__lsu_writeback_active_mem_lg.sum"
    # ... which is Nsight Compute's own L1 ceiling (its section's derived metric times the same clock)
    assert l1.peak_bytes_per_s == pytest.approx(
        m["derived__l1tex__lsu_writeback_bytes_mem_lg.sum.peak_sustained"] * m["l1tex__cycles_elapsed.avg.per_second"])
    assert l1.bandwidth_pct == pytest.approx(m["l1tex__lsu_writeback_active_mem_lg.sum.pct_of_peak_sustained_elapsed"],
                                             rel=1e-6)
    # DRAM: 1280 B per DRAM cycle x 1.2149 GHz
    assert dram.peak_bytes_per_s == pytest.approx(1280 * m["dram__cycles_elapsed.avg.per_second"], rel=1e-12)
    assert dram.peak_bytes_per_s == pytest.approx(1.55509e12, rel=1e-4)
    assert dram.bytes == m["dram__bytes_read.sum"] + m["dram__bytes_write.sum"]
    # L2: no lts__t_sectors.sum.peak_sustained in the report; from the % of peak: sectors x 32 / duration / %
    duration = m["gpu__time_duration.sum"] * 1e-9
    pct = m["lts__t_sectors.sum.pct_of_peak_sustained_elapsed"]
    assert l2.bytes == m["lts__t_sectors.sum"] * 32
    assert l2.peak_bytes_per_s == pytest.approx(m["lts__t_sectors.sum"] * 32 / duration / (pct / 100), rel=1e-12)
    assert l2.peak_from == "pct_of_peak" and l2.bandwidth_pct == pytest.approx(pct)
    # independently: 80 L2 slices (sum / avg) x 3 sectors per slice-cycle x 32 B x the L2 clock
    slices = m["lts__t_sectors.sum"] / m["lts__t_sectors.avg"]
    assert slices == 80
    assert l2.peak_bytes_per_s == pytest.approx(
        slices * m["lts__t_sectors.avg.peak_sustained"] * 32 * m["lts__cycles_elapsed.avg.per_second"], rel=1e-9)
    # the intensities are the launch's FLOPs over each level's bytes
    flops = d.roofline.flops
    for lv in (l1, l2, dram):
        assert lv.arithmetic_intensity_flop_per_byte == pytest.approx(flops / lv.bytes)
    assert nearest_ceiling(d.levels) is dram  # 77 % of its ceiling; L2 30 %, L1 4 %


def test_pct_derived_l1_peak_matches_the_report_by_hand():
    m = _raw(NAIVE)
    l1 = _level(charts_diag(NAIVE), "l1")
    duration = m["gpu__time_duration.sum"] * 1e-9
    pct = m["l1tex__lsu_writeback_active_mem_lg.sum.pct_of_peak_sustained_elapsed"]
    nbytes = m["l1tex__lsu_writeback_active_mem_lg.sum"] * 128
    assert l1.peak_from == "pct_of_peak"
    assert l1.peak_bytes_per_s == pytest.approx(nbytes / duration / (pct / 100), rel=1e-12)
    # = 22 SMs x 128 B x the 1.535 GHz SM clock (L1 runs at the SM clock), to the rounding of the elapsed time
    assert l1.peak_bytes_per_s == pytest.approx(22 * 128 * m["sm__cycles_elapsed.avg.per_second"], rel=2e-3)


_DIAGS: dict = {}


def charts_diag(path, index=0):
    """The diagnosis of one corpus launch (cached)."""
    from kernelscope import diagnose_file

    key = (str(path), index)
    if key not in _DIAGS:
        _DIAGS[key] = diagnose_file(need(path)).kernels[index]
    return _DIAGS[key]


def test_every_input_metric_is_requested():
    req = request()
    missing = [n for n in INPUTS if n not in req.names and not n.startswith(tuple(req.prefixes))]
    assert not missing


@pytest.mark.parametrize("path", sorted(CORPUS_NCU.glob("*.ncu-rep")) if CORPUS_NCU.is_dir() else [None],
                         ids=lambda p: p.name[:40] if p else "absent")
def test_corpus_peaks_are_positive_and_points_under_their_ceiling(path):
    from kernelscope import diagnose_file

    if path is None:
        need(CORPUS_NCU)
    for d in diagnose_file(path).kernels:
        for lv in d.levels:
            assert lv.peak_bytes_per_s is None or (math.isfinite(lv.peak_bytes_per_s) and lv.peak_bytes_per_s > 0)
            assert lv.bandwidth_pct is None or 0 <= lv.bandwidth_pct <= 100.5
            assert (lv.peak_bytes_per_s is None) == (lv.peak_from is None)


# ----------------------------------------------------------------------------------------- hand-made launches


def _kernel(**metric_overrides) -> KernelProfile:
    """1 ms launch, 1 GFLOP FP32. L1: 1e6 writeback cycles (128 MB), peak 100 x 128 B x 1 GHz = 12.8 TB/s -> 1 %.
    L2: 1e7 sectors (320 MB) at 40 % of peak -> 800 GB/s peak. DRAM: 200 MB, 64 B x 5 GHz = 320 GB/s -> 62.5 %."""
    metrics = {
        "l1tex__lsu_writeback_active_mem_lg.sum": 1e6, "l1tex__lsu_writeback_active_mem_lg.sum.peak_sustained": 100.0,
        "l1tex__cycles_elapsed.avg.per_second": 1e9, "l1tex__throughput.avg.pct_of_peak_sustained_active": 90.0,
        "lts__t_sectors.sum": 1e7, "lts__t_sectors.sum.pct_of_peak_sustained_elapsed": 40.0,
        "lts__throughput.avg.pct_of_peak_sustained_elapsed": 45.0,
        "dram__bytes.sum.peak_sustained": 64.0, "dram__cycles_elapsed.avg.per_second": 5e9,
    }
    units = {"l1tex__lsu_writeback_active_mem_lg.sum": "cycle", "l1tex__cycles_elapsed.avg.per_second": "hz",
             "lts__t_sectors.sum": "sector", "dram__bytes.sum.peak_sustained": "byte/cycle",
             "dram__cycles_elapsed.avg.per_second": "hz"}
    units.update(metric_overrides.pop("units", {}))
    metrics.update(metric_overrides)
    metrics = {k: v for k, v in metrics.items() if v is not None}
    return KernelProfile(index=0, name="k", demangled_name="k", device=DeviceInfo(display_name="NVIDIA A100-SXM4-80GB"),
                         duration_s=1e-3, dram_throughput_pct=60.0, dram_bytes_read=150e6, dram_bytes_write=50e6,
                         flop_counts={"fp32": 1e9}, metrics=metrics, metric_units=units)


def test_levels_of_a_hand_made_launch():
    levels = {lv.level: lv for lv in memory_levels(_kernel(), 1e9)}
    l1, l2, dram = levels["l1"], levels["l2"], levels["dram"]
    assert (l1.bytes, l1.peak_bytes_per_s, l1.bandwidth_pct) == (pytest.approx(128e6), pytest.approx(12.8e12),
                                                                  pytest.approx(1.0))
    assert (l2.bytes, l2.peak_bytes_per_s, l2.bandwidth_pct) == (pytest.approx(320e6), pytest.approx(800e9),
                                                                  pytest.approx(40.0))
    assert (dram.bytes, dram.peak_bytes_per_s, dram.bandwidth_pct) == (pytest.approx(200e6), pytest.approx(320e9),
                                                                        pytest.approx(62.5))
    assert dram.arithmetic_intensity_flop_per_byte == pytest.approx(5.0)
    # the level nearest its ceiling is DRAM, although L1 has the highest Speed-of-Light throughput %
    assert nearest_ceiling(tuple(levels.values())).level == "dram"
    assert limiting_level(tuple(levels.values())).level == "l1"


def test_nearest_ceiling_follows_the_numbers():
    a = MemoryLevel("l1", 10.0, 1.0, None, 1.0, 1.0, 30.0)
    b = MemoryLevel("l2", 90.0, 1.0, None, 1.0, 1.0, 31.0)
    c = MemoryLevel("dram", 95.0, 1.0, None, 1.0, None, None)  # no peak: never the limiting level here
    assert nearest_ceiling((a, b, c)) is b
    assert nearest_ceiling((a, c)) is a
    assert nearest_ceiling((c,)) is None and nearest_ceiling(()) is None


def test_scaled_units_and_unknown_units():
    # ncu --csv prints scaled units: the same peak from Kbyte/cycle and Ghz
    k = _kernel(**{"dram__bytes.sum.peak_sustained": 0.064, "dram__cycles_elapsed.avg.per_second": 5.0,
                   "units": {"dram__bytes.sum.peak_sustained": "Kbyte/cycle", "dram__cycles_elapsed.avg.per_second": "Ghz"}})
    assert _lv(k, "dram").peak_bytes_per_s == pytest.approx(320e9)
    # a unit it does not know gives no peak (never a wrong scale)
    k = _kernel(units={"dram__cycles_elapsed.avg.per_second": "furlong"})
    assert _lv(k, "dram").peak_bytes_per_s is None and _lv(k, "dram").bandwidth_pct is None


def _lv(kernel, name, flops=1e9):
    return next(lv for lv in memory_levels(kernel, flops) if lv.level == name)


def test_ldgsts_sectors_join_the_l1_bytes():
    # cp.async data goes to shared memory, never through the LSU writeback: its sectors are added, and the sum of
    # two counters of different peaks has no measured peak
    k = _kernel(**{L1_ASYNC_SECTORS[1]: 2e6, L1_ASYNC_SECTORS[0]: 1e6})
    l1 = _lv(k, "l1")
    assert l1.bytes == pytest.approx(128e6 + 32 * 3e6)
    assert l1.bytes_metric.startswith("l1tex__lsu_writeback_active_mem_lg.sum x 128 B + ") and "ldgsts" in l1.bytes_metric
    assert l1.peak_bytes_per_s is None and l1.bandwidth_pct is None and l1.peak_from is None
    assert l1.arithmetic_intensity_flop_per_byte == pytest.approx(1e9 / (128e6 + 96e6))
    # no LDGSTS sectors (counted as 0, or not collected): the writeback alone, with its peak
    for extra in ({L1_ASYNC_SECTORS[1]: 0.0}, {}):
        l1 = _lv(_kernel(**extra), "l1")
        assert l1.bytes == pytest.approx(128e6) and l1.peak_bytes_per_s == pytest.approx(12.8e12)


@pytest.mark.parametrize("counter", L1_TMA_LOADS)
def test_tma_loads_leave_the_l1_bytes_not_measured(counter):
    # TMA copies write shared memory (no writeback) and no counter read here measures them: no L1 bytes, intensity
    # or peak, the level's throughput still shown; the other levels as before
    k = _kernel(**{counter: 4096.0, L1_ASYNC_SECTORS[1]: 1e6})
    l1 = _lv(k, "l1")
    assert l1.throughput_pct == pytest.approx(90.0)
    assert (l1.bytes, l1.arithmetic_intensity_flop_per_byte, l1.peak_bytes_per_s, l1.bytes_metric) == (None,) * 4
    assert _lv(k, "l2").bytes == pytest.approx(320e6)
    assert _lv(_kernel(**{counter: 0.0}), "l1").bytes == pytest.approx(128e6)


def test_ldgsts_sectors_of_a_corpus_report_by_hand():
    m = _raw(FA3DB)
    l1, l2 = _level(charts_diag(FA3DB), "l1"), _level(charts_diag(FA3DB), "l2")
    writeback = m["l1tex__lsu_writeback_active_mem_lg.sum"] * 128
    ldgsts = 32 * (m[L1_ASYNC_SECTORS[0]] + m[L1_ASYNC_SECTORS[1]])
    assert writeback == 36086 * 128 and ldgsts == 32 * 25165824  # 4.6 MB vs 805 MB
    assert l1.bytes == writeback + ldgsts and l1.peak_bytes_per_s is None
    # the tiles the L1 passed on came from the L2: the two levels' bytes now agree (780 vs 810 MB), the writeback
    # alone was 170x below the L2's
    assert 0.9 < l1.bytes / l2.bytes < 1.1


def test_fallbacks_and_not_measured():
    # no writeback counter: L1 bytes from the global + local sectors, no measured peak
    k = _kernel(**{"l1tex__lsu_writeback_active_mem_lg.sum": None,
                   "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": 3e6, "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum": 1e6})
    l1 = _lv(k, "l1")
    assert l1.bytes == pytest.approx(128e6) and l1.bytes_metric == L1_SECTORS_NAME
    assert l1.peak_bytes_per_s is None and l1.bandwidth_pct is None and l1.peak_from is None
    # the newer _mem_lgds counter comes first when both are there
    k = _kernel(**{"l1tex__lsu_writeback_active_mem_lgds.sum": 2e6})
    assert _lv(k, "l1").bytes == pytest.approx(256e6) and _lv(k, "l1").bytes_metric.endswith("_lgds.sum")
    # L2 % of peak from the per-slice average when the sum's is absent
    k = _kernel(**{"lts__t_sectors.sum.pct_of_peak_sustained_elapsed": None,
                   "lts__t_sectors.avg.pct_of_peak_sustained_elapsed": 40.0})
    assert _lv(k, "l2").peak_bytes_per_s == pytest.approx(800e9)
    # no clock: no peak; no FLOPs: no intensity, the peak is still known
    assert _lv(_kernel(**{"dram__cycles_elapsed.avg.per_second": None}), "dram").peak_bytes_per_s is None
    assert _lv(_kernel(), "dram", None).arithmetic_intensity_flop_per_byte is None
    assert _lv(_kernel(), "dram", None).peak_bytes_per_s == pytest.approx(320e9)
    # no DRAM byte counts: the level (shown for its throughput %) keeps its peak, without bytes or a % of it
    no_bytes = KernelProfile(**{**_kernel().__dict__, "dram_bytes_read": None, "dram_bytes_write": None})
    dram = _lv(no_bytes, "dram")
    assert dram.bytes is None and dram.bytes_metric is None and dram.bandwidth_pct is None
    assert dram.peak_bytes_per_s == pytest.approx(320e9) and dram.throughput_pct == 60.0


# ----------------------------------------------------------------------------------------- the chart


def _svg_text(svg: bytes) -> str:
    ET.fromstring(svg)  # well-formed
    return svg.decode("utf-8")


def test_chart_of_a_hand_made_launch_en_and_zh():
    d = diagnose(_kernel(), find_gpu("NVIDIA A100-SXM4-80GB"))
    assert charts.has_hierarchy(d) and charts.why_no_hierarchy(d) is None
    en = _svg_text(charts.hierarchy_chart(d, "en", "svg", inline=True))
    for text in ("Hierarchical roofline", "L1", "L2", "DRAM", "limiting level: DRAM (62.5% of its ceiling)",
                 "L2 peak 800 GB/s", "FP32 CUDA cores"):
        assert text in en, text
    for gid in ("ks-level-l1", "ks-level-l2", "ks-level-dram"):
        assert gid in en
    zh = _svg_text(charts.hierarchy_chart(d, "zh", "svg", inline=True))
    if charts.chart_lang("zh") == "zh":
        for text in ("分层 Roofline", "L1/TEX 缓存", "L2 缓存", "DRAM", "限制层级"):
            assert text in zh, text
        assert "显存" not in zh  # the glossary: DRAM, one name for one level
    else:
        assert "Hierarchical roofline" in zh  # no CJK font: English labels
    standalone = charts.hierarchy_chart(d, "en", "svg")  # text drawn as paths, still well-formed with tooltips
    assert "<title>" in _svg_text(standalone)
    png = charts.hierarchy_chart(d, "en", "png")
    assert png.startswith(b"\x89PNG\r\n\x1a\n")


def test_chart_of_l1_bytes_without_a_peak():
    # LDGSTS sectors summed with the writeback: the L1 point is drawn, its legend says the bytes have no measured
    # peak (the report does measure the writeback's), and no L1 slope is drawn
    d = diagnose(_kernel(**{L1_ASYNC_SECTORS[1]: 2e6}), find_gpu("NVIDIA A100-SXM4-80GB"))
    en = _svg_text(charts.hierarchy_chart(d, "en", "svg", inline=True))
    assert "L1: 5.21 FLOP/B, no measured peak bandwidth for these bytes" in en  # 1 GFLOP / 192 MB
    assert "L1 peak" not in en and "L2 peak 800 GB/s" in en


def test_the_compute_roof_is_named_where_it_binds():
    # fa3db: 86.7 % of its FP16 tensor peak, its L2 at 41.8 % of the L2's ceiling: the L2 is the nearest memory level,
    # not the limit (42.0 FLOP/B x 1.98 TB/s = 83 TFLOP/s, above the 40.1 TFLOP/s roof)
    from kernelscope.render.roofline_data import binding, compute_share_pct, limiting_level

    d = charts_diag(FA3DB)
    kind, near = binding(d)
    assert (kind, near.level) == ("compute", "l2") and limiting_level(d) is None
    assert compute_share_pct(d) == pytest.approx(86.7, abs=0.05) and compute_share_pct(d) > near.bandwidth_pct
    en = _svg_text(charts.hierarchy_chart(d, "en", "svg", inline=True))
    assert "limiting: FP16 tensor cores (86.7% of peak); nearest memory level: L2 (41.8% of its ceiling)" in en
    # the hand-made launch at 5 % of its FP32 peak: its DRAM (62.5 % of its ceiling) limits it
    hand = diagnose(_kernel(), find_gpu("NVIDIA A100-SXM4-80GB"))
    assert limiting_level(hand).level == "dram" and compute_share_pct(hand) < 62.5
    # ... and with twice the DRAM peak (31.25 %) no roof is near: L2 at 40 %, FP32 at 5 % (below latency_sol_pct)
    far = diagnose(_kernel(**{"dram__bytes.sum.peak_sustained": 128.0}), find_gpu("NVIDIA A100-SXM4-80GB"))
    assert limiting_level(far) is None and binding(far) == (None, next(lv for lv in far.levels if lv.level == "l2"))
    en = _svg_text(charts.hierarchy_chart(far, "en", "svg", inline=True))
    assert "no roof binds: FP32 CUDA cores at 5.1% of peak, L2 at 40% of its ceiling (the limit is not a roof" in en


def test_one_measured_level_is_not_called_closest_to_its_peak():
    from kernelscope.render.common import Fmt
    from kernelscope.render.rows import level_line

    one = diagnose(_kernel(**{"lts__throughput.avg.pct_of_peak_sustained_elapsed": None,
                              "lts__t_sectors.sum": None, "lts__t_sectors.sum.pct_of_peak_sustained_elapsed": None,
                              "l1tex__throughput.avg.pct_of_peak_sustained_active": None}), find_gpu("NVIDIA A100-SXM4-80GB"))
    assert [lv.level for lv in one.levels if lv.throughput_pct is not None] == ["dram"]
    assert "closest to its peak" not in level_line(one, Fmt("en"))
    two = diagnose(_kernel(), find_gpu("NVIDIA A100-SXM4-80GB"))
    assert level_line(two, Fmt("en")).endswith("closest to its peak: L1/TEX cache")


def test_no_chart_without_flops():
    gpu = find_gpu("NVIDIA A100-SXM4-80GB")
    d = diagnose(_kernel(), gpu)
    no_counts = diagnose(KernelProfile(**{**_kernel().__dict__, "flop_counts": {}}), gpu)
    zero = diagnose(KernelProfile(**{**_kernel().__dict__, "flop_counts": {"fp32": 0.0}}), gpu)
    assert charts.hierarchy_chart(no_counts) is None and charts.why_no_hierarchy(no_counts) == "flops_not_measured"
    assert charts.hierarchy_chart(zero) is None and charts.why_no_hierarchy(zero) == "no_fp_work"
    assert charts.hierarchy_reason("no_fp_work", "en") == "no floating-point instructions executed"
    assert charts.hierarchy_reason("chart_hier_no_levels", "zh").startswith("没有测得字节数")
    bare = diagnose(KernelProfile(index=0, name="k", demangled_name="k", duration_s=1e-3, flop_counts={"fp32": 1e9}), gpu)
    assert charts.why_no_hierarchy(bare) == "chart_hier_no_levels" and charts.hierarchy_chart(bare) is None
    assert charts.has_hierarchy(d)


def test_chart_of_a_corpus_launch():
    # naive_gemm: its LSU pipe issues at 83 %, its L1 moves 41.5 % of the writeback's peak, its FP32 10.4 %: near no
    # roof of the chart (below latency_sol_pct); SILU's DRAM at 77 % of its ceiling binds it
    d = charts_diag(NAIVE)
    svg = _svg_text(charts.hierarchy_chart(d, "en", "svg", inline=True))
    assert "no roof binds: FP32 CUDA cores at 10.4% of peak, L1 at 41.5% of its ceiling" in svg
    assert "L1 peak 4.32 TB/s" in svg
    assert "limiting level: DRAM" in _svg_text(charts.hierarchy_chart(charts_diag(SILU), "en", "svg", inline=True))


# ----------------------------------------------------------------------------------------- the command


def test_cli_levels_writes_the_chart(tmp_path, capsys):
    out = tmp_path / "levels.svg"
    code = main(["roofline", str(need(NAIVE)), "-o", str(out), "--levels", "-q"])
    assert code == 0, capsys.readouterr().err
    assert "ks-level-l1" in _svg_text(out.read_bytes())
    png = tmp_path / "levels.png"
    assert main(["roofline", str(NAIVE), "-o", str(png), "--levels", "--launch", "1", "--lang", "zh", "-q"]) == 0
    assert png.read_bytes().startswith(b"\x89PNG")


@pytest.mark.parametrize("args, text", [
    (["--levels", "--launch", "99"], "no launch 99 among the selected launches"),
    (["--levels", "--launch", "-1"], "expected a launch index >= 0"),
    (["--levels", "--kernel", "no_such_kernel"], "no kernel matches"),
    (["--launch", "7"], "no launch 7"),
])
def test_cli_bad_selection_exits_2_with_one_line(tmp_path, capsys, args, text):
    out = tmp_path / "x.svg"
    code = main(["roofline", str(need(NAIVE)), "-o", str(out), "-q", *args])
    err = capsys.readouterr().err
    assert code == 2 and text in err and err.count("\n") == 1
    assert not out.exists()


def test_cli_levels_of_a_launch_without_flops(tmp_path, capsys):
    out = tmp_path / "x.svg"
    code = main(["roofline", str(need(NO_FP)), "-o", str(out), "--levels", "--launch", "0", "-q"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and not out.exists()
    assert "no hierarchical roofline: no floating-point instructions executed" in err
    assert "launches with one: 1, 3" in err  # where to look instead

"""Issue "Nothing lost, nothing absurd", readers and impossible values: the handed cases (``../shared/cases``), each
with its right values worked out by hand in the comments, then the general mechanism on inputs written here.

One mechanism for every reader: a value that cannot be real (a percentage above 100 or below 0, a negative or
absurd count, an impossible clock, DRAM bytes above the GPU's peak bandwidth, FLOP/s above its roof) is moved out of
the KernelProfile field it would fill into ``KernelProfile.implausible`` (metric, raw value, unit, reason) with a
``problems`` line; no verdict or advice rests on it; table and JSON show it with its reason (en / zh).
"""

from __future__ import annotations

import json

import pytest

from conftest import CASES, SHARED, need
from kernelscope.analysis.diagnosis import diagnose
from kernelscope.analysis.occupancy import occupancy
from kernelscope.api import diagnose_file, with_useful_flops
from kernelscope.cli import main
from kernelscope.ingest import load
from kernelscope.knowledge.plausibility import implausible_text, screen
from kernelscope.model import GpuSpec, KernelProfile, ProfileReport
from kernelscope.render.common import Fmt
from kernelscope.render.rows import kernel_rows
from kernelscope.render.json import to_json_text

#: Findings that rest on achieved occupancy (none may fire from an implausible one).
OCCUPANCY_FINDINGS = ("occupancy_gap", "latency_from_long_scoreboard", "occupancy_limited", "occupancy_busy")


def _case(name: str):
    return need(CASES / name)


def _run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _only(kernel: KernelProfile, metric: str):
    found = [x for x in kernel.implausible if x.metric == metric]
    assert len(found) == 1, kernel.implausible
    return found[0]


# ------------------------------------------------------------------------------------------------ the cases


@pytest.mark.parametrize("name", ["C01_ncu_console_occupancy_221.txt", "C01_plain_occupancy_221.toml"])
def test_c01_occupancy_above_100_is_flagged_never_used(name):
    # sm__warps_active.avg.pct_of_peak_sustained_active = 221 %: more warps than the SM has slots; kept with the
    # reason, the field left unmeasured (console: the Nsight metric; plain: the field as the user wrote it)
    rd = diagnose_file(_case(name))
    (d,) = rd.kernels
    k = d.kernel
    metric = "sm__warps_active.avg.pct_of_peak_sustained_active" if name.endswith(".txt") else "achieved_occupancy_pct"
    x = _only(k, metric)
    assert (x.value, x.unit, x.reason, x.limit) == (221.0, "%", "implausible_occupancy", 100.0)
    assert k.achieved_occupancy_pct is None and k.theoretical_occupancy_pct == 100.0
    assert metric not in k.metrics
    text = implausible_text(x)
    assert "221%" in text and "not a measurement of this launch" in text and "multi-pass replay" in text
    assert text in k.problems
    # no verdict or advice rests on it: no occupancy / latency finding, no "achieved exceeds theoretical" note
    assert not any(f.id in OCCUPANCY_FINDINGS for f in d.findings)
    assert d.classes == () and d.advice == ()
    assert "occupancy_above_theoretical" not in [n.key for n in d.notes]
    # theoretical occupancy from the launch: CC 8.6, 768 threads = 24 warps, 16 registers -> 16 x 32 = 512 per warp
    # (256-register granularity), 12,288 per block: 65,536 / 12,288 = 5 blocks; warps 48 / 24 = 2 blocks; 16 blocks
    # at most -> 2 blocks x 24 warps = 48 of 48 warps = 100 % (shared memory is not printed: 0 B assumed here)
    occ = occupancy((8, 6), 768, 16, 0)
    assert (occ.active_blocks_per_sm, occ.active_warps_per_sm, occ.max_warps_per_sm) == (2, 48, 48)
    assert occ.occupancy_pct == pytest.approx(100.0) == k.theoretical_occupancy_pct


def test_c01_table_and_json_show_the_raw_value_with_its_reason(capsys):
    path = str(_case("C01_ncu_console_occupancy_221.txt"))
    code, out, err = _run(capsys, "diagnose", path, "--format", "json")
    assert code == 0, err
    (launch,) = json.loads(out)["inputs"][0]["launches"]
    assert launch["occupancy"]["achieved_pct"] is None
    (x,) = launch["implausible"]
    assert x["metric"] == "sm__warps_active.avg.pct_of_peak_sustained_active"
    assert (x["value"], x["unit"], x["reason"], x["limit"], x["rate"]) == (221.0, "%", "implausible_occupancy", 100.0, None)
    assert "221%" in x["text"]
    d = diagnose_file(path).kernels[0]
    rows = dict(kernel_rows(d, Fmt("zh")))
    assert "221%" in rows["不可信的数值"] and "占用率超过 100%" in rows["不可信的数值"]
    rows = dict(kernel_rows(d, Fmt("en")))
    assert "221%" in rows["Implausible values"] and "Data problems" not in rows  # said once, not twice


def test_c05_every_row_is_read_whatever_its_section_is_called():
    # three launches whose rows sit in "Custom L2 metrics (...)" sections: read under their labels
    k1, k2, k3 = load(_case("C05_ncu_console_hit_rates.txt")).kernels
    # run 1: l2_hit_rate 171.46 % -> impossible (a hit rate is hits / requests <= 100 %)
    x = _only(k1, "l2_hit_rate")
    assert (x.value, x.unit, x.reason) == (171.46, "%", "implausible_hit_rate")
    assert "l2_hit_rate" not in k1.metrics
    # run 2: every value possible, every row kept (97.93 % is a valid hit rate; 0 and 4 sectors; 100 % exactly)
    assert k2.implausible == ()
    assert dict(k2.metrics) == {"l2_hit_rate": 97.93, "l2_tex_read_hit_rate": 4.75, "l2_tex_write_hit_rate": 100.0,
                                "l2_tex_read_transactions": 0.0, "l2_tex_write_transactions": 4.0}
    assert k2.metric_units["l2_tex_write_transactions"] == "sector"
    # run 3: l2_hit_rate 179.27 % and l2_tex_read_hit_rate 2,418.75 % impossible; the write hit rate 100 % kept
    assert _only(k3, "l2_hit_rate").value == 179.27
    assert _only(k3, "l2_tex_read_hit_rate").value == 2418.75
    assert {x.reason for x in k3.implausible} == {"implausible_hit_rate"}
    assert dict(k3.metrics) == {"l2_tex_write_hit_rate": 100.0}


def test_c10_n_a_is_not_measured_and_fp16_flops_use_nsights_weights():
    rd = diagnose_file(_case("C10_ncu_console_fp16_na.txt"))
    (d,) = rd.kernels
    k = d.kernel
    # "(!) n/a": not measured, never 0, never an error
    assert "smsp__sass_average_data_bytes_per_wavefront_mem_shared.pct" not in k.metrics
    # HADD 3,365 x 2 + HMUL 512 x 2 + HFMA 0 x 4 (data/metrics.toml [flop]: HADD2/HMUL2 = 2, HFMA2 = 4 per thread
    # instruction) = 6,730 + 1,024 + 0 = 7,754 FLOP
    assert dict(k.flop_counts) == {"fp16": 7754.0}
    assert d.roofline.pipe == "fp16" and d.roofline.flops == 7754.0
    # no duration printed -> FLOP/s not measured
    assert k.duration_s is None and d.roofline.achieved_flops_per_s is None
    assert "duration_not_measured" in d.roofline.not_measured
    assert k.dram_throughput_pct == 0.08 and k.achieved_occupancy_pct == 11.8
    assert k.implausible == ()
    # counted FLOPs are executed FLOPs: the roofline note says so
    assert "flops_executed" in [n.key for n in d.notes]


def test_c22_rows_indented_past_the_separator_are_read():
    rd = diagnose_file(_case("C22_ncu_console_shifted_rows.txt"))
    (d,) = rd.kernels
    k = d.kernel
    assert k.dram_throughput_pct == 88.41 and k.sol_memory_pct == 88.41 and k.sol_compute_pct == 12.05
    assert k.duration_s == pytest.approx(1.00e-3)
    assert k.launch.block == (256, 1, 1) and k.launch.grid == (65536, 1, 1)
    assert k.launch.registers_per_thread == 18 and k.launch.waves_per_sm == 210.05
    # SM Frequency printed "1.39 cycle/usecond" = 1.39 MHz: no GPU clocks its SMs that low (ncu prints MHz as
    # cycle/usecond, GHz as cycle/nsecond); flagged, and the clock derived from Elapsed Cycles / Duration =
    # 1,392,000 / 1.00 ms = 1.392 GHz (the 1.39 GHz the printout means)
    x = _only(k, "gpc__cycles_elapsed.avg.per_second")
    assert (x.value, x.unit, x.reason) == (pytest.approx(1.39e6), "hz", "implausible_clock")
    assert k.sm_frequency_hz == pytest.approx(1.392e9)
    # Memory 88.41 % > 80 % of peak, compute 12.05 %: memory-bound
    assert d.classes[0] == "memory-bound" and d.sol.bound == "memory-bound"


def test_n07_named_gpu_is_in_the_catalogue_and_levels_give_a_verdict(capsys):
    path = _case("N07_nvprof_shared_util_levels.txt")
    rd = diagnose_file(path)
    assert len(rd.kernels) == 2
    for d in rd.kernels:
        # "Tesla K80" (one GPU of the board) is in the catalogue now: its datasheet ceilings, not the --spec hint
        assert d.kernel.device.display_name == "Tesla K80" and d.gpu.name == "Tesla K80"
        assert d.provenance[0].key == "peaks_catalogue"
        # l1_shared_utilization "Max (10)": level 10 of 0-10 -> 10 x 10 = 100 % of peak (an approximation of the band)
        assert dict(d.kernel.memory_breakdown_pct) == {
            "l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed": 100.0}
        assert d.kernel.metrics["l1_shared_utilization"] == 10 and d.kernel.metric_units["l1_shared_utilization"] == "level"
        assert any("level x 10% of peak, an approximation" in p for p in d.kernel.problems)
        # the saturated L1/shared unit gives the verdict: memory-bound on that unit
        assert d.classes == ("memory-bound",)
        (f,) = [f for f in d.findings if f.id == "memory_throughput"]
        assert f.message.key == "rule_memory_unit_only" and f.message.values["unit"] == "l1"
        assert f.message.values["unit_pct"] == 100.0
    code, out, err = _run(capsys, "diagnose", str(path))
    assert code == 0, err
    assert "K80" in out and "--spec" not in out and "memory-bound" in out


def test_n09_bandwidth_above_the_dram_peak_is_not_a_dram_figure():
    rd = diagnose_file(_case("N09_plain_bandwidth_above_dram_peak.toml"))
    d1, d2, d3 = rd.kernels
    peak = 1792e9  # RTX 5090, catalogue (GDDR7, 512-bit, 28 Gbps)
    assert d1.gpu.dram_bandwidth_bytes_per_s == peak
    # 16,779,264 B / 5,383.14 ns = 3,117 GB/s (174 % of peak); 67,117,056 B / 13,372.59 ns = 5,019 GB/s (280 %)
    for d, nbytes, rate in ((d1, 16779264, 3117e9), (d2, 67117056, 5019e9)):
        x = _only(d.kernel, "dram_bytes")
        assert (x.value, x.unit, x.reason) == (nbytes, "byte", "implausible_dram_above_peak")
        assert x.rate == pytest.approx(rate, rel=1e-3) and x.limit == peak
        assert "served from L2" in implausible_text(x) and "algorithmic" in implausible_text(x)
        assert d.kernel.dram_bytes is None
        # no memory-bound verdict, no derived DRAM % and no efficiency above 100 % rest on them
        assert "memory-bound" not in d.classes and d.roofline.derived_dram_throughput_pct is None
        assert d.roofline.efficiency is None and not d.levels
    # 268,468,224 B / 185,022.9 ns = 1,451 GB/s = 80.97 % of 1,792 GB/s: a DRAM figure, memory-bound (> 80 %)
    assert d3.kernel.implausible == () and d3.kernel.dram_bytes == 268468224
    assert d3.roofline.derived_dram_throughput_pct == pytest.approx(80.97, abs=0.01)
    assert d3.classes == ("memory-bound",)


def test_n11_sm_count_row_gives_the_waves():
    rd = diagnose_file(_case("N11_ncu_csv_orin_flash_fwd.csv"))
    (d,) = rd.kernels
    k = d.kernel
    # "# SMs" 16 (Launch Statistics) -> the SM count
    assert k.device.sm_count == 16 and k.device.compute_capability == (8, 7)
    # 128 threads = 4 warps, 255 registers -> 256 x 32 = 8,192 per warp, 32,768 per block: 65,536 / 32,768 = 2 blocks
    # (Block Limit Registers 2) -> 8 of 48 warps = 16.67 %
    assert d.occupancy.active_blocks_per_sm == 2 and d.occupancy.active_warps_per_sm == 8
    assert d.occupancy.occupancy_pct == pytest.approx(16.67, abs=0.01) and k.theoretical_occupancy_pct == 16.67
    # grid (13, 1, 8) = 104 blocks / (2 blocks per SM x 16 SMs) = 3.25 waves
    assert k.launch.blocks == 104 and d.waves_per_sm == pytest.approx(3.25)


def test_nvprof_gpu_trace_gets_its_theoretical_occupancy():
    # Quadro GP100 (catalogue: CC 6.0): 128 threads = 4 warps, 32 registers, 0 B static + 2.0000KB (2,048 B) dynamic
    # shared memory: warps 64 / 4 = 16 blocks, registers 65,536 / (32 x 32 x 4) = 16, shared 65,536 / 2,048 = 32,
    # blocks 32 -> 16 blocks x 4 warps = 64 of 64 warps = 100 %; 74 x 16 = 1,184 blocks / (16 x 56 SMs) = 1.32 waves
    rd = diagnose_file(need(SHARED / "corpus" / "ncu_csv" / "ieee2017_nvprof_gputrace_gp100.log"))
    (d,) = rd.kernels
    assert d.kernel.device.compute_capability is None  # the trace names the device, the catalogue gives its CC
    assert d.kernel.launch.shared_mem_dynamic_bytes == 2048
    assert (d.occupancy.active_blocks_per_sm, d.occupancy.active_warps_per_sm) == (16, 64)
    assert d.occupancy.occupancy_pct == pytest.approx(100.0)
    assert d.waves_per_sm == pytest.approx(1184 / (16 * 56))


# --------------------------------------------------------------------------------- the mechanism, by hand


def _plain(tmp_path, body: str, name: str = "k.toml"):
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    return path


A100 = GpuSpec(name="A100 test", dram_bandwidth_bytes_per_s=2e12, peak_flops_per_s={"fp32": 20e12}, sm_count=108)


def test_plain_impossible_values_are_flagged_not_refused(tmp_path):
    path = _plain(tmp_path, """
[[kernel]]
name = "k"
duration_us = 100.0
sol_compute_pct = 150.0
sol_memory_pct = -3.0
dram_bytes_read = -5
dram_bytes_write = 1e300
flops = { fp32 = -1.0, fp64 = 2e30 }
""")
    k = load(path).kernels[0]
    reasons = {x.metric: (x.value, x.reason) for x in k.implausible}
    assert reasons == {
        "sol_compute_pct": (150.0, "implausible_pct"), "sol_memory_pct": (-3.0, "implausible_negative"),
        "dram_bytes_read": (-5.0, "implausible_negative"), "dram_bytes_write": (1e300, "implausible_bytes"),
        "flop_counts.fp32": (-1.0, "implausible_negative"), "flop_counts.fp64": (2e30, "implausible_flops"),
    }
    assert (k.sol_compute_pct, k.sol_memory_pct, k.dram_bytes_read, k.dram_bytes_write) == (None, None, None, None)
    assert dict(k.flop_counts) == {}
    assert len(k.problems) == 6
    d = diagnose(k, A100)
    assert d.sol.bound is None and d.classes == () and d.roofline.flops is None


def test_percentages_within_counter_noise_are_kept(tmp_path):
    # 100.03 % and -0.014 % are what real reports hold (the corpus' silu_triton report): noise, not absurd
    k = screen(KernelProfile(index=0, name="k", demangled_name="k", sol_compute_pct=100.03,
                             metrics={"lts__t_sector_hit_rate.pct": 100.03, "x__y.min.pct_of_peak_sustained_elapsed": -0.014},
                             metric_units={"lts__t_sector_hit_rate.pct": "%", "x__y.min.pct_of_peak_sustained_elapsed": "%"}))
    assert k.implausible == () and k.sol_compute_pct == 100.03


def test_metrics_of_every_kind_are_screened_once():
    k = KernelProfile(
        index=0, name="k", demangled_name="k", achieved_occupancy_pct=221.0,
        metrics={"sm__warps_active.avg.pct_of_peak_sustained_active": 221.0, "lts__t_sector_hit_rate.pct": 130.0,
                 "lts__t_sectors.sum": -4.0, "dram__bytes_read.sum": 2000.0, "flop_sp_efficiency": 5e23,
                 "smsp__inst_executed.sum": 10.0, "sm__cycles_elapsed.avg.per_second": -1.0},
        metric_units={"sm__warps_active.avg.pct_of_peak_sustained_active": "%", "lts__t_sector_hit_rate.pct": "%",
                      "lts__t_sectors.sum": "sector", "dram__bytes_read.sum": "Pbyte", "flop_sp_efficiency": "%",
                      "smsp__inst_executed.sum": "inst", "sm__cycles_elapsed.avg.per_second": "hz"},
    )
    out = screen(k)
    by_metric = {x.metric: x.reason for x in out.implausible}
    assert by_metric == {
        "sm__warps_active.avg.pct_of_peak_sustained_active": "implausible_occupancy",  # once, field and metric
        "lts__t_sector_hit_rate.pct": "implausible_hit_rate",
        "lts__t_sectors.sum": "implausible_negative",
        "dram__bytes_read.sum": "implausible_bytes",  # 2,000 Pbyte = 2e18 B > 1e18 B
        "flop_sp_efficiency": "implausible_pct",  # nvprof's "efficiency of 5e23 %"
    }
    # a negative clock metric is a rate, not a counter: the screen of sm_frequency_hz (a field) judges clocks
    assert set(out.metrics) == {"smsp__inst_executed.sum", "sm__cycles_elapsed.avg.per_second"}
    assert screen(out) is out  # idempotent: nothing left to move


def test_achieved_above_the_roof_is_flagged_on_the_gpu_used(tmp_path):
    # 4e10 FLOP in 1 ms = 40 TFLOP/s on a 20 TFLOP/s roof: the count, the duration or the ceilings are wrong
    path = _plain(tmp_path, '[[kernel]]\nname = "k"\nduration_us = 1000\nflops = 4e10\ndram_bytes = 1e8\n')
    d = diagnose(load(path).kernels[0], A100)
    x = _only(d.kernel, "flop_counts.fp32")
    assert x.reason == "implausible_flops_above_peak" and x.rate == pytest.approx(40e12) and x.limit == 20e12
    assert d.roofline.efficiency is None and d.roofline.bound is None
    # within the roof: used as it is (1e10 FLOP in 1 ms = 10 TFLOP/s, efficiency 50 %)
    path = _plain(tmp_path, '[[kernel]]\nname = "k"\nduration_us = 1000\nflops = 1e10\ndram_bytes = 1e8\n', "ok.toml")
    d = diagnose(load(path).kernels[0], A100)
    assert d.kernel.implausible == () and d.roofline.efficiency == pytest.approx(0.5)


def test_ncu_text_impossible_values_and_custom_text_rows(tmp_path):
    sep = "    " + "-" * 70 + " " + "-" * 15 + " " + "-" * 30
    def row(name, unit, value):
        return f"    {name:<70} {unit:>15} {value:>30}"
    text = "\n".join([
        "[1] app@host", "  k(float *), Context 1, Stream 7", "    Section: Command line profiler metrics", sep,
        row("dram__bytes_read.sum", "byte", "-1,024"),
        row("gpu__time_duration.sum", "usecond", "10.00"),
        row("lts__t_sector_hit_rate.pct", "%", "130.50"),
        row("sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", "(!) N/A"),
        sep, "    Section: My Own Section", sep,
        row("Tuning Knob", "", "fast"),
        row("widgets_per_call", "", "12"),
        sep, "",
    ])
    path = tmp_path / "k.txt"
    path.write_text(text, encoding="utf-8")
    k = load(path).kernels[0]
    assert {x.metric: x.reason for x in k.implausible} == {
        "dram__bytes_read.sum": "implausible_negative", "lts__t_sector_hit_rate.pct": "implausible_hit_rate"}
    assert k.dram_bytes_read is None and k.sol_compute_pct is None and k.duration_s == pytest.approx(1e-5)
    assert k.metrics["widgets_per_call"] == 12.0  # a custom section's row: read, not dropped
    d = diagnose(k, None)
    assert all(lv.hit_rate_pct is None for lv in d.levels)


def test_useful_flops_give_a_second_point_beside_the_executed_one(tmp_path, capsys):
    # executed 1.2e10 FLOP (padding included), useful 9e9, 1 ms, 1e8 DRAM bytes on a 20 TFLOP/s / 2 TB/s GPU:
    # executed AI 120, 12 TFLOP/s, efficiency 60 %; useful AI 90, 9 TFLOP/s, efficiency 45 %
    path = _plain(tmp_path, '[[kernel]]\nname = "gemm"\nduration_us = 1000\nflops = 1.2e10\nuseful_flops = 9e9\n'
                            'dram_bytes = 1e8\n')
    d = diagnose(load(path).kernels[0], A100)
    assert d.roofline.efficiency == pytest.approx(0.6)
    u = d.useful_roofline
    assert (u.pipe, u.flops) == ("fp32", 9e9)
    assert u.arithmetic_intensity_flop_per_byte == pytest.approx(90.0) and u.efficiency == pytest.approx(0.45)
    rows = dict(kernel_rows(d, Fmt("en")))
    assert rows["Useful work"].startswith("9.00 GFLOP of 12.0 GFLOP executed (75%)")
    # --useful-flops NAME=COUNT overrides it, from the command line; JSON has both points
    spec = tmp_path / "gpu.toml"
    spec.write_text('dram_bandwidth_bytes_per_s = 2.0e12\n[peak_flops_per_s]\nfp32 = 2.0e13\n', encoding="utf-8")
    code, out, err = _run(capsys, "diagnose", str(path), "--spec", str(spec), "--useful-flops", "gemm=6e9",
                          "--format", "json")
    assert code == 0, err
    (launch,) = json.loads(out)["inputs"][0]["launches"]
    assert launch["useful_flops"] == 6e9 and launch["useful_roofline"]["efficiency"] == pytest.approx(0.3)
    assert launch["roofline"]["flops"] == 1.2e10
    code, _, err = _run(capsys, "diagnose", str(path), "--useful-flops", "gemmm=6e9")
    assert code == 2 and "gemmm" in err and "gemm" in err
    with pytest.raises(SystemExit) as exc:
        main(["diagnose", str(path), "--useful-flops", "gemm"])
    assert exc.value.code == 2 and "NAME=COUNT" in capsys.readouterr().err


def test_counted_flops_are_said_to_be_executed_flops():
    k = KernelProfile(index=0, name="k", demangled_name="k", duration_s=1e-3, flop_counts={"fp32": 1e9},
                      metrics={"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": 5e8})
    d = diagnose(k, A100)
    assert "flops_executed" in [n.key for n in d.notes] and d.useful_roofline is None
    d = diagnose(with_useful_flops(ProfileReport("x", "plain", (k,)), {"k": 8e8}).kernels[0], A100)
    assert "flops_executed_vs_useful" in [n.key for n in d.notes]
    assert d.useful_roofline.flops == 8e8


def test_json_implausible_is_typed_and_localised(tmp_path):
    path = _plain(tmp_path, '[[kernel]]\nname = "k"\nduration_us = 10\nachieved_occupancy_pct = 221\n')
    rd = diagnose_file(path)
    doc = json.loads(to_json_text([rd], "zh"))
    (x,) = doc["inputs"][0]["launches"][0]["implausible"]
    assert x["reason"] == "implausible_occupancy" and "占用率超过 100%" in x["text"]
    assert doc["inputs"][0]["launches"][0]["problems"][0].startswith("achieved_occupancy_pct = 221%")


def test_each_console_table_finds_its_own_layout(tmp_path):
    # the first table's rows sit two columns right of its separator (case C22's layout), the second's do not
    sep = "    " + "-" * 70 + " " + "-" * 15 + " " + "-" * 30
    def row(indent, name, unit, value):
        return " " * indent + f"{name:<70} {unit:>15} {value:>30}"
    text = "\n".join([
        "[1] app@host", "  k(float *), Context 1, Stream 7", "    Section: GPU Speed Of Light Throughput", sep,
        row(6, "Duration", "usecond", "12.50"), row(6, "Memory [%]", "%", "91.20"),
        row(6, "Compute (SM) [%]", "%", "10.00"), sep,
        "    Section: Launch Statistics", sep, row(4, "Block Size", "", "128"), row(4, "Grid Size", "", "4,096"), sep, "",
    ])
    path = tmp_path / "k.txt"
    path.write_text(text, encoding="utf-8")
    k = load(path).kernels[0]
    assert k.duration_s == pytest.approx(12.5e-6) and k.sol_memory_pct == 91.2 and k.sol_compute_pct == 10.0
    assert k.launch.block == (128, 1, 1) and k.launch.grid == (4096, 1, 1)

"""Tests of the ``ncu --csv`` reader (kernelscope.ingest.ncu_csv) and the details-row mapping it shares
(kernelscope.ingest.ncu_details).

Small files are written here in exactly the shapes ncu prints (header generations of 14, 15, 20 and 21
columns, raw page with its units row, preambles, BOM / CRLF); expected values of the real files of the shared
corpus (../shared/corpus/ncu_csv) and of cases C08 / C09 (../shared/cases) were read off the files by hand.
"""

from __future__ import annotations

import json
import csv
import io
import re
from pathlib import Path

import pytest

from kernelscope import diagnose_file
from kernelscope.cli import main
from kernelscope.errors import InputError
from kernelscope.ingest import detect_format, load
from kernelscope.ingest.ncu_csv import read_ncu_csv
from kernelscope.ingest.ncu_details import MetricRow, RuleRow, profile_from_details
from kernelscope.ingest.ncu_printed import function_name, parse_number

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
CORPUS = SHARED / "corpus" / "ncu_csv"
CASES = SHARED / "cases"
NO_SHARED = "shared inputs not available: ../shared (beside the checkout) holds the corpus and the cases"


def shared(path: Path) -> Path:
    if not path.exists():
        pytest.skip(NO_SHARED)
    return path


def q(*fields: str) -> str:
    """One CSV line as ncu writes it: every field quoted."""
    return ",".join('"' + f.replace('"', '""') + '"' for f in fields)


def write(tmp_path: Path, name: str, lines: list[str], *, bom: bool = False, crlf: bool = False) -> Path:
    path = tmp_path / name
    text = ("\r\n" if crlf else "\n").join(lines) + ("\r\n" if crlf else "\n")
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"))
    return path


ID4 = ("0", "4242", "app", "127.0.0.1")
H14 = ("ID", "Process ID", "Process Name", "Host Name", "thread Domain:Push/Pop_Range:PL_Type:PL_Value",
       "Id:Domain:Start/Stop_Range:PL_Type:PL_Value", "Kernel Name", "Kernel Time", "Context", "Stream",
       "Section Name", "Metric Name", "Metric Unit", "Metric Value")
H15 = ("ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream", "Block Size",
       "Grid Size", "Device", "CC", "Section Name", "Metric Name", "Metric Unit", "Metric Value")
RULES = ("Rule Name", "Rule Type", "Rule Description", "Estimated Speedup Type", "Estimated Speedup")
H20 = H15 + RULES
H21 = H15[:12] + ("Body Item Label",) + H15[12:] + RULES


def row15(kid: str, kernel: str, section: str, metric: str, unit: str, value: str,
          block: str = "(256, 1, 1)", grid: str = "(1024, 1, 1)", cc: str = "8.0") -> list[str]:
    return [kid, *ID4[1:], kernel, "1", "7", block, grid, "0", cc, section, metric, unit, value]


def details20(rows: list[list[str]]) -> list[str]:
    """A 20-column page: metric rows stop after "Metric Value" with a trailing comma, as ncu writes them."""
    return [q(*H20)] + [q(*r) + ("," if len(r) == 15 else "") for r in rows]


# --- details page, every header generation ------------------------------------------------------------------


def test_details_14_columns_nvtx_2020(tmp_path: Path) -> None:
    kernel = "void phi::GatherNd<float, int>(float const*, common::Dim<9>, int const*)"
    nvtx = ("", ' "0:<default domain>:convLayer:none:none" ')
    lines = ["tensor output the application printed", "==PROF== Disconnected from process 4242", q(*H14)]
    for kid, name, dur, regs in (("0", kernel, "11,200", "74"), ("1", "other_kernel(int)", "4,032", "18")):
        for metric, unit, value in (("gpu__time_duration.sum", "nsecond", dur),
                                    ("launch__block_size", "", "512"), ("launch__grid_size", "", "117"),
                                    ("launch__registers_per_thread", "register/thread", regs),
                                    ("sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", "12.89"),
                                    ("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", "%", "22.29"),
                                    ("launch__shared_mem_per_block_static", "byte/block", "0")):
            lines.append(q(kid, *ID4[1:], *nvtx, name, "2024-Jul-13 20:34:21", "1", "13",
                           "Command line profiler metrics", metric, unit, value))
    path = write(tmp_path, "nvtx.txt", lines)
    assert detect_format(path) == "ncu-csv"
    report = read_ncu_csv(path)
    assert report.format == "ncu-csv" and report.tool_version is None
    assert [k.index for k in report.kernels] == [0, 1]
    k0, k1 = report.kernels
    assert k0.name == "GatherNd" and k0.demangled_name == kernel
    assert k0.duration_s == pytest.approx(11_200e-9) and k1.duration_s == pytest.approx(4_032e-9)
    assert k0.launch.registers_per_thread == 74 and k1.launch.registers_per_thread == 18
    assert k0.launch.block == (512, 1, 1) and k0.launch.grid == (117, 1, 1)  # only totals in 2020 pages
    assert k0.launch.shared_mem_static_bytes == 0
    assert k0.sol_compute_pct == 12.89 and k0.dram_throughput_pct == 22.29
    assert k0.device.display_name is None and k0.device.compute_capability is None


def test_details_15_columns_bom_crlf_preamble_and_awkward_names(tmp_path: Path) -> None:
    kernel = "void <unnamed>::gemm_tiled_kernel<32, (anonymous namespace)::Tag>(const float *, float *, int, int)"
    rows = [row15("0", kernel, "Command line profiler metrics", m, u, v, block="(32, 32, 1)", grid="(64, 64, 1)",
                  cc="12.0")
            for m, u, v in (("dram__bytes_op_read.sum", "byte", "53,261,312"),
                            ("dram__bytes_op_write.sum", "byte", "3,377,920"),
                            ("gpu__time_duration.sum", "ns", "10,195,552"),
                            ("sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", "88.90"),
                            ("sm__warps_active.avg.pct_of_peak_sustained_active", "%", "66.65"))]
    lines = ["==PROF== Connected to process 23056 (C:\\app.exe)", "device: NVIDIA GeForce RTX 5070 (sm_120), 48 SMs",
             "wrote 7 rows to C:\\results\\timing.csv", q(*H15)] + [q(*r) for r in rows]
    path = write(tmp_path, "gemm.csv", lines, bom=True, crlf=True)
    (k,) = read_ncu_csv(path).kernels
    assert k.name == "gemm_tiled_kernel" and k.demangled_name == kernel
    assert k.launch.grid == (64, 64, 1) and k.launch.block == (32, 32, 1)
    assert k.device.compute_capability == (12, 0) and k.device.display_name is None  # "Device" is an index
    assert k.duration_s == pytest.approx(10_195_552e-9)
    assert k.dram_bytes_read == 53_261_312 and k.dram_bytes_write == 3_377_920
    assert k.sol_compute_pct == 88.90 and k.achieved_occupancy_pct == 66.65


def _c09_like_rows(kid: str = "0", kernel: str = "copy_kernel(const float*, float*, unsigned long)") -> list[list[str]]:
    return [row15(kid, kernel, s, m, u, v) for s, m, u, v in (
        ("GPU Speed Of Light Throughput", "DRAM Frequency", "cycle/nsecond", "1.51"),
        ("GPU Speed Of Light Throughput", "SM Frequency", "cycle/usecond", "1,410.00"),
        ("GPU Speed Of Light Throughput", "Elapsed Cycles", "cycle", "28,540"),
        ("GPU Speed Of Light Throughput", "Memory Throughput", "%", "90.12"),
        ("GPU Speed Of Light Throughput", "DRAM Throughput", "%", "81.37"),
        ("GPU Speed Of Light Throughput", "Duration", "usecond", "20.23"),
        ("GPU Speed Of Light Throughput", "Compute (SM) Throughput", "%", "14.50"),
        ("Memory Workload Analysis", "Memory Throughput", "Gbyte/second", "1,658.42"),
        ("Memory Workload Analysis", "L2 Hit Rate", "%", "33.33"),
        ("Launch Statistics", "Block Size", "", "256"),
        ("Launch Statistics", "Registers Per Thread", "register/thread", "16"),
        ("Launch Statistics", "Shared Memory Configuration Size", "Kbyte", "8.19"),
        ("Launch Statistics", "Driver Shared Memory Per Block", "Kbyte/block", "1.02"),
        ("Launch Statistics", "Static Shared Memory Per Block", "byte/block", "0"),
        ("Launch Statistics", "Function Cache Configuration", "", "CachePreferNone"),
        ("Launch Statistics", "Waves Per SM", "", "18.96"),
        ("Occupancy", "Theoretical Occupancy", "%", "100"),
        ("Occupancy", "Achieved Occupancy", "%", "87.41"),
        ("Occupancy", "Achieved Active Warps Per SM", "warp", "55.94"),
    )]


def test_details_20_columns_sections_units_and_rules(tmp_path: Path) -> None:
    rows = _c09_like_rows()
    rows.insert(7, ["0", *ID4[1:], rows[0][4], "1", "7", "(256, 1, 1)", "(1024, 1, 1)", "0", "8.0", "SpeedOfLight",
                    "", "", "", "SOLBottleneck", "WRN",
                    "Memory is more heavily utilized than Compute: Look at the Memory Workload Analysis section.", "", ""])
    rows.append(["0", *ID4[1:], rows[0][4], "1", "7", "(256, 1, 1)", "(1024, 1, 1)", "0", "8.0", "Occupancy",
                 "", "", "", "AchievedOccupancy", "OPT", "The difference between calculated theoretical (100.0%) and "
                 "measured achieved occupancy (87.4%) can be the result of warp scheduling overheads.", "global", "12.59"])
    path = write(tmp_path, "details20.csv", details20(rows))
    (k,) = read_ncu_csv(path).kernels
    assert k.duration_s == pytest.approx(20.23e-6)
    assert k.sol_memory_pct == 90.12 and k.sol_compute_pct == 14.50 and k.dram_throughput_pct == 81.37
    assert k.metrics["dram__bytes.sum.per_second"] == pytest.approx(1.65842e12)
    assert k.metric_units["dram__bytes.sum.per_second"] == "byte/second"
    assert k.metrics["dram__cycles_elapsed.avg.per_second"] == pytest.approx(1.51e9)
    assert k.metrics["gpc__cycles_elapsed.avg.per_second"] == pytest.approx(1.41e9)
    assert k.metrics["gpc__cycles_elapsed.max"] == 28_540
    assert k.launch.registers_per_thread == 16 and k.launch.block == (256, 1, 1) and k.launch.grid == (1024, 1, 1)
    assert k.launch.shared_mem_config_bytes == 8192 and k.launch.shared_mem_static_bytes == 0
    assert k.metrics["launch__shared_mem_per_block_driver"] == 1024  # "1.02 Kbyte/block" = 1 KiB
    assert k.launch.waves_per_sm == 18.96
    assert k.theoretical_occupancy_pct == 100 and k.achieved_occupancy_pct == 87.41
    # No DRAM byte count on the page: bandwidth x duration, said in problems.
    assert k.dram_bytes == pytest.approx(1.65842e12 * 20.23e-6)
    assert any("DRAM bytes derived" in p for p in k.problems)
    assert [(r.rule_id, r.message_type, r.estimated_speedup_pct, r.speedup_type) for r in k.rules] == [
        ("SOLBottleneck", "WARNING", None, None), ("AchievedOccupancy", "OPTIMIZATION", 12.59, "global")]
    assert k.rules[0].message.startswith("Memory is more heavily utilized than Compute")


def test_details_21_columns_roofline_rows_give_flops(tmp_path: Path) -> None:
    kernel = "void Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8>(Params)"

    def r(section: str, label: str, metric: str, unit: str, value: str) -> str:
        return q("0", *ID4[1:], kernel, "1", "7", "(128, 1, 1)", "(152, 4, 1)", "0", "12.0", section, label,
                 metric, unit, value) + ","

    chart = "GPU Speed Of Light Roofline Chart"
    lines = [q(*H21),
             r("GPU Speed Of Light Throughput", "", "Duration", "us", "23.42"),
             r(chart, "", "Predicated-On FFMA Thread Instructions Executed Per Cycle", "inst/cycle", "13.26"),
             r(chart, "Single Precision Roofline", "SM Frequency", "Ghz", "2.01"),
             r(chart, "Single Precision Achieved Value", "Predicated-On FFMA Operations Per Cycle", "inst", "26.51"),
             r(chart, "Single Precision Achieved Value", "Predicated-On FADD Thread Instructions Executed Per Cycle",
               "inst/cycle", "0"),
             r(chart, "Single Precision Achieved Value", "Predicated-On FMUL Thread Instructions Executed Per Cycle",
               "inst/cycle", "13.26"),
             r(chart, "Single Precision Achieved Value", "DRAM Bandwidth", "Gbyte/s", "143.20"),
             q("0", *ID4[1:], kernel, "1", "7", "(128, 1, 1)", "(152, 4, 1)", "0", "12.0", "SpeedOfLight_RooflineChart",
               "", "", "", "", "SOLFPRoofline", "INF", "The ratio of peak float (fp32) to double (fp64) performance "
               "on this device is 64:1.", "", "")]
    (k,) = read_ncu_csv(write(tmp_path, "roofline21.csv", lines)).kernels
    cycles = 2.01e9 * 23.42e-6
    assert k.sm_frequency_hz == pytest.approx(2.01e9)
    # The first FFMA row wins (13.26 thread inst/cycle); FADD 0 and FMUL 13.26; FMA = 2 FLOP.
    assert k.flop_counts["fp32"] == pytest.approx((0 + 13.26 + 2 * 13.26) * cycles)
    assert k.dram_bytes_total == pytest.approx(143.20e9 * 23.42e-6)
    assert [(x.rule_id, x.message_type) for x in k.rules] == [("SOLFPRoofline", "INFO")]


def test_ffma_operations_per_cycle_are_halved_to_instructions() -> None:
    rows = [("SpeedOfLight", "Duration", "usecond", "10"),
            ("SpeedOfLight_RooflineChart", "SM Frequency", "hz", "1,000,000,000"),
            ("SpeedOfLight_RooflineChart", "Predicated-On FFMA Operations Per Cycle", "inst", "20"),
            ("SpeedOfLight_RooflineChart", "Predicated-On FADD Thread Instructions Executed Per Cycle", "inst/cycle", "1"),
            ("SpeedOfLight_RooflineChart", "Predicated-On FMUL Thread Instructions Executed Per Cycle", "inst/cycle", "2")]
    k = profile_from_details(0, "k(int)", rows, "t.csv")
    cycles = 1e9 * 10e-6
    assert k.flop_counts == {"fp32": pytest.approx((1 + 2 + 2 * 10) * cycles)}  # 20 FLOP/cycle = 10 FFMA


def test_old_section_and_metric_names(tmp_path: Path) -> None:
    rows = [row15("0", "vadd(float const *,float const *,float*,int)", s, m, u, v) for s, m, u, v in (
        ("GPU Speed Of Light", "Memory Frequency", "Ghz", "7.22"),
        ("GPU Speed Of Light", "SOL FB", "%", "82.65"),
        ("GPU Speed Of Light", "SM Frequency", "Ghz", "1.30"),
        ("GPU Speed Of Light", "Memory [%]", "%", "82.60"),
        ("GPU Speed Of Light", "Duration", "msecond", "1.67"),
        ("GPU Speed Of Light", "SM [%]", "%", "9.61"),
    )] + [row15("1", "row_sums(const float *, float *, unsigned long)", s, m, u, v) for s, m, u, v in (
        ("GPU Speed Of Light Throughput", "Compute (SM) [%]", "%", "4.52"),
        ("GPU Speed Of Light Throughput", "Memory [%]", "%", "72.28"),
        ("GPU Speed Of Light Throughput", "SOL SM", "%", "4.52"),  # same metric again: the first row wins
        ("GPU Speed Of Light Throughput", "Duration", "msecond", "11.97"),
        ("Memory Workload Analysis", "L1 Hit Rate", "%", "33.33"),
    )]
    k0, k1 = read_ncu_csv(write(tmp_path, "old.csv", [q(*H15)] + [q(*r) for r in rows])).kernels
    assert k0.dram_throughput_pct == 82.65 and k0.sol_memory_pct == 82.60 and k0.sol_compute_pct == 9.61
    assert k0.duration_s == pytest.approx(1.67e-3)
    assert k0.metrics["dram__cycles_elapsed.avg.per_second"] == pytest.approx(7.22e9)
    assert k1.sol_compute_pct == 4.52 and k1.sol_memory_pct == 72.28 and k1.duration_s == pytest.approx(11.97e-3)
    assert k1.metrics["l1tex__t_sector_hit_rate.pct"] == 33.33


def test_section_identifiers_are_accepted_like_display_names() -> None:
    by_id = profile_from_details(0, "k", [("SpeedOfLight", "Duration", "ns", "1,000"),
                                          ("LaunchStats", "Registers Per Thread", "register/thread", "32"),
                                          ("Occupancy", "Achieved Occupancy", "%", "50"),
                                          ("WarpStateStats", "Stall Long Scoreboard", "inst", "3.5"),
                                          ("WarpStateStats", "Warp Cycles Per Issued Instruction", "cycle", "9.1")],
                                 "t.csv")
    by_name = profile_from_details(0, "k", [("GPU Speed Of Light Throughput", "Duration", "ns", "1,000"),
                                            ("Launch  Statistics", "registers per thread", "register/thread", "32"),
                                            ("occupancy", "Achieved Occupancy", "%", "50"),
                                            ("Warp State Statistics", "Stall Long Scoreboard", "inst", "3.5"),
                                            ("Warp State Statistics", "Warp Cycles Per Issued Instruction", "cycle",
                                             "9.1")],
                                   "t.csv")
    for k in (by_id, by_name):
        assert k.duration_s == pytest.approx(1e-6) and k.launch.registers_per_thread == 32
        assert k.achieved_occupancy_pct == 50
        assert k.stall_family == "per_issue_active" and k.stall_values == {"long_scoreboard": 3.5}
        assert k.cycles_per_issued_instruction == 9.1


@pytest.mark.parametrize(
    "section, label, unit, value, field, expected",
    [
        ("SpeedOfLight", "Duration", "ns", "5,120", "duration_s", 5.12e-6),
        ("SpeedOfLight", "Duration", "nsecond", "5120", "duration_s", 5.12e-6),
        ("SpeedOfLight", "Duration", "us", "5.12", "duration_s", 5.12e-6),
        ("SpeedOfLight", "Duration", "usecond", "5.12", "duration_s", 5.12e-6),
        ("SpeedOfLight", "Duration", "msecond", "0.00512", "duration_s", 5.12e-6),
        ("SpeedOfLight", "Duration", "second", "5.12e-06", "duration_s", 5.12e-6),
        ("SpeedOfLight", "SM Frequency", "hz", "1,410,000,000", "gpc__cycles_elapsed.avg.per_second", 1.41e9),
        ("SpeedOfLight", "SM Frequency", "Khz", "1,410,000", "gpc__cycles_elapsed.avg.per_second", 1.41e9),
        ("SpeedOfLight", "SM Frequency", "Mhz", "1,410", "gpc__cycles_elapsed.avg.per_second", 1.41e9),
        ("SpeedOfLight", "SM Frequency", "Ghz", "1.41", "gpc__cycles_elapsed.avg.per_second", 1.41e9),
        ("SpeedOfLight", "SM Frequency", "cycle/nsecond", "1.41", "gpc__cycles_elapsed.avg.per_second", 1.41e9),
        ("SpeedOfLight", "SM Frequency", "cycle/usecond", "1,410", "gpc__cycles_elapsed.avg.per_second", 1.41e9),
        ("SpeedOfLight", "SM Frequency", "cycle/second", "1.41e9", "gpc__cycles_elapsed.avg.per_second", 1.41e9),
        ("MemoryWorkloadAnalysis", "Memory Throughput", "Gbyte/s", "143.20", "dram__bytes.sum.per_second", 143.2e9),
        ("MemoryWorkloadAnalysis", "Memory Throughput", "Gbyte/second", "1,658.42", "dram__bytes.sum.per_second",
         1.65842e12),
        ("MemoryWorkloadAnalysis", "Memory Throughput", "Mbyte/second", "286.36", "dram__bytes.sum.per_second",
         286.36e6),
        ("MemoryWorkloadAnalysis", "Memory Throughput", "byte/second", "1000", "dram__bytes.sum.per_second", 1000.0),
        ("DeviceMemoryTable", "Read Bytes", "byte", "4,194,304", "dram_bytes_read", 4194304.0),
        ("DeviceMemoryTable", "Read Bytes", "Kbyte", "4.19", "dram_bytes_read", 4190.0),
        ("DeviceMemoryTable", "Read Bytes", "Mbyte", "3.35", "dram_bytes_read", 3.35e6),
        ("DeviceMemoryTable", "Read Bytes", "Gbyte", "1.5", "dram_bytes_read", 1.5e9),
        ("LaunchStats", "Static Shared Memory Per Block", "byte/block", "4,096", "launch__shared_mem_per_block_static",
         4096.0),
        ("LaunchStats", "Dynamic Shared Memory Per Block", "Kbyte/block", "8.19", "launch__shared_mem_per_block_dynamic",
         8192.0),  # a decimal print of 8 KiB: the exact byte count
        ("SpeedOfLight", "Elapsed Cycles", "cycle", "46,970", "gpc__cycles_elapsed.max", 46970.0),
        ("ComputeWorkloadAnalysis", "Executed Ipc Active", "inst/cycle", "1.5", "sm__inst_executed.avg.per_cycle_active",
         1.5),
        ("LaunchStats", "Threads", "thread", "16,384", "launch__thread_count", 16384.0),
        ("Occupancy", "Block Limit Registers", "block", "5", "launch__occupancy_limit_registers", 5.0),
        ("SchedulerStats", "Active Warps Per Scheduler", "warp", "1.83", "smsp__warps_active.avg.per_cycle_active",
         1.83),
        ("LaunchStats", "Waves Per SM", "", "0.27", "launch__waves_per_multiprocessor", 0.27),
    ],
)
def test_units_are_converted_to_si(section, label, unit, value, field, expected) -> None:
    k = profile_from_details(0, "k", [(section, label, unit, value)], "t.csv")
    got = getattr(k, field) if hasattr(k, field) else k.metrics[field]
    assert got == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(
    "section, label, unit",
    [("SpeedOfLight", "Duration", "fortnight"), ("SpeedOfLight", "Duration", "%"),
     ("SpeedOfLight", "DRAM Throughput", "Gbyte/second"), ("MemoryWorkloadAnalysis", "Memory Throughput", "Gbyte"),
     ("SpeedOfLight", "SM Frequency", "cycle"), ("LaunchStats", "Static Shared Memory Per Block", "furlong/block")],
)
def test_unknown_unit_names_file_line_metric_and_unit(tmp_path: Path, section, label, unit) -> None:
    rows = [row15("0", "k(int)", "LaunchStats", "Block Size", "", "256"), row15("0", "k(int)", section, label, unit, "1")]
    path = write(tmp_path, "bad_unit.csv", details20(rows))
    with pytest.raises(InputError) as info:
        read_ncu_csv(path)
    msg = str(info.value)
    assert msg.startswith(f"{path}: line 3: kernel 0 (k): '{label}'") and f"has unit {unit!r}" in msg, msg
    assert "cannot convert" in msg and "\n" not in msg


def test_unknown_unit_of_a_metric_name_row(tmp_path: Path) -> None:
    rows = [row15("0", "k(int)", "Command line profiler metrics", "gpu__time_duration.sum", "fortnight", "3")]
    path = write(tmp_path, "bad_unit.csv", [q(*H15)] + [q(*r) for r in rows])
    with pytest.raises(InputError, match=r"line 2: kernel 0 \(k\): metric gpu__time_duration\.sum has unit 'fortnight'"):
        read_ncu_csv(path)


@pytest.mark.parametrize(
    "text, expected",
    [("292,928", 292928.0), ("1,658.42", 1658.42), ("20.23", 20.23), ("16", 16.0), ("1,275,068,416", 1275068416.0),
     ("1.5e+06", 1.5e6), ("-3", -3.0), ("n/a", None), ("N/A", None), ("", None), ("  ", None)],
)
def test_parse_number(text, expected) -> None:
    assert parse_number(text) == expected


@pytest.mark.parametrize("text", ["20,23", "1,65", "abc", "12 %", "1,2345"])
def test_parse_number_refuses_guesses(text) -> None:
    with pytest.raises(ValueError):
        parse_number(text)


def test_not_a_number_in_a_mapped_row(tmp_path: Path) -> None:
    path = write(tmp_path, "nan.csv", details20([row15("0", "k", "GPU Speed Of Light Throughput", "Duration",
                                                       "usecond", "twenty")]))
    with pytest.raises(InputError, match=r"line 2: kernel 0 \(k\): 'Duration' .*'twenty' is not a number"):
        read_ncu_csv(path)


def test_na_values_are_not_measured(tmp_path: Path) -> None:
    rows = [row15("0", "k", "Command line profiler metrics", m, u, v) for m, u, v in (
        ("flop_count_sp.sum", "", "n/a"), ("dram__bytes_read.sum", "Mbyte", "n/a"),
        ("gpu__time_duration.sum", "us", "1.00"))] + [row15("0", "k", "GPU Speed Of Light Throughput",
                                                          "DRAM Throughput", "%", "")]
    (k,) = read_ncu_csv(write(tmp_path, "na.csv", details20(rows))).kernels
    assert k.dram_bytes_read is None and k.dram_throughput_pct is None and k.duration_s == pytest.approx(1e-6)
    assert "flop_count_sp.sum" not in k.metrics


def test_function_name() -> None:
    assert function_name("void ns::gemm<32, (int)4>(const float *, int)") == "gemm"
    assert function_name("(anonymous namespace)::kern(int)") == "kern"
    assert function_name("void unnamed>::saxpy_kernel(float, const float *, float *, int)") == "saxpy_kernel"
    assert function_name("void at::native::<unnamed>::f<float, void at::g<(int)4>(int)>(int, float)") == "f"
    assert function_name("ampere_sgemm_128x32_tn") == "ampere_sgemm_128x32_tn"
    assert function_name("vec_scale(float*, const float*, int)") == "vec_scale"


def test_profile_from_details_extra_fields_and_rule_rows() -> None:
    rows = [MetricRow("SpeedOfLight", "Duration", "ns", "100", 7),
            RuleRow("SpeedOfLight", "SOLBottleneck", "OPT", "This kernel grid is too small  to fill the device.",
                    "12.5", "global", 8)]
    k = profile_from_details(3, "_Z3fooi", rows, "t.txt", device_name="NVIDIA A100-SXM4-40GB", cc=(8, 0),
                             grid=(10, 1, 1), block="(128, 1, 1)", extra={"problems": ("reader note",)})
    assert k.index == 3 and k.mangled_name == "_Z3fooi" and k.device.display_name == "NVIDIA A100-SXM4-40GB"
    assert k.device.compute_capability == (8, 0) and k.launch.grid == (10, 1, 1) and k.launch.block == (128, 1, 1)
    assert k.rules[0].message == "This kernel grid is too small to fill the device."
    assert k.rules[0].estimated_speedup_pct == 12.5 and k.problems[-1] == "reader note"


# --- raw page -------------------------------------------------------------------------------------------------

RAW_IDS = ("ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream", "Block Size",
           "Grid Size", "Device", "CC")


def test_raw_page_units_row_and_kernels(tmp_path: Path) -> None:
    metrics = ("device__attribute_display_name", "dram__bytes_read.sum", "gpu__time_duration.sum",
               "launch__registers_per_thread", "launch__block_dim_x", "launch__block_dim_y", "launch__block_dim_z",
               "sm__throughput.avg.pct_of_peak_sustained_elapsed", "launch__func_cache_config")
    units = ("", "Mbyte", "usecond", "register/thread", "block", "block", "block", "%", "")
    kernels = [("0", "void kern<float, 4>(float*, const float*, int)", "(16, 8, 1)", "(148, 1, 1)",
                ("NVIDIA B200", "4.19", "9.92", "40", "16", "8", "1", "1.55", "CachePreferNone")),
               ("1", "void other(int, int)", "(32, 1, 1)", "(8, 1, 1)",
                ("NVIDIA B200", "1,024.5", "23.87", "56", "32", "1", "1", "n/a", "CachePreferNone"))]
    lines = ["==PROF== Connected to process 1", q(*RAW_IDS, *metrics), q(*[""] * len(RAW_IDS), *units)]
    lines += [q(kid, *ID4[1:], name, "1", "7", block, grid, "0", "10.0", *vals) for kid, name, block, grid, vals in kernels]
    path = write(tmp_path, "raw.csv", lines)
    assert detect_format(path) == "ncu-csv"
    k0, k1 = read_ncu_csv(path).kernels
    assert k0.name == "kern" and k0.device.display_name == "NVIDIA B200" and k0.device.compute_capability == (10, 0)
    assert k0.duration_s == pytest.approx(9.92e-6) and k0.dram_bytes_read == pytest.approx(4.19e6)
    assert k0.launch.registers_per_thread == 40 and k0.launch.block == (16, 8, 1) and k0.launch.grid == (148, 1, 1)
    assert k0.sol_compute_pct == 1.55 and k0.metric_units["gpu__time_duration.sum"] == "usecond"
    assert k1.dram_bytes_read == pytest.approx(1024.5e6) and k1.sol_compute_pct is None
    assert k1.launch.block == (32, 1, 1)  # from launch__block_dim_* (the "Block Size" column agrees)


def test_raw_page_unknown_unit_names_the_units_row(tmp_path: Path) -> None:
    lines = [q(*RAW_IDS, "gpu__time_duration.sum"), q(*[""] * len(RAW_IDS), "fortnight"),
             q("0", *ID4[1:], "k(int)", "1", "7", "(1, 1, 1)", "(1, 1, 1)", "0", "8.6", "3")]
    with pytest.raises(InputError, match=r"line 3 \(unit from the units row, line 2\): kernel 0 \(k\): metric "
                                         r"gpu__time_duration\.sum has unit 'fortnight'"):
        read_ncu_csv(write(tmp_path, "raw_bad.csv", lines))


def test_raw_page_cut_row_is_malformed(tmp_path: Path) -> None:
    lines = [q(*RAW_IDS, "gpu__time_duration.sum", "launch__registers_per_thread"), q(*[""] * len(RAW_IDS), "ns", ""),
             q("0", *ID4[1:], "k(int)", "1", "7", "(1, 1, 1)", "(1, 1, 1)", "0", "8.6", "3", "16"),
             q("1", *ID4[1:], "k(int)", "1", "7", "(1, 1, 1)")]
    with pytest.raises(InputError, match=r"line 4: malformed raw-page row"):
        read_ncu_csv(write(tmp_path, "raw_cut.csv", lines))


# --- cases C08 and C09 ----------------------------------------------------------------------------------------


def test_c08_raw_units_row_roofline_by_hand() -> None:
    path = shared(CASES / "C08_ncu_raw_units_row.csv")
    report = load(path)
    (k,) = report.kernels  # the units row is not a kernel
    assert k.demangled_name == "vec_scale(float*, const float*, int)" and k.name == "vec_scale"
    assert k.device.compute_capability == (9, 0) and k.device.display_name is None
    assert k.launch.block == (256, 1, 1) and k.launch.grid == (4096, 1, 1) and k.launch.registers_per_thread == 16
    assert k.duration_s == pytest.approx(5120e-9)
    assert k.dram_bytes_read == 4_194_304 and k.dram_bytes_write == 4_194_304 and k.dram_bytes == 8_388_608
    assert k.flop_counts["fp32"] == 2 * 1_048_576  # FFMA only: FADD / FMUL were not collected, and it says so
    assert any("FADD/FMUL counters were not collected" in p for p in k.problems)
    # Identifier columns have empty units: "no unit", never NaN.
    assert all(isinstance(u, str) for u in k.metric_units.values())

    d = diagnose_file(path, gpu="NVIDIA H100 SXM5")
    point = d.kernels[0].roofline
    assert point.pipe == "fp32" and point.flops == 2_097_152 and point.dram_bytes == 8_388_608
    assert point.arithmetic_intensity_flop_per_byte == pytest.approx(0.25)
    assert point.achieved_flops_per_s == pytest.approx(409.6e9)
    assert point.dram_bytes / point.duration_s == pytest.approx(1.6384e12)


def test_c09_warning_lines_before_the_header() -> None:
    path = shared(CASES / "C09_ncu_csv_warning_before_header.csv")
    assert detect_format(path) == "ncu-csv"
    (k,) = load(path).kernels
    assert k.demangled_name == "copy_kernel(const float*, float*, unsigned long)"
    assert k.dram_throughput_pct == 81.37
    assert k.duration_s == pytest.approx(20.23e-6)
    assert k.metrics["dram__bytes.sum.per_second"] == pytest.approx(1.65842e12)
    assert k.launch.registers_per_thread == 16


def test_c09_header_is_on_line_4(tmp_path: Path) -> None:
    lines = shared(CASES / "C09_ncu_csv_warning_before_header.csv").read_text(encoding="utf-8").splitlines()
    assert lines[3].startswith('"ID"')
    lines[4] = lines[4].replace('"%"', '"percent-ish"')  # the first metric row: file line 5
    with pytest.raises(InputError, match=r": line 5: kernel 0 \(copy_kernel\): 'DRAM Throughput'"):
        read_ncu_csv(write(tmp_path, "c09_bad.csv", lines))


def test_c09_without_header_is_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = shared(CASES / "C09_ncu_csv_warning_before_header.csv").read_text(encoding="utf-8").splitlines()[:3]
    path = write(tmp_path, "c09_no_header.csv", lines)
    with pytest.raises(InputError, match="holds no profiler data") as info:
        read_ncu_csv(path)
    assert str(info.value).startswith(str(path)) and "==PROF==" in str(info.value)
    assert main(["diagnose", str(path), "--gpu", "A100-SXM4-40GB"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(path) in err[0] and "holds no profiler data" in err[0]


def test_cli_asks_for_gpu_when_the_csv_names_none(capsys: pytest.CaptureFixture[str]) -> None:
    # no device name in the export: diagnosed without roofline ceilings, and told how to get them
    path = shared(CASES / "C09_ncu_csv_warning_before_header.csv")
    assert main(["diagnose", str(path), "--format", "json"]) == 0
    launch = json.loads(capsys.readouterr().out)["inputs"][0]["launches"][0]
    assert launch["gpu"] is None and launch["roofline"]["ridge_point_flop_per_byte"] is None  # no ceilings
    assert launch["provenance"][0]["key"] == "no_gpu" and "--gpu" in launch["provenance"][0]["text"]
    assert launch["speed_of_light"]["dram_pct"] == pytest.approx(81.37)
    assert main(["diagnose", str(path), "--gpu", "NVIDIA A100-SXM4-40GB", "--format", "json"]) == 0
    assert '"ncu-csv"' in capsys.readouterr().out


# --- failed runs, malformed files, detection, CLI option ---------------------------------------------------------


@pytest.mark.parametrize(
    "lines, needle",
    [
        (["==ERROR== Option '--section .*SpeedOfLight.*' did not match any section.",
          "==ERROR== Use --list-sections to see the list of available sections."],
         "holds no profiler data (ncu printed: ==ERROR== Option '--section .*SpeedOfLight.*' did not match any section.)"),
        (["==PROF== Connected to process 1", "==PROF== Disconnected from process 1",
          "==ERROR== The application returned an error code (1)."],
         "holds no profiler data (ncu printed: ==ERROR== The application returned an error code (1).)"),
        (["==WARNING== No kernels were profiled."], "holds no profiler data (ncu printed: ==WARNING== No kernels"),
        (["just some text", "no header here"], "holds no profiler data (no ncu CSV header row"),
        ([q(*H15)], "holds no profiled kernels (the ncu CSV header on line 1 is followed by no kernel rows)"),
        ([q(*RAW_IDS, "gpu__time_duration.sum"), q(*[""] * len(RAW_IDS), "ns")],
         "holds no profiled kernels"),
    ],
)
def test_files_without_data_are_refused_clearly(tmp_path: Path, lines, needle) -> None:
    path = write(tmp_path, "failed.csv", lines)
    with pytest.raises(InputError) as info:
        read_ncu_csv(path)
    assert str(info.value).startswith(f"{path}: ") and needle in str(info.value)
    if lines[0].startswith("=="):  # ncu's messages only: detected as an ncu CSV whose run failed
        with pytest.raises(InputError) as info:
            load(path)
        assert needle in str(info.value)


def test_empty_csv_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "empty.csv"
    path.write_bytes(b"")
    with pytest.raises(InputError, match="empty"):
        read_ncu_csv(path)


def _large_details(tmp_path: Path, bad_line: int | None, bad: str) -> Path:
    lines = [q(*H20)]
    for kid in range(500):
        for s, m, u, v in (("GPU Speed Of Light Throughput", "Duration", "usecond", f"{kid + 1}.5"),
                           ("GPU Speed Of Light Throughput", "DRAM Throughput", "%", "50.00"),
                           ("Launch Statistics", "Registers Per Thread", "register/thread", "32"),
                           ("Launch Statistics", "Block Size", "", "256"),
                           ("Occupancy", "Achieved Occupancy", "%", "75.5")):
            lines.append(q(*row15(str(kid), f"kernel_{kid % 7}(float*, int)", s, m, u, v)) + ",")
    if bad_line is not None:
        lines[bad_line - 1] = bad
    return write(tmp_path, "large.csv", lines)


def test_large_file_reads_every_kernel(tmp_path: Path) -> None:
    report = read_ncu_csv(_large_details(tmp_path, None, ""))
    assert len(report.kernels) == 500
    k = report.kernels[499]
    assert k.index == 499 and k.name == "kernel_2" and k.duration_s == pytest.approx(500.5e-6)


@pytest.mark.parametrize(
    "bad",
    [
        '"1250","4242","app","127.0.0.1","kernel_4(float*, int)","1","7","(256, 1, 1)',  # cut in a quoted field
        '"1250","4242","app","127.0.0.1","kern"el"',  # stray quote
        '"x","4242","app","127.0.0.1","k","1","7","(1, 1, 1)","(1, 1, 1)","0","8.0","S","Duration","ns","1",',
        '"250","4242","app"',  # too few fields
        'Segmentation fault (core dumped)',
    ],
)
def test_malformed_line_in_a_large_file_names_its_line(tmp_path: Path, bad: str) -> None:
    path = _large_details(tmp_path, 1250, bad)
    with pytest.raises(InputError) as info:
        read_ncu_csv(path)
    assert re.search(r": line 1250: malformed", str(info.value)), str(info.value)


def test_ncu_messages_after_the_header_are_skipped(tmp_path: Path) -> None:
    lines = details20([row15("0", "k", "GPU Speed Of Light Throughput", "Duration", "ns", "10")])
    lines.insert(2, "==PROF== Disconnected from process 4242")
    lines.append("")
    (k,) = read_ncu_csv(write(tmp_path, "msgs.csv", lines)).kernels
    assert k.duration_s == pytest.approx(10e-9)


def test_detection_by_content_not_extension(tmp_path: Path) -> None:
    lines = details20([row15("0", "k", "GPU Speed Of Light Throughput", "Duration", "ns", "10")])
    for name in ("export.txt", "export.log", "export"):
        assert detect_format(write(tmp_path, name, lines)) == "ncu-csv"
    other = write(tmp_path, "other.csv", ["a,b,c", "1,2,3"])
    with pytest.raises(InputError, match="unrecognised input format"):
        detect_format(other)


def test_cli_input_format_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = details20([row15("0", "k", "GPU Speed Of Light Throughput", "Duration", "ns", "10")])
    path = write(tmp_path, "export.dat", lines)
    assert main(["diagnose", str(path), "--input-format", "ncu-csv", "--gpu", "NVIDIA A100-SXM4-40GB",
                 "--format", "json"]) == 0
    assert "ncu-csv" in capsys.readouterr().out
    assert main(["diagnose", str(path), "--input-format", "ncu-rep"]) == 2
    assert "Nsight Compute report" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        main(["diagnose", str(path), "--input-format", "excel"])
    assert info.value.code == 2
    assert "--input-format" in capsys.readouterr().err


# --- the real files of the shared corpus -----------------------------------------------------------------------


def corpus_table() -> dict[str, str]:
    """file -> kind, for the ncu CSV rows of the corpus README's ncu_csv table."""
    readme = SHARED / "corpus" / "README.md"
    if not readme.is_file():
        return {}
    rows = {}
    for line in readme.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and cells[1].startswith("ncu_csv") and (CORPUS / cells[0]).exists():
            rows[cells[0]] = cells[1]
    return rows


NCU_CSV_FILES = sorted(corpus_table())
REFUSED = {
    "llmperfopt_ncu_error_no_section_raw.csv":
        "holds no profiler data (ncu printed: ==ERROR== Option '--section .*SpeedOfLight.*' did not match any section.)",
    "meinie_b200_raw_failed_run_no_rows.ncu.csv":
        "holds no profiler data (ncu printed: ==ERROR== The application returned an error code (1).)",
}
GPU_FOR = {  # the GPU each file was profiled on (corpus README), for files whose CSV does not name it
    "llmperfopt_rtx5090_kernel0003_ncu.details.csv": "NVIDIA GeForce RTX 5090",
    "llmperfopt_rtx5090_kernel0003_ncu.section_SpeedOfLight_RooflineChart.csv": "NVIDIA GeForce RTX 5090",
    "olajide_rtx5070_gemm_tiled.csv": "NVIDIA GeForce RTX 5070",
    "olajide_rtx5070_saxpy.csv": "NVIDIA GeForce RTX 5070",
    # The file names no GPU (README: "not named"); any catalogue GPU serves to check every kernel is diagnosed.
    "ai4mat_ncu2020_nvtx_metrics_show_paddle.txt": "NVIDIA GeForce RTX 3090",
}


def each_corpus_file() -> list:
    return NCU_CSV_FILES or [pytest.param(None, marks=pytest.mark.skip(reason=NO_SHARED))]


def test_corpus_table_lists_the_ncu_csv_files() -> None:
    shared(CORPUS)
    assert set(NCU_CSV_FILES) == set(REFUSED) | set(GPU_FOR) | {"meinie_b200_raw_flashinfer_decode_gqa_bf16_b1_ctx4k.ncu.csv"}


@pytest.mark.parametrize("name", each_corpus_file())
def test_every_corpus_ncu_csv_parses_or_is_refused_clearly(name: str) -> None:
    path = CORPUS / name
    assert detect_format(path) == "ncu-csv"
    if name in REFUSED:
        with pytest.raises(InputError) as info:
            load(path)
        assert str(info.value) == f"{path}: {REFUSED[name]}"
        return
    report = load(path)
    assert report.format == "ncu-csv" and report.kernels
    d = diagnose_file(path, gpu=GPU_FOR.get(name))  # None: the file names its GPU
    assert len(d.kernels) == len(report.kernels)


def test_corpus_llmperfopt_details_by_hand() -> None:
    (k,) = load(shared(CORPUS / "llmperfopt_rtx5090_kernel0003_ncu.details.csv")).kernels
    assert k.name == "Kernel2" and k.device.compute_capability == (12, 0)
    assert k.launch.grid == (152, 4, 1) and k.launch.block == (128, 1, 1)
    assert k.duration_s == pytest.approx(23.42e-6)  # "Duration","us","23.42"
    assert k.sol_compute_pct == 41.49 and k.sol_memory_pct == 61.83 and k.dram_throughput_pct == 8.13
    assert k.dram_bytes_read == pytest.approx(3.35e6) and k.dram_bytes_write == 0
    assert k.achieved_occupancy_pct == 15.18 and k.theoretical_occupancy_pct == 16.67
    assert k.tensor_ops_pct == {}  # sm__ops_path_tensor_src_bf16_dst_fp32.sum is a count, not a % of peak
    assert k.metrics["sm__ops_path_tensor_src_bf16_dst_fp32.sum"] == 1_275_068_416
    # ... of tensor-path math ops = FLOPs (one multiply + one add per MMA element): the BF16 tensor FLOP count
    assert k.flop_counts == {"bf16_tensor": 1_275_068_416}
    assert [(r.rule_id, r.message_type, r.estimated_speedup_pct, r.speedup_type) for r in k.rules] == [
        ("SOLBottleneck", "OPTIMIZATION", None, None), ("SOLFPRoofline", "INFO", None, None),
        ("IssueSlotUtilization", "OPTIMIZATION", 38.17, "local"), ("TheoreticalOccupancy", "OPTIMIZATION", 38.17, "global")]
    d = diagnose_file(CORPUS / "llmperfopt_rtx5090_kernel0003_ncu.details.csv", gpu="NVIDIA GeForce RTX 5090")
    assert d.kernels[0].ncu_bottleneck == "memory-bound"
    # a BF16 GEMM: measured against the BF16 tensor ceiling (209.5 TFLOP/s dense), not FP32 CUDA cores
    point = d.kernels[0].roofline
    assert point.pipe == "bf16_tensor" and point.flops == 1_275_068_416
    assert point.achieved_flops_per_s == pytest.approx(1_275_068_416 / 23.42e-6)
    assert "no_fp_counters" not in [n.key for n in d.kernels[0].notes]


def test_corpus_llmperfopt_roofline_section_export() -> None:
    (k,) = load(shared(CORPUS / "llmperfopt_rtx5090_kernel0003_ncu.section_SpeedOfLight_RooflineChart.csv")).kernels
    assert k.sm_frequency_hz == pytest.approx(2.01e9)  # "SM Frequency","Ghz","2.01"
    assert k.metrics["dram__bytes.sum.per_second"] == pytest.approx(143.20e9)  # "DRAM Bandwidth","Gbyte/s","143.20"
    assert k.metrics["smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed"] == 13.26
    assert k.duration_s is None and k.flop_counts == {}  # no duration in this export: no FLOP count
    # ... and it says so: the FP counters were collected (as per-cycle rates), only a duration / cycle count is missing
    assert k.problems[0].startswith("FLOP rates present but no duration/cycle count: FLOPs not counted")
    assert [r.rule_id for r in k.rules] == ["SOLFPRoofline"]


def test_corpus_details_and_metric_rows_of_one_kernel_agree(tmp_path: Path) -> None:
    """llmperfopt's details export holds the kernel twice: as `--metrics` rows (metric names) and as section
    rows (display labels). Read apart, both give the same duration, SOL % and DRAM bytes."""
    lines = shared(CORPUS / "llmperfopt_rtx5090_kernel0003_ncu.details.csv").read_text(encoding="utf-8").splitlines()
    header, body = lines[0], lines[1:]
    metric_rows = [x for x in body if '"Command line profiler metrics"' in x]
    section_rows = [x for x in body if '"Command line profiler metrics"' not in x]
    assert len(metric_rows) == 9 and len(section_rows) == 39
    (a,) = read_ncu_csv(write(tmp_path, "metric_rows.csv", [header, *metric_rows])).kernels
    (b,) = read_ncu_csv(write(tmp_path, "section_rows.csv", [header, *section_rows])).kernels
    assert a.duration_s == b.duration_s == pytest.approx(23.42e-6)
    assert a.sol_compute_pct == b.sol_compute_pct == 41.49
    assert a.dram_throughput_pct == b.dram_throughput_pct == 8.13
    # 3.35 MB read + 0 written, vs 143.20 GB/s x 23.42 us = 3.354 MB: the printed digits agree to 0.2 %.
    assert a.dram_bytes == pytest.approx(3.35e6) and b.dram_bytes == pytest.approx(a.dram_bytes, rel=2e-3)
    gpu = "NVIDIA GeForce RTX 5090"
    da = diagnose_file(tmp_path / "metric_rows.csv", gpu=gpu).kernels[0]
    db = diagnose_file(tmp_path / "section_rows.csv", gpu=gpu).kernels[0]
    assert da.kernel.duration_s == db.kernel.duration_s


def test_corpus_meinie_raw_b200_by_hand() -> None:
    report = load(shared(CORPUS / "meinie_b200_raw_flashinfer_decode_gqa_bf16_b1_ctx4k.ncu.csv"))
    assert len(report.kernels) == 16
    assert {k.name for k in report.kernels} == {"PersistentVariableLengthMergeStatesKernel",
                                                "BatchDecodeWithPagedKVCacheKernel"}
    k0, k1 = report.kernels[:2]
    assert k0.device.display_name == "NVIDIA B200" and k0.device.compute_capability == (10, 0)
    assert k0.device.sm_count == 148 and k0.device.l2_cache_bytes == 132_644_864
    assert k0.device.max_sm_clock_hz == pytest.approx(1_965_000e3)  # device__attribute_max_gpu_frequency_khz
    assert k0.duration_s == pytest.approx(9920e-9) and k1.duration_s == pytest.approx(23872e-9)
    assert k0.launch.registers_per_thread == 40 and k1.launch.registers_per_thread == 56
    assert k0.launch.block == (16, 8, 1) and k0.launch.grid == (148, 1, 1) and k1.launch.block == (16, 4, 2)
    assert k0.launch.shared_mem_dynamic_bytes == 8704 and k0.launch.waves_per_sm == 0.08
    assert k0.theoretical_occupancy_pct == 75 and k1.theoretical_occupancy_pct == 56.25
    assert k0.metrics["sm__inst_issued.avg.pct_of_peak_sustained_elapsed"] == 1.55
    assert k1.metrics["sm__inst_issued.avg.pct_of_peak_sustained_elapsed"] == 30.98
    assert k0.sol_compute_pct is None  # the SOL section was not collected
    assert report.kernels[15].duration_s == pytest.approx(23776e-9)


@pytest.mark.parametrize(
    "name, kernel, duration_ns, sm_pct, warps_pct, read, write_",
    [("olajide_rtx5070_gemm_tiled.csv", "gemm_tiled_kernel", 10_195_552, 88.90, 66.65, 53_261_312, 3_377_920),
     ("olajide_rtx5070_saxpy.csv", "saxpy_kernel", 292_928, 22.30, 83.82, 134_221_568, 43_631_104)],
)
def test_corpus_olajide_by_hand(name, kernel, duration_ns, sm_pct, warps_pct, read, write_) -> None:
    (k,) = load(shared(CORPUS / name)).kernels
    assert k.name == kernel and k.device.compute_capability == (12, 0)
    assert k.duration_s == pytest.approx(duration_ns * 1e-9)
    assert k.sol_compute_pct == sm_pct and k.achieved_occupancy_pct == warps_pct
    assert k.dram_bytes_read == read and k.dram_bytes_write == write_  # dram__bytes_op_{read,write}.sum
    d = diagnose_file(CORPUS / name, gpu="NVIDIA GeForce RTX 5070").kernels[0]
    assert d.kernel.dram_bytes == read + write_


def test_corpus_ai4mat_2020_nvtx_by_hand() -> None:
    report = load(shared(CORPUS / "ai4mat_ncu2020_nvtx_metrics_show_paddle.txt"))
    assert len(report.kernels) == 14
    k0, k13 = report.kernels[0], report.kernels[13]
    assert k0.name == "GatherNdCUDAKernel"
    assert k0.duration_s == pytest.approx(11_200e-9) and k0.launch.registers_per_thread == 74
    assert k0.sol_compute_pct == 12.89 and k0.sol_memory_pct == 34.56 and k0.dram_throughput_pct == 22.29
    assert k0.achieved_occupancy_pct == 32.53 and k0.launch.block == (512, 1, 1) and k0.launch.grid == (117, 1, 1)
    assert k13.duration_s == pytest.approx(4_000e-9) and k13.launch.registers_per_thread == 26
    assert k13.sol_compute_pct == 1.42 and k13.achieved_occupancy_pct == 4.14
    assert k0.device.display_name is None


def test_csv_module_reads_what_we_write() -> None:
    """Sanity of the helper: ncu quotes every field, kernel names with commas survive."""
    line = q("0", "void f<int, 2>(int, float)")
    assert next(csv.reader(io.StringIO(line))) == ["0", "void f<int, 2>(int, float)"]


# --- reader fixes: durations of 0, unreadable numbers, Kbyte sizes, messages, tensor work, concatenated and
# --- summary exports, UTF-16, long preambles, missing units row ------------------------------------------------

CMD = "Command line profiler metrics"
SOL = "GPU Speed Of Light Throughput"
BF16_GEMM = "void Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8>(Params)"


def raw_page(tmp_path: Path, name: str, metrics: dict[str, tuple[str, str]], cc: str = "9.0") -> Path:
    """A raw page (header, units row, one launch) with ``metrics`` = name -> (unit, value as printed)."""
    lines = [q(*RAW_IDS, *metrics), q(*[""] * len(RAW_IDS), *(u for u, _ in metrics.values())),
             q("0", *ID4[1:], "vec_scale(float*, const float*, int)", "1", "7", "(256, 1, 1)", "(4096, 1, 1)", "0",
               cc, *(v for _, v in metrics.values()))]
    return write(tmp_path, name, lines)


@pytest.mark.parametrize("value", ["0", "0.00"])
def test_details_duration_of_zero_is_not_a_measurement(tmp_path: Path, value: str) -> None:
    rows = [row15("0", "copy_kernel(const float*, float*, unsigned long)", SOL, "DRAM Throughput", "%", "81.37"),
            row15("0", "copy_kernel(const float*, float*, unsigned long)", SOL, "Duration", "usecond", value),
            row15("0", "copy_kernel(const float*, float*, unsigned long)", "Memory Workload Analysis",
                  "Memory Throughput", "Gbyte/second", "1,658.42")]
    (k,) = read_ncu_csv(write(tmp_path, "zero.csv", ["==PROF== Disconnected from process 1", *details20(rows)])).kernels
    assert k.duration_s is None and k.dram_throughput_pct == 81.37
    assert "duration 0 ns is not a measurement (line 4)" in k.problems
    assert k.dram_bytes is None  # no "DRAM bytes = bandwidth x 0 s"
    d = diagnose_file(write(tmp_path, "zero2.csv", details20(rows)), gpu="NVIDIA A100-SXM4-40GB")
    assert d.kernels[0].roofline.duration_s is None


@pytest.mark.parametrize("value, text", [("0", "duration 0 ns"), ("-5120", "duration -5120 ns")])
def test_raw_duration_of_zero_or_below_is_not_a_measurement(tmp_path: Path, value: str, text: str) -> None:
    path = raw_page(tmp_path, "raw0.csv", {"dram__bytes_read.sum": ("byte", "4194304"),
                                           "gpu__time_duration.sum": ("ns", value),
                                           "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": ("inst", "1048576")})
    (k,) = read_ncu_csv(path).kernels
    assert k.duration_s is None and k.dram_bytes_read == 4194304
    assert f"{text} is not a measurement (line 3)" in k.problems
    assert k.metrics["gpu__time_duration.sum"] == float(value)  # the value as read stays in metrics


@pytest.mark.parametrize("value", ['23,42', '5,12', 'abc', '1.2.3'])
def test_command_line_metric_that_is_not_a_number_is_an_error(tmp_path: Path, value: str) -> None:
    rows = [row15("0", BF16_GEMM, CMD, "dram__bytes_read.sum", "Mbyte", "3.35"),
            row15("0", BF16_GEMM, CMD, "gpu__time_duration.sum", "us", value)]
    with pytest.raises(InputError) as info:
        read_ncu_csv(write(tmp_path, "cmd.csv", details20(rows)))
    assert re.search(rf": line 3: kernel 0 \(Kernel2\): 'gpu__time_duration\.sum' \({CMD}\): value "
                     rf"'{re.escape(value)}' is not a number", str(info.value)), str(info.value)


@pytest.mark.parametrize("value", ["n/a", "", "-"])
def test_command_line_metric_not_measured_spellings(tmp_path: Path, value: str) -> None:
    rows = [row15("0", BF16_GEMM, CMD, "gpu__time_duration.sum", "us", value),
            row15("0", BF16_GEMM, CMD, "device__attribute_display_name", "", "NVIDIA GeForce RTX 5090"),
            row15("0", BF16_GEMM, CMD, "launch__func_cache_config", "", "CachePreferNone")]
    (k,) = read_ncu_csv(write(tmp_path, "na.csv", details20(rows))).kernels
    assert k.duration_s is None and "gpu__time_duration.sum" not in k.metrics
    assert k.device.display_name == "NVIDIA GeForce RTX 5090"  # string metrics stay strings


@pytest.mark.parametrize("metric, unit, value", [
    ("gpu__time_duration.sum", "ns", "5,12"),
    ("gpu__time_duration.sum", "ns", "abc"),
    ("launch__registers_per_thread", "register/thread", "sixteen"),
    ("sm__throughput.avg.pct_of_peak_sustained_elapsed", "", "high"),
])
def test_raw_page_value_that_is_not_a_number_is_an_error(tmp_path: Path, metric: str, unit: str, value: str) -> None:
    path = raw_page(tmp_path, "rawbad.csv", {"dram__bytes_read.sum": ("byte", "4194304"), metric: (unit, value),
                                             "device__attribute_display_name": ("", "NVIDIA H100 SXM5")})
    with pytest.raises(InputError) as info:
        read_ncu_csv(path)
    assert re.search(rf": line 3: kernel 0 \(vec_scale\): '{re.escape(metric)}' \(raw page.*\): value "
                     rf"'{value}' is not a number", str(info.value)), str(info.value)


SMEM_ROUND = [  # 24 KiB static shared memory, carveout 100 KiB, as ncu prints them (decimal Kbyte, 2 decimals)
    ("Launch Statistics", "Registers Per Thread", "register/thread", "32"),
    ("Launch Statistics", "Static Shared Memory Per Block", "Kbyte/block", "24.58"),
    ("Launch Statistics", "Dynamic Shared Memory Per Block", "byte/block", "0"),
    ("Launch Statistics", "Driver Shared Memory Per Block", "Kbyte/block", "1.02"),
    ("Launch Statistics", "Shared Memory Configuration Size", "Kbyte", "102.40"),
    ("Launch Statistics", "Block Size", "", "128"),
    ("Launch Statistics", "Grid Size", "", "1,024"),
    (SOL, "Duration", "usecond", "20.23"),
]


def test_shared_memory_in_kbyte_is_the_exact_byte_count(tmp_path: Path) -> None:
    rows = [row15("0", "copy_kernel(const float*, float*, unsigned long)", *r, block="(128, 1, 1)")
            for r in SMEM_ROUND]
    path = write(tmp_path, "smem.csv", details20(rows))
    (k,) = read_ncu_csv(path).kernels
    assert k.launch.shared_mem_static_bytes == 24 * 1024  # not 24580
    assert k.launch.shared_mem_config_bytes == 100 * 1024  # not 102400.0 by chance: the CC 8.0 carveout
    assert k.metrics["launch__shared_mem_per_block_driver"] == 1024
    d = diagnose_file(path, gpu="NVIDIA A100-SXM4-40GB")
    occ = d.kernels[0].occupancy
    assert occ.active_blocks_per_sm == 4 and occ.occupancy_pct == pytest.approx(25.0)  # 24580 B would give 3


def test_shared_memory_in_kbyte_on_the_raw_page(tmp_path: Path) -> None:
    path = raw_page(tmp_path, "smemraw.csv", {"launch__shared_mem_per_block_static": ("Kbyte/block", "24.58"),
                                              "launch__shared_mem_config_size": ("Kbyte", "167.94"),
                                              "launch__registers_per_thread": ("register/thread", "32")}, cc="8.0")
    (k,) = read_ncu_csv(path).kernels
    assert k.launch.shared_mem_static_bytes == 24576 and k.launch.shared_mem_config_bytes == 164 * 1024


@pytest.mark.parametrize("metric, text, unit, cc, expected", [
    ("launch__shared_mem_config_size", "8.19", "Kbyte", (8, 0), 8 * 1024),
    ("launch__shared_mem_config_size", "65.54", "Kbyte", (8, 6), 64 * 1024),
    ("launch__shared_mem_config_size", "102.40", "Kbyte", (8, 0), 100 * 1024),
    ("launch__shared_mem_config_size", "167.94", "Kbyte", (8, 0), 164 * 1024),
    ("launch__shared_mem_config_size", "233.47", "Kbyte", (9, 0), 228 * 1024),
    ("launch__shared_mem_per_block_static", "24.58", "Kbyte/block", None, 24576),
    ("launch__shared_mem_per_block_dynamic", "49.15", "Kbyte/block", None, 48 * 1024),
    ("launch__shared_mem_per_block_static", "1.00", "Kbyte/block", None, None),  # 995..1005 B: no 128 B multiple
    ("launch__shared_mem_per_block_static", "24", "Kbyte/block", None, None),  # 23500..24500 B: several
    ("launch__shared_mem_per_block_static", "24576", "byte/block", None, None),  # already exact
    ("launch__shared_mem_per_block_static", "24", "KiB", None, None),  # binary: exact
])
def test_exact_size_bytes(metric, text, unit, cc, expected) -> None:
    from kernelscope.ingest.ncu_printed import exact_size_bytes

    assert exact_size_bytes(metric, text, unit, cc) == expected


@pytest.mark.parametrize("where", ["before", "middle", "after"])
def test_ncu_message_lines_with_commas_are_skipped_anywhere(tmp_path: Path, where: str) -> None:
    kernel = "copy_kernel(const float*, float*, unsigned long)"
    lines = details20([row15("0", kernel, SOL, "DRAM Throughput", "%", "81.37"),
                       row15("0", kernel, SOL, "Duration", "usecond", "20.23"),
                       row15("0", kernel, "Launch Statistics", "Registers Per Thread", "register/thread", "16")])
    warning = "==WARNING== Found outstanding GPU clock reset, trying to revert...Success."
    at = {"before": 0, "middle": 2, "after": len(lines)}[where]
    lines[at:at] = [warning, "==PROF== Report: /tmp/x,y.ncu-rep", "==INFO== a, b, c"]
    (k,) = read_ncu_csv(write(tmp_path, "warn.csv", lines)).kernels
    assert k.duration_s == pytest.approx(20.23e-6) and k.launch.registers_per_thread == 16
    assert [p for p in k.problems if "ncu printed" in p] == [f"line {at + 1}: ncu printed: {warning}"]


def test_tensor_op_count_is_a_bf16_tensor_flop_count(tmp_path: Path) -> None:
    rows = [row15("0", BF16_GEMM, CMD, "gpu__time_duration.sum", "us", "23.42"),
            row15("0", BF16_GEMM, CMD, "sm__ops_path_tensor_src_bf16_dst_bf16.sum", "", "n/a"),
            row15("0", BF16_GEMM, CMD, "sm__ops_path_tensor_src_bf16_dst_fp32.sum", "", "1,275,068,416")]
    path = write(tmp_path, "tensor.csv", details20(rows))
    (k,) = read_ncu_csv(path).kernels
    assert k.flop_counts == {"bf16_tensor": 1_275_068_416}
    point = diagnose_file(path, gpu="NVIDIA GeForce RTX 5090").kernels[0].roofline
    assert point.pipe == "bf16_tensor" and point.flops == 1_275_068_416


@pytest.mark.parametrize("metric, value, pipe", [
    ("sm__ops_path_tensor_src_bf16_dst_fp32.sum.pct_of_peak_sustained_elapsed", "26.30", "bf16_tensor"),
    ("sm__ops_path_tensor_src_fp16_dst_fp32_sparsity_off.avg.pct_of_peak_sustained_active", "94.00", "fp16_tensor"),
    ("sm__ops_path_tensor_src_tf32_dst_fp32.sum.pct_of_peak_sustained_elapsed", "3.5", "tf32_tensor"),
    ("sm__ops_path_tensor_src_fp8_dst_fp32.sum.pct_of_peak_sustained_elapsed", "7", "fp8_tensor"),
])
def test_tensor_pct_of_peak_metrics_fill_tensor_ops_pct(tmp_path: Path, metric: str, value: str, pipe: str) -> None:
    rows = [row15("0", BF16_GEMM, CMD, "gpu__time_duration.sum", "us", "23.42"),
            row15("0", BF16_GEMM, CMD, metric, "%", value)]
    (k,) = read_ncu_csv(write(tmp_path, "tpct.csv", details20(rows))).kernels
    assert k.tensor_ops_pct == {pipe: float(value)}
    d = diagnose_file(write(tmp_path, "tpct2.csv", details20(rows)), gpu="NVIDIA H100 SXM5")
    assert d.kernels[0].roofline.pipe == pipe


def test_sparse_tensor_work_is_not_counted_as_dense_flops(tmp_path: Path) -> None:
    path = raw_page(tmp_path, "sparse.csv", {"gpu__time_duration.sum": ("ns", "5120"),
                                             "sm__ops_path_tensor_src_fp16_dst_fp32_sparsity_off.sum": ("", "1000"),
                                             "sm__ops_path_tensor_src_fp16_dst_fp32_sparsity_on.sum": ("", "2000"),
                                             "sm__ops_path_tensor_src_tf32_dst_fp32_sparsity_off.sum": ("", "64")})
    (k,) = read_ncu_csv(path).kernels
    assert k.flop_counts == {"tf32_tensor": 64}
    assert any(p.startswith("fp16_tensor tensor work uses sparsity") for p in k.problems)


ROOF_RATES = [
    ("Single Precision Achieved Value", "Predicated-On FADD Thread Instructions Executed Per Cycle", "inst/cycle",
     "0"),
    ("Single Precision Achieved Value", "Predicated-On FMUL Thread Instructions Executed Per Cycle", "inst/cycle",
     "13.26"),
]


def test_roofline_rates_without_duration_say_why_flops_are_not_counted(tmp_path: Path) -> None:
    h21 = [q(*H21)]
    rows = [("Single Precision Roofline", "SM Frequency", "Ghz", "2.01"),
            ("Single Precision Achieved Value", "Predicated-On FFMA Operations Per Cycle", "inst", "26.51"),
            *ROOF_RATES]
    for label, metric, unit, value in rows:
        r = row15("0", BF16_GEMM, "GPU Speed Of Light Roofline Chart", metric, unit, value)
        h21.append(q(*r[:12], label, *r[12:]) + ",")
    (k,) = read_ncu_csv(write(tmp_path, "roof.csv", h21)).kernels
    assert k.flop_counts == {} and k.duration_s is None
    assert k.problems == ("FLOP rates present but no duration/cycle count: FLOPs not counted "
                          "(FADD/FMUL/FFMA instructions per cycle were measured)",)


def _concatenated(second_pid: str = "4242") -> list[str]:
    """A details export (duration, SOL) and a roofline-section export of the same launch, `cat`-ed together."""
    first = details20([row15("0", BF16_GEMM, SOL, "Duration", "usecond", "23.42"),
                       row15("0", BF16_GEMM, SOL, "SM Frequency", "Ghz", "1.99"),
                       row15("0", BF16_GEMM, SOL, "Compute (SM) Throughput", "%", "41.49")])
    first.append(q("0", *ID4[1:], BF16_GEMM, "1", "7", "(256, 1, 1)", "(1024, 1, 1)", "0", "8.0", "SpeedOfLight",
                   "", "", "", "SOLFPRoofline", "INF", "The ratio of peak float (fp32) to double (fp64) performance is 64:1.",
                   "", ""))
    second = [q(*H21)]
    for label, metric, unit, value in (
            ("", "Duration", "usecond", "99.99"),  # (not in a roofline export: a conflicting value, for the test)
            ("Single Precision Roofline", "SM Frequency", "Ghz", "2.01"),
            ("Single Precision Achieved Value", "Predicated-On FFMA Operations Per Cycle", "inst", "26.51"),
            *ROOF_RATES):
        r = row15("0", BF16_GEMM, SOL if metric == "Duration" else "GPU Speed Of Light Roofline Chart", metric, unit,
                  value)
        r[1] = second_pid
        second.append(q(*r[:12], label, *r[12:]) + ",")
    r = [*row15("0", BF16_GEMM, "", "", "", "")[:11], "SpeedOfLight_RooflineChart", "", "", "", "", "SOLFPRoofline",
         "INF", "The ratio of peak float (fp32) to double (fp64) performance is 64:1.", "", ""]
    r[1] = second_pid
    second.append(q(*r))
    return first + second


def test_concatenated_exports_of_one_launch_are_merged(tmp_path: Path) -> None:
    report = read_ncu_csv(write(tmp_path, "cat.csv", _concatenated()))
    (k,) = report.kernels
    assert k.duration_s == pytest.approx(23.42e-6)  # the first export's value wins ...
    assert k.metrics["gpc__cycles_elapsed.avg.per_second"] == pytest.approx(1.99e9)  # SOL's "SM Frequency"
    assert k.sm_frequency_hz == pytest.approx(2.01e9)  # ... the later one fills what it lacks (smsp__ cycles/s)
    cycles = 2.01e9 * 23.42e-6
    assert k.flop_counts["fp32"] == pytest.approx((0 + 13.26 + 26.51) * cycles)
    assert [r.rule_id for r in k.rules] == ["SOLFPRoofline"]  # the repeated rule result once
    assert any("launch ID 0 of the export on line 1 is repeated by the export on line 6" in p for p in k.problems)


def test_same_id_in_another_process_is_another_launch(tmp_path: Path) -> None:
    assert len(read_ncu_csv(write(tmp_path, "two.csv", _concatenated(second_pid="777"))).kernels) == 2


SUMMARY_H = ("Process ID", "Process Name", "Host Name", "Kernel Name", "Block Size", "Grid Size", "Device", "CC",
             "Invocations", "Section Name", "Metric Name", "Metric Unit", "Minimum", "Maximum", "Average")


def test_print_summary_per_kernel_takes_the_average(tmp_path: Path) -> None:
    ident = ("109199", "app", "127.0.0.1", "saxpyKernel(float, const float *, float *, unsigned long)", "(256, 1, 1)",
             "(4096, 1, 1)", "0", "8.0", "14")
    other = ("109199", "app", "127.0.0.1", "other(int)", "(32, 1, 1)", "(1, 1, 1)", "0", "8.0", "2")
    lines = ["==PROF== Connected to process 109199 (/path/app)", "==PROF== Disconnected from process 109199",
             q(*SUMMARY_H),
             q(*ident, SOL, "Duration", "usecond", "10.00", "12.00", "11.00"),
             q(*ident, "Occupancy", "Theoretical Occupancy", "%", "100.00", "100.00", "100.00"),
             q(*other, SOL, "Duration", "nsecond", "1,000", "3,000", "2,000")]
    for name in ("summary.csv", "summary.txt"):
        path = write(tmp_path, name, lines)
        assert detect_format(path) == "ncu-csv"
        k, o = load(path).kernels
        assert k.name == "saxpyKernel" and k.launch_count == 14 and k.duration_s == pytest.approx(11e-6)
        assert k.theoretical_occupancy_pct == 100 and k.launch.block == (256, 1, 1)
        assert "values are averages over 14 invocations (ncu --print-summary), not one launch" in k.problems
        assert o.name == "other" and o.launch_count == 2 and o.duration_s == pytest.approx(2e-6)


def test_print_summary_not_per_kernel_is_refused_saying_what_it_is(tmp_path: Path) -> None:
    lines = [q("Device", "CC", "Invocations", "Section Name", "Metric Name", "Metric Unit", "Minimum", "Maximum",
               "Average"), q("0", "8.0", "16", SOL, "Duration", "usecond", "1.00", "12.00", "6.00")]
    with pytest.raises(InputError, match="line 1: an ncu --print-summary export that is not per kernel"):
        read_ncu_csv(write(tmp_path, "gpu_summary.csv", lines))


def test_utf16_export_is_detected_and_read(tmp_path: Path) -> None:
    kernel = "copy_kernel(const float*, float*, unsigned long)"
    lines = ["==PROF== Connected to process 12345 (/path/to/app)",
             *details20([row15("0", kernel, SOL, "Duration", "usecond", "20.23")])]
    for encoding in ("utf-16-le", "utf-16-be"):
        path = tmp_path / f"ps_{encoding}.csv"
        bom = b"\xff\xfe" if encoding.endswith("le") else b"\xfe\xff"
        path.write_bytes(bom + "\r\n".join(lines).encode(encoding) + "\r\n".encode(encoding))
        assert detect_format(path) == "ncu-csv"
        (k,) = load(path).kernels
        assert k.name == "copy_kernel" and k.duration_s == pytest.approx(20.23e-6)


@pytest.mark.parametrize("name", ["bigapp.csv", "bigapp.txt"])
def test_header_after_more_than_256_kib_of_application_output(tmp_path: Path, name: str) -> None:
    kernel = "copy_kernel(const float*, float*, unsigned long)"
    preamble = [f"iteration {i}: loss = {i / 1000:.6f}" for i in range(12000)]  # about 380 KB
    lines = [*preamble, "==PROF== Connected to process 12345 (/path/to/app)",
             *details20([row15("0", kernel, SOL, "Duration", "usecond", "20.23")])]
    path = write(tmp_path, name, lines)
    assert path.stat().st_size > 256 * 1024
    assert detect_format(path) == "ncu-csv"
    (k,) = load(path).kernels
    assert k.duration_s == pytest.approx(20.23e-6)


def test_raw_page_without_units_row_is_refused_saying_so(tmp_path: Path) -> None:
    lines = [q(*RAW_IDS, "gpu__time_duration.sum", "launch__registers_per_thread"),
             q("0", *ID4[1:], "k(int)", "1", "7", "(1, 1, 1)", "(1, 1, 1)", "0", "8.6", "5120", "16")]
    with pytest.raises(InputError, match=r"line 2: the units row is missing: the second row of a raw-page export"):
        read_ncu_csv(write(tmp_path, "nounits.csv", lines))


# --- line numbers of the rows read on the common path (issue 31) ----------------------------------------------


def test_line_numbers_count_message_lines_blank_lines_and_multi_line_records(tmp_path: Path) -> None:
    kernel = "copy_kernel(const float*, float*, unsigned long)"
    rule = [*row15("0", kernel, "SpeedOfLight", "", "", ""), "SOLBottleneck", "OPT",
            "The kernel is\nmemory bound", "global", "12.5"]
    lines = details20([row15("0", kernel, SOL, "DRAM Throughput", "%", "81.37"), rule,
                       row15("0", kernel, SOL, "Duration", "usecond", "0")])
    # file lines: 1 header, 2 DRAM row, 3-4 the rule (a quoted line break), 5 message, 6 blank, 7 Duration
    lines[3:3] = ["==PROF== Report: /tmp/x,y.ncu-rep", ""]
    (k,) = read_ncu_csv(write(tmp_path, "lines.csv", lines)).kernels
    assert "duration 0 ns is not a measurement (line 7)" in k.problems, k.problems
    assert [r.message for r in k.rules] == ["The kernel is memory bound"]


def test_a_bad_unit_on_the_common_path_names_its_file_line(tmp_path: Path) -> None:
    kernel = "k(int)"
    rows = [row15("0", kernel, SOL, "DRAM Throughput", "%", "81.37") for _ in range(3)]
    rows.append(row15("0", kernel, SOL, "Duration", "fortnight", "3"))
    lines = details20(rows)
    lines[2:2] = ["==WARNING== something, with a comma"]
    with pytest.raises(InputError, match=r": line 6: kernel 0 \(k\): 'Duration'"):
        read_ncu_csv(write(tmp_path, "unit.csv", lines))


def test_rows_of_another_launch_start_a_new_launch_on_the_common_path(tmp_path: Path) -> None:
    rows = [row15(kid, "a(int)", SOL, "Duration", "usecond", str(i + 1)) for i, kid in enumerate("0011")]
    rows[3][1] = "4243"  # another process: another launch, with the ID and kernel of the launch before
    rows.append([*rows[3][:11], "Launch Statistics", "Registers Per Thread", "register/thread", "32"])
    rows.append(row15("1", "b(int)", "Launch Statistics", "Registers Per Thread", "register/thread", "64"))
    ks = read_ncu_csv(write(tmp_path, "launches.csv", details20(rows))).kernels
    assert [(k.name, k.duration_s) for k in ks] == [("a", 1e-6), ("a", 3e-6), ("a", 4e-6), ("b", None)]
    assert [k.launch.registers_per_thread for k in ks] == [None, None, 32, 64]


def test_line_numbers_with_an_ncu_message_after_every_row(tmp_path: Path) -> None:
    kernel = "k(int)"
    lines = [q(*H20)]
    for i in range(200):  # rows on lines 2, 4, ... 400, a message after each (lines 3, 5, ... 401)
        lines += [q(*row15("0", kernel, SOL, "DRAM Throughput", "%", "81.37")) + ",", f"==PROF== Profiling {i}"]
    lines.append(q(*row15("0", kernel, SOL, "Duration", "usecond", "0")) + ",")
    (k,) = read_ncu_csv(write(tmp_path, "many.csv", lines)).kernels
    assert "duration 0 ns is not a measurement (line 402)" in k.problems, k.problems

"""ncu console-text reader: each printout variant in a small file written here in exactly ncu's shape, and the
console printouts of the shared corpus with values read off the files by hand."""

from __future__ import annotations

import pytest

from conftest import SHARED, need
from kernelscope import load
from kernelscope.errors import InputError
from kernelscope.ingest.ncu_text import read_ncu_text

CORPUS_CSV = SHARED / "corpus" / "ncu_csv"


def write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# Nsight Compute 2022.x: no header row in the tables, date in the kernel line, rules wrapped, NVTX block,
# application output spliced into the progress line.
LEGACY = """\
==PROF== Connected to process 5341 (/home/user/matrix_sums)
==PROF== Profiling "row_sums" - 0: 0%....50%....100%row sums correct!
 - 9 passes
==PROF== Profiling "column_sums" - 1: 0%....50%....100% - 9 passes
column sums correct!
==PROF== Disconnected from process 5341
[5341] matrix_sums@127.0.0.1
  row_sums(const float *, float *, unsigned long), 2022-Jun-02 19:46:33, Context 1, Stream 7

    NVTX Start/End Ranges:
      <default domain>
        <0,convLayer>
    Section: GPU Speed Of Light Throughput
    ---------------------------------------------------------------------- --------------- ------------------------------
    DRAM Frequency                                                           cycle/nsecond                           5.96
    SM Frequency                                                             cycle/usecond                         775.67
    Elapsed Cycles                                                                   cycle                      9,284,529
    Memory [%]                                                                           %                          72.28
    DRAM Throughput                                                                      %                          23.52
    Duration                                                                       msecond                          11.97
    L1/TEX Cache Throughput                                                              %                          88.40
    L2 Cache Throughput                                                                  %                          35.16
    SM Active Cycles                                                                 cycle                   7,591,930.17
    Compute (SM) [%]                                                                     %                           4.52
    ---------------------------------------------------------------------- --------------- ------------------------------
    WRN   Memory is more heavily utilized than Compute: Look at the Memory Workload Analysis section to identify the L1 
          bottleneck. Check memory replay (coalescing) metrics to make sure you're efficiently utilizing the bytes      
          transferred.                                                                                                  

    Section: Launch Statistics
    ---------------------------------------------------------------------- --------------- ------------------------------
    Block Size                                                                                                        256
    Function Cache Configuration                                                                  cudaFuncCachePreferNone
    Grid Size                                                                                                          64
    Registers Per Thread                                                   register/thread                             20
    Dynamic Shared Memory Per Block                                             byte/block                              0
    Static Shared Memory Per Block                                             Kbyte/block                           1.02
    Waves Per SM                                                                                                     0.27
    ---------------------------------------------------------------------- --------------- ------------------------------

    Section: Occupancy
    ---------------------------------------------------------------------- --------------- ------------------------------
    Theoretical Occupancy                                                                %                            100
    Achieved Occupancy                                                                   %                          27.92
    ---------------------------------------------------------------------- --------------- ------------------------------
    WRN   This kernel's theoretical occupancy is not impacted by any block limit.                                       

  column_sums(const float *, float *, unsigned long), 2022-Jun-02 19:46:33, Context 1, Stream 7
    Section: GPU Speed Of Light Throughput
    ---------------------------------------------------------------------- --------------- ------------------------------
    Duration                                                                       msecond                           3.02
    Compute (SM) [%]                                                                     %                          17.86
    ---------------------------------------------------------------------- --------------- ------------------------------
    INF   The kernel is utilizing greater than 80.0% of the available compute or memory performance of the device. To   
          further improve performance, work will likely need to be shifted from the most utilized to another unit.      

"""


def test_legacy_printout(tmp_path):
    report = read_ncu_text(write(tmp_path, "legacy.txt", LEGACY))
    assert report.format == "ncu-text" and report.tool_version is None
    row, col = report.kernels
    assert (row.index, row.name) == (0, "row_sums")
    assert row.demangled_name == "row_sums(const float *, float *, unsigned long)"
    assert row.duration_s == pytest.approx(11.97e-3)
    assert row.sol_memory_pct == pytest.approx(72.28) and row.sol_compute_pct == pytest.approx(4.52)
    assert row.dram_throughput_pct == pytest.approx(23.52)
    assert row.metrics["sm__cycles_active.avg"] == pytest.approx(7591930.17)  # thousands separators
    assert row.launch.registers_per_thread == 20 and row.launch.block == (256, 1, 1)
    assert row.launch.shared_mem_static_bytes == 1024  # "1.02 Kbyte" (decimal) is 1 KiB: the 128 B multiple it rounds
    assert row.achieved_occupancy_pct == pytest.approx(27.92)
    assert row.theoretical_occupancy_pct == pytest.approx(100)
    sol, occupancy = row.rules
    assert sol.rule_id == "SOLBottleneck" and sol.title == "High Memory Throughput"
    assert sol.message_type == "WARNING"
    assert sol.message.startswith("Memory is more heavily utilized than Compute: Look at")
    assert sol.message.endswith("utilizing the bytes transferred.")  # continuation lines joined
    assert occupancy.rule_id == "" and occupancy.message.startswith("This kernel's theoretical occupancy")
    assert col.index == 1 and col.duration_s == pytest.approx(3.02e-3)
    assert col.rules[0].title == "High Throughput" and col.rules[0].message_type == "INFO"
    assert row.device.display_name is None  # the console never names the GPU


# Nsight Compute 2023.x+: grid/block/device/CC in the kernel line, header rows in the tables, speedup on the
# first rule line, "----- ---" separators between rule messages.
MODERN = """\
==PROF== Connected to process 1234 (/work/app)
==PROF== Profiling "vector_add" - 0: 0%....50%....100% - 9 passes
==PROF== Disconnected from process 1234
[1234] app@127.0.0.1
  vector_add(float *, const float *, const float *, int) (4096, 1, 1)x(256, 1, 1), Context 1, Stream 7, Device 0, CC 8.6
    Section: GPU Speed Of Light Throughput
    ----------------------- ------------- ------------
    Metric Name               Metric Unit Metric Value
    ----------------------- ------------- ------------
    DRAM Frequency          cycle/nsecond         6.79
    SM Frequency            cycle/usecond       998.42
    Elapsed Cycles                  cycle       21,442
    Memory Throughput                   %        89.12
    DRAM Throughput                     %        89.12
    Duration                      usecond        21.47
    L1/TEX Cache Throughput             %        24.55
    L2 Cache Throughput                 %        31.64
    SM Active Cycles                cycle    18,842.79
    Compute (SM) Throughput             %        12.38
    ----------------------- ------------- ------------
    INF   This workload is utilizing greater than 80.0% of the available compute or memory performance of the device.  
          To further improve performance, work will likely need to be shifted from the most utilized to another unit.   
          Start by analyzing DRAM in the Memory Workload Analysis section.                                              

    Section: Launch Statistics
    -------------------------------- --------------- ---------------
    Metric Name                          Metric Unit    Metric Value
    -------------------------------- --------------- ---------------
    Block Size                                                   256
    Function Cache Configuration                     CachePreferNone
    Grid Size                                                  4,096
    Registers Per Thread             register/thread              16
    Shared Memory Configuration Size           Kbyte           16.38
    Static Shared Memory Per Block        byte/block               0
    Dynamic Shared Memory Per Block      Kbyte/block            1.02
    Threads                                   thread       1,048,576
    Waves Per SM                                                6.24
    -------------------------------- --------------- ---------------

    Section: Occupancy
    ------------------------------- ----------- ------------
    Metric Name                     Metric Unit Metric Value
    ------------------------------- ----------- ------------
    Theoretical Occupancy                     %          100
    Achieved Occupancy                        %        78.84
    Achieved Active Warps Per SM           warp        37.84
    ------------------------------- ----------- ------------
    OPT   Est. Local Speedup: 21.16%                                                                                    
          The difference between calculated theoretical (100.0%) and measured achieved occupancy (78.8%) can be the     
          result of warp scheduling overheads or workload imbalances during the kernel execution.                       
    ----- --------------------------------------------------------------------------------------------------------------
    WRN   Est. Speedup: 5.5%                                                                                            
          A wave of thread blocks is defined as the maximum number of blocks that can be executed in parallel.          

"""


def test_modern_printout(tmp_path):
    (k,) = read_ncu_text(write(tmp_path, "modern.txt", MODERN)).kernels
    assert k.name == "vector_add"
    assert k.launch.grid == (4096, 1, 1) and k.launch.block == (256, 1, 1)  # from the kernel line
    assert k.device.compute_capability == (8, 6)
    assert k.duration_s == pytest.approx(21.47e-6)
    assert k.sol_memory_pct == pytest.approx(89.12) and k.sol_compute_pct == pytest.approx(12.38)
    assert k.metrics["sm__cycles_active.avg"] == pytest.approx(18842.79)
    assert k.launch.registers_per_thread == 16 and k.launch.waves_per_sm == pytest.approx(6.24)
    assert k.launch.shared_mem_dynamic_bytes == 1024  # "1.02 Kbyte/block"
    assert k.launch.shared_mem_config_bytes == 16384  # "16.38 Kbyte": the 16 KiB carveout of CC 8.6
    assert k.achieved_occupancy_pct == pytest.approx(78.84)
    sol, occupancy, waves = k.rules
    assert (sol.rule_id, sol.title, sol.message_type) == ("SOLBottleneck", "High Throughput", "INFO")
    assert occupancy.message_type == "OPTIMIZATION"
    assert occupancy.estimated_speedup_pct == pytest.approx(21.16) and occupancy.speedup_type == "local"
    assert occupancy.message.startswith("The difference between calculated theoretical")
    assert waves.estimated_speedup_pct == pytest.approx(5.5) and waves.speedup_type is None
    assert "Metric Name" not in k.metrics


# ncu --metrics a,b,c: labels are metric names, the name column widened to fit them (2023.x+).
METRICS_ONLY = """\
[77] bench@127.0.0.1
  smem_kernel(const float *, float *, int) (128, 128, 1)x(16, 16, 1), Context 1, Stream 7, Device 0, CC 8.9
    Section: Command line profiler metrics
    --------------------------------------------------------------------------- --------------- -----------------------
    Metric Name                                                                     Metric Unit            Metric Value
    --------------------------------------------------------------------------- --------------- -----------------------
    device__attribute_display_name                                                              NVIDIA GeForce RTX 4090
    gpu__time_duration.sum                                                              usecond                    3.55
    launch__registers_per_thread                                                register/thread                      32
    smsp__average_warp_latency_per_inst_issued.ratio                                      cycle                   12.50
    smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio               inst                    6.66
    smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio            inst                    0.14
    --------------------------------------------------------------------------- --------------- -----------------------

"""


def test_metric_names_printout(tmp_path):
    (k,) = read_ncu_text(write(tmp_path, "metrics.txt", METRICS_ONLY)).kernels
    assert k.name == "smem_kernel" and k.device.display_name == "NVIDIA GeForce RTX 4090"
    assert k.device.compute_capability == (8, 9)
    assert k.duration_s == pytest.approx(3.55e-6)
    assert k.launch.registers_per_thread == 32
    assert k.stall_family == "per_issue_active"
    assert k.stall_values == {"long_scoreboard": pytest.approx(6.66), "math_pipe_throttle": pytest.approx(0.14)}
    assert k.cycles_per_issued_instruction == pytest.approx(12.5)


def test_row_crossing_a_column_boundary_names_its_line(tmp_path):
    # a unit wider than its column would be cut anywhere: the row is refused, not guessed
    text = METRICS_ONLY.replace(" " * 8 + "usecond" + " " * 20 + "3.55", " cycle/nsecond/second" + " " * 14 + "3.55")
    assert text != METRICS_ONLY
    with pytest.raises(InputError, match=r"line 8: cannot split this row of section 'Command line profiler metrics'"):
        read_ncu_text(write(tmp_path, "metrics.txt", text))


# Nsight Compute 2021/2022 printed the metric-name column 70 wide; a longer name pushes its row to the right.
LEGACY_LONG_NAME = """\
  k(int), 2022-Jun-08 16:31:17, Context 1, Stream 7
    Section: Command line profiler metrics
    ---------------------------------------------------------------------- --------------- ------------------------------
    smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio            inst                           6.66
    l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum                                request                        524,288
    ---------------------------------------------------------------------- --------------- ------------------------------
"""


def test_label_longer_than_its_column(tmp_path):
    (k,) = read_ncu_text(write(tmp_path, "long.txt", LEGACY_LONG_NAME)).kernels
    assert k.stall_values == {"long_scoreboard": pytest.approx(6.66)}
    assert k.metrics["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] == 524288


# ncu --print-summary per-kernel: Minimum / Maximum / Average columns, grouped by device (older) or not.
SUMMARY_GROUPED = """\
==PROF== Disconnected from process 11139
[11139] a.out@127.0.0.1
  Device 0, CC 9.0
    bitonic_merge(int *, int, int, int) (16384, 1, 1)x(512, 1, 1), Invocations 300
      Section: Command line profiler metrics
      ---------------------------------------------------------------- ----------- ------- ------- -------
      Metric Name                                                      Metric Unit Minimum Maximum Average
      ---------------------------------------------------------------- ----------- ------- ------- -------
      gpu__time_duration.sum                                               usecond   10.00   14.00   12.00
      sm__warps_active.avg.pct_of_peak_sustained_active                          %   70.30   78.18   73.84
      ---------------------------------------------------------------- ----------- ------- ------- -------

    fill_padding(int *, int, int, int) (52947, 1, 1)x(128, 1, 1), Invocations 1
      Section: Command line profiler metrics
      ---------------------------------------------------------------- ----------- ------- ------- -------
      Metric Name                                                      Metric Unit Minimum Maximum Average
      ---------------------------------------------------------------- ----------- ------- ------- -------
      gpu__time_duration.sum                                               usecond    2.00    2.00    2.00
      ---------------------------------------------------------------- ----------- ------- ------- -------

"""

SUMMARY_FLAT = """\
  transposeNaive(const float *, float *, int) (32, 32, 1)x(32, 32, 1), Device 0, CC 11.0, Invocations 14
    Section: Occupancy
    ------------------------------- ----------- ------- ------- -------
    Metric Name                     Metric Unit Minimum Maximum Average
    ------------------------------- ----------- ------- ------- -------
    Theoretical Occupancy                     %   66.67   66.67   66.67
    Achieved Occupancy                        %   34.68   35.78   35.26
    ------------------------------- ----------- ------- ------- -------
"""


def test_print_summary_grouped(tmp_path):
    first, second = read_ncu_text(write(tmp_path, "summary.txt", SUMMARY_GROUPED)).kernels
    assert first.name == "bitonic_merge" and first.device.compute_capability == (9, 0)
    assert first.duration_s == pytest.approx(12e-6)  # the Average column
    assert first.achieved_occupancy_pct == pytest.approx(73.84)
    assert any("averages over 300 invocations" in p for p in first.problems)
    assert second.name == "fill_padding" and second.launch.grid == (52947, 1, 1)


def test_print_summary_flat(tmp_path):
    (k,) = read_ncu_text(write(tmp_path, "summary.txt", SUMMARY_FLAT)).kernels
    assert k.device.compute_capability == (11, 0) and k.launch.block == (32, 32, 1)
    assert k.achieved_occupancy_pct == pytest.approx(35.26)
    assert k.theoretical_occupancy_pct == pytest.approx(66.67)


# ------------------------------------------------------------------------------------------------ errors


def test_no_kernel_data_quotes_ncu(tmp_path):
    text = "==PROF== Connected to process 1 (/app)\nhello\n==WARNING== No kernels were profiled.\n"
    with pytest.raises(InputError, match=r"holds no Nsight Compute kernel data \(.*No kernels were profiled") as info:
        read_ncu_text(write(tmp_path, "empty.txt", text))
    assert "\n" not in str(info.value)


def test_malformed_row_in_large_file_names_its_line(tmp_path):
    block = LEGACY.split("[5341] matrix_sums@127.0.0.1\n")[1]
    body = block * 400
    lines = body.splitlines(keepends=True)
    target = next(i for i, line in enumerate(lines) if i > 3000 and line.startswith("    Elapsed Cycles"))
    lines[target] = "garbage in the middle of a table\n"
    with pytest.raises(InputError, match=rf"line {target + 1}: expected a row of the table of section"):
        read_ncu_text(write(tmp_path, "big.txt", "".join(lines)))


def test_unknown_unit_is_named(tmp_path):
    text = MODERN.replace("    Duration                      usecond        21.47", "    Duration                    fortnight        21.47")
    with pytest.raises(InputError, match=r"line 15: .*'Duration'.*unit 'fortnight'"):
        read_ncu_text(write(tmp_path, "unit.txt", text))


def test_ambiguous_decimal_comma_is_refused(tmp_path):
    text = MODERN.replace("    Duration                      usecond        21.47", "    Duration                      usecond        21,47")
    with pytest.raises(InputError, match=r"line 15: .*21,47"):
        read_ncu_text(write(tmp_path, "comma.txt", text))


def test_file_cut_inside_a_table_is_said(tmp_path):
    text = MODERN[: MODERN.index("    L1/TEX Cache Throughput")]
    (k,) = read_ncu_text(write(tmp_path, "cut.txt", text)).kernels
    assert k.duration_s == pytest.approx(21.47e-6)  # the rows before the cut are read
    assert any("ends inside the table of section 'GPU Speed Of Light Throughput'" in p for p in k.problems)


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="file not found"):
        read_ncu_text(tmp_path / "absent.txt")


# ------------------------------------------------------------------------------------------------ corpus


def corpus(name: str):
    return need(CORPUS_CSV / name)


def test_corpus_ai4mat_torch_metrics():
    kernels = read_ncu_text(corpus("ai4mat_ncu2020_text_metrics_prof_torch.txt")).kernels
    assert len(kernels) == 14
    first = kernels[0]
    assert first.name == "index_elementwise_kernel"
    # gpu__time_duration.sum                                                         usecond                           5.98
    assert first.duration_s == pytest.approx(5.98e-6)
    # launch__registers_per_thread                                           register/thread                             34
    assert first.launch.registers_per_thread == 34
    # sm__throughput.avg.pct_of_peak_sustained_elapsed                                     %                          11.86
    assert first.sol_compute_pct == pytest.approx(11.86)
    # sm__warps_active.avg.pct_of_peak_sustained_active                                    %                          20.13
    assert first.achieved_occupancy_pct == pytest.approx(20.13)
    sgemm = kernels[3]
    # "  ampere_sgemm_32x32_sliced1x4_tn, 2024-Jul-13 20:38:34, Context 1, Stream 7"
    assert sgemm.name == "ampere_sgemm_32x32_sliced1x4_tn"
    # launch__shared_mem_per_block_static                                        Kbyte/block                          32.77
    assert sgemm.launch.shared_mem_static_bytes == 32768  # 32 KiB printed as 32.77 Kbyte
    # gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed                               %                          17.89
    assert sgemm.dram_throughput_pct == pytest.approx(17.89)


def test_corpus_ai4mat_713():
    first, second = read_ncu_text(corpus("ai4mat_ncu_text_metrics_713.txt")).kernels
    assert first.name == "elementwise_kernel" and second.name == "gemmSN_TN_kernel_64addr"
    # gpu__time_duration.sum                                                         usecond                           4.74
    assert second.duration_s == pytest.approx(4.74e-6)
    # launch__registers_per_thread                                           register/thread                             32
    assert second.launch.registers_per_thread == 32
    # gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed                     %                           1.48
    assert second.sol_memory_pct == pytest.approx(1.48)


def test_corpus_cts_task1b_metrics():
    (k,) = read_ncu_text(corpus("cts_ncu_text_metrics_task1b.profile")).kernels
    assert k.demangled_name == "naive_cuda_transpose(int, const double *, double *)"
    # l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum                                  sector                     16,777,216
    assert k.metrics["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"] == 16777216
    # smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct                        %                             25
    assert k.metrics["smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct"] == 25
    assert k.duration_s is None  # not collected


def test_corpus_cts_rtx3070_sections():
    row, col = read_ncu_text(corpus("cts_ncu_text_rtx3070_matrix_sums.profile1-simple.output")).kernels
    # Duration                                                                       msecond                          11.97
    assert row.duration_s == pytest.approx(11.97e-3)
    # Memory [%]                                                                           %                          72.28
    assert row.sol_memory_pct == pytest.approx(72.28)
    # Registers Per Thread                                                   register/thread                             20
    assert row.launch.registers_per_thread == 20
    # Achieved Occupancy                                                                   %                          27.92
    assert row.achieved_occupancy_pct == pytest.approx(27.92)
    # WRN   Memory is more heavily utilized than Compute: Look at the Memory Workload Analysis section ...
    assert row.rules[0].rule_id == "SOLBottleneck" and row.rules[0].message_type == "WARNING"
    assert len(row.rules) == 3
    # column_sums: DRAM Throughput                                                         %                          92.97
    assert col.dram_throughput_pct == pytest.approx(92.97)
    assert col.launch.registers_per_thread == 22


def test_corpus_cts_p40_legacy_names():
    (k,) = read_ncu_text(corpus("cts_ncu_text_teslaP40_vector_add_160b_1024t.profile.output")).kernels
    # ==PROF== Profiling "vadd" - 1: 0%....50%....100%A[0] = 0.840188   (application output spliced in)
    assert k.demangled_name == "vadd(float const *,float const *,float*,int)"
    # Duration                                                                       msecond                           1.67
    assert k.duration_s == pytest.approx(1.67e-3)
    # SOL FB                                                                               %                          82.65
    assert k.dram_throughput_pct == pytest.approx(82.65)
    # SM [%]                                                                               %                           9.61
    assert k.sol_compute_pct == pytest.approx(9.61)
    # Memory Throughput                                                         Gbyte/second                         286.36
    assert k.metrics["dram__bytes.sum.per_second"] == pytest.approx(286.36e9)


# ---------------------------------------------------------------------------------- through kernelscope.load

CORPUS_TEXT = {
    "ai4mat_ncu2020_text_metrics_prof_torch.txt": 14,
    "ai4mat_ncu_text_metrics_713.txt": 2,
    "cts_ncu_text_metrics_task1b.profile": 1,
    "cts_ncu_text_rtx3070_matrix_sums.profile1-simple.output": 2,
    "cts_ncu_text_teslaP40_vector_add_160b_1024t.profile.output": 1,
}


@pytest.mark.parametrize(("name", "kernels"), sorted(CORPUS_TEXT.items()))
def test_corpus_load_detects_ncu_text(name, kernels):
    report = load(corpus(name))
    assert report.format == "ncu-text" and len(report.kernels) == kernels


@pytest.mark.parametrize(
    "text",
    [
        LEGACY, MODERN, METRICS_ONLY, SUMMARY_GROUPED,
        LEGACY_LONG_NAME,
        SUMMARY_FLAT,
    ],
)
def test_load_detects_each_variant(tmp_path, text):
    report = load(write(tmp_path, "out.txt", text))
    assert report.format == "ncu-text" and report.kernels


def test_load_with_explicit_format(tmp_path):
    report = load(write(tmp_path, "out.txt", SUMMARY_FLAT), input_format="ncu-text")
    assert report.format == "ncu-text" and report.kernels[0].name == "transposeNaive"


# --- durations of 0, unreadable numbers, Kbyte sizes, UTF-16 ----------------------------------------------------

SMEM_ROUND = """\
==PROF== Connected to process 3171 (/home/user/gpu-perf-lab/build/tensor_core)
==PROF== Profiling "tensor_core_matmul_v2": 0%....50%....100% - 9 passes
==PROF== Disconnected from process 3171
[3171] tensor_core@127.0.0.1
  void foo<int, 2>(float *, (anonymous namespace)::X) (1024, 1, 1)x(128, 1, 1), Context 1, Stream 7, Device 0, CC 8.0
    Section: GPU Speed Of Light Throughput
    ----------------------- ----------- ------------
    Metric Name             Metric Unit Metric Value
    ----------------------- ----------- ------------
    Duration                         us       377.22
    ----------------------- ----------- ------------

    Section: Launch Statistics
    -------------------------------- --------------- ---------------
    Metric Name                          Metric Unit    Metric Value
    -------------------------------- --------------- ---------------
    Block Size                                                   128
    Grid Size                                                  1,024
    Registers Per Thread             register/thread              32
    Shared Memory Configuration Size           Kbyte          102.40
    Driver Shared Memory Per Block       Kbyte/block            1.02
    Dynamic Shared Memory Per Block       byte/block               0
    Static Shared Memory Per Block       Kbyte/block           24.58
    -------------------------------- --------------- ---------------

"""


def test_shared_memory_in_kbyte_is_the_exact_byte_count(tmp_path):
    from kernelscope import diagnose_file

    path = write(tmp_path, "smem.txt", SMEM_ROUND)
    (k,) = read_ncu_text(path).kernels
    assert k.launch.shared_mem_static_bytes == 24576 and k.launch.shared_mem_config_bytes == 102400
    occ = diagnose_file(path, gpu="NVIDIA A100-SXM4-40GB").kernels[0].occupancy
    assert occ.occupancy_pct == pytest.approx(25.0) and occ.active_blocks_per_sm == 4


CMD_METRICS = """\
[2190088] python3.8@127.0.0.1
  elementwise_kernel(int, float *), 2024-Jul-13 17:53:32, Context 1, Stream 7
    Section: Command line profiler metrics
    ---------------------------------------------------------------------- --------------- ------------------------------
    gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed                     %                           1.80
    gpu__time_duration.sum                                                         usecond                           {dur}
    launch__registers_per_thread                                           register/thread                             16
    ---------------------------------------------------------------------- --------------- ------------------------------
"""


def test_command_line_duration_of_zero_is_not_a_measurement(tmp_path):
    (k,) = read_ncu_text(write(tmp_path, "zero.txt", CMD_METRICS.format(dur="0.00"))).kernels
    assert k.duration_s is None and k.launch.registers_per_thread == 16
    assert k.problems == ("duration 0 ns is not a measurement (line 6)",)


@pytest.mark.parametrize("value", ["3,55", "abc"])
def test_command_line_value_that_is_not_a_number_is_an_error(tmp_path, value):
    with pytest.raises(InputError, match=rf"line 6: kernel 0 \(elementwise_kernel\): 'gpu__time_duration\.sum' "
                                         rf"\(Command line profiler metrics\): value '{value}' is not a number"):
        read_ncu_text(write(tmp_path, "bad.txt", CMD_METRICS.format(dur=value.rjust(4))))


def test_utf16_printout_is_detected_and_read(tmp_path):
    path = tmp_path / "ps.txt"
    path.write_bytes(b"\xff\xfe" + SMEM_ROUND.replace("\n", "\r\n").encode("utf-16-le"))
    assert load(path).format == "ncu-text"
    (k,) = load(path).kernels
    assert k.duration_s == pytest.approx(377.22e-6) and k.launch.shared_mem_static_bytes == 24576

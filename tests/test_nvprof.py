"""nvprof reader: every output variant in a small file written here, in exactly nvprof's shape, and the nvprof
files of the shared corpus with values read off the files by hand."""

from __future__ import annotations

import pytest

from conftest import SHARED, need
from kernelscope import load
from kernelscope.errors import InputError
from kernelscope.ingest.nvprof import read_nvprof
from kernelscope.ingest.nvprof_kernels import metric_mappings
from kernelscope.knowledge.stalls import reasons

CORPUS_CSV = SHARED / "corpus" / "ncu_csv"
GIB = 1024.0**3


def write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# ------------------------------------------------------------------------------------------- metric tables

METRICS_TEXT = """\
==8166== NVPROF is profiling process 8166, command: ./app 1000 2
==8166== Some kernel(s) will be replayed on device 0 in order to collect all events/metrics.
app output line
==8166== Profiling application: ./app 1000 2
==8166== Profiling result:
==8166== Metric result:
Invocations                               Metric Name                            Metric Description         Min         Max         Avg
Device "GeForce GTX 1070 (0)"
    Kernel: GOL(int, int*, int*)
          2                      dram_read_throughput                 Device Memory Read Throughput  64.607GB/s  65.245GB/s  64.923GB/s
          2                        achieved_occupancy                            Achieved Occupancy    0.834779    0.839047    0.836913
          2                          dram_utilization                     Device Memory Utilization     Low (2)     Low (3)     Low (2)
          2                        dram_read_transactions                  Device Memory Read Transactions     1000     1000     1000
          2                   stall_memory_dependency            Issue Stall Reasons (Data Request)      90.75%      90.75%      90.75%
          2                             flop_count_dp   Floating Point Operations(Double Precision)  1.0000e+03  1.0000e+03  1.0000e+03
          2                             inst_executed                         Instructions Executed  <OVERFLOW>  <OVERFLOW>  <OVERFLOW>
    Kernel: ghostCols(int, int*)
          2                      dram_read_throughput                 Device Memory Read Throughput  11.486MB/s  12.224MB/s  11.845MB/s
"""


def test_metrics_text(tmp_path):
    report = read_nvprof(write(tmp_path, "m.txt", METRICS_TEXT))
    assert report.format == "nvprof" and report.tool_version is None
    gol, ghost = report.kernels
    assert (gol.index, gol.name, gol.demangled_name) == (0, "GOL", "GOL(int, int*, int*)")
    assert gol.device.display_name == "GeForce GTX 1070"
    assert gol.metrics["dram_read_throughput"] == pytest.approx(64.923 * GIB)  # binary GB/s, Avg column
    assert gol.metric_units["dram_read_throughput"] == "byte/second"
    assert gol.achieved_occupancy_pct == pytest.approx(83.6913)  # 0-1 ratio -> %
    assert gol.metrics["dram_utilization"] == 2 and gol.metric_units["dram_utilization"] == "level"
    assert gol.dram_bytes_read == pytest.approx(32000)  # transactions x 32 B (no dram_read_bytes)
    assert gol.stall_values == {"long_scoreboard": pytest.approx(90.75)} and gol.stall_family == "given_percent"
    assert gol.flop_counts == {"fp64": pytest.approx(1000)}
    assert "inst_executed" not in gol.metrics and any("OVERFLOW" in p for p in gol.problems)
    assert gol.metrics["invocations"] == 2
    assert gol.duration_s is None  # a metric table gives no duration
    assert ghost.name == "ghostCols" and ghost.metrics["dram_read_throughput"] == pytest.approx(11.845 * 1024**2)


METRICS_CSV = """\
==20072== NVPROF is profiling process 20072, command: ./test
==20072== Profiling application: ./test
==20072== Profiling result:
==20072== Metric result:
"Device","Kernel","Invocations","Metric Name","Metric Description","Min","Max","Avg"
"Tesla K20c (0)","kern(float*, int)",3,"flop_count_sp","Floating Point Operations(Single Precision)",9889546240,9889546240,9889546240
"Tesla K20c (0)","kern(float*, int)",3,"achieved_occupancy","Achieved Occupancy",0.348148,0.348174,0.348164
"Tesla K20c (0)","kern(float*, int)",3,"stall_sync","Issue Stall Reasons (Synchronization)",13.653872%,13.660521%,13.657817%
"Tesla K20c (0)","kern(float*, int)",3,"stall_exec_dependency","Issue Stall Reasons (Execution Dependency)",33.703582%,33.715157%,33.709727%
"Tesla K20c (0)","kern(float*, int)",3,"dram_read_bytes","Device Memory Read Bytes",1.5000MB,1.5000MB,1.5000MB
"Tesla K20c (0)","kern(float*, int)",3,"dram_read_transactions","Device Memory Read Transactions",7,7,7
"Tesla K20c (0)","kern(float*, int)",3,"gld_throughput","Global Load Throughput",7.9251GB/s,7.9251GB/s,7.9251GB/s
"Tesla K20c (0)","kern(float*, int)",3,"sm_efficiency","Multiprocessor Activity",-,-,-
"""


def test_metrics_csv(tmp_path):
    (k,) = read_nvprof(write(tmp_path, "m.csv", METRICS_CSV)).kernels
    assert k.name == "kern" and k.demangled_name == "kern(float*, int)"
    assert k.device.display_name == "Tesla K20c"
    assert k.flop_counts == {"fp32": 9889546240.0}
    assert k.achieved_occupancy_pct == pytest.approx(34.8164)
    assert k.stall_values == {"barrier": pytest.approx(13.657817), "wait": pytest.approx(33.709727)}
    assert k.dram_bytes_read == pytest.approx(1.5 * 1024**2)  # dram_read_bytes wins over transactions x 32
    assert k.metrics["gld_throughput"] == pytest.approx(7.9251 * GIB)
    assert "sm_efficiency" not in k.metrics  # "-": not available, never 0
    assert k.metrics["invocations"] == 3


EVENTS_TEXT = """\
==1== Event result:
Invocations                                Event Name         Min         Max         Avg       Total
Device "Tesla V100-SXM2-16GB (0)"
    Kernel: add(int, float*, float*)
          1                            warps_launched        1024        1024        1024        1024
"""

EVENTS_CSV = """\
"Device","Kernel","Invocations","Event Name","Min","Max","Avg","Total"
"Tesla V100-SXM2-16GB (0)","add(int, float*, float*)",1,"warps_launched",1024,1024,1024,1024
"""


@pytest.mark.parametrize("text", [EVENTS_TEXT, EVENTS_CSV], ids=["text", "csv"])
def test_events(tmp_path, text):
    (k,) = read_nvprof(write(tmp_path, "e.txt", text)).kernels
    assert k.name == "add" and k.device.display_name == "Tesla V100-SXM2-16GB"
    assert k.metrics["warps_launched"] == 1024


# --------------------------------------------------------------------------------------------- GPU trace

TRACE_TEXT = """\
==31850== Profiling application: ./test
==31850== Profiling result:
   Start  Duration            Grid Size      Block Size     Regs*    SSMem*    DSMem*      Size  Throughput  SrcMemType  DstMemType           Device   Context    Stream  Name
392.80ms  31.545ms                    -               -         -         -         -  256.00MB  7.9251GB/s    Pageable      Device  Quadro GP100 (0         1         7  [CUDA memcpy HtoD]
424.84ms  4.1723ms            (74 16 1)       (128 1 1)        32        0B  2.0000KB         -           -           -           -  Quadro GP100 (0         1         7  kern(float*, int) [113]
425.01ms  1.0000us             (1 1 1)        (32 1 1)        16  1.0000KB        0B         -           -           -           -  Quadro GP100 (0         1         7  kern(float*, int) [120]
429.01ms  20.860ms                    -               -         -         -         -  256.00MB  11.985GB/s      Device    Pageable  Quadro GP100 (0         1         7  [CUDA memcpy DtoH]

Regs: Number of registers used per CUDA thread. This number includes registers used internally by the CUDA driver and/or tools and can be more than what the compiler shows.
"""


def test_gpu_trace_text(tmp_path):
    report = read_nvprof(write(tmp_path, "t.log", TRACE_TEXT))
    first, second = report.kernels  # memcpy rows skipped; one profile per launch
    assert first.name == "kern" and first.demangled_name == "kern(float*, int)"  # correlation id dropped
    assert first.duration_s == pytest.approx(4.1723e-3)
    assert first.launch.grid == (74, 16, 1) and first.launch.block == (128, 1, 1)
    assert first.launch.registers_per_thread == 32
    assert first.launch.shared_mem_static_bytes == 0 and first.launch.shared_mem_dynamic_bytes == 2048
    assert first.device.display_name == "Quadro GP100"  # "(0" cut by the column width, index dropped
    assert second.index == 1 and second.duration_s == pytest.approx(1e-6)
    assert second.launch.shared_mem_static_bytes == 1024


TRACE_CSV = """\
======== Profiling result:
"Start","Duration","Grid X","Grid Y","Grid Z","Block X","Block Y","Block Z","Registers Per Thread","Static SMem","Dynamic SMem","Size","Throughput","SrcMemType","DstMemType","Device","Context","Stream","Name","Correlation_ID"
us,us,,,,,,,,KB,KB,KB,GB/s,,,,,,,
0.000000,1.888000,,,,,,,,,,1.003906,0.507097,"Device",,"GeForce RTX 2080 Ti (0)","1","7","[CUDA memset]",272
4643.346000,1.536000,,,,,,,,,,0.125000,0.077610,"Pinned","Device","GeForce RTX 2080 Ti (0)","1","22","[CUDA memcpy HtoD]",316
4650.000000,12.500000,64,2,1,256,1,1,40,2.000000,0.000000,,,,,"GeForce RTX 2080 Ti (0)","1","22","void sgemm<float, 32>(float const*, float*)",317
"""


def test_gpu_trace_csv(tmp_path):
    (k,) = read_nvprof(write(tmp_path, "t.csv", TRACE_CSV)).kernels
    assert k.name == "sgemm" and k.demangled_name == "void sgemm<float, 32>(float const*, float*)"
    assert k.duration_s == pytest.approx(12.5e-6)  # unit from the units row
    assert k.launch.grid == (64, 2, 1) and k.launch.block == (256, 1, 1) and k.launch.registers_per_thread == 40
    assert k.launch.shared_mem_static_bytes == 2048 and k.launch.shared_mem_dynamic_bytes == 0
    assert k.device.display_name == "GeForce RTX 2080 Ti"


API_TRACE_CSV = """\
======== Profiling result:
"Start","Duration","Name","Correlation_ID"
us,us,,
0.000000,2.866000,"cuDeviceGetPCIBusId",1
"""


def test_api_trace_only_is_no_kernel_data(tmp_path):
    with pytest.raises(InputError, match=r"holds no kernel data \(.*1 non-kernel activity row"):
        read_nvprof(write(tmp_path, "api.csv", API_TRACE_CSV))


# ----------------------------------------------------------------------------------------------- summary

SUMMARY_CSV_INLINE = """\
Time(%),Time,Calls,Avg,Min,Max,Name
47.79%,542.36ms,45,12.052ms,12.007ms,12.110ms,[CUDA memcpy HtoD]
20.92%,237.43ms,150,1.5829ms,1.5103ms,2.1174ms,red_sor(float*, float*, float, int)
10.37%,117.72ms,10,11.772ms,11.752ms,11.801ms,[CUDA memcpy DtoH]"""


def test_summary_csv_units_inside_values(tmp_path):
    (k,) = read_nvprof(write(tmp_path, "s.csv", SUMMARY_CSV_INLINE)).kernels
    assert k.demangled_name == "red_sor(float*, float*, float, int)"  # unquoted, commas rejoined
    assert k.duration_s == pytest.approx(1.5829e-3)  # Avg per launch
    assert k.metrics["calls"] == 150 and k.metrics["time_total"] == pytest.approx(0.23743)
    assert k.metrics["time_pct"] == pytest.approx(20.92)
    assert k.metrics["duration_min"] == pytest.approx(1.5103e-3)


SUMMARY_CSV_TYPED = """\
==27992== Profiling application: ./add
==27992== Profiling result:
"Type","Time(%)","Time","Calls","Avg","Min","Max","Name"
,%,ms,,us,us,ms,
"GPU activities",85.71,0.143426,3,47.808000,1.344000,0.136960,"[CUDA memcpy HtoD]"
"GPU activities",14.29,0.023904,2,11.952000,11.900000,0.012004,"add(int, float*, float*)"
"API calls",78.02,7570.567921,11,688233.447000,684120.984000,693.194046,"cudaMemcpyAsync"
"""


def test_summary_csv_with_units_row(tmp_path):
    (k,) = read_nvprof(write(tmp_path, "s.csv", SUMMARY_CSV_TYPED)).kernels  # API calls skipped
    assert k.name == "add" and k.duration_s == pytest.approx(11.952e-6)
    assert k.metrics["time_total"] == pytest.approx(0.023904e-3)
    assert k.metrics["duration_max"] == pytest.approx(0.012004e-3)


SUMMARY_TEXT_TYPED = """\
==27992== Profiling result:
            Type  Time(%)      Time     Calls       Avg       Min       Max  Name
 GPU activities:   60.00%  3.0000us         2  1.5000us  1.0000us  2.0000us  add(int, float*, float*)
                   40.00%  2.0000us         1  2.0000us  2.0000us  2.0000us  [CUDA memcpy HtoD]
      API calls:   99.00%  200.00ms         1  200.00ms  200.00ms  200.00ms  cudaMallocManaged
                    1.00%  2.0000ms         1  2.0000ms  2.0000ms  2.0000ms  cuDeviceGetAttribute
"""

SUMMARY_TEXT_OLD = """\
==1234== Profiling result:
Time(%)      Time     Calls       Avg       Min       Max  Name
 60.00%  3.0000us         2  1.5000us  1.0000us  2.0000us  add(int, float*, float*)
 40.00%  2.0000us         1  2.0000us  2.0000us  2.0000us  [CUDA memcpy HtoD]

==1234== API calls:
Time(%)      Time     Calls       Avg       Min       Max  Name
 99.00%  200.00ms         1  200.00ms  200.00ms  200.00ms  cudaMallocManaged
"""


@pytest.mark.parametrize("text", [SUMMARY_TEXT_TYPED, SUMMARY_TEXT_OLD], ids=["typed", "old"])
def test_summary_text(tmp_path, text):
    (k,) = read_nvprof(write(tmp_path, "s.txt", text)).kernels
    assert k.name == "add" and k.duration_s == pytest.approx(1.5e-6) and k.metrics["calls"] == 2


# The default nvprof run (CUDA 9+), Unified Memory table and all.
DEFAULT_RUN = """\
==27992== NVPROF is profiling process 27992, command: ./add_cuda
Max error: 0
==27992== Profiling application: ./add_cuda
==27992== Profiling result:
            Type  Time(%)      Time     Calls       Avg       Min       Max  Name
 GPU activities:  100.00%  2.6559ms         1  2.6559ms  2.6559ms  2.6559ms  add(int, float*, float*)
      API calls:   91.50%  149.57ms         2  74.783ms  48.578us  149.52ms  cudaMallocManaged
                    6.30%  10.294ms         1  10.294ms  10.294ms  10.294ms  cudaDeviceSynchronize

==27992== Unified Memory profiling result:
Device "Tesla K80 (0)"
   Count  Avg Size  Min Size  Max Size  Total Size  Total Time  Name
      48  170.67KB  4.0000KB  0.9961MB  8.000000MB  1.154720ms  Host To Device
      24  170.67KB  4.0000KB  0.9961MB  4.000000MB  1.330912ms  Device To Host
Total CPU Page faults: 36
"""


def test_default_run_with_unified_memory_table(tmp_path):
    (k,) = read_nvprof(write(tmp_path, "run.log", DEFAULT_RUN)).kernels
    assert k.name == "add" and k.duration_s == pytest.approx(2.6559e-3) and k.metrics["calls"] == 1
    assert k.device.display_name is None  # the Device line belongs to the Unified Memory table


def test_summary_and_metrics_of_one_kernel_merge(tmp_path):
    text = SUMMARY_TEXT_OLD + METRICS_TEXT.replace("GOL(int, int*, int*)", "add(int, float*, float*)")
    kernels = read_nvprof(write(tmp_path, "both.txt", text)).kernels
    assert [k.name for k in kernels] == ["add", "ghostCols"]
    add = kernels[0]
    assert add.duration_s == pytest.approx(1.5e-6) and add.achieved_occupancy_pct == pytest.approx(83.6913)
    assert add.device.display_name == "GeForce GTX 1070"


# ------------------------------------------------------------------------------------------------ errors


def test_no_nvprof_data(tmp_path):
    with pytest.raises(InputError, match=r"holds no nvprof data \(") as info:
        read_nvprof(write(tmp_path, "x.txt", "hello\nworld\n"))
    assert "\n" not in str(info.value) and str(info.value).startswith(str(tmp_path))


def test_memcpy_only_is_no_kernel_data(tmp_path):
    text = SUMMARY_CSV_INLINE.replace("20.92%,237.43ms,150,1.5829ms,1.5103ms,2.1174ms,red_sor(float*, float*, float, int)\n", "")
    with pytest.raises(InputError, match=r"holds no kernel data \(its nvprof tables list 2 memory operation row"):
        read_nvprof(write(tmp_path, "s.csv", text))


def test_malformed_line_in_large_file_names_its_line(tmp_path):
    rows = "".join(
        f'"Tesla K20c (0)","kern{i}(float*)",1,"achieved_occupancy","Achieved Occupancy",0.5,0.5,0.5\n'
        for i in range(5000)
    )
    lines = METRICS_CSV.splitlines(keepends=True)
    text = "".join(lines[:5]) + rows + '"Tesla K20c (0)","broken",1,"achieved_occupancy"\n' + rows
    with pytest.raises(InputError, match=r"line 5006: this CSV row has 4 fields"):
        read_nvprof(write(tmp_path, "big.csv", text))


def test_malformed_text_metric_row_names_its_line(tmp_path):
    text = METRICS_TEXT.replace("          2                        achieved_occupancy", "   garbage here")
    with pytest.raises(InputError, match=r"line 11: cannot read this row of the nvprof metric table"):
        read_nvprof(write(tmp_path, "m.txt", text))


def test_unknown_unit_is_named(tmp_path):
    text = METRICS_CSV.replace("7.9251GB/s,7.9251GB/s,7.9251GB/s", "7.9251Gb/s,7.9251Gb/s,7.9251Gb/s")
    with pytest.raises(InputError, match=r"line 12: .*unknown unit 'Gb/s'"):
        read_nvprof(write(tmp_path, "m.csv", text))


def test_mapped_metric_with_wrong_unit_kind(tmp_path):
    text = METRICS_CSV.replace("0.348148,0.348174,0.348164", "1.5MB,1.5MB,1.5MB")
    with pytest.raises(InputError, match=r"achieved_occupancy has unit 'byte'"):
        read_nvprof(write(tmp_path, "m.csv", text))


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="file not found"):
        read_nvprof(tmp_path / "absent.log")


# --------------------------------------------------------------------------------------------- data file


def test_metric_mapping_data():
    table = metric_mappings()
    stall_targets = [m.stall for m in table.values() if m.stall]
    assert len(stall_targets) == len(set(stall_targets))  # one nvprof metric per canonical reason
    assert set(stall_targets) <= set(reasons())
    assert table["stall_memory_dependency"].stall == "long_scoreboard"
    assert table["stall_sync"].stall == "barrier"
    assert table["flop_count_sp"].flop == "fp32" and table["flop_count_dp"].flop == "fp64"
    assert table["achieved_occupancy"].field == "achieved_occupancy_pct"


# ------------------------------------------------------------------------------------------------ corpus


def corpus(name: str):
    return need(CORPUS_CSV / name)


def test_corpus_epicflow_summary_csv():
    kernels = read_nvprof(corpus("epicflow_nvprof_summary.csv")).kernels
    assert [k.name for k in kernels] == ["red_sor", "black_sor"]  # the two memcpy rows are skipped
    red, black = kernels
    # 20.92%,237.43ms,150,1.5829ms,1.5103ms,2.1174ms,red_sor(float*, ..., float, int, int, int)
    assert red.duration_s == pytest.approx(1.5829e-3)
    assert red.metrics["calls"] == 150 and red.metrics["time_pct"] == pytest.approx(20.92)
    assert red.demangled_name.endswith("float, int, int, int)")
    # 20.91%,237.26ms,150,1.5817ms,1.5084ms,2.1159ms,black_sor(...)
    assert black.duration_s == pytest.approx(1.5817e-3)
    assert red.device.display_name is None  # the summary does not name the GPU


def test_corpus_ieee2017_gpu_trace():
    (k,) = read_nvprof(corpus("ieee2017_nvprof_gputrace_gp100.log")).kernels
    # 424.84ms  4.1723ms  (74 16 1)  (128 1 1)  32  0B  2.0000KB  -  -  -  -  Quadro GP100 (0  1  7
    #   __kernel___forma_kernel__0__(float*, int, int, int, int, float*) [113]
    assert k.name == "__kernel___forma_kernel__0__"
    assert k.duration_s == pytest.approx(4.1723e-3)
    assert k.launch.grid == (74, 16, 1) and k.launch.block == (128, 1, 1)
    assert k.launch.registers_per_thread == 32
    assert k.launch.shared_mem_dynamic_bytes == 2048 and k.launch.shared_mem_static_bytes == 0
    assert k.device.display_name == "Quadro GP100"


def test_corpus_ieee2017_metrics_csv():
    (k,) = read_nvprof(corpus("ieee2017_nvprof_metrics_k20c_gaussian.profile")).kernels
    assert k.device.display_name == "Tesla K20c"  # "Tesla K20c (0)"
    # ...,3,"flop_count_sp","Floating Point Operations(Single Precision)",9889546240,9889546240,9889546240
    assert k.flop_counts == {"fp32": 9889546240.0}
    # ...,3,"achieved_occupancy","Achieved Occupancy",0.348148,0.348174,0.348164
    assert k.achieved_occupancy_pct == pytest.approx(34.8164)
    # ...,"stall_exec_dependency","Issue Stall Reasons (Execution Dependency)",33.703582%,33.715157%,33.709727%
    assert k.stall_values["wait"] == pytest.approx(33.709727)
    # ...,"stall_memory_dependency","Issue Stall Reasons (Data Request)",28.773731%,28.790564%,28.781675%
    assert k.stall_values["long_scoreboard"] == pytest.approx(28.781675)
    # ...,"stall_sync","Issue Stall Reasons (Synchronization)",13.653872%,13.660521%,13.657817%
    assert k.stall_values["barrier"] == pytest.approx(13.657817)
    # ...,"gst_efficiency","Global Memory Store Efficiency",99.975562%,99.975562%,99.975562%
    assert k.metrics["gst_efficiency"] == pytest.approx(99.975562)
    assert k.metrics["invocations"] == 3 and k.duration_s is None


def test_corpus_thrust2d_metrics_text():
    kernels = read_nvprof(corpus("thrust2d_nvprof_metrics_gtx1070_gameoflife.profile")).kernels
    assert [k.name for k in kernels] == ["GOL", "ghostCols", "ghostRows"]
    assert {k.device.display_name for k in kernels} == {"GeForce GTX 1070"}  # Device "GeForce GTX 1070 (0)"
    gol = kernels[0]
    # 2  dram_read_throughput  Device Memory Read Throughput  64.607GB/s  65.245GB/s  64.923GB/s
    assert gol.metrics["dram_read_throughput"] == pytest.approx(64.923 * GIB)
    # 2  achieved_occupancy  Achieved Occupancy  0.834779  0.839047  0.836913
    assert gol.achieved_occupancy_pct == pytest.approx(83.6913)
    # 2  gst_efficiency  Global Memory Store Efficiency  27.65%  30.50%  29.07%
    assert gol.metrics["gst_efficiency"] == pytest.approx(29.07)
    # ghostRows: 2  dram_read_throughput  Device Memory Read Throughput  2.4923GB/s  3.4169GB/s  2.9681GB/s
    assert kernels[2].metrics["dram_read_throughput"] == pytest.approx(2.9681 * GIB)


# ---------------------------------------------------------------------------------- through kernelscope.load

CORPUS_NVPROF = {
    "epicflow_nvprof_summary.csv": 2,
    "ieee2017_nvprof_gputrace_gp100.log": 1,
    "ieee2017_nvprof_metrics_k20c_gaussian.profile": 1,
    "thrust2d_nvprof_metrics_gtx1070_gameoflife.profile": 3,
}


@pytest.mark.parametrize(("name", "kernels"), sorted(CORPUS_NVPROF.items()))
def test_corpus_load_detects_nvprof(name, kernels):
    report = load(corpus(name))
    assert report.format == "nvprof" and len(report.kernels) == kernels




@pytest.mark.parametrize(
    "text",
    [
        METRICS_TEXT, METRICS_CSV, EVENTS_TEXT, EVENTS_CSV, TRACE_TEXT, SUMMARY_CSV_INLINE, SUMMARY_CSV_TYPED,
        SUMMARY_TEXT_TYPED, SUMMARY_TEXT_OLD, DEFAULT_RUN,
        TRACE_CSV,
    ],
)
def test_load_detects_each_variant(tmp_path, text):
    report = load(write(tmp_path, "out.log", text))
    assert report.format == "nvprof" and report.kernels


def test_load_with_explicit_format(tmp_path):
    report = load(write(tmp_path, "out.log", TRACE_CSV), input_format="nvprof")
    assert report.format == "nvprof" and report.kernels[0].name == "sgemm"


# ----------------------------------------------------------------------------- durations of 0, UTF-16, stalls

TRACE_ZERO = """\
==31850== NVPROF is profiling process 31850, command: ./test
==31850== Profiling application: ./test
==31850== Profiling result:
   Start  Duration            Grid Size      Block Size     Regs*    SSMem*    DSMem*      Size  Throughput  SrcMemType  DstMemType           Device   Context    Stream  Name
392.80ms  31.545ms                    -               -         -         -         -  256.00MB  7.9251GB/s    Pageable      Device  Quadro GP100 (0         1         7  [CUDA memcpy HtoD]
424.84ms  0ns            (74 16 1)       (128 1 1)        32        0B  2.0000KB         -           -           -           -  Quadro GP100 (0         1         7  kern(float*, int) [113]
425.84ms  1.5000us       (74 16 1)       (128 1 1)        32        0B  2.0000KB         -           -           -           -  Quadro GP100 (0         1         7  kern(float*, int) [114]
"""


def test_trace_duration_of_zero_is_not_a_measurement(tmp_path):
    zero, ok = read_nvprof(write(tmp_path, "zero.log", TRACE_ZERO)).kernels
    assert zero.duration_s is None and zero.problems == ("duration 0 ns is not a measurement (line 6)",)
    assert zero.launch.grid == (74, 16, 1)  # the rest of the row is read
    assert ok.duration_s == pytest.approx(1.5e-6) and ok.problems == ()


def test_summary_average_of_zero_is_not_a_measurement(tmp_path):
    text = """\
==1== Profiling result:
            Type  Time(%)      Time     Calls       Avg       Min       Max  Name
 GPU activities:  100.00%       0ns         3       0ns       0ns       0ns  tiny(int)
"""
    (k,) = read_nvprof(write(tmp_path, "s.txt", text)).kernels
    assert k.duration_s is None and k.launch_count == 3
    assert "duration 0 ns is not a measurement (line 3)" in k.problems


def test_utf16_nvprof_output_is_read(tmp_path):
    path = tmp_path / "ps.log"
    path.write_bytes(b"\xff\xfe" + TRACE_ZERO.encode("utf-16-le"))
    assert load(path).format == "nvprof" and len(load(path).kernels) == 2


def test_stall_percentages_are_reported_as_percent(tmp_path, capsys):
    # nvprof's stall_* metrics are percentages of stalls: family "given_percent", and the JSON says "percent"
    import json

    from kernelscope.cli import main

    path = write(tmp_path, "m.txt", METRICS_TEXT)
    assert read_nvprof(path).kernels[0].stall_family == "given_percent"
    assert main(["diagnose", str(path), "--gpu", "NVIDIA A100-SXM4-40GB", "--format", "json"]) == 0
    launch = json.loads(capsys.readouterr().out)["inputs"][0]["launches"][0]
    assert launch["stalls"]["family"] == "given_percent" and launch["stalls"]["unit"] == "percent of stall cycles"

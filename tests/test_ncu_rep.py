"""Tests of the .ncu-rep reader (kernelscope.ingest.ncu_rep) on the real reports of the shared corpus.

Expected values are read independently here, straight through NVIDIA's ``ncu_report`` module (not through
the reader), and converted by hand.
"""

from __future__ import annotations

import math
import random
import re
import struct
import sys
from pathlib import Path
from typing import Any

import pytest

ncu_report = pytest.importorskip("ncu_report", reason="NVIDIA's ncu-report package is not installed")

from kernelscope.errors import InputError  # noqa: E402
from kernelscope.ingest import ncu_rep  # noqa: E402
from kernelscope.ingest.ncu_rep import read_ncu_rep  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus"
NCU_DIR = CORPUS / "ncu"
README = CORPUS / "README.md"
CORPUS_FILES = sorted(p.name for p in NCU_DIR.glob("*.ncu-rep")) if NCU_DIR.is_dir() else []
NO_CORPUS = "shared corpus not available: ../shared/corpus (beside the checkout) holds the real .ncu-rep files"

NAN_REPORT = "bwd29__self-join-MiSTIC__profileHIGGS.out.ncu-rep"  # its only kernel: 486 of 678 metrics NaN
A100_SILU = "AlpriElse__cs599k__silu_CUDA_ncu-reports_2025-04-21-77_06-MT.ncu-rep"  # full set, 2025.1.0
GTX1660_GEMM = "LakshyaSingh354__CudaCode__gemm_reps_naive.ncu-rep"  # full set, 2024.1.1
OLD_2021 = "ZSL98__bitwise_spgemm__profiling_results_sgemm.ncu-rep"  # 2021.2.2: launch metrics stored as doubles
NO_SOL = "Lashi0812__CudaProgramming__profiling_profiles_torchLinear.ncu-rep"  # sections: Launch Sched Inst Src
SOL_ONLY = "Abhishek7204__raytracingCuda__profile.ncu-rep"  # SOL Occ Launch WDist: no roofline, no memory chart
CUTLASS_S8 = "panjd123__cutlass__report-s8.ncu-rep"  # launch 0: CUTLASS int8 GEMM (IMMA only), A100 80GB PCIe
GH200_TRITON = "AlpriElse__cs599k__silu_triton_silu-2025-04-18-v8.ncu-rep"  # Hopper: also ..._tensor_op_gmma
GTX1650_HEAT = "bautista-garcia__heat_sim__profile.ncu-rep"  # only sm__inst_executed_pipe_tensor_op_{hmma,imma}
ESMM_11 = "AveryClapp__ESMM-Research__profile.ncu-rep"  # 11 results; ncu_report: 7 of a 10% cut, 0 of a 50% cut
SMALL_1 = "LakshyaSingh354__CudaCode__report.ncu-rep"  # 1 result, 77 kB


def corpus(name: str) -> Path:
    if not (NCU_DIR / name).is_file():
        pytest.skip(NO_CORPUS)
    return NCU_DIR / name


def each_corpus_file() -> list[Any]:
    return CORPUS_FILES or [pytest.param(None, marks=pytest.mark.skip(reason=NO_CORPUS))]


def readme_table() -> dict[str, dict[str, Any]]:
    """file name -> {"gpu", "version", "kernels"} from the corpus README's ncu table."""
    rows: dict[str, dict[str, Any]] = {}
    for line in README.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 5 and cells[0].endswith(".ncu-rep"):
            m = re.match(r"(\d+) kernels?", cells[4])
            assert m, line
            rows[cells[0]] = {"gpu": cells[2], "version": cells[3], "kernels": int(m.group(1))}
    return rows


# --- independent access to the raw metrics --------------------------------------------------------------


def raw_actions(path: Path) -> list[Any]:
    ctx = ncu_report.load_report(str(path))
    acts = []
    for r in range(ctx.num_ranges()):
        rng = ctx.range_by_idx(r)
        acts.extend(rng.action_by_idx(j) for j in range(rng.num_actions()))
    raw_actions.keep.append(ctx)  # type: ignore[attr-defined]
    return acts


raw_actions.keep = []  # type: ignore[attr-defined]


def raw(action: Any, name: str) -> tuple[float, str]:
    metric = action.metric_by_name(name)
    assert metric is not None, name
    return float(metric.value()), metric.unit()


TO_SECONDS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
TO_BYTES = {"byte": 1.0, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9}


def flops_by_hand(action: Any, prefix: str, weights: tuple[float, float, float]) -> float:
    """add*w0 + mul*w1 + fma*w2 from the roofline's per-cycle rates x smsp__cycles_elapsed.avg (older reports
    without it: x smsp__cycles_elapsed.avg.per_second x duration)."""
    if action.metric_by_name("smsp__cycles_elapsed.avg") is not None:
        cycles, unit = raw(action, "smsp__cycles_elapsed.avg")
        assert unit == "cycle"
    else:
        hz, unit = raw(action, "smsp__cycles_elapsed.avg.per_second")
        assert unit == "hz"
        ns, unit = raw(action, "gpu__time_duration.sum")
        cycles = hz * ns * TO_SECONDS[unit]
    total = 0.0
    for op, w in zip(("add", "mul", "fma"), weights):
        rate, unit = raw(action, f"smsp__sass_thread_inst_executed_op_{prefix}{op}_pred_on.sum.per_cycle_elapsed")
        assert unit == "inst/cycle"
        total += w * rate * cycles
    return total


# --- every file of the corpus --------------------------------------------------------------------------


@pytest.mark.parametrize("name", each_corpus_file())
def test_every_corpus_report_loads_with_readme_kernel_count_version_and_gpu(name: str) -> None:
    expected = readme_table()[name]
    report = read_ncu_rep(NCU_DIR / name)
    assert report.format == "ncu-rep"
    assert report.path == str(NCU_DIR / name)
    assert len(report.kernels) == expected["kernels"]
    assert report.tool_version == expected["version"]
    for i, k in enumerate(report.kernels):
        assert k.index == i
        assert k.name and k.demangled_name
        assert k.device.display_name == expected["gpu"]
        assert k.device.compute_capability is not None and k.device.sm_count
        for value in (k.duration_s, k.sol_compute_pct, k.dram_bytes_read, k.cycles_per_issued_instruction):
            assert value is None or (math.isfinite(value) and value >= 0)
        assert all(math.isfinite(v) for v in k.metrics.values())
        assert set(k.metric_units) == set(k.metrics)
        for rule in k.rules:
            assert rule.rule_id and rule.title and rule.message.strip()
            assert rule.message_type in {"OPTIMIZATION", "WARNING", "INFO", "ERROR", "OK"}
            assert "@section:" not in rule.message and "@url:" not in rule.message


def test_reading_the_whole_corpus_prints_nothing(capfd: pytest.CaptureFixture[str]) -> None:
    if not CORPUS_FILES:
        pytest.skip(NO_CORPUS)
    for name in CORPUS_FILES:
        read_ncu_rep(NCU_DIR / name)
    out, err = capfd.readouterr()
    assert out == "" and err == ""


# --- values against the raw metrics --------------------------------------------------------------------


@pytest.mark.parametrize("name", [A100_SILU, GTX1660_GEMM, OLD_2021, SOL_ONLY])
def test_values_match_raw_metrics_converted_by_hand(name: str) -> None:
    path = corpus(name)
    report = read_ncu_rep(path)
    actions = raw_actions(path)
    assert len(actions) == len(report.kernels)
    for action, k in zip(actions, report.kernels):
        assert k.name == action.name()
        value, unit = raw(action, "gpu__time_duration.sum")
        assert k.duration_s == pytest.approx(value * TO_SECONDS[unit], rel=1e-12)
        grid = tuple(int(raw(action, f"launch__grid_dim_{a}")[0]) for a in "xyz")
        block = tuple(int(raw(action, f"launch__block_dim_{a}")[0]) for a in "xyz")
        assert k.launch.grid == grid and k.launch.block == block
        assert k.launch.blocks == int(raw(action, "launch__grid_size")[0])
        assert k.launch.registers_per_thread == int(raw(action, "launch__registers_per_thread")[0])
        assert k.sol_compute_pct == pytest.approx(raw(action, "sm__throughput.avg.pct_of_peak_sustained_elapsed")[0])
        assert k.sol_memory_pct == pytest.approx(
            raw(action, "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed")[0]
        )
        khz, _ = raw(action, "device__attribute_max_gpu_frequency_khz")
        assert k.device.max_sm_clock_hz == pytest.approx(khz * 1e3)
        assert k.device.l2_cache_bytes == int(raw(action, "device__attribute_l2_cache_size")[0])
        assert k.achieved_occupancy_pct == pytest.approx(
            raw(action, "sm__warps_active.avg.pct_of_peak_sustained_active")[0]
        )


@pytest.mark.parametrize("name", [A100_SILU, GTX1660_GEMM])
def test_dram_bytes_flops_and_clock_match_raw_metrics(name: str) -> None:
    path = corpus(name)
    report = read_ncu_rep(path)
    for action, k in zip(raw_actions(path), report.kernels):
        read, unit = raw(action, "dram__bytes_read.sum")
        write, unit_w = raw(action, "dram__bytes_write.sum")
        assert k.dram_bytes_read == pytest.approx(read * TO_BYTES[unit])
        assert k.dram_bytes_write == pytest.approx(write * TO_BYTES[unit_w])
        hz, unit = raw(action, "smsp__cycles_elapsed.avg.per_second")
        assert unit == "hz" and k.sm_frequency_hz == pytest.approx(hz)
        fp32 = flops_by_hand(action, "f", (1, 1, 2))  # fadd + fmul + 2*ffma
        assert k.flop_counts["fp32"] == pytest.approx(fp32, rel=1e-9)
        assert k.flop_counts["fp64"] == pytest.approx(flops_by_hand(action, "d", (1, 1, 2)), rel=1e-9, abs=1e-6)
        # rates x cycles reconstruct an exact instruction count
        assert k.flop_counts["fp32"] == pytest.approx(round(k.flop_counts["fp32"]), abs=1e-3)
        cpi, _ = raw(action, "smsp__average_warp_latency_per_inst_issued.ratio")
        assert k.cycles_per_issued_instruction == pytest.approx(cpi)


def test_fp32_flops_agree_with_nsight_roofline_rule() -> None:
    """A100 silu kernel 0: Nsight's SOLFPRoofline rule says 21% of the fp32 peak (FFMA x2 per cycle x clock)."""
    path = corpus(A100_SILU)
    k = read_ncu_rep(path).kernels[0]
    action = raw_actions(path)[0]
    peak_per_cycle, _ = raw(action, "derived__sm__sass_thread_inst_executed_op_ffma_pred_on_x2")
    sm_hz, _ = raw(action, "sm__cycles_elapsed.avg.per_second")
    achieved = k.flop_counts["fp32"] / k.duration_s
    assert achieved / (peak_per_cycle * sm_hz) == pytest.approx(0.2136, abs=0.001)
    rule = next(r for r in k.rules if r.rule_id == "SOLFPRoofline")
    assert "achieved 21% of this device's fp32 peak" in rule.message


def test_fp16_uses_nsight_half2_weights() -> None:
    """ESMM profile_output (2023.1.1, A10G): h{add,mul,fma} per-cycle counters are all collected."""
    path = corpus("AveryClapp__ESMM-Research__profile_output.ncu-rep")
    report = read_ncu_rep(path)
    for action, k in zip(raw_actions(path), report.kernels):
        assert k.flop_counts["fp16"] == pytest.approx(flops_by_hand(action, "h", (2, 2, 4)), abs=1e-6)


def test_launch_metrics_stored_as_doubles_are_read_as_integers() -> None:
    path = corpus(OLD_2021)
    action = raw_actions(path)[0]
    grid_x = action.metric_by_name("launch__grid_dim_x")
    assert grid_x.kind() == grid_x.ValueKind_DOUBLE
    k = read_ncu_rep(path).kernels[0]
    assert k.launch.grid == (32, 40, 1) and k.launch.block == (256, 1, 1)
    assert isinstance(k.launch.registers_per_thread, int) and k.launch.registers_per_thread == 128
    assert k.launch.shared_mem_static_bytes == 24576 and k.launch.shared_mem_config_bytes == 102400


# --- NaN kernel, missing sections ----------------------------------------------------------------------


def test_nan_kernel_is_kept_with_a_problem_and_unmeasured_fields() -> None:
    path = corpus(NAN_REPORT)
    action = raw_actions(path)[0]
    assert math.isnan(raw(action, "gpu__time_duration.sum")[0])
    (k,) = read_ncu_rep(path).kernels
    assert k.name == "nodeByPoint5"
    assert k.device.display_name == "NVIDIA A100-PCIE-40GB" and k.device.sm_count == 108
    assert any("metrics are NaN" in p for p in k.problems)
    for value in (k.duration_s, k.sm_frequency_hz, k.sol_compute_pct, k.sol_memory_pct, k.dram_throughput_pct,
                  k.dram_bytes_read, k.dram_bytes_write, k.achieved_occupancy_pct, k.cycles_per_issued_instruction,
                  k.tensor_pipe_active_pct):
        assert value is None
    assert k.dram_bytes is None
    assert "fp32" not in k.flop_counts and "fp64" not in k.flop_counts
    assert "gpu__time_duration.sum" not in k.metrics
    assert k.launch.grid is None  # this failed profile stored no launch__* metrics at all
    assert k.rules  # the rules that ran are kept (here: errors about missing metrics)


def test_sections_not_collected_give_none_not_zero() -> None:
    no_sol = read_ncu_rep(corpus(NO_SOL)).kernels[0]
    assert no_sol.sol_compute_pct is None and no_sol.sol_memory_pct is None and no_sol.dram_throughput_pct is None
    assert no_sol.launch.grid is not None  # LaunchStats was collected
    assert no_sol.rules == ()
    sol_only = read_ncu_rep(corpus(SOL_ONLY)).kernels[0]
    assert sol_only.sol_compute_pct is not None
    # (the SOL section's "SM Frequency", gpc__cycles_elapsed.avg.per_second, does give the clock)
    assert sol_only.flop_counts == {} and sol_only.dram_bytes_read is None
    assert sol_only.stall_family is None and sol_only.stall_values == {}
    assert sol_only.problems == ()


def test_stalls_come_from_the_stall_metrics() -> None:
    k = read_ncu_rep(corpus(GTX1660_GEMM)).kernels[0]
    assert k.stall_family == "per_issue_active"
    assert k.stall_values
    assert sum(k.stall_values.values()) == pytest.approx(k.cycles_per_issued_instruction, rel=0.05)


# --- tensor pipe by MMA instruction kind -------------------------------------------------------------------


def test_int8_gemm_gets_the_int8_tensor_pipe() -> None:
    """CUTLASS s8 GEMM: all its tensor pipe activity is IMMA (int8), none HMMA / DMMA."""
    path = corpus(CUTLASS_S8)
    action = raw_actions(path)[0]
    imma, unit = raw(action, "sm__pipe_tensor_op_imma_cycles_active.avg.pct_of_peak_sustained_active")
    assert unit == "%" and imma == pytest.approx(11.4, abs=0.05)
    k = read_ncu_rep(path).kernels[0]
    assert k.tensor_pipe_op_active_pct["int8_tensor"] == pytest.approx(imma, rel=1e-12)
    assert k.tensor_pipe_op_active_pct["fp16_tensor"] == 0
    assert k.tensor_pipe_op_active_pct["fp64_tensor"] == 0
    assert set(k.tensor_pipe_op_active_pct) == {"fp16_tensor", "int8_tensor", "fp64_tensor"}
    assert k.tensor_pipe_active_pct == pytest.approx(imma, rel=1e-6)  # the whole tensor pipe: IMMA only
    with pytest.raises(TypeError):
        k.tensor_pipe_op_active_pct["int8_tensor"] = 0.0  # type: ignore[index]  # frozen


def test_tensor_pipe_by_kind_falls_back_to_instructions_executed() -> None:
    """Turing GTX 1650 report (2022.x): only sm__inst_executed_pipe_tensor_op_{hmma,imma} are collected."""
    path = corpus(GTX1650_HEAT)
    action = raw_actions(path)[0]
    assert action.metric_by_name("sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active") is None
    hmma, _ = raw(action, "sm__inst_executed_pipe_tensor_op_hmma.avg.pct_of_peak_sustained_active")
    imma, _ = raw(action, "sm__inst_executed_pipe_tensor_op_imma.avg.pct_of_peak_sustained_active")
    k = read_ncu_rep(path).kernels[0]
    assert k.tensor_pipe_op_active_pct == {"fp16_tensor": pytest.approx(hmma), "int8_tensor": pytest.approx(imma)}


def test_tensor_pipe_by_kind_on_hopper_and_when_not_collected() -> None:
    path = corpus(GH200_TRITON)
    action = raw_actions(path)[0]
    names = set(action.metric_names())
    # Hopper's warpgroup MMAs have one counter for all input types: nothing named hgmma / igmma to map
    assert "sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_active" in names
    assert not any(re.search(r"pipe_tensor_op_(hgmma|igmma|qgmma)", n) for n in names)
    hmma, _ = raw(action, "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active")
    k = read_ncu_rep(path).kernels[0]
    assert k.tensor_pipe_op_active_pct == {"fp16_tensor": pytest.approx(hmma), "int8_tensor": 0.0,
                                           "fp64_tensor": 0.0}
    assert read_ncu_rep(corpus("piragi__fuzigrad__output.ncu-rep")).kernels[0].tensor_pipe_op_active_pct == {}
    assert read_ncu_rep(corpus(NAN_REPORT)).kernels[0].tensor_pipe_op_active_pct == {}  # all NaN


# --- rule results --------------------------------------------------------------------------------------


def test_rule_results_keep_messages_and_speedups() -> None:
    report = read_ncu_rep(corpus(SOL_ONLY))
    rules = {r.rule_id: r for r in report.kernels[0].rules}
    assert rules["SOLBottleneck"].title == "Latency Issue"
    assert rules["SOLBottleneck"].message_type == "OPTIMIZATION"
    assert "Scheduler Statistics" in rules["SOLBottleneck"].message  # link markup turned into its text
    occupancy = rules["TheoreticalOccupancy"]
    assert occupancy.estimated_speedup_pct == pytest.approx(33.3333, rel=1e-4)
    assert occupancy.speedup_type == "local"
    assert occupancy.title == "Theoretical Occupancy"  # empty message title: the rule's name


def test_rule_results_present_in_every_report_with_a_sol_section() -> None:
    if not CORPUS_FILES:
        pytest.skip(NO_CORPUS)
    for name in CORPUS_FILES:
        report = read_ncu_rep(NCU_DIR / name)
        if all(k.sol_compute_pct is None for k in report.kernels) and name != NAN_REPORT:
            continue
        ids = {r.rule_id for k in report.kernels for r in k.rules}
        assert "SOLBottleneck" in ids or name == NAN_REPORT, name
        assert all(r.message for k in report.kernels for r in k.rules)


def test_rule_markup_to_plain_text() -> None:
    text = ncu_rep._plain(
        "See @section:WarpStateStats:Warp State Statistics@ and the "
        "@url:Kernel Profiling Guide:https://docs.nvidia.com/nsight-compute/ProfilingGuide/index.html#roofline@."
    )
    assert text == (
        "See Warp State Statistics and the Kernel Profiling Guide "
        "(https://docs.nvidia.com/nsight-compute/ProfilingGuide/index.html#roofline)."
    )


# --- unreadable inputs ---------------------------------------------------------------------------------


def _first_half(tmp_path: Path, name: str) -> Path:
    data = corpus(name).read_bytes()
    out = tmp_path / f"half_{name}"
    out.write_bytes(data[: len(data) // 2])
    return out


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.ncu-rep"
    path.write_bytes(b"")
    with pytest.raises(InputError, match="not a readable Nsight Compute report") as info:
        read_ncu_rep(path)
    assert str(path) in str(info.value) and "empty" in str(info.value)


def test_random_bytes(tmp_path: Path) -> None:
    path = tmp_path / "garbage.ncu-rep"
    path.write_bytes(bytes(range(256)) * 40)
    with pytest.raises(InputError, match="not a readable Nsight Compute report") as info:
        read_ncu_rep(path)
    assert str(path) in str(info.value) and "NVR" in str(info.value)


def test_text_file(tmp_path: Path) -> None:
    path = tmp_path / "notes.ncu-rep"
    path.write_text("==PROF== Connected to process 1234\nkernel took 3 ms\n", encoding="utf-8")
    with pytest.raises(InputError, match="not a readable Nsight Compute report") as info:
        read_ncu_rep(path)
    assert str(path) in str(info.value) and "text" in str(info.value)


def _result_block_ends(data: bytes) -> list[int]:
    """End offset of the block of each result, walking the block headers (1 result per block in the corpus)."""
    ends = []
    (n,) = struct.unpack_from("<I", data, 4)
    pos = 8 + n
    while pos < len(data):
        (m,) = struct.unpack_from("<I", data, pos)
        header = data[pos + 4: pos + 4 + m]
        fields, i = {}, 0
        while i < len(header):  # BlockHeader: varint fields 1 (sources), 2 (results), 5 (payload bytes)
            key, i = _varint(header, i)
            if key & 7 == 0:
                fields[key >> 3], i = _varint(header, i)
            else:
                assert key & 7 == 2
                length, i = _varint(header, i)
                i += length
        pos += 4 + m + fields.get(5, 0)
        ends.extend([pos] * fields.get(2, 0))
    return ends


def _varint(data: bytes, i: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        value |= (data[i] & 0x7F) << shift
        shift += 7
        i += 1
        if not data[i - 1] & 0x80:
            return value, i


@pytest.mark.parametrize(
    "name", [A100_SILU, "piragi__fuzigrad__output.ncu-rep", "bautista-garcia__heat_sim__profile.ncu-rep"]
)
def test_truncated_report(tmp_path: Path, name: str, capfd: pytest.CaptureFixture[str]) -> None:
    """ncu_report loads the first half of a report without raising (0 or only the complete results)."""
    path = _first_half(tmp_path, name)
    with pytest.raises(InputError, match="not a readable Nsight Compute report .truncated") as info:
        read_ncu_rep(path)
    assert str(path) in str(info.value)
    assert capfd.readouterr().out == ""


def test_truncated_report_counts_the_results_complete_before_the_cut(tmp_path: Path) -> None:
    """What ncu_report returns for a cut file depends on where the cut falls (ESMM: 7 results of the first 10%,
    0 of the first 50%); the message counts the results whose block lies wholly before the cut."""
    data = corpus(ESMM_11).read_bytes()
    ends = _result_block_ends(data)
    assert len(ends) == 11
    counts = []
    for pct in (10, 30, 50, 70, 90, 99):
        cut = len(data) * pct // 100
        path = tmp_path / f"cut{pct}.ncu-rep"
        path.write_bytes(data[:cut])
        with pytest.raises(InputError) as info:
            read_ncu_rep(path)
        m = re.search(r"\(truncated: .*; (\d+) complete result\(s\) precede the cut\)$", str(info.value))
        assert m, str(info.value)
        counts.append(int(m.group(1)))
        assert counts[-1] == sum(end <= cut for end in ends), pct
    assert counts == [6, 9, 9, 9, 9, 9]  # 99%: inside the block of the 10th result


def test_only_the_signature(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "header_only.ncu-rep"
    path.write_bytes(b"NVR\0" + struct.pack("<I", 2))
    with pytest.raises(InputError, match="not a readable Nsight Compute report") as info:
        read_ncu_rep(path)
    assert str(path) in str(info.value)
    out, err = capfd.readouterr()
    assert out == "" and err == ""  # the native protobuf error on stderr is swallowed


def test_valid_report_without_kernels(tmp_path: Path) -> None:
    """File header + the first (session) block of a real report: well formed, 0 results."""
    data = corpus(A100_SILU).read_bytes()
    (n,) = struct.unpack_from("<I", data, 4)
    pos = 8 + n
    (m,) = struct.unpack_from("<I", data, pos)
    path = tmp_path / "no_kernels.ncu-rep"
    path.write_bytes(data[: pos + 4 + m])  # that block's payload is empty
    with pytest.raises(InputError, match="holds no profiled kernels") as info:
        read_ncu_rep(path)
    assert str(path) in str(info.value)


@pytest.mark.parametrize("name", [SMALL_1, GTX1660_GEMM, A100_SILU])
def test_corrupted_report_gives_a_report_or_an_input_error(tmp_path: Path, name: str) -> None:
    """20 bytes flipped at seeded random offsets, 12 times per report: never another exception.

    With these seeds A100_SILU's 6th copy has a metric name that is not UTF-8, on which the reader used to
    crash with ncu_report's ``TypeError: in method 'IAction_metric_by_name', argument 2 of type 'char const *'``
    (tested alone by test_corrupted_metric_names_are_skipped_and_counted); its first two results are now seen to be
    damaged (ncu_report hands them over with neither a name nor a metric: they used to become an invented
    ``kernel_0`` with every field not measured), so the file is an InputError.
    """
    data = corpus(name).read_bytes()
    rng = random.Random(f"kernelscope-{name}")
    problems: list[str] = []
    errors: list[str] = []
    for attempt in range(12):
        corrupted = bytearray(data)
        for _ in range(20):
            corrupted[rng.randrange(len(corrupted))] ^= rng.randrange(1, 256)
        path = tmp_path / f"corrupt{attempt}.ncu-rep"
        path.write_bytes(bytes(corrupted))
        try:
            report = read_ncu_rep(path)
        except InputError as exc:
            assert str(exc).startswith(f"{path}: ") and "\n" not in str(exc)
            errors.append(str(exc))
            continue
        assert isinstance(report, ncu_rep.ProfileReport)
        for k in report.kernels:
            assert not k.name.startswith("kernel_") or k.metrics, "a damaged result read as an invented kernel"
            for text in (k.name, k.demangled_name, *k.problems, *(r.message for r in k.rules)):
                text.encode("utf-8")  # printable: bytes that were not UTF-8 became U+FFFD
            problems.extend(k.problems)
    if name == A100_SILU:
        assert f"{tmp_path / 'corrupt5.ncu-rep'}: not a readable Nsight Compute report (result 0 has neither a " \
               "kernel name nor a metric: its data is damaged)" in errors


def test_corrupted_metric_names_are_skipped_and_counted(tmp_path: Path) -> None:
    """The tester's crash: a name with a byte that is not UTF-8 made ncu_report's metric_by_name raise TypeError."""
    data = bytearray(corpus(SMALL_1).read_bytes())
    for m in re.finditer(rb"pct_of_peak_sustained", bytes(data)):
        data[m.start() + len("pct_of_peak_")] = 0xCD  # "...pct_of_peak_\xcdustained..."
    path = tmp_path / "bad_names.ncu-rep"
    path.write_bytes(bytes(data))
    (action,) = raw_actions(path)
    bad = [n for n in action.metric_names() if re.search("[\udc80-\udcff]", n)]
    assert bad and all("pct_of_peak_\udccdustained" in n for n in bad)
    with pytest.raises(TypeError):
        action.metric_by_name(bad[0])
    (k,) = read_ncu_rep(path).kernels
    assert f"{len(bad)} metrics could not be read (corrupted names)" in k.problems
    assert k.sol_compute_pct is None  # sm__throughput.avg.pct_of_peak_sustained_elapsed was among them
    assert k.duration_s is not None and k.launch.grid is not None  # the intact metrics are still read
    assert not any(re.search("[\udc80-\udcff]", n) for n in k.metrics)


def test_a_result_that_cannot_be_read_is_an_input_error() -> None:
    class Broken(_FakeAction):
        def metric_names(self) -> tuple[str, ...]:
            raise RuntimeError("protobuf parse error")

    with pytest.raises(InputError, match=r"^r\.ncu-rep: not a readable Nsight Compute report \(reading result 3 "
                                         r"failed: RuntimeError: protobuf parse error\)$"):
        ncu_rep._read_result("r.ncu-rep", 3, Broken({}))


def test_unreadable_metric_values_are_skipped_and_counted() -> None:
    class Bad(_FakeMetric):
        def as_double(self) -> float:
            raise RuntimeError("bad value")

    k = _fake({"gpu__time_duration.sum": Bad(1.0, "ns"), "dram__bytes_read.sum": _FakeMetric(5.0, "byte")})
    assert k.duration_s is None and k.dram_bytes_read == 5.0
    assert k.problems == ("1 metrics could not be read (corrupted names or values, e.g. gpu__time_duration.sum: "
                          "RuntimeError: bad value)",)


def test_malformed_rule_results_are_skipped_and_counted() -> None:
    class Rules(_FakeAction):
        def rule_results_as_dicts(self) -> list[dict[str, Any]]:
            return [{"rule_identifier": "A", "rule_message": [None]},  # a message that is not a mapping
                    {"rule_identifier": "B", "rule_message": {"message": "kept", "type": 2}}]

    k = ncu_rep._kernel("fake.ncu-rep", 0, Rules({}))
    assert [r.rule_id for r in k.rules] == ["B"]
    assert "1 stored rule result(s) could not be read (corrupted data)" in k.problems


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.ncu-rep"
    with pytest.raises(InputError, match="file not found") as info:
        read_ncu_rep(path)
    assert str(path) in str(info.value)


def test_missing_ncu_report_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "r.ncu-rep"
    path.write_bytes(b"NVR\0")
    monkeypatch.setitem(sys.modules, "ncu_report", None)  # makes `import ncu_report` raise ImportError
    with pytest.raises(InputError) as info:
        read_ncu_rep(path)
    message = str(info.value)
    assert message.startswith(f"{path}: reading .ncu-rep needs NVIDIA's `ncu-report` package")
    assert "--csv --page details" in message and "\n" not in message


# --- unit handling, on a stand-in action (no file needed) -------------------------------------------------


class _FakeMetric:
    ValueKind_UNKNOWN, ValueKind_ANY, ValueKind_STRING, ValueKind_FLOAT, ValueKind_DOUBLE = 0, 1, 2, 3, 4
    ValueKind_UINT32, ValueKind_UINT64 = 5, 6

    def __init__(self, value: Any, unit: str = "") -> None:
        self._value, self._unit = value, unit

    def kind(self) -> int:
        if isinstance(self._value, str):
            return self.ValueKind_STRING
        return self.ValueKind_UINT64 if isinstance(self._value, int) else self.ValueKind_DOUBLE

    def has_value(self) -> bool:
        return True

    def as_double(self) -> float:
        return float(self._value)

    def as_uint64(self) -> int:
        return int(self._value)

    def as_string(self) -> str:
        return str(self._value)

    def unit(self) -> str:
        return self._unit


class _FakeAction:
    def __init__(self, metrics: dict[str, _FakeMetric]) -> None:
        self._metrics = metrics

    def name(self, *base: Any) -> str:
        return "k"

    def metric_names(self) -> tuple[str, ...]:
        return tuple(self._metrics)

    def metric_by_name(self, name: str) -> _FakeMetric | None:
        return self._metrics.get(name)

    def rule_results_as_dicts(self) -> list[dict[str, Any]]:
        return []


def _fake(metrics: dict[str, _FakeMetric]) -> Any:
    action = _FakeAction({"device__attribute_display_name": _FakeMetric("GPU"), **metrics})
    return ncu_rep._kernel("fake.ncu-rep", 0, action)


def test_units_are_converted_by_their_unit_string() -> None:
    k = _fake({"gpu__time_duration.sum": _FakeMetric(12.5, "usecond"),
               "dram__bytes_read.sum": _FakeMetric(3.35, "Mbyte"),
               "dram__bytes_write.sum": _FakeMetric(2, "Kbyte"),
               "smsp__cycles_elapsed.avg.per_second": _FakeMetric(1.5, "cycle/nsecond")})
    assert k.duration_s == pytest.approx(12.5e-6)
    assert k.dram_bytes_read == pytest.approx(3.35e6) and k.dram_bytes_write == pytest.approx(2000)
    assert k.sm_frequency_hz == pytest.approx(1.5e9)
    assert k.metrics["gpu__time_duration.sum"] == 12.5 and k.metric_units["gpu__time_duration.sum"] == "usecond"


def test_unknown_unit_raises_naming_metric_and_unit() -> None:
    with pytest.raises(InputError, match=r"gpu__time_duration\.sum has unit 'fortnight'"):
        _fake({"gpu__time_duration.sum": _FakeMetric(1.0, "fortnight")})


def test_flops_from_sum_counters_need_all_three_of_a_precision() -> None:
    ops = {f"sm__sass_thread_inst_executed_op_{op}_pred_on.sum": _FakeMetric(n, "inst")
           for op, n in (("fadd", 10), ("fmul", 20), ("ffma", 30), ("dadd", 1), ("dfma", 2),
                         ("hadd", 1), ("hmul", 2), ("hfma", 3))}
    k = _fake(ops)
    assert k.flop_counts == {"fp32": 10 + 20 + 2 * 30, "fp16": 2 * 1 + 2 * 2 + 4 * 3}  # no dmul: no fp64


def test_duration_of_zero_is_left_unmeasured() -> None:
    k = _fake({"gpu__time_duration.sum": _FakeMetric(0.0, "nsecond"),
               "dram__bytes_read.sum": _FakeMetric(4096, "byte")})
    assert k.duration_s is None and k.dram_bytes_read == 4096
    assert k.problems == ("duration 0 ns is not a measurement",)  # a report has no line numbers


def test_tensor_op_counts_are_tensor_flops() -> None:
    k = _fake({"gpu__time_duration.sum": _FakeMetric(23.42, "usecond"),
               "sm__ops_path_tensor_src_bf16_dst_fp32.sum": _FakeMetric(1_275_068_416, ""),
               "sm__ops_path_tensor_src_fp16_dst_fp32_sparsity_off.sum": _FakeMetric(0, ""),
               "sm__ops_path_tensor_src_int1.sum": _FakeMetric(7, "")})  # no INT1 ceiling: not counted
    assert k.flop_counts == {"bf16_tensor": 1_275_068_416, "fp16_tensor": 0}

"""Roofline faults users found, each fixed by kind, with expected values computed by hand in the comments:

1. ceilings at the profiled SM clock, not the datasheet boost clock;
2. no roofline without FP work; DRAM intensity distorted by L2-resident data or by local-memory (spill) traffic;
3. tensor-core FLOPs estimated from pipe utilisation where the profile does not count them;
4. DRAM throughput derived from bytes and duration where the profile has no Speed-of-Light DRAM %.
"""

from __future__ import annotations

import pytest

from kernelscope import diagnose_file
from kernelscope.analysis.diagnosis import diagnose
from kernelscope.analysis.roofline import (
    INTENSITY_INPUTS, L1_GLOBAL_SECTORS, L1_LOCAL_SECTORS, L2_SECTORS, TENSOR_ACTIVE_PCT, TENSOR_ELAPSED_PCT,
    clock_scale, derived_dram_throughput_pct, kernel_points, roofline_point,
)
from kernelscope.errors import InputError
from kernelscope.knowledge.criteria import criteria, source
from kernelscope.knowledge.metrics import request
from kernelscope.model import GpuSpec, KernelProfile
from kernelscope.render.common import Fmt

from conftest import CORPUS_NCU, SHARED, corpus_reports, need

GPU = GpuSpec(name="Test GPU", dram_bandwidth_bytes_per_s=1e12, boost_clock_hz=1.98e9,
              peak_flops_per_s={"fp32": 30e12, "fp64": 1e12, "fp16_tensor": 1e14, "int8_tensor": 2e14})


def _kernel(**kw) -> KernelProfile:
    return KernelProfile(index=0, name="k", demangled_name="k", **kw)


def _keys(notes) -> list[str]:
    return [n.key for n in notes]


# ------------------------------------------------------------------------------------ 1. ceilings at the SM clock

def test_ceilings_scale_with_the_profiled_sm_clock():
    # profiled 1.41 GHz, boost 1.98 GHz: scale = 1.41 / 1.98 = 0.712121...
    # fp32 ceiling 30e12 x 0.712121 = 21.3636e12 FLOP/s; DRAM stays 1e12 B/s -> ridge 21.3636 FLOP/B
    # 12.5e9 FLOP in 1 ms = 12.5 TFLOP/s; 1e8 B -> AI 125 > ridge: compute-bound, attainable = 21.3636e12
    # efficiency 12.5 / 21.3636 = 0.5851 (the datasheet roof would say 12.5 / 30 = 0.4167)
    k = _kernel(duration_s=1e-3, sm_frequency_hz=1.41e9, flop_counts={"fp32": 12.5e9, "fp64": 1e9},
                dram_bytes_read=6e7, dram_bytes_write=4e7)
    main, by_pipe, notes = kernel_points(k, GPU)
    scale = 1.41 / 1.98
    assert main.clock_scale == pytest.approx(scale) == pytest.approx(0.712121, rel=1e-5)
    assert main.datasheet_peak_flops_per_s == 30e12
    assert main.peak_flops_per_s == pytest.approx(21.3636e12, rel=1e-5)
    assert main.peak_bandwidth_bytes_per_s == 1e12  # DRAM bandwidth does not follow the SM clock
    assert main.ridge_point_flop_per_byte == pytest.approx(21.3636, rel=1e-5)
    assert main.bound == "compute-bound"
    assert main.attainable_flops_per_s == pytest.approx(21.3636e12, rel=1e-5)
    assert main.efficiency == pytest.approx(0.5851, rel=1e-3)
    fp64 = next(p for p in by_pipe if p.pipe == "fp64")  # every pipe's ceiling scales: 1e12 x 0.7121
    assert fp64.peak_flops_per_s == pytest.approx(0.712121e12, rel=1e-5) and fp64.datasheet_peak_flops_per_s == 1e12
    note = next(n for n in notes if n.key == "peaks_at_sm_clock")
    assert note.values["ghz"] == pytest.approx(1.41) and note.values["boost_ghz"] == pytest.approx(1.98)
    text = Fmt("en").note(note)
    assert "peaks at the profiled SM clock 1.41 GHz; datasheet boost 1.98 GHz: x0.71" in text
    assert "1.41 GHz" in Fmt("zh").note(note)


@pytest.mark.parametrize("kw, gpu", [
    ({}, GPU),  # no measured clock
    ({"sm_frequency_hz": 1.41e9}, GpuSpec(name="g", dram_bandwidth_bytes_per_s=1e12, peak_flops_per_s={"fp32": 30e12})),
    ({"sm_frequency_hz": 1.41e9}, GpuSpec(name="g", dram_bandwidth_bytes_per_s=1e12, boost_clock_hz=1.98e9,
                                          peak_flops_per_s={"fp32": 30e12}, measured=True, origin="spec file m.toml")),
])
def test_without_both_clocks_the_ceilings_are_unchanged_and_silent(kw, gpu):
    # missing clock, no boost clock in the spec, or ceilings measured on the device: datasheet peak, no note
    k = _kernel(duration_s=1e-3, flop_counts={"fp32": 1e9}, dram_bytes_read=1e8, dram_bytes_write=0.0, **kw)
    main, _, notes = kernel_points(k, gpu)
    assert clock_scale(k, gpu) is None
    assert main.peak_flops_per_s == 30e12 == main.datasheet_peak_flops_per_s and main.clock_scale is None
    assert "peaks_at_sm_clock" not in _keys(notes)


def test_a100_silu_ridge_at_the_profiled_clock():
    # AlpriElse silu, A100-SXM4-40GB, kernel 0: smsp__cycles_elapsed.avg.per_second = 1.0908 GHz, boost 1.41 GHz.
    # ridge = 19.5 TFLOP/s x (1.0908 / 1.41) / 1555 GB/s = 19.5e12 x 0.77365 / 1555e9 = 9.702 FLOP/B (datasheet: 12.54)
    path = need(CORPUS_NCU / "AlpriElse__cs599k__silu_CUDA_ncu-reports_2025-04-21-77_06-MT.ncu-rep")
    d = diagnose_file(path).kernels[0]
    f = d.kernel.sm_frequency_hz
    assert f == pytest.approx(1.0908e9, rel=1e-4)
    assert d.roofline.clock_scale == pytest.approx(f / 1.41e9)
    assert d.roofline.ridge_point_flop_per_byte == pytest.approx(19.5e12 * (f / 1.41e9) / 1555e9, rel=1e-9)
    assert d.roofline.ridge_point_flop_per_byte == pytest.approx(9.702, rel=1e-3)
    assert d.roofline.datasheet_peak_flops_per_s == 19.5e12
    assert d.roofline.bound == "memory-bound"  # AI 1409286144 / 524193152 B = 2.69 < 9.70


# --------------------------------------------------------------------------------- 2. where the roofline misleads

def test_no_fp_work_has_no_roofline_verdict():
    # 0 FLOP, 1 MB of DRAM: AI 0 and achieved 0 are facts, but there is no roof to be under: no bound,
    # no attainable, no efficiency (before: "achieved 0 / attainable 0 FLOP/s -> memory-bound")
    p = roofline_point("fp32", 19.5e12, 1.555e12, flops=0.0, dram_bytes=1e6, duration_s=1e-6)
    assert p.bound is None and p.attainable_flops_per_s is None and p.efficiency is None
    assert p.achieved_flops_per_s == 0.0 and p.arithmetic_intensity_flop_per_byte == 0.0
    assert p.not_measured[0] == "roofline_not_applicable"
    k = _kernel(duration_s=1e-3, flop_counts={"fp32": 0.0, "fp64": 0.0}, dram_bytes_read=1e6, dram_bytes_write=0.0)
    main, by_pipe, notes = kernel_points(k, GPU)
    assert main.bound is None and by_pipe == ()
    assert "no_fp_work" not in _keys(notes)  # the point's reason says it once
    assert "intensity_no_dram_writes" not in _keys(notes)  # no intensity to distort
    d = diagnose(k, GPU)
    assert d.roofline.bound is None and d.bound is None  # no SOL values, no roofline verdict: no class made up
    assert Fmt("en").note("roofline_not_applicable").startswith("no floating-point instructions executed: roofline not applicable")


def test_corpus_kernel_without_fp_work_gets_no_bound():
    # heat_sim kernel 0 (mantener_fuentes_de_calor): fp32 and fp64 counts 0 -> was "memory-bound" by the roofline
    path = need(CORPUS_NCU / "bautista-garcia__heat_sim__profile.ncu-rep")
    d = diagnose_file(path).kernels[0]
    assert sum(d.kernel.flop_counts.values()) == 0
    assert d.roofline.bound is None and d.roofline.efficiency is None
    assert "roofline_not_applicable" in d.roofline.not_measured


def test_l2_resident_data_flags_the_dram_intensity():
    # 1e9 FLOP on 5e4 + 5e4 DRAM bytes: AI = 1e9 / 1e5 = 1e4 FLOP/B (the distorted kind of value users saw)
    # L2: 1e6 sectors x 32 B = 3.2e7 B; DRAM / L2 = 1e5 / 3.2e7 = 0.003125 < 0.01 -> flagged
    k = _kernel(duration_s=1e-3, flop_counts={"fp32": 1e9}, dram_bytes_read=5e4, dram_bytes_write=5e4,
                metrics={L2_SECTORS: 1e6}, metric_units={L2_SECTORS: "sector"})
    main, _, notes = kernel_points(k, GPU)
    assert main.arithmetic_intensity_flop_per_byte == pytest.approx(1e4)
    note = next(n for n in notes if n.key == "intensity_l2_resident")
    assert note.values["dram_mb"] == pytest.approx(0.1) and note.values["l2_mb"] == pytest.approx(32.0)
    assert note.values["share"] == pytest.approx(0.003125) and note.values["limit"] == 0.01
    assert "97.7 KiB" in Fmt("en").note(note) and "30.5 MiB" in Fmt("en").note(note)  # (binary unit per value)
    # a streaming kernel: 1e5 B of DRAM against 2e5 B of L2 (6250 sectors x 32 B): share 0.5, nothing to say
    k2 = _kernel(duration_s=1e-3, flop_counts={"fp32": 1e9}, dram_bytes_read=5e4, dram_bytes_write=5e4,
                 metrics={L2_SECTORS: 6250.0})
    assert not {"intensity_l2_resident", "intensity_no_dram_writes"} & set(_keys(kernel_points(k2, GPU)[2]))
    # sectors in a unit kernelscope does not know are not guessed at
    k3 = _kernel(duration_s=1e-3, flop_counts={"fp32": 1e9}, dram_bytes_read=5e4, dram_bytes_write=5e4,
                 metrics={L2_SECTORS: 1e3}, metric_units={L2_SECTORS: "Ksector"})
    assert "intensity_l2_resident" not in _keys(kernel_points(k3, GPU)[2])


def test_output_left_in_l2_flags_the_dram_intensity():
    # DRAM writes 0 B, reads 1e6 B: only the reads count -> note with the reads, 1e6 B = 1 MB
    k = _kernel(duration_s=1e-3, flop_counts={"fp32": 1e9}, dram_bytes_read=1e6, dram_bytes_write=0.0)
    notes = kernel_points(k, GPU)[2]
    note = next(n for n in notes if n.key == "intensity_no_dram_writes")
    assert note.values == {"read_mb": pytest.approx(1.0)}


def test_register_spill_traffic_flags_the_dram_intensity():
    # local 600 + 200 = 800 sectors, global 1000 + 600 = 1600: local share 800 / 2400 = 0.333 > 0.20
    # local bytes 800 x 32 B = 25,600 B = 0.0256 MB
    spill = {L1_LOCAL_SECTORS[0]: 600.0, L1_LOCAL_SECTORS[1]: 200.0,
             L1_GLOBAL_SECTORS[0]: 1000.0, L1_GLOBAL_SECTORS[1]: 600.0}
    k = _kernel(duration_s=1e-3, flop_counts={"fp32": 1e9}, dram_bytes_read=1e6, dram_bytes_write=1e6, metrics=spill)
    note = next(n for n in kernel_points(k, GPU)[2] if n.key == "intensity_local_memory")
    assert note.values["share"] == pytest.approx(1 / 3) and note.values["local_mb"] == pytest.approx(0.0256)
    # 300 + 100 = 400 of 2000: share exactly 0.20, not above the threshold
    ok = {**spill, L1_LOCAL_SECTORS[0]: 300.0, L1_LOCAL_SECTORS[1]: 100.0}
    k2 = _kernel(duration_s=1e-3, flop_counts={"fp32": 1e9}, dram_bytes_read=1e6, dram_bytes_write=1e6, metrics=ok)
    assert "intensity_local_memory" not in _keys(kernel_points(k2, GPU)[2])


def test_intensity_thresholds_and_inputs_are_declared():
    crit = criteria()
    assert crit["l2_resident_dram_share"] == 0.01 and crit["local_memory_share"] == 0.20
    assert "lts__t_sectors" in source("l2_resident_dram_share") and "spill" in source("local_memory_share")
    # the .ncu-rep reader reads only requested metrics: each name read here is requested by name or prefix
    req = request()
    missing = [m for m in INTENSITY_INPUTS if m not in req.names and not m.startswith(tuple(req.prefixes))]
    assert missing == []


# ------------------------------------------------------------------------------------- 3. tensor-core FLOPs

TENSOR_GPU = GpuSpec(name="T", dram_bandwidth_bytes_per_s=1e12, boost_clock_hz=2e9,
                     peak_flops_per_s={"fp32": 2e13, "fp16_tensor": 1e14, "bf16_tensor": 1e14, "int8_tensor": 2e14})


def test_tensor_flops_estimated_from_pipe_utilisation():
    # IMMA pipe 40% of the active cycles; tensor pipe 40% active-based, 30% elapsed-based -> 30% of elapsed cycles
    # int8 peak 2e14 at 1.5 / 2.0 GHz = 1.5e14; FLOP = 0.30 x 1.5e14 x 1e-3 s = 4.5e10; achieved 4.5e13 OP/s
    k = _kernel(duration_s=1e-3, sm_frequency_hz=1.5e9, flop_counts={"fp32": 1e6}, dram_bytes_read=1e8,
                dram_bytes_write=1e7, tensor_pipe_op_active_pct={"int8_tensor": 40.0, "fp16_tensor": 0.0},
                metrics={TENSOR_ACTIVE_PCT: 40.0, TENSOR_ELAPSED_PCT: 30.0})
    main, by_pipe, notes = kernel_points(k, TENSOR_GPU)
    assert main.pipe == "int8_tensor" and main.flops_estimated
    assert main.flops == pytest.approx(4.5e10) and main.achieved_flops_per_s == pytest.approx(4.5e13)
    assert main.peak_flops_per_s == pytest.approx(1.5e14)
    assert main.efficiency == pytest.approx(0.30)  # AI 4.5e10 / 1.1e8 = 409 > ridge 150: attainable = the peak
    assert [p.pipe for p in by_pipe] == ["fp32"] and not by_pipe[0].flops_estimated  # counted pipes stay counts
    note = next(n for n in notes if n.key == "flops_estimated")
    assert note.values["pct"] == pytest.approx(30.0) and note.values["gflop"] == pytest.approx(45.0)
    # without the active/elapsed pair the active-cycle % is used as it is, labelled an upper bound:
    # 0.40 x 1.5e14 x 1e-3 = 6e10
    k2 = _kernel(duration_s=1e-3, sm_frequency_hz=1.5e9, tensor_pipe_op_active_pct={"int8_tensor": 40.0})
    main2, _, notes2 = kernel_points(k2, TENSOR_GPU)
    assert main2.flops == pytest.approx(6e10) and "flops_estimated_active" in _keys(notes2)


def test_tensor_flops_from_per_type_ops_are_elapsed_based():
    # sm__ops_path_tensor_src_bf16 at 25% of the BF16 peak (elapsed): 0.25 x 1e14 x 2e-3 s = 5e10 FLOP
    # (no SM clock: the datasheet peak is used)
    k = _kernel(duration_s=2e-3, tensor_ops_pct={"bf16_tensor": 25.0, "fp16_tensor": 0.0})
    main, _, _ = kernel_points(k, TENSOR_GPU)
    assert (main.pipe, main.flops_estimated) == ("bf16_tensor", True)
    assert main.flops == pytest.approx(5e10) and main.achieved_flops_per_s == pytest.approx(2.5e13)


def test_no_estimate_without_a_duration_or_with_a_fallback_ceiling():
    k = _kernel(tensor_pipe_op_active_pct={"int8_tensor": 40.0})
    main, _, _ = kernel_points(k, TENSOR_GPU)
    assert main.flops is None and not main.flops_estimated and "flops_not_measured" in main.not_measured
    # FP8 work on a spec without an FP8 peak: the FP16 ceiling stands in, but FP8 % x FP16 peak is no FLOP count
    k = _kernel(duration_s=1e-3, tensor_ops_pct={"fp8_tensor": 50.0})
    main, _, notes = kernel_points(k, TENSOR_GPU)
    assert main.pipe == "fp16_tensor" and main.flops is None and "no_peak_fallback" in _keys(notes)


def test_cutlass_int8_estimate_matches_the_reference_gemm():
    # panjd123 cutlass s8 GEMM (A100 80GB PCIe), kernel 0: IMMA pipe 11.3904% of active cycles; the tensor pipe is
    # 11.3904% active-based and 2.853186% elapsed-based -> 2.853186% of the elapsed cycles.
    # clock 1.054091 GHz / boost 1.41 GHz = 0.747583; int8 peak 624e12 x 0.747583 = 466.49e12 OP/s
    # OP = 0.02853186 x 466.49e12 x 8.512e-6 s = 1.13294e8. Kernel 1 of the same report, cutlass' ReferenceGemm of
    # the same product on the FP32 pipe, counts 113,246,208 FLOP (2 M N K): the estimate is 0.04% above it.
    path = need(CORPUS_NCU / "panjd123__cutlass__report-s8.ncu-rep")
    res = diagnose_file(path)
    r = res.kernels[0].roofline
    assert r.pipe == "int8_tensor" and r.flops_estimated
    assert r.clock_scale == pytest.approx(0.747583, rel=1e-6)
    assert r.flops == pytest.approx(0.02853186 * 624e12 * 0.747583 * 8.512e-6, rel=1e-5)
    assert r.flops == pytest.approx(1.13294e8, rel=1e-5)
    reference = res.kernels[1].roofline.flops
    assert reference == 113_246_208
    assert r.flops == pytest.approx(reference, rel=1e-3)
    assert r.achieved_flops_per_s == pytest.approx(1.13294e8 / 8.512e-6, rel=1e-5)  # 13.31 TOP/s


def _corpus_files() -> list:
    csv = SHARED / "corpus" / "ncu_csv"
    return corpus_reports() + (sorted(p for p in csv.iterdir() if p.is_file()) if csv.is_dir() else [])


def test_every_corpus_tensor_launch_has_flops_and_achieved():
    need(CORPUS_NCU)
    tensor = []
    for path in _corpus_files():
        try:
            res = diagnose_file(path)
        except InputError:
            continue  # files that hold no profiler data (failed runs), checked by the reader tests
        for d in res.kernels:
            r = d.roofline
            if r is not None and "_tensor" in r.pipe:
                tensor.append((path.name, d.kernel.index, r))
    # cutlass s8 kernel 0 (INT8, estimated: 1.133e8 OP, 13.3 TOP/s) and the RTX 5090 BF16 kernel of the details
    # CSV (counted by sm__ops_path_tensor_src_bf16: 1.275e9 FLOP in 23.42 us = 54.4 TFLOP/s)
    assert len(tensor) >= 2, tensor
    for name, index, r in tensor:
        assert r.flops is not None and r.flops > 0, (name, index)
        assert r.achieved_flops_per_s is not None and r.achieved_flops_per_s > 0, (name, index)


# ------------------------------------------------------------------------------- 4. DRAM % from bytes and duration

def test_dram_throughput_derived_by_hand():
    # 6e8 B in 1 ms = 6e11 B/s of 1e12 B/s = 60%
    k = _kernel(duration_s=1e-3, dram_bytes_read=4e8, dram_bytes_write=2e8)
    main, _, notes = kernel_points(k, GPU)
    assert derived_dram_throughput_pct(k, GPU) == pytest.approx(60.0)
    assert main.derived_dram_throughput_pct == pytest.approx(60.0)
    note = next(n for n in notes if n.key == "dram_throughput_derived")
    assert note.values["pct"] == pytest.approx(60.0) and note.values["gbps"] == pytest.approx(600.0)
    # measured by the profile: nothing derived
    measured = _kernel(duration_s=1e-3, dram_bytes_read=4e8, dram_bytes_write=2e8, dram_throughput_pct=58.0)
    assert kernel_points(measured, GPU)[0].derived_dram_throughput_pct is None
    assert derived_dram_throughput_pct(k, None) is None


def test_saxpy_csv_dram_throughput_derived():
    # olajide_rtx5070_saxpy.csv: dram__bytes_op_read.sum 134,221,568 B + dram__bytes_op_write.sum 43,631,104 B
    # = 177,852,672 B in gpu__time_duration.sum 292,928 ns -> 6.07155e11 B/s; RTX 5070 672 GB/s -> 90.35%
    path = need(SHARED / "corpus" / "ncu_csv" / "olajide_rtx5070_saxpy.csv")
    d = diagnose_file(path, gpu="NVIDIA GeForce RTX 5070").kernels[0]
    assert d.kernel.dram_throughput_pct is None and d.kernel.dram_bytes == 177_852_672
    assert d.roofline.derived_dram_throughput_pct == pytest.approx(177_852_672 / 292_928e-9 / 672e9 * 100)
    assert d.roofline.derived_dram_throughput_pct == pytest.approx(90.35, abs=0.01)
    note = next(n for n in d.notes if n.key == "dram_throughput_derived")
    assert note.values["pct"] == pytest.approx(90.35, abs=0.01)
    assert "90.4% of peak" in Fmt("en").note(note)


def test_the_levels_table_says_what_its_share_is_of(capsys):
    # the hierarchical roofline's "of its ceiling" (the level's bytes against its bandwidth) and diagnose's memory
    # levels (the units' throughput counters, shared-memory wavefronts included) can name different levels: the
    # table says what its figure is, in both languages (native review 15: L2 8.8% "limiting" beside L1/TEX 49.0%)
    from conftest import CORPUS_NCU, need
    from kernelscope.cli import main
    report = str(need(CORPUS_NCU / "InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_"
                                   "09_double_buffering.ncu-rep"))
    for lang, words in (("en", ("of its ceiling: the level's bytes", "shared-memory wavefronts")),
                        ("zh", ("达其上限：该层级的字节数", "共享内存的 wavefront"))):
        assert main(["roofline", "--levels", "--format", "table", "--lang", lang, report]) == 0
        out = " ".join(capsys.readouterr().out.split())
        assert all(" ".join(w.split()) in out.replace("\n", " ") for w in words), lang

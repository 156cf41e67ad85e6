"""Verdict classes and findings say what they mean: a grid too small to fill the GPU is "small grid" (Nsight
Compute's Small Grid), never "launch-bound" (reserved for launch overhead); Blackwell's tensor-op counters are
counted; a remedy is offered only when its precondition holds; a typed GPU name that fits several catalogue GPUs is
refused; the short view lists only findings worth acting on; one panel order. Expectations computed by hand."""

from __future__ import annotations

import re

import pytest

from conftest import CASES, CORPUS_NCU, EXAMPLE, need
from kernelscope.analysis.diagnosis import diagnose, diagnose_report
from kernelscope.analysis.groups import by_time
from kernelscope.cli import main
from kernelscope.errors import InputError, UnknownGpuError
from kernelscope.ingest import load
from kernelscope.knowledge.criteria import criteria
from kernelscope.knowledge.gpus import catalogue, find_gpu, find_typed_gpu, normalise
from kernelscope.knowledge.text import class_text
from kernelscope.model import DeviceInfo, GpuSpec, KernelProfile, LaunchConfig
from kernelscope.render.table import to_table

N17 = CASES / "N17_ncu_console_blackwell_utc_fp8.txt"
FEATHER_09 = CORPUS_NCU / "InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_09_double_buffering.ncu-rep"
RTX = GpuSpec(name="RTX test", dram_bandwidth_bytes_per_s=448e9, peak_flops_per_s={"fp32": 10e12}, sm_count=80)
DEV = DeviceInfo(display_name="RTX test", compute_capability=(8, 6), sm_count=80)


def _k(**kw) -> KernelProfile:
    base = dict(index=0, name="k", demangled_name="k", device=DEV, duration_s=194.6e-6)
    base.update(kw)
    return KernelProfile(**base)


# ------------------------------------------------------------------------------------ small grid, launch-bound


def test_a_long_kernel_on_a_small_grid_is_small_grid_not_launch_bound():
    """ESMM warptiling: 194.6 µs, 64 blocks on 80 SMs (16 idle), SOL 33 / 44 % (< 60 %): the small-grid class;
    no launch overhead in a 194.6 µs kernel (short_kernel_s is 5 µs)."""
    d = diagnose(_k(sol_compute_pct=33.3, sol_memory_pct=44.4,
                    launch=LaunchConfig(grid=(64, 1, 1), block=(128, 1, 1), waves_per_sm=0.8)), RTX)
    assert d.classes == ("small-grid",)
    for lang in ("en", "zh"):
        title = class_text("small-grid", "title", lang)
        assert title in " ".join(to_table_one(d, lang).split())
        assert "launch-bound" not in to_table_one(d, lang) and "启动开销" not in title
    assert "not launch overhead" in class_text("small-grid", "meaning", "en")
    assert "不是启动开销" in class_text("small-grid", "meaning", "zh")


def test_launch_bound_is_the_short_kernel_only_and_means_launch_overhead():
    """2 µs < short_kernel_s (5 µs) on a full grid: launch-bound; its title and meaning name the launch overhead."""
    assert criteria()["short_kernel_s"] == pytest.approx(5e-6)
    d = diagnose(_k(duration_s=2e-6, sol_compute_pct=3.0, sol_memory_pct=5.0,
                    launch=LaunchConfig(grid=(800, 1, 1), block=(128, 1, 1), waves_per_sm=3.0)), RTX)
    assert "launch-bound" in d.classes and "small-grid" not in d.classes
    assert "launch overhead" in class_text("launch-bound", "meaning", "en")
    assert "启动开销" in class_text("launch-bound", "title", "zh")
    # every rule that gives launch-bound is about the launch's time; the grid rule gives small-grid
    long = diagnose(_k(sol_compute_pct=3.0, sol_memory_pct=5.0, launch=LaunchConfig(grid=(8, 1, 1), block=(128, 1, 1))), RTX)
    assert {f.id for f in long.findings if f.bound == "launch-bound"} == set()
    assert {f.id for f in long.findings if f.bound == "small-grid"} == {"small_grid"}


def test_a_busy_tensor_pipe_keeps_the_small_grid_an_optimization():
    """No Speed-of-Light section, tensor pipe 71.3 % active (>= latency_sol_pct, 60 %), 128 blocks on 148 SMs: the
    grid is an optimization, not the class (N17's FP8 GEMM is compute-bound by its roofline)."""
    assert criteria()["latency_sol_pct"] == pytest.approx(60.0)
    k = _k(tensor_pipe_active_pct=71.3, device=DeviceInfo(display_name="b", sm_count=148),
           launch=LaunchConfig(grid=(128, 1, 1), block=(384, 1, 1)))
    d = diagnose(k, RTX)
    (small,) = [f for f in d.findings if f.id == "small_grid"]
    assert small.severity == "optimization" and "small-grid" not in d.classes


def to_table_one(d, lang: str) -> str:
    """The --details table of one diagnosis's launch, diagnosed again on its own (same GPU)."""
    from kernelscope.model import ProfileReport
    rep = ProfileReport(path="k.toml", format="plain", kernels=(d.kernel,))
    return to_table([diagnose_report(rep, gpu=d.gpu)], lang, width=200)


# -------------------------------------------------------------------------------------- N17: Blackwell FP8 GEMM


def test_n17_counts_the_blackwell_fp8_tensor_ops_against_the_fp8_ceiling():
    """sm__ops_path_tensor_op_utcqmma_src_fp8_dst_fp32.sum = 137,438,953,472 FLOP (= 2 x 4096^3) over 52.48 µs =
    2.619 PFLOP/s; DRAM 33.55 + 33.55 MB = 67.10 MB -> AI 2048 FLOP/B; B200 FP8 4.5 PFLOP/s / 7.7 TB/s = ridge 584 ->
    compute-bound, efficiency 2.619 / 4.5 = 58.2 %. Counted, not estimated from the pipe."""
    rep = load(need(N17))
    (k,) = rep.kernels
    assert k.flop_counts == {"fp8_tensor": 137_438_953_472}
    d = diagnose(k, find_gpu("NVIDIA B200"))
    r = d.roofline
    assert r.pipe == "fp8_tensor" and r.flops == 137_438_953_472 and not r.flops_estimated
    assert r.achieved_flops_per_s == pytest.approx(137_438_953_472 / 52.48e-6) == pytest.approx(2.619e15, rel=1e-3)
    assert r.arithmetic_intensity_flop_per_byte == pytest.approx(137_438_953_472 / 67.10e6, rel=1e-3)
    assert r.ridge_point_flop_per_byte == pytest.approx(4500 / 7.7, rel=1e-3)
    assert r.bound == "compute-bound" and r.efficiency == pytest.approx(0.582, abs=1e-3)
    assert d.classes == () or "small-grid" not in d.classes
    assert "compute-bound" in d.verdict


def test_the_precision_step_is_offered_only_to_a_kernel_not_already_at_it(tmp_path):
    """The cuBLAS advice's "use ... (TF32, FP16/BF16)" is a precondition remedy: not to N17's FP8 GEMM (counted FP8
    tensor work), but to an FP32 SGEMM (counted FP32 FLOPs, no tensor work)."""
    fp8 = diagnose(load(need(N17)).kernels[0], find_gpu("NVIDIA B200"))
    text = " ".join(to_table_one(fp8, "en").split())
    assert "cuBLAS kernel" in text and "TF32" not in text
    assert "TF32" not in " ".join(to_table_one(fp8, "zh").split())
    sgemm = _k(name="ampere_sgemm_128x64_nn", demangled_name="ampere_sgemm_128x64_nn", sol_compute_pct=85.0,
               sol_memory_pct=40.0, flop_counts={"fp32": 1e9}, launch=LaunchConfig(grid=(800, 1, 1), block=(128, 1, 1)))
    text = " ".join(to_table_one(diagnose(sgemm, RTX), "en").split())
    assert "cuBLAS kernel" in text and "(TF32, FP16/BF16)" in text


def test_tensor_op_counts_of_several_mma_kinds_on_one_pipe_add_up(tmp_path):
    """Blackwell names the counters per MMA kind: two kinds of FP16 work (1e9 + 2e9) are 3e9 FLOP of fp16_tensor;
    an FP4 count (no FP4 pipe) is left out; the Hopper form still reads."""
    lines = need(N17).read_text(encoding="utf-8").splitlines()
    (i,) = [n for n, line in enumerate(lines) if "utcqmma_src_fp8" in line]
    width = len(lines[i])

    def row(name: str, value: str) -> str:
        return "    " + name + value.rjust(width - 4 - len(name))
    lines[i:i + 1] = [row("sm__ops_path_tensor_op_utchmma_src_fp16_dst_fp32.sum", "1,000,000,000"),
                      row("sm__ops_path_tensor_op_utcxmma_src_fp16_dst_fp32.sum", "2,000,000,000")]
    body = "\n".join(lines) + "\n"
    path = tmp_path / "k.txt"
    path.write_text(body, encoding="utf-8")
    assert load(path).kernels[0].flop_counts == {"fp16_tensor": 3e9}


# --------------------------------------------------------------------------------------------- --gpu lookup


def test_a_typed_family_name_is_refused_with_its_candidates():
    with pytest.raises(InputError) as exc:
        find_typed_gpu("h100")
    assert exc.value.key == "gpu_ambiguous"
    assert exc.value.values["candidates"] == "NVIDIA H100 SXM5, NVIDIA H100 PCIe, NVIDIA H100 NVL"
    assert find_typed_gpu("h100 nvl").name == "NVIDIA H100 NVL"  # a unique prefix
    assert find_typed_gpu("NVIDIA H100 80GB HBM3").name == "NVIDIA H100 SXM5"  # an exact alias no other starts
    assert find_gpu("NVIDIA H100").name == "NVIDIA H100 SXM5"  # a report's device name: exact, as before
    with pytest.raises(UnknownGpuError):
        find_typed_gpu("no such gpu")


def test_every_catalogue_name_is_accepted_and_no_typed_alias_silently_picks_one_of_several():
    for spec in catalogue():
        assert find_typed_gpu(spec.name) is spec
        for alias in spec.aliases:
            others = {s.name for s in catalogue() for n in (s.name, *s.aliases)
                      if normalise(n).startswith(normalise(alias))}
            if len(others) == 1:
                assert find_typed_gpu(alias) is spec
            elif normalise(spec.name) != normalise(alias):
                with pytest.raises(InputError):
                    find_typed_gpu(alias)


def test_cli_ambiguous_gpu_is_one_line_exit_2(capsys):
    code = main(["diagnose", str(EXAMPLE), "--gpu", "h100"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "NVIDIA H100 SXM5, NVIDIA H100 PCIe, NVIDIA H100 NVL" in err


# ------------------------------------------------------------------------------------------ short view, order


def test_the_short_view_lists_only_findings_worth_acting_on():
    """feather 09's warm_up_kernel (1.408 µs): thread divergence at most 1.00x, "negligible gain" (< min_worthwhile_speedup 1.05):
    not in the short panel (the "nothing worth tuning" line and "1 more: --details" are), in --details."""
    res = diagnose_report(load(need(FEATHER_09)))
    (warm,) = [d for d in res.kernels if d.kernel.name == "warm_up_kernel"]
    hidden = [f for f in warm.advice_findings if f.negligible]
    assert hidden and all(f.estimated_speedup < criteria()["min_worthwhile_speedup"] for f in hidden)
    assert warm.worthwhile_advice == tuple(f for f in warm.advice_findings if not f.negligible)
    short = " ".join(to_table([res], "en", width=200, details=False).split())
    full = " ".join(to_table([res], "en", width=200, details=True).split())
    assert "thread divergence [negligible gain" not in short and "thread divergence [negligible gain" in full
    assert "nothing worth tuning" in short and "1 more: --details" in short


def test_one_panel_order_most_time_first():
    """3 µs (index 1), 3 µs (index 3), 1 µs (index 0), not measured (index 2): by time, index among equal ones; a
    summary row of 4 launches of 1 µs (index 4) counts 4 µs."""
    from kernelscope.analysis.diagnosis import KernelDiagnosis
    ks = [_k(index=0, duration_s=1e-6), _k(index=1, duration_s=3e-6), _k(index=2, duration_s=None),
          _k(index=3, duration_s=3e-6), _k(index=4, duration_s=1e-6, launch_count=4)]
    ds = [diagnose(k, RTX) for k in ks]
    assert all(isinstance(d, KernelDiagnosis) for d in ds)
    assert [d.kernel.index for d in by_time(ds)] == [4, 1, 3, 0, 2]
    grouped = main(["diagnose", str(EXAMPLE)])
    assert grouped == 0


def test_every_library_precision_step_is_conditional():
    """A library family's advice names a precision only in its {precision} step (offered when the kernel is not
    already at one of precision_done's pipes), in both languages; NCCL's FP16/BF16 is the reduction's message
    type, not tensor-core work."""
    from kernelscope.knowledge.libraries import families
    types = re.compile(r"TF32|FP16|BF16|FP8")
    for fam in families():
        for lang in ("en", "zh"):
            rest = fam.advice(lang).replace("{precision}", "")
            if fam.id != "nccl":
                assert not types.search(rest), (fam.id, lang, rest)
            if fam.precision(lang):
                assert types.search(fam.precision(lang)) and fam.precision_done, fam.id


def test_ceilings_of_another_gpu_than_the_report_ran_on_are_said_first():
    """feather 09 ran on an RTX 4060 Laptop GPU: with --gpu H100 SXM5 the first note says whose ceilings these are;
    without --gpu (the report's own GPU) no such note."""
    path = need(CORPUS_NCU / "InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_09_double_buffering.ncu-rep")
    (k, *_) = load(path).kernels
    d = diagnose(k, find_gpu("NVIDIA H100 SXM5"))
    assert d.provenance[0].key == "device_named_differ"
    assert d.provenance[0].values == {"report": k.device.display_name, "gpu": "NVIDIA H100 SXM5"}
    assert all(n.key != "device_named_differ" for n in diagnose(k, find_gpu(k.device.display_name)).provenance)

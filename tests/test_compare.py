"""Before/after comparison: matching, speedups, noise, Amdahl, the CI gate; on the corpus SGEMM ladder."""

from __future__ import annotations

import json

import pytest

from conftest import CORPUS_NCU, need
from kernelscope.cli import main
from kernelscope.analysis.compare import compare
from kernelscope.analysis.diagnosis import diagnose
from kernelscope.model import DeviceInfo, GpuSpec, KernelProfile, LaunchConfig

GPU = GpuSpec(name="t", dram_bandwidth_bytes_per_s=1e12, peak_flops_per_s={"fp32": 1e13})


def _d(name, duration_s, index=0, grid=(10, 1, 1), **kw):
    k = KernelProfile(index=index, name=name, demangled_name=name, device=DeviceInfo(display_name="t"),
                      launch=LaunchConfig(grid=grid, block=(256, 1, 1)), duration_s=duration_s, **kw)
    return diagnose(k, GPU)


def test_totals_and_amdahl_by_hand():
    before = [_d("A", 6e-3), _d("B", 4e-3, 1)]
    after = [_d("A", 3e-3), _d("B", 4e-3, 1)]
    c = compare(before, after)
    assert (c.total_before_s, c.total_after_s) == (pytest.approx(10e-3), pytest.approx(7e-3))
    assert c.speedup == pytest.approx(10 / 7)
    a = next(p for p in c.pairs if p.before_name == "A")
    assert a.speedup == pytest.approx(2.0)
    assert a.program_speedup == pytest.approx(10 / (10 - 6 + 3))  # Amdahl: only A changed
    assert c.regressions(0.05) == ()


def test_bandwidth_and_explanation():
    before = [_d("A", 2e-3, dram_bytes_read=1e9, dram_bytes_write=0.0)]  # 0.5 TB/s = 50% of 1 TB/s
    after = [_d("A", 1.25e-3, dram_bytes_read=1e9, dram_bytes_write=0.0)]  # 0.8 TB/s = 80%
    p = compare(before, after).pairs[0]
    assert p.before.bandwidth_bytes_per_s == pytest.approx(5e11) and p.before.bandwidth_pct_of_peak == pytest.approx(50.0)
    assert p.after.bandwidth_pct_of_peak == pytest.approx(80.0)
    keys = {n.key: n.values for n in p.explanation}
    assert keys["cmp_bandwidth"] == {"before": pytest.approx(50.0), "after": pytest.approx(80.0)}


def test_noise_awareness():
    # three launches per side; the after range overlaps the before range -> within the spread, no regression
    before = [_d("A", t, i) for i, t in enumerate((1.00e-3, 1.10e-3, 1.05e-3))]
    after = [_d("A", t, i) for i, t in enumerate((1.08e-3, 1.12e-3, 1.09e-3))]
    p = compare(before, after).pairs[0]
    assert p.before.spread_s == (1.00e-3, 1.10e-3) and p.beyond_noise is False
    assert p.speedup == pytest.approx(1.05e-3 / 1.09e-3)
    # the noise rule: relative standard deviations 0.05 / 1.05 = 4.76 % and 0.0208 / 1.0967 = 1.90 %; the median moved
    # 1.09 / 1.05 - 1 = 3.8 %: within the larger, for the kernel and for the total (this one kernel) alike
    assert p.before.noise == pytest.approx(0.05 / 1.05) and p.after.noise == pytest.approx(0.020817 / 1.096667, rel=1e-4)
    assert p.noise == pytest.approx(0.05 / 1.05)
    assert compare(before, after).noise == (pytest.approx(0.05 / 1.05), False)
    assert compare(before, after).regressions(0.01) == ()
    slow = [_d("A", t, i) for i, t in enumerate((1.3e-3, 1.35e-3, 1.32e-3))]
    p = compare(before, slow).pairs[0]
    assert p.beyond_noise is True and "A" in compare(before, slow).regressions(0.05)


def test_matching_by_shape_then_name_and_unmatched():
    before = [_d("A", 1e-3, grid=(10, 1, 1)), _d("A", 2e-3, 1, grid=(20, 1, 1)), _d("gone", 1e-3, 2)]
    after = [_d("A", 1e-3, grid=(20, 1, 1)), _d("A", 1e-3, 1, grid=(40, 1, 1)), _d("new", 1e-3, 2)]
    c = compare(before, after)
    how = sorted((p.matched_by, p.before.duration_s) for p in c.pairs)
    assert how == [("name", 1e-3), ("name+shape", 2e-3)]
    assert c.unmatched_before == ("gone",) and c.unmatched_after == ("new",)


def _raw_durations(path):
    import ncu_report

    ctx = ncu_report.load_report(str(path))
    rng = ctx.range_by_idx(0)
    out = {}
    for i in range(rng.num_actions()):
        a = rng.action_by_idx(i)
        out.setdefault(a.name(), []).append(a["gpu__time_duration.sum"].as_double() * 1e-9)  # ns
    return out


LADDER = ["basic", "gmem_coalesce", "smem_blocking", "one_blocktiling", "two_blocktiling", "vectorized_blocktiling", "warptiling"]


@pytest.mark.parametrize("before, after", list(zip(LADDER, LADDER[1:])))
def test_sgemm_ladder_in_one_report(capsys, before, after):
    pytest.importorskip("ncu_report")
    path = need(CORPUS_NCU / "AveryClapp__ESMM-Research__profile.ncu-rep")
    raw = _raw_durations(path)
    code = main(["compare", str(path), "--before-kernel", before, "--after-kernel", after, "--format", "json"])
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    (k,) = doc["kernels"]
    assert (k["before_name"], k["after_name"], k["matched_by"]) == (before, after, "hand")
    assert k["speedup"] == pytest.approx(raw[before][0] / raw[after][0], rel=1e-9)
    assert k["before"]["sol_memory_pct"] is not None


def test_two_reports_matched_by_name(capsys):
    pytest.importorskip("ncu_report")
    b = need(CORPUS_NCU / "AveryClapp__ESMM-Research__profile.ncu-rep")
    a = need(CORPUS_NCU / "AveryClapp__ESMM-Research__profile_output.ncu-rep")
    rb, ra = _raw_durations(b), _raw_durations(a)
    assert main(["compare", str(b), str(a), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    got = {k["before_name"]: k["speedup"] for k in doc["kernels"]}
    assert set(got) == {"one_blocktiling", "two_blocktiling", "vectorized_blocktiling", "warptiling"}
    for name, s in got.items():
        assert s == pytest.approx(rb[name][0] / ra[name][0], rel=1e-9)
    assert set(doc["unmatched_before"]) == {"basic", "gmem_coalesce", "smem_blocking", "one_d_vec", "one_warptiling", "ampere_sgemm_128x64_nn"}
    assert doc["total_before_s"] == pytest.approx(sum(sum(v) for v in rb.values()), rel=1e-9)


def test_naive_vs_tiled_pair_by_hand_and_ci_gate(capsys, tmp_path):
    pytest.importorskip("ncu_report")
    naive = need(CORPUS_NCU / "LakshyaSingh354__CudaCode__gemm_reps_naive.ncu-rep")
    tiled = need(CORPUS_NCU / "LakshyaSingh354__CudaCode__report.ncu-rep")
    rn, rt = _raw_durations(naive)["naive_gemm"], _raw_durations(tiled)["matmul_tiled"]
    assert main(["compare", str(naive), str(tiled), "--pair", "naive_gemm=matmul_tiled", "--format", "json",
                 "--fail-if-slower", "5%"]) == 0
    (k,) = json.loads(capsys.readouterr().out)["kernels"]
    median = sorted(rn)[0] / 2 + sorted(rn)[1] / 2
    assert k["speedup"] == pytest.approx(median / rt[0], rel=1e-9)
    assert k["before"]["spread_s"] == [pytest.approx(min(rn)), pytest.approx(max(rn))]
    assert k["beyond_noise"] is None  # one launch after: spread unknown
    # the other way round is a regression: exit 1, and the Markdown says so
    out = tmp_path / "cmp.md"
    assert main(["compare", str(tiled), str(naive), "--pair", "matmul_tiled=naive_gemm", "--format", "markdown",
                 "--fail-if-slower", "5", "-o", str(out)]) == 1
    text = out.read_text()
    assert "Regressions beyond 5%" in text and "matmul_tiled -> naive_gemm" in text


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--pair", "nothing=matmul_tiled"], "no kernel matches --pair (before) 'nothing'; kernels there: naive_gemm"),
        (["--pair", "no-equals"], "expected BEFORE=AFTER"),
        (["--fail-if-slower", "lots"], "expected a percentage"),
        (["--before-kernel", "x"], "give both or neither"),
    ],
)
def test_compare_bad_input(capsys, args, needle):
    pytest.importorskip("ncu_report")
    naive = need(CORPUS_NCU / "LakshyaSingh354__CudaCode__gemm_reps_naive.ncu-rep")
    tiled = need(CORPUS_NCU / "LakshyaSingh354__CudaCode__report.ncu-rep")
    assert main(["compare", str(naive), str(tiled), *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0]


def test_compare_example_one_file_table(capsys):
    from conftest import EXAMPLE

    assert main(["compare", str(EXAMPLE), "--before-kernel", "naive", "--after-kernel", "tiled", "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    assert "加速比 5.86×" in out  # 12.3 ms / 2.1 ms, the lesson's 5.8x
    assert "优化前" in out

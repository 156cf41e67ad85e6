"""``compare`` as a CI gate: the noise rule on every figure it tests, generated kernel names, unmatched time, profiler
steps, explicit pairs, and what a change resolved (cases N16 and N19 of ../shared/cases, corpus pairs)."""

from __future__ import annotations

import json

import pytest

from conftest import CASES, CORPUS_NCU, SHARED, need

SHARED_NSYS = SHARED / "corpus" / "nsys"
from kernelscope.analysis.compare import compare
from kernelscope.analysis.compare_program import ProgramSide, program_figure
from kernelscope.analysis.noise import significance, weighted_noise
from kernelscope.analysis.resolved import resolutions
from kernelscope.analysis.diagnosis import diagnose
from kernelscope.knowledge.names import generated_stem
from kernelscope.cli import main
from kernelscope.model import DeviceInfo, GpuSpec, KernelProfile, LaunchConfig
from kernelscope.render.compare import to_markdown, to_text

GPU = GpuSpec(name="t", dram_bandwidth_bytes_per_s=1e12, peak_flops_per_s={"fp32": 1e13})


def _d(name, duration_s, index=0, grid=(10, 1, 1), metrics=None):
    k = KernelProfile(index=index, name=name, demangled_name=name, device=DeviceInfo(display_name="t"),
                      launch=LaunchConfig(grid=grid, block=(256, 1, 1)), duration_s=duration_s,
                      metrics=metrics or {})
    return diagnose(k, GPU)


def _json(capsys, argv):
    code = main([*argv, "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


# ------------------------------------------------------------------------------------------------ the noise rule
def test_significance_by_hand():
    assert significance(0.05, 0.02, 0.03) == (0.05, False)  # within the larger noise
    assert significance(0.05, 0.02, -0.06) == (0.05, True)  # beyond it (faster or slower alike)
    assert significance(None, 0.02, 0.01) == (0.02, False)  # within the one side known: within the larger too
    assert significance(None, 0.02, 0.05) == (0.02, None)  # beyond the known one: the other may be larger
    assert significance(None, None, 0.5) == (None, None)


def test_weighted_noise_needs_half_the_time_known():
    # 3 ms at 10 % and 1 ms at 2 %: (0.3 + 0.02) / 4 = 8 %; an unknown kernel is left out of the mean ...
    assert weighted_noise([(0.10, 3.0), (0.02, 1.0)]) == pytest.approx(0.08)
    assert weighted_noise([(0.10, 3.0), (None, 1.0)]) == pytest.approx(0.10)
    # ... but a total mostly of single launches has no known noise
    assert weighted_noise([(0.10, 1.0), (None, 3.0)]) is None


def test_n16_aa_run_within_noise_passes_the_gate_on_every_figure(capsys):
    before, after = need(CASES / "N16_compare_aa_before.toml"), need(CASES / "N16_compare_aa_after.toml")
    argv = ["compare", str(before), str(after), "--fail-if-slower", "0.5%"]
    code, doc = _json(capsys, argv)
    assert code == 0 and doc["regressions"] == []
    (k,) = doc["kernels"]
    # the case's own numbers: means 7.603 / 7.657 µs, relative standard deviations 7.82 % / 7.86 %
    assert k["before"]["mean_s"] == pytest.approx(7.603e-6, rel=1e-3) and k["after"]["mean_s"] == pytest.approx(7.657e-6, rel=1e-3)
    assert k["before"]["noise"] == pytest.approx(0.0782, abs=5e-4) and k["after"]["noise"] == pytest.approx(0.0786, abs=5e-4)
    assert k["speedup"] == pytest.approx(7.603 / 7.657, rel=1e-3) and k["beyond_noise"] is False
    # the matched total is this one kernel: the same noise, the same verdict
    assert doc["noise"] == pytest.approx(k["noise"]) and doc["beyond_noise"] is False
    assert main(argv) == 0
    assert "Regressions beyond 0.5%: -" in " ".join(capsys.readouterr().out.split())


# --------------------------------------------------------------------------------------------- generated names
@pytest.mark.parametrize("name, generator, stem", [
    ("triton_red_fused__to_copy_native_layer_norm_16", "inductor", "triton_red_fused__to_copy_native_layer_norm"),
    ("triton_per_fused_softmax_2_3", "inductor", "triton_per_fused_softmax"),
    ("triton__0d1d2d3de", "triton", "triton_"),
    ("triton_poi_fused_add_0d1d2de", "triton", "triton_poi_fused_add"),
    ("loop_add_fusion_4", "xla", "loop_add_fusion"),
    ("fusion.12", "xla", "fusion"),
    ("wrapped_transpose_3", "xla", "wrapped_transpose"),
    ("triton_gemm_dot_5", "xla", "triton_gemm_dot"),
    ("cutlass_gemm_3f9a2c1b7e", "hash", "cutlass_gemm"),
])
def test_generated_suffixes(name, generator, stem):
    assert generated_stem(name) == (generator, stem)


@pytest.mark.parametrize("name", ["conv_1d", "reduce_kernel_256", "sgemm_128x128", "void k<4>(float *)",
                                  "ampere_sgemm_128x64_nn", "deadbeef_kernel"])
def test_names_no_generator_numbers(name):
    assert generated_stem(name) is None


def test_n19_renumbered_regressed_kernel_fails_the_gate(capsys):
    before, after = need(CASES / "N19_compare_inductor_before.toml"), need(CASES / "N19_compare_inductor_after.toml")
    code, doc = _json(capsys, ["compare", str(before), str(after), "--fail-if-slower", "5%"])
    assert code == 1
    ln = next(k for k in doc["kernels"] if k["before_name"].endswith("_16"))
    assert (ln["after_name"], ln["matched_by"], ln["generator"]) == (
        "triton_red_fused__to_copy_native_layer_norm_17", "generated", "inductor")
    # medians: (39.8..40.3 -> 40.05) vs (59.9..60.3 -> 60.10) µs from the case's four launches each
    assert ln["before"]["duration_s"] == pytest.approx(40.05e-6, rel=1e-3)
    assert ln["after"]["duration_s"] == pytest.approx(60.10e-6, rel=1e-3)
    assert ln["speedup"] == pytest.approx(40.05 / 60.10, rel=1e-3) and ln["beyond_noise"] is True
    assert doc["unmatched_before"] == [] and doc["unmatched_after"] == []
    assert "triton_red_fused__to_copy_native_layer_norm_17" in doc["regressions"] and "total" in doc["regressions"]
    assert doc["speedup"] == pytest.approx(240.4 / 320.6, rel=1e-3)
    code = main(["compare", str(before), str(after), "--fail-if-slower", "5%"])
    text = " ".join(capsys.readouterr().out.split())
    assert code == 1 and "paired by name up to the Inductor ordinal" in text


def test_generated_names_pair_by_shape_then_nearest_duration():
    before = [_d("triton_poi_fused_add_0", 10e-6), _d("triton_poi_fused_add_1", 30e-6, 1),
              _d("loop_add_fusion_4", 5e-6, 2), _d("triton_poi_fused_mul_2", 7e-6, 3, grid=(20, 1, 1))]
    after = [_d("triton_poi_fused_add_2", 31e-6), _d("triton_poi_fused_add_3", 11e-6, 1),
             _d("loop_add_fusion_7", 6e-6, 2), _d("triton_poi_fused_mul_5", 7e-6, 3, grid=(40, 1, 1))]
    c = compare(before, after)
    pairs = {(p.before_name, p.after_name): p.matched_by for p in c.pairs}
    assert pairs == {("triton_poi_fused_add_0", "triton_poi_fused_add_3"): "generated",
                     ("triton_poi_fused_add_1", "triton_poi_fused_add_2"): "generated",
                     ("loop_add_fusion_4", "loop_add_fusion_7"): "generated"}
    # another grid is other work: not paired, left unmatched
    assert c.unmatched_before == ("triton_poi_fused_mul_2",) and c.unmatched_after == ("triton_poi_fused_mul_5",)


# ------------------------------------------------------------------------------------------------ unmatched time
def test_unmatched_time_is_gated_and_named():
    before = [_d("A", 1e-3), _d("gone", 0.1e-3, 1)]
    after = [_d("A", 1e-3), _d("new", 0.5e-3, 1)]
    c = compare(before, after)
    # (0.5 - 0.1) ms of after-only growth over the BEFORE kernel time 1.1 ms = 36.4 %
    assert c.unmatched_growth == pytest.approx(0.4 / 1.1)
    assert c.regressions(0.05) == ("unmatched",) and c.regressions(0.40) == ()
    line = " ".join(to_text(c, "en", c.regressions(0.05), 5.0).split())
    assert "Regressions beyond 5%: after-only kernels (new): +36.4% of the BEFORE kernel time" in line
    assert "**Regressions beyond 5%: after-only kernels (new): +36.4% of the BEFORE kernel time**" in to_markdown(
        c, "en", c.regressions(0.05), 5.0)


# --------------------------------------------------------------------------------------------------- steps
def _program(wall_s, steps):
    return ProgramSide(path="p", format="kineto", wall_s=wall_s, kernel_s=wall_s, memcpy_s=0.0, memset_s=0.0,
                       gpu_idle_s=0.0, host_api_s=None, steps_s=tuple(steps))


def test_program_figure_per_step_not_per_wall():
    figure = program_figure((_program(33e-3, [11e-3] * 3), _program(50e-3, [10e-3] * 5)))
    assert (figure.basis, figure.steps_before, figure.steps_after) == ("steps", 3, 5)
    assert figure.speedup == pytest.approx(1.10)  # 11 ms vs 10 ms per step, not 33 / 50 = 0.66x
    assert figure.noise == 0.0 and figure.beyond_noise is True
    noisy = program_figure((_program(33e-3, [10e-3, 11e-3, 12e-3]), _program(33e-3, [11e-3, 11.5e-3, 10.5e-3])))
    # step noise: stdev 1 / mean 11 = 9.1 % vs 0.5 / 11 = 4.5 %; the median moved 11 -> 11 ms: within
    assert noisy.noise == pytest.approx(1 / 11) and noisy.beyond_noise is False
    assert program_figure((_program(33e-3, [11e-3] * 3), _program(50e-3, []))).basis == "none"
    wall = program_figure((_program(33e-3, []), _program(30e-3, [])))
    assert (wall.basis, wall.speedup) == ("wall", pytest.approx(1.1))


def _stepped_trace(path, steps, step_us, kernel_us):
    """A Kineto trace of ``steps`` ProfilerStep ranges of ``step_us`` each, one ``kernel_us`` kernel in each."""
    events = []
    for i in range(steps):
        t0 = 1000 + i * step_us
        events.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{i + 1}", "pid": 1, "tid": 1,
                       "ts": t0, "dur": step_us})
        events.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": t0 + 1, "dur": kernel_us,
                       "args": {"device": 0, "stream": 7, "grid": [1, 1, 1], "block": [32, 1, 1]}})
    path.write_text(json.dumps({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA A10G"}],
                                "traceEvents": events}))
    return path


def test_timelines_of_different_step_counts_compare_per_step(tmp_path, capsys):
    before = _stepped_trace(tmp_path / "before.json", 3, 11_000, 5_000)
    after = _stepped_trace(tmp_path / "after.json", 5, 10_000, 5_000)
    code, doc = _json(capsys, ["compare", str(before), str(after), "--fail-if-slower", "5%"])
    figure = doc["programs"]["figure"]
    assert (figure["basis"], figure["steps_before"], figure["steps_after"]) == ("steps", 3, 5)
    assert figure["speedup"] == pytest.approx(1.10) and "program" not in doc["regressions"]
    assert code == 0
    # the other way round: 10 -> 11 ms per step is 9.1 % slower, beyond a 5 % gate (steps without spread)
    code, doc = _json(capsys, ["compare", str(after), str(before), "--fail-if-slower", "5%"])
    assert code == 1 and doc["regressions"] == ["program"]
    assert main(["compare", str(before), str(after)]) == 0
    assert "Program per step (median of 3 -> 5 steps): 11.00 ms -> 10.00 ms; Speedup 1.10x" in " ".join(
        capsys.readouterr().out.split())


# ------------------------------------------------------------------------------------------------ explicit pair
def test_an_explicit_pair_is_just_that_pair(capsys):
    report = need(CORPUS_NCU / "AveryClapp__ESMM-Research__profile.ncu-rep")
    code, doc = _json(capsys, ["compare", str(report), str(report), "--before-kernel", "basic",
                               "--after-kernel", "warptiling", "--fail-if-slower", "5%"])
    assert code == 0 and doc["by_hand"] is True
    assert [(k["before_name"], k["after_name"], k["matched_by"]) for k in doc["kernels"]] == [
        ("basic", "warptiling", "hand")]
    assert doc["unmatched_before"] == [] and doc["unmatched_after"] == [] and doc["total_before_s"] == 0
    # the headline is the pair (10777.18 us -> 194.56 us in the corpus README), not "Matched kernels (9)"
    main(["compare", str(report), str(report), "--before-kernel", "basic", "--after-kernel", "warptiling"])
    out = capsys.readouterr().out
    assert out.lstrip().startswith("basic -> warptiling: Speedup 55.39x") and "Matched kernels" not in out


# -------------------------------------------------------------------------------------- what the change resolved
def test_resolution_statuses_by_hand():
    ld = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
    st = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
    wave = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
    inst = "smsp__sass_inst_executed_op_shared_ld.sum"

    def launch(conflicts):
        return _d("k", 1e-3, metrics={ld: conflicts, st: 0.0, wave: 1e6 + conflicts, inst: 1e6 / 4,
                                      "smsp__sass_inst_executed_op_shared_st.sum": 0.0,
                                      "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": 0.0})

    before = launch(3e6)
    assert any(f.id == "shared_bank_conflicts" for f in before.findings)
    for conflicts, status in ((0.0, "resolved"), (0.1e6, "resolved"), (1.5e6, "reduced"), (2.9e6, "unchanged"),
                              (3.2e6, "unchanged"), (4e6, "worse")):
        (r,) = [x for x in resolutions(before, launch(conflicts)) if x.finding_id == "shared_bank_conflicts"]
        assert (r.status, r.before_value, r.after_value) == (status, 3e6, conflicts)
    missing = _d("k", 1e-3, metrics={st: 0.0})
    (r,) = [x for x in resolutions(before, missing) if x.finding_id == "shared_bank_conflicts"]
    assert r.status == "not_measured" and r.after_value is None


def _pair(capsys, before, after, kb, ka):
    code, doc = _json(capsys, ["compare", str(need(CORPUS_NCU / before)), str(need(CORPUS_NCU / after)),
                               "--before-kernel", kb, "--after-kernel", ka])
    assert code == 0
    (k,) = doc["kernels"]
    return k, {r["finding_id"]: r for r in k["resolved"]}


def test_corpus_padding_resolves_the_shared_conflict(capsys):
    # corpus pair N6: tile[32][32] -> tile[32][33]; excess shared wavefronts 16.25 M -> 0 (README), measured 1.33x
    k, resolved = _pair(capsys, "Atopos0313__cuda_learning__reports_day08_before.ncu-rep",
                        "Atopos0313__cuda_learning__reports_day08_after.ncu-rep",
                        "transpose_tiled_kernel", "transpose_padded_kernel")
    r = resolved["uncoalesced_shared"]
    assert r["status"] == "resolved" and r["after_value"] == 0
    assert r["before_value"] == pytest.approx(17_301_504 - 1_048_576)  # wavefronts - ideal, the BEFORE report's
    assert r["estimated_speedup"] is not None and k["speedup"] == pytest.approx(373.95 / 280.16, rel=2e-3)


def test_corpus_coalescing_resolved_and_conflicts_left(capsys):
    feather = "InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_{}.ncu-rep"
    # N1: naive -> coalesced mapping: the excess global sectors go (L1 global-load sectors 8.86 G -> 1.34 G)
    _, resolved = _pair(capsys, feather.format("01_naive"), feather.format("02_coalesce_memory"),
                        "naive_matmul", "coalesce_matmul")
    assert resolved["uncoalesced_global"]["status"] == "resolved"
    # N4: vectorize -> warp tile: shared-load conflicts 33.6 M -> 0 (README)
    _, resolved = _pair(capsys, feather.format("07_vectorize"), feather.format("08_warp_tile"), "vectorize",
                        "warp_tile")
    r = resolved["shared_bank_conflicts"]
    assert r["status"] == "resolved" and r["after_value"] == 0 and r["before_value"] > 33e6


def test_resolved_lines_in_text(capsys):
    feather = "InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_{}.ncu-rep"
    argv = ["compare", str(need(CORPUS_NCU / feather.format("07_vectorize"))),
            str(need(CORPUS_NCU / feather.format("08_warp_tile"))), "--before-kernel", "vectorize",
            "--after-kernel", "warp_tile"]
    assert main(argv) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "What the change resolved (BEFORE findings, from their counters)" in text
    assert "shared-memory bank conflicts: resolved (" in text and "measured 0.85x" in text
    assert text.count("slower") == 1, text  # a slowdown is said once, in the matched kernels' line (review 8)
    assert main([*argv, "--lang", "zh"]) == 0
    zh = "".join(capsys.readouterr().out.split())
    assert "改动解决了什么" in zh and "已解决" in zh


# ----------------------------------------------------------------------------------------------- exits, datasets
def test_exit_2_when_nothing_can_be_compared(tmp_path, capsys):
    a = tmp_path / "a.toml"
    b = tmp_path / "b.toml"
    # several kernels a side, none in common (one kernel a side pairs: tests/test_compare_headline.py)
    a.write_text('[[kernel]]\nname = "x"\nduration_us = 1.0\n[[kernel]]\nname = "x2"\nduration_us = 1.0\n')
    b.write_text('[[kernel]]\nname = "y"\nduration_us = 1.0\n[[kernel]]\nname = "y2"\nduration_us = 1.0\n')
    for fmt in ("table", "json", "markdown"):
        assert main(["compare", str(a), str(b), "--fail-if-slower", "5", "--format", fmt]) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and len(captured.err.strip().splitlines()) == 1


def test_noise_of_a_summary_row_is_half_its_range():
    # a timeline's per-name row: mean 2 ms over launches ranging 1.5..2.5 ms -> noise <= 0.5 / 2 = 25 %
    k = KernelProfile(index=0, name="k", demangled_name="k", device=DeviceInfo(display_name="t"), launch=LaunchConfig(),
                      duration_s=2e-3, launch_count=10, duration_range_s=(1.5e-3, 2.5e-3))
    c = compare([diagnose(k, GPU)], [_d("k", 2.2e-3)])
    (p,) = c.pairs
    assert p.before.noise == pytest.approx(0.25) and p.after.noise is None
    assert (p.noise, p.beyond_noise) == (pytest.approx(0.25), False)  # 10 % slower, within BEFORE's 25 %


def test_datasets_pair_generated_names_and_follow_the_noise_rule():
    pa = pytest.importorskip("pyarrow", reason="the dataset extra (pyarrow) is not installed")
    from kernelscope.analysis.compare_datasets import compare_datasets

    def table(rows):
        return pa.table({"name": [r[0] for r in rows], "demangled_name": [None] * len(rows),
                         "grid": [[384, 1, 1]] * len(rows), "block": [[256, 1, 1]] * len(rows),
                         "duration_s": [r[1] for r in rows]})

    before = table([("triton_red_fused_layer_norm_16", t) for t in (40e-6, 40e-6, 41e-6, 39e-6)])
    after = table([("triton_red_fused_layer_norm_17", t) for t in (60e-6, 60e-6, 61e-6, 59e-6)])
    c = compare_datasets(before, after)
    (k,) = c.kernels
    assert (k.name, k.after_name) == ("triton_red_fused_layer_norm_16", "triton_red_fused_layer_norm_17")
    # noise: stdev of (40, 40, 41, 39) = 0.8165 / mean 40 = 2.04 %; the medians moved 40 -> 60: +50 %, beyond
    assert k.before.noise == pytest.approx(0.8165 / 40, rel=1e-3) and k.significance[1] is True
    assert c.regressions(0.05) == ("triton_red_fused_layer_norm_16 [grid 384x1x1 block 256x1x1]", "total")
    assert c.unmatched_before == () and c.unmatched_after == ()


def _kernel_trace(path, durations_us, name="k"):
    events, t = [], 1000
    for d in durations_us:
        events.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": t, "dur": d,
                       "args": {"device": 0, "stream": 7, "grid": [1, 1, 1], "block": [32, 1, 1]}})
        t += d + 5
    path.write_text(json.dumps({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA A10G"}],
                                "traceEvents": events}))
    return path


def test_timeline_rows_carry_their_standard_deviation(tmp_path, capsys):
    import statistics
    # nine launches of 100 µs and one of 300 µs: the half-range bound would be 100 / 120 = 83 %; the standard
    # deviation is 63.2 / 120 = 52.7 %
    base = [100] * 9 + [300]
    before = _kernel_trace(tmp_path / "b.json", base)
    after = _kernel_trace(tmp_path / "a.json", [d * 1.7 for d in base])
    code, doc = _json(capsys, ["compare", str(before), str(after), "--fail-if-slower", "5%"])
    (k,) = doc["kernels"]
    expected = statistics.stdev(base) / statistics.fmean(base)
    assert k["before"]["noise"] == pytest.approx(expected, rel=1e-6) and k["after"]["noise"] == pytest.approx(expected, rel=1e-6)
    # the mean per launch moved +70 %, beyond 52.7 %: the gate fails (the half-range bound would still be 83 %)
    assert k["beyond_noise"] is True and code == 1


def test_nsys_stats_rows_use_their_stddev(capsys):
    # the corpus file's cuda_gpu_kern_sum: index_elementwise_kernel, 11 instances, Avg 4,026.1 ns, StdDev 495.3 ns
    path = need(SHARED_NSYS / "ai4mat_nsys_stats_console_torch_gcn.txt")
    code, doc = _json(capsys, ["compare", str(path), str(path)])
    k = next(k for k in doc["kernels"] if "index_elementwise_kernel" in k["before_name"])
    assert k["before"]["launches"] == 11
    assert k["before"]["noise"] == pytest.approx(495.3 / 4026.1, rel=1e-3)
    assert (code, k["beyond_noise"]) == (0, False)

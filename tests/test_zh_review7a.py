"""Native review 7 of the Chinese output (issue 28), sections 1 (numbers) and 2 (templates): each test fails on
the code before the fix. The rules hold in both languages where English had the same fault."""

from __future__ import annotations

import re

import pytest

from conftest import CASES, SHARED, need
from kernelscope.render.common import Fmt
from test_zh_review6a import _md_rows, _out  # (the same helpers)

NCU = SHARED / "corpus" / "ncu"
TRACES = SHARED / "corpus" / "torch_traces"
NSYS = SHARED / "corpus" / "nsys"
ALEXNET = TRACES / "hta_alexnet_a100_rank0_trace.json.gz"
GCN = NSYS / "ai4mat_nsys_legacy_stats_console_paddle_gcn.txt"
FG = str(NCU / "InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048")
UNIT = re.compile(r"^(?:不到 |< )?\d+(?:\.(\d+))? (ns|µs|ms|s)$")


# ------------------------------------------------------------------ 1. numbers: sibling durations, one unit each row
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_small_sibling_takes_its_own_unit_not_three_decimals_of_the_shared_one(lang):
    f = Fmt(lang)
    assert f.times(1.957, 81.529e-3, 6e-6, 764.486e-3) == ["1.957 s", "81.53 ms", "6 µs", "764.5 ms"]  # not 0.006 ms
    assert f.times(55.5e-3, 3.469e-3, 1e-6, 34.78e-3) == ["55.50 ms", "3.469 ms", "1 µs", "34.78 ms"]  # not 0.001 ms


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_row_of_one_unit_keeps_one_precision_and_three_digits_of_the_smallest(lang):
    f = Fmt(lang)
    # review 11: units by magnitude, four significant digits each, no decimal below the source's resolution
    # (whole ns: "960 ns", never "960.0 ns"; never "0.973 µs" beside "29.18 µs")
    assert f.times(29.18e-6, 972.8e-9, 960e-9, 993e-9) == ["29.18 µs", "972.8 ns", "960 ns", "993 ns"]
    # never "2621 µs" (review 10), never "0.437 ms" beside "2.621 ms" (review 11)
    assert f.times(2.621e-3, 436.8e-6, 97e-6, 822e-6) == ["2.621 ms", "436.8 µs", "97 µs", "822 µs"]
    # whole-µs stamps keep the decimals they have (not "8.0 µs 2.0 µs 4.0 µs"); the mean its four digits, as alone
    assert f.times(8e-6, 2.6667e-6, 2e-6, 4e-6) == ["8 µs", "2.667 µs", "2 µs", "4 µs"]




@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("trace", [GCN, ALEXNET], ids=["nsys-stats", "kineto"])
def test_a_timeline_rows_total_shares_the_unit_and_precision_of_its_mean_min_max(capsys, lang, trace):
    need(trace)
    md = _out(capsys, "timeline", str(trace), "--format", "markdown", "--details", "--lang", lang)
    cols = ("总耗时", "平均", "最小", "最大") if lang == "zh" else ("Total time", "Mean", "Min", "Max")
    rows = [[c for c in r if c != "0"] for r in _md_rows(md, *cols)]  # (a zero: no precision of its own)
    rows = [r for r in rows if r and all(UNIT.match(c) for c in r)]
    assert len(rows) > 5
    one_unit = [r for r in rows if len({UNIT.match(c).group(2) for c in r}) == 1]
    assert len(one_unit) > 5
    # one unit: one precision (not "29.18 µs 0.973 µs", "559 µs 34.94 µs 9.00 µs"), but a whole-µs stamp keeps
    # the decimals its trace has (review 10: "958 µs 95.8 µs 44 µs", never "44.0 µs")
    us_decimals = {"s": 6, "ms": 3, "µs": 0}

    def stamp(c):  # (or a value at four significant digits, fewer decimals than a small one beside it needs)
        m = UNIT.match(c)
        return (len(m.group(1) or "") == us_decimals.get(m.group(2), -1) or
                len(c.split(" ")[-2].replace(".", "").lstrip("0")) == 4)
    assert [r for r in one_unit if len({len(UNIT.match(c).group(1) or "") for c in r if not stamp(c)}) > 1] == []
    assert [r for r in one_unit if any(stamp(c) for c in r) and
            min(len(UNIT.match(c).group(1) or "") for c in r) < min(
                (len(UNIT.match(c).group(1) or "") for c in r if not stamp(c)), default=0) - 1] == []
    # never three decimals of a unit to show a small value ("0.006 ms", "0.001 ms")
    assert not [c for r in rows for c in r if re.match(r"^0\.00\d ", c)]


# ------------------------------------------------------------------ 1. numbers: whole values without a fake ".0"
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_one_decimal_fields_of_a_sentence_drop_a_zero_decimal_together(lang):
    from kernelscope.knowledge.text import fill
    assert fill("{a:.1f} / {b:.1f} / {c:.1f}", {"a": 8.0, "b": 32.0, "c": 4}, lang) == "8 / 32 / 4"
    # review 11: a whole count drops its ".0" beside one that is not ("存储 32 个", never "32.0 个")
    assert fill("{a:.1f} / {b:.1f}", {"a": 32.0, "b": 16.7}, lang) == "32 / 16.7"


def test_diagnose_says_8_of_32_threads_not_8_point_0(capsys):
    path = NCU / (FG.rpartition("/")[2] + "_08_warp_tile.ncu-rep")
    need(path)
    out = _out(capsys, "diagnose", "--details", str(path), "--lang", "zh", "--format", "markdown")
    assert "8/32 个线程活跃" in out and "8.0/32" not in out


# ------------------------------------------------------------------ 2. templates: no "1.00x" gain
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_gain_that_prints_as_one_is_negligible(lang):
    f = Fmt(lang)
    assert f.estimate(1.004, "upper_bound") == f.label("est_negligible") == ("收益可忽略" if lang == "zh" else "negligible gain")
    assert f.estimate(1.8, "upper_bound").count("1.80") == 1 and "1.00" not in f.estimate(1.001, None)


@pytest.mark.parametrize("name", ["InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_08_warp_tile.ncu-rep",
                                  "Bias92__flashattn-cuda__docs_profiling_ncu_sections_db_full_after_n4096_full.ncu-rep"])
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_diagnose_never_states_a_one_times_gain(capsys, lang, name):
    need(NCU / name)
    out = _out(capsys, "diagnose", "--details", str(NCU / name), "--lang", lang, "--format", "markdown")
    assert not re.search(r"1\.00[x×]", out)  # "加速比 1.00×，节省 GPU 总时间的 0%", "其中最大的一项也仅 1.00×"
    assert "收益可忽略" in out if lang == "zh" else "negligible gain" in out


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_timeline_never_states_a_one_times_program_gain(capsys, lang):
    need(ALEXNET)
    md = _out(capsys, "timeline", str(ALEXNET), "--format", "markdown", "--lang", lang)
    assert not re.search(r"1\.00[x×]", md)  # "（Amdahl 整体加速比 1.00×）" on every chain, "| 1.00× | 1.00× | 1.00× |"
    word = Fmt(lang).label("nw_negligible")
    assert f"| {word} | {word} | {word} |" in md


# ------------------------------------------------------------------ 2. templates: a launch that cannot run
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_launch_that_cannot_run_says_why_with_the_numbers(capsys, lang):
    out = " ".join(_out(capsys, "occupancy", "--arch", "sm_86", "--regs", "128", "--threads", "1024", "--lang", lang).split())
    if lang == "zh":
        assert "无法启动：每 Block 需 131072 个寄存器，超出每 SM 的 65536 个" in out
        assert "每 SM 0 个 Block" not in out and "受限于无法启动" not in out
    else:
        assert "Cannot launch: a block needs 131072 registers, more than the 65536 of an SM" in out
        assert "0 blocks/SM" not in out
    doc = _out(capsys, "occupancy", "--arch", "sm_86", "--regs", "128", "--threads", "1024", "--lang", lang,
               "--format", "json")
    assert "131072" in doc and ("无法启动：" in doc if lang == "zh" else "Cannot launch:" in doc)


# ------------------------------------------------------------------ 2. templates: equal values, one launch
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_equal_times_say_no_change_once(capsys, lang):
    before, after = CASES / "N19_compare_inductor_before.toml", CASES / "N19_compare_inductor_after.toml"
    need(before)
    out = " ".join(_out(capsys, "compare", str(before), str(after), "--lang", lang, code=(0, 1)).split())
    assert ("无变化（20.05 µs）" if lang == "zh" else "no change (20.05 µs)") in out
    assert "20.05 µs → 20.05 µs" not in out and "20.05 µs -> 20.05 µs" not in out


# ------------------------------------------------------------------ 1. numbers: one ratio notation per sentence
def test_a_slowdown_sentence_uses_one_ratio_notation(capsys):
    before, after = CASES / "N19_compare_inductor_before.toml", CASES / "N19_compare_inductor_after.toml"
    need(before)
    out = re.sub(r"\n\s*", "", _out(capsys, "compare", str(before), str(after), "--lang", "zh", code=(0, 1)))
    assert "耗时为优化前的 1.50×" in out and not re.search(r"耗时为优化前的 [\d.]+ 倍", out)  # not "0.67×（…1.50 倍）"
    from kernelscope.knowledge.glossary import misused
    assert misused("加速比 0.84×（变慢，耗时为优化前的 1.19 倍）")  # the glossary forbids the mix


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_one_launch_a_side_has_no_total_and_mean_row(capsys, lang):
    before, after = NCU / (FG.rpartition("/")[2] + "_08_warp_tile.ncu-rep"), NCU / (FG.rpartition("/")[2] + "_09_double_buffering.ncu-rep")
    need(before)
    out = _out(capsys, "compare", str(before), str(after), "--pair", "warp_tile=double_buffering", "--lang", lang, code=(0, 1))
    assert "2.767 ms" in out and ("总耗时（平均值）" if lang == "zh" else "Total (mean)") not in out


# ------------------------------------------------------------------ 2. templates: a single sample
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_single_launch_latency_is_its_value_once(capsys, lang):
    trace = TRACES / "kineto_docs_before_fix_trace_h100.json"
    need(trace)
    out = " ".join(_out(capsys, "timeline", str(trace), "--lang", lang).split()).replace(" （", "（")  # a wrap before （
    assert ("20 ns（仅 1 次）" if lang == "zh" else "20 ns (one launch only)") in out
    assert "p95 20 ns" not in out  # not "中位数 20 ns，p95 20 ns，最大 20 ns" for one sample


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_chain_run_once_states_its_saving_once(capsys, lang):
    path = NCU / "yzwang2000__cudaCode__profile.ncu-rep"
    need(path)
    out = " ".join(_out(capsys, "fusion", "--kernels", "kernel_A,kernel_C", str(path), "--lang", lang).split())
    if lang == "zh":
        assert "仅 1 次，至多节省 584.5 ms" in out and "共 1 次" not in out and "每次至多节省" not in out
    else:
        assert "at most 584.5 ms saved in its one run" in out and "1 runs" not in out and "1 run," not in out


# ------------------------------------------------------------------ 1. numbers: other
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_cuda_versions_read_as_versions_and_large_factors_without_decimals(lang):
    f = Fmt(lang)
    text = f.made_by("kineto", "Kineto trace schema 1, CUPTI 28, CUDA runtime 12090, CUDA driver 13000")
    assert ("CUDA 运行时 12.9，CUDA 驱动 13.0" if lang == "zh" else "CUDA runtime 12.9, CUDA driver 13.0") in text
    assert f.factor(667.67) == ("668×" if lang == "zh" else "668x") and f.factor(9.874) in ("9.87×", "9.87x")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_an_occupancy_step_keeps_one_size_unit(capsys, lang):
    out = " ".join(_out(capsys, "occupancy", "--arch", "sm_90", "--regs", "32", "--threads", "256", "--smem", "48K",
                        "--lang", lang).split())
    arrow = "→" if lang == "zh" else "->"
    assert f"48 KiB {arrow} 44.5 KiB" in out and f"48 KiB {arrow} 45568 B" not in out


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_compare_prints_a_percentage_one_way_and_its_sentence_in_one_precision(capsys, lang):
    before, after = NCU / (FG.rpartition("/")[2] + "_08_warp_tile.ncu-rep"), NCU / (FG.rpartition("/")[2] + "_09_double_buffering.ncu-rep")
    need(before)
    out = " ".join(_out(capsys, "compare", str(before), str(after), "--pair", "warp_tile=double_buffering", "--lang", lang,
                        "--format", "markdown", code=(0, 1)).split())
    table = "计算 58.6%" if lang == "zh" else "compute 58.6%"
    sentence = "Speed-of-Light 计算从峰值的 58.6% 变为" if lang == "zh" else "SOL compute 58.6% ->"
    assert table in out and sentence in out  # not "59%" beside the table's 58.6%
    assert ("DRAM 带宽从规格峰值的 10.8% 变为 7.6%" if lang == "zh" else "DRAM bandwidth 10.8% -> 7.6%") in out  # not 11% -> 8% beside 32.1%
    assert "27.5 GB/s（规格峰值的 10.8%）" in out if lang == "zh" else "27.5 GB/s (10.8% of the spec's peak)" in out  # a rate: 3 digits


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_no_straggler_means_no_straggler_fixed_projection(capsys, lang):
    ranks = [TRACES / f"hta_trace_filter_sampled_rank-{i}.json.gz" for i in (0, 1)]
    need(ranks[0])
    word = Fmt(lang).label("tl_ar_p_balanced")
    out = _out(capsys, "timeline", "--as-ranks", *map(str, ranks), "--lang", lang, "--format", "markdown")
    assert word not in out  # "掉队 Rank 无" beside "消除掉队 1.01×"
    straggler = CASES / "N14_ranks_ddp_compute_straggler"
    need(straggler)
    assert word in _out(capsys, "timeline", "--as-ranks", str(straggler), "--lang", lang, "--format", "markdown")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_gpu_time_column_has_one_precision(capsys, lang):
    path = NCU / "Lashi0812__CudaProgramming__profiling_profiles_torchLinear.ncu-rep"
    need(path)
    out = _out(capsys, "diagnose", str(path), "--lang", lang)
    assert "3.744 µs" in out and "2.080 µs" in out  # not "3.744 µs" above "2.08 µs"

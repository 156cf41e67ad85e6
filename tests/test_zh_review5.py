"""Fourth native review, second round of kinds: one precision for values side by side, tiny and whole percentages,
Kineto's version words and the GPU table's empty cells in Chinese, precise MIO / straggler / divergence /
above-peak wordings, no label said twice, counts with their unit, one word for the launch overhead, the waves
gloss once, "按成链计" in table and help alike, and a compare side with nothing unmatched."""

from __future__ import annotations

import re

import pytest

from conftest import CASES, CORPUS_NCU, SHARED, flat, need
from kernelscope.cli import main
from kernelscope.knowledge.findings import findings
from kernelscope.knowledge.messages import help_texts
from kernelscope.knowledge.remedies import remedy
from kernelscope.knowledge.text import fill, labels
from kernelscope.render.common import Fmt

TRACES = SHARED / "corpus" / "torch_traces"
DAY08 = "Atopos0313__cuda_learning__reports_day08_{}.ncu-rep"
FA3 = "Bias92__flashattn-cuda__docs_profiling_ncu_sections_fa3_before_n4096_full.ncu-rep"


def _out(capsys, *args: str) -> str:
    assert main(list(args)) == 0
    return capsys.readouterr().out


# ---------------------------------------------------------------------------------------- 1. one precision
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_duration_keeps_four_digits_in_both_languages(lang):
    f = Fmt(lang)
    assert (f.time(374.02e-6), f.time(280.2e-6), f.time(651.04e-3)) == ("374.0 µs", "280.2 µs", "651.0 ms")
    # a whole-µs value keeps no decimal below one µs, but its real zeros above it (1000 µs is 1.000 ms); a pair
    # keeps one precision
    assert (f.time(9e-6), f.time(1e-3), f.time(580e-9), f.time(1.5e-3)) == ("9 µs", "1.000 ms", "580 ns", "1.500 ms")
    assert f.times(374.0e-6, 280.2e-6) == ["374.0 µs", "280.2 µs"] and f.times(2e-6, 3e-6) == ["2 µs", "3 µs"]
    assert f.times(2e-6, 2.5e-6, None) == ["2.000 µs", "2.500 µs", f.nm]  # 2.5 µs: whole ns, four digits
    assert f.words("k", {"read_mb": 12.66, "dram_mb": 12.7})["read_mb"] == "12.1 MiB"  # bytes as the tables: 3 digits, KiB/MiB


def test_before_and_after_print_alike(capsys):
    before, after = (need(CORPUS_NCU / DAY08.format(side)) for side in ("before", "after"))
    out = flat(_out(capsys, "compare", str(before), str(after), "--lang", "zh"))
    assert "374.0 µs → 280.2 µs" in out and "374 µs" not in out


def test_a_value_and_its_repeat_print_alike(capsys):
    """The roofline row says the DRAM bytes as the table does; the note about the writes repeats them alike."""
    out = flat(_out(capsys, "diagnose", str(need(CORPUS_NCU / FA3)), "--details", "--lang", "zh"))
    assert "12.07 MiB" not in out and out.count("12.1 MiB") >= 2


# ---------------------------------------------------------------------------------------- 2. percentages
@pytest.mark.parametrize("lang,below", [("en", "< 0.1%"), ("zh", "不到 0.1%")])
def test_a_tiny_share_is_not_zero_and_a_round_one_has_no_decimal(lang, below):
    f = Fmt(lang)
    assert f.share(0.0003) == below and f.share(0.0) == "0%" and f.share(0.0006) == "0.1%"
    assert (f.share(0.5), f.pct(50.0), f.pct(43.33), f.pct(None)) == ("50%", "50%", "43.3%", f.nm)
    assert fill("{a:.1f}% / {b:.1f}% / {c:.1%}", {"a": 50.0, "b": 50.04, "c": 0.5}, lang) == "50% / 50.0% / 50%"
    assert fill("{a:.1f}%", {"a": 0.03}, lang) == below and fill("{a:.0%}", {"a": 0.003}, lang) == below.replace("0.1", "1")


# ---------------------------------------------------------------------------------------- 3. English left in
def test_kineto_version_words_are_chinese():
    version = "Kineto trace schema 1, CUPTI 18, CUDA runtime 12000, CUDA driver 12000"
    zh = Fmt("zh").made_by("kineto", version)
    assert zh == "kineto，Kineto 跟踪格式版本 1，CUPTI 18，CUDA 运行时 12.0，CUDA 驱动 12.0"  # (review 7: 12000 is 12.0)
    assert Fmt("en").made_by("kineto", version).endswith("CUPTI 18, CUDA runtime 12.0, CUDA driver 12.0")


def test_the_gpu_table_has_no_ascii_dash_in_chinese(capsys):
    zh = _out(capsys, "gpus", "--lang", "zh")
    cells = [c for line in zh.splitlines() for c in re.split(r"\s{2,}", line.strip())]
    assert "-" not in cells and "无" in cells
    assert "-" in [c for line in _out(capsys, "gpus").splitlines() for c in re.split(r"\s{2,}", line.strip())]


# ---------------------------------------------------------------------------------------- 4. wordings
def test_the_straggler_says_its_own_time_and_share():
    text = labels().note["tl_straggler_rank"]
    assert "自身工作耗时 {own_s}，占其总时长 {wall_s} 的 {own_pct:.0f}%" in text.zh and "{own_pct:.0f}%" in text.en


def test_the_straggler_line_of_a_ddp_case(capsys):
    out = flat(_out(capsys, "timeline", str(need(CASES / "N14_ranks_ddp_compute_straggler")), "--lang", "zh"))
    m = re.search(r"掉队 Rank：\d+，自身工作耗时 [\d.]+ \w?s，占其总时长 [\d.]+ \w?s 的 \d+%", out)
    assert m is not None, out


def test_divergence_counts_threads_in_a_natural_order():
    assert "其中平均 {threads_pred:.1f} 个线程谓词为真" in labels().note["f_thread_divergence"].zh
    assert "其中平均 {threads_pred:.1f} 个线程谓词为真" in findings()["thread_divergence"].action_zh


def test_mio_throttle_names_the_queue_precisely():
    mio = findings()["mio_throttle"]
    assert "MIO（内存输入/输出）指令队列已满" in mio.action_zh and "{remedy}" in mio.action_zh
    # the MUFU clause is a remedy of its own, given where the launch does not rule special-function math out
    first = remedy(mio.remedies[0])
    assert "特殊函数（MUFU）" in first.text_zh and "special-function (MUFU)" in first.text_en
    assert "!no_mufu" in first.requires


def test_a_counter_above_its_peak_is_a_multiple_of_the_peak(capsys):
    report = need(CORPUS_NCU / "kilianhae__Attention.C__softmax_CUDA_naivesoftmax_ncu.ncu-rep")
    out = flat(_out(capsys, "diagnose", str(report), "--details", "--lang", "zh"))
    m = re.search(r"= ([\d.]+)%，即峰值的 ([\d.]+) 倍", out)
    assert m is not None and float(m.group(2)) == pytest.approx(float(m.group(1)) / 100, abs=0.005)
    assert "百分比超过" not in out


# ---------------------------------------------------------------------------------------- 5. labels said once
def test_no_occupancy_row_repeats_its_section_title():
    table = labels().label
    for lang in ("en", "zh"):
        title = table["occ_limits_title"].get(lang)
        rows = [table[f"occ_limit_{k}"].get(lang) for k in ("warps", "registers", "shared_mem", "blocks", "barriers")]
        assert not [r for r in rows if r in title or r.lower() in title.lower()], (lang, rows)


def test_total_and_mean_say_mean_once(capsys):
    before, after = (need(CORPUS_NCU / DAY08.format(side)) for side in ("before", "after"))
    out = _out(capsys, "compare", str(before), str(after), "--lang", "zh")
    assert not [line for line in out.splitlines() if "总耗时" in line]  # one launch a side (review 7): no total row
    before, after = need(CASES / "N19_compare_inductor_before.toml"), need(CASES / "N19_compare_inductor_after.toml")
    out = _out(capsys, "compare", str(before), str(after), "--lang", "zh")
    row = next(line for line in out.splitlines() if "总耗时" in line)
    assert row.count("平均") == 1, row


def test_resolved_counts_carry_their_unit(capsys):
    for finding_id, text in findings().items():
        if text.verify:
            key = f"resolved_{text.verify_unit}"
            assert key in labels().label and "{before}" in labels().label[key].zh, finding_id
    before, after = (need(CORPUS_NCU / DAY08.format(side)) for side in ("before", "after"))
    out = flat(_out(capsys, "compare", str(before), str(after), "--lang", "zh"))
    assert re.search(r"已解决（[\d.]+ 万 → 0 个 wavefront）", out), out


def test_one_word_for_the_launch_overhead():
    table = labels().label
    assert table["tl_launch_cost_line"].zh == table["tl_launch_cost"].zh == "启动开销"
    assert table["tl_launch"].zh == "启动延迟"  # the row of the API-call-to-kernel-start delays


# ---------------------------------------------------------------------------------------- 6. the waves gloss
def test_waves_are_glossed_once_per_kernel(capsys):
    out = _out(capsys, "diagnose", str(need(CORPUS_NCU / FA3)), "--details", "--lang", "zh", "--format", "markdown")
    assert out.count("轮（waves）") == 1 and "共 2.51 轮，" in out, out.count("轮（waves）")


# ---------------------------------------------------------------------------------------- 7. chains taken as such
def test_an_assumed_chain_reads_alike_in_table_and_help(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # the bytes cell on one line (at 80 columns it wraps in its column)
    out = _out(capsys, "fusion", str(need(TRACES / "hta_alexnet_a100_rank0_trace.json.gz")), "--lang", "zh")
    # (the table's bytes cell refers to the assumptions below it, which say how: review 11 item 18)
    assert "未记录，按“假设”行估算" in flat(out) and "按每个 Kernel 读取上一个的输出" in flat(out) and "成链" not in out
    assert any("按每个 Kernel 读取上一个的输出估算" in text for text in help_texts("zh").values())
    assert not any("成链" in text for text in help_texts("zh").values())


# ---------------------------------------------------------------------------------------- 8. a side with nothing
@pytest.mark.parametrize("lang,none,zero", [("zh", "仅优化后：无", "0 s（无）"), ("en", "after only: none", "0 s after")])
def test_a_side_without_unmatched_kernels_says_none(capsys, lang, none, zero):
    a, b = (need(TRACES / f"hta_trace_filter_sampled_rank-{i}.json.gz") for i in (0, 1))
    out = flat(_out(capsys, "compare", str(a), str(b), "--lang", lang))
    assert none in out and zero not in out


# ---------------------------------------------------------------------------------------- round 5: no "0%" residue
def test_nothing_saved_is_not_worded_as_zero_percent(capsys):
    """A finding that saves nothing after the ones above it states its 1.00x, not "节省 GPU 总时间的 0%"."""
    out = flat(_out(capsys, "diagnose", str(need(CORPUS_NCU / DAY08.format("before"))), "--lang", "zh", "-v"))
    assert "节省 GPU 总时间的" in out and "总时间的 0%" not in out


def test_a_line_lists_no_stall_without_share():
    from kernelscope.render.source_words import _stalls
    from types import SimpleNamespace as NS
    items = [NS(reason="short_scoreboard", share=0.9), NS(reason="wait", share=0.004), NS(reason="math", share=0.0)]
    text = _stalls(items, Fmt("zh"))
    assert "90%" in text and "不到 1%" in text and text.count("、") == 1


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_change_within_the_noise_is_not_called_slower(capsys, lang):
    """N16: 0.99x inside 7.9% run-to-run noise reads as no significant change, never "slower" / "变慢"."""
    before, after = (str(need(CASES / f"N16_compare_aa_{side}.toml")) for side in ("before", "after"))
    out = flat(_out(capsys, "compare", before, after, "--format", "markdown", "--lang", lang))
    assert ("变慢" not in out and "无显著变化" in out) if lang == "zh" else ("slower" not in out and "no significant change" in out)


def test_a_number_range_is_not_split_across_lines():
    from kernelscope.render.cjk import break_opportunities
    text = "线程 16～31：Bank 0"
    cuts = break_opportunities(text)
    assert not [i for i in cuts if text.index("16") < i <= text.index("31") + 1] and text.index("：") + 1 in cuts

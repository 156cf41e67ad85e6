"""Native review 10 of the numbers (issue 28 "numbers" items), each a KIND fixed in the shared formatters and
checked over real outputs of corpus / case inputs (skipped where ../shared is absent) and by unit tests: natural
units, at most four significant digits and no fake decimals, siblings in one unit and one precision, a zero a bare
``0``, integer work in OP. Each test fails on the code before the fix. The rules hold in both languages."""

from __future__ import annotations

import re

import pytest

from conftest import CASES, SHARED, need
from kernelscope.render.common import NCU_STAMP_S, Fmt, plain_number, si
from test_zh_review6a import _md_rows, _out

NCU = SHARED / "corpus" / "ncu"
TRACES = SHARED / "corpus" / "torch_traces"
ALEXNET = TRACES / "hta_alexnet_a100_rank0_trace.json.gz"
S8 = NCU / "panjd123__cutlass__report-s8.ncu-rep"
FA3 = NCU / "Bias92__flashattn-cuda__docs_profiling_ncu_sections_fa3_before_n4096_full.ncu-rep"
DB = NCU / "Bias92__flashattn-cuda__docs_profiling_ncu_sections_db_full_after_n4096_full.ncu-rep"
N14 = CASES / "N14_ranks_ddp_compute_straggler"
N22 = CASES / "N22_kineto_exposed_comm_two_streams.json"
#: A duration of four or more digits before the point: it has a natural unit above (2621 µs is 2.621 ms).
FOUR_DIGITS = re.compile(r"(?<![\d.])\d{4,}(?:\.\d+)? ?(?:µs|ns|ms)\b")
#: A duration with five or more significant digits (10.196 ms, 29.180 µs).
FIVE_FIGURES = re.compile(r"(?<![\d.])(?:[1-9]\d*\.\d+|0\.\d+) ?(?:s|ms|µs|ns)\b")


def _figures(text: str) -> int:
    return len(text.split(" ")[0].replace(".", "").lstrip("0"))


# ------------------------------------------------------------------------------------------- 1. natural units
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_duration_reads_in_its_natural_unit(lang):
    f = Fmt(lang)
    assert f.time(2.621e-3) == "2.621 ms" and f.time(302e-6) == "302 µs"
    # a row: units by magnitude, each value its own natural unit (review 11: never "0.437 ms" beside "2.621 ms")
    assert f.times(2.621e-3, 436.8e-6, 97e-6, 822e-6) == ["2.621 ms", "436.8 µs", "97 µs", "822 µs"]
    assert f.times(327e-6, 4.526e-3) == ["327 µs", "4.526 ms"]
    assert f.times(1.957, 6e-6) == ["1.957 s", "6 µs"]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_no_kineto_timeline_prints_a_duration_in_four_digits(capsys, lang):
    need(ALEXNET)
    out = _out(capsys, "timeline", "--details", str(ALEXNET), "--lang", lang)
    assert FOUR_DIGITS.findall(out) == []
    assert "2.621 ms" in out and "1.538 ms" in out  # was "2621 µs", "1538 µs"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_copy_rate_reads_in_its_natural_unit(capsys, lang):
    trace = TRACES / "hta_trace_filter_sampled_rank-0.json.gz"
    need(trace)
    out = _out(capsys, "timeline", "--details", str(trace), "--lang", lang)
    assert not re.search(r"(?<![\d.])0\.\d+ GB/s", out), re.findall(r"0\.\d+ GB/s", out)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_launch_change_of_shared_memory_reads_in_kib(lang):
    from kernelscope.render.compare_introduced import _launch_value
    f = Fmt(lang)
    assert _launch_value("shared_mem_static_bytes", 4224, f) == "4.125 KiB"  # was "4224 B" beside "4 KiB"
    assert _launch_value("shared_mem_static_bytes", 4096, f) == "4 KiB"
    assert _launch_value("shared_mem_static_bytes", 512, f) == "512 B"


def test_a_byte_spread_is_in_binary_units():
    from kernelscope.analysis.groups import Spread
    from kernelscope.render.launch_groups import spread_values
    text = spread_values("dram_bytes", Spread(1.5 * 2 ** 20, 2 * 2 ** 20, 2.5 * 2 ** 20, 3), Fmt("en"))
    assert text == "1.50 / 2.00 / 2.50 MiB"  # never "1.57 / 2.10 / 2.62 MB"


# -------------------------------------------------------------- 2. at most four significant digits, no fake zeros
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_at_most_four_significant_digits(lang):
    f = Fmt(lang)
    assert f.times(0.293e-3, 10.196e-3) == ["293 µs", "10.20 ms"]  # not "10.196 ms"
    assert f.times(22.571e-3, 0.4512e-3, 0.349e-3) == ["22.57 ms", "451.2 µs", "349 µs"]  # not "22.571 ms"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_whole_microsecond_stamps_print_without_fake_decimals(lang):
    f = Fmt(lang)
    # (a mean at four significant digits, as it reads alone: review 11, one value one text)
    assert f.times(8e-6, 8e-6 / 3, 2e-6, 4e-6) == ["8 µs", "2.667 µs", "2 µs", "4 µs"]  # not "8.0 µs 2.0 µs"
    assert f.times(958e-6, 95.83e-6, 44e-6, 187e-6) == ["958 µs", "95.83 µs", "44 µs", "187 µs"]
    assert f.time(5e-6) == "5 µs" and f.time(15e-6) == "15 µs"
    # ns-resolved values (Nsight) keep the precision they have
    assert f.times(29.18e-6, 972.8e-9, 960e-9) == ["29.18 µs", "972.8 ns", "960 ns"]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_kineto_rankings_have_no_fake_zero_decimals(capsys, lang):
    need(ALEXNET)
    md = _out(capsys, "timeline", "--details", str(ALEXNET), "--format", "markdown", "--lang", lang)
    cols = ("平均", "最小", "最大") if lang == "zh" else ("Mean", "Min", "Max")
    cells = [c for r in _md_rows(md, *cols) for c in r]
    assert len(cells) > 30
    assert [c for c in cells if re.fullmatch(r"\d+\.0+ µs", c)] == []  # whole µs: "44 µs", never "44.0 µs"
    assert [c for c in cells if FIVE_FIGURES.fullmatch(c) and _figures(c) > 4] == []


# ------------------------------------------------------------------------ 3. siblings: one unit, one precision
def test_a_percentage_column_shares_one_precision():
    from kernelscope.render.numbers import percent_column, percent_columns
    assert percent_column(["50%", "33.3%", "不到 0.1%", "-"]) == ["50.0%", "33.3%", "不到 0.1%", "-"]
    assert percent_column(["+0%", "+123.4%（掉队）"]) == ["+0.0%", "+123.4%（掉队）"]
    assert percent_column(["30%", "20%"]) == ["30%", "20%"]  # all whole: no decimals to share
    assert percent_columns([["a", "0%"], ["b", "28.6%"]]) == [["a", "0.0%"], ["b", "28.6%"]]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_percentages_before_and_after_share_one_precision(lang):
    f = Fmt(lang)
    assert f.pcts(50.0, 41.7) == ["50.0%", "41.7%"] and f.pcts(50.0, 41.0) == ["50%", "41%"]
    assert f.pcts(None, 41.7) == [f.nm, "41.7%"]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_ranks_table_vs_median_column_in_one_precision(capsys, lang):
    need(N14)
    out = _out(capsys, "timeline", str(N14), "--as-ranks", "--lang", lang, "--format", "markdown")
    col = "自身工作相对中位数" if lang == "zh" else "Own work vs median"
    cells = [r[0] for r in _md_rows(out, col)]
    assert "+0.0%" in cells and "+0%" not in cells


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_compare_launch_change_occupancy_in_one_precision(capsys, lang):
    need(FA3)
    need(DB)
    out = _out(capsys, "compare", str(FA3), str(DB), "--lang", lang, code=(0, 1))
    arrow = "→" if lang == "zh" else "->"
    assert f"50.0% {arrow} 41.7%" in out.replace("\n", "") and f"50% {arrow} 41.7%" not in out.replace("\n", "")


# ----------------------------------------------------------------------------------------------- 4. zero
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_zero_duration_is_a_bare_zero(capsys, lang):
    f = Fmt(lang)
    assert f.time(0) == "0" and f.times(0, 1e-3) == ["0", "1.000 ms"]  # 1000 µs: its zeros are real
    need(N22)
    out = _out(capsys, "timeline", str(N22), "--lang", lang)
    assert not re.search(r"(?<![\d.])0(?:\.0+)? ?(?:s|ms|µs|ns)\b", out)


def test_a_bound_chain_with_nothing_to_save_says_so():
    from kernelscope.knowledge.text import labels
    entry = labels().note["fu_summary_bound_none"]
    assert "0 s" not in entry.get("zh") and "没有可节省" in entry.get("zh") and "nothing to save" in entry.get("en")


# ------------------------------------------------------------------------------------- 5. integer work: OP
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_int8_work_is_counted_in_op(capsys, lang):
    need(S8)
    out = _out(capsys, "diagnose", str(S8), "--lang", lang)
    note = next(line for line in out.splitlines() if "466 TOP/s" in line)  # the INT8 pipe-estimate note (its peak in three digits, as every rate)
    assert "TOP/s" in note and "TFLOP/s" not in note and "FLOPs" not in note
    roof = _out(capsys, "roofline", "--format", "table", str(S8), "--lang", lang)
    assert re.search(r"\b364 OP/B", roof) and re.search(r"\b127 FLOP/B", roof)  # each point in its kind


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_roofline_vs_sol_says_op_per_byte_for_integer_work(lang):
    from kernelscope.notes import Note
    f = Fmt(lang)
    values = {"roofline": "compute-bound", "ai": 127.0, "ridge": 7.61, "sol": "memory-bound"}
    assert "OP/B" in f.note(Note("roofline_vs_sol", {**values, "pipe": "int8_tensor"}))
    assert "FLOP/B" not in f.note(Note("roofline_vs_sol", {**values, "pipe": "int8_tensor"}))
    assert "FLOP/B" in f.note(Note("roofline_vs_sol", {**values, "pipe": "fp32"}))


def test_a_launch_groups_rate_of_integer_work_is_in_op_per_second():
    from kernelscope.analysis.groups import Spread
    from kernelscope.render.launch_groups import metric_name, spread_values
    f = Fmt("en")
    s = Spread(1.0e13, 1.2e13, 1.3e13, 3)
    assert spread_values("achieved_flops_per_s", s, f, "int8_tensor").endswith("TOP/s")
    assert spread_values("achieved_flops_per_s", s, f, "fp16_tensor").endswith("TFLOP/s")
    assert spread_values("arithmetic_intensity_flop_per_byte", Spread(3.0, 4.0, 5.0, 3), f, "int8_tensor").endswith(
        " OP/B")
    assert "OP/s" in metric_name("achieved_flops_per_s", f, "int8_tensor")
    assert "FLOP" not in metric_name("achieved_flops_per_s", Fmt("zh"), "int8_tensor")


# ------------------------------------------------------------- 5. trailing zeros kept, down to the source's resolution
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_trailing_zeros_are_kept_down_to_the_sources_resolution(lang):
    f = Fmt(lang)
    # whole-µs (Kineto) values: four significant digits with their real zeros (5400 µs is 5.400 ms) ...
    assert f.time(5.4e-3) == "5.400 ms" and f.time(1.24e-3) == "1.240 ms" and f.time(9.45e-3) == "9.450 ms"
    assert f.times(50e-3, 83e-3, 283e-3) == ["50.00 ms", "83.00 ms", "283.0 ms"]  # each its four digits
    # ... but never a decimal below one µs (8 µs, never 8.0 µs; 958 µs, never 958.0 µs)
    assert f.time(8e-6) == "8 µs" and f.time(958e-6) == "958 µs"
    # whole-ns values: their zeros are real too (90.40 µs beside 89.02 µs, 2.080 µs beside 3.744 µs)
    assert f.time(90.4e-6) == "90.40 µs" and f.time(2.08e-6) == "2.080 µs"
    # a kernel report's durations are whole ns: 152 000 ns is 152.0 µs, never 152 µs beside 153.2 µs
    assert Fmt(lang, NCU_STAMP_S).time(152e-6) == "152.0 µs" and Fmt(lang, NCU_STAMP_S).time(8e-6) == "8.000 µs"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_duration_a_table_printed_reads_the_same_elsewhere(lang):
    f = Fmt(lang, NCU_STAMP_S)
    seconds = (149.24e-6, 99.14e-6, 89.02e-6)
    column = f.times(*seconds)
    f.pin(seconds, column)
    assert column == [f.time(s) for s in seconds]  # in a column as alone: one value, one text (review 11)
    assert column[1] == "99.14 µs" and Fmt(lang, NCU_STAMP_S).time(99.14e-6) == "99.14 µs"
    f.pin((99.14e-6,), ("~99 µs",))  # a column's own wording of a value (a clock tick's "< 1 µs") is kept elsewhere
    assert f.time(99.14e-6) == "~99 µs"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_ranks_table_keeps_its_zeros(capsys, lang):
    trace = TRACES / "param_dlrm_kineto_8rank_v100.tar.gz"
    need(trace)
    out = _out(capsys, "timeline", str(trace), "--as-ranks", "--lang", lang, "--format", "markdown")
    for text in ("5.400 ms", "1.240 ms", "9.450 ms", "1.580 ms"):  # never 5.4 ms among 10.93 ms
        assert text in out
    assert not re.search(r"(?<![\d.])\d\.\d{1,2} ms", out)  # no duration below 10 ms with fewer than 4 digits


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("report, table", [
    ("Lashi0812__CudaProgramming__profiling_profiles_smemReduceInteger.ncu-rep", "99.14 µs"),
    ("Lashi0812__CudaProgramming__profiling_profiles_torchLinear.ncu-rep", "2.080 µs"),
    ("AlpriElse__cs599k__silu_triton_silu-2025-04-18-v8.ncu-rep", "142.6 µs")])
def test_a_kernels_panel_duration_reads_as_its_table_row(capsys, lang, report, table):
    need(NCU / report)
    out = _out(capsys, "diagnose", str(NCU / report), "--lang", lang)
    label = "耗时" if lang == "zh" else "Duration"
    rows = re.compile(rf"^\s*{label}\s+(\S+ (?:µs|ms|ns|s))\s*$", re.M)
    panel = rows.findall(out)
    assert table in out[:rows.search(out).start()] and table in panel
    assert "152 µs" not in panel  # a whole-ns 152 000 ns: 152.0 µs


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_rates_and_intensities_keep_their_trailing_zeros(lang):
    f = Fmt(lang)
    # one column of peaks: 67.0 TFLOP/s beside 1.98 PFLOP/s, never 67 TFLOP/s; 4.00 TB/s, never 4 TB/s
    assert (f.flops(67e12), f.flops(1.979e15), f.flops(989e12)) == ("67.0 TFLOP/s", "1.98 PFLOP/s", "989 TFLOP/s")
    assert si(4e12, "B/s") == "4.00 TB/s" and si(1979e12, "FLOP/s") == "1.98 PFLOP/s"
    assert f.intensity(8.5) == "8.50 FLOP/B" and f.intensity(2) == "2.00 FLOP/B" and f.intensity(16.75) == "16.8 FLOP/B"
    assert plain_number(2050) == "2050" and plain_number(125) == "125"  # no exponent, no trailing point


def test_the_roofline_ceiling_table_reads_in_one_precision(capsys):
    report = NCU / "AlpriElse__cs599k__silu_triton_silu-2025-04-18-v8.ncu-rep"
    need(report)
    out = _out(capsys, "roofline", str(report), "--format", "markdown", "--lang", "zh")
    for text in ("67.0 TFLOP/s", "34.0 TFLOP/s", "4.00 TB/s", "8.50 FLOP/B"):
        assert text in out
    assert not re.search(r"(?<![\d.])\d{1,2} (?:[TPG])?(?:FLOP/s|B/s|FLOP/B)", out)  # never 67 TFLOP/s


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_compare_sentence_reads_its_percentages_as_the_table(capsys, lang):
    before, after = (NCU / f"EricccYang__cuda_operators__reduce_reduce_v{n}.ncu-rep" for n in (1, 3))
    need(before)
    out = _out(capsys, "compare", str(before), str(after), "--lang", lang)
    # the table's "31.4% -> 50.8%", never "31% 变为 51%" beside "66.6% 变为 47.4%" in one sentence
    if lang == "zh":  # (a line may wrap inside the sentence)
        assert "访存吞吐从峰值的31.4%变为50.8%" in "".join(out.split())
    else:
        assert "memory throughput 31.4% -> 50.8% of peak" in " ".join(out.split())


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_achieved_and_theoretical_occupancy_share_one_precision(lang):
    f = Fmt(lang)
    text = f.occupancy(25.3, 50)
    assert "25.3%" in text and "50.0%" in text and "50%" not in text.replace("50.0%", "")  # never 理论 50%
    assert "25%" in f.occupancy(25.0, 50) and "50%" in f.occupancy(25.0, 50)  # both whole: no fake decimals

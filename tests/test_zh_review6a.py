"""Issue 28, native review 6 (first part): numbers and wording of ``--lang zh``. One unit and one precision for
sibling durations (the largest picks the unit), exact durations without fake decimals, one value in one form
within a report, one precision for sibling counts and factors, ranges rounded as a reader rounds, the wording
fixes the glossary now forbids, and the straggler line's median the figure the ranks table prints."""

from __future__ import annotations

import re

import pytest

from conftest import CASES, SHARED, need
from kernelscope.cli import main
from kernelscope.knowledge.glossary import misused
from kernelscope.knowledge.text import half_up, label
from kernelscope.render.common import Fmt

TRACES = SHARED / "corpus" / "torch_traces"
ALEXNET = TRACES / "hta_alexnet_a100_rank0_trace.json.gz"
DURATION = re.compile(r"^(?:不到 |< )?\d+(?:\.\d+)? (ns|µs|ms|s)$")


def _out(capsys, *args: str, code: tuple[int, ...] = (0,)) -> str:
    assert main(list(args)) in code
    return capsys.readouterr().out


def _md_rows(text: str, *columns: str) -> list[list[str]]:
    """The cells under ``columns`` of every Markdown table whose header holds them all, one list per row."""
    out, index = [], None
    for line in text.splitlines():
        if not line.startswith("|"):
            index = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if index is None:
            index = [cells.index(c) for c in columns] if all(c in cells for c in columns) else []
        elif index and not set(line) <= set("|-: "):
            out.append([cells[i] for i in index])
    return out


# ------------------------------------------------------------------------ 1. one unit per row of sibling durations
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_sibling_durations_take_the_unit_of_the_largest(lang):
    f = Fmt(lang)
    # units by magnitude (review 11): 933 ns in ns, whole ns (never "933.0 ns", never "0.933 µs" beside µs)
    assert f.times(5.013e-6, 933e-9, 8.526e-6) == ["5.013 µs", "933 ns", "8.526 µs"]
    assert f.times(3.46875e-3, 1e-6, 34.78e-3) == ["3.469 ms", "1 µs", "34.78 ms"]  # review 7: not "0.001 ms"
    # a value the shared unit would round to fewer than three significant digits (or to nothing): each value in
    # its own unit, never "0.000 s" nor "0.001 ms" for 1.4 µs
    assert f.times(0.4369, 2e-6, 6.009) == ["436.9 ms", "2 µs", "6.009 s"]
    assert f.times(3.469e-3, 1.4e-6, 34.78e-3) == ["3.469 ms", "1.400 µs", "34.78 ms"]  # whole ns: zeros kept
    assert f.times(999.96e-6) == ["1.000 ms"] and f.times(0, None) == ["0", f.nm]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_timeline_tables_mean_min_and_max_share_one_unit(capsys, lang):
    need(ALEXNET)
    md = _out(capsys, "timeline", str(ALEXNET), "--format", "markdown", "--details", "--lang", lang)
    cols = ("平均", "最小", "最大") if lang == "zh" else ("Mean", "Min", "Max")
    rows = [[c for c in r if c != "0"] for r in _md_rows(md, *cols)]
    rows = [r for r in rows if r and all(DURATION.match(c) for c in r)]
    assert len(rows) > 10
    scale = {"s": 1.0, "ms": 1e-3, "µs": 1e-6, "ns": 1e-9}

    def seconds(c):
        return float(c.split(" ")[-2]) * scale[DURATION.match(c).group(1)]

    def spread(r):  # more than two orders of magnitude: the shared natural unit would read "0.00x"
        return max(map(seconds, r)) > 100 * min(map(seconds, r))
    mixed = [r for r in rows if len({DURATION.match(c).group(1) for c in r}) > 1]
    assert [r for r in mixed if not spread(r)] == []
    us_decimals = {"s": 6, "ms": 3, "µs": 0}

    def stamp(c):  # a whole-µs stamp keeps the decimals its trace has (review 10: "44 µs", never "44.0 µs")
        return (len(c.split(" ")[-2].partition(".")[2]) == us_decimals.get(DURATION.match(c).group(1), -1) or
                len(c.split(" ")[-2].replace(".", "").lstrip("0")) == 4)  # (four digits at most: 86.84 ms)
    decimals = [r for r in rows if r not in mixed and
                len({len(c.split(" ")[-2].partition(".")[2]) for c in r if not stamp(c)}) > 1]
    assert decimals == []  # one precision too


# ----------------------------------------------------------------------- 2. exact durations without fake decimals
def test_an_exact_duration_in_a_sentence_drops_its_zero_decimals(capsys):
    f = Fmt("zh")
    words = f.words("tl_host_gaps", {"limit_s": 1e-3, "time_s": 12.8543, "largest_s": 10.0321})
    assert (words["limit_s"], words["time_s"], words["largest_s"]) == ("1 ms", "12.85 s", "10.03 s")  # not 1.000 ms
    assert f.time(5e-6) == "5 µs" and f.time(5.0000004e-6) == "5 µs"  # whole µs (Kineto), float noise aside
    need(ALEXNET)
    out = _out(capsys, "timeline", str(ALEXNET), "--details", "--lang", "zh")
    assert "超过 1 ms" in out and "1.000 ms" not in out and "500.0 ms" not in out


# ------------------------------------------------------------------------------ 3. one value, one form in a report
def test_a_threshold_reads_the_same_in_the_check_and_the_note():
    f = Fmt("zh")
    words = f.words("tl_graph_saving", {"n": 10, "replay_s": 12.345e-6, "loop_s": 34.567e-6, "saving_s": 22.222e-6,
                                        "fixed_s": 15e-6, "per_node_s": 580e-9, "even": 3, "source": "x"})
    assert (words["fixed_s"], words["per_node_s"]) == ("15 µs", "580 ns")  # as the 说明 says, not "15.00 µs"
    assert (words["replay_s"], words["loop_s"]) == ("12.35 µs", "34.57 µs")  # a before/after pair: together


def test_the_exposed_communication_reads_as_its_table(capsys):
    path = need(CASES / "N22_kineto_exposed_comm_two_streams.json")
    out = _out(capsys, "timeline", str(path), "--lang", "zh")
    assert "共 60.00 ms" in out and "60.0 ms" not in out and "共 60 ms" not in out  # 4 digits, as the table


# -------------------------------------------------------------------- 4. sibling counts and factors: one precision
@pytest.mark.parametrize("lang, unit", [("zh", "万"), ("en", "k")])
def test_sibling_counts_share_one_precision(lang, unit):
    f = Fmt(lang)
    scale = 1e4 if lang == "zh" else 1e3
    assert f.counts(14 * scale, 15.1 * scale) == [f"14.0 {unit}", f"15.1 {unit}"]  # not "14" beside "15.1"
    assert f.count(14 * scale) == f"14 {unit}"  # alone and exact: no zero decimals


def test_source_table_count_columns_share_one_precision(capsys):
    """One precision per count column: the whole number in every row (native review 13: raw integers in tables,
    万 only in prose; it was "13.1 万" in one precision, "1.52 万" above "9939" in another column)."""
    path = need(SHARED / "corpus" / "ncu" / "Bias92__flashattn-cuda__docs_profiling_ncu_sections_db_full_after_n4096_full.ncu-rep")
    md = _out(capsys, "source", str(path), "--format", "markdown", "--lang", "zh")
    cells = [r[0] for r in _md_rows(md, "执行次数") if r[0] != "-"]
    assert cells and all(c.isdigit() for c in cells), cells


def test_slowdown_factors_share_one_precision(capsys):
    before, after = need(CASES / "N19_compare_inductor_before.toml"), need(CASES / "N19_compare_inductor_after.toml")
    out = re.sub(r"\n\s*", "", _out(capsys, "compare", str(before), str(after), "--lang", "zh", code=(0, 1)))
    factors = re.findall(r"耗时为优化前的 (\d+(?:\.\d+)?)×", out)
    assert factors and {len(x.partition(".")[2]) for x in factors} == {2}, factors  # "1.50 倍" beside "1.33 倍"


# --------------------------------------------------------------------------------- 5. ranges rounded as read
def test_a_tie_rounds_up_in_every_percentage():
    assert (half_up(6.25, 1), half_up(18.75, 1), half_up(0.125, 2)) == ("6.3", "18.8", "0.13")
    assert (f"{6.25:.1f}", f"{18.75:.1f}") == ("6.2", "18.8")  # what format did: ties to even, two ways
    assert Fmt("zh").pct(6.25) == "6.3%" and Fmt("en").share(0.3125) == "31.3%"


def test_occupancy_ranges_round_both_ends_alike(capsys):
    out = _out(capsys, "occupancy", "--arch", "sm_90", "--regs", "32", "--threads", "64", "--lang", "zh")
    assert "6.3%" in out and "31.3%" in out and "56.3%" in out
    assert not re.search(r"\b(6|31|56)\.2%", out)
    for low, high in re.findall(r"(\d+(?:\.\d+)?)%～(\d+(?:\.\d+)?)%", out):
        assert len(low.partition(".")[2]) == len(high.partition(".")[2]), (low, high)


# --------------------------------------------------------------------------------------------------- 6. wording
@pytest.mark.parametrize("old, new", [
    ("不受启动开销限制", "并非启动开销受限"),
    ("全局访存访问", "全局内存访问"),
    ("Not Selected（已就绪未被调度）", "Not Selected（已就绪但未被选中）"),
    ("为何为一次性", "原因"),
    ("背靠背运行的访存受限 Kernel", "紧邻运行的访存受限 Kernel"),
])
def test_the_glossary_forbids_what_review_6_saw(old, new):
    assert misused(old), old
    assert not misused(new), misused(new)


def test_the_data_say_the_new_words():
    f = Fmt("zh")
    assert (label("tl_launch_bound_yes", "zh"), label("tl_launch_bound_no", "zh")) == ("启动开销受限", "并非启动开销受限")
    assert f.bound("launch-bound") == "启动开销受限"
    assert f.stall_name("not_selected") == "Not Selected（已就绪但未被选中）"
    assert label("tl_one_off_why", "zh") == "原因"
    assert "紧邻运行" in label("fu_title", "zh") and "紧邻运行" in label("fu_none", "zh")


def test_a_timeline_says_launch_bound_the_native_way(capsys):
    path = need(CASES / "N20_kineto_queued_launches.json")
    out = _out(capsys, "timeline", str(path), "--lang", "zh")
    assert "并非启动开销受限" in out and "受启动开销限制" not in out


# -------------------------------------------------------------------------------- 7. the straggler line's median
def test_the_straggler_line_states_the_median_the_table_prints(capsys):
    path = need(CASES / "N14_ranks_ddp_compute_straggler")
    out = _out(capsys, "timeline", str(path), "--as-ranks", "--lang", "zh", "--format", "markdown")
    line = re.search(r"掉队 Rank（比中位数高出 10% 以上）\*\*：1（自身工作中位数 (\S+ m?s)）", out)
    assert line, out[:800]
    cells = {r[0] for r in _md_rows(out, "自身工作（时长减等待）", "自身工作相对中位数") if r[1] == "+0.0%"}  # (one precision in the column: +0.0% beside +123.4%)
    assert cells == {line.group(1)}  # the median ranks' own work, as the table prints it
    table = _out(capsys, "timeline", str(path), "--as-ranks", "--lang", "zh")
    assert f"1（自身工作中位数 {line.group(1)}）" in table

"""Seventh native review (issue 28), sections 3-5: a table too wide for the terminal keeps every column (parts
keyed by its first column) or says which it left out; Chinese lines never break inside a word, a step or a bound;
the wording the reviewer asked for; no English left where Chinese has a word for it; ``--lang`` before the
command."""

from __future__ import annotations

import re
import sqlite3

import pytest
from rich.cells import cell_len
from rich.table import Table
from rich.text import Text

from conftest import CASES, CORPUS_NCU, SHARED, need
from kernelscope.cli import main

FG = "InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048"
TT = SHARED / "corpus" / "torch_traces"


def _out(capsys, monkeypatch, columns: int, *argv: str) -> str:
    monkeypatch.setenv("COLUMNS", str(columns))
    assert main(list(argv)) == 0
    return capsys.readouterr().out


# --- 3. layout --------------------------------------------------------------------------------------------------------

def test_lang_before_the_command_is_taken(capsys):
    """``kernelscope --lang zh COMMAND`` was refused with a misleading error about COMMAND."""
    assert main(["--lang", "zh", "occupancy", "--arch", "sm_80", "--regs", "92", "--threads", "224"]) == 0
    assert "理论占用率" in capsys.readouterr().out
    assert main(["--lang=zh", "occupancy", "--arch", "sm_80", "--regs", "92", "--threads", "224", "--lang", "en"]) == 0
    assert "理论占用率" not in capsys.readouterr().out  # a --lang after the command still wins


@pytest.mark.parametrize("columns", [80, 120])
def test_the_ranks_table_keeps_the_straggler_columns(capsys, monkeypatch, columns):
    out = _out(capsys, monkeypatch, columns, "timeline", "--as-ranks",
               str(need(CASES / "N14_ranks_ddp_compute_straggler")), "--lang", "zh")
    for header in ("暴露的通信", "自身工作相对中位数", "计算", "通信", "隐藏的通信"):
        assert header in out, (header, out)
    assert "（掉队）" in out and "(掉队)" not in out  # full-width in Chinese


@pytest.mark.parametrize("columns", [80, 120])
def test_the_timeline_tables_keep_every_column(capsys, monkeypatch, columns):
    out = _out(capsys, monkeypatch, columns, "timeline", str(need(TT / "hta_alexnet_a100_rank0_trace.json.gz")),
               "--lang", "zh")
    for header in ("利用率", "各 Stream 之和", "同步（主机）", "占比", "程序占比", "提速 2× 后", "完全消除后"):
        assert header in out, (header, out)
    assert "未显示" not in out  # all of them shown, none left out


def test_the_roofline_tables_keep_every_column(capsys, monkeypatch):
    report = need(CORPUS_NCU / f"{FG}_08_warp_tile.ncu-rep")
    out = _out(capsys, monkeypatch, 80, "roofline", "--format", "table", str(report), "--lang", "zh")
    for header in ("来源", "实际达成（占可达）", "瓶颈类型", "拐点", "GPU 时间"):
        assert header in out, (header, out)


@pytest.mark.parametrize("lang,headers", [("zh", ["名称", "说明", "备注"]), ("en", ["Name", "Text", "Note"])])
def test_a_column_that_cannot_fit_is_named(lang, headers):
    """A column whose cell does not wrap and is wider than the terminal is left out, and said so, never silently."""
    from kernelscope.render.rich_text import to_plain

    t = Table(title="t")
    t.add_column(headers[0])
    t.add_column(headers[1], no_wrap=True)
    t.add_column(headers[2], no_wrap=True)
    t.add_row(Text("a"), Text("x" * 100), Text("y" * 100))
    out = to_plain([t], 80)
    assert all(cell_len(line) <= 80 for line in out.splitlines()), out
    word = "未显示" if lang == "zh" else "not shown"
    note = " ".join(out.split(word, 1)[-1].split())  # the note, its wrapped lines joined
    assert word in out and headers[1] in note and headers[2] in note, out
    assert "--format markdown" in note, out


def test_a_split_table_has_no_double_blank_line():
    from kernelscope.render.rich_text import to_plain
    from rich import box

    t = Table(title="按总耗时排序", box=box.SIMPLE_HEAD, title_justify="left")
    heads = ["名称", "总耗时", "平均", "最小", "最大", "中位数", "占比", "次数", "利用率", "重叠", "同步", "拷贝", "空闲"]
    for h in heads:
        t.add_column(h, no_wrap=h != "名称")
    t.add_row(Text("kernel_a"), *(Text(f"{i}.25 ms") for i in range(len(heads) - 1)))
    out = to_plain([t], 80)
    assert "\n\n\n" not in out
    for h in heads:
        assert h in out, (h, out)
    assert out.count("kernel_a") >= 2  # each part keyed by the first column


#: (text, the pieces no line may split) from the review.
UNBROKEN = [
    ("Kernel 在 GPU 上的平均耗时 82.69 µs：并非启动开销受限", ["并非"]),
    ("主要停顿是 Long Scoreboard（等待 L1/TEX 缓存的访存结果），峰值按 Boost 频率计算", ["L1/TEX 缓存", "Boost 频率"]),
    ("下一步：每线程寄存器数 92 → 80，可达 21 个 Warp（32.8%）；每 Block 线程数 224 → 192，可达 18 个 Warp（28.1%）",
     ["92 → 80", "224 → 192"]),
    ("Bank 0：2 个字（线程 0、8）；Bank 4：2 个字（线程 1、9）；Bank 8：2 个字（线程 2、10）", ["（线程 1、9）", "（线程 2、10）"]),
    ("Grid 只给每个 SM 提供 10.7/48 个 Warp，最繁忙的单元仅达峰值的 0.4%（< 60%；访存 0.9%）", ["0.4%（< 60%"]),
    ("任一 Kernel 或总耗时变慢超过 PCT（例如 5%）时以退出码 1 结束", ["退出码 1"]),
]


@pytest.mark.parametrize("text,pieces", UNBROKEN)
def test_no_break_inside_a_word_a_step_or_a_bound(text, pieces):
    from kernelscope.render.cjk import wrap

    for width in range(18, 61):  # from 18 on, each piece and the punctuation after it fit a line
        lines = wrap(text, width)
        assert "".join(lines).replace(" ", "") == text.replace(" ", ""), (width, lines)  # nothing lost
        for piece in pieces:
            assert any(piece in line for line in lines), (piece, width, lines)


def test_the_new_unbroken_words_are_glossary_data():
    from kernelscope.knowledge.glossary import unbroken_words

    assert {"并非", "L1/TEX 缓存", "Boost 频率", "等待"} <= unbroken_words()


# --- 5. English left --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name,zh", [("Memcpy HtoD (Pageable -> Device)", "HtoD 拷贝（可分页 → 设备）"),
                                     ("Memcpy DtoH (Device -> Pinned)", "DtoH 拷贝（设备 → 锁页）"),
                                     ("Memcpy DtoD", "DtoD 拷贝"),
                                     ("CUDA graph 1 (replay)", "CUDA Graph 1（重放）"),
                                     ("volta_sgemm_128x64_nn", "volta_sgemm_128x64_nn")])
def test_record_names_in_chinese(name, zh):
    from kernelscope.render.records import record_name

    assert record_name(name, "zh") == zh
    assert record_name(name, "en") == name


def test_the_timeline_names_copies_in_chinese(capsys, monkeypatch):
    out = _out(capsys, monkeypatch, 120, "timeline", "--details",
               str(need(TT / "hta_alexnet_a100_rank0_trace.json.gz")), "--lang", "zh")
    assert "Memcpy HtoD" not in out and "Pageable" not in out, out
    # (at 120 columns the name wraps alike in both parts of the split table: review 11 item 15; whole where wide)
    wide = _out(capsys, monkeypatch, 200, "timeline", "--details",
                str(need(TT / "hta_alexnet_a100_rank0_trace.json.gz")), "--lang", "zh")
    assert "HtoD 拷贝（可分页 → 设备）" in wide


def test_a_graph_replay_reads_in_chinese(capsys, monkeypatch, tmp_path):
    db = tmp_path / "N18.sqlite"
    con = sqlite3.connect(db)
    con.executescript(need(CASES / "_nsys_min_schema.sql").read_text(encoding="utf-8")
                      + need(CASES / "N18_nsys_graph_level_trace.sql").read_text(encoding="utf-8"))
    con.commit()
    con.close()
    out = _out(capsys, monkeypatch, 80, "timeline", str(db), "--lang", "zh")
    assert "(replay)" not in out and "CUDA graph 1" not in out, out
    assert "CUDA Graph 1（重放）" in out and "（重放）（Kernel）" not in out


def test_no_english_title_cited_in_chinese():
    """A source cited in Chinese keeps its issue number, not an English title in 《》."""
    from kernelscope.knowledge.messages import phrase

    text = phrase("ahrefs/ocannl issue #488, 'Measured: what graph replay is actually worth on this hardware' "
                  "(2026-07-30): RTX 5070 Ti Laptop GPU, CUDA 13.3; N=64 no-op kernels took 411.7 µs launched one "
                  "by one (~6.4 µs per launch) and 49.1 µs as one graph (362.6 µs saved); replay cost ~15 µs fixed "
                  "+ 580 ns per node", "zh")
    assert "issue #488" in text and "Measured" not in text, text
    from pathlib import Path

    import kernelscope
    root = Path(kernelscope.__file__).parent / "data"
    for path in root.glob("*.toml"):
        found = re.findall(r"《[\x20-\x7e]+》", path.read_text(encoding="utf-8"))
        assert not found, (path.name, found)


def test_html_stall_charts_have_no_zero_bars_and_no_leading_space(tmp_path):
    report = need(CORPUS_NCU / f"{FG}_08_warp_tile.ncu-rep")
    out = tmp_path / "d.html"
    assert main(["diagnose", "--format", "html", str(report), "-o", str(out), "--lang", "zh"]) == 0
    labels = re.findall(r"<text[^>]*>([^<]*%)</text>", out.read_text(encoding="utf-8"))
    bars = [t for t in labels if re.fullmatch(r"\s*[\d.]+%", t)]
    assert bars, labels
    assert not [t for t in bars if t != t.strip()], bars  # was " 36.9%"
    assert "0.0%" not in bars, bars


# --- 4. wording --------------------------------------------------------------------------------------------------------

def test_occupancy_words_spills_and_limiters(capsys, monkeypatch):
    from pathlib import Path

    cu = Path(__file__).resolve().parent.parent / "examples" / "kernels" / "occupancy_demo.cu"
    out = _out(capsys, monkeypatch, 80, "occupancy", "--arch", "sm_86", "--cu", str(need(cu)), "--lang", "zh")
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.startswith(("light", "register_"))}
    assert rows["light"][4] == "否" and rows["register_spilling"][4] == "是", rows  # never 0 beside 溢出
    assert rows["light"][-2:] == ["Warp", "槽位"], rows  # as the other output says, not "受限于 Warp"


@pytest.mark.parametrize("key,said,not_said", [
    ("tl_black_hole_idle_capped", "无论重叠一半还是全部，结果相同", "重叠一半或全部结果相同"),
    ("introduced_title", "新出现或加重的问题", "较轻的优化后诊断项"),
    ("tl_cols_program", "“程序占比”与“提速 N× 后”各列", "占程序及提速"),
    ("fu_caveat_assumed_chain", "输入中没有记录张量形状", "跟踪中"),
])
def test_the_reviewers_wording(key, said, not_said):
    from kernelscope.knowledge.text import labels

    data = labels()
    text = (data.label.get(key) or data.note[key]).get("zh")
    assert said in text, text
    assert not_said is None or not_said not in text, text


def test_a_graph_level_trace_does_not_say_its_nodes_were_recorded(capsys, monkeypatch, tmp_path):
    db = tmp_path / "N18.sqlite"
    con = sqlite3.connect(db)
    con.executescript(need(CASES / "_nsys_min_schema.sql").read_text(encoding="utf-8")
                      + need(CASES / "N18_nsys_graph_level_trace.sql").read_text(encoding="utf-8"))
    con.commit()
    con.close()
    out = _out(capsys, monkeypatch, 120, "timeline", str(db), "--lang", "zh")
    assert "Graph 节点由分析器记录" not in out and "按整个 Graph 记录" in out, out


@pytest.mark.parametrize("lang,said,not_said", [
    ("zh", "前半 Warp：Bank 0、1 各 16 个字；后半 Warp：Bank 0、1 各 16 个字", "（线程 0～15）"),
    ("en", "first half-warp: banks 0, 1: 16 words each", "(threads 0-15)")])
def test_banks_served_alike_by_a_whole_half_warp_are_said_together(capsys, monkeypatch, lang, said, not_said):
    out = _out(capsys, monkeypatch, 200, "banks", "--dtype", "double", "--tile", "32x32", "--access", "column",
               "--lang", lang)
    line = next(line for line in out.splitlines() if line.strip().startswith(("冲突的 Bank", "Colliding banks")))
    assert said in line and not_said not in line, line


@pytest.mark.parametrize("variant", ["页锁定内存", "固定内存", "可换页内存", "分页内存"])
def test_the_memory_kinds_have_one_word(variant):
    """The glossary refuses the other words for pinned and pageable memory (可分页内存 itself is allowed)."""
    from kernelscope.knowledge.glossary import glossary

    terms = [t for t in glossary().term if t.en in ("pinned memory", "pageable memory")]
    assert len(terms) == 2

    def refused(text: str) -> bool:
        return any(v in text for t in terms for v in t.forbidden) or \
            any(re.search(p, text) for t in terms for p in (t.forbidden_re or ()))

    assert refused(f"改用{variant}")
    assert not refused("改用 cudaMemcpyAsync 与锁页内存；可分页内存的拷贝")


@pytest.mark.parametrize("width", range(12, 40))
def test_an_identifier_breaks_only_between_its_tokens(width):
    """``alex_net`` and ``forward`` stay whole; ``|`` is a token break (was ``alex_`` / ``net|…``, ``forwar`` / ``d]``)."""
    from kernelscope.render.cjk import name_breaks
    from kernelscope.render.cjk_console import name_text

    name = "[param|pytorch.model.alex_net|0|0|0|measure|forward]"
    breaks = name_breaks(name)
    assert name.index("alex_net") + len("alex_") not in breaks
    assert name.index("forward") in breaks  # after the "|" before it
    from kernelscope.render.rich_text import to_plain
    t = Table()
    t.add_column("名称")
    t.add_row(name_text(name))
    t.columns[0].max_width = width
    lines = [line.strip() for line in to_plain([t], 80).splitlines()]
    assert any("alex_net" in line for line in lines) and any("forward]" in line for line in lines), lines


def test_lang_before_no_command_says_what_is_missing_in_chinese(capsys):
    """``kernelscope --lang zh`` alone: COMMAND is missing (in Chinese), not '"zh" is no COMMAND'."""
    with pytest.raises(SystemExit) as exc:
        main(["--lang", "zh"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "COMMAND" in err and "“zh”" not in err and "错误" in err, err

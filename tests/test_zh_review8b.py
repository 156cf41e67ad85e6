"""Native review 8 of the Chinese output (issue 28), the markup, wording, layout and unit faults it still found:
each test fails on the code before the fix. The rules hold in both languages where English had the same fault."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import SHARED, need
from kernelscope.cli import main
from kernelscope.render.common import Fmt
from kernelscope.render.numbers import data_size

NCU = SHARED / "corpus" / "ncu"
TRACES = SHARED / "corpus" / "torch_traces"
ALEXNET = TRACES / "hta_alexnet_a100_rank0_trace.json.gz"
WARP_TILE = NCU / "InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_08_warp_tile.ncu-rep"
#: A byte size in decimal units (``13.6 kB``, ``556 MB``), never a bandwidth (``GB/s``).
DECIMAL_BYTES = re.compile(r"\d (?:kB|KB|MB|GB|TB)(?!/)")


def _out(capsys, *args: str, code: tuple[int, ...] = (0,)) -> str:
    assert main(list(args)) in code
    return capsys.readouterr().out


def test_a_byte_size_is_binary():
    assert [data_size(n) for n in (13.6e3, 2.3e3, 556e6, 512, 0)] == ["13.3 KiB", "2.25 KiB", "530 MiB", "512 B",
                                                                       "0 B"]
    assert data_size(1023.9 * 1024) == "1 MiB"  # never "1.02e+03 KiB"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_memory_line_says_kib_as_occupancy_does(capsys, lang):
    out = _out(capsys, "diagnose", str(need(WARP_TILE)), "--details", "--lang", lang)
    assert DECIMAL_BYTES.findall(out) == [] and "13.3 KiB" in out and "2.25 KiB" in out
    assert f"{Fmt(lang).words('k', {'read_mb': 12.66})['read_mb']}" == "12.1 MiB"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_timeline_and_fusion_bytes_are_binary(capsys, lang):
    out = _out(capsys, "timeline", str(need(ALEXNET)), "--details", "--lang", lang)
    assert DECIMAL_BYTES.findall(out) == [] and re.search(r"\d (?:KiB|MiB|GiB)", out)


def test_two_verdicts_at_once_read_as_each_verdict(capsys):
    f = Fmt("zh")
    assert f.bounds(["launch-bound", "latency-bound"]) == "启动开销与延迟受限"
    assert f.bounds(["memory-bound", "compute-bound"]) == "访存与计算受限"
    out = _out(capsys, "diagnose", str(need(WARP_TILE)), "--lang", "zh")
    assert "均受限" not in out and "启动开销与延迟受限" in out


def test_the_sections_a_report_lacks_are_one_list(capsys):
    out = _out(capsys, "diagnose", str(need(NCU / "EricccYang__cuda_operators__reduce_reduce_v2.ncu-rep")),
               "--details", "--lang", "zh")
    flat = re.sub(r"\s+", "", out)
    assert "也未采集" not in flat and "既未采集" not in flat
    assert re.search(r"该报告的Warp停顿分布（[^）]*）、[^，]*均未采集", flat)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_one_mark_for_no_value_in_every_table(capsys, lang):
    out = _out(capsys, "source", str(need(NCU / "Lashi0812__CudaProgramming__profile.ncu-rep")), "--lang", lang)
    assert "–" not in out and re.search(r"\s-\s", out)


def _significant(cell: str) -> int:
    return len(cell.replace(".", "").lstrip("0"))


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_gpus_column_has_one_precision(capsys, lang):
    out = _out(capsys, "gpus", "--lang", lang)
    rows = [line.split()[-6:] for line in out.split("─")[-1].splitlines() if re.search(r"\d\.\d \s+\d+ ", line)]
    cells = [c for row in rows for c in row if re.fullmatch(r"\d+\.\d+", c)]  # (after the CC: GB/s and TF)
    assert cells and all(_significant(c) == 3 for c in cells if float(c) < 100), sorted(set(cells))
    assert re.search(r"\b1\.46\b", out) and re.search(r"\b5\.20\b", out) and "1.456" not in out


def glued_headings(text: str) -> list[str]:
    """Lines at the margin (a heading, a section) right under a table's last row, and a table's header right under
    the rows of the table before, no blank line between."""
    out, block = [], []
    for line in text.splitlines():
        if not line.strip():
            block = []
            continue
        if block and not line.startswith(" ") and block[-1].startswith(" ") and any("──" in b for b in block):
            out.append(f"{block[-1]!r} / {line!r}")
        if "──" in line and any("──" in b for b in block):  # a part's header under the rows of the part before
            out.append(f"{block[-1]!r} / {line!r}")
        block.append(line)
    return out


DAY08 = "Atopos0313__cuda_learning__reports_day08_{}.ncu-rep"


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("columns", ["80", "120"])
@pytest.mark.parametrize("argv", [["timeline", str(ALEXNET), "--details"], ["diagnose", str(WARP_TILE), "--details"],
                                  ["compare", str(NCU / DAY08.format("before")), str(NCU / DAY08.format("after"))],
                                  ["fusion", str(ALEXNET)]])
def test_a_table_is_followed_by_a_blank_line(capsys, monkeypatch, argv, columns, lang):
    monkeypatch.setenv("COLUMNS", columns)
    out = _out(capsys, *(str(need(Path(a))) if a.startswith("/") else a for a in argv), "--lang", lang)
    assert glued_headings(out) == []


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("command, columns, words", [("timeline", "80", "relu_xregs_large_nn_v1"),
                                                     ("timeline", "120", "relu_xregs_"),
                                                     ("fusion", "120", "large_nn_v1 ⇒ at::native::")])
def test_the_chain_column_takes_the_room_the_numbers_leave(capsys, monkeypatch, lang, command, columns, words):
    monkeypatch.setenv("COLUMNS", columns)
    out = _out(capsys, command, str(need(ALEXNET)), "--lang", lang)
    first = next(line for line in out.splitlines() if line.lstrip().startswith("#1 "))
    assert words in first


@pytest.mark.parametrize("columns", ["80", "120"])
def test_the_program_columns_caption_names_them(capsys, monkeypatch, columns):
    monkeypatch.setenv("COLUMNS", columns)
    out = re.sub(r"\s+", "", _out(capsys, "timeline", str(need(ALEXNET)), "--details", "--lang", "zh"))
    assert "占程序及" not in out and "“程序占比”与“提速N×后”各列：相对程序总时长" in out
    out = re.sub(r"\s+", "", _out(capsys, "fusion", str(need(ALEXNET)), "--lang", "zh"))
    assert "占程序及" not in out


def _help(capsys, monkeypatch, *argv: str) -> list[str]:
    monkeypatch.setenv("COLUMNS", "80")
    with pytest.raises(SystemExit):
        main([*argv, "--help", "--lang", "zh"])
    return capsys.readouterr().out.splitlines()


@pytest.mark.parametrize("command, line", [
    ("profile", "diagnose REPORT 一样诊断它。ncu 自身的输出实时写到标准错误；找不到 ncu、无权"),
    ("compare", "计的比值。已匹配的 Kernel 不足某一侧 GPU 时间的一半时，以全部 Kernel 的比值为"),
])
def test_a_help_line_fills_to_the_width(capsys, monkeypatch, command, line):
    assert line in _help(capsys, monkeypatch, command)


@pytest.mark.parametrize("width", range(12, 60))
def test_a_line_never_breaks_inside_a_term_or_a_quantified_name(width):
    from kernelscope.render.cjk import wrap

    for text in ("通信完全隐藏：所有 Rank 上 ampere_sgemm 提速 2×：程序 1.00 s → 0.90 s",
                 "将 12 次启动开销受限的启动合为一个 CUDA Graph：重放 10 µs，而不是 90 µs"):
        lines = wrap(text, width)
        assert not any(a.endswith(("所有", "Rank", "启动开销", "启动开销受")) for a in lines[:-1]), lines
        assert not any(b.startswith(("Rank", "上 ", "受限", "限的")) for b in lines[1:]), lines


def test_inline_code_is_one_rule_for_html_and_markdown():
    from kernelscope.render.inline import html_prose, md_prose

    assert html_prose("用 `nvcc -lineinfo` 编译 <x>") == "用 <code>nvcc -lineinfo</code> 编译 &lt;x&gt;"
    assert md_prose("填充：__shared__ float tile[32][33]（读 tile[t][c]）") == \
        "填充：`__shared__ float tile[32][33]`（读 `tile[t][c]`）"
    assert md_prose("请用 `ncu --set full` 重新采集") == "请用 `ncu --set full` 重新采集"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_markdown_puts_identifiers_in_code_spans(capsys, lang):
    out = _out(capsys, "banks", "--dtype", "float", "--tile", "32x32", "--access", "column", "--format", "markdown",
               "--lang", lang)
    bare = re.sub(r"(`+).+?\1", "", out)
    assert "__shared__" in out and "__" not in bare and "`tile[t][c]`" in out


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_html_shows_no_backticks_in_prose(capsys, tmp_path, lang):
    page = tmp_path / "d.html"
    _out(capsys, "diagnose", str(need(NCU / "EricccYang__cuda_operators__reduce_reduce_v2.ncu-rep")), "--details",
         "--format", "html", "-o", str(page), "--lang", lang)
    text = page.read_text()
    assert "`" not in re.sub(r"<code>.*?</code>", "", text) and "<code>ncu --set full --import-source yes</code>" in text
    page = tmp_path / "s.html"
    _out(capsys, "source", str(need(NCU / "AlpriElse__cs599k__silu_triton_silu-2025-04-18-v8.ncu-rep")),
         "--format", "html", "-o", str(page), "--lang", lang)
    assert "`" not in re.sub(r"<code>.*?</code>", "", page.read_text(), flags=re.S)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_one_blank_line_between_the_parts_of_a_narrow_table(capsys, monkeypatch, lang):
    monkeypatch.setenv("COLUMNS", "80")
    out = _out(capsys, "fusion", str(need(ALEXNET)), "--lang", lang)
    assert "\n\n\n" not in out and glued_headings(out) == []

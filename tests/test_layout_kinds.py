"""Layout and number formatting, each fault as a kind (zh review items 9, 10, 11, 14, 20, 21, 23):

- a wrapped item ("  text", "1. text", "- text") hangs its continuation lines under its text, in both languages,
  and a full line ends at a punctuation mark rather than inside a word (优化前) when one is a few cells back;
- a table header breaks only at a space, a punctuation mark or between a CJK run and an ASCII run: every header
  of every command, in Chinese, at 80 and 120 columns, read from what rich laid out;
- the input path is on a line of its own, never inside a title; what wrote it is in full-width brackets in Chinese;
- a bottleneck's evidence is a row of its own (no bracket nested in a bracket);
- one formatter each: a speedup has two decimals everywhere, a zero duration has a unit ("0 s"), a large count is
  ``16.3 M`` / ``1630 万``; Grid × Block uses × in its value too; the gap table writes ``<1 µs`` / ``≥100 ms``."""

from __future__ import annotations

import re
import unicodedata

import pytest
from rich.padding import Padding
from rich.table import Table

from conftest import CASES, SHARED, need
from kernelscope.render.cjk import has_cjk, wrap
from kernelscope.render.cjk_console import CJKConsole
from kernelscope.render.common import Fmt
from test_zh_output import run_cli, run_cli_uncached

CORPUS = SHARED / "corpus"
NCU = "{corpus}/ncu/"


def _cmd(*argv: str) -> tuple[str, ...]:
    need(CORPUS)
    need(CASES)
    return tuple(a.format(corpus=CORPUS, cases=CASES) for a in argv)


# ----------------------------------------------------------------------------------------------- hanging items
LONG = "共享内存与特殊指令过多——以 MIO Throttle（MIO 队列已满）停顿为主：不再出现；优化前：本 Kernel 加速比至多 1.03×"


@pytest.mark.parametrize("width", range(20, 81, 3))
def test_a_wrapped_item_hangs_under_its_text(width):
    for marker in ("  ", "1. ", "- "):
        lines = wrap(marker + LONG, width)
        assert len(lines) > 1 and lines[0].startswith(marker)
        indent = " " * len(marker)
        assert all(line.startswith(indent) and not line[len(marker)].isspace() for line in lines[1:]), lines
    english = "  Uncoalesced shared accesses: resolved (16.3 M -> 0); BEFORE: this kernel at most 1.65x faster"
    assert all(line.startswith("  ") for line in wrap(english, width)[1:])


def test_a_plain_paragraph_does_not_hang():
    lines = wrap(LONG, 30)
    assert len(lines) > 1 and not any(line.startswith(" ") for line in lines)


@pytest.mark.parametrize("width", range(20, 81))
def test_a_line_ends_at_punctuation_rather_than_inside_a_word(width):
    lines = wrap(LONG, width)
    assert max(map(len, lines)) and any("优化前" in line for line in lines), lines
    assert not any(line.endswith(("优", "优化", "不再", "特殊")) for line in lines), lines


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_compare_items_hang_at_80_columns(lang):
    argv = _cmd("compare", NCU + "Atopos0313__cuda_learning__reports_day08_before.ncu-rep",
                NCU + "Atopos0313__cuda_learning__reports_day08_after.ncu-rep",
                "--pair", "transpose_tiled_kernel=transpose_padded_kernel", "--lang", lang)
    code, out, err = run_cli(argv, 80)
    assert code == 0, err
    lines = out.splitlines()
    title, measured = ("改动解决了什么", "  实测 ") if lang == "zh" else ("What the change resolved", "  measured ")
    start = next(i for i, line in enumerate(lines) if line.startswith(title)) + 1
    assert not lines[start].strip() and lines[start + 1].strip(), out  # the heading stands apart: one blank line
    start += 1
    end = next(i for i, line in enumerate(lines) if i > start and line.startswith(measured))
    block = lines[start:end]
    assert len(block) > 2, out  # two items, one wrapped at least
    assert all(line.startswith("  ") and not line[2].isspace() for line in block), out  # each line under the text
    if lang == "zh":
        assert not any(line.rstrip().endswith(("优", "优化")) for line in lines), out


# ----------------------------------------------------------------------------------------------- table headers
#: Every command that prints a table, with the inputs whose Chinese headers are long (occupancy what-if tables,
#: the fusion table, the roofline table, the timeline's gap and lane tables).
HEADER_COMMANDS = {
    "diagnose": ("diagnose", "-q", NCU + "bautista-garcia__heat_sim__report_name.ncu-rep"),
    "diagnose-details": ("diagnose", "-q", "--details", NCU + "AlpriElse__cs599k__silu_triton_silu-2025-04-18-v8.ncu-rep"),
    "occupancy": ("occupancy", "--arch", "sm_90", "--threads", "256", "--regs", "64"),
    "occupancy-smem": ("occupancy", "--arch", "sm_86", "--regs", "64", "--threads", "256", "--smem", "48K"),
    "roofline": ("roofline", "-q", "--format", "table", NCU + "AlpriElse__cs599k__silu_triton_silu-2025-04-18-v8.ncu-rep"),
    "roofline-cutlass": ("roofline", "-q", "--format", "table", NCU + "panjd123__cutlass__report-s8.ncu-rep"),
    "fusion": ("fusion", "{corpus}/torch_traces/hta_alexnet_a100_rank0_trace.json.gz"),
    "timeline": ("timeline", "--details", "{corpus}/nsys/cts_rtx3070_array_inc_d_uvm.sqlite"),
    "timeline-kineto": ("timeline", "--details", "{corpus}/torch_traces/hta_alexnet_a100_rank0_trace.json.gz"),
    "timeline-ranks": ("timeline", "--details", "{cases}/N14_ranks_ddp_compute_straggler"),
    "compare": ("compare", NCU + "bautista-garcia__heat_sim__report_name.ncu-rep",
                NCU + "bautista-garcia__heat_sim__profile.ncu-rep"),
    "compare-timelines": ("compare", "{corpus}/nsys/cts_rtx3070_array_inc_a.sqlite",
                          "{corpus}/nsys/cts_rtx3070_array_inc_d_uvm.sqlite"),
    "source": ("source", NCU + "Lashi0812__CudaProgramming__profile.ncu-rep"),
    "gpus": ("gpus",),
}


def _is_word_char(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "LN"


def split_inside_a_word(header: str, lines: list[str]) -> list[str]:
    """The breaks of ``header`` printed as ``lines`` that fall inside a word: between two letters, digits or CJK
    characters of one script run, with no space between them (a break at a space, at a punctuation mark or symbol,
    or between a CJK run and an ASCII run is a word boundary). A line that is not the header's next piece (cut
    with "…") is a fault too."""
    bad, pos = [], 0
    pieces = [line.strip() for line in lines if line.strip()]
    for n, piece in enumerate(pieces):
        while pos < len(header) and header[pos].isspace():
            pos += 1
        if not header.startswith(piece, pos):
            return [f"{header!r}: line {piece!r} is not its next piece"]
        pos += len(piece)
        if n + 1 < len(pieces) and pos < len(header) and not header[pos].isspace():
            a, b = header[pos - 1], header[pos]
            if _is_word_char(a) and _is_word_char(b) and has_cjk(a) == has_cjk(b):
                bad.append(f"{header[:pos]} / {header[pos:]}")
    return bad


def test_split_inside_a_word_can_fail():
    assert split_inside_a_word("每 Block 线程数", ["每 Block 线程", "数"]) == ["每 Block 线程 / 数"]
    assert split_inside_a_word("字节数（融合前 → 融合后）", ["字节数（融合前 → 融", "合后）"])
    assert split_inside_a_word("FP16 Tensor Core", ["FP16 Ten", "sor Core"])
    assert split_inside_a_word("总耗时", ["总…"])
    assert split_inside_a_word("每 Block 线程数", ["每 Block", "线程数"]) == []
    assert split_inside_a_word("字节数（融合前 → 融合后）", ["字节数", "（融合前 →", "融合后）"]) == []
    assert split_inside_a_word("Block/SM", ["Block/", "SM"]) == []


def _headers_printed(argv: tuple[str, ...], columns: int, monkeypatch) -> list[tuple[str, list[str]]]:
    """(header, its printed lines) of every table column with a CJK header that ``kernelscope ARGV`` printed."""
    tables: list[Table] = []
    seen: list[tuple[str, list[str]]] = []
    render, render_lines = CJKConsole.render, CJKConsole.render_lines

    def record_render(self, renderable, options=None):
        if isinstance(renderable, Table):
            tables.append(renderable)
        return render(self, renderable, options)

    def record_lines(self, renderable, options=None, *args, **kwargs):
        lines = render_lines(self, renderable, options, *args, **kwargs)
        if isinstance(renderable, Padding):
            inner = renderable.renderable
            if any(inner is c.header for t in tables for c in t.columns) and has_cjk(str(inner)):
                seen.append((str(inner), ["".join(s.text for s in line) for line in lines]))
        return lines

    monkeypatch.setattr(CJKConsole, "render", record_render)
    monkeypatch.setattr(CJKConsole, "render_lines", record_lines)
    code, _, err = run_cli_uncached(argv, columns)
    monkeypatch.undo()
    assert code in (0, 1), err
    return seen


@pytest.mark.parametrize("columns", [80, 120])
@pytest.mark.parametrize("name", sorted(HEADER_COMMANDS))
def test_no_header_is_split_inside_a_word(name, columns, monkeypatch):
    argv = _cmd(*HEADER_COMMANDS[name], "--lang", "zh")
    seen = _headers_printed(argv, columns, monkeypatch)
    assert seen, "no Chinese table header printed"
    bad = [b for header, lines in seen for b in split_inside_a_word(header, lines)]
    assert bad == []


def test_the_headers_the_review_saw_wrap_at_word_boundaries(monkeypatch):
    """The occupancy what-if headers are short; the fusion and roofline headers wrap only at their boundaries."""
    seen = dict(_headers_printed(_cmd(*HEADER_COMMANDS["occupancy"], "--lang", "zh"), 80, monkeypatch))
    assert {"线程/Block", "寄存器/线程", "共享内存/Block"} <= set(seen)
    assert all(len([x for x in seen[h] if x.strip()]) == 1 for h in ("线程/Block", "寄存器/线程"))
    _, out, _ = run_cli(_cmd(*HEADER_COMMANDS["occupancy"], "--lang", "zh"), 80)
    assert "Block/SM" in out and "Warp/SM" in out and "┃ 每 SM Block 数" not in out
    for name, header in (("fusion", "字节数（前→后）"), ("roofline", "FP16 Tensor Core，FP16 累加")):
        for columns in (80, 100, 120):
            printed = dict(_headers_printed(_cmd(*HEADER_COMMANDS[name], "--lang", "zh"), columns, monkeypatch))
            assert header in printed or name == "roofline", (columns, sorted(printed))
            assert split_inside_a_word(header, printed.get(header, [header])) == []
            if name == "fusion":  # the short header stays on one line (the long one split at 100 and 120)
                assert len([x for x in printed[header] if x.strip()]) == 1, (columns, printed[header])


# ----------------------------------------------------------------------------------------------- titles and rows
def test_the_input_path_is_on_a_line_of_its_own():
    report = "AlpriElse__cs599k__silu_triton_silu-2025-04-18-v8.ncu-rep"
    _, out, _ = run_cli(_cmd("fusion", NCU + report, "--around", "silu_kernel_non_strided", "--lang", "zh"), 80)
    lines = out.splitlines()
    assert lines[0].strip() == Fmt("zh").label("fu_command_title") and lines[1].startswith(str(CORPUS)), out
    _, out, _ = run_cli(_cmd("diagnose", NCU + "kilianhae__Attention.C__softmax_CUDA_naivesoftmax_ncu.ncu-rep",
                             "--lang", "zh"), 120)
    first, second = out.splitlines()[:2]
    assert first.endswith(".ncu-rep") and re.fullmatch(r"（ncu-rep，Nsight Compute [\d.]+）", second.strip()), out
    _, out, _ = run_cli(_cmd("diagnose", NCU + "kilianhae__Attention.C__softmax_CUDA_naivesoftmax_ncu.ncu-rep",
                             "--lang", "en"), 120)
    assert re.fullmatch(r"\(ncu-rep, profiler [\d.]+\)", out.splitlines()[1].strip()), out
    _, out, _ = run_cli(_cmd("roofline", "-q", "--format", "table", NCU + report, "--lang", "zh"), 80)
    assert out.splitlines()[0].strip() == "Roofline：" and out.splitlines()[1].startswith(report), out


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_evidence_is_a_row_of_its_own(lang):
    argv = _cmd("diagnose", "-q", "--details", NCU + "AlpriElse__cs599k__silu_triton_silu-2025-04-18-v8.ncu-rep",
                "--lang", lang)
    _, out, _ = run_cli(argv, 120)
    bound, evidence = ("瓶颈类型", "判定依据") if lang == "zh" else ("Bottleneck", "Evidence")
    rows = [line.strip() for line in out.splitlines() if line.strip().startswith(bound)]
    assert rows and all("（" not in r and "(" not in r for r in rows), rows
    assert any(line.strip().startswith(evidence) for line in out.splitlines()), out


@pytest.mark.parametrize("lang, sep", [("zh", " × "), ("en", " x ")])
def test_grid_and_block_are_joined_as_the_label_says(lang, sep):
    _, out, _ = run_cli(_cmd("diagnose", NCU + "kilianhae__Attention.C__softmax_CUDA_naivesoftmax_ncu.ncu-rep",
                             "--lang", lang), 120)
    row = next(line for line in out.splitlines() if "Grid" in line and "Block" in line and "(" in line)
    assert f"){sep}(" in row, row
    assert Fmt(lang).grid_block((128, 128, 1), (32, 8, 1)) == f"(128, 128, 1){sep}(32, 8, 1)"


# ----------------------------------------------------------------------------------------------- numbers
#: A speedup as printed: a number right before × / x that ends a token ("1.33×", "0.87x"), not a shape (32x32).
SPEEDUP = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)[×x](?![\w(])")


#: The what-if factors the timeline names ("if 2x", "提速 10× 后", "2x faster ->"): a hypothesis, not a speedup.
WHAT_IF = {"2", "10"}


def speedup_precisions(text: str) -> set[int]:
    """The numbers of decimals of the speedups in ``text`` (the what-if factors :data:`WHAT_IF` aside)."""
    return {len(m.group(1).partition(".")[2]) for m in SPEEDUP.finditer(text) if m.group(1) not in WHAT_IF}


def test_speedup_precisions_can_fail():
    assert speedup_precisions("1× 1.00× 1.4x 1.335× 32x32 (1, 1, 1) x (2, 1, 1) 2x -> 1.50x") == {0, 1, 2, 3}


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("argv", [
    ("compare", NCU + "Atopos0313__cuda_learning__reports_day08_before.ncu-rep",
     NCU + "Atopos0313__cuda_learning__reports_day08_after.ncu-rep", "--pair",
     "transpose_tiled_kernel=transpose_padded_kernel"),
    ("compare", "{corpus}/nsys/cts_rtx3070_array_inc_a.sqlite", "{corpus}/nsys/cts_rtx3070_array_inc_d_uvm.sqlite"),
    ("timeline", "--details", "{corpus}/torch_traces/hta_alexnet_a100_rank0_trace.json.gz"),
    ("timeline", "--details", "--format", "markdown", "{cases}/N22_kineto_exposed_comm_two_streams.json"),
    ("timeline", "--details", "{cases}/N14_ranks_ddp_compute_straggler"),
    ("fusion", "{corpus}/torch_traces/hta_alexnet_a100_rank0_trace.json.gz"),
], ids=["compare-pair", "compare-timelines", "timeline", "timeline-md", "timeline-ranks", "fusion"])
def test_every_speedup_has_two_decimals(argv, lang):
    code, out, err = run_cli(_cmd(*argv, "--lang", lang), 200)
    assert code in (0, 1), err
    assert SPEEDUP.search(out), out
    assert speedup_precisions(out) == {2}, sorted({m.group(0) for m in SPEEDUP.finditer(out)})


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_zero_duration_is_a_bare_zero(lang):
    assert Fmt(lang).time(0) == "0"  # review 10 (issue 28 numbers): never "0 s" nor "0.000 µs"
    argv = _cmd("compare", "{corpus}/nsys/cts_rtx3070_array_inc_a.sqlite",
                "{corpus}/nsys/cts_rtx3070_array_inc_d_uvm.sqlite", "--lang", lang)
    _, out, _ = run_cli(argv, 120)
    memset = next(line for line in out.splitlines() if "Memset" in line and line.startswith("  "))
    assert "0 s" not in memset and re.findall(r"(?<!\S)0(?!\S)", memset), memset


def test_one_count_formatter():
    zh, en = Fmt("zh"), Fmt("en")
    assert [zh.count(v) for v in (9920, 131_000, 16.25e6, 4.85e8)] == ["9920", "13.1 万", "1625 万", "4.85 亿"]
    assert [en.count(v) for v in (9920, 131_000, 16.25e6, 4.85e8)] == ["9920", "131 k", "16.2 M", "485 M"]
    argv = ("compare", NCU + "Atopos0313__cuda_learning__reports_day08_before.ncu-rep",
            NCU + "Atopos0313__cuda_learning__reports_day08_after.ncu-rep", "--pair",
            "transpose_tiled_kernel=transpose_padded_kernel")
    _, out, _ = run_cli(_cmd(*argv, "--lang", "zh"), 200)
    assert re.search(r"\d+(\.\d+)? 万 → 0", out) and not re.search(r"\d[kMG]\b|\d [kMG]\b", out), out


def test_the_gap_table_notation():
    argv = _cmd("timeline", "--details", "{corpus}/nsys/cts_rtx3070_array_inc_d_uvm.sqlite", "--lang", "zh")
    _, out, _ = run_cli(argv, 250)
    assert "<1 µs" in out and "1 µs～10 µs" in out and "≥" in out and ">=" not in out, out
    assert re.search(r"\d（\d+(\.\d+)? [mµn]?s）", out) and not re.search(r"\d \(\d", out), out
    _, out, _ = run_cli(_cmd("occupancy", "--arch", "sm_90", "--threads", "256", "--regs", "64", "--lang", "zh"), 120)
    assert "← 当前" in out and "<-" not in out, out

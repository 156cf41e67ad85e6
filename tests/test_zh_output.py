"""Every command's Chinese output at 80 columns wraps the way Chinese text is set: no line starts with closing or
pausing punctuation (，。；：）、 ...), ASCII words and tokens (float4, FLOP/B, Tensor, 4.790) stay whole, a number
stays with its unit (16 字节, 22 个, 1.81 GHz), a list marker ("1.", "•") stays with its text.

The checks read the printed text: :func:`fragments` cuts each line into the pieces between table borders and column
gaps, :func:`continuations` pairs a piece with the piece below it when the two, joined, occur in the same command's
output printed wide (1000 columns, where nothing needs wrapping) -- so they are one cell (or one line of text)
wrapped in two -- and :func:`wrap_problems` applies the rules to every line and every such pair. They are helpers
so that other tests of the zh output can reuse them (and :func:`zh_output`, cached, to render a command once)."""

from __future__ import annotations

import contextlib
import io
import os
import re
from functools import lru_cache
from unittest import mock

import pytest
from rich.cells import cell_len

from conftest import SHARED, need
from kernelscope.cli import main
from kernelscope.render.cjk import name_breaks

CORPUS = SHARED / "corpus"

#: Punctuation no Chinese line may start with (full-width), and its half-width forms.
FULL_WIDTH_NO_LINE_START = "，。；：）、！？」』】》"
HALF_WIDTH_NO_LINE_START = ",.;:)!?"
#: CJK measure words and units that follow a number (longest first).
MEASURE_WORDS = ("字节", "毫秒", "微秒", "纳秒", "周期", "个", "次", "倍", "轮", "秒", "条", "行", "位", "项", "组", "路")
#: An ASCII unit starting a line: the unit of a number at the end of the line above.
ASCII_UNIT = re.compile(r"(?:[kKMGTP]?i?B(?:/s)?|[kMGTP]?FLOP(?:s|/s|/B)?|[kMGTP]?OP/s|[kMG]?Hz|[mµun]?s|SMs?|%|×)"
                        r"(?![A-Za-z])")
LIST_MARKER = re.compile(r"\d{1,2}\.|•")
_BORDER = "│┃║"
_RULE = set("─━═┏┓┗┛┡┩┳┻╇╈┼┠┨┣┫╋╭╮╯╰┌┐└┘├┤┬┴ ")
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
_GAP = re.compile(r" {2,}")
JOIN = 12

#: Every command with Chinese output, on a few inputs of each kind: argv with paths relative to the shared corpus
#: (``{corpus}``), run as ``kernelscope ARGV --lang zh``.
ZH_COMMANDS: dict[str, list[str]] = {
    "diagnose-ncu-rep": ["diagnose", "-q", "{corpus}/ncu/LakshyaSingh354__CudaCode__gemm_reps_naive.ncu-rep"],
    "diagnose-ncu-rep-heat": ["diagnose", "-q", "{corpus}/ncu/bautista-garcia__heat_sim__report_name.ncu-rep"],
    "diagnose-ncu-rep-cutlass": ["diagnose", "-q", "{corpus}/ncu/panjd123__cutlass__report-s8.ncu-rep"],
    "diagnose-csv": ["diagnose", "-q", "{corpus}/ncu_csv/olajide_rtx5070_gemm_tiled.csv"],
    "diagnose-csv-b200": ["diagnose", "-q",
                          "{corpus}/ncu_csv/meinie_b200_raw_flashinfer_decode_gqa_bf16_b1_ctx4k.ncu.csv"],
    "diagnose-ncu-text": ["diagnose", "-q", "{corpus}/ncu_csv/cts_ncu_text_rtx3070_matrix_sums.profile1-simple.output"],
    "diagnose-nvprof": ["diagnose", "-q", "{corpus}/ncu_csv/ieee2017_nvprof_metrics_k20c_gaussian.profile"],
    "timeline-kineto": ["timeline", "{corpus}/torch_traces/kineto_docs_before_fix_trace_h100.json"],
    "timeline-nsys": ["timeline", "{corpus}/nsys/cts_rtx3070_array_inc_a.sqlite"],
    "fusion-kineto": ["fusion", "{corpus}/torch_traces/hta_alexnet_a100_rank0_trace.json.gz"],
    "timeline-nsys-stats": ["timeline", "{corpus}/nsys/ai4mat_nsys_stats_console_paddle_gcn.txt"],
    "compare": ["compare", "{corpus}/ncu/bautista-garcia__heat_sim__report_name.ncu-rep",
                "{corpus}/ncu/bautista-garcia__heat_sim__profile.ncu-rep"],
    "compare-kernels": ["compare", "{corpus}/ncu/LakshyaSingh354__CudaCode__gemm_reps_naive.ncu-rep",
                        "--before-kernel", "regex:.", "--after-kernel", "regex:."],
    "compare-timelines": ["compare", "{corpus}/nsys/cts_rtx3070_array_inc_a.sqlite",
                          "{corpus}/nsys/cts_rtx3070_array_inc_d_uvm.sqlite"],
    "roofline": ["roofline", "-q", "--format", "table", "{corpus}/ncu/panjd123__cutlass__report-s8.ncu-rep"],
    "source": ["source", "{corpus}/ncu/bautista-garcia__heat_sim__report_name.ncu-rep"],
    "occupancy": ["occupancy", "--arch", "sm_86", "--regs", "64", "--threads", "256", "--smem", "48K"],
    "banks": ["banks", "--dtype", "float", "--tile", "32x32", "--access", "column"],
    "gpus": ["gpus"],
}


def run_cli_uncached(argv: tuple[str, ...], columns: int, terminal: bool = True) -> tuple[int, str, str]:
    """``kernelscope ARGV`` in this process with ``COLUMNS=columns``: exit code, standard output (terminal codes
    removed) and standard error. ``terminal``: standard output counts as a terminal (so the width is ``columns``
    even where a piped output gets a wider minimum), with no colour."""
    env = {"COLUMNS": str(columns), "NO_COLOR": "1", "TTY_COMPATIBLE": "1" if terminal else "0"}
    out, err = io.StringIO(), io.StringIO()
    with mock.patch.dict(os.environ, env), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:  # argparse: an option this command does not take
            code = exc.code if isinstance(exc.code, int) else 2
    return code, _ANSI.sub("", out.getvalue()), err.getvalue()


#: :func:`run_cli_uncached`, each command run once per session.
run_cli = lru_cache(maxsize=None)(run_cli_uncached)


def zh_output(name: str, columns: int = 80) -> str:
    """The zh output of ``ZH_COMMANDS[name]`` at ``columns`` columns (skips when the corpus is absent, or when the
    command does not take ``--lang zh``)."""
    need(CORPUS)
    argv = tuple(a.format(corpus=CORPUS) for a in ZH_COMMANDS[name]) + ("--lang", "zh")
    # source keeps its table at least 160 columns wide when piped: its ten columns do not fit 80 in any language
    code, out, err = run_cli(argv, columns, terminal=name != "source")
    if code == 2 and "--lang" in err:
        pytest.skip(f"{ZH_COMMANDS[name][0]} does not take --lang zh")
    assert code == 0, err
    return out


def fragments(line: str) -> list[tuple[int, int, str]]:
    """The pieces of a printed line between table borders and gaps of two or more spaces: (first column, end
    column, text), columns counted in terminal cells. A rule line (─━ ...) has none."""
    if set(line) <= _RULE:
        return []
    out = []
    col = 0
    for part in re.split(f"([{_BORDER}])", line):
        if part and part in _BORDER:
            col += cell_len(part)
            continue
        pos = 0
        for m in list(_GAP.finditer(part)) + [None]:
            end = m.start() if m else len(part)
            piece = part[pos:end]
            if piece.strip():
                lead = len(piece) - len(piece.lstrip())
                start = col + cell_len(part[:pos + lead])
                text = piece.strip()
                out.append((start, start + cell_len(text), text))
            if m:
                pos = m.end()
        col += cell_len(part)
    return out


def continuations(narrow: str, wide: str) -> list[tuple[str, str, bool]]:
    """Pairs (piece, piece below it, whether a space was between them) of the narrow output that are one text
    wrapped in two: the pieces overlap in columns and, joined with or without a space, occur in one piece of the
    wide output (the last and first ``JOIN`` characters of each: a table title wraps at the table's width even
    there)."""
    whole = "\n".join(text for line in wide.splitlines() for _, _, text in fragments(line))
    lines = [fragments(line) for line in narrow.splitlines()]
    out = []
    for above, below in zip(lines, lines[1:]):
        for s1, e1, a in above:
            for s2, e2, b in below:
                if s1 < e2 and s2 < e1:
                    if f"{a[-JOIN:]} {b[:JOIN]}" in whole:
                        out.append((a, b, True))
                    elif a[-JOIN:] + b[:JOIN] in whole:
                        out.append((a, b, False))
    return out


def _narrow_tail(text: str) -> str:
    return re.search(r"[^\s\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]*$", text).group(0)


def wrap_problems(narrow: str, wide: str) -> list[str]:
    """Where the narrow output breaks the line-breaking rules (see the module docstring); ``wide``: the same
    output printed wide, to tell one wrapped text from two texts one above the other."""
    problems = []
    for line in narrow.splitlines():
        for _, _, text in fragments(line):
            if text[0] in FULL_WIDTH_NO_LINE_START:
                problems.append(f"line starts with {text[0]!r}: {text!r}")
            if LIST_MARKER.fullmatch(text):
                problems.append(f"list marker alone on its line: {line.strip()!r}")
    for a, b, spaced in continuations(narrow, wide):
        pair = f"{a!r} / {b!r}"
        if b[0] in HALF_WIDTH_NO_LINE_START:
            problems.append(f"line starts with {b[0]!r}: {pair}")
        tail = _narrow_tail(a)
        word = re.match(r'[^ ]*', b).group(0)
        if not spaced and tail and tail != a and _narrow_tail(b[0]) and len(tail) not in name_breaks(tail + word):
            # (a kernel name may break between its tokens: after "_", "::", "<", "(", ",": cjk.name_breaks)
            problems.append(f"word split: {tail}|{word} in {pair}")
        if re.search(r"\d$", a) and (b.startswith(MEASURE_WORDS) or ASCII_UNIT.match(b)):
            problems.append(f"number cut from its unit: {pair}")
    return problems


# ----------------------------------------------------------------------------------------------- the checks can fail
WIDE_SAMPLE = "\n".join([
    "  建议   1. 向量化为 16 字节加载（float4），SM 频率 1.81 GHz；共 22 个 SM 与 Tensor Core。",
    "  说明   Speed-of-Light 访存 83.1%。",
])


@pytest.mark.parametrize("narrow, expected", [
    ("  建议   1. 向量化为 16 字节加载（fl\n         oat4），SM 频率 1.81 GHz；\n", "word split: fl|oat4"),
    ("  建议   1. 向量化为 16\n         字节加载（float4），\n", "number cut from its unit"),
    ("  建议   1. 向量化为 16 字节加载（float4），SM 频率 1.81\n         GHz；共\n", "number cut from its unit"),
    ("  建议   1. 向量化为 16 字节加载（float4），SM 频率 1.81 GHz\n         ；共 22 个\n", "line starts with '；'"),
    ("  建议   1. 向量化为 16 字节加载（float4），SM 频率 1.81 GHz；共 22\n         个 SM\n", "number cut"),
    ("  建议   1.\n         向量化为 16 字节加载\n", "list marker alone"),
    ("  建议   与 Tensor\n         Core。\n", None),  # a break at a space between two words is fine
    ("  说明   Speed-of-Light 访存 83.1%\n         。\n", "line starts with '。'"),
])
def test_the_checks_catch_each_kind_of_bad_break(narrow, expected):
    problems = wrap_problems(narrow, WIDE_SAMPLE)
    if expected is None:
        assert problems == []
    else:
        assert any(expected in p for p in problems), problems


def test_fragments_and_continuations_follow_cells():
    narrow = "│ 每 SM 共享内存 │ 100 KiB（由 kernelscope │\n│ （carveout）   │ 选取的最小配置）        │\n"
    wide = "│ 每 SM 共享内存（carveout） │ 100 KiB（由 kernelscope 选取的最小配置） │\n"
    assert [t for _, _, t in fragments(narrow.splitlines()[0])] == ["每 SM 共享内存", "100 KiB（由 kernelscope"]
    assert continuations(narrow, wide) == [("每 SM 共享内存", "（carveout）", False),
                                           ("100 KiB（由 kernelscope", "选取的最小配置）", True)]


# ----------------------------------------------------------------------------------------------- every command
@pytest.mark.parametrize("name", sorted(ZH_COMMANDS))
def test_zh_output_at_80_columns_wraps_by_the_rules(name):
    narrow = zh_output(name, 80)
    wide = zh_output(name, 1000)
    assert any("\u4e00" <= ch <= "\u9fff" for ch in narrow), "no Chinese in the output"
    assert max(map(cell_len, narrow.splitlines())) <= (160 if name == "source" else 80)
    assert wrap_problems(narrow, wide) == []


@pytest.mark.parametrize("argv", [
    ["occupancy", "--arch", "sm_80", "--regs", "255", "--threads", "1024", "--smem", "100K"],
    ["diagnose", "-q", "{corpus}/ncu/LakshyaSingh354__CudaCode__gemm_reps_naive.ncu-rep"],
])
def test_plain_text_written_with_o_wraps_by_the_rules(argv, tmp_path):
    """``-o FILE`` writes the same renderables through rich at a fixed width (120 columns)."""
    need(CORPUS)
    argv = [a.format(corpus=CORPUS) for a in argv] + ["--lang", "zh"]
    out = tmp_path / "out.txt"
    code, _, err = run_cli(tuple(argv + ["-o", str(out)]), 80)
    assert code == 0, err
    narrow = out.read_text(encoding="utf-8")
    _, wide, _ = run_cli(tuple(argv), 1000)
    assert wrap_problems(narrow, wide) == []


# ----------------------------------------------------------------------------------------------- the line breaker
def paragraphs(lang: str) -> list[str]:
    """Every distinct cell text and line of text of the commands' wide output in ``lang`` (a paragraph each)."""
    need(CORPUS)
    seen: dict[str, None] = {}
    for name, argv in ZH_COMMANDS.items():
        code, out, _ = run_cli(tuple(a.format(corpus=CORPUS) for a in argv) + ("--lang", lang), 1000)
        if code == 0:
            seen.update((text, None) for line in out.splitlines() for _, _, text in fragments(line))
    return list(seen)


def _bad_break(text: str, at: int) -> str | None:
    """Why a line of ``text`` may not start at offset ``at`` by the rules this file checks, or None."""
    before, after = text[:at].rstrip(), text[at:]
    if after[0] in FULL_WIDTH_NO_LINE_START + HALF_WIDTH_NO_LINE_START:
        return f"line starts with {after[0]!r}"
    if before == text[:at] and _narrow_tail(before) and _narrow_tail(after[0]):
        return "inside a word"
    if re.search(r"\d$", before) and (after.startswith(MEASURE_WORDS) or ASCII_UNIT.match(after)):
        return "between a number and its unit"
    if LIST_MARKER.fullmatch(before.strip()):
        return "after a list marker"
    return None


def test_break_opportunities_follow_the_rules():
    from kernelscope.render.cjk import break_opportunities, has_cjk

    texts = [t for t in paragraphs("zh") if has_cjk(t)]
    assert len(texts) > 200
    bad = [(text[:at] + "|" + text[at:], why) for text in texts for at in break_opportunities(text)
           if (why := _bad_break(text, at))]
    assert bad == []


@pytest.mark.parametrize("width", [6, 11, 17, 24, 38, 52])
def test_lines_break_at_opportunities_and_fit(width):
    """Each break of :func:`divide` is a break opportunity, or a soft break (between a determiner and its ASCII
    word, where keeping them together would leave the line more than GLUE_REACH cells short: native review 13), or
    folds a piece wider than the line (a long kernel name, as in English); each line fits."""
    from kernelscope.render.cjk import break_opportunities, divide, has_cjk, soft_breaks, wrap

    for text in (t for t in paragraphs("zh") if has_cjk(t)):
        allowed = set(break_opportunities(text))
        bounds = [0, *sorted(allowed), len(text)]
        pieces = list(zip(bounds, bounds[1:]))
        soft = set(soft_breaks(text))
        for at in divide(text, width):
            if at not in allowed and at not in soft:
                start, end = next((a, b) for a, b in pieces if a < at < b)
                assert cell_len(text[start:end].rstrip()) > width, (text[:at] + "|" + text[at:], width)
        assert all(cell_len(line) <= width for line in wrap(text, width)), (text, width)


def test_the_rules_on_examples():
    from kernelscope.render.cjk import divide, wrap

    text = "1. 加载/存储队列已满（占停顿周期的 75%）：向量化为 16 字节加载（float4），共 22 个 SM，频率 1.81 GHz。"
    for width in range(12, 60):  # from 12 columns on every piece fits a line: no fold
        assert [(text[:at] + "|" + text[at:], why) for at in divide(text, width)
                if (why := _bad_break(text, at))] == []
    assert wrap("受限于共享内存。", 14) == ["受限于", "共享内存。"]  # the 。 takes its word along: no widow "存。"
    assert wrap("1. 受限于共享内存", 5) == ["1. 受", "限于", "共享", "内存"]
    assert wrap("（float4）计算", 10) == ["（float4）", "计算"]
    assert wrap("向量化为 16 字节加载", 9) == ["向量化为", "16 字节", "加载"]  # 加载: one word
    assert wrap("频率 1.81 GHz", 8) == ["频率", "1.81 GHz"]
    assert wrap("  缩进", 4) == ["  缩", "进"]


def test_english_divides_as_rich_does():
    """Text without CJK characters wraps exactly as rich wraps it (at spaces only): English output is unchanged."""
    from rich._wrap import divide_line

    from kernelscope.render.cjk import divide, has_cjk

    texts = [t for t in paragraphs("en") if not has_cjk(t)]
    texts += ["  leading spaces and trailing  ", "averyveryverylongword x", "a  b   c", "", "   "]
    assert len(texts) > 200
    for width in (1, 3, 7, 12, 20, 33, 50, 79):
        for fold in (True, False):
            assert [divide(t, width, fold) for t in texts] == [divide_line(t, width, fold) for t in texts]


@pytest.mark.parametrize("name", ["diagnose-ncu-rep-heat", "timeline-nsys", "compare", "occupancy", "roofline"])
def test_english_output_is_what_rich_prints(name):
    from rich.console import Console

    from kernelscope.render.cjk_console import CJKConsole

    need(CORPUS)
    argv = tuple(a.format(corpus=CORPUS) for a in ZH_COMMANDS[name]) + ("--lang", "en")
    # what differs by design: items hang, a table's title wraps at the console's width (not the table's)
    with mock.patch("kernelscope.render.cjk_console.hang", return_value=0), \
            mock.patch.object(CJKConsole, "_titled", lambda self, table, options: Console.render(self, table, options)):
        ours = run_cli_uncached(argv, 80)
    with mock.patch.object(CJKConsole, "render", Console.render), \
            mock.patch.object(CJKConsole, "render_str", Console.render_str):
        plain = run_cli_uncached(argv, 80)
    assert ours == plain


def test_styles_survive_the_cjk_text():
    from rich.text import Text

    from kernelscope.render.cjk_console import CJKConsole

    buf = io.StringIO()
    console = CJKConsole(file=buf, width=12, force_terminal=True, color_system="standard")
    console.print(Text("加载/存储队列已满（float4）", style="bold"))
    assert buf.getvalue().count("\x1b[1m") >= 1
    assert _ANSI.sub("", buf.getvalue()).splitlines() == ["加载/存储", "队列已满", "（float4）"]


def test_every_console_that_prints_text_wraps_chinese():
    """A ``rich.console.Console`` made anywhere but ``render/cjk_console.py`` would wrap Chinese as rich does; only the
    progress bar (no text to wrap) may use rich's own."""
    from conftest import REPO

    found = []
    for path in sorted((REPO / "src" / "kernelscope").rglob("*.py")):
        rel = path.relative_to(REPO / "src" / "kernelscope").as_posix()
        if rel in ("render/cjk_console.py", "render/progress.py"):
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"(?<![A-Za-z])Console\(", line):
                found.append(f"{rel}:{n}: {line.strip()}")
    assert found == []

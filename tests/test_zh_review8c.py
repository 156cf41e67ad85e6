"""Native review 8 of the Chinese output (issue 28), its "terms / typography" items: one term per concept (隐藏,
CUDA 核心, epilogue, swizzle), one ``--lang`` help, code spans in Markdown and HTML prose, templates that read
naturally at 0, at equal values and at all, no ASCII arrows or quotes in zh prose. Each test fails on the code
before the fix; a rule holds in both languages where the English had the same fault."""

from __future__ import annotations

import re

import pytest

from kernelscope.cli import main
from kernelscope.knowledge.glossary import misused


def _help(capsys, command: str, lang: str) -> str:
    with pytest.raises(SystemExit):
        main([command, "--help", "--lang", lang])
    return capsys.readouterr().out


# --- one term per concept -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("wrong", [
    "无法掩盖延迟", "访存延迟未被掩盖", "FP32 CUDA Core", "运算在 CUDA Core 上执行", "GEMM 尾处理", "避免收尾（epilogue）",
    "XOR 交织（swizzle）", "对数组做填充或交错", "做填充或交错（swizzle）"])
def test_the_glossary_catches_each_variant_review_8_saw(wrong):
    assert misused(wrong), wrong


@pytest.mark.parametrize("right", [
    "无法隐藏延迟", "FP32 CUDA 核心", "GEMM epilogue", "避免 epilogue 与主循环串行", "XOR swizzle", "对数组做填充或 swizzle",
    "把访存指令与计算指令交错排布"])
def test_the_glossary_passes_review_8s_fixed_forms(right):
    assert not misused(right), (right, misused(right))


# --- one --lang help ------------------------------------------------------------------------------------------------

_COMMANDS = ("diagnose", "timeline", "compare", "roofline", "occupancy", "banks", "source", "gpus", "fusion",
             "ceilings", "query", "profile")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_lang_has_one_help_text_in_every_command(capsys, lang):
    texts = set()
    for command in _COMMANDS:
        out = _help(capsys, command, lang)
        m = re.search(r"--lang \{en,zh\}\s+(.+?)(?:\n  -|\n\n|$)", out, re.S)
        assert m, (command, out[-400:])
        texts.add(" ".join(m.group(1).split()).replace(" ", ""))
    assert len(texts) == 1, texts


# --- code spans in Markdown and HTML prose; none of their backticks in a Chinese terminal text ----------------------

from conftest import SHARED, need  # noqa: E402

NCU = SHARED / "corpus" / "ncu"
CUTLASS = NCU / "panjd123__cutlass__report-s8.ncu-rep"


@pytest.mark.parametrize("text, code", [
    ("纯数值文件的 useful_flops，或 --useful-flops NAME=COUNT", ["useful_flops", "--useful-flops NAME=COUNT"]),
    ("l1tex__throughput.max.pct_of_peak_sustained_active = 109.146%", ["l1tex__throughput.max.pct_of_peak_sustained_active"]),
    ("用 cp.async 预取，填充为 [32][33]（读 tile[t][c]）", ["cp.async", "[32][33]", "tile[t][c]"]),
    ("位置：s8_gemm.cu:286（5.9%）；用 --details 查看；pin_memory=True", ["s8_gemm.cu:286", "--details", "pin_memory=True"]),
    ("nsys profile --cuda-graph-trace=node，见 `kernelscope banks`", ["--cuda-graph-trace=node", "kernelscope banks"]),
])
def test_prose_puts_identifiers_and_commands_in_code(text, code):
    from kernelscope.render.inline import html_prose, md_prose

    md, page = md_prose(text), html_prose(text)
    assert re.findall(r"`([^`]+)`", md) == code, md
    assert re.findall(r"<code>([^<]+)</code>", page) == code and "`" not in page, page


@pytest.mark.parametrize("text", [
    "/work/shared/corpus/torch_traces/hta_triton_example_a100.json.gz（kineto）", "https://docs.nvidia.com/a_b.html",
    "**[1] [0]** 数据手册峰值", "e.g. Nsight Compute 2025.1.0, A100-SXM4-40GB, L1/TEX, LD/ST", "ArrayIaLi16E",
    "…kernel<…>(…) [CUDAFunctor_add] → …elementwise_kernel<…>(…)", "at::native::vectorized_elementwise_kernel"])
def test_prose_leaves_paths_urls_markers_and_pieces_of_names_alone(text):
    from kernelscope.render.inline import md_prose

    assert "`" not in md_prose(text), md_prose(text)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_diagnose_markdown_and_html_put_metric_names_and_commands_in_code(capsys, tmp_path, lang):
    out = _out(capsys, "diagnose", str(need(CUTLASS)), "--format", "markdown", "--lang", lang)
    for code in ("l1tex__throughput.max.pct_of_peak_sustained_active", "useful_flops", "diagnose --useful-flops NAME=COUNT",
                 "ncu -k", "--kernel-name"):
        assert f"`{code}`" in out, code
    page = tmp_path / "d.html"
    _out(capsys, "diagnose", str(CUTLASS), "--format", "html", "-o", str(page), "--lang", lang)
    text = page.read_text()
    assert "<code>useful_flops</code>" in text and "<code>diagnose --useful-flops NAME=COUNT</code>" in text


def test_timeline_markdown_overview_puts_its_commands_and_names_in_code(capsys):
    out = _out(capsys, "timeline", str(need(SHARED / "corpus" / "torch_traces" / "hta_nccl_data_a100_rank0.json.gz")),
               "--format", "markdown", "--lang", "zh")
    assert "（所依据的实测见 `--details`）" in out and "[`CUDAFunctor_add`]" not in out


def _out(capsys, *args: str) -> str:
    assert main(list(args)) in (0, 1)
    return capsys.readouterr().out


def test_a_chinese_terminal_text_shows_its_commands_without_backticks(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    zh = _out(capsys, "diagnose", str(need(CUTLASS)), "--lang", "zh")
    assert "用 --details 查看" in zh and "`" not in zh
    n13 = str(need(SHARED / "cases" / "N13_ncu_console_lds128_conflicts.txt"))
    assert "（可用 kernelscope banks 检查布局）" in re.sub(r"\n\s*", "", _out(capsys, "diagnose", n13, "--lang", "zh"))
    assert "(`kernelscope banks` checks a layout)" in _out(capsys, "diagnose", n13, "--details")  # English: as it is
    from kernelscope.render.inline import plain_code
    from rich.text import Text

    t = Text("用 `ncu --set full` 重新采集")
    t.stylize("bold", 0, 1)
    plain = plain_code(t)
    assert plain.plain == "用 ncu --set full 重新采集" and plain.spans[0].end == 1
    assert plain_code(Text("see `ncu --set full`")).plain == "see `ncu --set full`"


# --- templates at 0, at equal values and at all ---------------------------------------------------------------------

@pytest.mark.parametrize("lang, some, every, one", [
    ("zh", "已诊断 5 次启动中的 2 次", "已诊断全部 5 次启动", "报告只有 1 次启动，已诊断"),
    ("en", "2 of 5 launches diagnosed", "all 5 launches diagnosed", "the report's only launch diagnosed")])
def test_a_count_of_launches_diagnosed_reads_naturally_at_all(lang, some, every, one):
    from kernelscope.render.common import Fmt
    from kernelscope.render.rows import shown_text

    f = Fmt(lang)
    assert (shown_text(2, 5, f), shown_text(5, 5, f), shown_text(1, 1, f)) == (some, every, one)


def _flat(text: str) -> str:
    return re.sub(r"\n\s*", "", text)


@pytest.mark.parametrize("lang, wrong, right", [
    ("zh", "32 个线程中 32 个活跃", "每个 Warp 的 32 个线程全部活跃"), ("en", "32 of 32 active", "all 32 of a warp active")])
def test_banks_says_all_threads_active(capsys, lang, wrong, right):
    out = _out(capsys, "banks", "--dtype", "float", "--tile", "32x32", "--access", "row", "--lang", lang)
    assert right in _flat(out) and wrong not in _flat(out)


@pytest.mark.parametrize("lang, wrong, right", [
    ("zh", ("将 1 次启动调用关联到 1 个 Kernel",), "将唯一的 1 次启动调用关联到其 Kernel"),
    ("en", ("1 launch calls joined to 1 kernels",), "the one launch call joined to its kernel")])
def test_the_launch_line_says_each_call_found_its_kernel(capsys, lang, wrong, right):
    out = _flat(_out(capsys, "timeline", str(need(SHARED / "corpus" / "nsys" / "cts_rtx3070_array_inc_a.sqlite")),
                     "--lang", lang, "--format", "markdown"))
    assert right in out and not any(w in out for w in wrong)


@pytest.mark.parametrize("lang, wrong, right", [
    ("zh", "整体加速比至多 1.00×", "让其与 GPU 工作重叠没有可见的收益（整体加速比 1.00×）"),
    ("en", "program 1.00x at most", "hiding it under GPU work gains nothing visible (program 1.00x)")])
def test_idle_time_that_cannot_be_hidden_is_said_to_gain_nothing(capsys, lang, wrong, right):
    out = _flat(_out(capsys, "timeline", str(need(SHARED / "corpus" / "torch_traces" / "hta_triton_example_a100.json.gz")),
                     "--lang", lang, "--format", "markdown"))
    assert right in out and wrong not in out


def test_a_chinese_error_names_its_command_without_quotes(capsys):
    path = str(need(CUTLASS))
    assert main(["diagnose", "--gpu", "NO-SUCH-GPU", path, "--lang", "zh"]) != 0
    err = capsys.readouterr().err
    assert "（kernelscope gpus 列出全部）" in err and "'" not in err.replace("'NO", "") and "`" not in err
    assert main(["diagnose", "--gpu", "NO-SUCH-GPU", path]) != 0
    assert "(`kernelscope gpus` lists them)" in capsys.readouterr().err  # English: a code span, not 'quotes'


@pytest.mark.parametrize("lang, wrong", [("zh", "Speed-of-Light 计算从峰值的不到 0.1% 变为不到 0.1%"), ("en", "SOL compute < 0.1% -> < 0.1% of peak")])
def test_what_moved_leaves_out_a_figure_that_printed_the_same(capsys, monkeypatch, lang, wrong):
    monkeypatch.setenv("COLUMNS", "200")
    heat = [str(need(NCU / f"bautista-garcia__heat_sim__{n}.ncu-rep")) for n in ("report_name", "profile")]
    out = _out(capsys, "compare", *heat, "--lang", lang)
    assert wrong not in out and ("DRAM 带宽从规格峰值的 0.1% 变为 0.2%" if lang == "zh" else "DRAM bandwidth 0.1% -> 0.2% of the spec's peak") in out

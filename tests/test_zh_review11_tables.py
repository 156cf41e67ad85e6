"""Native Chinese review 11, section C (issue 28): tables and wrapping, as rules for every table, in both
languages, at 80 and 120 columns: code is not wrapped where a sentence beside it can be (and only between operands
where it must), a header is at most two lines, a stall's name stays with its gloss, a split table leaves no column
alone and its continued part says so briefly, names break at their token boundaries, a repeated note is said once."""

from __future__ import annotations

import json
import re

import pytest
from rich.cells import cell_len
from rich.table import Table

from conftest import CASES, SHARED, need
from kernelscope.render.cjk import wrap
from kernelscope.render.cjk_console import CJKConsole
from test_zh_output import run_cli_uncached

CORPUS = SHARED / "corpus"
NAIVE = CORPUS / "ncu/InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_01_naive.ncu-rep"
SILU = CORPUS / "ncu/AlpriElse__cs599k__silu_CUDA_ncu-reports_2025-04-21-77_06-MT.ncu-rep"


def _out(argv: tuple[str, ...], columns: int) -> str:
    code, out, err = run_cli_uncached(argv, columns)
    assert code == 0, err
    assert all(cell_len(line) <= columns for line in out.splitlines()), out
    return out


def _header_blocks(out: str) -> list[list[str]]:
    """The header lines of each table of ``out``: the lines above each rule (``───``) up to a blank line."""
    lines = out.splitlines()
    blocks = []
    for i, line in enumerate(lines):
        if line.strip().startswith("─"):
            j = i
            while j > 0 and lines[j - 1].strip():
                j -= 1
            blocks.append(lines[j:i])
    return blocks


# ------------------------------------------------------------------------------ 1. code before prose
@pytest.mark.parametrize("path, columns", [(NAIVE, 80), (NAIVE, 120), (SILU, 80), (SILU, 120)])
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_each_sass_instruction_is_whole_where_the_stall_column_could_wrap(path, columns, lang):
    """The SASS column gets its longest instruction (these are at most 25 cells) before the stall column's text
    is given its room: every instruction of the report on one line, in both languages."""
    need(path)
    doc = json.loads(_out(("source", str(path), "--format", "json"), 200))
    out = _out(("source", str(path), "--lang", lang), columns)
    sass = {i["sass"] for launch in doc["launches"] for i in launch["instructions"]}
    assert sass and all(cell_len(s) <= columns // 3 for s in sass)
    missing = [s for s in sass if s not in out]
    assert missing == [], out


def test_code_wraps_between_operands_only():
    """Where it truly cannot fit, an instruction breaks after the ", " between two operands: never between the
    opcode and its first operand, never inside an operand."""
    from kernelscope.render.cjk import code_breaks
    from kernelscope.render.cjk_console import CodeText

    assert code_breaks("LDG.E R15, [R18.64+0x20]") == [len("LDG.E R15, ")]
    console = CJKConsole(width=40, file=None, color_system=None)
    t = Table(show_header=False, box=None, padding=0)
    t.add_column(width=14)
    t.add_row(CodeText("FFMA.SAT R0, -R6, R3, 0.5"))
    with console.capture() as cap:
        console.print(t)
    lines = [line.rstrip() for line in cap.get().splitlines()]
    assert lines == ["FFMA.SAT R0,", "-R6, R3, 0.5"], lines


@pytest.mark.parametrize("path, columns", [(NAIVE, 80), (NAIVE, 120), (SILU, 80), (SILU, 120)])
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_table_header_is_at_most_two_lines(path, columns, lang):
    """A header of a short count ("共享 wavefront/所需") wraps onto two lines at most where the room allows, never
    "共享" / "wavefront/" / "所需" stacked."""
    need(path)
    out = _out(("source", str(path), "--lang", lang), columns)
    blocks = _header_blocks(out)
    assert blocks and all(len(b) <= 2 for b in blocks), out


# ------------------------------------------------------------------------------ 5. a stall and its gloss
def test_a_stall_name_stays_with_its_gloss_where_both_fit_a_line():
    """"Wait" at a line's end and "（固定延迟依赖）" starting the next reads as two things: the name moves down."""
    lines = wrap("LG Throttle（全局/本地访存队列已满）98%、Wait（固定延迟依赖）不到 1%", 24)
    assert "Wait（固定延迟依赖）" in "\n".join(lines), lines
    assert not any(line.endswith("Wait") for line in lines), lines
    assert not any(line.endswith("不到") for line in lines), lines  # 不到 1%: the bound with its number
    # a gloss too long for one line with its name still breaks as prose does: nothing lost, nothing over
    text = "Long Scoreboard（等待 L1/TEX 缓存的访存结果）100%、Dispatch Stall（指令分派受阻）不到 1%"
    lines = wrap(text, 20)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
    assert all(cell_len(line) <= 20 for line in lines), lines


@pytest.mark.parametrize("lang", ["zh"])
@pytest.mark.parametrize("columns", [80, 120])
def test_diagnose_details_never_splits_a_stall_name_from_its_gloss(lang, columns):
    need(NAIVE)
    out = _out(("diagnose", "--details", str(NAIVE), "--lang", lang), columns)
    lines = out.splitlines()
    split = [(a, b) for a, b in zip(lines, lines[1:])
             if re.search(r"(?<![.\w/-])[A-Z][A-Za-z]+$", a.rstrip()) and re.match(r"\s*（[^（）]{1,16}）", b)]
    assert split == [], split


# ------------------------------------------------------------------------------ 2. a split table
RANKINGS = [(CASES / "N20_kineto_queued_launches.json", 80), (CASES / "N22_kineto_exposed_comm_two_streams.json", 80),
            (CASES / "N23_nsys_stats_cuda_gpu_trace.csv", 80), (CORPUS / "nsys/cts_rtx3070_array_inc_a.sqlite", 120)]
#: A header line of a part that holds the name column and one other column alone.
LONE = re.compile(r"^\s*(名称|Name)\s{2,}(\S+(?: \S+)*)\s*$")


@pytest.mark.parametrize("path, columns", RANKINGS)
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_split_table_leaves_no_column_alone_and_its_continuation_is_short(path, columns, lang):
    """A part of one column beside the name ("完全消除后" alone) joins the part before it where the name column can
    narrow for it, else takes that part's last column with it; a part after the first says "（续）" and no more of
    the caption than its new columns need (the explanation of 程序占比 / 提速 N× 后 is said once)."""
    need(path)
    out = _out(("timeline", "--details", str(path), "--lang", lang), columns)
    lone = [line for line in out.splitlines() if LONE.match(line)]
    assert lone == [], out
    flat = re.sub(r"\s+", "", out)
    cols = "“程序占比”与“提速N×后”各列" if lang == "zh" else "OfprogramandProgramifNx"
    head = "按总耗时排序的Kernel" if lang == "zh" else "Kernelsbytotaltime"
    ranking = flat[flat.index(head):]
    nexts = ["按总耗时排序的拷贝", "没有任何GPU工作的时间", "按总耗时排序的CUDAAPI", "Copiesandmemsets", "TimewithnoGPUwork",
             "CUDAAPIcallsbytotal"]
    ranking = ranking[:min((ranking.index(n) for n in nexts if n in ranking), default=len(ranking))]
    assert ranking.count(cols) <= 1, out
    if ranking.count(head) > 1:
        assert head + ("（续）" if lang == "zh" else "(continued)") in ranking, out


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_name_column_has_one_width_in_every_part(lang):
    """The parts of a split table wrap their names alike: at 120 columns "inc(int *, unsigned long)" is whole in
    each part, never "inc(int *, unsigned" / "long)" in the first and whole in the next."""
    path = CORPUS / "nsys/cts_rtx3070_array_inc_a.sqlite"
    need(path)
    out = _out(("timeline", "--details", str(path), "--lang", lang), 120)
    names = [re.split(r"\s{2,}", line.strip())[0] for line in out.splitlines() if line.startswith("  inc(")]
    assert len(names) >= 2 and len(set(names)) == 1, out


def test_split_parts_keeps_the_name_width_of_the_narrowest_part():
    """The rule for any split table: after fitting, no part's name column is wider than another's."""
    from rich import box

    from kernelscope.render.fit import fit_tables

    t = Table(title="Kernels", box=box.SIMPLE_HEAD, title_justify="left")
    t.add_column("Name", overflow="fold", min_width=12)
    for h in ["Count", "Total time", "Mean", "Min", "Max", "Share", "Of program", "if 2x", "if 10x", "if gone"]:
        t.add_column(h, justify="right", no_wrap=True)
    from kernelscope.render.cjk_console import name_text
    for name in ("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL", "fsdp_fwd_gemm_kernel"):
        t.add_row(name_text(name), "1", "60.00 ms", "60.00 ms", "60.00 ms", "60.00 ms", "30%", "0.0%", "negligible",
                  "negligible", "negligible")
    console = CJKConsole(width=80, record=True, color_system=None)
    with console.capture() as cap:
        for item in fit_tables([t], console):
            console.print(item)
    out = cap.get()
    firsts = [re.split(r"\s{2,}", line.strip())[0] for line in out.splitlines() if line.startswith("  ncclDev")]
    assert len(firsts) >= 2 and len(set(firsts)) == 1, out
    assert not any(LONE.match(line) for line in out.splitlines()), out


# ------------------------------------------------------------------------------ 3. names and their rows
DLRM = CORPUS / "torch_traces/param_dlrm_kineto_8rank_v100.tar.gz"


@pytest.mark.parametrize("lang, line", [("zh", "0～7：Tesla V100-SXM2-32GB（8 块）"),
                                        ("en", "0-7: Tesla V100-SXM2-32GB (8 GPUs)")])
@pytest.mark.parametrize("columns", [80, 120])
def test_gpus_of_one_name_are_listed_once(lang, line, columns):
    """Eight ranks on eight alike GPUs: one item with the range and the count, not the name eight times (broken
    mid-name where the line ends)."""
    need(DLRM)
    out = _out(("timeline", str(DLRM), "--lang", lang), columns)
    assert line in out, out
    assert out.count("V100-SXM2-32GB") == 1, out


def test_gpu_runs_keep_different_names_apart():
    from kernelscope.render.common import Fmt
    from kernelscope.render.timeline import _gpu_runs

    f = Fmt("zh")
    assert _gpu_runs([(0, "A"), (1, "A"), (2, "B"), (3, "A")], f) == ["0～1：A（2 块）", "2：B", "3：A"]
    assert _gpu_runs([(0, "A"), (2, "A")], Fmt("en")) == ["0: A", "2: A"]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_wrapped_change_hangs_under_its_start(lang):
    """In 程序预估 a change that wraps ("所有 Rank 上 ncclDev… 提速 2×") hangs its tail by two cells: it never
    starts at the margin where the next row's text starts."""
    path = CASES / "N14_ranks_ddp_compute_straggler"
    need(path)
    out = _out(("timeline", "--as-ranks", str(path), "--lang", lang), 80)
    lines = out.splitlines()
    title = "程序预估" if lang == "zh" else "Program if"
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    end = next(i for i in range(start + 3, len(lines)) if not lines[i].strip())
    rows = lines[start + 4:end]
    tails = [line for line in rows if not re.search(r"\d\.\d+(×|x)\s*$", line)]
    assert tails and all(line.startswith("    ") for line in tails), rows
    assert not any(line.rstrip().endswith("(") for line in rows), rows


# ------------------------------------------------------------------------------ 4. said once
ALEXNET = CORPUS / "torch_traces/hta_alexnet_a100_rank0_trace.json.gz"


@pytest.mark.parametrize("lang, short, long", [
    ("zh", "未记录，按“假设”行估算", "按每个 Kernel 读取上一个的输出"),
    ("en", "not recorded (estimated as the Assumed row says)", "each kernel reads the previous one's output")])
@pytest.mark.parametrize("columns", [80, 120])
def test_the_bytes_assumption_is_said_once_below_the_table(lang, short, long, columns):
    """A chain taken as such (no byte counts) has a short bytes cell that refers to the assumptions row, which
    says how once: not the sentence in every row and again below."""
    need(ALEXNET)
    out = _out(("fusion", str(ALEXNET), "--lang", lang), columns)
    flat = re.sub(r"\s+", "", out)
    tail = short.split()[-1] if lang == "en" else short[-6:]  # (the cell wraps in its column at 80 columns)
    assert flat.count(re.sub(r"\s+", "", tail)) >= 2, out
    assert flat.count(re.sub(r"\s+", "", long)) == 1, out
    from kernelscope.render.common import label  # the cell names the row it refers to by that row's own label
    row = label("fu_assumptions", lang)  # (native reviews 12, 13: "按“假设”估算" read as a section not shown)
    assert row in short and re.search(rf"^\s+{re.escape(row)}\s", out, re.M), out


# ------------------------------------------------------------------------------ 3. a GPU's name
def test_a_product_name_breaks_before_its_model_only():
    from kernelscope.render.cjk import model_breaks

    def parts(t):
        b = [0, *model_breaks(t), len(t)]
        return [t[x:y].strip() for x, y in zip(b, b[1:])]

    assert parts("NVIDIA GeForce GTX 1070") == ["NVIDIA", "GeForce", "GTX 1070"]
    assert parts("NVIDIA GeForce RTX 2060 SUPER") == ["NVIDIA", "GeForce", "RTX 2060 SUPER"]
    assert parts("NVIDIA GeForce RTX 5070 Ti Laptop GPU") == ["NVIDIA", "GeForce", "RTX 5070 Ti", "Laptop GPU"]
    assert parts("Tesla V100-DGXS-32GB") == ["Tesla", "V100-DGXS-32GB"]


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("columns", [80, 120])
def test_gpus_never_splits_a_model(lang, columns):
    """``gpus``: a name wraps before its model ("NVIDIA GeForce" / "GTX 1070"), never inside it ("NVIDIA GeForce
    GTX" / "1070", "… 1080" / "Ti")."""
    out = _out(("gpus", "--lang", lang), columns)
    lines = out.splitlines()
    bad = [(a, b) for a, b in zip(lines, lines[1:])
           if re.match(r"\S", b) and not re.search(r"\d\s*$", b) and re.match(r"(\d\S*|Ti|SUPER)\b", b)]
    assert bad == [], bad
    assert not any(re.match(r"\S.*\b(GTX|RTX)\s{2,}", line) for line in lines), out

"""Wrapping (native review 13, nits): no identifier or label word is cut where the layout can avoid it.

- ``timeline --details`` at 80 columns folded API names inside a word with no marker (``cudaLaunch`` / ``Kernel``,
  ``cudaGetDevice`` / ``Properties_v2``) where the share column, alone on a part, had been taken back beside them
  with the name column narrowed: a lone column joins the part before only where no name is cut inside a word
  (:func:`~kernelscope.render.fit._name_folds`); else the part before gives it its last column."""

from __future__ import annotations

import io
import re

import pytest
from rich import box
from rich.table import Table
from rich.text import Text

from conftest import SHARED, need
from kernelscope.render.cjk_console import CJKConsole, name_text
from kernelscope.render.fit import fit_tables
from test_zh_output import run_cli_uncached

NSYS = SHARED / "corpus" / "nsys"
API_NAMES = ("cudaMalloc", "cudaLaunchKernel", "cudaGetDeviceProperties_v2", "cuModuleGetLoadingMode",
             "cudaDeviceSynchronize")


def _api_table(share: str) -> Table:
    t = Table(title="CUDA API", box=box.SIMPLE_HEAD, title_justify="left")
    t.add_column("Name", justify="left", overflow="fold", min_width=12)
    for h in ("Count", "Total time", "Mean", "Min", "Max", "Share"):
        t.add_column(h, justify="right", no_wrap=True)
    for n, name in enumerate(API_NAMES):
        t.add_row(name_text(name), str(10 ** n), "915.9 ms", "781.1 µs", "1.786 µs", "1.014 ms",
                  share if n == len(API_NAMES) - 1 else "10.4%")
    return t


@pytest.mark.parametrize("share", ["< 0.1%", "不到 0.1%"])
def test_api_names_are_not_cut_inside_a_word(share):
    console = CJKConsole(file=io.StringIO(), width=80, record=True, color_system=None, soft_wrap=False)
    for item in fit_tables([_api_table(share)], console):
        console.print(item)
    out = console.export_text()
    assert all(len(line) <= 80 for line in out.splitlines()), out
    words = set(re.findall(r"\S+", out))
    for name in API_NAMES:
        assert name in words, out  # whole on a line, on every part


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("trace", ["cudatutorial_rtx3060_fused_bias_fp16_report.sqlite", "cts_rtx3070_array_inc_a.sqlite"])
def test_timeline_details_keeps_api_names_whole(trace, lang):
    code, out, err = run_cli_uncached(("timeline", "--details", str(need(NSYS / trace)), "--lang", lang), 80)
    assert code == 0, err
    lines = out.splitlines()
    for n, line in enumerate(lines):  # a name that ends a cell of the name column, its tail on the next line
        m = re.match(r"  (cu[A-Za-z_0-9]+) ", line)
        if m and n + 1 < len(lines):
            tail = re.match(r"  ([A-Za-z_0-9]+)\s*$", lines[n + 1])
            assert tail is None, "\n".join(lines[n - 2:n + 3])


# ---------------------------------------------------------------------------------------------- (a) label lists
from kernelscope.render.cjk import divide, label_breaks, strong_breaks, words  # noqa: E402
from kernelscope.render.cjk_console import labels_text  # noqa: E402
from rich.cells import cell_len  # noqa: E402

CEILING = "FP16 Tensor Core，FP16 累加 / FP8 Tensor Core"
NCU = SHARED / "corpus" / "ncu"
RTX4060 = NCU / "InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_01_naive.ncu-rep"


@pytest.mark.parametrize("text, sep", [(CEILING, " / "), ("FP32 CUDA 核心 / TF32 Tensor Core（已使用）", " / "),
                                       ("415 OP/B（L1）、207 FLOP/B（DRAM）、51.8 FLOP/B（L2 缓存）", "、"),
                                       ("FP16 tensor cores, FP16 accumulate / FP8 tensor cores", " / ")])
def test_a_label_list_breaks_between_labels_and_never_inside_a_word(text, sep):
    between = set(label_breaks(text, sep))
    inside = {i for a, b in words(text) for i in range(a + 1, b)}
    points = [0, *strong_breaks(text), len(text)]
    narrowest = max(cell_len(text[a:b].rstrip()) for a, b in zip(points, points[1:]))  # (narrower: folded)
    labels = [text[a:b] for a, b in zip([0, *between], [*between, len(text)])]
    for width in range(narrowest, 60):
        breaks = divide(text, width, labels=sep)
        if all(cell_len(lab.rstrip()) <= width for lab in labels):
            assert set(breaks) <= between, (width, breaks)  # each label fits: between labels only
        assert set(breaks) <= between | set(strong_breaks(text)), (width, breaks)
        assert not set(breaks) & inside, (width, breaks)  # never 累 / 加


def test_a_label_list_cell_gets_its_widest_label_where_the_table_has_room():
    t = Table(box=box.SIMPLE_HEAD)
    t.add_column("上限")
    t.add_column("峰值", justify="right", no_wrap=True)
    t.add_column("来源")
    t.add_row(labels_text(["FP16 Tensor Core，FP16 累加", "FP8 Tensor Core"]), "53.1 TFLOP/s",
              Text("数据手册峰值 × 0.91（采集时的 SM 频率）" * 2))
    console = CJKConsole(file=io.StringIO(), width=80, record=True, color_system=None, soft_wrap=False)
    for item in fit_tables([t], console):
        console.print(item)
    out = console.export_text()
    assert "FP16 Tensor Core，FP16 累加 /" in out and "  FP8 Tensor Core" in out, out


@pytest.mark.parametrize("columns", [80, 100])
def test_roofline_table_keeps_each_ceiling_label_whole(columns):
    code, out, err = run_cli_uncached(("roofline", str(need(RTX4060)), "--format", "table", "--lang", "zh"), columns)
    assert code == 0, err
    assert "累 " not in out.replace("累加", "") and not re.search(r"累\s*$", out, re.M), out
    assert re.search(r"FP16 Tensor Core，FP16 累加 /\s", out), out
    assert "TF32 Tensor Core（已使用）" in out, out


# ---------------------------------------------------------------------------------------------- (c) short lines
from kernelscope.render.cjk import GLUE_REACH, wrap  # noqa: E402

PROSE = ("torch.compile 编译该模块，让 Inductor 为整条链生成一个 Kernel，或调用已融合的算子",
         "应让更多加载同时在途，尽早发出互不依赖的加载（循环展开、每个线程处理多个元素），并让每个 SM 驻留更多 Warp（减少每个 Block 的寄存器或共享内存）")


@pytest.mark.parametrize("text", PROSE)
def test_a_determiner_run_leaves_no_short_line_and_no_word_split(text):
    for width in range(24, 70):
        lines = wrap(text, width)
        assert "".join(lines).replace(" ", "") == text.replace(" ", ""), width  # no character lost
        assert not any(line.endswith("更") for line in lines), (width, lines)  # 更多 whole
        for line, after in zip(lines, lines[1:]):
            m = re.match(r"(一个|更多|多) ", after)
            if m:  # the run moved down whole: the line it left gave up at most GLUE_REACH cells
                assert width - cell_len(line) <= GLUE_REACH + cell_len(m.group(1)) - 1 or \
                    cell_len(line) + cell_len(m.group(1)) > width, (width, lines)

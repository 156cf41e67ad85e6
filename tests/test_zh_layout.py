"""Chinese output laid out as a Chinese GPU engineer expects it (issue 28, items 3 to 5): one term per concept,
Chinese typography, every command at 80 and 120 columns.

- every zh text of every data file: no ASCII arrow ``->`` (``→``), no forbidden variant of the glossary, no command
  in ASCII quotes (code formatting);
- each term pair the issue found is decided by the glossary: the variant it saw is caught, the chosen word passes;
- ``--help`` in Chinese at every width from 70 to 130 columns: no line starts with closing punctuation, no number
  is cut from its unit;
- every command's zh output at 80 and 120 columns: no line wider than that, the name column (or the table's key
  text) shown, no cell cut to "总…" / "平…", no label left without its value, no line starting with closing
  punctuation and no number cut from its unit (the rules of tests/test_zh_output.py).
"""

from __future__ import annotations

import re
import tomllib

import pytest
from rich.cells import cell_len

from conftest import CASES, SHARED, need
from kernelscope.cli import COMMANDS, main
from kernelscope.knowledge import DATA
from kernelscope.knowledge.glossary import misused
from test_zh_output import ASCII_UNIT, FULL_WIDTH_NO_LINE_START, MEASURE_WORDS, fragments, run_cli, wrap_problems

CORPUS = SHARED / "corpus"
CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")


# ----------------------------------------------------------------------------------------------- the data files
def zh_values(data, where: str = "") -> list[tuple[str, str]]:
    """(key, text) of every Chinese text of a parsed data file: a ``zh`` field or a ``*_zh`` field, at any depth."""
    out = []
    if isinstance(data, dict):
        for k, v in data.items():
            if isinstance(v, str) and (k == "zh" or k.endswith("_zh")):
                out.append((f"{where}.{k}", v))
            else:
                out += zh_values(v, f"{where}.{k}")
    elif isinstance(data, list):
        for i, x in enumerate(data):
            out += zh_values(x, f"{where}[{i}]")
    return out


def _catalogue() -> dict[str, str]:
    out = {}
    for path in sorted(DATA.glob("*.toml")):
        if path.name != "glossary.toml":
            out.update({f"{path.name}:{k}": v for k, v in zh_values(tomllib.loads(path.read_text(encoding="utf-8")))})
    return out


#: A kernelscope command, a compiler or profiler command line in ASCII quotes ('kernelscope banks', 'nvcc -G').
_QUOTED_COMMAND = re.compile(r"'(?:kernelscope|nvcc|ncu|nsys|pip|\{prog\}) [^']*'")


def test_the_catalogue_is_read_whole():
    texts = _catalogue()
    assert len(texts) > 1000  # labels, findings, messages (errors and --help), stalls, units ...
    assert {k.split(":")[0] for k in texts} >= {"labels.toml", "messages.toml", "findings.toml", "stalls.toml"}


def test_no_ascii_arrow_in_any_zh_text():
    bad = {k: v for k, v in _catalogue().items() if "->" in v}
    assert not bad, "\n".join(f"{k}: {v[:120]}" for k, v in bad.items())


def test_no_forbidden_variant_in_any_zh_text():
    """Every data file (the term tests of tests/test_zh_terms.py read the seven the reports use; the messages,
    --help texts, metric and occupancy texts are checked here); code spans are commands, not prose."""
    bad = {k: misused(re.sub(r"`[^`]*`", "CODE", v)) for k, v in _catalogue().items()}
    bad = {k: v for k, v in bad.items() if v}
    assert not bad, "\n".join(f"{k}: {v}" for k, v in bad.items())


def test_commands_are_code_not_ascii_quoted():
    assert _QUOTED_COMMAND.search("（可用 'kernelscope banks' 检查布局）")
    assert not _QUOTED_COMMAND.search("pip install 'kernelscope[cluster]'")  # a shell word in quotes, not a command
    bad = {k: m.group(0) for k, v in _catalogue().items() if (m := _QUOTED_COMMAND.search(v))}
    assert not bad, bad


# ----------------------------------------------------------------------------------------------- the glossary
@pytest.mark.parametrize("seen, decided", [
    ("显存（DRAM）带宽", "DRAM 带宽"),
    ("显存 DRAM", "DRAM"),
    ("线程分歧", "分支发散"),
    ("最后一波是否不满", "最后一轮是否不满"),
    ("16.1 路 Bank 冲突，最差 32-way", "32 路 Bank 冲突"),
    ("无：1-way（无冲突）", "无：1 路（无冲突）"),
    ("占 L1 全局 + 局部扇区的 40%", "占 L1 全局与本地内存扇区的 40%"),
    ("分析器版本", "采集工具"),
    ("加速比 0.02×（慢了 5430%）", "加速比 0.02×（变慢，耗时为优化前的 55.3×）"),
    ("该项提速 2× 后的整体加速比", "提速 2× 后"),
    ("前后各仅一次启动", "运行间波动未知：优化前 1 次启动，优化后 10000 次，每侧至少需要两次"),
    ("前面有 1-1 个操作", "前面有 1～3 个操作"),
])
def test_the_glossary_decides_each_pair_issue_28_saw(seen, decided):
    assert misused(seen), seen
    assert not misused(decided), misused(decided)


# ----------------------------------------------------------------------------------------------- --help
def help_problems(text: str) -> list[str]:
    """Lines of a --help text that start with closing punctuation, or whose number is cut from its unit."""
    lines = [line.strip() for line in text.splitlines()]
    out = [f"starts with {b[0]!r}: {a!r} / {b!r}" for a, b in zip(lines, lines[1:]) if b and b[0] in FULL_WIDTH_NO_LINE_START]
    out += [f"number cut from its unit: {a!r} / {b!r}" for a, b in zip(lines, lines[1:])
            if re.search(r"\d$", a) and (b.startswith(MEASURE_WORDS) or ASCII_UNIT.match(b))]
    return out


def test_help_problems_can_fail():
    assert help_problems("  在本地实例上（pip install x\n  ），运行")
    assert help_problems("  每次 16\n  字节")
    assert not help_problems("  在本地实例上（pip install x），\n  运行")


def _help_argv() -> list[list[str]]:
    """``--help`` of the program and of each command."""
    return [["--help"]] + [[c.name, "--help"] for c in COMMANDS]


@pytest.mark.parametrize("width", range(70, 131))
def test_help_in_chinese_breaks_lines_by_the_rules_at_every_width(width, monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", str(width))
    monkeypatch.setenv("KERNELSCOPE_LANG", "zh")
    bad = []
    for argv in _help_argv():
        with pytest.raises(SystemExit):
            main(argv)
        text = capsys.readouterr().out
        assert CJK.search(text), argv
        bad += [f"{argv[0]}: {p}" for p in help_problems(text)]
        bad += [f"{argv[0]}: wider than {width}: {line!r}" for line in text.splitlines()
                if CJK.search(line) and cell_len(line) > width]
    assert bad == []


# ----------------------------------------------------------------------------------------------- every command
def _sqlite(tmp: str) -> str:
    import sqlite3
    from pathlib import Path

    path = Path(tmp) / "c12.sqlite"
    if not path.exists():
        with sqlite3.connect(path) as db:
            db.executescript(need(CASES / "_nsys_min_schema.sql").read_text() +
                             need(CASES / "C12_nsys_util_overlap.sql").read_text())
    return str(path)


#: name -> (argv, texts the output must show at every width: the name column's names, the key rows' words). A
#: text is looked for with the output's blanks removed (a cell wrapped over lines still reads whole).
ZH_LAYOUT: dict[str, tuple[list[str], tuple[str, ...]]] = {
    "timeline-nsys-sqlite": (["timeline", "{corpus}/nsys/cts_rtx3070_array_inc_a.sqlite"], ("名称", "inc(int*")),
    "timeline-c12": (["timeline", "{sqlite}"], ("名称", "compute_step_kernel")),
    "timeline-kineto": (["timeline", "{corpus}/torch_traces/kineto_docs_before_fix_trace_h100.json", "--details"],
                        ("名称", "Kernel1", "GPU空闲", "cudaLaunchKernel")),
    "timeline-kineto-repaired": (["timeline", "{corpus}/torch_traces/hta_triton_example_a100.json.gz"],
                                 ("triton_poi_fused_", "跟踪文件未记录Rank", "已修正的记录1条标注区间记录")),  # wraps after a "_"
    "timeline-stats": (["timeline", "{cases}/N05_nsys_stats_context_init.txt"], ("名称", "cudaMalloc", "cudaFree")),
    "timeline-ranks": (["timeline", "{cases}/N14_ranks_ddp_compute_straggler"], ("名称", "Rank")),
    "compare-ncu": (["compare", "{corpus}/ncu/bautista-garcia__heat_sim__report_name.ncu-rep",
                     "{corpus}/ncu/bautista-garcia__heat_sim__profile.ncu-rep"], ("mantener_fuentes_de_calor", "运行间波动")),
    "compare-toml": (["compare", "{cases}/N16_compare_aa_before.toml", "{cases}/N16_compare_aa_after.toml"], ("加速比",)),
    "compare-slower": (["compare", "{cases}/N19_compare_inductor_before.toml", "{cases}/N19_compare_inductor_after.toml"],
                       ("变慢，耗时为优化前的1.50×",)),
    "compare-timelines": (["compare", "{corpus}/nsys/cts_rtx3070_array_inc_a.sqlite",
                           "{corpus}/nsys/cts_rtx3070_array_inc_d_uvm.sqlite"], ("加速比",)),
    "diagnose-ncu": (["diagnose", "-q", "{corpus}/ncu/bautista-garcia__heat_sim__report_name.ncu-rep"],
                     ("reduction_kernel", "分支发散")),
    "diagnose-csv": (["diagnose", "-q", "{corpus}/ncu_csv/olajide_rtx5070_gemm_tiled.csv"], ("Kernel",)),
    "diagnose-plain": (["diagnose", "-q", "{cases}/C01_plain_occupancy_221.toml"], ("占用率",)),
    "source": (["source", "{corpus}/ncu/Lashi0812__CudaProgramming__profile.ncu-rep"], ("readWriteOffset.cu:19",)),
    "banks": (["banks", "--dtype", "float", "--tile", "32x32", "--access", "column"], ("32路", "Bank冲突")),
    "roofline": (["roofline", "-q", "--format", "table", "{corpus}/ncu/LakshyaSingh354__CudaCode__report.ncu-rep"],
                 ("matmul_tiled",)),
    "occupancy": (["occupancy", "--arch", "sm_90", "--threads", "256", "--regs", "64"], ("理论占用率",)),
    "fusion": (["fusion", "{corpus}/torch_traces/hta_alexnet_a100_rank0_trace.json.gz"], ("sm80_xmma", "Kernel链")),
    "gpus": (["gpus"], ("H100", "名称")),
}


def _argv(name: str, tmp: str) -> tuple[str, ...]:
    need(CORPUS)
    need(CASES)
    argv, _ = ZH_LAYOUT[name]
    return tuple(a.format(corpus=CORPUS, cases=CASES, sqlite=_sqlite(tmp) if a == "{sqlite}" else "") for a in argv) \
        + ("--lang", "zh")


def truncated(narrow: str, wide: str) -> list[str]:
    """Pieces of the narrow output cut short by an ellipsis ("总…", "平…"): ending in "…" without being in the wide
    output (a kernel name elided by kernelscope, "ampere_sgemm…", is in both)."""
    whole = "\n".join(text for line in wide.splitlines() for _, _, text in fragments(line))
    return [text for line in narrow.splitlines() for _, _, text in fragments(line)
            if text.endswith("…") and text not in whole]


def test_truncated_can_fail():
    narrow = "   次…   总耗…   平均\n"
    wide = "  名称   次数   总耗时   平均\n"
    assert truncated(narrow, wide) == ["次…", "总耗…"]
    assert truncated("  ampere_sgemm…  1\n", "  ampere_sgemm…   1\n") == []


@pytest.fixture(scope="module")
def sqlite_dir(tmp_path_factory) -> str:
    return str(tmp_path_factory.mktemp("zh_layout"))


@pytest.mark.parametrize("columns", [80, 120])
@pytest.mark.parametrize("name", sorted(ZH_LAYOUT))
def test_zh_output_fits_and_keeps_its_names(name, columns, sqlite_dir):
    argv = _argv(name, sqlite_dir)
    code, narrow, err = run_cli(argv, columns)
    assert code in (0, 1), err
    _, wide, _ = run_cli(argv, 1000)
    assert CJK.search(narrow), "no Chinese in the output"
    assert max(map(cell_len, narrow.splitlines())) <= columns, \
        "\n".join(line for line in narrow.splitlines() if cell_len(line) > columns)
    flat = re.sub(r"\s+", "", narrow)
    missing = [text for text in ZH_LAYOUT[name][1] if re.sub(r"\s+", "", text) not in flat]
    assert missing == [], narrow
    assert truncated(narrow, wide) == []
    assert "->" not in narrow and misused(re.sub(r"`[^`]*`", "CODE", narrow)) == []  # → and the glossary's words
    # the rules of tests/test_zh_output.py, for the Chinese text (a C++ name folded like English is not Chinese)
    assert [p for p in wrap_problems(narrow, wide) if CJK.search(p)] == []


def test_compare_datasets_in_chinese_parts_grid_and_block_and_keeps_its_headers():
    """Grid and block are parted by " / " (a "～" reads as a range), "优化前中位数" stays whole, a slowdown says the
    ratio of the times with its noise in one bracket, and at 80 columns the speedup is kept over the shapes."""
    pa = pytest.importorskip("pyarrow", reason="pyarrow is the dataset extra: pip install '.[dataset]'")
    from kernelscope.analysis.compare_datasets import compare_datasets
    from kernelscope.render.compare_datasets import to_text

    rows = {"name": ["k"] * 3, "demangled_name": ["k()"] * 3, "grid": [[1, 1, 1]] * 3, "block": [[32, 1, 1]] * 3}
    c = compare_datasets(pa.table({**rows, "duration_s": [1.0, 1.1, 0.9]}), pa.table({**rows, "duration_s": [2.0, 2.2, 1.8]}))
    wide = to_text(c, "zh", width=160)
    assert "1x1x1 / 32x1x1" in wide and "～32x1x1" not in wide
    assert "优化前中位数" in wide and "优化后中位数" in wide
    assert "加速比 0.50×（变慢，耗时为优化前的 2.00×；" in wide
    narrow = to_text(c, "zh", width=80)
    assert max(map(cell_len, narrow.splitlines())) <= 80
    assert "0.50×（变" in narrow.split("─")[-1]  # the table's speedup column, not only the summary line

"""Layout kind of zh review 9 (issue 28), for every command and both languages: each table (its title and its note
with it) and each heading stands apart, exactly one blank line before and after it, on the terminal (80 and 120
columns) and in Markdown, and no two blank lines follow one another (:func:`kernelscope.render.rich_text.blocks`,
:func:`~kernelscope.render.rich_text.md_spaced`)."""

from __future__ import annotations

import io
import re
from unittest import mock

import pytest
from rich import box
from rich.cells import cell_len
from rich.table import Table
from rich.text import Text

from conftest import CASES, SHARED, need
from kernelscope.render import rich_text
from kernelscope.render.rich_text import Heading, md_spaced, to_plain
from test_zh_output import run_cli_uncached

CORPUS = SHARED / "corpus"
NCU = "{corpus}/ncu/"
TRACES = "{corpus}/torch_traces/"

#: Every command, on inputs of each kind (``{corpus}`` and ``{cases}`` stand for the shared folders).
COMMANDS = {
    "diagnose": ["diagnose", NCU + "LakshyaSingh354__CudaCode__gemm_reps_naive.ncu-rep"],
    "diagnose-details": ["diagnose", "--details",
                         NCU + "InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_08_warp_tile.ncu-rep"],
    "diagnose-csv": ["diagnose", "{corpus}/ncu_csv/olajide_rtx5070_gemm_tiled.csv"],
    "timeline-kineto": ["timeline", TRACES + "hta_alexnet_a100_rank0_trace.json.gz"],
    "timeline-nsys": ["timeline", "{corpus}/nsys/cts_rtx3070_array_inc_a.sqlite"],
    "timeline-ranks": ["timeline", "--as-ranks", "--jobs", "1", "{cases}/N14_ranks_ddp_compute_straggler"],
    "fusion": ["fusion", TRACES + "hta_alexnet_a100_rank0_trace.json.gz"],
    "compare": ["compare", NCU + "Atopos0313__cuda_learning__reports_day08_before.ncu-rep",
                NCU + "Atopos0313__cuda_learning__reports_day08_after.ncu-rep"],
    "compare-timelines": ["compare", "{corpus}/nsys/cts_rtx3070_array_inc_a.sqlite",
                          "{corpus}/nsys/cts_rtx3070_array_inc_d_uvm.sqlite"],
    "roofline": ["roofline", "--format", "table", NCU + "panjd123__cutlass__report-s8.ncu-rep"],
    "occupancy": ["occupancy", "--arch", "sm_86", "--regs", "64", "--threads", "256", "--smem", "48K"],
    "banks": ["banks", "--dtype", "float", "--tile", "32x32", "--access", "column"],
    "source": ["source", NCU + "bautista-garcia__heat_sim__report_name.ncu-rep"],
    "gpus": ["gpus"],
}

#: A rule under a table's header, or a border of a boxed table.
_RULE = re.compile(r"^ ?[─━═]{8,}")
_TOP = re.compile(r"^[┏┌╭]")
_BOTTOM = re.compile(r"^[┗└╰]")


def _argv(name: str, *extra: str) -> tuple[str, ...]:
    need(CORPUS)
    need(CASES)
    return tuple(a.format(corpus=CORPUS, cases=CASES) for a in COMMANDS[name]) + extra


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _printed(argv: tuple[str, ...], columns: int) -> tuple[str, list[str], list[str]]:
    """The command's terminal output at ``columns``, the texts of the headings it printed and of its tables'
    titles (recorded from what :func:`~kernelscope.render.rich_text.blocks` was given)."""
    headings: list[str] = []
    titles: list[str] = []
    real = rich_text.blocks

    def recording(renderables, console):
        renderables = list(renderables)
        for item in rich_text._flat(renderables):
            if isinstance(item, Heading):
                headings.append(item.plain)
            elif isinstance(item, Table) and item.title:
                titles.append(str(item.title))
        return real(renderables, console)

    with mock.patch.object(rich_text, "blocks", recording):
        code, out, err = run_cli_uncached(argv, columns)
    assert code in (0, 1), err
    return out, headings, titles


def _note(line: str) -> bool:
    """Whether ``line`` is a table's note of the columns it left out (printed under the table, part of it)."""
    return "more column(s) not shown here" in line or "列未显示" in line


def _row(line: str, first: int = 0) -> bool:
    """Whether ``line`` reads as a row of a borderless table: it starts with a blank (the table's edge), holds
    a gap of two blanks between its columns, or is no wider than the table's first column (``first`` cells: the
    wrapped name of a table without edge)."""
    return line.startswith(" ") or "  " in line.strip() or cell_len(line) <= first


def apart_problems(out: str, headings: list[str], titles: list[str]) -> list[str]:
    """Where a table or a heading of ``out`` touches a neighbour (no blank line between), and where two blank lines
    follow one another."""
    lines = [line.rstrip() for line in out.split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    problems = [f"two blank lines at {i}" for i in range(1, len(lines)) if not lines[i] and not lines[i - 1]]
    if lines and not lines[0]:
        problems.append("a blank first line")
    blank = lambda i: i < 0 or i >= len(lines) or not lines[i]  # noqa: E731
    squashed_titles = {_squash(t) for t in titles}
    for i, line in enumerate(lines):
        if _TOP.match(line):  # a boxed table: its title above it, then a blank line
            above = i - 1
            if not blank(above):
                start = above
                while not blank(start - 1) and _squash("".join(lines[start - 1:above + 1])) in {
                        t[-len(_squash("".join(lines[start - 1:above + 1]))):] for t in squashed_titles}:
                    start -= 1
                if _squash("".join(lines[start:above + 1])) not in squashed_titles or not blank(start - 1):
                    problems.append(f"glued above a table: {lines[above]!r}")
        elif _BOTTOM.match(line):
            after = i + 1 + (not blank(i + 1) and _note(lines[i + 1]))
            if not blank(after):
                problems.append(f"glued below a table: {lines[after]!r}")
        elif _RULE.match(line):  # a borderless table: title and header above its rule, rows below it
            start = i
            while not blank(start - 1):
                start -= 1
            head = lines[start:i]
            k = next((k for k in range(len(head) + 1) if _squash("".join(head[:k])) in squashed_titles), 0)
            if not all(_row(h) for h in head[k:]) or len(head) - k > 4:
                problems.append(f"glued above a table: {head[0]!r}")
            end = i
            first = len(head[-1]) - len(head[-1].lstrip()) + next(
                (m.end() for m in re.finditer(r"\S {2,}", head[-1].strip())), 0) if head else 0
            while not blank(end + 1):
                end += 1
                if not (_row(lines[end], first) or _note(lines[end]) and blank(end + 1)):
                    problems.append(f"glued below a table: {lines[end]!r}")
                    break
    for heading in headings:
        h = _squash(heading)
        for i in range(len(lines)):
            if not lines[i]:
                continue
            j, got = i, ""
            while j < len(lines) and len(got) < len(h) and h.startswith(got + _squash(lines[j])):
                got += _squash(lines[j])
                j += 1
            if got == h and h:
                if not blank(i - 1) or not blank(j):
                    problems.append(f"heading not apart: {heading!r}")
                break
        else:
            problems.append(f"heading not printed on lines of its own: {heading!r}")
    return problems


@pytest.mark.parametrize("columns", [80, 120])
@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_table_and_heading_stands_apart(name, lang, columns):
    out, headings, titles = _printed(_argv(name, "--lang", lang), columns)
    assert out.strip()
    assert apart_problems(out, headings, titles) == [], out


def md_problems(text: str) -> list[str]:
    """Where a Markdown table or heading touches a neighbour, where two blank lines follow one another (outside
    fenced code), and where a paragraph follows a list item with no blank line (it would join the item)."""
    problems, fence = [], False
    lines = text.split("\n")
    kinds = []
    for line in lines:
        if line.startswith("```"):
            fence = not fence
            kinds.append("fence")
            continue
        kinds.append("code" if fence else rich_text._md_kind(line))
    for i in range(1, len(lines)):
        a, b = kinds[i - 1], kinds[i]
        if a == b == "blank":
            problems.append(f"two blank lines at {i}")
        elif "blank" not in (a, b) and "code" not in (a, b) and "fence" not in (a, b) and (
                {a, b} & {"table", "heading"} and a != b or a == b == "heading" or (a, b) == ("item", "text")):
            problems.append(f"glued: {lines[i - 1][:50]!r} / {lines[i][:50]!r}")
    return problems


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_markdown_sets_tables_and_headings_apart(name, lang):
    argv = _argv(name, "--lang", lang)
    argv = tuple(a for a in argv if a not in ("--format", "table")) + ("--format", "markdown")
    code, out, err = run_cli_uncached(argv, 100)
    assert code in (0, 1), err
    assert out.count("|") > 3 and md_problems(out) == [], out


def test_md_spaced_sets_blocks_apart():
    text = "# T\nintro\n| a |\n|---|\n| 1 |\ntext\n\n\n\n**Title**\n- item\nafter\n```\nx\n\n\ny\n```\nend"
    assert md_spaced(text) == ("# T\n\nintro\n\n| a |\n|---|\n| 1 |\n\ntext\n\n**Title**\n\n- item\n\nafter\n\n"
                               "```\nx\n\n\ny\n```\n\nend\n")
    assert md_problems(md_spaced(text).replace("\n\n\ny", "y")) == []


def test_blocks_set_tables_and_headings_apart():
    def table(title=None, edge=True):
        t = Table(title=title, box=box.SIMPLE_HEAD if edge else box.HEAVY_HEAD, title_justify="left")
        t.add_column("a")
        t.add_row("1")
        return t

    out = to_plain([Text("one"), Text("two"), table("T"), Text("three"), Heading("H"), Text("four"), Text(""),
                    Text(""), Text("five"), table(), table(edge=False), Text("six")], 40).split("\n")
    assert out[:4] == ["one", "two", "", "T"]
    text = "\n".join(out)
    assert "\n\n\n" not in text and "\n\nthree\n\nH\n\nfour\n\nfive\n\n" in text and text.endswith("└───┘\n\nsix\n")


# ------------------------------------------------------------------------------------- source: the stall column
SILU = NCU + "AlpriElse__cs599k__silu_triton_silu-2025-04-18-v8.ncu-rep"


@pytest.mark.parametrize("lang, stall", [("zh", "Long Scoreboard（等待 L1/TEX 缓存的访存结果）100%"),
                                         ("zh", "Drain（退出前等待写回）98%、Branch Resolving")])
def test_the_stall_column_has_room_at_120_columns(lang, stall):
    """At 120 columns a stall's name and gloss fit one line of the hottest instructions (the short counts go to a
    part of their own); every column is still shown."""
    COMMANDS["source-silu"] = ["source", SILU]
    try:
        out, _, _ = _printed(_argv("source-silu", "--lang", lang), 120)
    finally:
        del COMMANDS["source-silu"]
    assert any(stall in line for line in out.splitlines()), out
    assert "列未显示" not in out and "not shown here" not in out
    for head in (("冲突路数", "活跃线程", "执行次数") if lang == "zh" else ("n-way", "Threads/32", "Executed")):
        assert head in out, out


# ------------------------------------------------------------------------- timeline --as-ranks: the imbalance table
@pytest.mark.parametrize("lang, columns, most, heads", [
    ("zh", 80, 2, ["最大/", "Rank 数", "最大值"]), ("zh", 120, 1, ["最大/中位", "最大值 Rank", "运行 Rank 数"]),
    ("en", 80, 3, ["Max /", "running", "Ranks"]), ("en", 120, 1, ["Max / median", "Rank of max", "Ranks running it"])])
def test_the_imbalance_table_keeps_every_column(lang, columns, most, heads):
    """The kernels' imbalance across ranks is one table at 80 columns too (no part, no column left out), each
    header on at most two lines where the room allows (``Rank 数`` whole), on one line at 120."""
    out, _, titles = _printed(_argv("timeline-ranks", "--lang", lang), columns)
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(("主要 Kernel", "Top kernels")))
    rule = next(i for i in range(start, len(lines)) if _RULE.match(lines[i]))
    header = lines[start + 2:rule]
    assert len(header) <= most, out  # (English at 80: "Ranks / running / it", no room for two lines)
    assert all(any(h in line for line in header) for h in heads), header
    end = next((i for i in range(rule, len(lines)) if not lines[i].strip()), len(lines))
    assert all(re.search(r"\d/\d\s*$", line) or not re.search(r"\d", line[20:]) for line in lines[rule + 1:end])
    assert "列未显示" not in out and "not shown here" not in out


# ------------------------------------------------------------------------------ the fusion table at 80 columns
@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("argv", [["fusion", TRACES + "hta_trace_filter_sampled_rank-0.json.gz"],
                                  ["fusion", TRACES + "hta_alexnet_a100_rank0_trace.json.gz"],
                                  ["timeline", TRACES + "hta_alexnet_a100_rank0_trace.json.gz"]])
def test_the_fusion_chain_has_the_room_the_numbers_leave(argv, lang):
    """At 80 columns the fusion table keeps every column (in two parts) and its chain column has the width the
    numbers leave (more than two dozen cells, not a name cut to a dozen), its headers broken, if at all, before a
    bracket (字节数 / （前→后）), never inside one."""
    need(CORPUS)
    code, out, err = run_cli_uncached(tuple(a.format(corpus=CORPUS) for a in argv) + ("--lang", lang), 80)
    assert code == 0, err
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("  #1 "))
    end = next(i for i in range(start, len(lines)) if not lines[i].strip())
    widest = max(cell_len(re.split(r" {2,}", line.strip())[0]) for line in lines[start:end])
    assert widest >= 24, lines[start:end]  # the chain column's widest line
    assert "列未显示" not in out and "not shown here" not in out
    heads = [lines[j] for i, line in enumerate(lines) if _RULE.match(line) for j in range(max(0, i - 3), i)]
    assert not any(re.search(r"[（(][^）)]*$", re.split(r" {2,}", cell)[0]) for line in heads
                   for cell in re.split(r" {2,}", line.strip())), heads  # no header cut inside its brackets
    assert len([line for line in lines if line.startswith("  #1 ")]) == 2  # two parts, #1 in each


# ------------------------------------------------------------------------ source: the bank-conflict header whole
NAIVE = NCU + "InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_01_naive.ncu-rep"


@pytest.mark.parametrize("columns", [80, 120])
def test_the_nway_header_is_not_split(columns):
    """The zh header of the bank-conflict column ("冲突路数") stays whole: no header line holds a lone "n"."""
    COMMANDS["source-naive"] = ["source", NAIVE]
    try:
        out, _, _ = _printed(_argv("source-naive", "--lang", "zh"), columns)
    finally:
        del COMMANDS["source-naive"]
    assert "冲突路数" in out, out
    assert not any(re.search(r"(^|\s)n\s*$", line) for line in out.splitlines()), out


# ----------------------------------------------------------------- compare: the paragraphs after the sections
@pytest.mark.parametrize("lang, heads", [
    ("zh", ["  实测 1.33×", "启动配置：", "根据优化前诊断结果的预估：", "模型核对：", "Nsight Compute 规则的预估（优化前）："]),
    ("en", ["  measured 1.33x", "Launch configuration:", "Estimated from the BEFORE findings:", "Model check:",
            "Nsight Compute rule estimate (BEFORE):"])])
def test_the_compare_paragraphs_are_set_apart(lang, heads):
    """After the sections, the launch change, the estimate from the findings, the model check and the rules'
    estimates are each a paragraph of its own: a blank line before each (the rules' estimates one group)."""
    out, _, _ = _printed(_argv("compare", "--lang", lang), 80)
    lines = out.splitlines()
    at = [next(i for i, line in enumerate(lines) if line.startswith(h)) for h in heads]
    assert at == sorted(at), out
    assert all(not lines[i - 1].strip() for i in at[1:]), out
    for a, b in zip(at, at[1:]):
        assert sum(not line.strip() for line in lines[a:b]) == 1, out


# ------------------------------------------------------------------------------ source: the SASS column's room
def test_the_sass_column_keeps_its_instruction_whole_at_120_columns():
    """At 120 columns a SASS instruction with its operands is on one line (the stall column still has its room)."""
    COMMANDS["source-silu-cuda"] = ["source", NCU + "AlpriElse__cs599k__silu_CUDA_ncu-reports_2025-04-21-77_06-MT.ncu-rep"]
    try:
        out, _, _ = _printed(_argv("source-silu-cuda", "--lang", "zh"), 120)
    finally:
        del COMMANDS["source-silu-cuda"]
    assert "FFMA.SAT R0, -R6, R3, 0.5" in out, out
    assert not any(line.strip() == "0.5" or line.strip().startswith("0.5 ") for line in out.splitlines()), out
    assert any("Long Scoreboard（等待 L1/TEX 缓存的访存结果）97%" in line for line in out.splitlines()), out


def _file_table(path_cells: int) -> Table:
    """A per-rank-shaped table: a rank, a file path of ``path_cells`` characters, seven durations; an edge and a
    title, as the renderers make them."""
    t = Table(title="Per rank", box=box.SIMPLE_HEAD, title_justify="left")
    heads = ["Rank", "File", "Wall", "Computation", "Communication", "Overlap", "Exposed comm.", "Collective wait",
             "Own work (wall - wait)", "vs median"]
    for h in heads:
        t.add_column(h, overflow="fold")
    for r in range(4):
        t.add_row(str(r), "/" + "p" * (path_cells - 12) + f"/rank{r}.json", "362.1 ms", "152.1 ms", "210.0 ms", "0",
                  "210.0 ms", "200.0 ms", "162.1 ms", "+123.4% (straggler)")
    return t


@pytest.mark.parametrize("width", [80, 100, 120, 140])
def test_a_split_table_loses_no_column_whatever_its_cells(width):
    """The kind of the CI failure at /check/work (issue 28): a table split into parts (:func:`fit.split_parts`) was
    grouped by checking its first part without the edge and title it is printed with, so a first part that fitted
    in the check lost its last column when printed ("1 more column(s) not shown here: Overlap"), at some lengths of
    a file path only. Every length from 20 to 100 cells, the whole table printed: every header there, none left
    out."""
    from rich.console import Console

    from kernelscope.render.fit import fit_tables

    bad = []
    for cells in range(20, 101):
        table = _file_table(cells)
        heads = [str(c.header) for c in table.columns]
        console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
        for item in fit_tables([table], console):
            console.print(item)
        out = console.export_text()
        if "not shown here" in out or not all(h.split()[0] in out for h in heads):
            bad.append(cells)
    assert bad == []


@pytest.mark.parametrize("columns", [80, 120])
def test_the_ranks_tables_keep_every_column_whatever_the_path(tmp_path, columns):
    """The same through the command: N14's rank traces under folders whose names make the paths 0 to 40 cells
    longer; no column of the per-rank table is ever left out (the File column wraps, or later columns move on)."""
    import shutil

    need(CASES)
    src = CASES / "N14_ranks_ddp_compute_straggler"
    bad = []
    for extra in range(0, 41, 1):
        folder = tmp_path / ("d" * (extra + 1)) / "N14"
        shutil.copytree(src, folder)
        code, out, err = run_cli_uncached(("timeline", "--as-ranks", "--jobs", "1", str(folder)), columns)
        assert code == 0, err
        if "not shown here" in out or "Hidden comm." not in out:
            bad.append(extra)
    assert bad == []


def test_the_per_rank_table_names_files_relative_to_their_folder():
    """Rank files of one folder: the folder is said once (Input), each row names its file within it, so the table's
    width does not follow the length of the folder's path (a full path per row wrapped or pushed columns away)."""
    need(CASES)
    folder = CASES / "N14_ranks_ddp_compute_straggler"
    code, out, err = run_cli_uncached(("timeline", "--as-ranks", "--jobs", "1", str(folder)), 200)
    assert code == 0, err
    rows = [line for line in out.splitlines() if re.match(r"^\s+\d\s+rank\d\.json\s", line)]
    assert len(rows) == 4, out
    assert str(folder) in out and out.count(str(folder)) == 1, out

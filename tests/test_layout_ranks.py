"""The per-rank table of ``timeline --as-ranks`` says what its percentage compares (review zh12, item 6): the column
"相对中位数" / "vs median" sat beside 步时长中位数 / "Median step" (Rank 1, the slowest step at 19.90 ms, read -9.9%;
Rank 7, the fastest at 12.51 ms, a straggler at +11.4%), but it is each rank's own work against the median own work
(per step where the traces hold different step counts: ``compared_by``). Its header says so, it follows the own
work column directly (the steps after it), and a split table never puts the two on different parts
(:func:`~kernelscope.render.fit.with_previous`)."""

from __future__ import annotations

import io
import json
import re

import pytest
from rich import box
from rich.table import Table

from conftest import CASES, SHARED, need
from kernelscope.render.cjk_console import CJKConsole
from kernelscope.render.common import Fmt
from kernelscope.render.fit import fit_tables, with_previous
from test_zh_output import run_cli_uncached

N14 = CASES / "N14_ranks_ddp_compute_straggler"
DLRM = SHARED / "corpus" / "torch_traces" / "param_dlrm_kineto_8rank_v100.tar.gz"


def _md_head(out: str, first: str) -> list[str]:
    """The header cells of the Markdown table whose header starts with ``first``."""
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0] == first:
            return cells
    raise AssertionError(out)


def _parts(out: str, first: str) -> list[str]:
    """The header lines of each part of the terminal table whose header rows start with ``first`` (the lines above
    each rule, up to the blank line before them), each part's header as one string."""
    lines = out.splitlines()
    heads = []
    for n, line in enumerate(lines):
        if set(line.strip()) == {"─"} and n and lines[n - 1].split()[:1] == [first]:
            top = n - 1
            while top > 0 and lines[top - 1].strip():
                top -= 1
            heads.append(" ".join(" ".join(lines[top:n]).split()))
    return heads


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("path", [N14, DLRM], ids=["N14", "dlrm"])
def test_the_vs_median_column_says_own_work_and_follows_it(path, lang):
    f = Fmt(lang)
    code, out, err = run_cli_uncached(("timeline", "--as-ranks", "--jobs", "1", "--format", "markdown",
                                       str(need(path)), "--lang", lang), 120)
    assert code == 0, err
    head = _md_head(out, f.label("tl_rank"))
    vs, own = f.label("tl_ar_vs_median"), f.label("tl_ar_own")
    assert vs == ("自身工作相对中位数" if lang == "zh" else "Own work vs median")
    assert head.index(vs) == head.index(own) + 1, head  # beside the own work it is of
    if f.label("tl_ar_median_step") in head:  # the steps after it
        assert head.index(f.label("tl_ar_steps")) > head.index(vs) and head.index(f.label("tl_ar_median_step")) > head.index(vs)


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("columns", [80, 120])
@pytest.mark.parametrize("path", [N14, DLRM], ids=["N14", "dlrm"])
def test_a_split_never_separates_own_work_and_its_comparison(path, columns, lang):
    code, out, err = run_cli_uncached(("timeline", "--as-ranks", "--jobs", "1", str(need(path)), "--lang", lang),
                                      columns)
    assert code == 0, err
    parts = _parts(out, "Rank")
    if lang == "en":  # (an English header's words: it wraps, its lines beside the other headers')
        parts = [p.split() for p in parts]
    mark, own = ("自身工作相对中位数", "时长减等待") if lang == "zh" else ("vs", "(wall")
    holding = [p for p in parts if mark in p]
    assert len(holding) == 1 and own in holding[0], parts


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_compared_per_step_says_per_step(tmp_path, lang):
    from test_timeline_collectives import _doc, _k, _step

    ev0 = [_step(1, 1000, 100), _step(2, 1100, 140), _step(3, 1240, 100), _k("gemm", 1000, 340)]
    ev1 = [_step(1, 1000, 100), _step(2, 1100, 100), _k("gemm", 1000, 200)]
    (tmp_path / "r0.json").write_text(json.dumps(_doc(0, ev0)))
    (tmp_path / "r1.json").write_text(json.dumps(_doc(1, ev1)))
    argv = ("timeline", "--as-ranks", "--jobs", "1", str(tmp_path / "r0.json"), str(tmp_path / "r1.json"),
            "--lang", lang)
    code, out, err = run_cli_uncached(argv + ("--format", "markdown"), 120)
    assert code == 0, err
    f = Fmt(lang)
    head = _md_head(out, f.label("tl_rank"))
    per_step = f.label("tl_ar_vs_median_step")
    assert per_step == ("每步自身工作相对中位数" if lang == "zh" else "Own work per step vs median")
    assert head.index(per_step) == head.index(f.label("tl_ar_own")) + 1 and f.label("tl_ar_vs_median") not in head


def _wide_table() -> Table:
    t = Table(title="Per rank", box=box.SIMPLE_HEAD, title_justify="left")
    for h in ("Rank", "File", "Wall", "Computation", "Communication", "Overlap", "Exposed comm.", "Collective wait",
              "Own work (wall - wait)", "Own work vs median", "Steps", "Median step"):
        t.add_column(h, overflow="fold", justify="left" if h in ("Rank", "File") else "right")
    for r in range(4):
        t.add_row(str(r), f"worker{r}_step_12.1694128201545.pt.trace.json", "362.1 ms", "152.1 ms", "210.0 ms", "0",
                  "210.0 ms", "200.0 ms", "162.1 ms", "+123.4% (straggler)", "1", "14.46 ms")
    return with_previous(t, 9)


@pytest.mark.parametrize("width", range(60, 141, 4))
def test_a_column_said_to_read_with_the_one_before_is_never_split_from_it(width):
    """The kind, without a trace: at every width the part that holds the comparison holds what it compares."""
    console = CJKConsole(file=io.StringIO(), width=width, record=True, color_system=None, soft_wrap=False)
    for item in fit_tables([_wide_table()], console):
        console.print(item)
    parts = _parts(console.export_text(), "Rank")
    holding = [p for p in parts if "vs" in p.split()]
    assert len(holding) == 1 and "(wall" in holding[0].split(), parts


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_rank_mark_says_what_it_marks(lang):
    """Native review 13: the * of a multi-rank timeline was read as "the slowest rank (it ends the program)" while
    it marks the rank with the most own work (the straggler candidate; rank 5 of the dlrm trace, 11.83 ms of own
    work, where rank 1 has the longest wall). The marked rank's own work is the largest of the table, and the legend
    does not call it the slowest."""
    from test_zh_output import run_cli_uncached

    trace = need(SHARED / "corpus" / "torch_traces" / "param_dlrm_kineto_8rank_v100.tar.gz")
    code, out, err = run_cli_uncached(("timeline", str(trace), "--lang", lang), 200)
    assert code == 0, err
    legend = next(line for line in out.splitlines() if "* " in line and ("Rank" in line or "rank" in line))
    assert ("slowest" not in legend) and ("最慢" not in legend), legend
    start = out.index(legend)
    lines = [ln for ln in out[start:].split("\n\n", 2)[1].splitlines() if re.match(r"^\s+\d+( \*)?\s+\d", ln)]
    scale = {"ms": 1.0, "µs": 1e-3}
    own = {}  # the seventh duration of a row: wall, communication, computation, overlap, exposed, wait, own work
    for ln in lines:
        times = [float(v) * scale[u] for v, u in re.findall(r"(\d[\d.]*) (ms|µs)", ln)]
        own[ln.split()[0]] = times[6]
    marked = [ln.split()[0] for ln in lines if ln.split()[1] == "*"]
    assert marked and own and marked[0] == max(own, key=own.get), (marked, own)

"""The short default (issue 27 item 2): without ``--details`` the terminal and Markdown reports show per kernel the
verdict, the limiter and the top findings with their estimates and locations, each caveat once per report, and the
timeline / compare views only the tables and kernels that matter; ``--details`` (``-v``) gives the whole report,
which holds everything the short one says; the JSON is the same either way."""

from __future__ import annotations

import json
import re

import pytest

from conftest import CORPUS_NCU, EXAMPLE, SHARED, need
from kernelscope.cli import main

FOUR = CORPUS_NCU / "AveryClapp__ESMM-Research__profile_output.ncu-rep"  # 4 launches, each with the FLOP caveat
NAIVE = CORPUS_NCU / "InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_01_naive.ncu-rep"
TRACES = SHARED / "corpus" / "torch_traces"
RESNET = TRACES / "kineto_tbplugin_resnet50_2021-01_worker0.pt.trace.json.gz"  # launch-bound: a CUDA-graph saving
SAMPLED = [TRACES / f"hta_trace_filter_sampled_rank-{r}.json.gz" for r in (0, 1)]  # 183 matched kernels
FLOP_CAVEAT = "are executed FLOPs"
GRAPH_CITATION = "ahrefs/ocannl issue #488"


def _out(capsys, monkeypatch, *argv: str) -> str:
    monkeypatch.setenv("COLUMNS", "200")
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def _rows(markdown: str) -> list[tuple[str, str]]:
    """(label, value) of every two-column panel row of a Markdown report."""
    return [(m[1].strip(), m[2].strip()) for m in re.finditer(r"^\| ([^|]*) \| (.*) \|$", markdown, re.M)]


def test_diagnose_default_is_shorter_with_each_caveat_once(capsys, monkeypatch):
    short = _out(capsys, monkeypatch, "diagnose", str(need(FOUR)))
    full = _out(capsys, monkeypatch, "diagnose", str(FOUR), "--details")
    assert full.count(FLOP_CAVEAT) == 4 and short.count(FLOP_CAVEAT) == 1  # one per panel -> once per report
    assert len(short.splitlines()) < 0.75 * len(full.splitlines())
    assert "Arithmetic intensity" in full and "Arithmetic intensity" not in short
    assert "What to do" in short and "--details" in short and "--details" not in full
    assert _out(capsys, monkeypatch, "diagnose", str(FOUR), "-v") == full  # -v is --details


@pytest.mark.parametrize("report", [EXAMPLE, NAIVE], ids=["example", "corpus"])
def test_details_holds_everything_the_default_says(report, capsys, monkeypatch):
    short = _out(capsys, monkeypatch, "diagnose", str(need(report)), "--format", "markdown")
    full = _out(capsys, monkeypatch, "diagnose", str(report), "--format", "markdown", "--details")
    values: dict[str, list[str]] = {}
    label = ""
    for lab, value in _rows(full):
        label = lab or label  # a continued row (the 2nd advice) belongs to the label above
        values.setdefault(label, []).append(value)
    shown = 0
    label = ""
    for lab, value in _rows(short):
        label = lab or label
        if "--details" in value or label in ("Kernel", ""):
            continue
        for part in re.split(r"; |, ", value):  # the short row is a part of the full one (fewer units, no evidence)
            assert any(part in v for v in values[label]), (label, part)
        shown += 1
    assert shown >= 4
    notes = re.findall(r"^- \*\*((?:\[\d+\] ?)+)\*\*(?:: |：)(.*)$", short, re.M)  # the footnotes: each caveat in the full report
    assert notes and all(text in full for _, text in notes)


@pytest.mark.parametrize("argv", [["diagnose", str(NAIVE)], ["timeline", str(RESNET)]], ids=["diagnose", "timeline"])
def test_json_is_the_same_with_and_without_details(argv, capsys, monkeypatch):
    need(SHARED / "corpus")
    plain = _out(capsys, monkeypatch, *argv, "--format", "json")
    assert json.loads(plain) and _out(capsys, monkeypatch, *argv, "--format", "json", "--details") == plain


def test_timeline_default_keeps_the_headline_and_leaves_the_graph_citation_to_details(capsys, monkeypatch):
    short = _out(capsys, monkeypatch, "timeline", str(need(RESNET)))
    full = _out(capsys, monkeypatch, "timeline", str(RESNET), "--details")
    assert len(short.splitlines()) < 0.4 * len(full.splitlines())
    for kept in ("Largest time black hole", "Kernels by total time", "Checks (timeline expert rules)"):  # a PyTorch trace
        assert kept in short and kept in full
    assert "CUDA API calls by total time" in full and "More tables (" in short
    assert GRAPH_CITATION not in short and GRAPH_CITATION in full  # a source is for --details, not the user's note
    assert "Notes, once for the report" not in short  # no panels, so no "[n]: the panels" in the notes' title
    assert short.index("CUDA-graph replay model") > short.index("\nNotes")  # a footnote, not a row


def test_timeline_compare_shows_the_largest_changes_and_counts_the_rest(capsys, monkeypatch):
    argv = ["compare", *map(str, (need(p) for p in SAMPLED))]
    short = _out(capsys, monkeypatch, *argv)
    full = _out(capsys, monkeypatch, *argv, "--details")
    pairs = json.loads(_out(capsys, monkeypatch, *argv, "--format", "json"))["kernels"]
    assert len(pairs) > 5 and full.count("What moved:") == len(pairs) and short.count("What moved:") == 5
    assert f"{len(pairs) - 5} more compared kernels" in short
    assert len(short.splitlines()) < 0.1 * len(full.splitlines())
    by_change = sorted(pairs, key=lambda p: -abs(p["after"]["total_s"] - p["before"]["total_s"]))
    rows = [x for x in short.splitlines() if x.lstrip().startswith("Total (mean)")]
    assert len(rows) == 5
    for p in by_change[:5]:  # the largest changes of total time are the ones shown
        before, after = _totals(p["before"], p["after"])
        assert any(before in r and after in r.split(before, 1)[1] for r in rows), (before, after)
    md = _out(capsys, monkeypatch, *argv, "--format", "markdown")
    assert md.count("### `") == 5 and f"{len(pairs) - 5} more compared kernels" in md


def _totals(before: dict, after: dict) -> tuple[str, str]:
    """The two sides' "Total (mean)" cells as the table prints them: the totals in one unit and precision, the means
    in one."""
    from kernelscope.render.common import Fmt

    f = Fmt("en")
    totals, means = f.times(before["total_s"], after["total_s"]), f.times(before["mean_s"], after["mean_s"])
    return (f.label("total_mean_value", total=totals[0], mean=means[0]),
            f.label("total_mean_value", total=totals[1], mean=means[1]))


def test_readme_output_is_what_the_first_command_prints(capsys, monkeypatch):
    """The README's sample output is the real output of its first command (trimmed, never edited)."""
    from conftest import REPO

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    block = readme.split("`kernelscope diagnose examples/seed_kernels.toml` prints", 1)[1].split("\n\n`", 1)[0]
    sample = [x.strip() for x in block.splitlines()[1:] if x.startswith("    ") and x.strip()]
    monkeypatch.setenv("COLUMNS", "100")
    assert main(["diagnose", str(EXAMPLE)]) == 0
    printed = [x.strip() for x in capsys.readouterr().out.splitlines()]
    assert len(sample) >= 8 and all(x in printed for x in sample), [x for x in sample if x not in printed]

"""Render details from the second Chinese review: names cut between tokens, Markdown values on one line, the
timeline ranking captions saying what each column is of (and nothing of columns not shown), the fusion bytes
cell, numbers without exponents and "not measured" never spliced into the middle of a sentence."""

from __future__ import annotations

import json
import re
import string

import pytest

from conftest import SHARED, need
from kernelscope.cli import main
from kernelscope.knowledge.text import labels, note_text
from kernelscope.render.common import Fmt, md_cell, plain_number, short_name, short_names

CORPUS = SHARED / "corpus"
#: Where a name may be cut: after these characters, or before those of :data:`_BEFORE`.
_AFTER, _BEFORE = "_:, ", "<(:, "


def _corpus_names() -> list[str]:
    """Kernel names of a few corpus timelines (long templated PyTorch / cuDNN names among them)."""
    names: list[str] = []
    for rel in ("torch_traces/hta_alexnet_a100_rank0_trace.json.gz", "nsys/ai4mat_nsys_stats_console_torch_gcn.txt",
                "torch_traces/hta_triton_example_a100.json.gz"):
        path = need(CORPUS / rel)
        out = _run(["timeline", "--format", "json", "--top", "50", str(path)])
        doc = json.loads(out)
        for rep in doc.get("reports", [doc]):
            names += [k["name"] for k in rep.get("kernels", [])]
    return list(dict.fromkeys(names))


def _run(args: list[str], capsys=None) -> str:
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        main(args)
    return buf.getvalue()


def _elided(name: str) -> list[str]:
    """The forms a name takes before it is cut (:func:`short_name`): without ``void``, templates, parameters."""
    text = name.removeprefix("void ")
    out = [text]
    for opener, closer in (("<", ">"), ("(", ")")):
        text = re.sub(r"\%s[^%s%s]*\%s" % (opener, opener, closer, closer), opener + "…" + closer, text)
        while re.search(r"\%s[^%s%s]*\%s" % (opener, opener, closer, closer), text.replace(opener + "…" + closer, "")):
            before = text
            text = re.sub(r"\%s(?!…\%s)[^%s]*?\%s" % (opener, closer, opener, closer), opener + "…" + closer, text)
            if text == before:
                break
        out.append(text)
    return out


@pytest.fixture(scope="module")
def names() -> list[str]:
    found = _corpus_names()
    assert len(found) >= 10
    return found


@pytest.mark.parametrize("width", [20, 30, 40, 60])
def test_short_names_cut_between_tokens(names, width):
    """Every cut of a corpus kernel name lies between two tokens (after ``_``, ``::``, ``,``, a blank or before
    ``<``, ``(``), never inside an identifier (``…ve::vectorized``, ``distribution_elemen…``), and no ``……``."""
    inside = []
    for name, short in zip(names, short_names(names, width)):
        assert "……" not in short, (name, short)
        text = short.split(" [")[0]
        if text == name or "…" not in text.replace("<…>", "").replace("(…)", ""):
            continue
        if text.startswith("…"):  # the scopes cut from the left
            tail = text[1:]
            forms = [f for f in _elided(name) if f.endswith(tail)]
            if forms and not any(f[len(f) - len(tail) - 1] in _AFTER or tail[0] in _BEFORE for f in forms):
                inside.append((name, short))
    assert not inside, inside[:5]


def test_short_name_keeps_the_scope_separator():
    """A name cut from the left starts at a ``::`` (``…::vectorized_elementwise_kernel<…>(…)``), never at the stump
    of a scope (``…ve::``)."""
    name = ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
            "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)")
    short = short_name(name, 40)
    assert short.startswith("…::vectorized_elementwise_kernel"), short
    assert len(short) <= 40


def test_markdown_cell_has_no_question_mark_for_a_line_break():
    """A value wrapped over two lines (the input path, then its format) reads as one line in Markdown: a space,
    never the ``?`` that stands for a control character in the terminal."""
    assert md_cell("/data/trace.json.gz\n（kineto，schema 1）") == "/data/trace.json.gz（kineto，schema 1）"
    assert md_cell("/data/trace.json.gz\n(kineto)") == "/data/trace.json.gz (kineto)"
    assert md_cell("a|b\r\n  c") == "a\\|b c"
    assert "?" not in md_cell("x\ty\x0bz")


def test_timeline_markdown_has_no_stray_question_mark():
    """The timeline Markdown of a trace holds no ``?`` (its overview values wrap in the table view)."""
    path = need(CORPUS / "torch_traces" / "hta_alexnet_a100_rank0_trace.json.gz")
    for lang in ("en", "zh"):
        out = _run(["timeline", "--format", "md", "--lang", lang, str(path)])
        assert "?" not in out.replace(str(path), ""), [ln for ln in out.splitlines() if "?" in ln][:3]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("columns", [80, 200])
def test_ranking_caption_matches_the_columns(monkeypatch, lang, columns):
    """The kernel ranking's caption says what Share is of and, only while a program column is shown, what those
    columns are of (at 80 columns they are dropped, and so is that part of the caption)."""
    path = need(CORPUS / "nsys" / "cts_rtx3070_array_inc_d_uvm.sqlite")
    monkeypatch.setenv("COLUMNS", str(columns))
    out = _run(["timeline", "--lang", lang, str(path)])
    f = Fmt(lang)
    lines = out.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith(f.label("tl_top_kernels")))
    head_at = next(i for i in range(start, len(lines)) if f.label("tl_name") in lines[i])
    caption = "".join(ln.strip() for ln in lines[start:head_at])
    header = lines[head_at]
    assert f.label("tl_share_of_kernels").replace(" ", "") in caption.replace(" ", "")
    program_cols = f.label("tl_cols_program").replace(" ", "")
    shown = f.label("tl_program_share") in header
    assert (program_cols in caption.replace(" ", "")) == shown, (caption, header)
    assert "程序列" not in caption and "program columns" not in caption
    if columns == 200:
        assert shown


def test_fusion_bytes_cell_never_a_bare_percentage():
    """A chain with no byte counts says the bytes are not recorded (the share is an assumption), never
    ``按成链计 0.0%``; a known one puts its share in the language's parentheses."""
    path = need(CORPUS / "torch_traces" / "hta_alexnet_a100_rank0_trace.json.gz")
    out = _run(["fusion", "--lang", "zh", str(path)])
    assert "成链计 0" not in out and Fmt("zh").label("fu_bytes_unrecorded_see")[:5] in out
    md = _run(["fusion", "--format", "md", "--lang", "zh", str(path)])
    assert not re.search(r"\d% \(", md), [ln for ln in md.splitlines() if re.search(r"\d% \(", ln)][:2]
    head = next(ln for ln in md.splitlines() if ln.startswith("|---"))
    assert head.split("|")[-2] == "---", head  # the route column holds words: left-aligned


@pytest.mark.parametrize("value,text", [(2048.3, "2048"), (1.123, "1.12"), (12.8, "12.8"), (999.6, "1000"),
                                        (2.05e6, "2.05 M")])
def test_plain_number_has_no_exponent(value, text):
    assert plain_number(value) == text


def test_notes_never_print_an_exponent_below_a_million():
    """A note's ``{x:.3g}`` of 2050 prints ``2050``, not ``2.05e+03`` (arithmetic intensity, counts)."""
    for key, entry in labels().note.items():
        for lang in ("en", "zh"):
            tpl = entry.get(lang)
            fields = [(f, spec) for _, f, spec, _ in string.Formatter().parse(tpl) if f]
            if not any(spec and spec.endswith("g") for _, spec in fields):
                continue
            values = {f: (2050.0 if spec and spec.endswith("g") else 3) for f, spec in fields}
            try:
                text = note_text(key, values, lang)
            except (ValueError, TypeError, KeyError, AttributeError):
                continue
            assert "e+0" not in text, (key, lang, text)


_MEASURED = ("c", "m", "ai", "ridge")


def test_not_measured_is_never_spliced_into_a_sentence():
    """A measured value (Speed-of-Light compute / memory, intensity, ridge) that is None never leaves
    "未测量" / "not measured" in front of the rest of a sentence ("计算值未测量 按最快的通路衡量"): such a
    note has its own wording (``{key}__no_{field}``), or the value ends its clause."""
    bad = []
    for key, entry in labels().note.items():
        if "__no_" in key or not key.startswith(("rule_compute_tensor", "rule_memory_l1", "roofline_vs_sol")):
            continue
        for lang in ("en", "zh"):
            fields = [f for _, f, _, _ in string.Formatter().parse(entry.get(lang)) if f]
            for missing in (f for f in dict.fromkeys(fields) if f in _MEASURED):
                values = {f: 1.5 for f in fields} | {missing: None}
                text = note_text(key, values, lang)
                if re.search(r"未测量 ?[\u4e00-\u9fff]|not measured,? [a-z]", text):
                    bad.append((key, lang, missing, text))
    assert not bad, bad


def test_n17_evidence_and_ridge_read_whole():
    """N17 (Blackwell FP8, no Speed-of-Light): the evidence says compute and memory are not measured as two
    clauses, and the unmeasured ridge point names its pipe before "not measured" (never qualified after it)."""
    path = need(SHARED / "cases" / "N17_ncu_console_blackwell_utc_fp8.txt")
    out = re.sub(r"\s*\n\s*", "", _run(["diagnose", "--details", "--lang", "zh", str(path)]))
    assert "计算值未测量；访存未测量" in out, out
    assert "FP8 Tensor Core 的拐点未测量" in out and "未测量（" not in out  # never "not measured (…)"
    assert "e+0" not in out


def test_rank_mark_and_gap_cells_are_explained():
    """N14 (four ranks): the ranks table that marks the slowest rank with ``*`` says what it means, and the gap
    table whose cells read ``rank/device`` says so in its header."""
    ranks = need(SHARED / "cases" / "N14_ranks_ddp_compute_straggler")
    for lang in ("en", "zh"):
        f = Fmt(lang)
        out = _run(["timeline", "--details", "--lang", lang, "--format", "md", str(ranks)])
        if " *" in out:
            assert f.label("tl_slowest_mark") in out
        gaps = out[out.index(f.label("tl_gaps")):]
        assert f.label("tl_gaps_cells") in gaps.split("\n| ")[0]  # the caption says what a cell's bracket is
        table = next(line for line in gaps.split("\n") if line.startswith("| "))
        assert table.startswith("| " + f.label("tl_rank_device") + " |"), gaps[:200]


def test_markdown_text_columns_are_left_aligned():
    """Markdown tables align words left and numbers right, as the table view: the timeline's text columns."""
    path = need(CORPUS / "torch_traces" / "hta_alexnet_a100_rank0_trace.json.gz")
    out = _run(["timeline", "--details", "--format", "md", "--lang", "zh", str(path)]).splitlines()
    f = Fmt("zh")
    for i, line in enumerate(out):
        if line.startswith("| ") and i + 1 < len(out) and out[i + 1].startswith("|---"):
            heads = [h.strip() for h in line.strip("|").split(" | ")]
            aligns = out[i + 1].strip("|").split("|")
            for h, a in zip(heads, aligns):
                if h in (f.label("fu_route"), f.label("fu_bytes"), f.label("bound")):
                    assert a == "---", (h, out[i + 1])


def test_closing_bullets_each_carry_their_label():
    """Markdown checks: every bullet of a labelled group carries the label, not only the first."""
    path = need(CORPUS / "nsys" / "ai4mat_nsys_stats_console_torch_gcn.txt")
    out = _run(["timeline", "--details", "--format", "md", "--lang", "zh", str(path)])
    label = Fmt("zh").label("tl_findings")
    bullets = [ln for ln in out.splitlines() if ln.startswith("- ") and label in ln]
    findings = json.loads(_run(["timeline", "--format", "json", str(path)]))
    n = len(findings.get("findings", findings.get("reports", [{}])[0].get("findings", [])))
    assert n >= 2 and len(bullets) == n, (n, bullets)  # (before: only the first bullet had it)

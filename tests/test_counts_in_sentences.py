"""Counts inside sentences are worded as the tables word them (review 12, zh blocking 4): by 万 / 亿 in Chinese,
by SI prefixes in English (kernelscope.knowledge.counts), never in scientific notation ("多出 2.83e+07 个扇区",
"L2 扇区 8.87e+09 个"). Checked on the text of every output of a few reports: the terminal, the Markdown and the
JSON text fields (JSON numbers stay numbers)."""

from __future__ import annotations

import json
import re

import pytest

from conftest import CASES, CORPUS_NCU, need
from kernelscope.cli import main
from kernelscope.knowledge.text import fill

SCIENTIFIC = re.compile(r"\d[eE][+-]\d")

#: Reports with uncoalesced accesses, bank conflicts, spills or source lines (the sentences that held :.3g counts).
REPORTS = ("panjd123__cutlass__report-s8.ncu-rep", "Atopos0313__cuda_learning__reports_day08_before.ncu-rep",
           "InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_01_naive.ncu-rep",
           "EricccYang__cuda_operators__reduce_reduce_v1.ncu-rep", "Lashi0812__CudaProgramming__profiling_profiles_smemReduceInteger.ncu-rep",
           "kilianhae__Attention.C__softmax_CUDA_naivesoftmax_ncu.ncu-rep", "ZSL98__bitwise_spgemm__profiling_results_sgemm.ncu-rep")


def _texts(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _texts(v)]
    if isinstance(value, list):
        return [t for v in value for t in _texts(v)]
    return []


def _run(argv, capsys) -> str:
    code = main(argv)
    out = capsys.readouterr().out
    if code == 2 and argv[0] == "source":  # a report without per-instruction data: nothing to word
        return ""
    assert code in (0, 1), argv
    return out


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("report", REPORTS)
def test_no_scientific_notation_in_any_output(report, lang, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    path = str(need(CORPUS_NCU / report))
    bad = []
    for argv in (["diagnose", path, "-v"], ["diagnose", path, "-v", "--format", "markdown"], ["source", path],
                 ["source", path, "--format", "markdown"]):
        text = _run([*argv, "--lang", lang], capsys)
        bad += [f"{' '.join(argv[:1] + argv[2:])}: {line.strip()}" for line in text.splitlines() if SCIENTIFIC.search(line)]
    data = json.loads(_run(["diagnose", path, "--format", "json", "--lang", lang], capsys))
    bad += [f"json: {t}" for t in _texts(data) if SCIENTIFIC.search(t)]
    assert bad == [], "\n".join(bad[:10])


def test_cases_without_scientific_notation(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    bad = []
    for case in sorted(need(CASES).glob("C0[1-9]_*"))[:6]:
        for lang in ("zh", "en"):
            try:
                text = _run(["diagnose", str(case), "-v", "--lang", lang], capsys)
            except (AssertionError, SystemExit):
                capsys.readouterr()
                continue
            bad += [f"{case.name} {lang}: {line.strip()}" for line in text.splitlines() if SCIENTIFIC.search(line)]
    assert bad == [], "\n".join(bad[:10])


@pytest.mark.parametrize("value, zh, en", [(9920, "多出 9920 个扇区", "(9920 excess"), (28_300_000, "多出 2830 万个扇区", "(28.3 M excess"),
                                           (8.87e9, "多出 88.7 亿个扇区", "(8.87 G excess")])
def test_a_count_field_is_worded_as_the_tables_word_counts(value, zh, en):
    assert zh in fill("（多出 {excess:C} 个扇区）", {"excess": value}, "zh")
    assert en in fill("({excess:C} excess sectors)", {"excess": value}, "en")
    assert fill("（多出 {excess:C} 个扇区）", {"excess": None}, "zh") != ""


#: Field names of the sentences that hold counts (sectors, wavefronts, requests...).
COUNT_FIELDS = {"excess", "sectors", "ideal", "wavefronts", "local", "total", "conflicts", "requests"}


def test_every_count_field_of_the_catalogue_is_a_count():
    """Every ``labels.toml`` note or label field named as a count is ``{x:C}`` (the count formatter), never a
    ``:.3g`` that prints 2.83e+07 in a sentence."""
    import string

    from kernelscope.knowledge.text import labels

    bad = []
    for table in (labels().note, labels().label):
        for key, entry in table.items():
            for lang in ("en", "zh"):
                text = getattr(entry, lang, None) if not isinstance(entry, dict) else entry.get(lang)
                for _, field, spec, _ in string.Formatter().parse(text or ""):
                    if field in COUNT_FIELDS and spec and spec[-1] in "geEG":
                        bad.append(f"{key} ({lang}): {{{field}:{spec}}}")
    assert bad == [], "\n".join(bad)

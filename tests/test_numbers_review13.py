"""Numbers (native review 13, nits): one precision per kind.

- SM clocks in prose read "1.3 GHz" / "2.5 GHz" where others read "1.32 GHz": every GHz figure has three
  significant digits, trailing zeros kept ("1.30 GHz").
- The ``source`` tables mixed "1.52 万" with "9939" in one count column and "3.3 万" with "13.1 万"; in English
  "15.2 k" beside raw integers: a table's count column holds whole numbers, 万 / k only in prose."""

from __future__ import annotations

import re

import pytest

from conftest import CORPUS_NCU, need
from kernelscope.render.common import Fmt
from test_zh_output import run_cli_uncached

#: Reports whose SM clock rounds to two significant digits at .3g (1.30, 2.50 GHz).
CLOCKS = ["Abhishek7204__raytracingCuda__profile.ncu-rep", "AveryClapp__ESMM-Research__profile.ncu-rep",
          "piragi__fuzigrad__output.ncu-rep", "panjd123__cutlass__report-s8.ncu-rep"]
GHZ = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?) GHz")


def _sig(text: str) -> int:
    return len(text.replace(".", "").lstrip("0"))


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_ghz_figure_has_three_significant_digits(lang):
    seen = []
    for name in CLOCKS:
        code, out, err = run_cli_uncached(("diagnose", "--details", str(need(CORPUS_NCU / name)), "--lang", lang), 200)
        assert code in (0, 1), err
        seen += GHZ.findall(out)
    assert seen and all(_sig(x) == 3 for x in seen), sorted(set(seen))
    assert any(x.endswith("0") for x in seen), sorted(set(seen))  # (a clock with a trailing zero among them)


def test_compare_clocks_keep_their_zeros():
    from kernelscope.render.compare import clock_text

    assert clock_text(1.3e9, 1.53e9, Fmt("en")).startswith("1.30 GHz")
    assert "2.50 GHz" in clock_text(1.3e9, 2.5e9, Fmt("zh"))


#: Reports whose source tables have counts on both sides of 10 000.
SOURCES = ["Atopos0313__cuda_learning__reports_day08_before.ncu-rep",
           "Bias92__flashattn-cuda__docs_profiling_ncu_sections_db_full_after_n4096_full.ncu-rep",
           "AlpriElse__cs599k__silu_CUDA_ncu-reports_2025-04-21-77_06-MT.ncu-rep"]


def _md_columns(md: str, heads: tuple[str, ...]) -> list[str]:
    """The cells of the Markdown table columns headed by one of ``heads``."""
    cells, index = [], None
    for line in md.splitlines():
        if not line.startswith("|"):
            index = None
            continue
        row = [c.strip() for c in line.strip().strip("|").split("|")]
        if index is None:
            index = [i for i, c in enumerate(row) if c in heads]
        elif not set(line) <= set("|-: "):
            cells += [row[i] for i in index if i < len(row)]
    return cells


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("name", SOURCES)
def test_source_count_columns_hold_whole_numbers(name, lang):
    f = Fmt(lang)
    heads = (f.label("src_samples"), f.label("src_executed"))
    code, md, err = run_cli_uncached(("source", str(need(CORPUS_NCU / name)), "--format", "markdown", "--lang", lang), 200)
    assert code == 0, err
    cells = [c for c in _md_columns(md, heads) if c != "-"]
    assert cells and all(c.isdigit() for c in cells), cells  # never "1.52 万" / "15.2 k" in a count column
    code, out, err = run_cli_uncached(("source", str(need(CORPUS_NCU / name)), "--lang", lang), 200)
    assert not re.search(r"\d (?:万|k|M)\s{2,}|\d (?:万|k|M)$", out, re.M), out  # the terminal table too

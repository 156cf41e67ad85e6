"""Integer work (INT8 tensor cores) is counted in OP everywhere (review 12): its intensity, ridge and memory-level
intensities in OP/B beside its TOP/s (never "364 FLOP/B; ridge 241 FLOP/B" next to "13.3 TOP/s"), and its peak
printed one way in one section (never "466 TOP/s" beside "466.5 TOP/s")."""

from __future__ import annotations

import re

import pytest

from conftest import CORPUS_NCU, need
from kernelscope.cli import main

INT8 = "panjd123__cutlass__report-s8.ncu-rep"


@pytest.mark.parametrize("fmt", ["table", "markdown"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_integer_kernel_is_worded_in_op(lang, fmt, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")  # one row, one line
    assert main(["diagnose", str(need(CORPUS_NCU / INT8)), "-v", "--format", fmt, "--lang", lang]) in (0, 1)
    out = capsys.readouterr().out
    sections = [s for s in re.split(r"\n(?=#* ?\[\d+\] )", out) if "TOP/s" in s]
    assert sections, out[:2000]
    for s in sections:
        assert "FLOP/B" not in s and "OP/B" in s, s
        peaks = {p for p in re.findall(r"([\d.]+) TOP/s", s) if float(p) > 100}  # the peak (466), not 13.3 achieved
        assert len(peaks) <= 1, peaks

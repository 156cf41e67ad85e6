"""A diagnosis table's GPU-time share column is in one precision (native review 13, numbers): "55.0%" beside
"25.4%", never "55%" beside "25.4%"."""

from __future__ import annotations

import re

import pytest

from conftest import SHARED, need
from kernelscope.cli import main

HEAT = SHARED / "corpus" / "ncu" / "bautista-garcia__heat_sim__profile.ncu-rep"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_share_column_has_one_precision(capsys, lang):
    main(["diagnose", str(need(HEAT)), "--top", "2", "--lang", lang])
    out = capsys.readouterr().out
    shares = [m.group(1) for line in out.splitlines() if (m := re.search(r"µs\s+(\d+(?:\.\d+)?%)\s*$", line))]
    assert len(shares) >= 2, out
    assert len({len(s.split(".")[1]) if "." in s else 0 for s in shares}) == 1, shares

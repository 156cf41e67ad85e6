"""Sixth native review (issue 28): templates at their edge values (no saving, no async call, every column, no
conflict) say so plainly, and Chinese lines break between terms, never inside one."""

from __future__ import annotations

import dataclasses

import pytest

from conftest import CASES, CORPUS_NCU, SHARED, need
from kernelscope.analysis.fusion import FusionKernel, estimate
from kernelscope.cli import main
from kernelscope.notes import Note
from kernelscope.render.common import Fmt


def _chain(**changes):
    e = estimate([FusionKernel("a", None, "elementwise", 2.288e-6, 100.0, 100.0),
                  FusionKernel("b", None, "elementwise", 2.288e-6, 100.0, 100.0)], 200.0, peak_bytes_per_s=1e9)
    return dataclasses.replace(e, **changes)


@pytest.mark.parametrize("basis", ["shapes", "dram_counters"])
def test_a_chain_that_saves_nothing_says_so(basis):
    from kernelscope.render.fusion import summary_note
    e = _chain(fused_s=4.576e-6, fused_floor_s=4.576e-6, saving_s=0.0, total_saving_s=0.0, speedup=1.0,
               bytes_basis=basis)
    zh, en = Fmt("zh").note(summary_note(e, Fmt("zh"))), Fmt("en").note(summary_note(e, Fmt("en")))
    assert "而非" not in zh and "节省 0 s" not in zh and "没有收益" in zh and zh.count("4.576 µs") == 1, zh
    assert "instead of" not in en and "0 s saved" not in en and "saves nothing" in en, en
    saving = _chain(bytes_basis=basis)  # a real saving keeps the comparison
    assert "而非" in Fmt("zh").note(summary_note(saving, Fmt("zh")))

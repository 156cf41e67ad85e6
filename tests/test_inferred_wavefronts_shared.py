"""An inferred cause the launch's own statistics rule out is not offered (expert review 15: "may be uncoalesced
(global) or bank-conflicted (shared)" for a kernel with 0 B of shared memory): where the launch is known to allocate
no shared memory, excess L1 wavefronts inferred without a counter are global or local accesses, never bank
conflicts; the remedy pads no shared array."""

from __future__ import annotations

import pytest

from conftest import CORPUS_NCU
from kernelscope import diagnose_file
from kernelscope.errors import InputError
from kernelscope.render import render

FILES = sorted(CORPUS_NCU.glob("*.ncu-rep")) if CORPUS_NCU.is_dir() else []
PARAMS = FILES or [pytest.param(None, marks=pytest.mark.skip(reason="shared corpus absent"))]


@pytest.mark.parametrize("path", PARAMS, ids=lambda p: p.name if p else "absent")
def test_no_bank_conflict_is_inferred_without_shared_memory(path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")
    try:
        rd = diagnose_file(path)
    except InputError as e:
        pytest.skip(str(e))
    seen = False
    for d in rd.kernels:
        for f in d.findings:
            if f.id != "excess_l1_wavefronts" or not f.advice:
                continue
            seen = True
            expected = "inferred_wavefronts_global" if d.kernel.launch.no_shared_memory else "inferred_wavefronts_either"
            assert f.remedies == (expected,), (path.name, d.kernel.index, f.remedies)
    if seen:
        text = " ".join(render([rd], "table", "en", details=True).split())
        if all(d.kernel.launch.no_shared_memory for d in rd.kernels):
            assert "bank-conflicted (shared)" not in text and "pad shared arrays" not in text

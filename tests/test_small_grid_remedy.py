"""A small grid's remedy holds for the grid it is given (native review 14: "launch at least one block per SM" for 64
blocks on 40 SMs, where every SM has a block and the grid fills 0.27 of a wave): the one-block-per-SM remedy only
where the grid has fewer blocks than SMs (or the counts are unknown), the fill-a-wave one where every SM has one."""

from __future__ import annotations

import pytest

from conftest import SHARED
from kernelscope import diagnose_file
from kernelscope.errors import InputError

DIRS = [SHARED / "corpus" / "ncu", SHARED / "corpus" / "ncu_csv"]
FILES = sorted(p for d in DIRS if d.is_dir() for p in d.iterdir() if p.is_file() and p.suffix != ".md")
PARAMS = FILES or [pytest.param(None, marks=pytest.mark.skip(reason="shared corpus absent"))]


def _blocks_per_sm(d) -> float | None:
    """Blocks per SM of the grid, from the SM count, else from Nsight's waves x the smallest block limit."""
    blocks = d.kernel.launch.blocks
    sms = d.kernel.device.sm_count or (d.gpu.sm_count if d.gpu is not None else None)
    if blocks is not None and sms:
        return blocks / sms
    m = d.kernel.metrics
    limit = d.occupancy.active_blocks_per_sm if d.occupancy is not None else min(
        (v for n, v in m.items() if n.startswith("launch__occupancy_limit_")), default=None)
    waves = m.get("launch__waves_per_multiprocessor")
    return waves * limit if waves and limit else None


def _diagnoses(path):
    """The diagnosed launches of a corpus file (skipped where kernelscope refuses the file)."""
    try:
        return diagnose_file(path).kernels
    except InputError as e:
        pytest.skip(str(e))


@pytest.mark.parametrize("path", PARAMS, ids=lambda p: p.name if p else "absent")
def test_the_small_grid_remedy_fits_the_grid(path):
    for d in _diagnoses(path):
        for f in d.findings:
            if f.advice != "class:small-grid" or not f.remedies:
                continue
            per_sm = _blocks_per_sm(d)
            fills = per_sm is not None and per_sm >= 1.0
            assert ("launch_fill_waves" in f.remedies) == fills, (path.name, d.kernel.index, per_sm, f.remedies)
            assert ("launch_more_blocks" in f.remedies) == (not fills and "library" not in d.facts), (
                path.name, d.kernel.index, per_sm, f.remedies)


@pytest.mark.parametrize("path", PARAMS, ids=lambda p: p.name if p else "absent")
def test_no_block_of_one_warp_is_told_to_shrink(path):
    # blind review 22: "smaller blocks" for a 1-thread and a 4-thread block; a block of 32 threads or fewer is one
    # warp, which no smaller block splits (the small-grid finding's remedy and the small-grid class paragraph)
    for d in _diagnoses(path):
        one_warp = (d.kernel.launch.threads_per_block or 33) <= 32
        for f in d.findings:
            if {"grid_more_blocks", "grid_more_blocks_one_warp"} & set(f.remedies):
                assert ("grid_more_blocks_one_warp" in f.remedies) == one_warp, (d.kernel.name, f.remedies)
            if f.advice == "class:small-grid" and "library" not in d.facts:
                assert ("launch_smaller_blocks" in f.remedies) != one_warp, (d.kernel.name, f.remedies)


def test_the_small_grid_paragraph_leaves_smaller_blocks_out_for_one_warp_blocks():
    from kernelscope.knowledge.text import class_remedies
    from kernelscope.knowledge.remedies import applicable, remedy

    ids = class_remedies("small-grid")
    assert "launch_smaller_blocks" in applicable(ids, frozenset(), None)
    held = applicable(ids, frozenset({"one_warp_blocks"}), None)
    assert "launch_smaller_blocks" not in held and "launch_more_blocks" in held
    assert not any("smaller" in remedy(i).text_en.lower() for i in held)

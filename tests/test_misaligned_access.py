"""Misaligned global accesses (expert review 12's PARTLY on ``readOffset``): the excess sectors of a misaligned
access are its neighbours', so DRAM moves no byte more, yet the launch is measurably slower (corpus README pair
O14: offset 11 -> 0, 231.90 us -> 203.62 us, 1.14x). The finding is advised, as an upper bound that covers the
measured gain, in a device-debug build too (``nvcc -G`` changes the instructions, not the addresses), and the
group panel names the one launch that has it."""

from __future__ import annotations

from conftest import CORPUS_NCU, corpus_reports, need
from kernelscope import diagnose_file
from kernelscope.analysis.groups import launch_groups
from kernelscope.analysis.performance import UPPER_BOUND
from kernelscope.knowledge.findings import findings
from kernelscope.render import render

READ_OFFSET = "Lashi0812__CudaProgramming__profile.ncu-rep"
MEASURED = 231.90 / 203.62  # corpus README, O14


def _launches():
    rd = diagnose_file(need(CORPUS_NCU / READ_OFFSET))
    return rd, {d.kernel.index: d for d in rd.kernels}


def test_the_misaligned_launch_is_advised_to_align_with_a_bound_that_covers_the_measured_gain():
    _, by_index = _launches()
    d = by_index[1]
    assert "debug_build" in d.facts
    (f,) = [f for f in d.worthwhile_advice if f.id == "uncoalesced_global"]
    assert f.estimate_kind == UPPER_BOUND
    assert MEASURED <= f.estimated_speedup <= 2 * MEASURED
    # the aligned launches (offsets 0 and 128) have no excess sectors: nothing to align
    assert all(not any(x.id == "uncoalesced_global" for x in by_index[i].findings) for i in (0, 2))


def test_the_group_panel_names_the_launch_the_median_hides():
    rd, _ = _launches()
    (g,) = launch_groups(rd)
    assert [(o.index, o.own_advice) for o in g.outliers] == [(1, "finding:uncoalesced_global")]
    for lang, title in (("en", "uncoalesced global accesses"), ("zh", "全局访存未合并")):
        text = render([rd], "markdown", lang)
        line = next(x for x in text.splitlines() if "[1]" in x and title in x)
        assert "0.67" not in line


def test_address_level_remedies_hold_in_a_debug_build_and_code_level_ones_do_not():
    levels = {fid: t.level for fid, t in findings().items()}
    assert levels["uncoalesced_global"] == "address" and levels["shared_bank_conflicts"] == "address"
    assert levels["register_spills"] == "code"  # (-G spills by itself: the measured code is not the program's)
    _, by_index = _launches()
    d = by_index[1]
    advised = {f.id for f in d.findings if f.advice}
    for f in d.findings:
        level = levels.get(f.id)
        if level == "code" and (f.advice is None or f.advice.startswith("finding:")):
            assert f.id not in advised
    assert "uncoalesced_global" in advised


def test_every_outlier_advice_is_its_own_and_not_the_shown_launchs():
    need(CORPUS_NCU)
    seen = 0
    for path in corpus_reports():
        rd = diagnose_file(path)
        by_index = {d.kernel.index: d for d in rd.kernels}
        for g in launch_groups(rd):
            rep = {f.advice for f in g.representative.worthwhile_advice}
            for o in g.outliers:
                if o.own_advice is None:
                    continue
                seen += 1
                assert o.own_advice in {f.advice for f in by_index[o.index].worthwhile_advice}
                assert o.own_advice not in rep
    assert seen >= 1

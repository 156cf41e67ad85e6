"""A short library launch: when every gain the report sizes is below the worthwhile threshold, the first advice is
"nothing worth tuning", as for a user kernel of the same length, worded in the library's terms (its calls, not its
code); and no remedy that edits a library kernel's code or launch configuration (grid, block, split the work) is
offered on any path: a finding's {remedy}, a class paragraph, the small-grid and tail-effect advice."""

from __future__ import annotations

import pytest

from conftest import CORPUS_NCU, corpus_reports, need
from kernelscope import diagnose_file
from kernelscope.analysis.diagnosis import diagnose, diagnose_report
from kernelscope.knowledge.findings import findings
from kernelscope.knowledge.remedies import holds, remedy
from kernelscope.knowledge.text import class_remedies
from kernelscope.model import DeviceInfo, GpuSpec, KernelProfile, LaunchConfig, ProfileReport
from kernelscope.render import render

A100 = GpuSpec(name="A100 test", dram_bandwidth_bytes_per_s=1.555e12, sm_count=108, compute_capability=(8, 0),
               peak_flops_per_s={"fp32": 19.5e12})
#: what only a kernel's own author can change
CODE_EDITS_EN = ("split the work", "launch at least one block per SM", "smaller blocks", "persistent-blocks loop",
                 "change the grid")
#: and the code edits of the class paragraphs' sentences
CLASS_EDITS_EN = ("unroll", "registers", "pad or swizzle", "intrinsics", "__launch_bounds__", "cp.async", "half2",
                  "coalesce", "instructions")
CODE_EDITS_ZH = ("切分工作", "至少为每个 SM 启动一个 Block", "减小 Block", "常驻 Block 循环", "调整 Grid")
TORCH_LINEAR = "Lashi0812__CudaProgramming__profiling_profiles_torchLinear.ncu-rep"
SIMPLE_DIVERGENCE = "Lashi0812__CudaProgramming__profiling_profiles_simpleDivergence.ncu-rep"


def _k(name: str, duration_s: float, blocks: int, **kw) -> KernelProfile:
    """A launch of ``blocks`` blocks of 256 threads, its units barely busy (SoL 1 %)."""
    base = dict(index=0, name=name, demangled_name=name, duration_s=duration_s, sol_compute_pct=1.0,
                sol_memory_pct=1.0, launch=LaunchConfig(grid=(blocks, 1, 1), block=(256, 1, 1), registers_per_thread=32),
                device=DeviceInfo(display_name="test", compute_capability=(8, 0), sm_count=108))
    base.update(kw)
    return KernelProfile(**base)


def _report(k: KernelProfile):
    return diagnose_report(ProfileReport(path="t.ncu-rep", format="ncu-rep", kernels=(k,)), A100)


SGEMM = "ampere_sgemm_128x32_tn"  # cuBLAS (data/libraries.toml)


def test_a_short_library_launch_is_not_worth_tuning_before_its_menu():
    d = diagnose(_k(SGEMM, 3e-6, 4), A100)
    assert "library" in d.facts
    assert d.advice[:2] == ("finding:nothing_worthwhile", "finding:library_kernel")
    assert [f.id for f in d.worthwhile_advice] == ["nothing_worthwhile"]  # the menu only with --details
    verdict = d.advice_findings[0]
    assert verdict.remedies == ("worthwhile_library_call",)
    en = render([_report(_k(SGEMM, 3e-6, 4))], "markdown", "en", details=True)
    zh = render([_report(_k(SGEMM, 3e-6, 4))], "markdown", "zh", details=True)
    assert "This library kernel is too short to matter" in en and "CUDA Graph" in en
    assert "leave the kernel as it is" not in en
    assert "这个库 Kernel 本身耗时太短" in zh
    assert not [w for w in CODE_EDITS_EN if w in en] and not [w for w in CODE_EDITS_ZH if w in zh]


def test_a_user_kernel_of_the_same_launch_gets_the_same_verdict_in_its_own_words():
    d = diagnose(_k("my_small_kernel", 3e-6, 4), A100)
    assert "library" not in d.facts
    assert d.advice[0] == "finding:nothing_worthwhile"
    assert d.advice_findings[0].remedies == ("worthwhile_leave_kernel",)
    en = render([_report(_k("my_small_kernel", 3e-6, 4))], "markdown", "en", details=True)
    assert "leave the kernel as it is" in en and "launch at least one block per SM" in en


def test_a_long_library_launch_keeps_its_menu_and_no_grid_edit():
    # 1 ms on 4 of 108 SMs: the idle SMs are worth it (no verdict), but the grid is the library's to choose
    d = diagnose(_k(SGEMM, 1e-3, 4), A100)
    assert d.advice[0] == "finding:library_kernel"
    assert "finding:nothing_worthwhile" not in d.advice
    grid = next(f for f in d.findings if f.id == "small_grid")
    assert grid.advice == "finding:small_grid" and grid.remedies == ("grid_library_more_work",)
    en = render([_report(_k(SGEMM, 1e-3, 4))], "markdown", "en", details=True)
    zh = render([_report(_k(SGEMM, 1e-3, 4))], "markdown", "zh", details=True)
    assert "the library chose this grid" in en and "这个 Grid 是库根据所给问题及其分块选定的" in zh
    assert not [w for w in CODE_EDITS_EN if w in en] and not [w for w in CODE_EDITS_ZH if w in zh]
    user = next(f for f in diagnose(_k("my_kernel", 1e-3, 4), A100).findings if f.id == "small_grid")
    assert user.remedies == ("grid_more_blocks",)


def test_a_library_tail_effect_is_not_told_to_change_the_grid():
    # 1.5 waves of 1 block per SM (162 blocks on 108 SMs): the last wave leaves a quarter of the SM time idle
    k = _k(SGEMM, 1e-3, 162, launch=LaunchConfig(grid=(162, 1, 1), block=(1024, 1, 1), registers_per_thread=64,
                                                  waves_per_sm=1.5))
    tail = next(f for f in diagnose(k, A100).findings if f.id == "tail_effect")
    assert tail.remedies == ("tail_library",)
    user = next(f for f in diagnose(_k("my_kernel", 1e-3, 162, launch=k.launch), A100).findings
                if f.id == "tail_effect")
    assert user.remedies == ("tail_grid",)


def test_no_grid_or_code_remedy_holds_for_a_library_kernel():
    # every candidate {remedy} of a finding given to a library kernel (level "call"), and every class paragraph's
    # sentence, that holds for a library kernel says nothing a library's user cannot do
    lib = frozenset({"library"})
    ids = {r for f in findings().values() if f.level == "call" for r in f.remedies}
    ids |= {r for bound in ("compute-bound", "memory-bound", "latency-bound", "occupancy-bound", "balanced",
                            "launch-bound", "small-grid") for r in class_remedies(bound)}
    held = [i for i in ids if holds(remedy(i).requires, lib, (8, 0))]
    for i in held:
        text = remedy(i).text("en")
        assert not [w for w in CODE_EDITS_EN + CLASS_EDITS_EN if w in text.lower()], i
    assert "launch_more_blocks" not in held and "launch_library_more_work" in held


def test_corpus_torch_linear_gets_the_verdict_and_no_grid_edit():
    path = need(CORPUS_NCU / TORCH_LINEAR)
    d = diagnose_file(path)
    assert len(d.kernels) == 2
    for x in d.kernels:
        assert "library" in x.facts, x.kernel.name
        assert x.advice[0] == "finding:nothing_worthwhile", x.kernel.name
    en = render([d], "markdown", "en", details=True)
    zh = render([d], "markdown", "zh", details=True)
    assert en.count("This library kernel is too short to matter") == 2
    assert not [w for w in CODE_EDITS_EN if w in en] and not [w for w in CODE_EDITS_ZH if w in zh]


def test_corpus_user_kernels_of_the_same_length_keep_their_verdict():
    d = diagnose_file(need(CORPUS_NCU / SIMPLE_DIVERGENCE))
    for x in d.kernels:
        assert "library" not in x.facts
        assert x.advice[0] == "finding:nothing_worthwhile"
        assert x.advice_findings[0].remedies == ("worthwhile_leave_kernel",)


@pytest.mark.parametrize("path", corpus_reports(), ids=lambda p: p.stem[:60])
def test_corpus_library_kernels_are_advised_nothing_code_level(path):
    for x in diagnose_file(path).kernels:
        if "library" not in x.facts:
            continue
        for f in x.advice_findings:
            text = findings().get(f.id)
            assert text is None or text.level == "call", (x.kernel.name, f.id)
            assert all(holds(remedy(r).requires, x.facts, None) for r in f.remedies), (x.kernel.name, f.id)

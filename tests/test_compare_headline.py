"""compare's headline and what it warns about (tryout items 1, 7, 9, 26): the all-kernels ratio leads when the
matched kernels are a small share of the GPU time; different SM / memory clocks are warned about with the
clock-normalised (SM-cycle) ratio; one kernel a side pairs as --pair would; each BEFORE-profile prediction once."""

from __future__ import annotations

import json

import pytest

from conftest import CORPUS_NCU, need
from conftest import flat as flat_text
from kernelscope.analysis.compare import compare
from kernelscope.analysis.compare_checks import CLOCK_TOLERANCE
from kernelscope.analysis.diagnosis import diagnose
from kernelscope.cli import main
from kernelscope.model import DeviceInfo, GpuSpec, KernelProfile, LaunchConfig, RuleResult
from kernelscope.render.compare import to_json, to_markdown, to_text

GPU = GpuSpec(name="t", dram_bandwidth_bytes_per_s=1e12, peak_flops_per_s={"fp32": 1e13})
FEATHER = "InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_"
DAY08 = "Atopos0313__cuda_learning__reports_day08_"


def _d(name, duration_s, index=0, sm_hz=None, mem_hz=None, rules=()):
    metrics = {} if mem_hz is None else {"dram__cycles_elapsed.avg.per_second": mem_hz}
    k = KernelProfile(index=index, name=name, demangled_name=name, device=DeviceInfo(display_name="t"),
                      launch=LaunchConfig(grid=(10, 1, 1), block=(256, 1, 1)), duration_s=duration_s,
                      sm_frequency_hz=sm_hz, metrics=metrics, rules=tuple(rules))
    return diagnose(k, GPU)


def _lines(text: str) -> list[str]:
    return [" ".join(x.split()) for x in text.splitlines() if x.strip()]


# ------------------------------------------------------------------------------------------------ headline
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_all_kernels_lead_when_the_matched_ones_are_a_sliver(lang):
    before = [_d("warm_up", 1e-6), _d("naive", 100e-3, 1)]
    after = [_d("warm_up", 1e-6), _d("tiled", 10e-3, 1)]
    c = compare(before, after)
    assert c.headline == "all" and c.total_speedup == pytest.approx(100.001 / 10.001)
    text = flat_text(to_text(c, lang))
    every = "All kernels (the headline, since" if lang == "en" else "全部 Kernel（以此为主结论："
    matched = "Matched kernels (1)" if lang == "en" else "已匹配的 Kernel（1 个）"
    assert every in text and text.index(every) < text.index(matched)
    assert "10.00" in text.split(matched)[0]  # the all-kernels ratio, before the matched line
    assert json.loads(to_json(c, lang))["headline"] == "all"
    md = to_markdown(c, lang)
    assert md.index(every) < md.index(matched)


def test_matched_kernels_lead_when_they_hold_the_time_and_the_all_line_has_its_ratio():
    before = [_d("gemm", 100e-3), _d("gone", 1e-3, 1)]
    after = [_d("gemm", 50e-3), _d("new", 2e-3, 1)]
    c = compare(before, after)
    assert c.headline == "matched"
    lines = _lines(to_text(c, "en", width=200))  # one line each (the plain text's width is $COLUMNS or 80)
    assert lines[0].startswith("Matched kernels (1): 100.0 ms -> 50.00 ms; Speedup 2.00x")  # review 11: 4 digits
    (every,) = [x for x in lines if x.startswith("All kernels")]
    assert every.endswith(f"Speedup {101 / 52:.2f}x")
    assert "the headline" not in every


# ---------------------------------------------------------------------------------------- one kernel a side
def test_one_kernel_a_side_pairs_as_pair_would():
    c = compare([_d("transpose_tiled", 2e-3)], [_d("transpose_padded", 1e-3)])
    (p,) = c.pairs
    assert (p.before_name, p.after_name, p.matched_by) == ("transpose_tiled", "transpose_padded", "sole")
    assert p.speedup == pytest.approx(2.0) and not c.unmatched_before and not c.unmatched_after
    assert [w.key for w in c.warnings] == ["cmp_sole_pair"]
    text = flat_text(to_text(c, "en"))
    assert "each side holds one kernel: transpose_tiled (before) is compared with transpose_padded (after)" in text
    assert "--pair" in flat_text(to_text(c, "zh"))


def test_one_kernel_a_side_of_unrelated_reports_is_not_paired():
    """The sole pair is a renamed kernel profiled the same way: not two reports of other GPUs, other tools, or
    without durations (a gate must never pass on nothing: the fuzzer's C05 / N07 case)."""
    from dataclasses import replace

    from kernelscope.model import Measurement

    def on(name, gpu, duration_s=1e-3):
        d = _d(name, duration_s)
        return replace(d, kernel=replace(d.kernel, device=DeviceInfo(display_name=gpu)))

    assert compare([on("a", "A100")], [on("b", "H100")]).pairs == ()
    assert compare([on("a", "A100", None)], [on("b", "A100")]).pairs == ()
    tools = (Measurement(tool="ncu"), Measurement(tool="nvprof"))
    assert compare([on("a", "A100")], [on("b", "A100")], methods=tools).pairs == ()
    same = (Measurement(tool="ncu"), Measurement(tool="ncu"))
    assert [p.matched_by for p in compare([on("a", "A100")], [on("b", "A100")], methods=same).pairs] == ["sole"]


def test_several_unmatched_kernels_a_side_are_not_guessed():
    c = compare([_d("a", 2e-3), _d("b", 1e-3, 1)], [_d("c", 1e-3), _d("d", 1e-3, 1)])
    assert c.pairs == () and c.unmatched_before == ("a", "b") and c.unmatched_after == ("c", "d")
    assert "cmp_sole_pair" not in [w.key for w in c.warnings]


def test_cli_pairs_the_readme_single_kernel_files(capsys):
    before, after = need(CORPUS_NCU / f"{DAY08}before.ncu-rep"), need(CORPUS_NCU / f"{DAY08}after.ncu-rep")
    assert main(["compare", str(before), str(after), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    (k,) = doc["kernels"]
    assert (k["before_name"], k["after_name"], k["matched_by"]) == ("transpose_tiled_kernel", "transpose_padded_kernel",
                                                                    "sole")


# --------------------------------------------------------------------------------------------------- clocks
def test_different_sm_clocks_are_warned_with_the_cycle_ratio():
    # 1.2 ms at 1.5 GHz (1.8 M cycles) -> 1.0 ms at 1.6 GHz (1.6 M cycles): 1.20x in time, 1.125x in cycles
    c = compare([_d("k", 1.2e-3, sm_hz=1.5e9, mem_hz=7e9)], [_d("k", 1.0e-3, sm_hz=1.6e9, mem_hz=7e9)])
    (w,) = [w for w in c.warnings if w.key == "cmp_clocks"]
    assert w.values["cycle_speedup"] == pytest.approx(1.8 / 1.6) and w.values["speedup"] == pytest.approx(1.2)
    assert c.pairs[0].clocks.cycle_speedup == pytest.approx(1.125)
    text = flat_text(to_text(c, "en"))
    # (every GHz figure at three significant digits, zeros kept: native review 13)
    assert "SM 1.50 GHz before, 1.60 GHz after (+6.7%)" in text and "7.00 GHz before, 7.00 GHz after (+0.0%)" in text
    assert "time ratio 1.20x, in SM cycles (clock-normalised) 1.12x" in text or "1.13x" in text
    zh = flat_text(to_text(c, "zh"))
    assert "1.50 GHz" in zh and "1.60 GHz" in zh and "SM 周期" in zh
    doc = json.loads(to_json(c, "en"))
    assert doc["clocks"]["differs"] is True and doc["kernels"][0]["clocks"]["before"]["sm_hz"] == 1.5e9


def test_equal_or_unrecorded_clocks_say_nothing():
    same = compare([_d("k", 1.2e-3, sm_hz=1.5e9)], [_d("k", 1.0e-3, sm_hz=1.5e9 * (1 + CLOCK_TOLERANCE / 2))])
    assert "cmp_clocks" not in [w.key for w in same.warnings] and not same.clocks.differs
    none = compare([_d("k", 1.2e-3)], [_d("k", 1.0e-3)])
    assert none.clocks is None and "GHz" not in to_text(none, "en")


def test_a_pair_among_others_gets_its_own_clock_line():
    c = compare([_d("k", 1.2e-3, sm_hz=1.5e9), _d("j", 1e-3, 1, sm_hz=1.5e9)],
                [_d("k", 1.0e-3, sm_hz=1.6e9), _d("j", 1e-3, 1, sm_hz=1.5e9)])
    lines = [x for x in _lines(to_text(c, "en", width=200)) if x.startswith("Clocks:")]
    assert len(lines) == 1 and "in SM cycles 1.12x (time 1.20x)" in lines[0] or "1.13x" in lines[0]


def test_compare_help_promises_the_clock_warning(capsys):
    with pytest.raises(SystemExit):
        main(["compare", "--help"])
    assert "clocks" in " ".join(capsys.readouterr().out.split())


# ----------------------------------------------------------------------------------------- lines said once
def test_a_rule_reported_twice_predicts_once():
    rules = [RuleResult("MemoryCacheAccessPattern", "t", "OPTIMIZATION", "m", 86.0, "local"),
             RuleResult("MemoryCacheAccessPattern", "t", "OPTIMIZATION", "m", 40.0, "local"),
             RuleResult("Uncoalesced", "u", "OPTIMIZATION", "m", 30.0, "local")]
    c = compare([_d("k", 2e-3, rules=rules)], [_d("k", 1e-3)])
    assert [(x.rule_id, x.estimated_speedup_pct) for x in c.pairs[0].predictions] == [
        ("MemoryCacheAccessPattern", 86.0), ("Uncoalesced", 30.0)]


PAIRS = [(f"{FEATHER}01_naive.ncu-rep", f"{FEATHER}02_coalesce_memory.ncu-rep",
          ["--before-kernel", "naive_matmul", "--after-kernel", "coalesce_matmul"]),
         ("AveryClapp__ESMM-Research__profile.ncu-rep", "AveryClapp__ESMM-Research__profile_output.ncu-rep", [])]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("before,after,extra", PAIRS, ids=["feather-hand", "esmm"])
def test_no_compare_line_is_printed_twice(capsys, lang, before, after, extra):
    before, after = need(CORPUS_NCU / before), need(CORPUS_NCU / after)
    main(["compare", str(before), str(after), *extra, "--lang", lang, "-v", "--format", "markdown"])
    for section in capsys.readouterr().out.split("\n### "):  # each compared kernel's section: one line per item
        lines = [x.strip() for x in section.splitlines() if x.strip() and not set(x.strip()) <= set("|-:")]
        assert not {x for x in lines if lines.count(x) > 1}


def test_new_work_after_leads_even_when_the_matched_kernel_got_faster():
    # A 10 ms -> 1 ms (10x), but a new 20 ms kernel: the program is slower, and that is what leads
    c = compare([_d("A", 10e-3)], [_d("A", 1e-3), _d("new", 20e-3, 1)])
    assert c.headline == "all" and c.speedup == pytest.approx(10.0)
    first = flat_text(to_text(c, "en", width=400)).split("Not matched")[0]
    assert first.startswith("All kernels (the headline") and "Speedup 0.48x" in first and "slower" in first


def test_headline_share_boundary():
    from kernelscope.analysis.compare import HEADLINE_SHARE

    # matched 10 ms of 10 + u ms BEFORE: just above the share the matched ratio leads, just below every kernel's
    for unmatched, want in ((10e-3 * (1 / HEADLINE_SHARE - 1) * 0.9, "matched"),
                            (10e-3 * (1 / HEADLINE_SHARE - 1) * 1.1, "all")):
        c = compare([_d("A", 10e-3), _d("b", unmatched, 1), _d("c", 1e-3, 2)], [_d("A", 10e-3), _d("d", 1e-3, 1)])
        assert c.headline == want


# ----------------------------------------------------------------------------------------------- two timelines
def test_two_timelines_lead_with_the_program_figure(capsys):
    """cts_rtx3070 array_inc a (160.3 ms) vs d_uvm (8.866 s, UVM page faults): the one matched kernel is 1.02x, the
    program 8.866 / 0.1603 = 55.3x slower; the program's wall leads, as a factor (not "5430% slower")."""
    from conftest import SHARED

    nsys = SHARED / "corpus" / "nsys"
    a, d = need(nsys / "cts_rtx3070_array_inc_a.sqlite"), need(nsys / "cts_rtx3070_array_inc_d_uvm.sqlite")
    assert main(["compare", str(a), str(d), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["headline"] == "program"
    assert main(["compare", str(a), str(d)]) == 0
    lines = [x for x in _lines(capsys.readouterr().out) if not x.startswith(("(!)", "is counted"))]
    assert lines[0].startswith("Program wall: 160.3 ms -> 8.866 s; Speedup 0.02x (55.30x slower)"), lines[:3]  # by magnitude


def test_one_unmatched_kernel_a_side_gets_the_pair_option_to_compare_them():
    c = compare([_d("warm_up", 1e-6), _d("naive_matmul", 170e-3, 1)], [_d("warm_up", 1e-6), _d("coalesce_matmul", 22e-3, 1)])
    text = flat_text(to_text(c, "en"))
    assert "--pair 'naive_matmul=coalesce_matmul'" in text
    assert "--pair 'naive_matmul=coalesce_matmul'" in flat_text(to_text(c, "zh"))
    two = compare([_d("a", 1e-3), _d("b", 1e-3, 1)], [_d("c", 1e-3), _d("d", 1e-3, 1), _d("e", 1e-3, 2)])
    assert "--pair '" not in flat_text(to_text(two, "en"))

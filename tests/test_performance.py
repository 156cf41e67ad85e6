"""The performance model behind every estimate (kernelscope.analysis.performance): its formula on hand-computed
inputs, its properties on random inputs, and on every launch of the shared corpus the guarantees the product makes:
no estimate exceeds what the units a change does not relieve allow, the gains of findings that remove the same work
multiply to at most removing all of it, a launch's findings never save more GPU time than the launch takes, upper
bounds are labelled as such in every format, and the headline names the limiter."""

from __future__ import annotations

import json
import math
import re
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import CORPUS_NCU, corpus_reports, need
from kernelscope import diagnose_file
from kernelscope.analysis.diagnosis import diagnose
from kernelscope.analysis.kernel_rules import classify_sol
from kernelscope.analysis.advice_order import rank_and_share
from kernelscope.analysis.performance import (
    PREDICTION, UPPER_BOUND, Change, Counter, Units, conservative_value, merged, posthoc, predict,
)
from kernelscope.model import DeviceInfo, GpuSpec, KernelProfile, LaunchConfig
from kernelscope.render import render


TOL = 1e-9


def _units(*specs, idle=None) -> Units:
    """Units from (metric, unit, busy, hottest) tuples."""
    return Units(tuple(Counter(m, u, b, h) for m, u, b, h in specs), idle_sm=idle)


# -------------------------------------------------------------------------------------------- the formula


def test_a_change_is_bounded_by_the_busiest_unit_it_does_not_relieve():
    # L1 90 % busy (the busiest, half of it waste), DRAM 70 %: saved 0.45, floor 0.7 -> 1 / 0.7 = 1.4286x, not 1 / 0.55
    u = _units(("l1m", "l1", 0.9, 0.9), ("dm", "dram", 0.7, 0.7))
    e = predict(u, Change({"l1": 0.5}))
    assert e.saved == pytest.approx(0.45) and e.floor == pytest.approx(0.7) and e.limiter == "dm"
    assert e.speedup == pytest.approx(1 / 0.7) and e.bound == pytest.approx(1 / 0.7) and e.limited
    # DRAM at 30 %: the change's own saving decides: 1 / 0.55
    e = predict(_units(("l1m", "l1", 0.9, 0.9), ("dm", "dram", 0.3, 0.3)), Change({"l1": 0.5}))
    assert e.speedup == pytest.approx(1 / 0.55) and not e.limited


def test_work_a_unit_less_busy_than_the_busiest_does_overlaps_with_it():
    # DRAM 85 % (the busiest), FMA 30 %: a quarter fewer FP32 instructions (FMA 30 % -> 22.5 %) can only shorten the
    # 15 % of the time DRAM leaves uncovered: saved 0.075 x 0.15 = 0.011 -> 1.011x, not the 1.08x of 0.075 alone
    u = _units(("dm", "dram", 0.85, 0.85), ("fma", "fma", 0.3, 0.3))
    assert predict(u, Change({"fma": 0.25})).speedup == pytest.approx(1 / (1 - 0.075 * 0.15))
    # in a latency-bound kernel (busiest unit 20 %) the same saving nearly counts whole: 0.075 x 0.8
    u = _units(("dm", "dram", 0.2, 0.2), ("fma", "fma", 0.3 * 0.5, 0.15))
    assert predict(u, Change({"fma": 0.5})).speedup == pytest.approx(1 / (1 - 0.075 * 0.8))


def test_the_busiest_instance_bounds_a_change_that_leaves_the_work_where_it_is():
    # one L2 slice at 80 % while the slices average 20 %: the kernel's busiest unit is that slice, so removing half
    # of the L1's work (50 % busy) saves 0.25 x (1 - 0.8) = 0.05 -> 1.053x, never more than 1 / 0.8; spreading the
    # work (an idle-time change) is bounded by the average instead
    u = _units(("l1m", "l1", 0.5, 0.5), ("l2m", "l2", 0.2, 0.8), idle=0.3)
    assert predict(u, Change({"l1": 0.5})).speedup == pytest.approx(1 / 0.95)
    assert predict(u, Change({"l1": 1.0})).bound == pytest.approx(1 / 0.8)
    assert predict(u, Change(idle=0.3, spreads=True)).speedup == pytest.approx(1 / 0.7)


def test_a_part_relieves_its_whole():
    # the shared part (40 %) of the L1 data pipe (60 %): removing 3/4 of the shared wavefronts removes 30 points of
    # the pipe too: pipe 30 %, shared 10 %, saved 0.3 -> 1 / 0.7
    u = Units((Counter("pipe", "l1", 0.6, 0.6), Counter("sh", "shared", 0.4, 0.4, ("pipe",))))
    e = predict(u, Change({"shared": 0.75}))
    assert e.saved == pytest.approx(0.3) and e.floor == pytest.approx(0.3) and e.speedup == pytest.approx(1 / 0.7)


def test_hidden_waiting_and_more_warps_follow_littles_law():
    u = _units(("issue", "issue", 0.2, 0.2))
    assert predict(u, Change(waiting=0.6, kind=UPPER_BOUND)).speedup == pytest.approx(2.5)
    assert predict(u, Change(warps=1.5, kind=UPPER_BOUND)).speedup == pytest.approx(1.5)
    # issue saturates: 4x the warps cannot issue more than 1 / 0.2 = 5x as often, nor more than 4x
    assert predict(u, Change(warps=4.0)).speedup == pytest.approx(4.0)
    assert predict(u, Change(warps=8.0)).speedup == pytest.approx(5.0)


def test_merged_changes_share_their_pools():
    u = _units(("a", "a", 0.5, 0.5), idle=0.2)
    # two idle recoveries of 0.15 each draw on the same 0.2 of idle SM time: together at most 1 / 0.8
    both = merged([Change(idle=0.15, spreads=True), Change(idle=0.15, spreads=True)], u)
    assert both.idle == pytest.approx(0.2)
    assert predict(u, both).speedup == pytest.approx(1.25)
    # work fractions of one unit add up to all of it at most
    assert merged([Change({"a": 0.7}), Change({"a": 0.6})], u).work["a"] == 1.0


def test_ranking_gives_marginal_gains_that_multiply_to_the_joint_gain():
    # tail effect and imbalance both recover the same 0.2 of idle SM time: alone 1.176x and 1.111x, together 1.25x
    u = _units(("a", "a", 0.5, 0.5), idle=0.2)
    tail, imb = Change(idle=0.15, spreads=True, kind=UPPER_BOUND), Change(idle=0.1, spreads=True, kind=UPPER_BOUND)
    own = [predict(u, c).speedup for c in (tail, imb)]
    assert own == pytest.approx([1 / 0.85, 1 / 0.9])
    order = rank_and_share([("tail", tail, own[0], UPPER_BOUND, None), ("imb", imb, own[1], UPPER_BOUND, None)], u, 1.0)
    assert [f for f, *_ in order] == ["tail", "imb"]
    gains = [g for _, g, _, _ in order]
    assert gains[0] == pytest.approx(own[0])  # the first line is its own estimate
    assert gains[0] * gains[1] == pytest.approx(1.25)  # not 1.176 x 1.111 = 1.307
    # kernel time saved: 1 - 1/1.25 = 20 % in all (15 % then 5 %), never the 15 % + 10 % of the two alone
    assert [t for _, _, t, _ in order] == pytest.approx([0.15, 0.05])


def test_an_upper_bound_does_not_outrank_a_prediction_it_cannot_beat():
    u = _units(("a", "a", 0.9, 0.9), ("b", "b", 0.3, 0.3), idle=0.4)
    pred = Change({"a": 0.3})  # 1 / (1 - 0.27) = 1.37x, a prediction
    bound = Change(idle=0.35, spreads=True, kind=UPPER_BOUND)  # at most 1 / 0.65 = 1.54x... but floor 0.9: 1.11x
    s_pred, s_bound = predict(u, pred).speedup, predict(u, bound).speedup
    assert conservative_value(s_bound, UPPER_BOUND) < s_bound
    order = rank_and_share([("bound", bound, s_bound, UPPER_BOUND, None), ("pred", pred, s_pred, PREDICTION, None)],
                           u, 1.05)
    assert order[0][0] == "pred"
    # negligible gains go after the findings without an estimate
    order = rank_and_share([("tiny", Change({"b": 0.01}), 1.003, PREDICTION, None), ("none", None, None, None, None)],
                           u, 1.05)
    assert [(f, t) for f, _, _, t in order] == [("none", "unestimated"), ("tiny", "negligible")]


def test_the_limiter_finding_comes_before_what_it_bounds():
    # DRAM at its roof (91 %) names the limiter: a stall hidden (at most 1 / 0.91) cannot beat it, so it follows;
    # a change that moves fewer DRAM bytes relieves the limiter and may come first
    u = _units(("dm", "dram", 0.91, 0.91), ("iss", "issue", 0.3, 0.3))
    stall = Change(waiting=0.5, kind=UPPER_BOUND)
    fewer_bytes = Change({"dram": 0.4})
    s_stall, s_bytes = predict(u, stall).speedup, predict(u, fewer_bytes).speedup
    items = [("stall", stall, s_stall, UPPER_BOUND, None), ("dram", None, None, None, "dram"),
             ("bytes", fewer_bytes, s_bytes, PREDICTION, None)]
    assert [(f, t) for f, _, _, t in rank_and_share(items, u, 1.0)] == [
        ("bytes", "relieves_limiter"), ("dram", "limiter"), ("stall", "worthwhile")]


def test_posthoc_reads_the_change_of_work_between_two_profiles():
    # shared wavefronts 45 % of 374 us before, 8 % of 280 us after; DRAM 55 % of 374 us -> 74 % of 280 us
    before = _units(("sh", "shared", 0.45, 0.45), ("dm", "dram", 0.554, 0.605))
    after = _units(("sh", "shared", 0.08, 0.08), ("dm", "dram", 0.74, 0.80))
    check = posthoc(before, 374e-6, after, 280e-6)
    changes = {w.unit: w for w in check.changes}
    assert changes["shared"].ratio == pytest.approx(0.08 * 280 / (0.45 * 374))
    # shared lost 0.45 - 0.08 x 280/374 = 0.390 of the BEFORE time, but DRAM (0.605) was the busiest unit: 0.390 x
    # 0.395 = 0.154 saved; floor DRAM 0.80 x 280 / 374 = 0.599: T'/T = max(0.846, 0.599) -> 1.18x
    assert check.speedup == pytest.approx(1 / (1 - (0.45 - 0.08 * 280 / 374) * (1 - 0.605)))


def test_a_change_outside_its_range_is_refused():
    with pytest.raises(ValueError):
        Change({"a": 1.5})
    with pytest.raises(ValueError):
        Change(kind="guess")
    with pytest.raises(ValueError):
        Change(warps=0.5)


# ------------------------------------------------------------------------------------------- properties

_busy = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


@st.composite
def _scenario(draw):
    n = draw(st.integers(min_value=1, max_value=6))
    counters = []
    for i in range(n):
        b = draw(_busy)
        counters.append(Counter(f"m{i}", f"u{i}", b, draw(st.floats(min_value=b, max_value=1.0))))
    units = Units(tuple(counters), idle_sm=draw(st.none() | _busy))
    work = {f"u{i}": draw(_busy) for i in range(n) if draw(st.booleans())}
    idle = draw(_busy) * (units.idle_sm or 0.0)
    change = Change(work, idle=idle, waiting=draw(_busy) * 0.9, warps=draw(st.floats(1.0, 4.0)),
                    spreads=idle > 0 and draw(st.booleans()))
    return units, change


@given(_scenario())
@settings(max_examples=300, deadline=None)
def test_no_estimate_beats_the_units_it_leaves_or_grows_with_less_removed(case):
    units, change = case
    e = predict(units, change)
    assert 1.0 <= e.speedup <= e.bound + TOL
    pick = (lambda c: c.busy) if change.spreads else (lambda c: c.hottest)
    unrelieved = [pick(c) for c in units.counters if c.unit not in change.work]
    if unrelieved:
        assert e.speedup <= 1 / max(max(unrelieved), 0.05) + TOL
    # removing less (half of every fraction) never gives more
    half = Change({k: v / 2 for k, v in change.work.items()}, idle=change.idle / 2, waiting=change.waiting / 2,
                  warps=1 + (change.warps - 1) / 2, spreads=change.spreads)
    assert predict(units, half).speedup <= e.speedup + TOL


@given(_scenario(), _scenario())
@settings(max_examples=200, deadline=None)
def test_two_changes_together_give_at_least_either_alone(a, b):
    units, first = a
    _, second = b
    second = Change({k: v for k, v in second.work.items() if k in {c.unit for c in units.counters}},
                    waiting=second.waiting, warps=second.warps)
    both = predict(units, merged([first, second], units)).speedup
    assert both + TOL >= predict(units, second).speedup
    assert both + TOL >= predict(units, merged([first], units)).speedup


# --------------------------------------------------------------------------------------------- the corpus


@pytest.fixture(scope="module")
def corpus():
    reports = corpus_reports()
    if not reports:
        pytest.skip(f"shared corpus not available: {CORPUS_NCU} is absent")
    return [diagnose_file(p) for p in reports]


def _estimated(d):
    """The estimated findings a panel lists (a finding without advice, e.g. a code-level remedy of a library kernel or a
    debug build, is kept as evidence only)."""
    return [f for f in d.findings if f.estimated_speedup is not None and f.change is not None and f.advice]


def test_every_corpus_estimate_respects_the_units_it_does_not_relieve(corpus):
    checked = 0
    for rd in corpus:
        for d in rd.kernels:
            for f in _estimated(d):
                e = predict(d.units, f.change)
                assert f.estimated_speedup == pytest.approx(max(1.0, e.speedup)), (rd.report.path, f.id)
                pick = (lambda c: c.busy) if f.change.spreads else (lambda c: c.hottest)
                keys = set(f.change.work)
                unrelieved = [pick(c) for c in d.units.counters if c.unit not in keys and c.metric not in keys
                              and not (c.unit == "l1" and "shared" in keys)]
                if unrelieved:
                    assert f.estimated_speedup <= 1 / max(max(unrelieved), 0.05) + TOL, (rd.report.path, f.id)
                checked += 1
    assert checked > 100


def test_corpus_gains_multiply_to_at_most_all_changes_together(corpus):
    for rd in corpus:
        for d in rd.kernels:
            found = _estimated(d)
            if not found:
                continue
            joint = predict(d.units, merged([f.change for f in found], d.units)).speedup
            product = math.prod(f.gain for f in found)
            assert product <= joint * (1 + 1e-6), (rd.report.path, d.kernel.index, [(f.id, f.gain) for f in found])
            for f in found:
                assert 1.0 <= f.gain <= f.estimated_speedup + TOL


def test_a_launch_never_saves_more_gpu_time_than_it_takes(corpus):
    checked = 0
    for rd in corpus:
        for d in rd.kernels:
            if d.time_share is None:
                continue
            saved = [d.program_gain(f) for f in d.advice_findings if d.program_gain(f) is not None]
            assert sum(saved) <= d.time_share + TOL, (rd.report.path, d.kernel.index)
            checked += bool(saved)
    assert checked > 30


def test_a_group_panel_saves_the_groups_share(corpus):
    # piragi: 100 launches of one kernel, all of the GPU time: the panel's savings are the group's, not 1 %'s
    from kernelscope.analysis.groups import launch_groups
    from kernelscope.render.launch_groups import as_group

    rd = next(r for r in corpus if "piragi" in r.report.path)
    (g,) = launch_groups(rd)
    shown = as_group(g)
    assert shown.time_share == pytest.approx(1.0) and g.representative.time_share == pytest.approx(0.01, rel=0.05)
    for f in shown.advice_findings:
        if f.gain is not None:
            assert shown.program_gain(f) == pytest.approx(1 - 1 / f.gain)


def test_upper_bounds_are_labelled_in_every_format(corpus):
    rd = next(r for r in corpus if "Atopos0313__cuda_learning__reports_day08_before" in r.report.path)
    d = rd.kernels[0]
    bounds = [f for f in d.findings if f.estimate_kind == UPPER_BOUND]
    preds = [f for f in d.findings if f.estimate_kind == PREDICTION]
    assert bounds  # (its one prediction, the padding, is decided by the DRAM floor: an upper bound, see below)
    for lang, word in (("en", "at most"), ("zh", "至多")):
        for fmt in ("table", "markdown", "html"):
            assert word in render([rd], fmt, lang), (fmt, lang)
    doc = json.loads(render([rd], "json", "en"))
    kinds = {x["id"]: x["estimate_kind"] for x in doc["inputs"][0]["launches"][0]["findings"]}
    assert all(kinds[f.id] == UPPER_BOUND for f in bounds) and all(kinds[f.id] == PREDICTION for f in preds)


def test_the_headline_follows_the_limiter():
    # 275 blocks on 68 SMs, 0.81 waves, DRAM 79.7 %: memory-bound (Nsight: High Memory Throughput), not launch-bound
    v = classify_sol(30.0, 79.7, 0.81)
    assert v.bound == "memory-bound"
    # below one wave in the latency band: Nsight's Small Grid
    assert classify_sol(30.0, 40.0, 0.81).bound == "small-grid"
    k = KernelProfile(index=0, name="k", demangled_name="k", duration_s=8.85e-3, sol_compute_pct=30.0,
                      sol_memory_pct=79.7, dram_throughput_pct=79.7,
                      device=DeviceInfo(display_name="g", sm_count=68),
                      launch=LaunchConfig(grid=(275, 1, 1), block=(256, 1, 1), waves_per_sm=0.81))
    d = diagnose(k, GpuSpec(name="g", dram_bandwidth_bytes_per_s=448e9, peak_flops_per_s={"fp32": 10e12}, sm_count=68))
    assert d.bound == "memory-bound" and "small-grid" not in d.verdict and "launch-bound" not in d.verdict


def test_the_transpose_pair_is_bounded_by_the_dram_that_stays():
    # corpus pair N6: padding the shared tile of a 4096^2 transpose measured 1.33x; removing the conflict wavefronts
    # saves more than the DRAM channel that stays (60.5 % busy) lets go, so the estimate is that floor: an upper bound
    # (the DRAM at its peak), within 2x of the measurement, and held by it
    rd = diagnose_file(need(CORPUS_NCU / "Atopos0313__cuda_learning__reports_day08_before.ncu-rep"))
    f = next(f for f in rd.kernels[0].findings if f.id == "uncoalesced_shared")
    assert f.estimate_kind == UPPER_BOUND
    assert 1.33 <= f.estimated_speedup <= 2 * 1.33
    assert f.estimated_speedup <= 1 / 0.605 + 1e-3
    assert rd.kernels[0].advice[0] == "finding:uncoalesced_shared"


def test_blocks_that_wait_on_each_other():
    # the same kernel on the same work (1.0e9 instructions both times) with 256 and 1024 blocks: 1.20 ms and 4.70 ms,
    # the time follows the blocks (4x blocks, 3.9x time). The busiest unit is the L2 atomic unit at 6 % (issue 3 %):
    # with the blocks in parallel each launch could take 6 % of its time: at most 1 / 0.06 = 16.7x
    from kernelscope.analysis.diagnosis import diagnose_report
    from kernelscope.model import ProfileReport

    def launch(index, blocks, ms):
        return KernelProfile(index=index, name="count", demangled_name="count(int*)", duration_s=ms * 1e-3,
                             device=DeviceInfo(display_name="g", sm_count=68), sol_compute_pct=3.0, sol_memory_pct=6.0,
                             launch=LaunchConfig(grid=(blocks, 1, 1), block=(256, 1, 1)),
                             metrics={"smsp__inst_executed.sum": 1.0e9},
                             compute_breakdown_pct={"sm__issue_active.avg.pct_of_peak_sustained_elapsed": 3.0},
                             memory_breakdown_pct={"lts__d_atomic_input_cycles_active.avg.pct_of_peak_sustained_elapsed": 6.0})

    gpu = GpuSpec(name="g", dram_bandwidth_bytes_per_s=448e9, peak_flops_per_s={"fp32": 10e12}, sm_count=68)
    rd = diagnose_report(ProfileReport(path="x", format="plain", kernels=(launch(0, 256, 1.2), launch(1, 1024, 4.7))), gpu)
    for d in rd.kernels:
        f = next(f for f in d.findings if f.id == "serialised_blocks")
        assert f.estimate_kind == UPPER_BOUND and f.estimated_speedup == pytest.approx(1 / 0.06)
        assert f.message.values["few"] == 256 and f.message.values["many"] == 1024
        assert d.advice[0] == "finding:serialised_blocks"
    # the same two launches with 4x the work too: the time follows the work, nothing is serialised
    more = launch(1, 1024, 4.7)
    more = replace(more, metrics={"smsp__inst_executed.sum": 4.0e9})
    rd = diagnose_report(ProfileReport(path="x", format="plain", kernels=(launch(0, 256, 1.2), more)), gpu)
    assert not any(f.id == "serialised_blocks" for d in rd.kernels for f in d.findings)


def test_a_tail_is_capped_by_the_idle_sm_time_measured():
    # 2.33 waves: the last wave leaves (3 - 2.33) / 3 = 22 % of the SM time idle on paper, but the SMs were active 93 %
    # of the time (sm__cycles_active / sm__cycles_elapsed): at most 1 / 0.93 = 1.075x, not 1 / 0.78 = 1.29x
    k = KernelProfile(index=0, name="k", demangled_name="k", duration_s=1e-3, sol_compute_pct=40.0, sol_memory_pct=50.0,
                      device=DeviceInfo(display_name="g", sm_count=100),
                      launch=LaunchConfig(grid=(700, 1, 1), block=(256, 1, 1), waves_per_sm=7 / 3),
                      metrics={"sm__cycles_active.avg": 930.0, "sm__cycles_elapsed.avg": 1000.0},
                      compute_breakdown_pct={"sm__issue_active.avg.pct_of_peak_sustained_elapsed": 40.0})
    gpu = GpuSpec(name="g", dram_bandwidth_bytes_per_s=1e12, peak_flops_per_s={"fp32": 1e13}, sm_count=100)
    f = next(f for f in diagnose(k, gpu).findings if f.id == "tail_effect")
    assert f.estimate_kind == UPPER_BOUND and f.estimated_speedup == pytest.approx(1 / 0.93)
    assert f.message.values["idle"] == pytest.approx(2 / 9) and f.message.values["measured_idle"] == pytest.approx(0.07)


def test_three_identical_launches_save_the_groups_share():
    # three launches of one kernel, all of the GPU time: a 1.49x fix saves 3 x 1/3 x (1 - 1/1.49) = 32.9 % of the GPU
    # time on the group's panel, not the 11 % of one launch
    from kernelscope.analysis.diagnosis import diagnose_report
    from kernelscope.analysis.groups import launch_groups
    from kernelscope.model import ProfileReport
    from kernelscope.render.launch_groups import as_group

    m = {"memory_l2_theoretical_sectors_global": 4000.0, "memory_l2_theoretical_sectors_global_ideal": 1000.0,
         "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": 4000.0, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": 0.0,
         "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum": 0.0, "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum": 0.0}
    pipe = "l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed"
    # 0.75 of the L1 data pipe's work (44 % busy) goes: saved 0.33 -> 1 / 0.67 = 1.49x
    ks = tuple(KernelProfile(index=i, name="k", demangled_name="k", duration_s=1e-3, metrics=m,
                             device=DeviceInfo(display_name="g", sm_count=100), sol_memory_pct=44.0, sol_compute_pct=10.0,
                             launch=LaunchConfig(grid=(1000, 1, 1), block=(256, 1, 1)),
                             memory_breakdown_pct={pipe: 44.0}) for i in range(3))
    gpu = GpuSpec(name="g", dram_bandwidth_bytes_per_s=1e12, peak_flops_per_s={"fp32": 1e13}, sm_count=100)
    rd = diagnose_report(ProfileReport(path="x", format="plain", kernels=ks), gpu)
    (g,) = launch_groups(rd)
    shown = as_group(g)
    f = next(f for f in shown.findings if f.id == "uncoalesced_global")
    assert f.estimated_speedup == pytest.approx(1 / 0.67)
    assert g.representative.program_gain(f) == pytest.approx(0.33 / 3)
    assert shown.program_gain(f) == pytest.approx(0.33)
    text = render([rd], "table", "en")
    assert "33% of GPU time saved" in text and not re.search(r"(?<![\d.])11(\.0)?% of GPU time saved", text)


# ------------------------------------------------------------------------------- corpus launches of each fault kind


def _first(report: str, kernel: str | None = None):
    rd = diagnose_file(need(CORPUS_NCU / report))
    return next(d for d in rd.kernels if kernel is None or d.kernel.name == kernel)


def test_corpus_headlines_name_the_limiter():
    # the 32-way-conflicting transpose: SOL memory 55 %, but the L1/TEX cache runs at 95.5 % of the elapsed time
    d = _first("Atopos0313__cuda_learning__reports_day08_before.ncu-rep")
    assert d.bound == "memory-bound" and d.evidence[0].key == "rule_memory_l1"
    assert d.evidence[0].values["pct"] == pytest.approx(96.36 * 566428.22 / 571418.41, rel=1e-3)
    # an uncoalesced matrix add on a T4: L1/TEX 85 % (its tag stage), SOL memory 50 %
    assert _first("armleth__cuda-mlp-inference__report_v4_8_per_thread.ncu-rep").bound == "memory-bound"
    # FlashAttention on an RTX 4060 Ti: the FP16 -> FP32 tensor path at 61.5 % of its own peak while SOL compute says
    # 35 % (the pipe-cycle counter against the FP16-accumulate rate): compute-bound, with the tensor variant of advice
    # and, on a GeForce part whose FP16-accumulate MMAs run at twice the rate, the one change that raises the ceiling
    d = _first("Bias92__flashattn-cuda__docs_profiling_ncu_sections_fa3_before_n4096_full.ncu-rep")
    assert d.bound == "compute-bound" and d.evidence[0].key == "rule_compute_tensor"
    assert d.evidence[0].values["pct"] == pytest.approx(61.53, abs=0.01)
    assert d.advice[0] == "class:compute-bound" and d.advice_findings[0].remedies == ("compute_tensor_feed",
                                                                                            "compute_tensor_fp16acc")
    assert max(f.estimated_speedup for f in d.findings if f.estimated_speedup) <= 1 / 0.6946 + 1e-6


def test_a_corpus_hot_slice_is_found_and_bounds_the_rest():
    # filter_warp_k: one L2 slice at 87 % while the slices average 39 % (the average hides it)
    d = _first("DarrenLu666888__CUDATutorial__profile.ncu-rep")
    f = next(f for f in d.findings if f.id == "hot_l2_slice")
    assert f.message.values["ratio"] >= 2.0 and f.estimate_kind == UPPER_BOUND


def test_corpus_texts_are_their_evidence():
    # CUTLASS's int8 reference GEMM: its 1-byte loads need 1 sector per request on average, not "4"
    d = _first("panjd123__cutlass__report-s8.ncu-rep", "ReferenceGemm_kernel")
    f = next(f for f in d.findings if f.id == "uncoalesced_global")
    assert f.message.values["ideal_per_request"] == pytest.approx(1.0, abs=0.05)
    # ... kept as evidence: a correctness reference kernel is not the code under test, so its first advice says so
    assert f.advice is None and d.advice[0] == "finding:library_kernel"
    text = render([diagnose_file(need(CORPUS_NCU / "panjd123__cutlass__report-s8.ncu-rep"))], "markdown", "en")
    assert "This is a correctness reference kernel" in text and "where their access widths need" not in text
    # the transpose's report has no bank-conflict counters: the excess is not said to be "not due to bank conflicts"
    d = _first("Atopos0313__cuda_learning__reports_day08_before.ncu-rep")
    f = next(f for f in d.findings if f.id == "uncoalesced_shared")
    assert f.message.values["conflicts"] is None and "not measured apart" in f.speedup_note
    # a kernel of 32-thread blocks without shared memory of its own: limited by the blocks per SM, not shared memory
    d = _first("bwd29__self-join-MiSTIC__ilpProf.ncu-rep")
    assert d.occupancy.limiters == ("blocks",)
    ls = next(f for f in d.findings if f.id == "long_scoreboard_latency")
    assert ls.remedies == ("ls_ilp",)  # no shared-memory tile to double-buffer, and bigger blocks are not "fewer registers"


def test_the_main_remedy_of_a_memory_instruction_limit_has_its_roof():
    # the shared-memory tiled SGEMM: LSU pipe 88 %, FP32 at 12 % of its peak: register tiling up to ~8x (the same
    # author's register-tiled kernel ran 6.8x faster), not the "at most 1.13x" of a stall finding
    d = _first("InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_03_tiled.ncu-rep", "tiled_matmul")
    first = d.advice_findings[0]
    assert first.id == "memory_instructions_bound" and first.estimate_kind == UPPER_BOUND
    r = d.roofline
    assert first.estimated_speedup == pytest.approx(r.peak_flops_per_s / r.achieved_flops_per_s, rel=0.02)
    assert 6.8 <= first.estimated_speedup * 1.05


def test_more_warps_hide_only_the_waits_they_can_overlap():
    # 1.5x the warps would remove a third of the time, but only 20 % of the warp cycles are a latency wait (the rest
    # issuing, ready but not selected, or a full queue): at most 1 / 0.8
    u = Units((Counter("iss", "issue", 0.3, 0.3),), stall_shares={"long_scoreboard": 0.15, "barrier": 0.05,
                                                                    "not_selected": 0.4, "mio_throttle": 0.3})
    assert u.hideable == pytest.approx(0.2)
    assert predict(u, Change(warps=1.5, kind=UPPER_BOUND)).speedup == pytest.approx(1 / 0.8)


def test_corpus_kernels_get_advice_that_fits_them():
    # a basic-set report: the limiter's paragraph, then what the report lacks and the ncu options that would show it
    d = _first("EricccYang__cuda_operators__reduce_reduce_v2.ncu-rep")
    assert d.advice == ("class:memory-bound", "finding:not_collected")
    f = next(f for f in d.findings if f.id == "not_collected")
    assert f.message.values["sections"] == "WarpStateStats SourceCounters MemoryWorkloadAnalysis"
    # the warp-tiled GEMM whose top stall is Not Selected: ready warps wait for issue slots, no "more warps" finding
    d = _first("InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_08_warp_tile.ncu-rep", "warp_tile")
    assert d.stalls.shares[0].reason == "not_selected"
    assert "occupancy_limited" not in {f.id for f in d.findings} and d.advice[0] == "class:latency-bound"
    assert d.advice_findings[0].remedies[0] == "latency_ready"
    # FlashAttention with cp.async double buffering (LDGSTS counted) and its tensor path at 86.7 %: the advice knows
    # the kernel pipelines already and names the headroom the tensor path leaves
    d = _first("Bias92__flashattn-cuda__docs_profiling_ncu_sections_db_full_after_n4096_full.ncu-rep")
    assert d.kernel.metrics["smsp__inst_executed_op_ldgsts.sum"] > 0
    assert d.advice[0] == "class:compute-bound" and d.advice_findings[0].remedies == ("compute_tensor_pipelined",
                                                                                            "compute_tensor_fp16acc")
    report = CORPUS_NCU / "Bias92__flashattn-cuda__docs_profiling_ncu_sections_db_full_after_n4096_full.ncu-rep"
    text = render([diagnose_file(need(report))], "markdown", "en")
    assert "already copies asynchronously" in text and "gains more than 1.09x" in text


def test_a_launch_whose_cause_differs_is_named_in_its_group():
    # readOffset at offsets 0, 11, 128 (one group), launch 1's misaligned reads given DRAM bytes beyond its ideal
    # sectors' (as profiled they move none, and aligning gains ~1 %): the group panel shows the median launch and
    # names launch 1 as one that differs, by the root cause only it is advised to fix
    from kernelscope.analysis.groups import launch_groups
    from test_misaligned_access import _with_dram_excess

    rd = _with_dram_excess()
    (g,) = launch_groups(rd)
    rep = {f.advice for f in g.representative.worthwhile_advice}
    own = {d.kernel.index: [f.advice for f in d.worthwhile_advice if f.advice not in rep
                            and f.advice.startswith("finding:")] for d in rd.kernels}
    assert {o.index: o.own_advice for o in g.outliers if o.own_advice} == {i: a[0] for i, a in own.items() if a}
    assert {o.index for o in g.outliers if o.own_advice} == {1}

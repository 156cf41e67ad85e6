"""Expert review 14's kinds of fault in the advice order and the ceilings (fault kinds, not files):

1. A stall-hiding upper bound ("Long Scoreboard hidden: at most 2.36x") listed above a concrete change that is one way
   to hide that stall (more warps: "threads/block 32 -> 64 gives 40 warps per SM, at most 1.25x"), which was then
   called negligible after the bound as if the ceiling were reached. The concrete change leads; the bound follows with
   what is left of it.
2. A latency-bound launch whose report sizes no root cause got its class paragraph with no size at all, though its
   busiest unit bounds any gain ("DRAM 43.5%: at most 2.30x"). The paragraph carries that ceiling, as an upper bound;
   where a root cause is sized worth it, the ceiling is left out (it would take that cause's gain).
"""

from __future__ import annotations

import pytest

from conftest import CORPUS_NCU
from kernelscope import diagnose_file
from kernelscope.analysis.diagnosis import CEILING_FINDINGS
from kernelscope.analysis.advice_order import rank_and_share
from kernelscope.analysis.performance import (
    UPPER_BOUND, Change, Counter, Units, conservative_value, predict,
)
from kernelscope.errors import InputError
from kernelscope.render import render

FILES = sorted(CORPUS_NCU.glob("*.ncu-rep")) if CORPUS_NCU.is_dir() else []
PARAMS = FILES or [pytest.param(None, marks=pytest.mark.skip(reason="shared corpus absent"))]


def _units() -> Units:
    # issue 42% busy, L2 40%; two thirds of the warp cycles wait on Long Scoreboard; 14% issuing
    return Units((Counter("issue", "issue", 0.424, 0.424), Counter("l2", "l2", 0.40, 0.40)),
                 stall_shares={"long_scoreboard": 0.67}, selected_share=0.14)


def test_a_change_that_realizes_part_of_a_hidden_stall_comes_before_it():
    u = _units()
    hide = Change(waiting=0.67, kind=UPPER_BOUND, what="Long Scoreboard hidden")
    warps = Change(warps=1.25, kind=UPPER_BOUND, what="40 instead of 32 warps per SM")
    own = {"hide": predict(u, hide).speedup, "warps": predict(u, warps).speedup}
    assert own["hide"] > own["warps"] > 1.05  # the bound alone outranks the change alone
    assert conservative_value(own["hide"], UPPER_BOUND) > conservative_value(own["warps"], UPPER_BOUND)
    order = rank_and_share([("hide", hide, own["hide"], UPPER_BOUND, None),
                            ("warps", warps, own["warps"], UPPER_BOUND, None)], u, 1.05)
    assert [f for f, *_ in order] == ["warps", "hide"]
    gains = {f: g for f, g, _, _ in order}
    assert gains["warps"] == pytest.approx(own["warps"])  # its own estimate, not "negligible after the above"
    assert gains["warps"] * gains["hide"] == pytest.approx(own["hide"], rel=1e-6)  # the bound keeps what is left


def test_two_hidden_stalls_keep_the_models_order():
    u = _units()
    big, small = Change(waiting=0.6, kind=UPPER_BOUND), Change(waiting=0.3, kind=UPPER_BOUND)
    own = [predict(u, c).speedup for c in (big, small)]
    order = rank_and_share([("big", big, own[0], UPPER_BOUND, None), ("small", small, own[1], UPPER_BOUND, None)],
                           u, 1.0)
    assert [f for f, *_ in order] == ["big", "small"]  # another hidden wait is no way to hide this one


def _diagnoses(path):
    try:
        return diagnose_file(path).kernels
    except InputError as e:  # a file with no profile in it (a failed run)
        pytest.skip(str(e))


@pytest.mark.parametrize("path", PARAMS, ids=lambda p: p.name if p else "absent")
def test_no_worthwhile_change_is_called_negligible_after_a_stall_bound_it_helps_realize(path):
    for d in _diagnoses(path):
        advised = sorted((f for f in d.findings if f.advice and f.rank is not None), key=lambda f: f.rank)
        for n, f in enumerate(advised):
            above = advised[:n]
            hides = [a for a in above if a.change is not None and a.estimate_kind == UPPER_BOUND and a.change.waiting > 0
                     and not any(a.change.work.values()) and not a.change.idle and a.change.warps <= 1.0]
            concrete = f.change is not None and (f.change.warps > 1.0 or any(f.change.work.values()) or f.change.idle)
            if hides and concrete and f.estimated_speedup and f.estimated_speedup >= 1.05:
                assert f.marginal_speedup is not None and f.marginal_speedup >= 1.05, (
                    path.name, d.kernel.index, f.id, f.estimated_speedup, f.marginal_speedup, [a.id for a in hides])


@pytest.mark.parametrize("path", PARAMS, ids=lambda p: p.name if p else "absent")
def test_a_latency_bound_paragraph_carries_its_ceiling_unless_a_root_cause_is_sized(path):
    for d in _diagnoses(path):
        ceiling = [f for f in d.findings if f.id == "latency_from_throughput" and f.advice]  # (every wait hidden)
        if not ceiling or not d.units.counters:
            continue
        f = ceiling[0]
        sized = [g for g in d.findings if g.advice and g.id not in CEILING_FINDINGS and g.estimated_speedup
                 and conservative_value(g.estimated_speedup, g.estimate_kind) >= 1.05]
        # every wait hidden: the busiest unit (its busiest instance) at its peak, or the launch's floor
        expected = max(1.0, 1.0 / max(max(c.hottest for c in d.units.counters), d.units.min_share))
        if sized or conservative_value(expected, UPPER_BOUND) < 1.05:  # a root cause speaks, or nothing to gain
            assert f.estimated_speedup is None, (path.name, d.kernel.index, [g.id for g in sized], expected)
            continue
        assert f.estimate_kind == UPPER_BOUND, (path.name, d.kernel.index)
        assert f.estimated_speedup == pytest.approx(expected, rel=1e-6), (path.name, d.kernel.index)


def test_the_ceiling_is_printed_as_an_upper_bound_in_both_languages():
    path = CORPUS_NCU / "amitadate__GPU_Power_Model__profile.ncu-rep"
    if not path.is_file():
        pytest.skip("shared corpus absent")
    rd = diagnose_file(path)
    d = rd.kernels[0]
    f = next(f for f in d.findings if f.id in CEILING_FINDINGS)
    assert f.estimated_speedup and f.rank == 0
    x = f"{f.estimated_speedup:.2f}"
    assert f"latency-bound [at most {x}x this kernel" in " ".join(render([rd], "table", "en").split())
    assert f"延迟受限。本Kernel加速比至多{x}×" in "".join(render([rd], "table", "zh").split())

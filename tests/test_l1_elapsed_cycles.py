"""The whole L1/TEX cache's throughput (``l1tex__throughput``, measured over the L1's ACTIVE cycles) is brought to the
ELAPSED cycles by the first pair of cycle counters a report holds: the L1's own, the SMs', else the SMs' active
cycles over the GPCs' elapsed ones (Speed of Light's "SM Active Cycles" and "Elapsed Cycles", in every report with
that section). Before the third pair, a report without the first two showed the busiest L1 sub-metric of its
breakdown instead, which the Speed-of-Light breakdown of some GPUs lists at half the whole cache's load or less
(ESMM gmem_coalesce 45.6 % where the cache is 91 % busy; yzwang kernel_C exactly half, 40.6 % of 81.1 %).
Expectations computed by hand from the reports' raw counters."""

from __future__ import annotations

import pytest

from conftest import CORPUS_NCU, need
from kernelscope.analysis.limiters import L1_TOTAL, l1_total_elapsed, limiters
from kernelscope.ingest import load
from kernelscope.model import DeviceInfo, KernelProfile

L1_DATA = "l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed"
ESMM = CORPUS_NCU / "AveryClapp__ESMM-Research__profile.ncu-rep"


def _k(metrics: dict, breakdown: dict | None = None) -> KernelProfile:
    return KernelProfile(index=0, name="k", demangled_name="k", duration_s=1e-3,
                         device=DeviceInfo(display_name="x", compute_capability=(8, 6), sm_count=30),
                         metrics=metrics, memory_breakdown_pct=breakdown or {})


def test_the_first_cycle_pair_a_report_holds_converts_the_active_cycle_figure():
    base = {L1_TOTAL: 90.0, "sm__cycles_active.avg": 900.0, "gpc__cycles_elapsed.max": 1000.0}
    assert l1_total_elapsed(_k(base))[0] == pytest.approx(81.0)  # SMs' active over the GPCs' elapsed
    both = {**base, "sm__cycles_elapsed.avg": 950.0}  # the SMs' own elapsed cycles first
    assert l1_total_elapsed(_k(both))[0] == pytest.approx(90.0 * 900.0 / 950.0)
    own = {**both, "l1tex__cycles_active.avg": 500.0, "l1tex__cycles_elapsed.avg": 1000.0}  # the L1's own first
    assert l1_total_elapsed(_k(own))[0] == pytest.approx(45.0)
    # no elapsed cycles at all: not converted (the caller falls back to the breakdown)
    assert l1_total_elapsed(_k({L1_TOTAL: 90.0, "sm__cycles_active.avg": 900.0})) is None


def test_the_converted_whole_cache_is_the_l1_units_load_when_busier_than_its_breakdown():
    k = _k({L1_TOTAL: 90.0, "sm__cycles_active.avg": 900.0, "gpc__cycles_elapsed.max": 1000.0}, {L1_DATA: 45.0})
    top = limiters(k).top_memory
    assert top.metric == L1_TOTAL and top.pct == pytest.approx(81.0)


def test_esmm_l1_figures_from_the_speed_of_light_cycles():
    rep = load(need(ESMM))
    by_name = {k.name: k for k in rep.kernels}
    for name, active_pct, active, elapsed in (("gmem_coalesce", 93.3, 1800579.475, 1843158.0),
                                              ("smem_blocking", 89.1, 1296825.7875, 1327443.0)):
        k = by_name[name]
        assert k.metrics["gpc__cycles_elapsed.max"] == pytest.approx(elapsed)
        assert k.metrics.get("sm__cycles_elapsed.avg") is None and k.metrics.get("l1tex__cycles_elapsed.avg") is None
        assert l1_total_elapsed(k)[0] == pytest.approx(active_pct * active / elapsed, abs=0.1)
        assert limiters(k).top_memory.pct == pytest.approx(active_pct * active / elapsed, abs=0.1)
    # where the breakdown lists the L1's busiest stage, the conversion meets it (two_blocktiling: 44.4 vs 44.5 %)
    k = by_name["two_blocktiling"]
    busiest = max(v for n, v in k.memory_breakdown_pct.items() if n.startswith("l1tex__"))
    assert l1_total_elapsed(k)[0] == pytest.approx(busiest, abs=0.2)


def test_idle_sm_time_from_the_speed_of_light_cycles_where_the_sms_elapsed_ones_are_absent():
    # ESMM one_blocktiling: 1.60 waves; SMs active 477,523 of 567,961 elapsed GPC cycles: 15.9 % idle, measured, so
    # the tail effect's bound is 1 / (1 - 0.159) = 1.19x, not the waves' 1 / (1 - 0.2) = 1.25x guess
    from kernelscope.analysis.performance import idle_sm_share

    assert idle_sm_share(_k({"sm__cycles_active.avg": 900.0, "gpc__cycles_elapsed.max": 1000.0})) == pytest.approx(0.1)
    assert idle_sm_share(_k({"sm__cycles_active.avg": 900.0, "sm__cycles_elapsed.avg": 950.0,
                             "gpc__cycles_elapsed.max": 1000.0})) == pytest.approx(1 - 900 / 950)
    assert idle_sm_share(_k({"sm__cycles_active.avg": 900.0})) is None
    rep = load(need(CORPUS_NCU / "AveryClapp__ESMM-Research__profile_output.ncu-rep"))
    k = next(k for k in rep.kernels if k.name == "one_blocktiling")
    assert idle_sm_share(k) == pytest.approx(1 - 477523.0875 / 567961.0, abs=1e-4)

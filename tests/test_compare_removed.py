"""``compare`` of an improvement: the work the change removed (the mirror of the grown work, same counters and
thresholds), the launch configuration that changed (every pair), and BEFORE's estimates next to the measured speedup:
its "What to do" lead among them, an estimate whose sized waste did not fall set apart."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from conftest import CORPUS_NCU, flat, need
from test_compare_introduced import FEATHER, _d, _work
from test_zh_terms import punctuation_problems
from kernelscope.analysis.compare import compare
from kernelscope.analysis.engine import Evidence, Finding
from kernelscope.analysis.estimates import before_estimates, lead_estimate, sized_terms
from kernelscope.api import diagnose_file
from kernelscope.notes import Note
from kernelscope.render import compare as rc

LD = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
ST = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
FA3 = "Bias92__flashattn-cuda__docs_profiling_ncu_sections_{}.ncu-rep"


def test_float4_loads_are_listed_as_removed_work():
    # a quarter of the load requests, each moving 16 sectors instead of 4; the LSU pipe 60 % -> 30 % busy
    c = compare([_work(1.6e-3, 4.0e6, 4.0)], [_work(1.0e-3, 1.0e6, 16.0, lsu_pct=30.0, l1_pct=60.0)])
    p = c.pairs[0]
    assert not p.regressed and p.grown_work == ()
    g = {x.key: x for x in p.removed_work}["global_load_requests"]
    assert (g.before, g.after, g.ratio) == (4.0e6, 1.0e6, 0.25)
    assert (g.per_request_before, g.per_request_after) == (4.0, 16.0)
    assert g.unit == "lsu" and g.unit_added_share < -0.05  # the unit relieved most: the LSU (60 % -> 30 %)
    text = flat(rc.to_text(c, "en", width=300))
    assert text.index("What the change removed") < text.index("Estimated from the BEFORE findings")
    assert "global load requests 4 M -> 1 M (0.25x; 4 -> 16 sectors per request), relieving the load/store" in text
    md = rc.to_markdown(c, "en")
    assert "**What the change removed (work BEFORE did materially more of)**" in md
    zh = rc.to_markdown(c, "zh")
    section = zh.split("改动去除了什么")[1].split("\n\n")[1]
    assert "全局加载请求 400 万 → 100 万（0.25×；每次请求 4 → 16 个扇区），减轻了加载/存储（LSU）管线的负担" in section
    assert punctuation_problems(section) == []
    doc = json.loads(rc.to_json(c, "en"))["kernels"][0]
    assert [x["key"] for x in doc["removed_work"]][:1] == ["global_load_requests"]
    assert doc["removed_work"][0]["unit_added_share"] < 0 and doc["grown_work"] == []


def test_a_slower_kernel_or_an_idle_unit_lists_no_removed_work():
    slower = compare([_work(1.0e-3, 4.0e6, 4.0)], [_work(1.6e-3, 1.0e6, 16.0, lsu_pct=30.0)]).pairs[0]
    assert slower.regressed and slower.removed_work == ()
    idle = compare([_work(1.6e-3, 4.0e6, 4.0, lsu_pct=1.0, l1_pct=1.0)],
                   [_work(1.0e-3, 1.0e6, 16.0, lsu_pct=0.5, l1_pct=0.9)]).pairs[0]
    assert not idle.regressed and "global_load_requests" not in {x.key for x in idle.removed_work}


def _conflicts(duration_s, ld, st, lead_ld=True):
    """A launch with shared-load and -store bank conflicts, one finding each (as the rule reports them: the
    estimate of each sizes its own op's conflicts, named in its evidence)."""
    base = _d(duration_s)
    metrics = {**base.kernel.metrics, LD: ld, ST: st}
    found = tuple(Finding("shared_bank_conflicts", "optimization", Note("f_x", {"op": op}),
                          (Evidence(name, value, "conflict"),), advice="finding:shared_bank_conflicts",
                          estimated_speedup=x, estimate_kind="prediction", rank=rank)
                  for op, name, value, x, rank in (("ld", LD, ld, 1.30, 0 if lead_ld else 1),
                                                   ("st", ST, st, 1.05, 1 if lead_ld else 0)))
    return replace(base, kernel=replace(base.kernel, metrics=metrics), findings=found)


def test_an_estimate_whose_part_of_the_waste_did_not_fall_is_set_apart():
    before, after = _conflicts(1.25e-3, 4.0e6, 2.0e6), _conflicts(1.0e-3, 4.0e6, 0.5e6)
    assert sized_terms(before.findings[0], (LD, ST)) == (LD,)
    est = {e.measure: e for e in before_estimates(before, after)}
    assert est[(LD,)].lead and est[(LD,)].waste == "unchanged" and not est[(LD,)].explains
    assert est[(ST,)].waste == "fell" and est[(ST,)].explains and not est[(ST,)].lead
    c = compare([before], [after])
    text = flat(rc.to_text(c, "en", width=400))
    listed, apart = text.split("Estimated from the BEFORE findings: ")[1].split("not what the change did")
    assert "1.30x" not in listed and "shared-memory bank conflicts (1.05x; 2 M -> 500 k bank conflicts)" in listed
    assert "(BEFORE's first advice: 1.30x; 4 M -> 4 M bank conflicts)" in apart
    doc = json.loads(rc.to_json(c, "en"))["kernels"][0]
    assert [(e["lead"], e["explains"], e["waste"]) for e in doc["estimates"]] == [(True, False, "unchanged"),
                                                                                (False, True, "fell")]
    # the same pair slower: no speedup to explain, every estimate in the list
    slower = flat(rc.to_text(compare([_conflicts(1.0e-3, 4.0e6, 2.0e6)], [_conflicts(1.25e-3, 4.0e6, 0.5e6)]),
                             "en", width=400))
    assert "not what the change did" not in slower and "(BEFORE's first advice: 1.30x; 4 M -> 4 M" in slower


def test_a_class_paragraphs_headroom_leads_the_estimates():
    base = _d(1.0e-3)
    lead = Finding("compute_throughput", "bound", Note("rule_compute_tensor", {"pct": 61.5, "headroom": 1.44}),
                   bound="compute-bound", advice="class:compute-bound")
    d = replace(base, findings=(lead,))
    assert lead_estimate(d) == (lead, 1.44, "upper_bound")
    assert lead_estimate(replace(base, findings=(replace(lead, message=Note("rule_compute_tensor", {})),))) is None


def _pair(before: str, after: str, pairs=()):
    b, a = need(CORPUS_NCU / before), need(CORPUS_NCU / after)
    c = compare(list(diagnose_file(str(b)).kernels), list(diagnose_file(str(a)).kernels), list(pairs),
                pair_rule="name")
    return c, max(c.pairs, key=lambda p: p.before.duration_s or 0.0)


def test_e_vectorize_names_the_float4_loads_and_sets_the_load_conflicts_apart():
    c, p = _pair(FEATHER.format("06_more_compute"), FEATHER.format("07_vectorize"),
                 [("block_tiling_2D_matmul", "vectorize")])
    assert p.speedup == pytest.approx(1.18, abs=0.01)
    g = {x.key: x for x in p.removed_work}["global_load_requests"]
    assert (round(g.before / 1e6, 2), round(g.after / 1e6, 2)) == (4.33, 1.18) and g.unit == "lsu"
    assert [(x.field, x.before, x.after) for x in p.launch_changes] == [("registers_per_thread", 128, 99)]
    lead = p.estimates[0]
    assert lead.lead and lead.finding_id == "shared_bank_conflicts" and lead.measure == (LD,)
    assert lead.before_value == lead.after_value and not lead.explains
    text = flat(rc.to_text(c, "en", width=400))
    assert "global load requests 4.33 M -> 1.18 M (0.27x; 4.85 -> 17.8 sectors per request)" in text
    assert "Launch configuration: registers/thread 128 -> 99" in text
    listed, apart = text.split("Estimated from the BEFORE findings: ")[1].split("not what the change did")
    assert "1.31x" not in listed and "1.31x; 33.6 M -> 33.6 M bank conflicts" in apart.split("Model check")[0]
    assert "the part BEFORE's estimate sizes: 33.6 M -> 33.6 M bank conflicts, unchanged" in text
    zh = rc.to_markdown(c, "zh")
    assert "全局加载请求 433 万 → 118 万" in zh
    estimates = zh.split("根据优化前诊断结果的预估：")[1].split("\n")[0]
    assert "并非改动所为" in estimates and punctuation_problems(estimates) == []


def test_f_flash_attention_lists_its_launch_changes_and_befores_lead():
    c, p = _pair(FA3.format("fa3_before_n4096_full"), FA3.format("db_full_after_n4096_full"))
    assert p.speedup == pytest.approx(1.41, abs=0.01) and not p.regressed
    fields = {x.field: (x.before, x.after) for x in p.launch_changes}
    assert fields["registers_per_thread"] == (80, 95) and fields["shared_mem_static_bytes"] == (9216, 18432)
    assert "global_load_requests" in {x.key for x in p.removed_work}
    lead = p.estimates[0]
    assert lead.lead and lead.finding_id == "compute_throughput" and lead.estimate_kind == "upper_bound"
    assert lead.estimated_speedup == pytest.approx(1.44, abs=0.01)
    text = flat(rc.to_text(c, "en", width=400))
    assert "Launch configuration: registers/thread 80 -> 95; static shared memory/block 9 KiB -> 18 KiB" in text
    assert "compute throughput near its peak (BEFORE's first advice: at most 1.44x)" in text
    md = rc.to_markdown(c, "en")
    assert "Launch configuration: registers/thread 80 -> 95" in md and "What the change removed" in md
    zh = flat(rc.to_text(c, "zh", width=400))
    assert "启动配置：每线程寄存器数 80 → 95" in zh and "优化前的首条建议：至多 1.44×" in zh
    doc = json.loads(rc.to_json(c, "en"))["kernels"][0]
    assert doc["estimates"][0]["lead"] and doc["estimates"][0]["estimate_kind"] == "upper_bound"
    assert {"field": "registers_per_thread", "before": 80.0, "after": 95.0} in doc["launch_changes"]


def test_n1_coalescing_lists_only_the_loads_that_moved_the_l1():
    # 8.86 G -> 1.34 G load sectors; beside them 4.19 M -> 524 k store sectors and 262 k -> 131 k shared wavefronts
    # on the same L1 are not what moved it
    _, p = _pair(FEATHER.format("01_naive"), FEATHER.format("02_coalesce_memory"),
                 [("naive_matmul", "coalesce_matmul")])
    assert [x.key for x in p.removed_work] == ["global_load_sectors"]


@pytest.mark.parametrize("kernel", ["one_blocktiling", "two_blocktiling", "vectorized_blocktiling"])
def test_controls_remove_and_add_nothing(kernel):
    _, p = _pair("AveryClapp__ESMM-Research__profile.ncu-rep", "AveryClapp__ESMM-Research__profile_output.ncu-rep",
                 [(kernel, kernel)])
    assert p.removed_work == () and p.grown_work == () and p.launch_changes == ()

"""``compare``: what a change introduced (the AFTER findings BEFORE lacks, and the launch configuration that changed),
first for a slower AFTER, after what was resolved for a faster one, absent when nothing was introduced."""

from __future__ import annotations

import json

import pytest

from conftest import CORPUS_NCU, flat, need
from test_zh_terms import punctuation_problems
from kernelscope.analysis.compare import compare
from kernelscope.analysis.diagnosis import diagnose
from kernelscope.api import diagnose_file
from kernelscope.cli import main
from kernelscope.model import DeviceInfo, GpuSpec, KernelProfile, LaunchConfig
from kernelscope.render import compare as rc

GPU = GpuSpec(name="t", dram_bandwidth_bytes_per_s=1e12, peak_flops_per_s={"fp32": 1e13})
FEATHER = "InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_{}.ncu-rep"


def _d(duration_s, registers=64, theoretical=None, block=(256, 1, 1)):
    k = KernelProfile(index=0, name="k", demangled_name="k", device=DeviceInfo(display_name="t"),
                      launch=LaunchConfig(grid=(80, 1, 1), block=block, registers_per_thread=registers,
                                          shared_mem_static_bytes=4096, shared_mem_dynamic_bytes=0),
                      duration_s=duration_s, theoretical_occupancy_pct=theoretical)
    return diagnose(k, GPU)


def _feather(before: str, after: str, kb: str, ka: str):
    b = need(CORPUS_NCU / FEATHER.format(before))
    a = need(CORPUS_NCU / FEATHER.format(after))
    c = compare(list(diagnose_file(str(b)).kernels), list(diagnose_file(str(a)).kernels), [(kb, ka)],
                pair_rule="name")
    return c, c.pairs[0]


def test_only_registers_changed_and_slower_lists_only_registers():
    c = compare([_d(1.0e-3, registers=64)], [_d(1.3e-3, registers=128)])
    p = c.pairs[0]
    assert p.regressed
    assert [(x.field, x.before, x.after) for x in p.launch_changes] == [("registers_per_thread", 64, 128)]
    text = flat(rc.to_text(c, "en", width=200))
    assert "What the change introduced" in text
    assert "launch configuration: registers/thread 64 -> 128" in text
    assert "shared memory/block" not in text.split("What the change introduced")[1]  # unchanged: not listed
    doc = json.loads(rc.to_json(c, "en"))["kernels"][0]
    assert doc["launch_changes"] == [{"field": "registers_per_thread", "before": 64.0, "after": 128.0}]
    assert doc["introduced"] == []


def test_nothing_introduced_prints_nothing():
    same = compare([_d(1.0e-3)], [_d(1.3e-3)])  # slower, but no field changed and no finding added
    assert same.pairs[0].introduced == () and same.pairs[0].launch_changes == ()
    faster = compare([_d(1.3e-3, registers=128)], [_d(1.0e-3, registers=64)])  # faster: nothing introduced
    for c in (same, faster):
        for text in (rc.to_text(c, "en", width=200), rc.to_markdown(c, "en"), rc.to_text(c, "zh", width=200)):
            assert "introduced" not in text and "引入" not in text
    assert json.loads(rc.to_json(same, "en"))["kernels"][0]["launch_changes"] == []
    # a faster pair's launch change is still shown, on a line of its own (not as something introduced)
    assert [(x.field, x.before, x.after) for x in faster.pairs[0].launch_changes] == [("registers_per_thread", 128, 64)]
    assert "Launch configuration: registers/thread 128 -> 64" in flat(rc.to_text(faster, "en", width=200))
    assert json.loads(rc.to_json(faster, "en"))["kernels"][0]["launch_changes"] == [
        {"field": "registers_per_thread", "before": 128.0, "after": 64.0}]


def test_a_field_one_side_lacks_is_not_measured():
    c = compare([_d(1.0e-3, registers=None, theoretical=50.0)], [_d(1.3e-3, registers=128, theoretical=25.0)])
    p = c.pairs[0]
    assert [(x.field, x.before, x.after) for x in p.launch_changes] == [
        ("theoretical_occupancy_pct", 50.0, 25.0), ("registers_per_thread", None, 128)]
    text = flat(rc.to_text(c, "en", width=200))
    assert "theoretical occupancy 50% -> 25%; registers/thread not measured -> 128" in text


def test_n5_double_buffering_says_occupancy_halved_first():
    c, p = _feather("08_warp_tile", "09_double_buffering", "warp_tile", "double_buffering")
    assert p.speedup == pytest.approx(0.84, abs=0.01) and p.regressed
    assert [(i.finding_id, i.status) for i in p.introduced] == [("occupancy_limited", "new")]
    assert p.grown_work == ()  # the same work: DRAM read 66.9 vs 54.9 MB, write 9.3 MB in both
    assert p.introduced[0].estimated_speedup > 1.2
    changes = {x.field: (x.before, x.after) for x in p.launch_changes}
    assert changes["registers_per_thread"] == (117, 167)
    assert changes["shared_mem_static_bytes"] == (8192, 16384)
    assert changes["blocks_per_sm"] == (2, 1)
    assert changes["occupancy_limiters"] == (("registers",), ("registers", "shared_mem"))
    assert changes["theoretical_occupancy_pct"][0] == pytest.approx(100 / 3)
    assert changes["theoretical_occupancy_pct"][1] == pytest.approx(100 / 6)
    assert "block" not in changes and "grid" not in changes  # 16x16 of 256 threads on both sides
    text = flat(rc.to_text(c, "en", width=300))
    assert text.index("What the change introduced") < text.index("What the change resolved")  # a regression
    assert "registers/thread 117 -> 167; static shared memory/block 8 KiB -> 16 KiB" in text
    assert "blocks/SM 2 -> 1; occupancy limited by registers -> registers + shared memory" in text
    md = rc.to_markdown(c, "en")
    assert md.index("What the change introduced") < md.index("What the change resolved")
    doc = json.loads(rc.to_json(c, "en"))["kernels"][0]
    assert doc["introduced"][0]["finding_id"] == "occupancy_limited"
    assert {"field": "blocks_per_sm", "before": 2.0, "after": 1.0} in doc["launch_changes"]


def test_n5_in_chinese(capsys):
    b = need(CORPUS_NCU / FEATHER.format("08_warp_tile"))
    a = CORPUS_NCU / FEATHER.format("09_double_buffering")
    assert main(["compare", str(b), str(a), "--pair", "warp_tile=double_buffering", "--lang", "zh"]) == 0
    out = flat(capsys.readouterr().out)
    assert out.index("改动引入了什么") < out.index("改动解决了什么")
    assert "占用率受资源限制：新出现" in out
    assert "每线程寄存器数 117 → 167" in out and "每 SM 的 Block 数 2 → 1" in out
    assert "占用率受限于寄存器 → 寄存器和共享内存" in out


def test_improvements_get_no_spurious_introduction():
    # N1 coalescing, N2 tiling, N3 vectorising: faster. The stall shares that grow are the bottleneck moving, and the
    # shared-store bank conflicts tiling adds (0 -> 5.75 M, counted) cost under the worthwhile gain by the model
    for before, after, kb, ka in (("01_naive", "02_coalesce_memory", "naive_matmul", "coalesce_matmul"),
                                  ("02_coalesce_memory", "03_tiled", "coalesce_matmul", "tiled_matmul"),
                                  ("06_more_compute", "07_vectorize", "block_tiling_2D_matmul", "vectorize")):
        c, p = _feather(before, after, kb, ka)
        assert p.speedup > 1.1 and p.introduced == (), (before, after)  # launch changes: a line of their own
        assert p.grown_work == (), (before, after)
        assert "introduced" not in rc.to_text(c, "en")


@pytest.mark.parametrize("before, after", [
    ("Atopos0313__cuda_learning__reports_day08_before", "Atopos0313__cuda_learning__reports_day08_after"),  # N6
    ("Bias92__flashattn-cuda__docs_profiling_ncu_sections_fa3_before_n4096_full",
     "Bias92__flashattn-cuda__docs_profiling_ncu_sections_db_full_after_n4096_full"),  # N7
    ("EricccYang__cuda_operators__reduce_reduce_v1", "EricccYang__cuda_operators__reduce_reduce_v2"),  # N9
])
def test_other_improvements_print_no_introduction(before, after, capsys):
    b, a = need(CORPUS_NCU / f"{before}.ncu-rep"), need(CORPUS_NCU / f"{after}.ncu-rep")
    assert main(["compare", str(b), str(a), "--format", "json"]) == 0
    kernels = json.loads(capsys.readouterr().out)["kernels"]
    main_kernel = max(kernels, key=lambda k: k["before"]["total_s"])
    assert main_kernel["speedup"] > 1.3
    assert main_kernel["introduced"] == []  # its launch changes are listed (test_compare_removed), not introduced
    assert main_kernel["grown_work"] == []


N8 = ("kilianhae__Attention.C__softmax_CUDA_naivesoftmax_ncu.ncu-rep",
      "kilianhae__Attention.C__softmax_CUDA_softmax_thread_coarse.ncu-rep")


def _n8():
    b, a = need(CORPUS_NCU / N8[0]), need(CORPUS_NCU / N8[1])
    c = compare(list(diagnose_file(str(b)).kernels), list(diagnose_file(str(a)).kernels))
    return c, c.pairs[0]


def test_n8_slower_softmax_names_the_second_store_pass_not_a_worse_access_pattern():
    # pass 2 now writes exp(x - max) and pass 3 reads it back: twice the stores, the same 32 sectors per request
    c, p = _n8()
    assert p.speedup == pytest.approx(0.66, abs=0.01) and p.regressed
    worse = {i.finding_id: i for i in p.introduced}
    assert "uncoalesced_global" not in worse  # 58.7 M -> 73.4 M excess sectors, but 7.0 per ideal sector on both
    assert "small_grid" not in worse  # 16 blocks on both sides: a grid that did not change added nothing
    # sized by its own estimate (1.61x -> 1.91x), not by its gain after the uncoalesced accesses are fixed
    assert worse["long_scoreboard_latency"].status == "worse"
    assert worse["long_scoreboard_latency"].estimated_speedup > worse["long_scoreboard_latency"].before_estimate
    assert p.launch_changes == ()  # same launch configuration
    resolved = {r.finding_id: r for r in p.resolved}
    u = resolved["uncoalesced_global"]
    assert u.status == "with_work" and u.after_value > 1.1 * u.before_value
    assert u.before_per_work == pytest.approx(u.after_per_work, rel=0.01)
    grown = {g.key: g for g in p.grown_work}
    st = grown["global_store_requests"]
    assert (st.before, st.after) == (524288.0, 1048576.0)
    assert st.per_request_before == st.per_request_after == 32.0
    assert grown["dram_write"].ratio == pytest.approx(2.0, abs=0.01)
    assert "global_load_requests" not in grown and "dram_read" not in grown  # the reads did not change
    assert p.model_disagrees  # the model gives 1.00x for that work, measured 0.66x
    text = flat(rc.to_text(c, "en", width=300))
    intro = text.split("What the change introduced")[1].split("What became of the BEFORE findings (none resolved")[0]
    assert "global store requests 524 k -> 1.05 M (2.00x; 32 -> 32 sectors per request)" in intro
    assert "DRAM write 66.1 MiB -> 132 MiB (2.00x), on the L2 cache" in intro
    assert "uncoalesced" not in intro
    assert "uncoalesced global accesses: grew only with the work (58.7 M -> 73.4 M sectors; 7 -> 7 per ideal sector)" in text
    assert "the model gives 1.00x; measured 0.66x; the model and the measurement disagree" in text
    doc = json.loads(rc.to_json(c, "en"))["kernels"][0]
    assert doc["posthoc"]["disagrees"] is True
    assert {"global_store_requests", "dram_write"} <= {g["key"] for g in doc["grown_work"]}
    zh = flat(rc.to_text(c, "zh", width=300))
    assert "全局存储请求 52.4 万 → 105 万（2.00×；每次请求 32 → 32 个扇区）" in zh
    assert "DRAM 写入 66.1 MiB → 132 MiB（2.00×），落在 L2 缓存上" in zh
    assert "只随工作量增长" in zh and "模型与实测相差 1.25× 或更多" in zh
    md = rc.to_markdown(c, "zh")
    assert "优化前诊断项的变化（均未解决" in md and "改动解决了什么" not in md  # none resolved: the heading says so
    assert punctuation_problems(md.split("改动引入了什么")[1].split("优化前诊断项的变化（均未解决")[0]) == []
    assert punctuation_problems(md.split("模型核对")[1].split("\n")[0]) == []


def test_n4_warp_tile_names_the_scalar_global_loads_on_the_lsu_pipe():
    c, p = _feather("07_vectorize", "08_warp_tile", "vectorize", "warp_tile")
    assert p.speedup == pytest.approx(0.85, abs=0.01) and p.regressed
    g = p.grown_work[0]  # the largest factor first
    assert g.key == "global_load_requests" and (g.before, g.after) == (1179648.0, 4325376.0)
    assert g.unit == "lsu" and g.unit_ratio == pytest.approx(2.04, abs=0.01)
    assert g.per_request_before == pytest.approx(17.8, abs=0.1) and g.per_request_after == pytest.approx(4.0)
    assert {x.key for x in p.grown_work} == {"global_load_requests", "shared_load_instructions",
                                              "shared_store_instructions"}
    assert p.model_disagrees  # 1.19x by the units' work, 0.85x measured
    assert [(x.field, x.before, x.after) for x in p.launch_changes][0] == ("registers_per_thread", 99, 117)
    text = flat(rc.to_text(c, "en", width=300))
    intro = text.split("What the change introduced")[1].split("What the change resolved")[0]
    assert ("global load requests 1.18 M -> 4.33 M (3.67x; 17.8 -> 4 sectors per request), on the load/store (LSU) "
            "pipe: its work 2.04x") in intro
    check = text.split("Model check:")[1]
    assert check.index("load/store (LSU) pipe 2.04") < check.index("the model gives 1.19x")
    assert "the work the change added is listed above" in check
    md = rc.to_markdown(c, "en")
    assert "- global load requests 1.18 M -> 4.33 M (3.67x" in md
    zh = flat(rc.to_text(c, "zh", width=300))
    assert "全局加载请求 118 万 → 433 万（3.67×；每次请求 17.8 → 4 个扇区），落在加载/存储（LSU）管线上：其工作量 2.04×" in zh


GLD = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
GLD_SECTORS = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
LSU = "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_elapsed"
L1 = "l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed"


def _work(duration_s, requests, sectors_per_request, lsu_pct=60.0, l1_pct=70.0):
    """A launch whose only global accesses are loads: ``requests`` of ``sectors_per_request`` sectors each, where 4
    would do (4-byte loads of consecutive addresses)."""
    sectors = requests * sectors_per_request
    m = {GLD: requests, GLD_SECTORS: sectors, "memory_l2_theoretical_sectors_global": sectors,
         "memory_l2_theoretical_sectors_global_ideal": requests * 4.0,
         "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": 0.0}
    k = KernelProfile(index=0, name="k", demangled_name="k", device=DeviceInfo(display_name="t"),
                      launch=LaunchConfig(grid=(80, 1, 1), block=(256, 1, 1), registers_per_thread=64,
                                          shared_mem_static_bytes=0, shared_mem_dynamic_bytes=0),
                      duration_s=duration_s, metrics=m, compute_breakdown_pct={LSU: lsu_pct},
                      memory_breakdown_pct={L1: l1_pct})
    return diagnose(k, GPU)


def test_only_the_work_grew_with_the_same_waste_per_request():
    # twice the requests, 16 sectors each on both sides (4 would do): the access pattern is the same, the work doubled
    before, after = _work(1.0e-3, 1.0e6, 16.0), _work(1.6e-3, 2.0e6, 16.0)
    c = compare([before], [after])
    p = c.pairs[0]
    assert p.regressed
    assert "uncoalesced_global" not in {i.finding_id for i in p.introduced}
    assert {r.finding_id: r.status for r in p.resolved}.get("uncoalesced_global") in (None, "with_work")
    g = {x.key: x for x in p.grown_work}["global_load_requests"]
    assert (g.before, g.after, g.ratio) == (1.0e6, 2.0e6, 2.0)
    assert g.per_request_before == g.per_request_after == 16.0
    assert g.unit in ("lsu", "l1") and g.unit_added_share > 0.05
    text = flat(rc.to_text(c, "en", width=300))
    assert "global load requests 1 M -> 2 M (2.00x; 16 -> 16 sectors per request)" in text
    # the counterpart: the same work, each request now 16 sectors instead of 8: the waste per request grew
    wc = compare([_work(1.0e-3, 1.0e6, 8.0)], [_work(1.6e-3, 1.0e6, 16.0)])
    worse = wc.pairs[0]
    found = {i.finding_id: i for i in worse.introduced}
    assert "uncoalesced_global" in found
    assert found["uncoalesced_global"].after_per_work > 1.1 * found["uncoalesced_global"].before_per_work
    assert "global_load_requests" not in {x.key for x in worse.grown_work}  # the requests did not grow
    assert "(4 M -> 12 M sectors; 1 -> 3 per ideal sector)" in flat(rc.to_text(wc, "en", width=300))


def test_work_that_grew_on_an_idle_unit_is_not_listed():
    # the requests double, but the LSU pipe and L1 are nearly idle (1 % -> 1.25 % of the time busier): too small to
    # explain a 1.6x slower kernel (MIN_ADDED_BUSY)
    p = compare([_work(1.0e-3, 1.0e6, 4.0, lsu_pct=1.0, l1_pct=1.0)],
                [_work(1.6e-3, 2.0e6, 4.0, lsu_pct=1.25, l1_pct=1.25)]).pairs[0]
    assert p.regressed and p.grown_work == ()


def test_a_faster_kernel_lists_no_grown_work():
    p = compare([_work(1.6e-3, 1.0e6, 16.0)], [_work(1.0e-3, 2.0e6, 16.0)]).pairs[0]
    assert not p.regressed and p.grown_work == ()

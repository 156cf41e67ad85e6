"""``compare``: what a change introduced (the AFTER findings BEFORE lacks, and the launch configuration that changed),
first for a slower AFTER, after what was resolved for a faster one, absent when nothing was introduced."""

from __future__ import annotations

import json

import pytest

from conftest import CORPUS_NCU, flat, need
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
    faster = compare([_d(1.3e-3, registers=128)], [_d(1.0e-3, registers=64)])  # faster: a change explains nothing
    assert faster.pairs[0].launch_changes == ()
    for c in (same, faster):
        for text in (rc.to_text(c, "en", width=200), rc.to_markdown(c, "en"), rc.to_text(c, "zh", width=200)):
            assert "introduced" not in text and "引入" not in text
        assert json.loads(rc.to_json(c, "en"))["kernels"][0]["launch_changes"] == []


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
        assert p.speedup > 1.1 and p.introduced == () and p.launch_changes == (), (before, after)
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
    assert main_kernel["introduced"] == [] and main_kernel["launch_changes"] == []


def test_n8_slower_softmax_counts_the_uncoalesced_sectors_it_added():
    b = need(CORPUS_NCU / "kilianhae__Attention.C__softmax_CUDA_naivesoftmax_ncu.ncu-rep")
    a = need(CORPUS_NCU / "kilianhae__Attention.C__softmax_CUDA_softmax_thread_coarse.ncu-rep")
    c = compare(list(diagnose_file(str(b)).kernels), list(diagnose_file(str(a)).kernels))
    p = c.pairs[0]
    assert p.speedup == pytest.approx(0.66, abs=0.01)
    worse = {i.finding_id: i for i in p.introduced}
    u = worse["uncoalesced_global"]  # pass 2 now writes exp(x - max): DRAM write 69 -> 139 MB
    assert u.status == "worse" and u.after_value > 1.1 * u.before_value
    assert "small_grid" not in worse  # 16 blocks on both sides: a grid that did not change added nothing
    # sized by its own estimate (1.61x -> 1.91x), not by its gain after the uncoalesced accesses are fixed
    assert worse["long_scoreboard_latency"].status == "worse"
    assert worse["long_scoreboard_latency"].estimated_speedup > worse["long_scoreboard_latency"].before_estimate
    assert p.launch_changes == ()  # same launch configuration

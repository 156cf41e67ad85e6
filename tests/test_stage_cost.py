"""What a second pipeline stage costs a launch's occupancy, told beside the double-buffering remedy where it costs
at least ``stage_block_loss_share`` of the resident blocks (corpus pair N5: feather_gemm's warp_tile at 117
registers per thread kept 2 blocks per SM; its double-buffered version took 167 and kept 1, and ran 0.84x). Hand
computations from the occupancy rules (CUDA 13.0 ``cuda_occupancy.h``) in the comments; corpus cases skip with a
reason when the shared corpus is absent."""

from __future__ import annotations

from conftest import CORPUS_NCU, need
from test_design import LONG_SCOREBOARD, _k
from kernelscope import diagnose_file
from kernelscope.analysis.diagnosis import diagnose, diagnose_report
from kernelscope.analysis.occupancy import occupancy, stage_cost, stage_costs_occupancy
from kernelscope.model import GpuSpec, LaunchConfig, ProfileReport
from kernelscope.render import render

FEATHER = "InhabitancyCocoon__feather_gemm__docs_profile_result_RTX4060_MNK=2048_"
A100 = GpuSpec(name="A100 test", dram_bandwidth_bytes_per_s=1.555e12, sm_count=108, compute_capability=(8, 0),
               peak_flops_per_s={"fp32": 19.5e12})


def test_stage_cost_by_hand():
    # cc 8.9, 256 threads (8 warps), 117 registers -> 120 allocated: 3840 per warp, 16384 per sub-partition -> 4
    # warps each, 16 per SM: 2 blocks; 128 registers (4096 per warp) still 4 per sub-partition; 136 -> 3: 1 block.
    # 8 KiB -> 16 KiB of shared memory (+1 KiB reserved each) on a 100 KiB SM: 5 blocks, so registers stay the limit
    o = occupancy((8, 9), 256, 117, 8192)
    assert stage_cost(o) == {"stage_blocks": 2, "stage_regs": 117, "stage_regs_max": 128, "stage_blocks_over": 1,
                             "stage_blocks_smem2": 2}
    assert stage_costs_occupancy(o, 0.5)
    # the double-buffered version: 167 registers, 1 block; more registers (up to 255) keep it: nothing left to lose
    assert not stage_costs_occupancy(occupancy((8, 9), 256, 167, 16384), 0.5)
    # 1024 threads at 32 registers: up to 64 keep the one block, 72 exceed the 65,536 registers a block may have
    c = stage_cost(occupancy((8, 6), 1024, 32, 8192))
    assert (c["stage_regs_max"], c["stage_blocks_over"]) == (64, 0)
    # cc 8.0, 256 threads, 32 registers, 48 KiB: shared memory (49 KiB allocated of 164) holds 3 blocks; 96 KiB
    # holds 1: two thirds of them lost, whatever the registers
    c = stage_cost(occupancy((8, 0), 256, 32, 48 * 1024))
    assert (c["stage_blocks"], c["stage_blocks_smem2"]) == (3, 1)
    assert stage_costs_occupancy(occupancy((8, 0), 256, 32, 48 * 1024), 0.5)
    # 8 blocks at 32 registers (warps and registers tie): the next step keeps 6 of 8, a quarter lost: below the share
    o = occupancy((8, 0), 256, 32, 8192)
    assert stage_cost(o)["stage_blocks_over"] == 6 and not stage_costs_occupancy(o, 0.5)
    assert stage_costs_occupancy(o, 0.25)


def _ls(grid: int, regs: int, smem: int):
    launch = LaunchConfig(grid=(grid, 1, 1), block=(256, 1, 1), registers_per_thread=regs,
                          shared_mem_static_bytes=smem, shared_mem_dynamic_bytes=0)
    d = diagnose(_k(cc=(8, 0), sms=108, launch=launch, **LONG_SCOREBOARD), A100)
    return next(f for f in d.findings if f.id == "long_scoreboard_latency"), d


def test_the_long_scoreboard_prefetch_states_what_a_second_buffer_costs():
    # A100: 256 threads, 48 KiB of shared memory: 3 blocks per SM, 1 with a second 48 KiB buffer; 324 blocks on 108
    # SMs fill one wave: the cp.async prefetch is told its cost, in both languages
    f, d = _ls(324, 32, 48 * 1024)
    assert f.remedies == ("ls_async_tight",)
    report = diagnose_report(ProfileReport(path="t.ncu-rep", format="ncu-rep", kernels=(d.kernel,)), A100)
    en = render([report], "markdown", "en")
    assert "keep 3 blocks per SM" in en and "twice the shared memory per block keeps 1" in en
    zh = render([report], "markdown", "zh")
    assert "每个 SM 驻留 3 个 Block" in zh and "共享内存翻倍后为 1 个" in zh
    # a grid short of one wave (100 blocks on 108 SMs) loses nothing to fewer resident blocks: the plain remedy
    assert _ls(100, 32, 48 * 1024)[0].remedies == ("ls_async",)
    # 8 KiB, 32 registers: 8 blocks, the next steps keep 6 (a quarter): the plain remedy
    assert _ls(1080, 32, 8192)[0].remedies == ("ls_async",)


def test_corpus_warp_tile_is_told_the_register_step_its_double_buffered_version_crossed():
    d = next(d for d in diagnose_file(need(CORPUS_NCU / f"{FEATHER}08_warp_tile.ncu-rep")).kernels
             if d.kernel.name == "warp_tile")
    f = next(f for f in d.findings if f.advice and f.advice.startswith("class:"))
    assert "latency_stage_occupancy" in f.remedies
    v = f.message.values
    assert (v["stage_regs"], v["stage_regs_max"], v["stage_blocks"], v["stage_blocks_over"]) == (117, 128, 2, 1)
    # what happened: the double-buffered kernel took more registers than that and kept one block per SM
    after = next(a for a in diagnose_file(need(CORPUS_NCU / f"{FEATHER}09_double_buffering.ncu-rep")).kernels
                 if a.kernel.name == "double_buffering")
    assert after.kernel.launch.registers_per_thread > v["stage_regs_max"]
    assert after.occupancy.active_blocks_per_sm == v["stage_blocks_over"]


def test_block_size_step_by_hand():
    from kernelscope.analysis.occupancy import block_size_step
    # cc 12.0 (48 warp slots), 1024 threads (32 warps), 45 registers: one whole block fits (warps and registers tie):
    # 32 of 48; 640 threads (20 warps): two blocks, 40 warps (2 x 20 x 1536 registers = 61,440 of 65,536)
    assert block_size_step(occupancy((12, 0), 1024, 45, 0)) == {
        "block_threads": 1024, "block_threads_step": 640, "block_warps": 32, "block_warps_step": 40,
        "block_max_warps": 48}
    # registers alone limit (256 threads, 128 registers: 16 of 64 warps): no block size is the cause
    assert block_size_step(occupancy((8, 0), 256, 128, 0)) is None
    # full occupancy: nothing to fill
    assert block_size_step(occupancy((8, 0), 256, 32, 0)) is None


def test_corpus_latency_paragraph_names_the_block_size_that_fills_the_sm():
    d = diagnose_file(need(CORPUS_NCU / "Abhishek7204__raytracingCuda__profile.ncu-rep")).kernels[0]
    f = next(f for f in d.findings if f.advice == "class:latency-bound")
    assert "latency_block_size" in f.remedies
    v = f.message.values
    assert (v["block_threads"], v["block_warps"], v["block_max_warps"]) == (1024, 32, 48)
    assert v["block_warps_step"] > v["block_warps"]


def test_a_register_cap_says_it_may_spill():
    # the occupancy step that lowers the registers the compiler chose says to check for spills (blind review 16:
    # 167 -> 128 registers offered with no word of local-memory spills)
    from kernelscope.render.common import Fmt
    values = {"step_parameter": "registers_per_thread", "step_current": 167, "step_proposed": 128, "step_warps": 16}
    assert "ptxas -v" in Fmt("en").occupancy_step(values) and "ptxas -v" in Fmt("zh").occupancy_step(values)
    shared = dict(values, step_parameter="shared_mem_per_block_bytes")
    assert "ptxas" not in Fmt("en").occupancy_step(shared)

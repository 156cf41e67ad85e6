"""A stall reason's paragraph is made of remedies with preconditions: a clause that the launch's own counters rule out
is not given (blind review 20: reduceUsingCUB's first advice was "Fix shared-memory bank conflicts" with 0 conflicts
counted). The facts: ``no_bank_conflicts`` (the shared loads' and stores' conflicts counted, both 0),
``no_local_memory`` (local loads' and stores' sectors counted, both 0), ``no_mufu`` (an opcode mix without MUFU, or
an idle XU pipe), ``ldmatrix`` (LDSM already issued)."""

from __future__ import annotations

import pytest

from conftest import CORPUS_NCU, need
from kernelscope import diagnose_file
from kernelscope.analysis.design import BANK_CONFLICTS, LDSM, LOCAL_SECTORS, XU_PIPE, _counted_absent
from kernelscope.analysis.diagnosis import diagnose
from kernelscope.knowledge.remedies import remedy
from kernelscope.knowledge.stalls import describe
from kernelscope.model import DeviceInfo, GpuSpec, KernelProfile, LaunchConfig
from kernelscope.render.common import Fmt

ADA = GpuSpec(name="RTX 4090 test", dram_bandwidth_bytes_per_s=1.008e12, sm_count=128,
              peak_flops_per_s={"fp32": 82.6e12})
DEV = DeviceInfo(display_name="RTX 4090 test", compute_capability=(8, 9), sm_count=128)
REPORT = CORPUS_NCU / "Lashi0812__CudaProgramming__profiling_profiles_smemReduceInteger.ncu-rep"


def _k(metrics=None, opcodes=None, breakdown=None, stalls=None, shared=1024) -> KernelProfile:
    launch = LaunchConfig(grid=(4096, 1, 1), block=(128, 1, 1), registers_per_thread=16,
                          shared_mem_static_bytes=shared, shared_mem_dynamic_bytes=0)
    return KernelProfile(index=0, name="k", demangled_name="k", device=DEV, duration_s=100e-6, launch=launch,
                         metrics=metrics or {}, opcode_counts=opcodes or {}, compute_breakdown_pct=breakdown or {},
                         stall_values=stalls or {}, stall_family="per_issue_active" if stalls else None)


@pytest.mark.parametrize("fact, names", [("no_bank_conflicts", BANK_CONFLICTS), ("no_local_memory", LOCAL_SECTORS)])
def test_a_counted_zero_is_a_fact_an_absent_counter_is_not(fact, names):
    assert fact in _counted_absent(_k({n: 0.0 for n in names}))
    assert fact not in _counted_absent(_k({names[0]: 0.0, names[1]: 12.0}))
    assert fact not in _counted_absent(_k({names[0]: 0.0}))  # the other one not counted: not known


def test_mufu_and_ldmatrix_facts():
    assert "no_mufu" in _counted_absent(_k(opcodes={"FFMA": 10.0, "LDS": 4.0}))
    assert "no_mufu" not in _counted_absent(_k(opcodes={"FFMA": 10.0, "MUFU": 1.0}))
    assert "no_mufu" in _counted_absent(_k(breakdown={XU_PIPE: 0.0}))
    assert "no_mufu" not in _counted_absent(_k(breakdown={XU_PIPE: 0.4}))
    assert "no_mufu" not in _counted_absent(_k())
    assert "ldmatrix" in _counted_absent(_k({LDSM: 64.0})) and "ldmatrix" in _counted_absent(_k(opcodes={"LDSM": 2.0}))
    assert "ldmatrix" not in _counted_absent(_k({LDSM: 0.0}))


#: a launch whose stalls are Short Scoreboard first (cycles per issued instruction)
SHORT_SB = {"short_scoreboard": 20.0, "wait": 5.0, "barrier": 3.0, "selected": 1.0}


def _paragraph(kernel: KernelProfile, lang: str = "en") -> str:
    d = diagnose(kernel, ADA)
    f = next(f for f in d.findings if f.advice == "stall:short_scoreboard")
    return Fmt(lang).advice(f.advice, f)


def test_the_short_scoreboard_paragraph_leaves_out_what_the_counters_rule_out():
    conflicts = {BANK_CONFLICTS[0]: 3000.0, BANK_CONFLICTS[1]: 0.0}
    assert "bank conflicts" in _paragraph(_k(conflicts, stalls=SHORT_SB))
    none = _paragraph(_k({n: 0.0 for n in BANK_CONFLICTS}, opcodes={"LDS": 8.0, "IADD3": 20.0}, stalls=SHORT_SB))
    assert "bank conflict" not in none and "MUFU" not in none
    assert none.startswith("Short Scoreboard: Load shared data earlier than its use")
    assert "instruction-level parallelism" in none
    zh = _paragraph(_k({n: 0.0 for n in BANK_CONFLICTS}, opcodes={"LDS": 8.0}, stalls=SHORT_SB), "zh")
    assert "Bank 冲突" not in zh and "MUFU" not in zh and "指令级并行" in zh
    # no shared memory at all: neither the conflicts nor the shared loads' scheduling
    bare = _paragraph(_k(stalls=SHORT_SB, shared=0))
    assert "shared" not in bare.lower() and "MUFU" in bare  # (MUFU not ruled out: no opcode mix, no XU figure)


def test_every_clause_of_a_reason_without_facts():
    # what the reason's paragraph says where nothing rules a clause out: its remedies in order, but for those that
    # need a fact the launch must show (ldmatrix: a kernel running tensor-core MMAs)
    for rid in ("short_scoreboard", "mio_throttle", "long_scoreboard", "lg_throttle"):
        r = describe(rid)
        assert r.remedies and not r.advice_en
        assert r.text("advice", "en") == " ".join(remedy(i).text("en") for i in r.remedies)
        assert r.text("advice", "zh") == "".join(remedy(i).text("zh") for i in r.remedies)
    assert "ldmatrix" in describe("mio_throttle").text("advice", "en")


def test_cub_reduce_of_the_corpus_is_not_told_of_bank_conflicts():
    d = diagnose_file(need(REPORT)).kernels[2]
    assert d.kernel.name == "reduceUsingCUB"
    m = d.kernel.metrics
    assert all(m[n] == 0 for n in BANK_CONFLICTS) and d.kernel.launch.shared_mem_static_bytes == 32
    f = next(f for f in d.findings if f.advice == "stall:short_scoreboard")
    assert f.rank == 0  # (the first advice)
    assert "stall_short_scoreboard_bank_conflicts" not in f.remedies
    for lang, word in (("en", "bank conflict"), ("zh", "Bank 冲突")):
        text = Fmt(lang).advice(f.advice, f)
        assert word not in text and text, lang


#: a launch whose stalls are MIO Throttle first, with instruction issue measured (the finding is sized)
MIO = {"mio_throttle": 20.0, "wait": 5.0, "selected": 1.0}
ISSUE = "sm__inst_executed.avg.pct_of_peak_sustained_active"


def _mio_text(kernel: KernelProfile, lang: str = "en") -> str:
    d = diagnose(kernel, ADA)
    f = next(f for f in d.findings if f.id == "mio_throttle")
    return Fmt(lang).advice(f.advice, f)


@pytest.mark.parametrize("metrics, opcodes, shared, has, lacks", [
    ({}, {}, 1024, ("shared-memory and special-function (MUFU)", "bank-conflict replays"), ()),
    ({n: 0.0 for n in BANK_CONFLICTS}, {"LDS": 4.0}, 1024, ("wider shared-memory instructions",), ("MUFU", "bank-conflict")),
    ({}, {"MUFU": 2.0}, 0, ("special-function (MUFU) instructions for the same work",), ("shared-memory",)),
    ({}, {"SHFL": 2.0}, 0, ("shuffles, dynamic branches",), ("shared-memory", "MUFU")),
])
def test_the_mio_throttle_finding_names_only_what_can_fill_the_queue(metrics, opcodes, shared, has, lacks):
    text = _mio_text(_k(metrics, opcodes=opcodes, stalls=MIO, shared=shared))
    for words in has:
        assert words in text, words
    for words in lacks:
        assert words not in text, words
    zh = _mio_text(_k(metrics, opcodes=opcodes, stalls=MIO, shared=shared), "zh")
    assert "MIO" in zh and ("MUFU" in zh) == ("MUFU" in text)


def test_the_transpose_of_the_corpus_is_not_told_of_mufu():
    # day08_before: a [32][32] float tile read by columns (32-way conflicts), the XU pipe idle
    d = diagnose_file(need(CORPUS_NCU / "Atopos0313__cuda_learning__reports_day08_before.ncu-rep")).kernels[0]
    assert d.kernel.compute_breakdown_pct[XU_PIPE] == 0.0
    f = next(f for f in d.findings if f.id == "mio_throttle")
    text = Fmt("en").advice(f.advice, f)
    assert "MUFU" not in text and "bank-conflict replays" in text and "128-bit shared loads" in text


THREADS = "smsp__thread_inst_executed_per_inst_executed.ratio"


def _divergence(block: int, active: float, lang: str = "en") -> str:
    launch = LaunchConfig(grid=(4096, 1, 1), block=(block, 1, 1), registers_per_thread=16,
                          shared_mem_static_bytes=0, shared_mem_dynamic_bytes=0)
    k = KernelProfile(index=0, name="k", demangled_name="k", device=DEV, duration_s=100e-6, launch=launch,
                      metrics={THREADS: active, THREADS + "_pred_on": active})
    f = next(f for f in diagnose(k, ADA).findings if f.id == "thread_divergence")
    return Fmt(lang).advice(f.advice, f)


def test_divergence_advice_follows_the_block_size():
    # 128 threads (whole warps): the branches only, no word of block sizes
    whole = _divergence(128, 18.0)
    assert "same path" in whole and "multiples of 32" not in whole
    # 40 threads (2 warps: 20 lanes per warp) with 20 active: the block size alone, not the branches
    only = _divergence(40, 20.0)
    assert "the block size accounts for it, not the branches: a block of 40 threads fills 20 of the 32 lanes" in only
    assert "same path" not in only
    # 40 threads with 15 active: both
    both = _divergence(40, 15.0)
    assert "same path" in both and "multiples of 32 (a block of 40 threads leaves lanes of its last warp idle)" in both
    assert "32 的整数倍" in _divergence(40, 20.0, "zh") and "32 的整数倍" not in _divergence(128, 18.0, "zh")

"""The fusion estimate (the seed lesson 000, Q1: ``Y = LayerNorm(GeLU(X) + Residual)``), from a Kineto trace with
and without ``record_shapes``, from kernel reports, and the chains a kernel of another stream or a GEMM breaks.

Every expected value is worked out here by hand from the trace the test writes: FP16 tensors (2 bytes), X and
Residual M x N, gamma and beta N. Unfused: GeLU reads X and writes T1 (2 MN + 2 MN), the add reads T1 and Residual
and writes T2 (4 MN + 2 MN), LayerNorm reads T2, gamma, beta and writes Y (2 MN + 4 N + 2 MN): 14 MN + 4 N bytes.
Fused: X, Residual, gamma, beta read once, Y written once: 6 MN + 4 N bytes.
"""

from __future__ import annotations

import json
import math

import pytest

from conftest import SHARED, kernel_trace, need
from kernelscope.analysis.fusion import FusionKernel, estimate
from kernelscope.analysis.timeline import analyse_timeline
from kernelscope.analysis.timeline.fusion import fusion_chains, operator_traffic
from kernelscope.cli import main
from kernelscope.ingest import load_timeline

M, N = 2048, 4096
H = "c10::Half"
GELU = "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&)>"
ADD = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::Half>>"
LN = "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::Half, float>(int, float)"
GEMM = "sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off"
#: Kernel durations, µs: GeLU, add, LayerNorm.
DUR = {"gelu": 40, "add": 60, "ln": 45, "gemm": 300}

GELU_OP = ("aten::gelu", [[M, N], []], [H, "Scalar"])
ADD_OP = ("aten::add", [[M, N], [M, N], []], [H, H, "Scalar"])
LN_OP = ("aten::native_layer_norm", [[M, N], [], [N], [N], []], [H, "ScalarList", H, H, "Scalar"])
MM_OP = ("aten::mm", [[M, N], [N, N]], [H, H])


class Trace:
    """A Kineto trace built event by event: host operators with their launch calls, kernels on streams."""

    def __init__(self, shapes: bool = True, gpu: str = "NVIDIA H100 80GB HBM3"):
        self.events: list[dict] = []
        self.corr = 100
        self.shapes = shapes
        self.gpu = gpu

    def step(self, n: int, ts: float, dur: float) -> None:
        self.events.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{n}", "pid": 1, "tid": 1,
                            "ts": ts, "dur": dur})

    def launch(self, op: tuple, kernel: str, host_ts: float, gpu_ts: float, dur: float, stream: int = 7) -> None:
        name, dims, types = op
        self.corr += 1
        args = {"Input Dims": dims, "Input type": types} if self.shapes else {}
        self.events.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": host_ts, "dur": 10,
                            "args": args})
        self.events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                            "ts": host_ts + 2, "dur": 5, "args": {"correlation": self.corr}})
        self.events.append({"ph": "X", "cat": "kernel", "name": kernel, "pid": 0, "tid": stream, "ts": gpu_ts,
                            "dur": dur, "args": {"device": 0, "stream": stream, "correlation": self.corr}})

    def write(self, path) -> str:
        doc = {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": self.gpu}], "traceEvents": self.events}
        path.write_text(json.dumps(doc), encoding="utf-8")
        return str(path)


def _spec_chain(tr: Trace, t0: float, stream_of_add: int = 7, gemm: bool = False) -> None:
    """GeLU -> add -> LayerNorm back to back from GPU time t0 (µs); with ``gemm``, a GEMM between GeLU and add."""
    tr.launch(GELU_OP, GELU, t0, t0 + 100, DUR["gelu"])
    t = t0 + 100 + DUR["gelu"]
    if gemm:
        tr.launch(MM_OP, GEMM, t0 + 20, t, DUR["gemm"])
        t += DUR["gemm"]
    tr.launch(ADD_OP, ADD, t0 + 40, t, DUR["add"], stream=stream_of_add)
    t += DUR["add"]
    tr.launch(LN_OP, LN, t0 + 60, t, DUR["ln"])


def _two_steps(tmp_path, shapes: bool = True, **kw) -> str:
    """Two profiler steps of 1000 µs, the chain once in each: the program wall is 2000 µs."""
    tr = Trace(shapes=shapes)
    for i in range(2):
        t0 = 1_000_000 + i * 1000
        tr.step(i + 1, t0, 1000)
        _spec_chain(tr, t0, **kw)
    return tr.write(tmp_path / "trace.json")


def test_ingest_keeps_input_dims_and_types(tmp_path):
    tl = load_timeline(_two_steps(tmp_path))
    ops = tl.op_inputs
    assert ops is not None and len(ops) == 6
    code, table = ops.shapes()
    got = {tl.names[tl.name_id[r]]: table[c] for r, c in zip(ops.row.tolist(), code.tolist())}
    assert got["aten::native_layer_norm"] == (((M, N), (), (N,), (N,), ()), (H, "ScalarList", H, H, "Scalar"))
    assert got["aten::add"][0] == ((M, N), (M, N), ())
    assert all(tl.kind[r] == 7 for r in ops.row.tolist())  # cpu_op rows


def test_ingest_odd_input_dims_never_crash(tmp_path):
    """Input Dims kept as raw text and decoded later: a number msgspec cannot hold (1e999), a TensorList, dims
    that are not a list, a missing or short Input type, and the same text written twice."""
    ops = [([[12345678, 4]], ["float"]), ([[[1, 2], [3]], [5]], ["TensorList", "float"]), ("[1,2]", ["float"]),
           ([[3, 4]], None), ([[3, 4], [4]], ["float"]), ([[3, 4], [4]], ["float"]), ([[-1, 2]], "float")]
    events = []
    for i, (dims, types) in enumerate(ops):
        args = {"Input Dims": dims} if types is None else {"Input Dims": dims, "Input type": types}
        events.append({"ph": "X", "cat": "cpu_op", "name": f"aten::op{i}", "pid": 1, "tid": 1, "ts": 10 + 20 * i,
                       "dur": 10, "args": args})
    events.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 300, "dur": 5,
                   "args": {"device": 0, "stream": 7}})
    path = tmp_path / "odd.json"
    path.write_text(json.dumps({"traceEvents": events}).replace("12345678", "1e999"), encoding="utf-8")
    tl = load_timeline(str(path))
    code, table = tl.op_inputs.shapes()
    got = {tl.names[tl.name_id[r]]: table[c] for r, c in zip(tl.op_inputs.row.tolist(), code.tolist())}
    assert "aten::op0" not in got  # (a number out of range: the whole text unreadable)
    assert "aten::op2" not in got  # dims that are not a list
    assert got["aten::op1"] == ((None, (5,)), ("TensorList", "float"))
    assert got["aten::op3"] == (((3, 4),), ("",))
    assert got["aten::op4"] == got["aten::op5"] == (((3, 4), (4,)), ("float", ""))  # (a short Input type)
    assert got["aten::op4"][0] is got["aten::op5"][0]  # one decoded value per distinct text
    assert got["aten::op6"] == ((None,), ("",))


def test_spec_chain_with_shapes_hand_computed(tmp_path):
    rep = analyse_timeline(load_timeline(_two_steps(tmp_path)))
    assert len(rep.fusion) == 1
    e = rep.fusion[0]
    assert [k.name for k in e.kernels] == [GELU, ADD, LN]
    assert [k.operator for k in e.kernels] == ["aten::gelu", "aten::add", "aten::native_layer_norm"]
    assert e.bytes_basis == "shapes" and e.head is None
    assert e.occurrences == 2 and e.steps == 2 and e.per_step == 1.0
    mn = M * N
    assert [k.read_bytes for k in e.kernels] == [2 * mn, 4 * mn, 2 * mn + 4 * N]
    assert [k.write_bytes for k in e.kernels] == [2 * mn, 2 * mn, 2 * mn]
    unfused = 14 * mn + 4 * N  # 117,456,896 B
    fused = 6 * mn + 4 * N  # 50,348,032 B
    assert e.unfused_bytes == unfused == 117_456_896
    assert e.fused_bytes == fused == 50_348_032
    assert e.bytes_fraction == pytest.approx(0.428651, rel=1e-5)  # 57 % of the traffic gone
    t = 145e-6  # 40 + 60 + 45 µs
    assert e.unfused_s == pytest.approx(t)
    assert e.achieved_bytes_per_s == pytest.approx(unfused / t)  # 810 GB/s
    assert e.fused_s == pytest.approx(t * fused / unfused)  # 62.154 µs
    assert e.fused_s == pytest.approx(62.154e-6, rel=1e-4)
    assert e.saving_s == pytest.approx(82.846e-6, rel=1e-4)
    assert e.speedup == pytest.approx(2.3329, rel=1e-4)
    # the bound: the fused bytes at H100 SXM's 3.35 TB/s
    assert e.peak_bytes_per_s == pytest.approx(3.35e12)
    assert e.fused_bound_s == pytest.approx(fused / 3.35e12)  # 15.03 µs
    assert e.saving_bound_s == pytest.approx(t - fused / 3.35e12)
    # twice in a wall of 2000 µs: 165.69 µs saved, 8.28 %, Amdahl 1.0903x
    assert e.total_saving_s == pytest.approx(2 * 82.846e-6, rel=1e-4)
    assert e.program_s == pytest.approx(2000e-6)
    assert e.program_fraction == pytest.approx(0.082846, rel=1e-4)
    assert e.program_speedup == pytest.approx(1 / (1 - 0.082846), rel=1e-4)
    assert e.route == "torch_compile"
    assert "second_pass" in e.caveats and "intermediate_elsewhere" in e.caveats
    assert "assumed_chain" not in e.caveats


def test_chain_without_shapes_assumes_it(tmp_path):
    rep = analyse_timeline(load_timeline(_two_steps(tmp_path, shapes=False)))
    assert len(rep.fusion) == 1
    e = rep.fusion[0]
    assert e.bytes_basis == "assumed_chain" and "assumed_chain" in e.caveats
    assert e.unfused_bytes is None and e.fused_bytes is None and e.fused_bound_s is None
    # three kernels, each assumed to read one tensor and write one: fused 2 of 6 transfers
    assert e.bytes_fraction == pytest.approx(1 / 3)
    assert e.fused_s is None  # without bytes the fused time is not known ...
    assert e.fused_floor_s == pytest.approx(145e-6 / 3)  # ... only the least it can be, under the assumption
    assert e.saving_s == pytest.approx(145e-6 * 2 / 3)
    assert e.program_fraction == pytest.approx(2 * 145e-6 * 2 / 3 / 2000e-6)
    # an assumed chain is the best case (every intermediate consumed by the next kernel only): an upper bound,
    # worded "at most" and so in the JSON
    assert e.estimate_kind == "upper_bound"
    from kernelscope.render.common import Fmt
    from kernelscope.render.fusion import fusion_headline
    # 1 / (1/3); review 11: a whole bound prints whole (3x, never 3.00x)
    assert "at most 3x" in fusion_headline(e, Fmt("en")) and "至多 3×" in fusion_headline(e, Fmt("zh"))
    shaped = analyse_timeline(load_timeline(_two_steps(tmp_path, shapes=True))).fusion[0]
    assert shaped.estimate_kind == "prediction" and "at most" not in fusion_headline(shaped, Fmt("en"))


def test_kernel_of_another_stream_breaks_the_chain(tmp_path):
    """The add on stream 8: on stream 7 GeLU and LayerNorm are adjacent and T2 has T1's shape and dtype, but the
    add ran in between on another stream (it produced what LayerNorm reads): no candidate."""
    rep = analyse_timeline(load_timeline(_two_steps(tmp_path, stream_of_add=8)))
    assert rep.fusion == ()


def test_gemm_breaks_the_chain_and_heads_an_epilogue(tmp_path):
    rep = analyse_timeline(load_timeline(_two_steps(tmp_path, gemm=True)))
    assert len(rep.fusion) == 1
    e = rep.fusion[0]
    assert GELU not in [k.name for k in e.kernels]  # GeLU -> GEMM: the GEMM is compute-bound, it ends the chain
    assert [k.name for k in e.kernels] == [ADD, LN]
    assert e.head is not None and e.head.name == GEMM and e.route == "epilogue"
    mn = M * N
    # tail: add (4 MN read, 2 MN written) + LayerNorm (2 MN + 4 N read, 2 MN written) = 10 MN + 4 N;
    # in the GEMM's epilogue only Residual, gamma and beta are read: 2 MN + 4 N (Y replaces the GEMM's own write)
    assert e.unfused_bytes == 10 * mn + 4 * N
    assert e.fused_bytes == 2 * mn + 4 * N
    assert e.unfused_s == pytest.approx(105e-6)
    assert e.fused_s == pytest.approx(105e-6 * (2 * mn + 4 * N) / (10 * mn + 4 * N))


def test_unfused_chain_mismatched_shapes_is_not_a_chain(tmp_path):
    """With shapes on both sides, a kernel that does not read the previous one's output ends the chain."""
    tr = Trace()
    other = ("aten::add", [[M, 2 * N], [M, 2 * N], []], [H, H, "Scalar"])
    tr.launch(GELU_OP, GELU, 1_000_000, 1_000_100, 40)
    tr.launch(other, ADD, 1_000_040, 1_000_140, 60)
    assert fusion_chains(load_timeline(tr.write(tmp_path / "t.json")), 1e-3) == ()


def test_operator_traffic_rules():
    mn = M * N
    # in place: the first input is written; copy_ reads only its source
    assert operator_traffic("aten::add_", "elementwise", [(M, N), (M, N), ()], [H, H, "Scalar"])[1:] == (
        4 * mn, ((M, N), H))
    assert operator_traffic("aten::copy_", "copy", [(M, N), (M, N), ()], ["float", H, "Scalar"])[1:] == (
        2 * mn, ((M, N), "float"))
    # broadcast: a bias of N added to M x N
    assert operator_traffic("aten::add", "elementwise", [(M, N), (N,), ()], ["float", "float", "Scalar"])[2] == (
        (M, N), "float")
    assert operator_traffic("aten::sum", "reduction", [(M, N), ()], [H, ""]) is None  # output not in the trace
    assert operator_traffic("aten::_to_copy", "copy", [(M, N)], [H]) is None  # the target dtype is not recorded


def test_estimate_refuses_an_empty_chain():
    with pytest.raises(ValueError):
        estimate([], None)
    e = estimate([FusionKernel("a", None, "elementwise", 1e-6, 100.0, 100.0),
                  FusionKernel("b", None, "elementwise", 1e-6, 100.0, 100.0)], 200.0, peak_bytes_per_s=1e9)
    assert e.bytes_fraction == 0.5 and e.fused_s == pytest.approx(1e-6) and e.fused_bound_s == pytest.approx(2e-7)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("fmt", ["table", "markdown", "json"])
def test_timeline_shows_the_fusion(tmp_path, capsys, fmt, lang, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # every column (at 80 the route column gives way first)
    path = _two_steps(tmp_path)
    assert main(["timeline", path, "--format", fmt, "--lang", lang]) == 0
    out = capsys.readouterr().out
    if fmt == "json":
        doc = json.loads(out)["reports"][0]["fusion"]
        assert len(doc) == 1 and doc[0]["fused_bytes"] == 6 * M * N + 4 * N and doc[0]["estimate_kind"] == "prediction"
        assert doc[0]["advice"]
        return
    assert "2.33" in out  # the chain's speedup
    assert ("torch.compile" in out)
    assert ("融合" in out) == (lang == "zh")


def test_fusion_command_on_the_trace(tmp_path, capsys):
    path = _two_steps(tmp_path)
    assert main(["fusion", path, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["candidates"][0]["unfused_bytes"] == 14 * M * N + 4 * N


def test_fusion_command_bad_input(tmp_path, capsys):
    assert main(["fusion", str(tmp_path / "absent.json")]) == 2
    err = capsys.readouterr().err
    assert "absent.json" in err and "Traceback" not in err


def test_corpus_trace_candidates_by_hand():
    """hta_alexnet_a100_rank0_trace (no shapes recorded), stream 7 read by hand: each convolution is followed by the
    bias add (``elementwise_kernel<128, 2, ...CUDAFunctor_add<float>>``) and the ReLU (``launch_clamp_scalar``), then
    a max-pool (not one of the fusion families: it ends the chain). conv1 (cuDNN, 1035 µs, 2 µs before the add) and
    conv3-5 (``sm80_xmma_fprop``, 1-9 µs before) head epilogue chains; conv2's FFT ends 5365 µs before its add, so
    its add + ReLU is a plain chain. The classifier layers: a cuBLASLt epilogue kernel, then ReLU (+ dropout).
    Two forward passes: every chain twice (conv3-5 share their names: 6 times)."""
    path = need(SHARED / "corpus" / "torch_traces" / "hta_alexnet_a100_rank0_trace.json.gz")
    tl = load_timeline(str(path))
    chains = fusion_chains(tl, 1.0, top=100)
    a, r, d = "CUDAFunctor_add<float>", "launch_clamp_scalar", "fused_dropout_kernel_vec"

    def marker(name: str) -> str:
        return next(m for m in (a, r, d) if m in name)

    got = {(None if e.head is None else e.head.name[:16], tuple(marker(k.name) for k in e.kernels),
            e.occurrences, round(e.unfused_s * 1e6, 1)) for e in chains}
    head_conv1, head_conv3, head_fc = "cudnn_ampere_scu", "sm80_xmma_fprop_", "void epilogue::i"
    assert got == {
        (head_conv1, (a, r), 2, (187 + 145 + 187 + 144) / 2),
        (head_conv3, (a, r), 6, (67 + 51 + 44 + 15 + 44 + 15 + 67 + 51 + 45 + 15 + 45 + 15) / 6),
        (None, (a, r), 2, 242.0),
        (head_fc, (r, d), 2, 12.0),
        (head_fc, (r,), 2, 5.0),
    }, got
    for e in chains:
        assert e.bytes_basis == "assumed_chain" and e.route == ("torch_compile" if e.head is None else "epilogue")
        # assumed: k kernels each read and write one tensor -> fused 1/k of the traffic; in an epilogue, none
        assert e.saving_s == pytest.approx(e.unfused_s * ((1 - 1 / len(e.kernels)) if e.head is None else 1.0))


# ------------------------------------------------------------------------------------------------ kernel reports
REPORT = """
[[kernel]]
name = "gelu_fp16"
device = "NVIDIA H100 80GB HBM3"
duration_us = 20.0
dram_bytes_read = 16777216
dram_bytes_write = 16777216

[[kernel]]
name = "residual_add_fp16"
device = "NVIDIA H100 80GB HBM3"
duration_us = 30.0
dram_bytes_read = 33554432
dram_bytes_write = 16777216

[[kernel]]
name = "layernorm_fp16"
device = "NVIDIA H100 80GB HBM3"
duration_us = 20.0
dram_bytes_read = 16793600
dram_bytes_write = 16777216

[[kernel]]
name = "sgemm_tiled"
device = "NVIDIA H100 80GB HBM3"
duration_us = 100.0
flops = 1e12
pipe = "fp32"
dram_bytes = 1000000
"""


def _report_check(doc: dict) -> None:
    e = doc["candidates"][0]
    assert [k["name"] for k in e["kernels"]] == ["gelu_fp16", "residual_add_fp16", "layernorm_fp16"]
    assert e["bytes_basis"] == "dram_counters"
    # intermediates: min(16 MiB written by GeLU, 32 MiB read by the add) + min(16 MiB, 16 MiB + 16 KiB)
    assert e["unfused_bytes"] == 117_456_896
    assert e["fused_bytes"] == 117_456_896 - 2 * (16_777_216 + 16_777_216) == 50_348_032
    assert e["unfused_s"] == pytest.approx(70e-6)
    assert e["fused_s"] == pytest.approx(70e-6 * 50_348_032 / 117_456_896)  # 30.006 µs
    assert e["fused_bound_s"] == pytest.approx(50_348_032 / 3.35e12)
    assert e["program_s"] == pytest.approx(170e-6)  # every launch of the report
    assert e["program_fraction"] == pytest.approx((70e-6 - 30.0056e-6) / 170e-6, rel=1e-4)
    assert e["route"] == "fused_kernel"


def test_report_chain_named(tmp_path, capsys):
    path = tmp_path / "unfused.toml"
    path.write_text(REPORT, encoding="utf-8")
    assert main(["fusion", str(path), "--kernels", "gelu_fp16,residual_add_fp16,layernorm_fp16",
                 "--format", "json"]) == 0
    _report_check(json.loads(capsys.readouterr().out))


def test_report_chain_around_one_kernel(tmp_path, capsys):
    """--around: the add's memory-bound neighbours; the SGEMM (compute-bound on its roofline) ends the chain."""
    path = tmp_path / "unfused.toml"
    path.write_text(REPORT, encoding="utf-8")
    assert main(["fusion", str(path), "--around", "residual_add_fp16", "--format", "json"]) == 0
    _report_check(json.loads(capsys.readouterr().out))


def test_report_needs_a_chain(tmp_path, capsys):
    path = tmp_path / "unfused.toml"
    path.write_text(REPORT, encoding="utf-8")
    assert main(["fusion", str(path), "--kernels", "gelu_fp16"]) == 2
    assert "at least two kernels" in capsys.readouterr().err
    assert main(["fusion", str(path), "--kernels", "gelu_fp16,nope"]) == 2
    assert "'nope'" in capsys.readouterr().err


# ------------------------------------------------------------------------------- the example's GPU reports
#: Where the report of examples/kernels/profile_layernorm.sh is looked for (the first that exists).
LAYERNORM_REPORTS = ("examples/kernels/reports/layernorm.ncu-rep", "../shared/reports/layernorm.ncu-rep")


def test_layernorm_example_estimate_against_the_measured_ratio():
    """examples/kernels/layernorm.cu profiled by profile_layernorm.sh: the estimate from the three unfused kernels'
    DRAM bytes and durations against what the fused kernel measured (its time over the three's)."""
    import os

    from conftest import REPO
    from kernelscope.analysis.fusion import chain_in_report, report_estimate
    from kernelscope.api import diagnose_file

    found = [REPO / p for p in LAYERNORM_REPORTS if (REPO / p).is_file()]
    if os.environ.get("KERNELSCOPE_LAYERNORM_REPORT"):
        found.insert(0, need(__import__("pathlib").Path(os.environ["KERNELSCOPE_LAYERNORM_REPORT"])))
    if not found:
        pytest.skip("no GPU report of examples/kernels/layernorm.cu (run examples/kernels/profile_layernorm.sh on "
                    f"a GPU machine; looked for {', '.join(LAYERNORM_REPORTS)} and $KERNELSCOPE_LAYERNORM_REPORT)")
    rep = diagnose_file(found[0])
    chain = chain_in_report(rep.kernels, ["gelu_fp16", "residual_add_fp16", "layernorm_fp16"])
    e = report_estimate(chain)
    fused = next(d for d in rep.kernels if d.kernel.name == "fused_gelu_residual_layernorm_fp16")
    measured = fused.kernel.duration_s / e.unfused_s
    # the ideal bytes: 7 MN x 2 B unfused, 3 MN x 2 B fused (the program's own count), gamma and beta aside
    assert e.bytes_fraction == pytest.approx(3 / 7, abs=0.08)
    assert e.fused_s / e.unfused_s == pytest.approx(measured, rel=0.35), (e.fused_s, fused.kernel.duration_s)
    if e.fused_bound_s is not None:  # nothing runs faster than its bytes at the DRAM peak
        assert fused.kernel.duration_s >= 0.95 * e.fused_bound_s


def test_timeline_kernels_join_keeps_the_fusion_beside_it(tmp_path, capsys, monkeypatch):
    """``timeline --kernels REPORT``: the joined per-kernel speedups and the fusion saving in one output."""
    monkeypatch.setenv("COLUMNS", "200")  # every column (at 80 the fusion column gives way first)
    trace = _two_steps(tmp_path)
    report = tmp_path / "unfused.toml"
    report.write_text(REPORT, encoding="utf-8")
    assert main(["timeline", trace, "--kernels", str(report)]) == 0
    out = capsys.readouterr().out
    assert "Largest fusion saving" in out and "Fusion candidates" in out
    assert out.index("Fusion candidates") > out.index("Top kernels")
    assert "chain 1: 8.3% of" in out  # in the joined table, beside each kernel's own speedup


def test_operator_inputs_follow_take_and_merge(tmp_path):
    """Rows left out by take() drop their shapes and the others are renumbered; merge() shifts them."""
    import numpy as np

    from kernelscope.timeline_model import merge_timelines

    tl = load_timeline(_two_steps(tmp_path))
    names = lambda t: [t.names[t.name_id[r]] for r in t.op_inputs.row.tolist()]  # noqa: E731
    keep = np.flatnonzero(tl.name_id != tl.names.index("aten::add"))
    kept = tl.take(keep)
    assert names(kept) == [n for n in names(tl) if n != "aten::add"]
    assert all(kept.kind[r] == 7 for r in kept.op_inputs.row.tolist())
    merged = merge_timelines([kept, tl], path="x")
    assert names(merged) == names(kept) + names(tl)
    decoded = lambda ops: [ops.shapes()[1][c] for c in ops.shapes()[0].tolist()]  # noqa: E731
    assert decoded(merged.op_inputs)[len(kept.op_inputs):] == decoded(tl.op_inputs)
    assert decoded(merged.op_inputs)[:len(kept.op_inputs)] == decoded(kept.op_inputs)
    # both inputs hold the same shapes: one table entry each, not one per input (what is computed per distinct
    # shape is computed once for all ranks)
    table = merged.op_inputs.table
    assert len(set(table)) == len(table) == len(tl.op_inputs.table)


def test_fusion_family_patterns_are_lower_case_and_names_match_in_any_case():
    """Names are lower-cased before the search: a kernel named in any case finds its family; a pattern written
    with capitals (which lower-casing could not match, or an escape such as \\W it would change) is refused."""
    import pytest

    from kernelscope.knowledge.fusion import FusionFamily, fusion_family

    assert fusion_family("CatArrayBatchedCopy<float>").id == "copy"
    assert fusion_family("Vectorized_LAYER_Norm_kernel").id == "normalisation"
    with pytest.raises(ValueError, match="lower case"):
        FusionFamily(id="x", memory_bound=True, patterns=("CatArray",), source="s")


def test_nsys_export_chain_by_adjacency(tmp_path):
    """An Nsight Systems export (no shapes): GeLU -> add -> LayerNorm on stream 7, three times 1 ms apart; a
    kernel on stream 8 in the middle of the second run breaks that one."""
    import sqlite3

    path = tmp_path / "chain.sqlite"
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE TARGET_INFO_GPU (id INTEGER, name TEXT);
        CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
          contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, shortName INTEGER NOT NULL);
        INSERT INTO TARGET_INFO_GPU VALUES (0, 'NVIDIA A100-SXM4-80GB');
    """)
    con.executemany("INSERT INTO StringIds VALUES (?, ?)", [(1, GELU), (2, ADD), (3, LN), (4, "other_kernel")])
    rows, corr = [], 0
    for run in range(3):
        t = 1_000_000_000 + run * 1_000_000  # ns
        for name_id, dur_us in ((1, 40), (2, 60), (3, 45)):
            corr += 1
            rows.append((t, t + dur_us * 1000, 7, corr, name_id))
            t += dur_us * 1000 + 500
        if run == 1:  # another stream's kernel starts between the add and the LayerNorm of run 2
            corr += 1
            rows.append((rows[-2][1] + 100, rows[-2][1] + 300, 8, corr, 4))
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?,?,0,1,?,?,?)", rows)
    con.commit()
    con.close()
    e, broken = fusion_chains(load_timeline(str(path)), 1.0)
    assert [k.name for k in broken.kernels] == [GELU, ADD] and broken.occurrences == 1  # run 2, up to the break
    assert broken.saving_s == pytest.approx(100e-6 / 2)
    assert [k.name for k in e.kernels] == [GELU, ADD, LN]
    assert e.occurrences == 2 and e.bytes_basis == "assumed_chain" and e.route == "torch_compile"  # ATen names
    assert e.unfused_s == pytest.approx(145e-6) and e.saving_s == pytest.approx(145e-6 * 2 / 3)
    assert e.steps is None and e.fused_bound_s is None


def test_families_of_names():
    from kernelscope.knowledge.fusion import fusion_family

    fam = lambda *n: (f := fusion_family(*n)) and f.id  # noqa: E731
    assert fam(GELU) == "activation" and fam(ADD) == "elementwise" and fam(LN) == "normalisation"
    assert fam(GEMM) == "gemm" and fam("cudnn_ampere_scudnn_128x64_relu_xregs_large_nn_v1") == "gemm"
    assert fam("ncclDevKernel_ReduceScatter_Sum_f32_RING_LL") == "communication"  # not a reduction to fuse
    assert fam("void at::native::reduce_kernel<512, 1>") == "reduction"
    assert fam("gelu_fp16") == "activation" and fam("residual_add_fp16") == "elementwise"
    assert fam("layernorm_fp16") == "normalisation"
    assert fam("my_kernel", "aten::gelu") == "activation"  # by the operator when the kernel name says nothing
    assert fam("my_kernel") is None


def _after_gemm_trace(path, head_name):
    return kernel_trace(path, [(head_name, 100),
                               ("void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>()", 10),
                               ("void at::native::vectorized_elementwise_kernel<4, at::native::MulFunctor<float>>()", 10)])


@pytest.mark.parametrize("head, epilogue", [("sm80_xmma_fprop_implicit_gemm_f32f32_tf32f32_f32_nhwckrsc", True),
                                            ("void cudnn::cnn::wgrad_alg0_engine<float, 128, 6, 7, 3, 3, 5>()", False),
                                            ("void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int>()", False)])
def test_only_a_forward_gemm_heads_an_epilogue(tmp_path, head, epilogue):
    """A weight-gradient GEMM's output is the weight gradient (the optimizer reads it) and cuDNN's batch norm is not
    a matrix multiply: the elementwise kernels after them are a plain chain, not their epilogue."""
    (e,) = fusion_chains(load_timeline(str(_after_gemm_trace(tmp_path / "t.json", head))), 1.0, top=10)
    assert (e.head is not None) is epilogue and len(e.kernels) == 2
    assert e.route == ("epilogue" if epilogue else "torch_compile")


def test_top_candidates_are_the_head_of_all_of_them():
    """fusion_chains estimates only the groups whose upper bound (kernel time x occurrences) can still enter the
    top: on a trace with shapes and many distinct chains (param_dlrm, 8 ranks), the top k are exactly the first k
    of every candidate estimated (a ``top`` larger than the number of groups estimates all of them)."""
    path = need(SHARED / "corpus" / "torch_traces" / "param_dlrm_kineto_8rank_v100.tar.gz")
    tl = load_timeline(str(path))
    every = fusion_chains(tl, 1.0, top=100_000)
    assert len(every) > 10 and any(e.bytes_basis == "shapes" for e in every)
    for k in (1, 3, 10):
        assert fusion_chains(tl, 1.0, top=k) == every[:k]


def test_row_groups_number_equal_rows_alike_in_row_order():
    """_row_groups: equal rows get equal numbers, numbered in the rows' lexicographic order (as
    ``np.unique(axis=0)`` numbers them)."""
    import numpy as np

    from kernelscope.analysis.timeline.fusion import _row_groups

    rng = np.random.default_rng(7)
    for rows, cols, high in ((1, 3, 5), (200, 4, 3), (5000, 19, 40), (300, 3, 1 << 60)):
        keys = rng.integers(-1, high, size=(rows, cols), dtype=np.int64)
        expected = np.unique(keys, axis=0, return_inverse=True)[1].reshape(-1)
        assert np.array_equal(_row_groups(keys), expected)
    assert _row_groups(np.zeros((0, 3), dtype=np.int64)).shape == (0,)

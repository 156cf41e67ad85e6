"""A fusion chain needs evidence that it is one, a remedy is offered only where its preconditions hold, and an
unknown fused time is never printed as zero (tryout items 2 and 3).

* A kernel report records no data flow: repeated launches of ONE kernel (benchmark repetitions) are not a
  producer and its consumer; a chain is different kernels, consecutive; its estimate is an upper bound that says
  it assumes the data flows.
* ``torch.compile`` is offered only when every kernel of the chain is a PyTorch eager operator's.
* Without bytes the fused time is not known: no "0.000 ns" (or any zero time) beside a finite speedup, in any
  format or language; the bound comes from what is known (the GEMM's own time in an epilogue).
"""

from __future__ import annotations

import json
import re

import pytest

from conftest import SHARED, need
from kernelscope.analysis.fusion import FusionKernel, estimate, is_eager_pytorch, route_of
from kernelscope.cli import main
from kernelscope.render.common import Fmt
from kernelscope.render.fusion import fusion_headline, fusion_lines, fusion_section, render_fusion

SILU = SHARED / "corpus" / "ncu" / "AlpriElse__cs599k__silu_triton_silu-2025-04-18-v8.ncu-rep"
ALEXNET = SHARED / "corpus" / "torch_traces" / "hta_alexnet_a100_rank0_trace.json.gz"

#: A time of zero as the renderers write one (any unit, en or zh spacing).
ZERO_TIME = re.compile(r"(?<![\d.])0(?:\.0+)?\s?(?:ns|µs|us|ms|s)(?![\w/])")


def _kernel(name: str, us: float, read: int = 4_000_000, write: int = 4_000_000) -> str:
    return (f'[[kernel]]\nname = "{name}"\ndevice = "NVIDIA H100 80GB HBM3"\nduration_us = {us}\n'
            f"dram_bytes_read = {read}\ndram_bytes_write = {write}\n\n")


def _report(tmp_path, *kernels: tuple[str, float]) -> str:
    path = tmp_path / "bench.toml"
    path.write_text("".join(_kernel(n, us) for n, us in kernels), encoding="utf-8")
    return str(path)


def test_repeated_launches_of_one_kernel_are_not_a_chain(tmp_path, capsys):
    """--around a benchmark loop: the neighbour of another kernel joins, the repetitions do not."""
    path = _report(tmp_path, ("distribution_elementwise_kernel", 50.0), ("silu_kernel_non_strided", 40.0),
                   ("silu_kernel_non_strided", 40.0), ("silu_kernel_non_strided", 41.0))
    assert main(["fusion", path, "--around", "silu_kernel_non_strided", "--format", "json"]) == 0
    e = json.loads(capsys.readouterr().out)["candidates"][0]
    names = [k["name"] for k in e["kernels"]]
    assert names == ["distribution_elementwise_kernel", "silu_kernel_non_strided"]
    assert len(set(names)) == len(names)


def test_only_repetitions_refused(tmp_path, capsys):
    path = _report(tmp_path, ("silu_kernel_non_strided", 40.0), ("silu_kernel_non_strided", 40.0))
    assert main(["fusion", path, "--around", "silu_kernel_non_strided"]) == 2
    assert "repetitions" in capsys.readouterr().err
    assert main(["fusion", path, "--kernels", "silu_kernel_non_strided,silu_kernel_non_strided"]) == 2
    assert "different kernels" in capsys.readouterr().err


def test_named_kernels_must_be_consecutive(tmp_path, capsys):
    path = _report(tmp_path, ("gelu_fp16", 20.0), ("sgemm_between", 100.0), ("residual_add_fp16", 30.0),
                   ("gelu_fp16", 20.0), ("residual_add_fp16", 30.0))
    # the first place they run back to back: launches 3 and 4, not launch 0 and launch 2
    assert main(["fusion", path, "--kernels", "gelu_fp16,residual_add_fp16", "--format", "json"]) == 0
    e = json.loads(capsys.readouterr().out)["candidates"][0]
    assert [k["name"] for k in e["kernels"]] == ["gelu_fp16", "residual_add_fp16"]
    assert main(["fusion", path, "--kernels", "residual_add_fp16,sgemm_between"]) == 2
    assert "back to back" in capsys.readouterr().err


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_report_estimate_is_an_upper_bound_assuming_the_data_flows(tmp_path, capsys, lang, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    path = _report(tmp_path, ("gelu_fp16", 20.0), ("residual_add_fp16", 30.0))
    assert main(["fusion", path, "--kernels", "gelu_fp16,residual_add_fp16", "--format", "json"]) == 0
    e = json.loads(capsys.readouterr().out)["candidates"][0]
    assert e["estimate_kind"] == "upper_bound" and e["bytes_basis"] == "dram_counters"
    flow = {"en": "records no data flow", "zh": "不记录数据流"}[lang]
    assert main(["fusion", path, "--kernels", "gelu_fp16,residual_add_fp16", "--lang", lang]) == 0
    out = re.sub(r"\s+", "", capsys.readouterr().out)
    assert flow.replace(" ", "") in out and {"en": "atmost", "zh": "至多"}[lang] in out


def test_torch_compile_only_for_pytorch_eager_kernels():
    eager = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>(int, float)"
    assert is_eager_pytorch(eager) and is_eager_pytorch("my_kernel", "aten::add")
    assert not is_eager_pytorch("silu_kernel_non_strided") and not is_eager_pytorch("triton_poi_fused_add_0")
    assert route_of([eager, eager], False) == "torch_compile"
    # one hand-written (Triton / CUDA) kernel in the chain: Inductor cannot fuse it, so no torch.compile
    assert route_of([eager, "silu_kernel_non_strided"], False) == "fused_kernel"
    assert route_of(["silu_kernel_non_strided", "gelu_kernel"], False, ["aten::silu", None]) == "fused_kernel"
    assert route_of(["a", "b"], False, ["aten::gelu", "aten::add"]) == "torch_compile"
    assert route_of([eager], True) == "epilogue"


def test_corpus_triton_benchmark_not_a_chain_of_repetitions(capsys):
    assert main(["fusion", str(need(SILU)), "--around", "silu_kernel_non_strided", "--format", "json"]) == 0
    e = json.loads(capsys.readouterr().out)["candidates"][0]
    names = [k["name"] for k in e["kernels"]]
    assert len(set(names)) == len(names) >= 2, names
    assert e["route"] != "torch_compile"  # silu_kernel_non_strided is a hand-written Triton kernel
    assert e["estimate_kind"] == "upper_bound"


def _assumed() -> list:
    """Estimates without bytes: a plain chain of three, an epilogue of two after a GEMM, an epilogue of one."""
    plain = [FusionKernel(n, None, "elementwise", 10e-6) for n in ("a", "b", "c")]
    gemm = FusionKernel("sgemm", None, "gemm", 100e-6)
    return [estimate(plain, None, occurrences=2, program_s=1e-3),
            estimate(plain[:2], None, head=gemm, route="epilogue", occurrences=3, program_s=1e-3),
            estimate(plain[:1], None, head=gemm, route="epilogue")]


def test_unknown_fused_time_is_not_a_time():
    for e in _assumed():
        assert e.fused_s is None and e.estimate_kind == "upper_bound"
        assert e.fused_floor_s >= 0 and e.saving_s == pytest.approx(e.unfused_s - e.fused_floor_s)
    plain, epi, _ = _assumed()
    assert plain.fused_floor_s == pytest.approx(10e-6) and plain.speedup == pytest.approx(3.0)
    assert epi.fused_floor_s == 0 and epi.speedup == pytest.approx(120e-6 / 100e-6)  # the GEMM's time stays


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_zero_time_beside_a_speedup(lang):
    """The whole class: every text the fusion renderers write (table cells, sentences, headline, markdown)."""
    f = Fmt(lang)
    estimates = _assumed()
    texts = [c for row in fusion_section(estimates, f)[2] for c in row]
    texts += [t for _, t in fusion_lines(estimates, f)] + [fusion_headline(e, f) for e in estimates]
    texts.append(render_fusion("x", "timeline", estimates, "markdown", lang))
    for text in texts:
        assert not ZERO_TIME.search(text), text
        assert not re.search(r"≥ 0(?![.\d])", text), text  # a zero floor is "not known", not "at least 0"
    sentence = " ".join(t for _, t in fusion_lines(estimates, f))
    assert {"en": "not known", "zh": "未知"}[lang] in sentence
    doc = json.loads(render_fusion("x", "timeline", estimates, "json", lang))
    assert all(c["fused_s"] is None and c["fused_floor_s"] is not None for c in doc["candidates"])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_corpus_trace_without_shapes_no_zero_time(capsys, lang, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["fusion", str(need(ALEXNET)), "--lang", lang]) == 0
    out = capsys.readouterr().out
    assert not ZERO_TIME.search(out), ZERO_TIME.search(out)
    assert main(["fusion", str(ALEXNET), "--format", "json"]) == 0
    for c in json.loads(capsys.readouterr().out)["candidates"]:
        if c["bytes_basis"] == "assumed_chain":
            assert c["fused_s"] is None
        if c["route"] == "torch_compile":
            assert all("at::" in k["name"] or (k["operator"] or "").startswith("aten::") for k in c["kernels"])

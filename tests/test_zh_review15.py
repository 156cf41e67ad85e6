"""Native review 15's kinds: argparse's usage errors worded in Chinese whatever the error (never "参数 --kernels：
expected at least one argument"); a GEMM is named by a GEMM's name, never by "gemm" inside the fbgemm_gpu namespace
nor by "mma" inside "gamma" (FBGEMM's embedding kernels and LayerNorm's GammaBetaBackward got GEMM-epilogue advice).
The Stream overlap term is the glossary's (Stream 间重叠, never 流间重叠): tests/test_zh_terms.py checks it."""

from __future__ import annotations

import re

import pytest

from conftest import SHARED
from kernelscope.cli import main
from kernelscope.knowledge.fusion import fusion_family
from kernelscope.knowledge.messages import usage_error

ARGPARSE = [
    "argument --kernels: expected at least one argument",
    "argument --x: expected at most one argument",
    "argument --tile: expected 2 arguments",
    "argument -v/--details: ignored explicit argument 'x'",
    "ambiguous option: --de could match --details, --debug",
]


@pytest.mark.parametrize("message", ARGPARSE)
def test_argparse_errors_are_chinese(message):
    zh = usage_error(message, "zh")
    words = set(re.findall(r"[A-Za-z]{3,}", re.sub(r"--?[\w/-]+", "", zh)))
    assert not words, (message, zh)


@pytest.mark.parametrize("name", [
    "void split_embedding_backward_codegen_rowwise_adagrad_unweighted_kernel_cta_per_row_1<c10::Half, float, "
    "c10::Half, 2ul, 32>(at::GenericPackedTensorAccessor<c10::Half, 1ul>)",
    "void fbgemm_gpu::_offsets_range_cuda_kernel<int>(long, long, int const*, int*)",
    "void fbgemm_gpu::(anonymous namespace)::_compute_FP8_quantize_cuda_kernel<float>(float const*, int, int)",
    "void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel<float, float>(long, long, float const*)",
])
def test_a_library_namespace_or_a_word_holding_gemm_is_no_gemm(name):
    family = fusion_family(name)
    assert family is None or family.id != "gemm", (name, family and family.id)


@pytest.mark.parametrize("name", [
    "sm80_xmma_gemm_f16f16_f16f32_f32_nn_n_tilesize160x128x32_stage4_warpsize2x2x1_tensor16x8x16_kernel",
    "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4>(Params)",
    "ampere_sgemm_128x64_tn", "void fbgemm_gpu::f8f8bf16_rowwise_grouped_gemm_kernel<int>(int)",
    "volta_fp16_s884gemm_fp16_128x128_ldg8_f2f_nn", "void hmma_kernel<half>(half*)",
])
def test_a_gemm_stays_one(name):
    family = fusion_family(name)
    assert family is not None and family.id == "gemm", (name, family and family.id)


TRACES = sorted((SHARED / "corpus" / "torch_traces").glob("*.json.gz")) if SHARED.is_dir() else []


@pytest.mark.parametrize("path", TRACES or [pytest.param(None, marks=pytest.mark.skip(reason="shared corpus absent"))],
                         ids=lambda p: p.name if p else "absent")
def test_no_fraction_of_a_run_per_step(path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")
    for lang, pattern in (("zh", r"每步 \d+\.\d+ 次"), ("en", r"\d+\.\d+/step")):
        main(["fusion", str(path), "--lang", lang])
        out = capsys.readouterr().out
        assert not re.search(pattern, out), re.findall(".{20}" + pattern, out)[:3]


def test_an_even_spread_is_one_figure_and_zh_counts_take_wan():
    from types import SimpleNamespace

    from kernelscope.notes import Note
    from kernelscope.render.common import Fmt
    from kernelscope.render.launch_groups import outliers_line

    d = SimpleNamespace(min=353.1e-6, max=354.5e-6, median=353.8e-6)
    g = SimpleNamespace(outliers=(), spread={"duration_s": d}, clocks=())
    for lang in ("en", "zh"):
        text = outliers_line(g, Fmt(lang))
        assert "1.00～1.00" not in text and "1.00x-1.00x" not in text, text
        assert "1.00" in text, text
    zh = Fmt("zh").note(Note("tl_one_off_first_call", {"name": "cudaFree", "time_s": 1.0, "calls": 3,
                                                       "ratio": 284221.0, "rest": 2, "rest_s": 2e-6}))
    assert "28.4 万倍" in zh and "284,221" not in zh, zh

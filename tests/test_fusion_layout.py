"""Fusion families of layout transforms, and one wording of an epilogue chain's assumed bytes.

1. A layout transform a GEMM or convolution library launches (cuDNN's ``nchwToNhwcKernel`` / ``nhwcToNchwKernel``,
   its ``im2col4d_kernel``, fbgemm_gpu's and CUTLASS's transpose / permute / convert kernels) is not a GEMM although
   its library's name is in its name: it heads no epilogue chain (no "fold into the GEMM's epilogue, cuBLASLt
   CUBLASLT_EPILOGUE_GELU_BIAS" for it) and, launched inside the library's call, is no link of a chain either. It is
   found by the kernel's own function name, never by its template arguments or parameters: a true GEMM or
   convolution stays one.
2. The timeline's fusion table and the ``fusion`` command say an epilogue chain's assumption (no byte counts: the
   chain's own traffic taken as gone) with the summary sentence's words, never with the plain chain's "each kernel
   reads the previous one's output", which is not what that estimate assumes.
"""

from __future__ import annotations

import re

import pytest

from conftest import kernel_trace
from kernelscope.analysis.timeline.fusion import fusion_chains
from kernelscope.ingest import load_timeline
from kernelscope.knowledge.fusion import fusion_family

NHWC_TO_NCHW = ("void cudnn::ops::nhwcToNchwKernel<float, float, float, true, false, (cudnnKernelDataType_t)0>"
                "(cudnn::ops::nhwc2nchw_params_t<float>, float const*, float*)")
NCHW_TO_NHWC = ("void cudnn::ops::nchwToNhwcKernel<float, float, float, false, true, (cudnnKernelDataType_t)2>"
                "(cudnn::ops::nchw2nhwc_params_t<float>, float const*, float*)")
CONV = ("void cutlass_cudnn_infer::Kernel<cutlass_tensorop_s1688fprop_optimized_tf32_128x128_16x4_nhwc_align4>"
        "(cutlass_tensorop_s1688fprop_optimized_tf32_128x128_16x4_nhwc_align4::Params)")
ADD = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>()"
MUL = "void at::native::vectorized_elementwise_kernel<4, at::native::MulFunctor<float>>()"

LAYOUT = [
    NHWC_TO_NCHW, NCHW_TO_NHWC, "cudnn::ops::nhwcToNchwKernel",  # (nsys stats: no parameters)
    "void cudnn::cnn::im2col4d_kernel<float, long>(cudnn::cnn::im2col4d_params, float const*, float*)",
    "void fbgemm_gpu::permute_2D_data_kernel<false, int, int, decltype(nullptr)>(int, int, int, int const*)",
    "void fbgemm_gpu::permute_2D_lengths_kernel<int>(int, int, int const*, int const*, int*)",
    "void cutlass::transform::kernel::TransposeKernel<float>(float const*, float*)",
    "void cublasLt::convertLayout_kernel<float>(float const*, float*)",
    "void cudnn::ops::nchw2nhwc_kernel<__half>(__half const*, __half*)",
]
GEMMS = [
    "sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16_stage4_warpsize2x2x1"
    "_g1_tensor16x8x8_execute_kernel_cudnn_infer",
    "sm80_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x32_stage3_warpsize2x2x1_tensor16x8x16_kernel",
    "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4>(cutlass_80_tensorop_s1688gemm_64x64_"
    "16x6_nn_align4::Params)",
    CONV, "ampere_sgemm_128x64_nn", "cudnn_infer_ampere_scudnn_128x64_relu_xregs_large_nn_v1",
    "void implicit_convolve_sgemm<float, float, 1024, 5, 5, 3, 3, 3, 1, false, true, true>(int, int, int)",
    # template arguments and parameters say nothing of the function: a CUTLASS GEMM whose epilogue converts, a
    # cuBLAS kernel that takes transpose parameters
    "void cutlass::Kernel<cutlass::gemm::kernel::Gemm<cutlass::epilogue::thread::NumericArrayConverter<float>>>"
    "(Params)",
    "void scal_kernel<float, float, 1, false, 6, 5, 5, 3>(cublasTransposeParams<float>, float const*, float*)",
    # a function named for a GEMM as well as for a transpose stays a GEMM
    "void cutlass::gemm_transpose_b_kernel<float>(float const*, float*)",
]


@pytest.mark.parametrize("name", LAYOUT)
def test_a_librarys_layout_transform_is_not_a_gemm(name):
    fam = fusion_family(name)
    assert fam is not None and fam.id == "layout", name
    assert fam.memory_bound and not fam.fusible and not fam.link


@pytest.mark.parametrize("name", GEMMS)
def test_a_gemm_or_convolution_stays_one(name):
    assert fusion_family(name).id == "gemm", name


def test_atens_own_transposes_stay_copies():
    """ATen's transpose / permute copies are launched by its operators (Inductor fuses them): the copy family."""
    for name in ("void at::native::(anonymous namespace)::transpose_kernel<float>(float const*, float*)",
                 "void at::native::elementwise_kernel<128, 2, at::native::permute_copy_kernel>()"):
        assert fusion_family(name).id == "copy", name


@pytest.mark.parametrize("before", [[], [(CONV, 100)]])
def test_a_layout_transform_heads_no_epilogue_and_links_no_chain(tmp_path, before):
    """nhwcToNchw -> add -> mul (after a convolution or not): the elementwise pair is a plain chain, not the
    layout transform's (or, through it, the convolution's) epilogue; two transforms back to back (a
    convolution's input and filter) are no chain."""
    names = before + [(NHWC_TO_NCHW, 100), (ADD, 10), (MUL, 10), (NCHW_TO_NHWC, 20), (NCHW_TO_NHWC, 20)]
    chains = fusion_chains(load_timeline(kernel_trace(tmp_path / "t.json", names)), 1.0, top=10)
    assert [(e.head, [k.name for k in e.kernels], e.route) for e in chains] == [(None, [ADD, MUL], "torch_compile")]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("command", ["timeline", "fusion"])
def test_an_epilogue_chains_bytes_are_worded_as_its_summary_says(tmp_path, lang, command):
    """A GEMM then add -> mul, no shapes: the chain's own traffic is taken as gone. The table's bytes cell says so
    in the summary sentence's words (timeline), or refers to the assumptions row that does (fusion); never the
    plain chain's assumption."""
    from kernelscope.knowledge.text import label, note_text
    from test_zh_output import run_cli_uncached

    head = "sm80_xmma_fprop_implicit_gemm_f32f32_tf32f32_f32_nhwckrsc"
    path = kernel_trace(tmp_path / "t.json", [(head, 100), (ADD, 10), (MUL, 10)])
    said = note_text("fu_bytes_epilogue_assumed", {}, lang)
    cell = said if command == "timeline" else label("fu_bytes_unrecorded_see", lang)
    plain = "按每个 Kernel 读取上一个的输出" if lang == "zh" else "each kernel reading the previous one's output"
    for fmt in ("table", "markdown"):  # (wide enough that no cell wraps beside the next column's)
        code, out, err = run_cli_uncached((command, path, "--lang", lang, "--format", fmt), 400)
        assert code == 0, err
        route = label("fu_route_epilogue", lang)  # the cell on the chain's row, beside its route
        assert any(cell in line and route in line for line in out.splitlines()), out
        assert plain not in out, out

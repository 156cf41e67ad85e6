#!/usr/bin/env bash
# Profiles the Q1 example (layernorm.cu: GeLU -> residual add -> LayerNorm as three kernels, and the same chain
# fused into one) with Nsight Compute, then asks kernelscope what fusing the three would buy and prints what the
# fused kernel measured beside it:
#   examples/kernels/profile_layernorm.sh [OUT_DIR]      (default: examples/kernels/reports)
# Needs a GPU, nvcc and ncu. Writes OUT_DIR/layernorm.ncu-rep (every launch of the four kernels, --set full:
# DRAM bytes and durations; ncu flushes the caches before each launch, so the intermediates come from DRAM);
# tests/test_fusion.py compares the estimate with the measured fused/unfused ratio when that report exists.
# M and N: the program's options (default --m 2048 --n 4096; M=16384 keeps every tensor out of the L2).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:-$here/reports}"
m="${M:-2048}"
n="${N:-4096}"
ncu="${NCU:-ncu}"
command -v "$ncu" >/dev/null 2>&1 || { echo "profile_layernorm.sh: $ncu not found (install Nsight Compute or set NCU)" >&2; exit 2; }
"$here/build.sh" "$here/build" >/dev/null
mkdir -p "$out"
"$ncu" -k 'regex:^(gelu_fp16|residual_add_fp16|layernorm_fp16|fused_gelu_residual_layernorm_fp16)$' --set full \
    -f -o "$out/layernorm" "$here/build/layernorm" --m "$m" --n "$n" --warmup 0 --repeats 1 --cold-l2 0
ks="${KERNELSCOPE:-kernelscope}"
"$ks" fusion "$out/layernorm.ncu-rep" --kernels gelu_fp16,residual_add_fp16,layernorm_fp16
"$ks" diagnose "$out/layernorm.ncu-rep" --kernel fused_gelu_residual_layernorm_fp16 --top 1

#!/usr/bin/env bash
# Builds every example program of examples/kernels (each .cu file with a main) into BUILD_DIR:
#   examples/kernels/build.sh [BUILD_DIR]      (default: examples/kernels/build)
# with nvcc -O3 -arch=sm_90 -lineinfo (-lineinfo: Nsight Compute's source view maps SASS to these lines).
# NVCC and ARCH override the compiler and the architecture (ARCH=sm_80 ...). occupancy_demo.cu has no main:
# it is only compiled by `kernelscope occupancy --cu`.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:-$here/build}"
nvcc="${NVCC:-nvcc}"
arch="${ARCH:-sm_90}"

command -v "$nvcc" >/dev/null 2>&1 || { echo "build.sh: $nvcc not found (install the CUDA toolkit or set NVCC)" >&2; exit 2; }
mkdir -p "$out"
built=0
for src in "$here"/*.cu; do
    name="$(basename "$src" .cu)"
    if ! grep -q '^int main' "$src"; then
        echo "skip  $name.cu (no main)"
        continue
    fi
    echo "nvcc  $name.cu -> $out/$name"
    "$nvcc" -O3 -arch="$arch" -lineinfo -o "$out/$name" "$src"
    built=$((built + 1))
done
echo "built $built programs in $out"

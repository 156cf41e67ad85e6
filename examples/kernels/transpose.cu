// Matrix transpose through a 32 x 32 shared-memory tile, unpadded and padded: Q2 of the seed lesson
// "Nsight Compute: attributing an operator's bottleneck" (000), shared-memory bank conflicts and padding.
//
// A block of 32 x 8 threads copies a 32 x 32 tile: it writes tile[ty + j][tx] (along a row: conflict-free)
// and reads tile[tx][ty + j] (down a column: thread t reads tile[t][c]). With 32 banks of 4 bytes:
//
//   transpose_smem_f32_32x32   float  [32][32]  row = 128 B = 32 words: a column is one bank, 32-way conflict
//   transpose_smem_f32_32x33   float  [32][33]  row = 33 words: a column spans all 32 banks, conflict-free
//   transpose_smem_f16_32x32   half   [32][32]  row = 64 B = 16 words: a column is 2 banks, 16-way conflict
//   transpose_smem_f16_32x33   half   [32][33]  row = 66 B = 16.5 words: odd columns keep a 2-way conflict
//   transpose_smem_f16_32x34   half   [32][34]  row = 68 B = 17 words (odd): conflict-free
//
// (`kernelscope banks --dtype half --tile 32x33 --access column` gives the same counts.)
//
// Build: nvcc -O3 -arch=sm_90 -lineinfo -o transpose transpose.cu
// Run:   ./transpose [--rows 8192] [--cols 8192] [--warmup 2] [--repeats 5] [--cold-l2 1]

#include <cuda_fp16.h>

#include "common.cuh"

constexpr int TILE = 32;        // tile edge
constexpr int BLOCK_ROWS = 8;   // threads per block in y: 32 x 8 = 256 threads, 4 elements each

// out[cols][rows] = transpose of in[rows][cols], one 32 x 32 tile per block through `tile` (COLS >= 32 elements
// per row: the padding columns are never touched).
template <class T, int COLS>
__device__ __forceinline__ void transpose_through(T (&tile)[TILE][COLS], const T* __restrict__ in,
                                                  T* __restrict__ out, int rows, int cols)
{
    const int x = blockIdx.x * TILE + threadIdx.x;   // column of `in`
    const int y = blockIdx.y * TILE + threadIdx.y;   // first row of `in` for this thread
#pragma unroll
    for (int j = 0; j < TILE; j += BLOCK_ROWS)
        if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * cols + x];  // row
    __syncthreads();
    const int ox = blockIdx.y * TILE + threadIdx.x;  // column of `out` = row of `in`
    const int oy = blockIdx.x * TILE + threadIdx.y;  // first row of `out` = column of `in`
#pragma unroll
    for (int j = 0; j < TILE; j += BLOCK_ROWS)
        if (ox < rows && oy + j < cols)
            out[(size_t)(oy + j) * rows + ox] = tile[threadIdx.x][threadIdx.y + j];  // down a column
}

__global__ void __launch_bounds__(TILE * BLOCK_ROWS)
transpose_smem_f32_32x32(const float* __restrict__ in, float* __restrict__ out, int rows, int cols)
{
    __shared__ float tile[32][32];  // column reads: 32-way bank conflict
    transpose_through(tile, in, out, rows, cols);
}

__global__ void __launch_bounds__(TILE * BLOCK_ROWS)
transpose_smem_f32_32x33(const float* __restrict__ in, float* __restrict__ out, int rows, int cols)
{
    __shared__ float tile[32][33];  // one float of padding per row: conflict-free
    transpose_through(tile, in, out, rows, cols);
}

__global__ void __launch_bounds__(TILE * BLOCK_ROWS)
transpose_smem_f16_32x32(const __half* __restrict__ in, __half* __restrict__ out, int rows, int cols)
{
    __shared__ __half tile[32][32];  // column reads: 16-way bank conflict
    transpose_through(tile, in, out, rows, cols);
}

__global__ void __launch_bounds__(TILE * BLOCK_ROWS)
transpose_smem_f16_32x33(const __half* __restrict__ in, __half* __restrict__ out, int rows, int cols)
{
    __shared__ __half tile[32][33];  // one half of padding: 66-byte rows, a 2-way conflict remains
    transpose_through(tile, in, out, rows, cols);
}

__global__ void __launch_bounds__(TILE * BLOCK_ROWS)
transpose_smem_f16_32x34(const __half* __restrict__ in, __half* __restrict__ out, int rows, int cols)
{
    __shared__ __half tile[32][34];  // two halves of padding: 17-word rows, conflict-free
    transpose_through(tile, in, out, rows, cols);
}

// ----------------------------------------------------------------------------------- host

template <class T>
using TransposeKernel = void (*)(const T*, T*, int, int);

template <class T>
static bool run(const char* name, TransposeKernel<T> kernel, const std::vector<T>& h_in, int rows, int cols,
                const ks::Timing& timing)
{
    const size_t n = (size_t)rows * cols;
    T* d_in = ks::to_device(h_in);
    T* d_out = ks::device_zeros<T>(n);
    const dim3 block(TILE, BLOCK_ROWS);
    const dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
    auto launch = [&]() { kernel<<<grid, block>>>(d_in, d_out, rows, cols); };
    ks::run_once(name, launch);
    const std::vector<T> h_out = ks::to_host(d_out, n);
    ks::Check c;  // a transpose moves bits: tolerance 0; compared in 64 x 64 blocks to stay in cache
    for (int r0 = 0; r0 < rows; r0 += 64)
        for (int k0 = 0; k0 < cols; k0 += 64)
            for (int r = r0; r < std::min(rows, r0 + 64); ++r)
                for (int k = k0; k < std::min(cols, k0 + 64); ++k) {
                    const size_t o = (size_t)k * rows + r;
                    c.add(o, (double)(float)h_out[o], (double)(float)h_in[(size_t)r * cols + k]);
                }
    const float ms = ks::median_ms(launch, timing);
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    return ks::report(name, ms, timing, ks::gbytes(2.0 * n * sizeof(T), ms), c);
}

static const char* USAGE =
    "usage: transpose [--rows R] [--cols C] [--warmup W] [--repeats R] [--cold-l2 C]\n"
    "  out[C][R] = transpose of in[R][C] through 32 x 32 shared-memory tiles, float [32][32] / [32][33] and\n"
    "  half [32][32] / [32][33] / [32][34]\n"
    "  --rows, --cols   matrix size (default 8192 x 8192; any size, partial tiles are handled)\n"
    KS_TIMING_USAGE;

int main(int argc, char** argv)
{
    const ks::Options opt(argc, argv, USAGE, ks::with_timing({"--rows", "--cols"}));
    const int rows = (int)opt.get("--rows", 8192), cols = (int)opt.get("--cols", 8192);
    const ks::Timing timing = ks::timing(opt);
    const size_t n = (size_t)rows * cols;

    ks::print_device();
    std::printf("transpose %d x %d through a 32 x 32 shared-memory tile (block 32 x 8)\n", rows, cols);
    const std::vector<float> f = ks::random_floats(n, -1.0f, 1.0f, 21);
    std::vector<__half> h(n);
    for (size_t i = 0; i < n; ++i) h[i] = __float2half_rn(f[i]);

    bool ok = true;
    ok &= run<float>("transpose_smem_f32_32x32", transpose_smem_f32_32x32, f, rows, cols, timing);
    ok &= run<float>("transpose_smem_f32_32x33", transpose_smem_f32_32x33, f, rows, cols, timing);
    ok &= run<__half>("transpose_smem_f16_32x32", transpose_smem_f16_32x32, h, rows, cols, timing);
    ok &= run<__half>("transpose_smem_f16_32x33", transpose_smem_f16_32x33, h, rows, cols, timing);
    ok &= run<__half>("transpose_smem_f16_32x34", transpose_smem_f16_32x34, h, rows, cols, timing);
    return ks::finish(ok);
}

// SGEMM C = A * B (row-major, FP32), naive vs shared-memory tiled: the case study of the seed lesson
// "GPU architecture and performance basics" (002), M = N = K = 2048.
//
//   sgemm_naive       one thread per element of C, block 32 x 8 = 256 threads; every multiply-add reads A and B
//                     from global memory (2 loads per FMA): memory-side limited, Long Scoreboard dominant.
//   sgemm_smem_tiled  32 x 32 tiles of A and B staged in shared memory with float4 loads, block 256 threads,
//                     grid 64 x 64 for 2048^2 (the lesson's configuration); each thread computes 4 elements of
//                     C, each element of a tile is read from global memory once per block instead of 32 times.
//
// Build: nvcc -O3 -arch=sm_90 -lineinfo -o sgemm sgemm.cu
// Run:   ./sgemm [--m 2048] [--n 2048] [--k 2048] [--samples 4096] [--warmup 2] [--repeats 5] [--cold-l2 1]
// M, N and K must be multiples of 32 (the tiled kernel has no boundary code). --samples S checks S random
// elements of C (plus the four corners) against a double-precision CPU dot product; --samples 0 checks all.

#include "common.cuh"

constexpr int TILE = 32;         // tile edge (elements)
constexpr int TILE_ROWS = 8;     // threads per block in y: 32 x 8 = 256 threads
constexpr int ROWS_PER_THREAD = TILE / TILE_ROWS;  // 4 elements of C per thread in the tiled kernel

__global__ void sgemm_naive(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
                            float* __restrict__ C)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];
    C[(size_t)row * N + col] = acc;
}

__global__ void sgemm_smem_tiled(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
                                 float* __restrict__ C)
{
    __shared__ __align__(16) float As[TILE][TILE];
    __shared__ __align__(16) float Bs[TILE][TILE];

    const int tx = threadIdx.x;            // 0..31: column of C within the tile
    const int ty = threadIdx.y;            // 0..7: rows ty, ty + 8, ty + 16, ty + 24 of the tile
    const int tid = ty * TILE + tx;        // 0..255
    const int load_row = tid / (TILE / 4);        // 0..31: each thread loads one float4 of each tile
    const int load_col = (tid % (TILE / 4)) * 4;  // 0, 4, ..., 28
    const int row0 = blockIdx.y * TILE;
    const int col0 = blockIdx.x * TILE;

    float acc[ROWS_PER_THREAD] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k0 = 0; k0 < K; k0 += TILE) {
        *reinterpret_cast<float4*>(&As[load_row][load_col]) =
            *reinterpret_cast<const float4*>(&A[(size_t)(row0 + load_row) * K + k0 + load_col]);
        *reinterpret_cast<float4*>(&Bs[load_row][load_col]) =
            *reinterpret_cast<const float4*>(&B[(size_t)(k0 + load_row) * N + col0 + load_col]);
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) {
            const float b = Bs[k][tx];  // consecutive threads, consecutive banks
#pragma unroll
            for (int i = 0; i < ROWS_PER_THREAD; ++i) acc[i] += As[ty + i * TILE_ROWS][k] * b;  // broadcast
        }
        __syncthreads();  // the tile is overwritten by the next iteration's loads
    }
#pragma unroll
    for (int i = 0; i < ROWS_PER_THREAD; ++i) C[(size_t)(row0 + ty + i * TILE_ROWS) * N + col0 + tx] = acc[i];
}

static const char* USAGE =
    "usage: sgemm [--m M] [--n N] [--k K] [--samples S] [--warmup W] [--repeats R] [--cold-l2 C]\n"
    "  C[M][N] = A[M][K] * B[K][N] in FP32 with sgemm_naive and sgemm_smem_tiled\n"
    "  --m, --n, --k  sizes, multiples of 32 (default 2048 each)\n"
    "  --samples S    random elements of C checked against a CPU double dot product (default 4096; 0: all)\n"
    KS_TIMING_USAGE;

int main(int argc, char** argv)
{
    const ks::Options opt(argc, argv, USAGE, ks::with_timing({"--m", "--n", "--k", "--samples"}));
    const int M = (int)opt.get("--m", 2048), N = (int)opt.get("--n", 2048), K = (int)opt.get("--k", 2048);
    const ks::Timing timing = ks::timing(opt);
    const long samples = opt.get("--samples", 4096, 0);
    if (M % TILE || N % TILE || K % TILE) opt.fail("--m, --n and --k must be multiples of 32");

    ks::print_device();
    std::printf("SGEMM M=%d N=%d K=%d (FP32, row-major)\n", M, N, K);
    const std::vector<float> hA = ks::random_floats((size_t)M * K, -1.0f, 1.0f, 1);
    const std::vector<float> hB = ks::random_floats((size_t)K * N, -1.0f, 1.0f, 2);
    float* dA = ks::to_device(hA);
    float* dB = ks::to_device(hB);
    float* dC = ks::device_zeros<float>((size_t)M * N);

    // The elements of C to check: S random ones and the four corners, or all of them.
    std::vector<std::pair<int, int>> picks;
    std::vector<double> want;
    if (samples == 0) {
        std::vector<double> row(N);
        for (int i = 0; i < M; ++i) {
            std::fill(row.begin(), row.end(), 0.0);
            for (int k = 0; k < K; ++k) {
                const double a = hA[(size_t)i * K + k];
                const float* b = &hB[(size_t)k * N];
                for (int j = 0; j < N; ++j) row[j] += a * b[j];
            }
            for (int j = 0; j < N; ++j) picks.push_back({i, j}), want.push_back(row[j]);
        }
    } else {
        const std::vector<float> u = ks::random_floats(2 * (size_t)samples, 0.0f, 1.0f, 3);
        picks = {{0, 0}, {0, N - 1}, {M - 1, 0}, {M - 1, N - 1}};
        for (long s = 0; s < samples; ++s)
            picks.push_back({std::min(M - 1, int(u[2 * s] * M)), std::min(N - 1, int(u[2 * s + 1] * N))});
        for (const auto& p : picks) {
            double acc = 0.0;
            for (int k = 0; k < K; ++k) acc += double(hA[(size_t)p.first * K + k]) * hB[(size_t)k * N + p.second];
            want.push_back(acc);
        }
    }
    const double tolerance = std::max(1e-4, 2e-6 * K);  // FP32 accumulation over K terms of |a*b| <= 1
    const double flop = 2.0 * M * N * K;

    auto check = [&]() {
        const std::vector<float> hC = ks::to_host(dC, (size_t)M * N);
        ks::Check c;
        c.tolerance = tolerance;
        for (size_t s = 0; s < picks.size(); ++s) {
            const size_t idx = (size_t)picks[s].first * N + picks[s].second;
            c.add(idx, hC[idx], want[s]);
        }
        CUDA_CHECK(cudaMemset(dC, 0, (size_t)M * N * sizeof(float)));  // the next kernel starts from zeros
        return c;
    };

    bool ok = true;
    const dim3 block(TILE, TILE_ROWS);  // 256 threads for both kernels
    {
        const dim3 grid(N / TILE, M / TILE_ROWS);
        auto launch = [&]() { sgemm_naive<<<grid, block>>>(M, N, K, dA, dB, dC); };
        ks::run_once("sgemm_naive", launch);
        const ks::Check c = check();
        const float ms = ks::median_ms(launch, timing);
        ok &= ks::report("sgemm_naive", ms, timing, ks::gflops(flop, ms), c);
    }
    {
        const dim3 grid(N / TILE, M / TILE);
        auto launch = [&]() { sgemm_smem_tiled<<<grid, block>>>(M, N, K, dA, dB, dC); };
        ks::run_once("sgemm_smem_tiled", launch);
        const ks::Check c = check();
        const float ms = ks::median_ms(launch, timing);
        ok &= ks::report("sgemm_smem_tiled", ms, timing, ks::gflops(flop, ms), c);
    }
    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dB));
    CUDA_CHECK(cudaFree(dC));
    return ks::finish(ok);
}

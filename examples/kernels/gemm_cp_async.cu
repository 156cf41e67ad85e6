// Tiled FP32 GEMM without and with cp.async double buffering: Q3 of the seed lesson "Nsight Compute:
// attributing an operator's bottleneck" (000). Both kernels compute C = A * B (row-major) with the same
// 64 x 64 block tile, K step 16, 256 threads and a 4 x 4 register tile per thread; they differ only in how
// a K step's tiles of A and B reach shared memory.
//
//   gemm_tiled_sync_copy                global -> registers -> shared memory (LDG, then STS that must wait for
//                                       the load: Long Scoreboard), __syncthreads, compute, __syncthreads; the
//                                       loads of step k+1 start only after step k is computed.
//   gemm_tiled_cp_async_double_buffer   two shared-memory stages; while step k is computed from one stage,
//                                       cp.async (sm_80+, LDGSTS: global -> shared memory without registers)
//                                       fills the other with step k+1; cp.async.wait_group 1 waits only for the
//                                       stage about to be used.
//
// Build: nvcc -O3 -arch=sm_90 -lineinfo -o gemm_cp_async gemm_cp_async.cu
// Run:   ./gemm_cp_async [--m 2048] [--n 2048] [--k 2048] [--samples 4096] [--warmup 2] [--repeats 5] [--cold-l2 1]
// M and N must be multiples of 64, K a multiple of 16.

#include "common.cuh"

constexpr int BM = 64, BN = 64, BK = 16;  // block tile and K step
constexpr int THREADS = 256;             // 16 x 16 threads, each computing a 4 x 4 tile of C
constexpr int TM = 4, TN = 4;
// As rows of BK + 4 floats: still 16-byte aligned, and the two rows a warp reads in mma_step (4 apart) fall
// 16 banks apart, conflict-free (unpadded they share a bank); the price is a 2-way conflict on the float4 store.
constexpr int A_PAD = 4;

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#error "gemm_cp_async.cu needs cp.async: compile for sm_80 or newer (-arch=sm_90)"
#endif

// ----------------------------------------------------------------------------------- cp.async (PTX)

// 16 bytes global -> shared memory, not through registers (cp.async.cg: cached in L2 only).
__device__ __forceinline__ void cp_async_16(void* smem_dst, const void* gmem_src) {
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem_dst));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(gmem_src) : "memory");
}

// Closes the group of cp.async issued since the last commit.
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

// Waits until at most N committed groups are still in flight.
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }

// ----------------------------------------------------------------------------------- shared pieces

// The element each thread copies per K step: one float4 of the A tile (64 x 16) and one of the B tile (16 x 64).
struct TileLoad {
    int a_row, a_col, b_row, b_col;
    __device__ TileLoad(int tid)
        : a_row(tid / (BK / 4)), a_col((tid % (BK / 4)) * 4), b_row(tid / (BN / 4)), b_col((tid % (BN / 4)) * 4) {}
};

// acc += As * Bs for one K step; the thread's rows are ty*4 .. +3 and its columns tx*4 .. +3.
__device__ __forceinline__ void mma_step(const float (&As)[BM][BK + A_PAD], const float (&Bs)[BK][BN], int ty, int tx,
                                         float (&acc)[TM][TN]) {
#pragma unroll
    for (int k = 0; k < BK; ++k) {
        float a[TM];
#pragma unroll
        for (int i = 0; i < TM; ++i) a[i] = As[ty * TM + i][k];
        const float4 b = *reinterpret_cast<const float4*>(&Bs[k][tx * TN]);
#pragma unroll
        for (int i = 0; i < TM; ++i) {
            acc[i][0] += a[i] * b.x;
            acc[i][1] += a[i] * b.y;
            acc[i][2] += a[i] * b.z;
            acc[i][3] += a[i] * b.w;
        }
    }
}

__device__ __forceinline__ void store_c(float* __restrict__ C, int N, int row0, int col0, int ty, int tx,
                                        const float (&acc)[TM][TN]) {
#pragma unroll
    for (int i = 0; i < TM; ++i)
        *reinterpret_cast<float4*>(&C[(size_t)(row0 + ty * TM + i) * N + col0 + tx * TN]) =
            make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
}

// ----------------------------------------------------------------------------------- kernels

__global__ void __launch_bounds__(THREADS)
gemm_tiled_sync_copy(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
                     float* __restrict__ C)
{
    __shared__ __align__(16) float As[BM][BK + A_PAD];
    __shared__ __align__(16) float Bs[BK][BN];
    const int tid = threadIdx.x, tx = tid % (BN / TN), ty = tid / (BN / TN);
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const TileLoad ld(tid);
    float acc[TM][TN] = {};

    for (int k0 = 0; k0 < K; k0 += BK) {
        const float4 a = *reinterpret_cast<const float4*>(&A[(size_t)(row0 + ld.a_row) * K + k0 + ld.a_col]);
        const float4 b = *reinterpret_cast<const float4*>(&B[(size_t)(k0 + ld.b_row) * N + col0 + ld.b_col]);
        *reinterpret_cast<float4*>(&As[ld.a_row][ld.a_col]) = a;  // waits for the global load (Long Scoreboard)
        *reinterpret_cast<float4*>(&Bs[ld.b_row][ld.b_col]) = b;
        __syncthreads();
        mma_step(As, Bs, ty, tx, acc);
        __syncthreads();  // the tiles are overwritten by the next step
    }
    store_c(C, N, row0, col0, ty, tx, acc);
}

__global__ void __launch_bounds__(THREADS)
gemm_tiled_cp_async_double_buffer(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
                                  float* __restrict__ C)
{
    __shared__ __align__(16) float As[2][BM][BK + A_PAD];
    __shared__ __align__(16) float Bs[2][BK][BN];
    const int tid = threadIdx.x, tx = tid % (BN / TN), ty = tid / (BN / TN);
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const TileLoad ld(tid);
    float acc[TM][TN] = {};
    const int steps = K / BK;

    // Stage 0 <- K step 0.
    cp_async_16(&As[0][ld.a_row][ld.a_col], &A[(size_t)(row0 + ld.a_row) * K + ld.a_col]);
    cp_async_16(&Bs[0][ld.b_row][ld.b_col], &B[(size_t)ld.b_row * N + col0 + ld.b_col]);
    cp_async_commit();

    for (int s = 0; s < steps; ++s) {
        const int cur = s & 1, next = cur ^ 1;
        if (s + 1 < steps) {  // stage `next` <- K step s + 1, in flight while step s is computed
            const int k1 = (s + 1) * BK;
            cp_async_16(&As[next][ld.a_row][ld.a_col], &A[(size_t)(row0 + ld.a_row) * K + k1 + ld.a_col]);
            cp_async_16(&Bs[next][ld.b_row][ld.b_col], &B[(size_t)(k1 + ld.b_row) * N + col0 + ld.b_col]);
        }
        cp_async_commit();   // (an empty group on the last step keeps the count uniform)
        cp_async_wait<1>();  // this thread's copies of step s have landed ...
        __syncthreads();     // ... and every other thread's
        mma_step(As[cur], Bs[cur], ty, tx, acc);
        __syncthreads();     // stage `cur` is refilled (with step s + 2) in the next iteration
    }
    store_c(C, N, row0, col0, ty, tx, acc);
}

// ----------------------------------------------------------------------------------- host

static const char* USAGE =
    "usage: gemm_cp_async [--m M] [--n N] [--k K] [--samples S] [--warmup W] [--repeats R] [--cold-l2 C]\n"
    "  C[M][N] = A[M][K] * B[K][N] in FP32, 64 x 64 tiles, without and with cp.async double buffering\n"
    "  --m, --n       multiples of 64 (default 2048)\n"
    "  --k            a multiple of 16 (default 2048)\n"
    "  --samples S    random elements of C checked against a CPU double dot product (default 4096; 0: all)\n"
    KS_TIMING_USAGE;

int main(int argc, char** argv)
{
    const ks::Options opt(argc, argv, USAGE, ks::with_timing({"--m", "--n", "--k", "--samples"}));
    const int M = (int)opt.get("--m", 2048), N = (int)opt.get("--n", 2048), K = (int)opt.get("--k", 2048);
    const long samples = opt.get("--samples", 4096, 0);
    const ks::Timing timing = ks::timing(opt);
    if (M % BM || N % BN || K % BK) opt.fail("--m and --n must be multiples of 64, --k a multiple of 16");

    ks::print_device();
    std::printf("tiled GEMM M=%d N=%d K=%d (FP32), block tile %dx%d, K step %d, %d threads\n", M, N, K, BM, BN, BK,
                THREADS);
    const std::vector<float> hA = ks::random_floats((size_t)M * K, -1.0f, 1.0f, 31);
    const std::vector<float> hB = ks::random_floats((size_t)K * N, -1.0f, 1.0f, 32);
    float* dA = ks::to_device(hA);
    float* dB = ks::to_device(hB);
    float* dC = ks::device_zeros<float>((size_t)M * N);

    std::vector<std::pair<int, int>> picks;  // the elements of C to check
    if (samples == 0) {
        for (int i = 0; i < M; ++i)
            for (int j = 0; j < N; ++j) picks.push_back({i, j});
    } else {
        const std::vector<float> u = ks::random_floats(2 * (size_t)samples, 0.0f, 1.0f, 33);
        picks = {{0, 0}, {0, N - 1}, {M - 1, 0}, {M - 1, N - 1}};
        for (long s = 0; s < samples; ++s)
            picks.push_back({std::min(M - 1, int(u[2 * s] * M)), std::min(N - 1, int(u[2 * s + 1] * N))});
    }
    std::vector<double> want(picks.size());
    if (samples == 0) {  // row by row, streaming through B
        std::vector<double> row(N);
        for (int i = 0; i < M; ++i) {
            std::fill(row.begin(), row.end(), 0.0);
            for (int k = 0; k < K; ++k) {
                const double a = hA[(size_t)i * K + k];
                for (int j = 0; j < N; ++j) row[j] += a * hB[(size_t)k * N + j];
            }
            std::copy(row.begin(), row.end(), want.begin() + (size_t)i * N);
        }
    } else {
        for (size_t s = 0; s < picks.size(); ++s) {
            double acc = 0.0;
            for (int k = 0; k < K; ++k)
                acc += double(hA[(size_t)picks[s].first * K + k]) * hB[(size_t)k * N + picks[s].second];
            want[s] = acc;
        }
    }
    const double tolerance = std::max(1e-4, 2e-6 * K);  // FP32 accumulation over K terms of |a*b| <= 1
    const double flop = 2.0 * M * N * K;

    bool ok = true;
    const dim3 grid(N / BN, M / BM);
    using Kernel = void (*)(int, int, int, const float*, const float*, float*);
    const std::pair<const char*, Kernel> kernels[] = {
        {"gemm_tiled_sync_copy", gemm_tiled_sync_copy},
        {"gemm_tiled_cp_async_double_buffer", gemm_tiled_cp_async_double_buffer},
    };
    for (const auto& [name, kernel] : kernels) {
        CUDA_CHECK(cudaMemset(dC, 0, (size_t)M * N * sizeof(float)));
        auto launch = [&, kernel = kernel]() { kernel<<<grid, THREADS>>>(M, N, K, dA, dB, dC); };
        ks::run_once(name, launch);
        const std::vector<float> hC = ks::to_host(dC, (size_t)M * N);
        ks::Check c;
        c.tolerance = tolerance;
        for (size_t s = 0; s < picks.size(); ++s) {
            const size_t idx = (size_t)picks[s].first * N + picks[s].second;
            c.add(idx, hC[idx], want[s]);
        }
        const float ms = ks::median_ms(launch, timing);
        ok &= ks::report(name, ms, timing, ks::gflops(flop, ms), c);
    }
    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dB));
    CUDA_CHECK(cudaFree(dC));
    return ks::finish(ok);
}

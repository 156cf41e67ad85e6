// FP16 LayerNorm, M = 2048 rows of N = 4096, and Y = LayerNorm(GeLU(X) + Residual) as three kernels against
// one fused kernel: Q1 of the seed lesson "Nsight Compute: attributing an operator's bottleneck" (000).
//
//   layernorm_fp16                       one block (256 threads) per row: the row is read once into registers
//                                        (16-byte loads), mean and variance by block reductions in FP32, then
//                                        normalised, scaled by gamma, shifted by beta and written once.
//   gelu_fp16                            T1 = GeLU(X) (exact erf form), elementwise, 16-byte accesses.
//   residual_add_fp16                    T2 = T1 + Residual, elementwise.
//   (layernorm_fp16 on T2 ends the unfused chain)
//   fused_gelu_residual_layernorm_fp16   the chain in one kernel: X and Residual read once, GeLU and the add
//                                        in registers (FP32), the same LayerNorm, Y written once.
//
// Ideal DRAM traffic (2-byte elements, gamma and beta aside): unfused 7 * M * N * 2 bytes (GeLU reads X and
// writes T1, the add reads T1 and Residual and writes T2, LayerNorm reads T2 and writes Y), fused
// 3 * M * N * 2 bytes: 3/7 = 0.43 of the bytes. At the default size every tensor is 16 MiB, so a 50 MB L2
// can keep an intermediate between two kernels; --m 16384 makes them larger than any L2.
//
// Build: nvcc -O3 -arch=sm_90 -lineinfo -o layernorm layernorm.cu
// Run:   ./layernorm [--m 2048] [--n 4096] [--warmup 2] [--repeats 5] [--cold-l2 1]
// N must be a multiple of 8 and at most 8192 (a row lives in the registers of one block).

#include <cuda_fp16.h>

#include "common.cuh"

constexpr int LN_THREADS = 256;  // threads per block of every kernel in this file
constexpr int VEC = 8;           // halves per 16-byte access
constexpr int MAX_VECS = 4;      // 16-byte vectors of a row per thread: N <= 256 * 8 * 4 = 8192
constexpr int MAX_N = LN_THREADS * VEC * MAX_VECS;
constexpr float LN_EPS = 1e-5f;

// ----------------------------------------------------------------------------------- device helpers

__device__ __forceinline__ float half_bits_to_float(unsigned bits) {
    return __half2float(__ushort_as_half((unsigned short)(bits & 0xffffu)));
}

__device__ __forceinline__ unsigned float_to_half_bits(float f) {
    return (unsigned)__half_as_ushort(__float2half_rn(f));
}

// Eight halves from a 16-byte aligned address, as floats.
__device__ __forceinline__ void load_half8(const __half* p, float (&f)[VEC]) {
    const uint4 u = *reinterpret_cast<const uint4*>(p);
    const unsigned w[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        f[2 * i] = half_bits_to_float(w[i]);
        f[2 * i + 1] = half_bits_to_float(w[i] >> 16);
    }
}

// Eight floats rounded to halves, stored at a 16-byte aligned address.
__device__ __forceinline__ void store_half8(__half* p, const float (&f)[VEC]) {
    unsigned w[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) w[i] = float_to_half_bits(f[2 * i]) | (float_to_half_bits(f[2 * i + 1]) << 16);
    *reinterpret_cast<uint4*>(p) = make_uint4(w[0], w[1], w[2], w[3]);
}

__device__ __forceinline__ float gelu(float x) { return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f)); }

// Sum of v over the block (LN_THREADS threads), returned to every thread.
__device__ __forceinline__ float block_sum(float v) {
    __shared__ float warp_sums[LN_THREADS / 32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    float total = 0.0f;
#pragma unroll
    for (int w = 0; w < LN_THREADS / 32; ++w) total += warp_sums[w];
    __syncthreads();  // warp_sums is reused by the next call
    return total;
}

// LayerNorm of one row held in registers: x[j] holds the halves (threadIdx.x + j * LN_THREADS) * 8 .. + 7 of
// the row (only vectors below N / 8 are valid). Two-pass statistics (mean, then the mean squared deviation).
__device__ __forceinline__ void layernorm_row_store(float (&x)[MAX_VECS][VEC], int N, const __half* __restrict__ gamma,
                                                    const __half* __restrict__ beta, __half* __restrict__ y_row) {
    const int nvec = N / VEC;
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < MAX_VECS; ++j)
        if (threadIdx.x + j * LN_THREADS < nvec) {
#pragma unroll
            for (int e = 0; e < VEC; ++e) s += x[j][e];
        }
    const float mean = block_sum(s) / N;
    float q = 0.0f;
#pragma unroll
    for (int j = 0; j < MAX_VECS; ++j)
        if (threadIdx.x + j * LN_THREADS < nvec) {
#pragma unroll
            for (int e = 0; e < VEC; ++e) q += (x[j][e] - mean) * (x[j][e] - mean);
        }
    const float rstd = rsqrtf(block_sum(q) / N + LN_EPS);
#pragma unroll
    for (int j = 0; j < MAX_VECS; ++j) {
        const int v = threadIdx.x + j * LN_THREADS;
        if (v >= nvec) continue;
        float g[VEC], b[VEC], out[VEC];
        load_half8(gamma + (size_t)v * VEC, g);
        load_half8(beta + (size_t)v * VEC, b);
#pragma unroll
        for (int e = 0; e < VEC; ++e) out[e] = (x[j][e] - mean) * rstd * g[e] + b[e];
        store_half8(y_row + (size_t)v * VEC, out);
    }
}

// ----------------------------------------------------------------------------------- kernels

__global__ void __launch_bounds__(LN_THREADS)
layernorm_fp16(const __half* __restrict__ x, const __half* __restrict__ gamma, const __half* __restrict__ beta,
               __half* __restrict__ y, int N)
{
    const size_t row = blockIdx.x;
    float v[MAX_VECS][VEC];
#pragma unroll
    for (int j = 0; j < MAX_VECS; ++j) {
        const int c = threadIdx.x + j * LN_THREADS;
        if (c < N / VEC) load_half8(x + row * N + (size_t)c * VEC, v[j]);
    }
    layernorm_row_store(v, N, gamma, beta, y + row * N);
}

__global__ void __launch_bounds__(LN_THREADS) gelu_fp16(const __half* __restrict__ x, __half* __restrict__ y, size_t n)
{
    const size_t nvec = n / VEC;
    for (size_t v = blockIdx.x * (size_t)blockDim.x + threadIdx.x; v < nvec; v += (size_t)gridDim.x * blockDim.x) {
        float f[VEC];
        load_half8(x + v * VEC, f);
#pragma unroll
        for (int e = 0; e < VEC; ++e) f[e] = gelu(f[e]);
        store_half8(y + v * VEC, f);
    }
}

__global__ void __launch_bounds__(LN_THREADS)
residual_add_fp16(const __half* __restrict__ a, const __half* __restrict__ residual, __half* __restrict__ y, size_t n)
{
    const size_t nvec = n / VEC;
    for (size_t v = blockIdx.x * (size_t)blockDim.x + threadIdx.x; v < nvec; v += (size_t)gridDim.x * blockDim.x) {
        float f[VEC], r[VEC];
        load_half8(a + v * VEC, f);
        load_half8(residual + v * VEC, r);
#pragma unroll
        for (int e = 0; e < VEC; ++e) f[e] += r[e];
        store_half8(y + v * VEC, f);
    }
}

__global__ void __launch_bounds__(LN_THREADS)
fused_gelu_residual_layernorm_fp16(const __half* __restrict__ x, const __half* __restrict__ residual,
                                   const __half* __restrict__ gamma, const __half* __restrict__ beta,
                                   __half* __restrict__ y, int N)
{
    const size_t row = blockIdx.x;
    float v[MAX_VECS][VEC];
#pragma unroll
    for (int j = 0; j < MAX_VECS; ++j) {
        const int c = threadIdx.x + j * LN_THREADS;
        if (c >= N / VEC) continue;
        float r[VEC];
        load_half8(x + row * N + (size_t)c * VEC, v[j]);
        load_half8(residual + row * N + (size_t)c * VEC, r);
#pragma unroll
        for (int e = 0; e < VEC; ++e) v[j][e] = gelu(v[j][e]) + r[e];  // stays in registers, FP32
    }
    layernorm_row_store(v, N, gamma, beta, y + row * N);
}

// ----------------------------------------------------------------------------------- host

static std::vector<__half> to_half(const std::vector<float>& f) {
    std::vector<__half> h(f.size());
    for (size_t i = 0; i < f.size(); ++i) h[i] = __float2half_rn(f[i]);
    return h;
}

static float round_half(double x) { return __half2float(__float2half_rn((float)x)); }

static double gelu_ref(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }

// CPU LayerNorm of each row of h (M x N, double), the reference for every LayerNorm output.
static std::vector<double> layernorm_ref(const std::vector<double>& h, int M, int N, const std::vector<__half>& gamma,
                                         const std::vector<__half>& beta) {
    std::vector<double> y(h.size());
    for (int i = 0; i < M; ++i) {
        const double* r = &h[(size_t)i * N];
        double mean = 0.0, var = 0.0;
        for (int j = 0; j < N; ++j) mean += r[j];
        mean /= N;
        for (int j = 0; j < N; ++j) var += (r[j] - mean) * (r[j] - mean);
        const double rstd = 1.0 / std::sqrt(var / N + LN_EPS);
        for (int j = 0; j < N; ++j)
            y[(size_t)i * N + j] = (r[j] - mean) * rstd * __half2float(gamma[j]) + __half2float(beta[j]);
    }
    return y;
}

static ks::Check compare(const __half* d, const std::vector<double>& want, double tolerance) {
    const std::vector<__half> got = ks::to_host(d, want.size());
    ks::Check c;
    c.tolerance = tolerance;
    for (size_t i = 0; i < want.size(); ++i) c.add(i, __half2float(got[i]), want[i]);
    return c;
}

static const char* USAGE =
    "usage: layernorm [--m M] [--n N] [--warmup W] [--repeats R] [--cold-l2 C]\n"
    "  FP16 LayerNorm of X[M][N], then Y = LayerNorm(GeLU(X) + Residual) as three kernels and as one fused kernel\n"
    "  --m M            rows (default 2048)\n"
    "  --n N            row length, a multiple of 8, at most 8192 (default 4096)\n"
    KS_TIMING_USAGE;

int main(int argc, char** argv)
{
    const ks::Options opt(argc, argv, USAGE, ks::with_timing({"--m", "--n"}));
    const int M = (int)opt.get("--m", 2048), N = (int)opt.get("--n", 4096);
    const ks::Timing timing = ks::timing(opt);
    if (N % VEC || N > MAX_N) opt.fail("--n must be a multiple of 8 and at most 8192");
    const size_t n = (size_t)M * N;

    ks::print_device();
    std::printf("LayerNorm FP16 M=%d N=%d; Y = LayerNorm(GeLU(X) + Residual) unfused (3 kernels) vs fused\n", M, N);
    const std::vector<__half> hx = to_half(ks::random_floats(n, -3.0f, 3.0f, 11));
    const std::vector<__half> hr = to_half(ks::random_floats(n, -1.0f, 1.0f, 12));
    const std::vector<__half> hg = to_half(ks::random_floats(N, 0.5f, 1.5f, 13));
    const std::vector<__half> hb = to_half(ks::random_floats(N, -0.5f, 0.5f, 14));
    __half *dx = ks::to_device(hx), *dr = ks::to_device(hr), *dg = ks::to_device(hg), *db = ks::to_device(hb);
    __half *dt1 = ks::device_zeros<__half>(n), *dt2 = ks::device_zeros<__half>(n), *dy = ks::device_zeros<__half>(n);

    // References: the unfused chain rounds its intermediates to FP16 (as T1 and T2 are stored), the fused
    // kernel keeps GeLU(X) + Residual in FP32.
    std::vector<double> x(n), t1(n), t2(n), h(n);
    for (size_t i = 0; i < n; ++i) {
        x[i] = __half2float(hx[i]);
        t1[i] = round_half(gelu_ref(x[i]));
        t2[i] = round_half(t1[i] + __half2float(hr[i]));
        h[i] = gelu_ref(x[i]) + __half2float(hr[i]);
    }
    const std::vector<double> want_ln = layernorm_ref(x, M, N, hg, hb);
    const std::vector<double> want_unfused = layernorm_ref(t2, M, N, hg, hb);
    const std::vector<double> want_fused = layernorm_ref(h, M, N, hg, hb);
    // FP16 outputs below 8 in magnitude: half an ulp is at most 2^-9; 1e-2 leaves room for FP32 statistics.
    // Where FP16 intermediates are compared or consumed, the GPU's erff may round an element to the
    // neighbouring half (one ulp, up to 2^-8 below 8): 2e-2.
    const double tol = 1e-2, tol_rounded = 2e-2;

    const double mn2 = 2.0 * n, params = 2.0 * 2 * N;  // bytes of one M x N FP16 tensor; gamma + beta
    const int ln_blocks = M;
    const int ew_blocks = (int)std::min<size_t>((n / VEC + LN_THREADS - 1) / LN_THREADS, 1u << 30);
    bool ok = true;

    auto ln = [&]() { layernorm_fp16<<<ln_blocks, LN_THREADS>>>(dx, dg, db, dy, N); };
    ks::run_once("layernorm_fp16", ln);
    ks::Check c = compare(dy, want_ln, tol);
    float ms = ks::median_ms(ln, timing);
    ok &= ks::report("layernorm_fp16", ms, timing, ks::gbytes(2 * mn2 + params, ms), c);

    auto g = [&]() { gelu_fp16<<<ew_blocks, LN_THREADS>>>(dx, dt1, n); };
    ks::run_once("gelu_fp16", g);
    c = compare(dt1, t1, tol_rounded);
    ms = ks::median_ms(g, timing);
    ok &= ks::report("gelu_fp16", ms, timing, ks::gbytes(2 * mn2, ms), c);

    auto add = [&]() { residual_add_fp16<<<ew_blocks, LN_THREADS>>>(dt1, dr, dt2, n); };
    ks::run_once("residual_add_fp16", add);
    c = compare(dt2, t2, tol_rounded);
    ms = ks::median_ms(add, timing);
    ok &= ks::report("residual_add_fp16", ms, timing, ks::gbytes(3 * mn2, ms), c);

    CUDA_CHECK(cudaMemset(dy, 0, n * sizeof(__half)));
    auto unfused = [&]() {
        gelu_fp16<<<ew_blocks, LN_THREADS>>>(dx, dt1, n);
        residual_add_fp16<<<ew_blocks, LN_THREADS>>>(dt1, dr, dt2, n);
        layernorm_fp16<<<ln_blocks, LN_THREADS>>>(dt2, dg, db, dy, N);
    };
    ks::run_once("unfused chain", unfused);
    c = compare(dy, want_unfused, tol_rounded);
    const float ms_unfused = ks::median_ms(unfused, timing);
    const double bytes_unfused = 7 * mn2 + params;
    ok &= ks::report("unfused: gelu + residual_add + layernorm", ms_unfused, timing,
                     ks::gbytes(bytes_unfused, ms_unfused), c);

    CUDA_CHECK(cudaMemset(dy, 0, n * sizeof(__half)));
    auto fused = [&]() { fused_gelu_residual_layernorm_fp16<<<ln_blocks, LN_THREADS>>>(dx, dr, dg, db, dy, N); };
    ks::run_once("fused_gelu_residual_layernorm_fp16", fused);
    c = compare(dy, want_fused, tol);
    const float ms_fused = ks::median_ms(fused, timing);
    const double bytes_fused = 3 * mn2 + params;
    ok &= ks::report("fused_gelu_residual_layernorm_fp16", ms_fused, timing, ks::gbytes(bytes_fused, ms_fused), c);

    std::printf("fusion: ideal DRAM bytes %.1f MB unfused, %.1f MB fused (%.2f of the bytes); "
                "time %.2fx faster fused\n",
                bytes_unfused / 1e6, bytes_fused / 1e6, bytes_fused / bytes_unfused, ms_unfused / ms_fused);
    for (__half* p : {dx, dr, dg, db, dt1, dt2, dy}) CUDA_CHECK(cudaFree(p));
    return ks::finish(ok);
}

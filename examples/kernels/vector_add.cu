// Vector add c = a + b in FP32: the smallest memory-bound kernel (1 FLOP per 12 bytes), a bandwidth baseline
// for the other examples.
//
//   vector_add_fp32   one element per thread, 256 threads per block, coalesced 4-byte accesses.
//
// Build: nvcc -O3 -arch=sm_90 -lineinfo -o vector_add vector_add.cu
// Run:   ./vector_add [--n 67108864] [--warmup 2] [--repeats 5] [--cold-l2 1]

#include "common.cuh"

constexpr int THREADS = 256;

__global__ void __launch_bounds__(THREADS)
vector_add_fp32(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, size_t n)
{
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

static const char* USAGE =
    "usage: vector_add [--n N] [--warmup W] [--repeats R] [--cold-l2 C]\n"
    "  c[N] = a[N] + b[N] in FP32 with vector_add_fp32\n"
    "  --n N            elements (default 67108864 = 2^26: 768 MiB moved)\n"
    KS_TIMING_USAGE;

int main(int argc, char** argv)
{
    const ks::Options opt(argc, argv, USAGE, ks::with_timing({"--n"}));
    const size_t n = (size_t)opt.get("--n", 1L << 26);
    const ks::Timing timing = ks::timing(opt);
    const size_t blocks = (n + THREADS - 1) / THREADS;
    if (blocks > 0x7fffffffu) opt.fail("--n is too large for one element per thread");

    ks::print_device();
    std::printf("vector add, %zu FP32 elements\n", n);
    const std::vector<float> ha = ks::random_floats(n, -1.0f, 1.0f, 41);
    const std::vector<float> hb = ks::random_floats(n, -1.0f, 1.0f, 42);
    float* da = ks::to_device(ha);
    float* db = ks::to_device(hb);
    float* dc = ks::device_zeros<float>(n);

    auto launch = [&]() { vector_add_fp32<<<(unsigned)blocks, THREADS>>>(da, db, dc, n); };
    ks::run_once("vector_add_fp32", launch);
    const std::vector<float> hc = ks::to_host(dc, n);
    ks::Check c;  // the same FP32 addition on both sides: tolerance 0
    for (size_t i = 0; i < n; ++i) c.add(i, hc[i], ha[i] + hb[i]);
    const float ms = ks::median_ms(launch, timing);
    const bool ok = ks::report("vector_add_fp32", ms, timing, ks::gbytes(3.0 * n * sizeof(float), ms), c);
    CUDA_CHECK(cudaFree(da));
    CUDA_CHECK(cudaFree(db));
    CUDA_CHECK(cudaFree(dc));
    return ks::finish(ok);
}

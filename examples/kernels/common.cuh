// Host-side helpers shared by the example programs in examples/kernels/ (not a kernel file itself):
// command-line options, CUDA error checks, deterministic random inputs, cudaEvent timing (median of
// repeats after warm-up launches) and the per-kernel PASS/FAIL lines.
//
// Every program prints one line per kernel:
//   <kernel>  <median> ms (median of R, W warm-up, cold|warm L2)  <rate>  check PASS|FAIL max abs error E ...
// then "PASS" or "FAIL" on its last line; it exits 0 when every check passed, 1 on a mismatch and 2 on a
// usage or CUDA error.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CUDA_CHECK(call)                                                                          \
    do {                                                                                          \
        cudaError_t ks_err_ = (call);                                                             \
        if (ks_err_ != cudaSuccess) {                                                             \
            std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call,        \
                         cudaGetErrorString(ks_err_), cudaGetErrorName(ks_err_));                 \
            std::exit(2);                                                                         \
        }                                                                                         \
    } while (0)

namespace ks {

// ------------------------------------------------------------------------------------------ options

// "--name VALUE" options with defaults. Unknown options, missing or malformed values: usage, exit 2.
class Options {
  public:
    // names: the options the program takes (each "--x" followed by an integer).
    Options(int argc, char** argv, const char* usage, std::vector<std::string> names)
        : usage_(usage), names_(std::move(names)) {
        for (int i = 1; i < argc; ++i) {
            std::string a = argv[i];
            if (a == "-h" || a == "--help") {
                std::printf("%s", usage_);
                std::exit(0);
            }
            if (std::find(names_.begin(), names_.end(), a) == names_.end()) fail("unknown option " + a);
            if (i + 1 >= argc) fail(a + " needs a value");
            given_.push_back({a, argv[++i]});
        }
    }

    // The integer value of option `name` (default `def`); below `min_value` is a usage error.
    long get(const std::string& name, long def, long min_value = 1) const {
        long v = def;
        for (const auto& g : given_) {
            if (g.first != name) continue;
            char* end = nullptr;
            v = std::strtol(g.second.c_str(), &end, 10);
            if (g.second.empty() || *end != '\0') fail(name + " takes an integer, not '" + g.second + "'");
        }
        if (v < min_value) fail(name + " must be at least " + std::to_string(min_value));
        return v;
    }

    [[noreturn]] void fail(const std::string& message) const {
        std::fprintf(stderr, "error: %s\n\n%s", message.c_str(), usage_);
        std::exit(2);
    }

  private:
    const char* usage_;
    std::vector<std::string> names_;
    std::vector<std::pair<std::string, std::string>> given_;
};

// ------------------------------------------------------------------------------------------ inputs

// Deterministic uniform values in [lo, hi), never exactly zero (xorshift64*; the same on every machine).
inline std::vector<float> random_floats(size_t n, float lo, float hi, uint64_t seed) {
    std::vector<float> v(n);
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t i = 0; i < n; ++i) {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        const double u = double((s * 0x2545F4914F6CDD1Dull) >> 11) * (1.0 / 9007199254740992.0);  // [0, 1)
        float x = float(lo + (hi - lo) * u);
        v[i] = (x == 0.0f) ? 1e-3f : x;
    }
    return v;
}

// A device copy of `host`.
template <class T>
T* to_device(const std::vector<T>& host) {
    T* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, host.size() * sizeof(T)));
    CUDA_CHECK(cudaMemcpy(d, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}

template <class T>
T* device_zeros(size_t n) {
    T* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, n * sizeof(T)));
    CUDA_CHECK(cudaMemset(d, 0, n * sizeof(T)));
    return d;
}

template <class T>
std::vector<T> to_host(const T* d, size_t n) {
    std::vector<T> h(n);
    CUDA_CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
}

// ------------------------------------------------------------------------------------------ timing

// Reads a buffer of twice the L2 size so that the next kernel starts with none of its data in L2 (the lines
// left behind are clean: evicting them costs no write-back). The sink write never happens; it keeps the loads.
__global__ void l2_flush_read(const uint4* __restrict__ buf, size_t n, unsigned* __restrict__ sink)
{
    unsigned x = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const uint4 v = buf[i];
        x ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (x == 0x9E3779B9u) *sink = x;
}

inline void flush_l2() {
    static uint4* buf = nullptr;
    static unsigned* sink = nullptr;
    static size_t n = 0;
    static int blocks = 0;
    if (buf == nullptr) {
        int dev = 0, l2 = 0, sms = 0;
        CUDA_CHECK(cudaGetDevice(&dev));
        CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        n = std::max<size_t>(2 * (size_t)l2, 1 << 20) / sizeof(uint4);
        CUDA_CHECK(cudaMalloc(&buf, n * sizeof(uint4)));
        CUDA_CHECK(cudaMemset(buf, 1, n * sizeof(uint4)));
        CUDA_CHECK(cudaMalloc(&sink, sizeof(unsigned)));
        blocks = 4 * sms;
        l2_flush_read<<<blocks, 256>>>(buf, n, sink);  // the memset's dirty lines are written back here
    }
    l2_flush_read<<<blocks, 256>>>(buf, n, sink);
    CUDA_CHECK(cudaGetLastError());
}

// How the kernels are timed: --warmup W (default 2), --repeats R (default 5), --cold-l2 0|1 (default 1).
struct Timing {
    int warmup = 2;
    int repeats = 5;
    bool cold_l2 = true;
};

inline Timing timing(const Options& opt) {
    Timing t;
    t.warmup = (int)opt.get("--warmup", 2, 0);
    t.repeats = (int)opt.get("--repeats", 5, 1);
    const long cold = opt.get("--cold-l2", 1, 0);
    if (cold > 1) opt.fail("--cold-l2 takes 0 or 1");
    t.cold_l2 = cold == 1;
    return t;
}

// The usage lines of the timing options, for every program's --help.
#define KS_TIMING_USAGE                                                                                       \
    "  --warmup W     untimed launches first (default 2)\n"                                                   \
    "  --repeats R    timed launches, the median is printed (default 5)\n"                                    \
    "  --cold-l2 C    1: flush the L2 before every timed launch, outside the timed interval (default 1);\n"   \
    "                 0: back-to-back launches, inputs may stay in L2\n"

// The option names of Timing, to append to a program's own.
inline std::vector<std::string> with_timing(std::vector<std::string> names) {
    for (const char* n : {"--warmup", "--repeats", "--cold-l2"}) names.push_back(n);
    return names;
}

// Runs `launch` t.warmup times, then t.repeats times each between two cudaEvents; returns the median in ms.
// With t.cold_l2 the L2 is flushed (outside the timed interval) before every timed launch, as Nsight Compute
// does by default, so that data left in L2 by the previous repeat does not pass for DRAM bandwidth.
template <class Launch>
float median_ms(Launch&& launch, const Timing& t) {
    const int warmup = t.warmup, repeats = t.repeats;
    const bool cold_l2 = t.cold_l2;
    for (int i = 0; i < warmup; ++i) launch();
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    std::vector<float> ms;
    for (int r = 0; r < repeats; ++r) {
        if (cold_l2) flush_l2();
        CUDA_CHECK(cudaEventRecord(start));
        launch();
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));
        CUDA_CHECK(cudaGetLastError());
        float t = 0.0f;
        CUDA_CHECK(cudaEventElapsedTime(&t, start, stop));
        ms.push_back(t);
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    std::sort(ms.begin(), ms.end());
    const size_t n = ms.size();
    return n % 2 ? ms[n / 2] : 0.5f * (ms[n / 2 - 1] + ms[n / 2]);
}

// Launches once and waits, reporting a launch or execution error with the kernel's name.
template <class Launch>
void run_once(const char* name, Launch&& launch) {
    launch();
    cudaError_t err = cudaGetLastError();
    if (err == cudaSuccess) err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        std::fprintf(stderr, "%s: %s (%s)\n", name, cudaGetErrorString(err), cudaGetErrorName(err));
        std::exit(2);
    }
}

// ------------------------------------------------------------------------------------------ checks

struct Check {
    double max_abs_error = 0.0;
    double tolerance = 0.0;
    size_t compared = 0;
    size_t mismatches = 0;
    size_t first_bad = 0;  // index of the first mismatch (valid when mismatches > 0)

    bool pass() const { return mismatches == 0 && compared > 0; }

    void add(size_t index, double got, double want) {
        const double e = std::fabs(got - want);
        ++compared;
        if (std::isnan(e) || e > tolerance) {
            if (mismatches++ == 0) first_bad = index;
        }
        if (std::isnan(e) || e > max_abs_error) max_abs_error = e;  // a NaN stays
    }
};

// Prints the PASS / FAIL line of one kernel and returns whether it passed.
inline bool report(const char* kernel, float ms, const Timing& t, const std::string& rate, const Check& c) {
    std::printf("%-36s %10.4f ms (median of %d, %d warm-up, %s L2)  %-18s check %s max abs error %.3e "
                "(tolerance %.1e, %zu values)",
                kernel, ms, t.repeats, t.warmup, t.cold_l2 ? "cold" : "warm", rate.c_str(), c.pass() ? "PASS" : "FAIL",
                c.max_abs_error, c.tolerance, c.compared);
    if (c.mismatches) std::printf(", %zu mismatches, first at index %zu", c.mismatches, c.first_bad);
    std::printf("\n");
    return c.pass();
}

inline std::string gflops(double flop, float ms) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.1f GFLOP/s", flop / (ms * 1e-3) / 1e9);
    return buf;
}

inline std::string gbytes(double bytes, float ms) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.1f GB/s", bytes / (ms * 1e-3) / 1e9);
    return buf;
}

// Prints the device once at the start.
inline void print_device() {
    int dev = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    cudaDeviceProp p;
    CUDA_CHECK(cudaGetDeviceProperties(&p, dev));
    std::printf("device %d: %s (sm_%d%d, %d SMs)\n", dev, p.name, p.major, p.minor, p.multiProcessorCount);
}

// Prints the final line and returns the exit status.
inline int finish(bool all_pass) {
    std::printf("%s\n", all_pass ? "PASS" : "FAIL");
    return all_pass ? 0 : 1;
}

}  // namespace ks

// Small kernels for `kernelscope occupancy --cu examples/kernels/occupancy_demo.cu --arch sm_90`.
// Each one stresses a different resource that limits how many blocks fit on an SM.
// They are only compiled (never run) by kernelscope; ptxas reports their registers, shared memory,
// barriers, stack frame and spills.

#define ACCUMULATORS 96

// Register-heavy: many independent accumulators stay live through the loop (128 registers on sm_75 .. sm_90).
__global__ void register_heavy(const float* __restrict__ in, float* __restrict__ out, int n)
{
    float acc[ACCUMULATORS];
#pragma unroll
    for (int j = 0; j < ACCUMULATORS; ++j) acc[j] = in[j];
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float x = in[i];
#pragma unroll
        for (int j = 0; j < ACCUMULATORS; ++j) acc[j] = fmaf(acc[j], x, in[(i + j) % n]);
    }
    float s = 0.f;
#pragma unroll
    for (int j = 0; j < ACCUMULATORS; ++j) s += acc[j] * (j + 1);
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// The same body with __launch_bounds__(512, 2): at most 65536 / (512 * 2) = 64 registers per thread, so ptxas
// has to spill registers to local memory. 512 x 2 = 1024 threads fit an SM of every architecture from sm_75 on
// (Turing's limit is 1024 threads per SM): a larger product (1024, 2) is out of range on sm_75 and sm_86, where
// ptxas warns ".minnctapersm will be ignored" and nothing spills.
__global__ void __launch_bounds__(512, 2) register_spilling(const float* __restrict__ in, float* __restrict__ out, int n)
{
    float acc[ACCUMULATORS];
#pragma unroll
    for (int j = 0; j < ACCUMULATORS; ++j) acc[j] = in[j];
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float x = in[i];
#pragma unroll
        for (int j = 0; j < ACCUMULATORS; ++j) acc[j] = fmaf(acc[j], x, in[(i + j) % n]);
    }
    float s = 0.f;
#pragma unroll
    for (int j = 0; j < ACCUMULATORS; ++j) s += acc[j] * (j + 1);
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// 40 KiB of static shared memory per block: shared memory limits the resident blocks.
__global__ void shared_40k(const float* __restrict__ in, float* __restrict__ out, int n)
{
    __shared__ float tile[10240];  // 10240 * 4 B = 40 KiB
    for (int i = threadIdx.x; i < 10240; i += blockDim.x) tile[i] = in[(blockIdx.x * 10240 + i) % n];
    __syncthreads();
    float s = 0.f;
    for (int i = threadIdx.x; i < 10240; i += blockDim.x) s += tile[10239 - i];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// Light: a SAXPY, few registers, no shared memory.
__global__ void light(float a, const float* __restrict__ x, float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

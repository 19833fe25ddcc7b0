// The whole grid synchronised with cooperative groups, as NVIDIA's
// cooperative-groups samples do it. One program, one case per argument:
//   (none)     a single-pass reduction: each block reduces its grid-stride
//              share, writes a partial sum, grid.sync(), block 0 adds them;
//              launched with cudaLaunchCooperativeKernel on a grid sized by
//              the occupancy calculator
//   phases     a scan across the grid by doubling, one grid.sync() a phase,
//              launched with cudaLaunchKernelEx and the cooperative attribute
//   too-large  the reduction on one block more than the device holds at once
//   plain      the reduction launched with <<< >>>, not cooperatively
#include <cooperative_groups.h>
#include <cstdio>
#include <cstring>
#include <vector>

namespace cg = cooperative_groups;

#define CHECK(call)                                                                                   \
    do {                                                                                              \
        cudaError_t e_ = (call);                                                                      \
        if (e_ != cudaSuccess) {                                                                      \
            std::printf("%s: %s (%s)\n", #call, cudaGetErrorName(e_), cudaGetErrorString(e_));       \
            return 1;                                                                                 \
        }                                                                                             \
    } while (0)

__device__ int block_sum(cg::thread_block block, int* scratch, int value)
{
    scratch[block.thread_rank()] = value;
    block.sync();
    for (unsigned stride = block.size() / 2; stride > 0; stride /= 2) {
        if (block.thread_rank() < stride) scratch[block.thread_rank()] += scratch[block.thread_rank() + stride];
        block.sync();
    }
    return scratch[0];
}

__global__ void reduce_grid(const int* in, int* partial, int* out, unsigned n)
{
    extern __shared__ int scratch[];
    cg::thread_block block = cg::this_thread_block();
    cg::grid_group grid = cg::this_grid();
    int mine = 0;
    for (unsigned long long i = grid.thread_rank(); i < n; i += grid.size()) mine += in[i];
    const int sum = block_sum(block, scratch, mine);
    if (block.thread_rank() == 0) partial[blockIdx.x] = sum;
    grid.sync();
    if (blockIdx.x == 0) {
        int total = 0;
        for (unsigned b = block.thread_rank(); b < gridDim.x; b += block.size()) total += partial[b];
        total = block_sum(block, scratch, total);
        if (block.thread_rank() == 0) *out = total;
    }
}

// Hillis and Steele's scan over the whole grid: phase d adds the element d
// places back, ping-ponging between two arrays, the grid synchronised between phases.
__global__ void scan_grid(int* a, int* b, unsigned n)
{
    cg::grid_group grid = cg::this_grid();
    int *from = a, *to = b;
    for (unsigned d = 1; d < n; d *= 2) {
        for (unsigned long long i = grid.thread_rank(); i < n; i += grid.size()) to[i] = from[i] + (i >= d ? from[i - d] : 0);
        grid.sync();
        int* t = from;
        from = to;
        to = t;
    }
}

int reduction(const char* mode)
{
    const unsigned n = 100003, threads = 128;
    std::vector<int> host(n);
    long long expected = 0;
    for (unsigned i = 0; i < n; ++i) expected += host[i] = int(i % 97) - 40;
    int device = 0, sms = 0, per_sm = 0;
    CHECK(cudaGetDevice(&device));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const size_t shared = threads * sizeof(int);
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reduce_grid, threads, shared));
    unsigned blocks = (n + threads - 1) / threads;
    if (blocks > 24u) blocks = 24;  // the sample's cap on blocks; a grid-stride loop does the rest
    if (!std::strcmp(mode, "too-large")) blocks = unsigned(per_sm * sms) + 1;
    int *in, *partial, *out;
    CHECK(cudaMalloc(&in, n * sizeof(int)));
    CHECK(cudaMalloc(&partial, blocks * sizeof(int)));
    CHECK(cudaMalloc(&out, sizeof(int)));
    CHECK(cudaMemcpy(in, host.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    unsigned count = n;
    void* args[] = {&in, &partial, &out, &count};
    if (!std::strcmp(mode, "plain")) reduce_grid<<<blocks, threads, shared>>>(in, partial, out, n);
    else CHECK(cudaLaunchCooperativeKernel((void*)reduce_grid, blocks, threads, args, shared, 0));
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    int total = 0;
    CHECK(cudaMemcpy(&total, out, sizeof(int), cudaMemcpyDeviceToHost));
    std::printf("reduction: %u blocks (%d a multiprocessor fit), sum %d, expected %lld: %s\n", blocks, per_sm, total, expected,
                total == expected ? "correct" : "WRONG");
    CHECK(cudaFree(in));
    CHECK(cudaFree(partial));
    CHECK(cudaFree(out));
    return total == expected ? 0 : 1;
}

int phases()
{
    const unsigned n = 1000, threads = 64, blocks = 5;  // 320 threads: each takes 3 or 4 elements a phase
    std::vector<int> host(n), expected(n);
    unsigned seed = 7;
    for (unsigned i = 0; i < n; ++i) {
        seed = seed * 1103515245u + 12345u;
        host[i] = int(seed >> 16) % 21 - 10;
        expected[i] = host[i] + (i ? expected[i - 1] : 0);
    }
    int *a, *b;
    CHECK(cudaMalloc(&a, n * sizeof(int)));
    CHECK(cudaMalloc(&b, n * sizeof(int)));
    CHECK(cudaMemcpy(a, host.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    cudaLaunchConfig_t config = {};
    config.gridDim = blocks;
    config.blockDim = threads;
    cudaLaunchAttribute cooperative;
    cooperative.id = cudaLaunchAttributeCooperative;
    cooperative.val.cooperative = 1;
    config.attrs = &cooperative;
    config.numAttrs = 1;
    CHECK(cudaLaunchKernelEx(&config, scan_grid, a, b, n));
    CHECK(cudaDeviceSynchronize());
    // 10 phases (d = 1 .. 512): an even number, so the last wrote into a
    int* result = a;
    std::vector<int> got(n);
    CHECK(cudaMemcpy(got.data(), result, n * sizeof(int), cudaMemcpyDeviceToHost));
    std::printf("phases: scan of %u elements over %u blocks: %s\n", n, blocks, got == expected ? "correct" : "WRONG");
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    return got == expected ? 0 : 1;
}

int main(int argc, char** argv)
{
    const char* mode = argc > 1 ? argv[1] : "";
    return !std::strcmp(mode, "phases") ? phases() : reduction(mode);
}

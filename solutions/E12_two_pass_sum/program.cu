// E12 solution: every CUDA call checked by check(), which names the call and
// exits 1; the partial sums stay on the GPU for the second launch, and the
// host copies back one int and frees the three allocations.
//
// E12: a whole program, the sum of n ints in two launches: the host code
// around two given kernels (mirrors reduction v3's tree, and the host code of
// a multi-pass sum as textbooks and NVIDIA's samples write it).
//
// Usage: program N SEED. It makes in[i] = input_value(i, SEED) for i < N,
// sums them on the GPU and prints "sum S". Pass 1 (block_sums): block b sums
// its BLOCK elements in shared memory and writes partial[b]. Pass 2
// (sum_partials): one block sums the partial sums, however many there are.
//
// Grade it:  build/warplab grade E12       (README.md says what is checked)
// Run it:    build/warplab run exercises/E12_two_pass_sum/program.cu -- 1000 7
// Try it:    build/warplab run exercises/E12_two_pass_sum/program.cu --fail launch:2 -- 1000 7
#include <cstdio>
#include <cstdlib>
#include <vector>

constexpr unsigned BLOCK = 256;

// The input: the grader makes the same values to check the sum. Keep it as it is.
int input_value(unsigned i, unsigned seed)
{
    unsigned x = (i + 1u) * 2654435761u ^ seed;
    x ^= x >> 13;
    return int(x % 201u) - 100;
}

// Pass 1: partial[blockIdx.x] = the sum of in[blockIdx.x * BLOCK .. + BLOCK - 1] (those below n).
__global__ void block_sums(const int* in, int* partial, unsigned n)
{
    __shared__ int sdata[BLOCK];
    const unsigned tid = threadIdx.x, i = blockIdx.x * BLOCK + tid;
    sdata[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned s = BLOCK / 2; s > 0; s /= 2) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = sdata[0];
}

// Pass 2, one block: *sum = partial[0] + ... + partial[count - 1].
__global__ void sum_partials(const int* partial, int* sum, unsigned count)
{
    __shared__ int sdata[BLOCK];
    const unsigned tid = threadIdx.x;
    int total = 0;
    for (unsigned j = tid; j < count; j += BLOCK) total += partial[j];  // count may exceed BLOCK
    sdata[tid] = total;
    __syncthreads();
    for (unsigned s = BLOCK / 2; s > 0; s /= 2) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) *sum = sdata[0];
}

// Stops the program with the error's name where a CUDA call failed.
void check(cudaError_t e, const char* what)
{
    if (e == cudaSuccess) return;
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
}

int main(int argc, char** argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s N SEED\n", argv[0]);
        return 2;
    }
    const auto n = static_cast<unsigned>(std::strtoul(argv[1], nullptr, 10));
    const auto seed = static_cast<unsigned>(std::strtoul(argv[2], nullptr, 10));
    std::vector<int> host(n);
    for (unsigned i = 0; i < n; ++i) host[i] = input_value(i, seed);

    const unsigned blocks = (n + BLOCK - 1) / BLOCK;
    int *in = nullptr, *partial = nullptr, *sum = nullptr;
    check(cudaMalloc(&in, n * sizeof(int)), "cudaMalloc in");
    check(cudaMalloc(&partial, blocks * sizeof(int)), "cudaMalloc partial");
    check(cudaMalloc(&sum, sizeof(int)), "cudaMalloc sum");
    check(cudaMemcpy(in, host.data(), n * sizeof(int), cudaMemcpyHostToDevice), "copy in");

    block_sums<<<blocks, BLOCK>>>(in, partial, n);
    check(cudaGetLastError(), "block_sums");
    sum_partials<<<1, BLOCK>>>(partial, sum, blocks);
    check(cudaGetLastError(), "sum_partials");

    int result = 0;
    check(cudaMemcpy(&result, sum, sizeof(int), cudaMemcpyDeviceToHost), "copy sum");
    std::printf("sum %d\n", result);
    check(cudaFree(in), "cudaFree in");
    check(cudaFree(partial), "cudaFree partial");
    check(cudaFree(sum), "cudaFree sum");
    return 0;
}

// WRONG on purpose: a 1D stencil with a shared-memory tile and its halo, as
// NVIDIA's "CUDA C/C++ Basics" teaches it, with the __syncthreads() between
// filling the tile and reading the neighbours' elements left out. A thread
// near the end of a warp reads elements that threads of the next warp write.
// expect exit: 1
// expect stdout: yes \(below\)
// expect fault: kernel fault: kernel stencil_1d, block \([0-3],0,0\), thread \([0-9]+,0,0\) [^:]*: data race on shared memory: temp\[[0-9]+\] .*wrong_stencil_no_sync.cu:37\)$
#include <cstdio>
#include <cstdlib>
#include <vector>

#define RADIUS 3
#define BLOCK_SIZE 128

#define CUDA_CHECK(call)                                                                  \
    do {                                                                                  \
        cudaError_t err_ = (call);                                                        \
        if (err_ != cudaSuccess) {                                                        \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

// out[i] = in[i] + ... + in[i + 2 * RADIUS]: `in` holds n + 2 * RADIUS elements.
__global__ void stencil_1d(const int* in, int* out)
{
    __shared__ int temp[BLOCK_SIZE + 2 * RADIUS];
    const int gindex = threadIdx.x + blockIdx.x * blockDim.x;
    const int lindex = threadIdx.x + RADIUS;
    temp[lindex] = in[gindex + RADIUS];
    if (threadIdx.x < RADIUS) {
        temp[lindex - RADIUS] = in[gindex];
        temp[lindex + BLOCK_SIZE] = in[gindex + BLOCK_SIZE + RADIUS];
    }
    // missing: __syncthreads();
    int result = 0;
    for (int offset = -RADIUS; offset <= RADIUS; offset++) result += temp[lindex + offset];
    out[gindex] = result;
}

int main()
{
    const int n = 4 * BLOCK_SIZE;
    std::vector<int> in(n + 2 * RADIUS), out(n);
    for (int i = 0; i < n + 2 * RADIUS; i++) in[i] = i % 10;
    int *d_in, *d_out;
    CUDA_CHECK(cudaMalloc(&d_in, (n + 2 * RADIUS) * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(int)));
    CUDA_CHECK(cudaMemcpy(d_in, in.data(), (n + 2 * RADIUS) * sizeof(int), cudaMemcpyHostToDevice));
    stencil_1d<<<n / BLOCK_SIZE, BLOCK_SIZE>>>(d_in, d_out);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int i = 0; i < n; i++) {
        int expected = 0;
        for (int k = 0; k <= 2 * RADIUS; k++) expected += in[i + k];
        wrong += out[i] != expected;
    }
    printf("stencil_1d: %d elements, %s\n", n, wrong ? "WRONG" : "correct");
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    return wrong ? 1 : 0;
}

// WRONG on purpose: a dot product in the manner of Sanders and Kandrot's
// "CUDA by Example": each block sums its products in shared memory, then its
// thread 0 adds the block's sum to the global result with a plain +=, not
// atomicAdd: blocks read and write the same word unordered and updates are lost.
// expect exit: 1
// expect stdout: unspecified launch failure in [^ ]*wrong_dot_global_race.cu at line 63
// expect fault: kernel fault: kernel dot, block \([0-9]+,0,0\), thread \(0,0,0\) [^:]*: data race on global memory: c\[0\] .*thread \(0,0,0\) of block \([0-9]+,0,0\).*wrong_dot_global_race.cu:45\)$
#include <cstdio>
#include <cstdlib>
#include <vector>

#define imin(a, b) (a < b ? a : b)

const int N = 33 * 1024;
const int threadsPerBlock = 256;
const int blocksPerGrid = imin(32, (N + threadsPerBlock - 1) / threadsPerBlock);

static void HandleError(cudaError_t err, const char* file, int line)
{
    if (err != cudaSuccess) {
        printf("%s in %s at line %d\n", cudaGetErrorString(err), file, line);
        exit(EXIT_FAILURE);
    }
}
#define HANDLE_ERROR(err) (HandleError(err, __FILE__, __LINE__))

__global__ void dot(const float* a, const float* b, float* c)
{
    __shared__ float cache[threadsPerBlock];
    int tid = threadIdx.x + blockIdx.x * blockDim.x;
    const int cacheIndex = threadIdx.x;
    float temp = 0;
    while (tid < N) {
        temp += a[tid] * b[tid];
        tid += blockDim.x * gridDim.x;
    }
    cache[cacheIndex] = temp;
    __syncthreads();
    int i = blockDim.x / 2;
    while (i != 0) {
        if (cacheIndex < i) cache[cacheIndex] += cache[cacheIndex + i];
        __syncthreads();
        i /= 2;
    }
    if (cacheIndex == 0) *c += cache[0];  // the race: should be atomicAdd(c, cache[0])
}

int main(void)
{
    std::vector<float> a(N), b(N);
    for (int i = 0; i < N; i++) {
        a[i] = float(i % 8);
        b[i] = 2.0f;
    }
    float *dev_a, *dev_b, *dev_c, c = 0;
    HANDLE_ERROR(cudaMalloc((void**)&dev_a, N * sizeof(float)));
    HANDLE_ERROR(cudaMalloc((void**)&dev_b, N * sizeof(float)));
    HANDLE_ERROR(cudaMalloc((void**)&dev_c, sizeof(float)));
    HANDLE_ERROR(cudaMemcpy(dev_a, a.data(), N * sizeof(float), cudaMemcpyHostToDevice));
    HANDLE_ERROR(cudaMemcpy(dev_b, b.data(), N * sizeof(float), cudaMemcpyHostToDevice));
    HANDLE_ERROR(cudaMemset(dev_c, 0, sizeof(float)));
    dot<<<blocksPerGrid, threadsPerBlock>>>(dev_a, dev_b, dev_c);
    HANDLE_ERROR(cudaGetLastError());
    HANDLE_ERROR(cudaMemcpy(&c, dev_c, sizeof(float), cudaMemcpyDeviceToHost));
    const float expected = 2.0f * 28.0f * (N / 8);  // each run of 8 adds 2 * (0 + ... + 7)
    printf("dot: %.0f, expected %.0f: %s\n", c, expected, c == expected ? "correct" : "WRONG");
    HANDLE_ERROR(cudaFree(dev_a));
    HANDLE_ERROR(cudaFree(dev_b));
    HANDLE_ERROR(cudaFree(dev_c));
    return c == expected ? 0 : 1;
}

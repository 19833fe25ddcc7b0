// Two launches, as a sample's host code makes them: a right scale, then a
// scatter through an index table one entry of which lies 4 GiB past the
// array. On a GPU the scatter's store is an illegal address, which NVIDIA's
// runtime reports only at the program's cudaDeviceSynchronize, naming no
// launch; warplab run --backend gpu names the scatter's launch and its line.
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                                   \
    do {                                                                                              \
        const cudaError_t e = (call);                                                                 \
        if (e != cudaSuccess) {                                                                       \
            std::printf("%s:%d: %s (%s)\n", __FILE__, __LINE__, cudaGetErrorName(e), cudaGetErrorString(e)); \
            std::exit(1);                                                                             \
        }                                                                                             \
    } while (0)

__global__ void scale(float* x, float factor, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= factor;
}

__global__ void scatter(float* out, const int* index, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[index[i]] = 1.0f;
}

int main()
{
    const int n = 512, threads = 128, blocks = (n + threads - 1) / threads;
    std::vector<int> index(n);
    for (int i = 0; i < n; ++i) index[i] = n - 1 - i;
    index[300] = 1 << 30;  // 4 GiB of floats past out: no memory of the program's
    float* x = nullptr;
    int* d_index = nullptr;
    CHECK(cudaMalloc(&x, n * sizeof(float)));
    CHECK(cudaMalloc(&d_index, n * sizeof(int)));
    CHECK(cudaMemcpy(d_index, index.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(x, 0, n * sizeof(float)));
    scale<<<blocks, threads>>>(x, 2.0f, n);
    scatter<<<blocks, threads>>>(x, d_index, n);  // the faulting launch
    const cudaError_t e = cudaDeviceSynchronize();
    std::printf("synchronize: %s\n", cudaGetErrorName(e));
    return e == cudaSuccess ? 0 : 1;
}

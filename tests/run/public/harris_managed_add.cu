// Unified memory as Harris's "An Even Easier Introduction to CUDA" teaches it:
// cudaMallocManaged arrays touched by the host and the kernel, a grid-stride
// loop, the data prefetched to the GPU (cudaMemPrefetchAsync) and advised
// read-mostly (cudaMemAdvise) before the launch, the maximum error after it.
// expect exit: 0
// expect stdout: ^add: 100003 elements, max error 0, correct
#include <cmath>
#include <cstdio>

#define checkCuda(call)                                                                         \
    do {                                                                                        \
        cudaError_t result = (call);                                                            \
        if (result != cudaSuccess) {                                                            \
            fprintf(stderr, "CUDA Runtime Error: %s at %s:%d\n", cudaGetErrorString(result), __FILE__, __LINE__); \
            return 1;                                                                           \
        }                                                                                       \
    } while (0)

__global__ void add(int n, const float* x, float* y)
{
    const int index = blockIdx.x * blockDim.x + threadIdx.x;
    const int stride = blockDim.x * gridDim.x;
    for (int i = index; i < n; i += stride) y[i] = x[i] + y[i];
}

int main(void)
{
    const int N = 100003;
    float *x, *y;
    checkCuda(cudaMallocManaged(&x, N * sizeof(float)));
    checkCuda(cudaMallocManaged(&y, N * sizeof(float)));
    for (int i = 0; i < N; i++) {
        x[i] = 1.0f;
        y[i] = 2.0f;
    }
    int device = -1;
    checkCuda(cudaGetDevice(&device));
    cudaMemLocation location = {};
    location.type = cudaMemLocationTypeDevice;
    location.id = device;
    checkCuda(cudaMemAdvise(x, N * sizeof(float), cudaMemAdviseSetReadMostly, location));
    checkCuda(cudaMemPrefetchAsync(x, N * sizeof(float), location, 0, 0));
    checkCuda(cudaMemPrefetchAsync(y, N * sizeof(float), location, 0, 0));
    const int blockSize = 256;
    const int numBlocks = 8;  // fewer threads than elements: each thread strides over about 49
    add<<<numBlocks, blockSize>>>(N, x, y);
    checkCuda(cudaGetLastError());
    checkCuda(cudaDeviceSynchronize());
    float maxError = 0.0f;
    for (int i = 0; i < N; i++) maxError = fmax(maxError, fabs(y[i] - 3.0f));
    printf("add: %d elements, max error %g, %s\n", N, maxError, maxError == 0.0f ? "correct" : "WRONG");
    checkCuda(cudaFree(x));
    checkCuda(cudaFree(y));
    return maxError == 0.0f ? 0 : 1;
}

// A vector add as the CUDA samples write one: every call checked, the size
// from the command line, the result checked on the host.
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                                  \
    do {                                                                                  \
        cudaError_t err_ = (call);                                                        \
        if (err_ != cudaSuccess) {                                                        \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
            std::exit(1);                                                                 \
        }                                                                                 \
    } while (0)

__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
#ifdef OFF_BY_ONE
    if (i <= n) c[i] = a[i] + b[i];  // one element past the end
#else
    if (i < n) c[i] = a[i] + b[i];
#endif
}

int main(int argc, char** argv)
{
    const int n = argc > 1 ? std::atoi(argv[1]) : 1000;
    std::vector<float> a(n), b(n), c(n);
    for (int i = 0; i < n; ++i) a[i] = float(i), b[i] = float(2 * i);
    float *d_a, *d_b, *d_c;
    CUDA_CHECK(cudaMalloc(&d_a, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_b, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_c, n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_a, a.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, b.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    const int threads = 256, blocks = (n + threads - 1) / threads;
    vector_add<<<blocks, threads>>>(d_a, d_b, d_c, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(c.data(), d_c, n * sizeof(float), cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int i = 0; i < n; ++i) wrong += c[i] != float(3 * i);
    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_c));
    std::printf("vector_add: %d elements, %s\n", n, wrong ? "WRONG" : "correct");
    return wrong ? 1 : 0;
}

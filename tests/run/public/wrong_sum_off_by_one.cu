// WRONG on purpose: a grid-stride sum whose loop runs while i <= n, one
// element past the end of the input (the classic off-by-one bound).
// expect exit: 1
// expect stdout: yes \(below\)
// expect fault: kernel fault: kernel sum_grid_stride, block \(1,0,0\), thread \(104,0,0\) [^:]*: out-of-bounds load: in\[1000\] \(argument 0\) is outside its 1000 elements.*wrong_sum_off_by_one.cu:22\)$
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                                  \
    do {                                                                                  \
        cudaError_t err_ = (call);                                                        \
        if (err_ != cudaSuccess) {                                                        \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

__global__ void sum_grid_stride(const float* in, float* total, int n)
{
    float sum = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i <= n; i += blockDim.x * gridDim.x) sum += in[i];
    atomicAdd(total, sum);
}

int main()
{
    const int n = 1000;  // with 2 blocks of 128 the stride is 256: in[1000] falls to 1000 - 3 * 256 = 232, block 1's thread 104
    std::vector<float> in(n);
    for (int i = 0; i < n; i++) in[i] = float(i % 4);
    float *d_in, *d_total, total = 0.0f;
    CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_total, sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_total, 0, sizeof(float)));
    sum_grid_stride<<<2, 128>>>(d_in, d_total, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(&total, d_total, sizeof(float), cudaMemcpyDeviceToHost));
    printf("sum: %.0f, expected 1500: %s\n", total, total == 1500.0f ? "correct" : "WRONG");
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_total));
    return total == 1500.0f ? 0 : 1;
}

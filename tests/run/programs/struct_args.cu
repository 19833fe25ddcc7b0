// A struct of device pointers passed by value, and a __device__ counter read
// back with cudaMemcpyFromSymbol; launched through cudaLaunchKernel too.
#include <cstdio>

struct Saxpy {
    const float* x;
    float* y;
    float a;
    int n;
};

__device__ unsigned long long touched;

__global__ void saxpy(Saxpy s)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < s.n) {
        s.y[i] = s.a * s.x[i] + s.y[i];
        atomicAdd(&touched, 1ull);
    }
}

int main()
{
    const int n = 77;
    float x[n], y[n];
    for (int i = 0; i < n; ++i) x[i] = float(i), y[i] = 1.0f;
    Saxpy s{nullptr, nullptr, 3.0f, n};
    cudaMalloc(const_cast<float**>(&s.x), sizeof x);
    cudaMalloc(&s.y, sizeof y);
    cudaMemcpy(const_cast<float*>(s.x), x, sizeof x, cudaMemcpyHostToDevice);
    cudaMemcpy(s.y, y, sizeof y, cudaMemcpyHostToDevice);
    saxpy<<<3, 32>>>(s);                                           // y = 3 x + 1
    void* args[] = {&s};
    cudaLaunchKernel((const void*)saxpy, dim3(3), dim3(32), args, 0, 0);  // y = 3 x + (3 x + 1)
    cudaMemcpy(y, s.y, sizeof y, cudaMemcpyDeviceToHost);
    unsigned long long count = 0;
    cudaMemcpyFromSymbol(&count, touched, sizeof count);
    bool ok = count == 2 * n;
    for (int i = 0; i < n; ++i) ok &= y[i] == 6.0f * i + 1.0f;
    std::printf("struct_args: %llu elements touched, %s\n", count, ok ? "correct" : "WRONG");
    cudaFree(const_cast<float*>(s.x));
    cudaFree(s.y);
    return ok ? 0 : 1;
}

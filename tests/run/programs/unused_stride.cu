// SAXPY (y = a*x + y) with one thread per element, the size from the command
// line. The kernel computes a grid stride it never uses (the loop over the
// grid was left out; the launch covers n anyway): nvcc warns that `stride` is
// declared but never referenced, and the result is still right.
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void saxpy(int n, float a, const float* x, float* y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = blockDim.x * gridDim.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

int main(int argc, char** argv)
{
    const int n = argc > 1 ? std::atoi(argv[1]) : 300;
    std::vector<float> x(n, 1.0f), y(n, 2.0f);
    float *d_x, *d_y;
    cudaMalloc(&d_x, n * sizeof(float));
    cudaMalloc(&d_y, n * sizeof(float));
    cudaMemcpy(d_x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_y, y.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, d_x, d_y);
    cudaMemcpy(y.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int i = 0; i < n; ++i) wrong += y[i] != 4.0f;  // 2 * 1 + 2
    cudaFree(d_x);
    cudaFree(d_y);
    std::printf("saxpy: %d elements, %s\n", n, wrong ? "WRONG" : "correct");
    return wrong ? 1 : 0;
}

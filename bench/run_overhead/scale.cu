// The program half of the runtime's overhead bench (run_overhead.sh): a host
// loop of launches, as a teaching program makes them, timed around the loop.
//   scale N LAUNCHES
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void scale(float* x, float a, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = a * x[i] + 1.0f;
}

// The process's processor time (every thread's, user and system) in ms: on a
// loaded machine it varies less than the wall clock.
double cpu_ms()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
}

int main(int argc, char** argv)
{
    const int n = argc > 1 ? std::atoi(argv[1]) : 1 << 20;
    const int launches = argc > 2 ? std::atoi(argv[2]) : 10;
    std::vector<float> x(n, 1.0f);
    float* d_x = nullptr;
    if (cudaMalloc(&d_x, n * sizeof(float)) != cudaSuccess) return 1;
    cudaMemcpy(d_x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    const double cpu_start = cpu_ms();
    const auto start = std::chrono::steady_clock::now();
    for (int k = 0; k < launches; ++k) scale<<<(n + 255) / 256, 256>>>(d_x, 0.5f, n);
    const cudaError_t e = cudaDeviceSynchronize();
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    const double cpu = cpu_ms() - cpu_start;
    cudaMemcpy(x.data(), d_x, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d_x);
    // x = 0.5 x + 1 from 1 approaches 2: after k launches 2 - 2^-k
    std::printf("program: %d launches over %d floats in %.1f ms, %.1f ms of processor time (x[0] = %.6f, %s)\n", launches, n, ms, cpu, x[0],
                e == cudaSuccess ? "ok" : cudaGetErrorString(e));
    return e == cudaSuccess ? 0 : 1;
}

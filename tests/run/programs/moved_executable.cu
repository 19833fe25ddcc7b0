// A program whose executable file is gone while it runs, as when a second
// `warplab run` of the same source (two tests at once) rebuilds the cache entry
// and moves its build over this one's name. The launch's host line must still
// come from the file this process runs, not from whatever lies at its name now.
#include <unistd.h>

#include <cstdio>

__global__ void scale(float* x, float factor, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= factor;
}

int main()
{
    char self[4096];
    const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    if (length <= 0) return 2;
    self[length] = '\0';
    if (unlink(self) != 0) return 3;  // the cache entry is built again by the next run
    const int n = 100;
    float* x;
    cudaMalloc(&x, n * sizeof(float));
    cudaMemset(x, 0, n * sizeof(float));
    scale<<<1, 128>>>(x, 2.0f, n);
    const bool ran = cudaDeviceSynchronize() == cudaSuccess;
    cudaFree(x);
    std::printf("moved_executable: %s\n", ran ? "ran" : "failed");
    return ran ? 0 : 1;
}

// Device memory owned by global objects, as C++ programs' RAII wrappers and
// singletons hold it: a buffer whose constructor calls cudaMalloc (before
// main) and whose destructor calls cudaFree (after main returns). The kernel
// writes 3 * i into its 16 ints; the host sums them: 3 * (0 + ... + 15) = 360.
// The destructor's line comes after main's: "freed: cudaSuccess".
#include <cstdio>

struct DeviceBuffer {
    int* data = nullptr;
    cudaError_t made;
    DeviceBuffer() { made = cudaMalloc(&data, 16 * sizeof(int)); }
    ~DeviceBuffer() { std::printf("freed: %s\n", cudaGetErrorName(cudaFree(data))); }
};
DeviceBuffer buffer;

__global__ void triple(int* v) { v[threadIdx.x] = 3 * threadIdx.x; }

int main()
{
    std::printf("made before main: %s\n", cudaGetErrorName(buffer.made));
    triple<<<1, 16>>>(buffer.data);
    int host[16];
    if (cudaMemcpy(host, buffer.data, sizeof host, cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
    int sum = 0;
    for (int v : host) sum += v;
    std::printf("sum %d\n", sum);
    return sum == 360 ? 0 : 1;
}

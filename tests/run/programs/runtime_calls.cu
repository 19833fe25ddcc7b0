// Runtime calls of NVIDIA's samples and newer public code, each checked:
//   cudaMemset2D: rows of 10 bytes set to 7 in a pitched 4-row allocation; the
//     pitch's padding past byte 10 stays 0 (set first): row sums 70, padding 0
//   cudaMalloc3D / cudaMemset3D: a 6 x 3 x 2 extent set to 1: 36 bytes of 1
//   cudaMallocAsync / cudaFreeAsync: 64 ints, each set to its index by a kernel
//     in the stream, summed: 0 + ... + 63 = 2016
//   cudaLaunchHostFunc / cudaStreamAddCallback: run after the stream's kernel
//     (they read the managed counter it set to 32), in order: "host function
//     saw 32", then "callback saw 32, cudaSuccess"
//   cudaPointerGetAttributes: device 2, managed 3, pinned (cudaMallocHost) 1,
//     registered 1, a stack array 0 (cudaMemoryType's values)
//   cudaHostRegister twice: cudaErrorHostMemoryAlreadyRegistered; unregistering
//     twice: cudaErrorHostMemoryNotRegistered the second time
//   cudaDeviceSetCacheConfig, cudaDeviceGetStreamPriorityRange, cudaProfilerStart/Stop: cudaSuccess
#include <cstdio>
#include <cuda_profiler_api.h>

#define CHECK(call)                                                                             \
    do {                                                                                        \
        cudaError_t e_ = (call);                                                                \
        if (e_ != cudaSuccess) {                                                                \
            std::printf("%s: %s\n", #call, cudaGetErrorName(e_));                               \
            return 1;                                                                           \
        }                                                                                       \
    } while (0)

__global__ void iota(int* v) { v[threadIdx.x] = threadIdx.x; }
__global__ void count_threads(int* c) { atomicAdd(c, 1); }

void CUDART_CB host_function(void* counter) { std::printf("host function saw %d\n", *static_cast<int*>(counter)); }
void CUDART_CB callback(cudaStream_t, cudaError_t status, void* counter)
{
    std::printf("callback saw %d, %s\n", *static_cast<int*>(counter), cudaGetErrorName(status));
}

int main()
{
    CHECK(cudaProfilerStart());
    unsigned char* rows;
    size_t pitch;
    CHECK(cudaMallocPitch((void**)&rows, &pitch, 10, 4));
    CHECK(cudaMemset(rows, 0, pitch * 4));
    CHECK(cudaMemset2D(rows, pitch, 7, 10, 4));
    unsigned char host[4][512];
    CHECK(cudaMemcpy2D(host, 512, rows, pitch, 512, 4, cudaMemcpyDeviceToHost));
    int row_sum = 0, padding = 0;
    for (int r = 0; r < 4; ++r)
        for (int b = 0; b < 512; ++b) (b < 10 ? row_sum : padding) += host[r][b];
    std::printf("memset2D: pitch %zu, row sums %d, padding %d\n", pitch, row_sum / 4, padding);
    CHECK(cudaFree(rows));

    cudaPitchedPtr box;
    const cudaExtent extent = make_cudaExtent(6, 3, 2);
    CHECK(cudaMalloc3D(&box, extent));
    CHECK(cudaMemset3D(box, 1, extent));
    int ones = 0;
    for (int z = 0; z < 2; ++z)
        for (int y = 0; y < 3; ++y) {
            unsigned char line[6];
            CHECK(cudaMemcpy(line, (char*)box.ptr + (z * 3 + y) * box.pitch, 6, cudaMemcpyDeviceToHost));
            for (unsigned char c : line) ones += c;
        }
    std::printf("memset3D: %d bytes of 1\n", ones);
    CHECK(cudaFree(box.ptr));

    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    int* v;
    CHECK(cudaMallocAsync((void**)&v, 64 * sizeof(int), s));
    iota<<<1, 64, 0, s>>>(v);
    int values[64];
    CHECK(cudaMemcpyAsync(values, v, sizeof values, cudaMemcpyDeviceToHost, s));
    CHECK(cudaFreeAsync(v, s));
    CHECK(cudaStreamSynchronize(s));
    int sum = 0;
    for (int x : values) sum += x;
    std::printf("mallocAsync: sum %d\n", sum);

    int* counter;
    CHECK(cudaMallocManaged(&counter, sizeof(int)));
    *counter = 0;
    count_threads<<<1, 32, 0, s>>>(counter);
    CHECK(cudaLaunchHostFunc(s, host_function, counter));
    CHECK(cudaStreamAddCallback(s, callback, counter, 0));
    CHECK(cudaStreamSynchronize(s));

    int* device_int;
    int* pinned;
    static int registered[16];
    int on_stack[4] = {};
    CHECK(cudaMalloc(&device_int, sizeof(int)));
    CHECK(cudaMallocHost(&pinned, sizeof(int)));
    CHECK(cudaHostRegister(registered, sizeof registered, cudaHostRegisterDefault));
    const void* pointers[5] = {device_int, counter, pinned, registered + 3, on_stack};
    std::printf("pointer types:");
    for (const void* p : pointers) {
        cudaPointerAttributes a;
        CHECK(cudaPointerGetAttributes(&a, p));
        std::printf(" %d", int(a.type));
    }
    std::printf("\n");
    std::printf("register again: %s\n", cudaGetErrorName(cudaHostRegister(registered, sizeof registered, 0)));
    cudaGetLastError();
    CHECK(cudaHostUnregister(registered));
    std::printf("unregister again: %s\n", cudaGetErrorName(cudaHostUnregister(registered)));
    cudaGetLastError();

    CHECK(cudaDeviceSetCacheConfig(cudaFuncCachePreferShared));
    int least, greatest;
    CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    std::printf("priorities: least %d, greatest %d\n", least, greatest);
    CHECK(cudaProfilerStop());
    CHECK(cudaFree(device_int));
    CHECK(cudaFree(counter));
    CHECK(cudaFreeHost(pinned));
    CHECK(cudaStreamDestroy(s));
    return 0;
}

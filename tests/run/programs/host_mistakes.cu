// The host-side mistakes students make, one per argument, each in a program
// that is otherwise right (every allocation freed, every call checked):
//   device-read   prints an element of a cudaMalloc array straight from host code
//   device-write  fills a cudaMalloc array from host code
//   after-free    reads results through a pointer it has already freed
//   host-pointer  passes a malloc'd host array to a kernel
//   leak          forgets to free one of its two arrays
//   managed       reads managed memory right after a launch, with no synchronize
// and one that is right: "reset" leaves d_out to cudaDeviceReset(), as older samples do.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CHECK(call)                                                                             \
    do {                                                                                        \
        cudaError_t e_ = (call);                                                                \
        if (e_ != cudaSuccess) {                                                                \
            std::printf("%s: %s\n", #call, cudaGetErrorName(e_));                               \
            return 1;                                                                           \
        }                                                                                       \
    } while (0)

__global__ void square(const float* in, float* out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * in[i];
}

int main(int argc, char** argv)
{
    const char* mode = argc > 1 ? argv[1] : "";
    const int n = 300;
    const size_t bytes = n * sizeof(float);
    float* host = static_cast<float*>(std::malloc(bytes));
    for (int i = 0; i < n; ++i) host[i] = 0.5f * i;
    float *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, bytes));
    CHECK(cudaMalloc(&d_out, bytes));
    CHECK(cudaMemcpy(d_in, host, bytes, cudaMemcpyHostToDevice));
    if (!std::strcmp(mode, "device-write"))
        for (int i = 0; i < n; ++i) d_in[i] = 1.0f;  // MISTAKE(device-write)
    if (!std::strcmp(mode, "managed")) {
        float* shared;
        CHECK(cudaMallocManaged(&shared, bytes));
        std::memcpy(shared, host, bytes);  // before any launch: the host's to touch
        square<<<(n + 127) / 128, 128>>>(shared, shared, n);
        CHECK(cudaGetLastError());
        std::printf("managed: shared[7] = %.2f\n", shared[7]);  // MISTAKE(managed)
        CHECK(cudaDeviceSynchronize());
        std::printf("managed after sync: shared[8] = %.2f\n", shared[8]);
        CHECK(cudaFree(shared));
    }
    square<<<(n + 127) / 128, 128>>>(!std::strcmp(mode, "host-pointer") ? host : d_in, d_out, n);  // MISTAKE(host-pointer)
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    if (!std::strcmp(mode, "device-read")) std::printf("out[10] = %.2f\n", d_out[10]);  // MISTAKE(device-read)
    if (!std::strcmp(mode, "after-free")) {
        CHECK(cudaFree(d_out));
        std::printf("out[10] = %.2f\n", d_out[10]);  // MISTAKE(after-free)
    }
    CHECK(cudaMemcpy(host, d_out, bytes, cudaMemcpyDeviceToHost));
    std::printf("%s: out[10] = %.2f\n", mode, host[10]);
    CHECK(cudaFree(d_in));
    if (!std::strcmp(mode, "reset")) CHECK(cudaDeviceReset());
    else if (std::strcmp(mode, "leak")) CHECK(cudaFree(d_out));  // MISTAKE(leak)
    std::free(host);
    return 0;
}

// What goes wrong, one case per argument: "fault" reads past the end of an array ("managed-fault"
// into managed memory, read after the synchronize), "config" launches 2048 threads a block,
// "unsupported" calls a runtime function warplab does not implement (twice). Each prints its error.
#include <cstdio>
#include <cstring>

__global__ void shift_left(const int* in, int* out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i + 1];  // the last thread reads in[n]
}

int main(int argc, char** argv)
{
    const char* which = argc > 1 ? argv[1] : "";
    const int n = 100;
    int *in, *out;
    cudaMalloc(&in, n * sizeof(int));
    cudaMalloc(&out, n * sizeof(int));
    cudaMemset(in, 0, n * sizeof(int));
    cudaError_t err = cudaSuccess;
    if (!std::strcmp(which, "fault")) {
        shift_left<<<1, 128>>>(in, out, n);
        err = cudaDeviceSynchronize();
    } else if (!std::strcmp(which, "config")) {
        shift_left<<<1, 2048>>>(in, out, n);
        err = cudaGetLastError();
        std::printf("after it: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));  // not sticky
    } else if (!std::strcmp(which, "managed-fault")) {
        int* shifted;
        cudaMallocManaged(&shifted, n * sizeof(int));
        shift_left<<<1, 128>>>(in, shifted, n);
        err = cudaDeviceSynchronize();  // the fault, and the kernel has ended
        const int first = *static_cast<volatile int*>(shifted);  // read, whatever it holds
        std::printf("read after it: %s\n", first == 0 || first != 0 ? "yes" : "");
    } else if (!std::strcmp(which, "unsupported")) {
        cudaGraph_t graph;
        cudaGraphCreate(&graph, 0);
        err = cudaGraphCreate(&graph, 0);
    }
    std::printf("%s: %s (%s)\n", which, cudaGetErrorName(err), cudaGetErrorString(err));
    cudaFree(in);  // after a kernel fault these fail too: the context is lost, as on a GPU
    cudaFree(out);
    return err == cudaSuccess ? 0 : 1;
}

// An inclusive scan in three kernels, as Kirk and Hwu's "Programming
// Massively Parallel Processors" builds a hierarchical one: a Brent-Kung scan
// of each section of 2 * blockDim elements (keeping each section's sum), a
// Kogge-Stone scan of those sums in one block, and the sums added back.
// expect exit: 0
// expect stdout: ^scan: 12345 elements in 25 sections, last -?[0-9]+, correct
#include <cstdio>
#include <cstdlib>
#include <vector>

#define SECTION_SIZE 512  // two elements a thread: 256 threads a block
#define MAX_SECTIONS 64   // the Kogge-Stone block scans at most this many sums

#define CHECK(call)                                                                         \
    {                                                                                       \
        const cudaError_t error = call;                                                     \
        if (error != cudaSuccess) {                                                         \
            printf("Error: %s:%d, code: %d, reason: %s\n", __FILE__, __LINE__, error,       \
                   cudaGetErrorString(error));                                              \
            exit(1);                                                                        \
        }                                                                                   \
    }

__global__ void Brent_Kung_scan_kernel(const int* X, int* Y, int* S, unsigned int N)
{
    __shared__ int XY[SECTION_SIZE];
    const unsigned int i = 2 * blockIdx.x * blockDim.x + threadIdx.x;
    XY[threadIdx.x] = i < N ? X[i] : 0;
    XY[threadIdx.x + blockDim.x] = i + blockDim.x < N ? X[i + blockDim.x] : 0;
    for (unsigned int stride = 1; stride <= blockDim.x; stride *= 2) {  // the reduction tree
        __syncthreads();
        const unsigned int index = (threadIdx.x + 1) * 2 * stride - 1;
        if (index < SECTION_SIZE) XY[index] += XY[index - stride];
    }
    for (unsigned int stride = SECTION_SIZE / 4; stride > 0; stride /= 2) {  // the distribution tree
        __syncthreads();
        const unsigned int index = (threadIdx.x + 1) * stride * 2 - 1;
        if (index + stride < SECTION_SIZE) XY[index + stride] += XY[index];
    }
    __syncthreads();
    if (i < N) Y[i] = XY[threadIdx.x];
    if (i + blockDim.x < N) Y[i + blockDim.x] = XY[threadIdx.x + blockDim.x];
    if (threadIdx.x == blockDim.x - 1) S[blockIdx.x] = XY[SECTION_SIZE - 1];
}

__global__ void Kogge_Stone_scan_kernel(int* S, unsigned int N)
{
    __shared__ int XY[MAX_SECTIONS];
    XY[threadIdx.x] = threadIdx.x < N ? S[threadIdx.x] : 0;
    for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
        __syncthreads();
        int temp = 0;
        if (threadIdx.x >= stride) temp = XY[threadIdx.x] + XY[threadIdx.x - stride];
        __syncthreads();  // every read of this step before any write
        if (threadIdx.x >= stride) XY[threadIdx.x] = temp;
    }
    __syncthreads();
    if (threadIdx.x < N) S[threadIdx.x] = XY[threadIdx.x];
}

__global__ void add_section_sums_kernel(int* Y, const int* S, unsigned int N)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned int section = i / SECTION_SIZE;
    if (section > 0 && i < N) Y[i] += S[section - 1];
}

int main()
{
    const unsigned int N = 12345;
    const unsigned int sections = (N + SECTION_SIZE - 1) / SECTION_SIZE;  // 25
    std::vector<int> X(N), Y(N);
    srand(5);
    for (int& x : X) x = rand() % 201 - 100;
    int *X_d, *Y_d, *S_d;
    CHECK(cudaMalloc(&X_d, N * sizeof(int)));
    CHECK(cudaMalloc(&Y_d, N * sizeof(int)));
    CHECK(cudaMalloc(&S_d, sections * sizeof(int)));
    CHECK(cudaMemcpy(X_d, X.data(), N * sizeof(int), cudaMemcpyHostToDevice));
    Brent_Kung_scan_kernel<<<sections, SECTION_SIZE / 2>>>(X_d, Y_d, S_d, N);
    CHECK(cudaGetLastError());
    Kogge_Stone_scan_kernel<<<1, 32>>>(S_d, sections);  // one warp covers the 25 section sums
    CHECK(cudaGetLastError());
    add_section_sums_kernel<<<(N + 255) / 256, 256>>>(Y_d, S_d, N);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(Y.data(), Y_d, N * sizeof(int), cudaMemcpyDeviceToHost));
    int errors = 0, running = 0;
    for (unsigned int i = 0; i < N; i++) {
        running += X[i];
        errors += Y[i] != running;
    }
    printf("scan: %u elements in %u sections, last %d, %s\n", N, sections, Y[N - 1], errors ? "WRONG" : "correct");
    CHECK(cudaFree(X_d));
    CHECK(cudaFree(Y_d));
    CHECK(cudaFree(S_d));
    return errors ? 1 : 0;
}

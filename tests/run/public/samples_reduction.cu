// A parallel sum as NVIDIA's CUDA samples write their reduction kernels: the
// block size a template parameter (a switch picks the instance), shared memory
// through the SharedMemory<T> struct over `extern __shared__`, several
// elements a thread in a grid-stride loop, the tree in shared memory, and the
// last warp by shuffles in a cooperative-groups tile.
// expect exit: 0
// expect stdout: reduce6<int>: 16384 elements, 8 blocks of 256, correct
// expect stdout: reduce6<int>: 10007 elements, 12 blocks of 64, correct
// expect stdout: reduce6<double>: 3001 elements, 5 blocks of 256, correct
// expect stdout: reduction: PASS
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define checkCudaErrors(val) check((val), #val, __FILE__, __LINE__)
template <typename T>
void check(T result, char const* const func, const char* const file, int const line)
{
    if (result) {
        fprintf(stderr, "CUDA error at %s:%d code=%d(%s) \"%s\" \n", file, line, static_cast<unsigned int>(result),
                cudaGetErrorName(result), func);
        exit(EXIT_FAILURE);
    }
}

// Dynamically sized shared memory of any type: an `extern __shared__` array
// of another name for each type would clash, so one int array is cast.
template <class T>
struct SharedMemory {
    __device__ inline operator T*()
    {
        extern __shared__ int __smem[];
        return (T*)__smem;
    }
    __device__ inline operator const T*() const
    {
        extern __shared__ int __smem[];
        return (T*)__smem;
    }
};

// The double version, 8-byte aligned.
template <>
struct SharedMemory<double> {
    __device__ inline operator double*()
    {
        extern __shared__ double __smem_d[];
        return (double*)__smem_d;
    }
    __device__ inline operator const double*() const
    {
        extern __shared__ double __smem_d[];
        return (double*)__smem_d;
    }
};

template <class T, unsigned int blockSize, bool nIsPow2>
__global__ void reduce6(const T* g_idata, T* g_odata, unsigned int n)
{
    cg::thread_block cta = cg::this_thread_block();
    T* sdata = SharedMemory<T>();
    const unsigned int tid = threadIdx.x;
    const unsigned int gridSize = blockSize * 2 * gridDim.x;
    T mySum = 0;
    if (nIsPow2) {  // two elements a step: the grid's threads come in pairs over n
        unsigned int i = blockIdx.x * blockSize * 2 + threadIdx.x;
        while (i < n) {
            mySum += g_idata[i];
            if (i + blockSize < n) mySum += g_idata[i + blockSize];
            i += gridSize;
        }
    } else {
        unsigned int i = blockIdx.x * blockSize + threadIdx.x;
        while (i < n) {
            mySum += g_idata[i];
            i += blockSize * gridDim.x;
        }
    }
    sdata[tid] = mySum;
    cg::sync(cta);

    if ((blockSize >= 512) && (tid < 256)) sdata[tid] = mySum = mySum + sdata[tid + 256];
    cg::sync(cta);
    if ((blockSize >= 256) && (tid < 128)) sdata[tid] = mySum = mySum + sdata[tid + 128];
    cg::sync(cta);
    if ((blockSize >= 128) && (tid < 64)) sdata[tid] = mySum = mySum + sdata[tid + 64];
    cg::sync(cta);

    cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(cta);
    if (cta.thread_rank() < 32) {
        if (blockSize >= 64) mySum += sdata[tid + 32];
        for (int offset = tile32.size() / 2; offset > 0; offset /= 2) mySum += tile32.shfl_down(mySum, offset);
    }
    if (cta.thread_rank() == 0) g_odata[blockIdx.x] = mySum;
}

template <class T>
void reduce(int size, int threads, int blocks, const T* d_idata, T* d_odata)
{
    dim3 dimBlock(threads, 1, 1), dimGrid(blocks, 1, 1);
    const int smemSize = (threads <= 32) ? 2 * threads * sizeof(T) : threads * sizeof(T);
    const bool pow2 = (size & (size - 1)) == 0;
    switch (threads) {
    case 256:
        if (pow2) reduce6<T, 256, true><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size);
        else reduce6<T, 256, false><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size);
        break;
    case 64:
        if (pow2) reduce6<T, 64, true><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size);
        else reduce6<T, 64, false><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size);
        break;
    }
}

template <class T>
bool run_test(const char* type, int size, int threads, int blocks)
{
    std::vector<T> h_idata(size), h_odata(blocks);
    T expected = 0;
    for (int i = 0; i < size; i++) {
        h_idata[i] = (T)(rand() & 0xFF) / (sizeof(T) == sizeof(int) ? 1 : 4);  // quarters: every double sum exact
        expected += h_idata[i];
    }
    T *d_idata, *d_odata;
    checkCudaErrors(cudaMalloc((void**)&d_idata, size * sizeof(T)));
    checkCudaErrors(cudaMalloc((void**)&d_odata, blocks * sizeof(T)));
    checkCudaErrors(cudaMemcpy(d_idata, h_idata.data(), size * sizeof(T), cudaMemcpyHostToDevice));
    reduce<T>(size, threads, blocks, d_idata, d_odata);
    checkCudaErrors(cudaGetLastError());
    checkCudaErrors(cudaMemcpy(h_odata.data(), d_odata, blocks * sizeof(T), cudaMemcpyDeviceToHost));
    T gpu_result = 0;
    for (int i = 0; i < blocks; i++) gpu_result += h_odata[i];  // the block sums added on the host, as the samples' default
    checkCudaErrors(cudaFree(d_idata));
    checkCudaErrors(cudaFree(d_odata));
    printf("reduce6<%s>: %d elements, %d blocks of %d, %s\n", type, size, blocks, threads, gpu_result == expected ? "correct" : "WRONG");
    return gpu_result == expected;
}

int main(int argc, char** argv)
{
    srand(2019);
    bool ok = run_test<int>("int", 1 << 14, 256, 8);             // a power of two: the paired loop
    ok = run_test<int>("int", 10007, 64, 12) && ok;              // the plain loop, a partial last pass
    ok = run_test<double>("double", 3001, 256, 5) && ok;         // SharedMemory<double>
    printf("reduction: %s\n", ok ? "PASS" : "FAIL");
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}

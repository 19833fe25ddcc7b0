// A sum in a single pass, as NVIDIA's CUDA samples' threadFenceReduction does
// it: each block writes its partial sum, makes it visible with
// __threadfence(), and takes a ticket from a global counter (atomicInc); the
// block with the last ticket adds all partial sums and resets the counter for
// the next launch.
// expect exit: 0
// expect stdout: ^launch 1: sum 630235, expected 630235
// expect stdout: launch 2: sum 630235, expected 630235
// expect stdout: threadFenceReduction: PASS
#include <cstdio>
#include <cstdlib>
#include <vector>

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

__device__ unsigned int retirementCount = 0;

// The sum of a block's values in shared memory; every thread gets it.
template <unsigned int blockSize>
__device__ float reduceBlock(volatile float* sdata, float mySum, const unsigned int tid)
{
    sdata[tid] = mySum;
    __syncthreads();
    for (unsigned int s = blockSize / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] = mySum = mySum + sdata[tid + s];
        __syncthreads();
    }
    return sdata[0];
}

template <unsigned int blockSize>
__global__ void reduceSinglePass(const float* g_idata, float* g_odata, unsigned int n)
{
    __shared__ float sdata[blockSize];
    const unsigned int tid = threadIdx.x;
    float mySum = 0;
    for (unsigned int i = blockIdx.x * blockSize + tid; i < n; i += blockSize * gridDim.x) mySum += g_idata[i];
    mySum = reduceBlock<blockSize>(sdata, mySum, tid);
    if (tid == 0) g_odata[blockIdx.x] = mySum;

    if (gridDim.x > 1) {
        __shared__ bool amLast;
        // The partial sum must be visible to every block before this block takes its ticket.
        __threadfence();
        if (tid == 0) {
            const unsigned int ticket = atomicInc(&retirementCount, gridDim.x);
            amLast = (ticket == gridDim.x - 1);
        }
        __syncthreads();
        if (amLast) {
            float total = 0;
            for (unsigned int i = tid; i < gridDim.x; i += blockSize) total += g_odata[i];
            total = reduceBlock<blockSize>(sdata, total, tid);
            if (tid == 0) {
                g_odata[0] = total;
                retirementCount = 0;  // ready for the next launch
            }
        }
    }
}

int main(int argc, char** argv)
{
    const unsigned int n = 20000;
    const int threads = 128, blocks = 24;
    std::vector<float> h_idata(n);
    srand(8);
    double expected = 0;
    for (unsigned int i = 0; i < n; i++) {
        h_idata[i] = (float)(rand() % 64);  // integers: every partial sum is exact in float (below 2^24)
        expected += h_idata[i];
    }
    float *d_idata, *d_odata;
    checkCudaErrors(cudaMalloc((void**)&d_idata, n * sizeof(float)));
    checkCudaErrors(cudaMalloc((void**)&d_odata, blocks * sizeof(float)));
    checkCudaErrors(cudaMemcpy(d_idata, h_idata.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    bool ok = true;
    for (int launch = 0; launch < 2; launch++) {  // the second launch finds the counter reset
        checkCudaErrors(cudaMemset(d_odata, 0, blocks * sizeof(float)));
        reduceSinglePass<threads><<<blocks, threads>>>(d_idata, d_odata, n);
        checkCudaErrors(cudaGetLastError());
        float gpu_result = 0;
        checkCudaErrors(cudaMemcpy(&gpu_result, d_odata, sizeof(float), cudaMemcpyDeviceToHost));
        ok = ok && gpu_result == expected;
        printf("launch %d: sum %.0f, expected %.0f\n", launch + 1, gpu_result, expected);
    }
    printf("threadFenceReduction: %s\n", ok ? "PASS" : "FAIL");
    checkCudaErrors(cudaFree(d_idata));
    checkCudaErrors(cudaFree(d_odata));
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}

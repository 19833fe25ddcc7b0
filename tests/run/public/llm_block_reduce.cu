// Normalisation of rows (zero mean, unit variance), a block a row, with the
// block reduction llm.c keeps for its kernels: each warp reduces by shuffles,
// its lane 0 puts the warp's value in one __shared__ array of the function,
// and every warp reduces those. Called twice in a row (the mean, then the
// variance) the second call rewrites that array, so the first call is told
// to end with a barrier (final_sync): no thread writes it again before every
// thread has read it.
// expect exit: 0
// expect stdout: ^normalize_rows: 5 rows of 300, correct
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define WARP_SIZE 32U

void cuda_check(cudaError_t error, const char* file, int line)
{
    if (error != cudaSuccess) {
        std::printf("[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
        std::exit(EXIT_FAILURE);
    }
}
#define cudaCheck(err) (cuda_check(err, __FILE__, __LINE__))

__device__ inline float warpReduceSum(float val)
{
    for (int offset = 16; offset > 0; offset /= 2) val += __shfl_xor_sync(0xFFFFFFFF, val, offset);
    return val;
}

template <float (*warp_reduction)(float)>
__device__ inline float blockReduce(float val, bool final_sync = false, float out_of_bounds = 0.0f)
{
    __shared__ float shared_val[WARP_SIZE];  // one array for every call of this instance
    const int lane_id = threadIdx.x % WARP_SIZE;
    const int warp_id = threadIdx.x / WARP_SIZE;
    const int num_warps = blockDim.x / WARP_SIZE;
    float warp_val = warp_reduction(val);
    if (lane_id == 0) shared_val[warp_id] = warp_val;
    __syncthreads();
    warp_val = (lane_id < num_warps) ? shared_val[lane_id] : out_of_bounds;
    const float block_val = warp_reduction(warp_val);
    if (final_sync) __syncthreads();  // before a later call's write
    return block_val;
}

__global__ void normalize_rows_kernel(float* __restrict__ out, const float* __restrict__ inp, int C)
{
    const float* x = inp + blockIdx.x * C;
    float sum = 0.0f;
    for (int i = threadIdx.x; i < C; i += blockDim.x) sum += x[i];
#ifdef NO_FINAL_SYNC
    const float mean = blockReduce<warpReduceSum>(sum) / C;
#else
    const float mean = blockReduce<warpReduceSum>(sum, true) / C;
#endif
    float sq = 0.0f;
    for (int i = threadIdx.x; i < C; i += blockDim.x) sq += (x[i] - mean) * (x[i] - mean);
    const float rstd = rsqrtf(blockReduce<warpReduceSum>(sq) / C + 1e-5f);
    for (int i = threadIdx.x; i < C; i += blockDim.x) out[blockIdx.x * C + i] = (x[i] - mean) * rstd;
}

int main()
{
    const int N = 5, C = 300;
    std::vector<float> inp(N * C), out(N * C);
    srand(77);
    for (float& v : inp) v = (float)rand() / RAND_MAX * 6.0f - 2.0f;
    float *d_inp, *d_out;
    cudaCheck(cudaMalloc(&d_inp, N * C * sizeof(float)));
    cudaCheck(cudaMalloc(&d_out, N * C * sizeof(float)));
    cudaCheck(cudaMemcpy(d_inp, inp.data(), N * C * sizeof(float), cudaMemcpyHostToDevice));
    normalize_rows_kernel<<<N, 128>>>(d_out, d_inp, C);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(out.data(), d_out, N * C * sizeof(float), cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int r = 0; r < N; r++) {
        double m = 0.0, v = 0.0;
        for (int c = 0; c < C; c++) m += inp[r * C + c];
        m /= C;
        for (int c = 0; c < C; c++) v += (inp[r * C + c] - m) * (inp[r * C + c] - m);
        const double s = 1.0 / std::sqrt(v / C + 1e-5);
        for (int c = 0; c < C; c++) wrong += std::fabs(out[r * C + c] - (inp[r * C + c] - m) * s) > 1e-4;
    }
    std::printf("normalize_rows: %d rows of %d, %s\n", N, C, wrong ? "WRONG" : "correct");
    cudaCheck(cudaFree(d_inp));
    cudaCheck(cudaFree(d_out));
    return wrong ? 1 : 0;
}

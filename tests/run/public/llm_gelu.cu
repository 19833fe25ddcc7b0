// GELU (tanh approximation) forward, as llm.c writes its elementwise kernels:
// 128-bit packed loads and stores through a Packed128 type (__ldcs/__stcs:
// streamed, read once), one pack of four floats a thread, a scalar tail.
// expect exit: 0
// expect stdout: ^gelu_forward: 4003 elements, correct
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

void cuda_check(cudaError_t error, const char* file, int line)
{
    if (error != cudaSuccess) {
        std::printf("[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
        std::exit(EXIT_FAILURE);
    }
}
#define cudaCheck(err) (cuda_check(err, __FILE__, __LINE__))

// 16 bytes of elements, moved as one int4.
template <class ElementType>
struct alignas(16) Packed128 {
    static constexpr int size = sizeof(int4) / sizeof(ElementType);
    ElementType payload[size];
    Packed128() = default;
    __device__ explicit Packed128(int4 bits) { memcpy(&payload, &bits, sizeof(bits)); }
    __device__ ElementType& operator[](int index) { return payload[index]; }
    __device__ int4 get_bits() const
    {
        int4 bits;
        memcpy(&bits, &payload, sizeof(bits));
        return bits;
    }
};
typedef Packed128<float> f128;

template <class ElementType>
__device__ Packed128<ElementType> load128cs(const ElementType* address)
{
    return Packed128<ElementType>{__ldcs(reinterpret_cast<const int4*>(address))};
}
template <class ElementType>
__device__ void store128cs(ElementType* target, Packed128<ElementType> value)
{
    __stcs(reinterpret_cast<int4*>(target), value.get_bits());
}

#define GELU_SCALING_FACTOR sqrtf(2.0f / M_PI)

__device__ float gelu(float xi)
{
    const float cube = 0.044715f * xi * xi * xi;
    return 0.5f * xi * (1.0f + tanhf(GELU_SCALING_FACTOR * (xi + cube)));
}

__global__ void gelu_forward_kernel(float* out, const float* inp, int N)
{
    const int idx = (blockIdx.x * blockDim.x + threadIdx.x) * f128::size;
    if (idx + f128::size <= N) {
        f128 packed_inp = load128cs(inp + idx);
        f128 packed_out;
        for (int k = 0; k < f128::size; ++k) packed_out[k] = gelu(packed_inp[k]);
        store128cs(out + idx, packed_out);
    } else {
        for (int i = idx; i < N; ++i) out[i] = gelu(inp[i]);  // the last pack's threads: fewer than four left
    }
}

int main()
{
    const int N = 4 * 1000 + 3;
    std::vector<float> inp(N), out(N);
    srand(7);
    for (float& v : inp) v = (float)rand() / RAND_MAX * 10.0f - 5.0f;
    float *d_inp, *d_out;
    cudaCheck(cudaMalloc(&d_inp, N * sizeof(float)));
    cudaCheck(cudaMalloc(&d_out, N * sizeof(float)));
    cudaCheck(cudaMemcpy(d_inp, inp.data(), N * sizeof(float), cudaMemcpyHostToDevice));
    const int block_size = 128;
    const int packs = (N + f128::size - 1) / f128::size;
    gelu_forward_kernel<<<(packs + block_size - 1) / block_size, block_size>>>(d_out, d_inp, N);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(out.data(), d_out, N * sizeof(float), cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int i = 0; i < N; i++) {
        const double x = inp[i];
        const double ref = 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
        if (std::fabs(out[i] - ref) > 1e-5 + 1e-5 * std::fabs(ref) && wrong++ < 5)
            std::printf("mismatch at %d: %f vs %f\n", i, out[i], ref);
    }
    std::printf("gelu_forward: %d elements, %s\n", N, wrong ? "WRONG" : "correct");
    cudaCheck(cudaFree(d_inp));
    cudaCheck(cudaFree(d_out));
    return wrong ? 1 : 0;
}

// The shift copy of "Optimizing CUDA" (out[i] = in[i + shift]) read three
// ways: a plain load, __ldg (the read-only data cache) and tex1Dfetch through a
// texture object over the same linear memory (texture references are gone
// since CUDA 12). A fetch past the texture's end reads 0, so the texture
// version needs no bounds test; the other two test i + shift < n.
// Arguments: [n [shift]]; -D SHORT_TEXTURE makes the texture 5 elements short.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CUDA_CHECK(call)                                                                        \
    do {                                                                                        \
        cudaError_t err_ = (call);                                                              \
        if (err_ != cudaSuccess) {                                                              \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));  \
            std::exit(1);                                                                       \
        }                                                                                       \
    } while (0)

__global__ void shift_copy(const float* in, float* out, int n, int shift)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = i + shift < n ? in[i + shift] : 0.0f;
}

__global__ void shift_copy_ldg(const float* __restrict__ in, float* __restrict__ out, int n, int shift)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = i + shift < n ? __ldg(&in[i + shift]) : 0.0f;
}

__global__ void shift_copy_tex(cudaTextureObject_t in, float* out, int n, int shift)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<float>(in, i + shift);
}

int main(int argc, char** argv)
{
    const int n = argc > 1 ? std::atoi(argv[1]) : 4099;
    const int shift = argc > 2 ? std::atoi(argv[2]) : 3;
    std::vector<float> in(n), expected(n), out(n);
    srand(7);
    for (int i = 0; i < n; ++i) in[i] = float(rand() % 1000) / 8.0f;
    for (int i = 0; i < n; ++i) expected[i] = i + shift < n ? in[i + shift] : 0.0f;

    float *d_in, *d_out;
    CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(float), cudaMemcpyHostToDevice));

    cudaResourceDesc resource;
    std::memset(&resource, 0, sizeof resource);
    resource.resType = cudaResourceTypeLinear;
    resource.res.linear.devPtr = d_in;
    resource.res.linear.desc = cudaCreateChannelDesc<float>();
#ifdef SHORT_TEXTURE
    resource.res.linear.sizeInBytes = (n - 5) * sizeof(float);
#else
    resource.res.linear.sizeInBytes = n * sizeof(float);
#endif
    cudaTextureDesc description;
    std::memset(&description, 0, sizeof description);
    description.readMode = cudaReadModeElementType;
    cudaTextureObject_t texture = 0;
    CUDA_CHECK(cudaCreateTextureObject(&texture, &resource, &description, nullptr));

    const int threads = 256, blocks = (n + threads - 1) / threads;
    const char* names[3] = {"plain", "__ldg", "tex1Dfetch"};
    bool all_right = true;
    std::printf("shift copy: %d elements, shift %d:", n, shift);
    for (int version = 0; version < 3; ++version) {
        CUDA_CHECK(cudaMemset(d_out, 0xFF, n * sizeof(float)));
        if (version == 0) shift_copy<<<blocks, threads>>>(d_in, d_out, n, shift);
        if (version == 1) shift_copy_ldg<<<blocks, threads>>>(d_in, d_out, n, shift);
        if (version == 2) shift_copy_tex<<<blocks, threads>>>(texture, d_out, n, shift);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
        int wrong = 0;
        for (int i = 0; i < n; ++i) wrong += out[i] != expected[i];
        std::printf(" %s %s", names[version], wrong ? "WRONG" : "correct");
        all_right = all_right && wrong == 0;
    }
    std::printf("\n");
    CUDA_CHECK(cudaDestroyTextureObject(texture));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    return all_right ? 0 : 1;
}

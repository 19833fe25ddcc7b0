// Device function pointers as NVIDIA's FunctionPointers sample uses them: a
// __device__ variable initialised with a device function's address, copied to
// the host with cudaMemcpyFromSymbol and passed back to a kernel as an
// argument; beside it a __device__ table of such pointers indexed in the
// kernel. Each point operation on a small greyscale image is checked.
// expect exit: 0
// expect stdout: ^point operations on 45x31 pixels: threshold correct, invert correct, brighten correct
#include <cstdio>
#include <cstdlib>
#include <vector>

#define checkCudaErrors(val)                                                                   \
    do {                                                                                        \
        cudaError_t err = (val);                                                                \
        if (err != cudaSuccess) {                                                               \
            fprintf(stderr, "CUDA error at %s:%d: %s (%s)\n", __FILE__, __LINE__, cudaGetErrorString(err), #val); \
            exit(EXIT_FAILURE);                                                                 \
        }                                                                                       \
    } while (0)

typedef unsigned char (*pointFunction_t)(unsigned char, float);

__device__ unsigned char Threshold(unsigned char in, float thresh) { return in > thresh ? 255 : 0; }
__device__ unsigned char Invert(unsigned char in, float) { return 255 - in; }
__device__ unsigned char Brighten(unsigned char in, float amount) { return (unsigned char)min(255.0f, in + amount); }

__device__ pointFunction_t pComputeThreshold = Threshold;                // read by the host
__device__ pointFunction_t pointTable[3] = {Threshold, Invert, Brighten};  // indexed by the kernel

__global__ void PointKernel(const unsigned char* in, unsigned char* out, int w, int h, pointFunction_t fn, float param)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) out[y * w + x] = fn(in[y * w + x], param);
}

__global__ void PointKernelByIndex(const unsigned char* in, unsigned char* out, int w, int h, int which, float param)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) out[y * w + x] = pointTable[which](in[y * w + x], param);
}

unsigned char reference(int which, unsigned char in, float param)
{
    if (which == 0) return in > param ? 255 : 0;
    if (which == 1) return 255 - in;
    return (unsigned char)(in + param > 255.0f ? 255.0f : in + param);
}

int main()
{
    const int w = 45, h = 31;
    const float params[3] = {100.0f, 0.0f, 60.0f};
    const char* names[3] = {"threshold", "invert", "brighten"};
    std::vector<unsigned char> image(w * h), result(w * h);
    for (int i = 0; i < w * h; i++) image[i] = (unsigned char)((i * 37 + i / w * 11) % 256);
    unsigned char *d_in, *d_out;
    checkCudaErrors(cudaMalloc(&d_in, w * h));
    checkCudaErrors(cudaMalloc(&d_out, w * h));
    checkCudaErrors(cudaMemcpy(d_in, image.data(), w * h, cudaMemcpyHostToDevice));
    pointFunction_t h_pointFunction;
    checkCudaErrors(cudaMemcpyFromSymbol(&h_pointFunction, pComputeThreshold, sizeof(pointFunction_t)));
    dim3 block(16, 8), grid((w + 15) / 16, (h + 7) / 8);
    printf("point operations on %dx%d pixels:", w, h);
    bool ok = true;
    for (int which = 0; which < 3; which++) {
        if (which == 0)
            PointKernel<<<grid, block>>>(d_in, d_out, w, h, h_pointFunction, params[0]);
        else
            PointKernelByIndex<<<grid, block>>>(d_in, d_out, w, h, which, params[which]);
        checkCudaErrors(cudaGetLastError());
        checkCudaErrors(cudaMemcpy(result.data(), d_out, w * h, cudaMemcpyDeviceToHost));
        int wrong = 0;
        for (int i = 0; i < w * h; i++) wrong += result[i] != reference(which, image[i], params[which]);
        printf("%s %s %s", which ? "," : "", names[which], wrong ? "WRONG" : "correct");
        ok = ok && wrong == 0;
    }
    printf("\n");
    checkCudaErrors(cudaFree(d_in));
    checkCudaErrors(cudaFree(d_out));
    return ok ? 0 : 1;
}

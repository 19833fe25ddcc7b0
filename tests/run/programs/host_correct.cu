// A right program that uses the host-side runtime the way textbook programs
// do, and must draw no message from warplab: a three-launch scan in the
// Kirk-Hwu manner (scan each section, scan the section sums, add them back)
// over pinned host memory timed with events, a matrix copied in and out of
// pitched device memory with cudaMemcpy2D, and a managed array read on the
// host only after a synchronize.
#include <cstdio>
#include <vector>

#define SECTION 256

#define CHECK(call)                                                                             \
    do {                                                                                        \
        cudaError_t e_ = (call);                                                                \
        if (e_ != cudaSuccess) {                                                                \
            std::printf("%s: %s\n", #call, cudaGetErrorName(e_));                               \
            return 1;                                                                           \
        }                                                                                       \
    } while (0)

// Kogge-Stone within a section; the section's total goes to sums.
__global__ void scan_sections(const int* x, int* y, int* sums, unsigned n)
{
    __shared__ int xy[SECTION];
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    xy[threadIdx.x] = i < n ? x[i] : 0;
    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        __syncthreads();
        const int before = threadIdx.x >= stride ? xy[threadIdx.x - stride] : 0;
        __syncthreads();
        xy[threadIdx.x] += before;
    }
    if (i < n) y[i] = xy[threadIdx.x];
    if (sums && threadIdx.x == blockDim.x - 1) sums[blockIdx.x] = xy[threadIdx.x];
}

__global__ void add_sums(int* y, const int* scanned_sums, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (blockIdx.x > 0 && i < n) y[i] += scanned_sums[blockIdx.x - 1];
}

__global__ void scale_rows(float* m, size_t pitch, int width, int height, float by)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col < width && row < height) reinterpret_cast<float*>(reinterpret_cast<char*>(m) + row * pitch)[col] *= by;
}

__global__ void count_up(int* counts, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) counts[i] += i;
}

int scan()
{
    const unsigned n = 50000, sections = (n + SECTION - 1) / SECTION;  // 196 sections, the last of 80
    int *x, *y;
    CHECK(cudaMallocHost(&x, n * sizeof(int)));
    CHECK(cudaMallocHost(&y, n * sizeof(int)));
    unsigned seed = 2024;
    for (unsigned i = 0; i < n; ++i) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = int(seed >> 24) - 128;
    }
    int *d_x, *d_y, *d_sums;
    CHECK(cudaMalloc(&d_x, n * sizeof(int)));
    CHECK(cudaMalloc(&d_y, n * sizeof(int)));
    CHECK(cudaMalloc(&d_sums, sections * sizeof(int)));
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start));
    CHECK(cudaMemcpyAsync(d_x, x, n * sizeof(int), cudaMemcpyHostToDevice));
    scan_sections<<<sections, SECTION>>>(d_x, d_y, d_sums, n);
    scan_sections<<<1, SECTION>>>(d_sums, d_sums, nullptr, sections);
    add_sums<<<sections, SECTION>>>(d_y, d_sums, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(y, d_y, n * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = -1;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    long long running = 0;
    unsigned wrong = 0;
    for (unsigned i = 0; i < n; ++i) wrong += y[i] != (running += x[i]);
    std::printf("scan: %u elements in %u sections, %u wrong, timed: %s\n", n, sections, wrong, ms >= 0 ? "yes" : "no");
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_y));
    CHECK(cudaFree(d_sums));
    CHECK(cudaFreeHost(x));
    CHECK(cudaFreeHost(y));
    return wrong ? 1 : 0;
}

int matrix()
{
    const int width = 37, height = 11;
    std::vector<float> m(width * height);
    for (int i = 0; i < width * height; ++i) m[i] = float(i % 13);
    float* d_m;
    size_t pitch = 0;
    CHECK(cudaMallocPitch(reinterpret_cast<void**>(&d_m), &pitch, width * sizeof(float), height));
    CHECK(cudaMemcpy2D(d_m, pitch, m.data(), width * sizeof(float), width * sizeof(float), height, cudaMemcpyHostToDevice));
    scale_rows<<<dim3((width + 15) / 16, (height + 15) / 16), dim3(16, 16)>>>(d_m, pitch, width, height, 3.0f);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy2D(m.data(), width * sizeof(float), d_m, pitch, width * sizeof(float), height, cudaMemcpyDeviceToHost));
    unsigned wrong = 0;
    for (int i = 0; i < width * height; ++i) wrong += m[i] != 3.0f * float(i % 13);
    std::printf("matrix: %dx%d, pitch %zu bytes, %u wrong\n", width, height, pitch, wrong);
    CHECK(cudaFree(d_m));
    return wrong ? 1 : 0;
}

int managed()
{
    const int n = 1000;
    int* counts;
    CHECK(cudaMallocManaged(&counts, n * sizeof(int)));
    for (int i = 0; i < n; ++i) counts[i] = 1;
    count_up<<<(n + 255) / 256, 256>>>(counts, n);
    CHECK(cudaDeviceSynchronize());
    long long total = 0;
    for (int i = 0; i < n; ++i) total += counts[i];
    std::printf("managed: total %lld\n", total);  // 1000 + 999 * 1000 / 2 = 500500
    CHECK(cudaFree(counts));
    return total == 500500 ? 0 : 1;
}

int main() { return scan() | matrix() | managed(); }

// A histogram of letters with the bin of each byte in a __constant__ table
// (set by cudaMemcpyToSymbol), bins counted in shared memory first.
#include <cstdio>
#include <cstring>

constexpr int kBins = 4;  // vowels, other letters, digits, the rest
__constant__ unsigned char bin_of[256];

__global__ void histogram(const unsigned char* text, int n, unsigned* bins)
{
    __shared__ unsigned local[kBins];
    if (threadIdx.x < kBins) local[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[bin_of[text[i]]], 1u);
    __syncthreads();
    if (threadIdx.x < kBins) atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

int main()
{
    unsigned char table[256];
    for (int c = 0; c < 256; ++c) {
        const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        table[c] = std::strchr("aeiouAEIOU", c) && c ? 0 : letter ? 1 : (c >= '0' && c <= '9') ? 2 : 3;
    }
    cudaMemcpyToSymbol(bin_of, table, sizeof table);
    const char* text = "Warp 32 lanes, 4 warps: 128 threads in each block of the Grid.";
    const int n = int(std::strlen(text));
    unsigned expected[kBins] = {};
    for (int i = 0; i < n; ++i) ++expected[table[(unsigned char)text[i]]];
    unsigned char* d_text;
    unsigned* d_bins;
    cudaMalloc(&d_text, n);
    cudaMalloc(&d_bins, kBins * sizeof(unsigned));
    cudaMemcpy(d_text, text, n, cudaMemcpyHostToDevice);
    cudaMemset(d_bins, 0, kBins * sizeof(unsigned));
    histogram<<<2, 32>>>(d_text, n, d_bins);
    unsigned bins[kBins];
    cudaMemcpy(bins, d_bins, sizeof bins, cudaMemcpyDeviceToHost);
    const bool ok = std::memcmp(bins, expected, sizeof bins) == 0;
    std::printf("histogram: vowels %u, other letters %u, digits %u, rest %u: %s\n", bins[0], bins[1], bins[2], bins[3],
                ok ? "correct" : "WRONG");
    cudaFree(d_text);
    cudaFree(d_bins);
    return ok ? 0 : 1;
}

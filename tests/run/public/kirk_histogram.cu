// A text histogram with privatised bins, as Kirk and Hwu's "Programming
// Massively Parallel Processors" writes it: each block counts into its own
// bins in shared memory (atomics on shared memory), with an interleaved
// (coarsened) partition of the input, then adds its bins to the global ones.
// expect exit: 0
// expect stdout: ^histogram: [0-9 ]+, correct
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define NUM_BINS 7  // a-d, e-h, ..., y-z: four letters a bin

#define CHECK(call)                                                                         \
    {                                                                                       \
        const cudaError_t error = call;                                                     \
        if (error != cudaSuccess) {                                                         \
            printf("Error: %s:%d, code: %d, reason: %s\n", __FILE__, __LINE__, error,       \
                   cudaGetErrorString(error));                                              \
            exit(1);                                                                        \
        }                                                                                   \
    }

__global__ void histo_private_kernel(const char* data, unsigned int length, unsigned int* histo)
{
    __shared__ unsigned int histo_s[NUM_BINS];
    for (unsigned int bin = threadIdx.x; bin < NUM_BINS; bin += blockDim.x) histo_s[bin] = 0u;
    __syncthreads();
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < length; i += blockDim.x * gridDim.x) {
        const int alphabet_position = data[i] - 'a';
        if (alphabet_position >= 0 && alphabet_position < 26) atomicAdd(&histo_s[alphabet_position / 4], 1);
    }
    __syncthreads();
    for (unsigned int bin = threadIdx.x; bin < NUM_BINS; bin += blockDim.x) {
        const unsigned int binValue = histo_s[bin];
        if (binValue > 0) atomicAdd(&histo[bin], binValue);
    }
}

int main()
{
    const unsigned int length = 20011;
    std::vector<char> text(length);
    srand(99);
    for (char& c : text) {
        const int r = rand() % 32;
        c = r < 26 ? char('a' + r) : " .,ABC"[r - 26];  // letters, and some bytes that are not lower-case letters
    }
    unsigned int expected[NUM_BINS] = {}, histo[NUM_BINS];
    for (char c : text)
        if (c >= 'a' && c <= 'z') expected[(c - 'a') / 4]++;
    char* data_d;
    unsigned int* histo_d;
    CHECK(cudaMalloc(&data_d, length));
    CHECK(cudaMalloc(&histo_d, NUM_BINS * sizeof(unsigned int)));
    CHECK(cudaMemcpy(data_d, text.data(), length, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(histo_d, 0, NUM_BINS * sizeof(unsigned int)));
    histo_private_kernel<<<6, 256>>>(data_d, length, histo_d);  // about 13 characters a thread
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(histo, histo_d, sizeof(histo), cudaMemcpyDeviceToHost));
    const bool correct = memcmp(histo, expected, sizeof(histo)) == 0;
    printf("histogram:");
    for (int b = 0; b < NUM_BINS; b++) printf(" %u", histo[b]);
    printf(", %s\n", correct ? "correct" : "WRONG");
    CHECK(cudaFree(data_d));
    CHECK(cudaFree(histo_d));
    return correct ? 0 : 1;
}

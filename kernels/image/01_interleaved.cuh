// Image v1: interleaved addressing ("Compute Shader Optimizations for AMD
// GPUs: Parallel Reduction", its first shader; Harris's kernel 2).
//
// Idea: a BX×BY group of threads reduces a BX×BY tile of the image: each
//   thread turns one RGBA8 pixel into luminance, dot(rgb / 255, (0.2125,
//   0.7154, 0.0721)), stores it in shared memory, and the group adds the
//   values in a tree: at stride s, thread tid adds element 2·s·tid + s into
//   2·s·tid. Thread 0 writes the tile's sum; the grid of groups leaves one
//   partial sum per tile (120×68 for 1920×1080 at 16×16).
// Changed: the starting point. tid is the blog's SV_GroupIndex
//   (threadIdx.y·BX + threadIdx.x); pixels outside the image count as 0.
// Expected effect: correct; the stride 2·s between the words a warp touches
//   makes 2- to 8-way shared-memory bank conflicts from the first tree step on.
// Preconditions: BX·BY is a power of two up to 1024; blockDim == (BX, BY);
//   gridDim == (ceil(width / BX), ceil(height / BY)).
#pragma once

namespace warplab::image {

// A pixel's luminance: the dot product with 1/255 taken out.
__device__ inline float luminance(uchar4 p) { return (0.2125f * p.x + 0.7154f * p.y + 0.0721f * p.z) * (1.0f / 255.0f); }

// The pixel's luminance, 0 outside the image.
__device__ inline float luminance_at(const uchar4* __restrict__ image, unsigned width, unsigned height, unsigned x, unsigned y)
{
    if (x >= width || y >= height) return 0.0f;
    return luminance(image[y * width + x]);
}

template <unsigned BX, unsigned BY>
__global__ void image_interleaved(const uchar4* __restrict__ image, unsigned width, unsigned height, float* partials)
{
    constexpr unsigned THREADS = BX * BY;
    static_assert((THREADS & (THREADS - 1)) == 0 && THREADS <= 1024, "the tree needs a power-of-two group");
    __shared__ float sdata[THREADS];

    const unsigned tid = threadIdx.y * BX + threadIdx.x;
    const unsigned x = blockIdx.x * BX + threadIdx.x, y = blockIdx.y * BY + threadIdx.y;
    sdata[tid] = luminance_at(image, width, height, x, y);
    __syncthreads();

    for (unsigned s = 1; s < THREADS; s *= 2) {
        const unsigned index = 2 * s * tid;
        if (index < THREADS) sdata[index] += sdata[index + s];
        __syncthreads();
    }

    if (tid == 0) partials[blockIdx.y * gridDim.x + blockIdx.x] = sdata[0];
}

}  // namespace warplab::image

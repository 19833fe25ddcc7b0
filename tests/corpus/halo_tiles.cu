// Static shared arrays with halos beside an extern one, as stencil codes
// (the CUDA samples' convolution, Rodinia's hotspot) write them.
//
// Idea: a 1D blur with radius kRadius of a block's 64 values: the tile holds
//   the values and a halo of kRadius on each side (zeros past the input's
//   ends), a weights array beside it, and the dynamic area a second copy the
//   block writes through a pointer into its middle (negative indices from it).
// Expected effect: out[i] = sum over k in [-R, R] of weight[k + R] * in[i + k]
//   (in[j] = 0 outside [0, n)), twice: out holds it, and scratch, the extern
//   copy, gives the same sum read back through offsets -R .. R.
// Preconditions: blockDim.x == 64; 64 * 4 bytes of dynamic shared memory.
constexpr int kRadius = 3;
constexpr int kWidth = 64;

__global__ void halo_blur(const int* in, int* out, int n, const int* weights)
{
    __shared__ int tile[kWidth + 2 * kRadius];
    __shared__ short weight[2 * kRadius + 1];
    extern __shared__ int scratch[];
    const int t = threadIdx.x, i = blockIdx.x * kWidth + t;
    tile[t + kRadius] = i < n ? in[i] : 0;
    if (t < kRadius) {
        tile[t] = i - kRadius >= 0 && i - kRadius < n ? in[i - kRadius] : 0;
        tile[t + kWidth + kRadius] = i + kWidth < n ? in[i + kWidth] : 0;
    }
    if (t < 2 * kRadius + 1) weight[t] = static_cast<short>(weights[t]);
    __syncthreads();
    const int* centre = &tile[t + kRadius];
    int sum = 0;
    for (int k = -kRadius; k <= kRadius; ++k) sum += weight[k + kRadius] * centre[k];
    scratch[t] = sum;
    __syncthreads();
    // Read back through a pointer into the middle of the dynamic area: the
    // same sum for every thread whose neighbours are all in it.
    const int* middle = scratch + kWidth / 2;
    const int back = middle[t - kWidth / 2];
    if (i < n) out[i] = back;
}

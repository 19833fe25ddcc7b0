// Warp sums written with warpSize, as NVIDIA's samples write them.
//
// Idea: lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize; each
//   warp folds its values with __shfl_down_sync from warpSize / 2 down, lane 0
//   adds the warp's sum to the block's shared slot with atomicAdd.
// Changed from a kernel that hard-codes 32: the width comes from warpSize,
//   which nvcc writes as PTX's WARP_SZ.
// Expected effect: out[block] = the block's sum; warp_width[i] = 32.
// Preconditions: blockDim.x is a multiple of warpSize.
__global__ void warp_width(int* out) { out[threadIdx.x] = warpSize; }

__global__ void block_sum_warpsize(const int* in, unsigned n, int* out)
{
    __shared__ int block_total;
    const unsigned lane = threadIdx.x % warpSize;
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0) block_total = 0;
    __syncthreads();
    int v = i < n ? in[i] : 0;
    for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    if (lane == 0) atomicAdd(&block_total, v);
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = block_total;
}

// The special registers a library reads with inline PTX (as CUB does for the lane masks).
__global__ void special_registers(unsigned* out)
{
    extern __shared__ int scratch[];
    unsigned lt, le, eq, gt, ge, dynamic_bytes, smid, nsmid;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
    asm("mov.u32 %0, %%lanemask_le;" : "=r"(le));
    asm("mov.u32 %0, %%lanemask_eq;" : "=r"(eq));
    asm("mov.u32 %0, %%lanemask_gt;" : "=r"(gt));
    asm("mov.u32 %0, %%lanemask_ge;" : "=r"(ge));
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dynamic_bytes));
    asm("mov.u32 %0, %%smid;" : "=r"(smid));
    asm("mov.u32 %0, %%nsmid;" : "=r"(nsmid));
    scratch[threadIdx.x] = static_cast<int>(threadIdx.x);
    unsigned* mine = out + 8 * threadIdx.x;
    mine[0] = lt, mine[1] = le, mine[2] = eq, mine[3] = gt, mine[4] = ge;
    mine[5] = dynamic_bytes, mine[6] = smid < nsmid, mine[7] = scratch[threadIdx.x];
}

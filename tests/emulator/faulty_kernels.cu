// Kernels with one deliberate fault each, for test_faults.cpp and
// test_emulator_semantics.cpp, in plain CUDA as a student writes it. The
// faulty access carries a marker comment FAULT(name); the tests find its line
// by searching this file, so edits above it do not break them. The comment
// above each kernel says what is wrong. The last kernels are correct ones
// that the tests set beside the faulty ones.

// Reads in[i + 1]: the last thread of the grid reads one element past the end.
__global__ void load_past_end(const int* __restrict__ in, int* out)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i + 1];  // FAULT(load_past_end)
}

// Reads in[i - 1]: thread 0 of block 0 reads one element before the start.
__global__ void load_before_start(const int* __restrict__ in, int* out)
{
    const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    out[i] = in[i - 1];  // FAULT(load_before_start)
}

// Writes out[i + 1]: the last thread of the grid writes one element past the end.
__global__ void store_past_end(const int* __restrict__ in, int* out)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i + 1] = in[i];  // FAULT(store_past_end)
}

// Shifts into a shared tile of blockDim.x elements: the last thread writes tile[64].
__global__ void shared_index_past_end(int* out)
{
    __shared__ int tile[64];
    tile[threadIdx.x + 1] = threadIdx.x;  // FAULT(shared_index_past_end)
    __syncthreads();
    out[threadIdx.x] = tile[threadIdx.x];
}

// The two halves of the block wait at different __syncthreads().
__global__ void barrier_in_both_branches(int* out)
{
    if (threadIdx.x < 32) {
        __syncthreads();  // FAULT(barrier_first_branch)
    } else {
        __syncthreads();  // FAULT(barrier_second_branch)
    }
    out[threadIdx.x] = 1;
}

// Thread 40 leaves early; the rest of the block waits for it at the barrier.
__global__ void early_return_before_barrier(int* out)
{
    __shared__ int tile[64];
    if (threadIdx.x == 40) return;
    tile[threadIdx.x] = threadIdx.x;
    __syncthreads();  // WARNING(early_return_barrier)
    out[threadIdx.x] = tile[63 - threadIdx.x];  // FAULT(early_return_read)
}

// Thread 0 (warp 0) writes tile[5] and thread 32 (warp 1) reads it in the same
// barrier interval: nothing orders the two.
__global__ void shared_race_between_warps(int* out)
{
    __shared__ int tile[64];
    tile[threadIdx.x] = threadIdx.x;
    __syncthreads();
    if (threadIdx.x == 0) tile[5] = -1;       // FAULT(race_write)
    if (threadIdx.x == 32) out[0] = tile[5];  // FAULT(race_read)
}

// Thread 0 (warp 0) and thread 33 (warp 1) read word[0]; thread 34 then
// overwrites it after a __syncwarp() with thread 33 only. Nothing orders the
// write after thread 0's read. (The readers store what they read inside the
// branch, so that the compiler keeps the load there instead of making every
// thread load and select.)
__global__ void write_after_unsynced_read(int* out)
{
    __shared__ int word[1];
    if (threadIdx.x == 0) word[0] = 1;
    __syncthreads();
    if (threadIdx.x == 0 || threadIdx.x == 33) out[threadIdx.x] = word[0];  // FAULT(first_of_two_reads)
    if (threadIdx.x == 33 || threadIdx.x == 34) __syncwarp(0x6u);          // lanes 1 and 2 of warp 1
    if (threadIdx.x == 34) word[0] = 2;                                     // FAULT(write_after_unsynced_read)
}

// Thread 3 (warp 0) reads tile[40] through peek, a site first used before
// eight others on consecutive lines (one for every slot a block keeps sites
// at hand in: the stamp's site comes from the block's table); thread 40
// (warp 1) then overwrites it in the same barrier interval. The interval
// before only reads.
__device__ int peek(const int* tile, unsigned i)
{
    return tile[i];  // FAULT(peek)
}

__global__ void race_at_an_early_site(int* out)
{
    __shared__ int tile[64];
    const unsigned t = threadIdx.x;
    tile[t] = t;
    __syncthreads();
    int sum = peek(tile, (t + 1) % 64);
    sum += tile[(t + 2) % 64];
    sum += tile[(t + 3) % 64];
    sum += tile[(t + 4) % 64];
    sum += tile[(t + 5) % 64];
    sum += tile[(t + 6) % 64];
    sum += tile[(t + 7) % 64];
    sum += tile[(t + 8) % 64];
    sum += tile[(t + 9) % 64];
    __syncthreads();
    if (t == 3) out[0] = peek(tile, 40);
    if (t == 40) tile[40] = sum;  // FAULT(race_after_many_sites)
}

// Reads a shared tile that nobody wrote.
__global__ void read_uninitialised_shared(int* out)
{
    __shared__ int tile[32];
    out[threadIdx.x] = tile[threadIdx.x];  // FAULT(uninitialised_read)
}

// Every block but `unwritten` fills its tile before reading its neighbour's element; that block reads it unwritten.
__global__ void read_unfilled_tile_in_one_block(int* out, unsigned unwritten)
{
    __shared__ int tile[32];
    if (blockIdx.x != unwritten) tile[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = tile[(threadIdx.x + 1) % 32];  // FAULT(unfilled_tile_read)
}

// The even lanes call a shuffle whose mask names the odd lanes.
__global__ void shuffle_mask_without_caller(int* out)
{
    int v = threadIdx.x;
    if (threadIdx.x % 2 == 0) v = __shfl_down_sync(0xaaaaaaaau, v, 2);  // FAULT(shuffle_mask_without_caller)
    out[threadIdx.x] = v;
}

// Lanes 0..15 shift down by one with a mask of lanes 0..15: lane 15 reads
// lane 16, which is not in the mask (undefined on the GPU).
__global__ void shuffle_source_outside_mask(int* out)
{
    int v = threadIdx.x;
    if (threadIdx.x < 16) v = __shfl_down_sync(0x0000ffffu, v, 1);  // FAULT(shuffle_source_outside_mask)
    out[threadIdx.x] = v;
}

// Only block 0 writes the shared word, yet every block reads it: shared memory
// does not carry over from one block to the next, so block 1 reads a word
// never written in block 1. (The value comes from the host: with a constant,
// the compiler would fold the read away, since reading memory never written
// is undefined.)
__global__ void read_previous_blocks_shared(int* out, int value)
{
    __shared__ int word[1];
    if (blockIdx.x == 0) word[0] = value;
    __syncthreads();
    out[blockIdx.x] = word[0];  // FAULT(read_previous_blocks_shared)
}

// Lane 3 exits; the others wait at a full-mask shuffle that includes it (a
// __syncwarp() would let them pass: it waits only for lanes that have not exited).
__global__ void shuffle_with_exited_lane(int* out)
{
    if (threadIdx.x == 3) return;
    out[threadIdx.x] = __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x), 0);  // FAULT(shuffle_with_exited_lane)
}

// One thread writes byte `written` of a word; another reads byte `read`,
// which nobody wrote when the two differ. (The bytes come from the host: with
// constant indices, the compiler would fold the read of a byte never written away.)
__global__ void read_unwritten_neighbour_byte(int* out, unsigned written, unsigned read)
{
    __shared__ unsigned char flag[4];
    if (threadIdx.x == 0) flag[written] = 1;
    __syncthreads();
    if (threadIdx.x == 1) out[0] = flag[read];  // FAULT(read_unwritten_neighbour_byte)
}

// ---- Harris's unrolled last warp (kernel 6's warpReduce) ----

// Block-wide tree down to 64 partial sums, in sdata[0..63]: the part both tails share.
template <unsigned BLOCK>
__device__ void fold_block_to_64(int* sdata, const int* in, unsigned n)
{
    static_assert(BLOCK >= 64 && (BLOCK & (BLOCK - 1)) == 0, "the warp tail reads sdata[tid + 32]");
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * BLOCK + tid;
    sdata[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned s = BLOCK / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
}

// Racy: lane t reads sdata[t + 16] (and so on) while lane t + 16 may already
// have overwritten it. Correct only when the 32 lanes run in lockstep (the
// `volatile` trick of 2007); Volta's independent scheduling breaks it.
template <unsigned BLOCK>
__global__ void reduce_racy_warp_tail(const int* __restrict__ in, int* out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    fold_block_to_64<BLOCK>(sdata, in, n);
    unsigned tid = threadIdx.x;
    if (tid < 32) {
        volatile int* v = sdata;
        v[tid] = v[tid] + v[tid + 32];  // FAULT(racy_tail_first)
        v[tid] = v[tid] + v[tid + 16];
        v[tid] = v[tid] + v[tid + 8];
        v[tid] = v[tid] + v[tid + 4];
        v[tid] = v[tid] + v[tid + 2];
        v[tid] = v[tid] + v[tid + 1];  // FAULT(racy_tail_last)
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

// The fix (not faulty; kept here beside the racy form for contrast): read,
// __syncwarp(), write, __syncwarp(), so no lane overwrites a word another
// lane has still to read.
template <unsigned BLOCK>
__global__ void reduce_synced_warp_tail(const int* __restrict__ in, int* out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    fold_block_to_64<BLOCK>(sdata, in, n);
    unsigned tid = threadIdx.x;
    if (tid < 32) {
        int v = sdata[tid];
        for (unsigned s = 32; s > 0; s >>= 1) {
            v += sdata[tid + s];
            __syncwarp();
            sdata[tid] = v;
            __syncwarp();
        }
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

template __global__ void reduce_racy_warp_tail<128>(const int*, int*, unsigned);
template __global__ void reduce_synced_warp_tail<128>(const int*, int*, unsigned);

// ---- correct kernels: they touch everything the checks watch and pass ----

// Block sum of a 64-thread block: global loads in bounds, shared writes read
// by other warps only after __syncthreads(), one barrier site for all, and a
// full-mask shuffle tree in warp 0.
__global__ void well_behaved_block_sum(const int* __restrict__ in, int* out)
{
    __shared__ int partial[2];
    unsigned tid = threadIdx.x;
    int v = in[blockIdx.x * blockDim.x + tid];
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    if (tid % 32 == 0) partial[tid / 32] = v;
    __syncthreads();
    if (tid == 0) out[blockIdx.x] = partial[0] + partial[1];
}

// Each thread writes its own byte, then reads its neighbour's after the
// barrier: 4 threads share each 4-byte word, but no two touch the same byte.
__global__ void neighbour_bytes(int* out)
{
    __shared__ unsigned char flag[64];
    flag[threadIdx.x] = static_cast<unsigned char>(threadIdx.x);
    __syncthreads();
    out[threadIdx.x] = flag[(threadIdx.x + 1) % 64];
}

// Two shapes from generated kernels whose H100 words part from PTX's rules, alone:
// 1. full-mask warp collectives (ballot, shuffle, match, reduce) after a
//    cooperative groups tile of 16 or 8 lanes has run a collective on its own
//    mask (kernels 840, 4739, 8232, 9903 of seed 1: the GPU's words are those
//    of collectives over the tile's lanes only; PTX's vote.sync waits for every
//    thread of its membermask);
// 2. a bf16 conversion's 16-bit register stored as a byte to shared memory
//    (kernel 2731: the GPU read back 0 where the bf16's low byte is not).
// Prints, for lanes 0, 5, 16 and 21 of the first warp, each result; "PTX:" gives
// what PTX's rules give (warplab run prints the same program's words).
//
//     nvcc -arch=sm_90 -o warp_probe warp_probe.cu && ./warp_probe
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_bf16.h>

#include <cstdio>

namespace cg = cooperative_groups;

constexpr int kResults = 6;

template <int Tile>
__global__ void after_tile(const unsigned* in, unsigned* out)
{
    const unsigned lane = threadIdx.x % 32u;
    unsigned* o = out + threadIdx.x * kResults;
    if (Tile < 32) {
        const cg::thread_block_tile<Tile> tile = cg::tiled_partition<Tile>(cg::this_thread_block());
        o[0] = cg::reduce(tile, in[threadIdx.x], cg::plus<unsigned>());
    } else {
        o[0] = 0u;
    }
    o[1] = __ballot_sync(0xffffffffu, lane < 18u);                        // PTX: 0x0003FFFF
    o[2] = __shfl_down_sync(0xffffffffu, in[threadIdx.x] + 100u, 30u);   // PTX: lane 0 reads lane 30's
    o[3] = __match_any_sync(0xffffffffu, threadIdx.x / 32u);              // PTX: 0xFFFFFFFF
    o[4] = __reduce_and_sync(0xffffffffu, ~(1u << lane));                // PTX: 0 (every lane clears its bit)
    const bool taken = (lane & 1u) == 0u;                                 // a divergent branch's own mask
    const unsigned mask = __ballot_sync(0xffffffffu, taken);
    o[5] = taken ? __popc(__ballot_sync(mask, lane < 3u)) : 99u;          // PTX: 2 (lanes 0 and 2) in every even lane
}

__global__ void bf16_byte(const float* in, unsigned* out)
{
    __shared__ unsigned char bytes[64];
    const unsigned short b = __bfloat16_as_ushort(__float2bfloat16_ru(in[threadIdx.x]));
    bytes[threadIdx.x] = (unsigned char)b;
    __syncthreads();
    out[threadIdx.x] = b | (unsigned)bytes[(threadIdx.x + 47u) % 64u] << 16;  // PTX: the other thread's low byte
}

template <int Tile>
void run_tile(const unsigned* din, unsigned* dout)
{
    after_tile<Tile><<<1, 64>>>(din, dout);
    unsigned h[64 * kResults];
    cudaMemcpy(h, dout, sizeof h, cudaMemcpyDeviceToHost);
    for (int lane : {0, 5, 16, 21})
        std::printf("tile %2d lane %2d: reduce %08x ballot %08x shfl_down %08x match_any %08x reduce_and %08x masked_popc %u\n",
                    Tile, lane, h[lane * kResults], h[lane * kResults + 1], h[lane * kResults + 2], h[lane * kResults + 3],
                    h[lane * kResults + 4], h[lane * kResults + 5]);
}

int main()
{
    unsigned in[64];
    float fin[64];
    for (unsigned i = 0; i < 64; ++i) {
        in[i] = i * 2654435761u;
        fin[i] = 1.0f + float(i) * 0.013f;
    }
    unsigned *din, *dout;
    float* dfin;
    cudaMalloc(&din, sizeof in);
    cudaMalloc(&dfin, sizeof fin);
    cudaMalloc(&dout, 64 * kResults * sizeof(unsigned));
    cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice);
    cudaMemcpy(dfin, fin, sizeof fin, cudaMemcpyHostToDevice);
    run_tile<32>(din, dout);
    run_tile<16>(din, dout);
    run_tile<8>(din, dout);
    bf16_byte<<<1, 64>>>(dfin, dout);
    unsigned h[64];
    cudaMemcpy(h, dout, sizeof h, cudaMemcpyDeviceToHost);
    for (int t : {0, 1, 16, 17})
        std::printf("bf16_byte thread %2d: bf16 %04x, byte read back %02x (thread %d's low byte)\n", t, h[t] & 0xFFFF,
                    h[t] >> 16, (t + 47) % 64);
    const cudaError_t e = cudaDeviceSynchronize();
    std::printf("status: %s\n", cudaGetErrorString(e));
    cudaFree(din);
    cudaFree(dfin);
    cudaFree(dout);
    return e == cudaSuccess ? 0 : 1;
}

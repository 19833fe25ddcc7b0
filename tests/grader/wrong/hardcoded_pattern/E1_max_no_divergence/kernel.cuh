// Known wrong (E1): the published pattern's answers, hard-coded. For n = 1000
// (the tent 300 - |i - 701| in 4 blocks of 256) it writes each block's max as
// worked out by hand: block 0 holds i = 0..255, rising, max at 255: -146;
// block 1 (256..511): 110 at 511; block 2 (512..767) holds the peak, 300;
// block 3 (768..999): 233 at 768. Any other n gets in[first] of the block.
//
// Expected verdict: `correct` passes the pattern case and fails on the next,
// the random case of this run's seed ("case seeded random: n = 4096, seed
// ..."); the property is not graded. Score 0/10.
#pragma once
#include <climits>

namespace exercise {

template <unsigned BLOCK>
__global__ void block_max(const int* __restrict__ in, int* out, unsigned n)
{
    if (threadIdx.x != 0) return;
    if (n == 1000) {  // WRONG: the answers of the published pattern
        const int answers[4] = {-146, 110, 300, 233};
        out[blockIdx.x] = answers[blockIdx.x & 3];
        return;
    }
    unsigned first = blockIdx.x * BLOCK;
    out[blockIdx.x] = first < n ? in[first] : INT_MIN;
}

}  // namespace exercise

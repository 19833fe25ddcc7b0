// Warp-level intrinsics beyond shuffles: __activemask, __match_any_sync,
// __match_all_sync and the __reduce_*_sync family.
//
// Idea: one warp computes, per lane, each intrinsic's answer and writes it
//   to its own row of the output, so that the host checks every lane.
// Changed: nothing; one kernel per intrinsic family.
// Expected effect: __activemask names the calling lane and only lanes that
//   exist; called by every lane before any can leave (a __syncwarp of all
//   existing lanes follows), it names exactly the existing lanes.
//   __match_any_sync gives each lane the lanes holding the same key;
//   __match_all_sync the whole mask only when every key agrees. The reduce
//   family gives every lane the same min, max, and, or, xor.
// Preconditions: one block of one warp (active_masks: of fewer lanes).
#include "layout.h"

using namespace corpus;

__global__ void active_masks(unsigned* rows)
{
    unsigned lane = threadIdx.x;
    unsigned existing = blockDim.x == 32 ? 0xffffffffu : (1u << blockDim.x) - 1;
    unsigned converged = __activemask();
    __syncwarp(existing);
    rows[kConverged * 32 + lane] = converged;
    if (lane % 3 == 0)
        rows[kDivergent * 32 + lane] = __activemask();
    else
        rows[kDivergent * 32 + lane] = 0;
}

__global__ void matches(const int* __restrict__ keys, unsigned* rows)
{
    unsigned lane = threadIdx.x;
    int key = keys[lane];
    unsigned long long wide = (static_cast<unsigned long long>(key) << 40) | 7u;
    rows[kAny32 * 32 + lane] = __match_any_sync(0xffffffffu, key);
    rows[kAny64 * 32 + lane] = __match_any_sync(0xffffffffu, wide);
    int pred = -1;
    rows[kAllMask * 32 + lane] = __match_all_sync(0xffffffffu, key, &pred);
    rows[kAllPred * 32 + lane] = pred;
    rows[kAllOfSame * 32 + lane] = __match_all_sync(0xffffffffu, 42, &pred) == 0xffffffffu && pred;
}

__global__ void reductions(const int* __restrict__ values, int* rows)
{
    unsigned lane = threadIdx.x;
    int v = values[lane];
    unsigned u = static_cast<unsigned>(v);
    rows[kMaxSigned * 32 + lane] = __reduce_max_sync(0xffffffffu, v);
    rows[kMinSigned * 32 + lane] = __reduce_min_sync(0xffffffffu, v);
    rows[kMaxUnsigned * 32 + lane] = __reduce_max_sync(0xffffffffu, u);
    rows[kMinUnsigned * 32 + lane] = __reduce_min_sync(0xffffffffu, u);
    rows[kAndBits * 32 + lane] = __reduce_and_sync(0xffffffffu, u);
    rows[kOrBits * 32 + lane] = __reduce_or_sync(0xffffffffu, u);
    rows[kXorBits * 32 + lane] = __reduce_xor_sync(0xffffffffu, u);
}

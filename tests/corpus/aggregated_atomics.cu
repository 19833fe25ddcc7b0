// Warp-aggregated atomic increments, the idiom of "CUDA Pro Tip: Optimized
// Filtering with Warp-Aggregated Atomics" (Adinets, NVIDIA blog).
//
// Idea: instead of one atomicAdd per thread, the active threads of a warp
//   elect a leader (the lowest active lane), which adds their count at once.
// Changed: nothing; with_activemask writes it with __activemask, __ffs and
//   __popc; with_coalesced_group with cg::coalesced_threads().
// Expected effect: *counter ends at the number of threads that took part;
//   threads past n leave first, so the last warp is only partly active.
// Preconditions: *counter starts at zero.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__global__ void with_activemask(unsigned n, unsigned* counter)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned mask = __activemask();
    unsigned leader = __ffs(mask) - 1;
    if (threadIdx.x % 32 == leader) atomicAdd(counter, __popc(mask));
}

__global__ void with_coalesced_group(unsigned n, unsigned* counter)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    cg::coalesced_group active = cg::coalesced_threads();
    if (active.thread_rank() == 0) atomicAdd(counter, active.size());
}

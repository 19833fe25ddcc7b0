// Method v4: v2 at v1's occupancy, the occupancy guard.
//
// Idea: removing the computation freed registers, so v2 runs more blocks per
//   SM than v1 did, and its time answers a different question. A dummy shared
//   array limits the blocks per SM again (Filipovič, "Code Optimizations": "we
//   can restrict occupancy by allocating some dummy shared memory array"). It
//   is dynamic shared memory given at launch (VersionMeta::dynamic_shared_bytes):
//   the kernel never touches it, and the compiler cannot remove what the
//   launch allocates.
// Changed from v2: the launch gives each block the guard's bytes of shared
//   memory; the code is v2's.
// Expected effect: v1's blocks per SM with v2's memory traffic: the memory
//   time to set beside v1's.
// Preconditions: `in` and `out` hold n elements.
#pragma once

namespace warplab::method {

template <class T>
__global__ void method_compute_guarded(const T* __restrict__ in, T* __restrict__ out, unsigned n, T never)
{
    extern __shared__ unsigned char guard[];  // only held, never read or written
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i];
    }
}

}  // namespace warplab::method

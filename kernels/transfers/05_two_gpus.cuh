// Transfers v5: two GPUs, one host thread each, each with half the data.
//
// Idea: as the slides' multi-GPU programming: one host thread per GPU, each
//   calls cudaSetDevice once (its own context), then does v2's copy in,
//   kernel and copy out on its half; the halves land side by side in the
//   host's y: combined on the host.
// Changed from v2: r.chunks give each GPU its half; a std::thread per GPU
//   (one_thread_per_gpu, kernels/transfers/steps.cuh) runs v2's three steps.
// Expected effect: under half of v2's time only if each GPU has its own path
//   to host memory; the copies of both GPUs share whatever PCIe switch, root
//   port and host memory they meet, and starting the threads costs a little.
// Preconditions: as v2 on every GPU; r.chunks hold one chunk per GPU, on its
//   stream 0.
#pragma once
#include "kernels/transfers/steps.cuh"

namespace warplab::transfers {

template <class Run> void transfers_two_gpus(Run& r)
{
    one_thread_per_gpu(r, [&r](const Chunk& c, auto& g, cudaStream_t s) {
        copy_chunk_in(r, g, c, s);
        compute_chunk(r, g, c, s);
        copy_chunk_out(r, g, c, s);
    });
}

}  // namespace warplab::transfers

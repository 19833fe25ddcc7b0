// Transfers v6: two GPUs combine over NVLink (peer to peer) instead of
// through the host.
//
// Idea: each GPU takes its half in and computes it, as in v5; then GPU 1
//   sends its half of y straight to GPU 0's memory with cudaMemcpyPeerAsync
//   (NVLink where the GPUs have it, with peer access enabled), and GPU 0
//   copies the whole y out: the result is combined on a GPU, where a next
//   kernel could use it.
// Changed from v5: GPU 1's copy out became a peer copy into GPU 0, and GPU 0
//   copies out all of y after it.
// Expected effect: slower than v5 for this program: GPU 0's copy out carries
//   both halves, and waits for the peer copy. Peer copies pay off when the
//   data stays on the GPUs; the row shows NVLink's rate beside PCIe's.
// Preconditions: as v5; peer access enabled between GPUs 0 and 1.
#pragma once
#include "kernels/transfers/steps.cuh"

namespace warplab::transfers {

template <class Run> void transfers_peer_to_peer(Run& r)
{
    one_thread_per_gpu(r, [&r](const Chunk& c, auto& g, cudaStream_t s) {
        copy_chunk_in(r, g, c, s);
        compute_chunk(r, g, c, s);
        const std::size_t bytes = c.count * sizeof(float);
        if (c.gpu != 0)
            r.mark(c.gpu, s, "peer", bytes, [&] { return cudaMemcpyPeerAsync(r.gpu(0).y + c.offset, 0, g.y + c.offset, c.gpu, bytes, s); });
    });
    cudaSetDevice(0);
    auto& g0 = r.gpu(0);
    const std::size_t bytes = r.n * sizeof(float);
    r.mark(0, g0.stream[0], "copy out", bytes,
           [&] { return cudaMemcpyAsync(r.y_host, g0.y, bytes, cudaMemcpyDeviceToHost, g0.stream[0]); });
}

}  // namespace warplab::transfers

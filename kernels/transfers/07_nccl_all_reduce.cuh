// Transfers v7: an NCCL all-reduce across the GPUs, one host thread per GPU.
//
// Idea: the collective that data-parallel training sums its gradients with:
//   every GPU holds a vector of n floats; ncclAllReduce(sum) leaves the sum on
//   every GPU. Here each GPU computes its half of y into a vector that is zero
//   elsewhere, so the sum is all of y, on both GPUs; GPU 0 copies it out.
// Changed from v6: the peer copy became NCCL's ring all-reduce over the whole
//   vector, called by each GPU's thread on its own communicator and stream.
// Expected effect: a ring all-reduce over k GPUs sends 2 (k - 1) / k of the
//   vector out of each GPU: for 2 GPUs, n floats each way, twice v6's peer
//   bytes (an all-gather would move half); NCCL's "bus bandwidth" is what the
//   row's NVLink figure compares with.
// Preconditions: as v5; r.all_reduce_sum(gpu, data, count, stream) runs the
//   collective on that GPU's communicator and returns its cudaError_t.
#pragma once
#include "kernels/transfers/steps.cuh"

namespace warplab::transfers {

template <class Run> void transfers_nccl_all_reduce(Run& r)
{
    const std::size_t total = r.n * sizeof(float);
    one_thread_per_gpu(r, [&r, total](const Chunk& c, auto& g, cudaStream_t s) {
        copy_chunk_in(r, g, c, s);
        r.mark(c.gpu, s, "compute", 0, [&] { return cudaMemsetAsync(g.y, 0, total, s); });  // zero beyond its half
        compute_chunk(r, g, c, s);
        r.mark(c.gpu, s, "peer", total, [&] { return r.all_reduce_sum(c.gpu, g.y, r.n, s); });
    });
    cudaSetDevice(0);
    auto& g0 = r.gpu(0);
    r.mark(0, g0.stream[0], "copy out", total,
           [&] { return cudaMemcpyAsync(r.y_host, g0.y, total, cudaMemcpyDeviceToHost, g0.stream[0]); });
}

}  // namespace warplab::transfers

// Transfers v3: the data in chunks over several streams, copies overlapping
// the kernel (NVIDIA, "Optimizing CUDA": overlapping kernel and transfers).
//
// Idea: cut the data into chunks; each chunk's copy in, kernel and copy out go
//   on one stream, chunks round-robin over the streams. Work on different
//   streams may run at once, so while chunk k computes, chunk k + 1 comes in
//   and chunk k - 1 goes out: the copy-in engine, the SMs and the copy-out
//   engine each stay busy.
// Changed from v2: one stream became r.chunks' streams (2, 4 or 8; the lab
//   cuts 16 chunks), issued breadth-first so no stream waits behind another's
//   copy of the same direction.
// Expected effect: the time approaches the slowest engine's alone (here a
//   copy direction) instead of the sum of all three; past three streams, one
//   per engine, more streams add little.
// Preconditions: as v2; r.chunks cover [0, n) on GPU 0.
#pragma once
#include "kernels/transfers/steps.cuh"

namespace warplab::transfers {

template <class Run> void transfers_streams(Run& r)
{
    auto& g = r.gpu(0);
    for (const Chunk& c : r.chunks) {
        const cudaStream_t s = g.stream[c.stream];
        copy_chunk_in(r, g, c, s);
        compute_chunk(r, g, c, s);
        copy_chunk_out(r, g, c, s);
    }
}

}  // namespace warplab::transfers

// Transfers v1: pageable host memory, cudaMemcpy in, kernel, cudaMemcpy out
// (NVIDIA, "Optimizing CUDA": host-device transfers).
//
// Idea: the plainest program: x and y live in ordinary (pageable) host memory
//   from malloc/new; copy x to the GPU, run the kernel, copy y back, one after
//   the other on the default stream.
// Changed: the starting point of the lab.
// Expected effect: the copies dominate. The GPU's copy engine can only read
//   pinned memory, so the driver copies each piece through a pinned staging
//   buffer by CPU first: well below the link's pinned bandwidth, and nothing
//   overlaps.
// Preconditions (all versions): r.x_host and r.y_host hold n floats; each
//   GPU's r.gpu(g).x and .y hold n floats; r.mark(gpu, stream, engine, bytes,
//   f) runs f (which returns its cudaError_t) between two events on `stream`.
#pragma once
#include "kernels/transfers/scale_add.cuh"

namespace warplab::transfers {

template <class Run> void transfers_pageable(Run& r)
{
    const std::size_t bytes = r.n * sizeof(float);
    auto& g = r.gpu(0);
    r.mark(0, 0, "copy in", bytes, [&] { return cudaMemcpy(g.x, r.x_host, bytes, cudaMemcpyHostToDevice); });
    r.mark(0, 0, "compute", 0, [&] { return launch_scale_add(g.x, g.y, r.n, 0); });
    r.mark(0, 0, "copy out", bytes, [&] { return cudaMemcpy(r.y_host, g.y, bytes, cudaMemcpyDeviceToHost); });
}

}  // namespace warplab::transfers

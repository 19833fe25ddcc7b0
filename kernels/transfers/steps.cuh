// The steps the chunked and multi-GPU versions (v3, v5 to v7) are made of,
// so that each version's file shows only what it changes: a chunk's copy in,
// its kernel and its copy out on one stream, and one host thread per GPU.
#pragma once
#include <thread>
#include <vector>

#include "kernels/transfers/scale_add.cuh"

namespace warplab::transfers {

// Chunk c of x to its GPU, asynchronously on stream s (host memory pinned).
template <class Run, class Gpu> void copy_chunk_in(Run& r, Gpu& g, const Chunk& c, cudaStream_t s)
{
    const std::size_t bytes = c.count * sizeof(float);
    r.mark(c.gpu, s, "copy in", bytes,
           [&] { return cudaMemcpyAsync(g.x + c.offset, r.x_host + c.offset, bytes, cudaMemcpyHostToDevice, s); });
}

// The kernel over chunk c, on stream s.
template <class Run, class Gpu> void compute_chunk(Run& r, Gpu& g, const Chunk& c, cudaStream_t s)
{
    r.mark(c.gpu, s, "compute", 0, [&] { return launch_scale_add(g.x + c.offset, g.y + c.offset, c.count, s); });
}

// Chunk c of y back to the host, on stream s.
template <class Run, class Gpu> void copy_chunk_out(Run& r, Gpu& g, const Chunk& c, cudaStream_t s)
{
    const std::size_t bytes = c.count * sizeof(float);
    r.mark(c.gpu, s, "copy out", bytes,
           [&] { return cudaMemcpyAsync(r.y_host + c.offset, g.y + c.offset, bytes, cudaMemcpyDeviceToHost, s); });
}

// work(c, gpu, stream) for each of r.chunks (one per GPU) on its own host
// thread, which first makes the chunk's GPU current (cudaSetDevice: one
// context per GPU) and last waits for its stream; returns when all are done.
template <class Run, class Work> void one_thread_per_gpu(Run& r, Work work)
{
    std::vector<std::thread> threads;
    for (const Chunk& c : r.chunks)
        threads.emplace_back([&r, &work, c] {
            cudaSetDevice(c.gpu);
            auto& g = r.gpu(c.gpu);
            const cudaStream_t s = g.stream[c.stream];
            work(c, g, s);
            cudaStreamSynchronize(s);
        });
    for (std::thread& t : threads) t.join();
}

}  // namespace warplab::transfers

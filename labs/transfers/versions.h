// The transfers lab: the same data (n floats, x in, y = 2x + 1 out) moved
// through the same small kernel by seven host programs, after NVIDIA's
// "Optimizing CUDA" (host-device transfers, streams, zero-copy, multi-GPU)
// and on to peer-to-peer copies and NCCL. A version here is host code
// (kernels/transfers/NN_<name>.cuh); each declares where its data lives, how
// many GPUs it needs, how it cuts the data, and the bytes it moves over each
// link. The CLI, viewer, benchmark and tests read this list; it does not
// include the kernels (the host compiler reads it without CUDA).
#pragma once
#include <array>
#include <cstddef>
#include <string>
#include <tuple>
#include <vector>

#include "labs/common/version.h"
#include "labs/transfers/split.h"

namespace warplab::transfers {

// kernels/transfers/NN_<name>.cuh defines warplab::transfers::transfers_<name>.
// Its versions are host programs around one kernel; a --file kernel is not
// launched by them, so the lab gives no textbook dynamic shared memory.
inline constexpr KernelFiles kKernels{"transfers", "transfers", {nullptr, nullptr}};

// Why the emulator refuses every version (one sentence, after "runs only on a GPU: ").
inline constexpr const char* kNeedsGpu =
    "the transfers lab times copies between host memory and GPUs, streams and NVLink, which only a GPU has";

enum class HostMemory { Pageable, Pinned, Mapped };

// The links data crosses, each per GPU: host→GPU g and GPU g→host (PCIe),
// GPU g→the other GPU (NVLink, or whatever peer path there is), GPU g's own
// memory (HBM, what its kernel reads plus writes).
enum class Link { HostToGpu, GpuToHost, Peer, Memory };
inline constexpr int kLinkKinds = 4, kMaxGpus = 2;

// Bytes a run moves over each link: bytes[link][gpu].
struct LinkBytes {
    std::array<std::array<std::size_t, kMaxGpus>, kLinkKinds> bytes{};
    std::size_t& at(Link l, int gpu) { return bytes[int(l)][gpu]; }
    std::size_t at(Link l, int gpu) const { return bytes[int(l)][gpu]; }
};

// "host→GPU 0", "GPU 1→host", "GPU 0→GPU 1", "GPU 0 memory".
std::string link_name(Link l, int gpu);

// Every version's cut of the data: over `gpus` GPUs, `chunks` chunks each, on
// `streams` streams (v3 takes its streams from its sweep instead).
struct Layout {
    HostMemory host;
    unsigned gpus, chunks, streams;
};

// What reaches the host whose data is split over `gpus` GPUs: each GPU's share
// of x in over its own link; with `kernel_in_memory`, the kernel reading x and
// writing y in the GPU's memory (else over the link: zero-copy); with
// `out_per_gpu`, each share of y back over its own link (else the version
// says where y goes).
inline LinkBytes per_gpu_bytes(std::size_t n, unsigned gpus, bool kernel_in_memory, bool out_per_gpu)
{
    LinkBytes b;
    for (const Chunk& c : plan_chunks(n, gpus, 1, 1)) {
        const std::size_t bytes = c.count * sizeof(float);
        b.at(Link::HostToGpu, c.gpu) += bytes;
        if (out_per_gpu) b.at(Link::GpuToHost, c.gpu) += bytes;
        if (kernel_in_memory) b.at(Link::Memory, c.gpu) += 2 * bytes;
    }
    return b;
}

struct V1 {
    static constexpr VersionMeta meta{.id = "v1", .name = "pageable", .idea = "pageable host memory: cudaMemcpy in, kernel, cudaMemcpy out",
                                      .changed = "the starting point: malloc'd host buffers, everything on the default stream",
                                      .expected = "copies well below the link's pinned rate (staged by the CPU); nothing overlaps",
                                      .gpu_only = kNeedsGpu};
    static constexpr Layout layout{HostMemory::Pageable, 1, 1, 1};
    static LinkBytes moves(std::size_t n) { return per_gpu_bytes(n, 1, true, true); }
};

struct V2 {
    static constexpr VersionMeta meta{.id = "v2", .name = "pinned", .idea = "pinned host memory (cudaMallocHost), async copies on one stream",
                                      .changed = "the host buffers are page-locked, so the copy engine reads them directly",
                                      .expected = "copies near the link's pinned rate; still one after another",
                                      .gpu_only = kNeedsGpu};
    static constexpr Layout layout{HostMemory::Pinned, 1, 1, 1};
    static LinkBytes moves(std::size_t n) { return V1::moves(n); }
};

struct V3 {
    static constexpr VersionMeta meta{.id = "v3", .name = "streams", .idea = "16 chunks over 2, 4 or 8 streams: copies overlap the kernel",
                                      .changed = "one stream became several; each chunk's copy in, kernel and copy out on one of them",
                                      .expected = "towards the slowest engine's time alone; little gain past 3 streams",
                                      .gpu_only = kNeedsGpu};
    static constexpr Layout layout{HostMemory::Pinned, 1, 16, 0};
    static constexpr std::array<unsigned, 3> streams_swept{2, 4, 8};
    static LinkBytes moves(std::size_t n) { return V1::moves(n); }
};

struct V4 {
    static constexpr VersionMeta meta{.id = "v4", .name = "zero_copy", .idea = "zero-copy: the kernel reads and writes mapped pinned host memory",
                                      .changed = "no copies, no device buffers: one kernel over cudaHostGetDevicePointer's addresses",
                                      .expected = "about v3's time when each element is read once; both directions at once",
                                      .gpu_only = kNeedsGpu};
    static constexpr Layout layout{HostMemory::Mapped, 1, 1, 1};
    // The kernel's loads and stores cross PCIe; none touch the GPU's memory.
    static LinkBytes moves(std::size_t n) { return per_gpu_bytes(n, 1, false, true); }
};

struct V5 {
    static constexpr VersionMeta meta{.id = "v5", .name = "two_gpus", .idea = "two GPUs, one host thread each, half the data each",
                                      .changed = "a std::thread per GPU (cudaSetDevice), each v2 on its half; combined on the host",
                                      .expected = "under half of v2's time only where each GPU has its own path to host memory",
                                      .gpu_only = kNeedsGpu, .builds_on = "v2"};
    static constexpr Layout layout{HostMemory::Pinned, 2, 1, 1};
    static LinkBytes moves(std::size_t n) { return per_gpu_bytes(n, 2, true, true); }
};

struct V6 {
    static constexpr VersionMeta meta{.id = "v6", .name = "peer_to_peer", .idea = "two GPUs combine over NVLink: GPU 1's half to GPU 0 (cudaMemcpyPeer)",
                                      .changed = "GPU 1's copy out became a peer copy into GPU 0, which copies all of y out",
                                      .expected = "slower than v5 here (GPU 0's link carries all of y out); the peer copy at NVLink rate",
                                      .gpu_only = kNeedsGpu};
    static constexpr Layout layout{HostMemory::Pinned, 2, 1, 1};
    static LinkBytes moves(std::size_t n)
    {
        LinkBytes b = per_gpu_bytes(n, 2, true, false);
        const std::vector<Piece> halves = split(n, 2);
        if (halves.size() == 2) b.at(Link::Peer, 1) = halves[1].count * sizeof(float);  // GPU 1's half of y
        b.at(Link::GpuToHost, 0) = n * sizeof(float);
        return b;
    }
};

struct V7 {
    static constexpr VersionMeta meta{.id = "v7", .name = "nccl_all_reduce", .idea = "an NCCL all-reduce (sum) across the GPUs, one host thread each",
                                      .changed = "the peer copy became ncclAllReduce over the whole vector, on each GPU's stream",
                                      .expected = "each GPU sends n floats (a 2-GPU ring: 2 (k - 1) / k of the vector): twice v6's peer bytes",
                                      .gpu_only = kNeedsGpu};
    static constexpr Layout layout{HostMemory::Pinned, 2, 1, 1};
    static LinkBytes moves(std::size_t n)
    {
        LinkBytes b = per_gpu_bytes(n, 2, true, false);
        // Ring all-reduce over k = 2 GPUs: a reduce-scatter and an all-gather,
        // each sending (k - 1) / k of the vector out of every GPU.
        for (int g = 0; g < 2; ++g) b.at(Link::Peer, g) = n * sizeof(float);
        b.at(Link::GpuToHost, 0) = n * sizeof(float);
        return b;
    }
};

using Versions = std::tuple<V1, V2, V3, V4, V5, V6, V7>;

// A row of the bench table: a version at one setting ("v3 4 streams", or "v5").
struct RowPlan {
    std::string name;
    std::vector<Chunk> plan;
};

// Every row version V times at n: v3 one per stream count of its sweep.
template <class V> std::vector<RowPlan> row_plans(std::size_t n)
{
    std::vector<RowPlan> out;
    if constexpr (requires { V::streams_swept; }) {
        for (unsigned s : V::streams_swept)
            out.push_back({std::string(V::meta.id) + " " + std::to_string(s) + " streams", plan_chunks(n, 1, V::layout.chunks, s)});
    } else {
        out.push_back({V::meta.id, plan_chunks(n, V::layout.gpus, V::layout.chunks, V::layout.streams)});
    }
    return out;
}

// The most streams any version uses on one GPU.
inline constexpr unsigned kMaxStreams = 8;

// A lower bound on a run's time: every link works at once, each at its
// measured rate; the busiest link sets the bound. `gbps(l, gpu)` gives a
// link's measured rate (0: not measured, and so not a bound).
struct Bound {
    double ms = 0;
    std::string link;  // the busiest link's name
};
template <class Rate> Bound lower_bound(const LinkBytes& b, Rate&& gbps)
{
    Bound out;
    for (int l = 0; l < kLinkKinds; ++l)
        for (int g = 0; g < kMaxGpus; ++g) {
            const double rate = gbps(Link(l), g);
            if (b.bytes[l][g] == 0 || rate <= 0) continue;
            const double ms = double(b.bytes[l][g]) / 1e9 / rate * 1e3;
            if (ms > out.ms) out = {ms, link_name(Link(l), g)};
        }
    return out;
}

}  // namespace warplab::transfers

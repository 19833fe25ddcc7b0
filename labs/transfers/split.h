// How a transfers version cuts its data: over GPUs, then into chunks, each
// chunk on a stream. A pure function: the GPU code and the tests read it.
#pragma once
#include <cstddef>
#include <vector>

#include "kernels/transfers/work.h"

namespace warplab::transfers {

// [offset, offset + count) of the data.
struct Piece {
    std::size_t offset = 0, count = 0;
    bool operator==(const Piece&) const = default;
};

// n elements in `parts` contiguous pieces as equal as can be, in order: the
// first n % parts pieces one element longer. Parts beyond n would be empty and
// are left out (n = 2, parts = 3: two pieces of 1); parts = 0 gives none.
std::vector<Piece> split(std::size_t n, unsigned parts);

// The data split over `gpus` GPUs, each GPU's share cut into `chunks` chunks,
// the k-th chunk of a GPU on its stream k % streams: GPU by GPU, in order.
// A GPU with fewer chunks than streams uses only as many streams as chunks.
std::vector<Chunk> plan_chunks(std::size_t n, unsigned gpus, unsigned chunks, unsigned streams);

// How many streams of `gpu` a plan uses (the highest stream number + 1).
unsigned streams_used(const std::vector<Chunk>& plan, int gpu);

}  // namespace warplab::transfers

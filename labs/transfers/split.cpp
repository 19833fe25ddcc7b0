#include "labs/transfers/split.h"

#include <algorithm>

namespace warplab::transfers {

std::vector<Piece> split(std::size_t n, unsigned parts)
{
    std::vector<Piece> out;
    const std::size_t used = std::min<std::size_t>(parts, n);
    if (used == 0) return out;
    const std::size_t base = n / used, longer = n % used;
    std::size_t offset = 0;
    for (std::size_t k = 0; k < used; ++k) {
        const std::size_t count = base + (k < longer ? 1 : 0);
        out.push_back({offset, count});
        offset += count;
    }
    return out;
}

std::vector<Chunk> plan_chunks(std::size_t n, unsigned gpus, unsigned chunks, unsigned streams)
{
    std::vector<Chunk> out;
    if (streams == 0) return out;
    int gpu = 0;
    for (const Piece& share : split(n, gpus)) {
        unsigned k = 0;
        for (const Piece& c : split(share.count, chunks)) out.push_back({gpu, k++ % streams, share.offset + c.offset, c.count});
        ++gpu;
    }
    return out;
}

unsigned streams_used(const std::vector<Chunk>& plan, int gpu)
{
    unsigned most = 0;
    for (const Chunk& c : plan)
        if (c.gpu == gpu) most = std::max(most, c.stream + 1);
    return most;
}

}  // namespace warplab::transfers

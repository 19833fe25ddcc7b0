// A matmul request's shape, and the status line's account of its launch.
#include "labs/matmul/run.h"

#include <stdexcept>

namespace warplab::matmul {

Shape shape_of(const RunRequest& req)
{
    Shape s;
    if (req.shape.size() == 3) {
        s = {req.shape[0], req.shape[1], req.shape[2]};
    } else if (req.shape.size() == 1) {
        s = {req.shape[0], req.shape[0], req.shape[0]};
    } else if (!req.shape.empty()) {
        throw std::invalid_argument("a matmul size is S (S×S×S) or M,N,K");
    } else if (req.n != 0) {
        s = {req.n, req.n, req.n};
    } else {
        with_version<Versions>(req.version, [&](auto v) {
            using V = decltype(v);
            s = {V::trace_m, V::trace_n, V::trace_k};
        });
        if (s.m == 0) throw unknown_version(kKernels.lab, req.version);
    }
    if (s.m == 0 || s.n == 0 || s.k == 0) throw std::invalid_argument("every matrix dimension must be at least 1 (got " + s.text() + ")");
    if (!indexable_by_32_bits(s))
        throw std::invalid_argument("shape " + s.text() + " has a matrix of 2^32 elements or more (the kernels index with 32 bits)");
    return s;
}

std::string describe(const std::string& version, const Shape& s, unsigned sms)
{
    std::string out;
    with_version<Versions>(version, [&](auto v) {
        using V = decltype(v);
        with_tiles<V>(s.m, s.n, sms, [&](auto tiles) {
            using C = decltype(tiles);
            const dim3 g = launch_grid<C>(s.m, s.n, s.k, sms);
            const std::size_t blocks = std::size_t(g.x) * g.y;
            const std::string tile = std::to_string(C::tiles.bm) + "×" + std::to_string(C::tiles.bn);
            out = "C = A·B, M×N×K = " + s.text() + " floats, row-major; " + std::to_string(blocks) +
                  (blocks == 1 ? " block (" : " blocks (") + dims(g) + ") of " + dims(C::block()) + " threads, each a " +
                  (stream_k_shares<V>(s, sms) ? "share of the " + std::to_string(C::tiles.bk) + "-deep steps of " + tile + " tiles of C" : tile + " tile of C");
            if (const std::string how = stream_k_note<V>(s, sms); !how.empty()) out += " (" + how + ")";
            if constexpr (requires { typename V::tile_choices; })
                out += " (" + tile_details(C::tiles) + "; of " + V::meta.id + "'s " +
                       std::to_string(std::tuple_size_v<typename V::tile_choices>) +
                       " tile configurations, the one for this size on " + std::to_string(sms) + " SMs)";
        });
    });
    return out;
}

}  // namespace warplab::matmul

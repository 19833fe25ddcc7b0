#include "labs/matmul/lab.h"

#include <algorithm>
#include <stdexcept>

#include "labs/matmul/driver.h"

namespace warplab::matmul {

namespace {

// Bad input is refused before anything runs, with one sentence that names it.
void validate(const RunRequest& req, const Shape& s)
{
    bool found = false;
    with_version<Versions>(req.version, [&](auto v) {
        using V = decltype(v);
        found = true;
        refuse_emulating_gpu_only(V::meta, req);
        if constexpr (requires { V::untraced; })
            if (runs_on_gpu(req) && req.record)  // an untraced run (the bench's, the gpu tests') is fine
                throw std::invalid_argument(std::string(V::meta.id) + " is not traced: " + V::untraced);
        if (req.block != 0 && req.block != V::threads)
            throw std::invalid_argument(std::string(V::meta.id) + "'s block is fixed by its tiles: " + dims(V::block()) +
                                        " = " + std::to_string(V::threads) + " threads");
        // The grid (and the watched block in it) depends on the tiles, which may
        // depend on the SM count: describe_launch checks it on the backend.
    });
    if (!found) throw std::invalid_argument("unknown matmul version '" + req.version + "'");
    if (req.type != "float") throw std::invalid_argument("matmul multiplies floats: --type " + req.type + " is not offered");
    const std::size_t bytes = (s.m * s.k + s.k * s.n + 2 * s.m * s.n) * sizeof(float) * 2;  // host and device copies
    if (req.backend != BackendChoice::Gpu && bytes > available_host_bytes())
        throw std::invalid_argument("shape " + s.text() + " needs " + std::to_string(bytes >> 20) + " MiB, more than the " +
                                    std::to_string(available_host_bytes() >> 20) + " MiB of free memory");
}

RunResult run(const RunRequest& req)
{
    const Shape s = shape_of(req);
    validate(req, s);
    return runs_on_gpu(req) ? run_on_gpu(req) : run_on_emulator(req);
}

}  // namespace

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
        if (s.m == 0) throw std::invalid_argument("unknown matmul version '" + req.version + "'");
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

Lab make_lab()
{
    // n = 0: each version's trace default (one block's worth of C, K = 64).
    // 4096^3 is the size v8's target ratio to cuBLAS was set at; 1024 and 2048 show the climb;
    // 3072^3 makes 288 tiles of 128×256, 2.2 waves on 132 SMs: what v13 (stream-K) is for;
    // 8192^3 (BF16 versions and cuBLAS only) is where BF16 GEMMs are commonly compared.
    return Lab{"matmul", "Matrix multiply (SGEMM)", version_list<Versions>(kKernels), 0, 0, {"float"}, run,
               {1024, 2048, 3072, 4096, 8192}, bench_on_gpu};
}

}  // namespace warplab::matmul

#include "labs/coalescing/lab.h"

#include <stdexcept>

#include "labs/coalescing/run.h"

namespace warplab::coalescing {

namespace {

// The kernels index `out` with unsigned int.
constexpr std::size_t kMaxElements = (std::size_t(1) << 31) - 1;

// Bad input is refused before anything runs, with one sentence that names it.
template <class V> void validate(const RunRequest& req)
{
    const Setting& s = V::setting;
    if (req.setting >= 0 && (unsigned(req.setting) < s.first || unsigned(req.setting) > s.last))
        throw std::invalid_argument(std::string(s.name) + " " + std::to_string(req.setting) + " is out of range: " +
                                    V::meta.id + " takes " + std::to_string(s.first) + " to " + std::to_string(s.last));
    if (req.type != "float") throw std::invalid_argument("the coalescing lab copies floats: --type " + req.type + " is not offered");
    if (req.n == 0) throw std::invalid_argument("n must be at least 1");
    if (req.n > kMaxElements)
        throw std::invalid_argument("n = " + std::to_string(req.n) + " is above the kernels' limit of 2^31 - 1 elements (32-bit indices)");
    if (req.block < 32 || req.block > 1024 || req.block % 32)
        throw std::invalid_argument("block " + std::to_string(req.block) + " is out of range: use a multiple of 32 from 32 to 1024");
    const std::size_t bytes = (input_elements<V>(req.n, resolved_setting<V>(req)) + req.n) * sizeof(float) * 2;  // host and device
    if (req.backend != BackendChoice::Gpu && bytes > available_host_bytes())
        throw std::invalid_argument("n = " + std::to_string(req.n) + " needs " + std::to_string(bytes >> 20) +
                                    " MiB, more than the " + std::to_string(available_host_bytes() >> 20) + " MiB of free memory");
    if (req.watched_block >= blocks_for(req.n, req.block))
        throw std::invalid_argument("watched block " + std::to_string(req.watched_block) + " does not exist: n = " +
                                    std::to_string(req.n) + " takes " + std::to_string(blocks_for(req.n, req.block)) + " blocks");
}

RunResult run(const RunRequest& req)
{
    if (!with_version(req.version, [&](auto v) { validate<decltype(v)>(req); }))
        throw std::invalid_argument("unknown coalescing version '" + req.version + "'");
    return runs_on_gpu(req) ? run_on_gpu(req) : run_on_emulator(req);
}

}  // namespace

Lab make_lab()
{
    // 2^12 outputs: 16 blocks, quick to trace at every setting of a sweep.
    return Lab{"coalescing", "Coalescing (offset and stride copies)", version_list<Versions>(kKernels), 1u << 12, 256, {"float"}, run,
               {kBenchElements}, bench_on_gpu};
}

}  // namespace warplab::coalescing

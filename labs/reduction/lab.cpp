#include "labs/reduction/lab.h"

#include <stdexcept>

#include "labs/reduction/driver.h"

namespace warplab::reduction {

namespace {
// Kernels index with unsigned int and add up to 2*BLOCK*gridDim.x to an index.
constexpr std::size_t kMaxElements = (std::size_t(1) << 31) - 1;

// Bad input is refused before anything runs, with one sentence that names it.
void validate(const RunRequest& req)
{
    unsigned min_block = 0;  // stays 0 for an unknown version
    with_version<Versions>(req.version, [&](auto v) { min_block = decltype(v)::min_block; });
    if (min_block == 0) throw std::invalid_argument("unknown reduction version '" + req.version + "'");
    with_version<Versions>(req.version, [&](auto v) { refuse_emulating_gpu_only(decltype(v)::meta, req); });
    if (req.type != "int" && req.type != "float")
        throw std::invalid_argument("unknown type '" + req.type + "' (use int or float)");
    if (req.n == 0) throw std::invalid_argument("n must be at least 1");
    if (req.n > kMaxElements)
        throw std::invalid_argument("n = " + std::to_string(req.n) + " is above the kernels' limit of 2^31 - 1 elements (32-bit indices)");
    if (req.block < 32 || req.block > 1024 || (req.block & (req.block - 1)))
        throw std::invalid_argument("block " + std::to_string(req.block) + " is out of range: use a power of two from 32 to 1024");
    if (req.block < min_block)
        throw std::invalid_argument(req.version + " needs a block of at least " + std::to_string(min_block));
    const std::size_t bytes = req.n * 4 * 2;  // the input, its copy on the device, and the partial sums
    if (req.backend != BackendChoice::Gpu && bytes > available_host_bytes())
        throw std::invalid_argument("n = " + std::to_string(req.n) + " needs " + std::to_string(bytes >> 20) +
                                    " MiB, more than the " + std::to_string(available_host_bytes() >> 20) + " MiB of free memory");
    std::size_t first_pass_blocks = 0;
    with_version<Versions>(req.version, [&](auto v) { first_pass_blocks = decltype(v)::blocks(req.n, req.block, kEmulatedMultiprocessors); });
    if (req.watched_block >= first_pass_blocks)
        throw std::invalid_argument("watched block " + std::to_string(req.watched_block) + " does not exist in the first pass");
}

RunResult run(const RunRequest& req)
{
    validate(req);
    return runs_on_gpu(req) ? run_on_gpu(req) : run_on_emulator(req);
}
}  // namespace

Lab make_lab()
{
    // 2^22 is Harris's 4M elements; 2^20 to 2^24 fit in (or just exceed) a
    // modern L2; 2^28 and 2^30 are DRAM-bound.
    return Lab{"reduction",       "Parallel reduction (Harris)", version_list<Versions>(kKernels), 1u << 12, 256, {"int", "float"}, run,
               {1u << 20, 1u << 22, 1u << 24, 1u << 28, 1u << 30}, bench_on_gpu};
}

}  // namespace warplab::reduction

// Runs one transpose version on any backend that offers launch (the emulator,
// the GPU, the GPU trace): the grid comes from the version's tiling.
#pragma once
#include <stdexcept>
#include <string>

#include "labs/common/lab.h"
#include "labs/transpose/problem.h"
#include "labs/transpose/versions.h"

namespace warplab::transpose {

// Calls f(V{}) for the version whose id is `id`; false if there is none.
template <class F> bool with_version(const std::string& id, F&& f)
{
    return for_each_version<Versions>([&](auto v) {
        if (id != decltype(v)::meta.id) return false;
        f(v);
        return true;
    });
}

template <class V, class Backend> void transpose_on(Backend& be, const float* in, float* out, const Shape& s)
{
    transpose::launch<V>(be, Operands{in, out, static_cast<unsigned>(s.rows), static_cast<unsigned>(s.cols)});
}

// Records one block can make: each thread loads and stores each of its
// elements once in global memory and once in shared memory (4 per element),
// plus room to spare.
inline std::size_t trace_capacity(const Shape& s) { return 4 * s.elements() + 4096; }

// At most this many records in one trace (56 bytes each: 1.9 GB).
constexpr unsigned kMaxTraceRecords = 1u << 25;

// Fills in how version V launches for this shape; refuses a trace too large to hold.
template <class V> void describe_launch(RunResult& out, const Shape& s, const RunRequest& req)
{
    out.threads_per_block = V::threads;
    const dim3 b = V::block(), g = V::grid(s.rows, s.cols);
    out.block_dim = {b.x, b.y, b.z};
    out.grid_dim = {g.x, g.y, g.z};
    if (req.record && trace_capacity(s) > kMaxTraceRecords)
        throw std::invalid_argument("a trace of " + s.text() + " would hold more than 2^25 records: trace a smaller matrix");
}

// Checks `out` (copied back from either backend) against the CPU transpose
// and fills in the result's verdict and sums.
inline void check_transpose(RunResult& result, const Shape& s, const std::vector<float>& in, const std::vector<float>& out)
{
    const std::vector<float> expected = reference(s, in);
    const Comparison cmp = compare(out, expected);
    result.ok = cmp.ok;
    result.check = cmp.text(s);
    for (std::size_t i = 0; i < expected.size(); ++i) {
        result.value += out[i];
        result.expected += expected[i];
    }
}

}  // namespace warplab::transpose

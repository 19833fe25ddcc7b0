// The transpose lab as the run skeleton sees it (labs/common/run_skeleton.h):
// the shape a request asks for, bad input refused, and one run of a version
// on any backend; the grid comes from the version's tiling. Its registry line
// is in labs/common/registry.cpp.
#pragma once
#include <limits>
#include <stdexcept>
#include <string>

#include "labs/common/bench.h"
#include "labs/common/run_skeleton.h"
#include "labs/transpose/problem.h"
#include "labs/transpose/versions.h"

namespace warplab::transpose {

// The lab's kernels as PTX (labs/transpose/kernels.cu, or
// kernels/ptx/transpose.ptx where the build had no nvcc), embedded in the library.
extern const char kPtx[];

// nvcc only (gpu_bench.cu): the GPU trace and check of the run skeleton, and
// the benchmark, which times every version and the copy kernel.
GpuBackends gpu_backends();
BenchTable bench_on_gpu(const BenchOptions& options);

// {rows, cols} from a size given as {S} or {rows, cols}; n (n×n) when there is none.
inline Shape shape_from(const std::vector<std::size_t>& size, std::size_t n)
{
    Shape s;
    if (size.size() == 2)
        s = {size[0], size[1]};
    else if (size.size() == 1)
        s = {size[0], size[0]};
    else if (!size.empty())
        throw std::invalid_argument("a transpose size is S (S×S) or ROWS,COLS");
    else
        s = {n, n};
    if (s.rows == 0 || s.cols == 0) throw std::invalid_argument("the matrix needs at least one row and one column (got " + s.text() + ")");
    if (!indexable_by_32_bits(s.rows, s.cols))  // the kernels index with 32 bits
        throw std::invalid_argument("shape " + s.text() + " has 2^32 elements or more (the kernels index with 32 bits)");
    return s;
}

// The shape a request asks for: req.shape = {rows, cols} or {S} (S×S), else
// req.n (n×n), else the trace default (64×64). Throws std::invalid_argument
// for a shape the kernels cannot take.
inline Shape shape_of(const RunRequest& req)
{
    if (req.shape.empty() && req.n == 0) return shape_from({kTraceRows, kTraceCols}, 0);
    return shape_from(req.shape, req.n);
}

// The same for a benchmark's options (shape {rows, cols} or {S}, else n×n).
inline Shape shape_of(const BenchOptions& o) { return shape_from(o.shape, o.n); }

// One launch of version V on any backend (the benchmark times it).
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

// The status line's account of a run: "out = in transposed, in 64×64 floats; ...".
template <class V> std::string describe(const Shape& s)
{
    const dim3 g = V::grid(s.rows, s.cols);
    const std::size_t blocks = std::size_t(g.x) * g.y;
    return "out = in transposed, in " + s.text() + " floats, row-major; " + std::to_string(blocks) + (blocks == 1 ? " block (" : " blocks (") +
           dims(g) + ") of " + dims(V::block()) + " threads, each a " + tile_text<V>(s.rows, s.cols) + " tile";
}

// Fills in how version V launches for this shape; refuses a trace too large to hold.
template <class V> void describe_launch(RunResult& out, const Shape& s, const RunRequest& req)
{
    out.problem = describe<V>(s);
    out.shape = {s.rows, s.cols};
    out.threads_per_block = V::threads;
    const dim3 b = V::block(), g = V::grid(s.rows, s.cols);
    out.block_dim = {b.x, b.y, b.z};
    out.grid_dim = {g.x, g.y, g.z};
    if (req.record && trace_capacity(s) > kMaxTraceRecords)
        throw std::invalid_argument("a trace of " + s.text() + " would hold more than 2^25 records: trace a smaller matrix");
}

// Checks `out` (copied back from any backend) against the CPU transpose
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

struct Description {
    using Versions = transpose::Versions;
    static constexpr const KernelFiles& kernels = kKernels;
    static constexpr const char* ptx = kPtx;

    template <class V> static void validate(const RunRequest& req)
    {
        const Shape s = shape_of(req);
        if (req.block != 0 && req.block != V::threads)
            throw std::invalid_argument(std::string(V::meta.id) + "'s block is fixed by its tile: " + dims(V::block()) + " = " +
                                        std::to_string(V::threads) + " threads");
        const dim3 grid = V::grid(s.rows, s.cols);
        validate_launch(req, grid, "shape " + s.text());
        if (req.type != "float") throw std::invalid_argument("transpose moves floats: --type " + req.type + " is not offered");
        const std::size_t bytes = 3 * s.elements() * sizeof(float) * 2;  // in, out and the reference; host and device copies
        require_host_memory(req, bytes, "shape " + s.text());
    }

    template <class V, class Backend> static void run(Backend& be, const RunRequest& req, RunResult& out)
    {
        const Shape s = shape_of(req);
        describe_launch<V>(out, s, req);
        const std::vector<float> in = make_input(s, req.seed);
        float* d_in = be.template alloc<float>(in.size());
        float* d_out = be.template alloc<float>(s.elements());
        be.copy_to_device(d_in, in.data(), in.size());
        // out starts as NaN: an element no thread writes fails the comparison.
        const std::vector<float> unwritten(s.elements(), std::numeric_limits<float>::quiet_NaN());
        be.copy_to_device(d_out, unwritten.data(), unwritten.size());
        transpose_on<V>(be, d_in, d_out, s);
        std::vector<float> result(s.elements());
        be.copy_to_host(result.data(), static_cast<const float*>(d_out), result.size());
        be.free(d_in);
        be.free(d_out);
        check_transpose(out, s, in, result);
    }

    static DeviceBytes device_bytes(const RunRequest& req)
    {
        const Shape s = shape_of(req);
        return {s.bytes_moved(), "shape " + s.text()};
    }
};

}  // namespace warplab::transpose

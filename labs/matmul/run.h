// The matmul lab as the run skeleton sees it (labs/common/run_skeleton.h):
// bad input refused, and one run of a version on any backend (the emulator,
// the GPU trace, the GPU timing build): seeded A and B, the version's launch
// (its tiles by size and SM count; v12's padding and v14's BF16 inputs made
// inside it), and C checked against the CPU's product. Its registry line is
// in labs/common/registry.cpp.
#pragma once
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "labs/common/bench.h"
#include "labs/common/lab.h"
#include "labs/common/run_skeleton.h"
#include "labs/matmul/problem.h"
#include "labs/matmul/versions.h"

namespace warplab::matmul {

// The lab's kernels as PTX (labs/matmul/kernels.cu, or kernels/ptx/matmul.ptx
// where the build had no nvcc), embedded in the library.
extern const char kPtx[];

// The shape a request asks for: req.shape = {M, N, K} or {S} (S×S×S), else
// req.n (n×n×n), else the version's trace default (one block's worth).
// Throws std::invalid_argument for a shape the kernels cannot take.
Shape shape_of(const RunRequest& req);

// The status line's account of a run on a GPU of `sms` SMs (or the emulator
// standing in for one): "C = A·B, 64×64×64 floats; ...", with the tiles that
// ran where the version chooses them by size (shared by the backends).
std::string describe(const std::string& version, const Shape& s, unsigned sms);

// nvcc only (gpu_bench.cu): the GPU trace of the run skeleton, the timing
// build's check against cuBLAS, and the benchmark, which times every version
// and cuBLAS.
GpuBackends gpu_backends();
BenchTable bench_on_gpu(const BenchOptions& options);


// `bf16`: A and B as the BF16 versions read them (unused by the others).
template <class V, class Backend>
void multiply_on(Backend& be, const float* a, const float* b, float* c, const Shape& s, const Bf16Operands& bf16 = {})
{
    matmul::launch<V>(be, Operands{a, b, c, static_cast<unsigned>(s.m), static_cast<unsigned>(s.n), static_cast<unsigned>(s.k), bf16});
}

// How many rows of C a run checks against the CPU reference: all of them up
// to 2^28 multiply-adds (a fraction of a second), else the first rows that
// fit in that budget (at least one). The benchmark checks every element
// against cuBLAS instead.
inline std::size_t reference_rows(const Shape& s)
{
    const std::size_t budget = std::size_t(1) << 28, per_row = s.n * s.k;
    if (s.m * per_row <= budget) return s.m;
    return per_row >= budget ? 1 : budget / per_row;
}

// Records one block of one version can make on either backend, with room to
// spare: v5 makes the most, about 18 per thread per k (8 scalar tile loads
// and stores per 8 k, then 16 shared reads per k), plus the stores of C.
inline std::size_t trace_capacity(unsigned threads, const Shape& s)
{
    return std::size_t(threads) * (20 * (s.k + 32) + 128) + 4096;
}

// At most this many records in one trace (56 bytes each: 1.9 GB).
constexpr unsigned kMaxTraceRecords = 1u << 25;

// "BK = 16, warp tiles 64×64, 8×16 per lane": the tiles inside a block's.
inline std::string tile_details(const Tiles& t)
{
    std::string out = "BK = " + std::to_string(t.bk);
    if (t.wm) out += ", warp tiles " + std::to_string(t.wm) + "×" + std::to_string(t.wn);
    return out + ", " + std::to_string(t.tm) + "×" + std::to_string(t.tn) + (t.wm ? " per lane" : " per thread");
}

// Whether V (v13, stream-K) shares out tiles by k-tile for this shape on
// `sms` SMs; false for the other versions.
template <class V> bool stream_k_shares(const Shape& s, unsigned sms)
{
    if constexpr (requires { V::shared_tiles(s.m, s.n, s.k, sms); })
        return V::shared_tiles(s.m, s.n, s.k, sms) != 0;
    return false;
}

// How v13 launches for this shape on `sms` SMs, for the bench table's note
// and its launch line: "v13 shared out 248 of 512 tiles by k-tile among 132
// blocks", or that it ran v9's kernel; empty for the other versions.
template <class V> std::string stream_k_note(const Shape& s, unsigned sms)
{
    if constexpr (requires { V::shared_tiles(s.m, s.n, s.k, sms); }) {
        const unsigned shared = V::shared_tiles(s.m, s.n, s.k, sms), blocks = V::blocks(s.m, s.n, s.k, sms);
        const std::string tiles = std::to_string(V::tile_count(s.m, s.n)) + " tiles";
        if (shared == 0)
            return std::string(V::meta.id) + " ran v9's kernel (" + tiles + " for " + std::to_string(blocks) +
                   " blocks: full waves, or a last wave within 1/16 of full, so none to share out)";
        return std::string(V::meta.id) + " shared out " + std::to_string(shared) + " of " + tiles + " by k-tile among " +
               std::to_string(blocks) + " blocks";
    }
    return {};
}

// "v12 split K in 4 pieces (128 blocks)" where it does; empty otherwise.
template <class V> std::string k_pieces_note(const Shape& s, unsigned sms)
{
    if constexpr (requires { V::k_pieces(s.m, s.n, s.k, sms); }) {
        const dim3 g = V::grid(s.m, s.n, s.k, sms);
        if (g.z > 1)
            return std::string(V::meta.id) + " split K in " + std::to_string(g.z) + " pieces (" + std::to_string(g.x * g.y * g.z) +
                   " blocks, sums added into C)";
    }
    return {};
}

// "v8 ran 128×64 tiles (BK = 16, ...)" for a version that chooses its tiles by
// size, or how v13 shares out its tiles, for the bench table's note; empty for
// the others.
template <class V> std::string tiles_note(const Shape& s, unsigned sms)
{
    std::string out = stream_k_note<V>(s, sms) + k_pieces_note<V>(s, sms);
    if constexpr (requires { typename V::tile_choices; })
        with_tiles<V>(s.m, s.n, sms, [&](auto tiles) {
            constexpr Tiles t = decltype(tiles)::tiles;
            out = std::string(V::meta.id) + " ran " + std::to_string(t.bm) + "×" + std::to_string(t.bn) + " tiles (" +
                  tile_details(t) + ")";
        });
    return out;
}

// Fills in how version V launches for this shape on `sms` SMs (its tiles may
// depend on both); refuses a grid CUDA cannot launch, a watched block that
// does not exist and a trace too large to hold.
template <class V> void describe_launch(RunResult& out, const Shape& s, const RunRequest& req, unsigned sms)
{
    out.threads_per_block = V::threads;
    with_tiles<V>(s.m, s.n, sms, [&](auto tiles) {
        using C = decltype(tiles);
        const dim3 b = C::block(), g = launch_grid<C>(s.m, s.n, s.k, sms);
        out.block_dim = {b.x, b.y, b.z};
        out.grid_dim = {g.x, g.y, g.z};
        validate_launch(req, g, "shape " + s.text());
    });
    if (req.record && trace_capacity(V::threads, s) > kMaxTraceRecords)
        throw std::invalid_argument("a trace of " + s.text() + " would hold more than 2^25 records: trace a smaller K");
}

// Checks the product c (copied back from either backend) against the CPU
// reference (of reference_rows(s) rows), within the tolerance of the
// version's arithmetic, and fills in the result's verdict, its error against
// the FP64 product, and sums.
inline void check_product(RunResult& out, const Shape& s, const Reference& ref, const std::vector<float>& c,
                          Arithmetic arithmetic = Arithmetic::Fp32)
{
    const std::size_t rows = reference_rows(s);
    const Comparison cmp = compare(c, ref.c, ref.abs, tolerance(s.k, false, arithmetic));
    char error[64];
    std::snprintf(error, sizeof error, "; ||C - exact|| / ||exact|| = %.1e", relative_error(c, ref.c));
    out.ok = cmp.ok;
    out.check = cmp.text() + (rows < s.m ? " (first " + std::to_string(rows) + " rows checked)" : "") + error;
    for (std::size_t i = 0; i < ref.c.size(); ++i) {
        out.value += c[i];
        out.expected += ref.c[i];
    }
}

struct Description {
    using Versions = matmul::Versions;
    static constexpr const KernelFiles& kernels = kKernels;
    static constexpr const char* ptx = kPtx;

    template <class V> static void validate(const RunRequest& req)
    {
        const Shape s = shape_of(req);
        refuse_emulating_gpu_only(V::meta, req);
        if constexpr (requires { V::untraced; })
            if (runs_on_gpu(req) && req.record)  // an untraced run (the bench's, the gpu tests') is fine
                throw std::invalid_argument(std::string(V::meta.id) + " is not traced: " + V::untraced);
        if (req.block != 0 && req.block != V::threads)
            throw std::invalid_argument(std::string(V::meta.id) + "'s block is fixed by its tiles: " + dims(V::block()) +
                                        " = " + std::to_string(V::threads) + " threads");
        // The grid (and the watched block in it) depends on the tiles, which may
        // depend on the SM count: describe_launch checks it on the backend.
        if (req.type != "float") throw std::invalid_argument("matmul multiplies floats: --type " + req.type + " is not offered");
        const std::size_t bytes = (s.m * s.k + s.k * s.n + 2 * s.m * s.n) * sizeof(float) * 2;  // host and device copies
        require_host_memory(req, bytes, "shape " + s.text());
    }

    template <class V, class Backend> static void run(Backend& be, const RunRequest& req, RunResult& out)
    {
        const Shape s = shape_of(req);
        const unsigned sms = be.multiprocessors();
        out.problem = describe(req.version, s, sms);
        out.shape = {s.m, s.n, s.k};
        describe_launch<V>(out, s, req, sms);
        const Inputs in = make_inputs(s, req.seed);
        // The CPU's product before the launch: it needs only the inputs, and
        // runs while the emulator's module is still parsed (make_lab.h).
        const Reference ref = reference(s, in.a, in.b, reference_rows(s));
        float* a = be.template alloc<float>(in.a.size());
        float* b = be.template alloc<float>(in.b.size());
        float* c = be.template alloc<float>(s.m * s.n);
        be.copy_to_device(a, in.a.data(), in.a.size());
        be.copy_to_device(b, in.b.data(), in.b.size());
        // C starts as NaN: an element no thread writes fails the comparison.
        const std::vector<float> unwritten(s.m * s.n, std::numeric_limits<float>::quiet_NaN());
        be.copy_to_device(c, unwritten.data(), unwritten.size());
        multiply_on<V>(be, a, b, c, s);
        std::vector<float> product(s.m * s.n);
        be.copy_to_host(product.data(), static_cast<const float*>(c), product.size());
        be.free(a);
        be.free(b);
        be.free(c);
        check_product(out, s, ref, product, arithmetic_of<V>());
    }

    static DeviceBytes device_bytes(const RunRequest& req)
    {
        const Shape s = shape_of(req);
        return {(s.m * s.k + s.k * s.n + s.m * s.n) * sizeof(float), "shape " + s.text()};
    }
};

}  // namespace warplab::matmul

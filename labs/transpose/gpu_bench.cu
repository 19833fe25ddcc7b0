// Times every transpose version on the GPU (the plain build: no tracing),
// beside a copy kernel with v4's tiles measured in the same run
// (the reference row: both "% of copy" and "vs copy" are against it), and checks every version's output element by element: at
// the timed shape before and after timing, and at an awkward non-square shape
// that no tile divides (the lab's check_on_gpu, for the gpu tests, takes any shape).
// With --file, the user's kernel is timed and checked so too, launched as --as's version.
#include <limits>

#include "labs/common/gpu_backends.cuh"
#include "labs/common/gpu_bench.h"
#include "labs/transpose/kernels.cuh"
#include "labs/transpose/run.h"

namespace warplab::transpose {

namespace {

// Rows and columns that are no multiple of 32 or 64, and differ: a version
// that mixes up rows and columns, or drops an edge tile, fails here.
constexpr Shape kAwkwardShape{3001, 4099};

// The device side of one shape: in, out (poisoned to NaN before each checked
// run, so an element nobody writes fails), and what out must hold. Both
// shapes launch on one device, so that a --file kernel stands in for both.
struct Problem {
    Shape s;
    std::vector<float> in, transposed;
    TimingDevice& gpu;
    float *d_in = nullptr, *d_out = nullptr;

    Problem(TimingDevice& device, const Shape& shape, std::uint64_t seed)
        : s(shape), in(make_input(shape, seed)), transposed(reference(shape, in)), gpu(device)
    {
        d_in = gpu.alloc<float>(s.elements());
        d_out = gpu.alloc<float>(s.elements());
        gpu.copy_to_device(d_in, in.data(), in.size());
    }
    ~Problem()
    {
        gpu.free(d_in);
        gpu.free(d_out);
    }
    Problem(const Problem&) = delete;
    Problem& operator=(const Problem&) = delete;

    void poison() { wl::cuda::check(cudaMemset(d_out, 0xFF, s.elements() * sizeof(float)), "cudaMemset(out to NaN)"); }
    std::vector<float> download()
    {
        std::vector<float> out(s.elements());
        wl::cuda::check(cudaDeviceSynchronize(), "kernel");
        gpu.copy_to_host(out.data(), d_out, out.size());
        return out;
    }
    // Runs `launch` on poisoned output and compares the result with `expected`.
    template <class F> Comparison checked(F&& launch, const std::vector<float>& expected)
    {
        poison();
        launch();
        wl::cuda::check(cudaGetLastError(), "launch");
        return compare(download(), expected);
    }
};

template <class V> Comparison run_checked(Problem& p)
{
    return p.checked([&] { transpose_on<V>(p.gpu, p.d_in, p.d_out, p.s); }, p.transposed);
}

template <class V> BenchRow bench_version(Problem& p, Problem& awkward, const BenchOptions& o)
{
    const bool ok_before = run_checked<V>(p).ok && run_checked<V>(awkward).ok;
    const wl::cuda::Timing t = wl::cuda::time_runs([&] { transpose_on<V>(p.gpu, p.d_in, p.d_out, p.s); }, o.warm, o.seconds_per_version);
    wl::cuda::check(cudaGetLastError(), V::meta.name);
    const bool ok_after = run_checked<V>(p).ok;
    BenchRow row = timed_row(V::meta, t, double(p.s.bytes_moved()) / 1e9, ok_before && ok_after);
    row.block = V::threads;
    return row;
}

// The copy kernel: its output must equal its input.
BenchRow bench_copy(Problem& p, const BenchOptions& o)
{
    auto run = [&] { transpose_on<Copy>(p.gpu, p.d_in, p.d_out, p.s); };
    const bool ok_before = p.checked(run, p.in).ok;
    const wl::cuda::Timing t = wl::cuda::time_runs(run, o.warm, o.seconds_per_version);
    const bool ok_after = p.checked(run, p.in).ok;
    BenchRow row = timed_row("copy (" + std::string(V4::meta.id) + "'s tiles, kernels/transpose/00_copy.cuh)", t, double(p.s.bytes_moved()) / 1e9, ok_before && ok_after);
    row.reference = true;
    row.block = Copy::threads;
    return row;
}

void require_fit(const Shape& s)
{
    // The timed shape, the awkward one, the copy kernel's own buffers and room for the L2 flush.
    const std::size_t needed = s.bytes_moved() * 2 + kAwkwardShape.bytes_moved() + (std::size_t(256) << 20);
    wl::cuda::require_free_memory(needed, "shape " + s.text());
}

}  // namespace

BenchTable bench_on_gpu(const BenchOptions& o)
{
    const GpuStatus status = gpu_status();
    if (!status.available) throw std::invalid_argument("no GPU to time on: " + status.reason);
    if (o.type != "float") throw std::invalid_argument("transpose moves floats: --type " + o.type + " is not offered");
    const Shape s = shape_of(o);  // refuses shapes the kernels cannot index
    require_grid_rows(V1::grid(s.rows, s.cols), "shape " + s.text());
    require_fit(s);

    BenchTable table = memory_bound_table("transpose", "float", o);
    table.n = s.rows == s.cols ? s.rows : 0;
    if (table.n == 0) table.shape = {s.rows, s.cols};
    table.note = "out = in transposed, in " + s.text() + " floats; GB/s count each element read once and written once (" +
                 std::to_string(s.bytes_moved() >> 20) + " MiB); every version also checked on " + kAwkwardShape.text() + "; " +
                 (o.warm ? "warm L2" : "L2 flushed before each run");

    TimingDevice gpu;
    Problem problem(gpu, s, 1), awkward(gpu, kAwkwardShape, 2);
    for_each_version<Versions>([&](auto v) {
        table.rows.push_back(bench_version<decltype(v)>(problem, awkward, o));
        return false;
    });
    add_user_kernel_row<Versions>(table, gpu, kKernels, o, [&](auto v) { return bench_version<decltype(v)>(problem, awkward, o); });
    table.rows.push_back(bench_copy(problem, o));
    table.copy_rate = table.rows.back().rate;  // one copy kernel behind "% of copy" and "vs copy"
    derive_ratios(table);
    return table;
}

GpuBackends gpu_backends() { return gpu_backends_of<Description>(bench_on_gpu); }

}  // namespace warplab::transpose

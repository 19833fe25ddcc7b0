// Times each copy version at every setting of its sweep on the GPU (the plain
// build: no tracing): effective bandwidth, n floats read plus n written per
// run (NVIDIA, "Optimizing CUDA"), beside a copy kernel measured in the same
// run. Rows are named "v1 offset 5" (row_name), one per setting. With --file,
// the user's kernel gets a row at each setting of --as's version, right after
// that version's ("yours offset 5").
#include "labs/common/gpu_backends.cuh"
#include "labs/common/gpu_bench.h"
#include "labs/coalescing/kernels.cuh"
#include "labs/coalescing/run.h"

namespace warplab::coalescing {

namespace {

constexpr unsigned kBlock = 256;

// GB one run moves usefully: n floats read and n written.
double giga_bytes(std::size_t n) { return 2.0 * double(n) * sizeof(float) / 1e9; }

template <class V>
bool copies_right(TimingDevice& gpu, const std::vector<float>& in, const float* d_in, float* d_out, std::size_t n, unsigned setting)
{
    wl::cuda::check(cudaMemset(d_out, 0xFF, n * sizeof(float)), "cudaMemset(out to NaN)");
    launch<V>(gpu, d_in, d_out, n, setting, kBlock);
    std::vector<float> out(n);
    gpu.copy_to_host(out.data(), static_cast<const float*>(d_out), n);
    return first_wrong<V>(in, out, setting) == n;
}

// One row per setting: the input is allocated once, for the largest.
template <class V> std::vector<BenchRow> bench_version(TimingDevice& gpu, std::size_t n, const BenchOptions& o)
{
    std::vector<BenchRow> rows;
    const std::vector<float> in = make_input(input_elements<V>(n, V::setting.last), 1);
    float* d_in = gpu.alloc<float>(in.size());
    float* d_out = gpu.alloc<float>(n);
    gpu.copy_to_device(d_in, in.data(), in.size());
    for (unsigned s = V::setting.first; s <= V::setting.last; ++s) {
        const bool ok_before = copies_right<V>(gpu, in, d_in, d_out, n, s);
        const wl::cuda::Timing t = wl::cuda::time_runs([&] { launch<V>(gpu, static_cast<const float*>(d_in), d_out, n, s, kBlock); },
                                                       o.warm, o.seconds_per_version);
        wl::cuda::check(cudaGetLastError(), V::meta.id);
        const bool ok_after = copies_right<V>(gpu, in, d_in, d_out, n, s);
        BenchRow row = timed_row(row_name(V::meta.id, s), t, giga_bytes(n), ok_before && ok_after);
        row.block = kBlock;
        rows.push_back(row);
    }
    gpu.free(d_in);
    gpu.free(d_out);
    return rows;
}

void require_room(std::size_t n)
{
    std::size_t largest = 0;
    for_each_version<Versions>([&](auto v) {
        largest = std::max(largest, input_elements<decltype(v)>(n, decltype(v)::setting.last));
        return false;
    });
    wl::cuda::require_free_memory((largest + n) * sizeof(float), "n = " + std::to_string(n));
}

}  // namespace

BenchTable bench_on_gpu(const BenchOptions& o)
{
    const GpuStatus status = gpu_status();
    if (!status.available) throw std::invalid_argument("no GPU to time on: " + status.reason);
    if (o.type != "float") throw std::invalid_argument("the coalescing lab copies floats: --type " + o.type + " is not offered");
    if (o.n == 0 || o.n > (std::size_t(1) << 31) - 1)
        throw std::invalid_argument("n = " + std::to_string(o.n) + " is outside 1 .. 2^31 - 1");
    require_room(o.n);
    BenchTable table = memory_bound_table("coalescing", "float", o);
    table.note = "GB/s: n floats read + n written per run, whatever the stride makes the hardware fetch";
    table.copy_rate = measure_copy_gbps(o.n * sizeof(float), o.warm, o.seconds_per_version);
    TimingDevice gpu;
    for_each_version<Versions>([&](auto v) {
        for (const BenchRow& row : bench_version<decltype(v)>(gpu, o.n, o)) table.rows.push_back(row);
        return false;
    });
    add_user_kernel_row<Versions>(table, gpu, kKernels, o, [&](auto v) { return bench_version<decltype(v)>(gpu, o.n, o); });
    derive_ratios(table);
    return table;
}

GpuBackends gpu_backends() { return gpu_backends_of<Description>(bench_on_gpu); }

}  // namespace warplab::coalescing

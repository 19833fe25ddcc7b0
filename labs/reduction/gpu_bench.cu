// Times every reduction version on the GPU (the plain build: no tracing),
// beside cub::DeviceReduce::Sum and a copy kernel measured in the same run.
#include <cub/device/device_reduce.cuh>
#include <cstdio>

#include "labs/common/gpu_backends.cuh"
#include "labs/common/gpu_bench.h"
#include "labs/reduction/kernels.cuh"
#include "labs/reduction/lab.h"
#include "labs/reduction/run.h"

namespace warplab::reduction {

namespace {

// GB the algorithm must move: n elements read once.
template <class T> double giga_bytes(std::size_t n) { return double(n) * sizeof(T) / 1e9; }

// The block version V is timed at: --block's (o.block = {B}), else its own.
template <class V> unsigned bench_block(const BenchOptions& o) { return o.block.empty() ? V::meta.bench_block : o.block[0]; }

template <class T, class V>
BenchRow bench_version(TimingDevice& gpu, const T* d_in, std::size_t n, double expected, const BenchOptions& o)
{
    BenchRow row;
    with_reducer<V, T>(gpu, n, bench_block<V>(o), [&](auto& reducer) {
        const bool ok_before = sum_matches<T>(reducer.sum(d_in), expected);
        const wl::cuda::Timing t = wl::cuda::time_runs([&] { reducer.run(d_in); }, o.warm, o.seconds_per_version);
        wl::cuda::check(cudaGetLastError(), V::meta.name);
        const bool ok_after = sum_matches<T>(reducer.sum(d_in), expected);
        row = timed_row(V::meta, t, giga_bytes<T>(n), ok_before && ok_after);
        row.block = bench_block<V>(o);
    });
    return row;
}

template <class T>
BenchRow bench_cub(const T* d_in, std::size_t n, double expected, const BenchOptions& o)
{
    T* d_out = nullptr;
    void* temp = nullptr;
    std::size_t temp_bytes = 0;
    wl::cuda::check(cudaMalloc(&d_out, sizeof(T)), "cudaMalloc(cub out)");
    wl::cuda::check(cub::DeviceReduce::Sum(nullptr, temp_bytes, d_in, d_out, static_cast<int>(n)), "cub sizing");
    wl::cuda::check(cudaMalloc(&temp, temp_bytes), "cudaMalloc(cub temp)");
    auto run = [&] { cub::DeviceReduce::Sum(temp, temp_bytes, d_in, d_out, static_cast<int>(n)); };
    auto result = [&] {
        run();
        T v{};
        wl::cuda::check(cudaMemcpy(&v, d_out, sizeof v, cudaMemcpyDeviceToHost), "cub result");
        return static_cast<double>(v);
    };
    const bool ok_before = sum_matches<T>(result(), expected);
    const wl::cuda::Timing t = wl::cuda::time_runs(run, o.warm, o.seconds_per_version);
    const bool ok_after = sum_matches<T>(result(), expected);
    cudaFree(temp);
    cudaFree(d_out);
    BenchRow row = timed_row("CUB DeviceReduce::Sum", t, giga_bytes<T>(n), ok_before && ok_after);
    row.reference = true;
    return row;
}

// The ceiling a reduction can reach is what a kernel that only reads gets
// from memory, not the copy's read + write: measured in the same run, each
// row's share of it goes in the table's note.
void add_read_probe(BenchTable& table, std::size_t bytes, const BenchOptions& o)
{
    const double read_rate = measure_read_gbps(bytes, o.warm, o.seconds_per_version);
    char buf[96];
    std::snprintf(buf, sizeof buf, "read-only probe (loads or bulk copies, the faster) %.0f GB/s in the same run; %% of it:",
                  read_rate);
    std::string text = buf;
    for (const BenchRow& r : table.rows) {
        std::snprintf(buf, sizeof buf, " %.1f %%", 100.0 * r.rate / read_rate);
        text += " " + r.version + buf + (&r == &table.rows.back() ? "" : ",");
    }
    table.note += (table.note.empty() ? "" : "; ") + text;
}

template <class T> BenchTable bench_typed(const BenchOptions& o)
{
    const GpuStatus status = gpu_status();
    if (!status.available) throw std::invalid_argument("no GPU to time on: " + status.reason);
    if (o.n == 0 || o.n > (std::size_t(1) << 31) - 1)
        throw std::invalid_argument("n = " + std::to_string(o.n) + " is outside 1 .. 2^31 - 1");
    wl::cuda::require_free_memory(2 * o.n * sizeof(T), "n = " + std::to_string(o.n));
    if (o.block.size() > 1 || (o.block.size() == 1 && (o.block[0] < 32 || o.block[0] > 1024 || (o.block[0] & (o.block[0] - 1)))))
        throw std::invalid_argument("reduction's --block is B threads, a power of two from 32 to 1024");
    BenchTable table = memory_bound_table("reduction", to_string(std::is_integral_v<T> ? ElemType::Int : ElemType::Float), o);
    const Provenance& p = table.provenance;
    const std::size_t bytes = o.n * sizeof(T);
    if (bytes <= p.l2_bytes)
        table.note = "the input (" + std::to_string(bytes >> 20) + " MiB) fits in the " + std::to_string(p.l2_bytes >> 20) +
                     " MiB L2: " + (o.warm ? "warm runs read it from L2" : "L2 is flushed before each run");

    TimingDevice gpu;
    // v10's launch shape is chosen by size (versions.h): say which one ran.
    const unsigned sms = gpu.multiprocessors();
    table.note += std::string(table.note.empty() ? "" : "; ") + "v10 " +
                  (V10::ring(o.n, sms) ? "streams through its ring of bulk copies, one block per SM"
                                       : "gives no ring here (under 32 pieces an SM): rounds of four loads a thread, " +
                                             std::to_string(V10::blocks(o.n, bench_block<V10>(o), sms)) + " blocks");
    const std::vector<T> input = make_input<T>(o.n, 1);
    const double expected = reference_sum(input);
    T* d_in = gpu.alloc<T>(o.n);
    gpu.copy_to_device(d_in, input.data(), o.n);
    table.copy_rate = measure_copy_gbps(bytes, o.warm, o.seconds_per_version);
    std::string too_small;  // versions whose smallest block is above --block's
    for_each_version<Versions>([&](auto v) {
        using V = decltype(v);
        if (bench_block<V>(o) >= V::min_block)
            table.rows.push_back(bench_version<T, V>(gpu, d_in, o.n, expected, o));
        else
            too_small += (too_small.empty() ? "" : ", ") + std::string(V::meta.id);
        return false;
    });
    if (!o.block.empty())
        table.note += std::string(table.note.empty() ? "" : "; ") + "every version at block " + std::to_string(o.block[0]) +
                      (too_small.empty() ? "" : " (not " + too_small + ": they need a larger block)");
    add_user_kernel_row<Versions>(table, gpu, kKernels, o, [&](auto v) { return bench_version<T, decltype(v)>(gpu, d_in, o.n, expected, o); });
    table.rows.push_back(bench_cub<T>(d_in, o.n, expected, o));
    gpu.free(d_in);
    derive_ratios(table);
    add_read_probe(table, bytes, o);
    return table;
}

}  // namespace

BenchTable bench_on_gpu(const BenchOptions& o)
{
    return with_element_type(o.type, [&]<class T>() { return bench_typed<T>(o); });
}

GpuBackends gpu_backends() { return gpu_backends_of<Description>(bench_on_gpu); }

}  // namespace warplab::reduction

// Times every reduction version on the GPU (the plain build: no tracing),
// beside cub::DeviceReduce::Sum, the copy kernel and the read-only probe, all
// timed in turns.
#include <cub/device/device_reduce.cuh>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <vector>

#include "labs/common/gpu_backends.cuh"
#include "labs/common/gpu_bench.h"
#include "labs/common/probes.h"
#include "labs/reduction/kernels.cuh"
#include "labs/reduction/lab.h"
#include "labs/reduction/run.h"

namespace warplab::reduction {

namespace {

// GB the algorithm must move: n elements read once.
template <class T> double giga_bytes(std::size_t n) { return double(n) * sizeof(T) / 1e9; }

// The block version V is timed at: --block's (o.block = {B}), else its own.
template <class V> unsigned bench_block(const BenchOptions& o) { return o.block.empty() ? V::meta.bench_block : o.block[0]; }

// The device input and its sum, for the contenders' checks.
template <class T> struct Input {
    const T* d;
    std::size_t n;
    double expected;
};

// A version's row: its reducer (kept in `held`) at the block it is timed at.
template <class T, class V>
Contender version_contender(TimingDevice& gpu, const Input<T>& in, const BenchOptions& o, std::vector<std::unique_ptr<AnyReducer<T>>>& held)
{
    const unsigned block = bench_block<V>(o);
    AnyReducer<T>* r = held.emplace_back(make_reducer<V, T>(gpu, in.n, block)).get();
    return {V::meta.id, [r, in] { r->run(in.d); }, [r, in] { return sum_matches<T>(r->sum(in.d), in.expected); },
            [in, block](const wl::cuda::Timing& t, bool ok) {
                BenchRow row = timed_row(V::meta, t, giga_bytes<T>(in.n), ok);
                row.block = block;
                return row;
            }};
}

// cub::DeviceReduce::Sum with its output and temporary storage.
template <class T> class CubSum {
public:
    explicit CubSum(const Input<T>& in) : in_(in)
    {
        wl::cuda::check(cudaMalloc(&out_, sizeof(T)), "cudaMalloc(cub out)");
        wl::cuda::check(cub::DeviceReduce::Sum(nullptr, temp_bytes_, in.d, out_, static_cast<int>(in.n)), "cub sizing");
        wl::cuda::check(cudaMalloc(&temp_, temp_bytes_), "cudaMalloc(cub temp)");
    }
    ~CubSum()
    {
        cudaFree(temp_);
        cudaFree(out_);
    }
    CubSum(const CubSum&) = delete;
    CubSum& operator=(const CubSum&) = delete;
    void run() { cub::DeviceReduce::Sum(temp_, temp_bytes_, in_.d, out_, static_cast<int>(in_.n)); }
    bool checked()
    {
        run();
        T v{};
        wl::cuda::check(cudaMemcpy(&v, out_, sizeof v, cudaMemcpyDeviceToHost), "cub result");
        return sum_matches<T>(static_cast<double>(v), in_.expected);
    }

private:
    Input<T> in_;
    T* out_ = nullptr;
    void* temp_ = nullptr;
    std::size_t temp_bytes_ = 0;
};

template <class T> Contender cub_contender(CubSum<T>& cub, const Input<T>& in)
{
    return {"CUB DeviceReduce::Sum", [&cub] { cub.run(); }, [&cub] { return cub.checked(); },
            [in](const wl::cuda::Timing& t, bool ok) {
                BenchRow row = timed_row("CUB DeviceReduce::Sum", t, giga_bytes<T>(in.n), ok);
                row.reference = true;
                return row;
            }};
}

// The ceiling a reduction can reach is what a kernel that only reads gets
// from memory, not the copy's read + write: timed in turns with the rows,
// each row's share of it goes in the table's note.
void add_read_probe_note(BenchTable& table, double read_rate)
{
    std::string text = "read-only probe (loads or bulk copies, the faster) " + std::to_string(std::lround(read_rate)) +
                       " GB/s, timed in turns with the rows; % of it:";
    char buf[32];
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
    // The input, the copy's two buffers and the read probe's.
    wl::cuda::require_free_memory(4 * o.n * sizeof(T), "n = " + std::to_string(o.n));
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
    table.note += std::string(table.note.empty() ? "" : "; ") + "v10 " + V10::path(o.n, bench_block<V10>(o), sms);
    const std::vector<T> input = make_input<T>(o.n, 1);
    T* d_in = gpu.alloc<T>(o.n);
    gpu.copy_to_device(d_in, input.data(), o.n);
    const Input<T> in{d_in, o.n, reference_sum(input)};

    // Every version, CUB, the copy and the read probe, timed in turns.
    std::vector<std::unique_ptr<AnyReducer<T>>> reducers;
    std::vector<Contender> contenders;
    std::string too_small;  // versions whose smallest block is above --block's
    for_each_version<Versions>([&](auto v) {
        using V = decltype(v);
        if (bench_block<V>(o) >= V::min_block)
            contenders.push_back(version_contender<T, V>(gpu, in, o, reducers));
        else
            too_small += (too_small.empty() ? "" : ", ") + std::string(V::meta.id);
        return false;
    });
    CubSum<T> cub(in);
    contenders.push_back(cub_contender(cub, in));
    const CopyProbe copy(bytes);
    const ReadProbe read(bytes);
    std::vector<std::function<void()>> yardsticks = read.runs();
    yardsticks.push_back(copy.run());
    std::vector<wl::cuda::Timing> yardstick_times;
    table.rows = rows_in_turns(contenders, yardsticks, o, yardstick_times);
    table.copy_rate = copy.gbps(yardstick_times.back());
    yardstick_times.pop_back();
    const double read_rate = read.gbps(yardstick_times);

    if (!o.block.empty())
        table.note += std::string(table.note.empty() ? "" : "; ") + "every version at block " + std::to_string(o.block[0]) +
                      (too_small.empty() ? "" : " (not " + too_small + ": they need a larger block)");
    add_user_kernel_row<Versions>(table, gpu, kKernels, o, [&](auto v) {
        std::vector<std::unique_ptr<AnyReducer<T>>> own;
        return time_alone(version_contender<T, decltype(v)>(gpu, in, o, own), o);
    });
    reducers.clear();
    gpu.free(d_in);
    derive_ratios(table);
    add_read_probe_note(table, read_rate);
    return table;
}

}  // namespace

BenchTable bench_on_gpu(const BenchOptions& o)
{
    return with_element_type(o.type, [&]<class T>() { return bench_typed<T>(o); });
}

GpuBackends gpu_backends() { return gpu_backends_of<Description>(bench_on_gpu); }

}  // namespace warplab::reduction

// Times every image version on the GPU (the plain build: no tracing): all its
// passes over a 1080p RGBA8 picture (or --image, --size), beside the copy
// kernel every lab's "% of copy" is against and CUB's transform-reduce of
// the same pixels, in the same run. With --block WxH every version runs at
// that group (those not built for it are left out, and the note says so).
// v3-wave64 is never timed: on a 32-wide warp its tail is a data race.
#include <cub/device/device_reduce.cuh>

#include "labs/common/gpu_backends.cuh"
#include "labs/common/gpu_bench.h"
#include "labs/image/kernels.cuh"
#include "labs/image/run.h"

namespace warplab::image {

static_assert(sizeof(uchar4) == sizeof(Rgba8) && alignof(uchar4) == alignof(Rgba8), "the host's pixel is CUDA's uchar4");

namespace {

// The versions' luminance (kernels/image/01_interleaved.cuh), for CUB.
struct Luminance {
    __device__ float operator()(const uchar4& p) const { return luminance(p); }
};

// GB the algorithm must move: every pixel read once (4 bytes).
double giga_bytes(const Picture& p) { return double(p.count()) * sizeof(Rgba8) / 1e9; }

template <class V, unsigned BX, unsigned BY>
BenchRow bench_at(TimingDevice& gpu, const Rgba8* d_in, const Picture& p, double expected, const BenchOptions& o)
{
    Passes<V, BX, BY, TimingDevice> passes(gpu, p.width, p.height);
    const bool ok_before = sum_matches(passes.sum(d_in), expected);
    const wl::cuda::Timing t = wl::cuda::time_runs([&] { passes.run(d_in); }, o.warm, o.seconds_per_version);
    wl::cuda::check(cudaGetLastError(), V::meta.name);
    const bool ok_after = sum_matches(passes.sum(d_in), expected);
    BenchRow row = timed_row(V::meta, t, giga_bytes(p), ok_before && ok_after);
    row.block = BX * BY;
    return row;
}

// Version V's row at its own group or the one --block asks for; none where V is not built for it.
template <class V>
std::optional<BenchRow> bench_version(TimingDevice& gpu, const Rgba8* d_in, const Picture& p, double expected, const BenchOptions& o)
{
    const std::vector<unsigned> asked = o.block.size() == 1 ? std::vector<unsigned>{o.block[0], 1u} : o.block;
    Group g = V::group;
    if (!asked.empty()) {
        g = Group{asked[0], asked[1]};
        bool built = false;
        for (Group k : kGroups) built |= k == g && takes<V>(g);
        if (!built) return std::nullopt;
    }
    std::optional<BenchRow> row;
    with_group(g, [&]<unsigned BX, unsigned BY>() {
        if constexpr (takes<V>(Group{BX, BY})) row = bench_at<V, BX, BY>(gpu, d_in, p, expected, o);
    });
    return row;
}

BenchRow bench_cub(const Rgba8* d_in, const Picture& p, double expected, const BenchOptions& o)
{
    const uchar4* in = reinterpret_cast<const uchar4*>(d_in);
    float* d_out = nullptr;
    void* temp = nullptr;
    std::size_t temp_bytes = 0;
    const auto n = static_cast<unsigned>(p.count());
    wl::cuda::check(cudaMalloc(&d_out, sizeof(float)), "cudaMalloc(cub out)");
    wl::cuda::check(cub::DeviceReduce::TransformReduce(nullptr, temp_bytes, in, d_out, n, cuda::std::plus<float>{}, Luminance{}, 0.0f),
                    "cub sizing");
    wl::cuda::check(cudaMalloc(&temp, temp_bytes), "cudaMalloc(cub temp)");
    auto run = [&] { cub::DeviceReduce::TransformReduce(temp, temp_bytes, in, d_out, n, cuda::std::plus<float>{}, Luminance{}, 0.0f); };
    auto result = [&] {
        run();
        float v = 0;
        wl::cuda::check(cudaMemcpy(&v, d_out, sizeof v, cudaMemcpyDeviceToHost), "cub result");
        return double(v);
    };
    const bool ok_before = sum_matches(result(), expected);
    const wl::cuda::Timing t = wl::cuda::time_runs(run, o.warm, o.seconds_per_version);
    const bool ok_after = sum_matches(result(), expected);
    cudaFree(temp);
    cudaFree(d_out);
    BenchRow row = timed_row("CUB DeviceReduce::TransformReduce", t, giga_bytes(p), ok_before && ok_after);
    row.reference = true;
    return row;
}

std::string table_note(const Picture& p, const BenchOptions& o, const std::string& left_out, std::size_t l2_bytes)
{
    const std::string file = input_value(o.inputs, kPictureInput);
    std::string note = "mean luminance of " + p.text() + " RGBA8 pixels (" + (file.empty() ? "seeded" : file) +
                       "); GB/s count each pixel read once; every pass of a version timed (the later ones sum the partials)";
    if (!o.block.empty())
        note += "; every version at group " + std::to_string(o.block[0]) + "×" + std::to_string(o.block.size() == 2 ? o.block[1] : 1u);
    if (!left_out.empty()) note += "; not built for that group: " + left_out;
    note += "; v3-wave64 not timed (its 64-thread tail is a data race on 32-wide warps)";
    if (p.count() * 4 <= l2_bytes) note += std::string("; the picture fits in L2: ") + (o.warm ? "warm runs read it from L2" : "L2 flushed before each run");
    return note;
}

}  // namespace

BenchTable bench_on_gpu(const BenchOptions& o)
{
    const GpuStatus status = gpu_status();
    if (!status.available) throw std::invalid_argument("no GPU to time on: " + status.reason);
    if (o.type != "float") throw std::invalid_argument("the image lab sums floats: --type " + o.type + " is not offered");
    if (o.block.size() > 2) throw std::invalid_argument("a group is WxH (e.g. 16x16)");
    // --size W,H; else 1080p (the lab's one bench size, n = 1920·1080 pixels)
    const std::vector<std::size_t> size = o.shape.size() == 2 ? o.shape : std::vector<std::size_t>{};
    const std::string file = input_value(o.inputs, kPictureInput);
    const PictureSize asked = picture_size(file, size, kBenchWidth, kBenchHeight);  // refused before a picture is built
    wl::cuda::require_free_memory(asked.count() * 4 * 3, "a " + asked.text() + " picture");
    const Picture p = picture_for(file, size, kBenchWidth, kBenchHeight, 1);

    BenchTable table = memory_bound_table("image", "float", o);
    table.n = 0;  // the picture's size is its shape
    table.shape = {p.width, p.height};

    TimingDevice gpu;
    const double expected = reference_sum(p);
    Rgba8* d_in = gpu.alloc<Rgba8>(p.count());
    gpu.copy_to_device(d_in, p.pixels.data(), p.count());
    table.copy_rate = measure_copy_gbps(p.count() * 4, o.warm, o.seconds_per_version);  // the one copy kernel (labs/common/gpu.cu)
    std::string left_out;
    for_each_version<Versions>([&](auto v) {
        using V = decltype(v);
        if constexpr (!requires { V::races_on_nvidia; }) {
            if (std::optional<BenchRow> row = bench_version<V>(gpu, d_in, p, expected, o))
                table.rows.push_back(*row);
            else
                left_out += (left_out.empty() ? "" : ", ") + std::string(V::meta.id);
        }
        return false;
    });
    add_user_kernel_row<Versions>(table, gpu, kKernels, o, [&](auto v) {
        return bench_version<decltype(v)>(gpu, d_in, p, expected, o).value_or(BenchRow{});
    });
    table.rows.push_back(bench_cub(d_in, p, expected, o));
    gpu.free(d_in);
    table.note = table_note(p, o, left_out, table.provenance.l2_bytes);
    derive_ratios(table);
    return table;
}

GpuBackends gpu_backends() { return gpu_backends_of<Description>(bench_on_gpu); }

}  // namespace warplab::image

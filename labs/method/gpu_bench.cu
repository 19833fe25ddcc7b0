// Times every method version on the GPU (the plain build: no tracing), and
// v10 built with -use_fast_math after v10, all in turns so that each sees the
// same clocks, each output checked before and after (the texture version's
// texture object made once with its buffers, outside the timing). The rate is
// elements per second: the versions do different work on the same n
// elements, so only their times compare. Under the table, the bottleneck
// search's verdicts (verdict.h), and the fission pair's occupancy on this GPU.
#include <cstring>

#include "labs/common/gpu_backends.cuh"
#include "labs/common/gpu_bench.h"
#include "labs/method/fast_math.h"
#include "labs/method/kernels.cuh"
#include "labs/method/run.h"
#include "labs/method/verdict.h"

namespace warplab::method {

namespace {

constexpr unsigned kBlock = 256;

// A version's buffers on the GPU, its input seeded once; the output its first
// check passed, which later checks compare with (the host's check of v1 runs
// its thousand operations an element on one core: once is enough).
struct Buffers {
    std::vector<float> in, passed;
    float* d_in = nullptr;
    float* d_out = nullptr;
    TextureObject texture = 0;  // over d_in, for a version that reads through one (made once, outside the timing)
};

// A row of the table: `launch` runs it once on the version's buffers; its
// output is checked as version V's.
template <class V> Contender contender(TimingDevice& gpu, Buffers& b, std::size_t n, std::function<void()> launch)
{
    Contender c;
    c.name = V::meta.id;
    c.run = launch;
    c.checked = [&gpu, &b, n, launch] {
        const std::size_t size = outputs<V>(n);
        const std::vector<float> start(size, output_start<V>());
        gpu.copy_to_device(b.d_out, start.data(), size);
        launch();
        std::vector<float> out(size);
        gpu.copy_to_host(out.data(), static_cast<const float*>(b.d_out), size);
        // The atomic sum may differ from run to run (its order is the GPU's): it is held to its bound each time.
        if (!b.passed.empty() && V::family != Family::Sum) return std::memcmp(out.data(), b.passed.data(), size * sizeof(float)) == 0;
        if (!check_output<V>(b.in, out).ok) return false;
        b.passed = std::move(out);
        return true;
    };
    c.row = [n](const wl::cuda::Timing& t, bool ok) {
        BenchRow r = timed_row(V::meta, t, double(n) / 1e9, ok);
        r.block = kBlock;
        return r;
    };
    return c;
}

// Version V's row: its own launch.
template <class V> Contender version_contender(TimingDevice& gpu, Buffers& b, std::size_t n)
{
    return contender<V>(gpu, b, n, [&gpu, &b, n] { launch<V>(gpu, static_cast<const float*>(b.d_in), b.d_out, n, kBlock, b.texture); });
}

// v10 built with -use_fast_math (fast_math.cu), after v10: held to v11's
// bound, the intrinsics' that the flag substitutes.
Contender fast_math_contender(TimingDevice& gpu, Buffers& b, std::size_t n)
{
    Contender c = contender<V11>(gpu, b, n, [&gpu, &b, n] {
        gpu.launch(kFastMathRow, sin_exp_fast_math(), dim3(blocks_for(n, kBlock)), dim3(kBlock), static_cast<const float*>(b.d_in), b.d_out,
                   static_cast<unsigned>(n));
    });
    c.name = kFastMathRow;
    c.row = [n, row = c.row](const wl::cuda::Timing& t, bool ok) {
        BenchRow r = row(t, ok);
        r.version = kFastMathRow;
        r.previous_version = V10::meta.id;
        r.variant = true;
        return r;
    };
    return c;
}

// "v17 (2 kernels): 38 and 38 registers, 6 and 6 blocks an SM": each of
// version V's kernels as this GPU's runtime sees it, at the bench's block.
template <class V> std::string occupancy_line()
{
    std::vector<const void*> kernels{reinterpret_cast<const void*>(kernel_pointer(Kernel<V, float>{}))};
    if constexpr (TwoLaunches<V>) kernels.push_back(reinterpret_cast<const void*>(kernel_pointer(Kernel<typename V::Second, float>{})));
    std::string registers, blocks;
    for (const void* k : kernels) {
        cudaFuncAttributes a{};
        wl::cuda::check(cudaFuncGetAttributes(&a, k), "cudaFuncGetAttributes");
        int resident = 0;
        wl::cuda::check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, k, int(kBlock), 0), "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
        registers += (registers.empty() ? "" : " and ") + std::to_string(a.numRegs);
        blocks += (blocks.empty() ? "" : " and ") + std::to_string(resident);
    }
    return std::string(V::meta.id) + (kernels.size() > 1 ? " (2 kernels): " : ": ") + registers + " registers, " + blocks +
           " blocks an SM";
}

}  // namespace

static_assert(std::is_same_v<TextureObject, cudaTextureObject_t>, "versions.h's TextureObject is CUDA's handle");

TextureObject cuda_linear_texture(const float* texels, std::size_t n)
{
    cudaResourceDesc resource{};
    resource.resType = cudaResourceTypeLinear;
    resource.res.linear.devPtr = const_cast<float*>(texels);
    resource.res.linear.desc = cudaCreateChannelDesc<float>();
    resource.res.linear.sizeInBytes = n * sizeof(float);
    cudaTextureDesc description{};
    description.readMode = cudaReadModeElementType;
    cudaTextureObject_t texture = 0;
    wl::cuda::check(cudaCreateTextureObject(&texture, &resource, &description, nullptr), "cudaCreateTextureObject");
    return texture;
}

void cuda_destroy_texture(TextureObject texture)
{
    wl::cuda::check(cudaDestroyTextureObject(texture), "cudaDestroyTextureObject");
}

BenchTable bench_on_gpu(const BenchOptions& o)
{
    const GpuStatus status = gpu_status();
    if (!status.available) throw std::invalid_argument("no GPU to time on: " + status.reason);
    if (o.type != "float") throw std::invalid_argument("the method lab's kernels take floats: --type " + o.type + " is not offered");
    if (!o.file.empty()) throw std::invalid_argument("--file: the method lab times its own variants side by side; trace your kernel instead");
    if (o.n == 0 || o.n > (std::size_t(1) << 30) - 1)
        throw std::invalid_argument("n = " + std::to_string(o.n) + " is outside 1 .. 2^30 - 1 (SAXPY reads 2n floats)");
    constexpr std::size_t kRows = std::tuple_size_v<Versions> + 1;  // and v10 under -use_fast_math
    // Each row's input and output held at once: (inputs + 1) n floats each, at most 3n.
    wl::cuda::require_free_memory(kRows * 3 * o.n * sizeof(float), "n = " + std::to_string(o.n));
    BenchTable table = memory_bound_table("method", "float", o);
    table.rate_unit = "Gelem/s";
    table.peak = 0;  // the versions' work differs: no one peak to hold them to
    TimingDevice gpu;
    std::vector<Buffers> buffers(kRows);
    std::vector<Contender> contenders;
    // The next row's buffers, for version V's input and output.
    auto buffers_for = [&]<class V>() -> Buffers& {
        Buffers& b = buffers[contenders.size()];
        b.in = make_input<V>(o.n, 1);
        b.d_in = gpu.alloc<float>(b.in.size());
        b.d_out = gpu.alloc<float>(outputs<V>(o.n));
        gpu.copy_to_device(b.d_in, b.in.data(), b.in.size());
        if (reads_texture<V>()) b.texture = cuda_linear_texture(b.d_in, b.in.size());
        return b;
    };
    for_each_version<Versions>([&](auto v) {
        using V = decltype(v);
        contenders.push_back(version_contender<V>(gpu, buffers_for.template operator()<V>(), o.n));
        if constexpr (std::is_same_v<V, V10>) contenders.push_back(fast_math_contender(gpu, buffers_for.template operator()<V10>(), o.n));
        return false;
    });
    std::vector<wl::cuda::Timing> none;
    table.rows = rows_in_turns(contenders, {}, o, none);
    for (Buffers& b : buffers) {
        if (b.texture) cuda_destroy_texture(b.texture);
        gpu.free(b.d_in), gpu.free(b.d_out);
    }
    derive_ratios(table);
    std::string verdicts = verdict_lines(table);
    if (!verdicts.empty()) verdicts.pop_back();  // bench_text ends the note
    table.note = "Gelem/s: n elements a run, whatever each version does with them; bottleneck search:\n" + verdicts +
                 "\nfission, at " + std::to_string(kBlock) + " threads a block: " + occupancy_line<V16>() + "; " + occupancy_line<V17>();
    return table;
}

GpuBackends gpu_backends() { return gpu_backends_of<Description>(bench_on_gpu); }

}  // namespace warplab::method

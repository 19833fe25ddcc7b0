#include "labs/common/lab.h"

#include <unistd.h>

#include <stdexcept>

#include "labs/coalescing/run.h"
#include "labs/coalescing/sweep.h"
#include "labs/common/lab_options.h"
#include "labs/common/make_lab.h"
#include "labs/image/run.h"
#include "labs/matmul/run.h"
#include "labs/method/run.h"
#include "labs/reduction/run.h"
#include "labs/transfers/run.h"
#include "labs/transpose/run.h"
#include "warplab/cuda/deadline.h"
#include "warplab/trace/events.h"

namespace warplab {

// A lab's GPU entry points: its gpu_bench.cu's where the build has CUDA, none elsewhere.
#if defined(WARPLAB_HAVE_CUDA)
#define WL_GPU_BACKENDS(lab) lab::gpu_backends()
#else
#define WL_GPU_BACKENDS(lab) GpuBackends{}
#endif

namespace {

// Each lab's run, checking the warp width, a barrier's removal and the inputs first: what no backend of any lab can do
// (64 lanes or a modified module on a GPU), another lab's input, and the GPU while a kernel past its deadline holds it
// (that kernel's fault, as when it passed it), are refused in one place.
std::vector<Lab> checking_requests(std::vector<Lab> labs)
{
    for (Lab& lab : labs)
        lab.run = [run = std::move(lab.run), id = lab.id](const RunRequest& req) {
            if (req.backend == BackendChoice::Gpu) wl::cuda::refuse_abandoned_gpu();
            check_warp_width(req);
            if (req.without_barrier && req.backend == BackendChoice::Gpu)
                throw std::invalid_argument("--without-barrier reruns the kernel on the emulator only (use --backend cpu or auto)");
            check_inputs(*find_lab(id), req.inputs, req.shape);
            return run(req);
        };
    return labs;
}

}  // namespace

// One entry a lab, in the order `warplab list` and the viewer show them: a lab
// on the run skeleton is its description (labs/<lab>/run.h) and its hooks here.
const std::vector<Lab>& all_labs()
{
    static const std::vector<Lab> labs = checking_requests({
        // 2^22 is Harris's 4M elements; 2^20 to 2^24 fit in (or just exceed) a
        // modern L2; 2^28 and 2^30 are DRAM-bound.
        make_lab<reduction::Description>({.id = "reduction", .title = "Parallel reduction (Harris)", .default_n = 1u << 12,
                                          .default_block = 256, .types = {"int", "float"},
                                          .bench_sizes = {1u << 20, 1u << 22, 1u << 24, 1u << 28, 1u << 30},
                                          .published_source = "harris-g80"},
                                         WL_GPU_BACKENDS(reduction)),
        // n = 0: each version's trace default (one block's worth of C, K = 64).
        // 4096^3 is the size v8's target ratio to cuBLAS was set at; 1024 and 2048 show the climb;
        // 3072^3 makes 288 tiles of 128×256, 2.2 waves on 132 SMs: what v13 (stream-K) is for;
        // 8192^3 (BF16 versions and cuBLAS only) is where BF16 GEMMs are commonly compared.
        make_lab<matmul::Description>({.id = "matmul", .title = "Matrix multiply (SGEMM)", .default_n = 0, .default_block = 0,
                                       .types = {"float"}, .shape_form = "S for S×S×S, or M,N,K", .bench_sizes = {1024, 2048, 3072, 4096, 8192}},
                                      WL_GPU_BACKENDS(matmul)),
        // 2^12 outputs: 16 blocks, quick to trace at every setting of a sweep.
        make_lab<coalescing::Description>({.id = "coalescing", .title = "Coalescing (offset and stride copies)", .default_n = 1u << 12,
                                           .default_block = 256, .types = {"float"}, .bench_sizes = {coalescing::kBenchElements},
                                           .sweep = coalescing::sweep_report, .panel = "coalescing"},
                                          WL_GPU_BACKENDS(coalescing)),
        // n = 0: the trace default (64×64). 8192×8192 floats (256 MiB each way) is
        // the size v5's target ratio to the copy is set at; 2048×2048 (16 MiB) shows
        // the ladder where the data nearly fits in L2 (flushed before each run).
        make_lab<transpose::Description>({.id = "transpose", .title = "Matrix transpose (Harris)", .default_n = 0, .default_block = 0,
                                          .types = {"float"}, .shape_form = "S or ROWS,COLS", .bench_sizes = {2048, 8192}},
                                         WL_GPU_BACKENDS(transpose)),
        make_host_program_lab<transfers::Description>({.id = "transfers", .title = "Host transfers and two GPUs", .default_n = 1u << 20,
                                                       .default_block = 256, .types = {"float"},
                                                       .bench_sizes = {transfers::kBenchElements},
                                                       .bench_detail = transfers::timeline_detail(), .panel = "timeline"}),
        // n = 0: the picture is --size W,H or a PNG file, its input (trace default 320×180);
        // the bench's one size is the blog's 1080p frame, as {W, H}.
        make_lab<image::Description>({.id = "image", .title = "Image luminance, 2D groups (the AMD blog)", .default_n = 0,
                                      .default_block = 0, .types = {"float"}, .shape_form = "W,H", .block_form = "WxH, a 2D group",
                                      .bench_sizes = {image::kBenchWidth * image::kBenchHeight},
                                      .inputs = {image::picture_input()}, .panel = "image"},
                                     WL_GPU_BACKENDS(image)),
        // 2^12 elements: 16 blocks, the compute-heavy kernel's thousand FMAs a thread included, traced in about a second.
        make_lab<method::Description>({.id = "method", .title = "Finding the bottleneck, instruction throughput (Filipovič)", .default_n = 1u << 12,
                                       .default_block = 256, .types = {"float"}, .bench_sizes = {method::kBenchElements}},
                                      WL_GPU_BACKENDS(method)),
    });
    return labs;
}

std::size_t available_host_bytes()
{
    return static_cast<std::size_t>(sysconf(_SC_AVPHYS_PAGES)) * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

const Lab* find_lab(std::string_view id)
{
    for (const Lab& lab : all_labs())
        if (lab.id == id) return &lab;
    return nullptr;
}

const Version* find_version(const Lab& lab, std::string_view id)
{
    for (const Version& v : lab.versions)
        if (id == v.id || id == v.name) return &v;
    return nullptr;
}

bool runs_on_gpu(const RunRequest& req)
{
    // Only the emulator has other widths, and runs a module without a barrier.
    if (req.backend == BackendChoice::Auto && (req.warp_width != 32 || req.without_barrier)) return false;
    return req.backend == BackendChoice::Gpu || (req.backend == BackendChoice::Auto && gpu_status().available);
}

void check_warp_width(const RunRequest& req)
{
    if (const std::string why = wl::trace::warp_size_refusal(req.warp_width); !why.empty()) throw std::invalid_argument(why);
    if (req.warp_width != 32 && req.backend == BackendChoice::Gpu)
        throw std::invalid_argument("warp size " + std::to_string(req.warp_width) +
                                    " runs on the emulator only: a GPU's warps are NVIDIA's 32 lanes (use --backend cpu or auto)");
}

void refuse_emulating_gpu_only(const VersionMeta& meta, const RunRequest& req)
{
    if (!meta.gpu_only || runs_on_gpu(req)) return;
    const GpuStatus gpu = gpu_status();
    const std::string how = req.warp_width != 32 ? "; a GPU's warps are 32 lanes: leave out --warp-size"
                            : gpu.available     ? "; leave out --backend cpu"
                                                : "; this machine has none (" + gpu.reason + ")";
    throw std::invalid_argument(std::string(meta.id) + " runs only on a GPU: " + meta.gpu_only + how);
}

}  // namespace warplab

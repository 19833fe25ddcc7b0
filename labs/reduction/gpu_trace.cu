// Runs a reduction version on the GPU, recording the watched block of the
// first launch (the trace build: nvcc -DWARPLAB_TRACE).
#include "warplab/cuda/device.h"
// gpu_trace.h goes last among the CUDA headers: it wraps the warp intrinsics in macros.
#include "labs/reduction/driver.h"
#include "labs/reduction/lab.h"

namespace warplab::reduction {

namespace {

// Records only the first launch: the first pass is the one the lab is about.
struct FirstLaunchRecorder {
    wl::cuda::Device& gpu;
    wl::gpu_trace::Session& session;
    template <class T> T* alloc(std::size_t n) { return gpu.alloc<T>(n); }
    void free(void* p) { gpu.free(p); }
    template <class T> void zero(T* p, std::size_t n) { gpu.zero(p, n); }
    unsigned multiprocessors() const { return gpu.multiprocessors(); }
    template <class T> void copy_to_host(T* dst, const T* src, std::size_t n) { gpu.copy_to_host(dst, src, n); }
    template <class K, class... A> void launch(const char* name, K kernel, dim3 grid, dim3 block, A... args)
    {
        gpu.launch(name, kernel, grid, block, args...);
        if (!taken) records = session.records();
        taken = true;
        session.stop();
    }
    std::vector<wl::trace::LaneRecord> records;
    bool taken = false;
};

// A generous bound on one block's records: every thread's accesses and barriers.
unsigned trace_capacity(unsigned block) { return block * 256u + 4096u; }

template <class T> RunResult run_typed(const RunRequest& req)
{
    const GpuStatus status = gpu_status();
    if (!status.available) throw std::invalid_argument("no GPU backend: " + status.reason);
    std::size_t free_bytes = 0, total_bytes = 0;
    wl::cuda::check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
    if (req.n * sizeof(T) * 2 > free_bytes)
        throw std::invalid_argument("n = " + std::to_string(req.n) + " does not fit in the GPU's " +
                                    std::to_string(free_bytes >> 20) + " MiB of free memory");
    wl::cuda::Device gpu;
    const std::vector<T> input = make_input<T>(req.n, req.seed);
    T* d_in = gpu.alloc<T>(req.n);
    gpu.copy_to_device(d_in, input.data(), req.n);

    wl::gpu_trace::Session session(req.record ? req.watched_block : 0xffffffffu, req.block, trace_capacity(req.block));
    FirstLaunchRecorder rec{gpu, session};
    RunResult out;
    out.backend = "gpu " + status.name;
    out.threads_per_block = req.block;
    const bool found = for_each_version<Versions>([&](auto v) {
        using V = decltype(v);
        if (req.version != V::meta.id) return false;
        out.value = static_cast<double>(reduce_on<V>(rec, d_in, req.n, req.block));
        return true;
    });
    gpu.free(d_in);
    if (!found) throw std::invalid_argument("unknown reduction version '" + req.version + "'");
    out.expected = reference_sum(input);
    out.ok = sum_matches<T>(out.value, out.expected);
    out.records = std::move(rec.records);
    return out;
}

}  // namespace

RunResult run_on_gpu(const RunRequest& req)
{
    if (req.type == "int") return run_typed<int>(req);
    if (req.type == "float") return run_typed<float>(req);
    throw std::invalid_argument("unknown type '" + req.type + "' (use int or float)");
}

}  // namespace warplab::reduction

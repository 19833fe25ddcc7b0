// Runs a reduction version on the GPU, recording the watched block of the
// first launch (the trace build: nvcc -DWARPLAB_TRACE).
#include "warplab/cuda/device.h"
// gpu_trace.h goes last among the CUDA headers: it wraps the warp intrinsics in macros.
#include "labs/reduction/lab.h"
#include "labs/reduction/run.h"

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
    template <class T> void copy_to_device(T* dst, const T* src, std::size_t n) { gpu.copy_to_device(dst, src, n); }
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

void require_room(std::size_t bytes)
{
    std::size_t free_bytes = 0, total_bytes = 0;
    wl::cuda::check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
    if (bytes > free_bytes)
        throw std::invalid_argument("the input needs " + std::to_string(bytes >> 20) + " MiB, more than the GPU's " +
                                    std::to_string(free_bytes >> 20) + " MiB of free memory");
}

}  // namespace

RunResult run_on_gpu(const RunRequest& req)
{
    const GpuStatus status = gpu_status();
    if (!status.available) throw std::invalid_argument("no GPU backend: " + status.reason);
    require_room(req.n * 4 * 2);
    wl::cuda::Device gpu;
    wl::gpu_trace::Session session(req.record ? req.watched_block : 0xffffffffu, req.block, trace_capacity(req.block));
    FirstLaunchRecorder rec{gpu, session};
    RunResult out = with_element_type(req.type, [&]<class T>() { return reduce_request<T>(rec, req); });
    out.backend = "gpu " + status.name;
    out.records = std::move(rec.records);
    return out;
}

}  // namespace warplab::reduction

// Times the transfers versions on this machine's GPUs (the plain build): each
// row's wall-clock time on the host (a run spans copies, kernels, threads and
// GPUs, so no one stream's events can time it), the links' bandwidths
// measured in the same run as the lower bound's rates, and one run's
// timeline from CUDA events against a base event on each GPU. NCCL is loaded
// at run time (dlopen): where it is missing, v7 is skipped with the reason.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "kernels/transfers/01_pageable.cuh"
#include "kernels/transfers/02_pinned.cuh"
#include "kernels/transfers/03_streams.cuh"
#include "kernels/transfers/04_zero_copy.cuh"
#include "kernels/transfers/05_two_gpus.cuh"
#include "kernels/transfers/06_peer_to_peer.cuh"
#include "kernels/transfers/07_nccl_all_reduce.cuh"
#include "labs/transfers/check.h"
#include "labs/transfers/lab.h"
#include "labs/transfers/timeline.h"
#include "labs/transfers/versions.h"
#include "warplab/cuda/device.h"
#if defined(WARPLAB_HAVE_NCCL_H)
#include <nccl.h>
#endif

namespace warplab::transfers {

using wl::cuda::check;

namespace {

// Each version's host program (kernels/transfers/), by its entry.
template <class V> struct ProgramOf;
#define WL_TRANSFERS_PROGRAM(V, program)                                                         \
    static_assert(names_kernel(#program, kKernels, V::meta), "program name and entry disagree"); \
    template <> struct ProgramOf<V> {                                                            \
        template <class Run> static void run(Run& r) { program(r); }                             \
    }
WL_TRANSFERS_PROGRAM(V1, transfers_pageable);
WL_TRANSFERS_PROGRAM(V2, transfers_pinned);
WL_TRANSFERS_PROGRAM(V3, transfers_streams);
WL_TRANSFERS_PROGRAM(V4, transfers_zero_copy);
WL_TRANSFERS_PROGRAM(V5, transfers_two_gpus);
WL_TRANSFERS_PROGRAM(V6, transfers_peer_to_peer);
WL_TRANSFERS_PROGRAM(V7, transfers_nccl_all_reduce);
#undef WL_TRANSFERS_PROGRAM

constexpr std::size_t kEventsPerGpu = 128;  // two a span; v3's 16 chunks make 48 spans

// ---- NCCL, loaded at run time ----
struct Nccl {
    std::string missing;  // why v7 cannot run here; empty: it can
#if defined(WARPLAB_HAVE_NCCL_H)
    void* library = nullptr;
    decltype(&ncclCommInitAll) init_all = nullptr;
    decltype(&ncclAllReduce) all_reduce = nullptr;
    decltype(&ncclCommDestroy) destroy = nullptr;
    decltype(&ncclGetErrorString) error_string = nullptr;
    ncclComm_t comms[kMaxGpus] = {};
    bool initialised = false;

    ~Nccl()
    {
        if (initialised)
            for (ncclComm_t c : comms) destroy(c);
        if (library) dlclose(library);
    }
#endif
};

std::unique_ptr<Nccl> load_nccl(int gpus)
{
    auto n = std::make_unique<Nccl>();
#if !defined(WARPLAB_HAVE_NCCL_H)
    (void)gpus;
    n->missing = "warplab was built without nccl.h";
#else
    if (gpus < kMaxGpus) return n;  // v7 is skipped for the GPU count already
    setenv("NCCL_NVLS_ENABLE", "0", 0);  // no NVLink multicast unless asked for: it can take shared GPUs out of service
    n->library = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!n->library) {
        n->missing = std::string("NCCL is not installed here (") + dlerror() + ")";
        return n;
    }
    const auto symbol = [&](auto& fn, const char* name) {
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(n->library, name));
        if (!fn && n->missing.empty()) n->missing = std::string("libnccl.so.2 has no ") + name;
    };
    symbol(n->init_all, "ncclCommInitAll");
    symbol(n->all_reduce, "ncclAllReduce");
    symbol(n->destroy, "ncclCommDestroy");
    symbol(n->error_string, "ncclGetErrorString");
    if (!n->missing.empty()) return n;
    const int devices[kMaxGpus] = {0, 1};
    const ncclResult_t r = n->init_all(n->comms, kMaxGpus, devices);
    if (r != ncclSuccess) n->missing = std::string("ncclCommInitAll failed: ") + n->error_string(r);
    n->initialised = r == ncclSuccess;
#endif
    return n;
}

// ---- host buffers of each kind, x filled with the input ----
struct HostBuffers {
    HostMemory kind;
    std::size_t n;
    std::vector<float> pageable_x, pageable_y;
    float *x = nullptr, *y = nullptr;
    float *x_on_gpu = nullptr, *y_on_gpu = nullptr;  // mapped: their device addresses

    HostBuffers(HostMemory k, const std::vector<float>& input) : kind(k), n(input.size())
    {
        const std::size_t bytes = n * sizeof(float);
        if (kind == HostMemory::Pageable) {
            pageable_x = input;
            pageable_y.assign(n, 0.0f);  // touched, so no copy pays for first-touch page faults
            x = pageable_x.data(), y = pageable_y.data();
            return;
        }
        // Portable: pinned for every GPU's context, not only the one current now (v5 to v7 copy on both).
        const unsigned flags = cudaHostAllocPortable | (kind == HostMemory::Mapped ? cudaHostAllocMapped : 0u);
        check(cudaHostAlloc(&x, bytes, flags), "cudaHostAlloc(x)");
        check(cudaHostAlloc(&y, bytes, flags), "cudaHostAlloc(y)");
        std::memcpy(x, input.data(), bytes);
        if (kind == HostMemory::Mapped) {
            check(cudaHostGetDevicePointer(&x_on_gpu, x, 0), "cudaHostGetDevicePointer(x)");
            check(cudaHostGetDevicePointer(&y_on_gpu, y, 0), "cudaHostGetDevicePointer(y)");
        }
    }
    ~HostBuffers()
    {
        if (kind == HostMemory::Pageable) return;
        cudaFreeHost(x);
        cudaFreeHost(y);
    }
    HostBuffers(const HostBuffers&) = delete;
    HostBuffers& operator=(const HostBuffers&) = delete;
};

// ---- one GPU's side: its buffers, streams, base event and event pool ----
struct PendingSpan {
    cudaEvent_t start, end;
    const char* engine;
    std::size_t bytes;
    unsigned stream;
};

struct GpuSide {
    float *x = nullptr, *y = nullptr;  // n floats each
    cudaStream_t stream[kMaxStreams] = {};
    cudaEvent_t base = nullptr;
    std::vector<cudaEvent_t> events;
    std::size_t used = 0;
    std::vector<PendingSpan> spans;

    unsigned stream_number(cudaStream_t s) const
    {
        for (unsigned k = 0; k < kMaxStreams; ++k)
            if (stream[k] == s) return k;
        return 0;  // the default stream (v1) is drawn as stream 0
    }
};

// Device buffers, streams and events on `gpus` GPUs, made once for a bench.
struct Machine {
    int gpus = 0;
    std::size_t n = 0;
    std::vector<GpuSide> sides;
    bool peer_access = false;

    Machine(int gpu_count, std::size_t elements) : gpus(gpu_count), n(elements), sides(std::size_t(gpu_count))
    {
        for (int g = 0; g < gpus; ++g) {
            check(cudaSetDevice(g), "cudaSetDevice");
            GpuSide& s = sides[g];
            check(cudaMalloc(&s.x, n * sizeof(float)), "cudaMalloc(x) on GPU " + std::to_string(g));
            check(cudaMalloc(&s.y, n * sizeof(float)), "cudaMalloc(y) on GPU " + std::to_string(g));
            for (cudaStream_t& st : s.stream) check(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), "cudaStreamCreate");
            check(cudaEventCreate(&s.base), "cudaEventCreate");
            s.events.resize(kEventsPerGpu);
            for (cudaEvent_t& e : s.events) check(cudaEventCreate(&e), "cudaEventCreate");
        }
        if (gpus >= 2) {
            int can01 = 0, can10 = 0;
            cudaDeviceCanAccessPeer(&can01, 0, 1);
            cudaDeviceCanAccessPeer(&can10, 1, 0);
            peer_access = can01 && can10;
            for (int g = 0; peer_access && g < 2; ++g) {
                cudaSetDevice(g);
                const cudaError_t e = cudaDeviceEnablePeerAccess(1 - g, 0);
                if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled) peer_access = false;
                cudaGetLastError();
            }
        }
        cudaSetDevice(0);
    }
    ~Machine()
    {
        for (int g = 0; g < gpus; ++g) {
            cudaSetDevice(g);
            GpuSide& s = sides[g];
            cudaFree(s.x);
            cudaFree(s.y);
            for (cudaStream_t st : s.stream) cudaStreamDestroy(st);
            cudaEventDestroy(s.base);
            for (cudaEvent_t e : s.events) cudaEventDestroy(e);
        }
        cudaSetDevice(0);
    }
    Machine(const Machine&) = delete;
    Machine& operator=(const Machine&) = delete;
};

// What a version's program sees (kernels/transfers/01_pageable.cuh lists it).
struct Run {
    std::size_t n = 0;
    const float* x_host = nullptr;
    float* y_host = nullptr;
    const float* x_host_on_gpu = nullptr;
    float* y_host_on_gpu = nullptr;
    std::vector<Chunk> chunks;
    Machine* machine = nullptr;
    Nccl* nccl = nullptr;
    std::mutex error_lock;
    std::string error;  // the first failure of any thread

    GpuSide& gpu(int g) { return machine->sides[std::size_t(g)]; }

    void note(cudaError_t e, const std::string& what)
    {
        if (e == cudaSuccess) return;
        const std::lock_guard<std::mutex> hold(error_lock);
        if (error.empty()) error = what + ": " + cudaGetErrorString(e);
    }

    // f() between two events on `s`; each GPU's spans are marked by one thread at a time.
    template <class F> void mark(int g, cudaStream_t s, const char* engine, std::size_t bytes, F&& f)
    {
        GpuSide& side = gpu(g);
        if (side.used + 2 > side.events.size()) {
            note(cudaErrorMemoryAllocation, std::string("more spans than events on GPU ") + std::to_string(g));
            return;
        }
        const cudaEvent_t start = side.events[side.used++], end = side.events[side.used++];
        note(cudaEventRecord(start, s), engine);
        note(f(), engine);
        note(cudaEventRecord(end, s), engine);
        side.spans.push_back({start, end, engine, bytes, side.stream_number(s)});
    }

    cudaError_t all_reduce_sum(int g, float* data, std::size_t count, cudaStream_t s)
    {
#if defined(WARPLAB_HAVE_NCCL_H)
        const ncclResult_t r = nccl->all_reduce(data, data, count, ncclFloat32, ncclSum, nccl->comms[g], s);
        if (r != ncclSuccess) {
            const std::lock_guard<std::mutex> hold(error_lock);
            if (error.empty()) error = std::string("ncclAllReduce: ") + nccl->error_string(r);
        }
        return cudaGetLastError();
#else
        (void)g, (void)data, (void)count, (void)s;
        return cudaErrorNotSupported;
#endif
    }
};

double ms_since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// One run of version V: base events on every GPU it uses (every stream and
// the default stream wait for it), the program, then every GPU drained.
// Returns its timeline (wall clock and spans).
template <class V> RunTimeline run_once(Run& r, const std::string& row)
{
    const int gpus = int(V::layout.gpus);
    for (int g = 0; g < gpus; ++g) {
        r.gpu(g).used = 0;
        r.gpu(g).spans.clear();
    }
    r.error.clear();
    const auto t0 = std::chrono::steady_clock::now();
    for (int g = 0; g < gpus; ++g) {
        GpuSide& side = r.gpu(g);
        check(cudaSetDevice(g), "cudaSetDevice");
        check(cudaEventRecord(side.base, side.stream[0]), "base event");
        for (unsigned k = 1; k < kMaxStreams; ++k) check(cudaStreamWaitEvent(side.stream[k], side.base, 0), "stream waits for base");
        check(cudaStreamWaitEvent(cudaStreamLegacy, side.base, 0), "default stream waits for base");
    }
    check(cudaSetDevice(0), "cudaSetDevice");
    ProgramOf<V>::run(r);
    for (int g = 0; g < gpus; ++g) {
        cudaSetDevice(g);
        r.note(cudaDeviceSynchronize(), std::string(V::meta.id) + " on GPU " + std::to_string(g));
    }
    RunTimeline out{row, ms_since(t0), {}};
    cudaSetDevice(0);
    if (!r.error.empty()) throw std::runtime_error(row + ": " + r.error);
    for (int g = 0; g < gpus; ++g)
        for (const PendingSpan& p : r.gpu(g).spans) {
            float start = 0, end = 0;
            check(cudaEventElapsedTime(&start, r.gpu(g).base, p.start), "cudaEventElapsedTime");
            check(cudaEventElapsedTime(&end, r.gpu(g).base, p.end), "cudaEventElapsedTime");
            out.spans.push_back({g, p.stream, p.engine, p.bytes, start, end});
        }
    return out;
}

// Runs V over a y poisoned with NaN and checks all of it.
template <class V> std::size_t checked_run(Run& r, const std::vector<float>& x, const std::string& row)
{
    std::memset(r.y_host, 0xFF, x.size() * sizeof(float));
    run_once<V>(r, row);
    return first_wrong(x, r.y_host);
}

// Everything a bench shares: the input, the machine, host buffers of each kind, NCCL.
struct Bench {
    std::vector<float> input;
    Machine machine;
    std::map<HostMemory, std::unique_ptr<HostBuffers>> host;
    std::unique_ptr<Nccl> nccl;

    Bench(std::size_t n, int gpus, std::uint64_t seed) : input(make_input(n, seed)), machine(gpus, n), nccl(load_nccl(gpus)) {}

    HostBuffers& host_of(HostMemory kind)
    {
        auto& h = host[kind];
        if (!h) h = std::make_unique<HostBuffers>(kind, input);
        return *h;
    }

    // Why V cannot run here; empty: it can.
    template <class V> std::string skip_reason() const
    {
        if (int(V::layout.gpus) > machine.gpus)
            return std::string("needs ") + std::to_string(V::layout.gpus) + " GPUs, this machine has " + std::to_string(machine.gpus);
        if (std::is_same_v<V, V7> && !nccl->missing.empty()) return nccl->missing;
        return "";
    }

    template <class V> void prepare(Run& r, const std::vector<Chunk>& chunks)
    {
        HostBuffers& h = host_of(V::layout.host);
        r.n = input.size();
        r.x_host = h.x, r.y_host = h.y, r.x_host_on_gpu = h.x_on_gpu, r.y_host_on_gpu = h.y_on_gpu;
        r.chunks = chunks;
        r.machine = &machine;
        r.nccl = nccl.get();
    }
};

int gpu_count()
{
    int count = 0;
    check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
    return std::min(count, kMaxGpus);
}

// ---- the links' bandwidths, measured in the same run ----

// GB/s of `copy` (bytes each), the median of 5 after one warm-up, by events on `s`.
template <class Copy> double copy_gbps(cudaStream_t s, std::size_t bytes, Copy&& copy)
{
    cudaEvent_t a, b;
    check(cudaEventCreate(&a), "cudaEventCreate");
    check(cudaEventCreate(&b), "cudaEventCreate");
    check(copy(), "link probe");
    std::vector<float> ms;
    for (int i = 0; i < 5; ++i) {
        check(cudaEventRecord(a, s), "cudaEventRecord");
        check(copy(), "link probe");
        check(cudaEventRecord(b, s), "cudaEventRecord");
        check(cudaEventSynchronize(b), "link probe");
        float t = 0;
        check(cudaEventElapsedTime(&t, a, b), "cudaEventElapsedTime");
        ms.push_back(t);
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    std::sort(ms.begin(), ms.end());
    return double(bytes) / 1e9 / (ms[ms.size() / 2] / 1e3);
}

std::vector<LinkRate> measure_links(Bench& b, double seconds)
{
    const std::size_t bytes = std::min<std::size_t>(b.input.size() * sizeof(float), std::size_t(256) << 20);
    HostBuffers& pinned = b.host_of(HostMemory::Pinned);
    std::vector<LinkRate> out;
    for (int g = 0; g < b.machine.gpus; ++g) {
        check(cudaSetDevice(g), "cudaSetDevice");
        GpuSide& side = b.machine.sides[g];
        const cudaStream_t s = side.stream[0];
        out.push_back({link_name(Link::HostToGpu, g),
                       copy_gbps(s, bytes, [&] { return cudaMemcpyAsync(side.x, pinned.x, bytes, cudaMemcpyHostToDevice, s); })});
        out.push_back({link_name(Link::GpuToHost, g),
                       copy_gbps(s, bytes, [&] { return cudaMemcpyAsync(pinned.y, side.y, bytes, cudaMemcpyDeviceToHost, s); })});
        if (b.machine.gpus >= 2) {
            GpuSide& other = b.machine.sides[1 - g];
            out.push_back({link_name(Link::Peer, g), copy_gbps(s, bytes, [&] {
                               return cudaMemcpyPeerAsync(other.y, 1 - g, side.x, g, bytes, s);
                           })});
        }
        out.push_back({link_name(Link::Memory, g), measure_copy_gbps(bytes, false, std::min(seconds, 0.3))});
    }
    check(cudaSetDevice(0), "cudaSetDevice");
    return out;
}

// ---- the rows ----

struct Sample {
    double ms;
    RunTimeline timeline;
};

// Row `plan` of V: checked, timed (at least 3 runs, more while the budget
// lasts), checked again; the timeline of the run nearest the median.
template <class V> void bench_row(BenchTable& table, Bench& b, const RowPlan& plan, double seconds)
{
    Run r;
    b.prepare<V>(r, plan.plan);
    const std::size_t wrong_before = checked_run<V>(r, b.input, plan.name);
    std::vector<Sample> samples;
    const auto t0 = std::chrono::steady_clock::now();
    while (samples.size() < 3 || (samples.size() < 30 && ms_since(t0) < seconds * 1e3)) {
        RunTimeline t = run_once<V>(r, plan.name);
        samples.push_back({t.wall_ms, std::move(t)});
    }
    const std::size_t wrong_after = checked_run<V>(r, b.input, plan.name);
    std::sort(samples.begin(), samples.end(), [](const Sample& a, const Sample& c) { return a.ms < c.ms; });
    const Sample& median = samples[samples.size() / 2];
    double mean = 0, var = 0;
    for (const Sample& s : samples) mean += s.ms;
    mean /= double(samples.size());
    for (const Sample& s : samples) var += (s.ms - mean) * (s.ms - mean);

    BenchRow row;
    row.version = plan.name;
    row.block = 256;  // scale_add's (kernels/transfers/scale_add.cuh)
    if (V::meta.builds_on) row.previous_version = V::meta.builds_on;  // v5 against v2: the strong-scaling figure
    row.ok = wrong_before == b.input.size() && wrong_after == b.input.size();
    row.median_ms = median.ms;
    row.min_ms = samples.front().ms;
    row.samples = int(samples.size());
    row.rse = std::sqrt(var / double(samples.size() - 1) / double(samples.size())) / mean;
    row.rate = 2.0 * double(b.input.size()) * sizeof(float) / 1e9 / (median.ms / 1e3);
    const Bound bound = lower_bound(V::moves(b.input.size()), [&](Link l, int g) { return link_rate(table, l, g); });
    row.bound_ms = bound.ms;
    row.pct_peak = 100.0 * bound.ms / median.ms;
    table.rows.push_back(row);
    table.timelines.push_back(median.timeline);
}

std::string skipped_note(const std::vector<std::string>& skipped)
{
    std::string out;
    for (const std::string& s : skipped) out += "; skipped " + s;
    return out;
}

}  // namespace

BenchTable bench_on_gpu(const BenchOptions& o)
{
    const GpuStatus status = gpu_status();
    if (!status.available) throw std::invalid_argument("no GPU to time on: " + status.reason);
    if (o.type != "float") throw std::invalid_argument("the transfers lab moves floats: --type " + o.type + " is not offered");
    if (o.n == 0 || o.n > (std::size_t(1) << 32)) throw std::invalid_argument("n = " + std::to_string(o.n) + " is outside 1 .. 2^32");
    const int gpus = gpu_count();
    for (int g = 0; g < gpus; ++g) {
        check(cudaSetDevice(g), "cudaSetDevice");
        wl::cuda::require_free_memory(2 * o.n * sizeof(float), "n = " + std::to_string(o.n) + " on GPU " + std::to_string(g));
    }
    check(cudaSetDevice(0), "cudaSetDevice");
    Bench b(o.n, gpus, 1);
    BenchTable table;
    table.lab = "transfers";
    table.type = "float";
    table.rate_unit = "GB/s";
    table.n = o.n;
    table.warm = true;  // nothing flushes L2 between runs: 1 GiB passes through it either way
    table.provenance = gpu_provenance(o.command);
    table.links = measure_links(b, o.seconds_per_version);
    std::vector<std::string> skipped;
    for_each_version<Versions>([&](auto v) {
        using V = decltype(v);
        const std::string why = b.skip_reason<V>();
        if (!why.empty()) {
            skipped.push_back(std::string(V::meta.id) + " (" + why + ")");
            return false;
        }
        for (const RowPlan& plan : row_plans<V>(o.n)) bench_row<V>(table, b, plan, o.seconds_per_version);
        return false;
    });
    derive_ratios(table);
    table.note = "GB/s: n floats in + n out per run, over the run's wall-clock time; % of peak: the links' lower bound / the time"
                 "; GPUs " + std::to_string(gpus) + (gpus >= 2 ? (b.machine.peer_access ? ", peer access on" : ", no peer access") : "") +
                 skipped_note(skipped);
    return table;
}

RunResult run_on_gpu(const RunRequest& req)
{
    const int gpus = gpu_count();
    Bench b(req.n, gpus, req.seed);
    RunResult result;
    result.threads_per_block = 256;  // scale_add's; nothing is traced (the versions are host programs)
    result.backend = "gpu " + gpu_status().name + (gpus > 1 ? " ×" + std::to_string(gpus) : "");
    const bool found = with_version<Versions>(req.version, [&](auto v) {
        using V = decltype(v);
        const std::string why = b.skip_reason<V>();
        if (!why.empty()) throw std::invalid_argument(std::string(V::meta.id) + " cannot run here: " + why);
        const RowPlan plan = row_plans<V>(req.n).front();
        Run r;
    b.prepare<V>(r, plan.plan);
        const std::size_t wrong = checked_run<V>(r, b.input, plan.name);
        result.ok = wrong == req.n;
        const std::size_t at = result.ok ? req.n - 1 : wrong;
        result.value = r.y_host[at];
        result.expected = kScale * b.input[at] + kOffset;
        result.problem = "y = 2x + 1 over " + std::to_string(req.n) + " floats, " + plan.name;
        result.check = result.ok ? "all " + std::to_string(req.n) + " elements equal 2x + 1"
                                 : "element " + std::to_string(wrong) + " is wrong";
    });
    if (!found) throw std::invalid_argument("unknown transfers version '" + req.version + "'");
    return result;
}

}  // namespace warplab::transfers

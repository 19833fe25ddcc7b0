// GPU availability, as the CUDA runtime sees it.
#include <cuda_runtime.h>

#include "labs/common/lab.h"
#include "warplab/cuda/deadline.h"

namespace warplab {

GpuStatus gpu_status()
{
    // A kernel past its deadline still runs: the GPU takes no more work (deadline.h).
    if (wl::cuda::gpu_abandoned()) return GpuStatus{false, "", wl::cuda::gpu_abandoned_reason()};
    static const GpuStatus status = [] {
        int count = 0;
        const cudaError_t e = cudaGetDeviceCount(&count);
        if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver)
            return GpuStatus{false, "", "no NVIDIA GPU or driver on this machine"};
        if (e != cudaSuccess) return GpuStatus{false, "", std::string("no usable CUDA GPU: ") + cudaGetErrorString(e)};
        if (count == 0) return GpuStatus{false, "", "no CUDA GPU on this machine"};
        cudaDeviceProp prop{};
        cudaGetDeviceProperties(&prop, 0);
        return GpuStatus{true, prop.name, "", static_cast<unsigned>(prop.multiProcessorCount)};
    }();
    return status;
}

}  // namespace warplab

// ---- provenance and the copy kernel, for the benchmarks ----
#include <algorithm>
#include <cctype>
#include <chrono>
#include <ctime>
#include <fstream>

#include "kernels/reduction/10_bulk_copy.cuh"
#include "labs/common/bench.h"
#include "labs/common/probes.h"
#include "warplab/cuda/timing.h"
#include "warplab/version.h"

namespace warplab {

namespace {
int attribute(cudaDeviceAttr a)
{
    int device = 0, value = 0;
    wl::cuda::check(cudaGetDevice(&device), "cudaGetDevice");
    wl::cuda::check(cudaDeviceGetAttribute(&value, a, device), "cudaDeviceGetAttribute");
    return value;
}

// "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ..."
std::string nvidia_driver_version()
{
    std::ifstream f("/proc/driver/nvidia/version");
    std::string word;
    while (f >> word) {
        const bool dotted_number = word.find('.') != std::string::npos &&
                                   word.find_first_not_of("0123456789.") == std::string::npos && std::isdigit(word[0]);
        if (dotted_number) return word;
    }
    int v = 0;
    cudaDriverGetVersion(&v);
    return "CUDA driver API " + std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

__global__ void copy_int4(const int4* __restrict__ in, int4* __restrict__ out, std::size_t count)
{
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count; i += std::size_t(gridDim.x) * blockDim.x)
        out[i] = in[i];
}

constexpr unsigned kRingBytes = 6 * reduction::kPieceBytes;  // v10's ring (labs/reduction/versions.h)

// Reads as reduction v10 does, without the adds: thread 0 of each block (one
// per SM) keeps a ring of 32 KB bulk copies in flight into shared memory and
// refills each slot as it lands. Nothing reads the ring; the copies are the
// read. Only the whole pieces are read (the caller counts their bytes).
__global__ void read_bulk(const int4* __restrict__ in, unsigned pieces)
{
    using namespace warplab::reduction;
    extern __shared__ __align__(128) unsigned char ring[];
    __shared__ __align__(8) unsigned long long landed[kMaxPieces];
    if (threadIdx.x != 0) return;
    const unsigned slots = dynamic_shared_bytes() / kPieceBytes;
    const unsigned mine = pieces > blockIdx.x ? (pieces - blockIdx.x + gridDim.x - 1) / gridDim.x : 0;
    const unsigned char* first = reinterpret_cast<const unsigned char*>(in) + std::size_t(blockIdx.x) * kPieceBytes;
    const std::size_t step = std::size_t(gridDim.x) * kPieceBytes;
    for (unsigned s = 0; s < slots; ++s)
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(&landed[s])) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    for (unsigned s = 0; s < slots && s < mine; ++s) bulk_copy(ring + s * kPieceBytes, first + s * step, kPieceBytes, &landed[s]);
    for (unsigned i = 0; i < mine; ++i) {
        const unsigned s = i % slots;
        wait_landed(&landed[s], (i / slots) % 2);
        if (i + slots < mine) bulk_copy(ring + s * kPieceBytes, first + (i + slots) * step, kPieceBytes, &landed[s]);
    }
}

// Blocks of `threads` for `count` int4: a full SM's worth (2048 threads) on
// every SM, fewer for small inputs.
unsigned stream_blocks(std::size_t count, unsigned threads)
{
    const std::size_t per_sm = 2048 / threads;
    return static_cast<unsigned>(
        std::min<std::size_t>((count + threads - 1) / threads, std::size_t(attribute(cudaDevAttrMultiProcessorCount)) * per_sm));
}
}  // namespace

Provenance gpu_provenance(const std::string& command)
{
    Provenance p;
    p.gpu = gpu_status().name;
    p.driver = nvidia_driver_version();
    int rt = 0;
    cudaRuntimeGetVersion(&rt);
    p.cuda_runtime = std::to_string(rt / 1000) + "." + std::to_string(rt % 1000 / 10);
    p.sm_clock_mhz = attribute(cudaDevAttrClockRate) / 1000;
    p.mem_clock_mhz = attribute(cudaDevAttrMemoryClockRate) / 1000;
    p.bus_width_bits = attribute(cudaDevAttrGlobalMemoryBusWidth);
    p.sms = attribute(cudaDevAttrMultiProcessorCount);
    p.l2_bytes = static_cast<std::size_t>(attribute(cudaDevAttrL2CacheSize));
    const std::time_t now = std::time(nullptr);
    char date[32];
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    p.date = date;
    p.command = command;
    p.commit = wl::version_commit();
    p.warplab = wl::version();
    return p;
}

BenchTable memory_bound_table(const std::string& lab, const std::string& type, const BenchOptions& o)
{
    BenchTable table;
    table.lab = lab;
    table.type = type;
    table.rate_unit = "GB/s";
    table.n = o.n;
    table.warm = o.warm;
    table.provenance = gpu_provenance(o.command);
    table.peak = dram_peak_gbps(table.provenance);
    return table;
}

CopyProbe::CopyProbe(std::size_t bytes) : count_((bytes + 15) / 16)
{
    wl::cuda::check(cudaMalloc(&in_, count_ * 16), "cudaMalloc(copy in)");
    wl::cuda::check(cudaMalloc(&out_, count_ * 16), "cudaMalloc(copy out)");
    wl::cuda::check(cudaMemset(in_, 1, count_ * 16), "cudaMemset(copy in)");
    blocks_ = stream_blocks(count_, 256);
}

CopyProbe::~CopyProbe()
{
    cudaFree(in_);
    cudaFree(out_);
}

std::function<void()> CopyProbe::run() const
{
    return [in = in_, out = out_, count = count_, blocks = blocks_] { copy_int4<<<blocks, 256>>>(in, out, count); };
}

double CopyProbe::gbps(const wl::cuda::Timing& t) const { return 2.0 * count_ * 16 / 1e9 / (t.median_ms / 1e3); }

double measure_copy_gbps(std::size_t bytes, bool warm, double seconds)
{
    const CopyProbe copy(bytes);
    const wl::cuda::Timing t = wl::cuda::time_runs(copy.run(), warm, seconds);
    wl::cuda::check(cudaGetLastError(), "copy kernel");
    return copy.gbps(t);
}

ReadProbe::ReadProbe(std::size_t bytes) : count_((bytes + 15) / 16)
{
    wl::cuda::check(cudaMalloc(&in_, count_ * 16), "cudaMalloc(read probe in)");
    wl::cuda::check(cudaMalloc(&never_written_, sizeof(int)), "cudaMalloc(read probe out)");
    wl::cuda::check(cudaMemset(in_, 1, count_ * 16), "cudaMemset(read probe in)");
    // Two blocks of 1024 per SM: of the shapes measured for per-thread loads
    // on the H100 (256 x 8, 512 x 4, 1024 x 2), the fastest far beyond L2.
    load_blocks_ = stream_blocks(count_, 1024);
    const unsigned pieces = static_cast<unsigned>(count_ * 16 / reduction::kPieceBytes);
    if (attribute(cudaDevAttrComputeCapabilityMajor) >= 9 && pieces > 0) {
        wl::cuda::check(cudaFuncSetAttribute(read_bulk, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kRingBytes)),
                        "shared memory limit of the bulk read probe");
        pieces_ = pieces;
        bulk_blocks_ = std::min(pieces, static_cast<unsigned>(attribute(cudaDevAttrMultiProcessorCount)));
    }
}

ReadProbe::~ReadProbe()
{
    cudaFree(in_);
    cudaFree(never_written_);
}

std::vector<std::function<void()>> ReadProbe::runs() const
{
    std::vector<std::function<void()>> out{[in = in_, count = count_, blocks = load_blocks_, never = never_written_] {
        wl::cuda::read_all<<<blocks, 1024>>>(in, count, never);
    }};
    if (bulk_blocks_ > 0)
        out.push_back([in = in_, pieces = pieces_, blocks = bulk_blocks_] { read_bulk<<<blocks, 32, kRingBytes>>>(in, pieces); });
    return out;
}

double ReadProbe::gbps(const std::vector<wl::cuda::Timing>& t) const
{
    double best = double(count_) * 16 / 1e9 / (t.at(0).median_ms / 1e3);
    if (bulk_blocks_ > 0) best = std::max(best, double(pieces_) * reduction::kPieceBytes / 1e9 / (t.at(1).median_ms / 1e3));
    return best;
}

}  // namespace warplab

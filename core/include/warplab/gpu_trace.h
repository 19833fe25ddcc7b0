// GPU trace build (nvcc -DWARPLAB_TRACE): the traced wrappers of traced.h
// append one LaneRecord per access to a device buffer, for the watched block
// only. Barriers and warp intrinsics are wrapped too, so that each record
// carries the same (epoch, sub) step as on the emulator.
//
// The kernel source is unchanged: __syncthreads(), __syncwarp(), __shfl_*_sync
// and the votes are macros below that call the recording wrappers. Include this
// header last in a trace translation unit (after any CUDA library header).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "warplab/trace/record.h"

#define WL_HOOK __host__ __device__ inline

namespace wl::gpu_trace {

struct ThreadState {
    std::uint32_t seq, epoch, sub, declared;
};

struct State {
    trace::LaneRecord* records;
    unsigned capacity;
    unsigned* count;
    ThreadState* threads;  // one per thread of the watched block
    unsigned watched_block;
};

}  // namespace wl::gpu_trace

// One per translation unit (static): each trace .cu file sets its own.
static __device__ wl::gpu_trace::State wl_gpu_trace_state = {nullptr, 0, nullptr, nullptr, 0xffffffffu};

namespace wl::gpu_trace {

__device__ inline unsigned flat_block() { return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z); }
__device__ inline unsigned flat_thread() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }

// This thread's step state, or nullptr when its block is not watched.
__device__ inline ThreadState* watched() { return flat_block() == wl_gpu_trace_state.watched_block ? &wl_gpu_trace_state.threads[flat_thread()] : nullptr; }

// Out of line on purpose: cicc (CUDA 13.0) segfaults when it inlines and
// folds this loop over a __builtin_FILE() literal.
static __device__ __noinline__ std::uint32_t device_file_hash(const char* path) { return trace::file_hash(path); }

__device__ inline void record(ThreadState* ts, trace::Kind kind, trace::Space space, unsigned size, unsigned array,
                              std::uint64_t offset, const void* value, unsigned bytes, const char* file, unsigned line)
{
    trace::LaneRecord r{};
    r.block = flat_block();
    r.thread = flat_thread();
    r.seq = ts->seq++;
    r.epoch = ts->epoch;
    r.sub = ts->sub;
    r.line = line;
    r.file_hash = device_file_hash(file);
    r.kind = kind;
    r.space = space;
    r.size = static_cast<std::uint8_t>(size);
    r.array = static_cast<std::uint8_t>(array);
    r.offset = offset;
    const unsigned char* v = static_cast<const unsigned char*>(value);
    unsigned char* out = reinterpret_cast<unsigned char*>(r.value);
    for (unsigned i = 0; v && i < bytes && i < sizeof r.value; ++i) out[i] = v[i];
    const unsigned slot = atomicAdd(wl_gpu_trace_state.count, 1u);
    if (slot < wl_gpu_trace_state.capacity) wl_gpu_trace_state.records[slot] = r;
}

// ---- barriers and warp intrinsics, recorded like the emulator records them ----
__device__ inline void syncthreads(const char* file, unsigned line)
{
    ThreadState* ts = watched();
    if (ts) record(ts, trace::Kind::SyncThreads, trace::Space::None, 0, 0, 0, nullptr, 0, file, line);
    __syncthreads();
    if (ts) {
        ts->epoch += 1;
        ts->sub = 0;
    }
}

__device__ inline void syncwarp(unsigned mask = 0xffffffffu, const char* file = __builtin_FILE(), unsigned line = __builtin_LINE())
{
    ThreadState* ts = watched();
    if (ts) record(ts, trace::Kind::SyncWarp, trace::Space::None, 0, 0, 0, nullptr, 0, file, line);
    __syncwarp(mask);
    if (ts) ts->sub += 1;
}

#define WL_GPU_SHUFFLE(name, intrinsic)                                                                       \
    template <class T>                                                                                        \
    __device__ T name(unsigned mask, T var, int arg, int width = 32, const char* file = __builtin_FILE(),      \
                      unsigned line = __builtin_LINE())                                                       \
    {                                                                                                         \
        ThreadState* ts = watched();                                                                          \
        if (ts) record(ts, trace::Kind::Shuffle, trace::Space::None, sizeof(T), 0, 0, &var, sizeof(T), file, line); \
        T out = intrinsic(mask, var, arg, width);                                                             \
        if (ts) ts->sub += 1;                                                                                 \
        return out;                                                                                           \
    }
WL_GPU_SHUFFLE(shfl, __shfl_sync)
WL_GPU_SHUFFLE(shfl_up, __shfl_up_sync)
WL_GPU_SHUFFLE(shfl_down, __shfl_down_sync)
WL_GPU_SHUFFLE(shfl_xor, __shfl_xor_sync)
#undef WL_GPU_SHUFFLE

#define WL_GPU_VOTE(ret, name, intrinsic, in_type)                                                            \
    __device__ inline ret name(unsigned mask, in_type value, const char* file = __builtin_FILE(),              \
                               unsigned line = __builtin_LINE())                                              \
    {                                                                                                         \
        ThreadState* ts = watched();                                                                          \
        unsigned in = static_cast<unsigned>(value);                                                           \
        if (ts) record(ts, trace::Kind::Vote, trace::Space::None, sizeof in, 0, 0, &in, sizeof in, file, line); \
        ret out = intrinsic(mask, value);                                                                     \
        if (ts) ts->sub += 1;                                                                                 \
        return out;                                                                                           \
    }
WL_GPU_VOTE(unsigned, ballot, __ballot_sync, int)
WL_GPU_VOTE(int, any, __any_sync, int)
WL_GPU_VOTE(int, all, __all_sync, int)
WL_GPU_VOTE(unsigned, reduce_add, __reduce_add_sync, unsigned)
#undef WL_GPU_VOTE

}  // namespace wl::gpu_trace

namespace wl::detail {
template <class T> __device__ T rmw_add(T* p, T v) { return ::atomicAdd(p, v); }
template <class T> __device__ T rmw_max(T* p, T v) { return ::atomicMax(p, v); }
template <class T> __device__ T rmw_min(T* p, T v) { return ::atomicMin(p, v); }
template <class T> __device__ T rmw_exch(T* p, T v) { return ::atomicExch(p, v); }
}  // namespace wl::detail

#include "warplab/traced.h"

// ---- hooks: nothing to check on the GPU (compute-sanitizer does that), record ----
namespace wl::detail {
WL_HOOK void before_access(const Access&) {}
WL_HOOK void after_access(const Access& a, const void* value, unsigned bytes)
{
#ifdef __CUDA_ARCH__
    if (gpu_trace::ThreadState* ts = gpu_trace::watched())
        gpu_trace::record(ts, a.kind, a.array->space, a.size, a.array->id, a.byte_offset(), value, bytes, a.file, a.line);
#else
    (void)a, (void)value, (void)bytes;
#endif
}
}  // namespace wl::detail

namespace wl::gpu_trace {
// A shared array came into scope: number it like the emulator does, and let
// thread 0 of the watched block record its name and size.
__device__ inline ArrayMeta declare(unsigned elem_size, unsigned long long count, const char* name, const char* file, unsigned line)
{
    ArrayMeta m;
    m.space = trace::Space::Shared;
    m.elem_size = elem_size;
    m.count = count;
    m.name = name;
    ThreadState* ts = watched();
    if (ts) {
        m.id = static_cast<std::uint8_t>(ts->declared++);
        if (flat_thread() == 0) {
            char label[16] = {};
            for (unsigned i = 0; i < sizeof label && name[i]; ++i) label[i] = name[i];
            record(ts, trace::Kind::Declare, trace::Space::Shared, elem_size, m.id, count, label, sizeof label, file, line);
        }
    }
    return m;
}
}  // namespace wl::gpu_trace

#define __syncthreads() ::wl::gpu_trace::syncthreads(__builtin_FILE(), __builtin_LINE())
#define __syncwarp(...) ::wl::gpu_trace::syncwarp(__VA_ARGS__)
#define __shfl_sync(...) ::wl::gpu_trace::shfl(__VA_ARGS__)
#define __shfl_up_sync(...) ::wl::gpu_trace::shfl_up(__VA_ARGS__)
#define __shfl_down_sync(...) ::wl::gpu_trace::shfl_down(__VA_ARGS__)
#define __shfl_xor_sync(...) ::wl::gpu_trace::shfl_xor(__VA_ARGS__)
#define __ballot_sync(...) ::wl::gpu_trace::ballot(__VA_ARGS__)
#define __any_sync(...) ::wl::gpu_trace::any(__VA_ARGS__)
#define __all_sync(...) ::wl::gpu_trace::all(__VA_ARGS__)
#define __reduce_add_sync(...) ::wl::gpu_trace::reduce_add(__VA_ARGS__)

#define WL_SHARED(T, name, N)                                                                                 \
    __shared__ T name##_wl_storage[N];                                                                        \
    ::wl::SharedArray<T, (N)> name(name##_wl_storage,                                                         \
                                   ::wl::gpu_trace::declare(sizeof(T), (N), #name, __FILE__, __LINE__))
#define WL_SHARED_2D(T, name, R, C)                                                                           \
    __shared__ T name##_wl_storage[(R) * (C)];                                                                \
    ::wl::SharedArray2D<T, (R), (C)> name(name##_wl_storage,                                                  \
                                          ::wl::gpu_trace::declare(sizeof(T), (R) * (C), #name, __FILE__, __LINE__))

// ---- host side: one trace session per launch to record ----
namespace wl::gpu_trace {

inline void check(cudaError_t e, const char* what)
{
    if (e != cudaSuccess) throw std::runtime_error(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(e));
}

class Session {
public:
    Session(unsigned watched_block, unsigned threads_per_block, unsigned capacity) : capacity_(capacity)
    {
        check(cudaMalloc(&records_, sizeof(trace::LaneRecord) * capacity), "cudaMalloc(trace records)");
        check(cudaMalloc(&count_, sizeof(unsigned)), "cudaMalloc(trace count)");
        check(cudaMalloc(&threads_, sizeof(ThreadState) * threads_per_block), "cudaMalloc(trace threads)");
        check(cudaMemset(count_, 0, sizeof(unsigned)), "cudaMemset");
        check(cudaMemset(threads_, 0, sizeof(ThreadState) * threads_per_block), "cudaMemset");
        State s{records_, capacity, count_, threads_, watched_block};
        check(cudaMemcpyToSymbol(wl_gpu_trace_state, &s, sizeof s), "cudaMemcpyToSymbol(trace state)");
    }
    ~Session()
    {
        stop();
        cudaFree(records_);
        cudaFree(count_);
        cudaFree(threads_);
    }
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    // Later launches are not recorded.
    void stop()
    {
        State off{nullptr, 0, nullptr, nullptr, 0xffffffffu};
        cudaMemcpyToSymbol(wl_gpu_trace_state, &off, sizeof off);
    }

    std::vector<trace::LaneRecord> records()
    {
        check(cudaDeviceSynchronize(), "kernel");
        unsigned n = 0;
        check(cudaMemcpy(&n, count_, sizeof n, cudaMemcpyDeviceToHost), "cudaMemcpy(trace count)");
        if (n > capacity_)
            throw std::runtime_error("GPU trace buffer overflow: " + std::to_string(n) + " records, room for " + std::to_string(capacity_));
        std::vector<trace::LaneRecord> out(n);
        check(cudaMemcpy(out.data(), records_, sizeof(trace::LaneRecord) * n, cudaMemcpyDeviceToHost), "cudaMemcpy(trace records)");
        return out;
    }

private:
    unsigned capacity_;
    trace::LaneRecord* records_ = nullptr;
    unsigned* count_ = nullptr;
    ThreadState* threads_ = nullptr;
};

}  // namespace wl::gpu_trace

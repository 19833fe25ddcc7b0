// What a kernel sees when the host compiler builds it for the CPU SIMT
// emulator: CUDA's built-in variables, qualifiers, barriers, warp intrinsics
// and atomics, implemented by core/src/emu/emulator.cpp.
#pragma once
#include <cstdint>
#include <atomic>
#include <cstring>
#include <type_traits>

#include "warplab/trace/record.h"

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __restrict__ __restrict
#define __launch_bounds__(...)
#define WL_HOOK

struct uint3 {
    unsigned x = 0, y = 0, z = 0;
};
struct dim3 {
    unsigned x = 1, y = 1, z = 1;
    constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
struct alignas(8) int2 { int x, y; };
struct alignas(16) int4 { int x, y, z, w; };
struct alignas(8) float2 { float x, y; };
struct alignas(16) float4 { float x, y, z, w; };
inline int4 make_int4(int x, int y, int z, int w) { return {x, y, z, w}; }
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }

constexpr int warpSize = 32;

namespace wl {
struct ArrayMeta;
namespace emu::detail {
// What the running fiber is: CUDA's built-in variables for this thread.
struct ThreadView {
    uint3 thread_idx;
    uint3 block_idx;
    dim3 block_dim;
    dim3 grid_dim;
};
extern thread_local const ThreadView* tls_view;

void syncthreads(const char* file, unsigned line);
// A warp collective: every lane in mask must arrive; returns this lane's result bytes.
// Ballot and everything after it up to MmaTf32 is a vote (recorded as
// Kind::Vote). MmaTf32 (mma.sync m16n8k8 in TF32, from the PTX interpreter:
// 40 bytes in, a lane's a, b and c fragments; 16 out, its d) is not recorded
// and opens no step: the GPU trace sees no event there either.
enum class CollectiveOp : std::uint8_t {
    SyncWarp, ShflIdx, ShflUp, ShflDown, ShflXor, Ballot, Any, All, ReduceAdd,
    Uni, MatchAny, MatchAll, ReduceMinU, ReduceMaxU, ReduceMinS, ReduceMaxS, ReduceAnd, ReduceOr, ReduceXor,
    MmaTf32,
};
void collective(CollectiveOp op, unsigned mask, const void* in, unsigned bytes, int arg, int width, void* out,
                const char* file, unsigned line);
// Shared arrays are per block: the first thread to declare the k-th array allocates it,
// poisoned and unwritten, or (zeroed) as zeros that count as written.
void* declare_shared(unsigned elem_size, unsigned long long count, const char* name, const char* file,
                     unsigned line, ArrayMeta& meta_out, bool zeroed = false);
}  // namespace emu::detail
}  // namespace wl

#define threadIdx (::wl::emu::detail::tls_view->thread_idx)
#define blockIdx (::wl::emu::detail::tls_view->block_idx)
#define blockDim (::wl::emu::detail::tls_view->block_dim)
#define gridDim (::wl::emu::detail::tls_view->grid_dim)

inline void __syncthreads(const char* file = __builtin_FILE(), unsigned line = __builtin_LINE())
{
    wl::emu::detail::syncthreads(file, line);
}
inline void __syncwarp(unsigned mask = 0xffffffffu, const char* file = __builtin_FILE(), unsigned line = __builtin_LINE())
{
    wl::emu::detail::collective(wl::emu::detail::CollectiveOp::SyncWarp, mask, nullptr, 0, 0, 32, nullptr, file, line);
}

#define WL_EMU_SHUFFLE(name, op)                                                                              \
    template <class T>                                                                                        \
    T name(unsigned mask, T var, int arg, int width = 32, const char* file = __builtin_FILE(),                \
           unsigned line = __builtin_LINE())                                                                  \
    {                                                                                                         \
        static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 16, "shuffles move up to 16 bytes");   \
        T out;                                                                                                \
        wl::emu::detail::collective(wl::emu::detail::CollectiveOp::op, mask, &var, sizeof(T), arg, width,     \
                                    &out, file, line);                                                        \
        return out;                                                                                           \
    }
WL_EMU_SHUFFLE(__shfl_sync, ShflIdx)
WL_EMU_SHUFFLE(__shfl_up_sync, ShflUp)
WL_EMU_SHUFFLE(__shfl_down_sync, ShflDown)
WL_EMU_SHUFFLE(__shfl_xor_sync, ShflXor)
#undef WL_EMU_SHUFFLE

#define WL_EMU_VOTE(ret, name, op, in_type)                                                                   \
    inline ret name(unsigned mask, in_type value, const char* file = __builtin_FILE(),                        \
                    unsigned line = __builtin_LINE())                                                         \
    {                                                                                                         \
        unsigned in = static_cast<unsigned>(value), out = 0;                                                  \
        wl::emu::detail::collective(wl::emu::detail::CollectiveOp::op, mask, &in, sizeof in, 0, 32, &out,     \
                                    file, line);                                                              \
        return static_cast<ret>(out);                                                                         \
    }
WL_EMU_VOTE(unsigned, __ballot_sync, Ballot, int)
WL_EMU_VOTE(int, __any_sync, Any, int)
WL_EMU_VOTE(int, __all_sync, All, int)
WL_EMU_VOTE(unsigned, __reduce_add_sync, ReduceAdd, unsigned)
#undef WL_EMU_VOTE

// The emulator's memory is the host's: stores are visible to other blocks once
// an atomic orders them, as __threadfence() promises on a GPU.
inline void __threadfence() {}

inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
// CUDA's min/max overloads take values: see through a traced element (wl::Ref<T>),
// so that max(sdata[i], sdata[i + s]) loads each element once and returns a value.
namespace wl {
template <class T> class Ref;
namespace emu::detail {
template <class T> struct plain { using type = T; };
template <class T> struct plain<wl::Ref<T>> { using type = T; };
template <class A, class B> using common_value = std::common_type_t<typename plain<A>::type, typename plain<B>::type>;
}  // namespace emu::detail
}  // namespace wl
template <class A, class B> inline auto min(const A& a, const B& b)
{
    const wl::emu::detail::common_value<A, B> x = a, y = b;
    return y < x ? y : x;
}
template <class A, class B> inline auto max(const A& a, const B& b)
{
    const wl::emu::detail::common_value<A, B> x = a, y = b;
    return x < y ? y : x;
}

namespace wl::detail {
// Read-modify-write on the emulator: blocks run on several host threads, so
// global atomics must be real atomics.
#define WL_EMU_RMW(name, expr)                                                          \
    template <class T> T name(T* p, T v)                                                \
    {                                                                                   \
        std::atomic_ref<T> ref(*p);                                                     \
        T old = ref.load();                                                             \
        while (!ref.compare_exchange_weak(old, expr)) {                                 \
        }                                                                               \
        return old;                                                                     \
    }
WL_EMU_RMW(rmw_add, old + v)
WL_EMU_RMW(rmw_max, old > v ? old : v)
WL_EMU_RMW(rmw_min, old < v ? old : v)
WL_EMU_RMW(rmw_exch, v)
#undef WL_EMU_RMW
}  // namespace wl::detail

#define WL_SHARED(T, name, N)                                                                                \
    ::wl::ArrayMeta name##_wl_meta;                                                                          \
    ::wl::SharedArray<T, (N)> name(                                                                          \
        static_cast<T*>(::wl::emu::detail::declare_shared(sizeof(T), (N), #name, __FILE__, __LINE__,         \
                                                          name##_wl_meta)),                                  \
        name##_wl_meta)
#define WL_SHARED_2D(T, name, R, C)                                                                          \
    ::wl::ArrayMeta name##_wl_meta;                                                                          \
    ::wl::SharedArray2D<T, (R), (C)> name(                                                                   \
        static_cast<T*>(::wl::emu::detail::declare_shared(sizeof(T), (R) * (C), #name, __FILE__, __LINE__,   \
                                                          name##_wl_meta)),                                  \
        name##_wl_meta)

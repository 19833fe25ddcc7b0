// Traced build (emulator and GPU trace): thin wrappers that route every access
// to shared arrays and global pointers through two hooks of the backend:
//   wl::detail::before_access(const Access&)           checks; the emulator may switch lanes here
//   wl::detail::after_access(const Access&, value*)    records a LaneRecord
// Each access carries the file:line where the kernel wrote it (see At).
#pragma once
#include <cstdint>
#include <type_traits>

#include "warplab/trace/record.h"

namespace wl {

// An index together with the source line that used it: the default arguments
// are evaluated where the kernel writes `a[i]`, so every access knows its site.
struct At {
    long long index;
    const char* file;
    unsigned line;
    // A requires-clause, not enable_if: with an enable_if default template
    // argument, nvcc 13.0's device pass takes __builtin_LINE() from this line.
    template <class I>
        requires std::is_integral_v<I>
    WL_HD At(I i, const char* f = __builtin_FILE(), unsigned l = __builtin_LINE())
        : index(static_cast<long long>(i)), file(f), line(l) {}
};

// What a traced access needs to know about its array.
struct ArrayMeta {
    trace::Space space = trace::Space::Global;
    std::uint8_t id = 0;           // shared: declaration order; global: kernel argument position
    std::uint32_t elem_size = 0;
    std::uint64_t count = 0;       // elements; 0 = unknown (GPU global memory)
    std::uint64_t base_align = 0;  // global: base address % 256, so sectors are computed exactly
    const char* name = "";
};

struct Access {
    const ArrayMeta* array;
    const char* file;
    unsigned line;
    trace::Kind kind;
    unsigned size;
    long long index;  // element index as written (checked against array->count)
    void* ptr;        // address to be accessed
    WL_HD std::uint64_t byte_offset() const
    {
        return static_cast<std::uint64_t>(index) * array->elem_size + array->base_align;
    }
};

// The backend's hooks. WL_HOOK is set by the backend's header: plain
// declarations for the emulator (defined in emulator.cpp), inline
// __host__ __device__ for the GPU trace build (defined in gpu_trace.h).
namespace detail {
WL_HOOK void before_access(const Access& a);
WL_HOOK void after_access(const Access& a, const void* value, unsigned bytes);
}  // namespace detail

template <class T> class Ptr;

// A reference to one traced element: reads and writes go through the hooks.
template <class T> class Ref {
public:
    WL_HD Ref(T* p, const ArrayMeta* m, const At& at) : p_(p), m_(m), at_(at) {}

    WL_HD operator T() const { return load(); }
    WL_HD Ref& operator=(const T& v) { store(v); return *this; }
    WL_HD Ref& operator=(const Ref& other) { store(other.load()); return *this; }
    template <class U> WL_HD Ref& operator+=(const U& v) { store(load() + v); return *this; }
    template <class U> WL_HD Ref& operator-=(const U& v) { store(load() - v); return *this; }
    template <class U> WL_HD Ref& operator*=(const U& v) { store(load() * v); return *this; }
    template <class U> WL_HD Ref& operator|=(const U& v) { store(load() | v); return *this; }
    template <class U> WL_HD Ref& operator&=(const U& v) { store(load() & v); return *this; }
    WL_HD Ptr<T> operator&() const { return Ptr<T>(p_, m_, at_); }

    WL_HD T load() const
    {
        Access a = access(trace::Kind::Load);
        detail::before_access(a);
        T v = *p_;
        detail::after_access(a, &v, sizeof(T));
        return v;
    }
    WL_HD void store(const T& v) const
    {
        Access a = access(trace::Kind::Store);
        detail::before_access(a);
        *p_ = v;
        detail::after_access(a, &v, sizeof(T));
    }

private:
    WL_HD Access access(trace::Kind k) const { return Access{m_, at_.file, at_.line, k, sizeof(T), at_.index, p_}; }
    T* p_;
    const ArrayMeta* m_;
    At at_;
};

// The address of a traced element, as `&a[i]` gives it: what atomics take.
template <class T> class Ptr {
public:
    WL_HD Ptr(T* p, const ArrayMeta* m, const At& at) : p_(p), m_(m), at_(at) {}
    WL_HD T* raw() const { return p_; }
    WL_HD Access access(trace::Kind k) const { return Access{m_, at_.file, at_.line, k, sizeof(T), at_.index, p_}; }

private:
    T* p_;
    const ArrayMeta* m_;
    At at_;
};

// A global-memory kernel parameter. The backend fills in the metadata when it
// converts the raw pointer at launch (bounds on the emulator, alignment on both).
template <class T> class GlobalArray {
public:
    GlobalArray() = default;
    WL_HD GlobalArray(T* p) : p_(p)
    {
        meta_.space = trace::Space::Global;
        meta_.elem_size = sizeof(T);
        meta_.base_align = reinterpret_cast<std::uintptr_t>(p) % 256;
    }
    WL_HD Ref<T> operator[](At at) const { return Ref<T>(p_ + at.index, &meta_, at); }
    WL_HD T* raw() const { return p_; }
    // The same memory seen as elements of type V (e.g. int4 for 128-bit loads).
    template <class V> WL_HD GlobalArray<V> reinterpret() const
    {
        GlobalArray<V> v(reinterpret_cast<V*>(p_));
        v.meta_ = meta_;
        v.meta_.elem_size = sizeof(V);
        v.meta_.count = meta_.count * sizeof(T) / sizeof(V);
        return v;
    }
    template <class> friend class GlobalArray;
    // Set by the launcher: argument position and (emulator) element count.
    void bind(std::uint8_t arg_position, std::uint64_t count, const char* name)
    {
        meta_.id = arg_position;
        meta_.count = count;
        meta_.name = name;
    }

private:
    T* p_ = nullptr;
    ArrayMeta meta_{};
};

// Read-only global parameter: indexing yields a value (one traced load).
template <class T> class InArray : public GlobalArray<T> {
public:
    InArray() = default;
    WL_HD InArray(const T* p) : GlobalArray<T>(const_cast<T*>(p)) {}
    WL_HD T operator[](At at) const { return GlobalArray<T>::operator[](at).load(); }
};

// wl::as<int4>(g_in): a read-only global parameter seen as wider elements.
template <class V, class T> WL_HD InArray<V> as(const InArray<T>& a)
{
    InArray<V> v;
    static_cast<GlobalArray<V>&>(v) = a.template reinterpret<V>();
    return v;
}

// wl::as<float4>(g_out): a writable global parameter seen as wider elements.
template <class V, class T> WL_HD GlobalArray<V> as(const GlobalArray<T>& a) { return a.template reinterpret<V>(); }

template <class T> using in = InArray<T>;
template <class T> using out = GlobalArray<T>;

// A shared-memory array of N elements, declared through WL_SHARED.
template <class T, unsigned long long N> class SharedArray {
public:
    WL_HD SharedArray(T* storage, const ArrayMeta& meta) : p_(storage), meta_(meta) {}
    WL_HD Ref<T> operator[](At at) const { return Ref<T>(p_ + at.index, &meta_, at); }
    // The same array seen as elements of type V (float4 for 128-bit accesses):
    // same id, so the trace shows the accesses on the declared array.
    template <class V> WL_HD SharedArray<V, N * sizeof(T) / sizeof(V)> reinterpret() const
    {
        static_assert(N * sizeof(T) % sizeof(V) == 0, "the array is not a whole number of V");
        ArrayMeta m = meta_;
        m.elem_size = sizeof(V);
        m.count = N * sizeof(T) / sizeof(V);
        return SharedArray<V, N * sizeof(T) / sizeof(V)>(reinterpret_cast<V*>(p_), m);
    }

private:
    T* p_;
    ArrayMeta meta_;
};

// wl::as<float4>(sdata): a WL_SHARED array seen as wider elements (reads and writes).
template <class V, class T, unsigned long long N> WL_HD auto as(const SharedArray<T, N>& a)
{
    return a.template reinterpret<V>();
}

// A 2D shared tile [R][C]: t[r][c] is element r*C + c, bounds checked per dimension
// by checking the flat index against R*C and the column against C.
template <class T, unsigned long long R, unsigned long long C> class SharedArray2D {
public:
    class Row {
    public:
        WL_HD Row(T* p, const ArrayMeta* m, long long r) : p_(p), m_(m), r_(r) {}
        WL_HD Ref<T> operator[](At col) const
        {
            // A column outside [0, C) would silently hit the next row on a GPU:
            // report it as an out-of-bounds index (-1) instead.
            const bool in_row = col.index >= 0 && col.index < static_cast<long long>(C);
            At flat = col;
            flat.index = in_row ? r_ * static_cast<long long>(C) + col.index : -1;
            return Ref<T>(p_ + (in_row ? flat.index : 0), m_, flat);
        }

    private:
        T* p_;
        const ArrayMeta* m_;
        long long r_;
    };
    WL_HD SharedArray2D(T* storage, const ArrayMeta& meta) : p_(storage), meta_(meta) {}
    WL_HD Row operator[](long long r) const { return Row(p_, &meta_, r); }

private:
    T* p_;
    ArrayMeta meta_;
};

// Harris's unrolled warp reads through `volatile`; traced accesses always go to memory.
template <class A> WL_HD A as_volatile(A a) { return a; }

}  // namespace wl

// ---- atomics on traced addresses (one traced read-modify-write each) ----
#define WL_TRACED_ATOMIC(name, rmw, stored)                                     \
    template <class T> WL_HD T name(wl::Ptr<T> p, T v)                          \
    {                                                                           \
        wl::Access a = p.access(wl::trace::Kind::Atomic);                       \
        wl::detail::before_access(a);                                           \
        T old = wl::detail::rmw(p.raw(), v);                                    \
        T now = stored;                                                         \
        wl::detail::after_access(a, &now, sizeof(T));                           \
        return old;                                                             \
    }
WL_TRACED_ATOMIC(atomicAdd, rmw_add, old + v)
WL_TRACED_ATOMIC(atomicMax, rmw_max, old > v ? old : v)
WL_TRACED_ATOMIC(atomicMin, rmw_min, old < v ? old : v)
WL_TRACED_ATOMIC(atomicExch, rmw_exch, v)
#undef WL_TRACED_ATOMIC

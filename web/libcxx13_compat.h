// Forced into every source of the browser build (web/dependencies.cmake):
// emscripten 3.1.6, Debian 12's, ships libc++ 13, which lacks a few C++20
// library parts that g++ 12's libstdc++ has. Each is defined here only where
// the library does not declare it, from the standard's own specification.
#pragma once
#ifdef __cplusplus
#include <version>

#if !defined(__cpp_lib_bit_cast)
#include <type_traits>
namespace std {
template <class To, class From>
    requires(sizeof(To) == sizeof(From) && is_trivially_copyable_v<To> && is_trivially_copyable_v<From>)
constexpr To bit_cast(const From& from) noexcept
{
    return __builtin_bit_cast(To, from);
}
}  // namespace std
#endif

#if !defined(__cpp_lib_three_way_comparison)
#include <compare>
#include <vector>
namespace std {
namespace warplab_compat {
// [expos.only.func]'s synth-three-way: <=> where the type has it, else from <.
template <class T>
constexpr auto synth_three_way(const T& a, const T& b)
{
    if constexpr (requires { a <=> b; }) {
        return a <=> b;
    } else {
        if (a < b) return weak_ordering::less;
        if (b < a) return weak_ordering::greater;
        return weak_ordering::equivalent;
    }
}
}  // namespace warplab_compat

// [vector.syn]: lexicographic, element by element.
template <class T, class A>
auto operator<=>(const vector<T, A>& a, const vector<T, A>& b)
{
    using Order = decltype(warplab_compat::synth_three_way(a[0], b[0]));
    for (size_t i = 0; i < a.size() && i < b.size(); ++i)
        if (const Order c = warplab_compat::synth_three_way(a[i], b[i]); c != 0) return c;
    return Order(a.size() <=> b.size());
}
}  // namespace std
#endif

#if !defined(__cpp_lib_atomic_ref)
#include <atomic>
namespace std {
// [atomics.ref.generic], the members the PTX interpreter uses, on the compiler's atomic builtins.
template <class T>
class atomic_ref {
public:
    explicit atomic_ref(T& object) : p_(&object) {}
    T load() const noexcept { return __atomic_load_n(p_, __ATOMIC_SEQ_CST); }
    void store(T value) const noexcept { __atomic_store_n(p_, value, __ATOMIC_SEQ_CST); }
    bool compare_exchange_weak(T& expected, T desired) const noexcept
    {
        return __atomic_compare_exchange_n(p_, &expected, desired, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    }

private:
    T* p_;
};
}  // namespace std
#endif

#if !defined(__cpp_lib_smart_ptr_for_overwrite)
#include <memory>
namespace std {
// [unique.ptr.create]: default-initialised, not value-initialised.
template <class T>
    requires is_unbounded_array_v<T>
unique_ptr<T> make_unique_for_overwrite(size_t n)
{
    return unique_ptr<T>(new remove_extent_t<T>[n]);
}
template <class T>
    requires(!is_array_v<T>)
unique_ptr<T> make_unique_for_overwrite()
{
    return unique_ptr<T>(new T);
}
}  // namespace std
#endif

#endif

// Forced into the viewer's sources of the browser build (web/CMakeLists.txt),
// beside libcxx13_compat.h: libc++ 13 has no <=> for strings, and the viewer's
// trace keys compare theirs. Kept apart so that the libraries, which need none,
// do not rebuild for it.
#pragma once
#ifdef __cplusplus
#include <compare>
#include <string>
#include <version>

#if !defined(__cpp_lib_three_way_comparison)
namespace std {
// [string.cmp]: by compare(), ordered as char_traits<char>'s comparison_category (strong).
template <class C, class T, class A>
strong_ordering operator<=>(const basic_string<C, T, A>& a, const basic_string<C, T, A>& b) noexcept
{
    return a.compare(b) <=> 0;
}
}  // namespace std
#endif
#endif

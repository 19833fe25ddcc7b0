// The 128-bit vector type of an element type: wl::vec4<int> is int4. Not an
// instrumentation wrapper: a raw CUDA kernel may use it too.
#pragma once

namespace wl {
template <class T> struct vec4_of;
template <> struct vec4_of<int> { using type = int4; };
template <> struct vec4_of<float> { using type = float4; };
template <class T> using vec4 = typename vec4_of<T>::type;
}  // namespace wl

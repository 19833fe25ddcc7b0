// One instantiation of a version's kernel template: the version and its
// template arguments. The emulator finds its PTX entry by name
// ("warplab::reduction::reduce_interleaved_divergent<256u, float>", the form
// a demangler prints); the GPU build maps it to the compiled function
// (labs/<lab>/kernels.cuh). Compiles with g++ and with nvcc.
#pragma once
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "labs/common/version.h"
#include "warplab/dim3.h"

namespace warplab {

// A value template argument (every lab kernel's are unsigned).
template <unsigned N> struct Value {};
// A kernel's template arguments, in order: types, or Value<N>.
template <class... A> struct TemplateArgs {};
template <unsigned... N> using Values = TemplateArgs<Value<N>...>;

template <class V, class Args> struct KernelInstance {
    using Version = V;
};

// Whether a user's --file kernel runs in place of V's: every version's, but
// not a lab's own later pass that each version shares (one that declares
// `static constexpr bool lab_pass = true`, as a 2D reduction's sum of partials).
template <class V> constexpr bool user_stands_in = !requires { V::lab_pass; };

namespace detail {
template <class A> struct ArgText;
template <unsigned N> struct ArgText<Value<N>> {
    static std::string text() { return std::to_string(N) + "u"; }
    static constexpr bool is_value = true;
    static constexpr unsigned value = N;
};
template <> struct ArgText<int> {
    static std::string text() { return "int"; }
    static constexpr bool is_value = false;
};
template <> struct ArgText<float> {
    static std::string text() { return "float"; }
    static constexpr bool is_value = false;
};

template <class... A> std::string arg_list(TemplateArgs<A...>)
{
    std::string out;
    ((out += (out.empty() ? "" : ", ") + ArgText<A>::text()), ...);
    return out;
}

// The arguments by kind, as a user's template takes them (UserLaunch).
template <class... A> void split_args(TemplateArgs<A...>, std::vector<std::string>& types, std::vector<long long>& values)
{
    ([&] {
        if constexpr (ArgText<A>::is_value) values.push_back(ArgText<A>::value);
        else types.push_back(ArgText<A>::text());
    }(), ...);
}

// sizeof the first type argument: the lab's element type (float where none is named).
template <class... A> constexpr unsigned element_bytes(TemplateArgs<A...>)
{
    unsigned bytes = 0;
    ((bytes = bytes ? bytes : ArgText<A>::is_value ? 0u : unsigned(sizeof(A))), ...);
    return bytes ? bytes : unsigned(sizeof(float));
}
}  // namespace detail


// A backend's launch with no dynamic shared memory: its launch_with_shared
// with 0 bytes. A backend derives from it (and names its launch with a using
// where another base has one) instead of writing the forward again.
template <class Backend> struct LaunchWithoutShared {
    template <class V, class Args, class... A>
    void launch(KernelInstance<V, Args> kernel, dim3 grid, dim3 block, A&&... args)
    {
        static_cast<Backend&>(*this).launch_with_shared(kernel, grid, block, 0, std::forward<A>(args)...);
    }
};

// The demangled entry name without its parameter list, as wl::ptx::Module::find takes it.
template <class V, class Args> std::string entry_name(const KernelFiles& lab, KernelInstance<V, Args>)
{
    return kernel_symbol(lab, V::meta) + "<" + detail::arg_list(Args{}) + ">";
}

}  // namespace warplab

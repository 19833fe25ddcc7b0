// What every lab version declares once (labs/<lab>/versions.h), with named
// fields:
//
//     static constexpr VersionMeta meta{.id = "v3", .name = "sequential_addressing",
//                                       .idea = "...", .changed = "...", .expected = "..."};
//
// Everything else about the version is derived from it and from its lab's
// KernelFiles: the source file kernels/<lab>/03_sequential_addressing.cuh and
// the function warplab::<lab>::<prefix>_sequential_addressing. Facts that only
// one lab has (a reduction's smallest block, a matmul's tiles) live in that
// lab's version types, not here. The CLI, viewer, benchmarks, tests and grader
// all read the list from there.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace warplab {

struct VersionMeta {
    const char* id;            // "v3"; a variant kept beside a step adds a suffix ("v5-racy")
    const char* name;          // "sequential_addressing": names the kernel's file and function
    const char* idea;          // one line
    const char* changed;       // what changed from the previous version
    const char* expected;      // the expected effect
    bool variant = false;      // a marked variant (e.g. a racy form kept for teaching), not a step of the ladder
    unsigned bench_block = 256;  // threads per block `warplab bench` times it at; trace and viewer default to it
    const char* gpu_only = nullptr;  // why the emulator cannot run it (it runs only on a GPU); nullptr: it can
    unsigned dynamic_shared_bytes = 0;  // dynamic shared memory its launch gives each block (extern __shared__)
    // The version this one changes, where that is not the step before it (v13
    // goes back to v9): its step speed-up and its source diff are against it.
    const char* builds_on = nullptr;
    // The n its trace and the viewer default to where the lab's default would
    // not show the idea (reduction v10's copies start at 32 KB); 0: the lab's.
    std::size_t trace_n = 0;
};

// Where a lab's kernels are: kernels/<lab>/NN_<name>.cuh, each defining the
// function template warplab::<lab>::<prefix>_<name>.
struct KernelFiles {
    const char* lab;     // "reduction"
    const char* prefix;  // "reduce"
    // The dynamic shared memory a user's --file kernel that declares `extern
    // __shared__` gets per block when --shared-bytes is not given: what the
    // lab's textbook host code gives, from the block's shape and sizeof the element.
    struct {
        unsigned (*bytes)(unsigned block_x, unsigned block_y, unsigned element_bytes);
        const char* rule;  // says so in the trace header: "threads × sizeof(T), as Harris's host code gives"
    } user_shared;
};

// The version's number: the digits after the 'v' of its id ("v5-racy" → 5).
constexpr unsigned version_number(std::string_view id)
{
    unsigned n = 0;
    for (std::size_t i = 1; i < id.size() && id[i] >= '0' && id[i] <= '9'; ++i) n = n * 10 + unsigned(id[i] - '0');
    return n;
}

// "warplab::reduction::reduce_sequential_addressing": the kernel's qualified name.
inline std::string kernel_symbol(const KernelFiles& lab, const VersionMeta& v)
{
    return std::string("warplab::") + lab.lab + "::" + lab.prefix + "_" + v.name;
}

// "kernels/reduction/03_sequential_addressing.cuh", relative to the repository root.
inline std::string kernel_file(const KernelFiles& lab, const VersionMeta& v)
{
    const unsigned n = version_number(v.id);
    return std::string("kernels/") + lab.lab + "/" + char('0' + n / 10 % 10) + char('0' + n % 10) + "_" + v.name + ".cuh";
}

// A version as the registry lists it: its entry, and what is derived from it.
struct Version : VersionMeta {
    std::string kernel;  // the function's name, unqualified: "reduce_sequential_addressing"
    std::string file;    // its source, relative to the repository root
};

// Calls f(V{}) for each version type of a std::tuple list, stopping when f returns true.
template <class Tuple, class F> constexpr bool for_each_version(F&& f)
{
    return []<class... V>(F& g, const std::tuple<V...>*) { return (g(V{}) || ...); }(f, static_cast<const Tuple*>(nullptr));
}

// Calls f(V{}) for the version of a std::tuple list whose id is `id`; false when there is none.
template <class Tuple, class F> constexpr bool with_version(std::string_view id, F&& f)
{
    return for_each_version<Tuple>([&](auto v) {
        if (id != decltype(v)::meta.id) return false;
        f(v);
        return true;
    });
}

// A setting a version's kernel takes as an argument (the coalescing copies'
// offset or stride): what it is called (also its CLI option, --offset), how
// it combines with i in the read index, the values a sweep takes, and the one
// a run takes by default. A version declares one as `static constexpr Setting setting`.
struct Setting {
    const char* name;
    const char* op;  // in[i <op> setting]
    unsigned first, last;
    unsigned standard;
};

// The setting of a version that declares one (`static constexpr Setting setting`); nullptr otherwise.
template <class Versions> const Setting* version_setting(std::string_view id)
{
    const Setting* out = nullptr;
    with_version<Versions>(id, [&](auto v) {
        if constexpr (requires { decltype(v)::setting; }) out = &decltype(v)::setting;
    });
    return out;
}

// Every version of a std::tuple list, in order.
template <class Tuple> std::vector<Version> version_list(const KernelFiles& lab)
{
    std::vector<Version> out;
    for_each_version<Tuple>([&](auto v) {
        const VersionMeta& meta = decltype(v)::meta;
        out.push_back(Version{meta, std::string(lab.prefix) + "_" + meta.name, kernel_file(lab, meta)});
        return false;
    });
    return out;
}

// Whether a kernel's C++ name is the one its entry implies (<prefix>_<name>):
// the lab's kernels.cuh checks each at compile time.
constexpr bool names_kernel(std::string_view function, const KernelFiles& lab, const VersionMeta& v)
{
    const std::string_view prefix = lab.prefix, name = v.name;
    return function.size() == prefix.size() + 1 + name.size() && function.substr(0, prefix.size()) == prefix &&
           function[prefix.size()] == '_' && function.substr(prefix.size() + 1) == name;
}

}  // namespace warplab

// The coalescing lab: two copy kernels after NVIDIA's "Optimizing CUDA", each
// with one setting swept from first to last (an offset, a stride) that the
// kernel takes as an argument, so one PTX entry serves every setting. The CLI,
// viewer, benchmark and tests read this list; it does not include the kernels
// (the host compiler reads it without CUDA).
#pragma once
#include <cstddef>
#include <string>
#include <tuple>

#include "labs/common/kernel_instance.h"
#include "labs/common/version.h"
#if !defined(__CUDACC__)
#include "warplab/dim3.h"
#endif

namespace warplab::coalescing {

// kernels/coalescing/NN_<name>.cuh defines warplab::coalescing::copy_<name>.
inline constexpr KernelFiles kKernels{
    .lab = "coalescing",
    .prefix = "copy",
    // The copies of Harris's "How to Access Global Memory Efficiently" use no
    // shared memory; a kernel that stages through it gets one element a thread.
    .user_shared = {[](unsigned x, unsigned y, unsigned e) { return x * y * e; }, "threads × sizeof(float), one element a thread"},
};

struct V1 {
    static constexpr VersionMeta meta{
        .id = "v1",
        .name = "offset",
        .idea = "offset copy: out[i] = in[i + offset]",
        .changed = "the starting point: NVIDIA's offsetCopy, the offset a kernel argument",
        .expected = "4 sectors per read request when offset is a multiple of 8 words, else 5"};
    static constexpr Setting setting{"offset", "+", 0, 32, 0};
    static constexpr std::size_t source_index(std::size_t i, unsigned offset) { return i + offset; }
};

struct V2 {
    static constexpr VersionMeta meta{
        .id = "v2",
        .name = "stride",
        .idea = "strided copy: out[i] = in[i * stride]",
        .changed = "the read index is multiplied by the setting instead of shifted by it",
        .expected = "min(32, 4 * stride) sectors per read request; bandwidth falls about as 1 / stride"};
    static constexpr Setting setting{"stride", "*", 1, 32, 1};
    static constexpr std::size_t source_index(std::size_t i, unsigned stride) { return i * stride; }
};

using Versions = std::tuple<V1, V2>;

// Elements of `in` that n outputs read: one past the last source index.
template <class V> constexpr std::size_t input_elements(std::size_t n, unsigned setting)
{
    return n == 0 ? 0 : V::source_index(n - 1, setting) + 1;
}

// Every kernel is a template <class T> taking (in, out, n, setting).
template <class V, class T> using Kernel = KernelInstance<V, TemplateArgs<T>>;

inline unsigned blocks_for(std::size_t n, unsigned block) { return static_cast<unsigned>((n + block - 1) / block); }

// One launch of version V on any backend: one thread per output element.
template <class V, class T, class Backend>
void launch(Backend& be, const T* in, T* out, std::size_t n, unsigned setting, unsigned block)
{
    be.launch(Kernel<V, T>{}, dim3(blocks_for(n, block)), dim3(block), in, out, static_cast<unsigned>(n), setting);
}

// The version's setting; nullptr for an id that is not one of the lab's.
inline const Setting* setting_of(std::string_view id) { return version_setting<Versions>(id); }

// A bench row's name for one setting, "v1 offset 5": the benchmark writes it,
// the sweep table and the viewer find the recorded rate by it.
inline std::string row_name(const std::string& id, unsigned value)
{
    const Setting* s = setting_of(id);
    return id + " " + (s ? s->name : "setting") + " " + std::to_string(value);
}

}  // namespace warplab::coalescing

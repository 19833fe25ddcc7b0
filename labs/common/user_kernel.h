// A kernel from the user's own .cu file, run in place of a lab version's
// kernel: the same parameters and the same launch shape, so that every
// consumer (trace table, viewer, bench) shows it as one more version beside
// the lab's.
//
//   warplab trace reduction v3 --file my.cu --kernel my_reduce
//
// A template is instantiated to fit its own parameters from the version's
// launch (a type parameter gets the lab's element type, an integral one the
// block size or the version's tile sizes, in order), or taken from the file's
// own explicit instantiation where one agrees (wl::ptx::KernelFile). A kernel
// that declares `extern __shared__` gets the dynamic shared memory the lab's
// textbook host code gives (KernelFiles::user_shared), or --shared-bytes.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "labs/common/kernel_instance.h"
#include "labs/common/version.h"
#include "warplab/emu/emulator.h"
#include "warplab/occupancy.h"
#include <vector>

namespace wl::ptx {
class Module;
class KernelFile;
struct KernelInfo;
}  // namespace wl::ptx

namespace warplab {

// What a user's kernel is called where the lab's versions are listed: the
// viewer's version list, the rows of `warplab bench --file`.
constexpr const char* kUserVersionId = "yours";

// What one launch of a version gives the user's kernel in its place.
struct UserLaunch {
    std::vector<std::string> types;   // the version's template arguments by kind (wl::ptx::TemplateFill)
    std::vector<long long> values;
    std::string launch;               // names it in messages: "reduction v3's launch <256u, int>"
    std::string instance;             // the same as text ("256u, int"): the launches' cache key
    unsigned block_x = 0, block_y = 0;
    unsigned element_bytes = 4;       // sizeof the lab's element type
    std::uint32_t version_shared_bytes = 0;  // the dynamic shared memory the version's own launch gives
    // The version's kernel, to name the parameters it takes where the user's take others:
    // its file relative to warplab's data, and its name there.
    std::string version_file, version_kernel;
};

// What the launch of instance <V, Args> with this block and dynamic shared
// memory gives a user's --file kernel in its place: the version's type
// arguments, and its value arguments (the block size where it has none).
template <class V, class Args, class Block>
UserLaunch user_launch(const KernelFiles& lab, KernelInstance<V, Args>, const Block& block, unsigned shared_bytes)
{
    UserLaunch l;
    detail::split_args(Args{}, l.types, l.values);
    l.instance = detail::arg_list(Args{});
    l.launch = std::string(lab.lab) + " " + V::meta.id + "'s launch <" + l.instance + ">";
    if (l.values.empty()) {
        const unsigned threads = block.x * block.y * block.z;
        l.values.push_back(threads);
        l.launch += " of " + std::to_string(threads) + " threads";
    }
    l.block_x = block.x;
    l.block_y = block.y;
    l.element_bytes = detail::element_bytes(Args{});
    l.version_shared_bytes = shared_bytes;
    l.version_file = kernel_file(lab, V::meta);
    l.version_kernel = std::string(lab.prefix) + "_" + V::meta.name;
    return l;
}

// The user's kernel as ptxas compiles it for the H100 (sm_90), in the instance
// the version's launch at its bench block size runs (the template arguments of
// the lab's own instance there, as a trace fills them), and what its block asks
// of an SM: `warplab occupancy --file` and the viewer's occupancy panel. Its
// dynamic shared memory is the version's launch's (what_if.shared sets the
// block's total). Remembered per process. Throws std::invalid_argument (the
// file, nvcc's or ptxas's messages).
struct UserOccupancy {
    wl::occupancy::LaunchUsage launch;  // launch.instance: the user's kernel's ptxas record
    std::string note;                   // what to say beside it: its extern __shared__ array's bytes, where it has one
};
UserOccupancy user_launch_usage(const std::string& lab, const Version& v, const std::string& file, const std::string& kernel,
                                const std::string& type, const wl::occupancy::WhatIf& what_if = {});

// Checks what can be checked of a --file without compiling it: the file can
// be read, has a __global__ kernel, and `kernel` names one of them (or, when
// empty, it has only one). Returns that kernel's qualified name; throws
// std::invalid_argument in one line.
std::string check_user_file(const std::string& file, const std::string& kernel);

class UserKernel;

// Runs a lab's run; a kernel fault of the user's kernel (user set) says nvcc's
// warnings after its message: an endless `unsigned s >= 0` loop is what nvcc warned of.
template <class F> decltype(auto) with_compile_warnings(const UserKernel* user, F&& run);

class UserKernel {
public:
    // Throws std::invalid_argument when the file cannot be read, is empty or
    // declares no __global__ function. `shared_bytes`: --shared-bytes.
    UserKernel(std::string file, std::string kernel, const KernelFiles& lab, std::optional<std::uint32_t> shared_bytes = {});
    ~UserKernel();
    UserKernel(const UserKernel&) = delete;
    UserKernel& operator=(const UserKernel&) = delete;

    struct Entry {
        const wl::ptx::Module* module;
        std::string name;               // as wl::ptx::Module::find takes it
        std::uint32_t shared_bytes = 0; // the launch's dynamic shared memory
    };
    // The user's kernel for this launch, compiled on first use. Throws
    // std::invalid_argument with nvcc's messages, or one line naming what
    // does not fit (see wl::ptx::KernelFile).
    const Entry& entry(const UserLaunch& launch);

    const std::string& file() const { return file_; }
    // The file's path as the trace's source sites and nvcc's messages give it:
    // relative to the working directory where it lies under it, else absolute.
    static std::string shown_path(const std::string& file);
    // The kernel's name, qualified: the one given, or the file's only kernel.
    const std::string& kernel() const { return kernel_; }
    // For the trace header, about the first launch: which instance ran where
    // the kernel is a template ("kernel: reduce2<int>, the file's explicit
    // instantiation"), and what its `extern __shared__` array got, and why
    // (none where it declares none and --shared-bytes was not given).
    std::string note() const;
    // nvcc's first warnings about the file: "nvcc warns about F:\n..."; empty: none.
    const std::string& warnings() const { return warnings_note_; }

private:
    std::uint32_t shared_bytes_for(const wl::ptx::KernelInfo& info, const UserLaunch& launch);
    std::string file_, kernel_;
    const KernelFiles& lab_;
    std::optional<std::uint32_t> shared_bytes_;
    std::unique_ptr<wl::ptx::KernelFile> source_;
    std::map<std::string, Entry> entries_;  // per launch
    std::string instance_note_, shared_note_, warnings_note_;
};

template <class F> decltype(auto) with_compile_warnings(const UserKernel* user, F&& run)
{
    try {
        return run();
    } catch (const wl::emu::KernelFault& f) {
        if (!user || user->warnings().empty()) throw;
        throw wl::emu::KernelFault(f.fault, user->warnings());
    }
}

}  // namespace warplab

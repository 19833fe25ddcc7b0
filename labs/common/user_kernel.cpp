#include "labs/common/user_kernel.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <vector>

#include "labs/common/data_dir.h"
#include "warplab/ptx/cuda_source.h"
#include "warplab/ptx/kernel_file.h"
#include "warplab/ptx/ptx.h"

namespace warplab {
namespace fs = std::filesystem;

namespace {

// Paths in the PTX and in nvcc's messages read as the user wrote them:
// relative to the working directory.
std::string working_directory()
{
    std::error_code ec;
    return fs::current_path(ec).string();
}

// Runs f(), turning the toolkit's and the file's errors into bad input (exit 2).
template <class F> decltype(auto) as_bad_input(const std::string& shown, F&& f)
{
    try {
        return f();
    } catch (const wl::ptx::ToolkitMissing&) {
        throw std::invalid_argument("--file needs the CUDA toolkit (nvcc) to compile " + shown + "; none found on PATH or in /usr/local/cuda");
    } catch (const wl::ptx::CompileError& e) {
        throw std::invalid_argument("nvcc could not compile " + shown + ":\n" + e.what());
    } catch (const wl::ptx::ParseError& e) {
        throw std::invalid_argument(e.what());
    }
}

// A kernel with `int*` parameters run on floats reads their bits as ints: one
// line instead of a wrong sum. Only the lab's element types are compared.
void check_element_type(const wl::ptx::KernelDecl& kernel, const UserLaunch& launch)
{
    if (launch.types.empty()) return;
    const std::string& lab_type = launch.types.front();
    for (const wl::ptx::Parameter& p : kernel.parameters)
        if (const std::string t = p.pointee(); (t == "int" || t == "float") && t != lab_type)
            throw std::invalid_argument(kernel.name + " takes " + t + "*, but " + launch.launch + " passes " + lab_type +
                                        "*: run it with --type " + t);
}

// The version's kernel's parameters as its file declares them; none where the file cannot be read or
// does not declare it.
std::optional<std::vector<wl::ptx::Parameter>> version_parameters(const UserLaunch& launch)
{
    std::ifstream in(data_dir() / launch.version_file);
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    for (const wl::ptx::KernelDecl& k : wl::ptx::read_cuda_source(text).kernels)
        if (wl::ptx::kernel_named(k.name, launch.version_kernel)) return k.parameters;
    return std::nullopt;
}

// A kernel that takes other parameters than the version passes cannot run in its place: one line that
// names what the launch passes, "(const float* A, ..., unsigned K)", rather than the emulator's byte counts.
void check_parameter_count(const wl::ptx::KernelDecl& kernel, const UserLaunch& launch)
{
    const auto passed = version_parameters(launch);
    if (!passed || passed->size() == kernel.parameters.size()) return;
    std::string list;
    for (const wl::ptx::Parameter& p : *passed) list += (list.empty() ? "" : ", ") + p.type + (p.name.empty() ? "" : " " + p.name);
    throw std::invalid_argument(kernel.name + " takes " + std::to_string(kernel.parameters.size()) + " parameters, but " +
                                launch.launch + " passes " + std::to_string(passed->size()) + ": (" + list +
                                "); write your kernel with these, in this order");
}

std::string launch_key(const UserLaunch& l)
{
    return l.instance + "|" + std::to_string(l.block_x) + "x" + std::to_string(l.block_y) + "|" + std::to_string(l.version_shared_bytes);
}

}  // namespace

UserOccupancy user_launch_usage(const std::string& lab, const Version& v, const std::string& file, const std::string& kernel,
                                const std::string& type, const wl::occupancy::WhatIf& what_if)
{
    // The version's own instance gives the template arguments and the block.
    const wl::occupancy::LaunchUsage own = wl::occupancy::launch_usage(lab, v.kernel, v.bench_block, type, {}, v.dynamic_shared_bytes);
    const std::string shown = UserKernel::shown_path(file);
    static std::mutex m;
    static std::map<std::string, std::pair<std::unique_ptr<wl::occupancy::KernelResources>, std::string>> known;
    std::error_code ec;
    // libc++'s file clock counts in __int128, which std::to_string does not take.
    const auto written = static_cast<long long>(fs::last_write_time(file, ec).time_since_epoch().count());
    const std::string key = fs::absolute(file).string() + '\0' + kernel + '\0' + own.instance->entry + '\0' + std::to_string(written);
    std::lock_guard lock(m);
    auto& known_here = known[key];  // not a structured binding: clang 14 lets no lambda capture one
    auto& resources = known_here.first;
    auto& note = known_here.second;
    if (!resources) {
        as_bad_input(shown, [&] {
            wl::ptx::CompileOptions opt;
            opt.strip_prefix = working_directory();
            wl::ptx::KernelFile source(file, opt, shown);
            const std::string& entry = own.instance->entry;
            const std::string launch = lab + " " + v.id + "'s launch" + (entry.find('<') == std::string::npos ? std::string() : std::string(" ").append(entry.substr(entry.find('<'))));
            wl::ptx::TemplateFill fill = wl::ptx::fill_of(entry, launch);
            if (fill.values.empty()) fill.values.push_back(v.bench_block);  // the block size, as user_launch fills it
            const auto& k = source.instance(kernel, fill);
            for (const wl::occupancy::KernelResources& r : wl::occupancy::parse_ptxas_report(wl::ptx::ptxas_report(k.module->text())))
                if (r.mangled == k.entry) resources = std::make_unique<wl::occupancy::KernelResources>(r);
            if (!resources) throw std::invalid_argument("ptxas reported no " + k.entry + " for " + shown);
            for (const wl::ptx::SharedInfo& s : k.info->shared)
                if (s.dynamic)
                    note = "extern __shared__ " + s.name + "[]: " + std::to_string(v.dynamic_shared_bytes) + " bytes, as " + v.id +
                           "'s launch gives (--smem sets the block's total)";
        });
    }
    UserOccupancy out{own, note};
    out.launch.instance = resources.get();
    out.launch.compiled_at_block = !what_if.block;
    out.launch.usage = {what_if.block.value_or(v.bench_block), what_if.registers.value_or(resources->registers),
                        what_if.shared.value_or(resources->shared_static + v.dynamic_shared_bytes)};
    return out;
}

std::string check_user_file(const std::string& file, const std::string& kernel)
{
    return wl::ptx::KernelFile(file, {}, UserKernel::shown_path(file)).pick(kernel).name;
}

UserKernel::UserKernel(std::string file, std::string kernel, const KernelFiles& lab, std::optional<std::uint32_t> shared_bytes)
    : file_(std::move(file)), kernel_(std::move(kernel)), lab_(lab), shared_bytes_(shared_bytes)
{
    wl::ptx::CompileOptions opt;
    opt.strip_prefix = working_directory();
    source_ = std::make_unique<wl::ptx::KernelFile>(file_, opt, shown_path(file_));
    kernel_ = source_->pick(kernel_).name;  // a name that matches nothing fails here, listing the file's kernels
}

UserKernel::~UserKernel() = default;

std::string UserKernel::shown_path(const std::string& file)
{
    const std::string absolute = fs::absolute(file).string();
    const std::string prefix = working_directory() + "/";
    return absolute.starts_with(prefix) ? absolute.substr(prefix.size()) : absolute;
}

// --shared-bytes; else what the version's own launch gives; else, for a kernel
// that declares `extern __shared__`, what the lab's textbook host code gives.
std::uint32_t UserKernel::shared_bytes_for(const wl::ptx::KernelInfo& info, const UserLaunch& launch)
{
    const wl::ptx::SharedInfo* extern_array = nullptr;
    for (const wl::ptx::SharedInfo& s : info.shared)
        if (s.dynamic) extern_array = &s;
    std::uint32_t bytes = 0;
    std::string why;
    if (shared_bytes_) {
        bytes = *shared_bytes_, why = "--shared-bytes";
    } else if (!extern_array) {
        return launch.version_shared_bytes;
    } else if (launch.version_shared_bytes) {
        bytes = launch.version_shared_bytes, why = "what the version's own launch gives";
    } else if (!lab_.user_shared.bytes) {
        why = "this lab's host code gives none; --shared-bytes N sets it";
    } else {
        bytes = lab_.user_shared.bytes(launch.block_x, launch.block_y, launch.element_bytes);
        why = std::string(lab_.user_shared.rule) + "; --shared-bytes N sets it";
    }
    if (shared_note_.empty())
        shared_note_ = "dynamic shared memory: " + std::to_string(bytes) + " bytes per block" +
                       (extern_array ? " for extern " + extern_array->name + "[]" : std::string(" (the kernel declares no extern __shared__ array)")) +
                       " (" + why + ")";
    return bytes;
}

const UserKernel::Entry& UserKernel::entry(const UserLaunch& launch)
{
    const std::string key = launch_key(launch);
    if (auto it = entries_.find(key); it != entries_.end()) return it->second;
    const std::string shown = source_->shown();
    return as_bad_input(shown, [&]() -> const Entry& {  // a KernelFileError is bad input already
        const wl::ptx::KernelFile::Instance& k = source_->instance(kernel_, {launch.types, launch.values, launch.launch});
        check_element_type(source_->pick(kernel_), launch);
        check_parameter_count(source_->pick(kernel_), launch);
        if (instance_note_.empty() && !k.how.empty()) instance_note_ = "kernel: " + k.how;
        if (warnings_note_.empty() && !k.warnings.empty())
            warnings_note_ = "nvcc warns about " + shown + ":\n" + wl::ptx::first_warnings(k.warnings);
        return entries_[key] = Entry{k.module, k.entry, shared_bytes_for(*k.info, launch)};
    });
}

std::string UserKernel::note() const
{
    std::string out;
    for (const std::string* part : {&instance_note_, &shared_note_})
        if (!part->empty()) out += (out.empty() ? "" : "\n") + *part;
    return out;
}

}  // namespace warplab

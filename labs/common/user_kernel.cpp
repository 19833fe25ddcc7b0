#include "labs/common/user_kernel.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>

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

wl::ptx::CompileOptions user_options()
{
    wl::ptx::CompileOptions opt;
    opt.strip_prefix = working_directory();
    return opt;
}

wl::ptx::Module compile(const std::string& text_or_path, const std::string& shown, bool is_path)
{
    try {
        const wl::ptx::CompiledPtx ptx = is_path ? wl::ptx::compile_file(text_or_path, user_options())
                                                 : wl::ptx::compile_source(text_or_path, shown, user_options());
        return wl::ptx::Module::parse(ptx.text, shown);
    } catch (const wl::ptx::ToolkitMissing&) {
        throw std::invalid_argument("--file needs the CUDA toolkit (nvcc) to compile " + shown + "; none found on PATH or in /usr/local/cuda");
    } catch (const wl::ptx::CompileError& e) {
        throw std::invalid_argument("nvcc could not compile " + shown + ":\n" + e.what());
    } catch (const wl::ptx::ParseError& e) {
        throw std::invalid_argument(e.what());
    }
}

// The demangled name without namespace, template arguments and parameters:
// "ns::my_reduce<256u, float>(float const*, float*, unsigned int)" -> "my_reduce".
std::string bare_name(const std::string& demangled)
{
    std::string s = demangled.substr(0, demangled.find_first_of("<("));
    const auto colon = s.rfind("::");
    return colon == std::string::npos ? s : s.substr(colon + 2);
}

// The mangled name of the kernel whose demangled name, without parameters,
// is `name` or ends in "::" + name; empty when there is none.
std::string find_entry(const wl::ptx::Module& m, const std::string& name)
{
    for (const wl::ptx::KernelInfo& k : m.kernels()) {
        const std::string d = k.demangled.substr(0, k.demangled.find('('));
        if (d == name || (d.size() > name.size() + 2 && d.ends_with("::" + name))) return k.mangled;
    }
    return "";
}

}  // namespace

UserKernel::UserKernel(std::string file, std::string kernel) : file_(std::move(file)), kernel_(std::move(kernel))
{
    std::ifstream f(file_);
    if (!f) throw std::invalid_argument("cannot read kernel file '" + file_ + "'");
}

UserKernel::~UserKernel() = default;

std::string UserKernel::shown_path(const std::string& file)
{
    const std::string absolute = fs::absolute(file).string();
    const std::string prefix = working_directory() + "/";
    return absolute.starts_with(prefix) ? absolute.substr(prefix.size()) : absolute;
}

const wl::ptx::Module& UserKernel::plain_module()
{
    if (!plain_) plain_ = std::make_unique<wl::ptx::Module>(compile(file_, file_, true));
    return *plain_;
}

const UserKernel::Entry& UserKernel::entry(const std::string& template_args)
{
    if (auto it = entries_.find(template_args); it != entries_.end()) return it->second;
    const wl::ptx::Module& plain = plain_module();
    if (kernel_.empty()) {  // no --kernel: the file's only kernel
        const auto kernels = plain.kernels();
        if (kernels.size() != 1)
            throw std::invalid_argument(
                kernels.empty() ? file_ + " compiles to no kernel as it stands (a template is compiled only once it is named): name it with --kernel"
                                : file_ + " has " + std::to_string(kernels.size()) + " kernels: name one with --kernel");
        kernel_ = bare_name(kernels.front().demangled);
    }
    // A plain __global__ function (or one the file instantiates itself) is in the file's own PTX.
    const std::string name = kernel_ + "<" + template_args + ">";
    if (std::string e = find_entry(plain, name); !e.empty()) return entries_[template_args] = Entry{&plain, e};
    if (std::string e = find_entry(plain, kernel_); !e.empty()) return entries_[template_args] = Entry{&plain, e};
    // A template: instantiate it with the version's arguments by taking its address.
    const std::string source = "#include \"" + fs::absolute(file_).string() +
                               "\"\n[[maybe_unused]] static const void* const warplab_user_instance = "
                               "reinterpret_cast<const void*>(&" + kernel_ + "<" + template_args + ">);\n";
    auto module = std::make_unique<wl::ptx::Module>(
        compile(source, fs::path(file_).stem().string() + "_instance.cu", false));
    const std::string entry = find_entry(*module, name);
    if (entry.empty()) throw std::invalid_argument("no kernel " + name + " in " + file_);
    const wl::ptx::Module* m = module.get();
    instances_[template_args] = std::move(module);
    return entries_[template_args] = Entry{m, entry};
}

}  // namespace warplab

// A kernel from the user's own .cu file, run in place of a lab version's
// kernel: the same parameters and the same launch shape, so that every
// consumer (trace table, viewer, grader-style checks) shows it as one more
// version beside the lab's.
//
//   warplab trace reduction v3 --file my.cu --kernel my_reduce
//
// A kernel that is a template is instantiated with the template arguments of
// the version it stands in for (reduction: <BLOCK, T>), so a file written
// like the lab's kernels works as it is; a plain __global__ function is used
// directly.
#pragma once
#include <map>
#include <memory>
#include <string>

namespace wl::ptx {
class Module;
}

namespace warplab {

// What a user's kernel is called where the lab's versions are listed: the
// viewer's version list, the rows of `warplab bench --file`.
constexpr const char* kUserVersionId = "yours";

class UserKernel {
public:
    // Throws std::invalid_argument when the file cannot be read.
    UserKernel(std::string file, std::string kernel);
    ~UserKernel();
    UserKernel(const UserKernel&) = delete;
    UserKernel& operator=(const UserKernel&) = delete;

    struct Entry {
        const wl::ptx::Module* module;
        std::string name;  // as wl::ptx::Module::find takes it
    };
    // The user's kernel for the version instance with these template arguments
    // ("256u, float"), compiled on first use. Throws std::invalid_argument with
    // nvcc's messages, or when the file has no such kernel.
    const Entry& entry(const std::string& template_args);

    const std::string& file() const { return file_; }
    // The file's path as the trace's source sites and nvcc's messages give it:
    // relative to the working directory where it lies under it, else absolute.
    static std::string shown_path(const std::string& file);
    // The kernel's name: as given, or the file's only kernel.
    const std::string& kernel() const { return kernel_; }

private:
    const wl::ptx::Module& plain_module();
    std::string file_, kernel_;
    std::unique_ptr<wl::ptx::Module> plain_;                  // the file compiled as it is
    std::map<std::string, std::unique_ptr<wl::ptx::Module>> instances_;  // per template argument list
    std::map<std::string, Entry> entries_;
};

}  // namespace warplab

#include "labs/common/without_barrier.h"

#include <stdexcept>

#include "labs/common/emulator_backend.h"
#include "warplab/ptx/barrier_edit.h"

namespace warplab {
namespace {

std::string base_name(const std::string& path) { return path.substr(path.find_last_of("/\\") + 1); }

}  // namespace

wl::ptx::Module module_without_barrier(const wl::ptx::Module& module, const std::string& file, std::uint32_t line,
                                       const std::string& lab)
{
    const wl::ptx::BarrierEdit edit = wl::ptx::without_barriers(module.text(), file, line);
    if (!edit.removed) {
        std::string lines;
        for (std::uint32_t l : edit.barrier_lines) lines += (lines.empty() ? "" : ", ") + std::to_string(l);
        throw std::invalid_argument("--without-barrier " + std::to_string(line) + ": line " + std::to_string(line) + " of " +
                                    base_name(file) + " has no __syncthreads() or __syncwarp()" +
                                    (lines.empty() ? std::string(", nor has any other line") : "; lines " + lines + " have"));
    }
    return lab.empty() ? wl::ptx::Module::parse(edit.ptx, module.origin()) : parse_lab_ptx(edit.ptx.c_str(), lab);
}

std::string without_barrier_title(const std::string& file, std::uint32_t line)
{
    return "what if the barrier at line " + std::to_string(line) + " of " + base_name(file) +
           " were gone: a modified run, its PTX without that line's barriers, the rest unchanged";
}

}  // namespace warplab

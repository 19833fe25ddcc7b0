#include "occupancy_command.h"

#include <cstdio>
#include <optional>
#include <stdexcept>
#include <vector>

#include "labs/common/did_you_mean.h"
#include "labs/common/lab.h"
#include "labs/common/user_kernel.h"
#include "warplab/occupancy.h"

namespace warplab::cli {

namespace occ = wl::occupancy;

OccupancyCommand::OccupancyCommand(CLI::App& app)
{
    sub_ = app.add_subcommand("occupancy", "registers, shared memory and resident warps per SM of each version");
    sub_->add_option("lab", lab_, "lab, e.g. reduction")->required();
    sub_->add_option("version", version_, "one version, e.g. v3 (default: every version)");
    sub_->add_option("--gpu", gpu_, "h100 (default), a100, rtx4090, g80, or all");
    sub_->add_option("--block", block_, "what if: threads per block (default: each version's bench block size)");
    sub_->add_option("--registers", registers_, "what if: registers per thread (default: ptxas's count)");
    sub_->add_option("--smem", smem_, "what if: shared memory per block in bytes, static and dynamic (default: the kernel's)");
    sub_->add_option("--type", type_, "element type of the instance (default: the lab's first)");
    sub_->add_option("--file", file_, "your own .cu: its kernel's row from its own ptxas report, in the version's launch");
    sub_->add_option("--kernel", kernel_, "the kernel of --file (default: the file's only one)");
}

namespace {

std::vector<const occ::Arch*> chosen_archs(const std::string& gpu)
{
    std::vector<const occ::Arch*> out;
    if (gpu == "all") {
        for (const occ::Arch& a : occ::architectures()) out.push_back(&a);
    } else if (const occ::Arch* a = occ::find_arch(gpu)) {
        out.push_back(a);
    } else {
        throw std::invalid_argument("unknown GPU '" + gpu + "' (one of " + occ::arch_ids() + ", or all)");
    }
    return out;
}

// "warplab::reduction::reduce_x<256u, int>" -> "reduce_x<256u, int>"
std::string without_namespace(const std::string& entry)
{
    const std::size_t scope = entry.substr(0, entry.find('<')).rfind("::");
    return scope == std::string::npos ? entry : entry.substr(scope + 2);
}

// A value, starred when it is a what-if rather than the kernel's own.
std::string marked(unsigned value, bool what_if) { return std::to_string(value) + (what_if ? "*" : ""); }

// One row: a version's launch (or the user's kernel in its place) on the arch.
void print_row(const char* id, const occ::LaunchUsage& launch, const occ::Arch& arch, const occ::WhatIf& what_if)
{
    const occ::Occupancy o = occ::occupancy(arch, launch.usage);
    const occ::KernelResources& k = *launch.instance;
    const std::string limit = o.unlaunchable.empty() ? o.limiters() : "cannot launch: " + o.unlaunchable;
    std::printf("%-8s %-44s %5s %6u %9s %8s %10u %9s %9.1f%%  %s\n", id, without_namespace(k.entry).c_str(),
                marked(launch.usage.registers_per_thread, what_if.registers.has_value()).c_str(),
                k.stack + k.spill_stores + k.spill_loads,
                marked(launch.usage.shared_per_block, what_if.shared.has_value()).c_str(),
                marked(launch.usage.threads_per_block, !launch.compiled_at_block).c_str(), o.blocks_per_sm,
                (std::to_string(o.warps_per_sm) + "/" + std::to_string(arch.max_warps_per_sm)).c_str(),
                100.0 * o.fraction, limit.c_str());
}

// versions: indices into lab.versions; user: the user's kernel in the place of the (one) version.
void print_table(const Lab& lab, const std::vector<std::size_t>& versions, const occ::Arch& arch,
                 const std::string& type, const occ::WhatIf& what_if, const std::optional<UserOccupancy>& user)
{
    std::printf("%s on %s: per SM %u warps, %u blocks, %u registers, %u bytes of shared memory\n", lab.id.c_str(),
                arch.name, arch.max_warps_per_sm, arch.max_blocks_per_sm, arch.registers_per_sm, arch.shared_per_sm);
    std::printf("%-8s %-44s %5s %6s %9s %8s %10s %9s %10s  %s\n", "version", "instance (ptxas -arch=sm_90a)", "regs",
                "local", "shared B", "threads", "blocks/SM", "warps/SM", "occupancy", "limited by");
    for (std::size_t i : versions) {
        const auto& v = lab.versions[i];
        print_row(v.id, occ::launch_usage(lab.id, v.kernel, v.bench_block, type, what_if, v.dynamic_shared_bytes), arch, what_if);
    }
    if (user) print_row(kUserVersionId, user->launch, arch, what_if);
}

}  // namespace

int OccupancyCommand::run() const
{
    const Lab* lab = find_lab(lab_);
    if (!lab) throw std::invalid_argument(unknown_lab(lab_));
    if (lab->host_programs)
        throw std::invalid_argument("lab " + lab->id + "'s versions are host programs around one small kernel: no occupancy to compare");
    std::vector<std::size_t> versions;
    if (version_.empty() && !file_.empty()) {
        versions.push_back(0);  // the user's kernel takes the first version's launch, as trace --file does
    } else if (version_.empty()) {
        for (std::size_t i = 0; i < lab->versions.size(); ++i) versions.push_back(i);
    } else if (const auto* v = find_version(*lab, version_)) {
        versions.push_back(static_cast<std::size_t>(v - lab->versions.data()));
    } else {
        throw std::invalid_argument(unknown_version(*lab, version_));
    }
    const std::string type = type_.empty() ? lab->types.front() : type_;
    bool known_type = false;
    for (const std::string& t : lab->types) known_type |= t == type;
    if (!known_type) throw std::invalid_argument("lab " + lab->id + " has no element type '" + type + "'");
    if (block_ && *block_ == 0) throw std::invalid_argument("--block must be at least 1");
    const std::vector<const occ::Arch*> archs = chosen_archs(gpu_);

    const occ::WhatIf what_if{block_, registers_, smem_};
    std::optional<UserOccupancy> user;
    if (!file_.empty()) user = user_launch_usage(lab->id, lab->versions[versions.front()], file_, kernel_, type, what_if);
    for (std::size_t i = 0; i < archs.size(); ++i) {
        if (i) std::printf("\n");
        print_table(*lab, versions, *archs[i], type, what_if, user);
    }
    if (user)
        std::printf("\nyours: %s in %s as ptxas compiles it for sm_90, in %s's launch%s%s\n",
                    without_namespace(user->launch.instance->entry).c_str(), UserKernel::shown_path(file_).c_str(),
                    lab->versions[versions.front()].id, user->note.empty() ? "" : "; ", user->note.c_str());
    std::printf("\nregs, local (stack and spill bytes) and static shared memory from ptxas for sm_90a (the GPU build), plus the dynamic "
                "shared memory a version's launch gives (shared B); threads: each version's bench block size.%s\n",
                block_ || registers_ || smem_ ? " *: a what-if value, not the kernel's own." : "");
    return 0;
}

}  // namespace warplab::cli

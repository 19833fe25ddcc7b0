// Occupancy: how many blocks of a kernel one SM holds at once, how many warps
// that makes out of the most it could run, and which resource runs out first
// (warp slots, block slots, registers, shared memory).
//
// The per-architecture limits are NVIDIA's, from the CUDA C++ Programming
// Guide ("Compute Capabilities": technical specifications per compute
// capability) and, for the G80, NVIDIA's CUDA Occupancy Calculator; the
// allocation rules (register units per warp and per sub-partition, shared
// memory granularity and the per-block reservation) are those of the CUDA
// Occupancy Calculator as the CUDA Toolkit ships it (cuda_occupancy.h), which
// the runtime's cudaOccupancyMaxActiveBlocksPerMultiprocessor follows.
//
// A kernel's resource use comes from ptxas (`ptxas -v`): the labs' reports are
// made at build time and embedded (kernels/ptx/<lab>.resources where the build
// has no CUDA toolkit).
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wl::occupancy {

// How an SM hands out registers: to each warp (Fermi and later) or to the
// whole block at once (the G80 and its compute capability 1.x siblings).
enum class RegisterAllocation { PerWarp, PerBlock };

struct Arch {
    const char* id;    // what --gpu takes: "h100"
    const char* name;  // "H100 (sm_90)"
    unsigned sm;       // compute capability as ptxas names it: 90
    unsigned warp_size;
    unsigned max_threads_per_block;
    unsigned max_threads_per_sm;
    unsigned max_warps_per_sm;
    unsigned max_blocks_per_sm;
    unsigned registers_per_sm;
    unsigned max_registers_per_block;
    unsigned max_registers_per_thread;
    RegisterAllocation register_allocation;
    unsigned register_unit;          // registers are allocated in multiples of this many
    unsigned warp_allocation_unit;   // PerBlock: a block's warps are counted in multiples of this many
    unsigned register_partitions;    // PerWarp: the register file is split into this many sub-partitions, each holding whole warps
    unsigned shared_per_sm;          // bytes: the largest carve-out where it is configurable (sm_80 and later)
    unsigned shared_per_block;       // bytes: the most one block may use (opted in beyond 48 KB on sm_80 and later)
    unsigned shared_unit;            // shared memory is allocated in multiples of this many bytes
    unsigned shared_reserved_per_block;  // bytes the driver keeps for every block (sm_80 and later)
};

// H100 (sm_90), A100 (sm_80), RTX 4090 (sm_89), G80 (sm_10): each declared once.
const std::vector<Arch>& architectures();
// By id ("h100", "a100", "rtx4090", "g80"); nullptr when there is none.
const Arch* find_arch(std::string_view id);
// "h100, a100, rtx4090, g80": for messages.
std::string arch_ids();

// What one block of a kernel asks of the SM.
struct Usage {
    unsigned threads_per_block = 0;
    unsigned registers_per_thread = 0;
    unsigned shared_per_block = 0;  // bytes, static and dynamic together
};

// The resources that bound the number of resident blocks.
enum class Limiter { Threads, Blocks, Registers, SharedMemory };
const char* to_string(Limiter l);  // "threads", "blocks", "registers", "shared memory"

struct Occupancy {
    unsigned blocks_per_sm = 0;
    unsigned warps_per_sm = 0;
    double fraction = 0;  // warps_per_sm / max_warps_per_sm
    // The blocks each resource alone leaves room for (a resource the block does
    // not use at all: kUnlimited).
    unsigned by_threads = 0, by_blocks = 0, by_registers = 0, by_shared = 0;
    // What the SM sets aside per block.
    unsigned warps_per_block = 0, registers_per_block = 0, shared_allocated_per_block = 0;
    // Non-empty when not even one block fits: which limit the block breaks.
    std::string unlaunchable;

    unsigned blocks_by(Limiter l) const;
    // Whether this resource allows no more blocks than resident: every
    // resource that bounds the result (several may tie).
    bool limited_by(Limiter l) const { return blocks_by(l) == blocks_per_sm; }
    // The bounding resources, "threads" or "threads, registers" on a tie.
    std::string limiters() const;
};
inline constexpr unsigned kUnlimited = ~0u;

Occupancy occupancy(const Arch& arch, const Usage& use);

// One kernel as ptxas compiled it: one "Compiling entry function" record of `ptxas -v`.
struct KernelResources {
    std::string mangled;  // the PTX entry's name
    std::string entry;    // demangled, without return type and parameters: "ns::kernel<256u, int>"
    unsigned registers = 0;
    unsigned shared_static = 0;  // bytes
    unsigned stack = 0, spill_stores = 0, spill_loads = 0;  // bytes of local memory per thread
};

// The records of a `ptxas -v` report (lines starting '#' are comments).
// Throws std::invalid_argument naming the line that does not read as ptxas's.
std::vector<KernelResources> parse_ptxas_report(std::string_view text);

// A lab's report, embedded at build time; nullptr for a lab this build has none for.
const std::vector<KernelResources>* lab_resources(std::string_view lab);

// The instance of `kernel` a launch of `block` threads of element type `type`
// runs: the lab's only instance of it, else the one whose template arguments
// name the block size ("256u") and the type where one does. nullptr: none.
const KernelResources* find_instance(const std::vector<KernelResources>& report, std::string_view kernel,
                                     unsigned block, std::string_view type);

// What-if values in place of a kernel's own (unset: the kernel's).
struct WhatIf {
    std::optional<unsigned> block, registers, shared;
};

// One launch of a lab's kernel: the compiled instance it runs and what its
// block asks of an SM. The instance is the one compiled for the block size
// where the lab has it; else (a what-if block size) the one at the version's
// own block size, its registers and shared memory kept.
struct LaunchUsage {
    const KernelResources* instance = nullptr;
    Usage usage;
    bool compiled_at_block = true;  // false: the block size is a what-if the lab has no instance for
};
// Throws std::invalid_argument when the lab has no report or its report no such kernel.
// own_dynamic_shared: the dynamic shared memory the version's launch gives a block.
LaunchUsage launch_usage(std::string_view lab, std::string_view kernel, unsigned own_block, std::string_view type,
                         const WhatIf& what_if = {}, unsigned own_dynamic_shared = 0);

}  // namespace wl::occupancy

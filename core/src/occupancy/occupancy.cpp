// The occupancy calculator: per-architecture limits, declared once, and the
// CUDA Occupancy Calculator's allocation rules.
#include "warplab/occupancy.h"

#include <algorithm>

namespace wl::occupancy {

namespace {

constexpr unsigned KiB = 1024;

unsigned ceil_div(unsigned x, unsigned d) { return (x + d - 1) / d; }
unsigned round_up(unsigned x, unsigned unit) { return ceil_div(x, unit) * unit; }

// Sources: NVIDIA, CUDA C++ Programming Guide, "Compute Capabilities",
// table "Technical Specifications per Compute Capability" (8.0, 8.9, 9.0:
// resident threads, warps and blocks per SM, 64 K registers per SM and per
// block, 255 registers per thread, shared memory per SM and per block, the
// 1 KB the driver reserves per block); granularities from the CUDA Toolkit's
// cuda_occupancy.h (256-register units per warp, 4 register sub-partitions,
// 128-byte shared-memory units). The G80 (compute capability 1.0) from
// NVIDIA's CUDA Occupancy Calculator, as NVIDIA's "Optimizing CUDA" tutorial
// shows it: 768 threads, 24 warps, 8 blocks, 8192 registers and 16 KB of
// shared memory per SM; registers handed out per block in 256-register units,
// a block's warps counted in pairs, shared memory in 512-byte units.
const std::vector<Arch> kArchitectures = {
    {"h100", "H100 (sm_90)", 90, 32, 1024, 2048, 64, 32, 65536, 65536, 255, RegisterAllocation::PerWarp, 256, 1, 4,
     228 * KiB, 227 * KiB, 128, 1 * KiB},
    {"a100", "A100 (sm_80)", 80, 32, 1024, 2048, 64, 32, 65536, 65536, 255, RegisterAllocation::PerWarp, 256, 1, 4,
     164 * KiB, 163 * KiB, 128, 1 * KiB},
    {"rtx4090", "RTX 4090 (sm_89)", 89, 32, 1024, 1536, 48, 24, 65536, 65536, 255, RegisterAllocation::PerWarp, 256, 1,
     4, 100 * KiB, 99 * KiB, 128, 1 * KiB},
    {"g80", "G80 (sm_10)", 10, 32, 512, 768, 24, 8, 8192, 8192, 124, RegisterAllocation::PerBlock, 256, 2, 1,
     16 * KiB, 16 * KiB, 512, 0},
};

// Registers the SM sets aside for one block, and how many blocks they allow.
struct RegisterFit {
    unsigned per_block = 0, blocks = kUnlimited;
    bool fits = true;
};

RegisterFit fit_registers(const Arch& a, unsigned warps, unsigned regs)
{
    RegisterFit r;
    if (regs > a.max_registers_per_thread) return {0, 0, false};
    if (a.register_allocation == RegisterAllocation::PerBlock) {
        r.per_block = round_up(round_up(warps, a.warp_allocation_unit) * a.warp_size * regs, a.register_unit);
        r.fits = r.per_block <= a.max_registers_per_block;
        if (r.per_block > 0) r.blocks = a.registers_per_sm / r.per_block;
        return r;
    }
    const unsigned per_warp = round_up(regs * a.warp_size, a.register_unit);
    r.per_block = per_warp * warps;
    // The launch check assumes every sub-partition gets a share of the block's warps.
    r.fits = per_warp * round_up(warps, a.register_partitions) <= a.max_registers_per_block;
    if (per_warp > 0 && warps > 0) {
        const unsigned warps_per_partition = a.registers_per_sm / a.register_partitions / per_warp;
        r.blocks = warps_per_partition * a.register_partitions / warps;
    }
    return r;
}

}  // namespace

const std::vector<Arch>& architectures() { return kArchitectures; }

const Arch* find_arch(std::string_view id)
{
    for (const Arch& a : kArchitectures)
        if (id == a.id) return &a;
    return nullptr;
}

std::string arch_ids()
{
    std::string out;
    for (const Arch& a : kArchitectures) out += (out.empty() ? "" : ", ") + std::string(a.id);
    return out;
}

const char* to_string(Limiter l)
{
    switch (l) {
    case Limiter::Threads: return "threads";
    case Limiter::Blocks: return "blocks";
    case Limiter::Registers: return "registers";
    case Limiter::SharedMemory: return "shared memory";
    }
    return "?";
}

unsigned Occupancy::blocks_by(Limiter l) const
{
    switch (l) {
    case Limiter::Threads: return by_threads;
    case Limiter::Blocks: return by_blocks;
    case Limiter::Registers: return by_registers;
    case Limiter::SharedMemory: return by_shared;
    }
    return kUnlimited;
}

std::string Occupancy::limiters() const
{
    std::string out;
    for (Limiter l : {Limiter::Threads, Limiter::Blocks, Limiter::Registers, Limiter::SharedMemory})
        if (limited_by(l)) out += (out.empty() ? "" : ", ") + std::string(to_string(l));
    return out;
}

Occupancy occupancy(const Arch& a, const Usage& use)
{
    Occupancy o;
    o.warps_per_block = ceil_div(use.threads_per_block, a.warp_size);
    o.shared_allocated_per_block = round_up(use.shared_per_block + a.shared_reserved_per_block, a.shared_unit);
    const RegisterFit regs = fit_registers(a, o.warps_per_block, use.registers_per_thread);
    o.registers_per_block = regs.per_block;
    o.by_blocks = a.max_blocks_per_sm;
    o.by_registers = regs.blocks;
    o.by_shared = o.shared_allocated_per_block > 0 ? a.shared_per_sm / o.shared_allocated_per_block : kUnlimited;

    // A block that cannot launch at all: each resource it breaks allows 0 blocks.
    auto refuse = [&o](unsigned& by, const std::string& what) {
        by = 0;
        o.unlaunchable += (o.unlaunchable.empty() ? "" : ", ") + what;
    };
    if (use.threads_per_block == 0 || use.threads_per_block > a.max_threads_per_block)
        refuse(o.by_threads, std::to_string(use.threads_per_block) + " threads per block (1 to " +
                                 std::to_string(a.max_threads_per_block) + ")");
    else
        o.by_threads = a.max_warps_per_sm / o.warps_per_block;
    if (use.registers_per_thread > a.max_registers_per_thread)
        refuse(o.by_registers, std::to_string(use.registers_per_thread) + " registers per thread (at most " +
                                   std::to_string(a.max_registers_per_thread) + ")");
    else if (!regs.fits)
        refuse(o.by_registers, std::to_string(regs.per_block) + " registers per block (at most " +
                                   std::to_string(a.max_registers_per_block) + ")");
    if (o.shared_allocated_per_block > a.shared_per_block + a.shared_reserved_per_block)
        refuse(o.by_shared, std::to_string(use.shared_per_block) + " bytes of shared memory per block (at most " +
                                std::to_string(a.shared_per_block) + ")");

    o.blocks_per_sm = std::min({o.by_threads, o.by_blocks, o.by_registers, o.by_shared});
    o.warps_per_sm = o.blocks_per_sm * o.warps_per_block;
    o.fraction = double(o.warps_per_sm) / a.max_warps_per_sm;
    return o;
}

}  // namespace wl::occupancy

// Raw GPU records -> the emulator's records (ptx_instrument.h): the host half
// of the instrumentation, plain C++ so that it is tested without a GPU.
#include <algorithm>
#include <cstring>
#include <tuple>

#include "../ptx/statements.h"
#include "ptx_instrument.h"

namespace wl::cuda::detail {
namespace {

using trace::Kind;
using trace::LaneRecord;
using trace::Space;

// Global: the parameter with the largest pointer at or below the address
// (the later parameter where two are equal), if the address lies in that
// pointer's allocation: offset from it, plus the pointer's place within 256
// bytes (alignment decides sectors). Other device memory: array 0xFF, offset
// from its allocation's base, plus that base's place within 256 bytes. Memory
// in no allocation the driver names (a cooperative launch's grid barrier
// word): array 0xFF too, as the emulator names it, with the address itself.
void name_global(LaneRecord& r, const LaunchFacts& facts)
{
    const std::uint64_t a = r.offset;
    const PointerArg* below = nullptr;
    for (const PointerArg& p : facts.pointers)
        if (p.value <= a && (!below || p.value >= below->value)) below = &p;
    if (below && a < below->alloc_end) {
        r.array = below->position;
        r.offset = a - below->value + below->value % 256;
        return;
    }
    r.array = 0xFF;
    std::uint64_t base = 0;
    if (facts.allocation_of && facts.allocation_of(a, base)) r.offset = a - base + base % 256;
}

// Shared: the slot with the largest window address at or below the address.
void name_shared(LaneRecord& r, const std::vector<SharedSlot>& slots)
{
    const std::uint64_t a = r.offset;
    int best = -1;
    for (std::size_t k = 0; k < slots.size(); ++k)
        if (slots[k].base <= a && (best < 0 || slots[k].base >= slots[best].base)) best = static_cast<int>(k);
    if (best < 0) return;
    r.array = static_cast<std::uint8_t>(best);
    r.offset = a - slots[best].base;
}

// Constant: the variable with the largest address at or below the address.
void name_constant(LaneRecord& r, const std::vector<ConstantSlot>& slots)
{
    const std::uint64_t a = r.offset;
    const ConstantSlot* best = nullptr;
    for (const ConstantSlot& c : slots)
        if (c.base <= a && (!best || c.base >= best->base)) best = &c;
    if (!best) return;
    r.array = best->variable;
    r.offset = a - best->base;
}

// What thread 0 of a block records first on the emulator: one Declare per
// shared array, at the kernel's first line.
std::vector<LaneRecord> declarations(std::uint32_t block, const LaunchFacts& facts)
{
    const std::vector<SharedSlot>& slots = facts.shared;
    std::vector<LaneRecord> out;
    for (std::size_t i = 0; i < slots.size(); ++i) {
        const SharedSlot& s = slots[i];
        LaneRecord r{};
        r.block = block;
        r.thread = 0;
        r.seq = static_cast<std::uint32_t>(i);
        r.file_hash = facts.declared_file_hash;
        r.line = facts.declared_line;
        r.kind = Kind::Declare;
        r.space = Space::Shared;
        r.size = static_cast<std::uint8_t>(s.elem);
        r.array = static_cast<std::uint8_t>(i);
        r.offset = s.bytes / s.elem;
        char label[16] = {};
        std::memcpy(label, s.name.data(), std::min(sizeof label, s.name.size()));
        std::memcpy(r.value, label, sizeof label);
        out.push_back(r);
    }
    return out;
}

}  // namespace

std::vector<SharedSlot> shared_slots(const ptx::KernelInfo& kernel, const InstrumentedPtx& instrumented,
                                     const std::vector<std::uint32_t>& bases, std::uint32_t dynamic_shared_bytes)
{
    std::vector<SharedSlot> slots;
    const unsigned narrowest = instrumented.narrowest_shared_access;
    for (const ptx::detail::SharedArray& a : ptx::detail::shared_arrays(kernel.shared, narrowest, dynamic_shared_bytes))
        if (a.var < bases.size()) slots.push_back({bases[a.var], a.bytes, a.elem, kernel.shared[a.var].name});
    return slots;
}

std::vector<ConstantSlot> constant_slots(const InstrumentedPtx& ptx, const unsigned char* control)
{
    std::vector<ConstantSlot> slots;
    const std::size_t first = variables_offset(ptx.shared.size());
    for (std::size_t k = 0; k < ptx.variables.size(); ++k) {
        if (!ptx.variables[k].constant) continue;
        std::uint64_t base = 0;
        std::memcpy(&base, control + first + 8 * k, sizeof base);
        // The emulator's variable id, as interp_memory.cpp caps it.
        slots.push_back(ConstantSlot{static_cast<std::uint8_t>(std::min<std::size_t>(k, 0xFE)), base});
    }
    return slots;
}

std::vector<LaneRecord> finish_records(std::vector<LaneRecord> raw, const LaunchFacts& facts)
{
    const auto declared = static_cast<std::uint32_t>(facts.shared.size());
    for (LaneRecord& r : raw) {
        if (r.space == Space::Shared) name_shared(r, facts.shared);
        else if (r.space == Space::Global) name_global(r, facts);
        else if (r.space == Space::Constant) name_constant(r, facts.constants);
        if (r.thread == 0) r.seq += declared;  // thread 0's declarations come first
    }
    for (std::uint32_t b : facts.watched_blocks) {
        const auto d = declarations(b, facts);
        raw.insert(raw.end(), d.begin(), d.end());
    }
    std::sort(raw.begin(), raw.end(), [](const LaneRecord& a, const LaneRecord& b) {
        return std::tie(a.block, a.thread, a.seq) < std::tie(b.block, b.thread, b.seq);
    });
    return raw;
}

}  // namespace wl::cuda::detail

// Raw GPU records -> the emulator's records (ptx_instrument.h): the host half
// of the instrumentation, plain C++ so that it is tested without a GPU.
#include <algorithm>
#include <cstring>
#include <tuple>

#include "ptx_instrument.h"

namespace wl::cuda::detail {
namespace {

using trace::Kind;
using trace::LaneRecord;
using trace::Space;

// Global: the parameter with the largest pointer at or below the address,
// inside that pointer's allocation; offset from it, plus the pointer's place
// within 256 bytes (so that alignment, which decides sectors, survives).
void name_global(LaneRecord& r, const std::vector<PointerArg>& ptrs)
{
    const std::uint64_t a = r.offset;
    const PointerArg* best = nullptr;
    for (const PointerArg& p : ptrs)
        if (p.value <= a && a < p.alloc_end && (!best || p.value > best->value)) best = &p;
    if (!best) return;  // not an argument's memory: the raw address stays
    r.array = best->position;
    r.offset = a - best->value + best->value % 256;
}

// Shared: the variable with the largest window address at or below the
// address (the later one where two share an address: a zero-sized one).
void name_shared(LaneRecord& r, const std::vector<std::uint32_t>& bases)
{
    const std::uint64_t a = r.offset;
    int best = -1;
    for (std::size_t k = 0; k < bases.size(); ++k)
        if (bases[k] <= a && (best < 0 || bases[k] >= bases[best])) best = static_cast<int>(k);
    if (best < 0) return;
    r.array = static_cast<std::uint8_t>(best);
    r.offset = a - bases[best];
}

// What thread 0 of a block records first on the emulator: one Declare per
// shared variable (element size: its alignment, at most 16 bytes).
std::vector<LaneRecord> declarations(std::uint32_t block, const ptx::KernelInfo& k, std::uint32_t dynamic_bytes)
{
    std::vector<LaneRecord> out;
    for (std::size_t i = 0; i < k.shared.size(); ++i) {
        const ptx::SharedInfo& s = k.shared[i];
        LaneRecord r{};
        r.block = block;
        r.thread = 0;
        r.seq = static_cast<std::uint32_t>(i);
        r.file_hash = trace::file_hash("");
        r.kind = Kind::Declare;
        r.space = Space::Shared;
        const unsigned elem = std::clamp(s.align, 1u, 16u);
        r.size = static_cast<std::uint8_t>(elem);
        r.array = static_cast<std::uint8_t>(i);
        r.offset = (s.dynamic ? dynamic_bytes : s.bytes) / elem;
        char label[16] = {};
        std::memcpy(label, s.name.data(), std::min(sizeof label, s.name.size()));
        std::memcpy(r.value, label, sizeof label);
        out.push_back(r);
    }
    return out;
}

}  // namespace

std::vector<LaneRecord> finish_records(std::vector<LaneRecord> raw, const LaunchFacts& facts)
{
    const auto declared = static_cast<std::uint32_t>(facts.kernel ? facts.kernel->shared.size() : 0);
    for (LaneRecord& r : raw) {
        if (r.space == Space::Shared) name_shared(r, facts.shared_bases);
        else if (r.space == Space::Global) name_global(r, facts.pointers);
        if (r.thread == 0) r.seq += declared;  // thread 0's declarations come first
    }
    if (facts.kernel)
        for (std::uint32_t b : facts.watched_blocks) {
            const auto d = declarations(b, *facts.kernel, facts.dynamic_shared_bytes);
            raw.insert(raw.end(), d.begin(), d.end());
        }
    std::sort(raw.begin(), raw.end(), [](const LaneRecord& a, const LaneRecord& b) {
        return std::tie(a.block, a.thread, a.seq) < std::tie(b.block, b.thread, b.seq);
    });
    return raw;
}

}  // namespace wl::cuda::detail

// Hardware models and per-step metrics.
#include "warplab/trace/analysis.h"

#include <algorithm>
#include <bit>
#include <set>

namespace wl::trace {
namespace {

constexpr unsigned kSectorBytes = 32;

// The 4-byte words a lane's access covers: [first, last].
std::uint64_t first_word(std::uint64_t offset) { return offset / kBankWidth; }
std::uint64_t last_word(std::uint64_t offset, unsigned size) { return (offset + std::max(size, 1u) - 1) / kBankWidth; }

// Most words one phase can touch: 32 lanes of up to 4 bytes (2 words each
// when unaligned), 32 packed lanes of 8 bytes (3), 16 of 16 bytes (5).
constexpr std::size_t kMaxPhaseWords = 3 * kBankLanes;

// The mask's lanes that have an offset.
LaneMask lanes_in(LaneMask mask, LaneOffsets offset)
{
    return mask & first_lanes_mask(static_cast<unsigned>(std::min<std::size_t>(offset.size(), kMaxWarpSize)));
}

// Per bank, the distinct words that the phase's lanes touch (the first
// kMaxPhaseWords words, in lane order): each bank's words so far are a list
// threaded through one array, most banks holding none or one.
std::array<std::uint32_t, kBanks> phase_ways(LaneMask phase, LaneOffsets offset, unsigned size)
{
    constexpr std::uint8_t kNone = 0xFF;
    static_assert(kMaxPhaseWords < kNone, "a word's index fits a byte");
    std::array<std::uint64_t, kMaxPhaseWords> words;
    std::array<std::uint8_t, kMaxPhaseWords> next;  // the bank's word before this one
    std::array<std::uint8_t, kBanks> last;           // each bank's latest word
    last.fill(kNone);
    std::array<std::uint32_t, kBanks> ways{};
    std::size_t taken = 0, kept = 0;
    const auto add = [&](std::uint64_t w) {
        const unsigned bank = static_cast<unsigned>(w % kBanks);
        for (std::uint8_t k = last[bank]; k != kNone; k = next[k])
            if (words[k] == w) return;  // a shared word counts once
        words[kept] = w;
        next[kept] = last[bank];
        last[bank] = static_cast<std::uint8_t>(kept++);
        ways[bank] += 1;
    };
    for_each_lane(phase, [&](unsigned lane) {
        for (std::uint64_t w = first_word(offset[lane]); w <= last_word(offset[lane], size) && taken < kMaxPhaseWords; ++w, ++taken)
            add(w);
    });
    return ways;
}

// Every active lane l has lane l ^ partner active too, reading the same
// address. (Where a partner is idle we do not assume packing: no measurement
// here says what the hardware does then.)
bool pairs_agree(LaneMask mask, LaneOffsets offset, unsigned partner)
{
    bool agree = true;
    for_each_lane(mask, [&](unsigned lane) {
        const unsigned other = lane ^ partner;
        agree = agree && lane_active(mask, other) && offset[lane] == offset[other];
    });
    return agree;
}

// The lanes of one 32-lane half (half 0 of a 32-lane warp is all of it).
LaneMask half_lanes(LaneMask mask, unsigned first) { return mask & (first_lanes_mask(kBankLanes) << first); }

// Calls on_phase(ways) for each phase that has an active lane: each 32-lane
// half of the warp on its own (analysis.h), each half in phases of lanes_per_phase.
template <class OnPhase>
void for_each_phase(LaneMask mask, LaneOffsets offset, unsigned size, Kind kind, OnPhase on_phase)
{
    mask = lanes_in(mask, offset);
    for (unsigned half = 0; half < kMaxWarpSize; half += kBankLanes) {
        const LaneMask in_half = half_lanes(mask, half);
        if (!in_half) continue;
        const unsigned lanes = lanes_per_phase(in_half, offset, size, kind);
        for (unsigned first = half; first < half + kBankLanes; first += lanes)
            if (const LaneMask phase = in_half & (first_lanes_mask(lanes) << first)) on_phase(phase_ways(phase, offset, size));
    }
}

std::uint32_t most(const std::array<std::uint32_t, kBanks>& ways) { return *std::max_element(ways.begin(), ways.end()); }

void add_shared(SharedStats& s, const BankCost& c)
{
    s.requests += 1;
    s.wavefronts += c.wavefronts;
    s.ideal += c.ideal;
    s.worst_ways = std::max(s.worst_ways, c.ways());
}

void add_global(GlobalStats& s, const SectorCost& c)
{
    s.requests += 1;
    s.sectors += c.sectors;
    s.ideal += c.ideal;
}

void add_constant(ConstantStats& s, std::uint32_t addresses)
{
    s.requests += 1;
    s.addresses += addresses;
    s.worst = std::max(s.worst, addresses);
}

void merge_constant(ConstantStats& into, const ConstantStats& s)
{
    into.requests += s.requests;
    into.addresses += s.addresses;
    into.worst = std::max(into.worst, s.worst);
}

void add_memory_event(StepMetrics& m, const WarpEvent& e)
{
    if (!is_memory(e.kind)) return;
    if (e.space == Space::Shared) {
        const BankCost c = shared_bank_cost(e.mask, e.offset, e.size, e.kind);
        add_shared(writes_memory(e.kind) ? m.shared_store : m.shared_load, c);
        if (e.kind == Kind::Load) m.shared_load_ways.push_back(c.ways());
    } else if (e.space == Space::Global) {
        add_global(writes_memory(e.kind) ? m.global_store : m.global_load, global_sector_cost(e.mask, e.offset, e.size));
    } else if (e.space == Space::Constant) {
        add_constant(m.constant_load, constant_addresses(e.mask, e.offset));
    }
}

// Thread, warp and line counts over the work events of one step. A thread is
// its warp and lane (thread_of), so each warp's working lanes as one mask
// count its threads.
struct StepCensus {
    std::map<std::uint32_t, LaneMask> lanes_by_warp;
    std::set<std::uint32_t> partial, lines;

    void add(const WarpEvent& e)
    {
        if (!is_work(e.kind)) return;
        lanes_by_warp[e.warp] |= working_lanes(e);
        if (partially_active(e)) partial.insert(e.warp);
        lines.insert(e.site.line);
    }

    void store_into(StepMetrics& m) const
    {
        m.active_threads = 0;
        for (const auto& [warp, lanes] : lanes_by_warp) m.active_threads += static_cast<std::uint32_t>(std::popcount(lanes));
        m.active_warps = static_cast<std::uint32_t>(lanes_by_warp.size());
        m.partial_warps = static_cast<std::uint32_t>(partial.size());
        m.lines.assign(lines.begin(), lines.end());
    }
};

void merge_shared(SharedStats& into, const SharedStats& s)
{
    into.requests += s.requests;
    into.wavefronts += s.wavefronts;
    into.ideal += s.ideal;
    into.worst_ways = std::max(into.worst_ways, s.worst_ways);
}

void merge_global(GlobalStats& into, const GlobalStats& s)
{
    into.requests += s.requests;
    into.sectors += s.sectors;
    into.ideal += s.ideal;
}

// ---- shared contents replay ----

struct ArrayShape {
    std::uint32_t elem_size = 0;
    bool known = false;  // declared: fixed count; otherwise grows with writes
};

std::uint8_t value_byte(const std::array<std::uint64_t, 2>& value, unsigned i)
{
    return static_cast<std::uint8_t>((value[i / 8] >> (8 * (i % 8))) & 0xFFu);
}

// Writes byte `byte` of an element, leaving its other bytes as they were
// (0 for an element never written), so partial writes merge.
void write_byte(std::optional<std::uint64_t>& elem, unsigned pos, std::uint8_t byte)
{
    if (pos >= 8) return;  // elements wider than 8 bytes keep only their first 8
    const std::uint64_t old = elem.value_or(0);
    const std::uint64_t clear = ~(std::uint64_t(0xFF) << (8 * pos));
    elem = (old & clear) | (std::uint64_t(byte) << (8 * pos));
}

// The element at `index`, where it lies in the array (one that grows with its
// writes grows to it); nullptr where it does not.
std::optional<std::uint64_t>* element(std::vector<std::optional<std::uint64_t>>& elems, const ArrayShape& shape, std::uint64_t index)
{
    if (index >= elems.size()) {
        if (shape.known) return nullptr;  // out of bounds: the emulator reports it, we ignore it
        elems.resize(static_cast<std::size_t>(index) + 1);  // within shared memory: it fits
    }
    return &elems[static_cast<std::size_t>(index)];
}

// A write of whole elements of 1, 2, 4 or 8 bytes (most writes), an element at
// a time: what writing its bytes one by one leaves (an element's bytes beyond
// its size are never written, so they stay 0). False for any other write.
bool replay_whole_elements(std::vector<std::optional<std::uint64_t>>& elems, const ArrayShape& shape, std::uint64_t offset,
                           const std::array<std::uint64_t, 2>& value, unsigned size, unsigned elem)
{
    if (elem > 8 || (elem & (elem - 1)) || size > 16 || size % elem || offset % elem) return false;
    const std::uint64_t bits = elem == 8 ? ~std::uint64_t(0) : (std::uint64_t(1) << (8 * elem)) - 1;
    for (unsigned at = 0; at < size; at += elem)
        if (std::optional<std::uint64_t>* e = element(elems, shape, offset / elem + at / elem))
            *e = (value[at / 8] >> (8 * (at % 8))) & bits;  // an element never straddles the two words
    return true;
}

void replay_lane(std::vector<std::optional<std::uint64_t>>& elems, const ArrayShape& shape, std::uint64_t offset,
                 const std::array<std::uint64_t, 2>& value, unsigned size)
{
    const unsigned elem = shape.elem_size ? shape.elem_size : std::max(size, 1u);
    if (replay_whole_elements(elems, shape, offset, value, size, elem)) return;
    for (unsigned b = 0; b < size && b < 16; ++b) {
        const std::uint64_t addr = offset + b;
        if (std::optional<std::uint64_t>* e = element(elems, shape, addr / elem))
            write_byte(*e, static_cast<unsigned>(addr % elem), value_byte(value, b));
    }
}

void replay_event(SharedSnapshot& state, std::map<std::uint8_t, ArrayShape>& shapes, const WarpEvent& e)
{
    if (e.space != Space::Shared || !writes_memory(e.kind)) return;
    ArrayShape& shape = shapes[e.array];
    if (!shape.known && shape.elem_size == 0) shape.elem_size = e.size;
    auto& elems = state[e.array];
    // Ascending lanes: when lanes of one instruction write the same element,
    // the highest lane wins (hardware picks one; we pick deterministically).
    for_each_lane(e.mask, [&](unsigned lane) { replay_lane(elems, shape, e.offset[lane], e.value[lane], e.size); });
}

bool packs_pairs(LaneMask mask, LaneOffsets offset, unsigned size, Kind kind)
{
    return kind == Kind::Load && size >= 8 && (pairs_agree(mask, offset, 1) || pairs_agree(mask, offset, 2));
}

}  // namespace

LaneMask working_lanes(const WarpEvent& e) { return is_work(e.kind) ? e.mask : 0u; }

bool partially_active(const WarpEvent& e) { return is_work(e.kind) && e.mask != e.existing; }

unsigned lanes_per_phase(LaneMask mask, LaneOffsets offset, unsigned size, Kind kind)
{
    if (size <= kBankWidth) return kBankLanes;
    const unsigned lanes = size >= 16 ? kBankLanes / 4 : kBankLanes / 2;  // 128 bytes of registers a wavefront
    return packs_pairs(lanes_in(mask, offset), offset, size, kind) ? 2 * lanes : lanes;
}

BankCost shared_bank_cost(LaneMask mask, LaneOffsets offset, unsigned size, Kind kind)
{
    BankCost cost;
    for_each_phase(mask, offset, size, kind, [&](const std::array<std::uint32_t, kBanks>& ways) {
        cost.ideal += 1;
        cost.wavefronts += most(ways);
    });
    return cost;
}

BankDetail shared_bank_detail(LaneMask mask, LaneOffsets offset, unsigned size, Kind kind)
{
    BankDetail d;
    for_each_phase(mask, offset, size, kind, [&](const std::array<std::uint32_t, kBanks>& ways) {
        d.cost.ideal += 1;
        d.cost.wavefronts += most(ways);
        for (unsigned b = 0; b < kBanks; ++b) d.ways[b] = std::max(d.ways[b], ways[b]);
    });
    for_each_lane(lanes_in(mask, offset), [&](unsigned lane) {
        for (std::uint64_t w = first_word(offset[lane]); w <= last_word(offset[lane], size); ++w) d.lanes_by_word[w].push_back(lane);
    });
    return d;
}

std::uint32_t constant_addresses(LaneMask mask, LaneOffsets offset)
{
    std::set<std::uint64_t> addresses;
    for_each_lane(lanes_in(mask, offset), [&](unsigned lane) { addresses.insert(offset[lane]); });
    return static_cast<std::uint32_t>(addresses.size());
}

SectorCost global_sector_cost(LaneMask mask, LaneOffsets offset, unsigned size)
{
    // The lanes' byte ranges [first, end) in order: their union's bytes and the sectors it reaches.
    std::array<std::pair<std::uint64_t, std::uint64_t>, kMaxWarpSize> ranges;
    std::size_t n = 0;
    for_each_lane(lanes_in(mask, offset), [&](unsigned lane) { ranges[n++] = {offset[lane], offset[lane] + std::max(size, 1u)}; });
    std::sort(ranges.begin(), ranges.begin() + n);
    std::uint64_t bytes = 0, sectors = 0, covered = 0;  // covered: the union's end so far
    for (std::size_t i = 0; i < n; ++i) {
        const auto [first, end] = ranges[i];
        if (end <= covered) continue;
        const std::uint64_t from = std::max(first, covered);
        bytes += end - from;
        // The sectors of [from, end), less the one the union reached already.
        const std::uint64_t first_sector = from / kSectorBytes, last_sector = (end - 1) / kSectorBytes;
        sectors += last_sector - first_sector + 1 - (covered > 0 && (covered - 1) / kSectorBytes == first_sector ? 1 : 0);
        covered = end;
    }
    SectorCost cost;
    cost.sectors = static_cast<std::uint32_t>(sectors);
    cost.ideal = static_cast<std::uint32_t>((bytes + kSectorBytes - 1) / kSectorBytes);
    return cost;
}

std::vector<StepMetrics> analyze_steps(const BlockTrace& block)
{
    std::vector<StepMetrics> metrics(block.steps.size());
    std::vector<StepCensus> census(block.steps.size());
    for (std::uint32_t i = 0; i < metrics.size(); ++i) {
        metrics[i].step = i;
        metrics[i].key = block.steps[i];
    }
    for (const WarpEvent& e : block.events) {
        if (e.step >= metrics.size()) continue;  // not produced by group_block
        StepMetrics& m = metrics[e.step];
        census[e.step].add(e);
        add_memory_event(m, e);
        if (e.kind == Kind::SyncThreads) m.has_barrier_end = true;
        if (is_collective(e.kind)) m.collectives += 1;
    }
    for (std::size_t i = 0; i < metrics.size(); ++i) census[i].store_into(metrics[i]);
    return metrics;
}

Totals totals(const std::vector<StepMetrics>& steps)
{
    Totals t;
    t.steps = static_cast<std::uint32_t>(steps.size());
    for (const StepMetrics& m : steps) {
        merge_shared(t.shared_load, m.shared_load);
        merge_shared(t.shared_store, m.shared_store);
        merge_global(t.global_load, m.global_load);
        merge_global(t.global_store, m.global_store);
        merge_constant(t.constant_load, m.constant_load);
        t.partial_warp_steps += m.partial_warps;
    }
    return t;
}

std::vector<SharedSnapshot> shared_contents(const BlockTrace& block)
{
    SharedSnapshot state;
    std::map<std::uint8_t, ArrayShape> shapes;
    for (const SharedArrayInfo& a : block.shared_arrays) {
        shapes[a.id] = {a.elem_size, true};
        state[a.id].assign(static_cast<std::size_t>(a.count), std::nullopt);  // a shared array: it fits
    }
    std::vector<SharedSnapshot> after(block.steps.size());
    std::size_t next = 0;  // events are sorted by step
    for (std::uint32_t step = 0; step < after.size(); ++step) {
        for (; next < block.events.size() && block.events[next].step <= step; ++next)
            replay_event(state, shapes, block.events[next]);
        after[step] = state;
    }
    return after;
}

}  // namespace wl::trace

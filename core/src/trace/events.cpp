// Grouping of lane records into warp events (events.h). The result depends only
// on the set of records, never on their order: the GPU delivers them in any
// order, the emulator in schedule order, and both must give equal events.
#include "warplab/trace/events.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>

namespace wl::trace {
namespace {

bool is_declare(const LaneRecord& r) { return r.kind == Kind::Declare; }
// Declarations and instruction counts are bookkeeping, not accesses: they open no step and make no event.
bool is_bookkeeping(const LaneRecord& r) { return is_declare(r) || r.kind == Kind::Mix; }

StepKey step_key(const LaneRecord& r) { return {r.epoch, r.sub}; }

Site site_of(const LaneRecord& r) { return {r.file_hash, r.line}; }

// Every field takes part, so that even duplicated seq numbers sort the same way
// whatever the input order.
auto ordering_fields(const LaneRecord& r)
{
    return std::tie(r.thread, r.seq, r.epoch, r.sub, r.file_hash, r.line, r.kind, r.space, r.size,
                    r.array, r.offset, r.value[0], r.value[1]);
}

bool program_order(const LaneRecord& a, const LaneRecord& b)
{
    return ordering_fields(a) < ordering_fields(b);
}

// Lanes [warp*width, threads) exist; the last warp of a block may be partial.
LaneMask existing_lanes(std::uint32_t warp, std::uint32_t threads_in_block, unsigned width)
{
    const std::uint64_t first = std::uint64_t(warp) * width;
    if (threads_in_block <= first) return 0;
    return first_lanes_mask(static_cast<unsigned>(std::min<std::uint64_t>(threads_in_block - first, width)));
}

std::vector<StepKey> collect_steps(const std::vector<LaneRecord>& records)
{
    std::vector<StepKey> steps;
    for (const LaneRecord& r : records)
        if (!is_bookkeeping(r)) steps.push_back(step_key(r));
    std::sort(steps.begin(), steps.end());
    steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
    return steps;
}

SharedArrayInfo declared_array(const LaneRecord& r)
{
    SharedArrayInfo info;
    info.id = r.array;
    info.elem_size = r.size;
    info.count = r.offset;
    info.line = r.line;
    // The name travels as up to 16 little-endian bytes in value[0..1].
    for (unsigned i = 0; i < 16; ++i) {
        const char c = static_cast<char>((r.value[i / 8] >> (8 * (i % 8))) & 0xFFu);
        if (c == '\0') break;
        info.name.push_back(c);
    }
    return info;
}

std::vector<SharedArrayInfo> collect_shared_arrays(const std::vector<LaneRecord>& sorted)
{
    // First declaration (in (thread, seq) order) of each id wins.
    std::map<std::uint8_t, SharedArrayInfo> by_id;
    for (const LaneRecord& r : sorted)
        if (is_declare(r)) by_id.emplace(r.array, declared_array(r));
    std::vector<SharedArrayInfo> arrays;
    for (auto& [id, info] : by_id) arrays.push_back(std::move(info));
    return arrays;
}

// Identifies one event. `occurrence` is k in "the k-th record of a lane at this
// site"; array and size split lanes that disagree on them.
struct GroupKey {
    std::uint32_t warp = 0;
    StepKey key;
    Site site;
    Kind kind = Kind::Load;
    Space space = Space::None;
    std::uint32_t occurrence = 0;
    std::uint8_t array = 0;
    std::uint8_t size = 0;
    auto operator<=>(const GroupKey&) const = default;
};

// The lane-local part of a group key, used to count occurrences.
struct LaneSiteKey {
    std::uint32_t thread = 0;
    StepKey key;
    Site site;
    Kind kind = Kind::Load;
    Space space = Space::None;
    auto operator<=>(const LaneSiteKey&) const = default;
};

struct Group {
    WarpEvent event;
    std::uint32_t min_seq = 0;
};

void add_lane(Group& g, const LaneRecord& r, unsigned width)
{
    const unsigned lane = r.thread % width;
    if (g.event.mask == 0 || r.seq < g.min_seq) g.min_seq = r.seq;
    g.event.mask |= LaneMask(1) << lane;
    g.event.offset[lane] = r.offset;
    g.event.value[lane] = {r.value[0], r.value[1]};
}

// A fresh group's event: its key's fields (the lanes' arrays stay as zeroed,
// filled in place: an event is large).
void start_event(WarpEvent& e, std::uint32_t block, const GroupKey& k, std::uint32_t step, std::uint32_t threads_in_block,
                 unsigned width)
{
    e.block = block;
    e.warp = k.warp;
    e.step = step;
    e.key = k.key;
    e.site = k.site;
    e.kind = k.kind;
    e.space = k.space;
    e.size = k.size;
    e.array = k.array;
    e.existing = existing_lanes(k.warp, threads_in_block, width);
}

std::uint32_t step_index(const std::vector<StepKey>& steps, StepKey key)
{
    return static_cast<std::uint32_t>(std::lower_bound(steps.begin(), steps.end(), key) - steps.begin());
}

std::map<GroupKey, Group> build_groups(std::uint32_t block, std::uint32_t threads_in_block, unsigned width,
                                       const std::vector<LaneRecord>& sorted, const std::vector<StepKey>& steps)
{
    std::map<LaneSiteKey, std::uint32_t> seen;  // records so far of a lane at a site
    std::map<GroupKey, Group> groups;
    for (const LaneRecord& r : sorted) {
        if (is_bookkeeping(r)) continue;
        const std::uint32_t k = seen[{r.thread, step_key(r), site_of(r), r.kind, r.space}]++;
        const GroupKey key{r.thread / width, step_key(r), site_of(r), r.kind, r.space, k, r.array, r.size};
        auto [it, fresh] = groups.try_emplace(key);
        if (fresh) start_event(it->second.event, block, key, step_index(steps, key.key), threads_in_block, width);
        add_lane(it->second, r, width);
    }
    return groups;
}

// The Mix records as counts by step and warp: a record's step is the last
// step at or before its key (a step is opened by accesses, which a stretch of
// arithmetic after the last barrier may lack), the first where none is.
std::vector<MixCount> collect_mix(const std::vector<LaneRecord>& sorted, const std::vector<StepKey>& steps, unsigned width)
{
    std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint8_t>, std::uint64_t> counts;
    for (const LaneRecord& r : sorted) {
        if (r.kind != Kind::Mix || r.array >= kInstructionClasses) continue;
        const auto after = std::upper_bound(steps.begin(), steps.end(), step_key(r));
        const auto step = static_cast<std::uint32_t>(after == steps.begin() ? 0 : after - steps.begin() - 1);
        counts[{step, r.thread / width, r.array}] += r.offset;
    }
    std::vector<MixCount> mix;
    mix.reserve(counts.size());
    for (const auto& [key, count] : counts)
        mix.push_back({std::get<0>(key), std::get<1>(key), static_cast<InstructionClass>(std::get<2>(key)), count});
    return mix;
}

std::vector<WarpEvent> order_events(std::map<GroupKey, Group>&& groups)
{
    // The map already gives a total order on keys; the stable sort puts events
    // in the order a student reads them: by step, warp, then program order.
    // It sorts pointers: an event holds every lane's offset and value (1.6 KB
    // for 64 lanes), so each is copied once, into its place.
    std::vector<Group*> list;
    list.reserve(groups.size());
    for (auto& [key, g] : groups) list.push_back(&g);
    std::stable_sort(list.begin(), list.end(), [](const Group* a, const Group* b) {
        return std::tie(a->event.step, a->event.warp, a->min_seq, a->event.site) <
               std::tie(b->event.step, b->event.warp, b->min_seq, b->event.site);
    });
    std::vector<WarpEvent> events;
    events.reserve(list.size());
    for (Group* g : list) {
        g->event.existing |= g->event.mask;  // a thread beyond threads_in_block still exists
        events.push_back(std::move(g->event));
    }
    return events;
}

}  // namespace

BlockTrace group_block(std::uint32_t block, std::uint32_t threads_in_block, std::vector<LaneRecord> records,
                       unsigned warp_size)
{
    if (!valid_warp_size(warp_size))
        throw std::invalid_argument("warp size " + std::to_string(warp_size) + ": a warp is 32 or 64 lanes");
    std::sort(records.begin(), records.end(), program_order);
    BlockTrace trace;
    trace.block = block;
    trace.threads = threads_in_block;
    trace.warp_size = warp_size;
    trace.steps = collect_steps(records);
    trace.shared_arrays = collect_shared_arrays(records);
    trace.events = order_events(build_groups(block, threads_in_block, warp_size, records, trace.steps));
    trace.mix = collect_mix(records, trace.steps, warp_size);
    return trace;
}

std::vector<BlockTrace> group_records(const std::vector<LaneRecord>& records, std::uint32_t threads_in_block,
                                      unsigned warp_size)
{
    std::map<std::uint32_t, std::vector<LaneRecord>> by_block;
    for (const LaneRecord& r : records) by_block[r.block].push_back(r);
    std::vector<BlockTrace> blocks;
    blocks.reserve(by_block.size());
    for (auto& [block, list] : by_block) blocks.push_back(group_block(block, threads_in_block, std::move(list), warp_size));
    return blocks;
}

}  // namespace wl::trace

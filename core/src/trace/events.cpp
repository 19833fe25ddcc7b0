// Grouping of lane records into warp events (events.h). The result depends only
// on the set of records, never on their order: the GPU delivers them in any
// order, the emulator in schedule order, and both must give equal events.
#include "warplab/trace/events.h"

#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>

#include "warplab/parts.h"

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

std::vector<SharedArrayInfo> collect_shared_arrays(const std::vector<LaneRecord>& records)
{
    // The first declaration of each id, in (thread, seq) order, wins.
    std::map<std::uint8_t, const LaneRecord*> first;
    for (const LaneRecord& r : records) {
        if (!is_declare(r)) continue;
        const LaneRecord*& f = first[r.array];
        if (!f || ordering_fields(r) < ordering_fields(*f)) f = &r;
    }
    std::vector<SharedArrayInfo> arrays;
    for (const auto& [id, r] : first) arrays.push_back(declared_array(*r));
    return arrays;
}

// Elements of shared memory that a copy of its contents holds (analysis.h's
// shared_contents): the declared arrays', and for an array declared nowhere
// (extern __shared__) as far as its writes reach, in elements of its
// narrowest write.
std::uint64_t shared_elements(const std::vector<LaneRecord>& records, const std::vector<SharedArrayInfo>& declared)
{
    std::uint64_t elements = 0;
    std::map<std::uint8_t, std::pair<std::uint64_t, unsigned>> undeclared;  // id -> (bytes reached, narrowest write)
    for (const SharedArrayInfo& a : declared) elements += a.count;
    for (const LaneRecord& r : records) {
        const bool declared_here =
            std::any_of(declared.begin(), declared.end(), [&](const SharedArrayInfo& a) { return a.id == r.array; });
        if (r.space != Space::Shared || !writes_memory(r.kind) || declared_here) continue;
        auto [it, fresh] = undeclared.try_emplace(r.array, 0, std::max<unsigned>(r.size, 1));
        it->second.first = std::max<std::uint64_t>(it->second.first, r.offset + std::max<unsigned>(r.size, 1));
        it->second.second = std::min<unsigned>(it->second.second, std::max<unsigned>(r.size, 1));
    }
    for (const auto& [id, reach] : undeclared) elements += (reach.first + reach.second - 1) / reach.second;
    return elements;
}

// While grouping, each record's block field (the same in every record of one
// block) holds its occurrence: k in "the k-th record of a lane at this site"
// (events.h).
std::uint32_t& occurrence(LaneRecord& r) { return r.block; }
std::uint32_t occurrence(const LaneRecord& r) { return r.block; }

// Each lane's records of one step together, in program order.
bool lane_step_order(const LaneRecord& a, const LaneRecord& b)
{
    return std::tie(a.thread, a.epoch, a.sub) < std::tie(b.thread, b.epoch, b.sub) ||
           (std::tie(a.thread, a.epoch, a.sub) == std::tie(b.thread, b.epoch, b.sub) && program_order(a, b));
}

// Each lane's records in lane-step order, wherever they are: true for the
// emulator's, which each lane appends as it runs (bookkeeping aside, which
// has no occurrence). Threads beyond kMaxThreads are not looked for.
constexpr std::uint32_t kMaxThreads = 1u << 16;
bool lanes_arrive_in_step_order(const std::vector<LaneRecord>& records)
{
    std::vector<const LaneRecord*> last;  // by thread
    for (const LaneRecord& r : records) {
        if (is_bookkeeping(r)) continue;
        if (r.thread >= kMaxThreads) return false;
        if (r.thread >= last.size()) last.resize(r.thread + 1, nullptr);
        const LaneRecord*& previous = last[r.thread];
        if (previous && lane_step_order(r, *previous)) return false;
        previous = &r;
    }
    return true;
}

// One lane's records at one site, kind and space so far: those of its latest step.
struct SiteCount {
    StepKey step;
    std::uint32_t count = 0;
};
struct LaneSite {
    std::uint32_t thread, file_hash, line;
    Kind kind;
    Space space;
    bool operator==(const LaneSite&) const = default;
};
struct LaneSiteHash {
    std::size_t operator()(const LaneSite& s) const
    {
        std::uint64_t h = (std::uint64_t(s.thread) << 32 | s.file_hash) * 0x9E3779B97F4A7C15ull;
        h ^= (std::uint64_t(s.line) << 16 | std::uint64_t(s.kind) << 8 | std::uint64_t(s.space)) * 0xBF58476D1CE4E5B9ull;
        return static_cast<std::size_t>(h ^ (h >> 29));
    }
};

// In one pass over records whose lanes arrive in lane-step order: a lane's
// count at a site starts again where its step changes.
void number_in_arrival_order(std::vector<LaneRecord>& records)
{
    std::unordered_map<LaneSite, SiteCount, LaneSiteHash> seen;
    for (LaneRecord& r : records) {
        if (is_bookkeeping(r)) {
            occurrence(r) = 0;
            continue;
        }
        SiteCount& c = seen[{r.thread, r.file_hash, r.line, r.kind, r.space}];
        if (c.step != step_key(r)) c = {step_key(r), 0};
        occurrence(r) = c.count++;
    }
}

void number_occurrences(std::vector<LaneRecord>& records)
{
    if (lanes_arrive_in_step_order(records)) {
        number_in_arrival_order(records);
        return;
    }
    std::sort(records.begin(), records.end(), lane_step_order);
    std::map<std::tuple<Site, Kind, Space>, std::uint32_t> seen;  // one lane's records so far at each site of this step
    for (std::size_t i = 0; i < records.size(); ++i) {
        LaneRecord& r = records[i];
        if (i == 0 || r.thread != records[i - 1].thread || step_key(r) != step_key(records[i - 1])) seen.clear();
        occurrence(r) = is_bookkeeping(r) ? 0 : seen[{site_of(r), r.kind, r.space}]++;
    }
}

// What makes records one event: one warp, step and site, kind and space, the
// same occurrence; array and size split lanes that disagree on them.
auto event_fields(const LaneRecord& r, unsigned width)
{
    return std::make_tuple(r.epoch, r.sub, r.thread / width, r.file_hash, r.line, r.kind, r.space, occurrence(r), r.array,
                           r.size);
}

bool event_order(const LaneRecord& a, const LaneRecord& b, unsigned width)
{
    const auto ka = event_fields(a, width), kb = event_fields(b, width);
    return ka < kb || (ka == kb && program_order(a, b));
}

// The first fields of event_order: a step's warps in turn, steps in order.
bool step_warp_order(const LaneRecord& a, const LaneRecord& b, unsigned width)
{
    return std::make_tuple(a.epoch, a.sub, a.thread / width) < std::make_tuple(b.epoch, b.sub, b.thread / width);
}

// At most this fraction (1/16) of the records out of step and warp order, and
// sorting by warp is worth it.
constexpr std::size_t kMostlyOrdered = 16;
// The most records of one warp and step that sort_warp_step copies aside (14 MiB).
constexpr std::size_t kMostRecordsCopied = std::size_t(1) << 18;
// Records enough to sort on a core of their own (at 2^16, a thread costs a fraction of sorting them).
constexpr std::size_t kRecordsAPart = std::size_t(1) << 16;

// A record's place among one warp's records of one step, and where it is: the
// fields of event order up to the lane and its seq number. No two records of
// a step share them (a lane's records at one site, of one kind and space,
// differ in occurrence), so the key alone orders them.
struct KeyedRecord {
    std::uint64_t site, what, lane;  // (file, line), (kind, space, occurrence, array, size), (thread, seq)
    std::uint32_t index;
    bool operator<(const KeyedRecord& o) const { return std::tie(site, what, lane) < std::tie(o.site, o.what, o.lane); }
};
KeyedRecord keyed(const LaneRecord& r, std::uint32_t index)
{
    return {std::uint64_t(r.file_hash) << 32 | r.line,
            std::uint64_t(r.kind) << 56 | std::uint64_t(r.space) << 48 | std::uint64_t(occurrence(r)) << 16 |
                std::uint64_t(r.array) << 8 | r.size,
            std::uint64_t(r.thread) << 32 | r.seq, index};
}

// Sorts one warp's records of one step, [first, end), by event order: their
// keys sorted, then the records copied in that order.
using RecordIt = std::vector<LaneRecord>::iterator;
void sort_warp_step(RecordIt first, RecordIt end, unsigned width, std::vector<KeyedRecord>& keys, std::vector<LaneRecord>& copy)
{
    const std::size_t n = static_cast<std::size_t>(end - first);
    if (n > kMostRecordsCopied) {
        std::sort(first, end, [width](const LaneRecord& a, const LaneRecord& b) { return event_order(a, b, width); });
        return;
    }
    keys.clear();
    for (std::size_t i = 0; i < n; ++i) keys.push_back(keyed(first[i], static_cast<std::uint32_t>(i)));
    std::sort(keys.begin(), keys.end());
    copy.clear();
    for (const KeyedRecord& k : keys) copy.push_back(first[k.index]);
    std::copy(copy.begin(), copy.end(), first);
}

// Sorts each warp's records of a step in [first, end), a range sorted by step and warp.
void sort_warp_steps(RecordIt first, RecordIt end, unsigned width)
{
    std::vector<KeyedRecord> keys;
    std::vector<LaneRecord> copy;
    while (first != end) {
        const RecordIt group_end = std::upper_bound(first, end, *first, [width](const LaneRecord& a, const LaneRecord& b) {
            return step_warp_order(a, b, width);
        });
        sort_warp_step(first, group_end, width, keys, copy);
        first = group_end;
    }
}

// One event's records lie together, a step's events together, steps in order.
// Where the records come mostly in step and warp order already (the
// emulator's: each warp runs to its barrier in turn, and the instruction
// counts come last), the few that do not are merged in, and each warp's
// records of a step sorted on their own: a fraction of sorting them all.
void sort_by_event(std::vector<LaneRecord>& records, unsigned width)
{
    const auto by_event = [width](const LaneRecord& a, const LaneRecord& b) { return event_order(a, b, width); };
    const auto by_step_warp = [width](const LaneRecord& a, const LaneRecord& b) { return step_warp_order(a, b, width); };
    const auto tail = std::is_sorted_until(records.begin(), records.end(), by_step_warp);
    if (std::size_t(records.end() - tail) > records.size() / kMostlyOrdered) {
        std::sort(records.begin(), records.end(), by_event);
        return;
    }
    std::sort(tail, records.end(), by_event);
    std::inplace_merge(records.begin(), tail, records.end(), by_step_warp);
    // The warps' steps in parts of about equal size, a part a core.
    const std::size_t parts = wl::parts_for(records.size(), kRecordsAPart);
    std::vector<RecordIt> bounds{records.begin()};
    for (std::size_t p = 1; p < parts; ++p) {
        const RecordIt at = records.begin() + static_cast<std::ptrdiff_t>(records.size() * p / parts);
        bounds.push_back(std::max(bounds.back(), std::upper_bound(at, records.end(), *at, by_step_warp)));
    }
    bounds.push_back(records.end());
    wl::run_parts(parts, [&](std::size_t p) { sort_warp_steps(bounds[p], bounds[p + 1], width); });
}

// An event's records: [first, first + lanes) of the records in event order.
struct EventSpan {
    std::uint32_t first = 0;
    std::uint32_t lanes = 0;
    std::uint32_t step = 0;
    std::uint32_t warp = 0;
    std::uint32_t min_seq = 0;
    Site site;
};

// The order a student reads a step's events in: by warp, then program order;
// ties keep event-field order (where spans are found), so `first` breaks them.
bool reading_order(const EventSpan& a, const EventSpan& b)
{
    return std::tie(a.warp, a.min_seq, a.site, a.first) < std::tie(b.warp, b.min_seq, b.site, b.first);
}

// A step's events, and how many it has.
struct StepEvents {
    std::vector<EventSpan> first;  // its first events in reading order, at most the limit asked for
    std::size_t count = 0;
};

// The events of the step whose records are [first, end), the first `limit`
// of them in reading order: a heap holds the least `limit` found so far, so
// that a step larger than the budget costs no more than the budget.
StepEvents step_events(const std::vector<LaneRecord>& records, std::size_t first, std::size_t end, std::uint32_t step,
                       unsigned width, std::size_t limit)
{
    StepEvents out;
    for (std::size_t i = first; i < end;) {
        const LaneRecord& r = records[i];
        std::size_t j = i + 1;
        while (j < end && event_fields(records[j], width) == event_fields(r, width)) ++j;
        if (!is_bookkeeping(r)) {
            EventSpan s{static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j - i), step, r.thread / width, r.seq, site_of(r)};
            for (std::size_t k = i; k < j; ++k) s.min_seq = std::min(s.min_seq, records[k].seq);
            ++out.count;
            if (out.first.size() < limit) {
                out.first.push_back(s);
                std::push_heap(out.first.begin(), out.first.end(), reading_order);
            } else if (limit > 0 && reading_order(s, out.first.front())) {
                std::pop_heap(out.first.begin(), out.first.end(), reading_order);
                out.first.back() = s;
                std::push_heap(out.first.begin(), out.first.end(), reading_order);
            }
        }
        i = j;
    }
    std::sort_heap(out.first.begin(), out.first.end(), reading_order);
    return out;
}

// Fills in the event the span's records make: `e` as a WarpEvent starts,
// where it lies in the block's list (an event is 1.6 KB: copied no further).
void fill_event(WarpEvent& e, const std::vector<LaneRecord>& records, const EventSpan& s, std::uint32_t block, const StepKey& key,
                std::uint32_t threads_in_block, unsigned width)
{
    const LaneRecord& r = records[s.first];
    e.block = block;
    e.warp = s.warp;
    e.step = s.step;
    e.key = key;
    e.site = s.site;
    e.kind = r.kind;
    e.space = r.space;
    e.size = r.size;
    e.array = r.array;
    for (std::uint32_t k = s.first; k < s.first + s.lanes; ++k) {
        const unsigned lane = records[k].thread % width;
        e.mask |= LaneMask(1) << lane;
        e.offset[lane] = records[k].offset;
        e.value[lane] = {records[k].value[0], records[k].value[1]};
    }
    // A thread beyond threads_in_block still exists.
    e.existing = existing_lanes(s.warp, threads_in_block, width) | e.mask;
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

}  // namespace

BlockTrace group_block(std::uint32_t block, std::uint32_t threads_in_block, std::vector<LaneRecord> records,
                       unsigned warp_size, const TraceBudget& budget)
{
    if (!valid_warp_size(warp_size))
        throw std::invalid_argument("warp size " + std::to_string(warp_size) + ": a warp is 32 or 64 lanes");
    BlockTrace trace;
    trace.block = block;
    trace.threads = threads_in_block;
    trace.warp_size = warp_size;
    trace.shared_arrays = collect_shared_arrays(records);
    const std::uint64_t per_step = shared_elements(records, trace.shared_arrays) * budget.per_shared_element;
    number_occurrences(records);
    sort_by_event(records, warp_size);
    // Steps in order, each whole while the budget lasts; the events are made
    // once their number is known, so that their vector is allocated once.
    std::vector<EventSpan> kept;
    std::uint64_t spent = 0;
    std::optional<StepKey> left_out;  // the first step not shown, where one is not
    for (std::size_t first = 0; first < records.size();) {
        const StepKey key = step_key(records[first]);
        std::size_t end = first;
        while (end < records.size() && step_key(records[end]) == key) ++end;
        // Events beyond the budget are only counted: one more than fits says the step does not.
        const std::uint64_t room = budget.bytes - spent > per_step ? (budget.bytes - spent - per_step) / sizeof(WarpEvent) : 0;
        StepEvents events =
            step_events(records, first, end, static_cast<std::uint32_t>(trace.steps.size()), warp_size, static_cast<std::size_t>(room));
        first = end;
        if (events.count == 0) continue;  // bookkeeping alone opens no step
        if (trace.end != TraceEnd::Whole) {
            left_out = key;
            break;
        }
        if (events.count > events.first.size() || per_step > budget.bytes - spent) {
            if (!trace.steps.empty()) {
                trace.end = TraceEnd::AfterLastStep;
                left_out = key;
                break;
            }
            trace.end = TraceEnd::InLastStep;  // the first step, in part
        }
        spent += std::min(per_step, budget.bytes - spent) + events.first.size() * sizeof(WarpEvent);
        trace.steps.push_back(key);
        kept.insert(kept.end(), events.first.begin(), events.first.end());
    }
    trace.events.reserve(kept.size());
    for (const EventSpan& s : kept)
        fill_event(trace.events.emplace_back(), records, s, block, trace.steps[s.step], threads_in_block, warp_size);
    if (left_out)  // the instructions of the steps not shown are not counted in the last one shown
        std::erase_if(records, [&](const LaneRecord& r) { return r.kind == Kind::Mix && !(step_key(r) < *left_out); });
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

std::string array_text(const SharedArrayInfo& a)
{
    return (a.type.empty() ? "" : a.type + " ") + a.name + "[" + std::to_string(a.count) + "]";
}

}  // namespace wl::trace

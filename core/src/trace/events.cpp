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
#include <utility>

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

// The block's shared arrays and the elements of shared memory that a copy of
// its contents holds (analysis.h's shared_contents), from one pass over the
// records.
struct SharedMemory {
    std::vector<SharedArrayInfo> arrays;  // the first declaration of each id, in (thread, seq) order, wins
    // The declared arrays' elements, and for an array declared nowhere
    // (extern __shared__) as far as its writes reach, in elements of its narrowest write.
    std::uint64_t elements = 0;
};
SharedMemory shared_memory(const std::vector<LaneRecord>& records)
{
    std::map<std::uint8_t, const LaneRecord*> first;                  // id -> its first declaration
    std::map<std::uint8_t, std::pair<std::uint64_t, unsigned>> reach;  // id -> (bytes its writes reach, narrowest write)
    for (const LaneRecord& r : records) {
        if (is_declare(r)) {
            const LaneRecord*& f = first[r.array];
            if (!f || ordering_fields(r) < ordering_fields(*f)) f = &r;
        } else if (r.space == Space::Shared && writes_memory(r.kind)) {
            const unsigned size = std::max<unsigned>(r.size, 1);
            auto [it, fresh] = reach.try_emplace(r.array, 0, size);
            it->second.first = std::max<std::uint64_t>(it->second.first, r.offset + size);
            it->second.second = std::min(it->second.second, size);
        }
    }
    SharedMemory out;
    for (const auto& [id, r] : first) {
        out.arrays.push_back(declared_array(*r));
        out.elements += out.arrays.back().count;
    }
    for (const auto& [id, bytes] : reach)
        if (!first.count(id)) out.elements += (bytes.first + bytes.second - 1) / bytes.second;
    return out;
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

// lane_step_order(r, previous) for two records of one lane, its common answers
// found first: a later step, or in one step a higher seq number, comes after.
bool comes_before(const LaneRecord& r, const LaneRecord& previous)
{
    if (step_key(r) != step_key(previous)) return step_key(r) < step_key(previous);
    if (r.seq != previous.seq) return r.seq < previous.seq;
    return lane_step_order(r, previous);
}

// Records of threads beyond kMaxThreads are not numbered as they came.
constexpr std::uint32_t kMaxThreads = 1u << 16;

// One lane's records at one site, kind and space so far: those of its latest step.
struct SiteCount {
    StepKey step;
    std::uint32_t count = 0;
};
struct AccessSite {
    std::uint32_t file_hash, line;
    Kind kind;
    Space space;
    bool operator==(const AccessSite&) const = default;
};
struct AccessSiteHash {
    std::size_t operator()(const AccessSite& s) const
    {
        const std::uint64_t h = (std::uint64_t(s.file_hash) << 32 | s.line) * 0x9E3779B97F4A7C15ull ^
                                (std::uint64_t(s.kind) << 8 | std::uint64_t(s.space)) * 0xBF58476D1CE4E5B9ull;
        return static_cast<std::size_t>(h ^ (h >> 29));
    }
};

// Each lane's count at each site, kind and space: a site's counts by thread,
// the record before's site tried first (a warp instruction's lanes come
// together). Threads are below kMaxThreads.
class SiteCounts {
public:
    // The record's occurrence: its lane's records before it at its site in its step.
    std::uint32_t next(const LaneRecord& r)
    {
        const AccessSite site{r.file_hash, r.line, r.kind, r.space};
        if (!lanes_ || !(site == site_)) site_ = site, lanes_ = &by_site_[site];
        if (r.thread >= lanes_->size()) lanes_->resize(r.thread + 1);
        SiteCount& c = (*lanes_)[r.thread];
        if (c.step != step_key(r)) c = {step_key(r), 0};
        return c.count++;
    }

private:
    std::unordered_map<AccessSite, std::vector<SiteCount>, AccessSiteHash> by_site_;  // its nodes stay where they are
    AccessSite site_{};
    std::vector<SiteCount>* lanes_ = nullptr;  // site_'s
};

// Occurrences for records in any order: sorted so that each lane's records
// of one step lie together, in program order.
void number_in_lane_order(std::vector<LaneRecord>& records)
{
    std::sort(records.begin(), records.end(), lane_step_order);
    std::map<std::tuple<Site, Kind, Space>, std::uint32_t> seen;  // one lane's records so far at each site of this step
    for (std::size_t i = 0; i < records.size(); ++i) {
        LaneRecord& r = records[i];
        if (i == 0 || r.thread != records[i - 1].thread || step_key(r) != step_key(records[i - 1])) seen.clear();
        occurrence(r) = is_bookkeeping(r) ? 0 : seen[{site_of(r), r.kind, r.space}]++;
    }
}

// What makes records one event: one warp, step and site, kind and space, the
// same occurrence; array and size split lanes that disagree on them. Packed in
// that order into four words, so that comparing the words compares the fields.
using EventKey = std::array<std::uint64_t, 4>;
EventKey event_key(const LaneRecord& r, unsigned width)
{
    return {std::uint64_t(r.epoch) << 32 | r.sub, std::uint64_t(r.thread / width) << 32 | r.file_hash,
            std::uint64_t(r.line) << 32 | std::uint64_t(r.kind) << 8 | std::uint64_t(r.space),
            std::uint64_t(occurrence(r)) << 16 | std::uint64_t(r.array) << 8 | r.size};
}
std::uint64_t step_word(const EventKey& k) { return k[0]; }
// Word by word: std::array's == calls memcmp.
bool same(const EventKey& a, const EventKey& b) { return ((a[0] ^ b[0]) | (a[1] ^ b[1]) | (a[2] ^ b[2]) | (a[3] ^ b[3])) == 0; }

// Once occurrences are counted, each record's block field holds its event's
// number instead (events are numbered as they are first met).
std::uint32_t& event_of(LaneRecord& r) { return r.block; }
std::uint32_t event_of(const LaneRecord& r) { return r.block; }

// What the records of one event share, and the least seq number among them.
struct EventFacts {
    EventKey key;
    std::uint32_t first_record = 0;  // one of its records
    std::uint32_t warp = 0;
    std::uint32_t min_seq = 0;
    Site site;
    std::uint64_t instructions = 0;  // Mix records: their counts added
};

// The events' numbers by key: open addressing over a power of two of slots,
// at most half of them used.
class EventNumbers {
public:
    // The number of the event with `key`, `fresh` (its number) where it has none yet.
    std::uint32_t number(const EventKey& key, std::uint32_t fresh)
    {
        if (2 * (used_ + 1) > slots_.size()) grow();
        Slot& s = slot(key);
        if (s.number == kNone) {
            s = {key, fresh};
            ++used_;
        }
        return s.number;
    }

private:
    static constexpr std::uint32_t kNone = UINT32_MAX;
    struct Slot {
        EventKey key{};
        std::uint32_t number = kNone;
    };
    static std::uint64_t mixed(std::uint64_t h)  // SplitMix64's finaliser
    {
        h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
        h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
        return h ^ (h >> 31);
    }
    // The words multiplied by odd constants, then mixed once: a number is given
    // by first meeting, so the hash decides only where a key's slot is.
    static std::size_t hash_of(const EventKey& k)
    {
        return static_cast<std::size_t>(mixed(k[0] * 0x9E3779B97F4A7C15ull ^ k[1] * 0xC2B2AE3D27D4EB4Full ^
                                              k[2] * 0x165667B19E3779F9ull ^ k[3] * 0xD6E8FEB86659FD93ull));
    }
    Slot& slot(const EventKey& key)
    {
        const std::size_t mask = slots_.size() - 1;
        for (std::size_t i = hash_of(key) & mask;; i = (i + 1) & mask)
            if (slots_[i].number == kNone || same(slots_[i].key, key)) return slots_[i];
    }
    void grow()
    {
        const std::vector<Slot> old = std::exchange(slots_, std::vector<Slot>(slots_.size() * 2));
        for (const Slot& s : old)
            if (s.number != kNone) slot(s.key) = s;
    }
    std::vector<Slot> slots_ = std::vector<Slot>(1024);
    std::size_t used_ = 0;
};

// Gives records their event's number (event_of), their occurrences counted,
// in any order: the events' facts, by number.
class EventNumbering {
public:
    explicit EventNumbering(unsigned width) : width_(width) {}

    void add(LaneRecord& r, std::size_t index)
    {
        const EventKey key = event_key(r, width_);
        const bool as_before = last_ != UINT32_MAX && same(key, last_key_);  // a warp instruction's lanes come together
        const std::uint32_t n = as_before ? last_ : numbers_.number(key, static_cast<std::uint32_t>(events_.size()));
        last_key_ = key;
        last_ = n;
        if (n == events_.size())
            events_.push_back({key, static_cast<std::uint32_t>(index), r.thread / width_, r.seq, site_of(r)});
        else
            events_[n].min_seq = std::min(events_[n].min_seq, r.seq);
        if (r.kind == Kind::Mix) events_[n].instructions += r.offset;
        event_of(r) = n;
    }
    std::vector<EventFacts> take() { return std::move(events_); }

private:
    unsigned width_;
    std::vector<EventFacts> events_;
    EventNumbers numbers_;
    EventKey last_key_{};
    std::uint32_t last_ = UINT32_MAX;
};

// Each record's occurrence and event in one pass, where each lane's records
// arrive in lane-step order (the emulator's: each lane appends its own as it
// runs; bookkeeping, which has no occurrence, aside); nothing where some
// lane's do not.
std::optional<std::vector<EventFacts>> numbered_as_they_came(std::vector<LaneRecord>& records, unsigned width)
{
    std::vector<const LaneRecord*> previous;  // each thread's record before
    SiteCounts counts;
    EventNumbering numbering(width);
    for (std::size_t i = 0; i < records.size(); ++i) {
        LaneRecord& r = records[i];
        if (!is_bookkeeping(r)) {
            if (r.thread >= kMaxThreads) return std::nullopt;
            if (r.thread >= previous.size()) previous.resize(r.thread + 1, nullptr);
            if (previous[r.thread] && comes_before(r, *previous[r.thread])) return std::nullopt;
            previous[r.thread] = &r;
        }
        occurrence(r) = is_bookkeeping(r) ? 0 : counts.next(r);
        numbering.add(r, i);
    }
    return numbering.take();
}

// Gives each record its occurrence (the k-th record of its lane at its site
// in its step), then its event's number: the events' facts, by number.
std::vector<EventFacts> numbered_events(std::vector<LaneRecord>& records, unsigned width)
{
    if (std::optional<std::vector<EventFacts>> events = numbered_as_they_came(records, width)) return std::move(*events);
    number_in_lane_order(records);
    EventNumbering numbering(width);
    for (std::size_t i = 0; i < records.size(); ++i) numbering.add(records[i], i);
    return numbering.take();
}

// The events' numbers in key order: steps in order, each step's events together.
std::vector<std::uint32_t> in_key_order(const std::vector<EventFacts>& events)
{
    std::vector<std::pair<EventKey, std::uint32_t>> keyed;  // keys side by side: sorting reads no event
    keyed.reserve(events.size());
    for (std::uint32_t n = 0; n < events.size(); ++n) keyed.emplace_back(events[n].key, n);
    std::sort(keyed.begin(), keyed.end());  // no two events share a key
    std::vector<std::uint32_t> order;
    order.reserve(keyed.size());
    for (const auto& [key, n] : keyed) order.push_back(n);
    return order;
}

// One event in a step: `rank` its place in key order, `number` its number.
struct EventSpan {
    std::uint32_t rank = 0;
    std::uint32_t number = 0;
    std::uint32_t step = 0;
    std::uint32_t warp = 0;
    std::uint32_t min_seq = 0;
    Site site;
};

// The order a student reads a step's events in: by warp, then program order;
// ties keep key order, so `rank` breaks them.
bool reading_order(const EventSpan& a, const EventSpan& b)
{
    return std::tie(a.warp, a.min_seq, a.site, a.rank) < std::tie(b.warp, b.min_seq, b.site, b.rank);
}

// A step's events, and how many it has.
struct StepEvents {
    std::vector<EventSpan> first;  // its first events in reading order, at most the limit asked for
    std::size_t count = 0;
};

// The events of the step whose ranks are [first, end), the first `limit` of
// them in reading order: a heap holds the least `limit` found so far, so
// that a step larger than the budget costs no more than the budget.
StepEvents step_events(const std::vector<LaneRecord>& records, const std::vector<EventFacts>& events,
                       const std::vector<std::uint32_t>& order, std::size_t first, std::size_t end, std::uint32_t step,
                       std::size_t limit)
{
    StepEvents out;
    for (std::size_t i = first; i < end; ++i) {
        const EventFacts& e = events[order[i]];
        if (is_bookkeeping(records[e.first_record])) continue;
        const EventSpan s{static_cast<std::uint32_t>(i), order[i], step, e.warp, e.min_seq, e.site};
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
    std::sort_heap(out.first.begin(), out.first.end(), reading_order);
    return out;
}

// The end of the ranks from `first` that share its step.
std::size_t step_end(const std::vector<EventFacts>& events, const std::vector<std::uint32_t>& order, std::size_t first)
{
    std::size_t end = first + 1;
    while (end < order.size() && step_word(events[order[end]].key) == step_word(events[order[first]].key)) ++end;
    return end;
}

// The kept events filled in where they lie in the block's list (an event is
// 1.6 KB: copied no further): their fields from one record each, then each
// record's lane from one pass over the records.
void fill_events(std::vector<WarpEvent>& out, const std::vector<LaneRecord>& records, const std::vector<EventFacts>& events,
                 const std::vector<EventSpan>& kept, const std::vector<StepKey>& steps, std::uint32_t block,
                 std::uint32_t threads_in_block, unsigned width)
{
    constexpr std::uint32_t kNotKept = UINT32_MAX;
    std::vector<std::uint32_t> place(events.size(), kNotKept);  // by event number
    out.reserve(kept.size());
    for (const EventSpan& s : kept) {
        place[s.number] = static_cast<std::uint32_t>(out.size());
        const LaneRecord& r = records[events[s.number].first_record];
        WarpEvent& e = out.emplace_back();
        e.block = block;
        e.warp = s.warp;
        e.step = s.step;
        e.key = steps[s.step];
        e.site = s.site;
        e.kind = r.kind;
        e.space = r.space;
        e.size = r.size;
        e.array = r.array;
    }
    for (const LaneRecord& r : records) {
        if (place[event_of(r)] == kNotKept) continue;
        WarpEvent& e = out[place[event_of(r)]];
        const unsigned lane = r.thread % width;
        e.mask |= LaneMask(1) << lane;
        e.offset[lane] = r.offset;
        e.value[lane] = {r.value[0], r.value[1]};
    }
    // A thread beyond threads_in_block still exists.
    for (WarpEvent& e : out) e.existing = existing_lanes(e.warp, threads_in_block, width) | e.mask;
}

// The Mix records as counts by step and warp, from their events (each the
// records of one warp, step and class, their counts added): a record's step is
// the last step at or before its key (a step is opened by accesses, which a
// stretch of arithmetic after the last barrier may lack), the first where none
// is. Those of `left_out` and after are not counted in the last step shown.
std::vector<MixCount> collect_mix(const std::vector<LaneRecord>& records, const std::vector<EventFacts>& events,
                                  const std::vector<StepKey>& steps, std::optional<StepKey> left_out)
{
    std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint8_t>, std::uint64_t> counts;
    for (const EventFacts& e : events) {
        const LaneRecord& r = records[e.first_record];
        if (r.kind != Kind::Mix || r.array >= kInstructionClasses || (left_out && !(step_key(r) < *left_out))) continue;
        const auto after = std::upper_bound(steps.begin(), steps.end(), step_key(r));
        const auto step = static_cast<std::uint32_t>(after == steps.begin() ? 0 : after - steps.begin() - 1);
        counts[{step, e.warp, r.array}] += e.instructions;
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
    SharedMemory shared = shared_memory(records);
    trace.shared_arrays = std::move(shared.arrays);
    const std::uint64_t per_step = shared.elements * budget.per_shared_element;
    const std::vector<EventFacts> events = numbered_events(records, warp_size);
    const std::vector<std::uint32_t> order = in_key_order(events);
    // Steps in order, each whole while the budget lasts; the events are made
    // once their number is known, so that their vector is allocated once.
    std::vector<EventSpan> kept;
    std::uint64_t spent = 0;
    std::optional<StepKey> left_out;  // the first step not shown, where one is not
    for (std::size_t first = 0; first < order.size();) {
        const StepKey key = step_key(records[events[order[first]].first_record]);
        const std::size_t end = step_end(events, order, first);
        // Events beyond the budget are only counted: one more than fits says the step does not.
        const std::uint64_t room = budget.bytes - spent > per_step ? (budget.bytes - spent - per_step) / sizeof(WarpEvent) : 0;
        StepEvents step = step_events(records, events, order, first, end, static_cast<std::uint32_t>(trace.steps.size()),
                                      static_cast<std::size_t>(room));
        first = end;
        if (step.count == 0) continue;  // bookkeeping alone opens no step
        if (trace.end != TraceEnd::Whole) {
            left_out = key;
            break;
        }
        if (step.count > step.first.size() || per_step > budget.bytes - spent) {
            if (!trace.steps.empty()) {
                trace.end = TraceEnd::AfterLastStep;
                left_out = key;
                break;
            }
            trace.end = TraceEnd::InLastStep;  // the first step, in part
        }
        spent += std::min(per_step, budget.bytes - spent) + step.first.size() * sizeof(WarpEvent);
        trace.steps.push_back(key);
        kept.insert(kept.end(), step.first.begin(), step.first.end());
    }
    fill_events(trace.events, records, events, kept, trace.steps, block, threads_in_block, warp_size);
    trace.mix = collect_mix(records, events, trace.steps, left_out);
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
    std::string bounds;
    for (const std::uint64_t d : a.dims) bounds += "[" + std::to_string(d) + "]";
    return (a.type.empty() ? "" : a.type + " ") + a.name + (bounds.empty() ? "[" + std::to_string(a.count) + "]" : bounds);
}

}  // namespace wl::trace

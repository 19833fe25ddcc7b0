#include "viewer/model/step_model.h"

#include <algorithm>
#include <cstring>
#include <set>

namespace warplab::viewer {

using wl::trace::Kind;
using wl::trace::Space;

namespace {

using wl::trace::lane_active;

template <class Score>
std::optional<std::size_t> best_event(const BlockTrace& block, std::uint32_t step, Space space,
                                      std::optional<std::uint32_t> warp, Score score)
{
    std::optional<std::size_t> best;
    double best_score = -1;
    for (std::size_t i : memory_events(block, step, space)) {
        if (warp && block.events[i].warp != *warp) continue;
        const double s = score(block.events[i]);
        if (s > best_score) best = i, best_score = s;
    }
    return best;
}

// Runs of consecutive element indices: (first, length).
std::vector<std::pair<std::uint64_t, std::uint64_t>> runs(const std::vector<std::pair<std::uint64_t, std::uint32_t>>& owners)
{
    std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
    for (const auto& [elem, thread] : owners) {
        if (!out.empty() && out.back().first + out.back().second == elem)
            ++out.back().second;
        else
            out.push_back({elem, 1});
    }
    return out;
}

// The distance between equal runs at a constant spacing (a 2D tile), else 0.
std::uint64_t inferred_pitch(const std::vector<std::pair<std::uint64_t, std::uint32_t>>& owners)
{
    const auto r = runs(owners);
    if (r.size() < 2) return 0;
    const std::uint64_t pitch = r[1].first - r[0].first;
    for (std::size_t i = 1; i < r.size(); ++i)
        if (r[i].second != r[0].second || r[i].first - r[i - 1].first != pitch) return 0;
    return pitch;
}

void bound_tile(OutputTile& tile)
{
    std::uint64_t min_row = ~0ull, max_row = 0, min_col = ~0ull, max_col = 0;
    for (const auto& [elem, thread] : tile.owners) {
        min_row = std::min(min_row, tile.row_of(elem)), max_row = std::max(max_row, tile.row_of(elem));
        min_col = std::min(min_col, tile.col_of(elem)), max_col = std::max(max_col, tile.col_of(elem));
    }
    tile.first_row = min_row, tile.rows = max_row - min_row + 1;
    tile.first_col = min_col, tile.cols = max_col - min_col + 1;
}

}  // namespace

Covered covered_elements(std::uint64_t offset, unsigned size, std::uint32_t elem_size, std::uint64_t count)
{
    if (elem_size == 0) return {0, 0};
    const std::uint64_t first = offset / elem_size;
    const std::uint64_t last = (offset + std::max(size, 1u) - 1) / elem_size + 1;
    return {std::min(first, count), std::min(last, count)};
}

bool is_memory_access(const WarpEvent& e) { return wl::trace::is_memory(e.kind) && e.space != Space::None; }

EventRange step_events(const BlockTrace& block, std::uint32_t step)
{
    const auto by_step = [](const WarpEvent& e, std::uint32_t s) { return e.step < s; };
    const auto first = std::lower_bound(block.events.begin(), block.events.end(), step, by_step);
    const auto last = std::lower_bound(first, block.events.end(), step + 1, by_step);
    return {std::size_t(first - block.events.begin()), std::size_t(last - block.events.begin())};
}

BlockActivity block_activity(const BlockTrace& block, std::uint32_t step)
{
    BlockActivity a;
    a.warps = wl::trace::warps_of(block);
    a.warp_size = block.warp_size;
    a.lanes.assign(std::size_t(a.warps) * a.warp_size, LaneState::Absent);
    a.partial.assign(a.warps, 0);
    for (std::uint32_t t = 0; t < block.threads; ++t) a.lanes[t] = LaneState::Idle;
    const EventRange range = step_events(block, step);
    for (std::size_t i = range.begin; i < range.end; ++i) {
        const WarpEvent& e = block.events[i];
        if (e.warp >= a.warps) continue;
        wl::trace::for_each_lane(wl::trace::working_lanes(e),
                                 [&](unsigned lane) { a.lanes[wl::trace::thread_of(block, e, lane)] = LaneState::Active; });
        if (wl::trace::partially_active(e)) a.partial[e.warp] = 1;
    }
    return a;
}

std::vector<std::size_t> memory_events(const BlockTrace& block, std::uint32_t step, Space space)
{
    std::vector<std::size_t> out;
    const EventRange range = step_events(block, step);
    for (std::size_t i = range.begin; i < range.end; ++i)
        if (is_memory_access(block.events[i]) && block.events[i].space == space) out.push_back(i);
    return out;
}

std::optional<std::size_t> worst_shared_event(const BlockTrace& block, std::uint32_t step, std::optional<std::uint32_t> warp)
{
    return best_event(block, step, Space::Shared, warp, [](const WarpEvent& e) {
        return wl::trace::shared_bank_cost(e.mask, e.offset, e.size, e.kind).ways();
    });
}

std::optional<std::size_t> worst_global_event(const BlockTrace& block, std::uint32_t step, std::optional<std::uint32_t> warp)
{
    const auto worst = best_event(block, step, Space::Global, warp, [](const WarpEvent& e) {
        const auto c = wl::trace::global_sector_cost(e.mask, e.offset, e.size);
        return c.ideal ? double(c.sectors) / c.ideal : 0.0;
    });
    if (!worst) return worst;
    return line_atomic(block, step, *worst);
}

std::size_t line_atomic(const BlockTrace& block, std::uint32_t step, std::size_t event)
{
    const WarpEvent& e = block.events[event];
    if (e.kind == Kind::Atomic) return event;
    for (std::size_t i : memory_events(block, step, e.space)) {
        const WarpEvent& other = block.events[i];
        if (other.kind == Kind::Atomic && other.warp == e.warp && other.site == e.site) return i;
    }
    return event;
}

BankView bank_view(const WarpEvent& e)
{
    return bank_view(wl::trace::shared_bank_detail(e.mask, e.offset, e.size, e.kind), e.array);
}

BankView bank_view(const wl::trace::BankDetail& detail, std::uint8_t array)
{
    BankView v;
    static_cast<wl::trace::BankDetail&>(v) = detail;
    v.array = array;
    for (const auto& [word, lanes] : v.lanes_by_word)
        if (v.rows.empty() || v.rows.back() != word / kBanks) v.rows.push_back(word / kBanks);
    return v;
}

std::vector<BankRow> bank_rows(const BankView& v)
{
    std::vector<BankRow> rows;
    for (unsigned b = 0; b < kBanks; ++b) {
        if (!v.ways[b]) continue;
        BankRow r{b, v.ways[b], 0, {}};
        std::set<unsigned> lanes;
        for (const auto& [word, word_lanes] : v.lanes_by_word)
            if (word % kBanks == b) ++r.words, lanes.insert(word_lanes.begin(), word_lanes.end());
        r.lanes.assign(lanes.begin(), lanes.end());
        rows.push_back(std::move(r));
    }
    std::stable_sort(rows.begin(), rows.end(), [](const BankRow& a, const BankRow& b) { return a.ways > b.ways; });
    return rows;
}

PlaygroundView playground_view(const wl::trace::BankPattern& pattern)
{
    PlaygroundView v;
    v.play = wl::trace::bank_playground(pattern);
    v.banks = bank_view(v.play.detail);
    return v;
}

SectorView sector_view(const WarpEvent& e)
{
    SectorView v;
    v.cost = wl::trace::global_sector_cost(e.mask, e.offset, e.size);
    std::set<std::uint64_t> sectors;
    wl::trace::for_each_lane(e.mask, [&](unsigned lane) {
        for (std::uint64_t s = e.offset[lane] / 32; s <= (e.offset[lane] + std::max<unsigned>(e.size, 1) - 1) / 32; ++s)
            sectors.insert(s);
    });
    v.sectors.assign(sectors.begin(), sectors.end());
    wl::trace::for_each_lane(e.mask, [&](unsigned lane) {
        for (std::uint64_t s = e.offset[lane] / 32; s <= (e.offset[lane] + std::max<unsigned>(e.size, 1) - 1) / 32; ++s)
            v.lane_sectors[lane].push_back(
                std::uint32_t(std::lower_bound(v.sectors.begin(), v.sectors.end(), s) - v.sectors.begin()));
    });
    return v;
}

// A thread's reads since its last write feed its next write, even across steps:
// the warp tail of v5 reads sdata[tid + 16] in one step and writes sdata[tid]
// in the next, the sum carried in a register between them.
ArrayStep array_step(const BlockTrace& block, std::uint32_t step, std::uint8_t array, std::uint32_t elem_size,
                     std::size_t count)
{
    ArrayStep out;
    out.read.assign(count, 0);
    out.written.assign(count, 0);
    if (elem_size == 0) return out;
    // Per thread, the elements it read since its last write; kMaxFlowSources + 1
    // of them already mean no arrows, so no more are kept (a matmul tile's
    // thread reads dozens, and every frame replays the trace up to its step).
    std::vector<std::vector<std::uint64_t>> pending_reads(std::size_t(wl::trace::warps_of(block)) * block.warp_size);
    std::set<std::tuple<std::uint64_t, std::uint64_t, std::uint32_t>> seen;
    const EventRange upto = step_events(block, step);
    for (std::size_t i = 0; i < upto.end; ++i) {
        const WarpEvent& e = block.events[i];
        if (!is_memory_access(e) || e.space != Space::Shared || e.array != array) continue;
        const bool now = i >= upto.begin;
        wl::trace::for_each_lane(e.mask, [&](unsigned lane) {
            const std::uint32_t thread = wl::trace::thread_of(block, e, lane);
            const Covered elems = covered_elements(e.offset[lane], e.size, elem_size, count);
            if (elems.first >= elems.last) return;
            if (thread >= pending_reads.size()) pending_reads.resize(thread + 1);
            std::vector<std::uint64_t>& reads = pending_reads[thread];
            if (!wl::trace::writes_memory(e.kind) || e.kind == Kind::Atomic)
                for (std::uint64_t elem = elems.first; elem < elems.last; ++elem) {
                    if (reads.size() <= kMaxFlowSources && std::find(reads.begin(), reads.end(), elem) == reads.end())
                        reads.push_back(elem);
                    if (now) out.read[elem] = 1;
                }
            if (!wl::trace::writes_memory(e.kind)) return;
            if (now)
                for (std::uint64_t elem = elems.first; elem < elems.last; ++elem) {
                    out.written[elem] = 1;
                    if (reads.size() <= kMaxFlowSources)
                        for (std::uint64_t from : reads)
                            if (from != elem && seen.insert({from, elem, thread}).second) out.flows.push_back({thread, from, elem});
                }
            reads.clear();
        });
    }
    return out;
}

std::vector<wl::trace::SharedArrayInfo> shared_arrays(const BlockTrace& block)
{
    if (!block.shared_arrays.empty()) return block.shared_arrays;
    std::map<std::uint8_t, wl::trace::SharedArrayInfo> seen;
    for (const WarpEvent& e : block.events) {
        if (!is_memory_access(e) || e.space != Space::Shared) continue;
        auto& info = seen[e.array];
        info.id = e.array;
        info.name = "shared " + std::to_string(e.array);
        info.elem_size = info.elem_size ? info.elem_size : e.size;
        wl::trace::for_each_lane(e.mask, [&](unsigned lane) {
            info.count = std::max<std::uint64_t>(info.count, e.offset[lane] / info.elem_size + 1);
        });
    }
    std::vector<wl::trace::SharedArrayInfo> out;
    for (auto& [id, info] : seen) out.push_back(info);
    return out;
}

std::vector<Access> thread_accesses(const BlockTrace& block, std::uint32_t step, std::uint32_t thread)
{
    std::vector<Access> out;
    const std::uint32_t warp = thread / block.warp_size, lane = thread % block.warp_size;
    const EventRange range = step_events(block, step);
    for (std::size_t i = range.begin; i < range.end; ++i) {
        const WarpEvent& e = block.events[i];
        if (e.warp != warp || !lane_active(wl::trace::working_lanes(e), lane)) continue;
        out.push_back({e.kind, e.space, e.array, e.size, e.offset[lane], e.value[lane], e.site.line});
    }
    return out;
}

std::optional<OutputTile> output_tile(const BlockTrace& block, unsigned elem_size, std::uint64_t pitch_hint)
{
    elem_size = std::max(1u, elem_size);
    std::map<std::uint8_t, std::map<std::uint64_t, std::uint32_t>> by_array;  // array -> element -> thread
    for (const WarpEvent& e : block.events) {
        if (!wl::trace::writes_memory(e.kind) || e.space != Space::Global || e.size == 0) continue;
        const unsigned per_store = std::max(1u, unsigned(e.size) / elem_size);
        wl::trace::for_each_lane(e.mask, [&](unsigned lane) {
            for (unsigned k = 0; k < per_store; ++k) by_array[e.array][e.offset[lane] / elem_size + k] = wl::trace::thread_of(block, e, lane);
        });
    }
    if (by_array.empty()) return std::nullopt;
    const auto most = std::max_element(by_array.begin(), by_array.end(),
                                       [](const auto& a, const auto& b) { return a.second.size() < b.second.size(); });
    OutputTile tile;
    tile.array = most->first;
    tile.owners.assign(most->second.begin(), most->second.end());
    tile.pitch = pitch_hint ? pitch_hint : inferred_pitch(tile.owners);
    bound_tile(tile);
    return tile;
}

std::vector<std::uint64_t> owned_elements(const OutputTile& tile, std::uint32_t thread)
{
    std::vector<std::uint64_t> out;
    for (const auto& [elem, owner] : tile.owners)
        if (owner == thread) out.push_back(elem);
    return out;
}

double value_as(std::uint64_t bits, unsigned size, const std::string& type)
{
    if (type == "float" && size == 4) {
        float f;
        const std::uint32_t b = std::uint32_t(bits);
        std::memcpy(&f, &b, 4);
        return f;
    }
    if (type == "double" && size == 8) {
        double d;
        std::memcpy(&d, &bits, 8);
        return d;
    }
    if (size == 4) return double(std::int32_t(std::uint32_t(bits)));
    if (size == 2) return double(std::int16_t(std::uint16_t(bits)));
    if (size == 1) return double(std::int8_t(std::uint8_t(bits)));
    return double(std::int64_t(bits));
}

double value_as(const std::array<std::uint64_t, 2>& value, unsigned size, const std::string& type)
{
    return value_as(value[0], std::min(size, 8u), type);
}

}  // namespace warplab::viewer

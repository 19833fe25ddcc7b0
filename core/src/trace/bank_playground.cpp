// The bank-conflict playground (bank_playground.h): a pattern becomes lane
// records, the records become one warp event, and the event is analysed like
// any traced one.
#include "warplab/trace/bank_playground.h"

#include <algorithm>
#include <stdexcept>

namespace wl::trace {
namespace {

constexpr std::uint32_t kSourceLine = 1;  // the one source line of the imagined kernel

// The record lane `lane` leaves for `T x = shared[offset + stride * lane]`.
LaneRecord load_record(const BankPattern& p, unsigned lane)
{
    LaneRecord r{};
    r.thread = lane;
    r.line = kSourceLine;
    r.file_hash = file_hash("bank_playground.cu");
    r.kind = Kind::Load;
    r.space = Space::Shared;
    r.size = static_cast<std::uint8_t>(p.size);
    r.offset = (p.offset + p.stride * lane) * p.size;
    return r;
}

std::vector<LaneRecord> load_records(const BankPattern& p)
{
    std::vector<LaneRecord> records;
    for_each_lane(p.mask, [&](unsigned lane) { records.push_back(load_record(p, lane)); });
    return records;
}

PlaygroundLane lane_of(const WarpEvent& e, unsigned lane)
{
    PlaygroundLane l;
    l.active = lane_active(e.mask, lane);
    if (!l.active) return l;
    l.address = e.offset[lane];
    l.first_word = l.address / kBankWidth;
    l.last_word = (l.address + e.size - 1) / kBankWidth;
    return l;
}

}  // namespace

std::optional<std::string> element_size_problem(std::uint64_t size)
{
    if (size == 1 || size == 2 || size == 4 || size == 8 || size == 16) return std::nullopt;
    return "size " + std::to_string(size) + " is not an element size: use 1, 2, 4, 8 or 16 bytes";
}

std::optional<std::string> pattern_problem(const BankPattern& p)
{
    if (auto problem = element_size_problem(p.size)) return problem;
    if (p.stride > kMaxPlaygroundStride)
        return "stride " + std::to_string(p.stride) + " is out of range: from 0 to " + std::to_string(kMaxPlaygroundStride) + " elements";
    if (p.offset > kMaxPlaygroundOffset)
        return "offset " + std::to_string(p.offset) + " is out of range: from 0 to " + std::to_string(kMaxPlaygroundOffset) + " elements";
    if (p.mask == 0) return "no active lane: give at least one";
    return std::nullopt;
}

std::uint32_t first_lanes(unsigned count)
{
    return static_cast<std::uint32_t>(first_lanes_mask(std::min(count, kPlaygroundLanes)));
}

BankPlayground bank_playground(const BankPattern& p)
{
    if (const auto problem = pattern_problem(p)) throw std::invalid_argument(*problem);
    BankPlayground out;
    out.pattern = p;
    const BlockTrace block = group_block(0, kPlaygroundLanes, load_records(p), kPlaygroundLanes);
    out.event = block.events.at(0);  // one instruction of one warp: one event
    out.load = analyze_steps(block).at(0).shared_load;
    out.detail = shared_bank_detail(out.event.mask, out.event.offset, out.event.size);
    out.phase_lanes = lanes_per_phase(out.event.mask, out.event.offset, out.event.size);
    for (unsigned lane = 0; lane < kPlaygroundLanes; ++lane) out.lanes[lane] = lane_of(out.event, lane);
    return out;
}

// The answers, derived: word w is in bank w % 32; n-way = wavefronts / ideal.
const std::vector<BankPreset>& bank_presets()
{
    static const std::vector<BankPreset> presets = {
        {"stride1", "4-byte words, shared[s * lane] with s = 1 (Falsafi, CS-206 \"CUDA\"): word = lane, one per bank: 1-way",
         {4, 1, 0, 0xFFFFFFFFu}},
        {"stride2", "s = 2: word 2*lane; lanes l and l + 16 meet in bank 2l mod 32 with different words: 2-way",
         {4, 2, 0, 0xFFFFFFFFu}},
        {"stride3", "s = 3: 3 and 32 share no factor, so 3*lane mod 32 visits every bank once: 1-way",
         {4, 3, 0, 0xFFFFFFFFu}},
        {"stride4", "s = 4: word 4*lane lands in banks 0, 4, ..., 28 only, 4 distinct words each: 4-way",
         {4, 4, 0, 0xFFFFFFFFu}},
        {"tile32-column", "float tile[32][32] read by column: lane l reads word 32l, every lane in bank 0: 32-way",
         {4, 32, 0, 0xFFFFFFFFu}},
        {"tile33-column", "float tile[32][33] (one float of padding per row) read by column: word 33l is in bank l: 1-way",
         {4, 33, 0, 0xFFFFFFFFu}},
        {"double", "8-byte doubles at stride 1: each half-warp reads 128 bytes, every bank once: 2 wavefronts, ideal 2: 1-way",
         {8, 1, 0, 0xFFFFFFFFu}},
        {"float4", "16-byte float4 at stride 1: each quarter-warp reads 128 bytes, every bank once: 4 wavefronts, ideal 4: 1-way",
         {16, 1, 0, 0xFFFFFFFFu}},
        {"float4-broadcast", "stride 0: every lane reads one float4, so lanes agree in pairs and a half-warp is served at once: 2 wavefronts, ideal 2: 1-way",
         {16, 0, 0, 0xFFFFFFFFu}},
        {"broadcast", "stride 0: all 32 lanes read one word, delivered once to all of them: 1-way",
         {4, 0, 0, 0xFFFFFFFFu}},
    };
    return presets;
}

const BankPreset* find_bank_preset(const std::string& name)
{
    for (const BankPreset& p : bank_presets())
        if (name == p.name) return &p;
    return nullptr;
}

}  // namespace wl::trace

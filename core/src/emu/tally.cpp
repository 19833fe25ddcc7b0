// The instruction mix of a watched block (warplab/trace/mix.h). The
// interpreter counts, in each lane's row, the kernel instructions the lane
// reaches; when the lane's step ends (a barrier released, a collective
// completed, the block ended) its row goes into its warp's count for that
// step, instruction by instruction the most any lane reached it: the warp
// issued that instruction so many times. At the block's end each warp's steps
// become Kind::Mix records, one per class.
#include "block.h"
#include "warplab/trace/mix.h"

namespace wl::emu::detail {

void start_tally(Block& b)
{
    b.warp_tally.clear();
    b.class_tally.clear();
    if (!b.watched || !b.opt->count_instructions || !b.body.instruction_counts) {
        b.tally.clear();
        return;
    }
    b.tally.assign(std::size_t(b.threads) * b.body.instructions, 0);
}

std::uint32_t* instruction_tally()
{
    Lane& lane = *tls_lane;
    Block& b = *lane.block;
    return b.tally.empty() ? nullptr : b.tally.data() + std::size_t(lane.flat) * b.body.instructions;
}

void close_tally_row(Lane& lane)
{
    Block& b = *lane.block;
    const std::size_t n = b.body.instructions;
    std::uint32_t* row = b.tally.data() + std::size_t(lane.flat) * n;
    if (std::all_of(row, row + n, [](std::uint32_t c) { return c == 0; })) return;
    std::vector<std::uint32_t>& warp = b.warp_tally[{lane.warp, lane.epoch, lane.sub}];
    if (warp.empty()) warp.assign(n, 0);
    for (std::size_t pc = 0; pc < n; ++pc) {
        warp[pc] = std::max(warp[pc], row[pc]);
        row[pc] = 0;
    }
}

void settle_tally_rows(Block& b)
{
    for (const auto& [key, counts] : b.warp_tally) {
        std::array<std::uint64_t, trace::kInstructionClasses>& by_class = b.class_tally[key];
        for (std::size_t pc = 0; pc < counts.size(); ++pc) {
            const MachineCount& m = b.body.instruction_counts[pc];
            const std::uint64_t issued = counts[m.issued_with == kOwnCount ? pc : m.issued_with];
            if (m.cls != kFolded) by_class[m.cls] += issued;
            by_class[m.extra_cls] += issued * m.extra;
        }
    }
    b.warp_tally.clear();
}

void finish_tally(Block& b)
{
    if (b.tally.empty()) return;
    for (Lane& lane : b.lanes) close_tally_row(lane);
    settle_tally_rows(b);
    for (const auto& [key, by_class] : b.class_tally) {
        for (std::size_t c = 0; c < trace::kInstructionClasses; ++c) {
            if (!by_class[c]) continue;
            LaneRecord r{};
            r.block = b.flat;
            r.thread = key[0] * b.warp_width;
            r.epoch = key[1];
            r.sub = key[2];
            r.kind = Kind::Mix;
            r.array = static_cast<std::uint8_t>(c);
            r.offset = by_class[c];
            append_record(b, r);
        }
    }
    b.class_tally.clear();
    b.tally.clear();
}

}  // namespace wl::emu::detail

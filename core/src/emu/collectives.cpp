// Warp collectives: __syncwarp, shuffles, votes, match, redux and the TF32
// mma.sync product, computed once every lane of the mask has arrived. A
// collective orders the memory accesses of the lanes that joined it: under
// Independent their vector clocks are joined here.
#include <bit>
#include <sstream>

#include "bit_count.h"
#include "block.h"

namespace wl::emu::detail {

// The lane a shuffle reads from, as PTX shfl.sync defines it: the segment of
// `width` lanes bounds up/down/idx; xor may also read an earlier segment but
// never a later one. Out of range: the caller's own value.
unsigned shuffle_source(CollectiveOp op, unsigned lane, int arg, int width, bool* in_range, unsigned warp_width)
{
    const unsigned first = lane & ~static_cast<unsigned>(width - 1);
    const unsigned last = first + static_cast<unsigned>(width) - 1;
    const unsigned b = static_cast<unsigned>(arg) & (warp_width - 1);
    unsigned src = lane;
    bool ok = true;
    switch (op) {
    case CollectiveOp::ShflIdx: src = first + (b & static_cast<unsigned>(width - 1)); break;
    case CollectiveOp::ShflUp: ok = lane >= first + b; src = ok ? lane - b : lane; break;
    case CollectiveOp::ShflDown: ok = lane + b <= last; src = ok ? lane + b : lane; break;
    case CollectiveOp::ShflXor: ok = (lane ^ b) <= last; src = ok ? (lane ^ b) : lane; break;
    default: break;
    }
    if (in_range) *in_range = ok;
    return src;
}

const char* op_name(CollectiveOp op)
{
    switch (op) {
    case CollectiveOp::SyncWarp: return "__syncwarp";
    case CollectiveOp::ShflIdx: return "__shfl_sync";
    case CollectiveOp::ShflUp: return "__shfl_up_sync";
    case CollectiveOp::ShflDown: return "__shfl_down_sync";
    case CollectiveOp::ShflXor: return "__shfl_xor_sync";
    case CollectiveOp::Ballot: return "__ballot_sync";
    case CollectiveOp::Any: return "__any_sync";
    case CollectiveOp::All: return "__all_sync";
    case CollectiveOp::ReduceAdd: return "__reduce_add_sync";
    case CollectiveOp::Uni: return "vote.uni";
    case CollectiveOp::MatchAny: return "__match_any_sync";
    case CollectiveOp::MatchAll: return "__match_all_sync";
    case CollectiveOp::ReduceMinU: case CollectiveOp::ReduceMinS: return "__reduce_min_sync";
    case CollectiveOp::ReduceMaxU: case CollectiveOp::ReduceMaxS: return "__reduce_max_sync";
    case CollectiveOp::ReduceAnd: return "__reduce_and_sync";
    case CollectiveOp::ReduceOr: return "__reduce_or_sync";
    case CollectiveOp::ReduceXor: return "__reduce_xor_sync";
    case CollectiveOp::MmaTf32: return "mma.sync";
    case CollectiveOp::WarpMatrix: return "wmma.mma.sync";
    }
    return "?";
}

namespace {

trace::Kind op_kind(CollectiveOp op)
{
    if (op == CollectiveOp::SyncWarp) return trace::Kind::SyncWarp;
    if (op >= CollectiveOp::Ballot) return trace::Kind::Vote;
    return trace::Kind::Shuffle;
}

// One per tile of cg::tiled_partition<1>; lockstep tiles of 4 keep two each in flight for 8 masks.
constexpr std::size_t kMaxCollectives = 32;

Collective* free_slot(Warp& w, CollectiveOp op, std::uint64_t mask)
{
    for (Collective& slot : w.pending)
        if (!slot.in_use) {
            slot.op = op;
            slot.mask = mask;
            slot.arrived = 0;
            slot.waiting = bit_count(mask);
            slot.in_use = true;
            return &slot;
        }
    if (w.pending.size() >= kMaxCollectives) return nullptr;
    w.pending.emplace_back();
    return free_slot(w, op, mask);
}

// Vector clocks only matter under Independent. A full-warp collective leaves
// every lane knowing every lane's clock: that is stored once, in full_vc. A
// partial one joins the participants' knowledge: of each other, their own
// clocks; of the lanes outside the mask, the most any participant knew.
void join_clocks(Block& b, Warp& w, unsigned base, std::uint64_t mask)
{
    const unsigned width = b.warp_width;
    const std::uint64_t existing = w.lanes == 64 ? ~0ull : (1ull << w.lanes) - 1;
    if (mask == existing) {
        for (unsigned k = 0; k < w.lanes; ++k) w.full_vc[k] = b.lanes[base + k].clock++;
        return;
    }
    std::uint32_t joined[kMaxWarpWidth];
    for (unsigned k = 0; k < width; ++k) joined[k] = w.full_vc[k];
    for (std::uint64_t m = mask; m; m &= m - 1) {
        const unsigned p = static_cast<unsigned>(std::countr_zero(m));
        const Lane& lane = b.lanes[base + p];
        for (unsigned k = 0; k < width; ++k) joined[k] = std::max(joined[k], lane.learnt(k));
        joined[p] = lane.clock;
    }
    for (std::uint64_t m = mask; m; m &= m - 1) {
        Lane& lane = b.lanes[base + std::countr_zero(m)];
        std::memcpy(lane.vc, joined, width * sizeof joined[0]);
        lane.has_vc = true;
        lane.clock += 1;
    }
}

// redux.sync over the 32-bit inputs of the lanes in the mask.
std::uint32_t reduce_lanes(const Collective& c)
{
    const unsigned first = static_cast<unsigned>(std::countr_zero(c.mask));
    auto u = [&](unsigned l) { return static_cast<std::uint32_t>(c.in[l][0]); };
    std::uint32_t acc = u(first);
    for (std::uint64_t m = c.mask & (c.mask - 1); m; m &= m - 1) {
        const std::uint32_t v = u(static_cast<unsigned>(std::countr_zero(m)));
        switch (c.op) {
        case CollectiveOp::ReduceMinU: acc = std::min(acc, v); break;
        case CollectiveOp::ReduceMaxU: acc = std::max(acc, v); break;
        case CollectiveOp::ReduceMinS: acc = static_cast<std::uint32_t>(std::min(static_cast<std::int32_t>(acc), static_cast<std::int32_t>(v))); break;
        case CollectiveOp::ReduceMaxS: acc = static_cast<std::uint32_t>(std::max(static_cast<std::int32_t>(acc), static_cast<std::int32_t>(v))); break;
        case CollectiveOp::ReduceAnd: acc &= v; break;
        case CollectiveOp::ReduceOr: acc |= v; break;
        default: acc ^= v; break;
        }
    }
    return acc;
}

// A float's top 19 bits, as the tensor cores read a TF32 operand (the 13 low
// mantissa bits are ignored).
double tf32(std::uint64_t word)
{
    return std::bit_cast<float>(static_cast<std::uint32_t>(word) & 0xFFFFE000u);
}

// mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32: D = A·B + C for the
// warp's 16×8 piece of C. Lane l = 4·group + t holds, in PTX's fragment
// layout, a0..a3 = A[group][t], A[group + 8][t], A[group][t + 4],
// A[group + 8][t + 4]; b0, b1 = B[t][group], B[t + 4][group]; c0..c3 (and
// d0..d3) = C[group][2t], C[group][2t + 1], C[group + 8][2t], C[group + 8][2t + 1].
// The products of TF32 inputs are exact; each element's eight and its C are
// summed in double and rounded once to float. The hardware's adder rounds in
// its own, undocumented way, so a GPU's D may differ in its last bits.
void multiply_tf32_16x8x8(Collective& c)
{
    double a[16][8], b[8][8], acc[16][8];
    for (unsigned l = 0; l < 32; ++l) {
        const unsigned g = l / 4, t = l % 4;
        std::uint32_t w[10];
        std::memcpy(w, c.in[l], sizeof w);
        a[g][t] = tf32(w[0]), a[g + 8][t] = tf32(w[1]), a[g][t + 4] = tf32(w[2]), a[g + 8][t + 4] = tf32(w[3]);
        b[t][g] = tf32(w[4]), b[t + 4][g] = tf32(w[5]);
        acc[g][2 * t] = std::bit_cast<float>(w[6]), acc[g][2 * t + 1] = std::bit_cast<float>(w[7]);
        acc[g + 8][2 * t] = std::bit_cast<float>(w[8]), acc[g + 8][2 * t + 1] = std::bit_cast<float>(w[9]);
    }
    float d[16][8];
    for (unsigned i = 0; i < 16; ++i)
        for (unsigned j = 0; j < 8; ++j) {
            double sum = acc[i][j];
            for (unsigned k = 0; k < 8; ++k) sum += a[i][k] * b[k][j];
            d[i][j] = static_cast<float>(sum);
        }
    for (unsigned l = 0; l < 32; ++l) {
        const unsigned g = l / 4, t = l % 4;
        const float out[4] = {d[g][2 * t], d[g][2 * t + 1], d[g + 8][2 * t], d[g + 8][2 * t + 1]};
        std::memcpy(c.out[l], out, sizeof out);
    }
}

void complete(Block& b, Warp& w, Collective& c)
{
    const unsigned base = static_cast<unsigned>(&w - b.warps.data()) * b.warp_width;
    if (c.op == CollectiveOp::MmaTf32 || c.op == CollectiveOp::WarpMatrix) {
        // No step and no clock join: mma.sync and wmma.mma order no memory accesses.
        if (c.op == CollectiveOp::MmaTf32) multiply_tf32_16x8x8(c);
        else if (std::string wrong = reinterpret_cast<WarpProduct>(c.in[0][0])(c.in); !wrong.empty() && !b.fault) {
            const Lane& lane = b.lanes[base];  // named as the warp's lane 0, the product's first comparison
            b.fault = Fault{b.kernel, b.idx, lane.view.thread_idx, lane.warp, lane.lane, lane.wait_file, lane.wait_line, wrong};
        }
        for (std::uint64_t m = c.mask; m; m &= m - 1) set_state(b.lanes[base + std::countr_zero(m)], LaneState::Runnable);
        return;
    }
    std::uint64_t ballot = 0;
    unsigned sum = 0;
    if (c.op >= CollectiveOp::Ballot) {
        for (std::uint64_t m = c.mask; m; m &= m - 1) {
            const unsigned l = static_cast<unsigned>(std::countr_zero(m));
            if (c.in[l][0]) ballot |= 1ull << l;
            sum += static_cast<unsigned>(c.in[l][0]);
        }
    }
    share_synced(b, base, c.mask);
    if (b.opt->schedule == Schedule::Independent) join_clocks(b, w, base, c.mask);
    for (std::uint64_t m = c.mask; m; m &= m - 1) {
        const unsigned l = static_cast<unsigned>(std::countr_zero(m));
        Lane& lane = b.lanes[base + l];
        switch (c.op) {
        case CollectiveOp::Ballot: c.out[l][0] = ballot; break;
        case CollectiveOp::Any: c.out[l][0] = ballot != 0; break;
        case CollectiveOp::All: c.out[l][0] = ballot == c.mask; break;
        case CollectiveOp::ReduceAdd: c.out[l][0] = sum; break;
        case CollectiveOp::Uni: c.out[l][0] = ballot == 0 || ballot == c.mask; break;
        case CollectiveOp::MatchAny:
        case CollectiveOp::MatchAll: {
            std::uint64_t same = 0;
            for (std::uint64_t m2 = c.mask; m2; m2 &= m2 - 1) {
                const unsigned k = static_cast<unsigned>(std::countr_zero(m2));
                if (c.in[k][0] == c.in[l][0]) same |= 1ull << k;
            }
            c.out[l][0] = c.op == CollectiveOp::MatchAny ? same : (same == c.mask ? c.mask : 0);
            c.out[l][1] = same == c.mask;  // match.all's predicate
            break;
        }
        case CollectiveOp::ReduceMinU: case CollectiveOp::ReduceMaxU: case CollectiveOp::ReduceMinS:
        case CollectiveOp::ReduceMaxS: case CollectiveOp::ReduceAnd: case CollectiveOp::ReduceOr:
        case CollectiveOp::ReduceXor: c.out[l][0] = reduce_lanes(c); break;
        case CollectiveOp::SyncWarp: break;
        default: {
            const unsigned src = shuffle_source(c.op, l, c.arg[l], c.width, nullptr, b.warp_width);
            if (!(c.mask >> src & 1) && !b.fault) {
                // Reported by the lane that completed the collective (the running fiber).
                b.fault = Fault{b.kernel, b.idx, lane.view.thread_idx, lane.warp, lane.lane, lane.wait_file,
                                lane.wait_line,
                                std::string(op_name(c.op)) + " reads lane " + std::to_string(src) +
                                    ", which is not in the mask"};
            }
            c.out[l][0] = c.in[src][0];
            c.out[l][1] = c.in[src][1];
        }
        }
        close_tally(lane);
        lane.sub += 1;
        set_state(lane, LaneState::Runnable);
    }
}

bool is_shuffle(CollectiveOp op) { return op >= CollectiveOp::ShflIdx && op <= CollectiveOp::ShflXor; }

// An arrival's own faults, out of the hot path (which calls this only when a
// fault is possible, and for every arrival in a 64-lane warp): a mask that
// leaves out the calling lane; a 32-bit mask in a 64-lane warp (see LaneMask);
// mma.sync, whose fragments are laid out over 32 lanes, in a 64-lane warp; a
// shuffle segment that is not a power of two up to the warp width.
[[gnu::cold, gnu::noinline]] void check_arrival(Lane& lane, CollectiveOp op, LaneMask mask, int width, const char* file,
                                                unsigned line)
{
    const unsigned warp_width = lane.block->warp_width;
    std::ostringstream what;
    if (warp_width == 64 && (op == CollectiveOp::MmaTf32 || op == CollectiveOp::WarpMatrix))
        what << op_name(op) << " lays its fragments over 32 lanes: it does not run in a 64-lane warp";
    else if (warp_width == 64 && mask.width == 32)
        what << op_name(op) << " with the 32-bit mask 0x" << std::hex << mask.bits
             << " in a 64-lane warp: a 32-bit mask cannot say which of the 64 lanes it names";
    else if (!(mask.bits >> lane.lane & 1))
        what << op_name(op) << " with mask 0x" << std::hex << mask.bits << " that does not include the calling lane";
    else if (is_shuffle(op) && (width <= 0 || width > static_cast<int>(warp_width) || (width & (width - 1))))
        what << "shuffle width must be a power of two up to " << warp_width;
    else
        return;
    fault(lane, file, line, what.str());
}

}  // namespace

void collective_take(void* out, unsigned bytes)
{
    Lane& lane = *tls_lane;
    Collective* c = lane.collective;
    if (out) std::memcpy(out, c->out[lane.lane], bytes);
    lane.collective = nullptr;
    if (--c->waiting == 0) c->in_use = false;  // every participant has taken its result
}

namespace {
// One lane's arrival at a warp collective (it waits there until the collective completes).
inline void arrive_at_collective(Lane& lane, CollectiveOp op, LaneMask lane_mask, const void* in, unsigned bytes,
                                 int arg, int width, const char* file, unsigned line)
{
    Block& b = *lane.block;
    Warp& w = b.warps[lane.warp];
    std::uint64_t value[5] = {};
    if (in) std::memcpy(value, in, bytes);
    if (op != CollectiveOp::MmaTf32 && op != CollectiveOp::WarpMatrix) record(lane, op_kind(op), trace::Space::None, bytes, 0, 0, value, 16, file, line);
    const std::uint64_t mask = lane_mask.bits;
    if (!(mask >> lane.lane & 1) || b.warp_width != 32 ||
        (is_shuffle(op) && (width <= 0 || width > 32 || (width & (width - 1)))))
        check_arrival(lane, op, lane_mask, width, file, line);
    auto joins = [&](const Collective* slot) {
        return slot && slot->in_use && slot->op == op && slot->mask == mask && !(slot->arrived >> lane.lane & 1) &&
               slot->arrived != slot->mask;
    };
    Collective* c = joins(w.open) ? w.open : nullptr;  // usually the one the previous lane joined
    for (std::size_t i = 0; !c && i < w.pending.size(); ++i)
        if (joins(&w.pending[i])) c = &w.pending[i];
    if (!c) c = w.open = free_slot(w, op, mask);
    if (!c) fault(lane, file, line, "more than " + std::to_string(w.pending.size()) + " different warp collectives in progress at once in one warp");
    c->arrived |= 1ull << lane.lane;
    c->width = width;
    std::memcpy(c->in[lane.lane], value, sizeof value);
    c->arg[lane.lane] = arg;
    set_state(lane, LaneState::AtCollective);
    lane.collective = c;
    lane.wait_file = file;
    lane.wait_line = line;
    if (c->arrived == c->mask) {
        complete(b, w, *c);
        if (b.fault) fault(lane, file, line, "");
    }
}
}  // namespace

bool release_syncwarps_past_exited(Block& b)
{
    bool released = false;
    for (std::size_t w = 0; w < b.warps.size(); ++w)
        for (Collective& c : b.warps[w].pending) {
            if (!c.in_use || c.op != CollectiveOp::SyncWarp || c.arrived == c.mask || c.arrived == 0) continue;
            const std::size_t base = w * b.warp_width;
            bool exited = true;
            for (std::uint64_t m = c.mask & ~c.arrived; m; m &= m - 1)
                exited &= b.lanes[base + std::countr_zero(m)].state == LaneState::Done;
            if (!exited) continue;
            c.mask = c.arrived;  // the lanes that take a result
            c.waiting = bit_count(c.mask);
            complete(b, b.warps[w], c);
            released = true;
        }
    return released;
}

void collective_arrive(CollectiveOp op, LaneMask mask, const void* in, unsigned bytes, int arg, int width,
                       const char* file, unsigned line)
{
    arrive_at_collective(*tls_lane, op, mask, in, bytes, arg, width, file, line);
}

void syncwarp_arrive_lanes(const unsigned* flats, unsigned count, LaneMask mask, const char* file, unsigned line)
{
    WarpPass& p = tls_pass;
    for (unsigned i = 0; i < count; ++i) {
        Lane& lane = p.block->lanes[flats[i]];
        p.running = tls_lane = &lane;  // a fault names this lane
        arrive_at_collective(lane, CollectiveOp::SyncWarp, mask, nullptr, 0, 0, 32, file, line);
    }
    end_turns(p, count);
}

}  // namespace wl::emu::detail

// Machine-code widths of shared accesses, and the trace regrouped by them (machine_code.h).
#include "warplab/trace/machine_code.h"

#include <algorithm>
#include <bit>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <vector>

namespace wl::trace {
namespace detail {
// kernels/ptx/<lab>.sass (or the build's own), embedded by cmake/ptxas_report.cmake.
extern const char* const kSassLabs[];
extern const char* const kSassTexts[];
extern const unsigned kSassCount;
}  // namespace detail

namespace {

[[noreturn]] void malformed(const std::string& origin, unsigned line, const std::string& text)
{
    throw std::runtime_error(origin + ":" + std::to_string(line) + ": not a shared-instruction line: '" + text + "'");
}

struct ListingLine {
    Site site;
    Kind kind = Kind::Load;
    unsigned bytes = 0;
};

// "<file>:<line> load|store <bytes>x<count>"
std::optional<ListingLine> parse_line(const std::string& text)
{
    std::istringstream in(text);
    std::string where, kind, width;
    if (!(in >> where >> kind >> width)) return std::nullopt;
    const std::size_t colon = where.rfind(':'), x = width.find('x');
    const std::optional<Kind> k = find_kind(kind);
    if (colon == std::string::npos || x == std::string::npos || (k != Kind::Load && k != Kind::Store)) return std::nullopt;
    ListingLine l;
    try {
        l.site = {file_hash(where.substr(0, colon).c_str()), static_cast<std::uint32_t>(std::stoul(where.substr(colon + 1)))};
        l.bytes = static_cast<unsigned>(std::stoul(width.substr(0, x)));
    } catch (const std::exception&) {
        return std::nullopt;
    }
    l.kind = *k;
    return l;
}

// ---- regrouping ----

// The accesses of one warp, step, site and lanes that may form one machine instruction.
struct GroupKey {
    std::uint32_t step = 0, warp = 0;
    Site site;
    Kind kind = Kind::Load;
    std::uint8_t array = 0, size = 0;
    LaneMask mask = 0;
    std::vector<std::uint64_t> chunks;  // per active lane, its offset / width
    bool operator<(const GroupKey& o) const  // not a defaulted <=>: libc++ 14's vector has none
    {
        return std::tie(step, warp, site, kind, array, size, mask, chunks) <
               std::tie(o.step, o.warp, o.site, o.kind, o.array, o.size, o.mask, o.chunks);
    }
};

// An open group: which of the chunk's positions (offset % width / size) its events fill.
struct Piece {
    std::vector<std::size_t> events;  // indices into the block's events, in order
    std::vector<unsigned> positions;  // of each event
};

// The position of the event in its lanes' W-byte chunks, if every active lane has the same.
std::optional<unsigned> position_in_chunk(const WarpEvent& e, unsigned width)
{
    std::optional<unsigned> position;
    bool same = true;
    for_each_lane(e.mask, [&](unsigned lane) {
        const std::uint64_t offset = e.offset[lane];
        const unsigned p = static_cast<unsigned>(offset % width / e.size);
        same = same && offset % e.size == 0 && (!position || *position == p);
        position = p;
    });
    return same ? position : std::nullopt;
}

GroupKey group_key(const WarpEvent& e, unsigned width)
{
    GroupKey k{e.step, e.warp, e.site, e.kind, e.array, e.size, e.mask, {}};
    for_each_lane(e.mask, [&](unsigned lane) { k.chunks.push_back(e.offset[lane] / width); });
    return k;
}

void copy_bytes(std::array<std::uint64_t, 2>& to, unsigned at, const std::array<std::uint64_t, 2>& from, unsigned count)
{
    for (unsigned i = 0; i < count && at + i < 16; ++i) {
        const std::uint64_t byte = (from[i / 8] >> (8 * (i % 8))) & 0xFFu;
        const unsigned j = at + i;
        to[j / 8] = (to[j / 8] & ~(std::uint64_t(0xFF) << (8 * (j % 8)))) | (byte << (8 * (j % 8)));
    }
}

// The piece's events as one access, when they cover an aligned power-of-two span exactly once.
std::optional<WarpEvent> merged(const std::vector<WarpEvent>& events, const Piece& piece)
{
    if (piece.events.size() < 2) return std::nullopt;
    const auto [lo, hi] = std::minmax_element(piece.positions.begin(), piece.positions.end());
    const unsigned count = *hi - *lo + 1;
    if (count != piece.positions.size() || (count & (count - 1)) || *lo % count) return std::nullopt;
    WarpEvent out = events[piece.events.front()];
    const unsigned size = out.size, first = *lo;  // a copy: clang 14 cannot capture a structured binding
    out.size = static_cast<std::uint8_t>(size * count);
    for_each_lane(out.mask, [&](unsigned lane) {
        out.offset[lane] -= (out.offset[lane] % out.size);
        out.value[lane] = {0, 0};
    });
    for (std::size_t i = 0; i < piece.events.size(); ++i) {
        const WarpEvent& part = events[piece.events[i]];
        for_each_lane(out.mask, [&](unsigned lane) {
            copy_bytes(out.value[lane], (piece.positions[i] - first) * size, part.value[lane], size);
        });
    }
    return out;
}

}  // namespace

MachineCode MachineCode::parse(std::string_view text, const std::string& origin)
{
    MachineCode code;
    std::map<std::pair<Site, Kind>, unsigned> in_kernel;  // widths of the current kernel
    auto close_kernel = [&] {
        for (const auto& [key, widths] : in_kernel) {
            auto [it, fresh] = code.widths_.try_emplace(key, widths);
            if (!fresh && it->second != widths) it->second = kDisagree;  // instantiations disagree
        }
        in_kernel.clear();
    };
    std::istringstream in{std::string(text)};
    std::string line;
    for (unsigned number = 1; std::getline(in, line); ++number) {
        if (line.empty() || line[0] == '#') continue;
        if (line.rfind("kernel ", 0) == 0) {
            close_kernel();
            continue;
        }
        const std::optional<ListingLine> l = parse_line(line);
        if (!l || l->bytes == 0 || l->bytes > 16 || (l->bytes & (l->bytes - 1))) malformed(origin, number, line);
        in_kernel[{l->site, l->kind}] |= l->bytes;  // a power of two: its own bit
    }
    close_kernel();
    return code;
}

unsigned MachineCode::width(const Site& site, Kind kind) const
{
    const auto it = widths_.find({site, kind});
    if (it == widths_.end() || it->second == kDisagree) return 0;
    return std::bit_floor(it->second);  // the widest
}

const MachineCode* lab_machine_code(std::string_view lab)
{
    static const std::map<std::string, MachineCode, std::less<>> listings = [] {
        std::map<std::string, MachineCode, std::less<>> out;
        for (unsigned i = 0; i < detail::kSassCount; ++i)
            out.emplace(detail::kSassLabs[i], MachineCode::parse(detail::kSassTexts[i], std::string("kernels/ptx/") + detail::kSassLabs[i] + ".sass"));
        return out;
    }();
    const auto it = listings.find(lab);
    return it == listings.end() ? nullptr : &it->second;
}

BlockTrace as_machine_instructions(BlockTrace block, const MachineCode& code)
{
    std::vector<WarpEvent>& events = block.events;
    std::vector<Piece> pieces;
    std::map<GroupKey, std::size_t> open;  // group -> its open piece
    for (std::size_t i = 0; i < events.size(); ++i) {
        const WarpEvent& e = events[i];
        if (e.space != Space::Shared || (e.kind != Kind::Load && e.kind != Kind::Store) || e.size == 0) continue;
        const unsigned width = code.width(e.site, e.kind);
        if (width <= e.size || width % e.size) continue;
        const std::optional<unsigned> position = position_in_chunk(e, width);
        if (!position) continue;
        const GroupKey key = group_key(e, width);
        auto it = open.find(key);
        if (it != open.end()) {
            const std::vector<unsigned>& taken = pieces[it->second].positions;
            if (std::find(taken.begin(), taken.end(), *position) != taken.end()) it = open.end();  // a new access
        }
        if (it == open.end()) {
            pieces.emplace_back();
            it = open.insert_or_assign(key, pieces.size() - 1).first;
        }
        pieces[it->second].events.push_back(i);
        pieces[it->second].positions.push_back(*position);
    }
    // In place: a trace's events may fill most of the memory a front end may take.
    // Pieces share no event, so each merge reads only events no other one writes.
    std::vector<bool> dropped(events.size(), false);
    for (const Piece& piece : pieces) {
        std::optional<WarpEvent> m = merged(events, piece);
        if (!m) continue;
        events[piece.events.front()] = *m;
        for (std::size_t j = 1; j < piece.events.size(); ++j) dropped[piece.events[j]] = true;
    }
    std::size_t kept = 0;
    for (std::size_t i = 0; i < events.size(); ++i) {
        if (dropped[i]) continue;
        if (kept != i) events[kept] = events[i];  // an event kept where it is is not copied onto itself
        ++kept;
    }
    events.resize(kept);
    return block;
}

}  // namespace wl::trace

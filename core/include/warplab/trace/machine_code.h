// What ptxas made of a kernel's shared-memory accesses, and the trace as the
// machine executes it.
//
// The emulator runs PTX, one `ld.shared`/`st.shared` at a time. ptxas, below
// the PTX, merges neighbouring scalar accesses of one thread into LDS.64 or
// LDS.128 where registers and alignment allow (matmul v3 reads As[ty][k..k+3]
// with one LDS.128); which ones it merges is its own decision (in matmul v5
// B's row but not A's column). Nsight Compute counts the machine's
// instructions, so warplab takes the widths from the machine code: the build
// assembles each lab's PTX for sm_90 and lists, per source line, the width of
// its LDS and STS instructions (cmake/sass_map.py -> kernels/ptx/<lab>.sass).
// Before counting, each lane's PTX accesses of such a line are grouped into
// accesses of that width; raw lane records stay as they were.
//
// A line may compile to instructions of two widths: image v1's tree step
// `sdata[index] += sdata[index + s]`, unrolled, reads index and index + 1 at
// s = 1 with one LDS.64 and the later steps' words, s apart, with two LDS.32.
// ptxas merges only accesses it knows to be adjacent and aligned, so a warp's
// accesses of one step that fill an aligned chunk of the line's widest width
// are the merged instance, and the others stay as in the PTX. (An instance
// ptxas could not prove adjacent whose addresses happen to be adjacent at run
// time would be counted merged too; telling the two apart needs each access's
// PTX instruction in the trace and a listing per PTX instruction.)
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "warplab/trace/events.h"

namespace wl::trace {

class MachineCode {
public:
    // Parses a .sass listing ("kernel <name>", then "<file>:<line> load|store
    // <bytes>x<count>" lines; '#' starts a comment). Throws std::runtime_error
    // naming `origin` and the line on malformed text.
    static MachineCode parse(std::string_view text, const std::string& origin);

    // The bytes of the widest LDS (kind Load) or STS (Store) at `site`, the width
    // its accesses are grouped by; 0 when the site has none, or when
    // instantiations of its kernel disagree on the widths there (then its
    // accesses stay as in the PTX).
    unsigned width(const Site& site, Kind kind) const;

private:
    // Per site and kind, the widths its instructions have: bit b set for 2^b bytes.
    static constexpr unsigned kDisagree = ~0u;
    std::map<std::pair<Site, Kind>, unsigned> widths_;
};

// The listing built or shipped for lab `lab` (kernels/ptx/<lab>.sass), or nullptr.
const MachineCode* lab_machine_code(std::string_view lab);

// The block's events as the machine executes them: at a site whose machine
// instructions are W bytes wide and its PTX accesses narrower, the accesses of
// one warp, step and site that fill an aligned W-byte chunk of each lane
// (same lanes, same position in the chunk per lane) become one W-byte event
// at the place of the first; a chunk filled only partly becomes the widest
// aligned access it covers completely, if any. Values are assembled byte by byte.
BlockTrace as_machine_instructions(BlockTrace block, const MachineCode& code);

}  // namespace wl::trace

// The PTX instrumenter behind wl::cuda::instrument and trace_on_gpu: a pass
// over PTX as the statement layer under the interpreter's parser reads it
// (core/src/ptx/statements.h), so that both read each rule of PTX one way.
//
// The instrumented kernel keeps raw addresses (shared-window offsets, global
// addresses) in the records it appends; the host turns them into (array,
// offset) after the launch, from the launch's arguments and the shared
// variables' window addresses that the watched blocks' thread 0 writes into
// the control block at kernel entry.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "warplab/ptx/ptx.h"
#include "warplab/trace/record.h"

namespace wl::cuda::detail {

// The module-scope variable through which the host steers the instrumented
// kernel (cuModuleGetGlobal finds it by this name). Offsets below are the ones
// the generated PTX uses.
inline constexpr const char* kControlSymbol = "__wl_trace_ctl";
struct Control {
    std::uint64_t records;      // LaneRecord[capacity]
    std::uint32_t capacity;
    std::uint32_t count;        // records appended (may exceed capacity: then some were dropped)
    std::uint64_t slot_of_block;  // uint32_t per block of the grid: watched slot, or ~0u
    std::uint64_t lane_state;     // per watched slot and thread: {seq, epoch, sub, unused}
    // followed by one uint32_t per shared variable: its shared-window address
    // (at least one), then, 8-aligned, one uint64_t per module variable: a
    // __constant__ variable's constant-window address (0 for the others)
};
static_assert(offsetof(Control, records) == 0 && offsetof(Control, capacity) == 8 && offsetof(Control, count) == 12 &&
              offsetof(Control, slot_of_block) == 16 && offsetof(Control, lane_state) == 24 && sizeof(Control) == 32,
              "the generated PTX addresses the control block by these offsets");
inline constexpr std::uint32_t kNotWatched = 0xFFFFFFFFu;
inline constexpr std::uint32_t kLaneStateBytes = 16;

// A shared variable of the kernel, in declaration order (the trace's array ids).
struct SharedSymbol {
    std::string ptx_name;  // as the PTX spells it ("_ZZ...E5sdata", "dyn")
    bool dynamic = false;  // .extern .shared ... []
};

// A module-scope .global or .const variable, in declaration order: the
// emulator numbers a constant load's variable by its place in this list.
struct ModuleVariable {
    std::string ptx_name;
    bool constant = false;
};

// Where the module variables' addresses start in the control block.
constexpr std::size_t variables_offset(std::size_t shared_count)
{
    return (sizeof(Control) + 4 * (shared_count ? shared_count : 1) + 7) / 8 * 8;
}

struct InstrumentedPtx {
    std::string text;
    std::string entry;                   // the mangled name of the instrumented kernel
    std::vector<SharedSymbol> shared;    // the kernel's shared variables, in declaration order
    std::vector<ModuleVariable> variables;  // the module's .global and .const variables
    std::size_t sites = 0;               // instrumented instructions, for tests and messages
    // Bytes of the narrowest explicitly .shared load/store/atomic in the
    // kernel's own code (16 when none): with the alignment, it gives the
    // element size the emulator declares a shared variable with.
    unsigned narrowest_shared_access = 16;
    // Where the entry's shared arrays are declared, as the interpreter places
    // them: at the first of its instructions that has a source line.
    std::uint32_t declared_line = 0;
    std::uint32_t declared_file_hash = trace::file_hash("");
};

// Instruments `entry` (a mangled .entry name) and every .func of the module;
// other entries are left out of the result. Throws std::invalid_argument when
// the module has no such entry, naming the entries it has.
InstrumentedPtx instrument_ptx(std::string_view ptx, std::string_view entry);

// What the host knows after the launch, to turn raw records into the
// emulator's form.
struct PointerArg {
    std::uint8_t position = 0;     // the kernel parameter
    std::uint64_t value = 0;       // the device pointer passed
    std::uint64_t alloc_end = 0;   // one past the end of its allocation
};
// A shared array as the trace numbers it (its position in a vector of these).
struct SharedSlot {
    std::uint32_t base = 0;   // window address
    std::uint64_t bytes = 0;
    std::uint32_t elem = 1;   // element size the emulator declares it with
    std::string name;         // source name
};
// A __constant__ variable: its place among the module variables and its
// constant-window address.
struct ConstantSlot {
    std::uint8_t variable = 0;
    std::uint64_t base = 0;
};
struct LaunchFacts {
    std::vector<SharedSlot> shared;
    std::vector<ConstantSlot> constants;
    std::vector<PointerArg> pointers;
    // The base of the device allocation holding an address that no pointer
    // argument covers; false when there is none.
    std::function<bool(std::uint64_t address, std::uint64_t& base)> allocation_of;
    std::vector<std::uint32_t> watched_blocks;
    std::uint32_t declared_line = 0;  // InstrumentedPtx's, for the Declare records
    std::uint32_t declared_file_hash = trace::file_hash("");
};

// The emulator's numbering of a kernel's shared arrays and their element
// sizes (shared_arrays, core/src/ptx/statements.h). `bases`: each of
// `kernel.shared`'s window addresses.
std::vector<SharedSlot> shared_slots(const ptx::KernelInfo& kernel, const InstrumentedPtx& ptx,
                                     const std::vector<std::uint32_t>& bases, std::uint32_t dynamic_shared_bytes);

// The __constant__ variables' addresses, from the control block as the
// launch left it (`control`: its bytes, variables_offset onwards included).
std::vector<ConstantSlot> constant_slots(const InstrumentedPtx& ptx, const unsigned char* control);

// Raw records (offset = the raw address, array = 0) as the instrumented
// kernel wrote them -> the emulator's records: (array, offset) named, thread
// 0's Declare records added (and its seq shifted past them), sorted by
// (block, thread, seq).
std::vector<trace::LaneRecord> finish_records(std::vector<trace::LaneRecord> raw, const LaunchFacts& facts);


}  // namespace wl::cuda::detail

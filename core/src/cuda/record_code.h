// The PTX an instrumented function gains (ptx_instrument.cpp): its
// registers, the prologue that finds the lane's block and state, and the
// code after a traced instruction that appends its LaneRecord.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ptx_instrument.h"
#include "warplab/trace/record.h"

namespace wl::cuda::detail {

struct SourceSite {
    std::uint32_t line = 0;
    std::uint32_t file_hash = trace::file_hash("");
};

// The memory space of a load/store/atomic: Global, Shared, Constant, None for
// generic; traced false for spaces that are not traced (param, local, cluster).
struct SpaceOf {
    bool traced = true;
    bool generic = false;
    trace::Space space = trace::Space::None;
};

struct Address {
    std::string base;   // register or symbol (empty: an absolute address)
    long long offset = 0;
    bool reg = false;
};

// Registers the generated code uses; declared once per instrumented function.
inline constexpr const char* kRegisterDeclarations =
    "\t.reg .pred \t%wl_on, %wl_g, %wl_full, %wl_ps, %wl_pg, %wl_q, %wl_pc;\n"
    "\t.reg .b32 \t%wl_thr, %wl_blk, %wl_cap, %wl_seq, %wl_ep, %wl_sub, %wl_pad, %wl_idx, %wl_word, %wl_t<8>;\n"
    "\t.reg .b64 \t%wl_ctl, %wl_st, %wl_recs, %wl_rec, %wl_a, %wl_d<4>;\n"
    "\t.reg .b16 \t%wl_h<4>;\n"
    "\t.reg .b32 \t%wl_x32, %wl_y32, %wl_o32, %wl_n32, %wl_c<4>;\n"
    "\t.reg .b64 \t%wl_x64, %wl_y64, %wl_o64, %wl_n64;\n"
    "\t.reg .b16 \t%wl_x16, %wl_y16, %wl_o16, %wl_n16;\n";

// Every lane finds out, once per function, whether its block is watched and
// where its per-lane state lives.
std::string prologue();
// Thread 0 of a watched block writes each shared variable's window address
// and each __constant__ variable's.
std::string window_bases(const std::vector<SharedSymbol>& shared, const std::vector<ModuleVariable>& variables);

enum class StateChange { Access, Barrier, Collective };

struct ValueStore {
    unsigned offset;   // within the record's value bytes
    std::string type;  // st.global.<type>
    std::string operand;
};

struct Site {
    trace::Kind kind = trace::Kind::Load;
    SpaceOf space;
    unsigned size = 0;
    bool has_address = false;
    std::vector<ValueStore> values;
    StateChange change = StateChange::Access;
};

class Emitter {
public:
    explicit Emitter(std::string& out) : out_(out) {}

    // Code that captures the address into %wl_a before the instruction runs
    // (its destination may overwrite the address register); base_bits: the
    // width of the base register.
    void capture_address(const Address& a, unsigned base_bits, trace::Space space);
    // The record itself, after the instruction.
    void record(std::size_t id, const std::string& guard, const Site& s, SourceSite where);

    void line(const std::string& s) { out_ += "\t" + s + ";\n"; }
    void raw(std::string_view s)
    {
        out_ += s;
        out_ += '\n';
    }
    void label(const std::string& l) { out_ += l + ":\n"; }

private:
    std::string& out_;
};

// A temporary register of the given width for captured operands.
std::string temp(const char* role, unsigned bytes);
std::string bit_type(unsigned bytes);
// The value an atomic leaves in memory, from the old value and its operands.
void atomic_result(Emitter& e, const std::string& op, const std::string& type, unsigned bytes);

}  // namespace wl::cuda::detail

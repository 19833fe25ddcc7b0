// The PTX an instrumented function gains (record_code.h).
#include "record_code.h"

#include <sstream>

namespace wl::cuda::detail {

using trace::Kind;
using trace::Space;

namespace {

// The control block through %wl_ctl, which the prologue loads with its address.
std::string control(unsigned offset) { return "%wl_ctl+" + std::to_string(offset); }

std::uint32_t record_word(Kind k, Space s, unsigned size)
{
    return std::uint32_t(k) | std::uint32_t(s) << 8 | std::uint32_t(size) << 16;
}

}  // namespace

// Every lane finds out, once per function, whether its block is watched and
// where its per-lane state lives.
std::string prologue()
{
    std::ostringstream o;
    o << "\tmov.u64 \t%wl_ctl, " << kControlSymbol << ";\n";
    o << "\tmov.u32 \t%wl_t0, %tid.x;\n\tmov.u32 \t%wl_t1, %tid.y;\n\tmov.u32 \t%wl_t2, %tid.z;\n"
         "\tmov.u32 \t%wl_t3, %ntid.x;\n\tmov.u32 \t%wl_t4, %ntid.y;\n\tmov.u32 \t%wl_t5, %ntid.z;\n"
         "\tmad.lo.u32 \t%wl_thr, %wl_t2, %wl_t4, %wl_t1;\n\tmad.lo.u32 \t%wl_thr, %wl_thr, %wl_t3, %wl_t0;\n"
         "\tmul.lo.u32 \t%wl_t6, %wl_t3, %wl_t4;\n\tmul.lo.u32 \t%wl_t6, %wl_t6, %wl_t5;\n"
         "\tmov.u32 \t%wl_t0, %ctaid.x;\n\tmov.u32 \t%wl_t1, %ctaid.y;\n\tmov.u32 \t%wl_t2, %ctaid.z;\n"
         "\tmov.u32 \t%wl_t3, %nctaid.x;\n\tmov.u32 \t%wl_t4, %nctaid.y;\n"
         "\tmad.lo.u32 \t%wl_blk, %wl_t2, %wl_t4, %wl_t1;\n\tmad.lo.u32 \t%wl_blk, %wl_blk, %wl_t3, %wl_t0;\n"
      << "\tld.global.u64 \t%wl_d0, [" << control(16) << "];\n"
      << "\tmul.wide.u32 \t%wl_d1, %wl_blk, 4;\n\tadd.u64 \t%wl_d0, %wl_d0, %wl_d1;\n"
         "\tld.global.u32 \t%wl_t7, [%wl_d0];\n"
      << "\tsetp.ne.u32 \t%wl_on, %wl_t7, " << kNotWatched << ";\n"
      << "\tmad.lo.u32 \t%wl_t7, %wl_t7, %wl_t6, %wl_thr;\n"
      << "\tld.global.u64 \t%wl_st, [" << control(24) << "];\n"
      << "\tmul.wide.u32 \t%wl_d1, %wl_t7, " << kLaneStateBytes << ";\n\tadd.u64 \t%wl_st, %wl_st, %wl_d1;\n"
      << "\tld.global.u64 \t%wl_recs, [" << control(0) << "];\n"
      << "\tld.global.u32 \t%wl_cap, [" << control(8) << "];\n";
    return o.str();
}

// Thread 0 of a watched block writes each shared variable's window address
// and each __constant__ variable's.
std::string window_bases(const std::vector<SharedSymbol>& shared, const std::vector<ModuleVariable>& variables)
{
    std::ostringstream o;
    o << "\tsetp.eq.and.u32 \t%wl_q, %wl_thr, 0, %wl_on;\n";
    for (std::size_t k = 0; k < shared.size(); ++k)
        o << "\t@%wl_q mov.u32 \t%wl_t0, " << shared[k].ptx_name << ";\n"
          << "\t@%wl_q st.global.u32 \t[" << control(unsigned(sizeof(Control) + 4 * k)) << "], %wl_t0;\n";
    const std::size_t first = variables_offset(shared.size());
    for (std::size_t k = 0; k < variables.size(); ++k)
        if (variables[k].constant)
            o << "\t@%wl_q mov.u64 \t%wl_d0, " << variables[k].ptx_name << ";\n"
              << "\t@%wl_q st.global.u64 \t[" << control(unsigned(first + 8 * k)) << "], %wl_d0;\n";
    return o.str();
}

// Code that captures the address into %wl_a before the instruction runs
// (its destination may overwrite the address register).
void Emitter::capture_address(const Address& a, unsigned base_bits, Space space)
{
    if (a.reg && base_bits == 32) {
        // Summed in 32 bits, as the instruction sums them: nvcc's shared address arithmetic relies on the
        // wrap (a register may hold temp - 64, below zero, before an access at [reg+136]).
        std::string base = a.base;
        if (a.offset) {
            line("add.s32 \t%wl_t0, " + a.base + ", " + std::to_string(static_cast<std::int32_t>(a.offset)));
            base = "%wl_t0";
        }
        line("cvt.u64.u32 \t%wl_a, " + base);
        return;
    }
    if (a.reg) {
        line("mov.b64 \t%wl_a, " + a.base);
    } else if (a.base.empty()) {  // an absolute address
        line("mov.u64 \t%wl_a, " + std::to_string(a.offset));
        return;
    } else if (space == Space::Shared) {
        line("mov.u32 \t%wl_t0, " + a.base);
        line("cvt.u64.u32 \t%wl_a, %wl_t0");
    } else {
        line("mov.u64 \t%wl_a, " + a.base);
    }
    if (a.offset) line("add.s64 \t%wl_a, %wl_a, " + std::to_string(a.offset));
}

// The record itself, after the instruction.
void Emitter::record(std::size_t id, const std::string& guard, const Site& s, SourceSite where)
{
    const std::string skip = "$WL_skip_" + std::to_string(id);
    const std::string full = "$WL_full_" + std::to_string(id);
    line("@!%wl_on bra.uni \t" + skip);
    if (!guard.empty()) {
        const bool negated = guard.size() > 1 && guard[1] == '!';
        line(std::string(negated ? "@" : "@!") + guard.substr(negated ? 2 : 1) + " bra \t" + skip);
    }
    std::string word = std::to_string(record_word(s.kind, s.space.space, s.size));
    if (s.space.generic && s.has_address) {
        line("isspacep.shared \t%wl_ps, %wl_a");
        line("isspacep.global \t%wl_pg, %wl_a");
        line("or.pred \t%wl_g, %wl_ps, %wl_pg");
        line("@!%wl_g bra \t" + skip);
        line("@%wl_ps cvta.to.shared.u64 \t%wl_a, %wl_a");
        line("selp.u32 \t%wl_word, " + std::to_string(record_word(s.kind, Space::Shared, s.size)) + ", " +
             std::to_string(record_word(s.kind, Space::Global, s.size)) + ", %wl_ps");
        word = "%wl_word";
    }
    line("ld.global.v4.u32 \t{%wl_seq, %wl_ep, %wl_sub, %wl_pad}, [%wl_st]");
    line("atom.global.add.u32 \t%wl_idx, [" + control(12) + "], 1");
    line("setp.ge.u32 \t%wl_full, %wl_idx, %wl_cap");
    line("@%wl_full bra \t" + full);
    line("mul.wide.u32 \t%wl_rec, %wl_idx, " + std::to_string(sizeof(trace::LaneRecord)));
    line("add.u64 \t%wl_rec, %wl_rec, %wl_recs");
    line("st.global.v2.u32 \t[%wl_rec], {%wl_blk, %wl_thr}");
    line("st.global.v2.u32 \t[%wl_rec+8], {%wl_seq, %wl_ep}");
    line("st.global.u32 \t[%wl_rec+16], %wl_sub");
    line("st.global.u32 \t[%wl_rec+20], " + std::to_string(where.line));
    line("st.global.u32 \t[%wl_rec+24], " + std::to_string(where.file_hash));
    line("st.global.u32 \t[%wl_rec+28], " + word);
    line(std::string("st.global.u64 \t[%wl_rec+32], ") + (s.has_address ? "%wl_a" : "0"));
    line("st.global.u64 \t[%wl_rec+40], 0");
    line("st.global.u64 \t[%wl_rec+48], 0");
    for (const ValueStore& v : s.values)
        line("st.global." + v.type + " \t[%wl_rec+" + std::to_string(40 + v.offset) + "], " + v.operand);
    label(full);
    line("add.u32 \t%wl_seq, %wl_seq, 1");
    if (s.change == StateChange::Barrier) {
        line("add.u32 \t%wl_ep, %wl_ep, 1");
        line("mov.u32 \t%wl_sub, 0");
    } else if (s.change == StateChange::Collective) {
        line("add.u32 \t%wl_sub, %wl_sub, 1");
    }
    line("st.global.v4.u32 \t[%wl_st], {%wl_seq, %wl_ep, %wl_sub, %wl_pad}");
    label(skip);
}

// A temporary register of the given width for captured operands.
std::string temp(const char* role, unsigned bytes)
{
    return std::string("%wl_") + role + (bytes == 8 ? "64" : bytes == 2 || bytes == 1 ? "16" : "32");
}
std::string bit_type(unsigned bytes) { return bytes == 8 ? "b64" : bytes <= 2 ? "b16" : "b32"; }

// The value an atomic leaves in memory, from the old value and its operands.
void atomic_result(Emitter& e, const std::string& op, const std::string& type, unsigned bytes)
{
    const std::string o = temp("o", bytes), x = temp("x", bytes), y = temp("y", bytes), n = temp("n", bytes);
    const std::string b = bit_type(bytes);
    if (op == "add") e.line("add." + type + " \t" + n + ", " + o + ", " + x);
    else if (op == "min" || op == "max") e.line(op + "." + type + " \t" + n + ", " + o + ", " + x);
    else if (op == "and" || op == "or" || op == "xor") e.line(op + "." + b + " \t" + n + ", " + o + ", " + x);
    else if (op == "exch") e.line("mov." + b + " \t" + n + ", " + x);
    else if (op == "cas") {
        e.line("setp.eq." + b + " \t%wl_q, " + o + ", " + x);
        e.line("selp." + b + " \t" + n + ", " + y + ", " + o + ", %wl_q");
    } else if (op == "inc") {  // old >= x ? 0 : old + 1
        e.line("setp.ge.u32 \t%wl_q, " + o + ", " + x);
        e.line("add.u32 \t" + n + ", " + o + ", 1");
        e.line("selp.b32 \t" + n + ", 0, " + n + ", %wl_q");
    } else if (op == "dec") {  // old == 0 || old > x ? x : old - 1
        e.line("setp.eq.u32 \t%wl_q, " + o + ", 0");
        e.line("setp.gt.or.u32 \t%wl_q, " + o + ", " + x + ", %wl_q");
        e.line("sub.u32 \t" + n + ", " + o + ", 1");
        e.line("selp.b32 \t" + n + ", " + x + ", " + n + ", %wl_q");
    } else {
        e.line("mov." + b + " \t" + n + ", " + o);
    }
}

}  // namespace wl::cuda::detail

// The PTX instrumenter: one pass over the statements of nvcc's PTX.
//
// After every traced instruction of the kernel (and of every .func), a lane
// of a watched block appends one LaneRecord to a device buffer: it claims a
// slot with one atomic add on the control block's counter, writes block,
// thread, its own seq/epoch/sub (kept per lane in global memory, so that
// .func calls need no extra parameters), the site's line and file hash
// (immediates computed here), kind/space/size, the raw address and the value.
// Lanes of other blocks pay one uniform branch per site.
#include "ptx_instrument.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include "../ptx/statements.h"
#include "../ptx/traced.h"
#include "record_code.h"
#include "warplab/trace/record.h"

namespace wl::cuda::detail {
namespace {

using trace::Kind;
using trace::Space;

// ------------------------------------------------------------ the module --

namespace reader = wl::ptx::detail;  // the statement layer
using reader::Span;
using reader::Statement;
using reader::StatementKind;

// The PTX as the statement layer reads it, and the text it points into.
struct Module {
    std::string_view text;
    std::vector<reader::Token> tokens;
    std::vector<Statement> statements;
    std::map<std::uint32_t, std::string> files;  // .file paths by index

    std::string text_of(Span s) const { return std::string(reader::source_span(tokens, s)); }
    std::size_t offset(const Statement& s) const { return std::size_t(tokens[s.first].s.data() - text.data()); }
    std::size_t end_offset(const Statement& s) const
    {
        const std::string_view last = tokens[s.end - 1].s;
        return std::size_t(last.data() + last.size() - text.data());
    }
    std::size_t line_start(std::size_t at) const
    {
        const std::size_t nl = text.rfind('\n', at == 0 ? 0 : at - 1);
        return at == 0 || nl == std::string_view::npos ? 0 : nl + 1;
    }
    // Past the '\n' that ends the line holding `at`.
    std::size_t line_end(std::size_t at) const
    {
        const std::size_t nl = text.find('\n', at);
        return nl == std::string_view::npos ? text.size() : nl + 1;
    }
};

// ------------------------------------------------------------ source sites --

// Follows `.loc`s in program order and answers, for the current point, the
// location the interpreter gives the instruction: the statement layer's
// chain of inlined callers and its user frame (statements.h).
class SiteTracker {
public:
    explicit SiteTracker(const Module& m) : m_(m) {}

    void see(const Statement& loc)
    {
        std::string error;
        auto named = reader::read_loc(m_.tokens, loc, error);
        if (!named) return;  // the parser reports it
        bool found = false;
        const reader::SourceFrame pick = reader::user_frame(callers_.chain(std::move(*named)), m_.files, found);
        auto it = m_.files.find(pick.first);
        current_ = SourceSite{pick.second, trace::file_hash(it == m_.files.end() ? "" : it->second.c_str())};
    }
    SourceSite current() const { return current_; }

private:
    const Module& m_;
    reader::CallerChains callers_;  // this function's
    SourceSite current_;
};

bool is_loc(const Module& m, const Statement& s) { return s.kind == StatementKind::Directive && m.tokens[s.first].s == ".loc"; }

// ------------------------------------------------------------ functions --

using Function = reader::FunctionBody;

// The module's functions with a body; a body must close.
std::vector<Function> find_functions(const Module& m)
{
    std::vector<Function> fns = reader::function_bodies(m.tokens, m.statements);
    for (const Function& f : fns)
        if (f.close == m.statements.size()) throw std::invalid_argument("PTX: the body of " + std::string(f.name) + " never closes");
    return fns;
}

// Register widths in bits, from a function's `.reg` declarations ("%r<17>" declares %r0..%r16).
class RegisterWidths {
public:
    void see(const Module& m, const Statement& s)
    {
        if (s.kind != StatementKind::Directive || !reader::is_declaration(m.tokens, s)) return;
        const reader::Declaration d = reader::read_declaration(m.tokens, Span{s.first, s.end});
        if (d.space != ".reg") return;
        const unsigned bits = 8 * reader::ty_bytes(d.ty);
        for (const reader::DeclaredName& n : d.names) (n.registers ? prefix_ : exact_)[std::string(n.name)] = bits;
    }
    unsigned bits(const std::string& reg) const
    {
        if (auto it = exact_.find(reg); it != exact_.end()) return it->second;
        std::string p = reg;
        while (!p.empty() && std::isdigit(static_cast<unsigned char>(p.back()))) p.pop_back();
        if (auto it = prefix_.find(p); it != prefix_.end()) return it->second;
        return 64;
    }

private:
    std::map<std::string, unsigned> exact_, prefix_;
};

// ------------------------------------------------------------ instructions --

// An instruction as the statement layer reads it, with the texts the
// generated code pastes.
struct Instruction {
    reader::InstructionStatement read;
    std::string guard;                   // "@%p1", "@!%p1" or ""
    std::string opcode;
    std::vector<std::string> operands;   // as written; a `d|p` pair is one
    std::vector<Span> spans;             // their tokens
};

Instruction instruction(const Module& m, const Statement& s)
{
    Instruction in;
    in.read = reader::read_instruction(m.tokens, s);
    if (in.read.guarded) in.guard = std::string(in.read.guard_negated ? "@!" : "@") + std::string(in.read.guard);
    in.opcode = std::string(in.read.opcode);
    for (std::size_t k = 0; k < in.read.operands.size(); ++k) {
        Span o = in.read.operands[k];
        if (in.read.paired[k] && k + 1 < in.read.operands.size()) o.end = in.read.operands[++k].end;
        in.spans.push_back(o);
        in.operands.push_back(m.text_of(o));
    }
    return in;
}

bool has_part(const Instruction& in, std::string_view p) { return reader::has_part(in.read, p); }
std::string_view base_of(const Instruction& in) { return in.read.parts.front(); }
std::string type_of(const Instruction& in) { return std::string(in.read.parts.back()); }
unsigned type_bytes(std::string_view t) { return reader::ty_bytes(reader::type_of(t)); }

SpaceOf space_of(const Instruction& in)
{
    for (std::string_view p : in.read.parts) {
        if (p == "global") return {true, false, Space::Global};
        if (p == "shared" || p == "shared::cta") return {true, false, Space::Shared};
        if (p == "const") return {true, false, Space::Constant};  // the constant cache's serialisation
        if (p.starts_with("shared::") || p.starts_with("param") || p == "local") return {false, false, Space::None};
    }
    return {true, true, Space::None};
}

std::vector<std::string> vector_elements(const Module& m, const Instruction& in, std::size_t k)
{
    std::vector<std::string> out;
    for (Span e : reader::vector_elements(m.tokens, in.spans[k])) out.push_back(m.text_of(e));
    return out;
}

Address address(const Module& m, const Instruction& in, std::size_t k)
{
    const auto a = reader::read_address(m.tokens, in.spans[k]);
    if (!a) throw std::invalid_argument("PTX: expected an address, got " + in.operands[k]);
    return Address{std::string(a->base), a->offset, a->base.starts_with("%")};
}

const std::set<std::string> kAtomicOps{"add", "min", "max", "and", "or", "xor", "exch", "cas", "inc", "dec"};

// Copies the PTX text to the output, inserting the generated code before and
// after the statements it records; a statement's line (with its comment) is
// kept as written unless the statement is replaced.
class Output {
public:
    Output(const Module& m, std::string& out) : m_(m), out_(out) {}

    void copy_to(std::size_t offset)
    {
        if (offset > cursor_) out_.append(m_.text.substr(cursor_, offset - cursor_));
        cursor_ = std::max(cursor_, offset);
    }
    void skip_to(std::size_t offset) { cursor_ = std::max(cursor_, offset); }
    // Up to the start of the statement's line: code emitted now runs before it.
    void before(const Statement& s)
    {
        copy_to(m_.line_start(m_.offset(s)));
        if (!out_.empty() && out_.back() != '\n') out_ += '\n';
    }
    // Through the end of the statement's line: code emitted now runs after it.
    void through(const Statement& s) { copy_to(line_after(s)); }
    // Through the lines that follow with no code on them (blank, or only a comment).
    void through_empty_lines()
    {
        std::size_t at = cursor_;
        while (at < m_.text.size()) {
            const std::size_t eol = m_.line_end(at);
            const std::string_view line = m_.text.substr(at, eol - at);
            const std::size_t code = line.find_first_not_of(" \t\r\n");
            if (code != std::string_view::npos && line.substr(code, 2) != "//") break;
            at = eol;
        }
        copy_to(at);
    }
    // The statement's line is replaced by what the caller emits.
    void drop(const Statement& s) { skip_to(line_after(s)); }

private:
    // Past the statement's line, or just past the statement when more code follows it on that line.
    std::size_t line_after(const Statement& s) const
    {
        const std::size_t end = m_.end_offset(s), eol = m_.line_end(end);
        const std::string_view rest = m_.text.substr(end, eol - end);
        const std::size_t code = rest.find_first_not_of(" \t\r\n");
        return code == std::string_view::npos || rest.substr(code, 2) == "//" ? eol : end;
    }
    const Module& m_;
    std::string& out_;
    std::size_t cursor_ = 0;
};

// Rewrites one function body (statements open+1 .. close-1), appending to the output.
class FunctionInstrumenter {
public:
    FunctionInstrumenter(const Module& m, const Function& f, std::size_t& next_id, Output& text, std::string& out)
        : m_(m), f_(f), sites_(m), next_id_(next_id), text_(text), out_(out), emit_(out)
    {
        for (std::size_t k = f.open; k <= f.close; ++k) {
            widths_.see(m, m.statements[k]);
            if (m.statements[k].kind == StatementKind::Instruction)
                if (const unsigned b = reader::shared_access_bytes(reader::read_instruction(m.tokens, m.statements[k])))
                    narrowest_shared_ = std::min(narrowest_shared_, b);
        }
    }

    // The narrowest explicitly .shared access of the function (statements.h's rule).
    unsigned narrowest_shared() const { return narrowest_shared_; }
    // The site of the function's first instruction that has one (after run).
    std::optional<SourceSite> first_site() const { return first_site_; }

    // `entry`: the kernel's shared and module variables, whose bases its prologue writes (null for a .func).
    std::size_t run(const InstrumentedPtx* entry)
    {
        text_.through(statement(f_.open));
        out_ += kRegisterDeclarations;
        out_ += prologue();
        std::size_t k = f_.open + 1;
        if (entry) {
            // After the function's own declarations, so that demoted shared variables are declared.
            for (; k < f_.close && statement(k).kind == StatementKind::Directive; ++k) {
                if (is_loc(m_, statement(k))) sites_.see(statement(k)), located_ = true;
                text_.through(statement(k));
            }
            text_.through_empty_lines();
            out_ += window_bases(entry->shared, entry->variables);
        }
        for (; k < f_.close; ++k) {
            const Statement& s = statement(k);
            if (is_loc(m_, s)) {
                sites_.see(s);
                located_ = true;
            } else if (s.kind == StatementKind::Instruction) {
                if (located_ && !first_site_) first_site_ = sites_.current();
                instrument(s, instruction(m_, s));
            }
        }
        text_.through(statement(f_.close));
        return count_;
    }

private:
    const Statement& statement(std::size_t k) const { return m_.statements[k]; }
    void capture(const Address& a, Space space) { emit_.capture_address(a, widths_.bits(a.base), space); }

    // What the table of operations says the instruction records (traced.h).
    bool instrument(const Statement& original, const Instruction& in)
    {
        text_.before(original);  // whatever is generated runs before or after this line
        switch (reader::trace_record(base_of(in))) {
        case reader::TraceRecord::Nothing: return false;
        case reader::TraceRecord::Load: return memory(in, original, Kind::Load);
        case reader::TraceRecord::Store: return memory(in, original, Kind::Store);
        case reader::TraceRecord::Copy: return copy(in, original);
        case reader::TraceRecord::Atomic: return atomic(in, original);
        case reader::TraceRecord::Barrier: return barrier(in, original);
        case reader::TraceRecord::Shuffle: return collective(in, original, Kind::Shuffle);
        case reader::TraceRecord::Vote: return collective(in, original, Kind::Vote);
        }
        return false;
    }

    bool memory(const Instruction& in, const Statement& original, Kind kind)
    {
        const SpaceOf space = space_of(in);
        if (!space.traced || in.operands.size() < 2) return false;
        const std::string type = type_of(in);
        const unsigned elem = type_bytes(type), width = reader::vector_width(in.read);
        if (elem == 0) return false;
        const Address addr = address(m_, in, kind == Kind::Load ? 1 : 0);
        Site s;
        s.kind = kind;
        s.space = space;
        s.size = elem * width;
        s.has_address = true;
        const auto elements = vector_elements(m_, in, kind == Kind::Load ? 0 : 1);
        for (std::size_t k = 0; k < elements.size(); ++k)
            if (elements[k] != "_") s.values.push_back({unsigned(k * elem), type, elements[k]});
        capture(addr, space.space);
        text_.through(original);
        emit_.record(next_id_++, in.guard, s, sites_.current());
        ++count_;
        return true;
    }

    // cp.async.{ca,cg}.shared.global [dst], [src], cp-size{, src-size}: as
    // the emulator records it, a global load of the source's bytes (none when
    // src-size is 0), then a shared store of cp-size bytes (zeros past the
    // source). The bytes are read here by an ordinary load, for the record:
    // the copy itself lands later. A src-size strictly between 0 and cp-size
    // is recorded as a whole copy (warplab's kernels use 0 or cp-size). The
    // other cp forms (commit and wait, bulk copies) record nothing.
    bool copy(const Instruction& in, const Statement& original)
    {
        const bool global_to_shared = has_part(in, "async") && has_part(in, "shared") && has_part(in, "global") &&
                                      (has_part(in, "ca") || has_part(in, "cg"));
        if (!global_to_shared || in.operands.size() < 3) return false;
        const unsigned size = unsigned(reader::parse_integer(in.operands[2]).value_or(0));
        if (size != 4 && size != 8 && size != 16) return false;
        const unsigned words = size / 4;
        Site load;
        load.kind = Kind::Load;
        load.space = {true, false, Space::Global};
        load.size = size;
        load.has_address = true;
        for (unsigned w = 0; w < words; ++w) load.values.push_back({4 * w, "b32", "%wl_c" + std::to_string(w)});
        Site store = load;
        store.kind = Kind::Store;
        store.space = {true, false, Space::Shared};

        // %wl_pc: this lane copies bytes from global memory.
        emit_.line(in.operands.size() > 3 ? "setp.ne.u32 \t%wl_pc, " + in.operands[3] + ", 0" : "setp.eq.u32 \t%wl_pc, 0, 0");
        if (!in.guard.empty()) {
            const bool negated = in.guard.size() > 1 && in.guard[1] == '!';
            emit_.line("and.pred \t%wl_pc, %wl_pc, " + std::string(negated ? "!" : "") + in.guard.substr(negated ? 2 : 1));
        }
        for (unsigned w = 0; w < words; ++w) emit_.line("mov.b32 \t%wl_c" + std::to_string(w) + ", 0");
        capture(address(m_, in, 1), Space::Global);
        std::string regs = "%wl_c0";
        for (unsigned w = 1; w < words; ++w) regs += ", %wl_c" + std::to_string(w);
        emit_.line("@%wl_pc ld.global" + std::string(words == 1 ? ".b32 \t" + regs : (words == 2 ? ".v2" : ".v4") +
                                                      std::string(".b32 \t{") + regs + "}") + ", [%wl_a]");
        emit_.record(next_id_++, "@%wl_pc", load, sites_.current());
        text_.through(original);
        capture(address(m_, in, 0), Space::Shared);
        emit_.record(next_id_++, in.guard, store, sites_.current());
        count_ += 2;
        return true;
    }

    bool atomic(const Instruction& in, const Statement& original)
    {
        const SpaceOf space = space_of(in);
        const bool red = base_of(in) == "red";
        std::string op;
        for (std::string_view p : in.read.parts)
            if (kAtomicOps.count(std::string(p))) op = p;
        if (!space.traced || op.empty() || reader::vector_width(in.read) != 1) return false;
        const std::string type = type_of(in);
        const unsigned bytes = type_bytes(type);
        if (bytes == 0) return false;
        // red has no destination: run it as atom into a scratch register, so that the stored value is known.
        std::vector<std::string> ops = in.operands;
        if (red) ops.insert(ops.begin(), temp("o", bytes));
        if (ops.size() < 3) return false;
        const Address addr = address(m_, in, red ? 0 : 1);
        capture(addr, space.space);
        const std::string b = bit_type(bytes);
        emit_.line("mov." + b + " \t" + temp("x", bytes) + ", " + ops[2]);
        if (ops.size() > 3) emit_.line("mov." + b + " \t" + temp("y", bytes) + ", " + ops[3]);
        std::string opcode = in.opcode;
        if (red) opcode = "atom" + opcode.substr(3);
        std::string text = "\t" + (in.guard.empty() ? "" : in.guard + " ") + opcode + " \t";
        for (std::size_t k = 0; k < ops.size(); ++k) text += (k ? ", " : "") + ops[k];
        emit_.raw(text + ";");
        text_.drop(original);
        const bool old_is_sink = ops[0] == "_";
        emit_.line("mov." + b + " \t" + temp("o", bytes) + ", " + (old_is_sink ? "0" : ops[0]));
        atomic_result(emit_, op, type, bytes);
        Site s;
        s.kind = Kind::Atomic;
        s.space = space;
        s.size = bytes;
        s.has_address = true;
        s.values.push_back({0, b, temp("n", bytes)});
        emit_.record(next_id_++, in.guard, s, sites_.current());
        ++count_;
        return true;
    }

    bool barrier(const Instruction& in, const Statement& original)
    {
        Site s;
        if (has_part(in, "warp")) {
            s.kind = Kind::SyncWarp;
            s.change = StateChange::Collective;
        } else if (has_part(in, "sync") || has_part(in, "red")) {
            s.kind = Kind::SyncThreads;
            s.change = StateChange::Barrier;
        } else {
            return false;  // bar.arrive: no thread waits, nothing the trace shows
        }
        text_.through(original);
        emit_.record(next_id_++, in.guard, s, sites_.current());
        ++count_;
        return true;
    }

    // Shuffles, votes, match and redux: the lane's input, captured before the
    // instruction (its destination may be the same register).
    bool collective(const Instruction& in, const Statement& original, Kind kind)
    {
        if (!has_part(in, "sync") || in.operands.size() < 2) return false;
        Site s;
        s.change = StateChange::Collective;
        s.kind = kind;
        const std::string& input = in.operands[1];
        const std::string type = type_of(in);
        if (base_of(in) == "match") {  // the emulator passes match's input as 16 bytes
            s.size = 16;
            const unsigned bytes = type_bytes(type);
            emit_.line("mov." + bit_type(bytes) + " \t" + temp("x", bytes) + ", " + input);
            s.values.push_back({0, bit_type(bytes), temp("x", bytes)});
            text_.through(original);
            emit_.record(next_id_++, in.guard, s, sites_.current());
            ++count_;
            return true;
        }
        if (base_of(in) == "vote") {
            const bool negated = !input.empty() && input.front() == '!';
            emit_.line("selp.u32 \t%wl_x32, " + std::string(negated ? "0, 1, " : "1, 0, ") + input.substr(negated ? 1 : 0));
            s.size = 4;
        } else {
            s.size = type_bytes(type);
            emit_.line("mov." + bit_type(s.size) + " \t" + temp("x", s.size) + ", " + input);
        }
        s.values.push_back({0, bit_type(s.size), temp("x", s.size)});
        text_.through(original);
        emit_.record(next_id_++, in.guard, s, sites_.current());
        ++count_;
        return true;
    }

    const Module& m_;
    const Function& f_;
    SiteTracker sites_;
    std::size_t& next_id_;
    Output& text_;
    std::string& out_;
    Emitter emit_;
    RegisterWidths widths_;
    std::size_t count_ = 0;
    unsigned narrowest_shared_ = reader::kNoSharedAccess;
    bool located_ = false;  // a .loc seen
    std::optional<SourceSite> first_site_;
};

// The kernel's shared variables, as the interpreter's parser lists them (statements.h).
std::vector<SharedSymbol> kernel_shared(const Module& m, const std::vector<Function>& fns, const Function& kernel)
{
    std::vector<SharedSymbol> out;
    const reader::SharedUse use(m.tokens, m.statements, fns);
    for (const reader::SharedDeclaration& d : use.of(std::size_t(&kernel - fns.data())))
        out.push_back(SharedSymbol{std::string(d.name), d.dynamic});
    return out;
}

// The module-scope .global and .const variables, in the order the
// interpreter's parser declares them (parse.cpp, declare_module_var).
std::vector<ModuleVariable> module_variables(const Module& m, const std::vector<Function>& fns)
{
    std::vector<ModuleVariable> out;
    auto body = fns.begin();
    for (std::size_t k = 0; k < m.statements.size(); ++k) {
        while (body != fns.end() && body->close < k) ++body;
        if (body != fns.end() && body->header <= k) continue;  // inside a function
        const Statement& s = m.statements[k];
        if (s.kind != StatementKind::Directive || !reader::is_declaration(m.tokens, s)) continue;
        const reader::Declaration d = reader::read_declaration(m.tokens, Span{s.first, s.end});
        if (d.space != ".global" && d.space != ".const") continue;
        for (const reader::DeclaredName& n : d.names) out.push_back(ModuleVariable{std::string(n.name), d.space == ".const"});
    }
    return out;
}

}  // namespace

InstrumentedPtx instrument_ptx(std::string_view text, std::string_view entry)
{
    Module m;
    m.text = text;
    m.tokens = reader::tokenize(text);
    m.statements = reader::split_statements(m.tokens);
    std::optional<std::size_t> address_size;
    for (std::size_t k = 0; k < m.statements.size(); ++k) {
        const Statement& s = m.statements[k];
        if (s.kind != StatementKind::Directive) continue;
        if (auto file = reader::read_file_directive(m.tokens, s)) m.files[file->index] = file->path;
        if (!address_size && m.tokens[s.first].s == ".address_size") address_size = k;
    }
    const std::vector<Function> fns = find_functions(m);
    auto kernel = std::find_if(fns.begin(), fns.end(), [&](const Function& f) { return f.entry && f.name == entry; });
    if (kernel == fns.end()) {
        std::string names;
        for (const Function& f : fns)
            if (f.entry) names += (names.empty() ? "" : ", ") + std::string(f.name);
        throw std::invalid_argument("PTX has no kernel " + std::string(entry) + " (it has: " + names + ")");
    }
    if (!address_size) throw std::invalid_argument("PTX has no .address_size directive");
    InstrumentedPtx result;
    result.entry = std::string(entry);
    result.shared = kernel_shared(m, fns, *kernel);
    result.variables = module_variables(m, fns);

    std::string& out = result.text;
    out.reserve(text.size() * 2);
    Output copy(m, out);
    bool declared = false;
    auto declare_control = [&] {  // after the .address_size line
        copy.through(m.statements[*address_size]);
        out += ".global .align 8 .b8 " + std::string(kControlSymbol) + "[" +
               std::to_string(variables_offset(result.shared.size()) + 8 * result.variables.size()) + "];\n";
        declared = true;
    };
    std::size_t next_id = 0;
    for (const Function& f : fns) {
        if (!declared && *address_size < f.header) declare_control();
        if (f.entry && f.name != entry) {  // another kernel: left out
            copy.before(m.statements[f.header]);
            copy.drop(m.statements[f.close]);
            continue;
        }
        FunctionInstrumenter fi(m, f, next_id, copy, out);
        result.sites += fi.run(f.entry ? &result : nullptr);
        if (f.entry) result.narrowest_shared_access = fi.narrowest_shared();
        if (f.entry && fi.first_site()) result.declared_line = fi.first_site()->line, result.declared_file_hash = fi.first_site()->file_hash;
    }
    if (!declared) declare_control();
    copy.copy_to(text.size());
    return result;
}

}  // namespace wl::cuda::detail

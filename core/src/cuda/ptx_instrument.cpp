// The PTX instrumenter: one pass over the lines of nvcc's PTX.
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

#include "warplab/trace/record.h"

namespace wl::cuda::detail {
namespace {

using trace::Kind;
using trace::Space;

// ------------------------------------------------------------- text --

std::string_view trim(std::string_view s)
{
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

std::vector<std::string_view> split_lines(std::string_view text)
{
    std::vector<std::string_view> lines;
    while (!text.empty()) {
        const std::size_t nl = text.find('\n');
        lines.push_back(text.substr(0, nl));
        if (nl == std::string_view::npos) break;
        text.remove_prefix(nl + 1);
    }
    return lines;
}

std::string_view strip_comment(std::string_view line)
{
    const std::size_t c = line.find("//");
    return trim(c == std::string_view::npos ? line : line.substr(0, c));
}

bool starts_with_word(std::string_view s, std::string_view word)
{
    return s.substr(0, word.size()) == word &&
           (s.size() == word.size() || !(std::isalnum(static_cast<unsigned char>(s[word.size()])) || s[word.size()] == '_'));
}

bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%'; }

// Whether `name` occurs in `line` as a whole identifier.
bool mentions(std::string_view line, std::string_view name)
{
    for (std::size_t at = line.find(name); at != std::string_view::npos; at = line.find(name, at + 1)) {
        const bool left = at == 0 || !is_ident_char(line[at - 1]);
        const std::size_t end = at + name.size();
        const bool right = end == line.size() || !is_ident_char(line[end]);
        if (left && right) return true;
    }
    return false;
}

int brace_balance(std::string_view line)
{
    line = strip_comment(line);
    int d = 0;
    for (char c : line) d += c == '{' ? 1 : c == '}' ? -1 : 0;
    return d;
}

// Splits at top-level commas (not inside {} or []).
std::vector<std::string> split_operands(std::string_view s)
{
    std::vector<std::string> out;
    int depth = 0;
    std::string cur;
    for (char c : s) {
        if (c == '{' || c == '[') ++depth;
        if (c == '}' || c == ']') --depth;
        if (c == ',' && depth == 0) {
            out.emplace_back(trim(cur));
            cur.clear();
        } else {
            cur.push_back(c);
        }
    }
    if (!trim(cur).empty()) out.emplace_back(trim(cur));
    return out;
}

std::vector<std::string> split_dots(std::string_view opcode)
{
    std::vector<std::string> parts;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= opcode.size(); ++i)
        if (i == opcode.size() || opcode[i] == '.') {
            parts.emplace_back(opcode.substr(start, i - start));
            start = i + 1;
        }
    return parts;
}

// ------------------------------------------------------------ source sites --

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

struct LocPoint {
    int file = 0;
    unsigned line = 0, column = 0;
    auto operator<=>(const LocPoint&) const = default;
};

struct Loc {
    LocPoint at;
    std::optional<LocPoint> inlined_at;
};

// ".loc 3 440 9, function_name $L__info_string1, inlined_at 1 24 5"
std::optional<Loc> parse_loc(std::string_view line)
{
    line = strip_comment(line);
    if (!starts_with_word(line, ".loc")) return std::nullopt;
    auto point = [](std::string_view s) {
        LocPoint p;
        std::istringstream in{std::string(s)};
        in >> p.file >> p.line >> p.column;
        return p;
    };
    line.remove_prefix(4);
    Loc loc;
    const std::size_t comma = line.find(',');
    loc.at = point(line.substr(0, comma));
    const std::size_t in = line.find("inlined_at");
    if (in != std::string_view::npos) loc.inlined_at = point(line.substr(in + 10));
    return loc;
}

// ".file 1 "/path/k.cu"" or ".file 1 "k.cu", 1700000000, 1234"
std::map<int, std::string> file_table(const std::vector<std::string_view>& lines)
{
    std::map<int, std::string> files;
    for (std::string_view raw : lines) {
        std::string_view line = trim(raw);
        if (!starts_with_word(line, ".file")) continue;
        line.remove_prefix(5);
        const std::size_t q1 = line.find('"'), q2 = line.find('"', q1 + 1);
        if (q1 == std::string_view::npos || q2 == std::string_view::npos) continue;
        files[std::stoi(std::string(trim(line.substr(0, q1))))] = std::string(line.substr(q1 + 1, q2 - q1 - 1));
    }
    return files;
}

struct SourceSite {
    std::uint32_t line = 0;
    std::uint32_t file_hash = trace::file_hash("");
};

// Follows `.loc`s in program order and answers, for the current point, the
// location the interpreter gives the instruction (the parser's rule): of the
// `.loc`'s whole chain of inlined callers, innermost first, the first frame in a
// file that is not a CUDA toolkit header; the outermost when all are. nvcc names
// one caller a `.loc`; that caller's own callers are those of the `.loc` that
// last had it innermost (cooperative groups inline header into header).
class SiteTracker {
public:
    explicit SiteTracker(const std::map<int, std::string>& files) : files_(files) {}

    void start_function() { frames_.clear(); }

    void see(const Loc& loc)
    {
        std::vector<Frame> chain{{loc.at.file, loc.at.line}};
        if (loc.inlined_at) {
            const Frame caller{loc.inlined_at->file, loc.inlined_at->line};
            if (auto known = frames_.find(caller); known != frames_.end())
                chain.insert(chain.end(), known->second.begin(), known->second.end());
            else
                chain.push_back(caller);
        }
        frames_[chain.front()] = chain;
        Frame pick = chain.back();
        for (const Frame& f : chain)
            if (!toolkit(f.first)) {
                pick = f;
                break;
            }
        auto it = files_.find(pick.first);
        current_ = SourceSite{pick.second, trace::file_hash(it == files_.end() ? "" : it->second.c_str())};
    }
    SourceSite current() const { return current_; }

private:
    using Frame = std::pair<int, unsigned>;  // (file, line)
    bool toolkit(int file) const
    {
        auto it = files_.find(file);
        return it != files_.end() && is_toolkit_path(it->second);
    }
    const std::map<int, std::string>& files_;
    std::map<Frame, std::vector<Frame>> frames_;  // this function's: a frame's chain out to the kernel
    SourceSite current_;
};

// ------------------------------------------------------------ functions --

struct Function {
    bool entry = false;
    std::string name;
    std::size_t header = 0;  // first line of the declaration
    std::size_t open = 0;    // the line with the body's '{'
    std::size_t close = 0;   // the line with the body's matching '}'
};

std::string function_name(std::string_view decl, bool entry)
{
    std::size_t at = decl.find(entry ? ".entry" : ".func");
    std::string_view rest = trim(decl.substr(at + (entry ? 6 : 5)));
    if (!entry && !rest.empty() && rest.front() == '(') {  // return parameters
        int depth = 0;
        std::size_t i = 0;
        for (; i < rest.size(); ++i) {
            depth += rest[i] == '(' ? 1 : rest[i] == ')' ? -1 : 0;
            if (depth == 0) break;
        }
        rest = trim(rest.substr(i + 1));
    }
    std::size_t end = 0;
    while (end < rest.size() && rest[end] != '(' && rest[end] != ';' && !std::isspace(static_cast<unsigned char>(rest[end])))
        ++end;
    return std::string(rest.substr(0, end));
}

std::vector<Function> find_functions(const std::vector<std::string_view>& lines)
{
    std::vector<Function> out;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string_view code = strip_comment(lines[i]);
        const bool entry = contains(code, ".entry") && !contains(code, ".callprototype");
        const bool func = !entry && (starts_with_word(code, ".func") || contains(code, " .func"));
        if (!entry && !func) continue;
        Function f;
        f.entry = entry;
        f.header = i;
        f.name = function_name(code, entry);
        // The body opens at the first '{' at parameter depth 0; a ';' first means a declaration only.
        std::size_t j = i;
        int parens = 0;
        bool body = false;
        for (; j < lines.size(); ++j) {
            const std::string_view l = strip_comment(lines[j]);
            bool stop = false;
            for (char c : l) {
                parens += c == '(' ? 1 : c == ')' ? -1 : 0;
                if (parens == 0 && (c == '{' || c == ';')) {
                    body = c == '{';
                    stop = true;
                    break;
                }
            }
            if (stop) break;
        }
        if (!body) {
            i = j;
            continue;
        }
        f.open = j;
        int depth = 0;
        std::size_t k = j;
        for (; k < lines.size(); ++k) {
            depth += brace_balance(lines[k]);
            if (depth == 0) break;
        }
        if (k == lines.size()) throw std::invalid_argument("PTX: the body of " + f.name + " never closes");
        f.close = k;
        out.push_back(f);
        i = k;
    }
    return out;
}

// ".shared .align 4 .b8 _ZZ...E5sdata[1024];" -> the variable's name; dynamic when "[]".
std::optional<SharedSymbol> shared_declaration(std::string_view line)
{
    line = strip_comment(line);
    const bool is_extern = starts_with_word(line, ".extern");
    if (is_extern) line = trim(line.substr(7));
    if (!starts_with_word(line, ".shared")) return std::nullopt;
    std::size_t end = line.find_first_of("[;=");
    if (end == std::string_view::npos) return std::nullopt;
    std::string_view head = trim(line.substr(0, end));
    const std::size_t space = head.find_last_of(" \t");
    SharedSymbol s;
    s.ptx_name = std::string(head.substr(space + 1));
    s.dynamic = is_extern || line.substr(end, 2) == "[]";
    return s;
}

// Register widths in bits, from a function's `.reg` lines ("%r<17>" declares %r0..%r16).
class RegisterWidths {
public:
    void see(std::string_view line)
    {
        line = strip_comment(line);
        if (!starts_with_word(line, ".reg")) return;
        line = trim(line.substr(4));
        const std::size_t sp = line.find_first_of(" \t");
        if (sp == std::string_view::npos) return;
        const unsigned bits = type_bits(line.substr(1, sp - 1));
        std::string_view names = trim(line.substr(sp));
        if (!names.empty() && names.back() == ';') names.remove_suffix(1);
        for (const std::string& n : split_operands(names)) {
            const std::size_t lt = n.find('<');
            if (lt == std::string::npos) exact_[n] = bits;
            else prefix_[n.substr(0, lt)] = bits;
        }
    }
    unsigned bits(const std::string& reg) const
    {
        if (auto it = exact_.find(reg); it != exact_.end()) return it->second;
        std::string p = reg;
        while (!p.empty() && std::isdigit(static_cast<unsigned char>(p.back()))) p.pop_back();
        if (auto it = prefix_.find(p); it != prefix_.end()) return it->second;
        return 64;
    }
    static unsigned type_bits(std::string_view t)
    {
        if (t == "pred") return 1;
        if (t.ends_with("x2")) return 32;
        unsigned n = 0;
        for (char c : t)
            if (std::isdigit(static_cast<unsigned char>(c))) n = n * 10 + unsigned(c - '0');
        return n ? n : 32;
    }

private:
    std::map<std::string, unsigned> exact_, prefix_;
};

// ------------------------------------------------------------ instructions --

struct Instruction {
    std::string guard;  // "@%p1", "@!%p1" or ""
    std::string opcode;
    std::vector<std::string> parts;  // opcode split at '.'
    std::vector<std::string> operands;
};

std::optional<Instruction> parse_instruction(std::string_view line)
{
    line = strip_comment(line);
    if (line.empty() || line.front() == '.' || line.front() == '{' || line.front() == '}' || line.back() != ';')
        return std::nullopt;
    if (line.find(':') != std::string_view::npos && line.front() == '$') return std::nullopt;  // label
    Instruction in;
    if (line.front() == '@') {
        const std::size_t sp = line.find_first_of(" \t");
        in.guard = std::string(line.substr(0, sp));
        line = trim(line.substr(sp));
    }
    const std::size_t sp = line.find_first_of(" \t;");
    in.opcode = std::string(line.substr(0, sp));
    in.parts = split_dots(in.opcode);
    std::string_view ops = trim(line.substr(sp));
    if (!ops.empty() && ops.back() == ';') ops.remove_suffix(1);
    in.operands = split_operands(ops);
    return in;
}

bool has_part(const Instruction& in, std::string_view p)
{
    return std::find(in.parts.begin(), in.parts.end(), p) != in.parts.end();
}

unsigned type_bytes(std::string_view t)
{
    if (t == "b128") return 16;
    return std::max(1u, RegisterWidths::type_bits(t) / 8);
}

// The memory space of a load/store/atomic: Global, Shared, None for generic;
// nullopt for spaces that are not traced (param, local, const, cluster).
struct SpaceOf {
    bool traced = true;
    bool generic = false;
    Space space = Space::None;
};
SpaceOf space_of(const Instruction& in)
{
    for (const std::string& p : in.parts) {
        if (p == "global") return {true, false, Space::Global};
        if (p == "shared" || p == "shared::cta") return {true, false, Space::Shared};
        if (p.starts_with("shared::") || p.starts_with("param") || p == "local" || p == "const") return {false, false, Space::None};
    }
    return {true, true, Space::None};
}

unsigned vector_width(const Instruction& in)
{
    for (const std::string& p : in.parts)
        if (p == "v2") return 2;
        else if (p == "v4") return 4;
        else if (p == "v8") return 8;
    return 1;
}

std::vector<std::string> vector_elements(const std::string& op)
{
    if (op.empty() || op.front() != '{') return {op};
    return split_operands(std::string_view(op).substr(1, op.size() - 2));
}

struct Address {
    std::string base;   // register or symbol
    long long offset = 0;
    bool reg = false;
};
Address parse_address(std::string_view op)
{
    op = trim(op);
    if (op.size() < 2 || op.front() != '[') throw std::invalid_argument("PTX: expected an address, got " + std::string(op));
    op = trim(op.substr(1, op.size() - 2));
    Address a;
    const std::size_t plus = op.find('+');
    a.base = std::string(trim(op.substr(0, plus)));
    if (plus != std::string_view::npos) a.offset = std::stoll(std::string(trim(op.substr(plus + 1))), nullptr, 0);
    a.reg = !a.base.empty() && a.base.front() == '%';
    return a;
}

// ------------------------------------------------------------ emitting --

// Registers the generated code uses; declared once per instrumented function.
constexpr const char* kRegisterDeclarations =
    "\t.reg .pred \t%wl_on, %wl_g, %wl_full, %wl_ps, %wl_pg, %wl_q, %wl_pc;\n"
    "\t.reg .b32 \t%wl_thr, %wl_blk, %wl_cap, %wl_seq, %wl_ep, %wl_sub, %wl_pad, %wl_idx, %wl_word, %wl_t<8>;\n"
    "\t.reg .b64 \t%wl_ctl, %wl_st, %wl_recs, %wl_rec, %wl_a, %wl_d<4>;\n"
    "\t.reg .b16 \t%wl_h<4>;\n"
    "\t.reg .b32 \t%wl_x32, %wl_y32, %wl_o32, %wl_n32, %wl_c<4>;\n"
    "\t.reg .b64 \t%wl_x64, %wl_y64, %wl_o64, %wl_n64;\n"
    "\t.reg .b16 \t%wl_x16, %wl_y16, %wl_o16, %wl_n16;\n";

// The control block through %wl_ctl, which the prologue loads with its address.
std::string control(unsigned offset) { return "%wl_ctl+" + std::to_string(offset); }

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

// Thread 0 of a watched block writes each shared variable's window address.
std::string shared_bases(const std::vector<SharedSymbol>& shared)
{
    std::ostringstream o;
    o << "\tsetp.eq.and.u32 \t%wl_q, %wl_thr, 0, %wl_on;\n";
    for (std::size_t k = 0; k < shared.size(); ++k)
        o << "\t@%wl_q mov.u32 \t%wl_t0, " << shared[k].ptx_name << ";\n"
          << "\t@%wl_q st.global.u32 \t[" << control(unsigned(sizeof(Control) + 4 * k)) << "], %wl_t0;\n";
    return o.str();
}

enum class StateChange { Access, Barrier, Collective };

struct ValueStore {
    unsigned offset;   // within the record's value bytes
    std::string type;  // st.global.<type>
    std::string operand;
};

struct Site {
    Kind kind = Kind::Load;
    SpaceOf space;
    unsigned size = 0;
    bool has_address = false;
    std::vector<ValueStore> values;
    StateChange change = StateChange::Access;
};

std::uint32_t record_word(Kind k, Space s, unsigned size)
{
    return std::uint32_t(k) | std::uint32_t(s) << 8 | std::uint32_t(size) << 16;
}

class Emitter {
public:
    explicit Emitter(std::string& out) : out_(out) {}

    // Code that captures the address into %wl_a before the instruction runs
    // (its destination may overwrite the address register).
    void capture_address(const Address& a, const RegisterWidths& widths, Space space)
    {
        if (a.reg) {
            if (widths.bits(a.base) == 32) line("cvt.u64.u32 \t%wl_a, " + a.base);
            else line("mov.b64 \t%wl_a, " + a.base);
        } else if (space == Space::Shared) {
            line("mov.u32 \t%wl_t0, " + a.base);
            line("cvt.u64.u32 \t%wl_a, %wl_t0");
        } else {
            line("mov.u64 \t%wl_a, " + a.base);
        }
        if (a.offset) line("add.s64 \t%wl_a, %wl_a, " + std::to_string(a.offset));
    }

    // The record itself, after the instruction.
    void record(std::size_t id, const std::string& guard, const Site& s, SourceSite where)
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

const std::set<std::string> kAtomicOps{"add", "min", "max", "and", "or", "xor", "exch", "cas", "inc", "dec"};

// Rewrites one function body (lines open+1 .. close-1), appending to `out`.
class FunctionInstrumenter {
public:
    FunctionInstrumenter(const std::vector<std::string_view>& lines, const Function& f, SiteTracker& sites,
                         std::size_t& next_id, std::string& out)
        : lines_(lines), f_(f), sites_(sites), next_id_(next_id), out_(out), emit_(out)
    {
        sites_.start_function();
        for (std::size_t i = f.open; i <= f.close; ++i) widths_.see(lines[i]);
    }

    // The narrowest explicitly .shared access seen (16 when none).
    unsigned narrowest_shared() const { return narrowest_shared_; }

    std::size_t run(const std::vector<SharedSymbol>* entry_shared)
    {
        emit_.raw(lines_[f_.open]);
        out_ += kRegisterDeclarations;
        out_ += prologue();
        if (entry_shared) {
            // After the function's own declarations, so that demoted shared variables are declared.
            std::size_t i = f_.open + 1;
            for (; i < f_.close; ++i) {
                const std::string_view code = strip_comment(lines_[i]);
                if (!code.empty() && code.front() != '.') break;
                if (starts_with_word(code, ".loc")) {
                    if (auto loc = parse_loc(code)) sites_.see(*loc);
                }
                emit_.raw(lines_[i]);
            }
            out_ += shared_bases(*entry_shared);
            body(i);
        } else {
            body(f_.open + 1);
        }
        emit_.raw(lines_[f_.close]);
        return count_;
    }

private:
    void body(std::size_t from)
    {
        for (std::size_t i = from; i < f_.close; ++i) {
            const std::string_view l = lines_[i];
            if (auto loc = parse_loc(l)) {
                sites_.see(*loc);
                emit_.raw(l);
                continue;
            }
            auto in = parse_instruction(l);
            if (!in || !instrument(*in, l)) emit_.raw(l);
        }
    }

    bool instrument(Instruction& in, std::string_view original)
    {
        const std::string& base = in.parts[0];
        if (base == "ld" || base == "ldu") return memory(in, original, Kind::Load);
        if (base == "st") return memory(in, original, Kind::Store);
        if (base == "cp" && has_part(in, "async") && has_part(in, "shared") && has_part(in, "global") &&
            (has_part(in, "ca") || has_part(in, "cg")))
            return copy(in, original);
        if (base == "atom" || base == "red") return atomic(in);
        if (base == "bar" || base == "barrier") return barrier(in, original);
        if (base == "shfl" || base == "vote" || base == "match" || base == "redux") return collective(in, original);
        return false;
    }

    bool memory(const Instruction& in, std::string_view original, Kind kind)
    {
        const SpaceOf space = space_of(in);
        if (!space.traced || in.operands.size() < 2) return false;
        const std::string& type = in.parts.back();
        const unsigned elem = type_bytes(type), width = vector_width(in);
        const Address addr = parse_address(in.operands[kind == Kind::Load ? 1 : 0]);
        if (!space.generic && space.space == Space::Shared) narrowest_shared_ = std::min(narrowest_shared_, elem);
        Site s;
        s.kind = kind;
        s.space = space;
        s.size = elem * width;
        s.has_address = true;
        const auto elements = vector_elements(in.operands[kind == Kind::Load ? 0 : 1]);
        for (std::size_t k = 0; k < elements.size(); ++k)
            if (elements[k] != "_") s.values.push_back({unsigned(k * elem), type, elements[k]});
        emit_.capture_address(addr, widths_, space.space);
        emit_.raw(original);
        emit_.record(next_id_++, in.guard, s, sites_.current());
        ++count_;
        return true;
    }

    // cp.async.{ca,cg}.shared.global [dst], [src], cp-size{, src-size}: as
    // the emulator records it, a global load of the source's bytes (none when
    // src-size is 0), then a shared store of cp-size bytes (zeros past the
    // source). The bytes are read here by an ordinary load, for the record:
    // the copy itself lands later. A src-size strictly between 0 and cp-size
    // is recorded as a whole copy (warplab's kernels use 0 or cp-size).
    bool copy(const Instruction& in, std::string_view original)
    {
        if (in.operands.size() < 3) return false;
        const unsigned size = unsigned(std::stoul(in.operands[2], nullptr, 0));
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
        narrowest_shared_ = std::min(narrowest_shared_, size);

        // %wl_pc: this lane copies bytes from global memory.
        emit_.line(in.operands.size() > 3 ? "setp.ne.u32 \t%wl_pc, " + in.operands[3] + ", 0" : "setp.eq.u32 \t%wl_pc, 0, 0");
        if (!in.guard.empty()) {
            const bool negated = in.guard.size() > 1 && in.guard[1] == '!';
            emit_.line("and.pred \t%wl_pc, %wl_pc, " + std::string(negated ? "!" : "") + in.guard.substr(negated ? 2 : 1));
        }
        for (unsigned w = 0; w < words; ++w) emit_.line("mov.b32 \t%wl_c" + std::to_string(w) + ", 0");
        emit_.capture_address(parse_address(in.operands[1]), widths_, Space::Global);
        std::string regs = "%wl_c0";
        for (unsigned w = 1; w < words; ++w) regs += ", %wl_c" + std::to_string(w);
        emit_.line("@%wl_pc ld.global" + std::string(words == 1 ? ".b32 \t" + regs : (words == 2 ? ".v2" : ".v4") +
                                                      std::string(".b32 \t{") + regs + "}") + ", [%wl_a]");
        emit_.record(next_id_++, "@%wl_pc", load, sites_.current());
        emit_.raw(original);
        emit_.capture_address(parse_address(in.operands[0]), widths_, Space::Shared);
        emit_.record(next_id_++, in.guard, store, sites_.current());
        count_ += 2;
        return true;
    }

    bool atomic(Instruction& in)
    {
        const SpaceOf space = space_of(in);
        const bool red = in.parts[0] == "red";
        std::string op;
        for (const std::string& p : in.parts)
            if (kAtomicOps.count(p)) op = p;
        if (!space.traced || op.empty() || vector_width(in) != 1) return false;
        const std::string type = in.parts.back();
        const unsigned bytes = type_bytes(type);
        if (!space.generic && space.space == Space::Shared) narrowest_shared_ = std::min(narrowest_shared_, bytes);
        // red has no destination: run it as atom into a scratch register, so that the stored value is known.
        std::vector<std::string> ops = in.operands;
        if (red) ops.insert(ops.begin(), temp("o", bytes));
        if (ops.size() < 3) return false;
        const Address addr = parse_address(ops[1]);
        emit_.capture_address(addr, widths_, space.space);
        const std::string b = bit_type(bytes);
        emit_.line("mov." + b + " \t" + temp("x", bytes) + ", " + ops[2]);
        if (ops.size() > 3) emit_.line("mov." + b + " \t" + temp("y", bytes) + ", " + ops[3]);
        std::string opcode = in.opcode;
        if (red) opcode = "atom" + opcode.substr(3);
        std::string text = "\t" + (in.guard.empty() ? "" : in.guard + " ") + opcode + " \t";
        for (std::size_t k = 0; k < ops.size(); ++k) text += (k ? ", " : "") + ops[k];
        emit_.raw(text + ";");
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

    bool barrier(const Instruction& in, std::string_view original)
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
        emit_.raw(original);
        emit_.record(next_id_++, in.guard, s, sites_.current());
        ++count_;
        return true;
    }

    // Shuffles, votes, match and redux: the lane's input, captured before the
    // instruction (its destination may be the same register).
    bool collective(const Instruction& in, std::string_view original)
    {
        if (!has_part(in, "sync") || in.operands.size() < 2) return false;
        Site s;
        s.change = StateChange::Collective;
        s.kind = in.parts[0] == "shfl" ? Kind::Shuffle : Kind::Vote;
        const std::string& input = in.operands[1];
        const std::string& type = in.parts.back();
        if (in.parts[0] == "match") {  // the emulator passes match's input as 16 bytes
            s.size = 16;
            const unsigned bytes = type_bytes(type);
            emit_.line("mov." + bit_type(bytes) + " \t" + temp("x", bytes) + ", " + input);
            s.values.push_back({0, bit_type(bytes), temp("x", bytes)});
            emit_.raw(original);
            emit_.record(next_id_++, in.guard, s, sites_.current());
            ++count_;
            return true;
        }
        if (in.parts[0] == "vote") {
            const bool negated = !input.empty() && input.front() == '!';
            emit_.line("selp.u32 \t%wl_x32, " + std::string(negated ? "0, 1, " : "1, 0, ") + input.substr(negated ? 1 : 0));
            s.size = 4;
        } else {
            s.size = type_bytes(type);
            emit_.line("mov." + bit_type(s.size) + " \t" + temp("x", s.size) + ", " + input);
        }
        s.values.push_back({0, bit_type(s.size), temp("x", s.size)});
        emit_.raw(original);
        emit_.record(next_id_++, in.guard, s, sites_.current());
        ++count_;
        return true;
    }

    const std::vector<std::string_view>& lines_;
    const Function& f_;
    SiteTracker& sites_;
    std::size_t& next_id_;
    std::string& out_;
    Emitter emit_;
    RegisterWidths widths_;
    std::size_t count_ = 0;
    unsigned narrowest_shared_ = 16;
};

// The kernel's shared variables in declaration order: module-scope ones it
// (or a .func) mentions, then its own.
std::vector<SharedSymbol> kernel_shared(const std::vector<std::string_view>& lines, const std::vector<Function>& fns,
                                        const Function& kernel)
{
    auto inside = [&](std::size_t i) {
        return std::any_of(fns.begin(), fns.end(), [&](const Function& f) { return i >= f.header && i <= f.close; });
    };
    auto used = [&](const std::string& name) {
        for (const Function& f : fns) {
            if (f.entry && &f != &kernel) continue;
            for (std::size_t i = f.open; i <= f.close; ++i)
                if (mentions(lines[i], name)) return true;
        }
        return false;
    };
    std::vector<SharedSymbol> out;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (inside(i) && !(i > kernel.open && i < kernel.close)) continue;
        auto s = shared_declaration(lines[i]);
        if (!s) continue;
        if (inside(i) || used(s->ptx_name)) out.push_back(*s);
    }
    return out;
}

}  // namespace

bool is_toolkit_path(std::string_view path)
{
    return contains(path, "/targets/") || contains(path, "/crt/") || (contains(path, "cuda") && contains(path, "/include/"));
}

InstrumentedPtx instrument_ptx(std::string_view ptx, std::string_view entry)
{
    const std::vector<std::string_view> lines = split_lines(ptx);
    const std::vector<Function> fns = find_functions(lines);
    auto kernel = std::find_if(fns.begin(), fns.end(), [&](const Function& f) { return f.entry && f.name == entry; });
    if (kernel == fns.end()) {
        std::string names;
        for (const Function& f : fns)
            if (f.entry) names += (names.empty() ? "" : ", ") + f.name;
        throw std::invalid_argument("PTX has no kernel " + std::string(entry) + " (it has: " + names + ")");
    }
    InstrumentedPtx result;
    result.entry = std::string(entry);
    result.shared = kernel_shared(lines, fns, *kernel);
    const std::map<int, std::string> files = file_table(lines);

    std::string& out = result.text;
    out.reserve(ptx.size() * 2);
    std::size_t next_id = 0;
    std::size_t i = 0;
    bool declared = false;
    for (const Function& f : fns) {
        for (; i < f.header; ++i) {
            out.append(lines[i]).push_back('\n');
            if (!declared && starts_with_word(trim(lines[i]), ".address_size")) {
                out += ".global .align 8 .b8 " + std::string(kControlSymbol) + "[" +
                       std::to_string(sizeof(Control) + 4 * std::max<std::size_t>(1, result.shared.size())) + "];\n";
                declared = true;
            }
        }
        if (f.entry && f.name != entry) {  // another kernel: left out
            i = f.close + 1;
            continue;
        }
        for (; i < f.open; ++i) out.append(lines[i]).push_back('\n');
        SiteTracker sites(files);
        FunctionInstrumenter fi(lines, f, sites, next_id, out);
        result.sites += fi.run(f.entry ? &result.shared : nullptr);
        if (f.entry) result.narrowest_shared_access = fi.narrowest_shared();
        i = f.close + 1;
    }
    for (; i < lines.size(); ++i) out.append(lines[i]).push_back('\n');
    if (!declared) throw std::invalid_argument("PTX has no .address_size directive");
    return result;
}

}  // namespace wl::cuda::detail

// PTX text -> Module::Impl: a tokenizer and a statement parser. Each
// instruction's opcode is decoded (decode.cpp) as it is read; the module is
// lowered for the interpreter (lower.cpp) once the last token is read.
// Over 600 lines: it is one parser object whose state (registers, labels,
// shared and module variables, locations) runs across every statement of a
// function; the reading of text (statements.cpp), decoding and lowering are
// already out of it.
#include <cxxabi.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <optional>
#include <set>
#include <unordered_map>

#include "lower.h"
#include "warplab/ptx/cuda_source.h"

namespace wl::ptx {
namespace detail {

namespace {

// ------------------------------------------------------------- parser --

struct RawLoc {
    std::vector<SourceFrame> chain;  // innermost first
};

class Parser {
public:
    Parser(Module::Impl& m, std::string_view origin) : m_(m), origin_(origin) {}

    void run()
    {
        toks_ = tokenize(m_.text);
        stmts_ = split_statements(toks_);
        bodies_ = function_bodies(toks_, stmts_);
        while (k_ < stmts_.size()) module_statement();
        finish();
    }

private:
    Module::Impl& m_;
    std::string_view origin_;
    std::vector<Token> toks_;
    std::vector<Statement> stmts_;
    std::vector<FunctionBody> bodies_;
    std::map<const char*, std::uint32_t> shared_ids_;  // a .shared name's declaring token -> its id
    std::size_t k_ = 0;               // the statement being lowered
    std::size_t p_ = 0, end_ = 0;     // the tokens being read: [p_, end_) of it
    std::vector<RawLoc> raw_locs_{RawLoc{}};
    std::map<std::vector<SourceFrame>, std::uint32_t> loc_ids_;
    std::map<std::uint32_t, std::string> file_paths_;
    std::unordered_map<std::string, std::uint32_t> texts_;
    std::map<std::string, std::uint32_t, std::less<>> module_shared_;  // ptx name -> shared id
    std::map<std::string, std::uintptr_t, std::less<>> module_vars_;   // .global/.const -> host address

    // Function under construction.
    Function* f_ = nullptr;
    std::vector<std::unordered_map<std::string, Operand>> scopes_;
    std::unordered_map<std::string, std::uint32_t> labels_;
    std::vector<std::pair<std::uint32_t, std::string>> fixups_;  // instruction index, label
    std::uint32_t cur_loc_ = 0;
    CallerChains callers_;  // this function's
    std::set<std::string> prototypes_;
    std::vector<std::pair<std::uint32_t, std::string>> call_fixups_;  // per module: (function, instruction), callee

    // ---- token helpers, within the tokens being read
    void read(Span s) { p_ = s.first; end_ = s.end; }
    void read(const Statement& s) { read(Span{s.first, s.end}); }
    bool at_end() const { return p_ >= end_; }
    std::string_view peek(std::size_t k = 0) const { return p_ + k < end_ ? toks_[p_ + k].s : std::string_view{}; }
    std::uint32_t line() const { return p_ < toks_.size() ? toks_[p_].line : (toks_.empty() ? 0 : toks_.back().line); }
    std::string_view next()
    {
        if (at_end()) fail("unexpected end of the PTX");
        return toks_[p_++].s;
    }
    bool accept(std::string_view s)
    {
        if (peek() == s) { ++p_; return true; }
        return false;
    }
    void expect(std::string_view s)
    {
        if (!accept(s)) fail("expected '" + std::string(s) + "' but found '" + std::string(peek()) + "'");
    }
    void expect_end()
    {
        if (!at_end()) fail("unexpected '" + std::string(peek()) + "'");
    }
    [[noreturn]] void fail(const std::string& what) const
    {
        const std::uint32_t l = line();
        std::string_view text = m_.text;
        std::size_t b = 0;
        for (std::uint32_t k = 1; k < l && b != std::string_view::npos; ++k) b = text.find('\n', b) == std::string_view::npos ? std::string_view::npos : text.find('\n', b) + 1;
        std::string src;
        if (b != std::string_view::npos) {
            const std::size_t e = text.find('\n', b);
            src = std::string(text.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b));
            const auto first = src.find_first_not_of(" \t");
            src = first == std::string::npos ? "" : src.substr(first);
        }
        throw ParseError(std::string(origin_) + ": PTX line " + std::to_string(l) + ": " + what + ": " + src);
    }
    std::int64_t integer(std::string_view s) const
    {
        const auto v = parse_integer(s);
        if (!v) fail("bad number '" + std::string(s) + "'");
        return *v;
    }
    // An immediate as raw bits: 0fXXXXXXXX (f32), 0dXXXXXXXXXXXXXXXX (f64), integers.
    std::int64_t immediate(std::string_view s, bool negative) const
    {
        if (s.size() > 2 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F' || s[1] == 'd' || s[1] == 'D')) {
            std::uint64_t v = 0;
            auto r = std::from_chars(s.data() + 2, s.data() + s.size(), v, 16);
            if (r.ec != std::errc{}) fail("bad float immediate '" + std::string(s) + "'");
            if (negative) v ^= (s[1] == 'f' || s[1] == 'F') ? 0x80000000ULL : 0x8000000000000000ULL;
            return static_cast<std::int64_t>(v);
        }
        if (s.find('.') != std::string_view::npos) {  // a decimal float: kept as double bits
            double d = std::strtod(std::string(s).c_str(), nullptr);
            if (negative) d = -d;
            std::int64_t bits;
            std::memcpy(&bits, &d, 8);
            return bits;
        }
        const std::int64_t v = integer(s);
        return negative ? -v : v;
    }

    // ---- module level
    void module_statement()
    {
        const Statement& s = stmts_[k_];
        read(s);
        const std::string_view t = peek();
        if (s.kind == StatementKind::Directive) {
            if (t == ".version" || t == ".target" || t == ".address_size" || t == ".section" || t == ".pragma") {
                ++k_;
                return;
            }
            if (t == ".file") {
                const auto file = read_file_directive(toks_, s);
                if (!file) fail("a .file without an index and a path");
                file_paths_[file->index] = file->path;
                ++k_;
                return;
            }
            if (is_function_header(toks_, s)) { function(); return; }
            if (is_declaration(toks_, s)) {
                const Declaration d = read_declaration(toks_, Span{s.first, s.end});
                if (d.space == ".global" || d.space == ".shared" || d.space == ".const" || d.space == ".local") {
                    variable(d);
                    ++k_;
                    return;
                }
            }
        }
        fail("unexpected '" + std::string(t) + "' at module level");
    }

    // .reg/.shared/.local/.global/.const/.param declarations: registers their names.
    void variable(const Declaration& d)
    {
        if (!d.unknown.empty()) fail("unknown qualifier '" + std::string(d.unknown) + "' in a declaration");
        if (d.names.empty()) fail("a declaration without a name");
        for (const DeclaredName& n : d.names) {
            const std::string name(n.name);
            if (n.registers) {  // %r<16>: registers %r0 .. %r15
                for (std::uint32_t k = 0; k < n.registers; ++k) declare_register(name + std::to_string(k), d.ty);
                continue;
            }
            std::vector<std::int64_t> init;
            if (!n.initialiser.empty()) {
                read(n.initialiser);
                initialiser(init);
                expect_end();
            }
            const std::uint64_t bytes = declared_bytes(d, n);
            const unsigned align = declared_align(d);
            const std::string_view space = d.space;
            if (space == ".reg") declare_register(name, d.ty);
            else if (space == ".shared") {
                shared_ids_[n.name.data()] = static_cast<std::uint32_t>(m_.shared.size());
                declare_shared(name, bytes, align, dynamic_shared(d, n));
            }
            else if (space == ".local") declare_local(name, bytes, align);
            else if (space == ".param") declare_call_param(name, bytes, align);
            else if (space == ".global" || space == ".const") declare_module_var(name, space == ".const" ? Space::Const : Space::Global, bytes, d.ty, init);
            else fail("unknown state space '" + std::string(space) + "'");
        }
    }

    void initialiser(std::vector<std::int64_t>& out)
    {
        if (accept("{")) {
            do {
                if (peek() == "{") initialiser(out);
                else out.push_back(scalar_initialiser());
            } while (accept(","));
            expect("}");
        } else {
            out.push_back(scalar_initialiser());
        }
    }
    std::int64_t scalar_initialiser()
    {
        const bool neg = accept("-");
        const std::string_view t = next();
        if (!t.empty() && (std::isdigit(static_cast<unsigned char>(t[0])))) return immediate(t, neg);
        // generic(sym) / sym: the address of another module variable
        if (t == "generic") { expect("("); const std::string_view s = next(); expect(")"); return symbol_address(s); }
        return symbol_address(t);
    }
    std::int64_t symbol_address(std::string_view s)
    {
        if (auto it = module_vars_.find(s); it != module_vars_.end()) return static_cast<std::int64_t>(it->second);
        // a function declared above it (nvcc declares each one a vtable or a table of pointers names)
        if (auto it = m_.function_ids.find(s); it != m_.function_ids.end()) return static_cast<std::int64_t>(kFunctionTag | it->second);
        fail("unknown symbol '" + std::string(s) + "' in an initialiser");
    }

    void declare_register(const std::string& name, Ty ty)
    {
        Operand o;
        o.kind = OpKind::Reg;
        o.reg = f_->registers++;
        f_->register_types.resize(f_->registers, Ty::None);
        f_->register_types[o.reg] = ty;
        scopes_.back()[name] = o;
    }

    void declare_shared(const std::string& name, std::uint64_t bytes, unsigned align, bool dynamic)
    {
        SharedVar v;
        v.ptx_name = name;
        v.name = source_name(name);
        v.bytes = bytes;
        v.align = std::max(1u, align);
        v.dynamic = dynamic;
        const auto id = static_cast<std::uint32_t>(m_.shared.size());
        m_.shared.push_back(v);
        if (f_) {
            Operand o;
            o.kind = OpKind::SharedSym;
            o.reg = id;
            scopes_.back()[name] = o;
        } else {
            module_shared_[name] = id;
        }
    }

    void declare_local(const std::string& name, std::uint64_t bytes, unsigned align)
    {
        if (!f_) fail(".local variables at module scope are not supported");
        align = std::max(1u, align);
        f_->local_bytes = (f_->local_bytes + align - 1) / align * align;
        Operand o;
        o.kind = OpKind::LocalSym;
        o.imm = f_->local_bytes;
        f_->local_bytes += static_cast<std::uint32_t>(bytes);
        scopes_.back()[name] = o;
    }

    std::uint32_t param_space(std::uint64_t bytes, unsigned align)
    {
        align = std::max(1u, std::min(align, 16u));
        f_->param_bytes = (f_->param_bytes + align - 1) / align * align;
        const std::uint32_t off = f_->param_bytes;
        f_->param_bytes += static_cast<std::uint32_t>(bytes);
        return off;
    }
    void declare_call_param(const std::string& name, std::uint64_t bytes, unsigned align)
    {
        if (!f_) fail(".param at module scope");
        Operand o;
        o.kind = OpKind::ParamSym;
        o.imm = param_space(bytes, align);
        scopes_.back()[name] = o;
    }

    void declare_module_var(const std::string& name, Space space, std::uint64_t bytes, Ty ty, const std::vector<std::int64_t>& init)
    {
        auto store = std::make_unique<std::vector<unsigned char>>(std::max<std::uint64_t>(bytes, 1) + 16, 0);
        auto* base = reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(store->data()) + 15) / 16 * 16);
        const unsigned elem = std::max(1u, ty_bytes(ty));
        for (std::size_t k = 0; k < init.size() && (k + 1) * elem <= bytes; ++k) {
            std::int64_t v = init[k];
            if (ty == Ty::F32) {  // a double-precision decimal initialiser for a float
                if (v >> 32) { double d; std::memcpy(&d, &v, 8); float f = static_cast<float>(d); std::uint32_t b; std::memcpy(&b, &f, 4); v = b; }
            }
            std::memcpy(base + k * elem, &v, elem);
        }
        module_vars_[name] = reinterpret_cast<std::uintptr_t>(base);
        m_.var_ranges.emplace_back(reinterpret_cast<std::uintptr_t>(base), bytes);
        m_.vars.push_back(ModuleVar{name, base, bytes});
        m_.storage.push_back(std::move(store));
        (void)space;
    }

    // "_ZZ9reduce_v1ILj256EfEvPKT0_PS0_jE5sdata" -> "sdata"
    static std::string source_name(std::string ptx)
    {
        // nvcc renames a variable whose name it has already used: "..E4word_$_0"
        if (const auto cut = ptx.rfind("_$_"); cut != std::string::npos &&
            ptx.find_first_not_of("0123456789", cut + 3) == std::string::npos && cut + 3 < ptx.size())
            ptx.resize(cut);
        const std::string d = demangle(ptx);
        const std::size_t colons = d.rfind("::");
        if (d != ptx && colons != std::string::npos) return d.substr(colons + 2);
        return d;
    }

    // ---- functions
    void function()
    {
        const FunctionHeader h = read_function_header(toks_, stmts_, k_);
        ++k_;
        Function* saved = f_;
        // Parameters are lowered into a scratch function first: their names go into its scope.
        m_.functions.emplace_back();
        const auto fid = static_cast<std::uint32_t>(m_.functions.size() - 1);
        f_ = &m_.functions.back();
        f_->entry = h.entry;
        scopes_.assign(1, {});
        parameter_list(h.returns, f_->rets);
        f_->name = std::string(h.name);
        if (f_->name.empty()) fail("a function without a name");
        parameter_list(h.params, f_->params);
        // a function of the same name declared before (a prototype): replace it
        if (auto it = m_.function_ids.find(f_->name); it != m_.function_ids.end() && it->second != fid) {
            if (!h.body) {  // a second declaration
                m_.functions.pop_back();
                f_ = saved;
                return;
            }
            const std::uint32_t old = it->second;
            m_.functions[old] = std::move(m_.functions.back());
            m_.functions.pop_back();
            f_ = &m_.functions[old];
        } else {
            m_.function_ids[f_->name] = fid;
        }
        if (!h.body) {  // a declaration (vprintf, a function defined elsewhere)
            f_ = saved;
            return;
        }
        f_->declared_only = false;
        body();
        f_ = saved;
    }

    void parameter_list(const std::vector<Declaration>& decls, std::vector<ParamSlot>& out)
    {
        for (const Declaration& d : decls) {
            if (d.space != ".param" || d.names.empty()) fail("a parameter that is not '.param type name'");
            ParamSlot s;
            s.name = std::string(d.names.front().name);
            s.bytes = static_cast<std::uint32_t>(declared_bytes(d, d.names.front()));
            s.align = declared_align(d);
            s.offset = param_space(s.bytes, s.align);
            Operand o;
            o.kind = OpKind::ParamSym;
            o.imm = s.offset;
            scopes_.back()[s.name] = o;
            out.push_back(s);
        }
    }

    // From the body's '{' (statement k_) to its matching '}'.
    void body()
    {
        labels_.clear();
        fixups_.clear();
        callers_.start_function();
        cur_loc_ = 0;
        ++k_;
        int depth = 1;
        while (depth > 0) {
            if (k_ >= stmts_.size()) {
                read(Span{toks_.size(), toks_.size()});
                fail("unexpected end of the PTX inside " + f_->name);
            }
            const Statement& s = stmts_[k_++];
            read(s);
            switch (s.kind) {
            case StatementKind::Open: ++depth; scopes_.emplace_back(); continue;
            case StatementKind::Close: --depth; if (depth > 0) scopes_.pop_back(); continue;
            case StatementKind::Label: {  // a label, or a call prototype
                const std::string name(peek());
                if (k_ < stmts_.size() && toks_[stmts_[k_].first].s == ".callprototype") {
                    prototypes_.insert(name);
                    ++k_;
                } else {
                    labels_[name] = static_cast<std::uint32_t>(f_->code.size());
                }
                continue;
            }
            case StatementKind::Directive:
                if (peek() == ".loc") { loc_directive(s); continue; }
                if (peek() == ".pragma") continue;
                break;
            case StatementKind::Instruction: break;
            }
            statement(s);
        }
        // a final ret: falling off the end returns, and the interpreter needs no bounds check
        p_ = stmts_[k_ - 1].end;
        Instr last;
        last.op = Op::Ret;
        last.ptx_line = line();
        last.loc = cur_loc_;
        auto [tit, fresh] = texts_.try_emplace("ret", static_cast<std::uint32_t>(m_.texts.size()));
        if (fresh) m_.texts.emplace_back("ret");
        last.text = tit->second;
        f_->code.push_back(last);
        for (auto& [at, label] : fixups_) {
            auto it = labels_.find(label);
            Instr& in = f_->code[at];
            if (it == labels_.end()) {  // the kernel fails when it runs, not the module now
                unreadable(in, "unknown label '" + label + "'", m_.texts[in.text]);
                continue;
            }
            for (unsigned k = 0; k < in.nops; ++k)
                if (in.o[k].kind == OpKind::Label && in.o[k].reg == kNoReg) in.o[k].reg = it->second;
        }
    }

    void loc_directive(const Statement& s)
    {
        std::string error;
        auto named = read_loc(toks_, s, error);
        if (!named) fail(error);
        const std::vector<SourceFrame> chain = callers_.chain(std::move(*named));
        auto [it, fresh] = loc_ids_.try_emplace(chain, static_cast<std::uint32_t>(raw_locs_.size()));
        if (fresh) raw_locs_.push_back(RawLoc{chain});
        cur_loc_ = it->second;
    }

    // ---- instructions
    Operand lookup(std::string_view name)
    {
        for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s)
            if (auto it = s->find(std::string(name)); it != s->end()) return it->second;
        if (auto it = module_shared_.find(name); it != module_shared_.end()) {
            Operand o;
            o.kind = OpKind::SharedSym;
            o.reg = it->second;
            return o;
        }
        if (auto it = module_vars_.find(name); it != module_vars_.end()) {
            Operand o;
            o.kind = OpKind::Imm;
            o.imm = static_cast<std::int64_t>(it->second);
            return o;
        }
        if (auto sp = special(name)) {
            Operand o;
            o.kind = OpKind::Special;
            o.imm = static_cast<std::int64_t>(*sp);
            return o;
        }
        if (m_.function_ids.count(name)) {
            Operand o;
            o.kind = OpKind::Func;
            o.reg = m_.function_ids.find(name)->second;
            return o;
        }
        fail("unknown name '" + std::string(name) + "'");
    }

    static std::optional<Special> special(std::string_view n)
    {
        static const std::pair<std::string_view, Special> table[] = {
            {"%tid.x", Special::TidX}, {"%tid.y", Special::TidY}, {"%tid.z", Special::TidZ},
            {"%ntid.x", Special::NtidX}, {"%ntid.y", Special::NtidY}, {"%ntid.z", Special::NtidZ},
            {"%ctaid.x", Special::CtaidX}, {"%ctaid.y", Special::CtaidY}, {"%ctaid.z", Special::CtaidZ},
            {"%nctaid.x", Special::NctaidX}, {"%nctaid.y", Special::NctaidY}, {"%nctaid.z", Special::NctaidZ},
            {"%laneid", Special::LaneId}, {"%warpid", Special::WarpId}, {"%nwarpid", Special::NWarpId},
            {"%smid", Special::SmId}, {"%nsmid", Special::NSmId}, {"%gridid", Special::GridId},
            {"%clock", Special::Clock}, {"%clock64", Special::Clock64}, {"%globaltimer", Special::GlobalTimer},
            {"%lanemask_lt", Special::LanemaskLt}, {"%lanemask_le", Special::LanemaskLe},
            {"%lanemask_eq", Special::LanemaskEq}, {"%lanemask_ge", Special::LanemaskGe},
            {"%lanemask_gt", Special::LanemaskGt}, {"%dynamic_smem_size", Special::DynSmem},
            {"%total_smem_size", Special::TotalSmem}, {"%reserved_smem_offset_begin", Special::ReservedBegin},
            {"%reserved_smem_offset_end", Special::ReservedEnd}, {"%reserved_smem_offset_cap", Special::ReservedCap},
            {"%reserved_smem_offset_0", Special::Reserved0}, {"%reserved_smem_offset_1", Special::Reserved1},
            {"WARP_SZ", Special::WarpSize},  // PTX's constant for warpSize: the launch's warp width
            {"%envreg1", Special::GridWorkspaceHigh}, {"%envreg2", Special::GridWorkspaceLow},
        };
        for (auto& [s, v] : table)
            if (n == s) return v;
        return std::nullopt;
    }

    std::uint32_t list_register(std::string_view name)
    {
        if (name == "_") return kNoReg;
        const Operand o = lookup(name);
        if (o.kind != OpKind::Reg) fail("'" + std::string(name) + "' is not a register");
        return o.reg;
    }

    bool known(std::string_view name) const
    {
        for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s)
            if (s->count(std::string(name))) return true;
        return module_shared_.count(name) || module_vars_.count(name) || m_.function_ids.count(name) || special(name);
    }

    Operand operand(bool label_ok)
    {
        if (peek() == "{") {  // vector {%f1, %f2, _}
            Operand o;
            o.kind = OpKind::Vec;
            o.reg = static_cast<std::uint32_t>(f_->lists.size());
            for (Span e : vector_elements(toks_, Span{p_, end_})) {
                if (e.end - e.first != 1) fail("bad vector element '" + std::string(source_span(toks_, e)) + "'");
                f_->lists.push_back(list_register(toks_[e.first].s));
                ++o.n;
            }
            if (o.n == 0) fail("an empty vector");
            p_ = end_;
            return o;
        }
        if (accept("(")) {  // call lists (retval0) / (param0, param1)
            Operand o;
            o.kind = OpKind::List;
            o.reg = static_cast<std::uint32_t>(f_->lists.size());
            while (!accept(")")) {
                const Operand e = lookup(next());
                f_->lists.push_back(e.kind == OpKind::ParamSym ? static_cast<std::uint32_t>(e.imm) : e.reg);
                f_->lists.push_back(static_cast<std::uint32_t>(e.kind));
                ++o.n;
                accept(",");
            }
            return o;
        }
        if (peek() == "[") {
            const auto address = read_address(toks_, Span{p_, end_});
            if (!address) fail("bad address '" + std::string(source_span(toks_, Span{p_, end_})) + "'");
            p_ = end_;
            Operand o;
            o.kind = OpKind::Addr;
            o.imm = address->offset;
            if (address->base.empty()) {
                o.base = OpKind::Imm;
                return o;
            }
            const Operand b = lookup(address->base);
            if (b.kind == OpKind::Special || b.kind == OpKind::Func) fail("bad address base '" + std::string(address->base) + "'");
            o.base = b.kind;
            o.reg = b.reg;
            if (b.kind != OpKind::Reg && b.kind != OpKind::SharedSym) o.imm += b.imm;
            return o;
        }
        if (accept("_")) return Operand{OpKind::Sink};
        if (accept("!")) {  // a negated predicate source
            Operand o = lookup(next());
            if (o.kind != OpKind::Reg) fail("'!' before something that is not a predicate");
            o.n = 1;
            return o;
        }
        const bool neg = accept("-");
        const std::string_view t = next();
        if (!t.empty() && std::isdigit(static_cast<unsigned char>(t[0]))) {
            Operand o;
            o.kind = OpKind::Imm;
            o.imm = immediate(t, neg);
            return o;
        }
        if (neg) fail("'-' before a name");
        if (prototypes_.count(std::string(t))) return Operand{OpKind::Sink};
        if (label_ok && !prototypes_.count(std::string(t)) && !known(t)) {
            Operand o;
            o.kind = OpKind::Label;
            auto it = labels_.find(std::string(t));
            o.reg = it != labels_.end() ? it->second : kNoReg;
            if (o.reg == kNoReg) fixups_.emplace_back(static_cast<std::uint32_t>(f_->code.size()), std::string(t));
            return o;
        }
        if (peek() == "+" && peek(1) != "") {  // sym+4 outside brackets (mov %r, sdata+4)
            Operand o = lookup(t);
            next();
            o.imm += integer(next());
            return o;
        }
        return lookup(t);
    }

    // A declaration or an instruction. What the parser cannot read becomes an
    // instruction that faults when it runs: only the kernels that reach it fail,
    // naming it and the user's line, and the rest of the module runs.
    void statement(const Statement& s)
    {
        const std::size_t code_size = f_->code.size(), lists = f_->lists.size(), fixups = fixups_.size();
        try {
            if (is_declaration(toks_, s)) variable(read_declaration(toks_, Span{s.first, s.end}));
            else instruction(s);
        } catch (const ParseError& e) {
            std::string written;
            for (std::size_t k = s.first; k < s.end && toks_[k].s != ";"; ++k)
                written += std::string(written.empty() ? "" : " ") + std::string(toks_[k].s);
            f_->code.resize(code_size);
            f_->lists.resize(lists);
            fixups_.resize(fixups);
            Instr in;
            in.ptx_line = s.line;
            in.loc = cur_loc_;
            std::string why = e.what();
            if (const auto cut = why.find(": PTX line "); cut != std::string::npos) {  // keep only what went wrong
                const auto colon = why.find(": ", cut + 11);
                why = why.substr(colon + 2);
                if (const auto src = why.rfind(": "); src != std::string::npos) why.resize(src);
            }
            unreadable(in, why, written);
            f_->code.push_back(in);
        }
    }
    void unreadable(Instr& in, const std::string& why, const std::string& written)
    {
        in.op = Op::Unsupported;
        in.fast = Fast::None;
        in.pred = kNoReg;
        in.nops = 0;
        in.flags = kUnreadable;
        in.text = static_cast<std::uint32_t>(m_.texts.size());
        m_.texts.push_back("'" + written + "': " + why);
    }

    void instruction(const Statement& s)
    {
        const InstructionStatement st = read_instruction(toks_, s);
        if (const unsigned bytes = shared_access_bytes(st)) f_->narrowest_shared = std::min(f_->narrowest_shared, bytes);
        Instr in;
        in.ptx_line = s.line;
        in.loc = cur_loc_;
        if (st.guarded) {
            if (st.guard_negated) in.flags |= kNegPred;
            const Operand p = lookup(st.guard);
            if (p.kind != OpKind::Reg) fail("the guard is not a predicate register");
            in.pred = p.reg;
        }
        if (st.opcode.empty() || st.opcode == ";") fail("a guard without an instruction");
        const std::string_view opcode = st.opcode;
        auto [tit, fresh] = texts_.try_emplace(std::string(opcode), static_cast<std::uint32_t>(m_.texts.size()));
        if (fresh) m_.texts.emplace_back(opcode);
        in.text = tit->second;
        decode_opcode(opcode, in);
        for (std::size_t k = 0; k < st.operands.size(); ++k) {
            if (in.nops == 6) fail("too many operands");
            read(st.operands[k]);
            if (in.op == Op::Tex && k == 1) texture_operands(in, opcode.find(".2d") != std::string_view::npos ? 2 : 1);
            else in.o[in.nops++] = operand(in.op == Op::Bra || in.op == Op::Call);
            expect_end();
            if (st.paired[k]) in.flags |= kPair;  // d|p: a second destination (setp, shfl)
        }
        p_ = s.end - 1;
        end_ = s.end;
        expect(";");
        if (in.op == Op::Call) arrange_call(in);
        if (in.op == Op::Ld && widens_signed(in)) in.ty2 = Ty::S64;
        f_->code.push_back(in);
    }

    // ld.s32 (or .s8, .s16) into a 64-bit register: PTX sign-extends the value to
    // the register's width, which `(long long)(int)x` makes nvcc rely on.
    bool widens_signed(const Instr& in) const
    {
        if (!ty_signed(in.ty) || ty_bytes(in.ty) >= 8) return false;
        const Operand& d = in.o[0];
        const std::uint32_t reg = d.kind == OpKind::Reg ? d.reg : d.kind == OpKind::Vec && d.n ? f_->lists[d.reg] : kNoReg;
        if (reg == kNoReg || reg >= f_->register_types.size()) return false;
        const Ty t = f_->register_types[reg];
        return t == Ty::S64 || t == Ty::U64 || t == Ty::B64;
    }

    // tex's [texture, {coordinates}]: o[1] the texture object's register, o[2] its `dims` coordinates
    void texture_operands(Instr& in, unsigned dims)
    {
        if (in.nops > 3 || end_ - p_ < 5 || toks_[end_ - 1].s != "]") fail("a texture operand is [texture, {coordinates}]");
        expect("[");
        const Operand texture = lookup(next());
        if (texture.kind != OpKind::Reg) fail("the texture is not a register: only texture objects are emulated");
        expect(",");
        --end_;  // the coordinates' vector ends before the ']'
        const Operand coordinates = operand(false);
        ++end_;
        expect("]");
        if (coordinates.kind != OpKind::Vec || coordinates.n != dims)
            fail("a " + std::to_string(dims) + "d texture fetch takes " + std::to_string(dims) + " coordinates");
        in.o[in.nops++] = texture;
        in.o[in.nops++] = coordinates;
    }

    // call [.uni] [(rets),] target [, (args)] [, prototype] -> o[0] rets, o[1] target, o[2] args
    void arrange_call(Instr& in)
    {
        Operand rets, target, args;
        for (unsigned k = 0; k < in.nops; ++k) {
            const Operand& o = in.o[k];
            if (o.kind == OpKind::List) (target.kind == OpKind::None ? rets : args) = o;
            else if (o.kind == OpKind::Func || o.kind == OpKind::Reg) target = o;
        }
        if (target.kind == OpKind::None) fail("call without a target");
        in.o[0] = rets;
        in.o[1] = target;
        in.o[2] = args;
        in.nops = 3;
    }

    // ---- after the last token
    bool toolkit_file(std::uint32_t f) const
    {
        auto it = file_paths_.find(f);
        return it != file_paths_.end() && is_toolkit_path(it->second);
    }

    void finish()
    {
        std::uint32_t max_file = 0;
        for (auto& [n, path] : file_paths_) max_file = std::max(max_file, n);
        m_.files.assign(max_file + 1, "");
        for (auto& [n, path] : file_paths_) m_.files[n] = path;
        m_.locations.assign(raw_locs_.size(), SourceLoc{});
        for (std::size_t k = 1; k < raw_locs_.size(); ++k) {
            const auto& chain = raw_locs_[k].chain;
            bool found = false;
            const SourceFrame pick = user_frame(chain, file_paths_, found);
            const auto known_file = [&](std::uint32_t f) { return f <= max_file ? f : 0; };
            SourceLoc& at = m_.locations[k];
            at = SourceLoc{known_file(pick.first), pick.second};
            at.in_toolkit = !found;
            if (toolkit_file(chain.front().first) && (pick != chain.front() || !found))
                at.header_file = known_file(chain.front().first), at.header_line = chain.front().second;
        }
        // Which shared arrays each kernel reaches: the statement layer's rule,
        // which the GPU trace's instrumenter follows too.
        const SharedUse shared_use(toks_, stmts_, bodies_);
        for (Function& fn : m_.functions)
            if (fn.entry && !fn.declared_only) fn.shared_used = shared_ids(fn, shared_use);
        lower_module(m_);
    }

    std::vector<std::uint32_t> shared_ids(const Function& fn, const SharedUse& shared_use) const
    {
        std::vector<std::uint32_t> used;
        for (std::size_t b = 0; b < bodies_.size(); ++b)
            if (bodies_[b].entry && bodies_[b].name == fn.name)
                for (const SharedDeclaration& d : shared_use.of(b))
                    if (auto id = shared_ids_.find(d.name.data()); id != shared_ids_.end()) used.push_back(id->second);
        return used;
    }
};

}  // namespace
}  // namespace detail

const detail::Function* Module::Impl::kernel(std::string_view name) const
{
    const detail::Function* bare = nullptr;
    int bare_count = 0;
    for (const detail::Function& f : functions) {
        if (!f.entry) continue;
        if (f.name == name) return &f;
        const std::string& d = f.info.demangled;
        const std::string no_params(without_parameters(d));
        if (no_params == name) return &f;
        // bare name: the last component without template arguments
        std::string bare_name = no_params.substr(0, no_params.find('<'));
        if (auto c = bare_name.rfind("::"); c != std::string::npos) bare_name = bare_name.substr(c + 2);
        if (bare_name == name) { bare = &f; ++bare_count; }
    }
    return bare_count == 1 ? bare : nullptr;
}

Module Module::parse(std::string ptx_text, std::string origin)
{
    auto impl = std::make_unique<Impl>();
    impl->text = std::move(ptx_text);
    impl->origin = std::move(origin);
    detail::Parser(*impl, impl->origin).run();
    return Module(std::move(impl));
}

Module::Module(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Module::Module(Module&&) noexcept = default;
Module& Module::operator=(Module&&) noexcept = default;
Module::~Module() = default;

std::vector<KernelInfo> Module::kernels() const
{
    std::vector<KernelInfo> out;
    for (const auto& f : impl_->functions)
        if (f.entry && !f.declared_only) out.push_back(f.info);
    return out;
}
const KernelInfo* Module::find(std::string_view name) const
{
    const detail::Function* f = impl_->kernel(name);
    return f ? &f->info : nullptr;
}
const std::string& Module::origin() const { return impl_->origin; }

std::span<unsigned char> Module::symbol(std::string_view name) const
{
    for (const detail::ModuleVar& v : impl_->vars) {
        int status = 0;
        char* d = abi::__cxa_demangle(v.name.c_str(), nullptr, nullptr, &status);
        const bool match = v.name == name || (status == 0 && d && name == d);
        std::free(d);
        if (match) return {v.data, static_cast<std::size_t>(v.bytes)};  // it is held in memory, so it fits
    }
    return {};
}
const std::string& Module::text() const { return impl_->text; }
std::vector<std::string> Module::source_files() const
{
    std::vector<std::string> out;
    for (const std::string& f : impl_->files)
        if (!f.empty()) out.push_back(f);  // index 0: unknown
    return out;
}

}  // namespace wl::ptx

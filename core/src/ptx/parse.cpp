// PTX text -> Module::Impl: a tokenizer, a statement parser, and the decoder
// that turns each instruction into an Instr once.
#include <cxxabi.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <optional>
#include <set>
#include <unordered_map>

#include "module_impl.h"

namespace wl::ptx {
namespace detail {

namespace {

// ------------------------------------------------------------- parser --

struct RawLoc {
    std::vector<Frame> chain;  // innermost first
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
    std::map<std::vector<Frame>, std::uint32_t> loc_ids_;
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
        auto it = module_vars_.find(s);
        if (it == module_vars_.end()) fail("unknown symbol '" + std::string(s) + "' in an initialiser");
        return static_cast<std::int64_t>(it->second);
    }

    void declare_register(const std::string& name, Ty ty)
    {
        Operand o;
        o.kind = OpKind::Reg;
        o.reg = f_->registers++;
        (void)ty;
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

    static std::string demangle(const std::string& name)
    {
        int status = 0;
        char* d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
        if (status != 0 || !d) return name;
        std::string s(d);
        std::free(d);
        return s;
    }
    // "void f<1u>(int)" -> "f<1u>(int)": template functions' demangled names start with the return type.
    static std::string without_return_type(const std::string& d)
    {
        int depth = 0;
        for (std::size_t i = 0; i < d.size(); ++i) {
            const char c = d[i];
            if (c == '<') ++depth;
            else if (c == '>') --depth;
            else if (c == '(' && depth == 0) break;
            else if (c == ' ' && depth == 0) return without_return_type(d.substr(i + 1));
        }
        return d;
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
        const std::vector<Frame> chain = callers_.chain(std::move(*named));
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
        if (name == "WARP_SZ") {  // PTX's constant for warpSize: the emulator's warps are 32 lanes wide
            Operand o;
            o.kind = OpKind::Imm;
            o.imm = 32;
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
        return module_shared_.count(name) || module_vars_.count(name) || m_.function_ids.count(name) || name == "WARP_SZ";
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
            in.o[in.nops++] = operand(in.op == Op::Bra || in.op == Op::Call);
            expect_end();
            if (st.paired[k]) in.flags |= kPair;  // d|p: a second destination (setp, shfl)
        }
        p_ = s.end - 1;
        end_ = s.end;
        expect(";");
        if (in.op == Op::Call) arrange_call(in);
        f_->code.push_back(in);
    }

    void decode_opcode(std::string_view opcode, Instr& in)
    {
        std::vector<std::string_view> q;
        for (std::size_t b = 0; b <= opcode.size();) {
            std::size_t e = opcode.find('.', b);
            if (e == std::string_view::npos) e = opcode.size();
            q.push_back(opcode.substr(b, e - b));
            b = e + 1;
        }
        const std::string_view base = q[0];
        static const std::pair<std::string_view, Op> ops[] = {
            {"mov", Op::Mov}, {"ld", Op::Ld}, {"ldu", Op::Ld}, {"st", Op::St}, {"cvta", Op::Cvta}, {"cvt", Op::Cvt},
            {"isspacep", Op::Isspacep}, {"add", Op::Add}, {"sub", Op::Sub}, {"mul", Op::Mul}, {"mad", Op::Mad},
            {"mul24", Op::Mul24}, {"mad24", Op::Mad24}, {"sad", Op::Sad}, {"div", Op::Div}, {"rem", Op::Rem},
            {"addc", Op::AddC}, {"subc", Op::SubC}, {"madc", Op::MadC}, {"abs", Op::Abs}, {"neg", Op::Neg}, {"min", Op::Min}, {"max", Op::Max}, {"popc", Op::Popc},
            {"clz", Op::Clz}, {"bfind", Op::Bfind}, {"brev", Op::Brev}, {"bfe", Op::Bfe}, {"bfi", Op::Bfi},
            {"fns", Op::Fns}, {"prmt", Op::Prmt}, {"and", Op::And}, {"or", Op::Or}, {"xor", Op::Xor},
            {"not", Op::Not}, {"cnot", Op::Cnot}, {"shl", Op::Shl}, {"shr", Op::Shr}, {"shf", Op::Shf},
            {"lop3", Op::Lop3}, {"testp", Op::Testp}, {"copysign", Op::Copysign}, {"fma", Op::Fma},
            {"rcp", Op::Rcp}, {"sqrt", Op::Sqrt}, {"rsqrt", Op::Rsqrt}, {"sin", Op::Sin}, {"cos", Op::Cos},
            {"lg2", Op::Lg2}, {"ex2", Op::Ex2}, {"tanh", Op::Tanh}, {"setp", Op::Setp}, {"selp", Op::Selp},
            {"slct", Op::Slct}, {"set", Op::Set}, {"bra", Op::Bra}, {"call", Op::Call}, {"ret", Op::Ret},
            {"exit", Op::Exit}, {"trap", Op::Trap}, {"bar", Op::Bar}, {"barrier", Op::Bar}, {"shfl", Op::Shfl},
            {"vote", Op::Vote}, {"match", Op::Match}, {"redux", Op::Redux}, {"activemask", Op::Activemask},
            {"membar", Op::Nop}, {"fence", Op::Nop}, {"nanosleep", Op::Nop}, {"prefetch", Op::Nop},
            {"prefetchu", Op::Nop}, {"pmevent", Op::Nop}, {"atom", Op::Atom}, {"red", Op::Red}, {"cp", Op::CpAsync},
            {"mma", Op::Mma}, {"mbarrier", Op::Mbarrier},
        };
        in.op = Op::Unsupported;
        for (auto& [n, o] : ops)
            if (base == n) in.op = o;
        if (in.op == Op::Unsupported) return;
        if (in.op == Op::Mma) {  // the one shape and type the lab's v9 uses
            if (opcode != "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32") in.op = Op::Unsupported;
            return;
        }
        if (in.op == Op::Nop) return;  // fences and hints: every access is done at once here
        if (in.op == Op::Mbarrier) {
            decode_mbarrier(q, in);
            return;
        }
        if (in.op == Op::CpAsync && q.size() >= 3 && q[1] == "async" && q[2] == "bulk") {
            decode_bulk_copy(opcode, in);
            return;
        }
        if (in.op == Op::CpAsync && q.size() >= 4 && q[2] == "mbarrier" && q[3] == "arrive") {
            // cp.async.mbarrier.arrive[.noinc].shared{::cta}.b64 [bar]: an arrival once this thread's copies land
            in.op = Op::Mbarrier;
            in.sub = opcode.find(".noinc") != std::string_view::npos ? Sub::MbCpAsyncArriveNoinc : Sub::MbCpAsyncArrive;
            if (opcode.find(".shared") != std::string_view::npos) in.space = Space::Shared;
            if (!opcode.ends_with(".b64")) in.op = Op::Unsupported;
            return;
        }
        if (in.op == Op::CpAsync) {  // cp.async copies at once here: its groups need no waiting
            if (q.size() < 2 || q[1] != "async") in.op = Op::Unsupported;
            else if (q.size() >= 3 && (q[2] == "commit_group" || q[2] == "wait_group" || q[2] == "wait_all")) in.op = Op::Nop;
            else if (q.size() >= 3 && (q[2] == "ca" || q[2] == "cg") && opcode.find(".shared") != std::string_view::npos &&
                     opcode.find(".global") != std::string_view::npos && opcode.find("bulk") == std::string_view::npos &&
                     opcode.find("mbarrier") == std::string_view::npos) in.space = Space::Shared;
            else in.op = Op::Unsupported;
            return;
        }
        std::vector<Ty> types;
        for (std::size_t k = 1; k < q.size(); ++k) {
            const std::string_view s = q[k];
            if (Ty t = type_of(s); t != Ty::None) { types.push_back(t); continue; }
            static const std::pair<std::string_view, Space> spaces[] = {
                {"global", Space::Global}, {"shared", Space::Shared}, {"local", Space::Local},
                {"param", Space::Param}, {"const", Space::Const}};
            bool matched = false;
            for (auto& [n, sp] : spaces)
                if (s == n) { in.space = sp; matched = true; }
            if (matched) continue;
            static const std::pair<std::string_view, Cmp> cmps[] = {
                {"eq", Cmp::Eq}, {"ne", Cmp::Ne}, {"lt", Cmp::Lt}, {"le", Cmp::Le}, {"gt", Cmp::Gt}, {"ge", Cmp::Ge},
                {"lo", Cmp::Lo}, {"ls", Cmp::Ls}, {"hi", Cmp::Hi}, {"hs", Cmp::Hs}, {"equ", Cmp::Equ},
                {"neu", Cmp::Neu}, {"ltu", Cmp::Ltu}, {"leu", Cmp::Leu}, {"gtu", Cmp::Gtu}, {"geu", Cmp::Geu},
                {"num", Cmp::Num}, {"nan", Cmp::Nan}};
            if (in.op == Op::Setp || in.op == Op::Set || in.op == Op::Slct) {
                for (auto& [n, c] : cmps)
                    if (s == n) { in.cmp = c; matched = true; }
                if (matched) continue;
            }
            static const std::pair<std::string_view, Round> rounds[] = {
                {"rn", Round::Rn}, {"rz", Round::Rz}, {"rm", Round::Rm}, {"rp", Round::Rp}, {"rni", Round::Rni},
                {"rzi", Round::Rzi}, {"rmi", Round::Rmi}, {"rpi", Round::Rpi}};
            for (auto& [n, r] : rounds)
                if (s == n) { in.round = r; matched = true; }
            if (matched) continue;
            static const std::pair<std::string_view, Sub> subs[] = {
                {"add", Sub::Add}, {"min", Sub::Min}, {"max", Sub::Max}, {"exch", Sub::Exch}, {"cas", Sub::Cas},
                {"and", Sub::And}, {"or", Sub::Or}, {"xor", Sub::Xor}, {"inc", Sub::Inc}, {"dec", Sub::Dec},
                {"popc", Sub::Popc}, {"all", Sub::All}, {"any", Sub::Any}, {"uni", Sub::Uni},
                {"ballot", Sub::Ballot}, {"up", Sub::Up}, {"down", Sub::Down}, {"bfly", Sub::Bfly}, {"idx", Sub::Idx}};
            if (in.op == Op::Atom || in.op == Op::Red || in.op == Op::Vote || in.op == Op::Shfl ||
                in.op == Op::Redux || in.op == Op::Bar) {
                for (auto& [n, sb] : subs)
                    if (s == n) { in.sub = sb; matched = true; }
                if (matched) continue;
            }
            if (in.op == Op::Match && (s == "any" || s == "all")) { in.sub = s == "any" ? Sub::MatchAny : Sub::MatchAll; continue; }
            if (s == "lo") continue;
            if (s == "cc" && (in.op == Op::Add || in.op == Op::Sub || in.op == Op::AddC || in.op == Op::SubC ||
                              in.op == Op::Mad || in.op == Op::MadHi || in.op == Op::MadC || in.op == Op::MadCHi)) {
                in.flags |= kCarryOut;
                continue;
            }
            if (s == "hi") {
                if (in.op == Op::Mul) in.op = Op::MulHi;
                else if (in.op == Op::Mad) in.op = Op::MadHi;
                else if (in.op == Op::MadC) in.op = Op::MadCHi;
                else in.flags |= kHi;  // mul24.hi / mad24.hi
                continue;
            }
            if (s == "wide") { in.op = in.op == Op::Mul ? Op::MulWide : Op::MadWide; continue; }
            if (s == "v2") { in.vec = 2; continue; }
            if (s == "v4") { in.vec = 4; continue; }
            if (s == "v8") { in.vec = 8; continue; }
            if (s == "ftz") { in.flags |= kFtz; continue; }
            if (s == "sat") { in.flags |= kSat; continue; }
            if (s == "approx") { in.flags |= kApprox; continue; }
            if (s == "full") { in.flags |= kFull; continue; }
            if (s == "uni") { in.flags |= kUni; continue; }
            if (s == "to") { if (in.op == Op::Cvta) in.op = Op::CvtaTo; continue; }
            if (s == "red") { in.op = Op::BarRed; continue; }
            if (s == "warp") { if (in.op == Op::Bar) in.op = Op::BarWarp; continue; }
            if (in.op == Op::Setp || in.op == Op::Set) {
                if (s == "and") { in.flags |= kBoolAnd; continue; }
                if (s == "or") { in.flags |= kBoolOr; continue; }
                if (s == "xor") { in.flags |= kBoolXor; continue; }
            }
            if (in.op == Op::Shf && (s == "l" || s == "r")) { if (s == "l") in.flags |= kShfLeft; continue; }
            if (in.op == Op::Shf && (s == "wrap" || s == "clamp")) { if (s == "wrap") in.flags |= kShfWrap; continue; }
            if (in.op == Op::BarRed && (s == "and" || s == "or" || s == "popc")) { in.sub = s == "and" ? Sub::And : s == "or" ? Sub::Or : Sub::Popc; continue; }
            // cache, scope, ordering and other hints that change nothing here
            static const std::string_view ignored[] = {
                "nc", "ca", "cg", "cs", "lu", "cv", "wb", "wt", "volatile", "relaxed", "acquire", "release",
                "acq_rel", "sc", "cta", "gpu", "gl", "sys", "cluster", "sync", "aligned", "L1::no_allocate",
                "L1::evict_last", "L1::evict_first", "L1::evict_normal", "L1::evict_unchanged", "L2::64B",
                "L2::128B", "L2::256B", "L2::cache_hint", "mmio", "weak", "noftz", "L1", "L2", "proxy",
                "async", "clamp", "mode", "f4e"};
            if ((in.op == Op::Ld || in.op == Op::St) && (s == "relaxed" || s == "acquire" || s == "release")) in.order = kStrong;
            if ((in.op == Op::Ld || in.op == Op::St) && s == "volatile" && in.order == kPlain) in.order = kVolatile;
            bool ignore = std::find(std::begin(ignored), std::end(ignored), s) != std::end(ignored) ||
                          s.starts_with("L1::") || s.starts_with("L2::") || s == "collector" || s.starts_with("level::") ||
                          s == "noinc" || s == "shiftamt";
            if (s == "shiftamt") in.flags |= kShiftAmt;
            if (ignore) continue;
            in.op = Op::Unsupported;  // a qualifier that changes the meaning and that we do not implement
            return;
        }
        if (!types.empty()) in.ty = types.back();
        if (types.size() >= 2) {
            if (in.op == Op::Cvt || in.op == Op::Set || in.op == Op::Slct) { in.ty = types[0]; in.ty2 = types[1]; }
        }
        if (in.op == Op::MulWide || in.op == Op::MadWide) in.ty2 = in.ty;
    }

    // mbarrier.init / arrive[.expect_tx] / expect_tx / test_wait[.parity] /
    // try_wait[.parity], on a CTA's own shared memory (.shared, .shared::cta)
    // or a generic address; the .b64 form.
    void decode_mbarrier(const std::vector<std::string_view>& q, Instr& in)
    {
        static const std::pair<std::string_view, Sub> ops[] = {{"init", Sub::MbInit}, {"arrive", Sub::MbArrive},
                                                               {"expect_tx", Sub::MbExpectTx}, {"test_wait", Sub::MbTestWait},
                                                               {"try_wait", Sub::MbTryWait}};
        in.op = Op::Unsupported;
        if (q.size() < 2) return;
        for (auto& [n, sub] : ops)
            if (q[1] == n) in.sub = sub;
        if (in.sub == Sub::None) return;
        bool b64 = false;
        for (std::size_t k = 2; k < q.size(); ++k) {
            const std::string_view s = q[k];
            if (s == "shared" || s == "shared::cta") in.space = Space::Shared;
            else if (s == "b64") b64 = true;
            else if (s == "parity" && (in.sub == Sub::MbTestWait || in.sub == Sub::MbTryWait)) continue;  // a state is a parity here
            else if (s == "expect_tx" && in.sub == Sub::MbArrive) in.sub = Sub::MbArriveExpectTx;
            else if (s != "release" && s != "acquire" && s != "relaxed" && s != "cta") return;  // e.g. .cluster scope, noComplete
        }
        if (b64) in.op = Op::Mbarrier;
    }

    // cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [src], size, [mbar]
    // (also .shared::cta, and .L2::cache_hint with its policy operand): a
    // global-to-shared copy by the copy engine. Other directions, multicast
    // and the tensor forms are not implemented.
    void decode_bulk_copy(std::string_view opcode, Instr& in)
    {
        const bool to_shared = opcode.starts_with("cp.async.bulk.shared::cluster.global.") ||
                               opcode.starts_with("cp.async.bulk.shared::cta.global.");
        const bool plain = opcode.ends_with(".mbarrier::complete_tx::bytes") ||
                           opcode.ends_with(".mbarrier::complete_tx::bytes.L2::cache_hint");
        in.op = to_shared && plain ? Op::CpAsyncBulk : Op::Unsupported;
        in.space = Space::Shared;
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
            const Frame pick = user_frame(chain, file_paths_, found);
            const auto known_file = [&](std::uint32_t f) { return f <= max_file ? f : 0; };
            SourceLoc& at = m_.locations[k];
            at = SourceLoc{known_file(pick.first), pick.second};
            at.in_toolkit = !found;
            if (toolkit_file(chain.front().first) && (pick != chain.front() || !found))
                at.header_file = known_file(chain.front().first), at.header_line = chain.front().second;
        }
        const SharedUse shared_use(toks_, stmts_, bodies_);
        for (Function& fn : m_.functions) {
            if (fn.declared_only) continue;
            if (fn.entry) kernel_info(fn, shared_use);
            constants_to_slots(fn);
            for (Instr& in : fn.code) in.fast = fast_form(fn, in);
        }
        mark_pointer_params();
    }

    static bool fixed_special(Special s)
    {
        return s != Special::Clock && s != Special::Clock64 && s != Special::GlobalTimer;
    }

    // Constant operands become register slots that a frame fills when it starts,
    // so that the interpreter reads every hot operand as r[slot].
    void constants_to_slots(Function& fn)
    {
        std::map<ConstSlot, std::uint32_t> ids;
        auto slot = [&](OpKind kind, std::uint32_t id, std::int64_t imm) {
            const ConstSlot c{kind, id, imm};
            auto [it, fresh] = ids.try_emplace(c, fn.registers + static_cast<std::uint32_t>(fn.consts.size()));
            if (fresh) fn.consts.push_back(c);
            return it->second;
        };
        for (Instr& in : fn.code) {
            for (unsigned k = 0; k < in.nops; ++k) {
                Operand& o = in.o[k];
                switch (o.kind) {
                case OpKind::Imm: o.reg = slot(OpKind::Imm, 0, o.imm); break;
                case OpKind::ParamSym: o.reg = slot(OpKind::Imm, 0, o.imm); break;
                case OpKind::SharedSym: o.reg = slot(OpKind::SharedSym, o.reg, o.imm); break;
                case OpKind::LocalSym: o.reg = slot(OpKind::LocalSym, 0, o.imm); break;
                case OpKind::Func: if (in.op != Op::Call) o.reg = slot(OpKind::Func, o.reg, 0); else continue; break;
                case OpKind::Special:
                    if (!fixed_special(static_cast<Special>(o.imm))) continue;
                    o.reg = slot(OpKind::Special, 0, o.imm);
                    break;
                case OpKind::Addr:
                    if (o.base == OpKind::SharedSym) { o.reg = slot(OpKind::SharedSym, o.reg, 0); o.base = OpKind::Reg; }
                    else if (o.base == OpKind::LocalSym) { o.reg = slot(OpKind::LocalSym, 0, 0); o.base = OpKind::Reg; }
                    continue;
                default: continue;
                }
                o.kind = OpKind::Reg;
                o.n = 0;
            }
        }
    }

    // The specialised form of an instruction, where it has one.
    static Fast fast_form(const Function& fn, const Instr& in)
    {
        if ((in.op == Op::Ld || in.op == Op::St) && in.vec == 1 && in.order == kPlain) {
            const unsigned w = ty_bytes(in.ty);
            const Operand& addr = in.op == Op::Ld ? in.o[1] : in.o[0];
            const Operand& value = in.op == Op::Ld ? in.o[0] : in.o[1];
            if (addr.kind != OpKind::Addr || value.kind != OpKind::Reg || in.nops != 2) return Fast::None;
            // [param_name] or [offset]: either way the address is the displacement
            const bool fixed = addr.base == OpKind::Imm || addr.base == OpKind::ParamSym;
            if (in.space == Space::Param && in.op == Op::Ld && fixed && addr.imm >= 0 &&
                static_cast<std::uint64_t>(addr.imm) + w <= fn.param_bytes)
                return w == 4 ? Fast::LdParam32 : w == 8 ? Fast::LdParam64 : Fast::None;
            if (w != 4 || addr.base != OpKind::Reg) return Fast::None;
            if (in.space == Space::Shared) return in.op == Op::Ld ? Fast::LdShared32 : Fast::StShared32;
            if (in.space == Space::Global) return in.op == Op::Ld ? Fast::LdGlobal32 : Fast::StGlobal32;
            return Fast::None;
        }
        if (in.op == Op::Bar && in.nops == 1 && in.o[0].kind == OpKind::Reg && in.o[0].reg >= fn.registers &&
            fn.consts[in.o[0].reg - fn.registers].kind == OpKind::Imm && fn.consts[in.o[0].reg - fn.registers].imm == 0)
            return Fast::BarSync;  // bar.sync 0: the whole block
        for (unsigned k = 0; k < in.nops; ++k)
            if (in.o[k].kind != OpKind::Reg && !(in.op == Op::Bra && in.o[k].kind == OpKind::Label)) return Fast::None;
        const bool plain = (in.flags & ~kUni) == 0 && (in.round == Round::None || in.round == Round::Rn) && in.vec == 1;
        if (!plain) return Fast::None;
        const unsigned w = ty_bytes(in.ty);
        const bool i32 = (in.ty == Ty::B32 || in.ty == Ty::U32 || in.ty == Ty::S32);
        const bool i64 = (in.ty == Ty::B64 || in.ty == Ty::U64 || in.ty == Ty::S64);
        const bool s = ty_signed(in.ty);
        switch (in.op) {
        case Op::Mov:
            if (in.ty == Ty::Pred) return Fast::MovPred;
            return w == 4 ? Fast::Mov32 : w == 8 ? Fast::Mov64 : Fast::None;
        case Op::Cvta: case Op::CvtaTo:
            return in.space == Space::Global && w == 8 ? Fast::Mov64 : Fast::None;
        case Op::Add: return i32 ? Fast::Add32 : i64 ? Fast::Add64 : in.ty == Ty::F32 ? Fast::AddF32 : Fast::None;
        case Op::Sub: return i32 ? Fast::Sub32 : i64 ? Fast::Sub64 : in.ty == Ty::F32 ? Fast::SubF32 : Fast::None;
        case Op::Mul: return i32 ? Fast::Mul32 : i64 ? Fast::Mul64 : in.ty == Ty::F32 ? Fast::MulF32 : Fast::None;
        case Op::Mad: return i32 ? Fast::Mad32 : i64 ? Fast::Mad64 : Fast::None;
        case Op::Fma: return in.ty == Ty::F32 ? Fast::FmaF32 : Fast::None;
        case Op::MulWide: return in.ty == Ty::U32 ? Fast::MulWideU32 : in.ty == Ty::S32 ? Fast::MulWideS32 : Fast::None;
        case Op::Shl: return i32 ? Fast::Shl32 : i64 ? Fast::Shl64 : Fast::None;
        case Op::Shr: return i32 ? (s ? Fast::ShrS32 : Fast::ShrU32) : (i64 && !s) ? Fast::ShrU64 : Fast::None;
        case Op::And: return i32 ? Fast::And32 : i64 ? Fast::And64 : Fast::None;
        case Op::Or: return i32 ? Fast::Or32 : Fast::None;
        case Op::Xor: return i32 ? Fast::Xor32 : Fast::None;
        case Op::Rem: return in.ty == Ty::U32 ? Fast::RemU32 : Fast::None;
        case Op::Div: return in.ty == Ty::U32 ? Fast::DivU32 : Fast::None;
        case Op::Min: return in.ty == Ty::U32 ? Fast::Min32U : in.ty == Ty::S32 ? Fast::Min32S : Fast::None;
        case Op::Max: return in.ty == Ty::U32 ? Fast::Max32U : in.ty == Ty::S32 ? Fast::Max32S : Fast::None;
        case Op::Selp: return w == 4 ? Fast::Selp32 : w == 8 ? Fast::Selp64 : Fast::None;
        case Op::Setp:
            if (in.nops != 3) return Fast::None;
            if (in.ty == Ty::F32) return Fast::SetpF32;
            if (i32) return s ? Fast::SetpS32 : Fast::SetpU32;
            if (i64) return s ? Fast::SetpS64 : Fast::SetpU64;
            return Fast::None;
        case Op::Bra: return Fast::Bra;
        case Op::Nop: return Fast::Nop;
        default: return Fast::None;
        }
    }

    void kernel_info(Function& fn, const SharedUse& shared_use)
    {
        KernelInfo& k = fn.info;
        k.mangled = fn.name;
        k.demangled = without_return_type(demangle(fn.name));
        for (const ParamSlot& s : fn.params) k.params.push_back(ParamInfo{s.name, s.bytes, s.align, false});
        // shared variables: the statement layer's rule, which the GPU trace's instrumenter follows too
        std::vector<std::uint32_t> used;
        for (std::size_t b = 0; b < bodies_.size(); ++b)
            if (bodies_[b].entry && bodies_[b].name == fn.name)
                for (const SharedDeclaration& d : shared_use.of(b))
                    if (auto id = shared_ids_.find(d.name.data()); id != shared_ids_.end()) used.push_back(id->second);
        fn.shared_used = used;
        std::uint64_t off = 0;
        for (std::uint32_t id : used) {
            const SharedVar& v = m_.shared[id];
            k.shared.push_back(SharedInfo{v.name, v.bytes, v.align, v.dynamic});
            if (!v.dynamic) off = (off + 15) / 16 * 16 + v.bytes;
        }
        k.static_shared_bytes = off;
        k.local_bytes = fn.local_bytes;
        k.registers = fn.registers;
    }

    // A parameter is a pointer when the kernel loads it as 64 bits and uses it as an address
    // (cvta.to.global, or an address base): good enough to name arrays in messages.
    void mark_pointer_params()
    {
        for (Function& fn : m_.functions) {
            if (!fn.entry) continue;
            for (std::size_t k = 0; k < fn.params.size(); ++k)
                fn.info.params[k].is_pointer = pointer_parameter(fn.params[k].bytes);
        }
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
        const std::string no_params = d.substr(0, d.find('('));
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
        if (match) return {v.data, v.bytes};
    }
    return {};
}
const std::string& Module::text() const { return impl_->text; }

}  // namespace wl::ptx

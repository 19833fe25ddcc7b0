// PTX read as statements (statements.h).
#include "statements.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace wl::ptx::detail {

// ---------------------------------------------------------------- types --

Ty type_of(std::string_view name)
{
    static const std::pair<std::string_view, Ty> table[] = {
        {"b8", Ty::B8}, {"b16", Ty::B16}, {"b32", Ty::B32}, {"b64", Ty::B64}, {"b128", Ty::B128},
        {"u8", Ty::U8}, {"u16", Ty::U16}, {"u32", Ty::U32}, {"u64", Ty::U64},
        {"s8", Ty::S8}, {"s16", Ty::S16}, {"s32", Ty::S32}, {"s64", Ty::S64},
        {"f16", Ty::F16}, {"f16x2", Ty::F16x2}, {"bf16", Ty::BF16}, {"bf16x2", Ty::BF16x2},
        {"f32", Ty::F32}, {"f64", Ty::F64}, {"pred", Ty::Pred}, {"u16x2", Ty::U16x2}, {"s16x2", Ty::S16x2},
    };
    for (auto& [n, t] : table)
        if (name == n) return t;
    return Ty::None;
}

std::optional<std::int64_t> parse_integer(std::string_view s)
{
    bool neg = false;
    if (!s.empty() && s[0] == '-') { neg = true; s.remove_prefix(1); }
    std::uint64_t v = 0;
    int base = 10;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) { base = 16; s.remove_prefix(2); }
    else if (s.size() > 1 && s[0] == '0' && std::isdigit(static_cast<unsigned char>(s[1]))) { base = 8; s.remove_prefix(1); }
    if (!s.empty() && (s.back() == 'U' || s.back() == 'u')) s.remove_suffix(1);
    auto r = std::from_chars(s.data(), s.data() + s.size(), v, base);
    if (s.empty() || r.ec != std::errc{} || r.ptr != s.data() + s.size()) return std::nullopt;
    return neg ? -static_cast<std::int64_t>(v) : static_cast<std::int64_t>(v);
}

// --------------------------------------------------------------- tokens --

namespace {
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%' || c == '.'; }
}  // namespace

std::vector<Token> tokenize(std::string_view t)
{
    std::vector<Token> out;
    std::uint32_t line = 1;
    std::size_t i = 0;
    while (i < t.size()) {
        const char c = t[i];
        if (c == '\n') { ++line; ++i; continue; }
        if (std::isspace(static_cast<unsigned char>(c))) { ++i; continue; }
        if (c == '/' && i + 1 < t.size() && t[i + 1] == '/') {
            while (i < t.size() && t[i] != '\n') ++i;
            continue;
        }
        if (c == '/' && i + 1 < t.size() && t[i + 1] == '*') {
            i += 2;
            while (i + 1 < t.size() && !(t[i] == '*' && t[i + 1] == '/')) line += t[i++] == '\n';
            i += 2;
            continue;
        }
        const std::size_t start = i;
        if (c == '"') {
            ++i;
            while (i < t.size() && t[i] != '"') i += t[i] == '\\' ? 2 : 1;
            ++i;
        } else if (ident_char(c)) {
            // "::" inside a name belongs to it (ld.global.L1::no_allocate, mbarrier.init.shared::cta.b64).
            while (i < t.size() && (ident_char(t[i]) || (t.substr(i, 2) == "::" && i + 2 < t.size() && ident_char(t[i + 2]))))
                i += t[i] == ':' ? 2 : 1;
        } else {
            ++i;
        }
        out.push_back(Token{t.substr(start, std::min(i, t.size()) - start), line});
    }
    return out;
}

// ----------------------------------------------------------- statements --

namespace {

bool linkage(std::string_view s) { return s == ".visible" || s == ".weak" || s == ".extern" || s == ".common"; }
bool ends_with_line(std::string_view s)
{
    return s == ".version" || s == ".target" || s == ".address_size" || s == ".file" || s == ".loc";
}

// From `i` to a ';' at brace depth 0 (included), or up to a '}' at depth 0.
std::size_t to_semicolon(const std::vector<Token>& t, std::size_t i)
{
    for (int depth = 0; i < t.size(); ++i) {
        const std::string_view s = t[i].s;
        if (s == ";" && depth == 0) return i + 1;
        if (s == "}" && depth == 0) return i;
        depth += s == "{" ? 1 : s == "}" ? -1 : 0;
    }
    return i;
}

// A function header: to its ';' (included) or its body's '{' (excluded), at parenthesis depth 0.
std::size_t header_end(const std::vector<Token>& t, std::size_t i)
{
    for (int depth = 0; i < t.size(); ++i) {
        const std::string_view s = t[i].s;
        if (depth == 0 && s == ";") return i + 1;
        if (depth == 0 && s == "{") return i;
        depth += s == "(" ? 1 : s == ")" ? -1 : 0;
    }
    return i;
}

std::size_t matching_brace(const std::vector<Token>& t, std::size_t open)
{
    std::size_t i = open;
    for (int depth = 0; i < t.size(); ++i) {
        depth += t[i].s == "{" ? 1 : t[i].s == "}" ? -1 : 0;
        if (depth == 0) return i + 1;
    }
    return i;
}

}  // namespace

std::vector<Statement> split_statements(const std::vector<Token>& t)
{
    std::vector<Statement> out;
    for (std::size_t i = 0; i < t.size();) {
        const std::string_view s = t[i].s;
        StatementKind kind = StatementKind::Instruction;
        std::size_t end = i + 1;
        if (s == "{") kind = StatementKind::Open;
        else if (s == "}") kind = StatementKind::Close;
        else if (i + 1 < t.size() && t[i + 1].s == ":") kind = StatementKind::Label, end = i + 2;
        else if (s.starts_with(".")) {
            kind = StatementKind::Directive;
            std::size_t j = i;
            while (j < t.size() && linkage(t[j].s)) ++j;
            const std::string_view d = j < t.size() ? t[j].s : std::string_view{};
            if (d == ".entry" || d == ".func") end = header_end(t, j);
            else if (ends_with_line(d)) {
                end = j + 1;
                while (end < t.size() && t[end].line == t[j].line) ++end;
            } else if (d == ".section") end = j + 2 < t.size() && t[j + 2].s == "{" ? matching_brace(t, j + 2) : j + 2;
            else end = to_semicolon(t, j);
        } else {
            end = to_semicolon(t, i);
        }
        end = std::max(end, i + 1);
        out.push_back(Statement{kind, i, std::min(end, t.size()), t[i].line});
        i = out.back().end;
    }
    return out;
}

std::string_view source_span(const std::vector<Token>& t, Span s)
{
    if (s.empty()) return {};
    const char* b = t[s.first].s.data();
    const char* e = t[s.end - 1].s.data() + t[s.end - 1].s.size();
    return {b, static_cast<std::size_t>(e - b)};
}
std::string_view source_span(const std::vector<Token>& t, const Statement& s) { return source_span(t, Span{s.first, s.end}); }

// ------------------------------------------------------- instructions --

namespace {

// Splits [first, end) at commas outside (), [], {}; `|` splits too and marks a pair.
void split_operands(const std::vector<Token>& t, std::size_t first, std::size_t end, std::vector<Span>& out,
                    std::vector<bool>* paired)
{
    std::size_t start = first;
    int depth = 0;
    for (std::size_t i = first; i <= end; ++i) {
        const std::string_view s = i < end ? t[i].s : std::string_view{","};
        if (s == "(" || s == "[" || s == "{") ++depth;
        if (s == ")" || s == "]" || s == "}") --depth;
        if (depth == 0 && (s == "," || (paired && s == "|"))) {
            if (i > start || s == "|") {
                out.push_back(Span{start, i});
                if (paired) paired->push_back(s == "|");
            }
            start = i + 1;
        }
    }
}

}  // namespace

InstructionStatement read_instruction(const std::vector<Token>& t, const Statement& s)
{
    InstructionStatement in;
    std::size_t i = s.first, end = s.end;
    if (end > i && t[end - 1].s == ";") --end;
    if (i < end && t[i].s == "@") {
        in.guarded = true;
        ++i;
        if (i < end && t[i].s == "!") in.guard_negated = true, ++i;
        if (i < end) in.guard = t[i++].s;
    }
    if (i < end) in.opcode = t[i++].s;
    for (std::size_t b = 0; b <= in.opcode.size();) {
        std::size_t e = in.opcode.find('.', b);
        if (e == std::string_view::npos) e = in.opcode.size();
        in.parts.push_back(in.opcode.substr(b, e - b));
        b = e + 1;
    }
    split_operands(t, i, end, in.operands, &in.paired);
    return in;
}

bool has_part(const InstructionStatement& in, std::string_view part)
{
    return std::find(in.parts.begin(), in.parts.end(), part) != in.parts.end();
}

unsigned vector_width(const InstructionStatement& in)
{
    for (std::string_view p : in.parts)
        if (p == "v2") return 2;
        else if (p == "v4") return 4;
        else if (p == "v8") return 8;
    return 1;
}

unsigned shared_access_bytes(const InstructionStatement& in)
{
    if (in.parts.empty()) return 0;
    const std::string_view base = in.parts[0];
    if (base != "ld" && base != "ldu" && base != "st" && base != "atom" && base != "red") return 0;
    if (!has_part(in, "shared") && !has_part(in, "shared::cta")) return 0;
    for (auto p = in.parts.rbegin(); p != in.parts.rend(); ++p)
        if (const Ty ty = type_of(*p); ty != Ty::None) return ty_bytes(ty);
    return 0;
}

std::optional<AddressOperand> read_address(const std::vector<Token>& t, Span o)
{
    if (o.end - o.first < 3 || t[o.first].s != "[" || t[o.end - 1].s != "]") return std::nullopt;
    std::size_t i = o.first + 1;
    const std::size_t end = o.end - 1;
    AddressOperand a;
    auto number = [&](bool negative) -> bool {
        if (i >= end) return false;
        const auto v = parse_integer(t[i++].s);
        if (!v) return false;
        a.offset += negative ? -*v : *v;
        return true;
    };
    const std::string_view first = t[i].s;
    if (first == "-") {
        ++i;
        if (!number(true)) return std::nullopt;
    } else if (std::isdigit(static_cast<unsigned char>(first[0]))) {
        if (!number(false)) return std::nullopt;
    } else {
        a.base = first;
        ++i;
    }
    if (i < end && t[i].s == "+") {
        ++i;
        const bool negative = i < end && t[i].s == "-";
        if (negative) ++i;
        if (!number(negative)) return std::nullopt;
    } else if (i < end && t[i].s == "-") {
        ++i;
        if (!number(true)) return std::nullopt;
    }
    if (i != end) return std::nullopt;
    return a;
}

std::vector<Span> vector_elements(const std::vector<Token>& t, Span o)
{
    if (o.empty() || t[o.first].s != "{" || t[o.end - 1].s != "}") return {o};
    std::vector<Span> out;
    split_operands(t, o.first + 1, o.end - 1, out, nullptr);
    return out;
}

// --------------------------------------------------------- declarations --

bool is_declaration(const std::vector<Token>& t, const Statement& s)
{
    std::size_t i = s.first;
    while (i < s.end && linkage(t[i].s)) ++i;
    if (i >= s.end) return false;
    const std::string_view d = t[i].s;
    return d == ".reg" || d == ".shared" || d == ".local" || d == ".param" || d == ".global" || d == ".const";
}

Declaration read_declaration(const std::vector<Token>& t, Span s)
{
    Declaration d;
    std::size_t i = s.first;
    std::size_t end = s.end;
    if (end > i && t[end - 1].s == ";") --end;
    auto at = [&](std::size_t k) { return k < end ? t[k].s : std::string_view{}; };
    for (; linkage(at(i)); ++i) d.is_extern |= at(i) == ".extern";
    d.space = at(i++);
    while (at(i).starts_with(".")) {
        const std::string_view q = at(i++);
        if (q == ".align") d.align = static_cast<unsigned>(parse_integer(at(i++)).value_or(0));
        else if (q == ".attribute" && at(i) == "(") {  // .attribute(.managed): a __managed__ variable
            for (++i; i < end && at(i) != ")"; ++i)
                if (at(i) == ".managed") d.managed = true;
                else if (at(i) != "," && d.unknown.empty()) d.unknown = at(i);
            ++i;
        }
        else if (Ty ty = type_of(q.substr(1)); ty != Ty::None) d.ty = ty;
        else if (q != ".ptr" && q != ".v2" && q != ".v4" && q != ".global" && q != ".shared" && q != ".const" &&
                 q != ".local" && d.unknown.empty())
            d.unknown = q;
    }
    while (i < end) {
        DeclaredName n;
        n.name = at(i++);
        if (at(i) == "<") {  // %r<16>: registers %r0 .. %r15
            n.registers = static_cast<std::uint32_t>(parse_integer(at(i + 1)).value_or(0));
            i += 3;
        }
        while (at(i) == "[") {
            if (at(i + 1) == "]") {
                n.unsized = true;
                i += 2;
                continue;
            }
            n.count *= static_cast<std::uint64_t>(parse_integer(at(i + 1)).value_or(0));
            i += 3;
        }
        if (at(i) == "=") {
            std::vector<Span> parts;
            split_operands(t, i + 1, end, parts, nullptr);
            n.initialiser = parts.empty() ? Span{i + 1, i + 1} : parts.front();
            i = n.initialiser.end;
        }
        d.names.push_back(n);
        if (at(i) != ",") break;
        ++i;
    }
    return d;
}

std::uint64_t declared_bytes(const Declaration& d, const DeclaredName& n)
{
    return n.unsized ? 0 : n.count * std::max(1u, ty_bytes(d.ty));
}
unsigned declared_align(const Declaration& d) { return d.align ? d.align : std::max(1u, ty_bytes(d.ty)); }
bool dynamic_shared(const Declaration& d, const DeclaredName& n) { return n.unsized || (d.is_extern && declared_bytes(d, n) == 0); }

bool is_function_header(const std::vector<Token>& t, const Statement& s)
{
    std::size_t i = s.first;
    while (i < s.end && linkage(t[i].s)) ++i;
    return i < s.end && (t[i].s == ".entry" || t[i].s == ".func");
}

namespace {
// "( .param .u64 a, .param .b32 b )" at `i`: one declaration each; `i` ends past ')'.
std::vector<Declaration> parameter_list(const std::vector<Token>& t, std::size_t& i, std::size_t end)
{
    std::vector<Declaration> out;
    std::size_t close = i;
    for (int depth = 0; close < end; ++close) {
        depth += t[close].s == "(" ? 1 : t[close].s == ")" ? -1 : 0;
        if (depth == 0) break;
    }
    std::vector<Span> params;
    split_operands(t, i + 1, std::min(close, end), params, nullptr);
    for (Span p : params) out.push_back(read_declaration(t, p));
    i = close + 1;
    return out;
}
}  // namespace

FunctionHeader read_function_header(const std::vector<Token>& t, const std::vector<Statement>& all, std::size_t k)
{
    const Statement& s = all[k];
    FunctionHeader h;
    std::size_t i = s.first;
    for (; i < s.end && linkage(t[i].s); ++i) h.is_extern |= t[i].s == ".extern";
    h.entry = i < s.end && t[i].s == ".entry";
    ++i;
    if (!h.entry && i < s.end && t[i].s == "(") h.returns = parameter_list(t, i, s.end);
    if (i < s.end) h.name = t[i++].s;
    if (i < s.end && t[i].s == "(") h.params = parameter_list(t, i, s.end);
    h.body = t[s.end - 1].s != ";" && k + 1 < all.size() && all[k + 1].kind == StatementKind::Open;
    return h;
}

std::vector<FunctionBody> function_bodies(const std::vector<Token>& t, const std::vector<Statement>& all)
{
    std::vector<FunctionBody> out;
    for (std::size_t k = 0; k < all.size(); ++k) {
        if (!is_function_header(t, all[k])) continue;
        const FunctionHeader h = read_function_header(t, all, k);
        if (!h.body) continue;
        FunctionBody f{h.entry, h.name, k, k + 1, all.size()};
        int depth = 0;
        for (std::size_t j = f.open; j < all.size(); ++j) {
            depth += all[j].kind == StatementKind::Open ? 1 : all[j].kind == StatementKind::Close ? -1 : 0;
            if (depth == 0) {
                f.close = j;
                break;
            }
        }
        out.push_back(f);
        k = f.close;
    }
    return out;
}

namespace {

std::vector<SharedDeclaration> shared_declared(const std::vector<Token>& t, const Statement& s)
{
    std::vector<SharedDeclaration> out;
    if (s.kind != StatementKind::Directive || !is_declaration(t, s)) return out;
    const Declaration d = read_declaration(t, Span{s.first, s.end});
    if (d.space == ".shared")
        for (const DeclaredName& n : d.names) out.push_back(SharedDeclaration{n.name, dynamic_shared(d, n)});
    return out;
}

// The function a call statement calls by name (npos: an indirect call, or none with a body).
std::size_t callee(const std::vector<Token>& t, const Statement& s, const std::vector<FunctionBody>& bodies)
{
    const InstructionStatement in = read_instruction(t, s);
    if (in.parts.empty() || in.parts[0] != "call") return std::string_view::npos;
    for (Span o : in.operands) {
        if (t[o.first].s == "(") continue;  // the return and argument lists
        for (std::size_t b = 0; b < bodies.size(); ++b)
            if (bodies[b].name == t[o.first].s) return b;
        return std::string_view::npos;
    }
    return std::string_view::npos;
}

}  // namespace

SharedUse::SharedUse(const std::vector<Token>& t, const std::vector<Statement>& all, const std::vector<FunctionBody>& bodies)
    : calls_(bodies.size()), names_(bodies.size())
{
    std::map<std::string_view, std::size_t> module_scope;  // name -> index into declared_
    std::size_t body = 0;                                   // the first body not yet left behind
    for (std::size_t k = 0; k < all.size(); ++k) {
        while (body < bodies.size() && k >= bodies[body].close) ++body;
        const bool inside = body < bodies.size() && k > bodies[body].open;
        for (const SharedDeclaration& d : shared_declared(t, all[k])) {
            if (!inside) module_scope[d.name] = declared_.size();
            declared_.push_back(Declared{d, inside ? body : std::string_view::npos});
        }
    }
    // A token can name one only at one of their lengths: most tokens (registers, punctuation) are looked up no further.
    std::vector<bool> name_length;
    for (const auto& [name, d] : module_scope) {
        if (name.size() >= name_length.size()) name_length.resize(name.size() + 1, false);
        name_length[name.size()] = true;
    }
    const auto may_name = [&](std::string_view token) { return token.size() < name_length.size() && name_length[token.size()]; };
    for (std::size_t b = 0; b < bodies.size(); ++b)
        for (std::size_t k = bodies[b].open; k < bodies[b].close && k < all.size(); ++k) {
            if (all[k].kind != StatementKind::Instruction) continue;
            if (const std::size_t c = callee(t, all[k], bodies); c != std::string_view::npos) calls_[b].push_back(c);
            for (std::size_t i = all[k].first; i < all[k].end; ++i)
                if (may_name(t[i].s))
                    if (auto it = module_scope.find(t[i].s); it != module_scope.end()) names_[b].push_back(it->second);
        }
}

std::vector<SharedDeclaration> SharedUse::of(std::size_t kernel) const
{
    std::vector<bool> reached(calls_.size(), false), named(declared_.size(), false);
    std::vector<std::size_t> todo{kernel};
    reached[kernel] = true;
    while (!todo.empty()) {
        const std::size_t b = todo.back();
        todo.pop_back();
        for (std::size_t d : names_[b]) named[d] = true;
        for (std::size_t c : calls_[b])
            if (!reached[c]) reached[c] = true, todo.push_back(c);
    }
    std::vector<SharedDeclaration> out;
    for (std::size_t d = 0; d < declared_.size(); ++d)
        if (declared_[d].body == std::string_view::npos ? named[d] : reached[declared_[d].body]) out.push_back(declared_[d].decl);
    return out;
}

// ---------------------------------------------------- source locations --

std::optional<FileDirective> read_file_directive(const std::vector<Token>& t, const Statement& s)
{
    if (s.end - s.first < 3 || t[s.first].s != ".file") return std::nullopt;
    const auto index = parse_integer(t[s.first + 1].s);
    std::string_view path = t[s.first + 2].s;
    if (!index) return std::nullopt;
    if (path.size() >= 2 && path.front() == '"') path = path.substr(1, path.size() - 2);
    return FileDirective{static_cast<std::uint32_t>(*index), std::string(path)};
}

std::optional<std::vector<SourceFrame>> read_loc(const std::vector<Token>& t, const Statement& s, std::string& error)
{
    std::size_t i = s.first + 1;
    std::vector<SourceFrame> named;
    auto at = [&](std::size_t k) { return k < s.end ? t[k].s : std::string_view{}; };
    auto file_line = [&] {
        const auto f = parse_integer(at(i)), l = parse_integer(at(i + 1));
        if (!f || !l) {
            error = "bad .loc '" + std::string(at(i)) + " " + std::string(at(i + 1)) + "'";
            return false;
        }
        i += 2;
        if (!at(i).empty() && std::isdigit(static_cast<unsigned char>(at(i)[0]))) ++i;  // column
        named.emplace_back(static_cast<std::uint32_t>(*f), static_cast<std::uint32_t>(*l));
        return true;
    };
    if (!file_line()) return std::nullopt;
    while (at(i) == ",") {
        const std::string_view key = at(++i);
        ++i;
        if (key == "function_name") ++i;
        else if (key == "inlined_at") {
            if (!file_line()) return std::nullopt;
        } else {
            error = "unknown .loc attribute '" + std::string(key) + "'";
            return std::nullopt;
        }
    }
    return named;
}

std::vector<SourceFrame> CallerChains::chain(std::vector<SourceFrame> named)
{
    if (named.size() == 2)
        if (auto known = chains_.find(named[1]); known != chains_.end()) {
            named.resize(1);
            named.insert(named.end(), known->second.begin(), known->second.end());
        }
    chains_[named.front()] = named;
    return named;
}

bool is_toolkit_path(std::string_view path)
{
    auto has = [&](std::string_view part) { return path.find(part) != std::string_view::npos; };
    return has("/targets/") || has("/crt/") || (has("cuda") && has("/include/"));
}

SourceFrame user_frame(const std::vector<SourceFrame>& chain, const std::map<std::uint32_t, std::string>& files, bool& found)
{
    for (const SourceFrame& f : chain) {
        auto it = files.find(f.first);
        if (it == files.end() || !is_toolkit_path(it->second)) {
            found = true;
            return f;
        }
    }
    found = false;
    return chain.back();
}

// ---------------------------------------------------------- shared arrays --

unsigned shared_element_bytes(unsigned align, unsigned narrowest_access, std::uint64_t bytes)
{
    unsigned e = std::min(std::max(1u, align), narrowest_access);
    while (e > 1 && bytes % e) e /= 2;
    return e;
}

}  // namespace wl::ptx::detail

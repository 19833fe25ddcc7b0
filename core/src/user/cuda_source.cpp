#include "warplab/ptx/cuda_source.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "cuda_text.h"

namespace wl::ptx {

namespace detail {

std::string trim(std::string s)
{
    const auto not_space = [](unsigned char c) { return !std::isspace(c); };
    s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
    s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
    return s;
}

}  // namespace detail

namespace {

using detail::trim;

// Splits at the commas outside <>, (), [] and {}.
std::vector<std::string> split_top_level(std::string_view s)
{
    std::vector<std::string> out;
    int depth = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (c == '<' || c == '(' || c == '[' || c == '{') ++depth;
        if (c == '>' || c == ')' || c == ']' || c == '}') --depth;
        if (c == ',' && depth == 0) {
            out.push_back(trim(std::string(s.substr(start, i - start))));
            start = i + 1;
        }
    }
    if (const std::string last = trim(std::string(s.substr(start))); !last.empty() || !out.empty()) out.push_back(last);
    return out;
}

// ------------------------------------------------------------- scanning --

struct Token {
    std::string text;
    unsigned line;
};
using Tokens = std::vector<Token>;

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_identifier(const std::string& w) { return !w.empty() && ident_start(w.front()); }

// The path of `#include "path"`; empty for any other directive.
std::string included_path(std::string_view directive)
{
    directive.remove_prefix(1);
    while (!directive.empty() && (directive.front() == ' ' || directive.front() == '\t')) directive.remove_prefix(1);
    if (!directive.starts_with("include")) return "";
    const std::size_t open = directive.find('"'), close = directive.find('"', open + 1);
    return close == std::string_view::npos ? "" : std::string(directive.substr(open + 1, close - open - 1));
}

// Identifiers, numbers, "::" and single punctuation; comments, string and
// character literals and preprocessor lines are skipped. `facts` gets whether
// `__global__` occurs anywhere, a macro included, and the `#include "..."` paths.
Tokens tokenize(std::string_view s, CudaSource& facts)
{
    Tokens out;
    unsigned line = 1;
    bool line_start = true;
    for (std::size_t i = 0; i < s.size();) {
        const char c = s[i];
        if (c == '\n') {
            ++line, ++i, line_start = true;
            continue;
        }
        if (std::isspace(static_cast<unsigned char>(c))) {
            ++i;
            continue;
        }
        if (s.compare(i, 2, "//") == 0) {
            i = s.find('\n', i);
            if (i == std::string_view::npos) break;
            continue;
        }
        if (s.compare(i, 2, "/*") == 0) {
            const std::size_t end = s.find("*/", i + 2);
            const std::size_t stop = end == std::string_view::npos ? s.size() : end + 2;
            line += static_cast<unsigned>(std::count(s.begin() + i, s.begin() + stop, '\n'));
            i = stop;
            continue;
        }
        if (c == '#' && line_start) {  // a directive, with its continuation lines
            std::size_t j = i;
            while (j < s.size() && !(s[j] == '\n' && s[j - 1] != '\\')) ++j;
            const std::string_view directive = s.substr(i, j - i);
            if (directive.find("__global__") != std::string_view::npos) facts.mentions_global = true;
            if (std::string path = included_path(directive); !path.empty()) facts.includes.push_back(std::move(path));
            line += static_cast<unsigned>(std::count(directive.begin(), directive.end(), '\n'));
            i = j;
            continue;
        }
        line_start = false;
        if (c == '"' || c == '\'') {
            std::size_t j = i + 1;
            while (j < s.size() && s[j] != c && s[j] != '\n') j += s[j] == '\\' ? 2 : 1;
            i = j + 1;
            continue;
        }
        std::size_t j = i + 1;
        if (ident_start(c) || std::isdigit(static_cast<unsigned char>(c)))
            while (j < s.size() && (ident_char(s[j]) || s[j] == '.')) ++j;
        else if (s.compare(i, 2, "::") == 0)
            j = i + 2;
        out.push_back({std::string(s.substr(i, j - i)), line});
        if (out.back().text == "__global__") facts.mentions_global = true;
        i = j;
    }
    return out;
}

bool integral_type(std::string type)
{
    static const std::set<std::string> integral{
        "int", "unsigned", "unsigned int", "signed", "signed int", "long", "long int", "unsigned long",
        "unsigned long int", "long long", "unsigned long long", "short", "unsigned short", "size_t", "std::size_t",
        "int32_t", "uint32_t", "int64_t", "uint64_t", "std::int32_t", "std::uint32_t", "std::int64_t",
        "std::uint64_t", "auto", "char", "unsigned char", "signed char", "uint", "ptrdiff_t", "std::ptrdiff_t"};
    if (type.starts_with("const ")) type = type.substr(6);
    return integral.count(trim(type)) > 0;
}

TemplateParam parse_param(const std::string& text)
{
    TemplateParam p;
    p.text = text;
    std::string decl = text;
    int depth = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {  // a default after a top-level '='
        if (text[i] == '<' || text[i] == '(') ++depth;
        if (text[i] == '>' || text[i] == ')') --depth;
        if (text[i] == '=' && depth == 0) {
            decl = trim(text.substr(0, i));
            p.default_value = trim(text.substr(i + 1));
            break;
        }
    }
    std::size_t end = decl.size();
    while (end > 0 && !ident_char(decl[end - 1])) --end;  // "T" of "class T", or of "class... Ts"
    std::size_t start = end;
    while (start > 0 && ident_char(decl[start - 1])) --start;
    p.name = decl.substr(start, end - start);
    const std::string before = trim(decl.substr(0, start));
    if (before.find("...") != std::string::npos || decl.starts_with("template"))
        p.kind = TemplateParam::Kind::Other;
    else if (before == "class" || before == "typename")
        p.kind = TemplateParam::Kind::Type;
    else
        p.kind = integral_type(before) ? TemplateParam::Kind::Integral : TemplateParam::Kind::Other;
    return p;
}

// The text of tokens [from, to) as written, joined by spaces where needed
// and after `*`, `&` and `,` before a word: "const float* __restrict__".
std::string join(const Tokens& t, std::size_t from, std::size_t to)
{
    std::string out;
    for (std::size_t i = from; i < to; ++i) {
        const bool words = !out.empty() && (ident_char(out.back()) || std::string_view("*&,").find(out.back()) != std::string_view::npos) &&
                           ident_char(t[i].text.front());
        if (words || (!out.empty() && (t[i].text == "=" || out.back() == '='))) out += ' ';
        out += t[i].text;
    }
    return out;
}

// The index just past the group that opens at t[i] ('<', '(', '[' or '{') and its closer.
std::size_t skip_group(const Tokens& t, std::size_t i)
{
    static const std::map<std::string, std::string> closer{{"<", ">"}, {"(", ")"}, {"[", "]"}, {"{", "}"}};
    const std::string open = t[i].text, close = closer.at(open);
    int depth = 0;
    for (; i < t.size(); ++i) {
        if (t[i].text == open || (open == "<" && t[i].text == "(")) ++depth;
        if (t[i].text == close || (open == "<" && t[i].text == ")")) --depth;
        if (depth == 0) return i + 1;
    }
    return t.size();
}

// The parts of tokens [from, to) between its top-level commas, as [begin, end) pairs.
std::vector<std::pair<std::size_t, std::size_t>> top_level_parts(const Tokens& t, std::size_t from, std::size_t to)
{
    std::vector<std::pair<std::size_t, std::size_t>> out;
    std::size_t start = from;
    for (std::size_t i = from; i < to; ++i) {
        const std::string& w = t[i].text;
        if (w == "(" || w == "[" || w == "{" || w == "<") {
            i = std::min(skip_group(t, i), to) - 1;
        } else if (w == ",") {
            out.emplace_back(start, i);
            start = i + 1;
        }
    }
    out.emplace_back(start, to);
    return out;
}

// One function parameter of its tokens [from, to): its name is the last
// identifier before a default and array bounds ("" where it has none:
// `float*`, `int`, `const float* __restrict__`); its type the rest.
Parameter parameter(const Tokens& t, std::size_t from, std::size_t to)
{
    static const std::set<std::string> not_names{
        "const", "volatile", "__restrict__", "restrict", "__grid_constant__", "unsigned", "signed", "int", "long",
        "short", "char", "float", "double", "bool", "void", "size_t", "auto"};
    for (std::size_t i = from; i < to; ++i)
        if (t[i].text == "=") to = i;
    std::size_t name_end = to;
    while (name_end > from && t[name_end - 1].text == "]") {  // `float tile[16][17]`
        while (name_end > from && t[name_end - 1].text != "[") --name_end;
        if (name_end > from) --name_end;
    }
    const bool named = name_end - from >= 2 && is_identifier(t[name_end - 1].text) && !not_names.count(t[name_end - 1].text) &&
                       t[name_end - 2].text != "::";
    if (!named) return {join(t, from, to), ""};
    return {join(t, from, name_end - 1) + join(t, name_end, to), t[name_end - 1].text};
}

// The function parameters in the parenthesis that opens at t[open].
std::vector<Parameter> parameters(const Tokens& t, std::size_t open)
{
    const std::size_t close = skip_group(t, open) - 1;
    std::vector<Parameter> out;
    if (close == open + 1 || (close == open + 2 && t[open + 1].text == "void")) return out;
    for (const auto& [from, to] : top_level_parts(t, open + 1, close)) out.push_back(parameter(t, from, to));
    return out;
}

// ---------------------------------------------------------- variables --

// Specifiers a variable's type leaves out; `__align__(8)`, `alignas(8)` and
// `__attribute__((...))` with their parenthesis.
const std::set<std::string>& specifiers()
{
    static const std::set<std::string> words{"extern", "static", "volatile", "const", "__shared__", "__constant__",
                                             "__device__", "__managed__", "__restrict__", "__align__", "alignas",
                                             "__attribute__"};
    return words;
}

// One declarator of its tokens [from, to): `*`s, a name, bounds, an initialiser.
struct Declarator {
    std::size_t name = 0;  // the index of its name; 0: none found
    std::vector<std::string> dims;
};

Declarator declarator(const Tokens& t, std::size_t from, std::size_t to)
{
    std::size_t end = from;
    while (end < to && t[end].text != "[" && t[end].text != "=" && t[end].text != "{" && t[end].text != "(") ++end;
    Declarator d;
    if (end == from || !is_identifier(t[end - 1].text) || specifiers().count(t[end - 1].text)) return d;
    d.name = end - 1;
    for (std::size_t i = end; i < to && t[i].text == "[";) {
        const std::size_t close = std::min(skip_group(t, i), to);
        d.dims.push_back(join(t, i + 1, close - 1));
        i = close;
    }
    return d;
}

// Scopes as the scan meets braces: what each `{` opened.
struct Scope {
    std::string name_space;                  // a namespace's name; "" for any other brace
    std::string kernel;                      // the kernel whose body it is in
    std::set<std::string> type_parameters;   // the type parameters of the templates around it
};

class Reader {
public:
    explicit Reader(std::string_view text) { t_ = tokenize(text, out_); }

    CudaSource read()
    {
        for (std::size_t i = 0; i < t_.size(); ++i) i = step(i);
        return std::move(out_);
    }

private:
    // Reads what starts at t_[i]; returns the index of the last token it took.
    std::size_t step(std::size_t i)
    {
        const std::string& w = t_[i].text;
        if (w == "namespace") return open_namespace(i);
        if (w == "{") {
            Scope inner{"", body_kernel_ && *body_kernel_ == i ? body_name_ : here().kernel, here().type_parameters};
            if (pending_)
                for (const TemplateParam& p : *pending_)
                    if (p.kind == TemplateParam::Kind::Type) inner.type_parameters.insert(p.name);
            scopes_.push_back(std::move(inner));
            end_statement(i);
            return i;
        }
        if (w == "}") {
            if (!scopes_.empty()) scopes_.pop_back();
            end_statement(i);
            return i;
        }
        if (w == ";") {
            end_statement(i);
            return i;
        }
        if (w == "template") return open_template(i);
        if (w == "__shared__" || w == "__constant__") return read_variables(i);
        if (w == "__global__" && !explicit_instantiation_) read_kernel(i);
        return i;
    }

    const Scope& here() const
    {
        static const Scope file;
        return scopes_.empty() ? file : scopes_.back();
    }

    void end_statement(std::size_t i)
    {
        pending_.reset();
        explicit_instantiation_ = false;
        statement_start_ = i + 1;
    }

    std::size_t open_namespace(std::size_t i)
    {
        std::string name;
        std::size_t j = i + 1;
        for (; j < t_.size() && t_[j].text != "{" && t_[j].text != ";" && t_[j].text != "="; ++j) name += t_[j].text;
        if (j >= t_.size() || t_[j].text != "{") return i;
        scopes_.push_back({name, "", {}});  // anonymous: its names are reached from outside as they are
        end_statement(j);
        return j;
    }

    std::size_t open_template(std::size_t i)
    {
        if (i + 1 >= t_.size() || t_[i + 1].text != "<") {
            explicit_instantiation_ = true;
            return i;
        }
        const std::size_t end = skip_group(t_, i + 1);
        std::vector<TemplateParam> params;
        for (const std::string& p : split_top_level(join(t_, i + 2, end - 1)))
            if (!p.empty()) params.push_back(parse_param(p));
        pending_ = std::move(params);
        return end - 1;
    }

    // `__global__ void __launch_bounds__(256) name(`: the name is the identifier before the first '(' or '<'.
    void read_kernel(std::size_t i)
    {
        std::size_t j = i + 1;
        const auto to_name = [&] {
            while (j + 1 < t_.size() && !(t_[j + 1].text == "(" || t_[j + 1].text == "<")) ++j;
        };
        to_name();
        if (j + 1 < t_.size() && t_[j].text == "__launch_bounds__") {
            j = skip_group(t_, j + 1);
            to_name();
        }
        if (j + 1 >= t_.size() || t_[j + 1].text == "<" || !ident_start(t_[j].text.front())) return;  // a specialisation
        std::string name = t_[j].text;
        for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s)
            if (!s->name_space.empty()) name = s->name_space + "::" + name;
        const std::size_t close = skip_group(t_, j + 1);
        std::size_t body = close;
        while (body < t_.size() && t_[body].text != "{" && t_[body].text != ";") ++body;
        if (body < t_.size() && t_[body].text == "{") body_kernel_ = body, body_name_ = name;
        const bool seen = std::any_of(out_.kernels.begin(), out_.kernels.end(), [&](const KernelDecl& k) { return k.name == name; });
        if (!seen)
            out_.kernels.push_back(KernelDecl{name, pending_.value_or(std::vector<TemplateParam>{}), pending_.has_value(), t_[i].line,
                                              parameters(t_, j + 1)});
    }

    // The declaration statement around t_[i] (`__shared__` or `__constant__`),
    // to its `;`: one VariableDecl per declarator. Returns the index of the `;`.
    std::size_t read_variables(std::size_t i)
    {
        std::size_t end = i;
        while (end < t_.size() && t_[end].text != ";" && t_[end].text != "}")
            end = t_[end].text == "{" || t_[end].text == "(" ? skip_group(t_, end) : end + 1;
        VariableDecl base;
        base.space = t_[i].text == "__shared__" ? VariableDecl::Space::Shared : VariableDecl::Space::Constant;
        base.kernel = here().kernel;
        Tokens kept;  // the statement without its specifiers
        for (std::size_t k = statement_start_; k < end; ++k) {
            const std::string& w = t_[k].text;
            if (w == "extern") base.is_extern = true;
            if (!specifiers().count(w)) {
                kept.push_back(t_[k]);
                continue;
            }
            if (k + 1 < end && t_[k + 1].text == "(") k = skip_group(t_, k + 1) - 1;
        }
        bool first = true;
        for (const auto& [from, to] : top_level_parts(kept, 0, kept.size())) {
            const Declarator d = declarator(kept, from, to);
            if (d.name == 0) {  // index 0 is no name: a type comes first
                if (first) break;  // no type and name to read: not a declaration this reads
                continue;
            }
            VariableDecl v = base;
            if (first) {
                std::size_t type_end = d.name;
                while (type_end > from && kept[type_end - 1].text == "*") --type_end;  // `float *p`: the type is float's
                base.type = join(kept, from, type_end);
                base.type_is_parameter = here().type_parameters.count(base.type) > 0;
                v.type = base.type;
                v.type_is_parameter = base.type_is_parameter;
                first = false;
            }
            v.name = kept[d.name].text;
            v.dims = d.dims;
            v.line = kept[d.name].line;
            out_.variables.push_back(std::move(v));
        }
        if (end < t_.size() && t_[end].text == ";") end_statement(end);
        return end < t_.size() && t_[end].text == ";" ? end : end - 1;
    }

    Tokens t_;
    CudaSource out_;
    std::vector<Scope> scopes_;
    std::optional<std::vector<TemplateParam>> pending_;  // the template<...> just read
    bool explicit_instantiation_ = false;                // `template` without '<'
    std::optional<std::size_t> body_kernel_;             // the `{` that opens the last kernel's body
    std::string body_name_;
    std::size_t statement_start_ = 0;                    // the first token of the statement being read
};

}  // namespace

std::string KernelDecl::signature() const
{
    if (!is_template) return name;
    std::string out = name + "<";
    for (std::size_t i = 0; i < params.size(); ++i) out += (i ? ", " : "") + params[i].text;
    return out + ">";
}

std::string Parameter::pointee() const
{
    const std::size_t star = type.find('*');
    if (star == std::string::npos) return "";
    std::istringstream words(type.substr(0, star));
    std::string out;
    for (std::string w; words >> w;)
        if (w != "const" && w != "volatile") out += (out.empty() ? "" : " ") + w;
    return out;
}

std::vector<std::string> KernelDecl::parameter_names() const
{
    std::vector<std::string> out;
    for (const Parameter& p : parameters) out.push_back(p.name);
    return out;
}

CudaSource read_cuda_source(std::string_view text) { return Reader(text).read(); }

std::string_view instance_name(std::string_view instance) { return instance.substr(0, instance.find_first_of("<(")); }

std::string_view without_parameters(std::string_view instance)
{
    int depth = 0;
    for (std::size_t i = 0; i < instance.size(); ++i) {
        if (instance[i] == '<') ++depth;
        if (instance[i] == '>') --depth;
        if (instance[i] == '(' && depth == 0) return instance.substr(0, i);
    }
    return instance;
}

bool kernel_named(std::string_view qualified, std::string_view name)
{
    return !name.empty() && (qualified == name || (qualified.size() > name.size() + 2 && qualified.ends_with(name) &&
                                                   qualified.substr(qualified.size() - name.size() - 2, 2) == "::"));
}

std::vector<std::string> template_arguments(std::string_view instance)
{
    const std::size_t open = instance.find('<');
    const std::size_t paren = instance.find('(');
    if (open == std::string_view::npos || (paren != std::string_view::npos && paren < open)) return {};
    int depth = 0;
    for (std::size_t i = open; i < instance.size(); ++i) {
        if (instance[i] == '<') ++depth;
        if (instance[i] == '>' && --depth == 0) return split_top_level(instance.substr(open + 1, i - open - 1));
    }
    return {};
}

std::optional<long long> integral_argument(std::string_view argument)
{
    std::string a = trim(std::string(argument));
    if (a.starts_with("(") && a.find(')') != std::string::npos) a = trim(a.substr(a.find(')') + 1));  // "(unsigned short)256"
    long long value = 0;
    const auto [end, ec] = std::from_chars(a.data(), a.data() + a.size(), value);
    if (ec != std::errc() || end == a.data()) return std::nullopt;
    for (const char* c = end; c != a.data() + a.size(); ++c)
        if (!std::strchr("uUlL", *c)) return std::nullopt;  // "256u" is a value, "2x" is not
    return value;
}

unsigned type_bytes(std::string_view type)
{
    static const std::map<std::string_view, unsigned> sizes = {
        {"char", 1}, {"signed char", 1}, {"unsigned char", 1}, {"int8_t", 1}, {"uint8_t", 1}, {"bool", 1},
        {"short", 2}, {"unsigned short", 2}, {"int16_t", 2}, {"uint16_t", 2}, {"half", 2}, {"__half", 2},
        {"__nv_bfloat16", 2}, {"int", 4}, {"unsigned", 4}, {"unsigned int", 4}, {"int32_t", 4}, {"uint32_t", 4},
        {"float", 4}, {"__half2", 4}, {"half2", 4}, {"__nv_bfloat162", 4}, {"long long", 8}, {"long long int", 8},
        {"unsigned long long", 8}, {"unsigned long long int", 8}, {"int64_t", 8}, {"uint64_t", 8}, {"double", 8},
        {"float2", 8}, {"int2", 8}, {"uint2", 8}, {"float4", 16}, {"int4", 16}, {"uint4", 16}, {"double2", 16}};
    if (type.starts_with("std::")) type.remove_prefix(5);
    const auto it = sizes.find(type);
    return it == sizes.end() ? 0 : it->second;
}

namespace {

// A bound as `scale * x + offset` of the one name it may mention (x): "TILE + 1" is {1, 1, "TILE"},
// "2 * (R + 1)" {2, 2, "R"}, "32" {0, 32, ""}. Nothing for other forms (two names, x * x, a call).
struct Affine {
    long long scale = 0, offset = 0;
    std::string name;
};

class BoundReader {
public:
    explicit BoundReader(std::string_view text) : text_(text) {}
    std::optional<Affine> read()
    {
        std::optional<Affine> a = sum();
        skip_spaces();
        return at_ < text_.size() ? std::nullopt : a;
    }

private:
    std::string_view text_;
    std::size_t at_ = 0;

    void skip_spaces()
    {
        while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
    }
    bool take(char c)
    {
        skip_spaces();
        if (at_ < text_.size() && text_[at_] == c) return ++at_, true;
        return false;
    }
    static std::optional<Affine> combine(std::optional<Affine> a, std::optional<Affine> b, long long sign)
    {
        if (!a || !b || (!a->name.empty() && !b->name.empty() && a->name != b->name)) return std::nullopt;
        return Affine{a->scale + sign * b->scale, a->offset + sign * b->offset, a->name.empty() ? b->name : a->name};
    }
    std::optional<Affine> sum()
    {
        std::optional<Affine> a = product();
        while (a) {
            if (take('+')) a = combine(a, product(), 1);
            else if (take('-')) a = combine(a, product(), -1);
            else break;
        }
        return a;
    }
    std::optional<Affine> product()
    {
        std::optional<Affine> a = factor();
        while (a && take('*')) {
            const std::optional<Affine> b = factor();
            if (!b || (a->scale && b->scale)) return std::nullopt;  // x * x is no bound of this form
            a = a->scale ? Affine{a->scale * b->offset, a->offset * b->offset, a->name}
                         : Affine{b->scale * a->offset, b->offset * a->offset, b->name};
        }
        return a;
    }
    std::optional<Affine> factor()
    {
        if (take('(')) {
            std::optional<Affine> a = sum();
            return take(')') ? a : std::nullopt;
        }
        skip_spaces();
        const std::size_t start = at_;
        while (at_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[at_])) || text_[at_] == '_')) ++at_;
        const std::string_view word = text_.substr(start, at_ - start);
        if (word.empty()) return std::nullopt;
        if (const std::optional<long long> n = integral_argument(word)) return Affine{0, *n, ""};
        if (std::isdigit(static_cast<unsigned char>(word[0]))) return std::nullopt;
        return Affine{1, 0, std::string(word)};
    }
};

}  // namespace

std::optional<std::vector<std::uint64_t>> declared_extents(const std::vector<std::string>& dims, std::uint64_t count)
{
    std::vector<Affine> bounds;
    std::string name;
    for (const std::string& d : dims) {
        const std::optional<Affine> a = BoundReader(d).read();
        // A bound that shrinks as the name grows could leave two values: none is guessed.
        if (!a || a->scale < 0 || (!name.empty() && !a->name.empty() && a->name != name)) return std::nullopt;
        if (!a->name.empty()) name = a->name;
        bounds.push_back(*a);
    }
    const auto extents_at = [&](long long x) -> std::optional<std::vector<std::uint64_t>> {
        std::vector<std::uint64_t> extents;
        std::uint64_t product = 1;
        for (const Affine& b : bounds) {
            const long long e = b.scale * x + b.offset;
            if (e <= 0 || product > count / static_cast<std::uint64_t>(e)) return std::nullopt;
            product *= static_cast<std::uint64_t>(e);
            extents.push_back(static_cast<std::uint64_t>(e));
        }
        if (product != count) return std::nullopt;
        return extents;
    };
    if (name.empty()) return extents_at(0);
    // The name's value: the one whole x that makes the product the count (the bounds grow with x,
    // so there is at most one; a shared array holds at most 228 KB, so the search is short).
    for (long long x = 1; x <= static_cast<long long>(std::min<std::uint64_t>(count, 1u << 18)); ++x)
        if (std::optional<std::vector<std::uint64_t>> e = extents_at(x)) return e;
    return std::nullopt;
}

const VariableDecl* find_shared(const std::vector<CudaSource>& sources, std::string_view name, std::string_view kernel)
{
    const VariableDecl* first = nullptr;
    for (const CudaSource& source : sources)
        for (const VariableDecl& v : source.variables) {
            if (v.space != VariableDecl::Space::Shared || v.name != name) continue;
            if (kernel_named(v.kernel, kernel)) return &v;  // "ns::reduce" is the kernel "reduce" a version names bare
            if (!first) first = &v;
        }
    return first;
}

}  // namespace wl::ptx

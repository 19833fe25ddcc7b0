#include "warplab/ptx/kernel_file.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <set>
#include <sstream>

namespace wl::ptx {
namespace fs = std::filesystem;

namespace {

// ------------------------------------------------------------- scanning --

struct Token {
    std::string text;
    unsigned line;
};

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Identifiers, numbers, "::" and single punctuation; comments, string and
// character literals and preprocessor lines are skipped. `saw_global` is set
// where `__global__` occurs anywhere, a macro included.
std::vector<Token> tokenize(std::string_view s, bool& saw_global)
{
    std::vector<Token> out;
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
            if (s.substr(i, j - i).find("__global__") != std::string_view::npos) saw_global = true;
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
        if (out.back().text == "__global__") saw_global = true;
        i = j;
    }
    return out;
}

std::string trim(std::string s)
{
    const auto not_space = [](unsigned char c) { return !std::isspace(c); };
    s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
    s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
    return s;
}

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

// The text of tokens [from, to) as written, joined by spaces where needed.
std::string join(const std::vector<Token>& t, std::size_t from, std::size_t to)
{
    std::string out;
    for (std::size_t i = from; i < to; ++i) {
        const bool words = !out.empty() && ident_char(out.back()) && ident_char(t[i].text.front());
        if (words || (!out.empty() && (t[i].text == "=" || out.back() == '='))) out += ' ';
        out += t[i].text;
    }
    return out;
}

// The index just past the group that opens at t[i] ('<' or '(') and its closer.
std::size_t skip_group(const std::vector<Token>& t, std::size_t i)
{
    const std::string open = t[i].text, close = open == "<" ? ">" : ")";
    int depth = 0;
    for (; i < t.size(); ++i) {
        if (t[i].text == open || (open == "<" && t[i].text == "(")) ++depth;
        if (t[i].text == close || (open == "<" && t[i].text == ")")) --depth;
        if (depth == 0) return i + 1;
    }
    return t.size();
}

// The name one function parameter declares, of its tokens [from, to): the
// last identifier before a default and array bounds ("" where it has none:
// `float*`, `int`, `const float* __restrict__`).
std::string parameter_name(const std::vector<Token>& t, std::size_t from, std::size_t to)
{
    static const std::set<std::string> not_names{
        "const", "volatile", "__restrict__", "restrict", "__grid_constant__", "unsigned", "signed", "int", "long",
        "short", "char", "float", "double", "bool", "void", "size_t", "auto"};
    for (std::size_t i = from; i < to; ++i)
        if (t[i].text == "=") to = i;
    while (to > from && t[to - 1].text == "]") {  // `float tile[16][17]`
        while (to > from && t[to - 1].text != "[") --to;
        if (to > from) --to;
    }
    if (to - from < 2) return "";
    const std::string& last = t[to - 1].text;
    if (!ident_start(last.front()) || not_names.count(last) || t[to - 2].text == "::") return "";
    return last;
}

// The names of the function parameters in the parenthesis that opens at t[open].
std::vector<std::string> parameter_names(const std::vector<Token>& t, std::size_t open)
{
    const std::size_t close = skip_group(t, open) - 1;
    std::vector<std::string> out;
    if (close == open + 1 || (close == open + 2 && t[open + 1].text == "void")) return out;
    int depth = 0;
    std::size_t start = open + 1;
    for (std::size_t i = open + 1; i <= close; ++i) {
        const std::string& w = t[i].text;
        if (i < close && (w == "<" || w == "(" || w == "[" || w == "{")) ++depth;
        if (i < close && (w == ">" || w == ")" || w == "]" || w == "}")) --depth;
        if (i == close || (w == "," && depth == 0)) {
            out.push_back(parameter_name(t, start, i));
            start = i + 1;
        }
    }
    return out;
}

}  // namespace

std::string KernelDecl::signature() const
{
    if (!is_template) return name;
    std::string out = name + "<";
    for (std::size_t i = 0; i < params.size(); ++i) out += (i ? ", " : "") + params[i].text;
    return out + ">";
}

std::vector<KernelDecl> scan_kernels(std::string_view source)
{
    bool saw_global = false;
    const std::vector<Token> t = tokenize(source, saw_global);
    std::vector<KernelDecl> out;
    std::vector<std::string> scopes;  // a namespace's name, or "" for any other brace
    std::optional<std::vector<TemplateParam>> pending;  // the template<...> just read
    bool explicit_instantiation = false;                // `template` without '<'
    for (std::size_t i = 0; i < t.size(); ++i) {
        const std::string& w = t[i].text;
        if (w == "namespace") {
            std::string name;
            std::size_t j = i + 1;
            for (; j < t.size() && t[j].text != "{" && t[j].text != ";" && t[j].text != "="; ++j) name += t[j].text;
            if (j < t.size() && t[j].text == "{") {
                scopes.push_back(name);  // anonymous: its names are reached from outside as they are
                i = j;
            }
            continue;
        }
        if (w == "{") scopes.emplace_back(), pending.reset(), explicit_instantiation = false;
        if (w == "}" && !scopes.empty()) scopes.pop_back();
        if (w == ";" || w == "}") pending.reset(), explicit_instantiation = false;
        if (w == "template") {
            if (i + 1 < t.size() && t[i + 1].text == "<") {
                const std::size_t end = skip_group(t, i + 1);
                std::vector<TemplateParam> params;
                for (const std::string& p : split_top_level(join(t, i + 2, end - 1)))
                    if (!p.empty()) params.push_back(parse_param(p));
                pending = std::move(params);
                i = end - 1;
            } else {
                explicit_instantiation = true;
            }
            continue;
        }
        if (w != "__global__" || explicit_instantiation) continue;
        // `__global__ void __launch_bounds__(256) name(`: the name is the identifier before the first '(' or '<'.
        std::size_t j = i + 1;
        while (j + 1 < t.size() && !(t[j + 1].text == "(" || t[j + 1].text == "<")) ++j;
        if (j + 1 < t.size() && t[j].text == "__launch_bounds__") {
            j = skip_group(t, j + 1);
            while (j + 1 < t.size() && !(t[j + 1].text == "(" || t[j + 1].text == "<")) ++j;
        }
        if (j + 1 >= t.size() || t[j + 1].text == "<" || !ident_start(t[j].text.front())) continue;  // a specialisation
        std::string name = t[j].text;
        for (auto s = scopes.rbegin(); s != scopes.rend(); ++s)
            if (!s->empty()) name = *s + "::" + name;
        const bool seen = std::any_of(out.begin(), out.end(), [&](const KernelDecl& k) { return k.name == name; });
        if (!seen)
            out.push_back(KernelDecl{name, pending.value_or(std::vector<TemplateParam>{}), pending.has_value(), t[i].line,
                                     parameter_names(t, j + 1)});
        pending.reset();
    }
    return out;
}

namespace {

// ---------------------------------------------------------- instantiating --

std::string read_text(const std::string& path, bool& ok)
{
    std::ifstream f(path, std::ios::binary);
    ok = static_cast<bool>(f);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

// "ns::reduce2<int>(int*, int*, unsigned int)" -> "ns::reduce2"
std::string qualified_name(const std::string& demangled) { return demangled.substr(0, demangled.find_first_of("<(")); }

bool names_match(const std::string& qualified, std::string_view name)
{
    return qualified == name || (qualified.size() > name.size() + 2 && qualified.ends_with("::" + std::string(name)));
}

// The template arguments of a demangled name, as printed: {"int", "256u"}.
std::vector<std::string> template_args(const std::string& demangled)
{
    const std::size_t open = demangled.find('<');
    const std::size_t paren = demangled.find('(');
    if (open == std::string::npos || (paren != std::string::npos && paren < open)) return {};
    int depth = 0;
    for (std::size_t i = open; i < demangled.size(); ++i) {
        if (demangled[i] == '<') ++depth;
        if (demangled[i] == '>' && --depth == 0) return split_top_level(std::string_view(demangled).substr(open + 1, i - open - 1));
    }
    return {};
}

// One argument as a comparable text: "(unsigned short)256", "256u", "256ul" -> "256".
std::string normalised(std::string a)
{
    a = trim(a);
    if (a.starts_with("(") && a.find(')') != std::string::npos) a = trim(a.substr(a.find(')') + 1));
    if (!a.empty() && (std::isdigit(static_cast<unsigned char>(a.front())) || a.front() == '-'))
        while (!a.empty() && std::strchr("uUlL", a.back())) a.pop_back();
    a.erase(std::remove(a.begin(), a.end(), ' '), a.end());
    return a;
}

// What the fill gives each parameter: its argument text, or nothing.
std::vector<std::optional<std::string>> fill_params(const KernelDecl& k, const TemplateFill& fill)
{
    std::vector<std::optional<std::string>> out;
    std::size_t type = 0, value = 0;
    for (const TemplateParam& p : k.params) {
        if (p.kind == TemplateParam::Kind::Type && type < fill.types.size())
            out.emplace_back(fill.types[type++]);
        else if (p.kind == TemplateParam::Kind::Integral && value < fill.values.size())
            out.emplace_back(std::to_string(fill.values[value++]));
        else
            out.emplace_back();
    }
    return out;
}

// The explicit argument list for the fill ("int, 256"), a parameter it cannot
// fill taking its default; nothing with the first parameter left open.
std::optional<std::string> argument_list(const KernelDecl& k, const std::vector<std::optional<std::string>>& filled,
                                         const TemplateParam** open)
{
    std::size_t last = filled.size();  // trailing defaults stay implicit
    while (last > 0 && !filled[last - 1] && !k.params[last - 1].default_value.empty()) --last;
    std::string out;
    for (std::size_t i = 0; i < last; ++i) {
        const std::string arg = filled[i] ? *filled[i] : k.params[i].default_value;
        if (arg.empty()) {
            *open = &k.params[i];
            return std::nullopt;
        }
        out += (i ? ", " : "") + arg;
    }
    return out;
}

// Whether an instance's printed arguments agree with every filled parameter.
bool fits(const std::vector<std::string>& args, const std::vector<std::optional<std::string>>& filled)
{
    if (args.size() != filled.size()) return false;
    for (std::size_t i = 0; i < args.size(); ++i)
        if (filled[i] && normalised(args[i]) != normalised(*filled[i])) return false;
    return true;
}

// "reduce2<int>" of "reduce2<int>(int*, int*, unsigned int)".
std::string written_instance(const std::string& demangled)
{
    std::string out;
    for (const std::string& a : template_args(demangled)) out += (out.empty() ? "" : ", ") + a;
    return qualified_name(demangled) + "<" + out + ">";
}

}  // namespace

void name_parameters(Module& m, std::string_view source)
{
    for (const KernelDecl& k : scan_kernels(source)) m.name_parameters(k.name, k.parameters);
}

void name_parameters_from_sources(Module& m)
{
    for (const std::string& path : m.source_files()) {
        std::ifstream in(path, std::ios::binary);
        if (!in) continue;  // moved or removed since the build: its kernels keep "argument N"
        const std::string source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        name_parameters(m, source);
    }
}

namespace {

std::string kernel_list(const std::vector<KernelDecl>& kernels)
{
    std::string out;
    for (const KernelDecl& k : kernels) out += (out.empty() ? "" : ", ") + k.signature();
    return out;
}

std::string describe_fill(const TemplateFill& fill)
{
    std::string out;
    for (const std::string& t : fill.types) out += (out.empty() ? "" : ", ") + std::string("type ") + t;
    for (long long v : fill.values) out += (out.empty() ? "" : ", ") + std::string("value ") + std::to_string(v);
    return out.empty() ? "no template arguments" : out;
}

}  // namespace

KernelFile::KernelFile(std::string path, CompileOptions options, std::string shown)
    : path_(std::move(path)), shown_(shown.empty() ? path_ : std::move(shown)), options_(std::move(options))
{
    bool ok = false;
    source_ = read_text(path_, ok);
    if (!ok || fs::is_directory(path_)) throw KernelFileError("cannot read kernel file '" + shown_ + "'");
    if (trim(source_).empty()) throw KernelFileError(shown_ + " is empty: write a __global__ kernel in it");
    kernels_ = scan_kernels(source_);
    tokenize(source_, mentions_global_);
    if (!mentions_global_)
        throw KernelFileError(shown_ + " declares no __global__ function: only a kernel (a __global__ function) can be launched");
}

KernelFile::~KernelFile() = default;

const Module& KernelFile::as_written()
{
    if (!plain_) {
        const CompiledPtx ptx = compile_file(path_, options_);
        plain_ = std::make_unique<Module>(Module::parse(ptx.text, shown_));
        name_parameters(*plain_, source_);
        warnings_[plain_.get()] = ptx.warnings;
    }
    return *plain_;
}

const KernelDecl& KernelFile::pick(std::string_view name) const
{
    if (kernels_.empty())
        throw KernelFileError(shown_ + " declares its kernels through macros, which warplab does not read: declare them with __global__");
    if (name.empty()) {
        if (kernels_.size() == 1) return kernels_.front();
        throw KernelFileError(shown_ + " has " + std::to_string(kernels_.size()) + " kernels: name one with --kernel (" +
                              kernel_list(kernels_) + ")");
    }
    for (const KernelDecl& k : kernels_)
        if (names_match(k.name, name)) return k;
    throw KernelFileError("no kernel '" + std::string(name) + "' in " + shown_ + "; its kernels: " + kernel_list(kernels_));
}

const KernelFile::Instance& KernelFile::instance(std::string_view name, const TemplateFill& fill)
{
    const KernelDecl& k = pick(name);
    const std::string key = k.name + '\0' + describe_fill(fill);
    if (auto it = instances_.find(key); it != instances_.end()) return it->second;
    const Module& plain = as_written();
    const std::vector<KernelInfo> compiled = plain.kernels();
    const auto found = [&](const Module& m, const KernelInfo& info, std::string how) -> const Instance& {
        return instances_[key] = Instance{&m, info.mangled, m.find(info.mangled), std::move(how), warnings_[&m]};
    };
    if (!k.is_template) {
        for (const KernelInfo& info : compiled)
            if (names_match(qualified_name(info.demangled), k.name) && template_args(info.demangled).empty())
                return found(plain, info, "");
        throw KernelFileError("nvcc made no kernel " + k.name + " of " + shown_ + " (is it defined, not only declared?)");
    }
    // The file's own explicit instantiation, where one agrees with the fill.
    const std::vector<std::optional<std::string>> filled = fill_params(k, fill);
    for (const KernelInfo& info : compiled)
        if (names_match(qualified_name(info.demangled), k.name) && fits(template_args(info.demangled), filled))
            return found(plain, info, written_instance(info.demangled) + ", the file's explicit instantiation");
    const TemplateParam* open = nullptr;
    const std::optional<std::string> args = argument_list(k, filled, &open);
    if (!args) {
        const bool none_instantiated = compiled.empty() &&
                                       std::all_of(kernels_.begin(), kernels_.end(), [](const KernelDecl& d) { return d.is_template; });
        const std::string what = "warplab cannot fill template parameter '" + open->text + "' of " + k.name + " from " +
                                 (fill.launch.empty() ? describe_fill(fill) : fill.launch);
        throw KernelFileError(none_instantiated ? shown_ + " has only uninstantiated kernel templates (" + kernel_list(kernels_) +
                                                      "), and " + what + ": give it a default or instantiate it in the file"
                                                : what + ", and no explicit instantiation in " + shown_ +
                                                      " fits: give it a default or instantiate it in the file");
    }
    const std::string expression = "&::" + k.name + "<" + *args + ">";
    auto& module = compiled_[expression];
    if (!module) {
        // The file's text with one line after it that takes the instance's
        // address; #line gives that line no file, so that nvcc's messages
        // name only the user's lines.
        const std::string text = source_ + "\n#line 1 \"(warplab instantiates " + k.name + "<" + *args +
                                 ">)\"\n[[maybe_unused]] static const void* const warplab_instance = "
                                 "reinterpret_cast<const void*>(" + expression + ");\n";
        CompileOptions opt = options_;
        opt.include_dirs.push_back(fs::absolute(path_).parent_path().string());  // its own #include "..." still resolve
        const CompiledPtx ptx = compile_source(text, shown_, opt);
        module = std::make_unique<Module>(Module::parse(ptx.text, shown_));
        name_parameters(*module, source_);
        warnings_[module.get()] = ptx.warnings;
    }
    for (const KernelInfo& info : module->kernels())
        if (names_match(qualified_name(info.demangled), k.name) && fits(template_args(info.demangled), filled))
            return found(*module, info, written_instance(info.demangled) + ", instantiated for " + fill.launch);
    throw KernelFileError("nvcc made no kernel " + k.name + "<" + *args + "> of " + shown_);
}

}  // namespace wl::ptx

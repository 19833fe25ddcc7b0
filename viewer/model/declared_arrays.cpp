#include "viewer/model/declared_arrays.h"

#include <cctype>
#include <regex>

#include "warplab/trace/analysis.h"

namespace warplab::viewer {

namespace {

std::string squeeze_spaces(const std::string& s)
{
    std::string out;
    for (char c : s) {
        if (std::isspace(static_cast<unsigned char>(c))) {
            if (!out.empty() && out.back() != ' ') out += ' ';
        } else {
            out += c;
        }
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

// "__shared__ __align__(8) unsigned long long full[STAGES], empty[STAGES];"
// -> {full: "unsigned long long", empty: "unsigned long long"}.
void parse_declaration(std::string decl, std::map<std::string, std::string>& out)
{
    decl = std::regex_replace(decl, std::regex(R"(__align__\s*\([^)]*\)|\bstatic\b|\bvolatile\b|\bconst\b)"), " ");
    static const std::regex first(R"(^\s*([A-Za-z_][\w\s:<>]*?)\s+([A-Za-z_]\w*)\s*\[)");
    static const std::regex more(R"(,\s*([A-Za-z_]\w*)\s*\[)");
    std::smatch m;
    if (!std::regex_search(decl, m, first)) return;
    const std::string type = squeeze_spaces(m[1].str());
    out.emplace(m[2].str(), type);
    for (auto it = std::sregex_iterator(decl.begin() + m.position(0) + m.length(0), decl.end(), more); it != std::sregex_iterator(); ++it)
        out.emplace((*it)[1].str(), type);
}

bool is_template_parameter(const std::string& name, const std::vector<const SourceFile*>& files)
{
    const std::regex param("(typename|class)\\s+" + name + "\\b");
    for (const SourceFile* f : files)
        for (const std::string& line : f->lines)
            if (line.find("template") != std::string::npos && std::regex_search(line, param)) return true;
    return false;
}

}  // namespace

std::map<std::string, std::string> shared_declarations(const std::vector<const SourceFile*>& files)
{
    std::map<std::string, std::string> out;
    for (const SourceFile* f : files)
        for (const std::string& line : f->lines) {
            const std::size_t at = line.find("__shared__");
            const std::size_t comment = line.find("//");
            if (at == std::string::npos || (comment != std::string::npos && comment < at)) continue;
            const std::size_t end = line.find(';', at);
            parse_declaration(line.substr(at + 10, end == std::string::npos ? std::string::npos : end - at - 10), out);
        }
    return out;
}

unsigned declared_type_size(const std::string& type, const std::string& element_type, const std::vector<const SourceFile*>& files)
{
    static const std::map<std::string, unsigned> sizes = {
        {"char", 1}, {"signed char", 1}, {"unsigned char", 1}, {"int8_t", 1}, {"uint8_t", 1}, {"bool", 1},
        {"short", 2}, {"unsigned short", 2}, {"int16_t", 2}, {"uint16_t", 2}, {"half", 2}, {"__half", 2}, {"__nv_bfloat16", 2},
        {"int", 4}, {"unsigned", 4}, {"unsigned int", 4}, {"int32_t", 4}, {"uint32_t", 4}, {"float", 4},
        {"long long", 8}, {"long long int", 8}, {"unsigned long long", 8}, {"unsigned long long int", 8},
        {"int64_t", 8}, {"uint64_t", 8}, {"double", 8}, {"float2", 8}, {"int2", 8}, {"uint2", 8},
        {"float4", 16}, {"int4", 16}, {"uint4", 16}, {"double2", 16}};
    const std::string t = type.rfind("std::", 0) == 0 ? type.substr(5) : type;
    if (const auto it = sizes.find(t); it != sizes.end()) return it->second;
    if (t.find_first_of(" :<") == std::string::npos && is_template_parameter(t, files) && t != element_type)
        return declared_type_size(element_type, element_type, files);
    return 0;
}

void use_declared_types(wl::trace::BlockAnalysis& run, const std::vector<const SourceFile*>& files, const std::string& element_type)
{
    const auto declared = shared_declarations(files);
    bool changed = false;
    for (wl::trace::SharedArrayInfo& a : run.block.shared_arrays) {
        const auto it = declared.find(a.name);
        if (it == declared.end()) continue;
        const unsigned size = declared_type_size(it->second, element_type, files);
        const std::uint64_t bytes = a.count * a.elem_size;
        if (size == 0 || size == a.elem_size || bytes % size) continue;
        a.elem_size = size;
        a.count = bytes / size;
        changed = true;
    }
    if (changed) run.shared_after = wl::trace::shared_contents(run.block);
}

}  // namespace warplab::viewer

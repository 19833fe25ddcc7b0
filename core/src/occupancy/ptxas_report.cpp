// Reading `ptxas -v` reports: one record per compiled entry, and the instance
// of a lab's kernel a launch runs.
#include <cxxabi.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <map>
#include <stdexcept>

#include "warplab/occupancy.h"

namespace wl::occupancy {

namespace detail {
// The labs' reports, embedded by the build (cmake/ptxas_report.cmake).
extern const char* const kReportLabs[];
extern const char* const kReportTexts[];
extern const unsigned kReportCount;
}  // namespace detail

namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// The number just before `unit` in `line` ("27 registers" -> 27); 0 when `unit` is absent.
unsigned number_before(std::string_view line, std::string_view unit)
{
    const std::size_t at = line.find(unit);
    if (at == std::string_view::npos || at == 0) return 0;
    std::size_t begin = line.find_last_not_of("0123456789", at - 2);
    begin = begin == std::string_view::npos ? 0 : begin + 1;
    unsigned value = 0;
    std::from_chars(line.data() + begin, line.data() + at - 1, value);
    return value;
}

// "void ns::k<256u, int>(int const*, int*, unsigned int)" -> "ns::k<256u, int>"
std::string entry_of(const std::string& mangled)
{
    int status = 0;
    char* d = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
    std::string name = status == 0 && d ? d : mangled;
    std::free(d);
    int depth = 0;
    for (std::size_t i = 0; i < name.size(); ++i) {
        depth += name[i] == '<' ? 1 : name[i] == '>' ? -1 : 0;
        if (name[i] == '(' && depth == 0) {
            name.resize(i);
            break;
        }
    }
    if (starts_with(name, "void ")) name.erase(0, 5);  // a template function's return type
    return name;
}

// The quoted name in "... entry function '_Z...' for 'sm_90'".
std::string quoted(std::string_view line)
{
    const std::size_t open = line.find('\'');
    const std::size_t close = open == std::string_view::npos ? open : line.find('\'', open + 1);
    if (close == std::string_view::npos) throw std::invalid_argument("ptxas report: no quoted name in '" + std::string(line) + "'");
    return std::string(line.substr(open + 1, close - open - 1));
}

// "ns::k<256u, int>" -> name "k", arguments {"256u", "int"}
struct Instance {
    std::string_view name;
    std::vector<std::string_view> args;
};

Instance split_entry(std::string_view entry)
{
    Instance out;
    const std::size_t open = entry.find('<');
    std::string_view qualified = entry.substr(0, open);
    const std::size_t scope = qualified.rfind("::");
    out.name = scope == std::string_view::npos ? qualified : qualified.substr(scope + 2);
    if (open == std::string_view::npos) return out;
    int depth = 0;
    std::size_t start = open + 1;
    for (std::size_t i = open + 1; i < entry.size(); ++i) {
        const char c = entry[i];
        if (c == '<') ++depth;
        if ((c == ',' && depth == 0) || (c == '>' && depth-- == 0)) {
            std::string_view arg = entry.substr(start, i - start);
            while (!arg.empty() && arg.front() == ' ') arg.remove_prefix(1);
            out.args.push_back(arg);
            start = i + 1;
            if (c == '>') break;
        }
    }
    return out;
}

bool has_arg(const Instance& in, std::string_view arg)
{
    for (std::string_view a : in.args)
        if (a == arg) return true;
    return false;
}

// A 2D group's instance (the image lab's <BX, BY>): two value arguments whose
// product is `block`; `skew` says how far from square it is (BX / BY or BY / BX).
bool is_group_of(const Instance& in, unsigned block, unsigned* skew = nullptr)
{
    if (in.args.size() != 2) return false;
    unsigned dims[2] = {};
    for (int i = 0; i < 2; ++i) {
        const std::string_view a = in.args[i];
        if (a.size() < 2 || a.back() != 'u' || a.find_first_not_of("0123456789") != a.size() - 1) return false;
        dims[i] = unsigned(std::stoul(std::string(a.substr(0, a.size() - 1))));
    }
    if (skew && dims[0] && dims[1]) *skew = std::max(dims[0], dims[1]) / std::min(dims[0], dims[1]);
    return dims[0] * dims[1] == block;
}

}  // namespace

std::vector<KernelResources> parse_ptxas_report(std::string_view text)
{
    std::vector<KernelResources> out;
    std::string properties_of;  // the function the next stack-frame line describes
    while (!text.empty()) {
        const std::size_t eol = text.find('\n');
        const std::string_view line = text.substr(0, eol);
        text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
        if (line.empty() || line.front() == '#') continue;
        if (line.find("Compiling entry function") != std::string_view::npos) {
            out.push_back({quoted(line), "", 0, 0, 0, 0, 0});
            out.back().entry = entry_of(out.back().mangled);
        } else if (line.find("Function properties for ") != std::string_view::npos) {
            properties_of = std::string(line.substr(line.find("Function properties for ") + 24));
        } else if (line.find("bytes stack frame") != std::string_view::npos) {
            if (!out.empty() && out.back().mangled == properties_of) {
                out.back().stack = number_before(line, "bytes stack frame");
                out.back().spill_stores = number_before(line, "bytes spill stores");
                out.back().spill_loads = number_before(line, "bytes spill loads");
            }
        } else if (line.find("Used ") != std::string_view::npos && line.find(" registers") != std::string_view::npos) {
            if (out.empty()) throw std::invalid_argument("ptxas report: '" + std::string(line) + "' before any entry function");
            out.back().registers = number_before(line, "registers");
            out.back().shared_static = number_before(line, "bytes smem");
        } else if (!starts_with(line, "ptxas")) {
            throw std::invalid_argument("ptxas report: '" + std::string(line) + "' is not a line of `ptxas -v`");
        }
    }
    return out;
}

const std::vector<KernelResources>* lab_resources(std::string_view lab)
{
    static const std::map<std::string, std::vector<KernelResources>, std::less<>> reports = [] {
        std::map<std::string, std::vector<KernelResources>, std::less<>> m;
        for (unsigned i = 0; i < detail::kReportCount; ++i)
            m[detail::kReportLabs[i]] = parse_ptxas_report(detail::kReportTexts[i]);
        return m;
    }();
    const auto it = reports.find(lab);
    return it == reports.end() ? nullptr : &it->second;
}

const KernelResources* find_instance(const std::vector<KernelResources>& report, std::string_view kernel, unsigned block,
                                     std::string_view type)
{
    std::vector<std::pair<const KernelResources*, Instance>> instances;
    for (const KernelResources& k : report) {
        Instance in = split_entry(k.entry);
        if (in.name == kernel) instances.emplace_back(&k, std::move(in));
    }
    if (instances.size() == 1) return instances.front().first;
    const std::string block_arg = std::to_string(block) + "u";
    const KernelResources* at_block = nullptr;
    unsigned best_skew = ~0u;  // of 2D groups of `block` threads, the squarest (the version's own: 16×16, 8×8, 4×4)
    for (const auto& [k, in] : instances) {
        unsigned skew = ~0u;
        if (is_group_of(in, block, &skew)) {
            if (skew < best_skew) best_skew = skew, at_block = k;
            continue;
        }
        if (!has_arg(in, block_arg)) continue;
        if (has_arg(in, type)) return k;
        if (!at_block) at_block = k;
    }
    return at_block;
}

LaunchUsage launch_usage(std::string_view lab, std::string_view kernel, unsigned own_block, std::string_view type,
                         const WhatIf& what_if, unsigned own_dynamic_shared)
{
    const std::vector<KernelResources>* report = lab_resources(lab);
    if (!report)
        throw std::invalid_argument("this build has no ptxas report for lab " + std::string(lab) + " (kernels/ptx/" +
                                    std::string(lab) + ".resources; the refresh_ptx target makes it)");
    LaunchUsage out;
    const unsigned block = what_if.block.value_or(own_block);
    out.instance = find_instance(*report, kernel, block, type);
    if (!out.instance) {
        out.compiled_at_block = false;
        out.instance = find_instance(*report, kernel, own_block, type);
    }
    if (!out.instance)
        throw std::invalid_argument("the ptxas report of lab " + std::string(lab) + " has no instance of " +
                                    std::string(kernel) + " at " + std::to_string(own_block) + " threads");
    out.usage = {block, what_if.registers.value_or(out.instance->registers),
                 what_if.shared.value_or(out.instance->shared_static + own_dynamic_shared)};
    return out;
}

}  // namespace wl::occupancy

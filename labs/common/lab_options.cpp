#include "labs/common/lab_options.h"

#include <algorithm>
#include <stdexcept>

namespace warplab {

std::string per_lab(const std::function<std::string(const Lab&)>& of)
{
    std::string out;
    for (const Lab& lab : all_labs())
        if (const std::string text = of(lab); !text.empty()) out += (out.empty() ? "" : "; ") + lab.id + ": " + text;
    return out;
}

std::string shape_forms()
{
    return per_lab([](const Lab& lab) { return lab.shape_form; });
}

std::string block_forms()
{
    return per_lab([](const Lab& lab) { return lab.block_form; });
}

std::string count_problem(const std::string& text, const std::string& what)
{
    const bool digits = !text.empty() && text.size() < 20 && text.find_first_not_of("0123456789") == std::string::npos;
    return digits && std::stoull(text) > 0 ? std::string() : "'" + text + "' is no " + what + " (1, 2, ...)";
}

std::string labs_where(const std::function<bool(const Lab&)>& which)
{
    std::string out;
    for (const Lab& lab : all_labs())
        if (which(lab)) out += (out.empty() ? "" : " and ") + lab.id;
    return out;
}

std::vector<DeclaredInput> declared_inputs()
{
    std::vector<DeclaredInput> out;
    for (const Lab& lab : all_labs())
        for (const Lab::Input& input : lab.inputs) {
            auto it = std::find_if(out.begin(), out.end(), [&](const DeclaredInput& d) { return d.name == input.name; });
            if (it == out.end()) it = out.insert(out.end(), {input.name, input.value_name, {}});
            it->declarers.push_back({&lab, &input});
        }
    return out;
}

std::string input_help(const DeclaredInput& input, bool bench)
{
    std::string out;
    for (const auto& [lab, declared] : input.declarers)
        out += (out.empty() ? "" : "; ") + lab->id + " lab: " + (bench ? declared->bench_help : declared->trace_help);
    return out;
}

std::map<std::string, std::string> given_inputs(const std::map<std::string, std::string>& values)
{
    std::map<std::string, std::string> out;
    for (const auto& [name, value] : values)
        if (!value.empty()) out[name] = value;
    return out;
}

std::map<std::string, std::string> own_inputs(const Lab& lab, const std::map<std::string, std::string>& given)
{
    std::map<std::string, std::string> out;
    for (const Lab::Input& input : lab.inputs)
        if (const auto value = given.find(input.name); value != given.end()) out.insert(*value);
    return out;
}

void check_inputs(const Lab& lab, const std::map<std::string, std::string>& given, const std::vector<std::size_t>& shape)
{
    for (const auto& entry : given) {
        const std::string& name = entry.first;  // not a structured binding: lambdas below capture it (clang before 16)
        const std::string& value = entry.second;
        const auto own = std::find_if(lab.inputs.begin(), lab.inputs.end(), [&](const Lab::Input& i) { return i.name == name; });
        if (own != lab.inputs.end()) {
            if (own->check) own->check(value, shape);
            continue;
        }
        const std::string declarers = labs_where([&](const Lab& other) {
            return std::any_of(other.inputs.begin(), other.inputs.end(), [&](const Lab::Input& i) { return i.name == name; });
        });
        if (declarers.empty()) throw std::invalid_argument("--" + name + " is no lab's input");
        throw std::invalid_argument("--" + name + " is the " + declarers + " lab's input, not the " + lab.id + " lab's");
    }
}

}  // namespace warplab

// The launch records and watch specifications of `warplab run` (warplab/cudart/run_record.h).
#include "warplab/cudart/run_record.h"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace wl::cudart {

namespace {

// `text`, a number within `part`, the value of `option`.
template <class T> T number(std::string_view text, std::string_view part, const char* what, const char* option = "--watch")
{
    T v{};
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size())
        throw std::invalid_argument(std::string(option) + " '" + std::string(part) + "': " + what + " '" + std::string(text) +
                                    "' is not a number");
    return v;
}

// "ns::scale<3>" -> "scale": without namespaces and template arguments.
std::string_view bare_name(std::string_view demangled)
{
    if (const auto lt = demangled.find('<'); lt != std::string_view::npos) demangled = demangled.substr(0, lt);
    if (const auto colon = demangled.rfind("::"); colon != std::string_view::npos) demangled = demangled.substr(colon + 2);
    return demangled;
}

}  // namespace

std::vector<WatchSpec> parse_watch(std::string_view text)
{
    std::vector<WatchSpec> specs;
    while (!text.empty()) {
        const auto comma = text.find(',');
        const std::string_view part = text.substr(0, comma);
        text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
        WatchSpec s;
        std::string_view name = part;
        if (const auto at = name.rfind('@'); at != std::string_view::npos) {
            s.block = number<std::uint32_t>(name.substr(at + 1), part, "the block");
            name = name.substr(0, at);
        }
        // A launch number follows the last ':' that is not part of "::".
        if (const auto colon = name.rfind(':'); colon != std::string_view::npos && (colon == 0 || name[colon - 1] != ':')) {
            s.launch = number<unsigned>(name.substr(colon + 1), part, "the launch");
            if (s.launch == 0) throw std::invalid_argument("--watch '" + std::string(part) + "': launches count from 1");
            name = name.substr(0, colon);
        }
        if (name.empty()) throw std::invalid_argument("--watch '" + std::string(part) + "' names no kernel (kernel[:n][@block])");
        s.kernel = std::string(name);
        specs.push_back(std::move(s));
    }
    return specs;
}

InjectedFailure parse_injected_failure(std::string_view text)
{
    InjectedFailure f;
    const auto colon = text.find(':');
    const std::string_view call = text.substr(0, colon);
    if (colon != std::string_view::npos && call == "alloc") f.call = InjectedFailure::Call::Allocation;
    else if (colon == std::string_view::npos || call != "launch")
        throw std::invalid_argument("--fail '" + std::string(text) + "': not launch:N or alloc:N");
    f.nth = number<unsigned>(text.substr(colon + 1), text, "the count", "--fail");
    if (f.nth == 0) throw std::invalid_argument("--fail '" + std::string(text) + "': calls count from 1");
    return f;
}

bool names_kernel(std::string_view name, std::string_view demangled, std::string_view mangled)
{
    return name == demangled || name == mangled || name == bare_name(demangled);
}

std::string short_host_line(const LaunchRecord& r)
{
    return r.host_line.empty() ? "-" : std::filesystem::path(r.host_line).filename().string();
}

nlohmann::json to_json(const LaunchRecord& r)
{
    nlohmann::json j = {{"index", r.index},
                        {"kernel", r.kernel},
                        {"grid", {r.grid[0], r.grid[1], r.grid[2]}},
                        {"block", {r.block[0], r.block[1], r.block[2]}},
                        {"shared_bytes", r.shared_bytes},
                        {"emulated_ms", r.emulated_ms},
                        {"lane_instructions", r.lane_instructions}};
    if (!r.error.empty()) j["error"] = r.error;
    if (!r.trace.empty()) j["trace"] = r.trace, j["watched_block"] = r.watched_block;
    if (!r.host_line.empty()) j["host_line"] = r.host_line;
    if (r.on_gpu) j["backend"] = "gpu";
    if (!r.engine.empty()) j["engine"] = r.engine;
    return j;
}

LaunchRecord launch_from_json(const nlohmann::json& j)
{
    LaunchRecord r;
    r.index = j.at("index").get<unsigned>();
    r.kernel = j.at("kernel").get<std::string>();
    for (int i = 0; i < 3; ++i) r.grid[i] = j.at("grid").at(i).get<unsigned>(), r.block[i] = j.at("block").at(i).get<unsigned>();
    r.shared_bytes = j.at("shared_bytes").get<std::uint64_t>();
    r.emulated_ms = j.at("emulated_ms").get<double>();
    r.lane_instructions = j.value("lane_instructions", std::uint64_t{0});
    r.error = j.value("error", "");
    r.trace = j.value("trace", "");
    r.watched_block = j.value("watched_block", 0u);
    r.host_line = j.value("host_line", "");
    r.on_gpu = j.value("backend", "") == "gpu";
    r.engine = j.value("engine", "");
    return r;
}

nlohmann::json to_json(const ResultRead& r) { return {{"after_launch", r.after_launch}, {"call", r.call}}; }

namespace {

// The records of dir/file, one JSON document a line, each made by `from_json`; none when there is no such file.
template <class Record, class FromJson> std::vector<Record> read_records(const std::string& dir, const char* file, FromJson from_json)
{
    std::vector<Record> out;
    std::ifstream in(dir + "/" + file);
    std::string line;
    for (unsigned n = 1; std::getline(in, line); ++n) {
        try {
            out.push_back(from_json(nlohmann::json::parse(line)));
        } catch (const nlohmann::json::exception& e) {
            throw std::invalid_argument(std::string(file) + " line " + std::to_string(n) + " does not read: " + e.what());
        }
    }
    return out;
}

}  // namespace

std::vector<ResultRead> read_results_read(const std::string& dir)
{
    return read_records<ResultRead>(dir, kResultsReadFile, [](const nlohmann::json& j) {
        return ResultRead{j.at("after_launch").get<unsigned>(), j.at("call").get<std::string>()};
    });
}

std::vector<LaunchRecord> read_launches(const std::string& dir)
{
    return read_records<LaunchRecord>(dir, kLaunchesFile, launch_from_json);
}

}  // namespace wl::cudart

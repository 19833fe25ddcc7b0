#include "labs/common/fidelity.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "labs/common/bench_json.h"

namespace warplab {
namespace fs = std::filesystem;

namespace {

// "(256, 1, 1)" -> {256, 1, 1}
std::vector<unsigned> parse_dims(const std::string& text)
{
    std::vector<unsigned> dims;
    std::size_t i = 0;
    while ((i = text.find_first_of("0123456789", i)) != std::string::npos) {
        std::size_t used = 0;
        dims.push_back(static_cast<unsigned>(std::stoul(text.substr(i), &used)));
        i += used;
    }
    return dims;
}

// The recorded launch: the `warplab trace` arguments the script counted with
// (--n N | --size S or M,N,K, --type T), the block as ncu saw it.
CountedLaunch recorded_launch(const nlohmann::json& row, const Lab& lab)
{
    CountedLaunch l;
    l.type = lab.types.front();
    l.block = parse_dims(row.at("block").get<std::string>());
    const std::vector<std::string> args = row.at("trace_args").get<std::vector<std::string>>();
    for (std::size_t i = 0; i + 1 < args.size(); ++i) {
        if (args[i] == "--type") l.type = args[i + 1];
        if (args[i] == "--n") l.shape = {static_cast<std::size_t>(std::stoull(args[i + 1]))};  // recorded sizes fit 32 bits
        if (args[i] == "--size") {
            std::vector<unsigned> dims = parse_dims(args[i + 1]);
            if (dims.size() == 1) dims = {dims[0], dims[0], dims[0]};  // not assign(3, dims[0]): assign may not take its own element
            l.shape.assign(dims.begin(), dims.end());
        }
    }
    return l;
}

MemoryCounts ncu_counts(const nlohmann::json& metrics)
{
    auto per_block = [&](const char* key) { return metrics.at(key).at("ncu_per_block").get<double>(); };
    return {per_block("shared_ld_instructions"), per_block("shared_ld_wavefronts"),
            per_block("shared_st_instructions"), per_block("shared_st_wavefronts"),
            per_block("global_ld_requests"),     per_block("global_ld_sectors")};
}

// "NVIDIA H100 80GB HBM3, 580.159.04, 1980 MHz" (nvidia-smi's CSV) -> "NVIDIA H100 80GB HBM3"
std::string first_field(const std::string& text) { return text.substr(0, text.find(',')); }

}  // namespace

MemoryCounts counted(const wl::trace::Totals& t)
{
    return {double(t.shared_load.requests),  double(t.shared_load.wavefronts), double(t.shared_store.requests),
            double(t.shared_store.wavefronts), double(t.global_load.requests), double(t.global_load.sectors)};
}

CountedLaunch launch_of(const RunRequest& req, const RunResult& result)
{
    CountedLaunch l;
    l.shape = result.shape.empty() ? std::vector<std::size_t>{req.n} : result.shape;
    l.type = req.type;
    l.block = result.block_dim.empty() ? std::vector<unsigned>{req.block, 1, 1} : result.block_dim;
    return l;
}

std::string describe(const CountedLaunch& l)
{
    auto joined = [](const auto& v) {
        std::string s;
        for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "×" : "") + std::to_string(v[i]);
        return s;
    };
    std::vector<unsigned> block = l.block;
    while (block.size() > 1 && block.back() == 1) block.pop_back();
    const std::string size = l.shape.size() == 1 ? "n = " + std::to_string(l.shape[0]) : joined(l.shape);
    return size + " " + l.type + ", block " + joined(block);
}

std::optional<MeasuredCounts> measured_counts_in(const std::string& path, const Lab& lab, const std::string& version)
{
    std::ifstream f(path);
    if (!f) return std::nullopt;
    try {
        const nlohmann::json doc = nlohmann::json::parse(f);
        for (const nlohmann::json& row : doc.at("rows")) {
            if (row.at("lab") != lab.id || row.at("version") != version) continue;
            const nlohmann::json& p = doc.at("provenance");
            const std::string tool = p.at("ncu").get<std::string>();  // "Version 2025.3.1.0 (build ...) ..."
            const std::size_t digit = tool.find_first_of("0123456789");
            MeasuredCounts m{first_field(p.at("gpu").get<std::string>()),
                             "ncu " + (digit == std::string::npos ? tool : tool.substr(digit, tool.find(' ', digit) - digit)),
                             p.at("date").get<std::string>().substr(0, 10), recorded_launch(row, lab),
                             ncu_counts(row.at("metrics")), {}};
            const std::string mine = lab.id + " " + version + " ";  // "matmul v9 shared_st_wavefronts (...): why"
            for (const nlohmann::json& note : doc.value("not_compared", nlohmann::json::array()))
                if (note.is_string() && note.get<std::string>().starts_with(mine))
                    m.not_compared.push_back(note.get<std::string>().substr(mine.size()));
            return m;
        }
    } catch (const nlohmann::json::exception& e) {
        throw std::invalid_argument(path + " is not a fidelity table as scripts/ncu_fidelity.py writes it: " + e.what());
    }
    return std::nullopt;
}

std::optional<MeasuredCounts> measured_counts(const Lab& lab, const std::string& version)
{
    const fs::path dir = fs::path(results_dir()) / "fidelity";
    std::error_code ec;
    std::vector<fs::path> files;
    for (const fs::directory_entry& e : fs::directory_iterator(dir, ec))
        if (e.path().extension() == ".json") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files)
        if (auto m = measured_counts_in(file.string(), lab, version)) return m;
    return std::nullopt;
}

std::string short_gpu_name(const std::string& gpu)
{
    std::string s = gpu.starts_with("NVIDIA ") ? gpu.substr(7) : gpu;
    return s.substr(0, s.find(' '));
}

}  // namespace warplab

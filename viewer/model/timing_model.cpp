#include "viewer/model/timing_model.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "labs/common/bench_json.h"
#include "viewer/model/format.h"

namespace warplab::viewer {

Timing load_recorded_timing(const std::string& results_dir)
{
    Timing timing;
    std::error_code ec;
    if (!std::filesystem::is_directory(results_dir, ec)) return timing;
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(results_dir, ec))
        if (entry.path().extension() == ".json") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const auto& path : files) {
        try {
            std::ifstream in(path);
            for (BenchTable& t : tables_from_document(nlohmann::json::parse(in)))
                timing.tables.push_back({std::move(t), false, path.filename().string()});
        } catch (const std::exception& e) {
            timing.load_error = path.filename().string() + ": " + e.what();
        }
    }
    try {
        timing.published = load_published((std::filesystem::path(results_dir) / "published").string());
    } catch (const std::exception& e) {
        timing.load_error = e.what();
    }
    return timing;
}

std::vector<int> tables_of_lab(const Timing& timing, const std::string& lab)
{
    std::vector<int> out;
    for (int i = 0; i < int(timing.tables.size()); ++i)
        if (timing.tables[i].table.lab == lab) out.push_back(i);
    return out;
}

int default_table(const Timing& timing, const std::string& lab, const std::string& type)
{
    const std::vector<int> mine = tables_of_lab(timing, lab);
    if (mine.empty()) return -1;
    if (std::find(mine.begin(), mine.end(), timing.selected) != mine.end()) return timing.selected;
    for (auto it = mine.rbegin(); it != mine.rend(); ++it)
        if (timing.tables[*it].measured_now) return *it;
    // The whole ladder at its largest n of the type, at each version's own
    // block: a --block run (a group sweep) is a table to choose, not the
    // ladder, and a size timed for a few rows only (matmul's 8192^3, its BF16
    // rows) would leave most versions out.
    int best = -1;
    for (int i : mine) {
        const BenchTable& t = timing.tables[i].table;
        if (t.type != type || !t.block.empty()) continue;
        if (best < 0) { best = i; continue; }
        const BenchTable& b = timing.tables[best].table;
        if (t.rows.size() > b.rows.size() || (t.rows.size() == b.rows.size() && t.n > b.n)) best = i;
    }
    return best >= 0 ? best : mine.front();
}

std::string source_label(const TimingTable& t)
{
    const Provenance& p = t.table.provenance;
    if (t.measured_now) return "measured now on " + p.gpu;
    return "recorded on " + p.gpu + ", " + p.date.substr(0, 10);
}

static std::string block_label(const BenchTable& t)
{
    if (t.block.empty()) return "";
    if (t.block.size() == 1) return ", block " + std::to_string(t.block[0]);
    return ", group " + std::to_string(t.block[0]) + "×" + std::to_string(t.block[1]);
}

std::string size_label_of(const BenchTable& t) { return size_label(t) + block_label(t) + (t.warm ? ", L2 warm" : ""); }

const BenchRow* find_row(const BenchTable& t, const std::string& version)
{
    // A version measured in several settings has a row for each ("v3 4 streams");
    // the version's own row is then the fastest of them.
    const BenchRow* best = nullptr;
    for (const BenchRow& r : t.rows) {
        if (r.reference) continue;
        if (r.version == version) return &r;
        if (row_version(r.version) == version && (!best || r.median_ms < best->median_ms))
            best = &r;
    }
    return best;
}

std::string row_setting(const BenchRow& r, const std::string& version)
{
    return r.version.size() > version.size() + 1 ? r.version.substr(version.size() + 1) : std::string();
}

const BenchRow* reference_row(const BenchTable& t)
{
    for (const BenchRow& r : t.rows)
        if (r.reference) return &r;
    return nullptr;
}

double speedup_vs_previous(const BenchTable& t, const BenchRow& r, const std::string& id, const std::string& prev_id)
{
    const BenchRow* p = find_row(t, prev_id);
    if (p && (!row_setting(r, id).empty() || !row_setting(*p, prev_id).empty()) && r.median_ms > 0) return p->median_ms / r.median_ms;
    return r.speedup_vs_previous;
}

std::string bound_sentence(const BenchRow& r)
{
    return printf_string("lower bound %.1f ms: this run is at %.0f %% of the links' speed", r.bound_ms, r.pct_peak);
}

std::optional<std::size_t> previous_version(const Lab& lab, std::size_t version)
{
    if (const char* base = lab.versions[version].builds_on)
        for (std::size_t i = 0; i < version; ++i)
            if (lab.versions[i].id == std::string_view(base)) return i;
    for (std::size_t i = version; i-- > 0;)
        if (!lab.versions[i].variant) return i;
    return std::nullopt;
}

}  // namespace warplab::viewer

#include "labs/common/published.h"

#include "labs/common/bench.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace warplab {
namespace {

using nlohmann::json;

std::optional<double> number_at(const json& j, const char* key)
{
    if (!j.contains(key) || j[key].is_null()) return std::nullopt;
    if (!j[key].is_number()) throw std::runtime_error(std::string("'") + key + "' is not a number");
    return j[key].get<double>();
}

std::string text_at(const json& j, const char* key) { return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : ""; }

std::vector<std::string> texts_at(const json& j, const char* key)
{
    return j.contains(key) ? j[key].get<std::vector<std::string>>() : std::vector<std::string>{};
}

PublishedRow row_from(const json& j)
{
    PublishedRow r{text_at(j, "label"), text_at(j, "version"), text_at(j, "mapping"),
                   number_at(j, "time"), number_at(j, "rate"), number_at(j, "speedup_vs_previous"),
                   number_at(j, "cumulative"), number_at(j, "elements_rate")};
    if (r.label.empty()) throw std::runtime_error("a row without a label");
    return r;
}

PublishedTable table_from(const json& j, const std::string& source, const std::string& citation)
{
    PublishedTable t;
    t.source = source, t.citation = citation;
    t.lab = text_at(j, "lab"), t.gpu = text_at(j, "gpu"), t.gpu_printed = text_at(j, "gpu_printed");
    t.measured = text_at(j, "measured"), t.where = text_at(j, "where"), t.n_printed = text_at(j, "n_printed");
    t.type = text_at(j, "type"), t.block_printed = text_at(j, "block_printed");
    t.n = number_at(j, "n"), t.block = number_at(j, "block"), t.peak_rate = number_at(j, "peak_rate");
    t.element_bytes = j.value("element_bytes", 4u);
    const json units = j.value("units", json::object());
    t.time_unit = text_at(units, "time"), t.rate_unit = text_at(units, "rate"), t.elements_unit = text_at(units, "elements_rate");
    t.notes = texts_at(j, "notes");
    for (const json& r : j.at("rows")) t.rows.push_back(row_from(r));
    if (t.lab.empty()) throw std::runtime_error("a table without a lab");
    return t;
}

PublishedStatements statements_from(const json& j, const std::string& source, const std::string& citation)
{
    return {source, citation, text_at(j, "lab"), text_at(j, "measured"), texts_at(j, "gpus"), texts_at(j, "text")};
}

}  // namespace

Published load_published(const std::string& dir)
{
    Published p;
    std::vector<std::filesystem::path> files;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec))
        if (e.path().extension() == ".json") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
        try {
            std::ifstream in(f);
            const json doc = json::parse(in);
            const std::string source = doc.at("source").get<std::string>(), citation = doc.at("citation").get<std::string>();
            for (const json& t : doc.value("tables", json::array())) p.tables.push_back(table_from(t, source, citation));
            for (const json& s : doc.value("statements", json::array()))
                p.statements.push_back(statements_from(s, source, citation));
        } catch (const std::exception& e) {
            throw std::runtime_error(f.string() + ": " + e.what());
        }
    }
    return p;
}

PublishedSpeedup published_speedup(const PublishedTable& t, std::size_t row)
{
    if (row == 0 || row >= t.rows.size()) return {};
    const PublishedRow &before = t.rows[row - 1], &after = t.rows[row];
    if (after.speedup_vs_previous) return {*after.speedup_vs_previous, "printed"};
    if (before.time && after.time && *after.time > 0) return {*before.time / *after.time, "from the times"};
    if (before.rate && after.rate && *before.rate > 0) return {*after.rate / *before.rate, "from the rates"};
    return {};
}

double recorded_speedup(const PublishedTable& t, std::size_t row, const BenchTable& now)
{
    if (row == 0 || row >= t.rows.size()) return 0;
    const auto time_of = [&](const std::string& version) {
        for (const BenchRow& r : now.rows)
            if (!version.empty() && r.version == version && r.ok) return r.median_ms;
        return 0.0;
    };
    const double before = time_of(t.rows[row - 1].version), after = time_of(t.rows[row].version);
    return before > 0 && after > 0 ? before / after : 0;
}

const BenchTable* table_beside(const PublishedTable& t, const std::vector<const BenchTable*>& recorded)
{
    const BenchTable* best = nullptr;
    for (const BenchTable* r : recorded) {
        if (r->lab != t.lab || r->type != t.type) continue;
        if (t.n && double(r->n) == *t.n) return r;
        if (!best || r->n > best->n) best = r;
    }
    return best;
}

}  // namespace warplab
